"""tf.feature_column: dense tensors from columns, input_layer / linear_model, errors."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.util.fingerprint import fingerprint64

fc = tf.feature_column

FEATURES = {
    "age": np.array([1.0, 25.0, 70.0], np.float32),
    "color": np.array([b"red", b"blue", b""]),
    "id": np.array([0, 2, -1]),
    "word": np.array([b"Hello", b"TensorFlow", b"2.x"]),
    "pair": np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32),
}


def _dense(columns, features=FEATURES):
    with tf.Graph().as_default():
        out = fc.input_layer(features, columns)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(out)


@pytest.mark.parametrize("column, expected", [
    (fc.numeric_column("age"), [[1.0], [25.0], [70.0]]),
    (fc.numeric_column("age", normalizer_fn=lambda x: x / 10), [[0.1], [2.5], [7.0]]),
    (fc.numeric_column("pair", shape=2), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    (fc.bucketized_column(fc.numeric_column("age"), [18, 25, 65]),
     [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]),          # a boundary goes up
    (fc.bucketized_column(fc.numeric_column("pair", shape=2), [3]),
     [[1, 0, 1, 0], [0, 1, 0, 1], [0, 1, 0, 1]]),
    (fc.indicator_column(fc.categorical_column_with_identity("id", 3)),
     [[1, 0, 0], [0, 0, 1], [0, 0, 0]]),                   # -1 is missing
    (fc.indicator_column(fc.categorical_column_with_identity("id", 2, default_value=1)),
     [[1, 0], [0, 1], [0, 0]]),                            # 2 is out of range
    (fc.indicator_column(fc.categorical_column_with_vocabulary_list("color", ["blue", "red"])),
     [[0, 1], [1, 0], [0, 0]]),                            # "" is missing
    (fc.indicator_column(fc.categorical_column_with_vocabulary_list(
        "color", ["red"], default_value=0)), [[1], [1], [0]]),
    (fc.indicator_column(fc.categorical_column_with_vocabulary_list("id", [2, 0])),
     [[0, 1], [1, 0], [0, 0]]),
    # TF's documented tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3): 0, 2, 2
    (fc.indicator_column(fc.categorical_column_with_hash_bucket("word", 3)),
     [[1, 0, 0], [0, 0, 1], [0, 0, 1]]),
])
def test_dense_tensors(column, expected):
    np.testing.assert_allclose(_dense([column]), np.array(expected, np.float32))


def test_vocabulary_out_of_vocabulary_buckets_hash_after_the_vocabulary():
    column = fc.categorical_column_with_vocabulary_list("color", ["red"], num_oov_buckets=3)
    expected_blue = 1 + fingerprint64(b"blue") % 3
    dense = _dense([fc.indicator_column(column)])
    assert dense[0].tolist() == [1, 0, 0, 0]
    assert dense[1].argmax() == expected_blue and dense[1].sum() == 1
    assert dense[2].sum() == 0


def test_integer_hash_bucket_hashes_the_decimal_text():
    column = fc.categorical_column_with_hash_bucket("id", 5, dtype=tf.int64)
    dense = _dense([fc.indicator_column(column)])
    assert dense[0].argmax() == fingerprint64(b"0") % 5
    assert dense[1].argmax() == fingerprint64(b"2") % 5
    assert dense[2].sum() == 0


def test_fingerprint64_known_values():
    assert [fingerprint64(s) % 3 for s in (b"Hello", b"TensorFlow", b"2.x")] == [0, 2, 2]
    assert fingerprint64(b"") == 0x9ae16a3b2f90404f


def test_input_layer_sorts_columns_by_name_and_concatenates():
    columns = [fc.indicator_column(fc.categorical_column_with_identity("id", 3)),
               fc.numeric_column("age")]
    np.testing.assert_allclose(_dense(columns), [[1, 1, 0, 0], [25, 0, 0, 1], [70, 0, 0, 0]])


@pytest.mark.parametrize("combiner, expected", [
    ("sum", [[1 + 3, 2 + 4], [0, 0]]),
    ("mean", [[2, 3], [0, 0]]),
    ("sqrtn", [[4 / np.sqrt(2), 6 / np.sqrt(2)], [0, 0]]),
])
def test_embedding_column_combiners(combiner, expected):
    table = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    column = fc.embedding_column(fc.categorical_column_with_identity("ids", 3), 2,
                                 combiner=combiner,
                                 initializer=tf.constant_initializer(table))
    features = {"ids": np.array([[0, 1], [-1, -1]])}
    with tf.Graph().as_default():
        out = fc.input_layer(features, [column])
        assert [v.name for v in tf.global_variables()] == \
            ["input_layer/ids_embedding/embedding_weights:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(out), expected, rtol=1e-6)


def test_embedding_gradients_reach_the_table():
    column = fc.embedding_column(fc.categorical_column_with_identity("ids", 3), 2,
                                 combiner="sum")
    with tf.Graph().as_default():
        out = fc.input_layer({"ids": np.array([0, 0, 2])}, [column])
        (table,) = tf.global_variables()
        (grad,) = tf.gradients(tf.reduce_sum(out), [table])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(tf.convert_to_tensor(grad)),
                                       [[2, 2], [0, 0], [1, 1]])


def test_linear_model_matches_numpy():
    columns = [fc.numeric_column("pair", shape=2),
               fc.categorical_column_with_identity("id", 3)]
    with tf.Graph().as_default():
        out = fc.linear_model(FEATURES, columns, units=2)
        names = sorted(v.op.name for v in tf.global_variables())
        assert names == ["linear_model/bias_weights", "linear_model/id/weights",
                         "linear_model/pair/weights"]
        variables = {v.op.name: v for v in tf.global_variables()}
        pair_w = np.array([[1.0, -1.0], [0.5, 2.0]], np.float32)
        id_w = np.array([[10, 20], [30, 40], [50, 60]], np.float32)
        bias = np.array([0.25, -0.5], np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert np.all(sess.run(out) == 0)            # every weight starts at zero
            variables["linear_model/pair/weights"].load(pair_w, sess)
            variables["linear_model/id/weights"].load(id_w, sess)
            variables["linear_model/bias_weights"].load(bias, sess)
            expected = FEATURES["pair"] @ pair_w + bias + np.array([id_w[0], id_w[2], [0, 0]])
            np.testing.assert_allclose(sess.run(out), expected, rtol=1e-6)


def test_indicator_column_in_eager_mode():
    column = fc.indicator_column(fc.categorical_column_with_vocabulary_list("color",
                                                                          ["blue", "red"]))
    out = fc.input_layer({"color": np.array([b"red", b"blue"])}, [column])
    assert out.numpy().tolist() == [[0, 1], [1, 0]]


def test_identity_out_of_range_without_default_fails_when_run():
    column = fc.indicator_column(fc.categorical_column_with_identity("id", 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be in \\[0, 2\\)"):
        _dense([column])


@pytest.mark.parametrize("make, message", [
    (lambda: fc.numeric_column(1), "key must be a string"),
    (lambda: fc.numeric_column("a", shape=(0,)), "shape dimensions must be greater than 0"),
    (lambda: fc.numeric_column("a", dtype=tf.string), "dtype must be convertible to float"),
    (lambda: fc.bucketized_column(fc.categorical_column_with_identity("a", 2), [1]),
     "source_column must be a column generated with numeric_column"),
    (lambda: fc.bucketized_column(fc.numeric_column("a"), [2, 1]),
     "boundaries must be a sorted list"),
    (lambda: fc.categorical_column_with_identity("a", 0), "num_buckets 0 < 1"),
    (lambda: fc.categorical_column_with_vocabulary_list("a", ["x", "x"]), "Duplicate keys"),
    (lambda: fc.categorical_column_with_vocabulary_list("a", ["x"], default_value=0,
                                                        num_oov_buckets=1),
     "Can't specify both"),
    (lambda: fc.categorical_column_with_hash_bucket("a", 0), "hash_bucket_size must be at"),
    (lambda: fc.embedding_column(fc.categorical_column_with_identity("a", 2), 0),
     "Invalid dimension"),
    (lambda: fc.indicator_column(fc.numeric_column("a")), "must be a CategoricalColumn"),
    (lambda: fc.input_layer(FEATURES, [fc.categorical_column_with_identity("id", 3)]),
     "must be a _DenseColumn"),
    (lambda: fc.input_layer(FEATURES, [fc.numeric_column("missing")]),
     "feature is not found in features"),
])
def test_bad_columns(make, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            make()
