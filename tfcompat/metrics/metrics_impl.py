"""TF1's streaming metrics `tf.metrics.*` (`tf.compat.v1.metrics`).

Each returns `(value, update_op)`: running `update_op` adds the batch to the metric's local
variables (LOCAL_VARIABLES and METRIC_VARIABLES, initialized by
`tf.local_variables_initializer()`) and gives the updated value; `value` reads it. As in
TensorFlow they need a graph: with eager execution they raise RuntimeError.
"""
import torch

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes
from tfcompat.framework.ops import name_scope, op, to_torch, variable_storage
from tfcompat.keras import metrics as keras_metrics
from tfcompat.framework.graph import get_default_graph
from tfcompat.variables import Variable

_state = context.state
LOCAL_VARIABLES = "local_variables"
METRIC_VARIABLES = "metric_variables"
_EPSILON = 1e-7


def _graph_only(name):
    if not _state.building_graph:
        raise RuntimeError("tf.metrics.%s is not supported when eager execution is enabled."
                           % name)
    return get_default_graph()


def _local(graph, name, shape=(), dtype=dtypes.float32):
    import numpy as np
    value = np.zeros(shape, dtype=dtype.as_numpy_dtype)
    return Variable(value, trainable=False, name=name, dtype=dtype,
                    collections=[LOCAL_VARIABLES, METRIC_VARIABLES])


def _finish(graph, value_fn, update, metrics_collections, updates_collections):
    """(value, update_op): update_op is the value computed after `update` ran."""
    value = value_fn()
    with graph.control_dependencies([update]):
        update_op = value_fn()
    for key in metrics_collections or ():
        graph.add_to_collection(key, value)
    for key in updates_collections or ():
        graph.add_to_collection(key, update_op)
    return value, update_op


@op(graph_name="StreamingMeanUpdate")
def _mean_update(total, count, values, weights):
    total, count = variable_storage(total), variable_storage(count)
    with torch.no_grad():
        v = to_torch(values).detach().to(device=total.device, dtype=total.dtype)
        if weights is None:
            total.add_(v.sum())
            count.add_(v.numel())
        else:
            w = torch.broadcast_to(to_torch(weights).detach().to(v.device, v.dtype), v.shape)
            total.add_((v * w).sum())
            count.add_(w.sum())
    return None


def _streaming_mean(name, values_fn, inputs, weights, metrics_collections,
                    updates_collections, sqrt=False):
    graph = _graph_only(name)
    with name_scope(None, name):
        total = _local(graph, "total")
        count = _local(graph, "count")
        values = values_fn(*inputs)
        update = _mean_update(total, count, values, weights)
        return _finish(graph, lambda: keras_metrics._div_no_nan(total, count, sqrt=sqrt),
                       update, metrics_collections, updates_collections)


@op(graph_name="Equal")
def _matches(labels, predictions):
    t, p = to_torch(labels), to_torch(predictions)
    return (t == p.to(t.dtype)).float()


@op(graph_name="AbsDiff")
def _abs_error(labels, predictions):
    t, p = to_torch(labels), to_torch(predictions)
    return torch.abs(p.float() - t.to(p.device).float())


@op(graph_name="SquaredDiff")
def _squared_error(labels, predictions):
    t, p = to_torch(labels), to_torch(predictions)
    return torch.square(p.float() - t.to(p.device).float())


@tf_export(v1=["metrics.mean"])
def mean(values, weights=None, metrics_collections=None, updates_collections=None,
         name=None):
    """The (weighted) mean of all values seen."""
    return _streaming_mean("mean", lambda v: v, [values], weights, metrics_collections,
                           updates_collections)


@tf_export(v1=["metrics.accuracy"])
def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """How often predictions equal labels."""
    return _streaming_mean("accuracy", _matches, [labels, predictions], weights,
                           metrics_collections, updates_collections)


@tf_export(v1=["metrics.mean_absolute_error"])
def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    return _streaming_mean("mean_absolute_error", _abs_error, [labels, predictions], weights,
                           metrics_collections, updates_collections)


@tf_export(v1=["metrics.mean_squared_error"])
def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    return _streaming_mean("mean_squared_error", _squared_error, [labels, predictions],
                           weights, metrics_collections, updates_collections)


@tf_export(v1=["metrics.root_mean_squared_error"])
def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    return _streaming_mean("root_mean_squared_error", _squared_error, [labels, predictions],
                           weights, metrics_collections, updates_collections, sqrt=True)


@op(graph_name="ConfusionCountsUpdate")
def _counts_update(variables, kinds, thresholds, labels, predictions, weights):
    """TF1 counts: with `thresholds`, predictions > threshold; else predictions cast to
    bool. Labels are cast to bool."""
    storages = [variable_storage(v) for v in variables]
    with torch.no_grad():
        p = to_torch(predictions).detach()
        t = to_torch(labels).detach().to(p.device).reshape(-1) != 0
        p = p.reshape(-1)
        if thresholds is None:
            above = (p != 0).unsqueeze(0)
        else:
            thr = torch.tensor(thresholds, dtype=torch.float32, device=p.device)
            above = p.float().unsqueeze(0) > thr.unsqueeze(1)
        w = None if weights is None else torch.broadcast_to(
            to_torch(weights).detach().to(p.device, torch.float32),
            to_torch(predictions).shape).reshape(-1)
        pos = t.unsqueeze(0)
        for storage, kind in zip(storages, kinds):
            hit = {"tp": above & pos, "fp": above & ~pos, "tn": ~above & ~pos,
                   "fn": ~above & pos}[kind].to(storage.dtype)
            if w is not None:
                hit = hit * w.to(storage.dtype).unsqueeze(0)
            storage.add_(hit.sum(-1).reshape(storage.shape))
    return None


def _counts(name, kinds, labels, predictions, weights, thresholds=None):
    graph = _graph_only(name)
    names = {"tp": "true_positives", "fp": "false_positives", "tn": "true_negatives",
             "fn": "false_negatives"}
    shape = () if thresholds is None else (len(thresholds),)
    with name_scope(None, name):
        variables = [_local(graph, names[k], shape) for k in kinds]
        update = _counts_update(variables, kinds, thresholds, labels, predictions, weights)
    return graph, variables, update


@op(graph_name="Precision")
def _ratio(numerator, denominators):
    num = to_torch(numerator)
    den = sum(to_torch(d) for d in denominators)
    return torch.where(den > 0, num / torch.where(den > 0, den, torch.ones_like(den)),
                       torch.zeros_like(num))


def _count_metric(name, kind):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        graph, variables, update = _counts(metric.__name__, (kind,), labels, predictions,
                                           weights)
        return _finish(graph, lambda: keras_metrics._read(variables[0]), update,
                       metrics_collections, updates_collections)
    metric.__name__ = name
    metric.__doc__ = "The weighted count of %s (labels and predictions cast to bool)." % (
        name.replace("_", " "))
    tf_export(v1=["metrics." + name])(metric)
    return metric


true_positives = _count_metric("true_positives", "tp")
false_positives = _count_metric("false_positives", "fp")
true_negatives = _count_metric("true_negatives", "tn")
false_negatives = _count_metric("false_negatives", "fn")


@tf_export(v1=["metrics.precision"])
def precision(labels, predictions, weights=None, metrics_collections=None,
              updates_collections=None, name=None):
    """tp / (tp + fp), labels and predictions cast to bool."""
    graph, (tp, fp), update = _counts("precision", ("tp", "fp"), labels, predictions, weights)
    return _finish(graph, lambda: _ratio(tp, [tp, fp]), update, metrics_collections,
                   updates_collections)


@tf_export(v1=["metrics.recall"])
def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None):
    """tp / (tp + fn), labels and predictions cast to bool."""
    graph, (tp, fn), update = _counts("recall", ("tp", "fn"), labels, predictions, weights)
    return _finish(graph, lambda: _ratio(tp, [tp, fn]), update, metrics_collections,
                   updates_collections)


@op(graph_name="AUC")
def _auc_value(tp, fp, tn, fn, curve, summation_method):
    tp, fp, tn, fn = (to_torch(v) for v in (tp, fp, tn, fn))
    rec = (tp + _EPSILON) / (tp + fn + _EPSILON)
    if curve == "ROC":
        x, y = fp / (fp + tn + _EPSILON), rec
    else:
        x, y = rec, (tp + _EPSILON) / (tp + fp + _EPSILON)
    if summation_method == "trapezoidal":
        heights = (y[:-1] + y[1:]) / 2.0
    elif summation_method == "minoring":
        heights = torch.minimum(y[:-1], y[1:])
    else:
        heights = torch.maximum(y[:-1], y[1:])
    return torch.sum((x[:-1] - x[1:]) * heights)


@tf_export(v1=["metrics.auc"])
def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """Area under the ROC or PR curve (Riemann sum over `num_thresholds` thresholds)."""
    if summation_method not in ("trapezoidal", "minoring", "majoring"):
        raise NotImplementedError("tf.metrics.auc(summation_method=%r) is not implemented by "
                                  "tfcompat (use 'trapezoidal', 'minoring' or 'majoring')"
                                  % (summation_method,))
    if curve not in ("ROC", "PR"):
        raise ValueError("curve must be either ROC or PR, %s unknown" % curve)
    if thresholds is None:
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    else:
        inner = [float(t) for t in thresholds]
    all_thresholds = [0.0 - _EPSILON] + inner + [1.0 + _EPSILON]
    graph, variables, update = _counts("auc", ("tp", "fp", "tn", "fn"), labels, predictions,
                                       weights, all_thresholds)
    return _finish(graph, lambda: _auc_value(*variables, curve, summation_method), update,
                   metrics_collections, updates_collections)


@tf_export(v1=["metrics.mean_iou"])
def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """Mean intersection-over-union of class-id predictions over `num_classes` classes."""
    graph = _graph_only("mean_iou")
    with name_scope(None, "mean_iou"):
        total_cm = _local(graph, "total_confusion_matrix", (num_classes, num_classes),
                          dtypes.float64)
        update = keras_metrics._iou_update(total_cm, num_classes, labels, predictions, weights)
    return _finish(graph, lambda: keras_metrics._iou_result(total_cm, torch.float32), update,
                   metrics_collections, updates_collections)
