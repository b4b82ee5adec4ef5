"""Counter-based random numbers with TensorFlow's values: the Philox4x32-10 generator and
TF's conversions of its 32-bit words (tensorflow/core/lib/random/philox_random.h,
random_distributions.h, kernels/random_op_cpu.h), and the `tf.random.stateless_*` ops.

A Philox stream is a 128-bit counter and a 64-bit key, held as TF's kernels take them: an
int64 `counter` of shape [2] (low word first) and an int64 `key` of shape [1]. Words are
int64 tensors holding values in [0, 2**32), so everything runs in torch, on any device and
on fake tensors while a graph is built. Outputs equal TF's CPU kernels' for outputs that TF
fills in one shard (its multithreaded fill of large outputs can skip differently);
float32 Box-Muller values agree to an ulp (torch's sin/log, not glibc's).
"""
import math

import torch

from tfcompat.framework import context, dtypes, errors
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import is_tensor_value, op, to_torch
from tfcompat.ops.random_ops import _FLOATS, _INTS, _dtype, _param, _shape

_MASK = 0xFFFFFFFF
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_SEED_SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)   # TF's GenerateKey for seeds
# Counters a group of outputs may use in distributions that draw until they accept
# (FillPhiloxRandomTask's kReservedSamplesPerOutput)
_RESERVED_SAMPLES_PER_OUTPUT = 256
_TRUNCATION_BLOCKS = 8      # blocks drawn per truncated-normal group: 32 words, >= 16 tries
_BOX_MULLER_EPSILON = 1.0e-7


def _split64(value):
    """Low and high 32-bit words of int64 values (read as uint64)."""
    return value & _MASK, (value >> 32) & _MASK


def _join64(low, high):
    """int64 values (uint64 bits) from 32-bit words."""
    return low | (high << 32)


def philox(counter_words, key_words):
    """Philox4x32-10: four output words per counter, each an int64 tensor.

    `counter_words`: four word tensors (broadcastable); `key_words`: two words."""
    c0, c1, c2, c3 = counter_words
    k0, k1 = key_words
    for round_index in range(10):
        if round_index:
            k0, k1 = (k0 + _PHILOX_W[0]) & _MASK, (k1 + _PHILOX_W[1]) & _MASK
        p0, p1 = c0 * _PHILOX_M[0], c2 * _PHILOX_M[1]   # wraps mod 2**64: same low bits
        c0, c1, c2, c3 = (((p1 >> 32) & _MASK) ^ c1 ^ k0, p1 & _MASK,
                          ((p0 >> 32) & _MASK) ^ c3 ^ k1, p0 & _MASK)
    return c0, c1, c2, c3


def _counter_words(counter):
    low, high = counter.reshape(2)[0], counter.reshape(2)[1]
    return _split64(low) + _split64(high)


def add_to_counter(counter, offset):
    """The 128-bit `counter` ([2] int64) plus `offset` (int64 >= 0, any shape): four words."""
    w0, w1, w2, w3 = _counter_words(counter)
    offset_low, offset_high = _split64(offset)
    total0 = w0 + offset_low
    total1 = w1 + offset_high + (total0 >> 32)
    total2 = w2 + (total1 >> 32)
    total3 = w3 + (total2 >> 32)
    return [total0 & _MASK, total1 & _MASK, total2 & _MASK, total3 & _MASK]


def skip_counter(counter, count):
    """`counter` advanced by `count` (an int64 scalar tensor) blocks, as TF's Philox Skip."""
    w0, w1, w2, w3 = add_to_counter(counter, count)
    return torch.stack([_join64(w0, w1), _join64(w2, w3)])


def _blocks(key, counter, offsets):
    """Philox outputs at counter + offsets: int64 tensor of shape offsets.shape + [4]."""
    key_words = _split64(key.reshape(1)[0])
    return torch.stack(philox(add_to_counter(counter, offsets), key_words), -1)


def _word_stream(key, counter, count):
    """The first `count` words of the stream starting at `counter`."""
    blocks = -(-count // 4)
    offsets = torch.arange(blocks, dtype=torch.int64, device=key.device)
    return _blocks(key, counter, offsets).reshape(-1)[:count]


def _uint32_to_float(words):
    """TF's Uint32ToFloat: 23 random mantissa bits, a float32 in [0, 1)."""
    return (words & 0x7FFFFF).to(torch.float32) * (2.0 ** -23)


def _uint64_to_double(high_words, low_words):
    """TF's Uint64ToDouble(x0, x1): 20 bits of x0 and all of x1, a float64 in [0, 1)."""
    return (((high_words & 0xFFFFF) << 32) | low_words).to(torch.float64) * (2.0 ** -52)


def _box_muller_float(x0, x1):
    """TF's BoxMullerFloat: two standard normal float32s per pair of words."""
    u1 = _uint32_to_float(x0).clamp_min(_BOX_MULLER_EPSILON)
    v1 = (2 * math.pi * _uint32_to_float(x1).double()).float()
    u2 = torch.sqrt(-2.0 * torch.log(u1))
    return torch.sin(v1) * u2, torch.cos(v1) * u2


def _box_muller_double(x0, x1, x2, x3):
    u1 = _uint64_to_double(x0, x1).clamp_min(_BOX_MULLER_EPSILON)
    v1 = 2 * math.pi * _uint64_to_double(x2, x3)
    u2 = torch.sqrt(-2.0 * torch.log(u1))
    return torch.sin(v1) * u2, torch.cos(v1) * u2


def _count(shape):
    return math.prod(shape)


def _paired(words):
    """Words [n*2] as their (even, odd) halves."""
    pairs = words.reshape(-1, 2)
    return pairs[:, 0], pairs[:, 1]


def uniform_bits(shape, key, counter, dtype):
    """Uniform values in [0, 1) of a float dtype (TF's UniformDistribution)."""
    n = _count(shape)
    if dtype is dtypes.float64:
        high, low = _paired(_word_stream(key, counter, 2 * n))
        return _uint64_to_double(high, low).reshape(shape)
    words = _word_stream(key, counter, n)
    if dtype is dtypes.float16:
        values = (words & 0x3FF).to(torch.float16) * (2.0 ** -10)
    elif dtype is dtypes.bfloat16:
        values = (words & 0x7F).to(torch.bfloat16) * (2.0 ** -7)
    else:
        values = _uint32_to_float(words)
    return values.reshape(shape)


def standard_normal(shape, key, counter, dtype):
    """Standard normal values (TF's NormalDistribution: Box-Muller on word pairs; float16
    and bfloat16 are float32 values rounded)."""
    n = _count(shape)
    if dtype is dtypes.float64:
        blocks = _word_stream(key, counter, 4 * (-(-n // 2))).reshape(-1, 4)
        pair = _box_muller_double(*blocks.unbind(1))
    else:
        pair = _box_muller_float(*_paired(_word_stream(key, counter, 2 * (-(-n // 2)))))
    return torch.stack(pair, 1).reshape(-1)[:n].reshape(shape).to(dtype.torch_dtype)


def truncated_standard_normal(shape, key, counter, dtype):
    """Standard normal values within (-2, 2) (TF's TruncatedNormalDistribution).

    TF fills groups of 4 outputs (2 for float64), each from its own stretch of 256 words per
    output, redrawing Box-Muller pairs until enough fall inside; here each group takes the
    first accepted of a fixed 16+ tries, which run out with probability below 1e-30."""
    n = _count(shape)
    double = dtype is dtypes.float64
    group = 2 if double else 4
    groups = -(-n // group)
    skip_per_group = group * _RESERVED_SAMPLES_PER_OUTPUT // 4
    offsets = (torch.arange(groups, dtype=torch.int64, device=key.device)[:, None]
               * skip_per_group + torch.arange(_TRUNCATION_BLOCKS, device=key.device))
    words = _blocks(key, counter, offsets)                       # [groups, blocks, 4]
    if double:
        pair = _box_muller_double(*words.unbind(-1))
    else:
        pairs = words.reshape(groups, -1, 2)
        pair = _box_muller_float(pairs[..., 0], pairs[..., 1])
    candidates = torch.stack(pair, -1).reshape(groups, -1)
    tries = candidates.shape[1]
    position = torch.arange(tries, device=key.device)
    order = torch.where(candidates.abs() < 2.0, position, position + tries).argsort(1)
    chosen = candidates.gather(1, order[:, :group])
    return chosen.reshape(-1)[:n].reshape(shape).to(dtype.torch_dtype)


def _unsigned_remainder(bits, divisor):
    """`bits` read as uint64, modulo `divisor` (int64, 0 < divisor < 2**61)."""
    remainder = torch.remainder(bits, divisor)
    two_to_64 = torch.remainder(torch.remainder(torch.full_like(divisor, 2 ** 62), divisor) * 4,
                                divisor)
    return torch.where(bits < 0, torch.remainder(remainder + two_to_64, divisor), remainder)


def uniform_int(shape, key, counter, minval, maxval, dtype):
    """Integers in [minval, maxval) as TF's UniformDistribution: minval + bits % range
    (ranges of 2**61 and more are not supported)."""
    n = _count(shape)
    low, high = minval.to(torch.int64), maxval.to(torch.int64)
    if dtype is dtypes.int64:
        even, odd = _paired(_word_stream(key, counter, 2 * n))
        values = low + _unsigned_remainder(_join64(even, odd), high - low)
    else:
        values = low + torch.remainder(_word_stream(key, counter, n), high - low)
    return values.reshape(shape).to(dtype.torch_dtype)


def uniform_full_int(shape, key, counter, dtype):
    """Integers over the dtype's whole range (TF's UniformFullIntDistribution)."""
    n = _count(shape)
    if dtype in (dtypes.int64, dtypes.uint64):
        even, odd = _paired(_word_stream(key, counter, 2 * n))
        values = _join64(even, odd)
    else:
        values = _word_stream(key, counter, n)
        if dtype is dtypes.int32:
            values = torch.where(values >= 2 ** 31, values - 2 ** 32, values)
    return values.reshape(shape).to(dtype.torch_dtype)


def _seed_tensor(seed):
    t = to_torch(seed)
    if not isinstance(t, torch.Tensor) or t.dtype not in (torch.int32, torch.int64):
        raise errors.InvalidArgumentError("{op}: seed must be an int32 or int64 tensor, got %r"
                                          % (seed,))
    if tuple(t.shape) != (2,):
        raise errors.InvalidArgumentError("{op}: seed must have shape [2], not %s"
                                          % format_shape(t.shape))
    return t.to(torch.int64)


def key_counter_from_seed(seed):
    """TF's StatelessRandomGetKeyCounter (Philox): one Philox block of the seed pair under a
    fixed key gives the key (its first two words) and the counter's high half."""
    seed = _seed_tensor(seed)
    mix = philox(_split64(seed[0]) + _split64(seed[1]), _SEED_SCRAMBLE_KEY)
    key = _join64(mix[0], mix[1]).reshape(1)
    counter = torch.stack([torch.zeros_like(mix[2]), _join64(mix[2], mix[3])])
    return key, counter


def check_range(minval, maxval):
    """TF's `Need minval < maxval` check, where both bounds are known numbers."""
    bounds = []
    for value in (minval, maxval):
        t = value if isinstance(value, torch.Tensor) else None
        if t is not None and (t.ndim or type(t).__name__ == "FakeTensor"):
            return
        bounds.append(int(value) if t is None else int(t.item()))
    if bounds[0] >= bounds[1]:
        raise errors.InvalidArgumentError("{op}: Need minval < maxval: %d >= %d" % tuple(bounds))


def uniform(shape, key, counter, minval, maxval, dtype):
    """TF's stateless/stateful `uniform` once key and counter are known: integers need
    both bounds or neither (the whole range); floats are `rnd * (maxval - minval) + minval`."""
    if dtype in _INTS or dtype is dtypes.uint64 or dtype is dtypes.uint32:
        if (minval is None) != (maxval is None):
            raise ValueError("For integer dtype %s, minval and maxval must be both `None` or "
                             "both non-`None`; got minval=%r and maxval=%r"
                             % (dtype.name, minval, maxval))
        if minval is None:
            return uniform_full_int(shape, key, counter, dtype)
        check_range(minval, maxval)
        return uniform_int(shape, key, counter, to_torch(minval, dtype), to_torch(maxval, dtype),
                           dtype)
    maxval = 1 if maxval is None else maxval
    lo, hi = _param(minval, dtype), _param(maxval, dtype)
    return uniform_bits(shape, key, counter, dtype) * (hi - lo) + lo


def _on_device(key, counter):
    device = context.current_device()
    return key.to(device), counter.to(device)


@op("random.stateless_uniform", graph_name="StatelessRandomUniformV2")
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None,
                      alg="auto_select"):
    """TF's values for `shape` and the seed pair: floats in [minval, maxval), integers in
    [minval, maxval) or, with both bounds None, over the dtype's whole range."""
    dtype = _dtype(dtype, _FLOATS + _INTS + (dtypes.uint32, dtypes.uint64))
    key, counter = _on_device(*key_counter_from_seed(seed))
    return uniform(_shape(shape), key, counter, minval, maxval, dtype)


@op("random.stateless_normal", graph_name="StatelessRandomNormalV2")
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                     alg="auto_select"):
    """TF's normal values for `shape` and the seed pair."""
    dtype = _dtype(dtype, _FLOATS)
    key, counter = _on_device(*key_counter_from_seed(seed))
    return standard_normal(_shape(shape), key, counter, dtype) * _param(stddev, dtype) + \
        _param(mean, dtype)


@op("random.stateless_truncated_normal", graph_name="StatelessTruncatedNormalV2")
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                               name=None, alg="auto_select"):
    """TF's normal values within 2 stddev of the mean for `shape` and the seed pair."""
    dtype = _dtype(dtype, _FLOATS)
    key, counter = _on_device(*key_counter_from_seed(seed))
    return truncated_standard_normal(_shape(shape), key, counter, dtype) * \
        _param(stddev, dtype) + _param(mean, dtype)


@op("random.experimental.stateless_split", "random.split",
    graph_name="StatelessRandomUniformFullIntV2")
def stateless_split(seed, num=2, alg="auto_select"):
    """`num` new seed pairs from `seed`: full-range integers of the seed's dtype."""
    t = _seed_tensor(seed)
    dtype = dtypes.from_torch(to_torch(seed).dtype)
    key, counter = key_counter_from_seed(t)
    return uniform_full_int([int(num), 2], key, counter, dtype)


@op("random.experimental.stateless_fold_in", "random.fold_in",
    graph_name="StatelessRandomUniformFullIntV2")
def stateless_fold_in(seed, data, alg="auto_select"):
    """A new seed pair `[a full-range integer drawn from seed, data]` of data's dtype."""
    value = to_torch(data)
    dtype = dtypes.from_torch(value.dtype)
    key, counter = key_counter_from_seed(seed)
    drawn = uniform_full_int([], key, counter, dtype).to(value.device)
    return torch.stack([drawn, value.reshape(())])


@op("random.stateless_categorical", graph_name="StatelessMultinomial")
def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """TF's class indices for each row of unnormalized log-probabilities `logits`: each
    sample is the first class whose running sum of exp(logit - max) exceeds a uniform
    float64 times the row's total, the draws taken in row order from one word stream."""
    x = to_torch(logits)
    if x.ndim != 2:
        raise errors.InvalidArgumentError("{op}: logits should be a matrix, got shape %s"
                                          % format_shape(x.shape))
    dtype = _dtype(dtype, _INTS)
    n = int(to_torch(num_samples).item()) if is_tensor_value(num_samples) or \
        isinstance(num_samples, torch.Tensor) else int(num_samples)
    key, counter = key_counter_from_seed(seed)
    key, counter = key.to(x.device), counter.to(x.device)
    rows = x.shape[0]
    logits64 = x.double()
    finite = torch.isfinite(logits64)
    top = torch.where(finite, logits64, -math.inf).amax(1, keepdim=True)
    weights = torch.where(finite, torch.exp(logits64 - top), 0.0)
    cdf = weights.cumsum(1)
    high, low = _paired(_word_stream(key, counter, 2 * rows * n))
    target = _uint64_to_double(high, low).reshape(rows, n) * cdf[:, -1:]
    samples = torch.searchsorted(cdf.contiguous(), target.contiguous(), right=True)
    return samples.to(dtype.torch_dtype)


# TF's key/counter ops (gen_stateless_random_ops_v2), which tf.random.Generator samples with.


@op(graph_name="StatelessRandomUniformV2")
def stateless_random_uniform_v2(shape, key, counter, alg=1, dtype=dtypes.float32, name=None):
    return uniform_bits(_shape(shape), to_torch(key), to_torch(counter),
                        _dtype(dtype, _FLOATS))


@op(graph_name="StatelessRandomNormalV2")
def stateless_random_normal_v2(shape, key, counter, alg=1, dtype=dtypes.float32, name=None):
    return standard_normal(_shape(shape), to_torch(key), to_torch(counter),
                           _dtype(dtype, _FLOATS))


@op(graph_name="StatelessTruncatedNormalV2")
def stateless_truncated_normal_v2(shape, key, counter, alg=1, dtype=dtypes.float32,
                                  name=None):
    return truncated_standard_normal(_shape(shape), to_torch(key), to_torch(counter),
                                     _dtype(dtype, _FLOATS))


@op(graph_name="StatelessRandomUniformIntV2")
def stateless_random_uniform_int_v2(shape, key, counter, alg, minval, maxval, name=None):
    low = to_torch(minval)
    dtype = _dtype(dtypes.from_torch(low.dtype), _INTS)
    check_range(minval, maxval)
    return uniform_int(_shape(shape), to_torch(key), to_torch(counter), low,
                       to_torch(maxval, dtype), dtype)


@op(graph_name="StatelessRandomUniformFullIntV2")
def stateless_random_uniform_full_int_v2(shape, key, counter, alg=1, dtype=dtypes.uint64,
                                         name=None):
    return uniform_full_int(_shape(shape), to_torch(key), to_torch(counter),
                            _dtype(dtype, _INTS + (dtypes.uint32, dtypes.uint64)))
