"""Per graph, one torch thread or the process's count, whichever runs it faster.

torch's intra-op threads help large ops and hurt small ones. On 2 idle cores, a 32x64 @ 64x64
matmul took 3.7 us on one thread and 7.1 us on two (MKL still splits it), torch's fused Adam
over 50 such variables 83 and 248 us: a 50-layer MLP's graph step ran 1.8x faster on one
thread, where a CNN's or an LSTM's ran 1.1-1.7x faster on two (scripts/bench_threads.py).
TF's executor has the same problem with its default pools (its 200-layer step ran 2x faster
with one intra-op thread). The runner sets torch's count from the free cores
(`cli.tune_threads`); on top of that, the first runs of each graph module (a Session.run
signature, a tf.function trace) alternate between one thread and that count (the first run
on each untimed: one-off costs), and later runs keep one thread where it took at most 90% of
the other's median time over three runs each.

Not done where the user chose the count (OMP_NUM_THREADS / MKL_NUM_THREADS,
`ConfigProto(intra_op_parallelism_threads=N)`, `tf.config.threading`: see `pin`), where
torch has one thread, off the main thread, or inside another graph's run. A large reduction
splits its work by thread count, so its float rounding can depend on the choice, as TF's
results depend on its pool sizes.
"""
import os
import statistics
import threading
import time

import torch

_TRIALS = 3             # timed runs per thread count before choosing
_MARGIN = 0.9           # one thread is kept if its median is at most this fraction
RUNS_TO_CHOOSE = 2 + 2 * _TRIALS     # a module's runs until its choice is made
_THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
_pinned = False
_running = threading.local()


def pin():
    """The user chose the intra-op thread count: graphs keep it from now on."""
    global _pinned
    _pinned = True


def _tunable():
    return not _pinned and torch.get_num_threads() > 1 and \
        threading.current_thread() is threading.main_thread() and \
        not getattr(_running, "value", False) and \
        not any(name in os.environ for name in _THREAD_ENV)


class ThreadChoice(object):
    """The thread choice of one graph module: `run(fn, *args)` calls `fn(*args)` with it."""

    __slots__ = ("_runs", "_seconds", "_single")

    def __init__(self):
        self._runs = 0
        self._seconds = {}
        self._single = None         # None: undecided; True: one thread; False: the count

    def run(self, fn, *args):
        if self._single is False or not _tunable():
            return fn(*args)
        default = torch.get_num_threads()
        if self._single is None:
            self._runs += 1
            threads = 1 if self._runs % 2 == 0 else default
            timed = self._runs > 2      # the first run on each count pays one-off costs
        else:
            threads, timed = 1, False
        _running.value = True
        if threads != default:
            torch.set_num_threads(threads)
        start = time.perf_counter()
        try:
            result = fn(*args)
        finally:
            if threads != default:
                torch.set_num_threads(default)
            _running.value = False
        if timed:
            self._record(threads, default, time.perf_counter() - start)
        return result

    def _record(self, threads, default, seconds):
        self._seconds.setdefault(threads, []).append(seconds)
        one, other = self._seconds.get(1, ()), self._seconds.get(default, ())
        if len(one) >= _TRIALS and len(other) >= _TRIALS:
            self._single = statistics.median(one) <= _MARGIN * statistics.median(other)
