"""Peak memory of a train step: raw PyTorch vs tfcompat eager vs graph (the a20 CNN+LSTM).

Each variant runs in its own process: the four variants are built (so every process holds
the same weights), the peak resident set is reset (Linux: `/proc/self/clear_refs`), the chosen
variant runs 5 steps, and the peak's growth over the resident set before them is reported:
the step's own footprint (activations, gradients, optimizer temporaries, allocator caches).
On CUDA the same is measured with torch's peak allocator statistics.

    python scripts/bench_memory.py
"""
import argparse
import json
import os
import subprocess
import sys

VARIANTS = ("torch.nn NCHW", "tfcompat eager", "tfcompat graph")


def _status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def measure_here(variant):
    """Peak growth in MB over 5 steps of `variant` in this process."""
    import torch
    import bench_keras
    steps, _ = bench_keras.a20_steps(batch_size=32)
    step = steps[variant]
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        for _ in range(5):
            step()
        torch.cuda.synchronize()
        return (torch.cuda.max_memory_allocated() - before) / 2 ** 20
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")                       # reset the peak resident set (VmHWM)
    before = _status_kb("VmRSS")
    for _ in range(5):
        step()
    return (_status_kb("VmHWM") - before) / 1024


def measure():
    """{variant: peak growth in MB}, each from a fresh process."""
    results = {}
    for variant in VARIANTS:
        out = subprocess.run([sys.executable, __file__, "--variant", variant],
                             capture_output=True, text=True, check=True,
                             cwd=os.path.dirname(os.path.abspath(__file__)))
        results[variant] = json.loads(out.stdout.strip().splitlines()[-1])
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=VARIANTS)
    args = parser.parse_args()
    if args.variant:
        print(json.dumps(measure_here(args.variant)))
        return
    results = measure()
    base = results["torch.nn NCHW"]
    for variant, mb in results.items():
        print("%-18s peak +%7.1f MB   %5.2fx torch" % (variant, mb, mb / base if base else 0))


if __name__ == "__main__":
    main()
