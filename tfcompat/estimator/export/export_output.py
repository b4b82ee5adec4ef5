"""`tf.estimator.export.PredictOutput` / `ClassificationOutput` / `RegressionOutput`: what an
EstimatorSpec's `export_outputs` hold, each giving the SignatureDef of its serving method
(TF's `saved_model/model_utils/export_output.py`)."""
from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.framework.tensor import Tensor
from tfcompat.saved_model import signature_def_utils_impl as signature_def_utils

_SINGLE_INPUT_MESSAGE = (
    "%s signatures can only accept a single tensor input of type tf.string. Please check to "
    "make sure that you have structured the serving_input_receiver_fn so that it creates a "
    "single string placeholder. If your model function expects multiple inputs, then use "
    "`tf.io.parse_example()` to parse the string into multiple tensors.\n Received: %s")


@tf_export("estimator.export.ExportOutput")
class ExportOutput(object):
    """An output of a served model: `as_signature_def(receiver_tensors)`."""

    _SEPARATOR_CHAR = "/"

    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError("%s must implement as_signature_def" % type(self).__name__)


def _single_string_input(receiver_tensors, what):
    if len(receiver_tensors) != 1:
        raise ValueError(_SINGLE_INPUT_MESSAGE % (what, receiver_tensors))
    (_, examples), = receiver_tensors.items()
    if examples.dtype != dtypes.string:
        raise ValueError(_SINGLE_INPUT_MESSAGE % (what, receiver_tensors))
    return examples


@tf_export("estimator.export.ClassificationOutput")
class ClassificationOutput(ExportOutput):
    """Scores (float) and/or class labels (string) of a classifier: the Classify method."""

    def __init__(self, scores=None, classes=None):
        if scores is not None and not (isinstance(scores, Tensor) and
                                       scores.dtype.is_floating):
            raise ValueError("Classification scores must be a float32 Tensor; got {}"
                             .format(scores))
        if classes is not None and not (isinstance(classes, Tensor) and
                                        classes.dtype == dtypes.string):
            raise ValueError("Classification classes must be a string Tensor; got {}"
                             .format(classes))
        if scores is None and classes is None:
            raise ValueError("Cannot create a ClassificationOutput with empty arguments. At "
                             "least one of `scores` and `classes` must be defined.")
        self.scores = scores
        self.classes = classes

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Classification")
        return signature_def_utils.classification_signature_def(examples, self.classes,
                                                                self.scores)


@tf_export("estimator.export.RegressionOutput")
class RegressionOutput(ExportOutput):
    """A regressor's float values: the Regress method."""

    def __init__(self, value):
        if not (isinstance(value, Tensor) and value.dtype.is_floating):
            raise ValueError("Regression output value must be a float32 Tensor; got {}"
                             .format(value))
        self.value = value

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Regression")
        return signature_def_utils.regression_signature_def(examples, self.value)


@tf_export("estimator.export.PredictOutput")
class PredictOutput(ExportOutput):
    """Named prediction tensors (a single tensor is named "output"): the Predict method."""

    _SINGLE_OUTPUT_DEFAULT_NAME = "output"

    def __init__(self, outputs):
        if not isinstance(outputs, dict):
            outputs = {self._SINGLE_OUTPUT_DEFAULT_NAME: outputs}
        self.outputs = {}
        for key, value in outputs.items():
            if isinstance(key, tuple):
                key = self._SEPARATOR_CHAR.join(key)
            if not isinstance(key, str):
                raise ValueError("Prediction output key must be a string; got {}.".format(key))
            if not isinstance(value, Tensor):
                raise ValueError("Prediction output value must be a Tensor; got {}."
                                 .format(value))
            self.outputs[key] = value

    def as_signature_def(self, receiver_tensors):
        return signature_def_utils.predict_signature_def(receiver_tensors, self.outputs)
