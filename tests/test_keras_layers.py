"""tf.keras layers and TF1 tf.layers: forward values against numpy / torch.nn references,
variable names and shapes as Keras 2 gives them, gradients, BatchNormalization statistics in
eager and TF1 graph mode, tf.layers naming and reuse."""
import numpy as np
import pytest
import torch

import tfcompat as tf
import tfcompat.keras  # noqa: F401
import tfcompat.layers  # noqa: F401
from tfcompat.keras import layers

RNG = np.random.RandomState(0)


pytestmark = pytest.mark.usefixtures("fresh_names")


def value(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def test_dense_values_names_and_gradients():
    x = RNG.rand(3, 5).astype("float32")
    dense = layers.Dense(4, activation="relu")
    y = dense(x)
    w, b = dense.get_weights()
    np.testing.assert_allclose(value(y), np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)
    assert [v.name for v in dense.weights] == ["dense/kernel:0", "dense/bias:0"]
    assert dense.kernel.shape.as_list() == [5, 4]
    assert layers.Dense(2).name == "dense_1"
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(dense(x))
    gw, gb = tape.gradient(loss, dense.trainable_variables)
    mask = (x @ w + b > 0).astype("float32")
    np.testing.assert_allclose(value(gw), x.T @ mask, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(value(gb), mask.sum(0), rtol=1e-5)


def test_dense_nd_input_and_errors():
    dense = layers.Dense(2, kernel_initializer="ones", use_bias=False)
    y = dense(np.ones((2, 3, 4), "float32"))
    assert y.shape.as_list() == [2, 3, 2]
    np.testing.assert_allclose(value(y), np.full((2, 3, 2), 4.0))
    with pytest.raises(ValueError, match="expected axis -1"):
        dense(np.ones((2, 5), "float32"))
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        layers.Dense(2, foo=1)


def test_add_weight_regularizer_and_trainable_flag():
    dense = layers.Dense(2, kernel_initializer="ones", kernel_regularizer=tf.keras.regularizers.l2(0.5))
    dense(np.ones((1, 3), "float32"))
    assert np.isclose(float(dense.losses[0]), 0.5 * 6)
    dense.trainable = False
    assert dense.trainable_weights == [] and len(dense.non_trainable_weights) == 2


def _torch_conv(x, kernel, bias, stride, padding):
    xt = torch.from_numpy(x).permute(0, 3, 1, 2)
    wt = torch.from_numpy(kernel).permute(3, 2, 0, 1)
    y = torch.nn.functional.conv2d(xt, wt, torch.from_numpy(bias), stride=stride,
                                   padding=padding)
    return y.permute(0, 2, 3, 1).numpy()


def test_conv2d_against_torch_and_channels_first():
    x = RNG.rand(2, 7, 7, 3).astype("float32")
    conv = layers.Conv2D(4, 3, strides=2, padding="valid")
    y = conv(x)
    kernel, bias = conv.get_weights()
    assert kernel.shape == (3, 3, 3, 4) and conv.kernel.name == "conv2d/kernel:0"
    np.testing.assert_allclose(value(y), _torch_conv(x, kernel, bias, 2, 0), atol=1e-5)
    same = layers.Conv2D(4, 3, padding="same")
    assert same(x).shape.as_list() == [2, 7, 7, 4]
    first = layers.Conv2D(4, 3, padding="same", data_format="channels_first")
    yf = first(np.transpose(x, (0, 3, 1, 2)))
    k, b = first.get_weights()
    np.testing.assert_allclose(value(yf), np.transpose(_torch_conv(x, k, b, 1, 1), (0, 3, 1, 2)),
                               atol=1e-5)


def test_grouped_conv2d_kernel_values_and_errors():
    x = RNG.rand(2, 5, 5, 6).astype("float32")
    conv = layers.Conv2D(4, 3, groups=2)
    y = value(conv(x))
    kernel, bias = conv.get_weights()
    assert kernel.shape == (3, 3, 3, 4) and conv.get_config()["groups"] == 2
    halves = [_torch_conv(x[..., 3 * g:3 * g + 3], kernel[..., 2 * g:2 * g + 2],
                          bias[2 * g:2 * g + 2], 1, 0) for g in range(2)]
    np.testing.assert_allclose(y, np.concatenate(halves, axis=-1), atol=1e-5)
    with pytest.raises(ValueError, match="number of filters must be evenly divisible"):
        layers.Conv2D(5, 3, groups=2)
    with pytest.raises(ValueError, match="number of input channels must be evenly divisible"):
        layers.Conv2D(4, 3, groups=4)(x)


def test_conv1d_conv3d_transpose_depthwise_separable_shapes():
    assert layers.Conv1D(5, 3, padding="causal")(np.ones((2, 9, 3), "float32")).shape.as_list() \
        == [2, 9, 5]
    assert layers.Conv3D(2, 2)(np.ones((1, 4, 4, 4, 1), "float32")).shape.as_list() == \
        [1, 3, 3, 3, 2]
    x = RNG.rand(1, 4, 4, 2).astype("float32")
    deconv = layers.Conv2DTranspose(3, 3, strides=2, padding="same")
    y = deconv(x)
    assert y.shape.as_list() == [1, 8, 8, 3] and deconv.kernel.shape.as_list() == [3, 3, 3, 2]
    valid = layers.Conv2DTranspose(3, 3, strides=2, padding="valid", use_bias=False)
    yv = valid(x)
    ref = torch.nn.functional.conv_transpose2d(
        torch.from_numpy(x).permute(0, 3, 1, 2),
        torch.from_numpy(valid.get_weights()[0]).permute(3, 2, 0, 1), stride=2)
    np.testing.assert_allclose(value(yv), ref.permute(0, 2, 3, 1).numpy(), atol=1e-5)
    dw = layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")
    assert dw(x).shape.as_list() == [1, 4, 4, 4]
    assert dw.depthwise_kernel.shape.as_list() == [3, 3, 2, 2]
    sep = layers.SeparableConv2D(5, 3)
    assert sep(x).shape.as_list() == [1, 2, 2, 5]
    assert [v.name for v in sep.weights] == ["separable_conv2d/depthwise_kernel:0",
                                             "separable_conv2d/pointwise_kernel:0",
                                             "separable_conv2d/bias:0"]


def test_pooling_padding_cropping_upsampling():
    x = RNG.rand(2, 4, 6, 3).astype("float32")
    np.testing.assert_allclose(value(layers.MaxPool2D()(x)),
                               x.reshape(2, 2, 2, 3, 2, 3).max(axis=(2, 4)))
    np.testing.assert_allclose(value(layers.AveragePooling2D()(x)),
                               x.reshape(2, 2, 2, 3, 2, 3).mean(axis=(2, 4)), rtol=1e-5)
    np.testing.assert_allclose(value(layers.GlobalAveragePooling2D()(x)), x.mean(axis=(1, 2)),
                               rtol=1e-5)
    np.testing.assert_allclose(value(layers.GlobalMaxPooling1D()(x[:, 0])), x[:, 0].max(1))
    assert layers.MaxPooling1D(2)(x[:, 0]).shape.as_list() == [2, 3, 3]
    assert layers.MaxPooling3D()(np.ones((1, 4, 4, 4, 1), "float32")).shape.as_list() == \
        [1, 2, 2, 2, 1]
    assert layers.ZeroPadding2D(((1, 0), (2, 1)))(x).shape.as_list() == [2, 5, 9, 3]
    np.testing.assert_allclose(value(layers.Cropping2D(((1, 1), (2, 0)))(x)), x[:, 1:3, 2:])
    np.testing.assert_allclose(value(layers.UpSampling2D()(x)),
                               x.repeat(2, axis=1).repeat(2, axis=2))
    assert layers.MaxPool2D is layers.MaxPooling2D


def test_core_shape_layers():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    np.testing.assert_allclose(value(layers.Flatten()(x)), x.reshape(2, 12))
    np.testing.assert_allclose(value(layers.Reshape((4, -1))(x)), x.reshape(2, 4, 3))
    np.testing.assert_allclose(value(layers.Permute((2, 1))(x)), x.transpose(0, 2, 1))
    assert layers.RepeatVector(5)(x[:, 0]).shape.as_list() == [2, 5, 4]
    np.testing.assert_allclose(value(layers.Lambda(lambda t, k: t * k, arguments={"k": 2.})(x)),
                               2 * x)
    np.testing.assert_allclose(value(layers.Activation("softmax")(x)),
                               np.exp(x) / np.exp(x).sum(-1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(value(layers.Flatten(data_format="channels_first")(x)),
                               x.transpose(0, 2, 1).reshape(2, 12))


def test_dropout_training_flag():
    x = np.ones((100, 100), "float32")
    drop = layers.Dropout(0.5)
    np.testing.assert_array_equal(value(drop(x)), x)
    y = value(drop(x, training=True))
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.4 < (y == 0).mean() < 0.6


def test_batch_norm_eager_moving_statistics():
    x = RNG.rand(8, 3).astype("float32") * 4
    bn = layers.BatchNormalization(momentum=0.9)
    y = value(bn(x, training=True))
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(value(bn.moving_mean), 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(value(bn.moving_variance), 0.9 + 0.1 * var, rtol=1e-5)
    assert [v.name for v in bn.weights] == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0",
        "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    assert len(bn.trainable_weights) == 2
    inference = value(bn(x))
    np.testing.assert_allclose(inference, (x - value(bn.moving_mean)) /
                               np.sqrt(value(bn.moving_variance) + 1e-3), rtol=1e-4)


def test_batch_norm_4d_uses_unbiased_moving_variance():
    x = RNG.rand(2, 3, 3, 2).astype("float32")
    bn = layers.BatchNormalization(momentum=0.0)
    bn(x, training=True)
    np.testing.assert_allclose(value(bn.moving_variance), x.reshape(-1, 2).var(0, ddof=1),
                               rtol=1e-4)


def test_batch_norm_graph_mode_update_ops():
    data = RNG.rand(6, 2).astype("float32")
    with tf.Graph().as_default() as graph:
        x = tf.compat.v1.placeholder(tf.float32, [None, 2])
        bn = layers.BatchNormalization(momentum=0.5)
        y = bn(x, training=True)
        updates = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        assert len(updates) == 2 and len(bn.updates) == 2
        assert len(bn.get_updates_for(x)) == 2 and bn.get_updates_for(None) == []
        loss = tf.reduce_sum(y * y)
        with tf.control_dependencies(updates):
            train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(train, {x: data})
            np.testing.assert_allclose(sess.run(bn.moving_mean), 0.5 * data.mean(0), rtol=1e-5)


def test_keras_layer_in_graph_mode_names():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        dense = layers.Dense(2, name="my_dense")
        dense(x)
        names = [v.name for v in tf.compat.v1.global_variables()]
        assert names == ["my_dense/kernel:0", "my_dense/bias:0"]


def test_embedding_and_mask():
    emb = layers.Embedding(10, 4, mask_zero=True)
    ids = np.array([[1, 0, 3]])
    out = emb(ids)
    np.testing.assert_allclose(value(out), emb.get_weights()[0][ids])
    np.testing.assert_array_equal(value(out._keras_mask), [[True, False, True]])
    assert emb.embeddings.name == "embedding/embeddings:0"


def test_merge_layers():
    a, b = RNG.rand(2, 3).astype("float32"), RNG.rand(2, 3).astype("float32")
    np.testing.assert_allclose(value(layers.add([a, b])), a + b, rtol=1e-6)
    np.testing.assert_allclose(value(layers.Subtract()([a, b])), a - b, rtol=1e-6)
    np.testing.assert_allclose(value(layers.multiply([a, b])), a * b, rtol=1e-6)
    np.testing.assert_allclose(value(layers.average([a, b])), (a + b) / 2, rtol=1e-6)
    np.testing.assert_allclose(value(layers.maximum([a, b])), np.maximum(a, b))
    np.testing.assert_allclose(value(layers.minimum([a, b])), np.minimum(a, b))
    np.testing.assert_allclose(value(layers.concatenate([a, b])), np.concatenate([a, b], -1))
    np.testing.assert_allclose(value(layers.dot([a, b], axes=1)),
                               (a * b).sum(1, keepdims=True), rtol=1e-5)
    with pytest.raises(ValueError, match="list of inputs"):
        layers.Add()(a)


def test_advanced_activations_and_layer_norm():
    x = np.array([[-2.0, -0.5, 0.5, 3.0]], "float32")
    np.testing.assert_allclose(value(layers.LeakyReLU()(x)), np.where(x > 0, x, 0.3 * x))
    np.testing.assert_allclose(value(layers.ELU()(x)), np.where(x > 0, x, np.exp(x) - 1),
                               rtol=1e-6)
    np.testing.assert_allclose(value(layers.ReLU(max_value=1.0)(x)), np.clip(x, 0, 1))
    np.testing.assert_allclose(value(layers.ThresholdedReLU(1.0)(x)), np.where(x > 1, x, 0))
    prelu = layers.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.25))
    np.testing.assert_allclose(value(prelu(x)), np.where(x > 0, x, 0.25 * x))
    ln = value(layers.LayerNormalization()(x))
    np.testing.assert_allclose(ln, (x - x.mean()) / np.sqrt(x.var() + 1e-3), rtol=1e-4)


def test_time_distributed():
    x = RNG.rand(2, 5, 3).astype("float32")
    td = layers.TimeDistributed(layers.Dense(4))
    y = td(x)
    w, b = td.layer.get_weights()
    np.testing.assert_allclose(value(y), x @ w + b, rtol=1e-5, atol=1e-6)
    assert len(td.weights) == 2


def test_layer_config_round_trip():
    dense = layers.Dense(3, activation="tanh", name="d")
    config = layers.serialize(dense)
    clone = layers.deserialize(config)
    assert isinstance(clone, layers.Dense) and clone.units == 3 and clone.name == "d"
    assert clone.activation is tf.keras.activations.tanh


def test_custom_layer_training_propagation_and_losses():
    seen = []

    class Inner(layers.Layer):
        def call(self, inputs, training=None):
            seen.append(training)
            self.add_loss(tf.reduce_sum(inputs))
            return inputs

    class Outer(layers.Layer):
        def __init__(self):
            super(Outer, self).__init__()
            self.blocks = [Inner(), Inner()]

        def call(self, inputs, training=None):
            for block in self.blocks:
                inputs = block(inputs)
            return inputs

    outer = Outer()
    outer(np.ones((1, 2), "float32"), training=True)
    assert seen == [True, True] and len(outer.losses) == 2
    outer(np.ones((1, 2), "float32"))
    assert len(outer.losses) == 2  # eager losses are reset on each outer call


def test_layers_inside_tf_function():
    dense = layers.Dense(2, kernel_initializer="ones")

    @tf.function
    def f(x):
        return dense(x)
    np.testing.assert_allclose(value(f(tf.ones((1, 3)))), [[3.0, 3.0]])
    assert dense.kernel.name == "dense/kernel:0"


# ---------------------------------------------------------------- TF1 tf.layers


def test_tf_layers_naming_and_reuse():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 4])
        tf.compat.v1.layers.dense(x, 3)
        tf.compat.v1.layers.dense(x, 3)
        with tf.compat.v1.variable_scope("model"):
            y1 = tf.compat.v1.layers.dense(x, 2, name="fc")
        with tf.compat.v1.variable_scope("model", reuse=True):
            y2 = tf.compat.v1.layers.dense(x, 2, name="fc")
        names = [v.name for v in tf.compat.v1.global_variables()]
        assert names == ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0",
                         "dense_1/bias:0", "model/fc/kernel:0", "model/fc/bias:0"]
        conv = tf.compat.v1.layers.conv2d(tf.compat.v1.placeholder(tf.float32, [None, 8, 8, 3]),
                                          4, 3, padding="same")
        pooled = tf.compat.v1.layers.max_pooling2d(conv, 2, 2)
        assert pooled.shape.as_list() == [None, 4, 4, 4]
        assert tf.compat.v1.global_variables()[-2].name == "conv2d/kernel:0"
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            a, b = sess.run([y1, y2], {x: np.ones((1, 4), "float32")})
        np.testing.assert_allclose(a, b)


def test_tf_layers_batch_norm_update_ops_and_dropout():
    data = RNG.rand(4, 3).astype("float32")
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        training = tf.compat.v1.placeholder(tf.bool, [])
        y = tf.compat.v1.layers.batch_normalization(x, training=training, momentum=0.0)
        d = tf.compat.v1.layers.dropout(x, rate=0.5, training=False)
        update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        mean = [v for v in tf.compat.v1.global_variables() if "moving_mean" in v.name][0]
        assert mean.name == "batch_normalization/moving_mean:0"
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run([y] + update_ops, {x: data, training: False})
            np.testing.assert_allclose(sess.run(mean), np.zeros(3))
            sess.run([y] + update_ops, {x: data, training: True})
            np.testing.assert_allclose(sess.run(mean), data.mean(0), rtol=1e-5)
            np.testing.assert_allclose(sess.run(d, {x: data}), data)


def test_tf_layers_eager():
    y = tf.compat.v1.layers.Dense(2, name="head")(np.ones((1, 3), "float32"))
    assert y.shape.as_list() == [1, 2]
