"""tf.signal (and TF1's tf.spectral / tf.fft names) against real TensorFlow's values.

tests/fixtures/signal/expected.npz holds each case's inputs and TF 2.21's output, written by
tests/fixtures/signal/make_fixtures.py; CASES below repeats its calls by case name. Each case
runs eagerly and in a TF1 graph fed through placeholders of unknown first dimension.
fftnd and its siblings have no CPU kernel in TF: they are checked against numpy.
"""
import os

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

S = tf.signal
v1 = tf.compat.v1
FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "signal", "expected.npz")
with np.load(FIXTURE, allow_pickle=False) as _npz:
    EXPECTED = dict(_npz.items())

CASES = {
    "fft_c64": (S.fft, {}),
    "fft_c128": (S.fft, {}),
    "ifft_c64": (S.ifft, {}),
    "fft2d": (S.fft2d, {}),
    "ifft2d": (S.ifft2d, {}),
    "fft3d": (S.fft3d, {}),
    "ifft3d": (S.ifft3d, {}),
    "rfft_odd": (S.rfft, {}),
    "rfft_pad": (S.rfft, dict(fft_length=[10])),
    "rfft_crop": (S.rfft, dict(fft_length=[4])),
    "rfft_f64": (S.rfft, {}),
    "irfft": (S.irfft, {}),
    "irfft_odd": (S.irfft, dict(fft_length=[9])),
    "irfft_crop": (S.irfft, dict(fft_length=[6])),
    "irfft_pad": (S.irfft, dict(fft_length=[10])),
    "rfft2d": (S.rfft2d, dict(fft_length=[4, 6])),
    "irfft2d": (S.irfft2d, dict(fft_length=[3, 5])),
    "rfft3d": (S.rfft3d, {}),
    "irfft3d": (S.irfft3d, {}),
    "fftshift": (S.fftshift, {}),
    "fftshift_axis": (S.fftshift, dict(axes=1)),
    "ifftshift": (S.ifftshift, {}),
    "ifftshift_axes": (S.ifftshift, dict(axes=[0, -1])),
    "frame": (S.frame, dict(frame_length=4, frame_step=3)),
    "frame_pad_end": (S.frame, dict(frame_length=4, frame_step=3, pad_end=True,
                                    pad_value=1.5)),
    "frame_axis0": (S.frame, dict(frame_length=5, frame_step=2, axis=0)),
    "frame_axis_mid": (S.frame, dict(frame_length=3, frame_step=3, axis=-2, pad_end=True)),
    "frame_short": (S.frame, dict(frame_length=5, frame_step=2)),
    "frame_int": (S.frame, dict(frame_length=4, frame_step=2)),
    "overlap_and_add": (S.overlap_and_add, dict(frame_step=2)),
    "overlap_and_add_same": (S.overlap_and_add, dict(frame_step=3)),
    "overlap_and_add_gap": (S.overlap_and_add, dict(frame_step=5)),
    "hann_7": (S.hann_window, dict(window_length=7)),
    "hann_8": (S.hann_window, dict(window_length=8)),
    "hann_8_symmetric": (S.hann_window, dict(window_length=8, periodic=False)),
    "hann_1": (S.hann_window, dict(window_length=1)),
    "hamming_9_f64": (S.hamming_window, dict(window_length=9, dtype=tf.float64)),
    "hamming_6_symmetric": (S.hamming_window, dict(window_length=6, periodic=False)),
    "kaiser_7": (S.kaiser_window, dict(window_length=7)),
    "kaiser_8_beta5": (S.kaiser_window, dict(window_length=8, beta=5.0)),
    "kaiser_1": (S.kaiser_window, dict(window_length=1)),
    "kbd_8": (S.kaiser_bessel_derived_window, dict(window_length=8)),
    "kbd_10_f64": (S.kaiser_bessel_derived_window,
                   dict(window_length=10, beta=4.0, dtype=tf.float64)),
    "vorbis_7": (S.vorbis_window, dict(window_length=7)),
    "vorbis_8": (S.vorbis_window, dict(window_length=8)),
    "stft": (S.stft, dict(frame_length=256, frame_step=128)),
    "stft_pad_end": (S.stft, dict(frame_length=200, frame_step=80, pad_end=True)),
    "stft_no_window": (S.stft, dict(frame_length=101, frame_step=50, fft_length=128,
                                    window_fn=None)),
    "stft_hamming_f64": (S.stft, dict(frame_length=64, frame_step=20, fft_length=50,
                                      window_fn=S.hamming_window)),
    "inverse_stft": (S.inverse_stft, dict(frame_length=256, frame_step=64,
                                          window_fn=S.inverse_stft_window_fn(64))),
    "inverse_stft_pad": (S.inverse_stft, dict(frame_length=80, frame_step=30, fft_length=64)),
    "inverse_stft_crop": (S.inverse_stft, dict(frame_length=100, frame_step=40,
                                               fft_length=128, window_fn=None)),
    "inverse_stft_window_fn": (lambda: S.inverse_stft_window_fn(80)(200, tf.float32), {}),
    "mel_default": (S.linear_to_mel_weight_matrix, {}),
    "mel_16k": (S.linear_to_mel_weight_matrix, dict(
        num_mel_bins=40, num_spectrogram_bins=257, sample_rate=16000,
        lower_edge_hertz=20.0, upper_edge_hertz=7600.0)),
    "mel_f64": (S.linear_to_mel_weight_matrix, dict(
        num_mel_bins=10, num_spectrogram_bins=65, sample_rate=22050.0,
        lower_edge_hertz=0.0, upper_edge_hertz=11025.0, dtype=tf.float64)),
    "mfccs": (S.mfccs_from_log_mel_spectrograms, {}),
    "mfccs_f64": (S.mfccs_from_log_mel_spectrograms, {}),
    "mdct": (S.mdct, dict(frame_length=16)),
    "mdct_ortho_pad": (S.mdct, dict(frame_length=8, pad_end=True, norm="ortho",
                                    window_fn=None)),
    "inverse_mdct": (S.inverse_mdct, {}),
    "inverse_mdct_ortho": (S.inverse_mdct, dict(norm="ortho")),
    "dct2_n_pad": (S.dct, dict(n=8)),
    "dct2_n_crop": (S.dct, dict(n=4, norm="ortho")),
}
for _kind in (1, 2, 3, 4):
    CASES["dct%d" % _kind] = (S.dct, dict(type=_kind))
    CASES["idct%d_f64" % _kind] = (S.idct, dict(type=_kind))
    if _kind != 1:
        CASES["dct%d_ortho" % _kind] = (S.dct, dict(type=_kind, norm="ortho"))
        CASES["idct%d_ortho" % _kind] = (S.idct, dict(type=_kind, norm="ortho"))


def inputs(case):
    found = []
    while "%s/in%d" % (case, len(found)) in EXPECTED:
        found.append(EXPECTED["%s/in%d" % (case, len(found))])
    return found


def assert_tf_close(actual, expected):
    """float32/complex64 to 1e-5 relative (atol 1e-5 of the largest magnitude, for values
    that cancel to ~0), float64/complex128 to 1e-10."""
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    single = expected.dtype in (np.float32, np.complex64)
    rtol = 1e-5 if single else 1e-10
    scale = max(float(np.abs(expected).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("case", sorted(CASES))
def test_eager_matches_tensorflow(case):
    fn, kwargs = CASES[case]
    result = fn(*map(tf.constant, inputs(case)), **kwargs)
    assert_tf_close(result.numpy(), EXPECTED[case + "/out"])


@pytest.mark.parametrize("case", sorted(c for c in CASES if inputs(c)))
def test_graph_matches_tensorflow(case):
    """A TF1 graph whose inputs are placeholders with an unknown first dimension."""
    fn, kwargs = CASES[case]
    values = inputs(case)
    with tf.Graph().as_default():
        feeds = [v1.placeholder(tf.as_dtype(v.dtype), (None,) + v.shape[1:]) for v in values]
        out = fn(*feeds, **kwargs)
        expected = EXPECTED[case + "/out"]
        assert out.shape.as_list()[1:] == list(expected.shape[1:])
        with v1.Session() as sess:
            result = sess.run(out, dict(zip(feeds, values)))
    assert_tf_close(result, expected)


def test_stft_inside_tf_function():
    signal = EXPECTED["stft/in0"]
    compute = tf.function(lambda x: S.stft(x, 256, 128))
    assert_tf_close(compute(tf.constant(signal)).numpy(), EXPECTED["stft/out"])


def test_log_mel_mfcc_pipeline():
    """TF's documented recipe: |stft| -> mel matrix -> log -> mfccs, to 1e-4 of TF's."""
    stfts = S.stft(EXPECTED["pipeline/in0"], frame_length=400, frame_step=160, fft_length=512)
    mel = tf.tensordot(tf.abs(stfts), S.linear_to_mel_weight_matrix(
        80, 257, 16000, 80.0, 7600.0), 1)
    mfccs = S.mfccs_from_log_mel_spectrograms(tf.math.log(mel + 1e-6))
    np.testing.assert_allclose(mfccs.numpy(), EXPECTED["pipeline/out"], rtol=1e-4, atol=1e-4)


def test_stft_gradient_of_a_variable():
    x = tf.Variable(EXPECTED["stft_grad/in0"])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.abs(S.stft(x, 32, 16, pad_end=True)))
    assert_tf_close(tape.gradient(loss, x).numpy(), EXPECTED["stft_grad/out"])


def test_stft_gradient_in_a_tf1_graph():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float64, [None, 120])
        loss = tf.reduce_sum(tf.abs(S.stft(x, 32, 16, pad_end=True)))
        gradient, = tf.gradients(loss, [x])
        with v1.Session() as sess:
            result = sess.run(gradient, {x: EXPECTED["stft_grad/in0"]})
    assert_tf_close(result, EXPECTED["stft_grad/out"])


def test_inverse_stft_gradient_of_a_complex_variable():
    z = tf.Variable(EXPECTED["inverse_stft_grad/in0"])
    weights = EXPECTED["inverse_stft_grad/in1"]
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(S.inverse_stft(z, 32, 16) * weights)
    assert_tf_close(tape.gradient(loss, z).numpy(), EXPECTED["inverse_stft_grad/out"])


def test_stft_round_trip_with_inverse_window():
    signal = EXPECTED["stft/in0"].astype(np.float64)
    stfts = S.stft(signal, 256, 64)
    rebuilt = S.inverse_stft(stfts, 256, 64, window_fn=S.inverse_stft_window_fn(64))
    # 12 frames cover samples 0..959; those under 4 overlapping frames come back exactly
    np.testing.assert_allclose(rebuilt.numpy()[:, 192:768], signal[:, 192:768], atol=1e-10)


def test_tf1_graph_stft_with_unknown_batch_and_length():
    with tf.Graph().as_default():
        signals = v1.placeholder(tf.float32, [None, None])
        spectrogram = tf.abs(v1.spectral.rfft(S.frame(signals, 256, 128) *
                                              S.hann_window(256), [256]))
        assert spectrogram.shape.as_list() == [None, None, 129]
        with v1.Session() as sess:
            result = sess.run(spectrogram, {signals: EXPECTED["stft/in0"]})
    np.testing.assert_allclose(result, np.abs(EXPECTED["stft/out"]), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("name, numpy_fn, value, kwargs", [
    ("fftnd", np.fft.fftn, np.arange(12).reshape(3, 4) * (1 + 0.5j), {}),
    ("ifftnd", np.fft.ifftn, np.arange(12).reshape(3, 4) * (1 - 0.5j), dict(norm="ortho")),
    ("fftnd", np.fft.fftn, np.arange(24).reshape(2, 3, 4) * 1j,
     dict(fft_length=[3, 6], axes=[1, 2])),
    ("rfftnd", np.fft.rfftn, np.arange(15.0).reshape(3, 5) ** 2, {}),
    ("irfftnd", np.fft.irfftn, np.arange(15).reshape(3, 5) * (1 + 1j), dict(norm="forward")),
])
def test_nd_transforms_match_numpy(name, numpy_fn, value, kwargs):
    numpy_kwargs = dict(s=kwargs.get("fft_length"), axes=kwargs.get("axes"),
                        norm=kwargs.get("norm"))
    for fn in (getattr(S, name), getattr(tf, name)):
        result = fn(tf.constant(value), **kwargs)
        np.testing.assert_allclose(result.numpy(), numpy_fn(value, **numpy_kwargs),
                                   rtol=1e-12, atol=1e-9)


def test_tf1_names():
    """TF 1.x's tf.spectral, tf.contrib.signal and top-level tf.fft names are the
    tf.signal functions."""
    assert v1.fft is S.fft and v1.ifft3d is S.ifft3d
    assert v1.spectral.rfft is S.rfft and v1.spectral.dct is S.dct
    assert v1.contrib.signal.stft is S.stft and v1.contrib.signal.frame is S.frame
    assert "spectral" not in dir(tf.compat.v2)
    value = np.array([1 + 1j, 2, 3 - 1j], np.complex64)
    np.testing.assert_allclose(v1.fft(value).numpy(), np.fft.fft(value), rtol=1e-6)


def test_python_values_take_tf_default_dtypes():
    assert S.fft([1.0, 2.0]).dtype == tf.complex64
    assert S.rfft([1, 2, 3]).dtype == tf.complex64
    assert S.rfft(np.full(4, 0.1)).dtype == tf.complex64   # numpy float64 too, as TF
    assert S.dct(np.full(4, 0.1)).dtype == tf.float64
    np.testing.assert_array_equal(S.fftshift(tf.constant([[1, 2, 3], [4, 5, 6]])).numpy(),
                                  [[6, 4, 5], [3, 1, 2]])
    # irfft ignores the imaginary parts of the DC and Nyquist bins, as TF
    np.testing.assert_allclose(S.irfft(tf.constant([[1 + 1j, 2 + 3j]])).numpy(), [[1.5, -0.5]])
    np.testing.assert_allclose(S.irfft(tf.constant([[1 + 1j, 2 + 3j, 1 + 2j]]), [4]).numpy(),
                               [[1.5, -1.5, -0.5, 1.5]])
    assert S.frame(tf.zeros([2, 0]), 3, 1, pad_end=True).shape == (2, 0, 3)
    np.testing.assert_allclose(S.kaiser_window(2).numpy(), [5.2773448e-05] * 2, rtol=1e-5)


@pytest.mark.parametrize("call, error, message", [
    (lambda: S.fft(tf.constant([1.0, 2.0])), errors.InvalidArgumentError, "Tcomplex"),
    (lambda: S.fft(tf.constant(1j)), errors.InvalidArgumentError, "rank of at least 1"),
    (lambda: S.rfft(tf.constant([1j])), ValueError, "RFFT requires tf.float32"),
    (lambda: S.irfft(tf.constant([1.0, 2.0])), ValueError, "IRFFT requires tf.complex64"),
    (lambda: S.hann_window(4, dtype=tf.int32), ValueError, "floating point"),
    (lambda: S.stft(tf.ones([10], tf.int32), 4, 2), ValueError, "floating point"),
    (lambda: S.dct([1.0, 2.0], type=5), ValueError, "Types I, II, III and IV"),
    (lambda: S.dct([1.0, 2.0], axis=0), NotImplementedError, "axis must be -1"),
    (lambda: S.dct(tf.ones([2, 3]), type=1, norm="ortho"), ValueError, "Type-I"),
    (lambda: S.frame(tf.constant(1.0), 2, 1), ValueError, "rank at least 1"),
    (lambda: S.overlap_and_add(tf.ones([2, 3]), 1.5), ValueError, "must be an integer"),
    (lambda: S.overlap_and_add(tf.ones([3]), 1), ValueError, "rank at least 2"),
    (lambda: S.overlap_and_add(tf.ones([2, 3]), 0), errors.InvalidArgumentError,
     "OverlapAndAdd: frame_step must be positive"),
    (lambda: S.frame(tf.ones([5]), 2, 0), errors.InvalidArgumentError, "must be positive"),
    (lambda: S.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0), ValueError, "Nyquist"),
    (lambda: S.linear_to_mel_weight_matrix(num_mel_bins=0), ValueError, "num_mel_bins"),
    (lambda: S.mdct(tf.ones([20]), 10), ValueError, "multiple of 4"),
])
def test_bad_input_raises_tf_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
