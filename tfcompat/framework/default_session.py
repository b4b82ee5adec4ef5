"""TF1's per-thread session state: the default-session stack and the session now running.

TF keeps `get_default_session` and its stack in `framework/ops.py`; here they are a module of
their own below the client, so variables, iterators, queues and summaries can ask which
session is running (or is default) without importing `tf.Session` itself.
"""
import threading

from tfcompat._api import tf_export

_local = threading.local()


def running_session():
    """The session whose `run` is executing on this thread (None outside a run)."""
    return getattr(_local, "running", None)


def swap_running_session(session):
    """Make `session` the one running on this thread; returns the previous one to restore."""
    previous = getattr(_local, "running", None)
    _local.running = session
    return previous


def default_session_stack():
    """This thread's stack of sessions entered with `as_default()` / `with Session()`."""
    if not hasattr(_local, "defaults"):
        _local.defaults = []
    return _local.defaults


@tf_export(v1=["get_default_session"])
def get_default_session():
    """The innermost session made default with `as_default()` / `with Session()`."""
    stack = default_session_stack()
    return stack[-1] if stack else None


def session_for(session, graph):
    """The session `Tensor.eval` / `Operation.run` use: `session`, else the default one."""
    session = session if session is not None else get_default_session()
    if session is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                         "registered. Use `with sess.as_default()` or pass an explicit session "
                         "to `eval(session=sess)`")
    if session.graph is not graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph "
                         "is different from the session's graph.")
    return session
