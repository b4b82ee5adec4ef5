"""`tf.keras.datasets.cifar10`."""
import os

import numpy as np

from tfcompat._api import tf_export
from tfcompat.keras.datasets import cifar


@tf_export("keras.datasets.cifar10.load_data", v1=["contrib.keras.datasets.cifar10.load_data"])
def load_data():
    """CIFAR-10 from `<Keras cache>/datasets/cifar-10-batches-py/` (or its .tar.gz): uint8
    images (N, 32, 32, 3) (channels_last) and uint8 labels (N, 1)."""
    path = cifar.directory("cifar-10-batches-py", "cifar-10-python.tar.gz")
    batches = [cifar.load_batch(os.path.join(path, "data_batch_%d" % i)) for i in range(1, 6)]
    x_train = np.concatenate([x for x, _ in batches]).astype("uint8")
    y_train = [label for _, labels in batches for label in labels]
    x_test, y_test = cifar.load_batch(os.path.join(path, "test_batch"))
    return cifar.finish(x_train, y_train, x_test, y_test, "uint8")
