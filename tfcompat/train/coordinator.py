"""`tf.train.Coordinator` and `tf.train.LooperThread`: stop a group of threads together.

As TF's: `request_stop(ex)` records the first exception that is not a clean-stop type
(`OutOfRangeError` by default) and `join()` re-raises it once the threads have stopped;
threads still alive `stop_grace_period_secs` after a stop raise RuntimeError naming them.
"""
import contextlib
import logging
import sys
import threading
import time

from tfcompat._api import tf_export
from tfcompat.framework import errors

_logger = logging.getLogger("tensorflow")


@tf_export("train.Coordinator")
class Coordinator(object):
    """A coordinator of threads: should_stop, request_stop, join, stop_on_exception."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exception = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        """The exception itself (from an exc_info tuple), or None for a clean stop."""
        if isinstance(ex, tuple):
            ex = ex[1]
        if ex is None or isinstance(ex, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None):
        """Ask the threads to stop; `ex` (an exception or exc_info) is reported by join().

        After join() the exception is raised at once, as TF does.
        """
        ex = self._filter_exception(ex)
        with self._lock:
            if self._joined and ex is not None:
                raise ex
            if not self._stop_event.is_set():
                if ex is not None and self._exception is None:
                    _logger.info("Error reported to Coordinator: %s", ex)
                    self._exception = ex
                self._stop_event.set()

    def clear_stop(self):
        """Forget a stop request and its exception (threads can be started again)."""
        with self._lock:
            self._joined = False
            self._exception = None
            self._stop_event.clear()

    def should_stop(self):
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A block whose exception requests a stop instead of propagating."""
        try:
            yield
        except:  # noqa: E722 - TF catches everything here, as its docs say
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Wait until a stop is requested (True) or `timeout` seconds pass (False)."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Wait for the registered threads (and `threads`) to end, or for a stop request
        plus the grace period; then raise the reported exception, if any."""
        with self._lock:
            threads = list(self._registered_threads.union(threads or []))
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        for thread in threads:
            if thread.is_alive():
                thread.join(max(0.0, deadline - time.monotonic()))
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exception is not None:
                raise self._exception
            if stragglers and not ignore_live_threads:
                raise RuntimeError("Coordinator stopped with threads still running: %s"
                                   % " ".join(stragglers))

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Raise the exception reported with request_stop, if there is one."""
        with self._lock:
            if self._exception is not None:
                raise self._exception


@tf_export(v1=["train.LooperThread"])
class LooperThread(threading.Thread):
    """A daemon thread calling `target` (or `run_loop`) every `timer_interval_secs` (back to
    back when None) until the coordinator stops; its exceptions stop the coordinator."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError("'coord' argument must be a Coordinator: %s" % coord)
        super(LooperThread, self).__init__(daemon=True)
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if target is not None:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass "
                             "'target'")
        coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        """Start a LooperThread calling `target(*args, **kwargs)`; returns it."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_time = time.monotonic()
                while not self._coord.wait_for_stop(max(0.0, next_time - time.monotonic())):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once when the thread starts."""

    def stop_loop(self):
        """Called once after the loop ends."""

    def run_loop(self):
        """Called at each timer tick: calls `target`."""
        if self._target is not None:
            self._target(*self._args, **self._kwargs)
