"""Keras deserializers find names registered globally (`get_custom_objects()`,
`custom_object_scope`) as Keras 2 does: the `custom_objects` argument first, then the global
custom objects, then the built-in table."""
import numpy as np
import pytest

import tfcompat as tf

keras = tf.keras


def double(x):
    return 2.0 * x


def halves(shape, dtype=None, partition_info=None):
    return tf.fill(shape, 0.5)


class Clip(keras.constraints.Constraint):
    def __call__(self, w):
        return tf.clip_by_value(w, -0.1, 0.1)


class Penalty(keras.regularizers.Regularizer):
    def __call__(self, w):
        return 0.0 * tf.reduce_sum(w)

    def get_config(self):
        return {}


def my_loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


def my_metric(y_true, y_pred):
    return tf.reduce_mean(tf.abs(y_true - y_pred))


@pytest.fixture
def registered():
    names = {f.__name__: f for f in (double, halves, Clip, Penalty, my_loss, my_metric)}
    objects = keras.utils.get_custom_objects()
    saved = dict(objects)
    objects.update(names)
    yield names
    objects.clear()
    objects.update(saved)


def test_global_names_reach_every_deserializer(registered):
    assert keras.activations.get("double") is double
    layer = keras.layers.Dense(2, activation="double", kernel_initializer="halves",
                               kernel_constraint="Clip", kernel_regularizer="Penalty")
    out = layer(tf.constant(np.ones((1, 3), np.float32)))
    np.testing.assert_allclose(out.numpy(), [[3.0, 3.0]])     # 2 * (3 * 0.5)
    assert isinstance(layer.kernel_constraint, Clip)
    assert isinstance(layer.kernel_regularizer, Penalty)
    np.testing.assert_allclose(keras.layers.Activation("double")(tf.constant([1.5])).numpy(),
                               [3.0])


def test_global_loss_and_metric_names_in_compile_and_fit(registered):
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    model.compile(optimizer="sgd", loss="my_loss", metrics=["my_metric"])
    history = model.fit(np.ones((4, 2), np.float32), np.zeros((4, 1), np.float32), epochs=1,
                        verbose=0)
    assert set(history.history) == {"loss", "my_metric"}


def test_model_config_naming_a_global_activation(registered):
    model = keras.Sequential([keras.layers.Dense(2, activation="double", input_shape=(3,))])
    clone = keras.models.model_from_json(model.to_json())
    assert clone.layers[0].activation is double


def test_custom_object_scope_and_argument_precedence():
    def triple(x):
        return 3.0 * x
    with pytest.raises(ValueError, match="Unknown activation function: triple"):
        keras.activations.deserialize("triple")
    with keras.utils.custom_object_scope({"triple": triple}):
        assert keras.activations.deserialize("triple") is triple
        assert keras.activations.deserialize("triple", custom_objects={"triple": double}) \
            is double
        assert keras.optimizers.deserialize(
            {"class_name": "Fast", "config": {"learning_rate": 0.5}},
            custom_objects={"Fast": keras.optimizers.SGD}).get_config()["learning_rate"] == 0.5
    with pytest.raises(ValueError, match="Unknown activation function: triple"):
        keras.activations.deserialize("triple")


@pytest.mark.parametrize("module, identifier, message", [
    (keras.initializers, "no_such_init", "Unknown initializer"),
    (keras.constraints, "NoSuchConstraint", "Unknown constraint"),
    (keras.regularizers, "NoSuchRegularizer", "Unknown regularizer"),
    (keras.losses, "no_such_loss", "Unknown loss function"),
    (keras.metrics, "no_such_metric", "Unknown metric function"),
])
def test_unknown_names_still_raise(module, identifier, message):
    with pytest.raises(ValueError, match=message):
        module.deserialize(identifier)
