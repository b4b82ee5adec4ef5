"""`tfe.Saver`, `tfe.restore_variables_on_create` and `tfe.get_optimizer_variables`
(tf.contrib.eager's saver.py, TF 1.5-1.14): name-based checkpoints of eager variables."""
import contextlib

from tfcompat._api import tf_export
from tfcompat.framework import context, errors
from tfcompat.train import saver as train_saver
from tfcompat.variables import EAGER_CREATION_HOOKS


@tf_export("contrib.eager.Saver")
class Saver(object):
    """An eager `tf.train.Saver` over `var_list` (a list of variables, saved under their
    names, or a dict name -> variable); checkpoints are file prefixes."""

    def __init__(self, var_list):
        if not context.executing_eagerly():
            raise RuntimeError("tfe.Saver can only be used when eager execution is enabled. "
                               "Use tf.train.Saver when building graphs.")
        self._saver = train_saver.Saver(var_list=var_list)

    def save(self, file_prefix, global_step=None):
        """Write the variables to `file_prefix` (`-<global_step>` appended when given) and
        return the checkpoint prefix written."""
        return self._saver.save(None, file_prefix, write_meta_graph=False,
                                global_step=global_step)

    def restore(self, file_prefix):
        """Assign the variables the values saved under `file_prefix`."""
        with context.device_scope("/device:CPU:0"):
            self._saver.restore(None, file_prefix)


class _RestoreOnCreate(object):
    """The creation hook of one `restore_variables_on_create` block."""

    def __init__(self, save_path, map_func):
        reader = train_saver.load_checkpoint(save_path)
        self._values = {name: reader.get_tensor(name)
                        for name, _ in train_saver.list_variables(save_path)}
        self._map_func = map_func

    def __call__(self, variable):
        name = self._map_func(variable._shared_name)
        if name not in self._values:
            raise errors.NotFoundError("%s not found in checkpoint" % name)
        value = self._values[name]
        if value is not None:
            variable.assign(value)
            self._values[name] = None   # restored once: a later variable keeps its value


@tf_export("contrib.eager.restore_variables_on_create")
@contextlib.contextmanager
def restore_variables_on_create(save_path, map_func=None):
    """Variables created in the block get the checkpoint's values: the variable named
    `map_func(name)` (default: its own name), each checkpoint value used once. A created
    variable missing from the checkpoint raises NotFoundError. `save_path` None: does nothing
    (no checkpoint yet)."""
    if not context.executing_eagerly():
        raise ValueError("Currently, restore_variables_on_create can only be used with eager "
                         "execution enabled.")
    if not save_path:
        yield
        return
    if map_func is not None and not callable(map_func):
        raise ValueError("map_func must be callable.")
    hook = _RestoreOnCreate(save_path, map_func or (lambda name: name))
    EAGER_CREATION_HOOKS.append(hook)
    try:
        yield
    finally:
        EAGER_CREATION_HOOKS.remove(hook)


@tf_export("contrib.eager.get_optimizer_variables")
def get_optimizer_variables(optimizer):
    """The variables `optimizer` created (its slots and accumulators)."""
    return optimizer.variables()
