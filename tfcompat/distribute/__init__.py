"""`tf.distribute` and its process group on torch.distributed (see docs/distributed.md)."""
from tfcompat.distribute import (  # noqa: F401 - registers the tf.distribute paths
    collective_all_reduce_strategy, collective_util, cross_device_ops, distribute_lib,
    input_lib, mirrored_strategy, multi_worker_util, one_device_strategy,
    parameter_server_strategy_v2, reduce_util)
from tfcompat.distribute.cluster_resolver import (  # noqa: F401
    cluster_resolver, tfconfig_cluster_resolver)
