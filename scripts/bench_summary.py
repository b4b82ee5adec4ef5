"""Cost of logging a scalar every step: a tfcompat eager MLP training step (MNIST-sized:
batch 128, 784-256-10, plain SGD through GradientTape) with and without
`tf.summary.scalar("loss", loss, step=step)` (TF2 writer) and `tf.contrib.summary.scalar`
(TF 1.x writer), run interleaved in blocks; medians of the per-step time per block.

The loss is a device tensor, so logging it copies it to the host every step (as TF does).

    python scripts/bench_summary.py [--blocks 15] [--steps 200] [--device cpu|cuda]
"""
import argparse
import statistics
import tempfile
import time

import numpy as np
import torch

import tfcompat as tf
from tfcompat.contrib import summary as contrib_summary
from tfcompat.summary import summary_v2


def build_step(device):
    rng = np.random.RandomState(0)
    with tf.device(device):
        x = tf.constant(rng.rand(128, 784).astype(np.float32))
        y = tf.constant(rng.rand(128, 10).astype(np.float32))
        w1 = tf.Variable(rng.randn(784, 256).astype(np.float32) * 0.05)
        w2 = tf.Variable(rng.randn(256, 10).astype(np.float32) * 0.05)

    def step():
        with tf.GradientTape() as tape:
            hidden = tf.nn.relu(tf.matmul(x, w1))
            loss = tf.reduce_mean(tf.square(tf.matmul(hidden, w2) - y))
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(0.01 * g1)
        w2.assign_sub(0.01 * g2)
        return loss
    return step


def measure(blocks, steps, device_kind):
    """Median seconds per step without logging and with each writer."""
    device = "/gpu:0" if device_kind == "cuda" else "/cpu:0"
    train_step = build_step(device)
    logdir = tempfile.mkdtemp(prefix="bench_summary_")
    writer_v2 = summary_v2.create_file_writer(logdir + "/v2")
    writer_contrib = contrib_summary.create_file_writer(logdir + "/contrib")
    counter = [0]

    def plain():
        train_step()

    def with_v2():
        loss = train_step()
        summary_v2.scalar("loss", loss, step=counter[0])

    def with_contrib():
        loss = train_step()
        contrib_summary.scalar("loss", loss, step=counter[0])

    variants = {"no logging": (plain, None), "tf.summary.scalar (v2)": (with_v2, writer_v2),
                "contrib.summary.scalar": (with_contrib, writer_contrib)}
    times = {name: [] for name in variants}
    for name, (fn, _) in variants.items():      # warm up
        for _ in range(20):
            fn()
    for _ in range(blocks):
        for name, (fn, writer) in variants.items():
            if device_kind == "cuda":
                torch.cuda.synchronize()
            old = summary_v2.state.writer
            summary_v2.state.writer = writer
            with summary_v2.record_if(True):
                start = time.perf_counter()
                for _ in range(steps):
                    fn()
                    counter[0] += 1
                if device_kind == "cuda":
                    torch.cuda.synchronize()
                times[name].append((time.perf_counter() - start) / steps)
            summary_v2.state.writer = old
    writer_v2.close()
    writer_contrib.close()
    return {name: statistics.median(samples) for name, samples in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=15)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    medians = measure(args.blocks, args.steps, args.device)
    base = medians["no logging"]
    print("device %s, %d blocks x %d steps, medians per step:" % (
        args.device, args.blocks, args.steps))
    for name, median in medians.items():
        print("  %-24s %8.1f us   %+6.1f%%" % (name, median * 1e6, 100 * (median / base - 1)))


if __name__ == "__main__":
    main()
