"""`tf.keras.applications.xception`: Xception (Keras 2.15: same layers in the same order, so
the generated names of the residual branches match Keras')."""
from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.layers.convolutional import Conv2D, SeparableConv2D
from tfcompat.keras.layers.core import Activation, Dense
from tfcompat.keras.layers.merge import add
from tfcompat.keras.layers.normalization import BatchNormalization
from tfcompat.keras.layers.pooling import GlobalAveragePooling2D, MaxPooling2D

WEIGHTS_ORIGIN = imagenet_utils.WEIGHTS_ORIGIN + "xception/"
_WEIGHTS_FILES = {
    True: ("xception_weights_tf_dim_ordering_tf_kernels.h5",
           "0a58e3b7378bc2990ea3b43d5981f1f6"),
    False: ("xception_weights_tf_dim_ordering_tf_kernels_notop.h5",
            "b0042744bf5b25fce3cb969f33bebb97"),
}


def _batch_norm(name=None):
    return BatchNormalization(axis=1 if imagenet_utils.channel_axis() == 1 else -1, name=name)


def _separable(x, filters, name):
    x = SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return _batch_norm(name + "_bn")(x)


def _downsampling_block(x, block, filters, activate_first=True):
    """Two separable convolutions and a strided max pool, plus a strided 1x1 residual."""
    residual = Conv2D(filters[1], (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    residual = _batch_norm()(residual)
    prefix = "block%d_" % block
    if activate_first:
        x = Activation("relu", name=prefix + "sepconv1_act")(x)
    x = _separable(x, filters[0], prefix + "sepconv1")
    x = Activation("relu", name=prefix + "sepconv2_act")(x)
    x = _separable(x, filters[1], prefix + "sepconv2")
    x = MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=prefix + "pool")(x)
    return add([x, residual])


@tf_export("keras.applications.xception.Xception", "keras.applications.Xception")
def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax"):
    """Xception (Keras 2): default input 299x299, at least 71x71."""
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=71, data_format=backend.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = _batch_norm("block1_conv1_bn")(x)
    x = Activation("relu", name="block1_conv1_act")(x)
    x = Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = _batch_norm("block1_conv2_bn")(x)
    x = Activation("relu", name="block1_conv2_act")(x)
    x = _downsampling_block(x, 2, (128, 128), activate_first=False)
    x = _downsampling_block(x, 3, (256, 256))
    x = _downsampling_block(x, 4, (728, 728))
    for block in range(5, 13):
        residual = x
        for conv in range(1, 4):
            name = "block%d_sepconv%d" % (block, conv)
            x = Activation("relu", name=name + "_act")(x)
            x = _separable(x, 728, name)
        x = add([x, residual])
    x = _downsampling_block(x, 13, (728, 1024))
    x = _separable(x, 1536, "block14_sepconv1")
    x = Activation("relu", name="block14_sepconv1_act")(x)
    x = _separable(x, 2048, "block14_sepconv2")
    x = Activation("relu", name="block14_sepconv2_act")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=False)
    file_name, file_hash = _WEIGHTS_FILES[bool(include_top)]
    return imagenet_utils.finish_model(input_tensor, img_input, x, "xception", weights,
                                       (file_name, WEIGHTS_ORIGIN + file_name, file_hash))


@tf_export("keras.applications.xception.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.xception.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
