"""Convolution layers (kernels in TF's layout: spatial..., in, out) and padding, cropping,
up-sampling. channels_last by default; channels_first accepted."""
import torch
import torch.nn.functional as F

from tfcompat._api import tf_export
from tfcompat.framework import ops
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import activations, backend, constraints, initializers, regularizers
from tfcompat.keras.engine.base_layer import InputSpec, Layer
from tfcompat.keras.layers.core import serialize_optional, weight_kwargs
from tfcompat.ops import array_ops, nn_ops

_FORMATS = {(1, "channels_last"): "NWC", (1, "channels_first"): "NCW",
            (2, "channels_last"): "NHWC", (2, "channels_first"): "NCHW",
            (3, "channels_last"): "NDHWC", (3, "channels_first"): "NCDHW"}


def normalize_tuple(value, n, name):
    """An int or n ints -> a tuple of n ints (Keras' conv_utils.normalize_tuple)."""
    if isinstance(value, int):
        return (value,) * n
    try:
        values = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError("The `%s` argument must be a tuple of %d integers. Received: %s"
                         % (name, n, value)) from None
    if len(values) != n:
        raise ValueError("The `%s` argument must be a tuple of %d integers. Received: %s"
                         % (name, n, value))
    return values


def normalize_padding(value, allow_causal=False):
    padding = value.lower() if isinstance(value, str) else value
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    if padding not in allowed:
        raise ValueError("The `padding` argument must be one of %s. Received: %s"
                         % (", ".join('"%s"' % p for p in allowed), value))
    return padding


def _channel_axis(data_format, rank):
    return 1 if data_format == "channels_first" else rank + 1


class Conv(Layer):
    """N-d convolution base: kernel `kernel_size + (input_channels, filters)`."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 groups=1, **kwargs):
        """`groups` (Keras 2.3+): the input channels split into `groups` convolved
        separately (kernel `kernel_size + (input_channels // groups, filters)`)."""
        super(Conv, self).__init__(trainable=trainable, name=name,
                                   activity_regularizer=regularizers.get(activity_regularizer),
                                   **kwargs)
        self.rank = rank
        self.filters = int(filters) if filters is not None else None
        self.groups = groups or 1
        if self.filters is not None and self.filters % self.groups != 0:
            raise ValueError("The number of filters must be evenly divisible by the number of "
                             "groups. Received: groups=%s, filters=%s"
                             % (self.groups, self.filters))
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = normalize_padding(padding, allow_causal=rank == 1)
        self.data_format = backend.normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(ndim=rank + 2)

    def _input_channels(self, input_shape):
        input_shape = TensorShape(input_shape)
        channels = input_shape.as_list()[_channel_axis(self.data_format, self.rank)]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found "
                             "`None`.")
        return channels

    def _kernel_shape(self, channels):
        return self.kernel_size + (channels // self.groups, self.filters)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        if channels % self.groups != 0:
            raise ValueError("The number of input channels must be evenly divisible by the "
                             "number of groups. Received groups=%s, but the input has %s "
                             "channels (full input shape is %s)."
                             % (self.groups, channels, TensorShape(input_shape)))
        self.kernel = self.add_weight("kernel", shape=self._kernel_shape(channels),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, trainable=True,
                                      dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=(self.filters,),
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, trainable=True,
                                        dtype=self.dtype)
        else:
            self.bias = None
        self.input_spec = InputSpec(ndim=self.rank + 2,
                                    axes={_channel_axis(self.data_format, self.rank): channels})
        self.built = True

    def _tf_format(self):
        return _FORMATS[(self.rank, self.data_format)]

    def _convolve(self, inputs):
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            pads = [[0, 0], [left, 0], [0, 0]] if self.data_format == "channels_last" \
                else [[0, 0], [0, 0], [left, 0]]
            inputs = array_ops.pad(inputs, pads)
            padding = "valid"
        return nn_ops.convolution_v2(inputs, self.kernel, strides=list(self.strides),
                                     padding=padding.upper(), data_format=self._tf_format(),
                                     dilations=list(self.dilation_rate))

    def _finish(self, outputs):
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=self._tf_format())
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def call(self, inputs):
        return self._finish(self._convolve(inputs))

    def get_config(self):
        config = super(Conv, self).get_config()
        config.update({"filters": self.filters, "kernel_size": self.kernel_size,
                       "strides": self.strides, "padding": self.padding,
                       "data_format": self.data_format, "dilation_rate": self.dilation_rate,
                       "groups": self.groups, "activation": activations.serialize(self.activation),
                       "use_bias": self.use_bias,
                       "activity_regularizer": serialize_optional(regularizers,
                                                                  self.activity_regularizer)})
        config.update(weight_kwargs(self, "kernel", "bias"))
        return config


@tf_export("keras.layers.Conv1D", "keras.layers.Convolution1D")
class Conv1D(Conv):
    """1-D convolution over [batch, steps, channels] (or channels_first)."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super(Conv1D, self).__init__(
            1, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
            use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint,
            **kwargs)


@tf_export("keras.layers.Conv2D", "keras.layers.Convolution2D")
class Conv2D(Conv):
    """2-D convolution over images (NHWC by default)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super(Conv2D, self).__init__(
            2, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
            use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint,
            **kwargs)


@tf_export("keras.layers.Conv3D", "keras.layers.Convolution3D")
class Conv3D(Conv):
    """3-D convolution over volumes (NDHWC by default)."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super(Conv3D, self).__init__(
            3, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
            use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
            bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint,
            **kwargs)


def deconv_output_length(size, kernel, padding, output_padding, stride, dilation):
    """Keras' conv_utils.deconv_output_length."""
    if size is None:
        return None
    kernel = kernel + (kernel - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return size * stride + max(kernel - stride, 0)
        return size * stride
    pad = kernel // 2 if padding == "same" else 0
    return (size - 1) * stride + kernel - 2 * pad + output_padding


@ops.op(graph_name="Conv2DBackpropInput")
def _conv_transpose(x, kernel, strides, dilations, padding, output_padding, channels_last):
    """Transposed convolution with TF's kernel layout (spatial..., out, in) and padding."""
    x, w = ops.binary_operands(x, kernel, "Conv2DBackpropInput")
    n = w.ndim - 2
    xc = x.permute(0, x.ndim - 1, *range(1, x.ndim - 1)) if channels_last else x
    weight = w.permute(n + 1, n, *range(n))
    full = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1](
        xc, weight, None, strides, 0, 0, 1, dilations)
    slices = [slice(None), slice(None)]
    for i in range(n):
        size = xc.shape[2 + i]
        k = (w.shape[i] - 1) * dilations[i] + 1
        out = deconv_output_length(size, k, padding, output_padding[i] if output_padding
                                   else None, strides[i], 1)
        if padding == "same":
            before = max((size - 1) * strides[i] + k - out, 0) // 2
        else:
            before = 0
        slices.append(slice(before, before + out))
    y = full[tuple(slices)]
    extra = [out - y.shape[2 + i] for i, out in enumerate(
        [sl.stop - sl.start for sl in slices[2:]])]
    if any(e > 0 for e in extra):
        pads = []
        for e in reversed(extra):
            pads += [0, max(e, 0)]
        y = torch.nn.functional.pad(y, pads)
    return y.permute(0, *range(2, y.ndim), 1) if channels_last else y


class ConvTranspose(Conv):
    """Transposed convolution base: kernel `kernel_size + (filters, input_channels)`."""

    def __init__(self, rank, filters, kernel_size, strides, padding, output_padding,
                 data_format, dilation_rate, **kwargs):
        super(ConvTranspose, self).__init__(rank, filters, kernel_size, strides, padding,
                                            data_format, dilation_rate, **kwargs)
        self.output_padding = None if output_padding is None else \
            normalize_tuple(output_padding, rank, "output_padding")
        if self.output_padding is not None:
            for stride, pad in zip(self.strides, self.output_padding):
                if pad >= stride:
                    raise ValueError("Stride %s must be greater than output padding %s"
                                     % (self.strides, self.output_padding))

    def _kernel_shape(self, channels):
        return self.kernel_size + (self.filters, channels)

    def _convolve(self, inputs):
        return _conv_transpose(inputs, self.kernel, list(self.strides),
                               list(self.dilation_rate), self.padding,
                               None if self.output_padding is None else list(self.output_padding),
                               self.data_format == "channels_last")

    def get_config(self):
        config = super(ConvTranspose, self).get_config()
        config["output_padding"] = self.output_padding
        return config


@tf_export("keras.layers.Conv2DTranspose", "keras.layers.Convolution2DTranspose")
class Conv2DTranspose(ConvTranspose):
    """2-D transposed convolution ("deconvolution")."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super(Conv2DTranspose, self).__init__(
            2, filters, kernel_size, strides, padding, output_padding, data_format,
            dilation_rate, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, **kwargs)


@tf_export("keras.layers.Conv3DTranspose", "keras.layers.Convolution3DTranspose")
class Conv3DTranspose(ConvTranspose):
    """3-D transposed convolution."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1, 1),
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super(Conv3DTranspose, self).__init__(
            3, filters, kernel_size, strides, padding, output_padding, data_format,
            dilation_rate, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, **kwargs)


@tf_export("keras.layers.DepthwiseConv2D")
class DepthwiseConv2D(Conv):
    """Depthwise 2-D convolution: kernel [kh, kw, channels, depth_multiplier]."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super(DepthwiseConv2D, self).__init__(
            2, None, kernel_size, strides, padding, data_format, dilation_rate, activation,
            use_bias, bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, bias_constraint=bias_constraint,
            **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, dtype=self.dtype)
        self.filters = channels * self.depth_multiplier
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=(self.filters,),
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, dtype=self.dtype)
        else:
            self.bias = None
        self.input_spec = InputSpec(ndim=4, axes={_channel_axis(self.data_format, 2): channels})
        self.built = True

    def _convolve(self, inputs):
        return nn_ops.depthwise_conv2d_v2(inputs, self.depthwise_kernel,
                                          strides=[1] + list(self.strides) + [1]
                                          if self.data_format == "channels_last"
                                          else [1, 1] + list(self.strides),
                                          padding=self.padding.upper(),
                                          data_format=self._tf_format(),
                                          dilations=list(self.dilation_rate))

    def get_config(self):
        config = super(DepthwiseConv2D, self).get_config()
        for key in ("filters", "kernel_initializer", "kernel_regularizer",
                    "kernel_constraint"):
            config.pop(key)
        config["depth_multiplier"] = self.depth_multiplier
        config.update(weight_kwargs(self, "depthwise"))
        return config


@tf_export("keras.layers.SeparableConv2D", "keras.layers.SeparableConvolution2D")
class SeparableConv2D(Conv):
    """Depthwise then pointwise 2-D convolution."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), depth_multiplier=1, activation=None,
                 use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super(SeparableConv2D, self).__init__(
            2, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
            use_bias, bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, bias_constraint=bias_constraint,
            **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, dtype=self.dtype)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", shape=(1, 1, channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint, dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=(self.filters,),
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, dtype=self.dtype)
        else:
            self.bias = None
        self.input_spec = InputSpec(ndim=4, axes={_channel_axis(self.data_format, 2): channels})
        self.built = True

    def _convolve(self, inputs):
        return nn_ops.separable_conv2d_v2(inputs, self.depthwise_kernel,
                                          self.pointwise_kernel, strides=list(self.strides),
                                          padding=self.padding.upper(),
                                          data_format=self._tf_format(),
                                          dilations=list(self.dilation_rate))

    def get_config(self):
        config = super(SeparableConv2D, self).get_config()
        for key in ("kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(key)
        config["depth_multiplier"] = self.depth_multiplier
        config.update(weight_kwargs(self, "depthwise", "pointwise"))
        return config


# ---------------------------------------------------------------- padding, cropping, resizing


def _pairs(value, n, name):
    """Keras' padding/cropping argument: int, n ints or n (before, after) pairs."""
    if isinstance(value, int):
        return ((value, value),) * n
    value = tuple(value)
    if len(value) != n:
        raise ValueError("`%s` should have %d elements. Found: %s" % (name, n, value))
    return tuple((v, v) if isinstance(v, int) else normalize_tuple(v, 2, name) for v in value)


def _spatial_pairs(pairs, data_format):
    return [[0, 0]] + [list(p) for p in pairs] + [[0, 0]] if data_format == "channels_last" \
        else [[0, 0], [0, 0]] + [list(p) for p in pairs]


class _ZeroPadding(Layer):
    def __init__(self, rank, padding, data_format, **kwargs):
        super(_ZeroPadding, self).__init__(**kwargs)
        self.data_format = backend.normalize_data_format(data_format)
        self.padding = _pairs(padding, rank, "padding")
        self.input_spec = InputSpec(ndim=rank + 2)

    def call(self, inputs):
        return array_ops.pad(inputs, _spatial_pairs(self.padding, self.data_format))

    def get_config(self):
        config = super(_ZeroPadding, self).get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config


@tf_export("keras.layers.ZeroPadding1D")
class ZeroPadding1D(_ZeroPadding):
    """Zero-pads the steps axis of [batch, steps, features]."""

    def __init__(self, padding=1, **kwargs):
        super(ZeroPadding1D, self).__init__(1, [padding], "channels_last", **kwargs)


@tf_export("keras.layers.ZeroPadding2D")
class ZeroPadding2D(_ZeroPadding):
    """Zero-pads rows and columns of images."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super(ZeroPadding2D, self).__init__(2, padding, data_format, **kwargs)


@tf_export("keras.layers.ZeroPadding3D")
class ZeroPadding3D(_ZeroPadding):
    """Zero-pads the three spatial axes of volumes."""

    def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
        super(ZeroPadding3D, self).__init__(3, padding, data_format, **kwargs)


class _Cropping(Layer):
    def __init__(self, rank, cropping, data_format, **kwargs):
        super(_Cropping, self).__init__(**kwargs)
        self.data_format = backend.normalize_data_format(data_format)
        self.cropping = _pairs(cropping, rank, "cropping")
        self.input_spec = InputSpec(ndim=rank + 2)

    def call(self, inputs):
        spatial = tuple(slice(b, -a if a else None) for b, a in self.cropping)
        index = (slice(None),) + spatial + (slice(None),) \
            if self.data_format == "channels_last" else (slice(None), slice(None)) + spatial
        return inputs[index]

    def get_config(self):
        config = super(_Cropping, self).get_config()
        config.update({"cropping": self.cropping, "data_format": self.data_format})
        return config


@tf_export("keras.layers.Cropping1D")
class Cropping1D(_Cropping):
    """Crops the steps axis of [batch, steps, features]."""

    def __init__(self, cropping=(1, 1), **kwargs):
        super(Cropping1D, self).__init__(1, [cropping], "channels_last", **kwargs)


@tf_export("keras.layers.Cropping2D")
class Cropping2D(_Cropping):
    """Crops rows and columns of images."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super(Cropping2D, self).__init__(2, cropping, data_format, **kwargs)


@tf_export("keras.layers.Cropping3D")
class Cropping3D(_Cropping):
    """Crops the spatial axes of volumes."""

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super(Cropping3D, self).__init__(3, cropping, data_format, **kwargs)


@ops.op(graph_name="ResizeNearestNeighbor")
def _upsample(x, size, channels_last, interpolation):
    t = ops.to_torch(x)
    if channels_last:
        t = t.permute(0, t.ndim - 1, *range(1, t.ndim - 1))
    if interpolation == "nearest":
        for i, s in enumerate(size):
            t = t.repeat_interleave(s, dim=2 + i)
    else:
        mode = {1: "linear", 2: "bilinear", 3: "trilinear"}[len(size)]
        t = F.interpolate(t, scale_factor=tuple(float(s) for s in size), mode=mode,
                          align_corners=False)
    return t.permute(0, *range(2, t.ndim), 1) if channels_last else t


class _UpSampling(Layer):
    def __init__(self, rank, size, data_format, interpolation="nearest", **kwargs):
        super(_UpSampling, self).__init__(**kwargs)
        self.data_format = backend.normalize_data_format(data_format)
        self.size = normalize_tuple(size, rank, "size")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError("`interpolation` argument should be one of `\"nearest\"` or "
                             "`\"bilinear\"`.")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=rank + 2)

    def call(self, inputs):
        return _upsample(inputs, list(self.size), self.data_format == "channels_last",
                         self.interpolation)

    def get_config(self):
        config = super(_UpSampling, self).get_config()
        config.update({"size": self.size, "data_format": self.data_format})
        return config


@tf_export("keras.layers.UpSampling1D")
class UpSampling1D(_UpSampling):
    """Repeats each step `size` times."""

    def __init__(self, size=2, **kwargs):
        super(UpSampling1D, self).__init__(1, size, "channels_last", **kwargs)


@tf_export("keras.layers.UpSampling2D")
class UpSampling2D(_UpSampling):
    """Repeats rows and columns (nearest) or resizes bilinearly."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super(UpSampling2D, self).__init__(2, size, data_format, interpolation, **kwargs)

    def get_config(self):
        config = super(UpSampling2D, self).get_config()
        config["interpolation"] = self.interpolation
        return config


@tf_export("keras.layers.UpSampling3D")
class UpSampling3D(_UpSampling):
    """Repeats the three spatial axes."""

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super(UpSampling3D, self).__init__(3, size, data_format, **kwargs)
