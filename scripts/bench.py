"""Every benchmark of the project in one table: raw PyTorch vs tfcompat eager vs graph.

Each workload is measured side by side in one run, repetitions interleaved, medians
reported. Columns: raw torch eager, torch.compile (where it applies), tfcompat eager,
tfcompat graph (Session.run, uncompiled), tfcompat graph compiled (TFCOMPAT_COMPILE=1),
tfcompat tf.function (the deep-graph rows of bench_deep.py), the ratios of tfcompat to raw
torch eager, compile+first-step times, and notes (other variants, targets from the issues,
reference figures of real TensorFlow).

    python scripts/bench.py [--quick] [--json FILE] [--only mlp,cnn,...]
                            [--tf-python /work/tfvenv/bin/python]

`--quick` is a ~30-second smoke run (few repetitions, small sizes, no torch.compile);
without it the full run takes several minutes on 2 CPU cores. The workloads themselves live
in the bench_*.py scripts beside this one, which also run on their own.

The process's malloc is tuned as `python -m tfcompat` tunes it (`cli.tune_allocator`: freed
tensor memory stays in the process), for raw torch and tfcompat alike; `--default-malloc`
measures with glibc's defaults (conv steps then spend up to half their time page-faulting).
Its torch threads are the runner's too (`cli.tune_threads`: the cores other processes leave
free), unless OMP_NUM_THREADS is set.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

import bench_checkpoint
import bench_conv
import bench_data
import bench_deep
import bench_eager
import bench_graph
import bench_keras
import bench_memory
import bench_summary
import tfcompat as tf
from tfcompat import cli

COLUMNS = ("torch eager", "torch.compile", "tfcompat eager", "tfcompat graph",
           "tfcompat graph compiled", "tfcompat tf.function")
SHORT = {"torch eager": "torch", "torch.compile": "t.compile", "tfcompat eager": "tf eager",
         "tfcompat graph": "tf graph", "tfcompat graph compiled": "graph+comp",
         "tfcompat tf.function": "tf.func"}


def row(workload, unit, values, compile_seconds=None, note=""):
    """One table row: `values` maps variant -> measurement in `unit` (smaller is better)."""
    return {"workload": workload, "unit": unit, "values": values,
            "compile_seconds": compile_seconds or {}, "note": note}


def extra_variants(values):
    """Variants outside the standard columns, for the notes."""
    return ", ".join("%s %.3g" % (k, v) for k, v in values.items() if k not in COLUMNS)


# ---------------------------------------------------------------- workloads


def small_op(quick):
    a, b = torch.ones(4), torch.ones(4)
    ta, tb = tf.constant([1.0] * 4), tf.constant([1.0] * 4)
    inner = 2000 if quick else 20000
    medians = bench_conv.interleaved({"torch eager": lambda: torch.add(a, b),
                                      "tfcompat eager": lambda: tf.add(ta, tb)},
                                     5 if quick else 15, inner)
    overhead = (medians["tfcompat eager"] - medians["torch eager"]) * 1e6
    return [row("tf.add of 4 floats", "us", {k: v * 1e6 for k, v in medians.items()},
                note="per-op overhead %.2f us (target < 1.5 us)" % overhead)]


def matmul_add(quick):
    rng = np.random.RandomState(0)
    a, b, c = (torch.tensor(rng.randn(64, 64).astype(np.float32)) for _ in range(3))
    medians = bench_conv.interleaved({
        "torch eager": bench_eager.matmul_add_torch(a, b, c),
        "tfcompat eager": bench_eager.matmul_add_tf(a, b, c)},
        5 if quick else 15, 200 if quick else 1000)
    return [row("matmul 64x64 + add", "us", {k: v * 1e6 for k, v in medians.items()})]


def _train_steps(name, forward_tf, forward_torch, x, labels, weights, shape, quick, note,
                 optimizer="sgd"):
    medians, compiled = bench_graph.measure(
        forward_tf, forward_torch, x, labels, weights, shape,
        repeats=5 if quick else 15, inner=5 if quick else 20, compile_variants=not quick,
        optimizer=optimizer)
    eager, graph = medians["tfcompat eager"], medians["tfcompat graph"]
    note += "; 1000 steps: eager %.2f s, graph %.2f s" % (1000 * eager, 1000 * graph)
    return row(name, "ms/step", {k: v * 1e3 for k, v in medians.items()}, compiled, note)


def mlp(quick):
    """The issue's MLP (Adam, where TF1 Session measured 0.76x torch eager), and with SGD."""
    rows = []
    for optimizer, title, note in (
            ("adam", "Adam", "torch.optim.Adam; targets: eager <= 1.15x, graph <= 0.76x torch"),
            ("sgd", "SGD", "torch._foreach_add_ update")):
        rng = np.random.RandomState(0)
        x = torch.tensor(rng.randn(64, 784).astype(np.float32))
        labels = torch.tensor(rng.randint(0, 10, 64))
        rows.append(_train_steps("MLP 784-256-10 b64 %s step" % title, bench_graph.tf_mlp,
                                 bench_graph.torch_mlp, x, labels,
                                 bench_graph.mlp_weights(rng), [784], quick, note, optimizer))
    return rows


def cnn(quick):
    rng = np.random.RandomState(0)
    x = torch.tensor(rng.randn(32, 32, 32, 3).astype(np.float32))
    labels = torch.tensor(rng.randint(0, 10, 32))
    return [_train_steps("CNN conv+pool+dense b32 SGD step", bench_graph.tf_cnn,
                         bench_graph.torch_cnn, x, labels, bench_graph.cnn_weights(rng),
                         [32, 32, 3], quick, "NHWC")]


def a20(quick):
    steps, model = bench_keras.a20_steps(batch_size=32)
    steps["torch eager"] = steps.pop("torch.nn NCHW")
    medians = bench_conv.interleaved(steps, 3 if quick else 10, 2 if quick else 5)
    values = {k: v * 1e3 for k, v in medians.items()}
    return [row("a20 CNN+LSTM b32 Adam step", "ms/step", values,
                note="LSTM recurrent_activation=%s (TF1 default); %s; targets: eager <= "
                "1.15x, graph <= 1.0x torch" % (model.lstm.cell.recurrent_activation.__name__,
                                                extra_variants(values)))]


def resnet_block(quick):
    medians = bench_conv.interleaved(bench_conv.resnet_block_steps(), 3 if quick else 10,
                                     2 if quick else 5)
    return [row("ResNet block b32 momentum step", "ms/step",
                {k: v * 1e3 for k, v in medians.items()}, note="torch channels_last")]


def conv_inference(quick):
    medians = bench_conv.interleaved(bench_conv.conv_inference_steps(), 3 if quick else 10,
                                     1 if quick else 3)
    values = {k: v * 1e3 for k, v in medians.items()}
    return [row("NHWC conv3x3x64+pool b128 inference", "ms", values,
                note="torch NCHW input; " + extra_variants(values))]


# The real-TF process of `--tf-python` (a bench_deep.RealTF), for the deep-graph rows.
real_tf = None


def deep_graphs(name):
    """Rows of a bench_deep workload (graphs shaped like real TF1 training graphs)."""
    def rows(quick):
        return [row(title, "ms/step", {k: v * 1e3 for k, v in medians.items()},
                    note="graph/eager %.2fx" % (medians["tfcompat graph"]
                                                / medians["tfcompat eager"])
                    + ("; graph/real TF %.2fx; real TF graph %.3g ms" % (
                        medians["tfcompat graph"] / medians["real TF graph"],
                        medians["real TF graph"] * 1e3) if "real TF graph" in medians else ""))
                for title, medians in bench_deep.measure(name, quick, real_tf)]
    return rows


def keras_fit(quick):
    keras_seconds, torch_seconds = bench_keras.measure_fit(
        samples=1024 if quick else 4096, repeats=3 if quick else 7)[:2]
    return [row("Keras fit, MLP 100-128-10, 1 epoch", "s",
                {"torch eager": torch_seconds, "tfcompat eager": keras_seconds},
                note="torch: hand-written loop; target <= 1.2x")]


def data(quick):
    rates = bench_data.measure(records=2000 if quick else 20000, repeats=1 if quick else 3)
    reference = {"map(parse_single_example) -> batch(64)": 41000,
                 "batch(64) -> map(parse_example)": 176000}
    return [row("data: " + name, "us/record", {"tfcompat eager": 1e6 / rate},
                note="%.0f records/s; real tf.data ~%d records/s (issue 6, same machine class)"
                % (rate, reference[name]))
            for name, rate in rates.items()]


def checkpoint(quick):
    tensors, size = (4, 1 << 20) if quick else (25, 4 << 20)
    medians, mb = bench_checkpoint.measure(tensors, size, 2 if quick else 5)
    return [row("checkpoint save %.0f MB" % mb, "s",
                {"torch eager": medians["torch.save"], "tfcompat eager": medians["ours save"]},
                note="ours: fsync + atomic rename; torch.save+fsync %.3f s"
                % medians["torch.save+fsync"]),
            row("checkpoint restore %.0f MB" % mb, "s",
                {"torch eager": medians["torch.load+copy"],
                 "tfcompat eager": medians["ours restore"]},
                note="TF-format checkpoint restore %.3f s" % medians["TF-format restore"])]


def summary(quick):
    medians = bench_summary.measure(3 if quick else 15, 30 if quick else 200, "cpu")
    base = medians["no logging"]
    return [row("summary scalar every step (MLP)", "us/step",
                {"torch eager": base * 1e6, "tfcompat eager": medians[name] * 1e6},
                note="%s; torch column: the same tfcompat step without logging" % name)
            for name in ("tf.summary.scalar (v2)", "contrib.summary.scalar")]


def memory(quick):
    mb = bench_memory.measure()
    return [row("a20 step peak memory (5 steps)", "MB",
                {"torch eager": mb["torch.nn NCHW"], "tfcompat eager": mb["tfcompat eager"],
                 "tfcompat graph": mb["tfcompat graph"]},
                note="growth of peak RSS (CUDA: peak allocated); target <= 1.1x")]


def import_time(quick):
    # As an installed package runs: bytecode cached (PYTHONDONTWRITEBYTECODE, set on some
    # machines, would make every import compile tfcompat's sources, ~0.4 s).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def seconds(module):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import " + module], check=True, env=env)
        return time.perf_counter() - start
    seconds("tfcompat")     # writes the bytecode caches
    times = {"torch eager": [], "tfcompat eager": []}
    for _ in range(1 if quick else 5):
        times["torch eager"].append(seconds("torch"))
        times["tfcompat eager"].append(seconds("tfcompat"))
    return [row("import (fresh process)", "s",
                {k: statistics.median(v) for k, v in times.items()},
                note="torch column: import torch; bytecode cached; target <= 1.2x")]


WORKLOADS = {"op": small_op, "matmul": matmul_add, "mlp": mlp, "cnn": cnn, "a20": a20,
             "resnet": resnet_block, "deep": deep_graphs("deep"), "lstm": deep_graphs("lstm"),
             "towers": deep_graphs("towers"), "resnet20": deep_graphs("resnet20"),
             "conv": conv_inference, "fit": keras_fit, "data": data,
             "checkpoint": checkpoint, "summary": summary, "memory": memory,
             "import": import_time}


# ---------------------------------------------------------------- output


def ratios(values):
    base = values.get("torch eager")
    return {k: values[k] / base for k in ("tfcompat eager", "tfcompat graph",
                                          "tfcompat graph compiled", "tfcompat tf.function")
            if base and k in values}


def machine(allocator):
    info = {"python": platform.python_version(), "torch": torch.__version__,
            "malloc": allocator,
            "platform": platform.platform(), "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(), "cuda": torch.cuda.is_available()}
    if info["cuda"]:
        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def print_table(rows):
    header = "%-38s %-9s" % ("workload", "unit") + "".join(
        "%11s" % SHORT[c] for c in COLUMNS) + "%9s%9s  %s" % ("eager/t", "graph/t", "notes")
    print(header)
    print("-" * len(header))
    for r in rows:
        cells = "".join("%11.4g" % r["values"][c] if c in r["values"] else "%11s" % "-"
                        for c in COLUMNS)
        rs = ratios(r["values"])
        graph = rs.get("tfcompat graph compiled", rs.get("tfcompat graph"))
        notes = [r["note"]] if r["note"] else []
        notes += ["compile %s %.1f s" % (SHORT[k], v) for k, v in r["compile_seconds"].items()]
        print("%-38s %-9s%s%9s%9s  %s" % (
            r["workload"][:38], r["unit"], cells,
            "%.2fx" % rs["tfcompat eager"] if "tfcompat eager" in rs else "-",
            "%.2fx" % graph if graph is not None else "-", "; ".join(notes)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="~30 s smoke run")
    parser.add_argument("--json", help="also write the rows and the machine to this file")
    parser.add_argument("--only", help="comma-separated workloads: " + ",".join(WORKLOADS))
    parser.add_argument("--tf-python", help="python of a real-TF side venv: the deep-graph "
                        "rows (deep, lstm, towers, resnet20) add real TF's Session step")
    parser.add_argument("--default-malloc", action="store_true",
                        help="leave malloc as it is (the runner tunes it)")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        parser.error("unknown workloads %s (choose from %s)" % (unknown, ", ".join(WORKLOADS)))
    tuned = not args.default_malloc and cli.tune_allocator()
    cli.tune_threads()      # as the runner: torch threads on the free cores unless OMP_NUM_THREADS
    info = machine("tuned as under the runner" if tuned else "default")
    print("machine: %s" % ", ".join("%s %s" % kv for kv in info.items()))
    start = time.perf_counter()
    global real_tf
    real_tf = bench_deep.RealTF(args.tf_python) if args.tf_python else None
    rows = []
    try:
        for name in names:
            rows.extend(WORKLOADS[name](args.quick))
    finally:
        if real_tf is not None:
            real_tf.close()
    print_table(rows)
    print("total %.0f s%s" % (time.perf_counter() - start, " (--quick)" if args.quick else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "quick": args.quick, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
