"""`tfcompat run --explain-compile`: the per-signature compile report."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import tfcompat as tf
from tfcompat.client import session


def test_report_says_why_signatures_were_not_compiled(monkeypatch):
    monkeypatch.setenv(session.EXPLAIN_ENV, "1")
    monkeypatch.setenv("TFCOMPAT_COMPILE", "0")
    monkeypatch.setattr(session, "compile_stats", [])
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        y = tf.reduce_sum(x * 2.0)
        with tf.compat.v1.Session() as sess:
            for _ in range(3):
                sess.run(y, {x: np.ones(2, np.float32)})
    report = session.compile_report()
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
