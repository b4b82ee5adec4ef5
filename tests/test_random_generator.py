"""tf.random.Generator and the tf.random.stateless_* ops give real TensorFlow's numbers.

The constants were printed by real TF 2.21 (tests/fixtures/random_generator/make_values.py).
"""
import os

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

F32 = dict(rtol=2e-6, atol=2e-7)   # float32 Box-Muller: torch's sin/log vs glibc's, 1 ulp

NORMAL = [0.4384227395057678, -0.5343984365463257, -0.07710261642932892]


def test_from_seed_samples_and_state_match_tf():
    g = tf.random.Generator.from_seed(1)
    np.testing.assert_array_equal(g.state.numpy(), [1, 0, 0])
    assert g.algorithm == 1 and g.state.dtype == tf.int64 and not g.state.trainable
    np.testing.assert_allclose(g.normal([3]).numpy(), NORMAL, **F32)
    np.testing.assert_array_equal(g.state.numpy(), [769, 0, 0])
    np.testing.assert_array_equal(g.uniform([3]).numpy(),
                                  np.float32([0.6941341161727905, 0.7800472974777222,
                                              0.3360424041748047]))
    ints = g.uniform([4], minval=0, maxval=10, dtype=tf.int32)
    assert ints.dtype == tf.int32
    np.testing.assert_array_equal(ints.numpy(), [0, 0, 5, 3])
    np.testing.assert_array_equal(g.uniform([3], minval=-5, maxval=1000, dtype=tf.int64),
                                  [878, 385, 354])
    np.testing.assert_array_equal(g.uniform_full_int([3], dtype=tf.int64),
                                  [368375583331789817, -5845026356432836628,
                                   -1386305828986520868])
    np.testing.assert_allclose(g.truncated_normal([6]).numpy(),
                               [-0.6048195958137512, 1.9297198057174683, 0.5368305444717407,
                                -0.42114630341529846, 0.0061650872230529785,
                                0.9969515800476074], **F32)
    normal64 = g.normal([3], dtype=tf.float64)
    assert normal64.dtype == tf.float64
    np.testing.assert_allclose(normal64.numpy(), [0.16804838647488948, 0.11959531552604367,
                                                  -0.17439503508769136], rtol=1e-14)
    np.testing.assert_array_equal(g.uniform([3], dtype=tf.float64).numpy(),
                                  [0.666464780506862, 0.24085619857946705,
                                   0.38171077370732065])
    np.testing.assert_array_equal(g.state.numpy(), [7169, 0, 0])


def test_make_seeds_split_and_other_states_match_tf():
    g = tf.random.Generator.from_state([7169, 0, 0], alg="philox")
    np.testing.assert_array_equal(g.make_seeds(2).numpy(),
                                  [[3443162360362063460, 3091482613257438216], [0, 0]])
    parts = g.split(2)
    np.testing.assert_array_equal([p.state.numpy() for p in parts],
                                  [[0, 0, -7449874438325857111], [0, 0, -3521135459882427798]])
    np.testing.assert_allclose(parts[0].normal([2]).numpy(),
                               [-1.4826741218566895, -0.30347806215286255], **F32)
    np.testing.assert_array_equal(tf.random.Generator.from_seed(12345678901234).state.numpy(),
                                  [12345678901234, 0, 0])
    np.testing.assert_array_equal(tf.random.create_rng_state(2 ** 64 + 5, "philox"), [5, 1, 0])
    np.testing.assert_allclose(
        tf.random.Generator.from_state([1, 2, 3], alg=tf.random.Algorithm.PHILOX).normal([5]),
        [-0.2601637542247772, -1.2205220460891724, -0.26770853996276855,
         -0.06486105173826218, 1.9196734428405762], **F32)


def test_shapes_dtypes_mean_stddev_and_reset_match_tf():
    g = tf.random.Generator.from_seed(7)
    np.testing.assert_allclose(
        g.normal([2, 5], mean=3.0, stddev=2.0).numpy(),
        [[0.35192084312438965, 3.5757133960723877, 1.2484197616577148, 2.822859764099121,
          4.384232997894287], [4.684314250946045, 2.8724300861358643, 4.856015682220459,
                               1.7920422554016113, 2.6466145515441895]], rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(
        g.truncated_normal([9], dtype=tf.float64).numpy(),
        [1.2199831289893301, -0.5995406475316304, -0.9787823362717265, 0.38406424070263867,
         -0.8408784474289563, 0.03714063880647314, 0.8658079879670322, -0.8578234037696614,
         0.9568213064114908], rtol=1e-14)
    half = g.uniform([5], dtype=tf.float16)
    assert half.dtype == tf.float16
    np.testing.assert_array_equal(half.numpy(), np.float16([0.8896484375, 0.6708984375,
                                                            0.0146484375, 0.4560546875,
                                                            0.4580078125]))
    np.testing.assert_array_equal(g.normal([5], dtype=tf.float16).numpy(),
                                  np.float16([-0.48583984375, 0.5009765625, -0.083740234375,
                                              -1.0087890625, -1.2353515625]))
    g.reset_from_seed(1)
    np.testing.assert_allclose(g.normal([3]).numpy(), NORMAL, **F32)


def test_generator_in_tf_function_advances_its_state_per_call():
    g = tf.random.Generator.from_seed(5)

    @tf.function
    def draw(gen):
        return gen.normal([2])

    first, second = draw(g).numpy(), draw(g).numpy()
    np.testing.assert_allclose([first, second],
                               [[1.0278524160385132, 0.2797411382198334],
                                [-0.6037739515304565, 0.0843653529882431]], **F32)
    np.testing.assert_array_equal(g.state.numpy(), [5 + 2 * 512, 0, 0])


def test_generator_in_a_tf1_graph_draws_tf_values_per_run():
    with tf.compat.v1.Graph().as_default():
        g = tf.random.Generator.from_seed(1)
        sample = g.normal([3])
        assert sample.shape.as_list() == [3]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            np.testing.assert_allclose(sess.run(sample), NORMAL, **F32)
            np.testing.assert_array_equal(sess.run(g.state), [769, 0, 0])
            assert not np.allclose(sess.run(sample), NORMAL)


def test_state_is_checkpointed_under_tf_key(tmp_path):
    g = tf.random.Generator.from_seed(3)
    g.normal([4])
    path = tf.train.Checkpoint(generator=g).save(os.path.join(str(tmp_path), "ckpt"))
    keys = [name for name, _ in tf.train.list_variables(path)]
    assert "generator/_state_var/.ATTRIBUTES/VARIABLE_VALUE" in keys
    expected = g.normal([3]).numpy()
    restored = tf.random.Generator.from_seed(99)
    tf.train.Checkpoint(generator=restored).restore(path)
    np.testing.assert_array_equal(restored.normal([3]).numpy(), expected)


def test_global_generator_and_copies():
    tf.random.set_global_generator(tf.random.Generator.from_seed(1))
    np.testing.assert_allclose(tf.random.get_global_generator().normal([3]), NORMAL, **F32)
    copy = tf.random.Generator(copy_from=tf.random.get_global_generator())
    np.testing.assert_array_equal(copy.state.numpy(), [769, 0, 0])
    fresh = tf.random.Generator.from_non_deterministic_state()
    assert fresh.state.shape.as_list() == [3]
    tf.random.set_global_generator(fresh)
    assert tf.random.experimental.get_global_generator() is fresh


def test_generator_errors():
    g = tf.random.Generator.from_seed(1)
    with pytest.raises(ValueError, match="minval and maxval must be both"):
        g.uniform([2], maxval=None, dtype=tf.int32)
    with pytest.raises(NotImplementedError, match="ThreeFry"):
        tf.random.Generator.from_seed(1, alg="threefry")
    with pytest.raises(ValueError):
        tf.random.Generator.from_state([1, 2], alg="philox")
    with pytest.raises(errors.InvalidArgumentError, match="minval < maxval"):
        g.uniform([2], minval=3, maxval=3, dtype=tf.int32)
    with pytest.raises(NotImplementedError, match="binomial"):
        g.binomial([2], counts=5.0, probs=0.5)


STATELESS = [
    (lambda: tf.random.stateless_uniform([5], seed=[1, 2]),
     [0.8440604209899902, 0.19204533100128174, 0.9962232112884521, 0.16038739681243896,
      0.27199018001556396]),
    (lambda: tf.random.stateless_uniform([2, 3], seed=[-3, 9], minval=-2.0, maxval=5.0),
     [[0.29259490966796875, 1.0778632164001465, 4.9704179763793945],
      [0.792454719543457, -1.5282368659973145, 3.024214744567871]]),
    (lambda: tf.random.stateless_normal([5], seed=[1, 2]),
     [0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225,
      -1.301589846611023]),
    (lambda: tf.random.stateless_normal([3], seed=[1, 2], dtype=tf.float64),
     [-0.1423118100189212, 0.7406072461585091, -1.469047669443883]),
    (lambda: tf.random.stateless_truncated_normal([7], seed=[1, 2]),
     [0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225,
      0.16820591688156128, -1.6850333213806152, 0.24202857911586761]),
    (lambda: tf.random.stateless_uniform([5], seed=[1, 2], minval=0, maxval=100,
                                         dtype=tf.int32), [40, 49, 94, 79, 27]),
    (lambda: tf.random.stateless_uniform([3], seed=[1, 2], minval=None, maxval=None,
                                         dtype=tf.int64),
     [7464880146280614444, 1591045637757961278, -1057468755545501549]),
    (lambda: tf.random.experimental.stateless_split([1, 2], 3),
     [[1105988140, 1738052849], [-335576002, 370444179], [10670227, -246211131]]),
    (lambda: tf.random.split(tf.constant([1, 2]), 3),
     [[1105988140, 1738052849], [-335576002, 370444179], [10670227, -246211131]]),
    (lambda: tf.random.experimental.stateless_fold_in([1, 2], 7), [1105988140, 7]),
    (lambda: tf.random.stateless_categorical(tf.math.log([[0.5, 0.5], [0.1, 0.9]]), 6,
                                             seed=[1, 2]),
     [[1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 1, 1]]),
    (lambda: tf.random.stateless_categorical([[0.0, 1.0, 2.0], [2.0, -1.0, float("-inf")]],
                                             5, seed=[4, 5]),
     [[1, 1, 2, 2, 1], [0, 0, 0, 0, 0]]),
]


@pytest.mark.parametrize("index", range(len(STATELESS)))
def test_stateless_ops_match_tf_eagerly_and_in_graphs(index):
    make, expected = STATELESS[index]
    eager = make().numpy()
    if eager.dtype.kind == "f":
        np.testing.assert_allclose(eager, expected, **F32)
    else:
        np.testing.assert_array_equal(eager, expected)
    with tf.compat.v1.Graph().as_default():
        node = make()
        assert node.shape.as_list() == list(np.shape(expected))
        with tf.compat.v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(node), eager)


def test_stateless_errors():
    with pytest.raises(errors.InvalidArgumentError, match="shape \\[2\\]"):
        tf.random.stateless_normal([2], seed=[1, 2, 3])
    with pytest.raises(ValueError, match="both `None`"):
        tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32)
    with pytest.raises(errors.InvalidArgumentError, match="minval < maxval"):
        tf.random.stateless_uniform([2], seed=[1, 2], minval=5, maxval=1, dtype=tf.int64)
