"""tf.train.Checkpoint / CheckpointManager: TF's object-graph keys, deferred restoration,
real TF2 checkpoints, graph mode, crash safety. Keras-like stand-ins follow the protocol in
tfcompat/trackable/tracking.py."""
import json
import os

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.trackable import tracking
from tfcompat.train import checkpoint_format

v1 = tf.compat.v1
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
TF1 = os.path.join(FIXTURES, "tf1_saver", "model.ckpt-3")
TF2 = os.path.join(FIXTURES, "tf2_object", "ckpt-1")


class Dense(object):
    """A layer that creates its variables on first call, as Keras does."""

    def __init__(self, units, name="dense"):
        self.units, self.name, self.kernel, self.bias = units, name, None, None

    def _checkpoint_dependencies(self):
        return [(n, v) for n, v in (("kernel", self.kernel), ("bias", self.bias))
                if v is not None]

    def __call__(self, x):
        if self.kernel is None:
            self.kernel = tf.Variable(np.ones((x.shape[-1], self.units), np.float32),
                                      name=self.name + "/kernel")
            tracking.restore_on_create(self, "kernel", self.kernel)
            self.bias = tf.Variable(np.zeros(self.units, np.float32), name=self.name + "/bias")
            tracking.restore_on_create(self, "bias", self.bias)
        return tf.matmul(x, self.kernel) + self.bias


class Sequential(object):
    def __init__(self, layers):
        self.layers = layers

    def _checkpoint_dependencies(self):
        deps, weighted = [], 0
        for i, layer in enumerate(self.layers):
            if layer.kernel is not None:
                deps.append(("layer_with_weights-%d" % weighted, layer))
                weighted += 1
            deps.append(("layer-%d" % i, layer))
        return deps

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    @property
    def variables(self):
        return [v for layer in self.layers for v in (layer.kernel, layer.bias) if v is not None]


class Momentum(object):
    """An optimizer with one slot per variable, created on first use."""

    def __init__(self, lr=0.1, momentum=0.9):
        self.lr, self.momentum, self.slots = lr, momentum, {}

    def _checkpoint_dependencies(self):
        return []

    def _checkpoint_slots(self):
        return {(var, "momentum"): slot for var, slot in self.slots.values()}

    def apply(self, var, grad):
        if id(var) not in self.slots:
            slot = tf.Variable(np.zeros(var.shape.as_list(), np.float32),
                               name=var._shared_name + "/Momentum")
            self.slots[id(var)] = (var, slot)
            tracking.restore_slot_on_create(self, var, "momentum", slot)
        var_, slot = self.slots[id(var)]
        slot.assign(slot * self.momentum + grad)
        var.assign_sub(self.lr * slot)


def _train(model, optimizer, steps=2):
    data = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0)
    for _ in range(steps):
        model(data)
        for var in model.variables:
            optimizer.apply(var, tf.ones_like(var) * 0.01)
    return data


def test_keys_are_tfs_object_graph_keys(tmp_path):
    model, opt = Sequential([Dense(3), Dense(2, "dense_1")]), Momentum()
    _train(model, opt)
    step = tf.Variable(4, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=step)
    path = ckpt.save(str(tmp_path / "ckpt"))
    assert path == str(tmp_path / "ckpt-1")
    names = sorted(name for name, _ in tf.train.list_variables(path))
    assert names == [
        "_CHECKPOINTABLE_OBJECT_GRAPH",
        "model/layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE",
        "model/layer_with_weights-0/bias/.OPTIMIZER_SLOT/optimizer/momentum/.ATTRIBUTES/"
        "VARIABLE_VALUE",
        "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE",
        "model/layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/momentum/.ATTRIBUTES/"
        "VARIABLE_VALUE",
        "model/layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE",
        "model/layer_with_weights-1/bias/.OPTIMIZER_SLOT/optimizer/momentum/.ATTRIBUTES/"
        "VARIABLE_VALUE",
        "model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE",
        "model/layer_with_weights-1/kernel/.OPTIMIZER_SLOT/optimizer/momentum/.ATTRIBUTES/"
        "VARIABLE_VALUE",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
        "step/.ATTRIBUTES/VARIABLE_VALUE",
    ]
    graph = checkpoint_format.open_reader(path).object_graph()
    assert [c.local_name for c in graph.nodes[0].children] == ["model", "optimizer", "step",
                                                               "save_counter"]
    assert len(graph.nodes[2].slot_variables) == 4
    assert ckpt.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-2")
    assert int(ckpt.save_counter.numpy()) == 2
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-2")


def test_escaping_and_plain_attribute_tracking(tmp_path):
    class Module(object):
        def __init__(self):
            self.w = tf.Variable(1.0)
            self._private = [tf.Variable(2.0), {"a.b/c": tf.Variable(3.0)}]
            self.not_tracked = 5

    ckpt = tf.train.Checkpoint(m=Module())
    assert "save_counter/.ATTRIBUTES/VARIABLE_VALUE" not in tracking.ObjectGraph(ckpt).keys
    assert int(ckpt.save_counter.numpy()) == 0  # created on first use
    keys = set(tracking.ObjectGraph(ckpt).keys)
    assert keys == {"m/w/.ATTRIBUTES/VARIABLE_VALUE",
                    "m/_private/0/.ATTRIBUTES/VARIABLE_VALUE",
                    "m/_private/1/a..b.Sc/.ATTRIBUTES/VARIABLE_VALUE",
                    "save_counter/.ATTRIBUTES/VARIABLE_VALUE"}
    with pytest.raises(ValueError, match="trackable"):
        tf.train.Checkpoint(x=3)


def test_lists_and_dicts_restore_items_added_after_restore(tmp_path):
    """TF's checkpoint guide: items appended or set after restore() are restored at once."""
    save = tf.train.Checkpoint()
    save.listed = [tf.Variable(1.)]
    save.listed.append(tf.Variable(2.))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    save_path = save.save(str(tmp_path / "tf_list_example"))
    assert sorted(name for name, _ in tf.train.list_variables(save_path)) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "listed/0/.ATTRIBUTES/VARIABLE_VALUE",
        "listed/1/.ATTRIBUTES/VARIABLE_VALUE", "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]

    restore = tf.train.Checkpoint()
    v2 = tf.Variable(0.)
    restore.mapped = {"two": v2}
    restore.restore(save_path)
    assert v2.numpy() == 2.
    restore.listed = []
    assert repr(restore.listed) == "ListWrapper([])" and restore.listed == []
    v1 = tf.Variable(0.)
    restore.listed.append(v1)
    assert v1.numpy() == 1.
    one = tf.Variable(0.)
    restore.mapped["one"] = one  # as TF: its node (listed/0's) was already restored into v1
    assert one.numpy() == 0.
    assert isinstance(restore.mapped, dict) and restore.mapped == {"one": one, "two": v2}


def test_list_extend_and_dict_update_restore_after_restore(tmp_path):
    save = tf.train.Checkpoint(listed=[tf.Variable(3.), tf.Variable(4.)],
                               mapped={"a": tf.Variable(5.), "b": tf.Variable(6.)})
    save_path = save.save(str(tmp_path / "c"))
    restore = tf.train.Checkpoint()
    restore.restore(save_path)
    restore.listed = []
    first, second = tf.Variable(0.), tf.Variable(0.)
    restore.listed.extend([first, second])
    restore.mapped = {}
    a = tf.Variable(0.)
    restore.mapped.update(a=a)
    b = tf.Variable(0.)
    restore.mapped["b"] = b
    assert (first.numpy(), second.numpy(), a.numpy(), b.numpy()) == (3., 4., 5., 6.)


def test_module_list_attribute_restores_items_appended_after_restore(tmp_path):
    class Stack(tf.Module):
        def __init__(self, values):
            super().__init__()
            self.layers = [tf.Variable(v) for v in values]

    path = tf.train.Checkpoint(model=Stack([7., 8.])).save(str(tmp_path / "m"))
    assert sorted(name for name, _ in tf.train.list_variables(path))[1:3] == [
        "model/layers/0/.ATTRIBUTES/VARIABLE_VALUE", "model/layers/1/.ATTRIBUTES/VARIABLE_VALUE"]
    model = Stack([])
    tf.train.Checkpoint(model=model).restore(path)
    model.layers.append(tf.Variable(0.))
    model.layers.append(tf.Variable(0.))
    assert [v.numpy() for v in model.layers] == [7., 8.]
    assert [v.numpy() for v in model.variables] == [7., 8.]


def test_restore_into_existing_objects_and_assert_consumed(tmp_path):
    model, opt = Sequential([Dense(8), Dense(2, "dense_1")]), Momentum()
    step = tf.Variable(3, dtype=tf.int64)
    data = _train(model, opt, 3)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, global_step=step)
    path = ckpt.save(str(tmp_path / "model"))
    before = [v.numpy() for v in model.variables]
    slots = [s.numpy() for _, s in opt.slots.values()]
    for v in model.variables + [s for _, s in opt.slots.values()]:
        v.assign(tf.zeros_like(v))
    step.assign(0)
    status = ckpt.restore(path)
    status.assert_consumed().assert_existing_objects_matched().assert_nontrivial_match()
    status.run_restore_ops()
    status.initialize_or_restore()
    assert int(step.numpy()) == 3
    for a, b in zip(before, model.variables):
        np.testing.assert_array_equal(a, b.numpy())
    for a, (_, s) in zip(slots, opt.slots.values()):
        np.testing.assert_array_equal(a, s.numpy())
    assert model(data).shape == [3, 2]


def test_deferred_restoration_into_unbuilt_model_and_slots(tmp_path):
    model, opt = Sequential([Dense(8), Dense(2, "dense_1")]), Momentum()
    data = _train(model, opt, 3)
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "model"))
    expected = model(data).numpy()
    expected_slots = [s.numpy() for _, s in opt.slots.values()]

    fresh, fresh_opt = Sequential([Dense(8), Dense(2, "dense_1")]), Momentum()
    ckpt = tf.train.Checkpoint(model=fresh, optimizer=fresh_opt)
    status = ckpt.restore(tf.train.latest_checkpoint(str(tmp_path)))
    with pytest.raises(AssertionError, match="not restored"):
        status.assert_consumed()
    np.testing.assert_allclose(fresh(data).numpy(), expected, atol=1e-6)  # built: restored
    for var in fresh.variables:  # the slots take their values when created
        fresh_opt.apply(var, tf.zeros_like(var))
    # apply() with a zero gradient scales the restored slot by momentum before using it
    for want, (_, slot) in zip(expected_slots, fresh_opt.slots.values()):
        np.testing.assert_allclose(slot.numpy(), want * 0.9, rtol=1e-6)
    status.assert_consumed()
    assert not tracking.restore_on_create(fresh.layers[0], "kernel", fresh.layers[0].kernel)


def test_restores_real_tf2_checkpoint():
    class Adam(object):
        def __init__(self, model):
            self._iterations = tf.Variable(0, dtype=tf.int64)
            self._learning_rate = tf.Variable(0.0)
            self._variables = [self._iterations]
            for var in model.variables:
                self._variables += [tf.Variable(tf.zeros_like(var)),
                                    tf.Variable(tf.zeros_like(var))]

    model = Sequential([Dense(3), Dense(2, "dense_1")])
    data = tf.constant(np.load(os.path.join(FIXTURES, "tf2_object", "input.npy")))
    model(data)
    opt = Adam(model)
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=step)
    ckpt.restore(TF2).assert_consumed()
    np.testing.assert_allclose(model(data).numpy(), np.load(
        os.path.join(FIXTURES, "tf2_object", "expected_output.npy")), atol=1e-6)
    assert int(step.numpy()) == 7 and int(opt._iterations.numpy()) == 2
    assert int(ckpt.save_counter.numpy()) == 1
    with open(os.path.join(FIXTURES, "tf2_object", "keys.json")) as f:
        assert "optimizer/_variables/8/.ATTRIBUTES/VARIABLE_VALUE" in json.load(f)
    np.testing.assert_array_equal(opt._variables[8].numpy(), tf.train.load_variable(
        TF2, "optimizer/_variables/8/.ATTRIBUTES/VARIABLE_VALUE"))


def test_restore_of_unbuilt_model_from_real_tf2_checkpoint():
    model = Sequential([Dense(3), Dense(2, "dense_1")])
    tf.train.Checkpoint(model=model).restore(TF2).expect_partial()
    data = tf.constant(np.load(os.path.join(FIXTURES, "tf2_object", "input.npy")))
    np.testing.assert_allclose(model(data).numpy(), np.load(
        os.path.join(FIXTURES, "tf2_object", "expected_output.npy")), atol=1e-6)


def test_name_based_checkpoint_restores_by_variable_name():
    class Layer(object):
        def __init__(self):
            self.kernel = tf.Variable(np.zeros((4, 3), np.float32), name="dense/kernel")

    layer = Layer()
    status = tf.train.Checkpoint(layer=layer).restore(TF1)
    status.assert_consumed()
    np.testing.assert_array_equal(layer.kernel.numpy(),
                                  tf.train.load_variable(TF1, "dense/kernel"))


def test_restore_errors(tmp_path):
    x = tf.Variable([1.0, 2.0])
    path = tf.train.Checkpoint(x=x).save(str(tmp_path / "c"))
    with pytest.raises(errors.InvalidArgumentError, match="shape"):
        tf.train.Checkpoint(x=tf.Variable([1.0])).restore(path)
    with pytest.raises(errors.NotFoundError):
        tf.train.Checkpoint(x=x).restore(str(tmp_path / "missing"))
    status = tf.train.Checkpoint(x=x).restore(None)
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        status.assert_consumed()
    extra = tf.train.Checkpoint(x=x, y=tf.Variable(1.0)).restore(path)
    with pytest.raises(AssertionError, match="not bound"):
        extra.assert_existing_objects_matched()


def test_write_and_read_keep_the_counter(tmp_path):
    x = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(x=x)
    assert ckpt.write(str(tmp_path / "sub" / "exact")) == str(tmp_path / "sub" / "exact")
    assert not os.path.exists(str(tmp_path / "sub" / "checkpoint"))
    x.assign(5.0)
    ckpt.read(str(tmp_path / "sub" / "exact")).assert_consumed()
    assert float(x.numpy()) == 1.0 and int(ckpt.save_counter.numpy()) == 0


def test_checkpoint_manager(tmp_path):
    x = tf.Variable(0.0)
    ckpt = tf.train.Checkpoint(x=x)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.restore_or_initialize() is None
    paths = []
    for i in range(4):
        x.assign(float(i))
        paths.append(manager.save())
    assert paths == [str(tmp_path / ("ckpt-%d" % i)) for i in range(1, 5)]
    assert manager.checkpoints == paths[2:] and manager.latest_checkpoint == paths[3]
    assert not checkpoint_format.exists(paths[0])
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert len(state.all_model_checkpoint_timestamps) == 2
    x.assign(-1.0)
    again = tf.train.CheckpointManager(tf.train.Checkpoint(x=x), str(tmp_path), max_to_keep=2)
    assert again.checkpoints == paths[2:]
    assert again.restore_or_initialize() == paths[3] and float(x.numpy()) == 3.0
    assert manager.save(checkpoint_number=10).endswith("ckpt-10")


def test_checkpoint_manager_interval_and_init_fn(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    called = []
    manager = tf.train.CheckpointManager(
        tf.train.Checkpoint(step=step), str(tmp_path), max_to_keep=None, step_counter=step,
        checkpoint_interval=5, init_fn=lambda: called.append(True))
    assert manager.restore_or_initialize() is None and called
    assert manager.save() is not None
    step.assign(3)
    assert manager.save() is None
    step.assign(5)
    assert manager.save() is not None
    assert len(manager.checkpoints) == 2
    with pytest.raises(ValueError, match="step_counter"):
        tf.train.CheckpointManager(tf.train.Checkpoint(step=step), str(tmp_path), 1,
                                   checkpoint_interval=5)


def test_graph_mode_checkpoint(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        ckpt = v1.train.Checkpoint(w=w)
        with v1.Session() as sess:
            sess.run(w.initializer)
            path = ckpt.save(str(tmp_path / "g"), session=sess)
            sess.run(v1.assign(w, [0.0, 0.0]))
            status = ckpt.restore(path)
            status.run_restore_ops(sess)
            np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
        with v1.Session() as sess:
            ckpt.restore(path).initialize_or_restore(sess)
            np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
        with v1.Session() as sess:
            ckpt.restore(None).initialize_or_restore(sess)
            np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
    eager = tf.Variable([0.0, 0.0])
    tf.train.Checkpoint(w=eager).restore(path).assert_consumed()
    np.testing.assert_array_equal(eager.numpy(), [1.0, 2.0])


def test_crash_while_saving_keeps_latest_restorable(tmp_path, monkeypatch):
    x = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(x=x)
    first = ckpt.save(str(tmp_path / "c"))
    x.assign(2.0)
    real_replace = os.replace

    def fail_on_state(src, dst):
        if os.path.basename(dst) == "checkpoint":
            raise OSError("crash")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", fail_on_state)
    with pytest.raises(OSError):
        ckpt.save(str(tmp_path / "c"))
    monkeypatch.setattr(os, "replace", real_replace)
    assert tf.train.latest_checkpoint(str(tmp_path)) == first
    ckpt.restore(first)
    assert float(x.numpy()) == 1.0


def test_checkpoint_format_switch_replaces_the_other_formats_files(tmp_path, monkeypatch):
    """TFCOMPAT_CHECKPOINT_FORMAT=tensorflow writes TF's tensor bundle; saving the same
    prefix in the other format removes the first one's files, so readers see the newest."""
    v = tf.Variable([1.0, 2.0])
    saver_prefix = str(tmp_path / "model")
    for write_format, value, files in (
            ("tensorflow", 3.0, ["model.data-00000-of-00001", "model.index"]),
            ("safetensors", 4.0, ["model.safetensors"]),
            ("tensorflow", 5.0, ["model.data-00000-of-00001", "model.index"])):
        monkeypatch.setenv("TFCOMPAT_CHECKPOINT_FORMAT", write_format)
        v.assign([value, value])
        tf.train.Checkpoint(v=v).write(saver_prefix)
        assert sorted(os.listdir(str(tmp_path))) == files
        v.assign([0.0, 0.0])
        tf.train.Checkpoint(v=v).read(saver_prefix).assert_consumed()
        assert v.numpy().tolist() == [value, value]
    monkeypatch.setenv("TFCOMPAT_CHECKPOINT_FORMAT", "pickle")
    with pytest.raises(ValueError, match="TFCOMPAT_CHECKPOINT_FORMAT must be"):
        tf.train.Checkpoint(v=v).write(saver_prefix)
    assert sorted(os.listdir(str(tmp_path))) == ["model.data-00000-of-00001", "model.index"]
