"""`tf.Tensor` and `EagerTensor`, a thin wrapper around a `torch.Tensor`.

`EagerTensor` is not a torch.Tensor subclass (a subclass costs 2.4x-5x per op, measured
for the design); it keeps the torch tensor in `_t` and gives TF's API. String tensors keep
a numpy object array of `bytes` in `_t` instead. Operators (`+`, `[]`, `==` ...) are
attached to `Tensor` by the modules that define the ops they route to (math_ops, array_ops),
so eager and graph tensors share them.
"""
import numpy as np
import torch

from tfcompat import _api
from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes
from tfcompat.framework.tensor_shape import TensorShape


@tf_export("Tensor")
class Tensor(object):
    """Base class of eager and graph (symbolic) tensors, for isinstance checks."""

    __slots__ = ()
    # numpy must defer to our reflected operators (ndarray + tensor -> tensor)
    __array_priority__ = 100

    OVERLOADABLE_OPERATORS = frozenset((
        "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__div__",
        "__rdiv__", "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
        "__rmod__", "__lt__", "__le__", "__gt__", "__ge__", "__ne__", "__eq__", "__and__",
        "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__getitem__", "__pow__",
        "__rpow__", "__invert__", "__neg__", "__abs__", "__matmul__", "__rmatmul__"))

    def ref(self):
        """A hashable reference to this tensor (`tensor.ref()` / `experimental_ref()`)."""
        return Reference(self)

    experimental_ref = ref


class Reference(object):
    """What `Tensor.ref()` returns: hashable by identity, `.deref()` gives the tensor back."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __eq__(self, other):
        return isinstance(other, Reference) and other._obj is self._obj

    def __hash__(self):
        return id(self._obj)

    def __repr__(self):
        return "<Reference wrapping %r>" % (self._obj,)


def _numpy_of(t):
    """numpy value of a torch tensor or string array, sharing its memory where it can."""
    if isinstance(t, np.ndarray):
        return t
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.detach().cpu().numpy()


def _format_numpy(value):
    if isinstance(value, np.ndarray):
        return np.array2string(value, separator=" ")
    return str(value) if isinstance(value, np.generic) else repr(value)


class EagerTensor(Tensor):
    """A concrete tensor of eager mode; TF's API over a torch tensor."""

    __slots__ = ("_t", "_keras_mask", "__weakref__")

    def __init__(self, t):
        self._t = t

    # ---------------------------------------------------------------- properties
    @property
    def shape(self):
        return TensorShape._from_sizes(self._t.shape)

    def get_shape(self):
        return TensorShape._from_sizes(self._t.shape)

    @property
    def dtype(self):
        t = self._t
        return dtypes.string if isinstance(t, np.ndarray) else dtypes.from_torch(t.dtype)

    @property
    def ndim(self):
        return self._t.ndim

    @property
    def device(self):
        t = self._t
        return context.tf_device_name(torch.device("cpu") if isinstance(t, np.ndarray)
                                      else t.device)

    @property
    def backing_device(self):
        return self.device

    @property
    def name(self):
        raise AttributeError("Tensor.name is meaningless when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is meaningless when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is meaningless when eager execution is enabled.")

    def set_shape(self, shape):
        if not self.shape.is_compatible_with(shape):
            raise ValueError("Tensor's shape %s is not compatible with supplied shape %s"
                             % (self.shape, TensorShape(shape)))

    def eval(self, feed_dict=None, session=None):
        raise NotImplementedError("eval is not supported when eager execution is enabled, "
                                  "is .numpy() what you're looking for?")

    # ---------------------------------------------------------------- values
    def numpy(self):
        """A copy of the value as numpy (a numpy scalar for rank 0; bytes objects for
        strings). TF 2 copies ("tensors are immutable"), so a script may change the array it
        gets; an array sharing the tensor's memory would change the tensor, and with it a
        dataset's cache or a value used again later."""
        value = _numpy_of(self._t)
        return value[()] if value.ndim == 0 else value.copy()

    def __array__(self, dtype=None, copy=None):
        """`np.asarray(tensor)`: as in TF, a read-only view of the value where numpy can
        share its memory (`copy=True`, or another dtype, gives a copy of its own)."""
        value = _numpy_of(self._t)
        if copy or (dtype is not None and np.dtype(dtype) != value.dtype):
            return np.array(value, dtype=dtype, copy=True)
        view = value.view()
        view.flags.writeable = False
        return view

    def _scalar(self, kind):
        if self._t.ndim != 0 and int(np.prod(self._t.shape)) != 1:
            raise TypeError("only size-1 tensors can be converted to Python %s" % kind)
        return self.numpy().reshape(()).item() if self._t.ndim else self.numpy()

    def __bool__(self):
        t = self._t
        if isinstance(t, np.ndarray):
            return bool(t)
        if t.numel() != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(t.item())

    def __int__(self):
        return int(self._scalar("int"))

    def __float__(self):
        return float(self._scalar("float"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        if not (self.dtype.is_integer or self.dtype.is_bool) or self._t.ndim != 0:
            raise TypeError("only integer scalar tensors can be converted to an index")
        return int(self._t.item())

    def __len__(self):
        if self._t.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self._t.shape[0]

    def __iter__(self):
        t = self._t
        if t.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (EagerTensor(row) for row in t)

    def __hash__(self):
        if _api.flavor() == "v2":
            raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")
        return id(self)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return EagerTensor(self._t.clone() if isinstance(self._t, torch.Tensor)
                           else self._t.copy())

    def __reduce__(self):
        # in-function: framework.ops (the op machinery) is built on this module
        from tfcompat.framework.ops import convert_to_tensor
        return convert_to_tensor, (self.numpy(),)

    # ---------------------------------------------------------------- devices
    def cpu(self):
        return EagerTensor(self._t.cpu() if isinstance(self._t, torch.Tensor) else self._t)

    def gpu(self, gpu_index=0):
        if not torch.cuda.is_available():
            raise RuntimeError("gpu() needs a CUDA device; none is available")
        return EagerTensor(self._t.cuda(gpu_index))

    # ---------------------------------------------------------------- display
    def __repr__(self):
        return "<tf.Tensor: shape=%s, dtype=%s, numpy=%s>" % (
            self.shape, self.dtype.name, _numpy_repr(self.numpy()))

    def __str__(self):
        text = _format_numpy(self.numpy())
        return "tf.Tensor(%s%s, shape=%s, dtype=%s)" % (
            "\n" if "\n" in text else "", text, self.shape, self.dtype.name)

    def __format__(self, format_spec):
        """TF 2's: the value as numpy formats it (`"{}".format(t)` is "2.5", not the repr)."""
        return format(np.asarray(self.numpy()), format_spec)

    # ---------------------------------------------------------------- torch interop
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Raw torch functions accept EagerTensors (and return plain torch tensors)."""
        from torch.utils._pytree import tree_map
        unwrap = _unwrap_for_torch
        return func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))


def _unwrap_for_torch(value):
    return value._t if isinstance(value, EagerTensor) else value


def _numpy_repr(value):
    """TF's `numpy_text(is_repr=True)`: the array's repr, from a new line when it spans
    several (`numpy=array([2, 3], dtype=int32)` stays on one line)."""
    if isinstance(value, np.ndarray):
        text = repr(value)
        return "\n" + text if "\n" in text else text
    return str(value) if isinstance(value, np.generic) else repr(value)


def is_tensor_like(value):
    """True for tensors and variables (anything ops accept as a tensor without conversion)."""
    return isinstance(value, Tensor) or hasattr(value, "_tfcompat_tensor_")
