"""`tf.keras.utils.unpack_x_y_sample_weight` / `pack_x_y_sample_weight`: the `(x, y,
sample_weight)` convention of Keras' training data (a list counts as a tuple, as in TF 2)."""
from tfcompat._api import tf_export


@tf_export("keras.utils.unpack_x_y_sample_weight")
def unpack_x_y_sample_weight(data):
    """`(x, y, sample_weight)` from `x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)`."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     "`(x, y, sample_weight)`, found: %s" % (data,))


@tf_export("keras.utils.pack_x_y_sample_weight")
def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The data tuple `x`, `(x, y)` or `(x, y, sample_weight)` (a tuple `x` is wrapped)."""
    if y is None:
        return (x,) if isinstance(x, tuple) else x
    if sample_weight is None:
        return x, y
    return x, y, sample_weight
