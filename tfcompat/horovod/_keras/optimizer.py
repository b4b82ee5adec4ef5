"""Horovod's Keras `DistributedOptimizer` (`create_distributed_optimizer` of
`horovod/_keras/__init__.py`).

As in Horovod, the wrapper is a new optimizer of a class made on the fly: a subclass of the
wrapped optimizer's class with the same name (so saved models load without Horovod), built
from its config. Gradients are averaged over the workers where Keras computes them
(`_compute_gradients`, which `fit` and `minimize` use, and `get_gradients`); gradients given
straight to `apply_gradients` (a custom loop with a plain GradientTape) are averaged there,
as Horovod did before TF 2.4. No strategy is current in a Horovod script, so the optimizer's
own replica sum is over one replica and changes nothing.
"""
from tfcompat.horovod.tensorflow import mpi_ops
from tfcompat.horovod.tensorflow.compression import Compression


class _DistributedOptimizer(object):
    """Put before a Keras optimizer class in the bases of the class `DistributedOptimizer`
    makes."""

    def _compute_gradients(self, loss, var_list, grad_loss=None, tape=None):
        pairs = super()._compute_gradients(loss, var_list, grad_loss, tape)
        grads = self._allreduce_grads([g for g, _ in pairs])
        self._gradients_averaged = True
        return [(g, v) for g, (_, v) in zip(grads, pairs)]

    def get_gradients(self, loss, params):
        grads = self._allreduce_grads(super().get_gradients(loss, params))
        self._gradients_averaged = True
        return grads

    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        pairs = list(grads_and_vars)
        if not self._gradients_averaged:
            grads = self._allreduce_grads([g for g, _ in pairs])
            pairs = [(g, v) for g, (_, v) in zip(grads, pairs)]
        self._gradients_averaged = False
        return super().apply_gradients(pairs, name, experimental_aggregate_gradients)


def create_distributed_optimizer(optimizer, name=None, compression=Compression.none,
                                 sparse_as_dense=False, gradient_predivide_factor=1.0,
                                 op=mpi_ops.Average, backward_passes_per_step=1):
    """A copy of Keras optimizer `optimizer` (from its config) averaging gradients over the
    workers."""
    if backward_passes_per_step != 1:
        raise NotImplementedError("hvd.DistributedOptimizer(backward_passes_per_step=%r): "
                                  "local gradient accumulation is not supported by tfcompat"
                                  % (backward_passes_per_step,))
    base = type(optimizer)
    cls = type(base.__name__, (_DistributedOptimizer, base), {"__module__": base.__module__})
    distributed = cls.from_config(optimizer.get_config())
    distributed._allreduce_grads = mpi_ops.allreduce_gradients_fn(
        name or "Distributed%s" % base.__name__, compression, sparse_as_dense, op,
        gradient_predivide_factor)
    distributed._gradients_averaged = False
    return distributed
