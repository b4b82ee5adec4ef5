"""The package's layers, enforced: a subpackage imports only from layers below its own.

Walks every module's AST (module-level and in-function imports alike) and maps each
`tfcompat.<unit>...` import to its unit: a subpackage (`tfcompat/keras/`) or a top-level
module (`tfcompat/variables.py`). docs/dev/implementation-notes.md explains the order.
"""
import ast
import collections
import os

import tfcompat

ROOT = os.path.dirname(tfcompat.__file__)

# Lowest first. A unit may import units of lower layers only; nothing in one layer imports
# another unit of the same layer unless SIDEWAYS says so.
LAYERS = [
    ["_api", "_dependencies", "_version"],   # the registry; no torch
    ["_scan", "util", "platform"],           # script scanning, utilities, tf.app/flags/logging
    ["framework"],          # dtypes, tensors, graphs, the op decorator, per-thread state
    ["ops", "config", "types"],              # ops written once in torch; tf.config; tf.types
    ["eager", "autograph", "client", "core"],  # tapes and gradients; AutoGraph; Session; protos
    ["variables", "io"],
    ["variable_scope", "trackable", "function"],
    ["module", "data", "losses", "summary"],
    ["train"],
    ["distribute"],         # tf.distribute strategies on torch.distributed (one replica/process)
    ["saved_model"],        # SavedModels: checkpoints + traced functions (torch.export)
    ["keras", "feature_column"],
    ["layers", "metrics"],  # TF1 tf.layers / tf.nn.rnn_cell / tf.metrics are built on Keras
    ["estimator", "contrib", "compat", "test", "horovod"],  # horovod: Horovod's TF/Keras API
    ["__init__"],           # imports every layer below (by name) and builds the namespaces
    ["_import_hook"],       # `import tensorflow` as a view of the built package
    ["check", "export"],
    ["cli"],
    ["__main__"],
]

# Imports between units of one layer, each with its reason.
SIDEWAYS = {
    ("_scan", "_api"): "the scanner asks the registry which names only one TF API has",
    ("util", "_api"): "tf.nest and friends register their paths",
    ("platform", "_api"): "tf.app / tf.flags / tf.logging register their paths",
    ("core", "types"): "tf.function's trace types implement tf.types.experimental.TraceType",
}

PACKAGE_INIT = "__init__"  # `import tfcompat` / `from tfcompat import X`


def _unit(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else PACKAGE_INIT


def _imports():
    """(importing unit, imported unit, file, line) for every tfcompat import."""
    found = []
    for folder, _, files in os.walk(ROOT):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, os.path.dirname(ROOT))[:-3].replace(os.sep, ".")
            module = relative[:-len(".__init__")] if name == "__init__.py" else relative
            package = module if name == "__init__.py" else module.rsplit(".", 1)[0]
            with open(path) as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    targets = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        kept = package.split(".")[:len(package.split(".")) - node.level + 1]
                        base = ".".join(kept + ([base] if base else []))
                    targets = ([base + "." + alias.name for alias in node.names]
                               if base == "tfcompat" else [base])
                else:
                    continue
                for target in targets:
                    if target == "tfcompat" or target.startswith("tfcompat."):
                        found.append((_unit(module), _unit(target),
                                      os.path.relpath(path, ROOT), node.lineno))
    return found


def _layer_of():
    layer = {}
    for index, units in enumerate(LAYERS):
        for unit in units:
            assert unit not in layer, "%s is listed twice in LAYERS" % unit
            layer[unit] = index
    return layer


def test_every_unit_has_a_layer():
    layer = _layer_of()
    units = set()
    for name in os.listdir(ROOT):
        path = os.path.join(ROOT, name)
        if name.endswith(".py"):
            units.add(name[:-3])
        elif os.path.isfile(os.path.join(path, "__init__.py")):
            units.add(name)
    missing = sorted(units - set(layer))
    assert not missing, "put these in a layer of tests/test_layering.py: %s" % missing


def test_imports_go_down_the_layers():
    layer = _layer_of()
    wrong = collections.defaultdict(list)
    for source, target, path, line in _imports():
        if source == target:
            continue
        if layer[target] > layer[source]:
            wrong[(source, target)].append("%s:%d goes up" % (path, line))
        elif layer[target] == layer[source] and (source, target) not in SIDEWAYS:
            wrong[(source, target)].append("%s:%d goes sideways" % (path, line))
    assert not wrong, "\n".join(
        "%s -> %s: %s" % (source, target, "; ".join(sites))
        for (source, target), sites in sorted(wrong.items()))


def test_sideways_allowances_are_still_needed():
    used = {(source, target) for source, target, _, _ in _imports()}
    stale = sorted(set(SIDEWAYS) - used)
    assert not stale, "remove these from SIDEWAYS: %s" % stale


MAX_IN_FUNCTION_IMPORTS = 60   # the bound; 9 when this test was written


def _in_function_imports():
    """(file, line, has a reason) for each tfcompat import inside a function."""
    found = {}
    for folder, _, files in os.walk(ROOT):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path) as f:
                source = f.read()
            lines = source.split("\n")
            for function in ast.walk(ast.parse(source)):
                if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(function):
                    module = node.module or "" if isinstance(node, ast.ImportFrom) else None
                    is_ours = (isinstance(node, ast.ImportFrom) and
                               (node.level or module.startswith("tfcompat"))) or \
                        (isinstance(node, ast.Import) and
                         any(alias.name.startswith("tfcompat") for alias in node.names))
                    if is_ours:
                        said = "# in-function:" in lines[node.lineno - 2] + lines[node.lineno - 1]
                        found[(os.path.relpath(path, ROOT), node.lineno)] = said
    return found


def test_in_function_imports_are_few_and_say_why():
    """An import inside a function only dodges a real cycle inside one package (or loads
    something heavy lazily); each says why in a `# in-function: <reason>` comment."""
    found = _in_function_imports()
    assert len(found) <= MAX_IN_FUNCTION_IMPORTS, sorted(found)
    unexplained = sorted("%s:%d" % site for site, said in found.items() if not said)
    assert not unexplained, "give each a '# in-function: <reason>' comment or move it to " \
        "module level: %s" % unexplained
