"""The runner: `python -m tfcompat SCRIPT [ARGS...]` (also `tfcompat [run] SCRIPT [ARGS...]`).

It makes `import tensorflow` give tfcompat, picks the execution mode and API flavour the script
was written for (`tfcompat._scan`, which says how), says which on stderr, and runs the script
as `__main__`.
"""
import atexit
import ctypes
import gc
import io
import importlib.util
import os
import platform
import runpy
import sys
import time
import traceback

import torch

import tfcompat
from tfcompat import _api, _dependencies, _import_hook, _scan, check, export
from tfcompat._scan import MODE_ENV, choose
from tfcompat.framework import context
from tfcompat.framework import compile_policy
from tfcompat.distribute import launch, multi_worker_util

USAGE = """usage: tfcompat [run] [--explain-compile] SCRIPT [ARGS...]
                                         run a TensorFlow script on PyTorch
       tfcompat [run] --nproc-per-node N [--nnodes M --node-rank R --master-addr A
                --master-port P] SCRIPT [ARGS...]
                                         run it as N workers (per machine) training
                                         together: tf.distribute strategies and Horovod's
                                         API on torch.distributed (docs/distributed.md)
       python -m tfcompat [--explain-compile] SCRIPT [ARGS...]
       python -m tfcompat [--explain-compile] -m MODULE [ARGS...]
       tfcompat check [--json] SCRIPT...  report, without running them, the mode and TF
                                         version the runner would choose and every TF
                                         symbol used: supported or not (exit status 1)
       tfcompat export SAVED_MODEL_DIR|MODEL.h5 OUT.pt2|OUT.onnx [--signature NAME]
       tfcompat export CHECKPOINT OUT.pt2 --meta GRAPH.meta --inputs x:0 --outputs y:0
                                         write a saved model's signature as a torch.export
                                         program plain PyTorch loads (or ONNX)
       tfcompat --version

TFCOMPAT_MODE=eager or TFCOMPAT_MODE=graph forces the execution mode, TFCOMPAT_API=1 or
TFCOMPAT_API=2 the TensorFlow version emulated; unset, the script runs the way it ran under
the TensorFlow it was written for. TFCOMPAT_COMPILE=1 compiles
Session.run signatures and tf.function traces that run more than once, 0 never, auto once
one has run long enough, keeping the compiled one only if it is faster; unset: auto on CUDA,
0 on CPU.
--explain-compile prints at exit what was compiled, how long it took, graph breaks and why
a signature was or was not compiled.
"""

# glibc mallopt parameters: the largest mmap threshold glibc takes on 64-bit systems, and a
# trim threshold that keeps a train step's freed buffers in the process.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_ALLOCATOR_SETTINGS = ((_M_MMAP_THRESHOLD, 32 << 20), (_M_TRIM_THRESHOLD, 1 << 30))
_ALLOCATOR_ENV = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                  "GLIBC_TUNABLES")


def tune_allocator():
    """Keep freed tensor memory in the process (glibc only): returns whether it was done.

    torch allocates CPU tensors with malloc; glibc serves blocks above its mmap threshold
    (128 KB at first) with fresh mmaps and returns freed heap memory to the OS, so a train
    step whose activations are a few MB page-faults all of them in again each step (a
    small NHWC CNN: ~1,500 faults and half of its 8 ms step). With buffers up to 32 MB
    kept on the heap and the heap kept, the same step takes ~3.2 ms, in raw torch as under
    tfcompat. The process keeps its peak memory instead of returning it between steps (as
    torch's CUDA caching allocator does on GPUs). Not done where the user chose malloc
    settings in the environment; `import tfcompat` alone leaves malloc as it is.
    """
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc" or \
            any(name in os.environ for name in _ALLOCATOR_ENV):
        return False
    mallopt = ctypes.CDLL(None).mallopt
    return all([mallopt(param, value) == 1 for param, value in _ALLOCATOR_SETTINGS])


_THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
_LOADAVG = "/proc/loadavg"
_LOAD_SAMPLES = 20          # reads of the runnable-thread count, ...
_LOAD_SAMPLE_GAP = 0.001    # ... this many seconds apart (~25 ms in all)


def busy_cores():
    """Cores other processes keep busy now: the mean number of runnable threads the kernel
    counts (`/proc/loadavg`'s fourth field) over ~25 ms, less this process's reading thread.

    The 1-minute load average lags by minutes: after a job ends, or between the runs of a
    benchmark, it still counts cores that are idle. Where there is no `/proc`, that average
    is all there is."""
    try:
        counts = []
        for _ in range(_LOAD_SAMPLES):
            with open(_LOADAVG) as f:
                counts.append(int(f.read().split()[3].split("/")[0]) - 1)
            time.sleep(_LOAD_SAMPLE_GAP)
        return sum(counts) / len(counts)
    except (OSError, ValueError, IndexError):
        return os.getloadavg()[0] if hasattr(os, "getloadavg") else 0


def tune_threads():
    """Give torch's intra-op pool only the cores other processes leave free: returns the
    thread count set, or None where the user chose one in the environment.

    torch's OpenMP threads spin while they wait for work, so on a busy machine every small
    op waits for a thread the OS has descheduled: with one core's worth of other load on 2
    cores, a train step of many small ops took 3-40x longer with 2 threads than with 1, and
    some steps an order of magnitude longer again (scripts/bench_threads.py). TF's own pool
    does not suffer this. Free cores are the cores this process may run on less the busy
    ones (`busy_cores`, rounded); never fewer than one, never more than torch's default.
    Graphs then choose between that count and one thread by timing both
    (`framework/thread_choice.py`). A script's `ConfigProto(intra_op_parallelism_threads=N)`
    or `tf.config.threading.set_intra_op_parallelism_threads(N)` still sets N afterwards.
    """
    if any(name in os.environ for name in _THREAD_ENV):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = max(1, min(torch.get_num_threads(), cores - int(busy_cores() + 0.5)))
    torch.set_num_threads(threads)
    return threads


def _mode_conflicts(choice):
    """The warning for constructs that need the mode TFCOMPAT_MODE did not choose, or None."""
    if _scan.forced_mode() is None:
        return None
    other = [(where, words) for where, needs, words in choice.constructs if needs != choice.mode]
    if not other:
        return None
    names = []
    for where, words in other:
        if words not in names:
            names.append(words)
    places = ", ".join("%s (%s)" % (words, where) for where, words in other[:4]) + \
        (", ..." if len(other) > 4 else "")
    if choice.mode == "eager":
        advice = ("it runs in eager mode only where the script builds them inside "
                  "`with tf.Graph().as_default():` or `with tf.Session():` blocks")
    else:
        advice = "eager-only code (tfe.Iterator, .numpy(), Python formatting of tensors) fails"
    return ("%s=%s, but the script uses %s, written for %s mode; %s. Unset %s to run it as "
            "written." % (MODE_ENV, choice.mode, places,
                          "graph" if choice.mode == "eager" else "eager", advice, MODE_ENV))


_RUNNER_FILES = (os.path.abspath(__file__), os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "__main__.py"), os.path.abspath(runpy.__file__))


def _install_excepthook(note):
    """Uncaught errors show the script's frames, not the runner's, then `note` if any."""
    previous = sys.excepthook

    def runner_frame(tb):
        name = tb.tb_frame.f_code.co_filename
        return name.startswith("<frozen runpy") or os.path.abspath(name) in _RUNNER_FILES

    def hook(kind, value, tb):
        script_tb = tb
        while script_tb is not None and runner_frame(script_tb):
            script_tb = script_tb.tb_next
        if script_tb is not None and isinstance(value, BaseException):
            value = value.with_traceback(script_tb)  # what python prints from
        previous(kind, value, script_tb or tb)
        if note and not issubclass(kind, KeyboardInterrupt):
            sys.stderr.write("tfcompat: %s\n" % note)

    sys.excepthook = hook


def run(path, args=(), module=None):
    """Run a TF script (or, with `module`, `python -m module`) as `__main__` under tfcompat,
    with `sys.argv = [path, *args]`; returns the exit status for errors found before it runs."""
    if module is None:
        with open(path, "rb") as f:
            source = f.read()
        try:
            compile(source, path, "exec")
        except (SyntaxError, ValueError) as e:  # as python reports it: no runner frames
            traceback.print_exception(type(e), e, None)
            return 1
    choice = choose(path)
    tune_allocator()
    tune_threads()
    _dependencies.import_lazy()
    _import_hook.install()
    _api.set_flavor(choice.flavor)
    context.set_mode(choice.mode)
    _scan.announce(choice)
    note = _mode_conflicts(choice)
    if note:
        sys.stderr.write("tfcompat: %s\n" % note)
    _install_excepthook(note and "the error above may come from %s=%s (see the start of the "
                                 "output)." % (MODE_ENV, choice.mode))
    sys.argv = [path] + list(args)
    if module is not None:
        sys.path[0] = os.getcwd()
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0
    sys.path[0] = os.path.dirname(os.path.abspath(path)) if not os.path.isdir(path) \
        else os.path.abspath(path)
    runpy.run_path(path, run_name="__main__")
    return 0


def _explain_compile_at_exit():
    os.environ[compile_policy.EXPLAIN_ENV] = "1"
    atexit.register(lambda: sys.stderr.write(compile_policy.compile_report()))


def main(argv=None):
    """Entry point of `tfcompat` and `python -m tfcompat`; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--version":
        import torch
        print("tfcompat %s (torch %s)" % (tfcompat.__version__, torch.__version__))
        return 0
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if argv and argv[0] == "check":
        return check.main(argv[1:])
    if argv and argv[0] == "export":
        return export.main(argv[1:])
    try:
        flags, rest = launch.split_launch_flags(argv[1:] if argv[:1] == ["run"] else argv)
    except ValueError as e:
        sys.stderr.write("tfcompat: %s\n%s" % (e, USAGE))
        return 2
    if flags:
        return launch.launch(flags, rest)
    target = _scan.runner_target(argv)
    if target is None:
        sys.stderr.write(USAGE)
        return 2
    kind, path, args, explain = target
    if explain:
        _explain_compile_at_exit()
    if kind == "module":
        return _ending_a_worker(lambda: _run_module(path, args))
    if not os.path.exists(path):
        sys.stderr.write("tfcompat: can't open file %r: [Errno 2] No such file or directory\n"
                         % os.path.abspath(path))
        return 2
    return _ending_a_worker(lambda: run(path, args))


def _ending_a_worker(run_script):
    """Run the script; a worker of a job (one that joined a torch.distributed process group)
    then ends here: it runs the exit handlers (the group is destroyed among them), flushes
    every open file and exits with the script's status without interpreter finalization,
    where gloo's threads may abort the process ("terminate called without an active
    exception") after the script succeeded."""
    try:
        status = run_script()
    except SystemExit as e:
        if not multi_worker_util.joined():
            raise
        status = e.code
    except BaseException:
        if not multi_worker_util.joined():
            raise
        sys.excepthook(*sys.exc_info())
        status = 1
    if not multi_worker_util.joined():
        return status
    if status is not None and not isinstance(status, int):
        sys.stderr.write("%s\n" % (status,))
        status = 1
    atexit._run_exitfuncs()
    gc.unfreeze()       # the objects frozen after imports (long_lived_imports) are listed too
    for stream in gc.get_objects():
        if isinstance(stream, io.IOBase) and not stream.closed and stream.writable():
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status or 0)


def _run_module(name, args):
    """`-m package.module ARGS`, as python runs it: found on sys.path from the working
    directory, its file scanned like a script's."""
    sys.path[0] = os.getcwd()
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations is not None:
        name += ".__main__"
        spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin or not os.path.isfile(spec.origin):
        sys.stderr.write("%s: No module named %s\n" % (sys.executable, name))
        return 1
    return run(spec.origin, args, module=name)
