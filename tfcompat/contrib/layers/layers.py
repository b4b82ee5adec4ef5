"""`tf.contrib.layers` (and slim) layer functions, as in TF 1.15.

fully_connected and the convolutions run TF1's `tf.layers` classes inside a variable scope
("fully_connected", "Conv", ...) whose custom getter renames kernel/bias to weights/biases
and makes them model variables, so the variables are "fully_connected/weights:0",
"Conv/biases:0", ... in GLOBAL_VARIABLES, MODEL_VARIABLES and TRAINABLE_VARIABLES. Every
function takes defaults from `arg_scope`. Outputs go to `outputs_collections` in graphs (TF
also tags them with an `aliases` attribute, which tfcompat tensors cannot carry).

batch_norm follows TF's decision rules: statistics of the batch while training (the moving
variance is updated with the Bessel-corrected batch variance for rank 2 and 4 inputs, as
TF's fused kernel does), moving statistics otherwise; `is_training` may be a boolean tensor;
updates go to `updates_collections` or, with None, run with the output.
"""
import functools
import inspect

from tfcompat._api import tf_export
from tfcompat.contrib.framework import add_arg_scope, model_variable
from tfcompat.contrib.layers.initializers import xavier_initializer
from tfcompat.framework import context, graph, ops
from tfcompat.framework.dtypes import float16, bfloat16, float32, int32
from tfcompat.framework.graph import GraphKeys, control_dependencies
from tfcompat.keras import backend
from tfcompat.keras.layers.normalization import _batch_norm_infer, _batch_norm_train
from tfcompat.layers import convolutional as conv_layers
from tfcompat.layers import core as core_layers
from tfcompat.layers import pooling as pooling_layers
from tfcompat.ops import array_ops, init_ops, math_ops, nn_ops
from tfcompat.variable_scope import variable_scope

DATA_FORMAT_NCHW = "NCHW"
DATA_FORMAT_NHWC = "NHWC"
_WEIGHT_NAMES = {"bias": "biases", "kernel": "weights"}

# ---------------------------------------------------------------- helpers


def _variable_collections(variables_collections, name):
    """`variables_collections` may be a list for every variable or {variable name: list}."""
    if isinstance(variables_collections, dict):
        return variables_collections.get(name)
    return variables_collections


def _add_variable_to_collections(variable, variables_collections, name):
    if not context.state.building_graph:
        return
    for collection in _variable_collections(variables_collections, name) or []:
        if all(v is not variable for v in graph.get_collection(collection)):
            graph.add_to_collection(collection, variable)


def _apply_weight_layer(layer, inputs, variables_collections):
    """Runs a tf.layers layer, filing its kernel and bias under `variables_collections`."""
    outputs = layer.apply(inputs)
    _add_variable_to_collections(layer.kernel, variables_collections, "weights")
    if layer.bias is not None:
        _add_variable_to_collections(layer.bias, variables_collections, "biases")
    return outputs


def _collect_named_outputs(collections, outputs):
    if collections and context.state.building_graph:
        graph.add_to_collections(collections, outputs)
    return outputs


def _model_variable_getter(getter, name, shape=None, dtype=None, initializer=None,
                           regularizer=None, trainable=True, collections=None,
                           caching_device=None, partitioner=None, rename=None,
                           use_resource=None, synchronization=None, aggregation=None, **_):
    """Custom getter: the variable becomes a model variable, its last name part renamed."""
    parts = name.split("/")
    if rename and parts[-1] in rename:
        name = "/".join(parts[:-1] + [rename[parts[-1]]])
    extra = {k: v for k, v in (("synchronization", synchronization),
                               ("aggregation", aggregation)) if v is not None}
    return model_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                          regularizer=regularizer, collections=collections,
                          trainable=trainable, caching_device=caching_device,
                          partitioner=partitioner, custom_getter=getter,
                          use_resource=use_resource, **extra)


def _renaming_getter(rename):
    return functools.partial(_model_variable_getter, rename=rename)


def _rank(inputs):
    rank = inputs.shape.ndims
    if rank is None:
        raise ValueError("Inputs %s has undefined rank." % inputs.name)
    return rank


def _channels_format(data_format):
    return "channels_first" if data_format and data_format.startswith("NC") \
        else "channels_last"


def _check_nchw_nhwc(data_format):
    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")


def _finish(outputs, normalizer_fn, normalizer_params, activation_fn, collections):
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    return _collect_named_outputs(collections, outputs)


# ---------------------------------------------------------------- dense and convolutions


@tf_export("contrib.layers.fully_connected")
@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=nn_ops.relu, normalizer_fn=None,
                    normalizer_params=None, weights_initializer=xavier_initializer(),
                    weights_regularizer=None, biases_initializer=init_ops.Zeros(),
                    biases_regularizer=None, reuse=None, variables_collections=None,
                    outputs_collections=None, trainable=True, scope=None):
    """activation_fn(inputs @ weights + biases); no biases when normalizer_fn is given or
    biases_initializer is None. Inputs of rank > 2 are multiplied on their last axis."""
    if not isinstance(num_outputs, int) or isinstance(num_outputs, bool):
        raise ValueError("num_outputs type should be one of [<class 'int'>], got %s."
                         % type(num_outputs))
    with variable_scope(scope, "fully_connected", [inputs], reuse=reuse,
                        custom_getter=_renaming_getter(_WEIGHT_NAMES)) as sc:
        inputs = ops.convert_to_tensor(inputs)
        layer = core_layers.Dense(
            units=num_outputs, activation=None,
            use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        outputs = _apply_weight_layer(layer, inputs, variables_collections)
        return _finish(outputs, normalizer_fn, normalizer_params, activation_fn,
                       outputs_collections)


_CONV_CLASSES = {3: conv_layers.Conv1D, 4: conv_layers.Conv2D, 5: conv_layers.Conv3D}


@tf_export("contrib.layers.convolution")
@add_arg_scope
def convolution(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                rate=1, activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                weights_initializer=xavier_initializer(), weights_regularizer=None,
                biases_initializer=init_ops.Zeros(), biases_regularizer=None, reuse=None,
                variables_collections=None, outputs_collections=None, trainable=True,
                scope=None, conv_dims=None):
    """An N-d convolution (N from the input rank: 1, 2 or 3) with weights "Conv/weights"
    [k..., in, num_outputs] and biases "Conv/biases"; `rate` is the dilation."""
    if data_format not in (None, "NWC", "NCW", "NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError("Invalid data_format: %r" % (data_format,))
    with variable_scope(scope, "Conv", [inputs], reuse=reuse,
                        custom_getter=_renaming_getter(_WEIGHT_NAMES)) as sc:
        inputs = ops.convert_to_tensor(inputs)
        rank = _rank(inputs)
        if conv_dims is not None and conv_dims + 2 != rank:
            raise ValueError("Convolution expects input with rank %d, got %d"
                             % (conv_dims + 2, rank))
        if rank not in _CONV_CLASSES:
            raise ValueError("Convolution not supported for input with rank %d" % rank)
        layer = _CONV_CLASSES[rank](
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format=_channels_format(data_format), dilation_rate=rate, activation=None,
            use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        outputs = _apply_weight_layer(layer, inputs, variables_collections)
        return _finish(outputs, normalizer_fn, normalizer_params, activation_fn,
                       outputs_collections)


def _fixed_rank_convolution(conv_dims, name):
    """`convolution` with conv_dims fixed (TF's convolution1d/2d/3d): same arguments."""
    def conv(inputs, num_outputs, kernel_size, *args, **kwargs):
        return convolution(inputs, num_outputs, kernel_size, *args, conv_dims=conv_dims,
                           **kwargs)
    signature = inspect.signature(convolution)
    conv.__signature__ = signature.replace(parameters=[
        p for p in signature.parameters.values() if p.name != "conv_dims"])
    conv.__name__ = conv.__qualname__ = name
    conv.__doc__ = "`convolution` for inputs of rank %d." % (conv_dims + 2)
    return add_arg_scope(conv)


convolution1d = tf_export("contrib.layers.convolution1d", "contrib.layers.conv1d")(
    _fixed_rank_convolution(1, "convolution1d"))
convolution2d = tf_export("contrib.layers.convolution2d", "contrib.layers.conv2d")(
    _fixed_rank_convolution(2, "convolution2d"))
convolution3d = tf_export("contrib.layers.convolution3d", "contrib.layers.conv3d")(
    _fixed_rank_convolution(3, "convolution3d"))
conv1d, conv2d, conv3d = convolution1d, convolution2d, convolution3d


@tf_export("contrib.layers.convolution2d_transpose", "contrib.layers.conv2d_transpose")
@add_arg_scope
def convolution2d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                            data_format=DATA_FORMAT_NHWC, activation_fn=nn_ops.relu,
                            normalizer_fn=None, normalizer_params=None,
                            weights_initializer=xavier_initializer(), weights_regularizer=None,
                            biases_initializer=init_ops.Zeros(), biases_regularizer=None,
                            reuse=None, variables_collections=None, outputs_collections=None,
                            trainable=True, scope=None):
    """Transposed 2-D convolution; weights "Conv2d_transpose/weights" [kh, kw, out, in]."""
    _check_nchw_nhwc(data_format)
    with variable_scope(scope, "Conv2d_transpose", [inputs], reuse=reuse,
                        custom_getter=_renaming_getter(_WEIGHT_NAMES)) as sc:
        inputs = ops.convert_to_tensor(inputs)
        layer = conv_layers.Conv2DTranspose(
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format=_channels_format(data_format), activation=None,
            use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        outputs = _apply_weight_layer(layer, inputs, variables_collections)
        return _finish(outputs, normalizer_fn, normalizer_params, activation_fn,
                       outputs_collections)


conv2d_transpose = convolution2d_transpose


@tf_export("contrib.layers.bias_add")
@add_arg_scope
def bias_add(inputs, activation_fn=None, initializer=init_ops.Zeros(), regularizer=None,
             reuse=None, variables_collections=None, outputs_collections=None, trainable=True,
             data_format=DATA_FORMAT_NHWC, scope=None):
    """inputs + "BiasAdd/biases" (one per channel), then activation_fn."""
    _check_nchw_nhwc(data_format)
    with variable_scope(scope, "BiasAdd", [inputs], reuse=reuse):
        inputs = ops.convert_to_tensor(inputs)
        rank = _rank(inputs)
        axis = 1 if data_format == DATA_FORMAT_NCHW and rank > 2 else -1
        channels = inputs.shape.as_list()[axis]
        if channels is None:
            raise ValueError("`C` dimension must be known but is None")
        biases = model_variable("biases", shape=[channels], dtype=inputs.dtype.base_dtype,
                                initializer=initializer, regularizer=regularizer,
                                collections=_variable_collections(variables_collections,
                                                                  "biases"),
                                trainable=trainable)
        outputs = nn_ops.bias_add(inputs, biases,
                                  data_format=data_format if rank == 4 else None)
        return _finish(outputs, None, None, activation_fn, outputs_collections)


# ---------------------------------------------------------------- pooling, reshaping


def _pool(layer_class, default_name, inputs, kernel_size, stride, padding, data_format,
          outputs_collections, scope):
    _check_nchw_nhwc(data_format)
    with ops.name_scope(scope, default_name, [inputs]):
        inputs = ops.convert_to_tensor(inputs)
        layer = layer_class(pool_size=kernel_size, strides=stride, padding=padding,
                            data_format=_channels_format(data_format))
        return _collect_named_outputs(outputs_collections, layer.apply(inputs))


@tf_export("contrib.layers.max_pool2d")
@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format=DATA_FORMAT_NHWC,
               outputs_collections=None, scope=None):
    """2-D max pooling (VALID padding and stride 2 by default)."""
    return _pool(pooling_layers.MaxPooling2D, "MaxPool2D", inputs, kernel_size, stride,
                 padding, data_format, outputs_collections, scope)


@tf_export("contrib.layers.avg_pool2d")
@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format=DATA_FORMAT_NHWC,
               outputs_collections=None, scope=None):
    """2-D average pooling (VALID padding and stride 2 by default)."""
    return _pool(pooling_layers.AveragePooling2D, "AvgPool2D", inputs, kernel_size, stride,
                 padding, data_format, outputs_collections, scope)


@tf_export("contrib.layers.flatten")
@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """[batch, d1, d2, ...] -> [batch, d1 * d2 * ...]."""
    with ops.name_scope(scope, "Flatten", [inputs]):
        inputs = ops.convert_to_tensor(inputs)
        if inputs.shape.ndims is not None and inputs.shape.ndims < 2:
            raise ValueError("Inputs must have a least 2 dimensions.")
        return _collect_named_outputs(outputs_collections, core_layers.flatten(inputs))


@tf_export("contrib.layers.dropout")
@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True,
            outputs_collections=None, scope=None, seed=None):
    """While `is_training` (default True; may be a boolean tensor): keep each element with
    probability keep_prob and scale it by 1 / keep_prob. Otherwise the identity."""
    with variable_scope(scope, "Dropout", [inputs]):
        inputs = ops.convert_to_tensor(inputs)
        outputs = backend.smart_cond(
            math_ops.cast(is_training, "bool") if ops.is_tensor(is_training) else is_training,
            lambda: nn_ops.dropout(inputs, keep_prob=keep_prob, noise_shape=noise_shape,
                                   seed=seed),
            lambda: array_ops.identity(inputs))
        return _collect_named_outputs(outputs_collections, outputs)


@tf_export("contrib.layers.one_hot_encoding")
@add_arg_scope
def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0,
                     outputs_collections=None, scope=None):
    """One-hot float rows for integer labels."""
    with ops.name_scope(scope, "OneHotEncoding", [labels, num_classes]):
        labels = ops.convert_to_tensor(labels)
        if labels.dtype == int32:
            labels = math_ops.to_int64(labels)
        outputs = array_ops.one_hot(labels, num_classes, on_value=on_value,
                                    off_value=off_value)
        return _collect_named_outputs(outputs_collections, outputs)


@tf_export("contrib.layers.embed_sequence")
def embed_sequence(ids, vocab_size=None, embed_dim=None, unique=False, initializer=None,
                   regularizer=None, trainable=True, scope=None, reuse=None):
    """Looks `ids` up in "EmbedSequence/embeddings" [vocab_size, embed_dim]."""
    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError("Must specify vocab size and embedding dimension when not reusing. "
                         "Got vocab_size=%s and embed_dim=%s" % (vocab_size, embed_dim))
    with variable_scope(scope, "EmbedSequence", [ids], reuse=reuse):
        shape = [vocab_size, embed_dim]
        if reuse and vocab_size is None or embed_dim is None:
            shape = None
        embeddings = model_variable("embeddings", shape=shape, initializer=initializer,
                                    regularizer=regularizer, trainable=trainable)
        return nn_ops.embedding_lookup(embeddings, ids)


# ---------------------------------------------------------------- normalization


@tf_export("contrib.layers.batch_norm")
@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001,
               activation_fn=None, param_initializers=None, param_regularizers=None,
               updates_collections=GraphKeys.UPDATE_OPS, is_training=True, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format=DATA_FORMAT_NHWC,
               zero_debias_moving_mean=False, scope=None, renorm=False, renorm_clipping=None,
               renorm_decay=0.99, adjustment=None):
    """Batch normalization over every axis but the channel one ("BatchNorm/beta", "gamma"
    when scale=True, "moving_mean", "moving_variance"); see the module doc for updates."""
    unsupported = [name for name, given in (
        ("batch_weights", batch_weights is not None),
        ("zero_debias_moving_mean", zero_debias_moving_mean), ("renorm", renorm),
        ("adjustment", adjustment is not None)) if given]
    if unsupported:
        raise NotImplementedError("tf.contrib.layers.batch_norm with %s is not implemented "
                                  "by tfcompat" % ", ".join(unsupported))
    _check_nchw_nhwc(data_format)
    with variable_scope(scope, "BatchNorm", [inputs], reuse=reuse):
        inputs = ops.convert_to_tensor(inputs)
        rank = _rank(inputs)
        axis = 1 if data_format == DATA_FORMAT_NCHW else rank - 1
        channels = inputs.shape.as_list()[axis]
        if channels is None:
            raise ValueError("Inputs %s has undefined channels dimension %s."
                             % (inputs.name, inputs.shape[axis:axis + 1]))
        dtype = inputs.dtype.base_dtype
        if dtype in (float16, bfloat16):
            dtype = float32
        initializers = param_initializers or {}
        regularizers = param_regularizers or {}

        def parameter(name, default_initializer, is_trainable):
            return model_variable(
                name, shape=[channels], dtype=dtype,
                initializer=initializers.get(name, default_initializer),
                regularizer=regularizers.get(name), trainable=is_trainable,
                collections=_variable_collections(variables_collections, name))

        beta = parameter("beta", init_ops.Zeros(), trainable) if center else None
        gamma = parameter("gamma", init_ops.Ones(), trainable) if scale else None
        moving_mean = parameter("moving_mean", init_ops.Zeros(), False)
        moving_variance = parameter("moving_variance", init_ops.Ones(), False)

        def inference():
            return _batch_norm_infer(inputs, moving_mean, moving_variance, gamma, beta,
                                     [axis], epsilon)

        training = math_ops.cast(is_training, "bool") if ops.is_tensor(is_training) \
            else bool(is_training)
        if training is False:
            outputs = inference()
        else:
            train_outputs, mean, variance = _batch_norm_train(
                inputs, gamma, beta, [axis], epsilon, fused is not False and rank in (2, 4))
            outputs = backend.smart_cond(training, lambda: train_outputs, inference)
            rate = backend.smart_cond(training,
                                      lambda: ops.convert_to_tensor(1.0 - decay, dtype),
                                      lambda: ops.convert_to_tensor(0.0, dtype))
            updates = [moving.assign_sub((moving.read_value() - value) * rate,
                                         read_value=False)
                       for moving, value in ((moving_mean, mean), (moving_variance, variance))]
            if context.state.building_graph:
                if updates_collections is None:
                    with control_dependencies(updates):
                        outputs = array_ops.identity(outputs)
                else:
                    graph.add_to_collections(updates_collections, updates[0])
                    graph.add_to_collections(updates_collections, updates[1])
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_named_outputs(outputs_collections, outputs)


@tf_export("contrib.layers.layer_norm")
@add_arg_scope
def layer_norm(inputs, center=True, scale=True, activation_fn=None, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               begin_norm_axis=1, begin_params_axis=-1, scope=None):
    """Normalizes over axes [begin_norm_axis:] (epsilon 1e-12), then scales and shifts with
    "LayerNorm/gamma" and "LayerNorm/beta" of shape inputs.shape[begin_params_axis:]."""
    with variable_scope(scope, "LayerNorm", [inputs], reuse=reuse):
        inputs = ops.convert_to_tensor(inputs)
        rank = _rank(inputs)
        if begin_norm_axis < 0:
            begin_norm_axis = rank + begin_norm_axis
        if begin_params_axis >= rank or begin_norm_axis >= rank:
            raise ValueError("begin_params_axis (%d) and begin_norm_axis (%d) must be < "
                             "rank(inputs) (%d)" % (begin_params_axis, begin_norm_axis, rank))
        params_shape = inputs.shape[begin_params_axis:]
        if not params_shape.is_fully_defined():
            raise ValueError("Inputs %s: shape(inputs)[%s:] is not fully defined: %s"
                             % (inputs.name, begin_params_axis, inputs.shape))
        dtype = inputs.dtype.base_dtype

        def parameter(name, initializer):
            return model_variable(name, shape=params_shape, dtype=dtype,
                                  initializer=initializer, trainable=trainable,
                                  collections=_variable_collections(variables_collections,
                                                                    name))

        beta = parameter("beta", init_ops.Zeros()) if center else None
        gamma = parameter("gamma", init_ops.Ones()) if scale else None
        mean, variance = nn_ops.moments(inputs, list(range(begin_norm_axis, rank)),
                                        keep_dims=True)
        outputs = nn_ops.batch_normalization(
            inputs, mean, variance, offset=beta, scale=gamma,
            variance_epsilon=1e-12 if dtype != float16 else 1e-3)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_named_outputs(outputs_collections, outputs)


# ---------------------------------------------------------------- composition


def _layer_scope_name(layer, default):
    if hasattr(layer, "__name__"):
        return layer.__name__
    if hasattr(layer, "func") and hasattr(layer.func, "__name__"):
        return layer.func.__name__
    return default


@tf_export("contrib.layers.repeat")
def repeat(inputs, repetitions, layer, *args, **kwargs):
    """Applies `layer` `repetitions` times in scopes "<scope>/<scope>_1", "_2", ...
    (scope defaults to "Repeat" outside and the layer's name inside)."""
    scope = kwargs.pop("scope", None)
    with variable_scope(scope, "Repeat", [inputs]):
        inputs = ops.convert_to_tensor(inputs)
        scope = scope or _layer_scope_name(layer, "repeat")
        outputs = inputs
        for i in range(repetitions):
            kwargs["scope"] = "%s_%d" % (scope, i + 1)
            outputs = layer(outputs, *args, **kwargs)
        return outputs


@tf_export("contrib.layers.stack")
def stack(inputs, layer, stack_args, **kwargs):
    """Applies `layer` once per entry of `stack_args` (its extra positional arguments), in
    scopes "<scope>_1", "<scope>_2", ... inside "Stack" (or `scope`)."""
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")
    with variable_scope(scope, "Stack", [inputs]):
        inputs = ops.convert_to_tensor(inputs)
        scope = scope or _layer_scope_name(layer, "stack")
        outputs = inputs
        for i, layer_args in enumerate(stack_args):
            kwargs["scope"] = "%s_%d" % (scope, i + 1)
            if not isinstance(layer_args, (list, tuple)):
                layer_args = [layer_args]
            outputs = layer(outputs, *layer_args, **kwargs)
        return outputs


linear = tf_export("contrib.layers.linear")(functools.partial(fully_connected,
                                                              activation_fn=None))
relu = tf_export("contrib.layers.relu")(functools.partial(fully_connected,
                                                          activation_fn=nn_ops.relu))
relu6 = tf_export("contrib.layers.relu6")(functools.partial(fully_connected,
                                                            activation_fn=nn_ops.relu6))
