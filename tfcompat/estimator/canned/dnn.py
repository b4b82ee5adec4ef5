"""`tf.estimator.DNNClassifier` / `DNNRegressor` (TF 1.15's `canned/dnn.py`, v1).

Feature columns feed `input_layer`, then `hidden_units` dense layers (Glorot-uniform kernels,
`activation_fn`, dropout while training), then a logits layer; variables are named as TF
names them ("dnn/hiddenlayer_0/kernel", "dnn/logits/bias", ...), with TF's activation
summaries. As in TF, the "dnn" scope partitions variables with
min_max_variable_partitioner(max_partitions=config.num_ps_replicas) and the input layer with
`input_layer_partitioner` (by default the same with 64 MB slices): without parameter servers
every variable is one part ("dnn/hiddenlayer_0/kernel/part_0"), saved under its full name.
The optimizer defaults to Adagrad with learning rate 0.05; the loss is summed over the batch
(TF1's `loss_reduction` default). `batch_norm=True` raises NotImplementedError.
"""
from tfcompat._api import tf_export
from tfcompat.estimator.canned import head as head_lib
from tfcompat.estimator.canned.optimizers import get_optimizer_instance
from tfcompat.estimator.estimator import Estimator
from tfcompat.estimator.model_fn import ModeKeys
from tfcompat.feature_column.feature_column import input_layer
from tfcompat.layers import core as core_layers
from tfcompat.ops import nn_ops
from tfcompat.ops.init_ops import GlorotUniform
from tfcompat.losses.losses_impl import Reduction
from tfcompat.ops.partitioned_variables import min_max_variable_partitioner
from tfcompat.summary import summary as summary_lib
from tfcompat.variable_scope import variable_scope

_LEARNING_RATE = 0.05


def _add_hidden_layer_summary(value, tag):
    summary_lib.scalar("%s/fraction_of_zero_values" % tag, nn_ops.zero_fraction(value))
    summary_lib.histogram("%s/activation" % tag, value)


def _dnn_logits(features, mode, units, hidden_units, feature_columns, activation_fn,
                dropout, input_layer_partitioner):
    with variable_scope("input_from_feature_columns", partitioner=input_layer_partitioner):
        net = input_layer(features, feature_columns)
    for layer_id, num_hidden_units in enumerate(hidden_units):
        name = "hiddenlayer_%d" % layer_id
        net = core_layers.dense(net, units=num_hidden_units, activation=activation_fn,
                                kernel_initializer=GlorotUniform(), name=name)
        if dropout is not None and mode == ModeKeys.TRAIN:
            net = core_layers.dropout(net, rate=dropout, training=True)
        _add_hidden_layer_summary(net, "dnn/" + name)
    logits = core_layers.dense(net, units=units, activation=None,
                               kernel_initializer=GlorotUniform(), name="logits")
    _add_hidden_layer_summary(logits, "dnn/logits")
    return logits


def _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns, optimizer,
                  activation_fn, dropout, input_layer_partitioner, config):
    if not isinstance(features, dict):
        raise ValueError("features should be a dictionary of `Tensor`s. Given type: {}"
                         .format(type(features)))
    optimizer = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    num_ps_replicas = config.num_ps_replicas if config else 0
    with variable_scope("dnn", partitioner=min_max_variable_partitioner(
            max_partitions=num_ps_replicas)):
        logits = _dnn_logits(
            features, mode, head.logits_dimension, hidden_units, feature_columns,
            activation_fn, dropout,
            input_layer_partitioner or min_max_variable_partitioner(
                max_partitions=num_ps_replicas, min_slice_size=64 << 20))
    return head.create_estimator_spec(features, mode, logits, labels, optimizer)


def _check_unsupported(batch_norm, warm_start_from):
    if batch_norm:
        raise NotImplementedError("batch_norm=True is not implemented by tfcompat's DNN "
                                  "estimators")
    if warm_start_from is not None:
        raise NotImplementedError("warm_start_from is not implemented by tfcompat")


@tf_export("estimator.DNNClassifier")
class DNNClassifier(Estimator):
    """A feed-forward classifier over feature columns (see the module docstring)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=nn_ops.relu, dropout=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None, loss_reduction=Reduction.SUM,
                 batch_norm=False):
        _check_unsupported(batch_norm, warm_start_from)
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary,
                                            loss_reduction)
        feature_columns = tuple(feature_columns or [])

        def _model_fn(features, labels, mode, config):
            return _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns,
                                 optimizer, activation_fn, dropout, input_layer_partitioner,
                                 config)
        super(DNNClassifier, self).__init__(model_fn=_model_fn, model_dir=model_dir,
                                            config=config)


@tf_export("estimator.DNNRegressor")
class DNNRegressor(Estimator):
    """A feed-forward regressor over feature columns (see the module docstring)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=nn_ops.relu,
                 dropout=None, input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, batch_norm=False):
        _check_unsupported(batch_norm, warm_start_from)
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        feature_columns = tuple(feature_columns or [])

        def _model_fn(features, labels, mode, config):
            return _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns,
                                 optimizer, activation_fn, dropout, input_layer_partitioner,
                                 config)
        super(DNNRegressor, self).__init__(model_fn=_model_fn, model_dir=model_dir,
                                           config=config)
