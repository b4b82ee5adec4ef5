"""Where tf.data pipelines run: background threads, eagerly.

Dataset functions (traced `map` graphs, and `filter`, `flat_map` ... run eagerly) run on
concrete tensors, on worker threads for `num_parallel_calls` and behind `prefetch`, or on the
thread that asks for the next element. Graph building is per thread
(`context.eager_scope`), so a worker runs its ops eagerly while the main thread builds a
graph or traces a tf.function, and graph mode's `get_next()` runs the pipeline eagerly inside
`Session.run`. Threads hand work and results over through C-level queues.
"""
import collections
import itertools
import os
import queue
import threading

import torch

from tfcompat.framework import context

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


def parallelism(num_parallel_calls):
    """Threads to use for `num_parallel_calls` (AUTOTUNE: one per CPU core)."""
    if num_parallel_calls is None:
        return 1
    n = int(num_parallel_calls)
    if n == AUTOTUNE:
        return max(1, os.cpu_count() or 1)
    if n <= 0:
        from tfcompat.framework import errors
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

    workers = [threading.Thread(target=work, name="tfcompat-data-map", daemon=True)
               for _ in range(threads)]
    for worker in workers:
        worker.start()
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
            results, error = pending.popleft().get()
            yield from results
            if error is not None:
                raise error
    finally:
        stop.set()
        for _ in workers:
            tasks.put(None)


_END = object()


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

    thread = threading.Thread(target=produce, name="tfcompat-data-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item = items.get()
            slots.put(None)
            if item is _END:
                return
            if type(item) is _Raised:
                raise item.error
            yield item
    finally:
        stop.set()
