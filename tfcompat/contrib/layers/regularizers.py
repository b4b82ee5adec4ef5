"""`tf.contrib.layers` regularizers: l1, l2 (scale * tf.nn.l2_loss = scale * sum(w**2) / 2),
l1_l2, sum_regularizer and apply_regularization.

A scale of 0 gives a regularizer returning None (no loss), as in TensorFlow.
"""
import numbers

from tfcompat._api import tf_export
from tfcompat.framework import context, graph, ops
from tfcompat.framework.constant_op import constant
from tfcompat.ops import math_ops, nn_ops
from tfcompat.platform import tf_logging


def _check_scale(scale, what="scale"):
    """True when the regularizer is disabled (scale 0); raises for integer/negative scales."""
    if isinstance(scale, numbers.Integral):
        raise ValueError("%s cannot be an integer: %s" % (what, scale))
    if isinstance(scale, numbers.Real):
        if scale < 0.:
            raise ValueError("Setting a scale less than 0 on a regularizer: %g." % scale)
        if scale == 0.:
            tf_logging.info("Scale of 0 disables regularizer.")
            return True
    return False


def _scaled(scale, weights, penalty, scope, default_name):
    with ops.name_scope(scope, default_name, [weights]):
        factor = ops.convert_to_tensor(scale, dtype=weights.dtype.base_dtype)
        return math_ops.multiply(factor, penalty(weights))


@tf_export("contrib.layers.l1_regularizer")
def l1_regularizer(scale, scope=None):
    """`fn(weights)` = scale * sum(|weights|)."""
    if _check_scale(scale):
        return lambda _: None

    def l1(weights, name=None):
        return _scaled(scale, weights, lambda w: math_ops.reduce_sum(math_ops.abs(w)), scope,
                       "l1_regularizer")
    return l1


@tf_export("contrib.layers.l2_regularizer")
def l2_regularizer(scale, scope=None):
    """`fn(weights)` = scale * sum(weights ** 2) / 2."""
    if _check_scale(scale):
        return lambda _: None

    def l2(weights):
        return _scaled(scale, weights, nn_ops.l2_loss, scope, "l2_regularizer")
    return l2


@tf_export("contrib.layers.l1_l2_regularizer")
def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """l1_regularizer(scale_l1) + l2_regularizer(scale_l2)."""
    if isinstance(scale_l1, numbers.Integral):
        raise ValueError("scale_l1 cannot be an integer: %s" % (scale_l1,))
    if isinstance(scale_l2, numbers.Integral):
        raise ValueError("scale_l2 cannot be an integer: %s" % (scale_l2,))
    scope = scope or "l1_l2_regularizer"
    if scale_l1 == 0.:
        return l2_regularizer(scale_l2, scope)
    if scale_l2 == 0.:
        return l1_regularizer(scale_l1, scope)
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


@tf_export("contrib.layers.sum_regularizer")
def sum_regularizer(regularizer_list, scope=None):
    """The sum of the regularizers' penalties (None when all of them return None)."""
    regularizer_list = [r for r in regularizer_list if r]
    if not regularizer_list:
        return None

    def sum_reg(weights):
        with ops.name_scope(scope, "sum_regularizer", [weights]):
            penalties = [p for p in (r(weights) for r in regularizer_list) if p is not None]
            return math_ops.add_n(penalties) if penalties else None
    return sum_reg


@tf_export("contrib.layers.apply_regularization")
def apply_regularization(regularizer, weights_list=None):
    """Sum of `regularizer(w)` over `weights_list` (default: the WEIGHTS collection); in a
    graph the sum is also added to REGULARIZATION_LOSSES."""
    if not weights_list and context.state.building_graph:
        weights_list = graph.get_collection(graph.GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with ops.name_scope("get_regularization_penalty", values=weights_list):
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else constant(0.0) for p in penalties]
        for p in penalties:
            if p.shape.ndims != 0:
                raise ValueError("regularizer must return a scalar Tensor instead of a Tensor "
                                 "with rank %d." % p.shape.ndims)
        summed = math_ops.add_n(penalties)
    if context.state.building_graph:
        graph.add_to_collection(graph.GraphKeys.REGULARIZATION_LOSSES, summed)
    return summed
