"""tf.function's trace types and function types (TF's tensorflow/core/function)."""
