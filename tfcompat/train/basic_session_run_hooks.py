"""TF's standard session-run hooks (`basic_session_run_hooks.py`), timers and listeners.

The hooks behave as TF 1.15's: the same arguments, errors, log lines (through the Python
logger "tensorflow") and event-file contents. The global step they watch is read through
`global_step_read()`, a read of the global step kept in the graph (TF's
`_get_or_create_global_step_read`). Where we differ: ops of a tfcompat graph run in the order
they were created, so a read created before the train op (the Estimator creates it first)
sees the step before the update, as TF's hooks assume; one created after it sees the value
after, and the hooks' second read of the step keeps them right either way.
"""
import logging
import os
import time

import numpy as np
from tensorboard.compat.proto import event_pb2, meta_graph_pb2, summary_pb2

from tfcompat._api import tf_export
from tfcompat.framework import errors
from tfcompat.framework.graph import get_default_graph
from tfcompat.summary.writer import FileWriterCache
from tfcompat.train import checkpoint_format, training_util
from tfcompat.train.session_run_hook import SessionRunArgs, SessionRunHook

_logger = logging.getLogger("tensorflow")

GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"
SAVERS = "savers"


def global_step_read(graph=None):
    """A tensor reading the global step of `graph` (created once), or None without one."""
    graph = graph if graph is not None else get_default_graph()
    cached = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if cached:
        return cached[0]
    step = training_util.get_global_step(graph)
    if step is None:
        return None
    with graph.as_default(), graph.name_scope(None), graph.name_scope(step.op.name + "/"):
        read = step.read_value() if hasattr(step, "read_value") else step
    graph.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return read


def _required_global_step_read(hook_name):
    read = global_step_read()
    if read is None:
        raise RuntimeError("Global step should be created to use %s." % hook_name)
    return read


def _as_graph_element(obj):
    """A tensor, op or tensor name as an element of the default graph."""
    graph = get_default_graph()
    if isinstance(obj, str) and ":" not in obj:
        element = graph.as_graph_element(obj + ":0")
        try:
            graph.as_graph_element(obj + ":1")
        except (KeyError, ValueError):
            return element
        raise ValueError("Name %s is ambiguous, as this `Operation` has multiple outputs "
                         "(at least 2)." % obj)
    return graph.as_graph_element(obj)


# ---------------------------------------------------------------- timers


@tf_export("estimator.SecondOrStepTimer", v1=["train.SecondOrStepTimer"])
class SecondOrStepTimer(object):
    """Triggers at most once every `every_secs` seconds or every `every_steps` steps."""

    def __init__(self, every_secs=None, every_steps=None):
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")
        self._every_secs = every_secs
        self._every_steps = every_steps
        self.reset()

    def reset(self):
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step):
        """True the first time, then once `every_steps` steps or `every_secs` have passed."""
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and \
                time.time() >= self._last_triggered_time + self._every_secs:
            return True
        return self._every_steps is not None and \
            step >= self._last_triggered_step + self._every_steps

    def update_last_triggered_step(self, step):
        """Record a trigger at `step`; returns (seconds, steps) since the last one, or Nones."""
        now = time.time()
        if self._last_triggered_time is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_triggered_time, step - self._last_triggered_step)
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed

    def last_triggered_step(self):
        return self._last_triggered_step


class NeverTriggerTimer(SecondOrStepTimer):
    """A timer that never triggers (LoggingTensorHook with only `at_end`)."""

    def __init__(self):
        self.reset()

    def should_trigger_for_step(self, step):
        return False

    def update_last_triggered_step(self, step):
        return (None, None)


# ---------------------------------------------------------------- hooks


@tf_export("estimator.LoggingTensorHook", v1=["train.LoggingTensorHook"])
class LoggingTensorHook(SessionRunHook):
    """Logs "tag = value, ..." (tags sorted for a dict) every N steps or seconds, and/or at
    the end, at INFO level of the "tensorflow" logger."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and "
                             "every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError("invalid every_n_iter=%s." % every_n_iter)
        if isinstance(tensors, dict):
            self._tag_order = sorted(tensors.keys())
        else:
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        self._tensors = tensors
        self._formatter = formatter
        self._timer = NeverTriggerTimer() if only_log_at_end else SecondOrStepTimer(
            every_secs=every_n_secs, every_steps=every_n_iter)
        self._log_at_end = at_end

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(tensor)
                                 for tag, tensor in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values):
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        try:
            elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
            if self._formatter:
                _logger.info(self._formatter(tensor_values))
                return
            stats = ", ".join("%s = %s" % (tag, tensor_values[tag]) for tag in self._tag_order)
            if elapsed_secs is not None:
                _logger.info("%s (%.3f sec)", stats, elapsed_secs)
            else:
                _logger.info("%s", stats)
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


@tf_export("estimator.StopAtStepHook", v1=["train.StopAtStepHook"])
class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches `last_step` (or `num_steps` more)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        self._global_step_tensor = _required_global_step_read("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = session.run(self._global_step_tensor) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= self._last_step:
            # the read may precede this run's update: look at the step as it is now
            if run_context.session.run(self._global_step_tensor) >= self._last_step:
                run_context.request_stop()


@tf_export("estimator.CheckpointSaverListener", v1=["train.CheckpointSaverListener"])
class CheckpointSaverListener(object):
    """Callbacks around the saves of a `CheckpointSaverHook`; `after_save` returning True
    asks training to stop."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


def _write_graph_text(graph, directory, name):
    from google.protobuf import text_format
    os.makedirs(directory, exist_ok=True)
    text = text_format.MessageToString(graph.as_graph_def(add_shapes=True))
    with checkpoint_format.atomic_file(os.path.join(directory, name)) as f:
        f.write(text.encode("utf-8"))


@tf_export("estimator.CheckpointSaverHook", v1=["train.CheckpointSaverHook"])
class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint when the session starts, every N steps or seconds, and at the end.

    Also writes `graph.pbtxt` and the graph / meta graph events into `checkpoint_dir`."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None,
                 save_graph_def=True):
        _logger.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._save_graph_def = save_graph_def

    def begin(self):
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _required_global_step_read("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        global_step = session.run(self._global_step_tensor)
        graph = get_default_graph()
        if self._save_graph_def:
            _write_graph_text(graph, self._checkpoint_dir, "graph.pbtxt")
        saver = self._get_saver()
        meta_graph_def = meta_graph_pb2.MetaGraphDef(
            graph_def=graph.as_graph_def(add_shapes=True))
        if saver is not None:
            meta_graph_def.saver_def.CopyFrom(saver.saver_def)
        self._summary_writer.add_graph(graph)
        self._summary_writer.add_meta_graph(meta_graph_def)
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        if self._timer.should_trigger_for_step(run_values.results + 1):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step):
        """Save the checkpoint for `step`; True if a listener asks to stop."""
        _logger.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        _logger.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=int(step),
                               write_meta_graph=self._save_graph_def)
        self._summary_writer.add_session_log(event_pb2.SessionLog(
            status=event_pb2.SessionLog.CHECKPOINT, checkpoint_path=self._save_path), step)
        _logger.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                _logger.info("A CheckpointSaverListener requested that training be stopped. "
                             "listener: %s", listener)
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = get_default_graph().get_collection(SAVERS)
        if not savers:
            raise RuntimeError("No items in collection %s. Please add a saver to the "
                               "collection or provide a saver or scaffold." % SAVERS)
        if len(savers) > 1:
            raise RuntimeError("More than one item in collection %s. Please indicate which one "
                               "to use by passing it to the constructor." % SAVERS)
        self._saver = savers[0]
        return self._saver


@tf_export("estimator.StepCounterHook", v1=["train.StepCounterHook"])
class StepCounterHook(SessionRunHook):
    """Logs "global_step/sec: N" and writes it as a summary every N steps or seconds."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be "
                             "provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._warned_steps = 0

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _required_global_step_read("StepCounterHook")
        self._summary_tag = training_util.get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step):
        steps_per_sec = elapsed_steps / elapsed_time
        if self._summary_writer is not None:
            self._summary_writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
                tag=self._summary_tag, simple_value=steps_per_sec)]), global_step)
        _logger.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + 1):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(
                    global_step)
                if elapsed_time is not None and elapsed_time > 0:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step and self._warned_steps < 5:
            self._warned_steps += 1
            _logger.warning(
                "It seems that global step (tf.train.get_global_step) has not been increased. "
                "Current value (could be stable): %s vs previous value: %s. You could increase "
                "the global step by passing tf.train.get_global_step() to "
                "Optimizer.apply_gradients or Optimizer.minimize.",
                stale_global_step, self._last_global_step)
        self._last_global_step = stale_global_step


@tf_export("estimator.NanLossDuringTrainingError", v1=["train.NanLossDuringTrainingError"])
class NanLossDuringTrainingError(RuntimeError):
    """Raised by `NanTensorHook` when the loss is NaN."""

    def __str__(self):
        return "NaN loss during training."


@tf_export("estimator.NanTensorHook", v1=["train.NanTensorHook"])
class NanTensorHook(SessionRunHook):
    """Fails (NanLossDuringTrainingError) or stops training when the loss is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                _logger.error(message)
                raise NanLossDuringTrainingError
            _logger.warning(message)
            run_context.request_stop()


@tf_export("estimator.SummarySaverHook", v1=["train.SummarySaverHook"])
class SummarySaverHook(SessionRunHook):
    """Runs the summary op (the scaffold's, or `summary_op`) every N steps or seconds and
    writes its result, plus a START session log, to `output_dir`."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _required_global_step_read("SummarySaverHook")

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or \
            self._timer.should_trigger_for_step(self._next_step)
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary:
            summary_ops = self._get_summary_op()
            if summary_ops is not None:
                requests["summary"] = summary_ops
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if not self._summary_writer:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
        if self._next_step is None:
            self._summary_writer.add_session_log(
                event_pb2.SessionLog(status=event_pb2.SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self):
        summary_op = self._summary_op if self._summary_op is not None \
            else self._scaffold.summary_op
        if summary_op is None:
            return None
        return summary_op if isinstance(summary_op, list) else [summary_op]


@tf_export("estimator.GlobalStepWaiterHook", v1=["train.GlobalStepWaiterHook"])
class GlobalStepWaiterHook(SessionRunHook):
    """Delays the first step until the global step reaches `wait_until_step` (set by other
    workers in distributed training; in one process it waits until something else moves it)."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = _required_global_step_read("_GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        _logger.info("Waiting for global step %d before starting training.",
                     self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = training_util.global_step(run_context.session,
                                                     self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current_step - last_logged_step > 1000:
                _logger.info("Waiting for global step %d before starting training. Current "
                             "step is %d.", self._wait_until_step, current_step)
                last_logged_step = current_step
            time.sleep(0.5)


@tf_export("estimator.FinalOpsHook", v1=["train.FinalOpsHook"])
class FinalOpsHook(SessionRunHook):
    """Runs `final_ops` when the session ends; their values are `final_ops_values`."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is None:
            return
        try:
            self._final_ops_values = session.run(self._final_ops,
                                                 feed_dict=self._final_ops_feed_dict)
        except errors.OutOfRangeError as e:
            _logger.warning("An OutOfRangeError or StopIteration exception is raised by the "
                            "code in FinalOpsHook. This typically means the Ops running by "
                            "the FinalOpsHook have a dependency back to some input source, "
                            "which should be avoided. %s", e)
            raise


@tf_export("estimator.FeedFnHook", v1=["train.FeedFnHook"])
class FeedFnHook(SessionRunHook):
    """Feeds `feed_fn()` (a dict) into every `run` call."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())
