"""`tf.keras.layers.CategoryEncoding` and the encoding of integer ids the lookup layers share
(Keras 2.15's `encode_categorical_inputs`): "one_hot", "multi_hot", "count", "tf_idf"."""
import torch

from tfcompat._api import tf_export
from tfcompat.framework import errors, ops
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import backend
from tfcompat.keras.engine.base_layer import Layer

INT, ONE_HOT, MULTI_HOT, COUNT, TF_IDF = "int", "one_hot", "multi_hot", "count", "tf_idf"


def encoded_shape(shape, output_mode, depth):
    """The static output shape of `encode_ids` for inputs of `shape` (a list)."""
    if output_mode == INT:
        return TensorShape(shape)
    if not shape:
        return TensorShape([depth])
    if output_mode == ONE_HOT and shape[-1] != 1:
        return TensorShape(shape + [depth])
    return TensorShape(shape[:-1] + [depth])


def encode_ids(ids, output_mode, depth, dtype, count_weights=None, idf_weights=None):
    """Keras' encoding of integer `ids` (torch): a scalar or vector gives one row of `depth`,
    a matrix one row per batch entry (one_hot adds a dim unless the last is 1); ids outside
    [0, depth) count nothing (the lookups' mask and padding ids)."""
    if output_mode == INT:
        return ids.to(dtype)
    if ids.ndim == 0:
        ids = ids.reshape(1)
    if output_mode == ONE_HOT and ids.shape[-1] != 1:
        ids = ids.unsqueeze(-1)
    if ids.ndim > 2:
        raise ValueError("When output_mode is not `'int'`, maximum supported output rank is 2. "
                         "Received output_mode %s and input shape %s, which would result in "
                         "output rank %d." % (output_mode, list(ids.shape), ids.ndim))
    rows = ids.reshape(1, -1) if ids.ndim == 1 else ids
    valid = (rows >= 0) & (rows < depth)
    weights = valid.to(dtype)
    if count_weights is not None:
        weights = weights * count_weights.to(dtype).reshape(rows.shape)
    counts = torch.zeros(rows.shape[0], depth, dtype=dtype, device=ids.device)
    counts.scatter_add_(1, torch.where(valid, rows, torch.zeros_like(rows)).long(), weights)
    if output_mode in (ONE_HOT, MULTI_HOT):
        counts = (counts > 0).to(dtype)
    if output_mode == TF_IDF:
        counts = counts * idf_weights.to(dtype)
    return counts[0] if ids.ndim == 1 else counts


@ops.op(graph_name="DenseBincount")
def _category_encoding(inputs, num_tokens, output_mode, dtype, count_weights):
    ids = ops.to_torch(inputs)
    if ids.numel() and not isinstance(ids, torch._subclasses.FakeTensor) and \
            (int(ids.min()) < 0 or int(ids.max()) >= num_tokens):
        raise errors.InvalidArgumentError(
            "Input values must be in the range 0 <= values < num_tokens with num_tokens=%d"
            % num_tokens)
    weights = None if count_weights is None else ops.to_torch(count_weights)
    return encode_ids(ids.long(), output_mode, num_tokens, getattr(torch, dtype), weights)


@tf_export("keras.layers.CategoryEncoding",
           "keras.layers.experimental.preprocessing.CategoryEncoding")
class CategoryEncoding(Layer):
    """Encode integer ids in [0, num_tokens) as one-hot, multi-hot or count vectors."""

    def __init__(self, num_tokens=None, output_mode=MULTI_HOT, sparse=False, **kwargs):
        if "max_tokens" in kwargs:
            num_tokens = kwargs.pop("max_tokens")
        kwargs.setdefault("dtype", backend.floatx())
        super(CategoryEncoding, self).__init__(**kwargs)
        if output_mode == "binary":
            output_mode = MULTI_HOT
        if output_mode not in (COUNT, ONE_HOT, MULTI_HOT):
            raise ValueError("Unknown value for `output_mode`. Allowed values are: %s. "
                             "Received: %s" % ((COUNT, ONE_HOT, MULTI_HOT), output_mode))
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of "
                             "tokens is not known beforehand, use the IntegerLookup layer "
                             "instead.")
        if num_tokens < 1:
            raise ValueError("`num_tokens` must be >= 1. Received: num_tokens=%s."
                             % num_tokens)
        if sparse:
            raise NotImplementedError("CategoryEncoding(sparse=True) is not implemented by "
                                      "tfcompat")
        self.num_tokens = num_tokens
        self.output_mode = output_mode
        self.sparse = sparse

    def call(self, inputs, count_weights=None):
        if count_weights is not None and self.output_mode != COUNT:
            raise ValueError("`count_weights` is not used when `output_mode` is not `'count'`. "
                             "Received `count_weights=%s`." % (count_weights,))
        return _category_encoding(inputs, self.num_tokens, self.output_mode,
                                  self.compute_dtype, count_weights)

    def compute_output_shape(self, input_shape):
        return encoded_shape(TensorShape(input_shape).as_list(), self.output_mode,
                             self.num_tokens)

    def get_config(self):
        config = super(CategoryEncoding, self).get_config()
        config.update({"num_tokens": self.num_tokens, "output_mode": self.output_mode,
                       "sparse": self.sparse})
        return config
