"""Loading a model, a config or a pickled file never runs code named by the file.

Each malicious config/file below names `os.system`, `subprocess.Popen`, `builtins.eval`,
`builtins.__import__` or an attribute chain reaching them; its payload would create a marker
file. Loading must raise (ValueError or a TF error class) and the marker must not exist.
"""
import contextlib
import json
import os
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.keras.saving import saved_model
from tfcompat.keras.utils.generic_utils import func_dump

keras = tf.keras


pytestmark = pytest.mark.usefixtures("fresh_names")


MODES = {"eager": contextlib.nullcontext, "graph": lambda: tf.Graph().as_default()}


def _op_model():
    inputs = keras.Input((3,))
    hidden = keras.layers.Dense(2, kernel_initializer="ones")(inputs)
    return keras.Model(inputs, keras.layers.Dense(1)(tf.nn.relu(hidden) + 1.0))


def _relu_model():
    """Ops after the last layer only (configs the loader read before op layers between layers
    could be saved)."""
    inputs = keras.Input((3,))
    return keras.Model(inputs, tf.nn.relu(keras.layers.Dense(2)(inputs)))


def _config(model):
    return json.loads(model.to_json())


def _layer(config, class_name):
    return [spec for spec in config["config"]["layers"] if spec["class_name"] == class_name][0]


def _load_json(config, **kwargs):
    return keras.models.model_from_json(json.dumps(config), **kwargs)


def _load_saved(config, tmp_path, save_format="tf", build=_op_model, **kwargs):
    """load_model on the model `build` makes, saved (directory or HDF5 file) with its stored
    config replaced by `config`."""
    path = str(tmp_path / ("saved.h5" if save_format == "h5" else "saved"))
    build().save(path, save_format=save_format)
    if save_format == "h5":
        import h5py
        with h5py.File(path, "r+") as f:
            f.attrs["model_config"] = json.dumps(config)
    else:
        metadata_path = os.path.join(path, saved_model.METADATA_FILENAME)
        with open(metadata_path) as f:
            metadata = json.load(f)
        metadata["model_config"] = config
        with open(metadata_path, "w") as f:
            json.dump(metadata, f)
    return keras.models.load_model(path, **kwargs)


LOADERS = {"model_from_json": lambda config, tmp_path, build: _load_json(config),
           "load_model directory": lambda config, tmp_path, build: _load_saved(
               config, tmp_path, build=build),
           "load_model h5": lambda config, tmp_path, build: _load_saved(
               config, tmp_path, "h5", build)}


def _assert_refused(load, marker, match=None):
    with pytest.raises((ValueError, errors.OpError), match=match):
        load()
    assert not marker.exists()


# ---------------------------------------------------------------- TensorFlowOpLayer functions


def _op_payloads(marker):
    """(function path, args) that would create `marker` if the loader followed the path."""
    shell = "touch %s" % marker
    python = "open(%r, 'w').close()" % str(marker)
    return [
        ("tfcompat.cli.os.system", [shell]),
        ("os.system", [shell]),
        ("posix.system", [shell]),
        ("subprocess.Popen", [["touch", str(marker)]]),
        ("tfcompat.cli.subprocess.Popen", [["touch", str(marker)]]),
        ("builtins.eval", [python]),
        ("builtins.exec", [python]),
        ("builtins.__import__", ["os"]),
        ("tfcompat.keras.backend.np.ctypeslib._ctypeslib.os.system", [shell]),
        ("tfcompat.keras.backend.np._core.records.os.system", [shell]),
        ("tfcompat.ops.math_ops.__builtins__.eval", [python]),
        ("__builtins__.exec", [python]),
        ("nn.relu.__globals__.os.system", [shell]),
        ("math.add.__globals__", [python]),
        ("compat.v1.py_func.__globals__.os.system", [shell]),
        ("io.write_file", [str(marker), "pwned"]),
        ("compat.v1.write_file", [str(marker), "pwned"]),
        ("io.gfile.GFile", [str(marker), "w"]),
        ("numpy_function", [python]),
        ("keras.backend.eval", [python]),
        ("compat.v1.nn.relu.__call__", [shell]),
        ("", [shell]),
        (None, [shell]),
        (["os", "system"], [shell]),
        ({"__tuple__": ["os.system"]}, [shell]),
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("loader", LOADERS)
def test_op_layer_function_outside_the_exported_ops_is_refused(tmp_path, loader, mode):
    marker = tmp_path / "pwned"
    for function, args in _op_payloads(marker):
        with MODES[mode]():
            config = _config(_relu_model())
            spec = _layer(config, "TensorFlowOpLayer")
            spec["config"].update(function=function, args={"__tuple__": args},
                                  kwargs={"__dict__": {}}, constants={})
            _assert_refused(lambda: LOADERS[loader](config, tmp_path, _relu_model), marker)


@pytest.mark.parametrize("value", [
    {"__dtype__": "os.system"}, {"__dtype__": ["float32"]}, {"__shape__": "rm"},
    {"__ndarray__": [1], "dtype": "object"}, {"__tensor__": ["x"], "dtype": "string"},
    {"__slot__": "0"}, {"__slot__": -1}, {"__slot__": 10 ** 12}, {"__tuple__": 3},
    {"__slice__": [1]}, {"__dict__": [1]}, {"__import__": "os"}, {"__reduce__": "os.system"}])
def test_op_layer_malformed_arguments_raise_value_error(value):
    config = _config(_op_model())
    _layer(config, "TensorFlowOpLayer")["config"]["args"] = {"__tuple__": [value]}
    with pytest.raises(ValueError):
        _load_json(config)


def test_op_layer_configs_name_public_tf_paths_and_old_configs_still_load():
    model = _op_model()
    config = _config(model)
    functions = [spec["config"]["function"] for spec in config["config"]["layers"]
                 if spec["class_name"] == "TensorFlowOpLayer"]
    assert functions == ["nn.relu", "math.add"]
    x = np.array([[1.0, -2.0, 0.5]], np.float32)
    for old, new in (("tfcompat.ops.nn_ops.relu", "nn.relu"),
                     ("tfcompat.ops.math_ops.add", "math.add")):
        for spec in config["config"]["layers"]:
            if spec["config"].get("function") == new:
                spec["config"]["function"] = old
    rebuilt = _load_json(config)
    rebuilt.set_weights(model.get_weights())
    np.testing.assert_allclose(rebuilt.predict(x), model.predict(x), rtol=1e-6)


def test_op_layer_ops_that_differ_between_api_versions_name_their_compat_path():
    inputs = keras.Input((4,))
    model = keras.Model(inputs, tf.compat.v2.nn.dropout(inputs, rate=0.5))
    spec = _layer(_config(model), "TensorFlowOpLayer")
    assert spec["config"]["function"] == "compat.v2.nn.dropout"
    rebuilt = _load_json(_config(model))
    assert rebuilt.layers[1]._function is tf.compat.v2.nn.dropout._tfcompat_impl


@pytest.mark.parametrize("mode", MODES)
def test_functional_model_with_tf_ops_round_trips_through_json_and_save(tmp_path, mode):
    x = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], np.float32)
    with MODES[mode]():
        model = _op_model()
        expected = model.predict(x)
        assert expected.shape == (2, 1)
        from_json = keras.models.model_from_json(model.to_json())
        from_json.set_weights(model.get_weights())
        np.testing.assert_allclose(from_json.predict(x), expected, rtol=1e-6)
        for path in (str(tmp_path / "model"), str(tmp_path / "model.h5")):
            model.save(path)
            loaded = keras.models.load_model(path)
            np.testing.assert_allclose(loaded.predict(x), expected, rtol=1e-6)
            assert [l.name for l in loaded.layers] == [l.name for l in model.layers]


# ---------------------------------------------------------------- names in layer configs

NAMES = ["os.system", "system", "posix.system", "subprocess.Popen", "Popen", "eval",
         "builtins.eval", "exec", "__import__", "builtins.__import__", "__builtins__",
         "tfcompat.cli.os.system", "tfcompat.keras.backend.np.ctypeslib._ctypeslib.os.system",
         "Dense.__init__.__globals__", "__class__", "__subclasses__", "__reduce__",
         "get_config.__globals__", "tfcompat.keras.layers.Dense.from_config.__globals__"]


def _dense_spec(config):
    return _layer(config, "Dense")["config"]


def _put_class_name(config, name):
    _layer(config, "Dense")["class_name"] = name


def _put_field(key, as_dict):
    def put(config, name):
        _dense_spec(config)[key] = {"class_name": name, "config": {"command": "touch"}} \
            if as_dict else name
    return put


def _put_lambda_function(config, name):
    spec = _layer(config, "Dense")
    module, _, function = name.rpartition(".")
    spec["class_name"] = "Lambda"
    spec["config"] = {"name": spec["config"]["name"], "function": function or name,
                      "function_type": "function", "module": module or "os",
                      "arguments": {"command": "touch"}}


def _put_wrapped_class_name(config, name):
    spec = _layer(config, "Dense")
    spec["class_name"] = "TimeDistributed"
    spec["config"] = {"name": spec["config"]["name"],
                      "layer": {"class_name": name, "config": {"command": "touch"}}}


# where each kind of lookup reads a name in a functional model's config
SETTERS = {"layer class_name": _put_class_name,
           "wrapped layer class_name": _put_wrapped_class_name,
           "activation": _put_field("activation", False),
           "activation dict": _put_field("activation", True),
           "initializer": _put_field("kernel_initializer", True),
           "initializer name": _put_field("kernel_initializer", False),
           "regularizer": _put_field("kernel_regularizer", True),
           "regularizer name": _put_field("kernel_regularizer", False),
           "constraint": _put_field("kernel_constraint", True),
           "constraint name": _put_field("kernel_constraint", False),
           "Lambda function": _put_lambda_function}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("what", SETTERS)
def test_layer_config_names_resolve_only_to_keras_objects(tmp_path, what, mode):
    marker = tmp_path / "pwned"
    for name in NAMES:
        with MODES[mode]():
            config = _config(_op_model())
            SETTERS[what](config, name)
            _assert_refused(lambda: _load_json(config), marker, match="Unknown|Could not")


# where a malicious .h5 file can name a function: (what, put(model config, training config,
# name)); each must be refused without running it
H5_PLACES = {
    "activation": lambda model, training, name: _put_field("activation", False)(model, name),
    "Lambda function": lambda model, training, name: _put_lambda_function(model, name),
    "layer class": lambda model, training, name: _put_class_name(model, name),
    "loss": lambda model, training, name: training.update(loss=name),
    "loss class": lambda model, training, name: training.update(
        loss={"class_name": name, "config": {"command": "touch"}}),
    "metric": lambda model, training, name: training.update(metrics=[[name]]),
    "optimizer": lambda model, training, name: training.update(
        optimizer_config={"class_name": name, "config": {"command": "touch"}}),
}


@pytest.mark.parametrize("place", H5_PLACES)
def test_h5_files_naming_os_subprocess_or_builtins_are_refused(tmp_path, place):
    """A Keras .h5 file whose model or training config names a function in `os`,
    `subprocess` or `builtins` (as an activation, a Lambda function, a layer class, a loss, a
    metric, an optimizer) is refused with ValueError, and nothing runs."""
    import h5py
    marker = tmp_path / "pwned"
    path = str(tmp_path / "model.h5")
    model = _op_model()
    model.compile("sgd", "mse", metrics=["mae"])
    model.save(path)
    with h5py.File(path, "r") as f:
        original = (f.attrs["model_config"], f.attrs["training_config"])
    for name in ("os.system", "system", "subprocess.Popen", "Popen", "builtins.eval", "eval",
                 "builtins.__import__", "builtins.exec"):
        config, training = json.loads(original[0]), json.loads(original[1])
        H5_PLACES[place](config, training, name)
        with h5py.File(path, "r+") as f:
            f.attrs["model_config"] = json.dumps(config).replace(
                '"touch"', json.dumps("touch %s" % marker))
            f.attrs["training_config"] = json.dumps(training).replace(
                '"touch"', json.dumps("touch %s" % marker))
        _assert_refused(lambda: keras.models.load_model(path), marker,
                        match="Unknown|Could not|Malformed")


def test_model_class_name_resolves_only_to_keras_models(tmp_path):
    marker = tmp_path / "pwned"
    for name in NAMES:
        config = _config(_op_model())
        config["class_name"] = name
        _assert_refused(lambda: _load_json(config), marker, match="Unknown model class")


@pytest.mark.parametrize("kind", ["loss", "metrics", "optimizer"])
def test_saved_training_config_names_resolve_only_to_keras_objects(tmp_path, kind):
    marker = tmp_path / "pwned"
    path = str(tmp_path / "saved")
    model = _op_model()
    model.compile("sgd", "mse", metrics=["mae"])
    model.save(path, save_format="tf")
    metadata_path = os.path.join(path, saved_model.METADATA_FILENAME)
    with open(metadata_path) as f:
        original = json.load(f)
    for name in NAMES:
        metadata = json.loads(json.dumps(original))
        training = metadata["training_config"]
        payload = {"class_name": name, "config": {"command": "touch %s" % marker}}
        if kind == "loss":
            training["loss"] = payload
        elif kind == "metrics":
            training["metrics"] = [payload]
        else:
            training["optimizer_config"] = payload
        with open(metadata_path, "w") as f:
            json.dump(metadata, f)
        _assert_refused(lambda: keras.models.load_model(path), marker)


def test_malformed_saved_training_config_raises_value_error(tmp_path):
    path = str(tmp_path / "saved")
    model = _op_model()
    model.compile("sgd", "mse")
    model.save(path, save_format="tf")
    metadata_path = os.path.join(path, saved_model.METADATA_FILENAME)
    with open(metadata_path) as f:
        original = json.load(f)
    for training in ({}, {"optimizer_config": 3}, {"optimizer_config": {"class_name": "SGD",
                                                                        "config": {"x": 1}}},
                     {"optimizer_config": {"class_name": "SGD", "config": {}}, "loss": 7}):
        metadata = dict(original, training_config=training)
        with open(metadata_path, "w") as f:
            json.dump(metadata, f)
        with pytest.raises(ValueError):
            keras.models.load_model(path)


@pytest.mark.parametrize("deserialize", [
    keras.activations.deserialize, keras.activations.get, keras.losses.deserialize,
    keras.losses.get, keras.metrics.deserialize, keras.metrics.get,
    tf.compat.v1.keras.initializers.deserialize, tf.compat.v2.keras.initializers.deserialize,
    keras.regularizers.deserialize, keras.regularizers.get, keras.constraints.deserialize,
    keras.constraints.get, keras.optimizers.get, keras.layers.deserialize,
    keras.utils.deserialize_keras_object, keras.optimizers.schedules.deserialize])
def test_deserialize_functions_resolve_only_registered_names(tmp_path, deserialize):
    marker = tmp_path / "pwned"
    for name in NAMES:
        for identifier in (name, {"class_name": name, "config": {}}):
            _assert_refused(lambda: deserialize(identifier), marker)


def test_custom_objects_give_exactly_the_callers_objects(tmp_path):
    def swish_like(x):
        return x * tf.sigmoid(x)
    config = _config(_op_model())
    _dense_spec(config)["activation"] = "swish_like"
    with pytest.raises(ValueError, match="Unknown activation"):
        _load_json(config)
    model = _load_json(config, custom_objects={"swish_like": swish_like})
    assert model.layers[1].activation is swish_like
    with keras.utils.custom_object_scope({"swish_like": swish_like}):
        assert _load_json(config).layers[1].activation is swish_like


def test_unimplemented_features_in_a_config_stay_not_implemented_errors():
    from tfcompat._api import UnimplementedSymbolError

    class Unfinished(keras.layers.Layer):
        @classmethod
        def from_config(cls, config):
            raise UnimplementedSymbolError("tfcompat does not implement tf.some_feature yet")
    config = _config(_op_model())
    _layer(config, "Dense")["class_name"] = "Unfinished"
    with pytest.raises(NotImplementedError, match="some_feature"):
        _load_json(config, custom_objects={"Unfinished": Unfinished})


# ---------------------------------------------------------------- Lambda layers


def _lambda_model(function):
    inputs = keras.Input((2,))
    return keras.Model(inputs, keras.layers.Lambda(function)(inputs))


def test_lambda_bytecode_needs_safe_mode_off(tmp_path):
    marker = tmp_path / "pwned"
    model = _lambda_model(lambda x: x * 2.0)
    config = _config(model)
    spec = _layer(config, "Lambda")["config"]
    assert spec["function_type"] == "lambda"
    marker_path = str(marker)
    spec["function"] = func_dump(lambda x: (open(marker_path, "w").close(), x)[1])
    for load in (lambda: _load_json(config), lambda: _load_saved(config, tmp_path),
                 lambda: keras.models.model_from_config(config),
                 lambda: keras.layers.deserialize(_layer(config, "Lambda"))):
        _assert_refused(load, marker, match="safe_mode=False")


def test_lambda_bytecode_loads_with_safe_mode_off(tmp_path):
    x = np.array([[1.0, -3.0]], np.float32)
    model = _lambda_model(lambda t: t * 2.0 + 1.0)
    with pytest.raises(ValueError, match="safe_mode=False"):
        keras.models.model_from_json(model.to_json())
    rebuilt = keras.models.model_from_json(model.to_json(), safe_mode=False)
    np.testing.assert_allclose(rebuilt.predict(x), [[3.0, -5.0]])
    path = str(tmp_path / "lambda_model")
    model.save(path, save_format="tf")
    with pytest.raises(ValueError, match="safe_mode=False"):
        keras.models.load_model(path)
    np.testing.assert_allclose(keras.models.load_model(path, safe_mode=False).predict(x),
                               [[3.0, -5.0]])


def test_lambda_named_functions_come_from_custom_objects_or_exported_ops():
    def double(t):
        return t * 2.0
    x = np.array([[1.0, -3.0]], np.float32)
    config = _config(_lambda_model(double))
    assert _layer(config, "Lambda")["config"]["function"] == "double"
    with pytest.raises(ValueError, match="Unknown function in Lambda layer"):
        _load_json(config)
    model = _load_json(config, custom_objects={"double": double})
    np.testing.assert_allclose(model.predict(x), [[2.0, -6.0]])
    relu = _load_json(_config(_lambda_model(tf.nn.relu)))
    np.testing.assert_allclose(relu.predict(x), [[1.0, 0.0]])


# ---------------------------------------------------------------- VocabularyProcessor pickles


class _Payload(object):
    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


def _pickle_payloads(marker):
    import subprocess
    import builtins
    shell = "touch %s" % marker
    return [_Payload(os.system, shell), _Payload(subprocess.Popen, ["touch", str(marker)]),
            _Payload(builtins.eval, "open(%r, 'w').close()" % str(marker)),
            _Payload(builtins.__import__, "os"),
            _Payload(tf.contrib.learn.preprocessing.VocabularyProcessor.restore, str(marker))]


def test_vocabulary_processor_restore_refuses_other_globals(tmp_path):
    marker = tmp_path / "pwned"
    path = str(tmp_path / "vocab")
    processor = tf.contrib.learn.preprocessing.VocabularyProcessor(3)
    processor.fit(["a b"])
    for payload in _pickle_payloads(marker):
        for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
            processor.payload = payload
            with open(path, "wb") as f:
                f.write(pickle.dumps(processor, protocol=protocol))
            _assert_refused(lambda: tf.contrib.learn.preprocessing.VocabularyProcessor.restore(
                path), marker, match="Refusing to load")
    with open(path, "wb") as f:
        f.write(pickle.dumps({"not": "a processor"}))
    with pytest.raises(ValueError, match="not a VocabularyProcessor"):
        tf.contrib.learn.preprocessing.VocabularyProcessor.restore(path)


def test_vocabulary_processor_restores_pickles_naming_tf_modules(tmp_path):
    processor = tf.contrib.learn.preprocessing.VocabularyProcessor(4, min_frequency=0)
    processor.fit(["I like pears", "pears pears"])
    data = pickle.dumps(processor, protocol=0)
    ours = b"tfcompat.contrib.learn.preprocessing"
    tf_text = b"tensorflow.contrib.learn.python.learn.preprocessing."
    data = data.replace(ours + b"\nVocabularyProcessor", tf_text + b"text\nVocabularyProcessor")
    data = data.replace(ours + b"\nCategoricalVocabulary",
                        tf_text + b"categorical_vocabulary\nCategoricalVocabulary")
    data = data.replace(ours + b"\ntokenizer", tf_text + b"text\ntokenizer")
    assert ours not in data
    path = tmp_path / "tf_vocab"
    path.write_bytes(data)
    restored = tf.contrib.learn.preprocessing.VocabularyProcessor.restore(str(path))
    assert list(restored.transform(["pears like kiwis"]))[0].tolist() == [3, 2, 0, 0]


# ---------------------------------------------------------------- fuzzing the config loader

_KEYS = ["class_name", "config", "name", "layers", "input_layers", "output_layers",
         "inbound_nodes", "function", "function_type", "module", "args", "kwargs",
         "constants", "op_type", "units", "activation", "kernel_initializer", "dtype",
         "batch_input_shape", "__slot__", "__tuple__", "__dict__", "__dtype__", "__tensor__",
         "__ndarray__", "__shape__", "__slice__", "output_shape", "arguments", "rate",
         "target_shape", "axis", "use_bias", "trainable"]
_NAMES = ["Dense", "InputLayer", "TensorFlowOpLayer", "Lambda", "Model", "Functional",
          "Sequential", "Reshape", "Activation", "Dropout", "Concatenate", "Add",
          "nn.relu", "math.add", "os.system", "subprocess.Popen", "builtins.eval",
          "__import__", "tfcompat.cli.os.system", "lambda", "function", "relu", "float32",
          "input_1", "dense", "tf_op_layer_Relu", "__builtins__", "glorot_uniform", "TOUCH"]


def _json_values():
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-2, 8),
                        st.floats(-4, 4, allow_nan=False), st.sampled_from(_NAMES),
                        st.text(max_size=6))
    return st.recursive(scalars, lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(_KEYS) | st.text(max_size=4), children, max_size=5)),
        max_leaves=25)


_DELETE = object()


def _mutations():
    """Edits of a real model config: (walk, key, value). The walk starts at a layer spec (or
    the model's config) and descends into nested dicts/lists by index; there `key` (a config
    key, an existing entry by position, or a random name) is set to `value` or deleted."""
    key = st.sampled_from(_KEYS) | st.integers(0, 20) | st.text(max_size=4)
    value = _json_values() | st.just(_DELETE)
    walk = st.lists(st.integers(0, 40), min_size=1, max_size=6)
    return st.lists(st.tuples(walk, key, value), min_size=1, max_size=4)


def _apply(config, mutations):
    model = config["config"]
    for walk, key, value in mutations:
        layers = model.get("layers")
        nodes = [n for n in (layers if isinstance(layers, list) else []) + [model]
                 if isinstance(n, (dict, list)) and n]
        node = nodes[walk[0] % len(nodes)]
        for step in walk[1:]:
            children = [c for c in (node.values() if isinstance(node, dict) else node)
                        if isinstance(c, (dict, list)) and c]
            if not children:
                break
            node = children[step % len(children)]
        if isinstance(node, list):
            key = key % len(node) if isinstance(key, int) else 0
        elif isinstance(key, int):
            key = list(node)[key % len(node)] if node else "name"
        if value is _DELETE:
            node.pop(key) if isinstance(node, list) else node.pop(key, None)
        else:
            node[key] = value
    return config


def _sequential_model():
    return keras.Sequential([keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                             keras.layers.Dropout(0.5), keras.layers.Reshape((2, 2)),
                             keras.layers.Activation("tanh")])


_BASES = {}


def _base_config(build):
    """A fresh copy of the config of the model `build` makes (built once)."""
    if build not in _BASES:
        with tf.Graph().as_default():
            _BASES[build] = json.dumps(_config(build()))
    return json.loads(_BASES[build])


@settings(max_examples=200, deadline=2000, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(build=st.sampled_from([_op_model, _sequential_model]), mutations=_mutations(),
       top=_json_values(), mode=st.sampled_from(list(MODES)))
def test_fuzzed_configs_raise_only_value_errors_and_never_run_code(tmp_path, build, mutations,
                                                                   top, mode):
    marker = tmp_path / "pwned"
    for config in (_apply(_base_config(build), mutations), {"class_name": "Functional",
                                                            "config": top}):
        text = json.dumps(config).replace("TOUCH", "touch %s" % marker)
        with MODES[mode]():
            try:
                keras.models.model_from_json(text)
            except (ValueError, errors.OpError):
                pass
        assert not marker.exists()


_H5_BASES = {}


def _h5_base(tmp_path_factory):
    """Bytes of a real .h5 model file (saved once)."""
    if "bytes" not in _H5_BASES:
        path = str(tmp_path_factory.mktemp("h5") / "model.h5")
        with tf.Graph().as_default():
            _op_model().save(path)
        with open(path, "rb") as f:
            _H5_BASES["bytes"] = f.read()
    return _H5_BASES["bytes"]


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(flips=st.lists(st.tuples(st.integers(0, 1 << 20), st.binary(min_size=1, max_size=8)),
                      max_size=6),
       truncate=st.none() | st.integers(0, 1 << 20), mutations=_mutations(),
       weights_edit=st.sampled_from(["keep", "drop_group", "wrong_shape", "rename"]))
def test_fuzzed_h5_files_raise_only_tf_errors_and_never_run_code(tmp_path, tmp_path_factory,
                                                                 flips, truncate, mutations,
                                                                 weights_edit):
    """A .h5 model file damaged at the byte level, or a valid HDF5 file whose config and
    weights were edited, raises ValueError or a TF error class (DataLossError where h5py
    cannot read the container) and never runs the payload."""
    import h5py
    marker = tmp_path / "pwned"
    data = bytearray(_h5_base(tmp_path_factory))
    for offset, chunk in flips:
        offset %= len(data)
        data[offset:offset + len(chunk)] = chunk
    if truncate is not None:
        data = data[:truncate % (len(data) + 1)]
    damaged = tmp_path / "damaged.h5"
    damaged.write_bytes(bytes(data))
    edited = tmp_path / "edited.h5"
    edited.write_bytes(_h5_base(tmp_path_factory))
    with h5py.File(str(edited), "r+") as f:
        config = _apply(json.loads(f.attrs["model_config"]), mutations)
        f.attrs["model_config"] = json.dumps(config).replace("TOUCH", "touch %s" % marker)
        weights = f["model_weights"]
        layer = sorted(weights)[-1]
        if weights_edit == "drop_group":
            del weights[layer]
        elif weights_edit == "rename":
            weights.move(layer, layer + "_x")
        elif weights_edit == "wrong_shape":
            for name in list(weights[layer].attrs.get("weight_names", [])):
                name = name.decode() if isinstance(name, bytes) else name
                del weights[layer][name]
                weights[layer][name] = np.zeros((7, 7), np.float32)
    for path in (damaged, edited):
        try:
            keras.models.load_model(str(path))
        except (ValueError, errors.OpError):
            pass
        except NotImplementedError as error:    # bytes that make it a Keras v3 zip file
            assert "Keras v3 file" in str(error)
        assert not marker.exists()
