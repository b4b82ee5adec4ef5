"""`tf.estimator.export`: what a `serving_input_receiver_fn` returns and the builders of the
usual ones (tensorflow_estimator's `export/export.py`)."""
import collections
import logging
import os
import time

from tfcompat._api import tf_export
from tfcompat.framework.graph import placeholder
from tfcompat.framework.tensor import Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.io import parsing_ops
from tfcompat.ops.sparse_ops import SparseTensor
from tfcompat.saved_model import signature_constants, signature_def_utils_impl
from tfcompat.estimator.export.export_output import ExportOutput, PredictOutput

_logger = logging.getLogger("tensorflow")
_MAX_DIRECTORY_CREATION_ATTEMPTS = 10

_SINGLE_TENSOR_DEFAULT_NAMES = {"feature": "feature", "label": "label",
                                "receiver_tensor": "input",
                                "receiver_tensors_alternative": "input"}


def _check_tensor(tensor, name, error_label="feature"):
    if not isinstance(tensor, (Tensor, SparseTensor)):
        raise ValueError("{}{} must be a Tensor or SparseTensor.".format(
            error_label, " {}".format(name) if name else ""))


def wrap_and_check_input_tensors(tensors, field_name, allow_int_keys=False):
    """`tensors` as a dict of str (or int) to tensors: a single tensor is given TF's default
    key for `field_name`."""
    if tensors is None:
        raise ValueError("{}s must be defined.".format(field_name))
    if not isinstance(tensors, dict):
        tensors = {_SINGLE_TENSOR_DEFAULT_NAMES[field_name]: tensors}
    for name, tensor in tensors.items():
        if not isinstance(name, str):
            if not allow_int_keys:
                raise ValueError("{} keys must be strings: {}.".format(field_name, name))
            if not isinstance(name, int):
                raise ValueError("{} keys must be strings or ints: {}.".format(field_name,
                                                                               name))
        _check_tensor(tensor, name, error_label=field_name)
    return tensors


_RECEIVER_FIELDS = ["features", "receiver_tensors", "receiver_tensors_alternatives"]


@tf_export("estimator.export.ServingInputReceiver")
class ServingInputReceiver(collections.namedtuple("ServingInputReceiver", _RECEIVER_FIELDS)):
    """The features passed to the model_fn (a dict; a single tensor becomes {'feature': t})
    and the tensors a server feeds (`receiver_tensors`)."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = wrap_and_check_input_tensors(features, "feature", allow_int_keys=True)
        receiver_tensors = wrap_and_check_input_tensors(receiver_tensors, "receiver_tensor")
        if receiver_tensors_alternatives is not None:
            if not isinstance(receiver_tensors_alternatives, dict):
                raise ValueError("receiver_tensors_alternatives must be a dict: {}.".format(
                    receiver_tensors_alternatives))
            for name, alternative in receiver_tensors_alternatives.items():
                receiver_tensors_alternatives[name] = wrap_and_check_input_tensors(
                    alternative, "receiver_tensors_alternative")
        return super(ServingInputReceiver, cls).__new__(
            cls, features=features, receiver_tensors=receiver_tensors,
            receiver_tensors_alternatives=receiver_tensors_alternatives)


@tf_export("estimator.export.TensorServingInputReceiver")
class TensorServingInputReceiver(collections.namedtuple("TensorServingInputReceiver",
                                                        _RECEIVER_FIELDS)):
    """A receiver passing one tensor (not a dict) as the model_fn's features."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        _check_tensor(features, None)
        receiver = ServingInputReceiver(features, receiver_tensors,
                                        receiver_tensors_alternatives)
        return super(TensorServingInputReceiver, cls).__new__(
            cls, features=receiver.features["feature"],
            receiver_tensors=receiver.receiver_tensors,
            receiver_tensors_alternatives=receiver.receiver_tensors_alternatives)


@tf_export("estimator.export.build_parsing_serving_input_receiver_fn")
def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A receiver fn feeding serialized tf.Examples (placeholder 'input_example_tensor',
    key 'examples') parsed with `feature_spec`."""
    def serving_input_receiver_fn():
        serialized = placeholder(dtype="string", shape=[default_batch_size],
                                 name="input_example_tensor")
        features = parsing_ops.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})
    return serving_input_receiver_fn


def _placeholder_from_tensor(tensor, default_batch_size=None):
    shape = TensorShape([default_batch_size]).concatenate(tensor.get_shape()[1:])
    try:
        name = tensor.op.name
    except AttributeError:      # an eager tensor has no op: TF leaves the name to the graph
        name = None
    return placeholder(dtype=tensor.dtype, shape=shape, name=name)


@tf_export("estimator.export.build_raw_serving_input_receiver_fn")
def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A receiver fn feeding the features directly: one placeholder per feature, of its
    dtype and shape with the batch dimension `default_batch_size`, named as the feature's
    op."""
    def serving_input_receiver_fn():
        receiver_tensors = {name: _placeholder_from_tensor(tensor, default_batch_size)
                            for name, tensor in features.items()}
        return ServingInputReceiver(receiver_tensors, receiver_tensors)
    return serving_input_receiver_fn


# ---------------------------------------------------------------- export helpers (TF's
# saved_model/model_utils/export_utils.py)


def get_timestamped_export_dir(export_dir_base):
    """`export_dir_base/<seconds since the epoch>` as bytes, a name not in use yet (waits a
    second and retries when it is)."""
    for attempt in range(1, _MAX_DIRECTORY_CREATION_ATTEMPTS + 1):
        result = os.path.join(os.fsencode(export_dir_base), str(int(time.time())).encode())
        if not os.path.exists(result):
            return result
        time.sleep(1)
        _logger.warning("Directory %s already exists; retrying (attempt %d/%d)",
                        result.decode("utf-8"), attempt, _MAX_DIRECTORY_CREATION_ATTEMPTS)
    raise RuntimeError("Failed to obtain a unique export directory name after %d attempts."
                       % _MAX_DIRECTORY_CREATION_ATTEMPTS)


def get_export_outputs(export_outputs, predictions):
    """An EstimatorSpec's export_outputs checked, with TF's defaults: a PredictOutput of the
    predictions when there are none, and the only output also as `serving_default`."""
    if export_outputs is None:
        export_outputs = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                          PredictOutput(predictions)}
    if not isinstance(export_outputs, dict):
        raise TypeError("`export_outputs` must be dict, received: {}.".format(export_outputs))
    if not all(isinstance(v, ExportOutput) for v in export_outputs.values()):
        raise TypeError("Values in `export_outputs` must be ExportOutput objects, received: "
                        "{}.".format(export_outputs))
    export_outputs = dict(export_outputs)
    default = signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    if len(export_outputs) == 1:
        export_outputs.setdefault(default, next(iter(export_outputs.values())))
    if len(export_outputs) > 1 and default not in export_outputs:
        raise ValueError("Multiple `export_outputs` were provided, but none of them are "
                         "specified as the default. Use`tf.saved_model.DEFAULT_SERVING_"
                         "SIGNATURE_DEF_KEY` to specify a default.")
    return export_outputs


def build_all_signature_defs(receiver_tensors, export_outputs,
                             receiver_tensors_alternatives=None, serving_only=True):
    """{signature key: SignatureDef} of every export output for the receiver tensors (and
    "<alternative>:<key>" for each alternative receiver); outputs that cannot be served
    (a ValueError from `as_signature_def`) are left out and logged, as TF does."""
    if not isinstance(receiver_tensors, dict):
        receiver_tensors = {"input": receiver_tensors}
    if export_outputs is None or not isinstance(export_outputs, dict):
        raise ValueError("`export_outputs` must be a dict. Received {} with type {}.".format(
            export_outputs, type(export_outputs).__name__))
    receivers = [("", receiver_tensors)] + [
        (name, alternative if isinstance(alternative, dict) else {"input": alternative})
        for name, alternative in (receiver_tensors_alternatives or {}).items()]
    signature_def_map, excluded = {}, {}
    for receiver_name, tensors in receivers:
        for output_key, export_output in export_outputs.items():
            name = "{}".format(output_key or "None")
            if receiver_name:
                name = "{}:{}".format(receiver_name, name)
            try:
                signature_def_map[name] = export_output.as_signature_def(tensors)
            except ValueError as error:
                excluded[name] = str(error)
    for name, message in excluded.items():
        _logger.info("Signature '%s' EXCLUDED from export: it cannot be served via TensorFlow "
                     "Serving APIs: %s", name, message)
    if not signature_def_map:
        _logger.warning("Export includes no signatures!")
    elif signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY not in signature_def_map:
        _logger.warning("Export includes no default signature!")
    if serving_only:
        signature_def_map = {key: value for key, value in signature_def_map.items()
                             if signature_def_utils_impl.is_valid_signature(value)}
    return signature_def_map
