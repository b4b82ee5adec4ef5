"""Horovod's variable broadcasts (`horovod/tensorflow/functions.py` and
`broadcast_global_variables` of `horovod/tensorflow/__init__.py`)."""
from tfcompat.distribute import cross_device_ops
from tfcompat.framework import context
from tfcompat.horovod.common import basics
from tfcompat.variables import global_variables


def broadcast_variables(variables, root_rank, inplace=False):
    """Assign worker `root_rank`'s values to `variables` on every worker: eagerly now
    (returns None), or in a graph the op that does it when run."""
    basics.placement()
    return cross_device_ops.broadcast_variables(variables, root_rank)


def broadcast_global_variables(root_rank):
    """The TF1 graph op broadcasting `tf.global_variables()` from worker `root_rank`."""
    if context.executing_eagerly():
        raise RuntimeError(
            "hvd.broadcast_global_variables() does not support eager execution. Please use "
            "`hvd.broadcast_variables(<model/optimizer variables>)` instead.")
    return broadcast_variables(global_variables(), root_rank)
