"""`tf.contrib.layers.optimize_loss`: build a TF1 training op from a loss and an optimizer.

As TF 1.15: the UPDATE_OPS run before the loss is read, the learning rate (a float becomes the
non-trainable variable "OptimizeLoss/learning_rate") may be decayed by `learning_rate_decay_fn`,
gradients may be noised, multiplied, clipped by global norm (a float) or by a function, the
default summaries are the loss, learning rate and global gradient norm, and the result is
the loss tensor that runs the update (and increments global_step) when evaluated.
"""
from tfcompat._api import tf_export
from tfcompat.framework import graph, ops
from tfcompat.framework.graph import control_dependencies
from tfcompat.ops import array_ops, clip_ops, init_ops, math_ops, random_ops
from tfcompat.summary import summary
from tfcompat.train import training_util
from tfcompat.train.adagrad import AdagradOptimizer
from tfcompat.train.adam import AdamOptimizer
from tfcompat.train.ftrl import FtrlOptimizer
from tfcompat.train.gradient_descent import GradientDescentOptimizer
from tfcompat.train.momentum import MomentumOptimizer
from tfcompat.train.optimizer import Optimizer
from tfcompat.train.rmsprop import RMSPropOptimizer
from tfcompat.variable_scope import get_variable, variable_scope
from tfcompat.variables import trainable_variables

OPTIMIZER_CLS_NAMES = {
    "Adagrad": AdagradOptimizer,
    "Adam": AdamOptimizer,
    "Ftrl": FtrlOptimizer,
    "Momentum": lambda learning_rate: MomentumOptimizer(learning_rate, momentum=0.9),
    "RMSProp": RMSPropOptimizer,
    "SGD": GradientDescentOptimizer,
}
OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm",
                       "global_gradient_norm"]
tf_export("contrib.layers.OPTIMIZER_CLS_NAMES")(OPTIMIZER_CLS_NAMES)
tf_export("contrib.layers.OPTIMIZER_SUMMARIES")(OPTIMIZER_SUMMARIES)


def _learning_rate(learning_rate):
    if learning_rate is None:
        return None
    if ops.is_tensor(learning_rate) and learning_rate.shape.ndims == 0:
        return learning_rate
    if isinstance(learning_rate, float):
        if learning_rate < 0.0:
            raise ValueError("Invalid learning_rate %s." % learning_rate)
        return get_variable("learning_rate", [], trainable=False,
                            initializer=init_ops.Constant(learning_rate))
    raise ValueError("Learning rate should be 0d Tensor or float. Got %s of type %s"
                     % (learning_rate, type(learning_rate)))


def _make_optimizer(optimizer, lr, learning_rate):
    if isinstance(optimizer, str):
        if lr is None:
            raise ValueError("Learning rate is None, but should be specified if optimizer is "
                             "string (%s)." % optimizer)
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError("Optimizer name should be one of [%s], you provided %s."
                             % (", ".join(OPTIMIZER_CLS_NAMES), optimizer))
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, Optimizer):
        if lr is None:
            raise ValueError("Learning rate is None, but should be specified if optimizer is "
                             "class (%s)." % optimizer)
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, Optimizer):
        return optimizer
    if callable(optimizer):
        opt = optimizer(lr) if learning_rate is not None else optimizer()
        if not isinstance(opt, Optimizer):
            raise ValueError("Unrecognized optimizer: function should return subclass of "
                             "Optimizer. Got %s." % opt)
        return opt
    raise ValueError("Unrecognized optimizer: should be string, subclass of Optimizer, "
                     "instance of subclass of Optimizer or function with one argument. "
                     "Got %s." % optimizer)


def _add_noise(grads_and_vars, scale):
    return [(None if g is None else g + random_ops.truncated_normal(g.shape) * scale, v)
            for g, v in grads_and_vars]


def _multiply(grads_and_vars, multipliers):
    result = []
    for grad, var in grads_and_vars:
        key = var if var in multipliers else var.name
        if grad is not None and key in multipliers:
            grad = grad * math_ops.cast(multipliers[key], grad.dtype)
        result.append((grad, var))
    return result


def _global_norm(grads_and_vars):
    return clip_ops.global_norm([g for g, _ in grads_and_vars])


@tf_export("contrib.layers.optimize_loss")
def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None,
                  gradient_multipliers=None, clip_gradients=None, learning_rate_decay_fn=None,
                  update_ops=None, variables=None, name=None, summaries=None,
                  colocate_gradients_with_ops=False, increment_global_step=True):
    """The training op for `loss`: a tensor equal to the loss that also applies one update.

    `optimizer`: a name in OPTIMIZER_CLS_NAMES ('SGD', 'Adam', 'Adagrad', 'Momentum',
    'RMSProp', 'Ftrl'), an Optimizer class or instance, or a function of the learning rate.
    """
    loss = ops.convert_to_tensor(loss)
    if loss.shape.ndims not in (None, 0):
        raise ValueError("Expected scalar shape for %s, saw shape: %s."
                         % (loss.name, loss.shape))
    if global_step is None:
        global_step = training_util.get_global_step()
    else:
        training_util.assert_global_step(global_step)
    with variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = list(dict.fromkeys(graph.get_collection(graph.GraphKeys.UPDATE_OPS)))
        if update_ops:
            with control_dependencies(update_ops):
                loss = array_ops.identity(loss)
        lr = _learning_rate(learning_rate)
        if summaries is None:
            summaries = ["loss", "learning_rate", "global_gradient_norm"]
        for name_ in summaries:
            if name_ not in OPTIMIZER_SUMMARIES:
                raise ValueError("Summaries should be one of [%s], you provided %s."
                                 % (", ".join(OPTIMIZER_SUMMARIES), name_))
        if learning_rate is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
            if "learning_rate" in summaries:
                summary.scalar("learning_rate", lr)
        opt = _make_optimizer(optimizer, lr, learning_rate)
        if variables is None:
            variables = trainable_variables()
        gradients = opt.compute_gradients(
            loss, variables, colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gradient_noise_scale is not None:
            gradients = _add_noise(gradients, gradient_noise_scale)
        if gradient_multipliers is not None:
            gradients = _multiply(gradients, gradient_multipliers)
            if not gradients:
                raise ValueError("Empty list of (gradient, var) pairs encountered. This is most "
                                 "likely to be caused by an improper value of "
                                 "gradient_multipliers.")
        norm_summaries = "global_gradient_norm" in summaries or "gradient_norm" in summaries
        if norm_summaries:
            summary.scalar("global_norm/gradient_norm", _global_norm(gradients))
        if isinstance(clip_gradients, float):
            clipped, _ = clip_ops.clip_by_global_norm([g for g, _ in gradients],
                                                      clip_gradients)
            gradients = list(zip(clipped, [v for _, v in gradients]))
        elif callable(clip_gradients):
            gradients = clip_gradients(gradients)
        elif clip_gradients is not None:
            raise ValueError("Unknown type %s for clip_gradients" % type(clip_gradients))
        if "loss" in summaries:
            summary.scalar("loss", loss)
        for grad, var in gradients:
            if grad is None:
                continue
            var_name = var.name.replace(":", "_")
            if "gradients" in summaries:
                summary.histogram("gradients/%s" % var_name, grad)
            if "gradient_norm" in summaries:
                summary.scalar("gradient_norm/%s" % var_name, clip_ops.global_norm([grad]))
        if clip_gradients is not None and norm_summaries:
            summary.scalar("global_norm/clipped_gradient_norm", _global_norm(gradients))
        grad_updates = opt.apply_gradients(
            gradients, global_step=global_step if increment_global_step else None,
            name="train")
        with control_dependencies([grad_updates]):
            return array_ops.identity(loss)
