"""What `horovod.tensorflow.keras` and `horovod.keras` share (`horovod/_keras`)."""
