"""tf.variable_scope / tf.get_variable: names, reuse rules (graph-store semantics), eager
behaviour, defaults from scopes, custom getters, regularizers, the global step."""
import importlib

import numpy as np
import pytest

import tfcompat as tf
import tfcompat.train  # noqa: F401  (not imported by tfcompat/__init__ yet)

vs = importlib.import_module("tfcompat.variable_scope")
training_util = importlib.import_module("tfcompat.train.training_util")


@pytest.fixture
def store():
    """A store that keeps variables (TF's graph-mode store semantics)."""
    eager_store = vs.EagerVariableStore()
    with eager_store.as_default():
        yield eager_store


def graph_store_get(store, name, reuse, **kwargs):
    """Call the store as graph-mode TF does (the scope's reuse flag is enforced)."""
    return store.get_variable(name, reuse=reuse, **kwargs)


def test_eager_get_variable_names_and_no_sharing():
    with tf.compat.v1.variable_scope("shared", reuse=tf.compat.v1.AUTO_REUSE) as scope:
        a = tf.compat.v1.get_variable("w", shape=[2], initializer=tf.compat.v1.ones_initializer())
    with tf.compat.v1.variable_scope("shared", reuse=tf.compat.v1.AUTO_REUSE):
        b = tf.compat.v1.get_variable("w", shape=[2], initializer=tf.compat.v1.ones_initializer())
    assert a.name == b.name == "shared/w:0"
    assert a is not b  # eager TF's default store keeps no variables
    assert scope.name == "shared" and scope.original_name_scope == "shared/"
    assert scope.reuse is tf.compat.v1.AUTO_REUSE  # forced in eager, as in TF
    np.testing.assert_array_equal(a.numpy(), [1.0, 1.0])


def test_eager_reuse_true_does_not_raise():
    with tf.compat.v1.variable_scope("r", reuse=True):
        v = tf.compat.v1.get_variable("never_created", shape=[1])
    assert v.name == "r/never_created:0"


def test_store_reuse_rules():
    store = vs._VariableStore()
    store._vars["x/w"] = tf.Variable([1.0], name="x/w")
    with pytest.raises(ValueError, match=r"Variable x/w already exists, disallowed\. Did you "
                       r"mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope\?"):
        store._get_single_variable("x/w", [1], tf.float32, None, None, False, True, None,
                                   None, True, None, None, None, None)
    with pytest.raises(ValueError, match=r"Variable x/v does not exist, or was not created "
                       r"with tf.get_variable\(\)"):
        store._get_single_variable("x/v", [1], tf.float32, None, None, True, True, None,
                                   None, True, None, None, None, None)
    found = store._get_single_variable("x/w", [1], tf.float32, None, None, True, True, None,
                                       None, True, None, None, None, None)
    assert found is store._vars["x/w"]
    with pytest.raises(ValueError, match="Trying to share variable x/w, but specified shape"):
        store._get_single_variable("x/w", [2], tf.float32, None, None, True, True, None,
                                   None, True, None, None, None, None)
    with pytest.raises(ValueError, match="specified dtype int32"):
        store._get_single_variable("x/w", [1], tf.int32, None, None, True, True, None,
                                   None, True, None, None, None, None)


def test_eager_variable_store_shares(store):
    with tf.compat.v1.variable_scope("layer"):
        a = tf.compat.v1.get_variable("k", shape=[2, 3])
    with tf.compat.v1.variable_scope("layer", reuse=True):
        b = tf.compat.v1.get_variable("k", shape=[2, 3])
    assert a is b
    assert store.variables() == [a]
    assert store.trainable_variables() == [a]
    copied = store.copy()
    assert copied.variables()[0] is not a
    np.testing.assert_array_equal(copied.variables()[0].numpy(), a.numpy())


def test_eager_store_required_for_reuse():
    with pytest.raises(RuntimeError, match="EagerVariableStore"):
        vs._get_default_variable_store().get_variable("z", shape=[1], reuse=True)


def test_nested_scopes_and_default_names():
    with tf.compat.v1.variable_scope("outer"):
        with tf.compat.v1.variable_scope("inner") as inner:
            v = tf.compat.v1.get_variable("v", shape=[])
        with tf.compat.v1.variable_scope(None, default_name="dense") as d0:
            pass
        with tf.compat.v1.variable_scope(None, default_name="dense") as d1:
            pass
    assert inner.name == "outer/inner" and v.name == "outer/inner/v:0"
    assert (d0.name, d1.name) == ("outer/dense", "outer/dense_1")
    with tf.compat.v1.variable_scope("outer"):
        with tf.compat.v1.variable_scope(None, default_name="dense") as d2:
            pass
    assert d2.name == "outer/dense"  # subscope counts reset when the parent closes


def test_name_scope_ignored_for_variable_names_but_set_for_ops():
    with tf.compat.v1.name_scope("ns"):
        with tf.compat.v1.variable_scope("vs_") as scope:
            v = tf.compat.v1.get_variable("v", shape=[])
            plain = tf.Variable(1.0, name="plain")
    assert v.name == "vs_/v:0"
    assert plain.name == "ns/vs_/plain:0"
    assert scope.original_name_scope == "ns/vs_/"


def test_get_variable_in_graph_control_flow_bodies_takes_the_variable_scope_name():
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        with tf1.variable_scope("rnn"):
            def body(i, total):
                w = tf1.get_variable("w", [2], initializer=tf1.ones_initializer())
                return i + 1, total + tf.reduce_sum(w)
            looped = tf.while_loop(lambda i, total: i < 3, body,
                                   [tf.constant(0), tf.constant(0.0)])[1]
            branch = tf.cond(tf.constant(True),
                             lambda: tf1.get_variable("v", [], initializer=tf1.ones_initializer())
                             * 2.0, lambda: tf.constant(0.0))
        names = [v.name for v in tf1.global_variables()]
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            values = sess.run([looped, branch])
    assert names == ["rnn/w:0", "rnn/v:0"]
    assert values == [6.0, 2.0]
    assert graph.get_name_scope() == ""


def test_reenter_scope_object_and_auxiliary_name_scope():
    with tf.compat.v1.variable_scope("a") as a_scope:
        pass
    with tf.compat.v1.variable_scope("b"):
        with tf.compat.v1.variable_scope(a_scope) as again:
            v = tf.compat.v1.get_variable("v", shape=[])
    assert again.name == "a" and v.name == "a/v:0"
    with tf.compat.v1.variable_scope("c", auxiliary_name_scope=False):
        assert tf.Variable(1.0, name="x").name == "x:0"


def test_scope_defaults():
    init = tf.compat.v1.constant_initializer(3.0)
    with tf.compat.v1.variable_scope("d", initializer=init, dtype=tf.float64):
        v = tf.compat.v1.get_variable("v", shape=[2])
        with tf.compat.v1.variable_scope("inner"):
            w = tf.compat.v1.get_variable("w", shape=[1])
        i = tf.compat.v1.get_variable("i", shape=[2], dtype=tf.int32,
                                      initializer=tf.compat.v1.zeros_initializer())
    assert v.dtype == tf.float64 and w.dtype == tf.float64
    np.testing.assert_array_equal(v.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(w.numpy(), [3.0])
    assert i.dtype == tf.int32


def test_default_initializers():
    w = tf.compat.v1.get_variable("glorot", shape=[50, 50])
    limit = np.sqrt(6.0 / 100)
    assert np.abs(w.numpy()).max() <= limit and w.numpy().std() > limit / 3
    i = tf.compat.v1.get_variable("ints", shape=[3], dtype=tf.int32)
    np.testing.assert_array_equal(i.numpy(), [0, 0, 0])
    with pytest.raises(ValueError, match="An initializer for variable c of complex64"):
        tf.compat.v1.get_variable("c", shape=[1], dtype=tf.complex64)


def test_initializer_values():
    v = tf.compat.v1.get_variable("from_tensor", initializer=tf.ones((2, 2)))
    assert v.shape == (2, 2) and v.dtype == tf.float32
    w = tf.compat.v1.get_variable("from_list", initializer=[1, 2])
    assert w.dtype == tf.int32
    with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape"):
        tf.compat.v1.get_variable("bad", shape=[2], initializer=tf.ones((2,)))
    with pytest.raises(ValueError, match="don't match"):
        tf.compat.v1.get_variable("bad2", initializer=tf.ones((2,)), dtype=tf.int32)
    cls_init = tf.compat.v1.get_variable("cls", shape=[2],
                                         initializer=tf.compat.v1.ones_initializer)
    np.testing.assert_array_equal(cls_init.numpy(), [1.0, 1.0])
    fn = tf.compat.v1.get_variable("fn", shape=[2],
                                   initializer=lambda shape, dtype=None, partition_info=None:
                                   tf.fill(shape, 4.0))
    np.testing.assert_array_equal(fn.numpy(), [4.0, 4.0])


def test_trainable_and_local():
    t = tf.compat.v1.get_variable("t", shape=[])
    n = tf.compat.v1.get_variable("n", shape=[], trainable=False)
    loc = tf.compat.v1.get_local_variable("loc", shape=[])
    assert t.trainable and not n.trainable and not loc.trainable


def test_custom_getter_chain():
    calls = []

    def outer_getter(getter, name, *args, **kwargs):
        calls.append("outer:" + name)
        return getter(name + "_o", *args, **kwargs)

    def inner_getter(getter, name, *args, **kwargs):
        calls.append("inner:" + name)
        return getter(name + "_i", *args, **kwargs)

    with tf.compat.v1.variable_scope("g", custom_getter=outer_getter):
        with tf.compat.v1.variable_scope("h", custom_getter=inner_getter):
            v = tf.compat.v1.get_variable("v", shape=[])
    assert calls == ["inner:g/h/v", "outer:g/h/v_i"]
    assert v.name == "g/h/v_i_o:0"
    with pytest.raises(ValueError, match="not callable"):
        tf.compat.v1.get_variable("x", shape=[], custom_getter=3)


def test_regularization_losses():
    before = len(vs.regularization_losses())
    with tf.compat.v1.variable_scope("reg", regularizer=lambda x: tf.reduce_sum(x) * 2.0):
        v = tf.compat.v1.get_variable("W", initializer=tf.ones((2, 2)))
        tf.compat.v1.get_variable("none", shape=[], regularizer=tf.compat.v1.no_regularizer)
    losses = vs.regularization_losses()
    assert len(losses) == before + 1
    assert float(losses[-1]) == 8.0
    v.assign(tf.zeros((2, 2)))  # the loss is recomputed from the current value
    assert float(vs.regularization_losses("reg/")[-1]) == 0.0
    assert vs.regularization_losses("nomatch/") == []


def test_variable_scope_errors():
    with pytest.raises(TypeError, match="default_name is None"):
        tf.compat.v1.variable_scope(None)
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        with tf.compat.v1.variable_scope(None, default_name="x", reuse=True):
            pass
    with pytest.raises(ValueError, match="reuse parameter"):
        tf.compat.v1.variable_scope("x", reuse="yes")
    with pytest.raises(ValueError, match="Partitioner must be callable"):
        tf.compat.v1.get_variable("p", shape=[4], partitioner=2)
    # a partitioner works (tests/test_partitioned_variables.py): two parts of [4]
    parts = tf.compat.v1.get_variable("p", shape=[4], partitioner=lambda shape, dtype: [2])
    assert [p.shape.as_list() for p in parts] == [[2], [2]]


def test_get_variable_scope_and_reuse_variables():
    root = tf.compat.v1.get_variable_scope()
    assert root.name == ""
    with tf.compat.v1.variable_scope("rv") as scope:
        assert tf.compat.v1.get_variable_scope() is scope
        scope.reuse_variables()
        assert scope.reuse is True
    assert tf.compat.v1.get_variable_scope() is root


# ---------------------------------------------------------------- global step


def test_global_step():
    step = training_util.get_or_create_global_step()
    assert step.name == "global_step:0"
    assert step.dtype == tf.int64 and step.shape == () and not step.trainable
    assert "CPU" in step.device
    assert training_util.get_or_create_global_step() is step
    assert training_util.get_global_step() is step
    with pytest.raises(ValueError, match="already exists"):
        training_util.create_global_step()
    step.assign_add(5)
    assert training_util.global_step(None, step) == 5
    training_util.assert_global_step(step)
    with pytest.raises(TypeError, match="integer type"):
        training_util.assert_global_step(tf.Variable(1.0))
    with pytest.raises(TypeError, match="not scalar"):
        training_util.assert_global_step(tf.Variable([1, 2]))
