"""`tf.keras.datasets.imdb`."""
import json
import logging

import numpy as np

from tfcompat._api import tf_export
from tfcompat.keras.datasets import _cache


@tf_export("keras.datasets.imdb.load_data", v1=["contrib.keras.datasets.imdb.load_data"])
def load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113,
              start_char=1, oov_char=2, index_from=3, **kwargs):
    """IMDB reviews from `<Keras cache>/datasets/imdb.npz` as Keras returns them: object
    arrays of word-index lists (shuffled with `seed`, shifted by `index_from`, starting with
    `start_char`, words outside [skip_top, num_words) as `oov_char`) and int labels."""
    if "nb_words" in kwargs:
        logging.getLogger("tensorflow").warning(
            "The `nb_words` argument in `load_data` has been renamed `num_words`.")
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
    f = _cache.load_npz(_cache.cached_file(path, "imdb.npz"))
    rng = np.random.RandomState(seed)
    parts = []
    for x_key, y_key in (("x_train", "y_train"), ("x_test", "y_test")):
        order = np.arange(len(f[x_key]))
        rng.shuffle(order)
        xs = _cache.shift_words(f[x_key][order], start_char, index_from)
        labels = f[y_key][order]
        if maxlen:
            xs, labels = _cache.remove_long_sequences(maxlen, xs, labels)
        parts.append((xs, labels))
    (x_train, labels_train), (x_test, labels_test) = parts
    if maxlen and (not x_train or not x_test):
        raise ValueError("After filtering for sequences shorter than maxlen=%s, no sequence "
                         "was kept. Increase maxlen." % (maxlen,))
    xs = _cache.limit_words(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([np.asarray(labels_train), np.asarray(labels_test)])
    split = len(x_train)
    return ((_cache.object_array(xs[:split]), labels[:split]),
            (_cache.object_array(xs[split:]), labels[split:]))


@tf_export("keras.datasets.imdb.get_word_index",
           v1=["contrib.keras.datasets.imdb.get_word_index"])
def get_word_index(path="imdb_word_index.json"):
    """{word: index} from `<Keras cache>/datasets/imdb_word_index.json`."""
    with open(_cache.cached_file(path, "imdb_word_index.json")) as f:
        return json.load(f)
