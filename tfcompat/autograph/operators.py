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
