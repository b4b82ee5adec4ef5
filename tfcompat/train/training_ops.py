"""TF's variable and optimizer kernels as `tf.raw_ops` (TF's `training/training_ops.py`,
`gen_state_ops`, `gen_resource_variable_ops`): what the graphs real TF 1.x writes for
training hold (`Assign`, `ApplyAdam`, `ResourceApplyMomentum`, ...), so an imported
`.meta` graph keeps training.

Each entry is a thin body over tfcompat's own op: the variable ops of `variables.py` and the
update rules of `update_rules.py`. A `ref` / `resource` input is a variable's storage in a
graph (an imported VariableV2 / VarHandleOp node is a tfcompat Variable's handle) or the
Variable itself eagerly. The ref forms (`Assign`, `ApplyAdam`) return a copy of the
variable's new value, where TF returns the ref; the resource forms return nothing, as TF's.
Lives in train/ because the update rules do.
"""
import torch

from tfcompat.framework import errors
from tfcompat.framework.ops import run_impl, to_torch, variable_storage
from tfcompat.ops.raw_ops import raw_op
from tfcompat.train import update_rules
from tfcompat.variables import (assign_add_variable_op, assign_sub_variable_op,
                                assign_variable_op, read_variable_op)


def _new_value(ref):
    """A ref op's output: the variable's value after the update, copied."""
    return variable_storage(ref).clone()


def _hypers(*values):
    return [to_torch(value) for value in values]


# ---------------------------------------------------------------- state ops


@raw_op("ReadVariableOp")
def _read_variable(resource, dtype, name=None):
    return run_impl(read_variable_op, resource)


@raw_op("AssignVariableOp")
def _assign_variable(resource, value, validate_shape=False, name=None):
    return run_impl(assign_variable_op, resource, value)


@raw_op("AssignAddVariableOp")
def _assign_add_variable(resource, value, name=None):
    return run_impl(assign_add_variable_op, resource, value)


@raw_op("AssignSubVariableOp")
def _assign_sub_variable(resource, value, name=None):
    return run_impl(assign_sub_variable_op, resource, value)


def _differ(shape, other):
    """Shapes that cannot be equal (an unknown dim, while a graph is built, may be)."""
    return len(shape) != len(other) or any(type(a) is int and type(b) is int and a != b
                                           for a, b in zip(shape, other))


@raw_op("Assign")
def _assign(ref, value, validate_shape=True, use_locking=True, name=None):
    """TF's Assign: with `validate_shape` the shapes must be equal, else the variable takes
    the value's shape."""
    storage, new = variable_storage(ref), to_torch(value)
    if validate_shape and _differ(storage.shape, new.shape):
        raise errors.InvalidArgumentError(
            "Assign requires shapes of both tensors to match. lhs shape= %s rhs shape= %s"
            % (errors.format_shape(storage.shape), errors.format_shape(new.shape)))
    run_impl(assign_variable_op, ref, new)
    return _new_value(ref)


@raw_op("AssignAdd")
def _assign_add(ref, value, use_locking=False, name=None):
    run_impl(assign_add_variable_op, ref, value)
    return _new_value(ref)


@raw_op("AssignSub")
def _assign_sub(ref, value, use_locking=False, name=None):
    run_impl(assign_sub_variable_op, ref, value)
    return _new_value(ref)


# ---------------------------------------------------------------- optimizer kernels
# (the update rules run outside autograd, as their contract asks)


def _gradient_descent(var, alpha, delta):
    with torch.no_grad():
        update_rules.gradient_descent([variable_storage(var)], [to_torch(delta)],
                                      to_torch(alpha))


def _momentum(var, accum, lr, grad, momentum, use_nesterov):
    with torch.no_grad():
        update_rules.momentum([variable_storage(var)], [to_torch(grad)],
                              [variable_storage(accum)], *_hypers(lr, momentum),
                              use_nesterov=use_nesterov)


def _adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
          use_nesterov):
    with torch.no_grad():
        update_rules.adam([variable_storage(var)], [to_torch(grad)], [variable_storage(m)],
                          [variable_storage(v)],
                          *_hypers(lr, beta1, beta2, epsilon, beta1_power, beta2_power),
                          use_nesterov=use_nesterov)


@raw_op("ApplyGradientDescent")
def _apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    _gradient_descent(var, alpha, delta)
    return _new_value(var)


@raw_op("ResourceApplyGradientDescent")
def _resource_apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    _gradient_descent(var, alpha, delta)


@raw_op("ApplyMomentum")
def _apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False,
                    name=None):
    _momentum(var, accum, lr, grad, momentum, use_nesterov)
    return _new_value(var)


@raw_op("ResourceApplyMomentum")
def _resource_apply_momentum(var, accum, lr, grad, momentum, use_locking=False,
                             use_nesterov=False, name=None):
    _momentum(var, accum, lr, grad, momentum, use_nesterov)


@raw_op("ApplyAdam")
def _apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
                use_locking=False, use_nesterov=False, name=None):
    _adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
          grad, use_nesterov)
    return _new_value(var)


@raw_op("ResourceApplyAdam")
def _resource_apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                         grad, use_locking=False, use_nesterov=False, name=None):
    _adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
          grad, use_nesterov)
