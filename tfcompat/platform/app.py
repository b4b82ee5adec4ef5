"""TF 1.x `tf.app.run`: parse the command-line flags, call main(argv), exit with its result.

As TF 1.15 (absl.app.run with TF's flags parser): flags are parsed with `known_only=True`, so
flags nobody defined are passed on to `main` with the positional arguments instead of being
rejected; a bad value for a defined flag raises IllegalFlagValueError. `--help`/`--helpshort`
print the main script's docstring and flags, `--helpfull` every flag, on stdout, and exit with
status 1 as absl does.
"""
import sys

from tfcompat._api import tf_export
from tfcompat.platform import flags


def usage(shorthelp=False, writeto_stdout=False):
    """absl's usage text: the main module's docstring (or "USAGE: prog [flags]") and flags."""
    doc = getattr(sys.modules.get("__main__"), "__doc__", None)
    program = sys.argv[0] if sys.argv else "__main__"
    if not doc:
        doc = "\n       USAGE: %s [flags]\n" % program
    else:
        specifiers = doc.count("%") - 2 * doc.count("%%")
        try:
            doc %= (program,) * specifiers
        except (OverflowError, TypeError, ValueError):
            pass
    flag_help = flags.FLAGS.main_module_help() if shorthelp else flags.FLAGS.get_help()
    out = sys.stdout if writeto_stdout else sys.stderr
    out.write(doc)
    if flag_help:
        out.write("\nflags:\n")
        out.write(flag_help)
    out.write("\n")


class _HelpFlag(flags.BooleanFlag):
    """--help / --helpshort / --helpfull: print usage and exit(1) when given."""

    def __init__(self, name, short_name, help_string, full):
        super(_HelpFlag, self).__init__(name, False, help_string, short_name=short_name)
        self._full = full

    def parse(self, argument):
        if self._parse(argument):
            usage(shorthelp=not self._full, writeto_stdout=True)
            if not self._full:
                print()
                print("Try --helpfull to get a list of all flags.")
            sys.exit(1)


def _define_help_flags():
    for name, short_name, help_string, full in (
            ("help", "?", "show this help", False),
            ("helpshort", None, "show usage only for this module", False),
            ("helpfull", None, "show full help", True)):
        if name not in flags.FLAGS:
            flags.DEFINE_flag(_HelpFlag(name, short_name, help_string, full))


@tf_export(v1=["app.run"])
def run(main=None, argv=None):
    """Runs `main(remaining argv)` (default: `__main__.main`) and `sys.exit`s with its
    return value."""
    main = main or sys.modules["__main__"].main
    _define_help_flags()
    remaining = flags.FLAGS(sys.argv if argv is None else argv, known_only=True)
    sys.exit(main(remaining))
