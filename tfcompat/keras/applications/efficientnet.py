"""`tf.keras.applications.efficientnet`: EfficientNetB0-B7 (Keras 2.15)."""
import copy
import math

from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.layers.convolutional import Conv2D, DepthwiseConv2D, ZeroPadding2D
from tfcompat.keras.layers.core import Activation, Dense, Dropout, Reshape
from tfcompat.keras.layers.merge import add, multiply
from tfcompat.keras.layers.normalization import BatchNormalization
from tfcompat.keras.layers.pooling import GlobalAveragePooling2D
from tfcompat.keras.layers.preprocessing.image_preprocessing import Rescaling
from tfcompat.keras.layers.preprocessing.normalization import Normalization
from tfcompat.ops import array_ops, math_ops

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/keras-applications/"
# Keras' md5 of each (top, no-top) weights file.
WEIGHTS_HASHES = {
    "b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
    "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
    "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
    "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
    "b4": ("18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"),
    "b5": ("ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"),
    "b6": ("165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"),
    "b7": ("8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"),
}


def _stage(kernel_size, repeats, filters_in, filters_out, expand_ratio, strides):
    return {"kernel_size": kernel_size, "repeats": repeats, "filters_in": filters_in,
            "filters_out": filters_out, "expand_ratio": expand_ratio, "id_skip": True,
            "strides": strides, "se_ratio": 0.25}


DEFAULT_BLOCKS_ARGS = [
    _stage(3, 1, 32, 16, 1, 1), _stage(3, 2, 16, 24, 6, 2), _stage(5, 2, 24, 40, 6, 2),
    _stage(3, 3, 40, 80, 6, 2), _stage(5, 3, 80, 112, 6, 1), _stage(5, 4, 112, 192, 6, 2),
    _stage(3, 1, 192, 320, 6, 1),
]
CONV_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                           "config": {"scale": 2.0, "mode": "fan_out",
                                      "distribution": "truncated_normal"}}
DENSE_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                            "config": {"scale": 1.0 / 3.0, "mode": "fan_out",
                                       "distribution": "uniform"}}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]


def EfficientNet(width_coefficient, depth_coefficient, default_size, dropout_rate=0.2,
                 drop_connect_rate=0.2, depth_divisor=8, activation="swish",
                 blocks_args="default", model_name="efficientnet", include_top=True,
                 weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                 classes=1000, classifier_activation="softmax"):
    """Keras' EfficientNet builder: the B0 stages scaled in width and depth.

    The input is rescaled to [0, 1] and normalized by a `Normalization` layer whose mean and
    variance come with the weights; with `weights='imagenet'` the result is also multiplied
    by 1/sqrt(ImageNet std), as Keras does.
    """
    if blocks_args == "default":
        blocks_args = DEFAULT_BLOCKS_ARGS
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32,
        data_format=backend.image_data_format(), require_flatten=include_top,
        weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    bn_axis = imagenet_utils.channel_axis()

    def round_filters(filters, divisor=depth_divisor):
        filters *= width_coefficient
        new_filters = max(divisor, int(filters + divisor / 2) // divisor * divisor)
        if new_filters < 0.9 * filters:
            new_filters += divisor
        return int(new_filters)

    def round_repeats(repeats):
        return int(math.ceil(depth_coefficient * repeats))

    x = Rescaling(1.0 / 255.0)(img_input)
    x = Normalization(axis=bn_axis)(x)
    if weights == "imagenet":
        shape_for_multiply = [1, 3, 1, 1] if bn_axis == 1 else [1, 1, 1, 3]
        x = math_ops.multiply(x, array_ops.reshape(
            [1.0 / math.sqrt(stddev) for stddev in IMAGENET_STDDEV_RGB], shape_for_multiply))
    x = ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
               kernel_initializer=CONV_KERNEL_INITIALIZER, name="stem_conv")(x)
    x = BatchNormalization(axis=bn_axis, name="stem_bn")(x)
    x = Activation(activation, name="stem_activation")(x)

    blocks_args = copy.deepcopy(blocks_args)
    b = 0
    blocks = float(sum(round_repeats(args["repeats"]) for args in blocks_args))
    for i, args in enumerate(blocks_args):
        args["filters_in"] = round_filters(args["filters_in"])
        args["filters_out"] = round_filters(args["filters_out"])
        for j in range(round_repeats(args.pop("repeats"))):
            if j > 0:
                args["strides"] = 1
                args["filters_in"] = args["filters_out"]
            x = block(x, activation, drop_connect_rate * b / blocks,
                      name="block%d%s_" % (i + 1, chr(j + 97)), **args)
            b += 1

    x = Conv2D(round_filters(1280), 1, padding="same", use_bias=False,
               kernel_initializer=CONV_KERNEL_INITIALIZER, name="top_conv")(x)
    x = BatchNormalization(axis=bn_axis, name="top_bn")(x)
    x = Activation(activation, name="top_activation")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation,
                  kernel_initializer=DENSE_KERNEL_INITIALIZER, name="predictions")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=True)
    file_name = model_name + (".h5" if include_top else "_notop.h5")
    hashes = WEIGHTS_HASHES.get(model_name[-2:], (None, None))
    return imagenet_utils.finish_model(
        input_tensor, img_input, x, model_name, weights,
        (file_name, BASE_WEIGHTS_PATH + file_name, hashes[0 if include_top else 1]))


def block(inputs, activation="swish", drop_rate=0.0, name="", filters_in=32, filters_out=16,
          kernel_size=3, strides=1, expand_ratio=1, se_ratio=0.0, id_skip=True):
    """Mobile inverted bottleneck with squeeze-and-excitation; the residual branch is
    dropped per sample (`Dropout` with noise_shape (None, 1, 1, 1)) while training."""
    bn_axis = imagenet_utils.channel_axis()
    filters = filters_in * expand_ratio
    if expand_ratio != 1:
        x = Conv2D(filters, 1, padding="same", use_bias=False,
                   kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + "expand_conv")(inputs)
        x = BatchNormalization(axis=bn_axis, name=name + "expand_bn")(x)
        x = Activation(activation, name=name + "expand_activation")(x)
    else:
        x = inputs
    if strides == 2:
        x = ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                          name=name + "dwconv_pad")(x)
        conv_pad = "valid"
    else:
        conv_pad = "same"
    x = DepthwiseConv2D(kernel_size, strides=strides, padding=conv_pad, use_bias=False,
                        depthwise_initializer=CONV_KERNEL_INITIALIZER, name=name + "dwconv")(x)
    x = BatchNormalization(axis=bn_axis, name=name + "bn")(x)
    x = Activation(activation, name=name + "activation")(x)
    if 0 < se_ratio <= 1:
        filters_se = max(1, int(filters_in * se_ratio))
        se = GlobalAveragePooling2D(name=name + "se_squeeze")(x)
        se_shape = (filters, 1, 1) if bn_axis == 1 else (1, 1, filters)
        se = Reshape(se_shape, name=name + "se_reshape")(se)
        se = Conv2D(filters_se, 1, padding="same", activation=activation,
                    kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + "se_reduce")(se)
        se = Conv2D(filters, 1, padding="same", activation="sigmoid",
                    kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + "se_expand")(se)
        x = multiply([x, se], name=name + "se_excite")
    x = Conv2D(filters_out, 1, padding="same", use_bias=False,
               kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + "project_conv")(x)
    x = BatchNormalization(axis=bn_axis, name=name + "project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = add([x, inputs], name=name + "add")
    return x


def _variant(name, width, depth, size, dropout):
    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
        return EfficientNet(width, depth, size, dropout, model_name=name.lower(),
                            include_top=include_top, weights=weights,
                            input_tensor=input_tensor, input_shape=input_shape,
                            pooling=pooling, classes=classes,
                            classifier_activation=classifier_activation, **kwargs)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = ("%s (Keras 2): width x%s, depth x%s, default input %dx%d. Takes raw "
                       "[0, 255] pixels (preprocessing is part of the model)."
                       % (name, width, depth, size, size))
    return tf_export("keras.applications.efficientnet." + name,
                     "keras.applications." + name)(builder)


EfficientNetB0 = _variant("EfficientNetB0", 1.0, 1.0, 224, 0.2)
EfficientNetB1 = _variant("EfficientNetB1", 1.0, 1.1, 240, 0.2)
EfficientNetB2 = _variant("EfficientNetB2", 1.1, 1.2, 260, 0.3)
EfficientNetB3 = _variant("EfficientNetB3", 1.2, 1.4, 300, 0.3)
EfficientNetB4 = _variant("EfficientNetB4", 1.4, 1.8, 380, 0.4)
EfficientNetB5 = _variant("EfficientNetB5", 1.6, 2.2, 456, 0.4)
EfficientNetB6 = _variant("EfficientNetB6", 1.8, 2.6, 528, 0.5)
EfficientNetB7 = _variant("EfficientNetB7", 2.0, 3.1, 600, 0.5)


@tf_export("keras.applications.efficientnet.preprocess_input")
def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: EfficientNet models rescale their inputs themselves."""
    return x


@tf_export("keras.applications.efficientnet.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
