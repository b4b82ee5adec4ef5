"""tfcompat.estimator.canned: TF's premade estimators."""
from tfcompat.estimator.canned import dnn, linear  # noqa: F401
