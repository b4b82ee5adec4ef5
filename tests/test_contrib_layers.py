"""tf.contrib.layers (and its slim aliases) against TF 1.15's definitions: variable names and
collections, values checked with numpy / torch references, graph and eager mode."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import context

layers = tf.contrib.layers
slim = tf.contrib.slim
RNG = np.random.RandomState(0)


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


@pytest.fixture
def eager():
    with context.eager_scope():
        yield


def _names(variables):
    return [v.name for v in variables]


def _run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


# ---------------------------------------------------------------- fully_connected


def test_fully_connected_variables_collections_and_value(graph):
    x = RNG.randn(4, 5).astype(np.float32)
    y = layers.fully_connected(tf.constant(x), 3)
    assert _names(tf.global_variables()) == ["fully_connected/weights:0",
                                             "fully_connected/biases:0"]
    assert _names(tf.trainable_variables()) == _names(tf.global_variables())
    assert _names(tf.model_variables()) == _names(tf.global_variables())
    assert tf.global_variables()[0].shape.as_list() == [5, 3]
    out, w, b = _run([y] + tf.global_variables())
    np.testing.assert_allclose(out, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)
    assert not b.any()
    limit = math.sqrt(6.0 / (5 + 3))                     # xavier_initializer(uniform=True)
    assert np.abs(w).max() <= limit


def test_fully_connected_scopes_reuse_and_no_biases_with_normalizer(graph):
    x = tf.placeholder(tf.float32, [None, 4])
    layers.fully_connected(x, 2, scope="fc")
    layers.fully_connected(x, 2, scope="fc", reuse=True)
    layers.fully_connected(x, 2)
    layers.fully_connected(x, 2)
    with tf.variable_scope("outer"):
        layers.fully_connected(x, 2, normalizer_fn=lambda t: t, activation_fn=None)
        layers.fully_connected(x, 2, biases_initializer=None)
    assert _names(tf.global_variables()) == [
        "fc/weights:0", "fc/biases:0", "fully_connected/weights:0", "fully_connected/biases:0",
        "fully_connected_1/weights:0", "fully_connected_1/biases:0",
        "outer/fully_connected/weights:0", "outer/fully_connected_1/weights:0"]


def test_fully_connected_rank3_regularizer_and_collections(graph):
    x = RNG.randn(2, 3, 4).astype(np.float32)
    y = layers.fully_connected(tf.constant(x), 5, activation_fn=None,
                               weights_regularizer=layers.l2_regularizer(0.5),
                               variables_collections=["my_vars"], outputs_collections="outs")
    assert y.shape.as_list() == [2, 3, 5]
    assert tf.get_collection("outs") == [y]
    assert _names(tf.get_collection("my_vars")) == ["fully_connected/weights:0",
                                                    "fully_connected/biases:0"]
    (loss,) = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    out, reg, w = _run([y, loss, tf.global_variables()[0]])
    np.testing.assert_allclose(out, x @ w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(reg, 0.5 * (w ** 2).sum() / 2, rtol=1e-5)


def test_fully_connected_rejects_non_integer_outputs(graph):
    with pytest.raises(ValueError, match="num_outputs type should be one of"):
        layers.fully_connected(tf.zeros([2, 3]), 2.0)


def test_fully_connected_eager_creates_variables_each_call(eager):
    x = RNG.randn(3, 4).astype(np.float32)
    y = layers.fully_connected(x, 2, activation_fn=tf.nn.sigmoid, scope="fc")
    assert y.shape == (3, 2)
    assert np.all((y.numpy() > 0) & (y.numpy() < 1))


# ---------------------------------------------------------------- convolutions and pooling


def _torch_conv(x, w, stride, padding, dilation=1):
    return torch.nn.functional.conv2d(
        torch.from_numpy(x).permute(0, 3, 1, 2), torch.from_numpy(w).permute(3, 2, 0, 1),
        stride=stride, padding=padding, dilation=dilation).permute(0, 2, 3, 1).numpy()


@pytest.mark.parametrize("kwargs,stride,padding,dilation,out_hw", [
    ({}, 1, 1, 1, 6),
    ({"padding": "VALID"}, 1, 0, 1, 4),
    ({"rate": 2}, 1, 2, 2, 6),
])
def test_conv2d_names_shapes_and_values(graph, kwargs, stride, padding, dilation, out_hw):
    x = RNG.randn(2, 6, 6, 3).astype(np.float32)
    y = slim.conv2d(tf.constant(x), 4, [3, 3], activation_fn=None,
                    biases_initializer=tf.constant_initializer(0.25), **kwargs)
    assert _names(tf.global_variables()) == ["Conv/weights:0", "Conv/biases:0"]
    assert tf.global_variables()[0].shape.as_list() == [3, 3, 3, 4]
    out, w = _run([y, tf.global_variables()[0]])
    assert out.shape == (2, out_hw, out_hw, 4)
    np.testing.assert_allclose(out, _torch_conv(x, w, stride, padding, dilation) + 0.25,
                               rtol=1e-4, atol=1e-5)


def test_convolution_dispatches_on_rank_and_checks_it(graph):
    assert layers.convolution(tf.zeros([1, 8, 3]), 2, 3).shape.as_list() == [1, 8, 2]
    assert layers.conv3d(tf.zeros([1, 4, 4, 4, 1]), 2, 3).shape.as_list() == [1, 4, 4, 4, 2]
    with pytest.raises(ValueError, match="Convolution expects input with rank 4, got 3"):
        layers.conv2d(tf.zeros([1, 8, 3]), 2, 3)
    with pytest.raises(ValueError, match="Invalid data_format"):
        layers.conv2d(tf.zeros([1, 8, 8, 3]), 2, 3, data_format="HWNC")


def test_conv2d_transpose_kernel_layout_and_output_shape(graph):
    y = layers.conv2d_transpose(tf.zeros([2, 5, 5, 3]), 4, [3, 3], stride=2)
    assert y.shape.as_list() == [2, 10, 10, 4]
    assert [(v.name, v.shape.as_list()) for v in tf.global_variables()] == [
        ("Conv2d_transpose/weights:0", [3, 3, 4, 3]), ("Conv2d_transpose/biases:0", [4])]


@pytest.mark.parametrize("fn,reduce", [(layers.max_pool2d, np.max),
                                       (layers.avg_pool2d, np.mean)])
def test_pooling_defaults_are_stride_2_valid(graph, fn, reduce):
    x = RNG.randn(2, 5, 5, 3).astype(np.float32)
    out = _run(fn(tf.constant(x), [2, 2]))
    expected = reduce(x[:, :4, :4, :].reshape(2, 2, 2, 2, 2, 3), axis=(2, 4))
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_flatten_and_one_hot_encoding(graph):
    x = tf.placeholder(tf.float32, [None, 2, 3, 4])
    assert layers.flatten(x).shape.as_list() == [None, 24]
    with pytest.raises(ValueError, match="at least 2 dimensions|a least 2 dimensions"):
        layers.flatten(tf.zeros([3]))
    one_hot = layers.one_hot_encoding(tf.constant([0, 2], tf.int32), 3, on_value=2.0)
    assert one_hot.dtype == tf.float32
    np.testing.assert_array_equal(_run(one_hot), [[2, 0, 0], [0, 0, 2]])


# ---------------------------------------------------------------- batch_norm


def _moments(x, axes):
    return x.mean(axis=axes), x.var(axis=axes)


@pytest.mark.parametrize("shape,data_format,bessel", [
    ((8, 3), "NHWC", True),             # TF's fused kernel: unbiased variance for the update
    ((4, 3, 3, 2), "NHWC", True),
    ((4, 2, 3, 3), "NCHW", True),
    ((4, 5, 2), "NHWC", False),         # rank 3: TF's layer path, biased variance
])
def test_batch_norm_training_output_and_update_ops(graph, shape, data_format, bessel):
    x = RNG.randn(*shape).astype(np.float32) * 3 + 1
    axis = 1 if data_format == "NCHW" else len(shape) - 1
    y = layers.batch_norm(tf.constant(x), decay=0.9, scale=True, data_format=data_format,
                          param_initializers={"gamma": tf.constant_initializer(2.0)})
    assert _names(tf.global_variables()) == ["BatchNorm/beta:0", "BatchNorm/gamma:0",
                                             "BatchNorm/moving_mean:0",
                                             "BatchNorm/moving_variance:0"]
    assert _names(tf.trainable_variables()) == ["BatchNorm/beta:0", "BatchNorm/gamma:0"]
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2
    axes = tuple(i for i in range(len(shape)) if i != axis)
    mean, var = _moments(x, axes)
    bshape = [1] * len(shape)
    bshape[axis] = shape[axis]
    expected = 2.0 * (x - mean.reshape(bshape)) / np.sqrt(var.reshape(bshape) + 0.001)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y)
        sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
        moving_mean, moving_var = sess.run(tf.global_variables()[2:])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    n = x.size / shape[axis]
    batch_var = var * n / (n - 1) if bessel else var
    np.testing.assert_allclose(moving_mean, 0.1 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(moving_var, 0.9 + 0.1 * batch_var, rtol=1e-5)


def test_batch_norm_inference_uses_moving_statistics_and_scale_defaults_off(graph):
    x = RNG.randn(5, 3).astype(np.float32)
    y = layers.batch_norm(tf.constant(x), is_training=False, epsilon=0.5)
    assert _names(tf.global_variables()) == ["BatchNorm/beta:0", "BatchNorm/moving_mean:0",
                                             "BatchNorm/moving_variance:0"]
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    np.testing.assert_allclose(_run(y), x / np.sqrt(1.5), rtol=1e-5)


def test_batch_norm_with_a_training_placeholder_and_forced_updates(graph):
    x = RNG.randn(6, 2).astype(np.float32) + 4
    training = tf.placeholder(tf.bool, [])
    y = layers.batch_norm(tf.constant(x), decay=0.5, center=False, is_training=training,
                          updates_collections=None)
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    mean, var = _moments(x, 0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        infer = sess.run(y, {training: False})
        moving_after_infer = sess.run(tf.global_variables()[0])
        train = sess.run(y, {training: True})
        moving_after_train = sess.run(tf.global_variables()[0])
    np.testing.assert_allclose(infer, x / np.sqrt(1.001), rtol=1e-5)
    np.testing.assert_allclose(moving_after_infer, 0.0)
    np.testing.assert_allclose(train, (x - mean) / np.sqrt(var + 0.001), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(moving_after_train, 0.5 * mean, rtol=1e-5)


def test_batch_norm_as_normalizer_in_arg_scope_and_unsupported_options(graph):
    x = tf.placeholder(tf.float32, [None, 4])
    with slim.arg_scope([slim.fully_connected], normalizer_fn=slim.batch_norm,
                        normalizer_params={"scale": True}):
        slim.fully_connected(x, 3, scope="fc")
    assert _names(tf.global_variables()) == [
        "fc/weights:0", "fc/BatchNorm/beta:0", "fc/BatchNorm/gamma:0",
        "fc/BatchNorm/moving_mean:0", "fc/BatchNorm/moving_variance:0"]
    with pytest.raises(NotImplementedError, match="batch_weights"):
        layers.batch_norm(x, batch_weights=tf.ones([2]))
    with pytest.raises(ValueError, match="NCHW or NHWC"):
        layers.batch_norm(x, data_format="NC")


def test_batch_norm_eager_updates_moving_mean_at_once(eager):
    x = RNG.randn(6, 2).astype(np.float32)
    y = layers.batch_norm(x, decay=0.0, scale=True)
    np.testing.assert_allclose(y.numpy().mean(0), 0, atol=1e-5)


# ---------------------------------------------------------------- other layers


def test_layer_norm_matches_numpy(graph):
    x = RNG.randn(3, 4, 5).astype(np.float32)
    y = layers.layer_norm(tf.constant(x), begin_norm_axis=1, begin_params_axis=-1)
    assert [(v.name, v.shape.as_list()) for v in tf.global_variables()] == [
        ("LayerNorm/beta:0", [5]), ("LayerNorm/gamma:0", [5])]
    mean = x.mean(axis=(1, 2), keepdims=True)
    var = x.var(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(_run(y), (x - mean) / np.sqrt(var + 1e-12), rtol=1e-4,
                               atol=1e-5)
    with pytest.raises(ValueError, match="must be < rank"):
        layers.layer_norm(tf.zeros([2, 3]), begin_norm_axis=2)


@pytest.mark.parametrize("keep_prob", [0.5, 1.0])
def test_dropout_scales_kept_values_and_is_identity_when_not_training(graph, keep_prob):
    x = np.ones((50, 40), np.float32)
    training = tf.placeholder(tf.bool, [])
    y = layers.dropout(tf.constant(x), keep_prob=keep_prob, is_training=training)
    not_training = layers.dropout(tf.constant(x), keep_prob, is_training=False)
    train_out, infer_out, fixed = _run([y, y, not_training], {training: True})
    assert set(np.unique(train_out)) <= {0.0, 1.0 / keep_prob}
    if keep_prob < 1:
        assert 0.35 < (train_out == 0).mean() < 0.65
    np.testing.assert_array_equal(fixed, x)
    np.testing.assert_array_equal(_run(y, {training: False}), x)


def test_embed_sequence_looks_up_rows(graph):
    ids = np.array([[0, 3], [2, 2]])
    y = layers.embed_sequence(tf.constant(ids), vocab_size=4, embed_dim=3)
    assert [(v.name, v.shape.as_list()) for v in tf.model_variables()] == [
        ("EmbedSequence/embeddings:0", [4, 3])]
    out, table = _run([y, tf.global_variables()[0]])
    np.testing.assert_allclose(out, table[ids])
    with pytest.raises(ValueError, match="Must specify vocab size"):
        layers.embed_sequence(tf.constant(ids))


def test_bias_add_adds_one_bias_per_channel(graph):
    x = RNG.randn(2, 3).astype(np.float32)
    y = layers.bias_add(tf.constant(x), initializer=tf.constant_initializer(1.5))
    assert _names(tf.global_variables()) == ["BiasAdd/biases:0"]
    np.testing.assert_allclose(_run(y), x + 1.5, rtol=1e-6)


def test_repeat_and_stack_scopes(graph):
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    slim.repeat(x, 2, slim.conv2d, 4, [3, 3], scope="conv")
    slim.stack(tf.placeholder(tf.float32, [None, 5]), slim.fully_connected, [6, 7],
               scope="fc")
    slim.stack(tf.placeholder(tf.float32, [None, 5]), slim.fully_connected, [2])
    weights = [n for n in _names(tf.global_variables()) if "weights" in n]
    assert weights == ["conv/conv_1/weights:0", "conv/conv_2/weights:0",
                       "fc/fc_1/weights:0", "fc/fc_2/weights:0",
                       "Stack/fully_connected_1/weights:0"]
    with pytest.raises(ValueError, match="stack_args need to be a list or tuple"):
        slim.stack(x, slim.conv2d, 4)


# ---------------------------------------------------------------- arg_scope


def test_arg_scope_defaults_nesting_and_explicit_arguments():
    @tf.contrib.framework.add_arg_scope
    def f(a, b=1, c=2):
        return a, b, c

    assert f(0) == (0, 1, 2)
    with slim.arg_scope([f], b=10):
        assert f(0) == (0, 10, 2)
        with slim.arg_scope([f], c=20) as scope:
            assert f(0) == (0, 10, 20)
            assert f(0, b=5) == (0, 5, 20)
        assert f(0) == (0, 10, 2)
    with slim.arg_scope(scope):
        assert f(0) == (0, 10, 20)
    assert f(0) == (0, 1, 2)
    assert tf.contrib.framework.arg_scoped_arguments(f) == ("b", "c")
    assert tf.contrib.framework.has_arg_scope(slim.conv2d)
    with pytest.raises(ValueError, match="is not decorated with @add_arg_scope"):
        with slim.arg_scope([len], b=1):
            pass
    with pytest.raises(TypeError):
        with slim.arg_scope(f, b=1):
            pass


def test_arg_scope_on_a_slim_alias_applies_to_contrib_layers(graph):
    with slim.arg_scope([slim.conv2d], padding="VALID", activation_fn=None):
        y = layers.conv2d(tf.zeros([1, 5, 5, 1]), 1, [3, 3])
    assert y.shape.as_list() == [1, 3, 3, 1]


# ---------------------------------------------------------------- initializers, regularizers


def _draw(initializer, shape):
    with context.eager_scope():
        return initializer(shape).numpy()


@pytest.mark.parametrize("initializer,shape,kind,scale", [
    (layers.xavier_initializer(), [200, 300], "uniform", math.sqrt(6.0 / 500)),
    (layers.xavier_initializer(uniform=False), [200, 300], "normal",
     math.sqrt(1.3 * 2.0 / 500)),
    (layers.variance_scaling_initializer(), [3, 3, 40, 50], "normal",
     math.sqrt(1.3 * 2.0 / 360)),
    (layers.variance_scaling_initializer(factor=1.0, mode="FAN_OUT", uniform=True),
     [3, 3, 40, 50], "uniform", math.sqrt(3.0 / 450)),
])
def test_contrib_initializer_ranges_and_spread(initializer, shape, kind, scale):
    values = _draw(initializer, shape)
    if kind == "uniform":                       # uniform in [-scale, scale]
        assert np.abs(values).max() <= scale
        np.testing.assert_allclose(values.std(), scale / math.sqrt(3), rtol=0.05)
    else:                                       # normal with stddev scale, cut at 2 stddev
        assert np.abs(values).max() <= 2 * scale
        np.testing.assert_allclose(values.std(), 0.8796 * scale, rtol=0.05)


def test_initializer_argument_errors():
    with pytest.raises(TypeError, match="Unknown mode"):
        layers.variance_scaling_initializer(mode="fan_in")
    with pytest.raises(TypeError, match="non-floating point"):
        layers.xavier_initializer(dtype=tf.int32)


@pytest.mark.parametrize("regularizer,expected", [
    (layers.l1_regularizer(0.1), lambda w: 0.1 * np.abs(w).sum()),
    (layers.l2_regularizer(0.1), lambda w: 0.1 * (w ** 2).sum() / 2),
    (layers.l1_l2_regularizer(0.1, 0.2), lambda w: 0.1 * np.abs(w).sum() + 0.1 * (w ** 2).sum()),
    (layers.sum_regularizer([layers.l1_regularizer(1.0), layers.l1_regularizer(2.0)]),
     lambda w: 3 * np.abs(w).sum()),
])
def test_regularizer_values(eager, regularizer, expected):
    w = RNG.randn(3, 4).astype(np.float32)
    np.testing.assert_allclose(regularizer(tf.constant(w)).numpy(), expected(w), rtol=1e-5)


def test_regularizer_argument_errors_and_disabled_scale():
    with pytest.raises(ValueError, match="scale cannot be an integer"):
        layers.l2_regularizer(1)
    with pytest.raises(ValueError, match="less than 0"):
        layers.l1_regularizer(-0.1)
    assert layers.l2_regularizer(0.0)(tf.ones([2])) is None


def test_apply_regularization_sums_and_records_the_penalty(graph):
    w1, w2 = tf.Variable([1.0, -2.0]), tf.Variable([3.0])
    with pytest.raises(ValueError, match="No weights to regularize"):
        layers.apply_regularization(layers.l1_regularizer(0.5))
    penalty = layers.apply_regularization(layers.l1_regularizer(0.5), [w1, w2])
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [penalty]
    assert _run(penalty) == pytest.approx(3.0)


# ---------------------------------------------------------------- optimize_loss


def _quadratic():
    w = tf.get_variable("w", initializer=tf.constant([1.0, -2.0]))
    return w, tf.reduce_sum(tf.square(w))


def test_optimize_loss_sgd_step_global_step_and_summaries(graph):
    w, loss = _quadratic()
    step = tf.train.get_or_create_global_step()
    train = layers.optimize_loss(loss, step, 0.1, "SGD")
    assert "OptimizeLoss/learning_rate:0" in _names(tf.global_variables())
    # TF 1.15 summarizes the learning rate only when it is decayed
    assert [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)] == [
        "OptimizeLoss/global_norm/gradient_norm", "OptimizeLoss/loss"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        loss_before = sess.run(train)
        w_after, step_after = sess.run([w, step])
    assert loss_before == pytest.approx(5.0)
    np.testing.assert_allclose(w_after, [1.0 - 0.1 * 2, -2.0 + 0.1 * 4], rtol=1e-6)
    assert step_after == 1


def test_optimize_loss_clipping_decay_and_optimizer_forms(graph):
    w, loss = _quadratic()
    step = tf.train.get_or_create_global_step()
    train = layers.optimize_loss(
        loss, step, 1.0, tf.train.GradientDescentOptimizer, clip_gradients=1.0,
        learning_rate_decay_fn=lambda lr, gs: lr * 0.5, summaries=[])
    grad = np.array([2.0, -4.0])
    clipped = grad / np.linalg.norm(grad)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [1.0, -2.0] - 0.5 * clipped, rtol=1e-6)
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == []


@pytest.mark.parametrize("kwargs,message", [
    (dict(learning_rate=0.1, optimizer="Nope"), "Optimizer name should be one of"),
    (dict(learning_rate=1, optimizer="SGD"), "Learning rate should be 0d Tensor or float"),
    (dict(learning_rate=None, optimizer="SGD"), "Learning rate is None"),
    (dict(learning_rate=0.1, optimizer=42), "Unrecognized optimizer"),
    (dict(learning_rate=0.1, optimizer="SGD", summaries=["bogus"]), "Summaries should be"),
])
def test_optimize_loss_argument_errors(graph, kwargs, message):
    _, loss = _quadratic()
    with pytest.raises(ValueError, match=message):
        layers.optimize_loss(loss, None, **kwargs)


# ---------------------------------------------------------------- summaries


def test_summarize_collection_and_activation(graph):
    x = tf.placeholder(tf.float32, [None, 3])
    relu = tf.nn.relu(x)
    tf.add_to_collection(tf.GraphKeys.ACTIVATIONS, relu)
    layers.fully_connected(x, 2)
    assert len(layers.summarize_variables()) == 2
    layers.summarize_activations()
    scalar = layers.summarize_tensor(tf.reduce_sum(x), tag="total")
    assert layers.summarize_tensor(tf.constant(True)) is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        proto = tf.Summary.FromString(sess.run(scalar, {x: np.ones((2, 3))}))
        zeros = tf.Summary.FromString(sess.run(
            [s for s in tf.get_collection(tf.GraphKeys.SUMMARIES) if "zeros" in s.op.name][0],
            {x: np.array([[-1.0, 1.0, 2.0]])}))
    assert proto.value[0].tag == "total" and proto.value[0].simple_value == 6.0
    assert zeros.value[0].simple_value == pytest.approx(1.0 / 3)


# ---------------------------------------------------------------- the example script


def test_example_script_trains_under_the_runner_with_its_flags():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    result = subprocess.run(
        [sys.executable, "-m", "tfcompat", os.path.join("examples", "tf1_contrib_layers.py"),
         "--train_steps=40", "--batch_size=16"],
        cwd=root, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("step 1 loss") and lines[-2].startswith("step 40 loss")
    assert float(lines[-2].split()[-1]) < float(lines[0].split()[-1])
    assert float(lines[-1].split()[-1]) > 0.5          # "test accuracy X" (chance is 0.25)
    assert "INFO:tensorflow:model variables: ['conv1/weights:0'" in result.stderr
