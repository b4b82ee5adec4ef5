"""`tf.compat.v1.saved_model.signature_def_utils`: SignatureDef protos as TF builds and
checks them (TF's `saved_model/signature_def_utils_impl.py`)."""
from tensorboard.compat.proto import meta_graph_pb2, types_pb2

from tfcompat._api import tf_export
from tfcompat.framework.tensor import Tensor
from tfcompat.saved_model import signature_constants
from tfcompat.saved_model.utils_impl import build_tensor_info


@tf_export(v1=["saved_model.build_signature_def",
               "saved_model.signature_def_utils.build_signature_def"])
def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None):
    """A SignatureDef of {key: TensorInfo} inputs and outputs and a method name."""
    signature_def = meta_graph_pb2.SignatureDef()
    for key, info in (inputs or {}).items():
        signature_def.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        signature_def.outputs[key].CopyFrom(info)
    if method_name is not None:
        signature_def.method_name = method_name
    if defaults:
        raise NotImplementedError("build_signature_def(defaults=...) is not implemented by "
                                  "tfcompat (tensorboard's SignatureDef has no defaults field)")
    return signature_def


@tf_export(v1=["saved_model.predict_signature_def",
               "saved_model.signature_def_utils.predict_signature_def"])
def predict_signature_def(inputs, outputs):
    """The Predict SignatureDef of {key: tensor} inputs and outputs."""
    if inputs is None or not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if outputs is None or not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def(
        {key: build_tensor_info(tensor) for key, tensor in inputs.items()},
        {key: build_tensor_info(tensor) for key, tensor in outputs.items()},
        signature_constants.PREDICT_METHOD_NAME)


@tf_export(v1=["saved_model.regression_signature_def",
               "saved_model.signature_def_utils.regression_signature_def"])
def regression_signature_def(examples, predictions):
    """The Regress SignatureDef: serialized `examples` (string) in, float `predictions` out."""
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError("Expected regression `examples` to be of type Tensor. Found "
                         "`examples` of type %s." % type(examples))
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    input_info = build_tensor_info(examples)
    if input_info.dtype != types_pb2.DT_STRING:
        raise ValueError("Regression input tensors must be of type string. Found tensors with "
                         "type %s." % input_info.dtype)
    output_info = build_tensor_info(predictions)
    if output_info.dtype != types_pb2.DT_FLOAT:
        raise ValueError("Regression output tensors must be of type float. Found tensors with "
                         "type %s." % output_info.dtype)
    return build_signature_def({signature_constants.REGRESS_INPUTS: input_info},
                               {signature_constants.REGRESS_OUTPUTS: output_info},
                               signature_constants.REGRESS_METHOD_NAME)


@tf_export(v1=["saved_model.classification_signature_def",
               "saved_model.signature_def_utils.classification_signature_def"])
def classification_signature_def(examples, classes, scores):
    """The Classify SignatureDef: serialized `examples` in, string `classes` and/or float
    `scores` out."""
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError("Classification `examples` must be a string Tensor. Found `examples` "
                         "of type %s." % type(examples))
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    input_info = build_tensor_info(examples)
    if input_info.dtype != types_pb2.DT_STRING:
        raise ValueError("Classification input tensors must be of type string. Found tensors "
                         "of type %s" % input_info.dtype)
    outputs = {}
    if classes is not None:
        info = build_tensor_info(classes)
        if info.dtype != types_pb2.DT_STRING:
            raise ValueError("Classification classes must be of type string Tensor. Found "
                             "tensors of type %s.`" % info.dtype)   # TF's message, backtick too
        outputs[signature_constants.CLASSIFY_OUTPUT_CLASSES] = info
    if scores is not None:
        info = build_tensor_info(scores)
        if info.dtype != types_pb2.DT_FLOAT:
            raise ValueError("Classification scores must be a float Tensor.")
        outputs[signature_constants.CLASSIFY_OUTPUT_SCORES] = info
    return build_signature_def({signature_constants.CLASSIFY_INPUTS: input_info}, outputs,
                               signature_constants.CLASSIFY_METHOD_NAME)


def _single(mapping, key, dtype):
    return len(mapping) == 1 and key in mapping and mapping[key].dtype == dtype


def _is_valid_predict(signature_def):
    return signature_def.method_name == signature_constants.PREDICT_METHOD_NAME and \
        bool(signature_def.inputs) and bool(signature_def.outputs)


def _is_valid_regression(signature_def):
    return signature_def.method_name == signature_constants.REGRESS_METHOD_NAME and \
        _single(signature_def.inputs, signature_constants.REGRESS_INPUTS,
                types_pb2.DT_STRING) and \
        _single(signature_def.outputs, signature_constants.REGRESS_OUTPUTS, types_pb2.DT_FLOAT)


def _is_valid_classification(signature_def):
    if signature_def.method_name != signature_constants.CLASSIFY_METHOD_NAME or \
            not _single(signature_def.inputs, signature_constants.CLASSIFY_INPUTS,
                        types_pb2.DT_STRING) or not signature_def.outputs:
        return False
    expected = {signature_constants.CLASSIFY_OUTPUT_CLASSES: types_pb2.DT_STRING,
                signature_constants.CLASSIFY_OUTPUT_SCORES: types_pb2.DT_FLOAT}
    return all(key in expected and info.dtype == expected[key]
               for key, info in signature_def.outputs.items())


@tf_export(v1=["saved_model.is_valid_signature",
               "saved_model.signature_def_utils.is_valid_signature"])
def is_valid_signature(signature_def):
    """Whether `signature_def` is a valid Predict, Regress or Classify signature (TF
    Serving's rules: method name, input and output keys and dtypes)."""
    if signature_def is None:
        return False
    return _is_valid_classification(signature_def) or _is_valid_regression(signature_def) \
        or _is_valid_predict(signature_def)
