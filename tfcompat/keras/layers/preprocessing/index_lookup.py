"""The vocabulary lookup shared by `StringLookup`, `IntegerLookup` and `TextVectorization`
(Keras 2.15's `IndexLookup`).

Index layout (Keras'): in "int" mode a `mask_token` takes index 0, then `num_oov_indices`
OOV indices, then the vocabulary; the other output modes have no mask index. `adapt`
counts tokens and keeps the most frequent (ties: the greater token first, as Keras' lexsort),
at most `max_tokens` indices in all; "tf_idf" also counts documents and stores
`log(1 + documents / (1 + document count))`. The vocabulary lives in Python (a dict), the
lookup runs as one graph node reading it, so a layer works in eager calls, models and
`tf.data` maps. More than one OOV index hashes as Keras: integers `value % num_oov_indices`,
strings by FarmHash Fingerprint64 (`lookup_ops.hash_bucket`, as tf.lookup tables). Differences:
`sparse=True` is not implemented; the idf weights are no layer weight.
"""
import collections

import numpy as np
import torch

from tfcompat.framework import dtypes, errors
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import backend
from tfcompat.keras.layers.preprocessing.category_encoding import (
    COUNT, INT, MULTI_HOT, ONE_HOT, TF_IDF, encode_ids, encoded_shape)
from tfcompat.keras.layers.preprocessing.preprocessing_layer import PreprocessingLayer
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor

OUTPUT_MODES = (INT, ONE_HOT, MULTI_HOT, COUNT, TF_IDF)


def _as_list(value):
    if value is None or isinstance(value, str):
        return value
    if hasattr(value, "numpy"):
        value = value.numpy()
    return [v.decode("utf-8") if isinstance(v, bytes) else
            (v.item() if isinstance(v, np.generic) else v) for v in np.asarray(value).tolist()]


class IndexLookup(PreprocessingLayer):
    """Maps tokens to indices (or back, with `invert`) and encodes them (see the module
    docstring)."""

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype,
                 vocabulary=None, idf_weights=None, invert=False, output_mode=INT,
                 sparse=False, pad_to_max_tokens=False, **kwargs):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError("If set, `max_tokens` must be greater than 1. Received: "
                             "max_tokens=%s" % max_tokens)
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError("If pad_to_max_tokens is True, must set `max_tokens`. Received: "
                             "max_tokens=%s" % max_tokens)
        if num_oov_indices < 0:
            raise ValueError("`num_oov_indices` must be greater than or equal to 0. "
                             "Received: num_oov_indices=%s" % num_oov_indices)
        output_mode = {"binary": MULTI_HOT, "tf-idf": TF_IDF}.get(output_mode, output_mode)
        if output_mode not in OUTPUT_MODES:
            raise ValueError("Unknown value for `output_mode`. Allowed values are: %s. "
                             "Received: %s" % (OUTPUT_MODES, output_mode))
        if invert and output_mode != INT:
            raise ValueError("`output_mode` must be `'int'` when `invert` is true. Received: "
                             "output_mode=%s" % output_mode)
        if sparse and output_mode == INT:
            raise ValueError("`sparse` may only be true if `output_mode` is `'one_hot'`, "
                             "`'multi_hot'`, `'count'` or `'tf_idf'`. Received: sparse=%s "
                             "and output_mode=%s" % (sparse, output_mode))
        if sparse:
            raise NotImplementedError("%s(sparse=True) is not implemented by tfcompat"
                                      % type(self).__name__)
        if idf_weights is not None and output_mode != TF_IDF:
            raise ValueError("`idf_weights` should only be set if `output_mode` is "
                             "`'tf_idf'`. Received: idf_weights=%s and output_mode=%s"
                             % (idf_weights, output_mode))
        self.invert = invert
        self.max_tokens = max_tokens
        self.num_oov_indices = num_oov_indices
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.output_mode = output_mode
        self.sparse = sparse
        self.pad_to_max_tokens = pad_to_max_tokens
        self.vocabulary_dtype = dtypes.as_dtype(vocabulary_dtype).name
        self._frozen_vocab_size = kwargs.pop("vocabulary_size", None)
        self.input_vocabulary = vocabulary
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("has_static_table", None)
        kwargs.setdefault("dtype", "int64" if output_mode == INT else backend.floatx())
        super(IndexLookup, self).__init__(**kwargs)
        if output_mode == INT and not dtypes.as_dtype(self.compute_dtype).is_integer:
            raise ValueError("When `output_mode='int'`, `dtype` should be an integer type. "
                             "Received: dtype=%s" % kwargs["dtype"])
        self._tokens = []
        self._index = {}
        self._idf_weights = None
        self._reset_counts()
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # ------------------------------------------------------------ tokens
    def _key(self, token):
        """The dict key of a token: bytes for strings, a Python int for integers."""
        raise NotImplementedError

    def _token_value(self, key):
        """A key as `get_vocabulary` shows it."""
        raise NotImplementedError

    def _oov_start_index(self):
        return 1 if self.mask_token is not None and self.output_mode == INT else 0

    def _token_start_index(self):
        return self._oov_start_index() + self.num_oov_indices

    def vocabulary_size(self):
        """The number of indices: special tokens included."""
        return len(self._tokens) + self._token_start_index()

    def vocab_size(self):
        return self.vocabulary_size()

    def get_vocabulary(self, include_special_tokens=True):
        """The tokens by index ([mask,] OOV tokens, then the vocabulary)."""
        tokens = [self._token_value(k) for k in self._tokens]
        if not include_special_tokens:
            return tokens
        special = [self.oov_token] * self._token_start_index()
        if self.mask_token is not None and self.output_mode == INT:
            special[0] = self.mask_token
        return special + tokens

    def _set_tokens(self, keys):
        start = self._token_start_index()
        self._tokens = list(keys)
        self._index = {k: start + i for i, k in enumerate(self._tokens)}
        self._record_vocabulary_size()

    def _record_vocabulary_size(self):
        if self.output_mode != INT and not self.pad_to_max_tokens and \
                self._frozen_vocab_size is not None and \
                self._frozen_vocab_size != self.vocabulary_size():
            raise RuntimeError("When using `output_mode=%s` and `pad_to_max_tokens=False`, the "
                               "vocabulary size cannot be changed after the layer is called. "
                               "Old vocab size is %d, new vocab size is %d"
                               % (self.output_mode, self._frozen_vocab_size,
                                  self.vocabulary_size()))
        self._frozen_vocab_size = self.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Use `vocabulary` (a list, array, tensor or the path of a text file, one token a
        line; special tokens at its start are recognized) and, for "tf_idf", `idf_weights`."""
        if self.output_mode == TF_IDF:
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is TF_IDF")
        elif idf_weights is not None:
            raise ValueError("`idf_weights` should only be set if output_mode is `'tf_idf'`. "
                             "`output_mode` is %s, and `idf_weights` is %s."
                             % (self.output_mode, idf_weights))
        if isinstance(vocabulary, str):
            vocabulary = self._read_vocabulary_file(vocabulary)
        keys = [self._key(t) for t in (vocabulary.numpy() if hasattr(vocabulary, "numpy")
                                       else vocabulary)]
        if not keys:
            raise ValueError("Cannot set an empty vocabulary, you passed %s." % (vocabulary,))
        start = self._token_start_index()
        special = [self._key(t) for t in
                   [self.mask_token] * self._oov_start_index() +
                   [self.oov_token] * self.num_oov_indices]
        found_special = keys[:start] == special
        tokens = keys[start:] if found_special else keys
        repeated = [t for t, n in collections.Counter(tokens).items() if n > 1]
        if repeated:
            raise ValueError("The passed vocabulary has at least one repeated term. Please "
                             "uniquify your dataset. The repeated terms are %s"
                             % [self._token_value(t) for t in repeated])
        if self.mask_token is not None and self._key(self.mask_token) in tokens:
            raise ValueError("Found reserved mask token at unexpected location in "
                             "`vocabulary`. Note that passed `vocabulary` does not need to "
                             "include the OOV and mask tokens. Either remove all mask and OOV "
                             "tokens, or include them only at the start of the vocabulary in "
                             "precisely this order: %s. Received: mask_token=%s"
                             % ([self._token_value(s) for s in special], self.mask_token))
        if self.oov_token is not None and self.invert and self._key(self.oov_token) in tokens:
            raise ValueError("Found reserved OOV token at unexpected location in `vocabulary`.")
        if self.max_tokens is not None and start + len(tokens) > self.max_tokens:
            raise ValueError("Attempted to set a vocabulary larger than the maximum vocab size. "
                             "Passed vocab size is %d, max vocab size is %d."
                             % (start + len(tokens), self.max_tokens))
        self._set_tokens(tokens)
        if self.output_mode == TF_IDF and idf_weights is not False:
            weights = np.asarray(idf_weights.numpy() if hasattr(idf_weights, "numpy")
                                 else idf_weights, dtype=np.float64)
            if len(keys) != len(weights):
                raise ValueError("`idf_weights` must be the same length as vocabulary. "
                                 "len(idf_weights) is %d, len(vocabulary) is %d"
                                 % (len(weights), len(keys)))
            if weights.ndim != 1:
                raise ValueError("TF-IDF data must be a 1-index array. Received: "
                                 "type(idf_weights)=%s" % type(weights))
            front = 0 if found_special else start
            front_value = 0.0 if found_special else float(np.average(weights))
            self._set_idf(np.concatenate([np.full(front, front_value), weights]))

    def _set_idf(self, weights):
        if self.pad_to_max_tokens and self.max_tokens is not None:
            weights = np.pad(weights, (0, self.max_tokens - len(weights)))
        self._idf_weights = weights.astype(self.compute_dtype)

    def _read_vocabulary_file(self, path):
        """The lines of a vocabulary text file."""
        try:
            with open(path, "rb") as f:
                lines = f.read().decode("utf-8").split("\n")
        except OSError:
            raise ValueError("Vocabulary file %s does not exist." % path) from None
        if lines and lines[-1] == "":
            lines.pop()
        return lines

    # ------------------------------------------------------------ adapt
    def _reset_counts(self):
        self._counts = collections.Counter()
        self._document_counts = collections.Counter()
        self._documents = 0

    def reset_state(self):
        if not self._has_input_vocabulary:
            self._reset_counts()

    def update_state(self, data):
        if self._has_input_vocabulary:
            raise ValueError("Cannot adapt %s layer after setting a static vocabulary via "
                             "init argument or `set_vocabulary`." % type(self).__name__)
        rows = self._documents_of(data)
        for row in rows:
            keys = [self._key(t) for t in row]
            self._counts.update(keys)
            if self.output_mode == TF_IDF:
                self._document_counts.update(set(keys))
        self._documents += len(rows)

    def _documents_of(self, data):
        """The documents (lists of tokens) of an adapt batch: a scalar or vector is one
        document, a matrix (or list of lists) one per row."""
        if isinstance(data, list) and (not data or isinstance(data[0], list)):
            return [_flatten_tokens(row) for row in data]
        array = np.asarray(data)
        if array.ndim <= 1:
            return [array.reshape(-1).tolist()]
        return [row.reshape(-1).tolist() for row in array]

    def finalize_state(self):
        if self._has_input_vocabulary or not self._counts:
            return
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                self._counts.pop(self._key(special), None)
        ranked = sorted(self._counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        if self.max_tokens:
            ranked = ranked[:self.max_tokens - self._token_start_index()]
        tokens = [k for k, _ in ranked]
        self._frozen_vocab_size = None
        self._set_tokens(tokens)
        if self.output_mode == TF_IDF:
            counts = np.array([self._document_counts[k] for k in tokens], dtype=np.float64)
            idf = np.log(1.0 + self._documents / (1.0 + counts)).astype(self.compute_dtype)
            mean = float(np.mean(idf)) if len(idf) else 0.0
            self._set_idf(np.concatenate([np.full(self._token_start_index(), mean), idf]))
        self._reset_counts()

    # ------------------------------------------------------------ lookup
    def lookup_keys(self, keys):
        """The int64 indices of a flat list of keys (mask and OOV rules applied)."""
        mask_key = None if self.mask_token is None else self._key(self.mask_token)
        mask_index = 0 if self.output_mode == INT else np.iinfo(np.int64).max
        oov_start = self._oov_start_index()
        out = np.empty(len(keys), dtype=np.int64)
        missing = []
        for i, key in enumerate(keys):
            index = self._index.get(key)
            if index is None:
                if mask_key is not None and key == mask_key:
                    index = mask_index
                elif self.num_oov_indices == 1:
                    index = oov_start
                elif self.num_oov_indices == 0:
                    missing.append(key)
                    index = -1
                else:
                    index = oov_start + self._oov_bucket(key)
            out[i] = index
        if missing:
            raise errors.InvalidArgumentError(
                "When `num_oov_indices=0` all inputs should be in vocabulary, found OOV values "
                "%s, consider setting `num_oov_indices=1`." % [self._token_value(k)
                                                               for k in missing])
        return out

    def _oov_bucket(self, key):
        raise NotImplementedError("%s with num_oov_indices > 1 is not implemented by tfcompat"
                                  % type(self).__name__)

    def invert_indices(self, indices):
        """The tokens (keys) of flat int indices: the mask token for index 0 if there is
        one, the OOV token for any other index outside the vocabulary."""
        start = self._token_start_index()
        mask_key = None if self.mask_token is None else self._key(self.mask_token)
        oov_key = self._key(self.oov_token)
        out = []
        for index in indices:
            if mask_key is not None and index == 0:
                out.append(mask_key)
            elif start <= index < start + len(self._tokens):
                out.append(self._tokens[index - start])
            else:
                out.append(oov_key)
        return out

    def _depth(self):
        return self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size

    def _ensure_known_vocab_size(self):
        if self.output_mode != INT and not self.pad_to_max_tokens and \
                self._frozen_vocab_size is None:
            raise RuntimeError("When using `output_mode=%s` and `pad_to_max_tokens=False`, you "
                               "must set the layer's vocabulary before calling it. Either pass "
                               "a `vocabulary` argument to the layer, or call `adapt` with some "
                               "sample data." % self.output_mode)

    def encode_indices(self, indices):
        """int64 torch indices in the layer's output mode (identity for "int")."""
        dtype = getattr(torch, self.compute_dtype)
        idf = None
        if self.output_mode == TF_IDF:
            idf = torch.as_tensor(self._idf_weights, device=indices.device)
        return encode_ids(indices, self.output_mode, self._depth(), dtype, idf_weights=idf)

    def _keys_of(self, value):
        """The flat list of keys in a string array or integer torch tensor."""
        raise NotImplementedError

    def _from_keys(self, keys, shape):
        """The output value for inverted keys."""
        raise NotImplementedError

    def _output_spec(self, shape):
        if self.invert:
            return dtypes.as_dtype(self.vocabulary_dtype), shape
        if self.output_mode == INT:
            return dtypes.as_dtype(self.compute_dtype), shape
        return dtypes.as_dtype(self.compute_dtype), encoded_shape(
            shape.as_list() if shape.rank is not None else [], self.output_mode, self._depth())

    def _lookup(self, value):
        """The layer's output for one input value (string array or torch tensor)."""
        shape = tuple(value.shape)
        if self.invert:
            indices = value.reshape(-1).tolist()
            return self._from_keys(self.invert_indices(indices), shape)
        indices = torch.as_tensor(self.lookup_keys(self._keys_of(value))).reshape(shape)
        if self.output_mode == INT:
            return indices.to(getattr(torch, self.compute_dtype))
        return self.encode_indices(indices)

    def call(self, inputs):
        self._ensure_known_vocab_size()
        if isinstance(inputs, RaggedTensor):
            if self.output_mode != INT:
                raise NotImplementedError("%s on a RaggedTensor with output_mode=%r is not "
                                          "implemented by tfcompat" % (type(self).__name__,
                                                                       self.output_mode))
            return inputs.with_flat_values(self.call(inputs.flat_values))
        tensor = self._input_tensor(inputs)
        return run_op(lambda value: (self._lookup(value),), "LookupTableFindV2", [tensor],
                      [self._output_spec(TensorShape(tensor.shape))])[0]

    def _input_tensor(self, inputs):
        raise NotImplementedError

    def compute_output_shape(self, input_shape):
        return self._output_spec(TensorShape(input_shape))[1]

    def get_config(self):
        config = super(IndexLookup, self).get_config()
        config.update({"invert": self.invert, "max_tokens": self.max_tokens,
                       "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                       "mask_token": self.mask_token, "output_mode": self.output_mode,
                       "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                       "vocabulary_dtype": self.vocabulary_dtype,
                       "idf_weights": _as_list(self.input_idf_weights),
                       "vocabulary": _as_list(self.input_vocabulary),
                       "vocabulary_size": self._frozen_vocab_size})
        return config

    # ------------------------------------------------------------ Keras' asset hooks
    def save_assets(self, dir_path):
        """Write an adapted vocabulary to `dir_path`/vocabulary.txt, as Keras does."""
        if self.input_vocabulary:
            return
        with open("%s/vocabulary.txt" % dir_path, "w") as f:
            f.write("\n".join(str(w) for w in self.get_vocabulary(include_special_tokens=True)))

    def load_assets(self, dir_path):
        """Read the vocabulary `save_assets` wrote."""
        if self.input_vocabulary:
            return
        lines = self._read_vocabulary_file("%s/vocabulary.txt" % dir_path)
        if not dtypes.as_dtype(self.vocabulary_dtype) == dtypes.string:
            lines = [int(line) for line in lines]
        self._frozen_vocab_size = None
        self.set_vocabulary(lines, idf_weights=False if self.output_mode == TF_IDF else None)


def _flatten_tokens(row):
    if isinstance(row, list):
        return [t for item in row for t in _flatten_tokens(item)]
    return [row]
