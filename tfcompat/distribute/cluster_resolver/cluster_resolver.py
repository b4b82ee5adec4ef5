"""`tf.distribute.cluster_resolver.ClusterResolver` and `SimpleClusterResolver`."""
import torch

from tfcompat._api import tf_export
from tfcompat.train.server_lib import ClusterSpec


@tf_export("distribute.cluster_resolver.ClusterResolver")
class ClusterResolver(object):
    """Base of the resolvers: a ClusterSpec and this task's type, id and master address."""

    task_type = None
    task_id = None
    rpc_layer = None
    environment = ""

    def cluster_spec(self):
        raise NotImplementedError("ClusterResolver.cluster_spec")

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        raise NotImplementedError("ClusterResolver.master")

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """This machine's GPUs, as TF counts local accelerators."""
        return {"GPU": torch.cuda.device_count()} if torch.cuda.is_available() else {}


@tf_export("distribute.cluster_resolver.SimpleClusterResolver")
class SimpleClusterResolver(ClusterResolver):
    """A resolver holding a given ClusterSpec and task."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="",
                 num_accelerators=None, rpc_layer=None):
        if not isinstance(cluster_spec, ClusterSpec):
            raise TypeError("cluster_spec must be a `tf.train.ClusterSpec`.")
        self._cluster_spec = cluster_spec
        self._master = master
        self.task_type = task_type
        self.task_id = task_id
        self.environment = environment
        self._num_accelerators = num_accelerators
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        return self._cluster_spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is not None and task_id is not None:
            address = self._cluster_spec.task_address(task_type, task_id)
            layer = rpc_layer or self.rpc_layer
            return "%s://%s" % (layer, address) if layer else address
        return self._master

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        if self._num_accelerators is not None:
            return self._num_accelerators
        return super(SimpleClusterResolver, self).num_accelerators(task_type, task_id)


def _unsupported_resolver(name, reason):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("tf.distribute.cluster_resolver.%s: %s Use "
                                  "TFConfigClusterResolver (TF_CONFIG) or launch with "
                                  "`tfcompat run`; see docs/distributed.md." % (name, reason))
    cls = type(name, (ClusterResolver,), {"__init__": __init__, "__doc__": reason})
    tf_export("distribute.cluster_resolver." + name)(cls)
    return cls


GCEClusterResolver = _unsupported_resolver(
    "GCEClusterResolver", "reading Google Compute Engine instance groups is not supported.")
KubernetesClusterResolver = _unsupported_resolver(
    "KubernetesClusterResolver", "reading Kubernetes pods is not supported.")
SlurmClusterResolver = _unsupported_resolver(
    "SlurmClusterResolver", "reading Slurm job variables is not supported.")
TPUClusterResolver = _unsupported_resolver(
    "TPUClusterResolver", "there are no TPUs on PyTorch here.")
UnionResolver = _unsupported_resolver(
    "UnionResolver", "combining cluster resolvers is not supported.")
