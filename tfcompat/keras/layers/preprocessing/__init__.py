"""Keras 2 preprocessing layers (`tf.keras.layers.Normalization`, `TextVectorization`, ...,
and their `tf.keras.layers.experimental.preprocessing` aliases)."""
from tfcompat.keras.layers.preprocessing import (category_encoding, image_preprocessing,  # noqa: F401
                                                 index_lookup, integer_lookup, normalization,
                                                 preprocessing_layer, string_lookup,
                                                 text_vectorization)
