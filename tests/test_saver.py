"""tf.train.Saver, the checkpoint state file, checkpoint readers, init_from_checkpoint."""
import os
import shutil
import types

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.train import checkpoint_format, saver as saver_lib

v1 = tf.compat.v1
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
TF1 = os.path.join(FIXTURES, "tf1_saver", "model.ckpt-3")
TF2 = os.path.join(FIXTURES, "tf2_object", "ckpt-1")
EXPECTED_TF1 = dict(np.load(os.path.join(FIXTURES, "tf1_saver", "expected_values.npz")))


def _value(var, sess=None):
    return sess.run(var) if sess is not None else var.numpy()


def test_eager_saver_needs_var_list():
    with pytest.raises(RuntimeError, match="var_list"):
        v1.train.Saver()


def test_eager_save_restore_state_file_and_max_to_keep(tmp_path):
    x = tf.Variable([1.0, 2.0], name="x")
    step = tf.Variable(0, dtype=tf.int64, name="step")
    saver = v1.train.Saver([x, step], max_to_keep=2)
    prefix = str(tmp_path / "model.ckpt")
    paths = []
    for i in range(4):
        x.assign([float(i), float(i) + 0.5])
        paths.append(saver.save(None, prefix, global_step=i))
    assert paths == [prefix + "-%d" % i for i in range(4)]
    assert saver.last_checkpoints == paths[2:]
    assert not checkpoint_format.exists(paths[0]) and checkpoint_format.exists(paths[3])
    text = open(str(tmp_path / "checkpoint")).read()
    assert text == ('model_checkpoint_path: "%s"\nall_model_checkpoint_paths: "%s"\n'
                    'all_model_checkpoint_paths: "%s"\n' % (paths[3], paths[2], paths[3]))
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[3]
    x.assign([0.0, 0.0])
    saver.restore(None, paths[2])
    np.testing.assert_array_equal(x.numpy(), [2.0, 2.5])


def test_relative_paths_in_state_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("run")
    x = tf.Variable(1.0)
    path = v1.train.Saver([x]).save(None, "run/model.ckpt", global_step=7)
    assert path == "run/model.ckpt-7"
    assert 'model_checkpoint_path: "model.ckpt-7"' in open("run/checkpoint").read()
    assert tf.train.latest_checkpoint("run") == "run/model.ckpt-7"
    state = tf.train.get_checkpoint_state("run")
    assert list(state.all_model_checkpoint_paths) == ["run/model.ckpt-7"]


def test_save_creates_one_missing_directory_level_like_tf(tmp_path):
    saver = v1.train.Saver([tf.Variable(1.0)])
    path = saver.save(None, str(tmp_path / "new" / "model.ckpt"))
    assert tf.train.checkpoint_exists(path)
    with pytest.raises(ValueError, match="Parent directory of .* doesn't exist"):
        saver.save(None, str(tmp_path / "missing" / "deeper" / "model.ckpt"))


def test_graph_save_restore_with_session_and_global_step(tmp_path):
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(2, 3))
        step = v1.train.get_or_create_global_step()
        inc = v1.assign_add(step, 5)
        saver = v1.train.Saver()
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(inc)
            path = saver.save(sess, str(tmp_path / "m.ckpt"), global_step=step)
        assert path.endswith("m.ckpt-5")
        assert os.path.exists(path + ".meta")
        from tensorboard.compat.proto import meta_graph_pb2
        meta = meta_graph_pb2.MetaGraphDef.FromString(open(path + ".meta", "rb").read())
        assert meta.saver_def.max_to_keep == 5
        with v1.Session() as sess:
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(2, 3))
            assert sess.run(step) == 5
    names = dict(tf.train.list_variables(path))
    assert names == {"w": [2, 3], "global_step": []}


def test_eager_save_graph_restore_and_back(tmp_path):
    x = tf.Variable([5.2], name="Variable")
    eager_path = v1.train.Saver([x]).save(None, str(tmp_path / "e.ckpt"))
    with tf.Graph().as_default():
        y = tf.Variable([13.14], name="Variable")
        saver = v1.train.Saver([y])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            saver.restore(sess, eager_path)
            np.testing.assert_allclose(sess.run(y), [5.2])
            sess.run(v1.assign(y, [7.5]))
            graph_path = saver.save(sess, str(tmp_path / "g.ckpt"))
    v1.train.Saver([x]).restore(None, graph_path)
    np.testing.assert_allclose(x.numpy(), [7.5])


def test_dict_var_list_and_duplicate_names():
    a, b = tf.Variable(1.0, name="same"), tf.Variable(2.0, name="same")
    with pytest.raises(ValueError, match="same name: same"):
        v1.train.Saver([a, b])
    v1.train.Saver({"first": a, "second": b})


def test_restore_errors_name_the_variable(tmp_path):
    x = tf.Variable([1.0, 2.0], name="dense/kernel")
    path = v1.train.Saver([x]).save(None, str(tmp_path / "m"))
    wrong_shape = tf.Variable([1.0, 2.0, 3.0], name="dense/kernel")
    with pytest.raises(errors.InvalidArgumentError, match="dense/kernel.*shape"):
        v1.train.Saver([wrong_shape]).restore(None, path)
    wrong_dtype = tf.Variable([1, 2], name="dense/kernel")
    with pytest.raises(errors.InvalidArgumentError, match="dense/kernel.*int32.*float32"):
        v1.train.Saver([wrong_dtype]).restore(None, path)
    other = tf.Variable([1.0, 2.0], name="dense/kernal")
    with pytest.raises(errors.NotFoundError, match="dense/kernal.*Close names.*dense/kernel"):
        v1.train.Saver([other]).restore(None, path)
    with pytest.raises(ValueError, match="not a valid checkpoint"):
        v1.train.Saver([x]).restore(None, str(tmp_path / "nope"))


def test_graph_restore_of_real_tf1_checkpoint():
    with tf.Graph().as_default():
        with v1.variable_scope("dense"):
            k = v1.get_variable("kernel", shape=[4, 3])
            b = v1.get_variable("bias", shape=[3])
        emb = v1.get_variable("embedding", shape=[10, 2], dtype=tf.float64)
        counts = v1.get_variable("counts", shape=[3], dtype=tf.int64)
        flags = v1.get_variable("flags", shape=[2], dtype=tf.bool)
        half = v1.get_variable("half", shape=[2], dtype=tf.float16)
        step = v1.train.get_or_create_global_step()
        saver = v1.train.Saver()
        with v1.Session() as sess:
            saver.restore(sess, TF1)
            for var in [k, b, emb, counts, flags, half, step]:
                want = EXPECTED_TF1[var.op.name.replace("/", "__")]
                got = sess.run(var)
                assert got.dtype == want.dtype
                np.testing.assert_array_equal(got, want)


def test_eager_restore_of_real_tf1_checkpoint_with_dict():
    adam = tf.Variable(np.zeros((4, 3), np.float32))
    v1.train.Saver({"dense/kernel/Adam": adam}).restore(None, TF1)
    np.testing.assert_array_equal(adam.numpy(), EXPECTED_TF1["dense__kernel__Adam"])


def test_saver_restores_object_based_checkpoint_by_name():
    kernel = tf.Variable(np.zeros((4, 3), np.float32), name="dense/kernel")
    v1.train.Saver([kernel]).restore(None, TF2)
    expected = tf.train.load_variable(
        TF2, "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE")
    np.testing.assert_array_equal(kernel.numpy(), expected)


def test_every_dtype_round_trips(tmp_path):
    values = {
        "f16": np.array([1.5], np.float16), "f32": np.array([[1.5]], np.float32),
        "f64": np.array(2.5), "i8": np.array([-1], np.int8), "i16": np.array([3], np.int16),
        "i32": np.array([4], np.int32), "i64": np.array([2 ** 40]),
        "u8": np.array([200], np.uint8), "u16": np.array([60000], np.uint16),
        "u32": np.array([2 ** 31], np.uint32), "u64": np.array([2 ** 63], np.uint64),
        "b": np.array([True, False]), "c64": np.array([1 + 2j], np.complex64),
        "c128": np.array([3 - 4j], np.complex128), "s": np.array([b"a", b"\x00bc"], object),
        "empty": np.zeros((0, 2), np.float32),
    }
    variables = {k: tf.Variable(v, name=k) for k, v in values.items()}
    variables["bf16"] = tf.Variable(tf.constant([1.5, 2.0], dtype=tf.bfloat16), name="bf16")
    path = v1.train.Saver(variables).save(None, str(tmp_path / "all"))
    reader = tf.train.load_checkpoint(path)
    for k, want in values.items():
        got = reader.get_tensor(k)
        if want.dtype == object:
            assert list(got) == list(want)
        else:
            assert got.dtype == want.dtype and got.shape == want.shape, k
            np.testing.assert_array_equal(got, want)
    assert reader.get_variable_to_dtype_map()["bf16"] == tf.bfloat16
    fresh = {k: tf.Variable(np.zeros_like(v) if v.dtype != object else
                            np.array([b"", b""], object), name=k) for k, v in values.items()}
    fresh["bf16"] = tf.Variable(tf.zeros([2], dtype=tf.bfloat16), name="bf16")
    v1.train.Saver(fresh).restore(None, path)
    for k, want in values.items():
        got = fresh[k].numpy()
        assert list(got) == list(want) if want.dtype == object else np.array_equal(got, want)
    assert torch.equal(fresh["bf16"]._leaf, variables["bf16"]._leaf)
    # plain PyTorch reads our checkpoints
    import safetensors.torch
    loaded = safetensors.torch.load_file(path + ".safetensors")
    assert torch.equal(loaded["f32"], torch.tensor([[1.5]]))


def test_checkpoint_readers_on_both_formats(tmp_path):
    for prefix in (TF1, TF2):
        reader = v1.train.NewCheckpointReader(prefix)
        shapes = reader.get_variable_to_shape_map()
        assert set(shapes) == set(name for name, _ in tf.train.list_variables(prefix))
        assert reader.has_tensor(sorted(shapes)[-1])
        assert not reader.has_tensor("nope")
        assert b"(" in reader.debug_string()
    assert tf.train.load_variable(TF1, "dense/bias:0").tolist() == \
        EXPECTED_TF1["dense__bias"].tolist()
    with pytest.raises(errors.NotFoundError, match="Key nope not found"):
        tf.train.load_checkpoint(TF1).get_tensor("nope")
    # a directory means its latest checkpoint
    assert tf.train.load_checkpoint(os.path.dirname(TF1)).has_tensor("global_step")


def test_checkpoint_state_functions(tmp_path):
    state = tf.train.get_checkpoint_state(os.path.dirname(TF1))
    assert state.model_checkpoint_path == TF1
    assert v1.train.checkpoint_exists(TF1)
    assert not v1.train.checkpoint_exists(str(tmp_path / "x"))
    proto = v1.train.generate_checkpoint_state_proto(
        str(tmp_path), str(tmp_path / "b"), [str(tmp_path / "a")])
    assert list(proto.all_model_checkpoint_paths) == [str(tmp_path / "a"), str(tmp_path / "b")]
    v1.train.update_checkpoint_state(str(tmp_path), "b", ["a", "b"])
    assert open(str(tmp_path / "checkpoint")).read().startswith('model_checkpoint_path: "b"')
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # no such files
    with open(str(tmp_path / "checkpoint"), "w") as f:
        f.write("this is { not a state")
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    assert tf.train.get_checkpoint_state(str(tmp_path / "none")) is None


def test_init_from_checkpoint_scopes_graph_and_eager(tmp_path):
    with tf.Graph().as_default():
        with v1.variable_scope("bert"):
            with v1.variable_scope("dense"):
                k = v1.get_variable("kernel", shape=[4, 3])
                b = v1.get_variable("bias", shape=[3])
        other = v1.get_variable("emb", shape=[10, 2], dtype=tf.float64)
        v1.train.init_from_checkpoint(TF1, {"dense/": "bert/dense/", "embedding": "emb"})
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(k), EXPECTED_TF1["dense__kernel"])
            np.testing.assert_array_equal(sess.run(b), EXPECTED_TF1["dense__bias"])
            np.testing.assert_array_equal(sess.run(other), EXPECTED_TF1["embedding"])
    with tf.Graph().as_default():
        with v1.variable_scope("dense"):
            k = v1.get_variable("kernel", shape=[4, 3])
        v1.get_variable("unrelated", shape=[1])
        with pytest.raises(ValueError, match="unrelated.*not found"):
            v1.train.init_from_checkpoint(TF1, {"/": "/"})
        with pytest.raises(ValueError, match="doesn't match"):
            v1.train.init_from_checkpoint(TF1, {"dense/bias": k})
    eager = tf.Variable(np.zeros(3, np.float32))
    v1.train.init_from_checkpoint(TF1, {"dense/bias": eager})
    np.testing.assert_array_equal(eager.numpy(), EXPECTED_TF1["dense__bias"])


# ---------------------------------------------------------------- crash safety


def _state(tmp_path):
    return tf.train.get_checkpoint_state(str(tmp_path)).model_checkpoint_path


@pytest.mark.parametrize("fail_at", [1, 2])
def test_crash_during_save_keeps_previous_checkpoint(tmp_path, monkeypatch, fail_at):
    """os.replace fails for the checkpoint file (1) or the state file (2)."""
    x = tf.Variable([1.0], name="x")
    saver = v1.train.Saver([x])
    first = saver.save(None, str(tmp_path / "m"), global_step=1)
    x.assign([2.0])
    calls = []
    real_replace = os.replace

    def flaky_replace(src, dst):
        calls.append(dst)
        if len(calls) == fail_at:
            raise OSError("disk full")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky_replace)
    with pytest.raises(OSError, match="disk full"):
        saver.save(None, str(tmp_path / "m"), global_step=2)
    monkeypatch.setattr(os, "replace", real_replace)
    assert _state(tmp_path) == first
    assert not [n for n in os.listdir(str(tmp_path)) if ".tmp-" in n]
    x.assign([0.0])
    v1.train.Saver([x]).restore(None, tf.train.latest_checkpoint(str(tmp_path)))
    np.testing.assert_array_equal(x.numpy(), [1.0])


def test_crash_during_write_or_fsync_leaves_nothing_partial(tmp_path, monkeypatch):
    x = tf.Variable([1.0], name="x")
    saver = v1.train.Saver([x])
    first = saver.save(None, str(tmp_path / "m"), global_step=1)

    def fail(*args, **kwargs):
        raise OSError("I/O error")

    for target, name in [(os, "fsync"), (checkpoint_format, "_fsync_dir")]:
        with monkeypatch.context() as m:
            m.setattr(target, name, fail)
            with pytest.raises(OSError):
                saver.save(None, str(tmp_path / "m"), global_step=2)
        assert _state(tmp_path) == first
    def write_half(f, tensors, metadata):
        f.write(b"partial")
        raise OSError("killed mid-write")

    with monkeypatch.context() as m:
        m.setattr(checkpoint_format, "write_safetensors", write_half)
        with pytest.raises(OSError):
            saver.save(None, str(tmp_path / "m"), global_step=3)
    assert not checkpoint_format.exists(str(tmp_path / "m-3"))
    assert not [n for n in os.listdir(str(tmp_path)) if ".tmp-" in n]
    assert _state(tmp_path) == first


def test_truncated_and_flipped_checkpoints_raise_data_loss(tmp_path):
    x = tf.Variable(np.arange(100, dtype=np.float32), name="x")
    path = v1.train.Saver([x]).save(None, str(tmp_path / "m"))
    filename = path + ".safetensors"
    raw = open(filename, "rb").read()
    with open(filename, "wb") as f:
        f.write(raw[:len(raw) - 10])
    with pytest.raises(errors.DataLossError, match="m.safetensors"):
        v1.train.Saver([x]).restore(None, path)
    flipped = bytearray(raw)
    flipped[-5] ^= 0x10
    with open(filename, "wb") as f:
        f.write(flipped)
    with pytest.raises(errors.DataLossError, match="Checksum does not match for tensor x"):
        v1.train.Saver([x]).restore(None, path)


def test_remove_checkpoint_and_mtimes(tmp_path):
    x = tf.Variable(1.0)
    path = v1.train.Saver([x]).save(None, str(tmp_path / "m"))
    assert len(v1.train.get_checkpoint_mtimes([path, TF1])) == 2
    v1.train.remove_checkpoint(path)
    assert not checkpoint_format.exists(path)
    shutil.copy(TF1 + ".index", str(tmp_path / "t.index"))
    assert v1.train.checkpoint_exists(str(tmp_path / "t"))


def test_saver_keeps_one_every_n_hours(tmp_path, monkeypatch):
    x = tf.Variable(1.0)
    saver = v1.train.Saver([x], max_to_keep=1, keep_checkpoint_every_n_hours=1.0)
    clock = [1000.0]
    monkeypatch.setattr(saver_lib, "time", types.SimpleNamespace(time=lambda: clock[0]))
    saver._next_checkpoint_time = clock[0] + 3600
    paths = []
    for i in range(3):
        clock[0] += 2000
        paths.append(saver.save(None, str(tmp_path / "m"), global_step=i))
    # m-0 (t=3000) is within the first hour (until t=4600): deleted; m-1 (t=5000) is kept
    assert not checkpoint_format.exists(paths[0]) and checkpoint_format.exists(paths[1])
    assert saver.last_checkpoints == [paths[2]]
    recovered = v1.train.Saver([x])
    recovered.recover_last_checkpoints(paths)
    assert recovered.last_checkpoints == [paths[1], paths[2]]
