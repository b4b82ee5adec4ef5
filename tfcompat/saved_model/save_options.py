"""`tf.saved_model.SaveOptions` and `LoadOptions`."""
from tfcompat._api import tf_export


@tf_export("saved_model.SaveOptions")
class SaveOptions(object):
    """TF's save options. Where we differ: `namespace_whitelist`, `function_aliases`,
    `experimental_io_device`, `experimental_variable_policy` and the debug/sharding options
    are accepted and have no effect (tfcompat writes neither TF ops nor device placements);
    `experimental_custom_gradients=True` (TF's default) makes saving a function with a
    custom gradient fail rather than drop the gradient (see save_impl.py)."""

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None,
                 experimental_variable_policy=None, experimental_custom_gradients=True,
                 experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = save_debug_info
        self.function_aliases = dict(function_aliases or {})
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = list(extra_tags or [])


@tf_export("saved_model.LoadOptions")
class LoadOptions(object):
    """TF's load options; `allow_partial_checkpoint`, `experimental_io_device`,
    `experimental_load_function_aliases` and `experimental_skip_checkpoint` are accepted
    (`experimental_skip_checkpoint=True` leaves the variables at the values the functions
    were traced with... not supported: it raises)."""

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        if experimental_skip_checkpoint:
            raise NotImplementedError("tf.saved_model.LoadOptions(experimental_skip_checkpoint"
                                      "=True) is not implemented by tfcompat.")
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases
