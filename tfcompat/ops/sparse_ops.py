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
from tfcompat.framework import context, dtypes, errors
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.errors import format_shape
from tfcompat.framework.graph import placeholder, placeholder_with_default
from tfcompat.framework.ops import convert_to_tensor, op, run_impl, to_torch
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops.array_ops import _as_ints, _axis, _concrete, _size_tensor, transpose
from tfcompat.ops.math_ops import _segment_reduce, _sorted_num_segments


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

    _shape_default = None  # a sparse placeholder's declared shape (TF's _dense_shape_default)

    @property
    def shape(self):
        """The static dense shape (known in eager mode; from the graph's shape otherwise)."""
        if self._shape_default is not None:
            return self._shape_default
        if type(self._dense_shape) is EagerTensor:
            return TensorShape([int(d) for d in self._dense_shape.numpy()])
        rank = self._dense_shape.shape.as_list()[0]
        return TensorShape(None if rank is None else [None] * rank)

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


@tf_export(v1=["sparse.placeholder", "sparse_placeholder"])
def sparse_placeholder(dtype, shape=None, name=None):
    """TF1's `tf.sparse_placeholder`: a SparseTensor of placeholders (`indices` [?, rank],
    `values` [?], `dense_shape`), fed with a SparseTensorValue or an (indices, values,
    dense_shape) tuple. With a `shape` the dense shape defaults to it (-1 for unknown
    dimensions) and the static shape is `shape`."""
    if not context.state.building_graph:
        raise RuntimeError("`sparse_placeholder` is not compatible with eager execution.")
    def part(component):
        return None if name is None else name + "/" + component
    default_shape = None
    if shape is None:
        rank = None
        dense_shape = placeholder(dtypes.int64, [None], name=part("shape"))
    else:
        default_shape = TensorShape(shape)
        rank = default_shape.rank
        dims = [-1 if d is None else d for d in default_shape.as_list()]
        dense_shape = placeholder_with_default(
            convert_to_tensor(np.array(dims, dtype=np.int64)), [rank], name=part("shape"))
    result = SparseTensor(indices=placeholder(dtypes.int64, [None, rank], name=part("indices")),
                          values=placeholder(dtype, [None], name=part("values")),
                          dense_shape=dense_shape)
    result._shape_default = default_shape
    return result


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


# ---------------------------------------------------------------- more sparse ops
# Entries are matched through their row-major linear index; outputs are in row-major order
# (TF's kernels keep sorted inputs sorted).


def _linear(idx, shape):
    """Row-major linear positions of index rows."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return (idx * torch.tensor(strides, dtype=torch.long, device=idx.device)).sum(1)


def _unravel(linear, shape):
    columns = []
    for size in reversed(shape):
        columns.append(linear % size)
        linear = torch.div(linear, size, rounding_mode="floor")
    return torch.stack(columns[::-1], 1) if columns else linear.new_zeros((linear.shape[0], 0))


def _parts(indices, values, dense_shape):
    return to_torch(indices).long(), to_torch(values), _as_ints(dense_shape)


def _shape_tensor(shape, like):
    return _size_tensor(list(shape), (len(shape),), torch.int64, like.device)


def _union(a, b):
    """The sorted union of two sparse tensors' positions: (positions, a's values there or
    None where absent, b's likewise), as masks and gathered values."""
    (ia, va, shape), (ib, vb, shape_b) = a, b
    if shape != shape_b:
        raise errors.InvalidArgumentError("{op}: operands' shapes do not match: %s vs. %s"
                                          % (shape, shape_b))
    la, lb = _linear(ia, shape), _linear(ib, shape)
    positions, inverse = torch.unique(torch.cat([la, lb]), sorted=True, return_inverse=True)
    in_a = torch.zeros(positions.shape, dtype=torch.bool, device=la.device)
    in_b = torch.zeros_like(in_a)
    at_a, at_b = inverse[:la.shape[0]], inverse[la.shape[0]:]
    in_a[at_a], in_b[at_b] = True, True
    value_a = va.new_zeros(positions.shape).index_put((at_a,), va)
    value_b = vb.new_zeros(positions.shape).index_put((at_b,), vb)
    return positions, shape, in_a, in_b, value_a, value_b


@op(graph_name="SparseAdd")
def _sparse_add(a_indices, a_values, a_shape, b_indices, b_values, b_shape, threshold):
    positions, shape, in_a, in_b, value_a, value_b = _union(
        _parts(a_indices, a_values, a_shape), _parts(b_indices, b_values, b_shape))
    total = value_a + value_b
    keep = ~(in_a & in_b) | (total.abs() >= threshold)
    return _unravel(positions[keep], shape), total[keep], _shape_tensor(shape, positions)


@op(graph_name="SparseTensorDenseAdd")
def _sparse_dense_add(indices, values, dense_shape, dense):
    idx, vals, shape = _parts(indices, values, dense_shape)
    d = to_torch(dense, dtypes.from_torch(vals.dtype))
    return d.index_put(tuple(idx.to(d.device).unbind(1)), vals.to(d.device), accumulate=True)


def _is_sparse(value):
    return hasattr(value, "indices") and hasattr(value, "dense_shape")


@tf_export(v2=["sparse.add"])
def sparse_add_v2(a, b, threshold=0, name=None):
    """`tf.sparse.add`: a SparseTensor plus a SparseTensor (entries present in both whose sum
    is smaller than `threshold` in magnitude are dropped) or plus a dense tensor (dense)."""
    if _is_sparse(a) and _is_sparse(b):
        return SparseTensor(*_sparse_add(*_components(a), *_components(b), threshold))
    sparse, dense = (a, b) if _is_sparse(a) else (b, a)
    return _sparse_dense_add(*_components(sparse), dense)


@tf_export(v1=["sparse.add", "sparse_add"])
def sparse_add(a, b, threshold=None, thresh=None):
    """TF1 `tf.sparse_add` (`thresh` is the old name of `threshold`)."""
    return sparse_add_v2(a, b, threshold if threshold is not None else thresh or 0)


def _extremum(pick):
    def body(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
        positions, shape, _, _, value_a, value_b = _union(
            _parts(a_indices, a_values, a_shape), _parts(b_indices, b_values, b_shape))
        return _unravel(positions, shape), pick(value_a, value_b), _shape_tensor(shape,
                                                                                  positions)
    return body


_sparse_maximum = op(graph_name="SparseSparseMaximum")(_extremum(torch.maximum))
_sparse_minimum = op(graph_name="SparseSparseMinimum")(_extremum(torch.minimum))


@tf_export("sparse.maximum", v1=["sparse_maximum"])
def sparse_maximum(sp_a, sp_b, name=None):
    """Elementwise maximum of two SparseTensors of one shape (absent entries are 0)."""
    return SparseTensor(*_sparse_maximum(*_components(sp_a), *_components(sp_b)))


@tf_export("sparse.minimum", v1=["sparse_minimum"])
def sparse_minimum(sp_a, sp_b, name=None):
    """Elementwise minimum of two SparseTensors of one shape (absent entries are 0)."""
    return SparseTensor(*_sparse_minimum(*_components(sp_a), *_components(sp_b)))


@op(graph_name="SparseConcat")
def _sparse_concat(axis, *components):
    parts = [_parts(*components[i:i + 3]) for i in range(0, len(components), 3)]
    rank = len(parts[0][2])
    axis = _axis(axis, rank)
    shape, offset, indices, values = list(parts[0][2]), 0, [], []
    for idx, vals, part_shape in parts:
        if len(part_shape) != rank or any(part_shape[d] != shape[d] for d in range(rank)
                                          if d != axis):
            raise errors.InvalidArgumentError(
                "{op}: input shapes must match except along the concat axis: %s vs. %s"
                % (shape, part_shape))
        indices.append(idx + torch.nn.functional.one_hot(
            torch.tensor(axis), rank).to(idx.device) * offset)
        values.append(vals)
        offset += part_shape[axis]
    shape[axis] = offset
    idx, vals = torch.cat(indices), torch.cat(values)
    order = torch.argsort(_linear(idx, shape), stable=True)
    return idx[order], vals[order], _shape_tensor(shape, idx)


@tf_export(v2=["sparse.concat"])
def sparse_concat_v2(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """`tf.sparse.concat`: SparseTensors joined along `axis` (other dims must match)."""
    if expand_nonconcat_dims:
        raise NotImplementedError("tf.sparse.concat(expand_nonconcat_dims=True) is not "
                                  "implemented by tfcompat")
    return SparseTensor(*_sparse_concat(axis, *[c for sp in sp_inputs
                                                for c in _components(sp)]))


@tf_export(v1=["sparse.concat", "sparse_concat"])
def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None):
    """TF1 `tf.sparse_concat` (`concat_dim` is the old name of `axis`)."""
    return sparse_concat_v2(axis if axis is not None else concat_dim, sp_inputs,
                            expand_nonconcat_dim or bool(expand_nonconcat_dims))


@op(graph_name="SparseReshape")
def _sparse_reshape(indices, values, dense_shape, shape):
    idx, vals, old = _parts(indices, values, dense_shape)
    new = _as_ints(shape)
    total = int(np.prod(old))
    if new.count(-1) > 1:
        raise errors.InvalidArgumentError("{op}: only one output dimension may be -1")
    if -1 in new:
        known = int(np.prod([d for d in new if d != -1]))
        new[new.index(-1)] = total // known if known else 0
    if int(np.prod(new)) != total:
        raise errors.InvalidArgumentError(
            "{op}: Input to reshape is a tensor with %d dense values, but the requested shape "
            "has %d" % (total, int(np.prod(new))))
    return _unravel(_linear(idx, old), new), vals, _shape_tensor(new, idx)


@tf_export("sparse.reshape", v1=["sparse_reshape"])
def sparse_reshape(sp_input, shape, name=None):
    """`tf.sparse.reshape`: the same entries in a dense shape of as many elements (one -1
    inferred)."""
    return SparseTensor(*_sparse_reshape(*_components(sp_input), shape))


@op(graph_name="SparseRetain")
def _sparse_retain(indices, values, dense_shape, to_retain):
    idx, vals, shape = _parts(indices, values, dense_shape)
    keep = to_torch(to_retain).bool().to(idx.device)
    if keep.shape != (idx.shape[0],):
        raise ValueError("to_retain must have shape [%d], got %s"
                         % (idx.shape[0], list(keep.shape)))
    return idx[keep], vals[keep.to(vals.device)], to_torch(dense_shape)


@tf_export("sparse.retain", v1=["sparse_retain"])
def sparse_retain(sp_input, to_retain):
    """`tf.sparse.retain`: the entries whose `to_retain` flag is True."""
    return SparseTensor(*_sparse_retain(*_components(sp_input), to_retain))


@op(graph_name="SparseExpandDims")
def _sparse_expand_dims(indices, values, dense_shape, axis):
    idx, vals, shape = _parts(indices, values, dense_shape)
    at = _axis(axis, len(shape), extra=1)
    idx = torch.cat([idx[:, :at], idx.new_zeros((idx.shape[0], 1)), idx[:, at:]], 1)
    return idx, vals, _shape_tensor(shape[:at] + [1] + shape[at:], idx)


@tf_export("sparse.expand_dims")
def sparse_expand_dims(sp_input, axis=None, name=None):
    """`tf.sparse.expand_dims`: a dimension of size 1 inserted at `axis`."""
    return SparseTensor(*_sparse_expand_dims(*_components(sp_input), axis))


@tf_export("sparse.eye")
def sparse_eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    """`tf.sparse.eye`: ones on the main diagonal of a [num_rows, num_columns] SparseTensor."""
    rows = int(num_rows)
    columns = rows if num_columns is None else int(num_columns)
    diagonal = np.arange(min(rows, columns), dtype=np.int64)
    return SparseTensor(np.stack([diagonal, diagonal], 1).reshape(-1, 2),
                        convert_to_tensor(np.ones(diagonal.shape), dtype=dtype),
                        [rows, columns])


@op(graph_name="SparseReduceMax")
def _sparse_reduce_max(indices, values, dense_shape, axis, keepdims):
    idx, vals, shape = _parts(indices, values, dense_shape)
    dims = list(range(len(shape))) if axis is None else sorted(
        {_axis(a, len(shape)) for a in _as_ints(axis)})
    kept = [d for d in range(len(shape)) if d not in dims]
    out_shape = [shape[d] for d in kept]
    groups = _linear(idx[:, kept], out_shape) if kept else idx.new_zeros(idx.shape[0])
    lowest = torch.finfo(vals.dtype).min if vals.is_floating_point() else \
        torch.iinfo(vals.dtype).min
    out = vals.new_full((int(np.prod(out_shape)),), lowest).scatter_reduce(
        0, groups.to(vals.device), vals, "amax")
    present = torch.zeros(out.shape, dtype=torch.bool, device=vals.device)
    present[groups.to(vals.device)] = True
    out = torch.where(present, out, torch.zeros((), dtype=vals.dtype, device=vals.device))
    if keepdims:
        out_shape = [1 if d in dims else shape[d] for d in range(len(shape))]
    return out.reshape(out_shape)


@tf_export(v2=["sparse.reduce_max"])
def sparse_reduce_max_v2(sp_input, axis=None, keepdims=None, output_is_sparse=False,
                         name=None):
    """`tf.sparse.reduce_max`: the largest present entry over `axis` (absent entries do not
    count; a group with no entries gives 0), as a dense tensor."""
    if output_is_sparse:
        raise NotImplementedError("tf.sparse.reduce_max(output_is_sparse=True) is not "
                                  "implemented by tfcompat; use tf.sparse.from_dense on the "
                                  "dense result")
    return _sparse_reduce_max(*_components(sp_input), axis, keepdims)


@tf_export(v1=["sparse.reduce_max", "sparse_reduce_max"])
def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None):
    """TF1 `tf.sparse_reduce_max` (`reduction_axes`/`keep_dims` are the old names)."""
    return sparse_reduce_max_v2(sp_input, axis if axis is not None else reduction_axes,
                                keepdims if keepdims is not None else keep_dims)


@op(graph_name="SparseTranspose")
def _sparse_transpose(indices, values, dense_shape, perm):
    idx, vals, shape = _parts(indices, values, dense_shape)
    perm = list(range(len(shape)))[::-1] if perm is None else _as_ints(perm)
    idx, shape = idx[:, perm], [shape[p] for p in perm]
    order = torch.argsort(_linear(idx, shape), stable=True)
    return idx[order], vals[order.to(vals.device)], _shape_tensor(shape, idx)


@tf_export("sparse.transpose", v1=["sparse_transpose"])
def sparse_transpose(sp_input, perm=None, name=None):
    """`tf.sparse.transpose`: dimensions permuted (reversed by default), entries reordered."""
    return SparseTensor(*_sparse_transpose(*_components(sp_input), perm))


@op(graph_name="SparseFillEmptyRows")
def _sparse_fill_empty_rows(indices, values, dense_shape, default_value):
    idx, vals, shape = _parts(indices, values, dense_shape)
    rows = shape[0]
    empty = torch.ones(rows, dtype=torch.bool, device=idx.device)
    empty[idx[:, 0]] = False
    fill = torch.nonzero(empty).reshape(-1)
    first_column = torch.zeros(len(shape), dtype=torch.long, device=idx.device)
    first_column[0] = 1
    new_idx = torch.cat([idx, fill[:, None] * first_column])
    default = to_torch(default_value, dtypes.from_torch(vals.dtype)).to(vals.device)
    new_vals = torch.cat([vals, torch.zeros_like(fill, dtype=vals.dtype) + default])
    order = torch.argsort(new_idx[:, 0], stable=True)
    return new_idx[order], new_vals[order.to(vals.device)], to_torch(dense_shape), empty


@tf_export("sparse.fill_empty_rows", v1=["sparse_fill_empty_rows"])
def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """`tf.sparse.fill_empty_rows`: each row without entries gets `default_value` at column
    0; returns (the filled SparseTensor, which rows were empty)."""
    idx, vals, shape, empty = _sparse_fill_empty_rows(*_components(sp_input), default_value)
    return SparseTensor(idx, vals, shape), empty


@op(graph_name="SparseSlice")
def _sparse_slice(indices, values, dense_shape, start, size):
    idx, vals, shape = _parts(indices, values, dense_shape)
    start, size = _as_ints(start), _as_ints(size)
    size = [max(0, min(n, d - s)) for s, n, d in zip(start, size, shape)]
    low = torch.tensor(start, device=idx.device)
    inside = ((idx >= low) & (idx < low + torch.tensor(size, device=idx.device))).all(1)
    return idx[inside] - low, vals[inside.to(vals.device)], _shape_tensor(size, idx)


@tf_export("sparse.slice", v1=["sparse_slice"])
def sparse_slice(sp_input, start, size, name=None):
    """`tf.sparse.slice`: the entries within [start, start + size), shifted to the origin."""
    return SparseTensor(*_sparse_slice(*_components(sp_input), start, size))


@op(graph_name="SparseSoftmax")
def _sparse_softmax(indices, values, dense_shape):
    idx, vals, shape = _parts(indices, values, dense_shape)
    groups = _linear(idx[:, :-1], shape[:-1]).to(vals.device) if len(shape) > 1 else \
        torch.zeros(idx.shape[0], dtype=torch.long, device=vals.device)
    count = int(np.prod(shape[:-1]))
    top = vals.new_full((count,), -float("inf")).scatter_reduce(0, groups, vals, "amax")
    exp = torch.exp(vals - top[groups])
    return exp / exp.new_zeros((count,)).index_add(0, groups, exp)[groups]


@tf_export("sparse.softmax", v1=["sparse_softmax"])
def sparse_softmax(sp_input, name=None):
    """`tf.sparse.softmax`: softmax over the present entries of each innermost row."""
    return SparseTensor(sp_input.indices, _sparse_softmax(*_components(sp_input)),
                        sp_input.dense_shape)


def _sparse_segment(kind):
    def segment(data, indices, segment_ids, num_segments=None):
        d = to_torch(data)
        rows = d[to_torch(indices).long().to(d.device)]
        ids = to_torch(segment_ids).long().to(d.device)
        count = _sorted_num_segments(ids) if num_segments is None else int(num_segments)
        if kind == "sum":
            return _segment_reduce(rows, ids, count, "sum", 0)
        flat = rows.reshape(rows.shape[0], -1)
        sums = _segment_reduce(torch.cat([flat, flat.new_ones((flat.shape[0], 1))], 1), ids,
                               count, "sum", 0)
        n = sums[:, -1:]
        scale = torch.where(n > 0, n if kind == "mean" else torch.sqrt(n), torch.ones_like(n))
        return (sums[:, :-1] / scale).reshape((count,) + tuple(rows.shape[1:]))
    return segment


def _segment_op(kind, op_type, path, v1_name):
    body = _sparse_segment(kind)

    def sparse_segment(data, indices, segment_ids, num_segments=None, name=None):
        return body(data, indices, segment_ids, num_segments)
    sparse_segment.__name__ = sparse_segment.__qualname__ = v1_name
    sparse_segment.__doc__ = ("`tf.%s`: rows `data[indices]` reduced (%s) by sorted "
                              "`segment_ids` (the largest id + 1 segments unless "
                              "`num_segments`)." % (path, kind))
    return op(path, v1=[v1_name], graph_name=op_type)(sparse_segment)


sparse_segment_sum = _segment_op("sum", "SparseSegmentSum", "sparse.segment_sum",
                                 "sparse_segment_sum")
sparse_segment_mean = _segment_op("mean", "SparseSegmentMean", "sparse.segment_mean",
                                  "sparse_segment_mean")
sparse_segment_sqrt_n = _segment_op("sqrt_n", "SparseSegmentSqrtN", "sparse.segment_sqrt_n",
                                    "sparse_segment_sqrt_n")


@op(graph_name="SparseToIndicator")
def _sparse_to_indicator(indices, values, dense_shape, vocab_size):
    idx, vals, shape = _parts(indices, values, dense_shape)
    out = torch.zeros(shape[:-1] + [int(vocab_size)], dtype=torch.bool, device=idx.device)
    out[tuple(idx[:, :-1].unbind(1)) + (vals.long().to(idx.device),)] = True
    return out


@tf_export("sparse.to_indicator", v1=["sparse_to_indicator"])
def sparse_to_indicator(sp_input, vocab_size, name=None):
    """`tf.sparse.to_indicator`: a dense bool [..., vocab_size] marking each row's ids."""
    return _sparse_to_indicator(*_components(sp_input), vocab_size)


@tf_export("sparse.map_values")
def map_values(op, *args, **kwargs):
    """`tf.sparse.map_values`: `op` applied to the values of the SparseTensor arguments
    (which must share indices), keeping the first one's indices and shape."""
    sparse = [a for a in list(args) + list(kwargs.values()) if _is_sparse(a)]
    if not sparse:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = sparse[0]
    for other in sparse[1:]:
        same = type(first.indices) is EagerTensor and type(other.indices) is EagerTensor
        if same and not np.array_equal(first.indices.numpy(), other.indices.numpy()):
            raise errors.InvalidArgumentError("Inputs must have identical indices.")

    def values_of(value):
        return value.values if _is_sparse(value) else value
    result = op(*[values_of(a) for a in args], **{k: values_of(v) for k, v in kwargs.items()})
    return SparseTensor(first.indices, result, first.dense_shape)


@op(graph_name="SparseResetShape")
def _sparse_reset_shape(indices, values, dense_shape, new_shape):
    idx, vals, shape = _parts(indices, values, dense_shape)
    if new_shape is None:
        tight = idx.amax(0) + 1 if idx.shape[0] else torch.zeros(len(shape), dtype=torch.long)
        return idx, vals, tight.to(torch.int64)
    new = _as_ints(new_shape)
    if len(new) != len(shape):
        raise ValueError("new_shape must have rank %d, got %s" % (len(shape), new))
    if _concrete(idx) and idx.shape[0] and bool((idx.amax(0) >= torch.tensor(new)).any()):
        raise errors.InvalidArgumentError("Input indices should lie within new_shape %s" % new)
    return idx, vals, _shape_tensor(new, idx)


@tf_export("sparse.reset_shape", v1=["sparse_reset_shape"])
def sparse_reset_shape(sp_input, new_shape=None):
    """`tf.sparse.reset_shape`: the same entries in `new_shape` (at least their bounding
    box), or in their tight bounding box when None."""
    return SparseTensor(*_sparse_reset_shape(*_components(sp_input), new_shape))


@op(graph_name="SparseSplit")
def _sparse_split(indices, values, dense_shape, num_split, axis):
    shape = _as_ints(dense_shape)
    axis = _axis(axis, len(shape))
    base, longer = divmod(shape[axis], int(num_split))
    components, start = [], 0
    for i in range(int(num_split)):
        size = base + (1 if i < longer else 0)
        starts = [start if d == axis else 0 for d in range(len(shape))]
        sizes = [size if d == axis else shape[d] for d in range(len(shape))]
        components.extend(run_impl(_sparse_slice, indices, values, dense_shape, starts, sizes))
        start += size
    return tuple(components)


@tf_export(v2=["sparse.split"])
def sparse_split_v2(sp_input=None, num_split=None, axis=None, name=None):
    """`tf.sparse.split`: `num_split` SparseTensors along `axis`; the first (size %
    num_split) pieces are one longer, as TF's."""
    components = _sparse_split(*_components(sp_input), num_split, axis)
    return [SparseTensor(*components[i:i + 3]) for i in range(0, len(components), 3)]


@tf_export(v1=["sparse.split", "sparse_split"])
def sparse_split(keyword_required=None, sp_input=None, num_split=None, axis=None, name=None,
                 split_dim=None):
    """TF1 `tf.sparse.split` (`split_dim` is the old name of `axis`)."""
    return sparse_split_v2(sp_input, num_split, axis if axis is not None else split_dim)


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

    _tfcompat_tensor_is_new_ = True     # a dense tensor of its own (`variable_snapshot`)

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


# ---------------------------------------------------------------- edit distance


@tf_export("edit_distance")
def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """`tf.edit_distance`: the Levenshtein distance between the sequences of `hypothesis` and
    `truth` (SparseTensors; a sequence is the values sharing all but the last index, in
    order), float32 of the dense shape without its last dimension (each dimension the larger
    of the two). With `normalize`, divided by the truth's length: an empty truth gives inf
    against a non-empty hypothesis, and 0 when both are empty, as TF's kernel."""
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    hypothesis, truth = SparseTensor.from_value(hypothesis), SparseTensor.from_value(truth)
    if hypothesis.values.dtype != truth.values.dtype:
        raise errors.InvalidArgumentError(
            "cannot compute EditDistance as input #4(zero-based) was expected to be a %s "
            "tensor but is a %s tensor" % (_kernel_type_name(hypothesis.values.dtype),
                                           _kernel_type_name(truth.values.dtype)))
    rank = hypothesis.dense_shape.shape.as_list()[0]
    out_shape = TensorShape(None if rank is None else [None] * max(rank - 1, 0))

    def distances(h_indices, h_values, h_shape, t_indices, t_values, t_shape):
        return (_edit_distances(h_indices, h_values, h_shape, t_indices, t_values, t_shape,
                                normalize),)
    inputs = [hypothesis.indices, hypothesis.values, hypothesis.dense_shape,
              truth.indices, truth.values, truth.dense_shape]
    return run_op(distances, "EditDistance", inputs,
                  [(dtypes.float32, out_shape)], name)[0]


def _kernel_type_name(dtype):
    """A dtype as TF's kernels name it in messages (DataTypeString: float, double)."""
    return {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)


def _sequences(indices, values):
    """Index prefix (all but the last index) -> the values there, in order."""
    groups = collections.defaultdict(list)
    items = values.tolist()
    for prefix, value in zip(map(tuple, indices[:, :-1].tolist()), items):
        groups[prefix].append(value)
    return groups


def _levenshtein(source, target):
    previous = list(range(len(target) + 1))
    for i, item in enumerate(source, 1):
        current = [i]
        for j, other in enumerate(target, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (item != other)))
        previous = current
    return previous[-1]


def _edit_distances(h_indices, h_values, h_shape, t_indices, t_values, t_shape, normalize):
    """TF's EditDistance kernel on concrete components."""
    h_rank, t_rank = h_shape.numel(), t_shape.numel()
    if t_rank < 2:
        raise errors.InvalidArgumentError("Input SparseTensors must have rank at least 2, but "
                                          "truth_shape rank is: %d" % t_rank)
    if h_rank != t_rank:
        raise errors.InvalidArgumentError(
            "Expected truth and hypothesis to have matching ranks, but their shapes are: "
            "[%d] and [%d]" % (t_rank, h_rank))
    out_dims = [max(h, t) for h, t in zip(h_shape.tolist()[:-1], t_shape.tolist()[:-1])]
    hypotheses = _sequences(h_indices, h_values)
    truths = _sequences(t_indices, t_values)
    out = torch.zeros(out_dims, dtype=torch.float32)
    for prefix in set(hypotheses) | set(truths):
        hyp, tru = hypotheses.get(prefix, ()), truths.get(prefix, ())
        distance = float(_levenshtein(hyp, tru))
        if normalize and distance:
            distance = distance / len(tru) if tru else float("inf")
        out[prefix] = distance
    return out
