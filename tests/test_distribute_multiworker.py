"""tf.distribute across processes: 2 CPU workers (gloo) started by `tfcompat run
--nproc-per-node 2` or by TF_CONFIG end with identical weights, equal to one process
training on the global batch; a failing worker ends the job with a message naming it."""
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "distributed_scripts")
REPO = os.path.dirname(HERE)
TIMEOUT = 240


def _env(**extra):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=REPO)
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "TF_CONFIG", "MASTER_ADDR",
                 "MASTER_PORT", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"):
        env.pop(name, None)
    env.update(extra)
    return env


def _run(args, env=None, check=True):
    result = subprocess.run([sys.executable, "-m", "tfcompat"] + args, cwd=str(REPO),
                            env=env or _env(), capture_output=True, text=True,
                            timeout=TIMEOUT)
    if check and result.returncode != 0:
        raise AssertionError("exit %d\n%s\n%s" % (result.returncode, result.stdout,
                                                  result.stderr[-4000:]))
    return result


def _results(prefix, ranks):
    return [(np.load(prefix % r + ".npy"), json.load(open(prefix % r + ".json")))
            for r in ranks]


def _train(script, tmp_path, launch):
    """(per-worker results of a 2-worker run, the single-process run's result)."""
    script = os.path.join(SCRIPTS, script)
    workers = str(tmp_path / "worker%s")
    launch(script, workers)
    single = str(tmp_path / "single%s")
    _run([script, single])
    return _results(workers, [0, 1]), _results(single, [0])[0]


def _launcher(script, out):
    _run(["run", "--nproc-per-node", "2", script, out])


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tf_config_job(script, out):
    """Two workers started by hand, each told its place by TF_CONFIG, as TF users do."""
    cluster = {"worker": ["127.0.0.1:%d" % _free_port(), "127.0.0.1:%d" % _free_port()]}
    processes = [subprocess.Popen(
        [sys.executable, "-m", "tfcompat", script, out], cwd=str(REPO),
        env=_env(TF_CONFIG=json.dumps({"cluster": cluster,
                                       "task": {"type": "worker", "index": i}})),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]
    for p in processes:
        stdout, stderr = p.communicate(timeout=TIMEOUT)
        assert p.returncode == 0, stderr[-4000:]


def _check_same_training(workers, single):
    (w0, r0), (w1, r1) = workers
    w, r = single
    assert r0["replicas"] == r1["replicas"] == 2 and r["replicas"] == 1
    np.testing.assert_array_equal(w0, w1)
    np.testing.assert_allclose(w0, w, atol=1e-5)


@pytest.mark.parametrize("launch", [_launcher, _tf_config_job], ids=["launcher", "TF_CONFIG"])
def test_custom_loop_trains_as_one_process_on_the_global_batch(tmp_path, launch):
    workers, single = _train("custom_loop_mwms.py", tmp_path, launch)
    _check_same_training(workers, single)
    np.testing.assert_allclose(workers[0][1]["losses"], single[1]["losses"], rtol=1e-5)
    assert workers[0][1]["gather_gradient"] == [[2.0, 2.0]]
    assert workers[1][1]["gather_gradient"] == [[4.0, 4.0], [6.0, 6.0]]
    assert single[1]["gather_gradient"] == [[1.0, 1.0]]


def test_keras_fit_trains_as_one_process_on_the_global_batch(tmp_path):
    workers, single = _train("keras_fit_mwms.py", tmp_path, _launcher)
    _check_same_training(workers, single)
    for result in (workers[0][1], workers[1][1]):   # metrics summed over the replicas
        for name, values in single[1]["history"].items():
            np.testing.assert_allclose(result["history"][name], values, rtol=1e-5)
        np.testing.assert_allclose(result["evaluate"], single[1]["evaluate"], rtol=1e-5)


def test_a_failing_worker_ends_the_job_naming_it():
    result = _run(["run", "--nproc-per-node", "2", os.path.join(SCRIPTS, "worker_fails.py")],
                  check=False)
    assert result.returncode == 1
    assert "[rank1]: RuntimeError: worker 1 fails on purpose" in result.stderr
    assert "UnavailableError: worker 0 of 2: a collective with the other workers failed" in \
        result.stderr


def test_a_restarted_job_resumes_from_the_chiefs_backup(tmp_path):
    script = os.path.join(SCRIPTS, "keras_resume_mwms.py")
    backup = str(tmp_path / "backup")
    first, second = str(tmp_path / "first%s"), str(tmp_path / "second%s")
    _run(["run", "--nproc-per-node", "2", script, first, backup, "2"])
    assert sorted(os.listdir(backup)) == ["chief"]          # the chief's backup only
    _run(["run", "--nproc-per-node", "2", script, second, backup, "4"])
    whole = str(tmp_path / "whole%s")
    _run([script, whole, str(tmp_path / "whole_backup"), "4"])
    (w0, r0), (w1, r1) = _results(second, [0, 1])
    assert r0["epochs_run"] == r1["epochs_run"] == 2       # epochs 3 and 4 only
    np.testing.assert_array_equal(w0, w1)
    np.testing.assert_allclose(w0, _results(whole, [0])[0][0], atol=1e-5)


def test_a_worker_ends_with_its_status_and_its_files_written(tmp_path):
    out = str(tmp_path / "unclosed%s.txt")
    result = _run(["run", "--nproc-per-node", "2",
                   os.path.join(SCRIPTS, "worker_exit_status.py"), out], check=False)
    assert result.returncode == 1 and "(exitcode: 3) local_rank: 0" in result.stderr
    for rank in (0, 1):
        with open(out % rank) as f:
            assert f.read() == "written without close\n"
