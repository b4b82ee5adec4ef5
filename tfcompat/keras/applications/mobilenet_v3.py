"""`tf.keras.applications.mobilenet_v3`: MobileNetV3Small and MobileNetV3Large (Keras 2.15).

Where we differ: Keras names the layers of `hard_sigmoid`'s tensor arithmetic (`x + 3.0`,
`* (1 / 6)`) after the TF function (`tf.__operators__.add`, `tf.math.multiply`); tfcompat's
op layers are named `tf_op_layer_<Op>`. They hold no weights, so weights load either way.
"""
import logging

from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.layers.advanced_activations import ReLU
from tfcompat.keras.layers.convolutional import Conv2D, DepthwiseConv2D, ZeroPadding2D
from tfcompat.keras.layers.core import Activation, Dropout, Flatten
from tfcompat.keras.layers.merge import Add, Multiply
from tfcompat.keras.layers.normalization import BatchNormalization
from tfcompat.keras.layers.pooling import GlobalAveragePooling2D
from tfcompat.keras.layers.preprocessing.image_preprocessing import Rescaling

BASE_WEIGHT_PATH = imagenet_utils.WEIGHTS_ORIGIN + "mobilenet_v3/"
# Keras' md5 of each (top, no-top) weights file.
WEIGHTS_HASHES = {
    "large_224_0.75_float": ("765b44a33ad4005b3ac83185abf1d0eb",
                             "40af19a13ebea4e2ee0c676887f69a2e"),
    "large_224_1.0_float": ("59e551e166be033d707958cf9e29a6a7",
                            "07fb09a5933dd0c8eaafa16978110389"),
    "large_minimalistic_224_1.0_float": ("675e7b876c45c57e9e63e6d90a36599c",
                                         "ec5221f64a2f6d1ef965a614bdae7973"),
    "small_224_0.75_float": ("cb65d4e5be93758266aa0a7f2c6708b7",
                             "ebdb5cc8e0b497cd13a7c275d475c819"),
    "small_224_1.0_float": ("8768d4c2e7dee89b9d02b2d03d65d862",
                            "d3e8ec802a04aa4fc771ee12a9a9b836"),
    "small_minimalistic_224_1.0_float": ("99cd97fb2fcdad2bf028eb838de69e37",
                                         "cde8136e733e811080d9fcd8a252f7e4"),
}
# (expansion, filters, kernel (None: the model's), stride, squeeze-excite, hard-swish) of
# each inverted residual block
_SMALL_BLOCKS = [(1, 16, 3, 2, True, False), (72.0 / 16, 24, 3, 2, False, False),
                 (88.0 / 24, 24, 3, 1, False, False), (4, 40, None, 2, True, True),
                 (6, 40, None, 1, True, True), (6, 40, None, 1, True, True),
                 (3, 48, None, 1, True, True), (3, 48, None, 1, True, True),
                 (6, 96, None, 2, True, True), (6, 96, None, 1, True, True),
                 (6, 96, None, 1, True, True)]
_LARGE_BLOCKS = [(1, 16, 3, 1, False, False), (4, 24, 3, 2, False, False),
                 (3, 24, 3, 1, False, False), (3, 40, None, 2, True, False),
                 (3, 40, None, 1, True, False), (3, 40, None, 1, True, False),
                 (6, 80, 3, 2, False, True), (2.5, 80, 3, 1, False, True),
                 (2.3, 80, 3, 1, False, True), (2.3, 80, 3, 1, False, True),
                 (6, 112, 3, 1, True, True), (6, 112, 3, 1, True, True),
                 (6, 160, None, 2, True, True), (6, 160, None, 1, True, True),
                 (6, 160, None, 1, True, True)]


def relu(x):
    return ReLU()(x)


def hard_sigmoid(x):
    return ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def hard_swish(x):
    return Multiply()([x, hard_sigmoid(x)])


def _batch_norm(name):
    return BatchNormalization(axis=1 if imagenet_utils.channel_axis() == 1 else -1,
                              epsilon=1e-3, momentum=0.999, name=name)


def MobileNetV3(blocks, last_point_ch, input_shape=None, alpha=1.0, model_type="large",
                minimalistic=False, include_top=True, weights="imagenet", input_tensor=None,
                classes=1000, pooling=None, dropout_rate=0.2,
                classifier_activation="softmax", include_preprocessing=True):
    """Keras' MobileNetV3 builder (`blocks`: see `_SMALL_BLOCKS`); `minimalistic` drops
    squeeze-excite, hard-swish and 5x5 kernels. Any input size of at least 32x32."""
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    channels_first = backend.image_data_format() == "channels_first"
    if input_shape is None and input_tensor is not None \
            and backend.is_keras_tensor(input_tensor):
        rows, cols = backend.int_shape(input_tensor)[2:4] if channels_first \
            else backend.int_shape(input_tensor)[1:3]
        input_shape = (3, cols, rows) if channels_first else (cols, rows, 3)
    if input_shape is None:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    rows, cols = input_shape[1:3] if channels_first else input_shape[0:2]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError("Input size must be at least 32x32; Received `input_shape=%s`"
                         % (input_shape,))
    if weights == "imagenet":
        if (not minimalistic and alpha not in [0.75, 1.0]) or (minimalistic and alpha != 1.0):
            raise ValueError("If imagenet weights are being loaded, alpha can be one of "
                             "`0.75`, `1.0` for non minimalistic or `1.0` for minimalistic "
                             "only.")
        if rows != cols or rows != 224:
            logging.getLogger("tensorflow").warning(
                "`input_shape` is undefined or non-square, or `rows` is not 224. Weights for "
                "input shape (224, 224) will be loaded as the default.")
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    kernel, activation, se_ratio = (3, relu, None) if minimalistic else (5, hard_swish, 0.25)
    x = img_input
    if include_preprocessing:
        x = Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False,
               name="Conv")(x)
    x = _batch_norm("Conv/BatchNorm")(x)
    x = activation(x)
    for block_id, (expansion, filters, block_kernel, stride, squeeze_excite, swish) \
            in enumerate(blocks):
        x = _inverted_res_block(x, expansion, _depth(filters * alpha), block_kernel or kernel,
                                stride, se_ratio if squeeze_excite else None,
                                activation if swish else relu, block_id)
    channel_axis = 1 if channels_first else -1
    last_conv_ch = _depth(backend.int_shape(x)[channel_axis] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False, name="Conv_1")(x)
    x = _batch_norm("Conv_1/BatchNorm")(x)
    x = activation(x)
    if include_top:
        x = GlobalAveragePooling2D(keepdims=True)(x)
        x = Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True,
                   name="Conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = Dropout(dropout_rate)(x)
        x = Conv2D(classes, kernel_size=1, padding="same", name="Logits")(x)
        x = Flatten()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Activation(activation=classifier_activation, name="Predictions")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=True)
    model_name = "%s%s_224_%s_float" % (model_type, "_minimalistic" if minimalistic else "",
                                        alpha)
    file_name = "weights_mobilenet_v3_%s%s.h5" % (model_name,
                                                  "" if include_top else "_no_top_v2")
    hashes = WEIGHTS_HASHES.get(model_name, (None, None))
    return imagenet_utils.finish_model(
        input_tensor, img_input, x, "MobilenetV3" + model_type, weights,
        (file_name, BASE_WEIGHT_PATH + file_name, hashes[0 if include_top else 1]))


def _depth(v, divisor=8, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _se_block(inputs, filters, se_ratio, prefix):
    x = GlobalAveragePooling2D(keepdims=True, name=prefix + "squeeze_excite/AvgPool")(inputs)
    x = Conv2D(_depth(filters * se_ratio), kernel_size=1, padding="same",
               name=prefix + "squeeze_excite/Conv")(x)
    x = ReLU(name=prefix + "squeeze_excite/Relu")(x)
    x = Conv2D(filters, kernel_size=1, padding="same", name=prefix + "squeeze_excite/Conv_1")(x)
    x = hard_sigmoid(x)
    return Multiply(name=prefix + "squeeze_excite/Mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation,
                        block_id):
    channel_axis = 1 if imagenet_utils.channel_axis() == 1 else -1
    shortcut = x
    prefix = "expanded_conv/"
    infilters = backend.int_shape(x)[channel_axis]
    if block_id:
        prefix = "expanded_conv_%d/" % block_id
        x = Conv2D(_depth(infilters * expansion), kernel_size=1, padding="same",
                   use_bias=False, name=prefix + "expand")(x)
        x = _batch_norm(prefix + "expand/BatchNorm")(x)
        x = activation(x)
    if stride == 2:
        x = ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                          name=prefix + "depthwise/pad")(x)
    x = DepthwiseConv2D(kernel_size, strides=stride,
                        padding="same" if stride == 1 else "valid", use_bias=False,
                        name=prefix + "depthwise")(x)
    x = _batch_norm(prefix + "depthwise/BatchNorm")(x)
    x = activation(x)
    if se_ratio:
        x = _se_block(x, _depth(infilters * expansion), se_ratio, prefix)
    x = Conv2D(filters, kernel_size=1, padding="same", use_bias=False,
               name=prefix + "project")(x)
    x = _batch_norm(prefix + "project/BatchNorm")(x)
    if stride == 1 and infilters == filters:
        x = Add(name=prefix + "Add")([shortcut, x])
    return x


def _variant(name, blocks, last_point_ch, model_type):
    def builder(input_shape=None, alpha=1.0, minimalistic=False, include_top=True,
                weights="imagenet", input_tensor=None, classes=1000, pooling=None,
                dropout_rate=0.2, classifier_activation="softmax",
                include_preprocessing=True):
        return MobileNetV3(blocks, last_point_ch, input_shape, alpha, model_type,
                           minimalistic, include_top, weights, input_tensor, classes,
                           pooling, dropout_rate, classifier_activation,
                           include_preprocessing)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = ("%s (Keras 2): takes raw [0, 255] pixels (the model rescales them "
                       "unless include_preprocessing=False)." % name)
    return tf_export("keras.applications." + name)(builder)


MobileNetV3Small = _variant("MobileNetV3Small", _SMALL_BLOCKS, 1024, "small")
MobileNetV3Large = _variant("MobileNetV3Large", _LARGE_BLOCKS, 1280, "large")


@tf_export("keras.applications.mobilenet_v3.preprocess_input")
def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: MobileNetV3 models rescale their inputs themselves."""
    return x


@tf_export("keras.applications.mobilenet_v3.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
