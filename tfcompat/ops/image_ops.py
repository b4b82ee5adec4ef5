"""`tf.image` ops and image decoding/encoding (`tf.io.decode_jpeg/png/image`, `encode_*`).

Images are HWC or NHWC, as in TF. Resizing uses torch's interpolation: bilinear / bicubic /
area / nearest match TF2's `tf.image.resize` (half-pixel centers; `antialias` supported for
bilinear/bicubic). TF1's bilinear and nearest-neighbor resizes without half-pixel centers
(`resize_images`, `resize_bilinear`, `resize_nearest_neighbor`, `resize_bicubic` by default;
`align_corners`) sample where TF's legacy kernels do (`in = out * scale`), through one
interpolation matrix per axis; area uses torch's kernel.
Decoding/encoding uses torchvision.io (JPEG, PNG, GIF); decoded pixels may differ from TF's
libjpeg by rounding. Random ops draw from tfcompat's seeded generators (numbers differ from
TF's); the stateless_random_* ops draw TF's numbers from their seeds.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors, random_seed
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import convert_to_tensor, op, run_impl, to_torch
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.string_tensor import flat_strings, scalar_string, string_input
from tfcompat.ops.stateless_random_ops import (_word_stream, key_counter_from_seed, uniform_bits,
                                               uniform_int)
from tfcompat.ops.array_ops import _as_ints


@tf_export("image.ResizeMethod")
class ResizeMethod(object):
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_V1_METHODS = {0: "bilinear", 1: "nearest", 2: "bicubic", 3: "area"}


def _nchw(image):
    """(NCHW float tensor, was_batched, original dtype)."""
    t = to_torch(image)
    if t.ndim not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions, got shape %s"
                         % format_shape(t.shape))
    batched = t.ndim == 4
    x = t if batched else t.unsqueeze(0)
    return x.permute(0, 3, 1, 2), batched, t.dtype


def _back(x, batched):
    x = x.permute(0, 2, 3, 1)
    return x if batched else x[0]


def _size(size):
    """(height, width) of a resize's `size`: Python ints, or in a graph the values the
    size's tensor is known to hold (sizes decided when the op runs, else)."""
    s = _as_ints(size)
    if len(s) != 2:
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return s


def _keys_cubic(distance, a=-0.75):
    """Keys' cubic convolution kernel (TF's legacy bicubic uses a = -0.75)."""
    distance = distance.abs()
    near = ((a + 2) * distance - (a + 3)) * distance * distance + 1
    far = ((a * distance - 5 * a) * distance + 8 * a) * distance - 4 * a
    return torch.where(distance <= 1, near, far)


def _bicubic_matrix(in_size, out_size, dtype, device):
    """(out_size, in_size) matrix of TF's half-pixel bicubic (`tf.image.resize` bicubic
    without antialias, `resize_bicubic(half_pixel_centers=True)`): Keys' kernel with
    a = -0.5 around `(i + 0.5) * scale - 0.5`, taps outside the image weigh 0 and the four
    weights are renormalized to sum to 1, as TF's kernel does."""
    scale = in_size / out_size
    source = (torch.arange(out_size, dtype=torch.float64) + 0.5) * scale - 0.5
    low = torch.floor(source)
    offset = torch.round((source - low) * 1024) / 1024
    rows = torch.arange(out_size)
    weights = torch.stack([_keys_cubic(offset - tap, a=-0.5) for tap in (-1, 0, 1, 2)], 1)
    taps = torch.stack([low + tap for tap in (-1, 0, 1, 2)], 1)
    weights = torch.where((taps >= 0) & (taps <= in_size - 1), weights, 0.0)
    weights = weights / weights.sum(1, keepdim=True)
    matrix = torch.zeros(out_size, in_size, dtype=torch.float64)
    for k in range(4):
        matrix.index_put_((rows, taps[:, k].clamp(0, in_size - 1).long()), weights[:, k],
                          accumulate=True)
    return matrix.to(dtype=dtype, device=device)


def _legacy_resize_matrix(in_size, out_size, method, align_corners, dtype, device):
    """(out_size, in_size) matrix of TF's legacy (no half-pixel centers) bilinear,
    nearest-neighbor or bicubic kernel: output i samples input `i * scale`, scale = in/out,
    or (in-1)/(out-1) with align_corners; bilinear mixes floor and ceil of it (clamped),
    nearest takes its floor (rounded half up with align_corners), bicubic weighs the four
    inputs around it (clamped indices) with Keys' kernel at the offset TF's 1024-entry
    table quantizes it to."""
    scale = (in_size - 1) / (out_size - 1) if align_corners and out_size > 1 \
        else in_size / out_size
    source = torch.arange(out_size, dtype=torch.float64) * scale
    rows = torch.arange(out_size)
    matrix = torch.zeros(out_size, in_size, dtype=torch.float64)
    if method == "nearest":
        index = torch.floor(source + 0.5) if align_corners else torch.floor(source)
        matrix[rows, index.clamp(max=in_size - 1).long()] = 1.0
    elif method == "bicubic":
        low = torch.floor(source)
        offset = torch.round((source - low) * 1024) / 1024     # lrintf: half to even, as torch
        for tap in (-1, 0, 1, 2):
            index = (low + tap).clamp(0, in_size - 1).long()
            matrix.index_put_((rows, index), _keys_cubic(offset - tap), accumulate=True)
    else:
        low = torch.floor(source)
        lerp = source - low
        matrix.index_put_((rows, low.clamp(0, in_size - 1).long()), 1.0 - lerp, accumulate=True)
        matrix.index_put_((rows, torch.ceil(source).clamp(0, in_size - 1).long()), lerp,
                          accumulate=True)
    return matrix.to(dtype=dtype, device=device)


def _legacy_resize(x, height, width, method, align_corners):
    """NCHW `x` resized with TF1's legacy sampling (see `_legacy_resize_matrix`)."""
    rows = _legacy_resize_matrix(x.shape[2], height, method, align_corners, x.dtype, x.device)
    cols = _legacy_resize_matrix(x.shape[3], width, method, align_corners, x.dtype, x.device)
    return rows @ x @ cols.T


def _resize(images, size, method, antialias, align_corners, preserve_aspect_ratio,
            half_pixel_centers=True):
    x, batched, dtype = _nchw(images)
    height, width = _size(size)
    if preserve_aspect_ratio:
        scale = min(height / x.shape[2], width / x.shape[3])
        height, width = int(round(x.shape[2] * scale)), int(round(x.shape[3] * scale))
    method = _V1_METHODS.get(method, method)
    xf = x.float() if not x.is_floating_point() else x
    if method in ("bilinear", "nearest", "bicubic") and \
            (align_corners or not half_pixel_centers):
        out = _legacy_resize(x.double() if method == "nearest" else xf, height, width,
                             method, align_corners)
    elif method == "nearest":
        out = F.interpolate(xf, size=(height, width), mode="nearest-exact")
    elif method == "area":
        out = F.interpolate(xf, size=(height, width), mode="area")
    elif method == "bicubic" and not antialias:
        rows = _bicubic_matrix(xf.shape[2], height, xf.dtype, xf.device)
        out = rows @ xf @ _bicubic_matrix(xf.shape[3], width, xf.dtype, xf.device).T
    elif method in ("bilinear", "bicubic"):
        out = F.interpolate(xf, size=(height, width), mode=method,
                            align_corners=bool(align_corners),
                            antialias=bool(antialias) and not align_corners)
    else:
        raise NotImplementedError("tf.image.resize method %r is not implemented by tfcompat "
                                  "(bilinear, nearest, bicubic and area are)" % (method,))
    out = _back(out, batched)
    if method == "nearest":
        out = out.to(dtype)
    return out


@op(v2=["image.resize"], graph_name="ResizeBilinear")
def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):
    """TF2 `tf.image.resize`: float32 output (nearest keeps the dtype), half-pixel centers."""
    return _resize(images, size, method, antialias, False, preserve_aspect_ratio)


@op(v1=["image.resize", "image.resize_images"], graph_name="ResizeBilinear")
def resize_images(images, size, method=0, align_corners=False, preserve_aspect_ratio=False,
                  name=None):
    """TF1 `tf.image.resize_images` (method 0..3 or a ResizeMethod name): TF1's legacy
    sampling, without half-pixel centers."""
    return _resize(images, size, method, False, align_corners, preserve_aspect_ratio,
                   half_pixel_centers=False)


@op(v1=["image.resize_bilinear"], graph_name="ResizeBilinear")
def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return _resize(images, size, "bilinear", False, align_corners, False, half_pixel_centers)


@op(v1=["image.resize_nearest_neighbor"], graph_name="ResizeNearestNeighbor")
def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False):
    return _resize(images, size, "nearest", False, align_corners, False, half_pixel_centers)


@op(v1=["image.resize_bicubic"], graph_name="ResizeBicubic")
def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return _resize(images, size, "bicubic", False, align_corners, False, half_pixel_centers)


@op(v1=["image.resize_area"], graph_name="ResizeArea", no_gradient=True)
def resize_area(images, size, align_corners=False, name=None):
    return _resize(images, size, "area", False, False, False)


def _hw_axes(t):
    if t.ndim not in (3, 4):
        raise ValueError("'image' must have either 3 or 4 dimensions, got shape %s"
                         % format_shape(t.shape))
    return (t.ndim - 3, t.ndim - 2)


@op("image.flip_left_right", graph_name="ReverseV2")
def flip_left_right(image):
    t = to_torch(image)
    return torch.flip(t, [_hw_axes(t)[1]])


@op("image.flip_up_down", graph_name="ReverseV2")
def flip_up_down(image):
    t = to_torch(image)
    return torch.flip(t, [_hw_axes(t)[0]])


@op("image.transpose", v1=["image.transpose_image"], graph_name="Transpose")
def transpose(image, name=None):
    t = to_torch(image)
    h, w = _hw_axes(t)
    return t.transpose(h, w)


@op("image.rot90", graph_name="Rot90")
def rot90(image, k=1, name=None):
    t = to_torch(image)
    h, w = _hw_axes(t)
    return torch.rot90(t, int(k) % 4, [h, w])


@tf_export("image.random_flip_left_right")
def random_flip_left_right(image, seed=None):
    """Flip with probability 1/2 (a 4-D batch: each image on its own, as TF does)."""
    return _random_flip(image, seed, flip_left_right)


@tf_export("image.random_flip_up_down")
def random_flip_up_down(image, seed=None):
    return _random_flip(image, seed, flip_up_down)


@op(graph_name="RandomFlip")
def _random_flip_op(image, seed, up_down):
    t = to_torch(image)
    h, w = _hw_axes(t)
    axis = h if up_down else w
    gen = random_seed.generator(seed, torch.device("cpu"))
    if t.ndim == 4:
        # filled in place: torch.rand(size, generator=...) rejects a graph's unknown batch
        mask = (torch.empty(t.shape[0]).uniform_(generator=gen) < 0.5).to(t.device)
        return torch.where(mask.view(-1, 1, 1, 1), torch.flip(t, [axis]), t)
    return torch.flip(t, [axis]) if bool(torch.rand((), generator=gen) < 0.5) else t


def _random_flip(image, seed, fn):
    return _random_flip_op(image, seed, fn is flip_up_down)


@op("image.crop_to_bounding_box", graph_name="Slice")
def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    t = to_torch(image)
    h, w = _hw_axes(t)
    oh, ow, th, tw = (int(to_torch(v)) if not isinstance(v, int) else v
                      for v in (offset_height, offset_width, target_height, target_width))
    if oh < 0 or ow < 0 or oh + th > t.shape[h] or ow + tw > t.shape[w]:
        raise errors.InvalidArgumentError("crop_to_bounding_box: the box does not fit the image"
                                          " (image %dx%d)" % (t.shape[h], t.shape[w]))
    return t.narrow(h, oh, th).narrow(w, ow, tw)


@op("image.pad_to_bounding_box", graph_name="Pad")
def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    t = to_torch(image)
    h, w = _hw_axes(t)
    oh, ow, th, tw = (int(v) for v in (offset_height, offset_width, target_height,
                                       target_width))
    after_h, after_w = th - oh - t.shape[h], tw - ow - t.shape[w]
    if min(oh, ow, after_h, after_w) < 0:
        raise errors.InvalidArgumentError("pad_to_bounding_box: the image does not fit the "
                                          "target box")
    return F.pad(t, (0, 0, ow, after_w, oh, after_h))


@op(v2=["image.resize_with_crop_or_pad"], v1=["image.resize_image_with_crop_or_pad",
                                              "image.resize_with_crop_or_pad"],
    graph_name="ResizeWithCropOrPad")
def resize_with_crop_or_pad(image, target_height, target_width):
    """Center-crop and/or zero-pad to the target size (TF's offsets)."""
    t = to_torch(image)
    h, w = _hw_axes(t)
    th, tw = int(target_height), int(target_width)
    ih, iw = t.shape[h], t.shape[w]
    crop_h, crop_w = max(ih - th, 0) // 2, max(iw - tw, 0) // 2
    t = t.narrow(h, crop_h, min(th, ih)).narrow(w, crop_w, min(tw, iw))
    pad_h, pad_w = max(th - ih, 0) // 2, max(tw - iw, 0) // 2
    return F.pad(t, (0, 0, pad_w, tw - t.shape[w] - pad_w, pad_h, th - t.shape[h] - pad_h))


@op("image.central_crop", graph_name="CentralCrop")
def central_crop(image, central_fraction):
    t = to_torch(image)
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    h, w = _hw_axes(t)
    ih, iw = t.shape[h], t.shape[w]
    start_h = int((ih - ih * central_fraction) / 2)
    start_w = int((iw - iw * central_fraction) / 2)
    return t.narrow(h, start_h, ih - 2 * start_h).narrow(w, start_w, iw - 2 * start_w)


@op("image.per_image_standardization", graph_name="PerImageStandardization")
def per_image_standardization(image):
    """(x - mean) / max(stddev, 1/sqrt(N)) per image, in float32."""
    t = to_torch(image)
    x = t.float() if not t.is_floating_point() else t
    dims = (-3, -2, -1)
    n = x.shape[-1] * x.shape[-2] * x.shape[-3]
    mean = x.mean(dim=dims, keepdim=True)
    std = x.std(dim=dims, keepdim=True, unbiased=False)
    return (x - mean) / torch.clamp(std, min=1.0 / float(np.sqrt(n)))


def _max_of(dtype):
    return 1.0 if dtype.is_floating_point else float(torch.iinfo(dtype).max)


@op("image.convert_image_dtype", graph_name="ConvertImageDtype")
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Scale between integer ranges [0, MAX] and float [0, 1], as TF does."""
    t = to_torch(image)
    target = dtypes.as_dtype(dtype).torch_dtype
    if t.dtype == target:
        return t
    src_max, dst_max = _max_of(t.dtype), _max_of(target)
    if t.is_floating_point() and target.is_floating_point:
        return t.to(target)
    if t.is_floating_point():
        x = t * (dst_max + 0.5)
        if saturate:
            x = x.clamp(0, dst_max)
        return x.to(target)
    if target.is_floating_point:
        return t.to(target) / src_max
    # integer -> integer: shift by the bit-width difference
    src_bits = torch.iinfo(t.dtype).bits
    dst_bits = torch.iinfo(target).bits
    x = t.to(torch.int64)
    x = x >> (src_bits - dst_bits) if src_bits > dst_bits else x << (dst_bits - src_bits)
    return x.to(target)


def _float_op(image, fn):
    t = to_torch(image)
    if t.is_floating_point():
        return fn(t)
    out = fn(t.float() / _max_of(t.dtype))
    return (out.clamp(0, 1) * _max_of(t.dtype) + 0.5).to(t.dtype)


def _scalar_factor(value):
    """A Python number as is (exact in any image dtype); a tensor (a drawn factor) as a 0-d
    torch tensor, which keeps the image's dtype in arithmetic."""
    return value if isinstance(value, (int, float)) else to_torch(value).reshape(())


@op("image.adjust_brightness", graph_name="AdjustBrightness")
def adjust_brightness(image, delta):
    delta = _scalar_factor(delta)
    return _float_op(image, lambda x: x + delta)


@op("image.adjust_contrast", graph_name="AdjustContrastv2", no_gradient=True)
def adjust_contrast(images, contrast_factor):
    factor = _scalar_factor(contrast_factor)
    return _float_op(images, lambda x: (x - x.mean(dim=(-3, -2), keepdim=True)) * factor +
                     x.mean(dim=(-3, -2), keepdim=True))


@op("image.adjust_gamma", graph_name="AdjustGamma")
def adjust_gamma(image, gamma=1, gain=1):
    t = to_torch(image)
    if float(gamma) < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    x = t.float() / _max_of(t.dtype) if not t.is_floating_point() else t
    out = float(gain) * x ** float(gamma)
    return out if t.is_floating_point() else (out * _max_of(t.dtype)).to(t.dtype)


def _rgb_to_hsv(x):
    r, g, b = x.unbind(-1)
    value, _ = x.max(-1)
    minimum, _ = x.min(-1)
    delta = value - minimum
    saturation = torch.where(value > 0, delta / torch.where(value > 0, value, 1.0), 0.0)
    safe = torch.where(delta > 0, delta, 1.0)
    hue = torch.where(value == r, (g - b) / safe,
                      torch.where(value == g, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    hue = torch.where(delta > 0, (hue / 6.0) % 1.0, 0.0)
    return torch.stack([hue, saturation, value], -1)


def _hsv_to_rgb(x):
    h, s, v = x.unbind(-1)
    dh = (h % 1.0) * 6.0
    dr = torch.clamp(torch.abs(dh - 3.0) - 1.0, 0.0, 1.0)
    dg = torch.clamp(2.0 - torch.abs(dh - 2.0), 0.0, 1.0)
    db = torch.clamp(2.0 - torch.abs(dh - 4.0), 0.0, 1.0)
    one_minus_s = 1.0 - s
    return torch.stack([v * (one_minus_s + s * c) for c in (dr, dg, db)], -1)


@op("image.rgb_to_hsv", graph_name="RGBToHSV")
def rgb_to_hsv(images, name=None):
    return _rgb_to_hsv(to_torch(images))


@op("image.hsv_to_rgb", graph_name="HSVToRGB")
def hsv_to_rgb(images, name=None):
    return _hsv_to_rgb(to_torch(images))


@op("image.adjust_saturation", graph_name="AdjustSaturation", no_gradient=True)
def adjust_saturation(image, saturation_factor, name=None):
    factor = _scalar_factor(saturation_factor)

    def fn(x):
        hsv = _rgb_to_hsv(x)
        hsv = torch.stack([hsv[..., 0], (hsv[..., 1] * factor).clamp(0, 1),
                           hsv[..., 2]], -1)
        return _hsv_to_rgb(hsv)
    return _float_op(image, fn)


@op("image.adjust_hue", graph_name="AdjustHue", no_gradient=True)
def adjust_hue(image, delta, name=None):
    if isinstance(delta, (int, float)) and not -1.0 <= delta <= 1.0:
        raise ValueError("delta must be in the interval [-1, 1]")
    delta = _scalar_factor(delta)

    def fn(x):
        hsv = _rgb_to_hsv(x)
        hsv = torch.stack([(hsv[..., 0] + delta) % 1.0, hsv[..., 1], hsv[..., 2]], -1)
        return _hsv_to_rgb(hsv)
    return _float_op(image, fn)


@op("image.rgb_to_grayscale", graph_name="RGBToGrayscale")
def rgb_to_grayscale(images, name=None):
    t = to_torch(images)
    weights = torch.tensor([0.2989, 0.5870, 0.1140], device=t.device)
    x = t.float() if not t.is_floating_point() else t
    gray = (x * weights.to(x.dtype)).sum(-1, keepdim=True)
    return gray if t.is_floating_point() else (gray + 0.5).to(t.dtype)


@op("image.grayscale_to_rgb", graph_name="GrayscaleToRGB")
def grayscale_to_rgb(images, name=None):
    t = to_torch(images)
    if t.shape[-1] != 1:
        raise ValueError("The last dimension of a grayscale image must be 1, got %d"
                         % t.shape[-1])
    return t.expand(*t.shape[:-1], 3).contiguous()


def _uniform(low, high, seed):
    gen = random_seed.generator(seed, torch.device("cpu"))
    return float(torch.empty(()).uniform_(float(low), float(high), generator=gen))


@tf_export("image.random_brightness")
def random_brightness(image, max_delta, seed=None):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform(-max_delta, max_delta, seed))


@tf_export("image.random_contrast")
def random_contrast(image, lower, upper, seed=None):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, _uniform(lower, upper, seed))


@tf_export("image.random_saturation")
def random_saturation(image, lower, upper, seed=None):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_saturation(image, _uniform(lower, upper, seed))


@tf_export("image.random_hue")
def random_hue(image, max_delta, seed=None):
    if not 0 <= max_delta <= 0.5:
        raise ValueError("max_delta must be in the interval [0, 0.5].")
    return adjust_hue(image, _uniform(-max_delta, max_delta, seed))


# ---------------------------------------------------------------- stateless random image ops
# TF's values: each draws with tf.random.stateless_uniform of its seed, as TF 2.15 does.


def _stateless_scalar(seed, minval, maxval):
    """TF's `stateless_random_uniform(shape=[], minval, maxval, seed)`: a float32 scalar."""
    key, counter = key_counter_from_seed(seed)
    low = torch.tensor(minval, dtype=torch.float32, device=key.device)
    high = torch.tensor(maxval, dtype=torch.float32, device=key.device)
    return uniform_bits([], key, counter, dtypes.float32) * (high - low) + low


def _stateless_flip(image, seed, up_down):
    """A 3-D image flips when its draw is below 0.5; each image of a 4-D batch flips when
    its draw rounds to 1 (TF's two branches of `_random_flip`)."""
    t = to_torch(image)
    h, w = _hw_axes(t)
    flipped = torch.flip(t, [h if up_down else w])
    key, counter = key_counter_from_seed(seed)
    if t.ndim == 3:
        return torch.where(uniform_bits([], key, counter, dtypes.float32) < 0.5, flipped, t)
    draws = uniform_bits([t.shape[0]], key, counter, dtypes.float32).to(t.device)
    flips = torch.round(draws).view(-1, 1, 1, 1).to(t.dtype)
    return flips * flipped + (1 - flips) * t


@op("image.stateless_random_flip_left_right", graph_name="StatelessRandomFlipLeftRight")
def stateless_random_flip_left_right(image, seed):
    """Flip horizontally or not, as the seed decides (TF's values)."""
    return _stateless_flip(image, seed, False)


@op("image.stateless_random_flip_up_down", graph_name="StatelessRandomFlipUpDown")
def stateless_random_flip_up_down(image, seed):
    """Flip vertically or not, as the seed decides (TF's values)."""
    return _stateless_flip(image, seed, True)


def _check_factor_range(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


@op("image.stateless_random_brightness", graph_name="StatelessRandomBrightness")
def stateless_random_brightness(image, max_delta, seed):
    """`adjust_brightness` by a delta drawn in [-max_delta, max_delta) from the seed."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return run_impl(adjust_brightness, image, _stateless_scalar(seed, -max_delta, max_delta))


@op("image.stateless_random_contrast", graph_name="StatelessRandomContrast")
def stateless_random_contrast(image, lower, upper, seed):
    """`adjust_contrast` by a factor drawn in [lower, upper) from the seed."""
    _check_factor_range(lower, upper)
    return run_impl(adjust_contrast, image, _stateless_scalar(seed, lower, upper))


@op("image.stateless_random_saturation", graph_name="StatelessRandomSaturation")
def stateless_random_saturation(image, lower, upper, seed):
    """`adjust_saturation` by a factor drawn in [lower, upper) from the seed."""
    _check_factor_range(lower, upper)
    return run_impl(adjust_saturation, image, _stateless_scalar(seed, lower, upper))


@op("image.stateless_random_hue", graph_name="StatelessRandomHue")
def stateless_random_hue(image, max_delta, seed):
    """`adjust_hue` by a delta drawn in [-max_delta, max_delta) from the seed."""
    if not 0 <= max_delta <= 0.5:
        raise ValueError("max_delta must be in the interval [0, 0.5].")
    return run_impl(adjust_hue, image, _stateless_scalar(seed, -max_delta, max_delta))


@op("image.stateless_random_crop", graph_name="StatelessRandomCrop")
def stateless_random_crop(value, size, seed, name=None):
    """A slice of `value` of shape `size` at offsets drawn from the seed, as TF does: int32
    draws below 2**31 - 1, modulo shape - size + 1."""
    t = to_torch(value)
    size = [int(s) for s in (to_torch(size).tolist() if not isinstance(size, (list, tuple))
                             else size)]
    if len(size) != t.ndim:
        raise ValueError("size must have %d elements (the rank of value), got %s"
                         % (t.ndim, size))
    if any(s > d for s, d in zip(size, t.shape)):
        raise errors.InvalidArgumentError("Need value.shape >= size, got %s vs %s"
                                          % (format_shape(t.shape), size))
    key, counter = key_counter_from_seed(seed)
    draws = uniform_int([t.ndim], key, counter, torch.tensor(0), torch.tensor(2 ** 31 - 1),
                        dtypes.int32).to(t.device)
    limits = torch.tensor([d - s + 1 for d, s in zip(t.shape, size)], device=t.device)
    offsets = draws % limits
    index = tuple((torch.arange(s, device=t.device) + offsets[axis]).reshape(
        [s if i == axis else 1 for i in range(t.ndim)]) for axis, s in enumerate(size))
    return t[index]


# ---------------------------------------------------------------- image statistics, color


@op("image.total_variation", graph_name="TotalVariation")
def total_variation(images, name=None):
    """Sum of absolute differences of neighbouring pixels: a scalar for one 3-D image, one
    value per image of a 4-D batch."""
    t = to_torch(images)
    if t.ndim not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    h, w = _hw_axes(t)
    axes = None if t.ndim == 3 else (1, 2, 3)
    rows = (t.narrow(h, 1, t.shape[h] - 1) - t.narrow(h, 0, t.shape[h] - 1)).abs()
    cols = (t.narrow(w, 1, t.shape[w] - 1) - t.narrow(w, 0, t.shape[w] - 1)).abs()
    if axes is None:
        return rows.sum() + cols.sum()
    return rows.sum(axes) + cols.sum(axes)


def _batch_of_images(t, function):
    if t.ndim != 4:
        raise ValueError("%s expects a 4D tensor [batch_size, h, w, d], not %s."
                         % (function, format_shape(t.shape)))
    return t


@op("image.image_gradients", graph_name="ImageGradients")
def image_gradients(image):
    """(dy, dx): forward differences along height and width, zero in the last row/column."""
    t = _batch_of_images(to_torch(image), "image_gradients")
    dy = F.pad(t[:, 1:] - t[:, :-1], (0, 0, 0, 0, 0, 1))
    dx = F.pad(t[:, :, 1:] - t[:, :, :-1], (0, 0, 0, 1))
    return dy, dx


@op("image.sobel_edges", graph_name="SobelEdges")
def sobel_edges(image):
    """Sobel filter responses [batch, h, w, d, 2] (dy then dx) of reflect-padded images."""
    t = _batch_of_images(to_torch(image), "sobel_edges")
    x = t if t.is_floating_point() else t.float()
    kernels = torch.tensor([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                            [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], dtype=x.dtype,
                           device=x.device)
    channels = x.shape[-1]
    nchw = F.pad(x.permute(0, 3, 1, 2), (1, 1, 1, 1), mode="reflect")
    weight = kernels.repeat(channels, 1, 1).unsqueeze(1)      # [d * 2, 1, 3, 3]
    out = F.conv2d(nchw, weight, groups=channels)                # [b, d * 2, h, w]
    return out.reshape(x.shape[0], channels, 2, *out.shape[-2:]).permute(0, 3, 4, 1, 2)


@op("image.psnr", graph_name="PSNR")
def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio per image, in float32 (images converted as
    `convert_image_dtype` does): 20 log10(max_val) - 10 log10(mse)."""
    ta, tb = to_torch(a), to_torch(b)
    if ta.dtype != tb.dtype:
        raise TypeError("a and b must have the same dtype, got %s and %s"
                        % (dtypes.from_torch(ta.dtype).name, dtypes.from_torch(tb.dtype).name))
    peak = run_impl(convert_image_dtype, to_torch(max_val).to(ta.dtype).reshape(()),
                    dtypes.float32)
    x = run_impl(convert_image_dtype, ta, dtypes.float32)
    y = run_impl(convert_image_dtype, tb, dtypes.float32)
    mse = torch.square(x - y).mean((-3, -2, -1))
    return 20 * torch.log(peak) / math.log(10.0) - np.float32(10 / np.log(10)) * torch.log(mse)


_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]


def _color_transform(kernel, op_type, *paths):
    def transform(images, name=None):
        t = to_torch(images)
        if not t.is_floating_point():
            raise TypeError("%s expects float images, got %s"
                            % (paths[0], dtypes.from_torch(t.dtype).name))
        return t @ torch.tensor(kernel, dtype=t.dtype, device=t.device)
    transform.__name__ = transform.__qualname__ = paths[0].split(".")[-1]
    transform.__doc__ = "`tf.%s`: the last axis times TF's 3x3 color matrix." % paths[0]
    return op(*paths, graph_name=op_type)(transform)


rgb_to_yuv = _color_transform(_RGB_TO_YUV, "RGBToYUV", "image.rgb_to_yuv")
yuv_to_rgb = _color_transform(_YUV_TO_RGB, "YUVToRGB", "image.yuv_to_rgb")
rgb_to_yiq = _color_transform(_RGB_TO_YIQ, "RGBToYIQ", "image.rgb_to_yiq")
yiq_to_rgb = _color_transform(_YIQ_TO_RGB, "YIQToRGB", "image.yiq_to_rgb")


# ---------------------------------------------------------------- pad, patches, crops


def _resize_with_pad(image, target_height, target_width, resize_fn):
    """TF's `_resize_image_with_pad_common`: resize to fit (float32 ratios, floored sizes),
    then pad, centered, to the target."""
    t = to_torch(image)
    h, w = _hw_axes(t)
    height, width = np.float32(t.shape[h]), np.float32(t.shape[w])
    target_h, target_w = np.float32(target_height), np.float32(target_width)
    ratio = max(width / target_w, height / target_h)
    resized_h, resized_w = height / ratio, width / ratio
    pad_h = max(0, int(np.floor((target_h - resized_h) / np.float32(2))))
    pad_w = max(0, int(np.floor((target_w - resized_w) / np.float32(2))))
    resized = resize_fn(t, [int(np.floor(resized_h)), int(np.floor(resized_w))])
    return run_impl(pad_to_bounding_box, resized, pad_h, pad_w, int(target_height),
                    int(target_width))


@op(v2=["image.resize_with_pad"], graph_name="ResizeWithPad")
def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias=False):
    """TF2 `tf.image.resize_with_pad`: resized keeping the aspect ratio, then zero-padded."""
    return _resize_with_pad(image, target_height, target_width, lambda t, size: run_impl(
        resize, t, size, method=method, antialias=antialias))


@op(v1=["image.resize_image_with_pad"], graph_name="ResizeWithPad")
def resize_image_with_pad(image, target_height, target_width, method=0, align_corners=False):
    """TF1 `tf.image.resize_image_with_pad`, with TF1's resize."""
    return _resize_with_pad(image, target_height, target_width, lambda t, size: run_impl(
        resize_images, t, size, method=method, align_corners=align_corners))


def _same_padding(size, kernel, stride):
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


@op("image.extract_patches", graph_name="ExtractImagePatches")
def extract_patches(images, sizes, strides, rates, padding, name=None):
    """`tf.image.extract_patches`: [batch, rows, cols, size_rows * size_cols * depth]
    patches (each patch row-major, depth innermost), `rates` spacing the sampled pixels."""
    t = to_torch(images)
    if t.ndim != 4:
        raise ValueError("images must be 4-D [batch, rows, cols, depth], got shape %s"
                         % format_shape(t.shape))
    (_, kh, kw, _), (_, sh, sw, _), (_, rh, rw, _) = (_as_four(v) for v in
                                                      (sizes, strides, rates))
    x = t.permute(0, 3, 1, 2)
    depth = x.shape[1]
    if padding.upper() == "SAME":
        top, bottom = _same_padding(x.shape[2], (kh - 1) * rh + 1, sh)
        left, right = _same_padding(x.shape[3], (kw - 1) * rw + 1, sw)
        x = F.pad(x, (left, right, top, bottom))
    elif padding.upper() != "VALID":
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    rows = (x.shape[2] - (kh - 1) * rh - 1) // sh + 1
    cols = (x.shape[3] - (kw - 1) * rw - 1) // sw + 1
    patches = F.unfold(x.double() if not x.is_floating_point() else x, (kh, kw),
                       dilation=(rh, rw), stride=(sh, sw)).to(t.dtype)
    patches = patches.reshape(t.shape[0], depth, kh * kw, rows, cols)
    return patches.permute(0, 3, 4, 2, 1).reshape(t.shape[0], rows, cols, kh * kw * depth)


def _as_four(values):
    values = [int(v) for v in values]
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise ValueError("sizes, strides and rates must be [1, rows, cols, 1], got %s"
                         % (values,))
    return values


@op(v1=["image.extract_image_patches", "extract_image_patches"],
    graph_name="ExtractImagePatches")
def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None,
                          name=None, sizes=None):
    """TF1 `tf.image.extract_image_patches` (`ksizes` is the old name of `sizes`)."""
    return run_impl(extract_patches, images, ksizes if ksizes is not None else sizes,
                    strides, rates, padding)


@op("image.crop_and_resize", graph_name="CropAndResize")
def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None):
    """`tf.image.crop_and_resize`: float32 crops [num_boxes, h, w, depth] sampled on a grid
    from corner to corner of each normalized box [y1, x1, y2, x2] (the box center for a
    size of 1); samples outside the image are `extrapolation_value`."""
    t = to_torch(image)
    if t.ndim != 4:
        raise ValueError("image must be 4-D [batch, height, width, depth], got shape %s"
                         % format_shape(t.shape))
    if method not in ("bilinear", "nearest"):
        raise ValueError("method must be 'bilinear' or 'nearest', got %r" % (method,))
    x = t.float()
    b = to_torch(boxes).float().to(x.device)
    which = to_torch(box_indices).long().to(x.device)
    crop_h, crop_w = (int(v) for v in _as_ints(crop_size))
    height, width = x.shape[1], x.shape[2]

    def grid(low, high, size, extent):
        if size == 1:
            return (0.5 * (low + high) * (extent - 1))[:, None]
        steps = torch.arange(size, dtype=torch.float32, device=x.device)
        return low[:, None] * (extent - 1) + steps * ((high - low) * (extent - 1) /
                                                      (size - 1))[:, None]
    ys, xs = grid(b[:, 0], b[:, 2], crop_h, height), grid(b[:, 1], b[:, 3], crop_w, width)
    inside = ((ys >= 0) & (ys <= height - 1))[:, :, None] & \
        ((xs >= 0) & (xs <= width - 1))[:, None, :]
    images = x[which]                                            # [n, H, W, D]
    n = torch.arange(b.shape[0], device=x.device)[:, None, None]

    def at(rows, columns):
        rows = rows.clamp(0, height - 1)[:, :, None]
        columns = columns.clamp(0, width - 1)[:, None, :]
        return images[n, rows, columns]
    if method == "nearest":
        # roundf: halves away from zero (the samples used are >= 0)
        crops = at(torch.floor(ys + 0.5).long(), torch.floor(xs + 0.5).long())
    else:
        top, left = torch.floor(ys), torch.floor(xs)
        dy, dx = (ys - top)[:, :, None, None], (xs - left)[:, None, :, None]
        top, left = top.long(), left.long()
        upper = at(top, left) + (at(top, left + 1) - at(top, left)) * dx
        lower = at(top + 1, left) + (at(top + 1, left + 1) - at(top + 1, left)) * dx
        crops = upper + (lower - upper) * dy
    fill = torch.tensor(float(extrapolation_value), dtype=crops.dtype, device=x.device)
    return torch.where(inside[..., None], crops, fill)


# ---------------------------------------------------------------- distorted bounding boxes
# TF's sample_distorted_bounding_box_op.cc, step by step in float32, drawing 32-bit words
# one at a time (SimplePhilox): from the seed's Philox stream for the stateless op (TF's
# values), from tfcompat's seeded generator for the stateful one.


class _Words(object):
    """32-bit random words on demand from `make(count)` (int64 tensors of words)."""

    def __init__(self, make, count):
        self._make, self._words, self._used = make, [], 0
        self._extend(count)

    def _extend(self, count):
        self._words = self._words + self._make(len(self._words) + count).tolist()[
            len(self._words):]

    def next(self):
        if self._used == len(self._words):
            self._extend(len(self._words))
        self._used += 1
        return self._words[self._used - 1]

    def uniform_float(self):
        return np.float32((self.next() & 0x7FFFFF) * 2.0 ** -23)

    def uniform_int(self, n):
        """TF's ExactUniformInt: unbiased, rejecting the lowest (2**32 - 1) % n + 1 words."""
        if n & (n - 1) == 0:
            return self.next() & (n - 1)
        reject = (0xFFFFFFFF % n) + 1
        word = self.next()
        while word < reject:
            word = self.next()
        return word % n


def _lrint(value):
    return int(round(float(value)))      # half to even, as lrintf in the default mode


def _random_crop(width, height, min_fraction, max_fraction, aspect, words):
    """TF's GenerateRandomCrop: (x, y, width, height) or None."""
    f32 = np.float32
    min_area = f32(f32(min_fraction) * f32(width)) * f32(height)
    max_area = f32(f32(max_fraction) * f32(width)) * f32(height)
    crop_h = _lrint(np.sqrt(f32(min_area / aspect)))
    max_h = _lrint(np.sqrt(f32(max_area / aspect)))
    if _lrint(f32(max_h) * aspect) > width:
        max_h = int((width + 0.5 - float(f32(1e-7))) / float(aspect))
        if _lrint(f32(max_h) * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    crop_h = min(crop_h, max_h)
    if crop_h < max_h:
        crop_h += words.uniform_int(max_h - crop_h + 1)
    crop_w = _lrint(f32(crop_h) * aspect)
    area = f32(crop_w * crop_h)
    if area < min_area:
        crop_h += 1
        crop_w = _lrint(f32(crop_h) * aspect)
        area = f32(crop_w * crop_h)
    if area > max_area:
        crop_h -= 1
        crop_w = _lrint(f32(crop_h) * aspect)
        area = f32(crop_w * crop_h)
    if area < min_area or area > max_area or crop_w > width or crop_h > height or \
            crop_w <= 0 or crop_h <= 0:
        return None
    y = words.uniform_int(height - crop_h) if crop_h < height else 0
    x = words.uniform_int(width - crop_w) if crop_w < width else 0
    return x, y, crop_w, crop_h


def _covers_an_object(crop, boxes, minimum_covered):
    x, y, w, h = crop
    if w * h < 1:
        return False
    for x0, y0, x1, y1 in boxes:
        area = (x1 - x0) * (y1 - y0)
        if area < 1:
            continue
        inter_w = min(x + w, x1) - max(x, x0)
        inter_h = min(y + h, y1) - max(y, y0)
        inter = inter_w * inter_h if inter_w > 0 and inter_h > 0 else 0
        if np.float32(inter) / np.float32(area) >= minimum_covered:
            return True
    return False


def _distorted_box(image_size, boxes, words, min_object_covered, aspect_ratio_range,
                   area_range, max_attempts, use_image_if_no_bounding_boxes):
    height, width = int(image_size[0]), int(image_size[1])
    f32 = np.float32
    rects = [(int(f32(b[1]) * f32(width)), int(f32(b[0]) * f32(height)),
              int(f32(b[3]) * f32(width)), int(f32(b[2]) * f32(height)))
             for b in np.asarray(boxes, dtype=np.float32).reshape(-1, 4)]
    if not rects:
        if not use_image_if_no_bounding_boxes:
            raise errors.InvalidArgumentError(
                "No bounding boxes provided as input. One must enable "
                "use_image_if_no_bounding_boxes if you wish to not provide any bounding "
                "boxes.")
        rects = [(0, 0, width, height)]
    low_aspect, high_aspect = f32(aspect_ratio_range[0]), f32(aspect_ratio_range[1])
    crop = None
    for _ in range(max_attempts):
        aspect = f32(words.uniform_float() * f32(high_aspect - low_aspect)) + low_aspect
        candidate = _random_crop(width, height, area_range[0], area_range[1], aspect, words)
        if candidate is not None and _covers_an_object(candidate, rects,
                                                        f32(min_object_covered)):
            crop = candidate
            break
    x, y, w, h = crop or (0, 0, width, height)
    return [y, x, 0], [h, w, -1], [[[f32(y) / f32(height), f32(x) / f32(width),
                                     f32(y + h) / f32(height), f32(x + w) / f32(width)]]]


def _sample_distorted_bounding_box(image_size, bounding_boxes, make_words, op_type, pure,
                                   min_object_covered, aspect_ratio_range, area_range,
                                   max_attempts, use_image_if_no_bounding_boxes, name):
    aspect_ratio_range = (0.75, 1.33) if aspect_ratio_range is None else aspect_ratio_range
    area_range = (0.05, 1.0) if area_range is None else area_range
    max_attempts = 100 if max_attempts is None else int(max_attempts)
    if not (0 < area_range[0] <= 1 and 0 < area_range[1] <= 1):
        raise errors.InvalidArgumentError("Area range must be in (0, 1]: %s" % (area_range,))
    if min(aspect_ratio_range) <= 0 or max_attempts <= 0:
        raise errors.InvalidArgumentError("Aspect ratio range and max_attempts must be "
                                          "positive")
    size_t, boxes_t = convert_to_tensor(image_size), convert_to_tensor(bounding_boxes,
                                                                       dtypes.float32)

    def run(size_values, box_values):
        words = _Words(make_words, 4 * max_attempts)
        begin, size, box = _distorted_box(
            size_values.tolist(), box_values.cpu().numpy(), words, float(min_object_covered),
            aspect_ratio_range, area_range, max_attempts, bool(use_image_if_no_bounding_boxes))
        return (torch.tensor(begin, dtype=size_values.dtype),
                torch.tensor(size, dtype=size_values.dtype),
                torch.tensor(box, dtype=torch.float32))
    specs = [(size_t.dtype, TensorShape([3])), (size_t.dtype, TensorShape([3])),
             (dtypes.float32, TensorShape([1, 1, 4]))]
    return tuple(run_op(run, op_type, [size_t, boxes_t], specs, name, pure=pure))


def _stateful_words(seed):
    generator = random_seed.generator(seed, torch.device("cpu"))
    return lambda count: torch.randint(0, 2 ** 32, (count,), generator=generator)


@tf_export(v2=["image.sample_distorted_bounding_box"])
def sample_distorted_bounding_box_v2(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                     aspect_ratio_range=None, area_range=None,
                                     max_attempts=None, use_image_if_no_bounding_boxes=None,
                                     name=None):
    """`tf.image.sample_distorted_bounding_box`: (begin, size, bbox) of a random crop of
    aspect ratio and area within the ranges covering at least `min_object_covered` of a box
    (the whole image after `max_attempts` failures). Draws differ from TF's."""
    return _sample_distorted_bounding_box(
        image_size, bounding_boxes, _stateful_words(seed), "SampleDistortedBoundingBoxV2",
        False, min_object_covered, aspect_ratio_range, area_range, max_attempts,
        use_image_if_no_bounding_boxes, name)


@tf_export(v1=["image.sample_distorted_bounding_box"])
def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None,
                                  min_object_covered=0.1, aspect_ratio_range=None,
                                  area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """TF1 `tf.image.sample_distorted_bounding_box` (`seed2` unused)."""
    return _sample_distorted_bounding_box(
        image_size, bounding_boxes, _stateful_words(seed), "SampleDistortedBoundingBoxV2",
        False, min_object_covered, aspect_ratio_range, area_range, max_attempts,
        use_image_if_no_bounding_boxes, name)


@tf_export("image.stateless_sample_distorted_bounding_box")
def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed,
                                            min_object_covered=0.1, aspect_ratio_range=None,
                                            area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """`tf.image.stateless_sample_distorted_bounding_box`: TF's crop for the seed pair."""
    key, counter = key_counter_from_seed(to_torch(seed))
    return _sample_distorted_bounding_box(
        image_size, bounding_boxes, lambda count: _word_stream(key, counter, count),
        "StatelessSampleDistortedBoundingBox", True, min_object_covered, aspect_ratio_range,
        area_range, max_attempts, use_image_if_no_bounding_boxes, name)


# ---------------------------------------------------------------- non-max suppression


def _greedy_suppression(boxes, scores, max_output_size, iou_threshold, score_threshold):
    """TF's NonMaxSuppressionV3 order: by score (ties: lower index first), skipping boxes
    whose IoU with a kept box exceeds `iou_threshold`; boxes [y1, x1, y2, x2] in any corner
    order. Returns the kept indices."""
    b = boxes.astype(np.float32)
    low, high = np.minimum(b[:, :2], b[:, 2:]), np.maximum(b[:, :2], b[:, 2:])
    areas = np.prod(high - low, axis=1)
    order = [i for i in np.argsort(-scores, kind="stable") if scores[i] > score_threshold]
    kept = []
    for i in order:
        if len(kept) == max_output_size:
            break
        if kept:
            inter = np.prod(np.clip(np.minimum(high[kept], high[i]) -
                                    np.maximum(low[kept], low[i]), 0, None), axis=1)
            union = areas[kept] + areas[i] - inter
            iou = np.where((areas[kept] > 0) & (areas[i] > 0), inter / np.where(
                union > 0, union, 1), 0)
            if (iou > iou_threshold).any():
                continue
        kept.append(i)
    return np.array(kept, dtype=np.int32)


def _suppression(boxes, scores, max_output_size, iou_threshold, score_threshold, name,
                 with_scores):
    boxes_t, scores_t = convert_to_tensor(boxes), convert_to_tensor(scores)
    if boxes_t.shape.rank != 2 or boxes_t.shape[-1] not in (4, None):
        raise ValueError("boxes must be of shape [num_boxes, 4], got %s" % boxes_t.shape)
    limit, iou, least = int(max_output_size), float(iou_threshold), float(score_threshold)

    def run(box_values, score_values):
        values = score_values.cpu().numpy()
        kept = _greedy_suppression(box_values.cpu().numpy(), values, limit, iou, least)
        indices = torch.from_numpy(kept)
        if not with_scores:
            return (indices,)
        return indices, torch.from_numpy(values[kept]).to(score_values.dtype)
    specs = [(dtypes.int32, TensorShape([None]))]
    if with_scores:
        specs.append((scores_t.dtype, TensorShape([None])))
    outputs = run_op(run, "NonMaxSuppressionV3", [boxes_t, scores_t], specs, name)
    return tuple(outputs) if with_scores else outputs[0]


@tf_export("image.non_max_suppression")
def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """`tf.image.non_max_suppression`: indices (int32) of at most `max_output_size` boxes
    kept by greedy suppression, best score first."""
    return _suppression(boxes, scores, max_output_size, iou_threshold, score_threshold, name,
                        False)


@tf_export("image.non_max_suppression_with_scores")
def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """`tf.image.non_max_suppression_with_scores`: (indices, their scores); Soft-NMS
    (`soft_nms_sigma` > 0) is not implemented."""
    if soft_nms_sigma:
        raise NotImplementedError("tf.image.non_max_suppression_with_scores with "
                                  "soft_nms_sigma > 0 (Soft-NMS) is not implemented in "
                                  "tfcompat")
    return _suppression(boxes, scores, max_output_size, iou_threshold, score_threshold, name,
                        True)


# ---------------------------------------------------------------- decode / encode


def _bytes_tensor(data):
    return torch.frombuffer(bytearray(data), dtype=torch.uint8)


def _decode(contents, channels, kind, op_type, name, dtype=dtypes.uint8):
    import torchvision.io as tvio
    tensor, _ = string_input(contents, "contents")
    modes = {0: tvio.ImageReadMode.UNCHANGED, 1: tvio.ImageReadMode.GRAY,
             3: tvio.ImageReadMode.RGB, 4: tvio.ImageReadMode.RGB_ALPHA}
    channels = int(channels or 0)
    if channels not in modes:
        raise ValueError("channels must be 0, 1, 3 or 4, got %d" % channels)

    def decode(value):
        data = flat_strings(value)[0]
        if kind == "jpeg" and not data.startswith(b"\xff\xd8"):
            raise errors.InvalidArgumentError("Expected image (JPEG, PNG, or GIF), got "
                                              "unknown format starting with %r" % data[:16])
        if kind == "png" and not data.startswith(b"\x89PNG"):
            raise errors.InvalidArgumentError("Expected image (JPEG, PNG, or GIF), got "
                                              "unknown format starting with %r" % data[:16])
        try:
            image = tvio.decode_image(_bytes_tensor(data), mode=modes[channels])
        except RuntimeError as e:
            raise errors.InvalidArgumentError("Invalid %s data or crop window: %s"
                                              % (kind.upper(), e)) from None
        out = image.permute(1, 2, 0).contiguous() if image.ndim == 3 else \
            image.permute(0, 2, 3, 1).contiguous()
        if dtype is not dtypes.uint8:
            out = out.to(dtype.torch_dtype) / 255.0 if dtype.is_floating else \
                out.to(dtype.torch_dtype)
        device = context.current_device()
        return (out if device.type == "cpu" else out.to(device),)
    static = lambda: [(dtype, TensorShape([None, None, channels or None]))]  # noqa: E731
    return run_op(decode, op_type, [tensor], static, name)[0]


@tf_export("io.decode_jpeg", "image.decode_jpeg")
def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """Decode a JPEG to uint8 [height, width, channels]."""
    return _decode(contents, channels, "jpeg", "DecodeJpeg", name)


@tf_export("io.decode_png", "image.decode_png")
def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """Decode a PNG to [height, width, channels] (uint8)."""
    return _decode(contents, channels, "png", "DecodePng", name, dtypes.as_dtype(dtype))


@tf_export("io.decode_image", "image.decode_image")
def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations=True):
    """Decode JPEG, PNG or GIF (GIF: [frames, h, w, 3])."""
    return _decode(contents, channels, "image", "DecodeImage", name, dtypes.as_dtype(dtype))


def _encode(image, fn, op_type, name):
    t = EagerTensor(to_torch(image)) if not isinstance(image, EagerTensor) else image

    def encode(value):
        if value.dtype != torch.uint8:
            raise errors.InvalidArgumentError("image must be uint8, got %s"
                                              % dtypes.from_torch(value.dtype).name)
        if value.ndim != 3:
            raise errors.InvalidArgumentError("image must be 3-dimensional, got shape %s"
                                              % format_shape(value.shape))
        data = fn(value.cpu().permute(2, 0, 1).contiguous())
        return (scalar_string(bytes(data.numpy().tobytes())),)
    return run_op(encode, op_type, [t], lambda: [(dtypes.string, TensorShape([]))], name)[0]


@tf_export("io.encode_jpeg", "image.encode_jpeg")
def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None):
    import torchvision.io as tvio
    return _encode(image, lambda t: tvio.encode_jpeg(t, quality=int(quality)), "EncodeJpeg",
                   name)


@tf_export("io.encode_png", "image.encode_png")
def encode_png(image, compression=-1, name=None):
    import torchvision.io as tvio
    level = 6 if compression in (-1, None) else int(compression)
    return _encode(image, lambda t: tvio.encode_png(t, compression_level=level), "EncodePng",
                   name)
