"""The runner: `python -m tfcompat SCRIPT [ARGS...]` (also `tfcompat [run] SCRIPT [ARGS...]`).

It makes `import tensorflow` give tfcompat, picks the execution mode and API flavour the script
was written for, says which on stderr, and runs the script as `__main__`.

How the mode is chosen (`choose`): `TFCOMPAT_MODE=eager|graph` wins. Otherwise the script's
source (and the .py files beside it that it imports) is parsed: a call to
`tf.enable_eager_execution()` / `tf.enable_v2_behavior()` means eager; TF1 graph APIs
(`tf.Session`, `tf.placeholder`, `tf.Graph()`, `tf.train.Saver`, `tf.estimator`, ...) mean
graph mode; anything else is eager. The flavour (how names that differ between TF1 and TF2,
such as `tf.nn.dropout`, behave) is TF1 for graph scripts, for `enable_eager_execution()`,
`import tensorflow.compat.v1`, `tf.contrib` and names only TF1 has, and TF2 otherwise.
"""
import ast
import atexit
import collections
import ctypes
import os
import platform
import runpy
import sys

import tfcompat
from tfcompat import _api, _import_hook
from tfcompat.framework import context

USAGE = """usage: tfcompat [run] [--explain-compile] SCRIPT [ARGS...]
                                         run a TensorFlow script on PyTorch
       python -m tfcompat [--explain-compile] SCRIPT [ARGS...]
       tfcompat --version

TFCOMPAT_MODE=eager or TFCOMPAT_MODE=graph forces the execution mode; unset, the script
runs the way it ran under the TensorFlow it was written for. TFCOMPAT_COMPILE=1 compiles
Session.run signatures that run more than once, 0 never; unset: on CUDA once it pays.
--explain-compile prints at exit what was compiled, how long it took, graph breaks and why
a signature was or was not compiled.
"""

Choice = collections.namedtuple("Choice", ["mode", "flavor", "reason"])

# Paths (without `tf.`) whose use means the script builds TF1 graphs, in the words we report.
_GRAPH_APIS = {
    "Session": "tf.Session", "InteractiveSession": "tf.InteractiveSession",
    "placeholder": "tf.placeholder", "placeholder_with_default": "tf.placeholder_with_default",
    "get_default_graph": "tf.get_default_graph", "Graph": "tf.Graph",
    "reset_default_graph": "tf.reset_default_graph",
    "disable_eager_execution": "tf.disable_eager_execution()",
    "disable_v2_behavior": "tf.disable_v2_behavior()",
    "train.Saver": "tf.train.Saver", "train.MonitoredTrainingSession":
        "tf.train.MonitoredTrainingSession", "train.MonitoredSession": "tf.train.MonitoredSession",
    "estimator": "tf.estimator",
}
_EAGER_CALLS = ("enable_eager_execution", "enable_v2_behavior")


class _Scan(object):
    """What one file's syntax tree says about the TF API it uses."""

    def __init__(self):
        self.eager_call = None     # "enable_eager_execution" / "enable_v2_behavior"
        self.graph_api = None      # first graph API met, in source order
        self.v1 = False            # TF1-only usage: compat.v1, contrib, TF1-only names
        self.v2 = False            # import tensorflow.compat.v2
        self.local_imports = []    # top-level module names it imports


def _dotted(node):
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _tf_path(module):
    """`tensorflow.compat.v1.train` -> ("train", "v1"); non-TF modules -> (None, None)."""
    if module != "tensorflow" and not module.startswith("tensorflow."):
        return None, None
    rest = module[len("tensorflow."):] if module != "tensorflow" else ""
    for version in ("v1", "v2"):
        prefix = "compat." + version
        if rest == prefix or rest.startswith(prefix + "."):
            return rest[len(prefix) + 1:], version
    return rest, None


def _scan_source(source):
    """Parse one file; raises SyntaxError (or ValueError) for a file Python cannot parse."""
    tree = ast.parse(source)
    scan = _Scan()
    aliases = {}   # local name -> TF path it stands for ("" for the tf module itself)

    def note_version(version):
        if version == "v1":
            scan.v1 = True
        elif version == "v2":
            scan.v2 = True

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                path, version = _tf_path(alias.name)
                if path is None:
                    scan.local_imports.append(alias.name.split(".")[0])
                    continue
                note_version(version)
                scan.v1 |= path.startswith("contrib")
                if alias.asname:
                    aliases[alias.asname] = path
                else:  # `import tensorflow.x.y` binds `tensorflow`
                    aliases["tensorflow"] = ""
        elif isinstance(node, ast.ImportFrom) and node.module:
            path, version = _tf_path(node.module)
            if path is None:
                if node.level == 0:
                    scan.local_imports.append(node.module.split(".")[0])
                continue
            note_version(version)
            scan.v1 |= path.startswith("contrib")
            for alias in node.names:
                aliases[alias.asname or alias.name] = (path + "." if path else "") + alias.name
        elif isinstance(node, ast.ImportFrom) and node.level:
            scan.local_imports.extend(a.name for a in node.names)

    uses = []   # (line, col, TF path) of every tf.* reference
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)):
            dotted = _dotted(node)
            if dotted is None:
                continue
            head, _, tail = dotted.partition(".")
            if head not in aliases:
                continue
            base = aliases[head]
            path = ".".join(p for p in (base, tail) if p)
            if path.startswith("python."):
                continue
            path, version = _tf_path("tensorflow." + path if path else "tensorflow")
            note_version(version)
            uses.append((node.lineno, node.col_offset, path))
    v1_only = _api.known_paths("v1") - _api.known_paths("v2")
    for _, _, path in sorted(uses):
        if path.startswith("contrib") or path in v1_only:
            scan.v1 = True
        name = path.rpartition(".")[2]
        if name in _EAGER_CALLS and scan.eager_call != "enable_v2_behavior":
            scan.eager_call = name
        if scan.graph_api is None:
            for api, words in _GRAPH_APIS.items():
                if path == api or path.startswith(api + "."):
                    scan.graph_api = words
    return scan


def detect(sources):
    """Mode, flavour and reason for a script given as source text or {file name: source}."""
    if isinstance(sources, str):
        sources = {"": sources}
    scans = {}
    for name, source in sources.items():
        try:
            scans[name] = _scan_source(source)
        except (SyntaxError, ValueError):  # ValueError: null bytes
            continue

    def where(name):
        return " (in %s)" % os.path.basename(name) if name and name != next(iter(sources)) else ""

    eager = [(n, s.eager_call) for n, s in scans.items() if s.eager_call]
    graph = [(n, s.graph_api) for n, s in scans.items() if s.graph_api]
    v1 = any(s.v1 for s in scans.values())
    if any(call == "enable_v2_behavior" for _, call in eager):
        name = next(n for n, call in eager if call == "enable_v2_behavior")
        return Choice("eager", "v2", "the script calls tf.enable_v2_behavior()" + where(name))
    if eager:
        name = eager[0][0]
        return Choice("eager", "v1", "the script calls tf.enable_eager_execution()" + where(name))
    if graph:
        name, api = graph[0]
        return Choice("graph", "v1", "the script builds TF1 graphs (%s)%s" % (api, where(name)))
    if v1 and not any(s.v2 for s in scans.values()):
        return Choice("eager", "v1", "TF1 names but no TF1 graph APIs (tf.Session, "
                                     "tf.placeholder, ...)")
    return Choice("eager", "v2", "TF2-style script")


def script_sources(path):
    """{file: source} for a script and the .py files beside it that it imports, transitively."""
    if os.path.isdir(path):
        path = os.path.join(path, "__main__.py")
    folder = os.path.dirname(os.path.abspath(path))
    sources, queue = {}, [os.path.abspath(path)]
    while queue:
        file = queue.pop(0)
        if file in sources:
            continue
        try:
            with open(file, "rb") as f:
                sources[file] = f.read().decode("utf-8", errors="replace")
        except OSError:
            continue
        try:
            imports = _scan_source(sources[file]).local_imports
        except (SyntaxError, ValueError):  # ValueError: null bytes
            continue
        for module in imports:
            for candidate in (os.path.join(folder, module + ".py"),
                              os.path.join(folder, module, "__init__.py")):
                if os.path.isfile(candidate):
                    queue.append(candidate)
    return sources


def choose(path):
    """The Choice for a script file: TFCOMPAT_MODE decides the mode when set."""
    choice = detect(script_sources(path))
    forced = context.state.forced
    if forced is not None:
        return Choice(forced, choice.flavor, "%s=%s" % (context.MODE_ENV, forced))
    return choice


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


def run(path, args=()):
    """Run a TF script as `__main__` under tfcompat, with `sys.argv = [path, *args]`."""
    choice = choose(path)
    tune_allocator()
    _import_hook.install()
    _api.set_flavor(choice.flavor)
    context.set_mode(choice.mode)
    context.announce(choice.reason)
    sys.argv = [path] + list(args)
    sys.path[0] = os.path.dirname(os.path.abspath(path)) if not os.path.isdir(path) \
        else os.path.abspath(path)
    runpy.run_path(path, run_name="__main__")


def _explain_compile_at_exit():
    from tfcompat.client import session
    os.environ[session.EXPLAIN_ENV] = "1"
    atexit.register(lambda: sys.stderr.write(session.compile_report()))


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
    if argv and argv[0] == "run":
        argv = argv[1:]
    if argv and argv[0] == "--explain-compile":
        argv = argv[1:]
        _explain_compile_at_exit()
    if not argv or argv[0].startswith("-"):
        sys.stderr.write(USAGE)
        return 2
    path = argv[0]
    if not os.path.exists(path):
        sys.stderr.write("tfcompat: can't open file %r: [Errno 2] No such file or directory\n"
                         % os.path.abspath(path))
        return 2
    run(path, argv[1:])
    return 0
