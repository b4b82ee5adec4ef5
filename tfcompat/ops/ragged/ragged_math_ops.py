"""`tf.ragged.range` and the reductions of RaggedTensors (TF's
tensorflow/python/ops/ragged/ragged_math_ops.py).

`tf.math.reduce_sum/prod/min/max/mean/all/any` dispatch here for a RaggedTensor, as in TF:
axis None reduces the flat values; axis 0 combines the rows position by position and axis 1
each row (unsorted segment ops, so an empty row gives the op's identity: 0, 1, the dtype's
max/min, NaN for the mean); a deeper axis reduces inside the values. Reducing the ragged
axes 0 and 1 of a tensor with more than one ragged dimension is not implemented.
"""
import builtins

import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors
from tfcompat.framework.ops import convert_to_tensor, op, to_torch
from tfcompat.ops import array_ops, math_ops
from tfcompat.ops.ragged.ragged_functional_ops import map_flat_values
from tfcompat.ops.ragged.ragged_tensor import (RaggedTensor, _as_row_splits_dtype, _concrete,
                                               _longest_op, _rowids, _splits_of_lengths)
from tfcompat.util import dispatch

_RANGE_DTYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


# ---------------------------------------------------------------- tf.ragged.range


@op(graph_name="RaggedRange")
def _range_op(starts, limits, deltas, splits_dtype):
    start, limit, delta = torch.broadcast_tensors(*(to_torch(x) for x in (starts, limits, deltas)))
    if start.ndim > 1:
        raise errors.InvalidArgumentError("starts, limits and deltas must be scalars or vectors")
    start, limit, delta = (x.reshape(-1) for x in (start, limit, delta))
    if _concrete(delta) and bool((delta == 0).any()):
        raise errors.InvalidArgumentError("Requires delta != 0")
    sizes = torch.ceil((limit - start).double() / delta.double()).clamp(min=0).long()
    splits = _splits_of_lengths(sizes)
    rowids = _rowids(splits)
    steps = torch.arange(rowids.shape[0], device=splits.device) - splits[rowids]
    values = start[rowids] + steps.to(start.dtype) * delta[rowids]
    return splits.to(splits_dtype.torch_dtype), values


@tf_export("ragged.range")
def range(starts, limits=None, deltas=1, dtype=None, name=None,  # noqa: A001 - TF's name
          row_splits_dtype=dtypes.int64):
    """`tf.ragged.range`: row i is `range(starts[i], limits[i], deltas[i])` (scalars
    broadcast; one argument gives the limits, starting at 0)."""
    splits_dtype = _as_row_splits_dtype(row_splits_dtype)
    if limits is None:
        starts, limits = 0, starts
    args = [convert_to_tensor(x, dtype=dtype) for x in (starts, limits, deltas)]
    if any(a.dtype not in _RANGE_DTYPES for a in args):
        raise TypeError("tf.ragged.range needs int32, int64, float32 or float64 arguments")
    common = max((a.dtype for a in args), key=_RANGE_DTYPES.index)
    args = [a if a.dtype == common else math_ops.cast(a, common) for a in args]
    splits, values = _range_op(*args, splits_dtype)
    return RaggedTensor.from_row_splits(values, splits, validate=False)


# ---------------------------------------------------------------- reductions


def _positive_axis(axis, rank):
    if rank is not None and not -rank <= axis < rank:
        raise ValueError("axis=%d out of bounds: expected %d<=axis<%d" % (axis, -rank, rank))
    if axis < 0:
        if rank is None:
            raise ValueError("axis may only be negative if ndims is statically known.")
        axis += rank
    return axis


def _axis_value(axis):
    if hasattr(axis, "numpy"):
        axis = axis.numpy().tolist()
    return axis


def _reduce(reduce_op, segment_op, rt, axis, keepdims):
    """TF's ragged_reduce_aggregate for `reduce_op` (dense) / `segment_op` (unsorted)."""
    if not isinstance(rt, RaggedTensor):
        return reduce_op(rt, axis, keepdims=keepdims)
    axis = _axis_value(axis)
    if axis is None:
        result = reduce_op(rt.flat_values, None, keepdims=keepdims)
        for _ in builtins.range(rt.shape.rank - 1 if keepdims else 0):
            result = array_ops.expand_dims(result, 0)
        return result
    if isinstance(axis, (list, tuple)):
        if not axis:
            return rt
        axes = sorted(_positive_axis(a, rt.shape.rank) for a in axis)
        inner = _reduce(reduce_op, segment_op, rt, axes[-1], keepdims)
        return _reduce(reduce_op, segment_op, inner, axes[:-1], keepdims)
    axis = _positive_axis(int(axis), rt.shape.rank)
    if axis > 1:
        return rt.with_values(_reduce(reduce_op, segment_op, rt.values, axis - 1, keepdims))
    if isinstance(rt.values, RaggedTensor):
        raise NotImplementedError(
            "Reducing axis %d of a RaggedTensor with ragged_rank > 1 is not implemented by "
            "tfcompat (reduce an inner axis, or axis=None)" % axis)
    if axis == 0:
        lengths = rt.row_lengths()
        result = segment_op(rt.values, _position_in_row_op(rt.row_splits, rt.values),
                            _longest_op(lengths, lengths.dtype))
    else:
        result = segment_op(rt.values, rt.value_rowids(), rt.nrows())
    return array_ops.expand_dims(result, axis) if keepdims else result


@op(graph_name="RaggedPositionInRow")
def _position_in_row_op(row_splits, values):
    """The column of each value in its row (sized like `values`, see `_rowids`)."""
    splits = to_torch(row_splits)
    rowids = _rowids(splits, to_torch(values).shape[0])
    return torch.arange(rowids.shape[0], dtype=splits.dtype, device=splits.device) - \
        splits[rowids]


@dispatch.dispatch_for_types(math_ops.reduce_sum, RaggedTensor)
def reduce_sum(input_tensor, axis=None, keepdims=None, name=None):
    """tf.reduce_sum of a RaggedTensor (empty rows sum to 0)."""
    return _reduce(math_ops.reduce_sum, math_ops.unsorted_segment_sum, input_tensor, axis,
                   keepdims)


@dispatch.dispatch_for_types(math_ops.reduce_prod, RaggedTensor)
def reduce_prod(input_tensor, axis=None, keepdims=None, name=None):
    """tf.reduce_prod of a RaggedTensor (empty rows give 1)."""
    return _reduce(math_ops.reduce_prod, math_ops.unsorted_segment_prod, input_tensor, axis,
                   keepdims)


@dispatch.dispatch_for_types(math_ops.reduce_min, RaggedTensor)
def reduce_min(input_tensor, axis=None, keepdims=None, name=None):
    """tf.reduce_min of a RaggedTensor (empty rows give the dtype's max)."""
    return _reduce(math_ops.reduce_min, math_ops.unsorted_segment_min, input_tensor, axis,
                   keepdims)


@dispatch.dispatch_for_types(math_ops.reduce_max, RaggedTensor)
def reduce_max(input_tensor, axis=None, keepdims=None, name=None):
    """tf.reduce_max of a RaggedTensor (empty rows give the dtype's min)."""
    return _reduce(math_ops.reduce_max, math_ops.unsorted_segment_max, input_tensor, axis,
                   keepdims)


@dispatch.dispatch_for_types(math_ops.reduce_mean, RaggedTensor)
def reduce_mean(input_tensor, axis=None, keepdims=None, name=None):
    """tf.reduce_mean of a RaggedTensor: sum / count with `/`, so integers give float64 and
    empty rows NaN, as in TF."""
    total = reduce_sum(input_tensor, axis, keepdims)
    ones = map_flat_values(array_ops.ones_like, input_tensor)
    count = reduce_sum(ones, axis, keepdims)
    if isinstance(total, RaggedTensor):
        return total.with_flat_values(total.flat_values / count.flat_values)
    return total / count


def _cast(value, dtype):
    return map_flat_values(math_ops.cast, value, dtype)


@dispatch.dispatch_for_types(math_ops.reduce_all, RaggedTensor)
def reduce_all(input_tensor, axis=None, keepdims=None, name=None):
    """tf.reduce_all of a RaggedTensor (empty rows give True)."""
    return _cast(reduce_prod(_cast(input_tensor, dtypes.int32), axis, keepdims), dtypes.bool)


@dispatch.dispatch_for_types(math_ops.reduce_any, RaggedTensor)
def reduce_any(input_tensor, axis=None, keepdims=None, name=None):
    """tf.reduce_any of a RaggedTensor (empty rows give False)."""
    return _cast(reduce_sum(_cast(input_tensor, dtypes.int32), axis, keepdims), dtypes.bool)
