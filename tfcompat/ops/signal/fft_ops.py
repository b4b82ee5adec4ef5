"""TF's FFT ops (`tf.signal.fft` ... `irfft3d`, `fftnd`, `fftshift`) on `torch.fft`.

As TF: `fft*`/`ifft*` take complex64/complex128 (Python values become complex64); `rfft*`
take float32/float64 and give complex64/complex128; `fft_length` zero-pads or crops the
innermost dimensions (for `irfft*` the last one to `fft_length // 2 + 1` bins), and the
imaginary parts of an `irfft` input's DC and Nyquist bins are ignored. Gradients are
torch's, which equal TF's registered ones. TF has only GPU kernels for `fftnd` and its
siblings; these run on any device here, with numpy's `s`/`axes` meaning for
`fft_length`/`axes` (each length pads or crops its own axis).
"""
import numpy as np
import torch

from tfcompat.framework import dtypes, errors
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import is_tensor_value, op, to_torch
from tfcompat.ops.array_ops import _as_ints, _axis

_REAL_DTYPES = (torch.float32, torch.float64)


def _preferring(value, preferred_dtype):
    """`value` as TF's convert_to_tensor(value, preferred_dtype=...) gives it: tensors keep
    their dtype, other values (numpy arrays included) take `preferred_dtype` if they can."""
    if is_tensor_value(value) or isinstance(value, torch.Tensor):
        return to_torch(value)
    try:
        return to_torch(value, preferred_dtype)
    except (TypeError, ValueError):
        return to_torch(value)


def _complex_input(value, rank):
    """A generated FFT op's input: tensors and complex numpy arrays keep their dtype, other
    values become complex64; a real tensor is rejected as TF's kernel rejects it."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "c":
        t = to_torch(value)
    else:
        t = _preferring(value, dtypes.complex64)
    if not t.is_complex():
        raise errors.InvalidArgumentError(
            "Value for attr 'Tcomplex' of %s is not in the list of allowed values: complex64, "
            "complex128 [Op:{op}]" % dtypes.from_torch(t.dtype).name)
    if t.ndim < rank:
        raise errors.InvalidArgumentError("Input must have rank of at least %d but got: %s "
                                          "[Op:{op}]" % (rank, format_shape(t.shape)))
    return t


def real_input(t, rank):
    """`t` (a torch tensor) checked as TF's rfft checks its input: float32/float64 of rank
    >= `rank` (ValueErrors otherwise)."""
    if t.dtype not in _REAL_DTYPES:
        raise ValueError("RFFT requires tf.float32 or tf.float64 inputs, got: %s"
                         % dtypes.from_torch(t.dtype).name)
    _check_rank(t, rank)
    return t


def _check_rank(t, rank):
    if t.ndim < rank:
        raise ValueError("Shape %s must have rank at least %d"
                         % (format_shape(t.shape), rank))


def _lengths(fft_length, rank):
    """`fft_length` (None, a list or a 1-D int tensor) as a list of `rank` ints, or None."""
    if fft_length is None:
        return None
    lengths = _as_ints(fft_length)
    if len(lengths) != rank:
        raise errors.InvalidArgumentError("fft_length must be a length %d vector, got %d "
                                          "elements [Op:{op}]" % (rank, len(lengths)))
    return lengths


def _c2c(input, rank, inverse):  # noqa: A002 - TF's name
    t = _complex_input(input, rank)
    dims = tuple(range(-rank, 0))
    return torch.fft.ifftn(t, dim=dims) if inverse else torch.fft.fftn(t, dim=dims)


@op("signal.fft", v1=["signal.fft", "spectral.fft", "fft"], graph_name="FFT")
def fft(input, name=None):  # noqa: A002 - TF's name
    """`tf.signal.fft`: the 1-D discrete Fourier transform of the innermost dimension."""
    return _c2c(input, 1, inverse=False)


@op("signal.ifft", v1=["signal.ifft", "spectral.ifft", "ifft"], graph_name="IFFT")
def ifft(input, name=None):  # noqa: A002 - TF's name
    """`tf.signal.ifft`: the inverse of `fft` (scaled by 1/n)."""
    return _c2c(input, 1, inverse=True)


@op("signal.fft2d", v1=["signal.fft2d", "spectral.fft2d", "fft2d"], graph_name="FFT2D")
def fft2d(input, name=None):  # noqa: A002 - TF's name
    """`tf.signal.fft2d`: the 2-D DFT of the two innermost dimensions."""
    return _c2c(input, 2, inverse=False)


@op("signal.ifft2d", v1=["signal.ifft2d", "spectral.ifft2d", "ifft2d"], graph_name="IFFT2D")
def ifft2d(input, name=None):  # noqa: A002 - TF's name
    """`tf.signal.ifft2d`: the inverse of `fft2d`."""
    return _c2c(input, 2, inverse=True)


@op("signal.fft3d", v1=["signal.fft3d", "spectral.fft3d", "fft3d"], graph_name="FFT3D")
def fft3d(input, name=None):  # noqa: A002 - TF's name
    """`tf.signal.fft3d`: the 3-D DFT of the three innermost dimensions."""
    return _c2c(input, 3, inverse=False)


@op("signal.ifft3d", v1=["signal.ifft3d", "spectral.ifft3d", "ifft3d"], graph_name="IFFT3D")
def ifft3d(input, name=None):  # noqa: A002 - TF's name
    """`tf.signal.ifft3d`: the inverse of `fft3d`."""
    return _c2c(input, 3, inverse=True)


def real_fft(t, rank, fft_length=None):
    """TF's RFFT of a real torch tensor over its `rank` innermost dimensions."""
    return torch.fft.rfftn(t, s=fft_length, dim=tuple(range(-rank, 0)))


def inverse_real_fft(t, rank, fft_length=None):
    """TF's IRFFT of a complex torch tensor over its `rank` innermost dimensions."""
    return torch.fft.irfftn(t, s=fft_length, dim=tuple(range(-rank, 0)))


def _rfft(input_tensor, fft_length, rank):
    t = real_input(_preferring(input_tensor, dtypes.float32), rank)
    return real_fft(t, rank, _lengths(fft_length, rank))


def _irfft(input_tensor, fft_length, rank):
    t = _preferring(input_tensor, dtypes.complex64)
    _check_rank(t, rank)
    if not t.is_complex():
        raise ValueError("IRFFT requires tf.complex64 or tf.complex128 inputs, got: %s"
                         % dtypes.from_torch(t.dtype).name)
    return inverse_real_fft(t, rank, _lengths(fft_length, rank))


@op("signal.rfft", v1=["signal.rfft", "spectral.rfft"], graph_name="RFFT")
def rfft(input_tensor, fft_length=None, name=None):
    """`tf.signal.rfft`: the DFT of a real signal, `fft_length // 2 + 1` unique bins."""
    return _rfft(input_tensor, fft_length, 1)


@op("signal.irfft", v1=["signal.irfft", "spectral.irfft"], graph_name="IRFFT")
def irfft(input_tensor, fft_length=None, name=None):
    """`tf.signal.irfft`: the real signal of `fft_length` (default 2 * (bins - 1)) samples."""
    return _irfft(input_tensor, fft_length, 1)


@op("signal.rfft2d", v1=["signal.rfft2d", "spectral.rfft2d"], graph_name="RFFT2D")
def rfft2d(input_tensor, fft_length=None, name=None):
    """`tf.signal.rfft2d`: the 2-D DFT of a real signal (the last dimension halved)."""
    return _rfft(input_tensor, fft_length, 2)


@op("signal.irfft2d", v1=["signal.irfft2d", "spectral.irfft2d"], graph_name="IRFFT2D")
def irfft2d(input_tensor, fft_length=None, name=None):
    """`tf.signal.irfft2d`: the inverse of `rfft2d`."""
    return _irfft(input_tensor, fft_length, 2)


@op("signal.rfft3d", v1=["signal.rfft3d", "spectral.rfft3d"], graph_name="RFFT3D")
def rfft3d(input_tensor, fft_length=None, name=None):
    """`tf.signal.rfft3d`: the 3-D DFT of a real signal (the last dimension halved)."""
    return _rfft(input_tensor, fft_length, 3)


@op("signal.irfft3d", v1=["signal.irfft3d", "spectral.irfft3d"], graph_name="IRFFT3D")
def irfft3d(input_tensor, fft_length=None, name=None):
    """`tf.signal.irfft3d`: the inverse of `rfft3d`."""
    return _irfft(input_tensor, fft_length, 3)


def _nd_arguments(t, fft_length, axes, norm):
    """(s, dim, norm) for torch.fft's n-D transforms from TF's fft_length/axes/norm: all
    axes by default; norm None is "backward"."""
    dims = tuple(range(t.ndim)) if axes is None else tuple(_axis(a, t.ndim) for a in
                                                             _as_ints(axes))
    if norm not in (None, "backward", "forward", "ortho"):
        raise ValueError('norm must be None, "backward", "forward" or "ortho", got %r'
                         % (norm,))
    return _lengths(fft_length, len(dims)), dims, norm or "backward"


def _fftnd(input_tensor, fft_length, axes, norm, torch_fn):
    t = _complex_input(input_tensor, 0)
    s, dims, norm = _nd_arguments(t, fft_length, axes, norm)
    return torch_fn(t, s=s, dim=dims, norm=norm)


@op("signal.fftnd", "fftnd", graph_name="FFTND")
def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """`tf.signal.fftnd`: the N-D DFT over `axes` (default all), sizes `fft_length`."""
    return _fftnd(input_tensor, fft_length, axes, norm, torch.fft.fftn)


@op("signal.ifftnd", "ifftnd", graph_name="IFFTND")
def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """`tf.signal.ifftnd`: the inverse of `fftnd`."""
    return _fftnd(input_tensor, fft_length, axes, norm, torch.fft.ifftn)


@op("signal.rfftnd", "rfftnd", graph_name="RFFTND")
def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """`tf.signal.rfftnd`: the N-D DFT of a real signal (the last of `axes` halved)."""
    t = real_input(_preferring(input_tensor, dtypes.float32), 0)
    s, dims, norm = _nd_arguments(t, fft_length, axes, norm)
    return torch.fft.rfftn(t, s=s, dim=dims, norm=norm)


@op("signal.irfftnd", "irfftnd", graph_name="IRFFTND")
def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """`tf.signal.irfftnd`: the inverse of `rfftnd`."""
    t = _preferring(input_tensor, dtypes.complex64)
    if not t.is_complex():
        raise ValueError("IRFFT requires tf.complex64 or tf.complex128 inputs, got: %s"
                         % dtypes.from_torch(t.dtype).name)
    s, dims, norm = _nd_arguments(t, fft_length, axes, norm)
    return torch.fft.irfftn(t, s=s, dim=dims, norm=norm)


def _shift(x, axes, sign):
    t = to_torch(x)
    dims = tuple(range(t.ndim)) if axes is None else tuple(_axis(a, t.ndim)
                                                          for a in _as_ints(axes))
    if not dims:
        return t.clone()
    return torch.roll(t, [sign * (t.shape[d] // 2) for d in dims], dims)


@op("signal.fftshift", graph_name="FftShift")
def fftshift(x, axes=None, name=None):
    """`tf.signal.fftshift`: rolls the zero-frequency bin to the centre of `axes` (all)."""
    return _shift(x, axes, 1)


@op("signal.ifftshift", graph_name="IfftShift")
def ifftshift(x, axes=None, name=None):
    """`tf.signal.ifftshift`: the inverse of `fftshift`."""
    return _shift(x, axes, -1)
