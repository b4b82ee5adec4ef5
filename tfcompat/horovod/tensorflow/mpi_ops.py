"""Horovod's collectives on TensorFlow tensors (`horovod/tensorflow/mpi_ops.py` and the
`allreduce` of `horovod/tensorflow/__init__.py`), on the job's torch.distributed group.

Each works eagerly and in graphs (one node per call, run by `tf.function` or a Session), as
`tfcompat.distribute.cross_device_ops` does. `allreduce` and `grouped_allreduce` share one
path: the dense tensors of a call are bucketed into as few collectives as possible (Horovod's
tensor fusion). Average is a sum multiplied by 1/size() (Horovod's postscale; integer tensors
truncate, as Horovod's C++ scaling does); its gradient is the average of the gradients.
IndexedSlices (sparse gradients) are all-gathered, values and indices, as Horovod does.
Not supported: Adasum (NotImplementedError), `alltoall`, `join`, process sets.
"""
from tfcompat.distribute import cross_device_ops
from tfcompat.framework import dtypes, ops
from tfcompat.horovod.common import basics
from tfcompat.horovod.tensorflow.compression import Compression
from tfcompat.ops import math_ops
from tfcompat.ops.sparse_ops import IndexedSlices

# Horovod's ReduceOp values (horovod/common/message.h)
Average = 0
Sum = 1
Adasum = 2
Min = 3
Max = 4
Product = 5

_COLLECTIVE = {Average: "SUM", Sum: "SUM", Min: "MIN", Max: "MAX", Product: "PRODUCT"}


def handle_average_backwards_compatibility(op, average):
    """The reduction from `op` or the deprecated `average` flag (default Average)."""
    if op is not None:
        if average is not None:
            raise ValueError("The op parameter supersedes average. Please provide only one of "
                             "them.")
        return op
    if average is not None:
        return Average if average else Sum
    return Average


def _check_op(op):
    if op == Adasum:
        raise NotImplementedError("hvd.Adasum: the Adasum reduction is not supported by "
                                  "tfcompat; use hvd.Average or hvd.Sum")
    if op not in _COLLECTIVE:
        raise ValueError("Unknown reduction op %r: expected hvd.Average, hvd.Sum, hvd.Min, "
                         "hvd.Max or hvd.Product" % (op,))


def _scale(tensor, factor):
    """`tensor` times `factor`; integer tensors are scaled in float64 and truncated."""
    if factor == 1.0:
        return tensor
    if tensor.dtype.is_floating or tensor.dtype.is_complex:
        return tensor * factor
    return math_ops.cast(math_ops.cast(tensor, dtypes.float64) * factor, tensor.dtype)


def _allreduce_dense(tensors, op, compression, prescale_factor, postscale_factor, name):
    compressed = [compression.compress(ops.convert_to_tensor(t)) for t in tensors]
    sent = [_scale(t, prescale_factor) for t, _ in compressed]
    reduced = cross_device_ops.all_reduce(sent, _COLLECTIVE[op], name=name)
    factor = postscale_factor / basics.size() if op == Average else postscale_factor
    return [compression.decompress(_scale(t, factor), ctx)
            for t, (_, ctx) in zip(reduced, compressed)]


def _allreduce_sparse(slices, op):
    """Horovod's all-reduce of IndexedSlices: every worker's rows, gathered (divided by
    size() for Average)."""
    values = allgather(slices.values)
    indices = allgather(slices.indices)
    if op == Average:
        values = values / math_ops.cast(basics.size(), values.dtype)
    return IndexedSlices(values, indices, dense_shape=slices.dense_shape)


def reduce_tensors(tensors, op, compression=Compression.none, prescale_factor=1.0,
                   postscale_factor=1.0, name=None):
    """The all-reduce of a list of tensors and IndexedSlices, dense ones in one call."""
    _check_op(op)
    basics.placement()
    results = list(tensors)
    dense = [i for i, t in enumerate(tensors) if not isinstance(t, IndexedSlices)]
    for i, t in enumerate(tensors):
        if isinstance(t, IndexedSlices):
            results[i] = _allreduce_sparse(t, op)
    if dense:
        reduced = _allreduce_dense([tensors[i] for i in dense], op, compression,
                                   prescale_factor, postscale_factor, name)
        for i, value in zip(dense, reduced):
            results[i] = value
    return results


def allreduce(tensor, average=None, device_dense="", device_sparse="",
              compression=Compression.none, op=None, prescale_factor=1.0,
              postscale_factor=1.0, name=None, ignore_name_scope=False):
    """The reduction of `tensor` over all workers (default: their average). Devices are
    torch's placement of the tensor; `device_*` and `ignore_name_scope` are accepted."""
    op = handle_average_backwards_compatibility(op, average)
    return reduce_tensors([tensor], op, compression, prescale_factor, postscale_factor,
                          name)[0]


def grouped_allreduce(tensors, average=None, device_dense="", device_sparse="",
                      compression=Compression.none, op=None, prescale_factor=1.0,
                      postscale_factor=1.0, ignore_name_scope=False):
    """`allreduce` of each of `tensors`, as one fused collective per dtype."""
    op = handle_average_backwards_compatibility(op, average)
    return reduce_tensors(list(tensors), op, compression, prescale_factor, postscale_factor)


def allgather(tensor, name=None, ignore_name_scope=False):
    """The workers' tensors concatenated along the first dimension, in rank order; their
    first dimensions may differ."""
    basics.placement()
    return cross_device_ops.all_gather(tensor, 0, name=name)


def broadcast(tensor, root_rank, name=None, ignore_name_scope=False):
    """Worker `root_rank`'s value of `tensor`, on every worker."""
    basics.placement()
    return cross_device_ops.broadcast([tensor], root_rank, name=name)[0]


def alltoall(tensor, splits=None, name=None, ignore_name_scope=False):
    raise NotImplementedError("hvd.alltoall is not supported by tfcompat")


def join():
    raise NotImplementedError("hvd.join (training on uneven data) is not supported by "
                              "tfcompat: give every worker the same number of batches")


def allreduce_gradients_fn(name, compression, sparse_as_dense, op, gradient_predivide_factor):
    """Horovod's `_make_allreduce_grads_fn`: a function from a list of gradients (None kept)
    to their reductions over the workers, in one fused call; a job of one worker returns
    them as they are. `gradient_predivide_factor` f splits Average's 1/size into 1/f before
    the sum and f/size after it."""
    _check_op(op)
    if gradient_predivide_factor != 1.0 and op != Average:
        raise ValueError("gradient_predivide_factor not supported with op != Average")
    prescale_factor = 1.0 / gradient_predivide_factor
    postscale_factor = gradient_predivide_factor

    def allreduce_grads(grads):
        grads = list(grads)
        if basics.size() == 1:
            return grads
        with ops.name_scope(name + "_Allreduce"):
            present = [i for i, g in enumerate(grads) if g is not None]
            sent = [ops.convert_to_tensor(grads[i]) if sparse_as_dense and
                    isinstance(grads[i], IndexedSlices) else grads[i] for i in present]
            for i, value in zip(present, reduce_tensors(sent, op, compression, prescale_factor,
                                                        postscale_factor)):
                grads[i] = value
        return grads

    return allreduce_grads
