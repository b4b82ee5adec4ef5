"""Keras 2 stateful metrics and metric functions."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.keras import metrics


def _result(metric, *args, **kwargs):
    metric.update_state(*args, **kwargs)
    return float(metric.result())


@pytest.mark.parametrize("metric, args, expected", [
    (metrics.Accuracy(), ([[1], [2], [3], [4]], [[0], [2], [3], [4]]), 0.75),
    (metrics.BinaryAccuracy(), ([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]]), 0.75),
    (metrics.CategoricalAccuracy(), ([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8],
                                                             [0.05, 0.95, 0]]), 0.5),
    (metrics.SparseCategoricalAccuracy(), ([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]]),
     0.5),
    (metrics.TopKCategoricalAccuracy(k=1), ([[0, 0, 1], [0, 1, 0]],
                                            [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]), 0.5),
    (metrics.Precision(), ([0, 1, 1, 1], [1, 0, 1, 1]), 2.0 / 3),
    (metrics.Recall(), ([0, 1, 1, 1], [1, 0, 1, 1]), 2.0 / 3),
    (metrics.AUC(num_thresholds=3), ([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]), 0.75),
    (metrics.MeanIoU(num_classes=2), ([0, 0, 1, 1], [0, 1, 0, 1]), 1.0 / 3),
    (metrics.MeanSquaredError(), ([[0, 1], [0, 0]], [[1, 1], [0, 0]]), 0.25),
    (metrics.MeanAbsoluteError(), ([[0, 1], [0, 0]], [[1, 1], [0, 0]]), 0.25),
    (metrics.RootMeanSquaredError(), ([[0, 1], [0, 0]], [[1, 1], [0, 0]]), 0.5),
    (metrics.TruePositives(), ([0, 1, 1, 1], [1, 0, 1, 1]), 2.0),
])
def test_metric_values(metric, args, expected):
    assert _result(metric, *args) == pytest.approx(expected, rel=1e-5)


def test_mean_sum_weights_and_reset():
    m = tf.keras.metrics.Mean()
    for v in [1.0, 2.0, 3.0, 4.0]:
        m(v)
    assert float(m.result()) == 2.5
    assert [v.name for v in m.variables] == ["total:0", "count:0"]
    assert all(not v.trainable for v in m.variables)
    m.reset_states()
    assert float(m.result()) == 0.0
    assert _result(m, [1.0, 3.0], sample_weight=[1.0, 0.0]) == 1.0
    s = metrics.Sum()
    assert _result(s, [1.0, 3.0, 5.0]) == 9.0
    m.reset_state()
    assert float(m([[1.0, 2.0], [3.0, 4.0]], sample_weight=[[1.0], [0.0]])) == 1.5


def test_accumulates_over_batches():
    m = metrics.SparseCategoricalAccuracy()
    m.update_state([0, 1], [[0.9, 0.1], [0.8, 0.2]])
    m.update_state([1, 1], [[0.1, 0.9], [0.2, 0.8]])
    assert float(m.result()) == 0.75


def test_functions():
    np.testing.assert_allclose(metrics.binary_accuracy([[1], [0]], [[0.6], [0.3]]).numpy(),
                               [1.0, 1.0])
    np.testing.assert_allclose(
        metrics.categorical_accuracy([[0, 1]], [[0.3, 0.7]]).numpy(), [1.0])
    np.testing.assert_allclose(
        metrics.sparse_top_k_categorical_accuracy([2], [[0.5, 0.3, 0.2]], k=2).numpy(), [0.0])
    assert metrics.mse is tf.keras.losses.mse


def test_get_and_config():
    assert metrics.get("accuracy") is metrics.accuracy
    assert isinstance(metrics.get("AUC"), metrics.AUC)
    assert metrics.BinaryAccuracy(threshold=0.7).get_config()["threshold"] == 0.7
    with pytest.raises(ValueError, match="Unknown metric function"):
        metrics.get("nope")
    with pytest.raises(ValueError, match="Threshold values must be in"):
        metrics.Precision(thresholds=[1.5])


def test_metric_inside_tf_function():
    m = metrics.Mean()

    @tf.function
    def step(x):
        m.update_state(x)
        return m.result()
    step(tf.constant([1.0, 3.0]))
    assert float(step(tf.constant([5.0, 7.0]))) == 4.0


@pytest.mark.parametrize("labels", [
    np.array([2, 1, 0], np.int64), np.array([[2], [1], [0]], np.int32),
    np.array([2., 1., 0.], np.float32)])
def test_sparse_accuracy_integer_and_float_labels(labels):
    probs = [[0.1, 0.6, 0.3], [0.05, 0.95, 0.0], [0.7, 0.2, 0.1]]
    assert _result(metrics.SparseCategoricalAccuracy(), labels, probs) == \
        pytest.approx(2.0 / 3)
    assert _result(metrics.SparseTopKCategoricalAccuracy(k=2), labels, probs) == \
        pytest.approx(1.0)


@pytest.mark.parametrize("values, weight, total, count", [
    (2.5, 32.0, 80.0, 32.0),          # a scalar with a Python-number weight (fit's loss)
    ([1.0, 3.0], 0.5, 2.0, 1.0),      # several values with a Python-number weight
    (2.5, 0.0, 0.0, 0.0),             # weight 0: the result stays 0 (no division by 0)
])
def test_mean_with_number_weight(values, weight, total, count):
    m = metrics.Mean()
    m.update_state(values, sample_weight=weight)
    assert [float(v.numpy()) for v in m.variables] == [total, count]
    assert float(m.result()) == (total / count if count else 0.0)
