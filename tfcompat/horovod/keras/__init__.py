"""`horovod.keras`: Horovod's API for standalone Keras, which is tf.keras under tfcompat, so
it is `horovod.tensorflow.keras`."""
from tfcompat.horovod.tensorflow.keras import (
    Adasum, Average, Compression, DistributedOptimizer, Max, Min, Product, Sum, allgather,
    allreduce, broadcast, broadcast_global_variables, broadcast_variables, ccl_built,
    cross_rank, cross_size, cuda_built, ddl_built, gloo_built, gloo_enabled, init,
    is_homogeneous, is_initialized, local_rank, local_size, mpi_built, mpi_enabled,
    mpi_threads_supported, nccl_built, rank, rocm_built, shutdown, size)
from tfcompat.horovod.keras import callbacks
