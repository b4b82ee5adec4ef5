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

    def __repr__(self):
        return "FunctionType(parameters=%r, captures=%r)" % (
            list(self.parameters.values()), self._captures)


class FunctionCache(object):
    """tf.function's traces by the TraceTypes of a call's parameters (a tuple, in the
    signature's order), looked up as TF 2.15's FunctionCache: equal types first, else the
    most specific cached types that the call's are subtypes of."""

    def __init__(self):
        self._traces = {}

    def lookup(self, call_types):
        trace = self._traces.get(call_types)
        if trace is not None:
            return trace
        best = None
        for cached in self._traces:
            if _all_subtypes(call_types, cached) and (
                    best is None or _all_subtypes(cached, best)):
                best = cached
        return None if best is None else self._traces[best]

    def generalize(self, call_types):
        """The types a `reduce_retracing` function traces a call of `call_types` with: the
        most specific common supertype of them and of each cached tuple that has one."""
        relaxed = call_types
        for cached in self._traces:
            supertypes = _common_supertypes(relaxed, cached)
            if supertypes is not None:
                relaxed = supertypes
        return relaxed

    def add(self, call_types, trace):
        self._traces[call_types] = trace

    def values(self):
        return list(self._traces.values())

    def __len__(self):
        return len(self._traces)


def _all_subtypes(types, supertypes):
    return len(types) == len(supertypes) and all(
        mine.is_subtype_of(theirs) for mine, theirs in zip(types, supertypes))


def _common_supertypes(types, others):
    if len(types) != len(others):
        return None
    supertypes = tuple(mine.most_specific_common_supertype([theirs])
                       for mine, theirs in zip(types, others))
    return None if any(supertype is None for supertype in supertypes) else supertypes
