"""`tf.keras.models`: Model and Sequential, models rebuilt from configs or JSON, saved whole
(`save_model` / `load_model`, in keras/saving) or cloned."""
import json

from tfcompat._api import tf_export
from tfcompat.keras.engine.base_layer import flatten, map_structure
from tfcompat.keras.engine.input_layer import Input, InputLayer
from tfcompat.keras.engine.network import AddLoss, AddMetric
from tfcompat.keras.engine.op_layer import TensorFlowOpLayer
from tfcompat.keras.engine.sequential import Sequential
from tfcompat.keras.engine.training import Model
from tfcompat.keras.layers.serialization import keras_layer_class
from tfcompat.keras.saving.save import load_model, save_model  # noqa: F401
from tfcompat.keras.utils.generic_utils import (SafeModeScope, from_config_with_custom_objects,
                                                get_custom_objects, get_registered_object)

tf_export("keras.Model", "keras.models.Model")(Model)


@tf_export("keras.models.model_from_config")
def model_from_config(config, custom_objects=None, safe_mode=True):
    """A model from `{"class_name": ..., "config": ...}` (Sequential, functional, or a class
    in `custom_objects` / the custom object scope).

    Names in the config resolve only to built-in Keras objects, exported TF ops and
    `custom_objects`; a malformed config raises ValueError. `safe_mode=False` allows Lambda
    layers' bytecode, which runs code from the config (Keras 2.13+'s `load_model` argument;
    TF's `model_from_config` has no such argument and no protection)."""
    if isinstance(config, list):
        raise TypeError("`model_from_config` expects a dictionary, not a list. Maybe you "
                        "meant to use `Sequential.from_config(config)`?")
    if not isinstance(config, dict) or not isinstance(config.get("config"), (dict, list)):
        raise ValueError("A model config is a dict {'class_name': ..., 'config': ...}, not %.200r"
                         % (config,))
    custom_objects = dict(get_custom_objects(), **(custom_objects or {}))
    name = config.get("class_name")
    cls = get_registered_object(name, custom_objects)
    if cls is None and isinstance(name, str):
        found = keras_layer_class(name)    # the registry's Keras classes: models only here
        cls = found if found is not None and issubclass(found, Model) else None
    if cls is None:
        raise ValueError("Unknown model class: %s. Pass it in `custom_objects`." % (name,))
    with SafeModeScope(safe_mode):
        try:
            return from_config_with_custom_objects(cls, config["config"], custom_objects)
        except (TypeError, KeyError, IndexError, AttributeError) as error:
            if isinstance(error, NotImplementedError):  # a TF feature tfcompat lacks
                raise
            detail = "no entry %r" % (error.args[0],) if isinstance(error, KeyError) \
                else "%s: %s" % (type(error).__name__, error)
            raise ValueError("Malformed model config (%s)" % detail) from error


@tf_export("keras.models.model_from_json")
def model_from_json(json_string, custom_objects=None, safe_mode=True):
    """A model from `model.to_json()` (see `model_from_config` for `safe_mode`)."""
    return model_from_config(json.loads(json_string), custom_objects, safe_mode)


@tf_export("keras.models.model_from_yaml")
def model_from_yaml(yaml_string, custom_objects=None):
    raise RuntimeError("Method `model_from_yaml()` has been removed due to security risk of "
                       "arbitrary code execution. Please use `Model.to_json()` and "
                       "`model_from_json()` instead.")


def _clone_layer(layer):
    return type(layer).from_config(layer.get_config())


@tf_export("keras.models.clone_model")
def clone_model(model, input_tensors=None, clone_function=None):
    """A new Sequential or functional model with the same architecture and freshly
    initialized weights (each layer rebuilt by `clone_function`, default
    `cls.from_config(layer.get_config())`), optionally on new `input_tensors`."""
    clone_function = clone_function or _clone_layer
    if isinstance(model, Sequential):
        return _clone_sequential(model, input_tensors, clone_function)
    if not isinstance(model, Model) or not model._is_graph_network:
        raise ValueError("Expected `model` argument to be a functional `Model` instance, but "
                         "got a subclass model instead.")
    return _clone_functional(model, input_tensors, clone_function)


def _clone_sequential(model, input_tensors, clone_function):
    layers = [clone_function(layer) for layer in model.layers]
    if input_tensors is None:
        if model._seq_input is not None and not hasattr(model.layers[0], "_batch_input_shape"):
            source = model._seq_input
            layers = [Input(batch_shape=source.shape.as_list(), dtype=source.dtype)] + layers
        return Sequential(layers=layers, name=model.name)
    inputs = input_tensors if isinstance(input_tensors, (list, tuple)) else [input_tensors]
    if len(inputs) != 1:
        raise ValueError("To clone a `Sequential` model, we expect at most one tensor as part "
                         "of `input_tensors`.")
    first = inputs[0]
    if getattr(first, "_keras_history", None) is None:
        first = Input(tensor=first)
    return Sequential(layers=[first] + layers, name=model.name)


def _clone_functional(model, input_tensors, clone_function):
    if input_tensors is None:
        new_inputs = [Input(batch_shape=x.shape.as_list(), dtype=x.dtype,
                            name=x._keras_history[0].name) for x in model.inputs]
    else:
        given = input_tensors if isinstance(input_tensors, (list, tuple)) else [input_tensors]
        if len(given) != len(model.inputs):
            raise ValueError("Model has %d inputs, but `input_tensors` has %d tensors."
                             % (len(model.inputs), len(given)))
        new_inputs = [x if getattr(x, "_keras_history", None) is not None
                      else Input(tensor=x) for x in given]
    values = {id(x): y for x, y in zip(model.inputs, new_inputs)}
    clones, side_outputs = {}, []
    for node in model._network_nodes:
        layer = node.layer
        if isinstance(layer, InputLayer):
            continue
        if id(layer) not in clones:
            clones[id(layer)] = layer if isinstance(layer, TensorFlowOpLayer) \
                else clone_function(layer)
        args = map_structure(lambda x: values.get(id(x), x), node.call_args)
        kwargs = map_structure(lambda x: values.get(id(x), x), node.call_kwargs)
        outputs = clones[id(layer)](*args, **kwargs)
        flat = flatten(outputs)
        for old, new in zip(node.output_tensors, flat):
            values[id(old)] = new
        if isinstance(layer, (AddLoss, AddMetric)):
            side_outputs += flat
    outputs = map_structure(lambda t: values[id(t)], model._nested_outputs)
    inputs = new_inputs[0] if len(new_inputs) == 1 else new_inputs
    clone = Model(inputs, outputs, name=model.name)
    if side_outputs:
        clone._side_outputs += side_outputs
        clone._set_network_nodes()
    return clone
