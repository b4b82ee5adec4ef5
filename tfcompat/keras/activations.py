"""`tf.keras.activations`: Keras 2's activation functions, `get`, `serialize`, `deserialize`."""
from tfcompat._api import tf_export
from tfcompat.framework import ops
from tfcompat.keras import backend
from tfcompat.ops import math_ops, nn_ops
from tfcompat.keras.utils.generic_utils import deserialize_keras_object, serialize_keras_object


@tf_export("keras.activations.softmax")
def softmax(x, axis=-1):
    """Softmax over `axis` (Keras raises for rank-1 inputs)."""
    if x.shape.rank == 1:
        raise ValueError("Cannot apply softmax to a tensor that is 1D. Received input: %s"
                         % (x,))
    return nn_ops.softmax(x, axis=axis)


@tf_export("keras.activations.elu")
def elu(x, alpha=1.0):
    if alpha == 1.0:
        return nn_ops.elu(x)
    return _scaled_elu(x, alpha)


@ops.op(graph_name="Elu")
def _scaled_elu(x, alpha):
    t = ops.to_torch(x)
    return t.where(t > 0, alpha * (t.exp() - 1))


@tf_export("keras.activations.selu")
def selu(x):
    return nn_ops.selu(x)


@tf_export("keras.activations.softplus")
def softplus(x):
    return nn_ops.softplus(x)


@tf_export("keras.activations.softsign")
def softsign(x):
    return nn_ops.softsign(x)


@tf_export("keras.activations.swish")
def swish(x):
    return nn_ops.swish(x)


@tf_export("keras.activations.relu")
def relu(x, alpha=0.0, max_value=None, threshold=0):
    return backend.relu(x, alpha=alpha, max_value=max_value, threshold=threshold)


@tf_export("keras.activations.gelu")
def gelu(x, approximate=False):
    return nn_ops.gelu(x, approximate=approximate)


@tf_export("keras.activations.tanh")
def tanh(x):
    return math_ops.tanh(x)


@tf_export("keras.activations.sigmoid")
def sigmoid(x):
    return math_ops.sigmoid(x)


@tf_export("keras.activations.exponential")
def exponential(x):
    return math_ops.exp(x)


@tf_export("keras.activations.hard_sigmoid")
def hard_sigmoid(x):
    """0.2 * x + 0.5 clipped to [0, 1] (Keras 2's definition)."""
    return _hard_sigmoid(x)


@ops.op(graph_name="HardSigmoid")
def _hard_sigmoid(x):
    return (ops.to_torch(x) * 0.2 + 0.5).clamp(0.0, 1.0)


@tf_export("keras.activations.mish")
def mish(x):
    return x * math_ops.tanh(nn_ops.softplus(x))


@tf_export("keras.activations.linear")
def linear(x):
    return x


# Keras 2's activation layers, which its `deserialize` resolves too (Keras' alias list, not a
# symbol table: the registry gives each class).
_ACTIVATION_LAYERS = {name: "keras.layers." + name for name in (
    "ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax", "ThresholdedReLU")}


@tf_export("keras.activations.serialize")
def serialize(activation):
    """A function's name (built-in or custom: deserializing a custom one needs it in
    `custom_objects` or `get_custom_objects()`), or {'class_name', 'config'} for an object
    with `get_config` (an activation layer)."""
    return serialize_keras_object(activation)


@tf_export("keras.activations.deserialize")
def deserialize(name, custom_objects=None):
    """The activation function (`tf.keras.activations.<name>`) or activation layer a name or
    a serialized layer stands for."""
    return deserialize_keras_object(name, custom_objects=custom_objects,
                                    printable_module_name="activation function",
                                    namespace="keras.activations", aliases=_ACTIVATION_LAYERS)


@tf_export("keras.activations.get")
def get(identifier):
    """None -> linear; a name or a serialized layer -> the function or layer; a callable
    stays; anything else is a TypeError (Keras 2)."""
    if identifier is None:
        return linear
    if not isinstance(identifier, (str, dict)) and not callable(identifier):
        raise TypeError("Could not interpret activation function identifier: %r"
                        % (identifier,))
    return deserialize(identifier)
