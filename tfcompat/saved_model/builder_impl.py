"""`tf.compat.v1.saved_model.Builder` (TF's `saved_model/builder_impl.py`): TF1 graphs
saved as a SavedModel directory.

`saved_model.pb` holds TF's SavedModel proto with one MetaGraphDef per tag set (the graph as
`tf.train.export_meta_graph` writes it, with the signatures); `variables/variables*` the
variables' values (a Saver checkpoint in our format, keyed by TF names). The values are read
when `add_meta_graph_and_variables` is called, as TF saves them then; `save()` writes the
whole directory at once and atomically (a crash leaves no half-written export_dir). Each
signature of the first meta graph is also written as `tfcompat/signatures/<key>.pt2`, a
torch.export program plain PyTorch serves (docs/saved_model.md); a signature torch.export
cannot export is left out of those, with a warning.
"""
import logging
import os

import torch
from google.protobuf import text_format

from tfcompat._api import tf_export
from tfcompat.framework import context
from tfcompat.framework.graph import Operation, get_default_graph
from tfcompat.saved_model import constants, programs, saved_model_proto
from tfcompat.train import checkpoint_format
from tfcompat.train.saver import Saver

_logger = logging.getLogger("tensorflow")
SIGNATURES_DIRECTORY = os.path.join(constants.TFCOMPAT_DIRECTORY, "signatures")

_RESERVED_SIGNATURE_KEYS = (constants.INIT_OP_SIGNATURE_KEY,
                            constants.TRAIN_OP_SIGNATURE_KEY)


def _validate_signature_def_map(signature_def_map):
    for key, signature_def in (signature_def_map or {}).items():
        if key in _RESERVED_SIGNATURE_KEYS:
            raise KeyError("SignatureDef map key \"%s\" is reserved for initialization. "
                           "Please use a different key." % key)
        for info in list(signature_def.inputs.values()) + list(signature_def.outputs.values()):
            if info.WhichOneof("encoding") is None:
                raise AssertionError("All TensorInfo protos used in the SignatureDefs must "
                                     "have the name and dtype fields set.")


def _add_main_op(main_op):
    """Put `main_op` (run by the loader after restoring) in TF's main-op collection."""
    if main_op is None:
        return
    if not isinstance(main_op, Operation):
        raise TypeError("Expected {} to be an Operation but got type {} instead.".format(
            main_op, type(main_op)))
    graph = get_default_graph()
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if graph.get_collection(key):
            raise ValueError("Graph already contains one or more main ops under the "
                             "collection {}.".format(key))
    graph.add_to_collection(constants.MAIN_OP_KEY, main_op)


def _serving_programs(sess, signature_def_map):
    """{key: torch.export program} of the signatures whose tensors can be exported."""
    graph = sess.graph
    result = {}
    for key, signature in sorted(signature_def_map.items()):
        what = "the signature %r" % key
        try:
            inputs = [(name, graph.get_tensor_by_name(info.name))
                      for name, info in sorted(signature.inputs.items())]
            outputs = [(name, graph.get_tensor_by_name(info.name))
                       for name, info in sorted(signature.outputs.items())]
            module, specs, values = programs.graph_signature(graph, sess, inputs, outputs)
            result[key] = programs.serving_program(
                module, specs, values, [name for name, _ in outputs],
                list(range(len(outputs))), what)
        except (programs.ProgramExportError, KeyError, ValueError, TypeError) as error:
            _logger.warning("SavedModelBuilder: %s is not written as a torch.export program "
                            "(tfcompat export cannot serve it): %s", what, error)
    return result


@tf_export(v1=["saved_model.Builder", "saved_model.builder.SavedModelBuilder"])
class SavedModelBuilder(object):
    """TF1's SavedModel builder: `add_meta_graph_and_variables` once, `add_meta_graph` for
    more tag sets of the same variables, then `save()`."""

    def __init__(self, export_dir):
        self._export_dir = os.fspath(export_dir)
        if isinstance(self._export_dir, bytes):
            self._export_dir = self._export_dir.decode("utf-8")
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError(
                    "Export directory %s already exists, and isn't empty. Please choose a "
                    "different export directory, or delete all the contents of the specified "
                    "directory." % self._export_dir)
        else:
            os.makedirs(self._export_dir)
        self._saved_model = saved_model_proto.SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._variable_values = None
        self._serving_programs = {}     # signature key -> torch.export program

    def _check_graph_mode(self):
        if not context.state.building_graph:
            raise RuntimeError("The SavedModelBuilder saves TF1 graphs; build the model in a "
                               "tf.Graph (or use tf.saved_model.save in eager mode).")

    def _add_meta_graph(self, saver, tags, signature_def_map, main_op, clear_devices,
                        assets_collection):
        if assets_collection:
            raise NotImplementedError("SavedModelBuilder: assets_collection (asset files) is "
                                      "not implemented by tfcompat")
        _validate_signature_def_map(signature_def_map)
        _add_main_op(main_op)
        meta = saver.export_meta_graph(clear_devices=clear_devices)
        meta.meta_info_def.tags.extend(tags)
        for key, signature_def in (signature_def_map or {}).items():
            meta.signature_def[key].CopyFrom(signature_def)
        self._saved_model.meta_graphs.add().CopyFrom(meta)

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None,
                       legacy_init_op=None, clear_devices=False, main_op=None,
                       strip_default_attrs=False, saver=None):
        """Add the default graph as another meta graph (tags `tags`), sharing the variables
        `add_meta_graph_and_variables` saved."""
        if self._variable_values is None:
            raise AssertionError("Graph state including variables and assets has not been "
                                 "saved yet. Please invoke `add_meta_graph_and_variables()` "
                                 "first.")
        self._check_graph_mode()
        saver = saver or Saver(sharded=True, allow_empty=True)
        self._add_meta_graph(saver, tags, signature_def_map,
                             main_op if main_op is not None else legacy_init_op,
                             clear_devices, assets_collection)

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None,
                                     assets_collection=None, legacy_init_op=None,
                                     clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None):
        """Add `sess.graph` as the first meta graph (tags `tags`, signatures
        `signature_def_map`, `main_op`/`legacy_init_op` run after loading) and keep the
        values its variables have in `sess` (written by `save()`)."""
        if self._variable_values is not None:
            raise AssertionError("Graph state including variables and assets has already "
                                 "been saved. Please invoke `add_meta_graph()` instead.")
        with sess.graph.as_default():
            self._check_graph_mode()
            saver = saver or Saver(sharded=True, allow_empty=True)
            values = saver.values_to_save(sess)
            self._add_meta_graph(saver, tags, signature_def_map,
                                 main_op if main_op is not None else legacy_init_op,
                                 clear_devices, assets_collection)
            self._serving_programs = _serving_programs(sess, signature_def_map or {})
        self._variable_values = values

    def save(self, as_text=False):
        """Write the SavedModel directory (atomically); returns the path of its proto."""
        filename = constants.SAVED_MODEL_FILENAME_PBTXT if as_text \
            else constants.SAVED_MODEL_FILENAME_PB
        with checkpoint_format.atomic_directory(self._export_dir) as directory:
            variables_dir = os.path.join(directory, constants.VARIABLES_DIRECTORY)
            os.makedirs(variables_dir)
            if self._variable_values:
                checkpoint_format.write(
                    os.path.join(variables_dir, constants.VARIABLES_FILENAME),
                    self._variable_values)
            if self._serving_programs:
                os.makedirs(os.path.join(directory, SIGNATURES_DIRECTORY))
            for key, program in self._serving_programs.items():
                torch.export.save(program, os.path.join(directory, SIGNATURES_DIRECTORY,
                                                        key + ".pt2"))
            path = os.path.join(directory, filename)
            if as_text:
                checkpoint_format.write_text_atomic(
                    path, text_format.MessageToString(self._saved_model))
            else:
                saved_model_proto.write(path, self._saved_model)
        return os.path.join(self._export_dir, filename)
