"""`tf.train.MonitoredSession`, `MonitoredTrainingSession`, `Scaffold` and session creators
(TF 1.15's `monitored_session.py`, single process).

A monitored session calls its hooks' `begin()`, finalizes the graph (`Scaffold.finalize`),
creates a `tf.Session` that restores the latest checkpoint of `checkpoint_dir` (or the given
checkpoint) or else runs the init op, then the local init op, checks that every variable has a
value, and calls `after_create_session`. Each `run` merges the hooks' `SessionRunArgs` into
one `Session.run`; `should_stop()` turns true once a hook requests it. Used as a context
manager, OutOfRangeError (the end of the input) closes it normally: hooks' `end()` run.

Where we differ: there is no distributed training, so `is_chief=False`, `master` targets and
`WorkerSessionCreator` raise NotImplementedError, and no session is recovered after an
AbortedError (TF recreates it after a worker failure).
"""
import inspect
import logging

import numpy as np

from tfcompat._api import tf_export
from tfcompat.client.session import Session
from tfcompat.framework import errors
from tfcompat.framework.graph import GraphKeys, get_default_graph
from tfcompat.ops import control_flow_ops
from tfcompat.summary import summary as summary_lib
from tfcompat.train import basic_session_run_hooks as hooks_lib
from tfcompat.train import saver as saver_lib
from tfcompat.train.coordinator import Coordinator
from tfcompat.train.queue_runner import start_queue_runners
from tfcompat.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues
from tfcompat import variables

_logger = logging.getLogger("tensorflow")

USE_DEFAULT = object()

INIT_OP = "init_op"
LOCAL_INIT_OP = "local_init_op"
READY_OP = "ready_op"
READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
SUMMARY_OP = "summary_op"


@tf_export(v1=["train.Scaffold"])
class Scaffold(object):
    """What a monitored session needs to start: init ops, readiness checks, the summary op
    and the saver. Unset parts get TF's defaults (or the graph's collection entries) in
    `finalize()`, which also finalizes the graph."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None,
                 saver=None, copy_from_scaffold=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            source = copy_from_scaffold
            init_op = init_op or source.init_op
            init_feed_dict = init_feed_dict or source._init_feed_dict
            init_fn = init_fn or source._user_init_fn
            ready_op = ready_op or source.ready_op
            ready_for_local_init_op = ready_for_local_init_op or source.ready_for_local_init_op
            local_init_op = local_init_op or source.local_init_op
            summary_op = summary_op or source.summary_op
            saver = saver or source.saver
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self):
        """Create the missing ops with TF's defaults, build the saver, finalize the graph."""
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", INIT_OP,
                lambda: control_flow_ops.group(variables.global_variables_initializer()))
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", READY_OP, variables.report_uninitialized_variables)
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", READY_FOR_LOCAL_INIT_OP,
                lambda: variables.report_uninitialized_variables(
                    variables.global_variables()))
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", LOCAL_INIT_OP, Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default("summary_op", SUMMARY_OP,
                                                       summary_lib.merge_all)
        if self._saver is None:
            self._saver = _get_saver_or_default()
        if isinstance(self._saver, saver_lib.Saver):
            self._saver.build()
        get_default_graph().finalize()
        _logger.info("Graph was finalized.")
        return self

    init_fn = property(lambda self: self._init_fn)
    init_op = property(lambda self: self._init_op)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    local_init_op = property(lambda self: self._local_init_op)
    summary_op = property(lambda self: self._summary_op)
    saver = property(lambda self: self._saver)
    init_feed_dict = property(lambda self: self._init_feed_dict)

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The single item of `collection_key`, else `default_constructor()` (added to it)."""
        graph = get_default_graph()
        elements = graph.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(
                    "More than one item in the collection \"%s\". Please indicate which one to "
                    "use by passing it to the tf.Scaffold constructor as:  tf.Scaffold(%s=item "
                    "to use)" % (collection_key, arg_name))
            return elements[0]
        op = default_constructor()
        if op is not None:
            graph.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """Initializes the local variables (metrics' accumulators, epoch counters)."""
        return control_flow_ops.group(variables.local_variables_initializer())


def _get_saver_or_default():
    """The saver of the SAVERS collection, else a new one added to it."""
    graph = get_default_graph()
    savers = graph.get_collection(hooks_lib.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError("More than one item in collection %s. Please indicate which one "
                               "to use by passing it to the constructor." % hooks_lib.SAVERS)
        return savers[0]
    saver = saver_lib.Saver(sharded=True, allow_empty=True)
    graph.add_to_collection(hooks_lib.SAVERS, saver)
    return saver


# ---------------------------------------------------------------- session creation


def _no_distribution(what, master):
    if master:
        raise NotImplementedError(
            "%s with master=%r: tfcompat runs in one process and has no distributed "
            "TensorFlow targets; leave master empty" % (what, master))


def _ready(op, sess, what):
    """(True, None) if `op` reports no uninitialized variable, else (False, message)."""
    if op is None:
        return True, None
    value = sess.run(op)
    if value is None or getattr(value, "dtype", None) == np.int32 or np.size(value) == 0:
        return True, None
    names = ", ".join(v.decode("utf-8") if isinstance(v, bytes) else str(v)
                      for v in np.ravel(value))
    return False, "Variables not initialized%s: %s" % (what, names)


def _op_name(op):
    return getattr(op, "name", op)


def prepare_session(scaffold, checkpoint_dir=None, checkpoint_filename_with_path=None,
                    config=None):
    """A new Session of the default graph with the model restored or initialized and the
    local init op run (TF's `SessionManager.prepare_session` for the chief)."""
    graph = get_default_graph()
    sess = Session(graph=graph, config=config)
    saver = scaffold.saver
    if checkpoint_dir and checkpoint_filename_with_path:
        raise ValueError("Can not provide both checkpoint_dir and "
                         "checkpoint_filename_with_path.")
    restored = False
    if saver is not None and checkpoint_filename_with_path:
        saver.restore(sess, checkpoint_filename_with_path)
        restored = True
    elif saver is not None and checkpoint_dir:
        state = saver_lib.get_checkpoint_state(checkpoint_dir)
        if state is not None and state.model_checkpoint_path:
            saver.restore(sess, state.model_checkpoint_path)
            saver.recover_last_checkpoints(list(state.all_model_checkpoint_paths))
            restored = True
    if not restored:
        if scaffold.init_op is None and not scaffold.init_fn and scaffold.local_init_op is None:
            raise RuntimeError("Model is not initialized and no init_op or init_fn or "
                               "local_init_op was given")
        if scaffold.init_op is not None:
            sess.run(scaffold.init_op, feed_dict=scaffold.init_feed_dict)
        if scaffold.init_fn:
            scaffold.init_fn(sess)
    if scaffold.local_init_op is not None:
        ready, message = _ready(scaffold.ready_for_local_init_op, sess, "")
        if not ready:
            raise RuntimeError("Init operations did not make model ready for local_init.  Init "
                               "op: %s, init fn: %s, error: %s"
                               % (_op_name(scaffold.init_op), scaffold.init_fn, message))
        _logger.info("Running local_init_op.")
        sess.run(scaffold.local_init_op)
        _logger.info("Done running local_init_op.")
    ready, message = _ready(scaffold.ready_op, sess, "")
    if not ready:
        raise RuntimeError("Init operations did not make model ready.  Init op: %s, init fn: "
                           "%s, local_init_op: %s, error: %s"
                           % (_op_name(scaffold.init_op), scaffold.init_fn,
                              _op_name(scaffold.local_init_op), message))
    return sess


@tf_export(v1=["train.SessionCreator"])
class SessionCreator(object):
    """Makes the `tf.Session` of a MonitoredSession (`create_session()`)."""

    def create_session(self):
        raise NotImplementedError("SessionCreator.create_session must be implemented by "
                                  "subclasses")


@tf_export(v1=["train.ChiefSessionCreator"])
class ChiefSessionCreator(SessionCreator):
    """Finalizes the scaffold and restores `checkpoint_dir`'s latest checkpoint (or
    `checkpoint_filename_with_path`), else initializes the variables."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        _no_distribution("ChiefSessionCreator", master)
        self._scaffold = scaffold or Scaffold()
        self._config = config
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path

    def create_session(self):
        self._scaffold.finalize()
        return prepare_session(self._scaffold, self._checkpoint_dir,
                               self._checkpoint_filename_with_path, self._config)


@tf_export(v1=["train.WorkerSessionCreator"])
class WorkerSessionCreator(SessionCreator):
    """A non-chief worker's session creator: needs a chief in another process."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        raise NotImplementedError(
            "tf.train.WorkerSessionCreator waits for a chief worker in another process to "
            "initialize the model; tfcompat has no distributed training: use "
            "ChiefSessionCreator (is_chief=True)")


class _StopRequested(Exception):
    """Raised by `StepContext.request_stop()` to end a `run_step_fn` step."""


class StepContext(object):
    """What a `run_step_fn` step function gets: the raw session, `run_with_hooks`, and
    `request_stop()` (which ends the step at once)."""

    def __init__(self, session, run_with_hooks_fn):
        self._session = session
        self._run_with_hooks_fn = run_with_hooks_fn

    @property
    def session(self):
        return self._session

    def run_with_hooks(self, *args, **kwargs):
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self):
        raise _StopRequested("step_fn has requested the iterations to stop.")


class _MonitoredSession(object):
    """The common body of MonitoredSession and SingularMonitoredSession."""

    def __init__(self, session_creator, hooks, stop_grace_period_secs=120):
        self._graph = get_default_graph()
        self._graph_was_finalized = self._graph.finalized
        self._hooks = list(hooks or [])
        self._stop_grace_period_secs = stop_grace_period_secs
        for hook in self._hooks:
            hook.begin()
        creator = session_creator or ChiefSessionCreator()
        self._tf_sess = creator.create_session()
        self._coord = Coordinator(clean_stop_exception_types=[])
        if self._graph.get_collection(GraphKeys.QUEUE_RUNNERS):
            self._threads = start_queue_runners(sess=self._tf_sess, coord=self._coord)
        else:
            self._threads = []
        self._stop_requested = False
        for hook in self._hooks:
            hook.after_create_session(self._tf_sess, self._coord)

    @property
    def graph(self):
        return self._graph

    def should_stop(self):
        return self._tf_sess is None or self._stop_requested or self._coord.should_stop()

    def _check_open(self):
        if self._tf_sess is None:
            raise RuntimeError("Session is already closed.")

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """`Session.run` with the hooks' fetches and feeds added; hooks see the results."""
        self._check_open()
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        run_context = SessionRunContext(SessionRunArgs(fetches, feed_dict), self._tf_sess)
        all_fetches = {"caller": fetches}
        feeds = self._hook_requests(run_context, all_fetches, feed_dict)
        with self._graph.as_default():
            try:
                outputs = self._tf_sess.run(all_fetches, feed_dict=feeds)
            except Exception:
                self._coord.raise_requested_exception()
                raise
            for index, hook in enumerate(self._hooks):
                hook.after_run(run_context, SessionRunValues(
                    results=outputs.get(index), options=options, run_metadata=run_metadata))
        self._stop_requested = self._stop_requested or run_context.stop_requested
        return outputs["caller"]

    def _hook_requests(self, run_context, all_fetches, user_feeds):
        hook_feeds = {}
        for index, hook in enumerate(self._hooks):
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                all_fetches[index] = request.fetches
            if request.feed_dict:
                _check_disjoint_feeds(hook_feeds, request.feed_dict,
                                      "Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
        if not hook_feeds:
            return user_feeds
        if not user_feeds:
            return hook_feeds
        _check_disjoint_feeds(user_feeds, hook_feeds,
                              "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feeds)
        return hook_feeds

    def run_step_fn(self, step_fn):
        """Call `step_fn(step_context)`; its `request_stop()` makes `should_stop()` true."""
        params = list(inspect.signature(step_fn).parameters)
        if params not in (["step_context"], ["self", "step_context"]):
            raise ValueError("`step_fn` may either have one `step_context` argument, or `self` "
                             "and `step_context` arguments if it's an instance method. Got %s "
                             "instead." % (tuple(params),))
        self._check_open()
        try:
            return step_fn(StepContext(self._tf_sess, self.run))
        except _StopRequested:
            self._stop_requested = True
            return None

    def close(self):
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type is not None and issubclass(exception_type,
                                                     (errors.OutOfRangeError, StopIteration)):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None

    def _close_internal(self, exception_type=None):
        with self._graph.as_default():
            try:
                if not exception_type:
                    self._check_open()
                    for hook in self._hooks:
                        hook.end(self._tf_sess)
            finally:
                try:
                    self._check_open()
                    self._coord.request_stop()
                    self._coord.join(self._threads, self._stop_grace_period_secs)
                    self._tf_sess.close()
                finally:
                    self._tf_sess = None
                    if not self._graph_was_finalized:
                        self._graph._unsafe_unfinalize()


def _check_disjoint_feeds(feeds, new_feeds, message):
    overlap = [key for key in new_feeds if key in feeds]
    if overlap:
        raise RuntimeError("%s Conflict(s): %s" % (message, overlap))


@tf_export(v1=["train.MonitoredSession"])
class MonitoredSession(_MonitoredSession):
    """A session that runs hooks around every `run` and initializes or restores the model
    (through `session_creator`, a ChiefSessionCreator by default)."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super(MonitoredSession, self).__init__(session_creator, hooks, stop_grace_period_secs)


@tf_export(v1=["train.SingularMonitoredSession"])
class SingularMonitoredSession(_MonitoredSession):
    """A MonitoredSession for one process, with `raw_session()` giving the tf.Session."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        creator = ChiefSessionCreator(
            scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path)
        super(SingularMonitoredSession, self).__init__(creator, hooks, stop_grace_period_secs)

    def raw_session(self):
        self._check_open()
        return self._tf_sess


@tf_export(v1=["train.MonitoredTrainingSession"])
def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None,  # noqa: N802
                             hooks=None, chief_only_hooks=None,
                             save_checkpoint_secs=USE_DEFAULT,
                             save_summaries_steps=USE_DEFAULT,
                             save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100,
                             max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT,
                             summary_dir=None):
    """A MonitoredSession for training: restores or initializes from `checkpoint_dir`, and
    adds a StepCounterHook, SummarySaverHook (every 100 steps by default) and
    CheckpointSaverHook (every 600 s by default) writing into it, before `hooks`."""
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    if not is_chief:
        raise NotImplementedError(
            "tf.train.MonitoredTrainingSession(is_chief=False) waits for a chief worker in "
            "another process; tfcompat has no distributed training: use is_chief=True")
    scaffold = scaffold or Scaffold()
    all_hooks = list(chief_only_hooks or [])
    session_creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir,
                                          master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(hooks_lib.StepCounterHook(output_dir=summary_dir,
                                                       every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or \
                (save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(hooks_lib.SummarySaverHook(
                scaffold=scaffold, save_steps=save_summaries_steps,
                save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir and ((save_checkpoint_secs and save_checkpoint_secs > 0) or
                           (save_checkpoint_steps and save_checkpoint_steps > 0)):
        all_hooks.append(hooks_lib.CheckpointSaverHook(
            checkpoint_dir, save_steps=save_checkpoint_steps, save_secs=save_checkpoint_secs,
            scaffold=scaffold))
    all_hooks.extend(hooks or [])
    return MonitoredSession(session_creator=session_creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)
