"""`tf.keras.models.save_model` / `load_model` (`Model.save`): HDF5 files or tfcompat's model
directory (saving/saved_model.py, in place of TF's SavedModel)."""
import os

from tfcompat import _api
from tfcompat._api import tf_export
from tfcompat.keras.saving import hdf5_format, saved_model
from tfcompat.saved_model import load_impl
from tfcompat.keras.utils.generic_utils import CustomObjectScope


def _save_format(filepath, save_format):
    """"h5" or "tf": TF's rule (the suffix, else "tf" in TF 2 and "h5" in TF 1.x). Where we
    differ: a TF 1.x script without h5py gets the model directory rather than an error."""
    if save_format is not None:
        save_format = str(save_format).lower().strip()
        if save_format in ("hdf5", "keras"):
            save_format = "h5"
        if save_format not in ("h5", "tf"):
            raise ValueError("Unknown format \"%s\". Was expecting one of {\"tf\", \"h5\"}."
                             % save_format)
        if save_format == "tf" and filepath.endswith(hdf5_format.HDF5_SUFFIXES):
            raise ValueError("Saving a model with save_format='tf' to a path ending in %s is "
                             "ambiguous: drop the suffix or use save_format='h5'."
                             % os.path.splitext(filepath)[1])
        return save_format
    if filepath.endswith(hdf5_format.HDF5_SUFFIXES):
        return "h5"
    if _api.flavor() == "v1":
        try:
            hdf5_format.h5py()
            return "h5"
        except ImportError:
            return "tf"
    return "tf"


def _proceed_with_overwrite(filepath):
    """Keras' prompt before replacing an existing file when `overwrite=False`."""
    while True:
        answer = input("[WARNING] %s already exists - overwrite? [y/n]" % filepath)
        if answer.strip().lower() in ("y", "n"):
            break
        print("[TIP] Next time specify overwrite=True!")
    return answer.strip().lower() == "y"


@tf_export("keras.models.save_model", "keras.saving.save_model")
def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None,
               signatures=None, options=None, save_traces=True):
    """Save the model's architecture, weights and training configuration (optimizer state
    included unless `include_optimizer=False`): an HDF5 file (`.h5`/`.keras`/`.hdf5` or
    `save_format="h5"`, needs h5py), else a SavedModel directory (saving/saved_model.py;
    `signatures` and `options` as tf.saved_model.save takes them).
    Subclassed models without `get_config` raise NotImplementedError (use `save_weights`)."""
    filepath = os.fspath(filepath)
    save_format = _save_format(filepath, save_format)
    if not overwrite and os.path.exists(filepath) and not _proceed_with_overwrite(filepath):
        return
    if save_format == "h5":
        hdf5_format.save_model(model, filepath, include_optimizer)
    else:
        saved_model.save(model, filepath, include_optimizer, signatures, options, save_traces)


@tf_export("keras.models.load_model", "keras.saving.load_model")
def load_model(filepath, custom_objects=None, compile=True, options=None,  # noqa: A002
               safe_mode=True):
    """The model saved by `save_model` (HDF5 file or model directory), with its weights;
    compiled as it was saved (with its optimizer state) when `compile`. Custom layers,
    losses and metrics come from `custom_objects` or an enclosing `custom_object_scope`.
    `safe_mode=False` allows Lambda layers stored as bytecode (it runs code from the file)."""
    filepath = os.fspath(filepath)
    with CustomObjectScope(custom_objects or {}):
        if os.path.isdir(filepath):
            if saved_model.is_model_directory(filepath) or \
                    saved_model.is_keras_saved_model(filepath):
                return saved_model.load(filepath, custom_objects, compile, safe_mode)
            if load_impl.is_tf2_saved_model(filepath):
                raise ValueError("%s is a SavedModel of an object that is not a Keras model "
                                 "(written by tf.saved_model.save): load it with "
                                 "tf.saved_model.load." % filepath)
            if os.path.exists(os.path.join(filepath, "saved_model.pb")):
                raise NotImplementedError(
                    "%s is a SavedModel without Keras metadata (keras_metadata.pb): "
                    "tfcompat's load_model rebuilds Keras models from it only. Load it with "
                    "tf.saved_model.load, or rebuild the model in code and load its weights "
                    "with model.load_weights(%r)." % (filepath, os.path.join(
                        filepath, saved_model.VARIABLES_PREFIX)))
        elif os.path.isfile(filepath):
            return hdf5_format.load_model(filepath, custom_objects, compile, safe_mode)
    raise IOError("No file or directory found at %s" % filepath)
