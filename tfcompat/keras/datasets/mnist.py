"""`tf.keras.datasets.mnist`."""
from tfcompat._api import tf_export
from tfcompat.keras.datasets import _cache


@tf_export("keras.datasets.mnist.load_data", v1=["contrib.keras.datasets.mnist.load_data"])
def load_data(path="mnist.npz"):
    """MNIST from `<Keras cache>/datasets/mnist.npz`: `(x_train, y_train), (x_test, y_test)`,
    uint8 images (60000/10000, 28, 28) and uint8 labels (Keras' arrays as stored)."""
    f = _cache.load_npz(_cache.cached_file(path, "mnist.npz"))
    return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])
