"""Keras recurrent layers: values against numpy formulas and torch.nn.LSTM/GRU/RNN with the
same weights, gradients against torch, masks, states, go_backwards, time_major, stateful
layers, v1/v2 defaults and weight names, TF1 graph mode against eager, Bidirectional,
configs, checkpoints and a model trained with fit."""
import numpy as np
import pytest
import torch

import tfcompat as tf
import tfcompat.keras  # noqa: F401
from tfcompat import _api
from tfcompat.keras import backend as K
from tfcompat.keras import layers
from tfcompat.keras.layers import recurrent

RNG = np.random.RandomState(0)
V1, V2 = tf.compat.v1.keras.layers, tf.compat.v2.keras.layers


pytestmark = pytest.mark.usefixtures("fresh_names")


@pytest.fixture
def flavor():
    previous = _api.flavor()
    yield _api.set_flavor
    _api.set_flavor(previous)


def value(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def as_list(outputs):
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def randomize(layer, scale=0.5):
    """Give a built layer random weights (biases too) and return them."""
    weights = [(RNG.randn(*w.shape) * scale).astype("float32") for w in layer.get_weights()]
    layer.set_weights(weights)
    return weights


# ---------------------------------------------------------------- numpy references


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


ACTIVATIONS = {"tanh": np.tanh, "sigmoid": sigmoid, "relu": lambda x: np.maximum(x, 0),
               "hard_sigmoid": lambda x: np.clip(0.2 * x + 0.5, 0, 1)}


def lstm_step(x, states, kernel, recurrent_kernel, bias, act, recurrent_act):
    h, c = states
    i, f, c_hat, o = np.split(x @ kernel + h @ recurrent_kernel + bias, 4, axis=1)
    c = recurrent_act(f) * c + recurrent_act(i) * act(c_hat)
    return [recurrent_act(o) * act(c), c]


def gru_step(x, states, kernel, recurrent_kernel, bias, act, recurrent_act, reset_after):
    h = states[0]
    units = h.shape[1]
    input_bias, recurrent_bias = (bias[0], bias[1]) if reset_after else (bias, 0)
    x_z, x_r, x_h = np.split(x @ kernel + input_bias, 3, axis=1)
    if reset_after:
        h_z, h_r, h_h = np.split(h @ recurrent_kernel + recurrent_bias, 3, axis=1)
    else:
        h_z, h_r = np.split(h @ recurrent_kernel[:, :2 * units], 2, axis=1)
    z, r = recurrent_act(x_z + h_z), recurrent_act(x_r + h_r)
    if reset_after:
        hh = act(x_h + r * h_h)
    else:
        hh = act(x_h + (r * h) @ recurrent_kernel[:, 2 * units:])
    return [z * h + (1 - z) * hh]


def simple_step(x, states, kernel, recurrent_kernel, bias, act):
    return [act(x @ kernel + states[0] @ recurrent_kernel + bias)]


def run_numpy(step, x, states, mask=None, go_backwards=False, zero_output_for_mask=False):
    """Keras' K.rnn in numpy: (outputs in processing order, final states)."""
    order = range(x.shape[1] - 1, -1, -1) if go_backwards else range(x.shape[1])
    outputs, previous = [], np.zeros_like(states[0])
    for t in order:
        new = step(x[:, t], states)
        output = new[0]
        if mask is not None:
            keep = mask[:, t, None]
            output = np.where(keep, output, 0 if zero_output_for_mask else previous)
            new = [np.where(keep, n, s) for n, s in zip(new, states)]
        outputs.append(output)
        previous, states = output, new
    return np.stack(outputs, 1), states


def reference_step(layer, weights):
    cell = layer.cell
    act = ACTIVATIONS[cell.activation.__name__]
    bias = weights[2] if cell.use_bias else 0
    if isinstance(cell, recurrent.LSTMCell):
        recurrent_act = ACTIVATIONS[cell.recurrent_activation.__name__]
        return lambda x, s: lstm_step(x, s, weights[0], weights[1], bias, act, recurrent_act)
    if isinstance(cell, recurrent.GRUCell):
        recurrent_act = ACTIVATIONS[cell.recurrent_activation.__name__]
        if not cell.use_bias:
            bias = np.zeros((2, 1)) if cell.reset_after else 0
        return lambda x, s: gru_step(x, s, weights[0], weights[1], bias, act, recurrent_act,
                                     cell.reset_after)
    return lambda x, s: simple_step(x, s, weights[0], weights[1], bias, act)


LAYERS = [
    ("lstm_v1_hard_sigmoid", lambda **kw: V1.LSTM(5, **kw)),
    ("lstm_v2_sigmoid", lambda **kw: V2.LSTM(5, **kw)),
    ("lstm_no_bias", lambda **kw: V2.LSTM(5, use_bias=False, **kw)),
    ("lstm_relu_activation", lambda **kw: V2.LSTM(5, activation="relu", **kw)),
    ("gru_v1_reset_before", lambda **kw: V1.GRU(5, **kw)),
    ("gru_v2_reset_after", lambda **kw: V2.GRU(5, **kw)),
    ("gru_v2_no_bias", lambda **kw: V2.GRU(5, use_bias=False, **kw)),
    ("simple_tanh", lambda **kw: layers.SimpleRNN(5, **kw)),
    ("simple_relu", lambda **kw: layers.SimpleRNN(5, activation="relu", **kw)),
]


@pytest.mark.parametrize("name, make", LAYERS, ids=[n for n, _ in LAYERS])
@pytest.mark.parametrize("go_backwards", [False, True])
def test_values_match_numpy_formulas(name, make, go_backwards):
    x = RNG.randn(3, 6, 4).astype("float32")
    layer = make(return_sequences=True, return_state=True, go_backwards=go_backwards)
    layer(x)
    weights = randomize(layer)
    results = [value(r) for r in layer(x)]
    states = [np.zeros((3, 5), "float32") for _ in results[1:]]
    outputs, final = run_numpy(reference_step(layer, weights), x, states,
                               go_backwards=go_backwards)
    np.testing.assert_allclose(results[0], outputs, rtol=1e-5, atol=1e-5)
    for got, want in zip(results[1:], final):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    last = layer.__class__.from_config(layer.get_config())
    last.return_sequences, last.return_state = False, False
    last(x)
    last.set_weights(weights)
    np.testing.assert_allclose(value(last(x)), outputs[:, -1], rtol=1e-5, atol=1e-5)


def torch_module(kind, layer, weights):
    """torch.nn.LSTM / GRU / RNN holding the Keras weights."""
    kernel, recurrent_kernel, bias = weights
    units, dim = recurrent_kernel.shape[0], kernel.shape[0]
    if kind == "gru":
        def order(w):
            return np.concatenate([w[..., units:2 * units], w[..., :units], w[..., 2 * units:]],
                                  -1)
        module = torch.nn.GRU(dim, units, batch_first=True)
        values = [order(kernel).T, order(recurrent_kernel).T, order(bias[0]), order(bias[1])]
    else:
        module = (torch.nn.LSTM(dim, units, batch_first=True) if kind == "lstm" else
                  torch.nn.RNN(dim, units, batch_first=True,
                               nonlinearity=layer.cell.activation.__name__))
        values = [kernel.T, recurrent_kernel.T, bias, np.zeros_like(bias)]
    with torch.no_grad():
        for param, v in zip(module.parameters(), values):
            param.copy_(torch.from_numpy(np.ascontiguousarray(v)))
    return module


TORCH_CASES = [("lstm", lambda: V2.LSTM(6, return_sequences=True)),
               ("gru", lambda: V2.GRU(6, return_sequences=True)),
               ("rnn", lambda: layers.SimpleRNN(6, return_sequences=True)),
               ("rnn", lambda: layers.SimpleRNN(6, activation="relu", return_sequences=True))]


@pytest.mark.parametrize("kind, make", TORCH_CASES, ids=["lstm", "gru", "rnn_tanh", "rnn_relu"])
def test_values_and_gradients_match_torch(kind, make):
    x = RNG.randn(4, 7, 3).astype("float32")
    layer = make()
    layer(x)
    weights = randomize(layer)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = layer(xt)
        loss = tf.reduce_sum(y * y)
    grads = tape.gradient(loss, [xt] + layer.trainable_weights)

    module = torch_module(kind, layer, weights)
    x_torch = torch.tensor(x, requires_grad=True)
    y_torch = module(x_torch)[0]
    (y_torch * y_torch).sum().backward()
    np.testing.assert_allclose(value(y), y_torch.detach().numpy(), rtol=1e-5, atol=1e-5)
    params = list(module.parameters())
    w_ih, w_hh, b_ih, b_hh = [p.grad.numpy() for p in params]
    if kind == "gru":
        units = 6

        def keras_order(w):
            return np.concatenate([w[..., units:2 * units], w[..., :units],
                                   w[..., 2 * units:]], -1)
        expected = [keras_order(w_ih.T), keras_order(w_hh.T),
                    np.stack([keras_order(b_ih), keras_order(b_hh)])]
    else:
        expected = [w_ih.T, w_hh.T, b_ih]
    np.testing.assert_allclose(value(grads[0]), x_torch.grad.numpy(), rtol=1e-4, atol=1e-5)
    for got, want in zip(grads[1:], expected):
        np.testing.assert_allclose(value(got), want, rtol=1e-4, atol=1e-5)


def test_hard_sigmoid_kernel_gradients_match_autograd():
    """The hand-written backward pass against autograd through the step formulas,
    including the initial states' gradients."""
    x = torch.randn(3, 9, 4, dtype=torch.float64, requires_grad=True)
    kernel = (torch.randn(4, 20, dtype=torch.float64) * 0.7).requires_grad_()
    recurrent_kernel = (torch.randn(5, 20, dtype=torch.float64) * 0.7).requires_grad_()
    bias = torch.randn(20, dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(3, 9, 5, dtype=torch.float64)
    inputs = [x, kernel, recurrent_kernel, bias, h0, c0]

    def loss(outputs, states):
        return (outputs * weight).sum() + (states[1] ** 2).sum() + states[0].sum()

    fused = recurrent._hard_sigmoid_lstm(x, kernel, recurrent_kernel, bias, [h0, c0])
    got = torch.autograd.grad(loss(*fused), inputs)
    math = recurrent._CellMath("lstm", 4, torch.tanh, recurrent._hard_sigmoid, 2, False)
    stepped = recurrent._step_loop(math, x, None, kernel, recurrent_kernel, bias, None, None,
                                   [h0, c0], False)
    want = torch.autograd.grad(loss(*stepped), inputs)
    torch.testing.assert_close(fused[0], stepped[0])
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)


def test_custom_activation_written_with_tf_ops_in_eager_and_graph():
    def scaled_tanh(x):
        return 2.0 * tf.tanh(x)

    x = RNG.randn(2, 5, 3).astype("float32")
    layer = V2.GRU(4, activation=scaled_tanh, return_sequences=True)
    layer(x)
    weights = randomize(layer)

    def step(xt, states):
        return gru_step(xt, states, weights[0], weights[1], weights[2],
                        lambda v: 2 * np.tanh(v), sigmoid, True)
    want, _ = run_numpy(step, x, [np.zeros((2, 4), "float32")])
    np.testing.assert_allclose(value(layer(x)), want, rtol=1e-5, atol=1e-5)
    with tf.Graph().as_default() as graph:
        x_in = tf.compat.v1.placeholder(tf.float32, [None, None, 3])
        graph_layer = V2.GRU(4, activation=scaled_tanh, return_sequences=True)
        y = graph_layer(x_in)
        grad = tf.gradients(tf.reduce_sum(y), graph_layer.cell.kernel)[0]
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            graph_layer.set_weights(weights)
            got, got_grad = sess.run([y, grad], {x_in: x})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(x))
    np.testing.assert_allclose(got_grad, value(tape.gradient(loss, layer.cell.kernel)),
                               rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- masks, states, layouts


@pytest.mark.parametrize("name, make", LAYERS, ids=[n for n, _ in LAYERS])
def test_masked_steps_carry_output_and_states(name, make):
    x = RNG.randn(3, 6, 4).astype("float32")
    mask = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 0, 0], [0, 1, 1, 0, 1, 0]], bool)
    layer = make(return_sequences=True, return_state=True)
    layer(x)
    weights = randomize(layer)
    results = [value(r) for r in layer(x, mask=tf.constant(mask))]
    states = [np.zeros((3, 5), "float32") for _ in results[1:]]
    outputs, final = run_numpy(reference_step(layer, weights), x, states, mask=mask)
    np.testing.assert_allclose(results[0], outputs, rtol=1e-5, atol=1e-5)
    for got, want in zip(results[1:], final):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_embedding_mask_zero_equals_the_unpadded_sequence():
    tokens = np.array([[3, 5, 2, 0, 0], [4, 1, 6, 7, 2]], "int32")
    embedding = layers.Embedding(10, 4, mask_zero=True)
    lstm = layers.LSTM(3)
    padded = value(lstm(embedding(tokens)))
    unpadded = value(lstm(embedding(tokens[:1, :3])))
    np.testing.assert_allclose(padded[0], unpadded[0], rtol=1e-5, atol=1e-6)
    outputs = layers.LSTM(3, return_sequences=True)(embedding(tokens))
    np.testing.assert_array_equal(value(outputs._keras_mask), tokens != 0)
    np.testing.assert_allclose(value(outputs)[0, 3], value(outputs)[0, 2])


def test_initial_state_time_major_and_state_checks():
    x = RNG.randn(2, 5, 3).astype("float32")
    h0, c0 = RNG.randn(2, 4).astype("float32"), RNG.randn(2, 4).astype("float32")
    layer = V1.LSTM(4, return_sequences=True)
    layer(x)
    weights = randomize(layer)
    step = reference_step(layer, weights)
    outputs, _ = run_numpy(step, x, [h0, c0])
    np.testing.assert_allclose(value(layer(x, initial_state=[h0, c0])), outputs, rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(value(layer([tf.constant(x), tf.constant(h0),
                                            tf.constant(c0)])), outputs, rtol=1e-5, atol=1e-5)
    major = V1.LSTM(4, return_sequences=True, time_major=True)
    major(x.transpose(1, 0, 2))
    major.set_weights(weights)
    np.testing.assert_allclose(value(major(x.transpose(1, 0, 2), initial_state=[h0, c0])),
                               outputs.transpose(1, 0, 2), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="has 2 states but was passed 1 initial states"):
        layer(x, initial_state=[h0])
    with pytest.raises(ValueError, match="not compatible with `cell.state_size`"):
        layer(x, initial_state=[h0, np.zeros((2, 7), "float32")])
    with pytest.raises(ValueError, match="expected ndim=3"):
        layer(x[0])


def test_stateful_layer_carries_and_resets_states():
    x = RNG.randn(2, 4, 3).astype("float32")
    layer = layers.GRU(5, stateful=True, batch_input_shape=(2, 4, 3))
    layer(x)
    weights = randomize(layer)
    layer.reset_states()
    step = reference_step(layer, weights)
    first, (state,) = run_numpy(step, x, [np.zeros((2, 5), "float32")])
    second, _ = run_numpy(step, x, [state])
    np.testing.assert_allclose(value(layer(x)), first[:, -1], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(value(layer(x)), second[:, -1], rtol=1e-5, atol=1e-5)
    layer.reset_states()
    np.testing.assert_allclose(value(layer.states[0]), 0)
    np.testing.assert_allclose(value(layer(x)), first[:, -1], rtol=1e-5, atol=1e-5)
    layer.reset_states(states=[state])
    np.testing.assert_allclose(value(layer(x)), second[:, -1], rtol=1e-5, atol=1e-5)
    assert all(s is not w for s in layer.states for w in layer.weights)
    layer.reset_states()        # Keras: initial_state is used while the stored states are zero
    np.testing.assert_allclose(value(layer(x, initial_state=[state])), second[:, -1],
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(value(layer(x, initial_state=[np.zeros((2, 5), "float32")])),
                               run_numpy(step, x, [second[:, -1]])[0][:, -1], rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(ValueError, match="expects 1 states"):
        layer.reset_states([state, state])
    with pytest.raises(AttributeError, match="Layer must be stateful"):
        layers.GRU(5).reset_states()
    with pytest.raises(ValueError, match="needs to know its batch size"):
        layers.GRU(5, stateful=True)(tf.keras.Input((4, 3)))
    with tf.Graph().as_default() as graph:
        x_in = tf.compat.v1.placeholder(tf.float32, [2, 4, 3])
        graph_layer = layers.GRU(5, stateful=True)
        y = graph_layer(x_in)
        assert tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS) == \
            graph_layer.updates
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            graph_layer.set_weights(weights)
            runs = [sess.run([y, graph_layer.updates], {x_in: x})[0] for _ in range(2)]
    np.testing.assert_allclose(runs[0], first[:, -1], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(runs[1], second[:, -1], rtol=1e-5, atol=1e-5)


def test_dropout_applies_only_while_training():
    x = RNG.randn(8, 6, 5).astype("float32")
    for make in (lambda: V2.LSTM(4, dropout=0.5), lambda: V1.LSTM(4, recurrent_dropout=0.5),
                 lambda: V1.GRU(4, dropout=0.3, recurrent_dropout=0.3)):
        layer = make()
        layer(x)
        weights = randomize(layer)
        plain, _ = run_numpy(reference_step(layer, weights), x,
                             [np.zeros((8, 4), "float32")] * len(layer.states))
        np.testing.assert_allclose(value(layer(x, training=False)), plain[:, -1], rtol=1e-5,
                                   atol=1e-5)
        trained = value(layer(x, training=True))
        assert trained.shape == (8, 4) and not np.allclose(trained, plain[:, -1])


def test_custom_cell_and_stacked_cells_match_stepping():
    class MinimalRNNCell(layers.Layer):
        def __init__(self, units, **kwargs):
            self.units = units
            self.state_size = units
            super(MinimalRNNCell, self).__init__(**kwargs)

        def build(self, input_shape):
            self.kernel = self.add_weight("kernel", shape=(input_shape[-1], self.units))
            self.recurrent_kernel = self.add_weight("recurrent_kernel",
                                                    shape=(self.units, self.units))

        def call(self, inputs, states):
            output = tf.matmul(inputs, self.kernel) + tf.matmul(states[0],
                                                                self.recurrent_kernel)
            return output, [output]

    x = RNG.randn(2, 4, 3).astype("float32")
    mask = np.array([[1, 1, 0, 1], [1, 0, 0, 0]], bool)
    minimal = layers.RNN(MinimalRNNCell(5), return_sequences=True)
    y = value(minimal(x))
    k, u = minimal.get_weights()
    want, _ = run_numpy(lambda xt, s: [xt @ k + s[0] @ u], x, [np.zeros((2, 5))])
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    masked, _ = run_numpy(lambda xt, s: [xt @ k + s[0] @ u], x, [np.zeros((2, 5))], mask,
                          go_backwards=True)
    with tf.Graph().as_default() as graph:
        x_in = tf.compat.v1.placeholder(tf.float32, [None, None, 3])
        mask_in = tf.compat.v1.placeholder(tf.bool, [None, None])
        graph_layer = layers.RNN(MinimalRNNCell(5), return_sequences=True, go_backwards=True)
        outputs = graph_layer(x_in, mask=mask_in)
        assert outputs.shape.as_list() == [None, None, 5]
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            graph_layer.set_weights([k, u])
            np.testing.assert_allclose(sess.run(outputs, {x_in: x, mask_in: mask}), masked,
                                       rtol=1e-5, atol=1e-5)

    cells = [V2.LSTMCell(4), V1.GRUCell(6), MinimalRNNCell(2)]
    stacked = layers.RNN(cells, return_state=True)
    results = stacked(x)
    assert len(results) == 1 + 2 + 1 + 1
    states = [tf.zeros((2, n)) for n in (4, 4, 6, 2)]
    for t in range(4):
        h = tf.constant(x[:, t])
        new_states = []
        for cell, count in zip(cells, (2, 1, 1)):
            h, cell_states = cell(h, states[:count])
            states = states[count:]
            new_states += cell_states
        states = new_states
    for got, want in zip(results, [h] + states):
        np.testing.assert_allclose(value(got), value(want), rtol=1e-5, atol=1e-5)
    built_in = layers.RNN([V2.LSTMCell(4), V1.GRUCell(6)], go_backwards=True)
    built_in(x)
    np.testing.assert_allclose(
        value(built_in(x)), value(_stepped(built_in.cell.cells, x[:, ::-1])), rtol=1e-5,
        atol=1e-5)


def _stepped(cells, x):
    states = [tf.zeros((x.shape[0], n)) for n in (4, 4, 6)]
    for t in range(x.shape[1]):
        h = tf.constant(np.ascontiguousarray(x[:, t]))
        (h, (h1, c1)), states = cells[0](h, states[:2]), states[2:]
        h, (h2,) = cells[1](h, states)
        states = [h1, c1, h2]
    return h


# ---------------------------------------------------------------- flavours, names, config


def test_v1_and_v2_defaults():
    for cls in (V1.LSTM, V1.LSTMCell, V1.GRU, V1.GRUCell):
        layer = cls(3)
        assert layer.recurrent_activation.__name__ == "hard_sigmoid"
        assert layer.implementation == 1
    for cls in (V2.LSTM, V2.LSTMCell, V2.GRU, V2.GRUCell):
        layer = cls(3)
        assert layer.recurrent_activation.__name__ == "sigmoid"
        assert layer.implementation == 2
    assert not V1.GRU(3).reset_after and V2.GRU(3).reset_after
    assert V2.GRU(3, reset_after=False, recurrent_activation="tanh").recurrent_activation \
        .__name__ == "tanh"
    assert type(V2.LSTM(3)).__name__ == "LSTM" and V2.LSTM is not V1.LSTM
    assert V1.LSTM(3, recurrent_dropout=0.2, implementation=2).implementation == 1


def test_weight_names_shapes_and_initial_values(flavor):
    x = np.zeros((2, 3, 7), "float32")
    flavor("v1")
    lstm = V1.LSTM(4)
    lstm(x)
    assert [(w.name, w.shape.as_list()) for w in lstm.weights] == [
        ("lstm/kernel:0", [7, 16]), ("lstm/recurrent_kernel:0", [4, 16]),
        ("lstm/bias:0", [16])]
    np.testing.assert_allclose(value(lstm.cell.bias), [0] * 4 + [1] * 4 + [0] * 8)
    recurrent_kernel = value(lstm.cell.recurrent_kernel)
    np.testing.assert_allclose(recurrent_kernel @ recurrent_kernel.T, np.eye(4), atol=1e-5)
    flavor("v2")
    K.clear_session()
    lstm, gru = V2.LSTM(4), V2.GRU(4)
    lstm(x)
    gru(x)
    assert [w.name for w in lstm.weights] == ["lstm/lstm_cell/kernel:0",
                                              "lstm/lstm_cell/recurrent_kernel:0",
                                              "lstm/lstm_cell/bias:0"]
    assert [(w.name, w.shape.as_list()) for w in gru.weights][2] == \
        ("gru/gru_cell/bias:0", [2, 12])
    bidirectional = layers.Bidirectional(V2.LSTM(2))
    bidirectional(x)
    assert [w.name for w in bidirectional.weights][::3] == [
        "bidirectional/forward_lstm_1/lstm_cell_2/kernel:0",
        "bidirectional/backward_lstm_1/lstm_cell_3/kernel:0"]


def test_config_round_trip_and_deserialize():
    for layer in (V1.LSTM(3, dropout=0.1, return_sequences=True, unit_forget_bias=False),
                  V2.GRU(3, activation="relu", go_backwards=True),
                  layers.SimpleRNN(2, stateful=True, batch_input_shape=(1, 2, 3)),
                  layers.RNN([V1.LSTMCell(2), layers.SimpleRNNCell(3)], return_state=True),
                  layers.Bidirectional(V2.GRU(2, return_sequences=True), merge_mode="sum")):
        config = layer.get_config()
        clone = layers.deserialize({"class_name": type(layer).__name__, "config": config})
        assert type(clone).__name__ == type(layer).__name__
        assert clone.get_config() == config
    config = V2.LSTM(3).get_config()
    assert config["recurrent_activation"] == "sigmoid" and "cell" not in config
    assert layers.RNN(V1.GRUCell(2)).get_config()["cell"]["class_name"] == "GRUCell"


# ---------------------------------------------------------------- graph mode


GRAPH_CASES = [("lstm_v1", lambda: V1.LSTM(5, return_sequences=True, return_state=True)),
               ("gru_v1", lambda: V1.GRU(5, return_sequences=True, go_backwards=True)),
               ("gru_v2", lambda: V2.GRU(5, return_state=True)),
               ("stacked", lambda: layers.RNN([V2.LSTMCell(5), V1.GRUCell(5)]))]


@pytest.mark.parametrize("name, make", GRAPH_CASES, ids=[n for n, _ in GRAPH_CASES])
@pytest.mark.parametrize("steps", [6, None])
@pytest.mark.parametrize("masked", [False, True])
def test_graph_session_matches_eager(name, make, steps, masked):
    x = RNG.randn(3, 6, 4).astype("float32")
    mask = np.array([[1] * 6, [1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 1, 1]], bool)
    layer = make()
    kwargs = {"mask": tf.constant(mask)} if masked else {}
    layer(x, **kwargs)
    weights = randomize(layer)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        eager = as_list(layer(xt, **kwargs))
        loss = tf.add_n([tf.reduce_sum(t * t) for t in eager])
    eager_grads = tape.gradient(loss, [xt] + layer.trainable_weights)
    with tf.Graph().as_default() as graph:
        x_in = tf.compat.v1.placeholder(tf.float32, [None, steps, 4])
        mask_in = tf.compat.v1.placeholder(tf.bool, [None, steps])
        graph_layer = make()
        outputs = as_list(graph_layer(x_in, **({"mask": mask_in} if masked else {})))
        for got, want in zip(outputs, eager):
            assert got.shape.as_list()[-1] == want.shape.as_list()[-1]
        loss = tf.add_n([tf.reduce_sum(t * t) for t in outputs])
        grads = tf.gradients(loss, [x_in] + graph_layer.trainable_weights)
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            graph_layer.set_weights(weights)
            got_outputs, got_grads = sess.run([outputs, grads], {x_in: x, mask_in: mask})
    for got, want in zip(got_outputs, eager):
        np.testing.assert_allclose(got, value(want), rtol=1e-5, atol=1e-5)
    for got, want in zip(got_grads, eager_grads):
        np.testing.assert_allclose(got, value(want), rtol=1e-4, atol=1e-5)


def test_graph_training_with_learning_phase_dropout():
    x = RNG.randn(4, 5, 3).astype("float32")
    with tf.Graph().as_default() as graph:
        x_in = tf.compat.v1.placeholder(tf.float32, [None, None, 3])
        layer = V1.LSTM(6, dropout=0.5, recurrent_dropout=0.5)
        y = layer(x_in)
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            test = sess.run(y, {x_in: x})
            train = sess.run(y, {x_in: x, K.learning_phase(): True})
            weights = layer.get_weights()
    plain, _ = run_numpy(reference_step(layer, weights), x, [np.zeros((4, 6), "float32")] * 2)
    np.testing.assert_allclose(test, plain[:, -1], rtol=1e-5, atol=1e-5)
    assert not np.allclose(train, test)


# ---------------------------------------------------------------- Bidirectional


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave", None])
def test_bidirectional_merge_modes(merge_mode):
    x = RNG.randn(2, 5, 3).astype("float32")
    mask = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], bool)
    wrapper = layers.Bidirectional(V1.GRU(4, return_sequences=True, return_state=True),
                                   merge_mode=merge_mode)
    wrapper(x)
    weights = randomize(wrapper)
    results = wrapper(x, mask=tf.constant(mask))
    step_forward = reference_step(wrapper.forward_layer, weights[:3])
    step_backward = reference_step(wrapper.backward_layer, weights[3:])
    zeros = [np.zeros((2, 4), "float32")]
    forward, (h_forward,) = run_numpy(step_forward, x, zeros, mask, zero_output_for_mask=True)
    backward, (h_backward,) = run_numpy(step_backward, x, zeros, mask, go_backwards=True,
                                        zero_output_for_mask=True)
    backward = backward[:, ::-1]
    merged = {"concat": lambda: np.concatenate([forward, backward], -1),
              "sum": lambda: forward + backward, "mul": lambda: forward * backward,
              "ave": lambda: (forward + backward) / 2, None: lambda: [forward, backward]}
    expected = merged[merge_mode]()
    expected = (expected if merge_mode is None else [expected]) + [h_forward, h_backward]
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        np.testing.assert_allclose(value(got), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(value(forward[1, 3:]), 0)


def test_bidirectional_initial_state_backward_layer_and_errors():
    x = RNG.randn(2, 4, 3).astype("float32")
    states = [RNG.randn(2, 3).astype("float32") for _ in range(4)]
    wrapper = layers.Bidirectional(V2.LSTM(3), backward_layer=V2.LSTM(
        3, go_backwards=True, activation="relu"))
    assert wrapper.forward_layer.name.startswith("forward_")
    assert wrapper.backward_layer.cell.activation.__name__ == "relu"
    y = value(wrapper(x, initial_state=states))
    f_weights, b_weights = wrapper.forward_layer.get_weights(), \
        wrapper.backward_layer.get_weights()
    forward, _ = run_numpy(reference_step(wrapper.forward_layer, f_weights), x, states[:2])
    backward, _ = run_numpy(reference_step(wrapper.backward_layer, b_weights), x, states[2:],
                            go_backwards=True)
    np.testing.assert_allclose(y, np.concatenate([forward[:, -1], backward[:, -1]], -1),
                               rtol=1e-5, atol=1e-5)
    assert "layer" not in dict(wrapper._checkpoint_dependencies())
    with pytest.raises(ValueError, match="Invalid merge mode"):
        layers.Bidirectional(V2.LSTM(3), merge_mode="max")
    with pytest.raises(ValueError, match="should have different `go_backwards`"):
        layers.Bidirectional(V2.LSTM(3), backward_layer=V2.LSTM(3))
    with pytest.raises(ValueError, match="containing the states"):
        wrapper(x, initial_state=states[:3])


# ---------------------------------------------------------------- training and checkpoints


def test_sequential_lstm_fit_loss_drops():
    rng = np.random.RandomState(1)
    tokens = rng.randint(1, 10, size=(96, 7)).astype("int32")
    tokens[rng.rand(96, 7) < 0.2] = 0
    labels = (tokens == 3).any(axis=1).astype("int32")
    model = tf.keras.Sequential([layers.Embedding(10, 8, mask_zero=True), layers.LSTM(12),
                                 layers.Dense(2, activation="softmax")])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.02),
                  loss="sparse_categorical_crossentropy")
    history = model.fit(tokens, labels, batch_size=32, epochs=8, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.7 * losses[0]


def test_checkpoint_paths_and_restore(tmp_path):
    x = RNG.randn(2, 3, 4).astype("float32")
    model = tf.keras.Sequential([layers.Bidirectional(V2.LSTM(3, return_sequences=True)),
                                 layers.RNN([V1.GRUCell(2), V1.GRUCell(2)])])
    y = value(model(x))
    prefix = tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    keys = {name for name, _ in tf.train.list_variables(prefix)}
    assert "model/layer_with_weights-0/forward_layer/cell/kernel/.ATTRIBUTES/VARIABLE_VALUE" \
        in keys
    assert "model/layer_with_weights-1/cell/cells/1/recurrent_kernel/.ATTRIBUTES/" \
        "VARIABLE_VALUE" in keys
    clone = tf.keras.Sequential([layers.Bidirectional(V2.LSTM(3, return_sequences=True)),
                                 layers.RNN([V1.GRUCell(2), V1.GRUCell(2)])])
    clone(x)
    tf.train.Checkpoint(model=clone).restore(prefix)
    np.testing.assert_allclose(value(clone(x)), y, rtol=1e-6)
