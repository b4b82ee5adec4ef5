"""tf.cond / case / while_loop / map_fn / scan / fold in eager mode and in graphs."""
import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework.graph import Graph


def run_graph(build):
    """Build ops in a fresh graph and evaluate `build()`'s tensors via its GraphModule."""
    graph = Graph()
    with graph.as_default():
        outputs = build()
    flat = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    module, extra = graph.build_module([], flat)
    values = module(*extra.values())
    return [v.detach().numpy() for v in values]


def both_modes(build):
    eager = build()
    eager = [np.asarray(v) for v in (eager if isinstance(eager, (list, tuple)) else [eager])]
    return eager, run_graph(build)


def test_cond_picks_branch_in_both_modes():
    def build():
        x = tf.constant([2.0, -3.0])
        return [tf.cond(x[0] > 0, lambda: x * 10.0, lambda: x),
                tf.cond(x[1] > 0, lambda: x * 10.0, lambda: x - 1.0)]
    eager, graph = both_modes(build)
    for values in (eager, graph):
        np.testing.assert_allclose(values[0], [20.0, -30.0])
        np.testing.assert_allclose(values[1], [1.0, -4.0])


def test_cond_rejects_mismatched_branches_in_graph():
    graph = Graph()
    with graph.as_default():
        with pytest.raises(TypeError):
            tf.cond(tf.constant(True), lambda: tf.constant(1), lambda: tf.constant(1.0))


def test_while_loop_sums_in_both_modes():
    def build():
        _, total = tf.while_loop(lambda i, t: i < 10, lambda i, t: (i + 1, t + i + 1),
                                 [tf.constant(0), tf.constant(0)])
        return total
    eager, graph = both_modes(build)
    assert int(eager[0]) == 55 and int(graph[0]) == 55


def test_while_loop_maximum_iterations_and_single_var():
    def build():
        return tf.while_loop(lambda i: i < 100, lambda i: i + 1, [tf.constant(0)],
                             maximum_iterations=7)
    eager, graph = both_modes(build)
    assert int(eager[0]) == 7 and int(graph[0]) == 7


def test_while_loop_shape_change_needs_invariants():
    graph = Graph()
    with graph.as_default():
        with pytest.raises(ValueError, match="shape_invariants"):
            tf.while_loop(lambda x: tf.shape(x)[0] < 4, lambda x: tf.concat([x, x], 0),
                          [tf.ones([1])])


def test_map_fn_scan_fold_in_both_modes():
    def build():
        x = tf.constant([1.0, 2.0, 3.0])
        return [tf.map_fn(lambda v: v * v, x),
                tf.scan(lambda acc, v: acc + v, x, initializer=tf.constant(0.0)),
                tf.foldl(lambda acc, v: acc * 10.0 + v, x, initializer=tf.constant(0.0)),
                tf.foldr(lambda acc, v: acc * 10.0 + v, x, initializer=tf.constant(0.0))]
    eager, graph = both_modes(build)
    for values in (eager, graph):
        np.testing.assert_allclose(values[0], [1.0, 4.0, 9.0])
        np.testing.assert_allclose(values[1], [1.0, 3.0, 6.0])
        np.testing.assert_allclose(values[2], 123.0)
        np.testing.assert_allclose(values[3], 321.0)


def test_case_first_true_predicate():
    x = tf.constant(5)
    out = tf.case([(x < 0, lambda: tf.constant(-1)), (x > 3, lambda: tf.constant(1))],
                  default=lambda: tf.constant(0))
    assert int(out) == 1
    (graph_out,) = run_graph(lambda: tf.case(
        [(tf.constant(5) < 0, lambda: tf.constant(-1))], default=lambda: tf.constant(0)))
    assert int(graph_out) == 0


def test_gradient_through_graph_while_loop_matches_finite_difference():
    """x -> x * 1.5 applied 4 times (initial carry built from a leaf that requires grad)."""
    graph = Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [])
        y = tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * 1.5 + v * v * 0.1),
                          [tf.constant(0), x])[1]
    module, extra = graph.build_module([x], [y])
    leaf = torch.tensor(0.7, requires_grad=True)
    (value,) = module(leaf)
    (grad,) = torch.autograd.grad(value, leaf)

    def f(v):
        for _ in range(4):
            v = v * 1.5 + v * v * 0.1
        return v
    eps = 1e-3
    numeric = (f(0.7 + eps) - f(0.7 - eps)) / (2 * eps)
    assert abs(float(grad) - numeric) < 1e-2


def test_gradient_through_graph_cond():
    graph = Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [])
        y = tf.cond(x > 0, lambda: x * x * 3.0, lambda: -x)
    module, _ = graph.build_module([x], [y])
    for point, expected in ((2.0, 12.0), (-2.0, -1.0)):
        leaf = torch.tensor(point, requires_grad=True)
        (grad,) = torch.autograd.grad(module(leaf)[0], leaf)
        assert float(grad) == pytest.approx(expected)


def test_graph_gradients_reach_variables_read_inside_loops_and_branches():
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        w = tf1.get_variable("w", initializer=2.0)
        x = tf1.placeholder(tf.float32, [])
        looped = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w),
                               [tf.constant(0), x])[1]
        branch = tf.cond(x > 0, lambda: w * 3.0, lambda: w)
        grads = tf.gradients(looped, [w, x]) + tf.gradients(branch, [w])
        counter = tf1.get_variable("n", initializer=0.0)
        update = tf.cond(x > 0, lambda: counter.assign_add(10.0),
                         lambda: counter.assign_sub(10.0))
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            # x * w**3: d/dw = 3 x w**2 = 18, d/dx = w**3 = 8; d(3w)/dw = 3
            np.testing.assert_allclose(sess.run([looped] + grads, {x: 1.5}),
                                       [12.0, 18.0, 8.0, 3.0])
            assert sess.run(update, {x: 1.0}) == 10.0 and sess.run(counter) == 10.0


def test_cond_branches_returning_operations_or_none():
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        counter = tf1.get_variable("counter", initializer=0.0)
        outside = counter.assign_add(100.0, read_value=False)
        pred = tf1.placeholder(tf.bool, [])
        grouped = tf.cond(pred, lambda: tf.group(counter.assign_add(1.0)),
                          lambda: tf.group(counter.assign_add(10.0)))
        assigned = tf.cond(pred, lambda: counter.assign_add(1000.0, read_value=False),
                           lambda: outside)
        mixed = tf.cond(pred, lambda: (tf.no_op(), tf.constant(1.0)),
                        lambda: (counter.assign_sub(1.0, read_value=False), tf.constant(2.0)))
        nothing = tf.cond(pred, lambda: None, lambda: None)
        with pytest.raises(ValueError, match="same number of results"):
            tf.cond(pred, lambda: None, lambda: tf.constant(1.0))
        with tf1.Session() as sess:
            sess.run(counter.initializer)
            # as in TF, an operation's place in the result holds the predicate's value
            assert sess.run(grouped, {pred: True}) is np.True_
            assert sess.run(grouped, {pred: False}) is np.False_
            assert sess.run(counter) == 11.0
            # an operation made outside the branch runs with the cond, whichever branch
            # is taken (in TF it is a control input of the branch's result)
            sess.run(assigned, {pred: True})
            assert sess.run(counter) == 1111.0
            sess.run(assigned, {pred: False})
            assert sess.run(counter) == 1211.0
            assert sess.run(mixed, {pred: False}) == (False, 2.0)
            assert sess.run(counter) == 1210.0
    assert nothing is None
    assert grouped.dtype == tf.bool and grouped.shape == []


def test_cond_of_branches_returning_none_runs_the_taken_branch_in_tf_function():
    total = tf.Variable(0.0)

    def add(amount):
        total.assign_add(amount)

    def subtract(amount):
        total.assign_sub(amount)

    @tf.function
    def step(amount):
        return tf.cond(amount > 0, lambda: add(amount), lambda: subtract(amount))

    assert step(tf.constant(2.0)) is None
    step(tf.constant(-3.0))
    assert float(total.numpy()) == 5.0


def test_ops_inside_bodies_and_branches_are_named_under_the_ops_scope():
    inner = []

    def named(tensor):
        inner.append(tensor.name)
        return tensor

    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(1.0)
        with tf.name_scope("outer"):
            tf.while_loop(lambda v: v < 10.0, lambda v: named(tf.add(v, 1.0, name="step")), [x])
            tf.cond(x > 0, lambda: named(tf.multiply(x, 2.0, name="double")), lambda: x)
            tf.map_fn(lambda row: named(tf.square(row, name="sq")), tf.constant([1.0, 2.0]))
        top = tf.add(x, 1.0, name="step")
    assert inner == ["outer/while/step:0", "outer/cond/double:0", "outer/map/sq:0"]
    assert top.name == "step:0"


def test_tf2_while_loop_keeps_the_structure_of_loop_vars_and_tf1_unwraps_one():
    """TF 2's while_loop returns loop_vars' structure; TF1's unwraps a one-element list
    (so `tf.while_loop(c, b, [x])[0]` is the loop variable in TF 2, its first row in TF1)."""
    x = tf.constant([1.0, 2.0])
    cond = lambda v: tf.reduce_sum(v) < 10  # noqa: E731
    body = lambda v: v * 2  # noqa: E731
    result = tf.compat.v2.while_loop(cond, body, [x])
    assert isinstance(result, list) and len(result) == 1
    np.testing.assert_allclose(result[0].numpy(), [4.0, 8.0])
    np.testing.assert_allclose(tf.compat.v1.while_loop(cond, body, [x]).numpy(), [4.0, 8.0])
    with tf.Graph().as_default():
        placeholder = tf.compat.v1.placeholder(tf.float32, [2])
        graph_result = tf.compat.v2.while_loop(cond, body, [placeholder])
        with tf.compat.v1.Session() as sess:
            value, = sess.run(graph_result, {placeholder: [1.0, 2.0]})
    np.testing.assert_allclose(value, [4.0, 8.0])


def test_while_loop_carries_a_tensor_array_whose_elements_have_an_unknown_batch_dim():
    """An RNN-style tf.function over [None, None, 3] inputs: the TensorArray written in the
    loop learns the element shape [None, 4] from the body (TF's TensorListReserve with an
    unknown element shape); each run allocates its storage at the first write."""
    weights = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0)

    @tf.function(input_signature=[tf.TensorSpec([None, None, 3], tf.float32)])
    def run(x):
        steps = tf.shape(x)[1]
        h = tf.zeros([tf.shape(x)[0], 4])
        outputs = tf.TensorArray(tf.float32, size=steps)
        for t in tf.range(steps):
            h = tf.tanh(tf.matmul(x[:, t, :], weights) + h)
            outputs = outputs.write(t, h)
        return outputs.stack()

    x = np.linspace(-1.0, 1.0, 2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3)
    h, expected = np.zeros([2, 4], np.float32), []
    for t in range(5):
        h = np.tanh(x[:, t, :] @ weights.numpy() + h)
        expected.append(h)
    np.testing.assert_allclose(run(tf.constant(x)).numpy(), np.stack(expected), rtol=1e-5)
    assert run(tf.constant(x[:1, :2])).shape == (2, 1, 4)


def test_tensor_array_unstacks_a_tensor_with_an_unknown_batch_dim_in_a_function():
    """TensorArray.unstack of [time, None, n] (Keras' RNN input TensorArray) in a
    tf.function: the storage is allocated when the batch size is known, at the write."""
    @tf.function(input_signature=[tf.TensorSpec([3, None, 2], tf.float32)])
    def last_step(x):
        steps = tf.TensorArray(tf.float32, size=3).unstack(x)
        return steps.read(2)

    x = np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    np.testing.assert_array_equal(last_step(tf.constant(x)).numpy(), x[2])
