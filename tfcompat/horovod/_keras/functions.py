"""Horovod's Keras-level collectives (`horovod/_keras/__init__.py`): they take values (numbers,
arrays, tensors) and give results, eager tensors in TF2, numpy values evaluated in Keras'
session in TF1 graph mode."""
from tfcompat.framework import context
from tfcompat.framework.constant_op import constant
from tfcompat.horovod.tensorflow import functions, mpi_ops
from tfcompat.horovod.tensorflow.compression import Compression
from tfcompat.keras import backend


def _evaluate(result):
    return result if context.executing_eagerly() else backend.get_session().run(result)


def allreduce(value, name=None, average=None, prescale_factor=1.0, postscale_factor=1.0,
              op=None, compression=Compression.none):
    return _evaluate(mpi_ops.allreduce(constant(value, name=name), average=average,
                                       compression=compression, op=op,
                                       prescale_factor=prescale_factor,
                                       postscale_factor=postscale_factor))


def allgather(value, name=None):
    return _evaluate(mpi_ops.allgather(constant(value, name=name)))


def broadcast(value, root_rank, name=None):
    return _evaluate(mpi_ops.broadcast(constant(value, name=name), root_rank))


def broadcast_global_variables(root_rank):
    """Broadcast `tf.global_variables()` from worker `root_rank` in Keras' session (TF1)."""
    return _evaluate(functions.broadcast_global_variables(root_rank))
