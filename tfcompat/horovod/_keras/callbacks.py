"""Horovod's Keras callbacks (`horovod/_keras/callbacks.py`), on tf.keras' Callback.

`BroadcastGlobalVariablesCallback` differs from Horovod in one way: Horovod broadcasts the
model's and the optimizer's variables at the end of the first batch only (the optimizer's
slots exist from then on), so that first step runs from each worker's own initial weights;
here the variables are also broadcast when training begins, so every step, the first one
included, starts from worker `root_rank`'s weights, and the optimizer variables made by the
first step are broadcast after it. With equal initial weights both give the same results.
"""
import torch

from tfcompat.distribute import cross_device_ops
from tfcompat.horovod.common import basics
from tfcompat.horovod.tensorflow.functions import broadcast_variables
from tfcompat.keras import backend
from tfcompat.keras.callbacks import Callback


class BroadcastGlobalVariablesCallback(Callback):
    """Start every worker from worker `root_rank`'s model and optimizer variables."""

    def __init__(self, root_rank, device=""):
        super(BroadcastGlobalVariablesCallback, self).__init__()
        self.root_rank = root_rank
        self.device = device
        self.broadcast_done = False
        self._optimizer_variables = 0

    def _broadcast(self, variables):
        op = broadcast_variables(variables, self.root_rank)
        if op is not None:           # TF1 Keras: the graph op, run in Keras' session
            backend.get_session().run(op)

    def on_train_begin(self, logs=None):
        optimizer_variables = self.model.optimizer.variables()
        self._broadcast(list(self.model.variables) + list(optimizer_variables))
        self._optimizer_variables = len(optimizer_variables)

    def on_batch_end(self, batch, logs=None):
        if self.broadcast_done:
            return
        made_by_first_step = self.model.optimizer.variables()[self._optimizer_variables:]
        if made_by_first_step:
            self._broadcast(made_by_first_step)
        self.broadcast_done = True


class MetricAverageCallback(Callback):
    """Replaces each epoch-end log value by its average over the workers (float32, as
    Horovod averages them), so callbacks after it and the History see the job's metrics.
    Put it before the callbacks that read the metrics."""

    def __init__(self, device=""):
        super(MetricAverageCallback, self).__init__()
        self.device = device

    def on_epoch_end(self, epoch, logs=None):
        if not logs:
            return
        names = sorted(logs)
        values = torch.tensor([float(logs[name]) for name in names], dtype=torch.float32)
        averaged = cross_device_ops.all_reduce_torch([values], "MEAN")[0]
        for name, value in zip(names, averaged.tolist()):
            logs[name] = value


class LearningRateScheduleCallback(Callback):
    """Sets the learning rate to `initial_lr * multiplier(epoch)` from `start_epoch` up to
    `end_epoch`: at each epoch's first batch (`staircase`), or at every batch with the epoch
    counted fractionally. A number `multiplier` is an exponential decay (`multiplier **
    epoch`). With `momentum_correction`, an optimizer's `momentum` is scaled by new_lr/old_lr
    for the batch where the rate changes (Goyal et al.)."""

    def __init__(self, initial_lr, multiplier, start_epoch=0, end_epoch=None, staircase=True,
                 momentum_correction=True, steps_per_epoch=None):
        super(LearningRateScheduleCallback, self).__init__()
        if initial_lr is None:
            raise ValueError("Parameter `initial_lr` is required")
        self.initial_lr = initial_lr
        self.start_epoch = start_epoch
        self.end_epoch = end_epoch
        self.staircase = staircase
        self.momentum_correction = momentum_correction
        self.steps_per_epoch = steps_per_epoch
        self.restore_momentum = None
        self.current_epoch = None
        if callable(multiplier):
            self.multiplier = multiplier
        else:
            self.multiplier = lambda epoch: multiplier ** epoch

    def _autodetect_steps_per_epoch(self):
        if self.params.get("steps"):
            return self.params["steps"]
        if self.params.get("samples") and self.params.get("batch_size"):
            return self.params["samples"] // self.params["batch_size"]
        raise ValueError("Could not autodetect the number of steps per epoch. Please specify "
                         "the steps_per_epoch parameter to the %s() or upgrade to the latest "
                         "version of Keras." % type(self).__name__)

    def _adjust_learning_rate(self, epoch):
        optimizer = self.model.optimizer
        old_lr = backend.get_value(optimizer.lr)
        new_lr = self.initial_lr * self.multiplier(epoch)
        backend.set_value(optimizer.lr, new_lr)
        if hasattr(optimizer, "momentum") and self.momentum_correction:
            self.restore_momentum = backend.get_value(optimizer.momentum)
            backend.set_value(optimizer.momentum, self.restore_momentum * new_lr / old_lr)

    def on_train_begin(self, logs=None):
        if not self.staircase and not self.steps_per_epoch:
            self.steps_per_epoch = self._autodetect_steps_per_epoch()

    def on_epoch_begin(self, epoch, logs=None):
        self.current_epoch = epoch

    def on_batch_begin(self, batch, logs=None):
        if self.current_epoch < self.start_epoch or (
                self.end_epoch is not None and self.current_epoch >= self.end_epoch):
            return
        if self.staircase and batch == 0:
            self._adjust_learning_rate(self.current_epoch)
        elif not self.staircase:
            self._adjust_learning_rate(self.current_epoch + float(batch) / self.steps_per_epoch)

    def on_batch_end(self, batch, logs=None):
        if self.restore_momentum:
            backend.set_value(self.model.optimizer.momentum, self.restore_momentum)
            self.restore_momentum = None

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = backend.get_value(self.model.optimizer.lr)


class LearningRateWarmupCallback(LearningRateScheduleCallback):
    """Raises the learning rate from `initial_lr / size()` to `initial_lr` over the first
    `warmup_epochs` epochs, batch by batch (Goyal et al.'s gradual warmup)."""

    def __init__(self, initial_lr, warmup_epochs=5, momentum_correction=True,
                 steps_per_epoch=None, verbose=0):
        def multiplier(epoch):
            epoch += 1.0 / self.steps_per_epoch    # whole numbers at the epochs' ends
            workers = basics.size()
            return 1.0 / workers * (epoch * (workers - 1) / warmup_epochs + 1)

        super(LearningRateWarmupCallback, self).__init__(
            initial_lr, multiplier, start_epoch=0, end_epoch=warmup_epochs, staircase=False,
            momentum_correction=momentum_correction, steps_per_epoch=steps_per_epoch)
        self.verbose = verbose

    def on_epoch_end(self, epoch, logs=None):
        super(LearningRateWarmupCallback, self).on_epoch_end(epoch, logs)
        if epoch == self.end_epoch - 1 and self.verbose > 0 and basics.rank() == 0:
            print("\nEpoch %d: finished gradual learning rate warmup to %g." %
                  (epoch + 1, backend.get_value(self.model.optimizer.lr)))
