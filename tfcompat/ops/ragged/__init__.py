"""tfcompat.ops.ragged: `tf.RaggedTensor` and the `tf.ragged` ops."""
from tfcompat.ops.ragged import (  # noqa: F401
    ragged_array_ops, ragged_concat_ops, ragged_dispatch, ragged_factory_ops,
    ragged_functional_ops, ragged_getitem, ragged_math_ops, ragged_operators, ragged_tensor,
    segment_id_ops)
