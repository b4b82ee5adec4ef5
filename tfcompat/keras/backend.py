"""`tf.keras.backend`: Keras 2's global settings (floatx, epsilon, learning phase, name uids)
and its tensor helpers, written over tfcompat ops.

The learning phase follows Keras 2: `set_learning_phase(0|1)` fixes it; otherwise eager code
sees 0 and TF1 graph code a boolean placeholder (default False) that a training loop feeds.
Layer names are made unique per graph in TF1 graph mode and per process in eager mode (until
`clear_session`).
"""
import builtins
import collections
import contextlib
import re
import threading

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, ops
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import (
    array_ops, control_flow_ops, image_ops, logging_ops, math_ops, nn_ops, random_ops, sparse_ops)
from tfcompat.client.session import Session
from tfcompat.framework.default_session import get_default_session
from tfcompat.framework.graph import (
    get_default_graph, placeholder_with_default, reset_default_graph)
from tfcompat.keras.engine import input_layer
from tfcompat.variables import Variable, global_variables, variables_initializer
from tfcompat.framework.constant_op import constant as tf_constant
from tfcompat.keras.engine.input_layer import Input
from tfcompat.ops.control_flow_ops import cond
from tfcompat.eager import gradients_impl
from tfcompat.keras.engine.base_layer import flatten as flat
from tfcompat.keras.engine.network import Network

_state = context.state
_config = {"floatx": "float32", "epsilon": 1e-7, "image_data_format": "channels_last"}
_uid_maps = collections.defaultdict(lambda: collections.defaultdict(int))
_uid_lock = threading.Lock()     # threads creating layers at once get distinct names
_graph_learning_phases = {}      # TF1 graph -> its learning-phase placeholder
_sessions = {}                   # TF1 graph -> the Keras session


class _LearningPhase(threading.local):
    """The learning phase fixed by `set_learning_phase` / `learning_phase_scope`: per
    thread, as Keras 2 keys the eager one by a thread-local object (so `fit` in one thread
    leaves another thread's inference alone). Where we differ: Keras keeps a value set while
    building a TF1 graph per graph, seen by all threads."""

    def __init__(self):
        self.value = []      # [] unset; [0] / [1] set


_learning_phase = _LearningPhase()


# ---------------------------------------------------------------- configuration


@tf_export("keras.backend.floatx")
def floatx():
    """The default float type as a string ("float32")."""
    return _config["floatx"]


@tf_export("keras.backend.set_floatx")
def set_floatx(value):
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError("Unknown floatx type: %s" % (value,))
    _config["floatx"] = str(value)


@tf_export("keras.backend.epsilon")
def epsilon():
    """The fuzz factor used in numeric expressions (1e-7)."""
    return _config["epsilon"]


@tf_export("keras.backend.set_epsilon")
def set_epsilon(value):
    _config["epsilon"] = float(value)


@tf_export("keras.backend.image_data_format")
def image_data_format():
    return _config["image_data_format"]


@tf_export("keras.backend.set_image_data_format")
def set_image_data_format(data_format):
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("Unknown data_format: %s" % (data_format,))
    _config["image_data_format"] = str(data_format)


@tf_export("keras.backend.backend")
def backend():
    return "tensorflow"


@tf_export("keras.backend.cast_to_floatx")
def cast_to_floatx(x):
    return np.asarray(x, dtype=floatx())


def normalize_data_format(value):
    """None -> the configured default; checks "channels_first" / "channels_last"."""
    if value is None:
        value = image_data_format()
    data_format = value.lower()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of \"channels_first\", "
                         "\"channels_last\". Received: %s" % (value,))
    return data_format


# ---------------------------------------------------------------- names


def _uid_key():
    """Layer-name counters are per graph being built, as TF's `get_graph()` (a TF1 graph
    built in an eager program too, e.g. by an Estimator); eager code (and Keras' own graph
    of functional-API tensors) shares one process-wide map."""
    if _state.building_graph or not _state.eager:
        graph = get_default_graph()
        if not getattr(graph, "keras_graph", False):
            return graph
    return None


@tf_export("keras.backend.get_uid")
def get_uid(prefix=""):
    """1, 2, ... for successive calls with `prefix` (per graph in TF1 graph mode)."""
    key = _uid_key()
    with _uid_lock:
        uids = _uid_maps[key]
        uids[("", prefix)] += 1
        return uids[("", prefix)]


@tf_export("keras.backend.reset_uids")
def reset_uids():
    _uid_maps.pop(_uid_key(), None)


def unique_object_name(name, zero_based=False):
    """Keras' layer naming: "dense", "dense_1", ... (zero_based) or "input_1", "input_2"."""
    graph_key, key = _uid_key(), ("", name)
    with _uid_lock:
        uids = _uid_maps[graph_key]
        if zero_based:
            number = uids[key]
            uids[key] += 1
            return name + "_" + str(number) if number else name
        uids[key] += 1
        return name + "_" + str(uids[key])


def to_snake_case(name):
    """Keras' snake case of a class name: "Conv2D" -> "conv2d", "LeakyReLU" -> "leaky_re_lu"."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


@tf_export("keras.backend.clear_session")
def clear_session():
    """Forget layer-name uids, the learning phase and the Keras graph; TF1 graph mode: reset
    the default graph."""
    _uid_maps.clear()
    _graph_learning_phases.clear()
    del input_layer._keras_graph[:]
    del _learning_phase.value[:]
    if not _state.eager and not _state.graph_stack:
        sessions = list(_sessions.values())
        _sessions.clear()
        for session in sessions:
            session.close()
        reset_default_graph()


# ---------------------------------------------------------------- learning phase


@tf_export("keras.backend.learning_phase")
def learning_phase():
    """0/1 when set; eager: 0; TF1 graph: the graph's `keras_learning_phase` placeholder."""
    if _learning_phase.value:
        return _learning_phase.value[-1]
    if not _state.building_graph:
        return 0
    graph = get_default_graph()
    if graph.building_function:
        return 0
    phase = _graph_learning_phases.get(graph)
    if phase is None:
        with ops.name_scope(""):
            phase = placeholder_with_default(False, shape=(), name="keras_learning_phase")
        _graph_learning_phases[graph] = phase
    return phase


def global_learning_phase_is_set():
    return bool(_learning_phase.value)


@tf_export("keras.backend.set_learning_phase")
def set_learning_phase(value):
    """Fix the learning phase to 0 (test) or 1 (train) for layers called without `training`."""
    if value not in (0, 1, True, False):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _learning_phase.value[:] = [int(value)]


@tf_export("keras.backend.learning_phase_scope")
@contextlib.contextmanager
def learning_phase_scope(value):
    """Set the learning phase to `value` (0 or 1) inside the block."""
    if value not in (0, 1, True, False):
        raise ValueError("Expected learning phase to be 0 or 1.")
    phase = _learning_phase.value
    saved = list(phase)
    phase[:] = [int(value)]
    try:
        yield
    finally:
        phase[:] = saved


# ---------------------------------------------------------------- sessions and values


@tf_export(v1=["keras.backend.get_session"])
def get_session(op_input_list=()):
    """TF1: the Keras session of the default graph (global variables initialized on first
    use); also inside `with tf.Graph().as_default():` in an eager program, as in TF 2."""
    if not _state.building_graph:
        raise RuntimeError("tf.keras.backend.get_session is not available when eager "
                           "execution is enabled (outside a `with tf.Graph().as_default():` "
                           "block).")
    if get_default_graph().building_function:
        raise RuntimeError("Cannot get session inside Tensorflow graph function.")
    default = get_default_session()
    if default is not None:
        session = default
    else:
        graph = get_default_graph()
        session = _sessions.get(graph)
        if session is None or session._closed:
            session = _sessions[graph] = Session(graph=graph)
    _initialize_variables(session, global_variables(), variables_initializer)
    return session


def _initialize_variables(session, variables, variables_initializer):
    fresh = [v for v in variables if not getattr(v, "_keras_initialized", False)]
    if fresh:
        uninitialized = [v for v in fresh if not session._is_initialized(v)]
        if uninitialized:
            session.run(variables_initializer(uninitialized))
        for v in fresh:
            v._keras_initialized = True


@tf_export(v1=["keras.backend.set_session"])
def set_session(session):
    _sessions[get_default_graph()] = session


@tf_export("keras.backend.manual_variable_initialization")
def manual_variable_initialization(value):
    """Accepted for compatibility: tfcompat initializes Keras variables when they are made."""


def _is_eager_value(x):
    return not (getattr(x, "_in_graph", None) and x._in_graph()) and \
        type(x).__name__ != "SymbolicTensor"


@tf_export("keras.backend.eval")
def eval(x):  # noqa: A001 - Keras' name
    """The numpy value of a tensor or variable."""
    return get_value(ops.convert_to_tensor(x) if not hasattr(x, "numpy") else x)


@tf_export("keras.backend.get_value")
def get_value(x):
    """A variable's or tensor's value as numpy (TF1 graph: evaluated in the Keras session)."""
    if not ops.is_tensor(x):
        return x
    if _is_eager_value(x):
        return x.numpy()
    return get_session().run(x)


@tf_export("keras.backend.batch_get_value")
def batch_get_value(tensors):
    """The values of several tensors/variables (TF1 graph: one `Session.run`)."""
    tensors = list(tensors)
    if builtins.any(ops.is_tensor(t) and not _is_eager_value(t) for t in tensors):
        return get_session().run(tensors)
    return [get_value(t) for t in tensors]


@tf_export("keras.backend.set_value")
def set_value(x, value):
    """Assign a numpy value to a variable."""
    value = np.asarray(value, dtype=x.dtype.as_numpy_dtype)
    if _is_eager_value(x):
        x.assign(value)
    else:
        x.load(value, get_session())


@tf_export("keras.backend.batch_set_value")
def batch_set_value(tuples):
    for x, value in tuples:
        set_value(x, value)


# ---------------------------------------------------------------- variables and tensors


@tf_export("keras.backend.variable")
def variable(value, dtype=None, name=None, constraint=None):
    """A variable holding `value` (numpy or Python), of `dtype` (default floatx)."""
    dtype = dtypes.as_dtype(dtype or floatx())
    if ops.is_tensor(value):
        return Variable(math_ops.cast(value, dtype), dtype=dtype, name=name,
                        constraint=constraint)
    v = Variable(np.asarray(value, dtype=dtype.as_numpy_dtype), dtype=dtype, name=name,
                 constraint=constraint)
    v._keras_shape = TensorShape(np.shape(value))
    return v


@tf_export("keras.backend.constant")
def constant(value, dtype=None, shape=None, name=None):
    return tf_constant(value, dtype=dtype or floatx(), shape=shape, name=name)


@tf_export("keras.backend.placeholder")
def placeholder(shape=None, ndim=None, dtype=None, sparse=False, name=None, ragged=False):
    """A symbolic input (Keras tensor) of `shape` or rank `ndim`."""
    if sparse or ragged:
        raise NotImplementedError("sparse and ragged Keras placeholders are not implemented "
                                  "by tfcompat")
    if shape is None:
        shape = (None,) * ndim if ndim is not None else None
    if shape is None:
        raise ValueError("Specify the `shape` or `ndim` of the placeholder.")
    return Input(batch_shape=tuple(shape), dtype=dtype, name=name)


@tf_export("keras.backend.is_keras_tensor")
def is_keras_tensor(x):
    if not ops.is_tensor(x):
        raise ValueError("Unexpectedly found an instance of type `%s`. Expected a symbolic "
                         "tensor instance." % type(x))
    return getattr(x, "_keras_history", None) is not None


@tf_export("keras.backend.int_shape")
def int_shape(x):
    """The static shape as a tuple of ints and Nones (None for unknown rank)."""
    try:
        shape = x.shape
        if not isinstance(shape, TensorShape):
            shape = TensorShape(shape)
        return tuple(shape.as_list())
    except ValueError:
        return None


@tf_export("keras.backend.ndim")
def ndim(x):
    return x.shape.rank


@tf_export("keras.backend.dtype")
def dtype(x):
    return x.dtype.base_dtype.name


@tf_export("keras.backend.count_params")
def count_params(x):
    return int(np.prod(x.shape.as_list()))


@tf_export("keras.backend.shape")
def shape(x):
    """The dynamic shape (an int32 tensor)."""
    return array_ops.shape(x)


@tf_export("keras.backend.cast")
def cast(x, dtype):
    return math_ops.cast(x, dtype)


@tf_export("keras.backend.zeros")
def zeros(shape, dtype=None, name=None):
    return variable(np.zeros(shape), dtype=dtype, name=name)


@tf_export("keras.backend.ones")
def ones(shape, dtype=None, name=None):
    return variable(np.ones(shape), dtype=dtype, name=name)


@tf_export("keras.backend.zeros_like")
def zeros_like(x, dtype=None, name=None):
    return array_ops.zeros_like(x, dtype=dtype, name=name)


@tf_export("keras.backend.ones_like")
def ones_like(x, dtype=None, name=None):
    return array_ops.ones_like(x, dtype=dtype, name=name)


# ---------------------------------------------------------------- math


@tf_export("keras.backend.mean")
def mean(x, axis=None, keepdims=False):
    if x.dtype.base_dtype == dtypes.bool:
        x = math_ops.cast(x, floatx())
    return math_ops.reduce_mean(x, axis=axis, keepdims=keepdims)


@tf_export("keras.backend.sum")
def sum(x, axis=None, keepdims=False):  # noqa: A001 - Keras' name
    return math_ops.reduce_sum(x, axis=axis, keepdims=keepdims)


@tf_export("keras.backend.max")
def max(x, axis=None, keepdims=False):  # noqa: A001 - Keras' name
    return math_ops.reduce_max(x, axis=axis, keepdims=keepdims)


@tf_export("keras.backend.min")
def min(x, axis=None, keepdims=False):  # noqa: A001 - Keras' name
    return math_ops.reduce_min(x, axis=axis, keepdims=keepdims)


@tf_export("keras.backend.prod")
def prod(x, axis=None, keepdims=False):
    return math_ops.reduce_prod(x, axis=axis, keepdims=keepdims)


@tf_export("keras.backend.var")
def var(x, axis=None, keepdims=False):
    return math_ops.reduce_variance(x, axis=axis, keepdims=keepdims)


@tf_export("keras.backend.std")
def std(x, axis=None, keepdims=False):
    return math_ops.reduce_std(x, axis=axis, keepdims=keepdims)


@tf_export("keras.backend.dot")
def dot(x, y):
    """Keras' dot: matmul over the last axis of x and the second-to-last of y (N-d too)."""
    x_rank, y_rank = x.shape.rank, y.shape.rank
    if x_rank > 2 or y_rank > 2:
        y_perm = list(range(y_rank))
        y_perm = [y_perm[-2]] + y_perm[:-2] + [y_perm[-1]]
        y_t = array_ops.reshape(array_ops.transpose(y, perm=y_perm),
                                [y.shape[-2], -1])
        out = math_ops.matmul(array_ops.reshape(x, [-1, x.shape[-1]]), y_t)
        x_shape = [d if d is not None else -1 for d in x.shape.as_list()[:-1]]
        y_rest = [y.shape[i] for i in range(y_rank) if i != y_rank - 2]
        return array_ops.reshape(out, x_shape + y_rest)
    return math_ops.matmul(x, y)


@tf_export("keras.backend.batch_dot")
def batch_dot(x, y, axes=None):
    """Batchwise dot product of rank-2/3 tensors (Keras' common cases)."""
    if isinstance(axes, int):
        axes = (axes, axes)
    x_rank, y_rank = x.shape.rank, y.shape.rank
    if axes is None:
        axes = (x_rank - 1, y_rank - 2 if y_rank > 2 else 1)
    axes = [a % r for a, r in zip(axes, (x_rank, y_rank))]
    if x_rank == 2 and y_rank == 2:
        return math_ops.reduce_sum(x * y, axis=axes[0], keepdims=True) if axes[0] == axes[1] \
            else math_ops.reduce_sum(array_ops.transpose(x) * y, axis=1, keepdims=True)
    if x_rank == 2:
        x = array_ops.expand_dims(x, 2 if axes[0] == 1 else 1)
        axes[0] = 1 if axes[0] == 1 else 2
        squeeze = 1 + (axes[0] == 1)
    else:
        squeeze = None
    adj_x = axes[0] != x.shape.rank - 1
    adj_y = axes[1] != 1
    out = math_ops.matmul(x, y, adjoint_a=adj_x, adjoint_b=adj_y)
    return array_ops.squeeze(out, [squeeze]) if squeeze is not None and \
        out.shape.rank > 2 and out.shape[squeeze] == 1 else out


@tf_export("keras.backend.concatenate")
def concatenate(tensors, axis=-1):
    rank = tensors[0].shape.rank
    if axis < 0 and rank:
        axis %= rank
    return array_ops.concat(list(tensors), axis)


@tf_export("keras.backend.reshape")
def reshape(x, shape):
    return array_ops.reshape(x, shape)


@tf_export("keras.backend.permute_dimensions")
def permute_dimensions(x, pattern):
    return array_ops.transpose(x, perm=list(pattern))


@tf_export("keras.backend.expand_dims")
def expand_dims(x, axis=-1):
    return array_ops.expand_dims(x, axis)


@tf_export("keras.backend.squeeze")
def squeeze(x, axis):
    return array_ops.squeeze(x, [axis])


@tf_export("keras.backend.stack")
def stack(x, axis=0):
    return array_ops.stack(x, axis=axis)


@tf_export("keras.backend.flatten")
def flatten(x):
    return array_ops.reshape(x, [-1])


@tf_export("keras.backend.batch_flatten")
def batch_flatten(x):
    rest = x.shape.as_list()[1:]
    if None in rest:
        return array_ops.reshape(x, array_ops.stack([-1, math_ops.reduce_prod(
            array_ops.shape(x)[1:])]))
    return array_ops.reshape(x, [-1, int(np.prod(rest))])


@tf_export("keras.backend.transpose")
def transpose(x):
    return array_ops.transpose(x)


@tf_export("keras.backend.gather")
def gather(reference, indices):
    return array_ops.gather(reference, indices)


@tf_export("keras.backend.tile")
def tile(x, n):
    return array_ops.tile(x, [n] if isinstance(n, int) else n)


@tf_export("keras.backend.repeat")
def repeat(x, n):
    """[batch, dim] -> [batch, n, dim]."""
    return array_ops.tile(array_ops.expand_dims(x, 1), [1, n, 1])


@tf_export("keras.backend.abs")
def abs(x):  # noqa: A001 - Keras' name
    return math_ops.abs(x)


@tf_export("keras.backend.sqrt")
def sqrt(x):
    zero = ops.convert_to_tensor(0.0, dtype=x.dtype.base_dtype)
    return math_ops.sqrt(math_ops.maximum(x, zero))


@tf_export("keras.backend.square")
def square(x):
    return math_ops.square(x)


@tf_export("keras.backend.exp")
def exp(x):
    return math_ops.exp(x)


@tf_export("keras.backend.log")
def log(x):
    return math_ops.log(x)


@tf_export("keras.backend.maximum")
def maximum(x, y):
    return math_ops.maximum(x, y)


@tf_export("keras.backend.minimum")
def minimum(x, y):
    return math_ops.minimum(x, y)


@tf_export("keras.backend.clip")
def clip(x, min_value, max_value):
    if max_value is not None and max_value < min_value:
        max_value = min_value
    return math_ops.minimum(math_ops.maximum(x, min_value), max_value)


@tf_export("keras.backend.argmax")
def argmax(x, axis=-1):
    return math_ops.argmax(x, axis)


@tf_export("keras.backend.argmin")
def argmin(x, axis=-1):
    return math_ops.argmin(x, axis)


@tf_export("keras.backend.relu")
def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """Keras' relu: leaky slope `alpha`, optional cap `max_value`, `threshold`."""
    if alpha == 0.0 and max_value is None and threshold == 0.0:
        return nn_ops.relu(x)
    return _keras_relu(x, alpha, max_value, threshold)


@ops.op(graph_name="Relu")
def _keras_relu(x, alpha, max_value, threshold):
    """Keras 2's formula: x where x > threshold (else 0), clipped to [0, max_value] when
    there is a cap (so a negative threshold's (threshold, 0) values become 0), minus
    alpha * relu(threshold - x)."""
    t = ops.to_torch(x)
    out = torch.where(t > threshold, t, torch.zeros_like(t))
    if max_value is not None:
        out = out.clamp(0, max_value)
    if alpha:
        out = out - alpha * torch.relu(threshold - t)
    return out


@tf_export("keras.backend.sigmoid")
def sigmoid(x):
    return math_ops.sigmoid(x)


@tf_export("keras.backend.tanh")
def tanh(x):
    return math_ops.tanh(x)


@tf_export("keras.backend.softmax")
def softmax(x, axis=-1):
    return nn_ops.softmax(x, axis=axis)


@tf_export("keras.backend.bias_add")
def bias_add(x, bias, data_format=None):
    data_format = normalize_data_format(data_format)
    return nn_ops.bias_add(x, bias, data_format="NHWC" if data_format == "channels_last"
                           else "NCHW")


@tf_export("keras.backend.dropout")
def dropout(x, level, noise_shape=None, seed=None):
    return nn_ops.dropout_v2(x, rate=level, noise_shape=noise_shape, seed=seed)


@tf_export("keras.backend.random_normal")
def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return random_ops.random_normal(shape, mean=mean, stddev=stddev, dtype=dtype or floatx(),
                                    seed=seed)


@tf_export("keras.backend.random_uniform")
def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return random_ops.random_uniform(shape, minval=minval, maxval=maxval,
                                     dtype=dtype or floatx(), seed=seed)


# ---------------------------------------------------------------- control flow


def smart_cond(pred, true_fn, false_fn):
    """`true_fn()` / `false_fn()` for a Python bool; `tf.cond` for a boolean tensor."""
    if ops.is_tensor(pred):
        return cond(pred, true_fn, false_fn)
    return true_fn() if pred else false_fn()


@tf_export("keras.backend.in_train_phase")
def in_train_phase(x, alt, training=None):
    """`x` in the training phase, `alt` otherwise (callables are called)."""
    if training is None:
        training = learning_phase()
    fx = x if callable(x) else (lambda: x)
    falt = alt if callable(alt) else (lambda: alt)
    if not ops.is_tensor(training):
        return fx() if training else falt()
    return smart_cond(math_ops.cast(training, dtypes.bool), fx, falt)


@tf_export("keras.backend.in_test_phase")
def in_test_phase(x, alt, training=None):
    return in_train_phase(alt, x, training=training)


@tf_export("keras.backend.switch")
def switch(condition, then_expression, else_expression):
    """`then_expression` where `condition`, else `else_expression`: `tf.cond` for a scalar
    condition (callables allowed), elementwise for a condition of lower or equal rank (its
    shape is broadcast over the trailing axes of the expressions)."""
    if condition.dtype.base_dtype != dtypes.bool:
        condition = math_ops.cast(condition, dtypes.bool)
    if not condition.shape.rank:
        then_fn = then_expression if callable(then_expression) else lambda: then_expression
        else_fn = else_expression if callable(else_expression) else lambda: else_expression
        return smart_cond(condition, then_fn, else_fn)
    then_expression = then_expression() if callable(then_expression) else then_expression
    else_expression = else_expression() if callable(else_expression) else else_expression
    cond_rank, expr_rank = condition.shape.rank, then_expression.shape.rank
    if cond_rank > expr_rank:
        raise ValueError("Rank of `condition` should be less than or equal to rank of "
                         "`then_expression` and `else_expression`. ndim(condition)=%d, "
                         "ndim(then_expression)=%d" % (cond_rank, expr_rank))
    if cond_rank < expr_rank:
        condition = array_ops.reshape(condition, array_ops.concat(
            [array_ops.shape(condition), [1] * (expr_rank - cond_rank)], 0))
    return array_ops.where_v2(condition, then_expression, else_expression)


# ---------------------------------------------------------------- comparisons and math


def _elementwise(name, fn, doc):
    def wrapper(x, y):
        return fn(x, y)
    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = doc
    return tf_export("keras.backend." + name)(wrapper)


equal = _elementwise("equal", math_ops.equal, "Elementwise x == y.")
not_equal = _elementwise("not_equal", math_ops.not_equal, "Elementwise x != y.")
greater = _elementwise("greater", math_ops.greater, "Elementwise x > y.")
greater_equal = _elementwise("greater_equal", math_ops.greater_equal, "Elementwise x >= y.")
less = _elementwise("less", math_ops.less, "Elementwise x < y.")
less_equal = _elementwise("less_equal", math_ops.less_equal, "Elementwise x <= y.")


@tf_export("keras.backend.pow")
def pow(x, a):  # noqa: A001 - Keras' name
    return math_ops.pow(x, a)


@tf_export("keras.backend.sign")
def sign(x):
    return math_ops.sign(x)


@tf_export("keras.backend.round")
def round(x):  # noqa: A001 - Keras' name
    """Round half to even."""
    return math_ops.round(x)


@tf_export("keras.backend.sin")
def sin(x):
    return math_ops.sin(x)


@tf_export("keras.backend.cos")
def cos(x):
    return math_ops.cos(x)


@tf_export("keras.backend.cumsum")
def cumsum(x, axis=0):
    return math_ops.cumsum(x, axis=axis)


@tf_export("keras.backend.cumprod")
def cumprod(x, axis=0):
    return math_ops.cumprod(x, axis=axis)


@tf_export("keras.backend.all")
def all(x, axis=None, keepdims=False):  # noqa: A001 - Keras' name
    return math_ops.reduce_all(math_ops.cast(x, dtypes.bool), axis=axis, keepdims=keepdims)


@tf_export("keras.backend.any")
def any(x, axis=None, keepdims=False):  # noqa: A001 - Keras' name
    return math_ops.reduce_any(math_ops.cast(x, dtypes.bool), axis=axis, keepdims=keepdims)


@tf_export("keras.backend.softplus")
def softplus(x):
    return nn_ops.softplus(x)


@tf_export("keras.backend.softsign")
def softsign(x):
    return nn_ops.softsign(x)


@tf_export("keras.backend.elu")
def elu(x, alpha=1.0):
    """Exponential linear unit with slope `alpha` for negative inputs."""
    res = nn_ops.elu(x)
    return res if alpha == 1 else array_ops.where_v2(x > 0, res, alpha * res)


@tf_export("keras.backend.hard_sigmoid")
def hard_sigmoid(x):
    """clip(0.2 * x + 0.5, 0, 1)."""
    return clip(0.2 * x + 0.5, 0.0, 1.0)


@tf_export("keras.backend.l2_normalize")
def l2_normalize(x, axis=None):
    return nn_ops.l2_normalize(x, axis=axis)


@tf_export("keras.backend.one_hot")
def one_hot(indices, num_classes):
    """A one-hot last axis of size `num_classes` for integer `indices`."""
    return array_ops.one_hot(indices, depth=num_classes, axis=-1)


@tf_export("keras.backend.stop_gradient")
def stop_gradient(variables):
    if isinstance(variables, (list, tuple)):
        return [array_ops.stop_gradient(v) for v in variables]
    return array_ops.stop_gradient(variables)


@tf_export("keras.backend.arange")
def arange(start, stop=None, step=1, dtype="int32"):
    """`tf.range` (a negative `start` alone gives an empty range, as in Keras)."""
    if stop is None and start < 0:
        start = 0
    result = array_ops.range(start, limit=stop, delta=step)
    return result if dtype == "int32" else math_ops.cast(result, dtype)


@tf_export("keras.backend.eye")
def eye(size, dtype=None, name=None):
    """A variable holding the `size` x `size` identity matrix."""
    return variable(np.eye(size), dtype=dtype, name=name)


@tf_export("keras.backend.reverse")
def reverse(x, axes):
    return array_ops.reverse(x, [axes] if isinstance(axes, int) else list(axes))


@tf_export("keras.backend.repeat_elements")
def repeat_elements(x, rep, axis):
    """Each slice along `axis` repeated `rep` times (like np.repeat)."""
    return array_ops.repeat(x, rep, axis=axis)


@tf_export("keras.backend.in_top_k")
def in_top_k(predictions, targets, k):
    return nn_ops.in_top_k(predictions, targets, k)


@tf_export("keras.backend.is_sparse")
def is_sparse(tensor):
    return isinstance(tensor, sparse_ops.SparseTensor)


@tf_export("keras.backend.to_dense")
def to_dense(tensor):
    if is_sparse(tensor):
        return sparse_ops.sparse_tensor_to_dense(tensor)
    return tensor


# ---------------------------------------------------------------- losses


@tf_export("keras.backend.categorical_crossentropy")
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-example crossentropy of one-hot `target` and probabilities (or logits) `output`;
    probabilities are renormalized and clipped to [epsilon, 1 - epsilon] as in Keras."""
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits_v2(labels=target, logits=output,
                                                           axis=axis)
    output = output / math_ops.reduce_sum(output, axis, keepdims=True)
    output = clip(output, epsilon(), 1.0 - epsilon())
    return -math_ops.reduce_sum(target * math_ops.log(output), axis)


@tf_export("keras.backend.sparse_categorical_crossentropy")
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-example crossentropy of integer `target` (any shape holding one label per
    example) and probabilities (or logits) `output`."""
    rank = output.shape.rank
    axis = axis % rank
    if axis != rank - 1:
        permutation = [i for i in range(rank) if i != axis] + [axis]
        output = array_ops.transpose(output, perm=permutation)
    if not from_logits:
        output = math_ops.log(clip(output, epsilon(), 1.0 - epsilon()))
    labels = array_ops.reshape(math_ops.cast(target, dtypes.int64),
                               array_ops.shape(output)[:-1])
    return nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=output)


@tf_export("keras.backend.binary_crossentropy")
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary crossentropy (probabilities clipped to [epsilon, 1 - epsilon])."""
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = clip(output, epsilon(), 1.0 - epsilon())
    bce = target * math_ops.log(output + epsilon())
    return -(bce + (1.0 - target) * math_ops.log(1.0 - output + epsilon()))


# ---------------------------------------------------------------- random values and variables


@tf_export("keras.backend.truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return random_ops.truncated_normal(shape, mean=mean, stddev=stddev,
                                       dtype=dtype or floatx(), seed=seed)


@tf_export("keras.backend.random_binomial", "keras.backend.random_bernoulli")
def random_binomial(shape, p=0.0, dtype=None, seed=None):
    """1 with probability `p`, else 0."""
    dtype = dtype or floatx()
    draw = random_ops.random_uniform(shape, dtype=dtype, seed=seed)
    return array_ops.where_v2(draw <= p, array_ops.ones(shape, dtype=dtype),
                              array_ops.zeros(shape, dtype=dtype))


@tf_export("keras.backend.random_normal_variable")
def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    """A variable initialized from N(mean, scale**2)."""
    dtype = dtype or floatx()
    return variable(random_ops.random_normal(shape, mean=mean, stddev=scale, dtype=dtype,
                                             seed=seed), dtype=dtype, name=name)


@tf_export("keras.backend.random_uniform_variable")
def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    """A variable initialized from U(low, high)."""
    dtype = dtype or floatx()
    return variable(random_ops.random_uniform(shape, minval=low, maxval=high, dtype=dtype,
                                              seed=seed), dtype=dtype, name=name)


# ---------------------------------------------------------------- updates and gradients


@tf_export("keras.backend.update")
def update(x, new_x):
    return x.assign(new_x)


@tf_export("keras.backend.update_add")
def update_add(x, increment):
    return x.assign_add(increment)


@tf_export("keras.backend.update_sub")
def update_sub(x, decrement):
    return x.assign_sub(decrement)


@tf_export("keras.backend.moving_average_update")
def moving_average_update(x, value, momentum):
    """x <- momentum * x + (1 - momentum) * value. Where we differ: TF 1.x Keras also
    zero-debiases the average (with extra variables); tfcompat does not, as TF 2 does not."""
    return x.assign_sub((x - math_ops.cast(value, x.dtype)) * (1.0 - momentum))


@tf_export("keras.backend.gradients")
def gradients(loss, variables):
    """The gradients of `loss` with respect to `variables` (`tf.gradients`)."""
    return gradients_impl.gradients(loss, variables, colocate_gradients_with_ops=True)


@tf_export("keras.backend.print_tensor")
def print_tensor(x, message=""):
    """`x`, printing `message` and its value to stdout when it is computed."""
    import sys
    if not _state.building_graph:
        logging_ops.print_v2(message, x, output_stream=sys.stdout)
        return x
    printed = logging_ops.print_v2(message, x, output_stream=sys.stdout)
    with get_default_graph().control_dependencies([printed]):
        return array_ops.identity(x)


# ---------------------------------------------------------------- normalization


@tf_export("keras.backend.batch_normalization")
def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    """(x - mean) / sqrt(var + epsilon) * gamma + beta."""
    return nn_ops.batch_normalization(x, mean, var, beta, gamma, epsilon)


@tf_export("keras.backend.normalize_batch_in_training")
def normalize_batch_in_training(x, gamma, beta, reduction_axes, epsilon=1e-3):
    """(x normalized with the batch statistics over `reduction_axes`, mean, variance)."""
    reduction_axes = sorted(a % x.shape.rank for a in reduction_axes)
    mean, variance = nn_ops.moments(x, reduction_axes, keepdims=True)
    kept_shape = [1 if i in reduction_axes else -1 for i in range(x.shape.rank)]
    gamma = None if gamma is None else array_ops.reshape(gamma, kept_shape)
    beta = None if beta is None else array_ops.reshape(beta, kept_shape)
    normed = nn_ops.batch_normalization(x, mean, variance, beta, gamma, epsilon)
    return normed, array_ops.squeeze(mean, reduction_axes), \
        array_ops.squeeze(variance, reduction_axes)


# ---------------------------------------------------------------- convolution and pooling


def _tf_data_format(data_format, rank):
    """Keras' data_format -> TF's ("NHWC"-style) for a `rank`-D input."""
    spatial = {3: "W", 4: "HW", 5: "DHW"}[rank]
    if normalize_data_format(data_format) == "channels_first":
        return "NC" + spatial
    return "N" + spatial + "C"


def _padding(padding):
    if padding not in ("same", "valid", "causal"):
        raise ValueError("Invalid padding: %s" % (padding,))
    return padding.upper()


@tf_export("keras.backend.conv1d")
def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """1-D convolution; "causal" padding left-pads the time axis."""
    data_format = normalize_data_format(data_format)
    if padding == "causal":
        left = dilation_rate * (kernel.shape[0] - 1)
        pads = [[0, 0], [left, 0], [0, 0]] if data_format == "channels_last" else \
            [[0, 0], [0, 0], [left, 0]]
        x = array_ops.pad(x, pads)
        padding = "valid"
    return nn_ops.convolution(x, kernel, padding=_padding(padding), strides=(strides,),
                              dilation_rate=(dilation_rate,),
                              data_format=_tf_data_format(data_format, 3))


@tf_export("keras.backend.conv2d")
def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None,
           dilation_rate=(1, 1)):
    return nn_ops.convolution(x, kernel, padding=_padding(padding), strides=strides,
                              dilation_rate=dilation_rate,
                              data_format=_tf_data_format(data_format, 4))


@tf_export("keras.backend.conv3d")
def conv3d(x, kernel, strides=(1, 1, 1), padding="valid", data_format=None,
           dilation_rate=(1, 1, 1)):
    return nn_ops.convolution(x, kernel, padding=_padding(padding), strides=strides,
                              dilation_rate=dilation_rate,
                              data_format=_tf_data_format(data_format, 5))


@tf_export("keras.backend.conv2d_transpose")
def conv2d_transpose(x, kernel, output_shape, strides=(1, 1), padding="valid",
                     data_format=None, dilation_rate=(1, 1)):
    data_format = _tf_data_format(data_format, 4)
    strides = (1,) + tuple(strides) + (1,) if data_format == "NHWC" else \
        (1, 1) + tuple(strides)
    return nn_ops.conv2d_transpose(x, kernel, output_shape, strides, padding=_padding(padding),
                                   data_format=data_format,
                                   dilations=(1,) + tuple(dilation_rate) + (1,)
                                   if data_format == "NHWC" else (1, 1) + tuple(dilation_rate))


@tf_export("keras.backend.depthwise_conv2d")
def depthwise_conv2d(x, depthwise_kernel, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    data_format = _tf_data_format(data_format, 4)
    strides = (1,) + tuple(strides) + (1,) if data_format == "NHWC" else \
        (1, 1) + tuple(strides)
    return nn_ops.depthwise_conv2d(x, depthwise_kernel, strides, _padding(padding),
                                   rate=dilation_rate, data_format=data_format)


@tf_export("keras.backend.separable_conv2d")
def separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=(1, 1), padding="valid",
                     data_format=None, dilation_rate=(1, 1)):
    data_format = _tf_data_format(data_format, 4)
    strides = (1,) + tuple(strides) + (1,) if data_format == "NHWC" else \
        (1, 1) + tuple(strides)
    return nn_ops.separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides,
                                   _padding(padding), rate=dilation_rate,
                                   data_format=data_format)


def _pool(x, pool_size, strides, padding, data_format, pool_mode, rank):
    if pool_mode not in ("max", "avg"):
        raise ValueError("Invalid pooling mode: %s" % (pool_mode,))
    return nn_ops.pool(x, tuple(pool_size), "MAX" if pool_mode == "max" else "AVG",
                       _padding(padding), strides=tuple(strides),
                       data_format=_tf_data_format(data_format, rank))


@tf_export("keras.backend.pool2d")
def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 4)


@tf_export("keras.backend.pool3d")
def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None,
           pool_mode="max"):
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 5)


# ---------------------------------------------------------------- padding and resizing


def _spatial_axes(rank, data_format):
    first = normalize_data_format(data_format) == "channels_first"
    return list(range(2, rank)) if first else list(range(1, rank - 1))


def _pad_axes(x, axes, padding):
    pads = [[0, 0] for _ in range(x.shape.rank)]
    for axis, (before, after) in zip(axes, padding):
        pads[axis] = [before, after]
    return array_ops.pad(x, pads)


@tf_export("keras.backend.temporal_padding")
def temporal_padding(x, padding=(1, 1)):
    """Zero-pad the time axis (axis 1) of a 3-D tensor."""
    return _pad_axes(x, [1], [padding])


@tf_export("keras.backend.spatial_2d_padding")
def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    return _pad_axes(x, _spatial_axes(4, data_format), padding)


@tf_export("keras.backend.spatial_3d_padding")
def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    return _pad_axes(x, _spatial_axes(5, data_format), padding)


@tf_export("keras.backend.resize_images")
def resize_images(x, height_factor, width_factor, data_format, interpolation="nearest"):
    """Images scaled by integer factors (nearest: each pixel repeated)."""
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError("interpolation should be one of \"nearest\" or \"bilinear\".")
    rows, cols = _spatial_axes(4, data_format)
    if interpolation == "nearest":
        return repeat_elements(repeat_elements(x, height_factor, rows), width_factor, cols)
    channels_first = rows == 2
    if channels_first:
        x = array_ops.transpose(x, [0, 2, 3, 1])
    size = [x.shape[1] * height_factor, x.shape[2] * width_factor]
    x = image_ops.resize(x, size, method="bilinear")
    return array_ops.transpose(x, [0, 3, 1, 2]) if channels_first else x


@tf_export("keras.backend.resize_volumes")
def resize_volumes(x, depth_factor, height_factor, width_factor, data_format):
    """Volumes scaled by repeating each voxel along the three spatial axes."""
    for axis, factor in zip(_spatial_axes(5, data_format),
                            (depth_factor, height_factor, width_factor)):
        x = repeat_elements(x, factor, axis)
    return x


# ---------------------------------------------------------------- functional ops


@tf_export("keras.backend.map_fn")
def map_fn(fn, elems, name=None, dtype=None):
    return control_flow_ops.map_fn(fn, elems, name=name, dtype=dtype)


@tf_export("keras.backend.foldl")
def foldl(fn, elems, initializer=None, name=None):
    return control_flow_ops.foldl(fn, elems, initializer=initializer, name=name)


@tf_export("keras.backend.foldr")
def foldr(fn, elems, initializer=None, name=None):
    return control_flow_ops.foldr(fn, elems, initializer=initializer, name=name)


# ---------------------------------------------------------------- K.function


@tf_export("keras.backend.function")
def function(inputs, outputs, updates=None, name=None, **kwargs):
    """A callable `f(input_values) -> output values (numpy)`.

    TF1 graphs: `Session.run` of `outputs` (and `updates`) in the Keras session, feeding
    `inputs` (placeholders, `learning_phase()` included). Eager programs: `inputs` must be
    `tf.keras.Input` tensors; `outputs` are recomputed from them as a functional model does.
    Where we differ: there `learning_phase()` is a plain 0, so an input that is not a tensor
    stands for the learning phase, and `updates` are not supported.
    """
    unknown = set(kwargs) - {"feed_dict", "fetches", "session_kwargs"}
    if unknown:
        raise ValueError("Invalid argument \"%s\" passed to K.function with TensorFlow backend"
                         % sorted(unknown)[0])
    tensors = [t for t in flat([inputs, outputs]) if ops.is_tensor(t)]
    keras_graph = builtins.any(getattr(getattr(t, "graph", None), "keras_graph", False)
                      for t in tensors)
    if keras_graph:
        if updates:
            raise NotImplementedError("tf.keras.backend.function(updates=...) on eager-mode "
                                      "Keras tensors is not implemented by tfcompat; apply "
                                      "the updates in Python after calling the function.")
        return _EagerKerasFunction(inputs, outputs)
    return _GraphFunction(inputs, outputs, updates or [], kwargs.get("feed_dict"),
                          kwargs.get("fetches"))


class _GraphFunction(object):
    """K.function over a TF1 graph: one `Session.run` per call."""

    def __init__(self, inputs, outputs, updates, feed_dict, fetches):
        if not isinstance(inputs, (list, tuple)):
            raise TypeError("`inputs` to a Keras backend function should be a list or tuple.")
        self.graph = get_default_graph()
        self.inputs = list(inputs)
        self.outputs = outputs
        self.updates = [u if not isinstance(u, (list, tuple)) else update(u[0], u[1])
                        for u in updates]
        self.feed_dict = dict(feed_dict or {})
        self.fetches = list(fetches or [])

    def __call__(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise TypeError("`inputs` should be a list or tuple.")
        feed = dict(self.feed_dict)
        for tensor, value in zip(self.inputs, inputs):
            feed[tensor] = value
        with self.graph.as_default():
            session = get_session()
        values = session.run([self.outputs, self.updates, self.fetches], feed_dict=feed)
        return values[0]


class _EagerKerasFunction(object):
    """K.function over eager-mode Keras tensors: a functional model of `inputs` and
    `outputs`, called under the learning phase fed for a non-tensor input."""

    def __init__(self, inputs, outputs):
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        self.phase_positions = [i for i, x in enumerate(inputs) if not ops.is_tensor(x)]
        tensors = [x for x in inputs if ops.is_tensor(x)]
        self.single_output = not isinstance(outputs, (list, tuple))
        try:
            self.network = Network(tensors, list(outputs) if not self.single_output
                                   else [outputs], name="keras_function")
        except ValueError as e:
            raise ValueError("tf.keras.backend.function in eager mode needs `tf.keras.Input` "
                             "tensors as inputs and outputs computed from them: %s" % e) \
                from None

    def __call__(self, inputs):
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        phase = [inputs[i] for i in self.phase_positions]
        values = [x for i, x in enumerate(inputs) if i not in self.phase_positions]
        scope = learning_phase_scope(int(phase[0])) if phase else contextlib.nullcontext()
        with scope:
            outputs = self.network(values)
        results = [o.numpy() for o in outputs]
        return results[0] if self.single_output else results
