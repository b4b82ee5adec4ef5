"""Meta graphs and TF1 SavedModels written by real TensorFlow (issue 22): TF1 training graphs
(`.meta` + checkpoint, ref and resource variables, Adam, Momentum, SGD, an MLP and a CNN)
import, restore
and keep training with real TF's losses and weights; a TF1 SavedModel loads and serves real
TF's outputs. Fixtures and real TF's values: tests/fixtures/tf1_meta/make_fixtures.py."""
import os

import numpy as np
import pytest
from tensorboard.compat.proto import meta_graph_pb2, summary_pb2

import tfcompat as tf
from tfcompat.ops.importer import UnsupportedOpsError

v1 = tf.compat.v1
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "tf1_meta")
TRAINING = ["adam_ref", "adam_resource", "momentum_ref", "momentum_resource", "cnn_adam_ref"]
VARIABLES = ["dense/kernel", "dense/bias", "logits/kernel", "logits/bias"]


def _fixture(name):
    prefix = os.path.join(FIXTURES, name, "model.ckpt-2")
    return prefix, dict(np.load(os.path.join(FIXTURES, name, "expected.npz")))


def _feed(expected, scope=""):
    return {scope + "x:0": expected["x"], scope + "labels:0": expected["labels"]}


@pytest.mark.parametrize("name", TRAINING)
def test_restored_training_graph_keeps_training_as_real_tf(name):
    prefix, expected = _fixture(name)
    with tf.Graph().as_default():
        saver = v1.train.import_meta_graph(prefix + ".meta")
        train_op = v1.get_collection("train_op")[0]
        loss = v1.get_collection("losses")[0]
        with v1.Session() as sess:
            saver.restore(sess, prefix)
            assert sess.run(v1.train.get_global_step()) == 2
            for step in range(3):
                value, _ = sess.run([loss, train_op], _feed(expected))
                np.testing.assert_allclose(value, expected["loss_%d" % step], rtol=1e-5)
                for variable in v1.global_variables():
                    np.testing.assert_allclose(
                        sess.run(variable), expected["%d/%s" % (step, variable.op.name)],
                        rtol=1e-5, atol=1e-6, err_msg=variable.op.name)
            assert sess.run(v1.train.get_global_step()) == 5
            if name.startswith("momentum"):     # the plain SGD train op of the same graph
                sgd_op = v1.get_collection("train_op_sgd")[0]
                value, _ = sess.run([loss, sgd_op], _feed(expected))
                np.testing.assert_allclose(value, expected["sgd_loss"], rtol=1e-5)
                np.testing.assert_allclose(sess.run(v1.trainable_variables()[0]),
                                           expected["sgd/dense/kernel"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["adam_ref", "adam_resource"])
def test_collections_hold_variables_backed_by_the_imported_nodes(name):
    prefix, expected = _fixture(name)
    with tf.Graph().as_default() as graph:
        v1.train.import_meta_graph(prefix + ".meta")
        assert [v.op.name for v in v1.trainable_variables()] == VARIABLES
        slots = [v.op.name for v in v1.global_variables()]
        assert slots[:5] == VARIABLES + ["global_step"]
        assert {"beta1_power", "beta2_power", "dense/kernel/Adam", "logits/bias/Adam_1"} <= \
            set(slots)
        kernel = v1.trainable_variables()[0]
        assert isinstance(kernel, tf.Variable)
        assert kernel.op is graph.get_operation_by_name("dense/kernel")
        assert kernel.op.type == ("VariableV2" if name.endswith("ref") else "VarHandleOp")
        assert kernel.shape.as_list() == [4, 8] and kernel.dtype == tf.float32
        assert kernel.initializer.name == ("dense/kernel/Assign")
        step = v1.train.get_global_step()
        assert step.op.name == "global_step" and step.dtype == tf.int64
        assert not step.trainable
        assert v1.get_collection("losses")[0].name == "loss:0"
        train_op = v1.get_collection("train_op")[0]
        assert train_op.name == "train"
        # the Saver's own nodes are left out: the Saver made from the SaverDef restores
        assert not [op for op in graph.get_operations() if op.name.startswith("save/")]


def test_summaries_and_initializers_run_after_an_import_with_a_scope():
    prefix, expected = _fixture("adam_ref")
    with tf.Graph().as_default():
        saver = v1.train.import_meta_graph(prefix + ".meta", import_scope="imported")
        assert saver.saver_def.max_to_keep == 5
        assert v1.trainable_variables()[0].name == "imported/dense/kernel:0"
        with v1.Session() as sess:
            uninitialized = sess.run(v1.report_uninitialized_variables())
            assert len(uninitialized) == 15 and uninitialized[0] == b"imported/dense/kernel"
            sess.run(v1.global_variables_initializer())     # the file's Assign nodes
            assert len(sess.run(v1.report_uninitialized_variables())) == 0
            np.testing.assert_allclose(sess.run("imported/dense/bias:0"), np.full(8, 0.1))
            summary, _ = sess.run([v1.get_collection("summaries")[0],
                                   v1.get_collection("train_op")[0]],
                                  _feed(expected, "imported/"))
            value = summary_pb2.Summary.FromString(summary).value[0]
            assert value.tag == "loss_1" and np.isfinite(value.simple_value)
            assert sess.run(v1.train.get_global_step()) == 1


def test_restored_graph_saves_a_checkpoint_that_restores(tmp_path):
    prefix, expected = _fixture("adam_resource")
    with tf.Graph().as_default():
        saver = v1.train.import_meta_graph(prefix + ".meta")
        with v1.Session() as sess:
            saver.restore(sess, prefix)
            sess.run(v1.get_collection("train_op")[0], _feed(expected))
            saved = saver.save(sess, str(tmp_path / "model"), global_step=3)
    with tf.Graph().as_default():
        meta = meta_graph_pb2.MetaGraphDef.FromString(open(prefix + ".meta", "rb").read())
        saver = v1.train.import_meta_graph(meta)      # a MetaGraphDef proto
        with v1.Session() as sess:
            saver.restore(sess, saved)
            np.testing.assert_allclose(sess.run("logits/kernel:0"),
                                       expected["0/logits/kernel"], rtol=1e-5, atol=1e-6)
            assert sess.run("global_step:0") == 3


def test_unsupported_ops_of_a_meta_graph_are_listed_at_once():
    prefix, _ = _fixture("adam_ref")
    meta = meta_graph_pb2.MetaGraphDef.FromString(open(prefix + ".meta", "rb").read())
    for name in ("queue", "queue_2"):
        meta.graph_def.node.add(name=name, op="FIFOQueueV2")
    meta.graph_def.node.add(name="dequeue", op="QueueDequeueV2", input=["queue"])
    with tf.Graph().as_default():
        with pytest.raises(UnsupportedOpsError) as raised:
            v1.train.import_meta_graph(meta)
    assert raised.value.op_types == {"FIFOQueueV2": 2, "QueueDequeueV2": 1}
    assert "FIFOQueueV2 (2), QueueDequeueV2 (1)" in str(raised.value)


def test_tf1_saved_model_of_real_tf_serves_its_outputs():
    expected = dict(np.load(os.path.join(FIXTURES, "saved_model_expected.npz")))
    with tf.Graph().as_default():
        with v1.Session() as sess:
            meta = v1.saved_model.loader.load(sess, [v1.saved_model.tag_constants.SERVING],
                                              os.path.join(FIXTURES, "saved_model"))
            signature = meta.signature_def["serving_default"]
            assert sorted(signature.outputs) == ["classes", "probs"]
            outputs = sess.run({key: info.name for key, info in signature.outputs.items()},
                               {signature.inputs["x"].name: expected["x"]})
            assert sorted(v.op.name for v in v1.global_variables()) == \
                ["hidden/bias", "hidden/kernel", "out_kernel"]
    np.testing.assert_allclose(outputs["probs"], expected["probs"], rtol=1e-5)
    np.testing.assert_array_equal(outputs["classes"], expected["classes"])


def test_gradient_kernels_equal_autograd_of_the_forward_ops():
    """The gradient ops TF's tf.gradients writes into graphs, against tfcompat's own
    gradients of the forward ops (GradientTape)."""
    raw = tf.raw_ops
    rng = np.random.RandomState(0)
    x = tf.constant(rng.randn(2, 6, 6, 3).astype(np.float32))
    filters = tf.constant(rng.randn(3, 3, 3, 4).astype(np.float32))
    labels = tf.constant([1, 3])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, filters])
        conv = tf.nn.conv2d(x, filters, [1, 2, 2, 1], "SAME")
        pooled = tf.nn.max_pool2d(x, 2, 2, "VALID")
        averaged = tf.nn.avg_pool2d(x, 3, 1, "SAME")
        activated = tf.nn.relu(x), tf.nn.tanh(x)
        logits = tf.reshape(x, [2, -1])[:, :4]
        sparse_loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                     logits=logits)
        dense_loss = tf.nn.softmax_cross_entropy_with_logits(
            labels=tf.one_hot(labels, 4), logits=logits)

    def check(kernel, target, source, output_gradient):
        expected = tape.gradient(target, source, output_gradients=output_gradient)
        np.testing.assert_allclose(kernel, expected, rtol=1e-5, atol=1e-6)

    dy = tf.ones_like(conv) * 0.5
    check(raw.Conv2DBackpropFilter(input=x, filter_sizes=[3, 3, 3, 4], out_backprop=dy,
                                   strides=[1, 2, 2, 1], padding="SAME"), conv, filters, dy)
    check(raw.Conv2DBackpropInput(input_sizes=[2, 6, 6, 3], filter=filters, out_backprop=dy,
                                  strides=[1, 2, 2, 1], padding="SAME"), conv, x, dy)
    dy = tf.reshape(tf.range(18.0), [2, 3, 3, 1]) * tf.ones([1, 1, 1, 3])
    check(raw.MaxPoolGrad(orig_input=x, orig_output=pooled, grad=dy, ksize=[1, 2, 2, 1],
                          strides=[1, 2, 2, 1], padding="VALID"), pooled, x, dy)
    dy = tf.sin(x)
    check(raw.AvgPoolGrad(orig_input_shape=[2, 6, 6, 3], grad=dy, ksize=[1, 3, 3, 1],
                          strides=[1, 1, 1, 1], padding="SAME"), averaged, x, dy)
    check(raw.ReluGrad(gradients=dy, features=x), activated[0], x, dy)
    check(raw.TanhGrad(y=activated[1], dy=dy), activated[1], x, dy)
    np.testing.assert_allclose(raw.BiasAddGrad(out_backprop=dy),
                               tf.reduce_sum(dy, [0, 1, 2]), rtol=1e-5)
    sparse = raw.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=labels)
    dense = raw.SoftmaxCrossEntropyWithLogits(features=logits, labels=tf.one_hot(labels, 4))
    for result, loss in ((sparse, sparse_loss), (dense, dense_loss)):
        np.testing.assert_allclose(result.loss, loss, rtol=1e-6)
        np.testing.assert_allclose(result.backprop, tape.gradient(loss, logits), rtol=1e-5,
                                   atol=1e-7)
