"""`tf.train.ClusterSpec` (a cluster's jobs and task addresses) and `tf.train.Server`.

ClusterSpec is TF's: cluster resolvers and `TF_CONFIG` describe jobs with it. A Server (TF's
gRPC runtime for parameter-server and between-graph training) has no counterpart here:
tfcompat trains many workers with synchronous all-reduce strategies on torch.distributed.
"""
from tensorboard.compat.proto import cluster_pb2

from tfcompat._api import tf_export


def _tasks_of(job, tasks):
    if isinstance(tasks, (list, tuple)):
        return {i: address for i, address in enumerate(tasks)}
    if isinstance(tasks, dict):
        for index in tasks:
            if not isinstance(index, int):
                raise TypeError("Task index for job %r must be an integer: %r" % (job, index))
        return dict(tasks)
    raise TypeError("The tasks for job %r must be a list or a dictionary from integers to "
                    "strings." % (job,))


@tf_export("train.ClusterSpec")
class ClusterSpec(object):
    """A cluster as jobs of tasks: `ClusterSpec({"worker": ["host1:2222", ...]})`."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            self._cluster = {job: dict(tasks) for job, tasks in cluster._cluster.items()}
        elif isinstance(cluster, cluster_pb2.ClusterDef):
            self._cluster = {job.name: dict(job.tasks) for job in cluster.job}
        elif isinstance(cluster, dict):
            self._cluster = {job: _tasks_of(job, tasks) for job, tasks in cluster.items()}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to "
                            "lists of network addresses, or a `ClusterDef` protocol buffer")

    def __bool__(self):
        return bool(self._cluster)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._cluster == other._cluster

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __str__(self):
        return "ClusterSpec(%s)" % (self.as_dict(),)

    __repr__ = __str__

    @property
    def jobs(self):
        return list(self._cluster)

    def as_dict(self):
        """{job: [addresses]} for jobs whose task indices are 0..n-1, else {job: {i: a}}."""
        result = {}
        for job, tasks in self._cluster.items():
            indices = sorted(tasks)
            result[job] = [tasks[i] for i in indices] if indices == list(range(len(indices))) \
                else dict(tasks)
        return result

    def as_cluster_def(self):
        cluster_def = cluster_pb2.ClusterDef()
        for job, tasks in sorted(self._cluster.items()):
            job_def = cluster_def.job.add(name=job)
            for index, address in tasks.items():
                job_def.tasks[index] = address
        return cluster_def

    def _job(self, job_name):
        if job_name not in self._cluster:
            raise ValueError("No such job in cluster: %r" % (job_name,))
        return self._cluster[job_name]

    def num_tasks(self, job_name):
        return len(self._job(job_name))

    def task_indices(self, job_name):
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        tasks = self._job(job_name)
        if task_index not in tasks:
            raise ValueError("No task with index %r in job %r" % (task_index, job_name))
        return tasks[task_index]

    def job_tasks(self, job_name):
        """The job's addresses by task index, None where an index has no task."""
        tasks = self._job(job_name)
        return [tasks.get(i) for i in range(max(tasks) + 1)] if tasks else []


@tf_export("distribute.Server", v1=["train.Server", "distribute.Server"])
class Server(object):
    """TF's in-process gRPC server: not available on PyTorch."""

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None,
                 config=None, start=True):
        raise NotImplementedError(
            "tf.distribute.Server / tf.train.Server: tfcompat has no TensorFlow gRPC runtime, "
            "so parameter-server and between-graph training do not run. Train on several "
            "workers with tf.distribute.MultiWorkerMirroredStrategy (or Horovod's API), "
            "launched with `tfcompat run --nproc-per-node N` or TF_CONFIG; see "
            "docs/distributed.md.")

    @staticmethod
    def create_local_server(config=None, start=True):
        return Server(None)
