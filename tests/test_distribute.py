"""tf.distribute in one process: contexts, strategies of one replica against real TF's
results, distributed-input splitting, placement from the launchers' environments, cluster
specs and resolvers, and the clear errors of what is not supported."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.distribute import input_lib, launch, multi_worker_util
from tfcompat.distribute.multi_worker_util import Placement
from tfcompat.keras import callbacks

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "distribute")


def test_mirrored_strategy_of_one_replica_gives_real_tf_results(tmp_path):
    """Custom loop (run, reduce, compute_average_loss) and Keras fit/evaluate in the scope of
    a one-replica MirroredStrategy, against real TF 2.21's output of the same script."""
    with open(os.path.join(FIXTURES, "mirrored_single_replica_tf.json")) as f:
        expected = json.load(f)
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.path.dirname(HERE))
    result = subprocess.run(
        [sys.executable, "-m", "tfcompat", os.path.join(FIXTURES, "mirrored_single_replica.py")],
        env=env, capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    ours = json.loads(result.stdout.strip().splitlines()[-1])
    assert ours["replicas"] == expected["replicas"] == 1
    for key in ("loop_losses", "reduce_mean_axis0", "reduce_sum_none", "average_loss",
                "average_loss_weighted", "scale_reg", "evaluate"):
        np.testing.assert_allclose(ours[key], expected[key], rtol=2e-5, err_msg=key)
    for key in ("loop_weights", "fit_weights"):
        for a, b in zip(ours[key], expected[key]):
            np.testing.assert_allclose(a, b, atol=1e-5, err_msg=key)
    for name, values in expected["fit_history"].items():
        np.testing.assert_allclose(ours["fit_history"][name], values, rtol=2e-5)


def test_contexts_outside_in_scope_and_in_run():
    default = tf.distribute.get_strategy()
    assert not tf.distribute.has_strategy()
    assert not tf.distribute.in_cross_replica_context()
    assert tf.distribute.get_replica_context() is not None
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        assert tf.distribute.get_strategy() is strategy and tf.distribute.has_strategy()
        assert tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_replica_context() is None
        v = tf.Variable(2.0)
    assert strategy.extended.variable_created_in_scope(v)

    def step(x):
        ctx = tf.distribute.get_replica_context()
        assert ctx.num_replicas_in_sync == 1 and not tf.distribute.in_cross_replica_context()
        merged = ctx.merge_call(lambda s, y: (s is strategy,
                                              tf.distribute.in_cross_replica_context(), y),
                                args=(x,))
        return ctx.all_reduce("SUM", {"a": x * 2}), ctx.replica_id_in_sync_group, merged

    summed, replica_id, merged = strategy.run(step, args=(tf.constant([1.0, 2.0]),))
    np.testing.assert_array_equal(summed["a"].numpy(), [2.0, 4.0])
    assert replica_id.dtype == tf.int32 and int(replica_id) == 0
    assert merged[0] and merged[1]
    assert tf.distribute.get_strategy() is default
    assert strategy.experimental_local_results(summed["a"])[0] is summed["a"]


def test_mixing_strategies_and_applying_gradients_across_replicas_raise():
    first, second = tf.distribute.OneDeviceStrategy("/cpu:0"), tf.distribute.MirroredStrategy()
    with first.scope():
        with pytest.raises(ValueError, match="Mixing different tf.distribute.Strategy"):
            with second.scope():
                pass
    with second.scope():
        v = tf.Variable([1.0])
        opt = tf.keras.optimizers.SGD(0.1)
        with pytest.raises(RuntimeError, match="cross-replica context"):
            opt.apply_gradients([(tf.constant([1.0]), v)])
        with pytest.raises(RuntimeError, match="compute_average_loss"):
            tf.nn.compute_average_loss([1.0, 2.0])
    second.run(lambda: opt.apply_gradients([(tf.constant([1.0]), v)]))
    np.testing.assert_allclose(v.numpy(), [0.9])


def test_reduce_and_gather_of_one_replica():
    strategy = tf.distribute.MirroredStrategy()
    value = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    np.testing.assert_allclose(strategy.reduce("MEAN", value, axis=0).numpy(), [2.0, 3.5])
    np.testing.assert_allclose(strategy.reduce(tf.distribute.ReduceOp.SUM, value,
                                               axis=None).numpy(), value.numpy())
    np.testing.assert_allclose(strategy.gather(value, axis=0).numpy(), value.numpy())
    with pytest.raises(ValueError, match="ReduceOp"):
        strategy.reduce("MAX", value, axis=None)


def test_compute_average_loss_in_a_graph_equals_eager():
    eager = tf.nn.compute_average_loss([1.0, 2.0, 6.0], sample_weight=[1.0, 0.5, 2.0],
                                       global_batch_size=4).numpy()
    with tf.Graph().as_default():
        loss = tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 6.0]),
                                          sample_weight=tf.constant([1.0, 0.5, 2.0]),
                                          global_batch_size=4)
        with tf.compat.v1.Session() as sess:
            graph = sess.run(loss)
    np.testing.assert_allclose(graph, eager)
    np.testing.assert_allclose(eager, (1.0 + 1.0 + 12.0) / 4)
    with pytest.raises(ValueError, match="at least rank 1"):
        tf.nn.compute_average_loss(3.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="positive"):
        tf.nn.compute_average_loss([1.0], global_batch_size=0)


def test_input_context_and_distributed_values():
    ctx = tf.distribute.InputContext(2, 1, 4)
    assert ctx.get_per_replica_batch_size(64) == 16
    with pytest.raises(ValueError, match="not divisible"):
        ctx.get_per_replica_batch_size(10)
    strategy = tf.distribute.MirroredStrategy()
    seen = []

    def dataset_fn(input_context):
        seen.append((input_context.num_input_pipelines, input_context.input_pipeline_id,
                     input_context.num_replicas_in_sync))
        return tf.data.Dataset.range(6).batch(3)

    batches = [b.numpy().tolist() for b in strategy.distribute_datasets_from_function(dataset_fn)]
    assert seen == [(1, 0, 1)] and batches == [[0, 1, 2], [3, 4, 5]]
    value = strategy.experimental_distribute_values_from_function(
        lambda c: (c.replica_id_in_sync_group, c.num_replicas_in_sync))
    assert value == (0, 1)


def _local_parts(dataset, rank, size):
    distributed = input_lib.DistributedDataset(dataset, Placement(rank, size, rank, size,
                                                                  None, None, None))
    return [np.asarray(e.numpy()).tolist() for e in distributed]


def test_distributed_datasets_split_each_global_batch_as_tf_rebatches():
    assert input_lib.replica_batch_sizes(10, 3) == [4, 3, 3]
    batched = tf.data.Dataset.range(10).batch(4)
    assert _local_parts(batched, 0, 2) == [[0, 1], [4, 5], [8, 9]]
    assert _local_parts(batched, 1, 2) == [[2, 3], [6, 7], []]
    mapped = tf.data.Dataset.range(6).batch(3).map(lambda x: x * 10).prefetch(1)
    assert _local_parts(mapped, 1, 2) == [[20], [50]]
    assert _local_parts(tf.data.Dataset.range(5), 1, 2) == [1, 3]
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = \
        tf.data.experimental.AutoShardPolicy.OFF
    assert _local_parts(batched.with_options(options), 1, 2) == [[0, 1, 2, 3], [4, 5, 6, 7],
                                                                 [8, 9]]
    iterator = iter(input_lib.DistributedDataset(batched, None))
    assert iterator.get_next().numpy().tolist() == [0, 1, 2, 3]
    next(iterator), next(iterator)
    assert not iterator.get_next_as_optional().has_value()
    with pytest.raises(tf.errors.OutOfRangeError):
        iterator.get_next()


def test_placement_from_launcher_environments(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "TF_CONFIG",
                 "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "HOROVOD_RANK",
                 "HOROVOD_SIZE", "PMI_RANK", "PMI_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(name, raising=False)
    assert multi_worker_util.placement().size == 1
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "3")
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1")
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2")
    monkeypatch.setenv("MASTER_ADDR", "10.0.0.1")
    assert multi_worker_util.placement() == Placement(3, 4, 1, 2, "10.0.0.1", 29500,
                                                      "mpirun (Open MPI)")
    for name in ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"):
        monkeypatch.delenv(name)
    cluster = {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"]}
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster,
                                                "task": {"type": "worker", "index": 1}}))
    where = multi_worker_util.placement()
    assert (where.rank, where.size, where.address, where.port) == (2, 3, "host0", 2222)
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster,
                                                "task": {"type": "evaluator", "index": 0}}))
    assert multi_worker_util.placement().size == 1
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": dict(cluster, ps=["p:1"]),
                                                "task": {"type": "worker", "index": 0}}))
    with pytest.raises(NotImplementedError, match="parameter-server"):
        multi_worker_util.placement()
    monkeypatch.setenv("TF_CONFIG", "{not json")
    with pytest.raises(ValueError, match="TF_CONFIG is not valid JSON"):
        multi_worker_util.placement()


def test_launcher_flags():
    flags, rest = launch.split_launch_flags(["--nproc-per-node=2", "--master-port", "1234",
                                             "train.py", "--epochs", "3"])
    assert rest == ["train.py", "--epochs", "3"]
    assert launch.launcher_arguments(flags, rest) == [
        "--nproc-per-node", "2", "--standalone", "--max-restarts", "0", "-m", "tfcompat",
        "train.py", "--epochs", "3"]
    flags, rest = launch.split_launch_flags(["--nproc_per_node", "4", "--nnodes", "2",
                                             "--node-rank", "1", "--master-addr", "h0",
                                             "--master-port", "29400", "t.py"])
    assert launch.launcher_arguments(flags, rest)[:10] == [
        "--nproc-per-node", "4", "--nnodes", "2", "--node-rank", "1", "--master-addr", "h0",
        "--master-port", "29400"]
    with pytest.raises(ValueError, match="needs a value"):
        launch.split_launch_flags(["--nproc-per-node"])


def test_cluster_spec_and_resolvers(monkeypatch):
    spec = tf.train.ClusterSpec({"worker": ["a:1", "b:2"], "ps": {3: "c:3"}})
    assert spec.as_dict() == {"worker": ["a:1", "b:2"], "ps": {3: "c:3"}}
    assert spec.num_tasks("worker") == 2 and spec.task_indices("ps") == [3]
    assert spec.task_address("worker", 1) == "b:2"
    assert spec.job_tasks("ps") == [None, None, None, "c:3"]
    assert tf.train.ClusterSpec(spec.as_cluster_def()) == spec
    with pytest.raises(ValueError, match="No such job"):
        spec.num_tasks("chief")
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        spec, task_type="worker", task_id=1, rpc_layer="grpc")
    assert resolver.master("worker", 0) == "grpc://a:1"
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["h:5"]},
                                                "task": {"type": "worker", "index": 0}}))
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (resolver.task_type, resolver.task_id) == ("worker", 0)
    assert resolver.cluster_spec().as_dict() == {"worker": ["h:5"]}
    assert resolver.master() == "h:5"


@pytest.mark.parametrize("make, message", [
    (lambda: tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]), "--nproc-per-node 2"),
    (lambda: tf.distribute.experimental.ParameterServerStrategy(None), "parameter-server"),
    (lambda: tf.distribute.TPUStrategy(), "no TPUs"),
    (lambda: tf.distribute.Server({"worker": ["a:1"]}), "no TensorFlow gRPC runtime"),
    (lambda: tf.distribute.cluster_resolver.SlurmClusterResolver(), "Slurm"),
])
def test_unsupported_parts_say_what_to_use(make, message):
    with pytest.raises(NotImplementedError, match=message):
        make()


def test_bad_strategy_arguments_are_tf_errors():
    with pytest.raises(ValueError, match="No duplicates"):
        tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:0"])
    with pytest.raises(ValueError, match="empty `devices`"):
        tf.distribute.MirroredStrategy([])
    with pytest.raises(ValueError, match="communication_options"):
        tf.distribute.MultiWorkerMirroredStrategy(communication_options="ring")


def test_one_device_strategy_places_variables_and_runs(tmp_path):
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
    assert "CPU" in v.device
    assert strategy.run(lambda: v * 2).numpy().tolist() == [2.0, 4.0]
    assert strategy.extended.worker_devices[0].endswith("CPU:0")


def test_only_the_chief_of_several_replicas_writes_callback_files(monkeypatch):
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    assert callbacks._writes_files(model)
    monkeypatch.setattr(multi_worker_util._job, "placement",
                        Placement(1, 2, 1, 2, "127.0.0.1", 1, "test"))
    extended = tf.distribute.get_strategy().extended
    monkeypatch.setattr(extended, "_num_replicas", 2)
    assert not callbacks._writes_files(model)
    monkeypatch.setattr(multi_worker_util._job, "placement",
                        Placement(0, 2, 0, 2, "127.0.0.1", 1, "test"))
    assert callbacks._writes_files(model)


def test_estimator_run_config_takes_a_strategy_of_one_replica():
    strategy = tf.distribute.MirroredStrategy()
    config = tf.estimator.RunConfig(train_distribute=strategy, eval_distribute=strategy)
    assert config.train_distribute is strategy
    with pytest.raises(NotImplementedError, match="MultiWorkerMirroredStrategy"):
        tf.estimator.RunConfig(device_fn=lambda op: "")


def test_mirrored_strategy_over_logical_cpus_says_to_launch_processes(monkeypatch):
    from tfcompat import config
    cpu = tf.config.list_physical_devices("CPU")[0]
    monkeypatch.setattr(config._settings, "logical", {
        cpu: [tf.config.LogicalDeviceConfiguration() for _ in range(2)]})
    with pytest.raises(NotImplementedError, match="--nproc-per-node 2"):
        tf.distribute.MirroredStrategy()
    assert tf.distribute.OneDeviceStrategy("/cpu:1").num_replicas_in_sync == 1


def test_keras_models_train_with_the_strategy_they_were_compiled_under():
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
        model.compile("sgd", "mse")
    assert model.distribute_strategy is strategy
    other = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    other.compile("sgd", "mse", distribute=strategy)       # TF 1.13-1.14's argument
    assert other.distribute_strategy is strategy
    seen = []
    other.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), verbose=0,
              callbacks=[tf.keras.callbacks.LambdaCallback(
                  on_epoch_end=lambda e, l: seen.append(tf.distribute.get_strategy()))])
    assert seen == [strategy]


def test_tf1_optimizers_apply_only_in_replica_context():
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
        opt = tf.compat.v1.train.GradientDescentOptimizer(0.5)
        with pytest.raises(RuntimeError, match="cross-replica context"):
            opt.apply_gradients([(tf.constant([1.0, 1.0]), v)])
    strategy.run(lambda: opt.minimize(lambda: tf.reduce_sum(v * v), var_list=[v]))
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])
