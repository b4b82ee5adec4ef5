"""`tf.keras.datasets.cifar100`."""
import os

from tfcompat._api import tf_export
from tfcompat.keras.datasets import cifar


@tf_export("keras.datasets.cifar100.load_data",
           v1=["contrib.keras.datasets.cifar100.load_data"])
def load_data(label_mode="fine"):
    """CIFAR-100 from `<Keras cache>/datasets/cifar-100-python/` (or its .tar.gz): uint8
    images (N, 32, 32, 3) (channels_last) and int64 labels (N, 1), "fine" (100 classes) or
    "coarse" (20)."""
    if label_mode not in ("fine", "coarse"):
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`.')
    path = cifar.directory("cifar-100-python", "cifar-100-python.tar.gz")
    key = label_mode + "_labels"
    x_train, y_train = cifar.load_batch(os.path.join(path, "train"), label_key=key)
    x_test, y_test = cifar.load_batch(os.path.join(path, "test"), label_key=key)
    return cifar.finish(x_train, y_train, x_test, y_test, "int64")
