"""Optimizer update rules, each written once over torch tensors (TF's `training_ops` kernels).

Shared by the TF1 `tf.train.*Optimizer`s and the Keras optimizers. API of every rule:

    rule(params, grads, <slot lists...>, <hyperparameters...>) -> None

- `params`, `grads` and each slot argument are equal-length lists of torch tensors; slot
  list entry i belongs to `params[i]`. Gradients are dense, with the params' shapes.
- `params` and the slot lists are updated in place, for all variables at once with torch's
  `_foreach_*` ops (Adam: torch's fused kernel where it applies, see `_fused_adam_`). Callers run rules with grad disabled (`optimizer.fused_update`, Keras's
  `_apply_gradients_impl`); a rule does not enter `torch.no_grad()` itself, which cost
  ~3 us per train step.
- Hyperparameters are Python numbers or 0-d torch tensors. Tensors are never read back into
  Python (no `.item()`), so a rule runs unchanged inside recorded graphs, under
  torch.compile, and with learning rates that change every step.
- Step-dependent factors are passed in, not kept here: Adam's `beta1_power`/`beta2_power`
  are beta**t for the step being taken (TF1 keeps them in variables, Keras computes them from
  `iterations`).

Rules and the TF kernels they implement (TF's formulas are in each docstring):
gradient_descent (ApplyGradientDescent), momentum (ApplyMomentum), keras_momentum
(ApplyKerasMomentum), adam (ApplyAdam, ApplyAdamWithAmsgrad), adamax (ApplyAdaMax), adagrad
(ApplyAdagrad, ApplyAdagradV2), adagrad_da (ApplyAdagradDA), adadelta (ApplyAdadelta), rmsprop
(ApplyRMSProp, ApplyCenteredRMSProp), rmsprop_no_momentum (Keras RMSprop with momentum 0),
ftrl (ApplyFtrl, ApplyFtrlV2), proximal_gradient_descent (ApplyProximalGradientDescent),
proximal_adagrad (ApplyProximalAdagrad), moving_average (AssignMovingAvg).
"""
import math

import numpy as np
import torch

from tfcompat.framework.ops import number_operand


_NUMPY_FLOATS = {torch.float32: np.float32, torch.float16: np.float16}


def _hyper(value, params):
    """A hyperparameter in the params' dtype, as TF casts it before its kernel runs: a 0-d
    tensor is moved and cast; a number is rounded to that precision (so that `1 - beta`
    rounds as TF's float32 arithmetic does) and stays a Python number."""
    if not params:
        return value
    dtype = params[0].dtype
    if isinstance(value, torch.Tensor):
        if value.device != params[0].device or value.dtype != dtype:
            return value.to(device=params[0].device, dtype=dtype)
        return value
    to_numpy = _NUMPY_FLOATS.get(dtype)
    if to_numpy is not None:
        # under torch.compile the number stays a constant (numpy calls would block the
        # compile cache); the kernels round it to the params' dtype
        return value if torch.compiler.is_compiling() else float(to_numpy(value))
    if dtype == torch.bfloat16:
        return float(torch.tensor(value, dtype=dtype))
    return value


def _factor(value, tensors):
    """A scalar operand of a foreach op over `tensors` (`ops.number_operand`)."""
    if isinstance(value, torch.Tensor) or not tensors:
        return value
    return number_operand(value, tensors[0])


def _add_constant_(xs, value):
    """xs += value (a number or a 0-d tensor)."""
    value = _factor(value, xs)
    if isinstance(value, torch.Tensor):
        torch._foreach_add_(xs, value, alpha=1)   # the 0-d tensor overload (alpha selects it)
    else:
        torch._foreach_add_(xs, value)


def _sqrt(value):
    return torch.sqrt(value) if isinstance(value, torch.Tensor) else math.sqrt(value)


def _add_scaled_(ys, alpha, xs):
    """ys += alpha * xs (alpha a number or a 0-d tensor)."""
    if isinstance(alpha, torch.Tensor):
        torch._foreach_add_(ys, torch._foreach_mul(xs, alpha))
    else:
        torch._foreach_add_(ys, xs, alpha=alpha)


def _lerp_(ys, xs, weight):
    """ys += (xs - ys) * weight: TF's form of a moving average, in TF's order of float
    operations (torch's lerp rounds differently, which shows after many steps)."""
    delta = torch._foreach_sub(xs, ys)
    torch._foreach_mul_(delta, _factor(weight, ys))
    torch._foreach_add_(ys, delta)


def _lerp_squares_(ys, xs, weight):
    """`_lerp_(ys, xs * xs, weight)` (second moments) with one temporary instead of two."""
    delta = torch._foreach_mul(xs, xs)
    torch._foreach_sub_(delta, ys)
    torch._foreach_mul_(delta, _factor(weight, ys))
    torch._foreach_add_(ys, delta)


def _squares(xs):
    return torch._foreach_mul(xs, xs)


def _soft_threshold(xs, threshold):
    """sign(x) * max(|x| - threshold, 0); `threshold` a number, 0-d tensor or tensor list."""
    magnitude = torch._foreach_abs(xs)
    if isinstance(threshold, (list, tuple)):
        torch._foreach_sub_(magnitude, threshold)
    else:
        torch._foreach_add_(magnitude, -threshold)
    torch._foreach_clamp_min_(magnitude, 0.0)
    torch._foreach_mul_(magnitude, torch._foreach_sign(xs))
    return magnitude


def gradient_descent(params, grads, lr):
    """var -= lr * grad"""
    _add_scaled_(params, -_hyper(lr, params), grads)


def momentum(params, grads, accum, lr, momentum, use_nesterov=False):
    """TF1: accum = accum * momentum + grad; var -= lr * accum
    (nesterov: var -= lr * grad + lr * momentum * accum)."""
    lr, momentum = _hyper(lr, params), _hyper(momentum, params)
    torch._foreach_mul_(accum, momentum)
    torch._foreach_add_(accum, grads)
    if use_nesterov:
        step = torch._foreach_mul(accum, momentum)
        torch._foreach_add_(step, grads)
        _add_scaled_(params, -lr, step)
    else:
        _add_scaled_(params, -lr, accum)


def keras_momentum(params, grads, accum, lr, momentum, use_nesterov=False):
    """Keras SGD: accum = accum * momentum - lr * grad; var += accum
    (nesterov: var += momentum * accum - lr * grad)."""
    lr, momentum = _hyper(lr, params), _hyper(momentum, params)
    torch._foreach_mul_(accum, momentum)
    _add_scaled_(accum, -lr, grads)
    if use_nesterov:
        step = torch._foreach_mul(accum, momentum)
        _add_scaled_(step, -lr, grads)
        torch._foreach_add_(params, step)
    else:
        torch._foreach_add_(params, accum)


def adam(params, grads, m, v, lr, beta1, beta2, epsilon, beta1_power, beta2_power,
         use_nesterov=False, vhat=None):
    """lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
    m += (grad - m) * (1 - beta1); v += (grad**2 - v) * (1 - beta2)
    var -= lr_t * m / (sqrt(v) + epsilon)          (epsilon-hat form, as TF)
    nesterov: m is replaced by beta1 * m + (1 - beta1) * grad in the last line;
    amsgrad (`vhat` given): vhat = max(vhat, v) is used instead of v."""
    lr, beta1, beta2, epsilon, beta1_power, beta2_power = (
        _hyper(x, params) for x in (lr, beta1, beta2, epsilon, beta1_power, beta2_power))
    alpha = lr * _sqrt(1 - beta2_power) / (1 - beta1_power)
    if vhat is None and not use_nesterov and \
            _fusable((params, grads, m, v), beta1, beta2, epsilon) and \
            0 <= beta1 < 1 and 0 <= beta2 < 1:
        _fused_adam_(params, grads, m, v, alpha, beta1, beta2, epsilon)
        return
    _lerp_(m, grads, 1 - beta1)
    _lerp_squares_(v, grads, 1 - beta2)
    if vhat is not None:
        torch._foreach_maximum_(vhat, v)
    denom = torch._foreach_sqrt(v if vhat is None else vhat)
    _add_constant_(denom, epsilon)
    if use_nesterov:
        step = torch._foreach_mul(grads, _factor(1 - beta1, grads))
        _add_scaled_(step, beta1, m)
        torch._foreach_mul_(step, _factor(alpha, step))
    else:
        step = torch._foreach_mul(m, _factor(alpha, m))
    torch._foreach_div_(step, denom)
    torch._foreach_sub_(params, step)


_FUSED_DTYPES = (torch.float32, torch.float64)
_STEP_ONE = {}


def _fusable(tensor_lists, *numbers):
    """Whether torch's fused kernel can take this update: contiguous CPU or CUDA tensors of
    one device and float dtype (the kernel walks each tensor's memory in order, whatever its
    strides) and hyperparameters that are numbers (the kernel takes them as doubles; a
    tensor would have to be read back)."""
    if not tensor_lists[0] or torch.compiler.is_compiling() or \
            any(isinstance(x, torch.Tensor) for x in numbers):
        return False
    first = tensor_lists[0][0]
    if first.dtype not in _FUSED_DTYPES or first.device.type not in ("cpu", "cuda"):
        return False
    dtype, device = first.dtype, first.device
    return all(t.dtype == dtype and t.device == device and t.is_contiguous()
               for tensors in tensor_lists for t in tensors)


def _fused_adam_(params, grads, m, v, alpha, beta1, beta2, epsilon):
    """TF's Adam step in one pass over each variable (torch's fused Adam kernel; the
    `_foreach_*` form above makes ~12 passes and ~8 temporaries per variable, 4-7x slower on
    a CPU). The kernel computes var -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps) with
    torch's bias corrections bc = 1 - beta**step; with step 1 and lr, eps scaled by
    sqrt(bc2) that is TF's var -= alpha * m / (sqrt(v) + epsilon), alpha from the beta powers
    as TF computes it. Moments: m += (grad - m) * (1 - beta1) as TF; v = beta2 * v +
    (1 - beta2) * grad**2, which TF computes as v += (grad**2 - v) * (1 - beta2): the same to
    float rounding."""
    correction1, correction2_sqrt = 1 - beta1, math.sqrt(1 - beta2)
    key = params[0].device
    step = _STEP_ONE.get(key)
    if step is None:
        step = _STEP_ONE[key] = torch.ones((), dtype=torch.float32, device=key)
    torch._fused_adam_(params, grads, m, v, [], [step] * len(params),
                       lr=alpha * (correction1 / correction2_sqrt), beta1=beta1,
                       beta2=beta2, weight_decay=0.0, eps=epsilon / correction2_sqrt,
                       amsgrad=False, maximize=False)


def adamax(params, grads, m, v, lr, beta1, beta2, epsilon, beta1_power):
    """m += (grad - m) * (1 - beta1); v = max(beta2 * v, |grad|)
    var -= lr / (1 - beta1_power) * m / (v + epsilon)"""
    lr, beta1, beta2, epsilon, beta1_power = (
        _hyper(x, params) for x in (lr, beta1, beta2, epsilon, beta1_power))
    _lerp_(m, grads, 1 - beta1)
    torch._foreach_mul_(v, beta2)
    torch._foreach_maximum_(v, torch._foreach_abs(grads))
    denom = torch._foreach_add(v, epsilon)
    _add_scaled_(params, -(lr / (1 - beta1_power)), torch._foreach_div(m, denom))


def adagrad(params, grads, accum, lr, epsilon=0.0):
    """accum += grad**2; var -= lr * grad / (sqrt(accum) + epsilon)
    (TF1's ApplyAdagrad has no epsilon: pass 0)."""
    lr, epsilon = _hyper(lr, params), _hyper(epsilon, params)
    torch._foreach_addcmul_(accum, grads, grads)
    denom = torch._foreach_sqrt(accum)
    if isinstance(epsilon, torch.Tensor) or epsilon != 0:
        torch._foreach_add_(denom, epsilon)
    _add_scaled_(params, -lr, torch._foreach_div(grads, denom))


def adagrad_da(params, grads, gradient_accum, gradient_squared_accum, lr, l1, l2, global_step):
    """g_acc += grad; gg_acc += grad**2; with T = global_step:
    var = -sign(g_acc) * lr * max(|g_acc| - l1 * T, 0) / (l2 * T * lr + sqrt(gg_acc))"""
    lr, l1, l2, global_step = (_hyper(x, params) for x in (lr, l1, l2, global_step))
    torch._foreach_add_(gradient_accum, grads)
    torch._foreach_addcmul_(gradient_squared_accum, grads, grads)
    numer = _soft_threshold(gradient_accum, l1 * global_step)
    denom = torch._foreach_sqrt(gradient_squared_accum)
    torch._foreach_add_(denom, l2 * global_step * lr)
    new = torch._foreach_div(numer, denom)
    torch._foreach_mul_(new, -lr)
    torch._foreach_copy_(params, new)


def adadelta(params, grads, accum, accum_update, lr, rho, epsilon):
    """accum = rho * accum + (1 - rho) * grad**2
    update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad
    var -= lr * update; accum_update = rho * accum_update + (1 - rho) * update**2"""
    lr, rho, epsilon = (_hyper(x, params) for x in (lr, rho, epsilon))
    _lerp_squares_(accum, grads, 1 - rho)
    update = torch._foreach_add(accum_update, epsilon)
    torch._foreach_sqrt_(update)
    denom = torch._foreach_add(accum, epsilon)
    torch._foreach_sqrt_(denom)
    torch._foreach_div_(update, denom)
    torch._foreach_mul_(update, grads)
    _add_scaled_(params, -lr, update)
    _lerp_squares_(accum_update, update, 1 - rho)


def rmsprop(params, grads, ms, mom, lr, rho, momentum, epsilon, mg=None):
    """ms += (grad**2 - ms) * (1 - rho)
    centered (`mg` given): mg += (grad - mg) * (1 - rho); denom = ms - mg**2 + epsilon
    otherwise denom = ms + epsilon
    mom = momentum * mom + lr * grad / sqrt(denom); var -= mom"""
    lr, rho, momentum, epsilon = (_hyper(x, params) for x in (lr, rho, momentum, epsilon))
    _lerp_squares_(ms, grads, 1 - rho)
    if mg is not None:
        _lerp_(mg, grads, 1 - rho)
        denom = torch._foreach_sub(ms, _squares(mg))
        torch._foreach_add_(denom, epsilon)
    else:
        denom = torch._foreach_add(ms, epsilon)
    torch._foreach_sqrt_(denom)
    torch._foreach_mul_(mom, momentum)
    _add_scaled_(mom, lr, torch._foreach_div(grads, denom))
    torch._foreach_sub_(params, mom)


def rmsprop_no_momentum(params, grads, ms, lr, rho, epsilon, mg=None):
    """Keras RMSprop without momentum: ms += (grad**2 - ms) * (1 - rho);
    denom = ms (centered: ms - mg**2 after mg += (grad - mg) * (1 - rho));
    var -= lr * grad / (sqrt(denom) + epsilon)"""
    lr, rho, epsilon = (_hyper(x, params) for x in (lr, rho, epsilon))
    _lerp_squares_(ms, grads, 1 - rho)
    if mg is not None:
        _lerp_(mg, grads, 1 - rho)
        denom = torch._foreach_sub(ms, _squares(mg))
        torch._foreach_sqrt_(denom)
    else:
        denom = torch._foreach_sqrt(ms)
    torch._foreach_add_(denom, epsilon)
    _add_scaled_(params, -lr, torch._foreach_div(grads, denom))


def _powers(xs, exponent):
    if isinstance(exponent, torch.Tensor):
        return [torch.pow(x, exponent) for x in xs]   # no _foreach_pow with a tensor exponent
    if exponent == 0.5:
        return torch._foreach_sqrt(xs)
    return torch._foreach_pow(xs, exponent)


def ftrl(params, grads, accum, linear, lr, lr_power, l1, l2, l2_shrinkage=0.0):
    """new_accum = accum + grad**2
    linear += grad + 2 * l2_shrinkage * var - (new_accum**-lr_power - accum**-lr_power) / lr * var
    quadratic = new_accum**-lr_power / lr + 2 * l2
    var = (sign(linear) * l1 - linear) / quadratic if |linear| > l1 else 0; accum = new_accum"""
    lr, lr_power, l1, l2, l2_shrinkage = (
        _hyper(x, params) for x in (lr, lr_power, l1, l2, l2_shrinkage))
    new_accum = torch._foreach_addcmul(accum, grads, grads)
    new_power = _powers(new_accum, -lr_power)
    sigma = torch._foreach_sub(new_power, _powers(accum, -lr_power))
    torch._foreach_div_(sigma, lr)
    torch._foreach_mul_(sigma, params)
    torch._foreach_add_(linear, grads)
    if isinstance(l2_shrinkage, torch.Tensor) or l2_shrinkage != 0:
        _add_scaled_(linear, 2 * l2_shrinkage, params)
    torch._foreach_sub_(linear, sigma)
    quadratic = torch._foreach_div(new_power, lr)
    torch._foreach_add_(quadratic, 2 * l2)
    new = _soft_threshold(linear, l1)
    torch._foreach_div_(new, quadratic)
    torch._foreach_neg_(new)
    torch._foreach_copy_(params, new)
    torch._foreach_copy_(accum, new_accum)


def proximal_gradient_descent(params, grads, lr, l1, l2):
    """prox = var - lr * grad; var = sign(prox) * max(|prox| - lr * l1, 0) / (1 + lr * l2)"""
    lr, l1, l2 = (_hyper(x, params) for x in (lr, l1, l2))
    prox = torch._foreach_mul(grads, -lr)
    torch._foreach_add_(prox, params)
    new = _soft_threshold(prox, lr * l1)
    torch._foreach_div_(new, 1 + lr * l2)
    torch._foreach_copy_(params, new)


def proximal_adagrad(params, grads, accum, lr, l1, l2):
    """accum += grad**2; rate = lr / sqrt(accum); prox = var - rate * grad
    var = sign(prox) * max(|prox| - rate * l1, 0) / (1 + rate * l2)"""
    lr, l1, l2 = (_hyper(x, params) for x in (lr, l1, l2))
    torch._foreach_addcmul_(accum, grads, grads)
    rate = torch._foreach_rsqrt(accum)
    torch._foreach_mul_(rate, lr)
    prox = torch._foreach_mul(grads, rate)
    torch._foreach_neg_(prox)
    torch._foreach_add_(prox, params)
    new = _soft_threshold(prox, torch._foreach_mul(rate, l1))
    denom = torch._foreach_mul(rate, l2)
    torch._foreach_add_(denom, 1.0)
    torch._foreach_div_(new, denom)
    torch._foreach_copy_(params, new)


def moving_average(averages, values, decay):
    """average -= (average - value) * (1 - decay)"""
    _lerp_(averages, values, 1 - _hyper(decay, averages))
