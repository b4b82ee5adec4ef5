"""`tf.keras.applications.vgg16`: VGG16 (Keras 2.15), and the VGG builder VGG19 shares."""
from tfcompat._api import tf_export
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.layers.convolutional import Conv2D
from tfcompat.keras.layers.core import Dense, Flatten
from tfcompat.keras.layers.pooling import MaxPooling2D

# (filters, convolutions) of VGG's five blocks; VGG19 has four convolutions in blocks 3-5.
VGG16_BLOCKS = ((64, 2), (128, 2), (256, 3), (512, 3), (512, 3))


def VGG(blocks, model_name, include_top, weights, input_tensor, input_shape, pooling, classes,
        classifier_activation):
    """Keras' VGG: `blocks` of 3x3 relu convolutions each ending in 2x2 max pooling, then
    two 4096-unit layers and the classifier (or `pooling`)."""
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32,
        data_format=imagenet_utils.backend.image_data_format(), require_flatten=include_top,
        weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    x = img_input
    for block, (filters, convolutions) in enumerate(blocks, 1):
        for conv in range(1, convolutions + 1):
            x = Conv2D(filters, (3, 3), activation="relu", padding="same",
                       name="block%d_conv%d" % (block, conv))(x)
        x = MaxPooling2D((2, 2), strides=(2, 2), name="block%d_pool" % block)(x)
    if include_top:
        x = Flatten(name="flatten")(x)
        x = Dense(4096, activation="relu", name="fc1")(x)
        x = Dense(4096, activation="relu", name="fc2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=False)
    file_hash = {"vgg16": ("64373286793e3c8b2b4e3219cbf3544b",
                           "6d6bbae143d832006294945121d1f1fc"),
                 "vgg19": ("cbe5617147190e668d6c5d5026f83318",
                           "253f8cb515780f3b799900260a226db6")}[model_name]
    file_name = model_name + ("_weights_tf_dim_ordering_tf_kernels.h5" if include_top
                              else "_weights_tf_dim_ordering_tf_kernels_notop.h5")
    weights_file = (file_name, "%s%s/%s" % (imagenet_utils.WEIGHTS_ORIGIN, model_name,
                                            file_name), file_hash[0 if include_top else 1])
    return imagenet_utils.finish_model(input_tensor, img_input, x, model_name, weights,
                                       weights_file)


@tf_export("keras.applications.vgg16.VGG16", "keras.applications.VGG16")
def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, classifier_activation="softmax"):
    """VGG16 (Keras 2)."""
    return VGG(VGG16_BLOCKS, "vgg16", include_top, weights, input_tensor, input_shape,
               pooling, classes, classifier_activation)


@tf_export("keras.applications.vgg16.preprocess_input")
def preprocess_input(x, data_format=None):
    """Caffe-style preprocessing (RGB to BGR, ImageNet means subtracted)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


@tf_export("keras.applications.vgg16.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
