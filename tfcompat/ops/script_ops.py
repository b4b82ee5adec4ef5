"""Python functions as ops: `tf.py_func` / `tf.numpy_function` / `tf.py_function`.

`py_func` and `numpy_function` call `func` with numpy arrays; `py_function` with eager
tensors (gradients do not flow through any of them here). In a graph the function runs each
time the node runs; its outputs have the declared dtypes and an unknown static shape, as in
TF (use `set_shape` to give one).
"""
import functools

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.graph import get_default_graph
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape

_state = context.state


def _call(func, inp, Tout, as_numpy, name):
    single = not isinstance(Tout, (list, tuple))
    out_types = [dtypes.as_dtype(t) for t in ([Tout] if single else Tout)]
    tensors = [ops.convert_to_tensor(x) for x in inp]

    def run(*values):
        args = [np.asarray(EagerTensor(v)) if as_numpy else EagerTensor(v) for v in values]
        if as_numpy:
            args = [a[()] if a.ndim == 0 else a for a in args]
        with context.eager_scope():
            result = func(*args)
        results = [result] if single else list(result if result is not None else [])
        if len(results) != len(out_types):
            raise errors.InvalidArgumentError(
                "%s returned %d values, but Tout declares %d" % (
                    getattr(func, "__name__", "func"), len(results), len(out_types)))
        return tuple(ops.to_torch(r if not isinstance(r, EagerTensor) else r._t, dtype)
                     if not isinstance(r, torch.Tensor) else r
                     for r, dtype in zip(results, out_types))

    if _state.building_graph:
        graph = get_default_graph()
        fakes = tuple(graph._fake_mode.from_tensor(torch.empty((), dtype=t.torch_dtype))
                      for t in out_types)
        outputs = graph.record_custom(run, "PyFunc", tensors, fakes, name)
        for tensor in outputs:
            tensor._static = TensorShape(None)
        return outputs[0] if single else list(outputs)
    results = [EagerTensor(v) for v in run(*[ops.to_torch(t) for t in tensors])]
    return results[0] if single else results


@tf_export(v1=["py_func"])
def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's argument names
    """TF1 `tf.py_func(func, inp, Tout)`: `func` gets numpy arrays."""
    return _call(func, inp, Tout, True, name)


def _call_or_decorate(func, inp, Tout, as_numpy, name):
    """The op, or, without `inp`, TF 2.15's decorator form (`@tf.py_function(Tout=...)`):
    `func` wrapped so that each call runs the op on the call's arguments."""
    if func is not None and inp is not None:
        return _call(func, inp, Tout, as_numpy, name)

    def decorate(python_function):
        @functools.wraps(python_function)
        def wrapper(*args):
            return _call(python_function, args, Tout, as_numpy, name)
        return wrapper
    return decorate(func) if func is not None else decorate


@tf_export("numpy_function")
def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803
    """`tf.numpy_function(func, inp, Tout)`: `func` gets numpy arrays; without `inp`, a
    decorator."""
    return _call_or_decorate(func, inp, Tout, True, name)


@tf_export("py_function")
def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803
    """`tf.py_function(func, inp, Tout)`: `func` gets eager tensors; without `inp`, a
    decorator."""
    return _call_or_decorate(func, inp, Tout, False, name)
