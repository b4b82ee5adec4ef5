"""`tf.types.experimental.FunctionType` and tf.function's trace cache (TF's
core/function/polymorphism).

A FunctionType is an `inspect.Signature` whose parameters carry TraceTypes
(`type_constraint`, shown as the annotation) and whose return annotation is the output's
type, so `str()` reads `(a: TensorSpec(...)) -> TensorSpec(...)` as in TF 2.15.
"""
import inspect

from tfcompat._api import tf_export


class Parameter(inspect.Parameter):
    """A parameter of a FunctionType: name, kind, whether optional, and its TraceType."""

    __slots__ = ("_optional",)

    def __init__(self, name, kind, optional, type_constraint):
        super(Parameter, self).__init__(name, kind, annotation=type_constraint
                                        if type_constraint is not None else self.empty)
        self._optional = optional

    @property
    def optional(self):
        return self._optional

    @property
    def type_constraint(self):
        return None if self.annotation is self.empty else self.annotation

    def is_subtype_of(self, other):
        return (self.name, self.kind) == (other.name, other.kind) and (
            other.type_constraint is None or (
                self.type_constraint is not None and
                self.type_constraint.is_subtype_of(other.type_constraint)))


@tf_export("types.experimental.FunctionType")
class FunctionType(inspect.Signature):
    """The parameters (with TraceTypes), captures and output type of a traced function."""

    __slots__ = ("_captures",)

    def __init__(self, parameters, captures=None, return_annotation=inspect.Signature.empty):
        super(FunctionType, self).__init__(parameters, return_annotation=return_annotation,
                                           __validate_parameters__=False)
        self._captures = dict(captures or {})

    @property
    def captures(self):
        return self._captures

    @property
    def output(self):
        return None if self.return_annotation is self.empty else self.return_annotation

    def is_supertype_of(self, other):
        """True if calls of type `other` can run a trace of this type."""
        return len(self.parameters) == len(other.parameters) and all(
            theirs.is_subtype_of(mine)
            for mine, theirs in zip(self.parameters.values(), other.parameters.values()))

    def most_specific_common_supertype(self, others):
        """The FunctionType whose parameters' types are the most specific common supertypes
        of this one's and `others`', or None if a parameter has none."""
        parameters = []
        for i, mine in enumerate(self.parameters.values()):
            theirs = [list(other.parameters.values())[i] for other in others
                      if len(other.parameters) == len(self.parameters)]
            if len(theirs) != len(others) or any(
                    (p.name, p.kind) != (mine.name, mine.kind) for p in theirs):
                return None
            supertype = mine.type_constraint.most_specific_common_supertype(
                [p.type_constraint for p in theirs])
            if supertype is None:
                return None
            parameters.append(Parameter(mine.name, mine.kind, mine.optional, supertype))
        return FunctionType(parameters)

    def __repr__(self):
        return "FunctionType(parameters=%r, captures=%r)" % (
            list(self.parameters.values()), self._captures)


class FunctionCache(object):
    """tf.function's traces by FunctionType, looked up as TF 2.15's FunctionCache: an equal
    type first, else the most specific cached supertype of the call's type."""

    def __init__(self):
        self._traces = {}

    def lookup(self, function_type):
        trace = self._traces.get(function_type)
        if trace is not None:
            return trace
        best = None
        for cached in self._traces:
            if cached.is_supertype_of(function_type) and (
                    best is None or best.is_supertype_of(cached)):
                best = cached
        return None if best is None else self._traces[best]

    def generalize(self, function_type):
        """The type a `reduce_retracing` function traces for a call of `function_type`: the
        most specific common supertype of it and each cached type that has one."""
        relaxed = function_type
        for cached in self._traces:
            supertype = relaxed.most_specific_common_supertype([cached])
            if supertype is not None:
                relaxed = supertype
        return relaxed

    def add(self, function_type, trace):
        self._traces[function_type] = trace

    def values(self):
        return list(self._traces.values())

    def __len__(self):
        return len(self._traces)
