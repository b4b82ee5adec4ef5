"""tfcompat.saved_model: TF's `tf.saved_model` (symbols are registered by the modules)."""
from tfcompat.saved_model import constants, tag_constants, signature_constants  # noqa: F401
from tfcompat.saved_model import saved_model_proto  # noqa: F401
from tfcompat.saved_model import save_options, programs, save_impl, load_impl  # noqa: F401
from tfcompat.saved_model import utils_impl, signature_def_utils_impl  # noqa: F401
from tfcompat.saved_model import builder_impl, loader_impl, main_op_impl, simple_save  # noqa: F401
from tfcompat.saved_model import method_name_updater  # noqa: F401
