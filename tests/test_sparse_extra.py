"""tf.sparse additions give real TF's values eagerly and in TF1 graphs
(tests/fixtures/math_extra/make_sparse_values.py printed the constants)."""
import numpy as np
import pytest

import tfcompat as tf

DATA = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
TF_ADD = [[[0, 0], [1, 0], [1, 1]], [1.0, 5.0, 3.0], [3, 4]]
TF_ADD_DENSE = [[2.0, 1.0, -1.0, 1.0], [1.0, 4.0, 1.0, 1.0], [1.0, 1.0, 1.0, 5.0]]
TF_CONCAT1 = [[[0, 0], [0, 2], [0, 6], [1, 1], [1, 4], [2, 3], [2, 7]],
              [1.0, -2.0, 2.5, 3.0, 5.0, 4.0, -4.0], [3, 8]]
TF_CONCAT0 = [[[0, 0], [0, 2], [1, 1], [2, 3], [3, 2], [4, 0], [5, 3]],
              [1.0, -2.0, 3.0, 4.0, 2.5, 5.0, -4.0], [6, 4]]
TF_RESHAPE = [[[0, 0], [0, 2], [0, 5], [1, 5]], [1.0, -2.0, 3.0, 4.0], [2, 6]]
TF_RETAIN = [[[0, 0], [1, 1]], [1.0, 3.0], [3, 4]]
TF_EXPAND_DIMS = [[[0, 0, 0], [0, 2, 0], [1, 1, 0], [2, 3, 0]], [1.0, -2.0, 3.0, 4.0], [3, 4, 1]]
TF_EYE = [[[0, 0], [1, 1]], [1.0, 1.0], [2, 3]]
TF_REDUCE_MAX = [-1.0, 3.0, 0.0]
TF_REDUCE_MAX_ALL = 4.0
TF_TRANSPOSE = [[[0, 0], [1, 1], [2, 0], [3, 2]], [1.0, 3.0, -2.0, 4.0], [4, 3]]
TF_MAXIMUM = [[[0, 0], [0, 2], [1, 0], [1, 1], [2, 3]], [1.0, 2.5, 5.0, 3.0, 4.0], [3, 4]]
TF_MINIMUM = [[[0, 0], [0, 2], [1, 0], [1, 1], [2, 3]], [0.0, -2.0, 0.0, 0.0, -4.0], [3, 4]]
TF_FILL_EMPTY_ROWS = [[[[0, 1], [1, 0], [2, 0], [3, 0]], [1, -1, 2, -1], [4, 3]],
                      [False, True, False, True]]
TF_SLICE = [[[0, 1], [1, 0]], [-2.0, 3.0], [2, 3]]
TF_SOFTMAX = [[[0, 0], [0, 2], [1, 1], [2, 3]],
              [0.9525741338729858, 0.04742587357759476, 1.0, 1.0], [3, 4]]
TF_SEGMENT_SUM = [[6.0, 8.0], [8.0, 10.0]]
TF_SEGMENT_MEAN = [[3.0, 4.0], [4.0, 5.0]]
TF_SEGMENT_SQRT_N = [[4.242640495300293, 5.656854152679443],
                     [5.656854152679443, 7.071067810058594]]
TF_SEGMENT_SUM_NUM = [[1.0, 2.0], [0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]
TF_TO_INDICATOR = [[False, True, False, True], [False, False, True, False]]


def _a():
    return tf.sparse.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 3]], [1.0, -2.0, 3.0, 4.0],
                                  [3, 4])


def _b():
    return tf.sparse.SparseTensor([[0, 2], [1, 0], [2, 3]], [2.5, 5.0, -4.0], [3, 4])


CASES = {
    "ADD": lambda: tf.sparse.add(_a(), _b(), threshold=0.6),
    "ADD_DENSE": lambda: tf.sparse.add(_a(), tf.ones([3, 4])),
    "CONCAT1": lambda: tf.sparse.concat(1, [_a(), _b()]),
    "CONCAT0": lambda: tf.sparse.concat(0, [_a(), _b()]),
    "RESHAPE": lambda: tf.sparse.reshape(_a(), [2, -1]),
    "RETAIN": lambda: tf.sparse.retain(_a(), [True, False, True, False]),
    "EXPAND_DIMS": lambda: tf.sparse.expand_dims(_a(), -1),
    "EYE": lambda: tf.sparse.eye(2, 3),
    "REDUCE_MAX": lambda: tf.sparse.reduce_max(tf.sparse.SparseTensor(
        [[0, 0], [0, 2], [1, 1]], [-1.0, -2.0, 3.0], [3, 4]), axis=1),
    "REDUCE_MAX_ALL": lambda: tf.sparse.reduce_max(_a()),
    "TRANSPOSE": lambda: tf.sparse.transpose(_a()),
    "MAXIMUM": lambda: tf.sparse.maximum(_a(), _b()),
    "MINIMUM": lambda: tf.sparse.minimum(_a(), _b()),
    "FILL_EMPTY_ROWS": lambda: tf.sparse.fill_empty_rows(
        tf.sparse.SparseTensor([[0, 1], [2, 0]], [1, 2], [4, 3]), -1),
    "SLICE": lambda: tf.sparse.slice(_a(), [0, 1], [2, 3]),
    "SOFTMAX": lambda: tf.sparse.softmax(_a()),
    "SEGMENT_SUM": lambda: tf.sparse.segment_sum(DATA, [0, 2, 1, 2], [0, 0, 1, 1]),
    "SEGMENT_MEAN": lambda: tf.sparse.segment_mean(DATA, [0, 2, 1, 2], [0, 0, 1, 1]),
    "SEGMENT_SQRT_N": lambda: tf.sparse.segment_sqrt_n(DATA, [0, 2, 1, 2], [0, 0, 1, 1]),
    "SEGMENT_SUM_NUM": lambda: tf.sparse.segment_sum(DATA, [0, 1], [0, 2], num_segments=4),
    "TO_INDICATOR": lambda: tf.sparse.to_indicator(
        tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 3, 2], [2, 2]), 4),
}


def _fetchable(result):
    """A SparseTensor as its three components; tuples item by item."""
    if isinstance(result, tuple):
        return [_fetchable(r) for r in result]
    if isinstance(result, tf.sparse.SparseTensor):
        return [result.indices, result.values, result.dense_shape]
    return result


def _assert_same(got, want):
    if isinstance(want, list) and isinstance(got, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)
    else:
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                                   rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf_eagerly_and_in_a_graph(name):
    expected = globals()["TF_" + name]
    eager = tf.nest.map_structure(lambda t: t.numpy(), _fetchable(CASES[name]()))
    _assert_same(eager, expected)
    with tf.compat.v1.Graph().as_default():
        nodes = _fetchable(CASES[name]())
        with tf.compat.v1.Session() as sess:
            _assert_same(sess.run(nodes), expected)


def test_tf1_names_and_argument_checks():
    added = tf.compat.v1.sparse_add(_a(), _b(), thresh=0.6)
    np.testing.assert_array_equal(added.values.numpy(), TF_ADD[1])
    joined = tf.compat.v1.sparse_concat(None, [_a(), _b()], concat_dim=1)
    np.testing.assert_array_equal(joined.dense_shape.numpy(), [3, 8])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.sparse.reshape(_a(), [5, -1])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.sparse.maximum(_a(), tf.sparse.eye(3))


def test_map_values_reset_shape_and_split_match_tf():
    squared = tf.sparse.map_values(tf.math.multiply, _a(), _a())
    np.testing.assert_array_equal(squared.values.numpy(), [1.0, 4.0, 9.0, 16.0])
    shifted = tf.sparse.map_values(tf.add, _a(), 10.0)
    np.testing.assert_array_equal(shifted.values.numpy(), [11.0, 8.0, 13.0, 14.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="identical indices"):
        tf.sparse.map_values(tf.add, _a(), _b())
    np.testing.assert_array_equal(tf.sparse.reset_shape(_a()).dense_shape.numpy(), [3, 4])
    np.testing.assert_array_equal(tf.sparse.reset_shape(_a(), [5, 6]).dense_shape.numpy(),
                                  [5, 6])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.sparse.reset_shape(_a(), [2, 6])
    halves = tf.sparse.split(sp_input=_a(), num_split=2, axis=1)
    assert [_fetchable_numpy(h) for h in halves] == [
        [[[0, 0], [1, 1]], [1.0, 3.0], [3, 2]], [[[0, 0], [2, 1]], [-2.0, 4.0], [3, 2]]]
    rows = tf.compat.v1.sparse_split(sp_input=_a(), num_split=3, split_dim=0)
    assert [_fetchable_numpy(r) for r in rows] == [
        [[[0, 0], [0, 2]], [1.0, -2.0], [1, 4]], [[[0, 1]], [3.0], [1, 4]],
        [[[0, 3]], [4.0], [1, 4]]]


def _fetchable_numpy(sparse):
    return [t.numpy().tolist() for t in _fetchable(sparse)]

