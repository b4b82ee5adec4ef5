"""`tf.keras.layers.serialize` / `deserialize`.

As in Keras 2, `deserialize` finds the class a config names among the custom objects (given
or registered) and then the `tf.keras.layers` classes the running script's API shows (the
registry: TF 2's `LSTM` is the v2 layer), plus `Sequential` / `Model` / `Functional`.
"""
from tfcompat import _api
from tfcompat._api import tf_export
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.keras.utils.generic_utils import (CustomObjectScope, from_config_with_custom_objects,
                                                get_registered_object)

_MODEL_PATHS = {"Sequential": "keras.Sequential", "Model": "keras.Model",
                "Functional": "keras.Model"}


def keras_layer_class(name):
    """The registered Keras layer (or model) class called `name`, else None."""
    found = _api.lookup(_MODEL_PATHS.get(name, "keras.layers." + name))
    return found if isinstance(found, type) and issubclass(found, Layer) else None


@tf_export("keras.layers.serialize")
def serialize(layer):
    """{"class_name": ..., "config": layer.get_config()}."""
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


@tf_export("keras.layers.deserialize")
def deserialize(config, custom_objects=None):
    """A layer (or model) from `serialize()` output."""
    if not isinstance(config, dict) or not isinstance(config.get("config"), (dict, list)):
        raise ValueError("A layer config is a dict {'class_name': ..., 'config': ...}, not "
                         "%.200r" % (config,))
    name = config.get("class_name")
    cls = get_registered_object(name, custom_objects)
    if cls is None and isinstance(name, str):
        cls = keras_layer_class(name)
    if cls is None:
        raise ValueError("Unknown layer: %s. Please ensure this object is passed to the "
                         "`custom_objects` argument." % (name,))
    with CustomObjectScope(custom_objects or {}):  # names in the layer's own config too
        return from_config_with_custom_objects(cls, config["config"], custom_objects)
