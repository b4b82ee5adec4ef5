"""`tf.estimator.train_and_evaluate` with `TrainSpec` / `EvalSpec` (local mode).

As TF 1.15 runs it without a cluster: `estimator.train(max_steps=...)` with a checkpoint
listener that evaluates after each new checkpoint (at most once per `throttle_secs`) and after
the last one. Returns `(metrics of the last evaluation, export results)`. Exporters (SavedModel
export) and distributed runs (a TF_CONFIG cluster) raise NotImplementedError.
"""
import collections
import logging

from tfcompat._api import tf_export
from tfcompat.estimator.estimator import Estimator
from tfcompat.train.basic_session_run_hooks import CheckpointSaverListener, SecondOrStepTimer
from tfcompat.train.session_run_hook import SessionRunHook

_logger = logging.getLogger("tensorflow")


def _validate_input_fn(input_fn):
    if not callable(input_fn):
        raise TypeError("`input_fn` must be callable, given: {}".format(input_fn))


def _validate_hooks(hooks):
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError("All hooks must be `SessionRunHook` instances, given: {}"
                            .format(hook))
    return hooks


def _validate_saving_listeners(saving_listeners):
    listeners = tuple(saving_listeners or [])
    for listener in listeners:
        if not isinstance(listener, CheckpointSaverListener):
            raise TypeError("All saving_listeners must be `CheckpointSaverListener` instances, "
                            "given: {}".format(listener))
    return listeners


@tf_export("estimator.TrainSpec")
class TrainSpec(collections.namedtuple("TrainSpec",
                                       ["input_fn", "max_steps", "hooks", "saving_listeners"])):
    """How `train_and_evaluate` trains: input_fn, max_steps (None: until the input ends)."""

    def __new__(cls, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        _validate_input_fn(input_fn)
        if max_steps is not None and max_steps <= 0:
            raise ValueError("Must specify max_steps > 0, given: {}".format(max_steps))
        return super(TrainSpec, cls).__new__(
            cls, input_fn=input_fn, max_steps=max_steps, hooks=_validate_hooks(hooks),
            saving_listeners=_validate_saving_listeners(saving_listeners))


@tf_export("estimator.EvalSpec")
class EvalSpec(collections.namedtuple("EvalSpec", ["input_fn", "steps", "name", "hooks",
                                                   "exporters", "start_delay_secs",
                                                   "throttle_secs"])):
    """How `train_and_evaluate` evaluates: input_fn, steps (None: to the end of the input),
    name, hooks, and at most one evaluation per `throttle_secs`."""

    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None,
                start_delay_secs=120, throttle_secs=600):
        _validate_input_fn(input_fn)
        if steps is not None and steps <= 0:
            raise ValueError("Must specify steps > 0, given: {}".format(steps))
        if name is not None and not isinstance(name, str):
            raise TypeError("`name` must be string, given: {}".format(name))
        if exporters:
            raise NotImplementedError("EvalSpec(exporters=...): tfcompat cannot export "
                                      "SavedModels; leave exporters out")
        if start_delay_secs < 0:
            raise ValueError("Must specify start_delay_secs >= 0, given: {}"
                             .format(start_delay_secs))
        if throttle_secs < 0:
            raise ValueError("Must specify throttle_secs >= 0, given: {}".format(throttle_secs))
        return super(EvalSpec, cls).__new__(
            cls, input_fn=input_fn, steps=steps, name=name, hooks=_validate_hooks(hooks),
            exporters=(), start_delay_secs=start_delay_secs, throttle_secs=throttle_secs)


class _EvaluateAfterCheckpoint(CheckpointSaverListener):
    """Evaluates each new checkpoint (throttled) and the last one."""

    def __init__(self, estimator, eval_spec):
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._previous_checkpoint = None
        self.eval_result = None

    def begin(self):
        self._timer = SecondOrStepTimer(every_secs=self._eval_spec.throttle_secs)
        self._is_first_run = True

    def after_save(self, session, global_step_value):
        if self._is_first_run:  # the checkpoint of the untrained (or restored) model
            self._is_first_run = False
            return
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            _logger.info("Skip the current checkpoint eval due to throttle secs (%s secs).",
                         self._eval_spec.throttle_secs)

    def end(self, session, global_step_value):
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        latest = self._estimator.latest_checkpoint()
        if latest is None or latest == self._previous_checkpoint:
            raise RuntimeError("There was no new checkpoint after the training.")
        self.eval_result = self._estimator.evaluate(
            input_fn=self._eval_spec.input_fn, steps=self._eval_spec.steps,
            name=self._eval_spec.name, checkpoint_path=latest, hooks=self._eval_spec.hooks)
        self._previous_checkpoint = latest


@tf_export("estimator.train_and_evaluate")
def train_and_evaluate(estimator, train_spec, eval_spec):
    """Train `estimator` per `train_spec`, evaluating per `eval_spec` after checkpoints;
    returns (the last evaluation's metrics, []) as TF's local mode does (None for the
    metrics when nothing was trained, e.g. max_steps was already reached)."""
    if not isinstance(estimator, Estimator):
        raise TypeError("`estimator` must have type `tf.estimator.Estimator`. Got: {}"
                        .format(type(estimator)))
    if not isinstance(train_spec, TrainSpec):
        raise TypeError("`train_spec` must have type `tf.estimator.TrainSpec`. Got: {}"
                        .format(type(train_spec)))
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError("`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {}"
                        .format(type(eval_spec)))
    config = estimator.config
    _logger.info("Start train and evaluate loop. The evaluate will happen after every "
                 "checkpoint. Checkpoint frequency is determined based on RunConfig arguments: "
                 "save_checkpoints_steps %s or save_checkpoints_secs %s.",
                 config.save_checkpoints_steps, config.save_checkpoints_secs)
    listener = _EvaluateAfterCheckpoint(estimator, eval_spec)
    estimator.train(input_fn=train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=list(train_spec.hooks),
                    saving_listeners=list(train_spec.saving_listeners) + [listener])
    return listener.eval_result, []
