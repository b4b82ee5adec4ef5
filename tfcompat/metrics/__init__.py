"""TF1 `tf.metrics`: streaming metrics (value and update op pairs), in `metrics_impl`."""
from tfcompat.metrics import metrics_impl  # noqa: F401
