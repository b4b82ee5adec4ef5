"""Whole real TensorFlow scripts timed end to end: tfcompat vs real TensorFlow.

Each script of the real-script corpus (materialised by scripts/compat_corpus.py under
/tmp/compat_corpus/<ID>/{tfcompat,tf}/) runs as a fresh process, imports included:
  tfcompat: `PYTHONPATH=_stubs python -m tfcompat script.py` in a copy of <ID>/tfcompat
  real TF:  `PYTHONPATH=_stubs TF_USE_LEGACY_KERAS=1 TF_PYTHON script.py` in a copy of <ID>/tf
(copies in a temporary directory, so what a script writes never lands in the corpus).
Runs are interleaved (tfcompat, TF, tfcompat, TF, ...) and the median wall time per script
and runtime is reported, with the ratio tfcompat / TF and the median ratio over scripts.
Environment as the corpus runner's: OMP_NUM_THREADS=1 unless --threads is given.

    python scripts/bench_scripts.py [--tf-python /work/tfvenv/bin/python] [--repeats 3]
        [--corpus /tmp/compat_corpus] [--all | ID ...]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CORPUS = "/tmp/compat_corpus"
# Scripts that run under both runtimes and train something (graph and eager, TF1 and TF2),
# a few seconds each; --all takes every materialised script.
DEFAULT_SCRIPTS = (
    "tf1_aymeric_convolutional_network_raw", "tf1_aymeric_multilayer_perceptron",
    "tf1_aymeric_neural_network_raw", "tf1_aymeric_autoencoder",
    "tf1_nlintz_04_modern_net", "tf1_nlintz_05_convolutional_net",
    "tf1_nlintz_06_autoencoder", "tf1_docs_r1_basic_classification",
    "tf2_aymeric_convolutional_network", "tf2_aymeric_recurrent_network",
    "tf2_docs_quickstart_advanced", "tf2_guide_basic_training_loops",
)


def run_once(command, run_dir, env, timeout):
    """Wall seconds of `command script.py` in `run_dir`, or None when it failed."""
    start = time.perf_counter()
    try:
        done = subprocess.run(command + ["script.py"], cwd=run_dir, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        return None, lines[-1][:120] if lines else "exit status %d" % done.returncode
    return seconds, ""


def runtimes(args):
    """{runtime: (command, extra environment)}."""
    found = {"tfcompat": ([sys.executable, "-m", "tfcompat"], {})}
    if args.tf_python:
        found["tf"] = ([args.tf_python], {"TF_USE_LEGACY_KERAS": "1"})
    return found


def environment(run_dir, threads, extra):
    env = dict(os.environ, MPLBACKEND="Agg", CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="2",
               PYTHONHASHSEED="0", PYTHONPATH=os.path.join(run_dir, "_stubs"), **extra)
    if threads:
        env.pop("OMP_NUM_THREADS", None)
    else:
        env["OMP_NUM_THREADS"] = "1"
    for name in ("TFCOMPAT_API", "TFCOMPAT_MODE", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    return env


def measure(script_ids, args):
    """{id: {runtime: [seconds...] or error text}} with runs interleaved."""
    kinds = runtimes(args)
    times = {sid: {kind: [] for kind in kinds} for sid in script_ids}
    with tempfile.TemporaryDirectory(prefix="bench_scripts_") as scratch:
        dirs = {}
        for sid in script_ids:
            for kind in kinds:
                source = os.path.join(args.corpus, sid, kind)
                if not os.path.isdir(source):
                    times[sid][kind] = "no %s/ in the corpus" % kind
                    continue
                dirs[sid, kind] = os.path.join(scratch, sid, kind)
                shutil.copytree(source, dirs[sid, kind], ignore=shutil.ignore_patterns(
                    "stdout.txt", "stderr.txt", "__pycache__"))
        for repeat in range(args.repeats):
            for sid in script_ids:
                for kind, (command, extra) in kinds.items():
                    if isinstance(times[sid][kind], str):
                        continue
                    run_dir = dirs[sid, kind]
                    seconds, error = run_once(command, run_dir,
                                              environment(run_dir, args.threads, extra),
                                              args.timeout)
                    times[sid][kind] = error if seconds is None else times[sid][kind] + [seconds]
                    print("  run %d %-40s %-9s %s" % (repeat + 1, sid, kind,
                                                       "%.1f s" % seconds if error == ""
                                                       else error), file=sys.stderr, flush=True)
    return times


def report(times):
    print("%-40s %12s %12s %8s" % ("script", "tfcompat s", "real TF s", "ratio"))
    ratios = []
    for sid, by_kind in times.items():
        cells = []
        for kind in ("tfcompat", "tf"):
            value = by_kind.get(kind)
            cells.append("-" if value is None else value[:12] if isinstance(value, str)
                         else "%.2f" % statistics.median(value))
        ours, theirs = by_kind.get("tfcompat"), by_kind.get("tf")
        ratio = "-"
        if isinstance(ours, list) and isinstance(theirs, list) and ours and theirs:
            ratios.append(statistics.median(ours) / statistics.median(theirs))
            ratio = "%.2fx" % ratios[-1]
        print("%-40s %12s %12s %8s" % (sid, cells[0], cells[1], ratio))
    if ratios:
        print("median ratio over %d scripts: %.2fx (max %.2fx)"
              % (len(ratios), statistics.median(ratios), max(ratios)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="corpus script IDs (default: a training set)")
    parser.add_argument("--all", action="store_true", help="every script in the corpus")
    parser.add_argument("--tf-python", help="python of a real-TF side venv")
    parser.add_argument("--corpus", default=CORPUS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--threads", action="store_true",
                        help="leave OMP_NUM_THREADS unset (default threads)")
    args = parser.parse_args()
    if args.all:
        script_ids = sorted(d for d in os.listdir(args.corpus)
                            if os.path.isdir(os.path.join(args.corpus, d, "tfcompat")))
    else:
        script_ids = args.ids or list(DEFAULT_SCRIPTS)
    missing = [sid for sid in script_ids
               if not os.path.isdir(os.path.join(args.corpus, sid, "tfcompat"))]
    if missing:
        parser.error("not in the corpus %s: %s" % (args.corpus, ", ".join(missing)))
    report(measure(script_ids, args))


if __name__ == "__main__":
    main()
