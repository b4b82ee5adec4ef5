"""A tf.function runs only what its outputs need plus its stateful ops, as TF 2 does.

Expected behaviour checked against TF 2.21 (tensorflow-cpu, default grappler config): an
unused stateless op that would fail does not run; unused assertions, prints, variable
updates, py_functions and metric updates do; an unused legacy random op
(`tf.random.uniform`) is pruned like an unused stateless one.
"""
import inspect
import sys
import types

import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api
from tfcompat.framework import graph as graph_module


@pytest.fixture(autouse=True)
def tf2_semantics():
    previous = _api.flavor()
    _api.set_flavor("v2")
    yield
    _api.set_flavor(previous)


def test_unused_failing_gather_does_not_run_as_in_the_intro_to_graphs_guide():
    def unused_return(x):
        tf.gather(x, [1])       # index 1 of a length-1 vector: fails if it runs
        return x

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 1"):
        unused_return(tf.constant([0.0]))
    result = tf.function(unused_return)(tf.constant([0.0]))
    np.testing.assert_array_equal(result.numpy(), [0.0])


def test_unused_failing_ops_in_cond_branches_and_loop_bodies_do_not_run():
    x = tf.constant([0.0])

    def branch():
        tf.gather(x, [1])
        return x + 1.0

    def body(i):
        tf.gather(x, [1])
        return (i + 1,)

    @tf.function
    def f(x):
        return tf.cond(x[0] > -1.0, branch, lambda: x), tf.while_loop(
            lambda i: i < 2, body, [tf.constant(0)])

    branch_value, loop_vars = f(x)
    np.testing.assert_array_equal(branch_value.numpy(), [1.0])
    assert [int(count) for count in tf.nest.flatten(loop_vars)] == [2]


def test_unused_assertions_still_raise():
    @tf.function
    def assert_equal(x):
        tf.debugging.assert_equal(x, x + 1.0)
        return x

    @tf.function
    def assert_op(x):
        tf.Assert(x[0] > 1.0, [x])
        return x

    for fn in (assert_equal, assert_op):
        with pytest.raises(tf.errors.InvalidArgumentError):
            fn(tf.constant([0.0]))
    np.testing.assert_array_equal(assert_op(tf.constant([2.0])).numpy(), [2.0])


def test_unused_print_still_prints(capsys):
    @tf.function
    def f(x):
        tf.print("printed", x, output_stream=sys.stdout)
        tf.compat.v1.Print(x, [x], "v1 print ")
        return x * 2.0

    assert float(f(tf.constant(3.0))) == 6.0
    assert float(f(tf.constant(4.0))) == 8.0
    captured = capsys.readouterr()
    assert captured.out == "printed 3\nprinted 4\n"
    assert captured.err == "v1 print [3]\nv1 print [4]\n"


def test_unused_variable_updates_still_run():
    v = tf.Variable(1.0)
    w = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def f(x):
        v.assign(5.0)
        v.assign_add(x)
        w.scatter_update(tf.IndexedSlices(tf.constant([9.0]), tf.constant([1])))
        return x

    assert float(f(tf.constant(2.0))) == 2.0
    assert float(v.numpy()) == 7.0
    np.testing.assert_array_equal(w.numpy(), [1.0, 9.0, 3.0])


def test_unused_update_in_a_cond_branch_still_runs():
    v = tf.Variable(0.0)

    def taken():
        v.assign_add(1.0)
        return tf.constant(1)

    @tf.function
    def f(x):
        tf.cond(x > 0.0, taken, lambda: tf.constant(0))
        return x

    f(tf.constant(1.0))
    f(tf.constant(-1.0))
    f(tf.constant(1.0))
    assert float(v.numpy()) == 2.0


def test_unused_py_function_and_metric_update_still_run():
    calls = []

    def record(value):
        calls.append(float(value))
        return value

    metric = tf.keras.metrics.Mean()

    @tf.function
    def f(x):
        tf.py_function(record, [x], tf.float32)
        metric.update_state(x)
        return x

    f(tf.constant(2.0))
    f(tf.constant(4.0))
    assert calls == [2.0, 4.0]
    assert float(metric.result()) == 3.0


def test_unused_random_ops_are_pruned_stateless_and_legacy_alike():
    """Both would fail on an empty [0, 0) range if they ran; TF 2.21 returns 1."""
    @tf.function
    def f(n):
        tf.random.stateless_uniform([2], seed=[1, 2], maxval=n, dtype=tf.int32)
        tf.random.uniform([2], maxval=n, dtype=tf.int32)
        return n + 1

    assert int(f(tf.constant(0))) == 1


def test_pruning_leaves_trace_count_and_outputs_unchanged():
    traces = []

    @tf.function
    def f(x, y):
        traces.append(1)
        unused = tf.matmul(x, y)
        del unused
        total = tf.reduce_sum(x) + tf.reduce_sum(y)
        return {"total": total, "doubled": x * 2.0}

    x = tf.constant([[1.0, 2.0]])
    for y in (tf.constant([[3.0], [4.0]]), tf.constant([[5.0], [6.0]])):
        out = f(x, y)
        np.testing.assert_array_equal(out["doubled"].numpy(), [[2.0, 4.0]])
    assert float(out["total"]) == 14.0
    assert len(traces) == 1 and f.experimental_get_tracing_count() == 1
    concrete = f.get_concrete_function(x, y)
    assert [op.type for op in concrete.graph.get_operations()].count("MatMul") == 1


def test_every_op_that_writes_a_variable_is_stateful():
    """Guards STATEFUL_OP_TYPES: a registered op whose torch function updates a variable's
    storage (`variable_storage`) must be kept by tf.function when its result is unused."""
    writers = set()
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("tfcompat") or module is None:
            continue
        for value in list(vars(module).values()):
            if not isinstance(value, types.FunctionType):   # (FLAGS.x would parse argv)
                continue
            impl = value.__dict__.get("_tfcompat_impl")
            if impl is None or not callable(impl):
                continue
            try:
                source = inspect.getsource(inspect.unwrap(impl))
            except (OSError, TypeError):
                continue
            if "variable_storage(" in source:
                writers.add(value._tfcompat_op_type)
    assert "AssignVariableOp" in writers and "KerasMetricUpdate" in writers
    assert writers - graph_module.STATEFUL_OP_TYPES == set()


def test_captures_of_pruned_ops_are_still_listed_as_in_tf():
    captured = tf.constant([1.0, 2.0])
    variable = tf.Variable(3.0)

    @tf.function
    def f(x):
        captured * 2.0
        variable * 2.0
        return x

    text = f.get_concrete_function(tf.constant(1.0)).pretty_printed_signature()
    captures = text.split("Captures:\n")[1].splitlines()
    assert [line.split(": ", 1)[1] for line in captures] == [
        "TensorSpec(shape=(2,), dtype=tf.float32, name=None)",
        "TensorSpec(shape=(), dtype=tf.resource, name=None)"]


def test_unused_stateless_control_flow_and_gradients_are_pruned_stateful_ones_run():
    """TF's StatelessIf / StatelessWhile and an unused gradient are pruned; an If or While
    holding a stateful op (an assign) runs even when its result is unused."""
    counter = tf.Variable(0)

    @tf.function
    def f(x):
        bad = tf.cast(x, tf.int32) + 5              # out of range: would fail if run
        tf.cond(x > 0, lambda: tf.gather(x[None], bad), lambda: x[None])
        tf.while_loop(lambda i: i < 3, lambda i: i + tf.gather([1], bad), [0])
        tf.cond(x > 0, lambda: counter.assign_add(1), lambda: counter.assign_add(10))
        tf.while_loop(lambda i: i < 2, lambda i: (counter.assign_add(100), i + 1)[1], [0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.gradient(y, x)
        return x + 1

    assert float(f(tf.constant(2.0))) == 3.0
    assert int(counter.numpy()) == 201
