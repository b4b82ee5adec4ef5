"""Keras 2 dtype rules: layers cast floating inputs to their dtype, Dense casts any input,
graph networks cast to their Inputs' dtypes, `dtype=` and `set_floatx` choose the dtype when
a layer is made; TF1 layers take their first input's dtype. Values against numpy."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api
from tfcompat.keras import backend as K

layers = tf.keras.layers
RNG = np.random.RandomState(0)


@pytest.fixture(autouse=True)
def keras2():
    previous = _api.flavor()
    _api.set_flavor("v2")
    K.clear_session()
    yield
    K.set_floatx("float32")
    _api.set_flavor(previous)


def dense_reference(layer, x, dtype):
    kernel, bias = (w.numpy() for w in layer.weights)
    assert kernel.dtype == dtype and bias.dtype == dtype
    return np.asarray(x).astype(dtype) @ kernel + bias


class SeesDtypes(layers.Layer):
    """Records the dtypes its call receives."""

    def call(self, inputs, extra=None):
        self.seen = (inputs.dtype.name, None if extra is None else extra.dtype.name)
        return inputs


# ---------------------------------------------------------------- casting in layer calls


@pytest.mark.parametrize("make_input", [
    lambda x: x, tf.constant, lambda x: x.astype(np.int64), lambda x: tf.constant(x, tf.int32),
    lambda x: tf.Variable(x)], ids=["numpy-f64", "tensor-f64", "numpy-i64", "tensor-i32",
                                    "variable-f64"])
def test_dense_casts_inputs_to_float32(make_input):
    x = np.round(RNG.uniform(-3, 3, size=(4, 5)))
    layer = layers.Dense(3, bias_initializer="ones")
    out = layer(make_input(x))
    assert out.dtype == tf.float32 and layer.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), dense_reference(layer, x, np.float32), rtol=1e-6,
                               atol=1e-5)


def test_dense_with_dtype_float64_computes_in_float64():
    x = RNG.rand(4, 5).astype(np.float32)
    layer = layers.Dense(3, dtype="float64", bias_initializer="ones")
    out = layer(tf.constant(x))
    assert layer.dtype == "float64" and out.dtype == tf.float64
    np.testing.assert_allclose(out.numpy(), dense_reference(layer, x, np.float64), rtol=1e-12)
    assert layers.Dense(2, dtype=tf.float64).dtype == "float64"


@pytest.mark.parametrize("make_layer, shape", [
    (lambda: layers.Conv1D(2, 3), (2, 6, 4)), (lambda: layers.LSTM(3), (2, 5, 4)),
    (lambda: layers.GRU(3), (2, 5, 4)), (lambda: layers.BatchNormalization(), (3, 4))],
    ids=["Conv1D", "LSTM", "GRU", "BatchNormalization"])
def test_float64_inputs_run_in_float32_layers(make_layer, shape):
    x = RNG.rand(*shape)
    layer = make_layer()
    out = layer(tf.constant(x))
    assert out.dtype == tf.float32
    expected = layer(tf.constant(x.astype(np.float32)))
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)


def test_only_floating_first_argument_is_cast():
    layer = SeesDtypes()
    layer(tf.constant(RNG.rand(2, 2)), tf.constant(RNG.rand(2, 2)))
    assert layer.seen == ("float32", "float64")
    layer(tf.constant([[1, 2]], dtype=tf.int64))
    assert layer.seen == ("int64", None)
    layer(np.arange(4).reshape(2, 2))
    assert layer.seen == ("int64", None)
    no_autocast = SeesDtypes(autocast=False)
    no_autocast(tf.constant(RNG.rand(2, 2)))
    assert no_autocast.seen == ("float64", None)
    integer_layer = SeesDtypes(dtype="int32")
    integer_layer(tf.constant(RNG.rand(2, 2)))
    assert integer_layer.seen == ("float64", None)


def test_embedding_takes_integer_inputs_of_any_width():
    layer = layers.Embedding(10, 3)
    ids = np.array([[1, 7], [0, 9]], dtype=np.int64)
    out = layer(ids)
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), layer.embeddings.numpy()[ids])


# ---------------------------------------------------------------- floatx


def test_set_floatx_float64_makes_new_layers_float64():
    before = layers.Dense(2)
    K.set_floatx("float64")
    assert K.floatx() == "float64"
    after = layers.Dense(2, bias_initializer="ones")
    x = RNG.rand(3, 4).astype(np.float32)
    out = after(tf.constant(x))
    assert after.dtype == "float64" and out.dtype == tf.float64
    np.testing.assert_allclose(out.numpy(), dense_reference(after, x, np.float64), rtol=1e-12)
    assert before(tf.constant(x)).dtype == tf.float32  # a layer keeps the dtype it was made with
    assert layers.Input((4,)).dtype == tf.float64


def test_set_floatx_float64_trains_and_predicts_in_float64():
    K.set_floatx("float64")
    model = tf.keras.Sequential([layers.Dense(4, activation="relu", input_shape=(3,)),
                                 layers.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    x = RNG.rand(32, 3)
    y = x.sum(axis=1, keepdims=True)
    history = model.fit(x, y, epochs=5, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    predictions = model.predict(x)
    assert predictions.dtype == np.float64
    assert all(w.dtype == tf.float64 for w in model.weights)
    hidden = np.maximum(x @ model.weights[0].numpy() + model.weights[1].numpy(), 0)
    np.testing.assert_allclose(predictions, hidden @ model.weights[2].numpy()
                               + model.weights[3].numpy(), rtol=1e-10)


def test_invalid_floatx_raises():
    with pytest.raises(ValueError, match="Unknown floatx type"):
        K.set_floatx("float8")


# ---------------------------------------------------------------- models


def test_predict_and_fit_take_int64_arrays_into_float_models():
    x = np.arange(12, dtype=np.int64).reshape(4, 3)
    y = np.ones((4, 1), np.float32)
    with_shape = tf.keras.Sequential([layers.Dense(1, input_shape=(3,))])
    conv = tf.keras.Sequential([layers.Reshape((3, 1), input_shape=(3,)),
                                layers.Conv1D(1, 2, kernel_initializer="ones"),
                                layers.Flatten()])
    deferred = tf.keras.Sequential([layers.Dense(1)])
    predictions = [model.predict(x) for model in (with_shape, conv, deferred)]
    assert all(p.dtype == np.float32 for p in predictions)
    np.testing.assert_allclose(predictions[0], dense_reference(with_shape.layers[0], x,
                                                               np.float32), rtol=1e-5)
    np.testing.assert_allclose(predictions[1], x[:, :-1] + x[:, 1:])
    np.testing.assert_allclose(predictions[2], dense_reference(deferred.layers[0], x,
                                                               np.float32), rtol=1e-5)
    for model in (with_shape, conv, deferred):
        model.compile("sgd", "mse")
        model.fit(x, y, verbose=0)
        assert np.isfinite(model.evaluate(x, y, verbose=0))


def test_functional_model_casts_inputs_to_its_inputs_dtypes():
    inputs = layers.Input((3,), dtype="float64")
    dense = layers.Dense(2, dtype="float64", bias_initializer="ones")
    model = tf.keras.Model(inputs, dense(inputs))
    x = RNG.rand(4, 3)
    out = model(x)   # a graph network does not cast to float32 first
    assert out.dtype == tf.float64
    np.testing.assert_allclose(out.numpy(), dense_reference(dense, x, np.float64), rtol=1e-12)
    ints = model(tf.constant(np.arange(12).reshape(4, 3), tf.int32))
    np.testing.assert_allclose(ints.numpy(), dense_reference(
        dense, np.arange(12).reshape(4, 3), np.float64), rtol=1e-12)

    float_inputs = layers.Input((3,))
    seen = SeesDtypes()
    seeing = tf.keras.Model(float_inputs, seen(float_inputs))
    seeing(np.arange(6, dtype=np.int64).reshape(2, 3))
    assert seen.seen == ("float32", None)


def test_subclassed_model_autocasts_floating_inputs():
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.probe = SeesDtypes()

        def call(self, inputs):
            return self.probe(inputs)
    net = Net()
    net(tf.constant(RNG.rand(2, 3)))
    assert net.probe.seen == ("float32", None)


# ---------------------------------------------------------------- TF1


def test_tf1_layer_takes_its_first_inputs_dtype():
    _api.set_flavor("v1")
    layer = layers.Dense(2)
    x = RNG.rand(3, 4)
    out = layer(tf.constant(x))
    assert layer.dtype == "float64" and out.dtype == tf.float64
    np.testing.assert_allclose(out.numpy(), dense_reference(layer, x, np.float64), rtol=1e-12)
