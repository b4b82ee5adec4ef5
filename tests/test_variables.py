"""tf.Variable: construction, names, reads, the assign family, operators, collections."""
import copy

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.framework.tensor import EagerTensor
from tfcompat.variables import (Variable, VariableSynchronization, global_variables,
                                global_variables_initializer, local_variables,
                                trainable_variables, variables_initializer)


class Slices(object):
    """A stand-in with IndexedSlices' fields."""

    def __init__(self, values, indices):
        self.values, self.indices = values, indices


@pytest.mark.parametrize("initial, kwargs, dtype, value", [
    ([1.0, 2.0], {}, tf.float32, [1.0, 2.0]),
    ([1, 2], {}, tf.int32, [1, 2]),
    (np.array([1.5], dtype=np.float64), {}, tf.float64, [1.5]),
    (np.array([1.5], dtype=np.float64), {"dtype": tf.float32}, tf.float32, [1.5]),
    (3, {"dtype": tf.float32}, tf.float32, 3.0),
    (lambda: tf.constant([7.0]), {}, tf.float32, [7.0]),
    (tf.constant([[1, 2]], dtype=tf.int64), {}, tf.int64, [[1, 2]]),
    ("text", {}, tf.string, b"text"),
])
def test_construction_forms(initial, kwargs, dtype, value):
    v = tf.Variable(initial, **kwargs)
    assert v.dtype == dtype
    np.testing.assert_array_equal(v.numpy(), value)
    assert v.shape == np.shape(value)
    assert v.get_shape() == v.shape


def test_construction_errors():
    with pytest.raises(ValueError, match="initial_value must be specified"):
        tf.Variable()
    with pytest.raises(ValueError, match="requested dtype float32"):
        tf.Variable(tf.constant([1, 2]), dtype=tf.float32)
    with pytest.raises(TypeError):
        tf.Variable(1.5, dtype=tf.int32)
    with pytest.raises(ValueError, match="not compatible with the explicitly supplied"):
        tf.Variable([1.0, 2.0], shape=[3])
    with pytest.raises(ValueError, match="ON_READ"):
        tf.Variable(1.0, trainable=True, synchronization=VariableSynchronization.ON_READ)


def test_copies_initial_value():
    t = tf.constant([1.0, 2.0])
    v = tf.Variable(t)
    v.assign([5.0, 6.0])
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    other = tf.Variable(v)
    v.assign([0.0, 0.0])
    np.testing.assert_array_equal(other.numpy(), [5.0, 6.0])


def test_names_follow_name_scope_without_uniquifying():
    assert tf.Variable(1.0).name == "Variable:0"
    assert tf.Variable(1.0, name="W").name == "W:0"
    assert tf.Variable(1.0, name="W").name == "W:0"  # eager TF does not uniquify
    with tf.compat.v1.name_scope("outer"):
        with tf.compat.v1.name_scope("inner"):
            assert tf.Variable(1.0, name="b").name == "outer/inner/b:0"
        assert tf.Variable(1.0, name="abs/").name == "abs:0"


def test_properties():
    v = tf.Variable([[1.0, 2.0]], trainable=False, name="p")
    assert not v.trainable
    assert tf.Variable(1.0).trainable
    assert v.device.endswith("device:CPU:0") or "GPU" in v.device
    assert v.initializer is None
    with pytest.raises(RuntimeError):
        v.initial_value
    assert v.constraint is None
    assert v._as_graph_element() is None
    assert v.is_initialized()
    np.testing.assert_array_equal(v.initialized_value().numpy(), [[1.0, 2.0]])
    with pytest.raises(NotImplementedError, match="numpy"):
        v.eval()


def test_device_placement():
    with tf.device("/cpu:0"):
        v = tf.Variable([1.0])
    assert v.device.endswith("CPU:0")
    assert v._storage().device.type == "cpu"


def test_numpy_and_value_are_snapshots():
    v = tf.Variable([1.0, 2.0])
    n = v.numpy()
    r = v.read_value()
    val = v.value()
    v.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(n, [1.0, 2.0])
    np.testing.assert_array_equal(r.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(val.numpy(), [1.0, 2.0])
    assert isinstance(r, EagerTensor)


def test_reads_are_detached_outside_tapes():
    v = tf.Variable([1.0, 2.0])
    v._storage().requires_grad_(True)
    t = v._tfcompat_tensor_()
    assert not t.requires_grad
    assert v._storage().data_ptr() == t.data_ptr()


def test_assign_family():
    v = tf.Variable([1.0, 2.0])
    storage = v._storage()
    assert v.assign([3.0, 4.0]) is v
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    v.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(v.numpy(), [4.0, 5.0])
    assert v.assign_sub(tf.constant([2.0, 2.0]), read_value=False) is None
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])
    assert v._storage() is storage  # in place
    v.assign(np.array([1.0, 1.0], dtype=np.float64))  # numpy values are converted
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0])
    v.load([9.0, 9.0])
    np.testing.assert_array_equal(v.numpy(), [9.0, 9.0])


def test_assign_errors():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="Shape mismatch"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="requested dtype float32"):
        v.assign(tf.constant([1, 2]))
    with pytest.raises(errors.InvalidArgumentError, match="shapes must be equal"):
        v.assign_add([1.0, 2.0, 3.0])
    i = tf.Variable(1)
    with pytest.raises(TypeError):
        i.assign(2.5)


def test_assign_to_unknown_shape():
    v = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None))
    assert v.shape.rank is None
    v.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])
    w = tf.Variable([1.0], validate_shape=False)
    w.assign([[1.0, 2.0]])
    assert w.numpy().shape == (1, 2)


def test_scatter_family():
    v = tf.Variable([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    v.scatter_update(Slices(tf.constant([[9.0, 9.0]]), tf.constant([1])))
    np.testing.assert_array_equal(v.numpy(), [[1, 1], [9, 9], [3, 3]])
    v.scatter_add(Slices(tf.constant([[1.0, 1.0], [1.0, 1.0]]), tf.constant([0, 0])))
    np.testing.assert_array_equal(v.numpy(), [[3, 3], [9, 9], [3, 3]])
    v.scatter_sub(Slices(tf.constant([[3.0, 3.0]]), tf.constant([2])))
    np.testing.assert_array_equal(v.numpy(), [[3, 3], [9, 9], [0, 0]])
    v.scatter_mul(Slices(tf.constant([[2.0, 2.0]]), tf.constant([0])))
    v.scatter_div(Slices(tf.constant([[3.0, 3.0]]), tf.constant([1])))
    np.testing.assert_array_equal(v.numpy(), [[6, 6], [3, 3], [0, 0]])
    v.scatter_max(Slices(tf.constant([[1.0, 7.0]]), tf.constant([0])))
    v.scatter_min(Slices(tf.constant([[1.0, 7.0]]), tf.constant([1])))
    np.testing.assert_array_equal(v.numpy(), [[6, 7], [1, 3], [0, 0]])
    with pytest.raises(TypeError, match="IndexedSlices"):
        v.scatter_update([1.0])


def test_scatter_nd_family():
    v = tf.Variable(np.zeros((2, 3), dtype=np.float32))
    v.scatter_nd_update(tf.constant([[0, 1], [1, 2]]), tf.constant([5.0, 6.0]))
    np.testing.assert_array_equal(v.numpy(), [[0, 5, 0], [0, 0, 6]])
    v.scatter_nd_add(tf.constant([[0, 1], [0, 1]]), tf.constant([1.0, 1.0]))
    v.scatter_nd_sub(tf.constant([[1]]), tf.constant([[1.0, 1.0, 1.0]]))
    np.testing.assert_array_equal(v.numpy(), [[0, 7, 0], [-1, -1, 5]])


def test_sparse_read_and_gather_nd():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(v.sparse_read([2, 0]).numpy(), [[5, 6], [1, 2]])
    np.testing.assert_array_equal(v.gather_nd([[1, 1], [0, 0]]).numpy(), [4, 1])


def test_count_up_to():
    v = tf.Variable(1, dtype=tf.int64)
    assert int(v.count_up_to(3)) == 1
    assert int(v.count_up_to(3)) == 2
    with pytest.raises(errors.OutOfRangeError, match="Reached limit of 3"):
        v.count_up_to(3)
    assert int(v) == 3


def test_count_up_to_in_a_graph_and_limit_epochs():
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        counter = tf1.Variable(0, name="counter")
        count = counter.count_up_to(2)
        limited = tf1.train.limit_epochs(tf.constant([7, 8]), num_epochs=2)
        with pytest.raises(TypeError, match="int32 or int64"):
            tf1.Variable(0.0).count_up_to(1)
        with tf1.Session() as sess:
            sess.run([counter.initializer, tf1.local_variables_initializer()])
            assert [sess.run(count), sess.run(count)] == [0, 1]
            with pytest.raises(errors.OutOfRangeError, match="Reached limit of 2"):
                sess.run(count)
            assert sess.run(counter) == 2
            for _ in range(2):
                np.testing.assert_array_equal(sess.run(limited), [7, 8])
            with pytest.raises(errors.OutOfRangeError):
                sess.run(limited)


def test_assign_initializes_a_graph_variable():
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        full = tf1.Variable(tf.zeros([2]), name="full")
        unknown = tf1.Variable(tf.zeros([1]), validate_shape=False, name="unknown")
        index = tf1.placeholder(tf.int32, [])
        assign_full = full.assign([1.0, 2.0])
        assign_unknown = tf1.assign(unknown, [3.0, 4.0, 5.0])
        assign_failing = full.assign(tf.gather(tf.constant([[1.0, 1.0]]), index))
        add = full.assign_add([1.0, 1.0])
        with tf1.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError):
                sess.run(assign_failing, {index: 5})
            for fetch in (full, add):       # a failed assign initializes nothing
                with pytest.raises(errors.FailedPreconditionError, match="uninitialized"):
                    sess.run(fetch)
            np.testing.assert_array_equal(sess.run(assign_full), [1.0, 2.0])
            np.testing.assert_array_equal(sess.run(add), [2.0, 3.0])
            np.testing.assert_array_equal(sess.run(assign_unknown), [3.0, 4.0, 5.0])
            np.testing.assert_array_equal(sess.run(unknown), [3.0, 4.0, 5.0])
        with tf1.Session() as other:        # values belong to the session that assigned
            with pytest.raises(errors.FailedPreconditionError):
                other.run(full)


def test_session_steps_see_every_new_storage_of_their_variables(tmp_path):
    """A Session signature keeps its variables' storages from step to step (`GraphInputs`);
    each way a variable gets a new one between steps is seen by the next step."""
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        w = tf1.Variable([1.0, 2.0], name="w")
        grows = tf1.Variable([1.0], validate_shape=False, name="grows")
        x = tf1.placeholder(tf.float32, [2])
        train = tf1.train.GradientDescentOptimizer(1.0).minimize(tf.reduce_sum(w * x))
        total = tf.reduce_sum(grows)
        reshape = tf1.assign(grows, [1.0, 2.0, 3.0], validate_shape=False)
        saver = tf1.train.Saver([w])
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            for expected in ([0.0, 1.0], [-1.0, 0.0]):
                sess.run(train, {x: [1.0, 1.0]})
                np.testing.assert_array_equal(sess.run(w), expected)
            path = saver.save(sess, str(tmp_path / "model"))
            sess.run(tf1.global_variables_initializer())
            sess.run(train, {x: [1.0, 1.0]})
            np.testing.assert_array_equal(sess.run(w), [0.0, 1.0])
            w.load([5.0, 5.0], sess)
            sess.run(train, {x: [1.0, 2.0]})
            np.testing.assert_array_equal(sess.run(w), [4.0, 3.0])
            saver.restore(sess, path)
            sess.run(train, {x: [1.0, 2.0]})
            np.testing.assert_array_equal(sess.run(w), [-2.0, -2.0])
            assert sess.run(total) == 1.0
            sess.run(reshape)
            assert sess.run(total) == 6.0


def test_session_steps_look_up_variables_once_per_new_storage(monkeypatch):
    """A training loop's steps reuse the storages their signature resolved: the session is
    asked for them again only after it gave a variable new storage (here: `load`)."""
    from tfcompat.variables import Variable as VariableClass
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        ws = [tf1.Variable(np.ones((2, 2), np.float32), name="w%d" % i) for i in range(3)]
        x = tf1.placeholder(tf.float32, [None, 2])
        h = x
        for w in ws:
            h = tf.matmul(h, w)
        train = tf1.train.AdamOptimizer(0.01).minimize(tf.reduce_sum(h))
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(train, {x: np.ones((1, 2), np.float32)})
            lookups = []
            real = VariableClass._storage_for_graph
            monkeypatch.setattr(VariableClass, "_storage_for_graph",
                                lambda self: lookups.append(self) or real(self))
            for _ in range(3):
                sess.run(train, {x: np.ones((1, 2), np.float32)})
            assert lookups == []
            ws[0].load(np.zeros((2, 2), np.float32), sess)
            sess.run(train, {x: np.ones((1, 2), np.float32)})
            assert len(lookups) == 11   # three weights, two Adam slots each, two beta powers
            del lookups[:]
            sess.run(train, {x: np.ones((1, 2), np.float32)})
            assert lookups == []


def test_one_module_run_by_two_sessions_reads_each_ones_variables():
    from tfcompat.framework.default_session import swap_running_session
    from tfcompat.framework.graph import run_module
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        v = tf1.Variable([1.0], name="v")
        doubled = v * 2.0
        module, inputs = graph.build_module([], [doubled])
        first, second = tf1.Session(), tf1.Session()
        v.load([3.0], first)
        v.load([5.0], second)
    for session, expected in ((first, 6.0), (second, 10.0), (first, 6.0)):
        previous = swap_running_session(session)
        try:
            assert run_module(module, [], inputs)[0].item() == expected
        finally:
            swap_running_session(previous)
    v.load([4.0], first)
    previous = swap_running_session(first)
    try:
        assert run_module(module, [], inputs)[0].item() == 8.0
    finally:
        swap_running_session(previous)


def test_convert_to_tensor_reads_the_value_at_that_point():
    """TF's conversion reads the variable (`value()`); a view of its storage would follow
    later assignments."""
    v = tf.Variable([[1.0, 2.0]])
    converted = [tf.convert_to_tensor(v), tf.convert_to_tensor(v, dtype=tf.float32),
                 tf.compat.v1.convert_to_tensor(v)]
    v.assign([[9.0, 9.0]])
    v.assign_add([[1.0, 1.0]])
    for value in converted:
        np.testing.assert_array_equal(value.numpy(), [[1.0, 2.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.convert_to_tensor(v) * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[3.0, 3.0]])


def test_python_protocol():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="W")
    assert repr(v) == ("<tf.Variable 'W:0' shape=(2, 2) dtype=float32, numpy=\n"
                       "array([[1., 2.],\n       [3., 4.]], dtype=float32)>")
    assert repr(tf.Variable(5.0, name="s")) == \
        "<tf.Variable 's:0' shape=() dtype=float32, numpy=5.0>"
    np.testing.assert_array_equal(np.asarray(v), [[1, 2], [3, 4]])
    assert len(v) == 2
    rows = list(v)
    np.testing.assert_array_equal(rows[1].numpy(), [3.0, 4.0])
    s = tf.Variable(3)
    assert int(s) == 3 and float(s) == 3.0 and bool(s)
    assert [10, 20, 30, 40][s] == 40
    assert hash(v) == id(v)
    assert v.ref().deref() is v and v.ref() == v.ref()
    assert {v.ref(): 1}[v.ref()] == 1


def test_deepcopy():
    v = tf.Variable([1.0, 2.0], name="orig", trainable=False)
    c = copy.deepcopy(v)
    assert c is not v and c.name == "orig:0" and not c.trainable
    c.assign([0.0, 0.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_torch_function():
    v = tf.Variable([1.0, 4.0])
    out = torch.sqrt(v)
    assert isinstance(out, torch.Tensor)
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0])


# ---------------------------------------------------------------- operators


def test_operators_route_to_tensor_ops():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    w = tf.Variable([[1.0, 0.0], [0.0, 1.0]])
    np.testing.assert_array_equal((v * 2).numpy(), [[2, 4], [6, 8]])
    np.testing.assert_array_equal((2 - v).numpy(), [[1, 0], [-1, -2]])
    np.testing.assert_array_equal((v + w).numpy(), [[2, 2], [3, 5]])
    np.testing.assert_array_equal((v @ w).numpy(), [[1, 2], [3, 4]])
    np.testing.assert_array_equal((-v).numpy(), [[-1, -2], [-3, -4]])
    np.testing.assert_array_equal((v / 2).numpy(), [[0.5, 1], [1.5, 2]])
    np.testing.assert_array_equal((v ** 2).numpy(), [[1, 4], [9, 16]])
    np.testing.assert_array_equal((v > 2).numpy(), [[False, False], [True, True]])
    np.testing.assert_array_equal((tf.constant(1.0) + v).numpy(), [[2, 3], [4, 5]])
    np.testing.assert_array_equal(v[0].numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v[:, 1].numpy(), [2.0, 4.0])
    assert isinstance(v * 2, EagerTensor)


def test_operators_mismatched_dtypes_raise():
    v = tf.Variable([1.0])
    with pytest.raises(errors.InvalidArgumentError):
        v + tf.constant([1], dtype=tf.int32)


def test_operators_differentiable_under_tape():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v + v[0, 0])
    grad = tape.gradient(y, v)
    # d/dv00 = 2 * v00 + 4 (v00 is broadcast into all four sums)
    np.testing.assert_array_equal(grad.numpy(), [[6.0, 4.0], [6.0, 8.0]])


# ---------------------------------------------------------------- collections


def test_eager_collections_are_empty():
    tf.Variable(1.0)
    assert global_variables() == [] and trainable_variables() == []
    assert local_variables() == []
    assert global_variables_initializer() is None
    assert variables_initializer([tf.Variable(1.0)]) is None
    assert tf.compat.v1.global_variables is global_variables
    assert tf.compat.v1.initialize_all_variables is global_variables_initializer
    assert tf.compat.v1.is_variable_initialized(tf.Variable(1.0)).numpy()
    assert tf.compat.v1.report_uninitialized_variables().shape == (0,)


def test_exported_paths():
    assert tf.Variable is Variable
    assert tf.contrib.eager.Variable is Variable
    assert tf.compat.v1.Variable is Variable


def test_tf1_count_up_to_function():
    v = tf.Variable(0, dtype=tf.int32)
    assert int(tf.compat.v1.count_up_to(v, 2)) == 0
    assert int(tf.compat.v1.count_up_to(v, 2)) == 1
    with pytest.raises(tf.errors.OutOfRangeError):
        tf.compat.v1.count_up_to(v, 2)
