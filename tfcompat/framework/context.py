"""Execution context: eager vs graph mode, device placement, name scopes.

State is process-global like TensorFlow's eager context; the op decorator reads
`state.building_graph` on every call, so it is kept as one plain attribute.

Mode: `TFCOMPAT_MODE=eager|graph` forces a mode for the whole process, after which
`tf.enable_eager_execution()` / `tf.compat.v1.disable_eager_execution()` change nothing.
Unset, the runner picks the mode the script was written for (see `tfcompat._scan`), and those
calls switch it as in TensorFlow.
"""
import contextlib
import functools
import re
import threading

import torch

from tfcompat import _api, _scan
from tfcompat._api import tf_export
from tfcompat.framework.device_spec import DeviceSpecV2

class _Process(object):
    """Process-wide settings: the mode (eager vs TF1 graph) and how it was chosen."""

    def __init__(self):
        forced = _scan.forced_mode()
        self.forced = forced
        self.eager = forced != "graph"
        self.default_device = None


_process = _Process()


class _State(threading.local):
    """Per-thread view (TF keeps its default-graph stack per thread too).

    `building_graph` is what the op decorator reads on every call: true while a graph is
    being built on this thread (a `Graph.as_default()` block, a tf.function trace, or TF1
    graph mode). `eager_scope()` makes one thread run ops eagerly whatever the process mode
    (tf.data workers, Python functions called by ops at run time).
    """

    def __init__(self):
        self.graph_stack = []
        self.device_stack = []
        self.eager_override = None
        self.building_graph = not _process.eager

    @property
    def eager(self):
        return _process.eager if self.eager_override is None else self.eager_override

    @eager.setter
    def eager(self, value):
        _process.eager = value

    forced = property(lambda self: _process.forced)
    default_device = property(lambda self: _process.default_device)


state = _State()


def _refresh():
    state.building_graph = bool(state.graph_stack) or not state.eager


@contextlib.contextmanager
def eager_scope():
    """Run ops eagerly on this thread inside the block (graphs being built are set aside)."""
    saved = (list(state.graph_stack), state.eager_override)
    del state.graph_stack[:]
    state.eager_override = True
    _refresh()
    try:
        yield
    finally:
        state.graph_stack[:], state.eager_override = saved
        _refresh()


def set_mode(mode, reason=None):
    """Switch eager/graph unless TFCOMPAT_MODE forces one; returns the mode in effect."""
    if _process.forced is None:
        _process.eager = mode == "eager"
        _refresh()
    return "eager" if state.eager else "graph"


def push_graph(graph):
    state.graph_stack.append(graph)
    state.building_graph = True


def pop_graph(graph):
    if not state.graph_stack or state.graph_stack[-1] is not graph:
        raise RuntimeError("graph stack is corrupted: nested as_default() exited out of order")
    state.graph_stack.pop()
    _refresh()


@tf_export("executing_eagerly")
def executing_eagerly():
    """True when ops run immediately (eager mode and no graph is being built)."""
    return not state.building_graph


@tf_export(v1=["executing_eagerly_outside_functions"])
def executing_eagerly_outside_functions():
    """True in eager mode, also while a tf.function is being traced."""
    return state.eager


@tf_export(v1=["enable_resource_variables"])
def enable_resource_variables():
    """Nothing to switch: every tfcompat variable is a resource variable already."""


@tf_export(v1=["resource_variables_enabled"])
def resource_variables_enabled():
    return True


@tf_export(v1=["enable_eager_execution"])
def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """TF1's switch to eager mode; a no-op when TFCOMPAT_MODE forces the mode."""
    set_mode("eager")


@tf_export(v1=["disable_eager_execution"])
def disable_eager_execution():
    """TF2's switch back to graph mode; a no-op when TFCOMPAT_MODE forces the mode."""
    set_mode("graph")


@tf_export(v1=["enable_v2_behavior"])
def enable_v2_behavior():
    """TF2 behaviour and eager mode; the names stay those of the emulated TF version."""
    _api.set_behavior("v2")
    set_mode("eager")


@tf_export(v1=["disable_v2_behavior"])
def disable_v2_behavior():
    """TF1 behaviour and graph mode; under TF2 `tf.nn.dropout` etc. stay TF2's functions."""
    _api.set_behavior("v1")
    set_mode("graph")


# ---------------------------------------------------------------- devices

_DEVICE_RE = re.compile(r"^(?:/?job:[^/]*)?(?:/?replica:\d+)?(?:/?task:\d+)?"
                        r"(?:/?(?:device:)?(cpu|gpu|xla_cpu|xla_gpu|tpu)(?::(\d+|\*))?)?$",
                        re.IGNORECASE)


def parse_device(spec):
    """A TF device string -> (kind 'CPU'/'GPU'/..., index) or None for an empty spec.

    Raises ValueError for strings TensorFlow's DeviceSpec would reject.
    """
    if spec is None or spec == "":
        return None
    if not isinstance(spec, str):
        raise TypeError("device name must be a string, got %r" % (spec,))
    match = _DEVICE_RE.match(spec.strip())
    if match is None:
        raise ValueError("Unknown device specification %r: expected a TensorFlow device name "
                         "such as '/cpu:0', '/gpu:1' or '/job:localhost/device:GPU:0'" % spec)
    kind, index = match.groups()
    if kind is None:
        return None
    kind = kind.upper().replace("XLA_", "")
    return kind, 0 if index in (None, "*") else int(index)


def torch_device_for(spec):
    """The torch device a TF device spec places on: GPU falls back to CPU (soft placement)."""
    parsed = parse_device(spec)
    if parsed is None:
        return None
    kind, index = parsed
    if kind == "GPU" and torch.cuda.is_available() and index < torch.cuda.device_count():
        return torch.device("cuda", index)
    return torch.device("cpu")


def default_device():
    """Where new tensors go without a device scope: GPU:0 when present, as TF places them."""
    if _process.default_device is None:
        _process.default_device = torch.device("cuda", 0) if torch.cuda.is_available() \
            else torch.device("cpu")
    return _process.default_device


def place_process_on(device):
    """Make `device` where new tensors go by default (a worker's own GPU in a job)."""
    _process.default_device = device


def current_device():
    """The torch device for tensors created now (innermost tf.device naming a device, else the
    default; `tf.device(None)` clears the outer scopes)."""
    for spec, device in reversed(state.device_stack):
        if device is not None:
            return device
        if spec is None:
            break
    return default_device()


@functools.lru_cache(maxsize=1024)
def _merged_device_string(spec, device):
    """`device` (a device string) with the unset fields filled in from device string `spec`."""
    return DeviceSpecV2.from_string(spec).make_merged_spec(
        DeviceSpecV2.from_string(device)).to_string()


def device_for_op(op):
    """The device string TF 1 records on a new graph op (`op.device`).

    The `tf.device` scopes apply innermost first, as TF's device function stack does: a
    device string fills in the fields not set yet (so '/cpu:0' records '/device:CPU:0'), a
    device function is called with the op (its `device` being what inner scopes chose) and
    returns a device string or DeviceSpec, '' changes nothing, None stops at that scope.
    """
    device = ""
    for spec, _ in reversed(state.device_stack):
        if spec is None:
            break
        if callable(spec):
            op.device = device
            chosen = spec(op)
            device = chosen.to_string() if isinstance(chosen, DeviceSpecV2) else chosen or ""
        elif spec:
            device = _merged_device_string(spec, device)
    return device


def tf_device_name(device):
    """TF's full name for a torch device: '/job:localhost/replica:0/task:0/device:CPU:0'."""
    if device.type == "cuda":
        kind, index = "GPU", device.index or 0
    else:
        kind, index = "CPU", 0
    return "/job:localhost/replica:0/task:0/device:%s:%d" % (kind, index)


@contextlib.contextmanager
def device_scope(spec):
    """Body of `tf.device`: new tensors and variables created inside go to that device.

    A device function (graph mode only, as in TF) sets the device strings of the ops made
    inside but not where tensors are placed: they stay on the enclosing scope's device.
    """
    if isinstance(spec, DeviceSpecV2):
        spec = spec.to_string()
    if callable(spec):
        if not state.building_graph:
            raise RuntimeError("tf.device does not support functions when eager execution "
                               "is enabled.")
        device = None
    else:
        device = torch_device_for(spec) if spec else None
    state.device_stack.append((spec, device))
    try:
        yield
    finally:
        state.device_stack.pop()


@tf_export("device")
def device(device_name):
    """`tf.device(name)`: place tensors created in the block on that device.

    A GPU that is not present falls back to the CPU, like TF's soft placement. `name` may be
    a device string, a DeviceSpec, None, or (graph mode) a device function of the op.
    """
    return device_scope(device_name)
