"""Keras' SavedModel directory: what `model.save(path)` writes for a path without an HDF5
suffix (TF 2's format), and the model-rooted checkpoints of `save_weights`.

As TF 2 writes it, the directory is a SavedModel (tfcompat/saved_model/save_impl.py) whose root is
the model: `variables/variables` is a checkpoint with TF's keys
(`layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`, `optimizer/iter/...`, so
`model.load_weights("<dir>/variables/variables")` also works), the model's call traced with
`training=False` is the root's `__call__` (`tf.saved_model.load(path)(x)`), and
`serving_default` takes the inputs by input-layer name and returns the outputs by
output-layer name. Where we differ: in place of TF's `keras_metadata.pb` the directory
holds `keras_model.json` (the model's `to_json()` config, its training config as TF's HDF5
files store it, and the Keras version), which `load_model` rebuilds the model from (custom
classes through `custom_objects`; a subclassed model with `get_config` gets its weights
when first called). A model whose call torch.export cannot export (string inputs, shapes
that depend on values) or whose input shapes are unknown (a subclassed model) is saved
without traced functions, with a warning: `load_model` still works.

A directory real Keras 2 wrote (`keras_metadata.pb`: TF's `SavedMetadata` proto, the
model's config in its root node's JSON metadata) loads too: the model is rebuilt from that
config with tfcompat's Keras (classes resolve through the registry and `custom_objects`,
never from the file) and its weights restored from the checkpoint by TF's keys.
"""
import json
import logging
import os

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from tfcompat.framework import context, errors
from tfcompat.function import TensorSpec, function
from tfcompat.keras.saving import saving_utils
from tfcompat.saved_model import programs
from tfcompat.saved_model import save_impl
from tfcompat.trackable import tracking
from tfcompat.train import checkpoint_format
from tfcompat.train.checkpoint import _Status
from tfcompat.keras import backend

_state = context.state
_logger = logging.getLogger("tensorflow")
METADATA_FILENAME = "keras_model.json"
KERAS_METADATA_FILENAME = "keras_metadata.pb"       # what real Keras 2 writes
FORMAT = "tfcompat-keras-model"
VARIABLES_PREFIX = os.path.join("variables", "variables")
ASSETS_DIRECTORY = os.path.join("assets", "keras")       # layers' assets (vocabularies)


class _WithoutOptimizer(object):
    """Checkpoint root standing for a model minus its optimizer (`include_optimizer=False`)."""

    def __init__(self, model):
        self.model = model

    def _checkpoint_dependencies(self):
        return [(name, value) for name, value in tracking.dependencies(self.model)
                if value is not getattr(self.model, "optimizer", None)]

    def _list_functions_for_serialization(self):
        return self.model._list_functions_for_serialization()

    @property
    def _default_save_signature(self):
        return self.model._default_save_signature


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


def _layer_name(tensor):
    """The name of the layer that made a model's input or output tensor (Keras' key for it)."""
    history = getattr(tensor, "_keras_history", None)
    return history[0].name if history else tensor.name.split(":")[0].split("/")[0]


def traced_functions(model):
    """(call, serving) tf.functions of the model for its inputs, or (None, None) when its
    input shapes are unknown: `call(inputs, training=False)` as Keras restores `__call__`,
    `serving(inputs)` returning {output-layer name: tensor}."""
    inputs = getattr(model, "inputs", None)
    if not inputs or _state.building_graph:
        return None, None
    specs = [TensorSpec(t.shape, t.dtype, name=_layer_name(t)) for t in inputs]
    spec = specs[0] if len(specs) == 1 else list(specs)
    output_names = getattr(model, "output_names", None) or \
        [_layer_name(t) for t in model.outputs]

    def call(inputs, training=False):
        return model(inputs, training=training)

    def serving(inputs):
        outputs = model(inputs, training=False)
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        return dict(zip(output_names, outputs))

    call_function = function(call)
    call_function.get_concrete_function(spec, False)
    return call_function, function(serving, input_signature=[spec])


def _metadata_text(metadata):
    return json.dumps(dict(metadata, format=FORMAT), default=saving_utils.get_json_type,
                      indent=1)


def _metadata_files(model, metadata):
    """{relative path: text}: the metadata file and the layers' assets (adapted
    vocabularies), each layer's under `assets/keras/<index>/`, listed in the metadata."""
    files, paths = {}, {}
    for index, (layer_path, assets) in enumerate(sorted(saving_utils.layer_assets(model)
                                                        .items())):
        paths[layer_path] = str(index)
        for name, text in assets.items():
            files[os.path.join(ASSETS_DIRECTORY, str(index), name)] = text
    files[METADATA_FILENAME] = _metadata_text(dict(metadata, layer_assets=paths))
    return files


def extra_files(model):
    """The files `tf.saved_model.save` of a Keras model adds (metadata, layer assets), so
    that `load_model` reads the directory too (none for a model without a config)."""
    try:
        return _metadata_files(model, saving_utils.metadata(model, True))
    except NotImplementedError:
        return {}


def saved_functions(model):
    """(call, serving) of `traced_functions`, or (None, None) with a warning when the model
    cannot be traced: TF's Keras lists `__call__` and `_default_save_signature` from them."""
    try:
        return traced_functions(model)
    except (errors.OpError, TypeError, ValueError, NotImplementedError) as error:
        _without_traces(model, error)
        return None, None


def save(model, path, include_optimizer=True, signatures=None, options=None,
         save_traces=True):
    """Write the model's SavedModel directory at `path` (see the module docstring)."""
    metadata = saving_utils.metadata(model, include_optimizer)
    root = model if include_optimizer and metadata["training_config"] is not None \
        else _WithoutOptimizer(model)
    extra_files = _metadata_files(model, metadata)
    if save_traces:
        try:
            save_impl.save_object(root, path, signatures, options, extra_files=extra_files,
                                  session=_session())
            return
        except programs.ProgramExportError as error:
            _without_traces(model, error)
    save_impl.save_object(root, path, signatures, options, extra_files=extra_files,
                          session=_session(), save_traces=False)


def _without_traces(model, error):
    """Warn that the model is saved without its traced call (as with Keras'
    `save_traces=False`): tracing or exporting it failed with `error`."""
    _logger.warning("Model %s is saved without its traced call (tf.saved_model.load of it "
                    "will not be callable; load_model works): %s", model.name, error)


def _define_saved_metadata():
    """Keras 2's `keras/protobuf/saved_metadata.proto` (`SavedMetadata` of `SavedObject`s;
    the objects' version field is left out)."""
    pool = descriptor_pool.Default()
    try:
        return message_factory.GetMessageClass(
            pool.FindMessageTypeByName("tfcompat_keras.SavedMetadata"))
    except KeyError:
        pass
    file_proto = descriptor_pb2.FileDescriptorProto(
        name="tfcompat/keras/saved_metadata.proto", package="tfcompat_keras", syntax="proto3")
    field = descriptor_pb2.FieldDescriptorProto
    saved_object = file_proto.message_type.add(name="SavedObject")
    saved_object.field.add(name="node_id", number=2, type=field.TYPE_INT32,
                           label=field.LABEL_OPTIONAL)
    for name, number in (("node_path", 3), ("identifier", 4), ("metadata", 5)):
        saved_object.field.add(name=name, number=number, type=field.TYPE_STRING,
                               label=field.LABEL_OPTIONAL)
    metadata = file_proto.message_type.add(name="SavedMetadata")
    metadata.field.add(name="nodes", number=1, type=field.TYPE_MESSAGE,
                       label=field.LABEL_REPEATED, type_name=".tfcompat_keras.SavedObject")
    pool.Add(file_proto)
    return message_factory.GetMessageClass(
        pool.FindMessageTypeByName("tfcompat_keras.SavedMetadata"))


def is_keras_saved_model(path):
    """Whether `path` is a SavedModel directory written by real Keras 2."""
    return os.path.isfile(os.path.join(path, KERAS_METADATA_FILENAME))


def _decoded(value):
    """Keras' JSON metadata as plain configs (TF's `json_utils.decode`): `__tuple__` and
    `TensorShape` objects become tuples, `shared_object_id` bookkeeping is dropped."""
    if isinstance(value, list):
        return [_decoded(item) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get("class_name") in ("__tuple__", "TensorShape") and "items" in value:
        return tuple(_decoded(item) for item in value["items"])
    return {key: _decoded(item) for key, item in value.items() if key != "shared_object_id"}


def _keras_root_metadata(path):
    """The decoded JSON metadata of the model (the root object) in keras_metadata.pb."""
    filename = os.path.join(path, KERAS_METADATA_FILENAME)
    with open(filename, "rb") as f:
        data = f.read()
    try:
        proto = _define_saved_metadata().FromString(data)
    except Exception as error:      # noqa: BLE001 - protobuf's DecodeError and friends
        raise errors.DataLossError(None, None, "%s does not parse (%s)" % (filename, error))
    roots = [node for node in proto.nodes if node.node_path == "root"]
    if not roots:
        raise errors.DataLossError(None, None, "%s describes no root object" % filename)
    try:
        return _decoded(json.loads(roots[0].metadata))
    except ValueError as error:
        raise errors.DataLossError(None, None, "%s: the model's metadata is not JSON (%s)"
                                   % (filename, error))


def load(path, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
    """The model saved in directory `path`, with its weights (and, if `compile`, compiled
    with its optimizer state); `safe_mode` as in `model_from_config`."""
    # in-function: keras.models builds on the engine, whose Network imports this module
    from tfcompat.keras.models import model_from_config
    if is_keras_saved_model(path) and not is_model_directory(path):
        metadata = _keras_root_metadata(path)
        if "model_config" not in metadata:
            raise NotImplementedError(
                "%s holds a Keras %s saved without a config (a subclassed model without "
                "get_config): tfcompat rebuilds Keras models from their config only"
                % (path, metadata.get("class_name", "object")))
    else:
        with open(os.path.join(path, METADATA_FILENAME)) as f:
            metadata = json.load(f)
        if metadata.get("format") != FORMAT:
            raise ValueError("%s is not a model directory written by tfcompat" % path)
    model = model_from_config(metadata.get("model_config"), custom_objects, safe_mode)
    training = metadata.get("training_config")
    if compile and training is not None:
        saving_utils.compile_from_training_config(model, training, custom_objects)
    restore_checkpoint(model, os.path.join(path, VARIABLES_PREFIX))
    saving_utils.load_layer_assets(model, os.path.join(path, ASSETS_DIRECTORY),
                                   metadata.get("layer_assets") or {})
    return model
