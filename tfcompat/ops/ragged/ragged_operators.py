"""Python operators of RaggedTensor (TF's tensorflow/python/ops/ragged/ragged_operators.py).

Elementwise operators act on the flat values, as TF's ragged dispatch does when the
operands line up: a RaggedTensor with identical row splits (else InvalidArgumentError), a
scalar, or a dense tensor whose rank is at most that of the uniform inner dimensions (it
broadcasts against the flat values). Broadcasting a dense tensor across ragged dimensions
is not implemented. `==` / `!=` are elementwise under TF2 behaviour, identity under TF1.
"""
from tfcompat import _api
from tfcompat.framework import errors
from tfcompat.framework.ops import convert_to_tensor
from tfcompat.ops import math_ops
from tfcompat.ops.ragged.ragged_functional_ops import map_flat_values
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor


def _dense_operand(rt, other):
    """`other` as a tensor that broadcasts against `rt.flat_values` exactly as against `rt`."""
    if isinstance(other, (RaggedTensor, bool, int, float, complex)):
        return other        # Python scalars convert inside the op, as for a dense tensor
    tensor = convert_to_tensor(other, dtype_hint=rt.dtype)
    inner_rank = rt.flat_values.shape.rank - 1
    if tensor.shape.rank is None or tensor.shape.rank > inner_rank:
        raise NotImplementedError(
            "An operator between a RaggedTensor and a dense tensor of shape %s (broadcasting "
            "across ragged dimensions) is not implemented by tfcompat" % (tensor.shape,))
    return tensor


def _binary(fn, reflected=False):
    def operator(self, other):
        other = _dense_operand(self, other)
        return map_flat_values(fn, other, self) if reflected else \
            map_flat_values(fn, self, other)
    operator.__doc__ = "TF's operator: `tf.%s` on the flat values." % fn.__name__
    return operator


def _unary(fn):
    def operator(self):
        return map_flat_values(fn, self)
    operator.__doc__ = "TF's operator: `tf.%s` on the flat values." % fn.__name__
    return operator


def _equality(fn, identity_result):
    def operator(self, other):
        if _api.flavor() != "v2":
            return (self is other) is identity_result
        if other is None:
            return not identity_result
        try:
            return map_flat_values(fn, self, _dense_operand(self, other))
        except (TypeError, ValueError, NotImplementedError, errors.InvalidArgumentError):
            return NotImplemented
    return operator


_BINARY = {
    "add": math_ops.add, "sub": math_ops.subtract, "mul": math_ops.multiply,
    "truediv": math_ops.truediv, "floordiv": math_ops.floordiv, "mod": math_ops.floormod,
    "pow": math_ops.pow, "and": math_ops.logical_and, "or": math_ops.logical_or,
    "xor": math_ops.logical_xor,
}
for _name, _fn in _BINARY.items():
    setattr(RaggedTensor, "__%s__" % _name, _binary(_fn))
    setattr(RaggedTensor, "__r%s__" % _name, _binary(_fn, reflected=True))
for _name, _fn in {"lt": math_ops.less, "le": math_ops.less_equal, "gt": math_ops.greater,
                   "ge": math_ops.greater_equal}.items():
    setattr(RaggedTensor, "__%s__" % _name, _binary(_fn))
RaggedTensor.__neg__ = _unary(math_ops.negative)
RaggedTensor.__abs__ = _unary(math_ops.abs)
RaggedTensor.__invert__ = _unary(math_ops.logical_not)
RaggedTensor.__eq__ = _equality(math_ops.equal, True)
RaggedTensor.__ne__ = _equality(math_ops.not_equal, False)
RaggedTensor.__hash__ = object.__hash__
del _name, _fn
