"""`tf.keras.utils`: to_categorical, normalize, get_file, Sequence, pad_sequences, custom
objects and (de)serialization, get_source_inputs, plot_model."""
from tfcompat.keras.utils.data_utils import Sequence, get_file, pad_sequences
from tfcompat.keras.utils.generic_utils import (CustomObjectScope, Progbar,
                                                deserialize_keras_object, get_custom_objects,
                                                get_registered_name, get_registered_object,
                                                register_keras_serializable,
                                                serialize_keras_object)
from tfcompat.keras.utils.layer_utils import get_source_inputs
from tfcompat.keras.utils.np_utils import normalize, to_categorical
from tfcompat.keras.utils.vis_utils import plot_model

custom_object_scope = CustomObjectScope

__all__ = ["get_file", "Sequence", "pad_sequences", "CustomObjectScope", "custom_object_scope",
           "Progbar", "deserialize_keras_object", "serialize_keras_object",
           "get_custom_objects", "get_registered_name", "get_registered_object",
           "register_keras_serializable", "get_source_inputs", "normalize", "to_categorical",
           "plot_model"]
