"""Where tf.data pipelines run: background threads, eagerly.

Dataset functions (traced `map` graphs, and `filter`, `flat_map` ... run eagerly) run on
concrete tensors, on worker threads for `num_parallel_calls` and behind `prefetch`, or on the
thread that asks for the next element. Graph building is per thread
(`context.eager_scope`), so a worker runs its ops eagerly while the main thread builds a
graph or traces a tf.function, and graph mode's `get_next()` runs the pipeline eagerly inside
`Session.run`. Threads hand work and results over through C-level queues.
"""
import atexit
import collections
import itertools
import os
import queue
import threading
import time

import torch

from tfcompat.framework import context, errors

AUTOTUNE = -1
_state = context.state

eager_window = context.eager_scope


def call(fn, *args):
    """Call a user function with ops running eagerly on this thread."""
    if not _state.building_graph:
        return fn(*args)
    with context.eager_scope():
        return fn(*args)


def _pipeline_thread():
    """Pipeline threads run each op single-threaded, like tf.data's default
    `max_intra_op_parallelism=1` (torch's setting is per thread under OpenMP)."""
    torch.set_num_threads(1)


_END = object()
_running = {}  # pipeline thread -> the function that asks it to stop


def _start(target, name, stop):
    """Start a daemon pipeline thread that `_stop_all` can stop with `stop()`."""
    def run():
        try:
            target()
        finally:
            _running.pop(threading.current_thread(), None)

    thread = threading.Thread(target=run, name=name, daemon=True)
    _running[thread] = stop
    thread.start()
    return thread


@atexit.register
def _stop_all(timeout=5.0):
    """At exit, stop the threads of pipelines a script left part-way (a `break` out of a loop
    over a prefetched dataset) and wait for them: a daemon thread still running torch code
    while the interpreter finalizes aborts the process (exit status 134)."""
    threads = list(_running.items())
    for _, stop in threads:
        stop()
    deadline = time.monotonic() + timeout
    for thread, _ in threads:
        thread.join(max(0.0, deadline - time.monotonic()))


def _get(results, stop):
    """The next item of a pipeline's queue; `_END` once the pipeline is stopped."""
    while True:
        try:
            return results.get(timeout=0.5)
        except queue.Empty:
            if stop.is_set():
                return _END


def parallelism(num_parallel_calls):
    """Threads to use for `num_parallel_calls` (AUTOTUNE: one per CPU core)."""
    if num_parallel_calls is None:
        return 1
    n = int(num_parallel_calls)
    if n == AUTOTUNE:
        return max(1, os.cpu_count() or 1)
    if n <= 0:
        raise errors.InvalidArgumentError("num_parallel_calls must be positive or "
                                          "tf.data.AUTOTUNE, got %d" % n)
    return n


def _run_chunk(fn, items):
    out = []
    try:
        for item in items:
            out.append(call(fn, item))
    except Exception as e:  # delivered after the elements computed before it, as TF does
        return out, e
    return out, None


def _pull(source, count):
    items = []
    try:
        for item in itertools.islice(source, count):
            items.append(item)
    except Exception as e:
        return items, e
    return items, None


def parallel_map(source, fn, threads, chunk=16):
    """Yield fn(x) for x in source, in order, computed on `threads` worker threads.

    Work is handed out in chunks so that the per-element cost of a thread hand-off stays
    small; tasks and results travel through C-level queues (`queue.SimpleQueue`).
    """
    tasks = queue.SimpleQueue()
    stop = threading.Event()

    def work():
        _pipeline_thread()
        while True:
            task = tasks.get()
            if task is None:
                return
            items, results = task
            results.put(([], None) if stop.is_set() else _run_chunk(fn, items))

    def shutdown():
        stop.set()
        for _ in range(threads):
            tasks.put(None)

    workers = [_start(work, "tfcompat-data-map", shutdown) for _ in range(threads)]
    pending = collections.deque()
    source_error = None
    try:
        exhausted = False
        while True:
            while not exhausted and len(pending) < 2 * threads:
                items, source_error = _pull(source, chunk)
                if items:
                    results = queue.SimpleQueue()
                    tasks.put((items, results))
                    pending.append(results)
                if len(items) < chunk or source_error is not None:
                    exhausted = True
            if not pending:
                if source_error is not None:
                    raise source_error
                return
            found = _get(pending.popleft(), stop)
            if found is _END:
                return
            results, error = found
            yield from results
            if error is not None:
                raise error
    finally:
        shutdown()



class _Raised(object):
    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def background(source, buffer_size):
    """Yield the items of `source`, produced ahead by a background thread (prefetch).

    The hand-over uses C-level queues (`queue.SimpleQueue`): `slots` holds one token per
    free place in the buffer, so the producer stays at most `buffer_size` items ahead.
    """
    items = queue.SimpleQueue()
    slots = queue.SimpleQueue()
    for _ in range(max(1, buffer_size)):
        slots.put(None)
    stop = threading.Event()

    def put(item):
        while True:
            try:
                slots.get(timeout=0.1)
                break
            except queue.Empty:
                if stop.is_set():
                    return False
        items.put(item)
        return True

    def produce():
        _pipeline_thread()
        try:
            for item in source:
                if not put(item):
                    return
            put(_END)
        except BaseException as e:  # handed to the consumer
            put(_Raised(e))

    _start(produce, "tfcompat-data-prefetch", stop.set)
    try:
        while True:
            item = _get(items, stop)
            slots.put(None)
            if item is _END:
                return
            if type(item) is _Raised:
                raise item.error
            yield item
    finally:
        stop.set()
