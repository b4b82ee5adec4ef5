"""`tf.saved_model.signature_constants`: signature keys and method names TF Serving knows."""
from tfcompat._api import export_constant


def _constant(value, name):
    return export_constant(value, "saved_model." + name,
                           v1=["saved_model.signature_constants." + name])


DEFAULT_SERVING_SIGNATURE_DEF_KEY = _constant("serving_default",
                                              "DEFAULT_SERVING_SIGNATURE_DEF_KEY")
CLASSIFY_INPUTS = _constant("inputs", "CLASSIFY_INPUTS")
CLASSIFY_METHOD_NAME = _constant("tensorflow/serving/classify", "CLASSIFY_METHOD_NAME")
CLASSIFY_OUTPUT_CLASSES = _constant("classes", "CLASSIFY_OUTPUT_CLASSES")
CLASSIFY_OUTPUT_SCORES = _constant("scores", "CLASSIFY_OUTPUT_SCORES")
PREDICT_INPUTS = _constant("inputs", "PREDICT_INPUTS")
PREDICT_METHOD_NAME = _constant("tensorflow/serving/predict", "PREDICT_METHOD_NAME")
PREDICT_OUTPUTS = _constant("outputs", "PREDICT_OUTPUTS")
REGRESS_INPUTS = _constant("inputs", "REGRESS_INPUTS")
REGRESS_METHOD_NAME = _constant("tensorflow/serving/regress", "REGRESS_METHOD_NAME")
REGRESS_OUTPUTS = _constant("outputs", "REGRESS_OUTPUTS")
SUPERVISED_TRAIN_METHOD_NAME = "tensorflow/supervised/training"
SUPERVISED_EVAL_METHOD_NAME = "tensorflow/supervised/eval"
