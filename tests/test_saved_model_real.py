"""tf.saved_model.load of TF 2 SavedModels written by real TensorFlow 2.21
(tests/fixtures/tf2_saved_model/, made by make_fixtures.py there), and the functional raw
ops their functions need (While, StatelessIf, TensorList*)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from tensorboard.compat.proto import struct_pb2

import tfcompat as tf
from tfcompat import cli
from tfcompat.framework import errors
from tfcompat.saved_model import function_deserialization, load_impl, saved_model_proto

load = tf.compat.v2.saved_model.load

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "tf2_saved_model")
RNN = os.path.join(HERE, "rnn")


@pytest.fixture(scope="module")
def expected():
    with np.load(os.path.join(HERE, "rnn_outputs.npz")) as arrays:
        return dict(arrays)


def _close(result, expected, prefix):
    assert sorted(result) == ["last", "sequence"]
    for key in ("sequence", "last"):
        np.testing.assert_allclose(result[key].numpy(), expected[prefix + "_" + key],
                                   rtol=1e-5, atol=1e-6)


def test_a_tensorflow_saved_model_is_told_from_ours_and_tf1_by_its_contents():
    proto = saved_model_proto.read(RNN)
    assert not load_impl.is_tf2_saved_model(RNN) and load_impl.written_by_tensorflow(proto)


def test_loaded_module_has_the_saved_variables_and_functions(expected):
    loaded = load(RNN)
    assert [v.name for v in (loaded.w, loaded.u, loaded.b, loaded.calls)] == \
        ["w:0", "u:0", "b:0", "calls:0"]
    assert loaded.w.shape == (3, 4) and loaded.w.trainable
    assert loaded.calls.dtype == tf.int64 and not loaded.calls.trainable
    assert int(loaded.calls.numpy()) == 0
    # scale(v) = w^T v * 3 reads the restored w
    np.testing.assert_allclose(loaded.scale(tf.constant(expected["x_pos"][0, 0])).numpy(),
                               expected["scaled"], rtol=1e-5)
    assert sorted(loaded.signatures) == ["scale", "serving_default"]
    scaled = loaded.signatures["scale"](v=tf.constant(expected["x_pos"][0, 0]))
    assert sorted(scaled) == ["output_0"]
    np.testing.assert_allclose(scaled["output_0"].numpy(), expected["scaled"], rtol=1e-5)


def test_loaded_call_runs_the_while_loop_tensor_list_and_if_as_real_tf(expected):
    """x_pos takes the `if` branch, x_neg the `else`; the counter each call adds to is the
    loaded variable (1 then 2, as in real TF)."""
    loaded = load(RNN)
    _close(loaded(tf.constant(expected["x_pos"])), expected, "x_pos")
    assert int(loaded.calls.numpy()) == expected["x_pos_calls"] == 1
    _close(loaded(expected["x_neg"]), expected, "x_neg")
    assert int(loaded.calls.numpy()) == expected["x_neg_calls"] == 2


def test_serving_signature_takes_keywords_and_returns_a_dict(expected):
    loaded = load(RNN)
    signature = loaded.signatures["serving_default"]
    _close(signature(x=tf.constant(expected["x_neg"])), expected, "x_neg")
    with pytest.raises(TypeError):
        signature(tf.constant(expected["x_neg"]))


def test_loaded_function_called_inside_a_tf_function(expected):
    loaded = load(RNN)

    @tf.function(input_signature=[tf.TensorSpec([None, None, 3], tf.float32)])
    def doubled(x):
        return loaded(x)["last"] * 2.0

    np.testing.assert_allclose(doubled(tf.constant(expected["x_pos"])).numpy(),
                               2.0 * expected["x_pos_last"], rtol=1e-5, atol=1e-6)
    assert int(loaded.calls.numpy()) == 1


def test_arguments_not_matching_the_saved_signature_raise(expected):
    loaded = load(RNN)
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded(tf.constant(expected["x_pos"][..., :2]))
    with pytest.raises(ValueError):
        loaded(tf.constant(expected["x_pos"], tf.float64))


def test_assigned_variables_are_live(expected):
    loaded = load(RNN)
    loaded.w.assign(np.zeros([3, 4], np.float32))
    np.testing.assert_allclose(loaded.scale(tf.constant([1.0, 2.0, 3.0])).numpy(), 0.0)


def test_gradients_flow_to_the_loaded_variables_through_the_loop(expected):
    """Fine-tuning: a tape over the loaded functions differentiates the loaded variables,
    through the While loop too (checked against finite differences)."""
    loaded = load(RNN)
    v = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(loaded.scale(v))
    np.testing.assert_allclose(tape.gradient(total, loaded.w).numpy(),
                               3.0 * np.outer([1.0, 2.0, 3.0], np.ones(4)))
    x = tf.constant(expected["x_pos"])
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(loaded(x)["sequence"])
    gradient = tape.gradient(total, loaded.u).numpy()
    step = np.zeros([4, 4], np.float32)
    step[1, 2] = 1e-2

    def summed(delta):
        loaded.u.assign_add(delta)
        value = float(tf.reduce_sum(loaded(x)["sequence"]).numpy())
        loaded.u.assign_sub(delta)
        return value
    numeric = (summed(step) - summed(-step)) / 2e-2
    np.testing.assert_allclose(gradient[1, 2], numeric, rtol=1e-2)


def test_an_op_type_tensorflow_does_not_have_is_refused_before_anything_runs(tmp_path):
    """Op types resolve only through tf.raw_ops: a function naming another is refused."""
    copy = str(tmp_path / "rnn")
    shutil.copytree(RNN, copy)
    proto = saved_model_proto.read(copy)
    for function in proto.meta_graphs[0].graph_def.library.function:
        for node in function.node_def:
            if node.op == "Tanh":
                node.op = "os.system"
    saved_model_proto.write(saved_model_proto.path_of(copy), proto)
    loaded = load(copy)
    with pytest.raises(errors.NotFoundError, match="os.system"):
        loaded(tf.constant(np.ones([1, 2, 3], np.float32)))
    assert int(loaded.calls.numpy()) == 0


def test_export_of_a_signature_runs_in_a_torch_only_process(tmp_path, expected):
    out = str(tmp_path / "scale.pt2")
    assert cli.main(["export", RNN, out, "--signature", "scale"]) == 0
    arrays = str(tmp_path / "arrays.npz")
    np.savez(arrays, v=expected["x_pos"][0, 0], expected=expected["scaled"])
    script = (
        "import sys, numpy as np, torch\n"
        "data = np.load(sys.argv[2])\n"
        "module = torch.export.load(sys.argv[1]).module()\n"
        "out = module(v=torch.from_numpy(data['v']))\n"
        "assert list(out) == ['output_0']\n"
        "np.testing.assert_allclose(out['output_0'].numpy(), data['expected'], rtol=1e-5)\n"
        "assert 'tfcompat' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", script, out, arrays], check=True, timeout=300)


_RUN_EXPORTED = (
    "import sys, numpy as np, torch\n"
    "data = np.load(sys.argv[2])\n"
    "program = torch.export.load(sys.argv[1])\n"
    "print(sorted({node.target.name() for module in program.graph_module.modules()\n"
    "              if isinstance(module, torch.fx.GraphModule) for node in module.graph.nodes\n"
    "              if isinstance(node.target, torch._ops.HigherOrderOperator)}))\n"
    "module = program.module()\n"
    "for name in sys.argv[3].split(','):\n"
    "    out = module(**{sys.argv[4]: torch.from_numpy(data[name])})\n"
    "    for key, value in sorted(out.items()):\n"
    "        np.testing.assert_allclose(value.numpy(), data[name + '_' + key], rtol=1e-5,\n"
    "                                   atol=1e-6)\n"
    "assert 'tfcompat' not in sys.modules\n")


def _run_exported(path, arrays, names, input_name):
    """Run the .pt2 at `path` in a process importing only torch on the `names` arrays of
    `arrays` (keyword `input_name`), each output compared with `<name>_<output>`; returns
    the higher-order operators its graphs call."""
    result = subprocess.run([sys.executable, "-c", _RUN_EXPORTED, path, arrays,
                             ",".join(names), input_name], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip()


def test_export_of_the_loop_and_branch_signature_runs_in_a_torch_only_process(tmp_path,
                                                                              expected):
    """The RNN's While (a TensorList filled at each step) and If become torch's while_loop
    and cond: inputs with another batch size and step count than export's example ones,
    taking either branch, give real TF's outputs; a longer sequence gives tfcompat's."""
    out = str(tmp_path / "rnn.pt2")
    assert cli.main(["export", RNN, out]) == 0
    longer = np.random.RandomState(3).normal(size=(4, 9, 3)).astype(np.float32)
    arrays = str(tmp_path / "arrays.npz")
    served = load(RNN).signatures["serving_default"](x=tf.constant(longer))
    np.savez(arrays, longer=longer, **{"longer_" + key: value.numpy()
                                       for key, value in served.items()},
             **{key: value for key, value in expected.items() if key.startswith("x_")})
    operators = _run_exported(out, arrays, ["x_pos", "x_neg", "longer"], "x")
    assert operators == "['cond', 'while_loop']"


def test_export_of_a_keras_lstm_saved_model_runs_in_a_torch_only_process(tmp_path):
    out = str(tmp_path / "lstm.pt2")
    assert cli.main(["export", os.path.join(HERE, "keras_lstm"), out]) == 0
    arrays = str(tmp_path / "arrays.npz")
    with np.load(os.path.join(HERE, "keras_lstm_outputs.npz")) as data:
        np.savez(arrays, x=data["x"], x_lstm=data["predictions"], head=data["x"][:2],
                 head_lstm=data["predictions"][:2])
    assert _run_exported(out, arrays, ["x", "head"], "steps") == "['while_loop']"


# ---------------------------------------------------------------- a Keras 2 SavedModel

KERAS = os.path.join(HERE, "keras_mobilenet")


@pytest.fixture(scope="module")
def keras_expected():
    with np.load(os.path.join(HERE, "keras_mobilenet_outputs.npz")) as arrays:
        return dict(arrays)


def test_keras_saved_model_loads_with_tf_saved_model_load(keras_expected):
    """Keras' traced call (training False by default, True selects the training trace) and
    serving_default keyed by the input and output layer names, as real TF loads them."""
    loaded = load(KERAS)
    x = tf.constant(keras_expected["x"])
    served = loaded.signatures["serving_default"](image=x)
    assert sorted(served) == ["predictions"]
    np.testing.assert_allclose(served["predictions"].numpy(), keras_expected["predictions"],
                               rtol=1e-5, atol=1e-6)
    for call in (loaded(x), loaded(x, training=False), loaded(x, False, None)):
        np.testing.assert_allclose(call.numpy(), keras_expected["predictions"], rtol=1e-5,
                                   atol=1e-6)
    assert loaded(x, training=True).shape == (2, 5)


def test_keras_load_model_rebuilds_the_model_from_keras_metadata(keras_expected):
    model = tf.keras.models.load_model(KERAS)
    assert isinstance(model, tf.keras.Model) and model.name == "small_mobilenet"
    assert [layer.name for layer in model.layers][:3] == ["image", "Conv1", "bn_Conv1"]
    assert model.count_params() == sum(int(np.prod(w.shape)) for w in model.weights)
    np.testing.assert_allclose(model.predict(keras_expected["x"], verbose=0),
                               keras_expected["predictions"], rtol=1e-5, atol=1e-6)


def test_keras_load_model_of_a_compiled_model_keeps_training_as_real_tf():
    """The training config compiles the model and the checkpoint restores Adam's state:
    the next train_on_batch gives real TF's loss."""
    with np.load(os.path.join(HERE, "keras_compiled_outputs.npz")) as arrays:
        data = dict(arrays)
    model = tf.keras.models.load_model(os.path.join(HERE, "keras_compiled"))
    assert int(model.optimizer.iterations.numpy()) == 2
    np.testing.assert_allclose(model.train_on_batch(data["x"], data["y"]), data["loss"],
                               rtol=1e-5)


def test_keras_lstm_saved_model_runs_its_tensor_list_loop_as_real_tf():
    """Keras' LSTM functions unstack the inputs into a TensorList of unknown batch size
    (TensorListFromTensor, TensorListGetItem in a StatelessWhile)."""
    directory = os.path.join(HERE, "keras_lstm")
    with np.load(os.path.join(HERE, "keras_lstm_outputs.npz")) as arrays:
        data = dict(arrays)
    loaded = load(directory)
    np.testing.assert_allclose(loaded(tf.constant(data["x"])).numpy(), data["predictions"],
                               rtol=1e-5, atol=1e-6)
    served = loaded.signatures["serving_default"](steps=tf.constant(data["x"][:1]))
    np.testing.assert_allclose(served["lstm"].numpy(), data["predictions"][:1], rtol=1e-5,
                               atol=1e-6)
    model = tf.keras.models.load_model(directory)
    np.testing.assert_allclose(model.predict(data["x"], verbose=0), data["predictions"],
                               rtol=1e-5, atol=1e-6)


def test_structured_values_decode_as_tf_nested_structure_coder():
    value = struct_pb2.StructuredValue()
    items = value.tuple_value.values
    items.add().tensor_dtype_value = tf.int64.as_datatype_enum
    items.add().tensor_shape_value.dim.add(size=-1)
    items.add().none_value.SetInParent()
    fields = items.add().dict_value.fields
    fields["b"].bool_value = True
    fields["s"].string_value = "x"
    spec = items.add().tensor_spec_value
    spec.name, spec.dtype = "t", tf.float32.as_datatype_enum
    spec.shape.dim.add(size=2)
    decoded = function_deserialization.decode_structure(value)
    assert decoded[:4] == (tf.int64, tf.TensorShape([None]), None, {"b": True, "s": "x"})
    assert (decoded[4].name, decoded[4].dtype, decoded[4].shape.as_list()) == \
        ("t", tf.float32, [2])
    value = struct_pb2.StructuredValue()
    value.type_spec_value.type_spec_class_name = "RaggedTensorSpec"
    with pytest.raises(NotImplementedError, match="type_spec_value"):
        function_deserialization.decode_structure(value)


def test_tensor_shape_takes_its_proto_as_tf_does():
    """What the loader reads TensorSpecs' shapes with; as_proto goes back."""
    for dims in ([None, 3], [], None):
        assert tf.TensorShape(tf.TensorShape(dims).as_proto()).as_proto() == \
            tf.TensorShape(dims).as_proto()
    assert tf.TensorShape(tf.TensorShape([None, 3]).as_proto()).as_list() == [None, 3]
    assert tf.TensorShape(tf.TensorShape(None).as_proto()).rank is None
    with pytest.raises(TypeError):
        tf.TensorShape(object())


# ---------------------------------------------------------------- the functional raw ops


def test_raw_while_and_if_take_callables_of_the_flat_inputs():
    result = tf.raw_ops.While(input=[tf.constant(0), tf.constant(1.0)],
                              cond=lambda i, x: i < 5, body=lambda i, x: [i + 1, x * 2.0])
    assert [int(result[0]), float(result[1])] == [5, 32.0]
    for pred, value in ((True, 6.0), (False, -3.0)):
        out = tf.raw_ops.StatelessIf(cond=tf.constant(pred), input=[tf.constant(3.0)],
                                     Tout=[tf.float32], then_branch=lambda x: x * 2.0,
                                     else_branch=lambda x: -x)
        assert [float(v) for v in out] == [value]


def test_raw_tensor_list_ops_follow_tensorflow():
    handle = tf.raw_ops.TensorListReserve(element_shape=-1, num_elements=3,
                                          element_dtype=tf.float32)
    handle = tf.raw_ops.TensorListSetItem(input_handle=handle, index=1,
                                          item=tf.constant([1.0, 2.0]))
    np.testing.assert_array_equal(
        tf.raw_ops.TensorListStack(input_handle=handle, element_shape=[-1],
                                   element_dtype=tf.float32).numpy(),
        [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]])
    assert int(tf.raw_ops.TensorListLength(input_handle=handle)) == 3
    listed = tf.raw_ops.TensorListFromTensor(tensor=tf.constant([[1, 2], [3, 4]]),
                                             element_shape=[2])
    np.testing.assert_array_equal(tf.raw_ops.TensorListGetItem(
        input_handle=listed, index=1, element_shape=[2], element_dtype=tf.int32).numpy(),
        [3, 4])
    np.testing.assert_array_equal(tf.raw_ops.TensorListElementShape(
        input_handle=listed, shape_type=tf.int32).numpy(), [2])
