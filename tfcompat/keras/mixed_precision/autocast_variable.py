"""Keras 2's AutoCastVariable: a float32 layer variable read in the layer's compute dtype.

A layer under a mixed policy ('mixed_float16', 'mixed_bfloat16') creates its floating weights
as `AutoCastVariable`s. Inside the call of a layer (the innermost layer call in progress),
reads of such a variable (`to_torch`, operators, `value()`, `read_value()`, graph inputs) give
its value cast to that layer's compute dtype; the cast is differentiable, so gradients reach
the float32 variable. Elsewhere (optimizers, `numpy()`, `get_weights`, regularizers) it reads
as float32. `dtype` is always the variable's own dtype, as in TF 2.4+. Writes always go to the
float32 storage.

Where we differ: Keras 2 wraps the variable in another object; here the variable itself is
this subclass of `tf.Variable`, so checkpoints and optimizers see an ordinary variable.
"""
import functools
import threading

from tfcompat.framework import dtypes
from tfcompat.keras.engine.base_layer import _call_context
from tfcompat.ops import math_ops
from tfcompat.variables import Variable, _numpy_copy


class _Uncast(threading.local):
    active = False      # True while a write reads the variable's storage


_uncast = _Uncast()


def _cast_torch_dtype():
    """The torch dtype variables are read as now: the compute dtype of the innermost layer
    call in progress when it is floating, else None (no cast)."""
    stack = _call_context.stack
    if not stack or _uncast.active:
        return None
    return stack[-1][0]._autocast_torch_dtype


class AutoCastVariable(Variable):
    """A variable read in the compute dtype of the layer call in progress (module docstring)."""

    def _tfcompat_tensor_(self):
        value = Variable._tfcompat_tensor_(self)
        dtype = _cast_torch_dtype()
        return value if dtype is None or value.dtype is dtype else value.to(dtype)

    def _graph_tensor(self, graph):
        storage = Variable._graph_tensor(self, graph)
        dtype = _cast_torch_dtype()
        if dtype is None or dtype is self._dtype.torch_dtype:
            return storage
        return math_ops.cast(storage, dtypes.from_torch(dtype))

    def __repr__(self):
        dtype = _cast_torch_dtype()
        cast_to = self._dtype if dtype is None else dtypes.from_torch(dtype)
        text = "<AutoCastVariable '%s' shape=%s dtype=%s dtype_to_cast_to=%s" % (
            self._name, self._shape, self._dtype.name, cast_to.name)
        if self._graph is not None:
            return text + ">"
        return text + ", numpy=%r>" % (_numpy_copy(self._leaf),)


def _write_uncast(method):
    """`method` with reads of the variable inside it left uncast (it writes the storage)."""
    @functools.wraps(method)
    def write(self, *args, **kwargs):
        saved, _uncast.active = _uncast.active, True
        try:
            return method(self, *args, **kwargs)
        finally:
            _uncast.active = saved
    return write


for _name in ("assign", "assign_add", "assign_sub", "load", "count_up_to", "scatter_update",
              "scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_min",
              "scatter_max", "batch_scatter_update", "scatter_nd_update", "scatter_nd_add",
              "scatter_nd_sub"):
    setattr(AutoCastVariable, _name, _write_uncast(getattr(Variable, _name)))
del _name
