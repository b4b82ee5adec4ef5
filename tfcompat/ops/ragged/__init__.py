"""tfcompat.ops.ragged: `tf.RaggedTensor` and the `tf.ragged` ops."""
from tfcompat.ops.ragged import ragged_tensor, ragged_factory_ops  # noqa: F401
