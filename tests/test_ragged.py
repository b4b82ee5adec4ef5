"""tf.RaggedTensor and the tf.ragged ops, against the results TF's documentation gives."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

v1 = tf.compat.v1
v2 = tf.compat.v2

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


# ---------------------------------------------------------------- __getitem__


def test_getitem_outer_ints_and_slices():
    rt = _doc()
    assert rt[0].numpy().tolist() == [3, 1, 4, 1] and rt[1].numpy().tolist() == []
    assert rt[-3].numpy().tolist() == [5, 9, 2] and int(rt[2, 1]) == 9
    assert rt[1:3].to_list() == [[], [5, 9, 2]]
    assert rt[::2].to_list() == [[3, 1, 4, 1], [5, 9, 2], []]
    assert rt[::-1].to_list() == DOC[::-1]
    with pytest.raises(errors.InvalidArgumentError, match="out of bounds"):
        rt[5]
    with pytest.raises(ValueError, match="Too many indices"):
        rt[0, 0, 0]


def test_getitem_slices_each_row_and_refuses_ints_in_ragged_dims():
    rt = _doc()
    assert rt[:, 1:3].to_list() == [[1, 4], [], [9, 2], [], []]
    assert rt[:, -1:].to_list() == [[1], [], [2], [6], []]
    assert rt[1:, :1].to_list() == [[], [5], [6], []]
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension"):
        rt[:, 1]
    nested = tf.ragged.constant([[[1, 2], [3]], [[4]], []])
    assert nested[0].to_list() == [[1, 2], [3]] and nested[0, 1].numpy().tolist() == [3]
    assert nested[:, :, :1].to_list() == [[[1], [3]], [[4]], []]
    inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert inner[:, :, 1].to_list() == [[2, 4], [6]]
    assert int(inner[0, 1, 0]) == 3
    uniform = tf.RaggedTensor.from_tensor([[1, 2], [3, 4]])
    assert uniform[:, 1].numpy().tolist() == [2, 4]      # uniform rows take ints, as in TF
    words = tf.ragged.constant([["a", "b"], ["c"]])
    assert words[1].numpy().tolist() == [b"c"] and words[:, 1:].to_list() == [[b"b"], []]


# ---------------------------------------------------------------- from_tensor / sparse


def test_from_tensor_like_tf_docs():
    dense = [[1, 0, 0], [2, 3, 0], [4, 5, 6]]
    full = tf.RaggedTensor.from_tensor(dense)
    assert full.to_list() == dense and full.shape.as_list() == [3, 3]  # uniform row length
    assert tf.RaggedTensor.from_tensor(dense, lengths=[1, 0, 3]).to_list() == [[1], [], [4, 5, 6]]
    assert tf.RaggedTensor.from_tensor(dense, padding=0).to_list() == [[1], [2, 3], [4, 5, 6]]
    padded = tf.RaggedTensor.from_tensor([[[1, 0], [0, 0]], [[2, 2], [0, 1]]], padding=[0, 0])
    assert padded.to_list() == [[[1, 0]], [[2, 2], [0, 1]]]
    deep = tf.RaggedTensor.from_tensor(np.arange(12).reshape(2, 3, 2), ragged_rank=2)
    assert deep.ragged_rank == 2 and deep.shape.as_list() == [2, 3, 2]   # uniform, as TF
    assert deep.to_list() == np.arange(12).reshape(2, 3, 2).tolist()
    with pytest.raises(ValueError, match="not both"):
        tf.RaggedTensor.from_tensor(dense, lengths=[1, 1, 1], padding=0)


def test_sparse_round_trip():
    st = tf.SparseTensor(indices=[[0, 0], [0, 1], [0, 2], [1, 0], [3, 0]], values=[1, 2, 3, 4, 5],
                         dense_shape=[4, 3])
    rt = tf.RaggedTensor.from_sparse(st)
    assert rt.to_list() == [[1, 2, 3], [4], [], [5]]
    back = rt.to_sparse()
    assert back.indices.numpy().tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [3, 0]]
    assert back.dense_shape.numpy().tolist() == [4, 3]
    assert back.values.numpy().tolist() == [1, 2, 3, 4, 5]
    gap = tf.SparseTensor(indices=[[0, 1]], values=[1], dense_shape=[1, 3])
    with pytest.raises(errors.InvalidArgumentError, match="not right-ragged"):
        tf.RaggedTensor.from_sparse(gap)


# ---------------------------------------------------------------- math and operators


REDUCE = [[3, 1, 4], [1, 5], [9], [2, 6]]   # TF's ragged reduce docstrings


@pytest.mark.parametrize("reduce, axis0, axis1", [
    (tf.reduce_sum, [15, 12, 4], [8, 6, 9, 8]),
    (tf.reduce_prod, [54, 30, 4], [12, 5, 9, 12]),
    (tf.reduce_min, [1, 1, 4], [1, 1, 9, 2]),
    (tf.reduce_max, [9, 6, 4], [4, 5, 9, 6]),
    (tf.math.reduce_mean, [3.75, 4.0, 4.0], [8 / 3, 3.0, 9.0, 4.0]),
])
def test_reductions_dispatch_like_tf_docs(reduce, axis0, axis1):
    rt = tf.ragged.constant(REDUCE)
    np.testing.assert_allclose(reduce(rt, axis=0).numpy(), axis0)
    np.testing.assert_allclose(reduce(rt, axis=1).numpy(), axis1)
    np.testing.assert_allclose(reduce(rt, axis=-1).numpy(), axis1)


def test_reduction_details():
    rt = tf.ragged.constant(REDUCE)
    assert tf.reduce_mean(rt, axis=1).dtype == tf.float64      # int sum / count, as TF
    assert int(tf.reduce_sum(rt)) == 31
    assert tf.reduce_sum(rt, axis=1, keepdims=True).shape.as_list() == [4, 1]
    empty_rows = tf.ragged.constant([[1.0, 2.0], []])
    assert tf.reduce_max(empty_rows, axis=1).numpy().tolist() == [2.0, np.finfo(np.float32).min]
    assert np.isnan(tf.reduce_mean(empty_rows, axis=1).numpy()[1])
    flags = tf.ragged.constant([[True, True], [True, True, False, True], [False, True]])
    assert tf.reduce_all(flags, axis=0).numpy().tolist() == [False, True, False, True]
    assert tf.reduce_any(flags, axis=1).numpy().tolist() == [True, True, True]
    nested = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    assert tf.reduce_sum(nested, axis=2).to_list() == [[3, 3], [4]]
    with pytest.raises(NotImplementedError):
        tf.reduce_sum(nested, axis=1)


def test_operators_on_flat_values():
    rt = tf.ragged.constant([[1, 2], [3]])
    assert (rt + 1).to_list() == [[2, 3], [4]] and (1 + rt).to_list() == [[2, 3], [4]]
    assert (rt * rt).to_list() == [[1, 4], [9]] and (10 - rt).to_list() == [[9, 8], [7]]
    assert (rt / 2).to_list() == [[0.5, 1.0], [1.5]] and (rt / 2).dtype == tf.float64
    assert (-rt).to_list() == [[-1, -2], [-3]] and (rt > 1).to_list() == [[False, True], [True]]
    assert (tf.constant(2) * rt).to_list() == [[2, 4], [6]]
    with pytest.raises(errors.InvalidArgumentError, match="identical ragged splits"):
        rt + tf.ragged.constant([[1], [2, 3]])
    with pytest.raises(TypeError):
        rt * 2.5                                   # int32 tensor, float operand: TF raises
    inner = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)
    assert (inner * [10, 100]).to_list() == [[[10, 200]], [[30, 400], [50, 600]]]
    with pytest.raises(NotImplementedError):
        rt + tf.constant([[1], [2]])


def test_equality_follows_tf2_behaviour():
    from tfcompat import _api
    saved = _api.flavor()
    try:
        _api.set_behavior("v2")
        rt = tf.ragged.constant([[1, 2], [3]])
        assert (rt == 1).to_list() == [[True, False], [False]]
        assert (rt != rt).to_list() == [[False, False], [False]]
        assert (rt == tf.ragged.constant([[1], [3, 4]])) is False
        _api.set_behavior("v1")
        assert (rt == rt) is True and (rt == 1) is False
    finally:
        _api.set_behavior(saved)


def test_ragged_range_like_tf_docs():
    assert tf.ragged.range([3, 5, 2]).to_list() == [[0, 1, 2], [0, 1, 2, 3, 4], [0, 1]]
    assert tf.ragged.range([0, 5, 8], [3, 3, 12]).to_list() == [[0, 1, 2], [], [8, 9, 10, 11]]
    assert tf.ragged.range([0, 5, 8], [3, 3, 12], 2).to_list() == [[0, 2], [], [8, 10]]
    floats = tf.ragged.range([0.0, 1.5], 3.0, 0.5)
    assert floats.dtype == tf.float32 and floats.to_list() == [[0.0, 0.5, 1.0, 1.5, 2.0, 2.5],
                                                               [1.5, 2.0, 2.5]]
    assert tf.ragged.range(3, row_splits_dtype=tf.int32).row_splits.dtype == tf.int32
    with pytest.raises(errors.InvalidArgumentError, match="delta != 0"):
        tf.ragged.range([1, 2], 5, 0)


def test_segment_ids_and_row_splits():
    ids = tf.ragged.row_splits_to_segment_ids([0, 3, 3, 5, 6, 9])
    assert ids.numpy().tolist() == [0, 0, 0, 2, 2, 3, 4, 4, 4] and ids.dtype == tf.int64
    splits = tf.ragged.segment_ids_to_row_splits([0, 0, 0, 2, 2, 3, 4, 4, 4])
    assert splits.numpy().tolist() == [0, 3, 3, 5, 6, 9]
    padded = tf.ragged.segment_ids_to_row_splits([0, 1], num_segments=4, out_type=tf.int32)
    assert padded.numpy().tolist() == [0, 1, 2, 2, 2] and padded.dtype == tf.int32


def test_map_flat_values_like_tf_docs():
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5], [6]])
    assert tf.ragged.map_flat_values(tf.ones_like, rt).to_list() == [[1, 1, 1], [], [1, 1], [1]]
    assert tf.ragged.map_flat_values(tf.multiply, rt, rt).to_list() == [[1, 4, 9], [], [16, 25],
                                                                        [36]]
    assert tf.ragged.map_flat_values(tf.add, rt, 5).to_list() == [[6, 7, 8], [], [9, 10], [11]]
    assert int(tf.ragged.map_flat_values(tf.add, 1, 2)) == 3
    with pytest.raises(ValueError, match="outer-dimension size"):
        tf.ragged.map_flat_values(lambda values: values[:2], rt)
    with pytest.raises(ValueError, match="outer dimension"):
        tf.ragged.map_flat_values(tf.reduce_sum, rt)


# ---------------------------------------------------------------- strings


def test_strings_split_v2_like_tf_guide():
    words = v2.strings.split(tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"]))
    assert isinstance(words, tf.RaggedTensor)
    assert repr(words) == ("<tf.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox'], "
                           "[b'Lazy', b'dog']]>")
    scalar = v2.strings.split(tf.constant("Gray wolf"), sep=" ")
    assert not isinstance(scalar, tf.RaggedTensor)
    assert scalar.numpy().tolist() == [b"Gray", b"wolf"]
    numbers = tf.strings.to_number(v2.strings.split(tf.constant("1 10 100"), " "))
    assert numbers.numpy().tolist() == [1.0, 10.0, 100.0]
    assert v2.strings.split(["a,b,c", "d"], sep=",", maxsplit=1).to_list() == [[b"a", b"b,c"],
                                                                               [b"d"]]
    matrix = v2.strings.split([["a b", "c"], ["d e f", ""]])
    assert matrix.shape.as_list() == [2, 2, None]
    assert matrix.to_list() == [[[b"a", b"b"], [b"c"]], [[b"d", b"e", b"f"], []]]
    ragged = v2.strings.split(tf.ragged.constant([["a b"], []]))
    assert ragged.to_list() == [[[b"a", b"b"]], []]


def test_bytes_split_like_tf_docs():
    duck = tf.strings.bytes_split(tf.constant("Duck"))
    assert duck.numpy().tolist() == [b"D", b"u", b"c", b"k"]
    assert tf.strings.bytes_split(["hello", "world", ""]).to_list() == [
        [b"h", b"e", b"l", b"l", b"o"], [b"w", b"o", b"r", b"l", b"d"], []]


def test_tf1_split_with_ragged_result():
    tokens = v1.string_split(["a b", "c"], result_type="RaggedTensor")
    assert tokens.to_list() == [[b"a", b"b"], [b"c"]]
    tokens = v1.strings.split(["a b", "", "c d e"], result_type="RaggedTensor")
    assert tokens.to_list() == [[b"a", b"b"], [], [b"c", b"d", b"e"]]
    assert isinstance(v1.string_split(["a b"]), tf.SparseTensor)
    with pytest.raises(ValueError, match="result_type"):
        v1.string_split(["a"], result_type="Dense")


# ---------------------------------------------------------------- graph mode


def test_graph_mode_construction_to_tensor_and_validation():
    graph = tf.Graph()
    with graph.as_default():
        values = v1.placeholder(tf.int32, [None])
        splits = v1.placeholder(tf.int64, [None])
        rt = tf.RaggedTensor.from_row_splits(values, splits)
        assert rt.shape.as_list() == [None, None]
        assert repr(rt).startswith(  # TF's: the components' str()
            'tf.RaggedTensor(values=Tensor("Placeholder:0", shape=(None,), dtype=int32), ')
        fetches = [rt.to_tensor(default_value=-1), rt.row_lengths(), rt.value_rowids(),
                   (rt * 2).to_tensor(), tf.reduce_sum(rt, axis=1),
                   tf.ragged.constant([[1, 2], [3]]).to_tensor()]
        with pytest.raises(ValueError, match="only supported in eager mode"):
            rt.to_list()
        with v1.Session() as sess:
            feed = {values: [1, 2, 3], splits: [0, 2, 2, 3]}
            dense, lengths, rowids, doubled, sums, const = sess.run(fetches, feed)
            with pytest.raises(errors.InvalidArgumentError, match=":monotonic"):
                sess.run(fetches[0], {values: [1, 2, 3], splits: [0, 2, 1, 3]})
    assert dense.tolist() == [[1, 2], [-1, -1], [3, -1]]
    assert lengths.tolist() == [2, 0, 1] and rowids.tolist() == [0, 0, 2]
    assert doubled.tolist() == [[2, 4], [0, 0], [6, 0]] and sums.tolist() == [3, 0, 3]
    assert const.tolist() == [[1, 2], [3, 0]]


# ---------------------------------------------------------------- stack / concat


def test_ragged_stack_and_concat_like_tf_docs():
    t1 = tf.ragged.constant([[1, 2], [3, 4, 5]])
    t2 = tf.ragged.constant([[6], [7, 8, 9]])
    assert tf.ragged.stack([t1, t2], axis=0).to_list() == [[[1, 2], [3, 4, 5]], [[6], [7, 8, 9]]]
    assert tf.ragged.stack([t1, t2], axis=1).to_list() == [[[1, 2], [6]], [[3, 4, 5], [7, 8, 9]]]
    assert tf.concat([t1, t2], axis=0).to_list() == [[1, 2], [3, 4, 5], [6], [7, 8, 9]]
    assert tf.concat([t1, t2], axis=1).to_list() == [[1, 2, 6], [3, 4, 5, 7, 8, 9]]
    assert tf.stack([t1, t2]).shape.as_list() == [2, None, None]
    assert tf.ragged.stack([tf.constant([1, 2]), tf.constant([3])]).to_list() == [[1, 2], [3]]
    assert tf.concat([tf.constant([[1, 2]]), t1], axis=0).to_list() == [[1, 2], [1, 2],
                                                                        [3, 4, 5]]
    nested = tf.ragged.constant([[[1], [2, 3]], [[4]]])
    assert tf.concat([nested, nested], axis=2).to_list() == [[[1, 1], [2, 3, 2, 3]], [[4, 4]]]
    dense = tf.ragged.stack([tf.constant([[1, 2]]), tf.constant([[3, 4]])], axis=1)
    assert not isinstance(dense, tf.RaggedTensor) and dense.shape.as_list() == [1, 2, 2]
    with pytest.raises(errors.InvalidArgumentError, match="incompatible shapes"):
        tf.concat([t1, tf.ragged.constant([[1]])], axis=1)
    with pytest.raises(ValueError, match="incompatible dtypes"):
        tf.concat([t1, tf.ragged.constant([[1.0]])], axis=0)
    assert tf.concat([tf.constant([1]), tf.constant([2])], 0).numpy().tolist() == [1, 2]


def test_tf_shape_of_ragged_names_dynamic_ragged_shape():
    with pytest.raises(NotImplementedError, match="DynamicRaggedShape"):
        tf.shape(tf.ragged.constant([[1], []]))


def test_graph_mode_factories_reductions_and_joins():
    graph = tf.Graph()
    with graph.as_default():
        values = v1.placeholder(tf.int32, [None])
        splits = v1.placeholder(tf.int64, [None])
        rt = tf.RaggedTensor.from_row_splits(values, splits)
        fetches = [tf.RaggedTensor.from_value_rowids(values, [0, 0, 2]).to_tensor(),
                   tf.RaggedTensor.from_row_lengths(values, [2, 0, 1]).to_tensor(),
                   tf.reduce_mean(rt, axis=0), rt.to_sparse().indices, rt.bounding_shape(),
                   tf.concat([rt, rt], 1).to_tensor(), tf.ragged.range(values).to_tensor(),
                   tf.ragged.constant([[1, 2], [3]])[0]]
        with pytest.raises(NotImplementedError, match="number of rows is not known"):
            rt[0]
        with pytest.raises(NotImplementedError, match="graph"):
            tf.ragged.constant([[1, 2], [3]])[:, :1]
        with v1.Session() as sess:
            out = sess.run(fetches, {values: [1, 2, 3], splits: [0, 2, 2, 3]})
    assert [o.tolist() for o in out] == [
        [[1, 2], [0, 0], [3, 0]], [[1, 2], [0, 0], [3, 0]], [2.0, 2.0],
        [[0, 0], [0, 1], [2, 0]], [3, 2], [[1, 2, 1, 2], [0, 0, 0, 0], [3, 3, 0, 0]],
        [[0, 0, 0], [0, 1, 0], [0, 1, 2]], [1, 2]]


def test_ragged_boolean_mask_like_tf_docs():
    T, F = True, False
    masked = tf.ragged.boolean_mask(data=[[1, 2, 3], [4, 5, 6], [7, 8, 9]],
                                    mask=[[T, F, T], [F, F, F], [T, F, F]])
    assert masked.to_list() == [[1, 3], [], [7]]
    rt = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
    assert tf.ragged.boolean_mask(rt, tf.ragged.constant([[F, F, T], [F], [T, T]])).to_list() \
        == [[3], [], [5, 6]]
    assert tf.ragged.boolean_mask(rt, tf.ragged.constant([T, F, T])).to_list() == [[1, 2, 3],
                                                                                  [5, 6]]
    assert tf.ragged.boolean_mask([1, 2, 3], [T, F, T]).numpy().tolist() == [1, 3]
    assert v2.boolean_mask(rt, [T, F, T]).to_list() == [[1, 2, 3], [5, 6]]   # dispatched
    nested = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    assert tf.ragged.boolean_mask(nested, tf.ragged.constant([[[T, F], [T]], [[F]]])).to_list() \
        == [[[1], [3]], [[]]]
    with pytest.raises(errors.InvalidArgumentError, match="identical ragged splits"):
        tf.ragged.boolean_mask(rt, tf.ragged.constant([[F, T], [F], [T, T, T]]))
    with pytest.raises(ValueError, match="not bool"):
        tf.ragged.boolean_mask(rt, tf.ragged.constant([[1, 0, 1], [1], [0, 0]]))


def test_elementwise_ops_dispatch_to_the_flat_values():
    """TF's ragged dispatch: unary and binary elementwise ops keep the row splits."""
    rt = tf.ragged.constant([[1, 2], [3]])
    cast = tf.cast(rt, tf.int64)
    assert isinstance(cast, tf.RaggedTensor) and cast.dtype == tf.int64
    assert cast.to_list() == [[1, 2], [3]]
    assert tf.not_equal(rt, tf.ragged.constant([[1, 5], [3]])).to_list() == [[False, True],
                                                                              [False]]
    assert tf.math.add(rt, 10).to_list() == [[11, 12], [13]]
    np.testing.assert_allclose(tf.math.exp(tf.cast(rt, tf.float32)).flat_values.numpy(),
                               np.exp([1.0, 2.0, 3.0]), rtol=1e-6)
    starts = tf.concat([tf.fill([rt.nrows(), 1], True),
                        tf.not_equal(rt[:, 1:], rt[:, :-1])], axis=1)
    assert starts.to_list() == [[True, True], [True]]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.add(rt, tf.ragged.constant([[1], [2, 3]]))
    with pytest.raises(TypeError, match="Failed to convert elements of"):
        tf.matmul(rt, rt)          # not elementwise: TF's conversion error


def test_elementwise_ops_on_graph_ragged_tensors():
    with tf.Graph().as_default():
        rt = tf.RaggedTensor.from_row_splits(tf.constant([1.5, 2.5, 3.5]),
                                             tf.constant([0, 2, 3], tf.int64))
        dense = tf.cast(rt, tf.int32).to_tensor()
        with tf.compat.v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(dense), [[1, 2], [3, 0]])
