"""`tf.saved_model.Asset`: a file a SavedModel carries with it (a vocabulary, say)."""
import os

from tfcompat._api import tf_export
from tfcompat.framework.constant_op import constant


@tf_export("saved_model.Asset")
class Asset(object):
    """As in TF: `asset_path` is a string tensor naming the file; `tf.saved_model.save`
    copies the file into the SavedModel's `assets/` directory, and the loaded object's
    Asset names that copy."""

    def __init__(self, path):
        path = os.fspath(path.numpy() if hasattr(path, "numpy") else path)
        if isinstance(path, bytes):
            path = path.decode("utf-8")
        self._path = path
        self.asset_path = constant(path)

    @property
    def path(self):
        """The file's path, as a Python string."""
        return self._path
