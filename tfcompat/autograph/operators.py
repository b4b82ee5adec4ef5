"""Run-time side of AutoGraph: statements that become graph control flow on tensors."""
from tfcompat.framework.graph import SymbolicTensor


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


def _check_defined(values, what):
    for value in values:
        if isinstance(value, Undefined):
            raise ValueError("'%s' must be defined before the %s, or in both branches, when its "
                             "condition is a tensor" % (value.name, what))


def if_stmt(test, true_fn, false_fn, values):
    """`if test:` -- tf.cond when `test` is a symbolic tensor, else a Python if."""
    if isinstance(test, SymbolicTensor):
        from tfcompat.ops.control_flow_ops import cond
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
        from tfcompat.ops.control_flow_ops import cond
        return cond(test, lambda: true_fn(*values), lambda: false_fn(*values))
    return true_fn(*values) if test else false_fn(*values)


def _range_arguments(start, limit=None, delta=1, dtype=None, name=None):
    return (0, start, delta, dtype) if limit is None else (start, limit, delta, dtype)


def for_range_stmt(range_fn, args, kwargs, body, values, break_index=None):
    """`for target in range_fn(*args, **kwargs):`, `values` being (target, loop variables),
    `values[break_index]` the loop's `break` flag if it has one.

    tf.range with a symbolic bound becomes a tf.while_loop over the indices (its size is not
    known while tracing) that also stops once the break flag is set; anything else is
    iterated in Python. After a while_loop the target is the last index run, `start - delta`
    when the loop ran no step."""
    from tfcompat.ops import array_ops
    bounds = list(args) + list(kwargs.values())
    if range_fn is not array_ops.range or \
            not any(isinstance(bound, SymbolicTensor) for bound in bounds):
        iterable = range_fn(*args, **kwargs)
        if break_index is not None:
            iterable = until_python_break(iterable, lambda: values[break_index])
        for item in iterable:
            values = body(item, *values[1:])
        return values
    from tfcompat.framework.ops import convert_to_tensor
    from tfcompat.ops.control_flow_ops import while_loop
    from tfcompat.ops.math_ops import cast
    loop_values = values[1:]
    _check_defined(loop_values, "for loop over tf.range")
    start, limit, delta, dtype = _range_arguments(*args, **kwargs)
    if dtype is None:
        dtype = next(bound.dtype for bound in bounds if isinstance(bound, SymbolicTensor))
    start, limit, delta = (cast(convert_to_tensor(bound), dtype)
                           for bound in (start, limit, delta))

    def step(index, *carried):
        return [index + delta] + list(body(index, *carried)[1:])

    def test(index, *carried):
        in_range = (index - limit) * delta < 0
        if break_index is None:
            return in_range
        return and_(not_(carried[break_index - 1]), lambda: in_range)

    result = while_loop(test, step, [start] + list(loop_values), return_same_structure=True)
    return (result[0] - delta,) + tuple(result[1:])


def while_stmt(test, body, values):
    """`while test:` -- tf.while_loop once `test` is a symbolic tensor, else a Python loop."""
    while True:
        condition = test(*values)
        if isinstance(condition, SymbolicTensor):
            from tfcompat.ops.control_flow_ops import while_loop
            _check_defined(values, "while loop")
            if not values:
                raise ValueError("a while loop on a tensor condition must change a variable")
            result = while_loop(test, body, list(values), return_same_structure=True)
            return tuple(result)
        if not condition:
            return values
        values = body(*values)


def not_(value):
    """`not value`: tf.logical_not of a symbolic tensor (TF AutoGraph's `ag__.not_`)."""
    if isinstance(value, SymbolicTensor):
        from tfcompat.ops.math_ops import logical_not
        return logical_not(value)
    return not value


def and_(left, right_fn):
    """`left and right`: tf.logical_and when either is a symbolic tensor, else Python's
    short-circuit `and`."""
    if isinstance(left, SymbolicTensor):
        from tfcompat.framework.ops import convert_to_tensor
        from tfcompat.ops.math_ops import logical_and
        return logical_and(left, convert_to_tensor(right_fn()))
    return left and right_fn()


def until_python_break(iterable, break_flag):
    """The items of `iterable` until `break_flag()` is the Python True after one of them
    (a `break` flag that is a tensor cannot stop an unrolled loop; the converted body is
    guarded by it instead)."""
    for item in iterable:
        yield item
        flag = break_flag()
        if not isinstance(flag, SymbolicTensor) and flag:
            return
