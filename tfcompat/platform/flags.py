"""`tf.flags` / `tf.app.flags` / `tf.compat.v1.flags` (one module): absl.flags, TF's way.

As TensorFlow's tensorflow/python/platform/flags.py (TF 1.15 and the v1 API of TF 2.15): every
absl.flags name, with absl's one registry, so a flag defined through `absl.flags` is a flag of
`tf.flags.FLAGS` and the reverse. TF adds two things, and so does this module:

- `FLAGS` wraps absl's `FLAGS`: reading a flag before the flags were parsed parses `sys.argv`
  first (all of it must be known flags), where absl raises UnparsedFlagAccessError;
- DEFINE_string / DEFINE_boolean (DEFINE_bool) / DEFINE_float / DEFINE_integer accept the old
  keyword names `flag_name`, `default_value`, `docstring`, logging a deprecation warning
  through Python's root logger as TF does.
"""
import functools as _functools
import logging as _logging
import sys as _sys

from absl.flags import *  # noqa: F401,F403 - the module is absl.flags' API
from absl.flags import FLAGS as _ABSL_FLAGS
from absl.flags import DEFINE_boolean as _absl_DEFINE_boolean
from absl.flags import DEFINE_float as _absl_DEFINE_float
from absl.flags import DEFINE_integer as _absl_DEFINE_integer
from absl.flags import DEFINE_string as _absl_DEFINE_string
from absl.flags import disclaim_key_flags as _disclaim_key_flags

from tfcompat import _api

# The DEFINE_* wrappers below call absl from here: flags belong to the module calling them.
_disclaim_key_flags()

_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accept_old_argument_names(define):
    """TF 1.x's DEFINE_* took flag_name/default_value/docstring for name/default/help."""
    @_functools.wraps(define)
    def wrapper(*args, **kwargs):
        old_names = [name for name in _RENAMED_ARGUMENTS if name in kwargs]
        for name in old_names:
            kwargs[_RENAMED_ARGUMENTS[name]] = kwargs.pop(name)
        if old_names:
            _logging.warning("Use of the keyword argument names (flag_name, default_value, "
                             "docstring) is deprecated, please use (name, default, help) "
                             "instead.")
        return define(*args, **kwargs)
    return wrapper


DEFINE_string = _accept_old_argument_names(_absl_DEFINE_string)  # noqa: N816 - TF's names
DEFINE_boolean = _accept_old_argument_names(_absl_DEFINE_boolean)  # noqa: N816
DEFINE_bool = DEFINE_boolean  # noqa: N816
DEFINE_float = _accept_old_argument_names(_absl_DEFINE_float)  # noqa: N816
DEFINE_integer = _accept_old_argument_names(_absl_DEFINE_integer)  # noqa: N816


class _FlagValuesWrapper(object):
    """TF's `FLAGS`: absl's FLAGS (its attributes, `isinstance(FLAGS, FlagValues)` holds),
    except that reading a flag of unparsed flags parses `sys.argv` first."""

    def __init__(self, flag_values):
        self.__dict__["_wrapped"] = flag_values

    def __getattribute__(self, name):
        if name == "__dict__":
            return object.__getattribute__(self, name)
        return self.__dict__["_wrapped"].__getattribute__(name)

    def __getattr__(self, name):
        """Flags are not attributes of a FlagValues object but found by its __getattr__."""
        wrapped = self.__dict__["_wrapped"]
        if not wrapped.is_parsed():
            wrapped(_sys.argv)
        return wrapped.__getattr__(name)


def _forward_to_wrapped(method):
    def forward(self, *args, **kwargs):
        return getattr(self.__dict__["_wrapped"], method)(*args, **kwargs)
    forward.__name__ = method
    return forward


# Python looks special methods up on the type, past __getattribute__.
for _method in ("__setattr__", "__delattr__", "__dir__", "__getitem__", "__setitem__",
                "__contains__", "__len__", "__iter__", "__str__", "__call__"):
    setattr(_FlagValuesWrapper, _method, _forward_to_wrapped(_method))
del _method

FLAGS = _FlagValuesWrapper(_ABSL_FLAGS)


def __getattr__(name):
    """Names of TF's flags module that are not absl's (its `tf_decorator` import) are named."""
    if not name.startswith("__") and "flags." + name in _api.known_paths("v1"):
        raise _api.UnimplementedSymbolError(
            "tfcompat does not implement tf.flags.%s (a TensorFlow-internal module that TF's "
            "flags module imports); please report the script that needs it" % name)
    raise AttributeError("module 'tf.flags' has no attribute '%s'" % name)


_api.tf_export(v1=["flags", "app.flags"])(_sys.modules[__name__])
