"""`tf.keras.datasets.reuters`."""
import json
import logging

import numpy as np

from tfcompat._api import tf_export
from tfcompat.keras.datasets import _cache

_LABELS = ("cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing",
           "money-supply", "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass",
           "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum",
           "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi",
           "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
           "dlr", "gas", "silver", "wpi", "hog", "lead")


@tf_export("keras.datasets.reuters.load_data", v1=["contrib.keras.datasets.reuters.load_data"])
def load_data(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2,
              seed=113, start_char=1, oov_char=2, index_from=3, **kwargs):
    """Reuters newswires from `<Keras cache>/datasets/reuters.npz` as Keras returns them
    (see `imdb.load_data`), the last `test_split` of the shuffled data for testing."""
    if "nb_words" in kwargs:
        logging.getLogger("tensorflow").warning(
            "The `nb_words` argument in `load_data` has been renamed `num_words`.")
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
    f = _cache.load_npz(_cache.cached_file(path, "reuters.npz"))
    order = np.arange(len(f["x"]))
    np.random.RandomState(seed).shuffle(order)
    xs = _cache.shift_words(f["x"][order], start_char, index_from)
    labels = f["y"][order]
    if maxlen:
        xs, labels = _cache.remove_long_sequences(maxlen, xs, labels)
    xs = _cache.limit_words(xs, num_words, skip_top, oov_char)
    split = int(len(xs) * (1 - test_split))
    return ((_cache.object_array(xs[:split]), np.array(labels[:split])),
            (_cache.object_array(xs[split:]), np.array(labels[split:])))


@tf_export("keras.datasets.reuters.get_word_index",
           v1=["contrib.keras.datasets.reuters.get_word_index"])
def get_word_index(path="reuters_word_index.json"):
    """{word: index} from `<Keras cache>/datasets/reuters_word_index.json`."""
    with open(_cache.cached_file(path, "reuters_word_index.json")) as f:
        return json.load(f)


@tf_export("keras.datasets.reuters.get_label_names")
def get_label_names():
    """The 46 topic names, indexed by label."""
    return _LABELS
