"""`tf.ragged.stack`, and `tf.concat` / `tf.stack` of lists holding RaggedTensors (TF's
tensorflow/python/ops/ragged/ragged_concat_ops.py).

As in TF: dense inputs are converted to RaggedTensors (rank-1 ones stacked on axis 0 give
a RaggedTensor of them), all inputs are brought to one ragged rank, and then axis 0 joins
the rows, axis 1 joins row i of every input into row i, and a deeper axis recurses into the
values (the row splits must then be identical). `tf.shape` of a RaggedTensor is TF's
DynamicRaggedShape, which is not implemented: it raises NotImplementedError.
"""
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors
from tfcompat.framework.ops import convert_to_tensor, op, to_torch
from tfcompat.ops import array_ops
from tfcompat.ops.ragged.ragged_getitem import _gather
from tfcompat.ops.ragged.ragged_tensor import (RaggedTensor, _lengths, _rowids, _same_splits_op,
                                               _splits_of_lengths)
from tfcompat.util import dispatch


@op(graph_name="RaggedConcatRowSplits")
def _concat_row_splits_op(nested_splits):
    """Row splits of the rows of every input, one after the other (axis 0)."""
    parts = [to_torch(s) for s in nested_splits]
    out, offset = [parts[0]], parts[0][-1]
    for splits in parts[1:]:
        out.append(splits[1:] + offset)
        offset = offset + splits[-1]
    return torch.cat(out)


@op(graph_name="RaggedInterleaveRows")
def _interleave_rows_op(nested_splits):
    """Axis 1: row splits of row i of every input joined, and where each value of the
    result is in the inputs' values concatenated."""
    parts = [to_torch(s) for s in nested_splits]
    if any(s.shape[0] != parts[0].shape[0] for s in parts):
        raise errors.InvalidArgumentError(
            "Input tensors have incompatible shapes: their numbers of rows are %s"
            % [s.shape[0] - 1 for s in parts])
    bases = torch.cumsum(torch.stack([s[-1] for s in parts]), 0) - torch.stack(
        [s[-1] for s in parts])
    lengths = torch.stack([_lengths(s) for s in parts], 1)
    starts = torch.stack([s[:-1] + base for s, base in zip(parts, bases)], 1)
    pieces = _splits_of_lengths(lengths.reshape(-1))
    piece = _rowids(pieces)
    index = starts.reshape(-1)[piece] + torch.arange(piece.shape[0], dtype=pieces.dtype,
                                                     device=pieces.device) - pieces[piece]
    return _splits_of_lengths(lengths.sum(1)), index


def _concat_values(values, axis):
    if any(isinstance(v, RaggedTensor) for v in values):
        return _concat(values, axis)
    return array_ops.concat(values, axis)


def _concat(rts, axis):
    """Concatenate RaggedTensors of one ragged rank along `axis` (>= 0)."""
    if axis == 0:
        return RaggedTensor(_concat_values([rt.values for rt in rts], 0),
                            _concat_row_splits_op([rt.row_splits for rt in rts]),
                            internal=True)
    if axis == 1:
        splits, index = _interleave_rows_op([rt.row_splits for rt in rts])
        return RaggedTensor(_gather(_concat_values([rt.values for rt in rts], 0), index),
                            splits, internal=True)
    splits = rts[0].row_splits
    for rt in rts[1:]:
        if rt.row_splits is not splits:
            splits = _same_splits_op(splits, rt.row_splits)
    return RaggedTensor(_concat_values([rt.values for rt in rts], axis - 1), splits,
                        internal=True)


def _increase_ragged_rank(value, ragged_rank, splits_dtype):
    """TF's `_increase_ragged_rank_to`: dense dims made (uniformly) ragged."""
    if not isinstance(value, RaggedTensor):
        value = RaggedTensor.from_tensor(value, row_splits_dtype=splits_dtype)
    if value.ragged_rank < ragged_rank:
        value = value.with_values(_increase_ragged_rank(value.values, ragged_rank - 1,
                                                        splits_dtype))
    return value


def _stack_or_concat(values, axis, stack_values):
    """TF's `_ragged_stack_concat_helper`."""
    if not isinstance(values, (list, tuple)) or not values:
        raise ValueError("values must be a non-empty list of Tensors or RaggedTensors")
    values = [v if isinstance(v, RaggedTensor) else convert_to_tensor(v) for v in values]
    if len({v.dtype for v in values}) > 1:
        raise ValueError("Input tensors have incompatible dtypes: %s"
                         % [v.dtype.name for v in values])
    splits_dtypes = {v.row_splits.dtype for v in values if isinstance(v, RaggedTensor)}
    if len(splits_dtypes) > 1:
        raise ValueError("Input RaggedTensors have mismatched row_splits dtypes; use "
                         "RaggedTensor.with_row_splits_dtype() to convert them to "
                         "compatible dtypes.")
    splits_dtype = splits_dtypes.pop() if splits_dtypes else dtypes.int64
    if len(values) == 1 and not stack_values:
        return values[0]
    ranks = {v.shape.rank for v in values}
    if len(ranks) > 1 or None in ranks:
        raise ValueError("Input tensors must have one known rank, got ranks %s"
                         % sorted(ranks, key=str))
    ndims = ranks.pop()
    out_ndims = ndims + 1 if stack_values else ndims
    axis = int(axis)
    if not -out_ndims <= axis < out_ndims:
        raise ValueError("axis=%d out of bounds: expected %d<=axis<%d"
                         % (axis, -out_ndims, out_ndims))
    axis = axis + out_ndims if axis < 0 else axis
    if stack_values and ndims == 1 and axis == 0:
        lengths = array_ops.concat([array_ops.shape(v, out_type=splits_dtype)
                                    for v in values], 0)
        return RaggedTensor.from_row_lengths(array_ops.concat(values, 0), lengths,
                                             validate=False)
    if not any(isinstance(v, RaggedTensor) for v in values) and \
            axis in (out_ndims - 1, ndims - 1):
        return (array_ops.stack if stack_values else array_ops.concat)(values, axis)
    ragged_rank = max([1] + [v.ragged_rank for v in values if isinstance(v, RaggedTensor)])
    rts = [_increase_ragged_rank(v, ragged_rank, splits_dtype) for v in values]
    if stack_values:
        if axis == 0:
            joined = _concat(rts, 0)
            nrows = array_ops.stack([rt.nrows() for rt in rts])
            return RaggedTensor.from_row_lengths(joined, nrows, validate=False)
        rts = [_expanded_at(rt, axis) for rt in rts]
    return _concat(rts, axis)


def _expanded_at(rt, axis):
    """`rt` with a new dimension of size 1 at `axis` (>= 1): each row at that depth becomes
    a row holding only it."""
    if axis > 1:
        return rt.with_values(_expanded_at(rt.values, axis - 1)) \
            if isinstance(rt.values, RaggedTensor) else \
            rt.with_values(array_ops.expand_dims(rt.values, axis - 1))
    nrows = rt.nrows()
    return RaggedTensor(rt, _unit_splits_op(nrows), internal=True)


@op(graph_name="RaggedUnitRowSplits")
def _unit_splits_op(nrows):
    n = to_torch(nrows)
    return torch.arange(n.item() + 1 if n.ndim == 0 else 1, dtype=n.dtype, device=n.device)


@tf_export("ragged.stack")
def stack(values, axis=0, name=None):
    """`tf.ragged.stack`: `values` (RaggedTensors or Tensors of one rank) stacked along a new
    dimension `axis`; a RaggedTensor (or a Tensor when all are dense and the axis is the
    last), as in TF."""
    return _stack_or_concat(values, axis, stack_values=True)


@dispatch.dispatch_for_types(array_ops.concat, RaggedTensor)
def concat(values, axis, name=None):
    """`tf.concat` of a list holding a RaggedTensor."""
    return _stack_or_concat(values, axis, stack_values=False)


@dispatch.dispatch_for_types(array_ops.stack, RaggedTensor)
def stack_dispatch(values, axis=0, name="stack"):
    """`tf.stack` of a list holding a RaggedTensor."""
    return _stack_or_concat(values, axis, stack_values=True)


@dispatch.dispatch_for_types(array_ops.shape, RaggedTensor)
@dispatch.dispatch_for_types(array_ops.shape_v1, RaggedTensor)
def shape(input, *args, **kwargs):  # noqa: A002 - TF's name
    """`tf.shape` of a RaggedTensor is a DynamicRaggedShape in TF, which tfcompat lacks."""
    raise NotImplementedError(
        "tf.shape of a RaggedTensor (TF's tf.experimental.DynamicRaggedShape) is not "
        "implemented by tfcompat; use rt.shape (static), rt.nrows(), rt.row_lengths() or "
        "rt.bounding_shape()")
