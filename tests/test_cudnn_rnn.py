"""tf.contrib.cudnn_rnn: CudnnLSTM / CudnnGRU against numpy RNNs written from cuDNN's
equations (LSTM gates i, f, c, o with two biases; GRU gates r, u, c with the reset gate after
the recurrent matmul), in eager and graph mode, and the CudnnCompatible cells."""
import numpy as np
import pytest
from test_runner import check, run_script

import tfcompat as tf
from tfcompat.contrib import cudnn_rnn

RNG = np.random.RandomState(0)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def canonical(layer, opaque):
    """[(W gates, R gates, bW gates, bR gates)] per (layer, direction), from the documented
    opaque layout: every canonical weight (row-major) then every canonical bias."""
    gates = layer._num_params_per_layer // 2
    sizes = [int(np.prod(s)) for s in layer.canonical_weight_shapes + layer.canonical_bias_shapes]
    assert opaque.size == sum(sizes)
    pieces = np.split(opaque, np.cumsum(sizes)[:-1])
    shapes = layer.canonical_weight_shapes + layer.canonical_bias_shapes
    tensors = [p.reshape(s) for p, s in zip(pieces, shapes)]
    weights, biases = tensors[:len(layer.canonical_weight_shapes)], \
        tensors[len(layer.canonical_weight_shapes):]
    groups = []
    for i in range(0, len(weights), 2 * gates):
        w, b = weights[i:i + 2 * gates], biases[i:i + 2 * gates]
        groups.append((w[:gates], w[gates:], b[:gates], b[gates:]))
    return groups


def lstm_step(x, state, params):
    W, R, bW, bR = params
    h, c = state
    pre = [x @ W[g].T + bW[g] + h @ R[g].T + bR[g] for g in range(4)]
    i, f, g, o = sigmoid(pre[0]), sigmoid(pre[1]), np.tanh(pre[2]), sigmoid(pre[3])
    c = f * c + i * g
    return o * np.tanh(c), (o * np.tanh(c), c)


def gru_step(x, state, params):
    W, R, bW, bR = params
    (h,) = state
    r = sigmoid(x @ W[0].T + bW[0] + h @ R[0].T + bR[0])
    u = sigmoid(x @ W[1].T + bW[1] + h @ R[1].T + bR[1])
    candidate = np.tanh(x @ W[2].T + bW[2] + r * (h @ R[2].T + bR[2]))
    h = (1 - u) * candidate + u * h
    return h, (h,)


def numpy_rnn(step, x, states, groups, num_layers, dirs):
    """Time-major x [T, B, D]; states tuple of [L * dirs, B, H]; returns (outputs, states)."""
    finals = [[] for _ in states]
    for layer in range(num_layers):
        direction_outputs = []
        for d in range(dirs):
            index = layer * dirs + d
            state = tuple(s[index] for s in states)
            steps = range(x.shape[0]) if d == 0 else reversed(range(x.shape[0]))
            outputs = [None] * x.shape[0]
            for t in steps:
                outputs[t], state = step(x[t], state, groups[index])
            direction_outputs.append(np.stack(outputs))
            for final, value in zip(finals, state):
                final.append(value)
        x = np.concatenate(direction_outputs, -1)
    return x, tuple(np.stack(f) for f in finals)


CASES = [  # layer class, step, num_layers, direction
    (cudnn_rnn.CudnnLSTM, lstm_step, 1, "unidirectional"),
    (cudnn_rnn.CudnnGRU, gru_step, 1, "unidirectional"),
    (cudnn_rnn.CudnnLSTM, lstm_step, 2, "bidirectional"),
    (cudnn_rnn.CudnnGRU, gru_step, 2, "bidirectional"),
]


@pytest.mark.parametrize("cls,step,num_layers,direction", CASES)
def test_eager_matches_cudnn_equations(cls, step, num_layers, direction):
    dirs = 2 if direction == "bidirectional" else 1
    layer = cls(num_layers, 3, direction=direction,
                bias_initializer=tf.compat.v1.random_uniform_initializer(-0.5, 0.5))
    x = RNG.randn(5, 2, 4).astype(np.float32)
    count = 2 if cls is cudnn_rnn.CudnnLSTM else 1
    states = tuple(RNG.randn(num_layers * dirs, 2, 3).astype(np.float32) for _ in range(count))
    outputs, final = layer(tf.constant(x), initial_state=states)
    assert outputs.shape == (5, 2, 3 * dirs) and len(final) == count
    scope, _, name = layer.kernel.name.partition("/")
    assert scope.startswith("cudnn_lstm" if count == 2 else "cudnn_gru")
    assert name == "opaque_kernel:0"
    groups = canonical(layer, layer.kernel.numpy())
    expected, expected_final = numpy_rnn(step, x.astype(np.float64), states, groups,
                                         num_layers, dirs)
    np.testing.assert_allclose(outputs.numpy(), expected, rtol=1e-4, atol=1e-5)
    for got, want in zip(final, expected_final):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)


def test_default_names_shapes_and_zero_state():
    lstm = cudnn_rnn.CudnnLSTM(2, 3, name="cudnn_names")
    outputs, (h, c) = lstm(tf.ones([6, 2, 4]))
    assert (outputs.shape, h.shape, c.shape) == ((6, 2, 3), (2, 2, 3), (2, 2, 3))
    assert lstm.trainable_variables == [lstm.kernel]
    assert lstm.kernel.name == "cudnn_names/opaque_kernel:0"
    # 2 layers x (4 input + 4 recurrent gates) x (3x4 or 3x3) weights + 16 biases of 3 each
    assert lstm.kernel.numpy().size == 4 * 12 + 4 * 9 + 4 * 9 + 4 * 9 + 16 * 3
    assert lstm.canonical_weight_shapes[:5] == [(3, 4)] * 4 + [(3, 3)]
    assert lstm.state_shape(7) == ([2, 7, 3], [2, 7, 3])
    assert (lstm.num_layers, lstm.num_units, lstm.num_dirs, lstm.input_size,
            lstm.rnn_mode, lstm.direction) == (2, 3, 1, 4, "lstm", "unidirectional")
    zero = tuple(np.zeros([2, 2, 3], np.float32) for _ in range(2))
    again, _ = lstm(tf.ones([6, 2, 4]), initial_state=zero)
    np.testing.assert_allclose(again.numpy(), outputs.numpy(), rtol=1e-6)


def test_batch_major_with_sequence_lengths():
    gru = cudnn_rnn.CudnnGRU(1, 3, direction="bidirectional")
    x = RNG.randn(2, 5, 4).astype(np.float32)     # [batch, time, depth]
    lengths = [5, 3]
    outputs, (h,) = gru(tf.constant(x), sequence_lengths=tf.constant(lengths),
                        time_major=False)
    assert outputs.shape == (2, 5, 6) and h.shape == (2, 2, 3)
    groups = canonical(gru, gru.kernel.numpy())
    for b, length in enumerate(lengths):   # each sequence alone, only its valid steps
        seq = x[b:b + 1, :length].transpose(1, 0, 2).astype(np.float64)
        want, (want_h,) = numpy_rnn(gru_step, seq, (np.zeros([2, 1, 3]),), groups, 1, 2)
        np.testing.assert_allclose(outputs.numpy()[b, :length], want[:, 0], rtol=1e-4,
                                   atol=1e-5)
        np.testing.assert_allclose(h.numpy()[b], want_h[:, 0], rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(outputs.numpy()[1, 3:], 0.0)


def test_dropout_only_between_layers_and_only_in_training():
    lstm = cudnn_rnn.CudnnLSTM(2, 8, dropout=0.9)
    x = tf.constant(RNG.randn(4, 3, 5).astype(np.float32))
    inference, _ = lstm(x, training=False)
    again, _ = lstm(x, training=False)
    np.testing.assert_array_equal(inference.numpy(), again.numpy())
    trained, _ = lstm(x, training=True)
    assert not np.allclose(trained.numpy(), inference.numpy())
    single = cudnn_rnn.CudnnLSTM(1, 8, dropout=0.9)
    a, _ = single(x, training=True)
    b, _ = single(x, training=False)
    np.testing.assert_array_equal(a.numpy(), b.numpy())   # one layer: no dropout at all


def test_gradients_eager():
    gru = cudnn_rnn.CudnnGRU(1, 2)
    x = tf.constant(RNG.randn(3, 1, 2).astype(np.float32))
    with tf.GradientTape() as tape:
        outputs, _ = gru(x)
        loss = tf.reduce_sum(outputs)
    grad = tape.gradient(loss, gru.kernel)
    base = gru.kernel.numpy().copy()
    eps, index = 1e-2, 1
    shifted = base.copy()
    shifted[index] += eps
    gru.kernel.assign(shifted)
    up = tf.reduce_sum(gru(x)[0]).numpy()
    shifted[index] -= 2 * eps
    gru.kernel.assign(shifted)
    down = tf.reduce_sum(gru(x)[0]).numpy()
    assert grad.shape == base.shape
    np.testing.assert_allclose(grad.numpy()[index], (up - down) / (2 * eps), rtol=1e-2)


def test_graph_mode_matches_equations_and_trains():
    x = RNG.randn(4, 2, 3).astype(np.float32)
    with tf.Graph().as_default():
        inputs = tf.compat.v1.placeholder(tf.float32, [None, None, 3])
        lstm = cudnn_rnn.CudnnLSTM(1, 2)
        outputs, (h, c) = lstm(inputs)
        assert outputs.shape.as_list() == [None, None, 2]
        assert h.shape.as_list() == [1, None, 2]
        loss = tf.reduce_sum(outputs)
        train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            got, got_h, kernel = sess.run([outputs, h, lstm.kernel], {inputs: x})
            sess.run(train, {inputs: x})
            assert not np.allclose(sess.run(lstm.kernel), kernel)
    zeros = (np.zeros([1, 2, 2]), np.zeros([1, 2, 2]))
    want, (want_h, _) = numpy_rnn(lstm_step, x.astype(np.float64), zeros,
                                  canonical(lstm, kernel), 1, 1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_h, want_h, rtol=1e-4, atol=1e-5)


def run_cell(cell, x, state):
    outputs = []
    for t in range(x.shape[0]):
        output, state = cell(tf.constant(x[t]), state)
        outputs.append(output.numpy())
    return np.stack(outputs), state


def test_compatible_lstm_cell_computes_cudnn_lstm():
    lstm = cudnn_rnn.CudnnLSTM(1, 3, bias_initializer=tf.compat.v1.random_uniform_initializer(
        -0.5, 0.5))
    x = RNG.randn(4, 2, 5).astype(np.float32)
    outputs, (h, c) = lstm(tf.constant(x))
    W, R, bW, bR = canonical(lstm, lstm.kernel.numpy())[0]
    cell = cudnn_rnn.CudnnCompatibleLSTMCell(3)
    state = cell.zero_state(2, tf.float32)
    cell(tf.constant(x[0]), state)   # build
    assert [v.name.split("/")[-1] for v in cell.variables] == ["kernel:0", "bias:0"]
    assert cell.variables[0].name.startswith("cudnn_compatible_lstm_cell")
    order = [0, 2, 1, 3]   # cuDNN's i, f, c, o -> the cell's i, c, f, o
    kernel = np.concatenate([np.concatenate([W[g].T, R[g].T], 0) for g in order], 1)
    cell.variables[0].assign(kernel)
    cell.variables[1].assign(np.concatenate([bW[g] + bR[g] for g in order]))
    got, (got_c, got_h) = run_cell(cell, x, state)
    np.testing.assert_allclose(got, outputs.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_c.numpy(), c.numpy()[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_h.numpy(), h.numpy()[0], rtol=1e-4, atol=1e-5)


def test_compatible_gru_cell_computes_cudnn_gru():
    gru = cudnn_rnn.CudnnGRU(1, 3, bias_initializer=tf.compat.v1.random_uniform_initializer(
        -0.5, 0.5))
    x = RNG.randn(4, 2, 5).astype(np.float32)
    outputs, (h,) = gru(tf.constant(x))
    W, R, bW, bR = canonical(gru, gru.kernel.numpy())[0]
    cell = cudnn_rnn.CudnnCompatibleGRUCell(3)
    state = tf.zeros([2, 3])
    cell(tf.constant(x[0]), state)
    names = {v.name.split("/", 1)[1]: v for v in cell.variables}
    assert sorted(names) == sorted([
        "gates/kernel:0", "gates/bias:0", "candidate/input_projection/kernel:0",
        "candidate/hidden_projection/kernel:0", "candidate/input_projection/bias:0",
        "candidate/hidden_projection/bias:0"])
    np.testing.assert_array_equal(names["gates/bias:0"].numpy(), 1.0)
    names["gates/kernel:0"].assign(np.concatenate(
        [np.concatenate([W[g].T, R[g].T], 0) for g in (0, 1)], 1))
    names["gates/bias:0"].assign(np.concatenate([bW[0] + bR[0], bW[1] + bR[1]]))
    names["candidate/input_projection/kernel:0"].assign(W[2].T)
    names["candidate/input_projection/bias:0"].assign(bW[2])
    names["candidate/hidden_projection/kernel:0"].assign(R[2].T)
    names["candidate/hidden_projection/bias:0"].assign(bR[2])
    got, got_h = run_cell(cell, x, state)
    np.testing.assert_allclose(got, outputs.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_h.numpy(), h.numpy()[0], rtol=1e-4, atol=1e-5)


def test_errors_as_tf():
    with pytest.raises(ValueError, match="Invalid direction"):
        cudnn_rnn.CudnnLSTM(1, 2, direction="sideways")
    with pytest.raises(ValueError, match="Only support float16, float32, float64"):
        cudnn_rnn.CudnnGRU(1, 2, dtype=tf.int32)
    with pytest.raises(ValueError, match="Expecting input_shape with 3 dims"):
        cudnn_rnn.CudnnLSTM(1, 2)(tf.ones([2, 3]))
    with pytest.raises(TypeError, match="expecting tuple"):
        cudnn_rnn.CudnnGRU(1, 2)(tf.ones([2, 1, 3]), initial_state=[tf.zeros([1, 1, 2])])
    with pytest.raises(NotImplementedError, match="skip_input"):
        cudnn_rnn.CudnnLSTM(1, 2, input_mode="skip_input")(tf.ones([2, 1, 3]))
    with pytest.raises(ValueError, match="has not been built"):
        cudnn_rnn.CudnnLSTM(1, 2).input_size
    gru = cudnn_rnn.CudnnGRU(1, 2)
    gru(tf.ones([2, 1, 3]))
    gru.kernel.assign(tf.zeros([5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="opaque RNN parameter buffer"):
        gru(tf.ones([2, 1, 3]))


def test_import_path_under_the_runner(tmp_path):
    out = check(run_script(tmp_path, """
        import tensorflow as tf
        from tensorflow.contrib.cudnn_rnn import CudnnLSTM, CudnnCompatibleLSTMCell
        x = tf.placeholder(tf.float32, [7, 2, 3])
        outputs, (h, c) = CudnnLSTM(num_layers=1, num_units=4)(x)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            print(sess.run(outputs, {x: [[[1.0, 2.0, 3.0]] * 2] * 7}).shape)
    """))
    assert "(7, 2, 4)" in out


# ---------------------------------------------------------------- checkpoints


def build_cudnn(cls, direction, x):
    inputs = tf.compat.v1.placeholder(tf.float32, x.shape)
    layer = cls(2, 3, direction=direction,
                bias_initializer=tf.compat.v1.random_uniform_initializer(-1, 1))
    return inputs, layer, layer(inputs)[0]


def build_compatible(cell, direction, x):
    """The compatible-cell network under the names TF's canonical saveables use."""
    inputs = tf.compat.v1.placeholder(tf.float32, x.shape)
    scope = "cudnn_lstm" if cell is cudnn_rnn.CudnnCompatibleLSTMCell else "cudnn_gru"
    with tf.compat.v1.variable_scope(scope):
        if direction == "unidirectional":
            multi = tf.compat.v1.nn.rnn_cell.MultiRNNCell([cell(3) for _ in range(2)])
            outputs, _ = tf.compat.v1.nn.dynamic_rnn(multi, inputs, dtype=tf.float32,
                                                     time_major=True)
        else:
            outputs, _, _ = tf.contrib.rnn.stack_bidirectional_dynamic_rnn(
                [cell(3) for _ in range(2)], [cell(3) for _ in range(2)], inputs,
                dtype=tf.float32, time_major=True)
    return inputs, outputs


COMPATIBLE = [(cudnn_rnn.CudnnLSTM, cudnn_rnn.CudnnCompatibleLSTMCell, "unidirectional"),
              (cudnn_rnn.CudnnGRU, cudnn_rnn.CudnnCompatibleGRUCell, "bidirectional")]


@pytest.mark.parametrize("cls,cell,direction", COMPATIBLE)
def test_compatible_cells_restore_cudnn_checkpoints(tmp_path, cls, cell, direction):
    x = RNG.randn(5, 2, 4).astype(np.float32)
    with tf.Graph().as_default():
        inputs, layer, outputs = build_cudnn(cls, direction, x)
        keys = [s.checkpoint_key for s in layer.saveable]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            expected = sess.run(outputs, {inputs: x})
            prefix = tf.compat.v1.train.Saver().save(sess, str(tmp_path / "cudnn"))
    saved = dict(tf.train.list_variables(prefix))
    assert set(keys) <= set(saved)
    if cls is cudnn_rnn.CudnnLSTM:
        assert keys[:2] == ["cudnn_lstm/rnn/multi_rnn_cell/cell_0/cudnn_compatible_lstm_cell/"
                            "kernel", "cudnn_lstm/rnn/multi_rnn_cell/cell_0/"
                            "cudnn_compatible_lstm_cell/bias"]
        assert saved[keys[0]] == [4 + 3, 12] and saved[keys[1]] == [12]
    else:
        assert keys[0] == ("cudnn_gru/stack_bidirectional_rnn/cell_0/bidirectional_rnn/fw/"
                           "cudnn_compatible_gru_cell/gates/kernel")
        assert len(keys) == 2 * 2 * 6
    with tf.Graph().as_default():
        inputs, outputs = build_compatible(cell, direction, x)
        with tf.compat.v1.Session() as sess:
            tf.compat.v1.train.Saver().restore(sess, prefix)
            np.testing.assert_allclose(sess.run(outputs, {inputs: x}), expected, rtol=1e-4,
                                       atol=1e-5)


def test_cudnn_restores_from_canonical_tensors_not_the_opaque_buffer(tmp_path):
    """A TensorFlow CudnnLSTM checkpoint's opaque buffer is cuDNN's own layout: the layer is
    rebuilt from the canonical tensors saved beside it."""
    x = RNG.randn(5, 2, 4).astype(np.float32)
    with tf.Graph().as_default():
        inputs, outputs = build_compatible(cudnn_rnn.CudnnCompatibleLSTMCell, "unidirectional", x)
        foreign = tf.compat.v1.Variable(np.full([11], 7.0, np.float32), name="opaque")
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            expected = sess.run(outputs, {inputs: x})
            variables = {v.op.name: v for v in tf.compat.v1.trainable_variables()}
            variables["cudnn_lstm/opaque_kernel"] = foreign
            prefix = tf.compat.v1.train.Saver(variables).save(sess, str(tmp_path / "tf"))
    with tf.Graph().as_default():
        inputs, layer, outputs = build_cudnn(cudnn_rnn.CudnnLSTM, "unidirectional", x)
        with tf.compat.v1.Session() as sess:
            tf.compat.v1.train.Saver().restore(sess, prefix)
            np.testing.assert_allclose(sess.run(outputs, {inputs: x}), expected, rtol=1e-4,
                                       atol=1e-5)
            assert sess.run(layer.kernel).size == layer._opaque_size()


def test_reached_as_attributes_of_tf_contrib():
    from tfcompat.contrib import cudnn_rnn
    assert tf.contrib.cudnn_rnn.CudnnLSTM is cudnn_rnn.CudnnLSTM
    assert tf.compat.v1.contrib.cudnn_rnn.CudnnCompatibleGRUCell is cudnn_rnn.CudnnCompatibleGRUCell
