"""Which of TensorFlow's public API paths tfcompat resolves; writes docs/unsupported.md.

TF's path lists are `tfcompat/_symbols/tf1.txt` (TF 2.15's `tf.compat.v1`) and `tf2.txt` (its
v2 API). A path resolves when walking its attributes down from `tfcompat.compat.v1` / `.v2`
succeeds, lazily loaded packages included: what a script gets from `tf.<path>`. A symbol that
resolves but raises NotImplementedError when called counts as resolving.

The missing paths are grouped by namespace (the longest prefix in `REASONS`, else the path's
first component; top-level symbols form the group `tf`), each group with the reason from
`REASONS`. When `../shared/api/usage_rank.tsv` exists (how many public legacy TF scripts use
each symbol), each group also names the missing paths those scripts use; those lines start
with `USAGE_PREFIX`, so `without_usage` gives the document as generated without the file.

    python scripts/api_report.py            # writes docs/unsupported.md
    python scripts/api_report.py --stdout   # prints it instead
"""
import argparse
import collections
import os
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)

import tfcompat  # noqa: E402

SYMBOLS_DIR = os.path.join(REPO_ROOT, "tfcompat", "_symbols")
DOC = os.path.join(REPO_ROOT, "docs", "unsupported.md")
USAGE_RANK = os.path.join(os.path.dirname(REPO_ROOT), "shared", "api", "usage_rank.tsv")
USAGE_PREFIX = "Used by real scripts"
COMPACT_OVER = 40  # groups with more missing paths are listed as one paragraph

# Why a namespace is missing, keyed by TF path prefix (whole components); the longest
# matching prefix also makes the group. A namespace without an entry: DEFAULT_REASON.
NO_ACCELERATOR_STACK = "No TPU/XLA/DTensor on PyTorch."
REASONS = {
    "raw_ops": "TF's op-by-op API: tracked by the raw-ops issue.",
    "saved_model": ("Left out of the SavedModel work: TF graph fingerprints (tfcompat saves "
                    "torch.export programs, not TF graphs), TrackableResource and "
                    "VariablePolicy (device placement), main_op_with_restore."),
    "distribute": ("Parameter-server training (coordinator, partitioners, RPC), preemption "
                   "handling and TPUs have no torch.distributed counterpart here; the "
                   "strategies, contexts and resolvers are in tfcompat.distribute "
                   "(docs/distributed.md)."),
    "tpu": NO_ACCELERATOR_STACK,
    "xla": NO_ACCELERATOR_STACK,
    "dtensor": NO_ACCELERATOR_STACK,
    "experimental.dtensor": NO_ACCELERATOR_STACK,
    "keras.dtensor": NO_ACCELERATOR_STACK,
    "mlir": "TF's MLIR compiler passes: no counterpart on PyTorch.",
    "lite": "TensorFlow Lite conversion and interpreter: out of scope.",
    "sysconfig": "TF's build configuration (compile/link flags, include dirs): "
                 "no meaning on PyTorch.",
    "tools": "TF's own source tools (API docs generator, upgrade script): "
             "not used by scripts at run time.",
    "keras.applications": "Architectures not built yet: EfficientNetV2, NASNet, ResNetRS "
                          "(the ResNets, VGGs, MobileNet/V2/V3, EfficientNetB*, DenseNets, "
                          "InceptionV3, InceptionResNetV2, Xception, ConvNeXt and RegNet are "
                          "in tfcompat.keras.applications).",
    "experimental.numpy": "tf.experimental.numpy not built yet.",
    "quantization": "TF's quantization ops not built yet.",
    "profiler": "TF's profiler not built yet (torch.profiler mapping possible).",
}
DEFAULT_REASON = "Not implemented yet."

Group = collections.namedtuple("Group", "name paths missing_in")


def tf_paths(version):
    """TF's public paths (without `tf.`) of API `version` ("v1" or "v2")."""
    with open(os.path.join(SYMBOLS_DIR, "tf%s.txt" % version[1])) as f:
        return f.read().split()


def resolves(version, path):
    """Whether `tf.<path>` resolves in tfcompat's `version` API (lazy packages load)."""
    obj = getattr(tfcompat.compat, version)
    try:
        for part in path.split("."):
            obj = getattr(obj, part)
    except (AttributeError, NotImplementedError):
        return False
    return True


def load_usage(path=USAGE_RANK):
    """TF path (without `tf.`) -> number of corpus scripts using it; None without the file."""
    if not os.path.exists(path):
        return None
    usage = {}
    with open(path) as f:
        for line in f:
            if line.startswith("tf."):
                symbol, files = line.split("\t")[:2]
                usage[symbol[3:]] = int(files)
    return usage


def group_name(path, namespaces):
    """The group of `path`: its longest `REASONS` prefix, else its first component when that
    is a namespace, else `tf` (a top-level symbol)."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in REASONS:
            return prefix
    return parts[0] if parts[0] in namespaces else "tf"


def collect():
    """(counts, groups): counts maps version -> (resolving, total, resolving without raw_ops,
    total without raw_ops); groups lists `Group`s, most missing paths first."""
    counts, missing_in = {}, collections.defaultdict(list)
    namespaces = set()
    for version in ("v1", "v2"):
        paths = tf_paths(version)
        namespaces.update(path.rpartition(".")[0] for path in paths)
        missing = [path for path in paths if not resolves(version, path)]
        for path in missing:
            missing_in[path].append(version)
        not_raw = [path for path in paths if not _is_raw_op(path)]
        counts[version] = (len(paths) - len(missing), len(paths),
                           len(not_raw) - sum(not _is_raw_op(path) for path in missing),
                           len(not_raw))
    by_group = collections.defaultdict(list)
    for path in missing_in:
        by_group[group_name(path, namespaces)].append(path)
    groups = [Group(name, sorted(paths), {path: missing_in[path] for path in paths})
              for name, paths in by_group.items()]
    groups.sort(key=lambda group: (-len(group.paths), group.name))
    return counts, groups


def _is_raw_op(path):
    return path == "raw_ops" or path.startswith("raw_ops.")


def _listed(path, group, both):
    """`path` as a group lists it: relative to the group, tagged with the one API lacking it
    unless it is missing from both APIs (or from the one API whose list has it)."""
    name = path if group.name == "tf" else path[len(group.name) + 1:] or "tf." + path
    versions = group.missing_in[path]
    return "`%s`%s" % (name, "" if path not in both or len(versions) == 2
                       else " [%s]" % versions[0])


def render(counts, groups, usage=None):
    """docs/unsupported.md's text."""
    both = set(tf_paths("v1")) & set(tf_paths("v2"))
    lines = [
        "# TensorFlow API paths tfcompat does not provide",
        "",
        "Generated by `python scripts/api_report.py`; do not edit (tests/test_registry.py checks "
        "it is current). A path counts as provided when `tf.<path>` resolves in tfcompat's "
        "`tf.compat.v1` / `tf.compat.v2` namespaces; some provided symbols still raise "
        "NotImplementedError for arguments they do not support.",
        "",
        "| API | TF paths | resolve | without `tf.raw_ops` |",
        "|---|---|---|---|",
    ]
    for version, title in (("v1", "TF1 (`tf.compat.v1`)"), ("v2", "TF2")):
        ok, total, ok_not_raw, total_not_raw = counts[version]
        lines.append("| %s | %d | %d (%.1f%%) | %d of %d (%.1f%%) |" % (
            title, total, ok, 100.0 * ok / total, ok_not_raw, total_not_raw,
            100.0 * ok_not_raw / total_not_raw))
    lines += [
        "",
        "Missing paths by namespace, most first. A path is tagged `[v1]` or `[v2]` when only "
        "that API lacks it although both have it.",
    ]
    if usage is not None:
        lines.append("%s: how many of the public TF scripts ranked in "
                     "shared/api/usage_rank.tsv use a missing path." % USAGE_PREFIX)
    for group in groups:
        v1, v2 = (sum(version in versions for versions in group.missing_in.values())
                  for version in ("v1", "v2"))
        lines += ["", "## tf%s: %d missing (v1 %d, v2 %d)" % (
            "" if group.name == "tf" else "." + group.name, len(group.paths), v1, v2), "",
            REASONS.get(group.name, DEFAULT_REASON)]
        used = sorted((path for path in group.paths if usage and path in usage),
                      key=lambda path: (-usage[path], path))
        if used:
            lines.append("%s (files): %s." % (USAGE_PREFIX, ", ".join(
                "`tf.%s` (%d)" % (path, usage[path]) for path in used)))
        lines.append("")
        listed = [_listed(path, group, both) for path in group.paths]
        if len(listed) > COMPACT_OVER:
            lines.append(", ".join(listed))
        else:
            lines += ["- " + entry for entry in listed]
    return "\n".join(lines) + "\n"


def without_usage(text):
    """`text` as `render` writes it without the usage file."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith(USAGE_PREFIX))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stdout", action="store_true", help="print instead of writing")
    args = parser.parse_args(argv)
    counts, groups = collect()
    text = render(counts, groups, load_usage())
    if args.stdout:
        sys.stdout.write(text)
        return
    with open(DOC, "w") as f:
        f.write(text)
    for version, (ok, total, ok_not_raw, total_not_raw) in counts.items():
        print("%s: %d of %d resolve (%d of %d without raw_ops)" % (
            version, ok, total, ok_not_raw, total_not_raw))
    print("wrote %s (%d groups)" % (os.path.relpath(DOC, REPO_ROOT), len(groups)))


if __name__ == "__main__":
    main()
