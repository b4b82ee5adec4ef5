"""TF 1.x `tf.contrib.legacy_seq2seq`: rnn_decoder and the per-timestep sequence losses.

Inputs are Python lists with one tensor per time step. The seq2seq model builders
(embedding/attention seq2seq) are not implemented.
"""
from tfcompat._api import tf_export
from tfcompat.framework import ops
from tfcompat.ops import array_ops, math_ops, nn_ops
from tfcompat.variable_scope import get_variable_scope, variable_scope


@tf_export("contrib.legacy_seq2seq.rnn_decoder")
def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """Runs `cell(input, state)` over the inputs in scope "rnn_decoder", sharing the cell's
    variables after the first step; with `loop_function(prev_output, i)` each step after the
    first takes its input from the previous output. Returns (outputs, final state)."""
    with variable_scope(scope or "rnn_decoder"):
        state = initial_state
        outputs = []
        prev = None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


@tf_export("contrib.legacy_seq2seq.sequence_loss_by_example")
def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True,
                             softmax_loss_function=None, name=None):
    """Per-example loss [batch]: the sum over time steps of weight * cross-entropy, divided by
    the sum of the weights (+ 1e-12) when averaging across time steps."""
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError("Lengths of logits, weights, and targets must be the same %d, %d, %d."
                         % (len(logits), len(weights), len(targets)))
    with ops.name_scope(name, "sequence_loss_by_example",
                        list(logits) + list(targets) + list(weights)):
        log_perp_list = []
        for logit, target, weight in zip(logits, targets, weights):
            if softmax_loss_function is None:
                crossent = nn_ops.sparse_softmax_cross_entropy_with_logits(
                    labels=array_ops.reshape(target, [-1]), logits=logit)
            else:
                crossent = softmax_loss_function(labels=target, logits=logit)
            log_perp_list.append(crossent * weight)
        log_perps = math_ops.add_n(log_perp_list)
        if average_across_timesteps:
            log_perps = log_perps / (math_ops.add_n(list(weights)) + 1e-12)
    return log_perps


@tf_export("contrib.legacy_seq2seq.sequence_loss")
def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, softmax_loss_function=None, name=None):
    """The sum over the batch of sequence_loss_by_example, divided by the batch size when
    averaging across the batch."""
    with ops.name_scope(name, "sequence_loss", list(logits) + list(targets) + list(weights)):
        cost = math_ops.reduce_sum(sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=average_across_timesteps,
            softmax_loss_function=softmax_loss_function))
        if average_across_batch:
            batch_size = array_ops.shape(targets[0])[0]
            return cost / math_ops.cast(batch_size, cost.dtype)
        return cost
