"""Keras 2.15 image preprocessing layers: `Resizing`, `CenterCrop`, `Rescaling`, and the
augmentation layers `RandomFlip`, `RandomRotation`, `RandomZoom`, `RandomTranslation`,
`RandomContrast`, `RandomBrightness`, `RandomCrop`, `RandomHeight`, `RandomWidth`.

The augmentation layers change their inputs only while training (`training=True`, which is
also their `call` default, as in Keras 2: a direct call augments, `predict` does not) and
draw new random values each call, also inside a `tf.data` map. Random values are torch's
(seeded by `seed` and the global seed), not TF's stream. Rotations, zooms and translations
sample the input as TF's `ImageProjectiveTransformV3` does (its fill modes and
interpolations, checked against TF on fixed transforms).
"""
import math

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops, random_seed
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import backend
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.ops import image_ops, math_ops

_HEIGHT_AXIS, _WIDTH_AXIS = -3, -2
_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_INTERPOLATIONS = ("nearest", "bilinear")


def _resized_shape(layer, input_shape):
    dims = TensorShape(input_shape).as_list()
    dims[_HEIGHT_AXIS] = layer.height
    dims[_WIDTH_AXIS] = layer.width
    return TensorShape(dims)


def _smart_resize(images, height, width, method):
    """Keras' `smart_resize` on an NHWC/HWC torch tensor: crop the largest centered window of
    the target aspect ratio, then resize it (float32 out, as `tf.image.resize`)."""
    in_height, in_width = images.shape[-3], images.shape[-2]
    crop_height = min(in_height, int(np.float32(in_width * height) / np.float32(width)))
    crop_width = min(in_width, int(np.float32(in_height * width) / np.float32(height)))
    top = int(np.float32(in_height - crop_height) / 2)
    left = int(np.float32(in_width - crop_width) / 2)
    window = images[..., top:top + crop_height, left:left + crop_width, :]
    return image_ops._resize(window, [height, width], method, False, False, False)


@ops.op(graph_name="ResizeBilinear")
def _resize_layer(images, height, width, method, crop_to_aspect_ratio):
    """`Resizing.call`: float32 in and out, except nearest, which keeps the input dtype."""
    t = ops.to_torch(images)
    if crop_to_aspect_ratio:
        return _smart_resize(t, height, width, method)
    return image_ops._resize(t, [height, width], method, False, False, False)


@tf_export("keras.layers.Resizing", "keras.layers.experimental.preprocessing.Resizing")
class Resizing(Layer):
    """Resize images to (height, width) with one of `tf.image.resize`'s methods;
    `crop_to_aspect_ratio` first crops the centered window of the target aspect ratio."""

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 **kwargs):
        self.height = height
        self.width = width
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        super(Resizing, self).__init__(**kwargs)

    def call(self, inputs):
        dtype = self.compute_dtype if self.interpolation == "nearest" else "float32"
        inputs = math_ops.cast(inputs, dtype)
        outputs = _resize_layer(inputs, self.height, self.width, self.interpolation,
                                self.crop_to_aspect_ratio)
        return math_ops.cast(outputs, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        return _resized_shape(self, input_shape)

    def get_config(self):
        config = super(Resizing, self).get_config()
        config.update({"height": self.height, "width": self.width,
                       "interpolation": self.interpolation,
                       "crop_to_aspect_ratio": self.crop_to_aspect_ratio})
        return config


@ops.op(graph_name="CenterCrop")
def _center_crop(images, height, width):
    """Keras' `CenterCrop.call`: the centered (height, width) window, or, for an image smaller
    than that, `smart_resize` to it (bilinear, cast back to the input dtype)."""
    t = ops.to_torch(images)
    h_diff, w_diff = t.shape[-3] - height, t.shape[-2] - width
    if h_diff >= 0 and w_diff >= 0:
        top, left = h_diff // 2, w_diff // 2
        return t[..., top:top + height, left:left + width, :]
    return _smart_resize(t, height, width, "bilinear").to(t.dtype)


@tf_export("keras.layers.CenterCrop", "keras.layers.experimental.preprocessing.CenterCrop")
class CenterCrop(Layer):
    """Crop the central (height, width) window of NHWC / HWC images."""

    def __init__(self, height, width, **kwargs):
        self.height = height
        self.width = width
        kwargs["autocast"] = False
        super(CenterCrop, self).__init__(**kwargs)

    def call(self, inputs):
        return _center_crop(math_ops.cast(inputs, self.compute_dtype), self.height, self.width)

    def compute_output_shape(self, input_shape):
        return _resized_shape(self, input_shape)

    def get_config(self):
        config = super(CenterCrop, self).get_config()
        config.update({"height": self.height, "width": self.width})
        return config


@tf_export("keras.layers.Rescaling", "keras.layers.experimental.preprocessing.Rescaling")
class Rescaling(Layer):
    """`inputs * scale + offset`, in the layer's compute dtype (integer inputs included)."""

    def __init__(self, scale, offset=0.0, **kwargs):
        self.scale = scale
        self.offset = offset
        super(Rescaling, self).__init__(**kwargs)

    def call(self, inputs):
        dtype = self.compute_dtype
        scale = math_ops.cast(self.scale, dtype)
        offset = math_ops.cast(self.offset, dtype)
        return math_ops.cast(inputs, dtype) * scale + offset

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super(Rescaling, self).get_config()
        config.update({"scale": self.scale, "offset": self.offset})
        return config


# ---------------------------------------------------------------- augmentation

class _RandomLayer(Layer):
    """An augmentation layer: `augment(inputs, seed)` while training, identity otherwise."""

    def __init__(self, seed=None, **kwargs):
        super(_RandomLayer, self).__init__(**kwargs)
        self.seed = seed

    def call(self, inputs, training=True):
        inputs = math_ops.cast(inputs, self.compute_dtype)
        if training is None:
            return inputs
        return backend.smart_cond(training, lambda: self.augment(inputs), lambda: inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super(_RandomLayer, self).get_config()
        config["seed"] = self.seed
        return config


def _generator(seed):
    return random_seed.generator(seed, torch.device("cpu"))


def _uniform(shape, low, high, seed):
    return torch.empty(shape, dtype=torch.float32).uniform_(low, high, generator=_generator(seed))


_HORIZONTAL, _VERTICAL = "horizontal", "vertical"
_BOTH = "horizontal_and_vertical"


@ops.op(graph_name="RandomFlip")
def _random_flip(images, horizontal, vertical, seed):
    """Flip each image left-right, then up-down, each with probability 1/2."""
    t = ops.to_torch(images)
    batched = t.ndim == 4
    x = t if batched else t.unsqueeze(0)
    for flip, axis in ((horizontal, 2), (vertical, 1)):
        if flip:
            chosen = _uniform([x.shape[0]], 0.0, 1.0, seed).to(x.device) < 0.5
            x = torch.where(chosen.view(-1, 1, 1, 1), torch.flip(x, [axis]), x)
    return x if batched else x[0]


@tf_export(v2=["keras.layers.RandomFlip", "keras.layers.experimental.preprocessing.RandomFlip"])
class RandomFlip(_RandomLayer):
    """Randomly flip images horizontally and/or vertically while training."""

    def __init__(self, mode=_BOTH, seed=None, **kwargs):
        super(RandomFlip, self).__init__(seed=seed, **kwargs)
        if mode not in (_HORIZONTAL, _VERTICAL, _BOTH):
            raise ValueError("RandomFlip layer %s received an unknown mode argument %s"
                             % (self.name, mode))
        self.mode = mode
        self.horizontal = mode in (_HORIZONTAL, _BOTH)
        self.vertical = mode in (_VERTICAL, _BOTH)

    def augment(self, inputs):
        return _random_flip(inputs, self.horizontal, self.vertical, self.seed)

    def get_config(self):
        config = super(RandomFlip, self).get_config()
        config["mode"] = self.mode
        return config


def _map_coordinate(coord, size, fill_mode):
    """TF's `MapCoordinate`: an input coordinate outside [0, size - 1] per fill mode."""
    if fill_mode == "constant":
        return coord
    if fill_mode == "nearest" or size <= 1:
        return coord.clamp(0, size - 1)
    if fill_mode == "reflect":
        period = 2 * size
        low = coord < 0
        neg = torch.where(coord < -period, coord + period * torch.trunc(-coord / period), coord)
        neg = torch.where(neg < -size, neg + period, -neg - 1)
        high = coord - period * torch.trunc(coord / period)
        high = torch.where(high >= size, period - high - 1, high)
        mapped = torch.where(low, neg, torch.where(coord > size - 1, high, coord))
        return mapped.clamp(0, size - 1)
    span = size - 1
    low = coord + size * (torch.trunc(-coord / span) + 1)
    high = coord - size * torch.trunc(coord / span)
    mapped = torch.where(coord < 0, low, torch.where(coord > size - 1, high, coord))
    return mapped.clamp(0, size - 1)


def _read(x, rows, cols, fill_value):
    """x[b, rows, cols, :] where in bounds, `fill_value` elsewhere (rows/cols: [B, H, W])."""
    height, width = x.shape[1], x.shape[2]
    inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
    r = rows.clamp(0, height - 1).long()
    c = cols.clamp(0, width - 1).long()
    batch = torch.arange(x.shape[0], device=x.device).view(-1, 1, 1)
    values = x[batch, r, c]
    return torch.where(inside.unsqueeze(-1), values, torch.full_like(values, fill_value))


def _round_half_away(value):
    """C's `round` (halves away from zero), as TF's kernel rounds; torch rounds to even."""
    return torch.sign(value) * torch.floor(value.abs() + 0.5)


def projective_transform(images, transforms, fill_mode="reflect", fill_value=0.0,
                         interpolation="bilinear"):
    """TF's `ImageProjectiveTransformV3` on an NHWC torch tensor: output pixel (y, x) reads
    input point ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, from
    each image's 8 transform values (one row for all images, or one per image)."""
    x = images if images.is_floating_point() else images.float()
    batch, height, width = x.shape[0], x.shape[1], x.shape[2]
    m = transforms.to(torch.float32).reshape(-1, 8).expand(batch, 8)
    out_y, out_x = torch.meshgrid(torch.arange(height, dtype=torch.float32),
                                  torch.arange(width, dtype=torch.float32), indexing="ij")
    out_y, out_x = out_y.to(x.device), out_x.to(x.device)

    def coefficient(i):
        return m[:, i].view(-1, 1, 1)
    projection = coefficient(6) * out_x + coefficient(7) * out_y + 1.0
    in_x = (coefficient(0) * out_x + coefficient(1) * out_y + coefficient(2)) / projection
    in_y = (coefficient(3) * out_x + coefficient(4) * out_y + coefficient(5)) / projection
    in_x = _map_coordinate(in_x, width, fill_mode)
    in_y = _map_coordinate(in_y, height, fill_mode)
    if interpolation == "nearest":
        out = _read(x, _round_half_away(in_y), _round_half_away(in_x), fill_value)
    else:
        y0, x0 = torch.floor(in_y), torch.floor(in_x)
        y1, x1 = y0 + 1, x0 + 1
        wx1, wx0 = (in_x - x0).unsqueeze(-1), (x1 - in_x).unsqueeze(-1)
        wy1, wy0 = (in_y - y0).unsqueeze(-1), (y1 - in_y).unsqueeze(-1)
        top = wx0 * _read(x, y0, x0, fill_value) + wx1 * _read(x, y0, x1, fill_value)
        bottom = wx0 * _read(x, y1, x0, fill_value) + wx1 * _read(x, y1, x1, fill_value)
        out = wy0 * top + wy1 * bottom
    out = torch.where((projection == 0).unsqueeze(-1), torch.full_like(out, fill_value), out)
    return out.to(images.dtype)


def _rotation_matrix(angles, height, width):
    cos, sin = torch.cos(angles), torch.sin(angles)
    x_offset = ((width - 1) - (cos * (width - 1) - sin * (height - 1))) / 2.0
    y_offset = ((height - 1) - (sin * (width - 1) + cos * (height - 1))) / 2.0
    zeros = torch.zeros_like(angles)
    return torch.stack([cos, -sin, x_offset, sin, cos, y_offset, zeros, zeros], dim=1)


def _zoom_matrix(zoom_x, zoom_y, height, width):
    zeros = torch.zeros_like(zoom_x)
    x_offset = ((width - 1.0) / 2.0) * (1.0 - zoom_x)
    y_offset = ((height - 1.0) / 2.0) * (1.0 - zoom_y)
    return torch.stack([zoom_x, zeros, x_offset, zeros, zoom_y, y_offset, zeros, zeros], dim=1)


def _translation_matrix(dx, dy):
    zeros, ones = torch.zeros_like(dx), torch.ones_like(dx)
    return torch.stack([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], dim=1)


@ops.op(graph_name="ImageProjectiveTransformV3")
def _random_transform(images, kind, ranges, seed, fill_mode, fill_value, interpolation):
    """A random rotation / zoom / translation of each image (Keras' sampling of the
    parameters: uniform in `ranges`), applied as TF's projective transform."""
    t = ops.to_torch(images)
    batched = t.ndim == 4
    x = t if batched else t.unsqueeze(0)
    batch, height, width = x.shape[0], x.shape[1], x.shape[2]
    if kind == "rotation":
        low, high = ranges
        angles = _uniform([batch], low * 2.0 * math.pi, high * 2.0 * math.pi, seed)
        matrix = _rotation_matrix(angles, height, width)
    elif kind == "zoom":
        (h_low, h_high), width_range = ranges
        zoom_y = _uniform([batch], 1.0 + h_low, 1.0 + h_high, seed)
        zoom_x = zoom_y if width_range is None else _uniform(
            [batch], 1.0 + width_range[0], 1.0 + width_range[1], seed)
        matrix = _zoom_matrix(zoom_x, zoom_y, height, width)
    else:
        (h_low, h_high), (w_low, w_high) = ranges
        dy = _uniform([batch], h_low, h_high, seed) * height
        dx = _uniform([batch], w_low, w_high, seed) * width
        matrix = _translation_matrix(dx, dy)
    out = projective_transform(x, matrix.to(x.device), fill_mode, fill_value, interpolation)
    return out if batched else out[0]


def _factor_range(factor, name):
    """(lower, upper) of a factor given as a number f (-f, f) or a pair."""
    if isinstance(factor, (tuple, list)):
        lower, upper = factor
    else:
        lower, upper = -factor, factor
    if upper < lower:
        raise ValueError("`%s` argument cannot have a negative value. Received: %s=%s"
                         % (name, name, factor))
    return lower, upper


def _check_fill_mode_and_interpolation(fill_mode, interpolation):
    if fill_mode not in _FILL_MODES:
        raise NotImplementedError("Unknown `fill_mode` {}. Only `reflect`, `wrap`, `constant` "
                                  "and `nearest` are supported.".format(fill_mode))
    if interpolation not in _INTERPOLATIONS:
        raise NotImplementedError("Unknown `interpolation` {}. Only `nearest` and `bilinear` "
                                  "are supported.".format(interpolation))


class _RandomTransformLayer(_RandomLayer):
    """Shared arguments of the rotation / zoom / translation layers."""

    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, **kwargs):
        super(_RandomTransformLayer, self).__init__(seed=seed, **kwargs)
        _check_fill_mode_and_interpolation(fill_mode, interpolation)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation

    def transform(self, inputs, kind, ranges):
        return _random_transform(inputs, kind, ranges, self.seed, self.fill_mode,
                                 float(self.fill_value), self.interpolation)

    def get_config(self):
        config = super(_RandomTransformLayer, self).get_config()
        config.update({"fill_mode": self.fill_mode, "fill_value": self.fill_value,
                       "interpolation": self.interpolation})
        return config


@tf_export(v2=["keras.layers.RandomRotation",
               "keras.layers.experimental.preprocessing.RandomRotation"])
class RandomRotation(_RandomTransformLayer):
    """Rotate each image by a random fraction of 2*pi in `factor` while training."""

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, **kwargs):
        super(RandomRotation, self).__init__(fill_mode, interpolation, seed, fill_value,
                                             **kwargs)
        self.factor = factor
        self.lower, self.upper = _factor_range(factor, "factor")

    def augment(self, inputs):
        return self.transform(inputs, "rotation", (self.lower, self.upper))

    def get_config(self):
        config = super(RandomRotation, self).get_config()
        config["factor"] = self.factor
        return config


@tf_export(v2=["keras.layers.RandomZoom", "keras.layers.experimental.preprocessing.RandomZoom"])
class RandomZoom(_RandomTransformLayer):
    """Zoom each image by random factors while training (a positive factor zooms out);
    without `width_factor` both axes zoom alike."""

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, **kwargs):
        super(RandomZoom, self).__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.height_factor = height_factor
        self.width_factor = width_factor
        self.height_range = _unit_range(height_factor, "height_factor")
        self.width_range = None if width_factor is None else _unit_range(width_factor,
                                                                          "width_factor")

    def augment(self, inputs):
        return self.transform(inputs, "zoom", (self.height_range, self.width_range))

    def get_config(self):
        config = super(RandomZoom, self).get_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor})
        return config


def _unit_range(factor, name):
    lower, upper = _factor_range(factor, name)
    if abs(lower) > 1.0 or abs(upper) > 1.0:
        raise ValueError("`%s` argument must have values between [-1, 1]. Received: %s=%s"
                         % (name, name, factor))
    return lower, upper


@tf_export(v2=["keras.layers.RandomTranslation",
               "keras.layers.experimental.preprocessing.RandomTranslation"])
class RandomTranslation(_RandomTransformLayer):
    """Shift each image by random fractions of its height and width while training."""

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, **kwargs):
        super(RandomTranslation, self).__init__(fill_mode, interpolation, seed, fill_value,
                                                **kwargs)
        self.height_factor = height_factor
        self.width_factor = width_factor
        self.height_range = _unit_range(height_factor, "height_factor")
        self.width_range = _unit_range(width_factor, "width_factor")

    def augment(self, inputs):
        return self.transform(inputs, "translation", (self.height_range, self.width_range))

    def get_config(self):
        config = super(RandomTranslation, self).get_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor})
        return config


@ops.op(graph_name="AdjustContrastv2")
def _random_contrast(images, lower, upper, seed):
    """`adjust_contrast` by one random factor in [lower, upper] (TF draws one per call),
    clipped to [0, 255] as Keras clips."""
    t = ops.to_torch(images)
    factor = _uniform([], lower, upper, seed).to(t.device, t.dtype)
    mean = t.mean(dim=(-3, -2), keepdim=True)
    return ((t - mean) * factor + mean).clamp(0, 255)


@tf_export(v2=["keras.layers.RandomContrast",
               "keras.layers.experimental.preprocessing.RandomContrast"])
class RandomContrast(_RandomLayer):
    """Scale each image's deviation from its per-channel mean by a random factor in
    [1 - lower, 1 + upper] while training."""

    def __init__(self, factor, seed=None, **kwargs):
        super(RandomContrast, self).__init__(seed=seed, **kwargs)
        self.factor = factor
        if isinstance(factor, (tuple, list)):
            self.lower, self.upper = factor
        else:
            self.lower = self.upper = factor
        if self.lower < 0.0 or self.upper < 0.0 or self.lower > 1.0:
            raise ValueError("`factor` argument cannot have negative values or values greater "
                             "than 1. Received: factor=%s" % (factor,))

    def augment(self, inputs):
        return _random_contrast(inputs, 1.0 - self.lower, 1.0 + self.upper, self.seed)

    def get_config(self):
        config = super(RandomContrast, self).get_config()
        config["factor"] = self.factor
        return config


@ops.op(graph_name="AdjustBrightness")
def _random_brightness(images, low, high, value_range, seed):
    """Add a random delta in [low, high] * (range width) to each image, then clip to the
    value range (Keras' `RandomBrightness`)."""
    t = ops.to_torch(images)
    if t.ndim not in (3, 4):
        raise ValueError("Expected the input image to be rank 3 or 4. Got inputs.shape = %s"
                         % list(t.shape))
    shape = (t.shape[0], 1, 1, 1) if t.ndim == 4 else (1, 1, 1)
    delta = _uniform(shape, low, high, seed) * (value_range[1] - value_range[0])
    return (t + delta.to(t.device, t.dtype)).clamp(value_range[0], value_range[1])


@tf_export(v2=["keras.layers.RandomBrightness"])
class RandomBrightness(_RandomLayer):
    """Shift each image's brightness by a random fraction (`factor`) of `value_range` while
    training."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super(RandomBrightness, self).__init__(seed=seed, **kwargs)
        message = ("The `factor` argument should be a number (or a list of two numbers) in "
                   "the range [-1.0, 1.0]. ")
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or any(f > 1.0 or f < -1.0 for f in factor):
                raise ValueError(message + "Got %s" % (factor,))
            self._factor = sorted(factor)
        elif isinstance(factor, (int, float)):
            if factor > 1.0 or factor < -1.0:
                raise ValueError(message + "Got %s" % factor)
            self._factor = [-abs(factor), abs(factor)]
        else:
            raise ValueError(message + "Got %s" % (factor,))
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError("The `value_range` argument should be a list of two numbers. "
                             "Got %s" % (value_range,))
        self._value_range = sorted(value_range)

    def augment(self, inputs):
        return _random_brightness(inputs, self._factor[0], self._factor[1],
                                  self._value_range, self.seed)

    def get_config(self):
        config = super(RandomBrightness, self).get_config()
        config.update({"factor": self._factor, "value_range": self._value_range})
        return config


@ops.op(graph_name="RandomCrop")
def _random_crop(images, height, width, crop, seed):
    """Keras' `RandomCrop.call`: while training (`crop`), one random (height, width) window
    for the whole batch; otherwise, or for smaller images, `smart_resize` to that size."""
    t = ops.to_torch(images)
    h_diff, w_diff = t.shape[-3] - height, t.shape[-2] - width
    if crop and h_diff >= 0 and w_diff >= 0:
        top, left = (int(v) for v in torch.randint(
            0, 2 ** 31 - 1, (2,), generator=_generator(seed)))
        top, left = top % (h_diff + 1), left % (w_diff + 1)
        return t[..., top:top + height, left:left + width, :]
    return _smart_resize(t, height, width, "bilinear").to(t.dtype)


@tf_export(v2=["keras.layers.RandomCrop", "keras.layers.experimental.preprocessing.RandomCrop"])
class RandomCrop(_RandomLayer):
    """Crop a random (height, width) window while training; resize the centered window of
    that aspect ratio to it otherwise (and for images smaller than the window)."""

    def __init__(self, height, width, seed=None, **kwargs):
        kwargs["autocast"] = False
        super(RandomCrop, self).__init__(seed=seed, **kwargs)
        self.height = height
        self.width = width

    def call(self, inputs, training=True):
        inputs = math_ops.cast(inputs, self.compute_dtype)
        return backend.smart_cond(
            bool(training) if not ops.is_tensor(training) else training,
            lambda: _random_crop(inputs, self.height, self.width, True, self.seed),
            lambda: _random_crop(inputs, self.height, self.width, False, self.seed))

    def compute_output_shape(self, input_shape):
        return _resized_shape(self, input_shape)

    def get_config(self):
        config = super(RandomCrop, self).get_config()
        config.update({"height": self.height, "width": self.width})
        return config


class _RandomSizeLayer(_RandomLayer):
    """`RandomHeight` / `RandomWidth`: resize one image axis by a random factor in
    [1 + lower, 1 + upper] while training (the new size is unknown to a graph)."""

    _axis = None

    def __init__(self, factor, interpolation="bilinear", seed=None, **kwargs):
        super(_RandomSizeLayer, self).__init__(seed=seed, **kwargs)
        self.factor = factor
        self.lower, self.upper = factor if isinstance(factor, (tuple, list)) \
            else (-factor, factor)
        if self.upper < self.lower:
            raise ValueError("`factor` argument cannot have an upper bound lesser than the "
                             "lower bound. Received: factor=%s" % (factor,))
        if self.lower < -1.0 or self.upper < -1.0:
            raise ValueError("`factor` argument must have values larger than -1. Received: "
                             "factor=%s" % (factor,))
        self.interpolation = interpolation

    def _resize(self, images):
        size = [images.shape[-3], images.shape[-2]]
        scale = float(_uniform([], 1.0 + self.lower, 1.0 + self.upper, self.seed))
        size[self._axis] = int(np.float32(scale) * np.float32(size[self._axis]))
        out = image_ops._resize(images, size, self.interpolation, False, False, False)
        return (out.to(getattr(torch, self.compute_dtype)),)

    def augment(self, inputs):
        dims = inputs.shape.as_list()
        dims[_HEIGHT_AXIS + self._axis] = None
        return run_op(self._resize, "ResizeBilinear", [inputs],
                      [(dtypes.as_dtype(self.compute_dtype), TensorShape(dims))],
                      pure=False)[0]

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        dims[_HEIGHT_AXIS + self._axis] = None
        return TensorShape(dims)

    def get_config(self):
        config = super(_RandomSizeLayer, self).get_config()
        config.update({"factor": self.factor, "interpolation": self.interpolation})
        return config


@tf_export(v2=["keras.layers.RandomHeight",
               "keras.layers.experimental.preprocessing.RandomHeight"])
class RandomHeight(_RandomSizeLayer):
    """Resize images to a random height while training."""
    _axis = 0


@tf_export(v2=["keras.layers.RandomWidth", "keras.layers.experimental.preprocessing.RandomWidth"])
class RandomWidth(_RandomSizeLayer):
    """Resize images to a random width while training."""
    _axis = 1
