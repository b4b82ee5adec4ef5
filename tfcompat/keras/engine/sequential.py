"""`tf.keras.Sequential`: a linear stack of layers (Keras 2 semantics).

With an input shape (an `Input`/`InputLayer` first, or `input_shape=` on the first layer) the
layers are connected symbolically as they are added, so `summary()`, `inputs`/`outputs` and
the weights exist at once; otherwise the model is built on its first call (on an `Input` of
that call's dtype) or by `build`. `call` applies the layers in order, passing `training` and
masks along; once connected, it first casts its input to the `Input`'s dtype, as Keras 2's
functional models do.
"""
import logging
import warnings

from tfcompat._api import tf_export
from tfcompat.framework.tensor import Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras.engine.base_layer import Layer, conform_dtype, flatten, is_keras_tensor
from tfcompat.keras.engine.input_layer import Input, InputLayer
from tfcompat.keras.engine.network import conform_rank
from tfcompat.keras.engine.training import Model
from tfcompat.keras.layers.serialization import deserialize
from tfcompat.keras.utils.generic_utils import get_custom_objects


@tf_export("keras.Sequential", "keras.models.Sequential")
class Sequential(Model):
    """A model whose layers each take the previous layer's output."""

    _UNTRACKED = Model._UNTRACKED | frozenset(("_seq_input", "_seq_output"))
    _checkpoints_layer_list = True

    def __init__(self, layers=None, name=None):
        super(Sequential, self).__init__(name=name)
        self._seq_layers = []
        self._seq_input = None
        self._seq_output = None
        self._graph_built = False
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        return list(self._seq_layers)

    def add(self, layer):
        """Append a layer (or start the model with an `Input` tensor / `InputLayer`)."""
        if isinstance(layer, Tensor) and is_keras_tensor(layer):
            layer = layer._keras_history[0]
        if not isinstance(layer, Layer):
            raise TypeError("The added layer must be an instance of class Layer. Found: %s"
                            % (layer,))
        if isinstance(layer, InputLayer):
            if self._seq_layers or self._seq_input is not None:
                raise ValueError("An InputLayer can only be the first layer of a Sequential "
                                 "model.")
            self._seq_input = layer._inbound_nodes[0].outputs
            self._seq_output = self._seq_input
            self._set_graph_built()
            return
        if any(layer is existing for existing in self._seq_layers):
            raise ValueError("Layer %s is already in the model; a Sequential model cannot hold "
                             "the same layer twice." % layer.name)
        if not self._seq_layers and self._seq_input is None and \
                getattr(layer, "_batch_input_shape", None) is not None:
            self._seq_input = Input(batch_shape=layer._batch_input_shape, dtype=layer.dtype,
                                    name=layer.name + "_input")
            self._seq_output = self._seq_input
        self._seq_layers.append(layer)
        if self._seq_output is not None:
            self._seq_output = self._apply_symbolic(layer, self._seq_output)
            self._set_graph_built()

    @staticmethod
    def _apply_symbolic(layer, x):
        out = layer(x)
        if len(flatten(out)) != 1:
            raise TypeError("All layers in a Sequential model should have a single output "
                            "tensor. For multi-output layers, use the functional API.")
        return out

    def _set_graph_built(self):
        self._graph_built = True
        self.built = True
        self._autocast = False  # as a functional model: `call` casts to the Input's dtype
        self.inputs = [self._seq_input]
        self.outputs = [self._seq_output]

    def pop(self):
        """Remove the last layer."""
        if not self._seq_layers:
            raise TypeError("There are no layers in the model.")
        self._seq_layers.pop()
        if self._seq_input is not None:
            x = self._seq_input
            for layer in self._seq_layers:
                x = self._apply_symbolic(layer, x)
            self._seq_output = x
            self._set_graph_built()

    def build(self, input_shape=None):
        """Connect the layers on a symbolic input of `input_shape` (batch dimension first)."""
        self._build_graph(input_shape)

    def _build_graph(self, input_shape, dtype=None):
        if self._seq_input is None:
            if input_shape is None:
                raise ValueError("You must provide an `input_shape` argument.")
            self._seq_input = Input(batch_shape=TensorShape(input_shape).as_list(), dtype=dtype)
            x = self._seq_input
            for layer in self._seq_layers:
                x = self._apply_symbolic(layer, x)
            self._seq_output = x
            self._set_graph_built()
        self.built = True

    def _maybe_build(self, inputs):
        if not self._graph_built and not is_keras_tensor(inputs) and \
                isinstance(inputs, Tensor) and inputs.shape.rank is not None:
            shape = [None] + inputs.shape.as_list()[1:]
            try:
                self._build_graph(shape, inputs.dtype.base_dtype)
            except (ValueError, TypeError):
                self._seq_input = None  # layers that need concrete shapes: build eagerly
        self.built = True

    def call(self, inputs, training=None, mask=None):
        x = inputs
        if self._seq_input is not None and isinstance(self._seq_input, Tensor):
            x = conform_rank(conform_dtype(x, self._seq_input.dtype), self._seq_input)
        for layer in self._seq_layers:
            kwargs = {}
            if layer._expects_mask_arg:
                kwargs["mask"] = mask
            if layer._expects_training_arg and training is not None:
                kwargs["training"] = training
            x = layer(x, **kwargs)
            mask = getattr(x, "_keras_mask", None)
        return x

    def compute_mask(self, inputs, mask=None):
        return None

    def predict_proba(self, x, batch_size=32, verbose=0):
        """Deprecated Keras 2 name for `predict` (warns when outputs are not in [0, 1])."""
        warnings.warn("`model.predict_proba()` is deprecated and will be removed after "
                      "2021-01-01. Please use `model.predict()` instead.")
        predictions = self.predict(x, batch_size, verbose)
        if predictions.min() < 0.0 or predictions.max() > 1.0:
            logging.getLogger("tensorflow").warning(
                "Network returning invalid probability values. The last layer might not "
                "normalize predictions into probabilities (like softmax or sigmoid would).")
        return predictions

    def predict_classes(self, x, batch_size=32, verbose=0):
        """Deprecated Keras 2 helper: the argmax of `predict` (or `> 0.5` as int32 for a
        single output unit)."""
        warnings.warn("`model.predict_classes()` is deprecated and will be removed after "
                      "2021-01-01. Please use instead:* `np.argmax(model.predict(x), "
                      "axis=-1)`,   if your model does multi-class classification   (e.g. if "
                      "it uses a `softmax` last-layer activation).* `(model.predict(x) > "
                      "0.5).astype(\"int32\")`,   if your model does binary classification   "
                      "(e.g. if it uses a `sigmoid` last-layer activation).")
        probabilities = self.predict(x, batch_size=batch_size, verbose=verbose)
        if probabilities.shape[-1] > 1:
            return probabilities.argmax(axis=-1)
        return (probabilities > 0.5).astype("int32")

    @property
    def input_shape(self):
        """The shape its Input gives, or (a model with no Input called in a functional
        model, as Keras builds it then) the shape it was called on."""
        if self._seq_input is None:
            if self._inbound_nodes:
                return super(Sequential, self).input_shape
            raise AttributeError("The model has not been built yet and has no input shape.")
        return tuple(self._seq_input.shape.as_list())

    @property
    def output_shape(self):
        if self._seq_output is None:
            if self._inbound_nodes:
                return super(Sequential, self).output_shape
            raise AttributeError("The model has not been built yet and has no output shape.")
        return tuple(self._seq_output.shape.as_list())

    def get_config(self):
        layer_configs = [{"class_name": type(layer).__name__, "config": layer.get_config()}
                         for layer in self._seq_layers]
        config = {"name": self.name, "layers": layer_configs}
        if self._seq_input is not None and layer_configs and \
                "batch_input_shape" not in layer_configs[0]["config"]:
            layer_configs[0]["config"]["batch_input_shape"] = \
                tuple(self._seq_input.shape.as_list())
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        custom_objects = dict(get_custom_objects(), **(custom_objects or {}))
        if isinstance(config, list):
            config = {"layers": config}
        model = cls(name=config.get("name"))
        for spec in config["layers"]:
            model.add(deserialize(spec, custom_objects=custom_objects))
        return model
