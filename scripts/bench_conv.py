"""NHWC convolutions: inference and a ResNet-style block train step, tfcompat vs raw PyTorch.

1. Inference, batch 128, NHWC 32x32x3 -> conv 3x3x64 SAME -> relu -> max_pool 2x2:
   torch NCHW (input already NCHW), torch channels_last, tfcompat eager (`tf.nn.conv2d` on
   the NHWC tensor), tfcompat graph (Session.run).
2. Train step of a ResNet basic block, batch 32, NHWC 16x16x32: conv3x3-BN-relu-conv3x3-BN,
   + identity, relu, global average pool, dense 10, softmax cross-entropy, SGD momentum 0.9.
   torch.nn (channels_last) vs tfcompat eager (tf.keras layers, GradientTape) vs tfcompat
   graph (the same layers in a tf.Graph, minimize + BN updates, Session.run).
Repetitions interleaved, medians reported.

    python scripts/bench_conv.py [--repeats 10] [--inner 5]
"""
import argparse
import statistics
import time

import numpy as np
import torch

import tfcompat as tf
from tfcompat.framework import thread_choice


def per_step(step, inner):
    start = time.perf_counter()
    for _ in range(inner):
        step()
    return (time.perf_counter() - start) / inner


def interleaved(steps, repeats, inner):
    """Median seconds per call of each step, repetitions interleaved, after warm-up runs that
    let graph modules choose their threads (framework/thread_choice)."""
    for step in steps.values():
        per_step(step, thread_choice.RUNS_TO_CHOOSE)
    times = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            times[name].append(per_step(step, inner))
    return {name: statistics.median(values) for name, values in times.items()}


# ---------------------------------------------------------------- inference


def conv_inference_steps(batch=128):
    rng = np.random.RandomState(0)
    images = rng.rand(batch, 32, 32, 3).astype(np.float32)
    kernel = (rng.randn(3, 3, 3, 64) * 0.1).astype(np.float32)
    nchw = torch.from_numpy(images).permute(0, 3, 1, 2).contiguous()
    weight = torch.from_numpy(kernel).permute(3, 2, 0, 1).contiguous()
    channels_last = nchw.to(memory_format=torch.channels_last)
    weight_cl = weight.to(memory_format=torch.channels_last)

    def torch_forward(x, w):
        with torch.no_grad():
            return torch.nn.functional.max_pool2d(
                torch.relu(torch.nn.functional.conv2d(x, w, padding=1)), 2)

    x_tf, k_tf = tf.constant(images), tf.constant(kernel)

    def tf_forward(x, k):
        h = tf.nn.relu(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"))
        return tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")

    graph = tf.Graph()
    with graph.as_default():
        x_in = tf.compat.v1.placeholder(tf.float32, [None, 32, 32, 3])
        out = tf_forward(x_in, tf.constant(kernel))
        sess = tf.compat.v1.Session(graph=graph)
    return {
        "torch eager": lambda: torch_forward(nchw, weight),
        "torch channels_last": lambda: torch_forward(channels_last, weight_cl),
        "tfcompat eager": lambda: tf_forward(x_tf, k_tf),
        "tfcompat graph": lambda: sess.run(out, {x_in: images}),
    }


# ---------------------------------------------------------------- ResNet block


class TorchBlock(torch.nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(channels, eps=1e-3, momentum=0.01)
        self.conv2 = torch.nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(channels, eps=1e-3, momentum=0.01)
        self.dense = torch.nn.Linear(channels, classes)

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        h = torch.relu(self.bn2(self.conv2(h)) + x)
        return self.dense(h.mean((2, 3)))


def keras_block(channels, classes):
    layers = tf.keras.layers
    return [layers.Conv2D(channels, 3, padding="same", use_bias=False),
            layers.BatchNormalization(),
            layers.Conv2D(channels, 3, padding="same", use_bias=False),
            layers.BatchNormalization(),
            layers.GlobalAveragePooling2D(),
            layers.Dense(classes)]


def keras_forward(block, x, training=True):
    conv1, bn1, conv2, bn2, pool, dense = block
    h = tf.nn.relu(bn1(conv1(x), training=training))
    h = tf.nn.relu(bn2(conv2(h), training=training) + x)
    return dense(pool(h))


def resnet_block_steps(batch=32, channels=32, size=16, classes=10):
    rng = np.random.RandomState(0)
    images = rng.randn(batch, size, size, channels).astype(np.float32)
    labels = rng.randint(0, classes, batch)

    model = TorchBlock(channels, classes).to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x_torch = torch.from_numpy(images).permute(0, 3, 1, 2).contiguous(
        memory_format=torch.channels_last)
    y_torch = torch.from_numpy(labels)

    def torch_step():
        loss = torch.nn.functional.cross_entropy(model(x_torch), y_torch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    eager_block = keras_block(channels, classes)
    eager_optimizer = tf.compat.v1.train.MomentumOptimizer(0.01, 0.9)
    x_tf, y_tf = tf.constant(images), tf.constant(labels.astype(np.int32))

    def eager_step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y_tf, logits=keras_forward(eager_block, x_tf)))
        variables = [v for layer in eager_block for v in layer.trainable_weights]
        eager_optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))

    graph = tf.Graph()
    with graph.as_default():
        x_in = tf.compat.v1.placeholder(tf.float32, [None, size, size, channels])
        y_in = tf.compat.v1.placeholder(tf.int32, [None])
        graph_block = keras_block(channels, classes)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y_in, logits=keras_forward(graph_block, x_in)))
        updates = [u for layer in graph_block for u in layer.updates]
        with tf.control_dependencies(updates):
            train = tf.compat.v1.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
        sess = tf.compat.v1.Session(graph=graph)
        sess.run(tf.compat.v1.global_variables_initializer())
    feed = {x_in: images, y_in: labels.astype(np.int32)}
    return {"torch eager": torch_step, "tfcompat eager": eager_step,
            "tfcompat graph": lambda: sess.run(train, feed)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--inner", type=int, default=5)
    args = parser.parse_args()
    print("torch %s, %d threads, cpu" % (torch.__version__, torch.get_num_threads()))
    for title, steps in (("NHWC conv+pool inference, batch 128", conv_inference_steps()),
                         ("ResNet block train step, batch 32", resnet_block_steps())):
        medians = interleaved(steps, args.repeats, args.inner)
        base = medians["torch eager"]
        print("\n%s (ms, median of %d x %d)" % (title, args.repeats, args.inner))
        for name, median in medians.items():
            print("  %-22s %9.3f   %5.2fx torch eager" % (name, median * 1e3, median / base))


if __name__ == "__main__":
    main()
