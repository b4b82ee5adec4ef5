"""tf.keras Model (subclassed) and Sequential: tracking, names, weights, summary, config,
save/load of weights."""
import numpy as np
import pytest

import tfcompat as tf
import tfcompat.keras  # noqa: F401
from tfcompat.keras import backend as K
from tfcompat.keras import layers


pytestmark = pytest.mark.usefixtures("fresh_names")


class Block(tf.keras.Model):
    def __init__(self):
        super(Block, self).__init__()
        self.dense = layers.Dense(4, activation="relu")
        self.extra = [layers.Dense(3), {"head": layers.Dense(2)}]
        self.scale = tf.Variable(2.0, name="scale")

    def call(self, inputs):
        return self.extra[1]["head"](self.extra[0](self.dense(inputs))) * self.scale


def test_subclassed_model_tracks_lists_dicts_and_variables():
    model = Block()
    y = model(np.ones((2, 5), "float32"))
    assert y.shape.as_list() == [2, 2]
    assert model.name == "block"
    assert len(model.layers) == 3
    names = [v.name for v in model.trainable_variables]
    assert names[0] == "scale:0"
    assert names[1:] == ["block/dense/kernel:0", "block/dense/bias:0", "block/dense_1/kernel:0",
                         "block/dense_1/bias:0", "block/dense_2/kernel:0",
                         "block/dense_2/bias:0"]
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(np.ones((2, 5), "float32")))
    grads = tape.gradient(loss, model.trainable_variables)
    assert all(g is not None for g in grads)
    model.trainable = False
    assert model.trainable_weights == [] and len(model.non_trainable_weights) == 7
    assert model.get_layer("dense") is model.dense
    with pytest.raises(ValueError, match="No such layer"):
        model.get_layer("nope")


def test_nested_models_and_weights_round_trip():
    a, b = Block(), Block()
    x = np.random.rand(3, 5).astype("float32")
    a(x), b(x)
    b.set_weights(a.get_weights())
    np.testing.assert_allclose(a(x).numpy(), b(x).numpy())
    with pytest.raises(ValueError, match="weight list of length"):
        b.set_weights(a.get_weights()[:2])


def test_sequential_with_input_shape_summary_and_config(capsys):
    model = tf.keras.Sequential([layers.Dense(10, input_shape=(5,), activation="relu"),
                                 layers.Dropout(0.2), layers.Dense(1)])
    assert model.built and model.input_shape == (None, 5) and model.output_shape == (None, 1)
    assert [v.name for v in model.weights] == ["dense/kernel:0", "dense/bias:0",
                                               "dense_1/kernel:0", "dense_1/bias:0"]
    model.summary()
    out = capsys.readouterr().out
    assert 'Model: "sequential"' in out
    # TF 2.13+'s table (checked against tf-keras 2.21)
    assert "\n dense (Dense)               (None, 10)                60        \n" + " " * 65 + \
        "\n dropout (Dropout)" in out
    assert "Total params: 71 (284.00 Byte)\n" in out and "Non-trainable params: 0 (0.00 Byte)" \
        in out
    clone = tf.keras.models.model_from_json(model.to_json())
    assert [type(l).__name__ for l in clone.layers] == ["Dense", "Dropout", "Dense"]
    clone.set_weights(model.get_weights())
    x = np.random.rand(4, 5).astype("float32")
    np.testing.assert_allclose(clone(x).numpy(), model(x).numpy(), rtol=1e-6)
    model.pop()
    assert model.output_shape == (None, 10)


def test_sequential_deferred_build_and_add():
    model = tf.keras.models.Sequential()
    model.add(layers.Dense(3))
    model.add(layers.Dense(2))
    assert not model.weights
    y = model(np.ones((4, 7), "float32"))
    assert y.shape.as_list() == [4, 2] and len(model.weights) == 4
    with pytest.raises(TypeError, match="instance of class Layer"):
        model.add("dense")
    built = tf.keras.Sequential([layers.Dense(2)])
    built.build((None, 3))
    assert built.output_shape == (None, 2)


def test_sequential_training_flag_reaches_layers():
    model = tf.keras.Sequential([layers.Dropout(0.5, input_shape=(100,))])
    x = np.ones((10, 100), "float32")
    np.testing.assert_array_equal(model(x).numpy(), x)
    assert (model(x, training=True).numpy() == 0).any()


def test_save_and_load_weights_h5_needs_h5py(tmp_path):
    model = tf.keras.Sequential([layers.Dense(2, input_shape=(3,))])
    try:
        import h5py  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="h5py"):
            model.save_weights(str(tmp_path / "w.h5"))
        return
    model.save_weights(str(tmp_path / "w.h5"))
    other = tf.keras.Sequential([layers.Dense(2, input_shape=(3,))])
    other.load_weights(str(tmp_path / "w.h5"))
    for a, b in zip(model.get_weights(), other.get_weights()):
        np.testing.assert_allclose(a, b)


def test_graph_mode_model_variables_and_session():
    with tf.Graph().as_default() as graph:
        model = Block()
        x = tf.compat.v1.placeholder(tf.float32, [None, 5])
        y = model(x)
        assert y.shape.as_list() == [None, 2]
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            assert sess.run(y, {x: np.ones((3, 5), "float32")}).shape == (3, 2)


def test_backend_basics():
    assert K.floatx() == "float32" and K.epsilon() == 1e-7
    assert K.int_shape(tf.zeros((2, 3))) == (2, 3)
    v = K.variable(np.ones((2, 2)))
    K.set_value(v, np.zeros((2, 2)))
    np.testing.assert_array_equal(K.get_value(v), np.zeros((2, 2)))
    np.testing.assert_allclose(K.eval(K.dot(tf.ones((2, 3)), tf.ones((3, 4)))), np.full((2, 4), 3))
    assert K.learning_phase() == 0
    with K.learning_phase_scope(1):
        assert K.learning_phase() == 1
    assert tf.keras.utils.to_categorical([0, 2], 3).tolist() == [[1, 0, 0], [0, 0, 1]]
    with pytest.raises(NotImplementedError, match="plot_model"):
        tf.keras.utils.plot_model(None)


def test_checkpoint_keys_of_a_sequential_model_are_tensorflows(tmp_path):
    """TF names a Sequential's layers `layer_with_weights-N` in object-based checkpoints."""
    from safetensors import safe_open
    model = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dense(2)])
    model(tf.zeros([1, 4]))
    prefix = tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    with safe_open(prefix + ".safetensors", "pt") as f:
        keys = set(f.keys())
    assert "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "model/layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE" in keys


def test_save_weights_and_load_weights_round_trip_through_checkpoint(tmp_path):
    def build():
        return tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,)),
                                    tf.keras.layers.Dense(2)])
    x = tf.constant(np.ones((1, 4), np.float32))
    model = build()
    expected = model(x).numpy()
    model.save_weights(str(tmp_path / "weights"))
    restored = build()
    restored.load_weights(str(tmp_path / "weights"))
    np.testing.assert_allclose(restored(x).numpy(), expected)


class Doubler(layers.Layer):
    """A call without `training` or `mask` arguments."""

    def call(self, inputs):
        return inputs * 2.0


class Phase(layers.Layer):
    """Returns 1 where it ran in training mode, 0 otherwise."""

    def call(self, inputs, training=None):
        return tf.ones_like(inputs) if training else tf.zeros_like(inputs)


class Wrapper(layers.Layer):
    def __init__(self, inner):
        super(Wrapper, self).__init__()
        self.inner = inner

    def call(self, inputs):
        return self.inner(inputs)


def test_training_reaches_call_only_when_accepted_and_is_inherited():
    x = np.ones((1, 2), np.float32)
    np.testing.assert_array_equal(Doubler()(x, training=True).numpy(), [[2, 2]])
    np.testing.assert_array_equal(Doubler()(x, mask=None).numpy(), [[2, 2]])
    phase = Phase()
    assert phase(x).numpy().sum() == 0
    assert phase(x, training=True).numpy().sum() == 2
    assert Wrapper(Phase())(x, training=True).numpy().sum() == 2   # via the enclosing call
    K.set_learning_phase(1)
    try:
        assert phase(x).numpy().sum() == 2
        assert phase(x, training=False).numpy().sum() == 0
    finally:
        K.clear_session()
    with K.learning_phase_scope(1):
        assert Wrapper(Phase())(x).numpy().sum() == 2


class ActivityLoss(layers.Layer):
    def call(self, inputs):
        self.add_loss(tf.reduce_sum(inputs))
        self.add_metric(tf.reduce_mean(inputs), name="mean_input")
        return inputs


def test_losses_and_metrics_of_nested_layers_eager_and_in_functions():
    outer = Wrapper(ActivityLoss())
    outer(np.ones((1, 2), np.float32))
    assert [float(l) for l in outer.losses] == [2.0]
    outer(np.full((1, 2), 3.0, np.float32))   # each outermost call replaces the losses
    assert [float(l) for l in outer.losses] == [6.0]
    assert [m.name for m in outer.metrics] == ["mean_input"]
    assert float(outer.metrics[0].result()) == pytest.approx(2.0)   # mean of 1 and 3

    @tf.function
    def traced(x):
        outer(x)
        return tf.add_n(outer.losses)
    assert float(traced(tf.fill((1, 2), 5.0))) == 10.0
    assert float(traced(tf.fill((1, 2), 4.0))) == 8.0
    assert float(outer.metrics[0].result()) == pytest.approx((1 + 3 + 5 + 4) / 4.0)
    with pytest.raises(ValueError, match="zero argument `lambda`"):
        outer.add_loss(tf.constant(1.0))
    outer.add_loss(lambda: tf.constant(0.5))
    outer(np.ones((1, 2), np.float32))   # the trace's losses are replaced by eager ones
    assert [float(l) for l in outer.losses] == [0.5, 2.0]   # outer layer first, as in TF
    with pytest.raises(ValueError, match="provide a name"):
        ActivityLoss().add_metric(tf.constant(1.0))
    with pytest.raises(ValueError, match="only `mean`"):
        ActivityLoss().add_metric(tf.constant(1.0), aggregation="sum", name="s")


def test_get_session_in_a_graph_block_of_an_eager_program():
    with pytest.raises(RuntimeError, match="eager"):
        K.get_session()
    with tf.Graph().as_default() as graph:
        v = K.variable(np.full((2,), 3.0))
        session = K.get_session()
        assert session.graph is graph and K.get_session() is session
        np.testing.assert_array_equal(session.run(v), [3, 3])
        np.testing.assert_array_equal(K.batch_get_value([v, v * 2])[1], [6, 6])


def test_backend_function_in_graphs_and_eager_code():
    with tf.Graph().as_default():
        x = K.placeholder(shape=(None, 2))
        counter = K.variable(0.0)
        f = K.function([x, K.learning_phase()], [K.sum(x)],
                       updates=[K.update_add(counter, 1.0)])
        assert f([np.ones((3, 2)), 0]) == [6.0]
        f([np.ones((1, 2)), 1])
        assert K.get_value(counter) == 2.0
    inputs = tf.keras.Input(shape=(3,))
    hidden = layers.Dense(2)(inputs)
    dropped = layers.Dropout(0.5)(hidden)
    f = K.function([inputs, K.learning_phase()], [hidden, dropped])
    data = np.ones((64, 3), np.float32)
    test_hidden, test_dropped = f([data, 0])
    np.testing.assert_allclose(test_hidden, test_dropped)
    _, train_dropped = f([data, 1])
    assert (train_dropped == 0).any()
    single = K.function([inputs], hidden)
    assert single([data]).shape == (64, 2)


_X = np.array([[-2.0, 0.5], [1.5, 3.0]], np.float32)
_Y = np.array([[1.0, -1.0], [1.5, 0.0]], np.float32)


@pytest.mark.parametrize("fn, expected", [
    (lambda: K.equal(_X, _Y), _X == _Y),
    (lambda: K.greater_equal(_X, _Y), _X >= _Y),
    (lambda: K.less(_X, _Y), _X < _Y),
    (lambda: K.pow(tf.constant(_X), 2), _X ** 2),
    (lambda: K.sign(tf.constant(_X)), np.sign(_X)),
    (lambda: K.round(tf.constant([0.5, 1.5, 2.4])), [0.0, 2.0, 2.0]),
    (lambda: K.cumsum(tf.constant(_X), axis=1), np.cumsum(_X, 1)),
    (lambda: K.cumprod(tf.constant(_X)), np.cumprod(_X, 0)),
    (lambda: K.all(tf.constant(_X) > -3, axis=1), [True, True]),
    (lambda: K.any(tf.constant(_X) > 2), True),
    (lambda: K.softplus(tf.constant(_X)), np.log1p(np.exp(_X))),
    (lambda: K.softsign(tf.constant(_X)), _X / (1 + np.abs(_X))),
    (lambda: K.elu(tf.constant(_X), 0.5), np.where(_X > 0, _X, 0.5 * (np.exp(_X) - 1))),
    (lambda: K.hard_sigmoid(tf.constant(_X)), np.clip(0.2 * _X + 0.5, 0, 1)),
    (lambda: K.l2_normalize(tf.constant(_X), axis=1),
     _X / np.linalg.norm(_X, axis=1, keepdims=True)),
    (lambda: K.one_hot(tf.constant([0, 2]), 3), np.eye(3)[[0, 2]]),
    (lambda: K.switch(tf.constant([True, False]), tf.constant(_X), tf.constant(_Y)),
     np.where([[True], [False]], _X, _Y)),
    (lambda: K.switch(tf.constant(False), lambda: tf.constant(_X), lambda: tf.constant(_Y)),
     _Y),
    (lambda: K.arange(1, 7, 2), [1, 3, 5]),
    (lambda: K.reverse(tf.constant(_X), 1), _X[:, ::-1]),
    (lambda: K.repeat_elements(tf.constant(_X), 2, axis=0), np.repeat(_X, 2, 0)),
    (lambda: K.eye(2), np.eye(2)),
    (lambda: K.temporal_padding(tf.ones((1, 2, 1)), (1, 2)),
     np.pad(np.ones((1, 2, 1)), ((0, 0), (1, 2), (0, 0)))),
    (lambda: K.spatial_2d_padding(tf.ones((1, 1, 1, 1)), ((0, 1), (1, 0))),
     np.pad(np.ones((1, 1, 1, 1)), ((0, 0), (0, 1), (1, 0), (0, 0)))),
    (lambda: K.resize_images(tf.constant(_X.reshape(1, 2, 2, 1)), 2, 1, "channels_last"),
     np.repeat(_X.reshape(1, 2, 2, 1), 2, 1)),
    (lambda: K.categorical_crossentropy(tf.constant([[0.0, 1.0]]), tf.constant([[0.2, 0.6]])),
     [-np.log(0.75)]),
    (lambda: K.sparse_categorical_crossentropy(tf.constant([1, 0]),
                                               tf.constant([[0.2, 0.8], [0.6, 0.4]])),
     -np.log([0.8, 0.6])),
    (lambda: K.sparse_categorical_crossentropy(tf.constant([[1]]), tf.constant([[1.0, 2.0]]),
                                               from_logits=True),
     [np.log1p(np.exp(-1.0))]),
    (lambda: K.binary_crossentropy(tf.constant([1.0, 0.0]), tf.constant([0.9, 0.2])),
     -np.log([0.9 + 1e-7, 0.8 + 1e-7])),
    (lambda: K.conv2d(tf.ones((1, 3, 3, 1)), tf.ones((2, 2, 1, 1))), np.full((1, 2, 2, 1), 4)),
    (lambda: K.pool2d(tf.constant(np.arange(16.0).reshape(1, 4, 4, 1)), (2, 2), (2, 2),
                      pool_mode="avg"), [[[[2.5], [4.5]], [[10.5], [12.5]]]]),
    (lambda: K.conv1d(tf.ones((1, 3, 1)), tf.ones((2, 1, 1)), padding="causal"),
     [[[1.0], [2.0], [2.0]]]),
    (lambda: K.batch_normalization(tf.constant(_X), 1.0, 4.0, 0.5, 2.0, epsilon=0.0),
     (_X - 1.0) / 2.0 * 2.0 + 0.5),
    (lambda: K.normalize_batch_in_training(tf.constant(_X), None, None, [0])[0],
     (_X - _X.mean(0)) / np.sqrt(_X.var(0) + 1e-3)),
])
def test_backend_math_matches_numpy(fn, expected):
    np.testing.assert_allclose(K.eval(fn()), expected, rtol=1e-5, atol=1e-6)


def test_backend_variables_and_updates():
    v = K.random_uniform_variable((100,), -1.0, 2.0, seed=1)
    values = K.get_value(v)
    assert values.min() >= -1.0 and values.max() <= 2.0 and values.dtype == np.float32
    K.moving_average_update(v, tf.zeros((100,)), 0.75)
    np.testing.assert_allclose(K.get_value(v), values * 0.75, rtol=1e-6)
    K.update(v, tf.ones((100,)))
    K.update_sub(v, tf.fill((100,), 0.5))
    np.testing.assert_allclose(K.get_value(v), 0.5)
    draws = K.eval(K.random_binomial((1000,), p=0.3, seed=3))
    assert set(np.unique(draws)) <= {0.0, 1.0} and 0.2 < draws.mean() < 0.4
    with pytest.raises(ValueError, match="Rank of `condition`"):
        K.switch(tf.ones((2, 2, 2)) > 0, tf.ones((2, 2)), tf.zeros((2, 2)))


def test_sequence_base_class_and_data_packing():
    class Batches(tf.keras.utils.Sequence):
        def __len__(self):
            return 2

        def __getitem__(self, index):
            return np.full((2, 3), index, np.float32), np.zeros((2, 1), np.float32)
    assert [int(x[0, 0]) for x, _ in Batches()] == [0, 1]
    with pytest.raises(NotImplementedError, match="__len__"):
        len(tf.keras.utils.Sequence())
    unpack = tf.keras.utils.unpack_x_y_sample_weight
    assert unpack([1, 2]) == (1, 2, None) and unpack((1,)) == (1, None, None)
    assert tf.keras.utils.pack_x_y_sample_weight(1, 2) == (1, 2)
    with pytest.raises(ValueError, match="format"):
        unpack((1, 2, 3, 4))


def test_inputs_one_rank_short_or_over_conform_to_the_model_input_as_keras_2():
    """Keras 2's `_conform_to_reference_input`: 1-D features for an `Input((1,))` get their
    last axis (the regression tutorial's `fit(horsepower, mpg)`), `(N, 3, 1)` for an
    `Input((3,))` loses it, in functional and Sequential models alike."""
    x = np.linspace(0, 1, 8).astype("float32")
    inputs = tf.keras.Input((1,))
    functional = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    sequential = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
    for model in (functional, sequential):
        model.compile("sgd", "mse")
        model.fit(x, 2 * x, epochs=1, verbose=0)
        assert model.predict(x, verbose=0).shape == (8, 1)
        np.testing.assert_allclose(model(x).numpy(), model(x[:, None]).numpy())
    wide = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    assert wide(np.ones((4, 3, 1), np.float32)).shape == (4, 2)


def test_model_weights_go_layer_by_layer_as_keras_2():
    """Keras 2's Model.weights (so get_weights / set_weights lists from real Keras line up):
    a BatchNormalization's moving statistics follow its gamma and beta (real tf.keras 2.21's
    order), in Sequential and subclassed models alike."""
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,), name="a"),
                                 tf.keras.layers.BatchNormalization(name="bn"),
                                 tf.keras.layers.Dense(1, name="b")])
    assert [w.name for w in model.weights] == [
        "a/kernel:0", "a/bias:0", "bn/gamma:0", "bn/beta:0", "bn/moving_mean:0",
        "bn/moving_variance:0", "b/kernel:0", "b/bias:0"]
    values = [np.full(w.shape, i, np.float32) for i, w in enumerate(model.weights)]
    model.set_weights(values)
    np.testing.assert_array_equal(model.get_layer("bn").moving_mean.numpy(), [4, 4])
