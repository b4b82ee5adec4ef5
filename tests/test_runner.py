"""The runner (`python -m tfcompat`), its import hook and its choice of mode and flavour."""
import os
import platform
import subprocess
import sys
import textwrap

import pytest
import torch

import tfcompat
from tfcompat import _api, _import_hook, _scan, cli

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACCEPTANCE_SCRIPTS = os.path.join(os.path.dirname(REPO), "shared", "acceptance", "scripts")


def run_script(tmp_path, source, *args, mode=None, api=None, name="script.py",
               runner=("-m", "tfcompat")):
    """Write `source` to tmp_path/name and run it under the runner; returns the process."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    env = dict(os.environ)
    env.pop("TFCOMPAT_MODE", None)
    env.pop("TFCOMPAT_API", None)
    if mode:
        env["TFCOMPAT_MODE"] = mode
    if api:
        env["TFCOMPAT_API"] = api
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, *runner, str(path), *args], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def check(proc):
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# ---------------------------------------------------------------- the import hook

def test_import_forms_resolve_to_tfcompat(tmp_path):
    out = check(run_script(tmp_path, """
        import sys
        import tfcompat
        from tfcompat import _api
        probe = object()
        _api.tf_export("keras.layers.TfcompatProbe")(probe)
        _api.build_namespaces("tfcompat")

        import tensorflow as tf
        assert tf.add is tfcompat.add and tf.keras is tfcompat.keras and tf.compat is tfcompat.compat
        assert tf.__version__ == tf.version.VERSION == tf.compat.v1.__version__ != "0.1.0"
        assert tfcompat.__version__ == "0.1.0"
        import tensorflow.compat.v1 as tf1
        assert tf1 is sys.modules["tfcompat.compat.v1"]
        import tensorflow.compat.v2
        assert sys.modules["tensorflow.compat.v2"] is sys.modules["tfcompat.compat.v2"]
        from tensorflow.keras import layers
        assert layers.TfcompatProbe is probe
        import tensorflow.keras.layers as layers2
        assert layers2 is layers
        import tensorflow.contrib.eager as tfe
        assert tfe is sys.modules["tfcompat.contrib.eager"]
        assert "tfcompat.estimator" not in sys.modules     # lazy modules: imported when used
        import tensorflow.compat.v1.estimator as estimator
        assert estimator.RunConfig is tf.estimator.RunConfig
        from tensorflow.keras.datasets import mnist
        assert mnist.load_data is tf.keras.datasets.mnist.load_data
        from tensorflow.python.platform import test as tf_test
        assert tf_test.main is tf.test.main
        from tensorflow.config import experimental
        assert experimental.list_physical_devices is tf.config.list_physical_devices
        from tensorflow.python.ops.resource_variable_ops import ResourceVariable
        assert ResourceVariable is tf.Variable
        from tensorflow.python.ops import resource_variable_ops
        assert resource_variable_ops.ResourceVariable is tf.Variable
        from tensorflow.python.framework import ops
        assert ops.convert_to_tensor is tf.convert_to_tensor
        from tensorflow.python.framework.errors_impl import InvalidArgumentError
        assert InvalidArgumentError is tf.errors.InvalidArgumentError
        from tensorflow.python.client import device_lib
        assert device_lib.list_local_devices()[0].device_type == "CPU"
        from tensorflow.core.protobuf import config_pb2
        assert config_pb2.ConfigProto is tf.compat.v1.ConfigProto
        assert tf.__spec__.name == "tensorflow" and tf.compat.v1.__spec__ is None
        tf.model = "assigned"
        import tensorflow as again
        assert again.model == "assigned"
        print("imports ok")
        """))
    assert "imports ok" in out


def test_internal_name_missing_raises_unimplemented(tmp_path):
    out = check(run_script(tmp_path, """
        from tfcompat._api import UnimplementedSymbolError
        from tensorflow.python.ops import math_ops
        try:
            math_ops.no_such_op_anywhere
        except UnimplementedSymbolError as e:
            print("unimplemented:", e)
        try:
            from tensorflow.python.ops.math_ops import no_such_op_anywhere
        except ImportError as e:
            print("import error:", e)
        """))
    assert "unimplemented: tfcompat does not implement " \
           "tensorflow.python.ops.math_ops.no_such_op_anywhere" in out
    assert "import error: cannot import name 'no_such_op_anywhere'" in out


@pytest.mark.parametrize("statement, message", [
    ("import tensorflow.no_such_module", "No module named 'tensorflow.no_such_module': "
                                         "tfcompat does not provide it"),
    ("import tensorflow.lite", "No module named 'tensorflow.lite': "
                               "tfcompat does not implement this TensorFlow module yet"),
    ("from tensorflow.python.no_such_package import x",
     "No module named 'tensorflow.python.no_such_package': tfcompat does not provide"),
    ("from tensorflow.examples.tutorials.mnist import input_data",
     "No module named 'tensorflow.examples': tfcompat does not provide TensorFlow's example"),
    ("import tensorflow.core.framework.no_such_pb2",
     "No module named 'tensorflow.core.framework.no_such_pb2'"),
])
def test_unknown_module_raises_import_error(tmp_path, statement, message):
    proc = run_script(tmp_path, """
        try:
            %s
        except ImportError as e:
            print("ImportError:", e)
        """ % statement)
    assert "ImportError: " + message in check(proc)


def test_installed_tensorflow_is_not_used(tmp_path):
    fake = tmp_path / "tensorflow"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise RuntimeError('the real TensorFlow was imported')\n")
    out = check(run_script(tmp_path, """
        import tensorflow as tf
        import tfcompat
        print("hooked", tf.__name__, tf.Variable is tfcompat.Variable)
        """))
    assert "hooked tensorflow True" in out


def test_import_tfcompat_directly_needs_no_hook(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent("""
            import sys
            import tfcompat as tf
            from tfcompat import _api
            tf.model = 1
            print(tf.model, tf.executing_eagerly(), _api.flavor(), "tensorflow" in sys.modules)
            """)],
        cwd=str(tmp_path), capture_output=True, text=True, timeout=300,
        env={**{k: v for k, v in os.environ.items() if k != "TFCOMPAT_MODE"},
             "PYTHONPATH": REPO})
    assert check(proc).split() == ["1", "True", "v1", "False"]
    assert "tfcompat:" not in proc.stderr


def test_hook_leaves_other_imports_alone():
    finder = _import_hook.TensorFlowFinder()
    assert finder.find_spec("numpy") is None
    assert finder.find_spec("tensorflowish") is None


def test_internal_lookup_prefers_the_module_path():
    probe_keras, probe_layers = object(), object()
    _api.tf_export("keras.layers.TfcompatProbeDense")(probe_keras)
    _api.tf_export("layers.TfcompatProbeDense")(probe_layers)
    try:
        keras_layers = _import_hook._InternalModule("tensorflow.python.keras.layers")
        assert keras_layers.TfcompatProbeDense is probe_keras
        tf_layers = _import_hook._InternalModule("tensorflow.python.layers.core")
        assert tf_layers.TfcompatProbeDense is probe_layers
    finally:
        del _api._COMMON["keras.layers.TfcompatProbeDense"], \
            _api._COMMON["layers.TfcompatProbeDense"]


# ---------------------------------------------------------------- running a script

def test_script_runs_as_main_with_its_argv_and_folder(tmp_path):
    (tmp_path / "helper_mod.py").write_text("VALUE = 42\n")
    out = check(run_script(tmp_path, """
        import os, sys
        import helper_mod
        print("name", __name__)
        print("argv", sys.argv[1:], os.path.basename(sys.argv[0]))
        print("path0", sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
        print("helper", helper_mod.VALUE)
        """, "--flag", "value"))
    assert "name __main__" in out
    assert "argv ['--flag', 'value'] script.py" in out
    assert "path0 True" in out
    assert "helper 42" in out


def test_run_subcommand(tmp_path):
    out = check(run_script(tmp_path, "import sys; print('args', sys.argv[1:])\n", "x",
                           runner=("-m", "tfcompat", "run")))
    assert "args ['x']" in out


@pytest.mark.parametrize("source, code", [
    ("import sys; sys.exit(3)", 3),
    ("import sys; sys.exit(0)", 0),
    ("raise SystemExit('bye')", 1),
])
def test_exit_codes_pass_through(tmp_path, source, code):
    assert run_script(tmp_path, source + "\n").returncode == code


def test_exception_gives_traceback_and_exit_1(tmp_path):
    proc = run_script(tmp_path, """
        def fail():
            raise ValueError("boom")
        fail()
        """)
    assert proc.returncode == 1
    assert 'script.py", line 3, in fail' in proc.stderr
    assert proc.stderr.rstrip().endswith("ValueError: boom")


def test_announces_mode_once(tmp_path):
    proc = run_script(tmp_path, "import tensorflow as tf\nprint(tf.executing_eagerly())\n")
    assert check(proc).strip() == "True"
    assert proc.stderr.count("tfcompat: running in eager mode with the TF2 API (TF2-style "
                             "script; no TF1-only names)") == 1


def test_graph_script_runs_in_graph_mode(tmp_path):
    proc = run_script(tmp_path, """
        import tensorflow as tf
        print("eager", tf.executing_eagerly())
        if False:
            tf.Session()
        """)
    assert "eager False" in check(proc)
    assert "running in graph mode with the TF1 API (the script builds TF1 graphs (tf.Session); " \
        "TF1-only usage: tf.Session)" in proc.stderr


@pytest.mark.parametrize("mode, eager", [("graph", False), ("eager", True)])
def test_tfcompat_mode_wins(tmp_path, mode, eager):
    proc = run_script(tmp_path, """
        import tensorflow as tf
        tf.enable_eager_execution()
        print("eager", tf.executing_eagerly())
        tf.compat.v1.disable_eager_execution()
        print("eager", tf.executing_eagerly())
        """, mode=mode)
    assert check(proc).split() == ["eager", str(eager)] * 2
    assert "running in %s mode with the TF1 API (TFCOMPAT_MODE=%s; " % (mode, mode) in proc.stderr


def test_v2_flavour_for_tf2_scripts(tmp_path):
    out = check(run_script(tmp_path, """
        import tensorflow as tf
        from tfcompat import _api
        print("flavor", _api.flavor())
        """))
    assert "flavor v2" in out


def test_version_and_usage(tmp_path):
    env = {**os.environ, "PYTHONPATH": REPO}
    proc = subprocess.run([sys.executable, "-m", "tfcompat", "--version"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0
    assert proc.stdout.startswith("tfcompat %s (torch " % tfcompat.__version__)
    proc = subprocess.run([sys.executable, "-m", "tfcompat"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "usage: tfcompat" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "tfcompat", str(tmp_path / "missing.py")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "can't open file" in proc.stderr


# ---------------------------------------------------------------- choosing mode and flavour

@pytest.mark.parametrize("source, mode, flavor, reason", [
    ("import tensorflow as tf\ntf.enable_eager_execution()\nwith tf.Session(): pass\n",
     "eager", "v1", "the script calls tf.enable_eager_execution()"),
    ("import tensorflow.compat.v1 as tf\ntf.enable_v2_behavior()\n",
     "eager", "v2", "the script calls tf.enable_v2_behavior()"),
    ("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n",
     "graph", "v1", "the script builds TF1 graphs (tf.placeholder)"),
    ("import tensorflow as tf\ng = tf.Graph()\nsess = tf.Session(graph=g)\n",
     "graph", "v1", "the script builds TF1 graphs (tf.Graph)"),
    # TF2 scripts running TF1 code: the top-level names stay TF2's
    ("import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n",
     "graph", "v2", "the script builds TF1 graphs (tf.disable_eager_execution())"),
    ("import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n",
     "graph", "v2", "tf.disable_v2_behavior()"),
    # TF 1.x scripts calling the same switches at the top level
    ("import tensorflow as tf\ntf.disable_v2_behavior()\n", "graph", "v1", "tf.disable_v2_behavior()"),
    ("import tensorflow as tf\ntf.enable_v2_behavior()\n", "eager", "v1", "tf.enable_v2_behavior()"),
    ("import tensorflow as tf\nsaver = tf.train.Saver()\n",
     "graph", "v1", "tf.train.Saver"),
    ("import tensorflow as tf\nwith tf.train.MonitoredTrainingSession() as s: pass\n",
     "graph", "v1", "tf.train.MonitoredTrainingSession"),
    # Estimators make their own graphs: TF2 scripts using them stay eager
    ("import tensorflow as tf\nest = tf.estimator.Estimator(model_fn=None)\n",
     "eager", "v2", "TF2-style script"),
    ("import tensorflow as tf\nest = tf.estimator.Estimator(model_fn=None)\ntf.logging.info('')\n",
     "graph", "v1", "tf.estimator"),
    ("from tensorflow.compat.v1 import Session\nSession()\n",
     "graph", "v2", "tf.Session"),
    ("import tensorflow as tf\nx = tf.Variable(1.0)\nwith tf.GradientTape() as t: pass\n",
     "eager", "v2", "TF2-style script"),
    # compat.v1 without a TF1 switch: TF2's eager runtime, explicit graphs run as in TF1
    ("import tensorflow.compat.v1 as tf\nx = tf.constant(1.0)\n",
     "eager", "v2", "TF2-style script"),
    ("import tensorflow.compat.v1 as tf\nprint(tf.constant(1.0).numpy())\ng = tf.Graph()\n"
     "with g.as_default():\n    x = tf.placeholder(tf.float32)\n"
     "with tf.Session(graph=g) as s:\n    pass\n", "eager", "v2", "TF2-style script"),
    ("import tensorflow as tf\ng = tf.Graph()\nwith g.as_default():\n"
     "    x = tf.placeholder(tf.float32)\n", "graph", "v1", "tf.Graph"),
    ("import tensorflow.compat.v1 as tf\nprint(tf.constant(1.0).numpy())\n"
     "with tf.Session() as sess:\n    x = tf.placeholder(tf.float32)\n"
     "    sess.run(x * 2, {x: 1.0})\n", "eager", "v2", "TF2-style script"),
    ("import tensorflow as tf\nopt = tf.train.AdamOptimizer(0.1)\n",
     "eager", "v1", "TF1 eager-compatible script"),
    ("import tensorflow as tf\ntfe = tf.contrib.eager\n", "eager", "v1", "TF1 eager"),
    ("import tensorflow.contrib.eager as tfe\n", "eager", "v1", "TF1 eager"),
    ("import tensorflow.compat.v2 as tf\nx = tf.constant(1.0)\n", "eager", "v2", "TF2-style"),
    # comments, strings and other modules' Sessions are not TF graph code
    ("import tensorflow as tf\n# tf.Session() was used here\ns = 'tf.placeholder'\n"
     "import other\nother.Session()\n", "eager", "v2", "TF2-style script"),
    ("x = (", "eager", "v2", "TF2-style script"),
])
def test_detect(source, mode, flavor, reason):
    choice = _scan.detect(source)
    assert (choice.mode, choice.flavor) == (mode, flavor)
    assert reason in choice.reason


@pytest.mark.parametrize("source, flavor, why", [
    # tf.summary is a namespace of both versions: it says nothing
    ("import tensorflow as tf\ntf.summary.scalar('loss', 1.0, step=1)\n", "v2", "no TF1-only"),
    ("import tensorflow as tf\nw = tf.summary.create_file_writer('logs')\n", "v2",
     "TF2-only usage: tf.summary.create_file_writer"),
    ("import tensorflow as tf\nw = tf.summary.FileWriter('logs')\n", "v1",
     "TF1-only usage: tf.summary.FileWriter"),
    ("import tensorflow as tf\ntf.random.set_seed(1)\nif tf.__version__[0] == '1':\n"
     "    tf.Session()\nelse:\n    tf.summary.create_file_writer('l')\n", "v2",
     "TF2-only usage outweighs TF1-only usage: tf.random.set_seed, "
     "tf.summary.create_file_writer; but also tf.Session"),
    ("import tensorflow as tf\nfrom tensorflow.compat.v1 import placeholder\n", "v2",
     "imports tensorflow.compat.v1 and calls no TF1 switch: TF2's runtime"),
    ("import tensorflow.compat.v2 as tf\n", "v2", "TF2-only usage: tensorflow.compat.v2"),
])
def test_detect_flavor(source, flavor, why):
    choice = _scan.detect(source)
    assert choice.flavor == flavor
    assert why in choice.flavor_reason


_DROPOUT_SCALE = """
    import numpy as np
    import tensorflow as tf
    {setup}
    x = tf.ones([4000])
    y = tf.nn.dropout(x, 0.2)
    if not tf.executing_eagerly():
        y = tf.compat.v1.Session().run(y)
    kept = np.asarray(y)[np.asarray(y) > 0]
    print("scale %.2f kept %.1f %s" % (kept.max(), kept.size / 4000.0, tf.__version__))
"""


@pytest.mark.parametrize("setup, api, expected", [
    # TF2: the second argument is the rate (kept values scaled by 1 / 0.8)
    ("tf.summary.scalar('x', 1.0, step=0)", None, "scale 1.25 kept 0.8 2.15.1"),
    ("tf.compat.v1.disable_v2_behavior()", None, "scale 1.25 kept 0.8 2.15.1"),
    ("tf.compat.v1.disable_eager_execution()", None, "scale 1.25 kept 0.8 2.15.1"),
    # TF1: it is keep_prob (kept values scaled by 1 / 0.2)
    ("tf.enable_eager_execution()", None, "scale 5.00 kept 0.2 1.15.5"),
    ("tf.enable_eager_execution(); tf.enable_v2_behavior()", None, "scale 5.00 kept 0.2 1.15.5"),
    ("", "1", "scale 5.00 kept 0.2 1.15.5"),
])
def test_dropout_follows_the_tf_version_of_the_script(tmp_path, setup, api, expected):
    proc = run_script(tmp_path, _DROPOUT_SCALE.format(setup=setup), api=api)
    assert check(proc).strip() == expected, proc.stderr
    assert "with the TF%s API" % expected[-6] in proc.stderr


def test_tfcompat_api_forces_the_version(tmp_path):
    source = """
        import tensorflow as tf
        import tfcompat
        print(tf.__version__, tf.version.VERSION, tf.version.GIT_VERSION, tfcompat.__version__,
              tf.keras.__version__)
        """
    assert check(run_script(tmp_path, source, api="1")).split() == \
        ["1.15.5", "1.15.5", "v1.15.5", tfcompat.__version__, "2.2.4-tf"]
    proc = run_script(tmp_path, source + "tf.Session\n", api="2")
    assert check(proc).split() == ["2.15.1", "2.15.1", "v2.15.1", tfcompat.__version__, "2.15.0"]
    assert "with the TF2 API (the script builds TF1 graphs (tf.Session); TFCOMPAT_API=2)" \
        in proc.stderr
    proc = run_script(tmp_path, source, api="3")
    assert proc.returncode != 0 and "TFCOMPAT_API must be 1 or 2" in proc.stderr


def test_detect_follows_local_imports(tmp_path):
    (tmp_path / "model.py").write_text("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n")
    (tmp_path / "unused.py").write_text("import tensorflow as tf\ntf.enable_eager_execution()\n")
    main = tmp_path / "main.py"
    main.write_text("import tensorflow as tf\nfrom model import x\n")
    choice = _scan.detect(_scan.script_sources(str(main)))
    assert choice.mode == "graph"
    assert choice.reason == "the script builds TF1 graphs (tf.placeholder) (in model.py)"
    assert (choice.flavor, choice.flavor_reason) == ("v1", "TF1-only usage: tf.placeholder (in model.py)")


# Scripts of the acceptance suite that TensorFlow ran as graphs by default; the rest are eager.
GRAPH_BY_DEFAULT = {"a03_graph_collections.py", "a17_estimator.py", "a21_tf1_graph_slides.py"}
TF2_STYLE = {"a22", "a23", "a24", "a25", "a26", "a27"}


def _acceptance_defaults():
    if not os.path.isdir(ACCEPTANCE_SCRIPTS):
        return []
    found = []
    for name in sorted(os.listdir(ACCEPTANCE_SCRIPTS)):
        path = os.path.join(ACCEPTANCE_SCRIPTS, name)
        entry = os.path.join(path, "main.py") if os.path.isdir(path) else path
        if not entry.endswith(".py") or not os.path.exists(entry):
            continue
        with open(entry) as f:
            modes = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("# modes:")), [])
        if "default" in modes:
            found.append((name, entry))
    return found


@pytest.mark.skipif(not os.path.isdir(ACCEPTANCE_SCRIPTS), reason="no ../shared/acceptance")
@pytest.mark.parametrize("name, entry", _acceptance_defaults())
def test_detect_acceptance_defaults(name, entry):
    choice = _scan.detect(_scan.script_sources(entry))
    assert choice.mode == ("graph" if name in GRAPH_BY_DEFAULT else "eager")
    assert choice.flavor == ("v2" if name[:3] in TF2_STYLE else "v1")


# ---------------------------------------------------------------- process setup

_REALLOCATION_FAULTS = """
    import resource
    import torch

    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

    for _ in range(3):
        a, b = torch.ones(3 << 20), torch.ones(1 << 20)
        del a, b
    before = faults()
    for _ in range(10):
        a, b = torch.ones(3 << 20), torch.ones(1 << 20)
        del a, b
    print(faults() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="glibc only")
def test_runner_keeps_freed_tensor_memory_in_the_process(tmp_path, monkeypatch):
    """Under the runner, re-allocating a step's 16 MB of buffers faults no pages in (glibc
    would otherwise return them to the OS: thousands of page faults per step); malloc
    settings the user put in the environment are left alone."""
    assert int(check(run_script(tmp_path, _REALLOCATION_FAULTS)).strip()) < 200
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "131072")
    assert cli.tune_allocator() is False
    assert int(check(run_script(tmp_path, _REALLOCATION_FAULTS)).strip()) > 4000


@pytest.mark.parametrize("cores, busy, threads", [
    (2, 1.3, 1),      # one core busy elsewhere: one thread
    (2, 0.2, 2),      # idle: torch's default
    (16, 5.6, 10),
    (2, 7.0, 1),      # overloaded: never fewer than one
])
def test_runner_gives_torch_the_free_cores(monkeypatch, cores, busy, threads):
    before = torch.get_num_threads()
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    monkeypatch.setattr(cli, "busy_cores", lambda: busy)
    try:
        torch.set_num_threads(cores)
        assert cli.tune_threads() == threads
        assert torch.get_num_threads() == threads
    finally:
        torch.set_num_threads(before)


def test_busy_cores_count_the_threads_running_now_not_the_load_average(tmp_path, monkeypatch):
    """A finished job still weighs on the 1-minute load average for minutes; the runnable
    count in /proc/loadavg (this reader included) says what runs now."""
    loadavg = tmp_path / "loadavg"
    loadavg.write_text("1.95 1.40 0.90 2/311 4242\n")     # one other runnable thread
    monkeypatch.setattr(cli, "_LOADAVG", str(loadavg))
    monkeypatch.setattr(os, "getloadavg", lambda: (1.95, 1.40, 0.90))
    assert cli.busy_cores() == 1
    loadavg.write_text("1.95 1.40 0.90 1/311 4242\n")     # only the reader: idle now
    assert cli.busy_cores() == 0
    monkeypatch.setattr(cli, "_LOADAVG", str(tmp_path / "missing"))
    assert cli.busy_cores() == 1.95                         # no /proc: the average


def test_runner_threads_chosen_by_the_user_win(tmp_path, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    before = torch.get_num_threads()
    assert cli.tune_threads() is None
    assert torch.get_num_threads() == before
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    out = check(run_script(tmp_path, """
        import torch
        import tensorflow as tf
        tf.compat.v1.Session(config=tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2))
        print(torch.get_num_threads())
        tf.config.threading.set_intra_op_parallelism_threads(1)
        print(torch.get_num_threads())
        """))
    assert out.split() == ["2", "1"]


def test_script_folder_cannot_shadow_tfcompat_dependencies(tmp_path):
    for name in ("tensorboard", "safetensors", "PIL"):
        (tmp_path / (name + ".py")).write_text("raise ImportError('the local %s.py')\n" % name)
    out = check(run_script(tmp_path, """
        import os
        import tensorflow as tf
        writer = tf.summary.create_file_writer("logs")
        with writer.as_default():
            tf.summary.scalar("loss", 1.0, step=1)
        writer.flush()
        ckpt = tf.train.Checkpoint(v=tf.Variable(2.0))
        print("saved", os.path.exists(ckpt.save("ckpt/c") + ".safetensors"), os.listdir("logs") != [])
        """))
    assert out.split() == ["saved", "True", "True"]


def test_script_errors_show_the_script_frames_only(tmp_path):
    proc = run_script(tmp_path, "import tensorflow as tf\nx = (\n")
    assert proc.returncode == 1
    assert "cli.py" not in proc.stderr and "runpy" not in proc.stderr
    assert 'File "%s", line 2' % (tmp_path / "script.py") in proc.stderr
    assert proc.stderr.rstrip().endswith("SyntaxError: '(' was never closed")
    proc = run_script(tmp_path, "import tensorflow as tf\n\ndef f():\n    raise ValueError('bad')\n"
                                "f()\n")
    assert proc.returncode == 1
    assert proc.stderr.split("Traceback (most recent call last):\n")[1].splitlines()[0] == \
        '  File "%s", line 5, in <module>' % (tmp_path / "script.py")


@pytest.mark.parametrize("mode, source, construct", [
    ("eager", "import tensorflow as tf\nx = tf.placeholder(tf.float32, [2])\n",
     "tf.placeholder (script.py:2), written for graph mode"),
    ("graph", "import tensorflow as tf\ntf.enable_eager_execution()\n"
              "print('%.1f' % tf.constant(1.0))\n",
     "tf.enable_eager_execution() (script.py:2), written for eager mode"),
])
def test_forced_mode_names_the_constructs_that_need_the_other(tmp_path, mode, source, construct):
    proc = run_script(tmp_path, source, mode=mode)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert lines[1].startswith("tfcompat: TFCOMPAT_MODE=%s, but the script uses " % mode)
    assert construct in lines[1] and lines[1].endswith("Unset TFCOMPAT_MODE to run it as written.")
    assert lines[-1] == "tfcompat: the error above may come from TFCOMPAT_MODE=%s (see the " \
                        "start of the output)." % mode


def test_forced_mode_that_fits_says_nothing_more(tmp_path):
    proc = run_script(tmp_path, """
        import tensorflow as tf
        tf.enable_eager_execution()
        print(tf.executing_eagerly())
        """, mode="eager")
    assert check(proc).split() == ["True"]
    assert len(proc.stderr.splitlines()) == 1


def test_runs_a_module_like_python_m(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tool.py").write_text(
        "import sys\nimport tensorflow as tf\nx = tf.placeholder(tf.float32)\n"
        "print(__name__, sys.argv[1:], tf.executing_eagerly())\n")
    env = {**os.environ, "PYTHONPATH": REPO}
    env.pop("TFCOMPAT_MODE", None)
    proc = subprocess.run([sys.executable, "-m", "tfcompat", "-m", "pkg.tool", "a", "--b"],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300)
    assert check(proc).split() == ["__main__", "['a',", "'--b']", "False"]
    assert "running in graph mode" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "tfcompat", "-m", "pkg.missing"],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "No module named pkg.missing" in proc.stderr


def test_mode_line_comes_before_torch_is_imported(tmp_path):
    proc = run_script(tmp_path, "import tensorflow as tf\nprint(tf.executing_eagerly())\n",
                      runner=("-X", "importtime", "-m", "tfcompat"))
    lines = check(proc) and proc.stderr.splitlines()
    announced = next(i for i, line in enumerate(lines) if line.startswith("tfcompat: running"))
    first_torch = next(i for i, line in enumerate(lines)
                       if line.startswith("import time:") and line.split("|")[-1].strip() == "torch")
    assert announced < first_torch
    assert sum(line.startswith("tfcompat: running") for line in lines) == 1


def test_import_keras_gives_tf_keras(tmp_path):
    """TF 2.15 installs Keras 2.15 as `keras`; TF1-era scripts used standalone Keras 2."""
    out = check(run_script(tmp_path, """
        import numpy as np
        import keras
        from keras.models import Sequential
        from keras.layers import Dense
        from keras import backend as K
        import tensorflow as tf
        model = Sequential([Dense(2, input_shape=(3,))])
        model.compile("sgd", "mse")
        model.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
        print(keras.layers.Dense is tf.keras.layers.Dense, Dense is tf.keras.layers.Dense,
              K.floatx())
        """))
    assert out.split() == ["True", "True", "float32"]
