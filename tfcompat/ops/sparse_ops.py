"""`tf.SparseTensor`, `tf.IndexedSlices` and the basic sparse ops.

A SparseTensor is three tensors (int64 `indices` [N, rank], `values` [N], int64
`dense_shape` [rank]); it holds EagerTensors in eager mode and graph tensors in graph mode.
Ops take the components, so graph mode records ordinary tensor ops. Computation is dense
where that is simplest (`to_dense`, `reduce_sum`); `sparse_dense_matmul` scatters rows and
never builds the dense sparse operand.
"""
import collections

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import convert_to_tensor, op, to_torch
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops.array_ops import _as_ints, _axis, _concrete, _size_tensor, transpose


@tf_export("sparse.SparseTensor", "SparseTensor")
class SparseTensor(object):
    """`tf.SparseTensor(indices, values, dense_shape)`."""

    is_tensor_like = True   # tf.is_tensor is True for composite tensors, as in TF

    def __init__(self, indices, values, dense_shape):
        self._indices = convert_to_tensor(indices, dtype=dtypes.int64)
        self._values = convert_to_tensor(values)
        self._dense_shape = convert_to_tensor(dense_shape, dtype=dtypes.int64)
        ind_shape, val_shape = self._indices.shape, self._values.shape
        shape_shape = self._dense_shape.shape
        if ind_shape.rank != 2 or val_shape.rank != 1 or shape_shape.rank != 1:
            raise ValueError("SparseTensor needs indices of rank 2, values of rank 1 and "
                             "dense_shape of rank 1; got shapes %s, %s, %s"
                             % (ind_shape, val_shape, shape_shape))
        (rows, columns), (entries,), (ranks,) = (
            ind_shape.as_list(), val_shape.as_list(), shape_shape.as_list())  # None: unknown
        if columns is not None and ranks is not None and columns != ranks:
            raise ValueError("indices have %d columns but dense_shape has %d entries"
                             % (columns, ranks))
        if rows is not None and entries is not None and rows != entries:
            raise ValueError("indices has %d rows but values has %d entries" % (rows, entries))

    @classmethod
    def from_value(cls, sparse_tensor_value):
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values,
                   sparse_tensor_value.dense_shape)

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)

    @property
    def shape(self):
        """The static dense shape (known in eager mode; from the graph's shape otherwise)."""
        if type(self._dense_shape) is EagerTensor:
            return TensorShape([int(d) for d in self._dense_shape.numpy()])
        return TensorShape([None] * self._dense_shape.shape[0]) \
            if self._dense_shape.shape[0] is not None else TensorShape(None)

    def get_shape(self):
        return self.shape

    @property
    def graph(self):
        return self._indices.graph

    def with_values(self, new_values):
        """A SparseTensor with the same indices and shape and `new_values`."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def __repr__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (
            self._indices, self._values, self._dense_shape)


SparseTensorValue = tf_export(v1=["SparseTensorValue"])(collections.namedtuple(
    "SparseTensorValue", ["indices", "values", "dense_shape"]))


def _components(sp_input):
    if not hasattr(sp_input, "indices") or not hasattr(sp_input, "dense_shape"):
        raise TypeError("Input must be a SparseTensor, got %r" % (sp_input,))
    return sp_input.indices, sp_input.values, sp_input.dense_shape


# ---------------------------------------------------------------- to_dense / from_dense


def _validate(idx, shape, check_order):
    """TF's index checks: in bounds, and (with `check_order`) sorted without repeats."""
    if not _concrete(idx) or idx.numel() == 0:
        return
    limits = torch.tensor(shape, dtype=torch.long, device=idx.device)
    bad = ((idx < 0) | (idx >= limits)).any(1)
    if bool(bad.any()):
        i = int(bad.nonzero()[0, 0])
        raise errors.InvalidArgumentError(
            "indices[%d] = [%s] is out of bounds: need 0 <= index < [%s]" % (
                i, ",".join(str(v) for v in idx[i].tolist()), ",".join(str(d) for d in shape)))
    if not check_order or idx.shape[0] < 2:
        return
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    linear = (idx * torch.tensor(strides, dtype=torch.long, device=idx.device)).sum(1)
    step = linear[1:] - linear[:-1]
    if bool((step <= 0).any()):
        i = int((step <= 0).nonzero()[0, 0]) + 1
        problem = "repeated" if int(step[i - 1]) == 0 else "out of order"
        raise errors.InvalidArgumentError(
            "indices[%d] = [%s] is %s. Many sparse ops require sorted indices. Use "
            "`tf.sparse.reorder` to create a correctly ordered copy."
            % (i, ",".join(str(v) for v in idx[i].tolist()), problem))


@op(graph_name="SparseToDense")
def _sparse_to_dense(indices, dense_shape, values, default_value, validate_indices):
    idx = to_torch(indices)
    if idx.ndim < 2:  # tf.sparse_to_dense accepts a scalar or a vector of 1-D indices
        idx = idx.reshape(-1, 1)
    idx = idx.long()
    shape = _as_ints(dense_shape)
    vals = to_torch(values)
    if idx.shape[1] != len(shape):
        raise errors.InvalidArgumentError(
            "indices has %d columns but the output shape has rank %d" % (idx.shape[1], len(shape)))
    _validate(idx, shape, check_order=bool(validate_indices))
    if isinstance(vals, np.ndarray):
        fill = b"" if default_value is None else to_torch(default_value, dtypes.string)[()]
        out = np.full(shape, fill, dtype=object)
        out[tuple(idx.cpu().numpy().T)] = vals
        return out
    dtype = dtypes.from_torch(vals.dtype)
    fill = to_torch(0 if default_value is None else default_value, dtype).to(vals.device)
    if fill.ndim != 0:
        raise errors.InvalidArgumentError("default_value should be a scalar, got shape %s"
                                          % format_shape(fill.shape))
    if vals.ndim == 0:
        vals = vals.expand(idx.shape[0])
    elif vals.shape[0] != idx.shape[0]:
        raise errors.InvalidArgumentError(
            "sparse_values has incorrect shape %s, should be [] or [%d]"
            % (format_shape(vals.shape), idx.shape[0]))
    out = fill.expand(shape).clone()
    return out.index_put(tuple(idx.to(vals.device).unbind(1)), vals)


@tf_export("sparse.to_dense", v1=["sparse_tensor_to_dense"])
def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """`tf.sparse.to_dense`: unset entries are `default_value` (0 / b""). With
    `validate_indices` the indices must be sorted and unique, as in TF."""
    indices, values, dense_shape = _components(sp_input)
    return _sparse_to_dense(indices, dense_shape, values, default_value, validate_indices)


@tf_export(v1=["sparse_to_dense"])
def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None):
    """TF1 `tf.sparse_to_dense`: indices may be a scalar, a vector (1-D output) or [N, rank];
    `sparse_values` a scalar (for every index) or one value per index."""
    return _sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value,
                            validate_indices)


@op(graph_name="SparseFromDense")
def _from_dense(tensor):
    t = to_torch(tensor)
    if isinstance(t, np.ndarray):
        mask = t != b""
        idx = np.argwhere(mask).astype(np.int64)
        return (torch.from_numpy(idx), t[mask].astype(object),
                torch.tensor(list(t.shape), dtype=torch.int64))
    idx = torch.nonzero(t)
    return idx, t[tuple(idx.unbind(1))], _size_tensor(list(t.shape), (t.ndim,), torch.int64,
                                                      t.device)


@tf_export("sparse.from_dense")
def from_dense(tensor, name=None):
    """`tf.sparse.from_dense`: the non-zero (non-empty for strings) entries of `tensor`."""
    return SparseTensor(*_from_dense(tensor))


@op(graph_name="SparseReorder")
def _reorder(indices, values, dense_shape):
    idx = to_torch(indices)
    vals = to_torch(values)
    order = torch.arange(idx.shape[0], device=idx.device)
    for d in range(idx.shape[1] - 1, -1, -1):  # stable sorts, last column first
        order = order[torch.sort(idx[order, d], stable=True).indices]
    new_values = vals[order.cpu().numpy()] if isinstance(vals, np.ndarray) else vals[order]
    return idx[order], new_values, to_torch(dense_shape)


@tf_export("sparse.reorder", v1=["sparse_reorder"])
def sparse_reorder(sp_input, name=None):
    """`tf.sparse.reorder`: entries sorted in row-major (lexicographic index) order."""
    return SparseTensor(*_reorder(*_components(sp_input)))


# ---------------------------------------------------------------- reductions and matmul


@op(graph_name="SparseReduceSum")
def _sparse_reduce_sum(indices, values, dense_shape, axis, keepdims):
    idx = to_torch(indices).long()
    vals = to_torch(values)
    shape = _as_ints(dense_shape)
    _validate(idx, shape, check_order=False)
    dense = vals.new_zeros(shape).index_put(tuple(idx.to(vals.device).unbind(1)), vals,
                                            accumulate=True)
    dims = list(range(len(shape))) if axis is None else sorted(
        {_axis(a, len(shape)) for a in _as_ints(axis)})
    return dense.sum(dim=dims, keepdim=bool(keepdims), dtype=vals.dtype) if dims else dense


@tf_export(v2=["sparse.reduce_sum"])
def sparse_reduce_sum_v2(sp_input, axis=None, keepdims=None, output_is_sparse=False,
                         name=None):
    """TF2 `tf.sparse.reduce_sum`: a dense sum over `axis` (all axes when None)."""
    if output_is_sparse:
        raise NotImplementedError("tf.sparse.reduce_sum(output_is_sparse=True) is not "
                                  "implemented by tfcompat; use tf.sparse.from_dense on the "
                                  "dense result")
    return _sparse_reduce_sum(*_components(sp_input), axis, keepdims)


@tf_export(v1=["sparse.reduce_sum", "sparse_reduce_sum"])
def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None):
    """TF1 `tf.sparse_reduce_sum` (`reduction_axes`/`keep_dims` are the old names)."""
    axis = axis if axis is not None else reduction_axes
    keepdims = keepdims if keepdims is not None else keep_dims
    return _sparse_reduce_sum(*_components(sp_input), axis, keepdims)


@op(graph_name="SparseTensorDenseMatMul")
def _sparse_dense_matmul(indices, values, dense_shape, b, adjoint_a, adjoint_b):
    idx = to_torch(indices).long()
    vals = to_torch(values)
    bt = to_torch(b)
    if bt.dtype != vals.dtype:
        raise errors.InvalidArgumentError(
            "{op}: the SparseTensor has dtype %s but b has dtype %s"
            % (dtypes.from_torch(vals.dtype).name, dtypes.from_torch(bt.dtype).name))
    shape = _as_ints(dense_shape)
    if len(shape) != 2 or bt.ndim != 2:
        raise errors.InvalidArgumentError(
            "Tensor 'a' and 'b' must be matrices; got ranks %d and %d" % (len(shape), bt.ndim))
    rows, cols = idx[:, 0].to(bt.device), idx[:, 1].to(bt.device)
    out_rows, inner = shape
    if adjoint_a:
        rows, cols, out_rows, inner = cols, rows, inner, out_rows
        vals = vals.conj()
    if adjoint_b:
        bt = bt.transpose(0, 1).conj()
    if bt.shape[0] != inner:
        raise errors.InvalidArgumentError(
            "Cannot multiply A and B because inner dimension does not match: %d vs. %d.  Did "
            "you forget a transpose?  Dimensions of A: [%d, %d).  Dimensions of B: %s"
            % (inner, bt.shape[0], shape[0], shape[1], format_shape(bt.shape)))
    _validate(idx, shape, check_order=False)
    out = bt.new_zeros((out_rows, bt.shape[1]))
    return out.index_add(0, rows, vals.to(bt.device)[:, None] * bt[cols])


@tf_export("sparse.sparse_dense_matmul", v1=["sparse_tensor_dense_matmul", "sparse.matmul"])
def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """`tf.sparse.sparse_dense_matmul`: SparseTensor x dense (or dense x SparseTensor, as TF2,
    through transposes)."""
    if hasattr(b, "dense_shape") and hasattr(b, "indices") and not hasattr(sp_a, "indices"):
        return transpose(_sparse_dense_matmul(*_components(b), transpose(sp_a),
                                              not adjoint_b, adjoint_a))
    return _sparse_dense_matmul(*_components(sp_a), b, adjoint_a, adjoint_b)


# ---------------------------------------------------------------- IndexedSlices


@op(graph_name="IndexedSlicesToDense")
def _indexed_slices_to_dense(values, indices, dense_shape):
    vals = to_torch(values)
    idx = to_torch(indices).long().to(vals.device)
    out = vals.new_zeros(_as_ints(dense_shape))
    return out.index_add(0, idx, vals)


@tf_export("IndexedSlices")
class IndexedSlices(object):
    """`tf.IndexedSlices(values, indices, dense_shape=None)`: rows `indices` of a dense tensor.

    Converts to a dense tensor where a tensor is needed (as TF does), which needs
    `dense_shape`; repeated indices add up.
    """

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    device = property(lambda self: self._values.device)

    @property
    def shape(self):
        if type(self._dense_shape) is EagerTensor:
            return TensorShape([int(d) for d in self._dense_shape.numpy()])
        if isinstance(self._dense_shape, (list, tuple, np.ndarray)):
            return TensorShape([int(d) for d in self._dense_shape])
        return TensorShape([None]).concatenate(self._values.shape[1:])

    def _check_dense_shape(self):
        if self._dense_shape is None:
            raise ValueError("Tensor conversion requested for IndexedSlices without "
                             "dense_shape: %r" % (self,))

    def _tfcompat_tensor_(self):
        """The dense value, for ops given an IndexedSlices (TF converts them the same way)."""
        self._check_dense_shape()
        return _indexed_slices_to_dense._tfcompat_impl(self._values, self._indices,
                                                       self._dense_shape)

    def _graph_tensor(self, graph):
        """Graph mode: a node densifying the slices in the graph being built."""
        self._check_dense_shape()
        return _indexed_slices_to_dense(self._values, self._indices, self._dense_shape)

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self):
        return "IndexedSlices(indices=%s, values=%s%s)" % (
            self._indices, self._values,
            "" if self._dense_shape is None else ", dense_shape=%s" % (self._dense_shape,))
