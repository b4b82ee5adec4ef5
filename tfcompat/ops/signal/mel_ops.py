"""TF's `tf.signal.linear_to_mel_weight_matrix`: triangular mel filters on the HTK mel scale
(mel = 1127 ln(1 + hz / 700)), built in the requested dtype in TF's order of operations."""
import torch

from tfcompat.framework import context, dtypes
from tfcompat.framework.ops import is_tensor_value, op, run_impl, to_torch
from tfcompat.ops.array_ops import _as_int, linspace

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(frequencies_hertz):
    return _MEL_HIGH_FREQUENCY_Q * torch.log(1.0 + frequencies_hertz / _MEL_BREAK_FREQUENCY_HERTZ)


def _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype):
    """TF's argument checks and ValueErrors (sample rate checks only for a Python value)."""
    if num_mel_bins <= 0:
        raise ValueError("num_mel_bins must be positive. Got: %s" % num_mel_bins)
    if lower_edge_hertz < 0.0:
        raise ValueError("lower_edge_hertz must be non-negative. Got: %s" % lower_edge_hertz)
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError("lower_edge_hertz %.1f >= upper_edge_hertz %.1f"
                         % (lower_edge_hertz, upper_edge_hertz))
    if not is_tensor_value(sample_rate):
        if sample_rate <= 0.0:
            raise ValueError("sample_rate must be positive. Got: %s" % sample_rate)
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency "
                             "(sample_rate / 2). Got %s for sample_rate: %s"
                             % (upper_edge_hertz, sample_rate))
    if not dtype.is_floating:
        raise ValueError("dtype must be a floating point type. Got: %s" % dtype)


@op("signal.linear_to_mel_weight_matrix", "contrib.signal.linear_to_mel_weight_matrix",
    graph_name="LinearToMelWeightMatrix")
def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=dtypes.float32, name=None):
    """`tf.signal.linear_to_mel_weight_matrix`: a [num_spectrogram_bins, num_mel_bins] matrix
    mapping linear spectrogram bins (0 Hz .. sample_rate / 2) to mel bands whose triangles
    span `lower_edge_hertz`..`upper_edge_hertz`. As TF, the DC bin's row is all zeros."""
    dtype = dtypes.as_dtype(dtype)
    num_mel_bins, num_spectrogram_bins = _as_int(num_mel_bins), _as_int(num_spectrogram_bins)
    _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype)
    device = context.current_device()
    real = dtype.torch_dtype
    sample_rate = torch.as_tensor(to_torch(sample_rate), device=device).to(real)
    zero = torch.zeros((), dtype=real, device=device)
    edges_hertz = torch.tensor([lower_edge_hertz, upper_edge_hertz], dtype=real, device=device)
    linear_frequencies = run_impl(linspace, zero, sample_rate / 2.0, num_spectrogram_bins)[1:]
    spectrogram_bins_mel = _hertz_to_mel(linear_frequencies).unsqueeze(1)
    edges_mel = _hertz_to_mel(edges_hertz)
    band_edges_mel = run_impl(linspace, edges_mel[0], edges_mel[1], num_mel_bins + 2)
    lower_edge_mel = band_edges_mel[:-2].unsqueeze(0)
    center_mel = band_edges_mel[1:-1].unsqueeze(0)
    upper_edge_mel = band_edges_mel[2:].unsqueeze(0)
    lower_slopes = (spectrogram_bins_mel - lower_edge_mel) / (center_mel - lower_edge_mel)
    upper_slopes = (upper_edge_mel - spectrogram_bins_mel) / (upper_edge_mel - center_mel)
    weights = torch.maximum(zero, torch.minimum(lower_slopes, upper_slopes))
    return torch.nn.functional.pad(weights, (0, 0, 1, 0))
