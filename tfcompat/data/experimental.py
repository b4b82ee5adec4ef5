"""`tf.data.experimental`: the transformation functions scripts use with `apply`, and the
experimental names of what became `tf.data.Dataset` methods."""
import numpy as np
import torch

from tfcompat._api import export_constant, tf_export
from tfcompat.data import execution, structure
from tfcompat.data.dataset_ops import (
    AUTOTUNE, INFINITE, CounterDataset, Dataset, DatasetSpec, DirectedInterleaveDataset,
    LoadDataset,
    _ListDataset, _int64_scalar, save_dataset, trace_function)
from tfcompat.data.dataset_ops import sample_from_datasets as _sample_from_datasets
from tfcompat.data.iterator_ops import Iterator, OwnedIterator
from tfcompat.data.iterator_ops import get_single_element  # noqa: F401 - re-export
from tfcompat.data.structure import RaggedTensorSpec, SparseTensorSpec
from tfcompat.data.structured_function import call_with_element
from tfcompat.framework import dtypes, errors
from tfcompat.framework.tensor import EagerTensor
from tfcompat.function import TensorSpec
from tfcompat.io.tf_record import TFRecordOptions
from tfcompat.io.tf_record import TFRecordWriter as _RecordWriter


@tf_export("data.experimental.map_and_batch")
def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """`map` then `batch` (TF fuses them; the parallel map does the same work here)."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`num_parallel_batches` and `num_parallel_calls` are mutually "
                         "exclusive.")
    calls = num_parallel_calls if num_parallel_calls is not None else \
        (None if num_parallel_batches is None else int(num_parallel_batches) * int(batch_size))

    def apply(dataset):
        return dataset.map(map_func, num_parallel_calls=calls).batch(batch_size, drop_remainder)
    return apply


@tf_export(v1=["data.experimental.map_and_batch_with_legacy_function"])
def map_and_batch_with_legacy_function(map_func, batch_size, num_parallel_batches=None,
                                       drop_remainder=False, num_parallel_calls=None):
    """TF1's name of `map_and_batch` for functions traced the legacy way (the same here)."""
    return map_and_batch(map_func, batch_size, num_parallel_batches, drop_remainder,
                         num_parallel_calls)


# TF1's structure names of the element specs (the functions take dtype first, as TF1's)
export_constant(DatasetSpec, v1=["data.experimental.DatasetStructure"])


@tf_export(v1=["data.experimental.TensorStructure"])
def TensorStructure(dtype, shape):  # noqa: N802 - TF's name
    return TensorSpec(shape, dtype)


@tf_export(v1=["data.experimental.SparseTensorStructure"])
def SparseTensorStructure(dtype, shape):  # noqa: N802 - TF's name
    return SparseTensorSpec(shape, dtype)


@tf_export(v1=["data.experimental.RaggedTensorStructure"])
def RaggedTensorStructure(dtype, shape, ragged_rank):  # noqa: N802 - TF's name
    return RaggedTensorSpec(shape, dtype, ragged_rank)


@tf_export("data.experimental.parallel_interleave")
def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """`interleave` with each open dataset read ahead in the background (order as TF's
    deterministic mode; `sloppy=True` is accepted and gives the same order)."""
    def apply(dataset):
        return dataset.interleave(map_func, cycle_length, block_length,
                                  num_parallel_calls=cycle_length)
    return apply


@tf_export("data.experimental.shuffle_and_repeat")
def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """`shuffle(buffer_size, seed)` then `repeat(count)` (a new order each epoch)."""
    def apply(dataset):
        return dataset.shuffle(buffer_size, seed).repeat(count)
    return apply


@tf_export("data.experimental.unbatch")
def unbatch():
    def apply(dataset):
        return dataset.unbatch()
    return apply


@tf_export("data.experimental.enumerate_dataset")
def enumerate_dataset(start=0):
    def apply(dataset):
        return dataset.enumerate(start)
    return apply


@tf_export("data.experimental.scan")
def scan(initial_state, scan_func):
    def apply(dataset):
        return dataset.scan(initial_state, scan_func)
    return apply


@tf_export("data.experimental.unique")
def unique():
    def apply(dataset):
        return dataset.unique()
    return apply


@tf_export("data.experimental.take_while")
def take_while(predicate):
    def apply(dataset):
        return dataset.take_while(predicate)
    return apply


@tf_export("data.experimental.group_by_window")
def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    def apply(dataset):
        return dataset.group_by_window(key_func, reduce_func, window_size, window_size_func)
    return apply


@tf_export("data.experimental.bucket_by_sequence_length")
def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    def apply(dataset):
        return dataset.bucket_by_sequence_length(
            element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
            padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)
    return apply


@tf_export("data.experimental.rejection_resample")
def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    def apply(dataset):
        return dataset.rejection_resample(class_func, target_dist, initial_dist, seed)
    return apply


@tf_export("data.experimental.dense_to_ragged_batch")
def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64):
    def apply(dataset):
        return dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)
    return apply


@tf_export("data.experimental.sample_from_datasets")
def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    return _sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


@tf_export("data.experimental.choose_from_datasets")
def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """As `Dataset.choose_from_datasets`, but by default an exhausted dataset is skipped."""
    return DirectedInterleaveDataset(choice_dataset, datasets, stop_on_empty_dataset)


@tf_export("data.experimental.Counter")
def Counter(start=0, step=1, dtype=dtypes.int64):  # noqa: N802 - TF's name
    return CounterDataset(start, step, dtype)


@tf_export("data.experimental.save")
def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    save_dataset(dataset, path, compression, shard_func, checkpoint_args)


@tf_export("data.experimental.load")
def load(path, element_spec=None, compression=None, reader_func=None):
    return LoadDataset(path, element_spec, compression, reader_func)


@tf_export("data.experimental.from_list")
def from_list(elements, name=None):
    """A dataset of the given elements (each a structure of tensors, all alike)."""
    if not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty. If you want an "
                         "empty dataset, use `tf.data.Dataset.range(0)`.")
    elements = [structure.normalize_components(e) for e in elements]
    first = elements[0]
    for element in elements[1:]:
        try:
            structure.assert_same_structure(first, element, "from_list")
        except TypeError as error:     # TF raises ValueError here
            raise ValueError(str(error)) from None
        if structure.element_spec(element) != structure.element_spec(first):
            raise TypeError("from_list: elements of different types %s and %s"
                            % (structure.element_spec(first), structure.element_spec(element)))
    return _ListDataset(elements)


@tf_export("data.experimental.assert_cardinality")
def assert_cardinality(expected_cardinality):
    """The dataset, whose `cardinality()` is `expected_cardinality`; iterating it raises
    FailedPreconditionError when the count differs, as TF."""
    def apply(dataset):
        return _AssertCardinality(dataset, int(expected_cardinality))
    return apply


class _AssertCardinality(Dataset):
    def __init__(self, input_dataset, expected):
        self._inputs = (input_dataset,)
        self._expected = expected

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self):
        return self._expected

    def _iter(self, env):
        count = 0
        for element in self._inputs[0]._iter(env):
            count += 1
            if self._expected != INFINITE and count > self._expected:
                raise errors.FailedPreconditionError(
                    "Input dataset was expected to contain %d elements but contained at least "
                    "%d elements." % (self._expected, count))
            yield element
        if self._expected == INFINITE or count < self._expected:
            raise errors.FailedPreconditionError(
                "Input dataset was expected to contain %s elements but contained only %d "
                "elements." % ("an infinite number of" if self._expected == INFINITE
                               else "%d" % self._expected, count))


@tf_export("data.experimental.get_structure")
def get_structure(dataset_or_iterator):
    """The element spec of a dataset or iterator."""
    spec = getattr(dataset_or_iterator, "element_spec", None)
    if spec is None:
        raise TypeError("Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a "
                        "`tf.data.Dataset` or tf.data.Iterator object, but got %s."
                        % type(dataset_or_iterator))
    return spec


@tf_export("data.experimental.Reducer")
class Reducer(object):
    """`tf.data.experimental.Reducer(init_func, reduce_func, finalize_func)` for
    `group_by_reducer`."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    init_func = property(lambda self: self._init_func)
    reduce_func = property(lambda self: self._reduce_func)
    finalize_func = property(lambda self: self._finalize_func)


@tf_export("data.experimental.group_by_reducer")
def group_by_reducer(key_func, reducer):
    """Elements grouped by `key_func` (a tf.int64 scalar), each group folded with the
    reducer: state = init_func(key), then reduce_func(state, element) per element; at the
    end of the input each group gives finalize_func(state) (a tuple state unpacked), in
    increasing key order as TF."""
    def apply(dataset):
        return _GroupByReducer(dataset, key_func, reducer)
    return apply


class _GroupByReducer(Dataset):
    def __init__(self, input_dataset, key_func, reducer):
        self._inputs = (input_dataset,)
        self._key_func = key_func
        self._reducer = reducer

    def _compute_spec(self):
        try:
            state = trace_function(self._reducer.init_func, TensorSpec([], dtypes.int64))
            state_spec = structure.element_spec(structure.normalize_element(state))
            return structure.element_spec(structure.normalize_element(trace_function(
                self._reducer.finalize_func, state_spec)))
        except Exception:   # not traceable: from the first output
            return self._first_element_spec()

    def _iter(self, env):
        states = {}
        reducer = self._reducer
        for element in self._inputs[0]._iter(env):
            key = execution.call(lambda e: _int64_scalar(call_with_element(self._key_func, e),
                                                         "key_func"), element)
            if key not in states:
                states[key] = structure.normalize_element(execution.call(
                    reducer.init_func, EagerTensor(torch.tensor(key, dtype=torch.int64))))
            states[key] = structure.normalize_element(execution.call(
                reducer.reduce_func, states[key], element))
        for key in sorted(states):
            yield structure.normalize_element(execution.call(
                call_with_element, reducer.finalize_func, states[key]))


@tf_export("data.experimental.get_next_as_optional")
def get_next_as_optional(iterator):
    return iterator.get_next_as_optional()


@tf_export("data.experimental.at")
def at(dataset, index):
    """The element at `index` (OutOfRangeError outside [0, cardinality), as TF)."""
    index = int(index)
    count = int(dataset.cardinality())
    if index >= 0:
        for position, element in enumerate(dataset._eager_elements()):
            if position == index:
                return element
    raise errors.OutOfRangeError("Index out of range [0, %d):%d" % (
        count if count >= 0 else index, index))


@tf_export("data.experimental.pad_to_cardinality")
def pad_to_cardinality(cardinality, mask_key="valid"):
    """Dict elements padded with zero elements up to `cardinality` elements, each with a
    boolean `mask_key` entry saying whether it is real."""
    def apply(dataset):
        spec = dataset.element_spec
        if not isinstance(spec, dict):
            raise ValueError("`pad_to_cardinality` requires its input dataset to be a "
                             "dictionary.")
        count = int(dataset.cardinality())
        if count > cardinality:
            raise ValueError("The dataset passed into `pad_to_cardinality` must have a "
                             "cardinalty less than the target cardinality (%d), but has "
                             "cardinality %d" % (cardinality, count))
        if count < 0:
            raise ValueError("The dataset passed into `pad_to_cardinality` must have a known "
                             "cardinalty, but has cardinality %d" % count)
        padding = {key: EagerTensor(np.full(s.shape.as_list(), b"", dtype=object)
                                    if s.dtype is dtypes.string else
                                    torch.zeros(s.shape.as_list(), dtype=s.dtype.torch_dtype))
                   for key, s in spec.items()}
        padding[mask_key] = EagerTensor(torch.tensor(False))
        padded = dataset.map(lambda element: dict(element, **{
            mask_key: EagerTensor(torch.tensor(True))}))
        return padded.concatenate(Dataset.from_tensors(padding).repeat(cardinality - count))
    return apply


@tf_export("data.experimental.dense_to_sparse_batch")
def dense_to_sparse_batch(batch_size, row_shape):
    """Batches of `batch_size` elements of varying shapes as SparseTensors of dense shape
    [batch, *row_shape] (an unknown row dimension: the longest element's), as TF."""
    def apply(dataset):
        return dataset.sparse_batch(batch_size, row_shape)
    return apply


@tf_export("data.experimental.TFRecordWriter")
class TFRecordWriter(object):
    """`tf.data.experimental.TFRecordWriter(filename, compression_type)`: `write(dataset)`
    writes a dataset of scalar strings as one TFRecord file."""

    def __init__(self, filename, compression_type=None):
        self._filename = filename
        self._options = TFRecordOptions.get_compression_type_string(compression_type)

    def write(self, dataset):
        spec = dataset.element_spec
        if spec != TensorSpec([], dtypes.string):
            raise TypeError("Invalid `dataset`. Expected a`dataset` that produces scalar "
                            "`tf.string` elements, but got a dataset which produces elements "
                            "with shapes %s and types %s." % (
                                getattr(spec, "shape", spec), getattr(spec, "dtype", spec)))
        with _RecordWriter(self._filename, self._options) as writer:
            for record in dataset._eager_elements():
                writer.write(record.numpy())


@tf_export("data.experimental.prefetch_to_device")
def prefetch_to_device(device, buffer_size=None):
    """`prefetch` (elements stay on the device that made them)."""
    def apply(dataset):
        return dataset.prefetch(AUTOTUNE if buffer_size is None else buffer_size)
    return apply


@tf_export("data.experimental.copy_to_device")
def copy_to_device(target_device, source_device="/cpu:0"):
    """The same elements (they stay on the device that made them)."""
    def apply(dataset):
        return dataset
    return apply


@tf_export("data.experimental.snapshot")
def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    def apply(dataset):
        return dataset.snapshot(path, compression, reader_func, shard_func)
    return apply


@tf_export("data.experimental.enable_debug_mode")
def enable_debug_mode():
    """TF's debug mode runs dataset functions eagerly and in order; tfcompat's pipelines
    already run their functions from Python, so there is nothing to switch."""


@tf_export("data.experimental.cardinality")
def cardinality(dataset):
    return dataset.cardinality()


@tf_export("data.experimental.ignore_errors")
def ignore_errors(log_warning=False):
    """Drop elements whose computation raises a TF error (OpError), as TF does."""
    def apply(dataset):
        return dataset.ignore_errors(log_warning)
    return apply


class IteratorSaveable(object):
    """TF's SaveableObject for a graph iterator: `tf.train.Saver` saves the iterator's
    position in a session under `<name>_STATE` (an int64 vector, see
    `iterator_ops._Iteration`) and restores it into the session's pass."""

    def __init__(self, iterator, name):
        self.name = name
        self.checkpoint_key = name + "_STATE"
        self._iterator = iterator

    def _saver_value(self, session):
        return self._iterator._save_position(session)

    def _saver_restore(self, value, session):
        self._iterator._restore_position(value, session)


@tf_export("data.experimental.make_saveable_from_iterator")
def make_saveable_from_iterator(iterator, external_state_policy=None):
    """A saveable for a graph iterator; add it to the SAVEABLE_OBJECTS collection (or a
    Saver's var_list) and `tf.train.Saver` saves and restores the iterator's position.
    As in TF, eager iterators have no resource name: save them with tf.train.Checkpoint."""
    if isinstance(iterator, OwnedIterator):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled "
                             "(make_saveable_from_iterator needs a graph iterator; save an "
                             "eager iterator with tf.train.Checkpoint(iterator=...))")
    if not isinstance(iterator, Iterator):
        raise TypeError("make_saveable_from_iterator expects a tf.data Iterator, got %r"
                        % (iterator,))
    name = iterator._graph.unique_name("OneShotIterator" if iterator._one_shot
                                       else "Iterator")
    return IteratorSaveable(iterator, name + ":0")
