"""Machinery of the real-script compatibility corpus (the manifest is compat_corpus.py).

Materialises each manifest entry from a local git mirror (`git show COMMIT:PATH`; notebook
code cells joined into a script), applies its offline patches, runs it under real
TensorFlow and under `python -m tfcompat`, and renders docs/compatibility.md.
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_MODULE = os.path.join(REPO_ROOT, "scripts", "compat_corpus_data.py")

# The single patch allowed for running a TF1-era script under real TF 2.x.
TF1_IMPORT = "import tensorflow as tf"
TF1_IMPORT_V1 = "import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()"
TF1_NOT_INSTALLABLE = "tf1 (not installable)"

# A stand-in `matplotlib` for both runs: every attribute is a no-op, so scripts plot nothing.
_MATPLOTLIB_STUB = '''"""No-op matplotlib for the compatibility corpus: scripts plot nothing."""
import sys
import types


class _NoOp:
    def __call__(self, *args, **kwargs):
        return _NoOp()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _NoOp()

    def __iter__(self):
        return iter((_NoOp(), _NoOp()))

    def __getitem__(self, key):
        return _NoOp()

    def __setitem__(self, key, value):
        pass

    def __lt__(self, other):
        return False

    __gt__ = __le__ = __ge__ = __lt__

    def __float__(self):
        return 0.0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _NoOp()


for _name in ("pyplot", "gridspec", "image", "cm", "colors", "ticker", "animation",
              "patches"):
    _module = types.ModuleType(__name__ + "." + _name)
    _module.__getattr__ = __getattr__
    sys.modules[_module.__name__] = _module
    globals()[_name] = _module
'''


class CorpusError(Exception):
    """A manifest entry cannot be materialised (missing mirror, stale patch)."""


def mirror_dir(mirrors, repo):
    return os.path.join(mirrors, repo.replace("/", "+"), "repo")


def git_show(mirrors, repo, commit, path):
    git_dir = mirror_dir(mirrors, repo)
    if not os.path.isdir(git_dir):
        raise CorpusError("no mirror of %s at %s (fetch it first)" % (repo, git_dir))
    done = subprocess.run(["git", "--git-dir", git_dir, "show", "%s:%s" % (commit, path)],
                          capture_output=True)
    if done.returncode:
        raise CorpusError("git show %s:%s in %s: %s"
                          % (commit, path, repo, done.stderr.decode().strip()))
    return done.stdout.decode("utf-8")


def _strip_leading_indent(source):
    """IPython's leading_indent: the first line's indentation comes off every line having it."""
    lines = source.splitlines()
    first = next((line for line in lines if line.strip()), "")
    indent = first[:len(first) - len(first.lstrip())]
    return [line[len(indent):] if indent and line.startswith(indent) else line
            for line in lines]


def notebook_code(text, drop_cells=()):
    """The code cells of a notebook joined as one script, each dedented as IPython does, shell
    (`!`) and magic (`%`) lines made `pass`; `drop_cells` are indexes among the code cells."""
    cells = [cell for cell in json.loads(text)["cells"] if cell["cell_type"] == "code"]
    chunks = []
    for index, cell in enumerate(cells):
        source = cell["source"]
        source = "".join(source) if isinstance(source, list) else source
        if index in drop_cells:
            chunks.append("# [corpus] code cell %d left out\n" % index)
            continue
        lines = [line[:len(line) - len(line.lstrip())] + "pass"
                 if line.lstrip().startswith(("!", "%")) else line
                 for line in _strip_leading_indent(source)]
        chunks.append("# [corpus] code cell %d\n%s\n" % (index, "\n".join(lines)))
    return "\n".join(chunks)


def apply_patches(source, patches, entry_id):
    for old, new in patches:
        if old not in source:
            raise CorpusError("%s: patch text not found: %r" % (entry_id, old))
        source = source.replace(old, new)
    return source


def materialise(entry, source_repo, mirrors, work_dir, real_tf):
    """Write the patched script (and its helpers) into a fresh directory; return its path."""
    repo, commit = source_repo
    text = git_show(mirrors, repo, commit, entry.path)
    if entry.path.endswith(".ipynb"):
        text = notebook_code(text, entry.drop_cells)
    text = apply_patches(text, entry.patches, entry.id)
    note = None
    if real_tf and entry.era == "tf1":
        text, patched = re.subn(r"^import tensorflow as tf$", TF1_IMPORT_V1, text, count=1,
                                flags=re.MULTILINE)
        if patched:
            note = "compat.v1 patch"
        elif "import tensorflow.compat.v1 as tf" in text:
            note = "written for tensorflow.compat.v1"
        else:
            raise CorpusError("%s: no %r line for the compat.v1 patch" % (entry.id, TF1_IMPORT))
    run_dir = os.path.join(work_dir, entry.id, "tf" if real_tf else "tfcompat")
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(os.path.join(run_dir, "_stubs", "matplotlib"))
    with open(os.path.join(run_dir, "_stubs", "matplotlib", "__init__.py"), "w") as stub:
        stub.write(_MATPLOTLIB_STUB)
    shutil.copy(DATA_MODULE, os.path.join(run_dir, "_corpus_data.py"))
    with open(os.path.join(run_dir, "script.py"), "w") as script:
        script.write(text)
    return run_dir, note


_ERROR_LINE = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)\b.*|"
                         r"Killed|Segmentation fault.*)$")


def last_error_line(stderr):
    """The exception line of the last traceback, else the last line that looks like an error."""
    lines = [line.rstrip() for line in stderr.splitlines() if line.strip()]
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent")]
    if starts:
        for line in lines[starts[-1] + 1:]:
            if not line[0].isspace():
                return line[:300]
    for line in reversed(lines):
        if _ERROR_LINE.match(line):
            return line[:300]
    return lines[-1][:300] if lines else ""


def run_script(run_dir, command, env_extra, timeout):
    env = dict(os.environ, OMP_NUM_THREADS="1", MPLBACKEND="Agg", CUDA_VISIBLE_DEVICES="",
               TF_CPP_MIN_LOG_LEVEL="2", PYTHONHASHSEED="0",
               PYTHONPATH=os.path.join(run_dir, "_stubs"), **env_extra)
    env.pop("TFCOMPAT_API", None)
    env.pop("TFCOMPAT_MODE", None)
    started = time.monotonic()
    with open(os.path.join(run_dir, "stdout.txt"), "w") as out, \
            open(os.path.join(run_dir, "stderr.txt"), "w") as err:
        try:
            returncode = subprocess.run(command + ["script.py"], cwd=run_dir, env=env,
                                        stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                        timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            returncode = None
    wall = round(time.monotonic() - started, 1)
    with open(os.path.join(run_dir, "stderr.txt"), errors="replace") as err:
        stderr = err.read()
    if returncode is None:
        return {"status": "timeout", "returncode": None, "wall_s": wall,
                "error": "timed out after %d s" % timeout}
    return {"status": "ok" if returncode == 0 else "fail", "returncode": returncode,
            "wall_s": wall, "error": "" if returncode == 0 else last_error_line(stderr)}


def run_entry(entry, runtime, options, sources):
    """Run one entry under `runtime` ('tf' or 'tfcompat'); return its result dict."""
    real_tf = runtime == "tf"
    try:
        run_dir, note = materialise(entry, sources[entry.source], options.mirrors,
                                    options.work_dir, real_tf)
    except CorpusError as error:
        return {"status": "not run", "returncode": None, "wall_s": 0.0, "error": str(error)}
    if real_tf:
        command = [options.tf_python]
        env_extra = {"TF_USE_LEGACY_KERAS": "1"}
    else:
        command = [options.tfcompat_python, "-m", "tfcompat"]
        env_extra = {}
    result = run_script(run_dir, command, env_extra, options.timeout)
    if note:
        result["note"] = note
        if result["status"] != "ok":
            result["status"] = TF1_NOT_INSTALLABLE
    return result


def run_corpus(entries, runtimes, options, sources, results, progress=sys.stderr):
    # Runtime-major order: with --jobs 2 the two runs of one script (which may share /tmp
    # paths) never overlap.
    tasks = [(entry, runtime) for runtime in runtimes for entry in entries]
    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        futures = {pool.submit(run_entry, entry, runtime, options, sources): (entry, runtime)
                   for entry, runtime in tasks}
        for future in concurrent.futures.as_completed(futures):
            entry, runtime = futures[future]
            result = future.result()
            results.setdefault(entry.id, {})[runtime] = result
            print("%-34s %-8s %-22s %6.1fs %s" % (entry.id, runtime, result["status"],
                                                  result["wall_s"], result["error"][:100]),
                  file=progress, flush=True)
    return results


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _result_text(result):
    if result is None:
        return "not run"
    if result["status"] == "ok":
        return "ok (%.0f s)" % result["wall_s"]
    if result["status"] == "timeout":
        return "timeout (%.0f s)" % result["wall_s"]
    return result["status"]


def _status(results, entry_id, runtime):
    return results.get(entry_id, {}).get(runtime, {}).get("status")


def render_causes(entries, results, why, causes):
    """Root causes ranked by how many scripts they stop under tfcompat."""
    blocked = {}
    for entry in entries:
        if _status(results, entry.id, "tfcompat") not in (None, "ok") and entry.id in why:
            blocked.setdefault(why[entry.id], []).append(entry.id)
    lines = ["", "## Root causes of tfcompat failures, by scripts stopped", "",
             "| scripts | cause | real TF also fails on | ids |", "| --- | --- | --- | --- |"]
    for key, ids in sorted(blocked.items(), key=lambda item: (-len(item[1]), item[0])):
        also = sum(1 for entry_id in ids if _status(results, entry_id, "tf") != "ok")
        lines.append("| %d | %s | %d | %s |" % (len(ids), _cell(causes[key]), also,
                                                 ", ".join(ids)))
    return "\n".join(lines) + "\n"


def render_table(entries, sources, results, why, causes, header):
    lines = [header, ""]
    counts = {}
    for era in ("tf2", "tf1"):
        era_entries = [entry for entry in entries if entry.era == era]
        ok = {runtime: sum(1 for entry in era_entries
                           if results.get(entry.id, {}).get(runtime, {}).get("status") == "ok")
              for runtime in ("tf", "tfcompat")}
        both = sum(1 for entry in era_entries
                   if results.get(entry.id, {}).get("tf", {}).get("status") == "ok"
                   and results.get(entry.id, {}).get("tfcompat", {}).get("status") == "ok")
        counts[era] = (len(era_entries), ok["tf"], ok["tfcompat"], both)
    lines += ["| era | scripts | real TF ok | tfcompat ok | tfcompat ok where real TF ok |",
              "| --- | --- | --- | --- | --- |"]
    for era, (total, tf_ok, tfcompat_ok, both) in counts.items():
        lines.append("| %s | %d | %d | %d | %d / %d |" % (era, total, tf_ok, tfcompat_ok,
                                                           both, tf_ok))
    lines += ["", "| id | source | era | exercises | real TF | tfcompat | why it fails |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for entry in entries:
        repo, commit = sources[entry.source]
        link = "[%s](https://github.com/%s/blob/%s/%s)" % (
            entry.path.rsplit("/", 1)[-1], repo, commit, entry.path)
        result = results.get(entry.id, {})
        tf_result, tfcompat_result = result.get("tf"), result.get("tfcompat")
        tf_text = _result_text(tf_result)
        if tf_result and tf_result.get("note") and tf_result["status"] == "ok":
            tf_text += " (%s)" % tf_result["note"]
        failed = [r for r in (tf_result, tfcompat_result) if r and r["status"] != "ok"]
        reason = causes[why[entry.id]] if entry.id in why and failed else ""
        if not reason and tfcompat_result and tfcompat_result["status"] != "ok":
            reason = "`%s`" % tfcompat_result["error"]
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % tuple(_cell(value) for value in (
            entry.id, link, entry.era, entry.exercises, tf_text,
            _result_text(tfcompat_result), reason)))
    return "\n".join(lines) + "\n" + render_causes(entries, results, why, causes)


def load_results(path):
    if os.path.exists(path):
        with open(path) as handle:
            return json.load(handle)
    return {}


def save_results(path, results):
    with open(path, "w") as handle:
        json.dump(results, handle, indent=1, sort_keys=True)
        handle.write("\n")
