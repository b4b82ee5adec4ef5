"""tf.keras.applications against real tf.keras 2 (fixtures made by
tests/fixtures/keras_applications/make_fixtures.py): layer names, classes, output shapes and
parameter counts, weight names and shapes, predictions with the same deterministic weights,
an `.h5` file saved by Keras, `summary()`, preprocessing, and the 'imagenet' weights lookup."""
import gzip
import json
import os

import numpy as np
import pytest

import tfcompat as tf
import tfcompat.keras  # noqa: F401
from tfcompat.keras.applications import imagenet_utils

pytestmark = pytest.mark.usefixtures("fresh_names")

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                    "keras_applications")
with gzip.open(os.path.join(HERE, "models.json.gz")) as _f:
    EXPECTED = json.load(_f)
MODEL_KEYS = [key for key in EXPECTED if "builder" in EXPECTED[key]]
OP_LAYER = "<op layer>"


def deterministic_weights(weights):
    """Mirror of make_fixtures.deterministic_weights."""
    values = []
    for index, weight in enumerate(weights):
        shape = tuple(weight.shape.as_list())
        size = int(np.prod(shape))
        wave = np.sin(np.arange(size, dtype=np.float64) * 0.618 + index).reshape(shape)
        name = weight.name.split(":")[0]
        if name.endswith("count"):
            values.append(np.asarray(tf.keras.backend.get_value(weight)))
            continue
        if name.endswith("variance"):
            value = 1.0 + 0.5 * np.abs(wave)
        elif name.endswith("gamma"):
            value = 1.0 + 0.1 * wave
        elif name.endswith(("beta", "mean", "bias")):
            value = 0.1 * wave
        else:
            fan_in = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
            if "depthwise" in name or "dwconv" in name:
                fan_in = int(np.prod(shape[:2]))
            value = wave * np.sqrt(2.0 / max(fan_in, 1))
        values.append(value.astype(np.float32))
    return values


def fixed_image(h, w):
    return (np.cos(np.arange(2 * h * w * 3, dtype=np.float64) * 0.37) * 2.0).reshape(
        2, h, w, 3).astype(np.float32)


def set_deterministic_weights(model):
    weights = model.weights
    tf.keras.backend.batch_set_value(list(zip(weights, deterministic_weights(weights))))


def build(key):
    expected = EXPECTED[key]
    kwargs = dict(expected["kwargs"])
    if "input_shape" in kwargs:
        kwargs["input_shape"] = tuple(kwargs["input_shape"])
    return getattr(tf.keras.applications, expected["builder"])(weights=None, **kwargs)


def as_json(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("key", MODEL_KEYS)
def test_architecture_and_predictions_match_keras(key):
    """Layers, weights, counts; for the small configurations also the predictions with
    the same deterministic weights."""
    expected = EXPECTED[key]
    model = build(key)
    assert model.name == expected["name"]
    layers = [[layer.name, type(layer).__name__, as_json(layer.output_shape),
               layer.count_params()] for layer in model.layers]
    # Keras 2 gives an InputLayer's output_shape as a list of one shape; tfcompat the shape.
    layers[0][2] = [layers[0][2]]
    # Tensor arithmetic on Keras tensors: Keras' TFOpLambda layers are named after the TF
    # function (tf.math.multiply), tfcompat's TensorFlowOpLayer after the op.
    expected_layers = [[OP_LAYER, OP_LAYER] + entry[2:] if entry[1] == "TFOpLambda" else entry
                       for entry in expected["layers"]]
    layers = [[OP_LAYER, OP_LAYER] + entry[2:] if entry[1] == "TensorFlowOpLayer" else entry
              for entry in layers]
    assert [entry[0] for entry in layers] == [entry[0] for entry in expected_layers]
    assert layers == expected_layers
    # Where we differ: the weights of a nested model (ConvNeXt's Sequential blocks) are
    # named under its name scope ('convnext_tiny_stem/convnext_tiny_stem_conv/kernel:0');
    # Keras 2 names them 'convnext_tiny_stem_conv/kernel:0'. Loading goes by layer either way.
    names = [w.name for w in model.weights]
    nested = [layer.name + "/" for layer in model.layers if isinstance(layer, tf.keras.Model)]
    names = [next((name[len(prefix):] for prefix in nested if name.startswith(prefix)), name)
             for name in names]
    assert [[name, w.shape.as_list()] for name, w in zip(names, model.weights)] \
        == expected["weights"]
    assert len(model.weights) == len(expected["weights"])
    assert sum(int(np.prod(w.shape.as_list())) for w in model.trainable_weights) \
        == expected["trainable"]
    assert sum(int(np.prod(w.shape.as_list())) for w in model.non_trainable_weights) \
        == expected["non_trainable"]
    if "prediction" in expected:
        set_deterministic_weights(model)
        image = fixed_image(*model.input_shape[1:3])
        np.testing.assert_allclose(model.predict(image, verbose=0), expected["prediction"],
                                   rtol=1e-4, atol=1e-4)


def test_keras_h5_weights_load_and_summary():
    model = tf.keras.applications.MobileNet(alpha=0.25, input_shape=(32, 32, 3), classes=10,
                                            weights=os.path.join(HERE, "mobilenet_small.h5"))
    np.testing.assert_allclose(model.predict(fixed_image(32, 32), verbose=0),
                               EXPECTED["mobilenet_small"]["prediction"], rtol=1e-4,
                               atol=1e-5)
    lines = []
    model.summary(print_fn=lines.append, line_length=120)
    with open(os.path.join(HERE, "summary.txt")) as f:
        assert "\n".join(lines) + "\n" == f.read()


@pytest.mark.parametrize("key", ["mobilenet_v2_small", "efficientnetb0_small",
                                 "mobilenet_v3_small_32", "convnext_tiny_small"])
def test_graph_mode_matches_keras(key):
    with tf.Graph().as_default():
        model = build(key)
        set_deterministic_weights(model)
        prediction = model.predict(fixed_image(*model.input_shape[1:3]), verbose=0)
    np.testing.assert_allclose(prediction, EXPECTED[key]["prediction"], rtol=1e-4, atol=1e-4)


def test_input_tensor_and_pooling():
    inputs = tf.keras.Input((40, 40, 3))
    model = tf.keras.applications.ResNet50V2(include_top=False, weights=None,
                                             input_tensor=inputs, pooling="max")
    assert model.inputs[0] is inputs
    assert model.output_shape == (None, 2048)
    assert model.layers[-1].name == "max_pool"
    model = tf.keras.applications.VGG16(include_top=False, weights=None, pooling="avg")
    assert model.input_shape == (None, None, None, 3)
    assert model.output_shape == (None, 512)


def test_argument_errors_are_keras_errors():
    with pytest.raises(ValueError, match="`weights` argument should be either"):
        tf.keras.applications.ResNet50(weights="no/such/file.h5")
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        tf.keras.applications.VGG16(weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="Input size must be at least 32x32"):
        tf.keras.applications.MobileNetV2(include_top=False, weights=None,
                                          input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="should specify a static `input_shape`"):
        tf.keras.applications.ResNet50(weights=None, input_shape=(None, None, 3))
    with pytest.raises(ValueError, match="Only `None` and `softmax` activations"):
        tf.keras.applications.DenseNet121(weights="imagenet", classifier_activation="relu")


def test_imagenet_weights_come_from_the_keras_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(IOError) as error:
        tf.keras.applications.MobileNet(alpha=0.25, input_shape=(128, 128, 3),
                                        weights="imagenet", include_top=False)
    message = str(error.value)
    assert "mobilenet_2_5_128_tf_no_top.h5" in message
    assert ("https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"
            "mobilenet_2_5_128_tf_no_top.h5") in message
    assert "weights=" in message


def test_preprocess_input_modes():
    x = np.arange(12, dtype=np.float32).reshape(2, 2, 3) * 20.0
    for mode in ("caffe", "tf", "torch"):
        expected = EXPECTED["preprocess"][mode]
        np.testing.assert_allclose(imagenet_utils.preprocess_input(x.copy(), mode=mode),
                                   expected, rtol=1e-6)
        tensor = imagenet_utils.preprocess_input(tf.constant(x), mode=mode)
        np.testing.assert_allclose(tensor.numpy(), expected, rtol=1e-5, atol=1e-5)
    first = x.reshape(1, 3, 2, 2)
    np.testing.assert_allclose(
        imagenet_utils.preprocess_input(first.copy(), data_format="channels_first"),
        EXPECTED["preprocess_channels_first"], rtol=1e-6)
    np.testing.assert_allclose(
        imagenet_utils.preprocess_input(tf.constant(first),
                                        data_format="channels_first").numpy(),
        EXPECTED["preprocess_channels_first"], rtol=1e-5)
    applications = tf.keras.applications
    np.testing.assert_allclose(applications.resnet50.preprocess_input(x.copy()),
                               EXPECTED["preprocess"]["caffe"], rtol=1e-6)
    np.testing.assert_allclose(applications.mobilenet_v2.preprocess_input(x.copy()),
                               EXPECTED["preprocess"]["tf"], rtol=1e-6)
    np.testing.assert_allclose(applications.densenet.preprocess_input(x.copy()),
                               EXPECTED["preprocess"]["torch"], rtol=1e-6)
    assert applications.efficientnet.preprocess_input(x) is x
    with pytest.raises(ValueError, match="Expected mode to be one of"):
        imagenet_utils.preprocess_input(x, mode="other")


def test_decode_predictions(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    os.makedirs(tmp_path / "models")
    index = {str(i): ["n%08d" % i, "class_%d" % i] for i in range(1000)}
    (tmp_path / "models" / "imagenet_class_index.json").write_text(json.dumps(index))
    monkeypatch.setattr(imagenet_utils, "_CLASS_INDEX_HASH", None)
    monkeypatch.setattr(imagenet_utils, "_class_index", None)
    preds = np.zeros((2, 1000), np.float32)
    preds[0, [3, 7, 9]] = [0.2, 0.5, 0.3]
    preds[1, 999] = 1.0
    decoded = tf.keras.applications.vgg16.decode_predictions(preds, top=3)
    assert [entry[:2] for entry in decoded[0]] == [("n00000007", "class_7"),
                                                   ("n00000009", "class_9"),
                                                   ("n00000003", "class_3")]
    assert decoded[1][0][1] == "class_999" and decoded[1][0][2] == 1.0
    with pytest.raises(ValueError, match="expects a batch of predictions"):
        tf.keras.applications.resnet.decode_predictions(np.zeros((2, 10)))
