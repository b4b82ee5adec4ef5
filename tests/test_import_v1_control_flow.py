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


def test_training_graph_gradient_ops_are_reported_at_once():
    with tf.Graph().as_default():
        with pytest.raises(UnsupportedOpsError) as caught:
            tf.compat.v1.train.import_meta_graph(
                os.path.join(FIXTURES, "train", "model.ckpt-2.meta"))
    assert {"StackV2", "StackPushV2", "StackPopV2", "TensorArrayGradV3"} <= \
        set(caught.value.op_types)
