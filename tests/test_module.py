"""tf.Module: names and name scopes, variables and submodules in TF's order, with_name_scope,
_flatten, and Keras layers/models as modules (values as TF 2.15 gives them)."""
import collections
import itertools

import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api
from tfcompat.keras import backend as K
from tfcompat.module.module import camel_to_snake

layers = tf.keras.layers


@pytest.fixture(autouse=True)
def tf2_semantics():
    previous = _api.flavor()
    _api.set_flavor("v2")
    K.clear_session()
    yield
    _api.set_flavor(previous)


class RecursiveModule(tf.Module):
    """TF's module_test fixture: a chain of "badger" modules each holding "mushroom"."""

    def __init__(self, depth, trainable=True):
        super().__init__(name="badger")
        with self.name_scope:
            self.child = RecursiveModule(depth - 1, trainable) if depth > 1 else None
            self.w = tf.Variable(1.0, trainable=trainable, name="mushroom")


class Linear(tf.Module):
    def __init__(self, units, name=None):
        super().__init__(name=name)
        self.units = units

    @tf.Module.with_name_scope
    def __call__(self, x):
        """Multiply by w."""
        if not hasattr(self, "w"):
            self.w = tf.Variable(tf.ones([int(x.shape[-1]), self.units]), name="w")
            self.b = tf.Variable(tf.zeros([self.units]), name="b")
        return tf.matmul(x, self.w) + self.b


class NameScopeProperty(tf.Module):
    @property
    @tf.Module.with_name_scope
    def scope_inside(self):
        with tf.name_scope("x") as scope:
            return scope[:-len("x/")]


def ids(values):
    return [id(v) for v in values]


# ---------------------------------------------------------------- names


@pytest.mark.parametrize("class_name, expected", [
    ("MyModule", "my_module"), ("HTTPServer", "http_server"), ("Conv2D", "conv2_d"),
    ("Module", "module"), ("lower", "lower"), ("ABC", "abc")])
def test_default_name_is_the_class_name_in_snake_case(class_name, expected):
    assert camel_to_snake(class_name) == expected
    assert type(class_name, (tf.Module,), {})().name == expected


def test_names_and_name_scopes_as_tf():
    module = tf.Module(name="simple")
    assert module.name == "simple"
    assert module.name_scope.name == "simple/"
    with tf.name_scope("foo"):
        nested = tf.Module(name="bar")
    assert (nested.name, nested.name_scope.name) == ("bar", "foo/bar/")
    assert tf.Module().name == "module"


@pytest.mark.parametrize("name", ["$Foo", "a/b", "1abc", ""])
def test_invalid_name_raises_value_error(name):
    with pytest.raises(ValueError, match="is not a valid module name"):
        tf.Module(name=name)


def test_names_not_numbered_eagerly_but_scopes_numbered_in_a_graph():
    first, second = RecursiveModule(2), RecursiveModule(2)
    assert [first.name_scope.name, first.child.name_scope.name] == ["badger/", "badger/badger/"]
    assert [second.name_scope.name, second.child.name_scope.name] == \
        ["badger/", "badger/badger/"]
    assert second.w.name == "badger/mushroom:0"
    with tf.Graph().as_default():
        first, second = RecursiveModule(2), RecursiveModule(2)
        assert first.name_scope.name == "badger/"
        assert first.child.name_scope.name == "badger/badger/"
        assert second.name == "badger"
        assert second.name_scope.name == "badger_1/"
        assert second.child.name_scope.name == "badger_1/badger/"


def test_variables_made_in_the_name_scope_carry_it():
    module = Linear(3, name="my_module")
    out = module(tf.ones([2, 4]))
    np.testing.assert_allclose(out.numpy(), np.full((2, 3), 4.0))
    assert (module.w.name, module.b.name) == ("my_module/w:0", "my_module/b:0")
    with module.name_scope:
        with module.name_scope:   # re-entrant, also nested
            assert tf.Variable(1.0, name="v").name == "my_module/v:0"
    assert tf.Variable(1.0, name="v").name == "v:0"


def test_with_name_scope_keeps_the_method_and_works_on_properties():
    assert Linear.__call__.__name__ == "__call__"
    assert Linear.__call__.__doc__ == "Multiply by w."
    module = NameScopeProperty()
    for _ in range(3):
        assert module.scope_inside == "name_scope_property/"
    module.plain = lambda: tf.Variable(0.0, name="p").name
    assert module.plain() == "p:0"  # not a method: no name scope


def test_compat_v1_and_v2_module_are_tf_module():
    assert tf.compat.v1.Module is tf.Module
    assert tf.compat.v2.Module is tf.Module


# ---------------------------------------------------------------- variables and submodules


def test_variables_and_submodules_of_a_chain():
    module = RecursiveModule(3)
    chain = [module.w, module.child.w, module.child.child.w]
    assert isinstance(module.variables, tuple)
    assert ids(module.variables) == ids(chain)
    assert ids(module.trainable_variables) == ids(chain)
    assert module.non_trainable_variables == ()
    assert ids(module.submodules) == ids([module.child, module.child.child])
    frozen = RecursiveModule(3, trainable=False)
    assert frozen.trainable_variables == ()
    assert [v.name for v in frozen.non_trainable_variables] == [
        "badger/mushroom:0", "badger/badger/mushroom:0", "badger/badger/badger/mushroom:0"]


def test_walk_order_attributes_sorted_containers_nested_each_once():
    Pair = collections.namedtuple("Pair", ["second", "first"])
    module = tf.Module()
    module.z = tf.Variable(0.0, name="z")
    module.child = tf.Module(name="child")
    module.child.w = tf.Variable(1.0, name="child_w")
    module.a = [tf.Variable(2.0, name="a0"), (tf.Variable(3.0, name="a1"),)]
    module.d = {"y": tf.Variable(4.0, name="dy"), "b": tf.Variable(5.0, name="db")}
    module.p = Pair(tf.Variable(6.0, name="p_second"), tf.Variable(7.0, name="p_first"))
    module.same = module.z
    module.a.append(tf.Variable(8.0, name="a2", trainable=False))  # found after assignment
    assert [v.name for v in module.variables] == [
        "a0:0", "a1:0", "a2:0", "db:0", "dy:0", "p_second:0", "p_first:0", "z:0",
        "child_w:0"]
    assert [v.name for v in module.non_trainable_variables] == ["a2:0"]
    assert ids(module.submodules) == [id(module.child)]


def test_submodules_in_containers_and_added_later():
    root = tf.Module(name="root")
    leaves = [tf.Module(name="leaf%d" % i) for i in range(3)]
    root.kids = {"b": leaves[1], "a": [leaves[0]]}
    assert ids(root.submodules) == ids([leaves[0], leaves[1]])
    leaves[1].grandchild = leaves[2]
    root.kids["a"].append(leaves[1])  # the same module twice: listed once
    assert ids(root.submodules) == ids(leaves)


def test_cycles_end():
    parent, child = tf.Module(name="parent"), tf.Module(name="child")
    parent.child, child.parent = child, parent
    child.w = tf.Variable(1.0)
    assert ids(parent.submodules) == [id(child)]
    assert ids(child.submodules) == [id(parent)]
    assert ids(parent.variables) == [id(child.w)]


def test_ignored_properties():
    class Dangerous(tf.Module):
        _TF_MODULE_IGNORED_PROPERTIES = frozenset(("dangerous_submodule",
                                                   "dangerous_variable"))
    module = Dangerous()
    module.dangerous_submodule = tf.Module()
    module.dangerous_variable = tf.Variable(1.0)
    module.normal_variable = tf.Variable(2.0)
    assert module.submodules == ()
    assert ids(module.variables) == [id(module.normal_variable)]


def test_flatten_recursive_predicate_and_paths():
    module = tf.Module()
    module.w = tf.Variable(1.0)
    module.encoder = tf.Module()
    module.encoder.w = [({"k": module.w}, {"k": module.w})]
    module.decoder = module.encoder
    paths = dict(module._flatten(with_path=True,
                                 predicate=lambda v: isinstance(v, tf.Variable)))
    assert sorted(paths) == [("decoder", "w", 0, 0, "k"), ("decoder", "w", 0, 1, "k"),
                             ("encoder", "w", 0, 0, "k"), ("encoder", "w", 0, 1, "k"),
                             ("w",)]
    assert all(v is module.w for v in paths.values())
    assert ids(module._flatten(recursive=False, predicate=lambda v: isinstance(v, tf.Module))) \
        == [id(module.encoder)]
    with pytest.raises(NotImplementedError, match="expand_composites"):
        module._flatten(expand_composites=True)


def test_module_checkpoint_round_trip(tmp_path):
    module = Linear(2, name="lin")
    module(tf.ones([1, 3]))
    path = tf.train.Checkpoint(model=module).save(str(tmp_path / "ckpt"))
    module.w.assign(tf.zeros([3, 2]))
    tf.train.Checkpoint(model=module).restore(path)
    np.testing.assert_allclose(module.w.numpy(), np.ones((3, 2)))


# ---------------------------------------------------------------- Keras layers as modules


def test_keras_layers_and_models_are_modules():
    dense = layers.Dense(2)
    model = tf.keras.Sequential([layers.Dense(1), layers.Dense(2)])
    assert isinstance(dense, tf.Module) and isinstance(model, tf.Module)
    assert ids(model.submodules) == ids(model.layers)
    model(layers.Input((1,)))
    assert len(model.variables) == 4


def test_module_finds_variables_of_the_keras_layers_it_holds():
    module = tf.Module()
    module.a, module.b = layers.Dense(1), layers.Dense(2)
    assert module.variables == ()
    assert ids(module.submodules) == ids([module.a, module.b])
    inputs = layers.Input((1,))
    module.a(inputs)
    module.b(inputs)
    assert ids(module.variables) == ids([module.a.kernel, module.a.bias,
                                         module.b.kernel, module.b.bias])
    nested = tf.keras.Sequential([layers.Dense(3, input_shape=(2,)), layers.Dense(1)])
    module.model = nested
    assert len(module.variables) == 8
    assert ids(module.submodules)[2:] == ids([nested] + nested.layers)


class Affine(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.eye(3, dtype=np.float32) * 2, name="w")
        self.count = tf.Variable(0.0, trainable=False, name="count")

    def __call__(self, x):
        return tf.matmul(x, self.w)


class WithModule(layers.Layer):
    def __init__(self):
        super().__init__()
        self.affine = Affine()
        self.dense = layers.Dense(1, kernel_initializer="ones")

    def call(self, inputs):
        return self.dense(self.affine(inputs))


def test_keras_layer_owns_the_variables_of_modules_it_holds():
    layer = WithModule()
    out = layer(np.ones((2, 3), np.float32))
    np.testing.assert_allclose(out.numpy(), np.full((2, 1), 6.0))
    assert ids(layer.trainable_weights) == ids([layer.affine.w, layer.dense.kernel,
                                                layer.dense.bias])
    assert ids(layer.non_trainable_weights) == [id(layer.affine.count)]
    assert ids(layer.submodules) == ids([layer.affine, layer.dense])
    layer.trainable = False
    assert layer.trainable_weights == []
    assert len(layer.non_trainable_weights) == 4



def test_fit_trains_the_variables_of_a_module_inside_a_layer():
    model = tf.keras.Sequential([WithModule()])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 3), np.float32), np.zeros((4, 1), np.float32), verbose=0)
    assert not np.allclose(model.layers[0].affine.w.numpy(), 2 * np.eye(3))
    np.testing.assert_allclose(model.layers[0].affine.count.numpy(), 0.0)


def test_keras_ignored_properties_extend_as_in_keras():
    class Ignoring(tf.keras.Model):
        _TF_MODULE_IGNORED_PROPERTIES = frozenset(itertools.chain(
            ("hidden",), tf.keras.Model._TF_MODULE_IGNORED_PROPERTIES))

        def __init__(self):
            super().__init__()
            self.hidden = layers.Dense(1)
            self.shown = layers.Dense(1)
    model = Ignoring()
    assert "_inbound_nodes" in tf.keras.layers.Layer._TF_MODULE_IGNORED_PROPERTIES
    assert "_trainable_weights" not in tf.keras.Model._TF_MODULE_IGNORED_PROPERTIES
    assert "history" in Ignoring._TF_MODULE_IGNORED_PROPERTIES   # Model's bookkeeping
    assert ids(model.submodules) == [id(model.shown)]
    assert [layer.name for layer in model.layers] == ["dense", "dense_1"]  # Keras tracks both


def test_keras_layer_name_scope():
    """TF's Keras layers give no usable `name_scope`; ours enters the layer's name."""
    layer = layers.Dense(1, name="head")
    assert layer.name_scope.name == "head"
    with tf.name_scope("outer"):
        with layer.name_scope:
            assert tf.Variable(1.0, name="v").name == "outer/head/v:0"


def test_a_module_is_checkpointable_before_it_has_variables(tmp_path):
    """TF's Intro to modules: tf.train.Checkpoint(model=m) of a module that builds its
    variables on first call (an AutoTrackable in TF)."""
    class Lazy(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = None

    module = Lazy()
    checkpoint = tf.train.Checkpoint(model=module)
    module.w = tf.Variable(3.0)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    other = Lazy()
    other.w = tf.Variable(0.0)
    tf.train.Checkpoint(model=other).restore(path).assert_consumed()
    assert other.w.numpy() == 3.0
