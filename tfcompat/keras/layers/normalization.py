"""BatchNormalization (moving statistics updated while training) and LayerNormalization."""
import torch

from tfcompat import _api
from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import backend, constraints, initializers, regularizers
from tfcompat.keras.engine.base_layer import InputSpec, Layer
from tfcompat.keras.layers.core import serialize_initializer, weight_kwargs
from tfcompat.variables import VariableAggregation, VariableSynchronization
from tfcompat.ops import math_ops


def _broadcast(t, ndim, axes):
    """Reshape per-feature parameters of shape [d_a for a in axes] to broadcast over x."""
    shape = [1] * ndim
    sizes = list(t.shape) if t.ndim == len(axes) else [t.numel()]
    for a, size in zip(axes, sizes):
        shape[a] = size
    return t.reshape(shape)


@ops.op(graph_name="FusedBatchNormV3")
def _batch_norm_train(x, gamma, beta, axes, epsilon, bessel):
    """Normalize with the batch statistics; returns (y, mean, variance for the moving average)."""
    t = ops.to_torch(x)
    reduce = [i for i in range(t.ndim) if i not in axes]
    count = 1
    for i in reduce:
        count *= t.shape[i]
    if len(axes) == 1 and count > 1 and t.dtype in (torch.float32, torch.float64):
        return _fused_batch_norm_train(t, gamma, beta, axes[0], epsilon, bessel, count)
    var, mean = torch.var_mean(t, dim=reduce, unbiased=False, keepdim=True)
    y = (t - mean) * torch.rsqrt(var + epsilon)
    if gamma is not None:
        y = y * _broadcast(ops.to_torch(gamma), t.ndim, axes)
    if beta is not None:
        y = y + _broadcast(ops.to_torch(beta), t.ndim, axes)
    shape = [t.shape[a] for a in axes]
    batch_var = var.reshape(shape)
    if bessel:
        batch_var = batch_var * (count / max(count - 1, 1))
    return y, mean.reshape(shape).detach(), batch_var.detach()


def _fused_batch_norm_train(t, gamma, beta, axis, epsilon, bessel, count):
    """torch's fused batch norm over every dim but `axis` (moved to dim 1 as a view: NHWC
    runs as channels_last). Fresh running buffers with momentum 1 receive the batch mean and
    the unbiased batch variance, as TF's fused kernel returns them."""
    channels = t.shape[axis]
    moved = t.movedim(axis, 1) if axis != 1 else t
    mean = torch.zeros(channels, dtype=t.dtype, device=t.device)
    var = torch.ones(channels, dtype=t.dtype, device=t.device)
    y = torch.nn.functional.batch_norm(
        moved, mean, var, None if gamma is None else ops.to_torch(gamma).reshape(-1),
        None if beta is None else ops.to_torch(beta).reshape(-1), True, 1.0, epsilon)
    if not bessel:
        var = var * ((count - 1) / count)
    return (y.movedim(1, axis) if axis != 1 else y), mean, var


@ops.op(graph_name="FusedBatchNormV3")
def _batch_norm_infer(x, mean, variance, gamma, beta, axes, epsilon):
    t = ops.to_torch(x)
    if len(axes) == 1 and t.dtype in (torch.float32, torch.float64):
        axis = axes[0]
        # TF gives the moving statistics no gradient in inference (and torch refuses
        # running statistics that require grad)
        y = torch.nn.functional.batch_norm(
            t.movedim(axis, 1), ops.to_torch(mean).detach().reshape(-1),
            ops.to_torch(variance).detach().reshape(-1),
            None if gamma is None else ops.to_torch(gamma).reshape(-1),
            None if beta is None else ops.to_torch(beta).reshape(-1), False, 0.0, epsilon)
        return y.movedim(1, axis)
    y = (t - _broadcast(ops.to_torch(mean), t.ndim, axes)) * torch.rsqrt(
        _broadcast(ops.to_torch(variance), t.ndim, axes) + epsilon)
    if gamma is not None:
        y = y * _broadcast(ops.to_torch(gamma), t.ndim, axes)
    if beta is not None:
        y = y + _broadcast(ops.to_torch(beta), t.ndim, axes)
    return y


def _normalize_axes(axis, ndims, name):
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    result = []
    for a in axes:
        if not -ndims <= a < ndims:
            raise ValueError("Invalid axis: %d for input of rank %d in layer %s"
                             % (a, ndims, name))
        result.append(a % ndims)
    if len(set(result)) != len(result):
        raise ValueError("Duplicate axis: %s" % (axis,))
    return sorted(result)


@tf_export("keras.layers.BatchNormalization")
class BatchNormalization(Layer):
    """Batch normalization (Keras 2): batch statistics while training, moving ones otherwise.

    Training updates moving_mean/moving_variance with `momentum`: at once in eager mode, as
    update ops (`layer.updates`, the UPDATE_OPS collection) in TF1 graphs.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super(BatchNormalization, self).__init__(name=name, trainable=trainable, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("BatchNormalization with renorm, virtual_batch_size or "
                                      "adjustment is not implemented by tfcompat")
        self.axis = axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.fused = fused
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.rank is None:
            raise ValueError("Input has undefined rank.")
        ndims = input_shape.rank
        self._axes = _normalize_axes(self.axis, ndims, self.name)
        dims = input_shape.as_list()
        for a in self._axes:
            if dims[a] is None:
                raise ValueError("Input has undefined `axis` dimension. Input shape: %s"
                                 % (input_shape,))
        self.input_spec = InputSpec(ndim=ndims, axes={a: dims[a] for a in self._axes})
        self._bessel = self.fused is not False and ndims == 4 and self._axes in ([1], [3])
        param_shape = [dims[a] for a in self._axes]
        if len(self._axes) == 1:
            param_shape = param_shape[:1]
        self.gamma = self.add_weight("gamma", shape=param_shape,
                                     initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint,
                                     trainable=True, experimental_autocast=False) \
            if self.scale else None
        self.beta = self.add_weight("beta", shape=param_shape,
                                    initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint,
                                    trainable=True, experimental_autocast=False) \
            if self.center else None
        self.moving_mean = self.add_weight(
            "moving_mean", shape=param_shape, initializer=self.moving_mean_initializer,
            synchronization=VariableSynchronization.ON_READ, trainable=False,
            aggregation=VariableAggregation.MEAN, experimental_autocast=False)
        self.moving_variance = self.add_weight(
            "moving_variance", shape=param_shape,
            initializer=self.moving_variance_initializer,
            synchronization=VariableSynchronization.ON_READ, trainable=False,
            aggregation=VariableAggregation.MEAN, experimental_autocast=False)
        self.built = True

    def _moving_update(self, variable, value, decay):
        delta = (variable.read_value() - value) * decay
        return variable.assign_sub(delta, read_value=False)

    def call(self, inputs, training=None):
        return _in_variable_dtype(self, inputs, self._normalize, training)

    def _normalize(self, inputs, training):
        if training is None:
            training = backend.learning_phase()
        if _api.flavor() == "v2" and not self.trainable:
            training = False  # TF2: a frozen BatchNormalization runs in inference mode
        if not ops.is_tensor(training) and not training:
            return _batch_norm_infer(inputs, self.moving_mean, self.moving_variance,
                                     self.gamma, self.beta, self._axes, self.epsilon)
        train_out, mean, variance = _batch_norm_train(inputs, self.gamma, self.beta,
                                                      self._axes, self.epsilon, self._bessel)
        if ops.is_tensor(training):
            training = math_ops.cast(training, "bool")
            infer_out = _batch_norm_infer(inputs, self.moving_mean, self.moving_variance,
                                          self.gamma, self.beta, self._axes, self.epsilon)
            outputs = backend.smart_cond(training, lambda: train_out, lambda: infer_out)
            decay = backend.smart_cond(
                training, lambda: ops.convert_to_tensor(1.0 - self.momentum, inputs.dtype),
                lambda: ops.convert_to_tensor(0.0, inputs.dtype))
        else:
            outputs = train_out
            decay = 1.0 - self.momentum
        mean_update = self._moving_update(self.moving_mean, mean, decay)
        variance_update = self._moving_update(self.moving_variance, variance, decay)
        self.add_update([mean_update, variance_update], inputs=inputs)
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super(BatchNormalization, self).get_config()
        config.update({"axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
                       "center": self.center, "scale": self.scale})
        config.update(weight_kwargs(self, "beta", "gamma"))
        config["moving_mean_initializer"] = serialize_initializer(self.moving_mean_initializer)
        config["moving_variance_initializer"] = serialize_initializer(
            self.moving_variance_initializer)
        return config


def _in_variable_dtype(layer, inputs, normalize, *args):
    """`normalize(inputs, *args)`; as Keras 2's normalization layers do under a mixed policy,
    float16/bfloat16 inputs of a float32 layer are normalized in float32 (the weights are not
    AutoCastVariables) and the result is cast back to the inputs' dtype."""
    input_dtype = inputs.dtype.base_dtype
    if input_dtype not in (dtypes.float16, dtypes.bfloat16) or layer.dtype != "float32":
        return normalize(inputs, *args)
    return math_ops.cast(normalize(math_ops.cast(inputs, dtypes.float32), *args), input_dtype)


@ops.op(graph_name="LayerNorm")
def _layer_norm(x, gamma, beta, axes, epsilon):
    t = ops.to_torch(x)
    var, mean = torch.var_mean(t, dim=axes, unbiased=False, keepdim=True)
    y = (t - mean) * torch.rsqrt(var + epsilon)
    if gamma is not None:
        y = y * _broadcast(ops.to_torch(gamma), t.ndim, axes)
    if beta is not None:
        y = y + _broadcast(ops.to_torch(beta), t.ndim, axes)
    return y


@tf_export("keras.layers.LayerNormalization")
class LayerNormalization(Layer):
    """Normalizes each sample over `axis` (then scales by gamma and shifts by beta)."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 trainable=True, name=None, **kwargs):
        super(LayerNormalization, self).__init__(name=name, trainable=trainable, **kwargs)
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        self._axes = _normalize_axes(self.axis, input_shape.rank, self.name)
        param_shape = [input_shape.as_list()[a] for a in self._axes]
        self.gamma = self.add_weight("gamma", shape=param_shape,
                                     initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint,
                                     experimental_autocast=False) if self.scale else None
        self.beta = self.add_weight("beta", shape=param_shape,
                                    initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint,
                                    experimental_autocast=False) if self.center else None
        self.built = True

    def call(self, inputs):
        return _in_variable_dtype(self, inputs, _layer_norm, self.gamma, self.beta,
                                  self._axes, self.epsilon)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super(LayerNormalization, self).get_config()
        config.update({"axis": self.axis, "epsilon": self.epsilon, "center": self.center,
                       "scale": self.scale})
        config.update(weight_kwargs(self, "beta", "gamma"))
        return config
