"""`tf.keras.layers` (the registry fills the namespace; `tfcompat/keras/__init__.py` imports
the modules)."""
