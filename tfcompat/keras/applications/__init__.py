"""`tf.keras.applications` (Keras 2.15 architectures); the registry fills the namespaces."""
from tfcompat.keras.applications import (convnext, densenet, efficientnet,  # noqa: F401
                                         imagenet_utils, inception_resnet_v2, inception_v3,
                                         mobilenet, mobilenet_v2, mobilenet_v3, regnet, resnet,
                                         resnet_v2, vgg16, vgg19, xception)
