"""tfcompat.feature_column: `tf.feature_column` (symbols are registered by the modules)."""
from tfcompat.feature_column import feature_column  # noqa: F401
