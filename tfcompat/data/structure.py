"""Nested element structures of tf.data: flatten/pack like `tf.nest`, and element specs.

An element is a tuple, dict (keys flattened in sorted order, as `tf.nest` does), namedtuple
or single leaf; leaves are tensors (`EagerTensor`, graph tensors), `tf.SparseTensor`s or
`tf.RaggedTensor`s. Lists returned by user functions are converted to tuples, as TF does (with
a warning there). A composite leaf is made of dense components (`components`,
`component_specs`, `from_components`), which is how iterators, caches and saved datasets
carry it.
"""
import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.framework.ops import convert_to_tensor, to_torch
from tfcompat.framework.tensor import EagerTensor, Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.function import TensorSpec
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor
from tfcompat.ops.sparse_ops import SparseTensor, SparseTensorValue


@tf_export("SparseTensorSpec")
class SparseTensorSpec(object):
    """`tf.SparseTensorSpec(shape, dtype)`: the type of a SparseTensor element."""

    def __init__(self, shape=None, dtype=dtypes.float32):
        self.shape = TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype)

    def __eq__(self, other):
        return isinstance(other, SparseTensorSpec) and (self.shape, self.dtype) == \
            (other.shape, other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return "SparseTensorSpec(TensorShape(%s), %r)" % (self.shape.as_list()
                                                         if self.shape.rank is not None
                                                         else None, self.dtype)


@tf_export("RaggedTensorSpec")
class RaggedTensorSpec(object):
    """`tf.RaggedTensorSpec(shape, dtype, ragged_rank, row_splits_dtype)`: the type of a
    RaggedTensor element (`ragged_rank` defaults to rank - 1, as in TF)."""

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None,
                 row_splits_dtype=dtypes.int64, flat_values_spec=None):
        if flat_values_spec is not None:
            raise NotImplementedError("tf.RaggedTensorSpec(flat_values_spec=...) is not "
                                      "supported by tfcompat")
        self.shape = TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        rank = self.shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int) or ragged_rank < 0 or \
                (rank is not None and ragged_rank >= max(rank, 1)):
            raise ValueError("ragged_rank must be non-negative and less than the rank, got "
                             "%r for shape %s" % (ragged_rank, self.shape))
        self.ragged_rank = ragged_rank
        self.row_splits_dtype = dtypes.as_dtype(row_splits_dtype)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits.dtype)

    def _key(self):
        return (self.shape, self.dtype, self.ragged_rank, self.row_splits_dtype)

    def __eq__(self, other):
        return isinstance(other, RaggedTensorSpec) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return "RaggedTensorSpec(%s, %r, %d, %r)" % (
            repr(self.shape), self.dtype, self.ragged_rank, self.row_splits_dtype)


def components(leaf):
    """The dense tensors of one element leaf: a SparseTensor has three (indices, values,
    dense_shape), a RaggedTensor its flat values and then its row splits, outermost first."""
    if isinstance(leaf, SparseTensor):
        return [leaf.indices, leaf.values, leaf.dense_shape]
    if isinstance(leaf, RaggedTensor):
        return [leaf.flat_values] + list(leaf.nested_row_splits)
    return [leaf]


def component_specs(spec):
    """(dtype, shape) of each component of a leaf of type `spec` (see `components`)."""
    if isinstance(spec, SparseTensorSpec):
        rank = spec.shape.rank
        return [(dtypes.int64, TensorShape([None, rank])), (spec.dtype, TensorShape([None])),
                (dtypes.int64, TensorShape([rank]))]
    if isinstance(spec, RaggedTensorSpec):
        inner = spec.shape[spec.ragged_rank + 1:] if spec.shape.rank is not None \
            else TensorShape(None)
        return [(spec.dtype, TensorShape([None]).concatenate(inner))] + \
            [(spec.row_splits_dtype, TensorShape([None]))] * spec.ragged_rank
    return [(spec.dtype, spec.shape)]


def from_components(spec, parts):
    """The leaf of type `spec` made of its components `parts` (see `components`)."""
    if isinstance(spec, SparseTensorSpec):
        leaf = SparseTensor.__new__(SparseTensor)
        leaf._indices, leaf._values, leaf._dense_shape = parts
        return leaf
    if isinstance(spec, RaggedTensorSpec):
        leaf = parts[0]
        for splits in reversed(parts[1:]):
            leaf = RaggedTensor(leaf, splits, internal=True)
        return leaf
    return parts[0]


def is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def is_leaf(value):
    return not isinstance(value, (tuple, list, dict))


def flatten(structure):
    """Leaves of a nested structure, dict keys in sorted order (like `tf.nest.flatten`)."""
    if isinstance(structure, (tuple, list)):
        out = []
        for item in structure:
            if isinstance(item, (tuple, list, dict)):
                out.extend(flatten(item))
            else:
                out.append(item)
        return out
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    return [structure]


def pack_as(structure, flat):
    """Rebuild `structure`'s shape from a flat list of leaves."""
    return _pack(structure, iter(flat))


def _pack(node, leaves):
    # module-level recursion: a self-calling closure would keep the leaves alive in a cycle
    if is_namedtuple(node):
        return type(node)(*[_pack(v, leaves) for v in node])
    if isinstance(node, (tuple, list)):
        return type(node)(_pack(v, leaves) for v in node)
    if isinstance(node, dict):
        built = {key: _pack(node[key], leaves) for key in sorted(node)}
        return type(node)((key, built[key]) for key in node)
    return next(leaves)


def map_structure(fn, structure):
    return pack_as(structure, [fn(leaf) for leaf in flatten(structure)])


def _nesting(node):
    """A hashable description of `node`'s nesting, leaves left out."""
    if isinstance(node, (tuple, list)):
        return (type(node).__name__ if is_namedtuple(node) else "seq",
                tuple(_nesting(v) for v in node))
    if isinstance(node, dict):
        return ("dict", tuple((k, _nesting(node[k])) for k in sorted(node)))
    return "leaf"


def assert_same_structure(a, b, what):
    if _nesting(a) != _nesting(b):
        raise TypeError("%s: the two structures don't have the same nested structure.\n"
                        "First structure: %r\nSecond structure: %r" % (what, a, b))


def _leaf_to_tensor(value):
    if isinstance(value, (SparseTensor, RaggedTensor)):
        return value
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    if isinstance(value, Tensor) or hasattr(value, "_tfcompat_tensor_"):
        return value
    if value is None:
        raise TypeError("Dataset elements cannot contain None; use a tensor instead")
    return convert_to_tensor(value)


def normalize_element(value):
    """User-function output -> element: lists become tuples, values become tensors."""
    if is_namedtuple(value):
        return type(value)(*[normalize_element(v) for v in value])
    if isinstance(value, (tuple, list)):
        return tuple(normalize_element(v) for v in value)
    if isinstance(value, dict):
        return type(value)((k, normalize_element(v)) for k, v in value.items())
    return _leaf_to_tensor(value)


def normalize_components(value):
    """`from_tensors`/`from_tensor_slices` input: tuples/dicts nest, lists are tensors."""
    if is_namedtuple(value):
        return type(value)(*[normalize_components(v) for v in value])
    if isinstance(value, tuple):
        return tuple(normalize_components(v) for v in value)
    if isinstance(value, dict):
        return type(value)((k, normalize_components(v)) for k, v in value.items())
    if isinstance(value, (SparseTensor, SparseTensorValue, RaggedTensor)):
        return _leaf_to_tensor(value)
    if isinstance(value, Tensor) or hasattr(value, "_tfcompat_tensor_"):
        if type(value) is EagerTensor or not isinstance(value, Tensor):
            return EagerTensor(to_torch(value)) if type(value) is not EagerTensor else value
        return value
    # Python / numpy values become concrete tensors in either mode (no graph constants)
    return EagerTensor(to_torch(value))


def spec_of(value):
    """The TensorSpec / SparseTensorSpec / RaggedTensorSpec of one leaf."""
    if isinstance(value, SparseTensor):
        return SparseTensorSpec(value.shape, value.dtype)
    if isinstance(value, RaggedTensor):
        return RaggedTensorSpec.from_value(value)
    return TensorSpec(value.shape, value.dtype)


def element_spec(element):
    return map_structure(spec_of, element)


def most_specific(a, b):
    """The shape compatible with both (unequal dims become None)."""
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def torch_value(leaf):
    """The torch tensor (or string array) of an eager leaf."""
    return leaf._t if type(leaf) is EagerTensor else to_torch(leaf)


def stack(values):
    """Stack a list of torch tensors / string arrays along a new first axis."""
    first = values[0]
    if isinstance(first, np.ndarray):
        out = np.empty((len(values),) + first.shape, dtype=object)
        for i, v in enumerate(values):
            out[i, ...] = v
        return out
    return torch.stack(values)
