"""TF1 recurrent networks over RNN cells (TF 1.15's rnn.py): `tf.nn.dynamic_rnn`,
`tf.nn.bidirectional_dynamic_rnn`, `tf.nn.static_rnn`, `tf.nn.static_bidirectional_rnn` and
`tf.contrib.rnn.stack_bidirectional_dynamic_rnn`.

`dynamic_rnn` runs the cell over the time axis in one loop, as TF's while_loop does: eagerly a
Python loop over the steps; in a graph (or a tf.function) the cell is traced once into a
sub-graph and one node runs it per step at execution time, so the time dimension may be
unknown when the graph is built, the graph stays small, and autograd differentiates exactly
the steps that ran. As in TF, rows past their `sequence_length` output zeros and keep their
last state, and no step runs past `max(sequence_length)` (the outputs there are zeros).
Variables get TF's names: "rnn/<cell scope>/kernel", "bidirectional_rnn/fw/...".
`static_rnn` unrolls in Python over a list of inputs, as TF does.
Where we differ: `parallel_iterations` and `swap_memory` change nothing.
"""
import torch

from tfcompat._api import tf_export
from tfcompat.data import structure as nest
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.errors import format_shape
from tfcompat.framework.graph import SymbolicTensor, TracedFunction, get_default_graph
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import as_shape
from tfcompat.ops import array_ops, math_ops
from tfcompat.ops.control_flow_ops import _mark_grad
from tfcompat.layers.rnn_cell_impl import assert_like_rnncell
from tfcompat.variable_scope import variable_scope

_state = context.state


# ---------------------------------------------------------------- shared pieces


def _past_end(time, sequence_length, past_end_value, new_value):
    """Torch: rows b with `time >= sequence_length[b]` take `past_end_value`, the rest
    `new_value` (TF's `_rnn_step` select)."""
    finished = sequence_length <= time
    finished = finished.reshape(finished.shape + (1,) * (new_value.ndim - 1))
    return torch.where(finished, past_end_value, new_value)


@ops.op(graph_name="Select")
def _copy_past_end(time, sequence_length, past_end_value, new_value):
    return _past_end(time, ops.to_torch(sequence_length), ops.to_torch(past_end_value),
                     ops.to_torch(new_value))


def _is_sequence(value):
    return isinstance(value, (list, tuple, dict))


def _check_same_structure(state, new_state):
    """TF's `nest.assert_same_structure` (types checked) of the state and the cell's new
    state: a plain tuple where the cell returns an LSTMStateTuple is a TypeError."""
    if _is_sequence(state) != _is_sequence(new_state):
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst "
                         "structure: %s\n\nSecond structure: %s" % (state, new_state))
    if not _is_sequence(state):
        return
    if type(state) is not type(new_state):
        raise TypeError("The two structures don't have the same sequence type. Input "
                        "structure has type %s, while shallow structure has type %s."
                        % (type(state), type(new_state)))
    keys = sorted(state) if isinstance(state, dict) else range(len(state))
    if len(state) != len(new_state) or (isinstance(state, dict) and
                                        sorted(state) != sorted(new_state)):
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst "
                         "structure: %s\n\nSecond structure: %s" % (state, new_state))
    for key in keys:
        _check_same_structure(state[key], new_state[key])


def _infer_state_dtype(explicit_dtype, state):
    if explicit_dtype is not None:
        return dtypes.as_dtype(explicit_dtype)
    found = [leaf.dtype for leaf in nest.flatten(state)]
    if not found:
        raise ValueError("Unable to infer dtype from empty state.")
    if any(d != found[0] for d in found):
        raise ValueError("State has tensors of different inferred_dtypes. Unable to infer a "
                         "single representative dtype.")
    return found[0]


def _initial_state(cell, initial_state, batch_size, dtype):
    if initial_state is not None:
        return nest.map_structure(ops.convert_to_tensor, initial_state)
    if not dtype:
        raise ValueError("If there is no initial_state, you must give a dtype.")
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def _as_int32_lengths(sequence_length):
    lengths = math_ops.cast(sequence_length, dtypes.int32)
    if lengths.shape.rank not in (None, 1):
        raise ValueError("sequence_length must be a vector of length batch_size, but saw "
                         "shape: %s" % (lengths.shape,))
    return lengths


def _transpose_batch_time(x):
    """Swap the first two axes ([batch, time, ...] <-> [time, batch, ...])."""
    rank = x.shape.rank
    if rank is not None and rank < 2:
        return x
    if rank is None:
        raise ValueError("The rank of the RNN inputs must be known, saw %s" % (x,))
    return array_ops.transpose(x, [1, 0] + list(range(2, rank)), name="transpose")


def _best_effort_input_batch_size(flat_inputs):
    """The static batch size (axis 1 of the time-major inputs), else a tensor."""
    for x in flat_inputs:
        shape = x.shape
        if shape.rank is None:
            continue
        if shape.rank < 2:
            raise ValueError("Expected input tensor %s to have rank at least 2" % (x,))
        if shape[1].value is not None:
            return shape[1].value
    return array_ops.shape(flat_inputs[0])[1]


# ---------------------------------------------------------------- the time loop


def _check_output_count(count, output_specs):
    if count != len(output_specs):
        raise ValueError("The cell returned %d output tensors, but its output_size has %d"
                         % (count, len(output_specs)))


def _run_time_loop(step, flat_inputs, flat_state, sequence_length, output_specs):
    """Run `step` over axis 0 of `flat_inputs` (torch tensors) from `flat_state`.

    `step(inputs_t, state) -> (outputs_t, new_state)` works on lists of torch tensors;
    `output_specs` gives (shape after batch, torch dtype) of each output, used when there
    are no steps. Returns (outputs stacked along time, final state).
    """
    time_steps, batch = flat_inputs[0].shape[0], flat_inputs[0].shape[1]
    steps = time_steps
    if sequence_length is not None:
        if tuple(sequence_length.shape) != (batch,):
            raise errors.InvalidArgumentError(
                "Expected shape for Tensor sequence_length:0 is [%d] but saw shape: %s"
                % (batch, format_shape(sequence_length.shape)))
        if time_steps and batch:
            steps = min(time_steps, max(1, int(sequence_length.max())))
    columns = [x.unbind(0) for x in flat_inputs]
    state = list(flat_state)
    per_step = []
    for time in range(steps):
        outputs, new_state = step([column[time] for column in columns], state)
        _check_output_count(len(outputs), output_specs)
        if sequence_length is not None:
            outputs = [_past_end(time, sequence_length, output.new_zeros(()), output)
                       for output in outputs]
            new_state = [_past_end(time, sequence_length, old, new)
                         for old, new in zip(state, new_state)]
        per_step.append(outputs)
        state = list(new_state)
    stacked = []
    for i, (size, dtype) in enumerate(output_specs):
        if not per_step:
            stacked.append(torch.zeros((time_steps, batch) + size, dtype=dtype,
                                       device=flat_inputs[0].device))
            continue
        values = torch.stack([outputs[i] for outputs in per_step])
        if steps < time_steps:
            values = torch.cat([values, values.new_zeros((time_steps - steps,) +
                                                         values.shape[1:])])
        stacked.append(values)
    return stacked, state


def _eager_loop(cell, inputs, state, sequence_length, output_specs):
    def step(inputs_t, state_t):
        output, new_state = cell(nest.pack_as(inputs, [EagerTensor(x) for x in inputs_t]),
                                 nest.pack_as(state, [EagerTensor(s) for s in state_t]))
        _check_same_structure(state, new_state)
        return ([ops.to_torch(o) for o in nest.flatten(output)],
                [ops.to_torch(s) for s in nest.flatten(new_state)])
    lengths = None if sequence_length is None else ops.to_torch(sequence_length)
    outputs, final = _run_time_loop(step, [ops.to_torch(x) for x in nest.flatten(inputs)],
                                    [ops.to_torch(s) for s in nest.flatten(state)], lengths,
                                    output_specs)
    return [EagerTensor(o) for o in outputs], nest.pack_as(state, [EagerTensor(s)
                                                                  for s in final])


def _stand_in(fake, dtype, static_shape):
    """A symbolic tensor used only to trace the step on (`fake` gives its shape)."""
    stand_in = SymbolicTensor.__new__(SymbolicTensor)
    stand_in._fake = fake
    stand_in._dtype = dtype
    stand_in._static = static_shape
    return stand_in


def _step_arguments(graph, flat_inputs, flat_state):
    """Stand-ins for one step's inputs ([batch, ...]) and state, all sharing the inputs'
    batch size, so that unknown batch sizes of inputs and state fed separately (two
    unrelated symbols while tracing) are known to be one, as they are at run time."""
    with graph._fake_mode:
        rows = [_stand_in(x._fake[0], x.dtype, x.shape[1:]) for x in flat_inputs]
    batch_fake = rows[0]._fake.shape[0]
    batch_static = rows[0].shape[:1]
    states = []
    for tensor in flat_state:
        if tensor.shape.rank is None or tensor.shape.rank == 0 or \
                not batch_static.is_compatible_with(tensor.shape[:1]):
            states.append(tensor)
            continue
        with graph._fake_mode:
            fake = torch.empty((batch_fake,) + tuple(tensor._fake.shape[1:]),
                               dtype=tensor._fake.dtype)
        states.append(_stand_in(fake, tensor.dtype,
                                tensor.shape.merge_with(batch_static.concatenate(
                                    tensor.shape[1:]))))
    return rows + states


def _graph_loop(cell, inputs, state, sequence_length, output_specs):
    """The cell traced once into a sub-graph; one "While" node runs it per step."""
    graph = get_default_graph()
    flat_inputs, flat_state = nest.flatten(inputs), nest.flatten(state)
    n_inputs, n_state = len(flat_inputs), len(flat_state)

    def traced_step(*args):
        output, new_state = cell(nest.pack_as(inputs, list(args[:n_inputs])),
                                 nest.pack_as(state, list(args[n_inputs:])))
        _check_same_structure(state, new_state)
        return [ops.convert_to_tensor(t) for t in nest.flatten(output) +
                nest.flatten(new_state)]

    with graph.name_scope("while"):
        traced = TracedFunction(graph, traced_step,
                                _step_arguments(graph, flat_inputs, flat_state))
    n_outputs = len(traced.flat_outputs) - n_state
    _check_output_count(n_outputs, output_specs)
    state_args = traced.args[n_inputs:]
    for old, new in zip(state_args, traced.flat_outputs[n_outputs:]):
        if old.dtype != new.dtype:
            raise TypeError("The cell changed the dtype of a state tensor from %s to %s"
                            % (old.dtype.name, new.dtype.name))
        if not old.shape.is_compatible_with(new.shape):
            raise ValueError("Input tensor enters the loop with shape %s, but has shape %s "
                             "after one iteration: the cell must return a state shaped like "
                             "the one it is given" % (old.shape, new.shape))
    lengths = [] if sequence_length is None else [sequence_length]
    n_lengths = len(lengths)
    n_fixed = n_inputs + n_state + n_lengths

    def run_dynamic_rnn(*values):
        captured = values[n_fixed:]

        def step(inputs_t, state_t):
            results = traced(list(inputs_t) + list(state_t), captured)
            return results[:n_outputs], results[n_outputs:]
        outputs, final = _run_time_loop(
            step, values[:n_inputs], values[n_inputs:n_inputs + n_state],
            values[n_inputs + n_state] if n_lengths else None, output_specs)
        return tuple(outputs) + tuple(final)

    with graph._fake_mode:
        time_steps = flat_inputs[0]._fake.shape[0]
        fakes = tuple(torch.empty((time_steps,) + tuple(t._fake.shape), dtype=t._fake.dtype)
                      for t in traced.flat_outputs[:n_outputs])
    fakes += tuple(arg._fake for arg in state_args)
    results = graph.record_custom(run_dynamic_rnn, "While", flat_inputs + flat_state + lengths +
                                  traced.captured, fakes, "while")
    _mark_grad(results, [traced])
    static_time = flat_inputs[0].shape[:1]
    for tensor, traced_tensor in zip(results[:n_outputs], traced.flat_outputs):
        tensor._static = static_time.concatenate(traced_tensor.shape)
    for tensor, arg in zip(results[n_outputs:], state_args):
        tensor._static = arg.shape
    return list(results[:n_outputs]), nest.pack_as(state, list(results[n_outputs:]))


def _dynamic_rnn_loop(cell, inputs, state, sequence_length, dtype):
    """Time-major `inputs` -> (time-major outputs shaped like cell.output_size, state)."""
    flat_inputs = nest.flatten(inputs)
    shapes = [x.shape.with_rank_at_least(3) for x in flat_inputs]
    for shape in shapes:
        if not shape[2:].is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape "
                             "inference, but saw value None.")
        if shape[0].value != shapes[0][0].value:
            raise ValueError("Time steps is not the same for all the elements in the input "
                             "in a batch.")
        if shape[1].value != shapes[0][1].value:
            raise ValueError("Batch_size is not the same for all the elements in the input.")
    output_dtype = _infer_state_dtype(dtype, state).torch_dtype
    output_specs = [(tuple(as_shape(size).as_list()), output_dtype)
                    for size in nest.flatten(cell.output_size)]
    loop = _graph_loop if _state.building_graph else _eager_loop
    flat_outputs, final_state = loop(cell, inputs, state, sequence_length, output_specs)
    return nest.pack_as(cell.output_size, flat_outputs), final_state


# ---------------------------------------------------------------- public functions


@tf_export(v1=["nn.dynamic_rnn"])
def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """Run `cell` over the time axis of `inputs` ([batch, time, ...], or [time, batch, ...]
    when `time_major`; nested structures allowed). Returns (outputs, final state)."""
    assert_like_rnncell("cell", cell)
    with variable_scope(scope or "rnn"):
        flat_inputs = [ops.convert_to_tensor(x) for x in nest.flatten(inputs)]
        if not time_major:
            flat_inputs = [_transpose_batch_time(x) for x in flat_inputs]
        if sequence_length is not None:
            sequence_length = array_ops.identity(_as_int32_lengths(sequence_length),
                                                 name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_inputs)
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if _state.building_graph and sequence_length is not None and \
                sequence_length.shape.rank == 1 and isinstance(batch_size, int) and \
                not sequence_length.shape.is_compatible_with([batch_size]):
            raise ValueError("sequence_length must be a vector of length batch_size (%d), "
                             "but saw shape: %s" % (batch_size, sequence_length.shape))
        inputs = nest.pack_as(inputs, flat_inputs)
        outputs, final_state = _dynamic_rnn_loop(cell, inputs, state, sequence_length, dtype)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


@tf_export(v1=["nn.bidirectional_dynamic_rnn"])
def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):
    """A forward and a backward `dynamic_rnn` in scopes "<scope>/fw" and "<scope>/bw"; the
    backward one reads each sequence reversed up to its length. Returns
    ((output_fw, output_bw), (state_fw, state_bw)), both outputs in input order."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)

    def reverse(x):
        if sequence_length is None:
            return array_ops.reverse(x, axis=[time_axis])
        return array_ops.reverse_sequence(x, seq_lengths=sequence_length, seq_axis=time_axis,
                                          batch_axis=batch_axis)

    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(
                cell_fw, inputs, sequence_length=sequence_length,
                initial_state=initial_state_fw, dtype=dtype, time_major=time_major,
                scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            with ops.name_scope("ReverseV2"):
                inputs_reversed = nest.map_structure(reverse, inputs)
            reversed_output_bw, state_bw = dynamic_rnn(
                cell_bw, inputs_reversed, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype, time_major=time_major,
                scope=bw_scope)
    output_bw = nest.map_structure(reverse, reversed_output_bw)
    return (output_fw, output_bw), (state_fw, state_bw)


@tf_export(v1=["nn.static_rnn", "contrib.rnn.static_rnn"])
def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
               scope=None):
    """The cell applied to each element of the list `inputs` in turn (unrolled in Python,
    variables shared). Returns (list of outputs, final state)."""
    assert_like_rnncell("cell", cell)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    outputs = []
    with variable_scope(scope or "rnn") as varscope:
        inputs = [nest.map_structure(ops.convert_to_tensor, x) for x in inputs]
        first_input = nest.flatten(inputs[0])[0]
        if first_input.shape.rank != 1:
            fixed_batch_size = first_input.shape.with_rank_at_least(2)[0]
            for x in nest.flatten(inputs):
                shape = x.shape.with_rank_at_least(2)
                fixed_batch_size = fixed_batch_size.merge_with(shape[0])
                for i, size in enumerate(shape[1:].dims):
                    if size.value is None:
                        raise ValueError("Input size (dimension %d of inputs) must be "
                                         "accessible via shape inference, but saw value "
                                         "None." % i)
        else:
            fixed_batch_size = first_input.shape.with_rank_at_least(1)[0]
        batch_size = fixed_batch_size.value or array_ops.shape(first_input)[0]
        state = _initial_state(cell, initial_state, batch_size, dtype)
        if sequence_length is not None:
            sequence_length = _as_int32_lengths(sequence_length)
            output_dtype = _infer_state_dtype(dtype, state)
            zero_output = nest.map_structure(
                lambda size: array_ops.zeros([batch_size] + as_shape(size).as_list(),
                                             dtype=output_dtype), cell.output_size)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()
            output, new_state = cell(input_, state)
            if sequence_length is not None:
                _check_same_structure(state, new_state)
                output = nest.pack_as(output, [
                    _copy_past_end(time, sequence_length, zero, new)
                    for zero, new in zip(nest.flatten(zero_output), nest.flatten(output))])
                new_state = nest.pack_as(new_state, [
                    _copy_past_end(time, sequence_length, old, new)
                    for old, new in zip(nest.flatten(state), nest.flatten(new_state))])
            outputs.append(output)
            state = new_state
        return outputs, state


def _reverse_seq(input_seq, lengths):
    """A list of time steps reversed, each sequence only up to its length when given."""
    if lengths is None:
        return list(reversed(input_seq))
    lengths = math_ops.cast(lengths, dtypes.int64)
    columns = zip(*[nest.flatten(x) for x in input_seq])
    reversed_columns = [array_ops.unstack(array_ops.reverse_sequence(
        array_ops.stack(list(column)), lengths, seq_axis=0, batch_axis=1))
        for column in columns]
    return [nest.pack_as(x, [column[t] for column in reversed_columns])
            for t, x in enumerate(input_seq)]


@tf_export(v1=["nn.static_bidirectional_rnn", "contrib.rnn.static_bidirectional_rnn"])
def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """Forward and backward `static_rnn` ("<scope>/fw", "<scope>/bw"). Returns (outputs,
    state_fw, state_bw), each output the forward and backward outputs concatenated."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                             sequence_length, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            reversed_output_bw, state_bw = static_rnn(cell_bw, reversed_inputs,
                                                      initial_state_bw, dtype,
                                                      sequence_length, scope=bw_scope)
    output_bw = _reverse_seq(reversed_output_bw, sequence_length)
    joined = [array_ops.concat([fw, bw], 1)
              for fw, bw in zip(nest.flatten(output_fw), nest.flatten(output_bw))]
    return nest.pack_as(output_fw, joined), state_fw, state_bw


@tf_export(v1=["contrib.rnn.stack_bidirectional_dynamic_rnn"])
def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None,
                                    initial_states_bw=None, dtype=None, sequence_length=None,
                                    parallel_iterations=None, time_major=False, scope=None,
                                    swap_memory=False):
    """Layers of `bidirectional_dynamic_rnn` ("<scope>/cell_<i>"), each fed the previous
    layer's forward and backward outputs concatenated. Returns (outputs, fw states, bw
    states)."""
    if not cells_fw:
        raise ValueError("Must specify at least one fw cell for BidirectionalRNN.")
    if not cells_bw:
        raise ValueError("Must specify at least one bw cell for BidirectionalRNN.")
    if not isinstance(cells_fw, list):
        raise ValueError("cells_fw must be a list of RNNCells (one per layer).")
    if not isinstance(cells_bw, list):
        raise ValueError("cells_bw must be a list of RNNCells (one per layer).")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    for states, name in ((initial_states_fw, "initial_states_fw"),
                         (initial_states_bw, "initial_states_bw")):
        if states is not None and (not isinstance(states, list) or
                                   len(states) != len(cells_fw)):
            raise ValueError("%s must be a list of state tensors (one per layer)." % name)
    states_fw, states_bw = [], []
    layer_input = inputs
    with variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            with variable_scope("cell_%d" % i):
                outputs, (state_fw, state_bw) = bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, layer_input,
                    initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None,
                    sequence_length=sequence_length, dtype=dtype, time_major=time_major)
                layer_input = array_ops.concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return layer_input, tuple(states_fw), tuple(states_bw)
