"""`tf.compat.v1.saved_model.utils`: TensorInfo protos of graph tensors and back (TF's
`saved_model/utils_impl.py`)."""
from tensorboard.compat.proto import meta_graph_pb2

from tfcompat._api import tf_export
from tfcompat.framework import context
from tfcompat.framework.graph import get_default_graph


@tf_export(v1=["saved_model.build_tensor_info", "saved_model.utils.build_tensor_info"])
def build_tensor_info(tensor):
    """TF's TensorInfo of a graph tensor: its name, dtype enum and shape (unknown dims -1,
    unknown rank `unknown_rank`); a SparseTensor gives its three tensors' names (COO)."""
    if not context.state.building_graph and not hasattr(tensor, "graph"):
        raise RuntimeError("`build_tensor_info` is not supported in eager execution.")
    info = meta_graph_pb2.TensorInfo(dtype=tensor.dtype.as_datatype_enum,
                                     tensor_shape=tensor.shape.as_proto())
    if hasattr(tensor, "indices") and hasattr(tensor, "dense_shape"):
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.name = tensor.name
    return info


@tf_export(v1=["saved_model.get_tensor_from_tensor_info",
               "saved_model.utils.get_tensor_from_tensor_info"])
def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The tensor of `graph` (default: the default graph) a TensorInfo names, its name under
    `import_scope`; KeyError when there is none, as TF."""
    graph = graph if graph is not None else get_default_graph()
    encoding = tensor_info.WhichOneof("encoding")
    if encoding != "name":
        raise ValueError("Invalid TensorInfo.encoding: %s (tfcompat reads dense tensors' "
                         "TensorInfos)" % encoding)
    prefix = import_scope.rstrip("/") + "/" if import_scope else ""
    return graph.get_tensor_by_name(prefix + tensor_info.name)
