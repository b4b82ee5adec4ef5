"""`tf.keras.layers.IntegerLookup` (Keras 2.15): integers to vocabulary indices (see
index_lookup.py for the index layout, adapt and output modes)."""
import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops
from tfcompat.keras.layers.preprocessing.index_lookup import IndexLookup
from tfcompat.ops import math_ops


@tf_export(v2=["keras.layers.IntegerLookup",
               "keras.layers.experimental.preprocessing.IntegerLookup"])
class IntegerLookup(IndexLookup):
    """Map integers to indices (or, with `invert=True`, indices to integers). Several OOV
    indices bucket an unknown value as `value % num_oov_indices`, as Keras does."""

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
                 vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False, **kwargs):
        if not dtypes.as_dtype(vocabulary_dtype).is_integer:
            raise ValueError("`vocabulary_dtype` must be an integer dtype. Received: %s"
                             % vocabulary_dtype)
        if output_mode != "int" and kwargs.get("dtype") in ("int64", dtypes.int64):
            del kwargs["dtype"]
        max_tokens = kwargs.pop("max_values", max_tokens)
        mask_token = kwargs.pop("mask_value", mask_token)
        oov_token = kwargs.pop("oov_value", oov_token)
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError("If `max_tokens` is set for `IntegerLookup`, it must be greater "
                             "than 1. Received: max_tokens=%s." % max_tokens)
        if num_oov_indices < 0:
            raise ValueError("The value of `num_oov_indices` argument for `IntegerLookup` "
                             "must >= 0. Received num_oov_indices=%s." % num_oov_indices)
        super(IntegerLookup, self).__init__(
            max_tokens=max_tokens, num_oov_indices=num_oov_indices,
            mask_token=None if mask_token is None else int(mask_token),
            oov_token=None if oov_token is None else int(oov_token), vocabulary=vocabulary,
            vocabulary_dtype=vocabulary_dtype, idf_weights=idf_weights, invert=invert,
            output_mode=output_mode, sparse=sparse, pad_to_max_tokens=pad_to_max_tokens,
            **kwargs)

    def _key(self, token):
        return int(token)

    def _token_value(self, key):
        return key

    def _oov_bucket(self, key):
        return key % self.num_oov_indices

    def _keys_of(self, value):
        return value.reshape(-1).tolist()

    def _from_keys(self, keys, shape):
        return torch.tensor(keys, dtype=getattr(torch, self.vocabulary_dtype)).reshape(shape)

    def _input_tensor(self, inputs):
        dtype = dtypes.int64 if self.invert else dtypes.as_dtype(self.vocabulary_dtype)
        tensor = ops.convert_to_tensor(np.asarray(inputs) if isinstance(inputs, list)
                                       else inputs)
        return tensor if tensor.dtype == dtype else math_ops.cast(tensor, dtype)
