"""The symbol registry and the namespaces built from it."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import tfcompat as tf
from tfcompat import _api

PACKAGE = os.path.dirname(tf.__file__)
PACKAGES = sorted("tfcompat" + root[len(PACKAGE):].replace(os.sep, ".")
                  for root, dirs, files in os.walk(PACKAGE)
                  if "__init__.py" in files and "__pycache__" not in root)


def after_import(code):
    """Run `code` in a fresh interpreter right after `import tfcompat`; what it prints, as
    JSON."""
    source = "import json, sys\nimport tfcompat\nfrom tfcompat import _api\n"
    proc = subprocess.run([sys.executable, "-c", source + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


is_lazy = _api.is_lazy_module


def test_every_package_is_imported_for_real_or_declared_lazy():
    """A package the registry reached first would be a stand-in module hiding the real one:
    each is imported by `import tfcompat` (every module but the lazy ones) or is a lazy module (or inside
    one), and is a real package once the lazy modules are imported too."""
    state = after_import("""
        packages = %r
        def real(name):
            return hasattr(sys.modules.get(name), "__path__")
        at_import = {name: real(name) for name in packages}
        lazy_at_import = sorted(m for m in set(_api.LAZY_MODULES.values()) if m in sys.modules)
        for entry in _api.LAZY_MODULES:
            _api.load_lazy(entry)
        print(json.dumps({"at_import": at_import, "lazy_at_import": lazy_at_import,
                          "after_lazy": {name: real(name) for name in packages}}))
    """ % (PACKAGES,))
    assert state["lazy_at_import"] == []
    for name in PACKAGES:
        assert state["at_import"][name] or is_lazy(name), (
            "%s is not imported as a package: give it an __init__.py or declare it in "
            "_api.LAZY_MODULES" % name)
        assert state["after_lazy"][name], "%s was hidden by a stand-in namespace" % name


def test_lazy_modules_register_the_paths_they_claim():
    """Importing a lazy module through the namespaces registers a path at or under each of
    its entries, and every path it registers is owned by an entry of a module it imported
    (else the path would stay invisible until something else imported the module)."""
    loads = after_import("""
        def registered():
            return set(_api._COMMON) | set(_api._V1) | set(_api._V2)
        loads = []
        for module in sorted(set(_api.LAZY_MODULES.values())):
            before, loaded_before = registered(), set(_api._loaded)
            entries = sorted(e for e, m in _api.LAZY_MODULES.items() if m == module)
            found = {}
            for entry in entries:
                obj = tfcompat
                for part in entry.split("."):
                    obj = getattr(obj, part)
                found[entry] = getattr(obj, "__name__", type(obj).__name__)
            loads.append({"module": module, "found": found,
                          "new_paths": sorted(registered() - before),
                          "imported": sorted(_api._loaded - loaded_before)})
        print(json.dumps({"loads": loads, "paths": sorted(registered())}))
    """)
    paths = loads["paths"]
    for load in loads["loads"]:
        for entry in load["found"]:
            assert any(p == entry or p.startswith(entry + ".") for p in paths), entry
        for path in load["new_paths"]:
            assert _api._owner(path) in load["imported"], (
                "%s (registered by %s) is not under an entry of %s in _api.LAZY_MODULES"
                % (path, load["module"], load["imported"]))


def test_lazy_modules_imported_directly_fill_the_namespaces():
    """`import tfcompat.estimator` (not through a namespace) puts every path its import
    registered in place; read through `__dict__`, so no namespace lookup imports anything."""
    misplaced = after_import("""
        import importlib
        for module in sorted(set(_api.LAZY_MODULES.values())):
            importlib.import_module(module)
        misplaced, absent = [], object()
        for path in sorted(set(_api._COMMON) | set(_api._V1) | set(_api._V2)):
            if _api._owner(path) is None:
                continue
            obj = tfcompat
            for part in path.split("."):
                obj = obj.__dict__.get(part, absent) if hasattr(obj, "__dict__") else absent
            if obj is not _api._winner(path, _api.flavor()):
                misplaced.append(path)
        print(json.dumps(misplaced))
    """)
    assert misplaced == []


@pytest.mark.parametrize("path, owner", [
    ("estimator", "tfcompat.estimator"),
    ("estimator.inputs.numpy_input_fn", "tfcompat.estimator"),
    ("contrib.eager", "tfcompat.contrib.eager"),
    ("contrib.eager.metrics.Mean", "tfcompat.contrib.eager.metrics"),
    ("contrib.keras.datasets.mnist.load_data", "tfcompat.keras.datasets"),
    ("make_ndarray", "tfcompat.contrib.util"),
    ("contrib", None),
    ("contrib.summary.scalar", None),
    ("estimatorx", None),
    ("nn.relu", None),
])
def test_lazy_owner_is_the_longest_entry(path, owner):
    assert _api._owner(path) == owner


def test_lazy_symbols_resolve_through_every_namespace():
    assert tf.estimator.Estimator is tf.compat.v1.estimator.Estimator
    assert tf.compat.v2.estimator.Estimator is tf.estimator.Estimator
    assert tf.feature_column.numeric_column is tf.compat.v2.feature_column.numeric_column
    assert tf.contrib.slim.fully_connected is tf.contrib.layers.fully_connected
    assert tf.logging.INFO == tf.compat.v1.logging.INFO == 20
    assert tf.keras.datasets.mnist.load_data is tf.compat.v2.keras.datasets.mnist.load_data


def test_compat_namespaces_exist_and_differ_by_version():
    assert tf.compat.v1.placeholder is tf.placeholder
    assert tf.compat.v2.function is tf.function
    assert not hasattr(tf.compat.v2, "placeholder")
    assert tf.compat.v1.nn.dropout is not tf.compat.v2.nn.dropout


def test_missing_tf_symbol_names_itself_and_unknown_names_are_attribute_errors():
    with pytest.raises(NotImplementedError, match="tf.tpu"):
        tf.tpu
    assert not hasattr(tf, "tpu")            # also an AttributeError, so hasattr works
    with pytest.raises(AttributeError) as info:
        tf.no_such_symbol_in_tensorflow
    assert not isinstance(info.value, NotImplementedError)


def test_contrib_misses_are_not_implemented():
    with pytest.raises(NotImplementedError, match="tf.contrib.bayesflow"):
        tf.contrib.bayesflow


def test_module_attributes_can_be_assigned_like_tf():
    tf.model_for_test = 3
    try:
        assert tf.model_for_test == 3
    finally:
        del tf.model_for_test


def test_flavor_switch_changes_top_level_only():
    previous = _api.flavor()
    try:
        _api.set_flavor("v2")
        assert tf.nn.dropout is tf.compat.v2.nn.dropout
        _api.set_flavor("v1")
        assert tf.nn.dropout is tf.compat.v1.nn.dropout
    finally:
        _api.set_flavor(previous)


def test_a_path_is_registered_once():
    """Import order never decides which of two implementations a TF name gets."""
    probe, other = object(), object()
    _api.tf_export("keras.layers.TfcompatOnceProbe", v1=["tfcompat_once_probe"])(probe)
    try:
        _api.tf_export("keras.layers.TfcompatOnceProbe")(probe)  # the same object again: fine
        with pytest.raises(ValueError, match="registered twice"):
            _api.tf_export("keras.layers.TfcompatOnceProbe")(other)
        with pytest.raises(ValueError, match="registered twice"):
            _api.tf_export(v1=["tfcompat_once_probe"])(other)
        assert _api._COMMON["keras.layers.TfcompatOnceProbe"] is probe
    finally:
        _api._COMMON.pop("keras.layers.TfcompatOnceProbe")
        _api._V1.pop("tfcompat_once_probe")
    assert tf.image.random_crop is tf.compat.v1.random_crop
    assert tf.nn.softplus is tf.math.softplus


def test_import_leaves_heavy_modules_for_first_use():
    """`import tfcompat` does not load what only graphs or optional features need: sympy
    (symbolic shapes, ~0.3-0.5 s) and h5py (whose import undoes the runner's malloc tuning)."""
    loaded = after_import("""
        print(json.dumps(sorted(m for m in ("sympy", "h5py", "PIL") if m in sys.modules)))
    """)
    assert loaded == []
