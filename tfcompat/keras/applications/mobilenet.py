"""`tf.keras.applications.mobilenet`: MobileNet v1 (Keras 2.15)."""
import logging

from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.layers.advanced_activations import ReLU
from tfcompat.keras.layers.convolutional import Conv2D, DepthwiseConv2D, ZeroPadding2D
from tfcompat.keras.layers.core import Activation, Dropout, Reshape
from tfcompat.keras.layers.normalization import BatchNormalization
from tfcompat.keras.layers.pooling import GlobalAveragePooling2D

BASE_WEIGHT_PATH = imagenet_utils.WEIGHTS_ORIGIN + "mobilenet/"
_ALPHA_TEXT = {1.0: "1_0", 0.75: "7_5", 0.5: "5_0", 0.25: "2_5"}


def square_size(input_shape, input_tensor, weight_sizes):
    """Keras' default input size of the MobileNets: the rows of `input_shape` (or of a Keras
    `input_tensor` when no shape is given) when square and among `weight_sizes`, else 224."""
    if input_shape is None and input_tensor is not None \
            and backend.is_keras_tensor(input_tensor):
        input_shape = backend.int_shape(input_tensor)[1:]
    if input_shape is None:
        return 224
    rows, cols = (input_shape[1], input_shape[2]) \
        if backend.image_data_format() == "channels_first" else input_shape[:2]
    return rows if rows == cols and rows in weight_sizes else 224


def imagenet_rows(input_shape, weight_sizes):
    """The input size whose ImageNet weights load: the model's when published, else 224
    (with Keras' warning)."""
    rows, cols = (input_shape[1], input_shape[2]) \
        if backend.image_data_format() == "channels_first" else input_shape[:2]
    if rows != cols or rows not in weight_sizes:
        logging.getLogger("tensorflow").warning(
            "`input_shape` is undefined or non-square, or `rows` is not in %s. Weights for "
            "input shape (224, 224) will be loaded as the default.", list(weight_sizes))
        return 224
    return rows


@tf_export("keras.applications.mobilenet.MobileNet", "keras.applications.MobileNet")
def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3,
              include_top=True, weights="imagenet", input_tensor=None, pooling=None,
              classes=1000, classifier_activation="softmax", **kwargs):
    """MobileNet (Keras 2): `alpha` scales the filters of every layer, `depth_multiplier`
    the depthwise convolutions."""
    imagenet_utils.reject_unknown_arguments(kwargs)
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    weight_sizes = (128, 160, 192, 224)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=square_size(input_shape, None, weight_sizes), min_size=32,
        data_format=backend.image_data_format(), require_flatten=include_top,
        weights=weights)
    rows = input_shape[1] if backend.image_data_format() == "channels_first" \
        else input_shape[0]
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("If imagenet weights are being loaded, depth multiplier must be "
                             "1.  Received depth_multiplier=%s" % (depth_multiplier,))
        if alpha not in _ALPHA_TEXT:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of"
                             "`0.25`, `0.50`, `0.75` or `1.0` only.  Received alpha=%s"
                             % (alpha,))
        rows = imagenet_rows(input_shape, weight_sizes)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = _conv_block(img_input, 32, alpha, strides=(2, 2))
    # (pointwise filters, strides) of the 13 depthwise-separable blocks
    for block_id, (filters, strides) in enumerate(
            [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5
            + [(1024, 2), (1024, 1)], 1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier,
                                  strides=(strides, strides), block_id=block_id)
    if include_top:
        x = GlobalAveragePooling2D(keepdims=True)(x)
        x = Dropout(dropout, name="dropout")(x)
        x = Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=False)
    file_name = "mobilenet_%s_%d_tf%s.h5" % (_ALPHA_TEXT.get(alpha, ""), rows,
                                             "" if include_top else "_no_top")
    return imagenet_utils.finish_model(input_tensor, img_input, x,
                                       "mobilenet_%0.2f_%s" % (alpha, rows), weights,
                                       (file_name, BASE_WEIGHT_PATH + file_name))


def _conv_block(inputs, filters, alpha, kernel=(3, 3), strides=(1, 1)):
    x = Conv2D(int(filters * alpha), kernel, padding="same", use_bias=False, strides=strides,
               name="conv1")(inputs)
    x = BatchNormalization(axis=imagenet_utils.channel_axis(), name="conv1_bn")(x)
    return ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(inputs, pointwise_conv_filters, alpha, depth_multiplier=1,
                          strides=(1, 1), block_id=1):
    bn_axis = imagenet_utils.channel_axis()
    x = inputs
    if strides != (1, 1):
        x = ZeroPadding2D(((0, 1), (0, 1)), name="conv_pad_%d" % block_id)(x)
    x = DepthwiseConv2D((3, 3), padding="same" if strides == (1, 1) else "valid",
                        depth_multiplier=depth_multiplier, strides=strides, use_bias=False,
                        name="conv_dw_%d" % block_id)(x)
    x = BatchNormalization(axis=bn_axis, name="conv_dw_%d_bn" % block_id)(x)
    x = ReLU(6.0, name="conv_dw_%d_relu" % block_id)(x)
    x = Conv2D(int(pointwise_conv_filters * alpha), (1, 1), padding="same", use_bias=False,
               strides=(1, 1), name="conv_pw_%d" % block_id)(x)
    x = BatchNormalization(axis=bn_axis, name="conv_pw_%d_bn" % block_id)(x)
    return ReLU(6.0, name="conv_pw_%d_relu" % block_id)(x)


@tf_export("keras.applications.mobilenet.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.mobilenet.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
