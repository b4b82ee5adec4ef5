"""Elementwise TF ops on RaggedTensors (TF's tensorflow/python/ops/ragged/ragged_dispatch.py).

TF dispatches its unary and binary elementwise ops to the flat values when an argument is a
RaggedTensor: `tf.cast(rt, tf.int64)`, `tf.not_equal(rt[:, 1:], rt[:, :-1])`,
`tf.math.log(rt)`. Here the op's conversion fails on the RaggedTensor and the op decorator
hands the call to the handler registered for its TF op type
(`framework.ops.register_composite_ops`), so dense calls pay nothing. Operands line up as
for RaggedTensor's operators: identical row splits (else InvalidArgumentError), a scalar, or
a dense tensor broadcasting against the uniform inner dimensions.
"""
from tfcompat import _api
from tfcompat.framework.ops import register_composite_ops
from tfcompat.ops import math_ops, nn_ops  # noqa: F401  (register the ops looked up below)
from tfcompat.ops.ragged.ragged_functional_ops import map_flat_values
from tfcompat.ops.ragged.ragged_operators import _dense_operand
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor

# TF's _UNARY_ELEMENTWISE_OPS / _BINARY_ELEMENTWISE_OPS that tfcompat implements as @ops.
_UNARY_PATHS = (
    "math.abs", "math.acos", "math.acosh", "math.asin", "math.asinh", "math.atan",
    "math.atanh", "cast", "math.ceil", "math.cos", "math.cosh", "math.digamma", "math.erf",
    "math.erfc", "math.exp", "math.expm1", "math.floor", "math.is_finite", "math.is_inf",
    "math.is_nan", "math.lgamma", "math.log", "math.log1p", "math.log_sigmoid",
    "math.logical_not", "math.negative", "math.reciprocal", "math.rint", "math.round",
    "math.rsqrt", "math.sigmoid", "math.sign", "math.sin", "math.sinh", "math.softplus",
    "math.sqrt", "math.square", "math.tan", "math.tanh", "nn.relu", "nn.relu6", "nn.elu",
    "nn.selu", "nn.softsign", "identity", "zeros_like", "ones_like", "stop_gradient",
)
_BINARY_PATHS = (
    "math.add", "math.subtract", "math.multiply", "math.divide", "math.truediv",
    "math.floordiv", "math.floormod", "math.pow", "math.maximum", "math.minimum",
    "math.equal", "math.not_equal", "math.greater", "math.greater_equal", "math.less",
    "math.less_equal", "math.logical_and", "math.logical_or", "math.logical_xor",
    "math.squared_difference", "math.atan2", "math.divide_no_nan", "realdiv",
)
_BINARY_NAMES = (("x", "y"), ("a", "b"))


def _unary(op, args, kwargs):
    return map_flat_values(op, *args, **kwargs)


def _binary(op, args, kwargs):
    args, kwargs = list(args), dict(kwargs)
    operands = args[:2] + [kwargs[k] for pair in _BINARY_NAMES for k in pair if k in kwargs]
    ragged = next(value for value in operands if isinstance(value, RaggedTensor))
    args[:2] = [_dense_operand(ragged, value) for value in args[:2]]
    for pair in _BINARY_NAMES:
        for key in pair:
            if key in kwargs:
                kwargs[key] = _dense_operand(ragged, kwargs[key])
    return map_flat_values(op, *args, **kwargs)


def _op_types(paths):
    types = set()
    for path in paths:
        found = _api.lookup(path)
        if found is not None and getattr(found, "_tfcompat_op_type", None):
            types.add(found._tfcompat_op_type)
    return types


register_composite_ops(RaggedTensor, dict(
    [(op_type, _unary) for op_type in _op_types(_UNARY_PATHS)] +
    [(op_type, _binary) for op_type in _op_types(_BINARY_PATHS)]))
