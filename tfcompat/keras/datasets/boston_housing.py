"""`tf.keras.datasets.boston_housing`."""
import numpy as np

from tfcompat._api import tf_export
from tfcompat.keras.datasets import _cache


@tf_export("keras.datasets.boston_housing.load_data",
           v1=["contrib.keras.datasets.boston_housing.load_data"])
def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """Boston housing from `<Keras cache>/datasets/boston_housing.npz`, shuffled with
    `seed` and split as Keras does: `(x_train, y_train), (x_test, y_test)`."""
    if not 0 <= test_split < 1:
        raise ValueError("test_split must be in [0, 1), got %r" % (test_split,))
    f = _cache.load_npz(_cache.cached_file(path, "boston_housing.npz"))
    x, y = f["x"], f["y"]
    order = np.arange(len(x))
    np.random.RandomState(seed).shuffle(order)
    x, y = x[order], y[order]
    split = int(len(x) * (1 - test_split))
    return (np.array(x[:split]), np.array(y[:split])), (np.array(x[split:]), np.array(y[split:]))
