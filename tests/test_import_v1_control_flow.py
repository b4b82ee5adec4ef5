"""TF1 control flow (Enter/Merge/Switch/LoopCond/NextIteration/Exit, TensorArrayV3) in
GraphDefs written by real TensorFlow with control flow v1, built by tf.import_graph_def
as tfcompat's while_loop and cond; the values are real TF's
(tests/fixtures/tf1_control_flow/make_fixtures.py)."""
import os

import numpy as np
import pytest
from tensorboard.compat.proto import graph_pb2

import tfcompat as tf
from tfcompat.ops.importer import UnsupportedOpsError

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "tf1_control_flow")


def _graph_def(name):
    graph_def = graph_pb2.GraphDef()
    with open(os.path.join(FIXTURES, name), "rb") as f:
        graph_def.ParseFromString(f.read())
    return graph_def


def _expected(name):
    return np.load(os.path.join(FIXTURES, name))


@pytest.mark.parametrize("scope", ["", "import"])
def test_frozen_dynamic_rnn_with_cond_gives_real_tf_outputs(scope):
    expected = _expected("rnn_expected.npz")
    prefix = scope + "/" if scope else ""
    with tf.Graph().as_default():
        tf.import_graph_def(_graph_def("rnn_frozen.pb"), name=scope)
        with tf.compat.v1.Session() as sess:
            for x, use_mean, key in ((expected["x"], True, "probs_mean"),
                                     (expected["x"], False, "probs_last"),
                                     (expected["x_short"], True, "probs_short_mean")):
                probs = sess.run(prefix + "probs:0", {prefix + "x:0": x,
                                                      prefix + "use_mean:0": use_mean})
                np.testing.assert_allclose(probs, expected[key], rtol=1e-5, atol=1e-6)


def test_exit_and_merge_nodes_keep_their_names_and_values():
    expected = _expected("rnn_expected.npz")
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(_graph_def("rnn_frozen.pb"))
        last_h = graph.get_tensor_by_name("import/rnn/while/Exit_4:0")
        merged = graph.get_tensor_by_name("import/cond/Merge:0")
        # the loop's initial state is Fill(shape) of a shape known only when run
        assert last_h.shape.rank == 2 and merged.shape.is_compatible_with([None, 4])
        with tf.compat.v1.Session() as sess:
            h, chosen = sess.run([last_h, merged], {"import/x:0": expected["x"],
                                                    "import/use_mean:0": False})
            mean = sess.run(merged, {"import/x:0": expected["x"],
                                     "import/use_mean:0": True})
    np.testing.assert_array_equal(chosen, h)    # the false branch returns the last h
    assert h.shape == (2, 4) and not np.allclose(mean, h)


def test_nested_loops_and_conds_give_real_tf_outputs():
    expected = _expected("nested_expected.npz")
    names = ("total", "pair_a", "pair_b", "picked")
    with tf.Graph().as_default():
        tf.import_graph_def(_graph_def("nested_frozen.pb"))
        with tf.compat.v1.Session() as sess:
            for n in (0, 1, 4):
                values = sess.run({k: "import/%s:0" % k for k in names},
                                  {"import/v:0": expected["v"], "import/n:0": n})
                for key in names:
                    np.testing.assert_allclose(values[key], expected["%s_%d" % (key, n)],
                                               rtol=1e-5)


def test_dynamic_rnns_with_sequence_lengths_give_real_tf_outputs():
    expected = _expected("lengths_expected.npz")
    with tf.Graph().as_default():
        tf.import_graph_def(_graph_def("lengths_frozen.pb"), name="")
        with tf.compat.v1.Session() as sess:
            values = sess.run({"outs": "outs:0", "h": "h:0", "both": "both:0"},
                              {"x:0": expected["x"], "lengths:0": expected["lengths"]})
            for key in ("outs", "h", "both"):
                np.testing.assert_allclose(values[key], expected[key], rtol=1e-5,
                                           atol=1e-6)
            with pytest.raises(tf.errors.InvalidArgumentError):    # the lengths' Assert
                sess.run("outs:0", {"x:0": expected["x"], "lengths:0": [6, 3, 1]})


def test_map_fn_scan_and_foldl_give_real_tf_outputs():
    expected = _expected("functional_expected.npz")
    with tf.Graph().as_default():
        tf.import_graph_def(_graph_def("functional_frozen.pb"), name="")
        with tf.compat.v1.Session() as sess:
            for key in ("squares", "running", "folded"):
                np.testing.assert_allclose(sess.run(key + ":0", {"x:0": expected["x"]}),
                                           expected[key], rtol=1e-6)


def test_gradients_flow_through_an_imported_loop():
    expected = _expected("nested_expected.npz")
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(_graph_def("nested_frozen.pb"))
        v = graph.get_tensor_by_name("import/v:0")
        total = graph.get_tensor_by_name("import/total:0")
        gradient, = tf.gradients(tf.reduce_sum(total * [1.0, 2.0, 3.0]), v)
        with tf.compat.v1.Session() as sess:
            value = sess.run(gradient, {v: expected["v"], "import/n:0": 4})
    # total for n=4: i=0 adds 0, i=1 subtracts sum(v), i=2 adds 3v, i=3 subtracts 6*sum(v)
    np.testing.assert_allclose(value, 3.0 * np.array([1.0, 2.0, 3.0]) - 7.0 * 6.0)


def test_tensor_array_v3_raw_ops_thread_the_array_through_its_flow():
    handle, flow = tf.raw_ops.TensorArrayV3(size=3, dtype=tf.float32, element_shape=[2])
    flow = tf.raw_ops.TensorArrayWriteV3(handle=handle, index=1, value=[1.0, 2.0],
                                         flow_in=flow)
    flow = tf.raw_ops.TensorArrayScatterV3(handle=handle, indices=[0, 2],
                                           value=[[3.0, 4.0], [5.0, 6.0]], flow_in=flow)
    read = tf.raw_ops.TensorArrayReadV3(handle=handle, index=2, flow_in=flow,
                                        dtype=tf.float32)
    gathered = tf.raw_ops.TensorArrayGatherV3(handle=handle, indices=[1, 0], flow_in=flow,
                                              dtype=tf.float32)
    value, lengths = tf.raw_ops.TensorArrayConcatV3(handle=handle, flow_in=flow,
                                                    dtype=tf.float32)
    np.testing.assert_array_equal(read.numpy(), [5.0, 6.0])
    np.testing.assert_array_equal(gathered.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(value.numpy(), [3.0, 4.0, 1.0, 2.0, 5.0, 6.0])
    np.testing.assert_array_equal(lengths.numpy(), [2, 2, 2])
    assert lengths.dtype == tf.int64
    assert int(tf.raw_ops.TensorArraySizeV3(handle=handle, flow_in=flow)) == 3


def test_training_graph_through_a_cond_keeps_training_as_real_tf():
    """The gradient's cond (same predicate) reads the forward cond's branch values."""
    prefix = os.path.join(FIXTURES, "cond_train", "model.ckpt-2")
    expected = _expected(os.path.join("cond_train", "expected.npz"))
    with tf.Graph().as_default() as graph:
        saver = tf.compat.v1.train.import_meta_graph(prefix + ".meta")
        train_op = tf.compat.v1.get_collection("train_op")[0]
        loss = graph.get_tensor_by_name("loss:0")
        with tf.compat.v1.Session() as sess:
            saver.restore(sess, prefix)
            for step in range(4):
                value, _ = sess.run([loss, train_op], {
                    "x:0": expected["x"], "labels:0": expected["labels"],
                    "use_relu:0": bool(expected["use_relu_%d" % step])})
                np.testing.assert_allclose(value, expected["loss_%d" % step], rtol=1e-5)
            for name in ("dense/kernel", "logits/kernel"):
                np.testing.assert_allclose(sess.run(name + ":0"), expected[name],
                                           rtol=1e-5, atol=1e-6)


def test_loop_training_graph_reports_the_gradient_ops_it_lacks():
    with tf.Graph().as_default():
        with pytest.raises(UnsupportedOpsError) as caught:
            tf.compat.v1.train.import_meta_graph(
                os.path.join(FIXTURES, "train", "model.ckpt-2.meta"))
    assert set(caught.value.op_types) == {"BroadcastGradientArgs"}


def test_stack_raw_ops_pop_what_a_loop_pushed_last_first():
    with tf.Graph().as_default():
        stack = tf.raw_ops.StackV2(max_size=-1, elem_type=tf.float32)
        n = tf.compat.v1.placeholder(tf.int32, [])

        def push(i):
            tf.raw_ops.StackPushV2(handle=stack, elem=tf.cast(i, tf.float32) * 2.0)
            return i + 1

        def pop(i, total):
            return i - 1, total * 10.0 + tf.raw_ops.StackPopV2(handle=stack,
                                                               elem_type=tf.float32)

        count = tf.while_loop(lambda i: i < n, push, [0])
        _, popped = tf.while_loop(lambda i, total: i > 0, pop, [count, 0.0])
        with tf.compat.v1.Session() as sess:
            assert sess.run(popped, {n: 3}) == 420.0
            assert sess.run(popped, {n: 2}) == 20.0


def test_stack_pop_of_an_empty_stack_raises():
    stack = tf.raw_ops.StackV2(max_size=-1, elem_type=tf.float32)
    tf.raw_ops.StackPushV2(handle=stack, elem=1.5)
    assert float(tf.raw_ops.StackPopV2(handle=stack, elem_type=tf.float32)) == 1.5
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty"):
        tf.raw_ops.StackPopV2(handle=stack, elem_type=tf.float32)


def test_tensor_array_grad_v3_is_one_array_per_source():
    handle, flow = tf.raw_ops.TensorArrayV3(size=2, dtype=tf.float32, element_shape=[3])
    flow = tf.raw_ops.TensorArrayWriteV3(handle=handle, index=0, value=[1.0, 2.0, 3.0],
                                         flow_in=flow)
    grad, grad_flow = tf.raw_ops.TensorArrayGradV3(handle=handle, flow_in=flow,
                                                   source="gradients")
    assert grad_flow is flow and int(grad.size()) == 2
    # TF's gradient arrays start from the forward array's flow
    grad_flow = tf.raw_ops.TensorArrayWriteV3(handle=grad, index=1, value=[4.0, 5.0, 6.0],
                                              flow_in=grad_flow)
    again, _ = tf.raw_ops.TensorArrayGradV3(handle=handle, flow_in=grad_flow,
                                            source="gradients")
    np.testing.assert_array_equal(
        tf.raw_ops.TensorArrayGatherV3(handle=again, indices=[0, 1], flow_in=grad_flow,
                                       dtype=tf.float32).numpy(), [[0, 0, 0], [4, 5, 6]])
    np.testing.assert_array_equal(
        tf.raw_ops.TensorArrayReadV3(handle=handle, index=0, flow_in=flow,
                                     dtype=tf.float32).numpy(), [1, 2, 3])


def test_loop_gradient_kernels():
    offsets = tf.raw_ops.ConcatOffset(concat_dim=1, shape=[[2, 2, 7], [2, 3, 7], [2, 5, 7]])
    np.testing.assert_array_equal([o.numpy() for o in offsets],
                                  [[0, 0, 0], [0, 2, 0], [0, 5, 0]])
    np.testing.assert_allclose(tf.raw_ops.SigmoidGrad(y=[0.5, 0.2], dy=[1.0, 2.0]).numpy(),
                               [0.25, 0.32], rtol=1e-6)
    assert tf.raw_ops.ControlTrigger() is None


def test_dynamic_stitch_merges_by_index_with_a_known_size_in_graphs():
    np.testing.assert_array_equal(
        tf.raw_ops.DynamicStitch(indices=[[0, 2], [1]],
                                 data=[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]]]).numpy(),
        [[1, 2], [5, 6], [3, 4]])
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 4])
        # what TF's gradient of a mean over axis 1 computes: x's shape with 1 there
        shape = tf.raw_ops.DynamicStitch(indices=[[0, 1], 1], data=[tf.shape(x), 1])
        assert shape.shape.as_list() == [2]
        with pytest.raises(NotImplementedError, match="DynamicStitch"):
            tf.raw_ops.DynamicStitch(indices=[tf.range(tf.shape(x)[0])], data=[x])
        with tf.compat.v1.Session() as sess:
            np.testing.assert_array_equal(
                sess.run(shape, {x: np.zeros((5, 4), np.float32)}), [5, 1])
