"""Checkpoints of Keras optimizers written by real TensorFlow 2 restore completely.

Fixtures (tests/fixtures/tf2_keras_optimizers, made by make_fixture.py there with TF 2.21 and
tf-keras): a model trained 3 steps, checkpointed with its OptimizerV2 (Adam with decay, SGD
with momentum); and the values real TF had after restoring into fresh objects and taking one
step with zero gradients. TF's checkpoint guide: `assert_consumed()` fails until the first
step creates the slot variables, and passes after it.
"""
import json
import os

import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                        "tf2_keras_optimizers")
EXPECTED = json.load(open(os.path.join(FIXTURES, "expected.json")))
DATA = np.load(os.path.join(FIXTURES, "data.npy"))

# Fresh optimizers get other hyperparameters: the checkpoint's must win (except Keras 2's
# decay schedule, which uses the constructor's decay; the fixture used the same decay).
OPTIMIZERS = {
    "legacy_adam": lambda: tf.keras.optimizers.Adam(0.5, decay=0.3),
    "legacy_sgd": lambda: tf.keras.optimizers.SGD(0.5, momentum=0.1),
}


@pytest.fixture(autouse=True)
def tf2_api():
    previous = _api.api_version()
    _api.set_flavor("v2")
    yield
    _api.set_flavor(previous)


def _model():
    return tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,)),
                                tf.keras.layers.Dense(2)])


def _restore(kind):
    model, optimizer = _model(), OPTIMIZERS[kind]()
    status = tf.train.Checkpoint(model=model, optimizer=optimizer).restore(
        tf.train.latest_checkpoint(os.path.join(FIXTURES, kind)))
    return model, optimizer, status


def _zero_step(model, optimizer):
    optimizer.apply_gradients([(tf.zeros_like(v), v) for v in model.trainable_variables])


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_real_tf_optimizer_checkpoint_restores_completely(kind):
    model, optimizer, status = _restore(kind)
    np.testing.assert_allclose(model(DATA).numpy(), EXPECTED[kind]["trained_prediction"],
                               atol=1e-6)
    with pytest.raises(AssertionError, match="OPTIMIZER_SLOT"):
        status.assert_consumed()  # slots are created by the first step, as in TF
    status.assert_existing_objects_matched()
    _zero_step(model, optimizer)
    status.assert_consumed()
    expected = EXPECTED[kind]["after_zero_step"]
    assert int(optimizer.iterations.numpy()) == expected["iterations"] == 4
    assert float(tf.keras.backend.get_value(optimizer.learning_rate)) == pytest.approx(
        expected["learning_rate"], rel=1e-7)
    for weight, value in zip(model.weights, expected["weights"]):
        np.testing.assert_allclose(weight.numpy(), value, rtol=1e-6, atol=1e-7)
    slots = {name.split("/", 1)[1] if name.startswith(("Adam/", "SGD/")) else name: value
             for name, value in expected["optimizer"].items() if "iter" not in name}
    tf_names = ["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]  # TF's names
    for var, tf_name in zip(model.trainable_variables, tf_names):
        for slot_name in optimizer.get_slot_names():
            key = "%s/%s:0" % (tf_name, slot_name)
            np.testing.assert_allclose(optimizer.get_slot(var, slot_name).numpy(),
                                       slots[key], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("write_format", ["safetensors", "tensorflow"])
@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_our_checkpoint_has_real_tf_keys(tmp_path, monkeypatch, kind, write_format):
    """The object-graph keys we write are TF's, in our format or TF's
    (TFCOMPAT_CHECKPOINT_FORMAT=tensorflow). Real TF 2.21's legacy Adam and SGD restored the
    TF-format one with assert_consumed() after a step: checked by hand, as tests never need
    TensorFlow."""
    monkeypatch.setenv("TFCOMPAT_CHECKPOINT_FORMAT", write_format)
    model, optimizer, _ = _restore(kind)
    _zero_step(model, optimizer)
    ours = tf.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ckpt"))
    written = sorted(os.listdir(str(tmp_path)))
    assert written == (["checkpoint", "ckpt-1.safetensors"] if write_format == "safetensors"
                       else ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index"])
    theirs = tf.train.latest_checkpoint(os.path.join(FIXTURES, kind))
    assert dict(tf.train.list_variables(ours)) == dict(tf.train.list_variables(theirs))
    again, again_optimizer = _model(), OPTIMIZERS[kind]()
    status = tf.train.Checkpoint(model=again, optimizer=again_optimizer).restore(ours)
    _zero_step(again, again_optimizer)
    status.assert_consumed()
    assert int(again_optimizer.iterations.numpy()) == 5


def test_decay_schedule_uses_the_constructor_decay():
    """Keras 2's _decayed_lr reads the decay given to the constructor, not the variable."""
    var = tf.Variable([1.0])
    optimizer = tf.keras.optimizers.SGD(1.0, decay=1.0)
    optimizer.decay.assign(100.0)
    for _ in range(2):
        optimizer.apply_gradients([(tf.constant([1.0]), var)])
    np.testing.assert_allclose(var.numpy(), [1.0 - 1.0 - 0.5])


def test_tf211_optimizer_checkpoint_restores_into_our_optimizer():
    """TF 2.11-2.15's tf.keras.optimizers.Adam saves `_iterations`, `_learning_rate` and its
    slots as a list `_variables` (m, v per variable); they restore into our Adam, the slots
    when the first step creates them."""
    model, optimizer = _model(), tf.keras.optimizers.Adam(0.5)
    status = tf.train.Checkpoint(model=model, optimizer=optimizer).restore(
        tf.train.latest_checkpoint(os.path.join(FIXTURES, "adam")))
    np.testing.assert_allclose(model(DATA).numpy(), EXPECTED["adam"]["trained_prediction"],
                               atol=1e-6)
    assert int(optimizer.iterations.numpy()) == 3
    _zero_step(model, optimizer)
    status.assert_consumed()
    expected = EXPECTED["adam"]["after_zero_step"]
    assert float(tf.keras.backend.get_value(optimizer.learning_rate)) == pytest.approx(
        expected["learning_rate"], rel=1e-7)
    for weight, value in zip(model.weights, expected["weights"]):
        np.testing.assert_allclose(weight.numpy(), value, rtol=1e-6, atol=1e-7)
    tf_names = ["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
    for var, tf_name in zip(model.trainable_variables, tf_names):
        for slot_name in ("m", "v"):
            np.testing.assert_allclose(optimizer.get_slot(var, slot_name).numpy(),
                                       expected["optimizer"]["Adam/%s/%s:0" % (slot_name, tf_name)],
                                       rtol=1e-6, atol=1e-8)


def test_tf211_layout_restores_into_slots_that_already_exist():
    model, optimizer = _model(), tf.keras.optimizers.Adam(0.5)
    model(DATA)
    _zero_step(model, optimizer)  # slots exist before the restore
    status = tf.train.Checkpoint(model=model, optimizer=optimizer).restore(
        tf.train.latest_checkpoint(os.path.join(FIXTURES, "adam")))
    status.assert_consumed()
    assert int(optimizer.iterations.numpy()) == 3
    _zero_step(model, optimizer)
    for weight, value in zip(model.weights, EXPECTED["adam"]["after_zero_step"]["weights"]):
        np.testing.assert_allclose(weight.numpy(), value, rtol=1e-6, atol=1e-7)
