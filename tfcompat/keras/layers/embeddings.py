"""`Embedding`: integer indices -> dense vectors (rows of `embeddings`)."""
from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.keras import constraints, initializers, regularizers
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.keras.layers.core import serialize_initializer, serialize_optional
from tfcompat.ops import math_ops, nn_ops


@tf_export("keras.layers.Embedding")
class Embedding(Layer):
    """Lookup of rows of a [input_dim, output_dim] matrix; `mask_zero` masks index 0."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        if "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,) if input_length else (None,)
        if input_dim <= 0 or output_dim <= 0:
            raise ValueError("Both `input_dim` and `output_dim` should be positive, found "
                             "input_dim %s and output_dim %s" % (input_dim, output_dim))
        super(Embedding, self).__init__(activity_regularizer=regularizers.get(
            activity_regularizer), **kwargs)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.input_length = input_length
        self._autocast = False

    def build(self, input_shape):
        self.embeddings = self.add_weight(
            "embeddings", shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer, regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint)
        self.built = True

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return math_ops.not_equal(inputs, 0)

    def call(self, inputs):
        if inputs.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            inputs = math_ops.cast(inputs, dtypes.int32)
        return nn_ops.embedding_lookup_v2(self.embeddings, inputs)

    def get_config(self):
        config = super(Embedding, self).get_config()
        config.update({
            "input_dim": self.input_dim, "output_dim": self.output_dim,
            "embeddings_initializer": serialize_initializer(self.embeddings_initializer),
            "embeddings_regularizer": serialize_optional(regularizers,
                                                         self.embeddings_regularizer),
            "activity_regularizer": serialize_optional(regularizers, self.activity_regularizer),
            "embeddings_constraint": serialize_optional(constraints,
                                                        self.embeddings_constraint),
            "mask_zero": self.mask_zero, "input_length": self.input_length})
        return config
