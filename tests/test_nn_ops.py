"""tf.nn ops against numpy / hand-laid-out torch references."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.ops import array_ops, nn_ops

rng = np.random.RandomState(0)


def t(value, dtype=None):
    return tf.convert_to_tensor(value, dtype=dtype)


def randn(*shape):
    return rng.randn(*shape).astype(np.float32)


def close(actual, expected, tol=1e-5):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=tol, atol=tol)


# ---------------------------------------------------------------- activations
# relu, relu6, elu, selu, leaky_relu, softplus, softsign, swish, crelu, gelu against numpy,
# with graphs and gradients: tests/op_records.py.

X = np.array([[-3.0, -0.5, 0.0, 0.5, 2.0, 7.0]], np.float32)


def test_gelu_approximate_and_int_relu():
    x = X.astype(np.float64)
    approx = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    close(nn_ops.gelu(t(x), approximate=True), approx)
    out = tf.nn.relu(t([-2, 3]))
    assert out.dtype == tf.int32 and out.numpy().tolist() == [0, 3]
    with pytest.raises(TypeError):
        tf.nn.elu(t([1, 2]))


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_axis_and_dim():
    x = randn(3, 4, 5)
    close(tf.nn.softmax(t(x)), np_softmax(x))
    close(tf.nn.softmax(t(x), axis=1), np_softmax(x, 1))
    close(tf.nn.softmax(t(x), dim=0), np_softmax(x, 0))
    close(tf.nn.log_softmax(t(x), 1), np.log(np_softmax(x, 1)))
    with pytest.raises(ValueError):
        tf.nn.softmax(t(x), axis=1, dim=1)


def test_bias_add_formats():
    x, b = randn(2, 3, 4, 5), randn(5)
    close(tf.nn.bias_add(t(x), t(b)), x + b)
    bc = randn(3)
    close(tf.nn.bias_add(t(x), t(bc), data_format="NCHW"), x + bc.reshape(1, 3, 1, 1))
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.bias_add(t(x), t(bc))
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.bias_add(t(x), t(b.astype(np.float64)))


def test_xw_plus_b_relu_layer_l2():
    x, w, b = randn(4, 3), randn(3, 2), randn(2)
    close(tf.nn.xw_plus_b(t(x), t(w), t(b)), x @ w + b)
    close(tf.nn.relu_layer(t(x), t(w), t(b)), np.maximum(x @ w + b, 0))
    close(tf.nn.l2_loss(t(x)), (x ** 2).sum() / 2)
    close(tf.nn.l2_normalize(t(x), 1), x / np.sqrt((x ** 2).sum(1, keepdims=True)))
    close(tf.nn.l2_normalize(t(x), dim=0), x / np.sqrt((x ** 2).sum(0, keepdims=True)))
    close(tf.math.l2_normalize(t(np.zeros(3, np.float32)), 0), np.zeros(3))


def test_moments_and_batch_normalization():
    x = randn(4, 5, 3)
    mean, var = tf.nn.moments(t(x), axes=[0, 1])
    close(mean, x.mean((0, 1)))
    close(var, x.var((0, 1)))
    mean, var = tf.nn.moments(t(x), [0, 1], keep_dims=True)
    assert mean.shape.as_list() == [1, 1, 3]
    mean, var = nn_ops.moments_v2(t(x), [0], None, True)
    assert var.shape.as_list() == [1, 5, 3]
    m, v, off, sc = x.mean((0, 1)), x.var((0, 1)), randn(3), randn(3)
    out = tf.nn.batch_normalization(t(x), t(m), t(v), t(off), t(sc), 1e-3)
    close(out, (x - m) / np.sqrt(v + 1e-3) * sc + off, 1e-4)
    out = tf.nn.batch_normalization(t(x), t(m), t(v), None, None, 1e-3)
    close(out, (x - m) / np.sqrt(v + 1e-3), 1e-4)
    counts, mean_ss, var_ss = 4.0, x.sum(0), (x ** 2).sum(0)
    mean, var = tf.nn.normalize_moments(counts, t(mean_ss), t(var_ss), None)
    close(mean, x.mean(0), 1e-5)
    close(var, x.var(0), 1e-4)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm(data_format):
    x = randn(4, 3, 5, 2) * 3 + 1
    axes = (0, 1, 2) if data_format == "NHWC" else (0, 2, 3)
    channels = x.shape[3] if data_format == "NHWC" else x.shape[1]
    scale, offset = randn(channels), randn(channels)
    bshape = [1, 1, 1, -1] if data_format == "NHWC" else [1, -1, 1, 1]
    y, mean, var = tf.nn.fused_batch_norm(t(x), t(scale), t(offset),
                                          data_format=data_format)
    m, v = x.mean(axes), x.var(axes)
    n = x.size / channels
    close(y, (x - m.reshape(bshape)) / np.sqrt(v.reshape(bshape) + 1e-3)
          * scale.reshape(bshape) + offset.reshape(bshape), 1e-4)
    close(mean, m, 1e-5)
    close(var, v * n / (n - 1), 1e-4)  # TF returns the unbiased batch variance
    y, mean2, var2 = tf.nn.fused_batch_norm(t(x), t(scale), t(offset), t(m), t(v),
                                            data_format=data_format, is_training=False)
    close(y, (x - m.reshape(bshape)) / np.sqrt(v.reshape(bshape) + 1e-3)
          * scale.reshape(bshape) + offset.reshape(bshape), 1e-4)
    close(mean2, m)
    with pytest.raises(ValueError):
        tf.nn.fused_batch_norm(t(x), t(scale), t(offset), is_training=False)


def test_fused_batch_norm_exponential_avg_factor():
    x = randn(8, 2, 2, 3)
    old_m, old_v = np.zeros(3, np.float32), np.ones(3, np.float32)
    _, mean, var = tf.nn.fused_batch_norm(t(x), t(np.ones(3, np.float32)),
                                          t(np.zeros(3, np.float32)), t(old_m), t(old_v),
                                          exponential_avg_factor=0.25)
    n = 8 * 2 * 2
    close(mean, 0.75 * old_m + 0.25 * x.mean((0, 1, 2)), 1e-5)
    close(var, 0.75 * old_v + 0.25 * x.var((0, 1, 2)) * n / (n - 1), 1e-5)


def test_lrn():
    x = randn(2, 3, 3, 7)
    r, bias, alpha, beta = 2, 1.5, 0.3, 0.75
    sq = np.zeros_like(x)
    for c in range(7):
        sq[..., c] = (x[..., max(0, c - r):c + r + 1] ** 2).sum(-1)
    expected = x / (bias + alpha * sq) ** beta
    close(tf.nn.lrn(t(x), r, bias, alpha, beta), expected, 1e-5)
    close(tf.nn.local_response_normalization(t(x), r, bias, alpha, beta), expected, 1e-5)


def test_top_k_and_in_top_k():
    x = np.array([[1.0, 5.0, 5.0, 3.0], [4.0, 4.0, 4.0, 4.0]], np.float32)
    values, indices = tf.nn.top_k(t(x), k=3)
    assert values.numpy().tolist() == [[5, 5, 3], [4, 4, 4]]
    assert indices.numpy().tolist() == [[1, 2, 3], [0, 1, 2]]  # ties: lower index first
    assert indices.dtype == tf.int32
    result = tf.math.top_k(t(x), 1)
    assert result.indices.numpy().tolist() == [[1], [0]]
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.top_k(t(x), 5)
    preds = np.array([[0.1, 0.8, 0.1], [0.5, 0.2, 0.3], [0.3, 0.3, 0.4]], np.float32)
    targets = np.array([1, 2, 0], np.int32)
    assert tf.nn.in_top_k(t(preds), t(targets), 1).numpy().tolist() == [True, False, False]
    assert tf.nn.in_top_k(t(preds), t(targets), 2).numpy().tolist() == [True, True, True]
    assert nn_ops.in_top_k_v2(t(targets), t(preds), 1).numpy().tolist() == \
        [True, False, False]
    out_of_range = tf.nn.in_top_k(t(preds), t(np.array([5, 0, 0], np.int32)), 3)
    assert out_of_range.numpy().tolist() == [False, True, True]


def test_zero_fraction():
    out = tf.nn.zero_fraction(t(np.array([0, 1, 0, 2], np.int32)))
    assert out.dtype == tf.float32 and float(out.numpy()) == 0.5


# ---------------------------------------------------------------- losses


def np_softmax_xent(labels, logits, axis=-1):
    return -(labels * np.log(np_softmax(logits, axis))).sum(axis)


def test_softmax_cross_entropy_versions():
    logits = randn(4, 5)
    labels = np_softmax(randn(4, 5))
    expected = np_softmax_xent(labels, logits)
    close(tf.nn.softmax_cross_entropy_with_logits(labels=t(labels), logits=t(logits)),
          expected)
    close(tf.nn.softmax_cross_entropy_with_logits_v2(labels=t(labels), logits=t(logits)),
          expected)
    close(nn_ops.softmax_cross_entropy_with_logits_tf2(t(labels), t(logits)), expected)
    close(tf.nn.softmax_cross_entropy_with_logits(labels=t(labels.T), logits=t(logits.T),
                                                  dim=0), expected)
    close(nn_ops.softmax_cross_entropy_with_logits_tf2(t(labels.T), t(logits.T), axis=0),
          expected)
    int_labels = np.eye(5, dtype=np.int32)[[0, 1, 2, 3]]
    close(tf.nn.softmax_cross_entropy_with_logits_v2(labels=t(int_labels), logits=t(logits)),
          np_softmax_xent(int_labels, logits))
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.softmax_cross_entropy_with_logits(t(labels), t(logits))
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=t(labels[:, :3]), logits=t(logits))


def test_softmax_cross_entropy_gradients():
    logits = torch.tensor(randn(3, 4), requires_grad=True)
    labels = torch.tensor(np_softmax(randn(3, 4)), requires_grad=True)
    loss = nn_ops.softmax_cross_entropy_with_logits._tfcompat_impl(labels=labels,
                                                                   logits=logits)
    assert not loss.sum().grad_fn is None
    g_logits, = torch.autograd.grad(loss.sum(), [logits])
    close(g_logits.numpy(), np_softmax(logits.detach().numpy()) - labels.detach().numpy())
    # v1 stops the gradient into labels; v2 lets it through
    assert torch.autograd.grad(loss.sum(), [labels], allow_unused=True,
                               retain_graph=True)[0] is None
    loss2 = nn_ops.softmax_cross_entropy_with_logits_v2._tfcompat_impl(labels=labels,
                                                                       logits=logits)
    assert torch.autograd.grad(loss2.sum(), [labels])[0] is not None


XENT_LOGITS = np.array([[1, 2, 3, 4], [0, 0, 0, 0], [-1, .5, 2, 1]], np.float32)
XENT_LABELS = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, .5, .5, 0]], np.float32)
XENT_LOSS = [3.4401898, 1.3862944, 1.2451818]             # TF's values
XENT_LOSS_FIRST_LABEL = [3.4401898, 1.3862944, 3.4951818]  # labels [1, C] for every row
XENT_LOGITS_GRAD = [[-0.9679414, 0.08714431, 0.2368828, 0.64391416],
                    [0.25, 0.25, -0.75, 0.25],
                    [0.03034323, -0.36401108, 0.10946012, 0.22420782]]


@pytest.mark.parametrize("xent", [tf.nn.softmax_cross_entropy_with_logits_v2,
                                  tf.compat.v2.nn.softmax_cross_entropy_with_logits,
                                  tf.compat.v1.nn.softmax_cross_entropy_with_logits])
def test_softmax_cross_entropy_flattens_and_broadcasts_labels(xent):
    """TF flattens labels and logits to [-1, classes] and broadcasts the two matrices:
    labels [1, N, C] fit logits [N, C], labels [C] or [1, C] serve every row."""
    close(xent(labels=XENT_LABELS[None], logits=XENT_LOGITS), XENT_LOSS)
    close(xent(labels=XENT_LABELS, logits=XENT_LOGITS[None]), [XENT_LOSS])
    close(xent(labels=XENT_LABELS[:1], logits=XENT_LOGITS), XENT_LOSS_FIRST_LABEL)
    close(xent(labels=XENT_LABELS[0], logits=XENT_LOGITS), XENT_LOSS_FIRST_LABEL)
    with pytest.raises(errors.InvalidArgumentError, match="broadcastable"):
        xent(labels=XENT_LABELS[:2, None], logits=XENT_LOGITS)
    with pytest.raises(errors.InvalidArgumentError, match="reshape"):
        xent(labels=XENT_LABELS, logits=XENT_LOGITS[:1])


def test_softmax_cross_entropy_broadcast_labels_in_a_graph_with_gradients():
    with tf.Graph().as_default():
        logits = tf.compat.v1.placeholder(tf.float32, [None, 4])
        labels = tf.compat.v1.placeholder(tf.float32, [1, None, 4])
        loss = tf.compat.v1.nn.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                    logits=logits)
        assert loss.shape.as_list() == [None]
        v1_loss = tf.compat.v1.nn.softmax_cross_entropy_with_logits(labels=labels,
                                                                    logits=logits)
        grads = tf.compat.v1.gradients(tf.reduce_sum(loss), [logits, labels])
        v1_grads = tf.compat.v1.gradients(tf.reduce_sum(v1_loss), [logits])
        with tf.compat.v1.Session() as sess:
            out, g_logits, g_labels, v1_g_logits = sess.run(
                [loss, grads[0], grads[1], v1_grads[0]],
                {logits: XENT_LOGITS, labels: XENT_LABELS[None]})
    close(out, XENT_LOSS)
    close(g_logits, XENT_LOGITS_GRAD)
    close(v1_g_logits, XENT_LOGITS_GRAD)
    log_softmax = XENT_LOGITS - np.log(np.exp(XENT_LOGITS).sum(-1, keepdims=True))
    close(g_labels, -log_softmax[None])


def test_softmax_cross_entropy_broadcast_labels_eager_gradients():
    logits = tf.Variable(XENT_LOGITS)
    labels = tf.Variable(XENT_LABELS[:1])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.compat.v2.nn.softmax_cross_entropy_with_logits(labels, logits))
    g_logits, g_labels = tape.gradient(loss, [logits, labels])
    close(g_logits, np.exp(XENT_LOGITS) / np.exp(XENT_LOGITS).sum(-1, keepdims=True)
          - XENT_LABELS[:1])
    log_softmax = XENT_LOGITS - np.log(np.exp(XENT_LOGITS).sum(-1, keepdims=True))
    close(g_labels, -log_softmax.sum(0, keepdims=True))     # summed over the rows it served


def test_sparse_softmax_cross_entropy():
    logits = randn(4, 5)
    labels = np.array([0, 4, 2, 1], np.int64)
    expected = -np.log(np_softmax(logits))[np.arange(4), labels]
    close(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t(labels), logits=t(logits)),
          expected)
    close(nn_ops.sparse_softmax_cross_entropy_with_logits_v2(t(labels.astype(np.int32)),
                                                              t(logits)), expected)
    logits3 = randn(2, 3, 5)
    labels3 = rng.randint(0, 5, (2, 3)).astype(np.int32)
    expected3 = -np.log(np_softmax(logits3)).reshape(6, 5)[np.arange(6), labels3.reshape(-1)]
    close(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t(labels3), logits=t(logits3)),
          expected3.reshape(2, 3))
    with pytest.raises(errors.InvalidArgumentError, match="valid range"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t(np.array([0, 5, 1, 1])),
                                                       logits=t(logits))
    with pytest.raises(ValueError, match="Rank mismatch"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t(np.zeros((4, 5), np.int32)),
                                                       logits=t(logits))
    with pytest.raises(TypeError):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t(np.zeros(4, np.float32)),
                                                       logits=t(logits))


def test_sigmoid_and_weighted_cross_entropy():
    x = np.array([-100.0, -2.0, 0.0, 3.0, 100.0], np.float32)
    z = np.array([0.0, 1.0, 0.5, 0.0, 1.0], np.float32)
    expected = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    close(tf.nn.sigmoid_cross_entropy_with_logits(labels=t(z), logits=t(x)), expected)
    close(nn_ops.sigmoid_cross_entropy_with_logits_v2(t(z), t(x)), expected)
    assert np.isfinite(tf.nn.sigmoid_cross_entropy_with_logits(labels=t(z),
                                                               logits=t(x)).numpy()).all()
    with pytest.raises(ValueError):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=t(z[:3]), logits=t(x))
    q = 3.0
    weighted = (1 - z) * x + (1 + (q - 1) * z) * (np.log1p(np.exp(-np.abs(x)))
                                                   + np.maximum(-x, 0))
    close(tf.nn.weighted_cross_entropy_with_logits(t(z), t(x), q), weighted, 1e-4)
    close(nn_ops.weighted_cross_entropy_with_logits_v2(labels=t(z), logits=t(x),
                                                        pos_weight=q), weighted, 1e-4)


def test_log_poisson_loss():
    c = np.array([0.5, 1.0, -1.0], np.float32)
    z = np.array([0.0, 3.0, 1.0], np.float32)
    close(tf.nn.log_poisson_loss(t(z), t(c)), np.exp(c) - z * c)
    with np.errstate(divide="ignore", invalid="ignore"):
        stirling = np.where(z > 1, z * np.log(z) - z + 0.5 * np.log(2 * np.pi * z), 0)
    close(tf.nn.log_poisson_loss(t(z), t(c), compute_full_loss=True),
          np.exp(c) - z * c + stirling, 1e-5)


def test_sampled_losses():
    tf.set_random_seed(3)
    weights, biases = randn(50, 8), randn(50)
    inputs, labels = randn(6, 8), rng.randint(0, 50, (6, 1)).astype(np.int64)
    loss = tf.nn.nce_loss(t(weights), t(biases), t(labels), t(inputs), 10, 50)
    assert loss.shape.as_list() == [6] and np.isfinite(loss.numpy()).all()
    assert (loss.numpy() > 0).all()
    loss = tf.nn.sampled_softmax_loss(t(weights), t(biases), t(labels), t(inputs), 10, 50)
    assert loss.shape.as_list() == [6] and (loss.numpy() > 0).all()
    sampled, true_exp, sampled_exp = tf.random.log_uniform_candidate_sampler(
        t(labels), 1, 10, True, 50)
    assert len(set(sampled.numpy().tolist())) == 10 and sampled.dtype == tf.int64
    assert true_exp.shape.as_list() == [6, 1] and (sampled_exp.numpy() <= 1).all()
    # sampled_values given: the loss equals a hand computation
    sv = (t(np.arange(3, dtype=np.int64)), t(np.ones((6, 1), np.float32)),
          t(np.ones(3, np.float32)))
    loss = tf.nn.sampled_softmax_loss(t(weights), t(biases), t(labels), t(inputs), 3, 50,
                                      sampled_values=sv, remove_accidental_hits=False)
    true_logit = (inputs * weights[labels[:, 0]]).sum(1) + biases[labels[:, 0]]
    sampled_logits = inputs @ weights[:3].T + biases[:3]
    all_logits = np.concatenate([true_logit[:, None], sampled_logits], 1)
    close(loss, -np.log(np_softmax(all_logits))[:, 0], 1e-4)


def test_sampled_losses_in_a_graph_with_placeholders():
    # nlintz/TensorFlow-Tutorials 08_word2vec.py: nce_loss over placeholders in a TF1 graph.
    with tf.Graph().as_default():
        inputs = tf.compat.v1.placeholder(tf.float32, [None, 8])
        labels = tf.compat.v1.placeholder(tf.int64, [None, 1])
        weights, biases = tf.constant(randn(50, 8)), tf.constant(randn(50))
        nce = tf.nn.nce_loss(weights, biases, labels, inputs, 10, 50)
        softmax = tf.nn.sampled_softmax_loss(weights, biases, labels, inputs, 10, 50)
        sampled, _, _ = tf.random.log_uniform_candidate_sampler(labels, 1, 10, True, 50)
        assert nce.shape.as_list() == [None] and sampled.shape.as_list() == [10]
        feed = {inputs: randn(6, 8), labels: rng.randint(0, 50, (6, 1)).astype(np.int64)}
        with tf.compat.v1.Session() as sess:
            nce_value, softmax_value, sampled_value = sess.run([nce, softmax, sampled], feed)
    assert nce_value.shape == (6,) and (nce_value > 0).all()
    assert softmax_value.shape == (6,) and (softmax_value > 0).all()
    assert len(set(sampled_value.tolist())) == 10


# ---------------------------------------------------------------- convolution


def tf_pads(size, k, s, d=1):
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


def ref_conv2d_nhwc(x, w, strides, padding, dilations=(1, 1)):
    """Hand layout + hand padding + torch conv with no padding."""
    xc = torch.tensor(x).permute(0, 3, 1, 2).contiguous()
    wc = torch.tensor(w).permute(3, 2, 0, 1).contiguous()
    if padding == "SAME":
        ph = tf_pads(x.shape[1], w.shape[0], strides[0], dilations[0])
        pw = tf_pads(x.shape[2], w.shape[1], strides[1], dilations[1])
        xc = F.pad(xc, [pw[0], pw[1], ph[0], ph[1]])
    y = F.conv2d(xc, wc, stride=strides, dilation=dilations)
    return y.permute(0, 2, 3, 1).numpy()


@pytest.mark.parametrize("size, k, s, d, padding", [
    (7, 3, 2, 1, "SAME"), (8, 3, 2, 1, "SAME"), (8, 4, 3, 1, "SAME"), (9, 2, 1, 1, "SAME"),
    (7, 3, 1, 2, "SAME"), (7, 3, 2, 1, "VALID"), (6, 5, 1, 1, "VALID"),
])
def test_conv2d_against_hand_padding(size, k, s, d, padding):
    x, w = randn(2, size, size + 1, 3), randn(k, k, 3, 4)
    expected = ref_conv2d_nhwc(x, w, (s, s), padding, (d, d))
    out = tf.nn.conv2d(t(x), t(w), strides=[1, s, s, 1], padding=padding,
                       dilations=[1, d, d, 1])
    close(out, expected, 1e-4)
    assert out._t.is_contiguous()  # NHWC result with no copy back
    out = nn_ops.conv2d_v2(t(x), t(w), s, padding, dilations=d)
    close(out, expected, 1e-4)
    out_nchw = tf.nn.conv2d(t(x.transpose(0, 3, 1, 2)), t(w), [1, 1, s, s], padding,
                            data_format="NCHW", dilations=[1, 1, d, d])
    close(out_nchw, expected.transpose(0, 3, 1, 2), 1e-4)


def test_conv2d_explicit_padding_and_errors():
    x, w = randn(1, 5, 5, 2), randn(3, 3, 2, 1)
    xp = np.pad(x, [(0, 0), (2, 0), (1, 1), (0, 0)])
    out = tf.nn.conv2d(t(x), t(w), 1, [[0, 0], [2, 0], [1, 1], [0, 0]])
    close(out, ref_conv2d_nhwc(xp, w, (1, 1), "VALID"), 1e-4)
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.conv2d(t(x), t(randn(3, 3, 3, 1)), 1, "SAME")
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.conv2d(t(x), t(w), [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError):
        tf.nn.conv2d(t(x), t(w), 1, "FULL")
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.conv2d(t(x), t(w.astype(np.float64)), 1, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="negative"):
        tf.nn.conv2d(t(x[:, :2]), t(w), 1, "VALID")


def test_conv1d_conv3d_convolution():
    x, w = randn(2, 9, 3), randn(3, 3, 4)
    expected = ref_conv2d_nhwc(x[:, None], w[None], (1, 2), "SAME")[:, 0]
    close(tf.nn.conv1d(t(x), t(w), 2, "SAME"), expected, 1e-4)
    close(nn_ops.conv1d_v2(t(x), t(w), 2, "SAME"), expected, 1e-4)
    close(tf.nn.convolution(t(x), t(w), "SAME", strides=[2]), expected, 1e-4)
    x3, w3 = randn(1, 5, 6, 7, 2), randn(2, 3, 3, 2, 3)
    xc = torch.tensor(x3).permute(0, 4, 1, 2, 3)
    pads = [tf_pads(5, 2, 2), tf_pads(6, 3, 2), tf_pads(7, 3, 2)]
    xc = F.pad(xc, [pads[2][0], pads[2][1], pads[1][0], pads[1][1], pads[0][0], pads[0][1]])
    ref = F.conv3d(xc, torch.tensor(w3).permute(4, 3, 0, 1, 2), stride=2)
    close(tf.nn.conv3d(t(x3), t(w3), [1, 2, 2, 2, 1], "SAME"),
          ref.permute(0, 2, 3, 4, 1).numpy(), 1e-4)
    x2, w2 = randn(1, 6, 6, 2), randn(3, 3, 2, 2)
    close(tf.nn.atrous_conv2d(t(x2), t(w2), 2, "SAME"),
          ref_conv2d_nhwc(x2, w2, (1, 1), "SAME", (2, 2)), 1e-4)


def test_depthwise_and_separable():
    x, dw = randn(2, 6, 5, 3), randn(3, 3, 3, 2)
    out = tf.nn.depthwise_conv2d(t(x), t(dw), [1, 1, 1, 1], "SAME").numpy()
    assert out.shape == (2, 6, 5, 6)
    for c in range(3):
        for m in range(2):
            ref = ref_conv2d_nhwc(x[..., c:c + 1], dw[:, :, c:c + 1, m:m + 1], (1, 1), "SAME")
            close(out[..., c * 2 + m], ref[..., 0], 1e-4)
    pw = randn(1, 1, 6, 4)
    sep = tf.nn.separable_conv2d(t(x), t(dw), t(pw), [1, 1, 1, 1], "SAME")
    close(sep, out @ pw[0, 0], 1e-4)
    with pytest.raises(ValueError):
        tf.nn.depthwise_conv2d(t(x), t(dw), [1, 2, 2, 1], "SAME", rate=[2, 2])


@pytest.mark.parametrize("size, k, s, padding", [
    (7, 3, 2, "SAME"), (8, 3, 2, "SAME"), (8, 4, 2, "SAME"), (9, 3, 3, "VALID"),
    (10, 3, 2, "VALID"), (5, 1, 1, "SAME"),
])
def test_conv2d_transpose_is_conv_gradient(size, k, s, padding):
    # conv2d_transpose(y) equals the gradient of <conv2d(x), y> w.r.t. x (TF's definition)
    x = torch.tensor(randn(2, size, size, 3), requires_grad=True)
    w = torch.tensor(randn(k, k, 3, 4))
    y = nn_ops.conv2d._tfcompat_impl(x, w, [1, s, s, 1], padding)
    g = torch.tensor(randn(*y.shape))
    expected, = torch.autograd.grad((y * g).sum(), [x])
    out = tf.nn.conv2d_transpose(t(g.numpy()), t(w.numpy()), [2, size, size, 3],
                                 [1, s, s, 1], padding)
    close(out, expected.numpy(), 1e-4)
    out_v2 = nn_ops.conv2d_transpose_v2(t(g.numpy()), t(w.numpy()), t([2, size, size, 3]), s,
                                        padding)
    close(out_v2, expected.numpy(), 1e-4)


def test_conv_transpose_errors_and_1d():
    g, w = randn(1, 4, 4, 2), randn(3, 3, 5, 2)
    with pytest.raises(errors.InvalidArgumentError, match="doesn't match"):
        tf.nn.conv2d_transpose(t(g), t(w), [1, 12, 12, 5], [1, 2, 2, 1], "SAME")
    with pytest.raises(ValueError):
        tf.nn.conv2d_transpose(t(g), t(w), [1, 8, 8, 4], [1, 2, 2, 1], "SAME")
    x = torch.tensor(randn(2, 9, 3), requires_grad=True)
    w1 = torch.tensor(randn(3, 3, 4))
    y = nn_ops.conv1d._tfcompat_impl(x, w1, 2, "SAME")
    gy = torch.tensor(randn(*y.shape))
    expected, = torch.autograd.grad((y * gy).sum(), [x])
    close(tf.nn.conv1d_transpose(t(gy.numpy()), t(w1.numpy()), [2, 9, 3], 2), expected.numpy(),
          1e-4)


# ---------------------------------------------------------------- pooling


def ref_pool(x, k, s, padding, kind):
    """Loop reference on NHWC: SAME windows clipped to the input (padding never counted)."""
    n, h, w, c = x.shape
    if padding == "SAME":
        (pt, _), (pl, _) = tf_pads(h, k[0], s[0]), tf_pads(w, k[1], s[1])
        oh, ow = -(-h // s[0]), -(-w // s[1])
    else:
        pt = pl = 0
        oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
    out = np.zeros((n, oh, ow, c), np.float32)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - pt, j * s[1] - pl
            win = x[:, max(r0, 0):r0 + k[0], max(c0, 0):c0 + k[1]]
            out[:, i, j] = win.max((1, 2)) if kind == "MAX" else win.mean((1, 2))
    return out


@pytest.mark.parametrize("size, k, s, padding", [
    (7, 2, 2, "SAME"), (8, 3, 2, "SAME"), (7, 3, 2, "SAME"), (5, 3, 1, "SAME"),
    (9, 4, 3, "SAME"), (7, 3, 2, "VALID"), (8, 2, 2, "VALID"),
])
def test_pools_against_loops(size, k, s, padding):
    x = randn(2, size, size + 2, 3)
    for kind, fn in (("MAX", tf.nn.max_pool), ("AVG", tf.nn.avg_pool)):
        expected = ref_pool(x, (k, k), (s, s), padding, kind)
        close(fn(t(x), [1, k, k, 1], [1, s, s, 1], padding), expected, 1e-5)
        nchw = fn(t(x.transpose(0, 3, 1, 2)), [1, 1, k, k], [1, 1, s, s], padding,
                  data_format="NCHW")
        close(nchw, expected.transpose(0, 3, 1, 2), 1e-5)
    close(nn_ops.max_pool_v2(t(x), k, s, padding), ref_pool(x, (k, k), (s, s), padding, "MAX"))
    close(tf.nn.avg_pool2d(t(x), k, s, padding), ref_pool(x, (k, k), (s, s), padding, "AVG"),
          1e-5)
    close(tf.nn.pool(t(x), [k, k], "AVG", padding, strides=[s, s]),
          ref_pool(x, (k, k), (s, s), padding, "AVG"), 1e-5)


def test_pool_1d_3d_and_errors():
    x = randn(2, 9, 3)
    expected = ref_pool(x[:, None], (1, 3), (1, 2), "SAME", "MAX")[:, 0]
    close(tf.nn.max_pool1d(t(x), 3, 2, "SAME"), expected)
    expected = ref_pool(x[:, None], (1, 3), (1, 2), "SAME", "AVG")[:, 0]
    close(tf.nn.avg_pool1d(t(x), 3, 2, "SAME"), expected, 1e-6)
    x3 = randn(1, 4, 5, 5, 2)
    out = tf.nn.max_pool3d(t(x3), 2, 2, "SAME").numpy()
    assert out.shape == (1, 2, 3, 3, 2)
    assert out[0, 1, 2, 2, 1] == x3[0, 2:4, 4:, 4:, 1].max()
    out = tf.nn.avg_pool3d(t(x3), 2, 2, "SAME").numpy()
    close(out[0, 1, 2, 2], x3[0, 2:4, 4:, 4:].mean((0, 1, 2)), 1e-6)
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.max_pool(t(randn(1, 4, 4, 2)), [2, 2, 2, 1], [1, 2, 2, 1], "SAME")
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.max_pool(t(randn(1, 2, 2, 1)), [1, 3, 3, 1], [1, 1, 1, 1], "VALID")


def test_max_pool_with_argmax():
    x = randn(2, 5, 5, 3)
    values, argmax = tf.nn.max_pool_with_argmax(t(x), [1, 2, 2, 1], [1, 2, 2, 1], "SAME",
                                                include_batch_in_index=True)
    close(values, ref_pool(x, (2, 2), (2, 2), "SAME", "MAX"))
    assert argmax.dtype == tf.int64
    np.testing.assert_array_equal(x.reshape(-1)[argmax.numpy()], values.numpy())
    _, argmax = tf.nn.max_pool_with_argmax(t(x), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    np.testing.assert_array_equal(x[1].reshape(-1)[argmax.numpy()[1]],
                                  ref_pool(x, (2, 2), (2, 2), "VALID", "MAX")[1])


# ---------------------------------------------------------------- dropout


def test_dropout_scaling_and_rate():
    tf.set_random_seed(1)
    x = np.ones((200, 100), np.float32)
    out = tf.nn.dropout(t(x), 0.8).numpy()  # v1: keep_prob positional
    kept = out != 0
    close(out[kept], np.full(kept.sum(), 1 / 0.8), 1e-6)
    assert 0.75 < kept.mean() < 0.85
    out = tf.nn.dropout(t(x), rate=0.3).numpy()
    assert 0.65 < (out != 0).mean() < 0.75
    close(out[out != 0], np.full((out != 0).sum(), 1 / 0.7), 1e-6)
    out = nn_ops.dropout_v2(t(x), 0.3).numpy()  # v2: rate positional
    assert 0.65 < (out != 0).mean() < 0.75
    close(tf.nn.dropout(t(x), 1.0), x)
    close(nn_ops.dropout_v2(t(x), 0.0), x)
    out = tf.nn.dropout(t(x), t(np.float32(0.5))).numpy()  # tensor keep_prob
    assert 0.45 < (out != 0).mean() < 0.55 and set(np.unique(out)) <= {0.0, 2.0}


def test_dropout_errors():
    x = t(np.ones((3, 3), np.float32))
    with pytest.raises(ValueError):
        nn_ops.dropout_v2(x, 1.0)
    with pytest.raises(ValueError):
        nn_ops.dropout_v2(x, -0.1)
    with pytest.raises(ValueError):
        tf.nn.dropout(x, keep_prob=0.0)
    with pytest.raises(ValueError):
        tf.nn.dropout(x, keep_prob=0.5, rate=0.5)
    with pytest.raises(ValueError):
        tf.nn.dropout(x)
    with pytest.raises(ValueError):
        nn_ops.dropout_v2(t(np.ones(3, np.int32)), 0.5)


def test_dropout_noise_shape_and_seed():
    x = np.ones((50, 4, 8), np.float32)
    out = tf.nn.dropout(t(x), rate=0.5, noise_shape=[50, 1, 8]).numpy()
    assert (out == out[:, :1, :]).all()  # one mask shared along axis 1
    out = tf.nn.dropout(t(x), rate=0.5, noise_shape=t([50, 1, 1])).numpy()
    assert (out == out[:, :1, :1]).all()
    out = tf.nn.dropout(t(x), rate=0.5, noise_shape=[None, 1, 8]).numpy()
    assert (out == out[:, :1, :]).all()
    tf.set_random_seed(5)
    a = [tf.nn.dropout(t(x), rate=0.5, seed=2).numpy() for _ in range(2)]
    tf.set_random_seed(5)
    b = [tf.nn.dropout(t(x), rate=0.5, seed=2).numpy() for _ in range(2)]
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1])  # fresh draws on every call


# ---------------------------------------------------------------- embeddings


def test_embedding_lookup_single_and_partitioned():
    params = randn(10, 3)
    ids = np.array([[0, 9], [4, 4]], np.int32)
    close(tf.nn.embedding_lookup(t(params), t(ids)), params[ids])
    # "mod": id i lives in partition i % 3 at row i // 3
    parts_mod = [params[p::3] for p in range(3)]
    close(tf.nn.embedding_lookup([t(p) for p in parts_mod], t(ids)), params[ids])
    # "div": contiguous blocks, the first 10 % 3 partitions one row longer
    parts_div = [params[0:4], params[4:7], params[7:10]]
    close(tf.nn.embedding_lookup([t(p) for p in parts_div], t(ids), partition_strategy="div"),
          params[ids])
    close(nn_ops.embedding_lookup_v2([t(p) for p in parts_div], t(ids)), params[ids])
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.embedding_lookup(t(params), t(np.array([10], np.int32)))
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.embedding_lookup([t(p) for p in parts_mod], t(np.array([10], np.int32)))
    with pytest.raises(errors.InvalidArgumentError):
        tf.nn.embedding_lookup([t(p) for p in parts_div], t(np.array([10], np.int32)),
                               partition_strategy="div")
    with pytest.raises(TypeError):
        tf.nn.embedding_lookup(t(params), t(np.array([1.0], np.float32)))


def test_embedding_lookup_max_norm_and_gradient():
    params = np.array([[3.0, 4.0], [0.3, 0.4]], np.float32)
    out = tf.nn.embedding_lookup(t(params), t(np.array([0, 1], np.int32)), max_norm=1.0)
    close(out, [[0.6, 0.8], [0.3, 0.4]])
    close(params, [[3.0, 4.0], [0.3, 0.4]])  # params untouched
    p = torch.tensor(randn(5, 2), requires_grad=True)
    out = nn_ops._embedding_lookup_op._tfcompat_impl(p, torch.tensor([1, 1, 3]))
    grad, = torch.autograd.grad(out.sum(), [p])
    assert grad[:, 0].tolist() == [0, 2, 0, 1, 0]


def test_conv2d_nhwc_uses_channels_last():
    x = torch.randn(2, 8, 8, 3)
    w = torch.randn(3, 3, 3, 5)
    y = nn_ops.conv2d._tfcompat_impl(x, w, 1, "SAME")
    assert y.is_contiguous() and y.shape == (2, 8, 8, 5)
    p = nn_ops.max_pool._tfcompat_impl(y, 2, 2, "SAME")
    assert p.is_contiguous() and p.shape == (2, 4, 4, 5)


@pytest.mark.parametrize("pad", ["conv", "max_pool", "tf.pad"])
def test_asymmetric_padding_keeps_nhwc_layout_forward_and_backward(pad):
    """A stride-2 SAME window pads 0 before and 1 after. The padded input and its gradient
    stay NHWC-contiguous: a gradient in NCHW order made every later elementwise op with it
    mix layouts (an add 9x, a relu gradient 27x slower)."""
    x = torch.randn(2, 8, 8, 3, requires_grad=True)
    w = torch.randn(3, 3, 3, 5)
    padded = {"conv": lambda: nn_ops.conv2d._tfcompat_impl(x, w, 2, "SAME"),
              "max_pool": lambda: nn_ops.max_pool._tfcompat_impl(x, 3, 2, "SAME"),
              "tf.pad": lambda: array_ops.pad._tfcompat_impl(
                  x, [[0, 0], [0, 1], [0, 1], [0, 0]])}[pad]()
    grad, = torch.autograd.grad((padded * padded).sum(), [x])
    assert padded.is_contiguous() and grad.is_contiguous()
    if pad == "conv":
        expected = F.conv2d(F.pad(x.detach().permute(0, 3, 1, 2), (0, 1, 0, 1)),
                            w.permute(3, 2, 0, 1), stride=2).permute(0, 2, 3, 1)
        assert torch.allclose(padded, expected, atol=1e-5)


# ---------------------------------------------------------------- graph-mode shape inference


def _symbolic_batch_outputs(fn, *shapes_and_dtypes):
    """Run an op's torch function on fake inputs whose first dim is symbolic (as graph mode
    does for a None batch) and return the output and the guards it added."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import (DimDynamic, ShapeEnv,
                                                       StatelessSymbolicContext)
    env = ShapeEnv()
    mode = FakeTensorMode(shape_env=env, allow_non_fake_inputs=True)
    fakes = []
    for shape, dtype in shapes_and_dtypes:
        ctx = StatelessSymbolicContext(
            dynamic_sizes=[DimDynamic.DYNAMIC] + [DimDynamic.STATIC] * (len(shape) - 1))
        fakes.append(mode.from_tensor(torch.zeros(shape, dtype=dtype), symbolic_context=ctx))
    with mode:
        out = fn(*fakes)
    return out, [str(g.expr) for g in env.guards]


IMG = ((3, 9, 10, 4), torch.float32)
SYMBOLIC_CASES = {
    "conv2d_same_stride2": (lambda x: nn_ops.conv2d._tfcompat_impl(
        x, torch.ones(3, 3, 4, 2), [1, 2, 2, 1], "SAME"), IMG),
    "max_pool_same": (lambda x: nn_ops.max_pool._tfcompat_impl(x, 3, 2, "SAME"), IMG),
    "avg_pool_same": (lambda x: nn_ops.avg_pool._tfcompat_impl(x, 3, 2, "SAME"), IMG),
    "depthwise": (lambda x: nn_ops.depthwise_conv2d._tfcompat_impl(
        x, torch.ones(3, 3, 4, 2), [1, 2, 2, 1], "SAME"), IMG),
    "lrn": (lambda x: nn_ops.local_response_normalization._tfcompat_impl(x, 2), IMG),
    "fused_bn": (lambda x: nn_ops.fused_batch_norm._tfcompat_impl(
        x, torch.ones(4), torch.zeros(4))[0], IMG),
    "dropout": (lambda x: nn_ops.dropout._tfcompat_impl(x, 0.5), IMG),
    "dropout_tensor_rate": (lambda x: nn_ops.dropout_v2._tfcompat_impl(
        x, torch.tensor(0.5)), IMG),
    "sparse_xent": (lambda x, y: nn_ops.sparse_softmax_cross_entropy_with_logits_v2.
                    _tfcompat_impl(y, x), ((5, 7), torch.float32), ((5,), torch.int64)),
    "softmax_xent": (lambda x: nn_ops.softmax_cross_entropy_with_logits_tf2._tfcompat_impl(
        x, x), ((5, 7), torch.float32)),
    "top_k": (lambda x: nn_ops.top_k._tfcompat_impl(x, 2).indices, ((5, 7), torch.float32)),
    "embedding": (lambda ids: nn_ops._embedding_lookup_op._tfcompat_impl(torch.ones(10, 3), ids),
                  ((5,), torch.int64)),
}


@pytest.mark.parametrize("name", sorted(SYMBOLIC_CASES))
def test_ops_keep_an_unknown_batch_dimension_symbolic(name):
    fn, *inputs = SYMBOLIC_CASES[name]
    out, guards = _symbolic_batch_outputs(fn, *inputs)
    assert not isinstance(out.shape[0], int), (out.shape, guards)
