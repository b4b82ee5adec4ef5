"""`tf.keras.metrics`: Keras 2's stateful metrics and the metric functions.

A `Metric` keeps its state in non-trainable variables. `update_state` is one op that updates
them in place (no host sync, so it also runs inside tf.function graphs and TF1 graphs, where
it returns the update op); `result` is one op reading them; `reset_states` zeroes them.
Metric functions (`binary_accuracy`, ...) return per-example values, as in Keras.
"""
import functools
import re

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.distribute import cross_device_ops
from tfcompat.framework import context, distribution_strategy_context as distribution, dtypes
from tfcompat.framework.ops import init_scope, op, to_torch, variable_storage
from tfcompat.keras import backend, losses as losses_mod
from tfcompat.framework.graph import get_default_graph
from tfcompat.variables import LOCAL_VARIABLES, Variable
from tfcompat.ops import array_ops, math_ops
from tfcompat.keras.utils.generic_utils import deserialize_keras_object, serialize_keras_object

_state = context.state
_FLOATX = dtypes.float32
_EPSILON = 1e-7


def _snake_case(name):
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


# ---------------------------------------------------------------- metric functions (torch)


def _as_float_pair(y_true, y_pred, dtype=torch.float32, integer_labels=False):
    """Keras' MeanMetricWrapper casts: both to the metric's dtype (`integer_labels`:
    integer y_true keeps its dtype, which changes no comparison with a class index)."""
    t, p = to_torch(y_true), to_torch(y_pred)
    label_dtype = t.dtype if integer_labels and not t.is_floating_point() else dtype
    if t.dtype is not label_dtype or t.device != p.device:
        t = t.to(device=p.device, dtype=label_dtype)
    return t, p if p.dtype is dtype else p.to(dtype)


def _accuracy(t, p):
    return (t == p.to(t.dtype)).to(torch.float32)


def _binary_accuracy(t, p, threshold=0.5):
    p = (p > threshold).to(p.dtype)
    return torch.mean((t == p.to(t.dtype)).to(torch.float32), dim=-1)


def _categorical_accuracy(t, p):
    return (torch.argmax(t, dim=-1) == torch.argmax(p, dim=-1)).to(torch.float32)


def _sparse_labels(t, p):
    if t.ndim == p.ndim and t.ndim:
        t = t.squeeze(-1)
    return t


def _sparse_categorical_accuracy(t, p):
    t = _sparse_labels(t, p)
    return (t == torch.argmax(p, dim=-1).to(t.dtype)).to(torch.float32)


def _in_top_k(p, labels, k):
    """TF's in_top_k: the target's score is among the k largest (ties count as in)."""
    target = p.gather(-1, labels.long().unsqueeze(-1))
    return ((p > target).sum(-1) < k).to(torch.float32)


def _top_k_categorical_accuracy(t, p, k=5):
    return _in_top_k(p, torch.argmax(t, dim=-1), k)


def _sparse_top_k_categorical_accuracy(t, p, k=5):
    return _in_top_k(p, _sparse_labels(t, p), k)


# Metric functions of integer class labels: these compare them as integers.
_INTEGER_LABELS = (_sparse_categorical_accuracy, _sparse_top_k_categorical_accuracy)


def _cosine_proximity(t, p, axis=-1):
    return -losses_mod._cosine_similarity(t, p, axis)


def _squared_error(t, p):
    return torch.square(p - t)


@op(graph_name="KerasMetricFunction")
def _metric_function_op(impl, y_true, y_pred, options):
    t, p = to_torch(y_true), to_torch(y_pred)
    if impl is not _accuracy:
        if not p.is_floating_point():
            p = p.float()
        t = t.to(device=p.device, dtype=p.dtype)
    return impl(t, p, **options)


def _metric_function(impl, name, paths=(), v2_paths=(), **defaults):
    def fn(y_true, y_pred, **kwargs):
        options = dict(defaults)
        options.update(kwargs)
        return _metric_function_op(impl, y_true, y_pred, options)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "Keras' `%s(y_true, y_pred)` per example." % name
    fn._tfcompat_impl = impl
    fn._tfcompat_defaults = defaults
    if paths or v2_paths:
        tf_export(*paths, v2=v2_paths)(fn)
    return fn


def _fn_paths(name):
    return ["keras.metrics." + name], ["metrics." + name]


accuracy = _metric_function(_accuracy, "accuracy")
binary_accuracy = _metric_function(_binary_accuracy, "binary_accuracy",
                                   *_fn_paths("binary_accuracy"), threshold=0.5)
categorical_accuracy = _metric_function(_categorical_accuracy, "categorical_accuracy",
                                        *_fn_paths("categorical_accuracy"))
sparse_categorical_accuracy = _metric_function(
    _sparse_categorical_accuracy, "sparse_categorical_accuracy",
    *_fn_paths("sparse_categorical_accuracy"))
top_k_categorical_accuracy = _metric_function(
    _top_k_categorical_accuracy, "top_k_categorical_accuracy",
    *_fn_paths("top_k_categorical_accuracy"), k=5)
sparse_top_k_categorical_accuracy = _metric_function(
    _sparse_top_k_categorical_accuracy, "sparse_top_k_categorical_accuracy",
    *_fn_paths("sparse_top_k_categorical_accuracy"), k=5)
cosine_proximity_metric = _metric_function(_cosine_proximity, "cosine_similarity", axis=-1)

# The loss functions are metrics too (keras.metrics.mse is keras.losses.mse).
mean_squared_error = mse = MSE = losses_mod.mean_squared_error
mean_absolute_error = mae = MAE = losses_mod.mean_absolute_error
mean_absolute_percentage_error = mape = MAPE = losses_mod.mean_absolute_percentage_error
mean_squared_logarithmic_error = msle = MSLE = losses_mod.mean_squared_logarithmic_error
binary_crossentropy = losses_mod.binary_crossentropy
categorical_crossentropy = losses_mod.categorical_crossentropy
sparse_categorical_crossentropy = losses_mod.sparse_categorical_crossentropy
hinge = losses_mod.hinge
squared_hinge = losses_mod.squared_hinge
kullback_leibler_divergence = kld = KLD = losses_mod.kullback_leibler_divergence
poisson = losses_mod.poisson
logcosh = losses_mod.logcosh


# ---------------------------------------------------------------- state update ops


def _weights_like(values, sample_weight):
    """Keras' sample-weight handling: squeeze/expand a rank difference of one, then
    broadcast; where that fails, values are reduced to the weights' rank (None: reduce)."""
    w = to_torch(sample_weight).to(device=values.device, dtype=values.dtype)
    if w.ndim - values.ndim == 1 and w.shape[-1] == 1:
        w = w.squeeze(-1)
    elif values.ndim - w.ndim == 1 and w.ndim:
        w = w.unsqueeze(-1)
    try:
        return torch.broadcast_to(w, values.shape), False
    except RuntimeError:
        return w, True


def _reduce_values(values, sample_weight, reduction):
    """(weighted sum of values, count to divide by) for Sum/Mean-style metrics."""
    if sample_weight is None:
        return values.sum(), values.numel()
    if type(sample_weight) is float and values.numel() == 1:
        weight = float(np.float32(sample_weight))      # fit's loss tracker: the batch size
        return (values * weight).sum(), weight if reduction == "weighted_mean" else 1
    w, reduce_first = _weights_like(values, sample_weight)
    if reduce_first:
        axes = tuple(range(w.ndim, values.ndim))
        values = values.sum(axes) if reduction == "sum" else values.mean(axes)
        w = torch.broadcast_to(w, values.shape)
    values = values * w
    return values.sum(), w.sum() if reduction == "weighted_mean" else values.numel()


@op(graph_name="KerasMetricUpdate")
def _reduce_update(total, count, values, sample_weight, reduction):
    """Add the (weighted) values to `total` and their weight to `count` in place."""
    total, count = variable_storage(total), variable_storage(count)
    with torch.no_grad():
        v = to_torch(values)
        if v.dtype is not total.dtype or v.device != total.device:
            v = v.to(device=total.device, dtype=total.dtype)
        value_sum, num = _reduce_values(v, sample_weight, reduction)
        total.add_(value_sum)
        if reduction != "sum":
            count.add_(num)
    return None


@op(graph_name="KerasMeanMetricUpdate")
def _mean_fn_update(total, count, impl, y_true, y_pred, sample_weight, options, dtype,
                    match_rank=False):
    """MeanMetricWrapper: values = impl(y_true, y_pred), then a weighted-mean update
    (`match_rank`: fit's rank-1 targets of rank-2 outputs get a last axis first)."""
    total, count = variable_storage(total), variable_storage(count)
    with torch.no_grad():
        t, p = _as_float_pair(y_true, y_pred, dtype, impl in _INTEGER_LABELS)
        if match_rank and t.ndim == 1 and p.ndim == 2:
            t = t.unsqueeze(-1)
            if sample_weight is not None and to_torch(sample_weight).ndim == 1:
                sample_weight = to_torch(sample_weight).unsqueeze(-1)
        p, t = _squeeze_pair(p, t)
        values = impl(t, p, **options)
        if values.dtype is not dtype:
            values = values.to(dtype)
        value_sum, num = _reduce_values(values, sample_weight, "weighted_mean")
        total.add_(value_sum)
        count.add_(num)
    return None


def _squeeze_pair(p, t):
    t, p = losses_mod._squeeze_or_expand(t, p)
    return p, t


@op(graph_name="DivNoNan")
def _div_no_nan(total, count, sqrt=False):
    total, count = to_torch(total), to_torch(count)
    result = torch.where(count == 0, 0.0, total / count)   # total / 0 is replaced by 0
    return torch.sqrt(result) if sqrt else result


@op(graph_name="Identity")
def _read(value):
    return to_torch(value).clone()


@op(graph_name="KerasMetricReset")
def _zero(variables):
    with torch.no_grad():
        for v in variables:
            variable_storage(v).zero_()
    return None


# ---------------------------------------------------------------- Metric base class


def _over_replicas(result_fn):
    """`result` of the state summed over the replicas in sync, as Keras 2 reads a metric's
    SUM-aggregated variables under a strategy with several replicas: each worker's state is
    swapped for the all-reduced one while `result_fn` reads it (eagerly or in a tf.function;
    a TF1 graph keeps each worker's own result)."""
    @functools.wraps(result_fn)
    def result(self):
        variables = self._metric_variables
        if not variables or distribution.num_replicas_in_sync() == 1 or \
                not context.executing_eagerly_outside_functions() or \
                getattr(self, "_summed_over_replicas", False):  # a subclass's super().result()
            return result_fn(self)
        local = [v.value() for v in variables]
        for variable, total in zip(variables, cross_device_ops.all_reduce(local, "SUM")):
            variable.assign(total)
        self._summed_over_replicas = True
        try:
            value = result_fn(self)
        finally:
            self._summed_over_replicas = False
        for variable, own in zip(variables, local):
            variable.assign(own)
        return value
    return result


@tf_export("keras.metrics.Metric", v2=["metrics.Metric"])
class Metric(object):
    """Base class of Keras metrics: `update_state`, `result`, `reset_states`.

    Calling a metric updates it and returns the result. Its state lives in non-trainable
    variables created with `add_weight` (in a TF1 graph they are LOCAL_VARIABLES); under a
    strategy with several replicas `result()` is that of every replica's state together.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "result" in cls.__dict__:
            cls.result = _over_replicas(cls.__dict__["result"])

    def __init__(self, name=None, dtype=None, **kwargs):
        self._name = name or _snake_case(type(self).__name__)
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else _FLOATX
        self._metric_variables = []
        self.built = True
        self.stateful = True

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    def __call__(self, *args, **kwargs):
        update = self.update_state(*args, **kwargs)
        if _state.building_graph and update is not None:
            with get_default_graph().control_dependencies([update]):
                return self.result()
        return self.result()

    def update_state(self, *args, **kwargs):
        raise NotImplementedError("Must be implemented in subclasses.")

    def result(self):
        raise NotImplementedError("Must be implemented in subclasses.")

    def reset_state(self):
        """Zero every state variable (TF1 graph: returns the op that does it)."""
        if not self._metric_variables:
            return None
        if _state.building_graph:
            return _zero(self._metric_variables)
        _zero(self._metric_variables)
        return None

    reset_states = reset_state

    def add_weight(self, name, shape=(), aggregation=None, synchronization=None,
                   initializer=None, dtype=None):
        """A non-trainable state variable (zeros unless `initializer` is given)."""
        dtype = dtypes.as_dtype(dtype) if dtype is not None else self._dtype
        shape = tuple(shape)
        if initializer is None or initializer == "zeros":
            value = np.zeros(shape, dtype=dtype.as_numpy_dtype)
        elif callable(initializer):
            value = initializer(shape, dtype=dtype)
        else:
            value = np.full(shape, initializer, dtype=dtype.as_numpy_dtype)
        with init_scope():
            variable = Variable(value, trainable=False, name=name, dtype=dtype,
                                collections=[LOCAL_VARIABLES])
        self._metric_variables.append(variable)
        return variable

    @property
    def variables(self):
        return list(self._metric_variables)

    weights = non_trainable_weights = non_trainable_variables = variables

    @property
    def trainable_weights(self):
        return []

    trainable_variables = trainable_weights

    def get_weights(self):
        return backend.batch_get_value(self._metric_variables)

    def set_weights(self, weights):
        backend.batch_set_value(list(zip(self._metric_variables, weights)))

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return "<%s name=%s>" % (type(self).__name__, self.name)


class Reduce(Metric):
    """A metric reducing values to their sum or (weighted) mean."""

    def __init__(self, reduction, name, dtype=None):
        super(Reduce, self).__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total")
        if reduction != "sum":
            self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None):
        count = self.count if self.reduction != "sum" else self.total
        return _reduce_update(self.total, count, values, sample_weight, self.reduction)

    def result(self):
        if self.reduction == "sum":
            return _read(self.total)
        return _div_no_nan(self.total, self.count)


@tf_export("keras.metrics.Sum", v2=["metrics.Sum"])
class Sum(Reduce):
    """The (weighted) sum of the values seen."""

    def __init__(self, name="sum", dtype=None):
        super(Sum, self).__init__("sum", name, dtype)


@tf_export("keras.metrics.Mean", v2=["metrics.Mean"])
class Mean(Reduce):
    """The (weighted) mean of the values seen."""

    def __init__(self, name="mean", dtype=None):
        super(Mean, self).__init__("weighted_mean", name, dtype)


@tf_export("keras.metrics.MeanMetricWrapper", v2=["metrics.MeanMetricWrapper"])
class MeanMetricWrapper(Mean):
    """The weighted mean of `fn(y_true, y_pred, **kwargs)` over the examples seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super(MeanMetricWrapper, self).__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        impl = getattr(self._fn, "_tfcompat_impl", None)
        if impl is None:
            y_true = math_ops.cast(y_true, self._dtype)
            y_pred = math_ops.cast(y_pred, self._dtype)
            return super(MeanMetricWrapper, self).update_state(
                self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)
        y_pred, options = losses_mod._activation_logits(y_pred, impl, self._options())
        return _mean_fn_update(self.total, self.count, impl, y_true, y_pred, sample_weight,
                               options, self._dtype.torch_dtype)

    def _options(self):
        options = dict(getattr(self._fn, "_tfcompat_defaults", {}))
        options.update(self._fn_kwargs)
        return options

    def _fused(self):
        """Whether `_update_in_fit` updates this metric as one op (a built-in function)."""
        return type(self).update_state is MeanMetricWrapper.update_state and \
            hasattr(self._fn, "_tfcompat_impl")

    def _update_in_fit(self, y_true, y_pred, sample_weight):
        impl = self._fn._tfcompat_impl
        y_pred, options = losses_mod._activation_logits(y_pred, impl, self._options())
        return _mean_fn_update(self.total, self.count, impl, y_true, y_pred, sample_weight,
                               options, self._dtype.torch_dtype, True)

    def get_config(self):
        config = dict(self._fn_kwargs)
        config.update(super(MeanMetricWrapper, self).get_config())
        return config

    @classmethod
    def from_config(cls, config):
        """Keras 2's: a MeanMetricWrapper's config names its function as `fn` (a registered
        metric function, as training configs in HDF5 files hold them)."""
        config = dict(config)
        fn = config.pop("fn", None)
        if cls is MeanMetricWrapper:
            if fn is None:
                raise ValueError("MeanMetricWrapper config has no `fn`: %r" % (config,))
            return cls(get(fn), **config)
        return cls(**config)


def _wrapper_class(class_name, fn, default_name, options=()):
    """A MeanMetricWrapper subclass `class_name(<options>, name=..., dtype=None)`."""
    defaults = dict(options)

    def __init__(self, *args, **kwargs):
        names = ["name", "dtype"] + [k for k, _ in options]
        values = dict(defaults, name=default_name, dtype=None)
        if len(args) > len(names):
            raise TypeError("%s takes at most %d arguments" % (class_name, len(names)))
        for key, value in zip(names, args):
            values[key] = value
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError("%s got an unexpected keyword argument %r" % (class_name, key))
            values[key] = value
        name, dtype = values.pop("name"), values.pop("dtype")
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **values)

    cls = type(class_name, (MeanMetricWrapper,), {
        "__init__": __init__, "__module__": __name__,
        "__doc__": "The mean of `%s` over the examples seen." % default_name})
    tf_export("keras.metrics." + class_name, v2=["metrics." + class_name])(cls)
    return cls


Accuracy = _wrapper_class("Accuracy", accuracy, "accuracy")
BinaryAccuracy = _wrapper_class("BinaryAccuracy", binary_accuracy, "binary_accuracy",
                                (("threshold", 0.5),))
CategoricalAccuracy = _wrapper_class("CategoricalAccuracy", categorical_accuracy,
                                     "categorical_accuracy")
SparseCategoricalAccuracy = _wrapper_class("SparseCategoricalAccuracy",
                                           sparse_categorical_accuracy,
                                           "sparse_categorical_accuracy")
TopKCategoricalAccuracy = _wrapper_class("TopKCategoricalAccuracy", top_k_categorical_accuracy,
                                         "top_k_categorical_accuracy", (("k", 5),))
SparseTopKCategoricalAccuracy = _wrapper_class(
    "SparseTopKCategoricalAccuracy", sparse_top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy", (("k", 5),))
MeanSquaredError = _wrapper_class("MeanSquaredError", mean_squared_error,
                                  "mean_squared_error")
MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", mean_absolute_error,
                                   "mean_absolute_error")
MeanAbsolutePercentageError = _wrapper_class("MeanAbsolutePercentageError", mape,
                                             "mean_absolute_percentage_error")
MeanSquaredLogarithmicError = _wrapper_class("MeanSquaredLogarithmicError", msle,
                                             "mean_squared_logarithmic_error")
BinaryCrossentropy = _wrapper_class("BinaryCrossentropy", binary_crossentropy,
                                    "binary_crossentropy",
                                    (("from_logits", False), ("label_smoothing", 0)))
CategoricalCrossentropy = _wrapper_class("CategoricalCrossentropy", categorical_crossentropy,
                                         "categorical_crossentropy",
                                         (("from_logits", False), ("label_smoothing", 0)))
SparseCategoricalCrossentropy = _wrapper_class(
    "SparseCategoricalCrossentropy", sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy", (("from_logits", False), ("axis", -1)))
Hinge = _wrapper_class("Hinge", hinge, "hinge")
SquaredHinge = _wrapper_class("SquaredHinge", squared_hinge, "squared_hinge")
CategoricalHinge = _wrapper_class("CategoricalHinge", losses_mod.categorical_hinge,
                                  "categorical_hinge")
KLDivergence = _wrapper_class("KLDivergence", kld, "kullback_leibler_divergence")
Poisson = _wrapper_class("Poisson", poisson, "poisson")
LogCoshError = _wrapper_class("LogCoshError", logcosh, "logcosh")
CosineSimilarity = _wrapper_class("CosineSimilarity", cosine_proximity_metric,
                                  "cosine_similarity", (("axis", -1),))


@tf_export("keras.metrics.RootMeanSquaredError", v2=["metrics.RootMeanSquaredError"])
class RootMeanSquaredError(Mean):
    """sqrt of the (weighted) mean squared error."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super(RootMeanSquaredError, self).__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        return _mean_fn_update(self.total, self.count, _squared_error, y_true, y_pred,
                               sample_weight, {}, self._dtype.torch_dtype)

    def result(self):
        return _div_no_nan(self.total, self.count, sqrt=True)


# ---------------------------------------------------------------- confusion-matrix metrics


def _confusion_inputs(y_true, y_pred, sample_weight, class_id, top_k):
    p = to_torch(y_pred).detach()
    p = p.float() if not p.is_floating_point() else p
    t = to_torch(y_true).detach().to(device=p.device)
    p, t = _squeeze_pair(p, t.to(p.dtype))
    if top_k is not None:
        kth = torch.topk(p, top_k, dim=-1).values[..., -1:]
        p = torch.where(p >= kth, p, torch.full_like(p, -float("inf")))
    if class_id is not None:
        t, p = t[..., class_id], p[..., class_id]
    w = None
    if sample_weight is not None:
        w, _ = _weights_like(p, sample_weight)
        w = torch.broadcast_to(w, p.shape).reshape(-1)
    return t.reshape(-1) > 0, p.reshape(-1), w


@op(graph_name="KerasConfusionUpdate")
def _confusion_update(variables, kinds, thresholds, y_true, y_pred, sample_weight,
                      class_id, top_k):
    """Add weighted tp/fp/tn/fn counts at each threshold (prediction > threshold)."""
    storages = [variable_storage(v) for v in variables]
    with torch.no_grad():
        labels, preds, w = _confusion_inputs(y_true, y_pred, sample_weight, class_id, top_k)
        thr = torch.tensor(thresholds, dtype=preds.dtype, device=preds.device)
        above = preds.unsqueeze(0) > thr.unsqueeze(1)                   # [T, N]
        pos = labels.unsqueeze(0)
        for storage, kind in zip(storages, kinds):
            if kind == "tp":
                hit = above & pos
            elif kind == "fp":
                hit = above & ~pos
            elif kind == "tn":
                hit = ~above & ~pos
            else:
                hit = ~above & pos
            hit = hit.to(storage.dtype)
            if w is not None:
                hit = hit * w.to(storage.dtype).unsqueeze(0)
            storage.add_(hit.sum(-1).reshape(storage.shape))
    return None


def _thresholds(thresholds, default=0.5):
    if thresholds is None:
        return [default]
    values = list(thresholds) if isinstance(thresholds, (list, tuple, np.ndarray)) \
        else [thresholds]
    for t in values:
        if not 0 <= t <= 1:
            raise ValueError("Threshold values must be in [0, 1]. Invalid values: %s"
                             % (values,))
    return [float(t) for t in values]


class _ConfusionMetric(Metric):
    """State: one count per threshold for each of `kinds` (tp, fp, tn, fn)."""

    kinds = ()

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None,
                 _checked_thresholds=None):
        super(_ConfusionMetric, self).__init__(name=name, dtype=dtype)
        default = 0.5 if top_k is None else -float("inf")
        self.init_thresholds = thresholds
        if _checked_thresholds is not None:
            self.thresholds = _checked_thresholds
        else:
            self.thresholds = _thresholds(thresholds) if thresholds is not None else [default]
        self._scalar = thresholds is None or not isinstance(thresholds, (list, tuple,
                                                                         np.ndarray))
        self.top_k = top_k
        self.class_id = class_id
        names = {"tp": "true_positives", "fp": "false_positives", "tn": "true_negatives",
                 "fn": "false_negatives"}
        self._counts = [self.add_weight(names[k], shape=(len(self.thresholds),))
                        for k in self.kinds]

    def update_state(self, y_true, y_pred, sample_weight=None):
        return _confusion_update(self._counts, self.kinds, self.thresholds, y_true, y_pred,
                                 sample_weight, self.class_id, self.top_k)

    def get_config(self):
        config = {"thresholds": self.init_thresholds, "top_k": self.top_k,
                  "class_id": self.class_id}
        config.update(super(_ConfusionMetric, self).get_config())
        return config


@op(graph_name="KerasConfusionResult")
def _ratio_result(numerator, denominators, scalar):
    num = to_torch(numerator)
    den = sum(to_torch(d) for d in denominators)
    result = torch.where(den == 0, torch.zeros_like(num), num / torch.where(
        den == 0, torch.ones_like(den), den))
    return result[0] if scalar else result


def _count_class(class_name, kind, doc):
    def __init__(self, thresholds=None, name=None, dtype=None):
        _ConfusionMetric.__init__(self, thresholds=thresholds, name=name, dtype=dtype)

    def result(self):
        value = _read(self._counts[0])
        if self._scalar:
            return array_ops.reshape(value, [])
        return value

    cls = type(class_name, (_ConfusionMetric,), {
        "kinds": (kind,), "__init__": __init__, "result": result, "__doc__": doc,
        "__module__": __name__})
    tf_export("keras.metrics." + class_name, v2=["metrics." + class_name])(cls)
    return cls


TruePositives = _count_class("TruePositives", "tp", "Weighted count of true positives.")
FalsePositives = _count_class("FalsePositives", "fp", "Weighted count of false positives.")
TrueNegatives = _count_class("TrueNegatives", "tn", "Weighted count of true negatives.")
FalseNegatives = _count_class("FalseNegatives", "fn", "Weighted count of false negatives.")


@tf_export("keras.metrics.Precision", v2=["metrics.Precision"])
class Precision(_ConfusionMetric):
    """tp / (tp + fp) at each threshold (default 0.5; predictions above it are positive)."""

    kinds = ("tp", "fp")

    def result(self):
        return _ratio_result(self._counts[0], self._counts, self._scalar)

    @property
    def true_positives(self):
        return self._counts[0]

    @property
    def false_positives(self):
        return self._counts[1]


@tf_export("keras.metrics.Recall", v2=["metrics.Recall"])
class Recall(_ConfusionMetric):
    """tp / (tp + fn) at each threshold (default 0.5; predictions above it are positive)."""

    kinds = ("tp", "fn")

    def result(self):
        return _ratio_result(self._counts[0], self._counts, self._scalar)

    @property
    def true_positives(self):
        return self._counts[0]

    @property
    def false_negatives(self):
        return self._counts[1]


@op(graph_name="KerasAUC")
def _auc_result(tp, fp, tn, fn, curve, summation_method):
    tp, fp, tn, fn = (to_torch(v) for v in (tp, fp, tn, fn))

    def div(a, b):
        return torch.where(b == 0, torch.zeros_like(a), a / torch.where(
            b == 0, torch.ones_like(b), b))
    if curve == "PR" and summation_method == "interpolation":
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = div(dtp, torch.clamp(dp, min=0))
        intercept = tp[1:] - slope * p[1:]
        ratio = torch.where((p[:-1] > 0) & (p[1:] > 0),
                            div(p[:-1], torch.clamp(p[1:], min=0)), torch.ones_like(p[1:]))
        return torch.sum(div(slope * (dtp + intercept * torch.log(ratio)),
                             torch.clamp(tp[1:] + fn[1:], min=0)))
    recall = div(tp, tp + fn)
    if curve == "ROC":
        x, y = div(fp, fp + tn), recall
    else:
        x, y = recall, div(tp, tp + fp)
    if summation_method == "interpolation":
        heights = (y[:-1] + y[1:]) / 2.0
    elif summation_method == "minoring":
        heights = torch.minimum(y[:-1], y[1:])
    else:
        heights = torch.maximum(y[:-1], y[1:])
    return torch.sum((x[:-1] - x[1:]) * heights)


@tf_export("keras.metrics.AUC", v2=["metrics.AUC"])
class AUC(_ConfusionMetric):
    """Area under the ROC or PR curve, from counts at `num_thresholds` thresholds."""

    kinds = ("tp", "fp", "tn", "fn")

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False,
                 label_weights=None):
        curve = str(curve).upper()
        summation_method = str(summation_method).lower()
        if curve not in ("ROC", "PR"):
            raise ValueError('Invalid curve: "%s". Valid options are: "ROC", "PR"' % curve)
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError('Invalid summation method: "%s". Valid options are '
                             '"interpolation", "majoring", "minoring"' % summation_method)
        if multi_label or label_weights is not None:
            raise NotImplementedError("tfcompat's keras.metrics.AUC does not implement "
                                      "multi_label / label_weights")
        if thresholds is not None:
            inner = sorted(_thresholds(thresholds))
            self.num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError("`num_thresholds` must be > 1.")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.curve = curve
        self.summation_method = summation_method
        self.multi_label = False
        all_thresholds = [0.0 - _EPSILON] + inner + [1.0 + _EPSILON]
        super(AUC, self).__init__(name=name, dtype=dtype, _checked_thresholds=all_thresholds)
        self._scalar = False

    def result(self):
        return _auc_result(*self._counts, self.curve, self.summation_method)

    def get_config(self):
        config = {"num_thresholds": self.num_thresholds, "curve": self.curve,
                  "summation_method": self.summation_method, "multi_label": False}
        config.update(Metric.get_config(self))
        return config


@op(graph_name="KerasConfusionMatrixUpdate")
def _iou_update(total_cm, num_classes, y_true, y_pred, sample_weight):
    storage = variable_storage(total_cm)
    with torch.no_grad():
        p = to_torch(y_pred).detach().reshape(-1).to(storage.device).long()
        t = to_torch(y_true).detach().reshape(-1).to(storage.device).long()
        index = t * num_classes + p
        if sample_weight is None:
            w = torch.ones(index.shape, dtype=storage.dtype, device=storage.device)
        else:
            w = to_torch(sample_weight).detach().reshape(-1).to(storage.device, storage.dtype)
            w = torch.broadcast_to(w, index.shape)
        cm = torch.zeros(num_classes * num_classes, dtype=storage.dtype,
                         device=storage.device).index_add_(0, index, w)
        storage.add_(cm.reshape(num_classes, num_classes))
    return None


@op(graph_name="KerasMeanIoU")
def _iou_result(total_cm, dtype):
    cm = to_torch(total_cm).to(dtype)
    tp = torch.diagonal(cm)
    denominator = cm.sum(0) + cm.sum(1) - tp
    valid = (denominator != 0).sum().to(dtype)
    iou = torch.where(denominator == 0, torch.zeros_like(tp), tp / torch.where(
        denominator == 0, torch.ones_like(denominator), denominator))
    return torch.where(valid == 0, torch.zeros_like(valid), iou.sum() / torch.clamp(valid, 1))


@tf_export("keras.metrics.MeanIoU", v2=["metrics.MeanIoU"])
class MeanIoU(Metric):
    """Mean intersection-over-union over `num_classes` (predictions are class ids)."""

    def __init__(self, num_classes, name=None, dtype=None):
        super(MeanIoU, self).__init__(name=name, dtype=dtype)
        self.num_classes = num_classes
        self.total_cm = self.add_weight("total_confusion_matrix",
                                        shape=(num_classes, num_classes),
                                        dtype=dtypes.float64)

    def update_state(self, y_true, y_pred, sample_weight=None):
        return _iou_update(self.total_cm, self.num_classes, y_true, y_pred, sample_weight)

    def result(self):
        return _iou_result(self.total_cm, self._dtype.torch_dtype)

    def get_config(self):
        config = {"num_classes": self.num_classes}
        config.update(super(MeanIoU, self).get_config())
        return config


# ---------------------------------------------------------------- get / serialize

# Keras 2's metric names that are no public path under tf.keras.metrics (its alias list, not a
# symbol table); every other name is found at `tf.keras.metrics.<name>`.
_KERAS_METRICS = {"accuracy": accuracy, "acc": accuracy, "ACC": accuracy,
                  "cosine_similarity": cosine_proximity_metric,
                  "categorical_hinge": losses_mod.categorical_hinge}


@tf_export("keras.metrics.serialize", v2=["metrics.serialize"])
def serialize(metric):
    """A metric function's name, or {'class_name', 'config'} for a Metric object."""
    return serialize_keras_object(metric)


@tf_export("keras.metrics.deserialize", v2=["metrics.deserialize"])
def deserialize(config, custom_objects=None):
    """The metric function (or, for a class name, a Metric object) a name stands for, or the
    Metric a serialized dict describes."""
    return deserialize_keras_object(config, module_objects=_KERAS_METRICS,
                                    custom_objects=custom_objects,
                                    printable_module_name="metric function",
                                    namespace="keras.metrics")


@tf_export("keras.metrics.get", v2=["metrics.get"])
def get(identifier):
    """A metric function or object from a name, a serialized dict or a callable."""
    if identifier is None:
        raise ValueError("Could not interpret metric function identifier: None")
    return deserialize(identifier)
