"""`tf.types.experimental` callables and `TensorLike` (TF's python/types/core.py).

tfcompat's `tf.function` (`Function`), its traces (`ConcreteFunction`) and their graph calls
(`AtomicFunction`) subclass these, so `isinstance` checks against them hold as in TF 2.15.
"""
import abc
import typing

import numpy as np

from tfcompat._api import tf_export
from tfcompat.framework.tensor import Tensor


@tf_export(v2=["types.experimental.Callable"])
class Callable(metaclass=abc.ABCMeta):
    """Something callable whose arguments and result are described by a FunctionType."""

    @property
    @abc.abstractmethod
    def function_type(self):
        """The `tf.types.experimental.FunctionType` of this callable."""

    def __call__(self, *args, **kwargs):
        """Runs the callable."""


@tf_export(v2=["types.experimental.AtomicFunction"])
class AtomicFunction(Callable):
    """One traced graph, called with its flat tensor inputs."""


@tf_export(v2=["types.experimental.ConcreteFunction"])
class ConcreteFunction(Callable):
    """One trace of a polymorphic function, for one FunctionType."""

    @property
    @abc.abstractmethod
    def inference_fn(self):
        """The AtomicFunction that runs this trace's graph."""


@tf_export(v2=["types.experimental.PolymorphicFunction",
               "types.experimental.GenericFunction"])
class PolymorphicFunction(Callable):
    """A function traced once per kind of call (`tf.function`)."""

    @abc.abstractmethod
    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction that calls with these arguments (or TensorSpecs) run."""

    def experimental_get_compiler_ir(self, *args, **kwargs):
        """TF's XLA IR of a trace; tfcompat compiles with torch, not XLA."""
        raise NotImplementedError("tf.types.experimental.PolymorphicFunction."
                                  "experimental_get_compiler_ir: tfcompat does not use XLA")


GenericFunction = PolymorphicFunction

TensorLike = typing.Union[Tensor, int, float, bool, str, bytes, complex, tuple, list,
                          np.ndarray, np.generic]
tf_export("types.experimental.TensorLike")(TensorLike)
