"""Horovod's training wrappers for TensorFlow (`horovod/tensorflow/__init__.py`):
`DistributedOptimizer` (TF1 optimizers; Keras ones go to the Keras wrapper),
`DistributedGradientTape` (TF2) and `BroadcastGlobalVariablesHook` (TF1 sessions).

Gradients are averaged over the workers (or reduced with `op`) in one fused collective per
dtype; IndexedSlices gradients are all-gathered unless `sparse_as_dense`. Horovod's fusion
`groups`/`num_groups` and devices are accepted and change nothing in the results.
"""
from tfcompat.horovod._keras.optimizer import create_distributed_optimizer
from tfcompat.horovod.tensorflow import mpi_ops
from tfcompat.horovod.tensorflow.compression import Compression
from tfcompat.horovod.tensorflow.functions import broadcast_global_variables
from tfcompat.framework.graph import get_default_graph
from tfcompat.keras.optimizers import OptimizerV2
from tfcompat.train.optimizer import Optimizer
from tfcompat.train.session_run_hook import SessionRunHook
from tfcompat.util import nest


class _DistributedOptimizer(Optimizer):
    """A TF1 optimizer whose `compute_gradients` averages the wrapped optimizer's gradients
    over the workers; everything else is the wrapped optimizer's."""

    def __init__(self, optimizer, name, use_locking, compression, sparse_as_dense, op,
                 gradient_predivide_factor):
        super(_DistributedOptimizer, self).__init__(
            name=name or "Distributed%s" % type(optimizer).__name__, use_locking=use_locking)
        self._optimizer = optimizer
        self._allreduce_grads = mpi_ops.allreduce_gradients_fn(
            self._name, compression, sparse_as_dense, op, gradient_predivide_factor)

    def compute_gradients(self, *args, **kwargs):
        pairs = self._optimizer.compute_gradients(*args, **kwargs)
        grads = self._allreduce_grads([g for g, _ in pairs])
        return [(g, v) for g, (_, v) in zip(grads, pairs)]

    def apply_gradients(self, *args, **kwargs):
        return self._optimizer.apply_gradients(*args, **kwargs)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self, *args, **kwargs):
        return self._optimizer.variables(*args, **kwargs)


def DistributedOptimizer(optimizer, name=None, use_locking=False, device_dense="",
                         device_sparse="", compression=Compression.none, sparse_as_dense=False,
                         backward_passes_per_step=1, op=mpi_ops.Average,
                         gradient_predivide_factor=1.0, average_aggregated_gradients=False,
                         num_groups=0, groups=None):
    """Wrap a `tf.compat.v1.train.Optimizer` or a Keras optimizer so that its gradients are
    averaged over the workers before they are applied."""
    if backward_passes_per_step != 1:
        raise NotImplementedError("hvd.DistributedOptimizer(backward_passes_per_step=%r): "
                                  "local gradient accumulation is not supported by tfcompat"
                                  % (backward_passes_per_step,))
    if isinstance(optimizer, Optimizer):
        return _DistributedOptimizer(optimizer, name, use_locking, compression,
                                     sparse_as_dense, op, gradient_predivide_factor)
    if isinstance(optimizer, OptimizerV2):
        return create_distributed_optimizer(optimizer, name, compression, sparse_as_dense,
                                            gradient_predivide_factor, op)
    raise ValueError("Provided optimizer doesn't inherit from either legacy TensorFlow or "
                     "Keras optimizer: %s" % (optimizer,))


class _DistributedGradientTape(object):
    """Put before a GradientTape class in the bases of the class `DistributedGradientTape`
    makes: `gradient` returns the gradients averaged over the workers."""

    def gradient(self, target, sources, output_gradients=None, **kwargs):
        grads = super().gradient(target, sources, output_gradients, **kwargs)
        flat = nest.flatten(grads)
        return nest.pack_sequence_as(grads, self._allreduce_grads(flat))


def DistributedGradientTape(gradtape, device_dense="", device_sparse="",
                            compression=Compression.none, sparse_as_dense=False,
                            op=mpi_ops.Average, gradient_predivide_factor=1.0, num_groups=0,
                            groups=None):
    """A tape recording what `gradtape` recorded whose `gradient()` averages the gradients
    over the workers (Horovod's class of the same name as the tape's, made on the fly)."""
    base = type(gradtape)
    cls = type(base.__name__, (_DistributedGradientTape, base), {"__module__": base.__module__})
    tape = cls.__new__(cls)
    tape.__dict__.update(vars(gradtape))
    tape._allreduce_grads = mpi_ops.allreduce_gradients_fn(
        "DistributedGradientTape", compression, sparse_as_dense, op, gradient_predivide_factor)
    return tape


class BroadcastGlobalVariablesHook(SessionRunHook):
    """Broadcasts `tf.global_variables()` from worker `root_rank` once the session is made
    (after the variables are initialized or restored). `device` is accepted."""

    def __init__(self, root_rank, device=""):
        super(BroadcastGlobalVariablesHook, self).__init__()
        self.root_rank = root_rank
        self.bcast_op = None
        self.device = device
        self._graph = None

    def begin(self):
        if self.bcast_op is None or self._graph is not get_default_graph():
            self._graph = get_default_graph()
            self.bcast_op = broadcast_global_variables(self.root_rank)

    def after_create_session(self, session, coord):
        session.run(self.bcast_op)
