"""TF utilities (`tf.nest`)."""
from tfcompat.util import nest  # noqa: F401
