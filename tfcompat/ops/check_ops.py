"""Run-time checks: `tf.Assert`, `tf.debugging.assert_*`, `tf.check_numerics`.

Eager: the check runs at once and raises `InvalidArgumentError` (returning None on success,
as TF does). Graph: the check becomes an op that raises when it runs; put it in
`tf.control_dependencies` or fetch it. Static facts (rank, dtype) are checked when the op is
created, raising ValueError / TypeError like TF.
"""
import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.graph import get_default_graph
from tfcompat.ops.array_ops import identity

_state = context.state


def _values_text(data, summarize):
    parts = []
    for item in data:
        if isinstance(item, torch.Tensor):
            flat = item.detach().cpu().reshape(-1).numpy()
            limit = 3 if summarize is None else summarize
            parts.append(str(flat[:limit].tolist() if limit >= 0 else flat.tolist()))
        else:
            parts.append(str(item))
    return " ".join(parts)


def _run_check(check, message, tensors, op_type, name):
    """`check(*torch values)` returns None or an error text; raise it as InvalidArgumentError."""
    def run(*values):
        problem = check(*values)
        if problem is not None:
            raise errors.InvalidArgumentError(
                "%s%s" % ((message + "\n") if message else "", problem))
    if _state.building_graph:
        return get_default_graph().record_custom(run, op_type, list(tensors), None, name)
    run(*[ops.to_torch(t) for t in tensors])
    return None


@tf_export("debugging.Assert", "Assert")
def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """`tf.Assert(condition, data)`: fail with the data's values when condition is false."""
    data = list(data)
    tensor_positions = [i for i, d in enumerate(data) if ops.is_tensor(d) or
                        isinstance(d, (np.ndarray, list))]

    def check(cond, *values):
        if bool(torch.all(cond)):
            return None
        shown = list(data)
        for position, value in zip(tensor_positions, values):
            shown[position] = value
        return "assertion failed: [%s]" % _values_text(shown, summarize)
    return _run_check(check, None, [condition] + [data[i] for i in tensor_positions],
                      "Assert", name)


def _comparison(torch_fn, symbol):
    def check(x, y, message, summarize, name):
        if _state.building_graph:   # operands are converted when the check runs
            x = ops.convert_to_tensor(x)
            y = ops.convert_to_tensor(y, dtype_hint=x.dtype)
        else:
            x, y = ops.binary_operands(x, y, symbol)

        def fails(xv, yv):
            xv, yv = ops.binary_operands(xv, yv, symbol)
            if xv.numel() == 0 or yv.numel() == 0 or bool(torch.all(torch_fn(xv, yv))):
                return None
            return "Condition x %s y did not hold element-wise: x = %s y = %s" % (
                symbol, _values_text([xv], summarize), _values_text([yv], summarize))
        return _run_check(fails, message, [x, y], "Assert", name)
    return check


_assert_equal = _comparison(torch.eq, "==")
_assert_none_equal = _comparison(torch.ne, "!=")
_assert_less = _comparison(torch.lt, "<")
_assert_less_equal = _comparison(torch.le, "<=")
_assert_greater = _comparison(torch.gt, ">")
_assert_greater_equal = _comparison(torch.ge, ">=")


def _pair(fn, name):
    """Register TF1 `(x, y, data, summarize, message, name)` and TF2 `(x, y, message, ...)`."""
    def v1(x, y, data=None, summarize=None, message=None, name=None):
        return fn(x, y, message, summarize, name)

    def v2(x, y, message=None, summarize=None, name=None):
        return fn(x, y, message, summarize, name)
    v1.__name__ = v2.__name__ = name
    v1.__doc__ = v2.__doc__ = "`tf.%s`: fail unless the condition holds element-wise." % name
    tf_export(v1=[name, "debugging." + name])(v1)
    tf_export(v2=["debugging." + name])(v2)
    return v1, v2


assert_equal, assert_equal_v2 = _pair(_assert_equal, "assert_equal")
assert_none_equal, assert_none_equal_v2 = _pair(_assert_none_equal, "assert_none_equal")
assert_less, assert_less_v2 = _pair(_assert_less, "assert_less")
assert_less_equal, assert_less_equal_v2 = _pair(_assert_less_equal, "assert_less_equal")
assert_greater, assert_greater_v2 = _pair(_assert_greater, "assert_greater")
assert_greater_equal, assert_greater_equal_v2 = _pair(_assert_greater_equal,
                                                      "assert_greater_equal")


def _sign_check(compare, name, text):
    def v1(x, data=None, summarize=None, message=None, name=None):
        return v2(x, message, summarize, name)

    def v2(x, message=None, summarize=None, name=None):
        x = ops.convert_to_tensor(x)

        def fails(xv):
            if xv.numel() == 0 or bool(torch.all(compare(xv))):
                return None
            return "Condition x %s did not hold element-wise: x = %s" % (
                text, _values_text([xv], summarize))
        return _run_check(fails, message, [x], "Assert", name)
    v1.__name__ = v2.__name__ = name
    v1.__doc__ = v2.__doc__ = "`tf.%s`: fail unless x %s element-wise." % (name, text)
    tf_export(v1=[name, "debugging." + name])(v1)
    tf_export(v2=["debugging." + name])(v2)
    return v1


assert_positive = _sign_check(lambda x: x > 0, "assert_positive", "> 0")
assert_negative = _sign_check(lambda x: x < 0, "assert_negative", "< 0")
assert_non_negative = _sign_check(lambda x: x >= 0, "assert_non_negative", ">= 0")
assert_non_positive = _sign_check(lambda x: x <= 0, "assert_non_positive", "<= 0")


@tf_export("debugging.assert_near", v1=["assert_near"])
def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                name=None):
    """`tf.debugging.assert_near`: |x - y| <= atol + rtol * |y| element-wise."""
    x, y = ops.binary_operands(x, y, "assert_near")

    def fails(xv, yv):
        eps = torch.finfo(xv.dtype).eps if xv.is_floating_point() else 0
        tol_r = 10 * eps if rtol is None else rtol
        tol_a = 10 * eps if atol is None else atol
        if bool(torch.all((xv - yv).abs() <= tol_a + tol_r * yv.abs())):
            return None
        return "x and y not equal to tolerance rtol = %s, atol = %s: x = %s y = %s" % (
            tol_r, tol_a, _values_text([xv], summarize), _values_text([yv], summarize))
    return _run_check(fails, message, [x, y], "Assert", name)


def _static_rank(x):
    return ops.convert_to_tensor(x).shape.rank


@tf_export("debugging.assert_rank", v1=["assert_rank"])
def assert_rank(x, rank, message=None, name=None):
    """`tf.debugging.assert_rank`: statically known ranks raise ValueError at once."""
    actual = _static_rank(x)
    if actual is not None and actual != int(rank):
        raise ValueError("%sTensor %s must have rank %d. Received rank %d" % (
            (message + " ") if message else "", getattr(x, "name", "x"), int(rank), actual))
    return None


@tf_export("debugging.assert_rank_at_least", v1=["assert_rank_at_least"])
def assert_rank_at_least(x, rank, message=None, name=None):
    actual = _static_rank(x)
    if actual is not None and actual < int(rank):
        raise ValueError("%sTensor must have rank at least %d. Received rank %d" % (
            (message + " ") if message else "", int(rank), actual))
    return None


@tf_export("debugging.assert_type", v1=["assert_type"])
def assert_type(tensor, tf_type, message=None, name=None):
    if ops.convert_to_tensor(tensor).dtype != dtypes.as_dtype(tf_type):
        raise TypeError("%s%r must be of type %s" % ((message + " ") if message else "",
                                                      tensor, dtypes.as_dtype(tf_type).name))
    return None


@tf_export("debugging.assert_integer", v1=["assert_integer"])
def assert_integer(x, message=None, name=None):
    if not ops.convert_to_tensor(x).dtype.is_integer:
        raise TypeError("%sExpected integer type, got %s" % (
            (message + " ") if message else "", ops.convert_to_tensor(x).dtype.name))
    return None


@tf_export("debugging.assert_scalar", v1=["assert_scalar"])
def assert_scalar(tensor, name=None, message=None):
    if _static_rank(tensor) not in (0, None):
        raise ValueError("%sExpected scalar, got shape %s" % (
            (message + " ") if message else "", ops.convert_to_tensor(tensor).shape))
    return tensor


@tf_export("debugging.check_numerics", v1=["check_numerics", "verify_tensor_all_finite"])
def check_numerics(tensor, message, name=None):
    """`tf.check_numerics`: the tensor itself, failing if it holds NaN or Inf."""
    tensor = ops.convert_to_tensor(tensor)

    def fails(value):
        if bool(torch.all(torch.isfinite(value))):
            return None
        return "Tensor had %s values" % ("NaN" if bool(torch.isnan(value).any()) else "Inf")
    check = _run_check(fails, message, [tensor], "CheckNumerics", name)
    if check is None:
        return tensor
    with get_default_graph().control_dependencies([check]):
        return identity(tensor)
