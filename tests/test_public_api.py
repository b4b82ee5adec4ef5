"""The public API never shrinks unannounced: every TF path listed in
tests/fixtures/public_api.txt (what resolved when the list was last written, first on the
code before the restructuring) still resolves.

Regenerate after adding symbols: `python tests/test_public_api.py > tests/fixtures/public_api.txt`.
Removing a line is a deliberate API change: say so in the commit.
"""
import importlib.util
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(REPO, "tests", "fixtures", "public_api.txt")


def _api_report():
    """scripts/api_report.py, whose `resolves` decides what a script can reach."""
    spec = importlib.util.spec_from_file_location(
        "api_report", os.path.join(REPO, "scripts", "api_report.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def resolvable():
    """'v1 path' / 'v2 path' for every path of TF's API lists that resolves in tfcompat."""
    report = _api_report()
    return sorted("%s %s" % (version, path) for version in ("v1", "v2")
                  for path in report.tf_paths(version) if report.resolves(version, path))


def test_every_listed_symbol_still_resolves():
    report = _api_report()
    with open(FIXTURE) as f:
        listed = [line.split(" ", 1) for line in f.read().split("\n") if line]
    lost = ["%s %s" % (version, path) for version, path in listed
            if not report.resolves(version, path)]
    assert not lost, "no longer resolvable: %s" % lost


if __name__ == "__main__":
    print("\n".join(resolvable()))
