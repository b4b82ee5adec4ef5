"""Keras 2.15's PIL image helpers (`keras/utils/image_utils.py`): `load_img`, `img_to_array`,
`array_to_img`, `save_img`, `smart_resize`.

PIL is optional, as in Keras: without it these raise Keras' ImportError when called.
"""
import io
import pathlib
import warnings

import numpy as np

from tfcompat._api import tf_export
from tfcompat.keras import backend
from tfcompat.ops import image_ops

_PIL_RESAMPLE = {"nearest": "NEAREST", "bilinear": "BILINEAR", "bicubic": "BICUBIC",
                 "hamming": "HAMMING", "box": "BOX", "lanczos": "LANCZOS"}


def _pil_image(function_name):
    """PIL.Image, or Keras' ImportError naming `function_name` when PIL is missing."""
    try:
        from PIL import Image  # in-function: PIL is an optional dependency, as in Keras
    except ImportError:
        raise ImportError("Could not import PIL.Image. The use of `%s` requires PIL."
                          % function_name) from None
    return Image


@tf_export("keras.utils.array_to_img", "keras.preprocessing.image.array_to_img")
def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A rank-3 array as a PIL image (RGBA, RGB, L, or I for one channel above 255);
    `scale` maps the array's range onto 0..255 first."""
    data_format = data_format or backend.image_data_format()
    pil_image = _pil_image("array_to_img")
    x = np.asarray(x, dtype=dtype or backend.floatx())
    if x.ndim != 3:
        raise ValueError("Expected image array to have rank 3 (single image). Got array with "
                         "shape: %s" % (x.shape,))
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Invalid data_format: %s" % (data_format,))
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return pil_image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return pil_image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:
            return pil_image.fromarray(x[:, :, 0].astype("int32"), "I")
        return pil_image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError("Unsupported channel number: %s" % (channels,))


@tf_export("keras.utils.img_to_array", "keras.preprocessing.image.img_to_array")
def img_to_array(img, data_format=None, dtype=None):
    """A PIL image (or array) as a rank-3 array of `dtype` (floatx by default); a 2-D image
    gets a channel axis."""
    data_format = data_format or backend.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Unknown data_format: %s" % (data_format,))
    x = np.asarray(img, dtype=dtype or backend.floatx())
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        return x[None] if data_format == "channels_first" else x[:, :, None]
    raise ValueError("Unsupported image shape: %s" % (x.shape,))


@tf_export("keras.utils.save_img", "keras.preprocessing.image.save_img")
def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Writes the image array `x` with PIL (`kwargs` go to `PIL.Image.save`); RGBA saved as
    JPEG is converted to RGB."""
    img = array_to_img(x, data_format=data_format or backend.image_data_format(),
                       scale=scale)
    if img.mode == "RGBA" and file_format in ("jpg", "jpeg"):
        warnings.warn("The JPG format does not support RGBA images, converting to RGB.")
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


_COLOR_MODES = {"grayscale": ("L", ("L", "I;16", "I")), "rgba": ("RGBA", ("RGBA",)),
                "rgb": ("RGB", ("RGB",))}


@tf_export("keras.utils.load_img", "keras.preprocessing.image.load_img")
def load_img(path, grayscale=False, color_mode="rgb", target_size=None,
             interpolation="nearest", keep_aspect_ratio=False):
    """A PIL image from a path or BytesIO, converted to `color_mode` and resized with PIL to
    `target_size` (height, width); `keep_aspect_ratio` crops the centre to the target's
    aspect ratio first."""
    if grayscale:
        warnings.warn('grayscale is deprecated. Please use color_mode = "grayscale"')
        color_mode = "grayscale"
    pil_image = _pil_image("load_img")
    if isinstance(path, io.BytesIO):
        img = pil_image.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        with open(str(path.resolve()) if isinstance(path, pathlib.Path) else path, "rb") as f:
            img = pil_image.open(io.BytesIO(f.read()))
    else:
        raise TypeError("path should be path-like or io.BytesIO, not %s" % (type(path),))
    if color_mode not in _COLOR_MODES:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    mode, accepted = _COLOR_MODES[color_mode]
    if img.mode not in accepted:
        img = img.convert(mode)
    if target_size is None:
        return img
    width_height = (target_size[1], target_size[0])
    if img.size == width_height:
        return img
    if interpolation not in _PIL_RESAMPLE:
        raise ValueError("Invalid interpolation method %s specified. Supported methods are %s"
                         % (interpolation, ", ".join(_PIL_RESAMPLE)))
    resample = getattr(pil_image.Resampling, _PIL_RESAMPLE[interpolation])
    if not keep_aspect_ratio:
        return img.resize(width_height, resample)
    width, height = img.size
    crop_height = min(height, (width * width_height[1]) // width_height[0])
    crop_width = min(width, (height * width_height[0]) // width_height[1])
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    return img.resize(width_height, resample,
                      box=[left, top, left + crop_width, top + crop_height])


@tf_export("keras.preprocessing.image.smart_resize")
def smart_resize(x, size, interpolation="bilinear"):
    """Keras' aspect-preserving resize: the largest centred crop with the target's aspect
    ratio, resized to `size` with `tf.image.resize` (an image or a batch, channels last;
    numpy in, numpy out)."""
    as_numpy = isinstance(x, (np.ndarray, list, tuple))
    x = np.asarray(x) if as_numpy else x
    shape = list(x.shape)
    if len(shape) not in (3, 4):
        raise ValueError("Expected an image array with shape `(height, width, channels)`, or "
                         "`(batch_size, height, width, channels)`, but got input with "
                         "incorrect rank, of shape %s." % (shape,))
    height, width = shape[-3], shape[-2]
    target_height, target_width = size
    crop_height = min(height, int(float(width * target_height) / target_width))
    crop_width = min(width, int(float(height * target_width) / target_height))
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    cropped = x[..., top:top + crop_height, left:left + crop_width, :]
    resized = image_ops.resize(cropped, size=size, method=interpolation)
    return resized.numpy() if as_numpy else resized
