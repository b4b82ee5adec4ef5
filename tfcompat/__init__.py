"""tfcompat: TensorFlow 1.x / 2.x (Keras 2) scripts, unchanged, on PyTorch.

`import tfcompat as tf` gives TensorFlow's top-level namespace (TF1 names plus TF2 names);
`tfcompat.compat.v1` and `tfcompat.compat.v2` give each version's own. Every public symbol is
registered once with its TF paths (`tfcompat._api`); this file only imports the modules that
define them and builds the namespaces.
"""
import importlib as _importlib
import os as _os

from tfcompat import _dependencies, _scan

_scan.announce_before_imports()  # under the runner: the mode line before torch's imports

from tfcompat._version import __version__  # noqa: E402  (tfcompat's own; TF's: tf.version.VERSION)
COMPILER_VERSION = "torch"

from tfcompat import _api  # noqa: E402

# Not imported here: the runner's entry points (and its worker launcher), and the modules in _api.LAZY_MODULES
# (estimator, feature_column, contrib.*, platform, test, keras.datasets), which the namespaces
# import when one of their paths is first used.
_ENTRY_POINTS = ("__main__", "_import_hook", "check", "cli", "distribute.launch")


def _eagerly_imported_modules():
    """Every module of the package but the entry points and the lazily loaded ones, in path
    order (imports go down the layers, so any order works: tests/test_layering.py)."""
    root = _os.path.dirname(__file__)
    names = []
    for folder, subfolders, files in _os.walk(root):
        subfolders[:] = sorted(d for d in subfolders
                               if _os.path.isfile(_os.path.join(folder, d, "__init__.py")))
        package = _os.path.relpath(folder, root).replace(_os.sep, ".")
        for file_name in sorted(files):
            if not file_name.endswith(".py") or file_name == "__init__.py" and package == ".":
                continue
            stem = "" if file_name == "__init__.py" else file_name[:-3]
            name = ".".join(part for part in (package, stem) if part and part != ".")
            if name not in _ENTRY_POINTS and not _api.is_lazy_module("tfcompat." + name):
                names.append(name)
    return names


with _dependencies.long_lived_imports():
    with _dependencies.installed_only():
        for _name in _eagerly_imported_modules():
            _importlib.import_module("tfcompat." + _name)
    _api.build_namespaces(__name__)
del _name
