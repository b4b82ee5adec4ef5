"""The acceptance suite (../shared/acceptance), one pytest case per (script, mode).

Cases run in the suite's listed order in one shared working directory, because later scripts
read what earlier ones wrote (a08b restores a08's checkpoint, a11c reads a11's event files).
A case that needs work not done yet is an expected failure naming the issue it waits on;
`strict=True` turns it into a failure once it passes, so the table below stays true.
"""
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join(os.path.dirname(REPO), "shared", "acceptance", "run")
TIMEOUT = 600

if not os.path.exists(RUN):
    pytest.skip("../shared/acceptance is not beside the repository", allow_module_level=True)

ISSUES = {
    3: "graph mode: Graph, Session, placeholders, tf.gradients",
    4: "Keras layers, models and metrics",
    5: "TF1 optimizers, Saver and Checkpoint",
    6: "tf.data, TFRecord and Example parsing",
    7: "summaries",
    8: "tf.estimator",
}


def _by_case(table):
    """{"SCRIPT MODE MODE...": issue} -> {(SCRIPT, MODE): issue}."""
    return {(key.split()[0], mode): issue for key, issue in table.items()
            for mode in key.split()[1:]}


# (script, mode) -> the issue whose work is the LAST one the case needs.
WAITING = _by_case({})


def _cases():
    listed = subprocess.run([sys.executable, RUN, "--list"], capture_output=True, text=True,
                            check=True, timeout=120).stdout.split("\n")
    params = []
    for line in listed:
        if not line.strip():
            continue
        script, mode = line.split()
        issue = WAITING.get((script, mode))
        marks = [pytest.mark.xfail(strict=True, reason="waits on issue %d (%s)"
                                   % (issue, ISSUES[issue]))] if issue else []
        params.append(pytest.param(script, mode, marks=marks, id="%s-%s" % (script, mode)))
    return params


CASES = _cases()


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("acceptance")


@pytest.mark.parametrize("script, mode", CASES)
def test_acceptance(workdir, script, mode):
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, RUN, "-k", script, "--modes", mode, "--workdir", str(workdir),
         "--python", sys.executable, "--timeout", str(TIMEOUT), "-v"],
        env=env, capture_output=True, text=True, timeout=TIMEOUT + 60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_waiting_table_names_listed_cases():
    listed = {tuple(p.values) for p in CASES}
    assert set(WAITING) <= listed, set(WAITING) - listed
