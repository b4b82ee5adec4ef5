"""`tf.keras.layers.TextVectorization` (Keras 2.15): standardize, split, n-grams, then a
`StringLookup` with mask token "" (index 0) and OOV "[UNK]" (index 1) in "int" mode.

Built-in steps run on the strings as Keras' do: "lower" lowercases ASCII letters
(`tf.strings.lower`), "strip_punctuation" removes Keras' punctuation class, "whitespace"
splits on runs of ASCII whitespace, "character" into UTF-8 characters, n-grams join tokens
with " " (all 1-grams of a string, then its 2-grams, ...). They and the lookup run as one
graph node per call, so the layer works in models and `tf.data` maps; a callable
`standardize` or `split` runs as the user's TF ops before it. "int" output is padded with 0
(and cut) to `output_sequence_length`, or to the longest row; `ragged=True` gives a
RaggedTensor, `output_mode=None` the tokens themselves.
"""
import re

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras.layers.preprocessing.category_encoding import (
    COUNT, INT, MULTI_HOT, TF_IDF, encode_ids, encoded_shape)
from tfcompat.keras.layers.preprocessing.preprocessing_layer import (PreprocessingLayer,
                                                                     to_numpy)
from tfcompat.keras.layers.preprocessing.string_lookup import StringLookup
from tfcompat.keras.utils.generic_utils import deserialize_keras_object
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor

LOWER_AND_STRIP_PUNCTUATION = "lower_and_strip_punctuation"
LOWER, STRIP_PUNCTUATION = "lower", "strip_punctuation"
WHITESPACE, CHARACTER = "whitespace", "character"
DEFAULT_STRIP_REGEX = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'
_STRIP = re.compile(DEFAULT_STRIP_REGEX.encode())
_STANDARDIZE_MODES = (LOWER_AND_STRIP_PUNCTUATION, LOWER, STRIP_PUNCTUATION)
_SPLIT_MODES = (WHITESPACE, CHARACTER)


def _check_choice(value, allowed, name):
    if value is not None and not callable(value) and value not in allowed:
        raise ValueError("Unknown value for `%s`. Allowed values are: %s. Received: %s"
                         % (name, allowed, value))


def _ngrams(tokens, widths):
    return [b" ".join(tokens[i:i + w]) for w in widths for i in range(len(tokens) - w + 1)]


def _object_array(values):
    if isinstance(values, np.ndarray):
        return values
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _utf8_characters(text):
    return [c.encode("utf-8") for c in text.decode("utf-8", "replace")]


@tf_export(v2=["keras.layers.TextVectorization",
               "keras.layers.experimental.preprocessing.TextVectorization"])
class TextVectorization(PreprocessingLayer):
    """Turn strings into token indices (or multi-hot / count / tf-idf vectors) with a
    vocabulary given or learned by `adapt`."""

    def __init__(self, max_tokens=None, standardize=LOWER_AND_STRIP_PUNCTUATION,
                 split=WHITESPACE, ngrams=None, output_mode=INT, output_sequence_length=None,
                 pad_to_max_tokens=False, vocabulary=None, idf_weights=None, sparse=False,
                 ragged=False, encoding="utf-8", **kwargs):
        if kwargs.get("dtype", "string") not in ("string", dtypes.string):
            raise ValueError("`TextVectorization` may only have a dtype of string. Received "
                             "dtype: %s." % kwargs["dtype"])
        kwargs["dtype"] = "string"
        _check_choice(standardize, _STANDARDIZE_MODES, "standardize")
        _check_choice(split, _SPLIT_MODES, "split")
        output_mode = {"binary": MULTI_HOT, "tf-idf": TF_IDF}.get(output_mode, output_mode)
        if output_mode is not None and output_mode not in (INT, COUNT, MULTI_HOT, TF_IDF):
            raise ValueError("Unknown value for `output_mode`. Allowed values are: %s. "
                             "Received: %s" % ((INT, COUNT, MULTI_HOT, TF_IDF), output_mode))
        if not (ngrams is None or isinstance(ngrams, int) or
                isinstance(ngrams, tuple) and all(isinstance(n, int) for n in ngrams)):
            raise ValueError("`ngrams` must be None, an integer, or a tuple of integers. "
                             "Received: ngrams=%s" % (ngrams,))
        if output_mode == INT and not (output_sequence_length is None or
                                       isinstance(output_sequence_length, int)):
            raise ValueError("`output_sequence_length` must be either None or an integer when "
                             "`output_mode` is 'int'. Received: output_sequence_length=%s"
                             % (output_sequence_length,))
        if output_mode != INT and output_sequence_length is not None:
            raise ValueError("`output_sequence_length` must not be set if `output_mode` is not "
                             "'int'. Received output_sequence_length=%s."
                             % output_sequence_length)
        if ragged and (output_mode != INT or output_sequence_length is not None):
            raise ValueError("`ragged=True` requires `output_mode='int'` and no "
                             "`output_sequence_length`.")
        self._max_tokens = max_tokens
        self._standardize = standardize
        self._split = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._ragged = ragged
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._encoding = encoding
        self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super(TextVectorization, self).__init__(**kwargs)
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens, mask_token="",
            output_mode=output_mode if output_mode is not None else INT, sparse=sparse,
            has_input_vocabulary=self._has_input_vocabulary, encoding=encoding,
            vocabulary_size=vocabulary_size)

    # ------------------------------------------------------------ strings to tokens
    def _standardize_value(self, value):
        if self._standardize in (LOWER, LOWER_AND_STRIP_PUNCTUATION):
            value = value.lower()
        if self._standardize in (STRIP_PUNCTUATION, LOWER_AND_STRIP_PUNCTUATION):
            value = _STRIP.sub(b"", value)
        return value

    def _split_value(self, value):
        if self._split == WHITESPACE:
            tokens = value.split()
        else:
            tokens = _utf8_characters(value)
        return _ngrams(tokens, self._ngrams) if self._ngrams else tokens

    def _split_input(self, strings):
        """The strings a split applies to: a vector (or scalar); [batch, 1] is squeezed."""
        if strings.ndim > 1:
            if strings.shape[-1] != 1:
                raise ValueError("When using `TextVectorization` to tokenize strings, the input "
                                 "rank must be 1 or the last shape dimension must be 1. Received: "
                                 "inputs.shape=%s with rank=%d" % (list(strings.shape),
                                                                   strings.ndim))
            strings = strings.reshape(strings.shape[:-1])
        return strings

    def _standardized(self, strings):
        """A string array after the built-in standardization (callables run before)."""
        array = np.asarray(strings, dtype=object)
        if callable(self._standardize) or self._standardize is None or not array.size:
            return array
        return np.vectorize(self._standardize_value, otypes=[object])(array)

    def _token_rows(self, strings):
        """(tokens, whether the input was one string) after the built-in steps: a list of
        token lists, or without a split the standardized array itself."""
        array = self._standardized(strings)
        if self._split is None:
            return array, False
        array = self._split_input(array)
        if array.ndim == 0:
            return [self._split_value(array[()])], True
        return [self._split_value(v) for v in array.reshape(-1)], False

    def _preprocess(self, data):
        """Adapt's view of a numpy batch: lists of tokens per document (callables applied
        with TF ops)."""
        if callable(self._standardize):
            data = to_numpy(self._standardize(ops.convert_to_tensor(data, dtype=dtypes.string)))
        if callable(self._split):
            tokens = self._split(ops.convert_to_tensor(self._standardized(data),
                                                       dtype=dtypes.string))
            rows = to_numpy(tokens)
            rows = rows if isinstance(rows, list) else np.asarray(rows).tolist()
            return [_ngrams(row, self._ngrams) if self._ngrams else row for row in rows]
        return self._token_rows(data)[0]

    # ------------------------------------------------------------ adapt
    def update_state(self, data):
        self._lookup_layer.update_state(self._preprocess(data))

    def finalize_state(self):
        self._lookup_layer.finalize_state()

    def reset_state(self):
        self._lookup_layer.reset_state()

    def get_vocabulary(self, include_special_tokens=True):
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    # ------------------------------------------------------------ call
    def _indices_of_rows(self, rows):
        lookup = self._lookup_layer
        return [lookup.lookup_keys([lookup._key(t) for t in row]) for row in rows]

    def _vectorize(self, strings):
        """The layer's output for a string array (built-in split or none)."""
        rows, single = self._token_rows(strings)
        if self._split is None:
            ids = torch.as_tensor(self._lookup_layer.lookup_keys(
                [self._lookup_layer._key(t) for t in rows.reshape(-1)])).reshape(rows.shape)
            return self._finish_dense(ids)
        return self._finish_rows(self._indices_of_rows(rows), single)

    def _finish_dense(self, ids):
        if self._output_mode != INT:
            return (self._lookup_layer.encode_indices(ids),)
        length = self._output_sequence_length
        if length is not None:
            ids = ids[..., :length]
            pad = length - ids.shape[-1]
            ids = torch.nn.functional.pad(ids, (0, pad)) if pad > 0 else ids
        return (ids,)

    def _finish_rows(self, rows, single):
        """Outputs for token indices per row (`single`: one unbatched string)."""
        if single:
            return self._finish_dense(torch.as_tensor(rows[0], dtype=torch.int64))
        if self._ragged:
            lengths = [len(r) for r in rows]
            splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
            values = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
            return torch.as_tensor(values), torch.as_tensor(splits)
        pad_value = 0 if self._output_mode == INT else -1
        width = self._output_sequence_length if self._output_mode == INT and \
            self._output_sequence_length is not None else max([len(r) for r in rows] + [0])
        ids = torch.full((len(rows), width), pad_value, dtype=torch.int64)
        for i, row in enumerate(rows):
            row = row[:width]
            ids[i, :len(row)] = torch.as_tensor(row)
        if self._output_mode == INT:
            return (ids,)
        dtype = getattr(torch, self._lookup_layer.compute_dtype)
        idf = None
        if self._output_mode == TF_IDF:
            idf = torch.as_tensor(self._lookup_layer._idf_weights)
        return (encode_ids(ids, self._output_mode, self._lookup_layer._depth(), dtype,
                           idf_weights=idf),)

    def _output_specs(self, input_shape):
        """(dtype, static shape) of each output of the lookup node."""
        dims = input_shape.as_list() if input_shape.rank is not None else [None]
        if self._output_mode == INT and self._ragged:
            return [(dtypes.int64, TensorShape([None]))] * 2
        if self._split is None:
            if self._output_mode == INT:
                if self._output_sequence_length is not None and dims:
                    dims = dims[:-1] + [self._output_sequence_length]
                return [(dtypes.int64, TensorShape(dims))]
            return [(dtypes.as_dtype(self._lookup_layer.compute_dtype),
                     encoded_shape(dims, self._output_mode, self._lookup_layer._depth()))]
        batch = dims[:1] if len(dims) > 1 and dims[-1] == 1 or len(dims) == 1 else dims[:-1]
        if self._output_mode == INT:
            return [(dtypes.int64, TensorShape(batch + [self._output_sequence_length]))]
        return [(dtypes.as_dtype(self._lookup_layer.compute_dtype),
                 TensorShape(batch + [self._lookup_layer._depth()]))]

    def call(self, inputs):
        if isinstance(inputs, (list, tuple, np.ndarray)):
            inputs = ops.convert_to_tensor(inputs, dtype=dtypes.string)
        if callable(self._standardize):
            inputs = self._standardize(inputs)
        if self._output_mode is None:
            if callable(self._split):
                return self._split(ops.convert_to_tensor(inputs, dtype=dtypes.string))
            tensor = ops.convert_to_tensor(inputs, dtype=dtypes.string)
            return self._tokens_tensor(tensor)
        self._lookup_layer._ensure_known_vocab_size()
        if callable(self._split):
            tokens = self._split(ops.convert_to_tensor(inputs))
            if not isinstance(tokens, RaggedTensor):
                tokens = RaggedTensor.from_tensor(tokens)
            outputs = run_op(self._vectorize_split, "LookupTableFindV2",
                             [tokens.flat_values, tokens.nested_row_splits[0]],
                             self._output_specs(TensorShape([None, 1])))
        else:
            tensor = ops.convert_to_tensor(inputs, dtype=dtypes.string)
            outputs = run_op(self._vectorize, "LookupTableFindV2", [tensor],
                             self._output_specs(tensor.shape))
        if self._ragged:
            return RaggedTensor.from_row_splits(outputs[0], outputs[1], validate=False)
        return outputs[0]

    def _tokens_tensor(self, tensor):
        """`output_mode=None`: the standardized strings, or with a split their tokens (a
        RaggedTensor for a batch, a vector for one string)."""
        if self._split is None or tensor.shape.rank == 0:
            return run_op(lambda strings: (_object_array(self._token_rows(strings)[0]),),
                          "StringSplitV2", [tensor], [(dtypes.string, TensorShape(
                              tensor.shape if self._split is None else [None]))])[0]
        values, splits = run_op(self._token_parts, "StringSplitV2", [tensor],
                                [(dtypes.string, TensorShape([None])),
                                 (dtypes.int64, TensorShape([None]))])
        return RaggedTensor.from_row_splits(values, splits, validate=False)

    def _token_parts(self, strings):
        rows = self._token_rows(strings)[0]
        splits = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
        return _object_array([t for row in rows for t in row]), torch.as_tensor(splits)

    def _vectorize_split(self, values, splits):
        """Outputs for tokens a callable `split` gave (flat values and row splits)."""
        bounds = [int(s) for s in np.asarray(splits).reshape(-1)]
        rows = [list(values[bounds[i]:bounds[i + 1]]) for i in range(len(bounds) - 1)]
        if self._ngrams:
            rows = [_ngrams(row, self._ngrams) for row in rows]
        return self._finish_rows(self._indices_of_rows(rows), False)

    def compute_output_shape(self, input_shape):
        return self._output_specs(TensorShape(input_shape))[0][1]

    def get_config(self):
        config = super(TextVectorization, self).get_config()
        lookup = self._lookup_layer
        config.update({"max_tokens": lookup.max_tokens, "standardize": self._standardize,
                       "split": self._split, "ngrams": self._ngrams_arg,
                       "output_mode": self._output_mode,
                       "output_sequence_length": self._output_sequence_length,
                       "pad_to_max_tokens": lookup.pad_to_max_tokens, "sparse": lookup.sparse,
                       "ragged": self._ragged,
                       "vocabulary": lookup.get_config()["vocabulary"],
                       "idf_weights": lookup.get_config()["idf_weights"],
                       "encoding": self._encoding, "vocabulary_size": self.vocabulary_size()})
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key, allowed in (("standardize", _STANDARDIZE_MODES), ("split", _SPLIT_MODES)):
            if config.get(key) is not None and config[key] not in allowed:
                config[key] = deserialize_keras_object(config[key])
        return cls(**config)

    def save_assets(self, dir_path):
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path):
        self._lookup_layer.load_assets(dir_path)
