"""Hot paths make no reference cycles: cyclic garbage keeps tensors (gradients, fetched
values, dataset elements) alive until the cycle collector runs, so large buffers churn
through the allocator (page faults measured at ~25% of an MLP train step)."""
import gc

import numpy as np
import pytest

import tfcompat as tf


def _cyclic_garbage(fn, repeats=3):
    """Objects the cycle collector finds after `fn` runs `repeats` times (after a warm-up)."""
    fn()
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            fn()
        return gc.collect()
    finally:
        gc.enable()


def test_gradient_tape_and_apply_gradients():
    variables = [tf.Variable(np.ones((3, 2), np.float32)), tf.Variable(np.zeros(2, np.float32))]
    x = tf.constant(np.ones((4, 3), np.float32))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.matmul(x, variables[0]) + variables[1])
        grads = tape.gradient(loss, {"w": variables[0], "b": [variables[1]]})
        optimizer.apply_gradients([(grads["w"], variables[0]), (grads["b"][0], variables[1])])
    assert _cyclic_garbage(step) == 0


def test_nest_functions():
    structure = {"a": [tf.constant(1.0), (tf.constant(2.0),)], "b": tf.constant(3.0)}

    def run():
        flat = tf.nest.flatten(structure)
        tf.nest.assert_same_structure(structure, tf.nest.pack_sequence_as(structure, flat))
        tf.nest.map_structure(lambda t: t * 2, structure)
    assert _cyclic_garbage(run) == 0


def test_session_run_with_nested_fetches():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        fetches = {"sum": tf.reduce_sum(x), "pair": (x * 2, [x + 1])}
        with tf.compat.v1.Session() as sess:
            feed = {x: np.arange(3, dtype=np.float32)}
            assert _cyclic_garbage(lambda: sess.run(fetches, feed)) == 0


def test_dataset_iteration_of_structured_elements():
    dataset = tf.data.Dataset.from_tensor_slices(
        {"x": np.arange(8, dtype=np.float32), "y": (np.arange(8), np.ones(8))}).batch(2)
    assert _cyclic_garbage(lambda: [element for element in dataset]) == 0


@pytest.mark.parametrize("layer_count", [1, 3])
def test_keras_weight_properties(layer_count):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2) for _ in range(layer_count)])
    model.build((None, 3))
    assert _cyclic_garbage(lambda: (model.trainable_variables, model.layers)) == 0
