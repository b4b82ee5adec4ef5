"""The TraceTypes of tf.function arguments (TF's core/function/trace_type).

`from_value` gives an argument's TraceType as TF 2.15's `trace_type_builder.from_value`
does: the value's own `__tf_tracing_type__` (tensors give a TensorSpec), List / Tuple /
NamedTuple / Dict of their items' types, a Weakref to any other object that allows one
(equal only to a Weakref of the same live object, so a deleted object's traces are never
reused), else a Literal of the hashable value (ints, floats, strings, None).
"""
import collections.abc
import weakref

from tfcompat.types.trace import PlaceholderContext, TraceType, TracingContext


class InternalTracingContext(TracingContext):
    """The context tf.function passes to `__tf_tracing_type__`."""


class InternalPlaceholderContext(PlaceholderContext):
    """The context tf.function passes to `placeholder_value`: the graph being traced and
    the name of the parameter whose placeholders are being made."""

    def __init__(self, graph=None, name=None):
        self.graph = graph
        self.name = name


_LITERAL_TYPES = frozenset((int, float, bool, str, bytes, type(None)))


def from_value(value, context=None):
    """The TraceType of a tf.function argument."""
    if type(value) in _LITERAL_TYPES:       # what weakref.ref refuses below, without trying
        return Literal(value)
    context = context if context is not None else InternalTracingContext()
    if hasattr(type(value), "__tf_tracing_type__"):     # a class itself is not an instance
        return value.__tf_tracing_type__(context)
    if hasattr(value, "__wrapped__") and not isinstance(value, type):
        return from_value(value.__wrapped__, context)
    if isinstance(value, list):
        return List(*(from_value(item, context) for item in value))
    if isinstance(value, tuple):
        items = [from_value(item, context) for item in value]
        if hasattr(type(value), "_fields"):
            return NamedTuple(type(value), items)
        return Tuple(*items)
    if isinstance(value, collections.abc.Mapping):
        return Dict({key: from_value(item, context) for key, item in value.items()},
                    type(value))
    try:
        return Weakref(weakref.ref(value))
    except TypeError:
        pass
    try:
        return Literal(value)
    except TypeError:
        raise TypeError("Could not generate a generic TraceType for %r. Please verify that "
                        "it is immutable/hashable. Otherwise, consider implementing the "
                        "Tracing Protocol for it." % (value,))


class Literal(TraceType):
    """A hashable Python value (int, float, str, None, ...): equal values of one type."""

    def __init__(self, value):
        hash(value)
        self.value = value

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == other for other in others) else None

    def placeholder_value(self, placeholder_context):
        return self.value

    def cast(self, value, cast_context):
        if Literal(value) != self:
            raise TypeError("Can not cast %r to %r" % (value, self))
        return value

    def __eq__(self, other):
        return isinstance(other, Literal) and type(self.value) is type(other.value) and \
            self.value == other.value

    def __hash__(self):
        return hash((type(self.value), self.value))

    def __repr__(self):
        return "Literal[%r]" % (self.value,)


class Weakref(TraceType):
    """Any other object, by identity while it lives."""

    def __init__(self, ref):
        self._ref = ref
        self._id = id(ref())

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == other for other in others) else None

    def placeholder_value(self, placeholder_context):
        return self._ref()

    def cast(self, value, cast_context):
        if value is not self._ref():
            raise TypeError("Can not cast %r to %r" % (value, self))
        return value

    def __eq__(self, other):
        if not isinstance(other, Weakref):
            return False
        value = self._ref()
        return value is not None and value is other._ref()

    def __hash__(self):
        return self._id

    def __repr__(self):
        return type(self._ref()).__name__


class _Sequence(TraceType):
    """Items of fixed number, each of its own TraceType."""

    _open, _close = "[", "]"

    def __init__(self, *components):
        self.components = tuple(components)

    def _matches(self, other):
        return type(other) is type(self) and len(other.components) == len(self.components)

    def is_subtype_of(self, other):
        return self._matches(other) and all(
            mine.is_subtype_of(theirs)
            for mine, theirs in zip(self.components, other.components))

    def most_specific_common_supertype(self, others):
        if not all(self._matches(other) for other in others):
            return None
        supertypes = []
        for i, component in enumerate(self.components):
            supertype = component.most_specific_common_supertype(
                [other.components[i] for other in others])
            if supertype is None:
                return None
            supertypes.append(supertype)
        return self._rebuilt(supertypes)

    def _rebuilt(self, components):
        return type(self)(*components)

    def placeholder_value(self, placeholder_context):
        return self._pack([c.placeholder_value(placeholder_context) for c in self.components])

    def _pack(self, items):
        return list(items)

    def to_tensors(self, value):
        return [tensor for component, item in zip(self.components, value)
                for tensor in component.to_tensors(item)]

    def flatten(self):
        return [leaf for component in self.components for leaf in component.flatten()]

    def cast(self, value, cast_context):
        if len(value) != len(self.components):
            raise TypeError("Can not cast %r to %r" % (value, self))
        return self._pack([component.cast(item, cast_context)
                           for component, item in zip(self.components, value)])

    def __eq__(self, other):
        return self._matches(other) and self.components == other.components

    def __hash__(self):
        return hash((type(self), self.components))

    def __repr__(self):
        return "%s[%s]" % (type(self).__name__, ", ".join(map(repr, self.components)))


class List(_Sequence):
    """A Python list."""


class Tuple(_Sequence):
    """A Python tuple."""

    def _pack(self, items):
        return tuple(items)


class NamedTuple(_Sequence):
    """A namedtuple of one class."""

    def __init__(self, namedtuple_type, components):
        super(NamedTuple, self).__init__(*components)
        self.namedtuple_type = namedtuple_type

    def _matches(self, other):
        return super(NamedTuple, self)._matches(other) and \
            other.namedtuple_type is self.namedtuple_type

    def _rebuilt(self, components):
        return NamedTuple(self.namedtuple_type, components)

    def _pack(self, items):
        return self.namedtuple_type(*items)

    def __hash__(self):
        return hash((self.namedtuple_type, self.components))

    def __repr__(self):
        return "%s[%s]" % (self.namedtuple_type.__name__,
                           ", ".join(map(repr, self.components)))


class Dict(TraceType):
    """A mapping of fixed keys, each value of its own TraceType."""

    def __init__(self, mapping, mapping_type=dict):
        self.mapping = dict(mapping)
        self.mapping_type = mapping_type

    def _matches(self, other):
        return isinstance(other, Dict) and other.mapping_type is self.mapping_type and \
            other.mapping.keys() == self.mapping.keys()

    def is_subtype_of(self, other):
        return self._matches(other) and all(
            item.is_subtype_of(other.mapping[key]) for key, item in self.mapping.items())

    def most_specific_common_supertype(self, others):
        if not all(self._matches(other) for other in others):
            return None
        supertypes = {}
        for key, item in self.mapping.items():
            supertype = item.most_specific_common_supertype(
                [other.mapping[key] for other in others])
            if supertype is None:
                return None
            supertypes[key] = supertype
        return Dict(supertypes, self.mapping_type)

    def _keys(self):
        return sorted(self.mapping, key=repr)

    def placeholder_value(self, placeholder_context):
        return self._pack({key: self.mapping[key].placeholder_value(placeholder_context)
                           for key in self._keys()})

    def _pack(self, items):
        ordered = {key: items[key] for key in self.mapping}
        try:
            return self.mapping_type(ordered)
        except TypeError:
            return ordered

    def to_tensors(self, value):
        return [tensor for key in self._keys()
                for tensor in self.mapping[key].to_tensors(value[key])]

    def flatten(self):
        return [leaf for key in self._keys() for leaf in self.mapping[key].flatten()]

    def cast(self, value, cast_context):
        if set(value) != set(self.mapping):
            raise TypeError("Can not cast %r to %r" % (value, self))
        return self._pack({key: self.mapping[key].cast(value[key], cast_context)
                           for key in self.mapping})

    def __eq__(self, other):
        return self._matches(other) and self.mapping == other.mapping

    def __hash__(self):
        return hash((self.mapping_type, frozenset(self.mapping.items())))

    def __repr__(self):
        return "Dict[%s]" % ", ".join("[%r, %r]" % (key, item)
                                      for key, item in self.mapping.items())
