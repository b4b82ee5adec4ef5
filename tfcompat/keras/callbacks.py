"""`tf.keras.callbacks`: Keras 2's training callbacks and the progress bar.

Logs passed to callbacks are dicts of Python floats (epoch logs: `loss`, metric names,
`val_*`). Batch hooks run only for callbacks that override them, so a plain `fit` does not
read values back from the device after every batch; the progress bar reads them only when
it redraws.
"""
import collections
import csv
import logging
import os
import shutil
import sys
import time

import numpy as np
from tensorboard.compat.proto import summary_pb2

from tfcompat._api import tf_export
from tfcompat.distribute import multi_worker_util
from tfcompat.summary import summary_v2
from tfcompat.framework import context
from tfcompat.train import checkpoint as checkpoint_lib
from tfcompat.train import saver as saver_lib
from tfcompat.variables import Variable
from tfcompat.keras import backend

_logger = logging.getLogger("tensorflow")


def _to_python(value):
    if isinstance(value, (int, float, str)) or value is None:
        return value
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    if isinstance(value, np.generic):
        return value.item()
    return value


def logs_to_python(logs):
    """A copy of `logs` with tensors converted to Python numbers."""
    return {k: _to_python(v) for k, v in (logs or {}).items()}


class Progbar(object):
    """Keras' text progress bar: `12/32 [=====>....] - ETA: 0s - loss: 0.2345`.

    On a terminal the bar is redrawn in place (at most every `interval` seconds); otherwise
    only the final line of each bar is printed.
    """

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step"):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = stateful_metrics if isinstance(stateful_metrics, _AllNames) \
            else set(stateful_metrics or ())
        self._dynamic_display = (hasattr(sys.stdout, "isatty") and sys.stdout.isatty()) or \
            "ipykernel" in sys.modules
        self._total_width = 0
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0

    def update(self, current, values=None, finalize=None):
        """Show progress `current` of `target` with `values` [(name, value), ...]."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        now = time.time()
        if self.verbose == 1 and not finalize and (
                not self._dynamic_display or now - self._last_update < self.interval):
            self._seen_so_far = current
            return
        for k, v in values or ():
            v = _to_python(v)
            if k not in self._values_order:
                self._values_order.append(k)
            if k not in self.stateful_metrics:
                base = max(current - self._seen_so_far, 1)
                if k not in self._values:
                    self._values[k] = [v * base, base]
                else:
                    self._values[k][0] += v * base
                    self._values[k][1] += base
            else:
                self._values[k] = [v, 1]
        self._seen_so_far = current
        info = " - %.0fs" % (now - self._start)
        if self.verbose == 1:
            previous_width = self._total_width
            if self._dynamic_display:
                sys.stdout.write("\b" * previous_width + "\r")
            bar = self._bar(current)
            self._total_width = len(bar)
            sys.stdout.write(bar)
            time_per_unit = (now - self._start) / current if current else 0
            if self.target is None or finalize:
                info += self._per_unit(time_per_unit)
            else:
                eta = time_per_unit * (self.target - current)
                if eta > 3600:
                    eta_format = "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
                elif eta > 60:
                    eta_format = "%d:%02d" % (eta // 60, eta % 60)
                else:
                    eta_format = "%ds" % eta
                info = " - ETA: %s" % eta_format
            info += self._metrics()
            self._total_width += len(info)
            if previous_width > self._total_width:
                info += " " * (previous_width - self._total_width)
            if finalize:
                info += "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
        elif self.verbose == 2 and finalize:
            digits = int(np.log10(self.target)) + 1 if self.target else 1
            count = ("%" + str(digits) + "d/%d") % (current, self.target or current)
            sys.stdout.write(count + info + self._metrics() + "\n")
            sys.stdout.flush()
        self._last_update = now

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)

    def _bar(self, current):
        if self.target is None:
            return "%7d/Unknown" % current
        digits = int(np.log10(self.target)) + 1 if self.target > 0 else 1
        bar = ("%" + str(digits) + "d/%d [") % (current, self.target)
        progress = float(current) / self.target if self.target else 1.0
        filled = int(self.width * progress)
        if filled > 0:
            bar += "=" * (filled - 1)
            bar += ">" if current < self.target else "="
        return bar + "." * (self.width - filled) + "]"

    def _per_unit(self, time_per_unit):
        if time_per_unit >= 1 or time_per_unit == 0:
            return " %.0fs/%s" % (time_per_unit, self.unit_name)
        if time_per_unit >= 1e-3:
            return " %.0fms/%s" % (time_per_unit * 1e3, self.unit_name)
        return " %.0fus/%s" % (time_per_unit * 1e6, self.unit_name)

    def _metrics(self):
        info = ""
        for k in self._values_order:
            total, count = self._values[k]
            avg = np.mean(total / max(1, count))
            info += " - %s:" % k
            info += " %.4f" % avg if abs(avg) > 1e-3 else " %.4e" % avg
        return info


# ---------------------------------------------------------------- the base class


def _writes_files(model):
    """Whether this worker's callback files are kept: TF's multi-worker Keras keeps only the
    chief's checkpoints, backups and logs."""
    strategy = getattr(model, "distribute_strategy", None)
    return strategy is None or strategy.extended.should_checkpoint


def _write_dir(model, directory):
    """Where this worker writes what belongs in `directory` (TF's distributed_file_utils):
    the chief there, another worker of several replicas in a `workertemp_<rank>` directory
    beside it, removed after, so that every worker runs the same saving code."""
    if _writes_files(model):
        return directory
    return os.path.join(directory, "workertemp_%d" % multi_worker_util.current_placement().rank)


@tf_export("keras.callbacks.Callback")
class Callback(object):
    """Base class of callbacks: override the `on_*` hooks you need."""

    _supports_tf_logs = False

    def __init__(self):
        self.validation_data = None
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_batch_begin(self, batch, logs=None):
        """A backwards compatibility alias for `on_train_batch_begin`."""

    def on_batch_end(self, batch, logs=None):
        """A backwards compatibility alias for `on_train_batch_end`."""

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        pass

    def on_test_batch_end(self, batch, logs=None):
        pass

    def on_predict_batch_begin(self, batch, logs=None):
        pass

    def on_predict_batch_end(self, batch, logs=None):
        pass

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_test_begin(self, logs=None):
        pass

    def on_test_end(self, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass


_BATCH_HOOKS = {
    "train": ("on_train_batch_begin", "on_train_batch_end", "on_batch_begin", "on_batch_end"),
    "test": ("on_test_batch_begin", "on_test_batch_end"),
    "predict": ("on_predict_batch_begin", "on_predict_batch_end"),
}


def _overrides(callback, mode):
    cls = type(callback)
    return any(getattr(cls, hook) is not getattr(Callback, hook) or hook in vars(callback)
               for hook in _BATCH_HOOKS[mode])


@tf_export("keras.callbacks.CallbackList")
class CallbackList(object):
    """Calls a list of callbacks; `fit` adds the progress bar and History."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        self.callbacks = list(callbacks) if callbacks else []
        self.model = None
        self.params = {}
        self._batch_hook_callbacks = {}     # mode -> the callbacks with batch hooks
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.insert(0, ProgbarLogger(count_mode="steps"))
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback):
        self.callbacks.append(callback)
        self._batch_hook_callbacks = {}

    def set_params(self, params):
        self.params = params
        for callback in self.callbacks:
            callback.set_params(params)

    def set_model(self, model):
        self.model = model
        for callback in self.callbacks:
            callback.set_model(model)

    def initial_epoch(self, initial_epoch):
        """The epoch `fit` starts at after `on_train_begin`: the one after the last epoch a
        `BackupAndRestore` restored, else `initial_epoch` (Keras 2's
        `_maybe_load_initial_counters_from_ckpt`)."""
        for callback in self.callbacks:
            restored = getattr(callback, "restored_epoch", None)
            if restored is not None and restored >= 0:
                return restored + 1
        return initial_epoch

    def needs_batch_hooks(self, mode):
        """Whether any callback does something per batch in `mode` (train/test/predict)."""
        return bool(self._batch_callbacks(mode))

    def _batch_callbacks(self, mode):
        found = self._batch_hook_callbacks.get(mode)
        if found is None:
            found = self._batch_hook_callbacks[mode] = [
                c for c in self.callbacks if _overrides(c, mode)]
        return found

    def _call(self, hook, *args, logs=None):
        """Calls `hook` of each callback with the logs passed positionally, as Keras 2 does
        (so `LambdaCallback(on_epoch_end=lambda epoch, l: ...)` works)."""
        python_logs = None
        for callback in self.callbacks:
            if callback._supports_tf_logs:
                getattr(callback, hook)(*args, logs)
                continue
            if python_logs is None:
                python_logs = logs_to_python(logs) if logs is not None else None
            getattr(callback, hook)(*args, python_logs)

    def _call_batch(self, mode, hook, batch, logs):
        for callback in self._batch_callbacks(mode):
            if callback._supports_tf_logs:
                getattr(callback, hook)(batch, logs)
            else:
                getattr(callback, hook)(batch, logs_to_python(logs))

    def on_batch_begin(self, batch, logs=None):
        self._call_batch("train", "on_train_batch_begin", batch, logs)

    def on_batch_end(self, batch, logs=None):
        self._call_batch("train", "on_train_batch_end", batch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call_batch("train", "on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call_batch("train", "on_train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call_batch("test", "on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call_batch("test", "on_test_batch_end", batch, logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call_batch("predict", "on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call_batch("predict", "on_predict_batch_end", batch, logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs=logs)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs=logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs=logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs=logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs=logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs=logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs=logs)

    def __iter__(self):
        return iter(self.callbacks)


# ---------------------------------------------------------------- built-in callbacks


@tf_export("keras.callbacks.History")
class History(Callback):
    """Records epoch logs: `history.history['loss']`, `history.epoch`; fit returns it."""

    def __init__(self):
        super(History, self).__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)

    def set_model(self, model):
        super(History, self).set_model(model)
        model.history = self


@tf_export("keras.callbacks.BaseLogger")
class BaseLogger(Callback):
    """Averages batch metrics over each epoch (weighted by the batch's `size` in the logs);
    `stateful_metrics` are taken as they are at the last batch."""

    def __init__(self, stateful_metrics=None):
        super(BaseLogger, self).__init__()
        self.stateful_metrics = set(stateful_metrics or [])

    def on_epoch_begin(self, epoch, logs=None):
        self.seen = 0
        self.totals = {}

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        batch_size = logs.get("size", 0)
        self.seen += batch_size
        for k, v in logs.items():
            if k in self.stateful_metrics:
                self.totals[k] = v
            elif k in self.totals:
                self.totals[k] += v * batch_size
            else:
                self.totals[k] = v * batch_size

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            for k in self.params.get("metrics", self.totals):
                if k in self.totals:
                    logs[k] = self.totals[k] if k in self.stateful_metrics else \
                        self.totals[k] / max(self.seen, 1)


@tf_export("keras.callbacks.ProgbarLogger")
class ProgbarLogger(Callback):
    """Prints `Epoch i/n` and Keras' progress bar (`verbose` 1) or one line per epoch (2)."""

    _supports_tf_logs = True

    def __init__(self, count_mode="samples", stateful_metrics=None):
        super(ProgbarLogger, self).__init__()
        if count_mode not in ("samples", "steps"):
            raise ValueError("Unknown `count_mode`: " + str(count_mode))
        self.use_steps = count_mode == "steps"
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics else None
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1

    def set_params(self, params):
        super(ProgbarLogger, self).set_params(params)
        self.verbose = params.get("verbose", 1)
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps") if self.use_steps else params.get("samples")

    def _new_bar(self, target):
        self.seen = 0
        stateful = self.stateful_metrics
        if stateful is None:        # every Keras 2 metric (the loss too) is stateful
            stateful = _ALL_NAMES
        self.progbar = Progbar(target=target, verbose=self.verbose, stateful_metrics=stateful,
                               unit_name="step" if self.use_steps else "sample")

    def on_train_begin(self, logs=None):
        self.epochs = self.params.get("epochs", self.epochs)

    def on_epoch_begin(self, epoch, logs=None):
        if self.verbose and self.epochs > 1:
            print("Epoch %d/%d" % (epoch + 1, self.epochs))
        self._new_bar(self.target)

    def on_train_batch_end(self, batch, logs=None):
        self._batch_update(batch, logs)

    def on_test_begin(self, logs=None):
        if self.model is not None and getattr(self.model, "_in_fit", False):
            return
        self._new_bar(self.params.get("steps"))

    def on_test_batch_end(self, batch, logs=None):
        if self.model is not None and getattr(self.model, "_in_fit", False):
            return
        self._batch_update(batch, logs)

    def on_test_end(self, logs=None):
        if self.model is not None and getattr(self.model, "_in_fit", False):
            return
        self._finalize(logs)

    def on_predict_begin(self, logs=None):
        self._new_bar(self.params.get("steps"))

    def on_predict_batch_end(self, batch, logs=None):
        self._batch_update(batch, None)

    def on_predict_end(self, logs=None):
        self._finalize(None)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize(logs)

    def _batch_update(self, batch, logs):
        if self.progbar is None:
            return
        self.seen = batch + 1 if self.use_steps else self.seen + (logs or {}).get("size", 1)
        if self.verbose == 1:
            items = [(k, v) for k, v in (logs or {}).items() if k not in ("batch", "size")]
            self.progbar.update(self.seen, items, finalize=False)

    def _finalize(self, logs):
        if self.progbar is None or not self.verbose:
            return
        items = [(k, v) for k, v in (logs or {}).items() if k not in ("batch", "size")]
        if self.target is None:
            self.target = self.seen
            self.progbar.target = self.seen
        self.progbar.update(self.seen, items, finalize=True)
        self.progbar = None


class _AllNames(object):
    """Matches every metric name (`name in _ALL_NAMES` is True)."""

    def __contains__(self, name):
        return True


_ALL_NAMES = _AllNames()


@tf_export("keras.callbacks.TerminateOnNaN")
class TerminateOnNaN(Callback):
    """Stops training when the loss becomes NaN or infinite."""

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print("Batch %d: Invalid loss, terminating training" % batch)
            self.model.stop_training = True


def _monitor_op(mode, monitor, callback_name):
    if mode not in ("auto", "min", "max"):
        _logger.warning("%s mode %s is unknown, fallback to auto mode.", callback_name, mode)
        mode = "auto"
    if mode == "min":
        return np.less
    if mode == "max":
        return np.greater
    return np.greater if "acc" in monitor or monitor.startswith("fmeasure") else np.less


@tf_export("keras.callbacks.ModelCheckpoint")
class ModelCheckpoint(Callback):
    """Saves the model (or its weights) after every epoch or every `save_freq` batches.

    `filepath` may hold `{epoch:02d}` and log names (`{val_loss:.2f}`); with
    `save_best_only` it saves only when `monitor` improved.
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch", options=None,
                 **kwargs):
        super(ModelCheckpoint, self).__init__()
        self.monitor = monitor
        self.verbose = verbose
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self.period = kwargs.pop("period", 1)
        if kwargs:
            raise TypeError("Unexpected keyword arguments for ModelCheckpoint: %s"
                            % sorted(kwargs))
        if self.period != 1:
            _logger.warning("`period` argument is deprecated. Please use `save_freq` to "
                            "specify the frequency in number of batches seen.")
        self.epochs_since_last_save = 0
        self._batches_seen_since_last_saving = 0
        self.monitor_op = _monitor_op(mode, monitor, "ModelCheckpoint")
        self.best = np.inf if self.monitor_op is np.less else -np.inf
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError("Unrecognized save_freq: {}".format(save_freq))

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._batches_seen_since_last_saving += 1
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            self._save_model(self._current_epoch, logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        self.epochs_since_last_save += 1
        if self.save_freq == "epoch" and self.epochs_since_last_save >= self.period:
            self.epochs_since_last_save = 0
            self._save_model(epoch, logs)

    def _save_model(self, epoch, logs):
        logs = logs or {}
        filepath = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                _logger.warning("Can save best model only with %s available, skipping.",
                                self.monitor)
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    print("\nEpoch %05d: %s did not improve from %0.5f" % (
                        epoch + 1, self.monitor, self.best))
                return
            if self.verbose > 0:
                print("\nEpoch %05d: %s improved from %0.5f to %0.5f, saving model to %s" % (
                    epoch + 1, self.monitor, self.best, current, filepath))
            self.best = current
        elif self.verbose > 0:
            print("\nEpoch %05d: saving model to %s" % (epoch + 1, filepath))
        directory = _write_dir(self.model, os.path.dirname(filepath))
        filepath = os.path.join(directory, os.path.basename(filepath))
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        elif not hasattr(self.model, "save"):
            raise NotImplementedError("ModelCheckpoint(save_weights_only=False) needs "
                                      "Model.save, which tfcompat does not implement yet; "
                                      "pass save_weights_only=True")
        else:
            self.model.save(filepath, overwrite=True)
        if not _writes_files(self.model):
            shutil.rmtree(directory, ignore_errors=True)


@tf_export("keras.callbacks.EarlyStopping")
class EarlyStopping(Callback):
    """Stops training when `monitor` stopped improving by `min_delta` for `patience` epochs;
    `restore_best_weights` puts back the weights of the best epoch."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False):
        super(EarlyStopping, self).__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self.monitor_op = _monitor_op(mode, monitor, "EarlyStopping")
        if self.monitor_op is np.less:
            self.min_delta *= -1

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op is np.less else -np.inf
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        current = self.get_monitor_value(logs)
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best = current
            self.wait = 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose > 0:
                    print("Restoring model weights from the end of the best epoch.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print("Epoch %05d: early stopping" % (self.stopped_epoch + 1))

    def get_monitor_value(self, logs):
        value = (logs or {}).get(self.monitor)
        if value is None:
            _logger.warning("Early stopping conditioned on metric `%s` which is not available. "
                            "Available metrics are: %s", self.monitor,
                            ",".join(list((logs or {}).keys())))
        return value


def _optimizer_lr(model):
    optimizer = model.optimizer
    if not hasattr(optimizer, "lr"):
        raise ValueError('Optimizer must have a "lr" attribute.')
    return optimizer.lr


@tf_export("keras.callbacks.LearningRateScheduler")
class LearningRateScheduler(Callback):
    """Sets the learning rate at each epoch start to `schedule(epoch, lr)` (or
    `schedule(epoch)`)."""

    def __init__(self, schedule, verbose=0):
        super(LearningRateScheduler, self).__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        lr_variable = _optimizer_lr(self.model)
        try:
            lr = self.schedule(epoch, float(backend.get_value(lr_variable)))
        except TypeError:
            lr = self.schedule(epoch)
        if hasattr(lr, "dtype") and hasattr(lr, "numpy"):
            if not lr.dtype.is_floating:
                raise ValueError("The dtype of Tensor should be float")
            lr = lr.numpy()
        if not isinstance(lr, (float, np.float32, np.float64)):
            raise ValueError('The output of the "schedule" function should be float.')
        backend.set_value(lr_variable, lr)
        if self.verbose > 0:
            print("\nEpoch %05d: LearningRateScheduler reducing learning rate to %s."
                  % (epoch + 1, lr))

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = backend.get_value(_optimizer_lr(self.model))


@tf_export("keras.callbacks.ReduceLROnPlateau")
class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by `factor` when `monitor` stops improving."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0, **kwargs):
        super(ReduceLROnPlateau, self).__init__()
        self.monitor = monitor
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        if "epsilon" in kwargs:
            min_delta = kwargs.pop("epsilon")
            _logger.warning("`epsilon` argument is deprecated and will be removed, use "
                            "`min_delta` instead.")
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.mode = mode
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            _logger.warning("Learning rate reduction mode %s is unknown, fallback to auto "
                            "mode.", self.mode)
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        lr_variable = _optimizer_lr(self.model)
        logs["lr"] = backend.get_value(lr_variable)
        current = logs.get(self.monitor)
        if current is None:
            _logger.warning("Learning rate reduction is conditioned on metric `%s` which is not "
                            "available. Available metrics are: %s", self.monitor,
                            ",".join(list(logs.keys())))
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = backend.get_value(lr_variable)
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    backend.set_value(lr_variable, new_lr)
                    if self.verbose > 0:
                        print("\nEpoch %05d: ReduceLROnPlateau reducing learning rate to %s."
                              % (epoch + 1, new_lr))
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


@tf_export("keras.callbacks.CSVLogger")
class CSVLogger(Callback):
    """Writes one CSV row of epoch logs per epoch (`epoch` first, then sorted keys)."""

    def __init__(self, filename, separator=",", append=False):
        super(CSVLogger, self).__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        else:
            mode = "w"
        self.csv_file = open(self.filename, mode, newline="")

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}

        def handle_value(k):
            if isinstance(k, str):
                return k
            if isinstance(k, collections.abc.Iterable):
                return '"[%s]"' % (", ".join(map(str, k)))
            return k
        if self.keys is None:
            self.keys = sorted(logs.keys())
        if self.model is not None and getattr(self.model, "stop_training", False):
            logs = dict((k, logs[k]) if k in logs else (k, "NA") for k in self.keys)
        if self.writer is None:
            sep = self.sep

            class CustomDialect(csv.excel):
                delimiter = sep
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=CustomDialect)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((key, handle_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None:
            self.csv_file.close()
        self.writer = None


@tf_export("keras.callbacks.LambdaCallback")
class LambdaCallback(Callback):
    """A callback built from functions: `on_epoch_end=lambda epoch, logs: ...`, ..."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
        super(LambdaCallback, self).__init__()
        self.__dict__.update(kwargs)
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_batch_begin", on_batch_begin), ("on_batch_end", on_batch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end)):
            if fn is not None:
                setattr(self, name, fn)



@tf_export("keras.callbacks.TensorBoard")
class TensorBoard(Callback):
    """Writes epoch (and with `update_freq`, batch) scalars to `log_dir/train` and
    `log_dir/validation` as TF2 Keras does (`epoch_loss`, `epoch_accuracy`, ...), weight
    histograms every `histogram_freq` epochs, and with `write_graph` (the default) the
    model's config (TensorBoard's Keras model view) and the graph of its call (Graphs tab).
    Where we differ: the graph is tfcompat's trace of the model's call, not of the train
    step; images, profiles and embeddings are not written (those options are accepted)."""

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 update_freq="epoch", profile_batch=2, embeddings_freq=0,
                 embeddings_metadata=None, **kwargs):
        super(TensorBoard, self).__init__()
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.profile_batch = profile_batch
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._writers = {}
        self._total_batches_seen = 0

    def _writer(self, name):
        if name not in self._writers:
            self._writers[name] = summary_v2.create_file_writer(os.path.join(
                self.log_dir, name)) if _writes_files(self.model) else \
                summary_v2.create_noop_writer()
        return self._writers[name]

    def _write(self, writer_name, prefix, logs, step):
        with self._writer(writer_name).as_default():
            for name, value in logs.items():
                summary_v2.scalar(prefix + name, value, step=step)

    def on_train_begin(self, logs=None):
        self._total_batches_seen = 0
        if self.write_graph:
            self._write_model_graph()

    def _write_model_graph(self):
        """At step 0 in `train`: the model's JSON config under the tag "keras" (plugin
        "graph_keras_model", as TF's `keras_model_summary`) and the graph of its call, when
        the model has them (a subclassed model without get_config or known inputs: not)."""
        with self._writer("train").as_default():
            try:
                config = self.model.to_json()
            except NotImplementedError:
                config = None
            if config is not None:
                metadata = summary_pb2.SummaryMetadata()
                metadata.plugin_data.plugin_name = "graph_keras_model"
                metadata.plugin_data.content = b"1"
                summary_v2.write("keras", config, step=0, metadata=metadata)
            call = self.model._list_functions_for_serialization().get("__call__")
            if call is not None:
                summary_v2.graph(call._all_traces()[0].graph)

    def on_train_batch_end(self, batch, logs=None):
        self._total_batches_seen += 1
        if self.update_freq != "epoch" and self._total_batches_seen % self.update_freq == 0:
            logs = {k: v for k, v in (logs or {}).items() if k not in ("batch", "size")}
            self._write("train", "batch_", logs, self._total_batches_seen)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        self._write("train", "epoch_", train, epoch)
        if val:
            self._write("validation", "epoch_", val, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            with self._writer("train").as_default():
                for weight in self.model.weights:
                    summary_v2.histogram(weight.name.split(":")[0].replace(":", "_"), weight,
                                         step=epoch)
        for writer in self._writers.values():
            writer.flush()

    def on_train_end(self, logs=None):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}



@tf_export("keras.callbacks.BackupAndRestore", "keras.callbacks.experimental.BackupAndRestore")
class BackupAndRestore(Callback):
    """Keras 2.15's fault tolerance: at the end of each epoch the model (weights and
    optimizer state) and the epoch are saved to `backup_dir/chief` (a `tf.train.Checkpoint`
    kept by a `CheckpointManager`, as Keras); a `fit` started with a backup there restores it
    and resumes at the next epoch; a `fit` that finishes deletes `backup_dir/chief` unless
    `delete_checkpoint=False`. Eager only, as in Keras. Where we differ: `save_freq` must be "epoch" (Keras' integer
    batch frequency and `save_before_preemption` raise NotImplementedError)."""

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True,
                 save_before_preemption=False):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if not context.executing_eagerly():
            raise ValueError("BackupAndRestore only supports eager mode. In graph mode, "
                             "consider using ModelCheckpoint to manually save and restore "
                             "weights with `model.load_weights()` and by providing "
                             "`initial_epoch` in `model.fit()` for fault tolerance.")
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError('Unrecognized save_freq value "%s". Expected save_freq are '
                             '"epoch" or integer values' % (save_freq,))
        if save_freq != "epoch":
            raise NotImplementedError("keras.callbacks.BackupAndRestore with an integer "
                                      "save_freq (tfcompat backs up once per epoch)")
        if save_before_preemption:
            raise NotImplementedError("keras.callbacks.BackupAndRestore with "
                                      "save_before_preemption=True")
        self.backup_dir = backup_dir
        self.save_freq = save_freq
        self.delete_checkpoint = delete_checkpoint
        self.save_before_preemption = save_before_preemption
        self.restored_epoch = None
        self._epoch = None
        self._manager = None

    def on_train_begin(self, logs=None):
        self._epoch = Variable(-1, dtype="int64", trainable=False, name="ckpt_saved_epoch")
        checkpoint = checkpoint_lib.Checkpoint(model=self.model, epoch=self._epoch)
        chief_dir = os.path.join(self.backup_dir, "chief")
        latest = saver_lib.latest_checkpoint(chief_dir)   # every worker reads the chief's
        self._manager = checkpoint_lib.CheckpointManager(
            checkpoint, directory=_write_dir(self.model, chief_dir), max_to_keep=1)
        if latest:
            checkpoint.restore(latest)
        self.restored_epoch = int(self._epoch.numpy())

    def on_epoch_end(self, epoch, logs=None):
        self._epoch.assign(epoch)
        self._manager.save()

    def on_train_end(self, logs=None):
        if not _writes_files(self.model):
            shutil.rmtree(self._manager.directory, ignore_errors=True)
        elif self.delete_checkpoint:
            shutil.rmtree(os.path.join(self.backup_dir, "chief"), ignore_errors=True)
        self.restored_epoch = None
        self._manager = self._epoch = None
