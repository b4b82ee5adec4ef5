"""`tfcompat run --explain-compile`: the per-signature compile report."""
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import compile_policy


def test_report_says_why_signatures_were_not_compiled(monkeypatch):
    monkeypatch.setenv(compile_policy.EXPLAIN_ENV, "1")
    monkeypatch.setenv("TFCOMPAT_COMPILE", "0")
    monkeypatch.setattr(compile_policy, "compile_stats", [])
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        y = tf.reduce_sum(x * 2.0)
        with tf.compat.v1.Session() as sess:
            for _ in range(3):
                sess.run(y, {x: np.ones(2, np.float32)})
    report = compile_policy.compile_report()
    assert "fetch Sum:0; feed Placeholder:0" in report
    assert "uncompiled: 3 runs" in report and "compiled: no" in report
    assert "why: TFCOMPAT_COMPILE=0" in report


def test_cli_prints_the_report_at_exit(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [])
        with tf.Session() as sess:
            print(sess.run(x * 3.0, {x: 2.0}))
    """))
    env = dict(os.environ, TFCOMPAT_COMPILE="0")
    done = subprocess.run([sys.executable, "-m", "tfcompat", "run", "--explain-compile",
                           str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "6.0" in done.stdout
    assert "tfcompat: compile report" in done.stderr and "[1] fetch mul:0" in done.stderr


def test_a_tf2_train_step_compiles_in_one_graph_with_the_loss_it_returns(tmp_path):
    """A `tf.function` train step (a tape, `apply_gradients`, `return loss`) called where no
    tape records returns plain values, so torch.compile traces the tape's gradient and the
    loss in one graph. While its results kept their autograd history for a tape that was
    not there, dynamo broke the graph at the gradient ("autograd.grad with external
    grad_fn"). Run as `python script.py` in a process of its own: inside pytest, or through
    runpy as `tfcompat run` runs a script, that break did not show."""
    script = tmp_path / "train_step.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import torch
        real_compile = torch.compile
        torch.compile = lambda module, dynamic: real_compile(module, dynamic=dynamic,
                                                             backend="aot_eager")
        import tfcompat as tf
        rng = np.random.RandomState(0)
        weights = [tf.Variable(rng.randn(4, 4).astype(np.float32) * 0.5) for _ in range(3)]
        x = tf.constant(rng.randn(2, 4).astype(np.float32))
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.01)

        @tf.function
        def step():
            with tf.GradientTape() as tape:
                h = x
                for w in weights:
                    h = tf.nn.relu(tf.matmul(h, w) + 0.1)
                loss = tf.reduce_mean(tf.square(h - 1.0))
            optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
            return loss
        print([round(float(step()), 5) for _ in range(3)])
        from tfcompat.framework import compile_policy
        print(compile_policy.compile_report())
    """))
    env = dict(os.environ, TFCOMPAT_COMPILE="1", **{compile_policy.EXPLAIN_ENV: "1"})
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    report = done.stdout[done.stdout.index("tfcompat: compile report"):]
    assert "compile + first run" in report and "graph breaks: none" in report, report
    assert "graph break (" not in report, report


class _Clock(object):
    """compile_policy's time.perf_counter, advanced by the fake run costs below."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


class _StandInCompiled(object):
    """What torch.compile returns, minus the compiling: calls and attributes go to the
    module."""

    def __init__(self, module):
        self.module = module

    def __call__(self, *args):
        return self.module(*args)

    def __getattr__(self, name):
        return getattr(self.module, name)


def _explained_stand_in_compiles(monkeypatch, policy):
    """TFCOMPAT_COMPILE=`policy` with the report on and torch.compile replaced by
    _StandInCompiled: the list of the stand-ins it returned."""
    monkeypatch.setenv(compile_policy.EXPLAIN_ENV, "1")
    monkeypatch.setenv("TFCOMPAT_COMPILE", policy)
    monkeypatch.setattr(compile_policy, "compile_stats", [])
    compiled = []

    def stand_in_compile(module, dynamic):
        compiled.append(_StandInCompiled(module))
        return compiled[-1]
    monkeypatch.setattr(torch, "compile", stand_in_compile)
    return compiled


def _measured_run(monkeypatch, compiled_seconds):
    """Runs a signature 20 times under TFCOMPAT_COMPILE=auto, with 5 trial runs, where an
    uncompiled run takes 2 ms and a compiled one `compiled_seconds` (the compile: 5 s).
    torch.compile is a stand-in, so that the runs stay real."""
    clock = _Clock()
    compiled_modules = _explained_stand_in_compiles(monkeypatch, "auto")
    monkeypatch.setattr(compile_policy, "_COMPILE_COST_SECONDS", 0.01)
    monkeypatch.setattr(compile_policy, "_TRIAL_RUNS", 5)
    monkeypatch.setattr(compile_policy, "time", clock)
    real_run_module = compile_policy.run_module

    def timed_run_module(module, feed_values, extra):
        if module in compiled_modules:
            clock.now += 5.0 if not hasattr(module, "ran") else compiled_seconds
            module.ran = True
        else:
            clock.now += 0.002
        return real_run_module(module, feed_values, extra)
    monkeypatch.setattr(compile_policy, "run_module", timed_run_module)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        y = tf.reduce_sum(x * 2.0)
        with tf.compat.v1.Session() as sess:
            results = [sess.run(y, {x: np.ones(2, np.float32)}) for _ in range(20)]
    assert results == [4.0] * 20
    return compile_policy.compile_report()


def test_measured_policy_keeps_a_faster_compiled_module(monkeypatch):
    report = _measured_run(monkeypatch, compiled_seconds=0.001)
    assert "compiled: compile + first run 5.00 s" in report
    assert "kept the compiled module: compiled runs 1 ms, uncompiled 2 ms" in report
    assert "uncompiled: 6 runs" in report   # 6 uncompiled runs, then compiled for good


def test_measured_policy_drops_a_compiled_module_that_is_not_faster(monkeypatch):
    report = _measured_run(monkeypatch, compiled_seconds=0.003)
    assert "not faster, runs uncompiled again: compiled runs 3 ms, uncompiled 2 ms" in report
    assert "uncompiled: 14 runs" in report  # 6 before the compile, 1 + 5 compiled, 8 after


def test_default_policy_on_cpu_does_not_compile(monkeypatch):
    monkeypatch.setenv(compile_policy.EXPLAIN_ENV, "1")
    monkeypatch.delenv("TFCOMPAT_COMPILE", raising=False)
    monkeypatch.setattr(compile_policy, "compile_stats", [])
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        with tf.compat.v1.Session() as sess:
            for _ in range(3):
                sess.run(x + 1.0, {x: np.ones(2, np.float32)})
    assert "why: default policy on CPU" in compile_policy.compile_report()


def test_tf_function_traces_follow_jit_compile(monkeypatch):
    compiled = _explained_stand_in_compiles(monkeypatch, "0")

    @tf.function(jit_compile=True)
    def double(x):
        return x * 2.0

    @tf.function
    def triple(x):
        return x * 3.0

    for _ in range(3):
        assert double(tf.constant(2.0)).numpy() == 4.0
        assert triple(tf.constant(2.0)).numpy() == 6.0
    report = compile_policy.compile_report()
    assert len(compiled) == 1
    assert "tf.function double(x: TensorSpec" in report
    assert "why: tf.function(jit_compile=True) and run more than once" in report
    assert "why: TFCOMPAT_COMPILE=0" in report


def test_keras_compile_jit_compile_compiles_the_train_step(monkeypatch):
    compiled = _explained_stand_in_compiles(monkeypatch, "0")
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    with pytest.raises(ValueError, match="run_eagerly` and `jit_compile"):
        model.compile("sgd", "mse", run_eagerly=True, jit_compile=True)
    model.compile("sgd", "mse", jit_compile=True)
    assert model.jit_compile is True
    model.fit(np.ones((8, 3), np.float32), np.ones((8, 1), np.float32), batch_size=2,
              epochs=1, verbose=0)
    assert len(compiled) == 1
    assert "tf.function(jit_compile=True) and run more than once" in \
        compile_policy.compile_report()


def _aot_eager_compiles(monkeypatch):
    """TFCOMPAT_COMPILE=1 with torch.compile's `aot_eager` backend: AOTAutograd's forward
    and backward graphs as the inductor path makes them, run without generating code."""
    monkeypatch.setenv("TFCOMPAT_COMPILE", "1")
    real_compile = torch.compile
    monkeypatch.setattr(torch, "compile",
                        lambda module, dynamic: real_compile(module, dynamic=dynamic,
                                                             backend="aot_eager"))


def _train_losses(optimizer_step, steps=4):
    """Losses of `steps` runs of a small `dynamic_rnn` train step (its gradients go through
    a while loop)."""
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(1)
        x = tf.compat.v1.placeholder(tf.float32, [None, 3, 2])
        cell = tf.compat.v1.nn.rnn_cell.BasicLSTMCell(4)
        outputs, _ = tf.compat.v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        loss = tf.reduce_mean(tf.square(outputs[:, -1] - 1.0))
        train = optimizer_step(loss)
        feed = {x: np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 10}
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            return [sess.run([loss, train], feed)[0] for _ in range(steps)]


def test_a_compiled_train_step_runs_compiled_and_trains_like_the_uncompiled_one(
        monkeypatch, capsys):
    def minimize(loss):
        return tf.compat.v1.train.AdamOptimizer(0.1).minimize(loss)
    expected = _train_losses(minimize)
    _aot_eager_compiles(monkeypatch)
    monkeypatch.setattr(compile_policy, "compile_stats", [])
    monkeypatch.setenv(compile_policy.EXPLAIN_ENV, "1")
    np.testing.assert_allclose(_train_losses(minimize), expected, rtol=1e-5)
    assert "running it uncompiled" not in capsys.readouterr().err
    report = compile_policy.compile_report()
    assert "fetch Mean:0, Adam" in report and "first run" in report, report
    assert "then 2 runs" in report and "graph breaks: none" in report, report


def test_a_compiled_step_with_two_gradient_passes_over_one_forward(monkeypatch, capsys):
    def two_passes(loss):      # tf.gradients twice over the same loss in one run
        variables = tf.compat.v1.trainable_variables()
        first = tf.gradients(loss, variables)
        second = tf.gradients(loss * 2.0, variables)
        return tf.compat.v1.train.GradientDescentOptimizer(0.05).apply_gradients(
            [(a + b, v) for a, b, v in zip(first, second, variables)])
    expected = _train_losses(two_passes)
    _aot_eager_compiles(monkeypatch)
    np.testing.assert_allclose(_train_losses(two_passes), expected, rtol=1e-5)
    assert "running it uncompiled" not in capsys.readouterr().err


def test_a_compiled_signature_runs_other_batch_sizes_compiled(monkeypatch, capsys):
    def run(batches):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.compat.v1.placeholder(tf.float32, [None, 3])
            w = tf.compat.v1.get_variable("w", initializer=tf.ones([3, 2]))
            y = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w) - 1.0), axis=1)
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.global_variables_initializer())
                return [sess.run(y, {x: np.arange(3 * n, dtype=np.float32).reshape(n, 3)})
                        for n in batches]
    batches = [4, 4, 4, 2, 5, 4]
    expected = run(batches)
    _aot_eager_compiles(monkeypatch)
    for got, want in zip(run(batches), expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert "running it uncompiled" not in capsys.readouterr().err


@pytest.mark.skipif(not (shutil.which("c++") or shutil.which("g++")),
                    reason="inductor's CPU code generation needs a C++ compiler")
def test_inductor_compiles_a_conv_batch_norm_train_step(monkeypatch, capsys):
    """Compiled for the batch size it runs with (compiled with every shape symbolic,
    `dynamic=True`, this step failed inductor's lowering after ~50 s), in one graph."""
    def losses():
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.set_random_seed(1)
            x = tf.compat.v1.placeholder(tf.float32, [None, 8, 8, 3])
            h = tf.compat.v1.layers.conv2d(x, 4, 3, strides=2, padding="same", use_bias=False)
            h = tf.compat.v1.layers.batch_normalization(h, training=True)
            loss = tf.reduce_mean(tf.square(tf.nn.relu(h)))
            with tf.control_dependencies(
                    tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
                train = tf.compat.v1.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
            feed = {x: np.linspace(-1, 1, 2 * 8 * 8 * 3, dtype=np.float32).reshape(2, 8, 8, 3)}
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.global_variables_initializer())
                return [sess.run([loss, train], feed)[0] for _ in range(3)]
    expected = losses()
    monkeypatch.setenv("TFCOMPAT_COMPILE", "1")
    monkeypatch.setenv(compile_policy.EXPLAIN_ENV, "1")
    monkeypatch.setattr(compile_policy, "compile_stats", [])
    np.testing.assert_allclose(losses(), expected, rtol=1e-4)
    assert "running it uncompiled" not in capsys.readouterr().err
    report = compile_policy.compile_report()     # the moving averages' in-place updates too
    assert "fetch Mean:0, Momentum" in report and "graph breaks: none" in report, report


@pytest.mark.skipif(not (shutil.which("c++") or shutil.which("g++")),
                    reason="inductor's CPU code generation needs a C++ compiler")
def test_seeded_random_ops_draw_the_same_numbers_compiled(monkeypatch):
    """TF's op seeds name a random stream; compiling a step must not change its draws."""
    def draws():
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.set_random_seed(3)
            x = tf.compat.v1.placeholder(tf.float32, [4, 4])
            w = tf.compat.v1.get_variable("w", initializer=tf.ones([4, 4]))
            y = tf.nn.dropout(tf.matmul(x, w), rate=0.5, seed=2) + \
                tf.compat.v1.random_uniform([4, 4], seed=5)
            train = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
                tf.reduce_sum(y))
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.global_variables_initializer())
                return [sess.run([y, train], {x: np.ones((4, 4), np.float32)})[0]
                        for _ in range(4)]
    expected = draws()
    monkeypatch.setenv("TFCOMPAT_COMPILE", "1")
    for got, want in zip(draws(), expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)
