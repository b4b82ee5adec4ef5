"""`tf.keras.datasets`: Keras' datasets, read from the Keras cache (`~/.keras/datasets`)."""
from tfcompat.keras.datasets import (boston_housing, cifar10, cifar100, fashion_mnist, imdb,
                                     mnist, reuters)

__all__ = ["boston_housing", "cifar10", "cifar100", "fashion_mnist", "imdb", "mnist",
           "reuters"]
