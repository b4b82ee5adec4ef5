"""`tf.keras.losses`: Keras 2 loss functions and `Loss` classes.

Each loss function is one op over torch tensors (Keras' formulas: `y_true` is cast to
`y_pred`'s dtype, probabilities are clipped to [epsilon, 1 - epsilon] with epsilon 1e-7, the
result is reduced over the last axis). A `Loss` object applies sample weights and its
`reduction` (AUTO and SUM_OVER_BATCH_SIZE: sum / number of elements) in the same op.

In a graph (a TF1 graph, a tf.function trace such as fit's train step) the crossentropies
of a `Softmax` (`Sigmoid` for binary) op's output use that op's input as logits, as TF's
Keras backend does since TF 1.13 ("to prevent collapsing zero when training"); eagerly they
clip the probabilities, as TF up to 2.6 does (later versions keep the logits on eager tensors
too). Sparse integer labels go to the loss as integers (TF casts them to float and back to
int64, which changes no label below 2**24).
"""
import inspect
import math

import torch
import torch.nn.functional as F

from tfcompat._api import tf_export
from tfcompat.framework import context
from tfcompat.framework.ops import op, to_torch
from tfcompat.framework.graph import SymbolicTensor
from tfcompat.keras.utils.generic_utils import deserialize_keras_object, serialize_keras_object

EPSILON = 1e-7


@tf_export("keras.losses.Reduction", v2=["losses.Reduction"])
class ReductionV2(object):
    """How a `Loss` reduces per-example losses: AUTO, NONE, SUM, SUM_OVER_BATCH_SIZE."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key %s." % (key,))


# ---------------------------------------------------------------- torch helpers


def _pred_true(y_true, y_pred, integer_labels=False):
    """Keras' conversion: y_pred as a float tensor, y_true cast to its dtype and device
    (`integer_labels`: integer y_true keeps its dtype, for the sparse crossentropy)."""
    p = to_torch(y_pred)
    if not p.is_floating_point():
        p = p.float()
    t = to_torch(y_true)
    dtype = t.dtype if integer_labels and not t.is_floating_point() else p.dtype
    if t.dtype is not dtype or t.device != p.device:
        t = t.to(device=p.device, dtype=dtype)
    return t, p


def _activation_logits(y_pred, impl, options):
    """TF's Keras backend in graphs: the crossentropy of a Softmax (binary: Sigmoid) op's
    output is computed from that op's input with from_logits=True. Returns the y_pred and
    options to use."""
    op_type = _LOGITS_OF.get(impl)
    if op_type is None or options.get("from_logits") or not context.state.building_graph:
        return y_pred, options
    if not isinstance(y_pred, SymbolicTensor) or y_pred.op.type != op_type or \
            (op_type == "Softmax" and not _softmax_over_last_axis(y_pred)):
        return y_pred, options
    return y_pred.op.inputs[0], dict(options, from_logits=True)


def _softmax_over_last_axis(y_pred):
    """Whether a Softmax op normalized over the last axis (TF's Softmax op always does;
    tfcompat's takes the axis as an argument, read from the op's graph node)."""
    target = y_pred.op._node.target
    fn = getattr(target, "fn", None)
    args, kwargs = getattr(target, "args_template", None), getattr(target, "kwargs_template",
                                                                     None)
    if fn is None or args is None or kwargs is None:
        return False
    arguments = inspect.signature(fn).bind(*args, **kwargs).arguments
    axes = [arguments.get(name) for name in ("axis", "dim")]
    rank = y_pred.shape.rank
    return rank is not None and all(a is None or a in (-1, rank - 1) for a in axes)


def _squeeze_or_expand(y_true, y_pred):
    """Keras' `squeeze_or_expand_dimensions(y_pred, y_true)`: drop a trailing 1-dim so that
    y_true and y_pred have the same rank, unless this is the sparse-labels case."""
    rank_t, rank_p = y_true.ndim, y_pred.ndim
    if rank_p - rank_t != 1 or (rank_p and y_pred.shape[-1] == 1):
        diff = rank_p - rank_t
        if diff == 1 and y_pred.shape[-1] == 1:
            y_pred = y_pred.squeeze(-1)
        elif diff == -1 and y_true.shape[-1] == 1:
            y_true = y_true.squeeze(-1)
    return y_true, y_pred


def _weighted_reduce(losses, sample_weight, reduction):
    """Keras' `compute_weighted_loss`: losses * broadcast sample weights, then reduced, in
    the losses' floating dtype (non-float losses in float32, cast back)."""
    if sample_weight is None and reduction == ReductionV2.SUM_OVER_BATCH_SIZE and \
            losses.dtype is torch.float32:
        return losses.mean() if losses.numel() else losses.sum()
    input_dtype = losses.dtype
    if not losses.is_floating_point():
        losses = losses.float()
    if sample_weight is not None:
        w = to_torch(sample_weight)
        w = w.to(device=losses.device, dtype=losses.dtype)
        if w.ndim - losses.ndim == 1:
            w = w.squeeze(-1)
        elif losses.ndim - w.ndim == 1 and w.ndim:
            w = w.unsqueeze(-1)
        losses = losses * w
    if reduction == ReductionV2.NONE:
        result = losses
    elif reduction == ReductionV2.SUM:
        result = losses.sum()
    else:
        result = losses.sum() / max(losses.numel(), 1)
    return result.to(input_dtype)


@op(graph_name="KerasLoss")
def _loss_op(fn, y_true, y_pred, sample_weight, reduction, kwargs, match_rank=False):
    """A built-in loss function, squeezed, weighted and reduced, as one op.

    `match_rank` (fit's targets): rank-1 targets of rank-2 outputs get a last axis first.
    """
    t, p = _pred_true(y_true, y_pred, fn is _scce)
    if match_rank and t.ndim == 1 and p.ndim == 2:
        t = t.unsqueeze(-1)
    t, p = _squeeze_or_expand(t, p)
    if fn is _scce and sample_weight is None and p.dtype is torch.float32 and \
            reduction == ReductionV2.SUM_OVER_BATCH_SIZE and p.numel():
        return fn(t, p, reduction="mean", **kwargs)
    return _weighted_reduce(fn(t, p, **kwargs), sample_weight, reduction)


@op(graph_name="ComputeWeightedLoss")
def _reduce_op(losses, sample_weight, reduction):
    return _weighted_reduce(to_torch(losses), sample_weight, reduction)


# ---------------------------------------------------------------- loss formulas (torch)


def _mse(t, p):
    return torch.mean(torch.square(p - t), dim=-1)


def _mae(t, p):
    return torch.mean(torch.abs(p - t), dim=-1)


def _mape(t, p):
    diff = torch.abs((t - p) / torch.clamp(torch.abs(t), min=EPSILON))
    return 100.0 * torch.mean(diff, dim=-1)


def _msle(t, p):
    first = torch.log(torch.clamp(p, min=EPSILON) + 1.0)
    second = torch.log(torch.clamp(t, min=EPSILON) + 1.0)
    return torch.mean(torch.square(first - second), dim=-1)


def _smooth_binary(t, label_smoothing):
    return t * (1.0 - label_smoothing) + 0.5 * label_smoothing if label_smoothing else t


def _bce(t, p, from_logits=False, label_smoothing=0):
    t = _smooth_binary(t, label_smoothing)
    if from_logits:
        losses = torch.relu(p) - p * t + torch.log1p(torch.exp(-torch.abs(p)))
    else:
        p = torch.clamp(p, EPSILON, 1.0 - EPSILON)
        losses = -(t * torch.log(p + EPSILON) + (1.0 - t) * torch.log(1.0 - p + EPSILON))
    return torch.mean(losses, dim=-1)


def _cce(t, p, from_logits=False, label_smoothing=0, axis=-1):
    if label_smoothing:
        t = t * (1.0 - label_smoothing) + label_smoothing / p.shape[axis]
    if from_logits:
        return -torch.sum(t * F.log_softmax(p, dim=axis), dim=axis)
    p = p / torch.sum(p, dim=axis, keepdim=True)
    p = torch.clamp(p, EPSILON, 1.0 - EPSILON)
    return -torch.sum(t * torch.log(p), dim=axis)


def _scce(t, p, from_logits=False, axis=-1, reduction="none"):
    """Per-example losses; reduction="mean": their mean, in the same torch op."""
    if axis != -1 and axis != p.ndim - 1:
        p = p.movedim(axis, -1)
    batch_shape, classes = p.shape[:-1], p.shape[-1]
    labels = t.reshape(-1).long()
    if p.ndim != 2:
        p = p.reshape(-1, classes)
    if from_logits:
        losses = F.cross_entropy(p, labels, reduction=reduction)
    else:
        losses = F.nll_loss(torch.log(torch.clamp(p, EPSILON, 1.0 - EPSILON)), labels,
                            reduction=reduction)
    return losses if reduction != "none" or len(batch_shape) == 1 else \
        losses.reshape(batch_shape)


# The crossentropies TF's Keras backend computes from logits when y_pred is this op's output.
_LOGITS_OF = {_scce: "Softmax", _cce: "Softmax", _bce: "Sigmoid"}


def _pm_one(t):
    """Keras' hinge labels: {0, 1} labels become {-1, 1} (without a host sync)."""
    binary = ((t == 0) | (t == 1)).all()
    return torch.where(binary, 2.0 * t - 1.0, t)


def _hinge(t, p):
    return torch.mean(torch.clamp(1.0 - _pm_one(t) * p, min=0.0), dim=-1)


def _squared_hinge(t, p):
    return torch.mean(torch.square(torch.clamp(1.0 - _pm_one(t) * p, min=0.0)), dim=-1)


def _categorical_hinge(t, p):
    pos = torch.sum(t * p, dim=-1)
    neg = torch.amax((1.0 - t) * p, dim=-1)
    return torch.clamp(neg - pos + 1.0, min=0.0)


def _kld(t, p):
    t = torch.clamp(t, EPSILON, 1.0)
    p = torch.clamp(p, EPSILON, 1.0)
    return torch.sum(t * torch.log(t / p), dim=-1)


def _poisson(t, p):
    return torch.mean(p - t * torch.log(p + EPSILON), dim=-1)


def _l2_normalize(x, axis):
    return x * torch.rsqrt(torch.clamp(torch.sum(x * x, dim=axis, keepdim=True), min=1e-12))


def _cosine_similarity(t, p, axis=-1):
    return -torch.sum(_l2_normalize(t, axis) * _l2_normalize(p, axis), dim=axis)


def _huber(t, p, delta=1.0):
    error = p - t
    abs_error = torch.abs(error)
    quadratic = 0.5 * torch.square(error)
    linear = delta * abs_error - 0.5 * delta * delta
    return torch.mean(torch.where(abs_error <= delta, quadratic, linear), dim=-1)


def _logcosh(t, p):
    x = p - t
    return torch.mean(x + F.softplus(-2.0 * x) - math.log(2.0), dim=-1)


# ---------------------------------------------------------------- loss functions (ops)


def _loss_function(impl, name, paths, v2_paths=(), **defaults):
    """A Keras loss function `name(y_true, y_pred, **defaults)` as an op over `impl`."""
    def loss(y_true, y_pred, **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError("%s() got an unexpected keyword argument %r" % (
                name, sorted(unknown)[0]))
        options = dict(defaults)
        options.update(kwargs)
        y_pred, options = _activation_logits(y_pred, impl, options)
        return _function_op(impl, y_true, y_pred, options)
    loss.__name__ = loss.__qualname__ = name
    loss.__doc__ = "Keras' `%s(y_true, y_pred)`, reduced over the last axis." % name
    loss._tfcompat_impl = impl
    loss._tfcompat_defaults = defaults
    tf_export(*paths, v2=v2_paths)(loss)
    return loss


@op(graph_name="KerasLossFunction")
def _function_op(impl, y_true, y_pred, options):
    t, p = _pred_true(y_true, y_pred, impl is _scce)
    return impl(t, p, **options)


def _paths(*names):
    """keras.losses.X and keras.metrics.X (both versions), losses.X and metrics.X (v2)."""
    common = [prefix + n for n in names for prefix in ("keras.losses.", "keras.metrics.")]
    v2 = [prefix + n for n in names for prefix in ("losses.", "metrics.")]
    return common, v2


def _export_function(impl, name, aliases=(), metric_paths=True, **defaults):
    names = (name,) + tuple(aliases)
    if metric_paths:
        common, v2 = _paths(*names)
    else:
        common, v2 = ["keras.losses." + n for n in names], ["losses." + n for n in names]
    return _loss_function(impl, name, common, v2, **defaults)


mean_squared_error = _export_function(_mse, "mean_squared_error", ("mse", "MSE"))
mean_absolute_error = _export_function(_mae, "mean_absolute_error", ("mae", "MAE"))
mean_absolute_percentage_error = _export_function(
    _mape, "mean_absolute_percentage_error", ("mape", "MAPE"))
mean_squared_logarithmic_error = _export_function(
    _msle, "mean_squared_logarithmic_error", ("msle", "MSLE"))
binary_crossentropy = _export_function(_bce, "binary_crossentropy", from_logits=False,
                                       label_smoothing=0)
categorical_crossentropy = _export_function(_cce, "categorical_crossentropy",
                                            from_logits=False, label_smoothing=0, axis=-1)
sparse_categorical_crossentropy = _export_function(_scce, "sparse_categorical_crossentropy",
                                                   from_logits=False, axis=-1)
hinge = _export_function(_hinge, "hinge")
squared_hinge = _export_function(_squared_hinge, "squared_hinge")
categorical_hinge = _export_function(_categorical_hinge, "categorical_hinge",
                                     metric_paths=False)
kullback_leibler_divergence = _export_function(
    _kld, "kullback_leibler_divergence", ("kld", "KLD", "kl_divergence"))
poisson = _export_function(_poisson, "poisson")
logcosh = _export_function(_logcosh, "logcosh", ("log_cosh",))
huber = _export_function(_huber, "huber", metric_paths=False, delta=1.0)
cosine_similarity = _loss_function(
    _cosine_similarity, "cosine_similarity",
    ["keras.losses.cosine_similarity", "keras.losses.cosine",
     "keras.losses.cosine_proximity", "keras.metrics.cosine", "keras.metrics.cosine_proximity"],
    ["losses.cosine_similarity"], axis=-1)
mse, mae, kld = mean_squared_error, mean_absolute_error, kullback_leibler_divergence
mape, msle, log_cosh = mean_absolute_percentage_error, mean_squared_logarithmic_error, logcosh
MSE, MAE, MAPE, MSLE, KLD = mse, mae, mape, msle, kld
kl_divergence = kld
cosine = cosine_proximity = cosine_similarity


# ---------------------------------------------------------------- Loss classes


@tf_export("keras.losses.Loss", v2=["losses.Loss"])
class Loss(object):
    """Base class of Keras losses: `loss(y_true, y_pred, sample_weight=None)`.

    Subclasses implement `call(y_true, y_pred)` returning per-example losses.
    """

    def __init__(self, reduction=ReductionV2.AUTO, name=None):
        ReductionV2.validate(reduction)
        self.reduction = reduction
        self.name = name

    def __call__(self, y_true, y_pred, sample_weight=None):
        losses = self.call(y_true, y_pred)
        return _reduce_op(losses, sample_weight, self._get_reduction())

    def call(self, y_true, y_pred):
        raise NotImplementedError("Must be implemented in subclasses.")

    def _get_reduction(self):
        return ReductionV2.SUM_OVER_BATCH_SIZE if self.reduction == ReductionV2.AUTO \
            else self.reduction

    def get_config(self):
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A `Loss` around a loss function `fn(y_true, y_pred, **kwargs)`."""

    def __init__(self, fn, reduction=ReductionV2.AUTO, name=None, **kwargs):
        super(LossFunctionWrapper, self).__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def __call__(self, y_true, y_pred, sample_weight=None):
        impl = getattr(self.fn, "_tfcompat_impl", None)
        if impl is None:
            return super(LossFunctionWrapper, self).__call__(y_true, y_pred, sample_weight)
        y_pred, options = _activation_logits(y_pred, impl, self._fn_kwargs)
        return _loss_op(impl, y_true, y_pred, sample_weight, self._get_reduction(), options)

    def _fused(self):
        """Whether `_call_in_fit` computes this loss as one op (a built-in function)."""
        return hasattr(self.fn, "_tfcompat_impl")

    def _call_in_fit(self, y_true, y_pred, sample_weight):
        impl = self.fn._tfcompat_impl
        y_pred, options = _activation_logits(y_pred, impl, self._fn_kwargs)
        return _loss_op(impl, y_true, y_pred, sample_weight, self._get_reduction(), options,
                        True)

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = dict(self._fn_kwargs)
        config.update(super(LossFunctionWrapper, self).get_config())
        return config


def _loss_class(class_name, fn, default_name, aliases=(), options=()):
    """A Keras Loss class `class_name(<options>, reduction=AUTO, name=default_name)`."""
    defaults = dict(options)

    def __init__(self, *args, **kwargs):
        names = [k for k, _ in options] + ["reduction", "name"]
        if len(args) > len(names):
            raise TypeError("%s takes at most %d arguments" % (class_name, len(names)))
        values = dict(defaults, reduction=ReductionV2.AUTO, name=default_name)
        for key, value in zip(names, args):
            values[key] = value
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError("%s got an unexpected keyword argument %r" % (class_name, key))
            values[key] = value
        reduction, name = values.pop("reduction"), values.pop("name")
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, **values)

    cls = type(class_name, (LossFunctionWrapper,), {
        "__init__": __init__, "__module__": __name__,
        "__doc__": "Keras' `%s` loss (`%s` per example, then the reduction)." % (
            class_name, fn.__name__)})
    names = (class_name,) + tuple(aliases)
    tf_export(*["keras.losses." + n for n in names], v2=["losses." + n for n in names])(cls)
    return cls


MeanSquaredError = _loss_class("MeanSquaredError", mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _loss_class("MeanAbsoluteError", mean_absolute_error,
                                "mean_absolute_error")
MeanAbsolutePercentageError = _loss_class("MeanAbsolutePercentageError",
                                          mean_absolute_percentage_error,
                                          "mean_absolute_percentage_error")
MeanSquaredLogarithmicError = _loss_class("MeanSquaredLogarithmicError",
                                          mean_squared_logarithmic_error,
                                          "mean_squared_logarithmic_error")
BinaryCrossentropy = _loss_class("BinaryCrossentropy", binary_crossentropy,
                                 "binary_crossentropy",
                                 options=(("from_logits", False), ("label_smoothing", 0)))
CategoricalCrossentropy = _loss_class("CategoricalCrossentropy", categorical_crossentropy,
                                      "categorical_crossentropy",
                                      options=(("from_logits", False), ("label_smoothing", 0),
                                               ("axis", -1)))
SparseCategoricalCrossentropy = _loss_class("SparseCategoricalCrossentropy",
                                            sparse_categorical_crossentropy,
                                            "sparse_categorical_crossentropy",
                                            options=(("from_logits", False), ("axis", -1)))
Hinge = _loss_class("Hinge", hinge, "hinge")
SquaredHinge = _loss_class("SquaredHinge", squared_hinge, "squared_hinge")
CategoricalHinge = _loss_class("CategoricalHinge", categorical_hinge, "categorical_hinge")
Poisson = _loss_class("Poisson", poisson, "poisson")
LogCosh = _loss_class("LogCosh", logcosh, "log_cosh")
KLDivergence = _loss_class("KLDivergence", kullback_leibler_divergence, "kl_divergence")
Huber = _loss_class("Huber", huber, "huber_loss", options=(("delta", 1.0),))
CosineSimilarity = _loss_class("CosineSimilarity", cosine_similarity, "cosine_similarity",
                               options=(("axis", -1),))


# ---------------------------------------------------------------- get / serialize

@tf_export("keras.losses.serialize", v2=["losses.serialize"])
def serialize(loss):
    """A loss function's name, or {'class_name', 'config'} for a Loss object."""
    return serialize_keras_object(loss)


@tf_export("keras.losses.deserialize", v2=["losses.deserialize"])
def deserialize(name, custom_objects=None):
    """The loss function (or, for a class name, a Loss object) `tf.keras.losses.<name>`, or
    the Loss a serialized dict describes."""
    return deserialize_keras_object(name, custom_objects=custom_objects,
                                    printable_module_name="loss function",
                                    namespace="keras.losses")


@tf_export("keras.losses.get", v2=["losses.get"])
def get(identifier):
    """A loss function or object from a name, a serialized dict or a callable (None stays)."""
    return deserialize(identifier)
