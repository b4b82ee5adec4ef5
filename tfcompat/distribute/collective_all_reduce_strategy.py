"""`tf.distribute.MultiWorkerMirroredStrategy`: synchronous training across workers.

The workers and this one's rank come from the launcher's environment or `TF_CONFIG` (see
`multi_worker_util`), or from the `cluster_resolver` given; they meet in one torch.distributed
process group and all-reduce gradients there. Without any, the job is this one process.
"""
from tfcompat._api import tf_export
from tfcompat.distribute import multi_worker_util
from tfcompat.distribute.cluster_resolver.cluster_resolver import SimpleClusterResolver
from tfcompat.distribute.cluster_resolver.tfconfig_cluster_resolver import \
    TFConfigClusterResolver
from tfcompat.distribute.collective_util import CommunicationImplementation, \
    CommunicationOptions
from tfcompat.distribute.distribute_lib import Strategy
from tfcompat.distribute.mirrored_strategy import job_extended
from tfcompat.train.server_lib import ClusterSpec


def _resolver_for(where):
    """The cluster resolver a strategy reports: TF_CONFIG's, else the launcher's workers
    (task 'worker' of id = rank; their addresses are not known, only the first's)."""
    if multi_worker_util.tf_config():
        return TFConfigClusterResolver()
    workers = ["%s:%d" % (where.address, where.port) if i == 0 else "worker-%d" % i
               for i in range(where.size)] if where.size > 1 else ["localhost:0"]
    return SimpleClusterResolver(ClusterSpec({"worker": workers}), task_type="worker",
                                 task_id=where.rank)


@tf_export("distribute.MultiWorkerMirroredStrategy")
class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training on every worker of the job, one replica per worker process."""

    def __init__(self, cluster_resolver=None, communication_options=None):
        if communication_options is not None and \
                not isinstance(communication_options, CommunicationOptions):
            raise ValueError("communication_options must be a "
                             "tf.distribute.experimental.CommunicationOptions")
        if cluster_resolver is not None and not isinstance(cluster_resolver,
                                                           TFConfigClusterResolver):
            spec = cluster_resolver.cluster_spec()
            multi_worker_util.use_placement(multi_worker_util.placement_from_cluster(
                spec.as_dict(), cluster_resolver.task_type, cluster_resolver.task_id))
        self._communication_options = communication_options or CommunicationOptions()
        super(MultiWorkerMirroredStrategy, self).__init__(job_extended(self))
        self._cluster_resolver = cluster_resolver or \
            _resolver_for(multi_worker_util.current_placement())


@tf_export("distribute.experimental.MultiWorkerMirroredStrategy")
class ExperimentalMultiWorkerMirroredStrategy(MultiWorkerMirroredStrategy):
    """The experimental form, whose first argument is the collective implementation."""

    def __init__(self, communication=CommunicationImplementation.AUTO, cluster_resolver=None,
                 communication_options=None):
        if communication_options is None:
            communication_options = CommunicationOptions(implementation=communication)
        super(ExperimentalMultiWorkerMirroredStrategy, self).__init__(
            cluster_resolver, communication_options)
