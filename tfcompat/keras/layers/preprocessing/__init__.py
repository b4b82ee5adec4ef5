"""Keras 2 preprocessing layers (`tf.keras.layers.Normalization`, `TextVectorization`, ...,
and their `tf.keras.layers.experimental.preprocessing` aliases)."""
from tfcompat.keras.layers.preprocessing import (category_encoding, discretization,  # noqa: F401
                                                 hashing, image_preprocessing,
                                                 index_lookup, integer_lookup, normalization,
                                                 preprocessing_layer, string_lookup,
                                                 text_vectorization)
