"""tfcompat: TensorFlow 1.x / 2.x (Keras 2) scripts, unchanged, on PyTorch.

`import tfcompat as tf` gives TensorFlow's top-level namespace (TF1 names plus TF2 names);
`tfcompat.compat.v1` and `tfcompat.compat.v2` give each version's own. Every public symbol is
registered once with its TF paths (`tfcompat._api`); this file only imports the modules that
define them and builds the namespaces.
"""
import importlib as _importlib

from tfcompat import _dependencies, _scan

_scan.announce_before_imports()  # under the runner: the mode line before torch's imports

from tfcompat._version import __version__  # noqa: E402  (tfcompat's own; TF's: tf.version.VERSION)
COMPILER_VERSION = "torch"

_MODULES = (
    "framework.errors", "framework.dtypes", "framework.tensor_shape", "framework.context",
    "framework.random_seed", "framework.tensor", "framework.ops", "framework.graph",
    "framework.constant_op", "framework.versions",
    "ops.math_ops", "ops.array_ops", "ops.nn_ops", "ops.random_ops", "ops.clip_ops",
    "ops.linalg_ops", "ops.string_ops", "ops.control_flow_ops", "ops.check_ops",
    "ops.init_ops", "ops.sparse_ops", "ops.state_ops",
    "ops.logging_ops", "ops.script_ops", "ops.image_ops",
    "ops.partitioned_variables", "ops.tensor_array_ops",
    "ops.ragged", "ops.ragged.ragged_string_ops",
    "variables", "variable_scope", "eager.backprop", "eager.custom_gradient", "function",
    "autograph.converter",
    "module.module",
    "client.session", "train", "summary", "io", "core.example", "data",
    "keras", "layers", "losses", "metrics",
    "config", "compat", "contrib", "contrib.summary",
    "layers.rnn_cell_impl", "layers.rnn",
    "ops.data_flow_ops", "io.io_ops",
    "util",
)
# The modules in _api.LAZY_MODULES (estimator, feature_column, contrib.*, platform, test,
# keras.datasets) are imported by the namespaces when first used.
with _dependencies.installed_only():
    for _name in _MODULES:
        _importlib.import_module("tfcompat." + _name)

from tfcompat import _api  # noqa: E402

_api.build_namespaces(__name__)
del _name
