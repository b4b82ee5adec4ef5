"""`tf.contrib.learn.datasets`: the MNIST reader (`mnist.read_data_sets`) and
`base.maybe_download`, as TF 1.15 had them, without downloading.

read_data_sets reads the four standard gzipped IDX files from `train_dir`; a missing file
raises NotFoundError saying where to put it. Images become float32 in [0, 1] (or stay
uint8), flattened to 784 columns unless reshape=False; labels are uint8 or one-hot float64.
`DataSet.next_batch` shuffles with numpy's global generator at each epoch as TF did (the
DataSet constructor seeds it from `seed` / the graph seed).
"""
import collections
import gzip
import os

import numpy as np

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors, random_seed

_PATHS = ("contrib.learn.datasets.", "contrib.learn.python.learn.datasets.")
DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
_TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
_TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
_TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
_TEST_LABELS = "t10k-labels-idx1-ubyte.gz"


def _export(module, name):
    return tf_export(*[prefix + module + "." + name for prefix in _PATHS])


Datasets = _export("base", "Datasets")(
    collections.namedtuple("Datasets", ["train", "validation", "test"]))


@_export("base", "maybe_download")
def maybe_download(filename, work_directory, source_url):
    """The path of `filename` in `work_directory` if it is there. tfcompat never downloads:
    a missing file raises NotFoundError naming `source_url`."""
    filepath = os.path.join(work_directory, filename)
    if not os.path.exists(filepath):
        raise errors.NotFoundError(
            None, None, "%s not found: tfcompat does not download data sets. Download %s and "
            "put it in %s" % (filepath, source_url, work_directory))
    return filepath


def _read32(bytestream):
    return int(np.frombuffer(bytestream.read(4), dtype=">u4")[0])


@_export("mnist", "extract_images")
def extract_images(f):
    """[n, rows, cols, 1] uint8 images from a gzipped IDX3 file object."""
    with gzip.GzipFile(fileobj=f) as bytestream:
        magic = _read32(bytestream)
        if magic != 2051:
            raise ValueError("Invalid magic number %d in MNIST image file: %s"
                             % (magic, getattr(f, "name", f)))
        num_images, rows, cols = (_read32(bytestream) for _ in range(3))
        data = np.frombuffer(bytestream.read(rows * cols * num_images), dtype=np.uint8)
        return data.reshape(num_images, rows, cols, 1)


@_export("mnist", "dense_to_one_hot")
def dense_to_one_hot(labels_dense, num_classes):
    """[n] class ids -> [n, num_classes] float64 one-hot rows."""
    one_hot = np.zeros((labels_dense.shape[0], num_classes))
    one_hot[np.arange(labels_dense.shape[0]), labels_dense.ravel()] = 1
    return one_hot


@_export("mnist", "extract_labels")
def extract_labels(f, one_hot=False, num_classes=10):
    """[n] uint8 labels (or one-hot rows) from a gzipped IDX1 file object."""
    with gzip.GzipFile(fileobj=f) as bytestream:
        magic = _read32(bytestream)
        if magic != 2049:
            raise ValueError("Invalid magic number %d in MNIST label file: %s"
                             % (magic, getattr(f, "name", f)))
        num_items = _read32(bytestream)
        labels = np.frombuffer(bytestream.read(num_items), dtype=np.uint8)
        return dense_to_one_hot(labels, num_classes) if one_hot else labels


@_export("mnist", "DataSet")
class DataSet(object):
    """Images and labels served in shuffled mini-batches (`next_batch`)."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=dtypes.float32,
                 reshape=True, seed=None):
        graph_seed, op_seed = random_seed.get_seed(seed)
        np.random.seed(graph_seed if seed is None else op_seed)
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype not in (dtypes.uint8, dtypes.float32):
            raise TypeError("Invalid image dtype %r, expected uint8 or float32" % dtype)
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError("images.shape: %s labels.shape: %s"
                                 % (images.shape, labels.shape))
            self._num_examples = images.shape[0]
            if reshape:
                if images.shape[3] != 1:
                    raise ValueError("reshape=True needs single-channel images, got shape %s"
                                     % (images.shape,))
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == dtypes.float32:
                images = images.astype(np.float32) * (1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self):
        return self._num_examples

    @property
    def epochs_completed(self):
        return self._epochs_completed

    def _shuffle(self):
        perm = np.arange(self._num_examples)
        np.random.shuffle(perm)
        self._images = self._images[perm]
        self._labels = self._labels[perm]

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next `batch_size` examples; an epoch's last batch is completed with the first
        examples of the next (reshuffled) epoch."""
        if fake_data:
            image = [1] * 784
            label = [1] + [0] * 9 if self.one_hot else 0
            return [image] * batch_size, [label] * batch_size
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch += batch_size
            return self._images[start:self._index_in_epoch], \
                self._labels[start:self._index_in_epoch]
        self._epochs_completed += 1
        rest_images = self._images[start:self._num_examples]
        rest_labels = self._labels[start:self._num_examples]
        if shuffle:
            self._shuffle()
        self._index_in_epoch = batch_size - (self._num_examples - start)
        end = self._index_in_epoch
        return (np.concatenate((rest_images, self._images[:end]), axis=0),
                np.concatenate((rest_labels, self._labels[:end]), axis=0))


def _read(train_dir, filename, source_url, extract, **kwargs):
    with open(maybe_download(filename, train_dir, source_url + filename), "rb") as f:
        return extract(f, **kwargs)


@_export("mnist", "read_data_sets")
def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=dtypes.float32,
                   reshape=True, validation_size=5000, seed=None,
                   source_url=DEFAULT_SOURCE_URL):
    """Datasets(train, validation, test): the first `validation_size` training examples form
    the validation set."""
    if fake_data:
        def fake():
            return DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
        return Datasets(train=fake(), validation=fake(), test=fake())
    source_url = source_url or DEFAULT_SOURCE_URL
    train_images = _read(train_dir, _TRAIN_IMAGES, source_url, extract_images)
    train_labels = _read(train_dir, _TRAIN_LABELS, source_url, extract_labels, one_hot=one_hot)
    test_images = _read(train_dir, _TEST_IMAGES, source_url, extract_images)
    test_labels = _read(train_dir, _TEST_LABELS, source_url, extract_labels, one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError("Validation size should be between 0 and {}. Received: {}."
                         .format(len(train_images), validation_size))
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:],
                      **options),
        validation=DataSet(train_images[:validation_size], train_labels[:validation_size],
                           **options),
        test=DataSet(test_images, test_labels, **options))
