"""tfcompat.ops.signal: TF's `tf.signal` (and TF1's `tf.spectral`) on `torch.fft`."""
from tfcompat.ops.signal import (  # noqa: F401
    dct_ops, fft_ops, mel_ops, mfcc_ops, reconstruction_ops, shape_ops, spectral_ops, window_ops)
