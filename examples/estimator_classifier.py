"""A TF 1.x Estimator example: a premade DNNClassifier and a custom model_fn on a toy
problem, trained, evaluated and used for predictions.

Run it with `python -m tfcompat examples/estimator_classifier.py` (or plain Python: it
imports tfcompat as tf).
"""
import logging
import tempfile

import numpy as np

try:
    import tensorflow as tf
except ImportError:
    import tfcompat as tf

logging.getLogger("tensorflow").setLevel(logging.WARNING)

rng = np.random.RandomState(0)
points = rng.normal(size=(400, 2)).astype(np.float32)
colors = np.array([b"red", b"green", b"blue"])[rng.randint(0, 3, size=400)]
labels = ((points[:, 0] * points[:, 1] > 0) ^ (colors == b"blue")).astype(np.int64)
train, test = slice(0, 300), slice(300, 400)


def numpy_input(part, shuffle, epochs=1, with_labels=True):
    return tf.estimator.inputs.numpy_input_fn(
        {"xy": points[part], "color": colors[part]},
        labels[part] if with_labels else None, batch_size=32, num_epochs=epochs,
        shuffle=shuffle)


feature_columns = [
    tf.feature_column.numeric_column("xy", shape=2),
    tf.feature_column.indicator_column(
        tf.feature_column.categorical_column_with_vocabulary_list("color",
                                                                  ["red", "green", "blue"])),
]
classifier = tf.estimator.DNNClassifier(hidden_units=[32, 16], feature_columns=feature_columns,
                                        model_dir=tempfile.mkdtemp(),
                                        optimizer=lambda: tf.train.AdamOptimizer(0.01))
classifier.train(numpy_input(train, shuffle=True, epochs=None), steps=200)
metrics = classifier.evaluate(numpy_input(test, shuffle=False))
print("DNNClassifier: accuracy %.3f, average loss %.3f after %d steps"
      % (metrics["accuracy"], metrics["average_loss"], metrics["global_step"]))
for prediction, label in zip(classifier.predict(numpy_input(slice(300, 305), shuffle=False,
                                                            with_labels=False)),
                             labels[300:305]):
    print("  class %s (p=%.2f), label %d" % (prediction["classes"][0].decode(),
                                             prediction["probabilities"].max(), label))


def model_fn(features, labels, mode, params):
    """A custom model: the same features through tf.feature_column.input_layer."""
    net = tf.feature_column.input_layer(features, feature_columns)
    for units in params["hidden"]:
        net = tf.layers.dense(net, units, activation=tf.nn.relu)
    logits = tf.layers.dense(net, 2)
    predicted = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class": predicted})
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op,
        eval_metric_ops={"accuracy": tf.metrics.accuracy(labels, predicted)})


custom = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(),
                                params={"hidden": [32, 16]},
                                config=tf.estimator.RunConfig(save_checkpoints_steps=100))
metrics, _ = tf.estimator.train_and_evaluate(
    custom, tf.estimator.TrainSpec(numpy_input(train, shuffle=True, epochs=None), max_steps=200),
    tf.estimator.EvalSpec(numpy_input(test, shuffle=False), steps=None, throttle_secs=0))
print("custom Estimator: accuracy %.3f after %d steps (checkpoints: %s)"
      % (metrics["accuracy"], metrics["global_step"], custom.latest_checkpoint()))
