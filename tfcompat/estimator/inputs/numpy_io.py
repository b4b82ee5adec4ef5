"""`tf.estimator.inputs.numpy_input_fn` (and `pandas_input_fn`, which needs pandas).

TF feeds the arrays through a queue; here the input_fn builds the equivalent `tf.data`
pipeline in the Estimator's graph: each epoch visits every example once (a new random order
per epoch when `shuffle`), `num_epochs` epochs (None: forever), then batches of `batch_size`
that run across epoch boundaries, the last one smaller, as TF's `dequeue_up_to` gives them.
Features keep the arrays' dtypes; a dict `x` gives a dict of features, an array one tensor.
`queue_capacity` bounds the shuffle buffer; `num_threads` is accepted (one reader here).
"""
import collections

import numpy as np

from tfcompat._api import tf_export
from tfcompat.data.dataset_ops import Dataset

_TARGET_KEY = "__target_key__"


def _unique_target_key(features):
    key = _TARGET_KEY
    while key in features:
        key += "_n"
    return key


def _ordered_features(x):
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return collections.OrderedDict(sorted(x.items(), key=lambda item: item[0]))
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        return collections.OrderedDict([("__direct_np_input__", x)])
    raise TypeError("x must be a dict or array; got {}".format(type(x).__name__))


def _check_lengths(data, feature_keys, target_keys, y):
    if len(set(v.shape[0] for v in data.values())) == 1:
        return
    shapes_x = {k: data[k].shape for k in feature_keys}
    if target_keys is None:
        shape_y = None
    elif isinstance(target_keys, str):
        shape_y = y.shape
    else:
        shape_y = {k: data[k].shape for k in target_keys}
    raise ValueError("Length of tensors in x and y is mismatched. All elements in x and y must "
                     "have the same length.\nShapes in x: {}\nShapes in y: {}\n"
                     .format(shapes_x, shape_y))


@tf_export(v1=["estimator.inputs.numpy_input_fn"])
def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                   queue_capacity=1000, num_threads=1):
    """An input_fn giving (features, targets) batches of numpy arrays (see the module doc).

    `shuffle` must be given as a bool, as in TF 1.15."""
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is "
                         "recommended to set it as True for training); got {}".format(shuffle))

    def input_fn():
        data = _ordered_features(x)
        feature_keys = list(data.keys())
        if y is None:
            target_keys = None
        elif isinstance(y, dict):
            if not y:
                raise ValueError("y cannot be empty dict, use None instead.")
            ordered_y = collections.OrderedDict(sorted(y.items(), key=lambda item: item[0]))
            target_keys = list(ordered_y.keys())
            duplicates = set(feature_keys) & set(target_keys)
            if duplicates:
                raise ValueError("{} duplicate keys are found in both x and y: {}"
                                 .format(len(duplicates), duplicates))
            data.update(ordered_y)
        else:
            target_keys = _unique_target_key(data)
            data[target_keys] = y
        _check_lengths(data, feature_keys, target_keys, y)
        dataset = Dataset.from_tensor_slices(dict(data))
        if shuffle:
            dataset = dataset.shuffle(min(queue_capacity, len(next(iter(data.values())))),
                                      reshuffle_each_iteration=True)
        dataset = dataset.repeat(num_epochs).batch(batch_size)
        batch = dataset.make_one_shot_iterator().get_next()
        features = batch[feature_keys[0]] if isinstance(x, np.ndarray) \
            else {k: batch[k] for k in feature_keys}
        if target_keys is None:
            return features
        if isinstance(target_keys, str):
            return features, batch[target_keys]
        return features, {k: batch[k] for k in target_keys}

    return input_fn


@tf_export(v1=["estimator.inputs.pandas_input_fn"])
def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                    queue_capacity=1000, num_threads=1, target_column="target"):
    """TF's pandas_input_fn: the DataFrame's columns as features (needs pandas)."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise NotImplementedError("tf.estimator.inputs.pandas_input_fn needs pandas, which is "
                                  "not installed; install pandas or pass numpy arrays to "
                                  "numpy_input_fn") from None
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is "
                         "recommended to set it as True for training); got {}".format(shuffle))
    if y is not None:
        if target_column in x:
            raise ValueError("Cannot use name %s for target column: DataFrame already has a "
                             "column with that name: %s" % (target_column, x.columns))
        if not np.array_equal(x.index, y.index):
            raise ValueError("Index for x and y are mismatched.\nIndex for x: %s\nIndex for y: "
                             "%s\n" % (x.index, y.index))
    features = {name: x[name].values for name in x.columns}
    return numpy_input_fn(features, None if y is None else y.values, batch_size=batch_size,
                          num_epochs=num_epochs, shuffle=shuffle,
                          queue_capacity=queue_capacity, num_threads=num_threads)
