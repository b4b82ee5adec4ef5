"""tf.gradients / tf.hessians in graphs: first-order backward passes skip the double-backward
graph; second-order uses (hessians, nested gradients, gradient penalties, MAML-style steps,
gradients inside control flow or tf.function) stay correct."""
import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework.ops import op

tf1 = tf.compat.v1


class _RecordGradMode(torch.autograd.Function):
    """Identity whose backward notes whether autograd builds a graph of it (create_graph)."""

    seen = []

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        _RecordGradMode.seen.append(torch.is_grad_enabled())
        return grad


@op(graph_name="RecordGradMode")
def record_grad_mode(x):
    return _RecordGradMode.apply(x)


def _backward_modes(build):
    """The grad modes the backward passes of `record_grad_mode` ran in for one Session.run."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [3])
        fetches = build(x)
        with tf1.Session() as sess:
            _RecordGradMode.seen[:] = []
            sess.run(fetches, {x: [1.0, 2.0, 3.0]})
            return list(_RecordGradMode.seen)


@pytest.mark.parametrize("build, expected", [
    # a plain gradient: no graph of the backward pass
    (lambda x: tf.gradients(tf.reduce_sum(record_grad_mode(x) ** 2), x), [False]),
    # its result differentiated again: the first backward pass must build one
    (lambda x: tf.gradients(tf.reduce_sum(tf.gradients(
        tf.reduce_sum(record_grad_mode(x) ** 3), x)[0] ** 2), x), [True, False]),
    # two unrelated gradients in one run: neither needs it
    (lambda x: tf.gradients(tf.reduce_sum(record_grad_mode(x)), x) +
     tf.gradients(tf.reduce_sum(record_grad_mode(x) * 2.0), x), [False, False]),
])
def test_backward_pass_is_differentiable_only_when_differentiated_again(build, expected):
    assert _backward_modes(build) == expected


def _run(build, feed):
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [len(feed)])
        fetches = build(x)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            return sess.run(fetches, {x: feed})


def _penalty(x):
    # f = sum(x^3); loss = f + sum((df/dx)^2) = sum(x^3 + 9 x^4); dloss/dx = 3x^2 + 36x^3
    f = tf.reduce_sum(x ** 3)
    (g,) = tf.gradients(f, x)
    return tf.gradients(f + tf.reduce_sum(g ** 2), x)[0]


def _maml(x):
    # one inner step w' = w - 0.1 * dL/dw with L = sum((w x)^2); outer loss sum((w' x)^2)
    w = tf1.get_variable("w", initializer=2.0)
    inner = tf.reduce_sum((w * x) ** 2)
    adapted = w - 0.1 * tf.gradients(inner, w)[0]
    return tf.gradients(tf.reduce_sum((adapted * x) ** 2), w)[0]


def _maml_reference(x, w=2.0):
    w = torch.tensor(w, requires_grad=True)
    x = torch.tensor(x)
    (inner,) = torch.autograd.grad(((w * x) ** 2).sum(), w, create_graph=True)
    (outer,) = torch.autograd.grad((((w - 0.1 * inner) * x) ** 2).sum(), w)
    return float(outer)


def _gradient_in_loop(x):
    # the loop body takes a gradient (x <- x - 0.1 d(x^2)/dx = 0.8 x) three times;
    # d(sum(result))/dx = 0.8^3
    def body(i, v):
        return i + 1, v - 0.1 * tf.gradients(tf.reduce_sum(v * v), v)[0]
    result = tf.while_loop(lambda i, v: i < 3, body, [tf.constant(0), x])[1]
    return tf.gradients(tf.reduce_sum(result), x)[0]


def _gradient_in_branch(x):
    # the branch returns d(sum(x^3))/dx = 3x^2; its gradient is 6x
    branch = tf.cond(tf.constant(True), lambda: tf.gradients(tf.reduce_sum(x ** 3), x)[0],
                     lambda: x)
    return tf.gradients(tf.reduce_sum(branch), x)[0]


def _grad_ys_from_gradient(x):
    # seed the gradient of sum(x^2) with g = d(sum(x^3))/dx = 3x^2: h = 2x * 3x^2 = 6x^3;
    # dh/dx = 18x^2
    (g,) = tf.gradients(tf.reduce_sum(x ** 3), x)
    (h,) = tf.gradients(x ** 2, x, grad_ys=g)
    return tf.gradients(tf.reduce_sum(h), x)[0]


def _tape_in_graph(x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(x ** 4)
        g = inner.gradient(y, x)
    return outer.gradient(tf.reduce_sum(g), x)        # 12 x^2


@pytest.mark.parametrize("build, expected", [
    (lambda x: tf.hessians(tf.reduce_sum(x ** 3), x)[0], lambda x: np.diag(6 * x)),
    (lambda x: tf.gradients(tf.gradients(tf.reduce_sum(x ** 3), x)[0], x)[0],
     lambda x: 6 * x),
    (_penalty, lambda x: 3 * x ** 2 + 36 * x ** 3),
    (_maml, lambda x: _maml_reference(x)),
    (_gradient_in_loop, lambda x: np.full_like(x, 0.8 ** 3)),
    (_gradient_in_branch, lambda x: 6 * x),
    (_grad_ys_from_gradient, lambda x: 18 * x ** 2),
    (_tape_in_graph, lambda x: 12 * x ** 2),
], ids=["hessians", "nested", "penalty", "maml", "loop", "branch", "grad_ys", "tapes"])
def test_second_order_gradients_in_graphs(build, expected):
    feed = np.array([0.5, -1.0, 2.0], np.float32)
    np.testing.assert_allclose(_run(build, feed), expected(feed), rtol=1e-5)


def test_second_order_inside_tf_function():
    @tf.function
    def second_derivative(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x ** 3
            dy = inner.gradient(y, x)
        return dy, outer.gradient(dy, x)

    dy, d2y = second_derivative(tf.constant([1.0, 2.0]))
    np.testing.assert_allclose(dy.numpy(), [3.0, 12.0])
    np.testing.assert_allclose(d2y.numpy(), [6.0, 12.0])


def test_eager_tape_differentiates_a_gradient_computed_in_tf_function():
    @tf.function
    def derivative(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x ** 3
        return tape.gradient(y, x)

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        dy = derivative(x)
    np.testing.assert_allclose(tape.gradient(dy, x).numpy(), [6.0, 12.0])


def _lstm_gradient_penalty_reference(x, kernel, recurrent_kernel, bias):
    """d/dx sum((d sum(LSTM(x)) / dx)^2) with torch.nn.LSTM (Keras' gates i, f, c, o are
    torch's i, f, g, o)."""
    lstm = torch.nn.LSTM(x.shape[2], recurrent_kernel.shape[0], batch_first=True)
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(torch.tensor(kernel.T))
        lstm.weight_hh_l0.copy_(torch.tensor(recurrent_kernel.T))
        lstm.bias_ih_l0.copy_(torch.tensor(bias))
        lstm.bias_hh_l0.zero_()
    x = torch.tensor(x, requires_grad=True)
    (grad,) = torch.autograd.grad(lstm(x)[0][:, -1].sum(), x, create_graph=True)
    return torch.autograd.grad((grad ** 2).sum(), x)[0].numpy()


def test_second_order_through_keras_lstm_in_a_graph():
    x_value = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, 3, 4])
        layer = tf.keras.layers.LSTM(5, recurrent_activation="sigmoid")
        (grad,) = tf.gradients(tf.reduce_sum(layer(x)), x)
        (penalty_grad,) = tf.gradients(tf.reduce_sum(grad ** 2), x)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            weights = sess.run(layer.weights)
            result = sess.run(penalty_grad, {x: x_value})
    np.testing.assert_allclose(result, _lstm_gradient_penalty_reference(x_value, *weights),
                               rtol=1e-4, atol=1e-6)


def test_second_order_through_keras_lstm_with_eager_tapes():
    x = tf.constant(np.random.RandomState(1).randn(2, 3, 4).astype(np.float32))
    layer = tf.keras.layers.LSTM(5, recurrent_activation="sigmoid")
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(layer(x))
        penalty = tf.reduce_sum(inner.gradient(y, x) ** 2)
    result = outer.gradient(penalty, x).numpy()
    weights = [w.numpy() for w in layer.weights]
    np.testing.assert_allclose(result, _lstm_gradient_penalty_reference(x.numpy(), *weights),
                               rtol=1e-4, atol=1e-6)


def test_tf_gradients_through_op_without_registered_gradient_raises_lookup_error():
    """TF raises when tf.gradients is built, with its graph-mode message; gradients of other
    branches (and of paths cut by stop_gradient) are unaffected."""
    graph = tf.Graph()
    with graph.as_default():
        images = tf1.placeholder(tf.float32, [1, 2, 2, 3])
        contrasted = tf.image.adjust_contrast(images, 0.5)
        with pytest.raises(LookupError) as raised:
            tf1.gradients(contrasted, images)
        assert str(raised.value).startswith(
            "No gradient defined for operation'%s' (op type: AdjustContrastv2). In general "
            "every operation must have an associated `@tf.RegisterGradient`"
            % contrasted.op.name)
        x = tf1.placeholder(tf.float32, [])
        total = tf.reduce_sum(contrasted) + x * x
        (grad_x,) = tf1.gradients(total, x)
        assert tf1.gradients(tf.image.adjust_hue(tf.stop_gradient(images), 0.1), images) == \
            [None]
        with tf1.Session() as sess:
            assert sess.run(grad_x, {images: np.ones([1, 2, 2, 3]), x: 3.0}) == 6.0
