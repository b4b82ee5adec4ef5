"""What a TF script needs, read from its source without running it (no torch imported here).

The runner (`tfcompat.cli`) and `tfcompat check` both use it; it is imported before torch so
the runner can say which mode and TF version it chose before the seconds of imports.

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
import collections
import os
import sys

from tfcompat import _api

MODE_ENV = "TFCOMPAT_MODE"


def forced_mode():
    """"eager"/"graph" as TFCOMPAT_MODE forces it, None when unset; ValueError otherwise."""
    forced = os.environ.get(MODE_ENV, "").strip().lower() or None
    if forced not in (None, "eager", "graph"):
        raise ValueError("%s must be 'eager' or 'graph', not %r" % (MODE_ENV, forced))
    return forced


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
# Graph APIs that make and run their own graphs: a TF2-era script using them is not graph code.
_OWN_GRAPHS = ("Graph", "estimator")
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
        self.mode_constructs = []  # (line, "graph" or "eager", what): constructs needing a mode
        self.implicit_graph_api = None  # first graph API used outside an explicit graph


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
    explicit = _explicit_graph_nodes(tree)
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
            uses.append((node.lineno, node.col_offset, path, version, id(node) in explicit))
            if id(node) not in inner:
                scan.symbols.append((node.lineno, path, version))
    for line, _, path, version, in_explicit_graph in sorted(uses):
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
            if path == api or path.startswith(api + "."):
                scan.graph_api = scan.graph_api or words
                if not in_explicit_graph and api not in _OWN_GRAPHS and \
                        (line, "graph", words) not in scan.mode_constructs:
                    scan.implicit_graph_api = scan.implicit_graph_api or words
                    scan.mode_constructs.append((line, "graph", words))
    scan.symbols.sort(key=lambda use: use[0])
    return scan


def _explicit_graph_nodes(tree):
    """Ids of the nodes that build or run an explicit graph: the bodies of
    `with <graph>.as_default():` and `with tf.Session() as sess:` blocks (a session's block
    builds into its graph), those sessions, and `Session(graph=...)` calls. TF2's eager
    runtime runs such code as TF1 does, so in a TF2-era script it does not call for graph mode."""
    def opens_graph(expr):
        if not isinstance(expr, ast.Call):
            return False
        name = expr.func.attr if isinstance(expr.func, ast.Attribute) else \
            getattr(expr.func, "id", None)
        return name in ("as_default", "Session")

    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                opens_graph(item.context_expr) for item in node.items):
            found.update(id(sub) for statement in node.body for sub in ast.walk(statement))
            found.update(id(sub) for item in node.items for sub in ast.walk(item.context_expr))
        elif isinstance(node, ast.Call) and any(k.arg == "graph" for k in node.keywords):
            found.update(id(sub) for sub in ast.walk(node.func))
    return found


def _flavor(scans, where):
    """The TF version ("v1"/"v2") the scanned files were written for, and why.

    Decided by names that exist in one version's top-level API only (`tf.Session`,
    `tf.contrib`: TF1; `tf.random.set_seed`, `tf.summary.create_file_writer`: TF2), the
    `tensorflow.compat.v2` import, and the compat.v1 switches only TF2 scripts need
    (`tf.compat.v1.disable_eager_execution()`). With names of both, the version with more
    distinct names wins (TF1 on a tie) and the reason says so; with none, the script is TF2
    code (one importing `tensorflow.compat.v1` without TF1-only names or switches is TF2-era
    code running the v1 API on TF2's runtime, as TF's upgrade script and the r1 guides left it).
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
        return "v2", "imports tensorflow.compat.v1 and calls no TF1 switch: TF2's runtime" + \
            where(compat_v1[0])
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
    graph = [(n, s.graph_api if flavor == "v1" else s.implicit_graph_api)
             for n, s in scans.items()]
    graph = [(n, api) for n, api in graph if api]
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
    mode, flavor = forced_mode(), _api.flavor_from_env()
    if mode is not None:
        choice = choice._replace(mode=mode, reason="%s=%s" % (MODE_ENV, mode))
    if flavor is not None:
        choice = choice._replace(flavor=flavor, flavor_reason="%s=%s" % (_api.API_ENV, flavor[1]))
    return choice


def runner_target(argv):
    """What runner arguments run: ("script", path, args, explain_compile), ("module", name,
    args, explain_compile), or None for the other commands (--version, --help, check) and
    usage errors."""
    argv = list(argv)
    if argv[:1] == ["run"]:
        argv = argv[1:]
    explain = argv[:1] == ["--explain-compile"]
    if explain:
        argv = argv[1:]
    if len(argv) >= 2 and argv[0] == "-m":
        return "module", argv[1], argv[2:], explain
    if not argv or argv[0].startswith("-") or argv[0] == "check":
        return None
    return "script", argv[0], argv[1:], explain


_announced = []


def announce(choice):
    """Print the chosen mode and TF API version to stderr, once, with how to override them."""
    if _announced:
        return
    _announced.append(choice)
    sys.stderr.write("tfcompat: running in %s mode with the TF%s API (%s; %s); set %s=eager|"
                     "graph or %s=1|2 to override.\n" % (
                         choice.mode, choice.flavor[1], choice.reason, choice.flavor_reason,
                         MODE_ENV, _api.API_ENV))
    sys.stderr.flush()


def announce_before_imports():
    """Under `python -m tfcompat SCRIPT` or the `tfcompat` command, say the mode before
    tfcompat imports torch (seconds): the script is scanned now and `announce` remembers it.
    A module run with -m is announced later: finding it may import the user's package."""
    argv, i = getattr(sys, "orig_argv", []), 1
    while i < len(argv):
        arg = argv[i]
        if arg == "-m":
            if argv[i + 1:i + 2] != ["tfcompat"]:
                return
            runner_argv = argv[i + 2:]
            break
        if not arg.startswith("-"):
            if os.path.basename(arg) != "tfcompat":
                return
            runner_argv = argv[i + 1:]
            break
        i += 2 if arg in ("-X", "-W", "--check-hash-based-pycs") else 1
    else:
        return
    target = runner_target(runner_argv)
    if target is None or target[0] != "script" or not os.path.isfile(target[1]):
        return
    try:
        announce(choose(target[1]))
    except ValueError:  # a bad TFCOMPAT_MODE / TFCOMPAT_API: reported by the import after us
        pass
