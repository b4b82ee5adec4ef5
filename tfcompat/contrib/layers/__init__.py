"""TF 1.x `tf.contrib.layers`: layer functions, initializers, regularizers, optimize_loss."""
from tfcompat.contrib.layers import (initializers, layers, optimizers,  # noqa: F401
                                     regularizers, summaries)
