"""What killed runs leave in checkpoint directories: temporary files of dead writers are
removed by the next save, CheckpointManager keeps max_to_keep on disk after a crash without
deleting what TF keeps, and a damaged `checkpoint` state file is ignored with a warning."""
import logging
import os
import signal
import subprocess
import sys
import time

import pytest

import tfcompat as tf
from tfcompat.compat import v1
from tfcompat.train import checkpoint as checkpoint_module
from tfcompat.train import checkpoint_format

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UUID = "0123456789abcdef0123456789abcdef"


def _temp_files(directory):
    return sorted(n for n in os.listdir(str(directory)) if ".tmp-" in n)


def _checkpoints(directory, name="ckpt"):
    """Numbers of the checkpoints `name-N` in `directory`."""
    return sorted(int(n[len(name) + 1:].split(".")[0]) for n in os.listdir(str(directory))
                  if n.startswith(name + "-") and n.endswith(checkpoint_format.SUFFIX))


def _finished_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


# ---------------------------------------------------------------- temporary files


def test_temporary_name_records_host_and_pid(tmp_path, monkeypatch):
    seen = []
    real_write = checkpoint_format.write_safetensors

    def spy(f, tensors, metadata):
        seen.extend(_temp_files(tmp_path))
        return real_write(f, tensors, metadata)

    monkeypatch.setattr(checkpoint_format, "write_safetensors", spy)
    v1.train.Saver([tf.Variable(1.0, name="v")]).save(None, str(tmp_path / "m"))
    assert seen == [".m.safetensors.tmp-%s-%d-%s" % (checkpoint_format.HOST, os.getpid(),
                                                     seen[0][-32:])]
    assert _temp_files(tmp_path) == []


def test_save_removes_the_temp_file_of_a_writer_killed_mid_save(tmp_path):
    script = (
        "import sys, time\n"
        "import tfcompat as tf\n"
        "from tfcompat.train import checkpoint_format\n"
        "def hang(f, tensors, metadata):\n"
        "    f.write(b'x' * 4096)\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(60)\n"
        "checkpoint_format.write_safetensors = hang\n"
        "tf.train.Checkpoint(v=tf.Variable(1.0)).save(sys.argv[1])\n")
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1")
    child = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "ckpt")],
                             stdout=subprocess.PIPE, env=env)
    try:
        assert child.stdout.readline() == b"writing\n"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    left = _temp_files(tmp_path)
    assert left == [".ckpt-1.safetensors.tmp-%s-%d-%s" % (checkpoint_format.HOST, child.pid,
                                                          left[0][-32:])]
    tf.train.Checkpoint(v=tf.Variable(2.0)).save(str(tmp_path / "ckpt"))
    assert _temp_files(tmp_path) == []
    assert _checkpoints(tmp_path) == [1]


def test_only_abandoned_temp_files_are_removed(tmp_path):
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    host = checkpoint_format.HOST
    hour_ago = time.time() - 2 * checkpoint_format.ABANDONED_TEMP_AGE_SECONDS
    names = {
        ".a.tmp-%s-%d-%s" % (host, _finished_pid(), UUID): "removed",  # dead writer
        ".b.tmp-%s-%d-%s" % (host, os.getpid(), UUID): "removed",  # this pid, not in flight
        ".c.tmp-%s" % UUID: "removed",  # old name without a pid, untouched for 2 hours
        ".d.tmp-other-host-7-%s" % UUID: "removed",  # another host, untouched for 2 hours
        ".e.tmp-%s-%d-%s" % (host, live.pid, UUID): "kept",  # a running writer
        ".f.tmp-%s" % UUID: "kept",  # old name, recent
        ".g.tmp-other-host-7-%s" % UUID: "kept",  # another host, recent
        ".h.tmp-not-ours": "kept", "ckpt-1.tmp-%s" % UUID: "kept", ".hidden": "kept",
    }
    old = {".c.tmp-%s" % UUID, ".d.tmp-other-host-7-%s" % UUID}
    try:
        for name in names:
            (tmp_path / name).write_bytes(b"partial")
            if name in old:
                os.utime(str(tmp_path / name), (hour_ago, hour_ago))
        v1.train.Saver([tf.Variable(1.0, name="v")]).save(None, str(tmp_path / "m"))
        kept = sorted(n for n, fate in names.items() if fate == "kept")
        assert sorted(set(os.listdir(str(tmp_path))) & set(names)) == kept
    finally:
        live.kill()
        live.wait()


def test_temp_file_being_written_by_this_process_is_kept(tmp_path, monkeypatch):
    """A second save into the directory while the first is mid-write (another thread)."""
    outer = []
    real_write = checkpoint_format.write_safetensors

    def write_other_checkpoint_meanwhile(f, tensors, metadata):
        if not outer:
            outer.extend(_temp_files(tmp_path))
            v1.train.Saver([tf.Variable(2.0, name="w")]).save(None, str(tmp_path / "other"))
            assert set(outer) <= set(_temp_files(tmp_path))
        return real_write(f, tensors, metadata)

    monkeypatch.setattr(checkpoint_format, "write_safetensors", write_other_checkpoint_meanwhile)
    v1.train.Saver([tf.Variable(1.0, name="v")]).save(None, str(tmp_path / "m"))
    assert len(outer) == 1 and _temp_files(tmp_path) == []
    assert checkpoint_format.exists(str(tmp_path / "m"))


# ---------------------------------------------------------------- CheckpointManager


def _manager(directory, max_to_keep=2, value=0.0, **kwargs):
    checkpoint = tf.train.Checkpoint(x=tf.Variable(value))
    return tf.train.CheckpointManager(checkpoint, str(directory), max_to_keep, **kwargs)


class _Killed(BaseException):
    """Stands for a kill -9 at the patched point."""


def _kill_at(monkeypatch, target, name):
    def killed(*args, **kwargs):
        raise _Killed()
    monkeypatch.setattr(target, name, killed)


def _age_state_file(directory, seconds=10.0):
    """Date the state file back, as the time a killed run took before its next write."""
    state = os.path.join(str(directory), "checkpoint")
    stamp = os.path.getmtime(state) - seconds
    os.utime(state, (stamp, stamp))


@pytest.mark.parametrize("restore", [True, False])
def test_checkpoint_written_but_not_recorded_is_adopted(tmp_path, monkeypatch, restore):
    manager = _manager(tmp_path)
    for _ in range(3):
        manager.save()
    _age_state_file(tmp_path)
    with monkeypatch.context() as m:
        _kill_at(m, checkpoint_module.saver, "update_checkpoint_state_internal")
        with pytest.raises(_Killed):
            manager.save()
    assert _checkpoints(tmp_path) == [2, 3, 4]
    again = _manager(tmp_path, value=-1.0)
    assert again.latest_checkpoint == str(tmp_path / "ckpt-3")
    assert again.checkpoints == [str(tmp_path / ("ckpt-%d" % i)) for i in (2, 3)]
    if restore:
        assert again.restore_or_initialize() == str(tmp_path / "ckpt-3")
    path = again.save()
    expected = [3, 4] if restore else [1, 4]
    assert path == str(tmp_path / ("ckpt-%d" % (4 if restore else 1)))
    assert _checkpoints(tmp_path) == expected
    assert sorted(os.listdir(str(tmp_path))) == sorted(
        ["checkpoint"] + ["ckpt-%d%s" % (i, checkpoint_format.SUFFIX) for i in expected])
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == again.checkpoints
    assert state.model_checkpoint_path == path


def test_crash_while_deleting_leaves_them_listed_for_the_next_manager(tmp_path, monkeypatch):
    manager = _manager(tmp_path)
    for _ in range(3):
        manager.save()
    with monkeypatch.context() as m:
        _kill_at(m, checkpoint_module.saver, "remove_checkpoint")
        with pytest.raises(_Killed):
            manager.save()
    assert _checkpoints(tmp_path) == [2, 3, 4]
    listed = [str(tmp_path / ("ckpt-%d" % i)) for i in (2, 3, 4)]
    assert list(tf.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths) == \
        listed
    again = _manager(tmp_path)
    assert again.checkpoints == listed
    again.save()
    assert _checkpoints(tmp_path) == [1, 4]
    assert again.checkpoints == [str(tmp_path / "ckpt-4"), str(tmp_path / "ckpt-1")]


def test_saver_crash_while_deleting_is_recovered_by_the_next_saver(tmp_path, monkeypatch):
    x = tf.Variable(1.0, name="x")
    saver = v1.train.Saver([x], max_to_keep=2)
    for step in range(1, 4):
        saver.save(None, str(tmp_path / "model"), global_step=step)
    with monkeypatch.context() as m:
        _kill_at(m, checkpoint_module.saver, "remove_checkpoint")
        with pytest.raises(_Killed):
            saver.save(None, str(tmp_path / "model"), global_step=4)
    assert _checkpoints(tmp_path, "model") == [2, 3, 4]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == str(tmp_path / "model-4")
    again = v1.train.Saver([x], max_to_keep=2)
    again.recover_last_checkpoints(list(state.all_model_checkpoint_paths))
    again.save(None, str(tmp_path / "model"), global_step=5)
    assert _checkpoints(tmp_path, "model") == [4, 5]
    assert list(tf.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths) == \
        [str(tmp_path / "model-4"), str(tmp_path / "model-5")]


def test_manager_keeps_checkpoints_it_does_not_manage(tmp_path):
    """As TF: checkpoints written by Checkpoint.save, or preserved by
    keep_checkpoint_every_n_hours, are never deleted by a later manager."""
    checkpoint = tf.train.Checkpoint(x=tf.Variable(0.0))
    for _ in range(3):
        checkpoint.save(str(tmp_path / "ckpt"))
    manager = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=1)
    assert manager.checkpoints == [] and manager.latest_checkpoint == str(tmp_path / "ckpt-3")
    manager.save()
    manager.save()
    assert _checkpoints(tmp_path) == [1, 2, 3, 5]

    directory = tmp_path / "preserved"
    keeper = _manager(directory, max_to_keep=1, keep_checkpoint_every_n_hours=1e-9)
    for _ in range(3):
        keeper.save()
    assert keeper.checkpoints == [str(directory / "ckpt-3")]
    again = _manager(directory, max_to_keep=1)
    assert again.checkpoints == [str(directory / "ckpt-3")]
    again.save(checkpoint_number=10)
    assert _checkpoints(directory) == [1, 2, 10]


def test_manager_rejects_non_positive_max_to_keep(tmp_path):
    with pytest.raises(ValueError, match="Expected a positive integer or `None` for "
                                         "`max_to_keep`, got 0."):
        _manager(tmp_path, max_to_keep=0)


def test_checkpoint_interval_skips_the_same_step_even_unchecked(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(step=step), str(tmp_path), None,
                                         step_counter=step, checkpoint_interval=5)
    assert manager.save() is not None
    assert manager.save(check_interval=False) is None
    step.assign(2)
    assert manager.save() is None
    assert manager.save(check_interval=False) is not None
    assert len(manager.checkpoints) == 2


# ---------------------------------------------------------------- damaged state file


@pytest.mark.parametrize("content", [b"\xff\xfe\x00model_checkpoint_path: \"ckpt-1\"\n",
                                     b"model_checkpoint_path: ckpt-1 {{\n"])
def test_damaged_state_file_is_ignored_with_a_warning(tmp_path, caplog, content):
    _manager(tmp_path).save()
    state_file = tmp_path / "checkpoint"
    state_file.write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        assert tf.train.get_checkpoint_state(str(tmp_path)) is None
        assert tf.train.latest_checkpoint(str(tmp_path)) is None
        manager = _manager(tmp_path)
    assert "%s: Checkpoint ignored" % state_file in caplog.text
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    assert manager.save() == str(tmp_path / "ckpt-1")
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-1")
    state_file.write_bytes(content)
    prefix = v1.train.Saver([tf.Variable(1.0, name="v")]).save(None, str(tmp_path / "m"))
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix
