"""`tf.contrib.learn.ModeKeys`: the mode strings of contrib.learn model functions."""
from tfcompat._api import tf_export


@tf_export("contrib.learn.ModeKeys")
class ModeKeys(object):
    """TRAIN, EVAL and INFER ("train", "eval", "infer")."""

    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"
