"""TF1 SavedModels: simple_save, SavedModelBuilder, loader.load, the signature and TensorInfo
helpers (protos compared with the fields real TF 2.21 writes for the same calls), errors,
atomic saving."""
import os

import numpy as np
import pytest
from tensorboard.compat.proto import types_pb2

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.saved_model import builder_impl, saved_model_proto
from tfcompat.train import checkpoint_format

v1 = tf.compat.v1
X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0


def _model():
    x = v1.placeholder(tf.float32, [None, 3], name="x")
    w = v1.get_variable("w", [3, 2], initializer=v1.random_normal_initializer(seed=3))
    b = v1.Variable([0.25, -0.5], name="b")
    y = tf.nn.softmax(tf.matmul(x, w) + b, name="y")
    step = v1.train.get_or_create_global_step()
    return x, y, step


def _save_simple(export_dir):
    with tf.Graph().as_default():
        x, y, step = _model()
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(v1.assign_add(step, 7))
            expected = sess.run(y, {x: X})
            v1.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": y})
    return expected


def test_simple_save_then_load_in_a_new_graph_runs_the_signature(tmp_path):
    export_dir = str(tmp_path / "export")
    expected = _save_simple(export_dir)
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "tfcompat", "variables"]
    assert v1.saved_model.contains_saved_model(tmp_path / "export")
    with tf.Graph().as_default():
        with v1.Session() as sess:
            meta = v1.saved_model.loader.load(sess, [v1.saved_model.tag_constants.SERVING],
                                              export_dir)
            assert list(meta.meta_info_def.tags) == ["serve"]
            signature = meta.signature_def["serving_default"]
            assert signature.method_name == "tensorflow/serving/predict"
            assert (signature.inputs["x"].name, signature.outputs["y"].name) == ("x:0", "y:0")
            got = sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: X})
            np.testing.assert_allclose(got, expected, atol=1e-6)
            assert sess.run(v1.train.get_global_step()) == 7


def test_v1_load_alias_and_import_scope(tmp_path):
    export_dir = str(tmp_path / "export")
    expected = _save_simple(export_dir)
    with tf.Graph().as_default() as graph:
        with v1.Session() as sess:
            meta = v1.saved_model.load(sess, ["serve"], export_dir, import_scope="m")
            info = meta.signature_def["serving_default"].outputs["y"]
            y = v1.saved_model.utils.get_tensor_from_tensor_info(info, import_scope="m")
            assert y is graph.get_tensor_by_name("m/y:0")
            np.testing.assert_allclose(sess.run(y, {"m/x:0": X}), expected, atol=1e-6)


def test_builder_with_several_meta_graphs_and_main_op(tmp_path):
    export_dir = str(tmp_path / "multi")
    with tf.Graph().as_default():
        x, y, _ = _model()
        counter = v1.Variable(0, name="counter", collections=[v1.GraphKeys.LOCAL_VARIABLES])
        bump = counter.assign_add(5, read_value=False)
        builder = v1.saved_model.Builder(export_dir)
        assert os.path.isdir(export_dir)        # TF makes the directory at once
        with pytest.raises(AssertionError, match="has not been saved yet"):
            builder.add_meta_graph(["eval"])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            expected = sess.run(y, {x: X})
            signature = v1.saved_model.predict_signature_def({"in": x}, {"out": y})
            builder.add_meta_graph_and_variables(
                sess, ["train"], signature_def_map={"predict": signature},
                main_op=tf.group(v1.local_variables_initializer(), name="init_locals"))
            with pytest.raises(AssertionError, match="already been saved"):
                builder.add_meta_graph_and_variables(sess, ["train"])
        with pytest.raises(ValueError, match="already contains one or more main ops"):
            builder.add_meta_graph(["eval"], legacy_init_op=bump)    # one per graph, as TF
        builder.add_meta_graph(["serve", "gpu"])
        path = builder.save()
    assert path == os.path.join(export_dir, "saved_model.pb")
    proto = saved_model_proto.read(export_dir)
    assert [list(m.meta_info_def.tags) for m in proto.meta_graphs] == [["train"],
                                                                       ["serve", "gpu"]]
    with tf.Graph().as_default():
        with v1.Session() as sess:
            meta = v1.saved_model.loader.load(sess, ["gpu", "serve"], export_dir)
            assert not meta.signature_def
            assert sess.run("counter:0") == 0       # the main op ran after restoring
            sess.run("AssignAddVariableOp")
            assert sess.run("counter:0") == 5
            np.testing.assert_allclose(sess.run("y:0", {"x:0": X}), expected, atol=1e-6)
    with tf.Graph().as_default():
        with v1.Session() as sess:
            meta = v1.saved_model.loader.load(sess, ["train"], export_dir)
            signature = meta.signature_def["predict"]
            np.testing.assert_allclose(
                sess.run(signature.outputs["out"].name, {signature.inputs["in"].name: X}),
                expected, atol=1e-6)
            with pytest.raises(RuntimeError) as raised:
                v1.saved_model.loader.load(sess, ["eval"], export_dir)
    message = str(raised.value)     # a set of two tags prints in either order
    assert message.startswith("MetaGraphDef associated with tags 'eval' could not be found in "
                              "SavedModel, with available tags '[{'train'}, {")
    assert message.endswith("}]'. To inspect available tag-sets in the SavedModel, please use "
                            "the SavedModel CLI: `saved_model_cli`.")


def test_builder_refuses_a_non_empty_directory(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(AssertionError) as raised:
        v1.saved_model.builder.SavedModelBuilder(str(tmp_path))
    assert str(raised.value) == (
        "Export directory %s already exists, and isn't empty. Please choose a different "
        "export directory, or delete all the contents of the specified directory." % tmp_path)


def test_reserved_signature_key_is_refused(tmp_path):
    with tf.Graph().as_default():
        x, y, _ = _model()
        builder = v1.saved_model.Builder(str(tmp_path / "e"))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            with pytest.raises(KeyError, match="reserved"):
                builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={
                    "__saved_model_init_op": v1.saved_model.predict_signature_def(
                        {"x": x}, {"y": y})})


def test_truncated_or_missing_saved_model_pb(tmp_path):
    export_dir = str(tmp_path / "export")
    _save_simple(export_dir)
    path = os.path.join(export_dir, "saved_model.pb")
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[:len(data) // 2])
    with tf.Graph().as_default():
        with v1.Session() as sess:
            with pytest.raises(errors.DataLossError, match="saved_model.pb"):
                v1.saved_model.loader.load(sess, ["serve"], export_dir)
            with pytest.raises(errors.NotFoundError):
                v1.saved_model.loader.load(sess, ["serve"], str(tmp_path / "nothing"))
    assert not v1.saved_model.loader.maybe_saved_model_directory(str(tmp_path / "nothing"))


def test_a_failure_while_saving_leaves_no_saved_model(tmp_path, monkeypatch):
    export_dir = str(tmp_path / "export")
    with tf.Graph().as_default():
        x, y, _ = _model()
        builder = v1.saved_model.Builder(export_dir)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            builder.add_meta_graph_and_variables(sess, ["serve"])

    def crash(path, proto):
        raise OSError("disk full (injected)")
    monkeypatch.setattr(builder_impl.saved_model_proto, "write", crash)
    with pytest.raises(OSError, match="injected"):
        builder.save()
    assert os.listdir(export_dir) == []         # the variables written first are gone too
    assert sorted(os.listdir(str(tmp_path))) == ["export"]   # no temporary directory left
    assert not v1.saved_model.maybe_saved_model_directory(export_dir)
    monkeypatch.undo()
    builder.save()
    assert checkpoint_format.exists(os.path.join(export_dir, "variables", "variables"))


# ---------------------------------------------------------------- signature helpers


def _shape(info):
    return None if info.tensor_shape.unknown_rank else [d.size for d in info.tensor_shape.dim]


def test_signature_defs_have_the_fields_tf_writes():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        y = tf.identity(x, name="y")
        examples = v1.placeholder(tf.string, [None], name="ex")
        scores = v1.placeholder(tf.float32, [None, 2], name="sc")
        classes = v1.placeholder(tf.string, [None, 2], name="cl")
        predictions = v1.placeholder(tf.float32, [None, 1], name="p")
        unknown = v1.placeholder(tf.int64, None, name="u")
        predict = v1.saved_model.predict_signature_def({"x": x}, {"y": y})
        classify = v1.saved_model.classification_signature_def(examples, classes, scores)
        regress = v1.saved_model.regression_signature_def(examples, predictions)
        info = v1.saved_model.build_tensor_info(unknown)
    assert predict.method_name == "tensorflow/serving/predict"
    assert (predict.inputs["x"].name, predict.inputs["x"].dtype, _shape(predict.inputs["x"])) \
        == ("x:0", types_pb2.DT_FLOAT, [-1, 3])
    assert (predict.outputs["y"].name, _shape(predict.outputs["y"])) == ("y:0", [-1, 3])
    assert classify.method_name == "tensorflow/serving/classify"
    assert (classify.inputs["inputs"].name, classify.inputs["inputs"].dtype,
            _shape(classify.inputs["inputs"])) == ("ex:0", types_pb2.DT_STRING, [-1])
    assert {k: (v.name, _shape(v)) for k, v in classify.outputs.items()} == {
        "scores": ("sc:0", [-1, 2]), "classes": ("cl:0", [-1, 2])}
    assert regress.method_name == "tensorflow/serving/regress"
    assert (regress.outputs["outputs"].name, _shape(regress.outputs["outputs"])) == \
        ("p:0", [-1, 1])
    assert (info.name, info.dtype, _shape(info)) == ("u:0", types_pb2.DT_INT64, None)
    assert all(v1.saved_model.is_valid_signature(s) for s in (predict, classify, regress))
    broken = v1.saved_model.build_signature_def(predict.inputs, {}, "tensorflow/serving/predict")
    assert not v1.saved_model.is_valid_signature(broken)
    assert not v1.saved_model.is_valid_signature(None)


def test_signature_helpers_raise_as_tf():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        examples = v1.placeholder(tf.string, [None], name="ex")
        scores = v1.placeholder(tf.float32, [None, 2], name="sc")
        classes = v1.placeholder(tf.string, [None, 2], name="cl")
        cases = [
            (v1.saved_model.classification_signature_def, (None, classes, scores),
             "Classification `examples` cannot be None."),
            (v1.saved_model.classification_signature_def, (x, classes, scores),
             "Classification input tensors must be of type string. Found tensors of type 1"),
            (v1.saved_model.classification_signature_def, (examples, None, None),
             "Classification `classes` and `scores` cannot both be None."),
            (v1.saved_model.classification_signature_def, (examples, scores, scores),
             "Classification classes must be of type string Tensor. Found tensors of type "
             "1.`"),
            (v1.saved_model.classification_signature_def, (examples, classes, classes),
             "Classification scores must be a float Tensor."),
            (v1.saved_model.regression_signature_def, (None, scores),
             "Regression `examples` cannot be None."),
            (v1.saved_model.regression_signature_def, (x, scores),
             "Regression input tensors must be of type string. Found tensors with type 1."),
            (v1.saved_model.regression_signature_def, (examples, None),
             "Regression `predictions` cannot be None."),
            (v1.saved_model.regression_signature_def, (examples, classes),
             "Regression output tensors must be of type float. Found tensors with type 7."),
            (v1.saved_model.predict_signature_def, ({}, {"y": x}),
             "Prediction `inputs` cannot be None or empty."),
            (v1.saved_model.predict_signature_def, ({"x": x}, None),
             "Prediction `outputs` cannot be None or empty."),
        ]
        for function, args, message in cases:
            with pytest.raises(ValueError) as raised:
                function(*args)
            assert str(raised.value) == message


def test_main_op_initializes_global_and_local_variables():
    with tf.Graph().as_default():
        g = v1.Variable(3.0, name="g")
        local = v1.Variable(4.0, name="l", collections=[v1.GraphKeys.LOCAL_VARIABLES])
        init = v1.saved_model.main_op.main_op()
        with v1.Session() as sess:
            sess.run(init)
            assert sess.run([g, local]) == [3.0, 4.0]


# ---------------------------------------------------------------- Estimator export

FEATURES = np.random.RandomState(0).rand(8, 3).astype(np.float32)


def _model_fn(features, labels, mode):
    x = features["x"] if isinstance(features, dict) else features
    w = v1.get_variable("w", [3, 2], initializer=v1.random_normal_initializer(seed=2))
    logits = tf.matmul(x, w)
    probs = tf.nn.softmax(logits)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"probs": probs})
    loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    model_dir = str(tmp_path_factory.mktemp("estimator"))
    estimator = tf.estimator.Estimator(_model_fn, model_dir=model_dir)
    labels = (FEATURES[:, 0] > 0.5).astype(np.int32)
    estimator.train(v1.estimator.inputs.numpy_input_fn(
        {"x": FEATURES}, labels, batch_size=4, num_epochs=2, shuffle=False))
    expected = np.array([p["probs"] for p in estimator.predict(
        v1.estimator.inputs.numpy_input_fn({"x": FEATURES}, shuffle=False))])
    return estimator, expected


def test_estimator_export_saved_model_loads_and_serves(trained, tmp_path):
    estimator, expected = trained
    with tf.Graph().as_default():
        receiver_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
            {"x": v1.placeholder(tf.float32, [None, 3], name="features")})
    path = estimator.export_saved_model(str(tmp_path), receiver_fn)
    assert isinstance(path, bytes) and os.path.dirname(path) == os.fsencode(tmp_path)
    assert os.path.basename(path).isdigit()
    assert sorted(os.listdir(path)) == [b"saved_model.pb", b"tfcompat", b"variables"]
    with tf.Graph().as_default():
        with v1.Session() as sess:
            meta = v1.saved_model.loader.load(sess, ["serve"], path)
            signature = meta.signature_def["serving_default"]
            assert signature.method_name == "tensorflow/serving/predict"
            assert signature.inputs["x"].name == "features:0"
            got = sess.run(signature.outputs["probs"].name, {signature.inputs["x"].name: FEATURES})
            np.testing.assert_allclose(got, expected, atol=1e-6)
            assert sess.run(v1.train.get_global_step()) == 4


def test_estimator_export_outputs_and_tensor_receiver(trained, tmp_path):
    estimator, expected = trained

    def model_fn(features, labels, mode):
        spec = _model_fn(features, labels, mode)
        probs = spec.predictions["probs"]
        return spec._replace(export_outputs={
            "serving_default": tf.estimator.export.PredictOutput(probs),
            "regress": tf.estimator.export.RegressionOutput(probs[:, :1])})

    custom = tf.estimator.Estimator(model_fn, model_dir=estimator.model_dir)

    def receiver_fn():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        return tf.estimator.export.TensorServingInputReceiver(x, x)
    path = custom.export_savedmodel(str(tmp_path), receiver_fn)
    with tf.Graph().as_default():
        with v1.Session() as sess:
            meta = v1.saved_model.loader.load(sess, ["serve"], path)
            # Regress needs one string input: TF leaves that signature out
            assert list(meta.signature_def) == ["serving_default"]
            signature = meta.signature_def["serving_default"]
            assert list(signature.outputs) == ["output"]
            got = sess.run(signature.outputs["output"].name,
                           {signature.inputs["input"].name: FEATURES})
            np.testing.assert_allclose(got, expected, atol=1e-6)


def test_estimator_export_errors(trained, tmp_path):
    estimator, _ = trained
    with pytest.raises(ValueError, match="An input_receiver_fn must be defined."):
        estimator.export_saved_model(str(tmp_path), None)
    untrained = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path / "empty"))
    with pytest.raises(ValueError, match="Couldn't find trained model at"):
        untrained.export_saved_model(str(tmp_path), lambda: None)


def test_export_outputs_check_their_tensors_as_tf():
    with tf.Graph().as_default():
        floats = v1.placeholder(tf.float32, [None, 2])
        strings = v1.placeholder(tf.string, [None, 2])
        with pytest.raises(ValueError, match="Classification scores must be a float32 Tensor"):
            tf.estimator.export.ClassificationOutput(scores=strings)
        with pytest.raises(ValueError, match="Classification classes must be a string Tensor"):
            tf.estimator.export.ClassificationOutput(classes=floats)
        with pytest.raises(ValueError, match="Cannot create a ClassificationOutput with empty"):
            tf.estimator.export.ClassificationOutput()
        with pytest.raises(ValueError, match="Regression output value must be a float32"):
            tf.estimator.export.RegressionOutput(strings)
        with pytest.raises(ValueError, match="Prediction output value must be a Tensor; got 3"):
            tf.estimator.export.PredictOutput({"a": 3})
        assert list(tf.estimator.export.PredictOutput(floats).outputs) == ["output"]
        serialized = v1.placeholder(tf.string, [None], name="examples")
        signature = tf.estimator.export.ClassificationOutput(floats, strings) \
            .as_signature_def({"examples": serialized})
        assert signature.method_name == "tensorflow/serving/classify"
        assert signature.inputs["inputs"].name == "examples:0"
        with pytest.raises(ValueError, match="can only accept a single tensor input of type"):
            tf.estimator.export.RegressionOutput(floats).as_signature_def({"x": floats})
        receiver = tf.estimator.export.ServingInputReceiver(floats, serialized)
        assert list(receiver.features) == ["feature"]
        assert list(receiver.receiver_tensors) == ["input"]
        with pytest.raises(ValueError, match="feature keys must be strings or ints"):
            tf.estimator.export.ServingInputReceiver({1.5: floats}, serialized)


def test_parsing_receiver_builds_the_example_placeholder():
    with tf.Graph().as_default() as graph:
        receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(
            {"x": tf.io.FixedLenFeature([3], tf.float32)})()
        assert receiver.receiver_tensors["examples"] is \
            graph.get_tensor_by_name("input_example_tensor:0")
        assert receiver.features["x"].shape.as_list() == [None, 3]


def test_method_name_updater(tmp_path):
    export_dir = str(tmp_path / "export")
    _save_simple(export_dir)
    updater = v1.saved_model.signature_def_utils.MethodNameUpdater(export_dir)
    with pytest.raises(ValueError, match="does not have a signature_def with key: 'nope'"):
        updater.replace_method_name("nope", "tensorflow/serving/regress")
    with pytest.raises(ValueError, match=r"tags \['train'\] could not be found"):
        updater.replace_method_name("serving_default", "tensorflow/serving/regress", "train")
    updater.replace_method_name("serving_default", "tensorflow/serving/regress", "serve")
    updater.save()
    signature = saved_model_proto.read(export_dir).meta_graphs[0].signature_def
    assert signature["serving_default"].method_name == "tensorflow/serving/regress"


# ---------------------------------------------------------------- real TensorFlow's files

REAL_TF = os.path.join(os.path.dirname(__file__), "fixtures", "tf_saved_model_v1")


def test_our_simple_save_signature_equals_real_tfs():
    """The same graph as make.py's: our signature proto equals the one real TF wrote."""
    real = saved_model_proto.read(os.path.join(REAL_TF, "simple_save")).meta_graphs[0]
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 2], name="x")
        w = v1.Variable(np.array([[1.0], [2.0]], np.float32), name="w")
        y = tf.matmul(x, w, name="y")
        ours = v1.saved_model.predict_signature_def({"x": x}, {"y": y})
    assert list(real.meta_info_def.tags) == ["serve"]
    assert ours == real.signature_def["serving_default"]


def test_real_tensorflow_graphs_load():
    """make.py's simple_save (y = x @ [[1], [2]]) and its .meta, written by real TF; more
    in test_meta_graph_real.py."""
    assert v1.saved_model.contains_saved_model(os.path.join(REAL_TF, "simple_save"))
    with tf.Graph().as_default():
        with v1.Session() as sess:
            meta = v1.saved_model.loader.load(sess, ["serve"], os.path.join(REAL_TF, "simple_save"))
            signature = meta.signature_def["serving_default"]
            np.testing.assert_allclose(
                sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: X[:, :2]}),
                X[:, :2] @ np.array([[1.0], [2.0]], np.float32))
    with tf.Graph().as_default():
        v1.train.import_meta_graph(os.path.join(REAL_TF, "model.meta"))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            np.testing.assert_allclose(sess.run("y:0", {"x:0": [[3.0, 4.0]]}), [[11.0]])
