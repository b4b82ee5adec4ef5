"""TF 1.x `tf.contrib.util` (and `tf.make_tensor_proto` / `tf.make_ndarray`): TensorProto
conversion through tensorboard's implementation of TF's tensor_util."""
import numpy as np
from tensorboard.util import tensor_util

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops
from tfcompat.framework.graph import SymbolicTensor


@tf_export("make_tensor_proto", "contrib.util.make_tensor_proto")
def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False,
                      allow_broadcast=False):
    """A TensorProto (tensorboard's tensor_pb2, which `tensorflow.core` imports give) holding
    `values`, converted to `dtype` and filled or reshaped to `shape` as TF does."""
    if allow_broadcast and verify_shape:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    if ops.is_tensor(values) or hasattr(values, "_tfcompat_tensor_"):
        tensor = ops.convert_to_tensor(values)
        if isinstance(tensor, SymbolicTensor):
            raise TypeError("make_tensor_proto needs a value, not the symbolic tensor %s; "
                            "evaluate it with Session.run first" % tensor.name)
        values = np.asarray(tensor.numpy())
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).name
    if allow_broadcast and shape is not None and np.ndim(values) > 0:
        values = np.broadcast_to(np.asarray(values), shape)
    return tensor_util.make_tensor_proto(values, dtype=dtype, shape=shape,
                                         verify_shape=verify_shape)


@tf_export("make_ndarray", "contrib.util.make_ndarray")
def make_ndarray(tensor):
    """The numpy array a TensorProto holds."""
    return tensor_util.make_ndarray(tensor)
