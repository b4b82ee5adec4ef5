"""String tensors: numpy object arrays of `bytes` (torch has no string dtype)."""
import numpy as np

from tfcompat.framework import context, dtypes
from tfcompat.framework.ops import convert_to_tensor
from tfcompat.framework.tensor import EagerTensor

_state = context.state


def scalar_string(value):
    """A 0-d string array holding `value`."""
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def string_input(value, what):
    """`value` as a string tensor and its shape; TypeError naming `what` for other dtypes."""
    if type(value) is EagerTensor and isinstance(value._t, np.ndarray):
        return value, value.shape
    if _state.building_graph:
        tensor = convert_to_tensor(value, dtype=dtypes.string) \
            if isinstance(value, (str, bytes, list, tuple, np.ndarray)) else value
        if tensor.dtype is not dtypes.string:
            raise TypeError("%s must be a string tensor, got %s" % (what, tensor.dtype.name))
        return tensor, tensor.shape
    tensor = convert_to_tensor(value, dtype=dtypes.string) \
        if not isinstance(value, EagerTensor) else value
    if tensor.dtype is not dtypes.string:
        raise TypeError("%s must be a string tensor, got %s" % (what, tensor.dtype.name))
    return tensor, tensor.shape


def flat_strings(array):
    """The elements of a string array as a flat list."""
    return [array[()]] if array.ndim == 0 else list(array.reshape(-1))
