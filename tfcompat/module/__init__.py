"""tfcompat.module: `tf.Module`."""
from tfcompat.module.module import Module  # noqa: F401
