"""`tf.keras.layers.StringLookup` (Keras 2.15): strings to vocabulary indices (see
index_lookup.py for the index layout, adapt and output modes)."""
import numpy as np

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops
from tfcompat.keras.layers.preprocessing.index_lookup import IndexLookup
from tfcompat.ops.lookup_ops import hash_bucket


@tf_export(v2=["keras.layers.StringLookup",
               "keras.layers.experimental.preprocessing.StringLookup"])
class StringLookup(IndexLookup):
    """Map strings to indices (or, with `invert=True`, indices to strings)."""

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
                 vocabulary=None, idf_weights=None, encoding="utf-8", invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False, **kwargs):
        if kwargs.get("dtype") in ("string", dtypes.string):
            del kwargs["dtype"]
        self.encoding = encoding
        super(StringLookup, self).__init__(
            max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
            oov_token=oov_token, vocabulary=vocabulary, vocabulary_dtype="string",
            idf_weights=idf_weights, invert=invert, output_mode=output_mode, sparse=sparse,
            pad_to_max_tokens=pad_to_max_tokens, **kwargs)

    def _key(self, token):
        if isinstance(token, bytes):
            return token
        if isinstance(token, np.bytes_):
            return bytes(token)
        return str(token).encode(self.encoding)

    def _token_value(self, key):
        return key.decode(self.encoding, "replace") if isinstance(key, bytes) else key

    def _oov_bucket(self, key):
        """Keras' `tf.strings.to_hash_bucket_fast` bucket, the one TF's lookup tables use."""
        return hash_bucket(key, self.num_oov_indices)

    def _keys_of(self, value):
        return [self._key(v) for v in np.asarray(value, dtype=object).reshape(-1)]

    def _from_keys(self, keys, shape):
        out = np.empty(len(keys), dtype=object)
        out[:] = keys
        return out.reshape(shape)

    def _input_tensor(self, inputs):
        if self.invert:
            return ops.convert_to_tensor(inputs, dtype=dtypes.int64) \
                if not ops.is_tensor(inputs) else inputs
        return ops.convert_to_tensor(inputs, dtype=dtypes.string)

    def get_config(self):
        config = super(StringLookup, self).get_config()
        del config["vocabulary_dtype"]
        config["encoding"] = self.encoding
        return config
