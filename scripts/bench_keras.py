"""Keras models in tfcompat against the same models in raw PyTorch, interleaved, medians.

    .venv/bin/python scripts/bench_keras.py [--model mlp|a20|all] [--repeats 7] [--threads 1]
                                            [--clock wall|cpu]

mlp: Keras `fit` vs a hand-written PyTorch loop. Both sides: Dense(128, relu) ->
Dense(10, softmax), Adam(1e-3), sparse categorical cross-entropy, accuracy accumulated on the
device, batch 32, shuffled each epoch; one measured run is one epoch.

a20: the CNN+LSTM of acceptance case a20 (Conv2D 32x5x5, pool, Conv2D 64x5x5, pool, the 64
channels as 64 time steps of 49 features into LSTM(32), Dense(10)), one Adam train step on a
batch of 32: torch.nn (NCHW and channels_last) vs tfcompat eager (GradientTape) vs tfcompat
graph (Session.run of a train_op). The Keras LSTM has its flavour's default
`recurrent_activation` (hard sigmoid under v1, as a20 runs) unless `--recurrent-activation`
says otherwise; torch.nn.LSTM always uses the sigmoid.

Prints each side's median and its ratio to the fastest torch variant.
"""
import argparse
import statistics
import time

import numpy as np
import torch


def make_data(samples, features, classes, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(samples, features).astype(np.float32)
    w = rng.randn(features, classes).astype(np.float32)
    y = np.argmax(x @ w, axis=1).astype(np.int64)
    return x, y


class TorchLoop(object):
    """The loop a PyTorch user would write for the same model and metrics."""

    def __init__(self, features, hidden, classes, device):
        self.device = device
        self.model = torch.nn.Sequential(
            torch.nn.Linear(features, hidden), torch.nn.ReLU(),
            torch.nn.Linear(hidden, classes)).to(device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3, eps=1e-7)

    def epoch(self, x, y, batch_size):
        n = x.shape[0]
        order = torch.randperm(n, device=self.device)
        loss_sum = torch.zeros((), device=self.device)
        correct = torch.zeros((), device=self.device)
        for start in range(0, n, batch_size):
            index = order[start:start + batch_size]
            xb, yb = x[index], y[index]
            logits = self.model(xb)
            loss = torch.nn.functional.cross_entropy(logits, yb)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            with torch.no_grad():
                loss_sum += loss.detach() * xb.shape[0]
                correct += (logits.argmax(-1) == yb).sum()
        return float(loss_sum / n), float(correct / n)


def keras_model(tf, hidden, classes):
    keras = tf.keras
    model = keras.Sequential([keras.layers.Dense(hidden, activation="relu"),
                              keras.layers.Dense(classes, activation="softmax")])
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def measure_fit(samples=4096, features=100, hidden=128, classes=10, batch_size=32,
                repeats=7, clock=time.perf_counter):
    """Median seconds per epoch of Keras `fit` and of the hand-written torch loop, the last
    history and torch result, and the device. `clock`: wall time by default;
    `time.process_time` (CPU time) is steadier on a shared machine with one torch thread."""
    import tfcompat as tf
    from tfcompat.framework import context
    device = context.default_device()
    x, y = make_data(samples, features, classes)
    model = keras_model(tf, hidden, classes)
    loop = TorchLoop(features, hidden, classes, device)
    xt = torch.from_numpy(x).to(device)
    yt = torch.from_numpy(y).to(device)

    # warm-up: traces, allocator, kernels
    model.fit(x, y, batch_size=batch_size, epochs=1, verbose=0)
    loop.epoch(xt, yt, batch_size)

    keras_times, torch_times = [], []
    for _ in range(repeats):
        sync(device)
        start = clock()
        history = model.fit(x, y, batch_size=batch_size, epochs=1, verbose=0)
        sync(device)
        keras_times.append(clock() - start)
        start = clock()
        torch_result = loop.epoch(xt, yt, batch_size)
        sync(device)
        torch_times.append(clock() - start)
    return (statistics.median(keras_times), statistics.median(torch_times), history,
            torch_result, device)


def bench_mlp(args):
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    k, t, history, torch_result, device = measure_fit(
        args.samples, args.features, args.hidden, args.classes, args.batch_size, args.repeats,
        clock)
    steps = -(-args.samples // args.batch_size)
    print("MLP fit: device %s, %d samples, batch %d (%d steps/epoch), threads %d, %s time"
          % (device, args.samples, args.batch_size, steps, torch.get_num_threads(),
             args.clock))
    print("keras fit   : %.4f s/epoch (%.1f us/step)  loss %.4f acc %.4f"
          % (k, k / steps * 1e6, history.history["loss"][-1], history.history["accuracy"][-1]))
    print("torch loop  : %.4f s/epoch (%.1f us/step)  loss %.4f acc %.4f"
          % (t, t / steps * 1e6, torch_result[0], torch_result[1]))
    print("ratio keras/torch: %.3f" % (k / t))


# ---------------------------------------------------------------- a20 CNN+LSTM


class TorchCnnLstm(torch.nn.Module):
    """a20's model in torch.nn (channels_last convolutions when its weights are); the 64
    channels become the time steps."""

    def __init__(self, hidden=32, classes=10):
        super(TorchCnnLstm, self).__init__()
        self.conv1 = torch.nn.Conv2d(1, 32, 5, padding=2)
        self.conv2 = torch.nn.Conv2d(32, 64, 5, padding=2)
        self.lstm = torch.nn.LSTM(49, hidden, batch_first=True)
        self.dense = torch.nn.Linear(hidden, classes)

    def forward(self, images):
        x = images.reshape(-1, 1, 28, 28)
        if self.conv1.weight.is_contiguous(memory_format=torch.channels_last):
            x = x.contiguous(memory_format=torch.channels_last)
        x = torch.nn.functional.max_pool2d(self.conv1(x), 2)
        x = torch.nn.functional.max_pool2d(self.conv2(x), 2)
        sequence, _ = self.lstm(x.reshape(x.shape[0], 64, 49))
        return self.dense(sequence[:, -1])


def torch_cnn_lstm_step(images, labels, channels_last):
    model = TorchCnnLstm()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-8)
    images, targets = torch.from_numpy(images), torch.from_numpy(labels.argmax(1))

    def step():
        loss = torch.nn.functional.cross_entropy(model(images), targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss
    return step


def keras_cnn_lstm(tf, recurrent_activation):
    """a20's subclassed model (its layers and the transpose between them)."""
    lstm_kwargs = {} if recurrent_activation is None else {
        "recurrent_activation": recurrent_activation}

    class CnnLstm(tf.keras.Model):
        def __init__(self):
            super(CnnLstm, self).__init__()
            layers = tf.keras.layers
            self.reshape_img = layers.Reshape([28, 28, 1])
            self.conv1 = layers.Conv2D(32, 5, padding="SAME")
            self.pool1 = layers.MaxPool2D(padding="SAME")
            self.conv2 = layers.Conv2D(64, 5, padding="SAME")
            self.pool2 = layers.MaxPool2D(padding="SAME")
            self.reshape_conv = layers.Reshape([49, 64])
            self.lstm = layers.LSTM(units=32, use_bias=True, **lstm_kwargs)
            self.dense = layers.Dense(units=10)

        def call(self, images):
            x = self.pool1(self.conv1(self.reshape_img(images)))
            x = self.reshape_conv(self.pool2(self.conv2(x)))
            return self.dense(self.lstm(tf.transpose(x, perm=[0, 2, 1])))
    return CnnLstm()


def tf_eager_cnn_lstm_step(tf, images, labels, recurrent_activation):
    model = keras_cnn_lstm(tf, recurrent_activation)
    optimizer = tf.train.AdamOptimizer(1e-3)
    images, labels = tf.constant(images), tf.constant(labels)

    def step():
        with tf.GradientTape() as tape:
            loss = tf.losses.softmax_cross_entropy(labels, model(images))
        grads = tape.gradient(loss, model.variables)
        optimizer.apply_gradients(zip(grads, model.variables))
        return loss
    return step, model


def tf_graph_cnn_lstm_step(tf, images, labels, recurrent_activation):
    graph = tf.Graph()
    with graph.as_default():
        images_in = tf.placeholder(tf.float32, [None, 784])
        labels_in = tf.placeholder(tf.float32, [None, 10])
        model = keras_cnn_lstm(tf, recurrent_activation)
        loss = tf.losses.softmax_cross_entropy(labels_in, model(images_in))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        session = tf.Session()
        session.run(tf.global_variables_initializer())
    feed = {images_in: images, labels_in: labels}
    return lambda: session.run(train, feed)


def a20_steps(batch_size=32, recurrent_activation=None):
    """The a20 train step as torch.nn (NCHW, channels_last), tfcompat eager and graph; and
    the eager Keras model (to report its LSTM's activation)."""
    import tfcompat as tf
    rng = np.random.RandomState(0)
    images = rng.uniform(size=(batch_size, 784)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.randint(0, 10, size=batch_size)]
    eager_step, model = tf_eager_cnn_lstm_step(tf, images, labels, recurrent_activation)
    return {
        "torch.nn NCHW": torch_cnn_lstm_step(images, labels, channels_last=False),
        "torch.nn channels_last": torch_cnn_lstm_step(images, labels, channels_last=True),
        "tfcompat eager": eager_step,
        "tfcompat graph": tf_graph_cnn_lstm_step(tf, images, labels, recurrent_activation),
    }, model


def bench_a20(args):
    steps, model = a20_steps(args.batch_size, args.recurrent_activation)
    times = {name: [] for name in steps}
    for step in steps.values():         # warm-up: build, allocator, kernels
        for _ in range(3):
            step()
    for _ in range(args.repeats):
        for name, step in steps.items():
            start = time.perf_counter()
            for _ in range(args.inner):
                step()
            times[name].append((time.perf_counter() - start) / args.inner)
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = min(medians["torch.nn NCHW"], medians["torch.nn channels_last"])
    activation = model.lstm.cell.recurrent_activation.__name__
    print("a20 CNN+LSTM train step (Adam), batch %d, threads %d; Keras LSTM "
          "recurrent_activation=%s (torch.nn.LSTM: sigmoid); median of %d x %d steps"
          % (args.batch_size, torch.get_num_threads(), activation, args.repeats, args.inner))
    for name, median in medians.items():
        print("  %-24s %8.2f ms   %5.2fx best torch" % (name, median * 1e3, median / base))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("mlp", "a20", "all"), default="all")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--inner", type=int, default=5,
                        help="a20: train steps per measured repetition")
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--recurrent-activation", default=None,
                        help="a20: the Keras LSTM's recurrent_activation (default: the "
                             "flavour's default, hard_sigmoid under v1)")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch CPU threads (0: leave torch's default)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="mlp: wall time, or the process's CPU time (steadier on a "
                             "shared machine; meaningful with --threads 1 on the CPU)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.model in ("mlp", "all"):
        bench_mlp(args)
    if args.model in ("a20", "all"):
        bench_a20(args)


if __name__ == "__main__":
    main()
