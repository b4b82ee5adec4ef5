"""Third-party packages tfcompat needs must come from where they are installed.

`python -m tfcompat train.py`, `python train.py` and `python -c` put the working or script
directory first on `sys.path`; a tutorial folder holding its own `tensorboard.py` (a common
name) would then stand in for the tensorboard package tfcompat writes summaries with, and the
run would die inside tfcompat. TensorFlow imports tensorboard only when summaries are used, so
the same folder runs there. tfcompat therefore imports its dependencies with that directory
off `sys.path` (`installed_only`), and the runner imports the light ones it would otherwise
import on first use (`import_lazy`) before the script's folder goes on the path.

Those imports also fill Python's heap with objects that live as long as the process
(`long_lived_imports`).
"""
import contextlib
import gc
import importlib
import os
import sys
import threading

# Imported by tfcompat on first use and cheap to import. Left lazy: torchvision (seconds), and
# h5py, whose import undoes the runner's malloc tuning (tfcompat.cli.tune_allocator: ~300
# page faults per step come back); neither is a common name for a script's own file.
LAZY = ("safetensors", "PIL")


@contextlib.contextmanager
def installed_only():
    """Imports in this block skip the working directory and the running script's folder."""
    local = {"", os.getcwd()}
    if sys.path and not getattr(sys.flags, "safe_path", False):  # python -P prepends nothing
        local.add(os.path.abspath(sys.path[0] or "."))
    saved = list(sys.path)
    sys.path[:] = [entry for entry in saved
                   if entry not in local and os.path.abspath(entry or ".") not in local]
    try:
        yield
    finally:
        added = [entry for entry in sys.path if entry not in saved]
        sys.path[:] = saved + added


def import_lazy():
    """Import the LAZY packages from their installed location (those that are installed)."""
    with installed_only():
        for name in LAZY:
            try:
                importlib.import_module(name)
            except ImportError:
                pass


class _LongLivedImports(object):
    """See long_lived_imports: a depth count, so that only the outermost block freezes."""
    lock = threading.Lock()
    depth = 0
    collecting = True


@contextlib.contextmanager
def long_lived_imports():
    """Imports whose objects live as long as the process, kept out of Python's cyclic GC.

    CPython runs a full collection, walking every tracked object, each time the long-lived
    heap grows by a quarter: torch's import (~240k objects with tfcompat's) and the
    torch.compile machinery graph building loads (~130k more) trigger six of them, 0.5 s of a
    small TF1 script's 2.4 s (TensorFlow's import is C++ and leaves a far smaller Python
    heap). The outermost block first collects what is garbage already (the program's own
    dropped cycles, so that they are not kept), then turns collection off; at its end the
    objects made so far are frozen (`gc.freeze`: kept and never walked again, including the
    ~9k cycles the imports dropped) and collection resumes. Where the program turned
    collection off, it stays off and nothing is collected. Used once around `import
    tfcompat` and once around the first graph's imports, never per graph.

    What freezing changes: objects alive at the first graph that later become garbage in a
    cycle are kept until exit (reference counting still frees the rest), and
    `gc.get_objects()` does not list frozen objects (tfcompat no longer looks anything up
    that way; a worker's exit unfreezes them before it flushes open files)."""
    with _LongLivedImports.lock:
        if _LongLivedImports.depth == 0:
            _LongLivedImports.collecting = gc.isenabled()
            if _LongLivedImports.collecting:
                gc.collect()
            gc.disable()
        _LongLivedImports.depth += 1
    try:
        yield
    finally:
        with _LongLivedImports.lock:
            _LongLivedImports.depth -= 1
            if _LongLivedImports.depth == 0:
                gc.freeze()
                if _LongLivedImports.collecting:
                    gc.enable()
