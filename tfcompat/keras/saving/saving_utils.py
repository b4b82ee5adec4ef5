"""What a saved model records besides its weights: config, training config (TF's format)."""
import logging

import numpy as np

from tfcompat.keras import __version__ as keras_version
from tfcompat.keras import losses, metrics, optimizers
from tfcompat.keras.optimizers import OptimizerV2

_logger = logging.getLogger("tensorflow")


def _serialize_compile_arg(spec, serialize):
    """A loss/metric compile argument with functions and objects serialized (names stay)."""
    if spec is None or isinstance(spec, str):
        return spec
    if isinstance(spec, dict):
        return {k: _serialize_compile_arg(v, serialize) for k, v in spec.items()}
    if isinstance(spec, (list, tuple)):
        return [_serialize_compile_arg(v, serialize) for v in spec]
    return serialize(spec)


def model_config(model):
    """`{"class_name", "config"}` of a model; NotImplementedError for a subclassed model
    without `get_config`."""
    try:
        config = model.get_config()
    except NotImplementedError:
        raise NotImplementedError(
            "Saving the whole model needs its config, and model %s (%s) is a subclassed model "
            "without `get_config`. Save its weights with `model.save_weights(path)` and "
            "rebuild the model in code before `load_weights`, or implement `get_config` (and "
            "`from_config`) in the class." % (model.name, type(model).__name__)) from None
    return {"class_name": type(model).__name__, "config": config}


def training_config(model):
    """The compile arguments of a compiled model (None if not compiled, or compiled with a
    TF1 optimizer, whose state Keras cannot save)."""
    compiled = getattr(model, "_compiled", None)
    if compiled is None:
        return None
    if not isinstance(model.optimizer, OptimizerV2):
        _logger.warning("TensorFlow optimizers do not make it possible to access optimizer "
                        "attributes or optimizer state after instantiation. As a result, we "
                        "cannot save the optimizer as part of the model save file. You will "
                        "have to compile your model again after loading it. Prefer using a "
                        "Keras optimizer instead (see keras.io/optimizers).")
        return None
    return {"loss": _serialize_compile_arg(compiled.loss_spec, losses.serialize),
            "metrics": _serialize_compile_arg(compiled.metrics_spec, metrics.serialize),
            "weighted_metrics": _serialize_compile_arg(compiled.weighted_spec,
                                                       metrics.serialize),
            "loss_weights": compiled.loss_weights_spec,
            "sample_weight_mode": None,
            "optimizer_config": optimizers.serialize(model.optimizer)}


def metadata(model, include_optimizer):
    return {"keras_version": keras_version, "backend": "tensorflow",
            "model_config": model_config(model),
            "training_config": training_config(model) if include_optimizer else None}


def _deserialize_compile_arg(spec, deserialize, custom_objects):
    if spec is None:
        return None
    if isinstance(spec, str):
        return custom_objects.get(spec, spec)
    if isinstance(spec, list):
        return [_deserialize_compile_arg(v, deserialize, custom_objects) for v in spec]
    if isinstance(spec, dict) and "class_name" not in spec:
        return {k: _deserialize_compile_arg(v, deserialize, custom_objects)
                for k, v in spec.items()}
    return deserialize(spec, custom_objects=custom_objects)


def compile_from_training_config(model, config, custom_objects):
    """Compile `model` as the saved training config says (ValueError when it is malformed)."""
    custom_objects = custom_objects or {}
    try:
        model.compile(
            optimizer=optimizers.deserialize(config["optimizer_config"],
                                             custom_objects=custom_objects),
            loss=_deserialize_compile_arg(config.get("loss"), losses.deserialize,
                                          custom_objects),
            metrics=_deserialize_compile_arg(config.get("metrics"), metrics.deserialize,
                                             custom_objects),
            weighted_metrics=_deserialize_compile_arg(config.get("weighted_metrics"),
                                                      metrics.deserialize, custom_objects),
            loss_weights=config.get("loss_weights"))
    except (TypeError, KeyError, IndexError, AttributeError) as error:
        if isinstance(error, NotImplementedError):  # a TF feature tfcompat lacks
            raise
        raise ValueError("Malformed training config (%s: %s)" % (type(error).__name__,
                                                                 error)) from error


def get_json_type(obj):
    """JSON for numpy values and dtypes in configs (Keras' `get_json_type`)."""
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if hasattr(obj, "name") and hasattr(obj, "as_numpy_dtype"):
        return obj.name
    if hasattr(obj, "as_list"):
        return obj.as_list()
    raise TypeError("Not JSON Serializable: %r" % (obj,))
