"""Keras 2 HDF5 files, both ways: files written by real tf.keras 2 (tests/fixtures/keras_h5,
made by make_fixtures.py there with TF 2.21 + tf-keras) load and compute what real TF
computed; files we write have Keras 2's layout and round-trip in eager and TF1 graph mode.
"""
import json
import logging
import os

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.keras.saving import hdf5_format

h5py = pytest.importorskip("h5py")
keras = tf.keras
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "keras_h5")

pytestmark = pytest.mark.usefixtures("fresh_names")


def _fixture(name):
    with open(os.path.join(FIXTURES, name + ".json")) as f:
        return json.load(f)


def _arrays(values, dtypes):
    arrays = [np.asarray(v, dtype=d) for v, d in zip(values, dtypes)]
    return arrays if len(arrays) > 1 else arrays[0]


def _inputs(info):
    return _arrays(info["inputs"], info["input_dtypes"])


def _next_batch(info):
    return _arrays(info["next_batch"]["x"], info["input_dtypes"]), \
        np.asarray(info["next_batch"]["y"])


def _names(attribute):
    return [n.decode() if isinstance(n, bytes) else str(n) for n in attribute]


def _summary(model):
    lines = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


# fixture -> the optimizer it was compiled with (learning rate 0.01)
REAL_MODELS = {"cnn": "Adam", "two_inputs": "Adam", "layer_zoo": "RMSprop"}


@pytest.mark.parametrize("name", list(REAL_MODELS) + ["cnn_no_optimizer"])
def test_real_keras_files_predict_what_real_tf_computed(name):
    info = _fixture(name.replace("_no_optimizer", ""))
    model = keras.models.load_model(os.path.join(FIXTURES, name + ".h5"))
    np.testing.assert_allclose(model.predict(_inputs(info), verbose=0), info["predictions"],
                               rtol=1e-5, atol=1e-5)
    assert _summary(model) == info["summary"]
    if name == "cnn_no_optimizer":
        assert model.optimizer is None


class Unused(keras.Model):
    """The subclassed model of make_fixtures.py's summaries()."""

    def __init__(self):
        super(Unused, self).__init__()
        self.a = keras.layers.Dense(4, activation="relu")
        self.b = keras.layers.Dense(2)
        self.unused = keras.layers.Dense(3)

    def call(self, x):
        return self.b(self.a(x))


def test_summary_of_a_shared_layer_and_of_a_subclassed_model_as_real_keras():
    expected = _fixture("summaries")
    left, right = keras.Input((3,), name="left"), keras.Input((3,), name="right")
    dense = keras.layers.Dense(2, name="shared")
    shared = keras.Model([left, right], keras.layers.Add()([dense(left), dense(right)]))
    assert _summary(shared) == expected["shared_layer"]
    keras.backend.clear_session()
    unused = Unused()
    unused(np.ones((1, 5), np.float32))
    assert _summary(unused) == expected["subclassed"]


@pytest.mark.parametrize("name", REAL_MODELS)
def test_real_keras_files_restore_the_optimizer_and_training_continues(name):
    """TF 2.11+'s optimizer state (`iteration:0`, `Adam/m/...`; RMSprop's velocity,
    momentum and average gradient) lands in our optimizer's slots: one more step gives real
    TF's loss and predictions; fit continues from `iterations`."""
    info = _fixture(name)
    model = keras.models.load_model(os.path.join(FIXTURES, name + ".h5"))
    assert type(model.optimizer).__name__ == REAL_MODELS[name]
    assert model.optimizer.learning_rate.numpy() == pytest.approx(0.01)
    assert model.optimizer.iterations.numpy() == info["iterations"]
    x, y = _next_batch(info)
    loss = model.train_on_batch(x, y)
    loss = loss[0] if isinstance(loss, list) else loss
    assert loss == pytest.approx(info["next_loss"], rel=1e-5)
    assert model.optimizer.iterations.numpy() == info["iterations"] + 1
    np.testing.assert_allclose(model.predict(_inputs(info), verbose=0),
                               info["predictions_after_step"], rtol=1e-5, atol=1e-5)
    history = model.fit(x, y, epochs=2, verbose=0)
    assert history.history["loss"][1] != history.history["loss"][0]
    assert model.optimizer.iterations.numpy() == info["iterations"] + 3


def test_real_keras_file_with_compile_false():
    info = _fixture("cnn")
    model = keras.models.load_model(os.path.join(FIXTURES, "cnn.h5"), compile=False)
    assert model.optimizer is None
    np.testing.assert_allclose(model.predict(_inputs(info), verbose=0), info["predictions"],
                               rtol=1e-5, atol=1e-5)


class Subclassed(keras.Model):
    """The subclassed model of make_fixtures.py."""

    def __init__(self):
        super(Subclassed, self).__init__()
        self.hidden = keras.layers.Dense(5, activation="relu")
        self.out = keras.layers.Dense(2)

    def call(self, inputs):
        return self.out(self.hidden(inputs))


def test_real_keras_subclassed_save_weights_file_loads():
    info = _fixture("subclassed_weights")
    x = _inputs(info)
    model = Subclassed()
    with pytest.raises(ValueError, match="has not created its variables"):
        model.load_weights(os.path.join(FIXTURES, "subclassed_weights.h5"))
    model(x)
    model.load_weights(os.path.join(FIXTURES, "subclassed_weights.h5"))
    np.testing.assert_allclose(model.predict(x, verbose=0), info["predictions"],
                               rtol=1e-5, atol=1e-5)


def _cnn_with_other_head(units):
    """The fixture CNN's layer names, with a `dense` head of `units` outputs and an extra
    layer of a name the file lacks."""
    inputs = keras.Input((8, 8, 1))
    x = keras.layers.Conv2D(4, 3, activation="relu", name="conv2d")(inputs)
    x = keras.layers.BatchNormalization(name="batch_normalization")(x)
    x = keras.layers.Flatten()(keras.layers.MaxPooling2D()(x))
    x = keras.layers.Dense(7, name="extra")(x)
    return keras.Model(inputs, keras.layers.Dense(units, name="dense")(x))


def test_load_weights_by_name_and_skip_mismatch(caplog):
    path = os.path.join(FIXTURES, "cnn.h5")
    with h5py.File(path, "r") as f:
        saved_kernel = np.asarray(f["model_weights/conv2d/conv2d/kernel:0"])
        saved_mean = np.asarray(f["model_weights/batch_normalization/batch_normalization/"
                                  "moving_mean:0"])
    model = _cnn_with_other_head(5)
    with pytest.raises(ValueError, match="Layer count mismatch"):
        model.load_weights(path)
    with pytest.raises(ValueError, match=r"Shape mismatch in layer #4 \(named dense\) for "
                                         r"weight dense/kernel:0. Weight expects shape "
                                         r"\(7, 5\). Received saved weight with shape "
                                         r"\(36, 3\)"):
        model.load_weights(path, by_name=True)
    with pytest.raises(ValueError, match="skip_mismatch can only be set to True when by_name"):
        model.load_weights(path, skip_mismatch=True)
    head = model.get_layer("dense").get_weights()
    extra = model.get_layer("extra").get_weights()
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        model.load_weights(path, by_name=True, skip_mismatch=True)
    assert "Skipping loading weights for layer #4 (named dense) due to mismatch in shape" \
        in caplog.text
    np.testing.assert_array_equal(model.get_layer("conv2d").get_weights()[0], saved_kernel)
    np.testing.assert_array_equal(model.get_layer("batch_normalization").moving_mean.numpy(),
                                  saved_mean)
    for before, after in zip(head + extra, model.get_layer("dense").get_weights() +
                             model.get_layer("extra").get_weights()):
        np.testing.assert_array_equal(before, after)
    # by name, a layer loads whatever the other layers are
    other = keras.Sequential([keras.layers.Dense(3, input_shape=(36,), name="dense")])
    other.load_weights(path, by_name=True)
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(other.get_weights()[0],
                                      np.asarray(f["model_weights/dense/dense/kernel:0"]))


def _data():
    rng = np.random.RandomState(0)
    return rng.rand(12, 8, 8, 1).astype(np.float32), rng.randint(0, 3, 12).astype(np.int32)


def _cnn():
    return keras.Sequential([
        keras.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
        keras.layers.BatchNormalization(),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(3, activation="softmax")])


def _check_round_trip(tmp_path):
    x, y = _data()
    model = _cnn()
    model.compile(keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    path = str(tmp_path / "model.h5")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6, atol=1e-7)
    assert keras.backend.get_value(loaded.optimizer.iterations) == 3
    for a, b in zip(loaded.optimizer.get_weights(), model.optimizer.get_weights()):
        np.testing.assert_array_equal(a, b)
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    loaded.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    assert keras.backend.get_value(loaded.optimizer.iterations) == 6
    for a, b in zip(loaded.get_weights(), model.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    return path


def test_our_files_round_trip_in_eager_mode(tmp_path):
    _check_round_trip(tmp_path)


def test_our_files_round_trip_in_a_tf1_graph(tmp_path):
    with tf.Graph().as_default():
        _check_round_trip(tmp_path)


def test_our_files_have_keras_2s_layout(tmp_path):
    """What real tf.keras 2 reads: attributes, per-layer groups (trainable weights first),
    top-level weights, and the optimizer's weights in Keras 2's order with its names (real
    Keras restores them by position into a legacy Adam, as the config says)."""
    path = _check_round_trip(tmp_path)
    with h5py.File(path, "r") as f:
        assert f.attrs["backend"] in (b"tensorflow", "tensorflow")
        assert "keras_version" in f.attrs
        config = json.loads(f.attrs["model_config"])
        assert config["class_name"] == "Sequential"
        training = json.loads(f.attrs["training_config"])
        assert training["optimizer_config"]["class_name"] == "Adam"
        assert "is_legacy_optimizer" not in training["optimizer_config"]["config"]
        weights = f["model_weights"]
        layer_names = _names(weights.attrs["layer_names"])
        assert layer_names == ["conv2d", "batch_normalization", "max_pooling2d", "flatten",
                               "dense"]
        assert _names(weights["batch_normalization"].attrs["weight_names"]) == [
            "batch_normalization/gamma:0", "batch_normalization/beta:0",
            "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
        assert weights["conv2d/conv2d/kernel:0"].shape == (3, 3, 1, 4)
        assert len(weights["top_level_model_weights"].attrs["weight_names"]) == 0
        names = _names(f["optimizer_weights"].attrs["weight_names"])
        variables = ["conv2d/kernel", "conv2d/bias", "batch_normalization/gamma",
                     "batch_normalization/beta", "dense/kernel", "dense/bias"]
        assert names == ["Adam/iter:0"] + ["Adam/%s/m:0" % v for v in variables] + \
            ["Adam/%s/v:0" % v for v in variables]
        assert f["optimizer_weights/Adam/iter:0"][()] == 3


def test_optimizer_state_written_in_another_order_loads_by_name(tmp_path):
    """Optimizer weights are matched by their names where the file's names are ours (files
    tfcompat wrote before listed m, v per variable), by position otherwise."""
    x, y = _data()
    model = _cnn()
    model.compile(keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy")
    model.fit(x, y, batch_size=4, verbose=0)
    path = str(tmp_path / "model.h5")
    model.save(path)
    with h5py.File(path, "r+") as f:
        group = f["optimizer_weights"]
        names = _names(group.attrs["weight_names"])
        half = (len(names) - 1) // 2
        group.attrs["weight_names"] = [n.encode() for n in [names[0]] + [
            n for pair in zip(names[1:1 + half], names[1 + half:]) for n in pair]]
    keras.backend.clear_session()   # the variables' names as a new process gives them
    loaded = keras.models.load_model(path)
    for a, b in zip(loaded.optimizer.get_weights(), model.optimizer.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_long_name_lists_are_split_as_keras_splits_them(tmp_path):
    inputs = keras.Input((2,))
    x = inputs
    for i in range(40):
        x = keras.layers.Dense(2, name="dense_with_a_very_long_name_" + "x" * 1700 + str(i))(x)
    model = keras.Model(inputs, x)
    path = str(tmp_path / "long.h5")
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        assert "layer_names" not in f.attrs and "layer_names0" in f.attrs
    fresh = keras.models.clone_model(model)
    fresh.load_weights(path)
    for a, b in zip(fresh.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_custom_objects_with_h5(tmp_path):
    class Scale(keras.layers.Layer):
        def call(self, inputs):
            return inputs * 3.0

    def my_loss(y_true, y_pred):
        return tf.reduce_mean(tf.abs(y_true - y_pred))
    inputs = keras.Input((2,))
    model = keras.Model(inputs, keras.layers.Dense(1)(Scale()(inputs)))
    model.compile("sgd", my_loss)
    path = str(tmp_path / "custom.h5")
    model.save(path)
    with pytest.raises(ValueError, match="Unknown layer: Scale"):
        keras.models.load_model(path)
    loaded = keras.models.load_model(path, custom_objects={"Scale": Scale,
                                                           "my_loss": my_loss})
    x = np.ones((1, 2), np.float32)
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)
    assert loaded.loss is my_loss


def test_saving_is_atomic(tmp_path, monkeypatch):
    """A save that fails midway leaves the previous file, and no temporary file."""
    x, _ = _data()
    model = _cnn()
    path = str(tmp_path / "model.h5")
    model.save(path)
    expected = model.predict(x)
    model.layers[-1].set_weights([w + 1.0 for w in model.layers[-1].get_weights()])

    def crash(group, weights):
        raise KeyboardInterrupt("killed while writing")
    monkeypatch.setattr(hdf5_format, "_write_weights", crash)
    with pytest.raises(KeyboardInterrupt):
        model.save(path)
    with pytest.raises(KeyboardInterrupt):
        model.save_weights(path)
    assert os.listdir(str(tmp_path)) == ["model.h5"]
    monkeypatch.undo()
    np.testing.assert_allclose(keras.models.load_model(path).predict(x), expected, rtol=1e-6)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "zeroed_middle"])
def test_damaged_files_raise_data_loss_error_naming_the_file(tmp_path, damage):
    source = os.path.join(FIXTURES, "cnn.h5")
    with open(source, "rb") as f:
        data = f.read()
    if damage == "truncated":
        data = data[:len(data) // 2]
    elif damage == "garbage":
        data = np.random.RandomState(0).bytes(4096)
    elif damage == "empty":
        data = b""
    else:
        data = data[:2048] + bytes(len(data) - 4096) + data[-2048:]
    path = str(tmp_path / "damaged.h5")
    with open(path, "wb") as f:
        f.write(data)
    with pytest.raises(errors.DataLossError, match="damaged.h5"):
        keras.models.load_model(path)
    with pytest.raises(errors.DataLossError, match="damaged.h5"):
        _cnn().load_weights(path)


def test_files_missing_parts_raise_data_loss_error(tmp_path):
    path = str(tmp_path / "model.h5")
    _cnn().save(path)
    with h5py.File(path, "r+") as f:
        del f["model_weights/dense"]
    with pytest.raises(errors.DataLossError, match="model.h5.*weights of layer 'dense'"):
        keras.models.load_model(path)
    with h5py.File(path, "r+") as f:
        f.attrs["model_config"] = b"{not json"
    with pytest.raises(errors.DataLossError, match="model_config"):
        keras.models.load_model(path)
    with pytest.raises(errors.NotFoundError, match="nothing.h5"):
        _cnn().load_weights(str(tmp_path / "nothing.h5"))


def test_keras_v3_zip_and_keras_1_files_are_not_implemented(tmp_path):
    import zipfile
    path = str(tmp_path / "model.keras")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("config.json", "{}")
    with pytest.raises(NotImplementedError, match="Keras v3 file"):
        keras.models.load_model(path)
    path = str(tmp_path / "old.h5")
    model = _cnn()
    model.save(path)
    with h5py.File(path, "r+") as f:
        f["model_weights"].attrs["keras_version"] = b"1.2.2"
    with pytest.raises(NotImplementedError, match="Keras 1.2.2"):
        keras.models.load_model(path)
