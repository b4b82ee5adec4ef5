"""`tf.keras.applications.densenet`: DenseNet121, DenseNet169, DenseNet201 (Keras 2.15)."""
from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.layers.convolutional import Conv2D, ZeroPadding2D
from tfcompat.keras.layers.core import Activation, Dense
from tfcompat.keras.layers.merge import Concatenate
from tfcompat.keras.layers.normalization import BatchNormalization
from tfcompat.keras.layers.pooling import AveragePooling2D, GlobalAveragePooling2D, MaxPooling2D

BASE_WEIGHTS_PATH = imagenet_utils.WEIGHTS_ORIGIN + "densenet/"
# model name -> (blocks per dense block, md5 of the top / no-top weights files)
_VARIANTS = {
    "densenet121": ((6, 12, 24, 16), ("9d60b8095a5708f2dcce2bca79d332c7",
                                      "30ee3e1110167f948a6b9946edeeb738")),
    "densenet169": ((6, 12, 32, 32), ("d699b8f76981ab1b30698df4c175e90b",
                                      "b8c4d4c20dd625c148057b9ff1c1176b")),
    "densenet201": ((6, 12, 48, 32), ("1ceb130c1ea1b78c3bf6114dbdfd8807",
                                      "c13680b51ded0fb44dff2d8f86ac8bb1")),
}


def batch_norm(name):
    return BatchNormalization(axis=imagenet_utils.channel_axis(), epsilon=1.001e-5, name=name)


def dense_block(x, blocks, name):
    for i in range(blocks):
        x = conv_block(x, 32, name=name + "_block" + str(i + 1))
    return x


def transition_block(x, reduction, name):
    """BN-relu, a 1x1 convolution keeping `reduction` of the channels, 2x2 average pooling."""
    x = batch_norm(name + "_bn")(x)
    x = Activation("relu", name=name + "_relu")(x)
    channels = backend.int_shape(x)[imagenet_utils.channel_axis()]
    x = Conv2D(int(channels * reduction), 1, use_bias=False, name=name + "_conv")(x)
    return AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def conv_block(x, growth_rate, name):
    """BN-relu-1x1 conv, BN-relu-3x3 conv, concatenated to the input."""
    x1 = batch_norm(name + "_0_bn")(x)
    x1 = Activation("relu", name=name + "_0_relu")(x1)
    x1 = Conv2D(4 * growth_rate, 1, use_bias=False, name=name + "_1_conv")(x1)
    x1 = batch_norm(name + "_1_bn")(x1)
    x1 = Activation("relu", name=name + "_1_relu")(x1)
    x1 = Conv2D(growth_rate, 3, padding="same", use_bias=False, name=name + "_2_conv")(x1)
    return Concatenate(axis=imagenet_utils.channel_axis(), name=name + "_concat")([x, x1])


def DenseNet(blocks, include_top=True, weights="imagenet", input_tensor=None,
             input_shape=None, pooling=None, classes=1000, classifier_activation="softmax"):
    """Keras' DenseNet builder; `blocks` is the number of conv blocks of the 4 dense blocks."""
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=backend.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = Conv2D(64, 7, strides=2, use_bias=False, name="conv1/conv")(x)
    x = batch_norm("conv1/bn")(x)
    x = Activation("relu", name="conv1/relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks, 2):
        x = dense_block(x, count, name="conv%d" % stage)
        if stage < 5:
            x = transition_block(x, 0.5, name="pool%d" % stage)
    x = batch_norm("bn")(x)
    x = Activation("relu", name="relu")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=True)
    model_name = next((name for name, (counts, _) in _VARIANTS.items()
                       if counts == tuple(blocks)), "densenet")
    weights_file = None
    if model_name in _VARIANTS:
        file_name = model_name + ("_weights_tf_dim_ordering_tf_kernels.h5" if include_top
                                  else "_weights_tf_dim_ordering_tf_kernels_notop.h5")
        weights_file = (file_name, BASE_WEIGHTS_PATH + file_name,
                        _VARIANTS[model_name][1][0 if include_top else 1])
    elif weights == "imagenet":
        raise ValueError("No ImageNet weights exist for DenseNet blocks %s" % (blocks,))
    return imagenet_utils.finish_model(input_tensor, img_input, x, model_name, weights,
                                       weights_file)


def _variant(name):
    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax"):
        return DenseNet(_VARIANTS[name.lower()][0], include_top, weights, input_tensor,
                        input_shape, pooling, classes, classifier_activation)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = "%s (Keras 2)." % name
    return tf_export("keras.applications.densenet." + name,
                     "keras.applications." + name)(builder)


DenseNet121 = _variant("DenseNet121")
DenseNet169 = _variant("DenseNet169")
DenseNet201 = _variant("DenseNet201")


@tf_export("keras.applications.densenet.preprocess_input")
def preprocess_input(x, data_format=None):
    """Torch-style preprocessing (scaled to [0, 1], normalized by ImageNet statistics)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")


@tf_export("keras.applications.densenet.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
