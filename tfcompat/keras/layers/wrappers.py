"""Layer wrappers: `Wrapper`, `TimeDistributed` and `Bidirectional`."""
import inspect

from tfcompat._api import tf_export
from tfcompat.framework import ops
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras.engine.base_layer import InputSpec, Layer
from tfcompat.ops import array_ops
from tfcompat.keras.layers.recurrent import _standardize_args
from tfcompat.keras.layers.serialization import deserialize


@tf_export("keras.layers.Wrapper")
class Wrapper(Layer):
    """A layer that wraps another layer (`self.layer`)."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `%s` layer with a `Layer` instance. You "
                             "passed: %s" % (type(self).__name__, layer))
        self.layer = layer
        super(Wrapper, self).__init__(**kwargs)

    def build(self, input_shape=None):
        self.built = True

    def get_config(self):
        config = super(Wrapper, self).get_config()
        config["layer"] = {"class_name": type(self.layer).__name__,
                           "config": self.layer.get_config()}
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = deserialize(config.pop("layer"), custom_objects=custom_objects)
        return cls(layer, **config)


@ops.op(graph_name="Reshape")
def _fold_time(x):
    t = ops.to_torch(x)
    return t.reshape((t.shape[0] * t.shape[1],) + tuple(t.shape[2:]))


@ops.op(graph_name="Reshape")
def _unfold_time(y, x):
    t, ref = ops.to_torch(y), ops.to_torch(x)
    return t.reshape((ref.shape[0], ref.shape[1]) + tuple(t.shape[1:]))


@tf_export("keras.layers.TimeDistributed")
class TimeDistributed(Wrapper):
    """Applies `layer` to every time step of [batch, time, ...] inputs."""

    def __init__(self, layer, **kwargs):
        super(TimeDistributed, self).__init__(layer, **kwargs)
        self.supports_masking = True

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.rank is None or input_shape.rank < 3:
            raise ValueError("`TimeDistributed` Layer should be passed an `input_shape` with "
                             "at least 3 dimensions, received: %s" % (input_shape,))
        self.input_spec = InputSpec(shape=[None] + input_shape.as_list()[1:])
        self.built = True

    def call(self, inputs, training=None, mask=None):
        kwargs = {}
        if self.layer._expects_training_arg and training is not None:
            kwargs["training"] = training
        y = self.layer(_fold_time(inputs), **kwargs)
        return _unfold_time(y, inputs)

    def compute_mask(self, inputs, mask=None):
        return mask


def _recreate_from_config(layer, go_backwards=False):
    """A fresh copy of `layer` from its config (custom cell classes passed along)."""
    config = layer.get_config()
    if go_backwards:
        config["go_backwards"] = not config["go_backwards"]
    from_config = type(layer).from_config
    if "custom_objects" not in inspect.signature(from_config).parameters:
        return from_config(config)
    cell = getattr(layer, "cell", None)
    cells = [] if cell is None else [cell] + list(getattr(cell, "cells", []))
    return from_config(config, custom_objects={type(c).__name__: type(c) for c in cells})


@tf_export("keras.layers.Bidirectional")
class Bidirectional(Wrapper):
    """Runs an RNN layer forwards and a copy of it backwards; merges the two outputs.

    As Keras 2: the copies are named `forward_<name>` and `backward_<name>` (their weights
    live in those name scopes); sequence outputs of the backward copy are reversed back
    before merging (`merge_mode` 'concat', 'sum', 'mul', 'ave' or None for a list), and
    masked steps give zeros in sequence outputs. `initial_state` holds the forward states,
    then the backward ones.
    """

    _UNTRACKED = Wrapper._UNTRACKED | frozenset(("layer",))

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `Bidirectional` layer with a "
                             "`tf.keras.layers.Layer` instance. Received: %s" % (layer,))
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError("`backward_layer` need to be a `tf.keras.layers.Layer` instance. "
                             "Received: %s" % (backward_layer,))
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError("Invalid merge mode. Received: %s. Merge mode should be one of "
                             "{\"sum\", \"mul\", \"ave\", \"concat\", None}" % (merge_mode,))
        super(Bidirectional, self).__init__(layer, **kwargs)
        self.forward_layer = _recreate_from_config(layer)
        if backward_layer is None:
            self.backward_layer = _recreate_from_config(layer, go_backwards=True)
        else:
            self.backward_layer = backward_layer
            self._backward_layer_config = {"class_name": type(backward_layer).__name__,
                                           "config": backward_layer.get_config()}
        self.forward_layer._name = "forward_" + self.forward_layer.name
        self.backward_layer._name = "backward_" + self.backward_layer.name
        self._verify_layer_config()
        for sublayer in (self.forward_layer, self.backward_layer):
            if getattr(sublayer, "zero_output_for_mask", None) is not None:
                sublayer.zero_output_for_mask = sublayer.return_sequences
        self.merge_mode = merge_mode
        if weights:
            half = len(weights) // 2
            self.forward_layer._initial_weights = weights[:half]
            self.backward_layer._initial_weights = weights[half:]
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self.input_spec = layer.input_spec
        self._num_constants = 0

    def _verify_layer_config(self):
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == backward.go_backwards:
            raise ValueError("Forward layer and backward layer should have different "
                             "`go_backwards` value. forward_layer.go_backwards = %s, "
                             "backward_layer.go_backwards = %s"
                             % (forward.go_backwards, backward.go_backwards))
        for attribute in ("stateful", "return_sequences", "return_state"):
            if getattr(forward, attribute) != getattr(backward, attribute):
                raise ValueError("Forward layer and backward layer are expected to have the "
                                 "same value for attribute \"%s\", got \"%s\" for forward "
                                 "layer and \"%s\" for backward layer"
                                 % (attribute, getattr(forward, attribute),
                                    getattr(backward, attribute)))

    def compute_output_shape(self, input_shape):
        output_shape = self.forward_layer.compute_output_shape(input_shape)
        state_shape = []
        if self.return_state:
            output_shape, state_shape = output_shape[0], list(output_shape[1:])
        if self.merge_mode == "concat":
            dims = TensorShape(output_shape).as_list()
            dims[-1] = None if dims[-1] is None else dims[-1] * 2
            output_shape = TensorShape(dims)
        elif self.merge_mode is None:
            output_shape = [output_shape, output_shape]
        if not self.return_state:
            return output_shape
        outputs = output_shape if self.merge_mode is None else [output_shape]
        return outputs + state_shape + list(state_shape)

    def __call__(self, inputs, initial_state=None, constants=None, **kwargs):
        inputs, initial_state, constants = _standardize_args(inputs, initial_state, constants,
                                                             self._num_constants)
        if initial_state is not None:
            if len(initial_state) % 2:
                raise ValueError("When passing `initial_state` to a Bidirectional RNN, the "
                                 "state should be a list containing the states of the "
                                 "underlying RNNs. Received: %s" % (initial_state,))
            kwargs["initial_state"] = initial_state
        if constants is not None:
            kwargs["constants"] = constants
            self._num_constants = len(constants)
        return super(Bidirectional, self).__call__(inputs, **kwargs)

    def call(self, inputs, training=None, mask=None, initial_state=None, constants=None):
        kwargs = {}
        if self.layer._expects_training_arg:
            kwargs["training"] = training
        if self.layer._expects_mask_arg:
            kwargs["mask"] = mask
        if constants is not None:
            kwargs["constants"] = constants
        forward_kwargs, backward_kwargs = dict(kwargs), dict(kwargs)
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_kwargs["initial_state"] = initial_state[:half]
            backward_kwargs["initial_state"] = initial_state[half:]
        y = self.forward_layer(inputs, **forward_kwargs)
        y_rev = self.backward_layer(inputs, **backward_kwargs)
        states = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            time_axis = 0 if getattr(self.forward_layer, "time_major", False) else 1
            y_rev = array_ops.reverse(y_rev, [time_axis])
        if self.merge_mode == "concat":
            output = array_ops.concat([y, y_rev], -1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if not self.return_state:
            return output
        return (output if self.merge_mode is None else [output]) + states

    def reset_states(self):
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    def build(self, input_shape):
        for sublayer in (self.forward_layer, self.backward_layer):
            with ops.name_scope(sublayer.name):
                sublayer.build(input_shape)
            sublayer.built = True
            if sublayer._initial_weights is not None:
                sublayer.set_weights(sublayer._initial_weights)
                sublayer._initial_weights = None
        self.built = True

    def compute_mask(self, inputs, mask):
        if isinstance(mask, list):
            mask = mask[0]
        if self.return_sequences:
            output_mask = mask if self.merge_mode else [mask, mask]
        else:
            output_mask = None if self.merge_mode else [None, None]
        if not self.return_state:
            return output_mask
        state_masks = [None] * (2 * len(self.forward_layer.states))
        return (output_mask if isinstance(output_mask, list) else [output_mask]) + state_masks

    def get_config(self):
        config = super(Bidirectional, self).get_config()
        config["merge_mode"] = self.merge_mode
        if self._num_constants:
            config["num_constants"] = self._num_constants
        if hasattr(self, "_backward_layer_config"):
            config["backward_layer"] = self._backward_layer_config
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        num_constants = config.pop("num_constants", 0)
        layer = deserialize(config.pop("layer"), custom_objects=custom_objects)
        backward = config.pop("backward_layer", None)
        if backward is not None:
            config["backward_layer"] = deserialize(backward, custom_objects=custom_objects)
        wrapper = cls(layer, **config)
        wrapper._num_constants = num_constants
        return wrapper
