"""TF 1.x `tf.contrib.slim`: arg_scope, the contrib.layers functions, the model-variable
helpers of contrib.framework, and `slim.losses` (= `tf.contrib.losses`).

slim's names are the same objects as contrib.layers' / contrib.framework's (so an arg_scope
set on `slim.conv2d` applies to `tf.contrib.layers.conv2d`). The losses take TF 1.0's
argument order (predictions/logits first) and compute what `tf.losses` does with its default
reduction (weighted sum over the number of non-zero weights), adding the loss to LOSSES.
"""
from tfcompat._api import tf_export
from tfcompat.contrib import framework as contrib_framework
from tfcompat.contrib.layers import initializers as contrib_initializers
from tfcompat.contrib.layers import layers as contrib_layers
from tfcompat.contrib.layers import optimizers as contrib_optimizers
from tfcompat.contrib.layers import regularizers as contrib_regularizers
from tfcompat.contrib.layers import summaries as contrib_summaries
from tfcompat.losses import losses_impl

_FRAMEWORK_NAMES = (
    "arg_scope", "add_arg_scope", "current_arg_scope", "has_arg_scope", "arg_scoped_arguments",
    "variable", "model_variable", "local_variable", "global_variable", "add_model_variable",
    "get_variables", "get_model_variables", "get_local_variables", "get_trainable_variables",
    "get_variables_by_name", "get_variables_by_suffix", "get_unique_variable",
    "get_variables_to_restore", "get_variable_full_name", "assign_from_checkpoint_fn",
    "get_global_step", "create_global_step", "get_or_create_global_step",
    "assert_global_step")
_LAYER_NAMES = (
    "avg_pool2d", "batch_norm", "bias_add", "conv1d", "conv2d", "conv3d", "convolution",
    "convolution1d", "convolution2d", "convolution3d", "conv2d_transpose",
    "convolution2d_transpose", "dropout", "embed_sequence", "flatten", "fully_connected",
    "layer_norm", "linear", "max_pool2d", "one_hot_encoding", "relu", "relu6", "repeat",
    "stack")
_MODULES_AND_NAMES = (
    (contrib_framework, _FRAMEWORK_NAMES, False),
    (contrib_layers, _LAYER_NAMES, True),
    (contrib_initializers, ("xavier_initializer", "xavier_initializer_conv2d",
                            "variance_scaling_initializer"), True),
    (contrib_regularizers, ("l1_regularizer", "l2_regularizer", "l1_l2_regularizer",
                            "sum_regularizer", "apply_regularization"), True),
    (contrib_summaries, ("summarize_activation", "summarize_activations",
                         "summarize_collection", "summarize_tensor", "summarize_tensors",
                         "summarize_variables", "summarize_weights", "summarize_biases"), True),
    (contrib_optimizers, ("optimize_loss",), True),
)
for _module, _names, _also_in_slim_layers in _MODULES_AND_NAMES:
    for _name in _names:
        _paths = ["contrib.slim." + _name]
        if _also_in_slim_layers:
            _paths.append("contrib.slim.layers." + _name)
        tf_export(*_paths)(getattr(_module, _name))
del _module, _names, _also_in_slim_layers, _name, _paths


def _losses_export(name):
    return tf_export("contrib.losses." + name, "contrib.slim.losses." + name)


@_losses_export("absolute_difference")
def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    return losses_impl.absolute_difference(labels, predictions, weights, scope=scope)


@_losses_export("mean_squared_error")
def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    return losses_impl.mean_squared_error(labels, predictions, weights, scope=scope)


@_losses_export("log_loss")
def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    return losses_impl.log_loss(labels, predictions, weights, epsilon=epsilon, scope=scope)


@_losses_export("cosine_distance")
def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    return losses_impl.cosine_distance(labels, predictions, axis=axis, weights=weights,
                                       scope=scope, dim=dim)


@_losses_export("sigmoid_cross_entropy")
def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0,
                          scope=None):
    return losses_impl.sigmoid_cross_entropy(multi_class_labels, logits, weights,
                                             label_smoothing=label_smoothing, scope=scope)


@_losses_export("softmax_cross_entropy")
def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    return losses_impl.softmax_cross_entropy(onehot_labels, logits, weights,
                                             label_smoothing=label_smoothing, scope=scope)


@_losses_export("sparse_softmax_cross_entropy")
def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    return losses_impl.sparse_softmax_cross_entropy(labels, logits, weights, scope=scope)


@_losses_export("compute_weighted_loss")
def compute_weighted_loss(losses, weights=1.0, scope=None):
    return losses_impl.compute_weighted_loss(losses, weights, scope=scope)


_losses_export("add_loss")(losses_impl.add_loss)
_losses_export("get_losses")(losses_impl.get_losses)
_losses_export("get_regularization_losses")(losses_impl.get_regularization_losses)


@_losses_export("get_total_loss")
def get_total_loss(add_regularization_losses=True, name="total_loss"):
    """The sum of the LOSSES (and, by default, REGULARIZATION_LOSSES) collections."""
    return losses_impl.get_total_loss(add_regularization_losses, name=name)
