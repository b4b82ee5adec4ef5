"""tf.math / tf.linalg additions beyond their op records: options, errors and graph mode,
against real TF's values (tests/fixtures/math_extra/make_values.py)."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

SELF_ADJOINT = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
TF_EIGH_VECTORS = np.array([[0.2530423616352546, -0.48194966042618015, 0.8388647614682254],
                            [-0.053438720828776244, 0.858797174672029, 0.5095210652088139],
                            [-0.9659781914382112, -0.17375827344454725, 0.19155729188765633]])
TF_CONFUSION = [[1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 0, 0],
                [0, 0, 0, 0, 1]]


def test_confusion_matrix_counts_classes_and_weights_like_tf():
    counts = tf.math.confusion_matrix([1, 2, 4, 0, 2], [2, 2, 4, 0, 1])
    assert counts.dtype == tf.int32
    np.testing.assert_array_equal(counts.numpy(), TF_CONFUSION)
    weighted = tf.math.confusion_matrix([0, 1, 1], [1, 1, 0], num_classes=3,
                                        weights=[0.5, 2.0, 1.0], dtype=tf.float32)
    np.testing.assert_array_equal(weighted.numpy(), [[0.0, 0.5, 0.0], [1.0, 2.0, 0.0],
                                                     [0.0, 0.0, 0.0]])
    squeezable = tf.compat.v1.confusion_matrix([[1], [0]], [1, 1], num_classes=2)
    np.testing.assert_array_equal(squeezable.numpy(), [[0, 1], [0, 1]])


def test_confusion_matrix_rejects_bad_classes():
    with pytest.raises(errors.InvalidArgumentError, match="non-negative"):
        tf.math.confusion_matrix([-1, 0], [0, 0])
    with pytest.raises(errors.InvalidArgumentError, match="less than"):
        tf.math.confusion_matrix([3, 0], [0, 0], num_classes=3)


def test_confusion_matrix_in_a_graph():
    with tf.compat.v1.Graph().as_default():
        labels = tf.compat.v1.placeholder(tf.int64, [None])
        matrix = tf.math.confusion_matrix(labels, labels * 0 + 1, num_classes=3)
        assert matrix.shape.as_list() == [3, 3]
        with tf.compat.v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(matrix, {labels: [0, 2, 2]}),
                                          [[0, 1, 0], [0, 0, 0], [0, 2, 0]])


def test_eigh_vectors_are_tfs_up_to_sign():
    values, vectors = tf.linalg.eigh(SELF_ADJOINT)
    np.testing.assert_allclose(values.numpy(), [1.880086902915053, 2.3983430193369975,
                                                4.72157007774795], rtol=1e-12)
    signs = np.sign(np.sum(vectors.numpy() * TF_EIGH_VECTORS, axis=0))
    np.testing.assert_allclose(vectors.numpy() * signs, TF_EIGH_VECTORS, atol=1e-12)
    legacy_values, _ = tf.compat.v1.self_adjoint_eig(SELF_ADJOINT)
    np.testing.assert_allclose(tf.compat.v1.self_adjoint_eigvals(SELF_ADJOINT).numpy(),
                               legacy_values.numpy())


def test_linalg_extras_match_tf():
    np.testing.assert_array_equal(tf.linalg.matrix_rank(SELF_ADJOINT).numpy(), 3)
    normalized, norm = tf.linalg.normalize(np.array([[3.0, -4.0], [1.0, 0.5]]), ord=1)
    np.testing.assert_allclose(normalized.numpy(), [[0.35294117647058826, -0.47058823529411764],
                                                    [0.11764705882352941, 0.058823529411764705]])
    np.testing.assert_allclose(norm.numpy(), [[8.5]])
    np.testing.assert_allclose(tf.linalg.l2_normalize([3.0, 4.0]).numpy(), [0.6, 0.8])
    upper = tf.linalg.set_diag(np.zeros((2, 3)), [1.0, 2.0], k=1)
    np.testing.assert_array_equal(upper.numpy(), [[0, 1, 0], [0, 0, 2]])
    with pytest.raises(NotImplementedError, match="band"):
        tf.linalg.set_diag(np.zeros((3, 3)), np.zeros((2, 3)), k=(0, 1))
    with pytest.raises(errors.InvalidArgumentError):
        tf.linalg.set_diag(np.zeros((3, 3)), [1.0, 2.0])


def test_math_extras_errors_and_gradients():
    with pytest.raises(errors.InvalidArgumentError, match="not a permutation"):
        tf.math.invert_permutation([0, 0, 1])
    assert tf.math.is_non_decreasing([]).numpy()
    assert np.isnan(tf.math.polygamma([1.5, -1.0], [2.0, 2.0]).numpy()).all()
    x = tf.Variable([0.5, 2.0], dtype=tf.float64)
    a = tf.Variable([1.5, 2.0], dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        lower = tf.math.igamma(a, x)
        after = tf.math.nextafter(x, a)
    np.testing.assert_allclose(tape.gradient(lower, x).numpy(), [0.48394145, 0.27067057],
                               rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(lower, a).numpy(),
                               [-0.2940986905382093, -0.29400469074623103], rtol=1e-7)
    assert tape.gradient(after, x) is None


def test_approx_max_k_is_tfs_exact_top_k():
    x = np.array([[1.0, 5.0, 3.0, 2.0], [0.5, -1.0, 4.0, 4.0]], np.float32)
    values, indices = tf.math.approx_max_k(x, 2)
    np.testing.assert_array_equal(values.numpy(), [[5.0, 3.0], [4.0, 4.0]])
    np.testing.assert_array_equal(indices.numpy(), [[1, 2], [2, 3]])
    values, indices = tf.math.approx_max_k(x, 1, reduction_dimension=0)
    np.testing.assert_array_equal(values.numpy(), [[1.0, 5.0, 4.0, 4.0]])
    np.testing.assert_array_equal(indices.numpy(), [[0, 0, 1, 1]])
    values, indices = tf.math.approx_min_k(x, 3)
    np.testing.assert_array_equal(indices.numpy(), [[0, 3, 2], [1, 0, 2]])

