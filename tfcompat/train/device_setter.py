"""`tf.train.replica_device_setter` (TF 1.15's training/device_setter.py): a device function
for `tf.device` putting variables (and the other parameter-server ops) on `/job:ps` tasks in
turn and everything else on the worker device. On tfcompat the choice is recorded on each op
(`op.device`); computation stays on this process's devices (soft placement)."""
from tfcompat._api import tf_export
from tfcompat.framework.device_spec import DeviceSpecV2
from tfcompat.framework.graph import NodeDef

STANDARD_PS_OPS = (
    "Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
    "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
    "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp", "ResourceConditionalAccumulator",
    "DecisionTree", "TensorForest")


class _RoundRobinStrategy(object):
    """The ps task for each new ps op: 0, 1, ..., num_tasks - 1, 0, ..."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class _ReplicaDeviceChooser(object):
    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                 ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        """The device for `op`: fields it already has win over the chosen device's."""
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpecV2.from_string(op.device or "")
        node_def = op if isinstance(op, NodeDef) else op.node_def
        if self._ps_tasks and self._ps_device and node_def.op in self._ps_ops:
            ps_device = DeviceSpecV2.from_string(self._ps_device)
            if ps_device.job and (not current.job or current.job == ps_device.job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current).to_string()
        worker = DeviceSpecV2.from_string(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()


def _job_tasks(cluster, job):
    """The tasks of `job` in a cluster given as a dict or as a ClusterSpec (`as_dict`)."""
    jobs = cluster.as_dict() if hasattr(cluster, "as_dict") else dict(cluster)
    return jobs.get(job)


@tf_export(v1=["train.replica_device_setter"])
def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker",
                          merge_devices=True, cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for `tf.device`, or None when there are no ps tasks (`ps_tasks`, or
    the number of tasks of the ps job in `cluster`)."""
    if cluster is not None:
        tasks = _job_tasks(cluster, DeviceSpecV2.from_string(ps_device).job)
        if not tasks:
            return None
        ps_tasks = len(tasks)
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    return _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                                 ps_strategy).device_function
