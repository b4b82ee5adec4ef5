"""`tf.data.Options` and its parts, as TF 2.15 declares them.

Options are set and read as in TF: each option has a type and a default, assigning an
unknown option is an AttributeError and a value of the wrong type a TypeError, and
`Dataset.options()` merges the options of a pipeline (a later `with_options` wins).
Where we differ: tfcompat runs every pipeline its own way (see `dataset_ops`), so options
change nothing in how elements are computed; `deterministic=False` keeps the
deterministic order, which TF allows.
"""
import enum

from tfcompat._api import tf_export


@tf_export("data.experimental.AutoShardPolicy")
class AutoShardPolicy(enum.IntEnum):
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


@tf_export("data.experimental.ExternalStatePolicy")
class ExternalStatePolicy(enum.Enum):
    WARN = 0
    IGNORE = 1
    FAIL = 2


@tf_export("data.experimental.AutotuneAlgorithm")
class AutotuneAlgorithm(enum.Enum):
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class OptionsBase(object):
    """Declared options (`_OPTIONS`: name -> (types, default)); unset ones read as their
    default, nested option groups are made on first read."""

    _OPTIONS = {}
    _ALIASES = {}

    def __init__(self):
        object.__setattr__(self, "_values", {})

    def _option(self, name):
        name = self._ALIASES.get(name, name)
        if name not in self._OPTIONS:
            raise AttributeError("Cannot set the property %s on %s."
                                 % (name, type(self).__name__))
        return name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        name = self._option(name)
        values = self.__dict__["_values"]
        if name not in values:
            types, default = self._OPTIONS[name]
            if isinstance(types, type) and issubclass(types, OptionsBase):
                values[name] = types()
            else:
                return default
        return values[name]

    def __setattr__(self, name, value):
        name = self._option(name)
        types, _ = self._OPTIONS[name]
        if value is not None and not isinstance(value, types):
            raise TypeError("Property \"%s\" must be of type %s, got: %r (type: %s)"
                            % (name, types, value, type(value)))
        self._values[name] = value

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._OPTIONS)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None

    def _merged_into(self, result):
        """Copy the options set here into `result` (nested groups merged)."""
        for name, value in self._values.items():
            if isinstance(value, OptionsBase):
                value._merged_into(getattr(result, name))
            else:
                setattr(result, name, value)
        return result

    def merge(self, options):
        """A new options object: these options, then those set in `options`."""
        if type(options) is not type(self):
            raise TypeError("Could not merge incompatible options of type %s and %s."
                            % (type(options), type(self)))
        return options._merged_into(self._merged_into(type(self)()))


_BOOL = bool
_INT = int


@tf_export("data.experimental.AutotuneOptions")
class AutotuneOptions(OptionsBase):
    _OPTIONS = {"enabled": (_BOOL, None), "cpu_budget": (_INT, None),
                "ram_budget": (_INT, None), "autotune_algorithm": (AutotuneAlgorithm, None)}


@tf_export("data.experimental.DistributeOptions")
class DistributeOptions(OptionsBase):
    _OPTIONS = {"auto_shard_policy": (AutoShardPolicy, AutoShardPolicy.AUTO),
                "num_devices": (_INT, None)}


@tf_export("data.experimental.OptimizationOptions")
class OptimizationOptions(OptionsBase):
    _OPTIONS = {name: (_BOOL, None) for name in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization",
        "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
        "map_parallelization", "noop_elimination", "parallel_batch",
        "seq_interleave_prefetch", "shuffle_and_repeat_fusion")}


@tf_export("data.ThreadingOptions", "data.experimental.ThreadingOptions")
class ThreadingOptions(OptionsBase):
    _OPTIONS = {"max_intra_op_parallelism": (_INT, None),
                "private_threadpool_size": (_INT, None)}


@tf_export("data.Options")
class Options(OptionsBase):
    """`tf.data.Options()`: set options, then `dataset.with_options(options)`."""

    _OPTIONS = {
        "autotune": (AutotuneOptions, None),
        "dataset_name": (str, None),
        "deterministic": (_BOOL, None),
        "experimental_distribute": (DistributeOptions, None),
        "experimental_external_state_policy": (ExternalStatePolicy, None),
        "experimental_optimization": (OptimizationOptions, None),
        "experimental_slack": (_BOOL, False),
        "experimental_symbolic_checkpoint": (_BOOL, None),
        "experimental_warm_start": (_BOOL, False),
        "framework_type": (list, None),
        "threading": (ThreadingOptions, None),
    }
    _ALIASES = {"experimental_deterministic": "deterministic",
                "experimental_threading": "threading"}
