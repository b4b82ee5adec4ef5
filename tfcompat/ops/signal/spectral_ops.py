"""TF's short-time spectral transforms: `tf.signal.stft`, `inverse_stft`,
`inverse_stft_window_fn`, `mdct`, `inverse_mdct`.

TF frames the signal from its first sample (no centring or reflection padding, unlike
`torch.stft`'s default), windows each frame with `window_fn(frame_length, dtype=...)` and
takes an rfft of `fft_length` (default: the smallest power of 2 >= frame_length). The window
function is called as TF calls it (it may be any Python function of TF ops); the transform
itself is one op.
"""
import math

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import convert_to_tensor, op, to_torch
from tfcompat.ops.signal.dct_ops import dct_torch
from tfcompat.ops.signal.fft_ops import inverse_real_fft, real_fft, real_input
from tfcompat.ops.signal.reconstruction_ops import overlap_and_add_torch
from tfcompat.ops.signal.shape_ops import frame_torch, scalar_int
from tfcompat.ops.signal.window_ops import hann_window, vorbis_window


def _enclosing_power_of_two(value):
    return int(2 ** np.ceil(np.log(value) / np.log(2.0)))


def _window(window_fn, frame_length, dtype):
    return None if window_fn is None else window_fn(frame_length, dtype=dtype)


def _windowed(frames, window):
    return frames if window is None else frames * to_torch(window)


@op(graph_name="STFT")
def _stft(signals, window, frame_length, frame_step, fft_length, pad_end, name=None):
    frames = frame_torch(real_input(to_torch(signals), 1), frame_length, frame_step, pad_end)
    return real_fft(_windowed(frames, window), 1, [fft_length])


@tf_export("signal.stft", "contrib.signal.stft")
def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
    """`tf.signal.stft`: [..., samples] real signals -> [..., frames, fft_length // 2 + 1]
    complex STFTs of frames `frame_step` apart from sample 0 (`pad_end` zero-pads the end
    and keeps the frames overhanging it, as `tf.signal.frame`)."""
    signals = convert_to_tensor(signals)
    frame_length = scalar_int(frame_length, "frame_length")
    frame_step = scalar_int(frame_step, "frame_step")
    fft_length = (_enclosing_power_of_two(frame_length) if fft_length is None
                  else scalar_int(fft_length, "fft_length"))
    window = _window(window_fn, frame_length, signals.dtype)
    return _stft(signals, window, frame_length, frame_step, fft_length, pad_end, name=name)


@op(graph_name="InverseSTFTWindow")
def _inverse_stft_window(forward_window, frame_step, name=None):
    window = to_torch(forward_window)
    frame_length = window.shape[0]
    overlaps = -(-frame_length // frame_step)
    squares = torch.nn.functional.pad(torch.square(window),
                                      (0, overlaps * frame_step - frame_length))
    denominator = squares.reshape(overlaps, frame_step).sum(0, keepdim=True)
    denominator = denominator.repeat(overlaps, 1).reshape(-1)[:frame_length]
    return torch.where(denominator == 0, torch.zeros_like(window), window / denominator)


@tf_export("signal.inverse_stft_window_fn", "contrib.signal.inverse_stft_window_fn")
def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """`tf.signal.inverse_stft_window_fn`: a window function giving `forward_window_fn`'s
    window divided by the overlap-added squares of the forward window, so `inverse_stft`
    with it inverts `stft` with the forward window."""
    frame_step = scalar_int(frame_step, "frame_step")

    def inverse_window_fn(frame_length, dtype):
        forward_window = forward_window_fn(frame_length, dtype=dtype)
        return _inverse_stft_window(forward_window, frame_step, name=name)
    return inverse_window_fn


@op(graph_name="InverseSTFT")
def _inverse_stft(stfts, window, frame_length, frame_step, fft_length, name=None):
    t = to_torch(stfts)
    if not t.is_complex():
        raise ValueError("IRFFT requires tf.complex64 or tf.complex128 inputs, got: %s"
                         % dtypes.from_torch(t.dtype).name)
    if t.ndim < 2:
        raise ValueError("Shape %s must have rank at least 2" % format_shape(t.shape))
    frames = inverse_real_fft(t, 1, [fft_length])[..., :frame_length]
    if frames.shape[-1] < frame_length:
        frames = torch.nn.functional.pad(frames, (0, frame_length - frames.shape[-1]))
    return overlap_and_add_torch(_windowed(frames, window), frame_step)


@tf_export("signal.inverse_stft", "contrib.signal.inverse_stft")
def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None):
    """`tf.signal.inverse_stft`: irfft of each frame, cut or zero-padded to `frame_length`,
    windowed and overlap-added. Pass `window_fn=tf.signal.inverse_stft_window_fn(frame_step)`
    to invert `stft`."""
    stfts = convert_to_tensor(stfts)
    frame_length = scalar_int(frame_length, "frame_length")
    frame_step = scalar_int(frame_step, "frame_step")
    fft_length = (_enclosing_power_of_two(frame_length) if fft_length is None
                  else scalar_int(fft_length, "fft_length"))
    window = _window(window_fn, frame_length, stfts.dtype.real_dtype)
    return _inverse_stft(stfts, window, frame_length, frame_step, fft_length, name=name)


@op(graph_name="MDCT")
def _mdct(signals, window, frame_length, pad_end, norm, name=None):
    frames = frame_torch(real_input(to_torch(signals), 1), frame_length, frame_length // 2, pad_end)
    frames = frames * (1.0 / math.sqrt(2)) if window is None else _windowed(frames, window)
    a, b, c, d = torch.chunk(frames, 4, -1)
    rearranged = torch.cat([-c.flip(-1) - d, a - b.flip(-1)], -1)
    return dct_torch(rearranged, 4, norm=norm)


@tf_export("signal.mdct")
def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """`tf.signal.mdct`: the modified DCT of frames of `frame_length` (a multiple of 4)
    samples, half a frame apart: [..., frames, frame_length // 2]."""
    signals = convert_to_tensor(signals)
    frame_length = scalar_int(frame_length, "frame_length")
    if frame_length % 4 != 0:
        raise ValueError("The frame length must be a multiple of 4.")
    window = _window(window_fn, frame_length, signals.dtype)
    return _mdct(signals, window, frame_length, pad_end, norm, name=name)


@op(graph_name="InverseMDCT")
def _inverse_mdct(mdcts, window, norm, name=None):
    t = real_input(to_torch(mdcts), 2)
    half_length = t.shape[-1]
    if norm is None:
        coefficients = (0.5 / half_length) * dct_torch(t, 4)
    else:
        coefficients = dct_torch(t, 4, norm="ortho")
    first, second = torch.chunk(coefficients, 2, -1)
    frames = torch.cat([second, -second.flip(-1), -first.flip(-1), -first], -1)
    frames = frames * (1.0 / math.sqrt(2)) if window is None else _windowed(frames, window)
    return overlap_and_add_torch(frames, half_length)


@tf_export("signal.inverse_mdct")
def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """`tf.signal.inverse_mdct`: [..., frames, half_length] MDCTs back to a signal (with
    `norm="ortho"` and the default window, the inverse of `mdct`)."""
    mdcts = convert_to_tensor(mdcts)
    half_length = mdcts.shape[-1]
    window = _window(window_fn, 2 * half_length, mdcts.dtype)
    return _inverse_mdct(mdcts, window, norm, name=name)
