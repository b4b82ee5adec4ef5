"""`tf.keras.applications.inception_resnet_v2`: InceptionResNetV2 (Keras 2.15: same layers
in the same order, so the generated names and the weights files match Keras')."""
from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.keras.layers.convolutional import Conv2D
from tfcompat.keras.layers.core import Activation, Dense
from tfcompat.keras.layers.merge import Concatenate
from tfcompat.keras.layers.normalization import BatchNormalization
from tfcompat.keras.layers.pooling import AveragePooling2D, GlobalAveragePooling2D, MaxPooling2D
from tfcompat.keras.utils.generic_utils import register_keras_serializable

BASE_WEIGHT_URL = imagenet_utils.WEIGHTS_ORIGIN + "inception_resnet_v2/"
_WEIGHTS_FILES = {
    True: ("inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5",
           "e693bd0210a403b3192acc6073ad2e96"),
    False: ("inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5",
            "d19885ff4a710c122648d3b5c3b684e4"),
}


@register_keras_serializable()
class CustomScaleLayer(Layer):
    """`inputs[0] + inputs[1] * scale`: the scaled residual of Keras' InceptionResNetV2."""

    def __init__(self, scale, **kwargs):
        super(CustomScaleLayer, self).__init__(**kwargs)
        self.scale = scale

    def get_config(self):
        config = super(CustomScaleLayer, self).get_config()
        config.update({"scale": self.scale})
        return config

    def call(self, inputs):
        return inputs[0] + inputs[1] * self.scale


def conv2d_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu",
              use_bias=False, name=None):
    """Convolution, then (without a bias) BatchNormalization without scale, then
    `activation`."""
    x = Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias,
               name=name)(x)
    if not use_bias:
        x = BatchNormalization(axis=imagenet_utils.channel_axis(), scale=False,
                               name=None if name is None else name + "_bn")(x)
    if activation is not None:
        x = Activation(activation, name=None if name is None else name + "_ac")(x)
    return x


def inception_resnet_block(x, scale, block_type, block_idx, activation="relu"):
    """A residual Inception block ('block35', 'block17' or 'block8') scaled by `scale`."""
    if block_type == "block35":
        branch_0 = conv2d_bn(x, 32, 1)
        branch_1 = conv2d_bn(x, 32, 1)
        branch_1 = conv2d_bn(branch_1, 32, 3)
        branch_2 = conv2d_bn(x, 32, 1)
        branch_2 = conv2d_bn(branch_2, 48, 3)
        branch_2 = conv2d_bn(branch_2, 64, 3)
        branches = [branch_0, branch_1, branch_2]
    elif block_type in ("block17", "block8"):
        inner = (192, 128, 160, 192, [1, 7], [7, 1]) if block_type == "block17" \
            else (192, 192, 224, 256, [1, 3], [3, 1])
        branch_0 = conv2d_bn(x, inner[0], 1)
        branch_1 = conv2d_bn(x, inner[1], 1)
        branch_1 = conv2d_bn(branch_1, inner[2], inner[4])
        branch_1 = conv2d_bn(branch_1, inner[3], inner[5])
        branches = [branch_0, branch_1]
    else:
        raise ValueError('Unknown Inception-ResNet block type. Expects "block35", "block17" '
                         'or "block8", but got: ' + str(block_type))
    block_name = block_type + "_" + str(block_idx)
    channel_axis = imagenet_utils.channel_axis()
    mixed = Concatenate(axis=channel_axis, name=block_name + "_mixed")(branches)
    up = conv2d_bn(mixed, backend.int_shape(x)[channel_axis], 1, activation=None,
                   use_bias=True, name=block_name + "_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = Activation(activation, name=block_name + "_ac")(x)
    return x


@tf_export("keras.applications.inception_resnet_v2.InceptionResNetV2",
           "keras.applications.InceptionResNetV2")
def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None,
                      input_shape=None, pooling=None, classes=1000,
                      classifier_activation="softmax", **kwargs):
    """InceptionResNetV2 (Keras 2): default input 299x299, at least 75x75."""
    imagenet_utils.reject_unknown_arguments(kwargs)
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=75, data_format=backend.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    channel_axis = imagenet_utils.channel_axis()
    x = conv2d_bn(img_input, 32, 3, strides=2, padding="valid")
    x = conv2d_bn(x, 32, 3, padding="valid")
    x = conv2d_bn(x, 64, 3)
    x = MaxPooling2D(3, strides=2)(x)
    x = conv2d_bn(x, 80, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, padding="valid")
    x = MaxPooling2D(3, strides=2)(x)

    branch_0 = conv2d_bn(x, 96, 1)
    branch_1 = conv2d_bn(x, 48, 1)
    branch_1 = conv2d_bn(branch_1, 64, 5)
    branch_2 = conv2d_bn(x, 64, 1)
    branch_2 = conv2d_bn(branch_2, 96, 3)
    branch_2 = conv2d_bn(branch_2, 96, 3)
    branch_pool = AveragePooling2D(3, strides=1, padding="same")(x)
    branch_pool = conv2d_bn(branch_pool, 64, 1)
    x = Concatenate(axis=channel_axis, name="mixed_5b")(
        [branch_0, branch_1, branch_2, branch_pool])
    for block_idx in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=block_idx)

    branch_0 = conv2d_bn(x, 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(x, 256, 1)
    branch_1 = conv2d_bn(branch_1, 256, 3)
    branch_1 = conv2d_bn(branch_1, 384, 3, strides=2, padding="valid")
    branch_pool = MaxPooling2D(3, strides=2, padding="valid")(x)
    x = Concatenate(axis=channel_axis, name="mixed_6a")([branch_0, branch_1, branch_pool])
    for block_idx in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=block_idx)

    branch_0 = conv2d_bn(x, 256, 1)
    branch_0 = conv2d_bn(branch_0, 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(x, 256, 1)
    branch_1 = conv2d_bn(branch_1, 288, 3, strides=2, padding="valid")
    branch_2 = conv2d_bn(x, 256, 1)
    branch_2 = conv2d_bn(branch_2, 288, 3)
    branch_2 = conv2d_bn(branch_2, 320, 3, strides=2, padding="valid")
    branch_pool = MaxPooling2D(3, strides=2, padding="valid")(x)
    x = Concatenate(axis=channel_axis, name="mixed_7a")(
        [branch_0, branch_1, branch_2, branch_pool])
    for block_idx in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=block_idx)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8",
                               block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=False)
    file_name, file_hash = _WEIGHTS_FILES[bool(include_top)]
    return imagenet_utils.finish_model(input_tensor, img_input, x, "inception_resnet_v2",
                                       weights,
                                       (file_name, BASE_WEIGHT_URL + file_name, file_hash))


@tf_export("keras.applications.inception_resnet_v2.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.inception_resnet_v2.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
