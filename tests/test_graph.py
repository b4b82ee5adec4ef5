"""tf.Graph on torch.fx: names, shapes of placeholders, pruning, GraphDef."""
import re

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import errors, matmul_kernel
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


def test_fed_arrays_are_copied_so_what_a_run_keeps_does_not_change():
    """Feeds are copied (as TF copies the unaligned arrays it is fed): a dataset initialized
    from a feed, a py_func keeping its argument, a fed variable that an assignment writes and
    the values fetched are unaffected by later writes to the caller's arrays; strided,
    read-only and list values are converted."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        iterator = tf.compat.v1.data.make_initializable_iterator(
            tf.data.Dataset.from_tensor_slices(x))
        next_element = iterator.get_next()
        kept = []
        keep = tf.compat.v1.py_func(lambda a: kept.append(a) or a, [x], tf.float32)
        v = tf.Variable([0.0, 0.0, 0.0])
        add = v.assign_add(x)
        doubled = x * 2
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            fed = np.array([1.0, 2.0, 3.0], np.float32)
            sess.run(iterator.initializer, {x: fed})
            sess.run(keep, {x: fed})
            fetched = sess.run(x, {x: fed})
            fed[:] = 99.0
            fetched[1] = -1.0
            assert sess.run(next_element) == 1.0 and sess.run(next_element) == 2.0
            np.testing.assert_array_equal(kept[0], [1, 2, 3])
            mine = np.full(3, 10.0, np.float32)
            np.testing.assert_array_equal(sess.run(add, {v: mine, x: [1, 2, 3]}), [11, 12, 13])
            np.testing.assert_array_equal(mine, [10, 10, 10])
            read_only = np.ones(3, np.float32)
            read_only.flags.writeable = False
            for value, expected in ((np.arange(6, dtype=np.float32)[::2], [0, 4, 8]),
                                    (read_only, [2, 2, 2]), ([1, 2, 3], [2, 4, 6]),
                                    (np.array([1, 2, 3]), [2, 4, 6])):
                np.testing.assert_array_equal(sess.run(doubled, {x: value}), expected)


def test_repeated_runs_follow_changes_to_fetches_feeds_and_graph():
    """A run repeating the previous call's fetches and feed keys reuses what that call
    resolved; a fetch list changed in place, other feed keys, no feeds, a tuple instead of
    a list, and ops added to the graph since are all seen."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [])
        y = tf.compat.v1.placeholder(tf.float32, [])
        counter = tf.Variable(0.0)
        step = counter.assign_add(1.0)
        fetches = [x * 2, step]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            assert sess.run(fetches, {x: 1.0}) == [2.0, 1.0]
            assert sess.run(fetches, {x: 3.0}) == [6.0, 2.0]
            fetches.append(x + 1)
            assert sess.run(fetches, {x: 3.0}) == [6.0, 3.0, 4.0]
            assert sess.run(tuple(fetches), {x: 0.0}) == (0.0, 4.0, 1.0)
            assert sess.run(x + y, {x: 1.0, y: 2.0}) == 3.0
            total = x + y
            assert sess.run(total, {y: 2.0, x: 5.0}) == 7.0
            assert sess.run(total, {y: 2.0, x: 6.0}) == 8.0
            assert sess.run(step) == 5.0 and sess.run(step) == 6.0
            later = counter * 10
            assert sess.run(later) == 60.0
            with pytest.raises(errors.InvalidArgumentError, match="must feed"):
                sess.run(total, {y: 2.0})


_ROWS = np.arange(12, dtype=np.float32).reshape(4, 3)


@pytest.mark.parametrize("shapes, build, feeds, static, expected", [
    # an unknown dim merged with a constant size (a stand-in size of 3 must not matter)
    ([[None, 3]], lambda x: tf.reverse_sequence(x, tf.constant([1, 2, 3, 1]), 1, 0),
     [_ROWS], [4, 3], np.array([[0, 1, 2], [4, 3, 5], [8, 7, 6], [9, 10, 11]])),
    ([[None]], lambda x: tf.boolean_mask(x, tf.constant([True, False, True, True])),
     [_ROWS[:, 0]], [None], [0.0, 6.0, 9.0]),
    ([[None]], lambda x: x + tf.constant([1.0, 2.0]), [_ROWS[:2, 0]], [2], [1.0, 5.0]),
    ([[None]], lambda x: tf.stack([x, tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])]),
     [np.zeros(5, np.float32)], [2, 5], [[0.0] * 5, [1.0, 2.0, 3.0, 4.0, 5.0]]),
    # two unrelated unknown dims that must be equal
    ([[None, None], [None, None]], tf.matmul, [_ROWS, _ROWS.T], [None, None], _ROWS @ _ROWS.T),
    ([[None], [None, None]], lambda x, y: x + y, [_ROWS[0], _ROWS], [None, None],
     _ROWS + _ROWS[0]),
    ([[None, 3], [None, 3]], lambda x, y: tf.concat([x, y], 0) * tf.ones([5, 3]),
     [_ROWS[:1], _ROWS[:4]], [5, 3], np.concatenate([_ROWS[:1], _ROWS])),
], ids=["reverse_sequence", "boolean_mask", "add", "stack", "matmul", "broadcast", "concat"])
def test_unknown_dims_merge_with_what_an_op_needs(shapes, build, feeds, static, expected):
    graph = tf.Graph()
    with graph.as_default():
        inputs = [tf.compat.v1.placeholder(tf.float32, shape) for shape in shapes]
        output = build(*inputs)
        later = inputs[0] * 2.0     # the merge holds for that op only
        with tf.compat.v1.Session() as sess:
            value = sess.run(output, dict(zip(inputs, feeds)))
    assert output.shape.as_list() == static
    assert later.shape.as_list() == shapes[0]
    np.testing.assert_allclose(value, expected)


def test_a_stand_in_size_equal_to_a_constant_does_not_make_a_dim_known():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2])
        first = tf.compat.v1.placeholder(tf.float32, [None])
        merged = x[:, 0] + first + tf.constant([1.0, 2.0, 3.0])
        assert (x * 2.0).shape.as_list() == [None, 2]
        assert (first * 2.0).shape.as_list() == [None]
        assert merged.shape.rank == 1


def test_unknown_dims_still_fail_where_no_merge_fits():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        with pytest.raises(ValueError, match=re.escape(
                "Dimensions must be equal, but are 3 and 4 for '{{node MatMul}} = "
                "MatMul[T=DT_FLOAT](Placeholder, Ones)' with input shapes: [?,3], [4,2].")):
            tf.matmul(x, tf.ones([4, 2]))
        with pytest.raises(ValueError, match=re.escape(
                "Shapes of all inputs must match: values[0].shape = [?] != values[1].shape = [2] "
                "for '{{node Pack}} = Pack[T=DT_FLOAT](strided_slice, Const, Const_1)' with input "
                "shapes: [?], [2], [3].")):
            tf.stack([x[:, 0], tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])])


def test_slice_input_producer_over_strings_with_unknown_rows():
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        names = tf.compat.v1.placeholder_with_default(
            np.array([[b"a", b"b"], [b"c", b"d"], [b"e", b"f"]], dtype=object), [None, 2])
        name_row, number = tf.compat.v1.train.slice_input_producer(
            [names, tf.constant([1, 2, 3])], num_epochs=1, shuffle=False)
        batch = tf.compat.v1.train.batch([name_row, number], 2, allow_smaller_final_batch=True)
        assert name_row.shape.as_list() == [2]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.local_variables_initializer())
            coordinator = tf.compat.v1.train.Coordinator()
            threads = tf.compat.v1.train.start_queue_runners(sess, coordinator)
            batches = [sess.run(batch), sess.run(batch)]
            with pytest.raises(errors.OutOfRangeError):
                sess.run(batch)
            coordinator.request_stop()
            coordinator.join(threads)
    assert [b[0].tolist() for b in batches] == [[[b"a", b"b"], [b"c", b"d"]], [[b"e", b"f"]]]
    assert [b[1].tolist() for b in batches] == [[1, 2], [3]]


def test_constant_keeps_the_value_it_was_given_and_is_converted_once():
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    listed = [1, 2, 3]
    with tf.Graph().as_default():
        from_array = tf.compat.v1.constant(values)
        from_list = tf.compat.v1.constant(listed)
        v = tf.compat.v1.Variable(from_array)
        with tf.compat.v1.Session() as sess:
            values[0, 0] = 100.0            # tf.constant copied the value when called
            listed.append(4)
            sess.run(v.initializer)
            sess.run(v.assign_add(tf.compat.v1.ones([2, 3])))
            first = sess.run(from_array)
            np.testing.assert_array_equal(first, np.arange(6).reshape(2, 3))
            np.testing.assert_array_equal(sess.run(from_list), [1, 2, 3])
            first[0, 0] = -1.0               # fetched values are copies
            np.testing.assert_array_equal(sess.run(from_array), np.arange(6).reshape(2, 3))
            sess.run(v.initializer)          # the variable's updates left the constant alone
            np.testing.assert_array_equal(sess.run(v), np.arange(6).reshape(2, 3))
            node_target = from_array.op._node.target
            assert sess.run(from_array).sum() == 15 and node_target._value is not None


def test_operator_nodes_are_named_as_tf_names_them():
    """TF's operators name their nodes after the Python operator (`a + b` is "add", where
    tf.add is "AddV2"); indexing is "strided_slice"; str() of a graph tensor is TF's."""
    with tf.Graph().as_default() as graph:
        a = tf.compat.v1.placeholder(tf.float32, [None, 3], name="a")
        names = [t.name for t in (a + 1, a * 2, tf.multiply(a, a), a - 1, a / 2, -a,
                                  a @ tf.ones([3, 3]), a[0], 1 - a, a < 2)]
        assert names == ["add:0", "mul:0", "Mul_1:0", "sub:0", "truediv:0", "Neg:0",
                         "matmul:0", "strided_slice:0", "sub_1:0", "Less:0"]
        assert graph.get_tensor_by_name("add:0").op.type == "AddV2"
        assert str(a + 1) == 'Tensor("add_1:0", shape=(None, 3), dtype=float32)'
        assert not hasattr(a, "numpy")       # TF's graph tensors have no numpy()
        with pytest.raises(AttributeError, match="Session.run"):
            a.numpy()


def test_static_shapes_never_take_a_stand_in_size():
    """An output size that the stand-in sizes of unknown dims decide (slicing an unknown
    batch with bounds, tf.complex of it) is unknown, as TF's shape inference leaves it."""
    with tf.Graph().as_default():
        a = tf.compat.v1.placeholder(tf.float32, [None, 3])
        d = tf.compat.v1.placeholder(tf.float32, [None, 4])
        assert d[8:16].shape.as_list() == [None, 4]
        assert d[1:].shape.as_list() == [None, 4]
        assert d[:, 1:3].shape.as_list() == [None, 2]
        assert tf.complex(a, a).shape.as_list() == [None, 3]
        assert (a * 2).shape.as_list() == [None, 3]
        rows = tf.reshape(d[8:16], [8, -1])
        with tf.compat.v1.Session() as sess:
            assert sess.run(rows, {d: np.zeros([20, 4])}).shape == (8, 4)


def test_conv_and_pool_nodes_are_named_as_tf_kernels():
    with tf.Graph().as_default():
        v1 = tf.compat.v1
        x = v1.placeholder(tf.float32, [None, 8, 8, 3])
        w = tf.ones([3, 3, 3, 4])
        types = [t.op.type for t in (
            tf.nn.conv2d(x, w, 1, "SAME"), v1.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"),
            tf.nn.max_pool2d(x, 2, 2, "VALID"), tf.nn.avg_pool2d(x, 2, 2, "VALID"),
            tf.nn.depthwise_conv2d(x, tf.ones([3, 3, 3, 1]), [1, 1, 1, 1], "SAME"),
            tf.nn.conv2d_transpose(x, tf.ones([3, 3, 2, 3]), [2, 8, 8, 2], 1))]
        assert types == ["Conv2D", "Conv2D", "MaxPool", "AvgPool", "DepthwiseConv2dNative",
                         "Conv2DBackpropInput"]


def test_range_of_fed_scalars_builds_and_checks_when_run():
    """tf.range(n) of a scalar placeholder has unknown length; TF's checks run with the op."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        n = v1.placeholder(tf.int32, [])
        idx = v1.placeholder(tf.int32, [None])
        rows = tf.stack([tf.range(n), idx], 1)
        assert tf.range(n).shape.as_list() == [None]
        with v1.Session() as sess:
            assert sess.run(rows, {n: 3, idx: [5, 6, 7]}).tolist() == [[0, 5], [1, 6], [2, 7]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="Requires start <= limit"):
                sess.run(tf.range(n), {n: -1})


def _lowered(tensor):
    return tensor.op._node.target._direct


def test_lowered_ops_run_torch_directly_and_keep_tf_errors():
    """Nodes whose op has a lowering for their inputs' dtypes call the torch function
    directly; other argument forms take the op's own path; runtime shape errors are TF's."""
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        y = v1.placeholder(tf.float32, [None, 3])
        w = tf.constant(np.arange(9, dtype=np.float32).reshape(3, 3))
        product = tf.matmul(x, w)
        shifted = product + 0.5
        summed = tf.nn.relu(shifted) - y
        transposed = tf.matmul(x, w, transpose_b=True)
        counts = v1.placeholder(tf.int32, [2])
        counted = counts + 7
        assert _lowered(product) is matmul_kernel.matmul    # torch.matmul, or oneDNN where faster
        assert _lowered(shifted) is not None
        assert _lowered(summed) is torch.sub
        assert _lowered(transposed) is None         # a keyword argument besides name
        assert _lowered(counted) is None            # int + number: TF checks its range
        values = np.array([[1, -2, 0.5], [0, 1, 1]], np.float32)
        with v1.Session() as sess:
            got, got_t, got_c = sess.run([summed, transposed, counted],
                                         {x: values, y: np.ones((2, 3), np.float32),
                                          counts: [1, 2]})
            w_value = np.arange(9, dtype=np.float32).reshape(3, 3)
            np.testing.assert_allclose(got, np.maximum(values @ w_value + 0.5, 0) - 1)
            np.testing.assert_allclose(got_t, values @ w_value.T)
            assert got_c.tolist() == [8, 9]
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Incompatible shapes: \[2,3\] vs. \[4,3\]"):
                sess.run(summed, {x: values, y: np.ones((4, 3), np.float32)})


def test_graph_runs_flush_denormals_to_zero_as_tf():
    """TF's executor runs kernels with denormals flushed to zero; Session.run and
    tf.function calls do too, and the mode is off again after the run."""
    v1 = tf.compat.v1
    tiny = np.float32(1e-20)
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [])
        product = x * tiny
        with v1.Session() as sess:
            assert sess.run(product, {x: tiny}) == 0.0      # 1e-40 is denormal
    assert (torch.tensor(tiny) * torch.tensor(tiny)).item() != 0.0
    assert np.float32(1e-38) / np.float32(100) != 0

    @tf.function
    def scaled(value):
        return value * tiny
    assert scaled(tf.constant(tiny)).numpy() == 0.0
    assert (torch.tensor(tiny) * torch.tensor(tiny)).item() != 0.0
