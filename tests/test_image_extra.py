"""tf.image additions: the stateless_random_* ops, total_variation, image_gradients,
sobel_edges, psnr and the YUV/YIQ conversions give real TF's values, eagerly and in TF1 graphs
(tests/fixtures/math_extra/make_image_values.py printed the constants)."""
import numpy as np
import pytest

import tfcompat as tf

IMAGE = (np.arange(2 * 3 * 4 * 3).reshape(2, 3, 4, 3) % 7 / 7.0).astype(np.float32)
OTHER = (np.arange(2 * 3 * 4 * 3).reshape(2, 3, 4, 3) % 5 / 5.0).astype(np.float32)
TF_FLIP_LR_BATCH = [[0.2857142984867096, 0.8571428656578064, 0.4285714328289032, 0.0],
                    [0.1428571492433548, 0.5714285969734192, 0.0, 0.4285714328289032]]
TF_FLIP_UD_ONE = [0.4285714328289032, 0.7142857313156128, 0.0]
TF_FLIP_LR_ONE = [0.0, 0.4285714328289032, 0.8571428656578064, 0.2857142984867096]
TF_BRIGHTNESS = [0.13762415945529938, 0.2804813086986542, 0.42333847284317017]
TF_CONTRAST = [0.24084436893463135, 0.29257121682167053, 0.3442980647087097]
TF_SATURATION = [0.1562233865261078, 0.2209688425064087, 0.2857142984867096]
TF_HUE = [0.09307003766298294, 0.0, 0.2857142984867096]
TF_CROP = [[[24, 25], [27, 28], [30, 31]], [[36, 37], [39, 40], [42, 43]]]
TF_TOTAL_VARIATION = [[23.571430206298828, 23.14285659790039], 23.571430206298828]
TF_IMAGE_GRADIENTS = [[[0.7142857313156128, -0.2857142686843872, -0.2857142686843872,
                        -0.2857142984867096],
                       [-0.2857142984867096, 0.7142857313156128, -0.2857142984867096,
                        0.7142857313156128],
                       [0.0, 0.0, 0.0, 0.0]],
                      [[0.4285714328289032, 0.4285714328289032, -0.5714285373687744, 0.0],
                       [-0.5714285969734192, 0.4285714626312256, -0.5714285969734192, 0.0],
                       [0.4285714328289032, -0.5714285373687744, 0.4285714328289032, 0.0]]]
TF_SOBEL = [[[2.9802322387695312e-08, 0.0], [1.7881393432617188e-07, -0.5714285373687744],
             [-4.470348358154297e-08, -0.5714287161827087], [0.0, 0.0]],
            [[-0.2857142686843872, 0.0], [-0.28571435809135437, -0.5714285373687744],
             [0.7142857313156128, 0.4285714328289032], [1.7142857313156128, 0.0]],
            [[2.9802322387695312e-08, 0.0], [1.7881393432617188e-07, -0.571428656578064],
             [-4.470348358154297e-08, 1.4285714626312256], [0.0, 0.0]]]
TF_PSNR = [8.01517391204834, 8.012681007385254]
TF_PSNR_UINT8 = [8.021916389465332, 8.019269943237305]
TF_RGB_TO_YUV = [[0.11642857640981674, 0.08330737054347992, -0.10214081406593323],
                 [0.5450000166893005, 0.08330737054347992, -0.10214080661535263],
                 [0.2725714445114136, -0.0638338178396225, 0.5128346085548401],
                 [0.40214288234710693, 0.08330737054347992, -0.10214079171419144]]
TF_YUV_TO_RGB = [[0.3256808817386627, -0.2222694456577301, 0.2902945578098297],
                 [1.2427736520767212, -0.21166837215423584, 1.5897496938705444],
                 [1.0199832916259766, 0.7741968631744385, 0.8571428656578064],
                 [0.9370760917663574, -0.21520204842090607, 1.1565979719161987]]
TF_RGB_TO_YIQ = [[0.11642857640981674, -0.1310349404811859, 0.014237556606531143],
                 [0.5450000166893005, -0.1310349404811859, 0.014221852645277977],
                 [0.2725714445114136, 0.46486565470695496, 0.22574280202388763],
                 [0.40214288234710693, -0.1310349404811859, 0.014227100647985935]]
TF_YIQ_TO_RGB = [[0.31394800543785095, -0.2237744778394699, 0.3288172781467438],
                 [1.4182956218719482, -0.18915322422981262, 1.0134559869766235],
                 [0.9458321332931519, 0.7646850943565369, 1.1006044149398804],
                 [1.0501797199249268, -0.20069362223148346, 0.7852430939674377]]
TF_PATCHES_VALID = [[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                      [4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]],
                     [[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                      [6.0, 7.0, 8.0, 9.0, 10.0, 0.0, 7.0, 8.0, 9.0, 10.0, 0.0, 1.0]]]]
TF_PATCHES_SAME_RATE = [[[[0.0, 1.0, 2.0, 3.0, 2.0, 3.0, 4.0, 5.0],
                          [4.0, 5.0, 6.0, 7.0, 6.0, 7.0, 8.0, 9.0],
                          [8.0, 9.0, 10.0, 0.0, 10.0, 0.0, 1.0, 2.0]],
                         [[3.0, 4.0, 5.0, 6.0, 0.0, 0.0, 0.0, 0.0],
                          [7.0, 8.0, 9.0, 10.0, 0.0, 0.0, 0.0, 0.0],
                          [0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0]]]]
TF_PAD = [[0.0, 0.0, 0.625, 3.625, 6.625, 8.59375, 0.0, 0.0, 0.0],
          [0.0, 0.0, 1.875, 4.875, 7.875, 2.625, 0.0, 0.0, 0.0],
          [0.0, 0.0, 3.125, 6.125, 7.40625, 2.15625, 0.0, 0.0, 0.0],
          [0.0, 0.0, 4.375, 7.375, 7.625, 2.375, 0.0, 0.0, 0.0]]
TF_PAD_V1 = [[0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 6.0, 9.0],
             [1.6666666269302368, 4.666666507720947, 7.666666507720947, 5.166666507720947],
             [3.3333332538604736, 6.3333330154418945, 9.333333015441895, 1.3333332538604736],
             [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
TF_CROP_RESIZE = [[[2.4000000953674316, 4.733333110809326, 7.066666603088379, 7.199999809265137],
                   [3.799999952316284, 6.133333206176758, 8.466666221618652, 5.300000190734863],
                   [5.199999809265137, 7.533332824707031, 6.200000762939453, 1.2000000476837158]],
                  [[0.0, 2.3333332538604736, 4.666666507720947, 7.0],
                   [0.0, 3.933332920074463, 6.266666412353516, 8.600000381469727],
                   [0.0, 0.0, 0.0, 0.0]]]
TF_CROP_RESIZE_NEAREST = [[[3.0, 7.0, 0.0], [6.0, 10.0, 3.0]]]
TF_CROP_RESIZE_ONE = [[[6.599999904632568]]]
PATCH_IMAGE = (np.arange(1 * 5 * 6 * 2).reshape(1, 5, 6, 2) % 11).astype(np.float32)

CASES = {
    "FLIP_LR_BATCH": lambda: tf.image.stateless_random_flip_left_right(IMAGE, seed=[1, 2])[
        :, 0, :, 0],
    "FLIP_UD_ONE": lambda: tf.image.stateless_random_flip_up_down(IMAGE[0], seed=[3, 4])[
        :, 0, 0],
    "FLIP_LR_ONE": lambda: tf.image.stateless_random_flip_left_right(IMAGE[0], seed=[5, 6])[
        0, :, 0],
    "BRIGHTNESS": lambda: tf.image.stateless_random_brightness(IMAGE[0], 0.2, seed=[1, 2])[
        0, 0],
    "CONTRAST": lambda: tf.image.stateless_random_contrast(IMAGE[0], 0.2, 0.5, seed=[1, 2])[
        0, 0],
    "SATURATION": lambda: tf.image.stateless_random_saturation(IMAGE[0], 0.2, 0.5,
                                                               seed=[1, 2])[0, 0],
    "HUE": lambda: tf.image.stateless_random_hue(IMAGE[0], 0.2, seed=[1, 2])[0, 0],
    "CROP": lambda: tf.image.stateless_random_crop(np.arange(60).reshape(5, 4, 3), [2, 3, 2],
                                                   seed=[7, 8]),
    "TOTAL_VARIATION": lambda: [tf.image.total_variation(IMAGE),
                                tf.image.total_variation(IMAGE[0])],
    "IMAGE_GRADIENTS": lambda: [g[0, :, :, 0] for g in tf.image.image_gradients(IMAGE)],
    "SOBEL": lambda: tf.image.sobel_edges(IMAGE)[0, :, :, 1, :],
    "PSNR": lambda: tf.image.psnr(IMAGE, OTHER, max_val=1.0),
    "PSNR_UINT8": lambda: tf.image.psnr(np.uint8(IMAGE * 255), np.uint8(OTHER * 255),
                                        max_val=255),
    "RGB_TO_YUV": lambda: tf.image.rgb_to_yuv(IMAGE[0, 0]),
    "YUV_TO_RGB": lambda: tf.image.yuv_to_rgb(IMAGE[0, 0]),
    "RGB_TO_YIQ": lambda: tf.image.rgb_to_yiq(IMAGE[0, 0]),
    "YIQ_TO_RGB": lambda: tf.image.yiq_to_rgb(IMAGE[0, 0]),
    "PATCHES_VALID": lambda: tf.image.extract_patches(PATCH_IMAGE, [1, 2, 3, 1], [1, 2, 2, 1],
                                                      [1, 1, 1, 1], "VALID"),
    "PATCHES_SAME_RATE": lambda: tf.compat.v1.extract_image_patches(
        PATCH_IMAGE, [1, 2, 2, 1], [1, 3, 2, 1], [1, 2, 1, 1], "SAME"),
    "PAD": lambda: tf.image.resize_with_pad(PATCH_IMAGE, 4, 9)[0, :, :, 0],
    "PAD_V1": lambda: tf.compat.v1.image.resize_image_with_pad(PATCH_IMAGE, 7, 4)[0, :, :, 0],
    "CROP_RESIZE": lambda: tf.image.crop_and_resize(
        PATCH_IMAGE, [[0.1, 0.2, 0.8, 0.9], [0.5, -0.2, 1.3, 0.5]], [0, 0], [3, 4])[..., 0],
    "CROP_RESIZE_NEAREST": lambda: tf.image.crop_and_resize(
        PATCH_IMAGE, [[0.1, 0.2, 0.8, 0.9]], [0], [2, 3], method="nearest",
        extrapolation_value=-1.0)[..., 1],
    "CROP_RESIZE_ONE": lambda: tf.image.crop_and_resize(PATCH_IMAGE, [[0.2, 0.3, 0.6, 0.7]],
                                                        [0], [1, 1])[..., 0],
}


def _outputs(result):
    """The case's outputs as a list (a case gives one tensor or a list of them)."""
    return list(result) if isinstance(result, list) else [result]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf_eagerly_and_in_a_graph(name):
    result = CASES[name]()
    eager = [np.asarray(r) for r in _outputs(result)]
    expected = globals()["TF_" + name]
    for got, want in zip(eager, expected if isinstance(result, list) else [expected]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with tf.compat.v1.Graph().as_default():
        nodes = CASES[name]()
        with tf.compat.v1.Session() as sess:
            graph = _outputs(sess.run(nodes))
    for got, want in zip(graph, eager):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_argument_checks():
    with pytest.raises(ValueError, match="non-negative"):
        tf.image.stateless_random_brightness(IMAGE, -0.1, seed=[1, 2])
    with pytest.raises(ValueError, match="upper must be > lower"):
        tf.image.stateless_random_contrast(IMAGE, 0.5, 0.2, seed=[1, 2])
    with pytest.raises(ValueError, match="4D tensor"):
        tf.image.sobel_edges(IMAGE[0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.image.stateless_random_crop(IMAGE[0], [4, 4, 3], seed=[1, 2])


NMS_BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                      [0, 10.1, 1, 11.1], [0, 100, 1, 101], [1, 1, 0, 0]], np.float32)
NMS_SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.9], np.float32)


def test_non_max_suppression_keeps_tfs_boxes():
    """TF's choices: best first, flipped corners normalized, IoU above the threshold
    suppressed (equal kept), ties by index, `score_threshold` strict."""
    np.testing.assert_array_equal(
        tf.image.non_max_suppression(NMS_BOXES, NMS_SCORES, 10, 0.5).numpy(), [3, 0, 5])
    np.testing.assert_array_equal(
        tf.image.non_max_suppression(NMS_BOXES, NMS_SCORES, 3, 0.5,
                                     score_threshold=0.4).numpy(), [3, 0])
    indices, scores = tf.image.non_max_suppression_with_scores(NMS_BOXES, NMS_SCORES, 10, 0.5)
    np.testing.assert_array_equal(indices.numpy(), [3, 0, 5])
    np.testing.assert_allclose(scores.numpy(), [0.95, 0.9, 0.3], rtol=1e-7)
    pair = np.array([[0, 0, 1, 1], [0, 0.5, 1, 1.5]], np.float32)
    np.testing.assert_array_equal(
        tf.image.non_max_suppression(pair, [0.9, 0.8], 10, 1 / 3).numpy(), [0, 1])
    same = np.array([[0, 0, 1, 1], [5, 5, 6, 6], [0, 0, 1, 1]], np.float32)
    np.testing.assert_array_equal(
        tf.image.non_max_suppression(same, [0.5, 0.5, 0.5], 10, 0.5).numpy(), [0, 1])
    with tf.compat.v1.Graph().as_default():
        boxes = tf.compat.v1.placeholder(tf.float32, [None, 4])
        selected = tf.image.non_max_suppression(boxes, NMS_SCORES, 10, 0.5)
        assert selected.shape.as_list() == [None] and selected.dtype == tf.int32
        with tf.compat.v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(selected, {boxes: NMS_BOXES}), [3, 0, 5])


TF_DISTORTED_BOXES = {  # seed -> (begin, size, bbox) from real TF
    (1, 2): ([0, 3, 0], [39, 48, -1], [0.0, 0.05000000074505806, 0.9750000238418579,
                                       0.8500000238418579]),
    (3, 4): ([0, 18, 0], [40, 36, -1], [0.0, 0.30000001192092896, 1.0, 0.8999999761581421]),
    (5, 6): ([8, 10, 0], [30, 31, -1], [0.20000000298023224, 0.1666666716337204,
                                        0.949999988079071, 0.6833333373069763]),
}


@pytest.mark.parametrize("seed", sorted(TF_DISTORTED_BOXES))
def test_stateless_sample_distorted_bounding_box_matches_tf(seed):
    begin, size, box = TF_DISTORTED_BOXES[seed]
    outputs = tf.image.stateless_sample_distorted_bounding_box(
        [40, 60, 3], [[[0.1, 0.2, 0.6, 0.7]]], seed=list(seed), min_object_covered=0.3)
    np.testing.assert_array_equal(outputs[0].numpy(), begin)
    np.testing.assert_array_equal(outputs[1].numpy(), size)
    np.testing.assert_allclose(outputs[2].numpy(), [[box]], rtol=1e-7)


def test_stateless_sample_distorted_bounding_box_options_and_graph():
    no_boxes = tf.image.stateless_sample_distorted_bounding_box(
        [17, 23, 3], tf.zeros([1, 0, 4]), seed=[7, 8], area_range=(0.1, 0.5),
        aspect_ratio_range=(0.5, 2.0), use_image_if_no_bounding_boxes=True)
    np.testing.assert_array_equal(no_boxes[0].numpy(), [0, 7, 0])
    np.testing.assert_array_equal(no_boxes[1].numpy(), [16, 9, -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="No bounding boxes"):
        tf.image.stateless_sample_distorted_bounding_box([17, 23, 3], tf.zeros([1, 0, 4]),
                                                         seed=[7, 8])
    with tf.compat.v1.Graph().as_default():
        size = tf.compat.v1.placeholder(tf.int32, [3])
        begin, extent, _ = tf.image.stateless_sample_distorted_bounding_box(
            size, [[[0.0, 0.0, 0.1, 0.1]]], seed=[9, 9], min_object_covered=1.0,
            area_range=(0.9, 1.0), max_attempts=3)
        assert begin.shape.as_list() == [3]
        with tf.compat.v1.Session() as sess:
            np.testing.assert_array_equal(sess.run([begin, extent], {size: [10, 10, 1]}),
                                          [[0, 0, 0], [9, 10, -1]])


def test_sample_distorted_bounding_box_meets_its_constraints():
    for seed in range(20):
        begin, size, box = tf.image.sample_distorted_bounding_box(
            [40, 60, 3], [[[0.1, 0.2, 0.6, 0.7]]], seed=seed + 1, min_object_covered=0.3,
            aspect_ratio_range=(0.5, 2.0), area_range=(0.2, 0.9))
        (y, x, _), (h, w, _) = begin.numpy(), size.numpy()
        assert 0 <= y and y + h <= 40 and 0 <= x and x + w <= 60
        assert 0.2 * 2400 <= h * w <= 0.9 * 2400 or (h, w) == (40, 60)
        np.testing.assert_allclose(box.numpy(), [[[y / 40, x / 60, (y + h) / 40,
                                                   (x + w) / 60]]], rtol=1e-6)

