"""`tf.keras.regularizers`: L1, L2 and L1L2 weight penalties (Keras 2)."""
from tfcompat._api import tf_export
from tfcompat.ops import math_ops
from tfcompat.framework.constant_op import constant
from tfcompat.keras.utils.generic_utils import class_and_config, get_registered_object


@tf_export("keras.regularizers.Regularizer")
class Regularizer(object):
    """Base class: `regularizer(weights)` returns a scalar penalty."""

    def __call__(self, x):
        return 0.0

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@tf_export("keras.regularizers.L1L2")
class L1L2(Regularizer):
    """l1 * sum(|x|) + l2 * sum(x ** 2)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = float(l1)
        self.l2 = float(l2)

    def __call__(self, x):
        regularization = 0.0
        if self.l1:
            regularization += self.l1 * math_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            regularization += self.l2 * math_ops.reduce_sum(math_ops.square(x))
        if isinstance(regularization, float):
            return constant(0.0, dtype=x.dtype.base_dtype)
        return regularization

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


@tf_export("keras.regularizers.L1")
class L1(L1L2):
    def __init__(self, l1=0.01, **kwargs):
        super(L1, self).__init__(l1=kwargs.pop("l", l1))

    def get_config(self):
        return {"l1": self.l1}


@tf_export("keras.regularizers.L2")
class L2(L1L2):
    def __init__(self, l2=0.01, **kwargs):
        super(L2, self).__init__(l2=kwargs.pop("l", l2))

    def get_config(self):
        return {"l2": self.l2}


@tf_export("keras.regularizers.l1")
def l1(l=0.01):  # noqa: E741 - Keras' argument name
    return L1L2(l1=l)


@tf_export("keras.regularizers.l2")
def l2(l=0.01):  # noqa: E741 - Keras' argument name
    return L1L2(l2=l)


@tf_export("keras.regularizers.l1_l2")
def l1_l2(l1=0.01, l2=0.01):  # noqa: F811 - Keras' argument names
    return L1L2(l1=l1, l2=l2)


_TABLE = {"L1L2": L1L2, "L1": L1, "L2": L2, "l1": L1, "l2": L2, "l1_l2": L1L2}


@tf_export("keras.regularizers.serialize")
def serialize(regularizer):
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


@tf_export("keras.regularizers.deserialize")
def deserialize(config, custom_objects=None):
    name, config = class_and_config(config, "regularizer")
    cls = get_registered_object(name, custom_objects, _TABLE)
    if cls is None:
        raise ValueError("Unknown regularizer: %s" % name)
    return cls.from_config(config) if hasattr(cls, "from_config") else cls(**config)


@tf_export("keras.regularizers.get")
def get(identifier):
    if identifier is None:
        return None
    if isinstance(identifier, (dict, str)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret regularizer identifier: %r" % (identifier,))
