"""`tf.contrib.cudnn_rnn` (TF 1.15): the cuDNN RNN layers `CudnnLSTM`, `CudnnGRU`,
`CudnnRNNTanh`, `CudnnRNNRelu` and the cells `CudnnCompatibleLSTMCell` /
`CudnnCompatibleGRUCell` that compute the same math step by step.

The layers run torch's fused `torch.lstm` / `torch.gru` / `torch.rnn_tanh` / `torch.rnn_relu`
(cuDNN on a GPU, torch's own kernels on the CPU, where TF 1.15 had no kernel at all), over the
whole sequence as one op in eager mode and one node in graphs. cuDNN's gate math: LSTM gates
i, f, c, o with an input and a recurrent bias each; GRU gates r, u, c with the reset gate
applied after the recurrent matmul (`c = tanh(W_c x + b_Wc + r * (R_c h + b_Rc))`).

Weights: like TF, one variable `<scope>/opaque_kernel` (scope `cudnn_lstm`, `cudnn_gru`, ...)
holds them all. TF's buffer layout is cuDNN's private one; ours is documented: TF's
canonical weights in TF's canonical order, each flattened row-major, then the canonical biases
in theirs. For each layer, for each direction (forward first): the gates' input weights
[num_units, layer input size] then their recurrent weights [num_units, num_units] (gate
order as above); then, for each layer and direction, the gates' input biases then recurrent
biases [num_units]. Layer inputs after the first are num_units (x2 when bidirectional).
Checkpoints: as TF, `tf.train.Saver` saves the opaque buffer and, through the layer's
saveables (the SAVEABLE_OBJECTS collection of a graph), each layer's weights as the
CudnnCompatible cells name and lay them out (`cudnn_lstm/rnn/multi_rnn_cell/cell_0/
cudnn_compatible_lstm_cell/kernel`; `.../stack_bidirectional_rnn/cell_0/bidirectional_rnn/
fw/...` when bidirectional; an input and a recurrent bias saved as their sum, restored as two
halves). Restoring rebuilds the opaque buffer from those canonical tensors, after the
variables, so TensorFlow's own CudnnLSTM checkpoints (whose opaque buffer is cuDNN's) load too.
Where we differ: `input_mode` 'skip_input' raises NotImplementedError; with
`time_major=False` the zero initial states follow the documented
[batch, num_layers * num_dirs, num_units] layout.
"""
import collections

import torch
from torch.nn.utils import rnn as torch_rnn

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.layers import base as layers_base
from tfcompat.ops import array_ops, init_ops, math_ops, nn_ops
from tfcompat.layers.rnn_cell_impl import BasicLSTMCell, GRUCell
from tfcompat.trackable import tracking
from tfcompat.variable_scope import get_variable, get_variable_scope, variable_scope
from tfcompat.framework.graph import GraphKeys, get_default_graph

CUDNN_RNN_UNIDIRECTION = "unidirectional"
CUDNN_RNN_BIDIRECTION = "bidirectional"
CUDNN_LSTM = "lstm"
CUDNN_GRU = "gru"
CUDNN_RNN_RELU = "rnn_relu"
CUDNN_RNN_TANH = "rnn_tanh"
CUDNN_INPUT_LINEAR_MODE = "linear_input"
CUDNN_INPUT_SKIP_MODE = "skip_input"
CUDNN_INPUT_AUTO_MODE = "auto_select"
CUDNN_LSTM_PARAMS_PER_LAYER = 8
CUDNN_GRU_PARAMS_PER_LAYER = 6
CUDNN_RNN_TANH_PARAMS_PER_LAYER = 2
CUDNN_RNN_RELU_PARAMS_PER_LAYER = 2

_TORCH_FUNCTIONS = {CUDNN_LSTM: torch.lstm, CUDNN_GRU: torch.gru,
                    CUDNN_RNN_TANH: torch.rnn_tanh, CUDNN_RNN_RELU: torch.rnn_relu}

_GATES = {CUDNN_LSTM: 4, CUDNN_GRU: 3, CUDNN_RNN_TANH: 1, CUDNN_RNN_RELU: 1}

_Spec = collections.namedtuple(
    "_Spec", "mode num_layers num_units bidirectional dropout training time_major "
             "has_states has_lengths")


def _state_count(mode):
    return 2 if mode == CUDNN_LSTM else 1


def _torch_params(spec, params, input_size):
    """Views of the opaque buffer as torch's [w_ih, w_hh, b_ih, b_hh] per layer and direction
    (the layout in the module doc; cuDNN's gate order is torch's)."""
    units, dirs = spec.num_units, 2 if spec.bidirectional else 1
    rows = _GATES[spec.mode] * units
    sizes = []
    for layer in range(spec.num_layers):
        layer_input = input_size if layer == 0 else units * dirs
        sizes += [(rows, layer_input), (rows, units)] * dirs
    sizes += [(rows,)] * (2 * dirs * spec.num_layers)
    expected = sum(torch.Size(size).numel() for size in sizes)
    if params.numel() != expected:
        raise errors.InvalidArgumentError(
            "The opaque RNN parameter buffer has %d values; %d are needed for %s with "
            "num_layers=%d, num_units=%d, input_size=%d, %s" % (
                params.numel(), expected, spec.mode, spec.num_layers, units, input_size,
                "bidirectional" if spec.bidirectional else "unidirectional"))
    views = [chunk.view(size) for chunk, size in zip(
        params.split([torch.Size(size).numel() for size in sizes]), sizes)]
    count = 2 * dirs * spec.num_layers
    weights, biases = views[:count], views[count:]
    return [tensor for i in range(0, count, 2)
            for tensor in (weights[i], weights[i + 1], biases[i], biases[i + 1])]


@torch._disable_dynamo  # torch.compiler.disable would import torch._dynamo (~2 s) now
def _run_cudnn_rnn(spec, x, params, *rest):
    """The whole multi-layer RNN in torch: (outputs, h[, c]) laid out as TF's CudnnRNN."""
    rest = list(rest)
    lengths = rest.pop() if spec.has_lengths else None
    states = rest
    if not spec.time_major:
        x = x.transpose(0, 1)
        states = [s.transpose(0, 1) for s in states]
    if not spec.has_states:
        dirs = 2 if spec.bidirectional else 1
        states = [x.new_zeros(spec.num_layers * dirs, x.shape[1], spec.num_units)
                  for _ in range(_state_count(spec.mode))]
    weights = _torch_params(spec, params, x.shape[-1])
    hx = tuple(states) if spec.mode == CUDNN_LSTM else states[0]
    function = _TORCH_FUNCTIONS[spec.mode]
    arguments = (weights, True, spec.num_layers, spec.dropout, spec.training,
                 spec.bidirectional)
    if lengths is None:
        outputs, *new_states = function(x, hx, *arguments, False)
    else:
        packed = torch_rnn.pack_padded_sequence(x, lengths.cpu().long(), enforce_sorted=False)
        order = packed.sorted_indices
        hx = tuple(s[:, order] for s in hx) if spec.mode == CUDNN_LSTM else hx[:, order]
        packed_outputs, *new_states = function(packed.data, packed.batch_sizes, hx, *arguments)
        outputs = torch_rnn.pad_packed_sequence(
            torch_rnn.PackedSequence(packed_outputs, packed.batch_sizes, order,
                                     packed.unsorted_indices), total_length=x.shape[0])[0]
        new_states = [s[:, packed.unsorted_indices] for s in new_states]
    if not spec.time_major:
        outputs = outputs.transpose(0, 1)
        new_states = [s.transpose(0, 1) for s in new_states]
    return (outputs,) + tuple(new_states)


def _cudnn_rnn(spec, x, params, states, sequence_lengths):
    """Run `_run_cudnn_rnn` eagerly, or record it as one graph node (static shapes by rule:
    the recurrence cannot run on a graph's symbolic sizes)."""
    tensors = [x, params] + list(states)
    if sequence_lengths is not None:
        tensors.append(sequence_lengths)

    def run(*values):
        return _run_cudnn_rnn(spec, *values)

    if not context.state.building_graph:
        return ops.wrap(run(*[ops.to_torch(t) for t in tensors]))
    graph = get_default_graph()
    tensors = [ops.convert_to_tensor(t) for t in tensors]
    fake_x = tensors[0]._fake
    time_axis, batch_axis = (0, 1) if spec.time_major else (1, 0)
    dirs = 2 if spec.bidirectional else 1
    time, batch = fake_x.shape[time_axis], fake_x.shape[batch_axis]
    state_shape = (spec.num_layers * dirs, batch, spec.num_units)
    if not spec.time_major:
        state_shape = (batch, spec.num_layers * dirs, spec.num_units)
    with graph._fake_mode:
        output_shape = [time, batch, dirs * spec.num_units]
        output_shape[time_axis], output_shape[batch_axis] = time, batch
        fake_out = (fake_x.new_empty(output_shape),) + tuple(
            fake_x.new_empty(state_shape) for _ in range(_state_count(spec.mode)))
    return graph.record_custom(run, "CudnnRNN", tensors, fake_out)


def _split_gates(spec, params, input_size):
    """[(W gates, R gates, bW gates, bR gates)] per (layer, direction), views of `params`."""
    views = _torch_params(spec, params, input_size)
    gates = _GATES[spec.mode]
    return [tuple(list(t.chunk(gates, 0)) for t in views[i:i + 4])
            for i in range(0, len(views), 4)]


def _lstm_order(gates):
    """cuDNN's i, f, c, o <-> the compatible cell's i, c, f, o (the swap is its own inverse)."""
    return [gates[0], gates[2], gates[1], gates[3]]


def _to_cell_tensors(mode, W, R, bW, bR):
    """One (layer, direction)'s cuDNN gates as the compatible cell's [(suffix, tensor)]."""
    if mode == CUDNN_LSTM:
        kernel = torch.cat([torch.cat([w, r], 1) for w, r in zip(_lstm_order(W),
                                                                  _lstm_order(R))], 0)
        return [("kernel", kernel.t()),
                ("bias", torch.cat([b + c for b, c in zip(_lstm_order(bW), _lstm_order(bR))]))]
    if mode == CUDNN_GRU:
        gates = torch.cat([torch.cat([W[0], R[0]], 1), torch.cat([W[1], R[1]], 1)], 0)
        return [("gates/kernel", gates.t()),
                ("candidate/input_projection/kernel", W[2].t()),
                ("candidate/hidden_projection/kernel", R[2].t()),
                ("gates/bias", torch.cat([bW[0] + bR[0], bW[1] + bR[1]])),
                ("candidate/input_projection/bias", bW[2]),
                ("candidate/hidden_projection/bias", bR[2])]
    return [("kernel", torch.cat([W[0], R[0]], 1).t()), ("bias", bW[0] + bR[0])]


def _from_cell_tensor(mode, suffix, value, W, R, bW, bR):
    """Write the compatible cell's tensor `suffix` into the cuDNN gate views (in place)."""
    input_width = W[0].shape[1]
    gates = list(range(2 if mode == CUDNN_GRU else len(W)))   # the GRU's r, u blocks
    order = _lstm_order(gates) if mode == CUDNN_LSTM else gates
    if suffix in ("kernel", "gates/kernel"):
        for block, gate in zip(value.t().chunk(len(order), 0), order):
            W[gate].copy_(block[:, :input_width])
            R[gate].copy_(block[:, input_width:])
    elif suffix in ("bias", "gates/bias"):
        for block, gate in zip(value.chunk(len(order), 0), order):
            bW[gate].copy_(block * 0.5)
            bR[gate].copy_(block * 0.5)
    else:
        target = {"candidate/input_projection/kernel": W[2],
                  "candidate/hidden_projection/kernel": R[2],
                  "candidate/input_projection/bias": bW[2],
                  "candidate/hidden_projection/bias": bR[2]}[suffix]
        target.copy_(value.t() if value.dim() == 2 else value)


class _CanonicalSaveable(object):
    """One tensor of a cuDNN layer in the compatible cells' layout, as `tf.train.Saver`
    saves it (`checkpoint_key`) and restores it into the opaque buffer."""

    def __init__(self, layer, checkpoint_key, index, suffix):
        self.name = self.checkpoint_key = checkpoint_key
        self._layer, self._index, self._suffix = layer, index, suffix

    def _saver_value(self, session):
        layer = self._layer
        opaque = tracking.read_variable(layer.kernel, session)
        groups = _split_gates(layer._spec(), opaque.reshape(-1), layer.input_size)
        tensors = dict(_to_cell_tensors(layer.rnn_mode, *groups[self._index]))
        return tensors[self._suffix].contiguous()

    def _saver_restore(self, value, session):
        layer = self._layer
        opaque = tracking.read_variable(layer.kernel, session).reshape(-1).clone()
        if opaque.numel() != layer._opaque_size():   # e.g. cuDNN's own buffer from TensorFlow
            opaque = value.new_zeros(layer._opaque_size())
        groups = _split_gates(layer._spec(), opaque, layer.input_size)
        _from_cell_tensor(layer.rnn_mode, self._suffix, value.to(opaque.dtype),
                          *groups[self._index])
        tracking.assign_variable(layer.kernel, opaque, self.checkpoint_key, "checkpoint",
                                 session)


_CELL_TENSORS = {
    CUDNN_LSTM: ("kernel", "bias"), CUDNN_RNN_TANH: ("kernel", "bias"),
    CUDNN_RNN_RELU: ("kernel", "bias"),
    CUDNN_GRU: ("gates/kernel", "candidate/input_projection/kernel",
                "candidate/hidden_projection/kernel", "gates/bias",
                "candidate/input_projection/bias", "candidate/hidden_projection/bias")}
_CELL_NAMES = {CUDNN_LSTM: "cudnn_compatible_lstm_cell", CUDNN_GRU: "cudnn_compatible_gru_cell",
               CUDNN_RNN_TANH: "basic_rnn_cell", CUDNN_RNN_RELU: "basic_rnn_cell"}


def _check_direction(direction):
    if direction not in (CUDNN_RNN_UNIDIRECTION, CUDNN_RNN_BIDIRECTION):
        raise ValueError("Invalid direction: %s, expecting %s or %s" % (
            direction, CUDNN_RNN_UNIDIRECTION, CUDNN_RNN_BIDIRECTION))


def _check_input_mode(input_mode):
    if input_mode not in (CUDNN_INPUT_LINEAR_MODE, CUDNN_INPUT_SKIP_MODE,
                          CUDNN_INPUT_AUTO_MODE):
        raise ValueError("Invalid input_mode: %s, expecting one of %s" % (
            input_mode, [CUDNN_INPUT_LINEAR_MODE, CUDNN_INPUT_SKIP_MODE,
                         CUDNN_INPUT_AUTO_MODE]))


class _CudnnRNN(layers_base.Layer):
    """A multi-layer (bi)directional cuDNN RNN over time-major inputs; weights in one
    `opaque_kernel` variable (module doc)."""

    _rnn_mode = None
    _num_params_per_layer = None

    def __init__(self, num_layers, num_units, input_mode=CUDNN_INPUT_LINEAR_MODE,
                 direction=CUDNN_RNN_UNIDIRECTION, dropout=0., seed=None, dtype=dtypes.float32,
                 kernel_initializer=None, bias_initializer=None, name=None):
        dtype = dtypes.as_dtype(dtype)
        super(_CudnnRNN, self).__init__(dtype=dtype, name=name)
        _check_direction(direction)
        _check_input_mode(input_mode)
        if dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
            raise ValueError("Only support float16, float32, float64, provided %s" % dtype)
        self._plain_dtype = dtype
        self._num_layers = num_layers
        self._num_units = num_units
        self._input_mode = input_mode
        self._direction = direction
        self._dropout = dropout
        self._seed = seed
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer
        self._input_size = None
        self._saveable = None

    num_layers = property(lambda self: self._num_layers)
    num_units = property(lambda self: self._num_units)
    input_mode = property(lambda self: self._input_mode)
    rnn_mode = property(lambda self: self._rnn_mode)
    direction = property(lambda self: self._direction)

    @property
    def num_dirs(self):
        return 1 if self._direction == CUDNN_RNN_UNIDIRECTION else 2

    @property
    def input_size(self):
        if not self._input_size:
            raise ValueError("'input_size' is unknown since layer has not been built.")
        return self._input_size

    @property
    def canonical_weight_shapes(self):
        """Shapes of the canonical weights, in the opaque buffer's order (module doc)."""
        if not self._input_size:
            raise RuntimeError("%s.canonical_weight_shapes invoked before input shape is "
                               "known" % type(self).__name__)
        gates = self._num_params_per_layer // 2
        units = self._num_units
        shapes = []
        for layer in range(self._num_layers):
            layer_input = self._input_size if layer == 0 else units * self.num_dirs
            shapes += ([(units, layer_input)] * gates + [(units, units)] * gates) * \
                self.num_dirs
        return shapes

    @property
    def canonical_bias_shapes(self):
        """Shapes of the canonical biases, in the opaque buffer's order."""
        return [[self._num_units]] * self.num_dirs * self._num_params_per_layer * \
            self._num_layers

    def state_shape(self, batch_size):
        """The initial states' shapes: one [num_layers * num_dirs, batch, num_units] each."""
        shape = [self._num_layers * self.num_dirs, batch_size, self._num_units]
        return (shape,) * _state_count(self._rnn_mode)

    @property
    def saveable(self):
        """The layer's canonical saveables (one per compatible-cell tensor), once built."""
        return self._saveable

    def _spec(self, training=False, time_major=True, has_states=False, has_lengths=False):
        return _Spec(self._rnn_mode, self._num_layers, self._num_units,
                     self._direction == CUDNN_RNN_BIDIRECTION, float(self._dropout),
                     training, time_major, has_states, has_lengths)

    def _opaque_size(self):
        return sum(int(torch.Size(s).numel()) for s in
                   self.canonical_weight_shapes + [tuple(b) for b in self.canonical_bias_shapes])

    def _create_saveable(self):
        """The saveables naming each layer's weights as the compatible cells do, under the
        variable scope the layer was built in; added to SAVEABLE_OBJECTS in graphs."""
        scope = get_variable_scope().name
        saveables = []
        index = 0
        for layer in range(self._num_layers):
            for direction in range(self.num_dirs):
                if self.num_dirs == 1:
                    prefix = "rnn/multi_rnn_cell/cell_%d/%s" % (layer, _CELL_NAMES[self._rnn_mode])
                else:
                    prefix = "stack_bidirectional_rnn/cell_%d/bidirectional_rnn/%s/%s" % (
                        layer, ("fw", "bw")[direction], _CELL_NAMES[self._rnn_mode])
                if scope:
                    prefix = scope + "/" + prefix
                for suffix in _CELL_TENSORS[self._rnn_mode]:
                    saveables.append(_CanonicalSaveable(self, prefix + "/" + suffix, index,
                                                        suffix))
                index += 1
        self._saveable = tuple(saveables)
        if context.state.building_graph:
            for saveable in saveables:
                get_default_graph().add_to_collection(GraphKeys.SAVEABLE_OBJECTS, saveable)

    def _canonical_to_opaque(self, weights, biases):
        return array_ops.concat([array_ops.reshape(t, [-1]) for t in weights + biases], 0)

    def build(self, input_shape):
        """Create `opaque_kernel` from canonical weights (kernel_initializer, default
        glorot_uniform per canonical matrix) and biases (default zeros)."""
        if self.built:
            return
        input_shape = TensorShape(input_shape)
        if input_shape.ndims != 3:
            raise ValueError("Expecting input_shape with 3 dims, got %s" % input_shape.ndims)
        if input_shape[-1].value is None:
            raise ValueError("The last dimension of the inputs to `CudnnRNN` should be "
                             "defined. Found `None`.")
        self._input_size = input_shape[-1].value
        if self._input_mode == CUDNN_INPUT_SKIP_MODE or (
                self._input_mode == CUDNN_INPUT_AUTO_MODE and
                self._input_size == self._num_units):
            raise NotImplementedError("tf.contrib.cudnn_rnn with input_mode 'skip_input' is "
                                      "not implemented by tfcompat; use 'linear_input'")
        self.input_spec = layers_base.InputSpec(ndim=3, axes={-1: self._input_size})
        self._set_scope(None)
        dtype = self._plain_dtype
        with variable_scope(self._scope, reuse=self.built):
            kernel_initializer = self._kernel_initializer or \
                init_ops.GlorotUniform(seed=self._seed, dtype=dtype)
            bias_initializer = self._bias_initializer or \
                init_ops.Constant(0.0, dtype=dtype)
            opaque = self._canonical_to_opaque(
                [kernel_initializer(shape, dtype=dtype) for shape in self.canonical_weight_shapes],
                [bias_initializer(shape, dtype=dtype) for shape in self.canonical_bias_shapes])
            self.kernel = get_variable("opaque_kernel", dtype=dtype, initializer=opaque,
                                       validate_shape=False)
        if all(w is not self.kernel for w in self._trainable_weights):
            self._trainable_weights.append(self.kernel)
        if get_variable_scope().reuse is not True:
            self._create_saveable()
        self.built = True

    def call(self, inputs, initial_state=None, sequence_lengths=None, time_major=True,
             training=True):
        """(outputs, states): outputs [time, batch, num_dirs * num_units] (forward and
        backward concatenated; batch-major when `time_major=False`), states a tuple (h, c)
        for LSTM, (h,) otherwise, shaped like `initial_state` (default zeros)."""
        if initial_state is not None and not isinstance(initial_state, tuple):
            raise TypeError("Invalid initial_state type: %s, expecting tuple." %
                            (initial_state,))
        inputs = ops.convert_to_tensor(inputs, dtype=self._plain_dtype)
        states = [ops.convert_to_tensor(s, dtype=self._plain_dtype)
                  for s in initial_state or ()]
        if initial_state is not None and len(states) != _state_count(self._rnn_mode):
            raise ValueError("%s expects %d initial states, got %d" % (
                type(self).__name__, _state_count(self._rnn_mode), len(states)))
        spec = self._spec(bool(training), bool(time_major), bool(states),
                          sequence_lengths is not None)
        results = _cudnn_rnn(spec, inputs, self.kernel, states, sequence_lengths)
        return results[0], tuple(results[1:])


@tf_export(v1=["contrib.cudnn_rnn.CudnnLSTM"])
class CudnnLSTM(_CudnnRNN):
    """cuDNN's LSTM (gates i, f, c, o; no forget bias); states (h, c)."""
    _rnn_mode = CUDNN_LSTM
    _num_params_per_layer = CUDNN_LSTM_PARAMS_PER_LAYER


@tf_export(v1=["contrib.cudnn_rnn.CudnnGRU"])
class CudnnGRU(_CudnnRNN):
    """cuDNN's GRU (gates r, u, c; reset applied after the recurrent matmul); states (h,)."""
    _rnn_mode = CUDNN_GRU
    _num_params_per_layer = CUDNN_GRU_PARAMS_PER_LAYER


@tf_export(v1=["contrib.cudnn_rnn.CudnnRNNTanh"])
class CudnnRNNTanh(_CudnnRNN):
    """cuDNN's simple tanh RNN; states (h,)."""
    _rnn_mode = CUDNN_RNN_TANH
    _num_params_per_layer = CUDNN_RNN_TANH_PARAMS_PER_LAYER


@tf_export(v1=["contrib.cudnn_rnn.CudnnRNNRelu"])
class CudnnRNNRelu(_CudnnRNN):
    """cuDNN's simple relu RNN; states (h,)."""
    _rnn_mode = CUDNN_RNN_RELU
    _num_params_per_layer = CUDNN_RNN_RELU_PARAMS_PER_LAYER


@tf_export(v1=["contrib.cudnn_rnn.CudnnCompatibleLSTMCell"])
class CudnnCompatibleLSTMCell(BasicLSTMCell):
    """An RNNCell with CudnnLSTM's math (TF's LSTMBlockCell with forget_bias 0): variables
    `cudnn_compatible_lstm_cell/kernel` [input + units, 4 * units] (gates i, c, f, o) and
    `bias` [4 * units] (cuDNN's input plus recurrent bias); state LSTMStateTuple(c, h)."""

    def __init__(self, num_units, reuse=None):
        super(CudnnCompatibleLSTMCell, self).__init__(
            num_units, forget_bias=0.0, reuse=reuse, name="cudnn_compatible_lstm_cell")


@tf_export(v1=["contrib.cudnn_rnn.CudnnCompatibleGRUCell"])
class CudnnCompatibleGRUCell(GRUCell):
    """An RNNCell with CudnnGRU's math: the reset gate multiplies the recurrent projection
    of the state (plus its bias) before the candidate's tanh. Variables `gates/kernel`
    [input + units, 2 * units] (r, u), `gates/bias` (ones by default),
    `candidate/input_projection/{kernel,bias}`, `candidate/hidden_projection/{kernel,bias}`."""

    def __init__(self, num_units, reuse=None, kernel_initializer=None):
        super(CudnnCompatibleGRUCell, self).__init__(num_units, reuse=reuse,
                                                     kernel_initializer=kernel_initializer)

    def build(self, inputs_shape):
        depth = TensorShape(inputs_shape)[1].value
        if depth is None:
            raise ValueError("Expected inputs.shape[-1] to be known, saw shape: %s"
                             % (inputs_shape,))
        units = self._num_units
        zeros = init_ops.Zeros(dtype=self.dtype)
        self._gate_kernel = self.add_variable("gates/kernel", shape=[depth + units, 2 * units],
                                              initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable("gates/bias", shape=[2 * units],
                                            initializer=init_ops.Constant(1.0, dtype=self.dtype))
        self._candidate_input_kernel = self.add_variable(
            "candidate/input_projection/kernel", shape=[depth, units],
            initializer=self._kernel_initializer)
        self._candidate_hidden_kernel = self.add_variable(
            "candidate/hidden_projection/kernel", shape=[units, units],
            initializer=self._kernel_initializer)
        self._candidate_input_bias = self.add_variable(
            "candidate/input_projection/bias", shape=[units], initializer=zeros)
        self._candidate_hidden_bias = self.add_variable(
            "candidate/hidden_projection/bias", shape=[units], initializer=zeros)
        self.built = True

    def call(self, inputs, state):
        gates = math_ops.sigmoid(nn_ops.bias_add(
            math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel),
            self._gate_bias))
        r, u = array_ops.split(value=gates, num_or_size_splits=2, axis=1)
        candidate = nn_ops.bias_add(math_ops.matmul(inputs, self._candidate_input_kernel),
                                    self._candidate_input_bias)
        candidate += r * nn_ops.bias_add(math_ops.matmul(state, self._candidate_hidden_kernel),
                                         self._candidate_hidden_bias)
        candidate = self._activation(candidate)
        new_h = (1 - u) * candidate + u * state
        return new_h, new_h
