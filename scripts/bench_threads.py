"""Thread policies for small ops: torch intra-op threads 1 vs the default, interleaved.

The train steps of bench.py's graph rows (MLP, CNN, ResNet block, conv inference, deep MLP,
LSTMs, towers, ResNet-20), each run as tfcompat graph (Session.run), tfcompat eager and raw
torch, with torch's intra-op threads switched between 1 and the machine's default
(`torch.set_num_threads`) from one repetition to the next, so both counts see the same
machine load. Graphs make their own choice (framework/thread_choice) during warm-up at the
larger count: their column for that count is what they then run with, one thread or that
count. OpenMP's wait policy is fixed when the process starts: run this once as is
(libgomp spins ~0.3 ms before sleeping) and once under `OMP_WAIT_POLICY=PASSIVE`.

    python scripts/bench_threads.py [--quick] [--repeats 5]
"""
import argparse
import os
import statistics
import time

import numpy as np
import torch

import bench_conv
import bench_deep
import bench_graph
from tfcompat import cli
from tfcompat.framework import thread_choice

VARIANTS = ("torch eager", "tfcompat eager", "tfcompat graph")


def graph_rows(quick):
    """{title: steps} of the workloads, each with the VARIANTS."""
    rng = np.random.RandomState(0)
    x = torch.tensor(rng.randn(64, 784).astype(np.float32))
    labels = torch.tensor(rng.randint(0, 10, 64))
    images = torch.tensor(rng.randn(32, 32, 32, 3).astype(np.float32))
    image_labels = torch.tensor(rng.randint(0, 10, 32))

    def graph_steps(forward_tf, forward_torch, inputs, targets, weights, shape, optimizer):
        return {
            "torch eager": bench_graph.torch_step(forward_torch, inputs, targets, weights,
                                                  optimizer),
            "tfcompat eager": bench_graph.tf_eager_step(forward_tf, inputs, targets, weights,
                                                        optimizer),
            "tfcompat graph": bench_graph.tf_graph_step(forward_tf, inputs, targets, weights,
                                                        shape, optimizer)}
    rows = {
        "MLP Adam": graph_steps(bench_graph.tf_mlp, bench_graph.torch_mlp, x, labels,
                                bench_graph.mlp_weights(rng), [784], "adam"),
        "CNN SGD": graph_steps(bench_graph.tf_cnn, bench_graph.torch_cnn, images,
                               image_labels, bench_graph.cnn_weights(rng), [32, 32, 3], "sgd"),
        "ResNet block": bench_conv.resnet_block_steps(),
        "conv inference b128": bench_conv.conv_inference_steps(),
    }
    for name in ("deep", "lstm", "towers", "resnet20"):
        for title, build, _, _, _ in bench_deep.workloads(quick)[name]:
            rows[title] = build()
    return {title: {v: steps[v] for v in VARIANTS} for title, steps in rows.items()}


def measure(rows, counts, repeats, inner):
    """{title: {(variant, threads): median seconds}}, thread counts interleaved."""
    times = {title: {(v, n): [] for v in steps for n in counts} for title, steps in rows.items()}
    torch.set_num_threads(counts[1])    # graphs make their thread choice at the larger count
    for steps in rows.values():
        for step in steps.values():
            for _ in range(thread_choice.RUNS_TO_CHOOSE):
                step()
    for _ in range(repeats):
        for n in counts:
            torch.set_num_threads(n)
            for title, steps in rows.items():
                for variant, step in steps.items():
                    start = time.perf_counter()
                    for _ in range(inner):
                        step()
                    times[title][variant, n].append((time.perf_counter() - start) / inner)
    return {title: {k: statistics.median(v) for k, v in by.items()} for title, by in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--inner", type=int, default=3)
    args = parser.parse_args()
    cli.tune_allocator()
    default = torch.get_num_threads()
    counts = (1, default) if default > 1 else (1, 2)
    print("torch %s, OMP_WAIT_POLICY=%s, threads %s" % (
        torch.__version__, os.environ.get("OMP_WAIT_POLICY", "unset"), counts))
    results = measure(graph_rows(args.quick), counts, args.repeats, args.inner)
    print("%-38s" % "ms/step" + "".join("%14s" % ("%s %dt" % (v.replace("tfcompat ", ""), n))
                                        for v in VARIANTS for n in counts)
          + "   %dt/1t: torch, eager, graph" % counts[1])
    for title, medians in results.items():
        cells = "".join("%14.3f" % (medians[v, n] * 1e3) for v in VARIANTS for n in counts)
        slow = ", ".join("%.2fx" % (medians[v, counts[1]] / medians[v, 1]) for v in VARIANTS)
        print("%-38s%s   %s" % (title[:38], cells, slow))


if __name__ == "__main__":
    main()
