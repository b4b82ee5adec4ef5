"""TF 1.x `tf.contrib.framework`: arg_scope and the model-variable helpers slim builds on.

`arg_scope([ops], **kwargs)` supplies default keyword arguments to functions decorated with
`add_arg_scope` (explicit arguments win; nested scopes merge). `model_variable` /
`variable` are `tf.get_variable` with TF's collections (MODEL_VARIABLES) and an optional
custom getter. The checkpoint helpers reuse tf.train's readers and Saver.
"""
import contextlib
import functools
import inspect

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, graph
from tfcompat.platform import tf_logging
from tfcompat.train import saver as saver_lib
from tfcompat.train import training_util
from tfcompat.variable_scope import VariableScope, get_variable, get_variable_scope
from tfcompat.variables import (GLOBAL_VARIABLES, LOCAL_VARIABLES, MODEL_VARIABLES,
                                TRAINABLE_VARIABLES, Variable, VariableAggregation,
                                VariableSynchronization)

# ---------------------------------------------------------------- arg_scope

_arg_stack = [{}]
_decorated_ops = {}  # key -> names of the keyword arguments (those with defaults)


def _key(op):
    """The identity of an arg-scoped function (the undecorated one)."""
    return getattr(op, "_key_op", op)


def _op_name(op):
    return "%s.%s" % (getattr(op, "__module__", "?"), getattr(op, "__name__", repr(op)))


@tf_export("contrib.framework.current_arg_scope")
def current_arg_scope():
    """The innermost arg_scope: {function key: {argument: value}}."""
    return _arg_stack[-1]


@tf_export("contrib.framework.has_arg_scope")
def has_arg_scope(func):
    return _key(func) in _decorated_ops


@tf_export("contrib.framework.arg_scoped_arguments")
def arg_scoped_arguments(func):
    """The keyword arguments an arg_scope can set for `func`."""
    if not has_arg_scope(func):
        raise ValueError("%s is not decorated with @add_arg_scope" % _op_name(func))
    return _decorated_ops[_key(func)]


@tf_export("contrib.framework.arg_scope")
@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Default keyword arguments for the listed functions (or re-enter a saved scope dict)."""
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("When attempting to re-use a scope by suppling a dictionary, "
                             "kwargs must be empty.")
        scope = list_ops_or_scope.copy()
    else:
        if not isinstance(list_ops_or_scope, (list, tuple)):
            raise TypeError("list_ops_or_scope must either be a list/tuple or reused scope "
                            "(i.e. dict)")
        scope = current_arg_scope().copy()
        for op in list_ops_or_scope:
            if not has_arg_scope(op):
                raise ValueError("%s is not decorated with @add_arg_scope" % _op_name(op))
            merged = dict(scope.get(_key(op), {}))
            merged.update(kwargs)
            scope[_key(op)] = merged
    _arg_stack.append(scope)
    try:
        yield scope
    finally:
        _arg_stack.pop()


@tf_export("contrib.framework.add_arg_scope")
def add_arg_scope(func):
    """Makes `func` take defaults for its keyword arguments from the enclosing arg_scopes."""
    key = _key(func)

    @functools.wraps(func)
    def func_with_args(*args, **kwargs):
        scoped = current_arg_scope().get(key)
        if scoped:
            merged = dict(scoped)
            merged.update(kwargs)
            kwargs = merged
        return func(*args, **kwargs)

    parameters = inspect.signature(func).parameters.values()
    _decorated_ops[key] = tuple(p.name for p in parameters
                                if p.default is not p.empty and p.kind is not p.KEYWORD_ONLY)
    func_with_args._key_op = key
    return func_with_args


# ---------------------------------------------------------------- variables


@tf_export("contrib.framework.variable")
@add_arg_scope
def variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
             trainable=True, collections=None, caching_device=None, device=None,
             partitioner=None, custom_getter=None, use_resource=None,
             synchronization=VariableSynchronization.AUTO,
             aggregation=VariableAggregation.NONE):
    """`tf.get_variable` in `collections` (default GLOBAL_VARIABLES), through `custom_getter`
    if given (called with the current scope's reuse)."""
    collections = list(set(collections if collections is not None else [GLOBAL_VARIABLES]))
    getter = get_variable
    if custom_getter is not None:
        getter = functools.partial(custom_getter, reuse=get_variable_scope().reuse)
    with contextlib.ExitStack() as stack:
        if device is not None:
            stack.enter_context(context.device(device))
        return getter(name, shape=shape, dtype=dtype, initializer=initializer,
                      regularizer=regularizer, trainable=trainable, collections=collections,
                      caching_device=caching_device, partitioner=partitioner,
                      use_resource=use_resource, synchronization=synchronization,
                      aggregation=aggregation)


@tf_export("contrib.framework.model_variable")
@add_arg_scope
def model_variable(name, shape=None, dtype=dtypes.float32, initializer=None,
                   regularizer=None, trainable=True, collections=None, caching_device=None,
                   device=None, partitioner=None, custom_getter=None, use_resource=None,
                   synchronization=VariableSynchronization.AUTO,
                   aggregation=VariableAggregation.NONE):
    """`variable` also placed in GLOBAL_VARIABLES and MODEL_VARIABLES."""
    collections = list(collections or []) + [GLOBAL_VARIABLES, MODEL_VARIABLES]
    return variable(name, shape=shape, dtype=dtype, initializer=initializer,
                    regularizer=regularizer, trainable=trainable, collections=collections,
                    caching_device=caching_device, device=device, partitioner=partitioner,
                    custom_getter=custom_getter, use_resource=use_resource,
                    synchronization=synchronization, aggregation=aggregation)


@tf_export("contrib.framework.local_variable")
def local_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A non-trainable variable in LOCAL_VARIABLES."""
    return Variable(initial_value, trainable=False, collections=[LOCAL_VARIABLES],
                    validate_shape=validate_shape, use_resource=use_resource, name=name)


@tf_export("contrib.framework.global_variable")
def global_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A non-trainable variable in GLOBAL_VARIABLES."""
    return Variable(initial_value, trainable=False, collections=[GLOBAL_VARIABLES],
                    validate_shape=validate_shape, use_resource=use_resource, name=name)


@tf_export("contrib.framework.add_model_variable")
def add_model_variable(var):
    if var not in graph.get_collection(MODEL_VARIABLES):
        graph.add_to_collection(MODEL_VARIABLES, var)


@tf_export("contrib.framework.get_variables")
def get_variables(scope=None, suffix=None, collection=GLOBAL_VARIABLES):
    """Variables of `collection` whose names match `scope` (a regex prefix) and `suffix`."""
    if isinstance(scope, VariableScope):
        scope = scope.name
    if suffix is not None:
        if ":" not in suffix:
            suffix += ":"
        scope = (scope or "") + ".*" + suffix
    return graph.get_collection(collection, scope)


@tf_export("contrib.framework.get_model_variables")
def get_model_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, MODEL_VARIABLES)


@tf_export("contrib.framework.get_local_variables")
def get_local_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, LOCAL_VARIABLES)


@tf_export("contrib.framework.get_trainable_variables")
def get_trainable_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, TRAINABLE_VARIABLES)


@tf_export("contrib.framework.get_variables_by_suffix")
def get_variables_by_suffix(suffix, scope=None):
    return get_variables(scope=scope, suffix=suffix)


@tf_export("contrib.framework.get_variables_by_name")
def get_variables_by_name(given_name, scope=None):
    """Variables whose last name component is `given_name`."""
    return get_variables(scope=scope, suffix="/" + given_name + ":|^" + given_name + ":")


@tf_export("contrib.framework.get_unique_variable")
def get_unique_variable(var_op_name):
    """The variable named exactly `var_op_name` (without ":0")."""
    candidates = get_variables(scope=var_op_name)
    if not candidates:
        raise ValueError("Couldn't find variable %s" % var_op_name)
    for candidate in candidates:
        if candidate.op.name == var_op_name:
            return candidate
    raise ValueError("Variable %s does not uniquely identify a variable" % var_op_name)


@tf_export("contrib.framework.get_variables_to_restore")
def get_variables_to_restore(include=None, exclude=None):
    """Global variables under the `include` scopes and not under the `exclude` ones."""
    if include is None:
        candidates = get_variables()
    else:
        if not isinstance(include, (list, tuple)):
            raise TypeError("include is provided but is not a list or a tuple.")
        candidates = [v for scope in include for v in get_variables(scope)]
    excluded = set()
    if exclude is not None:
        if not isinstance(exclude, (list, tuple)):
            raise TypeError("exclude is provided but is not a list or a tuple.")
        excluded = {id(v) for scope in exclude for v in get_variables(scope)}
    return [v for v in candidates if id(v) not in excluded]


@tf_export("contrib.framework.get_variable_full_name")
def get_variable_full_name(var):
    """The variable's name without ":0" (its checkpoint key)."""
    return var.op.name


@tf_export("contrib.framework.get_name_scope")
def get_name_scope():
    return graph.get_default_graph().get_name_scope()


get_global_step = tf_export("contrib.framework.get_global_step")(
    training_util.get_global_step)
create_global_step = tf_export("contrib.framework.create_global_step")(
    training_util.create_global_step)
get_or_create_global_step = tf_export("contrib.framework.get_or_create_global_step")(
    training_util.get_or_create_global_step)
assert_global_step = tf_export("contrib.framework.assert_global_step")(
    training_util.assert_global_step)
list_variables = tf_export("contrib.framework.list_variables")(saver_lib.list_variables)
load_variable = tf_export("contrib.framework.load_variable")(saver_lib.load_variable)
load_checkpoint = tf_export("contrib.framework.load_checkpoint")(saver_lib.load_checkpoint)
init_from_checkpoint = tf_export("contrib.framework.init_from_checkpoint")(
    saver_lib.init_from_checkpoint)


@tf_export("contrib.framework.assign_from_checkpoint_fn")
def assign_from_checkpoint_fn(model_path, var_list, ignore_missing_vars=False,
                              reshape_variables=False):
    """A function `fn(session)` restoring `var_list` (list, or {checkpoint name: variable})
    from `model_path`; None (with a warning) when nothing is left to restore."""
    if not var_list:
        raise ValueError("var_list cannot be empty")
    if reshape_variables:
        raise NotImplementedError("assign_from_checkpoint_fn(reshape_variables=True) is not "
                                  "implemented by tfcompat")
    if ignore_missing_vars:
        reader = saver_lib.NewCheckpointReader(model_path)
        names = var_list if isinstance(var_list, dict) else \
            {v.op.name: v for v in var_list}
        var_list = {}
        for name, var in names.items():
            if reader.has_tensor(name):
                var_list[name] = var
            else:
                tf_logging.warning("Variable %s missing in checkpoint %s", name, model_path)
    if not var_list:
        tf_logging.warning("No Variables to restore")
        return None
    saver = saver_lib.Saver(var_list)

    def callback(session):
        saver.restore(session, model_path)
    return callback
