"""TF1 queues: `tf.FIFOQueue`, `tf.RandomShuffleQueue`, `tf.PaddingFIFOQueue` (`tf.queue.*`).

A queue is a resource created by its queue op. As in TF, each Session that runs the graph gets
its own instance the first time one of the queue's ops runs there (named like TF's resource,
"_0_fifo_queue", or by `shared_name`), and `Session.close()` cancels the operations still
waiting on it (`CancelledError`), so queue-runner threads end. Eagerly the queue object owns
one instance and its ops run at once, as TF 1.x eager queues do.

Semantics of TF's queue kernels: enqueue blocks while the queue is full, dequeue while it has
too few elements (a RandomShuffleQueue keeps `min_after_dequeue` elements until it is closed);
waiting operations are served in arrival order and a `dequeue_many` collects elements as they
arrive. On a closed queue, enqueue raises `CancelledError` ("... is closed."), a dequeue that
cannot be filled raises `OutOfRangeError` ("... is closed and has insufficient elements
(requested 1, current size 0)") and puts back what it had collected; `dequeue_up_to` then
returns what is left. `close(cancel_pending_enqueues=True)` also cancels waiting enqueues.
A Session made with `ConfigProto(operation_timeout_in_ms=...)` limits how long an op waits
(`DeadlineExceededError`). Element values are copied on enqueue, as TF copies tensors.
"""
import collections
import itertools
import threading
import time
import weakref

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors, ops, random_seed
from tfcompat.framework.errors import format_shape
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape, as_shape
from tfcompat.framework.default_session import running_session
from tfcompat.framework.graph import get_default_graph

_resource_ids = itertools.count()
_handle_ids = itertools.count()


# ---------------------------------------------------------------- per-session resources


def _running_session():
    return running_session()


class PerSession(object):
    """The instances of one TF resource (a queue, a reader): one per Session that runs its
    ops, kept with that session as TF keeps resources in the session's resource manager, and
    one for eager execution. Instances sharing `key` in a session are one resource (TF's
    `shared_name`). An instance's `cancel()`, if it has one, runs when its session closes."""

    _lock = threading.Lock()
    _by_session = weakref.WeakKeyDictionary()

    def __init__(self, key, create):
        self._key = key
        self._create = create
        self._eager = None

    def get(self):
        session = _running_session()
        with PerSession._lock:
            if session is None:
                if self._eager is None:
                    self._eager = self._create(None)
                return self._eager
            instances = PerSession._by_session.setdefault(session, {})
            instance = instances.get(self._key)
            if instance is None:
                instance = instances[self._key] = self._create(session)
                cancel = getattr(instance, "cancel", None)
                if cancel is not None:
                    session._on_close.append(cancel)
                    if session._closed:  # closed while this run was under way
                        cancel()
            return instance


def resource_name(op_name, shared_name):
    """TF's resource name: the shared name, else "_<n>_<op name>" (n counts resources)."""
    return shared_name if shared_name else "_%d_%s" % (next(_resource_ids), op_name)


def operation_timeout(session):
    """Seconds a blocking op may wait in `session` (its `operation_timeout_in_ms`), or None."""
    millis = getattr(getattr(session, "_config", None), "operation_timeout_in_ms", 0)
    return millis / 1000.0 if millis and millis > 0 else None


# ---------------------------------------------------------------- running ops


def run_resource_op(fn, op_type, inputs, out_specs, name):
    """Run `fn` over the values of `inputs` now (eager) or record a node running it.

    `out_specs` lists (dtype, TensorShape) of the outputs, or is None for an op without
    outputs (eagerly None, in a graph its Operation). In a graph, `fn` is kept out of
    torch.compile (a compiled Session.run calls it as it is): it holds state and may block.
    """
    if not context.state.building_graph:
        result = fn(*[ops.to_torch(value) for value in inputs])
        return None if out_specs is None else [EagerTensor(value) for value in result]
    fn = torch._disable_dynamo(fn)  # imports torch._dynamo only if the graph is compiled
    graph = get_default_graph()
    if out_specs is None:
        return graph.record_custom(fn, op_type, inputs, None, name)
    fakes = tuple(_string_fake(shape) if dtype in (dtypes.string, dtypes.resource)
                  else graph._fake_for_shape(shape, dtype) for dtype, shape in out_specs)
    outputs = graph.record_custom(fn, op_type, inputs, fakes, name)
    for tensor, (dtype, shape) in zip(outputs, out_specs):
        tensor._dtype, tensor._static = dtype, shape
    return list(outputs)


def _string_fake(shape):
    """A stand-in string value for shape inference: empty strings (string ops downstream
    encode their inputs), unknown dimensions as 1."""
    dims = [1 if d is None else d for d in shape.as_list()] if shape.rank is not None else []
    return np.full(dims, b"", dtype=object)


def scalar_string(value):
    array = np.empty((), dtype=object)
    array[()] = value
    return array


def resource_handle_op(resource, op_type, name):
    """The op creating `resource` (which has a unique `handle`): its output is the handle, a
    `resource` tensor; the graph keeps the resource alive."""
    ref = run_resource_op(lambda: (scalar_string(resource.handle),), op_type, [],
                          [(dtypes.resource, TensorShape([]))], name)[0]
    resource.op_name = ref.op.name if context.state.building_graph \
        else ops.current_scope() + (name or op_type)
    return ref


def handle_value(value):
    """A run-time resource handle (a scalar string array) as bytes."""
    return bytes(value[()]) if isinstance(value, np.ndarray) else bytes(value)


# ---------------------------------------------------------------- queue state


def _copy(value):
    return value.copy() if isinstance(value, np.ndarray) else value.detach().clone()


def _batch_size(value):
    if value.ndim == 0:
        raise errors.InvalidArgumentError("EnqueueMany requires every component to have at "
                                          "least one dimension, got a scalar")
    return value.shape[0]


class _Attempt(object):
    """One waiting enqueue, dequeue or close. `step(attempt)` tries to make progress (see
    QueueState._flush); `error` is set when the attempt is cancelled."""

    __slots__ = ("step", "error", "taken", "done", "result", "exception")

    def __init__(self, step):
        self.step = step
        self.error = None
        self.taken = []
        self.done = False
        self.result = None
        self.exception = None


_WAIT, _PROGRESS, _DONE = range(3)


class QueueState(object):
    """One queue resource: its elements and the operations waiting on it.

    As in TF's queue kernels, waiting attempts form two lines (enqueues and closes; dequeues)
    and whichever thread changes the queue runs the attempts at the head of each line until
    none can progress (`_flush`), so a dequeue collects elements as soon as they arrive.
    """

    def __init__(self, spec, name, session):
        self.spec = spec
        self.name = name
        self._timeout = operation_timeout(session)
        self._cond = threading.Condition()
        self._elements = [] if spec.shuffled else collections.deque()
        self._closed = False
        self._session_closed = False
        self._enqueuers = collections.deque()
        self._dequeuers = collections.deque()
        if spec.shuffled:
            seeds = spec.seeds
            self._rng = np.random.default_rng(None if seeds == (0, 0) else
                                              [s & 0xFFFFFFFFFFFFFFFF for s in seeds])

    # --- attempts
    def _run_attempt(self, line, step, cancel_message):
        """Queue an attempt behind the earlier ones and wait until it completes."""
        attempt = _Attempt(step)
        deadline = None if self._timeout is None else time.monotonic() + self._timeout
        with self._cond:
            if self._session_closed:
                attempt.error = cancel_message
            line.append(attempt)
            self._flush()
            try:
                while not attempt.done:
                    if attempt.error is not None:
                        raise errors.CancelledError(attempt.error)
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        raise errors.DeadlineExceededError("Timed out waiting for notification")
                    self._cond.wait(remaining)
            finally:
                if not attempt.done:
                    if attempt in line:
                        line.remove(attempt)
                    self._restore(attempt.taken)
                    self._flush()
        if attempt.exception is not None:
            raise attempt.exception
        return attempt.result

    def _flush(self):
        """Run the head attempts of both lines until none progresses (TF's FlushUnlocked)."""
        changed, any_change = True, False
        while changed:
            changed = self._try_line(self._enqueuers)
            changed = self._try_line(self._dequeuers) or changed
            any_change = any_change or changed
        if any_change:
            self._cond.notify_all()

    def _try_line(self, line):
        progressed = False
        while line:
            attempt = line[0]
            if attempt.error is not None:  # cancelled: its thread raises CancelledError
                line.popleft()
                self._restore(attempt.taken)
                progressed = True
                continue
            try:
                outcome, attempt.result = attempt.step(attempt)
            except errors.OpError as e:
                outcome, attempt.exception = _DONE, e
            if outcome != _DONE:
                return progressed or outcome == _PROGRESS
            line.popleft()
            attempt.done = progressed = True
        return progressed

    def _pop(self):
        if not self.spec.shuffled:
            return self._elements.popleft()
        index = int(self._rng.integers(len(self._elements)))
        elements = self._elements
        elements[index], elements[-1] = elements[-1], elements[index]
        return elements.pop()

    def _restore(self, taken):
        """Put back elements of an unfinished dequeue (at the front, in order, for FIFO)."""
        if self.spec.shuffled:
            self._elements.extend(taken)
        else:
            self._elements.extendleft(reversed(taken))
        del taken[:]

    # --- operations
    def enqueue(self, elements):
        if not elements:
            return
        remaining = collections.deque(elements)
        capacity = self.spec.capacity

        def step(attempt):
            if self._closed:
                raise errors.CancelledError("%s '%s' is closed." % (self.spec.kind, self.name))
            moved = False
            while remaining and len(self._elements) < capacity:
                self._elements.append(remaining.popleft())
                moved = True
            return (_PROGRESS if moved else _WAIT) if remaining else _DONE, None
        self._run_attempt(self._enqueuers, step, "Enqueue operation was cancelled")

    def dequeue(self, count, allow_smaller):
        """`count` elements (fewer only if `allow_smaller` and the queue is closed)."""
        target = [count]
        min_after = self.spec.min_after_dequeue

        def step(attempt):
            size = len(self._elements)
            wanted = target[0] - len(attempt.taken)
            if self._closed and size < wanted:
                self._restore(attempt.taken)
                if allow_smaller and self._elements:
                    target[0] = len(self._elements)
                elif allow_smaller and self._enqueuers:
                    return _PROGRESS, None  # let the pending enqueues fail first
                else:
                    raise errors.OutOfRangeError(
                        "%s '%s' is closed and has insufficient elements (requested %d, "
                        "current size %d)" % (self.spec.kind, self.name, wanted, size))
            available = len(self._elements) - (0 if self._closed else min_after)
            moved = False
            while available > 0 and len(attempt.taken) < target[0]:
                attempt.taken.append(self._pop())
                available -= 1
                moved = True
            if len(attempt.taken) < target[0]:
                return _PROGRESS if moved else _WAIT, None
            taken = list(attempt.taken)
            del attempt.taken[:]
            return _DONE, taken
        return self._run_attempt(self._dequeuers, step, "Dequeue operation was cancelled")

    def close(self, cancel_pending_enqueues):
        if cancel_pending_enqueues:
            with self._cond:
                self._closed = True
                for attempt in self._enqueuers:
                    if attempt.error is None:
                        attempt.error = "Enqueue operation was cancelled"
                self._flush()
                self._cond.notify_all()
            return

        def step(attempt):
            if self._closed:
                raise errors.CancelledError("Queue '%s' is already closed." % self.name)
            self._closed = True
            return _DONE, None
        self._run_attempt(self._enqueuers, step, "Enqueue operation was cancelled")

    def size(self):
        with self._cond:
            return len(self._elements)

    def is_closed(self):
        with self._cond:
            return self._closed

    def cancel(self):
        """The session closed: every waiting operation fails with CancelledError."""
        with self._cond:
            self._session_closed = True
            for line, kind in ((self._enqueuers, "Enqueue"), (self._dequeuers, "Dequeue")):
                for attempt in line:
                    if attempt.error is None:
                        attempt.error = "%s operation was cancelled" % kind
            self._flush()
            self._cond.notify_all()


class _QueueSpec(object):
    """What a queue op creates: the settings of its per-session QueueState instances."""

    def __init__(self, kind, capacity, shapes, shared_name, min_after_dequeue=0, seeds=(0, 0),
                 padded=False):
        self.kind = kind
        self.capacity = 2 ** 31 - 1 if capacity is None or capacity < 0 else int(capacity)
        self.shapes = shapes
        self.min_after_dequeue = int(min_after_dequeue)
        self.seeds = seeds
        self.shuffled = kind == "RandomShuffleQueue"
        self.padded = padded
        self.handle = ("queue-%d" % next(_handle_ids)).encode()
        self.op_name = None
        self._instances = PerSession(
            shared_name or self, lambda session: QueueState(
                self, resource_name(self.op_name, shared_name), session))

    def state(self):
        return self._instances.get()

    # --- element checks and batching (outside the queue lock)
    def check_shape(self, index, shape, expected):
        if expected is None:
            return
        if self.padded:
            ok = expected.is_compatible_with(TensorShape(shape))
        else:
            ok = list(shape) == expected.as_list()
        if not ok:
            raise errors.InvalidArgumentError(
                "Shape mismatch in tuple component %d. Expected %s, got %s"
                % (index, format_shape(expected), format_shape(shape)))

    def element(self, values):
        for i, value in enumerate(values):
            self.check_shape(i, value.shape, self._shape(i))
        return tuple(_copy(value) for value in values)

    def elements(self, values):
        size = _batch_size(values[0])
        for i, value in enumerate(values):
            shape = self._shape(i)
            if shape is not None:
                self.check_shape(i, value.shape, TensorShape([size]).concatenate(shape))
            elif _batch_size(value) != size:
                raise errors.InvalidArgumentError(
                    "All input tensors must have the same size in the 0th dimension. "
                    "Component %d has %d, and should have %d" % (i, value.shape[0], size))
        columns = [_copy(value) for value in values]
        return [tuple(column[row, ...] for column in columns) for row in range(size)]

    def _shape(self, index):
        return None if self.shapes is None else self.shapes[index]

    def require_shapes(self):
        if self.shapes is None:
            raise errors.InvalidArgumentError(
                "%s's DequeueMany and DequeueUpTo require the components to have specified "
                "shapes." % self.kind)

    def batch(self, elements, dtype_list):
        """Stack dequeued elements per component (padded to the largest for a padding
        queue: zeros, or empty strings)."""
        out = []
        for i, dtype in enumerate(dtype_list):
            column = [element[i] for element in elements]
            if not column:
                dims = [d or 0 for d in self.shapes[i].as_list()]
                out.append(np.empty([0] + dims, dtype=object) if dtype is dtypes.string else
                           torch.zeros([0] + dims, dtype=dtype.torch_dtype,
                                       device=context.current_device()))
            elif self.padded:
                out.append(_padded_stack(column))
            elif isinstance(column[0], np.ndarray):
                out.append(np.stack(column))
            else:
                out.append(torch.stack(column))
        return tuple(out)


def _padded_stack(column):
    shape = [len(column)] + [max(sizes) for sizes in zip(*[c.shape for c in column])]
    if isinstance(column[0], np.ndarray):
        out = np.full(shape, b"", dtype=object)
    else:
        out = column[0].new_zeros(shape)
    for row, value in enumerate(column):
        out[(row,) + tuple(slice(0, d) for d in value.shape)] = value
    return out


# ---------------------------------------------------------------- the Python API


def _as_type_list(dtype_list):
    if not isinstance(dtype_list, (list, tuple)):
        dtype_list = [dtype_list]
    return [dtypes.as_dtype(d) for d in dtype_list]


def _as_shape_list(shapes, partial=False):
    """TF's checks: one shape or a list of them; fully defined unless `partial`."""
    if partial and (not isinstance(shapes, (list, tuple)) or not shapes or
                    any(s is None or isinstance(s, int) for s in shapes)):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (list, tuple)):
        raise TypeError("shapes must be a TensorShape or a list or tuple of TensorShapes.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]
    shapes = [as_shape(s) for s in shapes]
    if not partial and any(not s.is_fully_defined() for s in shapes):
        raise ValueError("All shapes must be fully defined: %s" % shapes)
    if any(s.rank is None for s in shapes):
        raise ValueError("All shapes must have a defined rank: %s" % shapes)
    return shapes


def _as_name_list(names, dtype_list):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtype_list):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


def _static_count(n):
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool):
        return int(n)
    return None


_specs = weakref.WeakValueDictionary()


def queue_spec(handle):
    """The queue named by a run-time queue handle."""
    spec = _specs.get(handle_value(handle))
    if spec is None:
        raise errors.NotFoundError("Resource %r is not a queue (or no longer exists)"
                                   % handle_value(handle))
    return spec


@tf_export("queue.QueueBase", v1=["queue.QueueBase", "io.QueueBase", "QueueBase"])
class QueueBase(object):
    """Base class of queues: enqueue / dequeue of elements (tuples of tensors), close, size.

    Elements are one tensor, a list of tensors, or a dict when the queue has `names`; a
    dequeued single-component element is a tensor (not a one-item list), as in TF.
    """

    def __init__(self, dtypes, shapes, names, queue_ref):  # noqa: A002 - TF's argument name
        self._dtypes = list(dtypes)
        if shapes is not None:
            if len(shapes) != len(self._dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [TensorShape(None) for _ in self._dtypes]
        if names is not None and len(names) != len(self._dtypes):
            raise ValueError("Queue names must have the same length as dtypes")
        self._names = list(names) if names else None
        self._queue_ref = queue_ref
        if isinstance(queue_ref, EagerTensor):
            self._name = ops.current_scope().rstrip("/")
        else:
            self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        raise NotImplementedError("tf.QueueBase.from_list is not implemented by tfcompat")

    # --- properties
    @property
    def queue_ref(self):
        return self._queue_ref

    @property
    def name(self):
        if isinstance(self._queue_ref, EagerTensor):
            return self._name
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return self._dtypes

    @property
    def shapes(self):
        return self._shapes

    @property
    def names(self):
        return self._names

    # --- ops
    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError("Keys in dictionary to enqueue do not match names of Queue.  "
                                 "Dictionary: (%s), Queue: (%s)" % (sorted(vals.keys()),
                                                                    sorted(self._names)))
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError("Expected %d components to enqueue, got %d"
                             % (len(self._dtypes), len(vals)))
        return [ops.convert_to_tensor(v, dtype=d, name="component_%d" % i)
                for i, (v, d) in enumerate(zip(vals, self._dtypes))]

    def _scope_vals(self, vals):
        if isinstance(vals, dict):
            return list(vals.values())
        return list(vals) if isinstance(vals, (list, tuple)) else [vals]

    def _enqueue_op(self, vals, many, name, keep=None):
        """The enqueue op; with a scalar bool tensor `keep` it enqueues only when keep is
        true (what `tf.train.maybe_batch` builds with a tf.cond)."""
        default = "%s_%s" % (self._name, "EnqueueMany" if many else "enqueue")
        with ops.name_scope(name, default, self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            if many:
                batch_dim = vals[0].shape.with_rank_at_least(1)[0]
                for val, shape in zip(vals, self._shapes):
                    batch_dim = batch_dim.merge_with(val.shape.with_rank_at_least(1)[0])
                    val.shape[1:].assert_is_compatible_with(shape)
            else:
                for val, shape in zip(vals, self._shapes):
                    val.shape.assert_is_compatible_with(shape)
            extra = [] if keep is None else [keep]

            def enqueue(handle, *values):
                if keep is not None:
                    values, keep_value = values[:-1], values[-1]
                    if not bool(keep_value):
                        return None
                spec = queue_spec(handle)
                spec.state().enqueue(spec.elements(values) if many else [spec.element(values)])
                return None
            return run_resource_op(enqueue, "QueueEnqueueManyV2" if many else "QueueEnqueueV2",
                                   [self._queue_ref] + vals + extra, None, scope)

    def enqueue(self, vals, name=None):
        """Enqueue one element; blocks while the queue is full."""
        return self._enqueue_op(vals, False, name)

    def enqueue_many(self, vals, name=None):
        """Enqueue the slices along dimension 0 of `vals`; blocks while the queue is full."""
        return self._enqueue_op(vals, True, name)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def _dequeue_op(self, count, allow_smaller, name, op_type, default):
        many = count is not None
        static_count = _static_count(count) if many else None
        if many and not allow_smaller:
            specs = [(d, TensorShape([static_count]).concatenate(s))
                     for d, s in zip(self._dtypes, self._shapes)]
        elif many:
            specs = [(d, TensorShape([None]).concatenate(s))
                     for d, s in zip(self._dtypes, self._shapes)]
        else:
            specs = list(zip(self._dtypes, self._shapes))
        dtype_list = self._dtypes

        def dequeue(handle, *n):
            spec = queue_spec(handle)
            if not many:
                (element,) = spec.state().dequeue(1, False)
                return element
            spec.require_shapes()
            wanted = int(n[0])
            if wanted < 0:
                raise errors.InvalidArgumentError("%s requested a negative number of elements "
                                                  "(%d)" % (op_type, wanted))
            elements = spec.state().dequeue(wanted, allow_smaller) if wanted else []
            return spec.batch(elements, dtype_list)
        inputs = [self._queue_ref]
        if many:
            inputs.append(ops.convert_to_tensor(count, dtype=dtypes.int32, name="n"))
        outputs = run_resource_op(dequeue, op_type, inputs, specs,
                                  name if name is not None else "%s_%s" % (self._name, default))
        return self._dequeue_return_value(outputs)

    def dequeue(self, name=None):
        """Dequeue one element; blocks until there is one (OutOfRangeError once closed)."""
        return self._dequeue_op(None, False, name, "QueueDequeueV2", "Dequeue")

    def dequeue_many(self, n, name=None):
        """Dequeue `n` elements stacked along a new dimension 0."""
        return self._dequeue_op(n, False, name, "QueueDequeueManyV2", "DequeueMany")

    def dequeue_up_to(self, n, name=None):
        """Like dequeue_many, but a closed queue with 0 < size < n gives what is left."""
        return self._dequeue_op(n, True, name, "QueueDequeueUpToV2", "DequeueUpTo")

    def close(self, cancel_pending_enqueues=False, name=None):
        """Close the queue; with `cancel_pending_enqueues` waiting enqueues are cancelled."""
        cancel = bool(cancel_pending_enqueues)

        def close(handle):
            queue_spec(handle).state().close(cancel)
            return None
        return run_resource_op(close, "QueueCloseV2", [self._queue_ref], None,
                               name if name is not None else "%s_Close" % self._name)

    def is_closed(self, name=None):
        """A bool scalar: whether the queue is closed."""
        def is_closed(handle):
            return (torch.tensor(queue_spec(handle).state().is_closed()),)
        return run_resource_op(is_closed, "QueueIsClosedV2", [self._queue_ref],
                               [(dtypes.bool, TensorShape([]))],
                               name if name is not None else "%s_Is_Closed" % self._name)[0]

    def size(self, name=None):
        """An int32 scalar: the number of elements in the queue."""
        def size(handle):
            return (torch.tensor(queue_spec(handle).state().size(), dtype=torch.int32),)
        return run_resource_op(size, "QueueSizeV2", [self._queue_ref],
                               [(dtypes.int32, TensorShape([]))],
                               name if name is not None else "%s_Size" % self._name)[0]


class _Queue(QueueBase):
    """Shared constructor of the concrete queues: the queue op and its spec."""

    _kind = None

    def __init__(self, kind_args, dtype_list, shapes, names, shared_name, name, partial=False):
        dtype_list = _as_type_list(dtype_list)
        shapes = _as_shape_list(shapes, partial)
        names = _as_name_list(names, dtype_list)
        spec = self._spec = _QueueSpec(self._kind, shapes=shapes, shared_name=shared_name,
                                       padded=partial, **kind_args)
        _specs[spec.handle] = spec
        super(_Queue, self).__init__(dtype_list, shapes, names,
                                     resource_handle_op(spec, self._kind + "V2", name))


@tf_export("queue.FIFOQueue", v1=["queue.FIFOQueue", "FIFOQueue"])
class FIFOQueue(_Queue):
    """A queue that dequeues elements in first-in first-out order."""

    _kind = "FIFOQueue"

    def __init__(self, capacity, dtypes, shapes=None, names=None,  # noqa: A002
                 shared_name=None, name="fifo_queue"):
        super(FIFOQueue, self).__init__({"capacity": capacity}, dtypes, shapes, names,
                                        shared_name, name)


@tf_export("queue.PaddingFIFOQueue",
           v1=["queue.PaddingFIFOQueue", "io.PaddingFIFOQueue", "PaddingFIFOQueue"])
class PaddingFIFOQueue(_Queue):
    """A FIFO queue whose shapes may have `None` dimensions; `dequeue_many` pads them to the
    largest in the batch (zeros, empty strings)."""

    _kind = "PaddingFIFOQueue"

    def __init__(self, capacity, dtypes, shapes, names=None,  # noqa: A002
                 shared_name=None, name="padding_fifo_queue"):
        dtype_list = _as_type_list(dtypes)
        if shapes is None or (isinstance(shapes, (list, tuple)) and
                              len(shapes) != len(dtype_list)):
            raise ValueError("Shapes must be provided for all components, but received %d "
                             "dtypes and %s shapes." % (len(dtype_list),
                                                        None if shapes is None else len(shapes)))
        super(PaddingFIFOQueue, self).__init__({"capacity": capacity}, dtype_list, shapes,
                                               names, shared_name, name, partial=True)


@tf_export("queue.RandomShuffleQueue",
           v1=["queue.RandomShuffleQueue", "io.RandomShuffleQueue", "RandomShuffleQueue"])
class RandomShuffleQueue(_Queue):
    """A queue that dequeues elements in a random order, keeping `min_after_dequeue`
    elements until it is closed; with a seed (op or graph level) the order repeats from run to
    run (the numbers differ from TF's Philox generator)."""

    _kind = "RandomShuffleQueue"

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None,  # noqa: A002
                 names=None, seed=None, shared_name=None, name="random_shuffle_queue"):
        seed1, seed2 = random_seed.get_seed(seed)
        seeds = (0, 0) if seed1 is None and seed2 is None else (int(seed1), int(seed2))
        super(RandomShuffleQueue, self).__init__(
            {"capacity": capacity, "min_after_dequeue": min_after_dequeue, "seeds": seeds},
            dtypes, shapes, names, shared_name, name)
