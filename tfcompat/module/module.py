"""`tf.Module` (TF 2's base class for objects holding variables and other modules).

As in TF (tensorflow/python/module/module.py):
- the name defaults to the class name in snake case and must be a Python identifier; names
  are not made unique, but the name scope entered once at construction is (in a graph;
  eagerly "my_module/" twice is the same scope). `with module.name_scope:` re-enters it, so
  variables made inside are named "my_module/w:0"; `Module.with_name_scope` wraps a method in it.
- `variables`, `trainable_variables`, `non_trainable_variables` and `submodules` are found by
  walking the module's attributes in sorted name order (lists, tuples, namedtuples and dicts
  searched, dicts in sorted key order), a module's direct attributes before its submodules',
  each object once. The walk happens when asked, so objects added to a list after it was
  assigned are found too (TF wraps such containers to track them).
- `_TF_MODULE_IGNORED_PROPERTIES` names attributes the walk skips.
- a list or dict assigned to a public attribute is wrapped in a tracking `ListWrapper` /
  `DictWrapper` (TF's `ListWrapper` / `_DictWrapper`), so items added after a checkpoint
  restore are restored (trackable/tracking.py). We differ in leaving private attributes
  ("_name") unwrapped.
"""
import collections.abc
import functools
import re

from tfcompat._api import tf_export
from tfcompat.framework import ops
from tfcompat.variables import Variable
from tfcompat.trackable import tracking

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value):
    """TF's module naming: "MyModule" -> "my_module", "HTTPServer" -> "http_server"."""
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


def valid_identifier(name):
    return bool(_VALID_IDENTIFIER.match(name))


class ModuleNameScope(object):
    """A name scope that can be entered any number of times (also nested), like the
    `tf.name_scope` object a TF 2 module keeps; `name` is the scope, e.g. "outer/my_module/"."""

    def __init__(self, name):
        self._name = name
        self._entered = []

    @property
    def name(self):
        return self._name

    def __enter__(self):
        scope = ops.name_scope(self._name)
        self._entered.append(scope)
        return scope.__enter__()

    def __exit__(self, *exc_info):
        return self._entered.pop().__exit__(*exc_info)


@tf_export("Module")
class Module(object):
    """Base class of TF 2 modules: a name, a name scope, and the variables and submodules
    found in its attributes (see the module docstring)."""

    _TF_MODULE_IGNORED_PROPERTIES = frozenset()
    _always_trackable = True  # an AutoTrackable in TF: checkpointable before it has variables

    def __init__(self, name=None):
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not valid_identifier(name):
            raise ValueError("%r is not a valid module name. Module names must be valid "
                             "Python identifiers (e.g. a valid class name)." % (name,))
        self._name = name
        with ops.name_scope(name) as scope_name:
            self._module_name_scope = ModuleNameScope(scope_name)

    def __setattr__(self, name, value):
        """As TF's AutoTrackable: a public list or dict attribute becomes a tracking
        `ListWrapper` / `DictWrapper`, and a value named by a pending restore is restored."""
        if name.startswith("_"):
            super().__setattr__(name, value)
            return
        value = tracking.wrap_container(value)
        super().__setattr__(name, value)
        tracking.restore_on_create(self, name, value)

    @property
    def name(self):
        """The name given at construction (or the snake-cased class name)."""
        return self._name

    @property
    def name_scope(self):
        """The module's name scope, re-entered by `with module.name_scope:`."""
        return self._module_name_scope

    @property
    def variables(self):
        """The variables of this module and its submodules, each once (a tuple)."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self):
        """The modules found in this module's attributes, recursively, each once: a module's
        direct submodules come before theirs."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None,
                 with_path=False, expand_composites=False):
        """A generator of the objects in this module's attributes that satisfy `predicate`
        (all by default), walked as the module docstring says; with `with_path`, pairs of
        (path of attribute names, indices and keys, object), where an object reached by
        several paths appears once per path."""
        if expand_composites:
            raise NotImplementedError("Module._flatten(expand_composites=True) is not "
                                      "implemented by tfcompat")
        return _flatten_module(self, recursive, predicate or _anything,
                               attribute_traversal_key, with_path, (), {id(self)}, [])

    @classmethod
    def with_name_scope(cls, method):
        """Decorate a method (or a property's getter) to run in the module's name scope."""
        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return method_with_name_scope


def _anything(_):
    return True


def _is_variable(obj):
    return isinstance(obj, Variable)


def _is_trainable_variable(obj):
    return isinstance(obj, Variable) and obj.trainable


def _is_non_trainable_variable(obj):
    return isinstance(obj, Variable) and not obj.trainable


def _is_module(obj):
    return isinstance(obj, Module)


def _leaves_with_paths(structure, path):
    """(path, leaf) pairs of a nested structure in tf.nest order (mappings by sorted key,
    namedtuples by field name, sequences by index)."""
    if isinstance(structure, collections.abc.Mapping):
        for key in sorted(structure):
            yield from _leaves_with_paths(structure[key], path + (key,))
    elif isinstance(structure, tuple) and hasattr(structure, "_fields"):
        for field in structure._fields:
            yield from _leaves_with_paths(getattr(structure, field), path + (field,))
    elif isinstance(structure, (list, tuple)):
        for index, item in enumerate(structure):
            yield from _leaves_with_paths(item, path + (index,))
    else:
        yield path, structure


def _flatten_module(module, recursive, predicate, attribute_traversal_key, with_path,
                    module_path, seen, recursion_stack):
    """TF's walk: the module's attributes first, then its submodules' (a submodule already on
    the recursion stack is not entered again, so cycles end)."""
    if id(module) in recursion_stack:
        recursive = False
    attributes = vars(module)
    ignored = module._TF_MODULE_IGNORED_PROPERTIES
    submodules = []
    for key in sorted(attributes, key=attribute_traversal_key):
        if key in ignored:
            continue
        value = attributes[key]
        try:
            leaves = list(_leaves_with_paths(value, (key,)))
        except TypeError as cause:
            raise ValueError("Error processing property %r of %r" % (key, value)) from cause
        for leaf_path, leaf in leaves:
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((module_path + leaf_path, leaf))
    recursion_stack.append(id(module))
    for path, submodule in submodules:
        yield from _flatten_module(submodule, recursive, predicate, attribute_traversal_key,
                                   with_path, path, seen, recursion_stack)
    recursion_stack.pop()
