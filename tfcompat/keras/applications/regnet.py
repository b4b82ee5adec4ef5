"""`tf.keras.applications.regnet`: RegNetX002-X320 and RegNetY002-Y320 (Keras 2.15).

As in Keras 2.15, the classifier Dense has no activation (`classifier_activation` is only
validated: the models output logits), and the head's layers are named after a counter
(`1_head_gap`, `1head_dense` in a fresh session). The tensor arithmetic of the blocks
(`x + skip`, the squeeze-excite product) makes weightless op layers, named `tf_op_layer_*`
here where Keras says `tf.__operators__.add` / `tf.math.multiply`.
"""
from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.keras.applications import imagenet_utils
from tfcompat.keras.layers.advanced_activations import ReLU
from tfcompat.keras.layers.convolutional import Conv2D
from tfcompat.keras.layers.core import Dense
from tfcompat.keras.layers.normalization import BatchNormalization
from tfcompat.keras.layers.pooling import GlobalAveragePooling2D
from tfcompat.keras.layers.preprocessing.image_preprocessing import Rescaling
from tfcompat.keras.utils.layer_utils import get_source_inputs
from tfcompat.ops import math_ops

BASE_WEIGHTS_PATH = imagenet_utils.WEIGHTS_ORIGIN + "regnet/"
# variant -> (block type, blocks per stage, channels per stage, group width, default size,
#             sha256 of the top / no-top weights files)
_CONFIGS = {
    "x002": ("X", (1, 1, 4, 7), (24, 56, 152, 368), 8, 224,
             ("49fb46e56cde07fdaf57bffd851461a86548f6a3a4baef234dd37290b826c0b8",
              "5445b66cd50445eb7ecab094c1e78d4d3d29375439d1a7798861c4af15ffff21")),
    "x004": ("X", (1, 2, 7, 12), (32, 64, 160, 384), 16, 224,
             ("3523c7f5ac0dbbcc2fd6d83b3570e7540f7449d3301cc22c29547302114e4088",
              "de139bf07a66c9256f2277bf5c1b6dd2d5a3a891a5f8a925a10c8a0a113fd6f3")),
    "x006": ("X", (1, 3, 5, 7), (48, 96, 240, 528), 24, 224,
             ("340216ef334a7bae30daac9f414e693c136fac9ab868704bbfcc9ce6a5ec74bb",
              "a43ec97ad62f86b2a96a783bfdc63a5a54de02eef54f26379ea05e1bf90a9505")),
    "x008": ("X", (1, 3, 7, 5), (64, 128, 288, 672), 16, 224,
             ("8f145d6a5fae6da62677bb8d26eb92d0b9dfe143ec1ebf68b24a57ae50a2763d",
              "3c7e4b0917359304dc18e644475c5c1f5e88d795542b676439c4a3acd63b7207")),
    "x016": ("X", (2, 4, 10, 2), (72, 168, 408, 912), 24, 224,
             ("31c386f4c7bfef4c021a583099aa79c1b3928057ba1b7d182f174674c5ef3510",
              "1b8e3d545d190271204a7b2165936a227d26b79bb7922bac5ee4d303091bf17a")),
    "x032": ("X", (2, 6, 15, 2), (96, 192, 432, 1008), 48, 224,
             ("6c025df1409e5ea846375bc9dfa240956cca87ef57384d93fef7d6fa90ca8c7f",
              "9cd4522806c0fcca01b37874188b2bd394d7c419956d77472a4e072b01d99041")),
    "x040": ("X", (2, 5, 14, 2), (80, 240, 560, 1360), 40, 224,
             ("ba128046c588a26dbd3b3a011b26cb7fa3cf8f269c184c132372cb20b6eb54c1",
              "b4ed0ca0b9a98e789e05000e830403a7ade4d8afa01c73491c44610195198afe")),
    "x064": ("X", (2, 4, 10, 1), (168, 392, 784, 1624), 56, 224,
             ("0f4489c3cd3ad979bd6b0324213998bcb36dc861d178f977997ebfe53c3ba564",
              "3e706fa416a18dfda14c713423eba8041ae2509db3e0a611d5f599b5268a46c4")),
    "x080": ("X", (2, 5, 15, 1), (80, 240, 720, 1920), 120, 224,
             ("76320e43272719df648db37271a247c22eb6e810fe469c37a5db7e2cb696d162",
              "7b1ce8e29ceefec10a6569640ee329dba7fbc98b5d0f6346aabade058b66cf29")),
    "x120": ("X", (2, 5, 11, 1), (224, 448, 896, 2240), 112, 224,
             ("5cafc461b78897d5e4f24e68cb406d18e75f31105ef620e7682b611bb355eb3a",
              "36174ddd0299db04a42631d028abcb1cc7afec2b705e42bd28fcd325e5d596bf")),
    "x160": ("X", (2, 6, 13, 1), (256, 512, 896, 2048), 128, 224,
             ("8093f57a5824b181fb734ea21ae34b1f7ee42c5298e63cf6d587c290973195d2",
              "9d1485050bdf19531ffa1ed7827c75850e0f2972118a996b91aa9264b088fd43")),
    "x320": ("X", (2, 7, 13, 1), (336, 672, 1344, 2520), 168, 224,
             ("91fb3e6f4e9e44b3687e80977f7f4412ee9937c0c704232664fc83e4322ea01e",
              "9db7eacc37b85c98184070e1a172e6104c00846f44bcd4e727da9e50d9692398")),
    "y002": ("Y", (1, 1, 4, 7), (24, 56, 152, 368), 8, 224,
             ("1e8091c674532b1a61c04f6393a9c570113e0197f22bd1b98cc4c4fe800c6465",
              "f63221f63d625b8e201221499682587bfe29d33f50a4c4f4d53be00f66c0f12c")),
    "y004": ("Y", (1, 3, 6, 6), (48, 104, 208, 440), 8, 224,
             ("752fdbad21c78911bf1dcb8c513e5a0e14697b068e5d9e73525dbaa416d18d8e",
              "45e6ba8309a17a77e67afc05228454b2e0ee6be0dae65edc0f31f1da10cc066b")),
    "y006": ("Y", (1, 3, 7, 4), (48, 112, 256, 608), 16, 224,
             ("98942e07b273da500ff9699a1f88aca78dfad4375faabb0bab784bb0dace80a9",
              "b70261cba4e60013c99d130cc098d2fce629ff978a445663b6fa4f8fc099a2be")),
    "y008": ("Y", (1, 3, 8, 2), (64, 128, 320, 768), 16, 224,
             ("1b099377cc9a4fb183159a6f9b24bc998e5659d25a449f40c90cbffcbcfdcae4",
              "b11f5432a216ee640fe9be6e32939defa8d08b8d136349bf3690715a98752ca1")),
    "y016": ("Y", (2, 6, 17, 2), (48, 120, 336, 888), 24, 224,
             ("b7ce1f5e223f0941c960602de922bcf846288ce7a4c33b2a4f2e4ac4b480045b",
              "d7404f50205e82d793e219afb9eb2bfeb781b6b2d316a6128c6d7d7dacab7f57")),
    "y032": ("Y", (2, 5, 13, 1), (72, 216, 576, 1512), 24, 224,
             ("6a6a545cf3549973554c9b94f0cd40e25f229fffb1e7f7ac779a59dcbee612bd",
              "eb3ac1c45ec60f4f031c3f5180573422b1cf7bebc26c004637517372f68f8937")),
    "y040": ("Y", (2, 6, 12, 2), (128, 192, 512, 1088), 64, 224,
             ("98d00118b335162bbffe8f1329e54e5c8e75ee09b2a5414f97b0ddfc56e796f6",
              "b5be2a5e5f072ecdd9c0b8a437cd896df0efa1f6a1f77e41caa8719b7dfcb05d")),
    "y064": ("Y", (2, 7, 14, 2), (144, 288, 576, 1296), 72, 224,
             ("65c948c7a18aaecaad2d1bd4fd978987425604ba6669ef55a1faa0069a2804b7",
              "885c4b7ed7ea339daca7dafa1a62cb7d41b1068897ef90a5a3d71b4a2e2db31a")),
    "y080": ("Y", (2, 4, 10, 1), (168, 448, 896, 2016), 56, 224,
             ("7a2c62da2982e369a4984d3c7c3b32d6f8d3748a71cb37a31156c436c37f3e95",
              "3d119577e1e3bf8d153b895e8ea9e4ec150ff2d92abdca711b6e949c3fd7115d")),
    "y120": ("Y", (2, 5, 11, 1), (224, 448, 896, 2240), 112, 224,
             ("a96ab0d27d3ae35a422ee7df0d789069b3e3217a99334e0ce861a96595bc5986",
              "4a6fa387108380b730b71feea2ad80b5224b5ea9dc21dc156c93fe3c6186485c")),
    "y160": ("Y", (2, 4, 11, 1), (224, 448, 1232, 3024), 112, 224,
             ("45067240ffbc7ca2591313fee2f80dbdda6d66ec1a7451446f9a6d00d8f7ac6e",
              "ead1e6b568be8f34447ec8941299a9df4368736ba9a8205de5427fa20a1fb316")),
    "y320": ("Y", (2, 5, 12, 1), (232, 696, 1392, 3712), 232, 224,
             ("b05e173e4ae635cfa22d06392ee3741284d17dadfee68f2aa6fd8cb2b7561112",
              "cad78f74a586e24c61d38be17f3ae53bb9674380174d2585da1a526b8c20e1fd")),
}


def _batch_norm(name):
    return BatchNormalization(momentum=0.9, epsilon=1e-5, name=name)


def _conv(filters, kernel_size, name, **kwargs):
    return Conv2D(filters, kernel_size, kernel_initializer="he_normal", name=name, **kwargs)


def _squeeze_and_excite(inputs, filters_in, se_filters, name):
    x = GlobalAveragePooling2D(name=name + "_squeeze_and_excite_gap", keepdims=True)(inputs)
    x = _conv(se_filters, (1, 1), name + "_squeeze_and_excite_squeeze", activation="relu")(x)
    x = _conv(filters_in, (1, 1), name + "_squeeze_and_excite_excite",
              activation="sigmoid")(x)
    return math_ops.multiply(x, inputs)


def _block(inputs, block_type, filters_in, filters_out, group_width, stride, name):
    """RegNet's X block (1x1, grouped 3x3, 1x1 plus the skip); the Y block adds
    squeeze-and-excitation (ratio 0.25 of the input filters) after the 3x3."""
    if stride != 1:
        skip = _conv(filters_out, (1, 1), name + "_skip_1x1", strides=stride,
                     use_bias=False)(inputs)
        skip = _batch_norm(name + "_skip_bn")(skip)
    else:
        skip = inputs
    x = _conv(filters_out, (1, 1), name + "_conv_1x1_1", use_bias=False)(inputs)
    x = _batch_norm(name + "_conv_1x1_1_bn")(x)
    x = ReLU(name=name + "_conv_1x1_1_relu")(x)
    x = _conv(filters_out, (3, 3), name + "_conv_3x3", use_bias=False, strides=stride,
              groups=filters_out // group_width, padding="same")(x)
    x = _batch_norm(name + "_conv_3x3_bn")(x)
    x = ReLU(name=name + "_conv_3x3_relu")(x)
    if block_type == "Y":
        x = _squeeze_and_excite(x, filters_out, int(filters_in * 0.25), name)
    x = _conv(filters_out, (1, 1), name + "_conv_1x1_2", use_bias=False)(x)
    x = _batch_norm(name + "_conv_1x1_2_bn")(x)
    return ReLU(name=name + "_exit_relu")(x + skip)


def RegNet(variant, model_name, include_preprocessing=True, include_top=True,
           weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
           classes=1000, classifier_activation="softmax"):
    """Keras' RegNet builder for `_CONFIGS[variant]`."""
    block_type, depths, widths, group_width, default_size, hashes = _CONFIGS[variant]
    imagenet_utils.check_weights_argument(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32,
        data_format=backend.image_data_format(), require_flatten=include_top,
        weights=weights)
    img_input = imagenet_utils.image_input(input_tensor, input_shape)
    inputs = img_input if input_tensor is None else get_source_inputs(input_tensor)[0]
    x = inputs
    if include_preprocessing:
        x = Rescaling(scale=1.0 / 255.0, name=model_name + "_prestem_rescaling")(x)
    x = _conv(32, (3, 3), model_name + "_stem_conv", strides=2, use_bias=False,
              padding="same")(x)
    x = _batch_norm(model_name + "_stem_bn")(x)
    x = ReLU(name=model_name + "_stem_relu")(x)
    in_channels = 32
    for stage, (depth, out_channels) in enumerate(zip(depths, widths)):
        name = "%s_Stage_%d_%sBlock_" % (model_name, stage, block_type)
        x = _block(x, block_type, in_channels, out_channels, group_width, 2, name + "0")
        for i in range(1, depth):
            x = _block(x, block_type, out_channels, out_channels, group_width, 1,
                       name + str(i))
        in_channels = out_channels
    if include_top:
        head = str(backend.get_uid("head"))
        x = GlobalAveragePooling2D(name=head + "_head_gap")(x)
        x = Dense(classes, name=head + "head_dense")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
    else:
        x = imagenet_utils.global_pooling(x, pooling, named=False)
    file_name = model_name + (".h5" if include_top else "_notop.h5")
    return imagenet_utils.finish_model(
        None, inputs, x, model_name, weights,
        (file_name, BASE_WEIGHTS_PATH + file_name, hashes[0 if include_top else 1]))


def _variant(variant):
    name = "RegNet" + variant.upper()

    def builder(model_name="regnet" + variant, include_top=True, include_preprocessing=True,
                weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax"):
        return RegNet(variant, model_name, include_preprocessing, include_top, weights,
                      input_tensor, input_shape, pooling, classes, classifier_activation)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = ("%s (Keras 2): takes raw [0, 255] pixels (the model rescales them "
                       "unless include_preprocessing=False); outputs logits." % name)
    return tf_export("keras.applications.regnet." + name, "keras.applications." + name)(
        builder)


RegNetX002 = _variant("x002")
RegNetX004 = _variant("x004")
RegNetX006 = _variant("x006")
RegNetX008 = _variant("x008")
RegNetX016 = _variant("x016")
RegNetX032 = _variant("x032")
RegNetX040 = _variant("x040")
RegNetX064 = _variant("x064")
RegNetX080 = _variant("x080")
RegNetX120 = _variant("x120")
RegNetX160 = _variant("x160")
RegNetX320 = _variant("x320")
RegNetY002 = _variant("y002")
RegNetY004 = _variant("y004")
RegNetY006 = _variant("y006")
RegNetY008 = _variant("y008")
RegNetY016 = _variant("y016")
RegNetY032 = _variant("y032")
RegNetY040 = _variant("y040")
RegNetY064 = _variant("y064")
RegNetY080 = _variant("y080")
RegNetY120 = _variant("y120")
RegNetY160 = _variant("y160")
RegNetY320 = _variant("y320")


@tf_export("keras.applications.regnet.preprocess_input")
def preprocess_input(x, data_format=None):
    """Returns `x` unchanged: RegNet models rescale their inputs themselves."""
    return x


@tf_export("keras.applications.regnet.decode_predictions")
def decode_predictions(preds, top=5):
    """See `tf.keras.applications.imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
