"""`tf.keras.datasets.fashion_mnist`."""
import gzip
import os

import numpy as np

from tfcompat._api import tf_export
from tfcompat.keras.datasets import _cache

_FILES = ("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
          "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")


def _read(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


@tf_export("keras.datasets.fashion_mnist.load_data",
           v1=["contrib.keras.datasets.fashion_mnist.load_data"])
def load_data():
    """Fashion-MNIST from the four IDX files in `<Keras cache>/datasets/fashion-mnist/`:
    uint8 images (60000/10000, 28, 28) and uint8 labels."""
    paths = [_cache.cached_file(name, cache_subdir=os.path.join("datasets", "fashion-mnist"))
             for name in _FILES]
    y_train, y_test = _read(paths[0], 8), _read(paths[2], 8)
    x_train = _read(paths[1], 16).reshape(len(y_train), 28, 28)
    x_test = _read(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
