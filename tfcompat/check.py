"""`tfcompat check [--json] SCRIPT...`: what a TF script needs from tfcompat, without running it.

For each script (and the .py files beside it that it imports, as the runner scans them) the
report gives the execution mode and TF API version the runner would choose and why, the
constructs that need one mode (`tf.placeholder` needs graph mode, `tf.enable_eager_execution()`
eager) with file:line, and every TF symbol used, grouped:

- supported: resolves in tfcompat's namespaces, as the script would see them;
- not implemented: part of TensorFlow's API (TF 1.15 compat.v1, TF 2.15, tf.contrib) but not
  of tfcompat yet; using it raises NotImplementedError;
- removed from TensorFlow: gone before the versions tfcompat emulates (TF 1.0 renamed the
  0.x math and summary ops); the script did not run on TF 1.x either;
- unknown: in no TensorFlow API list (a typo, or a name older than the lists know).

A symbol is the longest dotted path that names a TF module member (`tf.keras.layers.Dense`,
not `tf.keras.layers.Dense.__call__`). The exit status is 0 when every symbol is supported,
1 otherwise, 2 for a usage error. The scan and the namespaces are the runner's own.
"""
import importlib
import json
import os
import sys
import types

import tfcompat
from tfcompat import _api, _import_hook, _scan

USAGE = "usage: tfcompat check [--json] SCRIPT...\n"

# TF 0.x names removed by TF 1.0 (its release notes), with what replaced them.
_REMOVED_IN_1_0 = {
    "mul": "tf.multiply", "sub": "tf.subtract", "neg": "tf.negative", "select": "tf.where",
    "pack": "tf.stack", "unpack": "tf.unstack", "batch_matmul": "tf.matmul",
    "concat_v2": "tf.concat", "listdiff": "tf.setdiff1d", "complex_abs": "tf.abs",
    "scalar_summary": "tf.summary.scalar", "histogram_summary": "tf.summary.histogram",
    "image_summary": "tf.summary.image", "audio_summary": "tf.summary.audio",
    "merge_summary": "tf.summary.merge", "merge_all_summaries": "tf.summary.merge_all",
    "train.SummaryWriter": "tf.summary.FileWriter", "nn.rnn": "tf.contrib.rnn.static_rnn",
    "nn.rnn_cell": "tf.contrib.rnn", "nn.seq2seq": "tf.contrib.legacy_seq2seq",
    "batch_matrix_determinant": "tf.matrix_determinant",
    "batch_matrix_inverse": "tf.matrix_inverse", "batch_cholesky": "tf.cholesky",
    "batch_self_adjoint_eig": "tf.self_adjoint_eig", "batch_fft": "tf.fft",
}


def _namespace_root(version):
    return tfcompat if version is None else getattr(tfcompat.compat, version)


def _classify_internal(path):
    """(group, symbol, note) for `tensorflow.python.*` / `tensorflow.core.*` paths, which the
    import hook serves: the longest importable module, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = "tensorflow." + ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module_name)
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
                if not isinstance(obj, types.ModuleType):
                    break
        except AttributeError:
            pass
        else:
            return "supported", "tensorflow." + path, ""
        break
    return "not implemented", "tensorflow." + path, "a TensorFlow-internal name"


def _classify(path, version):
    """(group, symbol, note) for one use of TF path `path` (without `compat.vN`)."""
    if path.split(".")[0] in ("python", "core"):
        return _classify_internal(path)
    shown = "tf." + ("compat.%s." % version if version else "") + "%s"
    obj, parts = _namespace_root(version), path.split(".")
    for i, part in enumerate(parts):
        symbol = ".".join(parts[:i + 1])
        try:
            obj = getattr(obj, part)
        except _api.UnimplementedSymbolError:
            note = "tf.contrib was removed in TF 2.0" if symbol.startswith("contrib.") else ""
            return "not implemented", shown % symbol, note
        except AttributeError:
            removed = next((old for old in (symbol, path) if old in _REMOVED_IN_1_0), None)
            if removed is None:
                return "unknown", shown % symbol, "in no TensorFlow 1.15 or 2.15 API"
            return "removed", shown % removed, "removed in TF 1.0, use %s" % (
                _REMOVED_IN_1_0[removed],)
        if not isinstance(obj, types.ModuleType):
            break
    return "supported", shown % symbol, ""


def report(script):
    """The check of one script as a dict (what `--json` prints for it)."""
    sources = _scan.script_sources(script)
    choice = _scan.detect(sources)
    previous = _api.api_version()
    _api.set_flavor(choice.flavor)
    _import_hook.install()
    folder = os.path.dirname(os.path.abspath(script))
    groups, constructs = {}, []
    try:
        for file, source in sources.items():
            try:
                scan = _scan._scan_source(source)
            except (SyntaxError, ValueError):
                continue
            where = os.path.relpath(file, folder)
            constructs += [{"needs": mode, "construct": words, "at": "%s:%d" % (where, line)}
                           for line, mode, words in scan.mode_constructs]
            for line, path, version in scan.symbols:
                group, symbol, note = _classify(path, version)
                entry = groups.setdefault(group, {}).setdefault(
                    symbol, {"symbol": symbol, "note": note, "at": []})
                entry["at"].append("%s:%d" % (where, line))
    finally:
        _api.set_flavor(previous)
    return {
        "script": script, "mode": choice.mode, "mode_reason": choice.reason,
        "api": "TF%s" % choice.flavor[1], "api_reason": choice.flavor_reason,
        "mode_constructs": constructs,
        "symbols": {group: sorted(groups.get(group, {}).values(), key=lambda e: e["symbol"])
                    for group in ("supported", "not implemented", "removed", "unknown")},
    }


def _text(result):
    lines = ["%s: %s mode, %s API" % (result["script"], result["mode"], result["api"]),
             "  mode: %s" % result["mode_reason"], "  API: %s" % result["api_reason"]]
    for mode in ("graph", "eager"):
        found = ["%s (%s)" % (c["construct"], c["at"]) for c in result["mode_constructs"]
                 if c["needs"] == mode]
        if found:
            lines.append("  needs %s mode: %s" % (mode, ", ".join(found)))
    for group, entries in result["symbols"].items():
        lines.append("  %s (%d)%s" % (group, len(entries), ":" if entries else ""))
        if group == "supported":
            lines += ["    " + ", ".join(e["symbol"] for e in entries)] if entries else []
            continue
        lines += ["    %s at %s%s" % (e["symbol"], ", ".join(e["at"][:3]),
                                      "; " + e["note"] if e["note"] else "") for e in entries]
    return "\n".join(lines) + "\n"


def main(argv):
    """`tfcompat check` entry point; returns the exit status."""
    as_json = "--json" in argv
    scripts = [arg for arg in argv if arg != "--json"]
    if not scripts or any(arg.startswith("-") for arg in scripts):
        sys.stderr.write(USAGE)
        return 2
    missing = [path for path in scripts if not os.path.exists(path)]
    if missing:
        sys.stderr.write("tfcompat check: no such file: %s\n" % ", ".join(missing))
        return 2
    results = [report(path) for path in scripts]
    ok = all(not entries for result in results
             for group, entries in result["symbols"].items() if group != "supported")
    if as_json:
        json.dump({"ok": ok, "scripts": results}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("".join(_text(result) for result in results))
        sys.stdout.write("verdict: %s\n" % ("every TF symbol used is supported" if ok else
                                             "some TF symbols used are not supported"))
    return 0 if ok else 1
