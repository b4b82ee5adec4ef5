"""tf.image ops and image codecs (vs numpy / hand-computed values)."""
import numpy as np
import pytest

import tfcompat as tf
import tfcompat.io  # noqa: F401 - until tfcompat/__init__ lists the modules
import tfcompat.ops.image_ops  # noqa: F401
from tfcompat import _api
from tfcompat.framework import errors

_api.build_namespaces("tfcompat")
IMG = np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3)


def test_png_roundtrip_and_jpeg_shape():
    png = tf.image.encode_png(IMG)
    assert png.dtype == tf.string
    assert np.array_equal(tf.image.decode_png(png).numpy(), IMG)
    assert tf.io.decode_image(png, channels=1).shape.as_list() == [4, 6, 1]
    assert tf.io.decode_jpeg(tf.image.encode_jpeg(IMG)).shape.as_list() == [4, 6, 3]
    with pytest.raises(errors.InvalidArgumentError):
        tf.io.decode_jpeg(b"not an image")


def test_flips_crops_pads():
    assert np.array_equal(tf.image.flip_left_right(IMG).numpy(), IMG[:, ::-1])
    assert np.array_equal(tf.image.flip_up_down(IMG).numpy(), IMG[::-1])
    assert np.array_equal(tf.image.transpose(IMG).numpy(), IMG.transpose(1, 0, 2))
    assert np.array_equal(tf.image.rot90(IMG).numpy(), np.rot90(IMG))
    assert np.array_equal(tf.image.crop_to_bounding_box(IMG, 1, 2, 2, 3).numpy(),
                          IMG[1:3, 2:5])
    padded = tf.image.pad_to_bounding_box(IMG, 1, 1, 6, 8).numpy()
    assert padded.shape == (6, 8, 3) and np.array_equal(padded[1:5, 1:7], IMG)
    assert np.array_equal(tf.image.resize_with_crop_or_pad(IMG, 2, 4).numpy(), IMG[1:3, 1:5])
    assert np.array_equal(tf.image.central_crop(IMG, 0.5).numpy(), IMG[1:3, 1:5])
    assert tf.image.random_crop(IMG, [2, 2, 3], seed=1).shape.as_list() == [2, 2, 3]
    flipped = tf.image.random_flip_left_right(IMG).numpy()
    assert np.array_equal(flipped, IMG) or np.array_equal(flipped, IMG[:, ::-1])


def test_resize_methods():
    x = np.array([[[0.0], [2.0]], [[4.0], [6.0]]], np.float32)
    up = tf.image.resize_images(x, [4, 4]).numpy()[..., 0]
    # TF1's legacy sampling (no half-pixel centers): output j reads input j * 2 / 4, as real
    # TF 1.15 / tf.compat.v1 computes it
    assert up.tolist() == [[0.0, 1.0, 2.0, 2.0], [2.0, 3.0, 4.0, 4.0], [4.0, 5.0, 6.0, 6.0],
                           [4.0, 5.0, 6.0, 6.0]]
    half = tf.compat.v1.image.resize_bilinear(x[None], [4, 4], half_pixel_centers=True)
    assert np.allclose(half.numpy()[0, 0, :2, 0], [0.0, 0.5])
    near = tf.image.resize_images(IMG, [8, 12], tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    assert near.dtype == tf.uint8 and np.array_equal(near.numpy()[::2, ::2], IMG)
    area = tf.image.resize_images(x, [1, 1], method=3).numpy()
    assert area.reshape(-1).tolist() == [3.0]


def test_dtype_and_color_ops():
    f = tf.image.convert_image_dtype(IMG, tf.float32).numpy()
    assert np.allclose(f, IMG / 255.0)
    back = tf.image.convert_image_dtype(tf.constant(f), tf.uint8).numpy()
    assert np.array_equal(back, IMG)
    std = tf.image.per_image_standardization(IMG).numpy()
    assert abs(std.mean()) < 1e-5 and abs(std.std() - 1) < 1e-4
    rgb = np.random.RandomState(0).rand(3, 5, 3).astype(np.float32)
    assert np.allclose(tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(rgb)).numpy(), rgb, atol=1e-5)
    assert np.allclose(tf.image.adjust_brightness(rgb, 0.1).numpy(), rgb + 0.1)
    c = tf.image.adjust_contrast(rgb, 2.0).numpy()
    m = rgb.mean(axis=(0, 1))
    assert np.allclose(c, (rgb - m) * 2 + m, atol=1e-6)
    gray = tf.image.adjust_saturation(rgb, 0.0).numpy()
    assert np.allclose(gray[..., 0], gray[..., 1], atol=1e-6)
    assert np.allclose(tf.image.adjust_hue(rgb, 0.0).numpy(), rgb, atol=1e-5)
    assert tf.image.rgb_to_grayscale(IMG).shape.as_list() == [4, 6, 1]
    assert tf.image.grayscale_to_rgb(tf.image.rgb_to_grayscale(rgb)).shape.as_list() == \
        [3, 5, 3]
    assert np.allclose(tf.image.adjust_gamma(rgb, 2.0).numpy(), rgb ** 2)
    r = tf.image.random_brightness(rgb, 0.2, seed=3).numpy() - rgb
    assert abs(r.max() - r.min()) < 1e-6 and abs(r.max()) <= 0.2


def test_bicubic_resizes_match_tf():
    """Values real TF gives (tf.image.resize bicubic: Keys a=-0.5 with renormalized edges;
    TF1 resize_bicubic's legacy kernel: a=-0.75, in = out * scale, clamped taps)."""
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    legacy = tf.compat.v1.image.resize_bicubic(x, [2, 2]).numpy().reshape(-1)
    np.testing.assert_allclose(legacy, [0.0, 2.0, 8.0, 10.0], atol=1e-5)
    up = tf.compat.v2.image.resize(np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1), [3, 3],
                                   method="bicubic").numpy().reshape(-1)
    half = tf.compat.v1.image.resize_bicubic(np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1),
                                             [3, 3], half_pixel_centers=True).numpy().reshape(-1)
    np.testing.assert_allclose(up, half, atol=1e-6)
    np.testing.assert_allclose(up, [-0.1976665, 0.3682223, 0.9341110, 0.9341111, 1.5,
                                    2.0658886, 2.0658886, 2.6317773, 3.1976659], atol=1e-5)


def test_resize_to_a_size_fed_at_run_time_in_a_tf1_graph():
    """`tf.image.resize_images(x, tf.shape(y)[1:3])` (FCN / U-Net skip connections): the
    size is a graph tensor, known or only known when the graph runs."""
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 8, 8, 3])
        known = tf.compat.v1.placeholder(tf.float32, [None, 4, 4, 3])
        unknown = tf.compat.v1.placeholder(tf.float32, [None, None, None, 3])
        to_known = tf.compat.v1.image.resize_images(x, tf.shape(known)[1:3])
        to_unknown = tf.compat.v1.image.resize_bilinear(x, tf.shape(unknown)[1:3])
        assert to_known.shape.as_list() == [None, 4, 4, 3]
        assert to_unknown.shape.as_list() == [None, None, None, 3]
        with tf.compat.v1.Session() as sess:
            a, b = sess.run([to_known, to_unknown], {
                x: np.ones((2, 8, 8, 3)), known: np.zeros((2, 4, 4, 3)),
                unknown: np.zeros((2, 4, 5, 3))})
    assert a.shape == (2, 4, 4, 3) and b.shape == (2, 4, 5, 3)
    np.testing.assert_allclose(b, 1.0)
