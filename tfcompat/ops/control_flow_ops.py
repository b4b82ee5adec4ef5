"""Control flow: `tf.cond`, `tf.case`, `tf.while_loop`, `tf.map_fn`, `tf.scan`, `tf.foldl/foldr`.

Eager: plain Python control flow over eager tensors.
Graph (a tf.Graph or a tf.function being traced): each branch / loop body is traced once into
a sub-graph (its ops named in the op's scope, "cond/", "while/", ... as in TF1), and one node
runs the chosen branch or the loop at execution time in Python over torch tensors. Autograd
therefore differentiates exactly what ran, so gradients through cond and while_loop are
correct whatever the initial loop values are (torch's `while_loop` higher-order op gives wrong
gradients when the initial carry does not require grad). As in TF, a cond branch returning
an operation gives the predicate's value in its place, run after the operation.
Under torch.export (saving a function, `tfcompat export`) the cond and while nodes call
torch's `cond` / `while_loop` operators over their traced sub-graphs instead, so the
program keeps the branching and the loop rather than the path its example inputs took.
Where we differ: `parallel_iterations`, `swap_memory` and `back_prop=False` change nothing;
`map_fn` runs its elements one after another; branches returning None make `cond` return None
(TF 2's cond; TF 1's graph cond raises ValueError).
"""
import torch
from torch._guards import detect_fake_mode
from torch._higher_order_ops.cond import cond_op
from torch._higher_order_ops.while_loop import while_loop_op
from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing
from torch.multiprocessing.reductions import StorageWeakRef

from tfcompat._api import tf_export
from tfcompat.framework import context, errors, ops
from tfcompat.framework.graph import (Operation, SymbolicTensor, TracedFunction, _flatten,
                                      _is_stateful, get_default_graph)
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops.tensor_array_ops import TensorArray
from tfcompat.ops.array_ops import identity
from tfcompat.framework.constant_op import constant

_state = context.state


def _pack_as(structure, flat):
    """Rebuild `structure` with its leaves taken in order from `flat`."""
    return _pack(structure, iter(flat))


def _pack(s, leaves):
    # module-level recursion: a self-calling closure would keep the leaves alive in a cycle
    if isinstance(s, (list, tuple)):
        items = [_pack(v, leaves) for v in s]
        return type(s)(*items) if hasattr(s, "_fields") else type(s)(items)
    if isinstance(s, dict):
        built = {k: _pack(s[k], leaves) for k in sorted(s)}
        return type(s)((k, built[k]) for k in s)
    return next(leaves)


def _as_tensors(structure):
    """Leaves converted to tensors (Python numbers, numpy, variables -> tensors)."""
    flat = [ops.convert_to_tensor(leaf) for leaf in _flatten(structure)]
    return _pack_as(structure, flat)


def _is_symbolic(value):
    return isinstance(value, SymbolicTensor)


def _wrap_flat(values):
    return [EagerTensor(v) if isinstance(v, torch.Tensor) else v for v in values]


def _mark_grad(results, traced):
    """A control-flow node whose sub-graphs take gradients needs grad-enabled inputs."""
    operation = results[0].op if results else None
    if operation is not None and any(t.needs_grad for t in traced):
        operation._node.meta["needs_grad"] = True


# ---------------------------------------------------------------- grouping


@tf_export("no_op")
def no_op(name=None):
    """`tf.no_op`: an op that does nothing (eager: None)."""
    if not _state.building_graph:
        return None
    return get_default_graph().record_custom(_nothing, "NoOp", [], None, name, stateful=False)


def _nothing(*unused):
    return None


def _as_operations(values):
    found = []
    for value in _flatten(list(values)):
        if value is None:
            continue
        if hasattr(value, "_as_graph_element") and value._as_graph_element() is not None:
            value = value._as_graph_element()
        found.append(value.op if isinstance(value, SymbolicTensor) else value)
    return found


@tf_export("group")
def group(*inputs, **kwargs):
    """`tf.group`: one op that runs after all `inputs` (eager: they already ran; None)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("Unknown keyword arguments: %s" % ", ".join(kwargs))
    if not _state.building_graph:
        return None
    with get_default_graph().control_dependencies(_as_operations(inputs)):
        return no_op(name=name or "group_deps")


@tf_export("tuple")
def tuple_(tensors, control_inputs=None, name=None):
    """`tf.tuple`: the tensors, each available only after all of them (and control_inputs)."""
    if not _state.building_graph:
        return list(tensors)
    deps = _as_operations(tensors) + _as_operations(control_inputs or [])
    with get_default_graph().control_dependencies(deps):
        return [None if t is None else identity(t) for t in tensors]


# ---------------------------------------------------------------- cond / case


@tf_export("cond")
def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """`tf.cond`: the result of `true_fn()` if `pred` else `false_fn()`."""
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("true_fn and false_fn must be callable")
    if not _state.building_graph:
        return true_fn() if bool(pred) else false_fn()
    graph = get_default_graph()
    pred = ops.convert_to_tensor(pred)
    if pred.shape.rank not in (0, None) and pred.shape.num_elements() != 1:
        raise ValueError("Shape must be rank 0 but is rank %d for 'cond' (pred %s)"
                         % (pred.shape.rank, pred.name))
    outer_operations = []
    with graph.name_scope(name or "cond"):
        branches = [TracedFunction(graph, lambda: _branch_result(fn(), taken, outer_operations),
                                   []) for fn, taken in ((true_fn, True), (false_fn, False))]
    _check_same_structure(branches[0], branches[1], "true_fn", "false_fn")
    split = [len(b.captured) for b in branches]

    def run_branch(index, captured):
        start = sum(split[:index])
        return branches[index]([], captured[start:start + split[index]])

    def run_cond(pred_value, *captured):
        if torch.compiler.is_exporting():
            return _exported_cond(pred_value, run_branch, captured)
        return run_branch(0 if bool(pred_value) else 1, captured)

    with graph.control_dependencies(outer_operations):
        return _record_branching(graph, run_cond, "If", [pred] + branches[0].captured +
                                 branches[1].captured, branches, name)


def _branch_result(result, taken, outer_operations):
    """A cond branch's result with tensors for its leaves. As TF's cond does, an Operation
    becomes the predicate's value in that branch (`taken`), available once the operation
    ran: a branch runs all of its ops, and operations of enclosing graphs become control
    inputs of the cond (appended to `outer_operations`). None leaves stay None (a branch
    returning None makes the cond return None, as TF 2's cond does)."""
    graph = get_default_graph()

    def leaf(value):
        if value is None:
            return None
        if isinstance(value, Operation):
            if value.graph is not graph:
                outer_operations.append(value)
            return constant(taken)
        return ops.convert_to_tensor(value)
    return _pack_as(result, [leaf(value) for value in _flatten(result)])


def _check_same_structure(a, b, a_name, b_name):
    flat_a, flat_b = a.flat_outputs, b.flat_outputs
    if len(flat_a) != len(flat_b):
        raise ValueError("%s and %s must have the same number of results: %d vs %d"
                         % (a_name, b_name, len(flat_a), len(flat_b)))
    for x, y in zip(flat_a, flat_b):
        if x.dtype != y.dtype:
            raise TypeError("%s and %s results have different dtypes: %s vs %s"
                            % (a_name, b_name, x.dtype.name, y.dtype.name))


def _stateful(*traced_functions):
    """Whether a control-flow node over these traced functions is stateful (TF's If/While
    vs StatelessIf/StatelessWhile): whether any of their graphs holds a stateful node. A
    tf.function drops a stateless one whose results are unused."""
    return any(_is_stateful(node) for traced in traced_functions
               for node in traced.graph._fx.nodes)


def _record_branching(graph, fn, op_type, inputs, branches, name):
    first = branches[0]
    fakes = tuple(t._fake for t in first.flat_outputs)
    results = graph.record_custom(fn, op_type, inputs, fakes, name,
                                  stateful=_stateful(*branches))
    _mark_grad(results, branches)
    for i, tensor in enumerate(results):
        shape = first.flat_outputs[i].shape
        for other in branches[1:]:
            shape = shape.most_specific_compatible_shape(other.flat_outputs[i].shape)
        tensor._static = shape
    it = iter(results)
    return _pack_as(first.outputs, [None if leaf is None else next(it)
                                    for leaf in _flatten(first.outputs)])


@tf_export("case")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """`tf.case`: the fn of the first true predicate (all of them checked if `exclusive`)."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else \
        list(pred_fn_pairs)
    if not pairs:
        if default is None:
            raise ValueError("tf.case needs at least one (pred, fn) pair or a default")
        return default()
    if default is None:
        default = pairs[-1][1]
        pairs, last_pred = pairs[:-1], pairs[-1][0]
    else:
        last_pred = None
    if not _state.building_graph:
        chosen = [fn for pred, fn in pairs if bool(pred)]
        if exclusive and len(chosen) > 1:
            raise errors.InvalidArgumentError("tf.case: more than one condition is true with "
                                              "exclusive=True")
        return chosen[0]() if chosen else default()
    result = default
    for pred, fn in reversed(pairs):
        result = (lambda p, f, rest: lambda: cond(p, f, rest))(pred, fn, result)
    del last_pred
    return result()


# ---------------------------------------------------------------- while_loop


@tf_export(v2=["while_loop"])
def while_loop_v2(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
                  back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """TF 2's `tf.while_loop`: the result has the structure of `loop_vars` (a single loop
    variable given in a list comes back in a list, where TF1's unwraps it)."""
    return while_loop(cond, body, loop_vars, shape_invariants, parallel_iterations,
                      back_prop, swap_memory, name, maximum_iterations,
                      return_same_structure=True)


@tf_export(v1=["while_loop"])
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, name=None, maximum_iterations=None,
               return_same_structure=False):
    """`tf.while_loop`: repeat `body` while `cond` holds; returns the final loop vars.

    As in TF1, a single loop variable given in a list comes back unwrapped unless
    `return_same_structure`.
    """
    if not callable(cond) or not callable(body):
        raise TypeError("cond and body must be callable")
    packed = isinstance(loop_vars, (list, tuple)) and not hasattr(loop_vars, "_fields")
    items = list(loop_vars) if packed else [loop_vars]

    def call(fn, values):
        return fn(*values) if packed else fn(values[0])

    def normalize(result):
        if not packed:
            return [result]
        if not isinstance(result, (list, tuple)):
            result = [result]
        if len(result) != len(items):
            raise ValueError("body must return as many loop variables as loop_vars has: "
                             "%d vs %d" % (len(result), len(items)))
        return list(result)

    if not _state.building_graph:
        values = [_eager_loop_value(v) for v in items]
        count = 0
        limit = None if maximum_iterations is None else int(maximum_iterations)
        while (limit is None or count < limit) and bool(call(cond, values)):
            values = normalize(call(body, values))
            count += 1
        return _loop_result(values, packed, return_same_structure, items)

    graph = get_default_graph()
    arrays = {i: leaf for i, leaf in enumerate(_flatten(items)) if isinstance(leaf, TensorArray)}
    invariants = None
    if shape_invariants is not None:
        inv = shape_invariants if packed else [shape_invariants]
        invariants = [TensorShape(s) for s in _flatten(list(inv))]
    learnt = {}
    for _ in range(2):  # again when the body gave a TensorArray its first element shape
        structure = _as_tensors(_with_array_storages(items, learnt))
        flat_init = _flatten(structure)
        shapes = invariants or [TensorShape([None]).concatenate(learnt.get(i, t.shape[1:]))
                                if i in arrays else t.shape for i, t in enumerate(flat_init)]
        body_arrays = []

        def as_struct(flat_args):
            return _pack_as(structure, [arrays[i]._from_loop_storage(a) if i in arrays else a
                                        for i, a in enumerate(flat_args)])

        def traced_body(*args):
            result = normalize(call(body, as_struct(args)))
            body_arrays[:] = [leaf for leaf in _flatten(result) if isinstance(leaf, TensorArray)]
            return _as_tensors(_with_array_storages(result, learnt))

        with graph.name_scope(name or "while"):
            cond_fn = TracedFunction(
                graph, lambda *a: ops.convert_to_tensor(call(cond, as_struct(a))), flat_init,
                shapes)
            body_fn = TracedFunction(graph, traced_body, flat_init, shapes)
        element_shapes = {i: out.element_shape for i, out in zip(sorted(arrays), body_arrays)}
        unseen = {i: shape for i, shape in element_shapes.items()
                  if arrays[i]._storage is None and shape.rank is not None and
                  shape.as_list() != flat_init[i].shape[1:].as_list()}
        if not unseen:
            break
        learnt.update(unseen)
    for init, out, shape in zip(flat_init, body_fn.flat_outputs, shapes):
        if init.dtype != out.dtype:
            raise TypeError("body changed the dtype of a loop variable from %s to %s"
                            % (init.dtype.name, out.dtype.name))
        if not out.shape.is_compatible_with(shape):
            raise ValueError("body changed the shape of a loop variable from %s to %s; give "
                             "shape_invariants for variables whose shape changes"
                             % (init.shape, out.shape))
    limit = None if maximum_iterations is None else ops.convert_to_tensor(maximum_iterations)
    n_vars, n_cond = len(flat_init), len(cond_fn.captured)
    has_limit = limit is not None

    def run_while(*inputs):
        values = list(inputs[:n_vars])
        offset = n_vars + (1 if has_limit else 0)
        cond_caps = inputs[offset:offset + n_cond]
        body_caps = inputs[offset + n_cond:]
        if torch.compiler.is_exporting():
            return _exported_while(cond_fn, body_fn, values, cond_caps, body_caps,
                                   inputs[n_vars] if has_limit else None)
        max_iter = int(inputs[n_vars]) if has_limit else None
        count = 0
        while (max_iter is None or count < max_iter) and bool(cond_fn(values, cond_caps)[0]):
            values = list(body_fn(values, body_caps))
            count += 1
        return tuple(values)

    inputs = list(flat_init) + ([limit] if has_limit else []) + cond_fn.captured + \
        body_fn.captured
    fakes = tuple(t._fake for t in body_fn.args)
    results = graph.record_custom(run_while, "While", inputs, fakes, name,
                                  stateful=_stateful(cond_fn, body_fn))
    _mark_grad(results, [cond_fn, body_fn])
    for tensor, placeholder in zip(results, body_fn.args):
        tensor._static = placeholder.shape
    results = [arrays[i]._from_loop_storage(r, element_shapes.get(i)) if i in arrays else r
               for i, r in enumerate(results)]
    return _loop_result(_pack_as(structure, results), packed, return_same_structure, items)


def _unaliased(results, inputs):
    """`results` with those sharing storage with an input or an earlier result copied:
    torch's control-flow operators refuse branch and body results aliasing their
    operands or each other."""
    seen = {StorageWeakRef(value.untyped_storage()) for value in inputs
            if isinstance(value, torch.Tensor)}
    unaliased = []
    for result in results:
        storage = StorageWeakRef(result.untyped_storage())
        unaliased.append(result.clone() if storage in seen else result)
        seen.add(storage)
    return tuple(unaliased)


def _distinct(values):
    """(the distinct tensors of `values`, each value's position among them): torch's
    control-flow operators name their subgraphs' inputs after their operands, so a tensor
    given twice is passed once."""
    distinct, positions = [], []
    for value in values:
        position = next((i for i, seen in enumerate(distinct) if seen is value), None)
        if position is None:
            position = len(distinct)
            distinct.append(value)
        positions.append(position)
    return distinct, positions


def _exported_cond(pred, run_branch, captured):
    """A cond node's run under torch.export: torch's `cond` operator over both branches
    (operands: the branches' captured values), so the program keeps the branching."""
    operands, positions = _distinct(captured)

    def branch(index):
        return lambda *args: _unaliased(run_branch(index, [args[p] for p in positions]), args)
    return cond_op(pred.reshape(()).to(torch.bool), branch(0), branch(1), tuple(operands))


def _exported_while(cond_fn, body_fn, values, cond_captured, body_captured, limit):
    """A while node's run under torch.export: torch's `while_loop` operator over the traced
    cond and body (their captured values passed as its additional inputs), with an
    iteration counter carried when `maximum_iterations` (`limit`) bounds the loop."""
    n_vars, n_cond, bounded = len(values), len(cond_captured), limit is not None
    values = _allocated_before_loop(lambda v: body_fn(v, body_captured), values)
    additional, positions = _distinct(list(cond_captured) + list(body_captured) +
                                      ([limit] if bounded else []))
    carried = [value.clone() if any(value is other for other in values[:i] + additional)
               else value for i, value in enumerate(values)]
    carried += [torch.zeros((), dtype=limit.dtype)] if bounded else []
    n_carried = len(carried)

    def split(args):
        """The loop variables, the cond's and body's captured values, the counter and
        the limit, from the operator's flat arguments."""
        captured = [args[n_carried + p] for p in positions]
        return (list(args[:n_vars]), captured[:n_cond],
                captured[n_cond:n_cond + len(body_captured)],
                args[n_vars] if bounded else None, captured[-1] if bounded else None)

    def loop_cond(*args):
        variables, cond_values, _, count, last = split(args)
        go = cond_fn(variables, cond_values)[0].reshape(()).to(torch.bool)
        return torch.logical_and(go, count < last) if bounded else go

    def loop_body(*args):
        variables, _, body_values, count, _ = split(args)
        results = _unaliased(body_fn(variables, body_values), args)
        return results + ((count + 1,) if bounded else ())

    return tuple(while_loop_op(loop_cond, loop_body, tuple(carried),
                               tuple(additional))[:n_vars])


def _allocated_before_loop(run_body, values):
    """`values` with the empty storages of TensorArrays the loop fills (allocated by their
    first write, their element shape unknown before it: see `TensorArray._loop_storage`)
    replaced by zeros shaped as the body's results: torch's `while_loop` needs each carried
    value to keep its shape. The body's result shapes come from running it once, not
    recorded, on fake values of unknown contents (as the traced body sees them)."""
    empty = [i for i, value in enumerate(values)
             if any(type(size) is int and size == 0 for size in value.shape)]
    if not empty:
        return values
    with disable_proxy_modes_tracing(), \
            detect_fake_mode(values).shape_env.ignore_fresh_unbacked_symbols():
        shapes = [tuple(result.shape) for result in
                  run_body([torch.empty(value.shape, dtype=value.dtype, device=value.device)
                            for value in values])]
    return [value.new_zeros(shapes[i]) if i in empty else value
            for i, value in enumerate(values)]


def _with_array_storages(structure, learnt_shapes):
    """`structure` with its TensorArrays replaced by the storage tensors a loop carries
    (`learnt_shapes`: element shapes, by flat position, of arrays that had none)."""
    return _pack_as(structure, [
        leaf._loop_storage(learnt_shapes.get(i)) if isinstance(leaf, TensorArray) else leaf
        for i, leaf in enumerate(_flatten(structure))])


def _eager_loop_value(value):
    return value if isinstance(value, (list, tuple, dict, TensorArray)) else \
        (value if ops.is_tensor(value) else ops.convert_to_tensor(value))


def _loop_result(values, packed, return_same_structure, items):
    if not packed:
        return values[0]
    if len(values) == 1 and not return_same_structure:
        return values[0]
    return type(items)(values) if isinstance(items, tuple) else list(values)


# ---------------------------------------------------------------- map_fn / scan / fold


def _unstack_eager(value):
    return [EagerTensor(row) for row in ops.to_torch(value)]


def _stack_structure(results):
    flat_rows = [_flatten(r) for r in results]
    stacked = [EagerTensor(torch.stack([ops.to_torch(row[i]) for row in flat_rows]))
               for i in range(len(flat_rows[0]))]
    return _pack_as(results[0], stacked)


@tf_export("map_fn")
def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """`tf.map_fn`: apply `fn` to each element along axis 0 of `elems` and stack the results."""
    elems_struct = _as_tensors(elems)
    flat_elems = _flatten(elems_struct)
    if not flat_elems:
        raise ValueError("elems must hold at least one tensor")
    if not _state.building_graph:
        rows = list(zip(*[_unstack_eager(e) for e in flat_elems]))
        if not rows:
            raise ValueError("map_fn over an empty first dimension needs graph mode's "
                             "fn_output_signature, which tfcompat does not support")
        results = [_as_tensors(fn(_pack_as(elems_struct, list(r)))) for r in rows]
        return _stack_structure(results)
    graph = get_default_graph()
    element_shapes = [e.shape[1:] for e in flat_elems]
    with graph.name_scope(name or "map"):
        traced = TracedFunction(
            graph, lambda *a: _as_tensors(fn(_pack_as(elems_struct, list(a)))),
            [_row_like(graph, e) for e in flat_elems], element_shapes)
    n = len(flat_elems)

    def run_map(*inputs):
        columns, captured = inputs[:n], inputs[n:]
        outs = [traced(list(row), captured) for row in zip(*[c.unbind(0) for c in columns])]
        return tuple(torch.stack([o[i] for o in outs]) for i in range(len(traced.flat_outputs)))

    rows = _row_count(graph, flat_elems[0])
    with graph._fake_mode:
        fakes = tuple(torch.empty((rows,) + tuple(t._fake.shape), dtype=t._fake.dtype)
                      for t in traced.flat_outputs)
    results = graph.record_custom(run_map, "MapFn", flat_elems + traced.captured, fakes, name,
                                  stateful=_stateful(traced))
    _mark_grad(results, [traced])
    first = flat_elems[0].shape[:1]
    for tensor, out in zip(results, traced.flat_outputs):
        tensor._static = first.concatenate(out.shape)
    return _pack_as(traced.outputs, list(results))


def _row_count(graph, tensor):
    """The fake size of `tensor`'s first dim (an unknown dim where its rank is unknown)."""
    if tensor.shape.rank is None:
        return graph._stand_in(1, tensor.dtype).shape[0]
    return tensor._fake.shape[0]


def _row_like(graph, tensor):
    """A symbolic stand-in for one row of `tensor` (its shape without the first dim; the
    tensor's own fake where its rank is unknown, as then its rows' rank is unknown too)."""
    if tensor.shape.rank is None:
        fake = tensor._fake
    else:
        with graph._fake_mode:
            fake = tensor._fake[0]
    stand_in = SymbolicTensor.__new__(SymbolicTensor)
    stand_in._fake = fake
    stand_in._dtype = tensor.dtype
    stand_in._static = tensor.shape[1:]
    return stand_in


def _fold(fn, elems, initializer, reverse, name, keep_all):
    elems_struct = _as_tensors(elems)
    flat_elems = _flatten(elems_struct)
    if not _state.building_graph:
        rows = list(zip(*[_unstack_eager(e) for e in flat_elems]))
        if reverse:
            rows = rows[::-1]
        if initializer is None:
            if not rows:
                raise ValueError("fold over an empty sequence needs an initializer")
            acc, rows = _pack_as(elems_struct, list(rows[0])), rows[1:]
        else:
            acc = _as_tensors(initializer)
        history = []
        for row in rows:
            acc = _as_tensors(fn(acc, _pack_as(elems_struct, list(row))))
            history.append(acc)
        if not keep_all:
            return acc
        if initializer is None:
            history.insert(0, _pack_as(elems_struct, [EagerTensor(ops.to_torch(e)[-1 if reverse
                                                                                 else 0])
                                                      for e in flat_elems]))
        stacked = _stack_structure(history)
        if reverse:
            flat = [EagerTensor(torch.flip(ops.to_torch(t), [0])) for t in _flatten(stacked)]
            stacked = _pack_as(stacked, flat)
        return stacked
    graph = get_default_graph()
    if initializer is None:
        raise NotImplementedError("tf.scan/foldl/foldr without an initializer are not "
                                  "implemented in graph mode by tfcompat; pass initializer=")
    acc_struct = _as_tensors(initializer)
    flat_acc = _flatten(acc_struct)
    n_acc, n_el = len(flat_acc), len(flat_elems)
    default_name = "scan" if keep_all else "foldr" if reverse else "foldl"
    with graph.name_scope(name or default_name):
        traced = TracedFunction(
            graph, lambda *a: _as_tensors(fn(_pack_as(acc_struct, list(a[:n_acc])),
                                             _pack_as(elems_struct, list(a[n_acc:])))),
            flat_acc + [_row_like(graph, e) for e in flat_elems],
            [t.shape for t in flat_acc] + [e.shape[1:] for e in flat_elems])

    def run_fold(*inputs):
        acc = list(inputs[:n_acc])
        columns = [c.unbind(0) for c in inputs[n_acc:n_acc + n_el]]
        captured = inputs[n_acc + n_el:]
        order = range(len(columns[0]) if columns else 0)
        history = []
        for i in (reversed(order) if reverse else order):
            acc = list(traced(acc + [c[i] for c in columns], captured))
            history.append(acc)
        if not keep_all:
            return tuple(acc)
        if reverse:
            history = history[::-1]
        return tuple(torch.stack([h[i] for h in history]) for i in range(n_acc))

    with graph._fake_mode:
        if keep_all:
            fakes = tuple(torch.empty((flat_elems[0]._fake.shape[0],) + tuple(t._fake.shape),
                                      dtype=t._fake.dtype) for t in flat_acc)
        else:
            fakes = tuple(t._fake for t in flat_acc)
    results = graph.record_custom(run_fold, "Scan" if keep_all else "Fold",
                                  flat_acc + flat_elems + traced.captured, fakes, name,
                                  stateful=_stateful(traced))
    _mark_grad(results, [traced])
    for tensor, acc in zip(results, flat_acc):
        tensor._static = flat_elems[0].shape[:1].concatenate(acc.shape) if keep_all \
            else acc.shape
    return _pack_as(acc_struct, list(results))


@tf_export("scan")
def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """`tf.scan`: the stacked accumulator after each element."""
    return _fold(fn, elems, initializer, reverse, name, keep_all=True)


@tf_export("foldl")
def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """`tf.foldl`: fold `fn(acc, x)` over elements from the first."""
    return _fold(fn, elems, initializer, False, name, keep_all=False)


@tf_export("foldr")
def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """`tf.foldr`: fold `fn(acc, x)` over elements from the last."""
    return _fold(fn, elems, initializer, True, name, keep_all=False)
