"""Collectives across the job's workers on torch.distributed, and TF's CrossDeviceOps choices.

`all_reduce`, `broadcast` and `all_gather` take tfcompat tensors and work eagerly or as one
graph node each (a tf.function, a TF1 Session), so the same training step runs both ways.
All-reduce coalesces its tensors into buckets of at most `BUCKET_BYTES` per dtype and device,
launches one asynchronous collective per bucket and waits for them together: one message
per bucket instead of one per variable, as DDP's reducer and Horovod's tensor fusion do.
In a job of one process they return their inputs (SUM and MEAN of one replica).

`NcclAllReduce`, `HierarchicalCopyAllReduce` and `ReductionToOneDevice` choose among TF's
algorithms for combining local GPUs; here torch.distributed's backend does that (NCCL for
CUDA tensors, gloo for the rest), so they are accepted and change nothing in the results.
"""
import torch
import torch.distributed as dist

from tfcompat._api import tf_export
from tfcompat.distribute import multi_worker_util
from tfcompat.distribute.reduce_util import ReduceOp, as_reduce_op
from tfcompat.framework import errors, ops
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import control_flow_ops

BUCKET_BYTES = 25 << 20
_TORCH_OPS = {"SUM": dist.ReduceOp.SUM, "MEAN": dist.ReduceOp.SUM, "MAX": dist.ReduceOp.MAX,
              "MIN": dist.ReduceOp.MIN, "PRODUCT": dist.ReduceOp.PRODUCT}


def _wait(work):
    """Wait for a collective; a lost worker is TF's UnavailableError naming this one."""
    try:
        work.wait()
    except RuntimeError as e:
        where = multi_worker_util.current_placement()
        raise errors.UnavailableError(
            None, None, "worker %d of %d: a collective with the other workers failed; one of "
            "them stopped or cannot be reached (its own error comes first in the job's "
            "output): %s" % (where.rank, where.size, e))


def num_workers():
    """How many processes the job has (1 without a launcher)."""
    return multi_worker_util.current_placement().size


def _buckets(tensors):
    """Indices of `tensors` grouped into buckets of one dtype and device, each at most
    BUCKET_BYTES (a larger tensor is a bucket of its own)."""
    groups = {}
    for i, t in enumerate(tensors):
        groups.setdefault((t.dtype, t.device), []).append(i)
    buckets = []
    for indices in groups.values():
        bucket, size = [], 0
        for i in indices:
            nbytes = tensors[i].numel() * tensors[i].element_size()
            if bucket and size + nbytes > BUCKET_BYTES:
                buckets.append(bucket)
                bucket, size = [], 0
            bucket.append(i)
            size += nbytes
        buckets.append(bucket)
    return buckets


def all_reduce_torch(tensors, op="SUM"):
    """The element-wise reduction over all workers of each torch tensor (new tensors; the
    inputs are left as they are). `op`: SUM, MEAN, MAX, MIN or PRODUCT."""
    size = multi_worker_util.ensure_process_group().size
    if size == 1 or not tensors:
        return [t.clone() for t in tensors]
    outputs = [None] * len(tensors)
    pending = []
    with torch.no_grad():
        for bucket in _buckets(tensors):
            flat = torch.cat([tensors[i].reshape(-1) for i in bucket]) if len(bucket) > 1 \
                else tensors[bucket[0]].reshape(-1).clone()
            if flat.dtype == torch.bool:
                flat = flat.to(torch.uint8)
            pending.append((bucket, flat, dist.all_reduce(flat, op=_TORCH_OPS[op],
                                                          async_op=True)))
        for bucket, flat, work in pending:
            _wait(work)
            if op == "MEAN":
                flat = flat / size if flat.is_floating_point() or flat.is_complex() \
                    else torch.div(flat, size, rounding_mode="floor")
            pieces = flat.split([tensors[i].numel() for i in bucket])
            for i, piece in zip(bucket, pieces):
                outputs[i] = piece.view(tensors[i].shape).to(tensors[i].dtype)
    return outputs


class _DifferentiableAllReduce(torch.autograd.Function):
    """All-reduce whose gradient is the all-reduce of the incoming gradients (Horovod's and
    TF's gradient of a collective sum or mean)."""

    @staticmethod
    def forward(ctx, op, *tensors):
        ctx.op = op
        return tuple(all_reduce_torch(list(tensors), op))

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(all_reduce_torch([g.contiguous() for g in grads], ctx.op))


def all_reduce(values, reduce_op=ReduceOp.SUM, name=None):
    """The all-reduce of a list of tensors (IndexedSlices become dense), in one collective
    call per bucket; eagerly, or as one graph node."""
    op = reduce_op.value if isinstance(reduce_op, ReduceOp) else str(reduce_op).upper()
    if op not in _TORCH_OPS:
        raise ValueError("unknown reduction %r: expected one of %s" % (reduce_op,
                                                                      sorted(_TORCH_OPS)))
    tensors = [ops.convert_to_tensor(v) for v in values]
    if not tensors:
        return []
    if op == "MEAN" and any(not (t.dtype.is_floating or t.dtype.is_complex) for t in tensors):
        raise TypeError("a MEAN all-reduce needs floating-point tensors, got %s"
                        % sorted({t.dtype.name for t in tensors}))

    def reduce(*ts):
        if any(t.requires_grad for t in ts):
            return _DifferentiableAllReduce.apply(op, *ts)
        return tuple(all_reduce_torch(list(ts), op))

    return run_op(reduce, "CollectiveReduceV2", tensors,
                  lambda: [(t.dtype, t.shape) for t in tensors], name=name, pure=False)


def broadcast_torch(tensors, root_rank=0):
    """Each torch tensor's value on worker `root_rank`, as new tensors."""
    size = multi_worker_util.ensure_process_group().size
    outputs = [t.detach().clone() for t in tensors]
    if size == 1 or not tensors:
        return outputs
    if not 0 <= root_rank < size:
        raise ValueError("root_rank %d is not a worker of this job (0 to %d)"
                         % (root_rank, size - 1))
    with torch.no_grad():
        pending = []
        for bucket in _buckets(outputs):
            flat = torch.cat([outputs[i].reshape(-1) for i in bucket])
            pending.append((bucket, flat, dist.broadcast(flat, src=root_rank, async_op=True)))
        for bucket, flat, work in pending:
            _wait(work)
            for i, piece in zip(bucket, flat.split([outputs[i].numel() for i in bucket])):
                outputs[i].copy_(piece.view(outputs[i].shape))
    return outputs


def broadcast(values, root_rank=0, name=None):
    """Worker `root_rank`'s values of a list of tensors, on every worker."""
    tensors = [ops.convert_to_tensor(v) for v in values]
    if not tensors:
        return []
    return run_op(lambda *ts: tuple(broadcast_torch(list(ts), root_rank)), "CollectiveBcastRecv",
                  tensors, lambda: [(t.dtype, t.shape) for t in tensors], name=name,
                  pure=False)


def broadcast_variables(variables, root_rank=0):
    """Assign worker `root_rank`'s values to `variables` on every worker: eagerly now, or
    (TF1 graphs) the op that does it when run."""
    variables = list(variables)
    values = broadcast([v.value() for v in variables], root_rank)
    return control_flow_ops.group(*[v.assign(value) for v, value in zip(variables, values)])


def all_gather_torch(tensor, axis=0):
    """The workers' tensors concatenated along `axis` in rank order; their sizes along
    `axis` may differ (the other dimensions must agree)."""
    size = multi_worker_util.ensure_process_group().size
    if size == 1:
        return tensor.clone()
    moved = tensor.movedim(axis, 0).contiguous()
    with torch.no_grad():
        length = torch.tensor([moved.shape[0]], dtype=torch.int64, device=moved.device)
        lengths = [torch.zeros_like(length) for _ in range(size)]
        _wait(dist.all_gather(lengths, length, async_op=True))
        lengths = [int(n) for n in lengths]
        longest = max(lengths)
        padded = moved
        if moved.shape[0] < longest:
            padded = torch.cat([moved, moved.new_zeros((longest - moved.shape[0],) +
                                                       tuple(moved.shape[1:]))])
        gathered = [torch.empty_like(padded) for _ in range(size)]
        _wait(dist.all_gather(gathered, padded, async_op=True))
    return torch.cat([g[:n] for g, n in zip(gathered, lengths)]).movedim(0, axis)


class _DifferentiableAllGather(torch.autograd.Function):
    """All-gather whose gradient is this worker's slice of the gradients summed over the
    workers (TF's and Horovod's gradient of a gather: every worker's loss may use every
    worker's rows)."""

    @staticmethod
    def forward(ctx, axis, tensor):
        ctx.axis = axis
        ctx.length = tensor.shape[axis]
        return all_gather_torch(tensor, axis)

    @staticmethod
    def backward(ctx, grad):
        summed = all_reduce_torch([grad.contiguous()], "SUM")[0]
        lengths = all_gather_torch(torch.tensor([ctx.length], device=grad.device), 0)
        start = int(lengths[:multi_worker_util.current_placement().rank].sum())
        return None, summed.narrow(ctx.axis, start, ctx.length)


def all_gather(value, axis=0, name=None):
    """The workers' values of a tensor concatenated along `axis`, in rank order
    (differentiable)."""
    tensor = ops.convert_to_tensor(value)

    def out_specs():
        shape = tensor.shape
        if shape.rank is not None:
            dims = shape.as_list()
            dims[axis] = None if num_workers() > 1 else dims[axis]
            shape = TensorShape(dims)
        return [(tensor.dtype, shape)]

    def gather(t):
        if t.requires_grad:
            return (_DifferentiableAllGather.apply(axis, t),)
        return (all_gather_torch(t, axis),)

    return run_op(gather, "CollectiveGatherV2", [tensor], out_specs, name=name,
                  pure=False)[0]


@tf_export("distribute.CrossDeviceOps")
class CrossDeviceOps(object):
    """Base of TF's cross-device reduction algorithms; tfcompat's reductions run on
    torch.distributed whichever is chosen."""

    def reduce(self, reduce_op, per_replica_value, destinations=None, options=None):
        return all_reduce([per_replica_value], as_reduce_op(reduce_op))[0]

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
        return all_reduce([value for value, _ in value_destination_pairs],
                          as_reduce_op(reduce_op))

    def broadcast(self, tensor, destinations):
        return broadcast([tensor])[0]


@tf_export("distribute.ReductionToOneDevice")
class ReductionToOneDevice(CrossDeviceOps):
    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self.reduce_to_device = reduce_to_device


class _PackedAllReduce(CrossDeviceOps):
    """TF's all-reduce algorithms that pack gradients into `num_packs` groups."""
    _ALGORITHM = None

    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError("%s requires num_packs >= 0, but %d is specified"
                             % (self._ALGORITHM, num_packs))
        self.num_packs = num_packs


@tf_export("distribute.NcclAllReduce")
class NcclAllReduce(_PackedAllReduce):
    _ALGORITHM = "NCCL all-reduce"


@tf_export("distribute.HierarchicalCopyAllReduce")
class HierarchicalCopyAllReduce(_PackedAllReduce):
    _ALGORITHM = "HierarchicalCopy"
