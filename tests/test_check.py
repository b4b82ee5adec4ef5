"""`tfcompat check`: the static report agrees with what running the scripts shows."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from tfcompat import _scan, check

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACCEPTANCE = os.path.join(os.path.dirname(REPO), "shared", "acceptance", "scripts")
EXAMPLES = os.path.join(REPO, "examples")

MIXED = """
    import tensorflow as tf
    from tensorflow.keras.layers import Dense
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.mul(x, 2.0)
    z = tf.nn.reluu(x)
    w = tf.tpu.shard(lambda: x)
    s = tf.contrib.layers.fully_connected(x, 3)
    print(tf.keras.layers.Dense(3).__call__, tf.float32.as_numpy_dtype, tf.compat.v1.Session)
    tf.scalar_summary("a", y)
"""


def _write(tmp_path, source, name="script.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def test_groups_every_symbol_with_where_it_is_used(tmp_path):
    result = check.report(_write(tmp_path, MIXED))
    assert (result["mode"], result["api"]) == ("graph", "TF1")
    assert result["mode_constructs"] == [
        {"needs": "graph", "construct": "tf.placeholder", "at": "script.py:4"},
        {"needs": "graph", "construct": "tf.Session", "at": "script.py:9"}]
    groups = {group: {e["symbol"]: (e["at"], e["note"]) for e in entries}
              for group, entries in result["symbols"].items()}
    assert set(groups["supported"]) == {
        "tf.keras.layers.Dense", "tf.placeholder", "tf.float32", "tf.compat.v1.Session",
        "tf.contrib.layers.fully_connected"}
    assert groups["supported"]["tf.keras.layers.Dense"][0] == ["script.py:3", "script.py:9"]
    assert groups["not implemented"] == {"tf.tpu": (["script.py:7"], "")}
    assert groups["removed"] == {
        "tf.mul": (["script.py:5"], "removed in TF 1.0, use tf.multiply"),
        "tf.scalar_summary": (["script.py:10"], "removed in TF 1.0, use tf.summary.scalar")}
    assert groups["unknown"] == {
        "tf.nn.reluu": (["script.py:6"], "in no TensorFlow 1.15 or 2.15 API")}


def test_local_modules_are_checked_too(tmp_path):
    (tmp_path / "model.py").write_text("import tensorflow as tf\nlayer = tf.contrib.nosuch.x\n")
    main = _write(tmp_path, "import tensorflow as tf\nimport model\ntf.enable_eager_execution()\n")
    result = check.report(main)
    assert result["mode_constructs"] == [
        {"needs": "eager", "construct": "tf.enable_eager_execution()", "at": "script.py:3"}]
    assert [(e["symbol"], e["at"], e["note"]) for e in result["symbols"]["not implemented"]] == \
        [("tf.contrib.nosuch", ["model.py:2"], "tf.contrib was removed in TF 2.0")]


def _run(*args, cwd=None):
    env = {**os.environ, "PYTHONPATH": REPO}
    env.pop("TFCOMPAT_MODE", None)
    env.pop("TFCOMPAT_API", None)
    return subprocess.run([sys.executable, "-m", "tfcompat", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_verdict_agrees_with_the_run(tmp_path):
    broken = _write(tmp_path, """
        import tensorflow as tf
        print(tf.tpu.shard(lambda: 1))
        """)
    fine = _write(tmp_path, """
        import tensorflow as tf
        print(float(tf.add(1.0, 2.0)), tf.__version__)
        """, name="fine.py")
    verdict = _run("check", broken)
    assert verdict.returncode == 1, verdict.stderr
    assert "tf.tpu at broken.py:3" not in verdict.stdout  # the script is named script.py
    assert "tf.tpu at script.py:3" in verdict.stdout
    ran = _run(broken)
    assert ran.returncode == 1 and "does not implement tf.tpu" in ran.stderr
    verdict = _run("check", "--json", fine)
    assert verdict.returncode == 0
    report = json.loads(verdict.stdout)
    assert report["ok"] and report["scripts"][0]["api"] == "TF2"
    assert [e["symbol"] for e in report["scripts"][0]["symbols"]["supported"]] == \
        ["tf.__version__", "tf.add"]
    assert _run(fine).stdout.split() == ["3.0", "2.15.1"]


def test_usage_errors(tmp_path):
    assert _run("check").returncode == 2
    missing = _run("check", str(tmp_path / "missing.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def _entries(folder):
    if not os.path.isdir(folder):
        return []
    found = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        entry = os.path.join(path, "main.py") if os.path.isdir(path) else path
        if entry.endswith(".py") and os.path.exists(entry):
            found.append(entry)
    return found


@pytest.mark.parametrize("entry", _entries(ACCEPTANCE) + _entries(EXAMPLES),
                         ids=os.path.basename)
def test_scripts_that_run_are_reported_supported(entry):
    """Every acceptance script and example runs in its modes (tests/test_acceptance.py, CI's
    example run): the check must find nothing unsupported and choose the runner's mode."""
    result = check.report(entry)
    unsupported = {group: [e["symbol"] for e in entries]
                   for group, entries in result["symbols"].items()
                   if group != "supported" and entries}
    assert unsupported == {}
    choice = _scan.detect(_scan.script_sources(entry))
    assert (result["mode"], result["api"]) == (choice.mode, "TF" + choice.flavor[1])
