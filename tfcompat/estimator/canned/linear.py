"""`tf.estimator.LinearClassifier` / `LinearRegressor` (TF 1.15's `canned/linear.py`, v1).

Logits are `linear_model` of the feature columns ("linear/linear_model/<column>/weights",
"linear/linear_model/bias_weights"), with TF's 'bias' and 'fraction_of_zero_weights'
summaries. The optimizer defaults to Ftrl with learning rate min(0.2, 1/sqrt(number of
columns)); the loss is summed over the batch (TF1's default). As in TF, the "linear" scope
partitions variables with `partitioner`, by default
min_max_variable_partitioner(max_partitions=config.num_ps_replicas, 64 MB slices): without
parameter servers each variable is one part (".../weights/part_0"), saved under its full name.
"""
import math

from tfcompat._api import tf_export
from tfcompat.estimator.canned import head as head_lib
from tfcompat.estimator.canned.optimizers import get_optimizer_instance
from tfcompat.estimator.estimator import Estimator
from tfcompat.feature_column.feature_column import linear_model
from tfcompat.ops import array_ops, nn_ops
from tfcompat.losses.losses_impl import Reduction
from tfcompat.ops.partitioned_variables import min_max_variable_partitioner
from tfcompat.summary import summary as summary_lib
from tfcompat.variable_scope import variable_scope

_LEARNING_RATE = 0.2


def _default_optimizer(feature_columns):
    return get_optimizer_instance(
        "Ftrl", learning_rate=min(_LEARNING_RATE, 1.0 / math.sqrt(len(feature_columns))))


def _linear_model_fn(features, labels, mode, head, feature_columns, optimizer,
                     sparse_combiner, partitioner, config):
    if not isinstance(features, dict):
        raise ValueError("features should be a dictionary of `Tensor`s. Given type: {}"
                         .format(type(features)))
    optimizer = _default_optimizer(feature_columns) if optimizer == "Ftrl" \
        else get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    partitioner = partitioner or min_max_variable_partitioner(
        max_partitions=config.num_ps_replicas if config else 0, min_slice_size=64 << 20)
    with variable_scope("linear", partitioner=partitioner):
        cols_to_vars = {}
        logits = linear_model(features, feature_columns, units=head.logits_dimension,
                              sparse_combiner=sparse_combiner, cols_to_vars=cols_to_vars)
        bias = cols_to_vars.pop("bias")[0]
        if head.logits_dimension == 1:
            summary_lib.scalar("bias", bias[0])
        else:
            summary_lib.histogram("bias", bias)
        weights = [array_ops.reshape(v, [-1]) for vs in cols_to_vars.values() for v in vs]
        summary_lib.scalar("fraction_of_zero_weights",
                           nn_ops.zero_fraction(array_ops.concat(weights, 0)))
    return head.create_estimator_spec(features, mode, logits, labels, optimizer)


def _check_unsupported(warm_start_from):
    if warm_start_from is not None:
        raise NotImplementedError("warm_start_from is not implemented by tfcompat")


@tf_export("estimator.LinearClassifier")
class LinearClassifier(Estimator):
    """A linear classifier over feature columns (see the module docstring)."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        _check_unsupported(warm_start_from)
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary,
                                            loss_reduction)
        feature_columns = tuple(feature_columns or [])

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn(features, labels, mode, head, feature_columns, optimizer,
                                    sparse_combiner, partitioner, config)
        super(LinearClassifier, self).__init__(model_fn=_model_fn, model_dir=model_dir,
                                               config=config)


@tf_export("estimator.LinearRegressor")
class LinearRegressor(Estimator):
    """A linear regressor over feature columns (see the module docstring)."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        _check_unsupported(warm_start_from)
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        feature_columns = tuple(feature_columns or [])

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn(features, labels, mode, head, feature_columns, optimizer,
                                    sparse_combiner, partitioner, config)
        super(LinearRegressor, self).__init__(model_fn=_model_fn, model_dir=model_dir,
                                              config=config)
