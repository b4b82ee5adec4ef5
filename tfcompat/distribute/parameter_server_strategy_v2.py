"""Parameter-server training, TPUs and central storage: not available on PyTorch here.

Each raises a NotImplementedError that says so and which supported strategy to use.
"""
from tfcompat._api import tf_export

_SUPPORTED = ("train synchronously with tf.distribute.MirroredStrategy or "
              "MultiWorkerMirroredStrategy (or Horovod's API), launched with `tfcompat run "
              "--nproc-per-node N`, torchrun or TF_CONFIG; see docs/distributed.md")


def _unsupported(path, reason):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("tf.%s: %s; %s." % (path, reason, _SUPPORTED))
    name = path.rsplit(".", 1)[-1]
    return type(name, (object,), {"__init__": __init__, "__doc__": reason})


_PS = "parameter-server training (asynchronous, over TF's gRPC runtime) is not supported"
ParameterServerStrategy = tf_export("distribute.ParameterServerStrategy")(
    _unsupported("distribute.ParameterServerStrategy", _PS))
ExperimentalParameterServerStrategy = tf_export(
    "distribute.experimental.ParameterServerStrategy")(
    _unsupported("distribute.experimental.ParameterServerStrategy", _PS))
ClusterCoordinator = tf_export("distribute.coordinator.ClusterCoordinator",
                               "distribute.experimental.coordinator.ClusterCoordinator")(
    _unsupported("distribute.coordinator.ClusterCoordinator", _PS))
TPUStrategy = tf_export("distribute.TPUStrategy")(
    _unsupported("distribute.TPUStrategy", "there are no TPUs on PyTorch here"))
ExperimentalTPUStrategy = tf_export("distribute.experimental.TPUStrategy")(
    _unsupported("distribute.experimental.TPUStrategy", "there are no TPUs on PyTorch here"))
CentralStorageStrategy = tf_export("distribute.experimental.CentralStorageStrategy")(
    _unsupported("distribute.experimental.CentralStorageStrategy",
                 "keeping variables on one device while others compute is not supported"))
