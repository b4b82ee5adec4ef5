"""`tf.keras.utils.get_source_inputs`."""
from tfcompat._api import tf_export
from tfcompat.keras.engine.input_layer import InputLayer


@tf_export("keras.utils.get_source_inputs")
def get_source_inputs(tensor, layer=None, node_index=None):
    """The `tf.keras.Input` tensors that Keras tensor `tensor` is computed from."""
    if getattr(tensor, "_keras_history", None) is None:
        return [tensor]
    if layer is None or node_index is None:
        layer, node_index, _ = tensor._keras_history
    node = layer._inbound_nodes[node_index]
    if isinstance(layer, InputLayer) or not node.input_tensors:
        return list(node.output_tensors)
    sources = []
    for x in node.input_tensors:
        for source in get_source_inputs(x):
            if all(source is not known for known in sources):
                sources.append(source)
    return sources
