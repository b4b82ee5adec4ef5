"""`tf.keras.initializers` lookups: `serialize`, `deserialize` and `get` by Keras name.

The initializer classes are TF's (`ops/init_ops.py`); TF1 Keras resolves names to the
`tf.compat.v1` classes, TF2 Keras to the v2 ones, as in TF 2.15.
"""
from tfcompat._api import tf_export
from tfcompat.keras.utils.generic_utils import class_and_config, get_registered_object
from tfcompat.ops.init_ops import (
    Constant, ConstantV2, GlorotNormal, GlorotNormalV2, GlorotUniform, GlorotUniformV2, HeNormal,
    HeUniform, Identity, IdentityV2, KerasRandomNormal, KerasRandomUniform, KerasTruncatedNormal,
    LecunNormal, LecunUniform, Ones, OnesV2, Orthogonal, OrthogonalV2, RandomNormalV2,
    RandomUniformV2, TruncatedNormalV2, UniformUnitScaling, VarianceScaling, VarianceScalingV2,
    Zeros, ZerosV2, he_normal, he_uniform, lecun_normal, lecun_uniform)


def _table(classes, aliases):
    table = {}
    for cls in classes:
        table[getattr(cls, "_keras_name", cls.__name__)] = cls
    table.update(aliases)
    return table


_V1_TABLE = _table(
    (Zeros, Ones, Constant, KerasRandomNormal, KerasRandomUniform, KerasTruncatedNormal,
     VarianceScaling, Orthogonal, Identity, GlorotUniform, GlorotNormal, UniformUnitScaling),
    {"zeros": Zeros, "zero": Zeros, "ones": Ones, "one": Ones, "constant": Constant,
     "normal": KerasRandomNormal, "random_normal": KerasRandomNormal,
     "uniform": KerasRandomUniform, "random_uniform": KerasRandomUniform,
     "truncated_normal": KerasTruncatedNormal, "variance_scaling": VarianceScaling,
     "orthogonal": Orthogonal, "identity": Identity, "glorot_uniform": GlorotUniform,
     "glorot_normal": GlorotNormal, "he_normal": he_normal, "he_uniform": he_uniform,
     "lecun_normal": lecun_normal, "lecun_uniform": lecun_uniform})
_V2_CLASSES = (ZerosV2, OnesV2, ConstantV2, RandomNormalV2, RandomUniformV2, TruncatedNormalV2,
               VarianceScalingV2, OrthogonalV2, IdentityV2, GlorotUniformV2, GlorotNormalV2,
               HeNormal, HeUniform, LecunNormal, LecunUniform)
_V2_TABLE = _table(_V2_CLASSES, {})
_V2_TABLE.update({
    "zeros": ZerosV2, "ones": OnesV2, "constant": ConstantV2, "normal": RandomNormalV2,
    "random_normal": RandomNormalV2, "uniform": RandomUniformV2,
    "random_uniform": RandomUniformV2, "truncated_normal": TruncatedNormalV2,
    "variance_scaling": VarianceScalingV2, "orthogonal": OrthogonalV2,
    "identity": IdentityV2, "glorot_uniform": GlorotUniformV2,
    "glorot_normal": GlorotNormalV2, "he_normal": HeNormal, "he_uniform": HeUniform,
    "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform})


@tf_export("keras.initializers.serialize", v2=["initializers.serialize"])
def serialize(initializer):
    """{"class_name": ..., "config": ...} for an initializer object."""
    return {"class_name": getattr(type(initializer), "_keras_name",
                                  type(initializer).__name__),
            "config": initializer.get_config()}


def _deserialize(config, table, custom_objects):
    name, kwargs = class_and_config(config, "initializer")
    found = get_registered_object(name, custom_objects)
    if found is not None and not isinstance(found, type) and not kwargs:
        return found            # a custom initializer function is used as it is (TF2 Keras)
    found = found or table.get(name)
    if found is None:
        raise ValueError("Unknown initializer: %s. Please ensure this object is passed to the "
                         "`custom_objects` argument." % name)
    if hasattr(found, "from_config"):
        return found.from_config(kwargs)
    return found(**kwargs)


@tf_export(v1=["keras.initializers.deserialize"])
def deserialize(config, custom_objects=None):
    """An initializer from a name or a serialize() dict (TF1 Keras classes)."""
    return _deserialize(config, _V1_TABLE, custom_objects)


@tf_export(v2=["keras.initializers.deserialize", "initializers.deserialize"])
def deserialize_v2(config, custom_objects=None):
    """An initializer from a name or a serialize() dict (TF2 Keras classes)."""
    return _deserialize(config, _V2_TABLE, custom_objects)


def _get(identifier, table):
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return _deserialize(identifier, table, None)
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret initializer identifier: %r" % (identifier,))


@tf_export(v1=["keras.initializers.get"])
def get(identifier):
    """None, a name, a config dict or a callable -> an initializer (TF1 Keras classes)."""
    return _get(identifier, _V1_TABLE)


@tf_export(v2=["keras.initializers.get", "initializers.get"])
def get_v2(identifier):
    """None, a name, a config dict or a callable -> an initializer (TF2 Keras classes)."""
    return _get(identifier, _V2_TABLE)
