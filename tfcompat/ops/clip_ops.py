"""TF's clip ops: `tf.clip_by_value`, `tf.clip_by_norm`, `tf.clip_by_global_norm` ...

Written like TF's own (`minimum` then `maximum`; norms from sums of squares), so edge cases
agree: min > max clips everything to min, a zero norm leaves the tensor unchanged, an
infinite or NaN global norm makes every clipped tensor NaN.
"""
import numpy as np
import torch

from tfcompat.framework import dtypes, errors
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import binary_operands, is_tensor_value, op, to_torch


def _float_tensor(t, op_type):
    t = to_torch(t)
    if type(t) is np.ndarray or not (t.is_floating_point() or t.is_complex()):
        raise TypeError("%s needs a float tensor, got %s" % (
            op_type, "string" if type(t) is np.ndarray else dtypes.from_torch(t.dtype).name))
    return t


def _bound(value, like):
    """A clip bound converted to the tensor's dtype (Python numbers stay numbers); a tensor
    of another dtype raises, naming the op being run."""
    _, bound = binary_operands(like, value)
    return bound


def _tensor_like(value, like):
    """`value` as a tensor of `like`'s dtype (tensors of another dtype raise, like TF)."""
    return torch.as_tensor(_bound(value, like), dtype=like.dtype, device=like.device)


@op("clip_by_value", graph_name="ClipByValue")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """`tf.clip_by_value`: `maximum(minimum(t, max), min)` with broadcasting bounds; the
    bounds must not change t's shape (ValueError) and must convert to t's dtype."""
    tt = to_torch(t)
    low = _bound(clip_value_min, tt)
    high = _bound(clip_value_max, tt)
    if type(tt) is np.ndarray or tt.dtype is torch.bool:
        raise TypeError("clip_by_value does not support dtype %s" % (
            "string" if type(tt) is np.ndarray else "bool"))
    for bound in (low, high):
        if isinstance(bound, torch.Tensor) and \
                torch.broadcast_shapes(tt.shape, bound.shape) != tt.shape:
            raise ValueError("Clip bounds of shape %s would change the shape of t %s" % (
                format_shape(bound.shape), format_shape(tt.shape)))
    return torch.clamp(torch.clamp(tt, max=high), min=low)


def _l2sum(t, axes):
    squares = (t * t.conj()).real if t.is_complex() else t * t
    if axes is None:
        return torch.sum(squares).reshape((1,) * t.ndim)
    axes = to_torch(axes).tolist() if is_tensor_value(axes) else axes
    axes = [axes] if isinstance(axes, int) else list(axes)
    return torch.sum(squares, axes, keepdim=True) if axes else squares


@op("clip_by_norm", graph_name="ClipByNorm")
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`tf.clip_by_norm`: t * clip_norm / max(l2norm(t, axes), clip_norm); a zero norm
    leaves t unchanged (no NaN)."""
    tt = _float_tensor(t, "clip_by_norm")
    clip = _tensor_like(clip_norm, tt.real if tt.is_complex() else tt)
    l2sum = _l2sum(tt, axes)
    positive = l2sum > 0
    l2norm = torch.where(positive, torch.sqrt(torch.where(positive, l2sum,
                                                          torch.ones_like(l2sum))), l2sum)
    return tt * clip / torch.maximum(l2norm, clip)


def _tensor_list(t_list, op_type):
    if is_tensor_value(t_list) or not isinstance(t_list, (list, tuple)):
        raise TypeError("%s: t_list should be a sequence of tensors, got %r" % (
            op_type, type(t_list).__name__))
    return [None if t is None else to_torch(t) for t in t_list]


def _global_norm(tensors):
    present = [t for t in tensors if t is not None]
    if not present:
        raise ValueError("global_norm needs at least one tensor that is not None")
    dtype = present[0].dtype
    total = None
    for t in present:
        if t.dtype is not dtype:
            raise errors.InvalidArgumentError(
                "global_norm: all tensors must have the same dtype; got %s and %s" % (
                    dtypes.from_torch(dtype).name, dtypes.from_torch(t.dtype).name))
        part = torch.sum(t * t)
        total = part if total is None else total + part
    return torch.sqrt(total)


@op("linalg.global_norm", v1=["global_norm"], graph_name="GlobalNorm")
def global_norm(t_list, name=None):
    """`tf.linalg.global_norm`: sqrt(sum of squares of every entry of every tensor); None
    entries are ignored."""
    return _global_norm(_tensor_list(t_list, "global_norm"))


@op("clip_by_global_norm", graph_name="ClipByGlobalNorm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """`tf.clip_by_global_norm`: returns (list of t * clip_norm / max(global_norm,
    clip_norm), global_norm); None entries stay None; an inf/NaN norm gives NaN tensors."""
    tensors = _tensor_list(t_list, "clip_by_global_norm")
    norm = _global_norm(tensors) if use_norm is None else to_torch(use_norm)
    clip = _tensor_like(clip_norm, norm)
    scale = clip * torch.minimum(1.0 / norm, 1.0 / clip)
    scale = scale + (norm - norm)  # NaN when the norm is inf or NaN, as in TF
    clipped = [None if t is None else t * scale.to(t.dtype) for t in tensors]
    return clipped, norm


@op(v1=["clip_by_average_norm"], graph_name="ClipByAverageNorm")
def clip_by_average_norm(t, clip_norm, name=None):
    """TF1 `tf.clip_by_average_norm`: clips so that l2norm(t) / size(t) <= clip_norm."""
    tt = _float_tensor(t, "clip_by_average_norm")
    clip = _tensor_like(clip_norm, tt)
    l2norm_inv = torch.rsqrt(torch.sum(tt * tt))
    n_element = float(tt.numel())
    return tt * clip * torch.minimum(l2norm_inv * n_element, 1.0 / clip)
