"""`horovod.tensorflow.keras` (and `horovod.keras`, the same here: `keras` is tf.keras):
Horovod's Keras API on torch.distributed.

- `init`, `size`, `rank`, ...: as in `horovod.tensorflow`;
- `allreduce`, `allgather`, `broadcast` take values and return results (numpy values
  evaluated in Keras' session in TF1 graph mode), `broadcast_global_variables` runs the
  broadcast (`_keras/functions.py`);
- `DistributedOptimizer`: the Keras optimizer rebuilt as a subclass of its class that
  averages the gradients over the workers (`_keras/optimizer.py`);
- `callbacks`: BroadcastGlobalVariablesCallback, MetricAverageCallback,
  LearningRateScheduleCallback, LearningRateWarmupCallback (`_keras/callbacks.py`).
Not supported: `load_model`, elastic training, Adasum, `backward_passes_per_step` > 1.
"""
from tfcompat.horovod._keras.functions import (allgather, allreduce, broadcast,
                                               broadcast_global_variables)
from tfcompat.horovod._keras.optimizer import \
    create_distributed_optimizer as DistributedOptimizer
from tfcompat.horovod.common.basics import (
    ccl_built, cross_rank, cross_size, cuda_built, ddl_built, gloo_built, gloo_enabled, init,
    is_homogeneous, is_initialized, local_rank, local_size, mpi_built, mpi_enabled,
    mpi_threads_supported, nccl_built, rank, rocm_built, shutdown, size)
from tfcompat.horovod.tensorflow.compression import Compression
from tfcompat.horovod.tensorflow.functions import broadcast_variables
from tfcompat.horovod.tensorflow.mpi_ops import Adasum, Average, Max, Min, Product, Sum
from tfcompat.horovod.tensorflow.keras import callbacks
