"""TF's math ops (`tf.math.*` and their top-level aliases) and the Tensor operators.

Each op is one torch function registered with `@op`. TF's dtype rules hold, not torch's:
no promotion between tensors of different dtypes, integer `/` is float64 (float32 for 8/16-bit
ints), integer reductions keep their dtype (`reduce_mean` of ints is integer division),
float-only ops reject integer inputs instead of promoting them.

Errors follow TF: a bad shape or dtype found while building a graph (the op runs on fake
tensors) is a ValueError/TypeError; found while running it is `InvalidArgumentError`.
Messages write the op being run as `{op}`, which its op type replaces (`@op`, graph nodes,
the Tensor operators: `errors.name_running_op`), so one check serves every op using it.
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensor

from tfcompat import _api
from tfcompat.framework import context, dtypes, errors, matmul_kernel
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import (GraphTensorInEagerError, binary_operands, is_tensor_value,
                                    op, run_impl, same_dtype_lowering, same_dtype_tensors,
                                    to_torch)
from tfcompat.framework.tensor import EagerTensor, Tensor
from tfcompat.util import dispatch

_state = context.state

# ---------------------------------------------------------------- dtype checks and errors

_FLOAT = "bfloat16, half, float32, float64"
_FLOAT_COMPLEX = _FLOAT + ", complex64, complex128"
_NUMERIC = "numeric types (not bool or string)"
_INTEGER = "integer types"


def _dtype_name(t):
    return "string" if type(t) is np.ndarray else dtypes.from_torch(t.dtype).name


def _dtype_error(t, allowed):
    message = "{op} does not support dtype %s (allowed: %s)" % (_dtype_name(t), allowed)
    return TypeError(message) if isinstance(t, FakeTensor) else \
        errors.InvalidArgumentError(message)


def _is_float(t):
    return t.is_floating_point() or t.is_complex()


def _is_real_float(t):
    return t.is_floating_point()


def _is_numeric(t):
    return t.dtype is not torch.bool


def _is_integer(t):
    return not (t.is_floating_point() or t.is_complex() or t.dtype is torch.bool)


def _is_non_string(t):
    return True  # `_checked` rejects string tensors before calling a check


def _is_bool(t):
    return t.dtype is torch.bool


_ALLOWED = {_is_float: _FLOAT_COMPLEX, _is_real_float: _FLOAT, _is_numeric: _NUMERIC,
            _is_integer: _INTEGER, _is_non_string: "any type but string",
            _is_bool: "bool"}


def _checked(t, check):
    if type(t) is np.ndarray or not check(t):
        raise _dtype_error(t, _ALLOWED[check])
    return t


def _as_tensor(value, like):
    """A Python scalar left by `binary_operands` -> 0-d tensor of `like`'s dtype."""
    if type(value) is torch.Tensor or isinstance(value, torch.Tensor):
        return value
    return torch.tensor(value, dtype=like.dtype, device=like.device)


def _tensor_pair(tx, ty, check=None):
    """`binary_operands` results -> two torch tensors (a Python scalar takes the other's dtype)."""
    if type(tx) is np.ndarray or type(ty) is np.ndarray:
        raise _dtype_error(tx if type(tx) is np.ndarray else ty, _NUMERIC)
    tx = _as_tensor(tx, ty) if not isinstance(tx, torch.Tensor) else tx
    ty = _as_tensor(ty, tx)
    if check is not None:
        _checked(tx, check)
    return tx, ty


def _run_binary(torch_fn, tx, ty):
    try:
        return torch_fn(tx, ty)
    except RuntimeError as e:
        raise _binary_error(tx, ty, e) from None


def _binary_error(tx, ty, error):
    sx = tuple(getattr(tx, "shape", ()))
    sy = tuple(getattr(ty, "shape", ()))
    try:
        torch.broadcast_shapes(sx, sy)
    except RuntimeError:
        return _incompatible_shapes(sx, sy, isinstance(tx, FakeTensor) or
                                    isinstance(ty, FakeTensor))
    message = str(error)
    if "not implemented for" in message or "not supported" in message:
        return _dtype_error(tx if isinstance(tx, torch.Tensor) else ty, _NUMERIC)
    if "ZeroDivisionError" in message:
        message = "Integer division by zero"
    return errors.InvalidArgumentError("%s [Op:{op}]" % message)


def _incompatible_shapes(sx, sy, building):
    """TF's error for operands that do not broadcast. Kernels (eager, Session.run) say
    "Incompatible shapes: [2,3] vs. [4]"; while a graph is built (`building`: fake inputs)
    the shape function names the first pair of known dims that differ, "Dimensions must be
    equal, but are 3 and 4", and the graph adds which node (Graph.record)."""
    if building:
        rank = max(len(sx), len(sy))
        padded_x = (1,) * (rank - len(sx)) + tuple(sx)
        padded_y = (1,) * (rank - len(sy)) + tuple(sy)
        for a, b in zip(padded_x, padded_y):
            if type(a) is int and type(b) is int and a != b and a != 1 and b != 1:
                return _dimensions_must_be_equal(a, b)
    return errors.InvalidArgumentError("Incompatible shapes: %s vs. %s [Op:{op}]" % (
        format_shape(sx), format_shape(sy)))


def _dimensions_must_be_equal(a, b):
    """The error of TF's shape functions when two known dims that must be one differ."""
    return errors.InvalidArgumentError("Dimensions must be equal, but are %d and %d" % (a, b))


def _elementwise(torch_fn, x, y, check=_is_numeric, tensors_only=False):
    """The common binary op: TF operand conversion, dtype check, broadcasting torch call.

    `tensors_only`: the torch function takes no Python scalar as second argument.
    """
    tx, ty = binary_operands(x, y)
    if not isinstance(tx, torch.Tensor):
        if type(tx) is np.ndarray:
            raise _dtype_error(tx, _ALLOWED[check])
        tx = _as_tensor(tx, ty)
    elif tensors_only and not isinstance(ty, torch.Tensor):
        ty = _as_tensor(ty, tx)
    if not check(tx):
        raise _dtype_error(tx, _ALLOWED[check])
    return _run_binary(torch_fn, tx, ty)


def _unary_op(torch_fn, op_type, check, *paths, v1=(), v2=(), doc=""):
    """Define and register `fn(x, name=None)` = `torch_fn(x)` for inputs passing `check`."""
    def unary(x, name=None):
        return torch_fn(_checked(to_torch(x), check))
    unary.__name__ = unary.__qualname__ = paths[0].split(".")[-1] if paths else v1[0]
    unary.__doc__ = "`tf.%s`: elementwise, %s inputs (TF's %s op).%s" % (
        (paths or v1)[0], _ALLOWED[check], op_type, (" " + doc) if doc else "")
    return op(*paths, v1=v1, v2=v2, graph_name=op_type,
              lowering=lambda *values: torch_fn if len(values) == 1 and check(values[0])
              else None)(unary)


# the dtypes where the torch function of an arithmetic op is exact for two tensors
_FLOAT_DTYPES = frozenset((torch.float16, torch.bfloat16, torch.float32, torch.float64))
_REAL_DTYPES = _FLOAT_DTYPES | frozenset((torch.int8, torch.int16, torch.int32, torch.int64,
                                          torch.uint8, torch.uint16, torch.uint32,
                                          torch.uint64))


def _binary_op(torch_fn, op_type, check, *paths, v1=(), v2=(), tensors_only=False, doc="",
               fast_dtypes=None):
    """Define and register `fn(x, y, name=None)` = `torch_fn(x, y)` with TF's operand rules
    (`fast_dtypes`: two eager tensors of one of these dtypes call `torch_fn` directly)."""
    def binary(x, y, name=None):
        return _elementwise(torch_fn, x, y, check, tensors_only)
    binary.__name__ = binary.__qualname__ = paths[0].split(".")[-1] if paths else v1[0]
    binary.__doc__ = "`tf.%s`: elementwise with broadcasting, %s inputs of one dtype (TF's " \
                     "%s op).%s" % ((paths or v1)[0], _ALLOWED[check], op_type,
                                   (" " + doc) if doc else "")
    fast_binary = None if fast_dtypes is None else (torch_fn, fast_dtypes)
    return op(*paths, v1=v1, v2=v2, graph_name=op_type, fast_binary=fast_binary,
              lowering=same_dtype_lowering(torch_fn, check, numbers=not tensors_only))(binary)


# ---------------------------------------------------------------- arithmetic


@op("math.add", "add", graph_name="AddV2", fast_binary=(torch.add, _REAL_DTYPES),
    lowering=same_dtype_lowering(torch.add, _is_numeric, numbers=True))
def add(x, y, name=None):
    """`tf.add`: x + y with broadcasting; string tensors are concatenated like TF."""
    tx, ty = binary_operands(x, y)
    if type(tx) is np.ndarray:
        # numpy gives a bare `bytes` for two 0-d object arrays; keep a string tensor.
        return np.asarray(tx + ty, dtype=object)
    if not isinstance(tx, torch.Tensor):
        tx = _as_tensor(tx, ty)
    if tx.dtype is torch.bool:
        raise _dtype_error(tx, _NUMERIC)
    return _run_binary(torch.add, tx, ty)


subtract = _binary_op(torch.sub, "Sub", _is_numeric, "math.subtract", "subtract",
                      fast_dtypes=_REAL_DTYPES)
multiply = _binary_op(torch.mul, "Mul", _is_numeric, "math.multiply", "multiply",
                      fast_dtypes=_REAL_DTYPES)


def _pow(tx, ty):
    if _is_integer(tx) and not isinstance(tx, FakeTensor):
        negative = (ty < 0).any() if isinstance(ty, torch.Tensor) else ty < 0
        if negative:
            raise errors.InvalidArgumentError(
                "Integers to negative integer powers are not allowed [Op:{op}]")
    return torch.pow(tx, ty)


pow = _binary_op(_pow, "Pow", _is_numeric, "math.pow", "pow",  # noqa: A001 - TF's name
                 doc="Integer bases with negative integer exponents raise like TF.")
def _with_tf_tie_gradient(torch_fn, x_wins):
    """`torch_fn` (maximum / minimum) whose gradient at ties goes to x, as TF's _MaximumGrad /
    _MinimumGrad send it (where `x_wins(x, y)`), where torch splits it between x and y."""
    def select(x, y):
        result = torch_fn(x, y)
        if torch.is_grad_enabled() and (x.requires_grad or y.requires_grad):
            chosen = torch.where(x_wins(x, y), x, y)
            return chosen + (result - chosen).detach()     # NaN still propagates
        return result
    select.__name__ = torch_fn.__name__
    return select


maximum = _binary_op(_with_tf_tie_gradient(torch.maximum, torch.ge), "Maximum", _is_numeric,
                     "math.maximum", "maximum", tensors_only=True,
                     doc="NaN propagates; at ties the gradient goes to x, as in TF.")
minimum = _binary_op(_with_tf_tie_gradient(torch.minimum, torch.le), "Minimum", _is_numeric,
                     "math.minimum", "minimum", tensors_only=True,
                     doc="NaN propagates; at ties the gradient goes to x, as in TF.")
atan2 = _binary_op(torch.atan2, "Atan2", _is_real_float, "math.atan2", "atan2",
                   tensors_only=True, doc="Arguments are (y, x) like TF.")
truncatemod = _binary_op(torch.fmod, "TruncateMod", _is_numeric, "truncatemod",
                         doc="Result has the sign of x (C fmod).")
floormod = _binary_op(torch.remainder, "FloorMod", _is_numeric, "math.floormod", "math.mod",
                      v1=["floormod", "mod"], doc="Result has the sign of y (Python %).")


def _squared_difference(tx, ty):
    diff = tx - ty
    return diff * diff.conj() if diff.is_complex() else diff * diff


squared_difference = _binary_op(_squared_difference, "SquaredDifference", _is_numeric,
                                "math.squared_difference", v1=["squared_difference"])


_TRUEDIV_FLOAT = {torch.int8: torch.float32, torch.uint8: torch.float32,
                  torch.int16: torch.float32, torch.uint16: torch.float32,
                  torch.int32: torch.float64, torch.uint32: torch.float64,
                  torch.int64: torch.float64, torch.uint64: torch.float64}


@op("math.truediv", "truediv", "math.divide", "divide", graph_name="RealDiv")
def truediv(x, y, name=None):
    """`tf.math.truediv` / `tf.math.divide` (Python 3 `/`): integers are cast first,
    8/16-bit ints to float32, 32/64-bit ints to float64; different dtypes raise TypeError."""
    try:
        tx, ty = binary_operands(x, y)
    except errors.InvalidArgumentError as e:
        raise TypeError("x and y must have the same dtype: %s" % e.message) from None
    if not isinstance(tx, torch.Tensor):
        if type(tx) is np.ndarray:
            raise _dtype_error(tx, _NUMERIC)
        tx = _as_tensor(tx, ty)
    to = _TRUEDIV_FLOAT.get(tx.dtype)
    if to is not None:
        tx = tx.to(to)
        if isinstance(ty, torch.Tensor):
            ty = ty.to(to)
    elif tx.dtype is torch.bool:
        raise _dtype_error(tx, _NUMERIC)
    return _run_binary(torch.div, tx, ty)


realdiv = _binary_op(torch.div, "RealDiv", _is_float, "realdiv",
                     doc="Unlike `truediv`, integer inputs are not cast (and TF rejects them).")


def _floor_divide(tx, ty):
    if tx.is_floating_point():
        return torch.floor(torch.div(tx, ty))
    return torch.div(tx, ty, rounding_mode="floor")


floordiv = _binary_op(_floor_divide, "FloorDiv", _is_numeric, "math.floordiv",
                      v1=["floordiv", "floor_div"],
                      doc="floor(x / y) for floats, rounding toward -inf for integers.")
truncatediv = _binary_op(lambda tx, ty: torch.div(tx, ty, rounding_mode="trunc"),
                         "TruncateDiv", _is_numeric, "truncatediv",
                         doc="Integer division rounding toward zero (C semantics).")


@op(v1=["div"], graph_name="Div")
def div(x, y, name=None):
    """TF1 `tf.div` (Python 2 `/`): floor division for integers, real division for floats."""
    tx, ty = _tensor_pair(*binary_operands(x, y), _is_numeric)
    if _is_float(tx):
        return _run_binary(torch.div, tx, ty)
    return _run_binary(_floor_divide, tx, ty)


def _divide_no_nan(tx, ty):
    ty = _as_tensor(ty, tx)
    return torch.where(ty == 0, torch.zeros((), dtype=tx.dtype, device=tx.device),
                       tx / torch.where(ty == 0, torch.ones_like(ty), ty))


divide_no_nan = _binary_op(_divide_no_nan, "DivNoNan", _is_float, "math.divide_no_nan",
                           v1=["div_no_nan"], doc="0 where y == 0.")


def _xdivy(tx, ty):
    ty = _as_tensor(ty, tx)
    return torch.where(tx == 0, torch.zeros((), dtype=tx.dtype, device=tx.device), tx / ty)


xdivy = _binary_op(_xdivy, "Xdivy", _is_float, "math.xdivy", doc="0 where x == 0.")
xlogy = _binary_op(torch.xlogy, "Xlogy", _is_real_float, "math.xlogy", tensors_only=True,
                   doc="0 where x == 0.")


def _xlog1py(tx, ty):
    ty = _as_tensor(ty, tx)
    return torch.where(tx == 0, torch.zeros((), dtype=tx.dtype, device=tx.device),
                       tx * torch.log1p(ty))


xlog1py = _binary_op(_xlog1py, "Xlog1py", _is_real_float, "math.xlog1py",
                     doc="0 where x == 0.")


negative = _unary_op(torch.neg, "Neg", _is_numeric, "math.negative", "negative")
abs = _unary_op(torch.abs, "Abs", _is_numeric, "math.abs", "abs",  # noqa: A001 - TF's name
                doc="Complex inputs give their real magnitude.")
sign = _unary_op(torch.sgn, "Sign", _is_numeric, "math.sign", "sign",
                 doc="Complex inputs give x / |x|.")
square = _unary_op(torch.square, "Square", _is_numeric, "math.square", "square")
sqrt = _unary_op(torch.sqrt, "Sqrt", _is_float, "math.sqrt", "sqrt")
rsqrt = _unary_op(torch.rsqrt, "Rsqrt", _is_float, "math.rsqrt", v1=["rsqrt"])
exp = _unary_op(torch.exp, "Exp", _is_float, "math.exp", "exp")
expm1 = _unary_op(torch.expm1, "Expm1", _is_float, "math.expm1", v1=["expm1"])
log = _unary_op(torch.log, "Log", _is_float, "math.log", v1=["log"])
log1p = _unary_op(torch.log1p, "Log1p", _is_float, "math.log1p", v1=["log1p"])
reciprocal = _unary_op(torch.reciprocal, "Reciprocal", _is_float, "math.reciprocal",
                       v1=["reciprocal"])
round = _unary_op(torch.round, "Round", _is_numeric, "math.round",  # noqa: A001
                  "round", doc="Halves round to even (banker's rounding); ints unchanged.")
rint = _unary_op(torch.round, "Rint", _is_real_float, "math.rint", v1=["rint"],
                 doc="Halves round to even.")
floor = _unary_op(torch.floor, "Floor", _is_real_float, "math.floor", "floor")
ceil = _unary_op(torch.ceil, "Ceil", _is_real_float, "math.ceil", v1=["ceil"])
sin = _unary_op(torch.sin, "Sin", _is_float, "math.sin", "sin")
cos = _unary_op(torch.cos, "Cos", _is_float, "math.cos", "cos")
tan = _unary_op(torch.tan, "Tan", _is_float, "math.tan", "tan")
asin = _unary_op(torch.asin, "Asin", _is_float, "math.asin", "asin")
acos = _unary_op(torch.acos, "Acos", _is_float, "math.acos", "acos")
atan = _unary_op(torch.atan, "Atan", _is_float, "math.atan", "atan")
sinh = _unary_op(torch.sinh, "Sinh", _is_float, "math.sinh", "sinh")
cosh = _unary_op(torch.cosh, "Cosh", _is_float, "math.cosh", "cosh")
tanh = _unary_op(torch.tanh, "Tanh", _is_float, "math.tanh", "nn.tanh", "tanh")
asinh = _unary_op(torch.asinh, "Asinh", _is_float, "math.asinh", "asinh")
acosh = _unary_op(torch.acosh, "Acosh", _is_float, "math.acosh", "acosh")
atanh = _unary_op(torch.atanh, "Atanh", _is_float, "math.atanh", "atanh")
sigmoid = _unary_op(torch.sigmoid, "Sigmoid", _is_float, "math.sigmoid", "nn.sigmoid",
                    "sigmoid")
log_sigmoid = _unary_op(F.logsigmoid, "LogSigmoid", _is_real_float, "math.log_sigmoid",
                        v1=["log_sigmoid"])
erf = _unary_op(torch.erf, "Erf", _is_real_float, "math.erf", v1=["erf"])
erfc = _unary_op(torch.erfc, "Erfc", _is_real_float, "math.erfc", v1=["erfc"])
erfinv = _unary_op(torch.erfinv, "Erfinv", _is_real_float, "math.erfinv")
lgamma = _unary_op(torch.lgamma, "Lgamma", _is_real_float, "math.lgamma", v1=["lgamma"])
digamma = _unary_op(torch.digamma, "Digamma", _is_real_float, "math.digamma",
                    v1=["digamma"])
ndtri = _unary_op(torch.special.ndtri, "Ndtri", _is_real_float, "math.ndtri",
                  doc="The inverse of the standard normal CDF.")


@op("math.erfcinv", graph_name="Erfcinv")
def erfcinv(x, name=None):
    """`tf.math.erfcinv`: the inverse of erfc, computed as TF does: -ndtri(x / 2) / sqrt(2)
    (so erfcinv(1) is -0.0)."""
    t = _checked(to_torch(x), _is_real_float)
    return -torch.special.ndtri(0.5 * t) * 0.7071067811865476


bessel_i0 = _unary_op(torch.special.i0, "BesselI0", _is_real_float, "math.bessel_i0",
                      "math.special.bessel_i0")
bessel_i0e = _unary_op(torch.special.i0e, "BesselI0e", _is_real_float, "math.bessel_i0e",
                       "math.special.bessel_i0e")
bessel_i1 = _unary_op(torch.special.i1, "BesselI1", _is_real_float, "math.bessel_i1",
                      "math.special.bessel_i1")
bessel_i1e = _unary_op(torch.special.i1e, "BesselI1e", _is_real_float, "math.bessel_i1e",
                       "math.special.bessel_i1e")
def _with_gradients(fn, *partials):
    """`fn` over tensors with TF's gradients where torch has none: `partials[i](*inputs)` is
    the derivative by input i (None: TF defines no gradient for it)."""
    class WithGradients(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            ctx.save_for_backward(*inputs)
            return fn(*inputs)

        @staticmethod
        def backward(ctx, grad):
            inputs = ctx.saved_tensors
            return tuple(grad * partial(*inputs) if partial is not None and needed else None
                         for partial, needed in zip(partials, ctx.needs_input_grad))
    WithGradients.__name__ = fn.__name__
    return WithGradients.apply


def _igamma_by_x(a, x):
    return torch.exp(-x + (a - 1) * torch.log(x) - torch.lgamma(a))


def _by_a_numerically(fn):
    """d fn(a, x) / da by a central difference in float64 (torch has no derivative of the
    incomplete gamma functions by a; TF's series gives the same to about 1e-8)."""
    def partial(a, x):
        a64, x64 = a.double(), x.double()
        step = 1e-5 * torch.clamp(a64.abs(), min=1.0)
        return ((fn(a64 + step, x64) - fn(a64 - step, x64)) / (2 * step)).to(a.dtype)
    return partial


_special = torch.special
bessel_j0 = _unary_op(_with_gradients(_special.bessel_j0, lambda x: -_special.bessel_j1(x)),
                      "BesselJ0", _is_real_float, "math.special.bessel_j0")
bessel_j1 = _unary_op(
    _with_gradients(_special.bessel_j1,
                    lambda x: _special.bessel_j0(x) - _special.bessel_j1(x) / x),
    "BesselJ1", _is_real_float, "math.special.bessel_j1")
bessel_y0 = _unary_op(_with_gradients(_special.bessel_y0, lambda x: -_special.bessel_y1(x)),
                      "BesselY0", _is_real_float, "math.special.bessel_y0")
bessel_y1 = _unary_op(
    _with_gradients(_special.bessel_y1,
                    lambda x: _special.bessel_y0(x) - _special.bessel_y1(x) / x),
    "BesselY1", _is_real_float, "math.special.bessel_y1")
bessel_k0 = _unary_op(
    _with_gradients(_special.modified_bessel_k0, lambda x: -_special.modified_bessel_k1(x)),
    "BesselK0", _is_real_float, "math.special.bessel_k0")
bessel_k0e = _unary_op(
    _with_gradients(_special.scaled_modified_bessel_k0,
                    lambda x: _special.scaled_modified_bessel_k0(x)
                    - _special.scaled_modified_bessel_k1(x)),
    "BesselK0e", _is_real_float, "math.special.bessel_k0e")
bessel_k1 = _unary_op(
    _with_gradients(_special.modified_bessel_k1,
                    lambda x: -_special.modified_bessel_k0(x)
                    - _special.modified_bessel_k1(x) / x),
    "BesselK1", _is_real_float, "math.special.bessel_k1")
bessel_k1e = _unary_op(
    _with_gradients(_special.scaled_modified_bessel_k1,
                    lambda x: -_special.scaled_modified_bessel_k0(x)
                    + _special.scaled_modified_bessel_k1(x) * (1 - 1 / x)),
    "BesselK1e", _is_real_float, "math.special.bessel_k1e")
igamma = _binary_op(
    _with_gradients(_special.gammainc, _by_a_numerically(_special.gammainc),
                    _igamma_by_x),
    "Igamma", _is_real_float, "math.igamma", v1=["igamma"], tensors_only=True,
    doc="The regularized lower incomplete gamma function P(a, x).")
igammac = _binary_op(
    _with_gradients(_special.gammaincc, _by_a_numerically(_special.gammaincc),
                    lambda a, x: -_igamma_by_x(a, x)),
    "Igammac", _is_real_float, "math.igammac", v1=["igammac"], tensors_only=True,
    doc="The regularized upper incomplete gamma function Q(a, x).")
zeta = _binary_op(
    _with_gradients(_special.zeta, None, lambda x, q: -x * _special.zeta(x + 1, q)),
    "Zeta", _is_real_float, "math.zeta", v1=["zeta"], tensors_only=True,
    doc="The Hurwitz zeta function zeta(x, q); as in TF, no gradient with respect to x.")
nextafter = _binary_op(lambda x1, x2: torch.nextafter(x1.detach(), x2.detach()), "NextAfter",
                       _is_real_float, "math.nextafter", tensors_only=True,
                       doc="The next representable value of x1 in the direction of x2 "
                           "(not differentiable, as in TF).")


def _polygamma(a, x):
    """(-1)^(a+1) a! zeta(a+1, x), digamma for a = 0, NaN where a is not a whole number >= 0
    (Eigen's polygamma, which TF runs)."""
    whole = (a >= 0) & (a == torch.floor(a))
    order = torch.where(whole, a, torch.zeros_like(a))
    sign = 1 - 2 * torch.remainder(order + 1, 2)
    higher = sign * torch.exp(torch.lgamma(order + 1)) * _special.zeta(order + 1, x)
    value = torch.where(order == 0, torch.digamma(x), higher)
    return torch.where(whole, value, torch.full_like(value, float("nan")))


polygamma = _binary_op(
    _with_gradients(_polygamma, None, lambda a, x: _polygamma(a + 1, x)), "Polygamma",
    _is_real_float, "math.polygamma", v1=["polygamma"], tensors_only=True,
    doc="The a-th derivative of digamma; as in TF, no gradient with respect to a.")


def _multiply_no_nan(tx, ty):
    ty = _as_tensor(ty, tx)
    product = tx * ty
    return torch.where(ty == 0, torch.zeros((), dtype=product.dtype, device=product.device),
                       product)


multiply_no_nan = _binary_op(_multiply_no_nan, "MulNoNan", _is_float, "math.multiply_no_nan",
                             doc="0 where y == 0, even where x is NaN or infinite.")


@op("math.reciprocal_no_nan", graph_name="DivNoNan")
def reciprocal_no_nan(x, name=None):
    """`tf.math.reciprocal_no_nan`: 1 / x, and 0 where x == 0."""
    t = _checked(to_torch(x), _is_float)
    return _divide_no_nan(torch.ones_like(t), t)


@op("math.lbeta", v1=["lbeta"], graph_name="Lbeta")
def lbeta(x, name=None):
    """`tf.math.lbeta`: log of the multivariate beta function over the last axis,
    sum(lgamma(x)) - lgamma(sum(x))."""
    t = _checked(to_torch(x), _is_real_float)
    return torch.lgamma(t).sum(-1) - torch.lgamma(t.sum(-1))


@op("math.invert_permutation", "invert_permutation", graph_name="InvertPermutation")
def invert_permutation(x, name=None):
    """`tf.math.invert_permutation`: y[x[i]] = i for a permutation x of 0..n-1."""
    t = to_torch(x)
    if t.dtype not in (torch.int32, torch.int64) or t.ndim != 1:
        raise errors.InvalidArgumentError(
            "{op}: x must be a 1-D int32 or int64 tensor, got %s of shape %s"
            % (dtypes.from_torch(t.dtype).name if isinstance(t, torch.Tensor) else type(t),
               format_shape(t.shape)))
    if not isinstance(t, FakeTensor) and not torch.equal(torch.sort(t).values,
                                           torch.arange(t.shape[0], device=t.device)):
        raise errors.InvalidArgumentError("{op}: %s is not a permutation of 0..%d"
                                          % (t.tolist(), t.shape[0] - 1))
    return torch.argsort(t).to(t.dtype)


def _monotonic(x, strict):
    t = to_torch(x)
    if not isinstance(t, torch.Tensor) or not _is_numeric(t) or t.is_complex():
        raise TypeError("Expected x to be numeric, got %r" % (x,))
    flat = t.reshape(-1)
    later, earlier = flat[1:], flat[:-1]
    return torch.all(later > earlier) if strict else torch.all(later >= earlier)


@op("math.is_non_decreasing", v1=["is_non_decreasing"], graph_name="IsNonDecreasing")
def is_non_decreasing(x, name=None):
    """`tf.math.is_non_decreasing`: whether x's entries (flattened) never decrease."""
    return _monotonic(x, False)


@op("math.is_strictly_increasing", v1=["is_strictly_increasing"],
    graph_name="IsStrictlyIncreasing")
def is_strictly_increasing(x, name=None):
    """`tf.math.is_strictly_increasing`: whether x's entries (flattened) always increase."""
    return _monotonic(x, True)


is_nan = _unary_op(torch.isnan, "IsNan", _is_real_float, "math.is_nan", v1=["is_nan"])
is_inf = _unary_op(torch.isinf, "IsInf", _is_real_float, "math.is_inf", v1=["is_inf"])
is_finite = _unary_op(torch.isfinite, "IsFinite", _is_real_float, "math.is_finite",
                      v1=["is_finite"])


@op("math.scalar_mul", "scalar_mul", graph_name="Mul")
def scalar_mul(scalar, x, name=None):
    """`tf.math.scalar_mul`: scalar * x; the scalar is converted to x's dtype and must be
    rank 0 (ValueError otherwise, like TF)."""
    tx = to_torch(x)
    ts = to_torch(scalar, dtypes.from_torch(tx.dtype)) if not is_tensor_value(scalar) \
        else to_torch(scalar)
    if ts.ndim != 0:
        raise ValueError("Only scalar multiply works, got shape %s" % (format_shape(ts.shape),))
    return _elementwise(torch.mul, ts, tx)


@op("math.polyval")
def polyval(coeffs, x, name=None):
    """`tf.math.polyval`: coeffs[0] * x**(n-1) + ... + coeffs[n-1] by Horner's rule."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError("Argument coeffs must be list type found %s." % type(coeffs))
    tx = to_torch(x)
    if not coeffs:
        return torch.zeros_like(tx)
    result = _elementwise(torch.mul, coeffs[0], torch.ones_like(tx))
    for c in coeffs[1:]:
        result = _elementwise(torch.add, c, result * tx)
    return result


# ---------------------------------------------------------------- comparisons and logic


def _equal_arrays(tx, ty, torch_fn, incompatible_shape_error):
    if type(tx) is np.ndarray or type(ty) is np.ndarray:
        ax, ay = np.asarray(tx), np.asarray(ty)
        try:
            result = np.equal(ax, ay) if torch_fn is torch.eq else np.not_equal(ax, ay)
        except ValueError:
            if incompatible_shape_error:
                raise _incompatible_shapes(ax.shape, ay.shape, False) from None
            return torch.tensor(torch_fn is torch.ne)
        return torch.from_numpy(np.asarray(result, dtype=bool))
    if not isinstance(tx, torch.Tensor):
        tx = _as_tensor(tx, ty)
    if not incompatible_shape_error and isinstance(ty, torch.Tensor):
        try:
            torch.broadcast_shapes(tx.shape, ty.shape)
        except RuntimeError:
            return torch.tensor(torch_fn is torch.ne, device=tx.device)
    return _run_binary(torch_fn, tx, ty)


@op("math.equal", "equal")
def equal(x, y, name=None):
    """`tf.math.equal`: elementwise x == y (bool), strings included."""
    tx, ty = binary_operands(x, y)
    return _equal_arrays(tx, ty, torch.eq, True)


@op("math.not_equal", "not_equal")
def not_equal(x, y, name=None):
    """`tf.math.not_equal`: elementwise x != y (bool), strings included."""
    tx, ty = binary_operands(x, y)
    return _equal_arrays(tx, ty, torch.ne, True)


less = _binary_op(torch.lt, "Less", _is_numeric, "math.less", "less")
less_equal = _binary_op(torch.le, "LessEqual", _is_numeric, "math.less_equal", "less_equal")
greater = _binary_op(torch.gt, "Greater", _is_numeric, "math.greater", "greater")
greater_equal = _binary_op(torch.ge, "GreaterEqual", _is_numeric, "math.greater_equal",
                           "greater_equal")
logical_and = _binary_op(torch.logical_and, "LogicalAnd", _is_bool, "math.logical_and",
                         "logical_and", tensors_only=True)
logical_or = _binary_op(torch.logical_or, "LogicalOr", _is_bool, "math.logical_or",
                        "logical_or", tensors_only=True)
logical_xor = _binary_op(torch.logical_xor, "LogicalXor", _is_bool, "math.logical_xor",
                         v1=["logical_xor"], tensors_only=True)
logical_not = _unary_op(torch.logical_not, "LogicalNot", _is_bool, "math.logical_not",
                        "logical_not")
bitwise_and = _binary_op(torch.bitwise_and, "BitwiseAnd", _is_integer, "bitwise.bitwise_and")
bitwise_or = _binary_op(torch.bitwise_or, "BitwiseOr", _is_integer, "bitwise.bitwise_or")
bitwise_xor = _binary_op(torch.bitwise_xor, "BitwiseXor", _is_integer, "bitwise.bitwise_xor")
left_shift = _binary_op(torch.bitwise_left_shift, "LeftShift", _is_integer,
                        "bitwise.left_shift")
right_shift = _binary_op(torch.bitwise_right_shift, "RightShift", _is_integer,
                         "bitwise.right_shift")
invert = _unary_op(torch.bitwise_not, "Invert", _is_integer, "bitwise.invert")


# ---------------------------------------------------------------- n-ary sums


def _same_shape_tensors(inputs):
    if is_tensor_value(inputs):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype "
                         "and shape")
    ts = same_dtype_tensors(list(inputs))
    shape = ts[0].shape
    for i, t in enumerate(ts[1:], 1):
        if t.shape != shape:
            raise errors.InvalidArgumentError(
                "Inputs to operation {op} must have the same size and shape. Input 0: %s != "
                "input %d: %s" % (format_shape(shape), i, format_shape(t.shape)))
    return ts


@op("math.add_n", "add_n")
def add_n(inputs, name=None):
    """`tf.math.add_n`: elementwise sum of tensors of one dtype and one shape (no broadcast)."""
    ts = _same_shape_tensors(inputs)
    result = ts[0]
    for t in ts[1:]:
        result = torch.add(result, t)
    return result if len(ts) > 1 else result.clone()


@op("math.accumulate_n", v1=["accumulate_n"])
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """`tf.math.accumulate_n`: like add_n; `shape` and `tensor_dtype` are checked if given."""
    ts = _same_shape_tensors(inputs)
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype).torch_dtype is not ts[0].dtype:
        raise TypeError("tensor_dtype is %s, but input is of type %s" % (
            dtypes.as_dtype(tensor_dtype).name, _dtype_name(ts[0])))
    if shape is not None and list(shape) != list(ts[0].shape):
        raise ValueError("shape %s does not match the inputs' shape %s" % (
            format_shape(shape), format_shape(ts[0].shape)))
    return run_impl(add_n, ts)


# ---------------------------------------------------------------- casts and complex numbers


@op("cast", "dtypes.cast")
def cast(x, dtype, name=None):
    """`tf.cast`: floats to ints truncate toward zero, complex to real drops the imaginary
    part, anything to bool is `x != 0`. Strings cannot be cast (UnimplementedError)."""
    to = dtypes.as_dtype(dtype)
    t = to_torch(x)
    if type(t) is np.ndarray or to.torch_dtype is None:
        if type(t) is np.ndarray and to is dtypes.string:
            return t
        raise errors.UnimplementedError("Cast %s to %s is not supported" % (
            _dtype_name(t), to.name))
    if t.dtype is to.torch_dtype:
        return t if type(x) is EagerTensor else t.clone()
    if t.is_complex() and not to.is_complex:
        t = t.real
    return t.to(to.torch_dtype)


def _cast_alias(tf_name, to, op_type):
    def convert(x, name=op_type):
        return cast._tfcompat_impl(x, to)
    convert.__name__ = convert.__qualname__ = tf_name
    convert.__doc__ = "TF1 `tf.%s(x)`: `tf.cast(x, tf.%s)`." % (tf_name, to.name)
    return op(v1=[tf_name], graph_name="Cast")(convert)


to_float = _cast_alias("to_float", dtypes.float32, "ToFloat")
to_double = _cast_alias("to_double", dtypes.float64, "ToDouble")
to_int32 = _cast_alias("to_int32", dtypes.int32, "ToInt32")
to_int64 = _cast_alias("to_int64", dtypes.int64, "ToInt64")
to_bfloat16 = _cast_alias("to_bfloat16", dtypes.bfloat16, "ToBFloat16")
to_complex64 = _cast_alias("to_complex64", dtypes.complex64, "ToComplex64")
to_complex128 = _cast_alias("to_complex128", dtypes.complex128, "ToComplex128")


@op("saturate_cast", "dtypes.saturate_cast", graph_name="Cast")
def saturate_cast(value, dtype, name=None):
    """`tf.saturate_cast`: clamp to the target dtype's range, then cast (no wrap-around)."""
    to = dtypes.as_dtype(dtype)
    t = to_torch(value)
    if t.is_complex() and not to.is_complex:
        t = t.real
    source = dtypes.from_torch(t.dtype)
    if not to.is_bool and not to.is_complex and not source.is_bool:
        low, high = max(source.min, to.min), min(source.max, to.max)
        if source.min < low or source.max > high:
            if t.is_floating_point() and to.is_integer:
                high = _float_below(high, t.dtype)
            t = torch.clamp(t, low, high)
    return t.to(to.torch_dtype)


def _float_below(bound, torch_dtype):
    """The largest value of a float dtype <= an integer bound (int32 max is not a float32)."""
    value = torch.tensor(float(bound), dtype=torch_dtype)
    if value.item() > bound:
        value = torch.nextafter(value, torch.zeros_like(value))
    return value.item()


@op("complex")
def complex(real, imag, name=None):  # noqa: A001 - TF's name
    """`tf.complex`: float32 parts give complex64, float64 parts complex128."""
    tr, ti = _tensor_pair(*binary_operands(real, imag))
    if tr.dtype not in (torch.float32, torch.float64):
        raise TypeError("real and imag must be float32 or float64, got %s" % _dtype_name(tr))
    tr, ti = torch.broadcast_tensors(tr, ti)
    return torch.complex(tr, ti)


@op("math.real", v1=["real"])
def real(input, name=None):  # noqa: A002 - TF's signature
    """`tf.math.real`: the real part; real inputs come back unchanged."""
    t = to_torch(input)
    return t.real.clone() if t.is_complex() else t


@op("math.imag", v1=["imag"])
def imag(input, name=None):  # noqa: A002
    """`tf.math.imag`: the imaginary part; zeros for real inputs."""
    t = to_torch(input)
    return t.imag.clone() if t.is_complex() else torch.zeros_like(t)


@op("math.conj", v1=["conj"])
def conj(x, name=None):
    """`tf.math.conj`: complex conjugate; real inputs come back unchanged."""
    t = to_torch(x)
    return torch.conj_physical(t) if t.is_complex() else t


@op("math.angle", v1=["angle"])
def angle(input, name=None):  # noqa: A002
    """`tf.math.angle`: argument of complex numbers; for real inputs pi where x < 0, else 0."""
    t = _checked(to_torch(input), _is_float)
    return torch.angle(t)


# ---------------------------------------------------------------- reductions


def _pick(new_name, new_value, old_name, old_value):
    if old_value is not None:
        if new_value is not None:
            raise ValueError("Cannot specify both '%s' and '%s'." % (new_name, old_name))
        return old_value
    return new_value


def _axis_list(axis):
    if axis is None:
        return None
    if type(axis) is int:
        return [axis]
    if is_tensor_value(axis) or isinstance(axis, (np.ndarray, np.generic, torch.Tensor)):
        axis = to_torch(axis).tolist() if not isinstance(axis, (np.ndarray, np.generic)) \
            else axis.tolist()
    if isinstance(axis, (list, tuple)):
        return [int(a) for a in axis]
    return [int(axis)]


def _reduction_dims(t, axis):
    """TF reduction axes -> sorted tuple of non-negative dims (all dims when axis is None)."""
    ndim = t.ndim
    axes = _axis_list(axis)
    if axes is None:
        return tuple(range(ndim))
    dims = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise errors.InvalidArgumentError("Invalid reduction dimension (%d for input with "
                                              "%d dimension(s) [Op:{op}]" % (a, ndim))
        a = a % ndim
        if a in dims:
            raise errors.InvalidArgumentError("Invalid reduction arguments: Axes contains "
                                              "duplicate dimension: %d [Op:{op}]" % a)
        dims.append(a)
    return tuple(sorted(dims))


def _reduction(input_tensor, axis, keepdims, reduction_indices, keep_dims, check):
    axis = _pick("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _pick("keepdims", keepdims, "keep_dims", keep_dims)
    t = _checked(to_torch(input_tensor), check)
    return t, _reduction_dims(t, axis), bool(keepdims)


def _identity(x, t):
    return t if type(x) is EagerTensor else t.clone()


@_api.tf_export("math.reduce_sum", "reduce_sum")
@dispatch.add_dispatch_support
@op(graph_name="Sum")
def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """`tf.reduce_sum` (v1 and v2 signatures): the sum keeps the input dtype (int32 stays
    int32); `axis=[]` reduces nothing."""
    t, dims, keepdims = _reduction(input_tensor, axis, keepdims, reduction_indices,
                                   keep_dims, _is_numeric)
    if not dims:
        return _identity(input_tensor, t)
    return torch.sum(t, dims, keepdim=keepdims, dtype=t.dtype)


@_api.tf_export("math.reduce_mean", "reduce_mean")
@dispatch.add_dispatch_support
@op(graph_name="Mean")
def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None):
    """`tf.reduce_mean` (v1 and v2 signatures): integer inputs give the integer quotient
    (truncated) like TF; the mean of nothing is NaN for floats."""
    t, dims, keepdims = _reduction(input_tensor, axis, keepdims, reduction_indices,
                                   keep_dims, _is_numeric)
    if not dims:
        return _identity(input_tensor, t)
    if _is_float(t):
        if not keepdims and len(dims) == t.ndim:
            return torch.mean(t)
        return torch.mean(t, dims, keepdim=keepdims)
    count = 1
    for d in dims:
        count *= t.shape[d]
    if count == 0:
        raise errors.InvalidArgumentError("Integer division by zero: mean of an empty "
                                          "integer reduction [Op:{op}]")
    return torch.div(torch.sum(t, dims, keepdim=keepdims, dtype=t.dtype), count,
                     rounding_mode="trunc")


def _extreme(t, dims, keepdims, torch_fn, empty_value):
    if any(t.shape[d] == 0 for d in dims):
        shape = [1 if d in dims else s for d, s in enumerate(t.shape)] if keepdims else \
            [s for d, s in enumerate(t.shape) if d not in dims]
        return torch.full(shape, empty_value, dtype=t.dtype, device=t.device)
    return torch_fn(t, dims, keepdim=keepdims)


@_api.tf_export("math.reduce_max", "reduce_max")
@dispatch.add_dispatch_support
@op(graph_name="Max")
def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """`tf.reduce_max` (v1 and v2 signatures); an empty reduction gives -inf (or the
    dtype's minimum for integers) like TF."""
    t, dims, keepdims = _reduction(input_tensor, axis, keepdims, reduction_indices,
                                   keep_dims, _is_numeric)
    if not dims:
        return _identity(input_tensor, t)
    low = -float("inf") if t.is_floating_point() else dtypes.from_torch(t.dtype).min
    return _extreme(t, dims, keepdims, torch.amax, low)


@_api.tf_export("math.reduce_min", "reduce_min")
@dispatch.add_dispatch_support
@op(graph_name="Min")
def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """`tf.reduce_min` (v1 and v2 signatures); an empty reduction gives +inf (or the
    dtype's maximum for integers) like TF."""
    t, dims, keepdims = _reduction(input_tensor, axis, keepdims, reduction_indices,
                                   keep_dims, _is_numeric)
    if not dims:
        return _identity(input_tensor, t)
    high = float("inf") if t.is_floating_point() else dtypes.from_torch(t.dtype).max
    return _extreme(t, dims, keepdims, torch.amin, high)


@_api.tf_export("math.reduce_prod", "reduce_prod")
@dispatch.add_dispatch_support
@op(graph_name="Prod")
def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None):
    """`tf.reduce_prod` (v1 and v2 signatures); the product keeps the input dtype."""
    t, dims, keepdims = _reduction(input_tensor, axis, keepdims, reduction_indices,
                                   keep_dims, _is_numeric)
    if not dims:
        return _identity(input_tensor, t)
    for d in reversed(dims):
        t = torch.prod(t, d, keepdim=keepdims, dtype=t.dtype)
    return t


@_api.tf_export("math.reduce_all", "reduce_all")
@dispatch.add_dispatch_support
@op(graph_name="All")
def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """`tf.reduce_all` (v1 and v2 signatures): logical and over bool inputs."""
    t, dims, keepdims = _reduction(input_tensor, axis, keepdims, reduction_indices,
                                   keep_dims, _is_bool)
    if not dims:
        return _identity(input_tensor, t)
    return torch.all(t, dims, keepdim=keepdims)


@_api.tf_export("math.reduce_any", "reduce_any")
@dispatch.add_dispatch_support
@op(graph_name="Any")
def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """`tf.reduce_any` (v1 and v2 signatures): logical or over bool inputs."""
    t, dims, keepdims = _reduction(input_tensor, axis, keepdims, reduction_indices,
                                   keep_dims, _is_bool)
    if not dims:
        return _identity(input_tensor, t)
    return torch.any(t, dims, keepdim=keepdims)


@op("math.reduce_logsumexp", "reduce_logsumexp", graph_name="ReduceLogSumExp")
def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None,
                     reduction_indices=None, keep_dims=None):
    """`tf.reduce_logsumexp` (v1 and v2 signatures), numerically stable; float inputs."""
    t, dims, keepdims = _reduction(input_tensor, axis, keepdims, reduction_indices,
                                   keep_dims, _is_real_float)
    if not dims:
        return _identity(input_tensor, t)
    return torch.logsumexp(t, dims, keepdim=keepdims)


def _moment_input(input_tensor, axis, keepdims):
    t = to_torch(input_tensor)
    if type(t) is np.ndarray or not _is_float(t):
        raise TypeError("Input must be either real or complex ({op} got %s)" % _dtype_name(t))
    return t, _reduction_dims(t, axis), bool(keepdims)


@op("math.reduce_variance", graph_name="ReduceVariance")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """`tf.math.reduce_variance`: population variance (divides by N); complex inputs give
    a real result; integer inputs raise TypeError like TF."""
    t, dims, keepdims = _moment_input(input_tensor, axis, keepdims)
    if not dims:
        return torch.zeros_like(t.real if t.is_complex() else t)
    return torch.var(t, dims, correction=0, keepdim=keepdims)


@op("math.reduce_std", graph_name="ReduceStd")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """`tf.math.reduce_std`: population standard deviation (divides by N)."""
    t, dims, keepdims = _moment_input(input_tensor, axis, keepdims)
    if not dims:
        return torch.zeros_like(t.real if t.is_complex() else t)
    return torch.std(t, dims, correction=0, keepdim=keepdims)


@op("math.reduce_euclidean_norm", graph_name="EuclideanNorm")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """`tf.math.reduce_euclidean_norm`: sqrt(sum(|x|^2)); integer inputs give the truncated
    integer root like TF."""
    t = _checked(to_torch(input_tensor), _is_numeric)
    dims = _reduction_dims(t, axis)
    if not dims:
        return t.abs() if not t.is_complex() else t
    if _is_float(t):
        result = torch.linalg.vector_norm(t, 2, dims, keepdim=bool(keepdims))
        return result.to(t.dtype) if t.is_complex() else result
    squares = torch.sum(t.to(torch.float64) ** 2, dims, keepdim=bool(keepdims))
    return torch.sqrt(squares).to(t.dtype)


@op("math.count_nonzero", v1=["count_nonzero"], graph_name="CountNonzero")
def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None):  # noqa: A002
    """`tf.math.count_nonzero` (v1 `input_tensor`/`reduction_indices`/`keep_dims` and v2
    `input` forms): the number of non-zero (non-empty for strings) elements, as `dtype`."""
    input_tensor = _pick("input", input, "input_tensor", input_tensor)
    axis = _pick("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_pick("keepdims", keepdims, "keep_dims", keep_dims))
    t = to_torch(input_tensor)
    if type(t) is np.ndarray:
        nonzero = torch.from_numpy(np.vectorize(lambda b: len(b) > 0, otypes=[bool])(t)
                                   if t.size else np.zeros(t.shape, bool))
    else:
        nonzero = t != 0
    dims = _reduction_dims(nonzero, axis)
    counted = torch.sum(nonzero, dims, keepdim=keepdims, dtype=torch.int64) if dims \
        else nonzero.to(torch.int64)
    return counted.to(dtypes.as_dtype(dtype).torch_dtype)


def _arg_extreme(input, axis, output_type, torch_fn):  # noqa: A002
    t = _checked(to_torch(input), _is_numeric)
    axis = 0 if axis is None else _axis_list(axis)
    if isinstance(axis, list):
        if len(axis) != 1:
            raise errors.InvalidArgumentError("{op} expects a scalar axis, got %s" % (axis,))
        axis = axis[0]
    out = dtypes.as_dtype(output_type)
    if out not in (dtypes.int32, dtypes.int64, dtypes.int16, dtypes.uint16):
        raise TypeError("output_type must be int16, uint16, int32 or int64, not %s" % out.name)
    ndim = max(t.ndim, 1)
    if not -ndim <= axis < ndim:
        raise errors.InvalidArgumentError(
            "Expected dimension in the range [%d, %d), but got %d [Op:{op}]" % (
                -ndim, ndim, axis))
    if t.ndim and t.shape[axis] == 0:
        raise errors.InvalidArgumentError("Reduction axis %d is empty in shape %s [Op:{op}]" % (
            axis, format_shape(t.shape)))
    return torch_fn(t, axis).to(out.torch_dtype)


@op(v1=["argmax", "math.argmax"], graph_name="ArgMax")
def argmax(input, axis=None, name=None, dimension=None,  # noqa: A002
           output_type=dtypes.int64):
    """TF1 `tf.argmax(input, axis, name, dimension, output_type)`: index of the largest
    value (the first one on ties); axis defaults to 0; int64 unless `output_type`."""
    return _arg_extreme(input, _pick("axis", axis, "dimension", dimension), output_type,
                        torch.argmax)


@op(v2=["argmax", "math.argmax"], graph_name="ArgMax")
def argmax_v2(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """TF2 `tf.math.argmax(input, axis=None, output_type=tf.int64)`; axis defaults to 0."""
    return _arg_extreme(input, axis, output_type, torch.argmax)


@op(v1=["argmin", "math.argmin"], graph_name="ArgMin")
def argmin(input, axis=None, name=None, dimension=None,  # noqa: A002
           output_type=dtypes.int64):
    """TF1 `tf.argmin(input, axis, name, dimension, output_type)`: index of the smallest
    value (the first one on ties); axis defaults to 0."""
    return _arg_extreme(input, _pick("axis", axis, "dimension", dimension), output_type,
                        torch.argmin)


@op(v2=["argmin", "math.argmin"], graph_name="ArgMin")
def argmin_v2(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """TF2 `tf.math.argmin(input, axis=None, output_type=tf.int64)`; axis defaults to 0."""
    return _arg_extreme(input, axis, output_type, torch.argmin)


@op(v1=["arg_max"], graph_name="ArgMax")
def arg_max(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """TF1 `tf.arg_max(input, dimension, output_type=tf.int64)`, the deprecated raw ArgMax op:
    `dimension` is required."""
    return _arg_extreme(input, dimension, output_type, torch.argmax)


@op(v1=["arg_min"], graph_name="ArgMin")
def arg_min(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """TF1 `tf.arg_min(input, dimension, output_type=tf.int64)`, the deprecated raw ArgMin op:
    `dimension` is required."""
    return _arg_extreme(input, dimension, output_type, torch.argmin)


# ---------------------------------------------------------------- scans


def _scan(x, axis, exclusive, reverse, torch_scan, fill, check=_is_numeric):
    t = _checked(to_torch(x), check)
    axis = _axis_list(axis)
    if len(axis) != 1:
        raise errors.InvalidArgumentError("{op}: axis must be a scalar, got %s" % (axis,))
    axis = axis[0]
    if not -t.ndim <= axis < max(t.ndim, 1) or t.ndim == 0:
        raise errors.InvalidArgumentError("{op}: axis %d is out of range for a tensor of rank %d"
                                          % (axis, t.ndim))
    axis %= t.ndim
    if reverse:
        t = torch.flip(t, (axis,))
    if exclusive:
        shape = list(t.shape)
        shape[axis] = 1
        t = torch.cat([torch.full(shape, fill, dtype=t.dtype, device=t.device),
                       t.narrow(axis, 0, t.shape[axis] - 1)], axis) \
            if t.shape[axis] else t
    result = torch_scan(t, axis)
    return torch.flip(result, (axis,)) if reverse else result


@op("math.cumsum", "cumsum", graph_name="Cumsum")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """`tf.math.cumsum` with TF's `exclusive` and `reverse`; keeps the input dtype."""
    return _scan(x, axis, exclusive, reverse,
                 lambda t, d: torch.cumsum(t, d, dtype=t.dtype), 0)


@op("math.cumprod", v1=["cumprod"], graph_name="Cumprod")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """`tf.math.cumprod` with TF's `exclusive` and `reverse`; keeps the input dtype."""
    return _scan(x, axis, exclusive, reverse,
                 lambda t, d: torch.cumprod(t, d, dtype=t.dtype), 1)


@op("math.cumulative_logsumexp", graph_name="CumulativeLogsumexp")
def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """`tf.math.cumulative_logsumexp` with `exclusive` (starts at -inf) and `reverse`."""
    return _scan(x, axis, exclusive, reverse, torch.logcumsumexp, -float("inf"), _is_real_float)


# ---------------------------------------------------------------- segment reductions


def _segment_input(data, segment_ids, sorted_ids):
    t = _checked(to_torch(data), _is_numeric)
    ids = to_torch(segment_ids)
    if type(ids) is np.ndarray or not _is_integer(ids):
        raise TypeError("{op}: segment_ids must be int32 or int64, got %s" % _dtype_name(ids))
    if sorted_ids and ids.ndim != 1:
        raise errors.InvalidArgumentError("{op}: segment_ids should be a vector, got shape %s"
                                          % format_shape(ids.shape))
    if tuple(t.shape[:ids.ndim]) != tuple(ids.shape):
        raise errors.InvalidArgumentError(
            "{op}: segment_ids.shape = %s does not prefix data.shape = %s" % (
                format_shape(ids.shape), format_shape(t.shape)))
    t = t.reshape((-1,) + tuple(t.shape[ids.ndim:]))
    ids = ids.reshape(-1).to(torch.int64)
    if sorted_ids and ids.numel() and not isinstance(ids, FakeTensor):
        if bool((ids[1:] < ids[:-1]).any()) or bool(ids[0] < 0):
            raise errors.InvalidArgumentError(
                "{op}: segment ids must be non-negative and sorted")
    return t, ids


def _num_segments(num_segments):
    """An int; for a graph's fake tensor (num_segments computed in the graph) its value as
    a symbolic size."""
    if isinstance(num_segments, (int, np.integer)):
        return int(num_segments)
    n = to_torch(num_segments)
    if not isinstance(n, FakeTensor):
        return int(n.item())
    size = n.item()
    torch._check(size >= 0)
    return size


def _dropped_to_spare(ids, num):
    """Ids outside [0, num) -> num, a spare segment cut off at the end (no data-dependent
    shapes, so this also runs on fake tensors)."""
    return torch.where((ids >= 0) & (ids < num), ids, num)


def _segment_reduce(t, ids, num, reduce, empty):
    """Reduce rows of t into `num` segments; rows with ids outside [0, num) are dropped."""
    ids = _dropped_to_spare(ids, num)
    shape = (num + 1,) + tuple(t.shape[1:])
    if reduce == "sum":
        out = torch.zeros(shape, dtype=t.dtype, device=t.device).index_add(0, ids, t)
    else:
        index = ids.reshape((-1,) + (1,) * (t.ndim - 1)).expand_as(t)
        out = torch.full(shape, empty, dtype=t.dtype, device=t.device)
        out = out.scatter_reduce(0, index, t, reduce, include_self=False)
    return out[:num]


def _segment_counts(ids, num, like):
    ones = torch.ones(ids.shape, dtype=like.dtype, device=like.device)
    counts = torch.zeros(num + 1, dtype=like.dtype, device=like.device).index_add(
        0, _dropped_to_spare(ids, num), ones)
    return counts[:num].reshape((num,) + (1,) * (like.ndim - 1))


def _sorted_num_segments(ids):
    """max id + 1 (value-dependent: a data-dependent size when building a graph)."""
    if not ids.numel():
        return 0
    return ids[-1].item() + 1 if isinstance(ids, FakeTensor) else int(ids[-1]) + 1


def _sorted_segment(data, segment_ids, reduce, empty):
    t, ids = _segment_input(data, segment_ids, True)
    return _segment_reduce(t, ids, _sorted_num_segments(ids), reduce, empty)


@op("math.segment_sum", v1=["segment_sum"], graph_name="SegmentSum")
def segment_sum(data, segment_ids, name=None):
    """`tf.math.segment_sum`: sums rows of `data` by sorted `segment_ids`; missing ids are 0."""
    return _sorted_segment(data, segment_ids, "sum", 0)


@op("math.segment_prod", v1=["segment_prod"], graph_name="SegmentProd")
def segment_prod(data, segment_ids, name=None):
    """`tf.math.segment_prod`: products by sorted `segment_ids`; missing ids are 1."""
    return _sorted_segment(data, segment_ids, "prod", 1)


@op("math.segment_max", v1=["segment_max"], graph_name="SegmentMax")
def segment_max(data, segment_ids, name=None):
    """`tf.math.segment_max`: maxima by sorted `segment_ids`; missing ids are 0."""
    return _sorted_segment(data, segment_ids, "amax", 0)


@op("math.segment_min", v1=["segment_min"], graph_name="SegmentMin")
def segment_min(data, segment_ids, name=None):
    """`tf.math.segment_min`: minima by sorted `segment_ids`; missing ids are 0."""
    return _sorted_segment(data, segment_ids, "amin", 0)


@op("math.segment_mean", v1=["segment_mean"], graph_name="SegmentMean")
def segment_mean(data, segment_ids, name=None):
    """`tf.math.segment_mean`: means by sorted `segment_ids`; missing ids are 0 (integer
    data: truncated quotient)."""
    t, ids = _segment_input(data, segment_ids, True)
    num = _sorted_num_segments(ids)
    return _mean_of_sums(_segment_reduce(t, ids, num, "sum", 0), _segment_counts(ids, num, t))


def _mean_of_sums(sums, counts):
    safe = torch.where(counts > 0, counts, torch.ones_like(counts))
    if _is_float(sums):
        return sums / safe
    return torch.div(sums, safe, rounding_mode="trunc")


def _unsorted(data, segment_ids, num_segments):
    t, ids = _segment_input(data, segment_ids, False)
    num = _num_segments(num_segments)
    if ids.numel() and not isinstance(ids, FakeTensor) and bool((ids >= num).any()):
        raise errors.InvalidArgumentError("{op}: segment_ids[%d] = %d is out of range [0, %d)"
                                          % (int(torch.argmax((ids >= num).int())),
                                             int(ids.max()), num))
    return t, ids, num


@op("math.unsorted_segment_sum", v1=["unsorted_segment_sum"], graph_name="UnsortedSegmentSum")
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """`tf.math.unsorted_segment_sum`: negative ids are dropped; empty segments are 0."""
    t, ids, num = _unsorted(data, segment_ids, num_segments)
    return _segment_reduce(t, ids, num, "sum", 0)


@op("math.unsorted_segment_prod", v1=["unsorted_segment_prod"],
    graph_name="UnsortedSegmentProd")
def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """`tf.math.unsorted_segment_prod`: negative ids are dropped; empty segments are 1."""
    t, ids, num = _unsorted(data, segment_ids, num_segments)
    return _segment_reduce(t, ids, num, "prod", 1)


@op("math.unsorted_segment_max", v1=["unsorted_segment_max"], graph_name="UnsortedSegmentMax")
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """`tf.math.unsorted_segment_max`: empty segments hold the dtype's lowest finite value
    (numeric_limits::lowest, not -inf), like TF."""
    t, ids, num = _unsorted(data, segment_ids, num_segments)
    return _segment_reduce(t, ids, num, "amax", dtypes.from_torch(t.dtype).min)


@op("math.unsorted_segment_min", v1=["unsorted_segment_min"], graph_name="UnsortedSegmentMin")
def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """`tf.math.unsorted_segment_min`: empty segments hold the dtype's largest finite value."""
    t, ids, num = _unsorted(data, segment_ids, num_segments)
    return _segment_reduce(t, ids, num, "amin", dtypes.from_torch(t.dtype).max)


@op("math.unsorted_segment_mean", v1=["unsorted_segment_mean"],
    graph_name="UnsortedSegmentMean")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """`tf.math.unsorted_segment_mean`: sum / count per segment; empty segments are 0."""
    t, ids, num = _unsorted(data, segment_ids, num_segments)
    return _mean_of_sums(_segment_reduce(t, ids, num, "sum", 0), _segment_counts(ids, num, t))


@op("math.unsorted_segment_sqrt_n", v1=["unsorted_segment_sqrt_n"],
    graph_name="UnsortedSegmentSqrtN")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """`tf.math.unsorted_segment_sqrt_n`: sum / sqrt(count); empty segments are 0; floats."""
    t, ids, num = _unsorted(data, segment_ids, num_segments)
    _checked(t, _is_float)
    counts = _segment_counts(ids, num, t)
    return _segment_reduce(t, ids, num, "sum", 0) / torch.sqrt(
        torch.where(counts > 0, counts, torch.ones_like(counts)))


@op("math.bincount", v1=["bincount"], graph_name="Bincount")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None,
             axis=None, binary_output=False):
    """`tf.math.bincount`: counts of each value in `arr` (flattened, or per row with
    `axis=-1`); the output size is max(arr) + 1, at least `minlength`, values at or above
    `maxlength` are dropped; with `weights` the output has the weights' dtype."""
    t = to_torch(arr)
    if type(t) is np.ndarray or not _is_integer(t):
        raise TypeError("bincount: arr must be int32 or int64, got %s" % _dtype_name(t))
    if axis not in (None, 0, -1):
        raise errors.InvalidArgumentError("bincount: axis must be None, 0 or -1, got %r" % axis)
    fake = isinstance(t, FakeTensor)
    if t.numel() and not fake and bool((t < 0).any()):
        raise errors.InvalidArgumentError("Input arr must be non-negative!")
    # the output size depends on values: a data-dependent size when building a graph
    size = 0 if not t.numel() else t.max().item() + 1 if fake else int(t.max()) + 1
    if minlength is not None:
        size = torch.sym_max(size, _num_segments(minlength))
    if maxlength is not None:
        size = torch.sym_min(size, _num_segments(maxlength))
    w = None if weights is None else to_torch(weights)
    out_dtype = w.dtype if w is not None else dtypes.as_dtype(dtype).torch_dtype
    per_row = axis == -1 and t.ndim == 2
    rows = t.to(torch.int64) if per_row else t.reshape(1, -1).to(torch.int64)
    values = torch.ones(rows.shape, dtype=out_dtype, device=t.device) if w is None or \
        binary_output else w.reshape(rows.shape).to(out_dtype)
    keep = rows < size
    out = torch.zeros((rows.shape[0], size), dtype=out_dtype, device=t.device)
    out = out.scatter_add(1, torch.where(keep, rows, 0), torch.where(
        keep, values, torch.zeros((), dtype=out_dtype, device=t.device)))
    if binary_output:
        out = (out != 0).to(out_dtype)
    return out if per_row else out[0]


# ---------------------------------------------------------------- matrix products


def _int_matmul(a, b):
    """Integer matmul on devices whose BLAS has none (CUDA): broadcast-multiply and sum."""
    return (a.unsqueeze(-1) * b.unsqueeze(-3)).sum(-2, dtype=a.dtype)


def _matrix_size_incompatible(shape_a, shape_b, building):
    """TF's error for a matrix product whose inner dims differ: the kernel's "Matrix
    size-incompatible: In[0]: [2,3], In[1]: [4,2]", or, while a graph is built (`building`:
    fake inputs), the shape function's "Dimensions must be equal, but are 3 and 4"."""
    inner_a, inner_b = shape_a[-1], shape_b[-2]
    if building and type(inner_a) is int and type(inner_b) is int:
        return _dimensions_must_be_equal(inner_a, inner_b)
    return errors.InvalidArgumentError("Matrix size-incompatible: In[0]: %s, In[1]: %s "
                                       "[Op:MatMul]" % (format_shape(shape_a),
                                                        format_shape(shape_b)))


@op("linalg.matmul", "matmul", graph_name="MatMul",
    lowering=same_dtype_lowering(matmul_kernel.matmul, _FLOAT_DTYPES, min_rank=2))
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False,
           name=None):
    """`tf.linalg.matmul`: (batched, broadcasting) matrix product of rank >= 2 tensors of one
    dtype (ints included). The sparsity hints and `grad_a`/`grad_b` are accepted and ignored."""
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    ta, tb = binary_operands(a, b)
    if type(ta) is not torch.Tensor or type(tb) is not torch.Tensor or ta.dtype is torch.bool:
        ta, tb = _tensor_pair(ta, tb, _is_numeric)
    if ta.ndim < 2 or tb.ndim < 2:
        raise errors.InvalidArgumentError(
            "Shape must be rank >= 2 for 'MatMul', got shapes %s and %s" % (
                format_shape(ta.shape), format_shape(tb.shape)))
    if transpose_a or adjoint_a:
        ta = ta.mH if adjoint_a else ta.mT
    if transpose_b or adjoint_b:
        tb = tb.mH if adjoint_b else tb.mT
    if ta.shape[-1] != tb.shape[-2]:
        raise _matrix_size_incompatible(ta.shape, tb.shape, isinstance(ta, FakeTensor))
    if output_type is not None:
        out = dtypes.as_dtype(output_type).torch_dtype
        ta, tb = ta.to(out), tb.to(out)
    if not ta.is_cpu and _is_integer(ta):
        return _run_binary(_int_matmul, ta, tb)
    return _run_binary(matmul_kernel.matmul, ta, tb)


@op("linalg.tensordot", "tensordot", graph_name="Tensordot")
def tensordot(a, b, axes, name=None):
    """`tf.tensordot`: `axes` is an int N (last N of a with first N of b), a pair of axis
    lists, or a pair of ints."""
    ta, tb = _tensor_pair(*binary_operands(a, b), _is_numeric)
    if is_tensor_value(axes) or isinstance(axes, np.ndarray):
        axes = to_torch(axes).tolist() if is_tensor_value(axes) else axes.tolist()
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError("'axes' must be at least 0, got %d" % axes)
        dims = axes
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        dims = ([axes[0]] if isinstance(axes[0], int) else list(axes[0]),
                [axes[1]] if isinstance(axes[1], int) else list(axes[1]))
        if len(dims[0]) != len(dims[1]):
            raise ValueError("Different number of contraction axes 'a' and 'b', %d != %d." % (
                len(dims[0]), len(dims[1])))
    else:
        raise ValueError("'axes' must be an integer or have length 2, got %r" % (axes,))
    _check_contracted_sizes(ta, tb, dims)
    return _run_binary(lambda x, y: torch.tensordot(x, y, dims), ta, tb)


def _check_contracted_sizes(ta, tb, dims):
    """TF's tensordot reshapes both operands to matrices and multiplies them: contracted
    sizes that differ fail there as MatMul's error, with the matrices' shapes."""
    if isinstance(dims, int):
        axes_a, axes_b = range(ta.ndim - dims, ta.ndim), range(dims)
    else:
        axes_a, axes_b = [a % ta.ndim for a in dims[0]], [b % tb.ndim for b in dims[1]]
    if [ta.shape[i] for i in axes_a] == [tb.shape[i] for i in axes_b]:
        return
    free_a = [i for i in range(ta.ndim) if i not in axes_a]
    free_b = [i for i in range(tb.ndim) if i not in axes_b]
    raise _matrix_size_incompatible(
        [_size_product(ta.shape, free_a), _size_product(ta.shape, axes_a)],
        [_size_product(tb.shape, axes_b), _size_product(tb.shape, free_b)],
        isinstance(ta, FakeTensor))


def _size_product(shape, axes):
    """The number of elements along `axes` of `shape`; None when one is unknown."""
    product = 1
    for axis in axes:
        if type(shape[axis]) is not int:
            return None
        product *= shape[axis]
    return product


@op("einsum", "linalg.einsum", graph_name="Einsum")
def einsum(equation, *inputs, **kwargs):
    """`tf.einsum(equation, *inputs)`: all inputs of one dtype; `name`/`optimize` ignored."""
    unknown = set(kwargs) - {"name", "optimize"}
    if unknown:
        raise TypeError("Invalid keyword arguments for einsum: %s" % ", ".join(sorted(unknown)))
    ts = same_dtype_tensors(list(inputs))
    try:
        return torch.einsum(equation.replace(" ", ""), *ts)
    except RuntimeError as e:
        raise errors.InvalidArgumentError("Einsum %r: %s" % (equation, e)) from None


# ---------------------------------------------------------------- operators on tf.Tensor


def _reflected_name(name):
    return "__r" + name[2:]


def _binary_operator(fn, name, reverse=False, fast=None, fast_dtypes=_REAL_DTYPES):
    """`Tensor.<name>`: the op `fn` on (self, other), or (other, self) when reflected.

    Like TF's binary_op_wrapper, when `other` cannot be converted but defines the reflected
    operator, that gives the result; otherwise the conversion error is raised.

    `fast(tensor, other)`: a torch function giving the op's exact result (`other op tensor`
    when reflected) where `other` is an eager tensor of the same dtype in `fast_dtypes`
    (never when reflected), or a Python int/float with a float tensor. That common case
    costs a few type checks over the torch call; everything else takes the op's own path.
    """
    impl, op_type = fn._tfcompat_impl, fn._tfcompat_op_type
    counterpart = name if reverse else _reflected_name(name)
    node_name = _OPERATOR_NODE_NAMES.get(name)

    def operator(self, other):
        if fast is not None and type(self) is EagerTensor and not _state.building_graph:
            a, cls = self._t, type(other)
            if cls is EagerTensor:
                b = other._t
                if a.dtype is b.dtype and a.dtype in fast_dtypes:
                    try:
                        return EagerTensor(fast(a, b))
                    except RuntimeError:
                        pass  # the general path below raises TF's error
            elif (cls is float or cls is int) and a.dtype in _FLOAT_DTYPES:
                return EagerTensor(fast(a, other))
            elif not reverse:
                read = getattr(other, "_tfcompat_tensor_", None)   # a variable
                b = read() if read is not None else None
                if b is not None and a.dtype is b.dtype and a.dtype in fast_dtypes:
                    try:
                        return EagerTensor(fast(a, b))
                    except RuntimeError:
                        pass
        if _state.building_graph:
            return fn(other, self, name=node_name) if reverse else fn(self, other,
                                                                       name=node_name)
        try:
            result = impl(other, self) if reverse else impl(self, other)
        except GraphTensorInEagerError:  # a Keras symbolic tensor: the op records it
            return fn(other, self, name=node_name) if reverse else fn(self, other,
                                                                       name=node_name)
        except (TypeError, ValueError) as error:
            errors.name_running_op(error, op_type)
            reflected = getattr(type(other), counterpart, None)
            if reverse or reflected is None or is_tensor_value(other):
                raise
            try:  # a tensor-aware right operand may implement the operator itself
                out = reflected(other, self)
            except (TypeError, ValueError):
                raise error from None
            if out is NotImplemented:
                raise error from None
            return out
        except Exception as error:      # noqa: BLE001 - named and re-raised
            errors.name_running_op(error, op_type)
            raise
        return EagerTensor(result)
    operator.__name__ = name if not reverse else _reflected_name(name)
    operator.__doc__ = "TF's operator: `tf.%s`." % fn.__name__
    return operator


def _logical_or_bitwise(logical, bitwise):
    """`&`, `|`, `^`: TF's logical op for bool tensors, its bitwise op for integers."""
    def pick(x, y, name=None):
        tx = to_torch(x) if is_tensor_value(x) else to_torch(y)
        if type(tx) is not np.ndarray and tx.dtype is torch.bool:
            return run_impl(logical, x, y)
        return run_impl(bitwise, x, y)
    pick.__name__ = logical.__name__
    return op(graph_name=logical._tfcompat_op_type)(pick)


def _invert(x, name=None):
    t = to_torch(x)
    if type(t) is not np.ndarray and t.dtype is torch.bool:
        return torch.logical_not(t)
    return run_impl(invert, t)


_invert = op(graph_name="Invert")(_invert)


def _unary_operator(fn, name):
    impl, op_type = fn._tfcompat_impl, fn._tfcompat_op_type

    def operator(self):
        if _state.building_graph:
            return fn(self)
        try:
            return EagerTensor(impl(self))
        except Exception as error:      # noqa: BLE001 - named and re-raised
            errors.name_running_op(error, op_type)
            raise
    operator.__name__ = name
    operator.__doc__ = "TF's operator: `tf.%s`." % fn.__name__
    return operator


@op(graph_name="Equal")
def _elementwise_equal(x, y):
    tx, ty = binary_operands(x, y)
    return _equal_arrays(tx, ty, torch.eq, False)


@op(graph_name="NotEqual")
def _elementwise_not_equal(x, y):
    tx, ty = binary_operands(x, y)
    return _equal_arrays(tx, ty, torch.ne, False)


def _comparison_operator(fn, identity_result):
    """`==` / `!=`: elementwise under TF2 behaviour (TF's tensor equality, which
    `enable_v2_behavior` / `disable_v2_behavior` switch) for eager tensors and tensors of a
    function being traced (incompatible shapes give a scalar False/True, None compares
    unequal); object identity otherwise, as TF1 and TF2's plain `tf.Graph`s compare tensors,
    which are hashable by id there."""
    def operator(self, other):
        if _api.flavor() != "v2" or not (type(self) is EagerTensor or getattr(
                getattr(self, "graph", None), "building_function", False)):
            return (self is other) is identity_result
        if other is None:
            return not identity_result
        try:
            return fn(self, other)
        except (TypeError, ValueError):
            return NotImplemented
    return operator


# operator -> (op, its fast torch function (see _binary_operator) and the dtypes where that
# is exact for two tensors, the fast function of the reflected operator)
_BINARY_OPERATORS = {
    "__add__": (add, torch.add, _REAL_DTYPES, torch.add),
    "__sub__": (subtract, torch.sub, _REAL_DTYPES, torch.rsub),
    "__mul__": (multiply, torch.mul, _REAL_DTYPES, torch.mul),
    "__truediv__": (truediv, torch.div, _FLOAT_DTYPES, None),
    "__floordiv__": (floordiv, None, None, None),
    "__mod__": (floormod, None, None, None),
    "__pow__": (pow, None, None, None),
    "__matmul__": (matmul, None, None, None),
    "__and__": (_logical_or_bitwise(logical_and, bitwise_and), None, None, None),
    "__or__": (_logical_or_bitwise(logical_or, bitwise_or), None, None, None),
    "__xor__": (_logical_or_bitwise(logical_xor, bitwise_xor), None, None, None),
}
# The node names TF's operators give in graphs (`a + b` is "add", where `tf.add` is "AddV2");
# comparisons are named by their op type, as in TF.
_OPERATOR_NODE_NAMES = {name: name[2:-2] for name in _BINARY_OPERATORS}
_COMPARISONS = {"__lt__": (less, torch.lt), "__le__": (less_equal, torch.le),
                "__gt__": (greater, torch.gt), "__ge__": (greater_equal, torch.ge)}


def overload_operators(cls):
    """Attach TF's operators to `cls` (`Tensor` here; variables reuse this)."""
    for name, (fn, fast, fast_dtypes, fast_reflected) in _BINARY_OPERATORS.items():
        setattr(cls, name, _binary_operator(fn, name, fast=fast, fast_dtypes=fast_dtypes))
        setattr(cls, _reflected_name(name), _binary_operator(
            fn, name, reverse=True, fast=fast_reflected, fast_dtypes=frozenset()))
    for name, (fn, fast) in _COMPARISONS.items():
        setattr(cls, name, _binary_operator(fn, name, fast=fast))
    cls.__neg__ = _unary_operator(negative, "__neg__")
    cls.__abs__ = _unary_operator(abs, "__abs__")
    cls.__invert__ = _unary_operator(_invert, "__invert__")
    cls.__eq__ = _comparison_operator(_elementwise_equal, True)
    cls.__ne__ = _comparison_operator(_elementwise_not_equal, False)


overload_operators(Tensor)
