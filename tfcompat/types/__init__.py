"""`tf.types`: the abstract types of TF's public API (tensorflow/python/types)."""
from tfcompat.types import core, trace  # noqa: F401
