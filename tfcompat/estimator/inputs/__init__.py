"""tfcompat.estimator.inputs: `tf.estimator.inputs` (numpy and pandas input functions)."""
from tfcompat.estimator.inputs import numpy_io  # noqa: F401
