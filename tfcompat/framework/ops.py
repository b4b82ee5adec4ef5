"""Tensor conversion, the `op` decorator, and name scopes.

Every TF op is a plain function over torch tensors, written once and registered with `@op`.
The decorator leaves arguments as the user passed them; the op converts what it needs with
`to_torch` (TF's dtype inference: Python ints are int32, floats float32) or
`binary_operands` (TF's rule: no implicit promotion between tensors of different dtypes).

- eager: the function runs at once and its torch results are wrapped as `EagerTensor`s;
- graph (building a tf.Graph or tracing a tf.function): the call is handed to the graph
  builder registered by `tfcompat.framework.graph`, which records a node calling the same
  function and infers static shapes by running it on fake tensors.
"""
import contextlib
import functools
import threading

import numpy as np
import torch
from torch._subclasses.fake_tensor import FakeTensor

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors
from tfcompat.framework.tensor import EagerTensor, Tensor
from tfcompat.framework.tensor_shape import TensorShape

_state = context.state
_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1

# Set by tfcompat.framework.graph: record(fn, op_name, args, kwargs) -> symbolic outputs,
# and convert(value, dtype, name) -> symbolic tensor.
graph_builder = None


def _graph():
    if graph_builder is None:
        raise NotImplementedError("graph construction is not available")
    return graph_builder


# ---------------------------------------------------------------- dtype inference


def _infer_scalar(value):
    if isinstance(value, bool):
        return dtypes.bool
    if isinstance(value, int):
        return dtypes.int32 if _INT32_MIN <= value <= _INT32_MAX else dtypes.int64
    if isinstance(value, float):
        return dtypes.float32
    if isinstance(value, complex):
        return dtypes.complex128
    if isinstance(value, (str, bytes)):
        return dtypes.string
    return None


def _infer_nested(value):
    """TF's dtype for a (nested) Python list: float32 if any float, else int32/int64/bool."""
    found = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, np.ndarray) or isinstance(item, np.generic):
            found.add(dtypes.as_dtype(item.dtype))
        elif is_tensor_value(item):
            found.add(item.dtype)
        else:
            inferred = _infer_scalar(item)
            if inferred is None:
                raise TypeError("Failed to convert elements of %r to Tensor: %r is not a "
                                "number, bool or string" % (value, item))
            found.add(inferred)
    for dtype in (dtypes.string, dtypes.complex128, dtypes.float64, dtypes.float32,
                  dtypes.int64, dtypes.int32, dtypes.bool):
        if dtype in found:
            if dtype in (dtypes.bool, dtypes.string) and len(found) > 1:
                raise TypeError("Can't convert %r to a single dtype: mixes %s" % (
                    value, sorted(d.name for d in found)))
            return dtype
    return found.pop() if found else dtypes.float32


def infer_dtype(value):
    """The `tf.DType` TensorFlow gives a Python/numpy value converted without a dtype."""
    if isinstance(value, (np.ndarray, np.generic)):
        return dtypes.as_dtype(value.dtype)
    return _infer_scalar(value) or _infer_nested(value)


def is_tensor_value(value):
    return isinstance(value, Tensor) or hasattr(value, "_tfcompat_tensor_")


def _has_tensor(value):
    if isinstance(value, (list, tuple)):
        return any(_has_tensor(v) for v in value)
    return is_tensor_value(value) or isinstance(value, torch.Tensor)


# ---------------------------------------------------------------- conversion


def _check_lossless(value, dtype):
    if dtype.is_integer or dtype.is_bool:
        flat = np.asarray(value, dtype=object).reshape(-1) if not np.isscalar(value) \
            else (value,)
        for item in flat:
            if isinstance(item, float) and not float(item).is_integer():
                raise TypeError("Cannot convert %r to EagerTensor of dtype %s" % (
                    value, dtype.name))


def _shape_as_dims(shape, dtype):
    """A fully known TensorShape as TF converts it: its dims, int32 unless `dtype` is int64
    (or a dim needs it); ValueError when partly unknown, TypeError for other dtypes."""
    if shape.rank is None or not shape.is_fully_defined():
        raise ValueError("Cannot convert a partially known TensorShape %s to a Tensor."
                         % (tuple(shape.as_list()) if shape.rank is not None else "<unknown>",))
    if dtype is not None and dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError("Cannot convert TensorShape %s to dtype %r. Allowed dtypes are tf.int32 "
                        "and tf.int64." % (tuple(shape.as_list()), dtype))
    dims = [int(size) for size in shape.as_list()]
    if dtype is None:
        dtype = dtypes.int64 if any(size > _INT32_MAX for size in dims) else dtypes.int32
    return np.array(dims, dtype=dtype.as_numpy_dtype), dtype


def constant_to_torch(value, dtype=None, device=None):
    """A Python/numpy value (no tensors inside) -> torch tensor with TF's dtype rules.

    String values become numpy object arrays of bytes.
    """
    if isinstance(value, _composite_types):
        raise CompositeTensorArgument("Failed to convert elements of %r to Tensor. Consider "
                                      "casting elements to a supported type." % (value,))
    if isinstance(value, TensorShape):
        value, dtype = _shape_as_dims(value, dtype)
    if dtype is None:
        dtype = infer_dtype(value)
    elif not isinstance(value, (np.ndarray, np.generic)):
        _check_lossless(value, dtype)
    if dtype is dtypes.string:
        return _string_array(value)
    if dtype.torch_dtype is None:
        raise TypeError("Cannot convert %r to a tensor of dtype %s" % (value, dtype.name))
    device = device if device is not None else context.current_device()
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "SUO":
            raise TypeError("Cannot convert a string array to a tensor of dtype %s"
                            % dtype.name)
        if dtype is dtypes.bfloat16:
            return torch.from_numpy(np.array(value, dtype=np.float32)).to(
                device=device, dtype=torch.bfloat16)
        array = np.asarray(value, dtype=dtype.as_numpy_dtype)
        if array is value or not array.flags.c_contiguous or not array.flags.writeable:
            array = array.copy(order="C")
        t = torch.from_numpy(array)
        return t if device.type == "cpu" else t.to(device)
    try:
        return torch.tensor(value, dtype=dtype.torch_dtype, device=device)
    except (TypeError, ValueError, RuntimeError) as e:
        if "expected sequence of length" in str(e):
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") \
                from None
        raise ValueError("Can't convert %r to a tensor of dtype %s: %s" % (
            value, dtype.name, e)) from None


def _string_array(value):
    def encode(item):
        if isinstance(item, str):
            return item.encode("utf-8")
        if isinstance(item, (bytes, np.bytes_)):
            return bytes(item)
        if isinstance(item, np.str_):
            return str(item).encode("utf-8")
        raise TypeError("Can't convert %r to a string tensor" % (item,))
    array = np.asarray(value, dtype=object)
    out = np.empty(array.shape, dtype=object)
    for index, item in np.ndenumerate(array):
        out[index] = encode(item)
    return out


def to_torch(value, dtype=None):
    """Anything TF converts to a tensor -> a torch tensor (string tensors: numpy arrays).

    A tensor or variable must already have `dtype` when one is asked for (TF raises);
    Python and numpy values are converted to it.
    """
    cls = type(value)
    if cls is EagerTensor:
        t = value._t
        if dtype is not None and not isinstance(t, np.ndarray) and \
                t.dtype is not dtype.torch_dtype:
            raise _dtype_mismatch(value, dtype)
        return t
    if cls is torch.Tensor or isinstance(value, torch.Tensor):
        return value
    read = getattr(value, "_tfcompat_tensor_", None)
    if read is not None:
        t = read()
        if dtype is not None and t.dtype is not dtype.torch_dtype:
            raise _dtype_mismatch(value, dtype)
        return t
    if isinstance(value, Tensor):
        raise GraphTensorInEagerError(value)
    if isinstance(value, (list, tuple)) and value and _has_tensor(value):
        return _pack(value, dtype)
    return constant_to_torch(value, dtype)


class CompositeTensorArgument(TypeError):
    """A composite tensor (tf.RaggedTensor) reached an op that takes dense tensors."""


_composite_types = ()    # classes registered by register_composite_ops
_composite_ops = {}      # TF op type -> handler(op, args, kwargs)


def register_composite_ops(cls, handlers):
    """Let ops take instances of `cls` (tf.RaggedTensor), as TF's dispatch does: `handlers`
    maps TF op types to `handler(op, args, kwargs)`, called when such an op meets one
    (`tf.cast(ragged, ...)` casts its flat values); other ops raise TF's conversion TypeError.
    Calls with dense arguments pay nothing: the handler is found once conversion failed."""
    global _composite_types
    if cls not in _composite_types:
        _composite_types += (cls,)
    _composite_ops.update(handlers)


def _composite_op(op, op_type, args, kwargs, error):
    handler = _composite_ops.get(op_type)
    if handler is None:
        raise error.with_traceback(None) from None
    return handler(op, args, kwargs)


class GraphTensorInEagerError(TypeError):
    """A symbolic tensor reached an op running eagerly; `tensor` is it."""

    def __init__(self, tensor):
        super(GraphTensorInEagerError, self).__init__(
            "%r belongs to a graph and cannot be used in eager execution; run it with a "
            "Session or build this op in the same graph" % (tensor,))
        self.tensor = tensor


def _pack(values, dtype):
    """TF's auto-packing of a list that holds tensors: convert each element and stack."""
    parts = [to_torch(v, dtype) if not isinstance(v, (list, tuple)) else _pack(v, dtype)
             for v in values]
    if dtype is None:
        dtype = next(dtypes.from_torch(p.dtype) for p in parts if isinstance(p, torch.Tensor))
        parts = [p if p.dtype is dtype.torch_dtype else to_torch(v, dtype)
                 for p, v in zip(parts, values)]
    return torch.stack(parts)


def _dtype_mismatch(value, dtype):
    return ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                      % (dtype.name, tensor_dtype(value).name, value))


def tensor_dtype(value):
    """The tf.DType of a tensor, variable or torch tensor."""
    if isinstance(value, torch.Tensor):
        return dtypes.from_torch(value.dtype)
    return value.dtype.base_dtype


_PY_SCALARS = (int, float)


def binary_operands(x, y, op_name=errors.RUNNING_OP):
    """Convert two operands the way TF's binary ops do.

    A tensor's dtype wins; the other operand is converted to it (Python scalars are passed
    to torch as scalars, which keeps the dtype). Two tensors of different dtypes raise
    `InvalidArgumentError` (TF never promotes float32+float64 or int32+float32) naming
    `op_name`, by default the op being run (`errors.name_running_op`).
    """
    x_type, y_type = type(x), type(y)
    if x_type is EagerTensor and y_type is EagerTensor:     # the common case, inlined
        tx, ty = x._t, y._t
        if tx.dtype is not ty.dtype:
            raise _operand_mismatch(op_name, tx, ty)
        return tx, ty
    x_is_tensor = x_type is EagerTensor or (x_type not in _PY_SCALARS and (
        isinstance(x, torch.Tensor) or is_tensor_value(x)))
    y_is_tensor = y_type is EagerTensor or (y_type not in _PY_SCALARS and (
        isinstance(y, torch.Tensor) or is_tensor_value(y)))
    if x_is_tensor:
        tx = to_torch(x)
        if y_is_tensor:
            ty = to_torch(y)
            if tx.dtype is not ty.dtype:
                raise _operand_mismatch(op_name, tx, ty)
            return tx, ty
        return tx, _operand_like(y, tx)
    if y_is_tensor:
        ty = to_torch(y)
        return _operand_like(x, ty), ty
    tx = to_torch(x)
    return tx, _operand_like(y, tx)


def _operand_like(value, like):
    """Convert a non-tensor operand to the dtype of tensor `like` (Python scalars stay)."""
    if type(value) in _PY_SCALARS and not isinstance(like, np.ndarray):
        if type(value) is float and not like.is_floating_point() and not like.is_complex():
            if not value.is_integer():
                raise TypeError("Cannot convert %r to EagerTensor of dtype %s" % (
                    value, dtypes.from_torch(like.dtype).name))
            return int(value)
        if type(value) is int and not like.is_floating_point() and not like.is_complex() \
                and like.dtype is not torch.bool:
            info = torch.iinfo(like.dtype)
            if not info.min <= value <= info.max:
                raise TypeError("Cannot convert %d to EagerTensor of dtype %s: out of range"
                                % (value, dtypes.from_torch(like.dtype).name))
        return value
    if isinstance(like, np.ndarray):
        return to_torch(value, dtypes.string)
    t = to_torch(value, dtypes.from_torch(like.dtype))
    return t if t.device == like.device or t.ndim == 0 else t.to(like.device)


def _operand_mismatch(op_name, tx, ty):
    return _mismatched_dtypes(
        "cannot compute %s as input #1(zero-based) was expected to be a %s tensor but is a "
        "%s tensor" % (op_name, dtypes.from_torch(tx.dtype).name,
                       dtypes.from_torch(ty.dtype).name), tx)


def _mismatched_dtypes(message, t):
    """Inputs of an op disagreeing in dtype: the kernel's InvalidArgumentError, or TypeError
    while a graph is built (`t` a fake tensor), as TF checks input dtypes in Python before
    it adds a node."""
    return TypeError(message) if isinstance(t, FakeTensor) else \
        errors.InvalidArgumentError(message)


def same_dtype_tensors(values, op_name=errors.RUNNING_OP, dtype=None):
    """Convert a list of values (concat, stack, add_n ...) to torch tensors of one dtype;
    a value of another dtype raises an error naming `op_name` (default: the op being run)."""
    if dtype is None:
        for value in values:
            if is_tensor_value(value) or isinstance(value, torch.Tensor):
                dtype = tensor_dtype(value)
                break
    converted = [to_torch(v) if dtype is None else _to_dtype_strict(v, dtype, op_name)
                 for v in values]
    if dtype is None and converted:
        first = converted[0].dtype
        converted = [c if c.dtype is first else c.to(first) for c in converted]
    return converted


def _to_dtype_strict(value, dtype, op_name):
    t = to_torch(value) if is_tensor_value(value) or isinstance(value, torch.Tensor) \
        else to_torch(value, dtype)
    if not isinstance(t, np.ndarray) and t.dtype is not dtype.torch_dtype:
        raise _mismatched_dtypes("%s: all inputs must have the same dtype; got %s and %s" % (
            op_name, dtype.name, dtypes.from_torch(t.dtype).name), t)
    return t


# ---------------------------------------------------------------- the op decorator


def wrap(result):
    """Wrap an op's torch results as EagerTensors (nested tuples/lists/namedtuples kept)."""
    cls = type(result)
    if cls is torch.Tensor:
        return EagerTensor(result)
    if cls is tuple or cls is list:
        return cls(wrap(r) for r in result)
    if isinstance(result, tuple) and hasattr(result, "_fields"):
        return cls(*(wrap(r) for r in result))
    if cls is np.ndarray and result.dtype == object:
        return EagerTensor(result)
    return result


NO_GRADIENT_OP_TYPES = set()


class _NoRegisteredGradient(torch.autograd.Function):
    """Identity whose backward raises TF's error for an op without a registered gradient."""

    @staticmethod
    def forward(ctx, value, op_type):
        ctx.op_type = op_type
        return value.view_as(value)

    @staticmethod
    def backward(ctx, grad):
        raise LookupError("gradient registry has no entry for: %s" % ctx.op_type)


def without_gradient(value, op_type):
    """`value` (an op's torch output) made to raise TF's LookupError ("gradient registry has
    no entry for: <op_type>") when a gradient flows back through it; unchanged when autograd
    does not track it (no tape, no source requiring grad)."""
    if torch.is_grad_enabled() and type(value) is torch.Tensor and value.requires_grad:
        return _NoRegisteredGradient.apply(value, op_type)
    return value


def _with_no_gradient(fn, op_type):
    """`fn` whose tensor result raises TF's LookupError when differentiated."""
    @functools.wraps(fn)
    def no_gradient_fn(*args, **kwargs):
        return without_gradient(fn(*args, **kwargs), op_type)
    return no_gradient_fn


LOWERINGS = {}
"""op function -> its lowering for graph runs. `lowering(*values)` is given a graph node's
arguments when they are its input tensors, in order, possibly followed by Python numbers,
with nothing but a `name` besides: the inputs as fake values (dtype and rank as the graph
knows them), the numbers as they are. It returns a function of the input tensors alone that
computes the op exactly for such arguments (the numbers bound), or None. A graph run then
calls that function on the inputs directly, skipping the op's operand conversion and
checks; where it raises, the op's own function runs and raises TF's error (lowered ops are
pure)."""

def number_operand(number, like):
    """A Python number as the scalar operand of torch ops over tensors like `like`: on the
    CPU, for float32/float64, a 0-d tensor of that dtype (the kernels compute in that dtype
    either way, so the result is the same, and torch no longer wraps and casts the number on
    every call, ~1 us, or once per tensor of a foreach op's list); else the number."""
    if like.device.type != "cpu" or like.dtype not in (torch.float32, torch.float64):
        return number
    return torch.scalar_tensor(number, dtype=like.dtype)


def same_dtype_lowering(torch_fn, accepts, min_rank=0, numbers=False):
    """A lowering to `torch_fn(*inputs, *numbers)` for input tensors all of one dtype that
    `accepts` (a set of torch dtypes, or a check of a tensor), each of rank `min_rank` or
    more. With `numbers`, one tensor may be followed by one Python int or float, for a
    floating-point tensor (torch computes in its dtype, as TF converts the number to it),
    bound as `number_operand` makes it."""
    def lowering(*values):
        tensors = [v for v in values if isinstance(v, torch.Tensor)]
        dtype = tensors[0].dtype
        if not (dtype in accepts if isinstance(accepts, frozenset) else accepts(tensors[0])):
            return None
        if any(t.dtype is not dtype or t.ndim < min_rank for t in tensors):
            return None
        if len(tensors) == len(values):
            return torch_fn
        if not (numbers and len(values) == 2 and tensors[0].is_floating_point()):
            return None
        number = number_operand(values[1], tensors[0])
        return lambda x: torch_fn(x, number)
    return lowering


def op(*paths, v1=(), v2=(), graph_name=None, fast_binary=None, no_gradient=False,
       lowering=None):
    """Register `fn` (a function over torch tensors) as a TF op under its TF paths.

    `graph_name` is the TF op type used for node names in graphs (default: derived from the
    function name, `reduce_mean` -> `Mean` is given explicitly where TF differs).
    `fast_binary=(torch_fn, dtypes)`, for elementwise ops taking `(x, y, name=None)`: two
    eager tensors of one dtype among `dtypes` go straight to `torch_fn`, which gives the
    op's result for them; other operands, and torch's errors, take the op's own path.
    `lowering`: how graph runs may call a torch function directly (see LOWERINGS).
    `no_gradient=True` marks an op TF registers no gradient for (not NotDifferentiable ops,
    whose gradient is None): differentiating through it raises TF's LookupError.
    An error the op raises with `errors.RUNNING_OP` ("{op}") in its message, as the check
    helpers word theirs, names the op type there (eagerly here, in graphs by the node).
    """
    def decorate(fn):
        op_type = graph_name or "".join(p.capitalize() for p in fn.__name__.split("_"))
        if no_gradient:
            NO_GRADIENT_OP_TYPES.add(op_type)
            fn = _with_no_gradient(fn, op_type)
        if lowering is not None:
            if no_gradient:
                raise ValueError("%s: a lowered op would skip its no-gradient check" % op_type)
            LOWERINGS[fn] = lowering

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if _state.building_graph:
                try:
                    return _graph().record(fn, op_type, args, kwargs)
                except CompositeTensorArgument as error:
                    return _composite_op(wrapper, op_type, args, kwargs, error)
            try:
                result = fn(*args, **kwargs)
            except CompositeTensorArgument as error:
                return _composite_op(wrapper, op_type, args, kwargs, error)
            except GraphTensorInEagerError as error:
                # TF ops on Keras symbolic tensors (tf.keras.Input) in eager code are
                # recorded in the graph those tensors live in (Keras makes them layers)
                graph = error.tensor.graph
                if not getattr(graph, "keras_graph", False):
                    raise
                with graph.as_default():
                    return _graph().record(fn, op_type, args, kwargs)
            except Exception as error:      # noqa: BLE001 - named and re-raised
                errors.name_running_op(error, op_type)
                raise
            if type(result) is torch.Tensor:
                return EagerTensor(result)
            return wrap(result)

        if fast_binary is not None:
            wrapper = _with_fast_binary(wrapper, fn, *fast_binary)
        wrapper._tfcompat_impl = fn
        wrapper._tfcompat_op_type = op_type
        if paths or v1 or v2:
            tf_export(*paths, v1=v1, v2=v2)(wrapper)
        return wrapper
    return decorate


def run_impl(op_fn, *args, **kwargs):
    """Run registered op `op_fn`'s torch function inside another op's body; its errors name
    `op_fn`'s op type (`tf.linalg.logdet` of a non-square matrix fails in Cholesky, as in
    TF), where calling `op_fn._tfcompat_impl` directly would name the enclosing op."""
    try:
        return op_fn._tfcompat_impl(*args, **kwargs)
    except Exception as error:      # noqa: BLE001 - named and re-raised
        errors.name_running_op(error, op_fn._tfcompat_op_type)
        raise


def _with_fast_binary(general, fn, torch_fn, fast_dtypes):
    """`general` (an op wrapper of `fn(x, y, name=None)`) with the `fast_binary` path of
    `op` in front: a few type checks and the torch call, for the common case."""
    @functools.wraps(fn)
    def wrapper(x, y, name=None):
        if type(x) is EagerTensor and type(y) is EagerTensor and not _state.building_graph:
            a, b = x._t, y._t
            if a.dtype is b.dtype and a.dtype in fast_dtypes:
                try:
                    return EagerTensor(torch_fn(a, b))
                except RuntimeError:
                    pass    # broadcasting errors: the op's own path raises TF's error
        return general(x, y, name=name)
    return wrapper


def variable_snapshot(value, out):
    """`out`, computed from `value`, copied where `value` is a variable (not a tensor) and
    `out` may be its storage or a view of it: TF reads the variable's value at that point,
    and a view of its storage would change with later assignments. Values whose conversion
    makes a new tensor (IndexedSlices, partitioned variables: `_tfcompat_tensor_is_new_`)
    are not copied again."""
    if type(value) is EagerTensor or isinstance(value, torch.Tensor) or \
            not hasattr(value, "_tfcompat_tensor_") or \
            getattr(value, "_tfcompat_tensor_is_new_", False):
        return out
    if isinstance(out, (list, tuple)):
        return type(out)(variable_snapshot(value, o) for o in out)
    return out.copy() if isinstance(out, np.ndarray) else out.clone()


@tf_export("convert_to_tensor", v1=["convert_to_tensor_or_indexed_slices"])
def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None):
    """`tf.convert_to_tensor`: tensors come back as they are; other values become constants."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    hint = preferred_dtype if preferred_dtype is not None else dtype_hint
    if _state.building_graph:
        return _graph().convert(value, dtype, name, hint)
    if type(value) is EagerTensor and dtype is None:
        return value
    if dtype is None and hint is not None and not is_tensor_value(value):
        try:
            return EagerTensor(to_torch(value, dtypes.as_dtype(hint)))
        except (TypeError, ValueError):
            pass
    t = to_torch(value, dtype)
    if type(value) is EagerTensor:
        return value
    return EagerTensor(variable_snapshot(value, t))


@tf_export(v2=["convert_to_tensor"])
def convert_to_tensor_v2(value, dtype=None, dtype_hint=None, name=None):
    return convert_to_tensor(value, dtype=dtype, name=name, dtype_hint=dtype_hint)


@tf_export("is_tensor")
def is_tensor(x):
    """TF's: tensors, variables and composite tensors (RaggedTensor, SparseTensor)."""
    return isinstance(x, Tensor) or hasattr(x, "_tfcompat_tensor_") or \
        getattr(x, "is_tensor_like", False)


# ---------------------------------------------------------------- name scopes


class _EagerNameScopes(threading.local):
    """The eager name-scope stack, per thread as in TF's eager context."""

    def __init__(self):
        self.stack = [""]


_eager_scopes = _EagerNameScopes()


def current_scope():
    """The current name-scope prefix, e.g. "outer/inner/" ("" at the top)."""
    if _state.building_graph:
        return _graph().current_scope()
    return _eager_scopes.stack[-1]


@contextlib.contextmanager
def _eager_name_scope(name):
    stack = _eager_scopes.stack
    if name is None or name == "":
        stack.append("")
    elif name.endswith("/"):
        stack.append(name)
    else:
        stack.append(stack[-1] + name + "/")
    try:
        yield stack[-1]
    finally:
        stack.pop()


@tf_export(v1=["name_scope", "keras.backend.name_scope"])
def name_scope(name, default_name=None, values=None):
    """TF1 `tf.name_scope(name, default_name, values)`; yields the scope string "a/b/"."""
    name = name if name is not None else default_name
    if _state.building_graph:
        return _graph().name_scope(name)
    return _eager_name_scope(name)


@tf_export(v2=["name_scope"])
def name_scope_v2(name):
    """TF2 `tf.name_scope(name)`."""
    if name is None or not isinstance(name, str):
        raise ValueError("name for name_scope must be a string, not %r" % (name,))
    return name_scope(name)


def variable_storage(value):
    """The torch tensor that holds a variable's value, for ops that update it in place.

    Eager ops receive the variable object; graph-mode execution passes its storage tensor.
    """
    return value if isinstance(value, torch.Tensor) else value._storage()


_NOTHING_TO_LEAVE = contextlib.nullcontext()


@tf_export("init_scope")
def init_scope():
    """Leave every function graph being traced and clear control dependencies, as TF's
    `tf.init_scope` does.

    Variables created while a tf.function traces are created here, in the eager context
    (or the outermost TF1 graph), so they outlive the trace; their initializers never wait
    for the ops of an enclosing `tf.control_dependencies` block.
    """
    if not _state.building_graph:     # eager already: nothing to leave or clear
        return _NOTHING_TO_LEAVE
    return _leave_graphs()


@contextlib.contextmanager
def _leave_graphs():
    saved = list(_state.graph_stack)
    _state.graph_stack[:] = [g for g in saved if not getattr(g, "building_function", False)]
    context._refresh()
    try:
        if _state.building_graph:
            with _graph().control_dependencies_cleared():
                yield
        else:
            yield
    finally:
        _state.graph_stack[:] = saved
        context._refresh()
