"""TF ops applied to Keras symbolic tensors become layers (TF 2.0-2.3's TensorFlowOpLayer).

`y = tf.nn.relu(x) * 2` on a `tf.keras.Input` records plain ops in the graph of the Keras
tensors. When a functional model is built, `create_keras_history` turns each op between the
model's inputs and its outputs into a `TensorFlowOpLayer` named "tf_op_layer_<op name>",
called on the op's Keras-tensor inputs: the model re-runs it on real inputs, and it shows in
`model.layers`, `summary()` and the model's config, as in TF. Op inputs that do not depend on
Keras tensors are folded into the layer as constants (computed once, as TF does); a variable
used directly by the op stays a live variable.

Where we differ: the config names the op's function in tfcompat (`"function"`) and its
non-tensor arguments instead of TF's NodeDef, so only tfcompat reads it back.
"""
import importlib

import numpy as np
import torch

from tfcompat.framework import context, dtypes, ops
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
        fed = iter(inputs if isinstance(inputs, (list, tuple)) else [inputs])
        values = [self._constants[i] if i in self._constants else next(fed)
                  for i in range(self._slot_count)]
        args, kwargs = _fill(self._args, values), _fill(self._kwargs, values)
        if _state.building_graph:
            return get_default_graph().record(self._function, self._op_type, args, kwargs)
        return ops.wrap(self._function(*args, **kwargs))

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
        function = _resolve_function(config.pop("function"))
        constants = {int(i): _decode(v) for i, v in config.pop("constants", {}).items()}
        return cls(function, config.pop("op_type"), _decode(config.pop("args")),
                   _decode(config.pop("kwargs")), constants, **config)


def _count_slots(template):
    if isinstance(template, _Slot):
        return template.index + 1
    if isinstance(template, (list, tuple)):
        return max([_count_slots(t) for t in template] + [0])
    if isinstance(template, dict):
        return max([_count_slots(t) for t in template.values()] + [0])
    return 0


# ---------------------------------------------------------------- building op layers


def _is_keras_tensor(tensor):
    return getattr(tensor, "_keras_history", None) is not None


def depends_on_keras_tensors(tensor, memo=None):
    """True when `tensor` is a Keras tensor or computed by ops from one."""
    memo = {} if memo is None else memo
    if _is_keras_tensor(tensor):
        return True
    if not isinstance(tensor, SymbolicTensor):
        return False
    key = id(tensor.op)
    if key not in memo:
        memo[key] = False  # an op's inputs never lead back to it
        memo[key] = any(depends_on_keras_tensors(t, memo) for t in tensor.op.inputs)
    return memo[key]


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
    path = "%s.%s" % (function.__module__, function.__qualname__)
    if not function.__module__.startswith("tfcompat.") or "<" in path or \
            _resolve_function(path) is not function:
        raise NotImplementedError("Layer %s runs %s, which tfcompat cannot serialize; use a "
                                  "Lambda layer or save the weights only." % (layer_name, path))
    return path


def _resolve_function(path):
    """The op function named by `path` ("tfcompat.ops.nn_ops.relu"): only tfcompat's own."""
    if not path.startswith("tfcompat."):
        raise ValueError("Refusing to load op function %s: TensorFlowOpLayer configs name "
                         "tfcompat ops only." % path)
    parts = path.split(".")
    for split in range(len(parts) - 1, 1, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for attribute in parts[split:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            break
        return getattr(obj, "_tfcompat_impl", obj)
    raise ValueError("Unknown op function %s in a TensorFlowOpLayer config." % path)


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
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__slot__" in value:
        return _Slot(value["__slot__"])
    if "__tuple__" in value:
        return tuple(_decode(v) for v in value["__tuple__"])
    if "__dict__" in value:
        return {k: _decode(v) for k, v in value["__dict__"].items()}
    if "__slice__" in value:
        return slice(*[_decode(v) for v in value["__slice__"]])
    if "__ellipsis__" in value:
        return Ellipsis
    if "__dtype__" in value:
        return dtypes.as_dtype(value["__dtype__"])
    if "__shape__" in value:
        return TensorShape(value["__shape__"])
    if "__ndarray__" in value:
        return np.asarray(value["__ndarray__"], dtype=value["dtype"])
    if "__tensor__" in value:
        dtype = dtypes.as_dtype(value["dtype"])
        return ops.constant_to_torch(np.asarray(value["__tensor__"],
                                                dtype=dtype.as_numpy_dtype), dtype)
    raise ValueError("Cannot decode TensorFlowOpLayer argument %r" % (value,))
