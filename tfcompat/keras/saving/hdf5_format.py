"""Keras' HDF5 files (`.h5`, `.keras`, `.hdf5`): whole models and `save_weights` files, in
TF/Keras' layout (needs h5py).

A model file holds the attributes `model_config` and `training_config` (JSON), a
`model_weights` group (per layer a group whose datasets are named by the weights' names,
with `layer_names` / `weight_names` attributes) and, with the optimizer, an
`optimizer_weights` group. A weights file is the `model_weights` layout at its root.
"""
import json
import logging
import os

import numpy as np

from tfcompat.keras import __version__ as keras_version
from tfcompat.keras import backend
from tfcompat.keras.saving import saving_utils

_logger = logging.getLogger("tensorflow")
HDF5_SUFFIXES = (".h5", ".keras", ".hdf5")


def h5py():
    try:
        import h5py as module
    except ImportError:
        raise ImportError("Keras' HDF5 format (.h5/.keras/.hdf5 files) requires h5py: install "
                          "it with `pip install h5py`, or use the TensorFlow format (a path "
                          "without those suffixes, or save_format='tf').") from None
    return module


def _text(value):
    return value.decode("utf8") if isinstance(value, bytes) else value


def save_weights_to_hdf5_group(group, layers):
    group.attrs["layer_names"] = [layer.name.encode("utf8") for layer in layers]
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = keras_version.encode("utf8")
    for layer in layers:
        layer_group = group.create_group(layer.name)
        weights = layer.weights
        names = [w.name.encode("utf8") for w in weights]
        layer_group.attrs["weight_names"] = names
        for name, value in zip(names, backend.batch_get_value(weights)):
            dataset = layer_group.create_dataset(name.decode("utf8"), value.shape,
                                                 dtype=value.dtype)
            dataset[()] = value


def _member(group, name, what):
    """`group[name]`, or ValueError naming what the damaged file lacks (h5py: KeyError)."""
    try:
        return group[name]
    except (KeyError, ValueError, TypeError):
        raise ValueError("The HDF5 file has no %s %r in %s: it is damaged or was not written "
                         "by Keras." % (what, name, group.name)) from None


def _attribute(group, name):
    try:
        return group.attrs[name]
    except KeyError:
        raise ValueError("The HDF5 file has no %r attribute on %s: it is damaged or was not "
                         "written by Keras." % (name, group.name)) from None


def _saved_layer_weights(group):
    names = [_text(n) for n in _attribute(group, "layer_names")]
    saved = {}
    for name in names:
        layer_group = _member(group, name, "weights group for layer")
        saved[name] = [np.asarray(_member(layer_group, _text(w), "weight"))
                       for w in _attribute(layer_group, "weight_names")]
    return names, saved


def _pair_weights(layer, values):
    weights = layer.weights
    if len(weights) != len(values):
        raise ValueError("Layer %s expects %d weights, but the saved weights have %d "
                         "elements." % (layer.name, len(weights), len(values)))
    return list(zip(weights, values))


def load_weights_from_hdf5_group(group, layers, by_name=False):
    """Assign saved weights to `layers`: by layer name, or in order over layers that have
    weights (Keras' topological loading)."""
    names, saved = _saved_layer_weights(group)
    pairs = []
    if by_name:
        for layer in layers:
            if layer.name in saved:
                pairs += _pair_weights(layer, saved[layer.name])
    else:
        layers = [layer for layer in layers if layer.weights]
        filtered = [name for name in names if saved[name]]
        if len(filtered) != len(layers):
            raise ValueError("You are trying to load a weight file containing %d layers into a "
                             "model with %d layers." % (len(filtered), len(layers)))
        for layer, name in zip(layers, filtered):
            pairs += _pair_weights(layer, saved[name])
    backend.batch_set_value(pairs)


def save_weights(model, filepath):
    module = h5py()
    directory = os.path.dirname(os.path.abspath(filepath))
    os.makedirs(directory, exist_ok=True)
    with module.File(filepath, "w") as f:
        save_weights_to_hdf5_group(f, model.layers)


def load_weights(model, filepath, by_name=False):
    module = h5py()
    with module.File(filepath, "r") as f:
        group = f["model_weights"] if "layer_names" not in f.attrs and \
            "model_weights" in f else f
        load_weights_from_hdf5_group(group, model.layers, by_name)


def save_model(model, filepath, include_optimizer=True):
    """Write the whole model (config, weights, training config, optimizer state)."""
    module = h5py()
    metadata = saving_utils.metadata(model, include_optimizer)
    directory = os.path.dirname(os.path.abspath(filepath))
    os.makedirs(directory, exist_ok=True)
    with module.File(filepath, "w") as f:
        f.attrs["keras_version"] = keras_version.encode("utf8")
        f.attrs["backend"] = b"tensorflow"
        f.attrs["model_config"] = json.dumps(
            metadata["model_config"], default=saving_utils.get_json_type).encode("utf8")
        save_weights_to_hdf5_group(f.create_group("model_weights"), model.layers)
        if metadata["training_config"] is None:
            return
        f.attrs["training_config"] = json.dumps(
            metadata["training_config"], default=saving_utils.get_json_type).encode("utf8")
        weights = model.optimizer.weights
        if weights:
            group = f.create_group("optimizer_weights")
            group.attrs["weight_names"] = [w.name.encode("utf8") for w in weights]
            for weight, value in zip(weights, backend.batch_get_value(weights)):
                dataset = group.create_dataset(weight.name, value.shape, dtype=value.dtype)
                dataset[()] = value


def load_model(filepath, custom_objects=None, compile=True,  # noqa: A002 - Keras' name
               safe_mode=True):
    """The model in an HDF5 file, with its weights (compiled, with its optimizer state, if
    it was saved compiled and `compile`); `safe_mode` as in `model_from_config`."""
    # in-function: keras.models builds on the engine, whose Network imports this module
    from tfcompat.keras.models import model_from_config
    module = h5py()
    with module.File(filepath, "r") as f:
        config = f.attrs.get("model_config")
        if config is None:
            raise ValueError("No model found in config file %s (it holds weights only: "
                             "rebuild the model and use `load_weights`)." % (filepath,))
        model = model_from_config(json.loads(_text(config)), custom_objects, safe_mode)
        load_weights_from_hdf5_group(_member(f, "model_weights", "group"), model.layers)
        training = f.attrs.get("training_config")
        if not compile or training is None:
            return model
        saving_utils.compile_from_training_config(model, json.loads(_text(training)),
                                                  custom_objects)
        if "optimizer_weights" in f:
            group = f["optimizer_weights"]
            names = [_text(n) for n in _attribute(group, "weight_names")]
            _restore_optimizer_weights(model, names, [
                np.asarray(_member(group, n, "optimizer weight")) for n in names])
    return model


def _restore_optimizer_weights(model, names, values):
    """Create the optimizer's slots and assign the saved values (by weight name, else in
    order); a mismatch leaves a fresh optimizer, with Keras' warning."""
    optimizer = model.optimizer
    optimizer._create_slots(model.trainable_variables)
    weights = optimizer.weights
    by_name = {w.name: w for w in weights}
    if all(n in by_name for n in names) and len(names) == len(weights):
        pairs = [(by_name[n], v) for n, v in zip(names, values)]
    elif len(values) == len(weights):
        pairs = list(zip(weights, values))
    else:
        _logger.warning("Error in loading the saved optimizer state. As a result, your model "
                        "is starting with a freshly initialized optimizer.")
        return
    backend.batch_set_value(pairs)
