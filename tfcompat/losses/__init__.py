"""TF1 `tf.losses` (the implementation is in `losses_impl`)."""
from tfcompat.losses import losses_impl  # noqa: F401
