"""`tf.keras.initializers` lookups: `serialize`, `deserialize` and `get` by Keras name.

The initializer classes are TF's (`ops/init_ops.py`); a name is found at
`tf.keras.initializers.<name>` for the running behaviour (`_api.lookup`), so TF1 behaviour
resolves names to the `tf.compat.v1` classes and TF2 behaviour to the v2 ones, as in TF 2.15.
"""
import inspect

from tfcompat._api import tf_export
from tfcompat.keras.utils.generic_utils import (class_and_config, deserialize_keras_object,
                                                get_registered_object, serialize_keras_object)

_K = "keras.initializers."
# Keras 2's names that are no public path of every API under tf.keras.initializers (its alias
# list, not a symbol table): each stands for what the running API shows at the TF path given.
_KERAS_ALIASES = {
    "zero": _K + "zeros", "one": _K + "ones", "normal": _K + "random_normal",
    "uniform": _K + "random_uniform", "variance_scaling": _K + "VarianceScaling",
    "GlorotNormal": _K + "glorot_normal", "GlorotUniform": _K + "glorot_uniform",
    "HeNormal": _K + "he_normal", "HeUniform": _K + "he_uniform",
    "LecunNormal": _K + "lecun_normal", "LecunUniform": _K + "lecun_uniform"}


@tf_export("keras.initializers.serialize", v2=["initializers.serialize"])
def serialize(initializer):
    """{"class_name": ..., "config": ...} for an initializer object."""
    return serialize_keras_object(initializer)


@tf_export("keras.initializers.deserialize", v2=["initializers.deserialize"])
def deserialize(config, custom_objects=None):
    """An initializer from a name or a serialize() dict. A name is the config
    `{"class_name": name, "config": {}}`, as Keras' `get` makes it, so TF1's `he_normal`
    factory is called. Where we differ: a custom function (or object) named without a config
    is the initializer itself, where Keras 2.15 would call it with no arguments."""
    name, kwargs = class_and_config(config, "initializer")
    custom = get_registered_object(name, custom_objects)
    if custom is not None and not inspect.isclass(custom) and not kwargs:
        return custom
    return deserialize_keras_object({"class_name": name, "config": kwargs},
                                    custom_objects=custom_objects,
                                    printable_module_name="initializer",
                                    namespace="keras.initializers", aliases=_KERAS_ALIASES)


@tf_export("keras.initializers.get", v2=["initializers.get"])
def get(identifier):
    """None, a name, a config dict or a callable -> an initializer; a class is instantiated
    (Keras 2.15)."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier() if inspect.isclass(identifier) else identifier
    raise ValueError("Could not interpret initializer identifier: %r" % (identifier,))
