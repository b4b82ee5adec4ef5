"""`tf.keras.applications.resnet` / `resnet50`: ResNet50, ResNet101, ResNet152 (Keras 2.15:
same layer and weight names, so Keras' published `.h5` weights load)."""
from tfcompat._api import tf_export
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.layers.convolutional import Conv2D, ZeroPadding2D
from tfcompat.keras.layers.core import Activation, Dense
from tfcompat.keras.layers.merge import Add
from tfcompat.keras.layers.normalization import BatchNormalization
from tfcompat.keras.layers.pooling import GlobalAveragePooling2D, MaxPooling2D

BASE_WEIGHTS_PATH = imagenet_utils.WEIGHTS_ORIGIN + "resnet/"
# Keras' md5 of each (top, no-top) weights file.
WEIGHTS_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}


def batch_norm(name):
    return BatchNormalization(axis=imagenet_utils.channel_axis(), epsilon=1.001e-5, name=name)


def ResNet(stack_fn, preact, use_bias, model_name="resnet", include_top=True,
           weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
           classes=1000, classifier_activation="softmax", **kwargs):
    """Keras' ResNet builder: stem, `stack_fn`'s residual stacks, then the classifier or
    `pooling`; `preact` builds the v2 (pre-activation) variant."""
    imagenet_utils.reject_unknown_arguments(kwargs)
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32,
        data_format=imagenet_utils.backend.image_data_format(), require_flatten=include_top,
        weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = batch_norm("conv1_bn")(x)
        x = Activation("relu", name="conv1_relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = batch_norm("post_bn")(x)
        x = Activation("relu", name="post_relu")(x)
    if include_top:
        x = GlobalAveragePooling2D(name="avg_pool")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=True)
    file_name = model_name + ("_weights_tf_dim_ordering_tf_kernels.h5" if include_top
                              else "_weights_tf_dim_ordering_tf_kernels_notop.h5")
    weights_file = (file_name, BASE_WEIGHTS_PATH + file_name,
                    WEIGHTS_HASHES[model_name][0 if include_top else 1])
    return imagenet_utils.finish_model(input_tensor, img_input, x, model_name, weights,
                                       weights_file)


def block1(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    """Bottleneck residual block (v1): 1x1, kxk, 1x1 convolutions plus the shortcut."""
    if conv_shortcut:
        shortcut = Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = batch_norm(name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = batch_norm(name + "_1_bn")(x)
    x = Activation("relu", name=name + "_1_relu")(x)
    x = Conv2D(filters, kernel_size, padding="SAME", name=name + "_2_conv")(x)
    x = batch_norm(name + "_2_bn")(x)
    x = Activation("relu", name=name + "_2_relu")(x)
    x = Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = batch_norm(name + "_3_bn")(x)
    x = Add(name=name + "_add")([shortcut, x])
    return Activation("relu", name=name + "_out")(x)


def stack1(x, filters, blocks, stride1=2, name=None):
    x = block1(x, filters, stride=stride1, name=name + "_block1")
    for i in range(2, blocks + 1):
        x = block1(x, filters, conv_shortcut=False, name=name + "_block" + str(i))
    return x


def block2(x, filters, kernel_size=3, stride=1, conv_shortcut=False, name=None):
    """Pre-activation residual block (v2)."""
    preact = batch_norm(name + "_preact_bn")(x)
    preact = Activation("relu", name=name + "_preact_relu")(preact)
    if conv_shortcut:
        shortcut = Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    else:
        shortcut = MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = batch_norm(name + "_1_bn")(x)
    x = Activation("relu", name=name + "_1_relu")(x)
    x = ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = Conv2D(filters, kernel_size, strides=stride, use_bias=False,
               name=name + "_2_conv")(x)
    x = batch_norm(name + "_2_bn")(x)
    x = Activation("relu", name=name + "_2_relu")(x)
    x = Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return Add(name=name + "_out")([shortcut, x])


def stack2(x, filters, blocks, stride1=2, name=None):
    x = block2(x, filters, conv_shortcut=True, name=name + "_block1")
    for i in range(2, blocks):
        x = block2(x, filters, name=name + "_block" + str(i))
    return block2(x, filters, stride=stride1, name=name + "_block" + str(blocks))


def _v1_stacks(block_counts):
    def stack_fn(x):
        x = stack1(x, 64, block_counts[0], stride1=1, name="conv2")
        x = stack1(x, 128, block_counts[1], name="conv3")
        x = stack1(x, 256, block_counts[2], name="conv4")
        return stack1(x, 512, block_counts[3], name="conv5")
    return stack_fn


@tf_export("keras.applications.resnet50.ResNet50", "keras.applications.resnet.ResNet50",
           "keras.applications.ResNet50")
def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, **kwargs):
    """ResNet50 (Keras 2); `classifier_activation` may be passed as a keyword."""
    return ResNet(_v1_stacks((3, 4, 6, 3)), False, True, "resnet50", include_top, weights,
                  input_tensor, input_shape, pooling, classes, **kwargs)


@tf_export("keras.applications.resnet.ResNet101", "keras.applications.ResNet101")
def ResNet101(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, **kwargs):
    """ResNet101 (Keras 2)."""
    return ResNet(_v1_stacks((3, 4, 23, 3)), False, True, "resnet101", include_top, weights,
                  input_tensor, input_shape, pooling, classes, **kwargs)


@tf_export("keras.applications.resnet.ResNet152", "keras.applications.ResNet152")
def ResNet152(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, **kwargs):
    """ResNet152 (Keras 2)."""
    return ResNet(_v1_stacks((3, 8, 36, 3)), False, True, "resnet152", include_top, weights,
                  input_tensor, input_shape, pooling, classes, **kwargs)


@tf_export("keras.applications.resnet50.preprocess_input",
           "keras.applications.resnet.preprocess_input")
def preprocess_input(x, data_format=None):
    """Caffe-style preprocessing (RGB to BGR, ImageNet means subtracted)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


@tf_export("keras.applications.resnet50.decode_predictions",
           "keras.applications.resnet.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
