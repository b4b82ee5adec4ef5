"""tf.custom_gradient, tf.recompute_grad and tf.grad_pass_through: eagerly, in TF1 graphs
(tf.gradients, Session.run) and in tf.function (GradientTape inside and around it).

Expected values are hand-computed derivatives (TF's documented results).
"""
import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.eager.custom_gradient import CUSTOM_GRADIENT_FUNCTIONS
from tfcompat.framework.tensor import EagerTensor

tf1 = tf.compat.v1


mul, add, exp, log, tanh = tf.multiply, tf.add, tf.exp, tf.math.log, tf.tanh
round_, reduce_sum = tf.round, tf.reduce_sum


def const(value, dtype=np.float32):
    return tf.convert_to_tensor(np.asarray(value, dtype=dtype))


def grad_of(fn, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        value = fn(x)
    return tape.gradient(value, x)


def log1pexp_plain(x):
    return log(add(1.0, exp(x)))


@tf.custom_gradient
def log1pexp(x):
    e = exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return log(add(1.0, e)), grad


def test_custom_gradient_is_numerically_stable():
    assert np.isnan(grad_of(log1pexp_plain, const(100.0)).numpy())
    assert grad_of(log1pexp, const(100.0)).numpy() == 1.0


def test_value_and_gradient_match_the_plain_function():
    x0 = np.array([-2.0, 0.0, 1.5], dtype=np.float32)
    np.testing.assert_allclose(log1pexp(const(x0)).numpy(), np.log1p(np.exp(x0)), rtol=1e-6)
    np.testing.assert_allclose(grad_of(log1pexp, const(x0)).numpy(),
                               grad_of(log1pexp_plain, const(x0)).numpy(), rtol=1e-6)


def test_without_tape_returns_plain_values():
    y = log1pexp(const(0.0))
    assert isinstance(y, EagerTensor) and not y._t.requires_grad
    assert abs(float(y) - np.log(2.0)) < 1e-6


def test_grad_fn_runs_eagerly_on_a_thread_building_a_graph():
    # autograd runs CUDA backward passes on its own threads, which start in a TF1 process's
    # graph mode: grad_fn's ops must still run eagerly
    x = const(100.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = log1pexp(x)
    with tf.Graph().as_default():
        (g,) = torch.autograd.grad(y._t, x._t)
    assert float(g) == 1.0


def test_second_order_through_grad_fn():
    # grad_fn is sigmoid(x); its derivative sigmoid(x) * (1 - sigmoid(x)) is 0.25 at 0
    x = const(0.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = log1pexp(x)
        g = inner.gradient(y, x)
    assert float(g) == 0.5
    assert abs(float(outer.gradient(g, x)) - 0.25) < 1e-6


def test_several_inputs_and_outputs():
    @tf.custom_gradient
    def f(x, y):
        def grad(d_sum, d_prod):
            return [add(d_sum, mul(d_prod, y)), add(d_sum, mul(d_prod, x))]
        return (add(x, y), mul(x, y)), grad

    x, y = const(2.0), const(5.0)
    with tf.GradientTape() as t:
        t.watch([x, y])
        s, p = f(x, y)
        loss = add(mul(s, 3.0), p)
    gx, gy = t.gradient(loss, [x, y])
    assert float(gx) == 3.0 + 5.0 and float(gy) == 3.0 + 2.0


def test_dict_output_and_unused_output_gradient_is_zero():
    seen = {}

    @tf.custom_gradient
    def f(x):
        def grad(da, db):
            seen["db"] = db.numpy()
            return mul(da, 2.0)
        return {"a": mul(x, 2.0), "b": mul(x, 7.0)}, grad

    x = const([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        out = f(x)
    np.testing.assert_array_equal(t.gradient(out["a"], x).numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(seen["db"], [0.0, 0.0])


def test_wrong_number_of_gradients_raises():
    @tf.custom_gradient
    def f(x, y):
        return mul(x, y), lambda dy: dy

    x, y = const(1.0), const(2.0)
    with tf.GradientTape() as t:
        t.watch([x, y])
        z = f(x, y)
    with pytest.raises(ValueError, match="expected to return 2 gradients"):
        t.gradient(z, [x, y])


def test_none_gradient_for_an_input():
    @tf.custom_gradient
    def f(x, y):
        return mul(x, y), lambda dy: (mul(dy, y), None)

    x, y = const(3.0), const(4.0)
    with tf.GradientTape() as t:
        t.watch([x, y])
        z = f(x, y)
    gx, gy = t.gradient(z, [x, y])
    assert float(gx) == 4.0 and gy is None


def test_non_tensor_arguments_are_passed_through():
    @tf.custom_gradient
    def scale(x, factor):
        return mul(x, factor), lambda dy: (mul(dy, 10.0), None)

    x = const(1.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = scale(x, 3.0)
    assert float(y) == 3.0 and float(t.gradient(y, x)) == 10.0


def test_jacobian_through_custom_gradient():
    @tf.custom_gradient
    def square(x):
        return mul(x, x), lambda dy: mul(dy, mul(x, 2.0))

    @tf.custom_gradient
    def square_unbatchable(x):      # .numpy() in grad_fn: jacobian falls back to a loop
        return mul(x, x), lambda dy: const(dy.numpy() * 2.0 * x.numpy())

    for fn in (square, square_unbatchable):
        x = const([1.0, 2.0])
        with tf.GradientTape() as t:
            t.watch(x)
            y = fn(x)
        np.testing.assert_array_equal(t.jacobian(y, x).numpy(), [[2.0, 0.0], [0.0, 4.0]])


def test_variables_get_gradients_from_grad_fn():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            assert variables == [w]
            return mul(dy, 100.0), [mul(dy, 1000.0)]
        return mul(x, w), grad

    x = const(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    assert float(y) == 6.0
    gx, gw = t.gradient(y, [x, w])
    assert float(gx) == 100.0 and float(gw) == 1000.0


def test_variables_require_variables_keyword():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def f(x):
        return mul(x, w), lambda dy: dy

    with tf.GradientTape():
        with pytest.raises(TypeError, match="keyword argument 'variables'"):
            f(const(1.0))


def test_variables_gradient_count_checked():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def f(x):
        return mul(x, w), lambda dy, variables=None: (dy, [])

    with tf.GradientTape() as t:
        y = f(const(1.0))
    with pytest.raises(ValueError, match="gradient for each variable"):
        t.gradient(y, w)


def test_variable_argument_is_an_input_not_a_captured_variable():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def f(v):
        return mul(v, v), lambda dy: mul(dy, 7.0)

    with tf.GradientTape() as t:
        y = f(w)
    assert float(t.gradient(y, w)) == 7.0


def test_decorator_with_parentheses():
    @tf.custom_gradient()
    def f(x):
        return mul(x, 2.0), lambda dy: mul(dy, 5.0)

    assert float(grad_of(f, const(1.0))) == 5.0
    assert f.__name__ == "f"


# ---------------------------------------------------------------- recompute_grad


def block(x):
    return tanh(mul(exp(mul(x, 0.5)), x))


def test_recompute_grad_same_values_and_gradients():
    x0 = np.array([0.3, -1.2, 2.0], dtype=np.float32)
    wrapped = tf.recompute_grad(block)
    np.testing.assert_allclose(wrapped(const(x0)).numpy(), block(const(x0)).numpy())
    np.testing.assert_allclose(grad_of(wrapped, const(x0)).numpy(),
                               grad_of(block, const(x0)).numpy(), rtol=1e-6)


def test_recompute_grad_keeps_no_graph_of_the_forward():
    x = const([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.recompute_grad(block)(x)
    assert type(y._t.grad_fn).__name__.endswith("CustomGradientOpBackward")
    assert all(fn is None or "CustomGradientOp" not in type(fn).__name__
               for fn, _ in y._t.grad_fn.next_functions)


def test_recompute_grad_with_variables():
    w = tf.Variable([0.5, -0.25])

    def layer(x):
        return reduce_sum(tanh(mul(x, w)))

    x0 = np.array([1.0, 3.0], dtype=np.float32)
    with tf.GradientTape() as t:
        plain = layer(const(x0))
    expected = t.gradient(plain, w).numpy()
    x = const(x0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.recompute_grad(layer)(x)
    gx, gw = t.gradient(y, [x, w])
    assert float(y) == float(plain)
    np.testing.assert_allclose(gw.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(gx.numpy(), (1 - np.tanh(x0 * [0.5, -0.25]) ** 2)
                               * [0.5, -0.25], rtol=1e-6)


# ---------------------------------------------------------------- grad_pass_through


def test_grad_pass_through():
    x = const([0.4, 1.6])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.grad_pass_through(round_)(x)
    np.testing.assert_array_equal(y.numpy(), [0.0, 2.0])
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [1.0, 1.0])


def test_grad_pass_through_assign():
    x = tf.Variable(1.0)
    z = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.grad_pass_through(x.assign)(mul(z, z))
    assert float(y) == 9.0
    assert float(tape.gradient(y, z)) == 6.0


def test_exports():
    assert tf.compat.v1.custom_gradient is tf.custom_gradient
    assert tf.recompute_grad and tf.grad_pass_through


# ---------------------------------------------------------------- graphs and tf.function


@tf.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)
    return y, backward


def run_in_graph(build, feeds):
    """Build with placeholders of `feeds`' values in a TF1 graph; run the result."""
    graph = tf.Graph()
    with graph.as_default():
        placeholders = [tf1.placeholder(tf.float32, np.shape(v)) for v in feeds]
        fetches = build(*placeholders)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            return sess.run(fetches, dict(zip(placeholders, feeds)))


def test_tf1_gradients_use_grad_fn():
    def build(x):
        y = log1pexp(x)
        return y, tf.gradients(y, x)[0], tf.gradients(log1pexp_plain(x), x)[0]
    y, stable, plain = run_in_graph(build, [np.float32(100.0)])
    assert y == np.inf and stable == 1.0 and np.isnan(plain)     # exp(100) overflows


def test_tf1_clip_gradients_and_placeholder_shapes():
    def build(x):
        y = clip_gradients(mul(x, x))
        assert y.shape.as_list() == [None] and y.dtype == tf.float32
        return tf.gradients(y, x)[0]
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None])
        g = build(x)
        with tf1.Session() as sess:
            # dy = [1, 1] is clipped to norm 0.5, then times d(x*x)/dx = [6, 8]
            np.testing.assert_allclose(sess.run(g, {x: [3.0, 4.0]}),
                                       np.array([6.0, 8.0]) * 0.5 / np.sqrt(2), rtol=1e-6)


def test_tf_function_tape_inside_and_around():
    @tf.function
    def step(v):
        with tf.GradientTape() as t:
            t.watch(v)
            out = clip_gradients(v * v)
        return t.gradient(out, v)

    assert float(step(const(2.0))) == 2.0       # dy = 1 clipped to 0.5, times 2x = 4

    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(x):
        return clip_gradients(x)

    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = call_custom_grad(v * v)
    assert float(output) == 4.0 and float(t.gradient(output, v)) == 2.0

    @tf.function
    def stable_grad(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = log1pexp(x)
        return t.gradient(y, x)

    assert float(stable_grad(const(100.0))) == 1.0


def test_graph_forward_op_without_gradient_is_allowed():
    # resize_area has no registered gradient: only grad_fn is differentiated (TF's hint)
    @tf.custom_gradient
    def resize(images):
        return tf1.image.resize_area(images, [2, 2]), lambda dy: tf.ones_like(images) * 3.0

    def build(x):
        return tf.gradients(reduce_sum(resize(x)), x)[0]
    grad = run_in_graph(build, [np.ones([1, 4, 4, 1], np.float32)])
    np.testing.assert_array_equal(grad, np.full([1, 4, 4, 1], 3.0))


def test_graph_nested_arguments_and_several_outputs():
    @tf.custom_gradient
    def f(pair, scale):
        x, y = pair

        def grad(d_prod, d_sum):      # outputs flatten in sorted key order
            return [[add(d_sum, mul(d_prod, y)), add(d_sum, mul(d_prod, x))], None]
        return {"sum": add(x, y), "prod": mul(mul(x, y), scale)}, grad

    def build(x, y):
        out = f([x, y], 10.0)
        loss = add(mul(out["sum"], 3.0), out["prod"])
        return [out["prod"]] + tf.gradients(loss, [x, y])
    prod, gx, gy = run_in_graph(build, [np.float32(2.0), np.float32(5.0)])
    assert prod == 100.0 and gx == 3.0 + 5.0 and gy == 3.0 + 2.0


def test_graph_variables_get_gradients_from_grad_fn():
    graph = tf.Graph()
    with graph.as_default():
        w = tf1.get_variable("w", initializer=3.0, use_resource=True)
        b = tf1.get_variable("b", initializer=1.0, use_resource=True)
        seen = {}

        @tf.custom_gradient
        def f(x):
            def grad(dy, variables=None):
                seen["variables"] = variables
                return mul(dy, 100.0), [mul(dy, 1000.0), mul(dy, 10.0)]
            return add(mul(x, w), b), grad

        x = tf1.placeholder(tf.float32, [])
        y = f(x)
        gx, gb, gw = tf.gradients(y, [x, b, w])
        assert seen["variables"] == [b, w]      # sorted by name, as TF's graph mode does
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            assert sess.run([y, gx, gb, gw], {x: 2.0}) == [7.0, 100.0, 1000.0, 10.0]


def test_tf_function_variables_and_keyword_check():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            return mul(dy, 100.0), [mul(dy, 1000.0)]
        return mul(x, w), grad

    @tf.function
    def step(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
        return y, t.gradient(y, [x, w])

    y, (gx, gw) = step(const(2.0))
    assert float(y) == 6.0 and float(gx) == 100.0 and float(gw) == 1000.0

    steps = tf.Variable(2.0, trainable=False)

    @tf.custom_gradient
    def reads_a_non_trainable_variable(x):      # TF's tf.function does not differentiate it
        return mul(x, steps), lambda dy: mul(dy, 5.0)

    @tf.function
    def step_non_trainable(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = reads_a_non_trainable_variable(x)
        return t.gradient(y, x)

    assert float(step_non_trainable(const(1.0))) == 5.0

    @tf.custom_gradient
    def no_keyword(x):
        return mul(x, w), lambda dy: dy

    with pytest.raises(TypeError, match="keyword argument 'variables'"):
        tf.function(no_keyword)(const(1.0))


def test_graph_checks_gradient_counts_and_keywords():
    @tf.custom_gradient
    def f(x, y):
        return mul(x, y), lambda dy: dy

    with pytest.raises(ValueError, match="expected to return 2 gradients"):
        run_in_graph(lambda x, y: f(x, y), [np.float32(1.0), np.float32(2.0)])
    with pytest.raises(ValueError, match="keywords arguments only when eager"):
        run_in_graph(lambda x, y: f(x, y=y), [np.float32(1.0), np.float32(2.0)])


def test_graph_second_order_through_grad_fn():
    # d/dx of grad_fn's sigmoid(x) is 0.25 at 0, in a TF1 graph and in a tf.function
    def build(x):
        (g,) = tf.gradients(log1pexp(x), x)
        return g, tf.gradients(g, x)[0]
    g, gg = run_in_graph(build, [np.float32(0.0)])
    assert g == 0.5 and abs(gg - 0.25) < 1e-6

    @tf.function
    def second(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = log1pexp(x)
            g = inner.gradient(y, x)
        return outer.gradient(g, x)
    assert abs(float(second(const(0.0))) - 0.25) < 1e-6

    traced = tf.function(log1pexp)      # tapes around the function call
    x = const(0.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = traced(x)
        g = inner.gradient(y, x)
    assert float(g) == 0.5 and abs(float(outer.gradient(g, x)) - 0.25) < 1e-6


def test_graph_custom_gradient_without_gradients_just_runs():
    assert run_in_graph(lambda x: clip_gradients(mul(x, 3.0)), [np.float32(2.0)]) == 6.0


def test_graph_recompute_grad_and_grad_pass_through():
    x0 = np.array([0.3, -1.2, 2.0], dtype=np.float32)
    expected = grad_of(block, const(x0)).numpy()

    def build(x):
        wrapped = tf.recompute_grad(block)(x)
        return wrapped, tf.gradients(wrapped, x)[0], \
            tf.gradients(tf.grad_pass_through(round_)(mul(x, 2.0)), x)[0]
    value, grad, passed = run_in_graph(build, [x0])
    np.testing.assert_allclose(value, block(const(x0)).numpy(), rtol=1e-6)
    np.testing.assert_allclose(grad, expected, rtol=1e-6)
    np.testing.assert_array_equal(passed, [2.0, 2.0, 2.0])


def test_tf_function_recompute_grad_with_variables():
    w = tf.Variable([0.5, -0.25])

    def layer(x):
        return reduce_sum(tanh(mul(x, w)))

    x0 = np.array([1.0, 3.0], dtype=np.float32)

    @tf.function
    def step(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.recompute_grad(layer)(x)
        return t.gradient(y, [x, w])

    @tf.function
    def only_w(x):
        with tf.GradientTape() as t:
            y = tf.recompute_grad(layer)(x)
        return t.gradient(y, w)

    slope = 1 - np.tanh(x0 * [0.5, -0.25]) ** 2
    gx, gw = step(const(x0))
    np.testing.assert_allclose(gx.numpy(), slope * [0.5, -0.25], rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), slope * x0, rtol=1e-6)
    np.testing.assert_allclose(only_w(const(x0)).numpy(), slope * x0, rtol=1e-6)


def test_graph_notes_its_custom_gradient_functions_inside_control_flow_too():
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [])
        y = tf.cond(x > 0, lambda: clip_gradients(x), lambda: log1pexp(x))
        g = tf.gradients(y, x)[0]
        with tf1.Session() as sess:
            assert sess.run(g, {x: 3.0}) == 0.5 and sess.run(g, {x: 0.0}) == 0.5
    assert graph.get_collection(CUSTOM_GRADIENT_FUNCTIONS) == ["clip_gradients", "log1pexp"]


def test_tf_function_variable_read_inside_a_cond_branch():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            assert variables == [w]
            return mul(dy, 100.0), [mul(dy, 1000.0)]
        return mul(x, w), grad

    @tf.function
    def step(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.cond(x > 0, lambda: f(x), lambda: x)
        return y, t.gradient(y, [x, w])

    y, (gx, gw) = step(const(2.0))
    assert float(y) == 6.0 and float(gx) == 100.0 and float(gw) == 1000.0
