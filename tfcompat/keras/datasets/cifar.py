"""Reading CIFAR batch files (Keras' `load_batch`) and shaping them as Keras does."""
import numpy as np

from tfcompat.keras import backend
from tfcompat.keras.datasets import _cache
from tfcompat.keras.utils.data_utils import get_file


def load_batch(fpath, label_key="labels"):
    """(data (N, 3, 32, 32) uint8, labels list) of one pickled CIFAR batch."""
    with open(fpath, "rb") as f:
        batch = _cache.load_pickle(f)
    batch = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in batch.items()}
    data = np.asarray(batch["data"])
    return data.reshape(data.shape[0], 3, 32, 32), batch[label_key]


def directory(dirname, archive):
    """The extracted CIFAR directory in the Keras cache (extracting the archive if needed)."""
    return get_file(dirname, origin="https://www.cs.toronto.edu/~kriz/" + archive,
                           untar=True)


def finish(x_train, y_train, x_test, y_test, label_dtype):
    """Labels as (N, 1) columns, images channels-last unless `image_data_format()` says
    channels_first."""
    y_train = np.reshape(np.asarray(y_train, dtype=label_dtype), (len(y_train), 1))
    y_test = np.reshape(np.asarray(y_test, dtype=label_dtype), (len(y_test), 1))
    if backend.image_data_format() == "channels_last":
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test)
