"""Keras 2 loss functions and Loss classes against hand-computed values."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.keras import losses

YT = [[0., 1.], [0., 0.]]
YP = [[0.6, 0.4], [0.4, 0.6]]


@pytest.mark.parametrize("loss, expected", [
    (losses.MeanSquaredError(), 0.5 * ((0.36 + 0.36) / 2 + (0.16 + 0.36) / 2)),
    (losses.MeanAbsoluteError(), 0.55),
    (losses.BinaryCrossentropy(), 0.81492424),
    (losses.Hinge(), 1.3),
    (losses.SquaredHinge(), 1.86),
    (losses.CategoricalHinge(), 1.4),
    (losses.Huber(), 0.155),
    (losses.KLDivergence(), 0.45814306),
    (losses.Poisson(), 0.72907262),
    (losses.LogCosh(), 0.14708984),
    (losses.MeanSquaredLogarithmicError(), 0.17055929),
])
def test_loss_classes(loss, expected):
    assert float(loss(YT, YP)) == pytest.approx(expected, rel=1e-4)


def test_categorical_and_sparse_crossentropy():
    y_prob = [[0.05, 0.95, 0], [0.1, 0.8, 0.1]]
    assert float(losses.CategoricalCrossentropy()([[0, 1, 0], [0, 0, 1]], y_prob)) == \
        pytest.approx(1.1769392)
    assert float(losses.SparseCategoricalCrossentropy()([1, 2], y_prob)) == \
        pytest.approx(1.1769392)
    logits = np.array([[1.0, 2.0, 3.0]], np.float32)
    expected = -np.log(np.exp(3) / np.exp([1, 2, 3]).sum())
    assert float(losses.SparseCategoricalCrossentropy(from_logits=True)([2], logits)) == \
        pytest.approx(expected, rel=1e-5)


def test_reductions_and_sample_weight():
    per_example = losses.MeanSquaredError(reduction="none")(YT, YP).numpy()
    np.testing.assert_allclose(per_example, [0.36, 0.26], rtol=1e-5)
    weighted = losses.MeanSquaredError(reduction=losses.ReductionV2.SUM)(
        YT, YP, sample_weight=[1.0, 0.0])
    assert float(weighted) == pytest.approx(0.36)
    assert float(losses.MeanSquaredError()(YT, YP, sample_weight=[2.0, 0.0])) == \
        pytest.approx(0.36)
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        losses.MeanSquaredError(reduction="mean")


def test_functions_and_aliases():
    assert losses.mse is losses.mean_squared_error is tf.keras.losses.MSE
    np.testing.assert_allclose(losses.mse(YT, YP).numpy(), [0.36, 0.26], rtol=1e-5)
    np.testing.assert_allclose(
        losses.binary_crossentropy([[1.0]], [[0.0]], from_logits=True).numpy(),
        [np.log(2.0)], rtol=1e-5)
    cos = losses.CosineSimilarity(axis=1)([[0., 1.], [1., 1.]], [[1., 0.], [1., 1.]])
    assert float(cos) == pytest.approx(-0.5, abs=1e-6)


def test_get_serialize_deserialize():
    assert losses.get("mse") is losses.mean_squared_error
    assert isinstance(losses.get("MeanSquaredError"), losses.MeanSquaredError)
    loss = losses.BinaryCrossentropy(from_logits=True)
    config = losses.serialize(loss)
    assert config["config"]["from_logits"] is True
    assert isinstance(losses.deserialize(config), losses.BinaryCrossentropy)
    with pytest.raises(ValueError, match="Unknown loss function"):
        losses.get("nope")
    with pytest.raises(ValueError, match="Could not interpret"):
        losses.get(3)


# In a graph (tf.function, TF1) a crossentropy of a Softmax/Sigmoid op's output is computed
# from that op's input, as TF's Keras backend does; eagerly the probabilities are clipped to
# [1e-7, 1 - 1e-7]. Logits of 30 put the true class's probability far below the clip.
_CLIPPED = -np.log(1e-7)


@pytest.mark.parametrize("loss, activation, y_true, logits, graph_value, eager_value", [
    (losses.SparseCategoricalCrossentropy(), tf.nn.softmax, [0], [[0., 30.]], 30.0, _CLIPPED),
    (losses.CategoricalCrossentropy(), tf.nn.softmax, [[1., 0.]], [[0., 30.]], 30.0,
     _CLIPPED),
    (losses.BinaryCrossentropy(), tf.sigmoid, [[1.]], [[-30.]], 30.0, -np.log(2e-7)),
    (losses.sparse_categorical_crossentropy, tf.nn.softmax, [0], [[0., 30.]], 30.0, _CLIPPED),
    # softmax over the first axis: not TF's Softmax op, so no logits shortcut
    (losses.SparseCategoricalCrossentropy(), lambda x: tf.nn.softmax(x, axis=0), [0, 1],
     [[0., 30.], [0., 0.]], (np.log(2.0) + _CLIPPED) / 2, (np.log(2.0) + _CLIPPED) / 2),
    # from_logits=True given: the softmax output is taken as the logits
    (losses.SparseCategoricalCrossentropy(from_logits=True), tf.nn.softmax, [0], [[0., 30.]],
     np.log(1.0 + np.e), np.log(1.0 + np.e)),
])
def test_crossentropy_of_activation_output_in_graph(loss, activation, y_true, logits,
                                                    graph_value, eager_value):
    labels, x = tf.constant(y_true), tf.constant(np.array(logits, np.float32))

    @tf.function
    def traced():
        return tf.reduce_mean(loss(labels, activation(x)))
    assert float(traced()) == pytest.approx(graph_value, rel=1e-5)
    assert float(tf.reduce_mean(loss(labels, activation(x)))) == \
        pytest.approx(eager_value, rel=1e-5)


def test_sparse_crossentropy_integer_and_float_labels_agree():
    probs = np.array([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]], np.float32)
    expected = -(np.log(0.7) + np.log(0.25)) / 2
    for labels in ([1, 2], np.array([1, 2], np.int64), np.array([[1.], [2.]], np.float32)):
        assert float(losses.SparseCategoricalCrossentropy()(labels, probs)) == \
            pytest.approx(expected, rel=1e-6)
    weighted = losses.SparseCategoricalCrossentropy()([1, 2], probs, sample_weight=[1., 0.])
    assert float(weighted) == pytest.approx(-np.log(0.7) / 2, rel=1e-6)
