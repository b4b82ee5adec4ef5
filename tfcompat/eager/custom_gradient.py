"""`tf.custom_gradient`, `tf.recompute_grad` and `tf.grad_pass_through`, eagerly and in graphs.

Both modes follow TF: `f`'s ops compute the outputs, and the gradient with respect to `f`'s
(flattened) arguments and the variables it reads comes only from `grad_fn`; one
`torch.autograd.Function` (`_CustomGradientOp`) ties the outputs to those inputs and its
backward asks for their gradients.

- Eagerly (TF's `_eager_mode_decorator`), `f` runs normally (its ops are recorded, so
  tensors that `grad_fn` closes over stay differentiable for higher-order gradients) and the
  backward calls `grad_fn` on the output gradients. The variables are the trainable ones `f`
  reads that are not among its arguments (a tape-like watcher).
- In a graph (TF1 graph mode, a tf.function trace; TF's `_graph_mode_decorator`), the
  arguments are converted to tensors, `f`'s ops are recorded where they are called, and
  `grad_fn` is traced once into a sub-graph taking the output gradients (TF calls it when
  the gradient is built; its Python side effects happen at that point here). One node then
  ties the outputs to the inputs; its backward runs the traced `grad_fn` on the output
  gradients and on the forward values it uses, so gradients of gradients work. The
  variables are the trainable ones the outputs depend on other than through the arguments,
  sorted by name, as TF finds them. `tf.gradients` and GradientTape inside or around the
  function reach the arguments and variables only through `grad_fn`.
"""
import functools
import inspect

import torch

from tfcompat._api import tf_export
from tfcompat.eager import tape as tape_lib
from tfcompat.eager.backprop import GradientTape, flatten, pack_sequence_as
from tfcompat.eager.gradients_impl import UnconnectedGradients
from tfcompat.framework import context
from tfcompat.framework.graph import SubGraph, TracedFunction, get_default_graph
from tfcompat.framework.ops import convert_to_tensor, is_tensor_value, to_torch, wrap
from tfcompat.framework.tensor import EagerTensor
from tfcompat.ops.array_ops import identity

# The collection naming the tf.custom_gradient functions recorded in a graph (and in the
# sub-graphs of its control flow, which share its collections): a saved function would lose
# their gradients (see saved_model/save_impl.py). A tuple key, like TF's variable store's,
# marks Python-side state that meta graphs do not export.
CUSTOM_GRADIENT_FUNCTIONS = ("__custom_gradient_functions",)


class _VariableWatcher(object):
    """Collects the trainable variables read while `f` runs (TF's VariableWatcher)."""

    def __init__(self):
        self.variables = []

    def _variable_accessed(self, variable):
        if all(v is not variable for v in self.variables):
            self.variables.append(variable)


def _check_variables_keyword(grad_fn, variables):
    if not variables:
        return
    try:
        params = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return
    if not any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params):
        raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument "
                        "'variables', since function uses variables: %s"
                        % [v.name for v in variables])


def _flat_grads(grad_fn, output_grads, variables, n_args):
    """`grad_fn`'s gradients for the flattened arguments then the variables, checked as TF
    checks them."""
    if variables:
        input_grads, variable_grads = grad_fn(*output_grads, variables=variables)
        variable_grads = list(variable_grads)
        if len(variable_grads) != len(variables):
            raise ValueError("Must return gradient for each variable from "
                             "@custom_gradient grad_fn.")
    else:
        input_grads, variable_grads = grad_fn(*output_grads), []
    input_grads = flatten(input_grads)
    if len(input_grads) != n_args:
        raise ValueError("custom_gradient function expected to return %d gradients but "
                         "returned %d instead." % (n_args, len(input_grads)))
    return input_grads + variable_grads


def _needs_gradient(value):
    return isinstance(value, torch.Tensor) and value.requires_grad


class _CustomGradientOp(torch.autograd.Function):
    """`outputs` (computed beforehand) tied to `inputs`; the backward gives each input the
    gradient `input_grads(output_grads)` lists for it."""

    @staticmethod
    def forward(ctx, input_grads, outputs, *inputs):
        ctx.input_grads = input_grads
        ctx.input_specs = [(x.dtype, x.device) if _needs_gradient(x) else None
                           for x in inputs]
        return outputs

    @staticmethod
    def backward(ctx, *output_grads):
        # eagerly also on an autograd device thread of a TF1 process (it starts in graph mode)
        with context.eager_scope():
            grads = ctx.input_grads(output_grads)
        return (None, None) + tuple(_grad_for(spec, g)
                                    for spec, g in zip(ctx.input_specs, grads))


def _grad_for(spec, grad):
    if grad is None or spec is None:
        return None
    dtype, device = spec
    g = to_torch(grad)
    return g if g.dtype == dtype and g.device == device else g.to(dtype=dtype, device=device)


def _tie(outputs, inputs, input_grads):
    """`outputs` (torch tensors) whose gradients reach `inputs` only through `input_grads`,
    or `outputs` unchanged when no input needs a gradient."""
    if not any(_needs_gradient(x) for x in inputs):
        return tuple(outputs)
    return _CustomGradientOp.apply(input_grads, tuple(t.detach() for t in outputs), *inputs)


# ---------------------------------------------------------------- eager


def _eager_call(f, args, kwargs):
    watcher = _VariableWatcher()
    tape_lib.push(watcher)
    try:
        result, grad_fn = f(*args, **kwargs)
    finally:
        tape_lib.pop(watcher)
    flat_args = flatten(args)
    all_inputs = flat_args + flatten(kwargs)
    variables = [v for v in watcher.variables if all(v is not a for a in all_inputs)]
    _check_variables_keyword(grad_fn, variables)
    inputs = [to_torch(a) if is_tensor_value(a) else a for a in flat_args]
    inputs += [v._storage() for v in variables]

    def input_grads(output_grads):
        return _flat_grads(grad_fn, [EagerTensor(g) for g in output_grads], variables,
                           len(flat_args))

    tied = _tie([to_torch(r) for r in flatten(result)], inputs, input_grads)
    return pack_sequence_as(result, [wrap(t) for t in tied])


# ---------------------------------------------------------------- graphs


def _variable_of(graph, node):
    """The variable whose storage the graph input `node` is (through the captures of
    enclosing graphs), or None."""
    while node.meta.get("input_kind") == "feed" and isinstance(graph, SubGraph):
        outer = [o for o, inner in graph.outer_captures if inner._node is node]
        if not outer:
            return None
        graph, node = graph.outer, outer[0]._node
    return node.meta.get("variable") if node.meta.get("input_kind") == "variable" else None


def _dependent_variables(graph, flat_args, flat_result):
    """The trainable variables `flat_result` depends on other than through `flat_args`,
    sorted by name (TF's graph mode: what its variable watcher and `_get_dependent_variables`
    find; non-trainable variables are in neither, in TF1 graphs as in tf.function)."""
    stop = {a._node for a in flat_args}
    seen, found = set(), {}
    stack = [t._node for t in flat_result]
    while stack:
        node = stack.pop()
        if node in seen or node in stop:
            continue
        seen.add(node)
        if node.op == "placeholder":
            variable = _variable_of(graph, node)
            if variable is not None and variable.trainable:
                found[id(variable)] = variable
            continue
        stack.extend(node.all_input_nodes)
    return sorted(found.values(), key=lambda v: v.name)


class _CustomGradientNode(object):
    """The graph node of one custom-gradient call. It takes the flat arguments and the
    variables (`n_inputs`), `f`'s outputs (`n_outputs`), then the forward values the traced
    `grad_fn` (`backward`) uses, and returns the outputs tied to the inputs."""

    def __init__(self, name, n_inputs, n_outputs, backward):
        self.__name__ = name
        self.n_inputs = n_inputs
        self.n_outputs = n_outputs
        self.backward = backward

    def __call__(self, *values):
        inputs = values[:self.n_inputs]
        captured = values[self.n_inputs + self.n_outputs:]
        backward = self.backward

        def input_grads(output_grads):
            grads = iter(backward(output_grads, captured))
            return [None if g is None else next(grads) for g in backward.outputs]

        return _tie(values[self.n_inputs:self.n_inputs + self.n_outputs], inputs, input_grads)

    def __repr__(self):
        return "<custom gradient of %s>" % self.__name__


def _graph_call(f, args, kwargs):
    if kwargs:
        raise ValueError("The custom_gradient decorator currently supports keywords "
                         "arguments only when eager execution is enabled.")
    graph = get_default_graph()
    flat_args = [convert_to_tensor(a) for a in flatten(args)]
    result, grad_fn = f(*pack_sequence_as(args, flat_args))
    flat_result = [convert_to_tensor(r) for r in flatten(result)]
    variables = _dependent_variables(graph, flat_args, flat_result)
    _check_variables_keyword(grad_fn, variables)

    def traced_grad_fn(*output_grads):
        grads = _flat_grads(grad_fn, output_grads, variables, len(flat_args))
        return [None if g is None else convert_to_tensor(g) for g in grads]

    backward = TracedFunction(graph, traced_grad_fn, flat_result)
    inputs = flat_args + variables
    name = getattr(f, "__name__", "custom_gradient")
    node = _CustomGradientNode(name, len(inputs), len(flat_result), backward)
    outputs = graph.record_custom(node, "IdentityN", inputs + flat_result + backward.captured,
                                  tuple(t._fake for t in flat_result), stateful=False)
    outputs[0].op._node.meta["gradient_inputs"] = len(inputs)
    for output, value in zip(outputs, flat_result):
        output._static = value.shape
    graph.add_to_collection(CUSTOM_GRADIENT_FUNCTIONS, name)
    return pack_sequence_as(result, list(outputs))


# ---------------------------------------------------------------- the decorators


@tf_export("custom_gradient")
def custom_gradient(f=None):
    """Decorator: `f(*x)` returns `(y, grad_fn)`; gradients of y use `grad_fn(*dy)`.

    `grad_fn` gets one `dy` per (flattened) output and returns one gradient per (flattened)
    argument of `f`; when `f` reads variables it is called as
    `grad_fn(*dy, variables=[...])` and returns `(input_grads, variable_grads)`. Works
    eagerly, in TF1 graphs and in tf.function; keyword arguments only eagerly (as in TF).
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if context.executing_eagerly():
            return _eager_call(f, args, kwargs)
        return _graph_call(f, args, kwargs)

    return decorated


@tf_export("recompute_grad")
def recompute_grad(f):
    """Wrap `f` so that its intermediate results are recomputed in the backward pass.

    Eagerly, the forward pass keeps no autograd graph; the gradient reruns `f` under a tape
    on identities of the arguments, as TF does. Values and gradients equal those of `f`
    (gradients of unconnected arguments are zeros). In graphs the forward values are kept
    (the recomputation saves no memory there).
    """
    @custom_gradient
    def inner(*args, **kwargs):
        with torch.no_grad():       # not stop_recording: tapes must still see the variables
            result = f(*args, **kwargs)

        def grad(*dresult, variables=None):
            with GradientTape() as tape:
                id_args = [identity(a) for a in flatten(args)]
                tape.watch(id_args)
                if variables:
                    tape.watch(variables)
                recomputed = f(*pack_sequence_as(args, id_args), **kwargs)
            grads = tape.gradient(recomputed, id_args + list(variables or []),
                                  output_gradients=list(dresult),
                                  unconnected_gradients=UnconnectedGradients.ZERO)
            return grads[:len(id_args)], grads[len(id_args):]
        return result, grad

    return functools.update_wrapper(inner, f)


@tf_export("grad_pass_through")
def grad_pass_through(f):
    """Wrap `f` so that its value is used forward and its gradient is the identity's."""
    @custom_gradient
    def pass_through(*args, **kwargs):
        def grad(*dys, variables=None):
            if variables:
                return dys, [None] * len(variables)
            return dys
        return f(*args, **kwargs), grad

    return functools.update_wrapper(pass_through, f)
