"""`tf.data.Dataset` and its transformations.

A Dataset is a description (a tree of nodes); iterating it builds Python iterators that pull
elements (nested structures of EagerTensors / SparseTensors) through the pipeline.

TF semantics kept: element structures and specs, batching (drop_remainder, padded_batch,
sparse batching), shuffle's buffer (fill `buffer_size` elements, then emit a uniformly chosen
one and refill its slot; a new order per epoch unless `reshuffle_each_iteration=False`;
seeded runs repeat), interleave's cycle/block order, `repeat`/`take`/`skip`/`shard`, cache.
`map(num_parallel_calls)` runs on worker threads and `prefetch` on a background thread.

`map` functions are traced once into a graph, as TF traces them (Python side effects happen
once), and run from the graph per element; `map(f).batch(n)` runs f once per batch where
every op of f has a batch rule (TF's map vectorization, see `vectorization`). Datasets
hand `batch` their elements in chunks (`Dataset._iter_chunks`), so sources that read many
elements at once (TFRecord files) and vectorized maps pass whole batches along.

Where we differ: the other user functions (`filter`, `flat_map`, `interleave`, `reduce` ...)
and map functions that cannot be traced (see `structured_function`) run eagerly on
EagerTensors at iteration time, in graph mode too (values match TF's; Python side effects
happen per element, and a function may not use graph tensors of the enclosing TF1 graph).
The random numbers of shuffle, `random`, `sample_from_datasets` and `rejection_resample`
differ from TF's. `cache(filename)` writes tfcompat's own file format.

`Dataset.save(path)` / `tf.data.experimental.save` write tfcompat's own format too (TF's
snapshot files cannot be read, nor ours by TF): a directory holding `dataset_spec.json`
(format name, compression, the element spec as JSON, the number of elements and the shard
indices) and one TFRecord file per shard, `shard-00000.tfrecord` ... (GZIP or ZLIB compressed
with `compression=`), whose records are the elements: each component (a SparseTensor has 3,
a RaggedTensor its flat values and row splits) as dtype enum, shape and raw bytes. Loading
runs no code from the files: dtypes and spec classes are looked up by name in our tables.
Without `shard_func` every element goes to shard 0, so a load gives the saved order.
"""
import bisect
import collections
import functools
import glob as _glob
import itertools
import json
import os
import struct
import threading

import numpy as np
import torch

from tfcompat._api import export_constant, tf_export
from tfcompat.data import execution, structure
from tfcompat.data.execution import AUTOTUNE
from tfcompat.data.options import Options
from tfcompat.data.structured_function import (StructuredFunction, call_with_element,
                                               placeholder_for)
from tfcompat.data.structure import (RaggedTensorSpec, SparseTensorSpec, element_spec, flatten,
                                     map_structure, normalize_components, normalize_element,
                                     pack_as)
from tfcompat.framework import context, dtypes, errors, random_seed
from tfcompat.framework.ops import to_torch
from tfcompat.framework.tensor import EagerTensor, Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.function import TensorSpec
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor
from tfcompat.ops.sparse_ops import SparseTensor, SparseTensorValue
from tfcompat.framework.graph import Graph
from tfcompat.data.torch_bridge import TorchIterableDataset
from tfcompat.io.tf_record import TFRecordWriter, read_records
from tfcompat.ops import array_ops

export_constant(AUTOTUNE, "data.AUTOTUNE", "data.experimental.AUTOTUNE")
INFINITE = -1
UNKNOWN = -2
export_constant(INFINITE, "data.INFINITE_CARDINALITY", "data.experimental.INFINITE_CARDINALITY")
export_constant(UNKNOWN, "data.UNKNOWN_CARDINALITY", "data.experimental.UNKNOWN_CARDINALITY")
export_constant(-1, "data.experimental.SHARD_HINT")


# ---------------------------------------------------------------- helpers


def _is_symbolic(value):
    return isinstance(value, Tensor) and type(value) is not EagerTensor


def _leaf_captures(leaf):
    if isinstance(leaf, SparseTensor):
        return [t for t in (leaf.indices, leaf.values, leaf.dense_shape) if _is_symbolic(t)]
    return [leaf] if _is_symbolic(leaf) else []


def _resolve(leaf, env):
    """A leaf with graph tensors replaced by their run-time values (`env`: id -> EagerTensor)."""
    if isinstance(leaf, SparseTensor):
        parts = [env[id(t)] if _is_symbolic(t) else t
                 for t in (leaf.indices, leaf.values, leaf.dense_shape)]
        return leaf if all(p is q for p, q in zip(parts, (leaf.indices, leaf.values,
                                                          leaf.dense_shape))) \
            else SparseTensor(*parts)
    if _is_symbolic(leaf):
        return env[id(leaf)]
    return leaf


def _scalar(value, dtype, what, env=None):
    """A Python int from a scalar argument (Python value, eager or fed graph tensor)."""
    if env is not None:
        value = _resolve(value, env)
    if _is_symbolic(value):
        raise ValueError("%s is a graph tensor whose value is not known yet" % what)
    t = to_torch(value, None if isinstance(value, (Tensor,)) else dtype)
    if isinstance(t, np.ndarray):
        raise TypeError("%s must be a number, got a string" % what)
    if t.ndim != 0:
        raise errors.InvalidArgumentError("%s must be a scalar, got shape %s"
                                          % (what, list(t.shape)))
    return t.item()


def _keep(value, dtype):
    """Keep a scalar argument: graph tensors stay symbolic, others become Python values."""
    if _is_symbolic(value):
        return value
    if isinstance(value, Tensor) or hasattr(value, "_tfcompat_tensor_"):
        return to_torch(value).item()
    return value


def _slice_leaf(leaf):
    """Iterator over the slices of a leaf along its first dimension (the rows of a
    RaggedTensor of ragged rank 1 are Tensors, as in TF)."""
    if isinstance(leaf, SparseTensor):
        return _sparse_rows(leaf)
    if isinstance(leaf, RaggedTensor):     # ragged ops, run eagerly in graph mode too
        return (execution.call(leaf.__getitem__, i) for i in range(len(leaf)))
    t = structure.torch_value(leaf)
    if isinstance(t, np.ndarray):
        if t.ndim == 1:
            def scalar(v):
                out = np.empty((), dtype=object)
                out[()] = v
                return EagerTensor(out)
            return (scalar(v) for v in t)
        return (EagerTensor(row) for row in t)
    # views of a block of rows at a time: unbinding a long tensor at once is slow
    return (EagerTensor(row) for block in t.split(1024) for row in block.unbind(0))


def _sparse_rows(sp):
    indices = structure.torch_value(sp.indices)
    values = structure.torch_value(sp.values)
    shape = structure.torch_value(sp.dense_shape)
    rows = int(shape[0])
    for row in range(rows):
        mask = indices[:, 0] == row
        sel = indices[mask][:, 1:]
        vals = values[mask.numpy()] if isinstance(values, np.ndarray) else values[mask]
        yield SparseTensor(EagerTensor(sel.contiguous()), EagerTensor(vals),
                           EagerTensor(shape[1:].clone()))


def _first_dim(leaf):
    if isinstance(leaf, SparseTensor):
        shape = leaf.dense_shape
        return int(structure.torch_value(shape)[0]) if not _is_symbolic(shape) else None
    dims = leaf.shape
    if dims.rank == 0:
        raise ValueError("Unbatching a tensor is only supported for rank >= 1; "
                         "from_tensor_slices needs components of rank >= 1")
    return dims.as_list()[0] if dims.rank is not None else None


def _batch_leaves(leaves, component=0):
    """Stack a list of equal-shaped eager leaves (SparseTensors: TF's sparse batching;
    RaggedTensors: one more ragged dimension)."""
    first = leaves[0]
    if isinstance(first, SparseTensor):
        return _batch_sparse(leaves)
    if isinstance(first, RaggedTensor):
        return _ragged_stack(leaves, first.ragged_rank + 1,
                             dtypes.as_dtype(first.row_splits.dtype))
    values = [structure.torch_value(leaf) for leaf in leaves]
    shape0 = values[0].shape
    for index, v in enumerate(values):
        if v.shape != shape0:
            raise errors.InvalidArgumentError(
                "Cannot batch tensors with different shapes in component %d. First element "
                "had shape %s and element %d had shape %s. (Use padded_batch for elements of "
                "different shapes.)" % (component, list(shape0), index, list(v.shape)))
    return EagerTensor(structure.stack(values))


def _batch_sparse(leaves):
    rank = None
    all_indices, all_values, max_shape = [], [], None
    for i, sp in enumerate(leaves):
        idx = structure.torch_value(sp.indices)
        shape = structure.torch_value(sp.dense_shape)
        rank = shape.shape[0] if rank is None else rank
        if shape.shape[0] != rank:
            raise errors.InvalidArgumentError("Cannot batch SparseTensors of different ranks")
        max_shape = shape.clone() if max_shape is None else torch.maximum(max_shape, shape)
        all_indices.append(torch.cat([torch.full((idx.shape[0], 1), i, dtype=torch.int64),
                                      idx], dim=1))
        all_values.append(structure.torch_value(sp.values))
    if isinstance(all_values[0], np.ndarray):
        values = np.concatenate(all_values)
    else:
        values = torch.cat(all_values)
    dense_shape = torch.cat([torch.tensor([len(leaves)], dtype=torch.int64), max_shape])
    return SparseTensor(EagerTensor(torch.cat(all_indices)), EagerTensor(values),
                        EagerTensor(dense_shape))


class Chunk(object):
    """`size` consecutive elements of a dataset: as a list of elements, stacked into one
    batched element, or both (each computed from the other when first asked for).

    `error`, if not None, was raised computing the element after these: a consumer takes
    the elements, then raises it.
    """

    __slots__ = ("size", "error", "_elements", "_stacked")

    def __init__(self, size, elements=None, stacked=None, error=None):
        self.size = size
        self.error = error
        self._elements = elements
        self._stacked = stacked

    def elements(self):
        if self._elements is None:
            stacked = self._stacked
            leaves = flatten(stacked)
            rows = zip(*[_slice_leaf(leaf) for leaf in leaves])
            if type(stacked) is tuple and not any(isinstance(c, (tuple, list, dict))
                                                  for c in stacked):   # a flat tuple
                self._elements = list(rows)
            elif len(leaves) == 1 and stacked is leaves[0]:
                self._elements = [row[0] for row in rows]
            else:
                self._elements = [pack_as(stacked, row) for row in rows]
        return self._elements

    def stacked(self, spec=None):
        """The batched element (InvalidArgumentError if the elements differ in shape);
        `spec`, the elements' spec, tells which components are batched as ragged."""
        if self._stacked is None:
            self._stacked = _batch_elements(self._elements, spec)
        return self._stacked


def _batched_spec(spec, batch_dim):
    if isinstance(spec, RaggedTensorSpec):
        return RaggedTensorSpec(TensorShape([batch_dim]).concatenate(spec.shape), spec.dtype,
                                spec.ragged_rank + 1, spec.row_splits_dtype)
    if isinstance(spec, SparseTensorSpec):
        return SparseTensorSpec(TensorShape([batch_dim]).concatenate(spec.shape), spec.dtype)
    return TensorSpec(TensorShape([batch_dim]).concatenate(spec.shape), spec.dtype)


def _unbatched_spec(spec):
    if spec.shape.rank == 0:
        raise ValueError("Unbatching a dataset is only supported for rank >= 1")
    if isinstance(spec, RaggedTensorSpec):
        return RaggedTensorSpec(spec.shape[1:], spec.dtype, spec.ragged_rank - 1,
                                spec.row_splits_dtype)
    cls = SparseTensorSpec if isinstance(spec, SparseTensorSpec) else TensorSpec
    return cls(TensorShape(None) if spec.shape.rank is None else spec.shape[1:], spec.dtype)


def _placeholder_for(graph, spec):
    if isinstance(spec, DatasetSpec):
        return _SpecDataset(spec.element_spec)
    return placeholder_for(graph, spec)


def trace_function(fn, input_spec):
    """Call `fn` on graph placeholders shaped like `input_spec`; returns its output structure.

    This is how TF learns a function's output types; the function's Python code runs once.
    """
    graph = Graph()
    with graph.as_default():
        args = map_structure(lambda s: _placeholder_for(graph, s), input_spec)
        return call_with_element(fn, args)


def _spec_of_output(value):
    value = normalize_element(value) if not isinstance(value, Dataset) else value
    return map_structure(lambda leaf: DatasetSpec(leaf.element_spec)
                         if isinstance(leaf, Dataset) else structure.spec_of(leaf), value)


# ---------------------------------------------------------------- Dataset


@tf_export("data.Dataset")
class Dataset(object):
    """`tf.data.Dataset` (TF1's DatasetV1 and TF2's DatasetV2 methods on one class)."""

    _inputs = ()

    # --- subclasses implement
    def _iter(self, env):
        raise NotImplementedError

    def _compute_spec(self):
        raise NotImplementedError

    def _own_captures(self):
        return []

    def _cardinality(self):
        return UNKNOWN

    def _peek_is_cheap(self):
        """Whether computing the first element runs no user code and little work."""
        return False

    def _iter_ignoring_errors(self, env):
        """The elements, leaving out those whose computation raises a TF error (OpError), for
        `ignore_errors`. Datasets computing each element on its own (`map`, CSV records) go
        on past such an error, as TF's do; the others end at it."""
        source = self._iter(env)
        while True:
            try:
                element = next(source)
            except StopIteration:
                return
            except errors.OpError:
                return
            yield element

    def _iter_chunks(self, env, size):
        """The elements in `Chunk`s of `size` (the last one may be smaller, or end with an
        error)."""
        source = self._iter(env)
        while True:
            items = []
            try:
                items.extend(itertools.islice(source, size))
            except Exception as error:  # after the elements before it
                yield Chunk(len(items), elements=items, error=error)
                return
            if not items:
                return
            yield Chunk(len(items), elements=items)
            if len(items) < size:
                return

    # --- structure
    @property
    def element_spec(self):
        spec = self.__dict__.get("_spec")
        if spec is None:
            spec = self._spec = self._compute_spec()
        return spec

    @property
    def output_types(self):
        return map_structure(lambda s: s.dtype if not isinstance(s, DatasetSpec) else s,
                             self.element_spec)

    @property
    def output_shapes(self):
        return map_structure(lambda s: s.shape if not isinstance(s, DatasetSpec) else s,
                             self.element_spec)

    @property
    def output_classes(self):
        return map_structure(lambda s: SparseTensor if isinstance(s, SparseTensorSpec) else
                             (Dataset if isinstance(s, DatasetSpec) else Tensor),
                             self.element_spec)

    def _captures(self):
        """Graph tensors the pipeline uses (values supplied when an iterator initializes)."""
        seen, out = set(), []
        for ds in self._walk():
            for t in ds._own_captures():
                if id(t) not in seen:
                    seen.add(id(t))
                    out.append(t)
        return out

    def _walk(self):
        yield self
        for child in self._inputs:
            yield from child._walk()

    def _first_element_spec(self):
        if self._captures():
            raise ValueError("cannot infer the element structure of this dataset")
        for element in self._iter({}):
            return element_spec(element)
        raise ValueError("cannot infer the element structure of an empty dataset")

    # --- iteration
    def __iter__(self):
        if context.state.building_graph:
            raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in "
                               "eager mode; in graph mode use make_one_shot_iterator() or "
                               "make_initializable_iterator()")
        # in-function: iterator_ops is built on this module (TF's dataset_ops does the same)
        from tfcompat.data.iterator_ops import OwnedIterator
        return OwnedIterator(self)

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True

    def cardinality(self):
        """`Dataset.cardinality()`: the number of elements, INFINITE (-1) or UNKNOWN (-2)."""
        return EagerTensor(torch.tensor(self._cardinality(), dtype=torch.int64))

    def as_numpy_iterator(self):
        """A `tf.data.NumpyIterator` over the elements as numpy values (works in graph mode
        too, unlike TF)."""
        return NumpyIterator(self)

    def _eager_elements(self):
        it = self._iter({})
        while True:
            if context.state.building_graph:
                with execution.eager_window():
                    element = next(it, _END)
            else:
                element = next(it, _END)
            if element is _END:
                return
            yield element

    def as_torch_dataset(self, to_numpy=False):
        """This dataset as a `torch.utils.data.IterableDataset` (tfcompat extension).

        Elements come as nested structures of torch tensors (numpy arrays for strings and
        with `to_numpy=True`); use it with `torch.utils.data.DataLoader(ds, batch_size=None)`.
        """
        return TorchIterableDataset(self, to_numpy)

    # --- TF1 iterators
    def make_one_shot_iterator(self):
        # in-function: iterator_ops is built on this module (TF's dataset_ops does the same)
        from tfcompat.data.iterator_ops import make_one_shot_iterator
        return make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        # in-function: iterator_ops is built on this module (TF's dataset_ops does the same)
        from tfcompat.data.iterator_ops import make_initializable_iterator
        return make_initializable_iterator(self, shared_name)

    # --- sources
    @staticmethod
    def from_tensors(tensors):
        return TensorDataset(tensors)

    @staticmethod
    def from_tensor_slices(tensors):
        return TensorSliceDataset(tensors)

    @staticmethod
    def from_sparse_tensor_slices(sparse_tensor):
        return TensorSliceDataset(SparseTensor.from_value(sparse_tensor))

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None):
        return RangeDataset(*args, output_type=output_type)

    @staticmethod
    def zip(*datasets, name=None):
        if len(datasets) == 1 and not isinstance(datasets[0], Dataset):
            datasets = datasets[0]
        return ZipDataset(datasets)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        return ListFilesDataset(file_pattern, shuffle, seed)

    # --- transformations
    def concatenate(self, dataset, name=None):
        return ConcatenateDataset(self, dataset)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        return MapDataset(self, map_func, num_parallel_calls)

    def map_with_legacy_function(self, map_func, num_parallel_calls=None, deterministic=None):
        return MapDataset(self, map_func, num_parallel_calls)

    def flat_map(self, map_func, name=None):
        return InterleaveDataset(self, map_func, 1, 1, None)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        return InterleaveDataset(self, map_func, cycle_length, block_length, num_parallel_calls)

    def filter(self, predicate, name=None):
        return FilterDataset(self, predicate)

    def filter_with_legacy_function(self, predicate):
        return FilterDataset(self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        return BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values,
                                  drop_remainder)

    def unbatch(self, name=None):
        return UnbatchDataset(self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        return RepeatDataset(self, count)

    def take(self, count, name=None):
        return TakeDataset(self, count)

    def skip(self, count, name=None):
        return SkipDataset(self, count)

    def shard(self, num_shards, index, name=None):
        return ShardDataset(self, num_shards, index)

    def prefetch(self, buffer_size, name=None):
        return PrefetchDataset(self, buffer_size)

    def cache(self, filename="", name=None):
        return CacheDataset(self, filename)

    def apply(self, transformation_func):
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError("`transformation_func` must return a Dataset. Got %r." % (result,))
        return result

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        return WindowDataset(self, size, shift, stride, drop_remainder)

    def enumerate(self, start=0, name=None):
        return ZipDataset((RangeDataset(start, np.iinfo(np.int64).max), self))

    def with_options(self, options, name=None):
        return OptionsDataset(self, options)

    def options(self):
        """The pipeline's `tf.data.Options`: those given to `with_options` along it, the
        ones nearer this dataset winning."""
        result = Options()
        for dataset in reversed(list(self._walk())):
            own = dataset.__dict__.get("_options")
            if own is not None:
                result = result.merge(own)
        return result

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None,
                 name=None):
        return SnapshotDataset(self, path, compression, reader_func, shard_func)

    def ignore_errors(self, log_warning=False, name=None):
        return IgnoreErrorsDataset(self)

    def scan(self, initial_state, scan_func, name=None):
        return ScanDataset(self, initial_state, scan_func)

    def unique(self, name=None):
        return UniqueDataset(self)

    def take_while(self, predicate, name=None):
        return TakeWhileDataset(self, predicate)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None,
                        name=None):
        return GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None, padding_values=None,
                                  pad_to_bucket_boundary=False, no_padding=False,
                                  drop_remainder=False, name=None):
        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                         bucket_batch_sizes, padded_shapes, padding_values,
                                         pad_to_bucket_boundary, no_padding, drop_remainder)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None,
                           name=None):
        return RejectionResampleDataset(self, class_func, target_dist, initial_dist, seed)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64,
                     name=None):
        return RaggedBatchDataset(self, batch_size, drop_remainder, row_splits_dtype)

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        return RandomDataset(seed, rerandomize_each_iteration)

    @staticmethod
    def counter(start=0, step=1, dtype=dtypes.int64, name=None):
        return CounterDataset(start, step, dtype)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset,
                                    rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        return DirectedInterleaveDataset(choice_dataset, datasets, stop_on_empty_dataset)

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
        """`Dataset.save`: writes the elements now, in the format of `load` (see the module
        docstring)."""
        save_dataset(self, path, compression, shard_func, checkpoint_args)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None):
        return LoadDataset(path, element_spec, compression, reader_func)

    def get_single_element(self, name=None):
        """`Dataset.get_single_element()`: eager value; in graph mode, one node."""
        # in-function: iterator_ops is built on this module (TF's dataset_ops does the same)
        from tfcompat.data.iterator_ops import get_single_element
        return get_single_element(self)

    def sparse_batch(self, batch_size, row_shape, name=None):
        return SparseBatchDataset(self, batch_size, row_shape)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """The elements of the batches regrouped in batches of `batch_size` (TF's rebatch;
        a list of batch sizes, which TF cycles through for distribution, is not supported)."""
        if isinstance(batch_size, (list, tuple)):
            raise NotImplementedError("tf.data.Dataset.rebatch with a list of batch sizes is "
                                      "not supported by tfcompat")
        return self.unbatch().batch(batch_size, drop_remainder)

    def fingerprint(self):
        raise NotImplementedError("tf.data.Dataset.fingerprint() is not supported by tfcompat")

    def reduce(self, initial_state, reduce_func, name=None):
        """`Dataset.reduce`: eager loop; in graph mode, one node running the loop."""
        # in-function: iterator_ops is built on this module (TF's dataset_ops does the same)
        from tfcompat.data.iterator_ops import reduce_dataset
        return reduce_dataset(self, initial_state, reduce_func)

    def __repr__(self):
        try:
            spec = self.element_spec
        except Exception:  # a repr must not fail
            spec = "?"
        return "<%s element_spec=%s>" % (type(self).__name__, spec)


_END = object()


@tf_export("data.NumpyIterator")
class NumpyIterator(object):
    """`tf.data.NumpyIterator`: the elements of a dataset as numpy values (RaggedTensors as
    `tf.RaggedTensor.numpy()` gives them, SparseTensors as SparseTensorValues)."""

    def __init__(self, dataset):
        self._elements = dataset._eager_elements()

    def __iter__(self):
        return self

    def __next__(self):
        return map_structure(_to_numpy_leaf, next(self._elements))

    next = __next__


def _to_numpy_leaf(leaf):
    if isinstance(leaf, SparseTensor):
        return SparseTensorValue(leaf.indices.numpy(), leaf.values.numpy(),
                                 leaf.dense_shape.numpy())
    return leaf.numpy()


@tf_export("data.DatasetSpec")
class DatasetSpec(object):
    """`tf.data.DatasetSpec(element_spec)`: the type of a dataset-valued element (window)."""

    def __init__(self, element_spec, dataset_shape=()):
        self.element_spec = element_spec
        self.shape = TensorShape(dataset_shape)

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and self.element_spec == other.element_spec

    def __hash__(self):
        return hash(repr(self.element_spec))

    def __repr__(self):
        return "DatasetSpec(%r, TensorShape([]))" % (self.element_spec,)


class _SpecDataset(Dataset):
    """Stands for a dataset-valued argument while a function is traced."""

    def __init__(self, spec):
        self._spec = spec

    def _compute_spec(self):
        return self._spec

    def _iter(self, env):
        raise RuntimeError("a traced dataset argument cannot be iterated")


# ---------------------------------------------------------------- sources


class TensorDataset(Dataset):
    def __init__(self, tensors):
        self._components = normalize_components(tensors)

    def _peek_is_cheap(self):
        return True

    def _own_captures(self):
        return [c for leaf in flatten(self._components) for c in _leaf_captures(leaf)]

    def _compute_spec(self):
        return element_spec(self._components)

    def _cardinality(self):
        return 1

    def _iter(self, env):
        yield map_structure(lambda leaf: _resolve(leaf, env), self._components)


class TensorSliceDataset(Dataset):
    def __init__(self, tensors):
        self._components = normalize_components(tensors)
        leaves = flatten(self._components)
        if not leaves:
            raise ValueError("from_tensor_slices needs at least one component")
        dims = {_first_dim(leaf) for leaf in leaves} - {None}
        if len(dims) > 1:
            raise ValueError("Dimensions %s and %s are not compatible: all components given "
                             "to from_tensor_slices must have the same size in dimension 0"
                             % tuple(sorted(dims))[:2])
        self._n = dims.pop() if dims else None

    def _peek_is_cheap(self):
        return True

    def _own_captures(self):
        return [c for leaf in flatten(self._components) for c in _leaf_captures(leaf)]

    def _compute_spec(self):
        return map_structure(_unbatched_spec, element_spec(self._components))

    def _cardinality(self):
        return UNKNOWN if self._n is None else int(self._n)

    def _leaves(self, env):
        leaves = [_resolve(leaf, env) for leaf in flatten(self._components)]
        sizes = {_first_dim(leaf) for leaf in leaves}
        if len(sizes) > 1:
            raise errors.InvalidArgumentError(
                "All components given to from_tensor_slices must have the same size in "
                "dimension 0, got sizes %s" % sorted(sizes))
        return leaves

    def _iter(self, env):
        structure_ = self._components
        rows = zip(*[_slice_leaf(leaf) for leaf in self._leaves(env)])
        if type(structure_) is tuple and not any(isinstance(c, (tuple, list, dict))
                                                 for c in structure_):
            yield from rows     # a flat tuple: each row is the element
            return
        for flat in rows:
            yield pack_as(structure_, flat)

    def _iter_chunks(self, env, size):
        leaves = self._leaves(env)
        if any(isinstance(leaf, (SparseTensor, RaggedTensor)) for leaf in leaves):
            yield from Dataset._iter_chunks(self, env, size)
            return
        values = [structure.torch_value(leaf) for leaf in leaves]
        for start in range(0, len(values[0]), size):    # copies: batches own their values
            rows = [v[start:start + size].copy() if isinstance(v, np.ndarray) else
                    v[start:start + size].clone() for v in values]
            yield Chunk(len(rows[0]), stacked=pack_as(self._components,
                                                      [EagerTensor(r) for r in rows]))


class RangeDataset(Dataset):
    def __init__(self, *args, output_type=dtypes.int64):
        if not 1 <= len(args) <= 3:
            raise ValueError("Dataset.range takes 1 to 3 arguments (start, stop, step), got %d"
                             % len(args))
        values = [_keep(a, dtypes.int64) for a in args]
        if len(values) == 1:
            values = [0, values[0], 1]
        elif len(values) == 2:
            values = values + [1]
        self._args = values
        self._dtype = dtypes.as_dtype(output_type)

    def _peek_is_cheap(self):
        return True

    def _own_captures(self):
        return [a for a in self._args if _is_symbolic(a)]

    def _compute_spec(self):
        return TensorSpec([], self._dtype)

    def _bounds(self, env):
        start, stop, step = (_scalar(a, dtypes.int64, "range argument", env)
                             for a in self._args)
        if step == 0:
            raise errors.InvalidArgumentError("step must be a non-zero integer.")
        return start, stop, step

    def _cardinality(self):
        if self._own_captures():
            return UNKNOWN
        start, stop, step = self._bounds({})
        return max(0, -(-(stop - start) // step))

    def _iter(self, env):
        start, stop, step = self._bounds(env)
        torch_dtype = self._dtype.torch_dtype
        device = context.current_device()
        for value in range(start, stop, step):
            yield EagerTensor(torch.tensor(value, dtype=torch_dtype, device=device))


class ZipDataset(Dataset):
    def __init__(self, datasets):
        self._structure = datasets
        self._inputs = tuple(flatten(datasets))
        for ds in self._inputs:
            if not isinstance(ds, Dataset):
                raise TypeError("The argument to `Dataset.zip()` must be a (nested) structure "
                                "of `Dataset` objects, got %r" % (ds,))

    def _compute_spec(self):
        return pack_as(self._structure, [ds.element_spec for ds in self._inputs])

    def _cardinality(self):
        counts = [ds._cardinality() for ds in self._inputs]
        finite = [c for c in counts if c >= 0]
        if finite:
            return min(finite)
        return UNKNOWN if UNKNOWN in counts else INFINITE

    def _iter(self, env):
        iters = [ds._iter(env) for ds in self._inputs]
        for items in zip(*iters):
            yield pack_as(self._structure, items)


def _spec_compatible(a, b):
    fa, fb = flatten(a), flatten(b)
    if len(fa) != len(fb):
        return False
    return all(type(x) is type(y) and x.dtype == y.dtype for x, y in zip(fa, fb))


class ConcatenateDataset(Dataset):
    def __init__(self, first, second):
        self._inputs = (first, second)
        structure.assert_same_structure(first.element_spec, second.element_spec,
                                        "Dataset.concatenate")
        if not _spec_compatible(first.element_spec, second.element_spec):
            raise TypeError("Two datasets to concatenate have different types %s and %s"
                            % (first.output_types, second.output_types))

    def _compute_spec(self):
        a, b = self._inputs[0].element_spec, self._inputs[1].element_spec
        return pack_as(a, [type(x)(structure.most_specific(x.shape, y.shape), x.dtype)
                           for x, y in zip(flatten(a), flatten(b))])

    def _cardinality(self):
        a, b = (ds._cardinality() for ds in self._inputs)
        if INFINITE in (a, b):
            return INFINITE
        if UNKNOWN in (a, b):
            return UNKNOWN
        return a + b

    def _iter(self, env):
        yield from self._inputs[0]._iter(env)
        yield from self._inputs[1]._iter(env)


def _spec_structure(output_types, output_shapes, output_signature):
    if output_signature is not None:
        for argument, value in (("output_types", output_types),
                                ("output_shapes", output_shapes)):
            if value is not None:
                raise TypeError("The `%s` argument can not be used together with the "
                                "`output_signature` argument." % argument)
        for spec in flatten(output_signature):
            if not isinstance(spec, (TensorSpec, SparseTensorSpec, RaggedTensorSpec)):
                raise TypeError("`output_signature` must contain objects that are subclass "
                                "of `tf.TypeSpec` but found %s which is not." % type(spec))
        return output_signature
    if output_types is None:
        raise TypeError("`from_generator` needs `output_signature` (or `output_types`)")
    if output_shapes is None:
        return map_structure(lambda t: TensorSpec(None, t), output_types)
    flat_types = flatten(output_types)
    if isinstance(output_shapes, (list, tuple)) and output_shapes and \
            all(isinstance(s, (int, type(None))) for s in output_shapes) and \
            len(flat_types) == 1:
        flat_shapes = [output_shapes]
    elif isinstance(output_shapes, TensorShape) or output_shapes == () or \
            output_shapes == []:
        flat_shapes = [output_shapes] * len(flat_types) if len(flat_types) == 1 else \
            flatten(output_shapes)
    else:
        flat_shapes = _flatten_shapes(output_shapes)
    if len(flat_shapes) != len(flat_types):
        raise ValueError("`output_shapes` must have the same structure as `output_types`")
    return pack_as(output_types, [TensorSpec(s, t) for s, t in zip(flat_shapes, flat_types)])


def _flatten_shapes(shapes):
    """Flatten a structure whose leaves are shapes (lists of ints / TensorShapes)."""
    if isinstance(shapes, TensorShape):
        return [shapes]
    if isinstance(shapes, dict):
        return [s for k in sorted(shapes) for s in _flatten_shapes(shapes[k])]
    if isinstance(shapes, (list, tuple)):
        if all(isinstance(s, (int, type(None))) or hasattr(s, "value") for s in shapes):
            return [TensorShape(list(shapes))]
        return [s for item in shapes for s in _flatten_shapes(item)]
    return [TensorShape(shapes)]


def _generator_error(message):
    """TF's error for a bad generator element: the py_func's TypeError, raised as an
    InvalidArgumentError by the iterator."""
    return errors.InvalidArgumentError("TypeError: `generator` " + message)


def _expected_structure(spec):
    return map_structure(lambda s: s.dtype if type(s) is TensorSpec else s, spec)


def _generated_leaves(spec, value, whole_spec, whole_value):
    """Leaves of a yielded `value` in the structure of `spec` (lists accepted for tuples)."""
    if isinstance(spec, dict):
        matches = isinstance(value, dict) and set(value) == set(spec)
    elif isinstance(spec, (tuple, list)):
        matches = isinstance(value, (tuple, list)) and len(value) == len(spec)
    else:
        matches = not isinstance(spec, RaggedTensorSpec) or \
            not isinstance(value, (tuple, list, dict))
    if not matches:
        raise _generator_error(
            "yielded an element that did not match the expected structure. The expected "
            "structure was %s, but the yielded element was %s."
            % (_expected_structure(whole_spec), whole_value))
    if isinstance(spec, dict):
        return [leaf for key in sorted(spec)
                for leaf in _generated_leaves(spec[key], value[key], whole_spec, whole_value)]
    if isinstance(spec, (tuple, list)):
        return [leaf for s, v in zip(spec, value)
                for leaf in _generated_leaves(s, v, whole_spec, whole_value)]
    return [value]


def _generated_dense(spec, value):
    """A yielded value as a tensor of `spec`: converted as numpy converts it (TF does that
    too: 1.5 yielded for tf.int32 is 1), its shape checked."""
    try:
        if spec.dtype is dtypes.string:
            t = to_torch(value, dtypes.string)
        else:
            if isinstance(value, Tensor) or hasattr(value, "_tfcompat_tensor_"):
                value = to_torch(value)
                value = value.numpy() if isinstance(value, torch.Tensor) else value
            t = to_torch(np.asarray(value, dtype=spec.dtype.as_numpy_dtype), spec.dtype)
    except (TypeError, ValueError, OverflowError):
        raise _generator_error(
            "yielded an element that could not be converted to the expected type. The "
            "expected type was %s, but the yielded element was %s."
            % (spec.dtype.name, value)) from None
    shape = TensorShape(list(t.shape))
    if not spec.shape.is_compatible_with(shape):
        raise _generator_error("yielded an element of shape %s where an element of shape %s "
                               "was expected." % (shape, spec.shape))
    return EagerTensor(t)


def _generated_composite(spec, value):
    """A yielded SparseTensor / RaggedTensor, checked against its spec."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if not isinstance(value, (SparseTensor, RaggedTensor)):
        value = normalize_element(value)
    found = structure.spec_of(value)
    compatible = type(found) is type(spec) and found.dtype == spec.dtype and \
        spec.shape.is_compatible_with(found.shape) and \
        getattr(found, "ragged_rank", None) == getattr(spec, "ragged_rank", None)
    if not compatible:
        raise _generator_error("yielded an element of %r where an element of %r was expected."
                               % (found, spec))
    return value


def _generated_leaf(spec, value):
    if isinstance(spec, TensorSpec):
        return _generated_dense(spec, value)
    return _generated_composite(spec, value)


class GeneratorDataset(Dataset):
    """`from_generator`: each yielded element is checked against the signature (structure,
    then each value converted to its dtype and checked against its shape), raising TF's
    InvalidArgumentError with the generator's TypeError message."""

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        self._generator = generator
        self._args = tuple(normalize_components(a) for a in (args or ()))
        self._spec = _spec_structure(output_types, output_shapes, output_signature)

    def _own_captures(self):
        return [c for a in self._args for c in _leaf_captures(a)]

    def _compute_spec(self):
        return self._spec

    def _iter(self, env):
        args = [_resolve(a, env).numpy() for a in self._args]
        spec = self._spec
        specs = flatten(spec)
        for value in self._generator(*args):
            flat = _generated_leaves(spec, value, spec, value)
            yield pack_as(spec, [_generated_leaf(s, v) for s, v in zip(specs, flat)])


class ListFilesDataset(Dataset):
    def __init__(self, file_pattern, shuffle, seed):
        self._patterns = normalize_components(file_pattern)
        self._shuffle = shuffle
        self._seed = seed

    def _own_captures(self):
        return _leaf_captures(self._patterns)

    def _compute_spec(self):
        return TensorSpec([], dtypes.string)

    def _iter(self, env):
        patterns = structure.torch_value(_resolve(self._patterns, env))
        names = sorted({path for p in np.asarray(patterns, dtype=object).reshape(-1)
                        for path in _glob.glob(p.decode("utf-8") if isinstance(p, bytes)
                                               else p)})
        if not names:
            raise errors.InvalidArgumentError(
                "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
                "b'No files matched pattern: %s'" % ", ".join(
                    p.decode("utf-8") for p in np.asarray(patterns, dtype=object).reshape(-1)))
        source = TensorSliceDataset(np.array([n.encode("utf-8") for n in names], dtype=object))
        if self._shuffle is None or self._shuffle:
            source = ShuffleDataset(source, len(names), self._seed, True)
        yield from source._iter({})


# ---------------------------------------------------------------- functions


def _apply(fn, element):
    return normalize_element(call_with_element(fn, element))


_UNTRACEABLE = object()
_ELEMENTS_AHEAD = 32            # a vectorized map computes at most this many elements (or
_BYTES_AHEAD = 8 * 1024 * 1024  # batches) ahead, and of their results about this many bytes


class MapDataset(Dataset):
    """`map`: the function traced once (`StructuredFunction`), run per element or, for a
    following `batch`, per chunk of elements.

    Where every op of the function has a batch rule, it runs once per chunk on the stacked
    elements, several batches at once while their results stay small, and for per-element
    consumers a few elements ahead (`_iter_ahead`), as TF's map parallelization computes a
    pure function ahead. It runs on the thread that pulls the chunk, whatever
    `num_parallel_calls` says: its ops already work on whole batches, and worker threads
    would contend for the GIL and move every batch between cores.
    """

    def __init__(self, input_dataset, fn, num_parallel_calls):
        if not callable(fn):
            raise TypeError("`map_func` must be callable, got %r" % (fn,))
        self._inputs = (input_dataset,)
        self._fn = fn
        self._threads = execution.parallelism(num_parallel_calls) \
            if num_parallel_calls is not None else 0
        self._traced = None           # a StructuredFunction, or _UNTRACEABLE
        self._traced_on_sample = False
        self._trace_lock = threading.RLock()
        # TF traces the function when the dataset is built; so do we, on a sample element
        # too where shape inference needs one and the input gives it cheaply
        if self._function() is None and self._inputs[0]._peek_is_cheap():
            self._function(self._input_sample())

    def _function(self, sample=None):
        """The traced function, or None where it runs eagerly. Traced on placeholders
        first; if that fails and a `sample` element is given, on that element once."""
        with self._trace_lock:
            if self._traced is None:
                self._traced = self._trace(None)
            if self._traced is _UNTRACEABLE and sample is not None and \
                    not self._traced_on_sample:
                self._traced_on_sample = True
                self._traced = self._trace(sample)
        return None if self._traced is _UNTRACEABLE else self._traced

    def _trace(self, sample):
        try:
            return StructuredFunction(self._fn, self._inputs[0].element_spec, sample)
        except Exception:   # cannot run from a graph: the function runs eagerly
            return _UNTRACEABLE

    def _input_sample(self):
        """The first element of the input, or None (empty, depends on graph tensors, fails)."""
        if self._captures():
            return None
        try:
            return next(self._inputs[0]._iter({}), None)
        except Exception:   # reported when the dataset is iterated
            return None

    def _peek_is_cheap(self):
        function = self._function()
        return function is not None and function.vectorizable and \
            self._inputs[0]._peek_is_cheap()

    def _compute_spec(self):
        function = self._function()
        if function is not None:
            return function.output_spec
        sample = self._input_sample()
        if sample is None:
            return self._first_element_spec()
        function = self._function(sample)
        if function is not None:
            return function.output_spec
        return _spec_of_output(execution.call(call_with_element, self._fn, sample))

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _runner(self, sample):
        """Computes the function's result for one element (on the calling thread)."""
        function = self._function(sample)
        if function is None:
            return functools.partial(_apply, self._fn)
        return function.call

    def _chunk_mapper(self, sample):
        """(map_chunk, vectorized): map_chunk(Chunk) -> Chunk of the function's results,
        computed at once on the stacked elements where the function is vectorized."""
        run = self._runner(sample)
        function = self._function(sample)
        vectorized = function is not None and function.vectorizable

        def map_chunk(chunk):
            if vectorized and chunk.error is None:
                try:
                    return Chunk(chunk.size, stacked=function.call_batch(chunk.stacked(),
                                                                         chunk.size))
                except Exception:   # computed per element below, which raises its error
                    pass
            results, error = [], chunk.error
            try:
                for element in chunk.elements():
                    results.append(run(element))
            except Exception as e:  # after the results before it, as TF does
                error = e
            return Chunk(len(results), elements=results, error=error)
        return map_chunk, vectorized

    def _iter(self, env):
        function = self._function()
        if function is not None and function.vectorizable:
            yield from self._iter_ahead(env)
            return
        source = self._inputs[0]._iter(env)
        first = next(source, _END)
        if first is _END:
            return
        source = itertools.chain([first], source)
        run = self._runner(first)
        if self._threads:
            yield from execution.parallel_map(source, run, self._threads)
        else:
            for element in source:
                yield execution.call(run, element)

    def _iter_ignoring_errors(self, env):
        run = None
        for element in self._inputs[0]._iter_ignoring_errors(env):
            run = run or self._runner(element)
            try:
                result = execution.call(run, element)
            except errors.OpError:
                continue
            yield result

    def _iter_ahead(self, env):
        """Elements of a vectorized function, computed a chunk at a time: one element first,
        then as many as fit in _BYTES_AHEAD of results, at most _ELEMENTS_AHEAD."""
        source = self._inputs[0]._iter(env)
        map_chunk, size = None, 1
        while True:
            items, error = [], None
            try:
                items.extend(itertools.islice(source, size))
            except Exception as e:  # after the elements before it
                error = e
            if not items and error is None:
                return
            if map_chunk is None:
                map_chunk = self._chunk_mapper(items[0] if items else None)[0]
            chunk = execution.call(map_chunk, Chunk(len(items), elements=items, error=error))
            results = chunk.elements()
            yield from results
            if chunk.error is not None:
                raise chunk.error
            if results:
                size = max(1, min(_ELEMENTS_AHEAD, _BYTES_AHEAD // _nbytes(results[0])))

    def _iter_chunks(self, env, size):
        chunks = self._inputs[0]._iter_chunks(env, size)
        first = next(chunks, None)
        if first is None:
            return
        chunks = itertools.chain([first], chunks)
        map_chunk, vectorized = self._chunk_mapper(first.elements()[0] if first.size else None)
        if not vectorized:
            if self._threads:
                yield from execution.parallel_map(chunks, map_chunk, self._threads, chunk=1)
            else:
                for chunk in chunks:
                    yield execution.call(map_chunk, chunk)
            return
        # vectorized: as many chunks at once as fit in _BYTES_AHEAD of results (the first
        # alone), on this thread
        group = 1
        while True:
            parts = list(itertools.islice(chunks, group))
            if not parts:
                return
            result = execution.call(map_chunk, _merge(parts))
            yield from _split(result, size)
            if result.error is not None:
                return
            group = max(1, min(_ELEMENTS_AHEAD, _BYTES_AHEAD * len(parts) //
                               _chunk_nbytes(result)))


def _merge(chunks):
    """One chunk of the elements of `chunks` (stacked together where they can be)."""
    if len(chunks) == 1:
        return chunks[0]
    size, error = sum(c.size for c in chunks), chunks[-1].error
    try:
        parts = [[structure.torch_value(leaf) for leaf in flatten(c.stacked())] for c in chunks]
        leaves = [EagerTensor(np.concatenate(values) if isinstance(values[0], np.ndarray)
                              else torch.cat(values)) for values in zip(*parts)]
    except (errors.InvalidArgumentError, RuntimeError, ValueError):  # shapes differ
        return Chunk(size, elements=[e for c in chunks for e in c.elements()], error=error)
    return Chunk(size, stacked=pack_as(chunks[0].stacked(), leaves), error=error)


def _split(chunk, size):
    """`chunk` as chunks of `size` elements; its error comes with the last one (after the
    full chunks, with the elements left, maybe none)."""
    if chunk.error is None and chunk.size <= size:
        yield chunk
        return
    whole = chunk.size if chunk.error is None else chunk.size - chunk.size % size
    for start in range(0, whole, size):
        yield _rows(chunk, start, min(start + size, chunk.size))
    if chunk.error is not None:
        yield _rows(chunk, whole, chunk.size, chunk.error)


def _rows(chunk, start, stop, error=None):
    """Elements start..stop-1 of a chunk, as a chunk."""
    if chunk._stacked is not None:
        return Chunk(stop - start, error=error, stacked=map_structure(
            lambda leaf: EagerTensor(structure.torch_value(leaf)[start:stop]), chunk._stacked))
    return Chunk(stop - start, elements=chunk.elements()[start:stop], error=error)


def _chunk_nbytes(chunk):
    """Bytes held by the tensors of a chunk's elements (about; at least 1)."""
    if chunk._stacked is not None:
        return _nbytes(chunk._stacked)
    return _nbytes(chunk.elements()[0]) * chunk.size if chunk.size else 1


def _nbytes(element):
    """Bytes held by an element's tensors (at least 1)."""
    total = 1
    for leaf in flatten(element):
        for t in (leaf.indices, leaf.values, leaf.dense_shape) \
                if isinstance(leaf, SparseTensor) else (leaf,):
            value = structure.torch_value(t)
            total += value.nbytes if isinstance(value, np.ndarray) else \
                value.numel() * value.element_size()
    return total


def _is_true(value):
    t = structure.torch_value(normalize_element(value))
    if isinstance(t, np.ndarray) or t.dtype != torch.bool or t.ndim != 0:
        raise ValueError("`predicate` return type must be convertible to a scalar boolean "
                         "tensor. Was %s." % (value,))
    return bool(t)


class FilterDataset(Dataset):
    def __init__(self, input_dataset, predicate):
        self._inputs = (input_dataset,)
        self._fn = predicate

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _iter(self, env):
        fn = self._fn
        for element in self._inputs[0]._iter(env):
            if execution.call(lambda e: _is_true(call_with_element(fn, e)), element):
                yield element


class InterleaveDataset(Dataset):
    """interleave / flat_map: TF's cycle order (block_length from each of cycle_length)."""

    def __init__(self, input_dataset, fn, cycle_length, block_length, num_parallel_calls):
        self._inputs = (input_dataset,)
        self._fn = fn
        if cycle_length is None or cycle_length == AUTOTUNE:
            cycle_length = os.cpu_count() or 1
        self._cycle = int(cycle_length)
        self._block = 1 if block_length is None else int(block_length)
        if self._cycle <= 0 or self._block <= 0:
            raise errors.InvalidArgumentError("cycle_length and block_length must be positive")
        self._threads = execution.parallelism(num_parallel_calls) \
            if num_parallel_calls is not None else 0

    def _make(self, element):
        result = call_with_element(self._fn, element)
        if not isinstance(result, Dataset):
            raise TypeError("`map_func` must return a `Dataset` object. Got %s"
                            % type(result).__name__)
        return result

    def _compute_spec(self):
        try:
            result = trace_function(self._make, self._inputs[0].element_spec)
            return result.element_spec
        except Exception:
            return self._first_element_spec()

    def _iter_chunks(self, env, size):
        """flat_map (one dataset at a time): each dataset's own chunks, regrouped to `size`
        elements, so that a following `batch` gets whole columns (CSV or TFRecord files).
        Elements with composite or dataset components go one at a time."""
        if self._cycle != 1 or self._threads or any(
                isinstance(s, (SparseTensorSpec, RaggedTensorSpec, DatasetSpec))
                for s in flatten(self.element_spec)):
            yield from Dataset._iter_chunks(self, env, size)
            return
        pending, count = [], 0
        for element in self._inputs[0]._iter(env):
            for chunk in execution.call(self._make, element)._iter_chunks({}, size):
                pending.append(chunk)
                count += chunk.size
                if chunk.error is not None:
                    yield from _split(_merge(pending), size)
                    return
                if count >= size:
                    merged = _merge(pending)
                    whole = count - count % size
                    yield from _split(_rows(merged, 0, whole), size)
                    pending = [_rows(merged, whole, count)] if whole < count else []
                    count -= whole
        if pending:
            yield _merge(pending)

    def _iter(self, env):
        source = self._inputs[0]._iter(env)
        make = self._make

        def open_next():
            for element in source:
                dataset = execution.call(make, element)
                it = dataset._iter({})
                if self._threads:
                    it = execution.background(it, 2 * self._block)
                return it
            return None
        cycle = []
        exhausted = False
        while True:
            while not exhausted and len(cycle) < self._cycle:
                it = open_next()
                if it is None:
                    exhausted = True
                else:
                    cycle.append(it)
            if not cycle:
                return
            index = 0
            while index < len(cycle):
                it = cycle[index]
                finished = False
                for _ in range(self._block):
                    element = next(it, _END)
                    if element is _END:
                        finished = True
                        break
                    yield element
                if finished:
                    replacement = None if exhausted else open_next()
                    if replacement is None:
                        exhausted = True
                        del cycle[index]
                        continue
                    cycle[index] = replacement
                    # TF moves on to the next cycle element after opening a replacement
                index += 1


# ---------------------------------------------------------------- batching


class BatchDataset(Dataset):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._inputs = (input_dataset,)
        self._size = _keep(batch_size, dtypes.int64)
        self._drop = bool(_keep(drop_remainder, dtypes.bool))
        if not _is_symbolic(self._size) and self._size <= 0:
            raise errors.InvalidArgumentError("Batch size must be greater than zero.")

    def _own_captures(self):
        return [self._size] if _is_symbolic(self._size) else []

    def _peek_is_cheap(self):
        return self._inputs[0]._peek_is_cheap()

    def _compute_spec(self):
        dim = self._size if self._drop and not _is_symbolic(self._size) else None
        return map_structure(lambda s: _batched_spec(s, dim), self._inputs[0].element_spec)

    def _cardinality(self):
        n = self._inputs[0]._cardinality()
        if n < 0 or _is_symbolic(self._size):
            return n if n < 0 else UNKNOWN
        return n // self._size if self._drop else -(-n // self._size)

    def _iter(self, env):
        size = _scalar(self._size, dtypes.int64, "batch_size", env)
        for chunk in self._inputs[0]._iter_chunks(env, size):
            if chunk.error is not None:
                raise chunk.error
            if self._drop and chunk.size < size:
                return
            yield chunk.stacked(self._inputs[0].element_spec)


def _batch_elements(items, spec=None):
    """The batched element of `items`; components of a RaggedTensorSpec in `spec` are
    batched into RaggedTensors (their elements may differ in shape)."""
    first = items[0]
    flats = [flatten(item) for item in items]
    specs = flatten(spec) if spec is not None else [None] * len(flats[0])
    return pack_as(first, [
        _ragged_stack([f[i] for f in flats], s.ragged_rank + 1, s.row_splits_dtype)
        if isinstance(s, RaggedTensorSpec) else _batch_leaves([f[i] for f in flats], i)
        for i, s in enumerate(specs)])


def _pad_value(value, spec_dtype):
    if value is None:
        return b"" if spec_dtype is dtypes.string else 0
    t = structure.torch_value(normalize_element(value)) if not isinstance(value, (int, float,
                                                                                   bytes, str)) \
        else value
    if isinstance(t, torch.Tensor):
        if t.ndim != 0:
            raise ValueError("padding values must be scalars")
        return t.item()
    if isinstance(t, np.ndarray):
        return t[()]
    return t.encode("utf-8") if isinstance(t, str) else t


class PaddedBatchDataset(Dataset):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values,
                 drop_remainder):
        self._inputs = (input_dataset,)
        self._size = int(_keep(batch_size, dtypes.int64))
        self._drop = bool(drop_remainder)
        spec = input_dataset.element_spec
        flat_spec = flatten(spec)
        if any(isinstance(s, SparseTensorSpec) for s in flat_spec):
            raise TypeError("Padded batching of components of type SparseTensor is not "
                            "supported.")
        if padded_shapes is None:
            shapes = [s.shape for s in flat_spec]
            if any(s.rank is None for s in shapes):
                raise ValueError("You must provide `padded_shapes` argument because component "
                                 "has unknown rank.")
        else:
            shapes = _flatten_shapes(padded_shapes) if len(flat_spec) > 1 or \
                isinstance(padded_shapes, dict) else [TensorShape(
                    [None if d == -1 else d for d in (padded_shapes if not isinstance(
                        padded_shapes, TensorShape) else padded_shapes.as_list())])]
            shapes = [TensorShape([None if d == -1 else d for d in s.as_list()])
                      if s.rank is not None else s for s in shapes]
            if len(shapes) != len(flat_spec):
                raise ValueError("`padded_shapes` must have the same structure as the "
                                 "dataset's elements")
            for s, given in zip(flat_spec, shapes):
                if s.shape.rank is not None and given.rank is not None and \
                        s.shape.rank != given.rank:
                    raise ValueError("The padded shape %s is not compatible with the shape "
                                     "%s of the corresponding input component."
                                     % (given, s.shape))
        self._shapes = shapes
        if padding_values is None:
            self._pads = [_pad_value(None, s.dtype) for s in flat_spec]
        else:
            values = flatten(padding_values) if len(flat_spec) > 1 else [padding_values]
            if len(values) != len(flat_spec):
                raise ValueError("`padding_values` must have the same structure as the "
                                 "dataset's elements")
            self._pads = [_pad_value(v, s.dtype) for v, s in zip(values, flat_spec)]

    def _compute_spec(self):
        flat = flatten(self._inputs[0].element_spec)
        dim = self._size if self._drop else None
        return pack_as(self._inputs[0].element_spec,
                       [TensorSpec(TensorShape([dim]).concatenate(shape), s.dtype)
                        for s, shape in zip(flat, self._shapes)])

    def _cardinality(self):
        n = self._inputs[0]._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)

    def _pad(self, leaves, shape, pad):
        values = [structure.torch_value(leaf) for leaf in leaves]
        rank = values[0].ndim
        target = []
        for d in range(rank):
            longest = max(v.shape[d] for v in values)
            want = shape.as_list()[d] if shape.rank is not None else None
            want = longest if want is None else want
            if longest > want:
                raise errors.InvalidArgumentError(
                    "Attempted to pad to a smaller size than the input element: dimension %d "
                    "has size %d but the padded shape is %d" % (d, longest, want))
            target.append(int(want))
        if isinstance(values[0], np.ndarray):
            out = np.full([len(values)] + target, pad, dtype=object)
            for i, v in enumerate(values):
                out[(i,) + tuple(slice(0, n) for n in v.shape)] = v
            return EagerTensor(out)
        out = torch.full([len(values)] + target, pad, dtype=values[0].dtype,
                         device=values[0].device)
        for i, v in enumerate(values):
            out[(i,) + tuple(slice(0, n) for n in v.shape)] = v
        return EagerTensor(out)

    def _iter(self, env):
        source = self._inputs[0]._iter(env)
        while True:
            items = list(itertools.islice(source, self._size))
            if not items or (self._drop and len(items) < self._size):
                return
            flats = [flatten(item) for item in items]
            yield pack_as(items[0], [self._pad([f[i] for f in flats], self._shapes[i],
                                               self._pads[i]) for i in range(len(flats[0]))])


class UnbatchDataset(Dataset):
    def __init__(self, input_dataset):
        self._inputs = (input_dataset,)

    def _compute_spec(self):
        return map_structure(_unbatched_spec, self._inputs[0].element_spec)

    def _iter(self, env):
        for element in self._inputs[0]._iter(env):
            leaves = flatten(element)
            sizes = {_first_dim(leaf) for leaf in leaves}
            if len(sizes) > 1:
                raise errors.InvalidArgumentError(
                    "Input element must have the same batch size in each component. "
                    "Component 0 had size %s but another component had size %s"
                    % tuple(sorted(sizes))[:2])
            for flat in zip(*[_slice_leaf(leaf) for leaf in leaves]):
                yield pack_as(element, flat)


class WindowDataset(Dataset):
    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        self._inputs = (input_dataset,)
        self._size = int(_keep(size, dtypes.int64))
        self._shift = self._size if shift is None else int(_keep(shift, dtypes.int64))
        self._stride = int(_keep(stride, dtypes.int64))
        self._drop = bool(drop_remainder)
        if self._size <= 0 or self._shift <= 0 or self._stride <= 0:
            raise errors.InvalidArgumentError("Window size, shift and stride must be positive")

    def _compute_spec(self):
        return map_structure(DatasetSpec, self._inputs[0].element_spec)

    def _iter(self, env):
        span = (self._size - 1) * self._stride + 1
        buffer = []
        source = self._inputs[0]._iter(env)
        exhausted = False
        while True:
            while not exhausted and len(buffer) < span:
                element = next(source, _END)
                if element is _END:
                    exhausted = True
                else:
                    buffer.append(element)
            if not buffer:
                return
            window = buffer[:span:self._stride]
            if len(window) < self._size and (self._drop or not window):
                return
            flats = [flatten(e) for e in window]
            yield pack_as(window[0], [_ListDataset([f[i] for f in flats])
                                      for i in range(len(flats[0]))])
            if exhausted and len(buffer) <= self._shift:
                return
            # drop `shift` elements (pulling more when shift > what is buffered)
            drop = self._shift
            while drop > len(buffer) and not exhausted:
                if next(source, _END) is _END:
                    exhausted = True
                drop -= 1
            del buffer[:drop]


class _ListDataset(Dataset):
    """A dataset over a list of already-computed elements (window's sub-datasets)."""

    def __init__(self, elements, spec=None):
        self._elements = elements
        if spec is not None:
            self._spec = spec

    def _compute_spec(self):
        return element_spec(self._elements[0])

    def _cardinality(self):
        return len(self._elements)

    def _iter(self, env):
        return iter(self._elements)


# ---------------------------------------------------------------- ordering / counting


def _seeds(seed):
    """TF's seed pair for a dataset op: (None, None) means nondeterministic."""
    if _is_symbolic(seed):
        raise ValueError("a graph tensor seed is not supported by tfcompat; pass a Python int")
    seed = _keep(seed, dtypes.int64)
    return random_seed.get_seed(seed)


def _seed_material(seed_pair):
    """Words seeding a numpy Generator: TF's seed pair when seeded, random words chosen now
    otherwise (so every pass over the dataset repeats them, as TF's op seeds do)."""
    if seed_pair[0] is None:
        return np.random.SeedSequence().generate_state(4).tolist()
    return [seed_pair[0] & 0xFFFFFFFF, seed_pair[1] & 0xFFFFFFFF]


SHUFFLE_EPOCHS = "shuffle epochs"     # env key of an iterator's `ShuffleEpochs`


class ShuffleEpochs(object):
    """Which epoch each shuffle of a pipeline drew its order for, as one iterator ran
    (`used`: id(shuffle) -> [epoch, ...]), and the epochs a restored iterator replays
    (`replay`: id(shuffle) -> iterator of epochs) before drawing new ones."""

    def __init__(self, replay=None):
        self.used = {}
        self.replay = replay or {}


class ShuffleDataset(Dataset):
    """The order of epoch e comes from a numpy generator seeded with the shuffle's seed
    material and e: TF's seed pair when seeded, random words chosen when the dataset is made
    otherwise. An iterator records the epochs it used (`ShuffleEpochs`), so that a
    checkpointed iterator can replay its exact order."""

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        self._inputs = (input_dataset,)
        self._buffer = _keep(buffer_size, dtypes.int64)
        if not _is_symbolic(self._buffer) and self._buffer <= 0 and self._buffer != AUTOTUNE:
            raise errors.InvalidArgumentError("buffer_size must be greater than zero.")
        self._seed = _seeds(seed)
        self._reshuffle = True if reshuffle_each_iteration is None \
            else bool(reshuffle_each_iteration)
        self.next_epoch = 0
        self.seed_material = _seed_material(self._seed)

    def _own_captures(self):
        return [self._buffer] if _is_symbolic(self._buffer) else []

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _epoch(self, env):
        epochs = env.get(SHUFFLE_EPOCHS)
        replayed = epochs.replay.get(id(self)) if epochs is not None else None
        epoch = next(replayed, None) if replayed is not None else None
        if epoch is None:
            epoch = self.next_epoch if self._reshuffle else 0
            self.next_epoch += 1
        if epochs is not None:
            epochs.used.setdefault(id(self), []).append(epoch)
        return epoch

    def _iter(self, env):
        size = _scalar(self._buffer, dtypes.int64, "buffer_size", env)
        rng = np.random.default_rng(self.seed_material + [self._epoch(env)])
        source = self._inputs[0]._iter(env)
        buffer = list(itertools.islice(source, size))
        draws = iter(())    # slots drawn 1024 at a time (the buffer stays full meanwhile)
        for element in source:
            index = next(draws, None)
            if index is None:
                draws = iter(rng.integers(len(buffer), size=1024).tolist())
                index = next(draws)
            yield buffer[index]
            buffer[index] = element
        order = rng.permutation(len(buffer))
        for index in order:
            yield buffer[index]


class RepeatDataset(Dataset):
    def __init__(self, input_dataset, count):
        self._inputs = (input_dataset,)
        self._count = -1 if count is None else _keep(count, dtypes.int64)

    def _own_captures(self):
        return [self._count] if _is_symbolic(self._count) else []

    def _peek_is_cheap(self):
        return self._inputs[0]._peek_is_cheap()

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self):
        if _is_symbolic(self._count):
            return UNKNOWN
        n = self._inputs[0]._cardinality()
        if self._count < 0:
            return INFINITE if n != 0 else 0
        if n < 0:
            return n
        return n * self._count

    def _iter(self, env):
        count = _scalar(self._count, dtypes.int64, "count", env)
        epoch = 0
        while count < 0 or epoch < count:
            produced = False
            for element in self._inputs[0]._iter(env):
                produced = True
                yield element
            if not produced:
                return
            epoch += 1


class TakeDataset(Dataset):
    def __init__(self, input_dataset, count):
        self._inputs = (input_dataset,)
        self._count = _keep(count, dtypes.int64)

    def _own_captures(self):
        return [self._count] if _is_symbolic(self._count) else []

    def _peek_is_cheap(self):
        return self._inputs[0]._peek_is_cheap()

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self):
        if _is_symbolic(self._count):
            return UNKNOWN
        n = self._inputs[0]._cardinality()
        if self._count < 0:
            return n
        if n == INFINITE:
            return self._count
        return min(n, self._count) if n >= 0 else UNKNOWN

    def _iter(self, env):
        count = _scalar(self._count, dtypes.int64, "count", env)
        source = self._inputs[0]._iter(env)
        return source if count < 0 else itertools.islice(source, count)


class SkipDataset(Dataset):
    def __init__(self, input_dataset, count):
        self._inputs = (input_dataset,)
        self._count = _keep(count, dtypes.int64)

    def _own_captures(self):
        return [self._count] if _is_symbolic(self._count) else []

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self):
        if _is_symbolic(self._count):
            return UNKNOWN
        n = self._inputs[0]._cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(0, n - self._count)

    def _iter(self, env):
        count = _scalar(self._count, dtypes.int64, "count", env)
        source = self._inputs[0]._iter(env)
        if count < 0:
            for _ in source:
                pass
            return iter(())
        return itertools.islice(source, count, None)


class ShardDataset(Dataset):
    def __init__(self, input_dataset, num_shards, index):
        self._inputs = (input_dataset,)
        self._n = int(_keep(num_shards, dtypes.int64))
        self._index = int(_keep(index, dtypes.int64))
        if self._n <= 0:
            raise errors.InvalidArgumentError("Number of shards must be greater than zero "
                                              "(currently num_shards = %d)." % self._n)
        if not 0 <= self._index < self._n:
            raise errors.InvalidArgumentError(
                "Index must be between 0 and %d (currently index = %d)."
                % (self._n - 1, self._index))

    def _peek_is_cheap(self):
        return self._inputs[0]._peek_is_cheap()

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _iter(self, env):
        return itertools.islice(self._inputs[0]._iter(env), self._index, None, self._n)


class PrefetchDataset(Dataset):
    def __init__(self, input_dataset, buffer_size):
        self._inputs = (input_dataset,)
        size = int(_keep(buffer_size, dtypes.int64))
        if size == AUTOTUNE:
            size = 4
        if size < 0:
            raise errors.InvalidArgumentError("buffer_size must be >= 0 or AUTOTUNE")
        self._size = size

    def _peek_is_cheap(self):
        return self._inputs[0]._peek_is_cheap()

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _iter(self, env):
        source = self._inputs[0]._iter(env)
        if self._size == 0:
            return source
        return execution.background(source, self._size)


class CacheDataset(Dataset):
    """`cache()`: in memory, or in `filename` (tfcompat's own format, see `_CacheFile`).

    As in TF, the cache is complete only after one full pass; a partial pass is discarded.
    """

    def __init__(self, input_dataset, filename):
        self._inputs = (input_dataset,)
        self._filename = filename.decode() if isinstance(filename, bytes) else \
            structure.torch_value(filename)[()].decode() if isinstance(filename, Tensor) \
            else filename
        self._memory = None

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _iter(self, env):
        if not self._filename:
            if self._memory is not None:
                yield from self._memory
                return
            collected = []
            for element in self._inputs[0]._iter(env):
                collected.append(element)
                yield element
            self._memory = collected
            return
        path = self._filename + ".tfcompat-cache"
        if os.path.exists(path):
            yield from _read_cache(path, self.element_spec)
            return
        tmp = path + ".tmp-%d" % os.getpid()
        writer = TFRecordWriter(tmp)
        try:
            for element in self._inputs[0]._iter(env):
                writer.write(_encode_element(element))
                yield element
        except BaseException:
            writer.close()
            os.remove(tmp)
            raise
        writer.close()
        os.replace(tmp, path)


def _encode_leaf(t):
    if isinstance(t, np.ndarray):
        flat = [bytes(v) for v in t.reshape(-1)]
        header = struct.pack("<B", 0) + struct.pack("<I", t.ndim) + \
            struct.pack("<%dq" % t.ndim, *t.shape)
        return header + b"".join(struct.pack("<Q", len(v)) + v for v in flat)
    dtype = dtypes.from_torch(t.dtype)
    arr = t.detach().cpu().numpy()
    return struct.pack("<B", 1) + struct.pack("<I", dtype.as_datatype_enum) + \
        struct.pack("<I", arr.ndim) + struct.pack("<%dq" % arr.ndim, *arr.shape) + \
        np.ascontiguousarray(arr).tobytes()


def _encode_element(element):
    parts = []
    for leaf in flatten(element):
        for c in structure.components(leaf):
            data = _encode_leaf(structure.torch_value(c))
            parts.append(struct.pack("<Q", len(data)) + data)
    return b"".join(parts)


def _decode_leaf(data):
    kind = data[0]
    if kind == 0:
        ndim = struct.unpack_from("<I", data, 1)[0]
        shape = struct.unpack_from("<%dq" % ndim, data, 5)
        pos = 5 + 8 * ndim
        out = np.empty(int(np.prod(shape)), dtype=object)
        for i in range(out.size):
            n = struct.unpack_from("<Q", data, pos)[0]
            out[i] = bytes(data[pos + 8:pos + 8 + n])
            pos += 8 + n
        return EagerTensor(out.reshape(shape))
    enum, ndim = struct.unpack_from("<II", data, 1)
    shape = struct.unpack_from("<%dq" % ndim, data, 9)
    dtype = dtypes.as_dtype(enum)
    arr = np.frombuffer(bytes(data[9 + 8 * ndim:]), dtype=dtype.as_numpy_dtype).reshape(shape)
    return EagerTensor(to_torch(arr.copy(), dtype))


def _decode_element(record, spec, flat_spec):
    parts, pos = [], 0
    while pos < len(record):
        n = struct.unpack_from("<Q", record, pos)[0]
        parts.append(_decode_leaf(memoryview(record)[pos + 8:pos + 8 + n]))
        pos += 8 + n
    it = iter(parts)
    return pack_as(spec, [structure.from_components(
        s, [next(it) for _ in structure.component_specs(s)]) for s in flat_spec])


def _read_cache(path, spec):
    flat_spec = flatten(spec)
    for record in read_records(path, None):
        yield _decode_element(record, spec, flat_spec)


# ---------------------------------------------------------------- scan / unique / take_while


def _dtype_structure(spec):
    return map_structure(lambda s: s.dtype, spec)


def _check_new_state(state_spec, new_state):
    """TF's checks of a scan function's new state against the state it was given."""
    try:
        structure.assert_same_structure(state_spec, new_state, "scan")
    except TypeError:
        raise TypeError("Invalid `scan_func`. The element classes for the new state must "
                        "match the initial state. Expected %s, got %s."
                        % (state_spec, new_state)) from None
    new_spec = element_spec(new_state)
    if [type(s) for s in flatten(new_spec)] != [type(s) for s in flatten(state_spec)]:
        raise TypeError("Invalid `scan_func`. The element classes for the new state must "
                        "match the initial state. Expected %s, got %s." % (state_spec, new_spec))
    if flatten(_dtype_structure(new_spec)) != flatten(_dtype_structure(state_spec)):
        raise TypeError("Invalid `scan_func`. The element types for the new state must match "
                        "the initial state. Expected %s, got %s."
                        % (_dtype_structure(state_spec), _dtype_structure(new_spec)))
    return new_spec


def _relaxed_spec(a, b):
    """The spec compatible with both `a` and `b` (same types; unequal dims become None)."""
    shape = structure.most_specific(a.shape, b.shape)
    if isinstance(a, RaggedTensorSpec):
        return RaggedTensorSpec(shape, a.dtype, a.ragged_rank, a.row_splits_dtype)
    return type(a)(shape, a.dtype)


class ScanDataset(Dataset):
    """`scan(initial_state, scan_func)`: scan_func(state, element) -> (new_state, output).

    As TF, the function is traced to learn the output spec, again with relaxed state shapes
    while the new state's shapes differ from the state's; a new state of other dtypes or
    structure is a TypeError when the dataset is made. Per element the function runs eagerly.
    """

    def __init__(self, input_dataset, initial_state, scan_func):
        self._inputs = (input_dataset,)
        self._initial = normalize_components(initial_state)
        self._fn = scan_func
        self._traced_spec = self._trace()

    def _own_captures(self):
        return [c for leaf in flatten(self._initial) for c in _leaf_captures(leaf)]

    def _step(self, state, element):
        result = self._fn(state, element)
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError("Invalid `scan_func`. `scan_func` should return a tuple of length "
                            "2: (new_state, output_value), got %r." % (result,))
        return normalize_element(result[0]), normalize_element(result[1])

    def _trace(self):
        """The output spec from tracing, or None where the function cannot be traced."""
        state_spec = element_spec(self._initial)
        input_spec = self._inputs[0].element_spec
        while True:
            try:
                new_state, output = trace_function(self._step, (state_spec, input_spec))
            except TypeError as error:
                if "Invalid `scan_func`" in str(error):
                    raise
                return None
            except Exception:   # not traceable: the spec comes from the first element
                return None
            new_spec = _check_new_state(state_spec, new_state)
            relaxed = pack_as(state_spec, [_relaxed_spec(a, b) for a, b in
                                           zip(flatten(state_spec), flatten(new_spec))])
            if relaxed == state_spec:
                return element_spec(output)
            state_spec = relaxed

    def _compute_spec(self):
        return self._traced_spec if self._traced_spec is not None \
            else self._first_element_spec()

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _iter(self, env):
        state = map_structure(lambda leaf: _resolve(leaf, env), self._initial)
        for element in self._inputs[0]._iter(env):
            state, output = execution.call(self._step, state, element)
            yield output


_UNIQUE_DTYPES = (dtypes.int32, dtypes.int64, dtypes.string)


class UniqueDataset(Dataset):
    """`unique()`: each distinct element once, in the order first seen (int32, int64 or
    string tensors of one component, as TF)."""

    def __init__(self, input_dataset):
        self._inputs = (input_dataset,)
        spec = input_dataset.element_spec
        if type(spec) is not TensorSpec:
            raise errors.InvalidArgumentError("UniqueDataset only supports inputs with a "
                                              "single component.")
        if spec.dtype not in _UNIQUE_DTYPES:
            raise TypeError("`tf.data.Dataset.unique` does not support type %s -- only "
                            "`tf.int32`, `tf.int64`, and `tf.string` are supported."
                            % spec.dtype)

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _iter(self, env):
        seen = set()
        for element in self._inputs[0]._iter(env):
            value = structure.torch_value(element)
            key = (tuple(value.shape), tuple(value.reshape(-1).tolist())
                   if isinstance(value, np.ndarray) else value.cpu().numpy().tobytes())
            if key not in seen:
                seen.add(key)
                yield element


class OptionsDataset(Dataset):
    """`with_options(options)`: the same elements; `options()` includes these."""

    def __init__(self, input_dataset, options):
        if not isinstance(options, Options):
            raise TypeError("`options` must be a `tf.data.Options` object, got %r"
                            % (options,))
        self._inputs = (input_dataset,)
        self._options = options

    def _peek_is_cheap(self):
        return self._inputs[0]._peek_is_cheap()

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _iter(self, env):
        return self._inputs[0]._iter(env)

    def _iter_chunks(self, env, size):
        return self._inputs[0]._iter_chunks(env, size)


class IgnoreErrorsDataset(Dataset):
    """`ignore_errors()`: elements whose computation raises a TF error (OpError) are
    dropped, as TF does (see `Dataset._iter_ignoring_errors`)."""

    def __init__(self, input_dataset):
        self._inputs = (input_dataset,)

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _iter(self, env):
        return self._inputs[0]._iter_ignoring_errors(env)


class TakeWhileDataset(Dataset):
    """`take_while(predicate)`: the elements up to the first one the predicate rejects."""

    def __init__(self, input_dataset, predicate):
        self._inputs = (input_dataset,)
        self._fn = predicate

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _accepts(self, element):
        return _is_true(call_with_element(self._fn, element))

    def _iter(self, env):
        for element in self._inputs[0]._iter(env):
            if not execution.call(self._accepts, element):
                return
            yield element


# ---------------------------------------------------------------- grouping


def _int64_scalar(value, what):
    """A Python int from a function's result, which TF requires to be a tf.int64 scalar."""
    t = structure.torch_value(normalize_element(value))
    if isinstance(t, np.ndarray) or t.dtype != torch.int64 or t.ndim != 0:
        raise ValueError("`%s` must return a single tf.int64 scalar tensor. Got type=%s and "
                         "shape=%s." % (what, structure.spec_of(normalize_element(value)).dtype,
                                        TensorShape(list(t.shape))))
    return int(t)


def _check_int64_scalar_spec(fn, input_spec, what):
    """Trace `fn` to check it returns a tf.int64 scalar (ValueError when the dataset is made,
    as TF); a function that cannot be traced is checked per element instead."""
    try:
        result = trace_function(fn, input_spec)
    except Exception:   # checked when it runs
        return
    spec = structure.spec_of(normalize_element(result)) \
        if not isinstance(result, (tuple, list, dict)) else None
    if spec is None or type(spec) is not TensorSpec or spec.dtype is not dtypes.int64 or \
            spec.shape.rank != 0:
        raise ValueError("`%s` must return a single tf.int64 scalar tensor. Got %s."
                         % (what, spec if spec is not None else result))


class GroupByWindowDataset(Dataset):
    """`group_by_window`: elements grouped by `key_func`; a group of `window_size` elements
    (`window_size_func(key)`, asked per element as TF does) is handed to
    `reduce_func(key, window_dataset)` at once, whose elements come next. At the end of the
    input the groups left are reduced in increasing key order (TF's order)."""

    def __init__(self, input_dataset, key_func, reduce_func, window_size, window_size_func):
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        if window_size is not None:
            size = int(_keep(window_size, dtypes.int64))
            window_size_func = lambda key: EagerTensor(torch.tensor(size))   # noqa: E731
        self._inputs = (input_dataset,)
        self._key_func = key_func
        self._reduce_func = reduce_func
        self._size_func = window_size_func
        input_spec = input_dataset.element_spec
        _check_int64_scalar_spec(key_func, input_spec, "key_func")
        if window_size is None:
            _check_int64_scalar_spec(window_size_func, TensorSpec([], dtypes.int64),
                                     "window_size_func")

    def _reduce(self, key, window):
        result = self._reduce_func(key, window)
        if not isinstance(result, Dataset):
            raise TypeError("`reduce_func` must return a `Dataset` object. Got %s."
                            % type(result).__name__)
        return result

    def _compute_spec(self):
        input_spec = self._inputs[0].element_spec
        try:
            result = trace_function(self._reduce, (TensorSpec([], dtypes.int64),
                                                   DatasetSpec(input_spec)))
            return result.element_spec
        except TypeError as error:
            if "`reduce_func`" in str(error):
                raise
        except Exception:   # not traceable: the spec comes from the first element
            pass
        return self._first_element_spec()

    def _window_size(self, key):
        size = _int64_scalar(self._size_func(key), "window_size_func")
        if size <= 0:
            raise errors.InvalidArgumentError("Window size must be greater than zero, but got "
                                              "%d." % size)
        return size

    def _flush(self, key, elements):
        key_tensor = EagerTensor(torch.tensor(key, dtype=torch.int64))
        window = _ListDataset(elements, self._inputs[0].element_spec)
        return execution.call(self._reduce, key_tensor, window)._iter({})

    def _iter(self, env):
        groups = {}
        key_of = self._key_func
        for element in self._inputs[0]._iter(env):
            key = execution.call(lambda e: _int64_scalar(call_with_element(key_of, e),
                                                         "key_func"), element)
            group = groups.setdefault(key, [])
            group.append(element)
            key_tensor = EagerTensor(torch.tensor(key, dtype=torch.int64))
            if len(group) >= execution.call(self._window_size, key_tensor):
                del groups[key]
                yield from self._flush(key, group)
        for key in sorted(groups):
            yield from self._flush(key, groups[key])


def _filled_shapes(spec, padded_shapes, filler):
    """The padded shapes of a bucket: `padded_shapes` (or the element shapes) with unknown
    dimensions set to `filler` (None: padded to the longest element)."""
    flat_spec = flatten(spec)
    if padded_shapes is None:
        shapes = [s.shape for s in flat_spec]
    elif len(flat_spec) > 1 or isinstance(padded_shapes, dict):
        shapes = _flatten_shapes(padded_shapes)
    else:
        shapes = [TensorShape(padded_shapes)]
    filled = [[filler if d is None else d for d in shape.as_list()] for shape in shapes]
    return pack_as(spec, filled) if isinstance(spec, (tuple, dict)) else filled[0]


def bucket_by_sequence_length(dataset, element_length_func, bucket_boundaries,
                              bucket_batch_sizes, padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """TF's `bucket_by_sequence_length`: `group_by_window` keyed by the bucket of each
    element's length (bucket i holds lengths in [boundaries[i-1], boundaries[i])), each
    bucket batched by its batch size with `padded_batch` (or `batch` with `no_padding`)."""
    boundaries = [int(b) for b in bucket_boundaries]
    batch_sizes = [int(b) for b in bucket_batch_sizes]
    if len(batch_sizes) != len(boundaries) + 1:
        raise ValueError("`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` "
                         "but `len(bucket_batch_sizes)=%d` and `len(bucket_boundaries)=%d`."
                         % (len(batch_sizes), len(boundaries)))
    if boundaries != sorted(boundaries):
        raise ValueError("`bucket_boundaries` must be sorted in increasing order, got %s."
                         % boundaries)
    sizes_tensor = EagerTensor(torch.tensor(batch_sizes, dtype=torch.int64))
    try:
        length_spec = structure.spec_of(normalize_element(
            trace_function(element_length_func, dataset.element_spec)))
    except Exception:   # not traceable: checked per element
        length_spec = None
    if length_spec is not None and length_spec.dtype is not dtypes.int32:
        raise TypeError("Input 'y' of 'LessEqual' Op has type %s that does not match type "
                        "int32 of argument 'x'. (`element_length_func` must return a "
                        "tf.int32 length)" % length_spec.dtype.name)

    def bucket_of(*args):
        length = structure.torch_value(normalize_element(element_length_func(*args)))
        if isinstance(length, np.ndarray) or length.ndim != 0 or \
                length.dtype.is_floating_point:
            raise TypeError("`element_length_func` must return an integer scalar, got %r"
                            % (length,))
        return EagerTensor(torch.tensor(bisect.bisect_right(boundaries, int(length)),
                                        dtype=torch.int64))

    def window_size(bucket):
        return array_ops.gather(sizes_tensor, bucket)

    def batch_bucket(bucket, grouped):
        if _is_symbolic(bucket):
            # traced for the element spec, where TF's batch dimension is unknown
            batch_size, filler, drop = 1, None, False
        else:
            index = int(structure.torch_value(bucket))
            batch_size, filler, drop = batch_sizes[index], None, drop_remainder
            if pad_to_bucket_boundary:
                if index >= len(boundaries):
                    raise errors.InvalidArgumentError(
                        "When pad_to_bucket_boundary=True, elements must have length < "
                        "max(bucket_boundaries).")
                filler = boundaries[index] - 1
        if no_padding:
            return grouped.batch(batch_size, drop_remainder=drop)
        shapes = _filled_shapes(grouped.element_spec, padded_shapes, filler)
        return grouped.padded_batch(batch_size, shapes, padding_values, drop_remainder=drop)

    return GroupByWindowDataset(dataset, bucket_of, batch_bucket, None, window_size)


# ---------------------------------------------------------------- ragged batches


def _ragged_rank_of(spec):
    """The ragged rank `ragged_batch` gives a component (0: batched densely), as TF's
    dense_to_ragged_batch: one more than its last unknown dimension."""
    if type(spec) is not TensorSpec or spec.shape.rank is None or \
            spec.shape.is_fully_defined():
        return 0
    return max(i for i, d in enumerate(spec.shape.as_list()) if d is None) + 1


def _ragged_stack(leaves, ragged_rank, splits_dtype):
    """Elements as one RaggedTensor with `ragged_rank` ragged dimensions: Tensors of any
    shapes (their first ragged_rank - 1 dimensions become ragged), or RaggedTensors of
    ragged rank ragged_rank - 1. Its ragged ops run eagerly, in graph mode too."""
    return execution.call(_eager_ragged_stack, leaves, ragged_rank, splits_dtype)


def _eager_ragged_stack(leaves, ragged_rank, splits_dtype):
    levels = [[] for _ in range(ragged_rank)]
    flat = []
    for leaf in leaves:
        if isinstance(leaf, RaggedTensor):
            lengths = [[len(leaf)]] + [structure.torch_value(part).tolist()
                                       for part in leaf.nested_row_lengths()]
            flat.append(structure.torch_value(leaf.flat_values))
        else:
            value = structure.torch_value(leaf)
            lengths = [[value.shape[level]] * int(np.prod(value.shape[:level]))
                       for level in range(ragged_rank)]
            flat.append(value.reshape((-1,) + tuple(value.shape[ragged_rank:])))
        for level, part in zip(levels, lengths):
            level.extend(part)
    flat = np.concatenate(flat) if isinstance(flat[0], np.ndarray) else torch.cat(flat)
    return RaggedTensor.from_nested_row_lengths(
        EagerTensor(flat), [EagerTensor(torch.tensor(level, dtype=splits_dtype.torch_dtype))
                            for level in levels], validate=False)


class RaggedBatchDataset(Dataset):
    """`ragged_batch`: components whose shape is fully known are batched as `batch` does;
    the others become RaggedTensors (TF's dense_to_ragged_batch)."""

    def __init__(self, input_dataset, batch_size, drop_remainder, row_splits_dtype):
        self._inputs = (input_dataset,)
        self._size = int(_keep(batch_size, dtypes.int64))
        if self._size <= 0:
            raise errors.InvalidArgumentError("Batch size must be greater than zero.")
        self._drop = bool(drop_remainder)
        self._splits_dtype = dtypes.as_dtype(row_splits_dtype)
        self._ranks = [_ragged_rank_of(s) for s in flatten(input_dataset.element_spec)]

    def _compute_spec(self):
        dim = self._size if self._drop else None
        spec = self._inputs[0].element_spec
        return pack_as(spec, [
            RaggedTensorSpec(TensorShape([dim]).concatenate(s.shape), s.dtype, rank,
                             self._splits_dtype) if rank else _batched_spec(s, dim)
            for s, rank in zip(flatten(spec), self._ranks)])

    def _cardinality(self):
        n = self._inputs[0]._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)

    def _iter(self, env):
        source = self._inputs[0]._iter(env)
        while True:
            items = list(itertools.islice(source, self._size))
            if not items or (self._drop and len(items) < self._size):
                return
            columns = zip(*[flatten(item) for item in items])
            yield pack_as(items[0], [
                _ragged_stack(column, rank, self._splits_dtype) if rank else
                _batch_leaves(list(column), index)
                for index, (column, rank) in enumerate(zip(columns, self._ranks))])


# ---------------------------------------------------------------- random sources / sampling


@tf_export("data.experimental.RandomDataset")
class RandomDataset(Dataset):
    """`Dataset.random(seed)` (`tf.data.experimental.RandomDataset`): an infinite stream of
    uniformly distributed int64 values (numpy's generator: the numbers differ from TF's
    Philox stream). Seeded runs repeat; each pass repeats the sequence unless
    `rerandomize_each_iteration=True`."""

    def __init__(self, seed=None, rerandomize_each_iteration=None):
        self._seed_material = _seed_material(_seeds(seed))
        self._rerandomize = bool(rerandomize_each_iteration)
        self._passes = 0

    def _compute_spec(self):
        return TensorSpec([], dtypes.int64)

    def _cardinality(self):
        return INFINITE

    def _iter(self, env):
        rng = np.random.default_rng(self._seed_material + [self._passes])
        if self._rerandomize:
            self._passes += 1
        info = np.iinfo(np.int64)
        while True:
            for value in rng.integers(info.min, info.max, size=256, endpoint=True).tolist():
                yield EagerTensor(torch.tensor(value, dtype=torch.int64))


class CounterDataset(Dataset):
    """`Dataset.counter(start, step, dtype)`: start, start + step, ... without end."""

    def __init__(self, start, step, dtype):
        self._dtype = dtypes.as_dtype(dtype)
        self._start = _keep(start, self._dtype)
        self._step = _keep(step, self._dtype)

    def _own_captures(self):
        return [v for v in (self._start, self._step) if _is_symbolic(v)]

    def _compute_spec(self):
        return TensorSpec([], self._dtype)

    def _cardinality(self):
        return INFINITE

    def _iter(self, env):
        start = _scalar(self._start, self._dtype, "start", env)
        step = _scalar(self._step, self._dtype, "step", env)
        torch_dtype = self._dtype.torch_dtype
        for value in itertools.count(start, step):
            yield EagerTensor(torch.tensor(value, dtype=torch_dtype))


def _common_spec(datasets):
    """The element spec every one of `datasets` is compatible with (TF's TypeError
    otherwise)."""
    specs = [ds.element_spec for ds in datasets]
    first = specs[0]
    for index, spec in enumerate(specs[1:], 1):
        try:
            structure.assert_same_structure(first, spec, "datasets")
            compatible = _spec_compatible(first, spec)
        except TypeError:
            compatible = False
        if not compatible:
            raise TypeError("Invalid `datasets`. `datasets` must have compatible element "
                            "specs.\n Dataset 0 element_spec=%s.\nDataset %d element_spec=%s."
                            % (first, index, spec))
    flat = flatten(first)
    for spec in specs[1:]:
        flat = [_relaxed_spec(a, b) for a, b in zip(flat, flatten(spec))]
    return pack_as(first, flat)


class DirectedInterleaveDataset(Dataset):
    """`choose_from_datasets`: the next element of `datasets[i]` for each index i of
    `choice_dataset` (scalar int64s). An index of an exhausted dataset ends the output with
    `stop_on_empty_dataset`, else it is skipped; the output ends when the choices or all the
    datasets do (TF's DirectedInterleave)."""

    def __init__(self, choice_dataset, datasets, stop_on_empty_dataset):
        datasets = list(datasets)
        if not datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        if not isinstance(choice_dataset, Dataset):
            raise TypeError("Invalid `choice_dataset`. `choice_dataset` should be a "
                            "`tf.data.Dataset` but is %s." % type(choice_dataset).__name__)
        choice_spec = choice_dataset.element_spec
        if choice_spec != TensorSpec([], dtypes.int64):
            raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be "
                            "scalar `tf.int64` tensors but are %s." % (choice_spec,))
        self._inputs = (choice_dataset,) + tuple(datasets)
        self._spec = _common_spec(datasets)
        self._stop_on_empty = bool(stop_on_empty_dataset)

    def _iter(self, env):
        sources = [ds._iter(env) for ds in self._inputs[1:]]
        exhausted = [False] * len(sources)
        active = len(sources)
        for choice in self._inputs[0]._iter(env):
            index = int(structure.torch_value(choice))
            if not 0 <= index < len(sources):
                raise errors.InvalidArgumentError("Selector index out of range: %d >= %d"
                                                  % (index, len(sources)))
            element = _END if exhausted[index] else next(sources[index], _END)
            if element is _END:
                if not exhausted[index]:
                    exhausted[index] = True
                    active -= 1
                if self._stop_on_empty or not active:
                    return
                continue
            yield element


def _probabilities(value, what):
    """A float64 numpy vector from a Python list / tensor of weights or probabilities."""
    t = to_torch(value, dtypes.float32) if not isinstance(value, (Tensor, np.ndarray)) \
        else to_torch(value)
    if isinstance(t, np.ndarray) or t.ndim != 1:
        raise ValueError("`%s` must be a vector of numbers, got %r" % (what, value))
    return t.detach().cpu().double().numpy()


class _CategoricalDataset(Dataset):
    """Indices drawn with the probabilities of `weights` (normalized), or of each vector of
    `weights_dataset` in turn; the selector of `sample_from_datasets`."""

    def __init__(self, weights, weights_dataset, seed, rerandomize):
        self._weights = weights
        self._inputs = () if weights_dataset is None else (weights_dataset,)
        self._seed_material = _seed_material(_seeds(seed))
        self._rerandomize = bool(rerandomize)
        self._passes = 0

    def _compute_spec(self):
        return TensorSpec([], dtypes.int64)

    def _weight_vectors(self, env):
        if not self._inputs:
            return itertools.repeat(self._weights)
        return (structure.torch_value(w).double().reshape(-1).numpy()
                for w in self._inputs[0]._iter(env))

    def _iter(self, env):
        rng = np.random.default_rng(self._seed_material + [self._passes])
        if self._rerandomize:
            self._passes += 1
        for weights in self._weight_vectors(env):
            total = weights.sum()
            if not total > 0:
                raise errors.InvalidArgumentError("`weights` must have a positive sum, got %s"
                                                  % weights.tolist())
            index = int(np.searchsorted(np.cumsum(weights / total), rng.random(), "right"))
            yield EagerTensor(torch.tensor(min(index, len(weights) - 1), dtype=torch.int64))


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
    """TF's `sample_from_datasets`: each element comes from a dataset chosen at random with
    the (normalized) `weights` (a list, a vector tensor or a dataset of vectors; uniform when
    None). As TF, datasets of weight 0 in a fixed list are left out. The random numbers
    differ from TF's."""
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    weights_dataset = weights if isinstance(weights, Dataset) else None
    if weights is None:
        fixed = np.ones(len(datasets))
    elif weights_dataset is None:
        fixed = _probabilities(weights, "weights")
        if len(fixed) != len(datasets):
            raise ValueError("Invalid `weights`. `weights` should have the same length as "
                             "`datasets` but got `len(weights)=%d` vs. `len(datasets)=%d`."
                             % (len(fixed), len(datasets)))
        kept = [i for i, w in enumerate(fixed) if w != 0]
        if len(kept) == 1:
            _common_spec(datasets)
            return datasets[kept[0]]
        datasets, fixed = [datasets[i] for i in kept], fixed[kept]
    else:
        fixed = None
    selector = _CategoricalDataset(fixed, weights_dataset, seed, rerandomize_each_iteration)
    return DirectedInterleaveDataset(selector, datasets, stop_on_empty_dataset)


class RejectionResampleDataset(Dataset):
    """`rejection_resample`: (class, element) pairs whose classes approach `target_dist`.

    TF's scheme: with m the smallest ratio target/initial, an element of the input is
    passed on with probability m; otherwise elements of a second pass over the input are
    accepted with probability (ratio[class] - m) / (max ratio - m). Without `initial_dist`
    the initial distribution is estimated as the input goes (`_estimates`). The output ends
    when either pass does. The random numbers differ from TF's.
    """

    def __init__(self, input_dataset, class_func, target_dist, initial_dist, seed):
        self._inputs = (input_dataset,)
        self._class_func = class_func
        self._target = _probabilities(target_dist, "target_dist")
        self._initial = None if initial_dist is None else \
            _probabilities(initial_dist, "initial_dist")
        self._seed_material = _seed_material(_seeds(seed))

    def _class_spec(self):
        try:
            return element_spec(normalize_element(trace_function(
                self._class_func, self._inputs[0].element_spec)))
        except Exception:   # not traceable: from the first element
            for element in self._inputs[0]._iter({}):
                return element_spec(execution.call(self._classify, element)[0])
            raise ValueError("cannot infer the element structure of an empty dataset")

    def _compute_spec(self):
        return self._class_spec(), self._inputs[0].element_spec

    def _classify(self, element):
        value = normalize_element(call_with_element(self._class_func, element))
        index = structure.torch_value(value)
        if isinstance(index, np.ndarray) or index.ndim != 0 or index.dtype.is_floating_point:
            raise errors.InvalidArgumentError("`class_func` must return an integer scalar, "
                                              "got %r" % (value,))
        index = int(index)
        if not 0 <= index < len(self._target):
            raise errors.InvalidArgumentError("class %d is out of range for a target "
                                              "distribution of %d classes"
                                              % (index, len(self._target)))
        return value, index

    def _acceptance(self, initial):
        """(probability of passing an input element on, acceptance per class)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.nan_to_num(self._target / initial, nan=0.0, posinf=0.0)
        low, high = ratio.min(), ratio.max()
        if high <= low:
            return 1.0, np.zeros_like(ratio)
        return low, (ratio - low) / (high - low)

    def _estimates(self, env):
        """The initial distribution for each element of the input: `initial_dist`, or TF's
        running estimate from one more pass over the input (counts starting at 10 per class,
        updated per 32 elements, so an element's estimate counts its whole batch)."""
        if self._initial is not None:
            yield from itertools.repeat(self._initial)
            return
        counts = np.full(len(self._target), 10.0)
        source = self._inputs[0]._iter(env)
        while True:
            batch = list(itertools.islice(source, 32))
            if not batch:
                return
            for element in batch:
                counts[execution.call(self._classify, element)[1]] += 1
            estimate = counts / counts.sum()
            for _ in batch:
                yield estimate

    def _iter(self, env):
        rng = np.random.default_rng(self._seed_material)
        passed = self._inputs[0]._iter(env)
        candidates = self._inputs[0]._iter(env)
        step_estimates = self._estimates(env)         # one per output element
        candidate_estimates = self._estimates(env)    # one per element of `candidates`
        for initial in step_estimates:
            if rng.random() < self._acceptance(initial)[0]:
                element = next(passed, _END)
                if element is _END:
                    return
                yield execution.call(self._classify, element)[0], element
                continue
            while True:
                element = next(candidates, _END)
                if element is _END:
                    return
                value, index = execution.call(self._classify, element)
                accept = self._acceptance(next(candidate_estimates))[1]
                if rng.random() < accept[index]:
                    yield value, element
                    break


# ---------------------------------------------------------------- save / load

_SPEC_FILE = "dataset_spec.json"
_SAVE_FORMAT = "tfcompat-dataset-1"
_SAVE_COMPRESSIONS = {None: "", "": "", "GZIP": "GZIP", "ZLIB": "ZLIB"}


def _shard_path(path, index):
    return os.path.join(path, "shard-%05d.tfrecord" % index)


def _spec_to_json(spec):
    if structure.is_namedtuple(spec):
        return {"namedtuple": type(spec).__name__, "fields": list(spec._fields),
                "items": [_spec_to_json(s) for s in spec]}
    if isinstance(spec, tuple):
        return {"tuple": [_spec_to_json(s) for s in spec]}
    if isinstance(spec, dict):
        for key in spec:
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise TypeError("Dataset.save supports dict keys that are strings or ints, "
                                "got %r" % (key,))
        return {"dict": [[key, _spec_to_json(s)] for key, s in spec.items()]}
    if isinstance(spec, DatasetSpec):
        raise TypeError("Dataset.save cannot save elements that are datasets")
    leaf = {"shape": spec.shape.as_list() if spec.shape.rank is not None else None,
            "dtype": spec.dtype.name}
    if isinstance(spec, RaggedTensorSpec):
        leaf.update(ragged_rank=spec.ragged_rank, row_splits_dtype=spec.row_splits_dtype.name)
        return {"ragged": leaf}
    return {"sparse" if isinstance(spec, SparseTensorSpec) else "tensor": leaf}


def _spec_from_json(data):
    """The element spec written by `_spec_to_json` (names resolve only to spec classes and
    dtypes; a namedtuple is rebuilt by its name and fields)."""
    if "tuple" in data:
        return tuple(_spec_from_json(s) for s in data["tuple"])
    if "namedtuple" in data:
        cls = collections.namedtuple(data["namedtuple"], data["fields"])
        return cls(*[_spec_from_json(s) for s in data["items"]])
    if "dict" in data:
        return {key: _spec_from_json(s) for key, s in data["dict"]}
    if "ragged" in data:
        leaf = data["ragged"]
        return RaggedTensorSpec(leaf["shape"], dtypes.as_dtype(leaf["dtype"]),
                                leaf["ragged_rank"], dtypes.as_dtype(leaf["row_splits_dtype"]))
    kind = "sparse" if "sparse" in data else "tensor"
    leaf = data[kind]
    cls = SparseTensorSpec if kind == "sparse" else TensorSpec
    return cls(leaf["shape"], dtypes.as_dtype(leaf["dtype"]))


def _save_compression(compression):
    value = compression.decode() if isinstance(compression, bytes) else compression
    if value not in _SAVE_COMPRESSIONS:
        raise NotImplementedError("tf.data save/load with compression=%r is not supported by "
                                  "tfcompat (None, 'GZIP' or 'ZLIB')" % (compression,))
    return _SAVE_COMPRESSIONS[value]


def _shard_of(shard_func, element):
    if shard_func is None:
        return 0
    value = structure.torch_value(normalize_element(
        execution.call(call_with_element, shard_func, element)))
    if isinstance(value, np.ndarray) or value.dtype != torch.int64 or value.ndim != 0:
        raise errors.InvalidArgumentError("`shard_func` must return a scalar int64.")
    if value < 0:
        raise errors.InvalidArgumentError("`shard_func` must return a non-negative shard "
                                          "index, got %d" % int(value))
    return int(value)


def _saving(elements, spec, path, kind, shard_func):
    """Yield `elements` while writing them under the directory `path`; its metadata file is
    written once all are, so a partial write is never loaded."""
    spec_json = _spec_to_json(spec)
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if name == _SPEC_FILE or (name.startswith("shard-") and name.endswith(".tfrecord")):
            os.remove(os.path.join(path, name))
    writers, count = {}, 0
    try:
        for element in elements:
            shard = _shard_of(shard_func, element)
            writer = writers.get(shard)
            if writer is None:
                writer = writers[shard] = TFRecordWriter(_shard_path(path, shard), kind)
            writer.write(_encode_element(element))
            count += 1
            yield element
    finally:
        for writer in writers.values():
            writer.close()
    with open(os.path.join(path, _SPEC_FILE), "w") as f:
        json.dump({"format": _SAVE_FORMAT, "compression": kind, "element_spec": spec_json,
                   "cardinality": count, "shards": sorted(writers)}, f)


def _directory(path):
    return os.fspath(path.decode() if isinstance(path, bytes) else path)


def save_dataset(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """Write every element of `dataset` under the directory `path` (see the module
    docstring); `shard_func(element)` -> scalar int64 picks each element's shard file."""
    if checkpoint_args is not None:
        raise NotImplementedError("tf.data.Dataset.save(checkpoint_args=...) is not supported "
                                  "by tfcompat")
    for _ in _saving(dataset._eager_elements(), dataset.element_spec, _directory(path),
                     _save_compression(compression), shard_func):
        pass


def _read_save_metadata(path):
    name = os.path.join(path, _SPEC_FILE)
    if not os.path.exists(name):
        raise errors.NotFoundError("tf.data snapshot element_spec file not found: "
                                   "%s." % name)
    with open(name) as f:
        metadata = json.load(f)
    if metadata.get("format") != _SAVE_FORMAT:
        raise errors.DataLossError("%s is not a dataset saved by tfcompat's "
                                   "Dataset.save" % name)
    return metadata


class _ShardDataset(Dataset):
    """The elements of one shard file of a saved dataset."""

    def __init__(self, filename, compression, spec):
        self._filename = filename
        self._compression = compression
        self._spec = spec

    def _iter(self, env):
        flat_spec = flatten(self._spec)
        for record in read_records(self._filename, self._compression):
            yield _decode_element(record, self._spec, flat_spec)


class LoadDataset(Dataset):
    """`Dataset.load(path)`: the elements `Dataset.save` wrote. `reader_func` is given the
    dataset of shard datasets (in shard order); by default they are interleaved one
    element at a time, as TF's default reader does."""

    def __init__(self, path, element_spec, compression, reader_func):
        self._path = _directory(path)
        self._given_compression = compression
        self._reader_func = reader_func
        self._metadata = None
        if element_spec is None:
            self._metadata = _read_save_metadata(self._path)
            element_spec = _spec_from_json(self._metadata["element_spec"])
        self._spec = element_spec

    def _saved(self):
        if self._metadata is None:
            if not os.path.exists(os.path.join(self._path, _SPEC_FILE)):
                raise errors.NotFoundError("Could not find metadata file [%s]"
                                           % self._path)
            self._metadata = _read_save_metadata(self._path)
        return self._metadata

    def _cardinality(self):
        if self._reader_func is not None or self._metadata is None:
            return UNKNOWN
        return self._metadata["cardinality"]

    def _iter(self, env):
        metadata = self._saved()
        compression = metadata["compression"] if self._given_compression is None \
            else _save_compression(self._given_compression)
        shards = [_ShardDataset(_shard_path(self._path, index), compression, self._spec)
                  for index in metadata["shards"]]
        if not shards:
            return
        datasets = _ListDataset(shards, DatasetSpec(self._spec))
        if self._reader_func is None:
            reader = InterleaveDataset(datasets, lambda shard: shard, os.cpu_count() or 1, 1,
                                       None)
        else:
            reader = self._reader_func(datasets)
            if not isinstance(reader, Dataset):
                raise TypeError("`reader_func` must return a `Dataset`, got %r" % (reader,))
        yield from reader._iter({})


class SnapshotDataset(Dataset):
    """`snapshot(path)`: the first complete pass writes the elements under `path` (the
    format of `save`), later passes (in this or another program) read them back. A snapshot
    of elements of another spec is written anew. Where we differ: TF keeps one snapshot per
    pipeline fingerprint under `path`, we one per directory; compression "AUTO" (TF: snappy)
    writes uncompressed."""

    def __init__(self, input_dataset, path, compression, reader_func, shard_func):
        self._inputs = (input_dataset,)
        self._path = _directory(path)
        self._compression = "" if compression == "AUTO" else _save_compression(compression)
        self._reader_func = reader_func
        self._shard_func = shard_func

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _complete(self):
        try:
            metadata = _read_save_metadata(self._path)
        except errors.OpError:     # none yet, or not ours
            return False
        return metadata["element_spec"] == _spec_to_json(self.element_spec)

    def _iter(self, env):
        if self._complete():
            return LoadDataset(self._path, self.element_spec, None, self._reader_func)._iter({})
        return _saving(self._inputs[0]._iter(env), self.element_spec, self._path,
                       self._compression, self._shard_func)


class SparseBatchDataset(Dataset):
    """`sparse_batch(batch_size, row_shape)`: batches of elements of varying shapes as
    SparseTensors of dense shape [batch, *row_shape] (an unknown row dimension: the longest
    element's), as TF; an element larger than `row_shape` is a DataLossError."""

    def __init__(self, input_dataset, batch_size, row_shape):
        self._inputs = (input_dataset,)
        self._size = int(_keep(batch_size, dtypes.int64))
        self._row_shape = [None if d is None or d == -1 else int(d) for d in (
            row_shape.as_list() if isinstance(row_shape, TensorShape) else row_shape)]

    def _compute_spec(self):
        return SparseTensorSpec([None] + self._row_shape, self._inputs[0].element_spec.dtype)

    def _batch(self, elements):
        values = [structure.torch_value(e) for e in elements]
        dims = []
        for axis, want in enumerate(self._row_shape):
            longest = max(v.shape[axis] for v in values)
            if want is not None and longest > want:
                raise errors.DataLossError(
                    "Input element had shape (%s) that is larger than the row shape (%s)."
                    % (list(values[0].shape), self._row_shape))
            dims.append(longest if want is None else want)
        indices = [torch.cat([torch.full((int(np.prod(v.shape)), 1), row, dtype=torch.int64),
                              torch.cartesian_prod(*[torch.arange(n) for n in v.shape])
                              .reshape(-1, v.ndim)], dim=1)
                   for row, v in enumerate(values)]
        flat = [v.reshape(-1) for v in values]
        flat = np.concatenate(flat) if isinstance(flat[0], np.ndarray) else torch.cat(flat)
        return SparseTensor(EagerTensor(torch.cat(indices)), EagerTensor(flat), EagerTensor(
            torch.tensor([len(values)] + dims, dtype=torch.int64)))

    def _iter(self, env):
        source = self._inputs[0]._iter(env)
        while True:
            batch = list(itertools.islice(source, self._size))
            if not batch:
                return
            yield self._batch(batch)
