"""TF1's `tf.losses` (`tf.compat.v1.losses`): weighted losses and the LOSSES collection.

Each loss is one op: the per-element losses, times broadcast `weights`, reduced by
`reduction` (default SUM_BY_NONZERO_WEIGHTS: the weighted sum divided by the number of
non-zero weights). In a TF1 graph the result joins `loss_collection` (GraphKeys.LOSSES);
eager TF keeps no collections.
"""
import torch
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensor

from tfcompat._api import tf_export
from tfcompat.framework import context, errors
from tfcompat.framework.ops import op, to_torch
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.framework.graph import get_collection, get_default_graph
from tfcompat.variable_scope import regularization_losses
from tfcompat.framework.constant_op import constant
from tfcompat.ops import math_ops

_state = context.state
LOSSES = "losses"
REGULARIZATION_LOSSES = "regularization_losses"


@tf_export(v1=["losses.Reduction"])
class Reduction(object):
    """TF1 loss reductions."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key %s." % key)


def _div_no_nan(a, b):
    return torch.where(b == 0, torch.zeros_like(a), a / torch.where(b == 0, torch.ones_like(b),
                                                                     b))


def _weighted(losses, weights, reduction):
    """losses * weights (broadcast), then TF1's reduction (in float32 like TF)."""
    input_dtype = losses.dtype
    losses = losses.float()
    w = to_torch(weights)
    w = w.to(device=losses.device, dtype=torch.float32)
    try:
        torch.broadcast_shapes(w.shape, losses.shape)
    except RuntimeError:
        raise ValueError("weights can not be broadcast to values. values.shape=%s. "
                         "weights.shape=%s." % (tuple(losses.shape), tuple(w.shape))) from None
    weighted = losses * w
    if reduction == Reduction.NONE:
        return weighted.to(input_dtype)
    loss = weighted.sum()
    if reduction == Reduction.MEAN:
        loss = _div_no_nan(loss, (torch.ones_like(losses) * w).sum())
    elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
        present = torch.broadcast_to((w != 0).float(), losses.shape).sum()
        loss = _div_no_nan(loss, present)
    elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
        loss = _div_no_nan(loss, torch.tensor(float(losses.numel()), device=losses.device))
    return loss.to(input_dtype)


def _check(value, what):
    if value is None:
        raise ValueError("%s must not be None." % what)


def _compatible(labels, predictions):
    a, b = TensorShape(list(labels.shape)), TensorShape(list(predictions.shape))
    if not a.is_compatible_with(b):
        raise ValueError("Shapes %s and %s are incompatible" % (b, a))


def _float_pair(labels, predictions):
    p = to_torch(predictions)
    p = p.float() if not p.is_floating_point() else p
    t = to_torch(labels).to(device=p.device, dtype=p.dtype)
    return t, p


# ---------------------------------------------------------------- per-element losses


def _absolute_difference(t, p):
    _compatible(t, p)
    return torch.abs(p - t)


def _squared_difference(t, p):
    _compatible(t, p)
    return torch.square(p - t)


def _huber(t, p, delta=1.0):
    _compatible(t, p)
    abs_error = torch.abs(p - t)
    quadratic = torch.clamp(abs_error, max=delta)
    linear = abs_error - quadratic
    return 0.5 * quadratic * quadratic + delta * linear


def _log_loss(t, p, epsilon=1e-7):
    _compatible(t, p)
    return -t * torch.log(p + epsilon) - (1 - t) * torch.log(1 - p + epsilon)


def _hinge(t, p):
    _compatible(t, p)
    return torch.relu(1 - (2 * t - 1) * p)


def _cosine_distance(t, p, axis):
    _compatible(t, p)
    return 1 - torch.sum(t * p, dim=axis, keepdim=True)


def _sigmoid_xent(t, p, label_smoothing=0):
    _compatible(t, p)
    if label_smoothing:
        t = t * (1 - label_smoothing) + 0.5 * label_smoothing
    return torch.relu(p) - p * t + torch.log1p(torch.exp(-torch.abs(p)))


def _softmax_xent(t, p, label_smoothing=0):
    _compatible(t, p)
    if label_smoothing:
        t = t * (1 - label_smoothing) + label_smoothing / p.shape[-1]
    return -torch.sum(t.detach() * F.log_softmax(p, dim=-1), dim=-1)


@op(graph_name="WeightedLoss")
def _loss_op(kind, labels, predictions, weights, reduction, options):
    if kind == "sparse_softmax":
        logits = to_torch(predictions)
        y = to_torch(labels)
        if y.dtype not in (torch.int32, torch.int64):
            raise TypeError("labels must be int32 or int64 for sparse_softmax_cross_entropy")
        w = to_torch(weights)
        if y.ndim == logits.ndim and y.shape[-1] == 1:
            y = y.squeeze(-1)
        if w.ndim == y.ndim + 1 and w.shape[-1] == 1:
            weights = w.squeeze(-1)
        classes = logits.shape[-1]
        if y.device.type == "cpu" and not isinstance(y, FakeTensor) and \
                bool(((y < 0) | (y >= classes)).any()):
            raise errors.InvalidArgumentError(
                "Received a label value outside the valid range of [0, %d)" % classes)
        losses = F.cross_entropy(logits.reshape(-1, classes).float(), y.reshape(-1).long(),
                                 reduction="none").reshape(y.shape).to(logits.dtype)
        return _weighted(losses, weights, reduction)
    t, p = _float_pair(labels, predictions)
    return _weighted(_FORMULAS[kind](t, p, **options), weights, reduction)


_FORMULAS = {"absolute_difference": _absolute_difference, "mean_squared_error":
             _squared_difference, "huber": _huber, "log_loss": _log_loss, "hinge": _hinge,
             "cosine_distance": _cosine_distance, "sigmoid": _sigmoid_xent,
             "softmax": _softmax_xent}


def _loss(kind, labels, predictions, weights, loss_collection, reduction, **options):
    Reduction.validate(reduction)
    loss = _loss_op(kind, labels, predictions, weights, reduction, options)
    add_loss(loss, loss_collection)
    return loss


@op(graph_name="ComputeWeightedLoss")
def _compute_weighted(losses, weights, reduction):
    return _weighted(to_torch(losses), weights, reduction)


# ---------------------------------------------------------------- public functions


@tf_export(v1=["losses.compute_weighted_loss"])
def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """`losses` times `weights`, reduced; added to `loss_collection` in a graph."""
    Reduction.validate(reduction)
    loss = _compute_weighted(losses, weights, reduction)
    add_loss(loss, loss_collection)
    return loss


@tf_export(v1=["losses.absolute_difference"])
def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _check(labels, "labels")
    _check(predictions, "predictions")
    return _loss("absolute_difference", labels, predictions, weights, loss_collection,
                 reduction)


@tf_export(v1=["losses.mean_squared_error"])
def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _check(labels, "labels")
    _check(predictions, "predictions")
    return _loss("mean_squared_error", labels, predictions, weights, loss_collection,
                 reduction)


@tf_export(v1=["losses.huber_loss"])
def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _check(labels, "labels")
    _check(predictions, "predictions")
    return _loss("huber", labels, predictions, weights, loss_collection, reduction,
                 delta=delta)


@tf_export(v1=["losses.log_loss"])
def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _check(labels, "labels")
    _check(predictions, "predictions")
    return _loss("log_loss", labels, predictions, weights, loss_collection, reduction,
                 epsilon=epsilon)


@tf_export(v1=["losses.hinge_loss"])
def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _check(labels, "labels")
    _check(logits, "logits")
    return _loss("hinge", labels, logits, weights, loss_collection, reduction)


@tf_export(v1=["losses.cosine_distance"])
def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
                    dim=None):
    """1 - sum(labels * predictions, axis) (inputs are expected unit-normalized)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    _check(labels, "labels")
    _check(predictions, "predictions")
    return _loss("cosine_distance", labels, predictions, weights, loss_collection, reduction,
                 axis=axis)


@tf_export(v1=["losses.sigmoid_cross_entropy"])
def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _check(multi_class_labels, "multi_class_labels")
    _check(logits, "logits")
    return _loss("sigmoid", multi_class_labels, logits, weights, loss_collection, reduction,
                 label_smoothing=label_smoothing)


@tf_export(v1=["losses.softmax_cross_entropy"])
def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Softmax cross-entropy of one-hot labels (weights are per example)."""
    _check(onehot_labels, "onehot_labels")
    _check(logits, "logits")
    return _loss("softmax", onehot_labels, logits, weights, loss_collection, reduction,
                 label_smoothing=label_smoothing)


@tf_export(v1=["losses.sparse_softmax_cross_entropy"])
def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Softmax cross-entropy of integer class labels."""
    _check(labels, "labels")
    _check(logits, "logits")
    return _loss("sparse_softmax", labels, logits, weights, loss_collection, reduction)


# ---------------------------------------------------------------- collections


@tf_export(v1=["losses.add_loss"])
def add_loss(loss, loss_collection=LOSSES):
    """Add `loss` to `loss_collection` (graph mode; eager TF keeps no collections)."""
    if loss_collection and _state.building_graph:
        graph = get_default_graph()
        if not getattr(graph, "building_function", False):
            graph.add_to_collection(loss_collection, loss)


@tf_export(v1=["losses.get_losses"])
def get_losses(scope=None, loss_collection=LOSSES):
    """The losses in `loss_collection` (eager: [])."""
    if not _state.building_graph:
        return []
    return get_collection(loss_collection, scope)


@tf_export(v1=["losses.get_regularization_losses"])
def get_regularization_losses(scope=None):
    """REGULARIZATION_LOSSES (eager: recomputed from the variables' regularizers)."""
    return regularization_losses(scope)


@tf_export(v1=["losses.get_regularization_loss"])
def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (0.0 when there are none)."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant(0.0)


@tf_export(v1=["losses.get_total_loss"])
def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the collected losses (and regularization losses)."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    if not losses:
        raise ValueError("No losses to add.")
    return math_ops.add_n(losses, name=name)
