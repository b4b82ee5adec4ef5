"""`tf.distribute.OneDeviceStrategy`: one replica on one named device."""
import contextlib

from tfcompat._api import tf_export
from tfcompat.distribute import input_lib
from tfcompat.distribute.distribute_lib import Strategy, StrategyExtended
from tfcompat.framework import context


@tf_export("distribute.OneDeviceStrategy")
class OneDeviceStrategy(Strategy):
    """Variables and computation of the scope and of `run` go to `device`."""

    def __init__(self, device):
        context.parse_device(device)
        self._device = device
        super(OneDeviceStrategy, self).__init__(StrategyExtended(
            self, 1, 0, context.tf_device_name(context.torch_device_for(device))))

    @contextlib.contextmanager
    def scope(self):
        with super(OneDeviceStrategy, self).scope(), context.device_scope(self._device):
            yield self

    def run(self, fn, args=(), kwargs=None, options=None):
        with context.device_scope(self._device):
            return super(OneDeviceStrategy, self).run(fn, args, kwargs, options)

    def experimental_distribute_dataset(self, dataset, options=None):
        return input_lib.DistributedDataset(dataset, None, options)
