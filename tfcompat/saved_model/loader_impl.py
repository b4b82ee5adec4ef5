"""`tf.compat.v1.saved_model.loader` (TF's `saved_model/loader_impl.py`): a TF1 SavedModel
written by tfcompat or by real TensorFlow loaded into a Session's graph.

The meta graph whose tags match is imported (`tf.train.import_meta_graph`'s importer: a real
TF graph's nodes become tf.raw_ops, its variables tfcompat Variables), its variables restored
from `variables/variables`, and its main op (or legacy init op) run.
"""
import os

from tfcompat._api import tf_export
from tfcompat.framework import errors
from tfcompat.saved_model import constants, saved_model_proto
from tfcompat.train import checkpoint_format
from tfcompat.train.saver import import_meta_graph_into, saver_for_imported


@tf_export(v1=["saved_model.maybe_saved_model_directory",
               "saved_model.loader.maybe_saved_model_directory"])
def maybe_saved_model_directory(export_dir):
    """Whether `export_dir` holds a `saved_model.pb` or `saved_model.pbtxt`."""
    export_dir = os.fspath(export_dir)
    if isinstance(export_dir, bytes):
        export_dir = export_dir.decode("utf-8")
    return any(os.path.isfile(os.path.join(export_dir, name)) for name in (
        constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT))


@tf_export("saved_model.contains_saved_model")
def contains_saved_model(export_dir):
    """TF's `contains_saved_model`: whether `export_dir` (a path or PathLike) looks like a
    SavedModel directory."""
    return maybe_saved_model_directory(export_dir)


def _meta_graph_for(saved_model, tags, export_dir):
    wanted = set(tags)
    for meta in saved_model.meta_graphs:
        if set(meta.meta_info_def.tags) == wanted:
            return meta
    available = [set(meta.meta_info_def.tags) for meta in saved_model.meta_graphs]
    raise RuntimeError(
        "MetaGraphDef associated with tags " + str(tags).strip("[]") + " could not be "
        "found in SavedModel, with available tags '" + str(available) + "'. To inspect "
        "available tag-sets in the SavedModel, please use the SavedModel CLI: "
        "`saved_model_cli`.")


def _main_op(graph, import_scope):
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        ops = graph.get_collection(key)
        if import_scope:
            prefix = import_scope.rstrip("/") + "/"
            ops = [op for op in ops if op.name.startswith(prefix)]
        if len(ops) > 1:
            raise RuntimeError("Expected exactly one SavedModel main op. Found: %s" % ops)
        if ops:
            return ops[0]
    return None


@tf_export(v1=["saved_model.load", "saved_model.loader.load"])
def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """TF1's SavedModel loader: the meta graph tagged `tags` imported into `sess.graph`
    (names under `import_scope`), its variables restored in `sess` (`global_step` too) and
    its main op run. Returns the MetaGraphDef (its `signature_def` names the tensors)."""
    export_dir = os.fspath(export_dir)
    if isinstance(export_dir, bytes):
        export_dir = export_dir.decode("utf-8")
    saved_model = saved_model_proto.read(export_dir)
    meta = _meta_graph_for(saved_model, tags, export_dir)
    graph = sess.graph
    with graph.as_default():
        variables = import_meta_graph_into(meta, graph, import_scope)
        saver = saver_for_imported(meta, variables)
        if saver is not None:
            prefix = os.path.join(export_dir, constants.VARIABLES_DIRECTORY,
                                  constants.VARIABLES_FILENAME)
            if not checkpoint_format.exists(prefix):
                raise errors.NotFoundError(
                    None, None, "%s: the SavedModel's variables are missing (no checkpoint "
                    "at %s)" % (export_dir, prefix))
            saver.restore(sess, prefix)
        main_op = _main_op(graph, import_scope)
        if main_op is not None:
            sess.run(main_op)
    return meta
