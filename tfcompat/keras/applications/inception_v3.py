"""`tf.keras.applications.inception_v3`: InceptionV3 (Keras 2.15: the same layers, created
in the same order, so the generated names `conv2d_N`, `batch_normalization_N`, ... and the
weights file match Keras')."""
from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.layers.convolutional import Conv2D
from tfcompat.keras.layers.core import Activation, Dense
from tfcompat.keras.layers.merge import concatenate
from tfcompat.keras.layers.normalization import BatchNormalization
from tfcompat.keras.layers.pooling import AveragePooling2D, GlobalAveragePooling2D, MaxPooling2D

WEIGHTS_ORIGIN = imagenet_utils.WEIGHTS_ORIGIN + "inception_v3/"
_WEIGHTS_FILES = {
    True: ("inception_v3_weights_tf_dim_ordering_tf_kernels.h5",
           "9a0d58056eeedaa3f26cb7ebd46da564"),
    False: ("inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5",
            "bcbd6486424b2319ff4ef7d526e38f63"),
}


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """Convolution (no bias), BatchNormalization (no scale), relu."""
    x = Conv2D(filters, (num_row, num_col), strides=strides, padding=padding, use_bias=False,
               name=None if name is None else name + "_conv")(x)
    x = BatchNormalization(axis=imagenet_utils.channel_axis(), scale=False,
                           name=None if name is None else name + "_bn")(x)
    return Activation("relu", name=name)(x)


def _average_pool_branch(x, filters):
    x = AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(x, filters, 1, 1)


def _block_35(x, pool_filters, name):
    """mixed0-2: 1x1, 5x5, double 3x3 and pooled branches."""
    branch1x1 = conv2d_bn(x, 64, 1, 1)
    branch5x5 = conv2d_bn(x, 48, 1, 1)
    branch5x5 = conv2d_bn(branch5x5, 64, 5, 5)
    branch3x3dbl = conv2d_bn(x, 64, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch_pool = _average_pool_branch(x, pool_filters)
    return concatenate([branch1x1, branch5x5, branch3x3dbl, branch_pool],
                       axis=imagenet_utils.channel_axis(), name=name)


def _block_17(x, filters, name):
    """mixed4-7: factorized 7x7 branches with `filters` inner channels."""
    branch1x1 = conv2d_bn(x, 192, 1, 1)
    branch7x7 = conv2d_bn(x, filters, 1, 1)
    branch7x7 = conv2d_bn(branch7x7, filters, 1, 7)
    branch7x7 = conv2d_bn(branch7x7, 192, 7, 1)
    branch7x7dbl = conv2d_bn(x, filters, 1, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, filters, 7, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, filters, 1, 7)
    branch7x7dbl = conv2d_bn(branch7x7dbl, filters, 7, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, 192, 1, 7)
    branch_pool = _average_pool_branch(x, 192)
    return concatenate([branch1x1, branch7x7, branch7x7dbl, branch_pool],
                       axis=imagenet_utils.channel_axis(), name=name)


def _block_8(x, index):
    """mixed9, mixed10: expanded 3x3 branches."""
    channel_axis = imagenet_utils.channel_axis()
    branch1x1 = conv2d_bn(x, 320, 1, 1)
    branch3x3 = conv2d_bn(x, 384, 1, 1)
    branch3x3_1 = conv2d_bn(branch3x3, 384, 1, 3)
    branch3x3_2 = conv2d_bn(branch3x3, 384, 3, 1)
    branch3x3 = concatenate([branch3x3_1, branch3x3_2], axis=channel_axis,
                            name="mixed9_" + str(index))
    branch3x3dbl = conv2d_bn(x, 448, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 384, 3, 3)
    branch3x3dbl_1 = conv2d_bn(branch3x3dbl, 384, 1, 3)
    branch3x3dbl_2 = conv2d_bn(branch3x3dbl, 384, 3, 1)
    branch3x3dbl = concatenate([branch3x3dbl_1, branch3x3dbl_2], axis=channel_axis)
    branch_pool = _average_pool_branch(x, 192)
    return concatenate([branch1x1, branch3x3, branch3x3dbl, branch_pool], axis=channel_axis,
                       name="mixed" + str(9 + index))


@tf_export("keras.applications.inception_v3.InceptionV3", "keras.applications.InceptionV3")
def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax"):
    """InceptionV3 (Keras 2): default input 299x299, at least 75x75."""
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=75, data_format=backend.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    channel_axis = imagenet_utils.channel_axis()
    x = conv2d_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv2d_bn(x, 32, 3, 3, padding="valid")
    x = conv2d_bn(x, 64, 3, 3)
    x = MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv2d_bn(x, 80, 1, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, 3, padding="valid")
    x = MaxPooling2D((3, 3), strides=(2, 2))(x)
    for index, pool_filters in enumerate((32, 64, 64)):
        x = _block_35(x, pool_filters, "mixed%d" % index)

    branch3x3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    branch3x3dbl = conv2d_bn(x, 64, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = concatenate([branch3x3, branch3x3dbl, branch_pool], axis=channel_axis, name="mixed3")

    for index, filters in enumerate((128, 160, 160, 192), 4):
        x = _block_17(x, filters, "mixed%d" % index)

    branch3x3 = conv2d_bn(x, 192, 1, 1)
    branch3x3 = conv2d_bn(branch3x3, 320, 3, 3, strides=(2, 2), padding="valid")
    branch7x7x3 = conv2d_bn(x, 192, 1, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 1, 7)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 7, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = concatenate([branch3x3, branch7x7x3, branch_pool], axis=channel_axis, name="mixed8")

    for index in range(2):
        x = _block_8(x, index)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=False)
    file_name, file_hash = _WEIGHTS_FILES[bool(include_top)]
    return imagenet_utils.finish_model(input_tensor, img_input, x, "inception_v3", weights,
                                       (file_name, WEIGHTS_ORIGIN + file_name, file_hash))


@tf_export("keras.applications.inception_v3.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.inception_v3.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
