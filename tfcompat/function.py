"""`tf.function` and `tf.contrib.eager.defun`.

As in TensorFlow, a function is traced once per input signature (tensor dtypes and shapes,
Python values of other arguments) into a graph, after AutoGraph turns `if`/`while` on tensors
into graph control flow; later calls with the same signature run that graph without running
the Python body again, so Python side effects happen only while tracing. The graph is a
torch.fx GraphModule running the same torch ops eager mode runs.

Variables are created in the first trace (TF allows creation only then) and live outside the
graph; the graph reads and updates their storage in place. Inside a TF1 graph (or another
function being traced) the Python function is simply called, which inlines it.

Where we differ: the GraphModule is not passed through torch.compile yet. As in TF, eager mode
(`TFCOMPAT_MODE=eager` included) still traces; `tf.config.run_functions_eagerly(True)` runs
the Python body on every call.
"""
import functools
import inspect
import threading
import weakref

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.autograph import converter, operators
from tfcompat.framework import context, dtypes
from tfcompat.framework.graph import Graph, SymbolicTensor, _flatten, run_module
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops.control_flow_ops import _pack_as

_state = context.state


@tf_export("TensorSpec")
class TensorSpec(object):
    """`tf.TensorSpec(shape, dtype, name)`: describes a function input."""

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape = TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, value):
        return self.dtype == value.dtype and self.shape.is_compatible_with(value.shape)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == \
            (other.shape, other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return "TensorSpec(shape=%s, dtype=%r, name=%r)" % (self.shape, self.dtype, self.name)


class FuncGraph(Graph):
    """The graph a tf.function traces into; eager tensors it uses become captures."""

    building_function = True

    def __init__(self, name):
        super(FuncGraph, self).__init__()
        self.name = name


def _functions_run_eagerly():
    from tfcompat.config import functions_run_eagerly
    return functions_run_eagerly()


def _trace_type(value):
    """A value as TF's FunctionType prints it: TensorSpec for tensors, Literal[...] for Python
    constants, List / Tuple / Dict of those, the type's name for other objects."""
    if isinstance(value, TensorSpec):
        return repr(value)
    if isinstance(value, (SymbolicTensor, EagerTensor)):
        return repr(TensorSpec(value.shape, value.dtype))
    if _is_tensor_arg(value):
        return repr(TensorSpec(value.shape, dtypes.as_dtype(value.dtype)))
    if isinstance(value, list):
        return "List[%s]" % ", ".join(_trace_type(item) for item in value)
    if isinstance(value, tuple):
        return "Tuple[%s]" % ", ".join(_trace_type(item) for item in value)
    if isinstance(value, dict):
        return "Dict[%s]" % ", ".join("[%r, %s]" % (key, _trace_type(item))
                                      for key, item in value.items())
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return "Literal[%r]" % (value,)
    return type(value).__name__


def _capture_spec(node):
    if node.meta["input_kind"] == "variable":
        return "TensorSpec(shape=(), dtype=tf.resource, name=None)"
    return _trace_type(node.meta["tf_tensor"])


class ConcreteFunction(object):
    """One trace of a Function: its graph and the module that runs it."""

    def __init__(self, graph, placeholders, outputs, parameters=()):
        self.graph = graph
        self._parameters = list(parameters)
        self.inputs = placeholders
        self.structured_outputs = outputs
        flat = [t for t in _flatten(outputs) if isinstance(t, SymbolicTensor)]
        self._flat_outputs = [t if t.graph is graph else graph._as_input(t) for t in flat]
        self._module, self._extra = graph.build_module(placeholders, self._flat_outputs,
                                                       run_all=True)

    @property
    def outputs(self):
        return list(self._flat_outputs)

    def pretty_printed_signature(self, verbose=True):
        """TF 2.13+'s text: input parameters (name, kind, type), output type and captures
        (`verbose`), or `(x: type, ...) -> type`. Captures are numbered by tfcompat's graph
        inputs, not TF's tensor ids."""
        output = _trace_type(self.structured_outputs)
        if not verbose:
            return "(%s) -> %s" % (", ".join("%s: %s" % (name, _trace_type(value))
                                             for name, _, value in self._parameters), output)
        captures = ["  %d: %s" % (id(node), _capture_spec(node)) for node in self._extra
                    if node.meta["input_kind"] in ("variable", "capture")]
        return "\n".join(
            ["Input Parameters:"] +
            ["  %s (%s): %s" % (name, kind, _trace_type(value))
             for name, kind, value in self._parameters] +
            ["Output Type:", "  " + output, "Captures:"] + (captures or ["  None"]))

    def _run(self, input_values):
        values = run_module(self._module, input_values, self._extra)
        wrapped = [EagerTensor(v) if isinstance(v, torch.Tensor) else v for v in values]
        it = iter(wrapped)
        flat = [next(it) if isinstance(leaf, SymbolicTensor) else leaf
                for leaf in _flatten(self.structured_outputs)]
        return _pack_as(self.structured_outputs, flat)

    def __call__(self, *args, **kwargs):
        return self._call_flat(_flatten((args, kwargs)))

    def _call_flat(self, leaves):
        """Run with the flattened arguments (their tensors are the graph's inputs)."""
        return self._run([_torch_value(leaf) for leaf in leaves if _is_tensor_arg(leaf)])


def _is_tensor_arg(value):
    return isinstance(value, (EagerTensor, np.ndarray)) and not (
        isinstance(value, np.ndarray) and value.dtype == object)


def _torch_value(value):
    from tfcompat.framework.ops import to_torch
    return to_torch(value)


def _signature_of(value):
    if isinstance(value, EagerTensor):
        return ("T", value.dtype.name, tuple(value._t.shape))
    if isinstance(value, np.ndarray):
        return ("T", dtypes.as_dtype(value.dtype).name, value.shape)
    if isinstance(value, (int, float, str, bool, type(None), bytes)):
        return ("P", type(value).__name__, value)
    return ("O", id(value))


class Function(object):
    """A `tf.function`-decorated callable: traced per signature, then run as a graph."""

    def __init__(self, python_function, name=None, input_signature=None, autograph=True,
                 autograph_options=None):
        self._python_function = python_function
        self._autograph_options = autograph_options
        self._converted = converter.convert(
            python_function, converter.optional_features(autograph_options)) \
            if autograph else python_function
        self._input_signature = input_signature
        self._name = name or getattr(python_function, "__name__", "function")
        self._concrete = {}
        self._bound = weakref.WeakKeyDictionary()
        self._lock = threading.RLock()
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self):
        return self._python_function

    def __get__(self, instance, owner):
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:
            return self._bind(instance, owner)
        if bound is None:
            with self._lock:        # one bound Function (one set of traces) per instance
                bound = self._bound.get(instance)
                if bound is None:
                    bound = self._bound[instance] = self._bind(instance, owner)
        return bound

    def _bind(self, instance, owner):
        return Function(self._python_function.__get__(instance, owner), self._name,
                        self._input_signature, self._converted is not self._python_function,
                        autograph_options=self._autograph_options)

    def __call__(self, *args, **kwargs):
        if _state.building_graph:    # inlined, running its side effects as TF's call op does
            return operators.call_with_auto_control_deps(self._converted, args, kwargs)
        if _functions_run_eagerly():
            return self._python_function(*args, **kwargs)
        if self._input_signature is not None:
            return self._signature_function()._call_flat(self._bind_to_signature(args, kwargs))
        leaves = _flatten((list(args), kwargs))
        key = tuple(_signature_of(leaf) for leaf in leaves)
        concrete = self._concrete.get(key)
        if concrete is None:
            concrete = self._traced(key, args, kwargs)
        return concrete._call_flat(leaves)

    def _traced(self, key, args, kwargs):
        """The trace for signature `key`, made once: like TF's, a Function traces under its
        lock, so threads calling it at once with a new signature share one trace."""
        with self._lock:
            concrete = self._concrete.get(key)
            if concrete is None:
                concrete = self._concrete[key] = self._trace(args, kwargs)
            return concrete

    def _signature_function(self):
        """The one trace an `input_signature` makes: its placeholders have the specs' shapes
        (`TensorSpec(None)` is of unknown rank, as TF traces it)."""
        concrete = self._concrete.get("input_signature")
        if concrete is None:
            concrete = self._traced("input_signature", list(self._input_signature), {})
        return concrete

    def _bind_to_signature(self, args, kwargs):
        """The call's tensors converted to the specs' dtypes; like TF 2.15, a TypeError if
        one does not fit its spec (or the structure differs)."""
        from tfcompat.framework.ops import convert_to_tensor
        specs = _flatten(list(self._input_signature))
        leaves = _flatten((list(args), kwargs))
        if kwargs or len(leaves) != len(specs):
            raise TypeError("Binding inputs to tf.function `%s` failed: the call's arguments "
                            "%r do not match its input_signature %r"
                            % (self._name, (args, kwargs), self._input_signature))
        tensors = []
        for value, spec in zip(leaves, specs):
            tensor = convert_to_tensor(value, dtype=spec.dtype) \
                if not isinstance(value, EagerTensor) else value
            if tensor.dtype != spec.dtype or not spec.shape.is_compatible_with(tensor.shape):
                raise TypeError("Binding inputs to tf.function `%s` failed due to `Can not cast "
                                "%r to %r`" % (self._name, TensorSpec.from_tensor(tensor), spec))
            tensors.append(tensor)
        return tensors

    def _trace(self, args, kwargs):
        graph = FuncGraph(self._name)
        placeholders = []

        def symbolic(value):
            if isinstance(value, TensorSpec):
                tensor = graph.placeholder(value.dtype, value.shape)
            elif _is_tensor_arg(value):
                dtype = value.dtype if isinstance(value, EagerTensor) else \
                    dtypes.as_dtype(value.dtype)
                tensor = graph.placeholder(dtype, list(np.shape(value)))
            else:
                return value
            placeholders.append(tensor)
            return tensor
        with graph.as_default():
            flat = [symbolic(leaf) for leaf in _flatten((list(args), kwargs))]
            sym_args, sym_kwargs = _pack_as((list(args), kwargs), flat)
            outputs = self._converted(*sym_args, **sym_kwargs)
        return ConcreteFunction(graph, placeholders, outputs,
                                self._parameters(args, kwargs))

    def _parameters(self, args, kwargs):
        """(name, kind, value) of each parameter of a call, defaults included, as TF's
        FunctionType lists them; nothing when the function's signature cannot be read."""
        try:
            bound = inspect.signature(self._python_function).bind(*args, **kwargs)
        except (TypeError, ValueError):
            return []
        bound.apply_defaults()
        parameters = bound.signature.parameters
        return [(name, parameters[name].kind.name, value)
                for name, value in bound.arguments.items()]

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Each trace's `pretty_printed_signature`, in tracing order (TF 2.13+ format)."""
        return ("\n\n" if verbose else "\n").join(
            concrete.pretty_printed_signature(verbose) for concrete in self._concrete.values())

    def get_concrete_function(self, *args, **kwargs):
        if self._input_signature is not None:
            return self._signature_function()
        key = tuple(_signature_of(leaf) for leaf in _flatten((list(args), kwargs)))
        return self._traced(key, args, kwargs)

    def experimental_get_tracing_count(self):
        return len(self._concrete)


@tf_export("function")
def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             experimental_relax_shapes=False, reduce_retracing=False, experimental_compile=None,
             experimental_implements=None, experimental_autograph_options=None,
             experimental_follow_type_hints=None, name=None):
    """`tf.function`: trace `func` into a graph once per input signature."""
    def decorate(fn):
        return Function(fn, name=name, input_signature=input_signature, autograph=autograph,
                        autograph_options=experimental_autograph_options)
    return decorate(func) if func is not None else decorate


@tf_export("contrib.eager.defun")
def defun(func=None, input_signature=None, autograph=True, experimental_autograph_options=None):
    """`tfe.defun` (TF 1.x eager): `tf.function` under its old name."""
    return function(func, input_signature=input_signature, autograph=autograph,
                    experimental_autograph_options=experimental_autograph_options)


@tf_export("autograph.to_graph")
def to_graph(entity, recursive=True, experimental_optional_features=None):
    """`tf.autograph.to_graph`: the function with tensor `if`/`while` converted, and the
    optional features (tf.autograph.experimental.Feature) asked for."""
    return converter.convert(entity, converter.optional_features(experimental_optional_features))


@tf_export("autograph.experimental.do_not_convert")
def do_not_convert(func=None):
    """Mark `func` to run unconverted (tfcompat converts only traced functions anyway)."""
    return func if func is not None else (lambda f: f)

