"""Synthetic stand-ins for the datasets corpus scripts download (numpy only, seeded).

`scripts/compat_corpus.py` copies this file next to each materialised script as
`_corpus_data.py`; the manifest's offline patches point the scripts' download calls here.
Shapes and dtypes are those of the real datasets; the sizes are small so a script runs in
seconds. Used identically by the real-TensorFlow run and the tfcompat run.
"""
import collections

import numpy as np

TRAIN_SIZE = 2048
TEST_SIZE = 256
VALIDATION_SIZE = 256

_rng = np.random.RandomState(0)


def _images(count, shape):
    return _rng.randint(0, 256, size=(count,) + shape).astype(np.uint8)


def _labels(count, classes, shape=()):
    return _rng.randint(0, classes, size=(count,) + shape).astype(np.uint8)


def _image_split(shape, classes=10, label_shape=()):
    return ((_images(TRAIN_SIZE, shape), _labels(TRAIN_SIZE, classes, label_shape)),
            (_images(TEST_SIZE, shape), _labels(TEST_SIZE, classes, label_shape)))


def mnist_load_data(path="mnist.npz"):
    """`tf.keras.datasets.mnist.load_data()`: uint8 (N, 28, 28) images, uint8 (N,) labels."""
    return _image_split((28, 28))


fashion_mnist_load_data = mnist_load_data


def cifar10_load_data():
    """`tf.keras.datasets.cifar10.load_data()`: uint8 (N, 32, 32, 3) images, (N, 1) labels."""
    return _image_split((32, 32, 3), label_shape=(1,))


def boston_housing_load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """`tf.keras.datasets.boston_housing.load_data()`: float64 (N, 13) features, (N,) prices."""
    def split(count):
        return _rng.rand(count, 13) * 100.0, _rng.rand(count) * 50.0
    return split(404), split(102)


def mnist_npz(path):
    """Write an `mnist.npz` like the one `tf.keras.utils.get_file` downloads; return `path`."""
    (x_train, y_train), (x_test, y_test) = mnist_load_data()
    np.savez(path, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test)
    return path


class DataSet:
    """`tensorflow.examples.tutorials.mnist` DataSet: float32 images in [0, 1], labels
    uint8 (or float64 one-hot, as TF's `dense_to_one_hot` gives), `next_batch` with
    TF's epoch bookkeeping (reshuffle at each epoch end)."""

    def __init__(self, images, labels):
        self._images = images
        self._labels = labels
        self._num_examples = images.shape[0]
        self._epochs_completed = 0
        self._index_in_epoch = 0

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        if self._index_in_epoch + batch_size > self._num_examples:
            self._epochs_completed += 1
            self._index_in_epoch = 0
            if shuffle:
                order = _rng.permutation(self._num_examples)
                self._images, self._labels = self._images[order], self._labels[order]
        start = self._index_in_epoch
        self._index_in_epoch += batch_size
        return self._images[start:self._index_in_epoch], self._labels[start:self._index_in_epoch]


Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=np.float32, reshape=True,
                   validation_size=VALIDATION_SIZE, seed=None, source_url=None):
    """`input_data.read_data_sets`: train / validation / test DataSets of random digits."""
    def dataset(count):
        images = _rng.rand(count, 28, 28, 1).astype(np.float32)
        if reshape:
            images = images.reshape(count, 784)
        labels = _labels(count, 10)
        if one_hot:
            labels = np.eye(10)[labels]
        return DataSet(images, labels)
    return Datasets(dataset(TRAIN_SIZE), dataset(VALIDATION_SIZE), dataset(TEST_SIZE))


def text_corpus_words(count=20000, vocabulary=500):
    """A word list standing in for text8: Zipf-distributed words `w0`, `w1`, ..."""
    ranks = np.minimum(_rng.zipf(1.3, size=count), vocabulary) - 1
    return ["w%d" % rank for rank in ranks]
