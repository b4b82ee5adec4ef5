"""Run a traced dataset function on a whole batch at once (TF's map vectorization).

`map(f).batch(n)` may compute `f` once on the n input elements stacked, instead of n times,
when every op of f's graph has a batch rule: how the op turns inputs with a leading batch
dimension into the stacked per-element outputs. TF's optimizer does this with
`map_vectorization` (its pfor converters). The rules here cover the ops of input pipelines:
Example parsing and `decode_raw` (whose batch rules are their own batched forms, attached
to the traced function as `batch_rule`), elementwise math and casts (inputs aligned by
rank, so broadcasting stays per element), `reshape`, `expand_dims` and `one_hot` with
static arguments, constants. A graph with any other op (random numbers, `py_function`,
reductions, stateful ops ...) is not vectorized: it runs per element.

The caller runs the function per element when the batched run raises (an error of one
element, elements that cannot be stacked), so errors are the per-element ones.
"""
import inspect
import operator

import numpy as np
import torch
import torch.fx

from tfcompat.framework.graph import BoundOp, _Slot
from tfcompat.framework import constant_op
from tfcompat.ops import array_ops, math_ops

# math_ops functions computed elementwise (with broadcasting) over their tensor arguments
_ELEMENTWISE = (
    "cast", "add", "subtract", "multiply", "truediv", "divide", "floordiv", "floormod",
    "maximum", "minimum", "pow", "squared_difference", "negative", "abs", "sqrt", "rsqrt",
    "exp", "log", "log1p", "square", "sigmoid", "tanh", "floor", "ceil", "round", "sign",
    "reciprocal", "logical_not", "logical_and", "logical_or", "saturate_cast")
_rules = {}


def _rule_table():
    """op implementation -> factory(bound_op, batched flags) -> rule or None."""
    if not _rules:
        for name in _ELEMENTWISE:
            fn = getattr(math_ops, name, None)
            impl = getattr(fn, "_tfcompat_impl", None)
            if impl is not None:
                _rules[impl] = _elementwise_rule
        _rules[array_ops.identity._tfcompat_impl] = _elementwise_rule
        _rules[array_ops.reshape._tfcompat_impl] = _reshape_rule
        _rules[array_ops.expand_dims._tfcompat_impl] = _expand_dims_rule
        _rules[array_ops.one_hot._tfcompat_impl] = _one_hot_rule
        _rules[constant_op.constant._tfcompat_impl] = _no_inputs_rule
        _rules[constant_op.constant_v1._tfcompat_impl] = _no_inputs_rule
    return _rules


def _arguments(bound):
    """The op's arguments by parameter name (tensor inputs appear as `_Slot`s)."""
    try:
        return inspect.signature(bound.fn).bind(*bound.args_template,
                                                **bound.kwargs_template).arguments
    except TypeError:
        return None


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _elementwise_rule(bound, flags):
    def run(target, args, n):
        ranks = [a.ndim - 1 if batched else a.ndim for a, batched in zip(args, flags)]
        rank = max(ranks)
        aligned = [a.reshape((n,) + (1,) * (rank - r) + tuple(a.shape[1:]))
                   if batched and r < rank else a
                   for a, batched, r in zip(args, flags, ranks)]
        return target(*aligned)
    return run


def _reshape_rule(bound, flags):
    arguments = _arguments(bound)
    shape = None if arguments is None else arguments.get("shape")
    if not isinstance(shape, (list, tuple)) or not all(_is_int(d) for d in shape):
        return None
    return lambda target, args, n: target.fn(args[0], [n] + [int(d) for d in shape])


def _expand_dims_rule(bound, flags):
    arguments = _arguments(bound)
    if arguments is None:
        return None
    axis = arguments.get("axis") if arguments.get("axis") is not None else \
        arguments.get("dim")
    if not _is_int(axis):
        return None
    axis = int(axis)

    def run(target, args, n):
        rank = args[0].ndim - 1     # of one element
        if not -rank - 1 <= axis <= rank:
            raise ValueError("axis %d is out of range for one element" % axis)
        return target.fn(args[0], axis + 1 if axis >= 0 else axis)
    return run


def _one_hot_rule(bound, flags):
    arguments = _arguments(bound)
    if arguments is None or arguments.get("axis") not in (None, -1) or \
            type(arguments.get("indices")) is not _Slot or any(flags[1:]):
        return None
    return lambda target, args, n: target(*args)


def _no_inputs_rule(bound, flags):
    return None     # never batched: constants have no inputs, they run once per batch


def _batch_rule_of_custom(fn, flags):
    """Ops recorded with `Graph.record_custom` carry their batched form as `batch_rule`."""
    batched = getattr(fn, "batch_rule", None)
    if batched is None or not all(flags):
        return None
    return lambda target, args, n: batched(*args)


def _run_direct(target, args, n):
    return target(*args)


def _item(index, args, n):
    return args[0][index]


class Vectorized(object):
    """Runs a traced module on batched feeds (its other inputs as they are): one step per
    op, each a rule applied to the op and the values of its input slots."""

    def __init__(self, steps, outputs):
        self._steps = steps       # (rule, op, input slots); slot i is the i-th value so far
        self._outputs = outputs   # (slot, batched) of each output

    def __call__(self, inputs, n):
        values = list(inputs)
        for rule, target, slots in self._steps:
            values.append(rule(target, [values[i] for i in slots], n))
        return [_stacked(values[i], n) if batched else _broadcast(values[i], n)
                for i, batched in self._outputs]


def _stacked(value, n):
    if value.ndim == 0 or value.shape[0] != n:
        raise ValueError("a batch rule gave shape %s for %d elements" % (list(value.shape), n))
    return value.contiguous() if isinstance(value, torch.Tensor) else value


def _broadcast(value, n):
    """n copies of an output every element shares (a constant)."""
    if isinstance(value, np.ndarray):
        out = np.empty((n,) + value.shape, dtype=object)
        out[...] = value
        return out
    return value.unsqueeze(0).expand((n,) + tuple(value.shape)).clone()


def _step(node, batched, table):
    """(rule, op, input slots) of one call node, or None when it has no batch rule."""
    target = node.target
    if target is operator.getitem:
        return _item, node.args[1], [node.args[0]]
    inputs = list(node.args)
    if node.kwargs or not all(isinstance(a, torch.fx.Node) for a in inputs):
        return None
    flags = [batched[a] for a in inputs]
    if isinstance(target, BoundOp):
        factory = table.get(target.fn)
        if factory is None:     # an op without batch rule, maybe stateful
            return None
        rule = factory(target, flags) if any(flags) else _run_direct
    else:
        if getattr(target, "batch_rule", None) is None:
            return None
        rule = _batch_rule_of_custom(target, flags) if any(flags) else _run_direct
    return None if rule is None else (rule, target, inputs)


def vectorize(module, num_feeds):
    """A `Vectorized` running `module` (its first `num_feeds` inputs batched), or None when
    some op of it has no batch rule."""
    table = _rule_table()
    nodes = list(module.graph.nodes)
    inputs = [node for node in nodes if node.op == "placeholder"]
    slots = {node: i for i, node in enumerate(inputs)}     # step outputs follow the inputs
    batched = {node: i < num_feeds for i, node in enumerate(inputs)}
    steps = []
    for node in nodes:
        if node.op == "call_function":
            step = _step(node, batched, table)
            if step is None:
                return None
            rule, target, args = step
            batched[node] = any(batched[a] for a in args)
            slots[node] = len(slots)
            steps.append((rule, target, [slots[a] for a in args]))
        elif node.op == "output":
            return Vectorized(steps, [(slots[a], batched[a]) for a in node.args[0]])
        elif node.op != "placeholder":
            return None
    return None
