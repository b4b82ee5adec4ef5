"""Keras 2 data utilities (tf.keras.preprocessing text / sequence / image, the
`*_dataset_from_directory` and `timeseries_dataset_from_array` utilities) against the values
real tf.keras 2 gives (tests/fixtures/keras_data_utils/make_fixtures.py wrote them)."""
import importlib.util
import json
import os
import random

import numpy as np
import pytest

import tfcompat as tf

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "keras_data_utils")
with open(os.path.join(FIXTURES, "expected.json")) as _f:
    EXPECTED = json.load(_f)
_spec = importlib.util.spec_from_file_location("make_fixtures",
                                               os.path.join(FIXTURES, "make_fixtures.py"))
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)
TEXTS = make_fixtures.TEXTS
text = tf.keras.preprocessing.text
sequence = tf.keras.preprocessing.sequence
image = tf.keras.preprocessing.image


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("keras_data"))
    make_fixtures.write_image_tree(root)
    return root


def _batches(dataset):
    out = []
    for element in dataset:
        if isinstance(element, tuple):
            out.append([np.asarray(part).tolist() for part in element])
        else:
            out.append(np.asarray(element).tolist())
    return out


def _close(actual, expected, atol=1e-4):
    np.testing.assert_allclose(np.asarray(actual, dtype="float64"),
                               np.asarray(expected, dtype="float64"), atol=atol)


# text

def test_text_to_word_sequence_and_hashing():
    assert [text.text_to_word_sequence(t) for t in TEXTS] == EXPECTED["text_to_word_sequence"]
    assert text.text_to_word_sequence("Hello, World-wide web", filters=",", lower=False,
                                      split="-") == EXPECTED["text_to_word_sequence_options"]
    assert ([text.hashing_trick(t, 17, hash_function="md5") for t in TEXTS]
            == EXPECTED["hashing_trick_md5"])
    encoded = text.one_hot("the cat the", 10)
    assert encoded[0] == encoded[2] and all(1 <= i < 10 for i in encoded)


@pytest.mark.parametrize("name,kwargs", [
    ("default", {}), ("num_words_oov", dict(num_words=5, oov_token="<oov>")),
    ("char_level", dict(char_level=True, lower=False)),
    ("no_lower", dict(lower=False, filters="."))])
def test_tokenizer_matches_keras(name, kwargs):
    expected = EXPECTED["tokenizer"][name]
    tok = text.Tokenizer(**kwargs)
    tok.fit_on_texts(TEXTS)
    assert tok.word_index == expected["word_index"]
    assert {str(k): v for k, v in tok.index_word.items()} == expected["index_word"]
    assert [list(item) for item in tok.word_counts.items()] == expected["word_counts"]
    assert dict(tok.word_docs) == expected["word_docs"]
    assert tok.document_count == expected["document_count"]
    assert tok.texts_to_sequences(TEXTS + ["unseen cat words the"]) == expected["sequences"]
    assert tok.sequences_to_texts([[1, 2, 3, 40], [5, 4]]) == expected["texts"]
    for mode, matrix in expected["matrices"].items():
        _close(tok.texts_to_matrix(TEXTS[:2] + ["the the cat"], mode=mode), matrix, 1e-12)
    config, expected_config = json.loads(tok.to_json())["config"], expected["json"]["config"]
    for key in ("word_counts", "word_docs", "index_docs", "index_word", "word_index"):
        # word_docs / index_docs follow set order, which Python salts per process
        assert json.loads(config.pop(key)) == json.loads(expected_config.pop(key))
    assert config == expected_config
    restored = text.tokenizer_from_json(tok.to_json())
    assert restored.word_index == tok.word_index
    assert restored.texts_to_sequences(TEXTS) == tok.texts_to_sequences(TEXTS)
    assert restored.index_word == tok.index_word


def test_tokenizer_fit_on_sequences_and_errors():
    tok = text.Tokenizer()
    tok.fit_on_sequences([[1, 2, 2], [2, 3]])
    tok.num_words = 5
    _close(tok.sequences_to_matrix([[1, 2, 2, 9]], mode="tfidf"),
           EXPECTED["fit_on_sequences_tfidf"], 1e-12)
    with pytest.raises(ValueError, match="Specify a dimension"):
        text.Tokenizer().texts_to_matrix(["a"])
    with pytest.raises(ValueError, match="Unknown vectorization mode"):
        tok.sequences_to_matrix([[1]], mode="nope")
    with pytest.raises(TypeError, match="Unrecognized keyword"):
        text.Tokenizer(bogus=1)


def test_tokenizer_from_json_reads_data_only():
    evil = json.dumps({"class_name": "Tokenizer", "config": {
        "num_words": None, "filters": "", "lower": True, "split": " ", "char_level": False,
        "oov_token": None, "document_count": 0, "word_counts": "{}", "word_docs": "{}",
        "index_docs": "{}", "index_word": "{}", "word_index": '{"__import__": 1}'}})
    assert text.tokenizer_from_json(evil).word_index == {"__import__": 1}


# sequence

def test_pad_sequences_matches_keras():
    seqs = [[1, 2, 3], [4, 5], [6, 7, 8, 9, 10], []]
    expected = EXPECTED["pad_sequences"]
    assert sequence.pad_sequences(seqs).tolist() == expected["default"]
    assert sequence.pad_sequences(seqs, maxlen=3, padding="post", truncating="post",
                                  value=-1).tolist() == expected["post_post_3"]
    padded = sequence.pad_sequences(seqs, maxlen=4, dtype="float32", value=0.5)
    assert padded.dtype == np.float32 and padded.tolist() == expected["float"]


def test_timeseries_generator_matches_keras():
    gen = sequence.TimeseriesGenerator(np.arange(40).reshape(20, 2), np.arange(20) * 10,
                                       length=4, sampling_rate=2, stride=3, start_index=1,
                                       end_index=17, batch_size=2, reverse=True)
    expected = EXPECTED["timeseries_generator"]
    assert len(gen) == expected["len"]
    assert [[x.tolist(), y.tolist()] for x, y in (gen[i] for i in range(len(gen)))] \
        == expected["batches"]
    assert json.loads(gen.to_json())["config"]["length"] == 4
    with pytest.raises(ValueError, match="same length"):
        sequence.TimeseriesGenerator(np.arange(3), np.arange(4), length=1)


def test_sampling_table_and_skipgrams_match_keras():
    _close(sequence.make_sampling_table(8, 0.01), EXPECTED["make_sampling_table"], 1e-12)
    random.seed(1)
    couples, labels = sequence.skipgrams([1, 2, 0, 3, 4, 5], 6, window_size=2, seed=7)
    assert [couples, labels] == EXPECTED["skipgrams"]
    random.seed(3)
    couples, labels = sequence.skipgrams([1, 2, 3, 4], 5, window_size=1, negative_samples=0.5,
                                         categorical=True, shuffle=False,
                                         sampling_table=[1.0, 0.2, 1.0, 0.5, 1.0])
    assert [couples, labels] == EXPECTED["skipgrams_table"]


@pytest.mark.parametrize("name,values,kwargs", [
    ("targets", np.arange(30), dict(targets=np.arange(30) * 2, sequence_length=5,
                                    sequence_stride=3, sampling_rate=2, batch_size=4,
                                    start_index=2, end_index=27)),
    ("no_targets", np.arange(30), dict(targets=None, sequence_length=4, batch_size=None)),
    ("floats", np.arange(60.0).reshape(30, 2), dict(targets=None, sequence_length=3,
                                                    sequence_stride=7, batch_size=3))])
def test_timeseries_dataset_from_array_matches_keras(name, values, kwargs):
    dataset = tf.keras.utils.timeseries_dataset_from_array(values, **kwargs)
    assert _batches(dataset) == EXPECTED["timeseries"][name]


def test_timeseries_dataset_shuffle_and_errors():
    dataset = tf.keras.preprocessing.timeseries_dataset_from_array(
        np.arange(30), None, 4, batch_size=None, shuffle=True, seed=5)
    windows = _batches(dataset)
    assert sorted(windows) == EXPECTED["timeseries"]["shuffled_sorted"]
    assert windows != sorted(windows)
    with pytest.raises(ValueError, match="`start_index` must be lower"):
        tf.keras.utils.timeseries_dataset_from_array(np.arange(5), None, 2, start_index=5)
    with pytest.raises(ValueError, match="`sampling_rate` must be higher than 0"):
        tf.keras.utils.timeseries_dataset_from_array(np.arange(5), None, 2, sampling_rate=0)


# directories

def test_image_dataset_from_directory_matches_keras(tree):
    images = os.path.join(tree, "images")
    expected = EXPECTED["image_dataset"]
    dataset = tf.keras.utils.image_dataset_from_directory(images, image_size=(5, 4),
                                                          batch_size=3, shuffle=False)
    assert dataset.class_names == expected["int_noshuffle"]["class_names"]
    assert ([os.path.relpath(p, tree) for p in dataset.file_paths]
            == expected["int_noshuffle"]["file_paths"])
    got = _batches(dataset)
    for (x, y), (ex, ey) in zip(got, expected["int_noshuffle"]["batches"]):
        _close(x, ex)
        assert y == ey
    x, y = next(iter(dataset))
    assert x.dtype == tf.float32 and y.dtype == tf.int32 and x.shape == (3, 5, 4, 3)
    for mode in ("categorical", "binary"):
        dataset = tf.keras.preprocessing.image_dataset_from_directory(
            images, image_size=(3, 3), label_mode=mode, batch_size=10, shuffle=False,
            color_mode="grayscale", interpolation="nearest")
        (x, y), = _batches(dataset)
        _close(x, expected[mode][0][0])
        assert y == expected[mode][0][1]
    dataset = tf.keras.utils.image_dataset_from_directory(images, labels=None,
                                                          image_size=(4, 4), batch_size=None,
                                                          shuffle=False,
                                                          crop_to_aspect_ratio=True)
    _close(_batches(dataset), expected["no_labels_crop"])


def test_image_dataset_validation_split_is_keras(tree):
    images = os.path.join(tree, "images")
    for subset in ("training", "validation"):
        dataset = tf.keras.utils.image_dataset_from_directory(
            images, image_size=(2, 2), seed=11, validation_split=0.3, subset=subset)
        assert ([os.path.relpath(p, tree) for p in dataset.file_paths]
                == EXPECTED["image_dataset"]["split_" + subset])
    train, val = tf.keras.utils.image_dataset_from_directory(
        images, image_size=(2, 2), seed=11, validation_split=0.3, subset="both")
    assert [os.path.relpath(p, tree) for p in val.file_paths] \
        == EXPECTED["image_dataset"]["split_validation"]
    assert sum(int(x.shape[0]) for x, _ in train) == 5
    with pytest.raises(ValueError, match="you must provide a `seed`"):
        tf.keras.utils.image_dataset_from_directory(images, validation_split=0.3,
                                                    subset="training")
    with pytest.raises(ValueError, match="did not match the names of the subdirectories"):
        tf.keras.utils.image_dataset_from_directory(images, class_names=["cats"])


def test_text_dataset_from_directory_matches_keras(tree):
    texts = os.path.join(tree, "texts")
    dataset = tf.keras.utils.text_dataset_from_directory(texts, batch_size=4, shuffle=False,
                                                         max_length=9)
    assert dataset.class_names == EXPECTED["text_dataset"]["class_names"]
    got = [[[s.decode() for s in x.numpy()], y.numpy().tolist()] for x, y in dataset]
    assert got == EXPECTED["text_dataset"]["batches"]
    parts = tf.keras.preprocessing.text_dataset_from_directory(
        texts, shuffle=False, validation_split=0.4, subset="both", label_mode="binary")
    got = [[[[s.decode() for s in x.numpy()], y.numpy().tolist()] for x, y in part]
           for part in parts]
    assert got == EXPECTED["text_dataset_both"]


# image utils

def test_load_img_and_array_conversions(tree):
    path = os.path.join(tree, "images", "dogs", "1.png")
    img = tf.keras.utils.load_img(path, target_size=(4, 5), interpolation="bilinear")
    array = tf.keras.utils.img_to_array(img)
    assert array.dtype == np.float32
    _close(array, EXPECTED["load_img"], 0)
    img = image.load_img(path, color_mode="grayscale", target_size=(3, 3),
                         keep_aspect_ratio=True)
    _close(image.img_to_array(img), EXPECTED["load_img_gray_aspect"], 0)
    arr = np.arange(24, dtype="float32").reshape(2, 4, 3)
    assert np.asarray(tf.keras.utils.array_to_img(arr)).tolist() == EXPECTED["array_to_img"]
    assert (np.asarray(tf.keras.utils.array_to_img(arr * 5, scale=False)).tolist()
            == EXPECTED["array_to_img_noscale"])
    _close(image.smart_resize(np.arange(48.0).reshape(4, 4, 3), (2, 3)),
           EXPECTED["smart_resize"])
    saved = os.path.join(tree, "saved.png")
    tf.keras.utils.save_img(saved, arr, scale=False)
    _close(tf.keras.utils.img_to_array(tf.keras.utils.load_img(saved)), arr, 0)


@pytest.mark.parametrize("name,kwargs", [
    ("rescale", dict(rescale=1 / 255.)),
    ("flips", dict(horizontal_flip=True, vertical_flip=True)),
    ("shifts", dict(width_shift_range=0.2, height_shift_range=2)),
    ("rotation", dict(rotation_range=40, fill_mode="constant", cval=7.0)),
    ("zoom_reflect", dict(zoom_range=0.3, fill_mode="reflect")),
    ("wrap_shear", dict(shear_range=20, rotation_range=10, fill_mode="wrap")),
    ("samplewise", dict(samplewise_center=True, samplewise_std_normalization=True))])
def test_image_data_generator_flow_matches_keras(name, kwargs):
    x = np.random.RandomState(1).uniform(0, 255, size=(5, 6, 7, 3)).astype("float32")
    iterator = image.ImageDataGenerator(**kwargs).flow(x, np.arange(5), batch_size=2,
                                                       shuffle=True, seed=3)
    for (bx, by), (ex, ey) in zip((next(iterator) for _ in range(4)),
                                  EXPECTED["image_data_generator"][name]):
        _close(bx, ex, 2e-3)
        assert by.tolist() == ey


def test_image_data_generator_fit_and_directories(tree):
    expected = EXPECTED["image_data_generator"]
    x = np.random.RandomState(1).uniform(0, 255, size=(5, 6, 7, 3)).astype("float32")
    gen = image.ImageDataGenerator(featurewise_center=True,
                                   featurewise_std_normalization=True)
    gen.fit(x)
    _close(gen.mean, expected["featurewise"]["mean"])
    _close(gen.std, expected["featurewise"]["std"])
    _close(next(gen.flow(x, batch_size=5, shuffle=False)), expected["featurewise"]["batch"])
    images = os.path.join(tree, "images")
    iterator = image.ImageDataGenerator(rescale=2.0, rotation_range=30).flow_from_directory(
        images, target_size=(4, 5), batch_size=3, seed=4, class_mode="sparse")
    assert iterator.filenames == expected["directory_filenames"]
    for (bx, by), (ex, ey) in zip((iterator[0], iterator[2]), expected["directory"]):
        _close(bx, ex, 2e-3)
        assert by.tolist() == ey
    iterator = image.ImageDataGenerator(validation_split=0.5).flow_from_directory(
        images, target_size=(2, 2), subset="validation", shuffle=False,
        class_mode="categorical", color_mode="rgba")
    assert [iterator.filenames, iterator[0][1].tolist()] == expected["directory_validation"]
    assert iterator[0][0].shape == (len(iterator.filenames), 2, 2, 4)


def test_apply_affine_transform_matches_scipy_rotation():
    x = np.random.RandomState(1).uniform(0, 255, size=(5, 6, 7, 3)).astype("float32")
    rotated = image.apply_affine_transform(x[0], theta=90, row_axis=0, col_axis=1,
                                           channel_axis=2, fill_mode="constant")
    _close(rotated, EXPECTED["affine_90"], 2e-3)
    with pytest.raises(NotImplementedError, match="order=3"):
        image.apply_affine_transform(x[0], theta=5, row_axis=0, col_axis=1, channel_axis=2,
                                     order=3)


def test_fit_steps_per_epoch_and_validation_steps_on_repeated_datasets():
    """Training goes on through a repeated dataset across epochs; each validation starts
    from the validation dataset's first batch (values from real tf.keras 2)."""
    x = np.random.RandomState(0).randn(40, 2).astype("float32")
    y = x.sum(1, keepdims=True) * 2 + 1
    train = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()
    val = tf.data.Dataset.from_tensor_slices((x[:24] * 3, y[:24])).batch(5).repeat()
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,),
                                                       kernel_initializer="ones")])
    model.compile(tf.keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
    history = model.fit(train, epochs=4, steps_per_epoch=3, validation_data=val,
                        validation_steps=2, verbose=0).history
    _close(history["loss"], [3.30186, 0.95747, 0.48452, 0.37444])
    _close(history["mae"], [1.50371, 0.76945, 0.53262, 0.47434])
    _close(history["val_loss"], [7.34916, 12.35001, 16.85055, 21.88346], 1e-3)
    _close(history["val_mae"], [2.1761, 2.87957, 3.38418, 3.89852], 1e-3)
    _close(model.evaluate(val, steps=3, verbose=0), [24.63544, 3.99795], 1e-3)


def test_directory_datasets_and_generators_train_a_model(tree):
    images = os.path.join(tree, "images")
    dataset = tf.keras.utils.image_dataset_from_directory(images, image_size=(8, 8),
                                                          batch_size=2, seed=1)
    model = tf.keras.Sequential([tf.keras.layers.Rescaling(1 / 255.),
                                 tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    assert len(model.fit(dataset.repeat(), epochs=2, steps_per_epoch=3,
                         verbose=0).history["loss"]) == 2
    iterator = image.ImageDataGenerator(horizontal_flip=True).flow_from_directory(
        images, target_size=(8, 8), batch_size=3, class_mode="sparse", seed=0,
        classes=["cats", "dogs"])      # Keras' DirectoryIterator counts ".hidden" as a class
    assert iterator.class_indices == {"cats": 0, "dogs": 1}
    assert len(model.fit(iterator, epochs=2, verbose=0).history["loss"]) == 2


def test_pil_is_optional_as_in_keras(monkeypatch, tree):
    import sys
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="The use of `load_img` requires PIL"):
        tf.keras.utils.load_img(os.path.join(tree, "images", "dogs", "1.png"))
    with pytest.raises(ImportError, match="The use of `array_to_img` requires PIL"):
        tf.keras.utils.array_to_img(np.zeros((2, 2, 3)))
    with pytest.raises(ImportError, match="brightness shifts requires PIL"):
        image.apply_brightness_shift(np.zeros((2, 2, 3)), 1.5)
    assert tf.keras.utils.img_to_array(np.zeros((2, 3))).shape == (2, 3, 1)


def test_timeseries_dataset_in_a_tf1_graph():
    with tf.Graph().as_default():
        dataset = tf.keras.utils.timeseries_dataset_from_array(
            np.arange(30), np.arange(30) * 2, sequence_length=5, sequence_stride=3,
            sampling_rate=2, batch_size=4, start_index=2, end_index=27)
        element = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        with tf.compat.v1.Session() as session:
            got = [[part.tolist() for part in session.run(element)] for _ in range(2)]
    assert got == EXPECTED["timeseries"]["targets"][:2]


def test_set_random_seed_seeds_python_numpy_and_tf():
    draws = []
    for _ in range(2):
        tf.keras.utils.set_random_seed(5)
        draws.append((random.random(), np.random.rand(), float(tf.random.uniform([]))))
    assert draws[0] == draws[1]
    assert draws[0][:2] == (random.Random(5).random(), np.random.RandomState(5).rand())
    with pytest.raises(ValueError, match="Expected `seed` argument to be an integer"):
        tf.keras.utils.set_random_seed(1.5)


def test_more_generators_match_keras(tree):
    expected = EXPECTED["image_data_generator"]
    np.random.seed(4)
    gen = sequence.TimeseriesGenerator(np.arange(40).reshape(20, 2), np.arange(20), length=3,
                                       shuffle=True, batch_size=4)
    assert [part.tolist() for part in gen[1]] == EXPECTED["timeseries_generator_shuffled"]
    x = np.random.RandomState(1).uniform(0, 255, size=(5, 6, 7, 3)).astype("float32")
    for name, data, kwargs in (
            ("channels_first", np.transpose(x, (0, 3, 1, 2)),
             dict(rotation_range=30, width_shift_range=[1, 2], zoom_range=[0.8, 1.1],
                  data_format="channels_first")),
            ("brightness_channel_shift", x, dict(brightness_range=(0.5, 1.5),
                                                 channel_shift_range=30.0))):
        iterator = image.ImageDataGenerator(**kwargs).flow(data, np.arange(5), batch_size=3,
                                                           seed=8)
        _close(iterator[0][0], expected[name][0], 2e-3)
        _close(iterator[1][0], expected[name][1], 2e-3)
    iterator = image.ImageDataGenerator(vertical_flip=True).flow(
        (x, np.arange(10).reshape(5, 2)), np.arange(5), sample_weight=np.linspace(0, 1, 5),
        batch_size=2, shuffle=False, seed=2)
    (bx, extra), by, bw = iterator[1]
    _close(bx, expected["extras_weights"][0])
    assert [extra.tolist(), by.tolist()] == expected["extras_weights"][1:3]
    _close(bw, expected["extras_weights"][3])
    with pytest.warns(UserWarning, match="overrides setting of `featurewise_center`"):
        gen = image.ImageDataGenerator(zca_whitening=True, zca_epsilon=0.1)
    gen.fit(x[:, :3, :3, :] / 255.0)
    _close(gen.mean, expected["zca"][0], 1e-5)
    _close(gen.zca_whitening_matrix, expected["zca"][1], 1e-3)
    _close(gen.standardize(np.copy(x[0, :3, :3, :] / 255.0)), expected["zca"][2], 1e-3)
    dataset = tf.keras.utils.image_dataset_from_directory(
        os.path.join(tree, "images"), labels=[3, 1, 4, 1, 5, 9, 2], image_size=(2, 2),
        shuffle=False, batch_size=7)
    assert [dataset.class_names, next(iter(dataset))[1].numpy().tolist()] \
        == EXPECTED["image_dataset"]["explicit_labels"]


def _elements(dataset):
    return [{k: np.asarray(v).tolist() for k, v in e.items()} if isinstance(e, dict)
            else [np.asarray(p).tolist() for p in e] if isinstance(e, tuple)
            else np.asarray(e).tolist() for e in dataset.as_numpy_iterator()]


def test_split_dataset_matches_keras():
    x, y = np.arange(20).reshape(10, 2), np.arange(10) * 3
    splits = {
        "array": tf.keras.utils.split_dataset(x, left_size=0.7),
        "tuple_shuffle": tf.keras.utils.split_dataset((x, y), left_size=3, right_size=0.4,
                                                      shuffle=True, seed=4),
        "dataset_batched": tf.keras.utils.split_dataset(
            tf.data.Dataset.from_tensor_slices((x, y)).batch(3), right_size=4, shuffle=True,
            seed=1),
        "dict_elements": tf.keras.utils.split_dataset(
            tf.data.Dataset.from_tensor_slices({"a": x, "b": y}), left_size=2)}
    for name, pair in splits.items():
        assert [_elements(part) for part in pair] == EXPECTED["split_dataset"][name], name
    with pytest.raises(ValueError, match="At least one of the `left_size`"):
        tf.keras.utils.split_dataset(x)
    with pytest.raises(ValueError, match="`left_size` should be either a positive integer"):
        tf.keras.utils.split_dataset(x, left_size=10)
    with pytest.raises(TypeError, match="must be either a `tf.data.Dataset`"):
        tf.keras.utils.split_dataset("abc", left_size=1)


def test_iterators_save_augmented_images(tmp_path):
    x = np.random.RandomState(1).uniform(0, 255, size=(3, 4, 5, 3)).astype("float32")
    iterator = image.ImageDataGenerator().flow(x, batch_size=2, shuffle=False,
                                               save_to_dir=str(tmp_path), save_prefix="aug")
    batch = next(iterator)
    assert batch.shape == (2, 4, 5, 3)
    saved = sorted(os.listdir(str(tmp_path)))
    assert [name.split("_")[:2] for name in saved] == [["aug", "0"], ["aug", "1"]]
    first = tf.keras.utils.img_to_array(tf.keras.utils.load_img(
        os.path.join(str(tmp_path), saved[0])))
    _close(first, np.asarray(tf.keras.utils.array_to_img(x[0])), 0)
