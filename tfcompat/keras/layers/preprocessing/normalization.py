"""`tf.keras.layers.Normalization` (Keras 2.15): `(x - mean) / max(sqrt(variance), 1e-7)`,
or its inverse with `invert=True`, with per-feature statistics over the `axis` dims.

`adapt` computes the population mean and variance over every other dim (Keras 2 merges
batches with the same formulas; we accumulate sums in float64 and store float32 weights
`mean`, `variance`, `count`). Given `mean` and `variance` the layer has no weights.
"""
import numpy as np

from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import backend
from tfcompat.keras.layers.preprocessing.preprocessing_layer import PreprocessingLayer
from tfcompat.ops import array_ops, math_ops


@tf_export("keras.layers.Normalization",
           "keras.layers.experimental.preprocessing.Normalization")
class Normalization(PreprocessingLayer):
    """Feature-wise normalization with statistics given or computed by `adapt`."""

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super(Normalization, self).__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis = axis
        if (mean is not None) != (variance is not None):
            raise ValueError("When setting values directly, both `mean` and `variance` must "
                             "be set. Got mean: {} and variance: {}".format(mean, variance))
        self.input_mean = mean
        self.input_variance = variance
        self.invert = invert
        self._sums = None

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        ndim = len(dims)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError("All `axis` values must be in the range [-ndim, ndim). Found "
                             "ndim: `{}`, axis: {}".format(ndim, self.axis))
        self._keep_axis = sorted(a % ndim for a in self.axis)
        for a in self._keep_axis:
            if dims[a] is None:
                raise ValueError("All `axis` values to be kept must have known shape. Got "
                                 "axis: {}, input shape: {}, with unknown axis at index: {}"
                                 .format(self.axis, dims, a))
        self._reduce_axis = tuple(a for a in range(ndim) if a not in self._keep_axis)
        self._broadcast_shape = [dims[a] if a in self._keep_axis else 1 for a in range(ndim)]
        stats_shape = tuple(dims[a] for a in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight("mean", shape=stats_shape,
                                              dtype=self.compute_dtype,
                                              initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight("variance", shape=stats_shape,
                                                  dtype=self.compute_dtype,
                                                  initializer="ones", trainable=False)
            self.count = self.add_weight("count", shape=(), dtype=dtypes.int64,
                                         initializer="zeros", trainable=False)
        else:
            ones = np.ones(stats_shape)
            self._given_mean = (np.asarray(self.input_mean) * ones).astype(self.compute_dtype)
            self._given_variance = (np.asarray(self.input_variance) * ones).astype(
                self.compute_dtype)
        self.built = True

    def update_state(self, data):
        if self.input_mean is not None:
            raise ValueError("Cannot `adapt` a Normalization layer that is initialized with "
                             "static `mean` and `variance`, you passed mean {} and variance "
                             "{}.".format(self.input_mean, self.input_variance))
        if not self.built:
            raise RuntimeError("`build` must be called before `update_state`.")
        values = np.asarray(data, dtype=np.float64)
        count = int(np.prod([values.shape[a] for a in self._reduce_axis]))
        total = values.sum(axis=self._reduce_axis)
        squares = np.square(values).sum(axis=self._reduce_axis)
        if self._sums is None:
            self._sums = [0, 0.0, 0.0]
        self._sums = [self._sums[0] + count, self._sums[1] + total, self._sums[2] + squares]

    def reset_state(self):
        self._sums = None
        if self.input_mean is None and self.built:
            self.adapt_mean.assign(np.zeros(self.adapt_mean.shape.as_list()))
            self.adapt_variance.assign(np.ones(self.adapt_variance.shape.as_list()))
            self.count.assign(0)

    def finalize_state(self):
        if self._sums is None or self.input_mean is not None:
            return
        count, total, squares = self._sums
        mean = total / count
        variance = np.maximum(squares / count - np.square(mean), 0.0)
        self.adapt_mean.assign(mean.astype(self.compute_dtype))
        self.adapt_variance.assign(variance.astype(self.compute_dtype))
        self.count.assign(count)
        self._sums = None

    @property
    def mean(self):
        """The mean, shaped to broadcast against the inputs (Keras' `layer.mean`)."""
        return self._statistics()[0]

    @property
    def variance(self):
        """The variance, shaped to broadcast against the inputs."""
        return self._statistics()[1]

    def _statistics(self):
        if self.input_mean is not None:
            mean, variance = self._given_mean, self._given_variance
        else:
            mean, variance = self.adapt_mean, self.adapt_variance
        return (array_ops.reshape(mean, self._broadcast_shape),
                array_ops.reshape(variance, self._broadcast_shape))

    def call(self, inputs):
        inputs = math_ops.cast(inputs, self.compute_dtype)
        mean, variance = self._statistics()
        scale = math_ops.maximum(math_ops.sqrt(variance), backend.epsilon())
        if self.invert:
            return mean + inputs * scale
        return (inputs - mean) / scale

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super(Normalization, self).get_config()
        config.update({"axis": self.axis, "invert": self.invert,
                       "mean": _listify(self.input_mean),
                       "variance": _listify(self.input_variance)})
        return config


def _listify(value):
    return np.asarray(value).tolist() if isinstance(value, np.ndarray) else value
