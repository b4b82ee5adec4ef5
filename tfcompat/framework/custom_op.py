"""Ops whose kernels cannot run on fake tensors: string, image-codec and parsing ops.

`run_op(fn, op_type, inputs, out_specs)` runs `fn` over the inputs' values now in eager mode,
or records it as one graph node (`Graph.record_custom`) whose outputs have the declared
(dtype, static shape) specs. Graphs that trace dataset functions on a sample element run a
pure op on the sample, so what follows it sees sizes that fit (`decode_raw` then `reshape`).
"""
import numpy as np

from tfcompat.framework import context
from tfcompat.framework.graph import get_default_graph
from tfcompat.framework.ops import convert_to_tensor, to_torch
from tfcompat.framework.tensor import EagerTensor

_state = context.state


def run_op(fn, op_type, inputs, out_specs, name=None, pure=True):
    """Run `fn` over the values of `inputs` now (eager) or as one graph node.

    `fn` gets torch tensors / string arrays and returns a tuple matching `out_specs`
    ((dtype, TensorShape) pairs, the static shapes of the graph outputs). A `pure` op
    (no side effects) traced on sample strings (`sample_fake`) runs on
    them, so that what follows it sees sizes taken from the sample.
    """
    if not _state.building_graph:
        return [EagerTensor(v) for v in fn(*[i._t if type(i) is EagerTensor else to_torch(i)
                                              for i in inputs])]
    if callable(out_specs):
        out_specs = out_specs()
    graph = get_default_graph()
    tensors = [convert_to_tensor(i) for i in inputs]
    fakes = _sample_outputs(graph, fn, tensors, out_specs) if pure else None
    if fakes is None:
        fakes = tuple(graph._fake_for_shape(s, d) for d, s in out_specs)
    outputs = graph.record_custom(fn, op_type, tensors, fakes, name, stateful=not pure)
    for tensor, (dtype, shape) in zip(outputs, out_specs):
        tensor._static = shape
    return list(outputs)


def _sample_outputs(graph, fn, tensors, out_specs):
    """Fake outputs computed from sample string inputs, or None where there are none."""
    if not getattr(graph, "traces_with_samples", False):
        return None
    values = [getattr(t, "_fake", None) for t in tensors]
    if not all(isinstance(v, np.ndarray) for v in values):
        return None
    try:
        outputs = fn(*values)
    except Exception:  # the sample does not fit this op: its outputs stay unknown
        return None
    return tuple(sample_fake(graph, v, shape) for v, (_, shape) in zip(outputs, out_specs))


def sample_fake(graph, value, shape):
    """A fake value standing for tensors like the concrete `value`: its dimensions unknown
    in `shape` stay symbolic, with `value`'s sizes as their hints (string arrays: `value`).

    Graphs that trace dataset functions on a sample element use it, so that shape
    inference after a data-dependent size (`decode_raw` then `reshape`) sees sizes that fit.
    """
    if isinstance(value, np.ndarray):
        return value
    # imported here: symbolic shapes (sympy) cost ~0.3 s of import time eager scripts skip
    from torch.fx.experimental.symbolic_shapes import DimDynamic, StatelessSymbolicContext
    known = shape.as_list() if shape.rank is not None else [None] * value.ndim
    dynamic = [DimDynamic.STATIC if d is not None else DimDynamic.DYNAMIC for d in known]
    return graph._fake_mode.from_tensor(value, symbolic_context=StatelessSymbolicContext(
        dynamic_sizes=dynamic, constraint_sizes=[None] * value.ndim))
