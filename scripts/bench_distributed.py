"""Data-parallel train steps with 1 and 2 worker processes: raw PyTorch DDP vs tfcompat's
MultiWorkerMirroredStrategy (a tf.function step under `strategy.run`, gradients all-reduced
by the Keras optimizer), on the same models: the MLP and the a20 CNN+LSTM of bench_keras.py.

Each process count is one job started by torch's elastic launcher (gloo on CPU, NCCL on
GPUs); inside it the two systems' steps alternate, repetitions interleaved, medians of
worker 0 reported. The per-replica batch is fixed (weak scaling), so the 2-process step
does the same work per process plus the gradient all-reduce.

    python scripts/bench_distributed.py [--repeats 5] [--inner 10] [--procs 1,2] [--json F]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

FEATURES, HIDDEN, CLASSES = 100, 128, 10


def _data(batch, rank, image=False):
    rng = np.random.RandomState(rank)
    x = rng.uniform(size=(batch, 784 if image else FEATURES)).astype(np.float32)
    labels = rng.randint(0, CLASSES, size=batch)
    return x, labels


def torch_ddp_step(model, x, labels, device):
    ddp = torch.nn.parallel.DistributedDataParallel(model.to(device))
    optimizer = torch.optim.Adam(ddp.parameters(), lr=1e-3)
    x, y = torch.from_numpy(x).to(device), torch.from_numpy(labels).to(device)

    def step():
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss
    return step


def tfcompat_step(tf, strategy, build, x, labels):
    with strategy.scope():
        model = build()
        optimizer = tf.keras.optimizers.Adam(1e-3)
    x, y = tf.constant(x), tf.constant(labels)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, reduction=tf.keras.losses.Reduction.NONE)

    def replica_step():
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(loss_fn(y, model(x)))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def step():
        return strategy.run(replica_step)
    return step


def worker(args):
    import tfcompat as tf
    import bench_keras
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id or 0
    device = torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() \
        else torch.device("cpu")
    if strategy.num_replicas_in_sync == 1 and not torch.distributed.is_initialized():
        torch.distributed.init_process_group("gloo", init_method="tcp://127.0.0.1:%d"
                                             % args.port, rank=0, world_size=1)
    x, labels = _data(args.batch_size, rank)
    images, image_labels = _data(args.batch_size, rank, image=True)
    mlp = lambda: tf.keras.Sequential([  # noqa: E731
        tf.keras.layers.Dense(HIDDEN, activation="relu", input_shape=(FEATURES,)),
        tf.keras.layers.Dense(CLASSES)])
    torch_mlp = torch.nn.Sequential(torch.nn.Linear(FEATURES, HIDDEN), torch.nn.ReLU(),
                                    torch.nn.Linear(HIDDEN, CLASSES))
    steps = {
        ("MLP", "torch DDP"): torch_ddp_step(torch_mlp, x, labels, device),
        ("MLP", "tfcompat MWMS"): tfcompat_step(tf, strategy, mlp, x, labels),
        ("a20", "torch DDP"): torch_ddp_step(bench_keras.TorchCnnLstm(), images,
                                             image_labels, device),
        ("a20", "tfcompat MWMS"): tfcompat_step(
            tf, strategy, lambda: bench_keras.keras_cnn_lstm(tf, "sigmoid"), images,
            image_labels),
    }
    times = {key: [] for key in steps}
    for step in steps.values():
        for _ in range(3):
            step()
    for _ in range(args.repeats):
        for key, step in steps.items():
            if device.type == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(args.inner):
                step()
            if device.type == "cuda":
                torch.cuda.synchronize()
            times[key].append((time.perf_counter() - start) / args.inner)
    if rank == 0:
        with open(args.out, "w") as f:
            json.dump({"%s|%s" % key: statistics.median(v) for key, v in times.items()}, f)


def run_job(procs, args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "times.json")
        env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
        subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                        "--nproc-per-node", str(procs), os.path.abspath(__file__), "--worker",
                        "--out", out, "--repeats", str(args.repeats), "--inner",
                        str(args.inner), "--batch-size", str(args.batch_size)],
                       check=True, env=env)
        with open(out) as f:
            return {tuple(k.split("|")): v for k, v in json.load(f).items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--inner", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32, help="per replica")
    parser.add_argument("--procs", default="1,2")
    parser.add_argument("--json")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=29533, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    rows = []
    for procs in [int(p) for p in args.procs.split(",")]:
        medians = run_job(procs, args)
        for model in ("MLP", "a20"):
            base, ours = medians[model, "torch DDP"], medians[model, "tfcompat MWMS"]
            rows.append({"model": model, "processes": procs, "torch_ddp_ms": base * 1e3,
                         "tfcompat_ms": ours * 1e3, "ratio": ours / base})
    print("data-parallel train step, per-replica batch %d, %s, OMP_NUM_THREADS=%s"
          % (args.batch_size, "CUDA/NCCL" if torch.cuda.is_available() else "CPU/gloo",
             os.environ.get("OMP_NUM_THREADS", "1")))
    print("%-5s %9s %14s %14s %8s" % ("model", "processes", "torch DDP ms", "tfcompat ms",
                                       "ratio"))
    for r in rows:
        print("%-5s %9d %14.2f %14.2f %7.2fx" % (r["model"], r["processes"], r["torch_ddp_ms"],
                                                  r["tfcompat_ms"], r["ratio"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
