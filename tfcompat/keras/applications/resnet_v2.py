"""`tf.keras.applications.resnet_v2`: ResNet50V2, ResNet101V2, ResNet152V2 (Keras 2.15)."""
from tfcompat._api import tf_export
from tfcompat.keras.applications import imagenet_utils, resnet


def _v2_stacks(block_counts):
    def stack_fn(x):
        x = resnet.stack2(x, 64, block_counts[0], name="conv2")
        x = resnet.stack2(x, 128, block_counts[1], name="conv3")
        x = resnet.stack2(x, 256, block_counts[2], name="conv4")
        return resnet.stack2(x, 512, block_counts[3], stride1=1, name="conv5")
    return stack_fn


@tf_export("keras.applications.resnet_v2.ResNet50V2", "keras.applications.ResNet50V2")
def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
               pooling=None, classes=1000, classifier_activation="softmax"):
    """ResNet50V2 (Keras 2)."""
    return resnet.ResNet(_v2_stacks((3, 4, 6, 3)), True, True, "resnet50v2", include_top,
                         weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation=classifier_activation)


@tf_export("keras.applications.resnet_v2.ResNet101V2", "keras.applications.ResNet101V2")
def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax"):
    """ResNet101V2 (Keras 2)."""
    return resnet.ResNet(_v2_stacks((3, 4, 23, 3)), True, True, "resnet101v2", include_top,
                         weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation=classifier_activation)


@tf_export("keras.applications.resnet_v2.ResNet152V2", "keras.applications.ResNet152V2")
def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax"):
    """ResNet152V2 (Keras 2)."""
    return resnet.ResNet(_v2_stacks((3, 8, 36, 3)), True, True, "resnet152v2", include_top,
                         weights, input_tensor, input_shape, pooling, classes,
                         classifier_activation=classifier_activation)


@tf_export("keras.applications.resnet_v2.preprocess_input")
def preprocess_input(x, data_format=None):
    """Scales pixels to [-1, 1] ("tf" mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


@tf_export("keras.applications.resnet_v2.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
