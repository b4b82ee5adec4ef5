"""`horovod.tensorflow.keras.callbacks` (`tfcompat/horovod/_keras/callbacks.py`)."""
from tfcompat.horovod._keras.callbacks import (BroadcastGlobalVariablesCallback,
                                               LearningRateScheduleCallback,
                                               LearningRateWarmupCallback,
                                               MetricAverageCallback)
