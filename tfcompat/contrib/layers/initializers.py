"""`tf.contrib.layers` initializers: xavier_initializer and its variance_scaling_initializer.

Contrib's own formulas (not tf.variance_scaling_initializer's): n is fan_in, fan_out or their
mean (receptive field included for conv kernels); uniform draws from +-sqrt(3 * factor / n),
normal draws a normal truncated at two standard deviations with stddev sqrt(1.3 * factor / n).
"""
import math

from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.ops import init_ops

_MODES = ("FAN_IN", "FAN_OUT", "FAN_AVG")


def _floating(dtype):
    if not dtype.is_floating:
        raise TypeError("Cannot create initializer for non-floating point type.")
    return dtype


class _VarianceScaling(init_ops.Initializer):
    """The initializer `variance_scaling_initializer` returns."""

    def __init__(self, factor, mode, uniform, seed, dtype):
        self.factor, self.mode, self.uniform, self.seed = factor, mode, uniform, seed
        self.dtype = _floating(dtypes.as_dtype(dtype))

    def _check_dtype(self, dtype):
        return _floating(dtype)

    def _generate(self, shape, dtype, gen, device):
        fan_in, fan_out = init_ops._compute_fans(shape)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[
            self.mode]
        if self.uniform:
            limit = math.sqrt(3.0 * self.factor / n)
            return init_ops._uniform(shape, -limit, limit, dtype, gen, device)
        return init_ops._truncated_normal(shape, 0.0, math.sqrt(1.3 * self.factor / n), dtype,
                                          gen, device)


@tf_export("contrib.layers.variance_scaling_initializer")
def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None,
                                 dtype=dtypes.float32):
    """He et al. ("MSRA") initialization by default: truncated normal, stddev sqrt(2.6/fan_in)."""
    _floating(dtypes.as_dtype(dtype))
    if mode not in _MODES:
        raise TypeError("Unknown mode %s [FAN_IN, FAN_OUT, FAN_AVG]" % mode)
    return _VarianceScaling(factor, mode, uniform, seed, dtype)


@tf_export("contrib.layers.xavier_initializer", "contrib.layers.xavier_initializer_conv2d")
def xavier_initializer(uniform=True, seed=None, dtype=dtypes.float32):
    """Glorot: uniform in +-sqrt(6 / (fan_in + fan_out)), or the truncated normal above."""
    return variance_scaling_initializer(factor=1.0, mode="FAN_AVG", uniform=uniform, seed=seed,
                                        dtype=dtype)


xavier_initializer_conv2d = xavier_initializer
