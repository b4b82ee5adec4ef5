"""TF 1.x `tf.contrib.eager` (tfe), TF's `tensorflow/contrib/eager/python`: `tfe` (gradient
functions, execution modes), `network` (tfe.Network), `saver` (tfe.Saver); `metrics` loads
with `tfe.metrics`."""
from tfcompat.contrib.eager import network, saver, tfe  # noqa: F401
