"""`tf.estimator.ModeKeys` and `tf.estimator.EstimatorSpec` (tensorflow_estimator's
`model_fn.py`), with TF's validation of what a `model_fn` returns.

Where we differ: `export_outputs` are checked when the model is exported
(`Estimator.export_saved_model`), where TF checks them here in PREDICT mode, and
Keras `Metric` objects in `eval_metric_ops` are not accepted: pass `(value, update_op)` pairs
such as `tf.metrics.*` return.
"""
import collections

from tfcompat._api import tf_export
from tfcompat.framework import context
from tfcompat.framework.graph import Operation, get_default_graph
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import array_ops
from tfcompat.train.monitored_session import Scaffold
from tfcompat.train.session_run_hook import SessionRunHook
from tfcompat.variables import Variable

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"


@tf_export("estimator.ModeKeys")
class ModeKeys(object):
    """The mode a `model_fn` is called for."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


_GRAPH_ERROR = ("{0} with {1} must be from the default graph. Possible causes of this error "
                "include: \n\n1) {0} was created outside the context of the default graph."
                "\n\n2) The object passed through to EstimatorSpec was not created in the most "
                "recent call to \"model_fn\".")


def _in_default_graph(value, what, name):
    if context.executing_eagerly():
        return
    if value.graph is not get_default_graph():
        raise ValueError(_GRAPH_ERROR.format(what, name))


def _check_is_tensor(value, what):
    if not isinstance(value, Tensor):
        raise TypeError("{} must be Tensor, given: {}".format(what, value))
    return value


def _validate_train_op(train_op, mode):
    if train_op is None:
        if mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        return None
    if isinstance(train_op, Variable):
        train_op = train_op.op
    if not isinstance(train_op, (Operation, Tensor)):
        raise TypeError("train_op must be Operation or Tensor, given: {}".format(train_op))
    _in_default_graph(train_op, "train_op", train_op.name)
    return train_op


def _validate_loss(loss, mode):
    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        return None
    loss = _check_is_tensor(loss, "loss")
    shape = loss.get_shape()
    if shape.num_elements() not in (None, 1):
        raise ValueError("Loss must be scalar, given: {}".format(loss))
    if shape.rank != 0:
        loss = array_ops.reshape(loss, [])
    _in_default_graph(loss, "loss", loss.name)
    return loss


def _validate_predictions(predictions, mode):
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        return {}
    if isinstance(predictions, dict):
        predictions = {k: _check_is_tensor(v, "predictions[{}]".format(k))
                       for k, v in predictions.items()}
        for key, value in predictions.items():
            _in_default_graph(value, "prediction values", "{0}: {1}".format(key, value.name))
        return predictions
    predictions = _check_is_tensor(predictions, "predictions")
    _in_default_graph(predictions, "prediction values", predictions.name)
    return predictions


def _validate_hooks(hooks):
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError("All hooks must be SessionRunHook instances, given: {}"
                            .format(hook))
    return hooks


def _validate_eval_metric_ops(eval_metric_ops):
    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError("eval_metric_ops must be a dict, given: {}".format(eval_metric_ops))
    for key, value in eval_metric_ops.items():
        if hasattr(value, "update_state") and hasattr(value, "result"):
            raise NotImplementedError(
                "eval_metric_ops[%r] is a Keras Metric object, which tfcompat's Estimator does "
                "not take; pass a (metric_value, update_op) pair such as tf.metrics.* return"
                % key)
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError("Values of eval_metric_ops must be (metric_value, update_op) "
                            "tuples, given: {} for key: {}".format(value, key))
        for element in value:
            _in_default_graph(element, "eval_metric_ops", "{0}: {1}".format(key, element.name))
    return dict(eval_metric_ops)


def _validate_export_outputs(export_outputs):
    if export_outputs is not None and not isinstance(export_outputs, dict):
        raise TypeError("export_outputs must be dict, given: {}".format(export_outputs))
    return export_outputs


def _validate_scaffold(scaffold):
    scaffold = scaffold or Scaffold()
    if not isinstance(scaffold, Scaffold):
        raise TypeError("scaffold must be tf.train.Scaffold. Given: {}".format(scaffold))
    return scaffold


_FIELDS = ["mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
           "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks",
           "prediction_hooks"]


@tf_export("estimator.EstimatorSpec")
class EstimatorSpec(collections.namedtuple("EstimatorSpec", _FIELDS)):
    """What a `model_fn` returns: for TRAIN `loss` and `train_op`, for EVAL `loss` (and
    `eval_metric_ops`), for PREDICT `predictions`, all from the default graph."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None):
        return super(EstimatorSpec, cls).__new__(
            cls, mode=mode,
            predictions=_validate_predictions(predictions, mode),
            loss=_validate_loss(loss, mode),
            train_op=_validate_train_op(train_op, mode),
            eval_metric_ops=_validate_eval_metric_ops(eval_metric_ops),
            export_outputs=_validate_export_outputs(export_outputs),
            training_chief_hooks=_validate_hooks(training_chief_hooks),
            training_hooks=_validate_hooks(training_hooks),
            scaffold=_validate_scaffold(scaffold),
            evaluation_hooks=_validate_hooks(evaluation_hooks),
            prediction_hooks=_validate_hooks(prediction_hooks))

    def _replace(self, **kwds):
        """A copy with some fields changed (validated again); the mode cannot change."""
        if "mode" in kwds and self.mode != kwds["mode"]:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        new_fields = dict(self._asdict(), **kwds)
        return EstimatorSpec(**new_fields)
