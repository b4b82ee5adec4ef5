"""Model.compile / fit / evaluate / predict and the batch methods (eager mode)."""
import numpy as np
import pytest

import tfcompat as tf

keras = tf.keras


class Linear(keras.Model):
    """A hand-built model: y = x @ w + b with tf.Variable weights."""

    def __init__(self, n_in, n_out):
        super(Linear, self).__init__()
        self.w = tf.Variable(np.zeros((n_in, n_out), np.float32))
        self.b = tf.Variable(np.zeros((n_out,), np.float32))

    def call(self, x):
        return tf.matmul(x, self.w) + self.b


def _regression(n=64):
    rng = np.random.RandomState(0)
    x = rng.randn(n, 3).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
    return x, y


def _classification(n=256):
    rng = np.random.RandomState(1)
    x = rng.randn(n, 8).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    return x, y


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_regression_learns(run_eagerly):
    x, y = _regression()
    model = Linear(3, 1)
    model.compile(keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"],
                  run_eagerly=run_eagerly)
    history = model.fit(x, y, batch_size=16, epochs=20, verbose=0)
    assert set(history.history) == {"loss", "mae"}
    assert len(history.history["loss"]) == 20 and history.epoch == list(range(20))
    assert history.history["loss"][-1] < 0.01 * history.history["loss"][0]
    np.testing.assert_allclose(model.w.numpy().ravel(), [1.0, -2.0, 0.5], atol=0.05)
    assert model.metrics_names == ["loss", "mae"]
    assert model.evaluate(x, y, verbose=0)[0] == pytest.approx(history.history["loss"][-1],
                                                              abs=0.01)


def test_fit_matches_manual_sgd_steps():
    x, y = _regression(8)
    model = Linear(3, 1)
    model.compile(keras.optimizers.SGD(0.1), loss="mse")
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    w, b = np.zeros((3, 1), np.float32), np.zeros(1, np.float32)
    for start in (0, 4):
        xb, yb = x[start:start + 4], y[start:start + 4]
        err = xb @ w + b - yb
        w = w - 0.1 * 2 * xb.T @ err / 4
        b = b - 0.1 * 2 * err.sum(0) / 4
    np.testing.assert_allclose(model.w.numpy(), w, rtol=1e-5)
    np.testing.assert_allclose(model.b.numpy(), b, rtol=1e-5)


def test_sequential_classification_with_validation():
    x, y = _classification()
    model = keras.Sequential([keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=15, validation_split=0.25, verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert history.history["accuracy"][-1] > 0.9
    assert history.history["val_accuracy"][-1] > 0.85
    loss, acc = model.evaluate(x, y, verbose=0)
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert logs == {"loss": pytest.approx(loss), "accuracy": pytest.approx(acc)}
    predictions = model.predict(x, batch_size=50)
    assert predictions.shape == (256, 2)
    np.testing.assert_allclose(predictions.sum(1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(model.predict_on_batch(x[:5]), predictions[:5], rtol=1e-5)


def test_acc_name_and_binary_accuracy():
    x, y = _classification(64)
    model = keras.Sequential([keras.layers.Dense(1, activation="sigmoid")])
    model.compile("sgd", loss="binary_crossentropy", metrics=["acc"])
    history = model.fit(x, y.astype(np.float32), epochs=2, verbose=0)
    assert set(history.history) == {"loss", "acc"}


def test_train_and_test_on_batch():
    x, y = _regression(16)
    model = Linear(3, 1)
    model.compile(keras.optimizers.SGD(0.1), loss="mse", metrics=["mse"])
    first = model.train_on_batch(x, y)
    assert isinstance(first, list) and len(first) == 2
    assert first[0] == pytest.approx(float(np.mean(y ** 2)), rel=1e-5)
    after = model.test_on_batch(x, y)
    assert after[0] < first[0]
    assert model.train_on_batch(x, y, return_dict=True).keys() == {"loss", "mse"}


def test_sample_and_class_weights():
    x, y = _regression(8)
    model = Linear(3, 1)
    model.compile(keras.optimizers.SGD(0.0), loss="mse")
    weights = np.array([1, 0, 0, 0, 0, 0, 0, 0], np.float32)
    loss = model.evaluate(x, y, sample_weight=weights, batch_size=8, verbose=0)
    assert loss == pytest.approx(float(y[0, 0] ** 2) / 8, rel=1e-5)
    xc, yc = _classification(32)
    clf = keras.Sequential([keras.layers.Dense(2, activation="softmax")])
    clf.compile("sgd", loss="sparse_categorical_crossentropy")
    clf.fit(xc, yc, class_weight={0: 1.0, 1: 2.0}, epochs=1, verbose=0)


def test_datasets_generators_and_sequences():
    x, y = _regression(32)
    model = Linear(3, 1)
    model.compile(keras.optimizers.SGD(0.1), loss="mse")
    batches = [(x[i:i + 8], y[i:i + 8]) for i in range(0, 32, 8)]
    history = model.fit(batches, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2

    def generator():
        while True:
            for b in batches:
                yield b
    history = model.fit(generator(), steps_per_epoch=4, epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3

    class Seq(object):
        epochs_ended = 0

        def __len__(self):
            return 4

        def __getitem__(self, i):
            return batches[i]

        def on_epoch_end(self):
            Seq.epochs_ended += 1
    model.fit(Seq(), epochs=2, verbose=0)
    assert Seq.epochs_ended == 2
    with pytest.warns(UserWarning):
        model.fit_generator(generator(), steps_per_epoch=2, epochs=1, verbose=0)
    assert model.predict(iter([(x[:4],), (x[4:8],)])).shape == (8, 1)


def test_regularization_losses_are_added():
    x, y = _regression(16)
    model = keras.Sequential([keras.layers.Dense(
        1, kernel_initializer="ones", kernel_regularizer=keras.regularizers.l2(1.0))])
    model.compile(keras.optimizers.SGD(0.0), loss="mse")
    loss = model.evaluate(x, y, batch_size=16, verbose=0)
    pred = x.sum(1, keepdims=True)
    assert loss == pytest.approx(float(np.mean((pred - y) ** 2)) + 3.0, rel=1e-4)


def test_progress_bar_output(capsys):
    x, y = _regression(64)
    model = Linear(3, 1)
    model.compile("sgd", loss="mse", metrics=["mae"])
    model.fit(x, y, batch_size=32, epochs=2, verbose=1)
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out
    assert "2/2 [==============================] - " in out
    assert "ms/step - loss: " in out or "us/step - loss: " in out or "s/step - loss: " in out
    assert " - mae: " in out
    model.fit(x, y, batch_size=32, epochs=1, verbose=2)
    out = capsys.readouterr().out
    assert out.startswith("2/2 - ") and "[" not in out


def test_errors():
    model = Linear(3, 1)
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(np.zeros((4, 3)), np.zeros((4, 1)), verbose=0)
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="validation_split"):
        model.fit([(np.zeros((4, 3)), np.zeros((4, 1)))], validation_split=0.5, verbose=0)
    with pytest.raises(ValueError, match="same number of samples"):
        model.fit(np.zeros((4, 3)), np.zeros((5, 1)), verbose=0)


@pytest.fixture
def graph_mode():
    from tfcompat.framework import context
    previous = "eager" if context.state.eager else "graph"
    context.set_mode("graph")
    try:
        with tf.Graph().as_default():
            yield
    finally:
        context.set_mode(previous)


def test_tf1_graph_mode_fit_evaluate_predict(graph_mode):
    x, y = _regression(64)
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=16, epochs=10, validation_split=0.25, verbose=0)
    assert set(history.history) == {"loss", "mae", "val_loss", "val_mae"}
    first = history.history["loss"][0]
    assert history.history["loss"][-1] < 0.01 * first
    loss, mae = model.evaluate(x, y, verbose=0)
    assert loss < 0.02 * first
    np.testing.assert_allclose(model.predict(x[:5]), x[:5] @ [[1.0], [-2.0], [0.5]] + 0.3,
                               atol=0.2)
    assert model.train_on_batch(x[:8], y[:8])[0] < 0.02 * first


class MeanOutput(keras.layers.Layer):
    """Logs the mean of its input through add_metric and adds it (x 0.1) as a loss."""

    def call(self, inputs):
        self.add_metric(tf.reduce_mean(inputs), name="mean_output")
        self.add_loss(0.1 * tf.reduce_mean(inputs))
        return inputs


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_add_metric_and_add_loss_in_layers_reach_fit_logs(run_eagerly):
    x, y = _regression(16)
    model = keras.Sequential([keras.layers.Dense(1, kernel_initializer="ones",
                                                 bias_initializer="zeros"), MeanOutput()])
    model.compile(keras.optimizers.SGD(0.0), loss="mse", run_eagerly=run_eagerly)
    history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert set(history.history) == {"loss", "mean_output"}
    pred = x.sum(1, keepdims=True)
    assert history.history["mean_output"][-1] == pytest.approx(float(pred.mean()), rel=1e-5)
    batch_losses = [np.mean((pred[i:i + 8] - y[i:i + 8]) ** 2) + 0.1 * pred[i:i + 8].mean()
                    for i in (0, 8)]
    assert history.history["loss"][-1] == pytest.approx(float(np.mean(batch_losses)), rel=1e-5)
    assert model.metrics_names == ["loss", "mean_output"]


def test_tf1_graph_fit_with_activity_regularizers_and_layer_metrics(graph_mode):
    x, y = _regression(16)
    inputs = keras.Input(shape=(3,))
    hidden = keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros",
                                activity_regularizer=keras.regularizers.l1(0.5))(inputs)
    outputs = MeanOutput()(keras.layers.Dense(1, kernel_initializer="ones",
                                              bias_initializer="zeros")(hidden))
    model = keras.Model(inputs, outputs)
    model.compile(keras.optimizers.SGD(0.0), loss="mse")
    logs = model.evaluate(x, y, batch_size=16, return_dict=True, verbose=0)
    h = np.repeat(x.sum(1, keepdims=True), 2, 1)
    pred = h.sum(1, keepdims=True)
    expected = np.mean((pred - y) ** 2) + 0.5 * np.abs(h).sum() / 16 + 0.1 * pred.mean()
    assert logs["loss"] == pytest.approx(float(expected), rel=1e-5)
    assert logs["mean_output"] == pytest.approx(float(pred.mean()), rel=1e-5)
    history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert set(history.history) == {"loss", "mean_output"}


def test_generators_of_lists_and_sequence_subclasses():
    x, y = _regression(16)
    model = Linear(3, 1)
    model.compile(keras.optimizers.SGD(0.1), loss="mse")

    def lists():
        while True:
            yield [x[:8], y[:8]]
    assert len(model.fit(lists(), steps_per_epoch=2, epochs=2, verbose=0).history["loss"]) == 2

    class Halves(keras.utils.Sequence):
        def __len__(self):
            return 2

        def __getitem__(self, index):
            return x[8 * index:8 * index + 8], y[8 * index:8 * index + 8]
    before = model.evaluate(x, y, verbose=0)
    model.fit(Halves(), epochs=3, verbose=0)
    assert model.evaluate(Halves(), verbose=0) < before


def test_sequential_predict_classes_and_proba():
    x = np.array([[2.0, 0.0], [0.0, 3.0], [-1.0, -2.0]], np.float32)
    multi = keras.Sequential([keras.layers.Activation("softmax", input_shape=(2,))])
    binary = keras.Sequential([keras.layers.Dense(1, activation="sigmoid", input_shape=(2,),
                                                  kernel_initializer="ones")])
    with pytest.warns(UserWarning, match="predict_classes"):
        assert multi.predict_classes(x).tolist() == [0, 1, 0]
        assert binary.predict_classes(x).tolist() == [[1], [1], [0]]
    with pytest.warns(UserWarning, match="predict_proba"):
        np.testing.assert_allclose(multi.predict_proba(x).sum(1), 1.0, rtol=1e-6)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_batch_logs_are_running_means(run_eagerly):
    """Callbacks see each batch's logs: the metrics' running means over the epoch so far
    (a zero model with learning rate 0 predicts 0: per-batch loss mean(y**2), mae mean|y|)."""
    x, y = _regression(40)
    model = Linear(3, 1)
    model.compile(keras.optimizers.SGD(0.0), loss="mse", metrics=["mae"],
                  run_eagerly=run_eagerly)
    seen = {"train": [], "test": []}
    callback = keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen["train"].append(dict(logs)))
    callback.on_test_batch_end = lambda batch, logs: seen["test"].append(dict(logs))
    history = model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0,
                        callbacks=[callback])
    model.evaluate(x, y, batch_size=16, verbose=0, callbacks=[callback])
    for kind in ("train", "test"):
        logs = seen[kind]
        assert len(logs) == 3
        for i, batch_logs in enumerate(logs):
            rows = y[:min(16 * (i + 1), 40)]
            assert float(batch_logs["loss"]) == pytest.approx(float(np.mean(rows ** 2)),
                                                              rel=1e-5)
            assert float(batch_logs["mae"]) == pytest.approx(float(np.mean(np.abs(rows))),
                                                             rel=1e-5)
    assert history.history["loss"][0] == pytest.approx(float(seen["train"][-1]["loss"]))


def test_lists_of_scalars_are_one_array_and_string_arrays_shuffle():
    """Keras' ListsOfScalarsDataAdapter: `predict(["a b", "c"])` is two samples of one
    input (was two inputs); `fit` shuffles string arrays."""
    vectorize = tf.keras.layers.TextVectorization(max_tokens=20, output_sequence_length=3)
    vectorize.adapt(["the cat sat", "the dog ran"])
    model = tf.keras.Sequential([
        tf.keras.Input((1,), dtype="string"), vectorize, tf.keras.layers.Embedding(20, 2),
        tf.keras.layers.GlobalAveragePooling1D(), tf.keras.layers.Dense(1)])
    assert model.predict(["the cat", "a dog ran"], verbose=0).shape == (2, 1)
    model.compile("adam", "mse")
    history = model.fit(np.array(["the cat", "a dog ran", "sat"]), [1.0, 0.0, 1.0], epochs=2,
                        shuffle=True, verbose=0)
    assert len(history.history["loss"]) == 2
    dense = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    dense.compile("sgd", "mse")
    dense.fit([[1.0, 2.0], [3.0, 4.0]], [1.0, 2.0], verbose=0)
    assert dense.predict([[1.0, 2.0]], verbose=0).shape == (1, 1)
