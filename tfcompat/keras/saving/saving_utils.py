"""What a saved model records besides its weights: config, training config (TF's format)."""
import logging
import os
import tempfile

import numpy as np

from tfcompat.keras import __version__ as keras_version
from tfcompat.keras import losses, metrics, optimizers
from tfcompat.keras.optimizers import OptimizerV2

_logger = logging.getLogger("tensorflow")


def _asset_layers(model, prefix=""):
    """[(path, layer)] of the layers of `model` (nested models included, paths of layer
    names joined with "/") that keep state outside variables (Keras' `save_assets` hook:
    an adapted vocabulary)."""
    found = []
    for layer in getattr(model, "layers", []):
        path = prefix + layer.name
        if hasattr(layer, "save_assets"):
            found.append((path, layer))
        found.extend(_asset_layers(layer, path + "/"))
    return found


def layer_assets(model):
    """{layer path: {file name: text}} of what the layers' `save_assets` write (Keras'
    assets of a SavedModel): empty when no layer holds such state."""
    assets = {}
    for path, layer in _asset_layers(model):
        with tempfile.TemporaryDirectory() as directory:
            layer.save_assets(directory)
            files = {}
            for name in sorted(os.listdir(directory)):
                with open(os.path.join(directory, name)) as f:
                    files[name] = f.read()
        if files:
            assets[path] = files
    return assets


def load_layer_assets(model, directory, paths):
    """Give each layer of `paths` ({layer path: subdirectory of `directory`}) what its
    `save_assets` wrote (ValueError for a path naming no such layer or leaving
    `directory`)."""
    layers = dict(_asset_layers(model))
    for path, subdirectory in paths.items():
        if path not in layers or os.path.basename(subdirectory) != subdirectory or \
                subdirectory in ("", ".", ".."):
            raise ValueError("The saved model names layer assets it cannot have: %r -> %r"
                             % (path, subdirectory))
        layers[path].load_assets(os.path.join(directory, subdirectory))


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
    """A saved loss/metric compile argument with its objects rebuilt. A name stays a name
    (so metrics keep the names they were compiled with) once it resolves, as Keras 2
    resolves it when loading: an unknown name raises ValueError here, not at `fit`."""
    if spec is None:
        return None
    if isinstance(spec, str):
        if spec in custom_objects:
            return custom_objects[spec]
        deserialize(spec, custom_objects=custom_objects)
        return spec
    if isinstance(spec, list):
        return [_deserialize_compile_arg(v, deserialize, custom_objects) for v in spec]
    if isinstance(spec, dict) and "class_name" not in spec:
        return {k: _deserialize_compile_arg(v, deserialize, custom_objects)
                for k, v in spec.items()}
    return deserialize(spec, custom_objects=custom_objects)


# Keras' built-in optimizers as TF 2.11+ name them in legacy-format configs (`Custom>Adam`:
# registered under the "Custom" package), and the keys only those optimizers write.
_TF211_OPTIMIZERS = {"Custom>" + name: name for name in (
    "Adadelta", "Adagrad", "Adam", "Adamax", "Nadam", "RMSprop", "SGD", "Ftrl")}
_TF211_ONLY_KEYS = ("weight_decay", "use_ema", "ema_momentum", "ema_overwrite_frequency",
                    "jit_compile", "is_legacy_optimizer")


def _keras2_optimizer_config(config):
    """A TF 2.11-2.15 optimizer config (`{"class_name": "Custom>Adam", "config": {...,
    "is_legacy_optimizer": False}}`, what `model.save("x.h5")` writes there) as the config of
    the same Keras 2 optimizer (tf.keras.optimizers.legacy, which tfcompat's optimizers are):
    the same hyperparameters without the XLA and EMA settings. Weight decay and EMA, which
    Keras 2's optimizers lack, raise NotImplementedError. Other configs are returned as
    they are."""
    if not isinstance(config, dict) or config.get("class_name") not in _TF211_OPTIMIZERS or \
            not isinstance(config.get("config"), dict):
        return config
    settings = dict(config["config"])
    if settings.get("weight_decay") is not None or settings.get("use_ema"):
        raise NotImplementedError(
            "The saved %s optimizer uses weight_decay or use_ema (TF 2.11+ optimizers), which "
            "tfcompat's Keras 2 optimizers do not implement: load with compile=False and "
            "compile again." % config["class_name"])
    for key in _TF211_ONLY_KEYS:
        settings.pop(key, None)
    for key in ("clipnorm", "clipvalue", "global_clipnorm"):
        if settings.get(key, 0) is None:
            del settings[key]
    return {"class_name": _TF211_OPTIMIZERS[config["class_name"]], "config": settings}


def compile_from_training_config(model, config, custom_objects):
    """Compile `model` as the saved training config says (ValueError when it is malformed;
    TF 2.11+ optimizer configs as `_keras2_optimizer_config` reads them)."""
    custom_objects = custom_objects or {}
    try:
        model.compile(
            optimizer=optimizers.deserialize(
                _keras2_optimizer_config(config["optimizer_config"]),
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
