"""TF's `tf.signal.mfccs_from_log_mel_spectrograms`."""
import torch

from tfcompat.framework.ops import op, to_torch
from tfcompat.ops.signal.dct_ops import dct_torch
from tfcompat.ops.signal.fft_ops import real_input


@op("signal.mfccs_from_log_mel_spectrograms", "contrib.signal.mfccs_from_log_mel_spectrograms",
    graph_name="MfccsFromLogMelSpectrograms")
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """`tf.signal.mfccs_from_log_mel_spectrograms`: a type-II DCT of the last dimension
    scaled by rsqrt(2 * num_mel_bins) (TF's: like HTK's and the orthonormal DCT except the
    first coefficient's extra sqrt(2)). Keep the first 13 coefficients for HTK-style MFCCs."""
    t = real_input(to_torch(log_mel_spectrograms), 1)
    num_mel_bins = t.shape[-1]
    if num_mel_bins == 0:
        raise ValueError("num_mel_bins must be positive. Got: %s" % (tuple(t.shape),))
    scale = torch.rsqrt(torch.tensor(num_mel_bins, dtype=t.dtype, device=t.device) * 2.0)
    return dct_torch(t, 2) * scale
