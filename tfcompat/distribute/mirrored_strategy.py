"""`tf.distribute.MirroredStrategy`: synchronous training on the job's replicas.

TF's MirroredStrategy drives the GPUs of one machine from one process. Here a process drives
one device and the job's processes are the replicas: `tfcompat run --nproc-per-node N
script.py` runs N replicas (one per GPU when there are GPUs). Started on its own, a script
trains one replica, as TF does on a machine with one device or none; with several GPUs it
uses the first and says how to use them all.
"""
import logging

import torch

from tfcompat import config
from tfcompat._api import tf_export
from tfcompat.distribute import multi_worker_util
from tfcompat.distribute.distribute_lib import Strategy, StrategyExtended
from tfcompat.framework.context import parse_device

_log = logging.getLogger("tfcompat")


def replica_device(where):
    """TF's name of the device this process's replica runs on."""
    kind = "GPU" if torch.cuda.is_available() else "CPU"
    if where.size == 1:
        return "/job:localhost/replica:0/task:0/device:%s:0" % kind
    return "/job:worker/replica:0/task:%d/device:%s:0" % (where.rank, kind)


def job_extended(strategy):
    """The StrategyExtended of a strategy whose replicas are the job's processes (joining
    the job's process group now)."""
    where = multi_worker_util.ensure_process_group()
    return StrategyExtended(strategy, where.size, where.rank, replica_device(where))


@tf_export("distribute.MirroredStrategy")
class MirroredStrategy(Strategy):
    """Synchronous data-parallel training: one replica per process of the job."""

    def __init__(self, devices=None, cross_device_ops=None):
        if devices is not None:
            devices = list(devices)
            if not devices:
                raise ValueError("Got an empty `devices` list and unable to recognize any "
                                 "local devices.")
            if len(set(devices)) != len(devices):
                raise ValueError("No duplicates allowed in `devices` argument: %s" % devices)
            for device in devices:
                parse_device(device)
        where = multi_worker_util.current_placement()
        if where.size == 1 and devices is not None and len(devices) > 1:
            raise NotImplementedError(
                "MirroredStrategy(devices=%s): tfcompat runs one replica per process, so one "
                "process cannot mirror over %d devices. Launch one process per device: "
                "`tfcompat run --nproc-per-node %d script.py` (see docs/distributed.md)."
                % (devices, len(devices), len(devices)))
        logical_cpus = len(config.list_logical_devices("CPU"))
        if where.size == 1 and devices is None and logical_cpus > 1 and \
                not torch.cuda.is_available():
            raise NotImplementedError(
                "MirroredStrategy() over the %d logical CPUs set with "
                "tf.config.set_logical_device_configuration: TF would make %d replicas in "
                "this process, and tfcompat runs one replica per process. Launch one process "
                "per replica instead: `tfcompat run --nproc-per-node %d script.py` (see "
                "docs/distributed.md)." % (logical_cpus, logical_cpus, logical_cpus))
        if where.size == 1 and devices is None and torch.cuda.device_count() > 1:
            _log.warning("MirroredStrategy: this process trains on 1 of the %d GPUs; run "
                         "`tfcompat run --nproc-per-node %d script.py` to train on all of "
                         "them.", torch.cuda.device_count(), torch.cuda.device_count())
        super(MirroredStrategy, self).__init__(job_extended(self))
        self._cross_device_ops = cross_device_ops
