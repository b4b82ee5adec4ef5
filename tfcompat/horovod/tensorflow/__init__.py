"""`horovod.tensorflow`: Horovod's TensorFlow API (TF1 and TF2) on torch.distributed.

What maps to what:
- `init`, `size`, `rank`, `local_rank`, ...: the job's placement (`common/basics.py`);
- `allreduce`, `grouped_allreduce`, `allgather`, `broadcast`: the job's collectives
  (`mpi_ops.py`), eagerly or as graph nodes;
- `broadcast_variables`, `broadcast_global_variables` (`functions.py`);
- `DistributedOptimizer`, `DistributedGradientTape`, `BroadcastGlobalVariablesHook`
  (`training.py`).
Dense gradients are averaged; IndexedSlices ones are all-gathered as Horovod does (dense
with `sparse_as_dense=True`). Not supported: Adasum, `alltoall`, `join`, process sets,
local gradient accumulation (`backward_passes_per_step`), elastic training.
"""
from tfcompat.horovod.common.basics import (
    ccl_built, cross_rank, cross_size, cuda_built, ddl_built, gloo_built, gloo_enabled, init,
    is_homogeneous, is_initialized, local_rank, local_size, mpi_built, mpi_enabled,
    mpi_threads_supported, nccl_built, rank, rocm_built, shutdown, size)
from tfcompat.horovod.tensorflow.compression import Compression
from tfcompat.horovod.tensorflow.functions import (broadcast_global_variables,
                                                   broadcast_variables)
from tfcompat.horovod.tensorflow.mpi_ops import (
    Adasum, Average, Max, Min, Product, Sum, allgather, allreduce, alltoall, broadcast,
    grouped_allreduce, handle_average_backwards_compatibility, join)
from tfcompat.horovod.tensorflow.training import (BroadcastGlobalVariablesHook,
                                                  DistributedGradientTape,
                                                  DistributedOptimizer)
