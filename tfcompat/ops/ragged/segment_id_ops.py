"""`tf.ragged.row_splits_to_segment_ids` / `segment_ids_to_row_splits` (TF's
tensorflow/python/ops/ragged/segment_id_ops.py)."""

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors
from tfcompat.framework.ops import convert_to_tensor, op, to_torch
from tfcompat.ops.ragged.ragged_tensor import (_concrete, _counts, _rowids, _splits_of_lengths,
                                               _symbolic_size)


def _int_vector(value, what, dtype_hint):
    t = convert_to_tensor(value, dtype_hint=dtype_hint)
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError("%s must have dtype int32 or int64, got %s" % (what, t.dtype.name))
    if t.shape.rank not in (None, 1):
        raise ValueError("Shape must be rank 1 but is rank %d for '%s'" % (t.shape.rank, what))
    return t


@op(graph_name="RaggedRowSplitsToSegmentIds")
def _segment_ids_op(splits, out_type):
    return _rowids(to_torch(splits)).to(out_type.torch_dtype)


@op(graph_name="RaggedSegmentIdsToRowSplits")
def _row_splits_op(segment_ids, num_segments, out_type):
    ids = to_torch(segment_ids).long()
    if num_segments is None:
        count = ids[-1] + 1 if ids.shape[0] else ids.new_zeros(())
    else:
        count = to_torch(num_segments).long()
    n = int(count) if _concrete(ids) else _symbolic_size(count)
    if _concrete(ids) and ids.shape[0] and (int(ids.min()) < 0 or int(ids.max()) >= n):
        raise errors.InvalidArgumentError("segment_ids must be in [0, num_segments=%d), got %s"
                                          % (n, ids.tolist()))
    counts = _counts(ids, n)
    return _splits_of_lengths(counts).to(out_type.torch_dtype)


@tf_export("ragged.row_splits_to_segment_ids")
def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value for row `splits` (`[0, 3, 3, 5]` -> `[0, 0, 0, 2, 2]`), as
    `out_type` (default: the splits' dtype)."""
    splits = _int_vector(splits, "splits", dtypes.int64)
    out_type = splits.dtype if out_type is None else dtypes.as_dtype(out_type)
    return _segment_ids_op(splits, out_type)


@tf_export("ragged.segment_ids_to_row_splits")
def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """Row splits for sorted `segment_ids` (`[0, 0, 0, 2, 2]` -> `[0, 3, 3, 5]`), with
    `num_segments` rows (default: the last id + 1), as `out_type` (default int64)."""
    segment_ids = _int_vector(segment_ids, "segment_ids", dtypes.int64)
    out_type = dtypes.int64 if out_type is None else dtypes.as_dtype(out_type)
    return _row_splits_op(segment_ids, num_segments, out_type)
