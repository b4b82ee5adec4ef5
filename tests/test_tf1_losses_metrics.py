"""TF1 tf.losses, tf.metrics (graph mode) and tf.contrib.eager.metrics."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.compat import v1
from tfcompat.contrib.eager import metrics as eager_metrics
from tfcompat.losses import losses_impl
from tfcompat.metrics import metrics_impl

LABELS = np.array([[0., 1.], [1., 0.]], np.float32)
PREDS = np.array([[0.2, 0.7], [0.6, 0.1]], np.float32)


@pytest.mark.parametrize("fn, expected", [
    (losses_impl.absolute_difference, np.mean(np.abs(PREDS - LABELS))),
    (losses_impl.mean_squared_error, np.mean((PREDS - LABELS) ** 2)),
    (losses_impl.log_loss, np.mean(-LABELS * np.log(PREDS + 1e-7) -
                                   (1 - LABELS) * np.log(1 - PREDS + 1e-7))),
    (losses_impl.hinge_loss, np.mean(np.maximum(0, 1 - (2 * LABELS - 1) * PREDS))),
])
def test_elementwise_losses(fn, expected):
    assert float(fn(LABELS, PREDS)) == pytest.approx(float(expected), rel=1e-5)


def test_cross_entropies_and_weights():
    onehot = np.eye(3, dtype=np.float32)
    assert float(losses_impl.softmax_cross_entropy(onehot, onehot * 100.0)) == \
        pytest.approx(0.0, abs=1e-6)
    logits = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], np.float32)
    per = -np.log(np.exp(logits) / np.exp(logits).sum(1, keepdims=True))[[0, 1], [2, 0]]
    assert float(losses_impl.sparse_softmax_cross_entropy([2, 0], logits)) == \
        pytest.approx(per.mean(), rel=1e-5)
    # SUM_BY_NONZERO_WEIGHTS: weighted sum / number of non-zero weights
    assert float(losses_impl.sparse_softmax_cross_entropy([2, 0], logits, weights=[2.0, 0.0])) \
        == pytest.approx(2 * per[0], rel=1e-5)
    total = losses_impl.sparse_softmax_cross_entropy(
        [2, 0], logits, reduction=losses_impl.Reduction.SUM)
    assert float(total) == pytest.approx(per.sum(), rel=1e-5)
    x = np.array([[0.0, 2.0]], np.float32)
    z = np.array([[1.0, 0.0]], np.float32)
    expected = np.mean(np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x))))
    assert float(losses_impl.sigmoid_cross_entropy(z, x)) == pytest.approx(expected, rel=1e-5)
    assert float(losses_impl.huber_loss([0.0, 0.0], [0.5, 3.0])) == \
        pytest.approx((0.125 + 2.5) / 2)
    with pytest.raises(ValueError, match="labels must not be None"):
        losses_impl.mean_squared_error(None, PREDS)


def test_eager_collections_are_empty():
    assert losses_impl.get_losses() == []
    assert float(losses_impl.get_regularization_loss()) == 0.0
    with pytest.raises(ValueError, match="No losses to add"):
        losses_impl.get_total_loss()


def test_graph_losses_collection_and_metrics():
    with tf.Graph().as_default() as graph:
        labels = v1.placeholder(tf.int64, [None])
        preds = v1.placeholder(tf.int64, [None])
        loss = losses_impl.mean_squared_error([[1.0]], [[3.0]])
        assert losses_impl.get_losses() == [loss]
        total = losses_impl.get_total_loss()
        acc, acc_update = metrics_impl.accuracy(labels, preds)
        prec, prec_update = metrics_impl.precision(labels, preds)
        rec, rec_update = metrics_impl.recall(labels, preds)
        mean, mean_update = metrics_impl.mean(tf.cast(preds, tf.float32))
        iou, iou_update = metrics_impl.mean_iou(labels, preds, num_classes=2)
        auc, auc_update = metrics_impl.auc(labels, tf.cast(preds, tf.float32))
        assert len(v1.local_variables()) >= 10
        with v1.Session(graph=graph) as sess:
            sess.run(v1.local_variables_initializer())
            assert sess.run(total) == pytest.approx(4.0)
            feed = {labels: [0, 1, 1, 1], preds: [1, 0, 1, 1]}
            sess.run([acc_update, prec_update, rec_update, mean_update, iou_update,
                      auc_update], feed)
            assert sess.run(acc) == pytest.approx(0.5)
            sess.run(acc_update, {labels: [1, 1], preds: [1, 1]})
            assert sess.run([acc, prec, rec, mean]) == pytest.approx(
                [4.0 / 6, 2.0 / 3, 2.0 / 3, 0.75])
            assert sess.run(iou) == pytest.approx(0.25)
            assert 0.0 <= sess.run(auc) <= 1.0


def test_metrics_need_a_graph():
    with pytest.raises(RuntimeError,
                       match="tf.metrics.accuracy is not supported when eager execution"):
        metrics_impl.accuracy([1], [1])


def test_tfe_metrics():
    acc = eager_metrics.Accuracy()
    acc(labels=tf.constant([1, 2, 3, 4]), predictions=tf.constant([1, 2, 3, 0]))
    assert float(acc.result()) == 0.75
    mean = eager_metrics.Mean()
    for v in [1.0, 2.0, 3.0, 4.0]:
        mean(v)
    assert float(mean.result()) == 2.5 and mean.result().dtype == tf.float64
    mean.init_variables()
    assert float(mean.result()) == 0.0
    cat = eager_metrics.CategoricalAccuracy()
    cat(np.eye(2, dtype=np.float32), np.array([[0.9, 0.1], [0.8, 0.2]], np.float32))
    assert float(cat.result()) == 0.5
    sparse = eager_metrics.SparseAccuracy()
    sparse(np.array([1, 0]), np.array([[0.1, 0.9], [0.8, 0.2]], np.float32))
    assert float(sparse.result()) == 1.0
    binary = eager_metrics.BinaryAccuracy(threshold=0.5)
    binary(np.array([1.0, 0.0]), np.array([0.7, 0.6]))
    assert float(binary.result()) == 0.5
    assert tf.contrib.eager.metrics.Accuracy is eager_metrics.Accuracy
