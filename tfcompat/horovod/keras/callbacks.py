"""`horovod.keras.callbacks`: the callbacks of `horovod.tensorflow.keras.callbacks`."""
from tfcompat.horovod._keras.callbacks import (BroadcastGlobalVariablesCallback,
                                               LearningRateScheduleCallback,
                                               LearningRateWarmupCallback,
                                               MetricAverageCallback)
