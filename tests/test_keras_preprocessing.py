"""Keras 2 preprocessing layers against real tf.keras 2 values (tests/fixtures/
keras_preprocessing/, written by make_fixtures.py there), in eager calls, models, `fit`,
`tf.data` maps and through get_config / from_config."""
import json
import os

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras.layers.preprocessing import image_preprocessing

keras = tf.keras
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "keras_preprocessing")


def load(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


IMAGE_AND_NORMALIZATION = load("image_and_normalization.json")
NORM = IMAGE_AND_NORMALIZATION["normalization"]
IMAGE = IMAGE_AND_NORMALIZATION["image"]


def close(got, want, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, dtype=np.float64),
                               rtol=1e-5, atol=atol)


# ---------------------------------------------------------------- Normalization

@pytest.mark.parametrize("case", NORM["cases"], ids=lambda c: "axis=%s" % (c["axis"],))
def test_normalization_adapt_equals_tf(case):
    axis = tuple(case["axis"]) if isinstance(case["axis"], list) else case["axis"]
    data = np.float32(NORM["data"])
    layer = keras.layers.Normalization(axis=axis)
    layer.adapt(data, batch_size=7)
    close(layer.adapt_mean.numpy(), case["mean"], atol=1e-4)
    close(layer.adapt_variance.numpy(), case["variance"], atol=1e-3)
    close(layer(np.float32(NORM["probe"])), case["output"], atol=1e-4)
    inverse = keras.layers.experimental.preprocessing.Normalization(axis=axis, invert=True)
    inverse.adapt(data)
    close(inverse(np.float32(NORM["probe"])), case["inverted"], atol=1e-3)


def test_normalization_adapt_on_a_dataset_and_given_statistics():
    data = np.float32(NORM["data"]).reshape(-1, 4)
    layer = keras.layers.Normalization()
    layer.adapt(tf.data.Dataset.from_tensor_slices(data).batch(16))
    assert layer.mean.shape.as_list() == [1, 4]
    close(layer.mean, NORM["dataset_mean"], atol=1e-4)
    close(layer.variance, NORM["dataset_variance"], atol=1e-3)
    assert int(layer.count.numpy()) == 150
    given = keras.layers.Normalization(mean=[1.0, 2.0, 3.0, 4.0],
                                       variance=[1.0, 4.0, 9.0, 0.0])
    close(given(np.float32(NORM["probe"])), NORM["given_output"], atol=1e-4)
    assert given.weights == []
    assert given.get_config()["mean"] == NORM["given_config"]
    with pytest.raises(ValueError, match="static `mean` and `variance`"):
        given.adapt(data)
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        keras.layers.Normalization(mean=1.0)


def test_normalization_in_a_model_fit_and_config_round_trip():
    rng = np.random.RandomState(0)
    x = rng.rand(64, 3).astype("float32") * [1.0, 10.0, 100.0]
    y = x.sum(axis=1, keepdims=True)
    norm = keras.layers.Normalization(input_shape=(3,))
    norm.adapt(x)
    model = keras.Sequential([norm, keras.layers.Dense(1)])
    model.compile("adam", "mse")
    history = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    assert len(history.history["loss"]) == 2
    # adapt's weights stay constant in fit
    close(norm.adapt_mean.numpy(), x.mean(axis=0), atol=1e-3)
    copy = keras.Sequential.from_config(model.get_config())
    copy.set_weights(model.get_weights())
    close(copy.predict(x[:4]), model.predict(x[:4]))
    config = norm.get_config()
    assert config["axis"] == (-1,) and config["invert"] is False and config["mean"] is None


def test_normalization_of_integer_inputs_and_in_a_dataset_map():
    layer = keras.layers.Normalization(axis=None)
    layer.adapt([0, 2])
    close(layer(np.array([0, 1, 2])), [-1.0, 0.0, 1.0])
    close(keras.Sequential([layer]).predict(np.array([0, 1, 2])).reshape(-1), [-1.0, 0.0, 1.0])
    mapped = tf.data.Dataset.range(3).map(layer)
    close([e.numpy() for e in mapped], [[-1.0], [0.0], [1.0]])   # TF's shapes: (1,)


# ---------------------------------------------------------------- image layers

@pytest.mark.parametrize("key", sorted(k for k in IMAGE["resizing"] if "area" not in k))
def test_resizing_equals_tf(key):
    interpolation, crop = key.split("_")
    layer = keras.layers.Resizing(4, 5, interpolation=interpolation,
                                  crop_to_aspect_ratio=crop == "True")
    out = layer(np.float32(IMAGE["images"]))
    assert out.dtype == tf.float32 and out.shape.as_list() == [2, 4, 5, 3]
    close(out, IMAGE["resizing"][key], atol=1e-3)


def test_center_crop_and_rescaling_equal_tf():
    images = np.float32(IMAGE["images"])
    close(keras.layers.CenterCrop(5, 4)(images), IMAGE["center_crop"])
    close(keras.layers.CenterCrop(8, 6)(images), IMAGE["center_crop_up"], atol=1e-3)
    cropped = keras.layers.experimental.preprocessing.CenterCrop(4, 4)(images.astype("uint8"))
    assert cropped.dtype == tf.float32
    close(cropped, IMAGE["center_crop_uint8"])
    rescaled = keras.layers.Rescaling(1 / 127.5, offset=-1)(images.astype("uint8"))
    assert rescaled.dtype == tf.float32
    close(rescaled, IMAGE["rescaling"])


@pytest.mark.parametrize("key", sorted(IMAGE["projective"]))
def test_projective_transform_equals_tf_kernel(key):
    fill_mode, interpolation = key.lower().split("_")
    images = torch.tensor(np.repeat(np.float32(IMAGE["images"])[:1], 3, axis=0))
    out = image_preprocessing.projective_transform(
        images, torch.tensor(IMAGE["transforms"]), fill_mode, 7.0, interpolation)
    close(out.numpy(), IMAGE["projective"][key], atol=1e-3)


AUGMENTATIONS = [
    lambda: keras.layers.RandomFlip(seed=1),
    lambda: keras.layers.RandomRotation(0.2, seed=1),
    lambda: keras.layers.RandomZoom(0.3, seed=1),
    lambda: keras.layers.RandomTranslation(0.2, (-0.1, 0.3), fill_mode="constant", seed=1),
    lambda: keras.layers.RandomContrast(0.5, seed=1),
    lambda: keras.layers.RandomBrightness(0.4, seed=1),
]


@pytest.mark.parametrize("make", AUGMENTATIONS)
def test_augmentation_only_while_training(make):
    images = np.float32(IMAGE["images"])
    layer = make()
    close(layer(images, training=False), images)
    changed = layer(images)  # Keras 2: `training` defaults to True in a direct call
    assert changed.shape.as_list() == [2, 7, 9, 3]
    assert not np.allclose(changed.numpy(), images)
    model = keras.Sequential([keras.Input((7, 9, 3)), make()])
    close(model.predict(images), images)   # inference: identity
    copy = type(layer).from_config(layer.get_config())
    assert copy.get_config() == layer.get_config()


def test_random_crop_equals_tf_at_inference_and_crops_while_training():
    images = np.float32(IMAGE["images"])
    close(keras.layers.RandomCrop(4, 6)(images, training=False),
          IMAGE["random_crop_inference"], atol=1e-3)
    close(keras.layers.RandomCrop(8, 10)(images), IMAGE["random_crop_small"], atol=1e-3)
    cropped = keras.layers.experimental.preprocessing.RandomCrop(4, 6, seed=2)(images).numpy()
    assert cropped.shape == (2, 4, 6, 3)
    windows = [images[:, i:i + 4, j:j + 6] for i in range(4) for j in range(4)]
    assert any(np.array_equal(cropped, w) for w in windows)   # one window for the batch


@pytest.mark.parametrize("axis", [0, 1])
def test_random_height_and_width_resize_one_axis_while_training(axis):
    images = np.float32(IMAGE["images"])
    make = keras.layers.RandomHeight if axis == 0 else keras.layers.RandomWidth
    layer = make((0.5, 0.9), seed=4)
    out = layer(images)
    sizes = [7, 9]
    assert out.shape[3] == 3 and out.shape[2 - axis] == sizes[1 - axis]
    assert int(sizes[axis] * 1.5) <= out.shape[1 + axis] <= int(sizes[axis] * 1.9)
    close(layer(images, training=False), images)
    with tf.Graph().as_default():
        placeholder = tf.compat.v1.placeholder(tf.float32, [None, 7, 9, 3])
        symbolic = layer(placeholder, training=True)
        want = [None, None, 9, 3] if axis == 0 else [None, 7, None, 3]
        assert symbolic.shape.as_list() == want
        with tf.compat.v1.Session() as sess:
            assert sess.run(symbolic, {placeholder: images}).shape[1 + axis] > sizes[axis]
    with pytest.raises(ValueError, match="larger than -1"):
        make((-1.5, 0.2))


def test_random_brightness_stays_in_its_value_range():
    images = np.float32(IMAGE["images"])
    layer = keras.layers.RandomBrightness((-0.5, 0.5), value_range=(0, 255), seed=3)
    out = layer(images).numpy()
    assert out.min() >= 0 and out.max() <= 255
    for got, image in zip(out, images):   # one delta per image, within the factor
        shift = (got - image)[np.logical_and(got > 0, got < 255)]
        assert shift.size and np.ptp(shift) < 1e-3 and abs(shift[0]) <= 0.5 * 255
    assert layer.get_config()["factor"] == [-0.5, 0.5]
    with pytest.raises(ValueError, match="range"):
        keras.layers.RandomBrightness(1.5)


def test_random_flip_flips_whole_images_and_runs_in_a_dataset_map():
    images = np.float32(IMAGE["images"])
    tf.random.set_seed(3)
    flipped = keras.layers.RandomFlip("horizontal")(images).numpy()
    for got, image in zip(flipped, images):
        assert np.array_equal(got, image) or np.array_equal(got, image[:, ::-1])
    layer = keras.layers.RandomRotation(0.1)
    mapped = tf.data.Dataset.from_tensor_slices(images).batch(2).map(
        lambda x: layer(x, training=True))
    out = [e.numpy() for e in mapped]
    assert out[0].shape == (2, 7, 9, 3) and not np.allclose(out[0], images)


def test_augmentation_arguments_checked_as_keras():
    with pytest.raises(ValueError, match="unknown mode"):
        keras.layers.RandomFlip("diagonal")
    with pytest.raises(NotImplementedError, match="fill_mode"):
        keras.layers.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(ValueError, match="between"):
        keras.layers.RandomZoom(1.5)


# ---------------------------------------------------------------- lookups and text

LOOKUPS = load("lookups.json")
TOKENS, WORDS = LOOKUPS["tokens"], LOOKUPS["words"]
NUMBERS = np.array(LOOKUPS["numbers"])
CORPUS, PROBE = LOOKUPS["corpus"], LOOKUPS["probe"]
sl, il, tv = (keras.layers.StringLookup, keras.layers.IntegerLookup,
              keras.layers.TextVectorization)

# name -> (layer maker, input, adapt data or None); the cases of make_fixtures.py
LOOKUP_CASES = {
    "string_vocab_mask": (lambda: sl(vocabulary=["a", "b", "c"], mask_token=""), TOKENS, None),
    "string_invert": (lambda: sl(vocabulary=["a", "b", "c"], invert=True),
                      [[0, 1, 2], [3, 4, 9]], None),
    "string_no_oov_one_hot": (lambda: sl(vocabulary=["a", "b", "c"], num_oov_indices=0,
                                         output_mode="one_hot"), ["a", "c", "b"], None),
    "string_multi_hot": (lambda: sl(vocabulary=["a", "b", "c"], output_mode="multi_hot",
                                    mask_token=""), TOKENS, None),
    "string_count_padded": (lambda: sl(vocabulary=["a", "b", "c"], output_mode="count",
                                       max_tokens=6, pad_to_max_tokens=True), TOKENS, None),
    "string_tf_idf": (lambda: sl(vocabulary=["a", "b", "c"], output_mode="tf_idf",
                                 idf_weights=[0.5, 1.0, 2.0]), TOKENS, None),
    "string_adapt": (lambda: sl(max_tokens=4), [["x", "y", "v"], ["q", "w", "z"]], WORDS),
    "string_adapt_tf_idf": (lambda: sl(output_mode="tf_idf"),
                            [["x", "x", "v"], ["q", "u", "u"]],
                            [["x", "y", "w", "x"], ["z", "x", "y", "z"],
                             ["v", "y", "x", "v"]]),
    "integer_adapt": (lambda: il(), np.array([[5, 9, 100], [0, 7, 12]]), NUMBERS),
    "integer_mask_oov2": (lambda: il(vocabulary=[12, 5, 7], mask_token=0, num_oov_indices=2),
                          np.array([[5, 0, 12], [13, 14, 7]]), None),
    "integer_invert": (lambda: il(vocabulary=[12, 5, 7], invert=True),
                       np.array([0, 1, 2, 3, 8]), None),
    "integer_multi_hot": (lambda: il(output_mode="multi_hot"),
                          np.array([[5, 5, 1], [9, 7, 7]]), NUMBERS),
    "text_int": (lambda: tv(), PROBE, CORPUS),
    "text_int_length": (lambda: tv(max_tokens=8, output_sequence_length=3), PROBE, CORPUS),
    "text_column": (lambda: tv(output_sequence_length=6), np.array([[p] for p in PROBE]),
                    "dataset"),
    "text_bigrams_multi_hot": (lambda: tv(ngrams=2, output_mode="multi_hot"), PROBE, CORPUS),
    "text_count_padded": (lambda: tv(max_tokens=12, output_mode="count",
                                     pad_to_max_tokens=True), PROBE, CORPUS),
    "text_tf_idf": (lambda: tv(output_mode="tf_idf", ngrams=(1, 3)), PROBE, CORPUS),
    "text_character_lower": (lambda: tv(split="character", standardize="lower"), PROBE,
                             CORPUS),
    "text_strip_only": (lambda: tv(standardize="strip_punctuation"), PROBE, CORPUS),
    "text_given_vocabulary": (lambda: tv(vocabulary=["the", "quick", "dog"],
                                         output_sequence_length=4), PROBE, None),
    "text_scalar": (lambda: tv(vocabulary=["the", "quick", "dog"]), "the dog and the cat",
                    None),
}


def made_lookup(name):
    make, inputs, data = LOOKUP_CASES[name]
    layer = make()
    if isinstance(data, str):
        data = tf.data.Dataset.from_tensor_slices(CORPUS).batch(2)
    if data is not None:
        layer.adapt(data)
    return layer, inputs


def decoded(value):
    value = np.asarray(value)
    if value.dtype == object:
        return np.vectorize(lambda b: b.decode("utf-8"), otypes=[object])(value).tolist()
    return value


@pytest.mark.parametrize("name", sorted(LOOKUP_CASES))
def test_lookup_and_text_layers_equal_tf(name):
    want = LOOKUPS["cases"][name]
    layer, inputs = made_lookup(name)
    assert layer.get_vocabulary() == want["vocabulary"]
    out = layer(inputs)
    if want["output"] and isinstance(np.asarray(want["output"]).flat[0], str):
        assert decoded(out.numpy()) == want["output"]
    else:
        close(out, want["output"])
    config = layer.get_config()
    for key, value in want["config"].items():
        assert list(config[key]) == value if isinstance(value, list) else \
            config[key] == value, key


@pytest.mark.parametrize("name", ["string_adapt", "integer_mask_oov2", "text_int_length",
                                  "text_tf_idf", "string_tf_idf"])
def test_lookup_layers_in_a_dataset_map_and_a_graph_model(name):
    want = LOOKUPS["cases"][name]
    layer, inputs = made_lookup(name)
    mapped = tf.data.Dataset.from_tensor_slices(inputs).batch(8).map(layer)
    close(np.concatenate([e.numpy() for e in mapped]), want["output"])
    dtype = "int64" if name.startswith("integer") else "string"
    shape = np.asarray(inputs).shape[1:]
    model_input = keras.Input(shape=shape, dtype=dtype)
    model = keras.Model(model_input, layer(model_input))
    close(model.predict(inputs if dtype == "int64" else np.asarray(inputs, dtype=object)),
          want["output"])


def test_text_vectorization_model_trains_and_rebuilds_from_config():
    vectorize = tv(max_tokens=20, output_sequence_length=5)
    vectorize.adapt(CORPUS)
    model = keras.Sequential([keras.Input((1,), dtype="string"), vectorize,
                              keras.layers.Embedding(20, 4), keras.layers.GlobalAveragePooling1D(),
                              keras.layers.Dense(1)])
    model.compile("adam", "mse")
    texts = np.array([[c] for c in CORPUS], dtype=object)
    history = model.fit(texts, np.arange(5.0), epochs=2, verbose=0, shuffle=False)
    assert len(history.history["loss"]) == 2
    # the TF tutorials' way: vectorize in the input pipeline, train the rest
    pipeline = tf.data.Dataset.from_tensor_slices((CORPUS, np.arange(5.0))).batch(2).map(
        lambda text, label: (vectorize(text), label))
    rest = keras.Sequential(model.layers[1:])
    rest.compile("adam", "mse")
    assert len(rest.fit(pipeline, epochs=2, verbose=0).history["loss"]) == 2
    copy = tv.from_config(vectorize.get_config())
    copy.set_vocabulary(vectorize.get_vocabulary())
    close(copy(PROBE), vectorize(PROBE))
    given = tv.from_config(tv(vocabulary=["the", "quick"]).get_config())
    assert given.get_vocabulary() == ["", "[UNK]", "the", "quick"]


def test_lookup_vocabulary_assets_round_trip(tmp_path):
    layer, _ = made_lookup("text_tf_idf")
    layer.save_assets(str(tmp_path))
    copy = tv.from_config({k: v for k, v in layer.get_config().items()
                           if k != "vocabulary_size"})
    copy.load_assets(str(tmp_path))
    assert copy.get_vocabulary() == layer.get_vocabulary()


def test_lookup_errors_are_keras_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_oov_indices=0"):
        sl(vocabulary=["a"], num_oov_indices=0)(["a", "b"])
    with pytest.raises(ValueError, match="repeated term"):
        sl(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="static vocabulary"):
        sl(vocabulary=["a"]).adapt(["a"])
    with pytest.raises(RuntimeError, match="vocabulary before calling"):
        sl(output_mode="multi_hot")(["a"])
    with pytest.raises(ValueError, match="`invert` is true"):
        il(invert=True, output_mode="count")
    with pytest.raises(ValueError, match="last shape dimension must be 1"):
        tv(vocabulary=["a"])(np.array([["a", "b"]]))


def test_category_encoding_equals_tf():
    want = LOOKUPS["category_encoding"]
    ce = keras.layers.CategoryEncoding
    ids = np.array([[0, 1, 1], [3, 2, 0]])
    close(ce(4, output_mode="one_hot")(np.array([1, 3, 0])), want["one_hot"])
    close(keras.layers.experimental.preprocessing.CategoryEncoding(4)(ids), want["multi_hot"])
    close(ce(5, output_mode="count")(ids), want["count"])
    close(ce(4, output_mode="count")(ids, count_weights=np.float32([[0.5, 1, 2], [1, 1, 3]])),
          want["count_weights"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="0 <= values < num_tokens"):
        ce(3)(ids)
    assert ce.from_config(ce(4).get_config()).get_config()["num_tokens"] == 4


@pytest.mark.parametrize("num_bins,epsilon", [(4, 0.01), (5, 0.1), (3, 0.5)])
def test_discretization_adapt_equals_tf(num_bins, epsilon):
    want = LOOKUPS["discretization"]
    layer = keras.layers.Discretization(num_bins=num_bins, epsilon=epsilon)
    layer.adapt(np.float32(want["data"]), batch_size=64)
    case = want["bins_%d_%s" % (num_bins, epsilon)]
    close(layer.bin_boundaries, case["boundaries"])
    out = layer(np.float32(want["probe"]))
    assert out.dtype == tf.int64
    close(out, case["output"])
    mapped = tf.data.Dataset.from_tensor_slices(np.float32(want["probe"])).map(layer)
    close([e.numpy() for e in mapped], case["output"])


def test_discretization_with_boundaries_and_config():
    want = LOOKUPS["discretization"]
    layer = keras.layers.experimental.preprocessing.Discretization(
        bin_boundaries=[-1.0, 0.0, 0.2], output_mode="count")
    close(layer(np.float32(want["probe"])), want["fixed_count"])
    copy = keras.layers.Discretization.from_config(layer.get_config())
    close(copy(np.float32(want["probe"])), want["fixed_count"])
    with pytest.raises(ValueError, match="use `num_bins` instead"):
        layer.adapt([1.0, 2.0])
    with pytest.raises(ValueError, match="should not be set"):
        keras.layers.Discretization(bin_boundaries=[1.0], num_bins=2)


def test_preprocessing_layers_in_a_tf1_graph_equal_eager():
    tf1 = tf.compat.v1
    images = np.float32(IMAGE["images"])
    norm = keras.layers.Normalization(axis=None)
    norm.adapt(np.float32(NORM["data"]))
    layers = {"norm": norm, "resize": keras.layers.Resizing(4, 5),
              "crop": keras.layers.CenterCrop(5, 4),
              "lookup": sl(vocabulary=["the", "quick", "dog"]),
              "text": tv(vocabulary=["the", "quick", "dog"], output_sequence_length=4),
              "bins": keras.layers.Discretization(bin_boundaries=[0.0, 100.0])}
    with tf.Graph().as_default():
        image_in = tf1.placeholder(tf.float32, [None, 7, 9, 3])
        text_in = tf1.placeholder(tf.string, [None])
        outputs = {name: layer(text_in if name in ("lookup", "text") else image_in)
                   for name, layer in layers.items()}
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            got = sess.run(outputs, {image_in: images, text_in: PROBE})
    for name, layer in layers.items():
        close(got[name], layer(PROBE if name in ("lookup", "text") else images), atol=1e-4)


@pytest.mark.parametrize("filename", ["model.h5", "saved_model_dir"])
def test_models_with_preprocessing_layers_save_and_load(tmp_path, filename):
    x = np.float32(NORM["data"]).reshape(-1, 4)
    norm = keras.layers.Normalization()
    norm.adapt(x)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Rescaling(0.5, offset=1.0), norm,
                              keras.layers.Discretization(bin_boundaries=[-1.0, 0.0, 1.0],
                                                          output_mode="count")])
    path = str(tmp_path / filename)
    model.save(path)
    close(keras.models.load_model(path).predict(x[:5]), model.predict(x[:5]))
    text_in = keras.Input((1,), dtype="string")
    text_model = keras.Model(text_in, tv(vocabulary=["the", "quick", "dog"],
                                         output_sequence_length=4)(text_in))
    path = str(tmp_path / ("text_" + filename))
    text_model.save(path)
    probe = np.array([[p] for p in PROBE], dtype=object)
    close(keras.models.load_model(path).predict(probe), text_model.predict(probe))


def test_text_vectorization_ragged_tokens_and_callable_split():
    want = LOOKUPS["cases"]["text_int"]
    layer, _ = made_lookup("text_int")
    ragged = tv(ragged=True, vocabulary=layer.get_vocabulary()[2:])
    out = ragged(PROBE)
    assert isinstance(out, tf.RaggedTensor)
    close(out.to_tensor(), want["output"])
    assert out.row_lengths().numpy().tolist() == [5, 3, 0, 2]
    tokens = tv(output_mode=None)(["Hi, there  you", "x"])
    assert [[t.decode() for t in row] for row in tokens.to_list()] == [["hi", "there", "you"],
                                                                      ["x"]]
    comma = tv(split=lambda text: tf.compat.v2.strings.split(text, sep=","), standardize=None,
               vocabulary=["a", "b c"], output_sequence_length=3)
    close(comma(["a,b c,d", "b c"]), [[2, 3, 1], [3, 0, 0]])
    mapped = tf.data.Dataset.from_tensor_slices(["a,b c,d", "b c"]).batch(2).map(comma)
    close(next(iter(mapped)), [[2, 3, 1], [3, 0, 0]])
    learned = tv(split=lambda text: tf.compat.v2.strings.split(text, sep=","),
                 standardize="lower")   # the default would strip the commas first
    learned.adapt(["z,z,y", "y,z"])
    assert learned.get_vocabulary() == ["", "[UNK]", "z", "y"]


def test_hashing_bins_equal_tensorflows():
    """Values real tf.keras 2.21 gives (FarmHash Fingerprint64 buckets)."""
    strings = [["A"], ["B"], ["C"], ["D"], ["E"]]
    np.testing.assert_array_equal(
        tf.keras.layers.Hashing(num_bins=3)(strings).numpy().ravel(), [1, 0, 1, 1, 2])
    np.testing.assert_array_equal(
        tf.keras.layers.Hashing(num_bins=3, mask_value="")(
            [["A"], ["B"], [""], ["C"], ["D"]]).numpy().ravel(), [1, 1, 0, 2, 2])
    np.testing.assert_array_equal(
        tf.keras.layers.Hashing(num_bins=3)(np.array([[1], [2], [3], [4], [5]])).numpy().ravel(),
        [0, 1, 0, 2, 1])
    np.testing.assert_array_equal(
        tf.keras.layers.Hashing(num_bins=3, output_mode="one_hot")(["A", "B"]).numpy(),
        [[0, 1, 0], [1, 0, 0]])
    np.testing.assert_array_equal(
        tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3).numpy(), [0, 2, 2])
    layer = tf.keras.layers.Hashing.from_config(tf.keras.layers.Hashing(num_bins=5).get_config())
    with tf.Graph().as_default():
        inputs = tf.compat.v1.placeholder(tf.string, [None, 1])
        bins = layer(inputs)
        with tf.compat.v1.Session() as sess:
            graph_bins = sess.run(bins, {inputs: np.array(strings)})
    np.testing.assert_array_equal(graph_bins, layer(strings).numpy())
