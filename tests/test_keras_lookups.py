"""Keras' `get` / `deserialize` / `serialize` find names as Keras 2 does: the `custom_objects`
argument, then the custom object scope and registered objects, then what the running API shows
at `tf.keras.<module>.<name>` (the registry), plus Keras' own aliases that are no TF path."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api
from tfcompat.keras.utils import generic_utils
from tfcompat.ops import init_ops

keras = tf.keras

pytestmark = pytest.mark.usefixtures("fresh_names")


def double(x):
    return 2.0 * x


@pytest.fixture(params=["v1", "v2"])
def keras_api(request):
    previous = _api.flavor()
    _api.set_flavor(request.param)
    yield request.param
    _api.set_flavor(previous)


def test_function_names_give_the_functions(keras_api):
    assert keras.activations.get("relu") is keras.activations.relu
    assert keras.activations.get(None) is keras.activations.linear
    assert keras.losses.get("mse") is keras.losses.mean_squared_error
    assert keras.losses.get("MSE") is keras.losses.mean_squared_error
    assert keras.losses.get("kld") is keras.losses.kullback_leibler_divergence
    assert keras.metrics.get("mae") is keras.losses.mean_absolute_error
    assert keras.metrics.get("acc") is keras.metrics.get("accuracy")
    assert keras.metrics.get("accuracy").__name__ == "accuracy"
    assert keras.metrics.get("categorical_hinge") is keras.losses.categorical_hinge


@pytest.mark.parametrize("module, name, cls, config", [
    ("losses", "MeanSquaredError", "MeanSquaredError", {"reduction": "auto",
                                                        "name": "mean_squared_error"}),
    ("metrics", "AUC", "AUC", None),
    ("constraints", "max_norm", "MaxNorm", {"max_value": 2, "axis": 0}),
    ("constraints", "NonNeg", "NonNeg", {}),
    ("regularizers", "l2", "L2", {"l2": 0.01}),
    ("regularizers", "L1", "L1", {"l1": 0.01}),
    ("regularizers", "l1_l2", "L1L2", {"l1": 0.01, "l2": 0.01}),   # Keras: both at 0.01
])
def test_class_names_give_objects_made_without_arguments(keras_api, module, name, cls, config):
    namespace = getattr(keras, module)
    made = namespace.get(name)
    assert type(made) is getattr(namespace, cls)
    if config is not None:
        assert made.get_config() == config


def test_l1_and_l2_are_the_classes_as_in_tf_2_15():
    assert keras.regularizers.l2 is keras.regularizers.L2
    assert keras.regularizers.l1 is keras.regularizers.L1
    w = tf.constant([[1.0, -2.0]])
    np.testing.assert_allclose(keras.regularizers.l2(0.5)(w).numpy(), 2.5)
    np.testing.assert_allclose(keras.regularizers.l1(l=0.5)(w).numpy(), 1.5)
    np.testing.assert_allclose(keras.regularizers.l1_l2(0.5, 0.5)(w).numpy(), 4.0)


def test_serialized_objects_round_trip(keras_api):
    for module, obj in (("regularizers", keras.regularizers.L1L2(0.1, 0.2)),
                        ("constraints", keras.constraints.MinMaxNorm(0.5, 2.0)),
                        ("losses", keras.losses.Huber(delta=2.0)),
                        ("metrics", keras.metrics.Precision(thresholds=0.3))):
        namespace = getattr(keras, module)
        config = namespace.serialize(obj)
        assert config["class_name"] == type(obj).__name__
        back = namespace.deserialize(config)
        assert type(back) is type(obj) and back.get_config() == obj.get_config()
    assert keras.activations.serialize(keras.activations.relu) == "relu"
    assert keras.losses.serialize(keras.losses.mse) == "mean_squared_error"


def test_activation_layers_deserialize_as_activations(keras_api):
    leaky = keras.activations.deserialize({"class_name": "LeakyReLU", "config": {"alpha": 0.5}})
    assert type(leaky) is keras.layers.LeakyReLU
    np.testing.assert_allclose(leaky(tf.constant([-2.0, 3.0])).numpy(), [-1.0, 3.0])
    assert type(keras.activations.get("ReLU")) is keras.layers.ReLU
    with pytest.raises(ValueError, match="Unknown activation function: Dense"):
        keras.activations.get({"class_name": "Dense", "config": {"units": 1}})
    layer = keras.layers.Dense(2, activation=keras.layers.ReLU(max_value=1.0))
    clone = keras.layers.Dense.from_config(layer.get_config())
    assert type(clone.activation) is keras.layers.ReLU and clone.activation.max_value == 1.0


def test_optimizer_names_in_any_case(keras_api):
    assert type(keras.optimizers.get("ADAM")) is keras.optimizers.Adam
    assert type(keras.optimizers.get("rmsprop")) is keras.optimizers.RMSprop
    sgd = keras.optimizers.deserialize({"class_name": "sgd", "config": {"learning_rate": 0.5}})
    assert type(sgd) is keras.optimizers.SGD and sgd.get_config()["learning_rate"] == 0.5
    scaled = keras.optimizers.deserialize(keras.optimizers.serialize(
        keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.25))))
    assert type(scaled) is keras.mixed_precision.LossScaleOptimizer
    assert scaled.get_config()["inner_optimizer"]["config"]["learning_rate"] == 0.25
    with pytest.raises(ValueError, match="Unknown optimizer: Optimizers"):
        keras.optimizers.get("Optimizers")


def test_schedules_deserialize_through_the_registry(keras_api):
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    config = keras.optimizers.schedules.serialize(schedule)
    assert config["class_name"] == "ExponentialDecay"
    back = keras.optimizers.schedules.deserialize(config)
    np.testing.assert_allclose(float(back(10)), 0.05)
    with pytest.raises(ValueError, match="Unknown learning rate schedule: Nope"):
        keras.optimizers.schedules.deserialize({"class_name": "Nope", "config": {}})


def test_dotted_names_never_reach_the_registry(keras_api):
    for deserialize, name in ((keras.optimizers.deserialize, "schedules.ExponentialDecay"),
                              (keras.losses.deserialize, "keras.losses.mse"),
                              (keras.activations.deserialize, "nn.relu")):
        with pytest.raises(ValueError, match="Unknown"):
            deserialize({"class_name": name, "config": {}})


def test_custom_objects_then_scope_then_registry(keras_api):
    def triple(x):
        return 3.0 * x
    assert keras.activations.deserialize("relu", custom_objects={"relu": double}) is double
    with keras.utils.custom_object_scope({"relu": triple}):
        assert keras.activations.get("relu") is triple
        assert keras.activations.deserialize("relu", custom_objects={"relu": double}) is double
    assert keras.activations.get("relu") is keras.activations.relu


def test_registered_functions_serialize_under_their_registered_name():
    @keras.utils.register_keras_serializable(package="Lookups")
    def quadruple(x):
        return 4.0 * x
    try:
        assert keras.activations.serialize(quadruple) == "Lookups>quadruple"
        assert keras.activations.get("Lookups>quadruple") is quadruple
    finally:
        objects = keras.utils.get_custom_objects()
        del objects["Lookups>quadruple"], objects["quadruple"]
        del generic_utils._REGISTERED_NAMES[quadruple]


def test_registered_name_is_tfs_class_name():
    assert keras.utils.get_registered_name(init_ops.KerasRandomNormal) == "RandomNormal"

    class MyNormal(init_ops.KerasRandomNormal):
        pass
    assert keras.utils.get_registered_name(MyNormal) == "MyNormal"
    assert keras.utils.get_registered_name(double) == "double"


def test_deserialize_keras_object_keeps_keras_signature():
    assert keras.utils.deserialize_keras_object("relu", module_objects={"relu": abs}) is abs
    assert keras.utils.deserialize_keras_object(double) is double
    made = keras.utils.deserialize_keras_object({"class_name": "F", "config": {"l1": 0.5}},
                                                module_objects={"F": keras.regularizers.L1})
    assert made.get_config() == {"l1": 0.5}
    with pytest.raises(ValueError, match="Unknown object: relu"):
        keras.utils.deserialize_keras_object("relu")      # no namespace: no registry
    with pytest.raises(ValueError, match="Could not interpret object identifier: 3"):
        keras.utils.deserialize_keras_object(3)


def test_classes_follow_tf2_behaviour_not_api_names():
    """Keras 2 picks v1 or v2 classes by tf2.enabled(): a TF2 script that called
    disable_v2_behavior() deserializes "LSTM" to the v1 layer, as in TF."""
    names, behaviour = _api.api_version(), _api.flavor()
    try:
        _api.set_flavor("v2")
        _api.set_behavior("v1")
        layer = tf.keras.layers.deserialize({"class_name": "LSTM", "config": {"units": 2}})
        assert type(layer) is tf.compat.v1.keras.layers.LSTM
        _api.set_behavior("v2")
        layer = tf.keras.layers.deserialize({"class_name": "LSTM", "config": {"units": 2}})
        assert type(layer) is tf.compat.v2.keras.layers.LSTM
    finally:
        _api.set_flavor(names)
        _api.set_behavior(behaviour)
