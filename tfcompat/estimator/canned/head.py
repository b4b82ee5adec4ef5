"""The heads of TF 1.15's canned estimators (`canned/head.py`, v1): from logits to the
EstimatorSpec of each mode, with TF's losses, prediction keys and evaluation metrics.

- classification with n_classes > 2: softmax cross entropy; predictions 'logits',
  'probabilities', 'class_ids', 'classes', 'all_class_ids', 'all_classes'; metrics
  'accuracy', 'average_loss';
- binary classification: one logit, sigmoid cross entropy; predictions add 'logistic';
  metrics add 'precision', 'recall', 'auc', 'auc_precision_recall', 'label/mean',
  'prediction/mean', 'accuracy_baseline';
- regression: mean squared error; prediction 'predictions'; metrics 'average_loss',
  'label/mean', 'prediction/mean'.

The training loss is the per-example loss reduced by `loss_reduction` (TF1's default: SUM
over the batch); 'average_loss' is its weighted mean; the Estimator adds 'loss' (the mean of
the training loss over evaluation batches). Summaries 'loss' and 'average_loss' are written
while training.
"""
import numpy as np

from tfcompat.estimator.model_fn import EstimatorSpec, ModeKeys
from tfcompat.framework import dtypes, errors, ops
from tfcompat.framework.graph import get_default_graph
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.losses import losses_impl
from tfcompat.metrics import metrics_impl
from tfcompat.ops import array_ops, math_ops, nn_ops
from tfcompat.summary import summary as summary_lib
from tfcompat.train import training_util

_Reduction = losses_impl.Reduction
UPDATE_OPS = "update_ops"


def _labels_as_column(labels, width):
    """Labels as [batch, width] (rank-1 labels are expanded), as the head checks them."""
    if labels is None:
        raise ValueError("You must provide a labels Tensor. Given: None. Suggested "
                         "troubleshooting steps: Check that your data contain your label "
                         "feature. Check that your input_fn properly parses and returns labels.")
    if isinstance(labels, dict):
        raise ValueError("labels must be a Tensor for a single-head estimator, got a dict with "
                         "keys %s" % sorted(labels))
    labels = ops.convert_to_tensor(labels)
    if labels.shape.rank == 1 and labels.dtype != dtypes.string:  # strings: after lookup
        labels = array_ops.expand_dims(labels, -1)
    if labels.shape.rank is not None and labels.shape.rank >= 2:
        received = labels.shape.as_list()[-1]
        if received is not None and received != width:
            raise ValueError("Mismatched label shape. Expected labels dimension=%s.  Received "
                             "%s." % (width, received))
    return labels


def _weights(features, weight_column):
    if weight_column is None:
        return ops.convert_to_tensor(1.0)
    key = weight_column if isinstance(weight_column, str) else weight_column.key
    if key not in features:
        raise ValueError("Weight column %s not found in features: %s" % (key, sorted(features)))
    weights = math_ops.cast(ops.convert_to_tensor(features[key]), dtypes.float32)
    return array_ops.expand_dims(weights, -1) if weights.shape.rank == 1 else weights


def _class_strings(class_ids, label_vocabulary):
    """The class names of int ids: the vocabulary entries, or the ids in decimal."""
    def names(ids):
        array = ids.detach().cpu().numpy()
        out = np.empty(array.shape, dtype=object)
        for index, value in np.ndenumerate(array):
            out[index] = label_vocabulary[value].encode("utf-8") if label_vocabulary \
                else str(value).encode("utf-8")
        return out

    graph = get_default_graph()
    tensor = graph.record_custom(names, "AsString", [class_ids], np.empty((), dtype=object))
    tensor._static = TensorShape(class_ids.shape)
    return tensor


def _label_ids(labels, label_vocabulary, n_classes):
    """Integer class ids of the labels: looked up in `label_vocabulary` when given."""
    if label_vocabulary is None:
        if not labels.dtype.is_integer:
            raise ValueError("Labels dtype should be integer. Instead got %s." % labels.dtype)
        return math_ops.cast(labels, dtypes.int64)
    if labels.dtype != dtypes.string:
        raise ValueError("Labels dtype should be string if there is a vocabulary. Got %s"
                         % labels.dtype)
    table = {v.encode("utf-8") if isinstance(v, str) else v: i
             for i, v in enumerate(label_vocabulary)}

    def lookup(values):
        import torch
        out = np.empty(values.shape, dtype=np.int64)
        for index, value in np.ndenumerate(values):
            if value not in table:
                raise errors.InvalidArgumentError(
                    "Label %r is not in label_vocabulary %s" % (value, label_vocabulary))
            out[index] = table[value]
        return torch.from_numpy(out)

    graph = get_default_graph()
    ids = graph.record_custom(lookup, "LookupTableFindV2", [labels],
                              graph._fake_for_shape(labels.shape, dtypes.int64))
    return array_ops.expand_dims(ids, -1) if ids.shape.rank == 1 else ids


def _train_op(optimizer, loss):
    graph = get_default_graph()
    with graph.control_dependencies(graph.get_collection(UPDATE_OPS)):
        return optimizer.minimize(loss, global_step=training_util.get_global_step())


class _Head(object):
    """What the three heads share: the loss, the summaries and the spec of each mode."""

    def __init__(self, weight_column, loss_reduction):
        if loss_reduction not in (_Reduction.SUM, _Reduction.SUM_OVER_BATCH_SIZE,
                                  _Reduction.MEAN, _Reduction.SUM_BY_NONZERO_WEIGHTS,
                                  _Reduction.SUM_OVER_NONZERO_WEIGHTS):
            raise ValueError("Invalid loss_reduction: %s" % (loss_reduction,))
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None):
        predictions = self._predictions(logits)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode=mode, predictions=predictions)
        labels = _labels_as_column(labels, self._label_width())
        weights = _weights(features, self._weight_column)
        unreduced_loss, label_values = self._unreduced_loss(labels, logits)
        training_loss = losses_impl.compute_weighted_loss(
            unreduced_loss, weights=weights, reduction=self._loss_reduction)
        if mode == ModeKeys.EVAL:
            return EstimatorSpec(mode=mode, predictions=predictions, loss=training_loss,
                                 eval_metric_ops=self._metrics(label_values, predictions,
                                                               unreduced_loss, weights))
        if optimizer is None:
            raise ValueError("train_op_fn and optimizer cannot both be None.")
        with ops.name_scope(""):
            summary_lib.scalar("loss", training_loss)
            example_weight_sum = math_ops.reduce_sum(
                weights * array_ops.ones_like(unreduced_loss))
            summary_lib.scalar("average_loss", training_loss / example_weight_sum)
        return EstimatorSpec(mode=mode, predictions=predictions, loss=training_loss,
                             train_op=_train_op(optimizer, training_loss))


class MultiClassHead(_Head):
    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=_Reduction.SUM):
        super(MultiClassHead, self).__init__(weight_column, loss_reduction)
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary

    logits_dimension = property(lambda self: self._n_classes)

    def _label_width(self):
        return 1

    def _predictions(self, logits):
        class_ids = array_ops.expand_dims(math_ops.argmax(logits, axis=-1), -1)
        all_class_ids = array_ops.reshape(array_ops.range(self._n_classes), [1, -1]) + \
            array_ops.zeros_like(math_ops.cast(class_ids, dtypes.int32))
        return {"logits": logits, "probabilities": nn_ops.softmax(logits),
                "class_ids": class_ids,
                "classes": _class_strings(class_ids, self._label_vocabulary),
                "all_class_ids": all_class_ids,
                "all_classes": _class_strings(all_class_ids, self._label_vocabulary)}

    def _unreduced_loss(self, labels, logits):
        ids = _label_ids(labels, self._label_vocabulary, self._n_classes)
        loss = losses_impl.sparse_softmax_cross_entropy(
            labels=ids, logits=logits, reduction=_Reduction.NONE)
        return array_ops.reshape(loss, [-1, 1]), ids

    def _metrics(self, label_ids, predictions, unreduced_loss, weights):
        return {"accuracy": metrics_impl.accuracy(label_ids, predictions["class_ids"],
                                                  weights=weights, name="accuracy"),
                "average_loss": metrics_impl.mean(unreduced_loss, weights=weights,
                                                  name="average_loss")}


class BinaryClassHead(MultiClassHead):
    def __init__(self, weight_column=None, label_vocabulary=None,
                 loss_reduction=_Reduction.SUM):
        super(BinaryClassHead, self).__init__(2, weight_column, label_vocabulary,
                                              loss_reduction)

    logits_dimension = property(lambda self: 1)

    def _predictions(self, logits):
        two_class_logits = array_ops.concat([array_ops.zeros_like(logits), logits], -1)
        predictions = super(BinaryClassHead, self)._predictions(two_class_logits)
        predictions["logits"] = logits
        predictions["logistic"] = math_ops.sigmoid(logits)
        return predictions

    def _unreduced_loss(self, labels, logits):
        ids = _label_ids(labels, self._label_vocabulary, 2) \
            if self._label_vocabulary is not None or labels.dtype.is_integer else labels
        values = math_ops.cast(ids, dtypes.float32)
        loss = losses_impl.sigmoid_cross_entropy(values, logits, reduction=_Reduction.NONE)
        return loss, values

    def _metrics(self, labels, predictions, unreduced_loss, weights):
        logistic = predictions["logistic"]
        class_ids = math_ops.cast(predictions["class_ids"], dtypes.float32)
        label_mean = metrics_impl.mean(labels, weights=weights, name="label/mean")
        return {
            "accuracy": metrics_impl.accuracy(labels, class_ids, weights=weights,
                                              name="accuracy"),
            "precision": metrics_impl.precision(labels, class_ids, weights=weights,
                                                name="precision"),
            "recall": metrics_impl.recall(labels, class_ids, weights=weights, name="recall"),
            "prediction/mean": metrics_impl.mean(logistic, weights=weights,
                                                 name="prediction/mean"),
            "label/mean": label_mean,
            "accuracy_baseline": (math_ops.maximum(label_mean[0], 1.0 - label_mean[0]),
                                  math_ops.maximum(label_mean[1], 1.0 - label_mean[1])),
            "average_loss": metrics_impl.mean(unreduced_loss, weights=weights,
                                              name="average_loss"),
            "auc": metrics_impl.auc(labels, logistic, weights=weights, name="auc"),
            "auc_precision_recall": metrics_impl.auc(labels, logistic, weights=weights,
                                                     curve="PR", name="auc_precision_recall"),
        }


class RegressionHead(_Head):
    def __init__(self, label_dimension=1, weight_column=None, loss_reduction=_Reduction.SUM):
        super(RegressionHead, self).__init__(weight_column, loss_reduction)
        if label_dimension < 1:
            raise ValueError("Invalid label_dimension %s." % label_dimension)
        self._label_dimension = label_dimension

    logits_dimension = property(lambda self: self._label_dimension)

    def _label_width(self):
        return self._label_dimension

    def _predictions(self, logits):
        return {"predictions": logits}

    def _unreduced_loss(self, labels, logits):
        values = math_ops.cast(labels, dtypes.float32)
        return losses_impl.mean_squared_error(values, logits, reduction=_Reduction.NONE), values

    def _metrics(self, labels, predictions, unreduced_loss, weights):
        return {"average_loss": metrics_impl.mean(unreduced_loss, weights=weights,
                                                  name="average_loss"),
                "label/mean": metrics_impl.mean(labels, weights=weights, name="label/mean"),
                "prediction/mean": metrics_impl.mean(predictions["predictions"],
                                                     weights=weights, name="prediction/mean")}


def classification_head(n_classes, weight_column=None, label_vocabulary=None,
                        loss_reduction=_Reduction.SUM):
    """The head a canned classifier uses for `n_classes`."""
    if n_classes is None or n_classes < 2:
        raise ValueError("n_classes must be > 1 for classification: %s" % (n_classes,))
    if label_vocabulary is not None:
        if not isinstance(label_vocabulary, (list, tuple)):
            raise ValueError("label_vocabulary should be a list or a tuple. Given type: {}"
                             .format(type(label_vocabulary)))
        if len(label_vocabulary) != n_classes:
            raise ValueError("Length of label_vocabulary must be n_classes ({}). Given: {}"
                             .format(n_classes, len(label_vocabulary)))
        label_vocabulary = [v.decode("utf-8") if isinstance(v, bytes) else v
                            for v in label_vocabulary]
    if n_classes == 2:
        return BinaryClassHead(weight_column, label_vocabulary, loss_reduction)
    return MultiClassHead(n_classes, weight_column, label_vocabulary, loss_reduction)

