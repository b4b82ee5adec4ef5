"""Keras 2 preprocessing layers (`tf.keras.layers.Normalization`, `TextVectorization`, ...,
and their `tf.keras.layers.experimental.preprocessing` aliases)."""
from tfcompat.keras.layers.preprocessing import (image_preprocessing, normalization,  # noqa: F401
                                                 preprocessing_layer)
