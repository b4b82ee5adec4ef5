"""Tensors of unknown rank (`tf.compat.v1.placeholder(tf.float32)`, `tf.TensorSpec(None)`):
graphs build on them, static shapes are TF's where they can be known, any rank is fed."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

v1 = tf.compat.v1


def test_placeholder_without_shape_has_unknown_rank():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32)
        assert x.get_shape().ndims is None
        assert str(x.shape) == "<unknown>"


def test_tf1_tutorial_matmul_on_unknown_rank_placeholder_trains():
    """x = tf.placeholder(tf.float32); y = tf.matmul(x, W) + b; GradientDescent.minimize."""
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32)
        y_ = v1.placeholder(tf.float32)
        W = tf.Variable(tf.zeros([2, 1]))
        b = tf.Variable(tf.zeros([1]))
        y = tf.matmul(x, W) + b
        assert y.shape.ndims is None                # TF2's BatchMatMulV2: <unknown>
        loss = tf.reduce_mean(tf.square(y - y_))
        assert loss.shape.as_list() == []
        train = v1.train.GradientDescentOptimizer(0.5).minimize(loss)
        features = np.array([[1, 0], [0, 1], [1, 1]], np.float32)
        targets = np.array([[1], [2], [3]], np.float32)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            first, _ = sess.run([loss, train], {x: features, y_: targets})
            np.testing.assert_allclose(first, 14 / 3, rtol=1e-6)
            # one step of 0.5 * gradient of mean((xW + b - t)^2) from zeros
            np.testing.assert_allclose(sess.run(W), [[4 / 3], [5 / 3]], rtol=1e-6)
            np.testing.assert_allclose(sess.run(b), [2], rtol=1e-6)


@pytest.mark.parametrize("build, static", [
    (lambda x: tf.shape(x), [None]),
    (lambda x: tf.rank(x), []),
    (lambda x: tf.size(x), []),
    (lambda x: tf.reduce_sum(x), []),           # TF: axis=None reduces to a scalar
    (lambda x: tf.reduce_sum(x, 1), None),
    (lambda x: tf.argmax(x, 1), None),
    (lambda x: tf.square(x), None),
    (lambda x: x + tf.ones([2, 10]), None),     # broadcasting may add leading dims
    (lambda x: tf.cast(x, tf.int32), None),
    (lambda x: tf.concat([x, x], 0), None),
    (lambda x: tf.expand_dims(x, 0), None),
    (lambda x: tf.nn.softmax(x), None),
    (lambda x: tf.transpose(x, [1, 0]), [None, None]),     # only rank 2 fits the perm
])
def test_static_shapes_from_unknown_rank_inputs(build, static):
    with tf.Graph().as_default():
        out = build(v1.placeholder(tf.float32))
        assert out.shape.ndims is None if static is None else out.shape.as_list() == static


@pytest.mark.parametrize("value, shape, total", [
    (np.float32(3), [], 9.0),
    (np.ones(3, np.float32), [3], 3.0),
    (np.ones((2, 3, 4), np.float32), [2, 3, 4], 24.0),
])
def test_session_feeds_any_rank(value, shape, total):
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32)
        total_t = tf.reduce_sum(tf.square(x))
        grad = v1.gradients(total_t, x)[0]
        assert grad.shape.ndims is None
        with v1.Session() as sess:
            got_shape, got_total, got_grad = sess.run([tf.shape(x), total_t, grad], {x: value})
    assert got_shape.tolist() == shape
    assert got_total == total
    np.testing.assert_allclose(got_grad, 2 * value)


def test_unknown_rank_through_cond_and_set_shape():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32)
        doubled = tf.cond(tf.constant(True), lambda: x * 2, lambda: x)
        assert doubled.shape.ndims is None
        y = v1.placeholder(tf.float32)
        y.set_shape([None, 2])
        product = tf.matmul(y, tf.ones([2, 3]))
        assert product.shape.as_list() == [None, 3]
        with v1.Session() as sess:
            out, prod = sess.run([doubled, product], {x: [[1.0, 2.0]], y: np.ones((4, 2))})
    np.testing.assert_allclose(out, [[2.0, 4.0]])
    np.testing.assert_allclose(prod, np.full((4, 3), 2.0))


def test_ops_needing_a_rank_raise_as_tf():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32)
        with pytest.raises(ValueError, match="last dimension of the inputs to `Dense`"):
            v1.layers.dense(x, 3)
        with pytest.raises(ValueError, match="Cannot infer argument `num`"):
            tf.unstack(x)
        # no rank accepts float32 x int32: the dtype error of a known rank comes through
        with pytest.raises((TypeError, errors.InvalidArgumentError), match="int32"):
            tf.matmul(x, tf.ones([2, 2], tf.int32))


def test_tensor_spec_none_input_signature_traces_once_for_any_rank():
    traced_shapes = []

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def total(x):
        traced_shapes.append(x.shape)
        return tf.reduce_sum(x * 2.0), tf.shape(x)

    value, shape = total(tf.constant(3.0))
    assert float(value) == 6.0 and shape.numpy().tolist() == []
    value, shape = total(np.ones((2, 3), np.float32))
    assert float(value) == 12.0 and shape.numpy().tolist() == [2, 3]
    assert [s.ndims for s in traced_shapes] == [None]
    with pytest.raises(TypeError, match="Binding inputs"):
        total(tf.constant(1, tf.int32))

    @tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32)])
    def project(x):
        return tf.matmul(x, tf.ones([2, 3]))

    assert project.get_concrete_function().outputs[0].shape.ndims is None
    np.testing.assert_allclose(project(tf.ones([4, 2])), np.full((4, 3), 2.0))
    assert project(tf.ones([5, 4, 2])).shape.as_list() == [5, 4, 3]


def test_input_signature_shapes_are_checked_and_unknown_dims_kept():
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def rows(x):
        return x.shape.as_list(), tf.shape(x)[0]

    static, count = rows(np.zeros((5, 2), np.float32))
    # a function's outputs are tensors (None stays None), as TF converts them
    assert static[0] is None and int(static[1]) == 2 and int(count) == 5
    with pytest.raises(TypeError, match="Can not cast"):
        rows(np.zeros((5, 3), np.float32))


def test_keras_input_with_unknown_length_runs_any_length():
    inputs = tf.keras.Input(shape=(None,))
    assert inputs.shape.as_list() == [None, None]
    embedded = tf.keras.layers.Embedding(10, 4)(inputs)
    model = tf.keras.Model(inputs, tf.keras.layers.GlobalAveragePooling1D()(embedded))
    assert model(np.array([[1, 2, 3]])).shape.as_list() == [1, 4]
    assert model(np.array([[1, 2, 3, 4, 5]])).shape.as_list() == [1, 4]


def test_reshape_with_minus_one_of_unknown_dims_builds_as_in_tf():
    """TF does not check divisibility when dims are unknown: the -1 dim is unknown and
    the given ones are known (x_image = tf.reshape(x, [-1, 28, 28, 1]) in TF1 tutorials)."""
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32)
        image = tf.reshape(x, [-1, 28, 28, 1])
        assert image.shape.as_list() == [None, 28, 28, 1]
        conv = tf.nn.conv2d(image, tf.ones([5, 5, 1, 4]), [1, 1, 1, 1], "SAME")
        pooled = tf.nn.max_pool(conv, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        flat = tf.reshape(pooled, [-1, 14 * 14 * 4])
        assert flat.shape.as_list() == [None, 784]
        rows = v1.placeholder(tf.float32, [None, 3])
        pairs = tf.reshape(rows, [-1, 2])
        assert pairs.shape.as_list() == [None, 2]
        with v1.Session() as sess:
            image_shape, flat_value = sess.run([tf.shape(image), flat],
                                               {x: np.ones((2, 784), np.float32)})
            assert sess.run(pairs, {rows: np.ones((4, 3))}).shape == (6, 2)
            with pytest.raises(errors.InvalidArgumentError, match="multiple of 2"):
                sess.run(pairs, {rows: np.ones((3, 3))})
    assert image_shape.tolist() == [2, 28, 28, 1]
    assert flat_value.shape == (2, 784)
    np.testing.assert_allclose(flat_value.reshape(2, 14, 14, 4)[:, 3, 3], 25.0)


def test_control_flow_over_unknown_rank_tensors():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32)
        count, doubled = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0),
                                       [tf.constant(0), x])
        assert count.shape.as_list() == [] and doubled.shape.ndims is None
        grad = v1.gradients(tf.reduce_sum(doubled), x)[0]
        rows = tf.map_fn(lambda row: row * 2.0, x)
        assert rows.shape.ndims is None
        column = x[:, 1]
        assert column.shape.ndims is None
        with v1.Session() as sess:
            values = sess.run([doubled, grad, rows, column],
                              {x: np.array([[1, 2], [3, 4]], np.float32)})
    np.testing.assert_allclose(values[0], [[8, 16], [24, 32]])
    np.testing.assert_allclose(values[1], np.full((2, 2), 8.0))
    np.testing.assert_allclose(values[2], [[2, 4], [6, 8]])
    np.testing.assert_allclose(values[3], [2, 4])
