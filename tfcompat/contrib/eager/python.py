"""TF's `tensorflow.contrib.eager.python` package as scripts import it
(`from tensorflow.contrib.eager.python import tfe`): its `tfe` module is tf.contrib.eager."""
from tfcompat.contrib import eager as tfe  # noqa: F401
