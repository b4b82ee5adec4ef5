"""Array ops against numpy: creation, shapes, joining, indexing, slicing, __getitem__."""
import sys

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import errors

v1 = tf.compat.v1
v2 = sys.modules["tfcompat.compat.v2"]  # tf.compat.v2 is not an attribute yet

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
I = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
M = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)


def _check(result, expected):
    if isinstance(expected, (list, tuple)):
        assert len(result) == len(expected)
        for r, e in zip(result, expected):
            _check(r, e)
        return
    expected = np.asarray(expected)
    value = np.asarray(result.numpy())
    assert value.shape == expected.shape, (value.shape, expected.shape)
    assert value.dtype == expected.dtype, (value.dtype, expected.dtype)
    np.testing.assert_allclose(value.astype(np.float64) if value.dtype != object else value,
                               expected.astype(np.float64) if expected.dtype != object
                               else expected, rtol=1e-6)


# Argument forms (Python lists, v1 keywords, dtypes); each op's values, graph mode and
# gradients on tensors: tests/op_records.py.
CASES = [
    # creation
    ("zeros", lambda: tf.zeros([2, 3]), np.zeros((2, 3), np.float32)),
    ("zeros_int", lambda: tf.zeros((2,), tf.int32), np.zeros(2, np.int32)),
    ("zeros_tensor_shape", lambda: tf.zeros(tf.shape(tf.constant(A))), np.zeros_like(A)),
    ("ones", lambda: tf.ones([3], dtype=tf.int64), np.ones(3, np.int64)),
    ("fill_float", lambda: tf.fill((3,), 0.5), np.full(3, .5, np.float32)),
    ("zeros_like_dtype", lambda: tf.zeros_like(M, dtype=tf.float32), np.zeros((2, 3), np.float32)),
    ("ones_like_v1_kw", lambda: v1.ones_like(tensor=M, optimize=False), np.ones_like(M)),
    ("ones_like_v2_kw", lambda: v2.ones_like(input=M), np.ones_like(M)),
    ("range_limit", lambda: tf.range(5), np.arange(5, dtype=np.int32)),
    ("range_float", lambda: tf.range(0, 1, 0.25), np.arange(0, 1, .25, dtype=np.float32)),
    ("range_neg", lambda: tf.range(5, 0, -2), np.array([5, 3, 1], np.int32)),
    ("range_dtype", lambda: tf.range(3, dtype=tf.float64), np.arange(3, dtype=np.float64)),
    ("range_empty", lambda: tf.range(3, 3), np.zeros(0, np.int32)),
    ("range_tensor", lambda: tf.range(tf.constant(4)), np.arange(4, dtype=np.int32)),
    ("linspace", lambda: tf.linspace(0.0, 1.0, 5), np.linspace(0, 1, 5, dtype=np.float32)),
    ("lin_space", lambda: v1.lin_space(1.0, 3.0, 3), np.array([1, 2, 3], np.float32)),
    ("linspace_one", lambda: tf.linspace(2.0, 3.0, 1), np.array([2], np.float32)),
    ("linspace_nd", lambda: tf.linspace([0., 1.], [1., 3.], 3, axis=1),
     np.array([[0, .5, 1], [1, 2, 3]], np.float32)),
    # TF 2.x: integer bounds give float64 (guide/basic_training_loops: tf.linspace(-2, 2, 201))
    ("linspace_int", lambda: tf.linspace(-2, 2, 5), np.array([-2, -1, 0, 1, 2], np.float64)),
    ("linspace_int_tensor", lambda: tf.linspace(tf.constant(0), 4, 3),
     np.array([0, 2, 4], np.float64)),
    # shapes
    ("shape_int64", lambda: tf.shape(A, out_type=tf.int64), np.array([2, 3, 4], np.int64)),
    ("shape_v1_positional", lambda: v1.shape(A, None, tf.int64), np.array([2, 3, 4], np.int64)),
    ("size_v1", lambda: v1.size(A, None, tf.int64), np.array(24, np.int64)),
    ("reshape_tensor_shape", lambda: tf.reshape(A, tf.constant([6, 4])), A.reshape(6, 4)),
    ("reshape_scalar", lambda: tf.reshape([7], []), np.array(7, np.int32)),
    ("reshape_list_of_tensors", lambda: tf.reshape(A, [tf.shape(A)[0], -1]), A.reshape(2, 12)),
    ("expand_dims_v1_dim", lambda: v1.expand_dims(M, dim=0), M[None]),
    ("expand_dims_list_axis", lambda: tf.expand_dims(M, [2]), M[..., None]),
    ("squeeze_v1_dims", lambda: v1.squeeze(np.zeros((1, 2, 1), np.float32), squeeze_dims=[0]),
     np.zeros((2, 1), np.float32)),
    ("transpose_v1_kw", lambda: v1.transpose(A, perm=[2, 0, 1], name="t"), A.transpose(2, 0, 1)),
    # joining / splitting
    ("concat_python_list", lambda: tf.concat([tf.constant(M), [[7, 8, 9]]], axis=0),
     np.concatenate([M, [[7, 8, 9]]]).astype(np.int32)),
    ("stack_scalars", lambda: tf.stack([1, 2, tf.constant(3)]), np.array([1, 2, 3], np.int32)),
    ("split_tensor_sizes", lambda: tf.split(A, tf.constant([3, 1]), axis=-1),
     [A[..., :3], A[..., 3:]]),
    ("pad_v1_positional", lambda: v1.pad(M, [[0, 1], [1, 0]], "CONSTANT", None, 9),
     np.pad(M, [[0, 1], [1, 0]], constant_values=9)),
    ("reverse_v2", lambda: v1.reverse_v2(M, axis=[1]), M[:, ::-1]),
    ("reverse_sequence_v1", lambda: v1.reverse_sequence(M.T, [1, 2], seq_dim=0, batch_dim=1),
     np.array([[1, 5], [2, 4], [3, 6]], np.int32)),
    ("meshgrid", lambda: tf.meshgrid([1, 2, 3], [4, 5]), np.meshgrid(
        np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32))),
    ("meshgrid_ij", lambda: tf.meshgrid([1, 2, 3], [4, 5], indexing="ij"), np.meshgrid(
        np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32), indexing="ij")),
    ("repeat", lambda: tf.repeat(M, 2), np.repeat(M, 2)),
    # indexing
    ("gather_scalar_index", lambda: tf.gather(M, 1), M[1]),
    ("gather_v1_kw", lambda: v1.gather(A, [1], validate_indices=True, name="g", axis=1),
     np.take(A, [1], 1)),
    ("gather_v2_positional", lambda: v2.gather(A, [1, 0], None, 1), np.take(A, [1, 0], 1)),
    ("gather_batch_dims_axis2", lambda: tf.gather(A, [[3], [0]], axis=2, batch_dims=1),
     np.stack([A[0][:, [3]], A[1][:, [0]]])),
    ("gather_nd_full", lambda: tf.gather_nd(M, [[1, 2], [0, 0]]), np.array([6, 1], np.int32)),
    ("gather_nd_batch", lambda: tf.gather_nd(A, [[1], [2]], batch_dims=1),
     np.stack([A[0, 1], A[1, 2]])),
    ("gather_nd_v1_positional", lambda: v1.gather_nd(M, [[1]], None, 0), M[[1]]),
    ("scatter_nd_slices", lambda: tf.scatter_nd([[1]], [[1, 2, 3]], [2, 3]),
     np.array([[0, 0, 0], [1, 2, 3]], np.int32)),
    ("tensor_scatter_update_v1", lambda: v1.tensor_scatter_update(M, [[1]], [[7, 8, 9]]),
     np.array([[1, 2, 3], [7, 8, 9]], np.int32)),
    ("one_hot_dtype", lambda: tf.one_hot([[1]], 2, dtype=tf.int64), np.array([[[0, 1]]],
                                                                          np.int64)),
    ("one_hot_dtype_hint", lambda: tf.one_hot([0], 2, on_value=3, dtype=tf.float64),
     np.array([[3, 0]], np.float64)),
    ("where_coords", lambda: tf.where([[True, False], [False, True]]),
     np.array([[0, 0], [1, 1]], np.int64)),
    ("where_numeric_coords", lambda: v1.where([0, 3, 0, 1]), np.array([[1], [3]], np.int64)),
    ("where_v1_rows", lambda: v1.where([True, False], M, -M), np.array([[1, 2, 3], [-4, -5, -6]],
                                                                     np.int32)),
    ("where_v2_v1_path", lambda: v1.where_v2([True, False, True], M, -1),
     np.array([[1, -1, 3], [4, -1, 6]], np.int32)),
    ("boolean_mask_2d", lambda: tf.boolean_mask(A, A[..., 0] > 5), A[A[..., 0] > 5]),
    ("boolean_mask_axis", lambda: tf.boolean_mask(M, [True, False, True], axis=1),
     M[:, [True, False, True]]),
    ("boolean_mask_v1_positional", lambda: v1.boolean_mask(M, [False, True], "m", 0), M[1:]),
    ("sequence_mask_auto", lambda: tf.sequence_mask([2, 1], dtype=tf.float32),
     np.array([[1, 1], [1, 0]], np.float32)),
    ("searchsorted", lambda: tf.searchsorted([1, 3, 5, 7], [0, 3, 6]),
     np.array([0, 1, 3], np.int32)),
    ("searchsorted_right", lambda: tf.searchsorted([[1, 3, 5]], [[3, 5]], side="right"),
     np.array([[2, 3]], np.int32)),
    ("sort", lambda: tf.sort([3, 1, 2]), np.array([1, 2, 3], np.int32)),
    ("sort_desc", lambda: tf.sort(M, axis=0, direction="DESCENDING"), M[::-1]),
    ("argsort", lambda: tf.argsort([3.0, 1.0, 2.0, 1.0]), np.array([1, 3, 2, 0], np.int32)),
    ("argsort_desc", lambda: tf.argsort([1, 3, 3, 2], direction="DESCENDING"),
     np.array([1, 2, 3, 0], np.int32)),
    # slicing
    ("slice_tensor", lambda: tf.slice(M, tf.constant([0, 1]), tf.constant([-1, 2])), M[:, 1:3]),
    ("strided_slice_neg", lambda: tf.strided_slice(A, [-1, -1], [-3, 0], [-1, -2]),
     A[-1:-3:-1, -1:0:-2]),
    ("strided_slice_masks", lambda: tf.strided_slice(A, [1, 1], [0, 0], begin_mask=1,
                                                     end_mask=2), A[:0, 1:]),
    ("strided_slice_masks_neg", lambda: tf.strided_slice(
        A, [0, 1], [1, 0], [-1, -1], begin_mask=1, end_mask=2), A[:1:-1, 1::-1]),
    ("strided_slice_ellipsis_newaxis", lambda: tf.strided_slice(
        A, [0, 0, 1], [0, 0, 3], ellipsis_mask=1, new_axis_mask=2), A[..., None, 1:3]),
]


@pytest.mark.parametrize("name,call,expected", CASES, ids=[c[0] for c in CASES])
def test_against_numpy(name, call, expected):
    _check(call(), expected)


def test_ranges_dtypes_and_device():
    assert tf.range(1, 5, 2.0).dtype == tf.float32
    assert tf.range(tf.constant(3, tf.int64)).dtype == tf.int64
    x = tf.constant([1.0])
    assert tf.zeros([1]).device == x.device


# ---------------------------------------------------------------- __getitem__

GETITEM = [
    (0,), (-1,), (slice(1, None),), (slice(None, None, -1),), (slice(None, None, -2),),
    (slice(5, -5, -1),), (Ellipsis, 1), (None, 0, slice(1, None)), (slice(None), None),
    (1, -1, -1), (Ellipsis,), (Ellipsis, None), (0, Ellipsis, slice(None, None, -3)),
    (slice(-100, 100),), (slice(None, None, 2), slice(2, 0, -1), slice(None, 3)),
    (slice(1, 1),), (slice(3, 1),), (slice(0, 3, -1),), (None, Ellipsis, None),
    (1, slice(None, None, -1), 2), (Ellipsis, slice(-2, None)),
]


@pytest.mark.parametrize("spec", GETITEM, ids=[repr(s) for s in GETITEM])
def test_getitem_matches_numpy(spec):
    key = spec[0] if len(spec) == 1 else spec
    expected = I[key]
    result = tf.constant(I)[key]
    value = np.asarray(result.numpy())
    assert value.shape == np.shape(expected) and (value == expected).all()
    assert result.shape.as_list() == list(np.shape(expected))


def test_getitem_tensor_indices_and_lists():
    x = tf.constant(I)
    _check(x[tf.constant(1)], I[1])
    _check(x[tf.constant(1, tf.int64), tf.constant(-1)], I[1, -1])
    _check(x[:tf.constant(2), tf.constant(1):], I[:2, 1:])
    _check(x[[1, 2]], I[1, 2])  # TF treats a list like a tuple of indices
    _check(x[np.int64(1)], I[1])
    _check(tf.shape(x)[0], np.array(2, np.int32))


def test_getitem_bool_mask_and_errors():
    x = tf.constant(M)
    _check(x[tf.constant([True, False])], M[[True, False]])
    mask = np.array([[True, False, True], [False, False, True]])
    _check(x[mask], M[mask])
    with pytest.raises(TypeError):
        x[tf.constant([0, 1])]
    with pytest.raises(TypeError):
        x[1.5]
    with pytest.raises(TypeError):
        x[tf.constant(1.0)]
    with pytest.raises(errors.InvalidArgumentError):
        x[5]
    with pytest.raises(errors.InvalidArgumentError):
        x[0, 0, 0]
    with pytest.raises(errors.InvalidArgumentError):
        x[..., ...]
    with pytest.raises(errors.InvalidArgumentError):
        x[::0]


def test_getitem_strings_and_gradients():
    s = tf.constant([["a", "b"], ["c", "d"]])
    assert s[1, ::-1].numpy().tolist() == [b"d", b"c"]
    assert s[0, 1].numpy() == b"b"
    t = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    from tfcompat.ops import array_ops
    out = array_ops.strided_slice._tfcompat_impl(t, [2], [0], [-1])
    out.sum().backward()
    assert t.grad.tolist() == [0.0, 1.0, 1.0]


# ---------------------------------------------------------------- strings through movement ops


def test_string_data_movement():
    s = tf.constant([["a", "b"], ["c", "d"]])
    assert tf.reshape(s, [-1]).numpy().tolist() == [b"a", b"b", b"c", b"d"]
    assert tf.transpose(s).numpy().tolist() == [[b"a", b"c"], [b"b", b"d"]]
    assert tf.concat([s, s], 0).shape.as_list() == [4, 2]
    assert tf.stack([s[0], s[1]]).numpy().tolist() == [[b"a", b"b"], [b"c", b"d"]]
    assert tf.gather(s, [1], axis=1).numpy().tolist() == [[b"b"], [b"d"]]
    assert tf.expand_dims(s, 0).shape.as_list() == [1, 2, 2]
    assert [t.numpy().tolist() for t in tf.unstack(s)] == [[b"a", b"b"], [b"c", b"d"]]
    assert tf.tile(tf.constant(["x"]), [3]).numpy().tolist() == [b"x"] * 3
    assert tf.boolean_mask(tf.constant(["a", "b"]), [False, True]).numpy().tolist() == [b"b"]
    assert tf.zeros_like(s).numpy().tolist() == [[b"", b""], [b"", b""]]
    assert tf.fill([2], "z").numpy().tolist() == [b"z", b"z"]
    y, idx = tf.unique(tf.constant(["b", "a", "b"]))
    assert y.numpy().tolist() == [b"b", b"a"] and idx.numpy().tolist() == [0, 1, 0]


# ---------------------------------------------------------------- errors

ERRORS = [
    ("reshape_count", lambda: tf.reshape(tf.constant([1, 2, 3, 4, 5, 6]), [4]),
     errors.InvalidArgumentError,
     "Input to reshape is a tensor with 6 values, but the requested shape has 4"),
    ("reshape_multiple", lambda: tf.reshape(tf.zeros([6]), [4, -1]), errors.InvalidArgumentError,
     "requires a multiple of 4"),
    ("reshape_two_unknown", lambda: tf.reshape(tf.zeros([6]), [-1, -1]),
     errors.InvalidArgumentError, "Only one input size may be -1"),
    ("expand_dims_axis", lambda: tf.expand_dims(M, 3), errors.InvalidArgumentError,
     "Tried to expand dim index 3"),
    ("expand_dims_no_axis", lambda: tf.expand_dims(M), ValueError, "axis"),
    ("squeeze_not_one", lambda: tf.squeeze(M, [0]), errors.InvalidArgumentError,
     "Can not squeeze dim[0]"),
    ("transpose_perm", lambda: tf.transpose(M, [0]), errors.InvalidArgumentError, "vector of size"),
    ("transpose_dup", lambda: tf.transpose(M, [0, 0]), errors.InvalidArgumentError, "missing"),
    ("concat_dims", lambda: tf.concat([M, tf.zeros([2, 4], tf.int32)], 0),
     errors.InvalidArgumentError, "Dimension 1 in both shapes must be equal"),
    ("concat_dtypes", lambda: tf.concat([tf.constant([1]), tf.constant([1.0])], 0),
     errors.InvalidArgumentError, "same dtype"),
    ("concat_axis", lambda: tf.concat([M, M], 2), errors.InvalidArgumentError, "range [-2, 2)"),
    ("concat_scalars", lambda: tf.concat([1, 2], 0), errors.InvalidArgumentError, "scalars"),
    ("stack_shapes", lambda: tf.stack([tf.constant([1, 2]), tf.constant([1, 2, 3])]),
     errors.InvalidArgumentError, "Shapes of all inputs must match"),
    ("stack_axis", lambda: tf.stack([M, M], axis=3), ValueError, "not in range"),
    ("unstack_num", lambda: tf.unstack(M, num=3), errors.InvalidArgumentError, "must equal"),
    ("split_uneven", lambda: tf.split(A, 3, axis=2), errors.InvalidArgumentError,
     "evenly divide"),
    ("split_sizes", lambda: tf.split(A, [1, 1], axis=2), errors.InvalidArgumentError,
     "Determined shape must either match"),
    ("tile_len", lambda: tf.tile(M, [2]), errors.InvalidArgumentError, "length 2"),
    ("pad_reflect_big", lambda: tf.pad(M, [[2, 0], [0, 0]], "REFLECT"),
     errors.InvalidArgumentError, "paddings"),
    ("pad_mode", lambda: tf.pad(M, [[0, 0], [0, 0]], "WRAP"), ValueError, "mode"),
    ("gather_range", lambda: tf.gather(tf.constant([1, 2, 3]), [5]),
     errors.InvalidArgumentError, "indices[0] = 5 is not in [0, 3)"),
    ("gather_float_indices", lambda: tf.gather(M, [0.5]), TypeError, "int32 or int64"),
    ("gather_nd_range", lambda: tf.gather_nd(M, [[2, 0]]), errors.InvalidArgumentError,
     "does not index into param shape"),
    ("scatter_nd_range", lambda: tf.scatter_nd([[9]], [1], [4]), errors.InvalidArgumentError,
     "does not index into shape"),
    ("scatter_nd_updates", lambda: tf.scatter_nd([[1]], [1, 2], [4]),
     errors.InvalidArgumentError, "updates.shape"),
    ("where_one_of_xy", lambda: tf.where([True], [1]), ValueError, "both"),
    ("where_cond_dtype", lambda: tf.where([1, 0], [1, 2], [3, 4]), errors.InvalidArgumentError,
     "bool tensor"),
    ("where_v1_shapes", lambda: v1.where([True, False], M, [1, 2]), errors.InvalidArgumentError,
     "same size"),
    ("where_v2_broadcast", lambda: v2.where([True, False, True], M, [1, 2]),
     errors.InvalidArgumentError, "broadcastable"),
    ("boolean_mask_shape", lambda: tf.boolean_mask(M, [True, False, True]), ValueError,
     "incompatible"),
    ("boolean_mask_scalar", lambda: tf.boolean_mask(M, True), ValueError, "scalar"),
    ("unique_rank", lambda: tf.unique(M), errors.InvalidArgumentError, "1D"),
    ("one_hot_dtype_mismatch", lambda: tf.one_hot([0], 2, on_value=tf.constant(1.0),
                                                   dtype=tf.int32), TypeError, "dtype"),
    ("range_delta", lambda: tf.range(0, 5, 0), errors.InvalidArgumentError, "delta != 0"),
    ("range_order", lambda: tf.range(5, 1), errors.InvalidArgumentError,
     "Requires start <= limit when delta > 0: 5/1"),
    ("slice_begin", lambda: tf.slice(M, [3, 0], [1, 1]), errors.InvalidArgumentError,
     "Expected begin[0] in [0, 2]"),
    ("slice_size", lambda: tf.slice(M, [1, 0], [2, 1]), errors.InvalidArgumentError,
     "Expected size[0] in [0, 1]"),
    ("strided_stride0", lambda: tf.strided_slice(M, [0], [1], [0]), errors.InvalidArgumentError,
     "non-zero"),
    ("broadcast_to", lambda: tf.broadcast_to([1, 2, 3], [2, 2]), errors.InvalidArgumentError,
     "Unable to broadcast"),
    ("broadcast_static", lambda: tf.broadcast_static_shape(tf.TensorShape([2]),
                                                           tf.TensorShape([3])),
     ValueError, "Incompatible shapes"),
    ("ensure_shape", lambda: tf.ensure_shape(M, [3, 3]), errors.InvalidArgumentError,
     "is not compatible with expected shape [3,3]"),
    ("sort_direction", lambda: tf.sort([1], direction="UP"), ValueError, "direction"),
    ("space_to_depth_div", lambda: tf.space_to_depth(tf.zeros([1, 3, 3, 1]), 2),
     errors.InvalidArgumentError, "divisible by block_size"),
    ("depth_to_space_div", lambda: tf.nn.depth_to_space(tf.zeros([1, 1, 1, 3]), 2),
     errors.InvalidArgumentError, "divisible by"),
    ("batch_to_space_div", lambda: tf.batch_to_space_nd(tf.zeros([3, 1, 1, 1]), [2, 2],
                                                        [[0, 0], [0, 0]]),
     errors.InvalidArgumentError, "not divisible by product of block sizes"),
    ("reverse_dup", lambda: tf.reverse(M, [0, -2]), errors.InvalidArgumentError, "more than once"),
    ("reverse_sequence_len", lambda: tf.reverse_sequence(M, [4, 1], seq_axis=1),
     errors.InvalidArgumentError, "seq_lens"),
    ("strided_var", lambda: tf.strided_slice(M, [0], [1], var=object()), NotImplementedError,
     "var"),
    ("fill_nonscalar", lambda: tf.fill([2], [1, 2]), errors.InvalidArgumentError, "scalar"),
]


@pytest.mark.parametrize("name,call,error,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, call, error, message):
    with tf.device("/cpu:0"), pytest.raises(error) as info:  # TF's CPU kernels validate
        call()
    assert message in str(info.value)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_gather_out_of_range_on_gpu_gives_zeros_like_tf():
    with tf.device("/gpu:0"):
        params = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        assert tf.gather(params, [1, 5]).numpy().tolist() == [[3, 4], [0, 0]]
        assert tf.gather(params, [[0, -1]], axis=1).numpy().tolist() == [[[1, 0]], [[3, 0]]]
        assert tf.gather_nd(params, [[1, 1], [2, 0]]).numpy().tolist() == [4, 0]


def test_exported_paths_exist_in_tf():
    from tfcompat import _api
    paths = ["zeros", "ones", "fill", "zeros_like", "ones_like", "range", "linspace", "newaxis",
             "identity", "identity_n", "stop_gradient", "shape", "shape_n", "size", "rank",
             "reshape", "expand_dims", "squeeze", "transpose", "broadcast_to",
             "broadcast_dynamic_shape", "broadcast_static_shape", "ensure_shape", "concat",
             "stack", "unstack", "split", "tile", "pad", "reverse", "reverse_sequence", "roll",
             "meshgrid", "repeat", "gather", "gather_nd", "scatter_nd",
             "tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
             "one_hot", "where", "boolean_mask", "sequence_mask", "unique",
             "unique_with_counts", "searchsorted", "argsort", "sort", "slice", "strided_slice",
             "batch_to_space", "space_to_batch", "space_to_batch_nd", "nn.depth_to_space",
             "nn.space_to_depth"]
    for path in paths:
        assert path in _api.known_paths("v1") and path in _api.known_paths("v2"), path
    mine = ("tfcompat.ops.array_ops", "tfcompat.framework.constant_op")
    for table in (_api._COMMON, _api._V1, _api._V2):
        for path, obj in table.items():
            if getattr(obj, "__module__", None) in mine:
                assert _api.is_tf_symbol(path), path
    assert tf.newaxis is None
    assert v1.lin_space is v1.linspace and v1.reverse_v2 is v1.reverse


def test_view_ops_do_not_alias_variables():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    flat = tf.reshape(v, [-1])
    row = tf.strided_slice(v, [0], [1], shrink_axis_mask=1)
    parts = tf.unstack(v)
    v.assign([[0.0, 0.0], [0.0, 0.0]])
    assert flat.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    assert row.numpy().tolist() == [1.0, 2.0]
    assert parts[1].numpy().tolist() == [3.0, 4.0]


def test_gradients_flow_through_array_ops():
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    from tfcompat.ops import array_ops
    out = array_ops.concat._tfcompat_impl([array_ops.gather._tfcompat_impl(t, [1, 1]),
                                           array_ops._pad(t, [[1, 0], [0, 0]], "REFLECT", 0)],
                                          0)
    out.sum().backward()
    assert t.grad.tolist() == [[1.0, 1.0], [4.0, 4.0]]


# ---------------------------------------------------------------- graph mode

GRAPH_CASES = [
    ("reshape", lambda x: tf.reshape(x, [-1, 4]), lambda a: a.reshape(-1, 4), [None, 4]),
    ("reshape_shape", lambda x: tf.reshape(x, tf.shape(x)), lambda a: a, [None, 3, 4]),
    ("reshape_dyn", lambda x: tf.reshape(x, [tf.shape(x)[0], -1]), lambda a: a.reshape(-1, 12),
     [None, 12]),
    ("reshape_concat", lambda x: tf.reshape(x, tf.concat([tf.shape(x)[:1], [12]], 0)),
     lambda a: a.reshape(-1, 12), [None, 12]),
    ("reshape_stack", lambda x: tf.reshape(x, tf.stack([-1, tf.shape(x)[2]])),
     lambda a: a.reshape(-1, 4), [None, 4]),
    ("getitem", lambda x: x[:, ::-1, 1], lambda a: a[:, ::-1, 1], [None, 3]),
    ("getitem_ellipsis", lambda x: x[..., None, 2:], lambda a: a[..., None, 2:],
     [None, 3, 1, 2]),
    ("concat", lambda x: tf.concat([x, x], 1), lambda a: np.concatenate([a, a], 1),
     [None, 6, 4]),
    ("split", lambda x: tf.split(x, [1, 2], 1)[1], lambda a: a[:, 1:], [None, 2, 4]),
    ("gather", lambda x: tf.gather(x, [2, 0], axis=1), lambda a: a[:, [2, 0]], [None, 2, 4]),
    ("transpose", lambda x: tf.transpose(x), lambda a: a.T, [4, 3, None]),
    ("pad", lambda x: tf.pad(x, [[0, 0], [1, 1], [0, 0]], "REFLECT"),
     lambda a: np.pad(a, [[0, 0], [1, 1], [0, 0]], "reflect"), [None, 5, 4]),
    ("zeros", lambda x: tf.zeros(tf.shape(x)[1:]), lambda a: np.zeros((3, 4), np.float32),
     [3, 4]),
    ("fill", lambda x: tf.fill([tf.shape(x)[0], 2], 1.0), lambda a: np.ones((len(a), 2),
                                                                           np.float32), [None, 2]),
    ("range", lambda x: tf.range(tf.shape(x)[0]), lambda a: np.arange(len(a), dtype=np.int32),
     [None]),
    ("one_hot", lambda x: tf.one_hot([0, 2], tf.shape(x)[1]), lambda a: np.eye(3, dtype=np.float32)
     [[0, 2]], [2, 3]),
    ("boolean_mask", lambda x: tf.boolean_mask(x, [True, False, True], axis=1),
     lambda a: a[:, [True, False, True]], [None, None, 4]),
]


@pytest.mark.parametrize("name,build,expected,static", GRAPH_CASES,
                         ids=[c[0] for c in GRAPH_CASES])
def test_graph_mode_static_shapes_and_values(name, build, expected, static):
    try:
        placeholder = v1.placeholder
    except NotImplementedError:
        pytest.skip("graph mode is not available")
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with tf.Graph().as_default():
        x = placeholder(tf.float32, [None, 3, 4])
        y = build(x)
        assert y.shape.as_list() == static
        assert x.shape.as_list() == [None, 3, 4]
        with v1.Session() as sess:
            value = sess.run(y, {x: data})
    np.testing.assert_array_equal(value, expected(data))


def test_graph_reshape_of_unknown_dims_checks_only_divisibility_as_tf():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 1])
        scalar = tf.reshape(x, ())
        assert scalar.shape.as_list() == []
        wide = tf.compat.v1.placeholder(tf.float32, [None, 3])
        assert tf.reshape(wide, [12, 1]).shape.as_list() == [12, 1]
        with pytest.raises(ValueError, match="evenly divisible by 3 but is 4"):
            tf.reshape(wide, [4])
        with tf.compat.v1.Session() as sess:
            assert sess.run(scalar, {x: [[5.0]]}) == 5.0
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(scalar, {x: [[5.0], [6.0]]})
