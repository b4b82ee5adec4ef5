"""State TensorFlow keeps per thread: tapes, name and variable scopes, the graph being built.

Each test runs its work in several threads started together and compares with the same work
done alone (or with hand-computed values): training with tapes, building Keras models,
tracing tf.functions, running one Session and iterating datasets from several threads.
"""
import threading
import time

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework.graph import Graph

THREADS = 4


def barrier():
    """A barrier for the test's threads (it breaks, rather than hangs, if one fails)."""
    return threading.Barrier(THREADS, timeout=30)


def run_in_threads(work, count=THREADS):
    """`work(i)` in `count` threads started together; their results in order (re-raises the
    first exception a thread raised)."""
    start = threading.Barrier(count, timeout=30)
    results, failures = [None] * count, []

    def target(i):
        try:
            start.wait()
            results[i] = work(i)
        except BaseException as error:     # noqa: BLE001 - re-raised in the caller
            failures.append(error)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return results


# ---------------------------------------------------------------- (a) training with tapes


def train_linear_model(seed, steps=15, recording=None):
    """A few SGD steps of a linear regression on data of `seed`; the final weights.

    `recording`, a barrier, makes the threads' tapes all record before any reads a variable.
    """
    rng = np.random.RandomState(seed)
    x = tf.constant(rng.randn(16, 3).astype(np.float32))
    y = tf.constant(rng.randn(16, 1).astype(np.float32))
    w = tf.Variable(rng.randn(3, 1).astype(np.float32))
    b = tf.Variable(np.zeros([1], np.float32))
    for _ in range(steps):
        with tf.GradientTape() as tape:
            if recording is not None:
                recording.wait()
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        grad_w, grad_b = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * grad_w)
        b.assign_sub(0.1 * grad_b)
        assert tape.watched_variables() == (w, b)
    return np.concatenate([w.numpy().ravel(), b.numpy()])


def test_each_thread_trains_its_own_model_as_it_would_alone():
    alone = [train_linear_model(i) for i in range(THREADS)]
    recording = barrier()
    together = run_in_threads(lambda i: train_linear_model(i, recording=recording))
    for expected, got in zip(alone, together):
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)


def test_a_tape_sees_only_the_variables_read_by_its_own_thread():
    variables = [tf.Variable(float(i + 1)) for i in range(THREADS)]
    inside = barrier()

    def work(i):
        with tf.GradientTape() as tape:
            inside.wait()           # every thread's tape records while each reads
            y = variables[i] * variables[i]
            inside.wait()
        return tape.watched_variables(), tape.gradient(y, variables[i]).numpy()

    for i, (watched, grad) in enumerate(run_in_threads(work)):
        assert watched == (variables[i],)
        assert grad == 2.0 * (i + 1)


def test_stop_recording_in_one_thread_leaves_other_threads_recording():
    variables = [tf.Variable(3.0) for _ in range(THREADS)]
    stopped = barrier()

    def work(i):
        with tf.GradientTape() as tape:
            if i == 0:
                with tape.stop_recording():
                    stopped.wait()
                    stopped.wait()
                y = variables[i] * 2.0
            else:
                stopped.wait()
                y = variables[i] * 2.0
                stopped.wait()
        return tape.gradient(y, variables[i]).numpy()

    assert run_in_threads(work) == [2.0] * THREADS


def test_eager_name_scopes_are_per_thread():
    inside = barrier()

    def work(i):
        with tf.name_scope("thread%d" % i) as scope:
            inside.wait()
            with tf.name_scope("inner") as inner:
                inside.wait()
                return scope, inner

    assert run_in_threads(work) == [("thread%d/" % i, "thread%d/inner/" % i)
                                    for i in range(THREADS)]


def test_graph_name_scopes_and_control_dependencies_are_per_thread_in_a_shared_graph():
    graph = Graph()
    inside = barrier()
    with graph.as_default():
        guards = [tf.no_op(name="guard%d" % i) for i in range(THREADS)]

    def work(i):
        with graph.as_default(), tf.name_scope("thread%d" % i), \
                tf.control_dependencies([guards[i]]):
            inside.wait()
            ops = [tf.constant(float(k), name="c") for k in range(5)]
            inside.wait()
        return ops

    for i, ops in enumerate(run_in_threads(work)):
        assert [t.op.name for t in ops] == ["thread%d/c" % i] + [
            "thread%d/c_%d" % (i, k) for k in range(1, 5)]
        assert all(t.op.control_inputs == [guards[i]] for t in ops)


def test_variable_scopes_are_per_thread_in_a_shared_graph():
    graph = Graph()
    inside = barrier()

    def work(i):
        with graph.as_default(), tf.compat.v1.variable_scope("scope%d" % i):
            inside.wait()
            variable = tf.compat.v1.get_variable("v", shape=[2])
            inside.wait()
            return tf.compat.v1.get_variable_scope().name, variable.name

    assert run_in_threads(work) == [("scope%d" % i, "scope%d/v:0" % i)
                                    for i in range(THREADS)]


def test_a_graph_made_in_one_thread_is_used_in_another_with_as_default():
    graph = Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])

    def work(i):
        assert tf.compat.v1.get_default_graph() is not graph
        with graph.as_default():
            assert tf.compat.v1.get_default_graph() is graph
            return (x * float(i)).graph is graph

    assert run_in_threads(work) == [True] * THREADS


# ---------------------------------------------------------------- (b) Keras models


def build_keras_models(i):
    """A Sequential CNN, a functional LSTM model and a functional MLP; their output shapes."""
    layers = tf.keras.layers
    cnn = tf.keras.Sequential([
        layers.Conv2D(4 + i, 3, activation="relu", input_shape=(8, 8, 1)),
        layers.Flatten(),
        layers.Dense(3 + i)])
    sequence = tf.keras.Input(shape=(5, 2))
    lstm = tf.keras.Model(sequence, layers.Dense(2)(layers.LSTM(6 + i)(sequence)))
    features = tf.keras.Input(shape=(7,))
    hidden = layers.Dense(16, activation="relu")(features)
    mlp = tf.keras.Model(features, layers.Dense(1 + i)(layers.Dropout(0.5)(hidden)))
    outputs = [cnn(np.zeros([2, 8, 8, 1], np.float32)),
               lstm(np.zeros([3, 5, 2], np.float32)),
               mlp(np.zeros([4, 7], np.float32))]
    return ([m.output_shape for m in (cnn, lstm, mlp)], [tuple(o.shape) for o in outputs])


def expected_keras_shapes(i):
    return ([(None, 3 + i), (None, 2), (None, 1 + i)], [(2, 3 + i), (3, 2), (4, 1 + i)])


def test_keras_models_built_concurrently_have_the_right_shapes():
    assert run_in_threads(build_keras_models) == [expected_keras_shapes(i)
                                                  for i in range(THREADS)]


def test_layers_created_concurrently_get_distinct_names():
    names = run_in_threads(lambda i: [tf.keras.layers.Dense(1).name for _ in range(50)])
    flat = [name for per_thread in names for name in per_thread]
    assert len(set(flat)) == len(flat) == 50 * THREADS


def test_learning_phase_scope_holds_for_its_own_thread_only():
    inside = barrier()

    def work(i):
        if i == 0:
            with tf.keras.backend.learning_phase_scope(1):
                inside.wait()
                phase = tf.keras.backend.learning_phase()
                inside.wait()
                return phase
        inside.wait()
        phase = tf.keras.backend.learning_phase()
        inside.wait()
        return phase

    assert run_in_threads(work) == [1] + [0] * (THREADS - 1)


# ---------------------------------------------------------------- (c) tf.function


def trace_own_function(i):
    """A tf.function made in this thread, with a variable created in its first trace."""
    state = {}

    @tf.function
    def affine(x):
        if "w" not in state:
            state["w"] = tf.Variable(float(i + 1))
        return x * state["w"] + float(i)

    first = affine(tf.constant([1.0, 2.0])).numpy()
    second = affine(tf.constant([[3.0]])).numpy()
    return first.tolist(), second.tolist(), affine.experimental_get_tracing_count()


def test_each_thread_traces_its_own_function():
    # 3 traces, as in TF 2.15: a first trace that creates a variable is traced again
    assert run_in_threads(trace_own_function) == [
        ([(i + 1) * 1.0 + i, (i + 1) * 2.0 + i], [[(i + 1) * 3.0 + i]], 3)
        for i in range(THREADS)]


def test_a_shared_function_traced_concurrently_with_different_signatures():
    @tf.function
    def total(x):
        return tf.reduce_sum(x * 2.0)

    def work(i):
        results = []
        for _ in range(3):
            results.append(float(total(tf.ones([i + 1, 2])).numpy()))
        return results

    assert run_in_threads(work) == [[4.0 * (i + 1)] * 3 for i in range(THREADS)]
    assert total.experimental_get_tracing_count() == THREADS


def test_a_shared_function_creates_its_variables_once_under_concurrent_first_calls():
    created = []

    class Scale(object):
        def __init__(self):
            self.w = None

        @tf.function
        def __call__(self, x):
            if self.w is None:
                time.sleep(0.05)    # while another thread may trace too
                self.w = tf.Variable(3.0)
                created.append(self.w)
            return x * self.w

    scale = Scale()
    results = run_in_threads(lambda i: float(scale(tf.constant(float(i))).numpy()))
    assert results == [3.0 * i for i in range(THREADS)]
    assert len(created) == 1


# ---------------------------------------------------------------- (d) one Session


def test_one_session_runs_a_graph_from_several_threads_with_different_feeds():
    graph = Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        w = tf.Variable(2.0)
        y = tf.reduce_sum(x * w) + 1.0
        init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(init)

        def work(i):
            return [float(sess.run(y, feed_dict={x: np.full([i + 1], float(k), np.float32)}))
                    for k in range(20)]

        results = run_in_threads(work)
    assert results == [[2.0 * k * (i + 1) + 1.0 for k in range(20)] for i in range(THREADS)]


# ---------------------------------------------------------------- (e) tf.data


def test_datasets_iterated_in_several_threads():
    shared = tf.data.Dataset.range(40).map(lambda v: v * 2).batch(8)

    def work(i):
        own = tf.data.Dataset.from_tensor_slices(np.arange(10 * i, 10 * i + 10)).map(
            lambda v: v + 1).shuffle(10, seed=i).batch(4)
        own_total = sum(int(np.sum(batch.numpy())) for batch in own)
        shared_batches = [batch.numpy().tolist() for batch in shared]
        return own_total, shared_batches

    expected_shared = [list(range(2 * 8 * k, 2 * 8 * (k + 1), 2)) for k in range(5)]
    assert run_in_threads(work) == [(sum(range(10 * i + 1, 10 * i + 11)), expected_shared)
                                    for i in range(THREADS)]


# ---------------------------------------------------------------- stress


def train_build_and_trace(i):
    return (train_linear_model(i, steps=5).tolist(), build_keras_models(i),
            trace_own_function(i))


@pytest.mark.parametrize("repeat", range(3))
def test_threads_training_building_and_tracing_together(repeat):
    expected = [(train_linear_model(i, steps=5).tolist(), expected_keras_shapes(i),
                 trace_own_function(i)) for i in range(THREADS)]
    assert run_in_threads(train_build_and_trace) == expected
