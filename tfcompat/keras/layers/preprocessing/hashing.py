"""`tf.keras.layers.Hashing` (Keras 2.15): values hashed into `num_bins` bins with TF's
FarmHash Fingerprint64 (`tf.strings.to_hash_bucket_fast`), so the bins equal TF's."""
from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.keras.layers.preprocessing.category_encoding import (
    COUNT, INT, MULTI_HOT, ONE_HOT, _category_encoding, encoded_shape)
from tfcompat.ops import array_ops, math_ops, string_ops


@tf_export("keras.layers.Hashing", "keras.layers.experimental.preprocessing.Hashing")
class Hashing(Layer):
    """As Keras 2: strings (and integers, hashed as their decimal text) go to
    `Fingerprint64 % num_bins`; with `mask_value`, that value maps to 0 and the others to
    `1 + Fingerprint64 % (num_bins - 1)`. `output_mode` "one_hot" / "multi_hot" / "count"
    encode the bins as CategoryEncoding does. Where we differ: `salt` (TF's keyed SipHash,
    `to_hash_bucket_strong`) and `sparse=True` raise NotImplementedError."""

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode=INT, sparse=False,
                 **kwargs):
        if num_bins is None or num_bins <= 0:
            raise ValueError("The `num_bins` for `Hashing` cannot be `None` or non-positive "
                             "values. Received: num_bins=%s." % (num_bins,))
        if output_mode == "binary":
            output_mode = MULTI_HOT
        if output_mode not in (INT, ONE_HOT, MULTI_HOT, COUNT):
            raise ValueError("Unknown value for `output_mode`. Allowed values are: %s. "
                             "Received: %s" % ((INT, ONE_HOT, MULTI_HOT, COUNT), output_mode))
        if salt is not None:
            raise NotImplementedError("tf.keras.layers.Hashing(salt=...) (keyed SipHash) is "
                                      "not implemented by tfcompat")
        if sparse:
            raise NotImplementedError("tf.keras.layers.Hashing(sparse=True) is not "
                                      "implemented by tfcompat")
        kwargs.setdefault("dtype", "int64" if output_mode == INT else "float32")
        super(Hashing, self).__init__(**kwargs)
        self.num_bins = num_bins
        self.mask_value = mask_value
        self.salt = salt
        self.output_mode = output_mode
        self.sparse = sparse

    def call(self, inputs):
        inputs = ops.convert_to_tensor(inputs)
        if inputs.dtype != dtypes.string:
            inputs = string_ops.as_string(inputs)
        if self.mask_value is None:
            bins = string_ops.to_hash_bucket_fast(inputs, self.num_bins)
        else:
            hashed = string_ops.to_hash_bucket_fast(inputs, self.num_bins - 1) + 1
            masked = math_ops.equal(inputs, str(self.mask_value))
            bins = array_ops.where(masked, array_ops.zeros_like(hashed), hashed)
        if self.output_mode == INT:
            return math_ops.cast(bins, self.compute_dtype)
        return _category_encoding(bins, self.num_bins, self.output_mode, self.compute_dtype,
                                  None)

    def compute_output_shape(self, input_shape):
        return encoded_shape(TensorShape(input_shape).as_list(), self.output_mode,
                             self.num_bins)

    def get_config(self):
        config = super(Hashing, self).get_config()
        config.update({"num_bins": self.num_bins, "salt": self.salt,
                       "mask_value": self.mask_value, "output_mode": self.output_mode,
                       "sparse": self.sparse})
        return config
