"""`tf.contrib.learn.preprocessing.VocabularyProcessor`: documents -> fixed-length word ids.

As TF 1.15: the default tokenizer splits with TF's regular expression; ids start at 1 in
order of first appearance (0 is "<UNK>" and padding); `min_frequency` keeps the words seen
more than that many times, renumbered by decreasing count (ties alphabetical); `save` /
`restore` pickle the processor. The attribute names are TF's, so vocabularies pickled by
TensorFlow load too (TF's module paths name these classes).

Where we differ: `restore` rebuilds only what a processor pickle holds (these classes, the
default tokenizer, dicts, lists, strings and numbers) and refuses any other global, so a
crafted file cannot run code; a processor saved with a custom `tokenizer_fn` cannot be
restored (TF imports the function the file names).
"""
import collections
import pickle
import re

import numpy as np

from tfcompat._api import tf_export
from tfcompat.util import safe_pickle

_TEXT = ("contrib.learn.preprocessing.", "contrib.learn.python.learn.preprocessing.text.",
         "contrib.learn.python.learn.preprocessing.")
_TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)


@tf_export(*[prefix + "tokenizer" for prefix in _TEXT])
def tokenizer(iterator):
    """Yields the list of tokens of each document."""
    for value in iterator:
        yield _TOKENIZER_RE.findall(value)


@tf_export("contrib.learn.preprocessing.CategoricalVocabulary",
           "contrib.learn.python.learn.preprocessing.CategoricalVocabulary",
           "contrib.learn.python.learn.preprocessing.categorical_vocabulary."
           "CategoricalVocabulary")
class CategoricalVocabulary(object):
    """Category -> id (0 is the unknown token), growing until frozen."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        if support_reverse:
            self._reverse_mapping = [unknown_token]
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        return len(self._mapping)

    def freeze(self, freeze=True):
        self._freeze = freeze

    def get(self, category):
        """The id of `category`, added if new and not frozen (0 when frozen and unknown)."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        if self.get(category) <= 0:
            return
        self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Keeps categories seen more than `min_frequency` (and fewer than `max_frequency`
        times when given), renumbered by decreasing count, ties in sorted order."""
        self._freq = sorted(sorted(self._freq.items(), key=lambda x: (isinstance(x[0], str),
                                                                      x[0])),
                            key=lambda x: x[1], reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        idx = 1
        for category, count in self._freq:
            if 0 < max_frequency <= count:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = idx
            idx += 1
            if self._support_reverse:
                self._reverse_mapping.append(category)
        self._freq = dict(self._freq[:idx - 1])

    def reverse(self, class_id):
        if not self._support_reverse:
            raise ValueError("This vocabulary wasn't initialized with support_reverse to "
                             "support reverse() function.")
        return self._reverse_mapping[class_id]


@tf_export(*[prefix + "VocabularyProcessor" for prefix in _TEXT])
class VocabularyProcessor(object):
    """Maps documents to int64 id arrays of length `max_document_length` (0-padded)."""

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None,
                 tokenizer_fn=None):
        self.max_document_length = max_document_length
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary if vocabulary else CategoricalVocabulary()
        self._tokenizer = tokenizer_fn if tokenizer_fn else tokenizer

    def fit(self, raw_documents, unused_y=None):
        """Learns (then freezes) the vocabulary of the documents."""
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        self.fit(raw_documents)
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        """Yields one int64 array of word ids per document (unknown words are 0)."""
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for idx, token in enumerate(tokens):
                if idx >= self.max_document_length:
                    break
                word_ids[idx] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        """Yields each id sequence as space-joined words ("<UNK>" for 0)."""
        for item in documents:
            yield " ".join(self.vocabulary_.reverse(class_id) for class_id in item)

    def save(self, filename):
        with open(filename, "wb") as f:
            f.write(pickle.dumps(self))

    @classmethod
    def restore(cls, filename):
        """The processor `save` wrote (or TF's, which names the classes by TF's modules)."""
        with open(filename, "rb") as f:
            processor = safe_pickle.load(f, _PICKLED_GLOBALS, "a VocabularyProcessor file")
        if not isinstance(processor, VocabularyProcessor):
            raise ValueError("%s holds a %s, not a VocabularyProcessor"
                             % (filename, type(processor).__name__))
        return processor


def _pickled_globals():
    """(module, name) -> object for every global a processor pickle may name: these classes
    and the default tokenizer under our module and TF's (Python 3 and 2 pickles), and the
    builtins a pickled vocabulary uses."""
    tf_text = "tensorflow.contrib.learn.python.learn.preprocessing."
    homes = {VocabularyProcessor: tf_text + "text", tokenizer: tf_text + "text",
             CategoricalVocabulary: tf_text + "categorical_vocabulary"}
    table = {("collections", "defaultdict"): collections.defaultdict,
             ("builtins", "int"): int, ("__builtin__", "int"): int, ("__builtin__", "long"): int,
             ("builtins", "object"): object, ("__builtin__", "object"): object,
             ("copyreg", "_reconstructor"): None, ("copy_reg", "_reconstructor"): None}
    for obj, tf_module in homes.items():
        for module in (__name__, tf_module, tf_text[:-1],
                       "tensorflow.contrib.learn.preprocessing"):
            table[(module, obj.__name__)] = obj
    return table


_PICKLED_GLOBALS = _pickled_globals()
