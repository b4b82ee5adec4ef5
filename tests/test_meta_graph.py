"""tf.train.export_meta_graph / import_meta_graph for tfcompat's own graphs
(framework/meta_graph.py): round trips, Saver restore, import_scope, clear_devices, and the
refusal of what a meta graph must not name."""
import json
import os

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors, meta_graph

v1 = tf.compat.v1
X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0


def _mlp():
    """An MLP with dropout (fed keep_prob), a global step and a train op; returns tensors."""
    x = v1.placeholder(tf.float32, [None, 3], name="x")
    keep = v1.placeholder_with_default(1.0, [], name="keep_prob")
    with v1.variable_scope("dense"):
        w = v1.get_variable("w", [3, 4], initializer=v1.random_normal_initializer(seed=1))
        b = v1.get_variable("b", [4], initializer=v1.constant_initializer(0.5))
    hidden = tf.nn.dropout(tf.nn.relu(tf.matmul(x, w) + b), keep_prob=keep)
    logits = v1.layers.dense(hidden, 2, name="out")
    y = tf.identity(tf.nn.softmax(logits), name="y")
    step = v1.train.get_or_create_global_step()
    loss = tf.reduce_mean(tf.square(y))
    train_op = v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    v1.add_to_collection("train_op", train_op)
    v1.add_to_collection("my_values", 7)
    return x, y


def test_export_import_restore_runs_same_values(tmp_path):
    with tf.Graph().as_default():
        x, y = _mlp()
        saver = v1.train.Saver()
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            expected = sess.run(y, {x: X})
            prefix = saver.save(sess, str(tmp_path / "model"))
    assert os.path.exists(prefix + ".meta")
    with tf.Graph().as_default() as graph:
        restorer = v1.train.import_meta_graph(prefix + ".meta")
        assert isinstance(restorer, v1.train.Saver)
        with v1.Session() as sess:
            restorer.restore(sess, prefix)
            got = sess.run("y:0", {"x:0": X})
            np.testing.assert_allclose(got, expected, atol=1e-6)
            # dropout with a fed keep_prob runs (keep_prob 1 keeps everything)
            np.testing.assert_allclose(sess.run("y:0", {"x:0": X, "keep_prob:0": 1.0}),
                                       expected, atol=1e-6)
            assert sess.run(v1.train.get_global_step()) == 0
        assert sorted(v.name for v in v1.trainable_variables()) == \
            ["dense/b:0", "dense/w:0", "out/bias:0", "out/kernel:0"]
        assert [v.name for v in v1.global_variables()][-1] == "global_step:0"
        assert graph.get_collection("my_values") == [7]
        assert graph.get_operation_by_name("y").type == "Identity"
        assert graph.get_tensor_by_name("x:0").shape.as_list() == [None, 3]


def test_imported_initializers_run_and_unrebuilt_nodes_raise():
    with tf.Graph().as_default() as graph:
        _mlp()
        meta = v1.train.export_meta_graph()
    kinds = {node.name: node.attr[meta_graph.KIND].s.decode() for node in meta.graph_def.node}
    assert kinds["x"] == "placeholder" and kinds["dense/w"] == "variable"
    assert kinds["gradients"] == "unsupported"
    assert set(meta.collection_def) >= {"variables", "trainable_variables", "global_step",
                                        "train_op"}
    with tf.Graph().as_default() as graph:
        assert v1.train.import_meta_graph(meta) is not None
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            assert sess.run("dense/b:0").tolist() == [0.5] * 4
            assert sess.run(graph.get_tensor_by_name("y:0"), {"x:0": X}).shape == (4, 2)
            train_op = v1.get_collection("train_op")[0]
            with pytest.raises(NotImplementedError, match="'gradients' .*SymbolicGradient"):
                sess.run(train_op, {"x:0": X})


def test_import_scope_and_clear_devices(tmp_path):
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            x = v1.placeholder(tf.float32, [None, 3], name="x")
            w = v1.Variable(np.ones((3, 2), np.float32), name="w")
            y = tf.matmul(x, w, name="y")
        saver = v1.train.Saver()
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(w.assign(np.full((3, 2), 2.0, np.float32)))
            expected = sess.run(y, {x: X})
            prefix = saver.save(sess, str(tmp_path / "ckpt"), write_meta_graph=False)
        meta = saver.export_meta_graph(str(tmp_path / "g.meta"), as_text=True)
    assert meta.graph_def.node[0].device == "/device:CPU:0"
    with tf.Graph().as_default() as graph:
        restorer = v1.train.import_meta_graph(str(tmp_path / "g.meta"), import_scope="imp")
        assert graph.get_operation_by_name("imp/y").device == "/device:CPU:0"
        assert [v.name for v in v1.global_variables()] == ["imp/w:0"]
        with v1.Session() as sess:
            restorer.restore(sess, prefix)      # restores "imp/w" from key "w", as TF does
            np.testing.assert_allclose(sess.run("imp/y:0", {"imp/x:0": X}), expected)
    with tf.Graph().as_default() as graph:
        v1.train.import_meta_graph(meta, clear_devices=True)
        assert graph.get_operation_by_name("y").device == ""
        assert graph.get_operation_by_name("y").inputs[0].name == "x:0"


def test_export_scope_keeps_one_scope_and_strips_it():
    with tf.Graph().as_default():
        with tf.name_scope("tower"):
            x = v1.placeholder(tf.float32, [2], name="x")
            tf.multiply(x, 3.0, name="y")
        v1.placeholder(tf.float32, [], name="other")
        meta = v1.train.export_meta_graph(export_scope="tower")
    assert [node.name for node in meta.graph_def.node] == ["x", "y"]
    with tf.Graph().as_default():
        v1.train.import_meta_graph(meta, import_scope="t2")
        with v1.Session() as sess:
            assert sess.run("t2/y:0", {"t2/x:0": [1.0, 2.0]}).tolist() == [3.0, 6.0]


def test_cnn_ops_round_trip():
    images = np.random.RandomState(0).rand(2, 8, 8, 1).astype(np.float32)
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 8, 8, 1], name="images")
        kernel = v1.Variable(np.random.RandomState(1).rand(3, 3, 1, 4).astype(np.float32))
        conv = tf.nn.conv2d(x, kernel, strides=[1, 1, 1, 1], padding="SAME")
        pool = tf.nn.max_pool(tf.nn.relu(conv), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        flat = tf.reshape(pool, [-1, 4 * 4 * 4])
        out = tf.concat([tf.reduce_mean(flat, axis=1, keepdims=True), flat[:, :3]], 1,
                        name="out")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            expected = sess.run(out, {x: images})
        meta = v1.train.export_meta_graph()
    with tf.Graph().as_default():
        v1.train.import_meta_graph(meta)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            np.testing.assert_allclose(sess.run("out:0", {"images:0": images}), expected,
                                       atol=1e-6)


def _simple_meta():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [2], name="x")
        tf.abs(x, name="y")
        return v1.train.export_meta_graph()


def test_a_function_that_is_not_a_registered_op_is_refused():
    meta = _simple_meta()
    node = [n for n in meta.graph_def.node if n.name == "y"][0]
    assert node.attr[meta_graph.OP_KEY].s == b"tfcompat.ops.math_ops:abs"
    node.attr[meta_graph.OP_KEY].s = b"os:system"
    with tf.Graph().as_default():
        with pytest.raises(errors.NotFoundError, match="'os:system'.*refused"):
            v1.train.import_meta_graph(meta)


@pytest.mark.parametrize("name", ["subprocess:Popen",
                                  "tfcompat.keras.engine.training:Model",
                                  "tfcompat.keras.layers.core:Lambda"])
def test_a_class_that_is_not_an_initializer_is_refused(name):
    meta = _simple_meta()
    node = [n for n in meta.graph_def.node if n.name == "y"][0]
    node.attr[meta_graph.ARGS].s = json.dumps({
        "args": {"tuple": [{"input": 0}]},
        "kwargs": {"dict": {"name": {"object": name,
                                     "config": {"dict": {"args": "true"}}}}}}).encode()
    with tf.Graph().as_default():
        with pytest.raises(errors.NotFoundError, match="%s.*refused" % name):
            v1.train.import_meta_graph(meta)


def test_a_meta_graph_without_tfcompats_attrs_is_imported_as_real_tfs():
    """Its nodes are built as tf.raw_ops (real TF's files: test_meta_graph_real.py)."""
    meta = _simple_meta()
    for node in meta.graph_def.node:
        del node.attr[meta_graph.KIND]
    with tf.Graph().as_default():
        v1.train.import_meta_graph(meta)
        with v1.Session() as sess:
            np.testing.assert_allclose(sess.run("y:0", {"x:0": [-1.0, 2.0]}), [1.0, 2.0])


def test_saver_def_names_as_tf_writes_them():
    with tf.Graph().as_default():
        v1.Variable(1.0, name="v")
        first, second = v1.train.Saver(), v1.train.Saver()
        saver_def = first.as_saver_def()
        assert (saver_def.filename_tensor_name, saver_def.save_tensor_name,
                saver_def.restore_op_name) == ("save/Const:0", "save/control_dependency:0",
                                               "save/restore_all")
        assert (saver_def.max_to_keep, saver_def.keep_checkpoint_every_n_hours) == (5, 10000)
        assert second.as_saver_def().restore_op_name == "save_1/restore_all"


def test_garbage_meta_file_is_data_loss(tmp_path):
    path = tmp_path / "bad.meta"
    path.write_bytes(b"\xff\x00garbage")
    with tf.Graph().as_default():
        with pytest.raises(errors.DataLossError, match="bad.meta"):
            v1.train.import_meta_graph(str(path))
        with pytest.raises(errors.NotFoundError):
            v1.train.import_meta_graph(str(tmp_path / "missing.meta"))


def test_graph_without_variables_gives_no_saver():
    with tf.Graph().as_default():
        assert v1.train.import_meta_graph(_simple_meta()) is None


def test_saver_save_writes_the_meta_graph_of_the_sessions_graph(tmp_path):
    graph = tf.Graph()
    with graph.as_default():
        v1.Variable(2.0, name="v")
        tf.identity(v1.placeholder(tf.float32, [], name="p"), name="q")
        saver = v1.train.Saver()
    with v1.Session(graph=graph) as sess:
        sess.run(v1.variables_initializer(graph.get_collection("variables")))
        prefix = saver.save(sess, str(tmp_path / "m"))     # the default graph is another
    with tf.Graph().as_default():
        restorer = v1.train.import_meta_graph(prefix + ".meta")
        with v1.Session() as sess:
            restorer.restore(sess, prefix)
            assert sess.run(["v:0", "q:0"], {"p:0": 3.0}) == [2.0, 3.0]
