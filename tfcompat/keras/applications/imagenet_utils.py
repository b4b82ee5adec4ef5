"""`tf.keras.applications.imagenet_utils` (Keras 2.15): ImageNet preprocessing and decoding,
and the pieces every application model shares (input shape checks, the input tensor, the
pooling head, weights from the Keras cache).

Keras downloads ImageNet weights and the class index on first use; tfcompat never
downloads: it reads them from the Keras cache (`~/.keras/models/<Keras' file name>`) and
otherwise raises an error naming the file, where to download it and where to put it
(or pass `weights=<path of the .h5 file>`, which Keras accepts too).
"""
import json
import os
import warnings

import numpy as np

from tfcompat._api import tf_export
from tfcompat.keras import activations, backend
from tfcompat.keras.engine.input_layer import Input
from tfcompat.keras.engine.training import Model
from tfcompat.keras.layers import pooling as pooling_layers
from tfcompat.keras.utils import data_utils
from tfcompat.keras.utils.layer_utils import get_source_inputs
from tfcompat.ops import array_ops, math_ops, nn_ops

CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/"
                    "data/imagenet_class_index.json")
_CLASS_INDEX_HASH = "c2c37ea517e94d9795004a39431a14cb"
WEIGHTS_ORIGIN = "https://storage.googleapis.com/tensorflow/keras-applications/"

_CAFFE_MEAN_BGR = [103.939, 116.779, 123.68]
_TORCH_MEAN = [0.485, 0.456, 0.406]
_TORCH_STD = [0.229, 0.224, 0.225]

_class_index = None


@tf_export("keras.applications.imagenet_utils.preprocess_input")
def preprocess_input(x, data_format=None, mode="caffe"):
    """Keras' ImageNet preprocessing of a batch (or one) of RGB images in [0, 255].

    mode "caffe": RGB to BGR, minus the ImageNet BGR means; "tf": scaled to [-1, 1];
    "torch": scaled to [0, 1], minus the ImageNet means, divided by their deviations.
    A floating numpy array is modified in place, as in Keras.
    """
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError("Expected mode to be one of `caffe`, `tf` or `torch`. "
                         "Received: mode=%s" % (mode,))
    if data_format is None:
        data_format = backend.image_data_format()
    elif data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Expected data_format to be one of `channels_first` or "
                         "`channels_last`. Received: data_format=%s" % (data_format,))
    if isinstance(x, np.ndarray):
        return _preprocess_numpy_input(x, data_format, mode)
    return _preprocess_tensor_input(x, data_format, mode)


def _channel_view(x, data_format, channel):
    """Index of one channel of a 3-D or 4-D image array."""
    if data_format == "channels_first":
        return (channel,) if x.ndim == 3 else (slice(None), channel)
    return (Ellipsis, channel)


def _preprocess_numpy_input(x, data_format, mode):
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        if data_format == "channels_first":
            x = x[::-1, ...] if x.ndim == 3 else x[:, ::-1, ...]
        else:
            x = x[..., ::-1]
        mean, std = _CAFFE_MEAN_BGR, None
    for channel in range(3):
        index = _channel_view(x, data_format, channel)
        x[index] -= mean[channel]
        if std is not None:
            x[index] /= std[channel]
    return x


def _preprocess_tensor_input(x, data_format, mode):
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        x = x / 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        channel_axis = (0 if backend.ndim(x) == 3 else 1) \
            if data_format == "channels_first" else -1
        x = array_ops.reverse(x, axis=[channel_axis])
        mean, std = _CAFFE_MEAN_BGR, None
    x = nn_ops.bias_add(x, math_ops.cast(-np.array(mean, dtype=backend.floatx()), x.dtype),
                        data_format="NCHW" if data_format == "channels_first" else "NHWC")
    if std is not None:
        std_tensor = math_ops.cast(np.array(std, dtype=backend.floatx()), x.dtype)
        if data_format == "channels_first":
            std_tensor = array_ops.reshape(std_tensor, (-1, 1, 1))
        x = x / std_tensor
    return x


@tf_export("keras.applications.imagenet_utils.decode_predictions")
def decode_predictions(preds, top=5):
    """The `top` ImageNet classes of each row of `preds` (shape (samples, 1000)), as lists of
    `(class_name, class_description, score)`, best first. The class index is Keras'
    `imagenet_class_index.json`, read from the Keras cache."""
    global _class_index
    preds = np.asarray(preds)
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D "
                         "array of shape (samples, 1000)). Found array with shape: "
                         + str(preds.shape))
    if _class_index is None:
        path = cached_file("imagenet_class_index.json", CLASS_INDEX_PATH, _CLASS_INDEX_HASH)
        with open(path) as f:
            _class_index = json.load(f)
    results = []
    for pred in preds:
        top_indices = pred.argsort()[-top:][::-1]
        result = [tuple(_class_index[str(i)]) + (pred[i],) for i in top_indices]
        result.sort(key=lambda entry: entry[2], reverse=True)
        results.append(result)
    return results


def cached_file(file_name, origin, file_hash=None):
    """Path of `file_name` in the Keras cache (`~/.keras/models`); tfcompat does not
    download it."""
    try:
        return data_utils.get_file(file_name, origin, cache_subdir="models",
                                   file_hash=file_hash)
    except IOError as error:
        raise IOError("%s Alternatively pass the path of the downloaded file as "
                      "`weights=`." % (error,)) from None


def obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten,
                       weights=None):
    """The model's input shape: `input_shape` checked as Keras checks it, or the default
    (`default_size` square with 3 channels; unknown size when `require_flatten` is False)."""
    channels_first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels not in {1, 3}:
            warnings.warn("This model usually expects 1 or 3 input channels. However, it was "
                          "passed an input_shape with %s input channels." % (channels,),
                          stacklevel=2)
    else:
        channels = 3
    default_shape = ((channels, default_size, default_size) if channels_first
                     else (default_size, default_size, channels))
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, "
                             "`input_shape` should be %s.  Received: input_shape=%s"
                             % (default_shape, input_shape))
        return default_shape
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels != 3 and weights == "imagenet":
            raise ValueError("The input must have 3 channels; Received `input_shape=%s`"
                             % (input_shape,))
        spatial = input_shape[1:] if channels_first else input_shape[:2]
        if any(size is not None and size < min_size for size in spatial):
            raise ValueError("Input size must be at least %sx%s; Received: input_shape=%s"
                             % (min_size, min_size, input_shape))
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static "
                         "`input_shape`. Received: input_shape=%s" % (input_shape,))
    return tuple(input_shape)


def correct_pad(inputs, kernel_size):
    """Zero padding ((top, bottom), (left, right)) that makes a strided 'valid' convolution
    of `inputs` match TF's 'same' padding of the original models."""
    image_axis = 2 if backend.image_data_format() == "channels_first" else 1
    input_size = backend.int_shape(inputs)[image_axis:image_axis + 2]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if input_size[0] is None else (1 - input_size[0] % 2,
                                                   1 - input_size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def validate_activation(classifier_activation, weights):
    """Pretrained weights allow only a softmax or linear classifier, as in Keras."""
    if weights is None:
        return
    activation = activations.get(classifier_activation)
    if activation not in {activations.get("softmax"), activations.get(None)}:
        raise ValueError("Only `None` and `softmax` activations are allowed for the "
                         "`classifier_activation` argument when using pretrained weights, "
                         "with `include_top=True`; Received: classifier_activation=%s"
                         % (classifier_activation,))


def check_weights_argument(weights, include_top, classes):
    """Keras' checks of `weights` (None, 'imagenet' or an existing file) and `classes`."""
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), `imagenet` (pre-training on ImageNet), or the path "
                         "to the weights file to be loaded.  Received: weights=%s"
                         % (weights,))
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights` as `"imagenet"` with `include_top` as true, '
                         "`classes` should be 1000.  Received: classes=%s" % (classes,))


def image_input(input_tensor, input_shape):
    """The model's input: a new `Input`, or `input_tensor` (wrapped when not a Keras
    tensor)."""
    if input_tensor is None:
        return Input(shape=input_shape)
    if not backend.is_keras_tensor(input_tensor):
        return Input(tensor=input_tensor, shape=input_shape)
    return input_tensor


def channel_axis():
    return 1 if backend.image_data_format() == "channels_first" else 3


def global_pooling(x, pooling, named):
    """The `pooling` head of a model built with `include_top=False` (named 'avg_pool' /
    'max_pool' in the models whose Keras source names them)."""
    if pooling == "avg":
        return pooling_layers.GlobalAveragePooling2D(name="avg_pool" if named else None)(x)
    if pooling == "max":
        return pooling_layers.GlobalMaxPooling2D(name="max_pool" if named else None)(x)
    return x


def finish_model(input_tensor, img_input, outputs, name, weights, weights_file=None):
    """The `Model` from the source inputs to `outputs`, with `weights` loaded: 'imagenet'
    reads `weights_file` = (file name, origin, hash) from the Keras cache."""
    inputs = get_source_inputs(input_tensor) if input_tensor is not None else img_input
    model = Model(inputs, outputs, name=name)
    if weights == "imagenet":
        model.load_weights(cached_file(*weights_file))
    elif weights is not None:
        model.load_weights(weights)
    return model


def reject_unknown_arguments(kwargs):
    if "layers" in kwargs:
        raise NotImplementedError("tf.keras.applications: the `layers` argument (a custom "
                                  "layers module) is not supported by tfcompat")
    if kwargs:
        raise ValueError("Unknown argument(s): %s" % (kwargs,))
