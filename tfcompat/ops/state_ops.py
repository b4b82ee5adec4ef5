"""TF1's function forms of variable updates: `tf.assign`, `tf.assign_add`, `tf.scatter_*`.

Each calls the variable's own method, so eager and graph behave as `Variable.assign*` do
(graph mode: a tensor holding the value after the update).
"""
from tfcompat._api import tf_export
from tfcompat.ops.sparse_ops import IndexedSlices


def _variable(ref, function):
    if not hasattr(ref, "assign"):
        raise TypeError("tf.%s needs a tf.Variable as `ref`, got %r" % (function, ref))
    return ref


@tf_export(v1=["assign"])
def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """`tf.assign(ref, value)`: write value into the variable."""
    return _variable(ref, "assign").assign(value, name=name)


@tf_export(v1=["assign_add"])
def assign_add(ref, value, use_locking=None, name=None):
    return _variable(ref, "assign_add").assign_add(value, name=name)


@tf_export(v1=["assign_sub"])
def assign_sub(ref, value, use_locking=None, name=None):
    return _variable(ref, "assign_sub").assign_sub(value, name=name)


@tf_export(v1=["count_up_to"])
def count_up_to(ref, limit, name=None):
    """`tf.count_up_to(ref, limit)`: the value before incrementing the integer variable by
    one; OutOfRangeError once it has reached `limit`."""
    return _variable(ref, "count_up_to").count_up_to(limit)


def _scatter(method):
    def scatter(ref, indices, updates, use_locking=True, name=None):
        return getattr(_variable(ref, method), method)(IndexedSlices(updates, indices))
    scatter.__name__ = method
    scatter.__doc__ = "`tf.%s(ref, indices, updates)`: row-wise update of a variable." % method
    return tf_export(v1=[method])(scatter)


scatter_update = _scatter("scatter_update")
scatter_add = _scatter("scatter_add")
scatter_sub = _scatter("scatter_sub")
scatter_mul = _scatter("scatter_mul")
scatter_div = _scatter("scatter_div")
scatter_min = _scatter("scatter_min")
scatter_max = _scatter("scatter_max")


def _scatter_nd(method):
    def scatter_nd(ref, indices, updates, use_locking=True, name=None):
        return getattr(_variable(ref, method), method)(indices, updates)
    scatter_nd.__name__ = method
    scatter_nd.__doc__ = "`tf.%s(ref, indices, updates)`: element-wise update." % method
    return tf_export(v1=[method])(scatter_nd)


scatter_nd_update = _scatter_nd("scatter_nd_update")
scatter_nd_add = _scatter_nd("scatter_nd_add")
scatter_nd_sub = _scatter_nd("scatter_nd_sub")
