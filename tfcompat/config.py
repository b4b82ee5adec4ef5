"""`tf.config`: devices, threads, JIT and tf.function settings; TF1's session config protos.

Devices are torch's: `/physical_device:CPU:0` and one `/physical_device:GPU:i` per CUDA device.
Hiding GPUs with `set_visible_devices` moves the default placement to the CPU (or the first
visible GPU); like TensorFlow it is refused once tensors have been placed. Memory growth is
accepted and recorded: torch's caching allocator already allocates GPU memory on demand, which
is what memory growth asks TensorFlow to do.
"""
import collections
import random

import torch
from tensorboard.compat.proto import config_pb2

from tfcompat._api import export_constant, tf_export
from tfcompat.framework import context, thread_choice

# TF1's session configuration: the protobuf messages TensorFlow itself defines.
ConfigProto = export_constant(config_pb2.ConfigProto, v1=["ConfigProto"])
GPUOptions = export_constant(config_pb2.GPUOptions, v1=["GPUOptions"])
GraphOptions = export_constant(config_pb2.GraphOptions, v1=["GraphOptions"])
OptimizerOptions = export_constant(config_pb2.OptimizerOptions, v1=["OptimizerOptions"])
RunOptions = export_constant(config_pb2.RunOptions, v1=["RunOptions"])
RunMetadata = export_constant(config_pb2.RunMetadata, v1=["RunMetadata"])

PhysicalDevice = tf_export("config.PhysicalDevice")(
    collections.namedtuple("PhysicalDevice", ["name", "device_type"]))
LogicalDevice = tf_export("config.LogicalDevice")(
    collections.namedtuple("LogicalDevice", ["name", "device_type"]))


@tf_export("config.LogicalDeviceConfiguration",
           "config.experimental.VirtualDeviceConfiguration")
class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration",
        ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """One logical device to make of a physical one (`memory_limit` in MB for a GPU)."""

    def __new__(cls, memory_limit=None, experimental_priority=None,
                experimental_device_ordinal=None):
        return super(LogicalDeviceConfiguration, cls).__new__(
            cls, memory_limit, experimental_priority, experimental_device_ordinal)


class _Settings(object):
    def __init__(self):
        self.visible = None            # list of PhysicalDevice; None: all
        self.logical = {}              # PhysicalDevice -> [LogicalDeviceConfiguration]
        self.placed_by_config = None   # the default device set_visible_devices chose
        self.memory_growth = {}
        self.functions_run_eagerly = False
        self.soft_device_placement = True
        self.intra_op_threads = 0
        self.inter_op_threads = 0
        self.jit = False
        self.optimizer_options = {}


_settings = _Settings()


# ---------------------------------------------------------------- devices

def _all_physical_devices():
    return [PhysicalDevice("/physical_device:CPU:0", "CPU")] + [
        PhysicalDevice("/physical_device:GPU:%d" % i, "GPU")
        for i in range(torch.cuda.device_count())]


def _visible():
    return _all_physical_devices() if _settings.visible is None else list(_settings.visible)


def visible_gpu_indices():
    """CUDA indices of the GPUs TensorFlow code may see, in TF's logical order."""
    return [int(d.name.rpartition(":")[2]) for d in _visible() if d.device_type == "GPU"]


@tf_export("config.list_physical_devices", "config.experimental.list_physical_devices")
def list_physical_devices(device_type=None):
    """The machine's devices: `PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')`."""
    return [d for d in _all_physical_devices()
            if device_type is None or d.device_type == device_type]


@tf_export("config.list_logical_devices", "config.experimental.list_logical_devices")
def list_logical_devices(device_type=None):
    """The visible devices under the names ops are placed on (`/device:GPU:0`, ...)."""
    cpus = len(_settings.logical.get(_all_physical_devices()[0], [None]))
    devices = [LogicalDevice("/device:CPU:%d" % i, "CPU") for i in range(cpus)]
    devices += [LogicalDevice("/device:GPU:%d" % i, "GPU")
                for i in range(len(visible_gpu_indices()))]
    return [d for d in devices if device_type is None or d.device_type == device_type]


def _check_device(device, device_type=None):
    if device not in _all_physical_devices() or (
            device_type is not None and device.device_type != device_type):
        raise ValueError("Unrecognized device: %r" % (device,))


@tf_export("config.set_visible_devices", "config.experimental.set_visible_devices")
def set_visible_devices(devices, device_type=None):
    """Limit the devices TensorFlow code uses; refused after tensors have been placed."""
    if not isinstance(devices, list):
        devices = [devices]
    for d in devices:
        _check_device(d, device_type)
    visible = [d for d in _visible() if device_type is not None and d.device_type != device_type]
    visible += devices
    if visible == _visible():
        return
    placed = context.state.default_device
    if placed is not None and placed != _settings.placed_by_config:
        raise RuntimeError("Visible devices cannot be modified after being initialized")
    _settings.visible = visible
    gpus = visible_gpu_indices()
    device = torch.device("cuda", gpus[0]) if gpus else torch.device("cpu")
    context._process.default_device = _settings.placed_by_config = device


@tf_export("config.set_logical_device_configuration",
           "config.experimental.set_virtual_device_configuration")
def set_logical_device_configuration(device, logical_devices):
    """Split a physical device into logical ones, before any tensor is placed, as TF does.

    CPU: any number of logical CPUs (`/device:CPU:0..n-1`), all computing on the host, as
    TF's do. GPU: one logical GPU with a `memory_limit` (MB), enforced as torch's
    per-process memory fraction of that GPU; several logical GPUs on one physical GPU are not
    supported (NotImplementedError)."""
    _check_device(device)
    logical = list(logical_devices) if logical_devices is not None else []
    if _settings.logical.get(device) == logical:
        return
    placed = context.state.default_device
    if placed is not None and placed != _settings.placed_by_config:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    if device.device_type == "CPU":
        if any(c.memory_limit is not None for c in logical):
            raise ValueError("Setting memory limit on CPU virtual devices is currently not "
                             "supported")
    elif device.device_type == "GPU":
        if len(logical) > 1:
            raise NotImplementedError(
                "tf.config.set_logical_device_configuration with %d logical GPUs on one "
                "physical GPU: tfcompat maps each logical GPU to a physical one; give one "
                "LogicalDeviceConfiguration(memory_limit=...) per GPU" % len(logical))
        if logical and logical[0].memory_limit is not None:
            index = int(device.name.rpartition(":")[2])
            total = torch.cuda.get_device_properties(index).total_memory
            torch.cuda.set_per_process_memory_fraction(
                min(1.0, logical[0].memory_limit * (1 << 20) / float(total)), index)
    _settings.logical[device] = logical


@tf_export("config.get_logical_device_configuration",
           "config.experimental.get_virtual_device_configuration")
def get_logical_device_configuration(device):
    """The logical devices set for a physical device (None when not set)."""
    _check_device(device)
    return _settings.logical.get(device)


@tf_export("config.get_visible_devices", "config.experimental.get_visible_devices")
def get_visible_devices(device_type=None):
    return [d for d in _visible() if device_type is None or d.device_type == device_type]


@tf_export("config.experimental.set_memory_growth")
def set_memory_growth(device, enable):
    """Accepted and recorded: torch's allocator already grows GPU memory on demand."""
    _check_device(device)
    if device.device_type != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU devices")
    _settings.memory_growth[device] = bool(enable)


@tf_export("config.experimental.get_memory_growth")
def get_memory_growth(device):
    _check_device(device)
    return _settings.memory_growth.get(device)


@tf_export("config.experimental.get_device_details")
def get_device_details(device):
    """`{'device_name': ..., 'compute_capability': (major, minor)}` for a GPU, `{}` otherwise."""
    _check_device(device)
    if device.device_type != "GPU":
        return {}
    index = int(device.name.rpartition(":")[2])
    return {"device_name": torch.cuda.get_device_name(index),
            "compute_capability": torch.cuda.get_device_capability(index)}


def _cuda_index(device):
    parsed = context.parse_device(device)
    if parsed is None or parsed[0] != "GPU" or parsed[1] >= len(visible_gpu_indices()):
        raise ValueError("Memory info is only available for visible GPUs, not %r" % (device,))
    return visible_gpu_indices()[parsed[1]]


@tf_export("config.experimental.get_memory_info")
def get_memory_info(device):
    """`{'current': bytes in use, 'peak': most bytes in use}` on a GPU ('GPU:0')."""
    index = _cuda_index(device)
    return {"current": torch.cuda.memory_allocated(index),
            "peak": torch.cuda.max_memory_allocated(index)}


@tf_export("config.experimental.reset_memory_stats")
def reset_memory_stats(device):
    torch.cuda.reset_peak_memory_stats(_cuda_index(device))


@tf_export("config.set_soft_device_placement")
def set_soft_device_placement(enabled):
    """Recorded; tfcompat always falls back to the CPU for a GPU that is not there."""
    _settings.soft_device_placement = bool(enabled)


@tf_export("config.get_soft_device_placement")
def get_soft_device_placement():
    return _settings.soft_device_placement


class DeviceAttributes(object):
    """A device of `device_lib.list_local_devices()` (the fields of TF's DeviceAttributes)."""

    def __init__(self, name, device_type, memory_limit, physical_device_desc=""):
        self.name = name
        self.device_type = device_type
        self.memory_limit = memory_limit
        self.incarnation = random.getrandbits(63)
        self.physical_device_desc = physical_device_desc

    def __repr__(self):
        text = 'name: "%s"\ndevice_type: "%s"\nmemory_limit: %d\nincarnation: %d\n' % (
            self.name, self.device_type, self.memory_limit, self.incarnation)
        if self.physical_device_desc:
            text += 'physical_device_desc: "%s"\n' % self.physical_device_desc
        return text


def list_local_devices(session_config=None):
    """`tensorflow.python.client.device_lib.list_local_devices()`: the visible devices."""
    devices = [DeviceAttributes("/device:CPU:0", "CPU", 268435456)]
    for logical, index in enumerate(visible_gpu_indices()):
        props = torch.cuda.get_device_properties(index)
        desc = "device: %d, name: %s, compute capability: %d.%d" % (
            index, props.name, props.major, props.minor)
        devices.append(DeviceAttributes("/device:GPU:%d" % logical, "GPU",
                                        props.total_memory, desc))
    return devices


# ---------------------------------------------------------------- tf.function, threads, JIT

@tf_export("config.run_functions_eagerly", "config.experimental_run_functions_eagerly")
def run_functions_eagerly(run_eagerly):
    """Make `tf.function`s run their Python body eagerly (for debugging), as in TF."""
    _settings.functions_run_eagerly = bool(run_eagerly)


@tf_export("config.functions_run_eagerly", "config.experimental_functions_run_eagerly")
def functions_run_eagerly():
    """True after `tf.config.run_functions_eagerly(True)`."""
    return _settings.functions_run_eagerly


@tf_export("config.threading.set_intra_op_parallelism_threads")
def set_intra_op_parallelism_threads(num_threads):
    """Threads used inside one op (`torch.set_num_threads`, kept for every graph); 0 lets
    the system choose."""
    if num_threads > 0:
        torch.set_num_threads(num_threads)
        thread_choice.pin()
    _settings.intra_op_threads = num_threads


@tf_export("config.threading.get_intra_op_parallelism_threads")
def get_intra_op_parallelism_threads():
    return _settings.intra_op_threads


@tf_export("config.threading.set_inter_op_parallelism_threads")
def set_inter_op_parallelism_threads(num_threads):
    """Threads running independent ops (`torch.set_num_interop_threads`); 0: system's choice."""
    if num_threads == _settings.inter_op_threads:
        return
    if num_threads > 0:
        try:
            torch.set_num_interop_threads(num_threads)
        except RuntimeError:
            raise RuntimeError("Inter op parallelism cannot be modified after "
                               "initialization.") from None
    _settings.inter_op_threads = num_threads


@tf_export("config.threading.get_inter_op_parallelism_threads")
def get_inter_op_parallelism_threads():
    return _settings.inter_op_threads


@tf_export("config.optimizer.set_jit")
def set_optimizer_jit(enabled):
    """Recorded: True or "autoclustering" asks for XLA-style compilation of tf.functions."""
    if enabled not in (True, False, "autoclustering", ""):
        raise ValueError("set_jit takes True, False, 'autoclustering' or '', not %r" % (enabled,))
    _settings.jit = bool(enabled)


@tf_export("config.optimizer.get_jit")
def get_optimizer_jit():
    """'autoclustering' when JIT compilation was enabled with set_jit, else ''."""
    return "autoclustering" if _settings.jit else ""


@tf_export("config.optimizer.set_experimental_options")
def set_optimizer_experimental_options(options):
    """Recorded graph-optimizer (Grappler) options; torch has no Grappler to pass them to."""
    _settings.optimizer_options.update(options)


@tf_export("config.optimizer.get_experimental_options")
def get_optimizer_experimental_options():
    return dict(_settings.optimizer_options)
