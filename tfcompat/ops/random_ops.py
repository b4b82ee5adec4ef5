"""Random ops: `tf.random.*` and TF 1.x's `tf.random_normal`, `tf.truncated_normal`, ...

Seeds follow TF (`framework.random_seed`): with no global or op seed the draws come from
torch's default generator; otherwise each (global seed, op seed) names its own generator,
so re-setting the global seed replays the same sequence. Every call draws fresh numbers
(in graph mode, every `Session.run`). New tensors go to the current device; values differ
from TensorFlow's own generators (the stateless ops and tf.random.Generator, in
stateless_random_ops.py / stateful_random_ops.py, give TF's values).
"""
import math

import numpy as np
import torch
from torch._subclasses.fake_tensor import FakeTensor

from tfcompat.framework import context, dtypes, errors, random_seed
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import is_tensor_value, op, to_torch
from tfcompat.framework.tensor_shape import TensorShape

_FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_INTS = (dtypes.int32, dtypes.int64)
_TRUNC_LOW = 0.5 * math.erfc(2 / math.sqrt(2))  # P(z < -2) of the standard normal


def _shape(shape):
    """A 1-D shape (list, tuple, TensorShape or int tensor) as Python ints (errors name the
    op being run).

    A tensor shape is read with `.tolist()`: the output shape needs its values.
    """
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError("{op}: shape must be fully defined, got %s" % (shape,))
        return shape.as_list()
    if isinstance(shape, torch.Tensor) or is_tensor_value(shape):
        t = to_torch(shape)
        if t.ndim != 1:
            raise errors.InvalidArgumentError(
                "{op}: shape must be a vector of {int32,int64}, got shape %s"
                % format_shape(t.shape))
        dims = [int(v) for v in t.tolist()]
    elif isinstance(shape, (list, tuple)):
        dims = [int(to_torch(d).item()) if is_tensor_value(d) or isinstance(d, torch.Tensor)
                else int(d) for d in shape]
    elif isinstance(shape, np.ndarray) and shape.ndim == 1:
        dims = [int(d) for d in shape]
    else:
        raise errors.InvalidArgumentError(
            "{op}: shape must be a vector of {int32,int64}, got %r" % (shape,))
    if any(d < 0 for d in dims):
        raise errors.InvalidArgumentError("{op}: shape must be non-negative, got %s" % (dims,))
    return dims


def _dtype(dtype, allowed):
    d = dtypes.as_dtype(dtype)
    if d not in allowed:
        raise TypeError("Value passed to parameter 'dtype' of {op} has DataType %s not in "
                        "list of allowed values: %s" % (d.name,
                                                        ", ".join(a.name for a in allowed)))
    return d


def _param(value, dtype):
    """A mean/stddev/minval argument: Python numbers stay; tensors must have `dtype`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return to_torch(value, dtype)


# Samplers fill `torch.empty(...)` in place: `torch.rand(shape, generator=...)` rejects the
# symbolic sizes graph mode infers shapes with.


def _normal(shape, mean, stddev, dtype, gen, device):
    out = torch.empty(shape, dtype=dtype.torch_dtype, device=device).normal_(generator=gen)
    return out * _param(stddev, dtype) + _param(mean, dtype)


def _uniform(shape, minval, maxval, dtype, gen, device):
    if dtype in _INTS:
        if maxval is None:
            raise ValueError("Must specify maxval for integer dtype %s" % dtype.name)
        if isinstance(minval, int) and isinstance(maxval, int):
            if minval >= maxval:
                raise errors.InvalidArgumentError("{op}: Need minval < maxval: %d >= %d"
                                                  % (minval, maxval))
            return torch.empty(shape, dtype=dtype.torch_dtype, device=device).random_(
                minval, maxval, generator=gen)
        lo, hi = to_torch(minval, dtype).long(), to_torch(maxval, dtype).long()
        bits = torch.empty(shape, dtype=torch.int64, device=device).random_(
            0, 2 ** 62, generator=gen)
        return (bits % (hi - lo) + lo).to(dtype.torch_dtype)
    maxval = 1 if maxval is None else maxval
    out = torch.empty(shape, dtype=dtype.torch_dtype, device=device).uniform_(generator=gen)
    lo, hi = _param(minval, dtype), _param(maxval, dtype)
    return out * (hi - lo) + lo


def _truncated(shape, mean, stddev, dtype, gen, device):
    """Normal values redrawn until within 2 stddev, sampled directly by the inverse CDF."""
    compute = torch.float64 if dtype is dtypes.float64 else torch.float32
    u = torch.empty(shape, dtype=compute, device=device).uniform_(generator=gen)
    z = torch.erfinv((u * (1 - 2 * _TRUNC_LOW) + _TRUNC_LOW) * 2 - 1) * math.sqrt(2)
    z = z.clamp_(-2, 2).to(dtype.torch_dtype)
    return z * _param(stddev, dtype) + _param(mean, dtype)


@op("random.normal", v1=["random_normal"], graph_name="RandomStandardNormal")
def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values of `shape`."""
    dtype = _dtype(dtype, _FLOATS)
    device = context.current_device()
    return _normal(_shape(shape), mean, stddev, dtype,
                   random_seed.generator(seed, device), device)


@op("random.uniform", v1=["random_uniform"], graph_name="RandomUniform")
def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform values in [minval, maxval); integer dtypes need `maxval`."""
    dtype = _dtype(dtype, _FLOATS + _INTS)
    device = context.current_device()
    return _uniform(_shape(shape), minval, maxval, dtype,
                    random_seed.generator(seed, device), device)


@op("random.truncated_normal", v1=["truncated_normal"], graph_name="TruncatedNormal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None,
                     name=None):
    """Normal values more than 2 stddev from the mean are redrawn (the same distribution)."""
    dtype = _dtype(dtype, _FLOATS)
    device = context.current_device()
    return _truncated(_shape(shape), mean, stddev, dtype,
                      random_seed.generator(seed, device), device)


@op("random.shuffle", v1=["random_shuffle"], graph_name="RandomShuffle")
def random_shuffle(value, seed=None, name=None):
    """`value` with its first dimension randomly permuted."""
    t = to_torch(value)
    if t.ndim == 0:
        return t
    if isinstance(t, np.ndarray):       # strings: permute positions, then the array
        keys = torch.empty(t.shape[0]).uniform_(
            generator=random_seed.generator(seed, torch.device("cpu")))
        return t if isinstance(keys, FakeTensor) else t[torch.argsort(keys).numpy()]
    # argsort of uniform keys: randperm would fix an unknown first dimension in graph mode
    keys = torch.empty(t.shape[0], device=t.device).uniform_(
        generator=random_seed.generator(seed, t.device))
    return t[torch.argsort(keys)]


def _categorical(logits, num_samples, dtype, seed):
    x = to_torch(logits)
    if x.ndim != 2:
        raise errors.InvalidArgumentError("logits should be a matrix, got shape %s"
                                          % format_shape(x.shape))
    dtype = _dtype(dtype or dtypes.int64, _INTS)
    n = int(to_torch(num_samples).item()) if is_tensor_value(num_samples) or \
        isinstance(num_samples, torch.Tensor) else int(num_samples)
    if x.shape[1] == 0 or n == 0:
        return torch.zeros((x.shape[0], n), dtype=dtype.torch_dtype, device=x.device)
    probs = torch.softmax(x.double() if x.dtype == torch.float64 else x.float(), dim=1)
    samples = torch.multinomial(probs, n, replacement=True,
                                generator=random_seed.generator(seed, x.device))
    return samples.to(dtype.torch_dtype)


@op(v1=["multinomial", "random.multinomial"], graph_name="Multinomial")
def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """Samples [batch, num_samples] of class indices from unnormalized log-probabilities.

    A tensor `num_samples` is read with `.item()` (the output shape needs it)."""
    return _categorical(logits, num_samples, output_dtype, seed)


@op("random.categorical", graph_name="Multinomial")
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    return _categorical(logits, num_samples, dtype, seed)


@op("random.gamma", v1=["random_gamma"], graph_name="RandomGamma")
def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """Gamma(alpha, rate=beta) samples of shape `shape + broadcast(alpha, beta).shape`."""
    dtype = _dtype(dtype, _FLOATS)
    a = to_torch(alpha, dtype) if not isinstance(alpha, torch.Tensor) else alpha
    b = None if beta is None else to_torch(beta, dtype) if not isinstance(
        beta, torch.Tensor) else beta
    param_shape = list(a.shape) if b is None else list(torch.broadcast_shapes(a.shape,
                                                                              b.shape))
    out_shape = _shape(shape) + param_shape
    compute = torch.float64 if dtype is dtypes.float64 else torch.float32
    concentration = a.to(compute).expand(out_shape).contiguous()
    sample = torch._standard_gamma(concentration,
                                   generator=random_seed.generator(seed, a.device))
    if b is not None:
        sample = sample / b.to(compute)
    # TF clamps at the smallest positive normal number so log(sample) stays finite
    return sample.clamp_min(torch.finfo(dtype.torch_dtype).tiny).to(dtype.torch_dtype)


def _poisson(lam, shape, dtype, seed):
    dtype = _dtype(dtype, _FLOATS + _INTS)
    rate = to_torch(lam)
    if not rate.is_floating_point():
        rate = rate.double()
    out_shape = _shape(shape) + list(rate.shape)
    compute = torch.float64 if rate.dtype == torch.float64 else torch.float32
    sample = torch.poisson(rate.to(compute).expand(out_shape).contiguous(),
                           generator=random_seed.generator(seed, rate.device))
    return sample.to(dtype.torch_dtype)


@op(v1=["random_poisson", "random.poisson"], graph_name="RandomPoissonV2")
def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None):
    """Poisson(lam) samples of shape `shape + lam.shape` (TF 1.x argument order)."""
    return _poisson(lam, shape, dtype, seed)


@op(v2=["random.poisson"], graph_name="RandomPoissonV2")
def random_poisson_v2(shape, lam, dtype=dtypes.float32, seed=None, name=None):
    return _poisson(lam, shape, dtype, seed)


@op("image.random_crop", v1=["random_crop"], graph_name="RandomCrop")
def random_crop(value, size, seed=None, name=None):
    """A random slice of `value` with shape `size` (same offsets for the whole slice).

    A tensor `size` is read with `.tolist()`."""
    t = to_torch(value)
    size = _shape(size)
    if len(size) != t.ndim:
        raise ValueError("size must have %d elements (the rank of value), got %s"
                         % (t.ndim, size))
    if any(s > d for s, d in zip(size, t.shape)):
        raise errors.InvalidArgumentError("Need value.shape >= size, got %s vs %s"
                                          % (format_shape(t.shape), size))
    gen = random_seed.generator(seed, t.device)
    index = []
    for axis, (s, d) in enumerate(zip(size, t.shape)):
        offset = torch.empty(1, dtype=torch.int64, device=t.device).random_(
            0, d - s + 1, generator=gen)
        shape = [1] * t.ndim
        shape[axis] = s
        index.append((torch.arange(s, device=t.device) + offset).reshape(shape))
    return t[tuple(index)]
