"""tf.GradientTape, tf.UnconnectedGradients and tf.contrib.eager's gradient functions.

Expected values are hand-computed derivatives or central finite differences.
"""
import logging

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.eager import tape as tape_lib
from tfcompat.framework.tensor import EagerTensor


mul, add, sub = tf.multiply, tf.add, tf.subtract
reduce_sum, tanh, sin, matmul = tf.reduce_sum, tf.tanh, tf.sin, tf.matmul


def cast_int(x):
    return tf.cast(x, tf.int32)


def cast_float(x):
    return tf.cast(x, tf.float32)


def const(value, dtype=np.float32):
    return tf.convert_to_tensor(np.asarray(value, dtype=dtype))


def numeric_grad(fn, x, eps=1e-3):
    """Central finite differences of scalar fn (numpy float64 -> float) at x."""
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (fn(x + step) - fn(x - step)) / (2 * eps)
    return grad


# ---------------------------------------------------------------- acceptance a19, a24, a25


def test_persistent_tape_computes_several_gradients():
    x = const(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = mul(x, x)
        z = mul(y, y)
    assert float(t.gradient(z, x)) == 108.0
    assert float(t.gradient(y, x)) == 6.0


def test_non_persistent_tape_refuses_second_gradient():
    x = const(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = mul(x, x)
    assert float(t.gradient(y, x)) == 6.0
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to "
                                           r"compute one set of gradients \(or jacobians\)"):
        t.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        t.jacobian(y, x)


def test_python_control_flow_under_tape():
    def f(x, y):
        output = 1.0
        for i in range(y):
            if 1 < i < 5:
                output = mul(output, x)
        return output

    def grad(x, y):
        with tf.GradientTape() as t:
            t.watch(x)
            out = f(x, y)
        return t.gradient(out, x)

    x = tf.convert_to_tensor(2.0)
    assert [float(grad(x, n)) for n in (6, 5, 4)] == [12.0, 12.0, 4.0]


def test_second_order_nested_tapes_on_variable():
    v = tf.Variable(1.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = mul(mul(v, v), v)
        dy = inner.gradient(y, v)
    assert float(dy) == 3.0
    assert float(outer.gradient(dy, v)) == 6.0


def test_second_order_nested_tapes_on_watched_tensor():
    x = const(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        with tf.GradientTape() as gg:
            gg.watch(x)
            y = mul(x, x)
        dy_dx = gg.gradient(y, x)
    assert float(dy_dx) == 6.0
    assert float(g.gradient(dy_dx, x)) == 2.0


def test_third_order_with_one_persistent_tape_inside_its_context():
    x = const(2.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = mul(mul(x, x), x)
        d1 = t.gradient(y, x)       # recorded on t itself: higher order works
        d2 = t.gradient(d1, x)
    d3 = t.gradient(d2, x)
    assert [float(d1), float(d2), float(d3)] == [12.0, 12.0, 6.0]


def test_variable_gradient_and_second_call():
    w = tf.Variable([[1.0]])
    with tf.GradientTape() as tape:
        loss = mul(w, w)
    grad = tape.gradient(loss, w)
    assert isinstance(grad, EagerTensor)
    np.testing.assert_array_equal(grad.numpy(), [[2.0]])
    with pytest.raises(RuntimeError):
        tape.gradient(loss, w)


def test_line_search_with_python_while_loop():
    state = {}

    def line_search_step(fn, init_x, rate=1.0):
        with tf.GradientTape() as tape:
            tape.watch(init_x)
            value = fn(init_x)
        grad = tape.gradient(value, init_x)
        init_value = sub(value, 1.0)
        while float(value) > float(init_value):
            x = sub(init_x, mul(grad, rate))
            value = fn(x)
            rate /= 2.0
        state["rate"] = rate
        return x, value

    x, value = line_search_step(lambda v: reduce_sum(mul(v, v)), const([1.0, 2.0]))
    np.testing.assert_array_equal(x.numpy(), [0.0, 0.0])
    assert float(value) == 0.0 and state["rate"] == 0.25


# ---------------------------------------------------------------- gradient()


def test_gradient_matches_finite_differences():
    a = np.array([[0.3, -0.2], [0.5, 0.1], [-0.4, 0.7]])
    x0 = np.array([[0.2, -0.6, 0.9]])

    def f_np(x):
        return np.sum(np.sin(np.tanh(x @ a)) * 3.0)

    x = const(x0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = reduce_sum(mul(sin(tanh(matmul(x, const(a)))), 3.0))
    np.testing.assert_allclose(t.gradient(y, x).numpy(), numeric_grad(f_np, x0), rtol=1e-3,
                               atol=1e-4)


def test_variable_gradient_matches_finite_differences():
    w0 = np.array([[0.3, -0.2], [0.5, 0.1]], dtype=np.float32)
    x0 = np.array([[1.0, -2.0]], dtype=np.float32)
    w = tf.Variable(w0)
    with tf.GradientTape() as t:
        loss = reduce_sum(tanh(matmul(const(x0), w)))
    np.testing.assert_allclose(
        t.gradient(loss, w).numpy(),
        numeric_grad(lambda m: np.sum(np.tanh(x0.astype(np.float64) @ m)), w0),
        rtol=1e-3, atol=1e-4)


def test_non_scalar_target_is_summed_and_dtype_kept():
    x = const([1.0, 2.0, 3.0], np.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = mul(x, x)
    g = t.gradient(y, x)
    assert g.dtype == tf.float64
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0, 6.0])


def test_list_of_targets_sums_their_gradients():
    x = const(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = mul(x, x)
        z = mul(x, 4.0)
    assert float(t.gradient([y, [z]], x)) == 10.0


def test_output_gradients_weight_each_target():
    x = const([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = mul(x, x)
        z = mul(x, 3.0)
    np.testing.assert_array_equal(
        t.gradient(y, x, output_gradients=const([10.0, 100.0])).numpy(), [20.0, 400.0])
    np.testing.assert_array_equal(
        t.gradient([y, z], x, output_gradients=[None, const([1.0, 2.0])]).numpy(), [5.0, 10.0])


def test_sources_structure_is_preserved():
    a, b, c = const(1.0), const(2.0), const(3.0)
    with tf.GradientTape() as t:
        t.watch([a, (b, {"k": c})])
        y = mul(mul(a, b), c)
    grads = t.gradient(y, {"b": b, "rest": [a, (c,)]})
    assert set(grads) == {"b", "rest"}
    assert float(grads["b"]) == 3.0
    assert isinstance(grads["rest"], list) and isinstance(grads["rest"][1], tuple)
    assert float(grads["rest"][0]) == 6.0 and float(grads["rest"][1][0]) == 2.0


def test_gradient_with_respect_to_intermediate_tensor():
    x = const(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = mul(x, x)
        z = mul(y, y)
    gy, gx = t.gradient(z, [y, x])
    assert float(gy) == 18.0 and float(gx) == 108.0


def test_unconnected_gradients_none_and_zero():
    x, u = const(2.0), const([1.0, 1.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, u])
        y = mul(x, x)
    assert t.gradient(y, [x, u])[1] is None
    zero = t.gradient(y, u, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zero.numpy(), [0.0, 0.0])
    zero = t.gradient(y, u, unconnected_gradients="zero")
    assert zero.shape.as_list() == [2]
    assert t.gradient(const(1.0), x) is None      # target not computed from any source
    with pytest.raises(ValueError):
        t.gradient(y, x, unconnected_gradients="nan")


def test_unwatched_tensor_has_no_gradient():
    x = const(2.0)
    with tf.GradientTape() as t:
        y = mul(x, x)
    assert t.gradient(y, x) is None


def test_integer_tensors_are_not_watchable(caplog):
    i = tf.convert_to_tensor(3)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with tf.GradientTape() as t:
            t.watch(i)
            y = mul(i, i)
    assert "must be floating" in caplog.text
    assert t.gradient(y, i) is None


def test_gradient_through_integer_cast_is_none():
    x = const(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = cast_float(mul(cast_int(x), 3))
    assert t.gradient(y, x) is None


def test_watch_rejects_non_tensors():
    with tf.GradientTape() as t:
        with pytest.raises(ValueError, match="not tf.Tensor"):
            t.watch(1.0)
        with pytest.raises(ValueError, match="not tf.Tensor"):
            t.watch([const(1.0), np.ones(2)])


def test_watch_keeps_the_same_tensor_object():
    x = const(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
    assert isinstance(x, EagerTensor) and x._t.requires_grad and x._t.is_leaf
    assert float(x) == 2.0


def test_gradient_inside_non_persistent_context_stops_recording():
    x = const(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = mul(x, x)
        g = t.gradient(y, x)
        assert not tape_lib.recording()
    assert float(g) == 6.0 and not g._t.requires_grad


def test_gradient_result_is_not_differentiable_without_recording_tape():
    x = const(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = mul(x, x)
        with t.stop_recording():
            g = t.gradient(y, x)
    assert not g._t.requires_grad
    assert float(t.gradient(y, x)) == 6.0


def test_tape_records_under_torch_no_grad():
    x = const(3.0)
    with torch.no_grad():
        with tf.GradientTape() as t:
            t.watch(x)
            y = mul(x, x)
        assert not torch.is_grad_enabled()
        assert float(t.gradient(y, x)) == 6.0


def test_stop_recording():
    x = const(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = mul(x, x)
        with t.stop_recording():
            assert not tape_lib.recording()
            z = mul(x, 5.0)
        w = mul(x, 7.0)
    assert t.gradient(z, x) is None
    assert float(t.gradient(w, x)) == 7.0
    assert float(t.gradient(y, x)) == 6.0
    with pytest.raises(ValueError, match="not recording"):
        with t.stop_recording():
            pass
    with pytest.raises(RuntimeError, match="not recording"):
        with tf.GradientTape().stop_recording():
            pass


def test_gradient_inside_stop_recording_of_non_persistent_tape():
    x = const(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = mul(x, x)
        with t.stop_recording():
            g = t.gradient(y, x)
        assert not tape_lib.recording()
    assert float(g) == 6.0


def test_reentering_a_recording_tape_raises():
    t = tf.GradientTape()
    with t:
        with pytest.raises(ValueError, match="already-active"):
            t.__enter__()


def test_reset_makes_a_used_tape_usable_again():
    x = const(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = mul(x, x)
        assert float(t.gradient(y, x)) == 6.0
        t.__enter__()                       # the gradient call stopped the tape
        t.reset()
        t.watch(x)
        z = mul(x, 4.0)
    assert float(t.gradient(z, x)) == 4.0
    with pytest.raises(ValueError, match="not recording"):
        t.reset()


def test_reused_tensor_from_a_used_tape_explains_the_error():
    x = const(3.0)
    with tf.GradientTape() as t1:
        t1.watch(x)
        y = mul(x, x)
    t1.gradient(y, x)
    del t1
    with tf.GradientTape() as t2:
        z = mul(y, x)
    with pytest.raises(RuntimeError, match="stop_gradient"):
        t2.gradient(z, x)


def test_watching_a_tensor_computed_before_the_tape_makes_it_a_source():
    # RevNet's backward pass (acceptance a14): y came from a used tape; a new tape watches
    # a slice of it and differentiates w.r.t. it and the variables it reuses.
    w = tf.Variable(2.0)
    x = const(3.0)
    with tf.GradientTape() as t1:
        t1.watch(x)
        y = mul(mul(x, w), 1.0)
    assert float(t1.gradient(y, x)) == 2.0
    y1 = mul(y, 1.0)                                # computed outside any tape
    with tf.GradientTape() as t2:
        t2.watch(y1)
        gy1 = mul(y1, w)
    gy, gw = t2.gradient(gy1, [y1, w], output_gradients=const(10.0))
    assert float(gy) == 20.0 and float(gw) == 60.0   # no path through y's history


def test_nested_tape_watch_keeps_history_for_outer_tape():
    x = const(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        h = mul(x, x)
        with tf.GradientTape() as inner:
            inner.watch(h)
            z = mul(h, h)
        assert float(inner.gradient(z, h)) == 18.0
    assert float(outer.gradient(z, x)) == 108.0


def test_graph_kept_while_another_tape_lives():
    x = const(3.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            inner.watch(x)
            outer.watch(x)
            y = mul(mul(x, x), x)
    assert float(inner.gradient(y, x)) == 27.0
    assert float(outer.gradient(y, x)) == 27.0


# ---------------------------------------------------------------- variables


def test_watch_accessed_variables_false():
    a, b = tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape(watch_accessed_variables=False) as t:
        t.watch(a)
        y = mul(a, a)
        z = mul(mul(b, b), b)
    assert t.watched_variables() == (a,)
    ga, gb = t.gradient([y, z], [a, b])
    assert float(ga) == 4.0 and gb is None


def test_watched_variables_in_access_order():
    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as t:
        y = add(mul(b, c), mul(a, b))
    assert t.watched_variables() == (b, a)
    gb, gc = t.gradient(y, [b, c])
    assert float(gb) == 4.0 and gc is None          # non-trainable: not watched


def test_explicitly_watched_non_trainable_variable():
    c = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as t:
        t.watch(c)
        y = mul(c, c)
    assert t.watched_variables() == (c,)
    assert float(t.gradient(y, c)) == 6.0


def test_variable_read_outside_tape_is_not_recorded():
    v = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as t:
        y = mul(v, v)
    z = mul(v, 10.0)
    assert not z._t.requires_grad
    assert float(t.gradient(y, v)) == 4.0


def test_integer_variable_gradient_is_none():
    v = tf.Variable(2)
    with tf.GradientTape() as t:
        y = mul(v, v)
    assert t.gradient(y, v) is None


# ---------------------------------------------------------------- jacobians


@pytest.mark.parametrize("use_pfor", [True, False])
def test_jacobian_of_vector_function(use_pfor):
    x = const([1.0, 2.0])
    with tf.GradientTape(persistent=not use_pfor) as g:
        g.watch(x)
        y = mul(x, x)
    j = g.jacobian(y, x, experimental_use_pfor=use_pfor)
    np.testing.assert_array_equal(j.numpy(), [[2.0, 0.0], [0.0, 4.0]])


def test_jacobian_matches_finite_differences_and_shapes():
    a0 = np.array([[0.3, -0.2, 0.4], [0.5, 0.1, -0.3]])
    x0 = np.array([[0.2, -0.6], [0.9, 0.4]])
    x, a = const(x0), const(a0)
    with tf.GradientTape() as g:
        g.watch([x, a])
        y = tanh(matmul(x, a))                      # [2, 3]
    jx, ja = g.jacobian(y, [x, a])
    assert jx.shape.as_list() == [2, 3, 2, 2] and ja.shape.as_list() == [2, 3, 2, 3]
    for idx in np.ndindex(2, 3):
        np.testing.assert_allclose(
            jx.numpy()[idx], numeric_grad(lambda m: np.tanh(m @ a0)[idx], x0), atol=1e-4)
        np.testing.assert_allclose(
            ja.numpy()[idx], numeric_grad(lambda m: np.tanh(x0 @ m)[idx], a0), atol=1e-4)


def test_jacobian_non_persistent_without_pfor_raises():
    x = const([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = mul(x, x)
    with pytest.raises(RuntimeError, match="persistent=True"):
        g.jacobian(y, x, experimental_use_pfor=False)


def test_jacobian_unconnected():
    x, u = const([1.0, 2.0]), const([[1.0, 1.0, 1.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, u])
        y = mul(x, x)
    assert g.jacobian(y, [x, u])[1] is None
    z = g.jacobian(y, u, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert z.shape.as_list() == [2, 1, 3] and not z.numpy().any()
    assert g.jacobian(const([1.0, 2.0]), x) is None     # target computed from no source


def test_hessian_with_nested_tapes():
    x0 = np.array([0.5, -1.0])
    x = const(x0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = reduce_sum(mul(mul(x, x), x))       # sum x^3
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x)
    np.testing.assert_allclose(h.numpy(), np.diag(6 * x0), rtol=1e-6)


@pytest.mark.parametrize("use_pfor", [True, False])
def test_batch_jacobian(use_pfor):
    x = const([[1, 2], [3, 4]])
    with tf.GradientTape(persistent=not use_pfor) as g:
        g.watch(x)
        y = mul(x, x)
    bj = g.batch_jacobian(y, x, experimental_use_pfor=use_pfor)
    np.testing.assert_array_equal(bj.numpy(), [[[2, 0], [0, 4]], [[6, 0], [0, 8]]])


def test_batch_jacobian_equals_stacked_jacobians():
    w0 = np.array([[0.3, -0.2, 0.4], [0.5, 0.1, -0.3]])
    x0 = np.array([[0.2, -0.6], [0.9, 0.4], [-0.1, 0.3], [1.0, 2.0]])
    x = const(x0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tanh(matmul(x, const(w0)))              # [4, 3]
    bj = g.batch_jacobian(y, x).numpy()
    assert bj.shape == (4, 3, 2)
    for b in range(4):
        for j in range(3):
            np.testing.assert_allclose(
                bj[b, j], numeric_grad(lambda r: np.tanh(r @ w0)[j], x0[b]), atol=1e-4)


def test_batch_jacobian_checks_batch_dimension_and_unconnected():
    x = const(np.ones((2, 3)))
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = mul(x, 2.0)
        other = const(np.ones((2, 4)))
    with pytest.raises(ValueError, match="first dimension"):
        g.batch_jacobian(const(np.ones((3, 2))), x)
    g.watch(other)
    assert g.batch_jacobian(y, other) is None
    z = g.batch_jacobian(y, other, unconnected_gradients="zero")
    assert z.shape.as_list() == [2, 3, 4] and not z.numpy().any()


# ---------------------------------------------------------------- graph mode

needs_session = pytest.mark.xfail(
    not (hasattr(tf.compat.v1, "Session") and hasattr(tf.compat.v1, "placeholder")),
    reason="graph sessions missing", raises=AttributeError, strict=True)


@needs_session
def test_gradient_in_a_graph_records_a_gradient_node():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2])
        with tf.GradientTape() as t:
            t.watch(x)
            y = mul(x, x)
            z = mul(x, 3.0)
        gx, (gy,) = t.gradient([y, z], [x, [y]])
        with pytest.raises(RuntimeError, match="non-persistent"):
            t.gradient(y, x)
        with tf.GradientTape() as t2:
            w = mul(x, x)
        weighted = t2.gradient(w, x, output_gradients=const([10.0, 1.0]))
        with tf.GradientTape() as t3:
            pass
        with pytest.raises(NotImplementedError, match="eager execution only"):
            t3.jacobian(w, x)
        with tf.compat.v1.Session() as sess:
            gx, gy, weighted = sess.run([gx, gy, weighted], {x: [1.0, 2.0]})
    np.testing.assert_array_equal(gx, [5.0, 7.0])
    np.testing.assert_array_equal(gy, [1.0, 1.0])
    np.testing.assert_array_equal(weighted, [20.0, 4.0])


# ---------------------------------------------------------------- exports and tfe


def test_exports():
    assert tf.GradientTape is tf.autodiff.GradientTape
    assert tf.compat.v1.GradientTape is tf.GradientTape
    assert tf.UnconnectedGradients.ZERO.value == "zero"
    assert tf.UnconnectedGradients("none") is tf.UnconnectedGradients.NONE
    tfe = tf.contrib.eager
    assert tfe.GradientTape is tf.GradientTape
    assert tfe.custom_gradient is tf.custom_gradient
    assert tfe.executing_eagerly() is True and tfe.in_eager_mode() is True
    assert tfe.num_gpus() == torch.cuda.device_count()
    assert callable(tfe.enable_eager_execution)


def test_gradients_function():
    tfe = tf.contrib.eager

    def f(x, y):
        return mul(mul(x, x), y)

    x, y = const(3.0), const(2.0)
    gx, gy = tfe.gradients_function(f)(x, y)
    assert float(gx) == 12.0 and float(gy) == 9.0
    assert not x._t.requires_grad               # the caller's tensors are left alone
    gy, = tfe.gradients_function(f, params=["y"])(x, y)
    assert float(gy) == 9.0
    gx, = tfe.gradients_function(f, params=[0])(3.0, 2.0)
    assert float(gx) == 12.0
    gx, = tfe.gradients_function(lambda x: mul(x, x))(const([1.0, 2.0]),
                                                       dy=const([3.0, 5.0]))
    np.testing.assert_array_equal(gx.numpy(), [6.0, 20.0])
    with pytest.raises(ValueError, match="keyword"):
        tfe.gradients_function(f)(x, y=y)
    with pytest.raises(ValueError, match="returns None"):
        tfe.gradients_function(lambda x: None)(x)
    with pytest.raises(ValueError, match="all strings or all integers"):
        tfe.gradients_function(f, params=[0, "y"])(x, y)


def test_value_and_gradients_function_and_second_order():
    tfe = tf.contrib.eager

    def f(x):
        return mul(mul(x, x), x)

    value, (grad,) = tfe.value_and_gradients_function(f)(const(2.0))
    assert float(value) == 8.0 and float(grad) == 12.0
    d2 = tfe.gradients_function(lambda x: tfe.gradients_function(f)(x)[0])
    assert float(d2(const(2.0))[0]) == 12.0
    unconnected = tfe.gradients_function(lambda x, y: mul(x, 2.0))(const(1.0), const(1.0))
    assert unconnected[1] is None


def test_implicit_gradients():
    tfe = tf.contrib.eager
    a, b = tf.Variable(2.0), tf.Variable(3.0)

    def loss(x):
        return mul(mul(b, x), a)

    value, pairs = tfe.implicit_value_and_gradients(loss)(const(5.0))
    assert float(value) == 30.0
    assert [v for _, v in pairs] == [b, a]
    assert [float(g) for g, _ in pairs] == [10.0, 15.0]
    pairs = tfe.implicit_gradients(loss)(const(1.0))
    assert [float(g) for g, _ in pairs] == [2.0, 3.0]
    with pytest.raises(ValueError, match="No trainable variables"):
        tfe.implicit_gradients(lambda x: mul(x, x))(const(1.0))


# ------------------------------------------------- ops without a registered gradient in TF


def test_gradient_through_op_without_registered_gradient_raises_lookup_error():
    """TF's autodiff guide: AdjustContrastv2 has no gradient, tape.gradient raises."""
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    with pytest.raises(LookupError) as raised:
        tape.gradient(new_image, [image, delta])
    assert str(raised.value) == "gradient registry has no entry for: AdjustContrastv2"
    for adjust, op_type in ((lambda x: tf.image.adjust_saturation(x, 0.5), "AdjustSaturation"),
                            (lambda x: tf.image.adjust_hue(x, 0.1), "AdjustHue"),
                            (lambda x: tf.compat.v1.image.resize_area(x[None], [1, 1]),
                             "ResizeArea")):
        with tf.GradientTape() as tape:
            out = adjust(image)
        with pytest.raises(LookupError, match="no entry for: %s$" % op_type):
            tape.gradient(out, image)


def test_op_without_registered_gradient_runs_normally_and_other_branches_differentiate():
    image = tf.Variable([[[0.5, 0.25, 0.0], [0.0, 0.25, 0.5]]])
    np.testing.assert_allclose(tf.image.adjust_contrast(image, 2.0).numpy(),
                               [[[0.75, 0.25, -0.25], [-0.25, 0.25, 0.75]]])
    x = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as tape:
        contrasted = tf.image.adjust_contrast(image, 2.0)
        y = x * x + tf.reduce_sum(tf.stop_gradient(contrasted))
    assert float(tape.gradient(y, x)) == 6.0
    assert tape.gradient(y, image) is None
    # nothing watched flows into the op: no error
    with tf.GradientTape() as tape:
        out = tf.image.adjust_contrast(tf.constant([[[0.5, 0.0, 0.0]]]), 2.0)
    assert tape.gradient(out, x) is None
