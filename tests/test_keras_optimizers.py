"""Keras 2 optimizers: update rules against numpy, hyperparameters, config, tf.function."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.keras import optimizers


def _steps(opt, steps=3, start=(1.0, 2.0)):
    v = tf.Variable(list(start))
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * v)
        opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
    return v.numpy()


def _numpy_adam(x, steps, lr=0.1, b1=0.9, b2=0.999, eps=1e-7):
    m = np.zeros_like(x)
    v = np.zeros_like(x)
    for t in range(1, steps + 1):
        g = 2 * x
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        x = x - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(v) + eps)
    return x


def test_sgd_and_momentum():
    np.testing.assert_allclose(_steps(optimizers.SGD(0.1)), np.array([1., 2.]) * 0.8 ** 3,
                               rtol=1e-6)
    x, accum = np.array([1.0, 2.0]), np.zeros(2)
    for _ in range(3):
        accum = 0.9 * accum - 0.1 * 2 * x
        x = x + 0.9 * accum - 0.1 * 2 * x
    np.testing.assert_allclose(_steps(optimizers.SGD(0.1, momentum=0.9, nesterov=True)), x,
                               rtol=1e-5)


def test_adam_matches_numpy():
    np.testing.assert_allclose(_steps(optimizers.Adam(0.1)),
                               _numpy_adam(np.array([1.0, 2.0]), 3), rtol=1e-5)


@pytest.mark.parametrize("opt", [
    optimizers.Adam(0.1, amsgrad=True), optimizers.RMSprop(0.1),
    optimizers.RMSprop(0.1, momentum=0.5, centered=True), optimizers.Adagrad(0.1),
    optimizers.Adadelta(1.0), optimizers.Adamax(0.1), optimizers.Nadam(0.1)])
def test_every_optimizer_decreases_the_loss(opt):
    result = _steps(opt, steps=5)
    assert np.all(np.abs(result) < np.array([1.0, 2.0]))
    assert int(opt.iterations.numpy()) == 5
    assert len(opt.variables()) == 1 + len(opt.get_slot_names()) + \
        (1 if isinstance(opt, optimizers.Nadam) else 0)


def test_rmsprop_matches_numpy():
    x, ms = np.array([1.0, 2.0]), np.zeros(2)
    for _ in range(3):
        g = 2 * x
        ms = 0.9 * ms + 0.1 * g * g
        x = x - 0.1 * g / (np.sqrt(ms) + 1e-7)
    np.testing.assert_allclose(_steps(optimizers.RMSprop(0.1)), x, rtol=1e-5)


def test_hyperparameters_and_config():
    opt = optimizers.Adam(lr=0.5)
    assert float(opt.lr.numpy()) == 0.5 and opt.learning_rate is opt.lr
    opt.learning_rate = 0.25
    tf.keras.backend.set_value(opt.lr, 0.125)
    assert float(opt.lr.numpy()) == 0.125
    config = opt.get_config()
    assert config["name"] == "Adam" and config["epsilon"] == 1e-7
    assert config["learning_rate"] == pytest.approx(0.125)
    clone = optimizers.Adam.from_config(config)
    assert float(clone.learning_rate.numpy()) == pytest.approx(0.125)
    assert isinstance(optimizers.get("rmsprop"), optimizers.RMSprop)
    assert optimizers.get(opt) is opt
    assert tf.keras.optimizers.Adam is optimizers.Adam
    with pytest.raises(TypeError, match="Unexpected keyword argument"):
        optimizers.SGD(foo=1)
    with pytest.raises(ValueError, match="Unknown optimizer"):
        optimizers.get("nope")


def test_decay_and_clipnorm():
    v = _steps(optimizers.SGD(0.1, decay=1.0), steps=2)
    x = np.array([1.0, 2.0])
    for it in range(2):
        x = x - 0.1 / (1 + it) * 2 * x
    np.testing.assert_allclose(v, x, rtol=1e-6)
    v = tf.Variable([3.0, 4.0])
    optimizers.SGD(1.0, clipnorm=1.0).apply_gradients([(tf.constant([3.0, 4.0]), v)])
    np.testing.assert_allclose(v.numpy(), [2.4, 3.2], rtol=1e-6)


def test_minimize_and_errors():
    v = tf.Variable(3.0)
    opt = optimizers.SGD(0.1)
    opt.minimize(lambda: v * v, [v])
    assert float(v.numpy()) == pytest.approx(2.4)
    with pytest.raises(ValueError, match="`tape` is required"):
        opt.minimize(v * v, [v])
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, v)])


def test_apply_no_gradients_is_a_no_op():
    # Keras 2.11+: apply_gradients(zip([], [])) returns `iterations` and changes nothing
    # (aymericdamien TensorFlow-Examples multigpu_training: trainable_variables read before
    # the model is built is []).
    opt = optimizers.Adam(0.1)
    result = opt.apply_gradients(zip([], []))
    assert result is opt.iterations and int(opt.iterations.numpy()) == 0
    v = tf.Variable(1.0)
    opt.apply_gradients([(tf.constant(1.0), v)])
    assert int(opt.iterations.numpy()) == 1
    assert opt.apply_gradients([]) is opt.iterations and int(opt.iterations.numpy()) == 1


def test_apply_gradients_in_tf_function():
    v = tf.Variable([1.0, 2.0])
    opt = optimizers.Adam(0.1)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * v)
        opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
    for _ in range(3):
        step()
    np.testing.assert_allclose(v.numpy(), _numpy_adam(np.array([1.0, 2.0]), 3), rtol=1e-5)
    assert int(opt.iterations.numpy()) == 3


def _numpy_adam_float32(x, steps, lr=0.1, b1=0.9, b2=0.999, eps=1e-7):
    """TF's ApplyAdam in float32: m += (g - m) * (1 - b1); v += (g*g - v) * (1 - b2);
    var -= lr_t * m / (sqrt(v) + eps) with lr_t = lr * sqrt(1 - b2**t) / (1 - b1**t)."""
    f = np.float32
    x, lr, b1, b2, eps = f(x), f(lr), f(b1), f(b2), f(eps)
    m, v = np.zeros_like(x), np.zeros_like(x)
    for t in range(1, steps + 1):
        g = f(2) * x
        m += (g - m) * (f(1) - b1)
        v += (g * g - v) * (f(1) - b2)
        lr_t = lr * np.sqrt(f(1) - b2 ** f(t)) / (f(1) - b1 ** f(t))
        x = x - lr_t * m / (np.sqrt(v) + eps)
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adam_several_variables_many_steps(dtype):
    start = [np.array([1.0, -2.0, 0.5], dtype), np.array([[3.0], [-0.25]], dtype)]
    variables = [tf.Variable(s) for s in start]
    opt = optimizers.Adam(0.1)
    for _ in range(20):
        with tf.GradientTape() as tape:
            loss = tf.add_n([tf.reduce_sum(v * v) for v in variables])
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    for v, s in zip(variables, start):
        assert v.dtype.as_numpy_dtype == dtype
        np.testing.assert_allclose(v.numpy(), _numpy_adam_float32(s, 20), rtol=2e-5,
                                   atol=1e-6)


def test_traced_update_reads_hyperparameters_when_it_runs():
    v = tf.Variable([1.0, 2.0])
    opt = optimizers.Adam(0.1)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * v)
        opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
    x, m, s = np.array([1.0, 2.0]), np.zeros(2), np.zeros(2)
    for t, (lr, beta_1) in enumerate([(0.1, 0.9), (0.0, 0.9), (0.1, 0.0)], 1):
        tf.keras.backend.set_value(opt.lr, lr)
        tf.keras.backend.set_value(opt.beta_1, beta_1)
        step()
        g = 2 * x
        m = beta_1 * m + (1 - beta_1) * g
        s = 0.999 * s + 0.001 * g * g
        x = x - lr * np.sqrt(1 - 0.999 ** t) / (1 - beta_1 ** t) * m / (np.sqrt(s) + 1e-7)
        np.testing.assert_allclose(v.numpy(), x, rtol=1e-5)
    assert int(opt.iterations.numpy()) == 3
