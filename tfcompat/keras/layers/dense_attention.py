"""`tf.keras.layers.Attention` (Luong dot-product) and `AdditiveAttention` (Bahdanau), as
Keras 2.15 defines them: called on [query, value] or [query, value, key], with masks
[query_mask, value_mask]; masked-out scores get -1e9 (float16: -65504) before the softmax
and masked query positions give zeros."""
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import backend
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.ops import array_ops, math_ops, nn_ops


@ops.op(graph_name="Softmax")
def _masked_weights(scores, scores_mask):
    """softmax(scores - 1e9 * not scores_mask) over the last axis."""
    t = ops.to_torch(scores)
    if scores_mask is not None:
        padding = (~ops.to_torch(scores_mask)).to(t.dtype)
        t = t - (65504.0 if t.dtype is torch.float16 else 1.0e9) * padding
    return torch.softmax(t, dim=-1)


@ops.op(graph_name="GreaterEqual")
def _causal_mask(scores):
    """[1, ..., Tq, Tv] booleans: query i attends to value positions <= i."""
    t = ops.to_torch(scores)
    mask = torch.ones(t.shape[-2], t.shape[-1], dtype=torch.bool, device=t.device).tril()
    return mask.reshape((1,) * (t.ndim - 2) + tuple(mask.shape))


class BaseDenseAttention(Layer):
    """Shared call of the dense attention layers: scores from `_calculate_scores`, masked
    softmax, dropout while training, weighted sum of the values."""

    def __init__(self, dropout=0.0, **kwargs):
        self.causal = kwargs.pop("causal", False)
        super(BaseDenseAttention, self).__init__(**kwargs)
        self.dropout = dropout
        self.supports_masking = True

    def _calculate_scores(self, query, key):
        raise NotImplementedError

    def _apply_scores(self, scores, value, scores_mask=None, training=None):
        weights = _masked_weights(scores, scores_mask)
        if self.dropout > 0:
            if training is None:
                training = backend.learning_phase()
            kept = weights
            weights = backend.smart_cond(
                training, lambda: nn_ops.dropout_v2(kept, rate=self.dropout),
                lambda: array_ops.identity(kept))
        return math_ops.matmul(weights, value), weights

    def call(self, inputs, mask=None, training=None, return_attention_scores=False,
             use_causal_mask=False):
        self._validate_call_args(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = mask[0] if mask else None
        value_mask = mask[1] if mask else None
        scores = self._calculate_scores(query, key)
        scores_mask = None
        if value_mask is not None:
            scores_mask = array_ops.expand_dims(math_ops.cast(value_mask, dtypes.bool), -2)
        if self.causal or use_causal_mask:
            causal = _causal_mask(scores)
            scores_mask = causal if scores_mask is None else math_ops.logical_and(scores_mask,
                                                                                  causal)
        result, weights = self._apply_scores(scores, value, scores_mask, training)
        if query_mask is not None:
            query_mask = array_ops.expand_dims(query_mask, -1)
            result = result * math_ops.cast(query_mask, result.dtype)
        if return_attention_scores:
            return result, weights
        return result

    def compute_mask(self, inputs, mask=None):
        self._validate_call_args(inputs, mask)
        if mask and mask[0] is not None:
            return ops.convert_to_tensor(mask[0])
        return None

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape[0])

    def _validate_call_args(self, inputs, mask):
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError("%s layer must be called on a list of inputs, namely [query, "
                             "value] or [query, value, key]. Received: %s." % (name, inputs))
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError("%s layer accepts inputs list of length 2 or 3, namely [query, "
                             "value] or [query, value, key]. Received length: %d."
                             % (name, len(inputs)))
        if mask:
            if not isinstance(mask, list):
                raise ValueError("%s layer mask must be a list, namely [query_mask, "
                                 "value_mask]. Received: %s." % (name, mask))
            if len(mask) < 2 or len(mask) > len(inputs):
                raise ValueError("%s layer mask must be a list of length 2, namely "
                                 "[query_mask, value_mask]. Received length: %d."
                                 % (name, len(mask)))

    def get_config(self):
        config = super(BaseDenseAttention, self).get_config()
        config["dropout"] = self.dropout
        return config


@tf_export("keras.layers.Attention")
class Attention(BaseDenseAttention):
    """Dot-product attention: scores `query @ key^T` (times a learned `scale` with
    `use_scale`), or with `score_mode="concat"` `sum(tanh(scale * (q + k)))`."""

    def __init__(self, use_scale=False, score_mode="dot", **kwargs):
        super(Attention, self).__init__(**kwargs)
        self.use_scale = use_scale
        self.score_mode = score_mode
        if score_mode not in ("dot", "concat"):
            raise ValueError('Received: score_mode=%s. Acceptable values are: ["dot", '
                             '"concat"]' % score_mode)

    def build(self, input_shape):
        self.scale = self.add_weight("scale", shape=(), initializer="ones", dtype=self.dtype,
                                     trainable=True) if self.use_scale else None
        self.concat_score_weight = self.add_weight(
            "concat_score_weight", shape=(), initializer="ones", dtype=self.dtype,
            trainable=True) if self.score_mode == "concat" else None
        self.built = True

    def _calculate_scores(self, query, key):
        if self.score_mode == "dot":
            scores = math_ops.matmul(query, key, transpose_b=True)
            return scores if self.scale is None else scores * self.scale
        summed = array_ops.expand_dims(query, -2) + array_ops.expand_dims(key, -3)
        if self.scale is not None:
            summed = self.scale * summed
        return self.concat_score_weight * math_ops.reduce_sum(math_ops.tanh(summed), axis=-1)

    def get_config(self):
        config = super(Attention, self).get_config()
        config.update({"use_scale": self.use_scale, "score_mode": self.score_mode})
        return config


@tf_export("keras.layers.AdditiveAttention")
class AdditiveAttention(BaseDenseAttention):
    """Additive attention: scores `sum(scale * tanh(q + k))`, `scale` a learned vector of the
    value's last dim (glorot_uniform) with `use_scale`."""

    def __init__(self, use_scale=True, **kwargs):
        super(AdditiveAttention, self).__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape):
        dim = TensorShape(input_shape[1])[-1]
        self.scale = self.add_weight("scale", shape=[getattr(dim, "value", dim)],
                                     initializer="glorot_uniform", dtype=self.dtype,
                                     trainable=True) if self.use_scale else None
        self.built = True

    def _calculate_scores(self, query, key):
        summed = math_ops.tanh(array_ops.expand_dims(query, -2) +
                               array_ops.expand_dims(key, -3))
        if self.use_scale:
            summed = self.scale * summed
        return math_ops.reduce_sum(summed, axis=-1)

    def get_config(self):
        config = super(AdditiveAttention, self).get_config()
        config["use_scale"] = self.use_scale
        return config
