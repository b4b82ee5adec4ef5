"""TF's `tf.signal.frame`: a dimension expanded into (possibly overlapping) frames."""
import numpy as np
import torch

from tfcompat.framework import dtypes, errors
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import is_tensor_value, op, to_torch
from tfcompat.ops.array_ops import _as_int, _axis


def frame_torch(t, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1):
    """`t`'s `axis` dimension (N samples) as [num_frames, frame_length] frames, TF's count:
    max(0, 1 + (N - frame_length) // frame_step), or with `pad_end` ceil(N / frame_step)
    with the last frames filled by `pad_value`."""
    check_positive(frame_step, "frame_step")
    axis = _axis(axis, t.ndim)
    length = t.shape[axis]
    if pad_end:
        num_frames = -(-length // frame_step)
        padding = max(0, frame_length + frame_step * (num_frames - 1) - length)
        if padding:
            pad_shape = t.shape[:axis] + (padding,) + t.shape[axis + 1:]
            pad = torch.as_tensor(pad_value, dtype=t.dtype, device=t.device)
            t = torch.cat([t, pad.expand(pad_shape)], axis)
            length = length + padding
    else:
        num_frames = max(0, 1 + (length - frame_length) // frame_step)
    if num_frames == 0:
        return t.new_zeros(t.shape[:axis] + (0, frame_length) + t.shape[axis + 1:])
    frames = t.unfold(axis, frame_length, frame_step).narrow(axis, 0, num_frames)
    return frames.movedim(-1, axis + 1).contiguous()


def check_positive(value, what):
    """TF's kernels fail dividing by a zero step: InvalidArgumentError for steps < 1."""
    if value < 1:
        raise errors.InvalidArgumentError("{op}: %s must be positive, got %d" % (what, value))


def scalar_int(value, what):
    """A Python int from an int or a scalar integer tensor (TF's ValueErrors otherwise)."""
    if is_tensor_value(value) or isinstance(value, (torch.Tensor, np.ndarray, float)):
        t = to_torch(value)
        if t.ndim != 0:
            raise ValueError("Shape %s must have rank 0" % format_shape(t.shape))
        if t.is_floating_point() or t.is_complex():
            raise ValueError("%s must be an integer. Got %s"
                             % (what, dtypes.from_torch(t.dtype).name))
    return _as_int(value)


@op("signal.frame", "contrib.signal.frame", graph_name="Frame")
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """`tf.signal.frame`: `signal`'s `axis` dimension replaced by [frames, frame_length]."""
    t = to_torch(signal)
    if t.ndim < 1:
        raise ValueError("Shape %s must have rank at least 1" % format_shape(t.shape))
    return frame_torch(t, scalar_int(frame_length, "frame_length"),
                       scalar_int(frame_step, "frame_step"), pad_end, to_torch(pad_value),
                       _as_int(axis))
