"""`tf.keras.layers`: the layer classes, and `serialize` / `deserialize`."""
from tfcompat._api import tf_export
from tfcompat.keras.engine.base_layer import InputSpec, Layer
from tfcompat.keras.engine.input_layer import Input, InputLayer
from tfcompat.keras.layers.advanced_activations import (ELU, LeakyReLU, PReLU, ReLU, Softmax,
                                                        ThresholdedReLU)
from tfcompat.keras.layers.convolutional import (
    Conv1D, Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose, Cropping1D, Cropping2D,
    Cropping3D, DepthwiseConv2D, SeparableConv2D, UpSampling1D, UpSampling2D, UpSampling3D,
    ZeroPadding1D, ZeroPadding2D, ZeroPadding3D)
from tfcompat.keras.layers.core import (Activation, ActivityRegularization, Dense, Dropout,
                                        Flatten, Lambda, Masking, Permute, RepeatVector,
                                        Reshape)
from tfcompat.keras.layers.embeddings import Embedding
from tfcompat.keras.layers.merge import (Add, Average, Concatenate, Dot, Maximum, Minimum,
                                         Multiply, Subtract, add, average, concatenate, dot,
                                         maximum, minimum, multiply, subtract)
from tfcompat.keras.layers.normalization import BatchNormalization, LayerNormalization
from tfcompat.keras.layers.pooling import (
    AveragePooling1D, AveragePooling2D, AveragePooling3D, GlobalAveragePooling1D,
    GlobalAveragePooling2D, GlobalAveragePooling3D, GlobalMaxPooling1D, GlobalMaxPooling2D,
    GlobalMaxPooling3D, MaxPooling1D, MaxPooling2D, MaxPooling3D)
from tfcompat.keras.layers.recurrent import (GRU, LSTM, RNN, AbstractRNNCell, GRUCell,
                                             LSTMCell, SimpleRNN, SimpleRNNCell,
                                             StackedRNNCells)
from tfcompat.keras.layers.wrappers import Bidirectional, TimeDistributed, Wrapper
from tfcompat.keras.engine.training import Model
from tfcompat.keras.utils.generic_utils import (
    CustomObjectScope, from_config_with_custom_objects, get_registered_object)

MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D


def _layer_classes():
    classes = {}
    for value in list(globals().values()):
        if isinstance(value, type) and issubclass(value, Layer):
            classes[value.__name__] = value
    from tfcompat.keras.engine.sequential import Sequential
    classes.update({"Sequential": Sequential, "Model": Model, "Functional": Model})
    return classes


@tf_export("keras.layers.serialize")
def serialize(layer):
    """{"class_name": ..., "config": layer.get_config()}."""
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


@tf_export("keras.layers.deserialize")
def deserialize(config, custom_objects=None):
    """A layer (or model) from `serialize()` output."""
    if not isinstance(config, dict) or not isinstance(config.get("config"), (dict, list)):
        raise ValueError("A layer config is a dict {'class_name': ..., 'config': ...}, not "
                         "%.200r" % (config,))
    name = config.get("class_name")
    cls = get_registered_object(name, custom_objects, _layer_classes())
    if cls is None:
        raise ValueError("Unknown layer: %s. Please ensure this object is passed to the "
                         "`custom_objects` argument." % (name,))
    with CustomObjectScope(custom_objects or {}):  # names in the layer's own config too
        return from_config_with_custom_objects(cls, config["config"], custom_objects)


__all__ = [name for name in dir() if not name.startswith("_")]
