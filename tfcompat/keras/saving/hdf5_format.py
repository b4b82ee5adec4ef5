"""Keras' HDF5 files (`.h5`, `.keras`, `.hdf5`): whole models and `save_weights` files, in
Keras 2's layout (needs h5py), so that files of real tf.keras 2 load here and ours load there.

A model file holds the attributes `keras_version`, `backend`, `model_config` and
`training_config` (JSON), a `model_weights` group and, with the optimizer, an
`optimizer_weights` group. `model_weights` (the root of a weights file) lists `layer_names`;
each layer's group lists its `weight_names` (trainable weights, then the others) and holds
them as datasets named by the weights' names; `top_level_model_weights` holds the model's own
weights. Name lists too long for one HDF5 attribute are split into `name0`, `name1`, ...
`optimizer_weights` holds the optimizer's `weights` (iterations, then each kind of slot for
all variables: Keras 2's order, which real Keras restores by position).

Files are written to a temporary file beside the target and renamed into place. A file that
is not HDF5, or is truncated or damaged, raises `tf.errors.DataLossError` naming it.
Where we differ: `.keras` files are HDF5 here too (TF 2.12+ writes its zip "Keras v3" format
for that suffix, which we do not read or write), and Keras 1 files are not converted.
"""
import contextlib
import json
import logging
import os

import numpy as np

from tfcompat.framework import errors
from tfcompat.keras import __version__ as keras_version
from tfcompat.keras import backend
from tfcompat.keras.saving import saving_utils
from tfcompat.train import checkpoint_format

_logger = logging.getLogger("tensorflow")
HDF5_SUFFIXES = (".h5", ".keras", ".hdf5")
# Keras' limit for one attribute (HDF5's object header is 64 KiB)
HDF5_OBJECT_HEADER_LIMIT = 64512


def h5py():
    # in-function: h5py is an optional dependency, loaded only for HDF5 files
    try:
        import h5py as module
    except ImportError:
        raise ImportError("Keras' HDF5 format (.h5/.keras/.hdf5 files) requires h5py: install "
                          "it with `pip install h5py`, or use the TensorFlow format (a path "
                          "without those suffixes, or save_format='tf').") from None
    return module


def _text(value):
    return value.decode("utf8") if isinstance(value, bytes) else str(value)


# ------------------------------------------------------------------ writing


def _write_name_list(group, name, names):
    """Keras' `save_attributes_to_hdf5_group`: the names as one attribute, or split into
    `name0`, `name1`, ... where one would pass HDF5's header limit."""
    encoded = [n.encode("utf8") for n in names]
    too_long = [n for n in encoded if len(n) > HDF5_OBJECT_HEADER_LIMIT]
    if too_long:
        raise RuntimeError("The following attributes cannot be saved to HDF5 file because "
                           "they are larger than %d bytes: %s" % (HDF5_OBJECT_HEADER_LIMIT,
                                                                  too_long))
    chunks = np.array_split(np.asarray(encoded), 1)
    while any(chunk.nbytes > HDF5_OBJECT_HEADER_LIMIT for chunk in chunks):
        chunks = np.array_split(np.asarray(encoded), len(chunks) + 1)
    if len(chunks) > 1:
        for index, chunk in enumerate(chunks):
            group.attrs["%s%d" % (name, index)] = chunk
    else:
        group.attrs[name] = encoded


def _write_weights(group, weights):
    names = [w.name for w in weights]
    _write_name_list(group, "weight_names", names)
    for name, value in zip(names, backend.batch_get_value(weights)):
        group.create_dataset(name, data=np.asarray(value))


def _top_level_weights(model):
    """The weights a model holds itself, not through its layers (Keras'
    `model._trainable_weights + model._non_trainable_weights`)."""
    own, attrs = model._own_weights()
    own = own + attrs
    return [w for w in own if w.trainable] + [w for w in own if not w.trainable]


def save_weights_to_hdf5_group(group, model):
    """Keras 2's `model_weights` layout of `model` in `group`."""
    _write_name_list(group, "layer_names", [layer.name for layer in model.layers])
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = keras_version.encode("utf8")
    for layer in sorted(model.layers, key=lambda layer: layer.name):
        _write_weights(group.create_group(layer.name), layer.weights)
    _write_weights(group.create_group("top_level_model_weights"), _top_level_weights(model))


@contextlib.contextmanager
def _writing(filepath):
    """An HDF5 file open for writing at a temporary path that replaces `filepath` when the
    block succeeds (a crash or error leaves the previous file)."""
    module = h5py()
    filepath = os.path.abspath(filepath)
    os.makedirs(os.path.dirname(filepath), exist_ok=True)
    with checkpoint_format.atomic_path(filepath) as tmp:
        # HDF5 1.8's object headers carry checksums: damaged metadata is then reported by
        # HDF5 instead of being parsed (HDF5 can crash on damaged version-1 headers)
        with module.File(tmp, "w", libver=("v108", "v108")) as f:
            yield f


def save_weights(model, filepath):
    with _writing(filepath) as f:
        save_weights_to_hdf5_group(f, model)


def save_model(model, filepath, include_optimizer=True):
    """Write the whole model (config, weights, training config, optimizer state)."""
    metadata = saving_utils.metadata(model, include_optimizer)
    assets = saving_utils.layer_assets(model)
    if assets:
        raise NotImplementedError(
            "Save or restore weights that is not an instance of tf.Variable is not supported "
            "in h5, use save_format='tf' instead. Received a model with layers that keep "
            "state outside variables (adapted vocabularies): %s" % ", ".join(sorted(assets)))
    with _writing(filepath) as f:
        f.attrs["keras_version"] = keras_version.encode("utf8")
        f.attrs["backend"] = b"tensorflow"
        f.attrs["model_config"] = json.dumps(
            metadata["model_config"], default=saving_utils.get_json_type).encode("utf8")
        save_weights_to_hdf5_group(f.create_group("model_weights"), model)
        if metadata["training_config"] is None:
            return
        f.attrs["training_config"] = json.dumps(
            metadata["training_config"], default=saving_utils.get_json_type).encode("utf8")
        weights = model.optimizer.weights
        if weights:
            _write_weights(f.create_group("optimizer_weights"), weights)


# ------------------------------------------------------------------ reading


def _damaged(group, what):
    return errors.DataLossError(None, None, "Unable to load the Keras HDF5 file %s: it has no "
                                "%s (the file is damaged or was not written by Keras)."
                                % (group.file.filename, what))


def _member(group, name, what):
    """`group[name]`, or DataLossError naming the file and what it lacks."""
    try:
        return group[name]
    except (KeyError, ValueError, TypeError):
        raise _damaged(group, "%s %r in %s" % (what, name, group.name)) from None


def _name_list(group, name):
    """Keras' `load_attributes_from_hdf5_group`: the names, joined from `name0`, ... if
    they were split."""
    if name in group.attrs:
        values = list(group.attrs[name])
    else:
        values, index = [], 0
        while "%s%d" % (name, index) in group.attrs:
            values += list(group.attrs["%s%d" % (name, index)])
            index += 1
        if not index:
            raise _damaged(group, "%r attribute on %s" % (name, group.name))
    return [_text(v) for v in values]


def _json_attribute(f, name):
    value = f.attrs.get(name)
    if value is None:
        return None
    try:
        return json.loads(_text(value))
    except ValueError:
        raise _damaged(f, "readable %r (it is not JSON)" % name) from None


def _read_weights(group):
    return [np.asarray(_member(group, w, "weight")) for w in _name_list(group, "weight_names")]


class _SavedWeights(object):
    """A `model_weights` group read into memory: layer names in order, each layer's weight
    values, and the model's own weights (None for files older than Keras 2.13)."""

    def __init__(self, group):
        version = group.attrs.get("keras_version")
        if version is not None and _text(version).startswith("1."):
            raise NotImplementedError(
                "%s was written by Keras %s: converting Keras 1 weights (Keras 2's "
                "preprocess_weights_for_loading) is not implemented by tfcompat."
                % (group.file.filename, _text(version)))
        self.layer_names = _name_list(group, "layer_names")
        self.layers = {name: _read_weights(_member(group, name, "weights of layer"))
                       for name in self.layer_names}
        self.top_level = _read_weights(group["top_level_model_weights"]) \
            if "top_level_model_weights" in group else None


@contextlib.contextmanager
def _reading(filepath):
    """The HDF5 file at `filepath` open for reading; NotFoundError if it does not exist,
    DataLossError naming it when h5py cannot read it (not HDF5, truncated, damaged);
    NotImplementedError for a Keras v3 file (a zip: TF 2.12+'s `model.save("x.keras")`)."""
    module = h5py()
    if not os.path.exists(filepath):
        raise errors.NotFoundError(None, None, "No such file: %s" % filepath)
    try:
        with open(filepath, "rb") as f:
            is_zip = f.read(4) == b"PK\x03\x04"
        if is_zip:
            raise NotImplementedError(
                "%s is a Keras v3 file (a zip archive, what TF 2.12+ writes for "
                "model.save('x.keras')): tfcompat reads Keras' HDF5 files only; save the model "
                "with model.save('x.h5') instead." % filepath)
        with module.File(filepath, "r") as f:
            yield f
    except NotImplementedError:     # a RuntimeError, but not damage
        raise
    except (OSError, RuntimeError, KeyError, UnicodeDecodeError) as error:
        raise errors.DataLossError(None, None, "Unable to read the Keras HDF5 file %s: it is "
                                   "not an HDF5 file, or it is truncated or damaged (%s: %s)."
                                   % (filepath, type(error).__name__, error)) from None


def _shape(weight):
    return tuple(weight.shape.as_list())


def _check_count(layer, index, weights, values, skip_mismatch, by_name, saved_name):
    """Whether the counts agree; Keras' ValueError, or its warning when skipping."""
    if len(weights) == len(values):
        return True
    where = "layer #%d (named %s)" % (index, layer.name) if by_name else \
        "layer #%d (named %s in the current model, %s in the save file)" % (
            index, layer.name, saved_name)
    counts = "Layer expects %d weight(s). Received %d saved weight(s)" % (len(weights),
                                                                          len(values))
    if skip_mismatch:
        _logger.warning("Skipping loading of weights for %s due to mismatch in number of "
                        "weights. %s", where, counts)
        return False
    raise ValueError("Weight count mismatch for %s. %s" % (where, counts))


def _matching_pairs(where, weights, values, skip_mismatch):
    """(weight, value) pairs of equal shapes; Keras' ValueError for another shape, or its
    warning when skipping."""
    pairs = []
    for weight, value in zip(weights, values):
        if _shape(weight) == value.shape:
            pairs.append((weight, value))
            continue
        message = "for weight %s. Weight expects shape %s. Received saved weight with shape " \
                  "%s" % (weight.name, _shape(weight), value.shape)
        if not skip_mismatch:
            raise ValueError("Shape mismatch in %s %s" % (where, message))
        _logger.warning("Skipping loading weights for %s due to mismatch in shape %s",
                        where, message)
    return pairs


def _top_level_pairs(model, saved, skip_mismatch):
    if saved.top_level is None:
        return []
    weights = _top_level_weights(model)
    if len(weights) != len(saved.top_level):
        counts = "Model expects %d top-level weight(s). Received %d saved top-level " \
                 "weight(s)" % (len(weights), len(saved.top_level))
        if not skip_mismatch:
            raise ValueError("Weight count mismatch for top-level weights of model. " + counts)
        _logger.warning("Skipping loading top-level weights for model due to mismatch in "
                        "number of weights. %s", counts)
        return []
    return _matching_pairs("model for top-level weights", weights, saved.top_level,
                           skip_mismatch)


def _pairs_in_order(model, saved):
    """Keras' topological loading: the saved layers that have weights, in order, onto the
    model's layers that have weights."""
    layers = [layer for layer in model.layers if layer.weights]
    names = [name for name in saved.layer_names if saved.layers[name]]
    if len(names) != len(layers):
        raise ValueError("Layer count mismatch when loading weights from file. Model expected "
                         "%d layers, found %d saved layers." % (len(layers), len(names)))
    pairs = []
    for index, (layer, name) in enumerate(zip(layers, names)):
        _check_count(layer, index, layer.weights, saved.layers[name], False, False, name)
        pairs += _matching_pairs("layer #%d (named %s)" % (index, layer.name), layer.weights,
                                 saved.layers[name], False)
    return pairs + _top_level_pairs(model, saved, False)


def _pairs_by_name(model, saved, skip_mismatch):
    """Keras' loading by name: each saved layer onto the model's layers of that name; other
    layers keep their weights."""
    layers_named = {}
    for layer in model.layers:
        layers_named.setdefault(layer.name, []).append(layer)
    pairs = []
    for index, name in enumerate(saved.layer_names):
        values = saved.layers[name]
        for layer in layers_named.get(name, []):
            if _check_count(layer, index, layer.weights, values, skip_mismatch, True, name):
                pairs += _matching_pairs("layer #%d (named %s)" % (index, layer.name),
                                         layer.weights, values, skip_mismatch)
    return pairs + _top_level_pairs(model, saved, skip_mismatch)


def _assign_weights(model, saved, by_name=False, skip_mismatch=False):
    pairs = _pairs_by_name(model, saved, skip_mismatch) if by_name else \
        _pairs_in_order(model, saved)
    backend.batch_set_value(pairs)


def load_weights(model, filepath, by_name=False, skip_mismatch=False):
    """Keras 2's `load_weights` of an HDF5 file (a weights file, or a model file's
    `model_weights`): by layer order, or `by_name` (with `skip_mismatch`, layers whose
    weight count or shapes differ are skipped with a warning)."""
    with _reading(filepath) as f:
        group = f
        if "layer_names" not in f.attrs and "model_weights" in f:
            group = f["model_weights"]
        saved = _SavedWeights(group)
    _assign_weights(model, saved, by_name, skip_mismatch)


def load_model(filepath, custom_objects=None, compile=True,  # noqa: A002 - Keras' name
               safe_mode=True):
    """The model in an HDF5 file, with its weights (compiled, with its optimizer state, if
    it was saved compiled and `compile`); `safe_mode` as in `model_from_config`."""
    # in-function: keras.models builds on the engine, whose Network imports this module
    from tfcompat.keras.models import model_from_config
    with _reading(filepath) as f:
        config = _json_attribute(f, "model_config")
        if config is None:
            raise ValueError("No model config found in the file at %s (it holds weights "
                             "only: rebuild the model and use `load_weights`)." % (filepath,))
        saved = _SavedWeights(_member(f, "model_weights", "group"))
        training = _json_attribute(f, "training_config") if compile else None
        optimizer_names = optimizer_values = None
        if training is not None and "optimizer_weights" in f:
            group = f["optimizer_weights"]
            optimizer_names = _name_list(group, "weight_names")
            optimizer_values = [np.asarray(_member(group, n, "optimizer weight"))
                                for n in optimizer_names]
    model = model_from_config(config, custom_objects, safe_mode)
    _assign_weights(model, saved)
    if training is None:
        return model
    saving_utils.compile_from_training_config(model, training, custom_objects)
    if optimizer_names is not None:
        _restore_optimizer_weights(model, optimizer_names, optimizer_values)
    return model


def _tf211_layout(optimizer):
    """The optimizer's weights where a TF 2.11+ optimizer keeps them (`variables`:
    iteration, then the slots in its build order), or None where that layout is unknown."""
    if optimizer._tf211_slot_groups() is None:
        return None
    order = optimizer._slot_order
    layout = {0: optimizer.iterations}
    for position, var in enumerate(order):
        for slot_name, slot in optimizer._slots[id(var)].items():
            layout[optimizer._tf211_index(order, position, slot_name)] = slot
    return [layout.get(index) for index in range(len(layout))]


def _restore_optimizer_weights(model, names, values):
    """Create the optimizer's slots and assign the saved values: by the weights' names
    (Keras 2's, as we write them), else by position in Keras 2's order, or in TF 2.11+'s
    order for files of those optimizers (first weight `iteration:0`). Values that do not
    fit leave a fresh optimizer, with Keras' warning."""
    optimizer = model.optimizer
    optimizer._create_slots(model.trainable_variables)
    weights = optimizer.weights
    by_name = {w.name: w for w in weights}
    if len(names) == len(weights) and all(n in by_name for n in names):
        weights = [by_name[n] for n in names]
    elif names and names[0] == "iteration:0":
        weights = _tf211_layout(optimizer) or weights
    if len(weights) != len(values) or any(
            w is None or _shape(w) != v.shape for w, v in zip(weights, values)):
        _logger.warning("Error in loading the saved optimizer state. As a result, your model "
                        "is starting with a freshly initialized optimizer.")
        return
    backend.batch_set_value(list(zip(weights, values)))
