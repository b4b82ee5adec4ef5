"""The TF side of bench_deep.py's workloads, written against a `tf` module passed in.

bench_deep.py builds them with tfcompat in its own process; given `--tf-python`, it also
starts this file under real TensorFlow (a side venv without torch) and drives it over a
pipe: `build SPEC` builds a TF1 graph step, `step` runs one `Session.run` of it. So the
real-TF column is interleaved with the others (each timed step includes a pipe round
trip, ~0.05 ms). Nothing here imports torch or tfcompat.
"""
import sys

import numpy as np

ADAM_LR = 1e-3
TOWER_NAMES = ("w1", "b1", "w2", "b2")


# ---------------------------------------------------------------- data


def deep_mlp_data(layers, batch=32, width=64):
    rng = np.random.RandomState(0)
    x = rng.randn(batch, width).astype(np.float32)
    y = rng.randn(batch, width).astype(np.float32)
    return x, y, [(rng.randn(width, width) * 0.1).astype(np.float32) for _ in range(layers)]


def lstm_data(batch=32, units=128, steps=28, classes=10):
    rng = np.random.RandomState(0)
    x = rng.rand(batch, steps, 28).astype(np.float32)
    labels = np.eye(classes, dtype=np.float32)[rng.randint(0, classes, batch)]
    return x, labels, (rng.randn(units, classes) * 0.1).astype(np.float32)


def tower_data(batch=128):
    rng = np.random.RandomState(0)
    x = rng.randn(batch, 784).astype(np.float32)
    labels = rng.randint(0, 10, batch).astype(np.int32)
    initial = [(rng.randn(784, 256) * 0.05).astype(np.float32), np.zeros(256, np.float32),
               (rng.randn(256, 10) * 0.05).astype(np.float32), np.zeros(10, np.float32)]
    return x, labels, initial


def resnet20_data(batch, classes=10):
    rng = np.random.RandomState(0)
    return (rng.randn(batch, 32, 32, 3).astype(np.float32),
            rng.randint(0, classes, batch).astype(np.int32))


# ---------------------------------------------------------------- models


def lstm_loss(tf, dynamic, cell, inputs, targets, w, b):
    """An MNIST-rows LSTM classifier (aymericdamien's recurrent_network.py shape)."""
    v1 = tf.compat.v1
    if dynamic:
        outputs, _ = v1.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
        last = outputs[:, -1]
    else:
        outputs, _ = v1.nn.static_rnn(cell, tf.unstack(inputs, inputs.shape[1], 1),
                                      dtype=tf.float32)
        last = outputs[-1]
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
        labels=targets, logits=tf.matmul(last, w) + b))


def tower_loss(tf, x, labels, weights):
    w1, b1, w2, b2 = weights
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))


def average_gradients(tf, tower_grads):
    """TF1's cifar10_multi_gpu_train.average_gradients."""
    averaged = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        averaged.append((tf.reduce_mean(tf.concat(grads, 0), 0), grad_and_vars[0][1]))
    return averaged


class KerasResNet20(object):
    """CIFAR ResNet-20 (He et al. 2016: 3 stages x 3 basic blocks, 16/32/64 channels, 1x1
    projection shortcuts) from tf.keras layers, usable in a TF1 graph and eagerly."""

    def __init__(self, tf, classes=10):
        self.tf = tf
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

    def loss(self, x, labels, training=True):
        tf = self.tf
        h = tf.nn.relu(self.stem[1](self.stem[0](x), training=training))
        for conv1, bn1, conv2, bn2, shortcut in self.blocks:
            out = tf.nn.relu(bn1(conv1(h), training=training))
            out = bn2(conv2(out), training=training)
            h = tf.nn.relu(out + (shortcut(h) if shortcut is not None else h))
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=self.dense(self.pool(h))))


# ---------------------------------------------------------------- TF1 graph steps


SESSION_THREADS = None      # the real-TF side process's --threads: TF's pools' sizes


def _session_step(tf, graph, train, feed):
    v1 = tf.compat.v1
    config = None if SESSION_THREADS is None else v1.ConfigProto(
        intra_op_parallelism_threads=SESSION_THREADS,
        inter_op_parallelism_threads=SESSION_THREADS)
    with graph.as_default():
        sess = v1.Session(graph=graph, config=config)
        sess.run(v1.global_variables_initializer())
    return lambda: sess.run(train, feed)


def deep_mlp_graph(tf, layers):
    """`layers` x relu(matmul(h, w) + 0.1) on a [32, 64] batch, MSE, AdamOptimizer.minimize."""
    v1 = tf.compat.v1
    x, y, initial = deep_mlp_data(layers)
    graph = tf.Graph()
    with graph.as_default():
        x_in = v1.placeholder(tf.float32, [None, x.shape[1]])
        y_in = v1.placeholder(tf.float32, [None, y.shape[1]])
        h = x_in
        for i, value in enumerate(initial):
            w = v1.get_variable("w%d" % i, initializer=value)
            h = tf.nn.relu(tf.matmul(h, w) + 0.1)
        loss = tf.reduce_mean(tf.square(h - y_in))
        train = v1.train.AdamOptimizer(ADAM_LR).minimize(loss)
    return _session_step(tf, graph, train, {x_in: x, y_in: y})


def lstm_graph(tf, dynamic, units=128):
    v1 = tf.compat.v1
    x, labels, out_w = lstm_data(units=units)
    graph = tf.Graph()
    with graph.as_default():
        x_in = v1.placeholder(tf.float32, [None] + list(x.shape[1:]))
        y_in = v1.placeholder(tf.float32, [None, labels.shape[1]])
        w = tf.Variable(out_w)
        b = tf.Variable(tf.zeros([labels.shape[1]]))
        loss = lstm_loss(tf, dynamic, v1.nn.rnn_cell.BasicLSTMCell(units), x_in, y_in, w, b)
        train = v1.train.AdamOptimizer(ADAM_LR).minimize(loss)
    return _session_step(tf, graph, train, {x_in: x, y_in: labels})


def tower_graph(tf, towers=4, lr=0.01):
    """TF1's multi-GPU pattern on CPU: one tower per split of the batch under
    tf.device('/cpu:0'), variables shared, compute_gradients per tower, averaged."""
    v1 = tf.compat.v1
    x, labels, initial = tower_data()
    graph = tf.Graph()
    with graph.as_default():
        x_in = v1.placeholder(tf.float32, list(x.shape))
        y_in = v1.placeholder(tf.int32, list(labels.shape))
        optimizer = v1.train.GradientDescentOptimizer(lr)
        tower_grads = []
        with v1.variable_scope(v1.get_variable_scope()):
            for i, (xs, ys) in enumerate(zip(tf.split(x_in, towers), tf.split(y_in, towers))):
                with tf.device("/cpu:0"), tf.name_scope("tower_%d" % i):
                    weights = [v1.get_variable(n, initializer=v)
                               for n, v in zip(TOWER_NAMES, initial)]
                    loss = tower_loss(tf, xs, ys, weights)
                    v1.get_variable_scope().reuse_variables()
                    tower_grads.append(optimizer.compute_gradients(loss))
        train = optimizer.apply_gradients(average_gradients(tf, tower_grads))
    return _session_step(tf, graph, train, {x_in: x, y_in: labels})


def resnet20_graph(tf, batch):
    v1 = tf.compat.v1
    images, labels = resnet20_data(batch)
    graph = tf.Graph()
    with graph.as_default():
        x_in = v1.placeholder(tf.float32, [None, 32, 32, 3])
        y_in = v1.placeholder(tf.int32, [None])
        model = KerasResNet20(tf)
        loss = model.loss(x_in, y_in)
        updates = [u for layer in model.layers() for u in layer.updates]
        with tf.control_dependencies(updates):
            train = v1.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
    return _session_step(tf, graph, train, {x_in: images, y_in: labels})


def graph_step(tf, spec):
    """The graph step named `spec`: deep:LAYERS, static_rnn, dynamic_rnn, towers,
    resnet20:BATCH."""
    kind, _, size = spec.partition(":")
    if kind == "deep":
        return deep_mlp_graph(tf, int(size))
    if kind in ("static_rnn", "dynamic_rnn"):
        return lstm_graph(tf, kind == "dynamic_rnn")
    if kind == "towers":
        return tower_graph(tf)
    if kind == "resnet20":
        return resnet20_graph(tf, int(size))
    raise ValueError("unknown workload %r" % spec)


def serve(tf):
    """Answer `build SPEC` and `step` lines from stdin (one `ok` line each)."""
    step = None
    for line in sys.stdin:
        command, _, spec = line.strip().partition(" ")
        if command == "build":
            step = graph_step(tf, spec)
            step()
        elif command == "step":
            step()
        else:
            break
        sys.stdout.write("ok\n")
        sys.stdout.flush()


if __name__ == "__main__":
    import tensorflow
    if len(sys.argv) > 2 and sys.argv[1] == "--threads":
        SESSION_THREADS = int(sys.argv[2])
    serve(tensorflow)
