"""The recording state shared by variables and `tf.GradientTape`.

Protocol: a trainable variable read while a tape records calls `variable_accessed(var)`;
each recording tape that watches accessed variables then marks it watched, which turns on
`requires_grad` of the variable's leaf tensor. Reads outside any tape return a detached
view, so no autograd graph is built when no tape records.

As in TensorFlow, the stack of recording tapes is per thread: a tape records only what its
own thread runs.
"""
import contextlib
import threading


class _ThreadTapes(threading.local):
    def __init__(self):
        self.recording = []


_tapes = _ThreadTapes()


def recording():
    """True while at least one GradientTape of this thread records."""
    return bool(_tapes.recording)


def push(tape):
    _tapes.recording.append(tape)


def pop(tape):
    _tapes.recording.remove(tape)


def variable_accessed(variable):
    for tape in _tapes.recording:
        tape._variable_accessed(variable)


@contextlib.contextmanager
def stop_recording():
    """Suspend this thread's recording tapes for the block (`tape.stop_recording()`)."""
    recording_tapes = _tapes.recording
    saved = list(recording_tapes)
    del recording_tapes[:]
    try:
        yield
    finally:
        recording_tapes[:] = saved
