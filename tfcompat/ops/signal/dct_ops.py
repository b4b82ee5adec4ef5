"""TF's `tf.signal.dct` / `idct` (types I-IV, norm None or "ortho") on `torch.fft`, by TF's
own formulas (an rfft of twice the length), so values and scaling are TF's: the inverse of
an unnormalised type-II DCT is `idct(..., type=2) / (2 * N)`, and type I takes no norm."""
import math

import torch

from tfcompat.framework.ops import op, to_torch
from tfcompat.ops.signal.fft_ops import inverse_real_fft, real_fft, real_input

_INVERSE_TYPE = {1: 1, 2: 3, 3: 2, 4: 4}


def check_dct_arguments(t, dct_type, n, axis, norm):
    """TF's argument checks, in TF's order and with its error classes."""
    if axis != -1:
        raise NotImplementedError("axis must be -1. Got: %s" % axis)
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if t.shape[-1] < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError("Unknown normalization. Expected None or 'ortho', got: %s" % norm)


def _phases(like, size, sign):
    """2 exp(sign * i pi k / (2 size)) for k < size, complex of `like`'s real dtype."""
    positions = torch.arange(size, device=like.device).to(like.dtype)
    angles = sign * positions * math.pi * 0.5 / size
    return 2.0 * torch.polar(torch.ones_like(angles), angles)


def dct_torch(t, dct_type=2, n=None, norm=None):
    """The DCT of a real torch tensor's last dimension (truncated or zero-padded to `n`)."""
    if n is not None:
        size = t.shape[-1]
        t = t[..., :n] if n <= size else torch.nn.functional.pad(t, (0, n - size))
    size = t.shape[-1]
    if dct_type == 1:
        return real_fft(torch.cat([t, t[..., 1:-1].flip(-1)], -1), 1).real
    if dct_type == 2:
        spectrum = real_fft(t, 1, [2 * size])[..., :size]
        result = (spectrum * _phases(t, size, -1)).real
        if norm == "ortho":
            first = 0.5 / math.sqrt(size)
            weights = torch.full((size,), first * math.sqrt(2.0), dtype=t.dtype, device=t.device)
            weights[0] = first
            result = result * weights
        return result
    if dct_type == 3:
        if norm == "ortho":
            first = math.sqrt(size)
            weights = torch.full((size,), first * math.sqrt(0.5), dtype=t.dtype, device=t.device)
            weights[0] = first
            t = t * weights
        else:
            t = t * size
        spectrum = _phases(t, size, 1) * t
        return inverse_real_fft(spectrum, 1, [2 * size])[..., :size]
    result = dct_torch(t, 2, 2 * size)[..., 1::2]
    if norm == "ortho":
        result = result * (math.sqrt(0.5) / math.sqrt(size))
    return result


@op("signal.dct", v1=["signal.dct", "spectral.dct"], graph_name="DCT")
def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    """`tf.signal.dct`: the DCT of type 1-4 of the last dimension (`axis` must be -1)."""
    t = real_input(to_torch(input), 1)
    check_dct_arguments(t, type, n, axis, norm)
    return dct_torch(t, type, n, norm)


@op("signal.idct", v1=["signal.idct", "spectral.idct"], graph_name="IDCT")
def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    """`tf.signal.idct`: the DCT of the inverse type (II <-> III), TF's scaling: with
    norm="ortho" `idct(dct(x))` is x, otherwise x * 2N (type I: x * 2(N - 1))."""
    t = real_input(to_torch(input), 1)
    check_dct_arguments(t, type, n, axis, norm)
    return dct_torch(t, _INVERSE_TYPE[type], n, norm)
