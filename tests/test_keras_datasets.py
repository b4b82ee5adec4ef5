"""tf.keras.datasets read from small fake Keras cache files ($KERAS_HOME/datasets), and the
cache helpers of tf.keras.utils (get_file, pad_sequences)."""
import gzip
import io
import json
import os
import pickle
import tarfile

import numpy as np
import pytest

import tfcompat as tf

datasets = tf.keras.datasets


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty Keras cache: $KERAS_HOME/datasets."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    directory = tmp_path / "datasets"
    directory.mkdir()
    return directory


def _sequences(*rows):
    array = np.empty(len(rows), dtype=object)
    for i, row in enumerate(rows):
        array[i] = list(row)
    return array


def _shuffled(values, seed, rng=None):
    order = np.arange(len(values))
    (rng or np.random.RandomState(seed)).shuffle(order)
    return [values[i] for i in order]


def test_mnist_and_boston_housing_npz(cache):
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (6, 28, 28)).astype(np.uint8)
    labels = np.arange(6, dtype=np.uint8)
    np.savez(cache / "mnist.npz", x_train=images[:4], y_train=labels[:4], x_test=images[4:],
             y_test=labels[4:])
    (x_train, y_train), (x_test, y_test) = datasets.mnist.load_data()
    assert x_train.dtype == np.uint8 and x_train.shape == (4, 28, 28)
    np.testing.assert_array_equal(x_test, images[4:])
    np.testing.assert_array_equal(y_train, labels[:4])
    assert tf.compat.v1.keras.datasets.mnist.load_data is datasets.mnist.load_data
    assert tf.contrib.keras.datasets.mnist.load_data is datasets.mnist.load_data

    x = np.arange(10 * 13, dtype=np.float64).reshape(10, 13)
    y = np.arange(10, dtype=np.float64)
    np.savez(cache / "boston_housing.npz", x=x, y=y)
    (x_train, y_train), (x_test, y_test) = datasets.boston_housing.load_data(test_split=0.2)
    order = _shuffled(list(range(10)), 113)
    np.testing.assert_array_equal(y_train, y[order[:8]])
    np.testing.assert_array_equal(x_test, x[order[8:]])
    with pytest.raises(ValueError, match="test_split"):
        datasets.boston_housing.load_data(test_split=1.0)


def test_fashion_mnist_idx_files(cache):
    folder = cache / "fashion-mnist"
    folder.mkdir()
    images = np.arange(3 * 28 * 28, dtype=np.uint32).astype(np.uint8).reshape(3, 28, 28)
    labels = np.array([9, 0, 3], np.uint8)

    def write(name, header, payload):
        with gzip.open(folder / name, "wb") as f:
            f.write(b"\0" * header + payload.tobytes())
    for prefix, rows in (("train", slice(0, 2)), ("t10k", slice(2, 3))):
        write(prefix + "-labels-idx1-ubyte.gz", 8, labels[rows])
        write(prefix + "-images-idx3-ubyte.gz", 16, images[rows])
    (x_train, y_train), (x_test, y_test) = datasets.fashion_mnist.load_data()
    assert x_train.shape == (2, 28, 28) and x_test.shape == (1, 28, 28)
    np.testing.assert_array_equal(x_train, images[:2])
    np.testing.assert_array_equal(y_test, [3])


def _cifar_batch(n, label_key, offset):
    data = (np.arange(n * 3072) + offset).astype(np.uint8).reshape(n, 3072)
    return {b"data": data, label_key: list(range(offset, offset + n))}


def test_cifar10_from_archive_and_extracted_directory(cache):
    folder = "cifar-10-batches-py"
    batches = {"data_batch_%d" % i: _cifar_batch(2, b"labels", i) for i in range(1, 6)}
    batches["test_batch"] = _cifar_batch(3, b"labels", 7)
    with tarfile.open(cache / (folder + ".tar.gz"), "w:gz") as archive:
        for name, batch in batches.items():
            payload = pickle.dumps(batch, protocol=2)
            info = tarfile.TarInfo(folder + "/" + name)
            info.size = len(payload)
            archive.addfile(info, io.BytesIO(payload))
    (x_train, y_train), (x_test, y_test) = datasets.cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (10, 1) and y_train.dtype == np.uint8
    assert y_train.ravel().tolist() == [1, 2, 2, 3, 3, 4, 4, 5, 5, 6]
    expected = batches["test_batch"][b"data"].reshape(3, 3, 32, 32).transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(x_test, expected)
    os.remove(cache / (folder + ".tar.gz"))  # the extracted directory is enough
    tf.keras.backend.set_image_data_format("channels_first")
    try:
        (x_train, _), _ = datasets.cifar10.load_data()
    finally:
        tf.keras.backend.set_image_data_format("channels_last")
    assert x_train.shape == (10, 3, 32, 32)


def test_cifar100_label_modes_and_unsafe_pickles(cache):
    folder = cache / "cifar-100-python"
    folder.mkdir()
    for name, n in (("train", 4), ("test", 2)):
        batch = _cifar_batch(n, b"fine_labels", 0)
        batch[b"coarse_labels"] = [k // 2 for k in range(n)]
        (folder / name).write_bytes(pickle.dumps(batch))
    (_, y_fine), _ = datasets.cifar100.load_data()
    (_, y_coarse), (x_test, _) = datasets.cifar100.load_data(label_mode="coarse")
    assert y_fine.ravel().tolist() == [0, 1, 2, 3] and y_fine.dtype == np.int64
    assert y_coarse.ravel().tolist() == [0, 0, 1, 1] and x_test.shape == (2, 32, 32, 3)
    with pytest.raises(ValueError, match="label_mode"):
        datasets.cifar100.load_data(label_mode="medium")
    (folder / "train").write_bytes(pickle.dumps({b"data": os.system}))
    with pytest.raises(pickle.UnpicklingError, match="posix.system|os.system"):
        datasets.cifar100.load_data()


def test_imdb_transforms_like_keras(cache):
    x_train = _sequences([1, 2, 3], [4, 5], [6, 7, 8, 9])
    x_test = _sequences([2, 2], [9])
    np.savez(cache / "imdb.npz", x_train=x_train, y_train=np.array([0, 1, 0]),
             x_test=x_test, y_test=np.array([1, 0]))
    (xs, ys), (xt, yt) = datasets.imdb.load_data(num_words=10)
    rng = np.random.RandomState(113)
    train = _shuffled(list(zip(x_train, [0, 1, 0])), 113, rng)
    test = _shuffled(list(zip(x_test, [1, 0])), 113, rng)

    def expected(row):  # start_char 1, words shifted by 3, >= num_words -> oov 2
        return [1] + [w + 3 if w + 3 < 10 else 2 for w in row]
    assert xs.dtype == object and [list(x) for x in xs] == [expected(r) for r, _ in train]
    assert ys.tolist() == [label for _, label in train]
    assert [list(x) for x in xt] == [expected(r) for r, _ in test]
    assert yt.tolist() == [label for _, label in test]
    (xs, _), _ = datasets.imdb.load_data(start_char=None, index_from=0, skip_top=3,
                                         oov_char=None)
    # as in Keras, num_words defaults to the largest index, which the filter then drops
    assert sorted(map(list, xs)) == [[3], [4, 5], [6, 7, 8]]
    (xs, ys), (xt, _) = datasets.imdb.load_data(maxlen=4)  # start_char included
    assert [list(x) for x in xs] == [[1, 7, 8]] and ys.tolist() == [1]
    assert sorted(len(x) for x in xt) == [2, 3]
    with pytest.raises(ValueError, match="Increase maxlen"):
        datasets.imdb.load_data(maxlen=1)
    with pytest.raises(TypeError, match="Unrecognized keyword"):
        datasets.imdb.load_data(bogus=1)
    (cache / "imdb_word_index.json").write_text(json.dumps({"the": 1, "a": 2}))
    assert datasets.imdb.get_word_index() == {"the": 1, "a": 2}


def test_reuters_split_and_labels(cache):
    rows = [[1], [2, 3], [4], [5, 6, 7], [8]]
    np.savez(cache / "reuters.npz", x=_sequences(*rows), y=np.arange(5))
    (xs, ys), (xt, yt) = datasets.reuters.load_data(test_split=0.4)
    order = _shuffled(list(range(5)), 113)
    assert ys.tolist() == order[:3] and yt.tolist() == order[3:]
    assert [list(x) for x in xs] == [[1] + [w + 3 for w in rows[i]] for i in order[:3]]
    names = datasets.reuters.get_label_names()
    assert len(names) == 46 and names[3] == "earn" and names[-1] == "lead"


def test_missing_files_name_the_file_and_where_to_put_it(cache):
    with pytest.raises(IOError, match="does not download.*mnist.npz.*" + str(cache)):
        datasets.mnist.load_data()
    with pytest.raises(IOError, match="cifar-10-batches-py.tar.gz"):
        datasets.cifar10.load_data()


def test_get_file_hash_check_and_extract(cache):
    path = cache / "data.txt"
    path.write_bytes(b"hello")
    sha = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    assert tf.keras.utils.get_file("data.txt", "http://x/data.txt", file_hash=sha) == str(path)
    with pytest.raises(ValueError, match="does not match"):
        tf.keras.utils.get_file("data.txt", "http://x/data.txt", md5_hash="0" * 32)


@pytest.mark.parametrize("kwargs, expected", [
    ({}, [[1, 2, 3], [0, 4, 5], [0, 0, 6]]),
    ({"maxlen": 2}, [[2, 3], [4, 5], [0, 6]]),
    ({"maxlen": 2, "truncating": "post"}, [[1, 2], [4, 5], [0, 6]]),
    ({"padding": "post", "value": -1}, [[1, 2, 3], [4, 5, -1], [6, -1, -1]]),
])
def test_pad_sequences(kwargs, expected):
    result = tf.keras.preprocessing.sequence.pad_sequences([[1, 2, 3], [4, 5], [6]], **kwargs)
    assert result.dtype == np.int32 and result.tolist() == expected


def test_pad_sequences_errors():
    pad = tf.keras.utils.pad_sequences
    with pytest.raises(ValueError, match="Padding type"):
        pad([[1]], padding="middle")
    with pytest.raises(ValueError, match="non-iterable"):
        pad([1, 2])
    assert pad([["a", "b"], ["c"]], dtype=object, value="").tolist() == [["a", "b"], ["", "c"]]
