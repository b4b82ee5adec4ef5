"""`tf.keras.preprocessing.text` as Keras 2.15 defines it: `Tokenizer`, `text_to_word_sequence`,
`one_hot`, `hashing_trick`, `tokenizer_from_json`.

Pure Python, as in Keras. `one_hot` (and `hashing_trick` without `hash_function`) use Python's
`hash`, which is salted per process unless `PYTHONHASHSEED` is set, as in Keras.
`tokenizer_from_json` reads JSON only; the `analyzer` callable is not saved (as in Keras).
"""
import collections
import hashlib
import json

import numpy as np

from tfcompat._api import tf_export

DEFAULT_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


@tf_export("keras.preprocessing.text.text_to_word_sequence")
def text_to_word_sequence(input_text, filters=DEFAULT_FILTERS, lower=True, split=" "):
    """Words of `input_text`: lowercased if `lower`, each character of `filters` replaced by
    `split`, split on `split`, empty strings dropped."""
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({c: split for c in filters}))
    return [word for word in input_text.split(split) if word]


def _md5_hash(word):
    return int(hashlib.md5(word.encode()).hexdigest(), 16)


@tf_export("keras.preprocessing.text.hashing_trick")
def hashing_trick(text, n, hash_function=None, filters=DEFAULT_FILTERS, lower=True,
                  split=" ", analyzer=None):
    """Each word of `text` as `hash_function(word) % (n - 1) + 1` (index 0 is never used);
    `hash_function` is Python's `hash` by default, or `"md5"` (stable across runs)."""
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        hash_function = _md5_hash
    words = (analyzer(text) if analyzer is not None
             else text_to_word_sequence(text, filters=filters, lower=lower, split=split))
    return [hash_function(word) % (n - 1) + 1 for word in words]


@tf_export("keras.preprocessing.text.one_hot")
def one_hot(input_text, n, filters=DEFAULT_FILTERS, lower=True, split=" ", analyzer=None):
    """`hashing_trick` with Python's `hash` (Keras' name for it: not a one-hot matrix)."""
    return hashing_trick(input_text, n, hash_function=hash, filters=filters, lower=lower,
                         split=split, analyzer=analyzer)


@tf_export("keras.preprocessing.text.Tokenizer")
class Tokenizer(object):
    """Keras 2's word (or character) indexer: `fit_on_texts` counts words, ranking them by
    count (ties in first-seen order) from index 1, the `oov_token` first; `num_words` keeps
    indices below it when texts are converted."""

    def __init__(self, num_words=None, filters=DEFAULT_FILTERS, lower=True, split=" ",
                 char_level=False, oov_token=None, analyzer=None, **kwargs):
        if "nb_words" in kwargs:
            num_words = kwargs.pop("nb_words")
        document_count = kwargs.pop("document_count", 0)
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        self.word_counts = collections.OrderedDict()
        self.word_docs = collections.defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs = collections.defaultdict(int)
        self.word_index = {}
        self.index_word = {}
        self.analyzer = analyzer

    def _tokens(self, text):
        """A text's tokens: a list or a character-level text as given (lowercased if
        `lower`), else its words."""
        if self.char_level or isinstance(text, list):
            if not self.lower:
                return text
            return [token.lower() for token in text] if isinstance(text, list) else text.lower()
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, filters=self.filters, lower=self.lower,
                                     split=self.split)

    def fit_on_texts(self, texts):
        """Counts the tokens of `texts` (strings, or lists of tokens) and rebuilds
        `word_index` / `index_word` / `index_docs`."""
        for text in texts:
            self.document_count += 1
            tokens = self._tokens(text)
            for token in tokens:
                self.word_counts[token] = self.word_counts.get(token, 0) + 1
            for token in set(tokens):
                self.word_docs[token] += 1
        by_count = sorted(self.word_counts.items(), key=lambda item: item[1], reverse=True)
        vocabulary = ([] if self.oov_token is None else [self.oov_token])
        vocabulary += [word for word, _ in by_count]
        self.word_index = {word: index for index, word in enumerate(vocabulary, 1)}
        self.index_word = {index: word for word, index in self.word_index.items()}
        for word, count in self.word_docs.items():
            self.index_docs[self.word_index[word]] = count

    def fit_on_sequences(self, sequences):
        """Counts, per index, the sequences it appears in (for `tfidf` without texts)."""
        self.document_count += len(sequences)
        for sequence in sequences:
            for index in set(sequence):
                self.index_docs[index] += 1

    def _kept_index(self, index, oov_index):
        """`index` if `num_words` keeps it, else the OOV index (None: dropped)."""
        if self.num_words and index >= self.num_words:
            return oov_index
        return index

    def texts_to_sequences_generator(self, texts):
        """Yields each text as a list of word indices (unknown words: the OOV index, or
        dropped without `oov_token`)."""
        oov_index = self.word_index.get(self.oov_token)
        for text in texts:
            indices = []
            for token in self._tokens(text):
                index = self.word_index.get(token)
                kept = oov_index if index is None else self._kept_index(index, oov_index)
                if kept is not None:
                    indices.append(kept)
            yield indices

    def texts_to_sequences(self, texts):
        """`texts` as lists of word indices."""
        return list(self.texts_to_sequences_generator(texts))

    def sequences_to_texts_generator(self, sequences):
        """Yields each index sequence as a space-joined text."""
        oov_index = self.word_index.get(self.oov_token)
        for sequence in sequences:
            words = []
            for index in sequence:
                kept = (oov_index if self.index_word.get(index) is None
                        else self._kept_index(index, oov_index))
                if kept is not None:
                    words.append(self.index_word[kept])
            yield " ".join(words)

    def sequences_to_texts(self, sequences):
        """Index sequences back to space-joined texts."""
        return list(self.sequences_to_texts_generator(sequences))

    def texts_to_matrix(self, texts, mode="binary"):
        """`sequences_to_matrix` of `texts_to_sequences(texts)`."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        """A float64 `(len(sequences), num_words)` matrix, one row per sequence: `binary`
        (1 where an index occurs), `count`, `freq` (count / sequence length) or `tfidf`
        (`(1 + log count) * log(1 + documents / (1 + documents with the index))`)."""
        if self.num_words:
            num_words = self.num_words
        elif self.word_index:
            num_words = len(self.word_index) + 1
        else:
            raise ValueError("Specify a dimension (`num_words` argument), or fit on some "
                             "text data first.")
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        if mode not in ("binary", "count", "freq", "tfidf"):
            raise ValueError("Unknown vectorization mode:", mode)
        matrix = np.zeros((len(sequences), num_words))
        for row, sequence in enumerate(sequences):
            counts = collections.Counter(index for index in sequence if index < num_words)
            for index, count in counts.items():
                if mode == "count":
                    matrix[row, index] = count
                elif mode == "freq":
                    matrix[row, index] = count / len(sequence)
                elif mode == "binary":
                    matrix[row, index] = 1
                else:
                    idf = np.log(1 + self.document_count
                                 / (1 + self.index_docs.get(index, 0)))
                    matrix[row, index] = (1 + np.log(count)) * idf
        return matrix

    def get_config(self):
        """Keras' config: the settings, and the vocabularies as JSON strings."""
        return {
            "num_words": self.num_words, "filters": self.filters, "lower": self.lower,
            "split": self.split, "char_level": self.char_level, "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs):
        """The tokenizer as Keras' JSON (`kwargs` go to `json.dumps`)."""
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)


@tf_export("keras.preprocessing.text.tokenizer_from_json")
def tokenizer_from_json(json_string):
    """A `Tokenizer` from `Tokenizer.to_json()`'s JSON (plain data; nothing is executed)."""
    config = dict(json.loads(json_string).get("config"))
    word_counts = json.loads(config.pop("word_counts"))
    word_docs = json.loads(config.pop("word_docs"))
    index_docs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    index_word = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    word_index = json.loads(config.pop("word_index"))
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = word_counts
    tokenizer.word_docs = word_docs
    tokenizer.index_docs = index_docs
    tokenizer.word_index = word_index
    tokenizer.index_word = index_word
    return tokenizer
