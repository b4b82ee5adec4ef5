"""`RaggedTensor.__getitem__` (TF's tensorflow/python/ops/ragged/ragged_getitem.py).

The outer dimension takes ints and slices (any step); a ragged dimension takes slices, which
cut every row as Python slices a list, and an int only when its rows have a uniform length
(TF: "Cannot index into an inner ragged dimension."). The uniform inner dimensions of the
values take whatever a Tensor takes. Ellipsis and tf.newaxis are not implemented.
Every index is a Python int, or a scalar int tensor whose value is known (eager mode).
"""
import builtins

import numpy as np
import torch

from tfcompat.framework import errors
from tfcompat.framework.ops import op, to_torch
from tfcompat.framework.tensor import EagerTensor, Tensor
from tfcompat.ops.ragged.ragged_tensor import (RaggedTensor, _concrete, _lengths, _rowids,
                                               _splits_of_lengths, _static_size, _take)


@op(graph_name="RaggedGatherRows")
def _gather_rows_op(row_splits, row_indices):
    """New row splits, and the index of each of their values, for rows `row_indices`."""
    splits = to_torch(row_splits)
    rows = to_torch(row_indices).to(splits.device).long()
    lengths = _lengths(splits)[rows]
    new_splits = _splits_of_lengths(lengths)
    rowids = _rowids(new_splits)
    value_indices = splits[rows][rowids] + (torch.arange(rowids.shape[0], dtype=splits.dtype,
                                                         device=splits.device)
                                            - new_splits[rowids])
    return new_splits, value_indices


@op(graph_name="RaggedSliceRows")
def _slice_within_rows_op(row_splits, start, stop, step):
    """New row splits and value indices for `row[start:stop:step]` of every row."""
    splits = to_torch(row_splits)
    if not _concrete(splits):
        raise NotImplementedError("Slicing the ragged dimension of a RaggedTensor in a graph "
                                  "(rt[:, a:b]) is not implemented by tfcompat")
    positions = [torch.arange(length, device=splits.device)[builtins.slice(start, stop, step)]
                 for length in _lengths(splits).tolist()]
    lengths = torch.tensor([len(p) for p in positions], dtype=splits.dtype)
    starts = splits[:-1]
    value_indices = torch.cat([s + p for s, p in zip(starts, positions)]) if positions else \
        splits.new_zeros(0)
    return _splits_of_lengths(lengths), value_indices.to(splits.dtype)


@op(graph_name="GatherV2")
def _take_op(values, indices):
    return _take(to_torch(values), to_torch(indices).long())


def _gather_rows(rt, row_indices):
    """The RaggedTensor of rows `row_indices` (a 1-D int tensor) of `rt`."""
    new_splits, value_indices = _gather_rows_op(rt.row_splits, row_indices)
    return RaggedTensor(_gather(rt.values, value_indices), new_splits, internal=True,
                        uniform_row_length=rt.uniform_row_length)


def _gather(values, indices):
    if isinstance(values, RaggedTensor):
        return _gather_rows(values, indices)
    return _take_op(values, indices)


def _index_value(index):
    """A Python int from an int index (an int tensor's known value)."""
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        return int(index)
    if type(index) is EagerTensor and index.shape.rank == 0 and index.dtype.is_integer:
        return int(index)
    if isinstance(index, Tensor):
        raise NotImplementedError("RaggedTensor.__getitem__ with an index tensor whose value "
                                  "is not known (graph mode) is not implemented by tfcompat")
    raise TypeError("RaggedTensor indices must be integers or slices, got %r" % (index,))


def _slice_bounds(key):
    return tuple(None if part is None else _index_value(part)
                 for part in (key.start, key.stop, key.step))


def _nrows(rt):
    nrows = _static_size(rt.row_splits)
    if nrows is None:
        raise NotImplementedError("RaggedTensor.__getitem__ on a RaggedTensor whose number of "
                                  "rows is not known (graph mode) is not implemented by "
                                  "tfcompat")
    return nrows - 1


def _outer(rt, key):
    """`rt[key]` for one int or slice on the outer dimension."""
    nrows = _nrows(rt)
    if isinstance(key, builtins.slice):
        rows = range(nrows)[builtins.slice(*_slice_bounds(key))]
        return _gather_rows(rt, torch.tensor(list(rows), dtype=torch.int64))
    index = _index_value(key)
    if not -nrows <= index < nrows:
        raise errors.InvalidArgumentError("slice index %d of dimension 0 out of bounds." % index)
    return _gather_rows(rt, torch.tensor([index % nrows], dtype=torch.int64)).values


def _inner(value, keys):
    """`value[:, keys...]`: `keys` applied to the dimensions after the outer one."""
    if not keys:
        return value
    if not isinstance(value, RaggedTensor):
        return value[(builtins.slice(None),) + keys]
    key, rest = keys[0], keys[1:]
    if isinstance(key, builtins.slice):
        start, stop, step = _slice_bounds(key)
        if step == 0:
            raise ValueError("slice step cannot be zero")
        new_splits, value_indices = _slice_within_rows_op(value.row_splits, start, stop, step)
        return RaggedTensor(_inner(_gather(value.values, value_indices), rest), new_splits,
                            internal=True)
    width = value.uniform_row_length
    if width is None or type(width) is not EagerTensor:
        raise ValueError("Cannot index into an inner ragged dimension.")
    index, width = _index_value(key), int(width)
    if not -width <= index < width:
        raise errors.InvalidArgumentError("slice index %d of dimension 1 out of bounds." % index)
    _, value_indices = _slice_within_rows_op(value.row_splits, index % width,
                                             index % width + 1, None)
    return _inner(_gather(value.values, value_indices), rest)


def ragged_tensor_getitem(rt_input, key):
    """`rt[key]`, as TF's RaggedTensor.__getitem__ for ints and slices (see module doc)."""
    keys = key if isinstance(key, tuple) else (key,)
    if any(k is Ellipsis or k is None for k in keys):
        raise NotImplementedError("RaggedTensor.__getitem__ with Ellipsis or tf.newaxis is not "
                                  "implemented by tfcompat")
    rank = rt_input.shape.rank
    if rank is not None and len(keys) > rank:
        raise ValueError("Too many indices for RaggedTensor")
    if not keys:
        return rt_input
    first = _outer(rt_input, keys[0])
    if isinstance(keys[0], builtins.slice):
        return _inner(first, keys[1:])
    return first[keys[1:]] if len(keys) > 1 else first


RaggedTensor.__getitem__ = ragged_tensor_getitem
