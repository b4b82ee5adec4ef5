"""Activation layers: LeakyReLU, PReLU, ELU, ThresholdedReLU, Softmax, ReLU."""
from tfcompat._api import tf_export
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import activations, backend, constraints, initializers, regularizers
from tfcompat.keras.engine.base_layer import InputSpec, Layer
from tfcompat.keras.layers.core import weight_kwargs
from tfcompat.ops import math_ops, nn_ops


@tf_export("keras.layers.LeakyReLU")
class LeakyReLU(Layer):
    """x for x >= 0, alpha * x otherwise (alpha 0.3)."""

    def __init__(self, alpha=0.3, **kwargs):
        super(LeakyReLU, self).__init__(**kwargs)
        self.supports_masking = True
        self.alpha = float(alpha)

    def call(self, inputs):
        return nn_ops.leaky_relu(inputs, alpha=self.alpha)

    def get_config(self):
        config = super(LeakyReLU, self).get_config()
        config["alpha"] = self.alpha
        return config


@tf_export("keras.layers.PReLU")
class PReLU(Layer):
    """Leaky ReLU with a learned slope per input unit (shared along `shared_axes`)."""

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs):
        super(PReLU, self).__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None or isinstance(shared_axes, (list, tuple)):
            self.shared_axes = shared_axes
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()[1:]
        if self.shared_axes is not None:
            for i in self.shared_axes:
                shape[i - 1] = 1
        self.alpha = self.add_weight("alpha", shape=shape, initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        axes = {i: d for i, d in enumerate(TensorShape(input_shape).as_list())
                if i and d is not None and not (self.shared_axes and i in self.shared_axes)}
        self.input_spec = InputSpec(ndim=len(shape) + 1, axes=axes)
        self.built = True

    def call(self, inputs):
        return nn_ops.relu(inputs) - self.alpha * nn_ops.relu(-inputs)

    def get_config(self):
        config = super(PReLU, self).get_config()
        config.update(weight_kwargs(self, "alpha"))
        config["shared_axes"] = self.shared_axes
        return config


@tf_export("keras.layers.ELU")
class ELU(Layer):
    """Exponential linear unit with scale `alpha`."""

    def __init__(self, alpha=1.0, **kwargs):
        super(ELU, self).__init__(**kwargs)
        self.supports_masking = True
        self.alpha = float(alpha)

    def call(self, inputs):
        return activations.elu(inputs, self.alpha)

    def get_config(self):
        config = super(ELU, self).get_config()
        config["alpha"] = self.alpha
        return config


@tf_export("keras.layers.ThresholdedReLU")
class ThresholdedReLU(Layer):
    """x for x > theta, else 0."""

    def __init__(self, theta=1.0, **kwargs):
        super(ThresholdedReLU, self).__init__(**kwargs)
        self.supports_masking = True
        self.theta = float(theta)

    def call(self, inputs):
        return inputs * math_ops.cast(math_ops.greater(inputs, self.theta),
                                      inputs.dtype.base_dtype)

    def get_config(self):
        config = super(ThresholdedReLU, self).get_config()
        config["theta"] = self.theta
        return config


@tf_export("keras.layers.Softmax")
class Softmax(Layer):
    """Softmax over `axis`."""

    def __init__(self, axis=-1, **kwargs):
        super(Softmax, self).__init__(**kwargs)
        self.supports_masking = True
        self.axis = axis

    def call(self, inputs):
        return nn_ops.softmax(inputs, axis=self.axis)

    def get_config(self):
        config = super(Softmax, self).get_config()
        config["axis"] = self.axis
        return config


@tf_export("keras.layers.ReLU")
class ReLU(Layer):
    """ReLU with optional cap, negative slope and threshold."""

    def __init__(self, max_value=None, negative_slope=0, threshold=0, **kwargs):
        super(ReLU, self).__init__(**kwargs)
        if max_value is not None and max_value < 0.:
            raise ValueError("max_value of Relu layer cannot be negative value: %s"
                             % max_value)
        if negative_slope < 0.:
            raise ValueError("negative_slope of Relu layer cannot be negative value: %s"
                             % negative_slope)
        self.supports_masking = True
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs):
        return backend.relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                            threshold=self.threshold)

    def get_config(self):
        config = super(ReLU, self).get_config()
        config.update({"max_value": self.max_value, "negative_slope": self.negative_slope,
                       "threshold": self.threshold})
        return config
