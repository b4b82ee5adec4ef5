"""Keras 2 callbacks driven by Model.fit."""
import csv
import os

import numpy as np
import pytest

import tfcompat as tf

keras = tf.keras


class Linear(keras.Model):
    def __init__(self):
        super(Linear, self).__init__()
        self.w = tf.Variable(np.zeros((2, 1), np.float32))

    def call(self, x):
        return tf.matmul(x, self.w)


def _data():
    rng = np.random.RandomState(0)
    x = rng.randn(32, 2).astype(np.float32)
    return x, x @ np.array([[1.0], [-1.0]], np.float32)


def _model(lr=0.1):
    model = Linear()
    model.compile(keras.optimizers.SGD(lr), loss="mse")
    return model


def test_history_and_lambda_and_order():
    x, y = _data()
    events = []
    cb = keras.callbacks.LambdaCallback(
        on_train_begin=lambda logs: events.append("train_begin"),
        on_epoch_end=lambda epoch, logs: events.append(("epoch", epoch, sorted(logs))),
        on_batch_end=lambda batch, logs: events.append(("batch", batch)))
    history = _model().fit(x, y, batch_size=16, epochs=2, callbacks=[cb], verbose=0)
    assert events[0] == "train_begin"
    assert ("batch", 1) in events and ("epoch", 1, ["loss"]) in events
    assert history.params["epochs"] == 2 and history.params["steps"] == 2
    assert isinstance(history, keras.callbacks.History)


def test_custom_callback_stops_training():
    class Stop(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 2:
                self.model.stop_training = True
    x, y = _data()
    history = _model().fit(x, y, epochs=10, callbacks=[Stop()], verbose=0)
    assert history.epoch == [0, 1, 2]


def test_early_stopping_restores_best_weights():
    x, y = _data()
    model = _model(lr=2.0)          # diverges: the best epoch is the first
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=2,
                                         restore_best_weights=True)
    history = model.fit(x, y, epochs=20, callbacks=[stop], verbose=0)
    losses = history.history["loss"]
    assert len(losses) == 3 and stop.stopped_epoch == 2
    assert model.evaluate(x, y, verbose=0) < losses[-1]


def test_early_stopping_unknown_monitor_warns(caplog):
    x, y = _data()
    _model().fit(x, y, epochs=1, verbose=0,
                 callbacks=[keras.callbacks.EarlyStopping(monitor="val_loss")])
    assert "not available" in caplog.text


def test_model_checkpoint(tmp_path):
    x, y = _data()
    model = _model()
    path = str(tmp_path / "w_{epoch:02d}")
    cb = keras.callbacks.ModelCheckpoint(path, monitor="loss", save_best_only=True,
                                         save_weights_only=True)
    model.fit(x, y, epochs=3, callbacks=[cb], verbose=0)
    saved = sorted({f.split(".")[0] for f in os.listdir(tmp_path) if f.startswith("w_")})
    assert saved == ["w_01", "w_02", "w_03"]
    restored = _model()
    restored.load_weights(str(tmp_path / "w_03"))
    np.testing.assert_allclose(restored.w.numpy(), model.w.numpy())


def test_learning_rate_scheduler_and_reduce_on_plateau():
    x, y = _data()
    model = _model()
    history = model.fit(x, y, epochs=3, verbose=0, callbacks=[
        keras.callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))])
    np.testing.assert_allclose(history.history["lr"], [0.1, 0.05, 0.1 / 3], rtol=1e-6)
    model = _model(lr=0.0)
    reduce = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1)
    model.optimizer.learning_rate = 1e-8
    model.fit(x, y, epochs=3, verbose=0, callbacks=[reduce])
    assert float(model.optimizer.lr.numpy()) < 1e-8
    with pytest.raises(ValueError, match="factor >= 1.0"):
        keras.callbacks.ReduceLROnPlateau(factor=2.0)


def test_csv_logger_and_terminate_on_nan(tmp_path):
    x, y = _data()
    path = str(tmp_path / "log.csv")
    _model().fit(x, y, epochs=2, verbose=0, callbacks=[keras.callbacks.CSVLogger(path)])
    with open(path) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["epoch", "loss"] and [r[0] for r in rows[1:]] == ["0", "1"]
    y_nan = y.copy()
    y_nan[:] = np.nan
    history = _model().fit(x, y_nan, epochs=5, verbose=0, batch_size=32,
                           callbacks=[keras.callbacks.TerminateOnNaN()])
    assert len(history.history["loss"]) == 1


def test_progbar_format(capsys):
    bar = keras.callbacks.ProgbarLogger(count_mode="steps")
    x, y = _data()
    _model().fit(x, y, epochs=1, batch_size=8, verbose=1, callbacks=[bar])
    out = capsys.readouterr().out
    assert out.count("4/4 [==============================]") == 1


def test_evaluate_and_predict_progress_bars_know_the_steps(capsys):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    model.compile("sgd", "mse")
    x, y = np.ones((100, 3), np.float32), np.ones((100, 2), np.float32)
    model.evaluate(x, y, verbose=1)
    model.predict(x, verbose=1)
    out = capsys.readouterr().out.replace("\r", "\n")
    assert "Unknown" not in out
    assert [line.split()[0] for line in out.splitlines() if "step" in line][-2:] == ["4/4", "4/4"]


class _InterruptAtEpoch(keras.callbacks.Callback):
    def __init__(self, epoch):
        super(_InterruptAtEpoch, self).__init__()
        self.interrupt_at = epoch

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.interrupt_at:
            raise RuntimeError("interrupted")


def _dense_model():
    tf.random.set_seed(3)
    model = keras.Sequential([keras.layers.Dense(3, activation="relu", input_shape=(2,)),
                              keras.layers.Dense(1)])
    model.compile(keras.optimizers.Adam(0.05), loss="mse")
    return model


def test_backup_and_restore_resumes_at_the_interrupted_epoch(tmp_path):
    """Keras 2.15: an interrupted fit leaves its backup; the next fit restores weights and
    optimizer state and runs only the remaining epochs; a finished fit deletes the backup."""
    x, y = _data()
    reference = _dense_model()
    full = reference.fit(x, y, epochs=4, batch_size=8, shuffle=False, verbose=0)
    backup_dir = str(tmp_path / "backup")
    model = _dense_model()
    with pytest.raises(RuntimeError, match="interrupted"):
        model.fit(x, y, epochs=4, batch_size=8, shuffle=False, verbose=0,
                  callbacks=[keras.callbacks.BackupAndRestore(backup_dir),
                             _InterruptAtEpoch(1)])
    assert os.listdir(os.path.join(backup_dir, "chief"))
    model = _dense_model()     # a new process would start from fresh weights
    epochs_run = []
    resumed = model.fit(x, y, epochs=4, batch_size=8, shuffle=False, verbose=0,
                        callbacks=[keras.callbacks.BackupAndRestore(backup_dir),
                                   keras.callbacks.LambdaCallback(
                                       on_epoch_begin=lambda e, logs: epochs_run.append(e))])
    assert epochs_run == [2, 3] and resumed.epoch == [2, 3]
    np.testing.assert_allclose(resumed.history["loss"], full.history["loss"][2:], rtol=1e-5)
    for got, want in zip(model.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert not os.path.exists(os.path.join(backup_dir, "chief"))


def test_backup_and_restore_arguments(tmp_path):
    with pytest.raises(ValueError, match="Empty `backup_dir`"):
        keras.callbacks.BackupAndRestore("")
    with pytest.raises(NotImplementedError, match="integer save_freq"):
        keras.callbacks.BackupAndRestore(str(tmp_path), save_freq=5)
    x, y = _data()
    model = _dense_model()
    model.fit(x, y, epochs=2, verbose=0, callbacks=[keras.callbacks.BackupAndRestore(
        str(tmp_path), delete_checkpoint=False)])
    assert os.listdir(os.path.join(str(tmp_path), "chief"))


def test_hooks_get_logs_positionally():
    """Keras 2 passes logs positionally, so a lambda may name its parameter anything."""
    x, y = _data()
    seen = []
    callback = keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, l: seen.append(("batch", batch, sorted(l))),
        on_epoch_end=lambda epoch, l: seen.append(("epoch", epoch, sorted(l))))
    _model().fit(x, y, epochs=1, batch_size=16, verbose=0, callbacks=[callback])
    assert seen == [("batch", 0, ["loss"]), ("batch", 1, ["loss"]), ("epoch", 0, ["loss"])]


def test_backup_and_restore_is_eager_only_as_in_keras(tmp_path):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="BackupAndRestore only supports eager mode"):
            keras.callbacks.BackupAndRestore(str(tmp_path))


def test_tensorboard_writes_the_model_config_and_graph(tmp_path):
    """write_graph=True (Keras' default): the `keras` model-config summary and a graph in
    `train`, as TF 2's callback writes them."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    model.compile("adam", "mse")
    model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=1, verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(str(tmp_path))])
    events = EventAccumulator(str(tmp_path / "train"))
    events.Reload()
    assert "keras" in events.Tags()["tensors"] and events.Tags()["graph"]
    config = events.Tensors("keras")[0].tensor_proto.string_val[0].decode()
    assert '"class_name": "Sequential"' in config
    assert any(node.op == "MatMul" for node in events.Graph().node)
    model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=1, verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(str(tmp_path / "no"), write_graph=False)])
    quiet = EventAccumulator(str(tmp_path / "no" / "train"))
    quiet.Reload()
    assert "keras" not in quiet.Tags()["tensors"] and not quiet.Tags()["graph"]
