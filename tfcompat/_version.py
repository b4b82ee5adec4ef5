"""tfcompat's own version (TF's emulated one is `tf.version.VERSION`, framework/versions.py)."""
__version__ = "0.1.0"
