"""`tf.compat.v1.saved_model.main_op`: the op a TF1 SavedModel runs after restoring its
variables (TF's `saved_model/main_op_impl.py`)."""
from tfcompat._api import tf_export
from tfcompat.ops import control_flow_ops
from tfcompat.variables import global_variables_initializer, local_variables_initializer


@tf_export(v1=["saved_model.main_op.main_op"])
def main_op():
    """One op initializing the global and local variables (TF also initializes lookup
    tables, which tfcompat does not have)."""
    return control_flow_ops.group(global_variables_initializer(),
                                  local_variables_initializer())
