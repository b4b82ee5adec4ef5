"""TF's window functions (`tf.signal.hann_window`, ...), computed in the requested dtype in
TF's order of operations so float32 windows match TF's to the last bits."""
import math

import torch

from tfcompat.framework import context, dtypes
from tfcompat.framework.ops import op
from tfcompat.ops.array_ops import _as_int


def _float_dtype(dtype):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError("dtype must be a floating point type. Found %s" % dtype)
    return dtype.torch_dtype


def _scalar(value, dtype):
    return torch.tensor(value, dtype=dtype, device=context.current_device())


def _positions(window_length, dtype):
    return torch.arange(window_length, device=context.current_device()).to(dtype)


def _raised_cosine(window_length, periodic, dtype, a, b):
    """a - b * cos(2 pi n / N), N the length (minus 1 unless periodic and even)."""
    length = _as_int(window_length)
    dtype = _float_dtype(dtype)
    if length == 1:
        return torch.ones(1, dtype=dtype, device=context.current_device())
    even = 1 - length % 2
    denominator = _scalar(length + int(bool(periodic)) * even - 1, dtype)
    angles = _scalar(2 * math.pi, dtype) * _positions(length, dtype) / denominator
    return _scalar(a, dtype) - _scalar(b, dtype) * torch.cos(angles)


@op("signal.hann_window", "contrib.signal.hann_window", graph_name="HannWindow")
def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """`tf.signal.hann_window`: 0.5 - 0.5 cos(2 pi n / N); `periodic` windows use N = length
    for even lengths (the first `length` points of a length + 1 window), as TF."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


@op("signal.hamming_window", "contrib.signal.hamming_window",
    graph_name="HammingWindow")
def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """`tf.signal.hamming_window`: 0.54 - 0.46 cos(2 pi n / N), N as for `hann_window`."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


def _kaiser(length, beta, dtype):
    if length == 1:
        return torch.ones(1, dtype=dtype, device=context.current_device())
    half = (length - 1) / 2.0
    positions = (_positions(length, torch.float32) - half).to(dtype)
    beta = _scalar(beta, dtype)
    half = _scalar(half, dtype)
    root = beta * torch.sqrt(torch.relu(1 - torch.square(positions / half)))
    return torch.exp(root - beta) * (torch.special.i0e(root) / torch.special.i0e(beta))


@op("signal.kaiser_window", graph_name="KaiserWindow")
def kaiser_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """`tf.signal.kaiser_window`: I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta), by
    exponentially scaled Bessel functions as TF."""
    return _kaiser(_as_int(window_length), beta, _float_dtype(dtype))


@op("signal.kaiser_bessel_derived_window", graph_name="KaiserBesselDerivedWindow")
def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """`tf.signal.kaiser_bessel_derived_window`: the square root of the normalised running
    sum of a Kaiser window of length // 2 + 1, mirrored (2 * (length // 2) samples, so odd
    lengths give one sample less, as TF)."""
    kaiser = _kaiser(_as_int(window_length) // 2 + 1, beta, _float_dtype(dtype))
    running = torch.cumsum(kaiser, 0)
    half = torch.sqrt(running[:-1] / running[-1])
    return torch.cat([half, half.flip(0)])


@op("signal.vorbis_window", graph_name="VorbisWindow")
def vorbis_window(window_length, dtype=dtypes.float32, name=None):
    """`tf.signal.vorbis_window`: sin(pi / 2 sin^2(pi (n + 0.5) / length))."""
    length = _as_int(window_length)
    dtype = _float_dtype(dtype)
    inner = _scalar(math.pi, dtype) / _scalar(length, dtype) * (_positions(length, dtype) + 0.5)
    return torch.sin(_scalar(math.pi / 2.0, dtype) * torch.pow(torch.sin(inner), 2.0))
