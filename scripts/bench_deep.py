"""Graphs shaped like real TF1 training graphs: deep, many small ops, many variables.

Each workload is a train step written the way TF code writes it and run four ways:
  raw torch eager | tfcompat graph (TF1: placeholders, get_variable / tf.layers-style
  Keras layers, `optimizer.minimize`, `Session.run`) | tfcompat eager (tf.Variable,
  GradientTape, `apply_gradients`) | tfcompat tf.function (the eager step in `tf.function`).
Workloads:
  deep MLP    L layers of `relu(matmul(h, w) + 0.1)` on a [32, 64] batch, MSE, Adam
  static_rnn  BasicLSTMCell(128) unrolled over 28 steps of [b, 28] (MNIST rows), Adam
  dynamic_rnn the same cell under `tf.nn.dynamic_rnn`
  towers      4 towers under `tf.device('/cpu:0')` sharing variables (TF1's multi-GPU
              CIFAR pattern: compute_gradients per tower, averaged, apply_gradients), MLP
              784-256-10 on a quarter of a batch of 128 each, SGD
  ResNet-20   CIFAR ResNet-20 (3 stages x 3 basic blocks, 16/32/64 channels, BN), batch 32,
              momentum 0.9
With `--tf-python` (a real-TF side venv) the TF1 graph step also runs under real
TensorFlow, in a process of its own driven step by step (bench_deep_graphs.py), interleaved
with the rest. Repetitions interleaved, medians reported (scripts/bench.py shows them with
the others).

    python scripts/bench_deep.py [--quick] [--only deep,lstm,towers,resnet20]
                                 [--tf-python /work/tfvenv/bin/python]
"""
import argparse
import os
import subprocess

import torch

import bench_conv
import bench_deep_graphs as graphs
import tfcompat as tf
from tfcompat import cli

v1 = tf.compat.v1
ADAM_LR = graphs.ADAM_LR


def steps_of(torch_step, spec, eager_step):
    """The four variants of a workload: tf.function wraps the eager step."""
    return {"torch eager": torch_step, "tfcompat graph": graphs.graph_step(tf, spec),
            "tfcompat eager": eager_step, "tfcompat tf.function": tf.function(eager_step)}


def eager_train_step(loss_fn, variables, optimizer):
    """A TF2-style step: GradientTape over `loss_fn()`, then `apply_gradients`."""
    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn()
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss
    return step


def torch_train_step(loss_fn, optimizer):
    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn()
        loss.backward()
        optimizer.step()
        return loss
    return step


# ---------------------------------------------------------------- deep MLP


def deep_mlp_steps(layers):
    """The issue's deep MLP: `layers` x relu(matmul(h, w) + 0.1), MSE loss, Adam."""
    x, y, initial = graphs.deep_mlp_data(layers)
    weights = [tf.Variable(value) for value in initial]
    x_tf, y_tf = tf.constant(x), tf.constant(y)

    def eager_loss():
        h = x_tf
        for w in weights:
            h = tf.nn.relu(tf.matmul(h, w) + 0.1)
        return tf.reduce_mean(tf.square(h - y_tf))

    x_t, y_t = torch.from_numpy(x), torch.from_numpy(y)

    def torch_step(fused):
        params = [torch.nn.Parameter(torch.from_numpy(value.copy())) for value in initial]

        def torch_loss():
            h = x_t
            for w in params:
                h = torch.relu(h @ w + 0.1)
            return ((h - y_t) ** 2).mean()
        return torch_train_step(torch_loss, torch.optim.Adam(params, ADAM_LR, fused=fused))
    steps = steps_of(torch_step(None), "deep:%d" % layers,
                     eager_train_step(eager_loss, weights, v1.train.AdamOptimizer(ADAM_LR)))
    # torch's default Adam on the CPU updates one parameter at a time; its fused kernel is
    # what tfcompat's Adam runs
    steps["torch, fused Adam"] = torch_step(True)
    return steps


# ---------------------------------------------------------------- LSTM


def lstm_steps(dynamic, units=128):
    x, labels, out_w = graphs.lstm_data(units=units)
    batch, steps, classes = x.shape[0], x.shape[1], labels.shape[1]
    cell = v1.nn.rnn_cell.BasicLSTMCell(units)
    w, b = tf.Variable(out_w), tf.Variable(tf.zeros([classes]))
    x_tf, y_tf = tf.constant(x), tf.constant(labels)

    def eager_loss():
        return graphs.lstm_loss(tf, dynamic, cell, x_tf, y_tf, w, b)
    eager_loss()     # builds the cell's variables

    lstm = torch.nn.LSTMCell(x.shape[2], units)
    dense = torch.nn.Linear(units, classes)
    x_t, y_t = torch.from_numpy(x), torch.from_numpy(labels)

    def torch_loss():
        h = c = torch.zeros(batch, units)
        for t in range(steps):
            h, c = lstm(x_t[:, t], (h, c))
        return torch.nn.functional.cross_entropy(dense(h), y_t)
    optimizer = torch.optim.Adam(list(lstm.parameters()) + list(dense.parameters()), ADAM_LR)
    return steps_of(torch_train_step(torch_loss, optimizer),
                    "dynamic_rnn" if dynamic else "static_rnn",
                    eager_train_step(eager_loss, cell.trainable_variables + [w, b],
                                     v1.train.AdamOptimizer(ADAM_LR)))


# ---------------------------------------------------------------- towers


def tower_steps(towers=4, lr=0.01):
    x, labels, initial = graphs.tower_data()
    weights = [tf.Variable(v) for v in initial]
    x_parts = tf.split(tf.constant(x), towers)
    y_parts = tf.split(tf.constant(labels), towers)
    eager_optimizer = v1.train.GradientDescentOptimizer(lr)

    def eager_step():
        tower_grads = []
        for xs, ys in zip(x_parts, y_parts):
            with tf.device("/cpu:0"):
                with tf.GradientTape() as tape:
                    loss = graphs.tower_loss(tf, xs, ys, weights)
                tower_grads.append(list(zip(tape.gradient(loss, weights), weights)))
        eager_optimizer.apply_gradients(graphs.average_gradients(tf, tower_grads))

    params = [torch.nn.Parameter(torch.from_numpy(v.copy())) for v in initial]
    x_t, y_t = torch.from_numpy(x).chunk(towers), torch.from_numpy(labels).long().chunk(towers)

    def torch_step():
        grads = [torch.autograd.grad(torch.nn.functional.cross_entropy(
            torch.relu(xs @ params[0] + params[1]) @ params[2] + params[3], ys), params)
            for xs, ys in zip(x_t, y_t)]
        with torch.no_grad():
            for param, *tower in zip(params, *grads):
                param.sub_(lr * torch.stack(tower).mean(0))
    return steps_of(torch_step, "towers", eager_step)


# ---------------------------------------------------------------- ResNet-20


class TorchResNet20(torch.nn.Module):
    """CIFAR ResNet-20 as bench_deep_graphs.KerasResNet20, BN as Keras'."""

    def __init__(self, classes=10):
        super().__init__()
        nn = torch.nn

        def bn(c):
            return nn.BatchNorm2d(c, eps=1e-3, momentum=0.01)
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), bn(16))
        self.blocks = nn.ModuleList()
        channels = 16
        for stage, width in enumerate((16, 32, 64)):
            for block in range(3):
                stride = 2 if stage and not block else 1
                layers = nn.ModuleDict({
                    "conv1": nn.Conv2d(channels, width, 3, stride, 1, bias=False),
                    "bn1": bn(width),
                    "conv2": nn.Conv2d(width, width, 3, 1, 1, bias=False), "bn2": bn(width)})
                if stride != 1 or channels != width:
                    layers["shortcut"] = nn.Conv2d(channels, width, 1, stride, bias=False)
                self.blocks.append(layers)
                channels = width
        self.dense = nn.Linear(64, classes)

    def forward(self, x):
        h = torch.relu(self.stem(x))
        for block in self.blocks:
            out = torch.relu(block["bn1"](block["conv1"](h)))
            out = block["bn2"](block["conv2"](out))
            h = torch.relu(out + (block["shortcut"](h) if "shortcut" in block else h))
        return self.dense(h.mean((2, 3)))


def resnet20_steps(batch=32, classes=10):
    images, labels = graphs.resnet20_data(batch, classes)
    eager_model = graphs.KerasResNet20(tf, classes)
    x_tf, y_tf = tf.constant(images), tf.constant(labels)

    def eager_loss():
        return eager_model.loss(x_tf, y_tf)
    eager_loss()      # builds the layers
    variables = [v for layer in eager_model.layers() for v in layer.trainable_weights]

    model = TorchResNet20(classes).to(memory_format=torch.channels_last)
    x_t = torch.from_numpy(images).permute(0, 3, 1, 2).contiguous(
        memory_format=torch.channels_last)
    y_t = torch.from_numpy(labels).long()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return steps_of(torch_train_step(
        lambda: torch.nn.functional.cross_entropy(model(x_t), y_t), optimizer),
        "resnet20:%d" % batch,
        eager_train_step(eager_loss, variables, v1.train.MomentumOptimizer(0.01, 0.9)))


# ---------------------------------------------------------------- real TensorFlow


class RealTF(object):
    """A real-TensorFlow process (a side venv's python) running bench_deep_graphs' TF1
    graph steps one `Session.run` at a time, for the "real TF graph" column."""

    def __init__(self, python, threads=None):
        env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="2",
                   CUDA_VISIBLE_DEVICES="")
        self.process = subprocess.Popen(
            [python, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "bench_deep_graphs.py")] +
            ([] if threads is None else ["--threads", str(threads)]),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
            text=True)

    def _ask(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        if self.process.stdout.readline().strip() != "ok":
            raise RuntimeError("the real-TF process failed on %r (run bench_deep_graphs.py "
                               "with that python to see why)" % line)

    def step(self, spec):
        self._ask("build " + spec)
        return lambda: self._ask("step")

    def close(self):
        self.process.stdin.close()
        self.process.wait()


# ---------------------------------------------------------------- runs


def workloads(quick):
    """{name: [(title, builder of the steps dict, graph spec, repeats, inner)]}."""
    deep = (10, 50) if quick else (50, 200)
    repeats, inner = (3, 2) if quick else (7, 5)
    batch = 8 if quick else 32
    return {
        "deep": [("deep MLP %d layers b32 Adam step" % n, lambda n=n: deep_mlp_steps(n),
                  "deep:%d" % n, repeats, inner) for n in deep],
        "lstm": [("static_rnn LSTM 28 steps b32 Adam", lambda: lstm_steps(False),
                  "static_rnn", repeats, inner),
                 ("dynamic_rnn LSTM 28 steps b32 Adam", lambda: lstm_steps(True),
                  "dynamic_rnn", repeats, inner)],
        "towers": [("4 towers MLP b128 SGD (avg grads)", tower_steps, "towers", repeats,
                    inner)],
        "resnet20": [("ResNet-20 CIFAR b%d momentum step" % batch,
                      lambda: resnet20_steps(batch), "resnet20:%d" % batch,
                      3 if quick else 5, 1 if quick else 2)],
    }


def measure(name, quick, real_tf=None):
    """[(title, medians in seconds per step)] of the workload `name`; with `real_tf` (a
    RealTF), real TensorFlow's Session step too."""
    results = []
    for title, build, spec, repeats, inner in workloads(quick)[name]:
        steps = build()
        if real_tf is not None:
            steps["real TF graph"] = real_tf.step(spec)
        results.append((title, bench_conv.interleaved(steps, repeats, inner)))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", help="comma-separated: deep,lstm,towers,resnet20")
    parser.add_argument("--tf-python", help="python of a real-TF side venv: adds real TF's "
                        "Session step (TF's default threads)")
    parser.add_argument("--tf-threads", type=int, help="real TF's intra- and inter-op "
                        "threads (ConfigProto), e.g. torch's count for a like-for-like column")
    parser.add_argument("--threads", type=int, help="torch's intra-op threads (default: the "
                        "runner's policy); set in-process, so graphs still choose per module")
    args = parser.parse_args()
    cli.tune_allocator()    # as the runner (and bench.py) do
    cli.tune_threads()
    if args.threads:
        torch.set_num_threads(args.threads)
    print("torch %s, %d threads" % (torch.__version__, torch.get_num_threads()))
    real_tf = RealTF(args.tf_python, args.tf_threads) if args.tf_python else None
    try:
        for name in (args.only.split(",") if args.only else list(workloads(args.quick))):
            for title, medians in measure(name, args.quick, real_tf):
                base = medians["torch eager"]
                print("\n%s (ms/step, medians)" % title)
                for variant, median in medians.items():
                    print("  %-22s %9.3f   %5.2fx torch eager" % (variant, median * 1e3,
                                                                  median / base))
    finally:
        if real_tf is not None:
            real_tf.close()


if __name__ == "__main__":
    main()
