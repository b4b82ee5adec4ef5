"""`tf.train.QueueRunner`, `add_queue_runner`, `start_queue_runners`.

As TF's: a QueueRunner runs each of its enqueue ops in a loop on its own thread. When an
enqueue op raises one of `queue_closed_exception_types` (OutOfRangeError: its input ran out)
the thread ends, and the last thread to end runs `close_op`; any other exception is reported
to the coordinator (or logged and re-raised in the thread). With a coordinator, one more
thread waits for the stop request and runs `cancel_op` (close with
cancel_pending_enqueues), which ends threads blocked on a full queue so `coord.join()`
returns. Protocol buffer round trips (`to_proto`, `from_proto`, `queue_runner_def`) are
not supported.
"""
import logging
import threading
import weakref

from tfcompat._api import tf_export
from tfcompat.framework import context, errors
from tfcompat.framework.graph import GraphKeys, add_to_collection, get_collection
from tfcompat.client.session import Session
from tfcompat.framework.default_session import get_default_session

_logger = logging.getLogger("tensorflow")


@tf_export(v1=["train.queue_runner.QueueRunner", "train.QueueRunner"])
class QueueRunner(object):
    """Holds the enqueue ops of a queue and runs them on threads (`create_threads`)."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None,
                 import_scope=None):
        if context.executing_eagerly():
            raise RuntimeError("QueueRunners are not supported when eager execution is "
                               "enabled. Instead, please use tf.data to get data into your "
                               "model.")
        if queue_runner_def is not None:
            raise NotImplementedError("QueueRunner(queue_runner_def=...) is not implemented "
                                      "by tfcompat")
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else \
            queue.close(cancel_pending_enqueues=True)
        self._queue_closed_exception_types = tuple(queue_closed_exception_types) \
            if queue_closed_exception_types else (errors.OutOfRangeError,)
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    queue = property(lambda self: self._queue)
    enqueue_ops = property(lambda self: self._enqueue_ops)
    close_op = property(lambda self: self._close_op)
    cancel_op = property(lambda self: self._cancel_op)
    queue_closed_exception_types = property(lambda self: self._queue_closed_exception_types)

    @property
    def exceptions_raised(self):
        """Exceptions raised by threads started without a coordinator."""
        return self._exceptions_raised

    @property
    def name(self):
        return self._queue.name

    def _finished(self, sess, close):
        """One enqueue thread ended; the last one runs close_op when `close`."""
        with self._lock:
            self._runs_per_session[sess] -= 1
            if not close or self._runs_per_session[sess] > 0:
                return
        try:
            sess.run(self._close_op)
        except Exception as e:  # noqa: BLE001 - TF ignores errors of the close op
            _logger.debug("Ignored exception: %s", e)

    def _run(self, sess, enqueue_op, coord):
        closed = False
        try:
            enqueue = sess.make_callable(enqueue_op)
            while not (coord is not None and coord.should_stop()):
                try:
                    enqueue()
                except self._queue_closed_exception_types:
                    closed = True
                    return
        except Exception as e:  # noqa: BLE001 - reported as TF does
            if coord is not None:
                coord.request_stop(e)
            else:
                _logger.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            self._finished(sess, closed)

    def _close_on_stop(self, sess, coord):
        coord.wait_for_stop()
        try:
            sess.run(self._cancel_op)
        except Exception as e:  # noqa: BLE001 - TF ignores errors of the cancel op
            _logger.debug("Ignored exception: %s", e)

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """Threads running the enqueue ops in `sess` (none if they already run there)."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name="QueueRunnerThread-%s-%s" % (self.name, op.name))
                   for op in self._enqueue_ops]
        if coord is not None:
            threads.append(threading.Thread(
                target=self._close_on_stop, args=(sess, coord),
                name="QueueRunnerThread-%s-close_on_stop" % self.name))
        for thread in threads:
            if coord is not None:
                coord.register_thread(thread)
            thread.daemon = bool(daemon)
            if start:
                thread.start()
        return threads

    def to_proto(self, export_scope=None):
        raise NotImplementedError("QueueRunner.to_proto is not implemented by tfcompat")

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None):
        raise NotImplementedError("QueueRunner.from_proto is not implemented by tfcompat")


@tf_export(v1=["train.queue_runner.add_queue_runner", "train.add_queue_runner"])
def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    """Add `qr` to the graph collection `collection` (QUEUE_RUNNERS)."""
    add_to_collection(collection, qr)


@tf_export(v1=["train.queue_runner.start_queue_runners", "train.start_queue_runners"])
def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=GraphKeys.QUEUE_RUNNERS):
    """Start the threads of every QueueRunner in the graph's `collection`; returns them."""
    if context.executing_eagerly():
        raise RuntimeError("Queues are not compatible with eager execution.")
    if sess is None:
        sess = get_default_session()
        if sess is None:
            raise ValueError("Cannot start queue runners: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to "
                             "tf.start_queue_runners(sess=sess)")
    if not isinstance(sess, Session):
        if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []
        raise TypeError("sess must be a `tf.Session` object. Given class: %s" % type(sess))
    with sess.graph.as_default():
        runners = get_collection(collection)
        if not runners:
            _logger.warning("`tf.train.start_queue_runners()` was called when no queue "
                            "runners were defined. You can safely remove the call to this "
                            "deprecated function.")
        threads = []
        for runner in runners:
            threads.extend(runner.create_threads(sess, coord=coord, daemon=daemon,
                                                 start=start))
    return threads
