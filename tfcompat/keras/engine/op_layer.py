"""TF ops applied to Keras symbolic tensors become layers (TF 2.0-2.3's TensorFlowOpLayer).

`y = tf.nn.relu(x) * 2` on a `tf.keras.Input` records plain ops in the graph of the Keras
tensors. When a functional model is built, `create_keras_history` turns each op between the
model's inputs and its outputs into a `TensorFlowOpLayer` named "tf_op_layer_<op name>",
called on the op's Keras-tensor inputs: the model re-runs it on real inputs, and it shows in
`model.layers`, `summary()` and the model's config, as in TF. Op inputs that do not depend on
Keras tensors are folded into the layer as constants (computed once, as TF does); a variable
used directly by the op stays a live variable.

Where we differ: the config names the op by its public TF path (`"function": "nn.relu"`,
`"compat.v1.nn.dropout"` where the API versions differ) with its non-tensor arguments instead
of TF's NodeDef, so only tfcompat reads it back. Loading resolves that path in the registry of
exported TF ops and nothing else: a config naming any other function is refused.
"""
import types

import numpy as np
import torch

from tfcompat import _api
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.graph import BoundOp, SymbolicTensor, _fill, _Slot, get_default_graph
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras.engine.base_layer import Layer, Node
from tfcompat.variables import Variable

_state = context.state
PREFIX = "tf_op_layer_"


class TensorFlowOpLayer(Layer):
    """One TF op of a functional model: `function(*args, **kwargs)` with the op's tensor
    arguments filled from the layer's inputs (and the `constants`, by argument slot)."""

    def __init__(self, function, op_type, args, kwargs, constants=None, name=None,
                 trainable=True, dtype=None):
        super(TensorFlowOpLayer, self).__init__(name=name, trainable=trainable, dtype=dtype,
                                                autocast=False)
        self._function = function
        self._op_type = op_type
        self._args = args
        self._kwargs = kwargs
        self._constants = dict(constants or {})
        self._slot_count = _count_slots((args, kwargs))
        self.built = True

    @classmethod
    def from_operation(cls, operation, constants):
        """The layer re-running `operation`; `constants` maps argument slots to values."""
        bound = operation._node.target
        kwargs = {k: v for k, v in bound.kwargs_template.items() if k != "name"}
        return cls(bound.fn, bound.op_type, bound.args_template, kwargs, constants,
                   name=PREFIX + operation.name)

    def call(self, inputs):
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(inputs) != self._slot_count - len(self._constants):
            raise ValueError("Layer %s (op %s) takes %d tensor inputs, got %d"
                             % (self.name, self._op_type,
                                self._slot_count - len(self._constants), len(inputs)))
        fed = iter(inputs)
        values = [self._constants[i] if i in self._constants else next(fed)
                  for i in range(self._slot_count)]
        args, kwargs = _fill(self._args, values), _fill(self._kwargs, values)
        if _state.building_graph:
            return get_default_graph().record(self._function, self._op_type, args, kwargs)
        try:
            return ops.wrap(self._function(*args, **kwargs))
        except Exception as error:      # noqa: BLE001 - named and re-raised
            errors.name_running_op(error, self._op_type)
            raise

    def get_config(self):
        config = super(TensorFlowOpLayer, self).get_config()
        config.update({
            "function": _function_path(self._function, self.name),
            "op_type": self._op_type,
            "args": _encode(self._args, self.name),
            "kwargs": _encode(self._kwargs, self.name),
            "constants": {str(i): _encode_constant(v, self.name)
                          for i, v in sorted(self._constants.items())}})
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        name = config.get("name")
        function = _resolve_function(config.pop("function", None))
        op_type = config.pop("op_type", None)
        args, kwargs = _decode(config.pop("args", None)), _decode(config.pop("kwargs", None))
        constants = config.pop("constants", {})
        if not isinstance(op_type, str) or not isinstance(args, tuple) or \
                not isinstance(kwargs, dict) or not isinstance(constants, dict) or \
                not all(key.isdigit() for key in constants):
            raise ValueError("Malformed TensorFlowOpLayer config for layer %r: it needs "
                             "`op_type` (a string), `args` (a tuple), `kwargs` (a dict) and "
                             "`constants` (argument slot -> value)." % (name,))
        constants = {int(i): _decode(v) for i, v in constants.items()}
        slots = _slot_indices((args, kwargs))
        if sorted(slots) != list(range(len(slots))) or \
                not set(constants) <= set(range(len(slots))):
            raise ValueError("Malformed TensorFlowOpLayer config for layer %r: argument slots "
                             "%s and constants %s do not number the op's tensor arguments "
                             "0, 1, ..." % (name, sorted(slots), sorted(constants)))
        return cls(function, op_type, args, kwargs, constants, **config)


def _count_slots(template):
    return max(_slot_indices(template), default=-1) + 1


def _slot_indices(template):
    """The tensor-argument slot numbers in an argument template, in order."""
    if isinstance(template, _Slot):
        return [template.index]
    if isinstance(template, dict):
        template = list(template.values())
    if isinstance(template, (list, tuple)):
        return [index for t in template for index in _slot_indices(t)]
    return []


# ---------------------------------------------------------------- building op layers


def _is_keras_tensor(tensor):
    return getattr(tensor, "_keras_history", None) is not None


def depends_on_keras_tensors(tensor, memo=None):
    """True when `tensor` is a Keras tensor or computed by ops from one. `memo` maps id(op)
    to that answer for the op's outputs; the walk is a loop (graphs may be thousands of ops
    deep, as when a layer is called on a long chain of TF1 ops)."""
    memo = {} if memo is None else memo
    if _is_keras_tensor(tensor):
        return True
    if not isinstance(tensor, SymbolicTensor):
        return False
    stack = [(tensor.op, False)]
    while stack:
        operation, inputs_done = stack.pop()
        key = id(operation)
        if inputs_done:
            memo[key] = any(_is_keras_tensor(t) or isinstance(t, SymbolicTensor) and
                            memo[id(t.op)] for t in operation.inputs)
        elif key not in memo:
            memo[key] = False  # an op's inputs never lead back to it
            stack.append((operation, True))
            stack.extend((t.op, False) for t in operation.inputs
                         if isinstance(t, SymbolicTensor) and not _is_keras_tensor(t))
    return memo[id(tensor.op)]


def create_keras_history(tensors):
    """Give every op that computes `tensors` from Keras tensors a TensorFlowOpLayer (and its
    outputs Keras history), inputs first."""
    memo = {}

    def visit(tensor):
        if _is_keras_tensor(tensor) or not depends_on_keras_tensors(tensor, memo):
            return
        operation = tensor.op
        if not isinstance(operation._node.target, BoundOp):
            raise NotImplementedError(
                "tfcompat cannot re-apply op %s (type %s) to a Keras model's inputs: it is not "
                "a plain TF op. Wrap that computation in a tf.keras.layers.Lambda layer."
                % (operation.name, operation.type))
        for t in operation.inputs:
            visit(t)
        keras_inputs, constants = [], {}
        for i, t in enumerate(operation.inputs):
            if _is_keras_tensor(t):
                keras_inputs.append(t)
            else:
                constants[i] = _constant_value(t)
        layer = TensorFlowOpLayer.from_operation(operation, constants)
        node = Node(layer, (keras_inputs,), {}, list(operation.outputs))
        layer._inbound_nodes.append(node)
        for inbound in node.inbound_layers():
            inbound._outbound_nodes.append(node)
        for i, output in enumerate(operation.outputs):
            output._keras_history = (layer, 0, i)

    for tensor in tensors:
        visit(tensor)


def _constant_value(tensor):
    """The value an op input that does not depend on Keras tensors stands for: the variable
    itself, a captured value, or (any other op) its value computed now."""
    node = tensor.op._node
    kind = node.meta.get("input_kind")
    if kind == "variable":
        return node.meta["variable"]
    if kind == "capture":
        return node.meta["value"]
    return _evaluate(tensor)


def _evaluate(tensor):
    node = tensor.op._node
    kind = node.meta.get("input_kind")
    if kind == "variable":
        return ops.to_torch(node.meta["variable"])
    if kind == "capture":
        return node.meta["value"]
    bound = node.target
    if kind is not None or not isinstance(bound, BoundOp):
        raise ValueError("Graph disconnected: cannot obtain value for tensor %s. It is not an "
                         "input of the model and not computed by a layer from the model's "
                         "inputs." % (tensor,))
    with torch.no_grad():
        result = bound(*[_evaluate(t) for t in tensor.op.inputs])
    return result[tensor.value_index] if isinstance(result, (list, tuple)) else result


# ---------------------------------------------------------------- config encoding


def _function_path(function, layer_name):
    """The TF path naming op implementation `function` in a config (see `_op_path`)."""
    path = _op_path(function)
    if path is None:
        raise NotImplementedError("Layer %s runs %s.%s, which is not an exported TF op, so "
                                  "tfcompat cannot serialize it; use a Lambda layer or save "
                                  "the weights only." % (layer_name, function.__module__,
                                                         function.__qualname__))
    return path


def _resolve_function(path):
    """The op implementation a config's `"function"` names: an exported TF op's public path
    ("nn.relu", "compat.v1.nn.dropout"), or the tfcompat function path that configs written
    before used ("tfcompat.ops.nn_ops.relu") when it is such an op's implementation."""
    impl = None
    if isinstance(path, str):
        impl = _lookup_op(path) or _op_impl(exported_op_defined_as(path))
    if impl is None:
        raise ValueError("Refusing to load op function %r in a TensorFlowOpLayer config: it "
                         "is not an exported TF op (configs name ops by their TF path, e.g. "
                         "'math.add' or 'nn.relu')." % (path,))
    return impl


def _op_impl(exported):
    """The torch implementation of a registered TF op; None for any other registered object."""
    if isinstance(exported, types.FunctionType):
        return getattr(exported, "_tfcompat_impl", None)
    return None


def _lookup_op(path, flavor=None):
    """The implementation of the op that `tf.<path>` is in the registry (for the running
    script's API flavour unless `path` starts with compat.v1./compat.v2. or `flavor` says);
    None when that is not an exported op."""
    flavor = flavor or _api.flavor()
    for prefix, version in (("compat.v1.", "v1"), ("compat.v2.", "v2")):
        if path.startswith(prefix):
            path, flavor = path[len(prefix):], version
    return _op_impl(_api._winner(path, flavor))


def _exported_ops():
    """(path as configs write it, exported op) for every op in the registry: common paths,
    then v2-only ones as "compat.v2.<path>", then v1-only ones as "compat.v1.<path>"."""
    for table, prefix in ((_api._COMMON, ""), (_api._V2, "compat.v2."),
                          (_api._V1, "compat.v1.")):
        for path, exported in table.items():
            if _op_impl(exported) is not None:
                yield prefix + path, exported


def _op_path(impl):
    """A path under which both API flavours find op implementation `impl` ("math.add";
    "compat.v1.nn.dropout" where v1 and v2 differ); None when `impl` is not an exported op."""
    for path, exported in _exported_ops():
        if _op_impl(exported) is impl and \
                all(_lookup_op(path, flavor) is impl for flavor in ("v1", "v2")):
            return path
    return None


def exported_op_defined_as(qualified_name):
    """The exported TF op whose implementation is defined as `qualified_name`
    ("tfcompat.ops.nn_ops.relu"), found in the registry, never imported; None otherwise."""
    for _, exported in _exported_ops():
        impl = exported._tfcompat_impl
        if "%s.%s" % (impl.__module__, impl.__qualname__) == qualified_name:
            return exported
    return None


def _encode(value, layer_name):
    """An op argument template as JSON-able data (tensor slots, tuples, slices, dtypes)."""
    if isinstance(value, _Slot):
        return {"__slot__": value.index}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return {"__tuple__": [_encode(v, layer_name) for v in value]}
    if isinstance(value, list):
        return [_encode(v, layer_name) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": {k: _encode(v, layer_name) for k, v in value.items()}}
    if isinstance(value, slice):
        return {"__slice__": [_encode(v, layer_name)
                              for v in (value.start, value.stop, value.step)]}
    if value is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(value, dtypes.DType):
        return {"__dtype__": value.name}
    if isinstance(value, TensorShape):
        return {"__shape__": value.as_list() if value.rank is not None else None}
    if isinstance(value, (np.ndarray, np.generic)):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.name}
    raise NotImplementedError("Layer %s has an op argument tfcompat cannot serialize: %r; use "
                              "a Lambda layer or save the weights only." % (layer_name, value))


def _encode_constant(value, layer_name):
    if isinstance(value, Variable):
        raise NotImplementedError("Layer %s uses variable %s directly; tfcompat cannot "
                                  "serialize it. Keep variables in layers (or save the weights "
                                  "only)." % (layer_name, value.name))
    if not isinstance(value, torch.Tensor):
        raise NotImplementedError("Layer %s uses a string constant; tfcompat cannot serialize "
                                  "it. Use a Lambda layer or save the weights only."
                                  % layer_name)
    return {"__tensor__": value.detach().cpu().numpy().tolist(),
            "dtype": dtypes.from_torch(value.dtype).name}


def _decode(value):
    """The argument template `_encode` wrote (ValueError for anything else)."""
    try:
        return _decode_value(value)
    except (TypeError, KeyError, IndexError, AttributeError, errors.OpError) as error:
        raise ValueError("Cannot decode TensorFlowOpLayer argument %r: %s"
                         % (value, error)) from None


def _decode_value(value):
    if isinstance(value, list):
        return [_decode_value(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__slot__" in value:
        index = value["__slot__"]
        if type(index) is not int or index < 0:
            raise TypeError("a slot is a non-negative integer")
        return _Slot(index)
    if "__tuple__" in value:
        return tuple(_decode_value(v) for v in _json_list(value["__tuple__"]))
    if "__dict__" in value:
        return {k: _decode_value(v) for k, v in value["__dict__"].items()}
    if "__slice__" in value:
        return slice(*[_decode_value(v) for v in _json_list(value["__slice__"], 3)])
    if "__ellipsis__" in value:
        return Ellipsis
    if "__dtype__" in value:
        return dtypes.as_dtype(value["__dtype__"])
    if "__shape__" in value:
        return TensorShape(value["__shape__"])
    if "__ndarray__" in value:
        return np.asarray(value["__ndarray__"], dtype=_numeric_dtype(value).as_numpy_dtype)
    if "__tensor__" in value:
        dtype = _numeric_dtype(value)
        return ops.constant_to_torch(np.asarray(value["__tensor__"],
                                                dtype=dtype.as_numpy_dtype), dtype)
    raise ValueError("Cannot decode TensorFlowOpLayer argument %r" % (value,))


def _json_list(value, length=None):
    if not isinstance(value, list) or length is not None and len(value) != length:
        raise TypeError("expected a list%s" % ("" if length is None else " of %d" % length))
    return value


def _numeric_dtype(value):
    dtype = dtypes.as_dtype(value["dtype"])
    if dtype.torch_dtype is None or dtype.as_numpy_dtype is None:
        raise TypeError("constants are numeric or boolean, not %s" % dtype.name)
    return dtype
