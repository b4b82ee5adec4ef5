"""Run-time side of AutoGraph: statements that become graph control flow on tensors, and
the overloads of builtins, asserts, equality and list operations (TF's
autograph/operators: control_flow, py_builtins, exceptions, logical, data_structures)."""
import builtins
import contextlib
import functools

from tfcompat.framework import context, dtypes
from tfcompat.framework.graph import SymbolicTensor, _flatten, get_default_graph
from tfcompat.framework.ops import convert_to_tensor, is_tensor, name_scope
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import array_ops, check_ops, math_ops, script_ops, string_ops
from tfcompat.ops.control_flow_ops import _pack_as, cond, while_loop
from tfcompat.ops.tensor_array_ops import TensorArray

_state = context.state


class Undefined(object):
    """A variable not yet bound when a converted statement starts."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "<undefined %s>" % self.name


def current_values(local_vars, names):
    """The current values of `names` (Undefined for names not bound yet)."""
    return tuple(local_vars[n] if n in local_vars else Undefined(n) for n in names)


def if_stmt(test, true_fn, false_fn, values):
    """`if test:` -- tf.cond when `test` is a symbolic tensor, else a Python if."""
    if isinstance(test, SymbolicTensor):
        true_out, false_out = [], []

        def branch(fn, record):
            def run():
                result = fn(*values)
                record.append(result)
                return [v for v in result if not isinstance(v, Undefined)]
            return run
        result = cond(test, branch(true_fn, true_out), branch(false_fn, false_out))
        result = list(result) if isinstance(result, (list, tuple)) else [result]
        merged = iter(result)
        return tuple(next(merged) if not isinstance(v, Undefined) else v for v in true_out[0])
    return true_fn(*values) if test else false_fn(*values)


def if_return(test, true_fn, false_fn, values):
    """`if test: return a else: return b` -- the value of tf.cond when `test` is a symbolic
    tensor (both branches must give matching structures), else of the branch taken."""
    if isinstance(test, SymbolicTensor):
        return cond(test, lambda: true_fn(*values), lambda: false_fn(*values))
    return true_fn(*values) if test else false_fn(*values)


def _range_arguments(start, limit=None, delta=1, dtype=None, name=None):
    return (0, start, delta, dtype) if limit is None else (start, limit, delta, dtype)


def _while_loop_options(options, loop_values):
    """tf.while_loop's keyword arguments from a loop's `set_loop_options` directive, its
    `shape_invariants` (variable, shape) pairs matched to the loop variables by identity."""
    options = dict(options or {})
    pairs = options.pop("shape_invariants", None)
    if pairs:
        options["shape_invariants"] = [
            next((TensorShape(shape) for variable, shape in pairs if variable is value),
                 TensorShape(None) if isinstance(value, TensorArray)
                 else convert_to_tensor(value).shape)
            for value in loop_values]
    return options


def for_range_stmt(range_fn, args, kwargs, body, values, break_index=None, options=None):
    """`for target in range_fn(*args, **kwargs):`, `values` being (target, loop variables),
    `values[break_index]` the loop's `break` flag if it has one, `options` its
    `set_loop_options` directive.

    tf.range (or the builtin range) with a symbolic bound becomes a tf.while_loop over the
    indices (its size is not known while tracing) that also stops once the break flag is
    set; anything else is iterated in Python. After a while_loop the target is the last index
    run, `start - delta` when the loop ran no step."""
    if range_fn is builtins.range:
        range_fn = range_
    bounds = list(args) + list(kwargs.values())
    if range_fn not in (array_ops.range, range_) or \
            not any(isinstance(bound, SymbolicTensor) for bound in bounds):
        return _python_loop(range_fn(*args, **kwargs),
                            lambda item, *current: body(item, *current[1:]), values,
                            break_index)
    start, limit, delta, dtype = _range_arguments(*args, **kwargs)
    if dtype is None:
        dtype = next(bound.dtype for bound in bounds if isinstance(bound, SymbolicTensor))
    start, limit, delta = (math_ops.cast(convert_to_tensor(bound), dtype)
                           for bound in (start, limit, delta))

    def step(index, *carried):
        return [index + delta] + list(body(index, *carried)[1:])

    def test(index, *carried):
        in_range = (index - limit) * delta < 0
        if break_index is None:
            return in_range
        return and_(not_(carried[break_index - 1]), lambda: in_range)

    result = _while_over_defined(test, step, [start] + list(values[1:]), options)
    return (result[0] - delta,) + result[1:]


def for_stmt(iterable, body, values, break_index=None, options=None):
    """`for target in iterable:`, `body(item, *values)` giving the new `values`,
    `values[break_index]` the loop's `break` flag if it has one.

    A tf.data dataset while a graph is built becomes a tf.while_loop taking its elements
    from an iterator started anew each time the loop runs (TF's dataset loop); anything
    else is iterated in Python (a tensor over its first dimension, unrolled).
    Where we differ: a graph loop over a dataset of unknown size (filter, from_generator)
    raises NotImplementedError (TF stops at its end)."""
    if _state.building_graph and _is_dataset(iterable):
        return _dataset_for_stmt(iterable, body, values, break_index, options)
    return _python_loop(iterable, body, values, break_index)


def _python_loop(iterable, step, values, break_index):
    """`values = step(item, *values)` for each item, until the break flag
    `values[break_index]` is the Python True; once it is a tensor, each later step runs
    under a tf.cond on it (TF's guard of the statements after a `break`)."""
    if break_index is not None:
        iterable = until_python_break(iterable, lambda: values[break_index])
    for item in iterable:
        flag = values[break_index] if break_index is not None else None
        if isinstance(flag, SymbolicTensor):
            values = if_stmt(not_(flag), functools.partial(step, item),
                             lambda *current: current, values)
        else:
            values = step(item, *values)
    return values


def _is_dataset(value):
    # tf.data's Dataset is recognised by its API (tfcompat.data imports this layer's
    # modules, so this module cannot import it)
    return hasattr(value, "make_initializable_iterator") and hasattr(value, "cardinality")


def _dataset_for_stmt(dataset, body, values, break_index, options):
    size = int(dataset.cardinality())
    if size == _UNKNOWN_CARDINALITY:
        return _dataset_reduce_loop(dataset, body, values, break_index)
    iterator = dataset.make_initializable_iterator()

    def test(count, *carried):
        more = count < size if size != _INFINITE_CARDINALITY else convert_to_tensor(True)
        if break_index is None:
            return more
        return and_(not_(carried[break_index]), lambda: more)

    def step(count, *carried):
        return [count + 1] + list(body(iterator.get_next(), *carried))

    with get_default_graph().control_dependencies([iterator.initializer]):
        result = _while_over_defined(test, step, [convert_to_tensor(0)] + list(values),
                                     options)
    return result[1:]


_INFINITE_CARDINALITY, _UNKNOWN_CARDINALITY = -1, -2


def _dataset_reduce_loop(dataset, body, values, break_index):
    """A for loop over a dataset of unknown size (`from_generator`, `filter`): one
    `Dataset.reduce` node carrying the defined values, as TF's AutoGraph reduces over the
    dataset. After a `break` the remaining elements are still read but the body no longer
    runs (each step is guarded by a tf.cond on the break flag)."""
    carried = [i for i, value in enumerate(values) if not isinstance(value, Undefined)]

    def merged(carried_values):
        full = list(values)
        for position, value in zip(carried, carried_values):
            full[position] = value
        return full

    def step(element, *state):
        result = body(element, *merged(state))
        return tuple(result[position] for position in carried)

    def reduce_func(state, element):
        if break_index is None:
            return step(element, *state)
        return if_stmt(not_(merged(state)[break_index]), functools.partial(step, element),
                       lambda *unchanged: unchanged, tuple(state))

    result = dataset.reduce(tuple(values[position] for position in carried), reduce_func)
    return tuple(merged(result))


def _while_over_defined(test, body, values, options):
    """tf.while_loop of `test` / `body` (functions of all `values`) carrying the defined
    values. Undefined ones are the loop's local variables (assigned in the body before any
    use, which TF's liveness analysis finds): each iteration starts them Undefined, and they
    stay so after the loop."""
    carried = [i for i, value in enumerate(values) if not isinstance(value, Undefined)]
    if not carried:
        raise ValueError("a while loop on a tensor condition must change a variable defined "
                         "before it")

    def merged(carried_values):
        full = list(values)
        for position, value in zip(carried, carried_values):
            full[position] = value
        return full

    def step(*carried_values):
        result = body(*merged(carried_values))
        return [result[position] for position in carried]

    initial = [values[position] for position in carried]
    result = while_loop(lambda *carried_values: test(*merged(carried_values)), step, initial,
                        return_same_structure=True, **_while_loop_options(options, initial))
    return tuple(merged(result))


def while_stmt(test, body, values, options=None):
    """`while test:` -- tf.while_loop once `test` is a symbolic tensor, else a Python loop;
    `options`: the loop's `set_loop_options` directive."""
    while True:
        condition = test(*values)
        if isinstance(condition, SymbolicTensor):
            return _while_over_defined(test, body, values, options)
        if not condition:
            return values
        values = body(*values)


def not_(value):
    """`not value`: tf.logical_not of a symbolic tensor (TF AutoGraph's `ag__.not_`)."""
    if isinstance(value, SymbolicTensor):
        return math_ops.logical_not(value)
    return not value


def and_(left, right_fn):
    """`left and right`: tf.logical_and when either is a symbolic tensor, else Python's
    short-circuit `and`."""
    if isinstance(left, SymbolicTensor):
        return math_ops.logical_and(left, convert_to_tensor(right_fn()))
    return left and right_fn()


def or_(left, right_fn):
    """`left or right`: tf.logical_or when either is a symbolic tensor, else Python's
    short-circuit `or`."""
    if isinstance(left, SymbolicTensor):
        return math_ops.logical_or(left, convert_to_tensor(right_fn()))
    return left or right_fn()


def until_python_break(iterable, break_flag):
    """The items of `iterable` until `break_flag()` is the Python True after one of them
    (a `break` flag that is a tensor cannot stop an unrolled loop; the converted body is
    guarded by it instead)."""
    for item in iterable:
        yield item
        flag = break_flag()
        if not isinstance(flag, SymbolicTensor) and flag:
            return


# ---------------------------------------------------------------- optional features


def eq(left, right):
    """`left == right` under EQUALITY_OPERATORS: tf.equal when either is a tensor."""
    if is_tensor(left) or is_tensor(right):
        return math_ops.equal(left, right)
    return left == right


def not_eq(left, right):
    """`left != right` under EQUALITY_OPERATORS: tf.not_equal when either is a tensor."""
    if is_tensor(left) or is_tensor(right):
        return math_ops.not_equal(left, right)
    return left != right


def assert_stmt(expression, message_fn):
    """`assert expression, message` under ASSERT_STATEMENTS: tf.debugging.Assert of the
    message when `expression` is a tensor (its op when building a graph), else Python's
    assert."""
    if is_tensor(expression):
        message = message_fn()
        return check_ops.Assert(expression, message if isinstance(message, list) else [message])
    assert expression, message_fn()
    return None


def list_append(target, element):
    """`target.append(element)` under LISTS: a TensorArray is written at its size (the
    array written comes back), a Python list is appended to."""
    if isinstance(target, TensorArray):
        return target.write(target.size(), element)
    target.append(element)
    return target


def list_stack(target, original_call):
    """A one-argument `<module>.stack(target)` under LISTS: a TensorArray's stack(), else
    the call as written."""
    if isinstance(target, TensorArray):
        return target.stack()
    return original_call(target)


_UNSPECIFIED = object()


def abs_(value):
    """`abs`: tf.abs of a tensor."""
    return math_ops.abs(value) if is_tensor(value) else abs(value)


def int_(value=0, base=_UNSPECIFIED):
    """`int`: an int32 tensor of a tensor (cast, or parsed from strings), as TF's."""
    if is_tensor(value):
        if base is not _UNSPECIFIED:
            raise NotImplementedError("base argument is not supported for tensors")
        if value.dtype == dtypes.string:
            return string_ops.string_to_number(value, out_type=dtypes.int32)
        return math_ops.cast(value, dtypes.int32)
    return int(value) if base is _UNSPECIFIED else int(value, base)


def float_(value=0):
    """`float`: a float32 tensor of a tensor (cast, or parsed from strings), as TF's."""
    if is_tensor(value):
        if value.dtype == dtypes.string:
            return string_ops.string_to_number(value, out_type=dtypes.float32)
        return math_ops.cast(value, dtypes.float32)
    return float(value)


def len_(value):
    """`len`: a TensorArray's size; a tensor's static first dimension, else its dynamic
    one (a scalar raises TF's ValueError)."""
    if isinstance(value, TensorArray):
        return value.size()
    if not is_tensor(value):
        return len(value)
    shape = value.shape
    if shape.rank == 0:
        raise ValueError("len requires a non-scalar tensor, got one of shape %s" % shape)
    if shape.rank is not None and shape.as_list()[0] is not None:
        return shape.as_list()[0]
    return array_ops.shape(value)[0]


def range_(start_or_stop, stop=_UNSPECIFIED, step=_UNSPECIFIED):
    """`range`: tf.range when a bound is a tensor (empty rather than an error when stop is
    below start, as Python's), else Python's range."""
    if any(is_tensor(bound) for bound in (start_or_stop, stop, step)):
        if step is not _UNSPECIFIED:
            return array_ops.range(start_or_stop, stop, step)
        if stop is not _UNSPECIFIED:
            return array_ops.range(start_or_stop, math_ops.maximum(start_or_stop, stop))
        return array_ops.range(math_ops.maximum(start_or_stop, 0))
    return range(*[bound for bound in (start_or_stop, stop, step) if bound is not _UNSPECIFIED])


def print_(*objects, **kwargs):
    """`print` under BUILTIN_FUNCTIONS: with tensors among `objects`, a py_func printing
    their values (numpy's text, strings decoded) whenever it runs, as TF's; flushes unless
    told otherwise."""
    unknown = set(kwargs) - {"sep", "end", "file", "flush"}
    if unknown:
        raise ValueError("invalid keyword arguments: %s" % (tuple(sorted(unknown)),))
    positions = [i for i, value in enumerate(objects) if is_tensor(value)]
    if not positions:
        return print(*objects, **kwargs)
    kwargs.setdefault("flush", True)

    def print_values(*values):
        shown = list(objects)
        for position, value in zip(positions, values):
            shown[position] = value.decode("utf-8") if isinstance(value, bytes) else value
        print(*shown, **kwargs)
    return script_ops.numpy_function(print_values, [objects[i] for i in positions], [])


_BUILTIN_OVERLOADS = ((abs, abs_), (float, float_), (int, int_), (len, len_),
                      (print, print_), (range, range_))


def builtin_call(fn, *args, **kwargs):
    """A call of a builtin's name in converted code: its overload when `fn` is that builtin
    (TF's py_builtins), else `fn` itself (a local of the same name)."""
    for builtin, overload in _BUILTIN_OVERLOADS:
        if fn is builtin:
            return overload(*args, **kwargs)
    return fn(*args, **kwargs)


# ---------------------------------------------------------------- function scopes


def _variable_initializers(graph):
    return {id(getattr(variable, "initializer", None))
            for key in ("variables", "local_variables")
            for variable in graph.get_collection(key)}


def call_with_auto_control_deps(fn, args, kwargs):
    """`fn(*args, **kwargs)` with TF's automatic control dependencies when a graph is being
    built: the tensors it returns come out of identities that depend on the side-effect
    ops it made, those whose outputs none of its ops or results use (asserts, prints,
    assignments, train ops; variable initializers and the graphs of Keras models built
    on their own Input placeholders excepted), so running a result runs them, as a
    tf.function call does in TF.
    Where we differ: an unused side-effect-free op counts too (running it is harmless)."""
    if not _state.building_graph:
        return fn(*args, **kwargs)
    graph = get_default_graph()
    first = len(graph.get_operations())
    result = fn(*args, **kwargs)
    created = graph.get_operations()[first:]
    flat = _flatten(result)
    used = {id(tensor.op) for operation in created for tensor in operation.inputs}
    used.update(id(control) for operation in created for control in operation.control_inputs)
    used.update(id(value.op) for value in flat if isinstance(value, SymbolicTensor))
    used.update(_variable_initializers(graph))
    symbolic_model = set()     # ops computed from placeholders made in the call (Keras Inputs)
    for operation in created:
        if operation._node.op == "placeholder" or \
                any(id(tensor.op) in symbolic_model for tensor in operation.inputs):
            symbolic_model.add(id(operation))
    effects = [operation for operation in created
               if id(operation) not in used and id(operation) not in symbolic_model]
    if not effects:
        return result
    with graph.control_dependencies(effects):
        gated = [array_ops.identity(value)
                 if isinstance(value, SymbolicTensor) and value.graph is graph else value
                 for value in flat]
    return _pack_as(result, gated)


def function_scope(fn, name, name_scopes, auto_control_deps):
    """`fn` called in a name scope named after it (NAME_SCOPES) and with automatic control
    dependencies (AUTO_CONTROL_DEPS), as TF's FunctionScope of converted functions."""
    @functools.wraps(fn)
    def scoped(*args, **kwargs):
        scope = name_scope(name.lstrip("_") or None) if name_scopes else \
            contextlib.nullcontext()
        with scope:
            if auto_control_deps:
                return call_with_auto_control_deps(fn, args, kwargs)
            return fn(*args, **kwargs)
    return scoped
