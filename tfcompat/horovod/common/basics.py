"""Horovod's `init`, `rank`, `size` and build queries (`horovod/common/basics.py`).

`init()` joins the job's torch.distributed process group (`multi_worker_util`): the ranks are
the job's ranks, the local ranks those the launcher gave. Cross ranks follow Horovod: the
processes with this process's local rank form the cross communicator, ordered by rank.
The build queries answer as a Horovod built with Gloo (and NCCL where torch has CUDA) and
without MPI, running on Gloo.
"""
import torch
import torch.distributed as dist

from tfcompat.distribute import cross_device_ops, multi_worker_util

NOT_INITIALIZED = "Horovod has not been initialized; use hvd.init()."


class _State(object):
    """This process's Horovod state: None until `init()`."""

    def __init__(self):
        self.placement = None
        self.cross_rank = None
        self.cross_size = None
        self.homogeneous = False


_state = _State()


def init(comm=None, process_sets=None):
    """Join the job. `comm` (an MPI communicator or a list of ranks) and `process_sets`
    select sub-groups of workers, which tfcompat does not support."""
    if comm is not None:
        raise NotImplementedError("hvd.init(comm=...): tfcompat's Horovod trains on all the "
                                  "job's workers; call hvd.init() without a communicator")
    if process_sets:
        raise NotImplementedError("hvd.init(process_sets=...): Horovod process sets are not "
                                  "supported by tfcompat")
    where = multi_worker_util.ensure_process_group()
    mine = torch.tensor([[where.local_rank, where.local_size]], dtype=torch.int64)
    everyone = cross_device_ops.all_gather_torch(mine).tolist()
    same_local_rank = [rank for rank, (local_rank, _) in enumerate(everyone)
                       if local_rank == where.local_rank]
    _state.cross_rank = same_local_rank.index(where.rank)
    _state.cross_size = len(same_local_rank)
    _state.homogeneous = len({local_size for _, local_size in everyone}) == 1
    _state.placement = where


def shutdown():
    """Leave Horovod; `init()` may be called again. The process group stays (tf.distribute
    strategies of the same process share it)."""
    _state.placement = None


def is_initialized():
    return _state.placement is not None


def placement():
    """This process's place in the job; Horovod's ValueError before `init()`."""
    if _state.placement is None:
        raise ValueError(NOT_INITIALIZED)
    return _state.placement


def size():
    """The number of workers in the job."""
    return placement().size


def local_size():
    """The number of workers on this machine."""
    return placement().local_size


def rank():
    """This worker's rank, 0 to size() - 1."""
    return placement().rank


def local_rank():
    """This worker's rank among the workers on this machine."""
    return placement().local_rank


def cross_rank():
    """This worker's rank among the workers with its local rank (its machine's index when
    every machine runs as many workers)."""
    placement()
    return _state.cross_rank


def cross_size():
    """How many workers have this worker's local rank (the number of machines when every
    machine runs as many workers)."""
    placement()
    return _state.cross_size


def is_homogeneous():
    """Whether every machine runs as many workers (False before `init()`, as Horovod)."""
    return _state.homogeneous


def mpi_threads_supported():
    """Horovod's answer without MPI: a ValueError."""
    raise ValueError("Horovod MPI is not enabled; Please make sure it's installed and enabled.")


def mpi_enabled():
    return False


def mpi_built():
    return False


def gloo_enabled():
    """Whether Gloo carries the collectives: once initialized."""
    return is_initialized()


def gloo_built():
    return True


def nccl_built():
    """NCCL's version code (Horovod's NCCL_VERSION_CODE) where CUDA tensors' collectives run
    on NCCL, else 0."""
    if not (torch.cuda.is_available() and dist.is_nccl_available()):
        return 0
    major, minor, patch = torch.cuda.nccl.version()[:3]
    return major * 10000 + minor * 100 + patch


def ddl_built():
    return False


def ccl_built():
    return False


def cuda_built():
    return torch.cuda.is_available()


def rocm_built():
    return torch.cuda.is_available() and torch.version.hip is not None
