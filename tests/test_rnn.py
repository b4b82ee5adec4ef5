"""TF1 RNN cells (tf.nn.rnn_cell / tf.contrib.rnn) and dynamic_rnn, static_rnn, the
bidirectional variants: cell steps against numpy formulas, TF1 variable names and shapes,
sharing and reuse, sequence_length masking, graph mode == eager, gradients, training, Saver."""
import os

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

tf1 = tf.compat.v1
rnn_cell = tf1.nn.rnn_cell


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def affine(parts, kernel, bias):
    return np.concatenate(parts, 1) @ kernel + bias


def np_basic_rnn(x, h, kernel, bias):
    out = np.tanh(affine([x, h], kernel, bias))
    return out, out


def np_gru(x, h, gate_kernel, gate_bias, cand_kernel, cand_bias):
    r, u = np.split(sigmoid(affine([x, h], gate_kernel, gate_bias)), 2, axis=1)
    c = np.tanh(affine([x, r * h], cand_kernel, cand_bias))
    new_h = u * h + (1 - u) * c
    return new_h, new_h


def np_lstm(x, state, kernel, bias, forget_bias=1.0, peepholes=None, cell_clip=None,
            projection=None, proj_clip=None):
    c, h = state
    i, j, f, o = np.split(affine([x, h], kernel, bias), 4, axis=1)
    if peepholes is not None:
        w_f, w_i, w_o = peepholes
        new_c = sigmoid(f + forget_bias + w_f * c) * c + sigmoid(i + w_i * c) * np.tanh(j)
    else:
        new_c = sigmoid(f + forget_bias) * c + sigmoid(i) * np.tanh(j)
    if cell_clip is not None:
        new_c = np.clip(new_c, -cell_clip, cell_clip)
    gate_o = sigmoid(o + w_o * new_c) if peepholes is not None else sigmoid(o)
    m = gate_o * np.tanh(new_c)
    if projection is not None:
        m = m @ projection
        if proj_clip is not None:
            m = np.clip(m, -proj_clip, proj_clip)
    return m, (new_c, m)


def np_lstm_concat(x, state, kernel, bias, units):
    out, (c, h) = np_lstm(x, (state[:, :units], state[:, units:]), kernel, bias)
    return out, np.concatenate([c, h], 1)


def np_lstm_full(x, state, kernel, bias, w_f, w_i, w_o, projection):
    return np_lstm(x, state, kernel, bias, forget_bias=0.5, peepholes=(w_f, w_i, w_o),
                   cell_clip=0.4, projection=projection, proj_clip=0.2)


def flat(structure):
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flat(item)]
    return [structure]


def random_like(rs, variable):
    return rs.uniform(-1, 1, variable.shape.as_list()).astype(np.float32)


def randomize_eager(cell, seed=1):
    rs = np.random.RandomState(seed)
    values = [random_like(rs, v) for v in cell.variables]
    for variable, value in zip(cell.variables, values):
        variable.assign(value)
    return values


def random_state(rs, cell, batch):
    def make(size):
        return rs.uniform(-1, 1, (batch, size)).astype(np.float32)
    size = cell.state_size
    return type(size)(*[make(s) for s in size]) if isinstance(size, tuple) else make(size)


# ---------------------------------------------------------------- one cell step


CELL_CASES = [
    ("basic_rnn", lambda: rnn_cell.BasicRNNCell(4), np_basic_rnn),
    ("basic_rnn_relu", lambda: rnn_cell.BasicRNNCell(4, activation="relu"),
     lambda x, h, k, b: (np.maximum(affine([x, h], k, b), 0),) * 2),
    ("gru", lambda: rnn_cell.GRUCell(4), np_gru),
    ("basic_lstm", lambda: rnn_cell.BasicLSTMCell(4), np_lstm),
    ("basic_lstm_forget_bias", lambda: rnn_cell.BasicLSTMCell(4, forget_bias=0.0),
     lambda x, s, k, b: np_lstm(x, s, k, b, forget_bias=0.0)),
    ("basic_lstm_concat_state", lambda: rnn_cell.BasicLSTMCell(4, state_is_tuple=False),
     lambda x, s, k, b: np_lstm_concat(x, s, k, b, 4)),
    ("lstm", lambda: rnn_cell.LSTMCell(4), np_lstm),
    ("lstm_peepholes_clip_projection",
     lambda: rnn_cell.LSTMCell(4, use_peepholes=True, cell_clip=0.4, num_proj=3,
                               proj_clip=0.2, forget_bias=0.5), np_lstm_full),
]


@pytest.mark.parametrize("name,make_cell,reference", CELL_CASES, ids=[c[0] for c in CELL_CASES])
def test_cell_step_matches_numpy(name, make_cell, reference):
    rs = np.random.RandomState(0)
    cell = make_cell()
    x = rs.uniform(-1, 1, (5, 3)).astype(np.float32)
    state = random_state(rs, cell, 5)
    cell(x, cell.zero_state(5, tf.float32))  # builds the variables
    weights = randomize_eager(cell)
    output, new_state = cell(x, state)
    expected_output, expected_state = reference(x, state, *weights)
    np.testing.assert_allclose(output.numpy(), expected_output, rtol=1e-5, atol=1e-6)
    for got, expected in zip(flat(new_state), flat(expected_state)):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert type(new_state) is type(cell.zero_state(5, tf.float32))


def test_cell_sizes_and_zero_state():
    cases = [(rnn_cell.BasicRNNCell(4), 4, 4), (rnn_cell.GRUCell(4), 4, 4),
             (rnn_cell.BasicLSTMCell(4), (4, 4), 4),
             (rnn_cell.BasicLSTMCell(4, state_is_tuple=False), 8, 4),
             (rnn_cell.LSTMCell(4, num_proj=2), (4, 2), 2),
             (rnn_cell.LSTMCell(4, num_proj=2, state_is_tuple=False), 6, 2),
             (rnn_cell.MultiRNNCell([rnn_cell.GRUCell(3), rnn_cell.LSTMCell(2)]),
              (3, (2, 2)), 2),
             (rnn_cell.MultiRNNCell([rnn_cell.GRUCell(3), rnn_cell.GRUCell(2)],
                                    state_is_tuple=False), 5, 2)]
    for cell, state_size, output_size in cases:
        assert cell.state_size == state_size and cell.output_size == output_size
        zero = cell.zero_state(3, tf.float64)
        flat_sizes, flat_zero = flat(state_size), flat(zero)
        assert [z.shape.as_list() for z in flat_zero] == [[3, s] for s in flat_sizes]
        assert all(z.dtype == tf.float64 and not z.numpy().any() for z in flat_zero)
    lstm_state = rnn_cell.BasicLSTMCell(2).zero_state(1, tf.float32)
    assert isinstance(lstm_state, rnn_cell.LSTMStateTuple) and lstm_state.dtype == tf.float32
    initial = rnn_cell.GRUCell(3).get_initial_state(inputs=np.zeros((4, 2), np.float32))
    assert initial.shape.as_list() == [4, 3]


def test_gru_and_lstm_initial_biases():
    gru, lstm = rnn_cell.GRUCell(2), rnn_cell.BasicLSTMCell(2)
    for cell in (gru, lstm):
        cell(np.ones((1, 3), np.float32), cell.zero_state(1, tf.float32))
    values = {v.name.split("/", 1)[1]: v.numpy() for v in gru.variables + lstm.variables}
    np.testing.assert_array_equal(values["gates/bias:0"], np.ones(4))
    np.testing.assert_array_equal(values["candidate/bias:0"], np.zeros(2))
    np.testing.assert_array_equal(values["bias:0"], np.zeros(8))


# ---------------------------------------------------------------- names, sharing, reuse


NAME_CASES = [
    (lambda: rnn_cell.BasicRNNCell(4),
     [("rnn/basic_rnn_cell/kernel:0", [7, 4]), ("rnn/basic_rnn_cell/bias:0", [4])]),
    (lambda: rnn_cell.BasicLSTMCell(4),
     [("rnn/basic_lstm_cell/kernel:0", [7, 16]), ("rnn/basic_lstm_cell/bias:0", [16])]),
    (lambda: rnn_cell.GRUCell(4),
     [("rnn/gru_cell/gates/kernel:0", [7, 8]), ("rnn/gru_cell/gates/bias:0", [8]),
      ("rnn/gru_cell/candidate/kernel:0", [7, 4]), ("rnn/gru_cell/candidate/bias:0", [4])]),
    (lambda: rnn_cell.LSTMCell(4, use_peepholes=True, num_proj=2),
     [("rnn/lstm_cell/kernel:0", [5, 16]), ("rnn/lstm_cell/bias:0", [16]),
      ("rnn/lstm_cell/w_f_diag:0", [4]), ("rnn/lstm_cell/w_i_diag:0", [4]),
      ("rnn/lstm_cell/w_o_diag:0", [4]), ("rnn/lstm_cell/projection/kernel:0", [4, 2])]),
    (lambda: rnn_cell.MultiRNNCell([rnn_cell.BasicLSTMCell(4), rnn_cell.GRUCell(2)]),
     [("rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0", [7, 16]),
      ("rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0", [16]),
      ("rnn/multi_rnn_cell/cell_1/gru_cell/gates/kernel:0", [6, 4]),
      ("rnn/multi_rnn_cell/cell_1/gru_cell/gates/bias:0", [4]),
      ("rnn/multi_rnn_cell/cell_1/gru_cell/candidate/kernel:0", [6, 2]),
      ("rnn/multi_rnn_cell/cell_1/gru_cell/candidate/bias:0", [2])]),
    (lambda: rnn_cell.DropoutWrapper(rnn_cell.ResidualWrapper(rnn_cell.BasicRNNCell(3)),
                                     output_keep_prob=0.5),
     [("rnn/basic_rnn_cell/kernel:0", [6, 3]), ("rnn/basic_rnn_cell/bias:0", [3])]),
    (lambda: tf.contrib.rnn.OutputProjectionWrapper(rnn_cell.BasicRNNCell(5), 1),
     [("rnn/output_projection_wrapper/basic_rnn_cell/kernel:0", [8, 5]),
      ("rnn/output_projection_wrapper/basic_rnn_cell/bias:0", [5]),
      ("rnn/output_projection_wrapper/kernel:0", [5, 1]),
      ("rnn/output_projection_wrapper/bias:0", [1])]),
    (lambda: tf.contrib.rnn.InputProjectionWrapper(rnn_cell.GRUCell(2), 4),
     [("rnn/input_projection_wrapper/kernel:0", [3, 4]),
      ("rnn/input_projection_wrapper/bias:0", [4]),
      ("rnn/input_projection_wrapper/gru_cell/gates/kernel:0", [6, 4]),
      ("rnn/input_projection_wrapper/gru_cell/gates/bias:0", [4]),
      ("rnn/input_projection_wrapper/gru_cell/candidate/kernel:0", [6, 2]),
      ("rnn/input_projection_wrapper/gru_cell/candidate/bias:0", [2])]),
]


@pytest.mark.parametrize("make_cell,expected", NAME_CASES)
def test_graph_variable_names_and_shapes(make_cell, expected):
    with tf.Graph().as_default():
        cell = make_cell()
        tf1.nn.dynamic_rnn(cell, tf1.placeholder(tf.float32, [None, 5, 3]), dtype=tf.float32)
        found = [(v.name, v.shape.as_list()) for v in tf1.global_variables()]
        assert found == expected
        assert [v.name for v in cell.trainable_variables] == [name for name, _ in expected]
        assert [v.name for v in tf1.trainable_variables()] == [name for name, _ in expected]


def test_eager_variable_names_match_graph():
    cell = rnn_cell.MultiRNNCell([rnn_cell.BasicLSTMCell(2), rnn_cell.BasicLSTMCell(2)])
    tf1.nn.dynamic_rnn(cell, np.zeros((1, 2, 3), np.float32), dtype=tf.float32)
    assert [v.name for v in cell.variables] == [
        "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0",
        "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0",
        "rnn/multi_rnn_cell/cell_1/basic_lstm_cell/kernel:0",
        "rnn/multi_rnn_cell/cell_1/basic_lstm_cell/bias:0"]


def test_bidirectional_and_stacked_variable_names():
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, 4, 3])
        tf1.nn.bidirectional_dynamic_rnn(rnn_cell.GRUCell(2), rnn_cell.GRUCell(2), x,
                                         dtype=tf.float32)
        tf1.nn.static_bidirectional_rnn(rnn_cell.BasicRNNCell(2), rnn_cell.BasicRNNCell(2),
                                        tf.unstack(x, axis=1), dtype=tf.float32,
                                        scope="static_bi")
        out, states_fw, _ = tf.contrib.rnn.stack_bidirectional_dynamic_rnn(
            [rnn_cell.BasicRNNCell(2), rnn_cell.BasicRNNCell(3)],
            [rnn_cell.BasicRNNCell(2), rnn_cell.BasicRNNCell(3)], x, dtype=tf.float32)
        names = [v.name for v in tf1.global_variables() if v.name.endswith("kernel:0")]
        assert names == [
            "bidirectional_rnn/fw/gru_cell/gates/kernel:0",
            "bidirectional_rnn/fw/gru_cell/candidate/kernel:0",
            "bidirectional_rnn/bw/gru_cell/gates/kernel:0",
            "bidirectional_rnn/bw/gru_cell/candidate/kernel:0",
            "static_bi/fw/basic_rnn_cell/kernel:0", "static_bi/bw/basic_rnn_cell/kernel:0",
            "stack_bidirectional_rnn/cell_0/bidirectional_rnn/fw/basic_rnn_cell/kernel:0",
            "stack_bidirectional_rnn/cell_0/bidirectional_rnn/bw/basic_rnn_cell/kernel:0",
            "stack_bidirectional_rnn/cell_1/bidirectional_rnn/fw/basic_rnn_cell/kernel:0",
            "stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw/basic_rnn_cell/kernel:0"]
        assert out.shape.as_list() == [None, 4, 6] and len(states_fw) == 2


def test_reuse_rules_in_graph():
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [2, 3, 3])
        cell = rnn_cell.BasicLSTMCell(2)
        first, _ = tf1.nn.dynamic_rnn(cell, x, dtype=tf.float32, scope="encoder")
        again, _ = tf1.nn.dynamic_rnn(cell, x, dtype=tf.float32, scope="decoder")
        assert [v.name for v in tf1.global_variables()] == [
            "encoder/basic_lstm_cell/kernel:0", "encoder/basic_lstm_cell/bias:0"]
        with pytest.raises(ValueError, match="Variable encoder/basic_lstm_cell/kernel already "
                                             "exists, disallowed"):
            tf1.nn.dynamic_rnn(rnn_cell.BasicLSTMCell(2), x, dtype=tf.float32,
                               scope="encoder")
        with tf1.variable_scope("encoder", reuse=True) as scope:
            shared, _ = tf1.nn.dynamic_rnn(rnn_cell.BasicLSTMCell(2), x, dtype=tf.float32,
                                           scope=scope)
        with tf1.variable_scope("encoder", reuse=tf1.AUTO_REUSE) as scope:
            auto, _ = tf1.nn.dynamic_rnn(rnn_cell.BasicLSTMCell(2), x, dtype=tf.float32,
                                         scope=scope)
        assert len(tf1.global_variables()) == 2
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            values = sess.run([first, again, shared, auto],
                              {x: np.random.RandomState(0).randn(2, 3, 3)})
        for value in values[1:]:
            np.testing.assert_allclose(value, values[0], rtol=1e-6)


def test_old_style_cell_with_get_variable_in_call():
    class ScaleCell(rnn_cell.RNNCell):
        state_size = property(lambda self: 2)
        output_size = property(lambda self: 2)

        def call(self, inputs, state):
            scale = tf1.get_variable("scale", [2], initializer=tf1.ones_initializer())
            new_state = state * scale + inputs
            return new_state, new_state

    with tf.Graph().as_default():
        cell = ScaleCell()
        out, state = tf1.nn.dynamic_rnn(cell, tf.ones([1, 3, 2]), dtype=tf.float32)
        assert [v.name for v in tf1.global_variables()] == ["rnn/scale_cell/scale:0"]
        assert [v.name for v in cell.trainable_weights] == ["rnn/scale_cell/scale:0"]
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            np.testing.assert_allclose(sess.run(out)[0, :, 0], [1, 2, 3])


# ---------------------------------------------------------------- dynamic_rnn semantics


def np_dynamic_rnn(step, x, lengths, state):
    """Reference: batch-major x, rows past their length output zeros and keep state."""
    batch, steps = x.shape[:2]
    outputs = []
    for t in range(steps):
        out, new_state = step(x[:, t], state)
        finished = (t >= np.asarray(lengths))[:, None]
        outputs.append(np.where(finished, 0, out))
        state = tuple(np.where(finished, old, new) for old, new in zip(state, new_state))
    return np.stack(outputs, 1), state


def lstm_setup(seed=0):
    rs = np.random.RandomState(seed)
    x = rs.uniform(-1, 1, (3, 6, 2)).astype(np.float32)
    kernel = rs.uniform(-0.7, 0.7, (5, 12)).astype(np.float32)
    bias = rs.uniform(-0.2, 0.2, 12).astype(np.float32)
    state = rnn_cell.LSTMStateTuple(*rs.uniform(-1, 1, (2, 3, 3)).astype(np.float32))
    return x, kernel, bias, state


def test_dynamic_rnn_sequence_length_eager_matches_numpy():
    x, kernel, bias, state = lstm_setup()
    lengths = [6, 2, 0]
    cell = rnn_cell.BasicLSTMCell(3)
    cell(x[:, 0], state)
    cell.set_weights([kernel, bias])
    outputs, final = tf1.nn.dynamic_rnn(cell, x, sequence_length=lengths, initial_state=state)
    expected, expected_state = np_dynamic_rnn(
        lambda xt, s: np_lstm(xt, s, kernel, bias), x, lengths, tuple(state))
    np.testing.assert_allclose(outputs.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert not outputs.numpy()[1, 2:].any() and not outputs.numpy()[2].any()
    np.testing.assert_allclose(final.c.numpy(), expected_state[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(final.h.numpy(), expected_state[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(final.c.numpy()[2], state.c[2])  # length 0: state kept
    np.testing.assert_allclose(final.h.numpy()[1], outputs.numpy()[1, 1], rtol=1e-6)


def build_lstm_graph(kernel, bias, time_steps=None, time_major=False):
    """Placeholders with unknown batch (and time), an LSTM with the given weights."""
    shape = [time_steps, None, 2] if time_major else [None, time_steps, 2]
    x = tf1.placeholder(tf.float32, shape)
    lengths = tf1.placeholder(tf.int32, [None])
    c = tf1.placeholder(tf.float32, [None, 3])
    h = tf1.placeholder(tf.float32, [None, 3])
    cell = rnn_cell.BasicLSTMCell(3)
    outputs, final = tf1.nn.dynamic_rnn(cell, x, sequence_length=lengths,
                                        initial_state=rnn_cell.LSTMStateTuple(c, h),
                                        time_major=time_major)
    assign = tf.group(*[v.assign(value) for v, value in zip(cell.variables, [kernel, bias])])
    return x, lengths, (c, h), outputs, final, assign


@pytest.mark.parametrize("time_steps,time_major", [(6, False), (None, False), (None, True)])
def test_graph_session_run_equals_eager(time_steps, time_major):
    x_value, kernel, bias, state = lstm_setup()
    lengths_value = [4, 6, 1]
    cell = rnn_cell.BasicLSTMCell(3)
    cell(x_value[:, 0], state)
    cell.set_weights([kernel, bias])
    eager_out, eager_state = tf1.nn.dynamic_rnn(cell, x_value, sequence_length=lengths_value,
                                                initial_state=state)
    with tf.Graph().as_default():
        x, lengths, (c, h), outputs, final, assign = build_lstm_graph(
            kernel, bias, time_steps, time_major)
        expected_shape = [time_steps, None, 3] if time_major else [None, time_steps, 3]
        assert outputs.shape.as_list() == expected_shape
        assert final.c.shape.as_list() == [None, 3]
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(assign)
            feed_x = x_value.transpose(1, 0, 2) if time_major else x_value
            out, fin = sess.run([outputs, final], {x: feed_x, lengths: lengths_value,
                                                   c: state.c, h: state.h})
    if time_major:
        out = out.transpose(1, 0, 2)
    np.testing.assert_allclose(out, eager_out.numpy(), rtol=1e-5, atol=1e-6)
    assert isinstance(fin, rnn_cell.LSTMStateTuple)
    np.testing.assert_allclose(fin.c, eager_state.c.numpy(), rtol=1e-5, atol=1e-6)


def test_graph_gradients_equal_eager_tape_and_finite_differences():
    x_value, kernel, bias, state = lstm_setup()
    lengths_value = [5, 3, 6]
    weights = np.linspace(-1, 1, 18, dtype=np.float32).reshape(6, 3)
    cell = rnn_cell.BasicLSTMCell(3)
    cell(x_value[:, 0], state)
    cell.set_weights([kernel, bias])

    def eager_loss(kernel_value=None):
        if kernel_value is not None:
            cell.variables[0].assign(kernel_value)
        out, final = tf1.nn.dynamic_rnn(cell, x_value, sequence_length=lengths_value,
                                        initial_state=state)
        return tf.reduce_sum(out * weights) + tf.reduce_sum(final.c)

    with tf.GradientTape() as tape:
        loss = eager_loss()
    eager_grads = [g.numpy() for g in tape.gradient(loss, cell.variables)]
    with tf.Graph().as_default():
        x, lengths, (c, h), outputs, final, assign = build_lstm_graph(kernel, bias, 6)
        graph_loss = tf.reduce_sum(outputs * weights) + tf.reduce_sum(final.c)
        graph_vars = tf1.trainable_variables()
        grads = tf.gradients(graph_loss, graph_vars + [x])
        assert all(g is not None for g in grads)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(assign)
            values = sess.run(grads, {x: x_value, lengths: lengths_value, c: state.c,
                                      h: state.h})
    for eager, graph in zip(eager_grads, values):
        np.testing.assert_allclose(graph, eager, rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(values[2][1, 3:], 0)  # steps past the length get no grad
    epsilon = 1e-2
    for index in [(0, 0), (3, 7), (4, 11)]:
        bumped = [kernel.copy(), kernel.copy()]
        bumped[0][index] += epsilon
        bumped[1][index] -= epsilon
        numeric = (eager_loss(bumped[0]).numpy() - eager_loss(bumped[1]).numpy()) / (
            2 * epsilon)
        assert abs(numeric - eager_grads[0][index]) < 2e-2 * max(1, abs(numeric))


def test_max_sequence_length_below_time_steps_and_zero_lengths():
    x, kernel, bias, state = lstm_setup()
    cell = rnn_cell.BasicLSTMCell(3)
    out, final = tf1.nn.dynamic_rnn(cell, x, sequence_length=np.array([2, 1, 2], np.int64),
                                    initial_state=state)
    assert out.shape == (3, 6, 3) and not out.numpy()[:, 2:].any()
    out, final = tf1.nn.dynamic_rnn(cell, x, sequence_length=[0, 0, 0], initial_state=state)
    assert not out.numpy().any()
    np.testing.assert_array_equal(final.h.numpy(), state.h)


def test_dynamic_rnn_nested_inputs_and_outputs():
    class PairCell(rnn_cell.RNNCell):
        """state += a; outputs (state, 2 * b): no variables."""
        state_size = property(lambda self: 2)
        output_size = property(lambda self: (2, 1))

        def call(self, inputs, state):
            a, b = inputs
            new_state = state + a
            return (new_state, 2 * b), new_state

    rs = np.random.RandomState(3)
    a = rs.randn(2, 4, 2).astype(np.float32)
    b = rs.randn(2, 4, 1).astype(np.float32)
    (running, doubled), final = tf1.nn.dynamic_rnn(PairCell(), (a, b), dtype=tf.float32,
                                                   sequence_length=[4, 2])
    expected = np.cumsum(a, axis=1)
    expected[1, 2:] = 0
    np.testing.assert_allclose(running.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(doubled.numpy()[0], 2 * b[0])
    np.testing.assert_allclose(final.numpy(), [a[0].sum(0), a[1, :2].sum(0)], rtol=1e-6)


def test_static_rnn_equals_dynamic_rnn_with_shared_cell():
    x_value, kernel, bias, state = lstm_setup()
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [3, 6, 2])
        lengths = tf1.placeholder(tf.int32, [3])
        cell = rnn_cell.MultiRNNCell([rnn_cell.BasicLSTMCell(3), rnn_cell.GRUCell(2)])
        dynamic_out, dynamic_state = tf1.nn.dynamic_rnn(cell, x, sequence_length=lengths,
                                                        dtype=tf.float32)
        static_out, static_state = tf1.nn.static_rnn(cell, tf.unstack(x, axis=1),
                                                     sequence_length=lengths,
                                                     dtype=tf.float32)
        assert len(static_out) == 6 and len(tf1.global_variables()) == 6
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            values = sess.run([dynamic_out, static_out, dynamic_state, static_state],
                              {x: x_value, lengths: [6, 3, 1]})
    np.testing.assert_allclose(np.stack(values[1], 1), values[0], rtol=1e-5, atol=1e-6)
    for a, b in zip(flat(values[2]), flat(values[3])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_multi_rnn_cell_chains_cells_and_concatenated_state():
    rs = np.random.RandomState(0)
    x = rs.randn(2, 3).astype(np.float32)
    first, second = rnn_cell.GRUCell(4), rnn_cell.BasicRNNCell(2)
    stacked = rnn_cell.MultiRNNCell([first, second])
    state = (rs.randn(2, 4).astype(np.float32), rs.randn(2, 2).astype(np.float32))
    out, (s1, s2) = stacked(x, state)
    h1, _ = first(x, state[0])
    h2, _ = second(h1, state[1])
    np.testing.assert_allclose(out.numpy(), h2.numpy(), rtol=1e-6)
    np.testing.assert_allclose(s1.numpy(), h1.numpy(), rtol=1e-6)
    concat = rnn_cell.MultiRNNCell([first, second], state_is_tuple=False)
    out2, joined = concat(x, np.concatenate(state, 1))
    np.testing.assert_allclose(out2.numpy(), out.numpy(), rtol=1e-6)
    np.testing.assert_allclose(joined.numpy(), np.concatenate([s1.numpy(), s2.numpy()], 1),
                               rtol=1e-6)


def test_bidirectional_dynamic_rnn_matches_numpy():
    rs = np.random.RandomState(4)
    x = rs.randn(2, 5, 3).astype(np.float32)
    lengths = [5, 3]
    cell_fw, cell_bw = rnn_cell.BasicRNNCell(2), rnn_cell.BasicRNNCell(2)
    (out_fw, out_bw), (state_fw, state_bw) = tf1.nn.bidirectional_dynamic_rnn(
        cell_fw, cell_bw, x, sequence_length=lengths, dtype=tf.float32)
    fw_weights = [v.numpy() for v in cell_fw.variables]
    bw_weights = [v.numpy() for v in cell_bw.variables]
    zeros = (np.zeros((2, 2), np.float32),)
    expected_fw, expected_state_fw = np_dynamic_rnn(
        lambda xt, s: (lambda o, n: (o, (n,)))(*np_basic_rnn(xt, s[0], *fw_weights)),
        x, lengths, zeros)
    reversed_x = np.stack([np.concatenate([x[b, :n][::-1], x[b, n:]]) for b, n in
                           enumerate(lengths)])
    reversed_out, expected_state_bw = np_dynamic_rnn(
        lambda xt, s: (lambda o, n: (o, (n,)))(*np_basic_rnn(xt, s[0], *bw_weights)),
        reversed_x, lengths, zeros)
    expected_bw = np.stack([np.concatenate([reversed_out[b, :n][::-1], reversed_out[b, n:]])
                            for b, n in enumerate(lengths)])
    np.testing.assert_allclose(out_fw.numpy(), expected_fw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out_bw.numpy(), expected_bw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state_fw.numpy(), expected_state_fw[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state_bw.numpy(), expected_state_bw[0], rtol=1e-5, atol=1e-6)
    outputs, static_fw, static_bw = tf1.nn.static_bidirectional_rnn(
        cell_fw, cell_bw, list(np.transpose(x, (1, 0, 2))), sequence_length=lengths,
        dtype=tf.float32)
    np.testing.assert_allclose(np.stack([o.numpy() for o in outputs], 1),
                               np.concatenate([expected_fw, expected_bw], 2), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(static_bw.numpy(), expected_state_bw[0], rtol=1e-5)


# ---------------------------------------------------------------- wrappers


def test_dropout_wrapper_keep_prob_one_is_identity():
    rs = np.random.RandomState(0)
    x = rs.randn(4, 3, 2).astype(np.float32)
    cell = rnn_cell.BasicLSTMCell(3)
    plain, plain_state = tf1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    wrapped = rnn_cell.DropoutWrapper(cell, input_keep_prob=1.0, output_keep_prob=1,
                                      state_keep_prob=np.float32(1.0))
    assert wrapped.wrapped_cell is cell and wrapped.state_size == cell.state_size
    out, state = tf1.nn.dynamic_rnn(wrapped, x, dtype=tf.float32)
    np.testing.assert_array_equal(out.numpy(), plain.numpy())
    np.testing.assert_array_equal(state.c.numpy(), plain_state.c.numpy())


def test_dropout_wrapper_statistics_and_state_filter():
    x = np.ones((2000, 1, 1), np.float32)

    class Echo(rnn_cell.RNNCell):
        """Output and new state (c, h) are the inputs repeated over 4 units."""
        state_size = property(lambda self: rnn_cell.LSTMStateTuple(4, 4))
        output_size = property(lambda self: 4)

        def call(self, inputs, state):
            value = tf.tile(inputs, [1, 4])
            return value, rnn_cell.LSTMStateTuple(value, value)

    wrapped = rnn_cell.DropoutWrapper(Echo(), output_keep_prob=0.25, state_keep_prob=0.5)
    out, state = tf1.nn.dynamic_rnn(wrapped, x, dtype=tf.float32)
    out = out.numpy()
    assert set(np.unique(out)) == {0.0, 4.0}
    assert abs((out == 0).mean() - 0.75) < 0.03
    np.testing.assert_array_equal(state.c.numpy(), 1.0)  # the memory c is never dropped
    assert set(np.unique(state.h.numpy())) == {0.0, 2.0}
    assert abs((state.h.numpy() == 0).mean() - 0.5) < 0.03
    drop_all = rnn_cell.DropoutWrapper(Echo(), state_keep_prob=0.5,
                                       dropout_state_filter_visitor=lambda s: True)
    keep_all = rnn_cell.DropoutWrapper(Echo(), state_keep_prob=0.5,
                                       dropout_state_filter_visitor=lambda s: False)
    _, dropped = tf1.nn.dynamic_rnn(drop_all, x, dtype=tf.float32)
    _, kept = tf1.nn.dynamic_rnn(keep_all, x, dtype=tf.float32)
    assert set(np.unique(dropped.c.numpy())) == {0.0, 2.0}
    np.testing.assert_array_equal(kept.h.numpy(), 1.0)
    with pytest.raises(ValueError, match="Parameter output_keep_prob must be between 0 and 1"):
        rnn_cell.DropoutWrapper(Echo(), output_keep_prob=1.5)
    with pytest.raises(TypeError, match="dropout_state_filter_visitor must be callable"):
        rnn_cell.DropoutWrapper(Echo(), dropout_state_filter_visitor=True)


def test_dropout_wrapper_keep_prob_placeholder_and_variational_masks():
    x_value = np.ones((500, 4, 3), np.float32)
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, 4, 3])
        keep = tf1.placeholder(tf.float32, [])
        cell = rnn_cell.BasicRNNCell(3, activation=tf.identity)
        fresh = rnn_cell.DropoutWrapper(cell, input_keep_prob=keep)
        out, _ = tf1.nn.dynamic_rnn(fresh, x, dtype=tf.float32)
        plain, _ = tf1.nn.dynamic_rnn(cell, x, dtype=tf.float32, scope="plain")
        variational = rnn_cell.DropoutWrapper(cell, output_keep_prob=0.5,
                                              variational_recurrent=True, dtype=tf.float32)
        masked, _ = tf1.nn.dynamic_rnn(variational, x, dtype=tf.float32, scope="variational")
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            kept, reference = sess.run([out, plain], {x: x_value, keep: 1.0})
            np.testing.assert_allclose(kept, reference, rtol=1e-6)
            dropped = sess.run(out, {x: x_value, keep: 0.5})
            assert not np.allclose(dropped, reference)
            runs = [sess.run(masked, {x: x_value}) for _ in range(6)]
    for run in runs:
        zero = run == 0
        assert (zero == zero[:1, :1]).all()  # one mask for every row and every step
    patterns = {tuple(run[0, 0] == 0) for run in runs}
    assert len(patterns) > 1  # a new sample per Session.run


def test_residual_and_device_wrappers():
    rs = np.random.RandomState(0)
    x = rs.randn(2, 3, 2).astype(np.float32)
    cell = rnn_cell.GRUCell(2)
    plain, _ = tf1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    residual, _ = tf1.nn.dynamic_rnn(rnn_cell.ResidualWrapper(cell), x, dtype=tf.float32)
    on_cpu, _ = tf1.nn.dynamic_rnn(rnn_cell.DeviceWrapper(cell, "/cpu:0"), x,
                                   dtype=tf.float32)
    custom, _ = tf1.nn.dynamic_rnn(
        rnn_cell.ResidualWrapper(cell, residual_fn=lambda i, o: o - i), x, dtype=tf.float32)
    np.testing.assert_allclose(plain.numpy(), on_cpu.numpy(), rtol=1e-6)
    # the residual changes the outputs only; the state still comes from the cell
    np.testing.assert_allclose(residual.numpy(), plain.numpy() + x, rtol=1e-6)
    np.testing.assert_allclose(custom.numpy(), plain.numpy() - x, rtol=1e-6)


def test_projection_wrappers_match_numpy():
    rs = np.random.RandomState(5)
    x = rs.randn(2, 3, 2).astype(np.float32)
    output_wrapper = tf.contrib.rnn.OutputProjectionWrapper(rnn_cell.BasicRNNCell(3), 1,
                                                            activation=tf.nn.relu)
    out, state = tf1.nn.dynamic_rnn(output_wrapper, x, dtype=tf.float32)
    kernel, bias, proj_kernel, proj_bias = [v.numpy() for v in output_wrapper.variables]
    hidden, _ = np_dynamic_rnn(
        lambda xt, s: (lambda o, n: (o, (n,)))(*np_basic_rnn(xt, s[0], kernel, bias)),
        x, [3, 3], (np.zeros((2, 3), np.float32),))
    assert not proj_bias.any() and out.shape == (2, 3, 1)
    np.testing.assert_allclose(out.numpy(), np.maximum(hidden @ proj_kernel + proj_bias, 0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state.numpy(), hidden[:, -1], rtol=1e-5, atol=1e-6)
    input_wrapper = tf.contrib.rnn.InputProjectionWrapper(rnn_cell.BasicRNNCell(3), 4)
    out, _ = tf1.nn.dynamic_rnn(input_wrapper, x, dtype=tf.float32)
    proj_kernel, proj_bias, kernel, bias = [v.numpy() for v in input_wrapper.variables]
    expected, _ = np_dynamic_rnn(
        lambda xt, s: (lambda o, n: (o, (n,)))(*np_basic_rnn(xt @ proj_kernel + proj_bias,
                                                             s[0], kernel, bias)),
        x, [3, 3], (np.zeros((2, 3), np.float32),))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="Parameter output_size must be > 0: 0"):
        tf.contrib.rnn.OutputProjectionWrapper(rnn_cell.GRUCell(2), 0)


# ---------------------------------------------------------------- training and checkpoints


def test_char_rnn_trains_in_graph_mode():
    vocab, steps, batch = 5, 8, 6
    text = np.arange(batch * (steps + 1)) % vocab
    rows = np.stack([np.roll(text, -i)[:steps + 1] for i in range(batch)])
    tf1.set_random_seed(1)
    with tf.Graph().as_default():
        inputs = tf1.placeholder(tf.int32, [None, steps])
        targets = tf1.placeholder(tf.int32, [None, steps])
        embedding = tf1.get_variable("embedding", [vocab, 8])
        cell = rnn_cell.MultiRNNCell([rnn_cell.LSTMCell(16), rnn_cell.GRUCell(16)])
        outputs, _ = tf1.nn.dynamic_rnn(cell, tf.nn.embedding_lookup(embedding, inputs),
                                        dtype=tf.float32)
        logits = tf1.layers.dense(tf.reshape(outputs, [-1, 16]), vocab)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(targets, [-1]), logits=logits))
        train = tf1.train.AdamOptimizer(0.05).minimize(loss)
        feed = {inputs: rows[:, :-1], targets: rows[:, 1:]}
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            first = sess.run(loss, feed)
            for _ in range(20):
                sess.run(train, feed)
            last = sess.run(loss, feed)
    assert first > 1.4 and last < 0.1 * first


def test_saver_round_trip(tmp_path):
    x_value, kernel, bias, state = lstm_setup()
    path = os.path.join(str(tmp_path), "model.ckpt")

    def build():
        x = tf1.placeholder(tf.float32, [None, 6, 2])
        cell = rnn_cell.MultiRNNCell([rnn_cell.BasicLSTMCell(3), rnn_cell.GRUCell(2)])
        out, _ = tf1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        return x, out

    with tf.Graph().as_default():
        x, out = build()
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            before = sess.run(out, {x: x_value})
            saver.save(sess, path)
    names = dict(tf.train.list_variables(path))
    assert names["rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel"] == [5, 12]
    assert names["rnn/multi_rnn_cell/cell_1/gru_cell/gates/bias"] == [4]
    with tf.Graph().as_default():
        x, out = build()
        with tf1.Session() as sess:
            tf1.train.Saver().restore(sess, path)
            np.testing.assert_allclose(sess.run(out, {x: x_value}), before, rtol=1e-6)


# ---------------------------------------------------------------- API and errors


def test_api_paths():
    for name in ("RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell",
                 "MultiRNNCell", "DropoutWrapper", "ResidualWrapper", "DeviceWrapper",
                 "LSTMStateTuple"):
        assert getattr(tf.contrib.rnn, name) is getattr(tf.nn.rnn_cell, name)
        assert getattr(tf1.nn.rnn_cell, name) is getattr(tf.nn.rnn_cell, name)
    assert tf.contrib.rnn.static_rnn is tf1.nn.static_rnn
    assert tf.contrib.rnn.static_bidirectional_rnn is tf1.nn.static_bidirectional_rnn
    assert tf1.nn.dynamic_rnn is tf.nn.dynamic_rnn
    assert rnn_cell.LSTMStateTuple(1, 2)._fields == ("c", "h")
    with pytest.raises(NotImplementedError, match="raw_rnn"):
        tf1.nn.raw_rnn  # noqa: B018 - the attribute access is what is tested


ERROR_CASES = [
    ("no dtype", lambda x: tf1.nn.dynamic_rnn(rnn_cell.GRUCell(2), x), ValueError,
     "If there is no initial_state, you must give a dtype"),
    ("not a cell", lambda x: tf1.nn.dynamic_rnn(lambda a, b: a, x, dtype=tf.float32),
     TypeError, "is not an RNNCell: 'output_size' property is missing"),
    ("plain tuple state", lambda x: tf1.nn.dynamic_rnn(
        rnn_cell.BasicLSTMCell(2), x, initial_state=(np.zeros((2, 2), np.float32),) * 2),
     TypeError, "don't have the same sequence type"),
    ("rank 2 inputs", lambda x: tf1.nn.dynamic_rnn(rnn_cell.GRUCell(2), x[0],
                                                   dtype=tf.float32, time_major=True),
     ValueError, "must have rank at least 3"),
    ("lengths of rank 2", lambda x: tf1.nn.dynamic_rnn(
        rnn_cell.GRUCell(2), x, sequence_length=[[3, 3]], dtype=tf.float32), ValueError,
     "sequence_length must be a vector of length batch_size"),
    ("lengths of the wrong size", lambda x: tf1.nn.dynamic_rnn(
        rnn_cell.GRUCell(2), x, sequence_length=[3, 3, 3], dtype=tf.float32),
     errors.InvalidArgumentError, r"Expected shape for Tensor sequence_length:0 is \[2\] but "
     r"saw shape: \[3\]"),
    ("integer inputs", lambda x: tf1.nn.dynamic_rnn(
        rnn_cell.GRUCell(2), x.astype(np.int32), dtype=tf.float32), ValueError,
     "RNN cell only supports floating point inputs"),
    ("static_rnn on a tensor", lambda x: tf1.nn.static_rnn(
        rnn_cell.GRUCell(2), tf.constant(x), dtype=tf.float32), TypeError,
     "inputs must be a sequence"),
    ("static_rnn on no inputs", lambda x: tf1.nn.static_rnn(
        rnn_cell.GRUCell(2), [], dtype=tf.float32), ValueError, "inputs must not be empty"),
    ("partitioned LSTM", lambda x: rnn_cell.LSTMCell(2, num_unit_shards=2),
     NotImplementedError, "partitioned variables"),
    ("empty MultiRNNCell", lambda x: rnn_cell.MultiRNNCell([]), ValueError,
     "Must specify at least one cell"),
]


@pytest.mark.parametrize("name,call,error,message", ERROR_CASES,
                         ids=[c[0] for c in ERROR_CASES])
def test_errors(name, call, error, message):
    with pytest.raises(error, match=message):
        call(np.zeros((2, 3, 4), np.float32))


def test_graph_length_mismatch_and_unknown_depth():
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, 3, 4])
        lengths = tf1.placeholder(tf.int32, [None])
        out, _ = tf1.nn.dynamic_rnn(rnn_cell.GRUCell(2), x, sequence_length=lengths,
                                    dtype=tf.float32)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            with pytest.raises(errors.InvalidArgumentError,
                               match=r"Expected shape for Tensor sequence_length:0 is \[2\]"):
                sess.run(out, {x: np.zeros((2, 3, 4)), lengths: [1, 2, 3]})
        with pytest.raises(ValueError, match="sequence_length must be a vector of length "
                                             "batch_size \\(2\\)"):
            tf1.nn.dynamic_rnn(rnn_cell.GRUCell(2), tf1.placeholder(tf.float32, [2, 3, 4]),
                               sequence_length=[1, 2, 3], dtype=tf.float32, scope="static")
        with pytest.raises(ValueError, match="Input size \\(depth of inputs\\) must be "
                                             "accessible via shape inference"):
            tf1.nn.dynamic_rnn(rnn_cell.GRUCell(2), tf1.placeholder(tf.float32, [2, 3, None]),
                               dtype=tf.float32, scope="unknown_depth")


@pytest.mark.parametrize("graph_mode", [False, True])
def test_outputs_must_match_output_size(graph_mode):
    class TwoOutputs(rnn_cell.RNNCell):
        state_size = property(lambda self: 2)
        output_size = property(lambda self: 2)

        def call(self, inputs, state):
            return (state, state), state

    with pytest.raises(ValueError, match="returned 2 output tensors, but its output_size "
                                         "has 1"):
        if graph_mode:
            with tf.Graph().as_default():
                tf1.nn.dynamic_rnn(TwoOutputs(), tf1.placeholder(tf.float32, [1, 2, 2]),
                                   dtype=tf.float32)
        else:
            tf1.nn.dynamic_rnn(TwoOutputs(), np.zeros((1, 2, 2), np.float32),
                               dtype=tf.float32)
