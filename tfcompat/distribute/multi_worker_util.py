"""The workers of a job and the torch.distributed process group they train in.

tf.distribute strategies and Horovod's API all run on one process group, joined once per
process on first use. A worker finds its place in the job from the environment that started
it, as the launchers people use set it:

- torch's elastic launcher (`tfcompat run --nproc-per-node N`, `torchrun -m tfcompat`):
  `RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `LOCAL_WORLD_SIZE`, `MASTER_ADDR`, `MASTER_PORT`;
- `mpirun` / `horovodrun` (Open MPI's `OMPI_COMM_WORLD_*`, MPICH's `PMI_RANK`/`PMI_SIZE`,
  Horovod's `HOROVOD_RANK`/`HOROVOD_SIZE`), meeting at `MASTER_ADDR:MASTER_PORT`
  (default 127.0.0.1:29500, right when every worker runs on one machine);
- `TF_CONFIG` (TensorFlow's multi-worker setting): the chief and the workers of its
  `cluster` in that order are the ranks; they meet at the first one's address.

Anything else is a job of one process, which needs no process group. The backend is gloo,
with NCCL for CUDA tensors when the process has a GPU (`TFCOMPAT_DIST_BACKEND` overrides).
"""
import atexit
import collections
import datetime
import json
import os

import torch
import torch.distributed as dist

from tfcompat.framework import context, errors

BACKEND_ENV = "TFCOMPAT_DIST_BACKEND"
TIMEOUT_ENV = "TFCOMPAT_DIST_TIMEOUT"   # seconds a collective waits for the other workers
DEFAULT_PORT = 29500

Placement = collections.namedtuple(
    "Placement", "rank size local_rank local_size address port launcher")

_SINGLE_PROCESS = Placement(0, 1, 0, 1, None, None, None)
_ENVIRONMENTS = (
    ("torch elastic launcher", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"),
    ("mpirun (Open MPI)", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("horovodrun", "HOROVOD_RANK", "HOROVOD_SIZE", "HOROVOD_LOCAL_RANK",
     "HOROVOD_LOCAL_SIZE"),
    ("mpirun (PMI)", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
)


def _int_env(name, default=None):
    value = os.environ.get(name)
    return default if value in (None, "") else int(value)


def tf_config():
    """The parsed `TF_CONFIG` ({} when unset); a malformed one is an error naming it."""
    text = os.environ.get("TF_CONFIG", "")
    if not text.strip():
        return {}
    try:
        config = json.loads(text)
    except ValueError as e:
        raise ValueError("TF_CONFIG is not valid JSON (%s): %r" % (e, text))
    if not isinstance(config, dict):
        raise ValueError("TF_CONFIG must be a JSON object with 'cluster' and 'task', got %r"
                         % text)
    return config


def ordered_cluster_tasks(cluster):
    """The (type, index, address) of a TF cluster's training tasks in rank order: the chief,
    then the workers (TF's order for collective ops)."""
    tasks = []
    for kind in ("chief", "worker"):
        addresses = cluster.get(kind, [])
        if isinstance(addresses, dict):
            addresses = [addresses[i] for i in sorted(addresses)]
        tasks.extend((kind, i, address) for i, address in enumerate(addresses))
    return tasks


def _split_address(address):
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError("a cluster address must be 'host:port', got %r" % (address,))
    return host, int(port)


def placement_from_cluster(cluster, task_type, task_id):
    """The placement of task `task_type`:`task_id` in `cluster` ({job: [addresses]})."""
    return _from_tf_config({"cluster": cluster, "task": {"type": task_type,
                                                         "index": task_id}})


def use_placement(where):
    """Take this place in a job (a strategy given a cluster resolver), before joining it."""
    if _job.group_ready and where != _job.placement:
        raise RuntimeError("this process already trains as worker %d of %d; it cannot join "
                           "another job" % (_job.placement.rank, _job.placement.size))
    _job.placement = where


def _from_tf_config(config):
    cluster = config.get("cluster") or {}
    task = config.get("task") or {}
    if cluster.get("ps"):
        raise NotImplementedError(
            "TF_CONFIG names parameter servers ('ps' tasks): parameter-server training is "
            "not supported by tfcompat; train with MultiWorkerMirroredStrategy (all workers "
            "synchronous) instead.")
    tasks = ordered_cluster_tasks(cluster)
    kind, index = task.get("type"), int(task.get("index", 0))
    if not tasks or kind not in ("chief", "worker"):
        return _SINGLE_PROCESS       # an evaluator, or no training cluster: on its own
    ranks = {(k, i): r for r, (k, i, _) in enumerate(tasks)}
    if (kind, index) not in ranks:
        raise ValueError("TF_CONFIG's task %s:%d is not in its cluster %s"
                         % (kind, index, cluster))
    host, port = _split_address(tasks[0][2])
    return Placement(ranks[kind, index], len(tasks), 0, 1, host, port, "TF_CONFIG")


def placement():
    """Where this process stands in its job (a `Placement`), read from the environment."""
    for launcher, rank, size, local_rank, local_size in _ENVIRONMENTS:
        if rank in os.environ and size in os.environ:
            n = _int_env(size)
            local_n = _int_env(local_size, n)
            return Placement(_int_env(rank), n, _int_env(local_rank, 0), local_n,
                             os.environ.get("MASTER_ADDR", "127.0.0.1"),
                             _int_env("MASTER_PORT", DEFAULT_PORT), launcher)
    config = tf_config()
    if config:
        return _from_tf_config(config)
    return _SINGLE_PROCESS


class _Job(object):
    """This process's placement and, once joined, its process group."""

    def __init__(self):
        self.placement = None
        self.group_ready = False


_job = _Job()


def current_placement():
    if _job.placement is None:
        _job.placement = placement()
    return _job.placement


def backend():
    """gloo, plus NCCL for CUDA tensors when this process has a GPU."""
    chosen = os.environ.get(BACKEND_ENV)
    if chosen:
        return chosen
    return "cpu:gloo,cuda:nccl" if torch.cuda.is_available() else "gloo"


def ensure_process_group():
    """Join the job's process group (once); returns the placement. A job of one process
    joins nothing. A process group the script made itself with torch.distributed is used as
    it is."""
    where = current_placement()
    if _job.group_ready or where.size == 1:
        return where
    if not dist.is_initialized():
        if torch.cuda.is_available():
            gpu = torch.device("cuda", where.local_rank % torch.cuda.device_count())
            torch.cuda.set_device(gpu)
            context.place_process_on(gpu)
        timeout = datetime.timedelta(seconds=_int_env(TIMEOUT_ENV, 1800))
        try:
            dist.init_process_group(
                backend(), init_method="tcp://%s:%d" % (where.address, where.port),
                rank=where.rank, world_size=where.size, timeout=timeout)
            atexit.register(_leave_process_group)
        except (RuntimeError, ValueError) as e:
            raise errors.UnavailableError(
                None, None, "worker %d of %d (from %s) could not join the job at %s:%d: %s"
                % (where.rank, where.size, where.launcher, where.address, where.port, e))
    elif dist.get_world_size() != where.size or dist.get_rank() != where.rank:
        raise errors.FailedPreconditionError(
            None, None, "the torch.distributed process group (rank %d of %d) does not match "
            "this worker's place in the job (rank %d of %d, from %s)"
            % (dist.get_rank(), dist.get_world_size(), where.rank, where.size, where.launcher))
    _job.group_ready = True
    return where


def joined():
    """Whether this process joined a job's process group."""
    return _job.group_ready


def _leave_process_group():
    """Close the process group at exit (gloo's threads must stop before the interpreter)."""
    if dist.is_initialized():
        dist.destroy_process_group()


def is_chief():
    """Whether this process is the job's chief (rank 0), the one that writes checkpoints."""
    return current_placement().rank == 0
