"""The public-symbol registry: every TF symbol is registered once with all its TF paths.

`@tf_export("math.add", "add")` records an object under TF paths written without the `tf.`
prefix. Paths that exist in only one API version are given as `v1=[...]` or `v2=[...]`;
where the two versions differ under the same path (`tf.nn.dropout`, `tf.summary.scalar`),
both are registered and the top-level namespace shows the flavour of the running script
(`set_flavor`: the TensorFlow major version the script was written for, chosen by the runner or
by `TFCOMPAT_API=1|2`). `build_namespaces` turns the records into modules:

- `tfcompat`, `tfcompat.nn`, `tfcompat.train`, ... : every registered path (the top level);
- `tfcompat.compat.v1...` : paths of TF's compat.v1 API (plus legacy-only ones like contrib);
- `tfcompat.compat.v2...` : paths of TF's v2 API.

Rarely used packages are imported on first use: `LAZY_MODULES` names the module that
registers each group of paths, and a namespace imports it when one of them is asked for
(`tf.estimator`, `tf.contrib.layers`); registrations made after the namespaces were built
appear in them then.

A missing attribute that real TensorFlow has raises `UnimplementedSymbolError` (both a
`NotImplementedError` and an `AttributeError`, so `hasattr` stays False); one TensorFlow never
had raises a plain `AttributeError`.
"""
import importlib
import os
import sys
import types

_COMMON, _V1, _V2 = {}, {}, {}
API_ENV = "TFCOMPAT_API"
_FLAVOR = "v1"       # which version's object the top level shows where the two differ
_BEHAVIOR = "v1"     # TF2 behaviour (TF's `tf2.enabled()`): Keras defaults, TensorShape, ==
_SYMBOLS_DIR = os.path.join(os.path.dirname(__file__), "_symbols")
_known_paths = {}

# TF path (or path prefix, by whole components) -> the tfcompat module that `import tfcompat`
# leaves out and whose import registers the symbols there. The longest matching entry owns a
# path; a path under an entry appears in the namespaces once its owner is imported, whichever
# module registered it (`estimator.SessionRunHook` comes from tfcompat.train).
LAZY_MODULES = {
    "estimator": "tfcompat.estimator",
    "feature_column": "tfcompat.feature_column",
    "test": "tfcompat.test",
    "app": "tfcompat.platform",
    "flags": "tfcompat.platform",
    "logging": "tfcompat.platform",
    "get_logger": "tfcompat.platform",
    "keras.datasets": "tfcompat.keras.datasets",
    "contrib.keras.datasets": "tfcompat.keras.datasets",
    "contrib.eager": "tfcompat.contrib.eager",
    "contrib.eager.metrics": "tfcompat.contrib.eager.metrics",
    "contrib.cudnn_rnn": "tfcompat.contrib.cudnn_rnn",
    "contrib.framework": "tfcompat.contrib.framework",
    "contrib.layers": "tfcompat.contrib.layers",
    "contrib.learn": "tfcompat.contrib.learn",
    "contrib.legacy_seq2seq": "tfcompat.contrib.legacy_seq2seq",
    "contrib.seq2seq": "tfcompat.contrib.seq2seq",
    "contrib.slim": "tfcompat.contrib.slim",
    "contrib.losses": "tfcompat.contrib.slim",
    "contrib.training": "tfcompat.contrib.training",
    "contrib.util": "tfcompat.contrib.util",
    "make_tensor_proto": "tfcompat.contrib.util",
    "make_ndarray": "tfcompat.contrib.util",
}
_LAZY_MODULE_NAMES = frozenset(LAZY_MODULES.values())

_root_name = None     # the package the namespaces were built under (None: not built yet)
_root_views = []      # other modules showing the top-level names (`tensorflow` under the runner)
_namespaces = {}      # module name -> the namespace module made or adopted there
_loaded = set()       # lazy modules whose import has finished
_pending = {}         # owner (a lazy module name, or None) -> paths not placed yet


class UnimplementedSymbolError(NotImplementedError, AttributeError):
    """A TensorFlow symbol that tfcompat does not implement (yet)."""


def tf_export(*paths, v1=(), v2=()):
    """Decorator registering `obj` under TF paths (both versions), v1-only or v2-only paths.

    A path is registered once: registering another object there raises (import order must
    never decide which of two implementations a TF name gets)."""
    def register(obj):
        for table, table_paths in ((_COMMON, paths), (_V1, v1), (_V2, v2)):
            for path in table_paths:
                held = table.get(path, obj)
                if held is not obj:
                    raise ValueError("TF path %r is registered twice: %r (%s) and %r (%s)" % (
                        path, held, getattr(held, "__module__", "?"), obj,
                        getattr(obj, "__module__", "?")))
                table[path] = obj
        if _root_name is not None:
            for path in (*paths, *v1, *v2):
                _pending.setdefault(_owner(path), []).append(path)
        return obj
    return register


def export_constant(value, *paths, v1=(), v2=()):
    """Register a non-decoratable value (a dtype, a constant) under TF paths."""
    tf_export(*paths, v1=v1, v2=v2)(value)
    return value


def known_paths(version):
    """The set of TF paths (without `tf.`) in TF's compat.v1 (`"v1"`) or v2 (`"v2"`) API."""
    if version not in _known_paths:
        with open(os.path.join(_SYMBOLS_DIR, "tf1.txt" if version == "v1" else "tf2.txt")) as f:
            _known_paths[version] = set(f.read().split())
    return _known_paths[version]


def only_in(version):
    """TF paths (namespaces included) that exist in `version`'s API and not in the other's:
    `Session` and `summary.FileWriter` for "v1", `random.set_seed` for "v2". A namespace
    either version has (`summary`, `summary.experimental`) is in neither set."""
    key = "only-" + version
    if key not in _known_paths:
        def with_namespaces(paths):
            return paths | {".".join(path.split(".")[:i]) for path in paths
                            for i in range(1, path.count(".") + 1)}
        own, other = (with_namespaces(known_paths(v))
                      for v in (version, "v2" if version == "v1" else "v1"))
        _known_paths[key] = frozenset(own - other)
    return _known_paths[key]


def flavor_from_env():
    """"v1"/"v2" as `TFCOMPAT_API=1|2` forces, None when unset; ValueError for other values."""
    value = os.environ.get(API_ENV, "").strip().lower()
    if not value:
        return None
    if value not in ("1", "2", "v1", "v2"):
        raise ValueError("%s must be 1 or 2 (the TensorFlow API version to emulate), not %r"
                         % (API_ENV, os.environ[API_ENV]))
    return "v" + value[-1]


def is_tf_symbol(path, version=None):
    versions = (version,) if version else ("v1", "v2")
    return path.startswith("contrib.") or any(path in known_paths(v) for v in versions)


class Namespace(types.ModuleType):
    """A TF namespace module; a missing attribute names the TF symbol that was asked for."""

    _tf_prefix = "tf"
    _api_version = None

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        prefix = self.__dict__.get("_tf_prefix", "tf")
        path = (prefix + "." + attr)[3:] if prefix != "tf" else attr
        if load_lazy(path) or _place_pending():
            try:
                return self.__dict__[attr]
            except KeyError:
                pass
        version = self.__dict__.get("_api_version")
        if is_tf_symbol(path, version) or self.__dict__.get("_all_missing_are_tf", False):
            raise UnimplementedSymbolError(
                "tfcompat does not implement tf.%s yet (it is part of TensorFlow's API; "
                "please report the script that needs it)" % path)
        raise AttributeError("module 'tf%s' has no attribute '%s'" % (
            prefix[2:] if prefix != "tf" else "", attr))

    def __setattr__(self, attr, value):
        # The import system sets a package's attribute once a submodule has finished
        # importing: a lazy module imported directly (not through a namespace) shows here.
        super().__setattr__(attr, value)
        if isinstance(value, types.ModuleType) and value.__name__ in _LAZY_MODULE_NAMES:
            _mark_loaded(value.__name__)
            _place_pending()


def is_lazy_module(module_name):
    """Whether `module_name` is a lazy module of LAZY_MODULES or inside one."""
    return any(module_name == lazy or module_name.startswith(lazy + ".")
               for lazy in _LAZY_MODULE_NAMES)


def _owner(path):
    """The lazy module owning TF path `path` (its longest `LAZY_MODULES` entry), or None."""
    while True:
        module = LAZY_MODULES.get(path)
        if module is not None:
            return module
        path, dot, _ = path.rpartition(".")
        if not dot:
            return None


def _mark_loaded(module):
    """Record that lazy `module` is imported, importing first the lazy modules owning a
    namespace above its entries (tfcompat.contrib.eager above contrib.eager.metrics): placing
    its paths would otherwise make a stand-in namespace hiding them."""
    if module in _loaded:
        return
    for entry, owner in LAZY_MODULES.items():
        enclosing = _owner(entry.rpartition(".")[0]) if owner == module else None
        if enclosing is not None and enclosing != module and enclosing not in _loaded:
            importlib.import_module(enclosing)
            _mark_loaded(enclosing)
    _loaded.add(module)


def load_lazy(path):
    """Import the lazy modules registering TF path `path` or paths under it; True when one was
    imported now (its paths are then in the namespaces)."""
    wanted = {module for entry, module in LAZY_MODULES.items() if entry.startswith(path + ".")}
    owner = _owner(path)
    if owner is not None:
        wanted.add(owner)
    wanted -= _loaded
    for module in sorted(wanted):
        importlib.import_module(module)
        _mark_loaded(module)
    if wanted and _root_name is not None:
        _place_pending()
    return bool(wanted)


def _namespace(module_name, tf_prefix, api_version):
    """The namespace module `module_name` (made, or adopted when a module has that name),
    attached to its parent namespace."""
    module = _namespaces.get(module_name)
    if module is not None:
        return module
    module = sys.modules.get(module_name)
    if module is None:
        module = Namespace(module_name, "TensorFlow namespace `%s`." % tf_prefix)
        sys.modules[module_name] = module
    elif type(module) is types.ModuleType:
        module.__class__ = Namespace
    module.__dict__.update(_tf_prefix=tf_prefix, _api_version=api_version,
                           _all_missing_are_tf=tf_prefix.startswith("tf.contrib"))
    _namespaces[module_name] = module
    holder_name, _, attr = module_name.rpartition(".")
    if tf_prefix != "tf":
        holder = _namespace(holder_name, tf_prefix.rpartition(".")[0], api_version)
    else:
        holder = sys.modules.get(holder_name) if holder_name else None
    if holder is not None:
        holder.__dict__[attr] = module
    return module


def _place(root_name, api_version, path, obj):
    tf_path, dot, attr = path.rpartition(".")
    module_name = root_name + "." + tf_path if dot else root_name
    _namespace(module_name, "tf." + tf_path if dot else "tf", api_version).__dict__[attr] = obj
    if not dot and api_version is None:
        for view in _root_views:
            view.__dict__[attr] = obj


def add_root_view(module):
    """Keep `module` showing the top-level names as they are placed (flavour switches too)."""
    _root_views.append(module)


def _winner(path, flavor):
    """The object a `flavor` API shows at `path`: its own version's, else the common one,
    else the other version's; None when nothing is registered there."""
    own, other = (_V1, _V2) if flavor == "v1" else (_V2, _V1)
    for table in (own, _COMMON, other):
        obj = table.get(path, table)
        if obj is not table:
            return obj
    return None


def lookup(path):
    """The object registered at `tf.<path>` for the running behaviour (TF's `tf2.enabled()`,
    `flavor()`): TF 2 behaviour gets the v2 object where the versions differ, TF 1 behaviour
    the v1 one; None when nothing is registered there. How Keras finds a class by the name a
    config holds: Keras 2 picks its v1 or v2 classes by `tf2.enabled()`, so a TF2 script that
    called `disable_v2_behavior()` deserializes "LSTM" to the v1 layer, as in TF."""
    return _winner(path, _BEHAVIOR)


def _flavored(flavor):
    """Every path -> object for one API flavour (common paths, then that version's own)."""
    merged = dict(_COMMON)
    other = _V2 if flavor == "v1" else _V1
    merged.update((path, obj) for path, obj in other.items() if path not in merged)
    merged.update(_V1 if flavor == "v1" else _V2)
    return merged


def _place_everywhere(path, v1_known, v2_known):
    """Put the objects registered at `path` into the top level, compat.v1 and compat.v2."""
    if path not in _COMMON and path not in _V1 and path not in _V2:
        return  # unregistered since (a test's probe)
    _place(_root_name, None, path, _winner(path, _FLAVOR))
    if path in v1_known or path not in v2_known:
        _place(_root_name + ".compat.v1", "v1", path, _winner(path, "v1"))
    if path in v2_known:
        _place(_root_name + ".compat.v2", "v2", path, _winner(path, "v2"))


def _place_pending():
    """Place the paths registered since the last placement whose owner is imported; True
    when some were placed."""
    ready = [_pending.pop(owner, ()) for owner in list(_pending)
             if owner is None or owner in _loaded]
    v1_known, v2_known = known_paths("v1"), known_paths("v2")
    for paths in ready:
        for path in paths:
            _place_everywhere(path, v1_known, v2_known)
    return bool(ready)


def build_namespaces(root_name="tfcompat"):
    """Populate the top-level namespace tree and `compat.v1` / `compat.v2` from the registry.

    Paths owned by a lazy module that is not imported yet wait for it."""
    global _root_name
    _root_name = root_name
    for name in sorted(_LAZY_MODULE_NAMES):
        if name in sys.modules:
            _mark_loaded(name)
    _pending.clear()
    for path in {**_COMMON, **_V1, **_V2}:
        _pending.setdefault(_owner(path), []).append(path)
    for entry in LAZY_MODULES:  # the namespaces above lazy modules, where lookups start
        parent = entry.rpartition(".")[0]
        if parent and _owner(parent) is None:
            _namespace(root_name + "." + parent, "tf." + parent, None)
    _place_pending()
    forced = flavor_from_env()
    if forced is not None:
        set_flavor(forced, root_name)


def set_flavor(flavor, root_name="tfcompat"):
    """Emulate TensorFlow 1 (`"v1"`) or 2 (`"v2"`): the top level shows that version's object
    where the two differ under one path (`tf.nn.dropout`, `tf.__version__`), and its behaviour
    (`set_behavior`) is switched on."""
    global _FLAVOR
    if flavor not in ("v1", "v2"):
        raise ValueError("flavor must be 'v1' or 'v2', not %r" % (flavor,))
    _FLAVOR = flavor
    set_behavior(flavor)
    for path, obj in (_V1 if flavor == "v1" else _V2).items():
        owner = _owner(path)
        if owner is None or owner in _loaded:
            _place(root_name, None, path, obj)


def set_behavior(flavor):
    """Switch TF2 behaviour on (`"v2"`) or off (`"v1"`) without changing any name, as
    `tf.compat.v1.enable_v2_behavior()` / `disable_v2_behavior()` do: in TensorFlow 2
    `tf.nn.dropout` stays the TF2 function after `disable_v2_behavior()`, in TF 1.15 the TF1
    one after `enable_v2_behavior()`."""
    global _BEHAVIOR
    if flavor not in ("v1", "v2"):
        raise ValueError("flavor must be 'v1' or 'v2', not %r" % (flavor,))
    _BEHAVIOR = flavor


def flavor():
    """"v2" while TF2 behaviour is on (TF's `tf2.enabled()`), else "v1"."""
    return _BEHAVIOR


def api_version():
    """"v1"/"v2": which version's objects the top-level names show."""
    return _FLAVOR
