"""tf.estimator: Estimator train/evaluate/predict, RunConfig, numpy_input_fn, canned
estimators and train_and_evaluate."""
import logging
import os

import numpy as np
import pytest

import tfcompat as tf

RNG = np.random.RandomState(0)
LABELS = np.arange(60) % 3
FEATURES = (RNG.normal(size=(60, 4)) + 2.0 * LABELS[:, None]).astype(np.float32)


def model_fn(features, labels, mode, params):
    """A small classifier with explicitly named layers."""
    hidden = tf.layers.dense(features, 16, activation=tf.nn.relu, name="hidden")
    logits = tf.layers.dense(hidden, 3, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1),
                                                             "logits": logits})
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.TRAIN:
        train_op = tf.train.MomentumOptimizer(params["learning_rate"], 0.9).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    accuracy = tf.metrics.accuracy(labels=labels, predictions=tf.argmax(logits, 1))
    return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})


def input_fn(repeat=True):
    ds = tf.data.Dataset.from_tensor_slices((FEATURES, LABELS.astype(np.int32)))
    return ds.repeat().shuffle(60).batch(12) if repeat else ds.batch(12)


def make_estimator(model_dir, **config):
    """A seeded estimator (unseeded, 45 steps from some initializations stay below the
    accuracy the tests expect)."""
    config.setdefault("tf_random_seed", 7)
    return tf.estimator.Estimator(model_fn=model_fn, model_dir=str(model_dir),
                                  params={"learning_rate": 0.05},
                                  config=tf.estimator.RunConfig(**config))


def test_train_evaluate_predict_and_resume(tmp_path):
    estimator = make_estimator(tmp_path)
    assert estimator.train(lambda: input_fn(), steps=30) is estimator
    assert estimator.get_variable_value("global_step") == 30
    estimator.train(lambda: input_fn(), steps=10)          # steps count from where it is
    assert estimator.get_variable_value("global_step") == 40
    estimator.train(lambda: input_fn(), max_steps=45)      # max_steps is absolute
    assert estimator.get_variable_value("global_step") == 45
    estimator.train(lambda: input_fn(), max_steps=45)      # nothing left to do
    assert estimator.latest_checkpoint().endswith("model.ckpt-45")

    result = estimator.evaluate(lambda: input_fn(False))
    assert sorted(result) == ["accuracy", "global_step", "loss"]
    assert result["global_step"] == 45 and result["accuracy"] > 0.8

    kernel = estimator.get_variable_value("logits/kernel")
    bias = estimator.get_variable_value("logits/bias")
    hidden = np.maximum(FEATURES[:5] @ estimator.get_variable_value("hidden/kernel") +
                        estimator.get_variable_value("hidden/bias"), 0)
    expected_logits = hidden @ kernel + bias
    predictions = list(estimator.predict(
        lambda: tf.data.Dataset.from_tensor_slices(FEATURES[:5]).batch(2)))
    assert len(predictions) == 5
    np.testing.assert_allclose(np.stack([p["logits"] for p in predictions]), expected_logits,
                               rtol=1e-5, atol=1e-5)
    assert [p["class"] for p in predictions] == list(expected_logits.argmax(1))
    assert {"global_step", "hidden/kernel", "logits/bias", "logits/kernel/Momentum"} <= \
        set(estimator.get_variable_names())


def test_evaluate_loss_is_the_mean_of_batch_losses_and_steps_limit_batches(tmp_path):
    estimator = make_estimator(tmp_path)
    estimator.train(lambda: input_fn(), steps=5)
    one = estimator.evaluate(lambda: input_fn(False), steps=1, name="first")
    everything = estimator.evaluate(lambda: input_fn(False))
    kernel = [estimator.get_variable_value(n) for n in ("hidden/kernel", "hidden/bias",
                                                        "logits/kernel", "logits/bias")]
    logits = np.maximum(FEATURES @ kernel[0] + kernel[1], 0) @ kernel[2] + kernel[3]
    shifted = logits - logits.max(1, keepdims=True)
    per_example = -(shifted[np.arange(60), LABELS] - np.log(np.exp(shifted).sum(1)))
    batch_means = per_example.reshape(5, 12).mean(1)
    assert one["loss"] == pytest.approx(batch_means[0], rel=1e-5)
    assert everything["loss"] == pytest.approx(batch_means.mean(), rel=1e-5)
    assert everything["accuracy"] == pytest.approx((logits.argmax(1) == LABELS).mean())
    assert os.path.isdir(os.path.join(str(tmp_path), "eval_first"))


def test_checkpoints_and_summaries_land_in_model_dir(tmp_path, caplog):
    estimator = make_estimator(tmp_path, save_checkpoints_steps=4, keep_checkpoint_max=2,
                               save_summary_steps=3, log_step_count_steps=5)
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        estimator.train(lambda: input_fn(), steps=10)
        estimator.evaluate(lambda: input_fn(False))
    names = set(os.listdir(str(tmp_path)))
    assert {"checkpoint", "graph.pbtxt", "model.ckpt-8.meta", "model.ckpt-10.meta"} <= names
    assert "model.ckpt-4.meta" not in names          # keep_checkpoint_max=2
    assert any(n.startswith("events.out.tfevents") for n in names)
    assert any(n.startswith("events.out.tfevents")
               for n in os.listdir(os.path.join(str(tmp_path), "eval")))
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("loss = ") and m.endswith(", step = 1") for m in messages)
    assert any(m.startswith("loss = ") and ", step = 6 (" in m for m in messages)
    assert any(m.startswith("global_step/sec: ") for m in messages)
    assert any(m.startswith("Saving checkpoints for 10 into") for m in messages)
    assert any(m.startswith("Loss for final step: ") for m in messages)
    assert any(m.startswith("Saving dict for global step 10: accuracy = ") for m in messages)


def test_training_stops_at_the_end_of_the_input(tmp_path):
    estimator = make_estimator(tmp_path)
    estimator.train(lambda: input_fn(False))               # 60 examples, batches of 12
    assert estimator.get_variable_value("global_step") == 5


def test_predict_with_a_tensor_of_predictions_and_predict_keys(tmp_path):
    def tensor_model_fn(features, mode):
        scale = tf.get_variable("scale", initializer=2.0)
        return tf.estimator.EstimatorSpec(mode, predictions=features * scale)

    estimator = tf.estimator.Estimator(tensor_model_fn, model_dir=str(tmp_path))
    values = list(estimator.predict(
        lambda: tf.data.Dataset.from_tensor_slices(np.arange(5, dtype=np.float32)).batch(2)))
    assert values == [0.0, 2.0, 4.0, 6.0, 8.0]
    batches = list(estimator.predict(
        lambda: tf.data.Dataset.from_tensor_slices(np.arange(5, dtype=np.float32)).batch(2),
        yield_single_examples=False))
    assert [b.tolist() for b in batches] == [[0.0, 2.0], [4.0, 6.0], [8.0]]
    with pytest.raises(ValueError, match="predict_keys argument is not valid"):
        list(estimator.predict(
            lambda: tf.data.Dataset.from_tensor_slices(np.ones(2, np.float32)),
            predict_keys=["x"]))

    trained = make_estimator(tmp_path / "other")
    only_class = list(trained.predict(
        lambda: tf.data.Dataset.from_tensor_slices(FEATURES[:2]).batch(2),
        predict_keys=["class"]))
    assert [sorted(p) for p in only_class] == [["class"], ["class"]]


def test_model_fn_arguments_are_passed_by_name(tmp_path):
    seen = {}

    def minimal_model_fn(features, labels, config, mode):
        seen.update(config=config, mode=mode)
        loss = tf.reduce_mean(tf.square(tf.layers.dense(features, 1, name="d") - labels))
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=tf.train.GradientDescentOptimizer(
            0.1).minimize(loss, global_step=tf.train.get_global_step()))

    estimator = tf.estimator.Estimator(minimal_model_fn, model_dir=str(tmp_path))
    x = np.ones((4, 2), np.float32)
    estimator.train(lambda: (tf.constant(x), tf.constant(np.ones((4, 1), np.float32))), steps=2)
    assert seen["mode"] == "train" and seen["config"].model_dir == str(tmp_path)


@pytest.mark.parametrize("call, error, message", [
    (lambda e: e.train(input_fn, steps=1, max_steps=1), ValueError,
     "Can not provide both steps and max_steps"),
    (lambda e: e.train(input_fn, steps=0), ValueError, "Must specify steps > 0"),
    (lambda e: e.train(input_fn, max_steps=-1), ValueError, "Must specify max_steps > 0"),
    (lambda e: e.train(input_fn, hooks=[object()]), TypeError, "Hooks must be a SessionRunHook"),
    (lambda e: e.evaluate(input_fn, steps=0), ValueError, "Must specify steps > 0"),
    (lambda e: e.get_variable_value("x"), ValueError, "Could not find trained model"),
    (lambda e: e.train(input_fn, steps=1, saving_listeners=[1]), TypeError, "saving_listeners"),
])
def test_estimator_argument_errors(tmp_path, call, error, message):
    with pytest.raises(error, match=message):
        call(make_estimator(tmp_path))


@pytest.mark.parametrize("spec, error, message", [
    (lambda mode: None, ValueError, "model_fn should return an EstimatorSpec"),
    (lambda mode: tf.estimator.EstimatorSpec(mode, train_op=tf.no_op()), ValueError,
     "Missing loss"),
    (lambda mode: tf.estimator.EstimatorSpec(mode, loss=tf.constant(1.0)), ValueError,
     "Missing train_op"),
    (lambda mode: tf.estimator.EstimatorSpec(mode, loss=tf.constant([1.0, 2.0]),
                                             train_op=tf.no_op()), ValueError,
     "Loss must be scalar"),
    (lambda mode: tf.estimator.EstimatorSpec(mode, loss=1.0, train_op=tf.no_op()), TypeError,
     "loss must be Tensor"),
    (lambda mode: tf.estimator.EstimatorSpec(mode, loss=tf.constant(1.0), train_op=tf.no_op(),
                                             eval_metric_ops={"a": 1}), TypeError,
     "Values of eval_metric_ops must be"),
])
def test_bad_model_fn_results(tmp_path, spec, error, message):
    def bad_model_fn(features, mode):
        tf.train.get_global_step()
        return spec(mode)

    estimator = tf.estimator.Estimator(bad_model_fn, model_dir=str(tmp_path))
    with pytest.raises(error, match=message):
        estimator.train(lambda: tf.data.Dataset.range(3), steps=1)


def test_model_fn_signature_checks():
    with pytest.raises(ValueError, match="must include features argument"):
        tf.estimator.Estimator(lambda x, mode: None)
    with pytest.raises(ValueError, match="does not include params argument"):
        tf.estimator.Estimator(lambda features: None, params={"a": 1})
    with pytest.raises(ValueError, match="following not expected args"):
        tf.estimator.Estimator(lambda features, other: None)
    with pytest.raises(ValueError, match="model_fn must be provided"):
        tf.estimator.Estimator(None)


def test_estimator_graphs_are_built_the_same_in_a_graph_mode_process(tmp_path):
    """The Estimator builds TF1 graphs itself; the process's own default graph is untouched."""
    default_graph = tf.get_default_graph()
    operations_before = len(default_graph.get_operations())
    estimator = make_estimator(tmp_path)
    estimator.train(lambda: input_fn(), steps=2)
    list(estimator.predict(lambda: tf.data.Dataset.from_tensor_slices(FEATURES[:2]).batch(2)))
    assert tf.get_default_graph() is default_graph
    assert len(default_graph.get_operations()) == operations_before


def test_run_config():
    config = tf.estimator.RunConfig()
    assert (config.save_checkpoints_secs, config.save_checkpoints_steps,
            config.save_summary_steps, config.keep_checkpoint_max,
            config.log_step_count_steps) == (600, None, 100, 5, 100)
    by_steps = config.replace(save_checkpoints_steps=10)
    assert (by_steps.save_checkpoints_steps, by_steps.save_checkpoints_secs) == (10, None)
    assert config.is_chief and config.num_worker_replicas == 1 and config.master == ""
    with pytest.raises(ValueError, match="cannot be both set"):
        tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)
    with pytest.raises(ValueError, match="Replacing cluster_spec is not supported"):
        config.replace(cluster_spec={})
    with pytest.raises(ValueError, match="save_summary_steps should be >= 0"):
        tf.estimator.RunConfig(save_summary_steps=-1)
    with pytest.raises(ValueError, match="model_dir` are set both"):
        tf.estimator.Estimator(lambda features: None, model_dir="a",
                               config=tf.estimator.RunConfig(model_dir="b"))


def test_temporary_model_dir_is_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        estimator = tf.estimator.Estimator(lambda features: None)
    assert os.path.isdir(estimator.model_dir)
    assert "Using temporary folder as model directory: %s" % estimator.model_dir in \
        [r.getMessage() for r in caplog.records]


# ---------------------------------------------------------------- numpy_input_fn


def _drain(input_fn):
    with tf.Graph().as_default():
        result = input_fn()
        with tf.Session() as sess:
            batches = []
            while True:
                try:
                    batches.append(sess.run(result))
                except tf.errors.OutOfRangeError:
                    return batches


def test_numpy_input_fn_epochs_and_batches():
    x = {"b": np.arange(5.0), "a": np.arange(5) * 10}
    batches = _drain(tf.estimator.inputs.numpy_input_fn(x, np.arange(5), batch_size=3,
                                                        num_epochs=2, shuffle=False))
    assert [len(labels) for _, labels in batches] == [3, 3, 3, 1]   # across epochs
    assert np.concatenate([labels for _, labels in batches]).tolist() == \
        [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]
    features = batches[0][0]
    assert sorted(features) == ["a", "b"]
    assert features["a"].dtype == np.int64 and features["b"].dtype == np.float64
    assert features["a"].tolist() == [0, 10, 20]


def test_numpy_input_fn_shuffle_visits_every_example_each_epoch():
    batches = _drain(tf.estimator.inputs.numpy_input_fn(np.arange(10), batch_size=5,
                                                        num_epochs=3, shuffle=True))
    values = np.concatenate(batches)
    for epoch in range(3):
        assert sorted(values[epoch * 10:(epoch + 1) * 10].tolist()) == list(range(10))
    assert values.tolist() != list(range(10)) * 3


def test_numpy_input_fn_dict_targets_and_errors():
    (features, targets), = _drain(tf.estimator.inputs.numpy_input_fn(
        {"x": np.arange(2)}, {"t1": np.arange(2) + 1, "t2": np.arange(2) + 2}, batch_size=2,
        shuffle=False))
    assert targets["t1"].tolist() == [1, 2] and targets["t2"].tolist() == [2, 3]
    with pytest.raises(ValueError, match="shuffle must be provided"):
        tf.estimator.inputs.numpy_input_fn({"x": np.arange(2)})
    for x, y, error, message in [
            ({"x": np.arange(2)}, np.arange(3), ValueError, "Length of tensors in x and y"),
            ({}, None, ValueError, "x cannot be an empty dict"),
            ([1, 2], None, TypeError, "x must be a dict or array"),
            ({"x": np.arange(2)}, {"x": np.arange(2)}, ValueError, "duplicate keys")]:
        with tf.Graph().as_default():
            with pytest.raises(error, match=message):
                tf.estimator.inputs.numpy_input_fn(x, y, shuffle=False)()


# ---------------------------------------------------------------- canned estimators


def _separable(n=200):
    rng = np.random.RandomState(1)
    x = rng.normal(size=(n, 2)).astype(np.float32)
    return x, (x[:, 0] - x[:, 1] > 0).astype(np.int64)


def test_dnn_classifier_learns_a_separable_problem(tmp_path):
    x, y = _separable()
    classifier = tf.estimator.DNNClassifier(
        hidden_units=[8, 4], feature_columns=[tf.feature_column.numeric_column("x", shape=2)],
        model_dir=str(tmp_path))
    classifier.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=20,
                                                        num_epochs=None, shuffle=True),
                     steps=300)
    metrics = classifier.evaluate(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, y, batch_size=50, shuffle=False))
    assert metrics["accuracy"] > 0.95 and metrics["global_step"] == 300
    assert {"accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "average_loss",
            "label/mean", "loss", "precision", "prediction/mean", "recall"} <= set(metrics)
    assert metrics["label/mean"] == pytest.approx(y.mean())
    predictions = list(classifier.predict(tf.estimator.inputs.numpy_input_fn(
        {"x": x[:4]}, batch_size=4, shuffle=False)))
    first = predictions[0]
    assert sorted(first) == ["all_class_ids", "all_classes", "class_ids", "classes",
                             "logistic", "logits", "probabilities"]
    assert first["probabilities"][1] == pytest.approx(first["logistic"][0], rel=1e-5)
    assert [p["class_ids"][0] for p in predictions] == y[:4].tolist()
    assert first["classes"][0] == str(y[0]).encode()
    assert "dnn/hiddenlayer_1/kernel" in classifier.get_variable_names()


def test_linear_classifier_multiclass_with_label_vocabulary(tmp_path):
    x, y = _separable(150)
    names = np.array([b"neg", b"pos"])[y]
    classifier = tf.estimator.LinearClassifier(
        feature_columns=[tf.feature_column.numeric_column("x", shape=2)], n_classes=3,
        label_vocabulary=["neg", "pos", "other"], model_dir=str(tmp_path),
        optimizer=lambda: tf.train.GradientDescentOptimizer(0.05))
    classifier.train(tf.estimator.inputs.numpy_input_fn({"x": x}, names, batch_size=30,
                                                        num_epochs=None, shuffle=True),
                     steps=100)
    metrics = classifier.evaluate(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, names, batch_size=50, shuffle=False))
    assert sorted(metrics) == ["accuracy", "average_loss", "global_step", "loss"]
    assert metrics["accuracy"] > 0.9
    prediction = next(classifier.predict(tf.estimator.inputs.numpy_input_fn(
        {"x": x[:1]}, batch_size=1, shuffle=False)))
    assert prediction["classes"][0] == names[0]
    assert prediction["all_classes"].tolist() == [b"neg", b"pos", b"other"]
    assert {"linear/linear_model/bias_weights", "linear/linear_model/x/weights"} <= \
        set(classifier.get_variable_names())


def test_linear_regressor_fits_a_line(tmp_path):
    x = np.linspace(-1, 1, 40).astype(np.float32)
    y = 2 * x + 1
    regressor = tf.estimator.LinearRegressor(
        feature_columns=[tf.feature_column.numeric_column("x")], model_dir=str(tmp_path),
        optimizer=lambda: tf.train.GradientDescentOptimizer(0.005))   # the loss is a SUM
    regressor.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=40,
                                                       num_epochs=None, shuffle=False),
                    steps=200)
    assert regressor.get_variable_value("linear/linear_model/x/weights")[0, 0] == \
        pytest.approx(2.0, abs=0.05)
    assert regressor.get_variable_value("linear/linear_model/bias_weights")[0] == \
        pytest.approx(1.0, abs=0.05)
    metrics = regressor.evaluate(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, y, batch_size=40, shuffle=False))
    assert sorted(metrics) == ["average_loss", "global_step", "label/mean", "loss",
                               "prediction/mean"]
    assert metrics["loss"] == pytest.approx(metrics["average_loss"] * 40, rel=1e-4)
    prediction = next(regressor.predict(tf.estimator.inputs.numpy_input_fn(
        {"x": np.array([0.5], np.float32)}, shuffle=False)))
    assert prediction["predictions"][0] == pytest.approx(2.0, abs=0.05)


def test_dnn_regressor_and_canned_argument_errors(tmp_path):
    regressor = tf.estimator.DNNRegressor([4], [tf.feature_column.numeric_column("x")],
                                          model_dir=str(tmp_path), label_dimension=1)
    regressor.train(tf.estimator.inputs.numpy_input_fn(
        {"x": np.arange(4.0)}, np.arange(4.0), batch_size=4, shuffle=False), steps=1)
    assert regressor.get_variable_value("global_step") == 1
    with pytest.raises(ValueError, match="Unsupported optimizer name"):
        tf.estimator.DNNClassifier([2], [tf.feature_column.numeric_column("x")],
                                   optimizer="Nope", model_dir=str(tmp_path / "n")).train(
            tf.estimator.inputs.numpy_input_fn({"x": np.arange(2.0)}, np.arange(2),
                                               shuffle=False), steps=1)
    with pytest.raises(ValueError, match="Length of label_vocabulary must be n_classes"):
        tf.estimator.LinearClassifier([], n_classes=3, label_vocabulary=["a"])
    with pytest.raises(NotImplementedError, match="batch_norm"):
        tf.estimator.DNNClassifier([2], [], batch_norm=True)


def test_train_and_evaluate(tmp_path):
    estimator = make_estimator(tmp_path, save_checkpoints_steps=10)
    metrics, exports = tf.estimator.train_and_evaluate(
        estimator, tf.estimator.TrainSpec(lambda: input_fn(), max_steps=20),
        tf.estimator.EvalSpec(lambda: input_fn(False), steps=None, throttle_secs=0))
    assert metrics["global_step"] == 20 and exports == []
    assert "accuracy" in metrics
    with pytest.raises(TypeError, match="`input_fn` must be callable"):
        tf.estimator.TrainSpec(input_fn=1)
    with pytest.raises(ValueError, match="Must specify max_steps > 0"):
        tf.estimator.TrainSpec(input_fn, max_steps=0)
    with pytest.raises(TypeError, match="`train_spec` must have type"):
        tf.estimator.train_and_evaluate(estimator, None, None)
