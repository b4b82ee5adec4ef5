"""Core Keras layers: Dense, Activation, Dropout, Flatten, Reshape, Permute, RepeatVector,
Lambda, Masking, ActivityRegularization."""
import inspect
import sys

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import matmul_kernel, ops
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import activations, backend, constraints, initializers, regularizers
from tfcompat.keras.engine.base_layer import InputSpec, Layer
from tfcompat.ops import array_ops, math_ops, nn_ops
from tfcompat.keras.utils.generic_utils import func_dump
from tfcompat.keras.engine.op_layer import exported_op_defined_as
from tfcompat.keras.utils import generic_utils


def serialize_initializer(initializer):
    return initializers.serialize(initializer) if initializer is not None else None


def serialize_optional(module, value):
    return module.serialize(value) if value is not None else None


def weight_kwargs(layer, *prefixes):
    """The `*_initializer/_regularizer/_constraint` config entries of `prefixes`."""
    config = {}
    for prefix in prefixes:
        config[prefix + "_initializer"] = serialize_initializer(
            getattr(layer, prefix + "_initializer"))
        config[prefix + "_regularizer"] = serialize_optional(
            regularizers, getattr(layer, prefix + "_regularizer"))
        config[prefix + "_constraint"] = serialize_optional(
            constraints, getattr(layer, prefix + "_constraint"))
    return config


@ops.op(graph_name="MatMul")
def _dense(x, kernel):
    """`x @ kernel`, `x` cast to the kernel's dtype first: Keras' `Dense.call` casts its
    inputs (integer or float64 ones into a float32 layer) to the layer's dtype (under a
    mixed policy the kernel is read in the compute dtype). On the CPU a float16 product is
    computed in float32 and rounded to float16, as GPUs accumulate float16 matmuls in float32:
    torch's CPU float16 matmul is ~80x slower than float32 (256x512 @ 512x1024: 288 ms vs
    3.5 ms, one thread)."""
    x, w = ops.to_torch(x), ops.to_torch(kernel)
    x = x if x.dtype is w.dtype else x.to(w.dtype)
    if w.dtype is torch.float16 and w.device.type == "cpu":
        return torch.matmul(x.float(), w.float()).half()
    return matmul_kernel.matmul(x, w)


@tf_export("keras.layers.Dense")
class Dense(Layer):
    """`activation(dot(inputs, kernel) + bias)`; kernel [input_dim, units]."""

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        if "input_shape" not in kwargs and "input_dim" in kwargs:
            kwargs["input_shape"] = (kwargs.pop("input_dim"),)
        super(Dense, self).__init__(activity_regularizer=regularizers.get(activity_regularizer),
                                    **kwargs)
        self.units = int(units)
        if self.units <= 0:
            raise ValueError("Received an invalid value for `units`, expected a positive "
                             "integer, got %s." % units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.supports_masking = True
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        last = input_shape[-1] if input_shape.rank else None
        last = getattr(last, "value", last)
        if last is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                             "Found `None`.")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.kernel = self.add_weight("kernel", shape=[last, self.units],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, dtype=self.dtype,
                                      trainable=True)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units],
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, dtype=self.dtype,
                                        trainable=True)
        else:
            self.bias = None
        self.built = True

    def call(self, inputs):
        outputs = _dense(inputs, self.kernel)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        input_shape = TensorShape(input_shape)
        return input_shape[:-1].concatenate([self.units])

    def get_config(self):
        config = {"units": self.units, "activation": activations.serialize(self.activation),
                  "use_bias": self.use_bias,
                  "activity_regularizer": serialize_optional(regularizers,
                                                             self.activity_regularizer)}
        config.update(weight_kwargs(self, "kernel", "bias"))
        base = super(Dense, self).get_config()
        base.update(config)
        return base


@tf_export("keras.layers.Activation")
class Activation(Layer):
    """Applies an activation function."""

    def __init__(self, activation, **kwargs):
        super(Activation, self).__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super(Activation, self).get_config()
        config["activation"] = activations.serialize(self.activation)
        return config


@tf_export("keras.layers.Dropout")
class Dropout(Layer):
    """Zeroes a fraction `rate` of the inputs while training (scaling the rest)."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super(Dropout, self).__init__(**kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError("Invalid value %s received for `rate`, expected a value between "
                             "0 and 1." % rate)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs, training=None):
        if training is None:
            training = backend.learning_phase()
        if isinstance(self.rate, (int, float)) and self.rate == 0:
            return array_ops.identity(inputs)

        def dropped():
            return nn_ops.dropout_v2(inputs, rate=self.rate, noise_shape=self.noise_shape,
                                     seed=self.seed)
        return backend.smart_cond(training, dropped, lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super(Dropout, self).get_config()
        config.update({"rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed})
        return config


@ops.op(graph_name="Reshape")
def _flatten(x, channels_first):
    t = ops.to_torch(x)
    if channels_first and t.ndim > 2:
        t = t.permute(0, *range(2, t.ndim), 1)
    if t.ndim == 1:
        return t.reshape(-1, 1)
    return t.reshape(t.shape[0], -1)


@tf_export("keras.layers.Flatten")
class Flatten(Layer):
    """[batch, d1, d2, ...] -> [batch, d1 * d2 * ...] (channels_first inputs in NHWC order)."""

    def __init__(self, data_format=None, **kwargs):
        super(Flatten, self).__init__(**kwargs)
        self.data_format = backend.normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        return _flatten(inputs, self.data_format == "channels_first")

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        rest = dims[1:]
        size = int(np.prod(rest)) if rest and None not in rest else (1 if not rest else None)
        return TensorShape([dims[0], size])

    def get_config(self):
        config = super(Flatten, self).get_config()
        config["data_format"] = self.data_format
        return config


@ops.op(graph_name="Reshape")
def _reshape_batch(x, target_shape):
    t = ops.to_torch(x)
    return t.reshape((t.shape[0],) + tuple(target_shape))


@tf_export("keras.layers.Reshape")
class Reshape(Layer):
    """Reshape each sample to `target_shape` (one entry may be -1)."""

    def __init__(self, target_shape, **kwargs):
        super(Reshape, self).__init__(**kwargs)
        self.target_shape = tuple(target_shape)
        if sum(1 for d in self.target_shape if d == -1) > 1:
            raise ValueError("Can only specify one unknown dimension.")

    def call(self, inputs):
        try:
            return _reshape_batch(inputs, self.target_shape)
        except RuntimeError as e:
            raise ValueError("total size of new array must be unchanged, input_shape = %s, "
                             "output_shape = %s (%s)" % (inputs.shape.as_list()[1:],
                                                         list(self.target_shape), e)) from None

    def get_config(self):
        config = super(Reshape, self).get_config()
        config["target_shape"] = self.target_shape
        return config


@tf_export("keras.layers.Permute")
class Permute(Layer):
    """Permute the non-batch dimensions; `dims` counts from 1."""

    def __init__(self, dims, **kwargs):
        super(Permute, self).__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError("Invalid permutation `dims` for Permute Layer: %s. The set of "
                             "indices in `dims` must be consecutive and start from 1."
                             % (dims,))
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return array_ops.transpose(inputs, perm=(0,) + self.dims)

    def get_config(self):
        config = super(Permute, self).get_config()
        config["dims"] = self.dims
        return config


@tf_export("keras.layers.RepeatVector")
class RepeatVector(Layer):
    """[batch, features] -> [batch, n, features]."""

    def __init__(self, n, **kwargs):
        super(RepeatVector, self).__init__(**kwargs)
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return backend.repeat(inputs, self.n)

    def get_config(self):
        config = super(RepeatVector, self).get_config()
        config["n"] = self.n
        return config


@tf_export("keras.layers.Lambda")
class Lambda(Layer):
    """Wraps a function as a layer; `arguments` are passed as keyword arguments.

    The config stores a function as Keras 2 does: by name (`"function_type": "function"`,
    restored from `custom_objects`, the custom object scope or the exported TF ops), or a
    `lambda` as marshalled bytecode (`"lambda"`), which only loads with safe mode off
    (`load_model(..., safe_mode=False)`). Where we differ: Keras stores every Python function
    as bytecode; we store named functions by name."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super(Lambda, self).__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}
        self.mask = mask
        self._output_shape = output_shape
        params = _parameters(function)
        self._fn_expects_training_arg = "training" in params
        self._fn_expects_mask_arg = "mask" in params
        self.supports_masking = mask is not None

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_expects_mask_arg:
            kwargs["mask"] = mask
        if self._fn_expects_training_arg:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def get_config(self):
        config = super(Lambda, self).get_config()
        function, function_type, module = _function_config(self.function)
        config.update({"function": function, "function_type": function_type,
                       "module": module, "arguments": self.arguments})
        if callable(self._output_shape):
            output_shape, output_shape_type, output_shape_module = \
                _function_config(self._output_shape)
            config.update({"output_shape": output_shape, "output_shape_type": output_shape_type,
                           "output_shape_module": output_shape_module})
        else:
            config.update({"output_shape": self._output_shape, "output_shape_type": "raw"})
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        function = _function_from_config(config.pop("function", None),
                                         config.pop("function_type", "function"),
                                         config.pop("module", None), custom_objects)
        output_shape = config.pop("output_shape", None)
        output_shape_type = config.pop("output_shape_type", "raw")
        output_shape_module = config.pop("output_shape_module", None)
        if output_shape_type != "raw":
            output_shape = _function_from_config(output_shape, output_shape_type,
                                                 output_shape_module, custom_objects)
        return cls(function, output_shape=output_shape, **config)


def _function_config(function):
    """(value, type, module) storing `function` in a Lambda config: a `lambda` as Keras'
    bytecode triple, any other callable by its name."""
    name = getattr(function, "__name__", None)
    module = getattr(function, "__module__", None)
    if name == "<lambda>":
        return func_dump(function), "lambda", module
    if name is None:
        raise NotImplementedError("tfcompat cannot serialize the Lambda layer function %r: "
                                  "it has no name" % (function,))
    return name, "function", module


def _function_from_config(value, function_type, module, custom_objects):
    """The function a Lambda config stores: by name from `custom_objects`, the custom object
    scope or the exported TF ops (never imported from `module`), or, with safe mode off,
    from bytecode with `module`'s globals."""
    if function_type == "function":
        function = generic_utils.get_registered_object(value, custom_objects)
        if function is None and isinstance(value, str) and isinstance(module, str):
            function = exported_op_defined_as(module + "." + value)
        if function is None:
            raise ValueError("Unknown function in Lambda layer: %r. Please ensure it is "
                             "passed in `custom_objects`." % (value,))
        return function
    if function_type == "lambda":  # Keras gives the code its module's globals
        globs = dict(vars(sys.modules[module])) \
            if isinstance(module, str) and module in sys.modules else {}
        globs.update(custom_objects or {})
        return generic_utils.func_load(value, globs=globs)  # ValueError in safe mode
    raise ValueError("Unknown function type %r in a Lambda layer config (Keras writes "
                     "'function' or 'lambda')." % (function_type,))


def _parameters(fn):
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


@tf_export("keras.layers.Masking")
class Masking(Layer):
    """Masks timesteps whose features all equal `mask_value`."""

    def __init__(self, mask_value=0.0, **kwargs):
        super(Masking, self).__init__(**kwargs)
        self.supports_masking = True
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return math_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = math_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1,
                                   keepdims=True)
        outputs = inputs * math_ops.cast(keep, inputs.dtype.base_dtype)
        outputs._keras_mask = array_ops.squeeze(keep, axis=[-1])
        return outputs

    def get_config(self):
        config = super(Masking, self).get_config()
        config["mask_value"] = self.mask_value
        return config


@tf_export("keras.layers.ActivityRegularization")
class ActivityRegularization(Layer):
    """Adds an L1/L2 penalty on the layer's inputs (activity) to the losses."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super(ActivityRegularization, self).__init__(
            activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2

    def get_config(self):
        config = super(ActivityRegularization, self).get_config()
        config.update({"l1": self.l1, "l2": self.l2})
        return config
