"""`tf.TensorShape` and `tf.Dimension`.

A known `Dimension` is an `int` with a `.value`, so TF1 code (`shape[-1].value`) and TF2 code
(`shape[-1] * 2`) both work. An unknown dimension is `None` under TF2 semantics and the
`Dimension(None)` object (whose `.value` is None) under TF1 semantics, following the flavour of
the running script (`tfcompat._api.flavor()`). The symbolic sizes of graph tensors' fake
values (torch SymInts) are unknown dimensions, never their stand-in sizes.
"""
import torch

from tfcompat import _api
from tfcompat._api import tf_export


@tf_export(v1=["Dimension", "compat.v1.Dimension"])
class Dimension(int):
    """A known dimension (an int with `.value`); `Dimension(None)` gives the unknown one."""

    def __new__(cls, value):
        if value is None or isinstance(value, UnknownDimension):
            return UNKNOWN_DIMENSION
        if isinstance(value, Dimension):
            return value
        if isinstance(value, torch.SymInt):     # a graph's symbolic size: known if constant
            value = value.node.maybe_as_int()
            if value is None:
                return UNKNOWN_DIMENSION
        try:
            as_int = int(value.__index__())
        except AttributeError:
            raise TypeError("Dimension value must be integer or None, got %r" % (value,))
        if as_int < 0:
            raise ValueError("Dimension %d must be >= 0" % as_int)
        return int.__new__(cls, as_int)

    @property
    def value(self):
        return int(self)

    def __repr__(self):
        """TF1's Dimension repr; under TF2 behaviour a dimension is a plain int to the user."""
        return "Dimension(%d)" % int(self) if _api.flavor() == "v1" else int.__repr__(self)

    def __str__(self):
        return int.__repr__(self)

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return other.value is None or other.value == int(self)

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Dimensions %s and %s are not compatible" % (self, other))

    def merge_with(self, other):
        self.assert_is_compatible_with(other)
        return self


class UnknownDimension(object):
    """The unknown dimension of TF1 semantics: `.value` is None; equal to None."""

    __slots__ = ()
    value = None

    def __eq__(self, other):
        return other is None or isinstance(other, UnknownDimension)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(None)

    def __repr__(self):
        return "Dimension(None)"

    def __str__(self):
        return "?"

    def __bool__(self):
        return False

    def is_compatible_with(self, other):
        return True

    def assert_is_compatible_with(self, other):
        return None

    def merge_with(self, other):
        return as_dimension(other)

    def __index__(self):
        raise TypeError("an unknown Dimension has no integer value")

    def _unknown(self, *args):
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unknown
    __floordiv__ = __rfloordiv__ = __mod__ = _unknown


UNKNOWN_DIMENSION = UnknownDimension()


@tf_export(v1=["dimension_value", "compat.dimension_value"], v2=["compat.dimension_value"])
def dimension_value(dimension):
    """The int (or None) value of a dimension given as Dimension, int or None."""
    if isinstance(dimension, (Dimension, UnknownDimension)):
        return dimension.value
    return dimension


@tf_export(v1=["dimension_at_index", "compat.dimension_at_index"],
           v2=["compat.dimension_at_index"])
def dimension_at_index(shape, index):
    return as_dimension(as_shape(shape)._dims[index] if as_shape(shape)._dims is not None
                        else None)


def as_dimension(value):
    return Dimension(value)


def _user_dim(value):
    """How one dimension is shown to the script: Dimension (or None / Dimension(None))."""
    if value is None:
        return UNKNOWN_DIMENSION if _api.flavor() == "v1" else None
    return int.__new__(Dimension, value)


@tf_export("TensorShape")
class TensorShape(object):
    """A static shape: a tuple of ints and Nones, or unknown rank (`dims is None`)."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (int, Dimension, UnknownDimension)) and not isinstance(dims, bool):
            self._dims = (dimension_value(dims),)
        else:
            try:
                self._dims = tuple(None if d is None else dimension_value(as_dimension(d))
                                   for d in dims)
            except TypeError:
                if type(dims).__name__ != "TensorShapeProto":
                    raise TypeError("Cannot convert %r to a TensorShape" % (dims,))
                # TF's TensorShape takes its proto too (-1: an unknown dim)
                self._dims = None if dims.unknown_rank else \
                    tuple(None if d.size < 0 else d.size for d in dims.dim)

    @classmethod
    def _from_sizes(cls, sizes):
        """Fast path for a fully known shape (a torch.Size or a tuple of ints)."""
        shape = object.__new__(cls)
        shape._dims = tuple(sizes)
        return shape

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else [_user_dim(d) for d in self._dims]

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter([_user_dim(d) for d in self._dims])

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return unknown_shape()
            return _user_dim(None)
        if isinstance(key, slice):
            return TensorShape._from_sizes(self._dims[key])
        return _user_dim(self._dims[key])

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        total = 1
        for d in self._dims:
            total *= d
        return total

    def is_fully_defined(self):
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError("Shape %s is not fully defined" % self)

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, as_shape(other)))

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))
        return TensorShape._from_sizes(a if a is not None else b
                                       for a, b in zip(self._dims, other._dims))

    def most_specific_compatible_shape(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return TensorShape._from_sizes(a if a == b else None
                                       for a, b in zip(self._dims, other._dims))

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape._from_sizes(self._dims + other._dims)

    def assert_has_rank(self, rank):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def with_rank(self, rank):
        if self._dims is None:
            return unknown_shape(rank)
        self.assert_has_rank(rank)
        return self

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError("Shape %s must have rank at least %d" % (self, rank))
        return self

    def with_rank_at_most(self, rank):
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError("Shape %s must have rank at most %d" % (self, rank))
        return self

    def is_subtype_of(self, other):
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def as_proto(self):
        from tensorboard.compat.proto import tensor_shape_pb2
        proto = tensor_shape_pb2.TensorShapeProto()
        if self._dims is None:
            proto.unknown_rank = True
        else:
            for d in self._dims:
                proto.dim.add(size=-1 if d is None else d)
        return proto

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash(self._dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape(%s)" % list(self._dims)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % self._dims[0]
        return "(%s)" % ", ".join(str(d) for d in self._dims)

    def __reduce__(self):
        return TensorShape, (self._dims,)


def unknown_shape(rank=None, **kwargs):
    """A shape of unknown rank, or of known rank with all dimensions unknown."""
    rank = kwargs.pop("ndims", rank)
    return TensorShape(None if rank is None else [None] * rank)


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)
