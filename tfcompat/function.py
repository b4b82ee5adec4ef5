"""`tf.function` and `tf.contrib.eager.defun`.

As in TensorFlow 2.15, a function is traced once per kind of call into a graph, after
AutoGraph turns `if`/`while` on tensors into graph control flow. A call's kind is its
FunctionType: each argument's TraceType (`core/function/trace_type.py`: TensorSpec for
tensors, Literal for Python scalars, Weakref for other objects, a class's own
`__tf_tracing_type__`); a call runs the trace of an equal or the most specific supertype,
so Python side effects happen only while tracing. The graph is a torch.fx GraphModule
running the same torch ops eager mode runs: as TF 2's automatic control dependencies and
pruning do, only the ops its outputs need and its stateful ops (variable updates, prints,
assertions, py_functions, ...; `framework.graph.STATEFUL_OP_TYPES`), in program order.

Variables are created in the first trace only (TF's rules, see `Function`) and live outside
the graph; the graph reads and updates their storage in place. Inside a TF1 graph (or another
function being traced) the Python function is simply called, which inlines it.

Each trace's GraphModule is compiled as `framework/compile_policy.py` says: with
`jit_compile=True` (TF's XLA) as TFCOMPAT_COMPILE=1 does, never with `jit_compile=False`,
else as TFCOMPAT_COMPILE says (unset: measured on CUDA, not on CPU).

Where we differ: unused hand-recorded ops not marked stateless (conds, loops, gradients,
string ops) still run, and so does an unused stateless op that a kept op has a control
dependency on (TF's grappler drops that dependency). As in TF, eager mode
(`TFCOMPAT_MODE=eager` included) still traces; `tf.config.run_functions_eagerly(True)` runs
the Python body on every call.
"""
import collections
import functools
import inspect
import itertools
import threading
import weakref

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.autograph import converter, operators
from tfcompat.core.function import function_type as function_types
from tfcompat.core.function import trace_type
from tfcompat.framework import context, dtypes, errors
from tfcompat.framework.compile_policy import Executable
from tfcompat.framework.graph import Graph, SymbolicTensor, _flatten
from tfcompat.framework.ops import convert_to_tensor, to_torch
from tfcompat.framework.tensor import EagerTensor, Tensor, is_tensor_like
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops.array_ops import identity
from tfcompat.ops.control_flow_ops import _pack_as
from tfcompat.types import core as types_core
from tfcompat.types.trace import TraceType
from tfcompat.variables import EAGER_CREATION_HOOKS
from tfcompat.config import functions_run_eagerly
from tfcompat.eager import tape

_state = context.state


@tf_export("TensorSpec")
class TensorSpec(TraceType):
    """`tf.TensorSpec(shape, dtype, name)`: describes a tensor, and is the TraceType of
    tensor arguments of a tf.function (a tensor's shape is a subtype of any shape that
    leaves its known dims unknown or equal, as in TF)."""

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape = TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, value):
        return self.dtype == value.dtype and self.shape.is_compatible_with(value.shape)

    def is_subtype_of(self, other):
        if not isinstance(other, TensorSpec) or other.dtype != self.dtype:
            return False
        if other.shape.rank is None:
            return True
        return self.shape.rank == other.shape.rank and all(
            theirs is None or mine == theirs
            for mine, theirs in zip(self.shape.as_list(), other.shape.as_list()))

    def most_specific_common_supertype(self, others):
        if not all(isinstance(other, TensorSpec) and other.dtype == self.dtype
                   for other in others):
            return None
        shapes = [self.shape] + [other.shape for other in others]
        if any(shape.rank != self.shape.rank for shape in shapes) or self.shape.rank is None:
            return TensorSpec(None, self.dtype)
        dims = zip(*[shape.as_list() for shape in shapes])
        return TensorSpec([column[0] if len(set(column)) == 1 else None for column in dims],
                          self.dtype)

    def placeholder_value(self, placeholder_context):
        """A placeholder of this spec in the graph being traced, named after its parameter."""
        return placeholder_context.graph.placeholder(
            self.dtype, self.shape, name=placeholder_context.name or self.name)

    def to_tensors(self, value):
        return [value]

    def flatten(self):
        return [self]

    def cast(self, value, cast_context):
        tensor = convert_to_tensor(value, dtype=self.dtype) \
            if not isinstance(value, Tensor) else value
        if tensor.dtype != self.dtype or not self.shape.is_compatible_with(tensor.shape):
            raise TypeError("Can not cast %r to %r" % (TensorSpec.from_tensor(tensor), self))
        return tensor

    def __tf_tracing_type__(self, context):
        return self

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == \
            (other.shape, other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return "TensorSpec(shape=%s, dtype=%r, name=%r)" % (self.shape, self.dtype, self.name)


def _tensor_tracing_type(tensor, context):
    """A tensor's TraceType: the TensorSpec of its shape and dtype (TF's
    `Tensor.__tf_tracing_type__`)."""
    return TensorSpec(tensor.shape, tensor.dtype)


Tensor.__tf_tracing_type__ = _tensor_tracing_type


# Every FuncGraph alive, by creation number (for tf.summary.trace_export).
_function_graphs = weakref.WeakValueDictionary()
_creation_numbers = itertools.count()


def live_function_graphs():
    """The FuncGraphs still alive, oldest first."""
    return [graph for _, graph in sorted(_function_graphs.items(), key=lambda item: item[0])]


class FuncGraph(Graph):
    """The graph a tf.function traces into; eager tensors it uses become captures."""

    building_function = True

    def __init__(self, name):
        super(FuncGraph, self).__init__()
        self.name = name
        _function_graphs[next(_creation_numbers)] = self

    def _foreign(self, tensor):
        """A tensor of another graph (one leaked from another function's trace) is out of
        scope here: TF's TypeError."""
        raise TypeError(
            "%r is out of scope and cannot be used here. Use return values, explicit Python "
            "locals or TensorFlow collections to access it.\nPlease see https://www.tensorflow"
            ".org/guide/function#all_outputs_of_a_tffunction_must_be_return_values for more "
            "information.\n\nThe tensor %r cannot be accessed from here, because it was "
            "defined in %r, which is out of scope." % (tensor, tensor, tensor.graph))

    def _capture_nodes(self):
        """The inputs of the variables and eager tensors the trace used, in capture order
        (captures of ops the function prunes included, as TF lists them)."""
        return [node for node in self._fx.nodes
                if node.meta.get("input_kind") in ("variable", "capture")]

    def __repr__(self):
        return "FuncGraph(name=%s, id=%d)" % (self.name, id(self))


def _functions_run_eagerly():
    return functions_run_eagerly()


def _output_type(outputs):
    """The TraceType of a trace's outputs (None where an output has none)."""
    try:
        return trace_type.from_value(outputs)
    except TypeError:
        return None


def _capture_spec(node):
    if node.meta["input_kind"] == "variable":
        return "TensorSpec(shape=(), dtype=tf.resource, name=None)"
    return repr(trace_type.from_value(node.meta["tf_tensor"]))


def _wrap_output(value):
    """A value the trace's module returned, as an eager tensor (string tensors are numpy
    object arrays)."""
    if isinstance(value, torch.Tensor) or (isinstance(value, np.ndarray) and
                                           value.dtype == object):
        return EagerTensor(value)
    return value


class AtomicFunction(types_core.AtomicFunction):
    """`ConcreteFunction.inference_fn`: the trace's graph, called with its flat inputs."""

    def __init__(self, concrete):
        self._concrete = weakref.ref(concrete)

    @property
    def function_type(self):
        return self._concrete().function_type

    def __call__(self, *args):
        return self._concrete()._call_flat(list(args))


class ConcreteFunction(types_core.ConcreteFunction):
    """One trace of a Function: its graph, its FunctionType and the module that runs it.

    Called as TF 2.15 calls one: with the arguments of the traced Python function (those
    that are not tensors must equal the traced values), else with just its flat tensor
    inputs (`get_concrete_function(model, x)(x)`); a tensor of another dtype than its input
    raises InvalidArgumentError, as the graph's kernel does in TF."""

    def __init__(self, graph, placeholders, outputs, function_type, signature,
                 jit_compile=None):
        self.graph = graph
        self.inputs = placeholders
        self.structured_outputs = outputs
        self._signature = signature
        self._function_type = function_types.FunctionType(
            list(function_type.parameters.values()),
            return_annotation=_output_type(outputs))
        flat = [t for t in _flatten(outputs) if isinstance(t, SymbolicTensor)]
        self._flat_outputs = [t if t.graph is graph else graph._as_input(t) for t in flat]
        self._module, self._extra = graph.build_module(placeholders, self._flat_outputs,
                                                       keep_stateful=True)
        self._label = "tf.function %s%s" % (graph.name,
                                            self.pretty_printed_signature(verbose=False))
        self._jit_compile = jit_compile
        self._executable = self._values_executable = None    # made on their first call
        self._inference_fn = AtomicFunction(self)

    @property
    def function_type(self):
        return self._function_type

    @property
    def inference_fn(self):
        return self._inference_fn

    @property
    def outputs(self):
        return list(self._flat_outputs)

    @property
    def structured_input_signature(self):
        """(args, kwargs) of the trace's parameter types, as TF gives them."""
        args, kwargs = [], {}
        for parameter in self._function_type.parameters.values():
            if parameter.kind == parameter.KEYWORD_ONLY:
                kwargs[parameter.name] = parameter.type_constraint
            else:
                args.append(parameter.type_constraint)
        return tuple(args), kwargs

    def pretty_printed_signature(self, verbose=True):
        """TF 2.13+'s text: input parameters (name, kind, type), output type and captures
        (`verbose`), or `(x: type, ...) -> type`. Captures are numbered by tfcompat's graph
        inputs, not TF's tensor ids."""
        if not verbose:
            return str(self._function_type)
        captures = ["  %d: %s" % (id(node), _capture_spec(node))
                    for node in self.graph._capture_nodes()]
        return "\n".join(
            ["Input Parameters:"] +
            ["  %s (%s): %r" % (p.name, p.kind.name, p.type_constraint)
             for p in self._function_type.parameters.values()] +
            ["Output Type:", "  %r" % (self._function_type.output,), "Captures:"] +
            (captures or ["  None"]))

    def __str__(self):
        return "ConcreteFunction " + self.pretty_printed_signature(verbose=True)

    def __repr__(self):
        return "<ConcreteFunction %s at 0x%X>" % (self.pretty_printed_signature(False), id(self))

    def _run(self, input_values):
        values = self._executable_for(input_values).run(input_values)
        it = iter([_wrap_output(v) for v in values])
        flat = [next(it) if isinstance(leaf, SymbolicTensor) else leaf
                for leaf in _flatten(self.structured_outputs)]
        return _pack_as(self.structured_outputs, flat)

    def _executable_for(self, input_values):
        """The module for a call: where no GradientTape records and no input carries autograd
        history, nothing can differentiate the results, so they come from a module that
        returns plain values, as TF's function call returns tensors no tape recorded. Its
        gradient steps free their autograd graph as they go, and torch.compile keeps a
        train step's tape and the loss it returns in one compiled graph. Otherwise (a traced
        model's forward pass under a tape) the results keep their history."""
        if tape.recording() or torch.is_grad_enabled() and any(
                isinstance(v, torch.Tensor) and v.requires_grad for v in input_values):
            if self._executable is None:
                self._executable = Executable(self._module, self._extra, self._label,
                                              self._jit_compile)
            return self._executable
        if self._values_executable is None:
            module, extra = self.graph.build_module(self.inputs, self._flat_outputs,
                                                    keep_stateful=True, values_only=True)
            self._values_executable = Executable(module, extra, self._label,
                                                 self._jit_compile)
        return self._values_executable

    def __call__(self, *args, **kwargs):
        try:
            inputs = self._structured_inputs(args, kwargs)
        except TypeError as structured_error:
            try:
                inputs = self._flat_inputs(args, kwargs)
            except TypeError as flat_error:
                raise TypeError("%s\nFallback to flat signature also failed due to: %s"
                                % (structured_error, flat_error))
        return self._call_flat(inputs)

    def _structured_inputs(self, args, kwargs):
        """The tensors of a call with the traced function's arguments."""
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        parameters = self._function_type.parameters
        if list(bound.arguments) != list(parameters):
            raise TypeError("%s() takes the parameters %s, got %s" % (
                self.graph.name, list(parameters), list(bound.arguments)))
        inputs = []
        for name, value in bound.arguments.items():
            constraint = parameters[name].type_constraint
            if not trace_type.from_value(_numpy_as_tensors(value)).is_subtype_of(constraint):
                raise TypeError("Binding inputs to tf.function failed due to `Can not cast "
                                "%r to %r` for parameter %r" % (value, constraint, name))
            inputs.extend(constraint.to_tensors(_numpy_as_tensors(value)))
        return inputs

    def _flat_inputs(self, args, kwargs):
        """The tensors of a call with the trace's flat inputs (positionally, or by their
        placeholders' names)."""
        names = [placeholder.op.name for placeholder in self.inputs]
        unknown = set(kwargs) - set(names[len(args):])
        if len(args) > len(names) or unknown:
            raise TypeError("%s takes %d tensor inputs %s; got %d positional and keywords %s"
                            % (self.graph.name, len(names), names, len(args), sorted(kwargs)))
        inputs = list(args) + [kwargs[name] for name in names[len(args):] if name in kwargs]
        if len(inputs) != len(names):
            raise TypeError("%s missing required tensor inputs %s"
                            % (self.graph.name, names[len(inputs):]))
        for value in inputs:
            if not is_tensor_like(value):
                raise TypeError("%s: expected a tensor, got %r" % (self.graph.name, value))
        return inputs

    def _call_flat(self, inputs):
        """Run with the flat tensor inputs, checked against the placeholders' dtypes."""
        values = []
        for index, (value, placeholder) in enumerate(zip(inputs, self.inputs)):
            value = to_torch(value)
            dtype = dtypes.as_dtype(value.dtype) if isinstance(value, np.ndarray) \
                else dtypes.from_torch(value.dtype)
            if dtype != placeholder.dtype:
                raise errors.InvalidArgumentError(
                    None, None, "cannot compute %s as input #%d(zero-based) was expected to "
                    "be a %s tensor but is a %s tensor" % (
                        self.graph.name, index, placeholder.dtype.name, dtype.name))
            values.append(value)
        return self._run(values)


def _numpy_as_tensors(value):
    """A call's argument with its numpy arrays as tensors, as tf.function converts them."""
    if isinstance(value, np.ndarray):
        return convert_to_tensor(value)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_numpy_as_tensors(item) for item in value)
    if type(value) is dict:
        return {key: _numpy_as_tensors(item) for key, item in value.items()}
    return value


def _cast_to_spec(spec, value):
    """`value` cast to an input_signature entry: a TensorSpec or a structure of them."""
    if isinstance(spec, TensorSpec):
        return spec.cast(value, None)
    if isinstance(spec, (list, tuple)) and isinstance(value, (list, tuple)) and \
            len(spec) == len(value):
        items = [_cast_to_spec(s, v) for s, v in zip(spec, value)]
        return type(spec)(*items) if hasattr(spec, "_fields") else type(spec)(items)
    if isinstance(spec, dict) and isinstance(value, dict) and set(spec) == set(value):
        return {key: _cast_to_spec(spec[key], value[key]) for key in spec}
    raise TypeError("Can not cast %r to %r" % (value, spec))


def _as_output_tensors(outputs, python_function):
    """A trace's outputs with every leaf but None a tensor of the graph (Python numbers
    become constants, variables a read of their value), as TF's func_graph converts them;
    TypeError for a leaf that is not convertible. A variable's storage returned as it is
    (`return v`, `return tf.convert_to_tensor(v)`) is read into a tensor of its own: TF
    returns the value the variable had, which later assignments do not change."""
    leaves = []
    for leaf in _flatten(outputs):
        if leaf is not None and not isinstance(leaf, SymbolicTensor):
            try:
                leaf = convert_to_tensor(leaf)
            except (TypeError, ValueError):
                raise TypeError(
                    "To be compatible with tf.function, Python functions must return zero "
                    "or more Tensors or ExtensionTypes or None values; in compilation of %s, "
                    "found return value of type %s, which is not a Tensor or ExtensionType."
                    % (python_function, type(leaf).__name__))
        if isinstance(leaf, SymbolicTensor) and leaf.op.type == "VarHandleOp":
            leaf = identity(leaf)
        leaves.append(leaf)
    return _pack_as(outputs, leaves)


_VARIADIC = inspect.Signature([
    inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
    inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])


def _python_signature(python_function):
    try:
        return inspect.signature(python_function)
    except (TypeError, ValueError):
        return _VARIADIC


class _VariableCreations(object):
    """Counts the variables this thread creates while a trace runs; where the function may
    no longer create any, creating one raises TF's ValueError."""

    def __init__(self, allowed):
        self.allowed = allowed
        self.count = 0
        self._thread = threading.get_ident()

    def __call__(self, variable):
        if threading.get_ident() != self._thread:
            return
        if not self.allowed:
            raise ValueError(
                "tf.function only supports singleton tf.Variables created on the first "
                "call. Make sure the tf.Variable is only created once or created outside "
                "tf.function. See https://www.tensorflow.org/guide/function#creating_tfvariables"
                " for more information.")
        self.count += 1

    def __enter__(self):
        EAGER_CREATION_HOOKS.append(self)
        return self

    def __exit__(self, *exc_info):
        EAGER_CREATION_HOOKS.remove(self)


class Function(types_core.PolymorphicFunction):
    """A `tf.function`-decorated callable: traced per FunctionType, then run as a graph.

    As in TF 2.15: each call's arguments get TraceTypes (`core.function.trace_type`); a call
    runs the trace of an equal type, else of the most specific supertype, else traces
    (with `reduce_retracing`, a trace generalized to the most specific common supertype of
    the new and the cached types). Variables may be created in the first trace only: if it
    creates some, the function is traced again, and that and later traces must create none
    (`ValueError`); if it creates none, a later trace that does raises `ValueError`.
    """

    def __init__(self, python_function, name=None, input_signature=None, autograph=True,
                 reduce_retracing=False, autograph_options=None, jit_compile=None):
        self._python_function = python_function
        self._jit_compile = jit_compile
        self._autograph_options = autograph_options
        self._converted = converter.convert(
            python_function, converter.optional_features(autograph_options)) \
            if autograph else python_function
        self._input_signature = input_signature
        self._reduce_retracing = reduce_retracing
        self._name = name or getattr(python_function, "__name__", "function")
        self._signature = _python_signature(python_function)
        parameters = list(self._signature.parameters.values())
        self._all_positional_parameters = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                                         for p in parameters)
        self._defaults = [p.default for p in parameters]
        self._required = sum(p.default is p.empty for p in parameters)
        self._first_traces = function_types.FunctionCache()
        self._later_traces = None      # where the first trace created variables
        self._bound = weakref.WeakKeyDictionary()
        self._lock = threading.RLock()
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self):
        return self._python_function

    @property
    def function_type(self):
        """The Python function's parameters, without type constraints."""
        return function_types.FunctionType([
            function_types.Parameter(p.name, p.kind, p.default is not p.empty, None)
            for p in self._signature.parameters.values()])

    @property
    def input_signature(self):
        return self._input_signature

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
                        self._reduce_retracing, self._autograph_options, self._jit_compile)

    def __call__(self, *args, **kwargs):
        if _state.building_graph:    # inlined, running its side effects as TF's call op does
            return operators.call_with_auto_control_deps(self._converted, args, kwargs)
        if _functions_run_eagerly():
            return self._python_function(*args, **kwargs)
        concrete, inputs = self._concrete_and_inputs(args, kwargs)
        return concrete._call_flat(inputs)

    def get_concrete_function(self, *args, **kwargs):
        """The trace that calls with these arguments (tensors or TensorSpecs) run; traced
        now if there is none. With an input_signature, its one trace."""
        if self._input_signature is not None:
            return self._concrete(self._call_types(list(self._input_signature)))
        return self._concrete(self._call_types(self._call_values(args, kwargs)))

    def _concrete_and_inputs(self, args, kwargs):
        """The trace a call runs and the call's tensors that it takes."""
        if self._input_signature is not None:
            concrete = self.get_concrete_function()
            values = self._bind_to_signature(args, kwargs)
        else:
            values = self._call_values(args, kwargs)
            concrete = self._concrete(self._call_types(values))
        inputs = [tensor for parameter, value in
                  zip(concrete.function_type.parameters.values(), values)
                  for tensor in parameter.type_constraint.to_tensors(value)]
        return concrete, inputs

    def _concrete(self, call_types):
        concrete = self._traces().lookup(call_types)
        return concrete if concrete is not None else self._traced(call_types)

    def _call_values(self, args, kwargs):
        """The call's value of each parameter, defaults included, in the signature's order,
        numpy arrays as tensors (a call of positional arguments skips inspect's binding)."""
        if not kwargs and self._all_positional_parameters and \
                self._required <= len(args) <= len(self._defaults):
            values = list(args) + self._defaults[len(args):]
        else:
            bound = self._signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = list(bound.arguments.values())
        return [_numpy_as_tensors(value) for value in values]

    def _call_types(self, values):
        """Each parameter's TraceType for a call: what the trace cache is keyed by."""
        context = trace_type.InternalTracingContext()
        return tuple(trace_type.from_value(value, context) for value in values)

    def _traces(self):
        return self._later_traces if self._later_traces is not None else self._first_traces

    def _traced(self, call_types):
        """The trace for a call of `call_types`, made once: like TF's, a Function traces
        under its lock, so threads calling it at once with a new type share one trace."""
        with self._lock:
            concrete = self._traces().lookup(call_types)
            if concrete is not None:
                return concrete
            first = not len(self._first_traces) and self._later_traces is None
            traces = self._traces()
            trace_as = traces.generalize(call_types) if self._reduce_retracing else call_types
            with _VariableCreations(allowed=self._later_traces is None) as created:
                concrete = self._trace(trace_as)
            traces.add(trace_as, concrete)
            if created.count and not first:
                raise ValueError("Creating variables on a non-first call to a function "
                                 "decorated with tf.function.")
            if created.count:
                self._later_traces = function_types.FunctionCache()
                return self._traced(call_types)
            return concrete

    def _bind_to_signature(self, args, kwargs):
        """The call's arguments cast to the input_signature's specs (a list given for a
        TensorSpec becomes a tensor); like TF 2.15, a TypeError if one does not fit its spec
        or the structure differs."""
        try:
            values = self._call_values(args, kwargs)
            if len(values) != len(self._input_signature):
                raise TypeError("%d arguments for an input_signature of %d"
                                % (len(values), len(self._input_signature)))
            return [_cast_to_spec(spec, value)
                    for spec, value in zip(self._input_signature, values)]
        except TypeError as error:
            raise TypeError("Binding inputs to tf.function `%s` failed due to `%s`"
                            % (self._name, error))

    def _trace(self, call_types):
        """Trace with each parameter's `placeholder_value`; its FunctionType pairs the
        parameters with `call_types`."""
        function_type = function_types.FunctionType([
            function_types.Parameter(p.name, p.kind, False, constraint)
            for p, constraint in zip(self._signature.parameters.values(), call_types)])
        graph = FuncGraph(self._name)
        arguments = collections.OrderedDict()
        placeholders = []
        with graph.as_default():
            for parameter in function_type.parameters.values():
                constraint = parameter.type_constraint
                value = constraint.placeholder_value(
                    trace_type.InternalPlaceholderContext(graph, parameter.name))
                arguments[parameter.name] = value
                placeholders.extend(constraint.to_tensors(value))
            bound = inspect.BoundArguments(self._signature, arguments)
            outputs = _as_output_tensors(self._converted(*bound.args, **bound.kwargs),
                                         self._python_function)
        return ConcreteFunction(graph, placeholders, outputs, function_type, self._signature,
                                self._jit_compile)

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Each trace's `pretty_printed_signature`, in tracing order (TF 2.13+ format); a
        function with an input_signature is traced for it first, as in TF."""
        if self._input_signature is not None:
            self.get_concrete_function()
        return ("\n\n" if verbose else "\n").join(
            concrete.pretty_printed_signature(verbose) for concrete in self._all_traces())

    def experimental_get_tracing_count(self):
        """How many times the function was traced."""
        return len(self._all_traces())

    def _all_traces(self):
        """Every trace, in tracing order: the first traces (a trace that created variables
        included), then those made after it."""
        later = self._later_traces.values() if self._later_traces is not None else []
        return self._first_traces.values() + later


@tf_export("function")
def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             experimental_relax_shapes=False, reduce_retracing=False, experimental_compile=None,
             experimental_implements=None, experimental_autograph_options=None,
             experimental_follow_type_hints=None, name=None):
    """`tf.function`: trace `func` into a graph once per kind of call (its FunctionType);
    `reduce_retracing` (or its old name `experimental_relax_shapes`) generalizes new traces
    to the most specific common supertype of the calls seen; `jit_compile` (or its old name
    `experimental_compile`) compiles the traces with torch.compile instead of XLA."""
    def decorate(fn):
        return Function(fn, name=name, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing or experimental_relax_shapes,
                        autograph_options=experimental_autograph_options,
                        jit_compile=jit_compile if jit_compile is not None
                        else experimental_compile)
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

