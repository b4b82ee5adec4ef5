"""`tf.ragged.constant` (TF's tensorflow/python/ops/ragged/ragged_factory_ops.py)."""
import numpy as np

from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.framework.constant_op import constant as _dense_constant
from tfcompat.framework.ops import convert_to_tensor
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor, _as_row_splits_dtype


def _is_list(value):
    return isinstance(value, (list, tuple)) or np.ndim(value) != 0


def _scalar_and_max_depth(pylist):
    """TF's `_find_scalar_and_max_depth`: the depth of the scalars (None if there are none)
    and the deepest list nesting; scalars at different depths raise ValueError."""
    if not _is_list(pylist):
        return 0, 0
    scalar_depth, max_depth = None, 1
    for child in pylist:
        child_scalar_depth, child_max_depth = _scalar_and_max_depth(child)
        if child_scalar_depth is not None:
            if scalar_depth is not None and scalar_depth != child_scalar_depth + 1:
                raise ValueError("all scalar values must have the same nesting depth")
            scalar_depth = child_scalar_depth + 1
        max_depth = max(max_depth, child_max_depth + 1)
    return scalar_depth, max_depth


def _default_inner_shape(pylist, ragged_rank):
    """TF's `_default_inner_shape_for_pylist`: the uniform shape below the ragged dims."""
    flat = pylist
    for dim in range(ragged_rank):
        if not all(_is_list(v) for v in flat):
            raise ValueError("pylist has scalar values depth %d, but ragged_rank=%d requires "
                             "scalar value depth greater than %d"
                             % (dim + 1, ragged_rank, ragged_rank))
        flat = [item for v in flat for item in v]

    def inner_shape(item):
        if not _is_list(item):
            return ()
        return (len(item),) + inner_shape(item[0]) if len(item) else (0,)

    def check(item, shape):
        if _is_list(item) != bool(shape) or (shape and shape[0] != len(item)):
            raise ValueError("inner values have inconsistent shape")
        for child in (item if shape else ()):
            check(child, shape[1:])

    shape = inner_shape(flat)
    check(flat, shape)
    return shape[1:]


def _inner_values(values, dtype, shape):
    """The flat values as a tensor of `shape` (TF gives an empty list float32)."""
    if dtype is None and not values:
        dtype = dtypes.float32
    if shape is not None and len(shape) > 1 and not values:
        return _dense_constant(np.zeros(shape, dtype=(dtype or dtypes.float32).as_numpy_dtype),
                               dtype)
    return _dense_constant(values, dtype, shape)


@tf_export("ragged.constant")
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=dtypes.int64):
    """`tf.ragged.constant`: a RaggedTensor from a nested Python list, as TF builds it.

    The scalars must all be at one depth; `ragged_rank` (default: all dims but the
    innermost `inner_shape` are ragged) and `inner_shape` follow TF's rules, and a list of
    depth < 2 gives a plain Tensor, as in TF.
    """
    splits_dtype = _as_row_splits_dtype(row_splits_dtype)
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(pylist, RaggedTensor):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    if not _is_list(pylist):
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError("Invalid pylist=%r: incompatible with ragged_rank=%d"
                             % (pylist, ragged_rank))
        if inner_shape:
            raise ValueError("Invalid pylist=%r: incompatible with dim(inner_shape)=%d"
                             % (pylist, len(inner_shape)))
        return _inner_values(pylist, dtype, ())
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError("Invalid ragged_rank=%r: must be nonnegative" % (ragged_rank,))
    scalar_depth, max_depth = _scalar_and_max_depth(pylist)
    if scalar_depth is not None:
        if max_depth > scalar_depth:
            raise ValueError("Invalid pylist=%r: empty list nesting is greater than scalar "
                             "value nesting" % (pylist,))
        if ragged_rank is not None and max_depth < ragged_rank:
            raise ValueError("Invalid pylist=%r, max depth smaller than ragged_rank=%d"
                             % (pylist, ragged_rank))
    if inner_shape is not None and ragged_rank is not None:
        expected = ragged_rank + len(inner_shape) + 1
        if (scalar_depth is not None and expected != scalar_depth) or \
                (scalar_depth is None and expected < max_depth):
            raise ValueError("Invalid pylist=%r: incompatible with ragged_rank=%d and "
                             "dim(inner_shape)=%d" % (pylist, ragged_rank, len(inner_shape)))
    if ragged_rank == 0 or (ragged_rank is None and (
            max_depth < 2 or (inner_shape is not None and max_depth - len(inner_shape) < 2))):
        return _inner_values(pylist, dtype, inner_shape)
    if inner_shape is None:
        inner_shape = () if ragged_rank is None else _default_inner_shape(pylist, ragged_rank)
    inner_shape = tuple(inner_shape)
    if ragged_rank is None:
        ragged_rank = max(1, (max_depth - 1) if scalar_depth is None else
                          (scalar_depth - 1 - len(inner_shape)))
    nested_splits = []
    values = pylist
    for _ in range(ragged_rank):
        splits = [0]
        concatenated = []
        for row in values:
            splits.append(splits[-1] + len(row))
            concatenated.extend(row)
        nested_splits.append(splits)
        values = concatenated
    result = _inner_values(values, dtype, (len(values),) + inner_shape)
    for splits in reversed(nested_splits):
        result = RaggedTensor.from_row_splits(
            result, convert_to_tensor(splits, dtype=splits_dtype), validate=False)
    return result
