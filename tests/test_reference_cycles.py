"""Hot paths make no reference cycles: cyclic garbage keeps tensors (gradients, fetched
values, dataset elements) alive until the cycle collector runs, so large buffers churn
through the allocator (page faults measured at ~25% of an MLP train step).

Each check runs a path with the cycle collector off and asserts that the torch tensors it
produced were freed by reference counting alone as soon as they were dropped.
"""
import gc
import weakref

import numpy as np
import pytest

import tfcompat as tf


def _freed_by_refcount(run, repeats=2):
    """True if every torch tensor `run()` returns is freed once dropped, without the cycle
    collector (warm-up first: caches filled on a first call are not garbage)."""
    run()
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            refs = [weakref.ref(t) for t in run()]
            assert refs
            if any(ref() is not None for ref in refs):
                return False
        return True
    finally:
        gc.enable()


def _torch_tensors(structure):
    return [leaf._t for leaf in tf.nest.flatten(structure)]


def test_gradient_tape_and_apply_gradients():
    variables = [tf.Variable(np.ones((3, 2), np.float32)), tf.Variable(np.zeros(2, np.float32))]
    x = tf.constant(np.ones((4, 3), np.float32))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.matmul(x, variables[0]) + variables[1])
        grads = tape.gradient(loss, {"w": variables[0], "b": [variables[1]]})
        optimizer.apply_gradients([(grads["w"], variables[0]), (grads["b"][0], variables[1])])
        return _torch_tensors(grads) + [loss._t]
    assert _freed_by_refcount(step)


def test_nest_functions():
    def run():
        structure = {"a": [tf.constant(1.0), (tf.constant(2.0),)], "b": tf.constant(3.0)}
        flat = tf.nest.flatten(structure)
        packed = tf.nest.pack_sequence_as(structure, flat)
        tf.nest.assert_same_structure(structure, packed)
        doubled = tf.nest.map_structure(lambda t: t * 2, structure)
        return _torch_tensors(structure) + _torch_tensors(doubled)
    assert _freed_by_refcount(run)


def test_session_run_with_nested_fetches():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        fetches = {"sum": tf.reduce_sum(x), "pair": (x * 2, [x + 1])}
    sess = tf.compat.v1.Session(graph=graph)
    feed = {x: np.arange(3, dtype=np.float32)}
    sess.run(fetches, feed)
    gc.collect()
    gc.disable()
    try:
        values = tf.nest.flatten(sess.run(fetches, feed))
        refs = [weakref.ref(v) for v in values if isinstance(v, np.ndarray) and v.ndim]
        del values
    finally:
        gc.enable()
    assert len(refs) == 2 and all(ref() is None for ref in refs)


def test_dataset_iteration_of_structured_elements():
    dataset = tf.data.Dataset.from_tensor_slices(
        {"x": np.arange(8, dtype=np.float32), "y": (np.arange(8), np.ones(8))}).batch(2)
    assert _freed_by_refcount(
        lambda: [t for element in dataset for t in _torch_tensors(element)])


def _tfcompat_functions_in_cycles(run):
    """tfcompat functions (closures) that `run()` leaves in cyclic garbage."""
    run()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return [o for o in gc.garbage if callable(o) and "tfcompat" in
                getattr(getattr(o, "__code__", None), "co_filename", "")]
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()


@pytest.mark.parametrize("layer_count", [1, 3])
def test_keras_weight_properties(layer_count):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2) for _ in range(layer_count)])
    model.build((None, 3))

    def run():
        assert len(model.trainable_variables) == 2 * layer_count and model.layers
    assert _tfcompat_functions_in_cycles(run) == []
