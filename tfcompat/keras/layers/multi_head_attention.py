"""`tf.keras.layers.MultiHeadAttention` (Keras 2.15).

Its weights are Keras 2's: EinsumDense sub-layers `query`, `key`, `value` (kernels
[dim, num_heads, key_dim or value_dim], biases [num_heads, dim]) and `attention_output`
(kernel [num_heads, value_dim, output dim]), made when the layer is first called (or, after
`from_config`, from the input shapes its config memorizes). Masks: `attention_mask`
([B, T, S], True attends), Keras masks of query/value/key, `use_causal_mask`; masked
scores get -1e9 before the softmax, as Keras' `Softmax` adds.
"""
import collections.abc
import math
import string

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import constraints, initializers, regularizers
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.keras.layers.core import Dropout, serialize_optional
from tfcompat.keras.layers.einsum_dense import EinsumDense
from tfcompat.ops import array_ops, math_ops

_LETTERS = string.ascii_lowercase


def _projection_equation(free_dims, bound_dims, output_dims):
    """(equation, bias axes, output rank) of a dense projection: `free_dims` pass through,
    `bound_dims` are contracted, `output_dims` are new."""
    free = _LETTERS[:free_dims]
    bound = _LETTERS[free_dims:free_dims + bound_dims]
    new = _LETTERS[free_dims + bound_dims:free_dims + bound_dims + output_dims]
    return "%s,%s->%s" % (free + bound, bound + new, free + new), new, free_dims + output_dims


def _attention_equations(rank, attention_axes):
    """(scores equation, combine equation, scores rank) for projected tensors of `rank`
    ([batch dims..., attention dims..., heads, channels])."""
    target = _LETTERS[:rank]
    batch_dims = tuple(np.delete(range(rank), attention_axes + (rank - 1,)))
    source, offset = "", rank
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += _LETTERS[offset]
            offset += 1
    product = "".join([target[i] for i in batch_dims] + [target[i] for i in attention_axes] +
                      [source[i] for i in attention_axes])
    return ("%s,%s->%s" % (source, target, product), "%s,%s->%s" % (product, source, target),
            len(product))


def _output_dims(rank, known_last):
    return [None] * (rank - len(known_last)) + list(known_last)


@ops.op(graph_name="Softmax")
def _masked_softmax(scores, mask, axes, robust):
    """Keras' `Softmax(axis=axes, robust_masking=robust)(scores, mask)`: masked-out scores
    get -1e9 (float16: its lowest value) added, or with `robust` replace them."""
    t = ops.to_torch(scores)
    if mask is not None:
        large_negative = torch.finfo(t.dtype).min if t.dtype is torch.float16 else -1e9
        keep = ops.to_torch(mask)
        if robust:
            keep = keep if keep.dtype is torch.bool else keep > 0.5
            t = torch.where(keep, t, torch.full_like(t, large_negative))
        else:
            t = t + (1.0 - keep.to(t.dtype)) * large_negative
    if len(axes) == 1:
        return torch.softmax(t, dim=axes[0])
    return torch.exp(t - torch.logsumexp(t, dim=axes, keepdim=True))


@ops.op(graph_name="MatrixBandPart")
def _causal_mask(query, value):
    """[1, T, S] lower-triangular booleans: query position i attends to positions <= i."""
    q, v = ops.to_torch(query), ops.to_torch(value)
    return torch.ones(q.shape[1], v.shape[1], dtype=torch.bool, device=q.device).tril()[None]


@tf_export("keras.layers.MultiHeadAttention")
class MultiHeadAttention(Layer):
    """Multi-head (scaled dot-product) attention, as Keras 2.15 computes it."""

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 softmax_robust_masking=False, **kwargs):
        super(MultiHeadAttention, self).__init__(**kwargs)
        self.supports_masking = True
        self._num_heads = num_heads
        self._key_dim = key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout = dropout
        self._use_bias = use_bias
        self._output_shape = output_shape
        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        self._activity_regularizer_of_projections = regularizers.get(activity_regularizer)
        self._kernel_constraint = constraints.get(kernel_constraint)
        self._bias_constraint = constraints.get(bias_constraint)
        self._softmax_robust_masking = softmax_robust_masking
        if attention_axes is not None and not isinstance(attention_axes,
                                                         collections.abc.Sized):
            attention_axes = (attention_axes,)
        self._attention_axes = attention_axes
        self._built_from_signature = False
        self._query_shape = self._key_shape = self._value_shape = None

    def _sublayer_kwargs(self):
        return dict(kernel_regularizer=self._kernel_regularizer,
                    bias_regularizer=self._bias_regularizer,
                    activity_regularizer=self._activity_regularizer_of_projections,
                    kernel_constraint=self._kernel_constraint,
                    bias_constraint=self._bias_constraint, dtype=self._dtype_policy,
                    kernel_initializer=type(self._kernel_initializer).from_config(
                        self._kernel_initializer.get_config()),
                    bias_initializer=type(self._bias_initializer).from_config(
                        self._bias_initializer.get_config()))

    def _projection(self, rank, bound_dims, last_dims, name):
        equation, bias_axes, output_rank = _projection_equation(rank - 1, bound_dims,
                                                                len(last_dims))
        return EinsumDense(equation, output_shape=_output_dims(output_rank - 1, last_dims),
                           bias_axes=bias_axes if self._use_bias else None, name=name,
                           **self._sublayer_kwargs())

    def _build_from_signature(self, query, value, key=None):
        """Make the projections for inputs (or shapes) like `query`, `value`, `key`."""
        self._built_from_signature = True
        self._query_shape = TensorShape(getattr(query, "shape", query))
        self._value_shape = TensorShape(getattr(value, "shape", value))
        self._key_shape = self._value_shape if key is None else TensorShape(
            getattr(key, "shape", key))
        with ops.name_scope(self.name):
            query_rank = self._query_shape.rank
            heads = self._num_heads
            self._query_dense = self._projection(query_rank, 1, [heads, self._key_dim],
                                                 "query")
            self._key_dense = self._projection(self._key_shape.rank, 1,
                                               [heads, self._key_dim], "key")
            self._value_dense = self._projection(self._value_shape.rank, 1,
                                                 [heads, self._value_dim], "value")
            projected_rank = self._value_shape.rank + 1
            if self._attention_axes is None:
                self._attention_axes = tuple(range(1, projected_rank - 2))
            else:
                self._attention_axes = tuple(self._attention_axes)
            self._dot_product_equation, self._combine_equation, scores_rank = \
                _attention_equations(projected_rank, self._attention_axes)
            self._softmax_axes = tuple(range(scores_rank - len(self._attention_axes),
                                             scores_rank))
            self._dropout_layer = Dropout(rate=self._dropout, dtype=self._dtype_policy)
            if self._output_shape:
                last = self._output_shape if isinstance(self._output_shape,
                                                        collections.abc.Sized) \
                    else [self._output_shape]
            else:
                last = [self._query_shape[-1]]
            self._output_dense = self._projection(query_rank, 2, list(last),
                                                  "attention_output")

    def _attention_mask(self, query, value, key, attention_mask, use_causal_mask):
        """`attention_mask` combined with the inputs' Keras masks and the causal mask."""
        if attention_mask is not None:
            attention_mask = ops.convert_to_tensor(attention_mask)
        auto_mask = None
        for tensor, expand_axis in ((query, 2), (value, 1), (key, 1)):
            mask = getattr(tensor, "_keras_mask", None)
            if mask is not None:
                mask = array_ops.expand_dims(math_ops.cast(mask, dtypes.bool), expand_axis)
                auto_mask = mask if auto_mask is None else math_ops.logical_and(auto_mask,
                                                                                mask)
        if use_causal_mask:
            mask = _causal_mask(query, value)
            auto_mask = mask if auto_mask is None else math_ops.logical_and(auto_mask, mask)
        if auto_mask is None:
            return attention_mask
        if attention_mask is None:
            return auto_mask
        return math_ops.logical_and(math_ops.cast(attention_mask, dtypes.bool), auto_mask)

    def _compute_attention(self, query, key, value, attention_mask=None, training=None):
        query = query * (1.0 / math.sqrt(float(self._key_dim)))
        scores = math_ops.einsum(self._dot_product_equation, key, query)
        if attention_mask is not None:
            for _ in range(scores.shape.rank - attention_mask.shape.rank):
                attention_mask = array_ops.expand_dims(
                    attention_mask, -len(self._attention_axes) * 2 - 1)
        scores = _masked_softmax(scores, attention_mask, self._softmax_axes,
                                 self._softmax_robust_masking)
        dropped = self._dropout_layer(scores, training=training)
        return math_ops.einsum(self._combine_equation, dropped, value), scores

    def __call__(self, *args, **kwargs):
        """Keras 2 takes the query by its name too (`layer(query=q, value=v)`). A list
        [query, value(, key)] as the only argument is how tfcompat's functional models
        re-apply the layer from a config (they keep a node's tensors, not its argument names)."""
        if not args and "query" in kwargs:
            args = (kwargs.pop("query"),)
        if len(args) == 1 and isinstance(args[0], (list, tuple)) and "value" not in kwargs:
            args = tuple(args[0])
        return super(MultiHeadAttention, self).__call__(*args, **kwargs)

    def call(self, query, value, key=None, attention_mask=None, return_attention_scores=False,
             training=None, use_causal_mask=False):
        if not self._built_from_signature:
            self._build_from_signature(query=query, value=value, key=key)
        if key is None:
            key = value
        attention_mask = self._attention_mask(query, value, key, attention_mask,
                                              use_causal_mask)
        projected_query = self._query_dense(query)
        projected_key = self._key_dense(key)
        projected_value = self._value_dense(value)
        output, scores = self._compute_attention(projected_query, projected_key,
                                                 projected_value, attention_mask, training)
        output = self._output_dense(output)
        if return_attention_scores:
            return output, scores
        return output

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        query_shape = TensorShape(query_shape)
        if self._output_shape:
            return query_shape[:-1].concatenate(self._output_shape)
        return query_shape

    def get_config(self):
        config = super(MultiHeadAttention, self).get_config()
        config.update({
            "num_heads": self._num_heads, "key_dim": self._key_dim,
            "value_dim": self._value_dim, "dropout": self._dropout,
            "use_bias": self._use_bias, "output_shape": self._output_shape,
            "attention_axes": self._attention_axes,
            "kernel_initializer": initializers.serialize(self._kernel_initializer),
            "bias_initializer": initializers.serialize(self._bias_initializer),
            "kernel_regularizer": serialize_optional(regularizers, self._kernel_regularizer),
            "bias_regularizer": serialize_optional(regularizers, self._bias_regularizer),
            "activity_regularizer": serialize_optional(
                regularizers, self._activity_regularizer_of_projections),
            "kernel_constraint": serialize_optional(constraints, self._kernel_constraint),
            "bias_constraint": serialize_optional(constraints, self._bias_constraint),
            "query_shape": _shape_list(self._query_shape),
            "key_shape": _shape_list(self._key_shape),
            "value_shape": _shape_list(self._value_shape),
            "softmax_robust_masking": self._softmax_robust_masking})
        return config

    @classmethod
    def from_config(cls, config):
        """A layer with its projections already made where the config has the input shapes
        (Keras 2: otherwise the weights are made on the first call)."""
        config = dict(config)
        shapes = [config.pop(k, None) for k in ("query_shape", "key_shape", "value_shape")]
        layer = cls(**config)
        if None not in shapes:
            query_shape, key_shape, value_shape = shapes
            layer._build_from_signature(query_shape, value_shape, key_shape)
        return layer


def _shape_list(shape):
    return None if shape is None else TensorShape(shape).as_list()
