"""`tf.keras.utils` object (de)serialization: custom objects, their scopes, and `Progbar`.

Configs name classes by `class_name`; `deserialize_keras_object` finds them in, in turn, the
`custom_objects` argument, the objects of an enclosing `custom_object_scope` and those
registered globally (`get_custom_objects()`, `register_keras_serializable`), then the
`module_objects` of the caller. Keras' own `get`/`deserialize` functions (activations,
initializers, losses, ...) pass instead the TF namespace their names live in: the registry
gives `tf.keras.<namespace>.<name>` as the running script's API shows it (TF1 Keras gets the
compat.v1 initializers), plus a few Keras aliases that are no public path there.

Safe mode (Keras 2.13+): a config may hold a Python function as marshalled bytecode (a
Lambda layer's lambda); loading it runs code from the file, so `func_load` refuses it unless
the caller turned safe mode off (`load_model(..., safe_mode=False)`, `SafeModeScope(False)`).

Where we differ: `register_keras_serializable` records a class under its plain name as well
as TF's "<package>>Name", because tfcompat's configs use the plain class name. Safe mode is
on wherever no `SafeModeScope` says otherwise (Keras leaves `model_from_config` outside any
scope unprotected).
"""
import binascii
import codecs
import inspect
import marshal
import threading
import types

from tfcompat import _api
from tfcompat._api import tf_export
from tfcompat.keras.callbacks import Progbar

tf_export("keras.utils.Progbar")(Progbar)

_GLOBAL_CUSTOM_OBJECTS = {}
_REGISTERED_NAMES = {}
_safe_mode = threading.local()


class SafeModeScope(object):
    """`with SafeModeScope(False):` allows loading Python bytecode from configs inside the
    block (Keras' `serialization_lib.SafeModeScope`); `SafeModeScope(True)` forbids it."""

    def __init__(self, safe_mode=True):
        self.safe_mode = bool(safe_mode)
        self.previous = None

    def __enter__(self):
        self.previous = in_safe_mode()
        _safe_mode.value = self.safe_mode
        return self

    def __exit__(self, *args):
        _safe_mode.value = self.previous


def in_safe_mode():
    """True unless an enclosing `SafeModeScope(False)` allows loading bytecode."""
    return getattr(_safe_mode, "value", True)


def func_dump(func):
    """(base64 marshalled code, defaults, closure values) of a Python function (Keras')."""
    code = codecs.encode(marshal.dumps(func.__code__), "base64").decode("ascii")
    closure = tuple(cell.cell_contents for cell in func.__closure__) \
        if func.__closure__ else None
    return code, func.__defaults__, closure


def func_load(code, defaults=None, closure=None, globs=None):
    """The function `func_dump` described (or its `[code, defaults, closure]` list), with
    globals `globs`. It runs code from the config, so safe mode refuses it (ValueError)."""
    if in_safe_mode():
        raise ValueError(
            "Requested the deserialization of a Python function stored as bytecode (a Lambda "
            "layer's `lambda`). Loading it runs code from the file, so it is disallowed by "
            "default. If you trust the source of the model, pass `safe_mode=False` to "
            "`load_model`, `model_from_json` or `model_from_config` to allow it.")
    try:
        if isinstance(code, (tuple, list)):
            code, defaults, closure = code
        function_code = marshal.loads(codecs.decode(code.encode("ascii"), "base64"))
        if not isinstance(function_code, types.CodeType):
            raise TypeError("the bytecode is not a function's code")
        cells = tuple(types.CellType(value) for value in closure) if closure else None
        return types.FunctionType(function_code, globs if globs is not None else {},
                                  function_code.co_name,
                                  tuple(defaults) if defaults is not None else None, cells)
    except (AttributeError, UnicodeEncodeError, binascii.Error, EOFError, TypeError,
            ValueError) as error:
        raise ValueError("Cannot load a Python function from this config (%s); bytecode "
                         "only loads in the Python version that wrote it." % error) from None


@tf_export("keras.utils.CustomObjectScope", "keras.utils.custom_object_scope",
           "keras.saving.custom_object_scope")
class CustomObjectScope(object):
    """`with custom_object_scope({"MyLayer": MyLayer}):` makes the names known to
    deserialization (e.g. `load_model`) inside the block."""

    def __init__(self, *args):
        self.custom_objects = args
        self.backup = None

    def __enter__(self):
        self.backup = dict(_GLOBAL_CUSTOM_OBJECTS)
        for objects in self.custom_objects:
            _GLOBAL_CUSTOM_OBJECTS.update(objects or {})
        return self

    def __exit__(self, *args):
        _GLOBAL_CUSTOM_OBJECTS.clear()
        _GLOBAL_CUSTOM_OBJECTS.update(self.backup)


@tf_export("keras.utils.get_custom_objects", "keras.saving.get_custom_objects")
def get_custom_objects():
    """The global dictionary of custom objects (edit it to register names)."""
    return _GLOBAL_CUSTOM_OBJECTS


@tf_export("keras.utils.register_keras_serializable", "keras.saving.register_keras_serializable")
def register_keras_serializable(package="Custom", name=None):
    """Decorator registering a class or function as "<package>>name" for deserialization."""
    def decorator(arg):
        class_name = name if name is not None else arg.__name__
        registered = package + ">" + class_name
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() "
                             "method.")
        if registered in _GLOBAL_CUSTOM_OBJECTS:
            raise ValueError("%s has already been registered to %s"
                             % (registered, _GLOBAL_CUSTOM_OBJECTS[registered]))
        if arg in _REGISTERED_NAMES:
            raise ValueError("%s has already been registered to %s"
                             % (arg, _REGISTERED_NAMES[arg]))
        _GLOBAL_CUSTOM_OBJECTS[registered] = arg
        _GLOBAL_CUSTOM_OBJECTS.setdefault(arg.__name__, arg)
        _REGISTERED_NAMES[arg] = registered
        return arg
    return decorator


@tf_export("keras.utils.get_registered_name", "keras.saving.get_registered_name")
def get_registered_name(obj):
    """The name `obj` is registered under, else its `__name__` (the TF class name where
    tfcompat's class has another: `_keras_name`, set on that class itself)."""
    if obj in _REGISTERED_NAMES:
        return _REGISTERED_NAMES[obj]
    return vars(obj).get("_keras_name", getattr(obj, "__name__", None)) \
        if isinstance(obj, type) else getattr(obj, "__name__", None)


@tf_export("keras.utils.get_registered_object", "keras.saving.get_registered_object")
def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object registered (or given) under `name`, else None (also for a `name` that is
    not a string, as malformed configs hold)."""
    if not isinstance(name, str):
        return None
    for table in (custom_objects, _GLOBAL_CUSTOM_OBJECTS, module_objects):
        if table and name in table:
            return table[name]
    return None


def class_and_config(identifier, what):
    """(class name, config) of a serialized `{"class_name": ..., "config": {...}}` (a list
    for a Sequential model) or of a bare class name (empty config); ValueError naming `what`
    for anything else."""
    if isinstance(identifier, str):
        return identifier, {}
    if isinstance(identifier, dict) and isinstance(identifier.get("class_name"), str):
        config = identifier.get("config")
        if config is None or isinstance(config, (dict, list)):
            return identifier["class_name"], {} if config is None else config
    raise ValueError("Could not interpret serialized %s: %.200r" % (what, identifier))


def from_config_with_custom_objects(cls, config, custom_objects):
    """`cls.from_config(config)`, passing `custom_objects` where `from_config` takes them."""
    if "custom_objects" in inspect.signature(cls.from_config).parameters:
        return cls.from_config(config, custom_objects=custom_objects)
    return cls.from_config(config)


@tf_export("keras.utils.serialize_keras_object", "keras.saving.serialize_keras_object")
def serialize_keras_object(instance):
    """A function's name, or `{"class_name", "config"}` for an object with `get_config`."""
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        name = get_registered_name(type(instance))
        return {"class_name": name, "config": instance.get_config()}
    if hasattr(instance, "__name__"):
        return get_registered_name(instance)
    raise ValueError("Cannot serialize %r: it has neither `get_config` nor a name" % (instance,))


def _find_keras_object(name, custom_objects, module_objects, namespace, aliases):
    """What `name` stands for, in Keras 2's order: `custom_objects`, the custom object scope
    and registered objects, `module_objects`; then Keras' `aliases` (name -> TF path) and
    `tf.<namespace>.<name>`, the running API's objects there. None when nothing matches;
    a dotted name never reaches the registry."""
    found = get_registered_object(name, custom_objects, module_objects)
    if found is not None or not isinstance(name, str) or "." in name:
        return found
    if aliases and name in aliases:
        found = _api.lookup(aliases[name])
    if found is None and namespace:
        found = _api.lookup(namespace + "." + name)
    return found


@tf_export("keras.utils.deserialize_keras_object", "keras.saving.deserialize_keras_object")
def deserialize_keras_object(identifier, module_objects=None, custom_objects=None,
                             printable_module_name="object", namespace=None, aliases=None):
    """The object `identifier` stands for (Keras 2's legacy deserialization):

    - a config `{"class_name", "config"}`: the class `from_config(config)`, or a function
      found there called with the config as keyword arguments;
    - a name: a class found there made with no arguments, anything else as it is;
    - a callable (function or object) as it is; None as None.

    Names resolve as `_find_keras_object` says. Where we differ: `namespace` (a TF path such
    as "keras.activations") and `aliases` are tfcompat's, passed by the `get`/`deserialize`
    functions of Keras' modules in place of Keras' module globals.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        name, config = class_and_config(identifier, printable_module_name)
        found = _find_keras_object(name, custom_objects, module_objects, namespace, aliases)
        if found is None:
            raise ValueError("Unknown %s: %s. Please ensure this object is passed to the "
                             "`custom_objects` argument." % (printable_module_name, name))
        if isinstance(identifier, str):
            return found() if inspect.isclass(found) else found
        if getattr(found, "from_config", None) is None:
            return found(**config)
        merged = dict(_GLOBAL_CUSTOM_OBJECTS, **(custom_objects or {}))
        with CustomObjectScope(custom_objects or {}):
            return from_config_with_custom_objects(found, config, merged)
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret %s identifier: %.200r" % (printable_module_name,
                                                                    identifier))
