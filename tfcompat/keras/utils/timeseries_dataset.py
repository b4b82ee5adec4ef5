"""`tf.keras.utils.timeseries_dataset_from_array` as Keras 2.15 defines it.

Windows, targets, their order without `shuffle` and the start positions' shuffle
(`np.random.RandomState(seed)`) are Keras'; the extra `Dataset.shuffle` Keras applies draws
from our stream, not TF's. Where we differ in how, not what: each batch of windows is one
gather from the data instead of one gather per window.
"""
import numpy as np

from tfcompat._api import tf_export
from tfcompat.data.dataset_ops import Dataset
from tfcompat.ops import array_ops


def _check_arguments(length, sequence_stride, sampling_rate, start_index, end_index):
    if start_index:
        if start_index < 0:
            raise ValueError("`start_index` must be 0 or greater. Received: start_index=%s"
                             % (start_index,))
        if start_index >= length:
            raise ValueError("`start_index` must be lower than the length of the data. "
                             "Received: start_index=%s, for data of length %d"
                             % (start_index, length))
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError("`end_index` must be higher than `start_index`. Received: "
                             "start_index=%s, and end_index=%s " % (start_index, end_index))
        if end_index >= length:
            raise ValueError("`end_index` must be lower than the length of the data. "
                             "Received: end_index=%s, for data of length %d"
                             % (end_index, length))
        if end_index <= 0:
            raise ValueError("`end_index` must be higher than 0. Received: end_index=%s"
                             % (end_index,))
    for name, value in (("sampling_rate", sampling_rate),
                        ("sequence_stride", sequence_stride)):
        if value <= 0:
            raise ValueError("`%s` must be higher than 0. Received: %s=%s"
                             % (name, name, value))
        if value >= length:
            raise ValueError("`%s` must be lower than the length of the data. Received: "
                             "%s=%s, for data of length %d" % (name, name, value, length))


@tf_export("keras.utils.timeseries_dataset_from_array",
           "keras.preprocessing.timeseries_dataset_from_array")
def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None):
    """A `tf.data.Dataset` of windows over `data` (axis 0 is time): the window starting at
    `start_index + p` is `data[start_index + p + sampling_rate * k]` for `k <
    sequence_length`, `p` every `sequence_stride`; with `targets`, its target is
    `targets[start_index + p]` (Keras' rule). Batches of `batch_size` (None: single
    windows)."""
    _check_arguments(len(data), sequence_stride, sampling_rate, start_index, end_index)
    start_index = start_index or 0
    end_index = len(data) if end_index is None else end_index
    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    index_dtype = "int32" if num_seqs < 2147483647 else "int64"
    start_positions = np.arange(0, num_seqs, sequence_stride, dtype=index_dtype)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(start_positions)
    steps = np.asarray(data[start_index:end_index])
    offsets = np.arange(0, sequence_length * sampling_rate, sampling_rate,
                        dtype=index_dtype)
    target_steps = None if targets is None else np.asarray(targets[start_index:end_index])

    def windows(positions):
        batch = array_ops.gather(steps, array_ops.expand_dims(positions, -1) + offsets)
        if target_steps is None:
            return batch
        return batch, array_ops.gather(target_steps, positions)

    dataset = Dataset.from_tensor_slices(start_positions)
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1024 if batch_size is None else batch_size * 8,
                                  seed=seed)
    if batch_size is not None:
        dataset = dataset.batch(batch_size)
    return dataset.map(windows).prefetch(-1)
