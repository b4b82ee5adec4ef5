"""Unpickling files without running code from them: only globals named in an allow-list.

A pickle names the functions and classes it calls by (module, name); `pickle.load` imports
and calls whatever it names (`os.system`, `builtins.eval`, ...). Here `find_class` gives
only the globals the caller allows for that kind of file and refuses any other with
`UnsafePickleError`, so a crafted file can build the allowed objects and nothing else.
"""
import pickle


class UnsafePickleError(pickle.UnpicklingError, ValueError):
    """A pickle asked for a global that this kind of file may not hold (both pickle's
    `UnpicklingError` and a `ValueError`)."""


class RestrictedUnpickler(pickle.Unpickler):
    """`pickle.Unpickler` resolving only `allowed` globals: {(module, name): the object, or
    None to import it as pickle does}. `what` names the file in the refusal message."""

    def __init__(self, file, allowed, what, **kwargs):
        super(RestrictedUnpickler, self).__init__(file, **kwargs)
        self._allowed = allowed
        self._what = what

    def find_class(self, module, name):
        key = (module, name)
        if key not in self._allowed:
            raise UnsafePickleError("Refusing to load %s.%s from %s." % (module, name,
                                                                         self._what))
        obj = self._allowed[key]
        return super(RestrictedUnpickler, self).find_class(module, name) if obj is None \
            else obj


def load(fileobj, allowed, what, **kwargs):
    """The object pickled in `fileobj`, built from `allowed` globals only (see
    `RestrictedUnpickler`; `kwargs` are `pickle.Unpickler`'s, e.g. `encoding`)."""
    return RestrictedUnpickler(fileobj, allowed, what, **kwargs).load()
