"""`tf.distribute.cluster_resolver.TFConfigClusterResolver`: the job from `TF_CONFIG`."""
from tfcompat._api import tf_export
from tfcompat.distribute import multi_worker_util
from tfcompat.distribute.cluster_resolver.cluster_resolver import ClusterResolver
from tfcompat.train.server_lib import ClusterSpec


@tf_export("distribute.cluster_resolver.TFConfigClusterResolver")
class TFConfigClusterResolver(ClusterResolver):
    """The cluster, task type and id of the `TF_CONFIG` environment variable, read each time
    they are asked for (as TF's resolver does); explicit arguments take precedence."""

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @property
    def task_type(self):
        if self._task_type is not None:
            return self._task_type
        return multi_worker_util.tf_config().get("task", {}).get("type")

    @task_type.setter
    def task_type(self, value):
        self._task_type = value

    @property
    def task_id(self):
        if self._task_id is not None:
            return self._task_id
        index = multi_worker_util.tf_config().get("task", {}).get("index")
        return None if index is None else int(index)

    @task_id.setter
    def task_id(self, value):
        self._task_id = value

    @property
    def environment(self):
        return self._environment or multi_worker_util.tf_config().get("environment", "")

    @property
    def rpc_layer(self):
        return self._rpc_layer or multi_worker_util.tf_config().get("rpc_layer")

    @rpc_layer.setter
    def rpc_layer(self, value):
        self._rpc_layer = value

    def cluster_spec(self):
        return ClusterSpec(multi_worker_util.tf_config().get("cluster", {}))

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        if task_type is None or task_id is None:
            return ""
        address = self.cluster_spec().task_address(task_type, task_id)
        layer = rpc_layer or self.rpc_layer
        return "%s://%s" % (layer, address) if layer else address
