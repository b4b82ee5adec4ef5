"""`tf.gradients` / `tf.hessians`: symbolic gradients in a graph, as one node over autograd.

The node calls `torch.autograd.grad` on the values the graph computed in the same run (the
executor makes float inputs require grad when a module holds gradient nodes). Which `xs`
are connected to `ys` is decided when the graph is built, from the graph's data edges, so
unconnected sources give None like TF (paths through integer tensors or `tf.stop_gradient`
do not count). The backward pass is itself differentiable (`create_graph`) only where the
run differentiates its result again (hessians, gradient penalties: decided per executed
module, see `graph._plan_gradient_nodes`) or an eager GradientTape records the run;
otherwise torch's fused kernels (RNNs) keep their fast once-differentiable backward. The
backward pass keeps the autograd graph it walks (`retain_graph`) unless it is the only one
of its executed module (`graph.backward_is_last`): then it frees the saved tensors as it
goes, as TF frees a forward op's outputs once the gradient ops that read them have run.
"""
import enum

import torch

from tfcompat._api import tf_export
from tfcompat.eager import imperative_grad, tape
from tfcompat.framework import context, ops
from tfcompat.framework.graph import (SymbolicTensor, backward_is_last, get_default_graph,
                                      gradients_differentiable)
from tfcompat.ops.array_ops import zeros_like
from tfcompat.ops import array_ops


@tf_export("UnconnectedGradients")
class UnconnectedGradients(enum.Enum):
    """What a gradient with respect to an unconnected source is: None or zeros."""

    NONE = "none"
    ZERO = "zero"


@tf_export(v1=["AggregationMethod"], v2=["AggregationMethod"])
class AggregationMethod(object):
    """Accepted for compatibility; torch autograd sums gradients one way."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


_BLOCKING_OPS = frozenset(("StopGradient", "PreventGradient"))


def _ancestors(start_nodes):
    """The nodes `start_nodes` depend on through float tensors (not through stop_gradient),
    themselves included. A node whose gradient reaches only its first inputs (a
    tf.custom_gradient node: `meta["gradient_inputs"]`) depends on those only."""
    seen = set()
    stack = list(start_nodes)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        operation = node.meta.get("tf_op")
        if operation is not None and operation.type in _BLOCKING_OPS:
            continue
        count = node.meta.get("gradient_inputs")
        for parent in node.all_input_nodes if count is None else node.args[:count]:
            tensor = parent.meta.get("tf_tensor")
            if tensor is not None and not (tensor.dtype.is_floating or tensor.dtype.is_complex):
                continue
            stack.append(parent)
    return seen


def _check_gradients_registered(reached, x_nodes):
    """TF's graph-mode LookupError for an op without a registered gradient on a path from
    some x to some y (`reached`: the ys' ancestors)."""
    for node in reached:
        operation = node.meta.get("tf_op")
        if operation is None or operation.type not in ops.NO_GRADIENT_OP_TYPES or \
                operation._node is not node:
            continue
        if not x_nodes.isdisjoint(_ancestors(node.all_input_nodes)):
            raise LookupError(
                "No gradient defined for operation'%s' (op type: %s). In general every "
                "operation must have an associated `@tf.RegisterGradient` for correct "
                "autodiff, which this op is lacking. If you want to pretend this operation is "
                "a constant in your program, you may insert `tf.stop_gradient`. This can be "
                "useful to silence the error in cases where you know gradients are not "
                "needed, e.g. the forward pass of tf.custom_gradient. Please see more details "
                "in https://www.tensorflow.org/api_docs/python/tf/custom_gradient."
                % (operation.name, operation.type))


def _watched(value):
    """A value autograd tracks: itself if it requires grad, else a fresh leaf."""
    if value.requires_grad or not (value.is_floating_point() or value.is_complex()):
        return value
    return value.detach().requires_grad_(True)


def _watch(graph, x):
    """Make later users of intermediate tensor `x` see a grad-tracked version of it, so a
    gradient with respect to `x` exists even when nothing before it requires grad."""
    node = x._node
    if node.op == "placeholder" or node.target is _watched:
        return
    with graph._fx.inserting_after(node):
        watched = graph._fx.call_function(_watched, (node,))
    node.replace_all_uses_with(watched, delete_user_cb=lambda user: user is not watched)
    watched.meta.update(node.meta)
    x._node = watched


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def symbolic_gradients(ys, xs, grad_ys=None, unconnected_gradients=UnconnectedGradients.NONE,
                       name="gradients"):
    """Record the gradient node; shared by `tf.gradients` and GradientTape in graphs."""
    graph = get_default_graph()
    ys = [ops.convert_to_tensor(y) for y in _as_list(ys)]
    xs_list = _as_list(xs)
    xs = [ops.convert_to_tensor(x) if not isinstance(x, SymbolicTensor) else x for x in xs_list]
    xs = [graph._as_input(x) for x in xs]
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    if len(grad_ys) != len(ys):
        raise ValueError("Passed %d grad_ys for %d ys" % (len(grad_ys), len(ys)))
    reached = _ancestors(y._node for y in ys)
    connected = [x._node in reached for x in xs]
    _check_gradients_registered(reached, {x._node for x, ok in zip(xs, connected) if ok})
    wanted = [x for x, ok in zip(xs, connected) if ok]
    for x in wanted:
        _watch(graph, x)
    given = [(i, ops.convert_to_tensor(g, dtype=ys[i].dtype)) for i, g in enumerate(grad_ys)
             if g is not None]
    n_y, n_x = len(ys), len(wanted)
    given_index = [i for i, _ in given]

    def compute(*values):
        last = backward_is_last()
        y_values, x_values = values[:n_y], values[n_y:n_y + n_x]
        seeds = dict(zip(given_index, values[n_y + n_x:]))
        pairs = [(y, seeds.get(i, torch.ones_like(y))) for i, y in enumerate(y_values)
                 if y.requires_grad]
        if not pairs or not x_values:
            return tuple(torch.zeros_like(x) for x in x_values)
        create = gradients_differentiable() or tape.recording()
        grads = imperative_grad.grad([p[0] for p in pairs], x_values, [p[1] for p in pairs],
                                     create or not last, create)
        return tuple(torch.zeros_like(x) if g is None else g for x, g in zip(x_values, grads))

    results = []
    if wanted:
        outputs = graph.record_custom(compute, "SymbolicGradient",
                                      ys + wanted + [g for _, g in given],
                                      tuple(x._fake for x in wanted), name=name,
                                      stateful=False)
        node_meta = outputs[0].op._node.meta
        node_meta["needs_grad"] = True
        node_meta["differentiated_inputs"] = n_y
        for x, tensor in zip(wanted, outputs):
            tensor._static = x.shape
        results = list(outputs)
    it = iter(results)
    final = []
    for x, ok in zip(xs, connected):
        if ok:
            final.append(next(it))
        elif UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO:
            final.append(zeros_like(x))
        else:
            final.append(None)
    return final


@tf_export("gradients", v1=["gradients"])
def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """`tf.gradients(ys, xs, grad_ys)`: d(sum ys)/d(xs) as graph tensors (None if unconnected).

    `stop_gradients` other than an empty list raises NotImplementedError.
    """
    if not context.state.building_graph:
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                           "Use tf.GradientTape instead.")
    if stop_gradients:
        raise NotImplementedError("tf.gradients(stop_gradients=...) is not implemented by "
                                  "tfcompat; wrap those tensors in tf.stop_gradient instead")
    return symbolic_gradients(ys, xs, grad_ys, unconnected_gradients, name)


@tf_export("hessians")
def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """`tf.hessians`: the Hessian of sum(ys) with respect to each x (static shapes only)."""
    result = []
    for x in _as_list(xs):
        (grad,) = gradients(ys, [x])
        if grad is None:
            result.append(None)
            continue
        if not x.shape.is_fully_defined():
            raise NotImplementedError("tf.hessians needs a fully defined shape for %s in "
                                      "tfcompat" % x.name)
        flat = array_ops.reshape(grad, [-1])
        size = x.shape.num_elements()
        rows = [array_ops.reshape(gradients(flat[i], [x])[0], [-1]) for i in range(size)]
        result.append(array_ops.reshape(array_ops.stack(rows), x.shape.as_list() * 2))
    return result
