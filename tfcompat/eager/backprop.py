"""`tf.GradientTape` and `tf.UnconnectedGradients`, on torch autograd.

The tape side of the protocol in `tfcompat.eager.tape`: while a tape records, a trainable
variable read calls `_variable_accessed`, which marks it watched and makes its leaf require
grad; `watch(tensor)` makes the tensor's torch value a leaf that requires grad. Ops run by
torch then build the autograd graph, and `gradient` is `torch.autograd.grad` with
`grad_outputs` (output_gradients), `allow_unused` (unconnected sources), `create_graph` while a
tape records (higher-order derivatives) and `retain_graph` while the graph may be needed again.

TF's tapes record only while they are active; torch records every op on a tensor that
requires grad. Watching a tensor computed before the tape started makes it a fresh leaf (as
TF sees it), but where we differ: an op run on a watched tensor after the tape exited (or
before `reset()`) still reaches the sources, and an unwatched tensor from an earlier tape
carries its history into a new one (an error if that graph was freed, naming the fix).
Gradients of embedding lookups are dense tensors, not `IndexedSlices`.

While a graph is built (TF1 graph mode, tf.function tracing), `gradient` records a gradient
node (`gradients_impl.symbolic_gradients`): every tensor there is differentiable whether
watched or not, `watched_variables` lists only explicitly watched variables, and
`jacobian`/`batch_jacobian` are not implemented.
"""
import contextlib
import logging
import threading
import weakref

import torch

from tfcompat._api import tf_export
from tfcompat.eager import imperative_grad, tape as tape_lib
from tfcompat.framework import context
from tfcompat.framework.ops import to_torch
from tfcompat.framework.tensor import EagerTensor, Tensor
from tfcompat.eager import gradients_impl

_logger = logging.getLogger("tensorflow")
_state = context.state


class _ThreadLiveTapes(threading.local):
    """This thread's tapes that may still compute gradients; while another one lives, a
    gradient call keeps the autograd graph (a non-persistent tape alone frees it, as TF
    releases its tape). Per thread, like TF's tape stack: other threads' tapes record
    other graphs."""

    def __init__(self):
        self.tapes = weakref.WeakSet()


_live = _ThreadLiveTapes()

# Autograd nodes are numbered in creation order (per thread); the number the next node will
# get tells a tape which tensors were computed before it started recording. (Private torch
# API, ~0.1 us; making a probe node to read its number cost ~10 us per tape in a train step.)
_next_sequence_nr = torch._C._autograd._get_sequence_nr


_warned_in_context = []

_NON_PERSISTENT_USED = ("A non-persistent GradientTape can only be used to compute one set "
                        "of gradients (or jacobians)")
_FREED_GRAPH_HINT = (
    "\ntfcompat: the gradient reached a tensor computed under an earlier GradientTape whose "
    "gradient was already taken. TensorFlow treats such a tensor as a constant of the new "
    "tape; wrap it in tf.stop_gradient (or watch it) where the new computation uses it.")


UnconnectedGradients = gradients_impl.UnconnectedGradients


# ---------------------------------------------------------------- nested structures


def _is_variable(value):
    return hasattr(value, "_storage") and hasattr(value, "_tfcompat_tensor_")


def flatten(structure):
    """`tf.nest.flatten` for lists, tuples, namedtuples and dicts (sorted keys)."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_sequence_as(structure, flat):
    """Rebuild `structure` with the leaves of `flat` (`tf.nest.pack_sequence_as`)."""
    return _pack(structure, iter(flat))


def _pack(item, leaves):
    # Recursion at module level, not a nested closure: a closure that calls itself is a
    # reference cycle, which would keep the leaves (gradients) alive until the cycle
    # collector runs and make large buffers churn through the allocator.
    if isinstance(item, dict):
        values = {key: _pack(item[key], leaves) for key in sorted(item)}
        return {key: values[key] for key in item}
    if isinstance(item, tuple) and hasattr(item, "_fields"):
        return type(item)(*(_pack(x, leaves) for x in item))
    if isinstance(item, (list, tuple)):
        return (tuple if isinstance(item, tuple) else list)(_pack(x, leaves) for x in item)
    return next(leaves)


def _differentiable(t):
    return isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex())


def _check_watchable(value):
    if not (isinstance(value, Tensor) or _is_variable(value)):
        raise ValueError("Passed in object %r of type %r, not tf.Tensor or tf.Variable."
                         % (value, type(value).__name__))


# ---------------------------------------------------------------- the tape


@tf_export("GradientTape", "autodiff.GradientTape")
class GradientTape(object):
    """Records operations for automatic differentiation (`tf.GradientTape`).

    Trainable variables read inside the context are watched unless
    `watch_accessed_variables=False`; tensors are watched with `watch`. A non-persistent
    tape computes one set of gradients (or jacobians); a persistent one any number.
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed_variables = watch_accessed_variables
        self._recording = False
        self._active = False        # entered and not yet used up (TF: `self._tape` is set)
        self._stopped = False       # inside this tape's stop_recording block
        self._grad_mode = True
        self._start = 0             # sequence number of the first autograd node it records
        self._variables = []
        self._variable_ids = set()

    # ------------------------------------------------------------ recording
    def __enter__(self):
        self._grad_mode = torch.is_grad_enabled()
        torch._C._set_grad_enabled(True)
        try:
            self._push_tape()
        except BaseException:
            torch._C._set_grad_enabled(self._grad_mode)
            raise
        return self

    def __exit__(self, typ, value, traceback):
        if self._recording:
            self._pop_tape()
        torch._C._set_grad_enabled(self._grad_mode)

    def _push_tape(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to "
                             "re-enter an already-active tape.")
        if not self._active:
            self._variables, self._variable_ids = [], set()
            self._active = True
            self._start = _next_sequence_nr()
            _live.tapes.add(self)
        tape_lib.push(self)
        self._recording = True

    def _pop_tape(self):
        if not self._recording:
            raise ValueError("Tape is not recording.")
        if not self._stopped:       # inside stop_recording the stack is restored without us
            tape_lib.pop(self)
        self._recording = False

    def _variable_accessed(self, variable):
        if self._watch_accessed_variables:
            self._watch_variable(variable)

    def _watch_variable(self, variable):
        if id(variable) in self._variable_ids:
            return
        self._variable_ids.add(id(variable))
        self._variables.append(variable)
        storage = variable._storage()
        if _differentiable(storage):
            if not storage.requires_grad:
                storage.requires_grad_(True)
        else:
            _warn_not_trainable(variable.dtype)

    def watch(self, tensor):
        """Watch a tensor or variable (or a nested list of them) as a gradient source.

        A tensor's torch value becomes a leaf that requires grad (also one computed before
        the tape started, unless a tape that recorded it still records), so the ops run on
        this tensor object from now on are recorded. Integer tensors cannot be watched (TF
        logs a warning and their gradients are None).
        """
        for item in flatten(tensor):
            _check_watchable(item)
            if _state.building_graph:       # graph gradients reach any tensor or variable
                if _is_variable(item) and id(item) not in self._variable_ids:
                    self._variable_ids.add(id(item))
                    self._variables.append(item)
                continue
            if _is_variable(item):
                self._watch_variable(item)
                continue
            t = item._t
            if not _differentiable(t):
                _warn_not_trainable(item.dtype)
            elif not t.requires_grad or self._recorded_elsewhere_only(t):
                item._t = t.detach().requires_grad_(True)

    def _recorded_elsewhere_only(self, t):
        """True for a tensor computed before this tape started while no other tape records:
        no recording tape holds its history, so, as in TF, it becomes a leaf (otherwise
        torch would differentiate through its history, into sources or freed graphs).

        Skipped while another tape records, so nested tapes keep the history; this also
        covers tensors made by a create_graph backward on a CUDA thread, whose node numbers
        (counted per thread) would look older than they are.
        """
        if t.grad_fn is None or any(o._recording for o in _live.tapes if o is not self):
            return False
        return t.grad_fn._sequence_nr() < self._start

    @contextlib.contextmanager
    def stop_recording(self):
        """Operations in this block are not recorded (by any tape: torch.no_grad)."""
        if not self._active:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._stopped = True
        try:
            with tape_lib.stop_recording(), torch.no_grad():
                yield
        finally:
            self._stopped = False
            if not self._recording:   # gradient() inside the block stopped this tape
                tape_lib.pop(self)

    def reset(self):
        """Forget watched variables and make a used non-persistent tape usable again.

        Differs from TF: ops recorded before the reset stay connected in torch's graph.
        """
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._variables, self._variable_ids = [], set()
        self._active = True
        self._start = _next_sequence_nr()
        _live.tapes.add(self)

    def watched_variables(self):
        """The variables this tape watched, in the order they were first watched."""
        return tuple(self._variables)

    # ------------------------------------------------------------ gradients
    def _begin_gradient(self):
        if not self._active:
            raise RuntimeError(_NON_PERSISTENT_USED)
        if self._recording:
            if not self._persistent:
                self._pop_tape()
            elif not _warned_in_context:
                _warned_in_context.append(True)     # TF logs this once per process
                _logger.warning(
                    "Calling GradientTape.gradient on a persistent tape inside its context is "
                    "significantly less efficient than calling it outside the context (it "
                    "causes the gradient ops to be recorded on the tape, leading to increased "
                    "CPU and memory usage). Only call GradientTape.gradient inside the "
                    "context if you actually want to trace the gradient in order to compute "
                    "higher order derivatives.")

    def _end_gradient(self):
        if not self._persistent:
            self._active = False
            _live.tapes.discard(self)

    def _graph_flags(self):
        """(create_graph, retain_graph) for the torch.autograd.grad calls of this tape."""
        create = tape_lib.recording()
        live = _live.tapes
        others_live = len(live) > (self in live)
        return create, self._persistent or create or others_live

    def _source(self, source):
        """The torch tensor to differentiate against, or None if it cannot be connected."""
        if id(source) in self._variable_ids:     # a watched variable: the common case
            t = source._storage()
            return t if _differentiable(t) and t.requires_grad else None
        _check_watchable(source)
        if _is_variable(source):
            if id(source) not in self._variable_ids:
                return None
            t = source._storage()
        else:
            t = source._t
        return t if _differentiable(t) and t.requires_grad else None

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """Gradients of `target` (a tensor, or a nested list whose gradients are summed)
        with respect to `sources`, in the structure of `sources`.

        `output_gradients` (one per target) weight the targets (default: ones).
        """
        self._begin_gradient()
        unconnected = UnconnectedGradients(unconnected_gradients)
        if _state.building_graph:
            grads = gradients_impl.symbolic_gradients(
                flatten(target), flatten(sources),
                None if output_gradients is None else flatten(output_gradients),
                unconnected.value)
            self._end_gradient()
            return pack_sequence_as(sources, grads)
        flat_targets = [_target_tensor(t) for t in flatten(target)]
        if output_gradients is None:
            flat_out_grads = [None] * len(flat_targets)
        else:
            flat_out_grads = flatten(output_gradients)
            if len(flat_out_grads) != len(flat_targets):
                raise ValueError("output_gradients has %d elements, target has %d" % (
                    len(flat_out_grads), len(flat_targets)))
        flat_sources = flatten(sources)
        inputs = [self._source(s) for s in flat_sources]
        outputs, grad_outputs = [], []
        for t, g in zip(flat_targets, flat_out_grads):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                outputs.append(t)
                grad_outputs.append(torch.ones_like(t) if g is None
                                    else to_torch(g).to(device=t.device))
        if not outputs:
            inputs = [None] * len(inputs)
        connected = [t for t in inputs if t is not None]
        grads = iter(())
        if connected:
            create, retain = self._graph_flags()
            grads = iter(_autograd_grad(outputs, connected, grad_outputs, retain, create))
        result = [_finish(next(grads) if t is not None else None, s, unconnected)
                  for s, t in zip(flat_sources, inputs)]
        self._end_gradient()
        return pack_sequence_as(sources, result)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """Jacobian of tensor `target` w.r.t. each source: shape target.shape + source.shape.

        `experimental_use_pfor=True` computes all rows in one batched (vmapped) backward
        pass, falling back to one pass per row where torch cannot batch; otherwise one pass
        per row (TF then requires a persistent tape). `parallel_iterations` is ignored.
        """
        if not experimental_use_pfor and not self._persistent and self._active:
            raise RuntimeError("GradientTape must be created with persistent=True to compute "
                               "the jacobian with eager execution enabled and with "
                               "experimental_use_pfor set to False.")
        _eager_only("jacobian")
        self._begin_gradient()
        unconnected = UnconnectedGradients(unconnected_gradients)
        t = _target_tensor(target)
        flat_sources = flatten(sources)
        inputs = [self._source(s) for s in flat_sources]
        if not (isinstance(t, torch.Tensor) and t.requires_grad):
            inputs = [None] * len(inputs)
        connected = [x for x in inputs if x is not None]
        rows = iter(())
        if connected:
            n = t.numel()
            cotangents = torch.eye(n, dtype=t.dtype, device=t.device).reshape((n,) + t.shape)
            rows = iter(self._vjp_rows(t, connected, cotangents, experimental_use_pfor))
        result = []
        for s, x in zip(flat_sources, inputs):
            rows_of_source = next(rows) if x is not None else None
            if rows_of_source is not None:
                rows_of_source = rows_of_source.reshape(tuple(t.shape) + tuple(x.shape))
            elif unconnected is UnconnectedGradients.ZERO:
                rows_of_source = torch.zeros(tuple(_value(target).shape) + tuple(
                    _value(s).shape), dtype=_value(s).dtype, device=_value(s).device)
            result.append(None if rows_of_source is None else EagerTensor(rows_of_source))
        self._end_gradient()
        return pack_sequence_as(sources, result)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example jacobians: [b, y1..yn] target, [b, x1..xm] source -> [b, y.., x..].

        Like TF it assumes target[i] depends only on source[i]: row j of every example is
        the gradient of sum_i target[i, j].
        """
        if not experimental_use_pfor and not self._persistent and self._active:
            raise RuntimeError("GradientTape must be created with persistent=True to compute "
                               "the batch_jacobian with eager execution enabled and  with "
                               "experimental_use_pfor set to False.")
        _eager_only("batch_jacobian")
        target_value, source_value = _value(target), _value(source)
        if target_value.ndim < 2 or source_value.ndim < 2:
            raise ValueError("batch_jacobian needs target and source of rank 2 or more; got "
                             "shapes %s and %s" % (target.shape, source.shape))
        if target_value.shape[0] != source_value.shape[0]:
            raise ValueError("Need first dimension of target shape (%s) and source shape (%s) "
                             "to match." % (target.shape, source.shape))
        self._begin_gradient()
        unconnected = UnconnectedGradients(unconnected_gradients)
        t = _target_tensor(target)
        x = self._source(source)
        batch, row = t.shape[0], t[0].numel()
        out_shape = tuple(t.shape) + tuple(source_value.shape[1:])
        result = None
        if x is not None and t.requires_grad:
            cotangents = torch.zeros((row, batch, row), dtype=t.dtype, device=t.device)
            cotangents[torch.arange(row), :, torch.arange(row)] = 1
            cotangents = cotangents.reshape((row,) + tuple(t.shape))
            rows, = self._vjp_rows(t, [x], cotangents, experimental_use_pfor)
            if rows is not None:    # [row, batch, x..] -> [batch, row, x..]
                result = rows.transpose(0, 1).reshape(out_shape)
        if result is None and unconnected is UnconnectedGradients.ZERO:
            result = torch.zeros(out_shape, dtype=source_value.dtype,
                                 device=source_value.device)
        self._end_gradient()
        return None if result is None else EagerTensor(result)

    def _vjp_rows(self, output, inputs, cotangents, batched):
        """For each input, the stacked vector-Jacobian products with each cotangent row
        ([k, *input.shape]), or None where the input is unconnected."""
        create, retain = self._graph_flags()
        if batched:
            try:
                return _autograd_grad([output], inputs, [cotangents], True, create,
                                      is_grads_batched=True)
            except RuntimeError:    # an op without a batching rule: one pass per row
                pass
        k = cotangents.shape[0]
        per_row = [_autograd_grad([output], inputs, [cotangents[i]], retain or i < k - 1,
                                  create) for i in range(k)]
        stacked = []
        for j, x in enumerate(inputs):
            if not per_row:
                stacked.append(x.new_zeros((0,) + tuple(x.shape)))
            elif per_row[0][j] is None:
                stacked.append(None)
            else:
                stacked.append(torch.stack([row[j] for row in per_row]))
        return stacked


def _eager_only(method):
    if _state.building_graph:
        raise NotImplementedError(
            "GradientTape.%s is implemented for eager execution only; in a graph or "
            "tf.function, build it from tape.gradient of each target element" % method)


def _warn_not_trainable(dtype):
    _logger.warning("The dtype of the watched tensor must be floating (e.g. tf.float32), "
                    "got %r", dtype)


def _value(value):
    """The torch value of a tensor or variable (no tape notification)."""
    return value._storage() if _is_variable(value) else to_torch(value)


def _target_tensor(target):
    if _is_variable(target):
        return target._storage()
    return to_torch(target)


def _autograd_grad(outputs, inputs, grad_outputs, retain, create, is_grads_batched=False):
    try:
        return imperative_grad.grad(outputs, inputs, grad_outputs, retain, create,
                                    is_grads_batched)
    except RuntimeError as e:
        if "backward through the graph a second time" in str(e):
            raise RuntimeError(str(e) + _FREED_GRAPH_HINT) from None
        raise


def _finish(grad, source, unconnected):
    if grad is None:
        if unconnected is not UnconnectedGradients.ZERO:
            return None
        grad = torch.zeros_like(_value(source))
    return EagerTensor(grad)

