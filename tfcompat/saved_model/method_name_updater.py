"""`tf.compat.v1.saved_model.signature_def_utils.MethodNameUpdater` (TF's
`saved_model/method_name_updater.py`): change the method names of a SavedModel's
signatures."""
import os

from tfcompat._api import tf_export
from tfcompat.saved_model import constants, saved_model_proto


@tf_export(v1=["saved_model.signature_def_utils.MethodNameUpdater"])
class MethodNameUpdater(object):
    """Reads `export_dir`'s saved_model.pb; `replace_method_name` edits it, `save` writes it
    (to `new_export_dir`, or back in place; atomically)."""

    def __init__(self, export_dir):
        self._export_dir = export_dir
        self._saved_model = saved_model_proto.read(export_dir)

    def replace_method_name(self, signature_key, method_name, tags=None):
        """Set the method name of signature `signature_key` in the meta graphs tagged `tags`
        (all meta graphs when None)."""
        if not signature_key:
            raise ValueError("`signature_key` must be defined.")
        if not method_name:
            raise ValueError("`method_name` must be defined.")
        if tags is not None and not isinstance(tags, list):
            tags = [tags]
        found_match = False
        for meta_graph_def in self._saved_model.meta_graphs:
            if tags is None or set(tags) == set(meta_graph_def.meta_info_def.tags):
                if signature_key not in meta_graph_def.signature_def:
                    raise ValueError(
                        "MetaGraphDef associated with tags {} does not have a signature_def "
                        "with key: '{}'. This means either you specified the wrong signature "
                        "key or forgot to put the signature_def with the corresponding key in "
                        "your SavedModel.".format(tags, signature_key))
                meta_graph_def.signature_def[signature_key].method_name = method_name
                found_match = True
        if not found_match:
            raise ValueError(
                "MetaGraphDef associated with tags {} could not be found in SavedModel. This "
                "means either you specified invalid tags or your SavedModel does not have a "
                "MetaGraphDef with the specified tags.".format(tags))

    def save(self, new_export_dir=None):
        """Write the edited saved_model.pb (only that file, as TF does)."""
        directory = os.fspath(new_export_dir or self._export_dir)
        saved_model_proto.write(os.path.join(directory, constants.SAVED_MODEL_FILENAME_PB),
                                self._saved_model)
