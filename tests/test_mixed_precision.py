"""tf.keras.mixed_precision as Keras 2 (TF 2.15) has it: dtype policies, layers keeping
float32 variables while computing in float16/bfloat16, LossScaleOptimizer (scaling, skipped
steps, dynamic scale), and Model.fit under 'mixed_float16'. Values against numpy (float16
results at float16 tolerance)."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api
from tfcompat.keras import backend as K
from tfcompat.keras.mixed_precision.autocast_variable import AutoCastVariable

layers = tf.keras.layers
mixed_precision = tf.keras.mixed_precision
RNG = np.random.RandomState(0)
F16_TOL = dict(rtol=1e-2, atol=1e-2)


@pytest.fixture(autouse=True)
def keras2():
    previous = _api.flavor()
    _api.set_flavor("v2")
    K.clear_session()
    tf.random.set_seed(0)  # float16 overflow checks depend on the initial weights
    yield
    mixed_precision.set_global_policy(None)
    _api.set_flavor(previous)


# ---------------------------------------------------------------- Policy


@pytest.mark.parametrize("name, compute, variable", [
    ("float32", "float32", "float32"), ("float16", "float16", "float16"),
    ("bfloat16", "bfloat16", "bfloat16"), ("float64", "float64", "float64"),
    ("mixed_float16", "float16", "float32"), ("mixed_bfloat16", "bfloat16", "float32"),
])
def test_policy_attributes(name, compute, variable):
    policy = mixed_precision.Policy(name)
    assert (policy.name, policy.compute_dtype, policy.variable_dtype) == (name, compute,
                                                                           variable)
    assert repr(policy) == '<Policy "%s">' % name
    assert policy.get_config() == {"name": name}
    again = mixed_precision.Policy.from_config(policy.get_config())
    assert (again.name, again.compute_dtype, again.variable_dtype) == (name, compute, variable)


def test_policy_bad_names():
    with pytest.raises(ValueError, match="Cannot convert value mixed_float32"):
        mixed_precision.Policy("mixed_float32")
    with pytest.raises(ValueError, match="Please use the 'mixed_float16' policy"):
        mixed_precision.Policy("float16_with_float32_vars")
    with pytest.raises(TypeError, match="not a DType"):
        mixed_precision.Policy(tf.float16)
    with pytest.raises(TypeError, match="must be a string"):
        mixed_precision.Policy(16)
    # TF 2.3 configs carried a loss_scale; from_config drops it
    policy = mixed_precision.Policy.from_config({"name": "mixed_float16", "loss_scale": None})
    assert policy.compute_dtype == "float16"


def test_global_policy_set_and_restored():
    assert mixed_precision.global_policy().name == "float32"
    mixed_precision.set_global_policy("mixed_float16")
    assert mixed_precision.global_policy().name == "mixed_float16"
    dense = layers.Dense(2)
    assert (dense.dtype, dense.compute_dtype, dense.variable_dtype) == ("float32", "float16",
                                                                        "float32")
    assert dense.dtype_policy.name == "mixed_float16"
    mixed_precision.set_global_policy(mixed_precision.Policy("mixed_bfloat16"))
    assert layers.Dense(2).compute_dtype == "bfloat16"
    mixed_precision.set_global_policy("float32")
    plain = layers.Dense(2)
    assert (plain.dtype, plain.compute_dtype) == ("float32", "float32")
    out = plain(np.ones((1, 3), np.float32))
    assert out.dtype == tf.float32 and not isinstance(plain.kernel, AutoCastVariable)
    with pytest.raises(ValueError, match="floating-point policies"):
        mixed_precision.set_global_policy("int32")


def test_layer_dtype_argument_takes_policies_and_round_trips():
    for dtype in ("mixed_bfloat16", mixed_precision.Policy("mixed_bfloat16"),
                  {"class_name": "Policy", "config": {"name": "mixed_bfloat16"}}):
        layer = layers.Dense(3, dtype=dtype)
        assert (layer.dtype, layer.compute_dtype) == ("float32", "bfloat16")
    config = layer.get_config()
    assert config["dtype"] == {"class_name": "Policy", "config": {"name": "mixed_bfloat16"}}
    assert layers.Dense.from_config(config).compute_dtype == "bfloat16"
    assert layers.Dense(3, dtype="float64").get_config()["dtype"] == "float64"


# ---------------------------------------------------------------- layers


def _conv2d_valid(x, kernel, bias):
    kh, kw = kernel.shape[:2]
    rows, cols = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], rows, cols, kernel.shape[3]), np.float64)
    for i in range(rows):
        for j in range(cols):
            patch = x[:, i:i + kh, j:j + kw, :]
            out[:, i, j, :] = np.tensordot(patch, kernel, axes=([1, 2, 3], [0, 1, 2]))
    return out + bias


@pytest.mark.parametrize("policy, dtype", [("mixed_float16", tf.float16),
                                           ("mixed_bfloat16", tf.bfloat16)])
def test_dense_forward_backward(policy, dtype):
    mixed_precision.set_global_policy(policy)
    layer = layers.Dense(4, bias_initializer="ones")
    x = RNG.rand(3, 5).astype(np.float32)
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_sum(tf.cast(y, tf.float32) * np.arange(4, dtype=np.float32))
    kernel_grad, bias_grad = tape.gradient(loss, [layer.kernel, layer.bias])
    assert y.dtype == dtype
    assert isinstance(layer.kernel, AutoCastVariable)
    assert layer.kernel.dtype == tf.float32 and layer.kernel.numpy().dtype == np.float32
    assert kernel_grad.dtype == tf.float32 and bias_grad.dtype == tf.float32
    kernel, bias = layer.kernel.numpy(), layer.bias.numpy()
    tol = F16_TOL if dtype == tf.float16 else dict(rtol=3e-2, atol=3e-2)
    np.testing.assert_allclose(y.numpy().astype(np.float32), x @ kernel + bias, **tol)
    upstream = np.tile(np.arange(4, dtype=np.float32), (3, 1))
    np.testing.assert_allclose(kernel_grad.numpy(), x.T @ upstream, **tol)
    np.testing.assert_allclose(bias_grad.numpy(), upstream.sum(0), **tol)


@pytest.mark.parametrize("policy, dtype", [("mixed_float16", tf.float16),
                                           ("mixed_bfloat16", tf.bfloat16)])
def test_conv2d_forward_backward(policy, dtype):
    mixed_precision.set_global_policy(policy)
    layer = layers.Conv2D(3, 2, bias_initializer="ones")
    x = RNG.rand(2, 4, 4, 2).astype(np.float32)
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_sum(tf.cast(y, tf.float32))
    grads = tape.gradient(loss, layer.trainable_variables)
    assert y.dtype == dtype and y.shape.as_list() == [2, 3, 3, 3]
    assert [w.dtype for w in layer.weights] == [tf.float32, tf.float32]
    assert [g.dtype for g in grads] == [tf.float32, tf.float32]
    kernel, bias = layer.kernel.numpy(), layer.bias.numpy()
    tol = F16_TOL if dtype == tf.float16 else dict(rtol=3e-2, atol=5e-2)
    np.testing.assert_allclose(y.numpy().astype(np.float32), _conv2d_valid(x, kernel, bias),
                               **tol)
    # d(sum y)/d kernel[a, b, c, :] = sum over batch and positions of the matching input
    expected = np.zeros_like(kernel)
    for a in range(2):
        for b in range(2):
            expected[a, b] = x[:, a:a + 3, b:b + 3, :].sum(axis=(0, 1, 2))[:, None]
    np.testing.assert_allclose(grads[0].numpy(), expected, **tol)
    np.testing.assert_allclose(grads[1].numpy(), np.full(3, 18.0), **tol)


@pytest.mark.parametrize("policy, dtype", [("mixed_float16", tf.float16),
                                           ("mixed_bfloat16", tf.bfloat16)])
def test_lstm_matches_float32_lstm(policy, dtype):
    x = RNG.rand(2, 3, 4).astype(np.float32)
    reference = layers.LSTM(5, return_sequences=True)
    expected = reference(x).numpy()
    mixed_precision.set_global_policy(policy)
    layer = layers.LSTM(5, return_sequences=True)
    layer(x)
    layer.set_weights(reference.get_weights())
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_sum(tf.cast(y, tf.float32))
    grads = tape.gradient(loss, layer.trainable_variables)
    assert y.dtype == dtype
    assert [w.dtype for w in layer.weights] == [tf.float32] * 3
    assert [g.dtype for g in grads] == [tf.float32] * 3
    np.testing.assert_allclose(y.numpy().astype(np.float32), expected, rtol=3e-2, atol=3e-2)
    with tf.GradientTape() as tape:
        reference_loss = tf.reduce_sum(reference(x))
    reference_grads = tape.gradient(reference_loss, reference.trainable_variables)
    for got, want in zip(grads, reference_grads):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=5e-2, atol=5e-2)


def test_autocast_variable_reads_compute_dtype_only_inside_call():
    class Reader(layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", shape=[2], initializer="ones")
            self.step = self.add_weight("step", shape=[], initializer="zeros",
                                        trainable=False)
            self.exact = self.add_weight("exact", shape=[2], initializer="ones",
                                         experimental_autocast=False)

        def call(self, inputs):
            self.seen = (tf.convert_to_tensor(self.w).dtype, self.w.read_value().dtype,
                         self.w.dtype, self.exact.read_value().dtype)
            self.step.assign_add(1.0)
            return inputs * self.w

    layer = Reader(dtype="mixed_float16")
    out = layer(np.ones((1, 2), np.float32))
    assert out.dtype == tf.float16
    assert layer.seen == (tf.float16, tf.float16, tf.float32, tf.float32)
    assert layer.step.numpy() == 1.0 and layer.step.dtype == tf.float32
    assert tf.convert_to_tensor(layer.w).dtype == tf.float32
    assert "dtype=float32 dtype_to_cast_to=float32" in repr(layer.w)


def test_float32_final_layer_and_batch_norm_under_mixed_float16():
    mixed_precision.set_global_policy("mixed_float16")
    x = RNG.rand(8, 3).astype(np.float32)
    norm = layers.BatchNormalization()
    normalized = norm(x, training=True)
    assert normalized.dtype == tf.float16
    assert [w.dtype for w in norm.weights] == [tf.float32] * 4
    np.testing.assert_allclose(norm.moving_mean.numpy(), 0.01 * x.mean(0), rtol=1e-3)
    probabilities = layers.Activation("softmax", dtype="float32")(normalized)
    assert probabilities.dtype == tf.float32
    np.testing.assert_allclose(probabilities.numpy().sum(-1), np.ones(8), rtol=1e-6)


# ---------------------------------------------------------------- LossScaleOptimizer


def test_loss_scale_optimizer_defaults_and_scaling():
    optimizer = mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))
    assert optimizer.dynamic and optimizer.initial_scale == 2.0 ** 15
    assert optimizer.dynamic_growth_steps == 2000
    assert optimizer.loss_scale.dtype == tf.float32 and optimizer.loss_scale.numpy() == 32768.0
    assert optimizer.dynamic_counter.dtype == tf.int64 and optimizer.dynamic_counter.numpy() == 0
    scaled = optimizer.get_scaled_loss(tf.constant(0.5))
    assert scaled.numpy() == 16384.0
    assert optimizer.get_scaled_loss(lambda: tf.constant(2.0))().numpy() == 65536.0
    half = optimizer.get_scaled_loss(tf.constant(1.5, tf.float16))
    assert half.dtype == tf.float16 and half.numpy() == np.float16(49152.0)
    unscaled = optimizer.get_unscaled_gradients([tf.constant([32768.0, 65536.0]), None])
    np.testing.assert_array_equal(unscaled[0].numpy(), [1.0, 2.0])
    assert unscaled[1] is None
    assert optimizer.learning_rate.numpy() == np.float32(0.1) and optimizer.lr.numpy() == \
        np.float32(0.1)
    optimizer.learning_rate = 0.5
    assert optimizer.inner_optimizer.learning_rate.numpy() == 0.5


def test_loss_scale_optimizer_skips_nonfinite_steps_and_grows():
    variable = tf.Variable([1.0, 2.0])
    optimizer = mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(1.0),
                                                   initial_scale=8.0, dynamic_growth_steps=2)

    def step(gradient):
        optimizer.apply_gradients([(tf.constant(gradient, tf.float32), variable)])
        return (variable.numpy().tolist(), float(optimizer.loss_scale.numpy()),
                int(optimizer.dynamic_counter.numpy()), int(optimizer.iterations.numpy()))

    assert step([np.inf, 1.0]) == ([1.0, 2.0], 4.0, 0, 1)     # skipped, scale halved
    assert step([np.nan, 1.0]) == ([1.0, 2.0], 2.0, 0, 2)
    assert step([1.0, 1.0]) == ([0.0, 1.0], 2.0, 1, 3)
    assert step([1.0, 1.0]) == ([-1.0, 0.0], 4.0, 0, 4)       # 2 finite steps: doubled
    for _ in range(4):
        step([np.inf, 0.0])
    assert float(optimizer.loss_scale.numpy()) == 1.0          # never below 1


def test_loss_scale_optimizer_in_tf_function_and_minimize():
    variable = tf.Variable([3.0])
    optimizer = mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.5),
                                                   initial_scale=4.0, dynamic_growth_steps=3)

    @tf.function
    def apply(gradient):
        optimizer.apply_gradients([(gradient, variable)])

    apply(tf.constant([np.inf]))
    assert variable.numpy().tolist() == [3.0] and optimizer.loss_scale.numpy() == 2.0
    apply(tf.constant([2.0]))
    assert variable.numpy().tolist() == [2.0] and optimizer.dynamic_counter.numpy() == 1
    # minimize differentiates the scaled loss and unscales: d(v^2)/dv = 2v = 4
    optimizer.minimize(lambda: tf.reduce_sum(variable * variable), [variable])
    assert variable.numpy().tolist() == [0.0]
    assert optimizer.iterations.numpy() == 3 and optimizer.dynamic_counter.numpy() == 2


def test_loss_scale_optimizer_fixed_scale_config_and_errors():
    fixed = mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam(), dynamic=False,
                                               initial_scale=128)
    assert not fixed.dynamic and fixed.dynamic_counter is None
    assert fixed.loss_scale.numpy() == 128.0 and fixed.dynamic_growth_steps is None
    variable = tf.Variable([1.0])
    fixed.apply_gradients([(tf.constant([1.0]), variable)])
    assert variable.numpy()[0] == pytest.approx(0.999, abs=1e-6)
    config = fixed.get_config()
    assert config["dynamic"] is False and config["initial_scale"] == 128.0
    assert config["inner_optimizer"]["class_name"] == "Adam"
    again = mixed_precision.LossScaleOptimizer.from_config(config)
    assert isinstance(again.inner_optimizer, tf.keras.optimizers.Adam)
    assert again.loss_scale.numpy() == 128.0
    with pytest.raises(ValueError, match='"initial_scale" must be specified'):
        mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(), dynamic=False)
    with pytest.raises(TypeError, match='"dynamic" argument'):
        mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(), "dynamic")
    with pytest.raises(TypeError, match="cannot wrap another LossScaleOptimizer"):
        mixed_precision.LossScaleOptimizer(fixed)
    with pytest.raises(ValueError, match="already wrapped"):
        mixed_precision.LossScaleOptimizer(fixed.inner_optimizer, dynamic=False,
                                           initial_scale=2)


# ---------------------------------------------------------------- Model.fit


def _guide_model():
    """The TF mixed precision guide's model: Dense layers, softmax in float32."""
    inputs = tf.keras.Input(shape=(8,), name="digits")
    x = layers.Dense(32, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(32, activation="relu", name="dense_2")(x)
    x = layers.Dense(4, name="dense_logits")(x)
    outputs = layers.Activation("softmax", dtype="float32", name="predictions")(x)
    return tf.keras.Model(inputs=inputs, outputs=outputs), x


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_guide_model_trains_with_fit_under_mixed_float16(run_eagerly):
    mixed_precision.set_global_policy("mixed_float16")
    model, logits = _guide_model()
    assert logits.dtype == tf.float16 and model.output.dtype == tf.float32
    model.compile(loss="sparse_categorical_crossentropy",
                  optimizer=tf.keras.optimizers.RMSprop(), run_eagerly=run_eagerly)
    assert isinstance(model.optimizer, mixed_precision.LossScaleOptimizer)
    assert isinstance(model.optimizer.inner_optimizer, tf.keras.optimizers.RMSprop)
    x = RNG.rand(128, 8).astype(np.float32)
    y = x[:, :4].argmax(1).astype(np.int64)
    history = model.fit(x, y, batch_size=32, epochs=4, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0] and np.all(np.isfinite(losses))
    assert model.optimizer.iterations.numpy() == 16
    assert model.optimizer.dynamic_counter.numpy() == 16
    assert model.optimizer.loss_scale.numpy() == 32768.0
    assert all(w.dtype == tf.float32 for w in model.weights)
    assert model.predict(x[:3]).dtype == np.float32


def test_fit_skips_steps_whose_scaled_gradients_overflow():
    mixed_precision.set_global_policy("mixed_float16")
    model = tf.keras.Sequential([layers.Dense(1, use_bias=False, input_shape=(2,))])
    model.compile(loss="mse", optimizer=tf.keras.optimizers.SGD(1e-3), run_eagerly=True)
    # outputs 200: d loss / d output = 100, times the scale 2**15 overflows float16
    model.layers[0].kernel.assign([[100.0], [100.0]])
    before = model.get_weights()
    model.fit(np.ones((4, 2), np.float32), np.zeros((4, 1), np.float32), batch_size=4,
              epochs=1, verbose=0)
    for got, want in zip(model.get_weights(), before):
        np.testing.assert_array_equal(got, want)
    assert model.optimizer.loss_scale.numpy() == 16384.0
    assert model.optimizer.iterations.numpy() == 1


def test_compile_does_not_wrap_under_float32_or_bfloat16():
    for policy in ("float32", "mixed_bfloat16"):
        mixed_precision.set_global_policy(policy)
        model = tf.keras.Sequential([layers.Dense(1, input_shape=(2,))])
        model.compile(loss="mse", optimizer="sgd")
        assert isinstance(model.optimizer, tf.keras.optimizers.SGD)


def test_tf1_graph_fit_with_loss_scale_optimizer():
    with tf.Graph().as_default():
        model = tf.keras.Sequential([layers.Dense(1, use_bias=False, input_shape=(2,),
                                                  kernel_initializer="ones")])
        optimizer = mixed_precision.LossScaleOptimizer(
            tf.keras.optimizers.SGD(0.1), initial_scale=4.0, dynamic_growth_steps=2)
        model.compile(loss="mse", optimizer=optimizer)
        x, y = np.ones((4, 2), np.float32), np.zeros((4, 1), np.float32)
        model.fit(x, y, batch_size=4, epochs=3, verbose=0)
        session = K.get_session()
        state = [optimizer.loss_scale, optimizer.dynamic_counter, optimizer.iterations]
        # w <- w - 0.1 * 4w: 1, 0.6, 0.36, 0.216; the scale doubled after 2 finite steps
        np.testing.assert_allclose(model.get_weights()[0], np.full((2, 1), 0.216), rtol=1e-6)
        assert session.run(state) == [8.0, 1, 3]
        model.layers[0].kernel.load(np.full((2, 1), np.inf, np.float32), session)
        model.fit(x, y, batch_size=4, epochs=1, verbose=0)
        assert session.run(state) == [4.0, 0, 4]


def test_checkpoint_and_h5_keep_loss_scale_and_policies(tmp_path):
    mixed_precision.set_global_policy("mixed_float16")
    model = tf.keras.Sequential([layers.Dense(2, input_shape=(3,)),
                                 layers.Activation("linear", dtype="float32")])
    model.compile(loss="mse", optimizer="adam")
    model.fit(np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32), verbose=0)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    names = [name for name, _ in tf.train.list_variables(path)]
    assert "optimizer/loss_scale/current_loss_scale/.ATTRIBUTES/VARIABLE_VALUE" in names
    assert "optimizer/loss_scale/good_steps/.ATTRIBUTES/VARIABLE_VALUE" in names
    assert "optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE" in names
    model.optimizer._loss_scale.current_loss_scale.assign(3.0)
    checkpoint.restore(path)
    assert model.optimizer.loss_scale.numpy() == 32768.0
    model.save(str(tmp_path / "model.h5"))
    mixed_precision.set_global_policy(None)
    loaded = tf.keras.models.load_model(str(tmp_path / "model.h5"))
    assert isinstance(loaded.optimizer, mixed_precision.LossScaleOptimizer)
    assert [layer.dtype_policy.name for layer in loaded.layers] == ["mixed_float16", "float32"]
    assert loaded.predict(np.ones((1, 3), np.float32)).dtype == np.float32


def test_device_compatibility_check_logged_once(monkeypatch, caplog):
    import torch
    from tfcompat.keras.mixed_precision import device_compatibility_check as check
    monkeypatch.setattr(check, "_logged", False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with caplog.at_level("INFO", logger="tensorflow"):
        mixed_precision.Policy("mixed_bfloat16")
        mixed_precision.Policy("mixed_float16")
        mixed_precision.Policy("mixed_float16")
    messages = [r.getMessage() for r in caplog.records if "compatibility check" in r.getMessage()]
    assert len(messages) == 1
    assert "may run slowly because this machine does not have a GPU" in messages[0]
    caplog.clear()
    with caplog.at_level("INFO", logger="tensorflow"):
        check.log_compatibility([("Tesla P100", (6, 0)), ("Tesla V100", (7, 0)),
                                 ("Tesla V100", (7, 0))])
        check.log_compatibility([("NVIDIA H100", (9, 0))])
    mixed, fast = [r for r in caplog.records]
    assert mixed.levelname == "WARNING" and "  Tesla V100, compute capability 7.0 (x2)\n" \
        "  Tesla P100, compute capability 6.0\n" in mixed.getMessage()
    assert fast.levelname == "INFO" and fast.getMessage().endswith(
        "Your GPU: NVIDIA H100, compute capability 9.0")


def test_guide_custom_training_loop_in_tf_function():
    mixed_precision.set_global_policy("mixed_float16")
    model, _ = _guide_model()
    optimizer = mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.5))
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy()
    x = RNG.rand(64, 8).astype(np.float32)
    y = x[:, :4].argmax(1).astype(np.int64)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            predictions = model(x)
            loss = loss_object(y, predictions)
            scaled_loss = optimizer.get_scaled_loss(loss)
        scaled_gradients = tape.gradient(scaled_loss, model.trainable_variables)
        gradients = optimizer.get_unscaled_gradients(scaled_gradients)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    losses = [float(train_step(x, y).numpy()) for _ in range(30)]
    assert losses[-1] < losses[0]
    assert optimizer.iterations.numpy() == 30
    assert optimizer.dynamic_counter.numpy() == 30 and optimizer.loss_scale.numpy() == 32768.0
