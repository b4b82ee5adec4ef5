"""Iterators over datasets: eager (`iter(ds)`, `tfe.Iterator`) and TF1 graph iterators.

Graph mode: `get_next()` is one graph node (`Graph.record_custom`) whose outputs look like the
dataset's element spec (unknown dimensions symbolic) and whose function pulls the next element
from the iterator's Python state at run time; `initializer` (or `make_initializer`) is a node
that (re)starts that state from the values of the graph tensors the dataset uses (fed
placeholders included). As in TF, each Session has its own iterator state, and the end of the
data raises `tf.errors.OutOfRangeError`. The pipeline runs inside an eager window (see
`tfcompat.data.execution`).
"""
import itertools
import threading
import weakref

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.data import execution, structure
from tfcompat.data.dataset_ops import (
    Dataset, DatasetSpec, GeneratorDataset, SHUFFLE_EPOCHS, ShuffleDataset, ShuffleEpochs,
    _flatten_shapes, _spec_compatible, trace_function)
from tfcompat.data.optional_ops import Optional
from tfcompat.data.structure import (SparseTensorSpec, flatten, map_structure, normalize_element,
                                     pack_as)
from tfcompat.framework import context, errors
from tfcompat.framework.tensor import EagerTensor, Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.function import TensorSpec
from tfcompat.ops.sparse_ops import SparseTensor
from tfcompat.framework.default_session import running_session
from tfcompat.framework.graph import get_default_graph
from tfcompat.framework.constant_op import constant

_END = object()
ITERATOR_STATE = "ITERATOR_STATE"     # TF's checkpoint attribute name for an iterator


def _end_of_sequence():
    return errors.OutOfRangeError("End of sequence")


def _not_initialized():
    return errors.FailedPreconditionError(
        "GetNext() failed because the iterator has not been initialized. Ensure that you "
        "have run the initializer operation for this iterator before getting the next "
        "element.")


class _Iteration(object):
    """One pass of an iterator through a dataset: the Python iterator, how many elements it
    produced, the shuffle epochs it used and the graph-tensor values it started from.

    Its position (`position()`) is what a checkpoint saves as an iterator's state, under
    TF's attribute name ITERATOR_STATE, but as an int64 vector (no pickle, no serialized
    pipeline): [elements produced, number of shuffles, then per shuffle (walk order):
    len(seed material), seed material..., next epoch, number of epochs used, epochs
    used...]. `restored(value)` rebuilds the pass over the same dataset and replays that
    many elements (computing them again), so the next element is the one that followed at
    save time. Where we differ: TF stores the buffers instead, and restores pipelines with
    random map functions exactly (replay draws new numbers) and `list_files` shuffles
    (ours take new orders). Like TF, a pipeline reading a Python generator cannot be saved
    (FailedPreconditionError)."""

    def __init__(self, dataset, capture_values=(), replay=None):
        self.dataset = dataset
        self.capture_values = tuple(capture_values)
        self.shuffle_epochs = ShuffleEpochs(replay)
        self.produced = 0
        env = {id(t): EagerTensor(v) for t, v in zip(dataset._captures(), capture_values)}
        env[SHUFFLE_EPOCHS] = self.shuffle_epochs
        self._it = dataset._iter(env)

    def next(self):
        """The next element, or _END."""
        element = next(self._it, _END)
        if element is not _END:
            self.produced += 1
        return element

    def position(self):
        state = [self.produced, 0]
        for dataset in self.dataset._walk():
            if isinstance(dataset, GeneratorDataset):
                raise errors.FailedPreconditionError(
                    "Failed to save the iterator: its pipeline reads a Python generator "
                    "(Dataset.from_generator), whose state cannot be saved (TF: PyFunc is "
                    "stateful.)")
            if isinstance(dataset, ShuffleDataset):
                used = self.shuffle_epochs.used.get(id(dataset), [])
                state[1] += 1
                state += [len(dataset.seed_material)] + dataset.seed_material + \
                    [dataset.next_epoch, len(used)] + used
        return torch.tensor(state, dtype=torch.int64)

    def restored(self, value):
        """A new pass over the same dataset at the saved position `value`."""
        if not isinstance(value, torch.Tensor) or value.dtype != torch.int64 or \
                value.ndim != 1:
            raise errors.InvalidArgumentError(
                "The checkpoint's iterator state is not an iterator position saved by "
                "tfcompat (a TensorFlow iterator state cannot be restored by tfcompat)")
        state = iter(value.tolist())
        produced, shuffle_count = next(state), next(state)
        shuffles = [d for d in self.dataset._walk() if isinstance(d, ShuffleDataset)]
        if shuffle_count != len(shuffles):
            raise errors.InvalidArgumentError(
                "The checkpoint's iterator state is for a pipeline with %d shuffles; this "
                "iterator's has %d" % (shuffle_count, len(shuffles)))
        replay = {}
        for dataset in shuffles:
            dataset.seed_material = [next(state) for _ in range(next(state))]
            dataset.next_epoch = next(state)
            replay[id(dataset)] = iter([next(state) for _ in range(next(state))])
        iteration = _Iteration(self.dataset, self.capture_values, replay)
        while iteration.produced < produced and iteration.next() is not _END:
            pass
        return iteration


@tf_export("contrib.eager.Iterator")
class OwnedIterator(object):
    """An eager iterator over a dataset (`iter(dataset)`, `tfe.Iterator(dataset)`).

    `next()` / `__next__` raise StopIteration at the end; `get_next()` raises
    `tf.errors.OutOfRangeError`, as TF does. In a `tf.train.Checkpoint` it saves its
    position under `<path>/.ATTRIBUTES/ITERATOR_STATE` (see `_Iteration`).
    """

    def __init__(self, dataset):
        if context.state.building_graph:
            raise RuntimeError("tfe.Iterator can only be used when eager execution is enabled.")
        self._dataset = dataset
        self._iteration = _Iteration(dataset)

    def __iter__(self):
        return self

    def __next__(self):
        if context.state.building_graph:
            return self.get_next()
        element = self._iteration.next()
        if element is _END:
            raise StopIteration
        return element

    next = __next__

    def get_next(self, name=None):
        """The next element; in a function being traced, a node that takes it each time the
        function runs (TF's IteratorGetNext on the iterator's resource), so a tf.function
        given an iterator consumes one element per call."""
        if context.state.building_graph:
            return record_structured(get_default_graph(), self._next_values, "IteratorGetNext",
                                     [], self.element_spec, name)
        element = self._iteration.next()
        if element is _END:
            raise _end_of_sequence()
        return element

    def get_next_as_optional(self):
        """The next element as a `tf.experimental.Optional` (empty at the end)."""
        if context.state.building_graph:
            raise NotImplementedError("Iterator.get_next_as_optional() inside a traced "
                                      "function is not supported by tfcompat")
        element = self._iteration.next()
        if element is _END:
            return Optional.empty(self.element_spec)
        return Optional(element, self.element_spec)

    def _next_values(self):
        with execution.eager_window():
            element = self._iteration.next()
        if element is _END:
            raise _end_of_sequence()
        return flat_values(element)

    # --- checkpoints (tracking's protocol for tf.train.Checkpoint)
    def _checkpoint_state(self):
        return {ITERATOR_STATE: self._iteration.position}

    def _restore_checkpoint_state(self, name, value):
        self._iteration = self._iteration.restored(value)

    @property
    def element_spec(self):
        return self._dataset.element_spec

    output_types = property(lambda self: self._dataset.output_types)
    output_shapes = property(lambda self: self._dataset.output_shapes)
    output_classes = property(lambda self: self._dataset.output_classes)


# ---------------------------------------------------------------- graph iterators

_handles = {}
_handle_counter = itertools.count()


def _fake_leaves(graph, spec):
    """(dtype, shape) of the outputs for one leaf spec (see `structure.component_specs`)."""
    if isinstance(spec, DatasetSpec):
        raise TypeError("get_next() of a dataset whose elements are datasets (window) is not "
                        "supported in graph mode by tfcompat")
    return structure.component_specs(spec)


def record_structured(graph, fn, op_type, inputs, spec, name=None):
    """Record a node returning the flat components of `spec`; returns the packed structure."""
    flat_spec = flatten(spec)
    kinds = [_fake_leaves(graph, s) for s in flat_spec]
    fakes = tuple(graph._fake_for_shape(s, d) for parts in kinds for d, s in parts)
    outputs = graph.record_custom(fn, op_type, inputs, fakes, name)
    it = iter(outputs)
    leaves = []
    for s, parts in zip(flat_spec, kinds):
        comps = []
        for _, shape in parts:
            tensor = next(it)
            tensor._static = shape
            comps.append(tensor)
        leaves.append(structure.from_components(s, comps))
    return pack_as(spec, leaves)


def flat_values(element):
    """Run-time values of an element's components, as the record_structured node returns
    them."""
    return tuple(structure.torch_value(c) for leaf in flatten(element)
                 for c in structure.components(leaf))


def _session_key():
    session = running_session()
    return session if session is not None else _NO_SESSION


class _NoSession(object):
    """Key of iterator state used outside a Session run."""


_NO_SESSION = _NoSession()


@tf_export("data.Iterator")
class Iterator(object):
    """TF1's `tf.data.Iterator` (graph mode): get_next, initializer, make_initializer,
    from_structure, from_string_handle, string_handle."""

    def __init__(self, graph, spec, dataset=None, one_shot=False, shared_name=None):
        self._graph = graph
        self._spec = spec
        self._dataset = dataset
        self._one_shot = one_shot
        self._states = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._initializer = None
        self._handle = None
        if dataset is not None and not one_shot:
            self._initializer = self.make_initializer(dataset)

    # --- construction (TF1 API)
    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None,
                       output_classes=None):
        """An iterator not bound to a dataset; `make_initializer(ds)` binds one."""
        spec = _spec_from_types(output_types, output_shapes, output_classes)
        return Iterator(_graph_or_raise("Iterator.from_structure"), spec,
                        shared_name=shared_name)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None,
                           output_classes=None):
        """An iterator that reads from the iterator whose `string_handle()` is fed."""
        spec = _spec_from_types(output_types, output_shapes, output_classes)
        graph = _graph_or_raise("Iterator.from_string_handle")
        return _HandleIterator(graph, spec, string_handle)

    # --- state
    def _get_state(self):
        return self._states.get(_session_key())

    def _set_state(self, value):
        self._states[_session_key()] = value

    def _start(self, dataset, capture_values):
        with execution.eager_window():
            self._set_state(_Iteration(dataset, capture_values))

    def _next_values(self, *capture_values):
        with execution.eager_window():
            with self._lock:
                iteration = self._get_state()
                if iteration is None:
                    if not self._one_shot:
                        raise _not_initialized()
                    self._start(self._dataset, capture_values)
                    iteration = self._get_state()
                element = iteration.next()
        if element is _END:
            raise _end_of_sequence()
        return flat_values(element)

    # --- checkpoints (make_saveable_from_iterator and tf.train.Saver)
    def _iteration_to_save(self, session):
        """This session's pass (a one-shot iterator not run yet: a fresh one)."""
        iteration = self._states.get(session if session is not None else _NO_SESSION)
        if iteration is None and self._one_shot and not self._dataset._captures():
            iteration = _Iteration(self._dataset)
        if iteration is None:
            raise _not_initialized()
        return iteration

    def _save_position(self, session):
        return self._iteration_to_save(session).position()

    def _restore_position(self, value, session):
        """Put this session's pass at the saved position (an initializable iterator must
        have run its initializer in `session`, which gives the dataset and its inputs)."""
        with execution.eager_window(), self._lock:
            restored = self._iteration_to_save(session).restored(value)
            self._states[session if session is not None else _NO_SESSION] = restored

    # --- graph ops
    def make_initializer(self, dataset, name=None):
        """An op that (re)starts this iterator on `dataset` (same structure and types)."""
        if not isinstance(dataset, Dataset):
            raise TypeError("make_initializer expects a Dataset, got %r" % (dataset,))
        structure.assert_same_structure(self._spec, dataset.element_spec,
                                        "Iterator.make_initializer")
        if not _spec_compatible(self._spec, dataset.element_spec):
            raise TypeError("Expected output types %r but got dataset with output types %r."
                            % (map_structure(lambda s: s.dtype, self._spec),
                               dataset.output_types))
        captures = dataset._captures()

        def initialize(*values):
            self._start(dataset, values)
        return self._graph.record_custom(initialize, "MakeIterator", captures, None, name)

    @property
    def initializer(self):
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer: use make_initializer() "
                             "(one-shot iterators initialize themselves).")
        return self._initializer

    def get_next(self, name=None):
        """The next element as graph tensors; running it past the end raises OutOfRangeError."""
        captures = self._dataset._captures() if self._one_shot else []
        return record_structured(self._recording_graph(), self._next_values, "IteratorGetNext",
                                 captures, self._spec, name)

    def get_next_as_optional(self):
        raise NotImplementedError("tf.data.Iterator.get_next_as_optional() of a graph iterator "
                                  "is not supported by tfcompat (use get_next() and "
                                  "tf.errors.OutOfRangeError)")

    def _recording_graph(self):
        """Where get_next records: the default graph when it is a loop body, cond branch or
        function traced inside this iterator's graph (the element is then taken each time
        that runs, as TF1's get_next inside a tf.while_loop), else this iterator's graph."""
        if not context.state.building_graph:
            return self._graph
        current = graph = get_default_graph()
        while current is not None and current is not self._graph:
            current = getattr(current, "outer", None)
        return graph if current is self._graph else self._graph

    def string_handle(self, name=None):
        """A string tensor naming this iterator, to feed to `from_string_handle`."""
        if self._handle is None:
            self._handle = ("tfcompat-iterator-%d" % next(_handle_counter)).encode()
            _handles[self._handle] = weakref.ref(self)
        return constant(self._handle, name=name or "IteratorToStringHandle")

    # --- structure
    @property
    def element_spec(self):
        return self._spec

    output_types = property(lambda self: map_structure(lambda s: s.dtype, self._spec))
    output_shapes = property(lambda self: map_structure(lambda s: s.shape, self._spec))
    output_classes = property(lambda self: map_structure(
        lambda s: SparseTensor if isinstance(s, SparseTensorSpec) else Tensor, self._spec))


class _HandleIterator(Iterator):
    """`from_string_handle`: get_next reads from the iterator named by the fed handle."""

    def __init__(self, graph, spec, handle_tensor):
        super(_HandleIterator, self).__init__(graph, spec)
        self._handle_tensor = handle_tensor

    def get_next(self, name=None):
        def next_from_handle(handle):
            key = handle[()] if isinstance(handle, np.ndarray) else handle
            ref = _handles.get(bytes(key))
            target = ref() if ref is not None else None
            if target is None:
                raise errors.InvalidArgumentError("%r is not a valid iterator handle; pass the "
                                                  "value of iterator.string_handle()" % (key,))
            if not _spec_compatible(self._spec, target._spec):
                raise errors.InvalidArgumentError(
                    "The iterator named by the handle has output types %r, expected %r"
                    % (target.output_types, self.output_types))
            return target._next_values()
        return record_structured(self._graph, next_from_handle, "IteratorGetNext",
                                 [self._handle_tensor], self._spec, name)


def _graph_or_raise(what):
    if not context.state.building_graph:
        raise RuntimeError("%s is not supported when eager execution is enabled." % what)
    return get_default_graph()


def _spec_from_types(output_types, output_shapes, output_classes):
    flat_types = flatten(output_types)
    if output_shapes is None:
        flat_shapes = [TensorShape(None)] * len(flat_types)
    else:
        flat_shapes = [TensorShape(output_shapes)] if len(flat_types) == 1 and \
            not isinstance(output_shapes, dict) and not (
                isinstance(output_shapes, tuple) and output_shapes and
                isinstance(output_shapes[0], (TensorShape, list, tuple))) \
            else _flatten_shapes(output_shapes)
    flat_classes = flatten(output_classes) if output_classes is not None \
        else [Tensor] * len(flat_types)
    if not len(flat_types) == len(flat_shapes) == len(flat_classes):
        raise ValueError("output_types, output_shapes and output_classes must have the same "
                         "structure")
    specs = [SparseTensorSpec(s, t) if c is SparseTensor else TensorSpec(s, t)
             for t, s, c in zip(flat_types, flat_shapes, flat_classes)]
    return pack_as(output_types, specs)


@tf_export(v1=["data.make_one_shot_iterator"])
def make_one_shot_iterator(dataset):
    """An iterator that initializes itself on first use (eager: a Python iterator)."""
    if not context.state.building_graph:
        return OwnedIterator(dataset)
    return Iterator(get_default_graph(), dataset.element_spec, dataset, one_shot=True)


@tf_export(v1=["data.make_initializable_iterator"])
def make_initializable_iterator(dataset, shared_name=None):
    """A graph iterator with an `initializer` op (not available in eager mode, as in TF)."""
    if not context.state.building_graph:
        raise RuntimeError("dataset.make_initializable_iterator is not supported when eager "
                           "execution is enabled. Use `for element in dataset` instead.")
    return Iterator(get_default_graph(), dataset.element_spec, dataset,
                    shared_name=shared_name)


@tf_export(v1=["data.get_output_types"])
def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


@tf_export(v1=["data.get_output_shapes"])
def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


@tf_export(v1=["data.get_output_classes"])
def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


# ---------------------------------------------------------------- reduce


def _reduce_loop(dataset, env, state, reduce_func):
    for element in dataset._iter(env):
        args = (state, element)
        new = normalize_element(reduce_func(*args))
        structure.assert_same_structure(state, new, "Dataset.reduce")
        state = new
    return state


def reduce_dataset(dataset, initial_state, reduce_func):
    """`Dataset.reduce`: eager loop; in a graph, one node that runs the loop when evaluated."""
    initial = normalize_element(initial_state)
    if not context.state.building_graph:
        return _reduce_loop(dataset, {}, initial, reduce_func)
    graph = get_default_graph()
    spec = map_structure(structure.spec_of, initial)
    flat_initial = flatten(initial)
    traced = trace_function(lambda s, e: reduce_func(s, e), (spec, dataset.element_spec))
    out_spec = map_structure(structure.spec_of, normalize_element(traced))
    captures = dataset._captures()

    def run(*values):
        n = len(flat_initial)
        init_values = [EagerTensor(v) for v in values[:n]]
        env = {id(t): EagerTensor(v) for t, v in zip(captures, values[n:])}
        with execution.eager_window():
            state = _reduce_loop(dataset, env, pack_as(initial, init_values), reduce_func)
        return flat_values(state)
    inputs = [leaf for leaf in flat_initial] + captures
    return record_structured(graph, run, "ReduceDataset", inputs, out_spec)


@tf_export("data.experimental.get_single_element")
def get_single_element(dataset):
    """The only element of `dataset` (InvalidArgumentError if it has none or several)."""
    if context.state.building_graph:
        graph = get_default_graph()
        captures = dataset._captures()

        def run(*values):
            env = {id(t): EagerTensor(v) for t, v in zip(captures, values)}
            with execution.eager_window():
                return flat_values(_single(dataset._iter(env)))
        return record_structured(graph, run, "DatasetToSingleElement", captures,
                                 dataset.element_spec)
    return _single(dataset._iter({}))


def _single(it):
    first = next(it, _END)
    if first is _END:
        raise errors.InvalidArgumentError("Dataset was empty.")
    if next(it, _END) is not _END:
        raise errors.InvalidArgumentError("Dataset had more than one element.")
    return first


