"""Learning-rate schedules: `tf.keras.optimizers.schedules.*` (Keras 2) and the schedules
behind TF1's `tf.train.*_decay` functions.

A schedule is called with the step (a Python number, tensor or variable) and returns the
learning rate as a tensor in the initial learning rate's dtype, computed by one op written
over torch (one node in graph mode), with TF's formulas (documented on each class).
"""
import math

import torch

from tfcompat._api import tf_export
from tfcompat.framework.ops import op, to_torch


def _as_dtype_of(value, like):
    t = to_torch(value)
    return t.to(device=like.device, dtype=like.dtype)


def _lr_and_step(initial_learning_rate, step):
    lr = to_torch(initial_learning_rate)
    return lr, _as_dtype_of(step, lr)


# ---------------------------------------------------------------- the ops


@op(graph_name="ExponentialDecay")
def _exponential_decay(step, initial_learning_rate, decay_steps, decay_rate, staircase,
                       name=None):
    lr, step = _lr_and_step(initial_learning_rate, step)
    p = step / _as_dtype_of(decay_steps, lr)
    if staircase:
        p = torch.floor(p)
    return lr * torch.pow(_as_dtype_of(decay_rate, lr), p)


@op(graph_name="PiecewiseConstant")
def _piecewise_constant(step, boundaries, values, name=None):
    x = to_torch(step)
    bounds = torch.stack([_as_dtype_of(b, x) for b in boundaries])
    vals = [to_torch(v) for v in values]
    if any(v.dtype != vals[0].dtype for v in vals[1:]):
        raise ValueError("Values must have elements all with the same dtype (%s)."
                         % ", ".join(str(v.dtype) for v in vals))
    index = torch.bucketize(x, bounds)    # boundaries[i-1] < x <= boundaries[i] -> i
    return torch.stack([v.to(x.device) for v in vals])[index]


@op(graph_name="PolynomialDecay")
def _polynomial_decay(step, initial_learning_rate, decay_steps, end_learning_rate, power, cycle,
                      name=None):
    lr, step = _lr_and_step(initial_learning_rate, step)
    end = _as_dtype_of(end_learning_rate, lr)
    steps = _as_dtype_of(decay_steps, lr)
    if cycle:
        multiplier = torch.where(step == 0, torch.ones_like(step), torch.ceil(step / steps))
        steps = steps * multiplier
    else:
        step = torch.minimum(step, steps)
    p = step / steps
    return (lr - end) * torch.pow(1 - p, _as_dtype_of(power, lr)) + end


@op(graph_name="InverseTimeDecay")
def _inverse_time_decay(step, initial_learning_rate, decay_steps, decay_rate, staircase,
                        name=None):
    lr, step = _lr_and_step(initial_learning_rate, step)
    p = step / _as_dtype_of(decay_steps, lr)
    if staircase:
        p = torch.floor(p)
    return lr / (1 + _as_dtype_of(decay_rate, lr) * p)


@op(graph_name="NaturalExpDecay")
def _natural_exp_decay(step, initial_learning_rate, decay_steps, decay_rate, staircase,
                       name=None):
    lr, step = _lr_and_step(initial_learning_rate, step)
    p = step / _as_dtype_of(decay_steps, lr)
    if staircase:
        p = torch.floor(p)
    return lr * torch.exp(-_as_dtype_of(decay_rate, lr) * p)


def _cosine(fraction, alpha):
    decayed = 0.5 * (1 + torch.cos(math.pi * fraction))
    return (1 - alpha) * decayed + alpha


@op(graph_name="CosineDecay")
def _cosine_decay(step, initial_learning_rate, decay_steps, alpha, warmup_target, warmup_steps,
                  name=None):
    lr, step = _lr_and_step(initial_learning_rate, step)
    steps = _as_dtype_of(decay_steps, lr)
    alpha = _as_dtype_of(alpha, lr)
    if warmup_target is None:
        return lr * _cosine(torch.minimum(step, steps) / steps, alpha)
    target = _as_dtype_of(warmup_target, lr)
    warmup = _as_dtype_of(warmup_steps, lr)
    step = torch.minimum(step, steps + warmup)
    warming = (target - lr) * (step / warmup) + lr
    decaying = target * _cosine((step - warmup) / steps, alpha)
    return torch.where(step < warmup, warming, decaying)


@op(graph_name="SGDRDecay")
def _cosine_decay_restarts(step, initial_learning_rate, first_decay_steps, t_mul, m_mul, alpha,
                           name=None):
    lr, step = _lr_and_step(initial_learning_rate, step)
    fraction = step / _as_dtype_of(first_decay_steps, lr)
    t_mul, m_mul = _as_dtype_of(t_mul, lr), _as_dtype_of(m_mul, lr)
    # t_mul == 1: restarts every first_decay_steps; else periods grow geometrically.
    plain_restart = torch.floor(fraction)
    safe_t = torch.where(t_mul == 1, torch.full_like(t_mul, 2.0), t_mul)
    geometric_restart = torch.floor(torch.log(1 - fraction * (1 - safe_t)) / torch.log(safe_t))
    sum_r = (1 - safe_t ** geometric_restart) / (1 - safe_t)
    geometric_fraction = (fraction - sum_r) / safe_t ** geometric_restart
    i_restart = torch.where(t_mul == 1, plain_restart, geometric_restart)
    fraction = torch.where(t_mul == 1, fraction - plain_restart, geometric_fraction)
    decayed = 0.5 * m_mul ** i_restart * (1 + torch.cos(math.pi * fraction))
    alpha = _as_dtype_of(alpha, lr)
    return lr * ((1 - alpha) * decayed + alpha)


@op(graph_name="LinearCosineDecay")
def _linear_cosine_decay(step, initial_learning_rate, decay_steps, num_periods, alpha, beta,
                         noise, name=None):
    """noise: None, or (initial_variance, variance_decay) for the noisy variant."""
    lr, step = _lr_and_step(initial_learning_rate, step)
    steps = _as_dtype_of(decay_steps, lr)
    step = torch.minimum(step, steps)
    linear = (steps - step) / steps
    if noise is not None:
        variance = _as_dtype_of(noise[0], lr) / torch.pow(1 + step, _as_dtype_of(noise[1], lr))
        linear = linear + torch.randn_like(linear) * torch.sqrt(variance)
    fraction = 2 * _as_dtype_of(num_periods, lr) * (step / steps)
    cosine = 0.5 * (1 + torch.cos(math.pi * fraction))
    return lr * ((_as_dtype_of(alpha, lr) + linear) * cosine + _as_dtype_of(beta, lr))


# ---------------------------------------------------------------- the classes


@tf_export("keras.optimizers.schedules.LearningRateSchedule",
           v2=["optimizers.schedules.LearningRateSchedule"])
class LearningRateSchedule(object):
    """A serializable learning rate decay schedule: `schedule(step)` -> learning rate."""

    def __call__(self, step):
        raise NotImplementedError("Learning rate schedule %s must override __call__"
                                  % type(self).__name__)

    def get_config(self):
        raise NotImplementedError("Learning rate schedule %s must override get_config"
                                  % type(self).__name__)

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class _RateDecay(LearningRateSchedule):
    """Shared form of the (initial_learning_rate, decay_steps, decay_rate, staircase)
    schedules; `_decay` is the TF1 decay function computing the rate."""

    _decay = None

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        return self._decay(step, self.initial_learning_rate, self.decay_steps,
                           self.decay_rate, self.staircase,
                           name=self.name or type(self).__name__)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


@tf_export("keras.optimizers.schedules.ExponentialDecay",
           v2=["optimizers.schedules.ExponentialDecay"])
class ExponentialDecay(_RateDecay):
    """initial_learning_rate * decay_rate ** (step / decay_steps) (floored if staircase)."""

    _decay = staticmethod(_exponential_decay)


@tf_export("keras.optimizers.schedules.PiecewiseConstantDecay",
           v2=["optimizers.schedules.PiecewiseConstantDecay"])
class PiecewiseConstantDecay(LearningRateSchedule):
    """values[0] while step <= boundaries[0], values[i] while boundaries[i-1] < step <=
    boundaries[i], values[-1] after the last boundary."""

    def __init__(self, boundaries, values, name=None):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of "
                             "values")
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        return _piecewise_constant(step, self.boundaries, self.values,
                                   name=self.name or "PiecewiseConstant")

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


@tf_export("keras.optimizers.schedules.PolynomialDecay",
           v2=["optimizers.schedules.PolynomialDecay"])
class PolynomialDecay(LearningRateSchedule):
    """(initial - end) * (1 - step / decay_steps) ** power + end, step capped at decay_steps;
    with `cycle`, decay_steps grows to the next multiple of itself instead."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step):
        return _polynomial_decay(step, self.initial_learning_rate, self.decay_steps,
                                 self.end_learning_rate, self.power, self.cycle,
                                 name=self.name or "PolynomialDecay")

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


@tf_export("keras.optimizers.schedules.InverseTimeDecay",
           v2=["optimizers.schedules.InverseTimeDecay"])
class InverseTimeDecay(_RateDecay):
    """initial_learning_rate / (1 + decay_rate * step / decay_steps) (floored if staircase)."""

    _decay = staticmethod(_inverse_time_decay)


@tf_export("keras.optimizers.schedules.CosineDecay", "keras.experimental.CosineDecay",
           v2=["optimizers.schedules.CosineDecay"])
class CosineDecay(LearningRateSchedule):
    """initial * ((1 - alpha) * 0.5 * (1 + cos(pi * step / decay_steps)) + alpha), step
    capped at decay_steps; with `warmup_target`, a linear warmup from initial to
    warmup_target over `warmup_steps` comes first (Keras 2.13+)."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name=None,
                 warmup_target=None, warmup_steps=0):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        return _cosine_decay(step, self.initial_learning_rate, self.decay_steps, self.alpha,
                             self.warmup_target, self.warmup_steps,
                             name=self.name or "CosineDecay")

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


@tf_export("keras.optimizers.schedules.CosineDecayRestarts",
           "keras.experimental.CosineDecayRestarts",
           v2=["optimizers.schedules.CosineDecayRestarts"])
class CosineDecayRestarts(LearningRateSchedule):
    """SGDR: cosine decay restarted after first_decay_steps, each period `t_mul` times
    longer and its peak `m_mul` times lower."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def __call__(self, step):
        return _cosine_decay_restarts(step, self.initial_learning_rate, self.first_decay_steps,
                                      self._t_mul, self._m_mul, self.alpha,
                                      name=self.name or "SGDRDecay")

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
                "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


class NaturalExpDecay(_RateDecay):
    """initial * exp(-decay_rate * step / decay_steps) (TF's legacy schedule behind
    `tf.train.natural_exp_decay`)."""

    _decay = staticmethod(_natural_exp_decay)


class LinearCosineDecay(LearningRateSchedule):
    """initial * ((alpha + linear) * cosine + beta), linear = 1 - step / decay_steps,
    cosine = 0.5 * (1 + cos(pi * 2 * num_periods * step / decay_steps)); the noisy variant
    adds N(0, initial_variance / (1 + step) ** variance_decay) to `linear`."""

    def __init__(self, initial_learning_rate, decay_steps, num_periods=0.5, alpha=0.0,
                 beta=0.001, name=None, initial_variance=None, variance_decay=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.num_periods = num_periods
        self.alpha = alpha
        self.beta = beta
        self.name = name
        self.initial_variance = initial_variance
        self.variance_decay = variance_decay

    def __call__(self, step):
        noise = None if self.initial_variance is None else \
            (self.initial_variance, self.variance_decay)
        return _linear_cosine_decay(step, self.initial_learning_rate, self.decay_steps,
                                    self.num_periods, self.alpha, self.beta, noise,
                                    name=self.name or "LinearCosineDecay")

    def get_config(self):
        config = {"initial_learning_rate": self.initial_learning_rate,
                  "decay_steps": self.decay_steps, "num_periods": self.num_periods,
                  "alpha": self.alpha, "beta": self.beta, "name": self.name}
        if self.initial_variance is not None:
            config.update(initial_variance=self.initial_variance,
                          variance_decay=self.variance_decay)
        return config
