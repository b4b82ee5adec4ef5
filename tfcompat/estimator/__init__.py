"""tfcompat.estimator: `tf.estimator` (symbols are registered by the modules themselves)."""
from tfcompat.estimator import model_fn, run_config, estimator, training  # noqa: F401
from tfcompat.estimator import inputs  # noqa: F401
from tfcompat.estimator import canned  # noqa: F401
from tfcompat.estimator import export  # noqa: F401
