"""Array ops: creation, shapes, joining/splitting, indexing, slicing and `Tensor.__getitem__`.

Each op is one torch function registered with `@op`. TF semantics kept: int32 shapes and
indices, negative axes, TF's error classes and messages. Shape-like arguments (`shape`,
`perm`, `begin`, `multiples`, ...) may be Python values or tensors; a tensor there is read
for its values. While a graph is built, shape tensors (`tf.shape(x)`, its slices, stacks and
concats, int constants) carry their possibly symbolic values (`constant_op.known_values`), so
`tf.reshape(x, [tf.shape(x)[0], -1])` gets TF's static shape `[None, ...]`; other tensor
values are unknown there.

String tensors (numpy object arrays) go through the data-movement ops (reshape, transpose,
concat, gather, slicing, ...) by running the torch op on int64 positions into the array.

Index validation that needs values (gather, scatter, one_hot's `depth` ...) runs only on
concrete tensors, not on the fake tensors of graph building or under torch.compile. On CUDA,
`gather`/`gather_nd` follow TF's GPU kernels (an out-of-range index gives zeros, no error).
"""
import builtins
import collections
import math
import numbers
import operator

import numpy as np
import torch
from torch._subclasses.fake_tensor import FakeTensor

from tfcompat._api import export_constant, tf_export
from tfcompat.framework import context, dtypes, errors
from tfcompat.framework.errors import format_shape
from tfcompat.framework.constant_op import known_values, with_values
from tfcompat.framework.ops import binary_operands, is_tensor_value, op, same_dtype_tensors, \
    to_torch, variable_snapshot
from tfcompat.framework.tensor import Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.util import dispatch

newaxis = export_constant(None, "newaxis")

# ---------------------------------------------------------------- helpers


def _is_tensor(value):
    return isinstance(value, torch.Tensor) or is_tensor_value(value)


def _concrete(t):
    """True when `t` holds values (not a fake tensor of graph building, not compiling)."""
    return not isinstance(t, FakeTensor) and not torch.compiler.is_compiling()


def _as_int(value):
    """A Python int (or symbolic int) from an int, numpy integer, Dimension or 1-element tensor."""
    if type(value) is int:
        return value
    if _is_tensor(value):
        t = to_torch(value)
        if t.is_floating_point() or t.is_complex() or t.dtype == torch.bool:
            raise TypeError("Expected an int32/int64 value, got a %s tensor"
                            % dtypes.from_torch(t.dtype).name)
        known = known_values(t)
        if known is not None and len(known) == 1:
            return known[0]
        return t.reshape(-1)[0].item() if t.numel() == 1 else _not_scalar(t)
    if isinstance(value, np.ndarray):
        return operator.index(value.reshape(-1)[0]) if value.size == 1 else _not_scalar(value)
    if isinstance(value, (list, tuple)) and len(value) == 1:  # TF takes [axis] for axis
        return _as_int(value[0])
    if value is None or getattr(value, "value", 0) is None:
        raise ValueError("Cannot use an unknown dimension (None) here; give a known size")
    return operator.index(value)


def _not_scalar(value):
    raise errors.InvalidArgumentError("Expected a scalar, got a value of shape %s"
                                      % (format_shape(value.shape),))


def _as_ints(value):
    """A shape-like value (list, tuple, TensorShape, 1-D tensor, int) -> list of ints."""
    if hasattr(value, "as_list"):
        value = value.as_list()
    if isinstance(value, (list, tuple)):  # nested lists (paddings, crops) are flattened
        return [i for v in value for i in (_as_ints(v) if isinstance(v, (list, tuple))
                                           else [_as_int(v)])]
    if _is_tensor(value):
        t = to_torch(value)
        if t.is_floating_point() or t.dtype == torch.bool:
            raise TypeError("Expected an int32/int64 shape, got a %s tensor"
                            % dtypes.from_torch(t.dtype).name)
        known = known_values(t)
        return list(known) if known is not None else t.reshape(-1).tolist()
    if isinstance(value, np.ndarray):
        return [operator.index(v) for v in value.reshape(-1)]
    return [_as_int(value)]


def _values_of(items):
    """The flat known values of a list of shape pieces (ints, lists, value-carrying fake
    tensors), for `with_values`; None when any piece is unknown."""
    out = []
    for item in items:
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            out.append(int(item))
        elif isinstance(item, (list, tuple)):
            sub = _values_of(item)
            if sub is None:
                return None
            out.extend(sub)
        elif known_values(item) is not None:
            out.extend(known_values(item))
        else:
            return None
    return out


def _axis(axis, rank, extra=0, op_name=errors.RUNNING_OP):
    """Normalize `axis` into [0, rank + extra); TF's InvalidArgumentError otherwise, naming
    `op_name` (by default the op being run)."""
    a = _as_int(axis)
    limit = rank + extra
    if not -limit <= a < limit:
        raise errors.InvalidArgumentError(
            "%s: Expected axis in the range [%d, %d), but got %d (the tensor has rank %d)"
            % (op_name, -limit, limit, a, rank))
    return a + limit if a < 0 else a


def _dtype(dtype, default=None):
    return default if dtype is None else dtypes.as_dtype(dtype)


def _movable(t):
    """A string array -> (int64 positions shaped like it, flat array); torch -> (t, None)."""
    if isinstance(t, np.ndarray):
        return torch.arange(t.size).reshape(t.shape), t.reshape(-1)
    return t, None


def _movable_many(ts):
    if not any(isinstance(t, np.ndarray) for t in ts):
        return ts, None
    positions, offset = [], 0
    for t in ts:
        positions.append(torch.arange(offset, offset + t.size).reshape(t.shape))
        offset += t.size
    return positions, np.concatenate([t.reshape(-1) for t in ts]) if ts else None


def _restore(result, table):
    """Map positions back to strings (results of a data-movement op on `_movable` input)."""
    if table is None:
        return result
    if isinstance(result, (list, tuple)):
        return type(result)(_restore(r, table) for r in result)
    if isinstance(result, FakeTensor):  # building a graph: only the shape matters
        return np.full(tuple(int(d) for d in result.shape), b"0", dtype=object)
    out = np.empty(tuple(result.shape), dtype=object)
    out[...] = table[result.numpy()] if result.ndim else table[int(result)]
    return out


def _check_range(indices, limit, what):
    """Raise TF's error for the first index outside [0, limit) (concrete tensors only)."""
    if not _concrete(indices) or indices.numel() == 0:
        return
    low, high = torch.aminmax(indices)
    if low.item() < 0 or high.item() >= limit:
        bad = (indices < 0) | (indices >= limit)
        position = np.unravel_index(int(bad.reshape(-1).nonzero()[0, 0]), tuple(bad.shape))
        raise errors.InvalidArgumentError(
            "{op}: %s[%s] = %d is not in [0, %d)" % (
                what, ",".join(str(int(p)) for p in position),
                int(indices[position]), limit))


def _same_device(ts):
    """Move tensors to the first one's device (Python values convert on the default device)."""
    device = ts[0].device
    return [t if t.device == device else t.to(device) for t in ts]


# ---------------------------------------------------------------- creation


def _new_full(shape, value, dtype):
    if dtype is dtypes.string:
        return np.full(shape, value if isinstance(value, bytes) else b"", dtype=object)
    return torch.full(shape, value, dtype=dtype.torch_dtype, device=context.current_device())


@op("zeros", graph_name="Zeros")
def zeros(shape, dtype=dtypes.float32, name=None):
    """`tf.zeros`; float32 by default, on the current device."""
    return _new_full(_as_ints(shape), 0, dtypes.as_dtype(dtype))


@op("ones", graph_name="Ones")
def ones(shape, dtype=dtypes.float32, name=None):
    """`tf.ones`; float32 by default, on the current device."""
    dtype = dtypes.as_dtype(dtype)
    if dtype is dtypes.string:
        raise TypeError("tf.ones does not support dtype string")
    return _new_full(_as_ints(shape), 1, dtype)


@op("fill", graph_name="Fill")
def fill(dims, value, name=None):
    """`tf.fill`: dtype of `value` (Python ints int32, floats float32); gradient flows to it."""
    shape = _as_ints(dims)
    v = to_torch(value)
    if v.ndim != 0:
        raise errors.InvalidArgumentError("value must be a scalar, got shape %s"
                                          % format_shape(v.shape))
    if isinstance(v, np.ndarray):
        return np.full(shape, v[()], dtype=object)
    return v.expand(shape).clone()


def _like(value, dtype, fill_value):
    t = to_torch(value)
    dtype = _dtype(dtype)
    if isinstance(t, np.ndarray) or dtype is dtypes.string:
        if fill_value:
            raise TypeError("ones_like does not support string tensors")
        return np.full(t.shape, b"", dtype=object)
    torch_dtype = t.dtype if dtype is None else dtype.torch_dtype
    return torch.full(t.shape, fill_value, dtype=torch_dtype, device=t.device)


@op(v1=["zeros_like"], graph_name="ZerosLike")
def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """TF1 `tf.zeros_like`: zeros with the shape (and dtype, unless given) of `tensor`."""
    return _like(tensor, dtype, 0)


@op(v2=["zeros_like"], graph_name="ZerosLike")
def zeros_like_v2(input, dtype=None, name=None):  # noqa: A002 - TF's name
    """TF2 `tf.zeros_like(input, dtype)`."""
    return _like(input, dtype, 0)


@op(v1=["ones_like"], graph_name="OnesLike")
def ones_like(tensor, dtype=None, name=None, optimize=True):
    """TF1 `tf.ones_like`: ones with the shape (and dtype, unless given) of `tensor`."""
    return _like(tensor, dtype, 1)


@op(v2=["ones_like"], graph_name="OnesLike")
def ones_like_v2(input, dtype=None, name=None):  # noqa: A002 - TF's name
    """TF2 `tf.ones_like(input, dtype)`."""
    return _like(input, dtype, 1)


_RANGE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


@op("range", graph_name="Range")
def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF's name
    """`tf.range(limit)` / `tf.range(start, limit, delta, dtype)`.

    Without `dtype` the widest of the arguments' dtypes (int32 < int64 < float32 < float64).
    Tensor arguments are read for their values (the output size depends on them).
    """
    if limit is None:
        start, limit = 0, start
    args = [to_torch(a) for a in (start, limit, delta)]
    if dtype is None:
        found = [dtypes.from_torch(a.dtype) for a in args]
        dtype = max(found, key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else 0)
    dtype = dtypes.as_dtype(dtype)
    fed = [a for a in args if isinstance(a, FakeTensor) and not known_values(a) and
           a.constant is None]
    if fed:     # a graph's fed scalar: the length is known, and checked, when the op runs
        size = fed[0].fake_mode.shape_env.create_unbacked_symint()
        return torch.empty(size, dtype=dtype.torch_dtype, device=context.current_device())
    s, l, d = (known_values(a)[0] if known_values(a) else a.item() for a in args)
    if dtype.is_integer:  # (symbolic sizes stay symbolic: int() would pin them)
        s, l, d = (v if isinstance(v, (int, torch.SymInt)) else int(v) for v in (s, l, d))
    if d == 0:
        raise errors.InvalidArgumentError("Requires delta != 0: %s" % d)
    if (d > 0 and s > l) or (d < 0 and s < l):
        raise errors.InvalidArgumentError(
            "Requires start %s limit when delta %s 0: %s/%s" % (
                "<=" if d > 0 else ">=", ">" if d > 0 else "<", s, l))
    return torch.arange(s, l, d, dtype=dtype.torch_dtype, device=context.current_device())


@op("linspace", v1=["lin_space"], graph_name="LinSpace")
def linspace(start, stop, num, name=None, axis=0):
    """`tf.linspace`: `num` values from `start` to `stop` inclusive (the last is `stop`
    exactly); N-D `start`/`stop` broadcast and the new axis goes at `axis` (TF2).
    Integer bounds give float64 (float32 for 8/16-bit integers), as TF2's truediv-based
    linspace does; TF 1.15's LinSpace kernel rejected them, here both versions accept them."""
    start, stop = binary_operands(start, stop)
    if start.dtype is torch.bool:
        raise errors.InvalidArgumentError("{op}: start and stop must be numbers, got bool")
    if not (start.is_floating_point() or start.is_complex()):
        small = start.dtype in (torch.int8, torch.int16, torch.uint8)
        start = start.to(torch.float32 if small else torch.float64)
    stop = torch.as_tensor(stop, dtype=start.dtype, device=start.device)
    start, stop = torch.broadcast_tensors(start, stop)
    n = _as_int(num)
    if n <= 0:
        raise errors.InvalidArgumentError("Requires num > 0: %d" % n)
    first, last = start.unsqueeze(-1), stop.unsqueeze(-1)
    if n == 1:
        out = first
    else:
        step = (last - first) / (n - 1)
        middle = first + torch.arange(1, n - 1, dtype=start.dtype, device=start.device) * step
        out = torch.cat([first, middle, last], dim=-1)
    return out.movedim(-1, _axis(axis, start.ndim, extra=1))


@op("identity", graph_name="Identity")
def identity(input, name=None):  # noqa: A002 - TF's name
    """`tf.identity`: a copy of the value (a variable is read at this point)."""
    t = to_torch(input)
    return t.copy() if isinstance(t, np.ndarray) else t.clone()


@op("identity_n", graph_name="IdentityN")
def identity_n(input, name=None):  # noqa: A002 - TF's name
    """`tf.identity_n`: `identity` of each tensor of a list."""
    return [identity._tfcompat_impl(v) for v in input]


@op("stop_gradient", graph_name="StopGradient")
def stop_gradient(input, name=None):  # noqa: A002 - TF's name
    """`tf.stop_gradient`: the value, detached from autograd."""
    t = to_torch(input)
    return variable_snapshot(input, t if isinstance(t, np.ndarray) else t.detach())


# ---------------------------------------------------------------- shapes


def _out_type(out_type):
    dtype = dtypes.as_dtype(out_type)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError("out_type must be int32 or int64, got %s" % dtype.name)
    return dtype.torch_dtype


def _size_tensor(values, shape, dtype, device):
    """An int tensor of sizes. Symbolic sizes (graph building) would be pinned to their
    example values by `torch.tensor`; the contents of a fake tensor do not matter, so an
    empty one carries them instead (`with_values`). Under torch.compile / torch.export the
    tensor is a value of the program: built from the symbolic sizes (and carrying them)."""
    if any(isinstance(v, torch.SymInt) for v in values) and torch.compiler.is_compiling():
        out = torch.stack([torch.scalar_tensor(v, dtype=dtype, device=device)
                           for v in values]).reshape(shape)
    elif any(isinstance(v, torch.SymInt) for v in values):
        out = torch.empty(shape, dtype=dtype, device=device)
    else:
        out = torch.tensor(values, dtype=dtype, device=device).reshape(shape)
    return with_values(out, values)


def _shape_tensor(t, out_type):
    device = torch.device("cpu") if isinstance(t, np.ndarray) else t.device
    return _size_tensor(list(t.shape), (t.ndim,), _out_type(out_type), device)


@tf_export(v2=["shape"])
@dispatch.add_dispatch_support
@op(graph_name="Shape")
def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002 - TF's name
    """TF2 `tf.shape`: the dynamic shape as a 1-D int32 (or int64) tensor.

    It lives on the input's device (TF keeps it in host memory; torch mixes devices less).
    """
    return _shape_tensor(to_torch(input), out_type)


@tf_export(v1=["shape"])
@dispatch.add_dispatch_support
@op(graph_name="Shape")
def shape_v1(input, name=None, out_type=dtypes.int32):  # noqa: A002 - TF's name
    """TF1 `tf.shape(input, name, out_type)`."""
    return _shape_tensor(to_torch(input), out_type)


@op("shape_n", graph_name="ShapeN")
def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002 - TF's name
    """`tf.shape_n`: the shapes of a list of tensors."""
    return [_shape_tensor(to_torch(v), out_type) for v in input]


def _size(t, out_type):
    device = torch.device("cpu") if isinstance(t, np.ndarray) else t.device
    count = int(np.prod(t.shape)) if isinstance(t, np.ndarray) else t.numel()
    return _size_tensor([count], (), _out_type(out_type), device)


@op(v2=["size"], graph_name="Size")
def size(input, out_type=dtypes.int32, name=None):  # noqa: A002 - TF's name
    """TF2 `tf.size`: the number of elements, an int32 scalar."""
    return _size(to_torch(input), out_type)


@op(v1=["size"], graph_name="Size")
def size_v1(input, name=None, out_type=dtypes.int32):  # noqa: A002 - TF's name
    """TF1 `tf.size(input, name, out_type)`."""
    return _size(to_torch(input), out_type)


@op("rank", graph_name="Rank")
def rank(input, name=None):  # noqa: A002 - TF's name
    """`tf.rank`: the number of dimensions, an int32 scalar."""
    t = to_torch(input)
    device = torch.device("cpu") if isinstance(t, np.ndarray) else t.device
    return _size_tensor([t.ndim], (), torch.int32, device)


def _reshape_target(t, target):
    """`target` with its -1 resolved for reshaping `t`; TF's errors for sizes that cannot fit."""
    count = t.numel()
    unknown = [i for i, d in enumerate(target) if d == -1]
    if len(unknown) > 1:
        raise errors.InvalidArgumentError("Only one input size may be -1, not both %d and %d"
                                          % (unknown[0], unknown[1]))
    bad = [d for d in target if d < -1]
    if bad:
        raise errors.InvalidArgumentError("Size %d must be non-negative, not %d"
                                          % (target.index(bad[0]), bad[0]))
    known = 1
    for d in target:
        if d != -1:
            known *= d
    if unknown:
        if known == 0 or count % known:
            raise errors.InvalidArgumentError(
                "Input to reshape is a tensor with %d values, but the requested shape "
                "requires a multiple of %d" % (count, known))
        target = list(target)
        target[unknown[0]] = count // known
    elif known != count:
        raise _reshape_mismatch(t, target, known)
    return target


def _reshape_mismatch(t, target, known):
    """TF's error for a reshape to `target` (no -1; `known` elements) of a tensor of another
    size. While a graph is built (`t` fake) it is the shape function's: "Cannot reshape a
    tensor with 6 elements to shape [5,7] (35 elements)", or, when `t` has unknown dims,
    "Dimension size must be evenly divisible by 3 but is 35" (3: its known dims' product)."""
    if not isinstance(t, FakeTensor):
        return errors.InvalidArgumentError(
            "Input to reshape is a tensor with %d values, but the requested shape has %d"
            % (t.numel(), known))
    known_dims = [d for d in t.shape if type(d) is int]
    if len(known_dims) == t.ndim:
        return errors.InvalidArgumentError(
            "Cannot reshape a tensor with %d elements to shape %s (%d elements)"
            % (t.numel(), format_shape(target), known))
    return errors.InvalidArgumentError(
        "Dimension size must be evenly divisible by %d but is %d"
        % (math.prod(known_dims), known))


@op("reshape", v1=["manip.reshape"], graph_name="Reshape")
def reshape(tensor, shape, name=None):
    """`tf.reshape`; one -1 is inferred; `shape` may be a tensor (`tf.shape(y)`)."""
    t, table = _movable(to_torch(tensor))
    target = _as_ints(shape)
    if _fits_unknown_dims(t, target):
        return t.new_empty(target)
    target = _reshape_target(t, target)
    return variable_snapshot(tensor, _restore(t.reshape(target), table))


def _fits_unknown_dims(t, target):
    """True while a graph is built when `t` has unknown dims and `target` (no -1) may hold
    its elements: TF's shape function then only checks that the target's size is a multiple
    of `t`'s known dims (reshape of a [?, 1] input to [] passes; a batch of 1 fits)."""
    if not isinstance(t, FakeTensor) or -1 in target or all(type(d) is int for d in t.shape):
        return False
    known = math.prod(d for d in t.shape if type(d) is int)
    return known != 0 and all(d >= 0 for d in target) and math.prod(target) % known == 0


@op("expand_dims", graph_name="ExpandDims")
def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002 - TF's name
    """`tf.expand_dims`; `dim` is TF1's deprecated name for `axis`."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    t, table = _movable(to_torch(input))
    a = _as_int(axis)
    if not -t.ndim - 1 <= a <= t.ndim:
        raise errors.InvalidArgumentError(
            "Tried to expand dim index %d for tensor with %d dimensions." % (a, t.ndim))
    return variable_snapshot(input, _restore(t.unsqueeze(a), table))


@op("squeeze", graph_name="Squeeze")
def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002 - TF's name
    """`tf.squeeze`; `squeeze_dims` is TF1's deprecated name for `axis`."""
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'")
        axis = squeeze_dims
    t, table = _movable(to_torch(input))
    if axis is None:
        dims = [i for i, d in enumerate(t.shape) if d == 1]
    else:
        dims = sorted({_axis(a, t.ndim) for a in _as_ints(axis)})
        for d in dims:
            if t.shape[d] != 1:
                raise errors.InvalidArgumentError(
                    "Can not squeeze dim[%d], expected a dimension of 1, got %d"
                    % (d, t.shape[d]))
    out = t.reshape([s for i, s in enumerate(t.shape) if i not in dims])
    return variable_snapshot(input, _restore(out, table))


def _transpose(a, perm, conjugate):
    t, table = _movable(to_torch(a))
    if perm is None:
        order = list(builtins.range(t.ndim - 1, -1, -1))
    else:
        order = _as_ints(perm)
        if len(order) != t.ndim:
            raise errors.InvalidArgumentError(
                "transpose expects a vector of size %d. But input(1) is a vector of size %d"
                % (t.ndim, len(order)))
        for d in order:
            if not 0 <= d < t.ndim:
                raise errors.InvalidArgumentError("%d is out of range [0 .. %d)" % (d, t.ndim))
        if len(set(order)) != len(order):
            missing = sorted(set(builtins.range(t.ndim)) - set(order))
            raise errors.InvalidArgumentError("%d is missing from {%s}." % (
                missing[0], ",".join(str(d) for d in order)))
    out = t.permute(order)
    if conjugate and out.is_complex():
        out = out.conj().resolve_conj()
    return variable_snapshot(a, _restore(out, table))


@op(v2=["transpose"], graph_name="Transpose")
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """TF2 `tf.transpose`: `perm` defaults to reversing the axes."""
    return _transpose(a, perm, conjugate)


@op(v1=["transpose"], graph_name="Transpose")
def transpose_v1(a, perm=None, name="transpose", conjugate=False):
    """TF1 `tf.transpose(a, perm, name, conjugate)`."""
    return _transpose(a, perm, conjugate)


@op("broadcast_to", graph_name="BroadcastTo")
def broadcast_to(input, shape, name=None):  # noqa: A002 - TF's name
    """`tf.broadcast_to`; incompatible shapes raise InvalidArgumentError."""
    t = to_torch(input)
    target = _as_ints(shape)
    if len(target) < t.ndim or any(s != 1 and s != d for s, d in
                                   zip(reversed(t.shape), reversed(target))):
        raise errors.InvalidArgumentError(
            "Unable to broadcast tensor of shape %s to tensor of shape %s"
            % (format_shape(t.shape), format_shape(target)))
    return t.expand(target).clone()


@op("broadcast_dynamic_shape", graph_name="BroadcastArgs")
def broadcast_dynamic_shape(shape_x, shape_y):
    """`tf.broadcast_dynamic_shape`: the broadcast of two shape vectors (their dtype)."""
    x, y = binary_operands(shape_x, shape_y)
    try:
        out = torch.broadcast_shapes(tuple(x.tolist()), tuple(y.tolist()))
    except RuntimeError:
        raise errors.InvalidArgumentError("Incompatible shapes: %s vs. %s" % (
            format_shape(x.tolist()), format_shape(y.tolist()))) from None
    return _size_tensor(list(out), (len(out),), x.dtype, x.device)


@tf_export("broadcast_static_shape")
def broadcast_static_shape(shape_x, shape_y):
    """`tf.broadcast_static_shape`: broadcast two `TensorShape`s (unknown dims stay None)."""
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    xs, ys = x.as_list(), y.as_list()
    n = max(len(xs), len(ys))
    xs, ys = [1] * (n - len(xs)) + xs, [1] * (n - len(ys)) + ys
    out = []
    for a, b in zip(xs, ys):
        if a == 1 or a == b:
            out.append(b)
        elif b == 1:
            out.append(a)
        elif a is None or b is None:
            out.append(a if b is None else b)
        else:
            raise ValueError("Incompatible shapes for broadcasting: %s and %s" % (x, y))
    return TensorShape(out)


@op("ensure_shape", graph_name="EnsureShape")
def ensure_shape(x, shape, name=None):
    """`tf.ensure_shape`: `x` unchanged if its shape matches `shape` (None dims match all)."""
    t = to_torch(x)
    expected = TensorShape(shape)
    if not TensorShape(list(t.shape)).is_compatible_with(expected):
        raise errors.InvalidArgumentError(
            "Shape of tensor x %s is not compatible with expected shape %s." % (
                format_shape(t.shape), "<unknown>" if expected.rank is None
                else format_shape(expected.as_list())))
    return variable_snapshot(x, t)


# ---------------------------------------------------------------- joining and splitting


@tf_export("concat")
@dispatch.add_dispatch_support
@op(graph_name="ConcatV2")
def concat(values, axis, name="concat"):
    """`tf.concat(values, axis)` (the TF 1.0+ argument order)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    ts = same_dtype_tensors(list(values))
    if not ts:
        raise ValueError("tf.concat needs at least one value")
    ts, table = _movable_many(ts)
    ts = _same_device(ts)
    rank = ts[0].ndim
    if rank == 0:
        raise errors.InvalidArgumentError(
            "ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    a = _as_int(axis)
    if not -rank <= a < rank:
        raise errors.InvalidArgumentError(
            "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %d"
            % (-rank, rank, a))
    a = a + rank if a < 0 else a
    for i, t in enumerate(ts[1:], 1):
        if t.ndim != rank:
            raise errors.InvalidArgumentError(
                "ConcatOp : Ranks of all input tensors should match: shape[0] = %s vs. "
                "shape[%d] = %s" % (format_shape(ts[0].shape), i, format_shape(t.shape)))
        for d in builtins.range(rank):
            if d != a and t.shape[d] != ts[0].shape[d]:
                raise errors.InvalidArgumentError(
                    "ConcatOp : Dimension %d in both shapes must be equal: shape[0] = %s vs. "
                    "shape[%d] = %s" % (d, format_shape(ts[0].shape), i, format_shape(t.shape)))
    out = torch.cat(ts, a)
    return _restore(with_values(out, _values_of(values) if out.ndim == 1 else None), table)


@tf_export("stack")
@dispatch.add_dispatch_support
@op(graph_name="Pack")
def stack(values, axis=0, name="stack"):
    """`tf.stack`: all values must have one shape; `axis` in [-(R+1), R+1) (ValueError)."""
    ts = same_dtype_tensors(list(values))
    if not ts:
        raise ValueError("tf.stack needs at least one value")
    ts, table = _movable_many(ts)
    ts = _same_device(ts)
    expanded = ts[0].ndim + 1
    a = _as_int(axis)
    if not -expanded <= a < expanded:
        raise ValueError("Argument `axis` = %d not in range [%d, %d)" % (a, -expanded, expanded))
    for i, t in enumerate(ts[1:], 1):
        if t.shape != ts[0].shape:
            raise errors.InvalidArgumentError(
                "Shapes of all inputs must match: values[0].shape = %s != values[%d].shape = %s"
                % (format_shape(ts[0].shape), i, format_shape(t.shape)))
    out = torch.stack(ts, a)
    return _restore(with_values(out, _values_of(values) if a in (0, -expanded) else None),
                    table)


@op("unstack", graph_name="Unpack")
def unstack(value, num=None, axis=0, name="unstack"):
    """`tf.unstack`: a list of the slices along `axis`; `num` must match that dimension."""
    t, table = _movable(to_torch(value))
    if t.ndim == 0:
        raise ValueError("Input shape must have rank at least 1, got a scalar")
    a = _axis(axis, t.ndim)
    if num is None and isinstance(t.shape[a], torch.SymInt):
        # a graph tensor whose dim is unknown (TF reads it from the static shape)
        raise ValueError("Cannot infer argument `num` from shape %s" % format_shape(
            [d if isinstance(d, int) else None for d in t.shape]))
    if num is not None and _as_int(num) != t.shape[a]:
        raise errors.InvalidArgumentError(
            "Input shape axis %d must equal %d, got shape %s"
            % (a, _as_int(num), format_shape(t.shape)))
    return variable_snapshot(value, _restore(list(torch.unbind(t, a)), table))


@op("split", graph_name="SplitV")
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """`tf.split`: into N equal parts (int) or parts of given sizes (one may be -1)."""
    t, table = _movable(to_torch(value))
    a = _axis(axis, t.ndim, op_name="Split")
    dim = t.shape[a]
    sizes_arg = num_or_size_splits
    scalar = isinstance(sizes_arg, (int, np.integer)) or (
        _is_tensor(sizes_arg) and to_torch(sizes_arg).ndim == 0)
    if scalar:
        n = _as_int(sizes_arg)
        if n <= 0 or dim % n:
            raise errors.InvalidArgumentError(
                "Number of ways to split should evenly divide the split dimension, but got "
                "split_dim %d (size = %d) and num_split %d" % (a, dim, n))
        sizes = [dim // n] * n
    else:
        sizes = _as_ints(sizes_arg)
        if num is not None and _as_int(num) != len(sizes):
            raise ValueError("num=%s does not match the %d sizes given" % (num, len(sizes)))
        unknown = [i for i, s in enumerate(sizes) if s == -1]
        known = sum(s for s in sizes if s != -1)
        if len(unknown) > 1:
            raise errors.InvalidArgumentError(
                "There can only be one -1 in the input size_splits")
        if unknown and known <= dim:
            sizes[unknown[0]] = dim - known
        if any(s < 0 for s in sizes) or sum(sizes) != dim:
            raise errors.InvalidArgumentError(
                "Determined shape must either match input shape along split_dim exactly if "
                "fully specified, or be less than the size of the input along split_dim if not "
                "fully specified.  Got: %d (sizes %s, split_dim size %d)"
                % (sum(sizes), sizes, dim))
    return variable_snapshot(value, _restore(list(torch.split(t, sizes, a)), table))


@op("tile", v1=["manip.tile"], graph_name="Tile")
def tile(input, multiples, name=None):  # noqa: A002 - TF's name
    """`tf.tile`: `multiples` has one non-negative entry per dimension."""
    t, table = _movable(to_torch(input))
    reps = _as_ints(multiples)
    if len(reps) != t.ndim:
        raise errors.InvalidArgumentError(
            "Expected multiples argument to be a vector of length %d but got length %d"
            % (t.ndim, len(reps)))
    if any(r < 0 for r in reps):
        raise errors.InvalidArgumentError("Expected multiples[i] >= 0, but got %s" % reps)
    return _restore(t.repeat(reps) if reps else t.clone(), table)


def _reflect_index(n, before, after, symmetric, device):
    base = torch.arange(n, device=device)
    if symmetric:
        left, right = base[:before].flip(0), base[n - after:].flip(0)
    else:
        left, right = base[1:before + 1].flip(0), base[n - 1 - after:n - 1].flip(0)
    return torch.cat([left, base, right])


def constant_pad(t, pairs, value):
    """`t` padded with `value` (a number, or a scalar tensor) by non-negative
    (before, after) `pairs` for its last len(pairs) dims.

    A number pads by `torch.constant_pad_nd`, whose gradient is a crop of the incoming one:
    a slice assigned into a filled tensor made autograd copy the whole padded gradient and
    clone the crop into the NCHW layout, which made later elementwise ops with it mix
    layouts (an add 9x slower). A tensor value, or a symbolic size (a graph being built,
    where constant_pad_nd would fix the size to its example value), takes the filled
    tensor; a graph's runs then pad with constant_pad_nd.
    """
    if not isinstance(value, torch.Tensor) and \
            not any(isinstance(size, torch.SymInt) for size in t.shape):
        return torch.constant_pad_nd(
            t, [p for before, after in reversed(pairs) for p in (before, after)], value)
    lead = t.ndim - len(pairs)
    shape = list(t.shape[:lead]) + [size + before + after for size, (before, after)
                                    in zip(t.shape[lead:], pairs)]
    out = torch.as_tensor(value, dtype=t.dtype, device=t.device).expand(shape).clone()
    out[(builtins.slice(None),) * lead + tuple(
        builtins.slice(before, before + size)
        for size, (before, _) in zip(t.shape[lead:], pairs))] = t
    return out


def _pad(tensor, paddings, mode, constant_values):
    t = to_torch(tensor)
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError("Value of argument `mode` expected to be one of \"CONSTANT\", "
                         "\"REFLECT\", or \"SYMMETRIC\". Received `mode` = %s" % mode)
    pads = _as_ints(paddings)
    if len(pads) != 2 * t.ndim:
        raise errors.InvalidArgumentError(
            "The first dimension of paddings must be the rank of inputs[%d], got %d values"
            % (t.ndim, len(pads)))
    pairs = [(pads[2 * i], pads[2 * i + 1]) for i in builtins.range(t.ndim)]
    if any(p < 0 for p in pads):
        raise errors.InvalidArgumentError("Paddings must be non-negative: %s" % pairs)
    if mode == "CONSTANT":
        if isinstance(t, np.ndarray):
            no_value = isinstance(constant_values, int) and constant_values == 0
            fill_value = b"" if no_value else to_torch(constant_values, dtypes.string)[()]
            out = np.full([n + a + b for n, (a, b) in zip(t.shape, pairs)], fill_value,
                          dtype=object)
            out[tuple(builtins.slice(a, a + n) for n, (a, _) in zip(t.shape, pairs))] = t
            return out
        fill_value = to_torch(constant_values, dtypes.from_torch(t.dtype))
        return constant_pad(t, pairs, fill_value.item() if isinstance(
            constant_values, (numbers.Number, np.generic)) else fill_value)
    t, table = _movable(t)
    symmetric = mode == "SYMMETRIC"
    for d, (before, after) in enumerate(pairs):
        limit = t.shape[d] if symmetric else t.shape[d] - 1
        if before > limit or after > limit:
            raise errors.InvalidArgumentError(
                "paddings must be no greater than the dimension size: %d, %d greater than %d"
                % (before, after, limit))
        if before or after:
            t = t.index_select(d, _reflect_index(t.shape[d], before, after, symmetric, t.device))
    return _restore(t, table)


@op(v2=["pad"], graph_name="Pad")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """TF2 `tf.pad`: modes CONSTANT (with `constant_values`), REFLECT, SYMMETRIC."""
    return _pad(tensor, paddings, mode, constant_values)


@op(v1=["pad"], graph_name="Pad")
def pad_v1(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """TF1 `tf.pad(tensor, paddings, mode, name, constant_values)`."""
    return _pad(tensor, paddings, mode, constant_values)


@op("reverse", v1=["reverse_v2", "manip.reverse"], graph_name="ReverseV2")
def reverse(tensor, axis, name=None):
    """`tf.reverse(tensor, axis)`: reverse along the listed axes (TF1's v2 form too)."""
    t, table = _movable(to_torch(tensor))
    dims = [_axis(a, t.ndim) for a in _as_ints(axis)]
    if len(set(dims)) != len(dims):
        raise errors.InvalidArgumentError("axis %s specified more than once" % dims)
    return _restore(t.flip(dims) if dims else t.clone(), table)


@op("reverse_sequence", graph_name="ReverseSequence")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None,  # noqa: A002
                     name=None, seq_dim=None, batch_dim=None):
    """`tf.reverse_sequence`: reverse the first `seq_lengths[b]` entries along `seq_axis` of
    each batch entry `b`; `seq_dim`/`batch_dim` are TF1's names (batch axis defaults to 0)."""
    seq_axis = seq_axis if seq_axis is not None else seq_dim
    batch_axis = batch_axis if batch_axis is not None else (batch_dim or 0)
    if seq_axis is None:
        raise ValueError("reverse_sequence needs seq_axis")
    t, table = _movable(to_torch(input))
    lengths = to_torch(seq_lengths).to(t.device).long()
    s_ax = _axis(seq_axis, t.ndim)
    b_ax = _axis(batch_axis, t.ndim)
    if s_ax == b_ax:
        raise errors.InvalidArgumentError("seq_dim == batch_dim == %d" % s_ax)
    steps = t.shape[s_ax]
    if lengths.shape != (t.shape[b_ax],):
        raise errors.InvalidArgumentError(
            "Length of seq_lengths != input.dims(%d), (%d vs. %d)"
            % (b_ax, lengths.numel(), t.shape[b_ax]))
    if _concrete(lengths) and lengths.numel() and bool(((lengths < 0) |
                                                        (lengths > steps)).any()):
        raise errors.InvalidArgumentError("seq_lens must be in [0, %d], got %s"
                                          % (steps, lengths.tolist()))
    pos = torch.arange(steps, device=t.device)
    index = torch.where(pos < lengths[:, None], lengths[:, None] - 1 - pos, pos)  # [B, T]
    moved = t.movedim((b_ax, s_ax), (0, 1))
    index = index.reshape(index.shape + (1,) * (moved.ndim - 2)).expand(moved.shape)
    return _restore(moved.gather(1, index).movedim((0, 1), (b_ax, s_ax)), table)


@op("roll", v1=["manip.roll"], graph_name="Roll")
def roll(input, shift, axis, name=None):  # noqa: A002 - TF's name
    """`tf.roll`: shifts (scalar or list) along axes; repeated axes add their shifts."""
    t, table = _movable(to_torch(input))
    shifts, axes = _as_ints(shift), _as_ints(axis)
    if len(shifts) != len(axes):
        raise errors.InvalidArgumentError(
            "shift and axis must have the same size, got %d and %d" % (len(shifts), len(axes)))
    axes = [_axis(a, t.ndim) for a in axes]
    return _restore(torch.roll(t, shifts, axes), table)


@tf_export("meshgrid")
def meshgrid(*args, **kwargs):
    """`tf.meshgrid(*args, indexing="xy")`: inputs are flattened, as in TF."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError("'%s' is an invalid keyword argument for this function"
                        % next(iter(kwargs)))
    if indexing not in ("xy", "ij"):
        raise ValueError("Argument `indexing` parameter must be either \"xy\" or \"ij\", "
                         "got '%s'" % indexing)
    return _meshgrid(list(args), indexing)


@op(graph_name="Meshgrid")
def _meshgrid(values, indexing):
    ts = same_dtype_tensors(values)
    ts = [t.reshape(-1) for t in _same_device(ts)]
    return [g.clone() for g in torch.meshgrid(*ts, indexing=indexing)]


@op("repeat", graph_name="Repeat")
def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TF's name
    """`tf.repeat`: like `np.repeat`; without `axis` the input is flattened first."""
    t, table = _movable(to_torch(input))
    reps = to_torch(repeats)
    if axis is None:
        t, a = t.reshape(-1), 0
    else:
        a = _axis(axis, t.ndim)
    reps = reps.to(t.device).long()
    if reps.numel() == 1:
        reps = reps.reshape(())
    elif reps.ndim != 1 or reps.shape[0] != t.shape[a]:
        raise errors.InvalidArgumentError(
            "repeats must have one entry per element of axis %d (%d), got %d"
            % (a, t.shape[a], reps.shape[0]))
    return _restore(torch.repeat_interleave(t, reps, dim=a), table)


# ---------------------------------------------------------------- gather / scatter


def _gather(params, indices, axis, batch_dims):
    p, table = _movable(to_torch(params))
    idx = to_torch(indices)
    if idx.is_floating_point() or idx.dtype == torch.bool:
        raise TypeError("{op}: indices must be int32 or int64, got %s"
                        % dtypes.from_torch(idx.dtype).name)
    idx = idx.to(p.device).long()
    bd = _as_int(batch_dims)
    if bd < 0:
        bd += idx.ndim
    if not 0 <= bd <= idx.ndim:
        raise ValueError("batch_dims = %d out of range for indices of rank %d"
                         % (_as_int(batch_dims), idx.ndim))
    a = bd if axis is None else _axis(axis, p.ndim)
    if a < bd:
        raise ValueError("batch_dims (%d) must be less than or equal to axis (%d)" % (bd, a))
    limit = p.shape[a]
    gpu = p.device.type == "cuda"
    if gpu:
        bad = (idx < 0) | (idx >= limit)
        idx = idx.clamp(0, max(limit - 1, 0))
    else:
        _check_range(idx, limit, "indices")
    if bd == 0:
        out = p.index_select(a, idx.reshape(-1)).reshape(
            tuple(p.shape[:a]) + tuple(idx.shape) + tuple(p.shape[a + 1:]))
    else:
        for d in builtins.range(bd):
            if p.shape[d] != idx.shape[d]:
                raise errors.InvalidArgumentError(
                    "params.shape[%d]: %d should equal indices.shape[%d]: %d"
                    % (d, p.shape[d], d, idx.shape[d]))
        batch = tuple(p.shape[:bd])
        pm = p.reshape((-1,) + tuple(p.shape[bd:])).movedim(a - bd + 1, 1)
        im = idx.reshape((-1,) + tuple(idx.shape[bd:]))
        rows = torch.arange(pm.shape[0], device=p.device).reshape((-1,) + (1,) * (im.ndim - 1))
        out = pm[rows, im]  # [B, I..., p.shape[bd:a]..., p.shape[a+1:]...]
        n_i, n_mid = im.ndim - 1, a - bd
        order = [0] + list(builtins.range(1 + n_i, 1 + n_i + n_mid)) + \
            list(builtins.range(1, 1 + n_i)) + list(builtins.range(1 + n_i + n_mid, out.ndim))
        out = out.permute(order).reshape(batch + tuple(out.shape[o] for o in order[1:]))
    if gpu:
        out = out.masked_fill(bad.reshape(_mask_shape(bad, bd, a, out.ndim)), 0)
    return _restore(out, table)


def _mask_shape(bad, bd, axis, out_rank):
    """The shape that lines gather's out-of-range index mask up with its output dims."""
    lead = tuple(bad.shape[:bd]) + (1,) * (axis - bd)
    body = tuple(bad.shape[bd:])
    return lead + body + (1,) * (out_rank - len(lead) - len(body))


@op(v2=["gather"], graph_name="GatherV2")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """TF2 `tf.gather`: `params.shape[:axis] + indices.shape[batch_dims:] +
    params.shape[axis+1:]`. Out-of-range indices raise on CPU, give zeros on GPU (as TF)."""
    return _gather(params, indices, axis, batch_dims)


@op(v1=["gather"], graph_name="GatherV2")
def gather_v1(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """TF1 `tf.gather(params, indices, validate_indices, name, axis, batch_dims)`;
    `validate_indices` is ignored, as in TF."""
    return _gather(params, indices, axis, batch_dims)


@op(v1=["batch_gather"], graph_name="GatherV2")
def batch_gather(params, indices, name=None):
    """TF1 `tf.batch_gather`: gather with `batch_dims = rank(indices) - 1`."""
    idx = to_torch(indices)
    return _gather(params, idx, idx.ndim - 1, idx.ndim - 1)


def _gather_nd(params, indices, batch_dims):
    p, table = _movable(to_torch(params))
    idx = to_torch(indices)
    if idx.is_floating_point() or idx.dtype == torch.bool:
        raise TypeError("GatherNd: indices must be int32 or int64, got %s"
                        % dtypes.from_torch(idx.dtype).name)
    idx = idx.to(p.device).long()
    bd = _as_int(batch_dims)
    if idx.ndim == 0:
        raise errors.InvalidArgumentError("indices must be at least a vector")
    k = idx.shape[-1]
    if k > p.ndim - bd:
        raise errors.InvalidArgumentError(
            "index innermost dimension length must be <= params rank; saw: %d vs. %d"
            % (k, p.ndim - bd))
    batch = tuple(p.shape[:bd])
    for d in builtins.range(bd):
        if p.shape[d] != idx.shape[d]:
            raise errors.InvalidArgumentError(
                "Batch dimensions of params and indices must match: params.shape[%d] = %d vs. "
                "indices.shape[%d] = %d" % (d, p.shape[d], d, idx.shape[d]))
    pm = p.reshape((-1,) + tuple(p.shape[bd:])) if bd else p
    im = idx.reshape((pm.shape[0],) + tuple(idx.shape[bd:])) if bd else idx
    limits = p.shape[bd:bd + k]
    bad = torch.zeros(im.shape[:-1], dtype=torch.bool, device=p.device)
    for j, limit in enumerate(limits):
        bad = bad | (im[..., j] < 0) | (im[..., j] >= limit)
    if p.device.type == "cuda":
        im = torch.stack([im[..., j].clamp(0, max(limit - 1, 0))
                          for j, limit in enumerate(limits)], -1) if k else im
    elif _concrete(im) and im.numel() and bool(bad.any()):
        where = np.unravel_index(int(bad.reshape(-1).nonzero()[0, 0]), tuple(bad.shape))
        raise errors.InvalidArgumentError(
            "indices%s = %s does not index into param shape %s" % (
                list(int(w) for w in where), im[where].tolist(), format_shape(p.shape)))
    coords = tuple(im[..., j] for j in builtins.range(k))
    if bd:
        rows = torch.arange(pm.shape[0], device=p.device).reshape(
            (-1,) + (1,) * (im.ndim - 2))
        out = pm[(rows,) + tuple(c for c in coords)]
        out = out.reshape(batch + tuple(out.shape[1:]))
        bad = bad.reshape(batch + tuple(bad.shape[1:]))
    else:
        out = pm[coords] if k else pm.expand(tuple(im.shape[:-1]) + tuple(pm.shape)).clone()
    if p.device.type == "cuda":
        out = out.masked_fill(bad.reshape(tuple(bad.shape) + (1,) * (out.ndim - bad.ndim)), 0)
    return _restore(out, table)


@op(v2=["gather_nd"], graph_name="GatherNd")
def gather_nd(params, indices, batch_dims=0, name=None):
    """TF2 `tf.gather_nd`: the innermost dim of `indices` indexes into `params`."""
    return _gather_nd(params, indices, batch_dims)


@op(v1=["gather_nd", "manip.gather_nd"], graph_name="GatherNd")
def gather_nd_v1(params, indices, name=None, batch_dims=0):
    """TF1 `tf.gather_nd(params, indices, name, batch_dims)`."""
    return _gather_nd(params, indices, batch_dims)


def _scatter_setup(indices, updates, shape):
    """Linear row indices into `shape` viewed as [prod(shape[:K]), prod(shape[K:])]."""
    idx = to_torch(indices)
    if idx.is_floating_point() or idx.dtype == torch.bool:
        raise TypeError("{op}: indices must be int32 or int64")
    idx = idx.to(updates.device).long()
    if idx.ndim == 0:
        raise errors.InvalidArgumentError("{op}: indices must be at least a vector")
    k = idx.shape[-1]
    if k > len(shape):
        raise errors.InvalidArgumentError(
            "{op}: index innermost dimension length must be <= shape rank; saw: %d vs. %d"
            % (k, len(shape)))
    expected = tuple(idx.shape[:-1]) + tuple(shape[k:])
    if tuple(updates.shape) != expected:
        raise errors.InvalidArgumentError(
            "{op}: updates.shape must be indices.shape[:-1] + shape[indices.shape[-1]:]; "
            "got updates.shape %s, indices.shape %s, shape %s" % (
                format_shape(updates.shape), format_shape(idx.shape), format_shape(shape)))
    flat_idx = idx.reshape(-1, k)
    if _concrete(flat_idx) and flat_idx.numel():
        limits = torch.tensor(shape[:k], device=idx.device, dtype=torch.long)
        bad = ((flat_idx < 0) | (flat_idx >= limits)).any(-1)
        if bool(bad.any()):
            i = int(bad.nonzero()[0, 0])
            raise errors.InvalidArgumentError(
                "{op}: indices[%d] = %s does not index into shape %s"
                % (i, flat_idx[i].tolist(), format_shape(shape)))
    strides = [1] * k
    for d in builtins.range(k - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    linear = flat_idx.new_zeros(flat_idx.shape[0])
    for j, stride in enumerate(strides):
        linear = linear + flat_idx[:, j] * stride
    rows, width = 1, 1
    for d in shape[:k]:
        rows *= d
    for d in shape[k:]:
        width *= d
    return linear, updates.reshape(linear.shape[0], width), rows


@op("scatter_nd", v1=["manip.scatter_nd"], graph_name="ScatterNd")
def scatter_nd(indices, updates, shape, name=None):
    """`tf.scatter_nd`: zeros of `shape` with `updates` added at `indices` (duplicates sum)."""
    u = to_torch(updates)
    dims = _as_ints(shape)
    linear, rows_upd, rows = _scatter_setup(indices, u, dims)
    out = u.new_zeros((rows, rows_upd.shape[1]))
    return out.index_add(0, linear, rows_upd).reshape(dims)


def _tensor_scatter(tensor, indices, updates, how):
    t, u = binary_operands(tensor, updates)
    linear, rows_upd, rows = _scatter_setup(indices, u, list(t.shape))
    flat = t.reshape(rows, -1)
    if how == "update":
        out = flat.index_copy(0, linear, rows_upd)
    elif how == "add":
        out = flat.index_add(0, linear, rows_upd)
    elif how == "sub":
        out = flat.index_add(0, linear, -rows_upd)
    else:
        out = flat.scatter_reduce(0, linear[:, None].expand(rows_upd.shape), rows_upd,
                                  reduce=how, include_self=True)
    return out.reshape(t.shape)


@op("tensor_scatter_nd_update", v1=["tensor_scatter_update"], graph_name="TensorScatterUpdate")
def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """`tf.tensor_scatter_nd_update`: a copy of `tensor` with slices replaced by `updates`."""
    return _tensor_scatter(tensor, indices, updates, "update")


@op("tensor_scatter_nd_add", v1=["tensor_scatter_add"], graph_name="TensorScatterAdd")
def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """`tf.tensor_scatter_nd_add`: a copy of `tensor` with `updates` added (duplicates sum)."""
    return _tensor_scatter(tensor, indices, updates, "add")


@op("tensor_scatter_nd_sub", v1=["tensor_scatter_sub"], graph_name="TensorScatterSub")
def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """`tf.tensor_scatter_nd_sub`: a copy of `tensor` with `updates` subtracted."""
    return _tensor_scatter(tensor, indices, updates, "sub")


@op("tensor_scatter_nd_max", graph_name="TensorScatterMax")
def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """`tf.tensor_scatter_nd_max`: elementwise max of `tensor` and the scattered `updates`."""
    return _tensor_scatter(tensor, indices, updates, "amax")


@op("tensor_scatter_nd_min", graph_name="TensorScatterMin")
def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """`tf.tensor_scatter_nd_min`: elementwise min of `tensor` and the scattered `updates`."""
    return _tensor_scatter(tensor, indices, updates, "amin")


@op("one_hot", graph_name="OneHot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """`tf.one_hot`: float32 unless `dtype` or the on/off values say otherwise; an index
    outside [0, depth) (e.g. -1) gives a row of `off_value`."""
    idx = to_torch(indices)
    if idx.is_floating_point() or idx.dtype == torch.bool:
        raise TypeError("one_hot indices must be uint8, int32 or int64, got %s"
                        % dtypes.from_torch(idx.dtype).name)
    dtype = _dtype(dtype)
    given = {}
    for key, value in (("on_value", on_value), ("off_value", off_value)):
        if value is not None:  # Python values take `dtype` when given, as TF's dtype_hint
            given[key] = to_torch(value, None if _is_tensor(value) else dtype)
    for key, value in given.items():
        found = dtypes.from_torch(value.dtype)
        if dtype is None:
            dtype = found
        elif found is not dtype:
            raise TypeError("dtype of %s (%s) does not match the one_hot dtype %s"
                            % (key, found.name, dtype.name))
    dtype = dtype or dtypes.float32
    on = given.get("on_value")
    on = to_torch(1, dtype) if on is None else on
    off = given.get("off_value")
    off = to_torch(0, dtype) if off is None else off
    on, off = on.to(idx.device), off.to(idx.device)
    n = _as_int(depth)
    if n < 0:
        raise errors.InvalidArgumentError("depth must be non-negative, got: %d" % n)
    hot = idx.long().unsqueeze(-1) == torch.arange(n, device=idx.device)
    out = torch.where(hot, on, off)
    a = -1 if axis is None else _as_int(axis)
    if a != -1:
        a = _axis(a, idx.ndim, extra=1)
        out = out.movedim(-1, a)
    return out


# ---------------------------------------------------------------- where / masks / sets


def _select_condition(condition):
    c = to_torch(condition)
    if c.dtype != torch.bool:
        raise errors.InvalidArgumentError(
            "cannot compute {op} as input #0(zero-based) was expected to be a bool tensor but "
            "is a %s tensor" % dtypes.from_torch(c.dtype).name)
    return c


def _where_coordinates(condition):
    c = to_torch(condition)
    return torch.nonzero(c if c.dtype == torch.bool else c != 0)


@op(v1=["where"], graph_name="Select")
def where(condition, x=None, y=None, name=None):
    """TF1 `tf.where`: `where(cond)` gives the int64 coordinates of true entries;
    `where(cond, x, y)` needs `x`, `y` of one shape and `cond` of that shape or a vector
    selecting whole rows (no other broadcasting, as TF1's Select)."""
    if x is None and y is None:
        return _where_coordinates(condition)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    xt, yt = binary_operands(x, y)
    c = _select_condition(condition)
    yt = yt if isinstance(yt, torch.Tensor) else torch.tensor(yt, dtype=xt.dtype,
                                                              device=xt.device)
    if xt.shape != yt.shape:
        raise errors.InvalidArgumentError(
            "'then' and 'else' must have the same size.  but received: %s vs. %s"
            % (format_shape(xt.shape), format_shape(yt.shape)))
    if c.shape != xt.shape:
        if c.ndim == 1 and xt.ndim >= 1 and c.shape[0] == xt.shape[0]:
            c = c.reshape((-1,) + (1,) * (xt.ndim - 1))
        elif c.ndim != 0 or xt.ndim != 0:
            raise errors.InvalidArgumentError(
                "'cond' must be a scalar, a vector matching the first dimension of 'then', "
                "or the same shape as 'then'; got %s vs. %s"
                % (format_shape(c.shape), format_shape(xt.shape)))
    return torch.where(c.to(xt.device), xt, yt)


@op(v2=["where"], v1=["where_v2"], graph_name="SelectV2")
def where_v2(condition, x=None, y=None, name=None):
    """TF2 `tf.where`: `cond`, `x`, `y` broadcast together; `where(cond)` as in TF1."""
    if x is None and y is None:
        return _where_coordinates(condition)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    xt, yt = binary_operands(x, y)
    c = _select_condition(condition)
    shapes = [tuple(v.shape) if isinstance(v, torch.Tensor) else () for v in (c, xt, yt)]
    try:
        torch.broadcast_shapes(*shapes)
    except RuntimeError:
        raise errors.InvalidArgumentError(
            "condition %s, then %s and else %s must be broadcastable"
            % tuple(format_shape(s) for s in shapes)) from None
    device = xt.device if isinstance(xt, torch.Tensor) else yt.device
    return torch.where(c.to(device), xt, yt)


def _boolean_mask(tensor, mask, axis):
    t, table = _movable(to_torch(tensor))
    m = to_torch(mask)
    if m.dtype != torch.bool:
        raise TypeError("mask must be a bool tensor, got %s" % dtypes.from_torch(m.dtype).name)
    if m.ndim == 0:
        raise ValueError("mask cannot be scalar.")
    a = 0 if axis is None else _as_int(axis)
    if a < 0:
        a += t.ndim
    if a + m.ndim > t.ndim or tuple(t.shape[a:a + m.ndim]) != tuple(m.shape):
        raise ValueError("Shapes %s and %s are incompatible (mask must match the tensor's "
                         "dimensions from axis %d)" % (TensorShape(list(t.shape[a:a + m.ndim])),
                                                         TensorShape(list(m.shape)), a))
    return _restore(t[(builtins.slice(None),) * a + (m.to(t.device),)], table)


@tf_export(v2=["boolean_mask"])
@dispatch.add_dispatch_support
@op(graph_name="BooleanMask")
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """TF2 `tf.boolean_mask`: like numpy's `tensor[mask]`, starting at `axis`."""
    return _boolean_mask(tensor, mask, axis)


@tf_export(v1=["boolean_mask"])
@dispatch.add_dispatch_support
@op(graph_name="BooleanMask")
def boolean_mask_v1(tensor, mask, name="boolean_mask", axis=None):
    """TF1 `tf.boolean_mask(tensor, mask, name, axis)`."""
    return _boolean_mask(tensor, mask, axis)


@op("sequence_mask", graph_name="SequenceMask")
def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """`tf.sequence_mask`: `mask[..., j] = j < lengths[...]`. Without `maxlen` it is
    `max(lengths)`, read from the values."""
    lt = to_torch(lengths)
    if maxlen is None:
        n = int(lt.max().item()) if lt.numel() else 0
        n = max(n, 0)
    else:
        n = _as_int(maxlen)
    mask = torch.arange(n, device=lt.device) < lt.unsqueeze(-1)
    return mask.to(dtypes.as_dtype(dtype).torch_dtype)


Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _unique(x, out_idx):
    t = to_torch(x)
    table = None
    if isinstance(t, np.ndarray):
        if t.ndim != 1:
            raise errors.InvalidArgumentError("unique expects a 1D vector.")
        table, codes = np.unique(t, return_inverse=True)
        t = torch.from_numpy(codes.reshape(-1).astype(np.int64))
    if t.ndim != 1:
        raise errors.InvalidArgumentError("unique expects a 1D vector.")
    values, inverse, counts = torch.unique(t, sorted=True, return_inverse=True,
                                           return_counts=True)
    n = t.shape[0]
    positions = torch.arange(n, device=t.device)
    first = torch.full((values.shape[0],), n, dtype=torch.long, device=t.device).scatter_reduce(
        0, inverse, positions, reduce="amin")
    order = torch.argsort(first)  # unique values in order of first appearance, as TF
    rank = torch.empty_like(order)
    rank[order] = torch.arange(order.shape[0], device=t.device)
    y = values[order]
    idx = rank[inverse].to(dtypes.as_dtype(out_idx).torch_dtype)
    count = counts[order].to(idx.dtype)
    if table is not None:
        y = np.asarray(table[y.numpy()], dtype=object)
    return y, idx, count


@op("unique", graph_name="Unique")
def unique(x, out_idx=dtypes.int32, name=None):
    """`tf.unique`: (y, idx) with `y` in order of first occurrence (not sorted)."""
    y, idx, _ = _unique(x, out_idx)
    return Unique(y, idx)


@op("unique_with_counts", graph_name="UniqueWithCounts")
def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """`tf.unique_with_counts`: (y, idx, count), `y` in order of first occurrence."""
    return UniqueWithCounts(*_unique(x, out_idx))


ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


@op(v1=["setdiff1d"], graph_name="ListDiff")
def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """TF1 `tf.setdiff1d`: values of `x` not in `y` (order kept) and their positions in x."""
    xt, yt = binary_operands(x, y)
    keep = ~torch.isin(xt, yt.to(xt.device))
    return ListDiff(xt[keep], keep.nonzero().reshape(-1).to(
        dtypes.as_dtype(index_dtype).torch_dtype))


@op("searchsorted", graph_name="LowerBound")
def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """`tf.searchsorted`: per-row search along the innermost dimension."""
    s, v = binary_operands(sorted_sequence, values)
    if side not in ("left", "right"):
        raise ValueError("Argument `side` must be either 'right' or 'left'. Received: `side` "
                         "= '%s'." % side)
    if s.ndim != v.ndim or tuple(s.shape[:-1]) != tuple(v.shape[:-1]):
        raise errors.InvalidArgumentError(
            "Leading dim_size of both tensors must match: sorted_sequence %s, values %s"
            % (format_shape(s.shape), format_shape(v.shape)))
    out = torch.searchsorted(s.contiguous(), v.contiguous(), right=side == "right")
    return out.to(_out_type(out_type))


def _sort_setup(values, axis, direction):
    t = to_torch(values)
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError("Argument `direction` should be one of {'ASCENDING', 'DESCENDING'}. "
                         "Received: `direction` = %s" % direction)
    return t, _axis(axis, t.ndim, op_name="Sort")


@op("sort", graph_name="Sort")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`tf.sort` along `axis` (ASCENDING or DESCENDING)."""
    t, a = _sort_setup(values, axis, direction)
    return torch.sort(t, dim=a, descending=direction == "DESCENDING", stable=True).values


@op("argsort", graph_name="ArgSort")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """`tf.argsort`: int32 indices; ties keep their order (TF's sort is stable in practice)."""
    t, a = _sort_setup(values, axis, direction)
    return torch.sort(t, dim=a, descending=direction == "DESCENDING",
                      stable=True).indices.to(torch.int32)


# ---------------------------------------------------------------- slicing


@op("slice", graph_name="Slice")
def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    """`tf.slice`: `size[i] = -1` takes everything from `begin[i]` on."""
    t, table = _movable(to_torch(input_))
    starts, sizes = _as_ints(begin), _as_ints(size)
    if len(starts) != t.ndim or len(sizes) != t.ndim:
        raise errors.InvalidArgumentError(
            "Expected begin and size arguments to be 1-D tensors of size %d, but got shapes "
            "[%d] and [%d] instead." % (t.ndim, len(starts), len(sizes)))
    index = []
    for d, (b, s) in enumerate(zip(starts, sizes)):
        dim = t.shape[d]
        if not 0 <= b <= dim:
            raise errors.InvalidArgumentError("Expected begin[%d] in [0, %d], but got %d"
                                              % (d, dim, b))
        if s == -1:
            s = dim - b
        if not 0 <= s <= dim - b:
            raise errors.InvalidArgumentError("Expected size[%d] in [0, %d], but got %d"
                                              % (d, dim - b, s))
        index.append(builtins.slice(b, b + s))
    out = t[tuple(index)]
    known = known_values(t)
    if known is not None and t.ndim == 1:   # a slice of a shape keeps its values
        out = with_values(out, known[index[0]])
    return variable_snapshot(input_, _restore(out, table))


def _spec_entries(value):
    """begin/end/strides: a list (ints or scalar tensors, kept as given) or a 1-D tensor."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if _is_tensor(value) or isinstance(value, np.ndarray):
        return _as_ints(value)
    raise TypeError("begin, end and strides must be lists or 1-D int tensors, got %r"
                    % (value,))


@op("strided_slice", graph_name="StridedSlice")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """`tf.strided_slice` with TF's masks. Negative strides, ellipsis, new axes and shrinking
    follow TF (out-of-range bounds are clamped; a shrunk index must be in range). `var`
    (TF's slice-assignment hook) is not supported."""
    if var is not None:
        raise NotImplementedError("tf.strided_slice(var=...) (sliced variable assignment) is "
                                  "not implemented by tfcompat; use tf.tensor_scatter_nd_update")
    t, table = _movable(to_torch(input_))
    begin, end = _spec_entries(begin), _spec_entries(end)
    strides = [1] * len(begin) if strides is None else _spec_entries(strides)
    if not len(begin) == len(end) == len(strides):
        raise errors.InvalidArgumentError(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            "[%d], [%d], and [%d] instead." % (len(begin), len(end), len(strides)))
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask = (
        _as_int(m) for m in (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                           shrink_axis_mask))
    if ellipsis_mask & (ellipsis_mask - 1):
        raise errors.InvalidArgumentError("Multiple ellipses in slice spec not allowed")
    n_sparse = len(begin)
    if not ellipsis_mask:  # an implicit ellipsis after the last entry
        ellipsis_mask = 1 << n_sparse
        begin, end, strides = begin + [0], end + [0], strides + [1]
        n_sparse += 1
    ellipsis_at = ellipsis_mask.bit_length() - 1
    new_after_ellipsis = sum(1 for i in builtins.range(ellipsis_at + 1, n_sparse)
                             if new_axis_mask >> i & 1)
    rank = t.ndim
    index, flips, dense, out_dim = [], [], 0, 0
    for i in builtins.range(n_sparse):
        if ellipsis_mask >> i & 1:
            stop = min(rank - (n_sparse - i) + 1 + new_after_ellipsis, rank)
            count = max(stop - dense, 0)
            index.extend([builtins.slice(None)] * count)
            dense += count
            out_dim += count
            continue
        if new_axis_mask >> i & 1:
            index.append(None)
            out_dim += 1
            continue
        if dense >= rank:
            raise errors.InvalidArgumentError(
                "Index out of range using input dim %d; input has only %d dims" % (dense, rank))
        dim = t.shape[dense]
        stride = _as_int(strides[i])
        if stride == 0:
            raise errors.InvalidArgumentError("strides[%d] must be non-zero" % i)
        if shrink_axis_mask >> i & 1:
            if stride < 0:
                raise errors.InvalidArgumentError(
                    "only stride 1 allowed on non-range indexing.")
            index.append(_shrink_index(begin[i], dim, dense, t.device))
        else:
            index.append(_range_index(begin[i], end[i], stride, dim, begin_mask >> i & 1,
                                      end_mask >> i & 1, flips, out_dim))
            out_dim += 1
        dense += 1
    out = t[tuple(index)]
    if flips:
        out = out.flip(flips)
    known = known_values(t)
    if known is not None and not any(isinstance(i, torch.Tensor) for i in index):
        # (the extra None keeps numpy from reading symbolic ints as sequences)
        chosen = np.array(known + [None], dtype=object)[:-1].reshape(tuple(t.shape))
        chosen = chosen[tuple(index)]
        chosen = np.flip(chosen, flips) if flips else chosen
        out = with_values(out, np.asarray(chosen, dtype=object).reshape(-1).tolist())
    return variable_snapshot(input_, _restore(out, table))


def _shrink_index(value, dim, axis, device):
    if _is_tensor(value):
        i = to_torch(value)
        if _concrete(i):
            value = i.reshape(()).item()
        else:  # a symbolic index: wrap negatives with tensor ops (no bounds check possible)
            i = i.reshape(()).long().to(device)
            return torch.where(i < 0, i + dim, i)
    if isinstance(value, torch.SymInt) and torch.compiler.is_exporting():
        # a size or a value of the program: checked when it runs, not specialized
        torch._check(-dim <= value, lambda: "slice index out of bounds")
        torch._check(value < dim, lambda: "slice index out of bounds")
        return torch.scalar_tensor(value, dtype=torch.long, device=device)
    x = _as_int(value)
    fwd = x + dim if x < 0 else x
    if not 0 <= fwd < dim:
        raise errors.InvalidArgumentError("slice index %d of dimension %d out of bounds."
                                          % (x, axis))
    return fwd


def _range_index(b, e, stride, dim, b_masked, e_masked, flips, out_dim):
    """TF's canonical [begin, end) for one dimension, as a torch slice (+ a flip if stride<0)."""
    lo, hi = (0, dim) if stride > 0 else (-1, dim - 1)

    def canonical(x, masked, is_end):
        if masked:
            return (hi if is_end else lo) if stride > 0 else (lo if is_end else hi)
        x = _as_int(x)
        x = x + dim if x < 0 else x
        return max(lo, min(hi, x))

    b, e = canonical(b, b_masked, False), canonical(e, e_masked, True)
    if stride > 0:
        return builtins.slice(b, max(b, e), stride)
    step = -stride
    count = max(0, (b - e + step - 1) // step)
    flips.append(out_dim)
    if count == 0:
        return builtins.slice(0, 0)
    last = b - (count - 1) * step
    return builtins.slice(last, b + 1, step)


_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")


def _check_index(idx):
    if isinstance(idx, (int, np.integer)):
        return
    dtype = getattr(idx, "dtype", None)
    if dtype is None or not _is_tensor(idx) and not isinstance(idx, np.ndarray):
        raise TypeError(_SLICE_TYPE_ERROR + ", got %r" % (idx,))
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int16, dtypes.int32, dtypes.int64) or len(idx.shape) != 0:
        raise TypeError(_SLICE_TYPE_ERROR + ", got %r" % (idx,))


def _absent(bound):
    """A slice bound left out: None, or TF1's unknown `Dimension(None)`."""
    return bound is None or getattr(bound, "value", 0) is None


def _slice_helper(tensor, slice_spec):
    """`Tensor.__getitem__`, as TF's `_slice_helper`: one `strided_slice` (a bool tensor,
    numpy bool array or Python bool index is `boolean_mask`, as in TF)."""
    if isinstance(slice_spec, bool) or (
            getattr(slice_spec, "dtype", None) is not None and
            (_is_tensor(slice_spec) or isinstance(slice_spec, np.ndarray)) and
            dtypes.as_dtype(slice_spec.dtype) is dtypes.bool):
        return boolean_mask(tensor, slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for i, s in enumerate(slice_spec):
        bit = 1 << i
        if isinstance(s, builtins.slice):
            if _absent(s.start):
                begin.append(0)
                begin_mask |= bit
            else:
                _check_index(s.start)
                begin.append(s.start)
            if _absent(s.stop):
                end.append(0)
                end_mask |= bit
            else:
                _check_index(s.stop)
                end.append(s.stop)
            if not _absent(s.step):
                _check_index(s.step)
            strides.append(1 if _absent(s.step) else s.step)
            continue
        if s is Ellipsis:
            ellipsis_mask |= bit
            s = 0
        elif s is None:
            new_axis_mask |= bit
            s = 0
        else:
            _check_index(s)
            shrink_axis_mask |= bit
        begin.append(s)
        end.append(s)  # ignored for shrunk axes
        strides.append(1)
    return strided_slice(tensor, begin, end, strides, begin_mask=begin_mask, end_mask=end_mask,
                         ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                         shrink_axis_mask=shrink_axis_mask, name="strided_slice")


# ---------------------------------------------------------------- space / depth / batch


def _block(value, name="block_size"):
    b = _as_int(value)
    if b < 2:
        raise errors.InvalidArgumentError(
            "Value for attr '%s' of %d must be at least minimum 2" % (name, b))
    return b


def _nhwc(t, data_format, fn):
    if data_format == "NHWC":
        return fn(t)
    if data_format == "NCHW":
        return fn(t.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
    raise ValueError("data_format must be 'NHWC' or 'NCHW', got %r" % (data_format,))


def _space_to_depth(input, block_size, data_format):  # noqa: A002 - TF's name
    t, b = to_torch(input), _block(block_size)
    if t.ndim != 4:
        raise errors.InvalidArgumentError("Input rank should be: 4 instead of: %d" % t.ndim)

    def fn(x):
        n, h, w, c = x.shape
        if h % b or w % b:
            raise errors.InvalidArgumentError(
                "Image width %d and height %d should be divisible by block_size: %d" % (w, h, b))
        return x.reshape(n, h // b, b, w // b, b, c).permute(0, 1, 3, 2, 4, 5).reshape(
            n, h // b, w // b, b * b * c)
    return _nhwc(t, data_format, fn)


def _depth_to_space(input, block_size, data_format):  # noqa: A002 - TF's name
    t, b = to_torch(input), _block(block_size)
    if t.ndim != 4:
        raise errors.InvalidArgumentError("Input rank should be: 4 instead of: %d" % t.ndim)

    def fn(x):
        n, h, w, c = x.shape
        if c % (b * b):
            raise errors.InvalidArgumentError(
                "Input depth dimension %d should be divisible by: %d" % (c, b * b))
        return x.reshape(n, h, w, b, b, c // (b * b)).permute(0, 1, 3, 2, 4, 5).reshape(
            n, h * b, w * b, c // (b * b))
    return _nhwc(t, data_format, fn)


@op(v1=["space_to_depth", "nn.space_to_depth"], graph_name="SpaceToDepth")
def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """TF1 `tf.space_to_depth(input, block_size, name, data_format)` (NHWC or NCHW)."""
    return _space_to_depth(input, block_size, data_format)


@op(v2=["nn.space_to_depth"], graph_name="SpaceToDepth")
def space_to_depth_v2(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """TF2 `tf.nn.space_to_depth`: [N,H,W,C] -> [N,H/b,W/b,C*b*b]."""
    return _space_to_depth(input, block_size, data_format)


@op(v1=["depth_to_space", "nn.depth_to_space"], graph_name="DepthToSpace")
def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """TF1 `tf.depth_to_space(input, block_size, name, data_format)` (NHWC or NCHW)."""
    return _depth_to_space(input, block_size, data_format)


@op(v2=["nn.depth_to_space"], graph_name="DepthToSpace")
def depth_to_space_v2(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """TF2 `tf.nn.depth_to_space`: [N,H,W,C] -> [N,H*b,W*b,C/(b*b)]."""
    return _depth_to_space(input, block_size, data_format)


def _space_to_batch_nd(input, block_shape, paddings):  # noqa: A002 - TF's name
    t = to_torch(input)
    blocks = _as_ints(block_shape)
    m = len(blocks)
    pads = _as_ints(paddings)
    if len(pads) != 2 * m:
        raise errors.InvalidArgumentError("paddings should have shape [%d, 2] instead of %d "
                                          "values" % (m, len(pads)))
    if t.ndim < m + 1:
        raise errors.InvalidArgumentError("input rank should be >= %d instead of %d"
                                          % (m + 1, t.ndim))
    if any(b < 1 for b in blocks) or any(p < 0 for p in pads):
        raise errors.InvalidArgumentError("block_shape must be positive and paddings "
                                          "non-negative: %s, %s" % (blocks, pads))
    widths = [0, 0] + pads + [0, 0] * (t.ndim - 1 - m)
    t = _pad(t, widths, "CONSTANT", 0) if any(pads) else t
    n, spatial, rest = t.shape[0], list(t.shape[1:m + 1]), list(t.shape[m + 1:])
    for i, (s, b) in enumerate(zip(spatial, blocks)):
        if s % b:
            raise errors.InvalidArgumentError(
                "padded_shape[%d]=%d is not divisible by block_shape[%d]=%d" % (i, s, i, b))
    shape = [n]
    for s, b in zip(spatial, blocks):
        shape += [s // b, b]
    t = t.reshape(shape + rest)
    order = [2 + 2 * i for i in builtins.range(m)] + [0] + [1 + 2 * i for i in
                                                             builtins.range(m)]
    order += list(builtins.range(1 + 2 * m, t.ndim))
    t = t.permute(order)
    return t.reshape([n * int(np.prod(blocks))] + [s // b for s, b in zip(spatial, blocks)]
                     + rest)


def _batch_to_space_nd(input, block_shape, crops):  # noqa: A002 - TF's name
    t = to_torch(input)
    blocks = _as_ints(block_shape)
    m = len(blocks)
    cuts = _as_ints(crops)
    if len(cuts) != 2 * m:
        raise errors.InvalidArgumentError("crops should have shape [%d, 2] instead of %d "
                                          "values" % (m, len(cuts)))
    if any(b < 1 for b in blocks) or any(c < 0 for c in cuts):
        raise errors.InvalidArgumentError("block_shape must be positive and crops "
                                          "non-negative: %s, %s" % (blocks, cuts))
    total = int(np.prod(blocks))
    n = t.shape[0]
    if n % total:
        raise errors.InvalidArgumentError(
            "Input batch dimension (%d) is not divisible by product of block sizes (%d)"
            % (n, total))
    spatial, rest = list(t.shape[1:m + 1]), list(t.shape[m + 1:])
    t = t.reshape(blocks + [n // total] + spatial + rest)
    order = [m]
    for i in builtins.range(m):
        order += [m + 1 + i, i]
    order += list(builtins.range(2 * m + 1, t.ndim))
    t = t.permute(order).reshape([n // total] + [s * b for s, b in zip(spatial, blocks)] + rest)
    index = [builtins.slice(None)]
    for i, (s, b) in enumerate(zip(spatial, blocks)):
        start, stop = cuts[2 * i], s * b - cuts[2 * i + 1]
        if stop < start:
            raise errors.InvalidArgumentError("Crops must not exceed the spatial size: "
                                              "crops %s for size %d" % (cuts[2 * i:2 * i + 2],
                                                                        s * b))
        index.append(builtins.slice(start, stop))
    return t[tuple(index)].clone()


@op("space_to_batch_nd", v1=["manip.space_to_batch_nd"], v2=["space_to_batch",
                                                                "nn.space_to_batch"],
    graph_name="SpaceToBatchND")
def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """`tf.space_to_batch_nd` (TF2's `tf.space_to_batch`): zero-pad the M spatial dims, then
    move `block_shape` blocks into the batch dimension."""
    return _space_to_batch_nd(input, block_shape, paddings)


@op(v1=["space_to_batch", "nn.space_to_batch"], graph_name="SpaceToBatchND")
def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa
    """TF1 `tf.space_to_batch(input, paddings, block_size)`: 4-D NHWC, square blocks."""
    if block_size is None:
        block_size = block_shape
    b = _block(block_size)
    return _space_to_batch_nd(input, [b, b], paddings)


@op(v1=["batch_to_space_nd", "manip.batch_to_space_nd"],
    v2=["batch_to_space"], graph_name="BatchToSpaceND")
def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002 - TF's name
    """`tf.batch_to_space_nd` (TF2's `tf.batch_to_space`): the inverse of space_to_batch_nd,
    then crop."""
    return _batch_to_space_nd(input, block_shape, crops)


@op(v1=["batch_to_space"], graph_name="BatchToSpaceND")
def batch_to_space(input, crops, block_size, name=None, block_shape=None):  # noqa: A002
    """TF1 `tf.batch_to_space(input, crops, block_size)`: 4-D NHWC, square blocks."""
    if block_size is None:
        block_size = block_shape
    b = _block(block_size)
    return _batch_to_space_nd(input, [b, b], crops)


# ---------------------------------------------------------------- Tensor.__getitem__


def _getitem(self, slice_spec):
    return _slice_helper(self, slice_spec)


Tensor.__getitem__ = _getitem
