"""tf.contrib.eager as the TF 1.5-1.14 eager examples use it: tfe.Network / tfe.Sequential,
tfe.Saver, tfe.restore_variables_on_create, tfe.run, execution modes, the tfe import path."""
import numpy as np
import pytest
from test_runner import check, run_script

import tfcompat as tf

tfe = tf.contrib.eager


class TwoLayers(tfe.Network):
    def __init__(self, name=None):
        super(TwoLayers, self).__init__(name=name)
        self.hidden = self.track_layer(tf.compat.v1.layers.Dense(4, activation=tf.nn.relu))
        self.out = self.track_layer(tf.compat.v1.layers.Dense(2, use_bias=False))

    def call(self, inputs):
        return self.out(self.hidden(inputs))


class Outer(tfe.Network):
    def __init__(self, name):
        super(Outer, self).__init__(name=name)
        self.inner = self.track_layer(TwoLayers())
        self.scale = self.track_layer(tf.compat.v1.layers.Dense(1, name="scale"))

    def call(self, inputs):
        return self.scale(self.inner(inputs))


def numpy_two_layers(net, x):
    kernel1, bias1, kernel2 = [v.numpy() for v in net.variables]
    return np.maximum(x @ kernel1 + bias1, 0) @ kernel2


def test_network_builds_weights_on_first_call_with_tf_names():
    net = TwoLayers(name="net_names")
    assert net.name == "net_names" and net.variables == [] and not net.built
    assert [layer.name for layer in net.layers] == ["dense", "dense_1"]
    x = np.arange(15, dtype=np.float32).reshape(3, 5) / 10
    y = net(tf.constant(x))
    assert y.shape == (3, 2) and net.built
    assert [v.name for v in net.variables] == [
        "net_names/dense/kernel:0", "net_names/dense/bias:0", "net_names/dense_1/kernel:0"]
    assert net.trainable_variables == net.variables == net.weights
    assert net.non_trainable_variables == []
    np.testing.assert_allclose(y.numpy(), numpy_two_layers(net, x), rtol=1e-5)
    net(tf.constant(x))   # a second call reuses the weights
    assert len(net.variables) == 3
    assert net.get_layer(name="dense_1") is net.layers[1] and net.get_layer(index=0) is net.hidden


def test_anonymous_and_nested_networks():
    first, second = TwoLayers(), TwoLayers()
    assert first.name.startswith("two_layers") and second.name != first.name
    outer = Outer("outer_net")
    outer(tf.ones([2, 3]))
    assert [v.name for v in outer.variables] == [
        "outer_net/two_layers/dense/kernel:0", "outer_net/two_layers/dense/bias:0",
        "outer_net/two_layers/dense_1/kernel:0", "outer_net/scale/kernel:0",
        "outer_net/scale/bias:0"]
    assert outer.layers == [outer.inner, outer.scale]


def test_network_refusals_as_tf():
    net = TwoLayers(name="net_refusals")
    with pytest.raises(TypeError, match="not a tf.layers.Layer"):
        net.track_layer(lambda x: x)
    with pytest.raises(RuntimeError, match="add_variable not supported"):
        net.add_variable("v", [1])
    with pytest.raises(AttributeError, match="cannot mark Network as not trainable"):
        net.trainable = False
    with pytest.raises(ValueError, match="Attempt to add two Layers with the name 'scale'"):
        net.track_layer(tf.compat.v1.layers.Dense(1, name="scale"))
        net.track_layer(tf.compat.v1.layers.Dense(1, name="scale"))
    with pytest.raises(ValueError, match="Forward slashes"):
        TwoLayers(name="a/b")
    with pytest.raises(ValueError, match="No such layer"):
        net.get_layer(name="missing")


def test_sequential_passes_training_to_layers_that_take_it():
    seq = tfe.Sequential([tf.compat.v1.layers.Dense(3, kernel_initializer="ones"),
                          tf.compat.v1.layers.Dropout(0.5), lambda x: x * 2.0],
                         name="seq_training")
    x = tf.ones([2, 4])
    np.testing.assert_allclose(seq(x).numpy(), np.full((2, 3), 8.0))
    np.testing.assert_allclose(seq(x, training=False).numpy(), np.full((2, 3), 8.0))
    dropped = seq(tf.ones([50, 4]), training=True).numpy()
    assert set(np.unique(dropped)) <= {0.0, 16.0} and 0 < (dropped == 0).mean() < 1
    assert [v.name for v in seq.variables] == ["seq_training/dense/kernel:0",
                                              "seq_training/dense/bias:0"]
    with pytest.raises(TypeError, match="takes only tf.layers.Layer objects or callables"):
        seq.add(3)


def test_saver_saves_and_restores_with_global_step(tmp_path):
    net = TwoLayers(name="net_saver")
    net(tf.ones([1, 5]))
    step = tf.Variable(7, dtype=tf.int64, name="saver_step")
    saver = tfe.Saver(net.variables + [step])
    prefix = saver.save(str(tmp_path / "ckpt"), global_step=step)
    assert prefix == str(tmp_path / "ckpt-7")
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix
    saved = [v.numpy().copy() for v in net.variables]
    for v in net.variables:
        v.assign(tf.zeros_like(v))
    step.assign(0)
    saver.restore(prefix)
    for v, value in zip(net.variables, saved):
        np.testing.assert_array_equal(v.numpy(), value)
    assert step.numpy() == 7
    names = dict(tf.train.list_variables(prefix))
    assert names["net_saver/dense/kernel"] == [5, 4] and names["saver_step"] == []


def test_saver_refused_in_graph_mode():
    with tf.Graph().as_default():
        with pytest.raises(RuntimeError, match="tfe.Saver can only be used when eager"):
            tfe.Saver([])


def test_restore_variables_on_create(tmp_path):
    net = TwoLayers(name="net_source")
    x = tf.ones([2, 5])
    expected = net(x).numpy()
    tfe.Saver({v.name[:-2].replace("net_source/", ""): v for v in net.variables}).save(
        str(tmp_path / "model"))
    path = tf.train.latest_checkpoint(str(tmp_path))
    with tfe.restore_variables_on_create(path, map_func=lambda n: n.split("/", 1)[1]):
        restored = TwoLayers(name="net_target")
        result = restored(x).numpy()
    np.testing.assert_allclose(result, expected, rtol=1e-6)
    with tfe.restore_variables_on_create(path):
        with pytest.raises(tf.errors.NotFoundError, match="not_there not found in checkpoint"):
            tf.Variable(1.0, name="not_there")
    with tfe.restore_variables_on_create(None):   # no checkpoint yet: nothing happens
        assert tf.Variable(2.0, name="fresh").numpy() == 2.0
    with pytest.raises(ValueError, match="map_func must be callable"):
        with tfe.restore_variables_on_create(path, map_func=3):
            pass
    with tf.Graph().as_default(), pytest.raises(ValueError, match="eager execution enabled"):
        with tfe.restore_variables_on_create(path):
            pass


def test_restore_on_create_uses_each_value_once(tmp_path):
    v = tf.Variable([1.0, 2.0], name="once")
    tfe.Saver([v]).save(str(tmp_path / "once"))
    with tfe.restore_variables_on_create(str(tmp_path / "once")):
        first = tf.Variable([0.0, 0.0], name="once")
        second = tf.Variable([5.0, 6.0], name="once")
    np.testing.assert_array_equal(first.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(second.numpy(), [5.0, 6.0])


def test_execution_modes_run_ops_in_order():
    assert (tfe.SYNC, tfe.ASYNC) == (0, 1)
    with tfe.execution_mode(tfe.ASYNC):
        x = tf.constant(2.0) * 3.0
        assert tfe.async_wait() is None
    assert x.numpy() == 6.0
    tfe.set_execution_mode(tfe.SYNC)
    tfe.async_clear_error()
    with pytest.raises(ValueError, match="Execution mode should be None/SYNC/ASYNC"):
        tfe.set_execution_mode(3)


def test_get_optimizer_variables():
    v = tf.Variable([1.0], name="opt_var")
    opt = tf.compat.v1.train.AdamOptimizer(0.1)
    opt.apply_gradients([(tf.constant([1.0]), v)])
    names = sorted(var.name for var in tfe.get_optimizer_variables(opt))
    assert names == ["beta1_power:0", "beta2_power:0", "opt_var/Adam:0", "opt_var/Adam_1:0"]


def test_tfe_import_path_and_run(tmp_path):
    out = check(run_script(tmp_path, """
        import tensorflow as tf
        from tensorflow.contrib.eager.python import tfe
        import tensorflow.contrib.eager.python.tfe as tfe_module
        assert tfe is tfe_module is tf.contrib.eager
        def main(argv):
            print("eager", tf.executing_eagerly(), argv[1:])
        tfe.run(main)
    """, "extra"))
    assert "eager True ['extra']" in out


def test_network_save_and_deferred_restore(tmp_path):
    source = TwoLayers(name="net_save_source")
    x = tf.ones([2, 5])
    expected = source(x).numpy()
    prefix = tfe.save_network_checkpoint(source, str(tmp_path))
    assert prefix == str(tmp_path / "net_save_source")
    assert sorted(name for name, _ in tf.train.list_variables(prefix)) == [
        "dense/bias", "dense/kernel", "dense_1/kernel"]
    built = TwoLayers(name="net_save_built")
    built(x)
    built.restore(prefix)                          # existing variables: now
    np.testing.assert_allclose(built(x).numpy(), expected, rtol=1e-6)
    fresh = TwoLayers(name="net_save_fresh")
    tfe.restore_network_checkpoint(fresh, prefix)  # not built yet: on creation
    np.testing.assert_allclose(fresh(x).numpy(), expected, rtol=1e-6)
    step = tf.compat.v1.train.get_or_create_global_step()
    assert built.save(str(tmp_path / "ckpt"), global_step=step).endswith("ckpt-%d" % step.numpy())
    with pytest.raises(ValueError, match="before it was first called"):
        TwoLayers(name="net_save_unbuilt").save(str(tmp_path / "x"))
