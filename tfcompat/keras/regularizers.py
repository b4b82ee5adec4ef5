"""`tf.keras.regularizers`: L1, L2 and L1L2 weight penalties (Keras 2); `l1` and `l2` are
the `L1` and `L2` classes, as in TF 2.15 (TF 1.15's functions made the same penalty as an
`L1L2`)."""
from tfcompat._api import tf_export
from tfcompat.ops import math_ops
from tfcompat.framework.constant_op import constant
from tfcompat.keras.utils.generic_utils import deserialize_keras_object, serialize_keras_object


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


@tf_export("keras.regularizers.L1", "keras.regularizers.l1")
class L1(L1L2):
    def __init__(self, l1=0.01, **kwargs):
        super(L1, self).__init__(l1=kwargs.pop("l", l1))

    def get_config(self):
        return {"l1": self.l1}


@tf_export("keras.regularizers.L2", "keras.regularizers.l2")
class L2(L1L2):
    def __init__(self, l2=0.01, **kwargs):
        super(L2, self).__init__(l2=kwargs.pop("l", l2))

    def get_config(self):
        return {"l2": self.l2}


@tf_export("keras.regularizers.l1_l2")
def l1_l2(l1=0.01, l2=0.01):
    return L1L2(l1=l1, l2=l2)


@tf_export("keras.regularizers.serialize")
def serialize(regularizer):
    return serialize_keras_object(regularizer)


@tf_export("keras.regularizers.deserialize")
def deserialize(config, custom_objects=None):
    """The regularizer a name (`tf.keras.regularizers.<name>`) or a serialized one stands
    for; the name "l1_l2" gives both penalties at 0.01, as in Keras 2."""
    if config == "l1_l2":
        return L1L2(l1=0.01, l2=0.01)
    return deserialize_keras_object(config, custom_objects=custom_objects,
                                    printable_module_name="regularizer",
                                    namespace="keras.regularizers")


@tf_export("keras.regularizers.get")
def get(identifier):
    """None, a name, a serialized regularizer or a callable -> a regularizer."""
    return deserialize(identifier)
