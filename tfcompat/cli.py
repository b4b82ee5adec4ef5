"""The runner: `python -m tfcompat SCRIPT [ARGS...]` (also `tfcompat [run] SCRIPT [ARGS...]`).

It makes `import tensorflow` give tfcompat, picks the execution mode and API flavour the script
was written for, says which on stderr, and runs the script as `__main__`.

How the mode is chosen (`choose`): `TFCOMPAT_MODE=eager|graph` wins. Otherwise the script's
source (and the .py files beside it that it imports) is parsed: a call to
`tf.enable_eager_execution()` / `tf.enable_v2_behavior()` means eager; TF1 graph APIs
(`tf.Session`, `tf.placeholder`, `tf.Graph()`, `tf.train.Saver`, `tf.estimator`, ...) mean
graph mode; anything else is eager. The flavour, the TensorFlow version the script was
written for (how names that differ between TF1 and TF2, such as `tf.nn.dropout`, behave, and
what `tf.__version__` says), comes from names that only one version has (`_flavor`);
`TFCOMPAT_API=1|2` forces it.
"""
import ast
import atexit
import collections
import ctypes
import importlib.util
import os
import platform
import runpy
import sys
import traceback

import tfcompat
from tfcompat import _api, _dependencies, _import_hook
from tfcompat.framework import context

USAGE = """usage: tfcompat [run] [--explain-compile] SCRIPT [ARGS...]
                                         run a TensorFlow script on PyTorch
       python -m tfcompat [--explain-compile] SCRIPT [ARGS...]
       python -m tfcompat [--explain-compile] -m MODULE [ARGS...]
       tfcompat check [--json] SCRIPT...  report, without running them, the mode and TF
                                         version the runner would choose and every TF
                                         symbol used: supported or not (exit status 1)
       tfcompat --version

TFCOMPAT_MODE=eager or TFCOMPAT_MODE=graph forces the execution mode, TFCOMPAT_API=1 or
TFCOMPAT_API=2 the TensorFlow version emulated; unset, the script runs the way it ran under
the TensorFlow it was written for. TFCOMPAT_COMPILE=1 compiles
Session.run signatures that run more than once, 0 never; unset: on CUDA once it pays.
--explain-compile prints at exit what was compiled, how long it took, graph breaks and why
a signature was or was not compiled.
"""

# reason: why this mode; flavor_reason: why this TF version; constructs: (file:line, the mode
# it needs, what it is) for each use of a construct that needs one mode.
Choice = collections.namedtuple("Choice", ["mode", "flavor", "reason", "flavor_reason",
                                           "constructs"])

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
# compat.v1 calls that only a script written for TensorFlow 2 needs.
_TF2_SWITCHES = ("disable_eager_execution", "disable_v2_behavior", "enable_v2_behavior")


class _Scan(object):
    """What one file's syntax tree says about the TF API it uses."""

    def __init__(self):
        self.eager_call = None     # "enable_eager_execution" / "enable_v2_behavior"
        self.graph_api = None      # first graph API met, in source order
        self.v1_names = []         # names only TF1 has at the top level, in source order
        self.v2_names = []         # names only TF2 has, `compat.v2` imports, TF2-only switches
        self.compat_v1 = False     # `import tensorflow.compat.v1 as tf` (or from-imports)
        self.local_imports = []    # top-level module names it imports
        self.symbols = []          # (line, TF path, version or None): each whole tf.* reference
        self.mode_constructs = []  # (line, "graph" or "eager", how we name the construct)


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


def _add_once(names, name):
    if name not in names:
        names.append(name)


def _scan_source(source):
    """Parse one file; raises SyntaxError (or ValueError) for a file Python cannot parse.

    Only names used through the top-level `tensorflow` module say which TF version the script
    was written for: `tf.compat.v1.X` and `tf.compat.v2.X` exist in TF 1.13+ and TF 2 alike.
    """
    tree = ast.parse(source)
    scan = _Scan()
    aliases = {}   # local name -> TF path it stands for ("" for the tf module itself)
    v1_only, v2_only = _api.only_in("v1"), _api.only_in("v2")

    def note_module(path, version):
        if version == "v2":
            _add_once(scan.v2_names, "tensorflow.compat.v2")
        elif version == "v1":
            scan.compat_v1 = True
        elif path.startswith("contrib"):
            _add_once(scan.v1_names, "tensorflow.contrib")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                path, version = _tf_path(alias.name)
                if path is None:
                    scan.local_imports.append(alias.name.split(".")[0])
                    continue
                note_module(path, version)
                if path:
                    scan.symbols.append((node.lineno, path, version))
                if alias.asname:
                    aliases[alias.asname] = alias.name[len("tensorflow."):]
                else:  # `import tensorflow.x.y` binds `tensorflow`
                    aliases["tensorflow"] = ""
        elif isinstance(node, ast.ImportFrom) and node.module:
            path, version = _tf_path(node.module)
            if path is None:
                if node.level == 0:
                    scan.local_imports.append(node.module.split(".")[0])
                continue
            note_module(path, version)
            module = node.module[len("tensorflow."):] if node.module != "tensorflow" else ""
            for alias in node.names:
                aliases[alias.asname or alias.name] = (module + "." if module else "") + \
                    alias.name
                scan.symbols.append((node.lineno, (path + "." if path else "") + alias.name,
                                     version))
        elif isinstance(node, ast.ImportFrom) and node.level:
            scan.local_imports.extend(a.name for a in node.names)

    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    uses = []   # (line, col, TF path without compat.vN, its version or None for top level)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)):
            dotted = _dotted(node)
            if dotted is None:
                continue
            head, _, tail = dotted.partition(".")
            if head not in aliases:
                continue
            path = ".".join(p for p in (aliases[head], tail) if p)
            path, version = _tf_path("tensorflow." + path if path else "tensorflow")
            if not path:
                continue
            uses.append((node.lineno, node.col_offset, path, version))
            if id(node) not in inner:
                scan.symbols.append((node.lineno, path, version))
    for line, _, path, version in sorted(uses):
        name = path.rpartition(".")[2]
        if version is None and (path in v1_only or path.startswith("contrib")):
            _add_once(scan.v1_names, "tf." + ("contrib" if path.startswith("contrib") else path))
        elif version is None and path in v2_only:
            _add_once(scan.v2_names, "tf." + path)
        elif version is not None and path in _TF2_SWITCHES:
            _add_once(scan.v2_names, "tf.compat.%s.%s" % (version, path))
        if name in _EAGER_CALLS:
            if scan.eager_call != "enable_v2_behavior":
                scan.eager_call = name
            scan.mode_constructs.append((line, "eager", "tf.%s()" % name))
        for api, words in _GRAPH_APIS.items():
            if (path == api or path.startswith(api + ".")) and \
                    (line, "graph", words) not in scan.mode_constructs:
                scan.graph_api = scan.graph_api or words
                scan.mode_constructs.append((line, "graph", words))
    scan.symbols.sort(key=lambda use: use[0])
    return scan


def _flavor(scans, where):
    """The TF version ("v1"/"v2") the scanned files were written for, and why.

    Decided by names that exist in one version's top-level API only (`tf.Session`,
    `tf.contrib`: TF1; `tf.random.set_seed`, `tf.summary.create_file_writer`: TF2), the
    `tensorflow.compat.v2` import, and the compat.v1 switches only TF2 scripts need
    (`tf.compat.v1.disable_eager_execution()`). With names of both, the version with more
    distinct names wins (TF1 on a tie) and the reason says so; with none, a script that imports
    `tensorflow.compat.v1` is TF1 code and anything else TF2 code.
    """
    v1 = [(name, n) for n, s in scans.items() for name in s.v1_names]
    v2 = [(name, n) for n, s in scans.items() for name in s.v2_names]

    def listed(found):
        names = []
        for name, file in found:
            if name + where(file) not in names:
                names.append(name + where(file))
        return ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")

    if v1 and v2:
        flavor = "v1" if len({n for n, _ in v1}) >= len({n for n, _ in v2}) else "v2"
        return flavor, "TF%s-only usage outweighs TF%s-only usage: %s; but also %s" % (
            flavor[1], "2" if flavor == "v1" else "1", listed(v1 if flavor == "v1" else v2),
            listed(v2 if flavor == "v1" else v1))
    if v1:
        return "v1", "TF1-only usage: " + listed(v1)
    if v2:
        return "v2", "TF2-only usage: " + listed(v2)
    compat_v1 = [n for n, s in scans.items() if s.compat_v1]
    if compat_v1:
        return "v1", "imports tensorflow.compat.v1" + where(compat_v1[0])
    return "v2", "no TF1-only names"


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

    flavor, why = _flavor(scans, where)
    eager = [(n, s.eager_call) for n, s in scans.items() if s.eager_call]
    graph = [(n, s.graph_api) for n, s in scans.items() if s.graph_api]
    if eager:
        name, call = next(((n, c) for n, c in eager if c == "enable_v2_behavior"), eager[0])
        reason = "the script calls tf.%s()%s" % (call, where(name))
    elif graph:
        name, api = graph[0]
        reason = "the script builds TF1 graphs (%s)%s" % (api, where(name))
    else:
        reason = "TF2-style script" if flavor == "v2" else "TF1 eager-compatible script"
    constructs = [("%s:%d" % (os.path.basename(n) or "<script>", line), needs, words)
                  for n, s in scans.items() for line, needs, words in s.mode_constructs]
    return Choice("graph" if graph and not eager else "eager", flavor, reason, why, constructs)


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
    """The Choice for a script file: TFCOMPAT_MODE decides the mode and TFCOMPAT_API the TF
    version when set."""
    choice = detect(script_sources(path))
    mode, flavor = context.state.forced, _api.flavor_from_env()
    if mode is not None:
        choice = choice._replace(mode=mode, reason="%s=%s" % (context.MODE_ENV, mode))
    if flavor is not None:
        choice = choice._replace(flavor=flavor, flavor_reason="%s=%s" % (_api.API_ENV, flavor[1]))
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


def _mode_conflicts(choice):
    """The warning for constructs that need the mode TFCOMPAT_MODE did not choose, or None."""
    if context.state.forced is None:
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
                  "`with tf.Graph().as_default():`")
    else:
        advice = "eager-only code (tfe.Iterator, .numpy(), Python formatting of tensors) fails"
    return ("%s=%s, but the script uses %s, written for %s mode; %s. Unset %s to run it as "
            "written." % (context.MODE_ENV, choice.mode, places,
                          "graph" if choice.mode == "eager" else "eager", advice,
                          context.MODE_ENV))


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
    _dependencies.import_lazy()
    _import_hook.install()
    _api.set_flavor(choice.flavor)
    context.set_mode(choice.mode)
    context.announce("%s; %s" % (choice.reason, choice.flavor_reason))
    note = _mode_conflicts(choice)
    if note:
        sys.stderr.write("tfcompat: %s\n" % note)
    _install_excepthook(note and "the error above may come from %s=%s (see the start of the "
                                 "output)." % (context.MODE_ENV, choice.mode))
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
    if argv and argv[0] == "check":
        from tfcompat import check
        return check.main(argv[1:])
    if argv and argv[0] == "run":
        argv = argv[1:]
    if argv and argv[0] == "--explain-compile":
        argv = argv[1:]
        _explain_compile_at_exit()
    if len(argv) >= 2 and argv[0] == "-m":
        return _run_module(argv[1], argv[2:])
    if not argv or argv[0].startswith("-"):
        sys.stderr.write(USAGE)
        return 2
    path = argv[0]
    if not os.path.exists(path):
        sys.stderr.write("tfcompat: can't open file %r: [Errno 2] No such file or directory\n"
                         % os.path.abspath(path))
        return 2
    return run(path, argv[1:])


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
