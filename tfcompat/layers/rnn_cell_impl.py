"""TF1 RNN cells: `tf.nn.rnn_cell.*` and `tf.contrib.rnn.*` (TF 1.15's rnn_cell_impl.py).

Cells are TF1 `tf.layers` layers. Their variables come from `tf.get_variable` in a variable
scope named after the cell ("basic_lstm_cell", "lstm_cell", "gru_cell", "multi_rnn_cell",
uniquified like TF's default names), opened under the caller's scope on the first call, so
names and layouts are TF's and TF1 checkpoints restore: `rnn/basic_lstm_cell/kernel`
[input + units, 4 * units] with gates in the order i, j, f, o; `rnn/gru_cell/gates/kernel`;
`rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel`. Calling a cell again shares its
variables; a new cell in a scope opened with `reuse=True` picks up the existing ones.
Wrappers (`DropoutWrapper`, `ResidualWrapper`, `DeviceWrapper`) add no scope of their own;
tf.contrib.rnn's `OutputProjectionWrapper` and `InputProjectionWrapper` (kept here, next to
the cells they wrap) do ("rnn/output_projection_wrapper/kernel").

Each step is written with TF ops, so one code path runs eagerly, in TF1 graphs and inside
`dynamic_rnn`'s loop; `matmul(concat([x, h]), kernel) + bias` is one fused op (`_affine`).
Where we differ: `num_unit_shards`/`num_proj_shards` (partitioned variables) raise
NotImplementedError; dropout masks come from torch's generators, not TF's.
"""
import collections
import hashlib
import numbers

import numpy as np
import torch
from torch._subclasses.fake_tensor import FakeTensor

from tfcompat._api import tf_export
from tfcompat.data import structure as nest
from tfcompat.framework import context, dtypes, matmul_kernel, ops
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape, as_shape
from tfcompat.keras import activations, initializers
from tfcompat.layers import base as layers_base
from tfcompat.ops import array_ops, clip_ops, init_ops, math_ops, nn_ops, random_ops
from tfcompat.variable_scope import get_variable, get_variable_scope, variable_scope

_WEIGHTS_VARIABLE_NAME = "kernel"
_BIAS_VARIABLE_NAME = "bias"


def _export(name):
    """TF1's path `tf.nn.rnn_cell.<name>` and the same object as `tf.contrib.rnn.<name>`."""
    return tf_export(v1=["nn.rnn_cell." + name, "contrib.rnn." + name])


def assert_like_rnncell(cell_name, cell):
    """TypeError unless `cell` has output_size, state_size, zero_state and is callable."""
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"),
                  hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state"),
                  callable(cell)]
    messages = ["'output_size' property is missing", "'state_size' property is missing",
                "either 'zero_state' or 'get_initial_state' method is required",
                "is not callable"]
    missing = [message for message, ok in zip(messages, conditions) if not ok]
    if missing:
        raise TypeError("The argument %r (%s) is not an RNNCell: %s." % (
            cell_name, cell, ", ".join(missing)))


def _check_supported_dtypes(dtype):
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError("RNN cell only supports floating point inputs, but saw dtype: %s"
                         % dtype.name)


def _check_rnn_cell_input_dtypes(values):
    for value in nest.flatten(values):
        _check_supported_dtypes(getattr(value, "dtype", None))


def _input_depth(inputs_shape):
    shape = TensorShape(inputs_shape)
    depth = shape[-1].value if shape.rank else None
    if depth is None:
        raise ValueError("Expected inputs.shape[-1] to be known, saw shape: %s" % (shape,))
    return depth


@ops.op(graph_name="MatMul")
def _affine(parts, kernel, bias):
    """`matmul(concat(parts, 1), kernel) + bias` in one torch call (TF: ConcatV2, MatMul,
    BiasAdd); mismatched dtypes and sizes raise as TF's ops do."""
    tensors = ops.same_dtype_tensors(list(parts) + [kernel, bias], "MatMul")
    weights, offset = tensors[-2], tensors[-1]
    joined = torch.cat(tensors[:-2], 1) if len(tensors) > 3 else tensors[0]
    if joined.shape[1] != weights.shape[0]:
        raise math_ops._matrix_size_incompatible(joined.shape, weights.shape,
                                                 isinstance(joined, FakeTensor))
    return matmul_kernel.addmm(offset, joined, weights)


def _zero_state_tensors(state_size, batch_size, dtype):
    """Zeros of shape [batch_size] + s for each s of the (nested) `state_size`."""
    def zeros(size):
        return array_ops.zeros([batch_size] + as_shape(size).as_list(), dtype=dtype)
    return nest.map_structure(zeros, state_size)


# ---------------------------------------------------------------- base classes


@_export("RNNCell")
class RNNCell(layers_base.Layer):
    """Abstract RNN cell: `(output, new_state) = cell(inputs, state)`.

    Subclasses give `state_size`, `output_size` and `call(inputs, state)`. Variables made
    with `tf.get_variable` inside `call` belong to the cell (TF's `_rnn_get_variable`).
    """

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        super(RNNCell, self).__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._is_tf_rnn_cell = True
        self._rnncell_scope = None

    def __call__(self, inputs, state, scope=None):
        """Run the cell in `scope`, else in the variable scope of its first call."""
        if scope is not None:
            with variable_scope(scope, custom_getter=self._rnn_get_variable) as scope:
                return super(RNNCell, self).__call__(inputs, state, scope=scope)
        if self._rnncell_scope is None:
            self._rnncell_scope = variable_scope(get_variable_scope(),
                                                 custom_getter=self._rnn_get_variable)
        with self._rnncell_scope:
            return super(RNNCell, self).__call__(inputs, state)

    def _rnn_get_variable(self, getter, *args, **kwargs):
        variable = getter(*args, **kwargs)
        tracked = self._trainable_weights if variable.trainable else self._non_trainable_weights
        if all(v is not variable for v in tracked):
            tracked.append(variable)
        return variable

    @property
    def state_size(self):
        """Size(s) of the state: an int, a TensorShape or a nested tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        """Size of the output: an int or a TensorShape."""
        raise NotImplementedError("Abstract method")

    def build(self, _):
        pass

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """The zero state, with batch size and dtype taken from `inputs` when given."""
        if inputs is not None:
            inputs = ops.convert_to_tensor(inputs, name="inputs")
            static_batch = inputs.shape[0].value
            if batch_size is not None and not ops.is_tensor(batch_size) and \
                    static_batch != batch_size:
                raise ValueError("batch size from input tensor is different from the input "
                                 "param. Input tensor batch: %s, batch_size: %s"
                                 % (static_batch, batch_size))
            if dtype is not None and inputs.dtype != dtypes.as_dtype(dtype):
                raise ValueError("dtype from input tensor is different from the input param. "
                                 "Input tensor dtype: %s, dtype: %s"
                                 % (inputs.dtype.name, dtypes.as_dtype(dtype).name))
            batch_size = static_batch or array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing initial "
                             "state: batch_size=%s, dtype=%s" % (batch_size, dtype))
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zero-filled state: [batch_size, s] for each s of `state_size` (same nesting)."""
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            return _zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """A cell that makes its variables in `build`, like any `tf.layers` layer."""

    def __call__(self, inputs, state, scope=None, *args, **kwargs):
        return layers_base.Layer.__call__(self, inputs, state, *args, scope=scope, **kwargs)


# ---------------------------------------------------------------- cells


@_export("BasicRNNCell")
class BasicRNNCell(LayerRNNCell):
    """`output = new_state = activation(W [inputs, state] + b)`; variables `kernel`
    [input + units, units] and `bias` [units] (zeros)."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None,
                 **kwargs):
        super(BasicRNNCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(dtype)
        self.input_spec = layers_base.InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = activations.get(activation) if activation else math_ops.tanh

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        _check_supported_dtypes(self.dtype)
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME,
                                         shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[self._num_units],
                                       initializer=init_ops.Zeros(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        output = self._activation(_affine([inputs, state], self._kernel, self._bias))
        return output, output

    def get_config(self):
        config = {"num_units": self._num_units,
                  "activation": activations.serialize(self._activation),
                  "reuse": self._reuse}
        return dict(super(BasicRNNCell, self).get_config(), **config)


@_export("GRUCell")
class GRUCell(LayerRNNCell):
    """Gated recurrent unit (TF's variant: the reset gate multiplies the state before the
    candidate's matmul). Variables `gates/kernel` [input + units, 2 * units], `gates/bias`
    (ones unless `bias_initializer`), `candidate/kernel`, `candidate/bias` (zeros)."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None, **kwargs):
        super(GRUCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(dtype)
        self.input_spec = layers_base.InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = activations.get(activation) if activation else math_ops.tanh
        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        _check_supported_dtypes(self.dtype)
        units = self._num_units
        self._gate_kernel = self.add_variable(
            "gates/" + _WEIGHTS_VARIABLE_NAME, shape=[depth + units, 2 * units],
            initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable(
            "gates/" + _BIAS_VARIABLE_NAME, shape=[2 * units],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else init_ops.Constant(1.0, dtype=self.dtype))
        self._candidate_kernel = self.add_variable(
            "candidate/" + _WEIGHTS_VARIABLE_NAME, shape=[depth + units, units],
            initializer=self._kernel_initializer)
        self._candidate_bias = self.add_variable(
            "candidate/" + _BIAS_VARIABLE_NAME, shape=[units],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else init_ops.Zeros(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gates = math_ops.sigmoid(_affine([inputs, state], self._gate_kernel, self._gate_bias))
        r, u = array_ops.split(value=gates, num_or_size_splits=2, axis=1)
        candidate = self._activation(_affine([inputs, r * state], self._candidate_kernel,
                                             self._candidate_bias))
        new_h = u * state + (1 - u) * candidate
        return new_h, new_h

    def get_config(self):
        config = {"num_units": self._num_units,
                  "kernel_initializer": self._kernel_initializer,
                  "bias_initializer": self._bias_initializer,
                  "activation": activations.serialize(self._activation),
                  "reuse": self._reuse}
        return dict(super(GRUCell, self).get_config(), **config)


_LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


@_export("LSTMStateTuple")
class LSTMStateTuple(_LSTMStateTuple):
    """The (c, h) state of LSTM cells: `c` the memory, `h` the output."""
    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError("Inconsistent internal state: %s vs %s" % (c.dtype, h.dtype))
        return c.dtype


class _LSTMBase(LayerRNNCell):
    """State handling shared by BasicLSTMCell and LSTMCell: a (c, h) LSTMStateTuple, or
    [c, h] concatenated along axis 1 when `state_is_tuple` is False."""

    def _split_state(self, state, c_size, h_size):
        if self._state_is_tuple:
            return state
        return (array_ops.slice(state, [0, 0], [-1, c_size]),
                array_ops.slice(state, [0, c_size], [-1, h_size]))

    def _join_state(self, c, h):
        return LSTMStateTuple(c, h) if self._state_is_tuple else array_ops.concat([c, h], 1)


@_export("BasicLSTMCell")
class BasicLSTMCell(_LSTMBase):
    """LSTM without peepholes, clipping or projection; `forget_bias` is added to the forget
    gate. Variables `kernel` [input + units, 4 * units] (gates i, j, f, o) and `bias`."""

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, **kwargs):
        super(BasicLSTMCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(dtype)
        self.input_spec = layers_base.InputSpec(ndim=2)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activations.get(activation) if activation else math_ops.tanh

    @property
    def state_size(self):
        units = self._num_units
        return LSTMStateTuple(units, units) if self._state_is_tuple else 2 * units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        _check_supported_dtypes(self.dtype)
        units = self._num_units
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME,
                                         shape=[depth + units, 4 * units])
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[4 * units],
                                       initializer=init_ops.Zeros(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        c, h = self._split_state(state, self._num_units, self._num_units)
        gates = _affine([inputs, h], self._kernel, self._bias)
        i, j, f, o = array_ops.split(value=gates, num_or_size_splits=4, axis=1)
        new_c = c * math_ops.sigmoid(f + self._forget_bias) + \
            math_ops.sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * math_ops.sigmoid(o)
        return new_h, self._join_state(new_c, new_h)

    def get_config(self):
        config = {"num_units": self._num_units, "forget_bias": self._forget_bias,
                  "state_is_tuple": self._state_is_tuple,
                  "activation": activations.serialize(self._activation),
                  "reuse": self._reuse}
        return dict(super(BasicLSTMCell, self).get_config(), **config)


@_export("LSTMCell")
class LSTMCell(_LSTMBase):
    """LSTM with optional peepholes (`w_f_diag`, `w_i_diag`, `w_o_diag`), cell clipping and
    a projection (`projection/kernel` [units, num_proj], output clipped by `proj_clip`).
    Variables `kernel` [input + (num_proj or units), 4 * units] (gates i, j, f, o), `bias`."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super(LSTMCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(dtype)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError(
                "LSTMCell(num_unit_shards=..., num_proj_shards=...) makes partitioned "
                "variables, which tfcompat does not implement; drop the shard arguments")
        self.input_spec = layers_base.InputSpec(ndim=2)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializers.get(initializer)
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activations.get(activation) if activation else math_ops.tanh
        h_size = num_proj if num_proj else num_units
        self._state_size = LSTMStateTuple(num_units, h_size) if state_is_tuple \
            else num_units + h_size
        self._output_size = h_size

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape)
        _check_supported_dtypes(self.dtype)
        units = self._num_units
        h_size = units if self._num_proj is None else self._num_proj
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME,
                                         shape=[depth + h_size, 4 * units],
                                         initializer=self._initializer)
        self._bias = self.add_variable(_BIAS_VARIABLE_NAME, shape=[4 * units],
                                       initializer=init_ops.Zeros(dtype=self.dtype))
        if self._use_peepholes:
            self._w_f_diag = self.add_variable("w_f_diag", shape=[units],
                                               initializer=self._initializer)
            self._w_i_diag = self.add_variable("w_i_diag", shape=[units],
                                               initializer=self._initializer)
            self._w_o_diag = self.add_variable("w_o_diag", shape=[units],
                                               initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_variable("projection/" + _WEIGHTS_VARIABLE_NAME,
                                                  shape=[units, self._num_proj],
                                                  initializer=self._initializer)
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        h_size = self._num_units if self._num_proj is None else self._num_proj
        c_prev, m_prev = self._split_state(state, self._num_units, h_size)
        if inputs.shape.with_rank(2)[1].value is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        gates = _affine([inputs, m_prev], self._kernel, self._bias)
        i, j, f, o = array_ops.split(value=gates, num_or_size_splits=4, axis=1)
        sigmoid = math_ops.sigmoid
        if self._use_peepholes:
            c = sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev + \
                sigmoid(i + self._w_i_diag * c_prev) * self._activation(j)
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        return m, self._join_state(c, m)

    def get_config(self):
        config = {"num_units": self._num_units, "use_peepholes": self._use_peepholes,
                  "cell_clip": self._cell_clip, "initializer": self._initializer,
                  "num_proj": self._num_proj, "proj_clip": self._proj_clip,
                  "num_unit_shards": None, "num_proj_shards": None,
                  "forget_bias": self._forget_bias, "state_is_tuple": self._state_is_tuple,
                  "activation": activations.serialize(self._activation),
                  "reuse": self._reuse}
        return dict(super(LSTMCell, self).get_config(), **config)


@_export("MultiRNNCell")
class MultiRNNCell(RNNCell):
    """Cells stacked in order; cell i runs in variable scope `cell_i`. The state is a tuple
    of the cells' states, or their concatenation when `state_is_tuple` is False."""

    def __init__(self, cells, state_is_tuple=True):
        super(MultiRNNCell, self).__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not isinstance(cells, (list, tuple)):
            raise TypeError("cells must be a list or tuple, but saw: %s." % (cells,))
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(isinstance(c.state_size, (list, tuple))
                                      for c in self._cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple "
                             "is not set.  State sizes are: %s"
                             % str([c.state_size for c in self._cells]))

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return _zero_state_tensors(self.state_size, batch_size, dtype)

    def call(self, inputs, state):
        position = 0
        current = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with variable_scope("cell_%d" % i):
                if self._state_is_tuple:
                    if not isinstance(state, (list, tuple)):
                        raise ValueError("Expected state to be a tuple of length %d, but "
                                         "received: %s" % (len(self.state_size), state))
                    cell_state = state[i]
                else:
                    cell_state = array_ops.slice(state, [0, position], [-1, cell.state_size])
                    position += cell.state_size
                current, new_state = cell(current, cell_state)
                new_states.append(new_state)
        if self._state_is_tuple:
            return current, tuple(new_states)
        return current, array_ops.concat(new_states, 1)


# ---------------------------------------------------------------- wrappers


class _RNNCellWrapper(RNNCell):
    """A cell around `cell`: same sizes and zero state, no variable scope of its own."""

    def __init__(self, cell):
        super(_RNNCellWrapper, self).__init__()
        assert_like_rnncell("cell", cell)
        self.cell = cell

    @property
    def wrapped_cell(self):
        return self.cell

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        return self._call_wrapped_cell(inputs, state, scope)

    def _call_wrapped_cell(self, inputs, state, scope):
        raise NotImplementedError("Abstract method")


def _default_dropout_state_filter_visitor(substate):
    """Dropout on every state part except the memory `c` of LSTM states (as TF)."""
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


def _shallow_dropout_leaves(visitor, structure):
    """TF's `nest.get_traverse_shallow_structure`, flattened: [(decision, substructure)].

    `visitor` returns a bool for a (sub)structure (True on a sequence: look inside it), or
    a tuple of bools deciding for its direct children.
    """
    decision = visitor(structure)
    is_sequence = isinstance(structure, (list, tuple))
    if isinstance(decision, bool):
        if decision and is_sequence:
            return [leaf for child in structure
                    for leaf in _shallow_dropout_leaves(visitor, child)]
        return [(decision, structure)]
    if not is_sequence or not isinstance(decision, (list, tuple)) or \
            len(decision) != len(structure):
        raise TypeError("dropout_state_filter_visitor returned %r for %r: expected a bool or "
                        "one bool per element" % (decision, structure))
    leaves = []
    for child_decision, child in zip(decision, structure):
        if not isinstance(child_decision, bool):
            raise TypeError("dropout_state_filter_visitor must return bools, got %r"
                            % (child_decision,))
        leaves += _shallow_dropout_leaves(visitor, child) if child_decision \
            else [(False, child)]
    return leaves


def _static_keep_prob(value, attribute):
    """A Python float for a constant keep probability (range-checked), else the tensor."""
    if isinstance(value, EagerTensor):
        value = value.numpy()
    if isinstance(value, (numbers.Real, np.ndarray, np.generic)) and np.ndim(value) == 0:
        value = float(value)
        if value < 0 or value > 1:
            raise ValueError("Parameter %s must be between 0 and 1: %g" % (attribute, value))
        return value
    return ops.convert_to_tensor(value)


@_export("DropoutWrapper")
class DropoutWrapper(_RNNCellWrapper):
    """Dropout on the inputs, outputs and (filtered) new state of `cell`.

    Keep probabilities may be floats or scalar tensors (a fed placeholder); a constant 1
    adds no op. By default a fresh mask is drawn at every step; with
    `variational_recurrent` one noise sample per run is reused at every step (drawn when the
    wrapper is made, as TF does: in eager mode that sample stays fixed).
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        super(DropoutWrapper, self).__init__(cell)
        if dropout_state_filter_visitor is not None and \
                not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = dropout_state_filter_visitor or \
            _default_dropout_state_filter_visitor
        with ops.name_scope("DropoutWrapperInit"):
            self._input_keep_prob = _static_keep_prob(input_keep_prob, "input_keep_prob")
            self._state_keep_prob = _static_keep_prob(state_keep_prob, "state_keep_prob")
            self._output_keep_prob = _static_keep_prob(output_keep_prob, "output_keep_prob")
        self._variational_recurrent = variational_recurrent
        self._seed = seed
        self._recurrent_input_noise = None
        self._recurrent_state_noise = None
        self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def batch_noise(sizes, salt):
                return [random_ops.random_uniform([1] + as_shape(s).as_list(),
                                                  seed=self._gen_seed(salt, i), dtype=dtype)
                        for i, s in enumerate(nest.flatten(sizes))]
            if not isinstance(self._input_keep_prob, float) or self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < "
                                     "1.0 or is unknown, input_size must be provided")
                self._recurrent_input_noise = batch_noise(input_size, "input")
            self._recurrent_state_noise = batch_noise(cell.state_size, "state")
            self._recurrent_output_noise = batch_noise(cell.output_size, "output")

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        salt = "%s_%d" % (salt_prefix, index)
        digest = hashlib.md5((str(self._seed) + salt).encode("utf-8")).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values, salt_prefix, recurrent_noise, keep_prob, leaves=None):
        """Dropout on the parts of `values` that `leaves` ([(decision, part)]) select."""
        if leaves is None:
            leaves = [(True, value) for value in nest.flatten(values)]
        results = []
        for i, (decision, part) in enumerate(leaves):
            if not decision:
                results += nest.flatten(part)
            elif self._variational_recurrent:
                noise = recurrent_noise[len(results)]
                results.append(math_ops.div(part, keep_prob) * math_ops.floor(keep_prob + noise))
            else:
                results.append(nn_ops.dropout(part, keep_prob=keep_prob,
                                              seed=self._gen_seed(salt_prefix, i)))
        return nest.pack_as(values, results)

    def _call_wrapped_cell(self, inputs, state, scope):
        def should_dropout(p):
            return not isinstance(p, float) or p < 1
        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._recurrent_input_noise,
                                   self._input_keep_prob)
        output, new_state = self.cell(inputs, state, scope=scope)
        if should_dropout(self._state_keep_prob):
            leaves = _shallow_dropout_leaves(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._recurrent_state_noise,
                                      self._state_keep_prob, leaves)
        if should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._recurrent_output_noise,
                                   self._output_keep_prob)
        return output, new_state


@_export("ResidualWrapper")
class ResidualWrapper(_RNNCellWrapper):
    """Adds the cell's inputs to its outputs (or applies `residual_fn(inputs, outputs)`)."""

    def __init__(self, cell, residual_fn=None):
        super(ResidualWrapper, self).__init__(cell)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, scope):
        outputs, new_state = self.cell(inputs, state, scope=scope)
        if self._residual_fn is not None:
            return self._residual_fn(inputs, outputs), new_state
        nest.assert_same_structure(inputs, outputs, "ResidualWrapper inputs and outputs")
        flat_inputs, flat_outputs = nest.flatten(inputs), nest.flatten(outputs)
        for x, y in zip(flat_inputs, flat_outputs):
            x.shape.assert_is_compatible_with(y.shape)
        return nest.pack_as(outputs, [x + y for x, y in zip(flat_inputs, flat_outputs)]), \
            new_state


@_export("DeviceWrapper")
class DeviceWrapper(_RNNCellWrapper):
    """Runs the cell (and makes its zero state) under `tf.device(device)`."""

    def __init__(self, cell, device):
        super(DeviceWrapper, self).__init__(cell)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            with context.device(self._device):
                return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, scope):
        with context.device(self._device):
            return self.cell(inputs, state, scope=scope)


# ---------------------------------------------------------------- contrib projection wrappers


class _Linear(object):
    """`sum_i args[i] W_i (+ bias)` with `kernel` and `bias` (zeros unless given) made by
    `tf.get_variable` in the current variable scope (tf.contrib.rnn's `_Linear`)."""

    def __init__(self, args, output_size, build_bias, bias_initializer=None,
                 kernel_initializer=None):
        args = list(args) if isinstance(args, (list, tuple)) else [args]
        if not args:
            raise ValueError("`args` must be specified")
        shapes = [arg.shape for arg in args]
        for shape in shapes:
            if shape.rank != 2:
                raise ValueError("linear is expecting 2D arguments: %s" % (shapes,))
            if shape[1].value is None:
                raise ValueError("linear expects shape[1] to be provided for shape %s, but "
                                 "saw %s" % (shape, shape[1]))
        dtype = args[0].dtype
        self._weights = get_variable(_WEIGHTS_VARIABLE_NAME,
                                     [sum(shape[1].value for shape in shapes), output_size],
                                     dtype=dtype, initializer=kernel_initializer)
        self._biases = None
        if build_bias:
            self._biases = get_variable(
                _BIAS_VARIABLE_NAME, [output_size], dtype=dtype,
                initializer=bias_initializer if bias_initializer is not None
                else init_ops.Zeros(dtype=dtype))

    def __call__(self, args):
        args = list(args) if isinstance(args, (list, tuple)) else [args]
        if self._biases is not None:
            return _affine(args, self._weights, self._biases)
        joined = args[0] if len(args) == 1 else array_ops.concat(args, 1)
        return math_ops.matmul(joined, self._weights)


class _ProjectionWrapper(RNNCell):
    """A cell with a linear projection, in its own variable scope; the wrapped cell's
    variables sit inside it ("rnn/output_projection_wrapper/basic_rnn_cell/kernel")."""

    def __init__(self, cell, size, activation, reuse):
        super(_ProjectionWrapper, self).__init__(_reuse=reuse)
        assert_like_rnncell("cell", cell)
        self._cell = cell
        self._size = size
        self._activation = activation
        self._linear = None

    @property
    def state_size(self):
        return self._cell.state_size

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)

    def _project(self, values):
        if self._linear is None:
            self._linear = _Linear(values, self._size, True)
        projected = self._linear(values)
        return self._activation(projected) if self._activation else projected


@tf_export(v1=["contrib.rnn.OutputProjectionWrapper"])
class OutputProjectionWrapper(_ProjectionWrapper):
    """The cell's output projected to `output_size` (then `activation`); variables `kernel`
    [cell output, output_size] and `bias` in scope "output_projection_wrapper"."""

    def __init__(self, cell, output_size, activation=None, reuse=None):
        if output_size < 1:
            raise ValueError("Parameter output_size must be > 0: %d." % output_size)
        super(OutputProjectionWrapper, self).__init__(cell, output_size, activation, reuse)

    @property
    def output_size(self):
        return self._size

    def call(self, inputs, state):
        output, new_state = self._cell(inputs, state)
        return self._project(output), new_state


@tf_export(v1=["contrib.rnn.InputProjectionWrapper"])
class InputProjectionWrapper(_ProjectionWrapper):
    """The inputs projected to `num_proj` (then `activation`) before the cell; variables
    `kernel` [input, num_proj] and `bias` in scope "input_projection_wrapper"."""

    def __init__(self, cell, num_proj, activation=None, input_size=None, reuse=None):
        super(InputProjectionWrapper, self).__init__(cell, num_proj, activation, reuse)

    @property
    def output_size(self):
        return self._cell.output_size

    def call(self, inputs, state):
        return self._cell(self._project(inputs), state)
