"""Initializers: TF1's `tf.*_initializer` / `tf.initializers.*` and Keras' `tf.keras.initializers`.

`init(shape, dtype=None, partition_info=None)` returns a tensor (an EagerTensor in eager mode;
the draw is an op, so a graph records it). TF's formulas are kept: fans of conv kernels count
the receptive field, `VarianceScaling` divides the truncated normal's stddev by
0.87962566103423978, `Orthogonal` signs Q by diag(R). The random numbers come from torch
(`random_seed.generator`), so they differ from TensorFlow's own.

Seeds: TF1 classes with a seed continue one sequence per (global seed, op seed) like TF1 random
ops; TF2 / Keras classes with a seed give the same values on every call, like TF2's stateless
initializers.
"""
import copy
import math

import numpy as np
import torch
from torch._subclasses.fake_tensor import FakeTensor

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, random_seed
from tfcompat.framework.ops import is_tensor_value, op, to_torch
from tfcompat.framework.tensor_shape import as_shape

_TRUNCATED_STDDEV = 0.87962566103423978  # stddev of a unit normal truncated at +-2


# ---------------------------------------------------------------- helpers


def _shape_list(shape):
    if is_tensor_value(shape):
        return [int(d) for d in np.asarray(to_torch(shape).tolist()).reshape(-1)]
    shape = as_shape(shape)
    if not shape.is_fully_defined():
        raise ValueError("Initializers need a fully defined shape, got %s" % (shape,))
    return shape.as_list()


def _compute_fans(shape):
    """TF's (fan_in, fan_out): conv kernels multiply channels by the receptive field size."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = 1
    for dim in shape[:-2]:
        receptive *= dim
    return shape[-2] * receptive, shape[-1] * receptive


def _assert_float_dtype(dtype):
    if not dtype.is_floating:
        raise ValueError("Expected floating point type, got %s." % dtype.name)
    return dtype


def _work_dtype(dtype):
    """Draw half-precision values in float32 (torch lacks some half samplers on CPU)."""
    return torch.float32 if dtype.torch_dtype in (torch.float16, torch.bfloat16) \
        else dtype.torch_dtype


def _normal(shape, mean, stddev, dtype, gen, device):
    t = torch.empty(shape, dtype=_work_dtype(dtype), device=device)
    t.normal_(mean, stddev, generator=gen)
    return t.to(dtype.torch_dtype)


def _truncated_normal(shape, mean, stddev, dtype, gen, device):
    """Normal values more than two standard deviations from the mean are redrawn."""
    t = torch.empty(shape, dtype=_work_dtype(dtype), device=device)
    if not isinstance(t, FakeTensor):   # a graph being built needs only the shape
        torch.nn.init.trunc_normal_(t, mean, stddev, mean - 2 * stddev, mean + 2 * stddev,
                                    generator=gen)
    return t.to(dtype.torch_dtype)


def _uniform(shape, minval, maxval, dtype, gen, device):
    if dtype.is_integer:
        return torch.randint(int(minval), int(maxval), shape, dtype=dtype.torch_dtype,
                             device=device, generator=gen)
    t = torch.empty(shape, dtype=_work_dtype(dtype), device=device)
    t.uniform_(minval, maxval, generator=gen)
    return t.to(dtype.torch_dtype)


@op(graph_name="Initializer")
def _draw(initializer, shape, dtype, gen):
    """One initializer draw, an op so a graph records it (it re-draws on every run)."""
    return initializer._generate(shape, dtype, gen, context.current_device())


# ---------------------------------------------------------------- TF1 classes


@tf_export("keras.initializers.Initializer", v2=["initializers.Initializer"])
class Initializer(object):
    """Base class: `init(shape, dtype=None, partition_info=None)` returns a tensor."""

    _stateless = False  # TF2: a seeded initializer gives the same values on every call
    _default_dtype = dtypes.float32

    def __call__(self, shape, dtype=None, partition_info=None, **kwargs):
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        else:
            dtype = getattr(self, "dtype", None) or self._default_dtype
        dtype = self._check_dtype(dtype)
        shape = _shape_list(shape)
        return _draw(self, shape, dtype, self._generator())

    def _check_dtype(self, dtype):
        return dtype

    def _generator(self):
        seed = getattr(self, "seed", None)
        device = context.current_device()
        if seed is not None and self._stateless:
            gen = torch.Generator(device=device)
            gen.manual_seed(int(seed))
            return gen
        return random_seed.generator(seed, device)

    def _generate(self, shape, dtype, gen, device):
        raise NotImplementedError("%s must implement _generate" % type(self).__name__)

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _dtype_config(self):
    return {"dtype": self.dtype.name}


@tf_export(v1=["zeros_initializer", "initializers.zeros", "keras.initializers.Zeros",
               "keras.initializers.zeros"])
class Zeros(Initializer):
    """Initializer of zeros (any dtype)."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def _generate(self, shape, dtype, gen, device):
        return torch.zeros(shape, dtype=dtype.torch_dtype, device=device)

    get_config = _dtype_config


@tf_export(v1=["ones_initializer", "initializers.ones", "keras.initializers.Ones",
               "keras.initializers.ones"])
class Ones(Initializer):
    """Initializer of ones (any dtype)."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def _generate(self, shape, dtype, gen, device):
        return torch.ones(shape, dtype=dtype.torch_dtype, device=device)

    get_config = _dtype_config


def _constant(value, shape, dtype, device):
    array = np.asarray(value, dtype=dtype.as_numpy_dtype if dtype.as_numpy_dtype else None)
    if array.size == 1:
        array = np.full(shape, array.reshape(()), dtype=array.dtype)
    elif array.size == int(np.prod(shape)):
        array = array.reshape(shape)
    else:
        raise TypeError("Eager execution of tf.constant with unsupported shape. Tensor %r "
                        "has %d elements, but got `shape` %s with %d elements)."
                        % (value, array.size, tuple(shape), int(np.prod(shape))))
    return to_torch(array, dtype).to(device)


@tf_export(v1=["constant_initializer", "initializers.constant", "keras.initializers.Constant",
               "keras.initializers.constant"])
class Constant(Initializer):
    """Initializer filling with a value: a scalar, or a list/array with the shape's size."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not np.isscalar(value) and not isinstance(value, (list, tuple, np.ndarray)):
            raise TypeError("Invalid type for initial value: %s (expected Python scalar, "
                            "list or tuple of values, or numpy.ndarray)." % type(value))
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def _generate(self, shape, dtype, gen, device):
        if self._verify_shape and list(np.shape(self.value)) != list(shape):
            raise TypeError("Expected Tensor's shape: %s, got %s."
                            % (tuple(shape), np.shape(self.value)))
        return _constant(self.value, shape, dtype, device)

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


@tf_export(v1=["random_uniform_initializer", "initializers.random_uniform"])
class RandomUniform(Initializer):
    """Uniform values in [minval, maxval) (maxval None: 1 for floats); ints allowed."""

    def __init__(self, minval=0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = dtypes.as_dtype(dtype)

    def _check_dtype(self, dtype):
        if not (dtype.is_floating or dtype.is_integer):
            raise ValueError("Invalid dtype %s: random uniform needs a float or integer type"
                             % dtype.name)
        if dtype.is_integer and self.maxval is None:
            raise ValueError("Must specify maxval for integer dtype %s" % dtype.name)
        return dtype

    def _generate(self, shape, dtype, gen, device):
        maxval = 1 if self.maxval is None else self.maxval
        return _uniform(shape, self.minval, maxval, dtype, gen, device)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


@tf_export(v1=["random_normal_initializer", "initializers.random_normal"])
class RandomNormal(Initializer):
    """Normal values with `mean` and `stddev` (floats only)."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def _check_dtype(self, dtype):
        return _assert_float_dtype(dtype)

    def _generate(self, shape, dtype, gen, device):
        return _normal(shape, self.mean, self.stddev, dtype, gen, device)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


@tf_export(v1=["truncated_normal_initializer", "initializers.truncated_normal"])
class TruncatedNormal(RandomNormal):
    """Normal values redrawn when more than two stddevs from the mean (floats only)."""

    def _generate(self, shape, dtype, gen, device):
        return _truncated_normal(shape, self.mean, self.stddev, dtype, gen, device)


@tf_export(v1=["uniform_unit_scaling_initializer", "initializers.uniform_unit_scaling"])
class UniformUnitScaling(Initializer):
    """Uniform in +-sqrt(3 / input_size) * factor, input_size = product of all but the last dim."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor, self.seed = factor, seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def _check_dtype(self, dtype):
        return _assert_float_dtype(dtype)

    def _generate(self, shape, dtype, gen, device):
        input_size = 1.0
        for dim in shape[:-1]:
            input_size *= float(dim)
        limit = math.sqrt(3 / max(input_size, 1.0)) * self.factor
        return _uniform(shape, -limit, limit, dtype, gen, device)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


@tf_export(v1=["variance_scaling_initializer", "initializers.variance_scaling",
               "keras.initializers.VarianceScaling"])
class VarianceScaling(Initializer):
    """Samples scaled by fan: stddev = sqrt(scale / fan) (TF's fans, truncation correction)."""

    _default_distribution = "truncated_normal"

    def __init__(self, scale=1.0, mode="fan_in", distribution=None, seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.:
            raise ValueError("`scale` must be positive float.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("Invalid `mode` argument: %s" % mode)
        distribution = (distribution or self._default_distribution).lower()
        if distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("Invalid `distribution` argument: %s" % distribution)
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    _fan_shape = None   # the full variable's shape when drawing one part of it

    def __call__(self, shape, dtype=None, partition_info=None, **kwargs):
        """TF1: a part of a partitioned variable is scaled by the full variable's fans
        (`partition_info.full_shape`), so its values spread as the whole variable's would."""
        if partition_info is None:
            return super(VarianceScaling, self).__call__(shape, dtype, **kwargs)
        whole = copy.copy(self)
        whole._fan_shape = list(partition_info.full_shape)
        return super(VarianceScaling, whole).__call__(shape, dtype, **kwargs)

    def _check_dtype(self, dtype):
        return _assert_float_dtype(dtype)

    def _generate(self, shape, dtype, gen, device):
        fan_in, fan_out = _compute_fans(self._fan_shape or shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out,
               "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1., fan)
        if self.distribution in ("normal", "truncated_normal"):
            return _truncated_normal(shape, 0.0, math.sqrt(scale) / _TRUNCATED_STDDEV, dtype,
                                     gen, device)
        if self.distribution == "untruncated_normal":
            return _normal(shape, 0.0, math.sqrt(scale), dtype, gen, device)
        limit = math.sqrt(3.0 * scale)
        return _uniform(shape, -limit, limit, dtype, gen, device)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


@tf_export(v1=["orthogonal_initializer", "initializers.orthogonal",
               "keras.initializers.Orthogonal", "keras.initializers.orthogonal"])
class Orthogonal(Initializer):
    """An orthogonal matrix (QR of a normal matrix, signed by diag(R)) times `gain`.

    Shapes of rank > 2 are flattened to (prod(shape[:-1]), shape[-1]).
    """

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.seed = gain, seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def _check_dtype(self, dtype):
        return _assert_float_dtype(dtype)

    def _generate(self, shape, dtype, gen, device):
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        num_rows = 1
        for dim in shape[:-1]:
            num_rows *= dim
        num_cols = shape[-1]
        flat = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        work = torch.float64 if dtype is dtypes.float64 else torch.float32
        a = torch.empty(flat, dtype=work, device=device).normal_(generator=gen)
        q, r = torch.linalg.qr(a)
        q = q * torch.sign(torch.diagonal(r))
        if num_rows < num_cols:
            q = q.t()
        return (self.gain * q).reshape(shape).to(dtype.torch_dtype).contiguous()

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


@tf_export(v1=["initializers.identity", "keras.initializers.Identity",
               "keras.initializers.identity"])
class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only; need not be square)."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def _check_dtype(self, dtype):
        return _assert_float_dtype(dtype)

    def _generate(self, shape, dtype, gen, device):
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        return self.gain * torch.eye(shape[0], shape[1], dtype=dtype.torch_dtype,
                                     device=device)

    def get_config(self):
        return {"gain": self.gain, "dtype": self.dtype.name}


@tf_export(v1=["glorot_uniform_initializer", "initializers.glorot_uniform",
               "keras.initializers.glorot_uniform"])
class GlorotUniform(VarianceScaling):
    """Uniform in +-sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super(GlorotUniform, self).__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


@tf_export(v1=["glorot_normal_initializer", "initializers.glorot_normal",
               "keras.initializers.glorot_normal"])
class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super(GlorotNormal, self).__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


@tf_export(v1=["initializers.he_normal", "keras.initializers.he_normal"])
def he_normal(seed=None):
    return VarianceScaling(2., "fan_in", "truncated_normal", seed)


@tf_export(v1=["initializers.he_uniform", "keras.initializers.he_uniform"])
def he_uniform(seed=None):
    return VarianceScaling(2., "fan_in", "uniform", seed)


@tf_export(v1=["initializers.lecun_normal", "keras.initializers.lecun_normal"])
def lecun_normal(seed=None):
    return VarianceScaling(1., "fan_in", "truncated_normal", seed)


@tf_export(v1=["initializers.lecun_uniform", "keras.initializers.lecun_uniform"])
def lecun_uniform(seed=None):
    return VarianceScaling(1., "fan_in", "uniform", seed)


# TF1 Keras: the random classes default to +-0.05 / stddev 0.05.


@tf_export(v1=["keras.initializers.RandomNormal", "keras.initializers.random_normal",
               "keras.initializers.normal"])
class KerasRandomNormal(RandomNormal):
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=dtypes.float32):
        super(KerasRandomNormal, self).__init__(mean, stddev, seed, dtype)


@tf_export(v1=["keras.initializers.RandomUniform", "keras.initializers.random_uniform",
               "keras.initializers.uniform"])
class KerasRandomUniform(RandomUniform):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype=dtypes.float32):
        super(KerasRandomUniform, self).__init__(minval, maxval, seed, dtype)


@tf_export(v1=["keras.initializers.TruncatedNormal", "keras.initializers.truncated_normal"])
class KerasTruncatedNormal(TruncatedNormal):
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=dtypes.float32):
        super(KerasTruncatedNormal, self).__init__(mean, stddev, seed, dtype)


for _cls, _name in ((KerasRandomNormal, "RandomNormal"), (KerasRandomUniform, "RandomUniform"),
                    (KerasTruncatedNormal, "TruncatedNormal")):
    _cls._keras_name = _name


# ---------------------------------------------------------------- TF2 / Keras classes


class _V2(object):
    """Mixin for TF2 initializers: no constructor dtype, seeded draws repeat on each call."""

    _stateless = True
    dtype = None

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


def _v2(base, name, *paths, **kwargs):
    """Define the TF2 flavour of a v1 class: same draws, TF2 constructor and seeding."""
    init_args = kwargs.pop("init_args")
    config = kwargs.pop("config", None)

    def __init__(self, *args, **kw):
        values = dict(init_args)
        for key, value in zip(init_args, args):
            values[key] = value
        unknown = set(kw) - set(init_args)
        if unknown:
            raise TypeError("%s got unexpected arguments %s" % (name, sorted(unknown)))
        values.update(kw)
        for key, value in values.items():
            setattr(self, key, value)
        if isinstance(self, VarianceScaling):  # TF's argument checks
            VarianceScaling.__init__(self, self.scale, self.mode, self.distribution, self.seed)
            self.dtype = None

    def get_config(self):
        return {key: getattr(self, key) for key in (config or init_args)}

    cls = type(name, (_V2, base), {"__init__": __init__, "get_config": get_config,
                                   "__module__": __name__, "_keras_name": name,
                                   "__doc__": "TF2 `%s` (see the TF1 class for the draw)."
                                              % name})
    tf_export(v2=list(paths))(cls)
    return cls


_K = "keras.initializers."
ZerosV2 = _v2(Zeros, "Zeros", "zeros_initializer", "initializers.Zeros", "initializers.zeros",
              _K + "Zeros", _K + "zeros", init_args={})
OnesV2 = _v2(Ones, "Ones", "ones_initializer", "initializers.Ones", "initializers.ones",
             _K + "Ones", _K + "ones", init_args={})
ConstantV2 = _v2(Constant, "Constant", "constant_initializer", "initializers.Constant",
                 "initializers.constant", _K + "Constant", _K + "constant",
                 init_args={"value": 0})
ConstantV2._verify_shape = False
RandomUniformV2 = _v2(RandomUniform, "RandomUniform", "random_uniform_initializer",
                      "initializers.RandomUniform", "initializers.random_uniform",
                      _K + "RandomUniform", _K + "random_uniform",
                      init_args={"minval": -0.05, "maxval": 0.05, "seed": None})
RandomNormalV2 = _v2(RandomNormal, "RandomNormal", "random_normal_initializer",
                     "initializers.RandomNormal", "initializers.random_normal",
                     _K + "RandomNormal", _K + "random_normal",
                     init_args={"mean": 0.0, "stddev": 0.05, "seed": None})
TruncatedNormalV2 = _v2(TruncatedNormal, "TruncatedNormal", "initializers.TruncatedNormal",
                        "initializers.truncated_normal", _K + "TruncatedNormal",
                        _K + "truncated_normal",
                        init_args={"mean": 0.0, "stddev": 0.05, "seed": None})
VarianceScalingV2 = _v2(VarianceScaling, "VarianceScaling", "initializers.VarianceScaling",
                        "initializers.variance_scaling", _K + "VarianceScaling",
                        _K + "variance_scaling",
                        init_args={"scale": 1.0, "mode": "fan_in",
                                   "distribution": "truncated_normal", "seed": None})
OrthogonalV2 = _v2(Orthogonal, "Orthogonal", "initializers.Orthogonal",
                   "initializers.orthogonal", _K + "Orthogonal", _K + "orthogonal",
                   init_args={"gain": 1.0, "seed": None})
IdentityV2 = _v2(Identity, "Identity", "initializers.Identity", "initializers.identity",
                 _K + "Identity", _K + "identity", init_args={"gain": 1.0})


def _fixed_variance_scaling(name, scale, mode, distribution, lower):
    cls = _v2(VarianceScaling, name, "initializers." + name, "initializers." + lower,
              _K + name, _K + lower, init_args={"seed": None}, config=("seed",))
    cls.scale, cls.mode, cls.distribution = scale, mode, distribution
    return cls


GlorotUniformV2 = _fixed_variance_scaling("GlorotUniform", 1.0, "fan_avg", "uniform",
                                          "glorot_uniform")
GlorotNormalV2 = _fixed_variance_scaling("GlorotNormal", 1.0, "fan_avg", "truncated_normal",
                                         "glorot_normal")
HeNormal = _fixed_variance_scaling("HeNormal", 2.0, "fan_in", "truncated_normal", "he_normal")
HeUniform = _fixed_variance_scaling("HeUniform", 2.0, "fan_in", "uniform", "he_uniform")
LecunNormal = _fixed_variance_scaling("LecunNormal", 1.0, "fan_in", "truncated_normal",
                                      "lecun_normal")
LecunUniform = _fixed_variance_scaling("LecunUniform", 1.0, "fan_in", "uniform",
                                       "lecun_uniform")
