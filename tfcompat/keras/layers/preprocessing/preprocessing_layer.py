"""`tf.keras.layers.experimental.preprocessing.PreprocessingLayer`: a layer whose state
`adapt` computes from data (Keras 2's `base_preprocessing_layer.py`).

`adapt(data, batch_size, steps)` resets the state, feeds `update_state` each batch of
`data` (a numpy array, list, tensor or a batched `tf.data.Dataset`; arrays are cut into
batches of `batch_size`, 32 by default) and calls `finalize_state`, as Keras does. Adapting
always runs eagerly, on numpy values; where Keras compiles an adapt function we do not.
"""
import numpy as np

from tfcompat._api import tf_export
from tfcompat.data.dataset_ops import Dataset
from tfcompat.framework import ops
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor


def to_numpy(value):
    """A numpy array of `value` (tensor, variable, list; strings as an object array of bytes;
    a RaggedTensor as a list of its rows)."""
    if isinstance(value, RaggedTensor):
        return value.to_list()
    if ops.is_tensor(value) or hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    array = np.asarray(value)
    if array.dtype.kind == "U":
        return np.vectorize(lambda s: s.encode("utf-8"), otypes=[object])(array)
    return array


def adapt_batches(data, batch_size=None, steps=None):
    """The batches `adapt` reads from `data`, as numpy arrays."""
    if isinstance(data, Dataset):
        for step, element in enumerate(data):
            if steps is not None and step >= steps:
                return
            yield to_numpy(element)
        return
    array = to_numpy(data)
    if isinstance(array, list):
        yield array
        return
    batch_size = batch_size or 32
    count = array.shape[0] if array.ndim else 1
    for step, start in enumerate(range(0, max(count, 1), batch_size)):
        if steps is not None and step >= steps:
            return
        yield array[start:start + batch_size] if array.ndim else array


@tf_export("keras.layers.experimental.preprocessing.PreprocessingLayer")
class PreprocessingLayer(Layer):
    """Base of the adaptable preprocessing layers: `update_state` / `reset_state` /
    `finalize_state`, driven by `adapt`."""

    _is_adapted = False

    @property
    def is_adapted(self):
        """Whether `adapt` has been called on this layer."""
        return self._is_adapted

    def update_state(self, data):
        raise NotImplementedError("%s has no `update_state`" % type(self).__name__)

    def reset_state(self):
        """Clear what `update_state` accumulated."""

    def finalize_state(self):
        """Turn the accumulated state into the layer's weights / tables."""

    def adapt(self, data, batch_size=None, steps=None):
        """Compute the layer's state from `data` (see the module docstring)."""
        if self.built:
            self.reset_state()
        for batch in adapt_batches(data, batch_size, steps):
            self._adapt_maybe_build(batch)
            self.update_state(batch)
        self.finalize_state()
        self._is_adapted = True

    def _adapt_maybe_build(self, batch):
        """Build from the first batch's shape; the layer then takes inputs of that rank, any
        sizes (Keras' `batch_input_shape` of Nones)."""
        if self.built:
            return
        shape = getattr(batch, "shape", None)
        if getattr(self, "_batch_input_shape", None) is None and shape is not None:
            self._batch_input_shape = (None,) * len(shape)
        self.build(shape)
        self.built = True
