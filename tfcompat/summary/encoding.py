"""Summary values as TensorFlow's summary kernels build them, from numpy arrays.

Shared by the TF1 ops (`tf.summary.*`), `tf.contrib.summary` and the TF2 functions. All
protos are tensorboard's (`tensorboard.compat.proto`), so TensorBoard reads what we write.

- histograms (TF1 / contrib): `HistogramProto` with TF's default bucket edges
  (+-1e-12 * 1.1^k up to 1e20, plus 0 and +-DBL_MAX), empty runs collapsed as TF does;
- images (TF1 / contrib): floats normalized per image as TF does, encoded as PNG;
- audio: 16-bit PCM WAV (Python's `wave` writes the header), samples scaled like TF's
  `EncodeWav` (x * 32768, rounded, clipped);
- tensors: `TensorProto` via tensorboard's `make_tensor_proto`.
"""
import io
import re
import sys
import wave

import numpy as np
from tensorboard.compat.proto import histogram_pb2, summary_pb2

from tfcompat.framework import errors

_DBL_MAX = sys.float_info.max
_limits = []


def histogram_limits():
    """TF's default histogram bucket right edges (`histogram.cc`), built the same way."""
    if not _limits:
        positive = []
        value = 1.0e-12
        while value < 1.0e20:
            positive.append(value)
            value *= 1.1
        positive.append(_DBL_MAX)
        _limits.append(np.array([-v for v in reversed(positive)] + [0.0] + positive))
    return _limits[0]


def histogram_proto(values, tag):
    """A `HistogramProto` of `values` (TF's HistogramSummary): non-finite values raise."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.isfinite(values).all():
        raise errors.InvalidArgumentError("Nan in summary histogram for: %s" % tag)
    limits = histogram_limits()
    counts = np.bincount(np.searchsorted(limits, values, side="right"),
                         minlength=len(limits)).astype(np.float64)
    proto = histogram_pb2.HistogramProto(
        min=float(values.min()) if values.size else _DBL_MAX,
        max=float(values.max()) if values.size else -_DBL_MAX,
        num=float(values.size), sum=float(values.sum()),
        sum_squares=float(np.dot(values, values)))
    # Each non-empty bucket is kept; a run of empty buckets becomes one bucket ending where
    # the run ends (TF's EncodeToProto without preserve_zero_buckets).
    nonzero = np.flatnonzero(counts)
    ends = []
    previous = -1
    for index in nonzero:
        if index > previous + 1:
            ends.append(index - 1)
        ends.append(index)
        previous = index
    if previous < len(limits) - 1 and nonzero.size:
        ends.append(len(limits) - 1)
    if not nonzero.size:
        ends = [len(limits) - 1]
    proto.bucket_limit.extend(limits[ends].tolist())
    proto.bucket.extend(counts[ends].tolist())
    return proto


# ---------------------------------------------------------------- images

_RED = np.array([255, 0, 0, 255], dtype=np.uint8)


def _normalize_float_image(image, bad_color):
    """One [h, w, c] float image -> uint8 as TF's ImageSummary normalizes it."""
    image = image.astype(np.float32)
    finite = np.isfinite(image).all(axis=-1)
    good = image[finite]
    low = float(good.min()) if good.size else np.inf
    high = float(good.max()) if good.size else -np.inf
    if low < 0:
        magnitude = max(abs(low), abs(high))
        scale = np.float32(0.0 if magnitude < 1e-6 else 127.0 / magnitude)
        offset = np.float32(128.0)
    else:
        scale = np.float32(0.0 if high < 1e-6 else 255.0 / high)
        offset = np.float32(0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = np.where(finite[..., None], image * scale + offset, 0)
    out = np.clip(scaled, 0, 255).astype(np.uint8)
    out[~finite] = bad_color
    return out


def encode_png(image):
    """A uint8 [h, w, c] array (c = 1, 3 or 4) -> PNG bytes (Pillow, which torchvision
    installs: torchvision's own PNG encoder is deprecated and has no RGBA)."""
    from PIL import Image
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[image.shape[-1]]
    pixels = np.ascontiguousarray(image[..., 0] if mode == "L" else image)
    buffer = io.BytesIO()
    Image.fromarray(pixels, mode).save(buffer, format="PNG")
    return buffer.getvalue()


def _check_images(images, tag):
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise errors.InvalidArgumentError(
            "Tensor must be 4-D with last dim 1, 3, or 4, not %s (tag '%s')"
            % (list(images.shape), tag))


def image_values(tag, images, max_images=3, bad_color=None):
    """TF1 ImageSummary: `Summary.Value`s "tag/image" (max_images == 1) or "tag/image/<i>"."""
    images = np.asarray(images)
    _check_images(images, tag)
    channels = images.shape[-1]
    color = _RED[:channels] if bad_color is None else np.asarray(bad_color, np.uint8)
    if color.shape != (channels,):
        raise errors.InvalidArgumentError(
            "bad_color must be a vector with %d elements (the number of channels), got shape "
            "%s" % (channels, list(color.shape)))
    values = []
    for i in range(min(images.shape[0], max_images)):
        image = images[i]
        if image.dtype != np.uint8:
            image = _normalize_float_image(image, color)
        height, width = image.shape[:2]
        values.append(summary_pb2.Summary.Value(
            tag="%s/image" % tag if max_images == 1 else "%s/image/%d" % (tag, i),
            image=summary_pb2.Summary.Image(
                height=height, width=width, colorspace=channels,
                encoded_image_string=encode_png(image))))
    return values


def float_to_uint8(images):
    """`tf.image.convert_image_dtype(images, tf.uint8, saturate=True)` (TF2 image summaries)."""
    images = np.asarray(images)
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind in "iu":
        raise ValueError("TF2 image summaries take uint8 or float images in [0, 1], got %s"
                         % images.dtype)
    return np.clip(images.astype(np.float32) * np.float32(255.5), 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- audio

def encode_wav(audio, sample_rate):
    """Float samples in [-1, 1], shape [frames, channels] -> 16-bit PCM WAV bytes."""
    samples = np.clip(np.round(np.asarray(audio, np.float32) * 32768.0), -32768, 32767)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as f:
        f.setnchannels(samples.shape[1])
        f.setsampwidth(2)
        f.setframerate(int(sample_rate))
        f.writeframes(samples.astype("<i2").tobytes())
    return buffer.getvalue()


def as_audio_batch(audio, tag):
    """[batch, frames] or [batch, frames, channels] float samples -> 3-D float array."""
    audio = np.asarray(audio, dtype=np.float32)
    if audio.ndim == 2:
        audio = audio[:, :, None]
    if audio.ndim != 3:
        raise errors.InvalidArgumentError(
            "Tensor must be 3-D or 2-D, got: %s (tag '%s')" % (list(audio.shape), tag))
    return audio


def audio_values(tag, audio, sample_rate, max_outputs=3):
    """TF1 AudioSummaryV2: values "tag/audio" (max_outputs == 1) or "tag/audio/<i>"."""
    audio = as_audio_batch(audio, tag)
    if float(sample_rate) <= 0:
        raise errors.InvalidArgumentError("sample_rate must be > 0, got %s" % sample_rate)
    values = []
    for i in range(min(audio.shape[0], max_outputs)):
        values.append(summary_pb2.Summary.Value(
            tag="%s/audio" % tag if max_outputs == 1 else "%s/audio/%d" % (tag, i),
            audio=summary_pb2.Summary.Audio(
                sample_rate=float(sample_rate), num_channels=audio.shape[2],
                length_frames=audio.shape[1], content_type="audio/wav",
                encoded_audio_string=encode_wav(audio[i], sample_rate))))
    return values


# ---------------------------------------------------------------- tensors and scalars

def tensor_proto(value):
    """A numpy value (string tensors: object arrays of bytes) -> `TensorProto`."""
    # imported here: it loads tensorboard's TensorFlow stand-in (fsspec, absl), ~40 ms
    from tensorboard.util import tensor_util
    return tensor_util.make_tensor_proto(value)


def scalar_value(tag, value):
    """TF1 ScalarSummary: `simple_value`; the value must be a scalar."""
    array = np.asarray(value)
    if array.ndim != 0:
        raise errors.InvalidArgumentError(
            "tags and values are not the same shape: [] != %s (tag '%s')"
            % (list(array.shape), tag))
    return summary_pb2.Summary.Value(tag=tag, simple_value=float(array))


_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def clean_tag(name):
    """TF's `summary_op_util.clean_tag`: illegal characters become "_", no leading "/"."""
    if name is None:
        return None
    cleaned = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    if cleaned != name:
        import logging
        logging.getLogger("tensorflow").info(
            "Summary name %s is illegal; using %s instead.", name, cleaned)
    return cleaned


def merge(inputs):
    """TF's MergeSummary: the values of serialized `Summary` protos (string arrays of any
    shape), duplicate tags refused."""
    merged = summary_pb2.Summary()
    seen = set()
    for data in (item for array in inputs
                 for item in np.asarray(array, dtype=object).reshape(-1)):
        part = summary_pb2.Summary()
        try:
            part.ParseFromString(bytes(data))
        except Exception:
            raise errors.InvalidArgumentError("Could not parse one of the summary inputs")
        for value in part.value:
            if value.tag and value.tag in seen:
                raise errors.InvalidArgumentError(
                    "Duplicate tag %s found in summary inputs" % value.tag)
            seen.add(value.tag)
            merged.value.add().CopyFrom(value)
    return merged
