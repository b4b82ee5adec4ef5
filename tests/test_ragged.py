"""tf.RaggedTensor and the tf.ragged ops, against the results TF's documentation gives."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

v1 = tf.compat.v1

DOC = [[3, 1, 4, 1], [], [5, 9, 2], [6], []]   # the example of TF's RaggedTensor docs
DOC_VALUES = [3, 1, 4, 1, 5, 9, 2, 6]


def _doc():
    return tf.RaggedTensor.from_row_splits(DOC_VALUES, [0, 4, 4, 7, 8, 8])


# ---------------------------------------------------------------- construction


@pytest.mark.parametrize("make", [
    lambda: tf.RaggedTensor.from_row_splits(DOC_VALUES, [0, 4, 4, 7, 8, 8]),
    lambda: tf.RaggedTensor.from_row_lengths(DOC_VALUES, [4, 0, 3, 1, 0]),
    lambda: tf.RaggedTensor.from_row_starts(DOC_VALUES, [0, 4, 4, 7, 8]),
    lambda: tf.RaggedTensor.from_row_limits(DOC_VALUES, [4, 4, 7, 8, 8]),
    lambda: tf.RaggedTensor.from_value_rowids(DOC_VALUES, [0, 0, 0, 0, 2, 2, 2, 3], nrows=5),
    lambda: tf.ragged.constant(DOC),
], ids=["row_splits", "row_lengths", "row_starts", "row_limits", "value_rowids", "constant"])
def test_factories_give_tf_docs_example(make):
    rt = make()
    assert rt.to_list() == DOC
    assert repr(rt) == "<tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9, 2], [6], []]>"
    assert rt.row_splits.numpy().tolist() == [0, 4, 4, 7, 8, 8]
    assert rt.row_splits.dtype == tf.int64
    assert rt.values.numpy().tolist() == DOC_VALUES and rt.dtype == tf.int32
    assert rt.shape.as_list() == [5, None] and rt.ragged_rank == 1


def test_row_partition_accessors():
    rt = _doc()
    assert rt.row_lengths().numpy().tolist() == [4, 0, 3, 1, 0]
    assert rt.row_starts().numpy().tolist() == [0, 4, 4, 7, 8]
    assert rt.row_limits().numpy().tolist() == [4, 4, 7, 8, 8]
    assert rt.value_rowids().numpy().tolist() == [0, 0, 0, 0, 2, 2, 2, 3]
    nrows = rt.nrows()
    assert int(nrows) == 5 and nrows.dtype == tf.int64
    assert rt.nrows(out_type=tf.int32).dtype == tf.int32
    assert rt.bounding_shape().numpy().tolist() == [5, 4]


def test_nested_row_splits_and_flat_values():
    rt = tf.RaggedTensor.from_nested_row_splits(
        flat_values=[3, 1, 4, 1, 5, 9, 2, 6], nested_row_splits=([0, 3, 3, 5], [0, 4, 4, 7, 8, 8]))
    assert rt.to_list() == [[[3, 1, 4, 1], [], [5, 9, 2]], [], [[6], []]]
    assert rt.ragged_rank == 2 and rt.shape.as_list() == [3, None, None]
    assert [s.numpy().tolist() for s in rt.nested_row_splits] == [[0, 3, 3, 5],
                                                                   [0, 4, 4, 7, 8, 8]]
    assert rt.flat_values.numpy().tolist() == DOC_VALUES
    assert isinstance(rt.values, tf.RaggedTensor)
    lengths = tf.RaggedTensor.from_nested_row_lengths(
        flat_values=[3, 1, 4, 1, 5, 9, 2, 6], nested_row_lengths=([3, 0, 2], [4, 0, 3, 1, 0]))
    assert lengths.to_list() == rt.to_list()
    rowids = tf.RaggedTensor.from_nested_value_rowids(
        DOC_VALUES, ([0, 0, 0, 2, 2], [0, 0, 0, 0, 2, 2, 2, 3]), nested_nrows=[3, 5])
    assert rowids.to_list() == rt.to_list()
    assert [x.numpy().tolist() for x in rt.nested_row_lengths()] == [[3, 0, 2], [4, 0, 3, 1, 0]]


def test_row_splits_dtype_int32():
    rt = tf.RaggedTensor.from_row_splits(DOC_VALUES, np.array([0, 4, 4, 7, 8, 8], np.int32))
    assert rt.row_splits.dtype == tf.int32 and rt.nrows().dtype == tf.int32
    rt32 = tf.ragged.constant(DOC, row_splits_dtype=tf.int32)
    assert rt32.row_splits.dtype == tf.int32 and rt32.to_list() == DOC
    assert rt32.with_row_splits_dtype(tf.int64).row_splits.dtype == tf.int64
    with pytest.raises(ValueError, match="dtype mismatch"):
        tf.RaggedTensor.from_row_splits(rt32, [0, 1, 5])
    with pytest.raises(ValueError, match="int32 or int64"):
        tf.RaggedTensor.from_row_splits([1, 2], tf.constant([0.0, 2.0]))


@pytest.mark.parametrize("make, message", [
    (lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 3]), "from_row_splits.*:zero"),
    (lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1, 3]),
     "from_row_splits.*:monotonic"),
    (lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2]), "_from_row_partition"),
    (lambda: tf.RaggedTensor.from_row_lengths([1, 2, 3], [2, -1, 2]), "from_row_lengths"),
    (lambda: tf.RaggedTensor.from_row_lengths([1, 2, 3], [2, 2]), "_from_row_partition"),
    (lambda: tf.RaggedTensor.from_row_starts([1, 2, 3], [1, 2]), "from_row_starts"),
    (lambda: tf.RaggedTensor.from_row_limits([1, 2, 3], [2, 1, 3]), "from_row_limits"),
    (lambda: tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 2, 1]), "from_value_rowids"),
    (lambda: tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 1, 1], nrows=1),
     "from_value_rowids"),
])
def test_validate_raises_invalid_argument(make, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        make()


def test_validate_false_skips_checks_and_bad_arguments_raise():
    rt = tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 3, 3], validate=False)
    assert rt.to_list() == [[1, 2], [3], []]
    with pytest.raises(TypeError, match="validate must have type bool"):
        tf.RaggedTensor.from_row_splits([1, 2], [0, 2], validate=1)
    with pytest.raises(ValueError, match="may not be empty"):
        tf.RaggedTensor.from_row_splits([1, 2], [])
    with pytest.raises(ValueError, match="private"):
        tf.RaggedTensor(tf.constant([1]), tf.constant([0, 1], tf.int64))


# ---------------------------------------------------------------- tf.ragged.constant


def test_ragged_constant_rules():
    assert tf.ragged.constant([[1, 2], [3]]).dtype == tf.int32
    assert tf.ragged.constant([[1.0], []]).dtype == tf.float32
    assert tf.ragged.constant([[], []]).dtype == tf.float32   # TF: empty lists are float32
    assert tf.ragged.constant([[1, 2], [3]], dtype=tf.float64).dtype == tf.float64
    strings = tf.ragged.constant([["a", "b"], ["c"]])
    assert strings.dtype == tf.string and strings.to_list() == [[b"a", b"b"], [b"c"]]
    dense = tf.ragged.constant([1, 2, 3])      # depth 1: a plain Tensor, as in TF
    assert not isinstance(dense, tf.RaggedTensor) and dense.numpy().tolist() == [1, 2, 3]
    nested = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    assert nested.ragged_rank == 2 and nested.shape.as_list() == [2, None, None]
    # TF's docstring: ragged_rank=1 with uniform inner rows gives inner_shape (2,)
    inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert inner.ragged_rank == 1 and inner.shape.as_list() == [2, None, 2]
    assert inner.values.shape.as_list() == [3, 2]
    assert inner.to_list() == [[[1, 2], [3, 4]], [[5, 6]]]
    shaped = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], inner_shape=(2,))
    assert shaped.values.shape.as_list() == [3, 2] and shaped.ragged_rank == 1
    with pytest.raises(ValueError, match="same nesting depth"):
        tf.ragged.constant([[1, [2]]])
    with pytest.raises(ValueError, match="empty list nesting"):
        tf.ragged.constant([[1], [[]]])
    with pytest.raises(ValueError, match="inconsistent shape"):
        tf.ragged.constant([[[1, 2], [3]]], ragged_rank=1)


# ---------------------------------------------------------------- conversions


def test_repr_and_str_like_tf():
    rt = tf.ragged.constant([[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]])
    assert str(rt) == "<tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>"
    assert str(rt.shape) == "(4, None)"
    words = tf.ragged.constant([[b"Gray", b"wolf"], [b"Quick", b"brown", b"fox"]])
    assert repr(words) == "<tf.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox']]>"
    assert repr(tf.ragged.constant([[1.5, 2.0], []])) == "<tf.RaggedTensor [[1.5, 2.0], []]>"


def test_to_tensor_with_default_value_and_shape():
    rt = _doc()
    assert rt.to_tensor().numpy().tolist() == [[3, 1, 4, 1], [0, 0, 0, 0], [5, 9, 2, 0],
                                               [6, 0, 0, 0], [0, 0, 0, 0]]
    assert rt.to_tensor(default_value=9, shape=[3, 2]).numpy().tolist() == [
        [3, 1], [9, 9], [5, 9]]
    assert rt.to_tensor(shape=[None, 5]).shape.as_list() == [5, 5]
    nested = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    assert nested.to_tensor(-1).numpy().tolist() == [[[1, 2], [3, -1]], [[4, -1], [-1, -1]]]
    inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert inner.to_tensor().numpy().tolist() == [[[1, 2], [3, 4]], [[5, 6], [0, 0]]]
    strings = tf.ragged.constant([["a"], ["b", "c"]]).to_tensor()
    assert strings.numpy().tolist() == [[b"a", b""], [b"b", b"c"]]


def test_numpy_like_tf():
    rows = _doc().numpy()
    assert rows.dtype == object and [r.tolist() for r in rows] == DOC
    uniform = tf.ragged.constant([[1, 2], [3, 4]]).numpy()
    assert uniform.dtype == np.int32 and uniform.tolist() == [[1, 2], [3, 4]]
