"""`tf.saved_model.constants`: the names inside a SavedModel directory, as TF writes them."""
from tfcompat._api import export_constant

ASSETS_DIRECTORY = export_constant("assets", "saved_model.ASSETS_DIRECTORY",
                                   v1=["saved_model.constants.ASSETS_DIRECTORY"])
EXTRA_ASSETS_DIRECTORY = "assets.extra"
ASSETS_KEY = export_constant("saved_model_assets", "saved_model.ASSETS_KEY",
                             v1=["saved_model.constants.ASSETS_KEY"])
DEBUG_DIRECTORY = export_constant("debug", "saved_model.DEBUG_DIRECTORY",
                                  v1=["saved_model.constants.DEBUG_DIRECTORY"])
DEBUG_INFO_FILENAME_PB = export_constant(
    "saved_model_debug_info.pb", "saved_model.DEBUG_INFO_FILENAME_PB",
    v1=["saved_model.constants.DEBUG_INFO_FILENAME_PB"])
LEGACY_INIT_OP_KEY = export_constant("legacy_init_op", v1=[
    "saved_model.LEGACY_INIT_OP_KEY", "saved_model.constants.LEGACY_INIT_OP_KEY"])
MAIN_OP_KEY = export_constant("saved_model_main_op", v1=[
    "saved_model.MAIN_OP_KEY", "saved_model.constants.MAIN_OP_KEY"])
TRAIN_OP_KEY = "saved_model_train_op"
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
TRAIN_OP_SIGNATURE_KEY = "__saved_model_train_op"
SAVED_MODEL_SCHEMA_VERSION = export_constant(
    1, "saved_model.SAVED_MODEL_SCHEMA_VERSION",
    v1=["saved_model.constants.SAVED_MODEL_SCHEMA_VERSION"])
SAVED_MODEL_FILENAME_PB = export_constant(
    "saved_model.pb", "saved_model.SAVED_MODEL_FILENAME_PB",
    v1=["saved_model.constants.SAVED_MODEL_FILENAME_PB"])
SAVED_MODEL_FILENAME_PBTXT = export_constant(
    "saved_model.pbtxt", "saved_model.SAVED_MODEL_FILENAME_PBTXT",
    v1=["saved_model.constants.SAVED_MODEL_FILENAME_PBTXT"])
VARIABLES_DIRECTORY = export_constant("variables", "saved_model.VARIABLES_DIRECTORY",
                                      v1=["saved_model.constants.VARIABLES_DIRECTORY"])
VARIABLES_FILENAME = export_constant("variables", "saved_model.VARIABLES_FILENAME",
                                     v1=["saved_model.constants.VARIABLES_FILENAME"])

# tfcompat's own part of a SavedModel directory (docs/saved_model.md): traced functions as
# torch.export programs and the manifest that names them.
TFCOMPAT_DIRECTORY = "tfcompat"
