"""TF's TensorList kernels as `tf.raw_ops` (TF's `python/ops/list_ops.py`,
`gen_list_ops`): what TF 2's TensorArray records in a graph (`TensorListReserve`,
`TensorListSetItem`, `TensorListStack`, ...), so a real TF 2 SavedModel's loops that
accumulate outputs run.

Where we differ: a list's handle is tfcompat's `tf.TensorArray` itself (its elements stacked
in one tensor), where TF's is a scalar variant tensor; tf.while_loop carries it as it
carries TensorArrays. Each entry is a thin body over a TensorArray method.
"""
from tfcompat.framework import dtypes
from tfcompat.framework.ops import convert_to_tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import array_ops
from tfcompat.ops.raw_ops import raw_op
from tfcompat.ops.tensor_array_ops import TensorArray


def _element_shape(element_shape):
    """A TensorList `element_shape` input as a TensorShape: -1 (a scalar) is an unknown
    rank, -1 entries unknown dims; a value known only when run is an unknown shape."""
    if isinstance(element_shape, int):
        return TensorShape(None if element_shape == -1 else [element_shape])
    if isinstance(element_shape, (list, tuple)):
        return TensorShape([None if dim == -1 else dim for dim in element_shape])
    return TensorShape(None)


@raw_op("TensorListReserve", records_itself=True)
def _tensor_list_reserve(element_shape, num_elements, element_dtype, name=None):
    return TensorArray(element_dtype, size=num_elements,
                       element_shape=_element_shape(element_shape))


@raw_op("TensorListFromTensor", records_itself=True)
def _tensor_list_from_tensor(tensor, element_shape, name=None):
    tensor = convert_to_tensor(tensor)
    return TensorArray(tensor.dtype, size=array_ops.shape(tensor)[0],
                       element_shape=_element_shape(element_shape)).unstack(tensor)


@raw_op("TensorListSetItem", records_itself=True)
def _tensor_list_set_item(input_handle, index, item, resize_if_index_out_of_bounds=False,
                          name=None):
    return input_handle.write(index, item)


@raw_op("TensorListGetItem", records_itself=True)
def _tensor_list_get_item(input_handle, index, element_shape, element_dtype, name=None):
    return input_handle.read(index)


@raw_op("TensorListStack", records_itself=True)
def _tensor_list_stack(input_handle, element_shape, element_dtype, num_elements=-1,
                       name=None):
    return input_handle.stack()


@raw_op("TensorListLength", records_itself=True)
def _tensor_list_length(input_handle, name=None):
    return input_handle.size()


@raw_op("TensorListElementShape", records_itself=True)
def _tensor_list_element_shape(input_handle, shape_type, name=None):
    """The element shape with -1 for unknown dims (-1 alone for an unknown rank)."""
    shape = input_handle.element_shape
    value = -1 if shape.rank is None else [-1 if d is None else d for d in shape.as_list()]
    return convert_to_tensor(value, dtypes.as_dtype(shape_type))
