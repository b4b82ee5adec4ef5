"""Whole-model saving (Model.save / tf.keras.models.load_model), save_weights checkpoints,
configs and custom objects, clone_model, ModelCheckpoint(save_weights_only=False)."""
import json
import os

import numpy as np
import pytest

import tfcompat as tf

keras = tf.keras


pytestmark = pytest.mark.usefixtures("fresh_names")


def _data(n=32):
    rng = np.random.RandomState(0)
    x = rng.rand(n, 4).astype(np.float32)
    return x, x.sum(1, keepdims=True) - 1.0


def _sequential():
    return keras.Sequential([keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                             keras.layers.Dense(1)])


def _functional():
    inputs = keras.Input((4,), name="features")
    hidden = keras.layers.Dense(8, activation="tanh")(inputs)
    return keras.Model(inputs, keras.layers.Dense(1, name="head")(hidden), name="regressor")


@pytest.mark.parametrize("build", [_sequential, _functional])
def test_save_and_load_model_directory_restores_weights_compile_and_optimizer(tmp_path, build):
    x, y = _data()
    model = build()
    model.compile(keras.optimizers.Adam(0.01), "mse", metrics=["mae"])
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    path = str(tmp_path / "model")
    model.save(path, save_format="tf")
    assert sorted(os.listdir(path)) == ["assets", "keras_model.json", "saved_model.pb",
                                        "tfcompat", "variables"]
    with open(os.path.join(path, "keras_model.json")) as f:
        metadata = json.load(f)
    assert metadata["training_config"]["loss"] == "mse"
    assert metadata["training_config"]["optimizer_config"]["class_name"] == "Adam"

    loaded = keras.models.load_model(path)
    assert type(loaded) is type(model) and loaded.name == model.name
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)
    assert loaded.optimizer.iterations.numpy() == model.optimizer.iterations.numpy() == 8
    # the Adam slots come back too: one more epoch gives the same weights
    model.fit(x, y, epochs=1, batch_size=8, shuffle=False, verbose=0)
    loaded.fit(x, y, epochs=1, batch_size=8, shuffle=False, verbose=0)
    for a, b in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    assert loaded.metrics_names == ["loss", "mae"]


def test_load_without_compile_and_without_optimizer(tmp_path):
    x, y = _data()
    model = _sequential()
    model.compile("sgd", "mse")
    model.fit(x, y, verbose=0)
    model.save(str(tmp_path / "full"), save_format="tf")
    model.save(str(tmp_path / "bare"), include_optimizer=False, save_format="tf")
    uncompiled = keras.models.load_model(str(tmp_path / "full"), compile=False)
    assert uncompiled.optimizer is None
    np.testing.assert_allclose(uncompiled.predict(x), model.predict(x), rtol=1e-6)
    keys = [k for k, _ in tf.train.list_variables(str(tmp_path / "bare/variables/variables"))]
    assert not any(k.startswith("optimizer") for k in keys)
    assert "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert keras.models.load_model(str(tmp_path / "bare")).optimizer is None


class Scale(keras.layers.Layer):
    def __init__(self, factor, **kwargs):
        super(Scale, self).__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight("w", shape=(int(input_shape[-1]),), initializer="ones")

    def call(self, inputs):
        return inputs * self.w * self.factor

    def get_config(self):
        config = super(Scale, self).get_config()
        config["factor"] = self.factor
        return config


def _custom_loss(y_true, y_pred):
    return tf.reduce_mean(tf.abs(y_true - y_pred))


def test_custom_layers_and_losses_through_custom_objects_or_scope(tmp_path):
    x, y = _data()
    inputs = keras.Input((4,))
    model = keras.Model(inputs, keras.layers.Dense(1)(Scale(3.0)(inputs)))
    model.compile("sgd", loss=_custom_loss)
    model.fit(x, y, verbose=0)
    path = str(tmp_path / "custom")
    model.save(path, save_format="tf")
    with pytest.raises(ValueError, match="Unknown layer: Scale"):
        keras.models.load_model(path)
    loaded = keras.models.load_model(path, custom_objects={"Scale": Scale,
                                                           "_custom_loss": _custom_loss})
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)
    assert loaded.layers[1].factor == 3.0
    assert loaded.evaluate(x, y, verbose=0) == pytest.approx(model.evaluate(x, y, verbose=0))
    with keras.utils.custom_object_scope({"Scale": Scale, "_custom_loss": _custom_loss}):
        scoped = keras.models.load_model(path)
    np.testing.assert_allclose(scoped.predict(x), model.predict(x), rtol=1e-6)
    assert "Scale" not in keras.utils.get_custom_objects()


def test_subclassed_models_need_get_config(tmp_path):
    class Net(keras.Model):
        def __init__(self):
            super(Net, self).__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, inputs):
            return self.dense(inputs)
    model = Net()
    model(np.ones((1, 4), np.float32))
    with pytest.raises(NotImplementedError, match="save_weights"):
        model.save(str(tmp_path / "net"))


def test_hdf5_needs_h5py_or_round_trips(tmp_path):
    x, _ = _data()
    model = _functional()
    model.compile("adam", "mse")
    path = str(tmp_path / "model.h5")
    try:
        import h5py  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="h5py"):
            model.save(path)
        with pytest.raises(ImportError, match="h5py"):
            keras.models.save_model(model, str(tmp_path / "other"), save_format="h5")
        return
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)


def test_save_weights_writes_tf_keys_and_checkpoint_state(tmp_path):
    x, y = _data()
    model = _sequential()
    model.compile("adam", "mse")
    model.fit(x, y, verbose=0)
    prefix = str(tmp_path / "weights" / "ckpt")
    model.save_weights(prefix)
    assert tf.train.latest_checkpoint(str(tmp_path / "weights")) == prefix
    keys = dict(tf.train.list_variables(prefix))
    assert keys["layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE"] == [8, 1]
    assert "layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/" \
           "VARIABLE_VALUE" in keys
    assert not any(k.startswith(("_compiled", "_step_functions")) for k in keys)
    fresh = _sequential()
    status = fresh.load_weights(prefix)
    status.assert_existing_objects_matched()
    np.testing.assert_allclose(fresh.predict(x), model.predict(x), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="by_name"):
        fresh.load_weights(prefix, by_name=True)
    with pytest.raises(ValueError, match="looks like an HDF5 file"):
        model.save_weights(str(tmp_path / "w.h5"), save_format="tf")
    # a model directory's variables load into the same architecture
    model.save(str(tmp_path / "dir"))
    again = _sequential()
    again.load_weights(str(tmp_path / "dir"))
    np.testing.assert_allclose(again.predict(x), model.predict(x), rtol=1e-6)


@pytest.mark.parametrize("path, save_format, flavor, has_h5py, expected", [
    ("m.h5", None, "v2", True, "h5"),
    ("m.keras", None, "v2", True, "h5"),
    ("m", "hdf5", "v2", True, "h5"),
    ("m", None, "v2", True, "tf"),
    ("m", None, "v1", True, "h5"),    # TF 1.x defaults to HDF5
    ("m", None, "v1", False, "tf"),   # ... tfcompat writes the directory without h5py
])
def test_save_format_rules(monkeypatch, path, save_format, flavor, has_h5py, expected):
    from tfcompat import _api
    from tfcompat.keras.saving import hdf5_format, save

    def h5py():
        if not has_h5py:
            raise ImportError("no h5py")
    monkeypatch.setattr(_api, "flavor", lambda: flavor)
    monkeypatch.setattr(hdf5_format, "h5py", h5py)
    assert save._save_format(path, save_format) == expected


def test_save_format_errors(tmp_path):
    model = _sequential()
    with pytest.raises(ValueError, match="Unknown format"):
        model.save(str(tmp_path / "m"), save_format="pickle")
    with pytest.raises(ValueError, match="ambiguous"):
        model.save(str(tmp_path / "m.h5"), save_format="tf")


def test_tf_savedmodel_directories_and_missing_paths_raise(tmp_path):
    (tmp_path / "saved_model.pb").write_bytes(b"")
    with pytest.raises(NotImplementedError, match="load_weights"):
        keras.models.load_model(str(tmp_path))
    with pytest.raises(IOError, match="No file or directory"):
        keras.models.load_model(str(tmp_path / "nothing"))


def test_model_checkpoint_saves_whole_models(tmp_path):
    x, y = _data()
    model = _sequential()
    model.compile("sgd", "mse")
    checkpoint = keras.callbacks.ModelCheckpoint(str(tmp_path / "epoch{epoch}"))
    model.fit(x, y, epochs=2, verbose=0, callbacks=[checkpoint])
    assert sorted(os.listdir(tmp_path)) == ["epoch1", "epoch2"]
    restored = keras.models.load_model(str(tmp_path / "epoch2"))
    np.testing.assert_allclose(restored.predict(x), model.predict(x), rtol=1e-6)


def test_model_from_json_and_clone_model():
    model = _functional()
    x, _ = _data(3)
    rebuilt = keras.models.model_from_json(model.to_json())
    assert [l.name for l in rebuilt.layers] == [l.name for l in model.layers]
    clone = keras.models.clone_model(model)
    assert clone.name == model.name and len(clone.weights) == 4
    assert all(a is not b for a, b in zip(clone.weights, model.weights))
    clone.set_weights(model.get_weights())
    np.testing.assert_allclose(clone.predict(x), model.predict(x), rtol=1e-6)
    seq = keras.models.clone_model(_sequential())
    assert isinstance(seq, keras.Sequential) and seq.output_shape == (None, 1)
    with pytest.raises(ValueError, match="subclass"):
        keras.models.clone_model(keras.Model())
    with pytest.raises(RuntimeError, match="to_json"):
        keras.models.model_from_yaml("")


def test_custom_object_registration_and_serialization():
    @keras.utils.register_keras_serializable(package="Test")
    class Twice(keras.layers.Layer):
        def call(self, inputs):
            return inputs * 2
    assert keras.utils.get_registered_name(Twice) == "Test>Twice"
    config = keras.utils.serialize_keras_object(Twice(name="twice"))
    assert config["class_name"] == "Test>Twice"
    layer = keras.utils.deserialize_keras_object(config)
    assert isinstance(layer, Twice) and layer.name == "twice"
    assert keras.utils.deserialize_keras_object("relu", module_objects={"relu": abs}) is abs
    with pytest.raises(ValueError, match="Unknown object: Nope"):
        keras.utils.deserialize_keras_object({"class_name": "Nope", "config": {}})
    del keras.utils.get_custom_objects()["Test>Twice"], keras.utils.get_custom_objects()["Twice"]


def test_save_and_load_in_a_tf1_graph(tmp_path):
    x, y = _data()
    with tf.Graph().as_default():
        model = _sequential()
        model.compile("sgd", "mse")
        model.fit(x, y, verbose=0)
        expected = model.predict(x)
        model.save(str(tmp_path / "graph_model"))
        model.save_weights(str(tmp_path / "graph_weights"))
    with tf.Graph().as_default():
        loaded = keras.models.load_model(str(tmp_path / "graph_model"))
        np.testing.assert_allclose(loaded.predict(x), expected, rtol=1e-6)
        fresh = _sequential()
        fresh.load_weights(str(tmp_path / "graph_weights"))
        np.testing.assert_allclose(fresh.predict(x), expected, rtol=1e-6)
