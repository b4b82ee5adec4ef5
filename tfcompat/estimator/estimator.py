"""`tf.estimator.Estimator`: train, evaluate and predict with a `model_fn`, checkpoints and
summaries in `model_dir` (tensorflow_estimator 1.15's `estimator.py`).

Every call builds a fresh `tf.Graph` and runs TF1 graph code in it, whether the process runs
eagerly (a TF2-style script) or builds graphs: `input_fn` (a `tf.data.Dataset`, read through
an initializable iterator, or a `(features, labels)` tuple of tensors), the global step,
`model_fn`, then a monitored session that restores the latest checkpoint of `model_dir`.
`train` stops at the step limit or at the end of the input (OutOfRangeError), saves
checkpoints per `RunConfig` and at the end, and writes summaries (the graph's `tf.summary`
ops, `loss`, `global_step/sec`) to `model_dir`; it logs "loss = ..., step = ..." and
"global_step/sec: ..." through the "tensorflow" logger. `evaluate` returns the metrics with
'loss' and 'global_step' and writes them under `model_dir/eval[_name]`; `predict` yields
predictions one example (or one batch) at a time.

Where we differ: `tf_random_seed` sets tfcompat's process-wide seed (TF sets a seed on the
Estimator's graph only); warm starting, SavedModel export in other modes than PREDICT
and distribution strategies raise NotImplementedError; `predict` leaves its graph between two yielded values, so the caller's
default graph is not changed while it iterates (TF keeps the Estimator's graph as default).
"""
import copy
import inspect
import logging
import os
import tempfile
import time

import numpy as np
from tensorboard.compat.proto import summary_pb2

from tfcompat._api import tf_export
from tfcompat.data.dataset_ops import Dataset
from tfcompat.data import iterator_ops
from tfcompat.client.session import Session
from tfcompat.estimator import run_config as run_config_lib
from tfcompat.estimator.export import export as export_lib
from tfcompat.estimator.model_fn import LOSS_METRIC_KEY, EstimatorSpec, ModeKeys
from tfcompat.framework import random_seed
from tfcompat.framework.graph import Graph
from tfcompat.framework.tensor import Tensor
from tfcompat.metrics import metrics_impl
from tfcompat.saved_model import builder_impl, tag_constants
from tfcompat.ops import control_flow_ops
from tfcompat.summary import encoding
from tfcompat.summary import summary as summary_lib
from tfcompat.summary.writer import FileWriterCache
from tfcompat.train import basic_session_run_hooks as hooks_lib
from tfcompat.train import monitored_session, saver as saver_lib, training_util
from tfcompat.train.session_run_hook import SessionRunArgs, SessionRunHook
from tfcompat.variables import LOCAL_VARIABLES, Variable

_logger = logging.getLogger("tensorflow")

_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}
GLOBAL_STEP = "global_step"
LOSSES = "losses"
EVAL_STEP = "eval_step"


def fn_args(fn):
    """The names of `fn`'s parameters (functools.partial and callables included), as TF's
    `function_utils.fn_args`: arguments bound by a partial are left out."""
    return tuple(name for name, p in inspect.signature(fn).parameters.items()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))


def verify_model_fn_args(model_fn, params):
    """TF's checks of a model_fn's parameters against `params`."""
    args = set(fn_args(model_fn))
    if "features" not in args:
        raise ValueError("model_fn (%s) must include features argument." % model_fn)
    if params is not None and "params" not in args:
        raise ValueError("model_fn (%s) does not include params argument, but params (%s) is "
                         "passed to Estimator." % (model_fn, params))
    if params is None and "params" in args:
        _logger.warning("Estimator's model_fn (%s) includes params argument, but params are "
                        "not passed to Estimator.", model_fn)
    unexpected = sorted(args - _VALID_MODEL_FN_ARGS)
    if unexpected:
        raise ValueError("model_fn (%s) has following not expected args: %s"
                         % (model_fn, unexpected))


class _DatasetInitializerHook(SessionRunHook):
    """Runs an input iterator's initializer once the session exists."""

    def __init__(self, iterator):
        self._iterator = iterator

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        session.run(self._initializer)


def parse_input_fn_result(result):
    """(features, labels or None, input hooks) from what an input_fn returned."""
    hooks = []
    if isinstance(result, Dataset):
        iterator = iterator_ops.make_initializable_iterator(result)
        hooks.append(_DatasetInitializerHook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1], hooks
    return result, None, hooks


def _check_hooks_type(hooks):
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError("Hooks must be a SessionRunHook, given: {}".format(hook))
    return hooks


def _check_listeners_type(saving_listeners):
    listeners = list(saving_listeners or [])
    for listener in listeners:
        if not isinstance(listener, hooks_lib.CheckpointSaverListener):
            raise TypeError("saving_listeners must be a list of CheckpointSaverListener, given: "
                            "{}".format(listener))
    return listeners


def _load_global_step_from_checkpoint_dir(checkpoint_dir):
    latest = saver_lib.latest_checkpoint(checkpoint_dir)
    if latest is None:
        return 0
    try:
        return int(saver_lib.load_variable(latest, GLOBAL_STEP))
    except (ValueError, KeyError, OSError) as e:
        _logger.warning("Could not read the global step from %s (%s); counting from 0",
                        latest, e)
        return 0


def _maybe_overwrite_model_dir(config, model_dir):
    if config is None:
        config = run_config_lib.RunConfig()
        _logger.info("Using default config.")
    if not isinstance(config, run_config_lib.RunConfig):
        raise ValueError("config must be an instance of `RunConfig`, but provided %s." % config)
    model_dir = os.fspath(model_dir) if model_dir is not None else None
    if model_dir is not None and config.model_dir is not None and config.model_dir != model_dir:
        raise ValueError("`model_dir` are set both in constructor and `RunConfig`, but with "
                         "different values. In constructor: '{}', in `RunConfig`: '{}' "
                         .format(model_dir, config.model_dir))
    if model_dir:
        return config.replace(model_dir=model_dir)
    if config.model_dir is None:
        model_dir = tempfile.mkdtemp()
        _logger.warning("Using temporary folder as model directory: %s", model_dir)
        return config.replace(model_dir=model_dir)
    return config


def _get_or_create_eval_step(graph):
    """The local int64 counter of evaluation batches (TF's `eval_step`)."""
    steps = graph.get_collection(EVAL_STEP)
    if len(steps) == 1:
        return steps[0]
    if len(steps) > 1:
        raise ValueError("Multiple tensors added to tf.GraphKeys.EVAL_STEP")
    return Variable(np.int64(0), trainable=False, name="eval_step",
                    collections=[LOCAL_VARIABLES, EVAL_STEP])


class _StopAfterNEvalsHook(SessionRunHook):
    """Stops evaluation after `num_evals` batches, logging "Evaluation [i/n]"."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals = num_evals
        self._evals_completed = None
        self._log_progress = log_progress
        self._log_frequency = 1 if num_evals is None or num_evals < 20 \
            else int(num_evals // 10)

    def _set_evals_completed_tensor(self, updated_eval_step):
        self._evals_completed = updated_eval_step

    def before_run(self, run_context):
        return SessionRunArgs({"evals_completed": self._evals_completed})

    def after_run(self, run_context, run_values):
        evals_completed = run_values.results["evals_completed"]
        if self._log_progress:
            if self._num_evals is None:
                _logger.info("Evaluation [%d]", evals_completed)
            elif evals_completed % self._log_frequency == 0 or \
                    self._num_evals == evals_completed:
                _logger.info("Evaluation [%d/%d]", evals_completed, self._num_evals)
        if self._num_evals is not None and evals_completed >= self._num_evals:
            run_context.request_stop()


def _dict_to_str(dictionary):
    return ", ".join("%s = %s" % (k, v) for k, v in sorted(dictionary.items())
                     if not isinstance(v, bytes))


def _write_dict_to_summary(output_dir, dictionary, current_global_step):
    """Log the evaluation results and write them as scalar summaries to `output_dir`."""
    _logger.info("Saving dict for global step %d: %s", current_global_step,
                 _dict_to_str(dictionary))
    writer = FileWriterCache.get(output_dir)
    summary = summary_pb2.Summary()
    for key, value in dictionary.items():
        if value is None or key == GLOBAL_STEP:
            continue
        if isinstance(value, (np.floating, float, np.integer, int)) and \
                not isinstance(value, bool):
            summary.value.add(tag=key, simple_value=float(value))
        elif isinstance(value, bytes):
            try:
                parsed = summary_pb2.Summary.FromString(value)
            except Exception:  # noqa: BLE001 - protobuf's DecodeError, as TF catches it
                _logger.warning("Skipping summary for %s, cannot parse string to Summary.", key)
                continue
            for i, item in enumerate(parsed.value):
                item.tag = "%s/%d" % (key, i)
            summary.value.extend(parsed.value)
        elif isinstance(value, np.ndarray):
            summary.value.add(tag=key, node_name=key, tensor=encoding.tensor_proto(value))
        else:
            _logger.warning("Skipping summary for %s, must be a float, np.float32, np.int64, "
                            "np.int32 or int or np.ndarray or a serialized string of Summary.",
                            key)
    writer.add_summary(summary, current_global_step)
    writer.flush()


def _write_checkpoint_path_to_summary(output_dir, checkpoint_path, current_global_step):
    _logger.info("Saving 'checkpoint_path' summary for global step %d: %s",
                 current_global_step, checkpoint_path)
    summary = summary_pb2.Summary()
    summary.value.add(tag="checkpoint_path", tensor=encoding.tensor_proto(
        np.array(checkpoint_path.encode("utf-8"), dtype=object)))
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(summary, current_global_step)
    writer.flush()


def _extract_metric_update_ops(eval_dict):
    update_ops, value_ops = [], {}
    for name, (value, update) in sorted(eval_dict.items()):
        value_ops[name] = value
        update_ops.append(update)
    return (control_flow_ops.group(*update_ops) if update_ops else None), value_ops


def _has_dataset_or_queue_runner(graph, features):
    flat = features.values() if isinstance(features, dict) else [features]
    if any(isinstance(t, Tensor) and getattr(t.op, "type", None) == "IteratorGetNext"
           for t in flat):
        return True
    return bool(graph.get_collection(monitored_session.QUEUE_RUNNERS))


@tf_export("estimator.Estimator")
class Estimator(object):
    """Trains, evaluates and predicts with a `model_fn` (see the module docstring)."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 warm_start_from=None):
        self._config = _maybe_overwrite_model_dir(config, model_dir)
        self._model_dir = self._config.model_dir
        self._session_config = self._config.session_config
        _logger.info("Using config: %s", {k.lstrip("_"): v for k, v in vars(self._config).items()})
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        verify_model_fn_args(model_fn, params)
        if warm_start_from is not None:
            raise NotImplementedError("Estimator(warm_start_from=...) is not implemented by "
                                      "tfcompat; restore the variables in a Scaffold init_fn")
        self._model_fn = model_fn
        self._params = copy.deepcopy(params or {})

    @property
    def model_dir(self):
        return self._model_dir

    @property
    def config(self):
        return copy.deepcopy(self._config)

    @property
    def params(self):
        return copy.deepcopy(self._params)

    @property
    def model_fn(self):
        """The model_fn bound to this Estimator's params: `fn(features, labels, mode, config)`."""
        def public_model_fn(features, labels, mode, config):
            return self._call_model_fn(features, labels, mode, config)
        return public_model_fn

    # ------------------------------------------------------------ checkpoints
    def latest_checkpoint(self):
        """The prefix of the newest checkpoint in model_dir, or None."""
        return saver_lib.latest_checkpoint(self.model_dir)

    def _check_checkpoint_available(self):
        if not self.latest_checkpoint():
            raise ValueError("Could not find trained model in model_dir: {}."
                             .format(self.model_dir))

    def get_variable_value(self, name):
        """The value (numpy) of variable `name` in the latest checkpoint."""
        self._check_checkpoint_available()
        return saver_lib.load_variable(self.model_dir, name)

    def get_variable_names(self):
        """The names of the variables in the latest checkpoint."""
        self._check_checkpoint_available()
        return [name for name, _ in saver_lib.list_variables(self.model_dir)]

    def eval_dir(self, name=None):
        """Where `evaluate(name=...)` writes its summaries."""
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    # ------------------------------------------------------------ building blocks
    def _new_graph(self):
        graph = Graph()
        if self._config.tf_random_seed is not None:
            random_seed.set_random_seed(self._config.tf_random_seed)
        return graph

    def _create_global_step(self, graph):
        step = training_util.create_global_step(graph)
        if not step.dtype.is_integer:
            raise TypeError("The global step must be an integer variable, got %s" % step.dtype)
        return step

    def _call_input_fn(self, input_fn, mode):
        args = fn_args(input_fn)
        kwargs = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = self.config
        return input_fn(**kwargs)

    def _call_model_fn(self, features, labels, mode, config):
        args = fn_args(self._model_fn)
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        _logger.info("Calling model_fn.")
        spec = self._model_fn(features=features, **kwargs)
        _logger.info("Done calling model_fn.")
        if not isinstance(spec, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")
        return spec

    # ------------------------------------------------------------ train
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Train until `steps` more steps, the absolute `max_steps`, or the end of the input;
        resumes from the latest checkpoint in model_dir. Returns self."""
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError("Must specify steps > 0, given: {}".format(steps))
        if max_steps is not None and max_steps <= 0:
            raise ValueError("Must specify max_steps > 0, given: {}".format(max_steps))
        if max_steps is not None and \
                max_steps <= _load_global_step_from_checkpoint_dir(self._model_dir):
            _logger.info("Skipping training since max_steps has already saved.")
            return self
        hooks = _check_hooks_type(hooks)
        if steps is not None or max_steps is not None:
            hooks.append(hooks_lib.StopAtStepHook(steps, max_steps))
        saving_listeners = _check_listeners_type(saving_listeners)
        graph = self._new_graph()
        with graph.as_default():
            loss = self._train_model(graph, input_fn, hooks, saving_listeners)
        _logger.info("Loss for final step: %s.", loss)
        return self

    def _train_model(self, graph, input_fn, hooks, saving_listeners):
        self._create_global_step(graph)
        hooks_lib.global_step_read(graph)
        features, labels, input_hooks = parse_input_fn_result(
            self._call_input_fn(input_fn, ModeKeys.TRAIN))
        spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self.config)
        global_step = training_util.get_global_step(graph)
        if not any(getattr(s.op, "name", None) == "loss"
                   for s in graph.get_collection(summary_lib.SUMMARIES)):
            summary_lib.scalar("loss", spec.loss)
        graph.add_to_collection(LOSSES, spec.loss)
        worker_hooks = list(input_hooks) + list(hooks)
        worker_hooks.append(hooks_lib.NanTensorHook(spec.loss))
        if self._config.log_step_count_steps is not None:
            worker_hooks.append(hooks_lib.LoggingTensorHook(
                {"loss": spec.loss, "step": global_step},
                every_n_iter=self._config.log_step_count_steps))
        worker_hooks.extend(spec.training_hooks)
        if not (spec.scaffold.saver or graph.get_collection(hooks_lib.SAVERS)):
            graph.add_to_collection(hooks_lib.SAVERS, saver_lib.Saver(
                sharded=True, max_to_keep=self._config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=self._config.keep_checkpoint_every_n_hours,
                defer_build=True, save_relative_paths=True))
        chief_hooks = []
        saver_hooks = [h for h in worker_hooks + list(spec.training_chief_hooks)
                       if isinstance(h, hooks_lib.CheckpointSaverHook)]
        if (self._config.save_checkpoints_secs or self._config.save_checkpoints_steps) and \
                not saver_hooks:
            chief_hooks = [hooks_lib.CheckpointSaverHook(
                self._model_dir, save_secs=self._config.save_checkpoints_secs,
                save_steps=self._config.save_checkpoints_steps, scaffold=spec.scaffold,
                save_graph_def=self._config.checkpoint_save_graph_def)]
            saver_hooks = [chief_hooks[0]]
        if saving_listeners:
            if not saver_hooks:
                raise ValueError("There should be a CheckpointSaverHook to use saving_listeners. "
                                 "Please set one of the RunConfig.save_checkpoints_steps or "
                                 "RunConfig.save_checkpoints_secs.")
            for listener in saving_listeners:
                if listener not in saver_hooks[0]._listeners:
                    saver_hooks[0]._listeners.append(listener)
        loss = None
        any_step_done = False
        with monitored_session.MonitoredTrainingSession(
                checkpoint_dir=self._model_dir, scaffold=spec.scaffold, hooks=worker_hooks,
                chief_only_hooks=tuple(chief_hooks) + tuple(spec.training_chief_hooks),
                save_checkpoint_secs=0, save_summaries_steps=self._config.save_summary_steps,
                config=self._session_config,
                log_step_count_steps=self._config.log_step_count_steps) as mon_sess:
            while not mon_sess.should_stop():
                _, loss = mon_sess.run([spec.train_op, spec.loss])
                any_step_done = True
        if not any_step_done:
            _logger.warning("Training with estimator made no steps. Perhaps input is empty or "
                            "misspecified.")
        return loss

    # ------------------------------------------------------------ evaluate
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluate on `input_fn` (until its end, or `steps` batches) with the latest (or the
        given) checkpoint; returns the metrics plus 'loss' and 'global_step'."""
        hooks = _check_hooks_type(hooks)
        if steps is not None:
            if steps <= 0:
                raise ValueError("Must specify steps > 0, given: {}".format(steps))
            hooks.append(_StopAfterNEvalsHook(num_evals=steps))
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
            if not checkpoint_path:
                _logger.info("Could not find trained model in model_dir: %s, running "
                             "initialization to evaluate.", self._model_dir)
        graph = self._new_graph()
        with graph.as_default():
            return self._evaluate(graph, input_fn, hooks, checkpoint_path, self.eval_dir(name))

    def _evaluate(self, graph, input_fn, hooks, checkpoint_path, output_dir):
        self._create_global_step(graph)
        features, labels, input_hooks = parse_input_fn_result(
            self._call_input_fn(input_fn, ModeKeys.EVAL))
        spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self.config)
        if LOSS_METRIC_KEY in spec.eval_metric_ops:
            raise ValueError("Metric with name \"%s\" is not allowed, because Estimator already "
                             "defines a default metric with the same name." % LOSS_METRIC_KEY)
        metric_ops = dict(spec.eval_metric_ops)
        metric_ops[LOSS_METRIC_KEY] = metrics_impl.mean(spec.loss)
        update_op, eval_dict = _extract_metric_update_ops(metric_ops)
        if GLOBAL_STEP in eval_dict:
            raise ValueError("Metric with name `global_step` is not allowed, because Estimator "
                             "already defines a default metric with the same name.")
        eval_dict[GLOBAL_STEP] = training_util.get_global_step(graph)
        all_hooks = list(input_hooks) + list(hooks) + list(spec.evaluation_hooks)
        scaffold = spec.scaffold
        if scaffold.local_init_op is not None:
            _get_or_create_eval_step(graph)
            scaffold = monitored_session.Scaffold(
                local_init_op=control_flow_ops.group(
                    scaffold.local_init_op, monitored_session.Scaffold.default_local_init_op()),
                copy_from_scaffold=scaffold)
        results = self._evaluate_once(graph, checkpoint_path, scaffold, update_op, eval_dict,
                                      all_hooks)
        step = results[GLOBAL_STEP]
        _write_dict_to_summary(output_dir, results, step)
        if checkpoint_path:
            _write_checkpoint_path_to_summary(output_dir, checkpoint_path, step)
        return results

    def _evaluate_once(self, graph, checkpoint_path, scaffold, update_op, final_ops, hooks):
        eval_step = _get_or_create_eval_step(graph)
        eval_ops = [update_op, eval_step.assign_add(np.int64(1))]
        with graph.control_dependencies([op for op in eval_ops if op is not None]):
            evals_completed = eval_step.read_value()
        for hook in hooks:
            if isinstance(hook, _StopAfterNEvalsHook):
                hook._set_evals_completed_tensor(evals_completed)
        _logger.info("Starting evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%S"))
        start = time.time()
        final_ops_hook = hooks_lib.FinalOpsHook(final_ops)
        creator = monitored_session.ChiefSessionCreator(
            scaffold=scaffold, checkpoint_filename_with_path=checkpoint_path,
            config=self._session_config)
        with monitored_session.MonitoredSession(session_creator=creator,
                                                hooks=hooks + [final_ops_hook]) as session:
            while not session.should_stop():
                session.run(eval_ops)
        _logger.info("Inference Time : %0.5fs", time.time() - start)
        _logger.info("Finished evaluation at %s", time.strftime("%Y-%m-%d-%H:%M:%S"))
        return final_ops_hook.final_ops_values

    # ------------------------------------------------------------ predict
    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Yield predictions for every example of `input_fn` (a dict per example, or the
        values of a single predictions tensor); whole batches if not yield_single_examples."""
        hooks = _check_hooks_type(hooks)
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
        if not checkpoint_path:
            _logger.info("Could not find trained model in model_dir: %s, running "
                         "initialization to predict.", self._model_dir)
        graph = self._new_graph()
        with graph.as_default():
            self._create_global_step(graph)
            features, _, input_hooks = parse_input_fn_result(
                self._call_input_fn(input_fn, ModeKeys.PREDICT))
            if not _has_dataset_or_queue_runner(graph, features):
                _logger.warning("Input graph does not use tf.data.Dataset or contain a "
                                "QueueRunner. That means predict yields forever. This is "
                                "probably a mistake.")
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self.config)
            predictions = self._extract_keys(spec.predictions, predict_keys)
            creator = monitored_session.ChiefSessionCreator(
                scaffold=spec.scaffold, checkpoint_filename_with_path=checkpoint_path,
                config=self._session_config)
            session = monitored_session.MonitoredSession(
                session_creator=creator,
                hooks=list(input_hooks) + hooks + list(spec.prediction_hooks))
        with session:
            while not session.should_stop():
                values = session.run(predictions)
                if not yield_single_examples:
                    yield values
                elif not isinstance(predictions, dict):
                    for row in values:
                        yield row
                else:
                    for i in range(self._extract_batch_length(values)):
                        yield {key: value[i] for key, value in values.items()}

    @staticmethod
    def _extract_keys(predictions, predict_keys):
        if predict_keys is None:
            return predictions
        if not isinstance(predictions, dict):
            raise ValueError("predict_keys argument is not valid in case of non-dict "
                             "predictions.")
        existing = list(predictions.keys())
        chosen = {k: v for k, v in predictions.items() if k in predict_keys}
        if not chosen:
            raise ValueError("Expected to run at least one output from %s, provided %s."
                             % (existing, predict_keys))
        return chosen

    @staticmethod
    def _extract_batch_length(values):
        batch_length = None
        for key, value in values.items():
            batch_length = batch_length or value.shape[0]
            if value.shape[0] != batch_length:
                raise ValueError("Batch length of predictions should be same. %s has different "
                                 "batch length than others." % key)
        return batch_length

    # ------------------------------------------------------------ export
    def export_saved_model(self, export_dir_base, serving_input_receiver_fn,
                           assets_extra=None, as_text=False, checkpoint_path=None,
                           experimental_mode=ModeKeys.PREDICT):
        """Export the model for serving: `serving_input_receiver_fn`'s receiver feeds the
        model_fn in PREDICT mode, its export_outputs (default: a PredictOutput of the
        predictions) give the signatures, the variables come from the latest (or the given)
        checkpoint. Writes the SavedModel to `export_dir_base/<timestamp>` (atomically) and
        returns that path as bytes, as TF does."""
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        if experimental_mode != ModeKeys.PREDICT:
            raise NotImplementedError("Estimator.export_saved_model(experimental_mode=%r) is "
                                      "not implemented by tfcompat (PREDICT only)"
                                      % (experimental_mode,))
        if assets_extra:
            raise NotImplementedError("Estimator.export_saved_model(assets_extra=...) is not "
                                      "implemented by tfcompat")
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
        if not checkpoint_path:
            raise ValueError("Couldn't find trained model at {}.".format(self._model_dir))
        graph = self._new_graph()
        with graph.as_default():
            self._create_global_step(graph)
            receiver = serving_input_receiver_fn()
            spec = self._call_model_fn(receiver.features, None, ModeKeys.PREDICT, self.config)
            signature_def_map = export_lib.build_all_signature_defs(
                receiver.receiver_tensors,
                export_lib.get_export_outputs(spec.export_outputs, spec.predictions),
                receiver.receiver_tensors_alternatives)
            local_init_op = spec.scaffold.local_init_op if \
                spec.scaffold.local_init_op is not None else \
                monitored_session.Scaffold.default_local_init_op()
            saver = spec.scaffold.saver or saver_lib.Saver(sharded=True)
            export_dir = export_lib.get_timestamped_export_dir(export_dir_base)
            with Session(config=self._session_config) as session:
                saver.restore(session, checkpoint_path)
                builder = builder_impl.SavedModelBuilder(export_dir)
                builder.add_meta_graph_and_variables(
                    session, [tag_constants.SERVING], signature_def_map=signature_def_map,
                    main_op=local_init_op, saver=saver)
            builder.save(as_text)
        _logger.info("SavedModel written to: %s", export_dir.decode("utf-8"))
        return export_dir

    export_savedmodel = export_saved_model

    def experimental_export_all_saved_models(self, *args, **kwargs):
        raise NotImplementedError("Estimator.experimental_export_all_saved_models is not "
                                  "implemented by tfcompat; use export_saved_model")
