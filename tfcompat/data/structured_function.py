"""Dataset functions traced once into a graph, as TF traces them, and run from the graph.

TF traces a `map` function into a graph when the dataset is built and runs that graph per
element: the function's Python code (and its side effects, e.g. a `print`) runs once, its
ops run per element (`tf.py_function` bodies included). `StructuredFunction` does the same
with a `tf.Graph`: `call` runs the traced torch.fx module on one element, without the eager
op wrappers; `call_batch` runs it on a whole batch where every op of the graph has a batch
rule (see `vectorization`).

A function is traced on placeholders shaped like the input's element spec. Where that
fails (shape inference after a data-dependent size: `decode_raw` then `reshape`), it may be
traced again on a sample element (its Python code then runs a second time): unknown sizes
become symbolic sizes with the sample's sizes as hints, so shape inference goes through while
static shapes stay as general as the spec says.

Where we differ from TF: a function that cannot be traced at all (it calls `.numpy()`, uses
a tensor as a Python bool, returns datasets, creates variables) runs eagerly per element,
Python side effects included.
"""
import numpy as np
import torch

from tfcompat.data import structure, vectorization
from tfcompat.data.structure import (RaggedTensorSpec, SparseTensorSpec, component_specs,
                                     components, flatten, from_components, normalize_element,
                                     pack_as)
from tfcompat.framework import dtypes
from tfcompat.framework.custom_op import sample_fake
from tfcompat.framework.graph import Graph, SymbolicTensor, run_module
from tfcompat.framework.ops import to_torch
from tfcompat.framework.tensor import EagerTensor
from tfcompat.function import TensorSpec
from tfcompat.ops.sparse_ops import SparseTensor

_CREATED_VARIABLES = ("variables", "local_variables", "trainable_variables")


class Untraceable(Exception):
    """The function cannot run from a graph (it runs eagerly instead)."""


def call_with_element(fn, element):
    """TF's calling convention: a tuple element is unpacked into positional arguments."""
    if type(element) is tuple:
        return fn(*element)
    return fn(element)


def placeholder_for(graph, spec, sample=None):
    """Graph input(s) for one leaf spec; a sample leaf gives their fake values."""
    if isinstance(spec, SparseTensorSpec):
        rank = spec.shape.rank
        parts = [graph.placeholder(dtypes.int64, [None, rank]),
                 graph.placeholder(spec.dtype, [None]), graph.placeholder(dtypes.int64, [rank])]
        leaf = SparseTensor(*parts)
    elif isinstance(spec, TensorSpec):
        parts = [graph.placeholder(spec.dtype, spec.shape)]
        leaf = parts[0]
    else:
        raise Untraceable("a %s argument" % type(spec).__name__)
    if sample is not None:
        for part, value in zip(parts, components(sample)):
            part._fake = sample_fake(graph, structure.torch_value(value), part.shape)
    return leaf



def _eager(value):
    if type(value) is torch.Tensor or (type(value) is np.ndarray and value.dtype == object):
        return EagerTensor(value)
    return EagerTensor(to_torch(value))


class StructuredFunction(object):
    """`fn` traced once on elements like `input_spec` (optionally on `sample`, an element).

    `output_spec` is the spec of its results; `call(element)` and `call_batch(batch, n)`
    run the traced graph. Raises `Untraceable` (or the function's own error) when the
    function cannot be traced.
    """

    def __init__(self, fn, input_spec, sample=None):
        graph = Graph()
        graph.traces_with_samples = sample is not None
        flat_spec = flatten(input_spec)
        samples = flatten(sample) if sample is not None else [None] * len(flat_spec)
        with graph.as_default():
            args = [placeholder_for(graph, s, v) for s, v in zip(flat_spec, samples)]
            outputs = normalize_element(call_with_element(fn, pack_as(input_spec, args)))
        if any(graph.get_collection(key) for key in _CREATED_VARIABLES):
            raise Untraceable("the function creates variables")
        out_leaves = flatten(outputs)
        results = [c for leaf in out_leaves for c in components(leaf)]
        if not all(isinstance(t, SymbolicTensor) and t.graph is graph for t in results):
            raise Untraceable("the function returns values that are not graph tensors")
        feeds = [c for leaf in args for c in components(leaf)]
        self.output_structure = outputs
        self.output_spec = structure.element_spec(outputs)
        self._out_specs = flatten(self.output_spec)
        self._module, self._extra = graph.build_module(feeds, results, keep_stateful=True)
        dense = not any(isinstance(s, (SparseTensorSpec, RaggedTensorSpec))
                        for s in flat_spec + self._out_specs)
        self._vectorized = vectorization.vectorize(self._module, len(feeds)) \
            if dense and not self._module.needs_grad else None

    @property
    def vectorizable(self):
        """Whether `call_batch` can run the function on a batch at once."""
        return self._vectorized is not None

    def _pack(self, values):
        it = iter(values)
        leaves = [from_components(spec, [_eager(next(it)) for _ in component_specs(spec)])
                  for spec in self._out_specs]
        return pack_as(self.output_structure, leaves)

    def call(self, element):
        """The function's result for one element."""
        values = [structure.torch_value(c) for leaf in flatten(element)
                  for c in components(leaf)]
        return self._pack(run_module(self._module, values, self._extra))

    def call_batch(self, batch, size):
        """The function's results for `size` elements stacked in `batch`, stacked."""
        values = [structure.torch_value(leaf) for leaf in flatten(batch)]
        values.extend(self._extra.values())
        return self._pack(self._vectorized(values, size))
