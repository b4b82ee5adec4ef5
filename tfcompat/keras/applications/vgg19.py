"""`tf.keras.applications.vgg19`: VGG19 (Keras 2.15)."""
from tfcompat._api import tf_export
from tfcompat.keras.applications import imagenet_utils, vgg16

VGG19_BLOCKS = ((64, 2), (128, 2), (256, 4), (512, 4), (512, 4))


@tf_export("keras.applications.vgg19.VGG19", "keras.applications.VGG19")
def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, classifier_activation="softmax"):
    """VGG19 (Keras 2)."""
    return vgg16.VGG(VGG19_BLOCKS, "vgg19", include_top, weights, input_tensor, input_shape,
                     pooling, classes, classifier_activation)


@tf_export("keras.applications.vgg19.preprocess_input")
def preprocess_input(x, data_format=None):
    """Caffe-style preprocessing (RGB to BGR, ImageNet means subtracted)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


@tf_export("keras.applications.vgg19.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
