"""TF's platform modules: tf.app, tf.flags (tf.app.flags) and tf.logging."""
from tfcompat.platform import app, flags, tf_logging  # noqa: F401
