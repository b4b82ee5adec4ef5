"""`tf.keras.preprocessing.sequence` as Keras 2.15 defines it: `TimeseriesGenerator`,
`make_sampling_table`, `skipgrams` (`pad_sequences` lives in `keras/utils/data_utils.py`).

`skipgrams` draws from Python's `random` module and `TimeseriesGenerator(shuffle=True)` from
numpy's global generator, as Keras does, so seeding them gives Keras' samples.
"""
import json
import random

import numpy as np

from tfcompat._api import tf_export
from tfcompat.keras.utils.data_utils import Sequence


@tf_export("keras.preprocessing.sequence.TimeseriesGenerator")
class TimeseriesGenerator(Sequence):
    """Batches of windows over `data`: the sample for row `r` is
    `data[r - length:r:sampling_rate]` with target `targets[r]`, rows from
    `start_index + length` to `end_index` every `stride`."""

    def __init__(self, data, targets, length, sampling_rate=1, stride=1, start_index=0,
                 end_index=None, shuffle=False, reverse=False, batch_size=128):
        if len(data) != len(targets):
            raise ValueError("Data and targets have to be of same length. Data length is %d "
                             "while target length is %d" % (len(data), len(targets)))
        self.data = data
        self.targets = targets
        self.length = length
        self.sampling_rate = sampling_rate
        self.stride = stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle = shuffle
        self.reverse = reverse
        self.batch_size = batch_size
        if self.start_index > self.end_index:
            raise ValueError("`start_index+length=%i > end_index=%i` is disallowed, as no "
                             "part of the sequence would be left to be used as current step."
                             % (self.start_index, self.end_index))

    def __len__(self):
        rows_per_batch = self.batch_size * self.stride
        return (self.end_index - self.start_index + rows_per_batch) // rows_per_batch

    def __getitem__(self, index):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1,
                                     size=self.batch_size)
        else:
            first = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(first, min(first + self.batch_size * self.stride,
                                        self.end_index + 1), self.stride)
        samples = np.array([self.data[row - self.length:row:self.sampling_rate]
                            for row in rows])
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets

    def get_config(self):
        """Keras' config: data and targets as JSON strings, then the settings."""
        def as_json(values, what):
            if type(values).__module__ == np.__name__:
                values = values.tolist()
            try:
                return json.dumps(values)
            except TypeError as e:
                raise TypeError("%s not JSON Serializable:" % what, values) from e
        return {"data": as_json(self.data, "Data"),
                "targets": as_json(self.targets, "Targets"),
                "length": self.length, "sampling_rate": self.sampling_rate,
                "stride": self.stride, "start_index": self.start_index,
                "end_index": self.end_index, "shuffle": self.shuffle,
                "reverse": self.reverse, "batch_size": self.batch_size}

    def to_json(self, **kwargs):
        """The generator as Keras' JSON (`kwargs` go to `json.dumps`)."""
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)


@tf_export("keras.preprocessing.sequence.make_sampling_table")
def make_sampling_table(size, sampling_factor=1e-5):
    """Keras' word2vec sampling probabilities for word ranks `0..size-1`, from Zipf's law:
    `min(1, sqrt(sampling_factor * inv_freq))` (rank 0 counted as rank 1)."""
    rank = np.arange(size)
    rank[0] = 1
    inverse_frequency = rank * (np.log(rank) + 0.577) + 0.5 - 1.0 / (12.0 * rank)
    scaled = sampling_factor * inverse_frequency
    return np.minimum(1.0, scaled / np.sqrt(scaled))


@tf_export("keras.preprocessing.sequence.skipgrams")
def skipgrams(sequence, vocabulary_size, window_size=4, negative_samples=1.0, shuffle=True,
              categorical=False, sampling_table=None, seed=None):
    """(couples, labels) of word2vec skip-grams as Keras makes them: each pair of non-zero
    words within `window_size` is labelled 1 (words dropped by `sampling_table` first),
    then `negative_samples` times as many random pairs labelled 0, both shuffled alike."""
    couples, labels = [], []
    positive, negative = ([0, 1], [1, 0]) if categorical else (1, 0)
    for i, word in enumerate(sequence):
        if not word:
            continue
        if sampling_table is not None and sampling_table[word] < random.random():
            continue
        for j in range(max(0, i - window_size), min(len(sequence), i + window_size + 1)):
            if j != i and sequence[j]:
                couples.append([word, sequence[j]])
                labels.append(positive)
    if negative_samples > 0:
        num_negative = int(len(labels) * negative_samples)
        words = [couple[0] for couple in couples]
        random.shuffle(words)
        couples += [[words[i % len(words)], random.randint(1, int(vocabulary_size - 1))]
                    for i in range(num_negative)]
        labels += [negative] * num_negative
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(10e6))
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels
