"""TF's TensorArray kernels of control flow v1 as `tf.raw_ops` (`gen_data_flow_ops`:
`TensorArrayV3`, `TensorArrayWriteV3`, `TensorArrayReadV3`, ...): what TF 1's
TensorArray records in a graph (`tf.nn.dynamic_rnn`'s inputs and outputs), so a TF1
GraphDef holding them imports.

TF threads a TensorArray through its ops as a resource handle plus a scalar `flow` tensor
that orders them. Here both are tfcompat's `tf.TensorArray` (its elements stacked in one
tensor): `TensorArrayV3` gives the new array as handle and flow, a write or scatter gives
the updated array as its `flow_out`, and an op acts on its `flow_in` (the array as the
ops before it left it) when that is a state of the array its handle names, else on that
array as it was made (TF's gradient arrays start from their forward array's flow), so
tf.while_loop carries the flow as it carries TensorArrays. `TensorArrayGradV3` gives the
gradient array of a handle for a `source` (zeros as large as the forward array, or the
state of it its `flow_in` is). An op giving a tensor (a read, gather, concat or size) is
an Identity named as the op over what the TensorArray method recorded.
Where we differ: the handle and flow are not tensors (they cannot be fetched or fed); a
gradient array's writes to one index replace (TF's add up).
"""
from tfcompat.framework import dtypes
from tfcompat.ops import array_ops, control_flow_ops
from tfcompat.ops.raw_ops import raw_op
from tfcompat.ops.tensor_array_ops import TensorArray


def _made(array, gradient_of=None):
    """`array` marked as a new TF1 array (its states, the copies TensorArray makes, keep
    the mark); `gradient_of`: (forward array's mark, source) of a gradient array."""
    array._v1_array = object()
    array._v1_gradient_of = gradient_of
    return array


def _state(handle, flow_in):
    """The array an op on (`handle`, `flow_in`) acts on (see the module docstring)."""
    if isinstance(flow_in, TensorArray) and \
            getattr(flow_in, "_v1_array", None) is getattr(handle, "_v1_array", None):
        return flow_in
    return handle


@raw_op("TensorArrayV3", records_itself=True)
def _tensor_array_v3(size, dtype, element_shape=None, dynamic_size=False,
                     clear_after_read=True, identical_element_shapes=False,
                     tensor_array_name="", name=None):
    """The new array as (handle, flow)."""
    array = _made(TensorArray(dtype, size=size, dynamic_size=dynamic_size,
                              element_shape=element_shape))
    return array, array


@raw_op("TensorArrayGradV3", records_itself=True)
def _tensor_array_grad_v3(handle, flow_in, source, name=None):
    """(grad_handle, flow_out): the gradient array of `handle` for `source`, and
    `flow_in`."""
    key = (getattr(handle, "_v1_array", None), source)
    if isinstance(flow_in, TensorArray) and getattr(flow_in, "_v1_gradient_of", None) == key:
        return flow_in, flow_in
    forward = _state(handle, flow_in)
    gradient = _made(TensorArray(forward.dtype, size=forward.size(),
                                 dynamic_size=forward.dynamic_size,
                                 element_shape=forward.element_shape), key)
    return gradient, flow_in


@raw_op("TensorArrayWriteV3", records_itself=True)
def _tensor_array_write_v3(handle, index, value, flow_in, name=None):
    return _state(handle, flow_in).write(index, value)


@raw_op("TensorArrayScatterV3", records_itself=True)
def _tensor_array_scatter_v3(handle, indices, value, flow_in, name=None):
    return _state(handle, flow_in).scatter(indices, value)


@raw_op("TensorArrayReadV3", records_itself=True)
def _tensor_array_read_v3(handle, index, flow_in, dtype, name=None):
    return array_ops.identity(_state(handle, flow_in).read(index), name=name)


@raw_op("TensorArrayGatherV3", records_itself=True)
def _tensor_array_gather_v3(handle, indices, flow_in, dtype, element_shape=None, name=None):
    return array_ops.identity(_state(handle, flow_in).gather(indices), name=name)


@raw_op("TensorArrayConcatV3", records_itself=True)
def _tensor_array_concat_v3(handle, flow_in, dtype, element_shape_except0=None, name=None):
    """The elements concatenated, and each element's length (all alike here)."""
    array = _state(handle, flow_in)
    stored = array_ops.shape(array.stack(), out_type=dtypes.int64)
    return array_ops.identity_n([array.concat(), array_ops.fill(stored[:1], stored[1])],
                                name=name)


@raw_op("TensorArraySizeV3", records_itself=True)
def _tensor_array_size_v3(handle, flow_in, name=None):
    return array_ops.identity(_state(handle, flow_in).size(), name=name)


@raw_op("TensorArrayCloseV3", records_itself=True)
def _tensor_array_close_v3(handle, name=None):
    """Nothing to release: a no-op (None when eager)."""
    return control_flow_ops.no_op(name=name)
