"""Horovod's TensorFlow and Keras API on torch.distributed, for scripts run by tfcompat.

Under the runner `import horovod.tensorflow as hvd`, `import horovod.tensorflow.keras as hvd`
and `import horovod.keras as hvd` give `tfcompat.horovod.tensorflow`,
`tfcompat.horovod.tensorflow.keras` and `tfcompat.horovod.keras` (Horovod itself is not
used). The workers are the processes of the job `tfcompat run --nproc-per-node N`, torchrun,
mpirun or horovodrun started (`tfcompat.distribute.multi_worker_util`); Horovod's collectives
are the job's torch.distributed collectives (gloo, NCCL for CUDA tensors). docs/horovod.md
lists what is supported.
"""
__version__ = "0.28.1"
