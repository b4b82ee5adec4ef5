"""`tf.keras.saving`: whole models on disk (`save_model` / `load_model`)."""
from tfcompat.keras.saving.save import load_model, save_model

__all__ = ["load_model", "save_model"]
