"""`tf.keras` (Keras 2 semantics); the registry fills this namespace."""
__version__ = "2.2.4-tf"

from tfcompat.keras import activations, backend, constraints, regularizers  # noqa: E402,F401
from tfcompat.keras.engine import base_layer, input_layer, network  # noqa: E402,F401
from tfcompat.keras.engine import sequential, training  # noqa: E402,F401
from tfcompat.keras.layers import (advanced_activations, convolutional, core,  # noqa: E402,F401
                                   embeddings, merge, normalization, pooling, recurrent,
                                   serialization, wrappers)
from tfcompat.keras import models  # noqa: E402,F401
from tfcompat.keras.utils import data_utils, generic_utils, layer_utils, np_utils  # noqa: E402,F401
from tfcompat.keras.utils import vis_utils  # noqa: E402,F401
from tfcompat.keras import saving  # noqa: E402,F401
from tfcompat.keras import mixed_precision  # noqa: E402,F401
