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
Repetitions interleaved, medians reported (scripts/bench.py shows them with the others).

    python scripts/bench_deep.py [--quick] [--only deep,lstm,towers,resnet20]
"""
import argparse

import numpy as np
import torch

import bench_conv
import tfcompat as tf

v1 = tf.compat.v1
ADAM_LR = 1e-3


def steps_of(torch_step, graph_step, eager_step):
    """The four variants of a workload: tf.function wraps the eager step."""
    return {"torch eager": torch_step, "tfcompat graph": graph_step,
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


def deep_mlp_forward(h, weights):
    for w in weights:
        h = tf.nn.relu(tf.matmul(h, w) + 0.1)
    return h


def deep_mlp_steps(layers, batch=32, width=64):
    """The issue's deep MLP: `layers` x relu(matmul(h, w) + 0.1), MSE loss, Adam."""
    rng = np.random.RandomState(0)
    x = rng.randn(batch, width).astype(np.float32)
    y = rng.randn(batch, width).astype(np.float32)
    initial = [(rng.randn(width, width) * 0.1).astype(np.float32) for _ in range(layers)]

    graph = tf.Graph()
    with graph.as_default():
        x_in = v1.placeholder(tf.float32, [None, width])
        y_in = v1.placeholder(tf.float32, [None, width])
        h = x_in
        for i, value in enumerate(initial):
            w = v1.get_variable("w%d" % i, initializer=value)
            h = tf.nn.relu(tf.matmul(h, w) + 0.1)
        loss = tf.reduce_mean(tf.square(h - y_in))
        train = v1.train.AdamOptimizer(ADAM_LR).minimize(loss)
        sess = v1.Session(graph=graph)
        sess.run(v1.global_variables_initializer())
    feed = {x_in: x, y_in: y}

    weights = [tf.Variable(value) for value in initial]
    x_tf, y_tf = tf.constant(x), tf.constant(y)
    eager_step = eager_train_step(
        lambda: tf.reduce_mean(tf.square(deep_mlp_forward(x_tf, weights) - y_tf)), weights,
        v1.train.AdamOptimizer(ADAM_LR))

    params = [torch.nn.Parameter(torch.from_numpy(value.copy())) for value in initial]
    x_t, y_t = torch.from_numpy(x), torch.from_numpy(y)

    def torch_loss():
        h = x_t
        for w in params:
            h = torch.relu(h @ w + 0.1)
        return ((h - y_t) ** 2).mean()
    return steps_of(torch_train_step(torch_loss, torch.optim.Adam(params, ADAM_LR)),
                    lambda: sess.run(train, feed), eager_step)


# ---------------------------------------------------------------- LSTM


def lstm_steps(dynamic, batch=32, units=128, steps=28, classes=10):
    """An MNIST-rows LSTM classifier (aymericdamien's recurrent_network.py shape)."""
    rng = np.random.RandomState(0)
    x = rng.rand(batch, steps, 28).astype(np.float32)
    labels = np.eye(classes, dtype=np.float32)[rng.randint(0, classes, batch)]
    out_w = (rng.randn(units, classes) * 0.1).astype(np.float32)

    def logits(cell, inputs, w, b):
        if dynamic:
            outputs, _ = v1.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
            last = outputs[:, -1]
        else:
            outputs, _ = v1.nn.static_rnn(cell, tf.unstack(inputs, steps, 1), dtype=tf.float32)
            last = outputs[-1]
        return tf.matmul(last, w) + b

    def loss_of(cell, inputs, targets, w, b):
        return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
            labels=targets, logits=logits(cell, inputs, w, b)))

    graph = tf.Graph()
    with graph.as_default():
        x_in = v1.placeholder(tf.float32, [None, steps, 28])
        y_in = v1.placeholder(tf.float32, [None, classes])
        w = tf.Variable(out_w)
        b = tf.Variable(tf.zeros([classes]))
        loss = loss_of(v1.nn.rnn_cell.BasicLSTMCell(units), x_in, y_in, w, b)
        train = v1.train.AdamOptimizer(ADAM_LR).minimize(loss)
        sess = v1.Session(graph=graph)
        sess.run(v1.global_variables_initializer())
    feed = {x_in: x, y_in: labels}

    cell = v1.nn.rnn_cell.BasicLSTMCell(units)
    w_e, b_e = tf.Variable(out_w), tf.Variable(tf.zeros([classes]))
    x_tf, y_tf = tf.constant(x), tf.constant(labels)
    loss_of(cell, x_tf, y_tf, w_e, b_e)     # builds the cell's variables
    eager_step = eager_train_step(lambda: loss_of(cell, x_tf, y_tf, w_e, b_e),
                                  cell.trainable_variables + [w_e, b_e],
                                  v1.train.AdamOptimizer(ADAM_LR))

    lstm = torch.nn.LSTMCell(28, units)
    dense = torch.nn.Linear(units, classes)
    x_t, y_t = torch.from_numpy(x), torch.from_numpy(labels)

    def torch_loss():
        h = c = torch.zeros(batch, units)
        for t in range(steps):
            h, c = lstm(x_t[:, t], (h, c))
        return torch.nn.functional.cross_entropy(dense(h), y_t)
    optimizer = torch.optim.Adam(list(lstm.parameters()) + list(dense.parameters()), ADAM_LR)
    return steps_of(torch_train_step(torch_loss, optimizer), lambda: sess.run(train, feed),
                    eager_step)


# ---------------------------------------------------------------- towers


def tower_logits(x, weights):
    w1, b1, w2, b2 = weights
    return tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2


def tower_loss(x, labels, weights):
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=tower_logits(x, weights)))


def average_gradients(tower_grads):
    """TF1's cifar10_multi_gpu_train.average_gradients."""
    averaged = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        averaged.append((tf.reduce_mean(tf.concat(grads, 0), 0), grad_and_vars[0][1]))
    return averaged


def tower_steps(towers=4, batch=128, lr=0.01):
    rng = np.random.RandomState(0)
    x = rng.randn(batch, 784).astype(np.float32)
    labels = rng.randint(0, 10, batch).astype(np.int32)
    initial = [(rng.randn(784, 256) * 0.05).astype(np.float32), np.zeros(256, np.float32),
               (rng.randn(256, 10) * 0.05).astype(np.float32), np.zeros(10, np.float32)]
    names = ("w1", "b1", "w2", "b2")

    graph = tf.Graph()
    with graph.as_default():
        x_in = v1.placeholder(tf.float32, [batch, 784])
        y_in = v1.placeholder(tf.int32, [batch])
        optimizer = v1.train.GradientDescentOptimizer(lr)
        tower_grads = []
        with v1.variable_scope(v1.get_variable_scope()):
            for i, (xs, ys) in enumerate(zip(tf.split(x_in, towers), tf.split(y_in, towers))):
                with tf.device("/cpu:0"), tf.name_scope("tower_%d" % i):
                    weights = [v1.get_variable(n, initializer=v)
                               for n, v in zip(names, initial)]
                    loss = tower_loss(xs, ys, weights)
                    v1.get_variable_scope().reuse_variables()
                    tower_grads.append(optimizer.compute_gradients(loss))
        train = optimizer.apply_gradients(average_gradients(tower_grads))
        sess = v1.Session(graph=graph)
        sess.run(v1.global_variables_initializer())
    feed = {x_in: x, y_in: labels}

    weights = [tf.Variable(v) for v in initial]
    x_parts = tf.split(tf.constant(x), towers)
    y_parts = tf.split(tf.constant(labels), towers)
    eager_optimizer = v1.train.GradientDescentOptimizer(lr)

    def eager_step():
        tower_grads = []
        for xs, ys in zip(x_parts, y_parts):
            with tf.device("/cpu:0"):
                with tf.GradientTape() as tape:
                    loss = tower_loss(xs, ys, weights)
                tower_grads.append(list(zip(tape.gradient(loss, weights), weights)))
        eager_optimizer.apply_gradients(average_gradients(tower_grads))

    params = [torch.nn.Parameter(torch.from_numpy(v.copy())) for v in initial]
    x_t, y_t = torch.from_numpy(x).chunk(towers), torch.from_numpy(labels).long().chunk(towers)

    def torch_step():
        grads = [torch.autograd.grad(torch.nn.functional.cross_entropy(
            torch.relu(xs @ params[0] + params[1]) @ params[2] + params[3], ys), params)
            for xs, ys in zip(x_t, y_t)]
        with torch.no_grad():
            for param, *tower in zip(params, *grads):
                param.sub_(lr * torch.stack(tower).mean(0))
    return steps_of(torch_step, lambda: sess.run(train, feed), eager_step)


# ---------------------------------------------------------------- ResNet-20


class TorchResNet20(torch.nn.Module):
    """CIFAR ResNet-20 (He et al. 2016, 1x1 projection shortcuts), BN as Keras'."""

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


class KerasResNet20(object):
    """The same network from tf.keras layers (usable in a TF1 graph and eagerly)."""

    def __init__(self, classes=10):
        layers = tf.keras.layers

        def conv(width, kernel=3, stride=1):
            return layers.Conv2D(width, kernel, stride, padding="same", use_bias=False)
        self.stem = [conv(16), layers.BatchNormalization()]
        self.blocks = []
        channels = 16
        for stage, width in enumerate((16, 32, 64)):
            for block in range(3):
                stride = 2 if stage and not block else 1
                shortcut = conv(width, 1, stride) if stride != 1 or channels != width else None
                self.blocks.append((conv(width, stride=stride), layers.BatchNormalization(),
                                    conv(width), layers.BatchNormalization(), shortcut))
                channels = width
        self.pool = layers.GlobalAveragePooling2D()
        self.dense = layers.Dense(classes)

    def layers(self):
        found = self.stem + [l for block in self.blocks for l in block if l is not None]
        return found + [self.dense]

    def __call__(self, x, training=True):
        h = tf.nn.relu(self.stem[1](self.stem[0](x), training=training))
        for conv1, bn1, conv2, bn2, shortcut in self.blocks:
            out = tf.nn.relu(bn1(conv1(h), training=training))
            out = bn2(conv2(out), training=training)
            h = tf.nn.relu(out + (shortcut(h) if shortcut is not None else h))
        return self.dense(self.pool(h))


def resnet20_steps(batch=32, classes=10):
    rng = np.random.RandomState(0)
    images = rng.randn(batch, 32, 32, 3).astype(np.float32)
    labels = rng.randint(0, classes, batch).astype(np.int32)

    def loss_of(model, x, y):
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=model(x)))

    graph = tf.Graph()
    with graph.as_default():
        x_in = v1.placeholder(tf.float32, [None, 32, 32, 3])
        y_in = v1.placeholder(tf.int32, [None])
        graph_model = KerasResNet20(classes)
        loss = loss_of(graph_model, x_in, y_in)
        updates = [u for layer in graph_model.layers() for u in layer.updates]
        with tf.control_dependencies(updates):
            train = v1.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
        sess = v1.Session(graph=graph)
        sess.run(v1.global_variables_initializer())
    feed = {x_in: images, y_in: labels}

    eager_model = KerasResNet20(classes)
    x_tf, y_tf = tf.constant(images), tf.constant(labels)
    loss_of(eager_model, x_tf, y_tf)      # builds the layers
    variables = [v for layer in eager_model.layers() for v in layer.trainable_weights]
    eager_step = eager_train_step(lambda: loss_of(eager_model, x_tf, y_tf), variables,
                                  v1.train.MomentumOptimizer(0.01, 0.9))

    model = TorchResNet20(classes).to(memory_format=torch.channels_last)
    x_t = torch.from_numpy(images).permute(0, 3, 1, 2).contiguous(
        memory_format=torch.channels_last)
    y_t = torch.from_numpy(labels).long()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return steps_of(torch_train_step(
        lambda: torch.nn.functional.cross_entropy(model(x_t), y_t), optimizer),
        lambda: sess.run(train, feed), eager_step)


# ---------------------------------------------------------------- runs


def workloads(quick):
    """(title, builder of the steps dict, repeats, inner) of each workload."""
    deep = (10, 50) if quick else (50, 200)
    return {
        "deep": [("deep MLP %d layers b32 Adam step" % n,
                  lambda n=n: deep_mlp_steps(n), 3 if quick else 7, 2 if quick else 5)
                 for n in deep],
        "lstm": [("static_rnn LSTM 28 steps b32 Adam", lambda: lstm_steps(False),
                  3 if quick else 7, 2 if quick else 5),
                 ("dynamic_rnn LSTM 28 steps b32 Adam", lambda: lstm_steps(True),
                  3 if quick else 7, 2 if quick else 5)],
        "towers": [("4 towers MLP b128 SGD (avg grads)", tower_steps,
                    3 if quick else 7, 2 if quick else 5)],
        "resnet20": [("ResNet-20 CIFAR b%d momentum step" % (8 if quick else 32),
                      lambda: resnet20_steps(8 if quick else 32), 3 if quick else 5,
                      1 if quick else 2)],
    }


def measure(name, quick):
    """[(title, medians in seconds per step)] of the workload `name`."""
    return [(title, bench_conv.interleaved(build(), repeats, inner))
            for title, build, repeats, inner in workloads(quick)[name]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", help="comma-separated: deep,lstm,towers,resnet20")
    args = parser.parse_args()
    print("torch %s, %d threads" % (torch.__version__, torch.get_num_threads()))
    for name in (args.only.split(",") if args.only else list(workloads(args.quick))):
        for title, medians in measure(name, args.quick):
            base = medians["torch eager"]
            print("\n%s (ms/step, medians)" % title)
            for variant, median in medians.items():
                print("  %-22s %9.3f   %5.2fx torch eager" % (variant, median * 1e3,
                                                              median / base))


if __name__ == "__main__":
    main()
