"""Initializers: values, statistics of large draws, fans, seeds, Keras get/serialize."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api
from tfcompat.framework.tensor import EagerTensor
from tfcompat.keras import initializers
from tfcompat.ops import init_ops

TRUNC = 0.87962566103423978
K1 = tf.compat.v1.keras.initializers


def draw(init, shape, dtype=None):
    out = init(shape, dtype=dtype) if dtype is not None else init(shape)
    assert isinstance(out, EagerTensor)
    assert out.shape == tuple(shape)
    return out.numpy()


@pytest.mark.parametrize("init, dtype, expected", [
    (init_ops.Zeros(), tf.float32, 0.0),
    (init_ops.Zeros(), tf.int64, 0),
    (init_ops.Ones(dtype=tf.int32), None, 1),
    (init_ops.Constant(2.5), tf.float64, 2.5),
    (init_ops.ZerosV2(), None, 0.0),
    (init_ops.OnesV2(), tf.float16, 1.0),
    (init_ops.ConstantV2(7), tf.int32, 7),
])
def test_constant_initializers(init, dtype, expected):
    out = init([2, 3], dtype=dtype) if dtype is not None else init([2, 3])
    assert out.dtype == (dtype or init.dtype or tf.float32)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 3), expected))


def test_constant_list_and_shape_errors():
    np.testing.assert_array_equal(init_ops.Constant([1, 2, 3, 4])([2, 2]).numpy(),
                                  [[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="unsupported shape"):
        init_ops.Constant([1, 2, 3])([2, 2])
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        init_ops.Constant([1, 2, 3, 4], verify_shape=True)([4, 1])
    with pytest.raises(TypeError, match="Invalid type"):
        init_ops.Constant({"a": 1})


@pytest.mark.parametrize("init, mean, std", [
    (init_ops.RandomNormal(1.0, 2.0), 1.0, 2.0),
    (init_ops.RandomUniform(-1.0, 3.0), 1.0, 4.0 / np.sqrt(12)),
    (init_ops.RandomUniform(), 0.5, 1.0 / np.sqrt(12)),
    (init_ops.TruncatedNormal(0.0, 1.0), 0.0, TRUNC),
    (init_ops.RandomNormalV2(), 0.0, 0.05),
    (init_ops.RandomUniformV2(), 0.0, 0.1 / np.sqrt(12)),
    (init_ops.TruncatedNormalV2(), 0.0, 0.05 * TRUNC),
    (K1.RandomNormal(), 0.0, 0.05),
    (K1.RandomUniform(), 0.0, 0.1 / np.sqrt(12)),
])
def test_random_statistics(init, mean, std):
    x = draw(init, [400, 500])
    assert abs(x.mean() - mean) < 0.02 * max(std, 0.05) * 10
    assert abs(x.std() - std) / std < 0.02


def test_truncated_normal_bounds():
    x = draw(init_ops.TruncatedNormal(1.0, 0.5), [200, 200])
    assert x.min() >= 0.0 and x.max() <= 2.0


def test_uniform_bounds_and_ints():
    x = draw(init_ops.RandomUniform(2.0, 3.0), [1000])
    assert x.min() >= 2.0 and x.max() < 3.0
    i = init_ops.RandomUniform(0, 5, dtype=tf.int32)([1000]).numpy()
    assert i.dtype == np.int32 and set(np.unique(i)) == {0, 1, 2, 3, 4}
    with pytest.raises(ValueError, match="maxval"):
        init_ops.RandomUniform(dtype=tf.int32)([3])


def test_float_only_initializers_reject_ints():
    for init in (init_ops.RandomNormal(), init_ops.TruncatedNormal(),
                 init_ops.VarianceScaling(), init_ops.Orthogonal(), init_ops.GlorotUniform()):
        with pytest.raises(ValueError, match="Expected floating point type"):
            init([2, 2], dtype=tf.int32)


@pytest.mark.parametrize("shape, fans", [
    ([], (1, 1)), ([7], (7, 7)), ([3, 5], (3, 5)), ([3, 3, 4, 8], (36, 72)),
    ([2, 3, 3, 4, 8], (72, 144)),
])
def test_compute_fans(shape, fans):
    assert init_ops._compute_fans(shape) == fans


@pytest.mark.parametrize("init, shape, std", [
    (init_ops.VarianceScaling(2.0, "fan_in", "truncated_normal"), [3, 3, 32, 64],
     np.sqrt(2.0 / 288)),
    (init_ops.VarianceScaling(1.0, "fan_out", "untruncated_normal"), [300, 400],
     np.sqrt(1.0 / 400)),
    (init_ops.VarianceScaling(1.0, "fan_avg", "normal"), [300, 500], np.sqrt(1.0 / 400)),
    (init_ops.VarianceScaling(3.0, "fan_in", "uniform"), [300, 400], np.sqrt(3.0 / 300)),
    (init_ops.GlorotUniform(), [300, 500], np.sqrt(2.0 / 800)),
    (init_ops.GlorotNormal(), [300, 500], np.sqrt(2.0 / 800)),
    (init_ops.he_normal(), [5, 5, 16, 32], np.sqrt(2.0 / 400)),
    (init_ops.he_uniform(), [400, 300], np.sqrt(2.0 / 400)),
    (init_ops.lecun_normal(), [400, 300], np.sqrt(1.0 / 400)),
    (init_ops.lecun_uniform(), [400, 300], np.sqrt(1.0 / 400)),
    (init_ops.HeNormal(), [5, 5, 16, 32], np.sqrt(2.0 / 400)),
    (init_ops.HeUniform(), [400, 300], np.sqrt(2.0 / 400)),
    (init_ops.LecunNormal(), [400, 300], np.sqrt(1.0 / 400)),
    (init_ops.LecunUniform(), [400, 300], np.sqrt(1.0 / 400)),
    (init_ops.GlorotUniformV2(), [300, 500], np.sqrt(2.0 / 800)),
    (init_ops.GlorotNormalV2(), [300, 500], np.sqrt(2.0 / 800)),
    (init_ops.VarianceScalingV2(), [400, 300], np.sqrt(1.0 / 400)),
])
def test_variance_scaling_statistics(init, shape, std):
    x = draw(init, shape)
    assert abs(x.mean()) < 0.05 * std
    assert abs(x.std() - std) / std < 0.03


def test_variance_scaling_limits_and_errors():
    x = draw(init_ops.GlorotUniform(), [30, 70])
    assert np.abs(x).max() <= np.sqrt(6.0 / 100)
    with pytest.raises(ValueError, match="positive"):
        init_ops.VarianceScaling(0.0)
    with pytest.raises(ValueError, match="mode"):
        init_ops.VarianceScaling(mode="fan")
    with pytest.raises(ValueError, match="distribution"):
        init_ops.VarianceScaling(distribution="cauchy")
    with pytest.raises(ValueError, match="mode"):
        init_ops.VarianceScalingV2(mode="fan")


def test_uniform_unit_scaling():
    x = draw(init_ops.UniformUnitScaling(factor=2.0), [3, 4, 50])
    limit = np.sqrt(3.0 / 12) * 2.0
    assert np.abs(x).max() <= limit and np.abs(x).max() > 0.9 * limit


@pytest.mark.parametrize("shape", [[6, 4], [4, 6], [2, 3, 5], [8, 8]])
def test_orthogonal(shape):
    x = draw(init_ops.Orthogonal(gain=2.0), shape)
    flat = x.reshape(-1, shape[-1])
    if flat.shape[0] >= flat.shape[1]:
        np.testing.assert_allclose(flat.T @ flat, 4.0 * np.eye(flat.shape[1]), atol=1e-4)
    else:
        np.testing.assert_allclose(flat @ flat.T, 4.0 * np.eye(flat.shape[0]), atol=1e-4)
    with pytest.raises(ValueError, match="at least two-dimensional"):
        init_ops.Orthogonal()([3])


def test_identity():
    np.testing.assert_array_equal(draw(init_ops.Identity(gain=3.0), [2, 3]),
                                  [[3, 0, 0], [0, 3, 0]])
    np.testing.assert_array_equal(draw(init_ops.IdentityV2(), [2, 2]), np.eye(2))
    with pytest.raises(ValueError, match="2D matrices"):
        init_ops.Identity()([2, 2, 2])


def test_shape_forms():
    assert init_ops.Zeros()(tf.TensorShape([2, 3])).shape == (2, 3)
    assert init_ops.Zeros()((4,)).shape == (4,)
    assert init_ops.Zeros()(tf.constant([2, 2])).shape == (2, 2)
    with pytest.raises(ValueError, match="fully defined"):
        init_ops.Zeros()(tf.TensorShape([None, 2]))


def test_dtype_conversion_and_half():
    x = init_ops.GlorotUniform()([4, 4], dtype="float16")
    assert x.dtype == tf.float16
    assert init_ops.RandomNormal(dtype=tf.float64)([3]).dtype == tf.float64


def test_seeds():
    tf.compat.v1.set_random_seed(3)
    a1, a2 = draw(init_ops.RandomNormal(seed=5), [4]), draw(init_ops.RandomNormal(seed=5), [4])
    assert not np.array_equal(a1, a2)  # TF1: one sequence per (graph seed, op seed)
    tf.compat.v1.set_random_seed(3)
    b1 = draw(init_ops.RandomNormal(seed=5), [4])
    np.testing.assert_array_equal(a1, b1)
    init = init_ops.RandomNormalV2(seed=5)
    np.testing.assert_array_equal(draw(init, [4]), draw(init, [4]))  # TF2: same each call
    tf.compat.v1.set_random_seed(None)


def test_v1_and_v2_exports():
    v1, v2 = tf.compat.v1, tf.compat.v2 if hasattr(tf.compat, "v2") else None
    assert v1.zeros_initializer is init_ops.Zeros
    assert v1.random_normal_initializer is init_ops.RandomNormal
    assert v1.glorot_uniform_initializer is init_ops.GlorotUniform
    assert v1.initializers.he_normal is init_ops.he_normal
    assert v1.keras.initializers.RandomUniform is init_ops.KerasRandomUniform
    if v2 is not None:
        assert v2.zeros_initializer is init_ops.ZerosV2
        assert v2.initializers.HeNormal is init_ops.HeNormal
        assert v2.keras.initializers.GlorotUniform is init_ops.GlorotUniformV2


@pytest.fixture(params=["v1", "v2"])
def keras_api(request):
    """Run under TF1's API (names resolve to the compat.v1 classes), then TF2's."""
    previous = _api.flavor()
    _api.set_flavor(request.param)
    yield request.param
    _api.set_flavor(previous)


# name -> (class under TF1's API, class under TF2's), as Keras 2.15 resolves them
KERAS_NAMES = {
    "zeros": (init_ops.Zeros, init_ops.ZerosV2), "zero": (init_ops.Zeros, init_ops.ZerosV2),
    "Ones": (init_ops.Ones, init_ops.OnesV2), "one": (init_ops.Ones, init_ops.OnesV2),
    "uniform": (init_ops.KerasRandomUniform, init_ops.RandomUniformV2),
    "normal": (init_ops.KerasRandomNormal, init_ops.RandomNormalV2),
    "RandomNormal": (init_ops.KerasRandomNormal, init_ops.RandomNormalV2),
    "glorot_uniform": (init_ops.GlorotUniform, init_ops.GlorotUniformV2),
    "GlorotUniform": (init_ops.GlorotUniform, init_ops.GlorotUniformV2),
    "GlorotNormal": (init_ops.GlorotNormal, init_ops.GlorotNormalV2),
    "variance_scaling": (init_ops.VarianceScaling, init_ops.VarianceScalingV2),
    "he_normal": (init_ops.VarianceScaling, init_ops.HeNormal),
    "HeNormal": (init_ops.VarianceScaling, init_ops.HeNormal),
    "lecun_uniform": (init_ops.VarianceScaling, init_ops.LecunUniform),
    "orthogonal": (init_ops.Orthogonal, init_ops.OrthogonalV2),
}


@pytest.mark.parametrize("name", sorted(KERAS_NAMES))
def test_keras_names_resolve_to_the_running_apis_classes(keras_api, name):
    expected = KERAS_NAMES[name][keras_api == "v2"]
    assert type(initializers.get(name)) is expected
    assert type(initializers.deserialize({"class_name": name, "config": {}})) is expected


def test_keras_get_and_deserialize_are_one_function_for_both_apis(keras_api):
    assert tf.compat.v1.keras.initializers.get is tf.compat.v2.keras.initializers.get
    assert tf.compat.v1.keras.initializers.deserialize is \
        tf.compat.v2.keras.initializers.deserialize
    he = initializers.get("he_normal")          # TF1: the he_normal factory's VarianceScaling
    assert (he.scale, he.mode) == (2.0, "fan_in")


def test_keras_get_serialize_deserialize(keras_api):
    assert initializers.get(None) is None
    if keras_api == "v2":
        u = initializers.get("uniform")
        assert u.get_config() == {"minval": -0.05, "maxval": 0.05, "seed": None}
    config = initializers.serialize(init_ops.VarianceScalingV2(2.0, "fan_out", seed=1))
    assert config == {"class_name": "VarianceScaling",
                      "config": {"scale": 2.0, "mode": "fan_out",
                                 "distribution": "truncated_normal", "seed": 1}}
    back = initializers.deserialize(config)
    assert back.get_config()["mode"] == "fan_out" and back.get_config()["scale"] == 2.0
    assert initializers.serialize(init_ops.HeNormal(seed=3)) == {"class_name": "HeNormal",
                                                             "config": {"seed": 3}}
    fn = lambda shape, dtype=None: tf.zeros(shape)  # noqa: E731
    assert initializers.get(fn) is fn
    assert type(initializers.get(init_ops.OnesV2)) is init_ops.OnesV2   # a class is made
    with pytest.raises(ValueError, match="Unknown initializer: nope"):
        initializers.get("nope")
    with pytest.raises(ValueError, match="Could not interpret"):
        initializers.get(3)
    assert initializers.serialize(init_ops.KerasRandomNormal())["class_name"] == "RandomNormal"
    assert init_ops.Constant.from_config(init_ops.Constant(2.0).get_config()).value == 2.0


def test_custom_initializers_come_before_keras_names(keras_api):
    def halves(shape, dtype=None):
        return tf.fill(shape, 0.5)
    assert initializers.get({"class_name": "zeros", "config": {}}) is not halves
    assert initializers.deserialize("zeros", custom_objects={"zeros": halves}) is halves
    with tf.keras.utils.custom_object_scope({"GlorotUniform": init_ops.OnesV2}):
        assert type(initializers.get("GlorotUniform")) is init_ops.OnesV2


def test_variable_from_initializer():
    v = tf.Variable(lambda: init_ops.Ones()([2]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0])
    w = tf.Variable(init_ops.GlorotNormalV2()(shape=[3, 3]))
    assert w.shape == (3, 3)
