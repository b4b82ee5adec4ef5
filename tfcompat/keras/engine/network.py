"""`Network`: the layer-graph half of `tf.keras.Model` (Keras 2 semantics).

Two forms, as in Keras:
- functional, `Model(inputs, outputs)`: the layer calls recorded on Keras tensors (`Node`s)
  from the inputs to the outputs form a DAG that `call` re-applies, in order, to real inputs.
  TF ops applied directly to Keras tensors between layers become TensorFlowOpLayers, as in
  TF 2.0-2.3 (engine/op_layer.py);
- subclassed: `call` is the user's; sub-layers assigned to attributes are tracked.

Weights save/load through `tf.train.Checkpoint` (or HDF5 with h5py), `summary()` prints
Keras' table, and functional/Sequential models serialize to config/JSON.
"""
import json
import os

import numpy as np

from tfcompat.framework.graph import SymbolicTensor
from tfcompat.framework.tensor import Tensor
from tfcompat.keras import __version__ as keras_version, backend
from tfcompat.keras.engine.base_layer import (
    Layer, Node, _call_context, _dedup, conform_dtype, flatten, map_structure)
from tfcompat.keras.engine.input_layer import Input, InputLayer
from tfcompat.keras.engine.op_layer import (TensorFlowOpLayer, create_keras_history,
                                            depends_on_keras_tensors)
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import array_ops
from tfcompat.keras.saving import hdf5_format, save, saved_model
from tfcompat.train import saver
from tfcompat.keras.utils.generic_utils import get_custom_objects
from tfcompat.keras.saving.saving_utils import get_json_type
from tfcompat.keras.layers.serialization import deserialize


class AddLoss(Layer):
    """Adds its input to the model's losses on every call (TF's AddLoss layer)."""

    def __init__(self, unconditional=False, **kwargs):
        super(AddLoss, self).__init__(**kwargs)
        self.unconditional = unconditional

    def call(self, inputs):
        self.add_loss(inputs, inputs=None if self.unconditional else inputs)
        return inputs

    def get_config(self):
        config = super(AddLoss, self).get_config()
        config["unconditional"] = self.unconditional
        return config


class AddMetric(Layer):
    """Tracks the mean of its input as metric `metric_name` (TF's AddMetric layer)."""

    def __init__(self, aggregation=None, metric_name=None, **kwargs):
        super(AddMetric, self).__init__(**kwargs)
        self.aggregation = aggregation
        self.metric_name = metric_name

    def call(self, inputs):
        self.add_metric(inputs, self.aggregation, self.metric_name)
        return inputs

    def get_config(self):
        config = super(AddMetric, self).get_config()
        config.update({"aggregation": self.aggregation, "metric_name": self.metric_name})
        return config


def conform_rank(value, reference):
    """Keras 2's `_conform_to_reference_input`: a tensor (not a Keras tensor) one rank short
    of the model input whose last dimension is 1 gets that dimension (`fit(x)` with a 1-D
    `x` for an `Input((1,))`); one rank over, with a last dimension of 1, loses it."""
    if getattr(value, "_keras_history", None) is not None or \
            not isinstance(value, (Tensor, np.ndarray)):
        return value
    rank, reference_shape = len(value.shape), reference.shape
    if reference_shape.rank is None:
        return value
    if rank == reference_shape.rank + 1 and value.shape[-1] == 1:
        return array_ops.squeeze(value, axis=-1)
    if rank == reference_shape.rank - 1 and reference_shape[-1] == 1:
        return array_ops.expand_dims(value, -1)
    return value


class Network(Layer):
    """A layer made of layers: functional (`inputs`, `outputs`) or subclassed."""

    _UNTRACKED = Layer._UNTRACKED | frozenset(("inputs", "outputs", "_nodes_by_depth",
                                               "_side_outputs"))

    def __init__(self, *args, **kwargs):
        if (len(args) == 2 or "inputs" in kwargs and "outputs" in kwargs or
                len(args) == 1 and "outputs" in kwargs):
            inputs = kwargs.pop("inputs") if "inputs" in kwargs else args[0]
            outputs = kwargs.pop("outputs") if "outputs" in kwargs else args[1]
            self._init_graph_network(inputs, outputs, **kwargs)
        else:
            self._init_subclassed_network(*args, **kwargs)

    def _init_subclassed_network(self, name=None, **kwargs):
        for kwarg in kwargs:
            if kwarg not in ("trainable", "dtype", "dynamic", "autocast"):
                raise TypeError("Keyword argument not understood:", kwarg)
        self._is_graph_network = False
        self.inputs = None
        self.outputs = None
        super(Network, self).__init__(name=name, **kwargs)

    def _init_set_name(self, name, zero_based=True):
        if not name and type(self).__name__ in ("Model", "Network"):
            name = backend.unique_object_name("model", zero_based=zero_based)
        super(Network, self)._init_set_name(name, zero_based)

    # ------------------------------------------------------------ functional graphs
    def _init_graph_network(self, inputs, outputs, name=None, **kwargs):
        for kwarg in kwargs:
            if kwarg not in ("trainable", "dtype", "autocast"):
                raise TypeError("Keyword argument not understood:", kwarg)
        super(Network, self).__init__(name=name, **kwargs)
        self._is_graph_network = True
        self._nested_inputs = inputs
        self._nested_outputs = outputs
        self.inputs = list(flatten(inputs))
        self.outputs = list(flatten(outputs))
        for x in self.inputs:
            history = getattr(x, "_keras_history", None)
            if history is None or not isinstance(history[0], InputLayer):
                raise ValueError("Input tensors to a %s must come from `tf.keras.Input`. "
                                 "Received: %s (missing previous layer metadata)."
                                 % (type(self).__name__, x))
        for x in self.outputs:
            if not isinstance(x, Tensor) or getattr(x, "_keras_history", None) is None and \
                    not isinstance(x, SymbolicTensor):
                raise ValueError("Output tensors to a %s must be the output of a TensorFlow "
                                 "`Layer` (thus holding past layer metadata). Found: %s"
                                 % (type(self).__name__, x))
        create_keras_history(self.outputs)
        self._input_layers = [x._keras_history[0] for x in self.inputs]
        self._side_outputs = []
        self._set_network_nodes()
        self._output_layers = [x._keras_history[0] for x in self.outputs]
        self.built = True
        self._compute_output_and_mask_jointly = True
        self._autocast = False  # as in Keras 2: inputs are cast to the Inputs' dtypes instead
        self._record_self_node()

    def _set_network_nodes(self):
        self._network_nodes = self._topological_nodes()
        layers = _map_graph(self.inputs, self.outputs)[0]
        for node in self._network_nodes:
            if all(node.layer is not l for l in layers):
                layers.append(node.layer)
        self._network_layers = layers

    def _add_side_output(self, layer, tensor):
        """Run `layer` (AddLoss/AddMetric) on `tensor`, computed from the model's inputs, on
        every call of the model (TF's `_graph_network_add_loss`)."""
        create_keras_history([tensor])
        self._side_outputs.append(layer(tensor))
        self._set_network_nodes()

    def _graph_side_tensor(self, value):
        """True for a symbolic tensor computed from Keras tensors, given to `add_loss` or
        `add_metric` of a functional model outside its call."""
        return getattr(self, "_is_graph_network", False) and not _call_context.stack and \
            isinstance(value, SymbolicTensor) and depends_on_keras_tensors(value)

    def add_loss(self, losses, inputs=None):
        """Layer.add_loss; a functional model given a tensor computed from its inputs
        recomputes that loss on each call (TF adds an AddLoss layer)."""
        for loss in losses if isinstance(losses, (list, tuple)) else [losses]:
            if self._graph_side_tensor(loss):
                self._add_side_output(AddLoss(dtype=loss.dtype.base_dtype.name), loss)
            else:
                super(Network, self).add_loss(loss, inputs=inputs)

    def add_metric(self, value, aggregation=None, name=None):
        """Layer.add_metric; a functional model given a tensor computed from its inputs
        recomputes that metric on each call (TF adds an AddMetric layer)."""
        if self._graph_side_tensor(value):
            if aggregation is not None and aggregation != "mean":
                raise ValueError("We currently support only `mean` sample-wise metric "
                                 "aggregation. You provided aggregation=`%s`" % (aggregation,))
            if name is None:
                raise ValueError("Please provide a name for your metric like "
                                 "`self.add_metric(tf.reduce_sum(inputs), "
                                 "name='mean_activation', aggregation='mean')`")
            self._add_side_output(AddMetric(aggregation, name), value)
            return
        super(Network, self).add_metric(value, aggregation=aggregation, name=name)

    def _record_self_node(self):
        node = Node(self, (self._nested_inputs,), {}, self._nested_outputs)
        self._inbound_nodes.append(node)

    def _topological_nodes(self):
        """The layer calls from the inputs to the outputs (and to the tensors of
        `add_loss`/`add_metric` calls on the model), in run order."""
        input_ids = {id(x) for x in self.inputs}
        order, done, active = [], set(), set()

        def visit(tensor):
            if id(tensor) in input_ids:
                return
            history = getattr(tensor, "_keras_history", None)
            if history is None:
                raise ValueError("Graph disconnected: cannot obtain value for tensor %s. It is "
                                 "not an input of the model and not computed by a layer from "
                                 "the model's inputs." % (tensor,))
            layer, index, _ = history
            node = layer._inbound_nodes[index]
            if isinstance(layer, InputLayer):
                raise ValueError("Graph disconnected: cannot obtain value for tensor %s at "
                                 "layer \"%s\". The following previous layers were accessed "
                                 "without issue: %s" % (
                                     tensor, layer.name, [n.layer.name for n in order]))
            if id(node) in done:
                return
            if id(node) in active:
                raise ValueError("The functional graph of model %s has a cycle" % self.name)
            active.add(id(node))
            for t in node.input_tensors:
                visit(t)
            active.discard(id(node))
            done.add(id(node))
            order.append(node)
        for x in self.outputs + self._side_outputs:
            visit(x)
        return order

    def _run_graph(self, inputs, training=None, mask=None):
        flat = flatten(inputs) if not isinstance(inputs, dict) else \
            self._inputs_from_dict(inputs)
        if len(flat) != len(self.inputs):
            raise ValueError("Model %s expects %d input(s), but it received %d input tensors."
                             % (self.name, len(self.inputs), len(flat)))
        values = {}
        for placeholder, value in zip(self.inputs, flat):
            values[id(placeholder)] = conform_rank(conform_dtype(value, placeholder.dtype),
                                                   placeholder)
        masks = flatten(mask) if mask is not None else [None] * len(flat)
        for value, m in zip(values.values(), masks):
            if m is not None:
                try:
                    value._keras_mask = m
                except AttributeError:
                    pass
        for node in self._network_nodes:
            result = node.apply(values)
            for tensor, value in zip(node.output_tensors, _flat_like(result, node)):
                values[id(tensor)] = value
        return map_structure(lambda t: values[id(t)], self._nested_outputs)

    def _inputs_from_dict(self, inputs):
        try:
            return [inputs[layer.name] for layer in self._input_layers]
        except KeyError as e:
            raise ValueError("No data provided for input %s; the model's inputs are %s"
                             % (e, [layer.name for layer in self._input_layers])) from None

    def call(self, inputs, training=None, mask=None):
        if not self._is_graph_network:
            raise NotImplementedError("When subclassing the `Model` class, you should "
                                      "implement a `call` method.")
        return self._run_graph(inputs, training=training, mask=mask)

    def _set_mask_metadata(self, inputs, outputs, previous_mask):
        if not self._is_graph_network:  # a functional model's outputs carry their own masks
            super(Network, self)._set_mask_metadata(inputs, outputs, previous_mask)

    def compute_mask(self, inputs, mask=None):
        if not self._is_graph_network:
            return None
        masks = [getattr(t, "_keras_mask", None) for t in self.outputs]
        return masks[0] if len(masks) == 1 else masks

    # ------------------------------------------------------------ layers
    _checkpoints_layer_list = False

    def _list_functions_for_serialization(self):
        """What `tf.saved_model.save` saves of a model, as TF's Keras: its call, traced for
        its inputs with `training=False`, as `__call__` (none when it cannot be traced)."""
        call, _ = saved_model.saved_functions(self)
        return {"__call__": call} if call is not None else {}

    def _saved_model_extra_files(self):
        """The Keras metadata a SavedModel of this model holds (what `load_model` reads)."""
        return saved_model.extra_files(self)

    @property
    def _default_save_signature(self):
        """The model's `serving_default` (inputs by input-layer name, outputs by
        output-layer name), or None when it cannot be traced."""
        return saved_model.saved_functions(self)[1]

    def _checkpoint_dependencies(self):
        """A functional or Sequential model names its layers as TF does in checkpoints:
        `layer_with_weights-N` (layers holding weights), then `layer-N` (every layer)."""
        deps = Layer._checkpoint_dependencies(self)
        if not (self._is_graph_network or self._checkpoints_layer_list):
            return deps
        layers = self.layers
        weighted = [layer for layer in layers if layer.weights]
        listed = [("layer_with_weights-%d" % i, layer) for i, layer in enumerate(weighted)]
        listed += [("layer-%d" % i, layer) for i, layer in enumerate(layers)]
        ids = {id(layer) for layer in layers}

        def already_listed(value):
            if isinstance(value, (list, tuple)):
                return all(id(item) in ids for item in value)
            return id(value) in ids
        return listed + [(name, value) for name, value in deps if not already_listed(value)]

    @property
    def layers(self):
        """The model's layers: in graph order (functional) or tracking order (subclassed)."""
        if self._is_graph_network:
            return list(self._network_layers)
        return self._sublayers()

    @property
    def weights(self):
        """Keras 2's `Model.weights` (what `get_weights` / `set_weights` order): each layer's
        weights in turn (a BatchNormalization's moving statistics right after its gamma and
        beta), then the model's own; a layer's own stay trainable first."""
        layers = self.layers if self._is_graph_network else self._child_modules()
        weights = []
        for layer in layers:
            weights += layer.variables
        own, attrs = self._own_weights()
        weights += [v for v in own + attrs if v.trainable] + \
            [v for v in own + attrs if not v.trainable]
        return _dedup(weights)

    def get_layer(self, name=None, index=None):
        """A layer by name or index."""
        if index is not None and name is not None:
            raise ValueError("Provide only a layer name or a layer index.")
        layers = self.layers
        if index is not None:
            if len(layers) <= index:
                raise ValueError("Was asked to retrieve layer at index %d but model only has "
                                 "%d layers." % (index, len(layers)))
            return layers[index]
        if name is None:
            raise ValueError("Provide either a layer name or layer index.")
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError("No such layer: %s." % name)

    @property
    def input_names(self):
        return [layer.name for layer in self._input_layers] if self._is_graph_network \
            else None

    @property
    def output_names(self):
        if not self._is_graph_network:
            return None
        names, seen = [], {}
        for layer in self._output_layers:
            name = layer.name
            seen[name] = seen.get(name, 0) + 1
            names.append(name if seen[name] == 1 else "%s_%d" % (name, seen[name] - 1))
        return names

    @property
    def input(self):
        if self._is_graph_network:
            return self._nested_inputs
        return super(Network, self).input

    @property
    def output(self):
        if self._is_graph_network:
            return self._nested_outputs
        return super(Network, self).output

    @property
    def input_shape(self):
        if self._is_graph_network:
            shapes = [tuple(x.shape.as_list()) for x in self.inputs]
            return shapes[0] if len(shapes) == 1 else shapes
        return super(Network, self).input_shape

    @property
    def output_shape(self):
        if self._is_graph_network:
            shapes = [tuple(x.shape.as_list()) for x in self.outputs]
            return shapes[0] if len(shapes) == 1 else shapes
        return super(Network, self).output_shape

    @property
    def state_updates(self):
        return [u for layer in self.layers if getattr(layer, "stateful", False)
                for u in layer.updates]

    def reset_states(self):
        for layer in self.layers:
            if hasattr(layer, "reset_states") and getattr(layer, "stateful", False):
                layer.reset_states()

    def _maybe_build(self, inputs):
        if type(self).build in (Network.build,) or getattr(type(self).build, "_keras_default",
                                                           False):
            self.built = True
            return
        super(Network, self)._maybe_build(inputs)

    def build(self, input_shape):
        """Build a subclassed model by calling it on a symbolic input of `input_shape`."""
        if self._is_graph_network:
            self.built = True
            return
        if input_shape is None:
            raise ValueError("Input shape must be defined when calling build on a model "
                             "subclass network.")
        if isinstance(input_shape, list) and input_shape and \
                isinstance(input_shape[0], (list, tuple, TensorShape)):
            x = [Input(batch_shape=TensorShape(s).as_list()) for s in input_shape]
        else:
            x = Input(batch_shape=TensorShape(input_shape).as_list())
        self.built = True
        self(x)

    # ------------------------------------------------------------ summary
    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None):
        """Print Keras' table of layers, output shapes and parameter counts (TF 2.13+'s
        layout); `expand_nested` and `layer_range` are not implemented."""
        if expand_nested or layer_range is not None:
            raise NotImplementedError("Model.summary(expand_nested=..., layer_range=...) is "
                                      "not implemented by tfcompat")
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling `build()` or calling `fit()` with some data, or specify "
                             "an `input_shape` argument in the first layer(s) for automatic "
                             "build.")
        print_summary(self, line_length, positions, print_fn, show_trainable)

    # ------------------------------------------------------------ weights on disk
    def save_weights(self, filepath, overwrite=True, save_format=None, options=None):
        """Save the weights: a checkpoint with the model as its root, as TF writes (plus the
        `checkpoint` state file), or HDF5 for `.h5`/`.keras`/`.hdf5` (needs h5py). A
        compiled model's optimizer is in the checkpoint too, as in TF 2."""
        filepath = os.fspath(filepath)
        is_h5 = filepath.endswith(hdf5_format.HDF5_SUFFIXES)
        if save_format is None:
            save_format = "h5" if is_h5 else "tf"
        else:
            save_format = str(save_format).lower().strip()
            if save_format in ("tensorflow", "tf"):
                save_format = "tf"
            elif save_format in ("hdf5", "h5", "keras"):
                save_format = "h5"
            else:
                raise ValueError("Unknown format \"%s\". Was expecting one of {\"tf\", "
                                 "\"h5\"}." % (save_format,))
        if save_format == "tf" and is_h5:
            raise ValueError("save_weights got save_format=\"tf\"/\"tensorflow\", but the "
                             "filepath (\"%s\") looks like an HDF5 file. Omit the \".h5\"/"
                             "\".keras\" when saving in TensorFlow format." % filepath)
        existing = filepath if save_format == "h5" else filepath + ".safetensors"
        if not overwrite and os.path.isfile(existing) and \
                not save._proceed_with_overwrite(existing):
            return
        if save_format == "h5":
            hdf5_format.save_weights(self, filepath)
            return
        saved_model.write_checkpoint(self, filepath)
        saver.update_checkpoint_state_internal(os.path.dirname(filepath), filepath, [filepath],
                                               save_relative_paths=True)

    def load_weights(self, filepath, by_name=False, skip_mismatch=False, options=None):
        """Load weights saved by `save_weights` (or TF's): a checkpoint (TF's or ours; a
        model directory's `variables/`), restored by object graph, or an HDF5 file, by
        layer order or `by_name`. Returns the restore status for checkpoints."""
        filepath = os.fspath(filepath)
        if skip_mismatch and not by_name:
            raise ValueError("When calling model.load_weights, skip_mismatch can only be set "
                             "to True when by_name is True.")
        if os.path.isdir(filepath):
            filepath = os.path.join(filepath, saved_model.VARIABLES_PREFIX)
        elif filepath.endswith(hdf5_format.HDF5_SUFFIXES) or _is_hdf5_file(filepath):
            if not self._is_graph_network and not self.built:
                raise ValueError("Unable to load weights saved in HDF5 format into a "
                                 "subclassed Model which has not created its variables yet. "
                                 "Call the Model first, then load the weights.")
            hdf5_format.load_weights(self, filepath, by_name, skip_mismatch)
            return None
        if by_name:
            raise NotImplementedError("Weights may only be loaded based on topology into "
                                      "Models when loading TensorFlow-formatted weights (got "
                                      "by_name=True to load_weights).")
        status = saved_model.restore_checkpoint(self, filepath)
        status.assert_nontrivial_match()
        return status

    # ------------------------------------------------------------ config
    def get_config(self):
        if not self._is_graph_network:
            raise NotImplementedError("Subclassed models have no config: override "
                                      "`get_config` (and `from_config`) to serialize them.")
        in_network = {id(n) for n in self._network_nodes}
        layer_configs = []
        for layer in self._network_layers:
            inbound = []
            for node in layer._inbound_nodes:
                if id(node) not in in_network:
                    continue
                inbound.append([[t._keras_history[0].name, _node_position(self, t),
                                 t._keras_history[2], {}] for t in node.input_tensors])
            layer_configs.append({"name": layer.name, "class_name": type(layer).__name__,
                                  "config": layer.get_config(), "inbound_nodes": inbound})

        def refs(tensors):
            return [[t._keras_history[0].name, _node_position(self, t), t._keras_history[2]]
                    for t in tensors]
        return {"name": self.name, "layers": layer_configs,
                "input_layers": refs(self.inputs), "output_layers": refs(self.outputs)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """Rebuild a functional model from `get_config()`."""
        custom_objects = {**_ENGINE_LAYERS, **get_custom_objects(), **(custom_objects or {})}
        created, outputs_of = {}, {}
        for spec in config["layers"]:
            if spec["class_name"] == "InputLayer":
                cfg = spec["config"]
                tensor = Input(batch_shape=cfg["batch_input_shape"], dtype=cfg.get("dtype"),
                               name=cfg["name"])
                created[spec["name"]] = tensor._keras_history[0]
                outputs_of[spec["name"]] = [[tensor]]
            else:
                created[spec["name"]] = deserialize(spec, custom_objects=custom_objects)
                outputs_of[spec["name"]] = []
        pending = [s for s in config["layers"] if s["class_name"] != "InputLayer"]
        while pending:
            progressed = False
            for spec in list(pending):
                if spec["inbound_nodes"] and len(outputs_of[spec["name"]]) < \
                        len(spec["inbound_nodes"]):
                    node = spec["inbound_nodes"][len(outputs_of[spec["name"]])]
                    try:
                        args = [outputs_of[n][i][j] for n, i, j, _ in node]
                    except IndexError:
                        continue
                    out = created[spec["name"]](args[0] if len(args) == 1 else args)
                    outputs_of[spec["name"]].append(flatten(out))
                    progressed = True
                if len(outputs_of[spec["name"]]) >= len(spec["inbound_nodes"]):
                    pending.remove(spec)
            if pending and not progressed:
                raise ValueError("Cannot rebuild the model graph from its config: layers %s "
                                 "have unresolved inputs" % [s["name"] for s in pending])
        inputs = [outputs_of[n][i][j] for n, i, j in config["input_layers"]]
        outputs = [outputs_of[n][i][j] for n, i, j in config["output_layers"]]
        model = cls(inputs=inputs[0] if len(inputs) == 1 else inputs,
                    outputs=outputs[0] if len(outputs) == 1 else outputs, name=config["name"])
        for spec in config["layers"]:  # AddLoss/AddMetric layers, off the path to the outputs
            layer = created[spec["name"]]
            if isinstance(layer, (AddLoss, AddMetric)) and \
                    all(layer is not known for known in model._network_layers):
                model._side_outputs += [out for node in outputs_of[spec["name"]]
                                        for out in node]
        if model._side_outputs:
            model._set_network_nodes()
        return model

    def to_json(self, **kwargs):
        """The model's architecture as a JSON string (Keras' format)."""
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config(),
                           "keras_version": keras_version, "backend": "tensorflow"},
                          default=get_json_type, **kwargs)

    def to_yaml(self, **kwargs):
        raise RuntimeError("Method `model.to_yaml()` has been removed due to security risk "
                           "of arbitrary code execution. Please use `model.to_json()` "
                           "instead.")


# Keras 2's engine layers that configs name but TF exports nowhere (Keras' own names, not a
# symbol table: the public layers are found through the registry).
_ENGINE_LAYERS = {"TensorFlowOpLayer": TensorFlowOpLayer, "AddLoss": AddLoss,
                  "AddMetric": AddMetric}


def _node_position(network, tensor):
    layer, index, _ = tensor._keras_history
    kept = [i for i, node in enumerate(layer._inbound_nodes)
            if isinstance(layer, InputLayer) or node in network._network_nodes]
    return kept.index(index) if index in kept else 0


def _flat_like(result, node):
    flat = flatten(result)
    if len(flat) != len(node.output_tensors):
        raise ValueError("Layer %s returned %d outputs when re-applied, %d when the model was "
                         "built" % (getattr(node.layer, "name", "op"), len(flat),
                                    len(node.output_tensors)))
    return flat


def _is_hdf5_file(path):
    """True for an existing file that starts with HDF5's signature."""
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return f.read(8) == b"\x89HDF\r\n\x1a\n"


# ---------------------------------------------------------------- summary


def _map_graph(inputs, outputs):
    """Keras 2's `_map_graph_network`: the layers in `model.layers` order (by decreasing
    depth, the longest path from the layer to an output; those of one depth in the order a
    depth-first walk from the outputs first reaches them; inputs no output uses last), and
    each node's (depth, number of inputs), input nodes included."""
    input_ids = {id(x) for x in inputs}
    first_seen, post_order, finished = {}, [], set()
    stack = [(tensor, False) for tensor in reversed(outputs)]
    while stack:
        tensor, expanded = stack.pop()
        layer, index, _ = tensor._keras_history
        node = None if id(tensor) in input_ids else layer._inbound_nodes[index]
        key = id(tensor) if node is None else id(node)
        if key in finished:
            continue
        if expanded:
            finished.add(key)
            post_order.append((key, layer, node))
            continue
        first_seen.setdefault(id(layer), len(first_seen))
        stack.append((tensor, True))
        if node is not None:
            stack.extend((t, False) for t in reversed(node.input_tensors))
    node_depth, layer_depth, layers, nodes = {}, {}, {}, {}
    for key, layer, node in reversed(post_order):
        depth = max(node_depth.get(key, 0), layer_depth.get(id(layer), 0))
        layer_depth[id(layer)], node_depth[key], layers[id(layer)] = depth, depth, layer
        inputs_of_node = node.input_tensors if node is not None else ()
        nodes[key] = (depth, len(inputs_of_node))
        for tensor in inputs_of_node:
            source, index, _ = tensor._keras_history
            parent = id(tensor) if id(tensor) in input_ids else id(source._inbound_nodes[index])
            node_depth[parent] = max(depth + 1, node_depth.get(parent, 0))
    for tensor in inputs:
        layer = tensor._keras_history[0]
        if id(layer) not in layers:
            layers[id(layer)], layer_depth[id(layer)], first_seen[id(layer)] = layer, 0, -1
            nodes[id(tensor)] = (0, 0)
    order = sorted(layers.values(),
                   key=lambda layer: (-layer_depth[id(layer)], first_seen[id(layer)]))
    return order, nodes


def _count(weights):
    return int(sum(np.prod(w.shape.as_list()) for w in weights))


def _memory_size_text(weights):
    """Keras 2.13+'s `readable_memory_size` of the weights' bytes ("668.00 Byte")."""
    size = float(sum(np.prod(w.shape.as_list()) * w.dtype.size
                     for w in {id(w): w for w in weights}.values()))
    for unit in ("Byte", "KB", "MB", "GB", "TB"):
        if size / 1024 < 1:
            return "%.2f %s" % (size, unit)
        size /= 1024
    return "%.2f PB" % size


def _output_shape_text(layer, network):
    if network._is_graph_network or getattr(network, "_graph_built", False):
        try:
            shape = layer.output_shape
        except AttributeError:
            return "multiple"
        # Keras' InputLayer node holds its output in a list
        return str([shape] if isinstance(layer, InputLayer) else shape)
    return "multiple"


def _is_sequential_like(model):
    """Keras' test: Sequential, subclassed, or a functional chain (one node per depth, each
    with at most one input, no layer called twice)."""
    if type(model).__name__ == "Sequential" or not model._is_graph_network:
        return True
    depths = {}
    for depth, input_count in _map_graph(model.inputs, model.outputs)[1].values():
        if input_count > 1 or depth in depths:
            return False
        depths[depth] = True
    calls = [id(node.layer) for node in model._network_nodes]
    return len(set(calls)) == len(calls)


def _print_row(print_fn, fields, positions):
    """One table row as Keras 2.13+ prints it: each field wrapped within its column (at the
    end of a tuple or list item where one ends within the width), continued on more lines."""
    left = [str(field) for field in fields]
    while any(left):
        line = ""
        for column, text in enumerate(left):
            start = positions[column - 1] if column else 0
            last = column == len(positions) - 1
            space = 0 if last else 2
            cutoff = positions[column] - start - space - (0 if last else 1)
            piece = text[:cutoff]
            breaks = [piece.find(mark) + len(mark) for mark in ("),", "},", "],", "',")
                      if piece.find(mark) >= 0]
            if breaks:
                cutoff = min(breaks)
                piece = piece[:cutoff]
            line += (" " if column == 0 else "") + piece + " " * space
            left[column] = text[cutoff:]
            line += " " * (positions[column] - len(line))
        print_fn(line)


def print_summary(model, line_length=None, positions=None, print_fn=None,
                  show_trainable=False):
    """Keras 2's model summary table, as TF 2.13+ prints it."""
    print_fn = print_fn or print
    sequential_like = _is_sequential_like(model)
    if sequential_like:
        line_length = line_length or 65
        positions = list(positions or [.45, .85, 1.])
        header = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = list(positions or [.3, .6, .70, 1.])
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    if show_trainable:
        line_length += 11
        positions.append(line_length)
        header.append("Trainable")
    print_fn('Model: "%s"' % model.name)
    print_fn("_" * line_length)
    _print_row(print_fn, header, positions)
    print_fn("=" * line_length)
    nodes = set(id(node) for node in model._network_nodes) if model._is_graph_network \
        else set()
    for layer in model.layers:
        unused = sequential_like and not layer.built and \
            not getattr(layer, "_is_graph_network", False)
        fields = ["%s (%s)" % (layer.name, type(layer).__name__),
                  _output_shape_text(layer, model),
                  "0 (unused)" if unused else layer.count_params()]
        if not sequential_like:
            fields.append(["%s[%d][%d]" % (t._keras_history[0].name, t._keras_history[1],
                                           t._keras_history[2])
                           for node in layer._inbound_nodes if id(node) in nodes
                           for t in node.input_tensors])
        if show_trainable:
            fields.append("Y" if layer.trainable else "N")
        _print_row(print_fn, fields, positions)
        print_fn(" " * line_length)
    print_fn("=" * line_length)
    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    print_fn("Total params: %d (%s)" % (_count(trainable) + _count(non_trainable),
                                        _memory_size_text(trainable + non_trainable)))
    print_fn("Trainable params: %d (%s)" % (_count(trainable), _memory_size_text(trainable)))
    print_fn("Non-trainable params: %d (%s)" % (_count(non_trainable),
                                                _memory_size_text(non_trainable)))
    print_fn("_" * line_length)

