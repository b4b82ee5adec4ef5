"""Keras recurrent layers: `RNN`, `SimpleRNN`, `GRU`, `LSTM`, their cells, `StackedRNNCells`.

Keras 2 semantics as bundled in tf.keras: TF 1.15 for the v1 flavour, TF 2.x for v2.

- Weights keep Keras' layouts: LSTM kernel [input_dim, 4 * units] (gates i, f, c, o), GRU
  kernel [input_dim, 3 * units] (gates z, r, h) with a (2, 3 * units) bias when `reset_after`.
  The cell's weights are built in the cell's name scope under v2 (`lstm/lstm_cell/kernel:0`)
  and directly in the layer's scope under v1 (`lstm/kernel:0`), as the two Keras versions do;
  checkpoints reach them as `.cell.kernel` (`.cell.cells.N.kernel` for stacked cells).
- v1 and v2 classes differ in defaults only: `LSTM`/`GRU` (and cells) of the v1 flavour use
  `recurrent_activation='hard_sigmoid'`, `implementation=1`, GRU `reset_after=False`; v2 uses
  'sigmoid', `implementation=2` and `reset_after=True`.
- Masked steps carry the previous output and states through (zeros instead of the output
  when `zero_output_for_mask`, which `Bidirectional` sets for sequence outputs).
- Stacked cells' states are flat lists ([h1, c1, h2, c2] for two LSTM cells) where TF 2
  nests them per cell.

Execution. Each cell's math is written once, in torch (`_project`, `_recurrent_step`):
`cell.call` runs one step as one op, and an RNN layer over built-in cells runs the whole
sequence as one op (stacked built-in cells one after the other). Standard activations
without a mask or per-gate dropout masks use a fused kernel for the sequence:
`torch.lstm` / `torch.gru` / `torch.rnn_tanh` / `torch.rnn_relu` with the Keras weights
mapped inside the op (differentiably), or, for the v1 LSTM's hard sigmoid, a sequence kernel
with a hand-written backward pass; otherwise a torch loop over the steps (masks, dropout,
v1 GRU, other activations). In graphs the sequence is one node whatever the number of steps.
Custom cells run their `call` step by step: a Python loop, or a `tf.while_loop` when a
graph has an unknown number of steps.
"""
import collections
import inspect

import numpy as np
import torch
import torch.nn.functional as F
from torch.autograd.function import once_differentiable

from tfcompat import _api
from tfcompat._api import tf_export
from tfcompat.framework import constant_op, context, ops
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import activations, backend, constraints, initializers, regularizers
from tfcompat.keras.engine.base_layer import InputSpec, Layer, flatten, is_keras_tensor
from tfcompat.keras.layers.core import serialize_optional, weight_kwargs
from tfcompat.ops import array_ops, control_flow_ops, math_ops, nn_ops, state_ops
from tfcompat.variables import Variable
from tfcompat.framework.graph import get_default_graph
from tfcompat.keras.layers.serialization import deserialize

_state = context.state


# ---------------------------------------------------------------- state structures


def _state_sizes(state_size):
    """The flat list of per-state sizes (ints or shapes) of a cell's `state_size`."""
    if isinstance(state_size, TensorShape) or not isinstance(state_size, (list, tuple)):
        return [state_size]
    return [size for item in state_size for size in _state_sizes(item)]


def _size_dims(size):
    return TensorShape(size).as_list() if isinstance(size, (TensorShape, list, tuple)) \
        else [int(size)]


def _pack_states(state_size, flat):
    """`flat` states in the nesting of `state_size` (lists), as a cell's `call` gets them."""
    packed = _pack_state_sizes(state_size, iter(flat))
    return packed if isinstance(packed, list) else [packed]


def _pack_state_sizes(size, states):
    # module-level recursion: a self-calling closure would keep the states alive in a cycle
    if isinstance(size, (list, tuple)) and not isinstance(size, TensorShape):
        return [_pack_state_sizes(item, states) for item in size]
    return next(states)


def _output_size(cell):
    size = getattr(cell, "output_size", None)
    return size if size is not None else _state_sizes(cell.state_size)[0]


def _zero_states(cell, batch_size, dtype):
    def zeros(size):
        return array_ops.zeros(array_ops.stack([batch_size] + _size_dims(size)), dtype=dtype)
    return [zeros(size) for size in _state_sizes(cell.state_size)]


def _call_accepts(function, argument):
    try:
        return argument in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------- the cells' math, in torch


def _hard_sigmoid(x):
    """Keras 2's hard sigmoid: 0.2 * x + 0.5 clipped to [0, 1]."""
    return (x * 0.2 + 0.5).clamp(0.0, 1.0)


def _identity(x):
    return x


_TORCH_ACTIVATIONS = {
    activations.tanh: torch.tanh, math_ops.tanh: torch.tanh,
    activations.sigmoid: torch.sigmoid, math_ops.sigmoid: torch.sigmoid,
    activations.hard_sigmoid: _hard_sigmoid, activations.relu: torch.relu,
    nn_ops.relu: torch.relu, activations.linear: _identity, activations.elu: F.elu,
    nn_ops.elu: F.elu, activations.selu: torch.selu, activations.softplus: F.softplus,
    activations.softsign: F.softsign, activations.exponential: torch.exp,
}


def _torch_activation(activation):
    """The torch function computing a Keras activation; other callables run on eager
    tensors (so custom activations written with tf ops work, differentiably)."""
    known = _TORCH_ACTIVATIONS.get(activation)
    if known is not None:
        return known

    def run(t):
        with context.eager_scope():
            return ops.to_torch(activation(EagerTensor(t)))
    return run


_CellMath = collections.namedtuple(
    "_CellMath", "kind gates activation recurrent_activation implementation reset_after")


def _input_bias(math, bias):
    return bias[0] if math.reset_after else bias


def _project(math, x, kernel, bias, masks):
    """The input part of every gate, `x . kernel + bias` ([..., D] -> [..., gates * H]);
    with one dropout mask per gate, each gate sees its own masked input (Keras'
    implementation 1); one mask is shared by all gates."""
    def masked(mask):
        return x * (mask.unsqueeze(-2) if x.ndim == 3 else mask)
    if masks is None:
        projected = x.matmul(kernel)
    elif len(masks) == 1:
        projected = masked(masks[0]).matmul(kernel)
    else:
        projected = torch.cat([masked(m).matmul(k) for m, k in
                               zip(masks, kernel.chunk(math.gates, -1))], -1)
    return projected if bias is None else projected + _input_bias(math, bias)


def _recurrent(h, recurrent_kernel, masks, count):
    """`h . recurrent_kernel` for `count` gates, with per-gate dropout masks on h if any."""
    if masks is None:
        return h.matmul(recurrent_kernel)
    return torch.cat([(h * m).matmul(u) for m, u in
                      zip(masks, recurrent_kernel.chunk(count, -1))], -1)


def _recurrent_step(math, projected, states, recurrent_kernel, bias, masks):
    """New states of one step, from the step's input projections (Keras' formulas)."""
    h = states[0]
    act, recurrent_act = math.activation, math.recurrent_activation
    if math.kind == "lstm":
        z = projected + _recurrent(h, recurrent_kernel, masks, 4)
        i, f, c_hat, o = z.chunk(4, -1)
        c = recurrent_act(f) * states[1] + recurrent_act(i) * act(c_hat)
        return [recurrent_act(o) * act(c), c]
    if math.kind == "gru":
        x_z, x_r, x_h = projected.chunk(3, -1)
        units = h.shape[-1]
        if math.reset_after:
            inner = _recurrent(h, recurrent_kernel, masks, 3)
            if bias is not None:
                inner = inner + bias[1]
            h_z, h_r, h_h = inner.chunk(3, -1)
        else:
            h_z, h_r = _recurrent(h, recurrent_kernel[:, :2 * units],
                                  None if masks is None else masks[:2], 2).chunk(2, -1)
        z = recurrent_act(x_z + h_z)
        r = recurrent_act(x_r + h_r)
        if math.reset_after:
            hh = act(x_h + r * h_h)
        else:
            h_masked = h if masks is None else h * masks[2]
            hh = act(x_h + (r * h_masked).matmul(recurrent_kernel[:, 2 * units:]))
        return [z * h + (1 - z) * hh]
    return [act(projected + _recurrent(h, recurrent_kernel, masks, 1))]


def _optional_list(values):
    return None if values is None else [ops.to_torch(v) for v in values]


@ops.op(graph_name="RNNCell")
def _cell_step(math, inputs, states, kernel, recurrent_kernel, bias, input_masks,
               recurrent_masks):
    """One step of a built-in cell: the new states (the first is the output)."""
    bias = None if bias is None else ops.to_torch(bias)
    projected = _project(math, ops.to_torch(inputs), ops.to_torch(kernel), bias,
                         _optional_list(input_masks))
    return _recurrent_step(math, projected, [ops.to_torch(s) for s in states],
                           ops.to_torch(recurrent_kernel), bias, _optional_list(recurrent_masks))


# ---------------------------------------------------------------- cells


class DropoutRNNCellMixin(object):
    """Dropout masks made once per RNN call and reused at every step (Keras' cache)."""

    def reset_dropout_mask(self):
        self._dropout_masks = None

    def reset_recurrent_dropout_mask(self):
        self._recurrent_dropout_masks = None

    def get_dropout_mask_for_cell(self, inputs, training, count=1):
        if self.dropout == 0:
            return None
        if getattr(self, "_dropout_masks", None) is None:
            self._dropout_masks = _dropout_masks(inputs, self.dropout, training, count)
        return self._dropout_masks

    def get_recurrent_dropout_mask_for_cell(self, inputs, training, count=1):
        if self.recurrent_dropout == 0:
            return None
        if getattr(self, "_recurrent_dropout_masks", None) is None:
            self._recurrent_dropout_masks = _dropout_masks(inputs, self.recurrent_dropout,
                                                           training, count)
        return self._recurrent_dropout_masks


def _dropout_masks(inputs, rate, training, count):
    """`count` masks like `inputs`: dropped-and-scaled ones while training, else ones."""
    ones = array_ops.ones_like(inputs)
    return [backend.in_train_phase(lambda: backend.dropout(ones, rate), ones, training=training)
            for _ in range(count)]


class _CellBase(DropoutRNNCellMixin, Layer):
    """Arguments, weights, config and the step of SimpleRNNCell, GRUCell and LSTMCell."""

    _KIND, _GATES = "simple", 1

    def __init__(self, units, activation, use_bias, kernel_initializer, recurrent_initializer,
                 bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
                 kernel_constraint, recurrent_constraint, bias_constraint, dropout,
                 recurrent_dropout, **kwargs):
        kwargs.pop("enable_caching_device", None)
        super(_CellBase, self).__init__(**kwargs)
        self.units = int(units)
        if self.units <= 0:
            raise ValueError("Received an invalid value for argument `units`, expected a "
                             "positive integer, got %s." % (units,))
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.output_size = self.units

    def build(self, input_shape):
        input_dim = TensorShape(input_shape).as_list()[-1]
        if input_dim is None:
            raise ValueError("The last dimension of the inputs to `%s` should be defined. "
                             "Found `None`." % type(self).__name__)
        width = self.units * self._GATES
        self.kernel = self.add_weight("kernel", shape=(input_dim, width),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", shape=(self.units, width),
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=self._bias_shape(),
                                        initializer=self._bias_initializer(),
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        else:
            self.bias = None
        self.built = True

    def _bias_shape(self):
        return (self.units * self._GATES,)

    def _bias_initializer(self):
        return self.bias_initializer

    def _math(self):
        recurrent_activation = getattr(self, "recurrent_activation", None)
        return _CellMath(self._KIND, self._GATES, _torch_activation(self.activation),
                         None if recurrent_activation is None else
                         _torch_activation(recurrent_activation),
                         getattr(self, "implementation", 1), getattr(self, "reset_after", False))

    def _dropout_masks_for(self, inputs, h, training):
        """The input and recurrent dropout masks a step uses (None when there are none);
        `implementation=2` shares one input mask between the gates."""
        input_masks = self.get_dropout_mask_for_cell(inputs, training, count=self._GATES)
        recurrent_masks = self.get_recurrent_dropout_mask_for_cell(h, training,
                                                                   count=self._GATES)
        if input_masks is not None and getattr(self, "implementation", 1) != 1:
            input_masks = input_masks[:1]
        return input_masks, recurrent_masks

    def call(self, inputs, states, training=None):
        nested = isinstance(states, (list, tuple))
        states = list(states) if nested else [states]
        input_masks, recurrent_masks = self._dropout_masks_for(inputs, states[0], training)
        new_states = _cell_step(self._math(), inputs, states, self.kernel,
                                self.recurrent_kernel, self.bias, input_masks,
                                recurrent_masks)
        return new_states[0], (list(new_states) if nested else new_states[0])

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """Zero states [batch, size] (batch size and dtype from `inputs` when given)."""
        return _initial_state_for_cell(self, inputs, batch_size, dtype)

    def _config(self, extra):
        config = {"units": self.units, "activation": activations.serialize(self.activation),
                  "use_bias": self.use_bias}
        config.update(extra)
        config.update(weight_kwargs(self, "kernel", "recurrent", "bias"))
        config.update({"dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout})
        base = super(_CellBase, self).get_config()
        base.update(config)
        return base


def _initial_state_for_cell(cell, inputs, batch_size, dtype):
    if inputs is not None:
        batch_size, dtype = array_ops.shape(inputs)[0], inputs.dtype
    if batch_size is None or dtype is None:
        raise ValueError("batch_size and dtype cannot be None while constructing initial "
                         "state: batch_size=%s, dtype=%s" % (batch_size, dtype))
    states = _zero_states(cell, batch_size, dtype)
    return states if isinstance(cell.state_size, (list, tuple)) else states[0]


@tf_export("keras.layers.AbstractRNNCell")
class AbstractRNNCell(Layer):
    """Base class for custom cells: `call(inputs, states)`, `state_size`, `output_size`."""

    def call(self, inputs, states):
        raise NotImplementedError("Abstract method: subclasses implement call()")

    @property
    def state_size(self):
        raise NotImplementedError("Abstract method: subclasses define state_size")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method: subclasses define output_size")

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return _initial_state_for_cell(self, inputs, batch_size, dtype)


@tf_export("keras.layers.SimpleRNNCell")
class SimpleRNNCell(_CellBase):
    """`output = activation(x . kernel + bias + h . recurrent_kernel)`."""

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        super(SimpleRNNCell, self).__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer,
            bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
            kernel_constraint, recurrent_constraint, bias_constraint, dropout,
            recurrent_dropout, **kwargs)
        self.state_size = self.units

    def get_config(self):
        return self._config({})


@tf_export(v1=["keras.layers.GRUCell"])
class GRUCell(_CellBase):
    """GRU step (Keras' gate order z, r, h): `h = z * h_prev + (1 - z) * hh`; with
    `reset_after` the reset gate multiplies the recurrent projection (bias [2, 3 * units])."""

    _KIND, _GATES = "gru", 3

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, implementation=1, reset_after=False,
                 **kwargs):
        super(GRUCell, self).__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer,
            bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
            kernel_constraint, recurrent_constraint, bias_constraint, dropout,
            recurrent_dropout, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.implementation = 1 if self.recurrent_dropout != 0 else implementation
        self.reset_after = reset_after
        self.state_size = self.units

    def _bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def get_config(self):
        return self._config({
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "implementation": self.implementation, "reset_after": self.reset_after})


@tf_export(v1=["keras.layers.LSTMCell"])
class LSTMCell(_CellBase):
    """LSTM step (gates i, f, c, o): `c = f * c_prev + i * act(x_c)`, `h = o * act(c)`;
    `unit_forget_bias` starts the forget gate's bias at one."""

    _KIND, _GATES = "lstm", 4

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, implementation=1,
                 **kwargs):
        super(LSTMCell, self).__init__(
            units, activation, use_bias, kernel_initializer, recurrent_initializer,
            bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
            kernel_constraint, recurrent_constraint, bias_constraint, dropout,
            recurrent_dropout, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.implementation = 1 if self.recurrent_dropout != 0 else implementation
        self.state_size = [self.units, self.units]

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        units, base = self.units, self.bias_initializer

        def forget_gate_ones(shape, dtype=None, partition_info=None):
            return array_ops.concat([base((units,), dtype=dtype),
                                     array_ops.ones((units,), dtype=dtype),
                                     base((units * 2,), dtype=dtype)], 0)
        return forget_gate_ones

    def get_config(self):
        return self._config({
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "unit_forget_bias": self.unit_forget_bias, "implementation": self.implementation})


def _build_in_scope(cell, input_shape):
    """Build a sub-cell: in its own name scope under v2 (TF 2.x Keras), directly under v1."""
    if not isinstance(cell, Layer) or cell.built:
        return
    if _api.flavor() == "v2":
        with ops.name_scope(cell.name):
            cell.build(input_shape)
    else:
        cell.build(input_shape)
    cell.built = True


@tf_export("keras.layers.StackedRNNCells")
class StackedRNNCells(Layer):
    """A stack of cells used as one cell: each cell's output feeds the next."""

    def __init__(self, cells, **kwargs):
        for cell in cells:
            if not hasattr(cell, "call"):
                raise ValueError("All cells must have a `call` method. Received cells: %s"
                                 % (cells,))
            if not hasattr(cell, "state_size"):
                raise ValueError("All cells must have a `state_size` attribute. Received "
                                 "cells: %s" % (cells,))
        self.cells = list(cells)
        super(StackedRNNCells, self).__init__(**kwargs)

    @property
    def state_size(self):
        return tuple(cell.state_size for cell in self.cells)

    @property
    def output_size(self):
        return _output_size(self.cells[-1])

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            batch_size, dtype = array_ops.shape(inputs)[0], inputs.dtype
        return tuple(_zero_states(cell, batch_size, dtype) for cell in self.cells)

    def call(self, inputs, states, constants=None, training=None):
        flat = flatten(list(states))
        new_states = []
        for cell in self.cells:
            count = len(_state_sizes(cell.state_size))
            cell_states, flat = flat[:count], flat[count:]
            kwargs = {}
            if _call_accepts(cell.call, "training"):
                kwargs["training"] = training
            if constants is not None and _call_accepts(cell.call, "constants"):
                kwargs["constants"] = constants
            inputs, cell_states = cell.call(inputs, _pack_states(cell.state_size, cell_states),
                                            **kwargs)
            new_states += flatten(cell_states if isinstance(cell_states, (list, tuple))
                                  else [cell_states])
        return inputs, new_states

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        for cell in self.cells:
            _build_in_scope(cell, TensorShape(shape))
            shape = [shape[0]] + _size_dims(_output_size(cell))
        self.built = True

    def get_config(self):
        config = super(StackedRNNCells, self).get_config()
        config["cells"] = [{"class_name": type(cell).__name__, "config": cell.get_config()}
                           for cell in self.cells]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cells = [deserialize(cell, custom_objects=custom_objects) for cell in config.pop("cells")]
        return cls(cells, **config)


# ---------------------------------------------------------------- whole-sequence kernels


class _HardSigmoidLSTM(torch.autograd.Function):
    """The LSTM recurrence with Keras' hard sigmoid gates, forward and backward by hand.

    `xp` [T, B, 4H] holds the input projections (bias included) in gate order o, i, f, c,
    with the o, i, f columns (of `xp` and of `recurrent` [H, 4H]) already scaled by 0.2 and
    shifted by 0.5, so that each gate is `clamp(pre-activation, 0, 1)`. Returns all hidden
    states [T, B, H] and the last cell state [B, H].
    """

    @staticmethod
    def forward(ctx, xp, h0, c0, recurrent):
        steps, batch, width = xp.shape
        units = width // 4
        gates = xp.new_empty(steps, batch, width)
        cells = xp.new_empty(steps + 1, batch, units)
        tanh_cells = xp.new_empty(steps, batch, units)
        hidden = xp.new_empty(steps, batch, units)
        cells[0] = c0
        by_gate = gates.view(steps, batch, 4, units)
        step_gates, sigmoid_part, tanh_part = (
            gates.unbind(0), gates[:, :, :3 * units].unbind(0), gates[:, :, 3 * units:].unbind(0))
        o, i, f, g = (by_gate[:, :, k].unbind(0) for k in range(4))
        step_x, step_c, step_tc, step_h = (
            xp.unbind(0), cells.unbind(0), tanh_cells.unbind(0), hidden.unbind(0))
        h = h0
        for t in range(steps):
            torch.addmm(step_x[t], h, recurrent, out=step_gates[t])
            sigmoid_part[t].clamp_(0.0, 1.0)
            tanh_part[t].tanh_()
            c = torch.mul(f[t], step_c[t], out=step_c[t + 1]).addcmul_(i[t], g[t])
            h = torch.mul(o[t], torch.tanh(c, out=step_tc[t]), out=step_h[t])
        ctx.save_for_backward(gates, cells, tanh_cells, hidden, h0, recurrent)
        return hidden, cells[steps]

    @staticmethod
    @once_differentiable
    def backward(ctx, d_hidden, d_last_cell):
        gates, cells, tanh_cells, hidden, h0, recurrent = ctx.saved_tensors
        steps, batch, width = gates.shape
        units = width // 4
        o, i, f, g = gates.view(steps, batch, 4, units).unbind(2)
        # the hard sigmoid's slope (after the folded-in 0.2) is 1 strictly inside (0, 1)
        slope = gates[:, :, :3 * units].sub(0.5).abs_().lt_(0.5).view(steps, batch, 3, units)
        # per step: d(cell) = d(cell) * f + d(h) * dc_weight; d(pre o) = d(h) * o_weight;
        # d(pre i, f, c) = d(cell) * icf_weight
        dc_weight = torch.addcmul(o, o * tanh_cells, tanh_cells, value=-1).unsqueeze(2)
        o_weight = (tanh_cells * slope[:, :, 0]).unsqueeze(2)
        icf_weight = gates.new_empty(steps, batch, 3, units)
        torch.mul(g, slope[:, :, 1], out=icf_weight[:, :, 0])
        torch.mul(cells[:-1], slope[:, :, 2], out=icf_weight[:, :, 1])
        torch.addcmul(i, i * g, g, value=-1, out=icf_weight[:, :, 2])
        d_gates = gates.new_empty(steps, batch, 4, units)
        d_flat = d_gates.view(steps, batch, width)
        if d_hidden is None:
            d_hidden = gates.new_zeros(steps, batch, units)
        d_cell = (d_last_cell.clone() if d_last_cell is not None
                  else gates.new_zeros(batch, units)).unsqueeze(1)
        d_h = d_hidden[steps - 1].clone().unsqueeze(1)
        d_h_flat = d_h.view(batch, units)
        recurrent_t = recurrent.t()
        step_f, step_dh_out = f.unsqueeze(2).unbind(0), d_hidden.unbind(0)
        step_dc_weight, step_o_weight, step_icf = (
            dc_weight.unbind(0), o_weight.unbind(0), icf_weight.unbind(0))
        step_d_flat, step_d_o, step_d_icf = (
            d_flat.unbind(0), d_gates[:, :, 0:1].unbind(0), d_gates[:, :, 1:].unbind(0))
        for t in range(steps - 1, -1, -1):
            if t < steps - 1:
                torch.addmm(step_dh_out[t], step_d_flat[t + 1], recurrent_t, out=d_h_flat)
                d_cell.mul_(step_f[t + 1])
            d_cell.addcmul_(d_h, step_dc_weight[t])
            torch.mul(d_cell, step_icf[t], out=step_d_icf[t])
            torch.mul(d_h, step_o_weight[t], out=step_d_o[t])
        previous_h = torch.cat([h0.unsqueeze(0), hidden[:-1]], 0).view(steps * batch, units)
        d_recurrent = previous_h.t().mm(d_flat.view(steps * batch, width))
        d_h0 = step_d_flat[0].mm(recurrent_t)
        d_c0 = d_cell.view(batch, units) * f[0]
        return d_flat, d_h0, d_c0, d_recurrent


def _hard_sigmoid_lstm(x, kernel, recurrent_kernel, bias, states):
    """Keras' LSTM with hard-sigmoid gates and tanh, x [B, T, D] -> ([B, T, H], (h, c))."""
    batch, steps, width = x.shape[0], x.shape[1], kernel.shape[1]
    units = width // 4
    order = torch.cat([torch.arange(3 * units, width), torch.arange(0, 3 * units)]).to(x.device)
    scale = torch.cat([x.new_full((3 * units,), 0.2), x.new_ones(units)])
    shift = torch.cat([x.new_full((3 * units,), 0.5), x.new_zeros(units)])
    shift = shift + bias[order] * scale if bias is not None else shift
    projections = torch.addmm(shift, x.transpose(0, 1).reshape(steps * batch, x.shape[2]),
                              kernel[:, order] * scale).view(steps, batch, width)
    hidden, last_cell = _HardSigmoidLSTM.apply(projections, states[0], states[1],
                                               recurrent_kernel[:, order] * scale)
    return hidden.transpose(0, 1), [hidden[-1], last_cell]


def _torch_lstm(x, kernel, recurrent_kernel, bias, states):
    """`torch.lstm` on Keras weights (torch's gate order i, f, g, o is Keras' i, f, c, o)."""
    params = [kernel.t(), recurrent_kernel.t()]
    if bias is not None:
        params += [bias, torch.zeros_like(bias)]
    output, h, c = torch.lstm(x, (states[0].unsqueeze(0), states[1].unsqueeze(0)), params,
                              bias is not None, 1, 0.0, torch.is_grad_enabled(), False, True)
    return output, [h[0], c[0]]


def _gru_order(weights, units):
    """Keras' GRU gate order z, r, h -> torch's r, z, n along the last axis."""
    z, r, h = weights[..., :units], weights[..., units:2 * units], weights[..., 2 * units:]
    return torch.cat([r, z, h], -1)


def _torch_gru(x, kernel, recurrent_kernel, bias, states):
    """`torch.gru` on Keras' reset_after GRU weights (bias [2, 3H]: input, recurrent)."""
    units = recurrent_kernel.shape[0]
    params = [_gru_order(kernel, units).t(), _gru_order(recurrent_kernel, units).t()]
    if bias is not None:
        params += [_gru_order(bias[0], units), _gru_order(bias[1], units)]
    output, h = torch.gru(x, states[0].unsqueeze(0), params, bias is not None, 1, 0.0,
                          torch.is_grad_enabled(), False, True)
    return output, [h[0]]


def _torch_simple_rnn(function):
    def run(x, kernel, recurrent_kernel, bias, states):
        params = [kernel.t(), recurrent_kernel.t()]
        if bias is not None:
            params += [bias, torch.zeros_like(bias)]
        output, h = function(x, states[0].unsqueeze(0), params, bias is not None, 1, 0.0,
                             torch.is_grad_enabled(), False, True)
        return output, [h[0]]
    return run


_FUSED_KERNELS = {
    ("lstm", torch.tanh, torch.sigmoid): _torch_lstm,
    ("lstm", torch.tanh, _hard_sigmoid): _hard_sigmoid_lstm,
    ("gru", torch.tanh, torch.sigmoid): _torch_gru,
    ("simple", torch.tanh, None): _torch_simple_rnn(torch.rnn_tanh),
    ("simple", torch.relu, None): _torch_simple_rnn(torch.rnn_relu),
}


def _fused_kernel(math):
    """The whole-sequence kernel computing a cell's math, or None."""
    if math.kind == "gru" and not math.reset_after:
        return None
    recurrent = None if math.kind == "simple" else math.recurrent_activation
    return _FUSED_KERNELS.get((math.kind, math.activation, recurrent))


def _step_loop(math, x, mask, kernel, recurrent_kernel, bias, input_masks, recurrent_masks,
               states, zero_output_for_mask):
    """The cell's math step by step over x [B, T, D] (masked steps keep output and states)."""
    projected = _project(math, x, kernel, bias, input_masks)
    step_masks = mask.unsqueeze(-1).unbind(1) if mask is not None else None
    outputs, previous = [], None
    for t, step_projection in enumerate(projected.unbind(1)):
        new_states = _recurrent_step(math, step_projection, states, recurrent_kernel, bias,
                                     recurrent_masks)
        output = new_states[0]
        if step_masks is not None:
            keep = step_masks[t]
            if zero_output_for_mask or previous is None:
                previous = torch.zeros_like(output)
            output = torch.where(keep, output, previous)
            new_states = [torch.where(keep, new, old) for new, old in zip(new_states, states)]
        outputs.append(output)
        previous, states = output, new_states
    return torch.stack(outputs, 1), states


_Sequence = collections.namedtuple(
    "_Sequence", "math fused go_backwards time_major zero_output_for_mask has_mask has_bias "
                 "input_mask_count recurrent_mask_count zero_states")


def _state_count(math):
    return 2 if math.kind == "lstm" else 1


@torch._disable_dynamo  # torch.compiler.disable would import torch._dynamo (~2 s) now
def _run_sequence(spec, x, kernel, recurrent_kernel, *rest):
    """A built-in cell over a whole sequence, in torch: (outputs, *final states).

    `rest`: the step mask [B, T] (if any), the bias (if any), the input and the recurrent
    dropout masks (if any), then the initial states (zeros made here with `zero_states`).
    Outputs are in processing order (reversed with `go_backwards`); `time_major` inputs,
    masks and outputs are [T, B, ...].
    """
    rest = list(rest)
    mask = rest.pop(0) if spec.has_mask else None
    bias = rest.pop(0) if spec.has_bias else None
    input_masks = [rest.pop(0) for _ in range(spec.input_mask_count)] or None
    recurrent_masks = [rest.pop(0) for _ in range(spec.recurrent_mask_count)] or None
    if spec.time_major:
        x = x.transpose(0, 1)
        mask = None if mask is None else mask.transpose(0, 1)
    if spec.go_backwards:
        x = x.flip(1)
        mask = None if mask is None else mask.flip(1)
    if spec.zero_states:
        rest = [x.new_zeros(x.shape[0], recurrent_kernel.shape[0])
                for _ in range(_state_count(spec.math))]
    if spec.fused is not None:
        if input_masks is not None:
            x = x * input_masks[0].unsqueeze(1)
        outputs, states = spec.fused(x, kernel, recurrent_kernel, bias, rest)
    else:
        outputs, states = _step_loop(spec.math, x, mask, kernel, recurrent_kernel, bias,
                                     input_masks, recurrent_masks, rest,
                                     spec.zero_output_for_mask)
    if spec.time_major:
        outputs = outputs.transpose(0, 1)
    return (outputs,) + tuple(states)


def _sequence_op(spec, tensors):
    """Run `_run_sequence` eagerly, or record it as one graph node (its static shapes by
    rule: the recurrence cannot run on a graph's symbolic sizes)."""
    def run(*values):
        return _run_sequence(spec, *values)

    if not _state.building_graph:
        return ops.wrap(run(*[ops.to_torch(t) for t in tensors]))
    graph = get_default_graph()
    tensors = [ops.convert_to_tensor(t) for t in tensors]
    x, units = tensors[0]._fake, tensors[2]._fake.shape[0]
    batch = x.shape[1 if spec.time_major else 0]
    with graph._fake_mode:
        fake_out = (x.new_empty(tuple(x.shape[:2]) + (units,)),) + tuple(
            x.new_empty(batch, units) for _ in range(_state_count(spec.math)))
    return graph.record_custom(run, "CudnnRNN" if spec.fused else "RNN", tensors, fake_out)


def _built_in_cells(cell):
    """The built-in cells `cell` is (or stacks), or None if any cell has its own `call`."""
    cells = cell.cells if isinstance(cell, StackedRNNCells) else [cell]
    if all(isinstance(c, _CellBase) and type(c).call is _CellBase.call for c in cells):
        return cells
    return None


def _maybe_training(training):
    """False when `training` is statically off (so dropout cannot apply)."""
    if training is None:
        training = backend.learning_phase()
    return bool(training) if not ops.is_tensor(training) else True


# ---------------------------------------------------------------- RNN


def _standardize_args(inputs, initial_state, constants, num_constants):
    """Split `[inputs, *states, *constants]` lists as Keras does; states/constants as lists."""
    if isinstance(inputs, list):
        if num_constants:
            constants = inputs[-num_constants:]
            inputs = inputs[:-num_constants]
        if len(inputs) > 1:
            initial_state = inputs[1:]
        inputs = inputs[0]

    def to_list(value):
        if value is None or isinstance(value, list):
            return value
        return list(value) if isinstance(value, tuple) else [value]
    return inputs, to_list(initial_state), to_list(constants)


@tf_export("keras.layers.RNN")
class RNN(Layer):
    """Runs a cell (or a list of cells, stacked) over the time axis of [batch, time, ...]."""

    _UNTRACKED = Layer._UNTRACKED | frozenset(("_states",))

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, time_major=False, **kwargs):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call"):
            raise ValueError("`cell` should have a `call` method. The RNN was passed: %s"
                             % (cell,))
        if not hasattr(cell, "state_size"):
            raise ValueError("The RNN cell should have an attribute `state_size` (tuple of "
                             "integers, one integer per RNN state).")
        self.zero_output_for_mask = kwargs.pop("zero_output_for_mask", False)
        if "input_shape" not in kwargs and ("input_dim" in kwargs or "input_length" in kwargs):
            kwargs["input_shape"] = (kwargs.pop("input_length", None),
                                     kwargs.pop("input_dim", None))
        super(RNN, self).__init__(**kwargs)
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.time_major = time_major
        self.supports_masking = True
        self.input_spec = [InputSpec(ndim=3)]
        self._states = None
        self._num_constants = 0

    @property
    def states(self):
        """The state variables of a stateful layer (None each before they exist)."""
        if self._states is None:
            return [None] * len(_state_sizes(self.cell.state_size))
        return self._states

    @states.setter
    def states(self, states):
        self._states = states

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, list) and input_shape and \
                isinstance(input_shape[0], (list, tuple, TensorShape)):
            input_shape = input_shape[0]
        dims = TensorShape(input_shape).as_list()
        batch, steps = (dims[1], dims[0]) if self.time_major else (dims[0], dims[1])
        output_dims = _size_dims(_output_size(self.cell))
        if self.return_sequences:
            output = TensorShape(([steps, batch] if self.time_major else [batch, steps])
                                 + output_dims)
        else:
            output = TensorShape([batch] + output_dims)
        if not self.return_state:
            return output
        return [output] + [TensorShape([batch] + _size_dims(size))
                           for size in _state_sizes(self.cell.state_size)]

    def compute_mask(self, inputs, mask):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(self.states)
        return output_mask

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        batch_axis, time_axis = (1, 0) if self.time_major else (0, 1)
        spec = list(dims)
        if not self.stateful:
            spec[batch_axis] = None
        spec[time_axis] = None
        self.input_spec = [InputSpec(shape=spec)]
        step_shape = TensorShape([dims[batch_axis]] + dims[2:])
        _build_in_scope(self.cell, step_shape)
        if self.stateful:
            self.reset_states()
        self.built = True

    def get_initial_state(self, inputs):
        """Zero states [batch, size], from the cell's `get_initial_state` when it has one."""
        batch_size = array_ops.shape(inputs)[1 if self.time_major else 0]
        get_initial_state = getattr(self.cell, "get_initial_state", None)
        if get_initial_state is not None:
            states = get_initial_state(inputs=None, batch_size=batch_size, dtype=inputs.dtype)
        else:
            states = _zero_states(self.cell, batch_size, inputs.dtype)
        return flatten(states if isinstance(states, (list, tuple)) else [states])

    def __call__(self, inputs, initial_state=None, constants=None, **kwargs):
        inputs, initial_state, constants = _standardize_args(inputs, initial_state, constants,
                                                             self._num_constants)
        if initial_state is not None:
            kwargs["initial_state"] = initial_state
        if constants is not None:
            kwargs["constants"] = constants
            self._num_constants = len(constants)
        extra = flatten([initial_state, constants])
        keras = [is_keras_tensor(t) for t in extra if t is not None]
        if keras and any(keras) != all(keras):
            raise ValueError("The initial state or constants of an RNN layer cannot be "
                             "specified with a mix of Keras tensors and non-Keras tensors (a "
                             "\"Keras tensor\" is a tensor that was returned by a Keras layer, "
                             "or by `Input`)")
        return super(RNN, self).__call__(inputs, **kwargs)

    def call(self, inputs, mask=None, training=None, initial_state=None, constants=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        states = self._given_states(inputs, initial_state)
        timesteps = inputs.shape.as_list()[0 if self.time_major else 1]
        if self.unroll and timesteps is None:
            raise ValueError("Cannot unroll a RNN if the time dimension is undefined. Specify "
                             "the time dimension by passing an `input_shape` (Sequential) or "
                             "a `shape` (Input) with a known number of time steps.")
        cells = self.cell.cells if isinstance(self.cell, StackedRNNCells) else [self.cell]
        for cell in cells:
            if isinstance(cell, DropoutRNNCellMixin):
                cell.reset_dropout_mask()
                cell.reset_recurrent_dropout_mask()
        built_in = _built_in_cells(self.cell)
        if built_in is not None and not constants:
            outputs, new_states = self._run_sequences(built_in, inputs, states, mask, training)
            if mask is not None and self.zero_output_for_mask:
                last_output = outputs[-1] if self.time_major else outputs[:, -1]
            else:
                last_output = new_states[-len(_state_sizes(built_in[-1].state_size))]
        else:
            if states is None:
                states = self.get_initial_state(inputs)
            last_output, outputs, new_states = self._run_steps(
                inputs, states, mask, training, constants)
        if self.stateful:
            self.add_update([state_ops.assign(variable, value)
                             for variable, value in zip(self._states, new_states)])
        output = outputs if self.return_sequences else last_output
        if self.return_state:
            return [output] + list(new_states)
        return output

    def _given_states(self, inputs, initial_state):
        """Given initial states (checked against the cell), the stateful variables, or None
        for zeros."""
        count = len(self.states)
        if initial_state is not None:
            given = [ops.convert_to_tensor(s, dtype=inputs.dtype) for s in flatten(initial_state)]
            if len(given) != count:
                raise ValueError("Layer %s has %d states but was passed %d initial states."
                                 % (self.name, count, len(given)))
            for state, size in zip(given, _state_sizes(self.cell.state_size)):
                if not state.shape[1:].is_compatible_with(TensorShape(_size_dims(size))):
                    raise ValueError("An `initial_state` was passed that is not compatible "
                                     "with `cell.state_size`. Received state shape %s; "
                                     "however `cell.state_size` is %s"
                                     % (state.shape, self.cell.state_size))
            return _stored_unless_zero(self._states, given) if self.stateful else given
        if self.stateful:
            return [array_ops.identity(variable) for variable in self._states]
        return None

    def _run_sequences(self, cells, inputs, states, mask, training):
        """Built-in cells as whole-sequence ops; stacked cells one after the other (the same
        as stepping the stack: masked steps keep every cell's states)."""
        if mask is not None:
            mask = math_ops.cast(mask, "bool")
        outputs, new_states = inputs, []
        for index, cell in enumerate(cells):
            count = len(_state_sizes(cell.state_size))
            cell_states = None if states is None else states[:count]
            states = None if states is None else states[count:]
            go_backwards = self.go_backwards and index == 0
            results = self._cell_sequence(cell, outputs, cell_states, mask, training,
                                          go_backwards)
            outputs = results[0]
            new_states += list(results[1:])
            if go_backwards and mask is not None:
                mask = array_ops.reverse(mask, [0 if self.time_major else 1])
        return outputs, new_states

    def _cell_sequence(self, cell, inputs, states, mask, training, go_backwards):
        """One built-in cell over the sequence as one op (a fused kernel when there is one
        for the cell's math and no mask or per-gate dropout mask is involved); `states`
        None starts from zeros."""
        input_masks = recurrent_masks = None
        if (cell.dropout or cell.recurrent_dropout) and _maybe_training(training):
            step_input = inputs[0] if self.time_major else inputs[:, 0]
            h = states[0] if states is not None else _zero_states(
                cell, array_ops.shape(step_input)[0], inputs.dtype)[0]
            input_masks, recurrent_masks = cell._dropout_masks_for(step_input, h, training)
        math = cell._math()
        fused = _fused_kernel(math)
        if mask is not None or recurrent_masks is not None or \
                (input_masks is not None and len(input_masks) > 1):
            fused = None
        spec = _Sequence(math, fused, go_backwards, self.time_major, self.zero_output_for_mask,
                         mask is not None, cell.bias is not None, len(input_masks or ()),
                         len(recurrent_masks or ()), states is None)
        tensors = [inputs, cell.kernel, cell.recurrent_kernel] + \
            [t for t in (mask, cell.bias) if t is not None] + list(input_masks or ()) + \
            list(recurrent_masks or ()) + list(states or ())
        return _sequence_op(spec, tensors)

    def _step_function(self, training, constants):
        cell = self.cell
        kwargs = {}
        if _call_accepts(cell.call, "training"):
            kwargs["training"] = training
        if constants:
            if not _call_accepts(cell.call, "constants"):
                raise ValueError("RNN cell does not support constants")
            kwargs["constants"] = constants

        def step(inputs, states):
            output, new_states = cell.call(inputs, _pack_states(cell.state_size, states),
                                           **kwargs)
            if not isinstance(new_states, (list, tuple)):
                new_states = [new_states]
            return output, flatten(list(new_states))
        return step

    def _run_steps(self, inputs, states, mask, training, constants):
        """Keras' `K.rnn`: the cell step by step; returns (last output, outputs, states)."""
        step = self._step_function(training, constants)
        steps_first = inputs if self.time_major else array_ops.transpose(inputs, [1, 0, 2])
        if mask is not None:
            mask = math_ops.cast(mask, "bool")
            if not self.time_major:
                mask = array_ops.transpose(mask, [1, 0])
        count = steps_first.shape.as_list()[0]
        if count is None:
            return self._while_steps(step, steps_first, states, mask)
        inputs_list = array_ops.unstack(steps_first, num=count)
        masks = array_ops.unstack(mask, num=count) if mask is not None else [None] * count
        order = range(count - 1, -1, -1) if self.go_backwards else range(count)
        outputs, previous = [], None
        for t in order:
            output, new_states = step(inputs_list[t], states)
            if masks[t] is not None:
                if previous is None:
                    previous = array_ops.zeros_like(output)
                output, new_states = self._masked_step(masks[t], output, previous, new_states,
                                                       states)
            previous, states = output, new_states
            outputs.append(output)
        sequence = array_ops.stack(outputs, axis=0 if self.time_major else 1)
        return outputs[-1], sequence, states

    def _masked_step(self, step_mask, output, previous, new_states, states):
        """Where the step is masked: the previous output (or zeros) and the old states."""
        keep = array_ops.expand_dims(step_mask, -1)
        fallback = array_ops.zeros_like(output) if self.zero_output_for_mask else previous
        output = array_ops.where_v2(keep, output, fallback)
        new_states = [array_ops.where_v2(keep, new, old) for new, old in zip(new_states, states)]
        return output, new_states

    def _while_steps(self, step, steps_first, states, mask):
        """The step loop as a `tf.while_loop` (graphs with an unknown number of steps).

        One step is traced before the loop: it gives the output's shape, and the cells'
        dropout masks are made there, outside the loop, so that every step shares them."""
        count = array_ops.shape(steps_first)[0]
        time_axis = 0 if self.time_major else 1
        probe, _ = step(steps_first[0], states)
        previous = array_ops.zeros_like(probe)
        collected = array_ops.zeros_like(array_ops.expand_dims(probe, time_axis))
        collected = collected[:0] if self.time_major else collected[:, :0]

        def body(t, collected, previous, *states):
            index = count - 1 - t if self.go_backwards else t
            output, new_states = step(array_ops.gather(steps_first, index), list(states))
            if mask is not None:
                output, new_states = self._masked_step(array_ops.gather(mask, index), output,
                                                       previous, new_states, states)
            collected = array_ops.concat(
                [collected, array_ops.expand_dims(output, time_axis)], time_axis)
            return [t + 1, collected, output] + list(new_states)

        sequence_shape = previous.shape.as_list()
        sequence_shape.insert(time_axis, None)
        loop_vars = [constant_op.constant(0), collected, previous] + list(states)
        invariants = [TensorShape([]), TensorShape(sequence_shape), previous.shape] + \
            [s.shape for s in states]
        results = control_flow_ops.while_loop(lambda t, *_: t < count, body, loop_vars,
                                              shape_invariants=invariants)
        return results[2], results[1], list(results[3:])

    def reset_states(self, states=None):
        """Zero the stateful layer's states, or set them to `states` (numpy values)."""
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        spec = self.input_spec[0].shape if self.input_spec and self.input_spec[0] else None
        batch_size = None if spec is None else spec[1 if self.time_major else 0]
        if not batch_size:
            raise ValueError("If a RNN is stateful, it needs to know its batch size. Specify "
                             "the batch size of your input tensors: \n- If using a Sequential "
                             "model, specify the batch size by passing a `batch_input_shape` "
                             "argument to your first layer.\n- If using the functional API, "
                             "specify the batch size by passing a `batch_shape` argument to "
                             "your Input layer.")
        shapes = [[batch_size] + _size_dims(size) for size in _state_sizes(self.cell.state_size)]
        if self._states is None:
            with ops.init_scope():
                self._states = [Variable(np.zeros(shape), trainable=False, dtype=self.dtype)
                                for shape in shapes]
            return
        values = [None] * len(shapes) if states is None else flatten(
            list(states) if isinstance(states, (list, tuple)) else [states])
        if len(values) != len(shapes):
            raise ValueError("Layer %s expects %d states, but it received %d state values. "
                             "Input received: %s" % (self.name, len(shapes), len(values),
                                                     states))
        pairs = []
        for index, (value, shape) in enumerate(zip(values, shapes)):
            value = np.zeros(shape) if value is None else value
            if tuple(getattr(value, "shape", ())) != tuple(shape):
                raise ValueError("State %d is incompatible with layer %s: expected shape=%s, "
                                 "found shape=%s" % (index, self.name, tuple(shape),
                                                     getattr(value, "shape", None)))
            pairs.append((self._states[index], value))
        backend.batch_set_value(pairs)

    def get_config(self):
        config = {"return_sequences": self.return_sequences, "return_state": self.return_state,
                  "go_backwards": self.go_backwards, "stateful": self.stateful,
                  "unroll": self.unroll, "time_major": self.time_major}
        if self._num_constants:
            config["num_constants"] = self._num_constants
        if self.zero_output_for_mask:
            config["zero_output_for_mask"] = self.zero_output_for_mask
        config["cell"] = {"class_name": type(self.cell).__name__,
                          "config": self.cell.get_config()}
        base = super(RNN, self).get_config()
        base.update(config)
        return base

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        num_constants = config.pop("num_constants", 0)
        if "cell" in config:
            config["cell"] = deserialize(config["cell"], custom_objects=custom_objects)
        layer = cls(**config)
        layer._num_constants = num_constants
        return layer


@ops.op(graph_name="Select")
def _stored_unless_zero(stored, given):
    """Keras' rule for a stateful layer called with `initial_state`: the stored states,
    unless all of them are still zero."""
    stored = [ops.to_torch(s) for s in stored]
    keep = torch.stack([s.ne(0).any() for s in stored]).any()
    return [torch.where(keep, s, ops.to_torch(g)) for s, g in zip(stored, given)]


# ---------------------------------------------------------------- SimpleRNN, GRU, LSTM


class _CellLayer(RNN):
    """An RNN layer owning one built-in cell (whose arguments it shows as properties)."""

    def __init__(self, cell, return_sequences, return_state, go_backwards, stateful, unroll,
                 time_major, activity_regularizer, **kwargs):
        super(_CellLayer, self).__init__(
            cell, return_sequences=return_sequences, return_state=return_state,
            go_backwards=go_backwards, stateful=stateful, unroll=unroll,
            time_major=time_major, **kwargs)
        self.activity_regularizer = regularizers.get(activity_regularizer)

    def call(self, inputs, mask=None, training=None, initial_state=None):
        return super(_CellLayer, self).call(inputs, mask=mask, training=training,
                                            initial_state=initial_state)

    def get_config(self):
        config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            config.pop(key, None)
        config["activity_regularizer"] = serialize_optional(regularizers,
                                                            self.activity_regularizer)
        base = super(_CellLayer, self).get_config()
        del base["cell"]
        base.update(config)
        return base

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if config.get("implementation") == 0:
            config["implementation"] = 1
        return cls(**config)


def _cell_kwargs(kwargs):
    """The constructor arguments the layer hands on to its cell."""
    cell_kwargs = {"dtype": kwargs.get("dtype"), "trainable": kwargs.get("trainable", True)}
    if "enable_caching_device" in kwargs:
        cell_kwargs["enable_caching_device"] = kwargs.pop("enable_caching_device")
    return cell_kwargs


def _cell_properties(*names):
    """Class decorator: read-only properties forwarding `names` to `self.cell`."""
    def decorate(cls):
        for name in names:
            setattr(cls, name, property(lambda self, name=name: getattr(self.cell, name)))
        return cls
    return decorate


_COMMON_ARGS = ("units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer",
                "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
                "bias_regularizer", "kernel_constraint", "recurrent_constraint",
                "bias_constraint", "dropout", "recurrent_dropout")


@tf_export("keras.layers.SimpleRNN")
@_cell_properties(*_COMMON_ARGS)
class SimpleRNN(_CellLayer):
    """Fully-connected RNN whose output is fed back as the next input's state."""

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, time_major=False, **kwargs):
        kwargs.pop("implementation", None)
        cell = SimpleRNNCell(
            units, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, **_cell_kwargs(kwargs))
        super(SimpleRNN, self).__init__(cell, return_sequences, return_state, go_backwards,
                                        stateful, unroll, time_major, activity_regularizer,
                                        **kwargs)


@tf_export(v1=["keras.layers.GRU"])
@_cell_properties(*_COMMON_ARGS + ("recurrent_activation", "implementation", "reset_after"))
class GRU(_CellLayer):
    """Gated Recurrent Unit (Cho et al. 2014); `reset_after` applies the reset gate after
    the recurrent matrix multiplication (the CuDNN-compatible variant)."""

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, implementation=1,
                 return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, time_major=False, reset_after=False, **kwargs):
        cell = GRUCell(
            units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout,
            implementation=implementation, reset_after=reset_after, **_cell_kwargs(kwargs))
        super(GRU, self).__init__(cell, return_sequences, return_state, go_backwards, stateful,
                                  unroll, time_major, activity_regularizer, **kwargs)


@tf_export(v1=["keras.layers.LSTM"])
@_cell_properties(*_COMMON_ARGS + ("recurrent_activation", "unit_forget_bias",
                                   "implementation"))
class LSTM(_CellLayer):
    """Long Short-Term Memory layer (Hochreiter 1997)."""

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, implementation=1, return_sequences=False,
                 return_state=False, go_backwards=False, stateful=False, unroll=False,
                 time_major=False, **kwargs):
        cell = LSTMCell(
            units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, implementation=implementation,
            **_cell_kwargs(kwargs))
        super(LSTM, self).__init__(cell, return_sequences, return_state, go_backwards,
                                   stateful, unroll, time_major, activity_regularizer, **kwargs)


# ---------------------------------------------------------------- the v2 classes


def _with_v2_defaults(base, **defaults):
    """The TF 2.x class of `base`: the same layer or cell, with TF 2.x's default arguments."""
    parameters = inspect.signature(base.__init__)

    def __init__(self, *args, **kwargs):
        bound = parameters.bind_partial(self, *args, **kwargs).arguments
        for key, value in defaults.items():
            if key not in bound:
                kwargs[key] = value
        base.__init__(self, *args, **kwargs)

    cls = type(base.__name__, (base,), {
        "__init__": __init__, "__module__": __name__,
        "__doc__": "TF 2.x `%s`: %s" % (base.__name__, ", ".join(
            "%s=%r" % item for item in sorted(defaults.items())))})
    tf_export(v2=["keras.layers." + base.__name__])(cls)
    return cls


GRUCellV2 = _with_v2_defaults(GRUCell, recurrent_activation="sigmoid", implementation=2,
                              reset_after=True)
LSTMCellV2 = _with_v2_defaults(LSTMCell, recurrent_activation="sigmoid", implementation=2)
GRUV2 = _with_v2_defaults(GRU, recurrent_activation="sigmoid", implementation=2,
                          reset_after=True)
LSTMV2 = _with_v2_defaults(LSTM, recurrent_activation="sigmoid", implementation=2)
