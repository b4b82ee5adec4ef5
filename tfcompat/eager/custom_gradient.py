"""`tf.custom_gradient`, `tf.recompute_grad` and `tf.grad_pass_through` in eager mode.

Like TF's eager implementation, `f` runs normally (its ops are recorded, so tensors that
`grad_fn` closes over stay differentiable for higher-order gradients) and its outputs are
then tied to the inputs by one `torch.autograd.Function` whose backward calls `grad_fn`.
Trainable variables that `f` reads (and that are not among its arguments) are inputs of
that op too, and `grad_fn(*dy, variables=...)` must return `(input_grads, variable_grads)`.
"""
import functools
import inspect

import torch

from tfcompat._api import tf_export
from tfcompat.eager import tape as tape_lib
from tfcompat.eager.backprop import GradientTape, flatten, pack_sequence_as
from tfcompat.framework import context
from tfcompat.framework.ops import is_tensor_value, to_torch, wrap
from tfcompat.framework.tensor import EagerTensor


class _VariableWatcher(object):
    """Collects the trainable variables read while `f` runs (TF's VariableWatcher)."""

    def __init__(self):
        self.variables = []

    def _variable_accessed(self, variable):
        if all(v is not variable for v in self.variables):
            self.variables.append(variable)


def _accepts_variables(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)


class _CustomGradientOp(torch.autograd.Function):
    """Outputs computed beforehand, tied to the inputs; backward calls the user's grad_fn."""

    @staticmethod
    def forward(ctx, call, *inputs):
        ctx.call = call
        return tuple(call.outputs)

    @staticmethod
    def backward(ctx, *output_grads):
        return (None,) + ctx.call.backward(output_grads)


class _Call(object):
    """One call of a custom-gradient function: its outputs and how to get input gradients."""

    def __init__(self, grad_fn, inputs, variables, outputs):
        self.grad_fn = grad_fn
        self.inputs = inputs            # torch tensors or the non-tensor arguments
        self.variables = variables
        self.outputs = outputs

    def backward(self, output_grads):
        dys = [EagerTensor(g) for g in output_grads]
        if self.variables:
            input_grads, variable_grads = self.grad_fn(*dys, variables=self.variables)
            variable_grads = list(variable_grads)
            if len(variable_grads) != len(self.variables):
                raise ValueError("Must return gradient for each variable from "
                                 "@custom_gradient grad_fn.")
        else:
            input_grads, variable_grads = self.grad_fn(*dys), []
        input_grads = flatten(input_grads)
        n_args = len(self.inputs) - len(self.variables)
        if len(input_grads) != n_args:
            raise ValueError("custom_gradient function expected to return %d gradients but "
                             "returned %d instead." % (n_args, len(input_grads)))
        return tuple(_grad_for(x, g) for x, g in zip(self.inputs, input_grads + variable_grads))


def _grad_for(x, grad):
    if grad is None or not isinstance(x, torch.Tensor) or not x.requires_grad:
        return None
    g = to_torch(grad)
    return g if g.dtype == x.dtype and g.device == x.device else \
        g.to(dtype=x.dtype, device=x.device)


def _call_custom(f, args, kwargs):
    watcher = _VariableWatcher()
    tape_lib.push(watcher)
    try:
        result, grad_fn = f(*args, **kwargs)
    finally:
        tape_lib.pop(watcher)
    all_inputs = list(args) + list(kwargs.values())
    variables = [v for v in watcher.variables if all(v is not a for a in all_inputs)]
    if variables and not _accepts_variables(grad_fn):
        raise TypeError("If using @custom_gradient with a function that uses variables, then "
                        "grad_fn must accept a keyword argument 'variables'.")
    inputs = [to_torch(a) if is_tensor_value(a) else a for a in args]
    inputs += [v._storage() for v in variables]
    if not any(isinstance(x, torch.Tensor) and x.requires_grad for x in inputs):
        return result
    flat = flatten(result)
    outputs = [to_torch(r).detach() for r in flat]
    tied = _CustomGradientOp.apply(_Call(grad_fn, inputs, variables, outputs), *inputs)
    return pack_sequence_as(result, [wrap(t) for t in tied])


@tf_export("custom_gradient")
def custom_gradient(f=None):
    """Decorator: `f(*x)` returns `(y, grad_fn)`; gradients of y use `grad_fn(*dy)`.

    `grad_fn` gets one `dy` per (flattened) output and returns one gradient per argument of
    `f`; when `f` reads variables it is called as `grad_fn(*dy, variables=[...])` and returns
    `(input_grads, variable_grads)`. Eager mode only.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if not context.executing_eagerly():
            raise NotImplementedError(
                "tf.custom_gradient is implemented for eager execution only; tfcompat cannot "
                "record it while building a graph (TF1 graph mode or a tf.function trace)")
        return _call_custom(f, args, kwargs)

    return decorated


@tf_export("recompute_grad")
def recompute_grad(f):
    """Wrap `f` so that its intermediate results are recomputed in the backward pass.

    The forward pass keeps no autograd graph; the gradient reruns `f` under a tape.
    Values and gradients equal those of `f`.
    """
    @custom_gradient
    def inner(*args, **kwargs):
        with torch.no_grad():       # not stop_recording: tapes must still see the variables
            result = f(*args, **kwargs)

        def grad(*dresult, variables=None):
            with GradientTape() as tape:
                id_args = [EagerTensor(to_torch(a).detach()) for a in args]
                tape.watch(id_args)
                if variables:
                    tape.watch(variables)
                recomputed = f(*id_args, **kwargs)
            grads = tape.gradient(recomputed, id_args + list(variables or []),
                                  output_gradients=list(dresult))
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
