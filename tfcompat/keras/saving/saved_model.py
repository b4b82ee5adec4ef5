"""tfcompat's whole-model directory: what `model.save(path)` writes for a path without an
HDF5 suffix (TF 2's SavedModel format), and the model-rooted checkpoints of `save_weights`.

TF 2 writes a SavedModel directory: `saved_model.pb` (traced graphs), `variables/` (a
checkpoint of the model's object graph) and `assets/`. tfcompat cannot write or run TF
graphs, so where we differ: the directory holds `keras_model.json` instead of
`saved_model.pb`, with the model's config (the `to_json()` format), its training config
(compile arguments and optimizer config, as TF's HDF5 files store them) and the Keras
version. `variables/variables` is a checkpoint with the model as its root and TF's keys
(`layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`, `optimizer/iter/...`), so
`model.load_weights("<dir>/variables/variables")` also works. Loading needs the model's
classes (custom ones through `custom_objects`); a subclassed model with `get_config` gets its
weights when it is first called (deferred restoration).
"""
import json
import os

from tfcompat.framework import context
from tfcompat.keras.saving import saving_utils
from tfcompat.trackable import tracking
from tfcompat.train import checkpoint_format
from tfcompat.train.checkpoint import _Status
from tfcompat.keras import backend

_state = context.state
METADATA_FILENAME = "keras_model.json"
FORMAT = "tfcompat-keras-model"
VARIABLES_PREFIX = os.path.join("variables", "variables")


class _WithoutOptimizer(object):
    """Checkpoint root standing for a model minus its optimizer (`include_optimizer=False`)."""

    def __init__(self, model):
        self.model = model

    def _checkpoint_dependencies(self):
        return [(name, value) for name, value in tracking.dependencies(self.model)
                if value is not getattr(self.model, "optimizer", None)]


def _session():
    if not _state.building_graph:
        return None
    return backend.get_session()


def write_checkpoint(model, prefix, include_optimizer=True):
    """Write the model's object graph (the model as root, as TF's `save_weights`) at
    `prefix`."""
    session = _session()
    graph = tracking.ObjectGraph(model if include_optimizer else _WithoutOptimizer(model))
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    checkpoint_format.write(prefix, {key: tracking.read_variable(var, session)
                                     for key, var in graph.keys.items()},
                            object_graph=graph.proto)


def restore_checkpoint(model, prefix):
    """Restore a model-rooted checkpoint (ours or TF's) into `model`; values for weights
    not created yet are restored when they are. Returns the restore status."""
    reader = checkpoint_format.open_reader(os.fspath(prefix))
    proto = reader.object_graph()
    if proto is None:
        raise ValueError("%s is a name-based (TF1 Saver) checkpoint; Keras' load_weights "
                         "reads object-based checkpoints (written by save_weights or "
                         "tf.train.Checkpoint). Restore it with tf.compat.v1.train.Saver."
                         % (prefix,))
    session = _session()
    restoration = tracking.Restoration(reader, proto, model, session=session,
                                       graph_mode=session is not None)
    return _Status(model, restoration, reader)


def is_model_directory(path):
    return os.path.isfile(os.path.join(path, METADATA_FILENAME))


def save(model, path, include_optimizer=True):
    """Write the model directory at `path` (see the module docstring)."""
    metadata = saving_utils.metadata(model, include_optimizer)
    metadata["format"] = FORMAT
    os.makedirs(os.path.join(path, "assets"), exist_ok=True)
    write_checkpoint(model, os.path.join(path, VARIABLES_PREFIX),
                     include_optimizer and metadata["training_config"] is not None)
    text = json.dumps(metadata, default=saving_utils.get_json_type, indent=1)
    checkpoint_format.write_text_atomic(os.path.join(path, METADATA_FILENAME), text)


def load(path, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
    """The model saved in directory `path`, with its weights (and, if `compile`, compiled
    with its optimizer state); `safe_mode` as in `model_from_config`."""
    # in-function: keras.models builds on the engine, whose Network imports this module
    from tfcompat.keras.models import model_from_config
    with open(os.path.join(path, METADATA_FILENAME)) as f:
        metadata = json.load(f)
    if metadata.get("format") != FORMAT:
        raise ValueError("%s is not a model directory written by tfcompat" % path)
    model = model_from_config(metadata.get("model_config"), custom_objects, safe_mode)
    training = metadata.get("training_config")
    if compile and training is not None:
        saving_utils.compile_from_training_config(model, training, custom_objects)
    restore_checkpoint(model, os.path.join(path, VARIABLES_PREFIX))
    return model
