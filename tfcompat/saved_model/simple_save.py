"""`tf.compat.v1.saved_model.simple_save` (TF's `saved_model/simple_save.py`)."""
from tfcompat._api import tf_export
from tfcompat.framework.graph import GraphKeys, get_collection
from tfcompat.saved_model import signature_constants, tag_constants
from tfcompat.saved_model.builder_impl import SavedModelBuilder
from tfcompat.saved_model.signature_def_utils_impl import predict_signature_def


@tf_export(v1=["saved_model.simple_save"])
def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Save `session`'s graph for serving: one meta graph tagged `serve` with the Predict
    signature `serving_default` of `inputs` and `outputs` ({key: tensor}), devices cleared."""
    signature_def_map = {
        signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
            predict_signature_def(inputs, outputs)}
    builder = SavedModelBuilder(export_dir)
    with session.graph.as_default():
        assets = get_collection(GraphKeys.ASSET_FILEPATHS)
    builder.add_meta_graph_and_variables(
        session, tags=[tag_constants.SERVING], signature_def_map=signature_def_map,
        assets_collection=assets, main_op=legacy_init_op, clear_devices=True)
    builder.save()
