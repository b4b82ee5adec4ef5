"""`tf.keras.layers.Layer` and `InputSpec` with Keras 2 semantics.

- `build(input_shape)` runs once, on the first `__call__`, with a `TensorShape`; weights come
  from `add_weight` and are named "<layer name>/<weight name>:0" (plus the enclosing layers'
  names, as Keras' name scopes give). Variables made while a `tf.function` traces are made
  outside it (`tf.init_scope`); in a TF1 graph they are graph variables.
- Sub-layers and variables assigned to attributes (also inside lists, tuples and dicts) are
  tracked: their weights, losses and updates belong to the layer. A layer is a `tf.Module`:
  the variables of plain `tf.Module`s it holds are among its weights, and `submodules` (or a
  `tf.Module` holding the layer) walks the same attributes Keras tracks.
- dtypes (Keras 2): a layer's dtype policy (keras/mixed_precision/policy.py) is its `dtype`
  argument (a dtype, a policy name or a Policy), else the global policy (`floatx()` unless
  `set_global_policy` set one) when it is made; `dtype` / `variable_dtype` is the variables'
  dtype, `compute_dtype` the one its call casts floating inputs to (numpy arrays and tensors
  in the first argument; integer ones stay as they are, `Dense` casts those in its call).
  Under a mixed policy its floating weights are AutoCastVariables, read in the compute dtype
  inside its call. TF1 (Keras in TF 1.15): without a `dtype` argument a layer takes its
  first input's floating dtype when built, and only numpy inputs are cast.
- `training`: an explicit value wins, then the value of the enclosing layer call, then a
  learning phase fixed with `set_learning_phase`; else the `call` signature's default.
- Called on Keras symbolic tensors (`tf.keras.Input`) the call is recorded as a `Node`, from
  which functional models re-apply the layer to real inputs.
"""
import contextlib
import inspect
import threading

import numpy as np

from tfcompat import _api
from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, ops
from tfcompat.framework.graph import SubGraph, SymbolicTensor, get_default_graph
from tfcompat.framework.tensor import EagerTensor, Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import backend, constraints, initializers, regularizers
from tfcompat.keras.mixed_precision import policy
from tfcompat.module.module import Module, ModuleNameScope
from tfcompat.variables import Variable, VariableAggregation, VariableSynchronization
from tfcompat.trackable import tracking
from tfcompat.keras.metrics import Mean
from tfcompat.ops import array_ops, math_ops
from tfcompat.keras.engine import input_layer

_state = context.state
UPDATE_OPS = "update_ops"


# ---------------------------------------------------------------- nested structures


def flatten(structure):
    """Leaves of nested lists/tuples/dicts (dicts in sorted key order)."""
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    return [structure]


def map_structure(fn, structure):
    if isinstance(structure, (list, tuple)) and not hasattr(structure, "_fields"):
        return type(structure)(map_structure(fn, item) for item in structure)
    if isinstance(structure, tuple):
        return type(structure)(*(map_structure(fn, item) for item in structure))
    if isinstance(structure, dict):
        return {key: map_structure(fn, value) for key, value in structure.items()}
    return fn(structure)


def is_keras_tensor(value):
    return isinstance(value, Tensor) and getattr(value, "_keras_history", None) is not None


def _is_symbolic(value):
    return isinstance(value, Tensor) and not isinstance(value, EagerTensor)


def shape_of(structure):
    """TensorShape (or a structure of them) of tensors/arrays."""
    def one(x):
        shape = getattr(x, "shape", None)
        return TensorShape(shape) if shape is not None else TensorShape(np.shape(x))
    if isinstance(structure, (list, tuple)):
        return [shape_of(item) for item in structure]
    if isinstance(structure, dict):
        return {key: shape_of(value) for key, value in structure.items()}
    return one(structure)


# ---------------------------------------------------------------- call context


class _CallContext(threading.local):
    def __init__(self):
        self.stack = []             # (layer, training) of the layer calls in progress
        self.metric_updates = None  # a list collecting TF1-graph `add_metric` update ops
        self.graph_losses = None    # a list collecting TF1-graph losses added in calls


_call_context = _CallContext()


@contextlib.contextmanager
def collect_metric_updates():
    """Collect the update ops of `add_metric` calls made in a TF1 graph inside the block
    (Keras' graph-mode training functions run them with the train/test step)."""
    saved, _call_context.metric_updates = _call_context.metric_updates, []
    try:
        yield _call_context.metric_updates
    finally:
        _call_context.metric_updates = saved


@contextlib.contextmanager
def collect_graph_losses():
    """Collect the symbolic (TF1-graph) losses that layer calls inside the block add, e.g.
    the regularization of one application of a model to the training placeholders."""
    saved, _call_context.graph_losses = _call_context.graph_losses, []
    try:
        yield _call_context.graph_losses
    finally:
        _call_context.graph_losses = saved


def _in_keras_graph():
    """True while building the private graph of eager-mode Keras tensors (functional models
    under construction: nothing recorded there runs)."""
    if not _state.building_graph:
        return False
    return getattr(get_default_graph(), "keras_graph", False)


def _runs_eagerly_or_in_function():
    """TF's rule for `add_loss`/`add_metric`: eager code and tf.function traces keep per-call
    values; TF1 graphs and the Keras graph keep symbolic ones."""
    if not _state.building_graph:
        return True
    graph = get_default_graph()
    while isinstance(graph, SubGraph):
        graph = graph.outer
    return graph.building_function and not getattr(graph, "keras_graph", False)


def outer_training():
    """The `training` value of the innermost enclosing layer call that has one, else None."""
    for _, training in reversed(_call_context.stack):
        if training is not None:
            return training
    return None


# ---------------------------------------------------------------- InputSpec


@tf_export("keras.layers.InputSpec", v1=["layers.InputSpec"])
class InputSpec(object):
    """What a layer accepts: dtype, shape or rank bounds, and fixed sizes of some axes."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None):
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else None
        self.shape = None if shape is None else TensorShape(shape).as_list()
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.axes = {int(k): v for k, v in (axes or {}).items()}

    def __repr__(self):
        spec = [("dtype=" + str(self.dtype)) if self.dtype else "",
                ("shape=" + str(self.shape)) if self.shape else "",
                ("ndim=" + str(self.ndim)) if self.ndim else "",
                ("max_ndim=" + str(self.max_ndim)) if self.max_ndim else "",
                ("min_ndim=" + str(self.min_ndim)) if self.min_ndim else "",
                ("axes=" + str(self.axes)) if self.axes else ""]
        return "InputSpec(%s)" % ", ".join(x for x in spec if x)

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def assert_input_compatibility(input_spec, inputs, layer_name):
    """Raise ValueError as Keras does when `inputs` do not match the layer's InputSpec."""
    if not input_spec:
        return
    specs = input_spec if isinstance(input_spec, (list, tuple)) else [input_spec]
    inputs = flatten(inputs)
    if len(inputs) != len(specs):
        raise ValueError("Layer %s expects %d input(s), but it received %d input tensors."
                         % (layer_name, len(specs), len(inputs)))
    for index, (x, spec) in enumerate(zip(inputs, specs)):
        if spec is None:
            continue
        shape = shape_of(x)
        rank = shape.rank
        if spec.ndim is not None and rank is not None and rank != spec.ndim:
            raise ValueError("Input %d of layer %s is incompatible with the layer: expected "
                             "ndim=%d, found ndim=%d. Full shape received: %s"
                             % (index, layer_name, spec.ndim, rank, shape))
        if spec.max_ndim is not None and rank is not None and rank > spec.max_ndim:
            raise ValueError("Input %d of layer %s is incompatible with the layer: expected "
                             "max_ndim=%d, found ndim=%d" % (index, layer_name, spec.max_ndim,
                                                             rank))
        if spec.min_ndim is not None and rank is not None and rank < spec.min_ndim:
            raise ValueError("Input %d of layer %s is incompatible with the layer: expected "
                             "min_ndim=%d, found ndim=%d. Full shape received: %s"
                             % (index, layer_name, spec.min_ndim, rank, shape))
        if spec.axes and rank is not None:
            for axis, value in spec.axes.items():
                size = shape.as_list()[axis] if -rank <= axis < rank else None
                if value is not None and size is not None and size != value:
                    raise ValueError("Input %d of layer %s is incompatible with the layer: "
                                     "expected axis %d of input shape to have value %d but "
                                     "received input with shape %s"
                                     % (index, layer_name, axis, value, shape))


# ---------------------------------------------------------------- nodes


class Node(object):
    """One call of a layer on Keras symbolic tensors: its arguments and outputs."""

    def __init__(self, layer, call_args, call_kwargs, outputs):
        self.layer = layer
        self.call_args = call_args
        self.call_kwargs = call_kwargs
        self.outputs = outputs
        self.input_tensors = [t for t in flatten((call_args, call_kwargs)) if is_keras_tensor(t)]
        self.output_tensors = [t for t in flatten(outputs) if isinstance(t, Tensor)]

    @property
    def input_shapes(self):
        shapes = [t.shape for t in self.input_tensors]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shapes(self):
        shapes = [t.shape for t in self.output_tensors]
        return shapes[0] if len(shapes) == 1 else shapes

    def inbound_layers(self):
        return [t._keras_history[0] for t in self.input_tensors]

    def apply(self, values):
        """Call the layer again, each recorded Keras tensor replaced by `values[id(tensor)]`."""
        def substitute(x):
            return values[id(x)] if isinstance(x, Tensor) and id(x) in values else x
        args = map_structure(substitute, self.call_args)
        kwargs = map_structure(substitute, self.call_kwargs)
        return self.layer(*args, **kwargs)


# ---------------------------------------------------------------- Layer


_WEIGHT_LISTS = frozenset(("_trainable_weights", "_non_trainable_weights"))
_FLOATING_DTYPES = frozenset(("float16", "bfloat16", "float32", "float64"))
_FLOATING_TORCH_DTYPES = {name: dtypes.as_dtype(name).torch_dtype for name in _FLOATING_DTYPES}


@tf_export("keras.layers.Layer")
class Layer(Module):
    """Base class of Keras layers (Keras 2 semantics, see the module docstring)."""

    # attributes the framework keeps that hold layers or variables but are not children
    _UNTRACKED = frozenset(("_inbound_nodes", "_outbound_nodes", "_network_nodes",
                            "_input_layers", "_output_layers", "_nested_inputs",
                            "_nested_outputs", "_trainable_weights", "_non_trainable_weights",
                            "_losses", "_updates", "_callable_losses", "_eager_losses",
                            "_initial_weights", "_scope", "_current_scope",
                            "_weight_names", "_metrics", "_in_call_loss_ids"))
    _ALLOWED_KWARGS = frozenset(("input_shape", "batch_input_shape", "batch_size", "weights",
                                 "activity_regularizer", "autocast", "implementation"))
    # tf.Module's walk (`submodules`, a module holding the layer) skips the bookkeeping
    # attributes Keras' tracking skips, but reads the weight lists
    _TF_MODULE_IGNORED_PROPERTIES = _UNTRACKED - _WEIGHT_LISTS

    def __init_subclass__(cls, **kwargs):
        """A subclass's walk also skips its own `_UNTRACKED` attributes, besides those it or
        its bases name in `_TF_MODULE_IGNORED_PROPERTIES`."""
        super().__init_subclass__(**kwargs)
        cls._TF_MODULE_IGNORED_PROPERTIES = frozenset(cls._TF_MODULE_IGNORED_PROPERTIES) | (
            cls._UNTRACKED - _WEIGHT_LISTS)

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        for kwarg in kwargs:
            if kwarg not in self._ALLOWED_KWARGS:
                raise TypeError("Keyword argument not understood:", kwarg)
        self._trainable = bool(trainable)
        self._stateful = False
        self.built = False
        self._dynamic = dynamic
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._losses = []
        self._callable_losses = []
        self._eager_losses = []
        self._updates = []
        self._metrics = []
        self._in_call_loss_ids = set()   # ids of symbolic losses added inside layer calls
        self._inbound_nodes = []
        self._outbound_nodes = []
        self._set_dtype_policy(policy.policy_of(dtype))
        self._autocast = kwargs.get("autocast", True)
        self.supports_masking = getattr(self, "supports_masking", False)
        self.input_spec = getattr(self, "input_spec", None)
        self._init_set_name(name)
        self._activity_regularizer = regularizers.get(kwargs.pop("activity_regularizer", None))
        if "input_shape" in kwargs or "batch_input_shape" in kwargs:
            if "batch_input_shape" in kwargs:
                batch_input_shape = tuple(kwargs["batch_input_shape"])
            else:
                batch_input_shape = (kwargs.get("batch_size"),) + tuple(kwargs["input_shape"])
            self._batch_input_shape = batch_input_shape
        self._initial_weights = kwargs.get("weights")
        params = inspect.signature(self.call).parameters
        self._call_fn_args = [name for name, p in params.items()
                              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD,
                                            p.KEYWORD_ONLY)]
        self._expects_training_arg = "training" in self._call_fn_args
        self._expects_mask_arg = "mask" in self._call_fn_args

    def _set_dtype_policy(self, dtype_policy):
        """Use `dtype_policy`: `_dtype` is its variable dtype name (None: `_infer`, TF1),
        `_compute_dtype` its compute dtype name, `_autocast_torch_dtype` the torch dtype
        AutoCastVariables are read as inside this layer's call (None if not floating)."""
        self._dtype_policy = dtype_policy
        self._dtype = dtype_policy.variable_dtype
        self._compute_dtype = dtype_policy.compute_dtype
        self._autocast_torch_dtype = _FLOATING_TORCH_DTYPES.get(self._compute_dtype)

    def _init_set_name(self, name, zero_based=True):
        if not name:
            self._name = backend.unique_object_name(
                backend.to_snake_case(type(self).__name__), zero_based=zero_based)
        elif not isinstance(name, str):
            raise TypeError("Layer name must be a string, got %r" % (name,))
        else:
            self._name = name

    # ------------------------------------------------------------ properties
    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        """A name scope named after the layer, under the scope current when it is entered
        (TF's Keras layers leave tf.Module's property unusable here)."""
        return ModuleNameScope(self._name_scope())

    @property
    def dtype(self):
        """The dtype of the layer's variables (Keras 2: the policy's `variable_dtype`)."""
        return self._dtype or backend.floatx()

    @property
    def variable_dtype(self):
        return self.dtype

    @property
    def compute_dtype(self):
        """The dtype the layer computes in; floating inputs are cast to it."""
        return self._compute_dtype or backend.floatx()

    @property
    def dtype_policy(self):
        return self._dtype_policy

    @property
    def dynamic(self):
        return self._dynamic

    @property
    def stateful(self):
        return self._stateful

    @stateful.setter
    def stateful(self, value):
        self._stateful = value

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        for layer in self._flatten_layers():
            layer._trainable = bool(value)

    @property
    def activity_regularizer(self):
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, regularizer):
        self._activity_regularizer = regularizer

    @property
    def input_shape(self):
        """The input shape of the layer's single inbound node (Keras' rule)."""
        if not self._inbound_nodes:
            raise AttributeError("The layer has never been called and thus has no defined "
                                 "input shape.")
        shapes = {str(node.input_shapes) for node in self._inbound_nodes}
        if len(shapes) != 1:
            raise AttributeError("The layer \"%s\" has multiple inbound nodes, with different "
                                 "input shapes. Hence the notion of \"input shape\" is ill-"
                                 "defined for the layer." % self.name)
        return _shape_tuple(self._inbound_nodes[0].input_shapes)

    @property
    def output_shape(self):
        if not self._inbound_nodes:
            raise AttributeError("The layer has never been called and thus has no defined "
                                 "output shape.")
        shapes = {str(node.output_shapes) for node in self._inbound_nodes}
        if len(shapes) != 1:
            raise AttributeError("The layer \"%s\" has multiple inbound nodes, with different "
                                 "output shapes." % self.name)
        return _shape_tuple(self._inbound_nodes[0].output_shapes)

    def _node_attribute(self, attr, what):
        if not self._inbound_nodes:
            raise AttributeError("Layer %s is not connected, no %s to return." % (
                self.name, what))
        if len(self._inbound_nodes) > 1:
            raise AttributeError("Layer %s has multiple inbound nodes, hence the notion of "
                                 "\"layer %s\" is ill-defined. Use `get_%s_at(node_index)` "
                                 "instead." % (self.name, what, what))
        values = getattr(self._inbound_nodes[0], attr)
        return values[0] if len(values) == 1 else values

    @property
    def input(self):
        return self._node_attribute("input_tensors", "input")

    @property
    def output(self):
        return self._node_attribute("output_tensors", "output")

    def get_input_at(self, node_index):
        values = self._inbound_nodes[node_index].input_tensors
        return values[0] if len(values) == 1 else values

    def get_output_at(self, node_index):
        values = self._inbound_nodes[node_index].output_tensors
        return values[0] if len(values) == 1 else values

    # ------------------------------------------------------------ tracking
    def _tracked_values(self):
        """Modules (layers among them) and variables held by attributes (lists, tuples and
        dicts searched)."""
        found, seen = [], {id(self)}
        for key, value in list(vars(self).items()):
            if key not in self._UNTRACKED:
                _collect_tracked(value, 0, found, seen)
        return found

    def _list_functions_for_serialization(self):
        """tf.functions `tf.saved_model.save` saves on this layer: none (Keras saves a
        model's call as the SavedModel's root function: keras/saving/saved_model.py)."""
        return {}

    def _checkpoint_dependencies(self):
        """Checkpoint dependencies (trackable/tracking.py), as TF's Keras layers have them: the
        weights under their `add_weight` names, then layers, variables and containers of them
        held by attributes, under the attribute names."""
        names = self.__dict__.get("_weight_names", {})
        deps, seen = [], {id(self)}
        for variable in self._own_weights():
            if id(variable) in names and id(variable) not in seen:
                seen.add(id(variable))
                deps.append((names[id(variable)], variable))
        for key, value in list(vars(self).items()):
            if key in self._UNTRACKED or key.startswith("__") or id(value) in seen:
                continue
            if isinstance(value, (Layer, Variable)) or tracking.is_trackable(value):
                seen.add(id(value))
                deps.append((key, value))
        return deps

    def _sublayers(self):
        """Direct child layers in tracking order."""
        return [v for v in self._tracked_values() if isinstance(v, Layer)]

    def _child_modules(self):
        """Direct child layers and plain `tf.Module`s in tracking order."""
        return [v for v in self._tracked_values() if isinstance(v, Module)]

    def _flatten_layers(self, include_self=True):
        """This layer and all nested layers, depth-first, each once."""
        result = []
        _collect_layers(self, result, set())
        return result if include_self else result[1:]

    def _own_weights(self):
        own = list(self._trainable_weights) + list(self._non_trainable_weights)
        ids = {id(v) for v in own}
        attrs = [v for v in self._tracked_values() if isinstance(v, Variable) and id(v) not in ids]
        return own, attrs

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        _, attrs = self._own_weights()
        weights = list(self._trainable_weights) + [v for v in attrs if v.trainable]
        for child in self._child_modules():
            weights += child.trainable_variables
        return _dedup(weights)

    @property
    def non_trainable_weights(self):
        _, attrs = self._own_weights()
        if self.trainable:
            weights = list(self._non_trainable_weights) + [v for v in attrs if not v.trainable]
            for child in self._child_modules():
                weights += child.non_trainable_variables
        else:
            weights = list(self._trainable_weights) + list(self._non_trainable_weights) + attrs
            for child in self._child_modules():
                weights += child.variables
        return _dedup(weights)

    @property
    def weights(self):
        return _dedup(self.trainable_weights + self.non_trainable_weights)

    @property
    def variables(self):
        return self.weights

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        return self.non_trainable_weights

    # ------------------------------------------------------------ weights
    def add_weight(self, name=None, shape=None, dtype=None, initializer=None,
                   regularizer=None, trainable=None, constraint=None, partitioner=None,
                   use_resource=None, synchronization=VariableSynchronization.AUTO,
                   aggregation=VariableAggregation.NONE, **kwargs):
        """Create a weight variable "<layer scope>/<name>:0" and track it."""
        for kwarg in kwargs:
            if kwarg not in ("getter", "collections", "experimental_autocast",
                             "caching_device"):
                raise TypeError("Unknown keyword argument:", kwarg)
        if partitioner is not None:
            raise NotImplementedError("Partitioned Keras weights are not implemented by "
                                      "tfcompat; drop the partitioner of weight %s" % name)
        shape = () if shape is None else shape
        dtype = dtypes.as_dtype(dtype or self.dtype)
        initializer = initializers.get(initializer)
        if initializer is None:
            if dtype.is_floating:
                initializer = initializers.get("glorot_uniform")
            elif dtype.is_integer or dtype.is_unsigned or dtype.is_bool:
                initializer = initializers.get("zeros")
            else:
                raise ValueError("An initializer for variable %s of type %s is required for "
                                 "layer %s" % (name, dtype.base_dtype, self.name))
        if synchronization == VariableSynchronization.ON_READ:
            if trainable:
                raise ValueError("Synchronization value can be set to "
                                 "VariableSynchronization.ON_READ only for non-trainable "
                                 "variables. You have specified trainable=True and "
                                 "synchronization=VariableSynchronization.ON_READ.")
            trainable = False
        elif trainable is None:
            trainable = True
        autocast = kwargs.get("experimental_autocast", True) and dtype.is_floating and \
            self._compute_dtype != self._dtype
        variable = self._make_variable(name, shape, dtype, initializer, trainable,
                                       constraints.get(constraint), synchronization,
                                       aggregation, kwargs.get("collections"), autocast)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            self._handle_weight_regularization(name, variable, regularizer)
        if variable.trainable:
            self._trainable_weights.append(variable)
        else:
            self._non_trainable_weights.append(variable)
        if name:
            self.__dict__.setdefault("_weight_names", {})[id(variable)] = name
            tracking.restore_on_create(self, name, variable)
        return variable

    def _make_variable(self, name, shape, dtype, initializer, trainable, constraint,
                       synchronization, aggregation, collections, autocast=False):
        """A Variable, or an AutoCastVariable when `autocast` (a mixed policy's weight)."""
        if autocast:
            # in-function: AutoCastVariable reads this module's `_call_context`
            from tfcompat.keras.mixed_precision.autocast_variable import AutoCastVariable
            variable_class = AutoCastVariable
        else:
            variable_class = Variable
        scope = ops.current_scope()
        shape = TensorShape(shape).as_list()

        def initial_value():
            return initializer(shape, dtype=dtype)
        with ops.init_scope():
            # a graph variable takes the graph's name scope; an eager one (also when made
            # while a function or a Keras graph is traced) the scope of the call site
            full_name = name if _state.building_graph else scope + name + "/"
            return variable_class(initial_value, name=full_name, trainable=trainable,
                                  dtype=dtype, constraint=constraint,
                                  synchronization=synchronization, aggregation=aggregation,
                                  collections=collections)

    def add_variable(self, *args, **kwargs):
        """Deprecated alias of `add_weight`."""
        return self.add_weight(*args, **kwargs)

    def _handle_weight_regularization(self, name, variable, regularizer):
        def loss():
            with ops.name_scope(name + "/Regularizer"):
                return regularizer(variable)
        self.add_loss(loss)

    def get_weights(self):
        """The weights' values as numpy arrays."""
        return backend.batch_get_value(self.weights)

    def set_weights(self, weights):
        """Set the weights from numpy arrays (same order and shapes as `get_weights()`)."""
        params = self.weights
        if len(params) != len(weights):
            raise ValueError("You called `set_weights(weights)` on layer \"%s\" with a weight "
                             "list of length %d, but the layer was expecting %d weights. "
                             "Provided weights: %s..." % (self.name, len(weights), len(params),
                                                          str(weights)[:50]))
        pairs = []
        for param, value in zip(params, weights):
            value = np.asarray(value)
            if tuple(param.shape.as_list()) != value.shape:
                raise ValueError("Layer weight shape %s not compatible with provided weight "
                                 "shape %s" % (tuple(param.shape.as_list()), value.shape))
            pairs.append((param, value))
        backend.batch_set_value(pairs)

    def count_params(self):
        if not self.built:
            raise ValueError("You tried to call `count_params` on %s, but the layer isn't "
                             "built. You can build it manually via: `%s.build("
                             "batch_input_shape)`." % (self.name, self.name))
        return int(sum(np.prod(w.shape.as_list()) for w in self.weights))

    # ------------------------------------------------------------ losses and updates
    def add_loss(self, losses, inputs=None):
        """Add loss tensors or zero-argument callables (evaluated when `losses` is read).

        As in TF: inside a call, eager tensors and tensors of a tf.function trace are kept
        until the next outermost call; symbolic tensors of a TF1 graph or of a functional
        model under construction are kept for good. An eager tensor outside a call raises.
        """
        for loss in losses if isinstance(losses, (list, tuple)) else [losses]:
            if loss is None:
                continue
            if callable(loss) and not ops.is_tensor(loss):
                self._callable_losses.append(loss)
                continue
            if not ops.is_tensor(loss):
                loss = ops.convert_to_tensor(loss, dtype=backend.floatx())
            if _runs_eagerly_or_in_function():
                if not _call_context.stack:
                    raise ValueError("Expected a symbolic Tensors or a callable for the loss "
                                     "value. Please wrap your loss computation in a zero "
                                     "argument `lambda`.")
                self._eager_losses.append(loss)
            else:
                self._losses.append((loss, inputs))
                if _call_context.stack:
                    self._in_call_loss_ids.add(id(loss))
                    if _call_context.graph_losses is not None:
                        _call_context.graph_losses.append(loss)

    @property
    def losses(self):
        """Losses of this layer and its sub-layers: per layer those of its latest eager call
        (or tf.function trace) if any, else its symbolic ones; weight regularization losses
        are recomputed."""
        collected = []
        for layer in self._flatten_layers():
            if layer._eager_losses:
                collected += list(layer._eager_losses)
            else:
                collected += [loss for loss, _ in layer._losses]
            for fn in layer._callable_losses:
                value = fn()
                if value is not None:
                    collected.append(value)
        return collected

    def _standing_losses(self):
        """The losses not tied to one call: weight regularization (recomputed) and symbolic
        losses added outside layer calls."""
        collected = []
        for layer in self._flatten_layers():
            collected += [loss for loss, _ in layer._losses
                          if id(loss) not in layer._in_call_loss_ids]
            collected += [fn() for fn in layer._callable_losses]
        return [loss for loss in collected if loss is not None]

    def get_losses_for(self, inputs):
        """Unconditional losses for `inputs=None`, else those added with `inputs`."""
        result = []
        for layer in self._flatten_layers():
            if inputs is None:
                result += [fn() for fn in layer._callable_losses]
                result += [loss for loss, tag in layer._losses if tag is None]
            else:
                result += [loss for loss, tag in layer._losses if tag is not None]
                result += list(layer._eager_losses)
        return [loss for loss in result if loss is not None]

    # ------------------------------------------------------------ metrics
    def add_metric(self, value, aggregation=None, name=None):
        """Track the mean of `value` as metric `name` (a `keras.metrics.Mean` owned by the
        layer; `Model.fit` logs it). Inside `call` it is updated on every call (in a TF1
        graph, by the Keras training functions); on a functional model under construction
        the metric is only created. TF 2.4's rule: `aggregation` None means "mean"."""
        if aggregation is not None and aggregation != "mean":
            raise ValueError("We currently support only `mean` sample-wise metric aggregation. "
                             "You provided aggregation=`%s`" % (aggregation,))
        if name is None:
            raise ValueError("Please provide a name for your metric like "
                             "`self.add_metric(tf.reduce_sum(inputs), name='mean_activation', "
                             "aggregation='mean')`")
        if not _call_context.stack and not _is_symbolic(value):
            raise ValueError("Expected a symbolic Tensor for the metric value, received: %s"
                             % (value,))
        metric = next((m for m in self._metrics if m.name == name), None)
        if metric is None:
            value = value if ops.is_tensor(value) else ops.convert_to_tensor(value)
            metric = Mean(name=name, dtype=value.dtype.base_dtype if
                          value.dtype.base_dtype.is_floating else None)
            self._metrics.append(metric)
        if _in_keras_graph():
            return
        update = metric.update_state(value)
        if not _runs_eagerly_or_in_function() and _call_context.metric_updates is not None:
            _call_context.metric_updates.append(update)

    @property
    def metrics(self):
        """The metrics added with `add_metric` by this layer and its sub-layers."""
        return _dedup([m for layer in self._flatten_layers() for m in layer._metrics])

    def _clear_eager_losses(self):
        for layer in self._flatten_layers():
            del layer._eager_losses[:]

    def add_update(self, updates, inputs=None):
        """Eager: updates already ran (callables are called). Graph: keep the update ops, and
        add them to the UPDATE_OPS collection of TF1 graphs."""
        updates = updates if isinstance(updates, (list, tuple)) else [updates]
        if not _state.building_graph:
            for update in updates:
                if callable(update):
                    update()
            return
        for update in updates:
            if callable(update):
                update = update()
            if update is None:
                continue
            self._updates.append((update, inputs))
            graph = get_default_graph()
            if not graph.building_function:
                graph.add_to_collection(UPDATE_OPS, update)

    @property
    def updates(self):
        collected = []
        for layer in self._flatten_layers():
            if layer.trainable or layer.stateful:
                collected += [u for u, _ in layer._updates]
        return collected

    def get_updates_for(self, inputs):
        """Unconditional updates for `inputs=None`, else the input-dependent ones."""
        collected = []
        for layer in self._flatten_layers():
            collected += [u for u, tag in layer._updates if (tag is None) == (inputs is None)]
        return collected

    # ------------------------------------------------------------ building and calling
    def build(self, input_shape):
        """Create the layer's weights; the default creates none."""
        self.built = True

    def call(self, inputs, **kwargs):
        """The layer's computation; the default returns the inputs."""
        return inputs

    def _name_scope(self):
        return self.name

    def _maybe_build(self, inputs):
        if self.built:
            return
        flat = flatten(inputs)
        if self._dtype is None:
            first = flat[0] if flat else None
            if _api.flavor() == "v1" and ops.is_tensor(first) and \
                    first.dtype.base_dtype.is_floating:
                self._set_dtype_policy(policy.Policy(first.dtype.base_dtype.name))
        self.build(shape_of(inputs))
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def _convert_inputs(self, inputs):
        """numpy/Python values to tensors, floating ones in the layer's compute dtype; in TF2
        floating tensors are cast to it too (Keras 2's `_maybe_cast_inputs`), unless the layer
        was made with `autocast=False` or computes in a non-floating dtype."""
        if type(inputs) is EagerTensor and inputs._t.dtype is self._autocast_torch_dtype:
            return inputs   # the common case: nothing to convert
        cast_to = None
        if self._autocast and self.compute_dtype in _FLOATING_DTYPES:
            cast_to = dtypes.as_dtype(self.compute_dtype)
        cast_tensors = cast_to is not None and _api.flavor() == "v2"

        def convert(x):
            if isinstance(x, (np.ndarray, np.generic, float, int, list)) and \
                    not isinstance(x, bool):
                array = np.asarray(x)
                if array.dtype.kind == "f" and cast_to is not None:
                    return ops.convert_to_tensor(array, dtype=cast_to)
                return ops.convert_to_tensor(array)
            if cast_tensors and isinstance(x, Tensor):
                dtype = x.dtype.base_dtype
                if dtype.is_floating and dtype != cast_to:
                    return math_ops.cast(x, cast_to)
            return x
        if isinstance(inputs, (list, tuple, dict)):
            return map_structure(convert, inputs)
        return convert(inputs)

    def _resolve_training(self, args, kwargs):
        """The `training` value this call runs with (Keras' priorities: passed explicitly,
        passed to an enclosing layer call, the learning phase set with `set_learning_phase`).
        `call` gets it only when it accepts a `training` argument; a value the framework
        passes is a bool (a boolean tensor for a learning-phase placeholder)."""
        if "training" in kwargs:
            explicit = kwargs["training"] if self._expects_training_arg \
                else kwargs.pop("training")
            if explicit is not None:
                return explicit
        if not self._expects_training_arg:
            return None
        position = self._call_fn_args.index("training")
        if len(args) > position and args[position] is not None:
            return args[position]
        inherited = outer_training()
        if inherited is None and backend.global_learning_phase_is_set():
            inherited = backend.learning_phase()
        if inherited is not None and len(args) <= position:
            if ops.is_tensor(inherited):
                if inherited.dtype.base_dtype != dtypes.bool:
                    inherited = math_ops.cast(inherited, dtypes.bool)
            else:
                inherited = bool(inherited)
            kwargs["training"] = inherited
        return inherited

    def __call__(self, *args, **kwargs):
        """Build on first use, run `call` in the layer's name scope, record functional nodes."""
        if not args:
            if "inputs" not in kwargs:
                raise ValueError("The first argument to `Layer.call` must always be passed.")
            args = (kwargs.pop("inputs"),)
        call_args, call_kwargs = args, dict(kwargs)
        inputs = self._convert_inputs(args[0])
        args = (inputs,) + tuple(args[1:])
        flat_inputs = flatten(inputs)
        if any(isinstance(x, SymbolicTensor) and not is_keras_tensor(x) and
               getattr(x.graph, "has_keras_inputs", False) for x in flat_inputs):
            # TF ops applied to Keras tensors become layers first (TF's create_keras_history)
            # in-function: op_layer's TensorFlowOpLayer subclasses this module's Layer
            from tfcompat.keras.engine.op_layer import create_keras_history
            create_keras_history(flat_inputs)
        functional = any(is_keras_tensor(x) for x in flat_inputs)
        if self._expects_mask_arg and kwargs.get("mask") is None:
            masks = map_structure(lambda x: getattr(x, "_keras_mask", None), inputs)
            if any(m is not None for m in flatten(masks)):
                kwargs["mask"] = masks
        previous_mask = kwargs.get("mask") if self._expects_mask_arg else kwargs.pop("mask", None)
        training = self._resolve_training(args, kwargs)
        graph = _symbolic_graph(flat_inputs)
        if not _call_context.stack:
            self._clear_eager_losses()
        with (graph.as_default() if graph is not None else contextlib.nullcontext()):
            with ops.name_scope(self._name_scope()):
                assert_input_compatibility(self.input_spec, inputs, self.name)
                self._maybe_build(inputs)
                _call_context.stack.append((self, training))
                try:
                    outputs = self.call(*args, **kwargs)
                    if self._activity_regularizer is not None:
                        self._handle_activity_regularization(inputs, outputs)
                finally:
                    _call_context.stack.pop()
                self._set_mask_metadata(inputs, outputs, previous_mask)
            if functional:
                outputs = self._record_node(call_args, call_kwargs, flat_inputs, outputs)
        return outputs

    def _handle_activity_regularization(self, inputs, outputs):
        for output in flatten(outputs):
            with ops.name_scope("ActivityRegularizer"):
                loss = self._activity_regularizer(output)
                batch = math_ops.cast(array_ops.shape(output)[0], loss.dtype)
                self.add_loss(loss / batch, inputs=inputs)

    def _set_mask_metadata(self, inputs, outputs, previous_mask):
        overridden = type(self).compute_mask is not Layer.compute_mask
        if not (self.supports_masking or overridden):
            return
        output_mask = self.compute_mask(inputs, previous_mask)
        flat_outputs, flat_masks = flatten(outputs), flatten(output_mask)
        if len(flat_masks) != len(flat_outputs):
            flat_masks = [output_mask] * len(flat_outputs)
        for output, mask in zip(flat_outputs, flat_masks):
            try:
                output._keras_mask = mask
            except AttributeError:
                pass

    def _record_node(self, call_args, call_kwargs, flat_inputs, outputs):
        input_ids = {id(x) for x in flat_inputs}

        def distinct(x):
            if isinstance(x, Tensor) and id(x) in input_ids:
                mask = getattr(x, "_keras_mask", None)
                x = array_ops.identity(x)
                x._keras_mask = mask
            return x
        outputs = map_structure(distinct, outputs)
        node = Node(self, call_args, call_kwargs, outputs)
        index = len(self._inbound_nodes)
        self._inbound_nodes.append(node)
        for layer in node.inbound_layers():
            layer._outbound_nodes.append(node)
        for i, tensor in enumerate(node.output_tensors):
            tensor._keras_history = (self, index, i)
        return outputs

    def compute_mask(self, inputs, mask=None):
        """The output mask: the input mask for layers that support masking, else None."""
        if not self.supports_masking:
            if any(m is not None for m in flatten(mask)):
                raise TypeError("Layer %s does not support masking, but was passed an "
                                "input_mask: %s" % (self.name, mask))
            return None
        return mask

    def compute_output_shape(self, input_shape):
        """The output shape, found by running the layer on a symbolic input."""
        shapes = input_shape
        if isinstance(shapes, (list, tuple)) and shapes and \
                isinstance(shapes[0], (list, tuple, TensorShape)):
            inputs = [input_layer.Input(batch_shape=TensorShape(s).as_list(), dtype=self.dtype)
                      for s in shapes]
        else:
            inputs = input_layer.Input(batch_shape=TensorShape(shapes).as_list(),
                                       dtype=self.dtype)
        outputs = self(inputs)
        result = map_structure(lambda t: t.shape, outputs)
        self._inbound_nodes.pop()
        return result

    # ------------------------------------------------------------ config
    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": policy.serialize(self._dtype_policy) or self.dtype}
        if hasattr(self, "_batch_input_shape"):
            config["batch_input_shape"] = self._batch_input_shape
        init_params = inspect.signature(type(self).__init__).parameters
        extra = [p for p in init_params if p not in ("self", "trainable", "name", "dtype",
                                                     "dynamic", "kwargs", "args")]
        if extra and type(self).get_config is Layer.get_config:
            raise NotImplementedError("Layer %s has arguments in `__init__` (%s) and therefore "
                                      "must override `get_config`." % (
                                          type(self).__name__, ", ".join(extra)))
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return "<%s.%s object name=%s>" % (type(self).__module__, type(self).__name__,
                                           self.name)


def conform_dtype(value, dtype):
    """`value` as a tensor of `dtype`: Keras 2's graph networks cast what they are called on
    to their `Input`s' dtypes (numpy and integer inputs included)."""
    if type(value) is EagerTensor and value._t.dtype is dtype.torch_dtype:
        return value
    if not ops.is_tensor(value):
        return ops.convert_to_tensor(np.asarray(value), dtype=dtype)
    if value.dtype.base_dtype != dtype.base_dtype:
        return math_ops.cast(value, dtype.base_dtype)
    return value


def _dedup(items):
    seen, result = set(), []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            result.append(item)
    return result


def _shape_tuple(shapes):
    if isinstance(shapes, list):
        return [_shape_tuple(s) for s in shapes]
    return tuple(shapes.as_list()) if shapes.rank is not None else None


def _symbolic_graph(flat_inputs):
    """The graph of symbolic inputs when it is not being built already (a Keras graph)."""
    for x in flat_inputs:
        if _is_symbolic(x):
            graph = x.graph
            stack = _state.graph_stack
            if stack and stack[-1] is graph:
                return None
            if not stack and not _state.eager:
                if get_default_graph() is graph:
                    return None
            return graph
    return None


# Module-level recursions (self-calling closures would make a reference cycle per call).
def _collect_tracked(value, depth, found, seen):
    """Append the modules and variables in `value` (searched 8 containers deep) to `found`."""
    if isinstance(value, (Module, Variable)):
        if id(value) not in seen:
            seen.add(id(value))
            found.append(value)
    elif depth < 8 and isinstance(value, (list, tuple)):
        for item in value:
            _collect_tracked(item, depth + 1, found, seen)
    elif depth < 8 and isinstance(value, dict):
        for item in list(value.values()):
            _collect_tracked(item, depth + 1, found, seen)


def _collect_layers(layer, result, seen):
    """Append `layer` and its nested layers, depth-first, each once."""
    if id(layer) in seen:
        return
    seen.add(id(layer))
    result.append(layer)
    for child in layer._sublayers():
        _collect_layers(child, result, seen)
