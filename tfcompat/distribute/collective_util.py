"""`tf.distribute.experimental.CommunicationOptions`: how collectives communicate.

TF picks ring or NCCL collectives with these; here torch.distributed's backend decides (NCCL
for CUDA tensors, gloo otherwise), so the implementation asked for is kept but changes
nothing; `timeout_seconds` bounds how long a collective waits for the other workers.
"""
import enum

from tfcompat._api import tf_export


@tf_export("distribute.experimental.CommunicationImplementation",
           "distribute.experimental.CollectiveCommunication")
class CommunicationImplementation(enum.Enum):
    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


@tf_export("distribute.experimental.CommunicationOptions")
class CommunicationOptions(object):
    def __init__(self, bytes_per_pack=0, timeout_seconds=None,
                 implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError("bytes_per_pack must be non-negative, got %r" % (bytes_per_pack,))
        if isinstance(implementation, str):
            implementation = CommunicationImplementation[implementation.upper()]
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation


@tf_export("distribute.experimental.CollectiveHints")
class CollectiveHints(object):
    """Deprecated form of CommunicationOptions' `bytes_per_pack` and `timeout_seconds`."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None):
        if bytes_per_pack < 0:
            raise ValueError("bytes_per_pack must be non-negative, got %r" % (bytes_per_pack,))
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
