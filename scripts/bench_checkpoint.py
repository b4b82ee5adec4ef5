"""Checkpoint save/restore time of a 100M-parameter model: tfcompat vs torch.save/torch.load.

The model is 25 float32 variables of 4M values (400 MB). Measured, interleaved, medians:

- tfcompat `tf.train.Saver(max_to_keep=1).save(..., global_step=i)` (safetensors + CRC32C
  per tensor + fsync + atomic rename + state file, then the previous checkpoint deleted) vs
  `torch.save` of the same tensors to a new file each time with the previous one deleted,
  without fsync (as torch.save does) and with fsync (the same durability as ours);
- tfcompat restore (read, verify checksums, assign into the variables) vs `torch.load` +
  `copy_` into the same tensors;
- restore of a TensorFlow-format checkpoint of the same values (written with
  `tensor_bundle.write_bundle`, read natively with CRC32C checks).

Files are read back from the page cache (the same for both sides).

    python scripts/bench_checkpoint.py [--repeats 5] [--tensors 25] [--size 4194304]
"""
import argparse
import os
import statistics
import tempfile
import time

import numpy as np
import torch

import tfcompat as tf
from tfcompat.train import tensor_bundle

v1 = tf.compat.v1


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(tensors, size, repeats, directory=None):
    """Median seconds of each save/restore variant, and the checkpoint size in MB."""
    gen = torch.Generator().manual_seed(0)
    values = [torch.randn(size, generator=gen) for _ in range(tensors)]
    variables = [tf.Variable(v, name="layer_%02d/kernel" % i) for i, v in enumerate(values)]
    saver = v1.train.Saver(variables, max_to_keep=1)
    targets = {"layer_%02d/kernel" % i: torch.empty_like(v) for i, v in enumerate(values)}
    mb = sum(v.numel() * 4 for v in values) / 2 ** 20

    with tempfile.TemporaryDirectory(dir=directory) as d:
        ours = os.path.join(d, "ours.ckpt")
        theirs = os.path.join(d, "torch.pt")
        tf_prefix = os.path.join(d, "tf.ckpt")
        tensor_bundle.write_bundle(tf_prefix, {v._shared_name: v._leaf for v in variables})
        tf_saver = v1.train.Saver(variables)
        state = {"layer_%02d/kernel" % i: v for i, v in enumerate(values)}

        counter = [0]

        def torch_save(fsync):
            counter[0] += 1
            path = "%s-%d" % (theirs, counter[0])
            torch.save(state, path)
            if fsync:
                fd = os.open(path, os.O_RDONLY)
                os.fsync(fd)
                os.close(fd)
            if counter[0] > 1:
                os.remove("%s-%d" % (theirs, counter[0] - 1))

        def torch_restore():
            loaded = torch.load("%s-%d" % (theirs, counter[0]))
            with torch.no_grad():
                for k, t in targets.items():
                    t.copy_(loaded[k])

        times = {k: [] for k in ("ours save", "torch.save", "torch.save+fsync", "ours restore",
                                 "torch.load+copy", "TF-format restore")}
        for step in range(repeats):
            times["ours save"].append(timed(lambda: saver.save(None, ours, global_step=step)))
            times["torch.save"].append(timed(lambda: torch_save(False)))
            times["torch.save+fsync"].append(timed(lambda: torch_save(True)))
            latest = "%s-%d" % (ours, step)
            times["ours restore"].append(timed(lambda: saver.restore(None, latest)))
            times["torch.load+copy"].append(timed(torch_restore))
            times["TF-format restore"].append(timed(lambda: tf_saver.restore(None, tf_prefix)))
        for v, want in zip(variables, values):
            assert torch.equal(v._leaf, want)

    return {k: statistics.median(v) for k, v in times.items()}, mb


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tensors", type=int, default=25)
    parser.add_argument("--size", type=int, default=4 * 1024 * 1024)
    parser.add_argument("--dir", default=None, help="where to write (default: a temp dir)")
    args = parser.parse_args()
    med, mb = measure(args.tensors, args.size, args.repeats, args.dir)
    print("%d tensors x %d float32 = %.0f MB, %d interleaved repeats, medians:"
          % (args.tensors, args.size, mb, args.repeats))
    for k, m in med.items():
        print("  %-18s %7.3f s  %7.0f MB/s" % (k, m, mb / m))
    print("ratios: save ours/torch.save %.2fx, ours/torch.save+fsync %.2fx; restore "
          "ours/torch.load %.2fx, TF-format/torch.load %.2fx"
          % (med["ours save"] / med["torch.save"], med["ours save"] / med["torch.save+fsync"],
             med["ours restore"] / med["torch.load+copy"],
             med["TF-format restore"] / med["torch.load+copy"]))


if __name__ == "__main__":
    main()
