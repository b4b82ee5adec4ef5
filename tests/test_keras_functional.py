"""The Keras functional API: Input, Model(inputs, outputs), re-application to real inputs,
shared layers, multiple inputs/outputs, masks, config round trips, TF1 graph mode."""
import contextlib

import numpy as np
import pytest

import tfcompat as tf
import tfcompat.keras  # noqa: F401
from tfcompat.keras import backend as K
from tfcompat.keras import layers


pytestmark = pytest.mark.usefixtures("fresh_names")


def test_input_and_functional_model():
    inputs = tf.keras.Input(shape=(8,))
    assert inputs.shape.as_list() == [None, 8] and K.is_keras_tensor(inputs)
    hidden = layers.Dense(16, activation="relu")(inputs)
    assert hidden.shape.as_list() == [None, 16]
    outputs = layers.Dense(3)(layers.Dropout(0.3)(hidden))
    model = tf.keras.Model(inputs=inputs, outputs=outputs)
    assert model.name == "model"
    assert [l.name for l in model.layers] == ["input_1", "dense", "dropout", "dense_1"]
    assert model.input_shape == (None, 8) and model.output_shape == (None, 3)
    x = np.random.rand(4, 8).astype("float32")
    w1, b1, w2, b2 = model.get_weights()
    np.testing.assert_allclose(model(x).numpy(), np.maximum(x @ w1 + b1, 0) @ w2 + b2,
                               rtol=1e-5, atol=1e-6)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x, training=True))
    assert all(g is not None for g in tape.gradient(loss, model.trainable_variables))


def test_shared_layers_multi_io_and_config():
    a = tf.keras.Input(shape=(4,), name="a")
    b = tf.keras.Input(shape=(4,), name="b")
    shared = layers.Dense(2, name="shared")
    merged = layers.concatenate([shared(a), shared(b)])
    out1 = layers.Dense(1, name="out1")(merged)
    out2 = layers.Add(name="out2")([shared(a), shared(b)])
    model = tf.keras.Model([a, b], [out1, out2])
    assert model.input_names == ["a", "b"] and model.output_names == ["out1", "out2"]
    xa, xb = np.ones((2, 4), "float32"), np.zeros((2, 4), "float32")
    y1, y2 = model([xa, xb])
    assert y1.shape.as_list() == [2, 1] and y2.shape.as_list() == [2, 2]
    y1d, _ = model({"a": xa, "b": xb})
    np.testing.assert_allclose(y1d.numpy(), y1.numpy())
    assert len(model.weights) == 4
    clone = tf.keras.Model.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    c1, c2 = clone([xa, xb])
    np.testing.assert_allclose(c1.numpy(), y1.numpy(), rtol=1e-5)
    np.testing.assert_allclose(c2.numpy(), y2.numpy(), rtol=1e-5)


def test_summary_connected_to(capsys):
    a = tf.keras.Input(shape=(3,))
    b = tf.keras.Input(shape=(3,))
    model = tf.keras.Model([a, b], layers.add([a, b]))
    model.summary()
    out = capsys.readouterr().out
    assert "Connected to" in out and "input_1[0][0]" in out and "input_2[0][0]" in out


def test_model_as_layer_and_nesting():
    inner_in = tf.keras.Input(shape=(3,))
    inner = tf.keras.Model(inner_in, layers.Dense(2)(inner_in), name="inner")
    outer_in = tf.keras.Input(shape=(3,))
    outer = tf.keras.Model(outer_in, layers.Dense(1)(inner(outer_in)))
    assert outer.output_shape == (None, 1)
    assert len(outer.weights) == 4
    assert outer(np.ones((5, 3), "float32")).shape.as_list() == [5, 1]


def test_masks_flow_through_functional_model():
    ids = tf.keras.Input(shape=(4,), dtype="int32")
    emb = layers.Embedding(10, 3, mask_zero=True)(ids)
    model = tf.keras.Model(ids, emb)
    out = model(np.array([[1, 2, 0, 0]]))
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, True, False, False]])


def test_graph_disconnected_and_bad_inputs():
    a = tf.keras.Input(shape=(2,))
    b = tf.keras.Input(shape=(2,))
    out = layers.add([a, b])
    with pytest.raises(ValueError, match="Graph disconnected"):
        tf.keras.Model(a, out)
    with pytest.raises(ValueError, match="tf.keras.Input"):
        tf.keras.Model(tf.ones((1, 2)), out)


def test_functional_model_in_tf1_graph_mode():
    with tf.Graph().as_default() as graph:
        inputs = tf.keras.Input(shape=(3,))
        hidden = layers.Dense(4)(inputs)
        scaled = tf.nn.relu(hidden) * 2.0   # TF ops between layers are re-applied too
        model = tf.keras.Model(inputs, layers.Dense(1)(scaled))
        x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        y = model(x)
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            data = np.random.rand(2, 3).astype("float32")
            direct, applied = sess.run([model.output, y], {inputs: data, x: data})
            np.testing.assert_allclose(direct, applied, rtol=1e-6)


def _eager_ops_on_keras_tensors_supported():
    """TF ops on eager-mode Keras tensors need the op decorator to record them in the Keras
    graph (a framework change proposed with this work)."""
    try:
        tf.nn.relu(tf.keras.Input(shape=(1,)))
    except TypeError:
        return False
    return True


def _op_model():
    inputs = tf.keras.Input(shape=(4,))
    hidden = layers.Dense(3, kernel_initializer="ones")(inputs)
    outputs = tf.nn.relu(hidden)[:, 1:] * 2.0 + tf.constant([1.0, -1.0])
    return tf.keras.Model(inputs, outputs)


def _check_op_model(model, run):
    """`run(model, x)` -> numpy outputs of the model on x."""
    assert [l.name for l in model.layers] == [
        "input_1", "dense", "tf_op_layer_Relu", "tf_op_layer_strided_slice",
        "tf_op_layer_mul", "tf_op_layer_add"]
    assert type(model.layers[2]).__name__ == "TensorFlowOpLayer"
    x = np.array([[1, 2, -9, 1], [-1, 0, 0, 0]], np.float32)
    w, b = model.get_weights()
    expected = np.maximum(x @ w + b, 0)[:, 1:] * 2 + [1, -1]
    np.testing.assert_allclose(run(model, x), expected, rtol=1e-6)
    rebuilt = tf.keras.Model.from_config(model.get_config())
    assert [l.name for l in rebuilt.layers] == [l.name for l in model.layers]
    rebuilt.set_weights(model.get_weights())
    np.testing.assert_allclose(run(rebuilt, x), expected, rtol=1e-6)


def test_tf_ops_on_keras_tensors_become_layers_in_graphs():
    def run(model, x):
        placeholder = tf.compat.v1.placeholder(tf.float32, [None, 4])
        output = model(placeholder)
        sess = K.get_session()
        return sess.run(output, {placeholder: x})
    with tf.Graph().as_default():
        _check_op_model(_op_model(), run)


@pytest.mark.skipif(not _eager_ops_on_keras_tensors_supported(),
                    reason="TF ops on eager Keras tensors need the framework/ops.py change")
def test_tf_ops_on_keras_tensors_become_layers_in_eager_code():
    _check_op_model(_op_model(), lambda model, x: model(x).numpy())


@pytest.mark.parametrize("graph_mode", [False, True])
def test_layers_called_on_tf_ops_of_keras_tensors_make_them_layers_first(graph_mode):
    with (tf.Graph().as_default() if graph_mode else contextlib.nullcontext()):
        inputs = tf.keras.Input(shape=(3,))
        model = tf.keras.Model(inputs, layers.Dense(1)(tf.nn.relu(inputs) + 1.0))
        assert [l.name for l in model.layers] == [
            "input_1", "tf_op_layer_Relu", "tf_op_layer_add", "dense"]
        assert [s["class_name"] for s in model.get_config()["layers"]] == [
            "InputLayer", "TensorFlowOpLayer", "TensorFlowOpLayer", "Dense"]


def test_layer_on_a_deep_chain_of_plain_graph_ops_next_to_keras_inputs():
    with tf.Graph().as_default():
        tf.keras.Input(shape=(2,))
        hidden = tf.compat.v1.placeholder(tf.float32, [None, 2])
        for _ in range(3000):   # deeper than Python's recursion limit
            hidden = hidden + 1.0
        outputs = layers.Dense(1)(hidden)
        assert not K.is_keras_tensor(outputs) and outputs.shape.as_list() == [None, 1]


def test_op_layers_using_variables_cannot_be_serialized():
    with tf.Graph().as_default():
        inputs = tf.keras.Input(shape=(2,))
        scale = tf.compat.v1.get_variable("scale", initializer=[2.0, 3.0])
        model = tf.keras.Model(inputs, inputs * scale)
        with pytest.raises(NotImplementedError, match="uses variable scale"):
            model.get_config()
        with pytest.raises(NotImplementedError, match="Lambda"):
            tf.keras.Model(inputs, tf.cond(tf.constant(True), lambda: inputs,
                                           lambda: inputs * 2.0))


def test_model_add_loss_and_add_metric_of_symbolic_tensors():
    with tf.Graph().as_default():
        inputs = tf.keras.Input(shape=(3,))
        outputs = layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros")(inputs)
        model = tf.keras.Model(inputs, outputs)
        model.add_loss(tf.reduce_mean(outputs) * 0.5)
        model.add_metric(tf.reduce_max(outputs), name="max_output")
        assert [l.name for l in model.layers] == [
            "input_1", "dense", "tf_op_layer_Mean", "tf_op_layer_mul", "add_loss",
            "tf_op_layer_Max", "add_metric"]
        assert [m.name for m in model.metrics] == ["max_output"]
        x = np.array([[1, 2, 3], [0, 0, 1]], np.float32)   # outputs: rows of 6 and 1
        model.compile(tf.keras.optimizers.SGD(0.0), "mse")
        logs = model.evaluate(x, np.zeros((2, 2), np.float32), return_dict=True, verbose=0)
        assert logs["max_output"] == pytest.approx(6.0)
        assert logs["loss"] == pytest.approx((36 + 1) / 2 + 0.5 * 3.5)
        rebuilt = tf.keras.Model.from_config(model.get_config())
        assert [l.name for l in rebuilt.layers] == [l.name for l in model.layers]
        assert [m.name for m in rebuilt.metrics] == ["max_output"]


def test_get_source_inputs():
    a = tf.keras.Input(shape=(2,))
    b = tf.keras.Input(shape=(2,))
    merged = layers.add([layers.Dense(2)(a), b])
    assert tf.keras.utils.get_source_inputs(merged) == [a, b]
