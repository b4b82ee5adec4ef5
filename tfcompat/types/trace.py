"""`tf.types.experimental.TraceType` and the tracing protocol (TF's python/types/trace.py).

A TraceType describes a tf.function argument for the function's trace cache: calls whose
arguments have equal TraceTypes share a trace, a call whose types are subtypes of a trace's
can use that trace, and the trace is built from each type's `placeholder_value`. A class
defines its arguments' TraceType with `__tf_tracing_type__(self, context)`.
"""
import abc
import typing

from tfcompat._api import tf_export


@tf_export(v2=["types.experimental.TraceType"])
class TraceType(metaclass=abc.ABCMeta):
    """Describes a class of tf.function arguments, as TF 2.15's `TraceType`."""

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """True if every value of this type is also of type `other`."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type that this type and all of `others` are subtypes of, or
        None if there is none."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context):
        """The value the function is traced with for an argument of this type."""

    def to_tensors(self, value):
        """The tensors of `value` that the traced graph takes as inputs (none by default)."""
        del value
        return []

    def from_tensors(self, tensors):
        """A value of this type rebuilt from `to_tensors`'s tensors (None by default)."""
        del tensors
        return None

    def flatten(self):
        """The TraceTypes of `to_tensors`'s tensors (none by default)."""
        return []

    def cast(self, value, cast_context):
        """`value` as a value of this type; by default it must already be one."""
        del cast_context
        if value != self.placeholder_value(PlaceholderContext()):
            raise TypeError("Can not cast %r to %r" % (value, self))
        return value

    @abc.abstractmethod
    def __hash__(self):
        pass

    @abc.abstractmethod
    def __eq__(self, other):
        pass


class TracingContext(metaclass=abc.ABCMeta):
    """What `__tf_tracing_type__` is given while an argument's TraceType is made."""


class PlaceholderContext(metaclass=abc.ABCMeta):
    """What `placeholder_value` is given while a function's inputs are made."""


class CastContext(metaclass=abc.ABCMeta):
    """What `cast` is given while a call's arguments are converted to a trace's types."""


@tf_export(v2=["types.experimental.SupportsTracingProtocol"])
@typing.runtime_checkable
class SupportsTracingProtocol(typing.Protocol):
    """A class whose values define their own TraceType."""

    @abc.abstractmethod
    def __tf_tracing_type__(self, context):
        """The TraceType of this value."""
