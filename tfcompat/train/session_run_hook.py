"""`tf.train.SessionRunHook` and the values passed to hooks (TF's `session_run_hook.py`).

A hook sees a `MonitoredSession`'s life: `begin()` before the graph is finalized,
`after_create_session(session, coord)` once variables are initialized or restored,
`before_run(run_context)` / `after_run(run_context, run_values)` around every `run` call,
and `end(session)` when the session is closed normally (also after OutOfRangeError).
"""
import collections

from tfcompat._api import tf_export


@tf_export("estimator.SessionRunHook", v1=["train.SessionRunHook"])
class SessionRunHook(object):
    """Base class for hooks of a `MonitoredSession`; every method does nothing here."""

    def begin(self):
        """Called once before the session is created; the graph may still be changed."""

    def after_create_session(self, session, coord):
        """Called when the session is ready (initialized or restored); the graph is final."""

    def before_run(self, run_context):
        """Called before each `run`; may return `SessionRunArgs` to add fetches and feeds."""
        return None

    def after_run(self, run_context, run_values):
        """Called after each `run` with the results of this hook's fetches."""

    def end(self, session):
        """Called when the session is closed without an error (OutOfRangeError counts as none)."""


@tf_export("estimator.SessionRunArgs", v1=["train.SessionRunArgs"])
class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook adds to a `run` call: fetches (any nested structure), feeds, options."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super(SessionRunArgs, cls).__new__(cls, fetches, feed_dict, options)


@tf_export("estimator.SessionRunContext", v1=["train.SessionRunContext"])
class SessionRunContext(object):
    """The `run` call a hook is called for: its arguments, the session, a stop request."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        """The `SessionRunArgs` of the caller's `run` call."""
        return self._original_args

    @property
    def session(self):
        """The raw `tf.Session` (runs here call no hooks)."""
        return self._session

    @property
    def stop_requested(self):
        return self._stop_requested

    def request_stop(self):
        """Make `should_stop()` true once this `run` call is over."""
        self._stop_requested = True


@tf_export("estimator.SessionRunValues", v1=["train.SessionRunValues"])
class SessionRunValues(collections.namedtuple("SessionRunValues",
                                              ["results", "options", "run_metadata"])):
    """The results of a hook's `SessionRunArgs.fetches` (same structure), options, metadata."""
