"""TF's functional control flow as `tf.raw_ops` (`gen_functional_ops`: `While`,
`StatelessWhile`, `If`, `StatelessIf`): what TF 2's tf.function records for a `while`
loop and a tensor `if` (AutoGraph, tf.while_loop, tf.cond), so a real TF 2 SavedModel's
functions run.

`cond`, `body`, `then_branch` and `else_branch` are callables taking the flat inputs and
returning the flat outputs (TF takes its functions; the GraphDef importer passes the
library functions it builds). Each entry is a thin body over tfcompat's `tf.while_loop` /
`tf.cond`. A variable among a While's inputs (TF's resource handles) is not carried: every
iteration sees the variable itself, so the loop reads and updates it live.
"""
from tfcompat.ops import control_flow_ops
from tfcompat.ops.raw_ops import raw_op


def _is_variable(value):
    return hasattr(value, "read_value") and hasattr(value, "assign")


def _flat(outputs):
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def _functional_while(inputs, cond, body, parallel_iterations, name):
    """TF's While: `body` maps the inputs to new values while `cond` holds on them."""
    inputs = list(inputs)
    variables = {i: value for i, value in enumerate(inputs) if _is_variable(value)}
    carried = [value for i, value in enumerate(inputs) if i not in variables]

    def with_variables(values):
        values = iter(values)
        return [variables[i] if i in variables else next(values) for i in range(len(inputs))]

    def loop_cond(*values):
        return _flat(cond(*with_variables(values)))[0]

    def loop_body(*values):
        results = _flat(body(*with_variables(values)))
        return [result for i, result in enumerate(results) if i not in variables]

    results = control_flow_ops.while_loop_v2(loop_cond, loop_body, carried,
                                             parallel_iterations=parallel_iterations,
                                             name=name)
    return with_variables(results)


def _while_body(input, cond, body, output_shapes=(), parallel_iterations=10,  # noqa: A002
                name=None):
    return _functional_while(input, cond, body, parallel_iterations, name)


raw_op("While", records_itself=True)(_while_body)
raw_op("StatelessWhile", records_itself=True)(_while_body)


def _if_body(cond, input, Tout, then_branch, else_branch, output_shapes=(),  # noqa: A002,N803
             name=None):
    """TF's If: `then_branch(*input)` when `cond` holds, else `else_branch(*input)`."""
    return _flat(control_flow_ops.cond(cond, lambda: _flat(then_branch(*input)),
                                       lambda: _flat(else_branch(*input)), name=name))


raw_op("If", records_itself=True)(_if_body)
raw_op("StatelessIf", records_itself=True)(_if_body)
