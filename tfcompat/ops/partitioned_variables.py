"""TF1's partitioners (`tf.fixed_size_partitioner`, `tf.min_max_variable_partitioner`,
`tf.variable_axis_size_partitioner`); `tf.create_partitioned_variables`, which makes
variables, is in `variable_scope.py`.

A partitioner maps a variable's full shape and dtype to a number of parts per axis (at most one
axis above 1); `get_variable(..., partitioner=)` then makes a PartitionedVariable
(`variable_scope._VariableStore._get_partitioned_variable`). Semantics of TF 1.15.
"""
import math

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes
from tfcompat.framework.tensor_shape import TensorShape


def _element_size(dtype, bytes_per_string_element):
    dtype = dtypes.as_dtype(dtype)
    return bytes_per_string_element if dtype.base_dtype == dtypes.string else dtype.size


@tf_export(v1=["variable_axis_size_partitioner"])
def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16,
                                   max_shards=None):
    """Shards along `axis` so that each shard stays below `max_shard_bytes` (at least one
    slice of the axis per shard; at most `max_shards` shards)."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive. "
                         "Currently, max_shard_bytes is %s and bytes_per_string_element is %s"
                         % (max_shard_bytes, bytes_per_string_element))
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, TensorShape):
            raise ValueError("shape is not a TensorShape: %s" % (shape,))
        if not shape.is_fully_defined():
            raise ValueError("shape is not fully defined: %s" % (shape,))
        element_size = _element_size(dtype, bytes_per_string_element)
        partitions = [1] * shape.ndims
        bytes_per_slice = 1.0 * (shape.num_elements() / shape.dims[axis].value) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * shape.dims[axis].value / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions
    return _partitioner


@tf_export(v1=["min_max_variable_partitioner"])
def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10,
                                 bytes_per_string_element=16):
    """As many parts along `axis` as keep each at least `min_slice_size` bytes, at most
    `max_partitions` (and at most the axis' size)."""
    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError("Cannot partition variable along axis %d when shape is only %s"
                             % (axis, shape))
        total_bytes = shape.num_elements() * _element_size(dtype, bytes_per_string_element)
        partitions = [1] * len(shape)
        partitions[axis] = max(1, min(shape.dims[axis].value, max_partitions,
                                      int(math.ceil(total_bytes / min_slice_size))))
        return partitions
    return _partitioner


@tf_export(v1=["fixed_size_partitioner"])
def fixed_size_partitioner(num_shards, axis=0):
    """`num_shards` parts along `axis` (fewer when the axis is shorter)."""
    def _partitioner(shape, **unused_args):
        partitions = [1] * len(shape)
        partitions[axis] = min(num_shards, shape.dims[axis].value)
        return partitions
    return _partitioner


