"""TF 1.x `tf.contrib.seq2seq.sequence_loss`: weighted cross-entropy of [batch, time] targets.

The rest of contrib.seq2seq (decoders, attention) is not implemented.
"""
import torch

from tfcompat._api import tf_export
from tfcompat.framework import ops
from tfcompat.framework.ops import op, to_torch
from tfcompat.ops import array_ops, nn_ops


@op(graph_name="SequenceLoss")
def _weighted_reduce(crossent, weights, average_across_timesteps, average_across_batch,
                     sum_over_timesteps, sum_over_batch):
    """TF's reductions of crossent * weights ([batch, time]); x / 0 gives 0 (div_no_nan)."""
    w = to_torch(weights)
    losses = to_torch(crossent).reshape(w.shape) * w
    if average_across_timesteps and average_across_batch:
        total, count = losses.sum(), w.sum()
    elif sum_over_timesteps and sum_over_batch:
        total, count = losses.sum(), (w != 0).sum().to(losses.dtype)
    elif average_across_timesteps or average_across_batch:
        axis = 0 if average_across_batch else 1
        total, count = losses.sum(axis), w.sum(axis)
    elif sum_over_timesteps or sum_over_batch:
        axis = 0 if sum_over_batch else 1
        total, count = losses.sum(axis), (w != 0).sum(axis).to(losses.dtype)
    else:
        return losses
    return torch.where(count == 0, torch.zeros_like(total), total / count)


@tf_export("contrib.seq2seq.sequence_loss")
def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, sum_over_timesteps=False, sum_over_batch=False,
                  softmax_loss_function=None, name=None):
    """Cross-entropy of logits [batch, time, classes] against targets [batch, time], times
    weights [batch, time]; averaged by the sum of weights (or summed and divided by the number
    of non-zero weights) over the axes asked for: a scalar, [time], [batch] or [batch, time]."""
    logits, targets, weights = (ops.convert_to_tensor(t) for t in (logits, targets, weights))
    if logits.shape.ndims != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x logits_size] tensor")
    if targets.shape.ndims != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if weights.shape.ndims != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to True "
                         "at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at "
                         "same time.")
    with ops.name_scope(name, "sequence_loss", [logits, targets, weights]):
        logits_flat = array_ops.reshape(logits, [-1, array_ops.shape(logits)[2]])
        targets_flat = array_ops.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=targets_flat,
                                                                       logits=logits_flat)
        else:
            crossent = softmax_loss_function(labels=targets_flat, logits=logits_flat)
        return _weighted_reduce(crossent, weights, average_across_timesteps,
                                average_across_batch, sum_over_timesteps, sum_over_batch)
