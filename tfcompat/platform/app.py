"""TF 1.x `tf.app.run` (tf.compat.v1.app.run): absl.app.run with TF's flags parser.

As TensorFlow's: `absl.app.run` does the work (help flags --help/-?/--helpshort/--helpfull
printed as absl prints them, absl's logging handler, `sys.exit` with main's return value), but
flags are parsed with `known_only=True`, so flags nobody defined are passed on to `main` with
the positional arguments instead of stopping the program. A bad value of a defined flag raises
IllegalFlagValueError.
"""
import sys

from absl import app as _absl_app

from tfcompat._api import tf_export
from tfcompat.platform import flags


def _parse_flags_tolerate_undef(argv):
    """Parses the flags absl's FLAGS knows; returns [program] + the other arguments."""
    return flags.FLAGS(argv, known_only=True)


@tf_export(v1=["app.run"])
def run(main=None, argv=None):
    """Runs `main(remaining argv)` (default: `__main__.main`), then `sys.exit`s with its
    return value."""
    main = main or sys.modules["__main__"].main
    _absl_app.run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
