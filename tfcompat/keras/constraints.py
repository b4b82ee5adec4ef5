"""`tf.keras.constraints`: projections applied to weights after optimizer updates."""
from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.ops import math_ops
from tfcompat.keras.utils.generic_utils import deserialize_keras_object, serialize_keras_object


@tf_export("keras.constraints.Constraint")
class Constraint(object):
    """Base class: `constraint(w)` returns the projected weights."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _norms(w, axis):
    return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


@tf_export("keras.constraints.MaxNorm", "keras.constraints.max_norm")
class MaxNorm(Constraint):
    """Norms along `axis` at most `max_value`."""

    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = math_ops.minimum(norms, float(self.max_value))
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


@tf_export("keras.constraints.NonNeg", "keras.constraints.non_neg")
class NonNeg(Constraint):
    """Negative weights become zero."""

    def __call__(self, w):
        return w * math_ops.cast(w >= 0.0, w.dtype.base_dtype)


@tf_export("keras.constraints.UnitNorm", "keras.constraints.unit_norm")
class UnitNorm(Constraint):
    """Norms along `axis` equal to one."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return w / (backend.epsilon() + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


@tf_export("keras.constraints.MinMaxNorm", "keras.constraints.min_max_norm")
class MinMaxNorm(Constraint):
    """Norms along `axis` within [min_value, max_value], moved there at `rate`."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        clipped = math_ops.minimum(math_ops.maximum(norms, float(self.min_value)),
                                   float(self.max_value))
        desired = self.rate * clipped + (1 - self.rate) * norms
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


@tf_export("keras.constraints.serialize")
def serialize(constraint):
    return serialize_keras_object(constraint)


@tf_export("keras.constraints.deserialize")
def deserialize(config, custom_objects=None):
    """The constraint a name (`tf.keras.constraints.<name>`) or a serialized one stands for."""
    return deserialize_keras_object(config, custom_objects=custom_objects,
                                    printable_module_name="constraint",
                                    namespace="keras.constraints")


@tf_export("keras.constraints.get")
def get(identifier):
    """None, a name, a serialized constraint or a callable -> a constraint."""
    return deserialize(identifier)
