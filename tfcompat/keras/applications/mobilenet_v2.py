"""`tf.keras.applications.mobilenet_v2`: MobileNetV2 (Keras 2.15)."""
from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.applications.mobilenet import imagenet_rows, square_size
from tfcompat.keras.layers.advanced_activations import ReLU
from tfcompat.keras.layers.convolutional import Conv2D, DepthwiseConv2D, ZeroPadding2D
from tfcompat.keras.layers.core import Dense
from tfcompat.keras.layers.merge import Add
from tfcompat.keras.layers.normalization import BatchNormalization
from tfcompat.keras.layers.pooling import GlobalAveragePooling2D

BASE_WEIGHT_PATH = imagenet_utils.WEIGHTS_ORIGIN + "mobilenet_v2/"
# (filters, stride, expansion) of the 17 inverted residual blocks
_BLOCKS = ([(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6)] + [(32, 1, 6)] * 2
           + [(64, 2, 6)] + [(64, 1, 6)] * 3 + [(96, 1, 6)] * 3 + [(160, 2, 6)]
           + [(160, 1, 6)] * 2 + [(320, 1, 6)])


def batch_norm(name):
    return BatchNormalization(axis=-1 if imagenet_utils.channel_axis() == 3 else 1,
                              epsilon=1e-3, momentum=0.999, name=name)


@tf_export("keras.applications.mobilenet_v2.MobileNetV2", "keras.applications.MobileNetV2")
def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",
                input_tensor=None, pooling=None, classes=1000,
                classifier_activation="softmax", **kwargs):
    """MobileNetV2 (Keras 2): inverted residual blocks, `alpha` scales the filters."""
    imagenet_utils.reject_unknown_arguments(kwargs)
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    weight_sizes = (96, 128, 160, 192, 224)
    if input_shape is not None and input_tensor is not None \
            and backend.is_keras_tensor(input_tensor):
        width_axis = 1 if backend.image_data_format() == "channels_first" else 2
        if backend.int_shape(input_tensor)[width_axis] != input_shape[1]:
            raise ValueError("input_tensor.shape[%d] must equal input_shape[1]; Received "
                             "`input_tensor.shape=%s`, `input_shape=%s`"
                             % (width_axis, input_tensor.shape, input_shape))
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=square_size(input_shape, input_tensor, weight_sizes),
        min_size=32, data_format=backend.image_data_format(), require_flatten=include_top,
        weights=weights)
    rows = input_shape[1] if backend.image_data_format() == "channels_first" \
        else input_shape[0]
    if weights == "imagenet":
        if alpha not in [0.35, 0.5, 0.75, 1.0, 1.3, 1.4]:
            raise ValueError("If imagenet weights are being loaded, alpha must be one of "
                             "`0.35`, `0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; Received "
                             "`alpha=%s`" % (alpha,))
        rows = imagenet_rows(input_shape, weight_sizes)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2), padding="same",
               use_bias=False, name="Conv1")(img_input)
    x = batch_norm("bn_Conv1")(x)
    x = ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride,
                                expansion=expansion, block_id=block_id)
    last_block_filters = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = Conv2D(last_block_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = batch_norm("Conv_1_bn")(x)
    x = ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = GlobalAveragePooling2D()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=False)
    file_name = "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_%s_%s%s.h5" % (
        float(alpha), rows, "" if include_top else "_no_top")
    return imagenet_utils.finish_model(input_tensor, img_input, x,
                                       "mobilenetv2_%0.2f_%s" % (alpha, rows), weights,
                                       (file_name, BASE_WEIGHT_PATH + file_name))


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    """Expand (1x1), depthwise 3x3, project (1x1); a residual add when shapes allow."""
    in_channels = backend.int_shape(inputs)[imagenet_utils.channel_axis()]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = "block_%d_" % block_id
    if block_id:
        x = Conv2D(expansion * in_channels, kernel_size=1, padding="same", use_bias=False,
                   activation=None, name=prefix + "expand")(x)
        x = batch_norm(prefix + "expand_BN")(x)
        x = ReLU(6.0, name=prefix + "expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name=prefix + "pad")(x)
    x = DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                        padding="same" if stride == 1 else "valid",
                        name=prefix + "depthwise")(x)
    x = batch_norm(prefix + "depthwise_BN")(x)
    x = ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
               activation=None, name=prefix + "project")(x)
    x = batch_norm(prefix + "project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return Add(name=prefix + "add")([inputs, x])
    return x


def _make_divisible(v, divisor, min_value=None):
    """`v` rounded to a multiple of `divisor`, never below 90% of `v`."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


@tf_export("keras.applications.mobilenet_v2.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.mobilenet_v2.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
