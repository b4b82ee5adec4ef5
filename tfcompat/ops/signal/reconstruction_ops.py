"""TF's `tf.signal.overlap_and_add`: frames summed back into a signal."""
import torch

from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import op, to_torch
from tfcompat.ops.signal.shape_ops import check_positive, scalar_int


def overlap_and_add_torch(frames, frame_step):
    """[..., frames, frame_length] -> [..., frame_length + frame_step * (frames - 1)]: frame
    f added at offset f * frame_step. Each frame is cut into segments of frame_step samples
    and segment j of frame f lands on output block f + j; a reshape skews the blocks so one
    sum adds them (TF's algorithm, differentiable and free of loops)."""
    check_positive(frame_step, "frame_step")
    outer = frames.shape[:-2]
    count, length = frames.shape[-2], frames.shape[-1]
    output_length = length + frame_step * (count - 1)
    segments = -(-length // frame_step)
    padded = torch.nn.functional.pad(frames, (0, segments * frame_step - length, 0, segments))
    skewed = padded.reshape(outer + (count + segments, segments, frame_step)).transpose(-3, -2)
    skewed = skewed.reshape(outer + (segments * (count + segments), frame_step))
    skewed = skewed[..., :segments * (count + segments - 1), :]
    blocks = skewed.reshape(outer + (segments, count + segments - 1, frame_step)).sum(
        -3, dtype=frames.dtype)
    return blocks.reshape(outer + ((count + segments - 1) * frame_step,))[..., :output_length]


@op("signal.overlap_and_add", "contrib.signal.overlap_and_add", graph_name="OverlapAndAdd")
def overlap_and_add(signal, frame_step, name=None):
    """`tf.signal.overlap_and_add`: [..., frames, frame_length] frames, `frame_step` apart,
    summed into a [..., output_size] signal."""
    t = to_torch(signal)
    if t.ndim < 2:
        raise ValueError("Shape %s must have rank at least 2" % format_shape(t.shape))
    return overlap_and_add_torch(t, scalar_int(frame_step, "frame_step"))
