"""`tf.keras.mixed_precision.Policy`, `global_policy` and `set_global_policy` (Keras 2, TF 2.15).

A policy names the dtype a layer computes in and the dtype of its variables: 'mixed_float16'
and 'mixed_bfloat16' compute in float16 / bfloat16 with float32 variables; any dtype name
('float32', 'float64', ...) uses that dtype for both. Layers made without a `dtype` take the
global policy (`floatx()` until one is set). TF1 behaviour (the `_infer` policy: a layer takes
its first input's dtype) is what a layer without a dtype gets in TF1 scripts.
"""
from tfcompat import _api
from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.keras import backend
from tfcompat.keras.mixed_precision import device_compatibility_check
from tfcompat.keras.utils.generic_utils import deserialize_keras_object

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}
_global_policy = None


def _dtype_name(name):
    """The DType name `name` converts to, else None."""
    try:
        return dtypes.as_dtype(name).name
    except (TypeError, ValueError):
        return None


@tf_export(v2=["keras.mixed_precision.Policy"])
class Policy(object):
    """A dtype policy: `compute_dtype` for a layer's computations, `variable_dtype` for its
    variables, both given by `name` as Keras 2 parses it."""

    def __init__(self, name):
        if isinstance(name, dtypes.DType):
            raise TypeError("'name' must be a string, not a DType. Instead, pass DType.name. "
                            "Got: %s" % (name.name,))
        if not isinstance(name, str):
            raise TypeError("'name' must be a string, but got: %s" % (name,))
        self._name = name
        self._compute_dtype, self._variable_dtype = _parse_name(name)
        device_compatibility_check.log_device_compatibility_check(name)

    @property
    def name(self):
        return self._name

    @property
    def compute_dtype(self):
        """The dtype layer computations (and autocast inputs and variable reads) use."""
        return self._compute_dtype

    @property
    def variable_dtype(self):
        """The dtype a layer's variables are created in."""
        return self._variable_dtype

    def __repr__(self):
        return '<Policy "%s">' % self._name

    def get_config(self):
        return {"name": self._name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A policy from `get_config()`'s dict; TF 2.3's `loss_scale` entry is dropped."""
        config = {key: value for key, value in config.items() if key != "loss_scale"}
        return cls(**config)


def _parse_name(name):
    """(compute dtype, variable dtype) of a policy name; ValueError as Keras 2 raises it."""
    if name.endswith("_float32_vars"):
        message = "Policies ending in '_float32_vars' have been removed from TensorFlow."
        if name in ("infer_float32_vars", "infer_with_float32_vars"):
            message += " Please use the 'mixed_float16' or 'mixed_bfloat16' policy instead."
        elif name == "float16_with_float32_vars":
            message += " Please use the 'mixed_float16' policy instead."
        elif name == "bfloat16_with_float32_vars":
            message += " Please use the 'mixed_bfloat16' policy instead."
        raise ValueError(message + " Got policy name: '%s'" % name)
    if name in _MIXED:
        return _MIXED[name]
    if name == "_infer":
        return None, None
    dtype = _dtype_name(name)
    if dtype is None:
        raise ValueError("Cannot convert value %s to a mixed precision Policy. Valid policies "
                         "include 'mixed_float16', 'mixed_bfloat16', and the name of any dtype "
                         "such as 'float32'." % (name,))
    return dtype, dtype


def _v2_dtype_behavior():
    return _api.flavor() == "v2"


@tf_export(v2=["keras.mixed_precision.global_policy"])
def global_policy():
    """The policy layers made without a `dtype` get: the one set with `set_global_policy`,
    else `Policy(floatx())` (TF1 scripts: the `_infer` policy)."""
    if _global_policy is not None:
        return _global_policy
    return Policy(backend.floatx() if _v2_dtype_behavior() else "_infer")


@tf_export(v2=["keras.mixed_precision.set_global_policy"])
def set_global_policy(policy):
    """Set the global policy from a Policy or a policy name (None: back to the default).
    Only floating-point policies are accepted, as in Keras 2."""
    global _global_policy
    if not _v2_dtype_behavior():
        raise ValueError("The global policy can only be set in TensorFlow 2 or if V2 dtype "
                         "behavior has been set. To enable V2 dtype behavior, call "
                         "`tf.compat.v1.keras.layers.enable_v2_dtype_behavior()`")
    if policy is not None and not isinstance(policy, Policy):
        policy = Policy(policy)
    if policy is not None and policy.compute_dtype is not None and \
            not dtypes.as_dtype(policy.compute_dtype).is_floating:
        raise ValueError("set_global_policy can only be used to set the global policy to "
                         "floating-point policies, such as 'float32' and 'mixed_float16', but "
                         "got policy: %s" % (policy.name,))
    _global_policy = policy


def serialize(policy):
    """A layer config's `dtype`: the name of a policy that is just a dtype (None for `_infer`),
    else `{"class_name": "Policy", "config": {"name": ...}}`."""
    if type(policy) is Policy and (policy.name == "_infer" or _dtype_name(policy.name)):
        return None if policy.name == "_infer" else policy.name
    return {"class_name": type(policy).__name__, "config": policy.get_config()}


def deserialize(config, custom_objects=None):
    """The policy `serialize` (or a layer's `dtype` argument given as a dict) describes."""
    if config is None:
        return Policy("_infer")
    if isinstance(config, str):
        return Policy(config)
    return deserialize_keras_object(config, module_objects={"Policy": Policy, "PolicyV1": Policy},
                                    custom_objects=custom_objects,
                                    printable_module_name="dtype policy")


def policy_of(dtype):
    """Keras 2's `Layer._set_dtype_policy`: the policy of a layer's `dtype` argument (a Policy,
    a serialized one, a policy name or a dtype; None is the global policy)."""
    if isinstance(dtype, Policy):
        return dtype
    if isinstance(dtype, dict):
        return deserialize(dtype)
    if isinstance(dtype, str) and dtype in _MIXED:
        return Policy(dtype)
    if dtype is not None:
        return Policy(dtypes.as_dtype(dtype).name)
    return global_policy()
