"""`tf.estimator.export`: serving input receivers and export outputs (registered by the
modules)."""
from tfcompat.estimator.export import export, export_output  # noqa: F401
