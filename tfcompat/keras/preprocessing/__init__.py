"""`tf.keras.preprocessing`: Keras 2's text, sequence and image data utilities (the registry
fills the namespaces)."""
