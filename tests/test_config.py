"""tf.config (devices, threads, JIT, tf.function flag), TF1 config protos and tf.test."""
import os
import subprocess
import sys
import textwrap
import unittest

import numpy as np
import pytest
import torch
from tensorboard.compat.proto import config_pb2

import tfcompat as tf
from tfcompat import config
from tfcompat.framework import context
from tfcompat.framework.tensor import EagerTensor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N_GPUS = torch.cuda.device_count()


@pytest.fixture
def fresh_settings(monkeypatch):
    monkeypatch.setattr(config, "_settings", config._Settings())


@pytest.fixture
def one_fake_gpu(monkeypatch, fresh_settings):
    """A machine with one GPU, as far as device listing goes."""
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)


# ---------------------------------------------------------------- paths

@pytest.mark.parametrize("path, obj", [
    ("config.list_physical_devices", config.list_physical_devices),
    ("config.experimental.list_physical_devices", config.list_physical_devices),
    ("config.experimental.set_memory_growth", config.set_memory_growth),
    ("config.threading.set_intra_op_parallelism_threads",
     config.set_intra_op_parallelism_threads),
    ("config.optimizer.set_jit", config.set_optimizer_jit),
    ("config.experimental_run_functions_eagerly", config.run_functions_eagerly),
    ("test.is_gpu_available", tf.test.is_gpu_available),
    ("test.TestCase", tf.test.TestCase),
])
def test_paths_in_both_versions(path, obj):
    for root in (tf, tf.compat.v1, sys.modules["tfcompat.compat.v2"]):
        value = root
        for part in path.split("."):
            value = getattr(value, part)
        assert value is obj


def test_config_protos_are_tensorflows():
    assert tf.ConfigProto is config_pb2.ConfigProto
    assert tf.compat.v1.GPUOptions is config_pb2.GPUOptions
    for name in ("RunOptions", "RunMetadata", "GraphOptions", "OptimizerOptions"):
        assert getattr(tf.compat.v1, name) is getattr(config_pb2, name)
    proto = tf.ConfigProto(allow_soft_placement=True,
                           gpu_options=tf.GPUOptions(allow_growth=True))
    proto.gpu_options.per_process_gpu_memory_fraction = 0.5
    again = tf.ConfigProto.FromString(proto.SerializeToString())
    assert again.allow_soft_placement and again.gpu_options.allow_growth
    assert not hasattr(sys.modules["tfcompat.compat.v2"], "ConfigProto")


# ---------------------------------------------------------------- devices

def test_list_devices():
    physical = tf.config.list_physical_devices()
    assert physical[0] == tf.config.PhysicalDevice("/physical_device:CPU:0", "CPU")
    assert [d.name for d in tf.config.list_physical_devices("GPU")] == \
        ["/physical_device:GPU:%d" % i for i in range(N_GPUS)]
    assert tf.config.list_logical_devices("CPU") == [
        tf.config.LogicalDevice("/device:CPU:0", "CPU")]
    assert len(tf.config.list_logical_devices("GPU")) == N_GPUS
    assert tf.config.list_physical_devices("TPU") == []


def test_hiding_gpus_moves_default_placement_to_cpu(one_fake_gpu, monkeypatch):
    monkeypatch.setattr(context._process, "default_device", None)
    gpu = tf.config.list_physical_devices("GPU")[0]
    assert tf.config.get_visible_devices("GPU") == [gpu]
    tf.config.set_visible_devices([], "GPU")
    assert tf.config.get_visible_devices() == tf.config.list_physical_devices("CPU")
    assert tf.config.list_logical_devices("GPU") == []
    assert context.default_device() == torch.device("cpu")
    assert tf.test.gpu_device_name() == ""
    tf.config.set_visible_devices(gpu, "GPU")   # not yet used: may change again
    assert context.default_device() == torch.device("cuda", 0)


def test_visible_devices_fixed_once_tensors_are_placed(one_fake_gpu, monkeypatch):
    monkeypatch.setattr(context._process, "default_device", torch.device("cpu"))
    tf.config.set_visible_devices(tf.config.list_physical_devices())  # no change: allowed
    with pytest.raises(RuntimeError, match="cannot be modified after being initialized"):
        tf.config.set_visible_devices([], "GPU")


def test_set_visible_devices_rejects_unknown_devices(fresh_settings):
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.set_visible_devices([tf.config.PhysicalDevice("/physical_device:GPU:7", "GPU")])
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.set_visible_devices([cpu], "GPU")


def test_memory_growth(one_fake_gpu):
    gpu = tf.config.list_physical_devices("GPU")[0]
    assert tf.config.experimental.get_memory_growth(gpu) is None
    tf.config.experimental.set_memory_growth(gpu, True)
    assert tf.config.experimental.get_memory_growth(gpu) is True
    with pytest.raises(ValueError, match="non-GPU"):
        tf.config.experimental.set_memory_growth(tf.config.list_physical_devices("CPU")[0], True)
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.experimental.get_memory_growth(
            tf.config.PhysicalDevice("/physical_device:GPU:5", "GPU"))


def test_device_details_and_memory_info_on_cpu():
    assert tf.config.experimental.get_device_details(tf.config.list_physical_devices()[0]) == {}
    with pytest.raises(ValueError, match="only available for visible GPUs"):
        tf.config.experimental.get_memory_info("CPU:0")


@pytest.mark.skipif(N_GPUS == 0, reason="needs a GPU")
def test_device_details_and_memory_info_on_gpu():
    gpu = tf.config.list_physical_devices("GPU")[0]
    details = tf.config.experimental.get_device_details(gpu)
    assert details["compute_capability"] == torch.cuda.get_device_capability(0)
    torch.ones(1024, device="cuda")
    info = tf.config.experimental.get_memory_info("GPU:0")
    assert info["peak"] >= info["current"] > 0


def test_soft_device_placement(fresh_settings):
    assert tf.config.get_soft_device_placement() is True
    tf.config.set_soft_device_placement(False)
    assert tf.config.get_soft_device_placement() is False


def test_device_lib_list_local_devices():
    devices = config.list_local_devices()
    assert [d.device_type for d in devices] == ["CPU"] + ["GPU"] * N_GPUS
    assert devices[0].name == "/device:CPU:0" and devices[0].memory_limit > 0
    assert 'name: "/device:CPU:0"' in repr(devices[0])


# ---------------------------------------------------------------- functions, threads, JIT

def test_run_functions_eagerly(fresh_settings):
    assert tf.config.functions_run_eagerly() is False
    tf.config.run_functions_eagerly(True)
    assert tf.config.functions_run_eagerly() is True
    assert tf.config.experimental_functions_run_eagerly() is True
    tf.config.experimental_run_functions_eagerly(False)
    assert tf.config.functions_run_eagerly() is False


def test_intra_op_threads(fresh_settings):
    before = torch.get_num_threads()
    try:
        assert tf.config.threading.get_intra_op_parallelism_threads() == 0
        tf.config.threading.set_intra_op_parallelism_threads(1)
        assert torch.get_num_threads() == 1
        assert tf.config.threading.get_intra_op_parallelism_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_inter_op_threads_after_start(fresh_settings, monkeypatch):
    def refuse(n):
        raise RuntimeError("cannot set number of interop threads after parallel work has started")
    monkeypatch.setattr(torch, "set_num_interop_threads", refuse)
    assert tf.config.threading.get_inter_op_parallelism_threads() == 0
    tf.config.threading.set_inter_op_parallelism_threads(0)   # unchanged: nothing to do
    with pytest.raises(RuntimeError, match="Inter op parallelism cannot be modified"):
        tf.config.threading.set_inter_op_parallelism_threads(2)


def test_inter_op_threads_in_a_fresh_process():
    code = textwrap.dedent("""
        import torch
        import tfcompat as tf
        tf.config.threading.set_inter_op_parallelism_threads(2)
        print(torch.get_num_interop_threads(),
              tf.config.threading.get_inter_op_parallelism_threads())
        """)
    proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": REPO},
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["2", "2"]


def test_session_config_sets_intra_op_threads():
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        with tf.Graph().as_default():
            tf.compat.v1.Session(config=tf.compat.v1.ConfigProto(intra_op_parallelism_threads=0))
            assert torch.get_num_threads() == 2       # 0: the count stays the system's
            tf.compat.v1.Session(config=tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1))
            assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_session_config_inter_op_threads_after_start(monkeypatch):
    def refuse(n):
        raise RuntimeError("cannot set number of interop threads after parallel work has started")
    monkeypatch.setattr(torch, "set_num_interop_threads", refuse)
    config_proto = tf.compat.v1.ConfigProto(
        inter_op_parallelism_threads=torch.get_num_interop_threads() + 1)
    before = torch.get_num_interop_threads()
    with tf.Graph().as_default():      # the running pool stays, as TF keeps its global pool
        tf.compat.v1.Session(config=config_proto)
    assert torch.get_num_interop_threads() == before


def test_session_config_thread_counts_in_a_fresh_process():
    code = textwrap.dedent("""
        import torch
        import tfcompat as tf
        config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1,
                                          inter_op_parallelism_threads=3)
        with tf.compat.v1.Session(config=config) as sess:
            sess.run(tf.constant(1.0) + 1.0)
        print(torch.get_num_threads(), torch.get_num_interop_threads())
        """)
    env = {**os.environ, "PYTHONPATH": REPO}
    env.pop("OMP_NUM_THREADS", None)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", "3"]


def test_jit_and_optimizer_options(fresh_settings):
    assert tf.config.optimizer.get_jit() == ""
    tf.config.optimizer.set_jit(True)
    assert tf.config.optimizer.get_jit() == "autoclustering"
    tf.config.optimizer.set_jit("")
    assert tf.config.optimizer.get_jit() == ""
    with pytest.raises(ValueError):
        tf.config.optimizer.set_jit("xla")
    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    assert tf.config.optimizer.get_experimental_options() == {"constant_folding": False}


# ---------------------------------------------------------------- tf.test

def test_gpu_queries():
    assert tf.test.is_built_with_cuda() == (torch.version.cuda is not None)
    assert tf.test.is_built_with_gpu_support() == (
        torch.version.cuda is not None or torch.version.hip is not None)
    assert tf.test.is_gpu_available() == (N_GPUS > 0)
    assert tf.test.is_gpu_available(min_cuda_compute_capability=(99, 0)) is False
    assert tf.test.gpu_device_name() == ("/device:GPU:0" if N_GPUS else "")
    assert tf.test.is_built_with_xla() is False


def _run_case(method):
    """Run one TestCase method body; returns the unittest result."""
    case_class = type("Case", (tf.test.TestCase,), {"runTest": method})
    result = unittest.TestResult()
    case_class().run(result)
    return result


def _passes(method):
    result = _run_case(method)
    assert not result.errors and not result.failures, result.errors + result.failures


def _fails(method):
    result = _run_case(method)
    assert len(result.failures) == 1 and not result.errors, result.errors


def tensor(value):
    return EagerTensor(torch.tensor(value))


def test_assert_all_close():
    _passes(lambda self: self.assertAllClose(tensor([1.0, 2.0]), [1.0, 2.0 + 1e-7]))
    _passes(lambda self: self.assertAllClose({"a": [1.0, 2.0], "b": (tensor(3.0), [4.0])},
                                             {"a": np.array([1.0, 2.0]), "b": (3.0, [4.0])}))
    _passes(lambda self: self.assertAllClose([np.ones(2), np.ones(3)], [[1, 1], [1, 1, 1]]))
    _passes(lambda self: self.assertAllClose(np.float16(1.0), np.float16(1.0005)))
    _passes(lambda self: self.assertAllClose([np.nan], [np.nan]))
    _fails(lambda self: self.assertAllClose([1.0, 2.0], [1.0, 2.1]))
    _fails(lambda self: self.assertAllClose(np.ones((2, 1)), np.ones(2)))
    _fails(lambda self: self.assertAllClose({"a": 1.0}, {"b": 1.0}))
    _passes(lambda self: self.assertNotAllClose([1.0], [2.0]))
    _fails(lambda self: self.assertNotAllClose([1.0], [1.0]))


def test_assert_all_equal_and_ranges():
    _passes(lambda self: self.assertAllEqual(tensor([[1, 2]]), [[1, 2]]))
    _fails(lambda self: self.assertAllEqual([1, 2], [1, 3]))
    _fails(lambda self: self.assertAllEqual([1, 2], [[1, 2]]))
    _passes(lambda self: self.assertAllInRange(tensor([0.0, 0.5, 1.0]), 0.0, 1.0))
    _fails(lambda self: self.assertAllInRange([0.0, 0.5], 0.0, 1.0, open_lower_bound=True))
    _fails(lambda self: self.assertAllInRange([1.0], 0.0, 1.0, open_upper_bound=True))
    _fails(lambda self: self.assertAllInRange(np.array(["a"]), 0, 1))
    _passes(lambda self: self.assertAllGreater([2, 3], 1))
    _fails(lambda self: self.assertAllLess([2, 3], 3))
    _passes(lambda self: self.assertAllGreaterEqual([2, 3], 2))
    _passes(lambda self: self.assertAllLessEqual([2, 3], 3))
    _passes(lambda self: self.assertNear(1.0, 1.05, 0.1))
    _passes(lambda self: self.assertArrayNear([1.0, 2.0], [1.01, 2.0], 0.05))
    _passes(lambda self: self.assertDTypeEqual(tensor([1.0]), np.float32))
    _passes(lambda self: self.assertDTypeEqual(tensor([1]), tf.int64))


def test_assert_shape_equal():
    _passes(lambda self: self.assertShapeEqual(np.zeros((2, 3)), tensor(np.zeros((2, 3)))))
    _fails(lambda self: self.assertShapeEqual(np.zeros((3, 2)), tensor(np.zeros((2, 3)))))

    def wrong_type(self):
        with self.assertRaises(TypeError):
            self.assertShapeEqual([1, 2], tensor([1, 2]))
    _passes(wrong_type)


def test_evaluate_and_sessions():
    def body(self):
        value = self.evaluate({"x": tensor([1, 2]), "y": (tensor(3.0), "s")})
        assert isinstance(value["x"], np.ndarray) and value["x"].tolist() == [1, 2]
        assert value["y"] == (3.0, "s")
        with self.cached_session() as sess:
            assert sess.run([tensor(4)]) == [4]
            with self.assertRaises(RuntimeError):
                sess.run(tensor(4), feed_dict={"a": 1})
        with self.session() as sess:
            with self.assertRaises(AttributeError):
                sess.run(tensor(1))
        assert os.path.isdir(self.get_temp_dir())
    _passes(body)


def test_sessions_in_graph_mode_are_not_implemented(monkeypatch):
    monkeypatch.setattr(context.state, "building_graph", True)

    def body(self):
        with self.assertRaisesRegex(NotImplementedError, "needs tf.Session"):
            with self.session():
                pass
        with self.assertRaisesRegex(NotImplementedError, "needs tf.Session"):
            self.evaluate(1)
    _passes(body)


def test_setup_seeds_numpy():
    draws = []

    def body(self):
        draws.append(np.random.rand())
    _passes(body)
    _passes(body)
    assert draws[0] == draws[1]


def test_test_main_runs_the_scripts_tests(tmp_path):
    template = textwrap.dedent("""
        import tensorflow as tf

        class MyTest(tf.test.TestCase):
            def test_ok(self):
                self.assertAllEqual([1, 2], [1, 2])

            def test_close(self):
                self.assertAllClose([1.0], [VALUE])

        if __name__ == "__main__":
            tf.test.main()
        """)
    script = tmp_path / "my_test.py"
    env = {**os.environ, "PYTHONPATH": REPO}
    for value, code in (("1.0", 0), ("2.0", 1)):
        script.write_text(template.replace("VALUE", value))
        proc = subprocess.run([sys.executable, "-m", "tfcompat", str(script)], env=env,
                              cwd=str(tmp_path), capture_output=True, text=True, timeout=300)
        assert proc.returncode == code, proc.stderr
        assert "Ran 2 tests" in proc.stderr


def test_logical_cpus_as_tf_lists_them(monkeypatch):
    monkeypatch.setattr(config._settings, "logical", {})
    # as in a fresh process: no tensor placed yet (else TF's "cannot be modified" error)
    monkeypatch.setattr(config._settings, "placed_by_config", context.state.default_device)
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert tf.config.get_logical_device_configuration(cpu) is None
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(2)])
    assert [d.name for d in tf.config.list_logical_devices("CPU")] == ["/device:CPU:0",
                                                                      "/device:CPU:1"]
    assert len(tf.config.experimental.get_virtual_device_configuration(cpu)) == 2
    with pytest.raises(ValueError, match="memory limit on CPU"):
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.experimental.VirtualDeviceConfiguration(memory_limit=64)])
