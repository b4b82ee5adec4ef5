"""tf.Graph on torch.fx: names, shapes of placeholders, pruning, GraphDef."""
import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.framework.graph import Graph


def test_names_are_uniquified_like_tf():
    graph = Graph()
    with graph.as_default():
        a = tf.constant(1.0, name="c")
        b = tf.constant(2.0, name="c")
        with tf.name_scope("scope"):
            c = tf.add(a, b)
            d = tf.add(a, b)
        with tf.name_scope("scope"):
            e = tf.add(a, b, name="sum")
    assert [a.name, b.name] == ["c:0", "c_1:0"]
    assert c.name.startswith("scope/") and d.name.startswith("scope/") and c.name != d.name
    assert e.name == "scope_1/sum:0"
    assert graph.get_tensor_by_name("c_1:0") is b
    assert graph.get_operation_by_name("scope_1/sum") is e.op
    with pytest.raises(KeyError):
        graph.get_tensor_by_name("nope:0")
    assert [n.name for n in graph.as_graph_def().node][:2] == ["c", "c_1"]


def test_placeholder_unknown_dims_give_static_none():
    graph = Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 784])
        w = tf.ones([784, 10])
        y = tf.matmul(x, w)
        flat = tf.reshape(y, [-1])
    assert y.shape.as_list() == [None, 10]
    assert flat.shape.as_list() == [None]
    assert y.dtype == tf.float32
    module, _ = graph.build_module([x], [y])
    (value,) = module(torch.ones(3, 784))
    assert tuple(value.shape) == (3, 10)


def test_prunes_to_fetches_and_any_tensor_can_be_fed():
    graph = Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [2])
        y = x * 2.0
        z = y + 1.0
        unrelated = tf.placeholder(tf.float32, [2])
    module, _ = graph.build_module([y], [z])
    np.testing.assert_allclose(module(torch.tensor([1.0, 2.0]))[0].numpy(), [2.0, 3.0])
    with pytest.raises(errors.InvalidArgumentError, match="must feed a value"):
        graph.build_module([], [z])
    del unrelated


def test_symbolic_tensor_refuses_python_bool_and_len():
    graph = Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None])
        with pytest.raises(TypeError):
            bool(x)
        with pytest.raises(TypeError):
            len(x)


def test_tensors_of_another_graph_are_rejected():
    g1, g2 = Graph(), Graph()
    with g1.as_default():
        a = tf.constant(1.0)
    with g2.as_default():
        with pytest.raises(ValueError, match="same graph"):
            tf.add(a, 1.0)


def test_executing_eagerly_reflects_graph_building():
    assert tf.executing_eagerly()
    with Graph().as_default():
        assert not tf.executing_eagerly()
    assert tf.executing_eagerly()


def test_variables_created_under_control_dependencies_initialize_without_them():
    """TF's init_scope clears control dependencies: a variable (or an optimizer slot) made
    inside `tf.control_dependencies([op])` initializes without running op's inputs."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2])
        update = tf.reduce_sum(x)
        with tf.control_dependencies([update]):
            v = tf.Variable([1.0, 2.0])
            train = tf.compat.v1.train.MomentumOptimizer(0.1, 0.9).minimize(
                tf.reduce_sum(v * x))
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(train, {x: [1.0, 1.0]})
            np.testing.assert_allclose(sess.run(v), [0.9, 1.9])


def test_string_placeholders_flow_through_array_ops_in_graphs():
    graph = tf.Graph()
    with graph.as_default():
        s = tf.compat.v1.placeholder(tf.string, [None])
        expanded = tf.expand_dims(s, -1)
        gathered = tf.gather(s, [1, 0])
        stacked = tf.stack([s, s])
        numbers = tf.strings.to_number(s)
        names = tf.Variable(["a", "b"])
        assert expanded.shape.rank == 2 and expanded.shape.as_list()[0] is None
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            feed = {s: ["1", "2"]}
            assert sess.run(expanded, feed).tolist() == [[b"1"], [b"2"]]
            assert sess.run(gathered, feed).tolist() == [b"2", b"1"]
            assert sess.run(stacked, feed).tolist() == [[b"1", b"2"]] * 2
            np.testing.assert_allclose(sess.run(numbers, feed), [1.0, 2.0])
            assert sess.run(names).tolist() == [b"a", b"b"]


def test_report_uninitialized_variables_and_graph_checks():
    graph = tf.Graph()
    with graph.as_default():
        w = tf.compat.v1.get_variable(
            "w", [3, 4], initializer=tf.compat.v1.truncated_normal_initializer(stddev=0.1))
        x = tf.compat.v1.placeholder(tf.float32, [None])
        check = tf.compat.v1.assert_less(x, 5.0)
        with tf.control_dependencies([check]):
            y = tf.identity(x)
        report = tf.compat.v1.report_uninitialized_variables()
        with tf.compat.v1.Session() as sess:
            assert sess.run(report).tolist() == [b"w"]
            sess.run(tf.compat.v1.global_variables_initializer())
            assert sess.run(report).tolist() == []
            assert np.abs(sess.run(w)).max() <= 0.2      # truncated at two stddevs
            np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.0]}), [1.0, 2.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="x < y"):
                sess.run(y, {x: [7.0]})


def test_feed_dict_keys_may_be_nested_structures():
    graph = tf.Graph()
    with graph.as_default():
        c = tf.compat.v1.placeholder(tf.float32, [None, 2])
        h = tf.compat.v1.placeholder(tf.float32, [None, 2])
        state = tf.compat.v1.nn.rnn_cell.LSTMStateTuple(c, h)
        total = tf.reduce_sum(c) + 10 * tf.reduce_sum(h)
        with tf.compat.v1.Session() as sess:
            fed = tf.compat.v1.nn.rnn_cell.LSTMStateTuple(np.ones((1, 2)), np.ones((1, 2)))
            assert sess.run(total, {state: fed}) == 22.0
            assert sess.run(total, {(c, h): (np.zeros((1, 2)), np.ones((1, 2)))}) == 20.0
            with pytest.raises(ValueError, match="structure"):
                sess.run(total, {(c, h): np.ones((1, 2))})
