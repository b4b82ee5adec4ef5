"""The functions of a SavedModel written by TensorFlow itself (TF's
`saved_model/function_deserialization.py` and `nested_structure_coder.py`): each saved
concrete function rebuilt from its `FunctionDef` by the GraphDef importer
(`importer.import_function`: op types resolve only through `tf.raw_ops`, nothing named in
the file is imported or run) inside a tfcompat `tf.function`, so it runs eagerly, traces
once per function, and is inlined when called inside another tf.function. Its captured
inputs (TF's `bound_inputs`: the variables it reads or updates) are the loaded Variables,
so the loaded object's variables stay live.
"""
import collections

from tfcompat.framework import dtypes, errors
from tfcompat.framework.ops import convert_to_tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.function import Function, TensorSpec
from tfcompat.ops import importer
from tfcompat.util import nest


def canonical_arguments(function_spec, args, kwargs):
    """(args, kwargs) with the arguments a saved `FunctionSpec` names moved to their
    positions and omitted ones given their defaults, as TF canonicalizes a call before
    matching it with a saved trace."""
    spec = decode_structure(function_spec.fullargspec)
    if spec is None:
        return args, kwargs
    names, defaults = list(spec.args), list(spec.defaults or ())
    args, kwargs = list(args), dict(kwargs)
    first_default = len(names) - len(defaults)
    for index in range(len(args), len(names)):
        if names[index] in kwargs:
            args.append(kwargs.pop(names[index]))
        elif index >= first_default:
            args.append(defaults[index - first_default])
        else:
            break
    return args, kwargs


def decode_structure(value):
    """A `StructuredValue` proto (TF's nested_structure_coder) as the Python structure it
    encodes, TensorSpecs at its leaves. Kinds tfcompat does not revive raise
    NotImplementedError naming them."""
    kind = value.WhichOneof("kind")
    if kind in (None, "none_value"):
        return None
    if kind in ("float64_value", "int64_value", "string_value", "bool_value"):
        return getattr(value, kind)
    if kind == "list_value":
        return [decode_structure(item) for item in value.list_value.values]
    if kind == "tuple_value":
        return tuple(decode_structure(item) for item in value.tuple_value.values)
    if kind == "dict_value":
        return {key: decode_structure(item) for key, item in value.dict_value.fields.items()}
    if kind == "named_tuple_value":
        named = value.named_tuple_value
        return collections.namedtuple(named.name, [pair.key for pair in named.values])(
            *[decode_structure(pair.value) for pair in named.values])
    if kind == "tensor_shape_value":
        return TensorShape(value.tensor_shape_value)
    if kind == "tensor_dtype_value":
        return dtypes.as_dtype(value.tensor_dtype_value)
    if kind == "tensor_spec_value":
        spec = value.tensor_spec_value
        return TensorSpec(TensorShape(spec.shape), dtypes.as_dtype(spec.dtype), spec.name or None)
    raise NotImplementedError("tfcompat cannot revive a SavedModel function whose signature "
                              "holds a %s (TF's StructuredValue kind)" % kind)


def _fits(spec, value):
    """`value` as a tensor of `spec`, or None when it does not fit."""
    if value is None or isinstance(value, (bool, str, bytes)):
        return None
    try:
        tensor = convert_to_tensor(value, dtype=spec.dtype)
    except (TypeError, ValueError, errors.OpError):
        return None
    return tensor if tensor.dtype == spec.dtype and \
        spec.shape.is_compatible_with(tensor.shape) else None


class RevivedConcreteFunction(object):
    """A concrete function of a TF-written SavedModel (`loaded.f.concrete_functions[i]`,
    `loaded.signatures[key]`): called with arguments matching its
    `structured_input_signature` (positional, or by name), it returns its
    `structured_outputs` structure of tensors."""

    def __init__(self, name, saved, library, captured):
        self.name = name
        self.structured_input_signature = decode_structure(saved.canonicalized_input_signature)
        self.structured_outputs = decode_structure(saved.output_signature)
        self._library = library
        self._captured = list(captured)
        self._leaves = nest.flatten(self.structured_input_signature)
        self._function = Function(self._build, name=name, autograph=False, input_signature=[
            [leaf for leaf in self._leaves if isinstance(leaf, TensorSpec)]])

    def _build(self, flat):
        return importer.import_function(self.name, self._library,
                                        list(flat) + self._captured)

    def bind(self, args, kwargs):
        """The flat tensors of a call with these arguments, or None if they do not match:
        positional parameters may also be given by their spec's name; a Python value
        traced as a constant (Keras' `training`) must be equal."""
        positional, named = self.structured_input_signature
        args, kwargs = list(args), dict(kwargs)
        for spec in positional[len(args):]:
            if getattr(spec, "name", None) not in kwargs:
                return None
            args.append(kwargs.pop(spec.name))
        if len(args) != len(positional) or set(kwargs) != set(named):
            return None
        try:
            nest.assert_same_structure((tuple(positional), named), (tuple(args), kwargs))
        except (TypeError, ValueError):
            return None
        flat = []
        for leaf, value in zip(self._leaves, nest.flatten((tuple(args), kwargs))):
            if isinstance(leaf, TensorSpec):
                flat.append(_fits(leaf, value))
                if flat[-1] is None:
                    return None
            elif type(value) is not type(leaf) or value != leaf:
                return None
        return flat

    def argument_text(self):
        return "%s" % (self.structured_input_signature,)

    @property
    def traced(self):
        """The tfcompat ConcreteFunction running this function (its graph, its module)."""
        return self._function.get_concrete_function()

    def call_flat(self, flat):
        outputs = self._function(list(flat))
        return nest.pack_sequence_as(self.structured_outputs, list(outputs))

    def __call__(self, *args, **kwargs):
        flat = self.bind(args, kwargs)
        if flat is None:
            raise TypeError("%s%s was called with arguments that do not match its signature "
                            "(args %r, kwargs %r)" % (self.name, self.argument_text(), args,
                                                       kwargs))
        return self.call_flat(flat)
