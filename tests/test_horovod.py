"""Horovod's TensorFlow and Keras API (`tfcompat.horovod`): the calls in one process (a job
of one worker), the runner's `horovod.*` imports, and Horovod scripts trained by two
workers (`tfcompat run --nproc-per-node 2`), whose weights must agree with each other and
with one process training on the global batches."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat import _import_hook
from tfcompat.horovod.common import basics
import tfcompat.horovod.keras as hvd_keras
import tfcompat.horovod.tensorflow as hvd
import tfcompat.horovod.tensorflow.keras as hvd_tf_keras

SCRIPTS = os.path.join(os.path.dirname(__file__), "distributed_scripts")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def initialized():
    hvd.init()
    yield
    hvd.shutdown()


def test_queries_before_init_raise_horovods_error():
    hvd.shutdown()
    assert not hvd.is_initialized()
    for query in (hvd.size, hvd.rank, hvd.local_rank, hvd.local_size, hvd.cross_rank,
                  hvd.cross_size):
        with pytest.raises(ValueError, match=r"Horovod has not been initialized; use "
                                             r"hvd.init\(\)."):
            query()
    with pytest.raises(ValueError, match="not been initialized"):
        hvd.allreduce(tf.constant([1.0]))


def test_one_worker_job(initialized):
    assert hvd.is_initialized()
    assert (hvd.size(), hvd.rank(), hvd.local_rank(), hvd.local_size()) == (1, 0, 0, 1)
    assert (hvd.cross_rank(), hvd.cross_size(), hvd.is_homogeneous()) == (0, 1, True)
    assert (hvd.mpi_enabled(), hvd.mpi_built(), hvd.gloo_enabled(), hvd.gloo_built()) == \
        (False, False, True, True)
    assert (hvd.nccl_built() > 0) == (torch.cuda.is_available() and
                                      torch.distributed.is_nccl_available())
    with pytest.raises(ValueError, match="Horovod MPI is not enabled"):
        hvd.mpi_threads_supported()
    with pytest.raises(NotImplementedError, match="comm"):
        hvd.init(comm=[0])


def test_allreduce_of_one_worker(initialized):
    x = tf.constant([1.5, -2.0])
    np.testing.assert_array_equal(hvd.allreduce(x).numpy(), [1.5, -2.0])
    np.testing.assert_array_equal(hvd.allreduce(x, op=hvd.Sum).numpy(), [1.5, -2.0])
    np.testing.assert_array_equal(hvd.allreduce(x, average=False).numpy(), [1.5, -2.0])
    np.testing.assert_array_equal(
        hvd.allreduce(x, prescale_factor=2.0, postscale_factor=3.0).numpy(), [9.0, -12.0])
    # integer tensors are scaled in float64 and truncated, as Horovod's C++ scaling
    np.testing.assert_array_equal(
        hvd.allreduce(tf.constant([3, -5]), postscale_factor=0.5).numpy(), [1, -2])
    # fp16 compression: the collective sees float16, the result has the input's dtype
    result = hvd.allreduce(tf.constant([1.0001, 3.0]), compression=hvd.Compression.fp16)
    assert result.dtype == tf.float32
    np.testing.assert_array_equal(result.numpy(), [1.0, 3.0])
    assert [t.numpy().tolist() for t in hvd.grouped_allreduce(
        [tf.constant([1.0]), tf.constant([2, 3])], op=hvd.Max)] == [[1.0], [2, 3]]
    np.testing.assert_array_equal(hvd.allgather(tf.constant([[1, 2]])).numpy(), [[1, 2]])
    np.testing.assert_array_equal(hvd.broadcast(tf.constant([4.0]), 0).numpy(), [4.0])


def test_allreduce_errors(initialized):
    x = tf.constant([1.0])
    with pytest.raises(ValueError, match="supersedes average"):
        hvd.allreduce(x, average=True, op=hvd.Sum)
    with pytest.raises(NotImplementedError, match="Adasum"):
        hvd.allreduce(x, op=hvd.Adasum)
    with pytest.raises(NotImplementedError, match="alltoall"):
        hvd.alltoall(x)
    with pytest.raises(NotImplementedError, match="join"):
        hvd.join()
    assert (hvd.Average, hvd.Sum, hvd.Adasum, hvd.Min, hvd.Max, hvd.Product) == \
        (0, 1, 2, 3, 4, 5)


def test_allreduce_in_a_graph_and_its_gradient(initialized):
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        total = hvd.allreduce(x * x, op=hvd.Sum)
        grad, = tf.gradients(tf.reduce_sum(total), [x])
        with tf.compat.v1.Session() as sess:
            values, gradient = sess.run([total, grad], {x: [1.0, 3.0]})
    np.testing.assert_array_equal(values, [1.0, 9.0])
    np.testing.assert_array_equal(gradient, [2.0, 6.0])
    v = tf.Variable([2.0])
    with tf.GradientTape() as tape:
        y = hvd.allreduce(v * v)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [4.0])


def test_indexed_slices_are_gathered(initialized):
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([3]), tf.constant([5, 2]))
    result = hvd.allreduce(slices)
    assert isinstance(result, tf.IndexedSlices)
    np.testing.assert_array_equal(result.values.numpy(), [[1.0, 2.0]])
    np.testing.assert_array_equal(result.indices.numpy(), [3])


def test_tf1_distributed_optimizer_delegates(initialized):
    momentum = tf.compat.v1.train.MomentumOptimizer(0.1, 0.9)
    optimizer = hvd.DistributedOptimizer(momentum)
    assert isinstance(optimizer, tf.compat.v1.train.Optimizer)
    assert optimizer.get_name() == "DistributedMomentumOptimizer"
    with tf.Graph().as_default():
        w = tf.compat.v1.get_variable("w", initializer=tf.constant([1.0, 2.0]))
        loss = tf.reduce_sum(w * w)
        (grad, var), = optimizer.compute_gradients(loss, var_list=[w])
        train = optimizer.apply_gradients([(grad, var)])
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(grad), [2.0, 4.0])
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), [0.8, 1.6])
            assert optimizer.get_slot(w, "momentum") is momentum.get_slot(w, "momentum")
            assert optimizer.get_slot_names() == ["momentum"]
    with pytest.raises(ValueError, match="doesn't inherit"):
        hvd.DistributedOptimizer(object())
    with pytest.raises(NotImplementedError, match="backward_passes_per_step"):
        hvd.DistributedOptimizer(momentum, backward_passes_per_step=2)


def test_distributed_gradient_tape(initialized):
    v = tf.Variable([1.0, -3.0])
    with tf.GradientTape() as plain:
        loss = tf.reduce_sum(v * v)
    tape = hvd.DistributedGradientTape(plain)
    assert isinstance(tape, tf.GradientTape) and type(tape).__name__ == "GradientTape"
    grads = tape.gradient(loss, {"v": v})
    np.testing.assert_array_equal(grads["v"].numpy(), [2.0, -6.0])


def test_keras_distributed_optimizer_is_a_subclass_and_reduces_once(initialized):
    sgd = tf.keras.optimizers.SGD(0.5, momentum=0.9)
    for module in (hvd, hvd_tf_keras, hvd_keras):
        optimizer = module.DistributedOptimizer(sgd)
        assert isinstance(optimizer, tf.keras.optimizers.SGD)
        assert type(optimizer).__name__ == "SGD" and optimizer is not sgd
        assert optimizer.get_config() == sgd.get_config()
    calls = []
    reduce = optimizer._allreduce_grads
    optimizer._allreduce_grads = lambda grads: calls.append(len(grads)) or reduce(grads)
    v = tf.Variable([1.0, 2.0])
    # fit and minimize: reduced in _compute_gradients, not again in apply_gradients
    optimizer.minimize(lambda: tf.reduce_sum(v * v), [v])
    assert calls == [1]
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])
    # gradients of a plain tape given to apply_gradients are reduced there
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v)
    optimizer.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
    assert calls == [1, 1]


def _fit(model, callbacks, epochs=3, batches=2):
    x = np.arange(8 * batches, dtype=np.float32).reshape(4 * batches, 2) / 10
    y = x.sum(axis=1, keepdims=True)
    return model.fit(x, y, batch_size=4, epochs=epochs, callbacks=callbacks, verbose=0,
                     shuffle=False)


def _model(optimizer):
    tf.random.set_seed(3)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile(optimizer=optimizer, loss="mse")
    return model


def test_learning_rate_schedule_callback(initialized):
    optimizer = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    model = _model(hvd_tf_keras.DistributedOptimizer(optimizer))
    seen = []

    class Momentum(tf.keras.callbacks.Callback):
        def on_batch_begin(self, batch, logs=None):
            seen.append(round(float(tf.keras.backend.get_value(model.optimizer.momentum)), 6))

    schedule = hvd_tf_keras.callbacks.LearningRateScheduleCallback(
        initial_lr=0.1, multiplier=0.5, start_epoch=1)
    history = _fit(model, [schedule, Momentum()])
    np.testing.assert_allclose(history.history["lr"], [0.1, 0.05, 0.025], rtol=1e-6)
    # momentum corrected by new_lr / old_lr on the batch where the rate changes
    assert seen == [0.9, 0.9, 0.45, 0.9, 0.45, 0.9]


def test_learning_rate_warmup_callback(initialized, monkeypatch):
    monkeypatch.setattr(basics, "size", lambda: 4)
    model = _model(tf.keras.optimizers.SGD(0.1))
    warmup = hvd_keras.callbacks.LearningRateWarmupCallback(initial_lr=0.1, warmup_epochs=2)
    history = _fit(model, [warmup])
    # lr = initial / size * (epoch * (size - 1) / warmup_epochs + 1) with epoch counted at
    # each batch (+ 1/steps): 0.0625 after epoch 0, 0.1 after epoch 1, then kept
    np.testing.assert_allclose(history.history["lr"], [0.0625, 0.1, 0.1], rtol=1e-6)


def test_broadcast_and_metric_average_callbacks_in_one_process(initialized):
    model = _model(hvd_tf_keras.DistributedOptimizer(tf.keras.optimizers.Adam(0.01)))
    broadcast = hvd_tf_keras.callbacks.BroadcastGlobalVariablesCallback(0)
    history = _fit(model, [broadcast, hvd_tf_keras.callbacks.MetricAverageCallback()],
                   epochs=1)
    assert broadcast.broadcast_done
    assert len(model.optimizer.variables()) == 5   # iterations, m and v of kernel and bias
    assert isinstance(history.history["loss"][0], float)


def test_runner_resolves_horovod_imports():
    finder = _import_hook.TensorFlowFinder()
    for name, module in (("horovod.tensorflow", hvd), ("horovod.tensorflow.keras", hvd_tf_keras),
                         ("horovod.keras", hvd_keras),
                         ("horovod.keras.callbacks", hvd_keras.callbacks)):
        assert finder.find_spec(name).loader.module is module
    with pytest.raises(ModuleNotFoundError, match="horovod.tensorflow, horovod.tensorflow.keras"):
        finder.find_spec("horovod.torch")
    assert finder.find_spec("horovodx") is None


def _run(args, cwd):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=REPO)
    done = subprocess.run([sys.executable, "-m", "tfcompat"] + args, cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    assert done.returncode == 0, done.stdout.decode()[-3000:]


def _train(script, tmp_path, *args):
    """(weights of one process, weights of worker 0, of worker 1); outputs as OUT % rank."""
    single, double = str(tmp_path / "single%s"), str(tmp_path / "double%s")
    _run([os.path.join(SCRIPTS, script), single] + list(args), tmp_path)
    _run(["run", "--nproc-per-node", "2", os.path.join(SCRIPTS, script), double] + list(args),
         tmp_path)
    return single % 0, double % 0, double % 1


@pytest.mark.parametrize("how", ["hook", "op"])
def test_tf1_horovod_script_on_two_workers(tmp_path, how):
    one, first, second = [np.load(p + ".npy") for p in _train("horovod_tf1.py", tmp_path, how)]
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first, one, atol=1e-5)


@pytest.mark.parametrize("module", ["tensorflow.keras", "keras"])
def test_keras_horovod_script_on_two_workers(tmp_path, module):
    paths = _train("horovod_keras.py", tmp_path, module)
    one, first, second = [np.load(p + ".npy") for p in paths]
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first, one, atol=1e-5)
    logs = [json.load(open(p + ".json")) for p in paths]
    assert logs[1] == logs[2]                    # MetricAverageCallback: the job's metrics
    for name in ("loss", "accuracy"):            # = one process's on the global batches
        np.testing.assert_allclose(logs[1]["history"][name], logs[0]["history"][name],
                                   atol=1e-5)
    assert logs[1]["optimizer"] == "SGD" and logs[1]["slots"] == 5


def test_tf2_custom_loop_horovod_script_on_two_workers(tmp_path):
    one, first, second = [np.load(p + ".npy") for p in _train("horovod_tf2_loop.py", tmp_path,
                                                              "shared")]
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first, one, atol=1e-5)
    # own initial weights: broadcast in the tf.function after the first step aligns them
    own = str(tmp_path / "own%s")
    _run(["run", "--nproc-per-node", "2", os.path.join(SCRIPTS, "horovod_tf2_loop.py"), own,
          "own"], tmp_path)
    first, second = np.load(own % 0 + ".npy"), np.load(own % 1 + ".npy")
    np.testing.assert_array_equal(first, second)
    assert np.abs(first - one).max() > 1e-3
