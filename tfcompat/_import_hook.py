"""Under the runner, `import tensorflow...` gives tfcompat.

A `sys.meta_path` finder, installed first so an installed TensorFlow never loads:

- `tensorflow` -> a view of the `tfcompat` module: the same names, but `__version__` is the
  TensorFlow version emulated (`tf.version.VERSION`), not tfcompat's own;
- `tensorflow.X.Y` -> the namespace `tfcompat.X.Y` built from the registry (`tf.keras`,
  `tf.compat.v1`, `tf.contrib.eager`, ...);
- `tensorflow.python.*` (TF's internal modules) -> a module that finds an attribute by name in
  the registry (`_InternalModule`), with a table for names that differ there;
- `tensorflow.core.*.NAME_pb2` -> the same protobuf module shipped by tensorboard;
- `keras` and `keras.*` -> `tf.keras` (Keras 2, as TensorFlow 2.15 installs it);
- `horovod` and `horovod.*` -> `tfcompat.horovod` (Horovod's TensorFlow and Keras APIs).

A module path tfcompat does not provide raises ImportError naming it.
"""
import importlib
import importlib.abc
import importlib.util
import sys
import types

from tfcompat import _api, config
import tfcompat

_ROOT = "tensorflow"
_HOROVOD = "horovod"

# TF's internal packages (under tensorflow.python) and modules that scripts import. A path is
# importable when it is listed or is a prefix of a listed one.
_INTERNAL_MODULES = frozenset("""
ops ops.array_ops ops.math_ops ops.nn ops.nn_ops ops.nn_impl ops.init_ops ops.init_ops_v2
ops.variables ops.variable_scope ops.resource_variable_ops ops.state_ops ops.control_flow_ops
ops.functional_ops ops.random_ops ops.clip_ops ops.check_ops ops.data_flow_ops
ops.embedding_ops ops.gradients ops.gradients_impl ops.image_ops ops.linalg_ops
ops.logging_ops ops.parsing_ops ops.rnn ops.rnn_cell ops.rnn_cell_impl ops.script_ops
ops.sparse_ops ops.special_math_ops ops.standard_ops ops.string_ops ops.summary_ops_v2
ops.lookup_ops
ops.tensor_array_ops ops.template ops.io_ops ops.manip_ops ops.sort_ops ops.custom_gradient
ops.partitioned_variables ops.histogram_ops ops.map_fn ops.metrics ops.losses
ops.losses.losses ops.losses.util ops.gen_math_ops ops.gen_array_ops ops.gen_nn_ops
ops.math_grad ops.array_grad ops.nn_grad
framework framework.ops framework.dtypes framework.tensor_shape framework.constant_op
framework.errors framework.errors_impl framework.random_seed framework.function
framework.graph_util framework.graph_io framework.sparse_tensor framework.tensor_util
framework.tensor_spec framework.test_util framework.device framework.importer
framework.meta_graph framework.config framework.indexed_slices
client client.device_lib client.session client.timeline
eager eager.context eager.backprop eager.def_function eager.function eager.tape
training training.training training.optimizer training.adam training.gradient_descent
training.momentum training.rmsprop training.adagrad training.saver
training.checkpoint_management training.training_util training.moving_averages
training.learning_rate_decay training.session_run_hook training.basic_session_run_hooks
training.monitored_session training.checkpoint_utils training.tracking
training.tracking.util training.tracking.tracking training.tracking.base
training.coordinator training.queue_runner training.server_lib training.summary_io
training.queue_runner_impl training.input
util util.nest util.tf_export util.deprecation util.compat util.tf_inspect
platform platform.tf_logging platform.gfile platform.test platform.app platform.flags
platform.googletest
summary summary.summary summary.summary_iterator summary.writer summary.writer.writer
keras keras.backend keras.layers keras.models keras.optimizers keras.losses keras.metrics
keras.callbacks keras.initializers keras.regularizers keras.activations keras.utils
keras.engine keras.engine.base_layer keras.engine.training keras.engine.sequential
keras.engine.network keras.engine.input_spec
keras.datasets keras.datasets.mnist keras.datasets.fashion_mnist keras.datasets.cifar10
keras.datasets.cifar100 keras.datasets.imdb keras.datasets.reuters keras.datasets.boston_housing
keras.saving keras.utils.data_utils keras.utils.generic_utils keras.utils.np_utils
keras.preprocessing keras.preprocessing.sequence keras.preprocessing.text keras.preprocessing.image
data data.ops data.ops.dataset_ops data.ops.iterator_ops data.ops.readers
lib lib.io lib.io.file_io lib.io.tf_record
layers layers.core layers.base layers.convolutional layers.pooling layers.normalization
saved_model saved_model.tag_constants saved_model.signature_constants
module module.module
""".split())

# tensorflow.python paths whose TF name differs from the registered one.
_RENAMED = {
    "ops.resource_variable_ops.ResourceVariable": "Variable",
    "ops.variables.RefVariable": "Variable",
    "ops.variables.VariableV1": "Variable",
    "framework.ops.EagerTensor": "Tensor",
    "framework.errors_impl.OpError": "errors.OpError",
    "eager.def_function.function": "function",
    "eager.backprop.GradientTape": "GradientTape",
    "platform.tf_logging.get_logger": "get_logger",
}

# tensorflow.python names that are not public TF symbols.
_INTERNAL_OBJECTS = {
    "client.device_lib.list_local_devices": config.list_local_devices,
}

_PROTO_PACKAGES = ("framework", "protobuf", "util", "profiler")

# TF module paths (after `tensorflow.`) that are real tfcompat modules, internal names included.
_REAL_MODULES = {
    "python.platform.app": "tfcompat.platform.app",
    "python.util.nest": "tfcompat.util.nest",
    "python.platform.flags": "tfcompat.platform.flags",
    "python.platform.tf_logging": "tfcompat.platform.tf_logging",
    "flags": "tfcompat.platform.flags",
    "app.flags": "tfcompat.platform.flags",
    "compat.v1.flags": "tfcompat.platform.flags",
    "compat.v1.app.flags": "tfcompat.platform.flags",
    "contrib.cudnn_rnn": "tfcompat.contrib.cudnn_rnn",
    "contrib.eager.python": "tfcompat.contrib.eager.python",
    "contrib.eager.python.tfe": "tfcompat.contrib.eager",
}


def _registered(inner, name):
    """The registered object for `name` seen from internal module `inner` (`keras.layers`).

    Tried in turn: the module's own public path and its tails (`keras.layers.Dense`,
    `layers.Dense`), the top-level name, then the shortest registered path ending in `name`.
    Lazy modules registering one of the paths tried are imported first.
    """
    parts = inner.split(".") if inner else []
    paths = [".".join(parts[i:] + [name]) for i in range(len(parts) + 1)]
    for path in paths:
        _api.load_lazy(path)
    flavored = _api._flavored(_api.api_version())
    for path in paths:
        if path in flavored:
            return flavored[path]
    matches = sorted((p for p in flavored if p.rpartition(".")[2] == name),
                     key=lambda p: (p.count("."), p))
    if matches:
        return flavored[matches[0]]
    raise KeyError(name)


class _InternalModule(types.ModuleType):
    """A TF-internal module (`tensorflow.python.ops.math_ops`); its attributes come from the
    registry."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        inner = self.__name__[len(_ROOT + ".python."):]
        path = (inner + "." if inner else "") + attr
        if path in _INTERNAL_MODULES:
            return importlib.import_module(self.__name__ + "." + attr)
        if path in _INTERNAL_OBJECTS:
            return _INTERNAL_OBJECTS[path]
        try:
            if path in _RENAMED:
                return _registered("", _RENAMED[path])
            return _registered(inner, attr)
        except KeyError:
            raise _api.UnimplementedSymbolError(
                "tfcompat does not implement %s.%s (a TensorFlow-internal name); use the public "
                "tf.* API or report the script that needs it" % (self.__name__, attr)) from None


class _ProtoPackage(types.ModuleType):
    """`tensorflow.core` and its packages: NAME_pb2 attributes are tensorboard's protos."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        try:
            return importlib.import_module(self.__name__ + "." + attr)
        except ImportError:
            raise AttributeError("module %r has no attribute %r" % (self.__name__, attr)) from None


class _TensorFlowModule(_api.Namespace):
    """`import tensorflow`: tfcompat's top level under TensorFlow's name and version.

    Names are copied from `tfcompat` on first use and kept current by the registry
    (`_api.add_root_view`), so `tf.add` costs a plain module attribute read."""

    @property
    def __version__(self):
        return _api._winner("version.VERSION", _api.api_version())

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError("module 'tensorflow' has no attribute %r" % attr)
        value = getattr(tfcompat, attr)
        self.__dict__[attr] = value
        return value

    def __dir__(self):
        return sorted(set(dir(tfcompat)) | set(self.__dict__))


def _root_module():
    """The one `tensorflow` module of this process."""
    module = _root_module.made
    if module is None:
        module = _root_module.made = _TensorFlowModule(_ROOT, tfcompat.__doc__)
        module.__dict__.update(_tf_prefix="tf", _api_version=None, _all_missing_are_tf=False,
                               __path__=[], __file__=tfcompat.__file__)
        _api.add_root_view(module)
    return module


_root_module.made = None


def _missing(fullname, why):
    return ModuleNotFoundError("No module named %r: %s" % (fullname, why), name=fullname)


def _target(fullname):
    """The module object `import <fullname>` should give, or raise ImportError."""
    if fullname == _ROOT:
        return _root_module()
    rest = fullname[len(_ROOT) + 1:]
    if rest in _REAL_MODULES:
        return importlib.import_module(_REAL_MODULES[rest])
    head = rest.split(".")[0]
    if head == "python":
        inner = rest[len("python."):] if rest != "python" else ""
        if inner and not any(m == inner or m.startswith(inner + ".") for m in _INTERNAL_MODULES):
            raise _missing(fullname, "tfcompat does not provide this TensorFlow-internal module; "
                                     "use the public tf.* API")
        return _InternalModule(fullname)
    if head == "core":
        return _proto_target(fullname, rest)
    if head == "examples":
        raise _missing(fullname, "tfcompat does not provide TensorFlow's example code (the MNIST "
                                 "tutorial reader downloads data); load the data with numpy or "
                                 "torchvision and feed arrays to the script instead")
    module = _namespace(rest)
    if module is not None:
        return module
    if _api.is_tf_symbol(rest):
        raise _missing(fullname, "tfcompat does not implement this TensorFlow module yet")
    raise _missing(fullname, "tfcompat does not provide it (TensorFlow has no such module)")


def _namespace(rest):
    """The namespace `tfcompat.<rest>` (`keras.layers`, `compat.v1.estimator`), importing the
    lazy module that registers it if need be; None when there is none."""
    name = "tfcompat." + rest
    if not isinstance(sys.modules.get(name), _api.Namespace):
        version_prefix = rest[:len("compat.v1.")]
        _api.load_lazy(rest[len(version_prefix):] if version_prefix in ("compat.v1.", "compat.v2.")
                       else rest)
    module = sys.modules.get(name)
    return module if isinstance(module, _api.Namespace) else None


def _horovod_target(fullname):
    """tfcompat's module for `horovod.<...>`, or ImportError naming what exists."""
    try:
        return importlib.import_module("tfcompat." + fullname)
    except ModuleNotFoundError as e:
        if e.name != "tfcompat." + fullname:
            raise
    raise _missing(fullname, "tfcompat provides Horovod's TensorFlow and Keras APIs only "
                             "(horovod.tensorflow, horovod.tensorflow.keras, horovod.keras)")


def _proto_target(fullname, rest):
    parts = rest.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1] in _PROTO_PACKAGES):
        return _ProtoPackage(fullname)
    if len(parts) == 3 and parts[1] in _PROTO_PACKAGES and parts[2].endswith("_pb2"):
        try:
            return importlib.import_module("tensorboard.compat.proto." + parts[2])
        except ImportError:
            pass
    raise _missing(fullname, "tfcompat does not provide this TensorFlow protobuf module")


class _Loader(importlib.abc.Loader):
    """Hands out an existing module; keeps its own `__spec__`/`__loader__`/`__package__`."""

    def __init__(self, module):
        self.module = module
        self.saved = None if isinstance(module, _TensorFlowModule) else {
            k: module.__dict__[k] for k in ("__spec__", "__loader__", "__package__")
            if k in module.__dict__}

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        if self.saved is None:  # the `tensorflow` module itself keeps the `tensorflow` spec
            return
        # importlib's _init_module_attrs overwrote these with the `tensorflow...` spec
        for key in ("__spec__", "__loader__", "__package__"):
            if key in self.saved:
                module.__dict__[key] = self.saved[key]
            else:
                module.__dict__.pop(key, None)


class TensorFlowFinder(importlib.abc.MetaPathFinder):
    """Resolves `tensorflow` and `tensorflow.*` imports to tfcompat, and `keras` / `keras.*`
    to `tf.keras`: TensorFlow 2.15 installs Keras 2.15 as `keras`, and TF1-era scripts used
    standalone Keras 2 on the TensorFlow backend, whose public API tf.keras has. `horovod.*`
    imports give tfcompat's Horovod API."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "keras" or fullname.startswith("keras."):
            module = _target(_ROOT + "." + fullname)
        elif fullname == _ROOT or fullname.startswith(_ROOT + "."):
            module = _target(fullname)
        elif fullname == _HOROVOD or fullname.startswith(_HOROVOD + "."):
            module = _horovod_target(fullname)
        else:
            return None
        # is_package: `import tensorflow.keras.layers` needs a __path__ on the parent
        return importlib.util.spec_from_loader(fullname, _Loader(module), is_package=True)


def install():
    """Put the finder first in `sys.meta_path` (once).

    tensorboard does its file I/O through TensorFlow when `import tensorflow` works, which
    the hook makes give tfcompat; its `notf` marker module makes it use its own stand-in.
    """
    sys.modules.setdefault("tensorboard.compat.notf", types.ModuleType("tensorboard.compat.notf"))
    if not any(isinstance(f, TensorFlowFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TensorFlowFinder())
