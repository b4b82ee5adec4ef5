"""`tf.ragged.boolean_mask`, and `tf.boolean_mask` of a RaggedTensor (TF's
tensorflow/python/ops/ragged/ragged_array_ops.py).

The mask's shape is a prefix of the data's: a 1-D mask keeps whole rows, a deeper (dense or
ragged) mask drops elements of its innermost dimension, so that dimension becomes ragged.
Dense data is made ragged first, as TF does; ragged data and mask must share row splits.
"""
from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.framework.ops import convert_to_tensor
from tfcompat.ops import array_ops, math_ops
from tfcompat.ops.ragged.ragged_getitem import _gather_rows
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor, _same_splits_op
from tfcompat.util import dispatch


def _as_mask(mask):
    if not isinstance(mask, RaggedTensor):
        mask = convert_to_tensor(mask, dtype_hint=dtypes.bool)
    if mask.dtype != dtypes.bool:
        raise ValueError("mask.dtype=%s is not bool" % mask.dtype.name)
    if mask.shape.rank is None or mask.shape.rank == 0:
        raise ValueError("mask.shape.ndims must be known statically and > 0")
    return mask


def _masked(data, mask):
    """`data` (a RaggedTensor sharing `mask`'s row splits) masked by a ragged `mask`."""
    splits = data.row_splits if data.row_splits is mask.row_splits else \
        _same_splits_op(data.row_splits, math_ops.cast(mask.row_splits, data.row_splits.dtype))
    if isinstance(mask.values, RaggedTensor):
        return RaggedTensor(_masked(data.values, mask.values), splits, internal=True)
    kept = boolean_mask(data.values, mask.values)
    lengths = math_ops.unsorted_segment_sum(math_ops.cast(mask.values, splits.dtype),
                                            mask.value_rowids(), mask.nrows())
    return RaggedTensor.from_row_lengths(kept, lengths, validate=False)


@tf_export("ragged.boolean_mask")
def boolean_mask(data, mask, name=None):
    """`tf.ragged.boolean_mask`: the elements of `data` where `mask` is True (see the module
    doc); a RaggedTensor unless both are dense and `mask` is 1-D."""
    mask = _as_mask(mask)
    if not isinstance(data, RaggedTensor):
        data = convert_to_tensor(data)
    if data.shape.rank is not None and data.shape.rank < mask.shape.rank:
        raise ValueError("Shapes %s and %s are incompatible (mask must be a prefix of data's "
                         "shape)" % (data.shape, mask.shape))
    if not isinstance(mask, RaggedTensor):
        if mask.shape.rank == 1:
            if not isinstance(data, RaggedTensor):
                return array_ops.boolean_mask(data, mask)
            rows = array_ops.reshape(array_ops.where_v2(mask), [-1])
            return _gather_rows(data, rows)
        mask = RaggedTensor.from_tensor(mask, ragged_rank=mask.shape.rank - 1)
    if not isinstance(data, RaggedTensor):
        data = RaggedTensor.from_tensor(data, ragged_rank=mask.ragged_rank)
    if data.ragged_rank < mask.ragged_rank:
        raise ValueError("The mask has more ragged dimensions than the data")
    return _masked(data, mask)


def _from_axis_0(tensor, mask, axis):
    if axis not in (None, 0):
        raise NotImplementedError("tf.boolean_mask of a RaggedTensor with axis != 0 is not "
                                  "implemented by tfcompat")
    return boolean_mask(tensor, mask)


@dispatch.dispatch_for_types(array_ops.boolean_mask, RaggedTensor)
def boolean_mask_dispatch(tensor, mask, axis=None, name=None):
    """TF2 `tf.boolean_mask` of a RaggedTensor (from axis 0, as TF's ragged version)."""
    return _from_axis_0(tensor, mask, axis)


@dispatch.dispatch_for_types(array_ops.boolean_mask_v1, RaggedTensor)
def boolean_mask_v1_dispatch(tensor, mask, name=None, axis=None):
    """TF1 `tf.boolean_mask` of a RaggedTensor (from axis 0, as TF's ragged version)."""
    return _from_axis_0(tensor, mask, axis)
