"""Third-party packages tfcompat needs must come from where they are installed.

`python -m tfcompat train.py`, `python train.py` and `python -c` put the working or script
directory first on `sys.path`; a tutorial folder holding its own `tensorboard.py` (a common
name) would then stand in for the tensorboard package tfcompat writes summaries with, and the
run would die inside tfcompat. TensorFlow imports tensorboard only when summaries are used, so
the same folder runs there. tfcompat therefore imports its dependencies with that directory
off `sys.path` (`installed_only`), and the runner imports the light ones it would otherwise
import on first use (`import_lazy`) before the script's folder goes on the path.
"""
import contextlib
import importlib
import os
import sys

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
