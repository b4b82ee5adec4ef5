"""`tf.distribute.Strategy` on torch.distributed: one replica per process of the job.

TF runs one replica per device, several per process; here each process of the job (see
`multi_worker_util`) is one replica, so a strategy's `num_replicas_in_sync` is the number of
processes and its local results are this process's value. What TF promises holds: variables
created in `scope()` start equal on every replica (worker 0's initial values are broadcast
at creation), `run` executes in a replica context where optimizers all-reduce gradients,
`reduce`/`gather` combine the replicas' values, and distributed datasets give each replica
its part of every global batch.
"""
import contextlib
import weakref

from tfcompat._api import tf_export
from tfcompat.distribute import cross_device_ops, input_lib, multi_worker_util
from tfcompat.distribute.reduce_util import ReduceOp, as_reduce_op
from tfcompat.framework import distribution_strategy_context as context
from tfcompat.framework import dtypes, ops
from tfcompat.framework.constant_op import constant
from tfcompat.ops import array_ops, math_ops
from tfcompat.util.nest import flatten, pack_sequence_as
from tfcompat.variables import EAGER_CREATION_HOOKS


@tf_export("distribute.InputReplicationMode")
class InputReplicationMode(object):
    """How input pipelines map to replicas (PER_WORKER: one per worker, as tfcompat runs)."""
    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


@tf_export("distribute.InputContext")
class InputContext(object):
    """What a `distribute_datasets_from_function` dataset_fn is told about its pipeline."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    num_input_pipelines = property(lambda self: self._num_input_pipelines)
    input_pipeline_id = property(lambda self: self._input_pipeline_id)
    num_replicas_in_sync = property(lambda self: self._num_replicas_in_sync)

    def get_per_replica_batch_size(self, global_batch_size):
        """global_batch_size / num_replicas_in_sync; it must divide evenly."""
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError("The `global_batch_size` %r is not divisible by "
                             "`num_replicas_in_sync` %r " % (global_batch_size,
                                                            self._num_replicas_in_sync))
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return "tf.distribute.InputContext(input pipeline id {}, total: {})".format(
            self.input_pipeline_id, self.num_input_pipelines)


@tf_export("distribute.InputOptions")
class InputOptions(object):
    """Options of distributed datasets; device placement of inputs is torch's here."""

    def __init__(self, experimental_fetch_to_device=None,
                 experimental_replication_mode=InputReplicationMode.PER_WORKER,
                 experimental_place_dataset_on_device=False,
                 experimental_per_replica_buffer_size=1):
        if experimental_replication_mode == InputReplicationMode.PER_REPLICA:
            raise NotImplementedError(
                "tf.distribute.InputOptions(experimental_replication_mode=PER_REPLICA): "
                "tfcompat runs one replica per worker process, so every input pipeline is "
                "PER_WORKER")
        self.experimental_fetch_to_device = experimental_fetch_to_device
        self.experimental_replication_mode = experimental_replication_mode
        self.experimental_place_dataset_on_device = experimental_place_dataset_on_device
        self.experimental_per_replica_buffer_size = experimental_per_replica_buffer_size


@tf_export("distribute.RunOptions")
class RunOptions(object):
    """Options of `Strategy.run` (they tune TPU compilation; nothing here)."""

    def __init__(self, experimental_enable_dynamic_batch_size=True,
                 experimental_bucketizing_dynamic_shape=False, experimental_xla_options=None):
        self.experimental_enable_dynamic_batch_size = experimental_enable_dynamic_batch_size
        self.experimental_bucketizing_dynamic_shape = experimental_bucketizing_dynamic_shape
        self.experimental_xla_options = experimental_xla_options


@tf_export("distribute.experimental.ValueContext")
class ValueContext(object):
    """What an `experimental_distribute_values_from_function` value_fn is told."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self._replica_id_in_sync_group = replica_id_in_sync_group
        self._num_replicas_in_sync = num_replicas_in_sync

    replica_id_in_sync_group = property(lambda self: self._replica_id_in_sync_group)
    num_replicas_in_sync = property(lambda self: self._num_replicas_in_sync)


def _all_reduce_structure(reduce_op, value):
    leaves = flatten(value)
    return pack_sequence_as(value, cross_device_ops.all_reduce(leaves, as_reduce_op(reduce_op)))


@tf_export("distribute.ReplicaContext")
class ReplicaContext(object):
    """The context of one replica running a step: its id, collectives with the others, and
    `merge_call` into cross-replica context."""

    def __init__(self, strategy, replica_id_in_sync_group):
        self._strategy = strategy
        self._replica_id_in_sync_group = replica_id_in_sync_group

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's id among the replicas in sync, as an int32 tensor (TF's type)."""
        return constant(self._replica_id_in_sync_group, dtypes.int32,
                        name="replica_id_in_sync_group")

    @property
    def devices(self):
        return (self._strategy.extended.worker_devices[0],)

    def all_reduce(self, reduce_op, value, options=None):
        """Every replica's `value` (a nested structure of tensors) combined by `reduce_op`."""
        if self._strategy.num_replicas_in_sync == 1:
            return pack_sequence_as(value, [ops.convert_to_tensor(v) for v in flatten(value)])
        return _all_reduce_structure(reduce_op, value)

    def all_gather(self, value, axis, options=None):
        """Every replica's `value` concatenated along `axis`, in replica order."""
        return pack_sequence_as(value, [cross_device_ops.all_gather(v, axis)
                                        for v in flatten(value)])

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """`merge_fn(strategy, *args, **kwargs)` in cross-replica context."""
        context.push(self._strategy, None)
        try:
            return merge_fn(self._strategy, *args, **(kwargs or {}))
        finally:
            context.pop()

    def __repr__(self):
        return "<tf.distribute.ReplicaContext %d of %d>" % (self._replica_id_in_sync_group,
                                                              self.num_replicas_in_sync)


@tf_export("distribute.StrategyExtended")
class StrategyExtended(object):
    """A strategy's devices and lower-level methods."""

    def __init__(self, container_strategy, num_replicas, replica_id, device):
        self._container_strategy_weakref = weakref.ref(container_strategy)
        self._num_replicas = num_replicas
        self._replica_id = replica_id
        self._device = device
        self._created_in_scope = weakref.WeakSet()

    @property
    def worker_devices(self):
        return (self._device,)

    @property
    def parameter_devices(self):
        return (self._device,)

    @property
    def experimental_require_static_shapes(self):
        return False

    @property
    def should_checkpoint(self):
        """Whether this worker writes checkpoints: with several replicas, the chief only."""
        return self._num_replicas == 1 or multi_worker_util.is_chief()

    should_save_summary = should_checkpoint
    experimental_should_init = property(lambda self: True)
    experimental_between_graph = property(lambda self: True)

    def _in_multi_worker_mode(self):
        return self._num_replicas > 1

    def variable_created_in_scope(self, v):
        """Whether `v` was created in this strategy's scope."""
        return v in self._created_in_scope

    def colocate_vars_with(self, colocate_with_variable):
        return contextlib.nullcontext()

    def value_container(self, value):
        return value

    def reduce_to(self, reduce_op, value, destinations, options=None):
        return self._container_strategy_weakref().reduce(reduce_op, value, axis=None)

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        return cross_device_ops.all_reduce([v for v, _ in value_destination_pairs],
                                           as_reduce_op(reduce_op)) \
            if self._num_replicas > 1 else [ops.convert_to_tensor(v)
                                            for v, _ in value_destination_pairs]

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """`fn(var, *args, **kwargs)`: every replica holds the same value, so each worker
        updates its copy with the (already reduced) arguments."""
        return fn(var, *args, **(kwargs or {}))

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        return self._container_strategy_weakref().run(fn, args, kwargs)

    def non_slot_devices(self, var_list):
        return (self._device,)


@tf_export("distribute.Strategy")
class Strategy(object):
    """Base of the strategies: scope, run, reduce, gather and distributed datasets."""

    def __init__(self, extended):
        self._extended = extended
        self._scope_depth = 0
        self._cluster_resolver = None

    @property
    def extended(self):
        return self._extended

    @property
    def num_replicas_in_sync(self):
        return self._extended._num_replicas

    @property
    def cluster_resolver(self):
        return self._cluster_resolver

    # ------------------------------------------------------------ scopes
    @contextlib.contextmanager
    def scope(self):
        """Cross-replica context of this strategy: variables created inside are mirrored
        (worker 0's initial values broadcast to all), Keras models and optimizers built
        inside train with it."""
        current = context.get_strategy()
        if context.has_strategy() and current is not self:
            raise ValueError("Mixing different tf.distribute.Strategy objects: %s is not %s"
                             % (current, self))
        with self._current(None):
            yield self

    @contextlib.contextmanager
    def _current(self, replica_context):
        """This strategy current (in cross-replica context when `replica_context` is None);
        variables created meanwhile are mirrored."""
        context.push(self, replica_context)
        hook = self._on_variable_created
        outermost = hook not in EAGER_CREATION_HOOKS
        if outermost:
            EAGER_CREATION_HOOKS.append(hook)
        try:
            yield
        finally:
            if outermost:
                EAGER_CREATION_HOOKS.remove(hook)
            context.pop()

    def _on_variable_created(self, variable):
        if context.get_strategy() is not self:
            return
        self._extended._created_in_scope.add(variable)
        if self.num_replicas_in_sync > 1:
            cross_device_ops.broadcast_variables([variable], 0)

    def _replica_context(self):
        return ReplicaContext(self, self._extended._replica_id)

    def _in_replica_context(self):
        """What `run` runs its function in: this strategy's replica context."""
        return self._current(self._replica_context())

    # ------------------------------------------------------------ running
    def run(self, fn, args=(), kwargs=None, options=None):
        """`fn(*args, **kwargs)` on this worker's replica, in replica context; returns its
        (local) result."""
        with self._in_replica_context():
            return fn(*args, **(kwargs or {}))

    def experimental_run_v2(self, fn, args=(), kwargs=None, options=None):
        return self.run(fn, args, kwargs, options)

    def reduce(self, reduce_op, value, axis):
        """The replicas' values combined: SUM or MEAN over replicas, and over `axis` of
        each value when given (MEAN then divides by the total number of elements along
        `axis`, as TF's does)."""
        reduce_op = as_reduce_op(reduce_op)
        if context.get_strategy() is self and context.get_replica_context() is not None and \
                self is not _default:
            raise RuntimeError("Method requires being in cross-replica context, use "
                               "get_replica_context().merge_call()")
        value = ops.convert_to_tensor(value)
        if axis is None:
            if self.num_replicas_in_sync == 1:
                return value
            return cross_device_ops.all_reduce([value], reduce_op)[0]
        total = math_ops.reduce_sum(value, axis=axis)
        if reduce_op is ReduceOp.MEAN:
            count = math_ops.cast(array_ops.shape(value)[axis], value.dtype)
            if self.num_replicas_in_sync > 1:
                total, count = cross_device_ops.all_reduce([total, count], ReduceOp.SUM)
            return total / count
        if self.num_replicas_in_sync > 1:
            total = cross_device_ops.all_reduce([total], ReduceOp.SUM)[0]
        return total

    def gather(self, value, axis):
        """The replicas' values concatenated along `axis`, in replica order."""
        return cross_device_ops.all_gather(value, axis)

    def experimental_local_results(self, value):
        """This worker's results of `run`: a tuple with one element per local replica."""
        return (value,)

    def experimental_distribute_dataset(self, dataset, options=None):
        """The dataset split across replicas: each gets its part of every global batch."""
        return input_lib.DistributedDataset(dataset, self._input_workers(), options)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """`dataset_fn(InputContext)` on each worker; its batches are per-replica already."""
        where = self._input_workers()
        ctx = InputContext(where.size, where.rank, self.num_replicas_in_sync)
        return input_lib.DistributedDataset(dataset_fn(ctx), None, options)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_distribute_values_from_function(self, value_fn):
        return value_fn(ValueContext(self._extended._replica_id, self.num_replicas_in_sync))

    def _input_workers(self):
        return multi_worker_util.current_placement() if self.num_replicas_in_sync > 1 else \
            multi_worker_util.Placement(0, 1, 0, 1, None, None, None)

    # ------------------------------------------------------------ TF 1 methods
    def make_dataset_iterator(self, dataset):
        return iter(self.experimental_distribute_dataset(dataset))

    def make_input_fn_iterator(self, input_fn, replication_mode=InputReplicationMode.PER_WORKER):
        return iter(self.distribute_datasets_from_function(input_fn))

    def experimental_run(self, fn, input_iterator=None):
        args = (next(input_iterator),) if input_iterator is not None else ()
        return self.run(fn, args)

    def unwrap(self, value):
        return self.experimental_local_results(value)

    def group(self, value, name=None):
        return value

    def experimental_initialize(self):
        return []

    def experimental_finalize(self):
        return []

    def update_config_proto(self, config_proto):
        return config_proto

    def __deepcopy__(self, memo):
        return self


class _DefaultReplicaContext(ReplicaContext):
    """The replica context outside any strategy."""


class _DefaultDistributionStrategy(Strategy):
    """The strategy in effect without one: a single replica, no distribution."""

    def __init__(self):
        super(_DefaultDistributionStrategy, self).__init__(
            StrategyExtended(self, 1, 0, "/job:localhost/replica:0/task:0/device:CPU:0"))

    @contextlib.contextmanager
    def scope(self):
        if context.has_strategy():
            raise RuntimeError("Must not nest tf.distribute.Strategy scopes.")
        context.push(self, None)
        try:
            yield self
        finally:
            context.pop()


_default = _DefaultDistributionStrategy()
context.install_default(_default, _DefaultReplicaContext(_default, 0))


@tf_export("distribute.experimental_set_strategy")
def experimental_set_strategy(strategy):
    """Enter `strategy`'s scope for the rest of the program (leaving the one set before);
    None returns to the default strategy."""
    if _set_scope:
        _set_scope.pop().__exit__(None, None, None)
    if context.has_strategy():
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _set_scope.append(scope)


_set_scope = []
