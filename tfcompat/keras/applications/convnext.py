"""`tf.keras.applications.convnext`: ConvNeXtTiny/Small/Base/Large/XLarge (Keras 2.15).

The published models use no stochastic depth (drop_path_rate 0), so each block ends in
Keras' linear `Activation` ('..._identity'); the residual sum is tensor arithmetic on Keras
tensors (a weightless op layer, named `tf_op_layer_*` here, `tf.__operators__.add` in Keras).
Where we differ: the weights of the stem and downsampling `Sequential` blocks are named
under the block's name ('convnext_tiny_stem/convnext_tiny_stem_conv/kernel:0'), Keras 2
names them after the inner layer only; `.h5` weights load by layer, so Keras' files load.
"""
from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.keras.engine.sequential import Sequential
from tfcompat.keras.layers.convolutional import Conv2D
from tfcompat.keras.layers.core import Activation, Dense
from tfcompat.keras.layers.normalization import LayerNormalization
from tfcompat.keras.layers.pooling import GlobalAveragePooling2D
from tfcompat.keras.layers.preprocessing.normalization import Normalization
from tfcompat.keras.utils.layer_utils import get_source_inputs
from tfcompat.ops.init_ops import Constant

BASE_WEIGHTS_PATH = imagenet_utils.WEIGHTS_ORIGIN + "convnext/"
# size -> (blocks per stage, channels per stage, sha256 of the top / no-top weights files
# of the model of that size named convnext_<size>)
MODEL_CONFIGS = {
    "tiny": ((3, 3, 9, 3), (96, 192, 384, 768), (
        "8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff",
        "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1")),
    "small": ((3, 3, 27, 3), (96, 192, 384, 768), (
        "ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c",
        "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab")),
    "base": ((3, 3, 27, 3), (128, 256, 512, 1024), (
        "52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6",
        "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45")),
    "large": ((3, 3, 27, 3), (192, 384, 768, 1536), (
        "070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6",
        "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd")),
    "xlarge": ((3, 3, 27, 3), (256, 512, 1024, 2048), (
        "c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee",
        "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05")),
}


class LayerScale(Layer):
    """Multiplies the channels by a learned `gamma` (initialised to `init_values`)."""

    def __init__(self, init_values, projection_dim, **kwargs):
        super(LayerScale, self).__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, input_shape):
        self.gamma = self.add_weight(name="gamma", shape=(self.projection_dim,),
                                     initializer=Constant(self.init_values),
                                     trainable=True)
        self.built = True

    def call(self, x):
        return x * self.gamma

    def get_config(self):
        config = super(LayerScale, self).get_config()
        config.update({"init_values": self.init_values,
                       "projection_dim": self.projection_dim})
        return config


def convnext_block(x, projection_dim, layer_scale_init_value, name):
    """Depthwise 7x7 (grouped) convolution, LayerNorm, an MLP on the channels, LayerScale,
    plus the input."""
    inputs = x
    x = Conv2D(filters=projection_dim, kernel_size=7, padding="same", groups=projection_dim,
               name=name + "_depthwise_conv")(x)
    x = LayerNormalization(epsilon=1e-6, name=name + "_layernorm")(x)
    x = Dense(4 * projection_dim, name=name + "_pointwise_conv_1")(x)
    x = Activation("gelu", name=name + "_gelu")(x)
    x = Dense(projection_dim, name=name + "_pointwise_conv_2")(x)
    if layer_scale_init_value is not None:
        x = LayerScale(layer_scale_init_value, projection_dim, name=name + "_layer_scale")(x)
    return inputs + Activation("linear", name=name + "_identity")(x)


def ConvNeXt(size, model_name, include_preprocessing=True, include_top=True, weights=None,
             input_tensor=None, input_shape=None, pooling=None, classes=1000,
             classifier_activation="softmax", layer_scale_init_value=1e-6):
    """Keras' ConvNeXt builder for the configuration `MODEL_CONFIGS[size]`."""
    depths, projection_dims, hashes = MODEL_CONFIGS[size]
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=backend.image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    inputs = img_input if input_tensor is None \
        else get_source_inputs(input_tensor)[0]
    x = inputs
    if include_preprocessing and input_shape[imagenet_utils.channel_axis() - 1] == 3:
        x = Normalization(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                          variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2,
                                    (0.225 * 255) ** 2],
                          name=model_name + "_prestem_normalization")(x)
    downsample_layers = [Sequential(
        [Conv2D(projection_dims[0], kernel_size=4, strides=4, name=model_name + "_stem_conv"),
         LayerNormalization(epsilon=1e-6, name=model_name + "_stem_layernorm")],
        name=model_name + "_stem")]
    for i in range(3):
        downsample_layers.append(Sequential(
            [LayerNormalization(epsilon=1e-6, name=model_name + "_downsampling_layernorm_%d" % i),
             Conv2D(projection_dims[i + 1], kernel_size=2, strides=2,
                    name=model_name + "_downsampling_conv_%d" % i)],
            name=model_name + "_downsampling_block_%d" % i))
    for i, downsample in enumerate(downsample_layers):
        x = downsample(x)
        for j in range(depths[i]):
            x = convnext_block(x, projection_dims[i], layer_scale_init_value,
                               name=model_name + "_stage_%d_block_%d" % (i, j))
    if include_top:
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = GlobalAveragePooling2D(name=model_name + "_head_gap")(x)
        x = LayerNormalization(epsilon=1e-6, name=model_name + "_head_layernorm")(x)
        x = Dense(classes, activation=classifier_activation,
                  name=model_name + "_head_dense")(x)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=False)
        x = LayerNormalization(epsilon=1e-6)(x)
    file_name = model_name + (".h5" if include_top else "_notop.h5")
    return imagenet_utils.finish_model(
        None, inputs, x, model_name, weights,
        (file_name, BASE_WEIGHTS_PATH + file_name, hashes[0 if include_top else 1]))


def _variant(name, size):
    def builder(model_name="convnext_" + size, include_top=True, include_preprocessing=True,
                weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax"):
        return ConvNeXt(size, model_name, include_preprocessing, include_top, weights, input_tensor,
                        input_shape, pooling, classes, classifier_activation)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = ("%s (Keras 2): takes raw [0, 255] pixels (the model normalizes them "
                       "unless include_preprocessing=False)." % name)
    return tf_export("keras.applications.convnext." + name, "keras.applications." + name)(
        builder)


ConvNeXtTiny = _variant("ConvNeXtTiny", "tiny")
ConvNeXtSmall = _variant("ConvNeXtSmall", "small")
ConvNeXtBase = _variant("ConvNeXtBase", "base")
ConvNeXtLarge = _variant("ConvNeXtLarge", "large")
ConvNeXtXLarge = _variant("ConvNeXtXLarge", "xlarge")


@tf_export("keras.applications.convnext.preprocess_input")
def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: ConvNeXt models normalize their inputs themselves."""
    return x


@tf_export("keras.applications.convnext.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
