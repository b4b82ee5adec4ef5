"""`tf.saved_model.tag_constants`: the tags that name a MetaGraph of a SavedModel."""
from tfcompat._api import export_constant

SERVING = export_constant("serve", "saved_model.SERVING", v1=["saved_model.tag_constants.SERVING"])
TRAINING = export_constant("train", "saved_model.TRAINING",
                           v1=["saved_model.tag_constants.TRAINING"])
EVAL = "eval"
GPU = export_constant("gpu", "saved_model.GPU", v1=["saved_model.tag_constants.GPU"])
TPU = export_constant("tpu", "saved_model.TPU", v1=["saved_model.tag_constants.TPU"])
