"""Graph mode against raw PyTorch, measured side by side in one run.

Train steps (forward, softmax cross-entropy, gradients, SGD or Adam update) of a 784-256-10
MLP at batch 64 and a small NHWC CNN at batch 32, run as:
  raw torch eager | raw torch.compile | tfcompat eager (GradientTape) |
  tfcompat graph sess.run(train_op) uncompiled | the same compiled (TFCOMPAT_COMPILE=1).
Repetitions are interleaved and medians reported; compile times are printed separately, and
a 1000-step total (compile included) compares graph mode with eager mode.

Raw torch updates with `torch._foreach_add_` (SGD) or `torch.optim.Adam` (its default
implementation, as a script would write it); tfcompat with tf.train.GradientDescentOptimizer
or tf.train.AdamOptimizer.

    python scripts/bench_graph.py [--repeats 15] [--inner 20] [--no-compile] [--optimizer adam]
"""
import argparse
import os
import statistics
import time

import numpy as np
import torch

import tfcompat as tf

LR = 0.01
ADAM_LR = 0.001
TF_OPTIMIZERS = {"sgd": lambda: tf.train.GradientDescentOptimizer(LR),
                 "adam": lambda: tf.train.AdamOptimizer(ADAM_LR)}


def mlp_weights(rng):
    return [(rng.randn(784, 256) * 0.05).astype(np.float32), np.zeros(256, np.float32),
            (rng.randn(256, 10) * 0.05).astype(np.float32), np.zeros(10, np.float32)]


def cnn_weights(rng):
    return [(rng.randn(3, 3, 3, 16) * 0.1).astype(np.float32), np.zeros(16, np.float32),
            (rng.randn(16 * 16 * 16, 10) * 0.01).astype(np.float32), np.zeros(10, np.float32)]


def tf_mlp(x, w):
    return tf.matmul(tf.nn.relu(tf.matmul(x, w[0]) + w[1]), w[2]) + w[3]


def tf_cnn(x, w):
    h = tf.nn.relu(tf.nn.conv2d(x, w[0], [1, 1, 1, 1], "SAME") + w[1])
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    return tf.matmul(tf.reshape(h, [-1, 16 * 16 * 16]), w[2]) + w[3]


def torch_mlp(x, w):
    return torch.relu(x @ w[0] + w[1]) @ w[2] + w[3]


def torch_cnn(x, w):
    h = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), w[0].permute(3, 2, 0, 1),
                                   padding=1) + w[1].view(1, -1, 1, 1)
    h = torch.nn.functional.max_pool2d(torch.relu(h), 2)
    return h.permute(0, 2, 3, 1).reshape(h.shape[0], -1) @ w[2] + w[3]


def torch_step(forward, x, labels, weights, optimizer="sgd"):
    params = [torch.tensor(w, requires_grad=True) for w in weights]
    if optimizer == "adam":
        adam = torch.optim.Adam(params, lr=ADAM_LR, eps=1e-8)

        def adam_step():
            adam.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(forward(x, params), labels)
            loss.backward()
            adam.step()
            return loss
        return adam_step

    def step():
        loss = torch.nn.functional.cross_entropy(forward(x, params), labels)
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            torch._foreach_add_(params, grads, alpha=-LR)
        return loss
    return step


def tf_eager_step(forward, x, labels, weights, optimizer="sgd"):
    params = [tf.Variable(w) for w in weights]
    x, labels = tf.constant(x.numpy()), tf.constant(labels.numpy().astype(np.int32))
    optimizer = TF_OPTIMIZERS[optimizer]()

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=forward(x, params)))
        optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss
    return step


def tf_graph_step(forward, x, labels, weights, shape, optimizer="sgd"):
    graph = tf.Graph()
    with graph.as_default():
        x_in = tf.placeholder(tf.float32, [None] + shape)
        y_in = tf.placeholder(tf.int32, [None])
        params = [tf.Variable(w) for w in weights]
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y_in, logits=forward(x_in, params)))
        train = TF_OPTIMIZERS[optimizer]().minimize(loss)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
    feed = {x_in: x.numpy(), y_in: labels.numpy().astype(np.int32)}
    return lambda: sess.run(train, feed)


def per_step(step, inner):
    start = time.perf_counter()
    for _ in range(inner):
        step()
    return (time.perf_counter() - start) / inner


def first_call_seconds(step):
    start = time.perf_counter()
    step()
    step()
    return time.perf_counter() - start


def with_compile_env(value, fn):
    saved = os.environ.get("TFCOMPAT_COMPILE")
    os.environ["TFCOMPAT_COMPILE"] = value
    try:
        return fn()
    finally:
        if saved is None:
            del os.environ["TFCOMPAT_COMPILE"]
        else:
            os.environ["TFCOMPAT_COMPILE"] = saved


def measure(forward_tf, forward_torch, x, labels, weights, shape, repeats, inner,
            compile_variants=True, optimizer="sgd"):
    """Median seconds per step of each variant, and compile+first-step seconds."""
    steps = {
        "torch eager": torch_step(forward_torch, x, labels, weights, optimizer),
        "tfcompat eager": tf_eager_step(forward_tf, x, labels, weights, optimizer),
        "tfcompat graph": tf_graph_step(forward_tf, x, labels, weights, shape, optimizer),
    }
    compile_seconds = {}
    if compile_variants:
        torch._dynamo.config.trace_autograd_ops = True
        compiled = torch.compile(torch_step(forward_torch, x, labels, weights, optimizer))
        compile_seconds["torch.compile"] = first_call_seconds(compiled)
        steps["torch.compile"] = compiled
        graph_compiled = tf_graph_step(forward_tf, x, labels, weights, shape, optimizer)
        compile_seconds["tfcompat graph compiled"] = with_compile_env(
            "1", lambda: first_call_seconds(graph_compiled))
        steps["tfcompat graph compiled"] = graph_compiled
    times = {k: [] for k in steps}
    for step_name, step in steps.items():
        env = "1" if step_name == "tfcompat graph compiled" else "0"
        with_compile_env(env, lambda: per_step(step, max(1, inner // 5)))
    for _ in range(repeats):
        for step_name, step in steps.items():
            env = "1" if step_name == "tfcompat graph compiled" else "0"
            times[step_name].append(with_compile_env(env, lambda: per_step(step, inner)))
    return {k: statistics.median(v) for k, v in times.items()}, compile_seconds


def bench(name, forward_tf, forward_torch, x, labels, weights, shape, args):
    medians, compile_seconds = measure(forward_tf, forward_torch, x, labels, weights, shape,
                                       args.repeats, args.inner, not args.no_compile,
                                       args.optimizer)
    base = medians["torch eager"]
    print("\n%s (ms/step, median of %d x %d)" % (name, args.repeats, args.inner))
    for step_name, median in medians.items():
        print("  %-26s %9.3f   %5.2fx torch eager" % (step_name, median * 1e3, median / base))
    for step_name, seconds in compile_seconds.items():
        print("  compile+first step: %-22s %6.1f s" % (step_name, seconds))
    print("  1000 steps: tfcompat eager %.2f s, graph (default policy) %.2f s"
          % (1000 * medians["tfcompat eager"], 1000 * medians["tfcompat graph"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--inner", type=int, default=20)
    parser.add_argument("--no-compile", action="store_true",
                        help="skip torch.compile variants (they take tens of seconds on CPU)")
    parser.add_argument("--optimizer", choices=sorted(TF_OPTIMIZERS), default="sgd")
    args = parser.parse_args()
    rng = np.random.RandomState(0)
    print("torch %s, %d threads, %s" % (torch.__version__, torch.get_num_threads(),
                                        "cuda" if torch.cuda.is_available() else "cpu"))
    x = torch.tensor(rng.randn(64, 784).astype(np.float32))
    labels = torch.tensor(rng.randint(0, 10, 64))
    update = "Adam" if args.optimizer == "adam" else "SGD"
    bench("MLP 784-256-10, batch 64, " + update, tf_mlp, torch_mlp, x, labels,
          mlp_weights(rng), [784], args)
    x = torch.tensor(rng.randn(32, 32, 32, 3).astype(np.float32))
    labels = torch.tensor(rng.randint(0, 10, 32))
    bench("CNN conv3x3x16 + pool + dense, NHWC 32x32x3, batch 32, " + update, tf_cnn,
          torch_cnn, x, labels, cnn_weights(rng), [32, 32, 3], args)


if __name__ == "__main__":
    main()
