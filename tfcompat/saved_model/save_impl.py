"""`tf.saved_model.save`: an object's variables, sub-objects and traced functions as a
SavedModel directory (layout and format: docs/saved_model.md).

As in TF 2: the object graph is the checkpoint's (the object as root); every tf.function
found on a saved object is saved with its traces (its one trace where it has an
input_signature); `signatures` (a function with an input_signature, a concrete function or a
dict of them) become the SavedModel's signatures, which take keyword tensors and return a
dict (a bare tensor output is `output_0`); without `signatures`, the root's
`_default_save_signature` or its only tf.function with an input_signature is
`serving_default`. Where we differ: functions are stored as torch.export programs, so a
function torch.export cannot export (values deciding shapes, string ops, py_func) or one
with an input of unknown rank cannot be saved (ProgramExportError, a NotImplementedError).
"""
import collections
import json
import os
import shutil

import torch
from tensorboard.compat.proto import meta_graph_pb2

from tfcompat._api import tf_export
from tfcompat.core.function import trace_type
from tfcompat.core.function.trace_type import Literal
from tfcompat.eager.custom_gradient import CUSTOM_GRADIENT_FUNCTIONS
from tfcompat.framework import context, dtypes
from tfcompat.framework.graph import SymbolicTensor
from tfcompat.function import ConcreteFunction, Function, TensorSpec
from tfcompat.saved_model import constants, programs, saved_model_proto
from tfcompat.saved_model import signature_constants, tag_constants
from tfcompat.saved_model.save_options import SaveOptions
from tfcompat.trackable import tracking
from tfcompat.trackable.asset import Asset
from tfcompat.train import checkpoint_format
from tfcompat.util import nest
from tfcompat.variables import Variable

FORMAT = "tfcompat-saved-model"
FORMAT_VERSION = 1
MANIFEST = os.path.join(constants.TFCOMPAT_DIRECTORY, "saved_model.json")
FUNCTIONS_DIRECTORY = os.path.join(constants.TFCOMPAT_DIRECTORY, "functions")
SIGNATURES_DIRECTORY = os.path.join(constants.TFCOMPAT_DIRECTORY, "signatures")
VARIABLES_PREFIX = os.path.join(constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME)
DEFAULT_SIGNATURE_ATTR = "_default_save_signature"

_state = context.state


def _functions_of(obj):
    """{attribute name: Function or ConcreteFunction} of a saved object: what its
    `_list_functions_for_serialization()` gives (TF's hook: Keras layers save their calls
    their own way), else tf.functions of its class (bound to it) and ones assigned to it."""
    listed = getattr(obj, "_list_functions_for_serialization", None)
    if listed is not None:
        return collections.OrderedDict(listed())
    found = collections.OrderedDict()
    for cls in reversed(type(obj).__mro__):
        for name, value in vars(cls).items():
            if isinstance(value, Function):
                found[name] = getattr(obj, name)
    for name, value in getattr(obj, "__dict__", {}).items():
        if isinstance(value, (Function, ConcreteFunction)) and not name.startswith("__"):
            found[name] = value
    return found


def _concrete_functions(function):
    if isinstance(function, ConcreteFunction):
        return [function]
    if function.input_signature is not None:
        function.get_concrete_function()
    return function._all_traces()


def _signature_function(value, key):
    """The ConcreteFunction serving signature `key` (TF's ValueError for a tf.function
    without an input_signature)."""
    if isinstance(value, ConcreteFunction):
        return value
    if isinstance(value, Function) and value.input_signature is not None:
        return value.get_concrete_function()
    raise ValueError(
        "Expected a TensorFlow function for which to generate a signature (but got %r). Only "
        "`tf.functions` with an input signature or concrete functions can be used as a "
        "signature (signature key %r)." % (value, key))


def _default_signature(root, functions):
    """TF's default signature: the root's `_default_save_signature` (Keras models), else its
    only tf.function with an input signature."""
    function = getattr(root, DEFAULT_SIGNATURE_ATTR, None)
    if function is not None:
        return function
    candidates = [f for f in list(functions.values()) if
                  isinstance(f, ConcreteFunction) or f.input_signature is not None]
    return candidates[0] if len(candidates) == 1 else None


def _signatures(signatures, root, functions):
    """{key: ConcreteFunction} of `signatures` as save() takes it (`functions`: the root's)."""
    if signatures is None:
        signatures = _default_signature(root, functions)
        if signatures is None:
            return {}
    if not isinstance(signatures, dict):
        signatures = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    return {key: _signature_function(value, key) for key, value in signatures.items()}


def _spec_json(value):
    """A trace's input type (TensorSpecs, Python literals, lists/tuples/dicts of them)."""
    if isinstance(value, TensorSpec):
        return {"tensor": {"shape": value.shape.as_list() if value.shape.rank is not None
                           else None, "dtype": value.dtype.name, "name": value.name}}
    if isinstance(value, Literal):
        if not isinstance(value.value, (int, float, str, bool, type(None))):
            raise programs.ProgramExportError(
                "Cannot save a trace taking the Python value %r" % (value.value,))
        return {"literal": value.value}
    if isinstance(value, trace_type.List):
        return {"list": [_spec_json(v) for v in value.components]}
    if type(value) is trace_type.Tuple:
        return {"tuple": [_spec_json(v) for v in value.components]}
    if isinstance(value, trace_type.Dict) and value.mapping_type is dict:
        return {"dict": [[key, _spec_json(value.mapping[key])]
                         for key in sorted(value.mapping, key=repr)]}
    raise programs.ProgramExportError("Cannot save a trace taking an argument of type %r"
                                      % (value,))


def _outputs_json(structure, positions):
    """The output structure with each tensor replaced by its index among the flat outputs."""
    if isinstance(structure, SymbolicTensor):
        return {"output": positions[id(structure)]}
    if structure is None:
        return None
    if isinstance(structure, dict):
        return {"dict": [[key, _outputs_json(structure[key], positions)]
                         for key in sorted(structure)]}
    if isinstance(structure, (list, tuple)):
        return {"list" if isinstance(structure, list) else "tuple":
                [_outputs_json(item, positions) for item in structure]}
    raise programs.ProgramExportError("Cannot save a function returning %r" % (structure,))


def _tensor_specs(value):
    """The TensorSpecs of an argument's trace type, flattened in order."""
    if isinstance(value, TensorSpec):
        return [value]
    if isinstance(value, trace_type._Sequence):
        return [spec for item in value.components for spec in _tensor_specs(item)]
    if isinstance(value, trace_type.Dict):
        return [spec for key in sorted(value.mapping, key=repr) for spec in _tensor_specs(value.mapping[key])]
    return []


def _input_names(concrete):
    """TF's signature input keys: a TensorSpec's name, else the argument's name (`name_i`
    for the i-th tensor of a nested argument)."""
    names = []
    args, kwargs = concrete.structured_input_signature
    parameters = list(concrete.function_type.parameters)
    for name, spec in list(zip(parameters, args)) + list(kwargs.items()):
        specs = _tensor_specs(spec)
        for index, tensor_spec in enumerate(specs):
            names.append(tensor_spec.name or (name if len(specs) == 1 else "%s_%d" % (name, index)))
    return names


def _output_names(concrete):
    """TF's signature output keys: a returned dict's keys, else `output_<i>`."""
    outputs = concrete.structured_outputs
    if isinstance(outputs, dict):
        keys = sorted(outputs)
        for key in keys:
            if not isinstance(outputs[key], SymbolicTensor):
                raise ValueError("Got a dictionary containing non-Tensor value %r for key %r "
                                 "in the output of the function used to generate the "
                                 "SavedModel signature. Dictionaries outputs for functions "
                                 "used as signatures should have one Tensor output per string "
                                 "key." % (outputs[key], key))
        return keys
    flat = nest.flatten(outputs)
    return ["output_%d" % index for index in range(len(flat))]


class _Saver(object):
    """Collects a save: the object graph, functions, programs and the manifest."""

    def __init__(self, root, options):
        self.options = options or SaveOptions()
        self.graph = tracking.ObjectGraph(root)
        self.variable_keys = {id(var): key for key, var in self.graph.keys.items()}
        self.concretes = []             # ConcreteFunctions, in saving order
        self.concrete_ids = {}
        self.asset_files = {}           # file name in assets/ -> source path
        self.root_functions = {}        # the root's {name: tf.function}, once listed

    def add_concrete(self, concrete):
        if id(concrete) not in self.concrete_ids:
            self.concrete_ids[id(concrete)] = len(self.concretes)
            self.concretes.append(concrete)
        return self.concrete_ids[id(concrete)]

    def add_asset(self, asset):
        """The name the asset's file gets in `assets/` (its own, made unique)."""
        base, extension = os.path.splitext(os.path.basename(asset.path))
        name, index = base + extension, 1
        while self.asset_files.get(name, asset.path) != asset.path:
            name, index = "%s_%d%s" % (base, index, extension), index + 1
        self.asset_files[name] = asset.path
        return name

    def extra_inputs(self, concrete, what):
        """[(manifest entry, value)] of the trace's graph inputs: tracked variables (live when
        loaded), captured tensors (constants)."""
        entries = []
        for node in concrete._extra.nodes:
            kind = node.meta["input_kind"]
            if kind == "variable":
                variable = node.meta["variable"]
                key = self.variable_keys.get(id(variable))
                if key is None:
                    raise AssertionError(
                        "Tried to export %s, which references an untracked resource: the "
                        "variable %r. Variables a saved function uses must be tracked by the "
                        "saved object (assign them to an attribute)." % (what, variable.name))
                entries.append(({"variable": key}, variable._storage_for_graph()))
            else:
                value = node.meta["value"]
                if not isinstance(value, torch.Tensor):
                    raise programs.ProgramExportError(
                        "Cannot save %s: it captures a string tensor" % what)
                entries.append(({"capture": True}, value))
        return entries

    def function_entry(self, index, directory):
        concrete = self.concretes[index]
        what = "the function %r" % concrete.graph.name
        extras = self.extra_inputs(concrete, what)
        feed_specs = [(None if p.shape.rank is None else p.shape.as_list(),
                       p.dtype.torch_dtype) for p in concrete.inputs]
        for placeholder in concrete.inputs:
            if placeholder.dtype == dtypes.string:
                raise programs.ProgramExportError("Cannot save %s: it takes a string tensor"
                                                  % what)
        custom_gradients = concrete.graph.get_collection(CUSTOM_GRADIENT_FUNCTIONS)
        if custom_gradients and self.options.experimental_custom_gradients:
            raise programs.ProgramExportError(
                "Cannot save %s with the custom gradient of tf.custom_gradient %s: tfcompat "
                "stores traced functions as torch.export programs, which keep only the "
                "forward pass. tf.saved_model.SaveOptions(experimental_custom_gradients="
                "False) saves it without the custom gradient: the loaded function then has "
                "no gradient (differentiating it raises LookupError, as in TensorFlow)."
                % (what, ", ".join(sorted(set(custom_gradients)))))
        program = programs.export(concrete._module, feed_specs,
                                  [value for _, value in extras], what)
        name = "function_%d" % index
        captures = {"capture_%d" % i: value for i, (entry, value) in enumerate(extras)
                    if "capture" in entry}
        programs.save(program, directory, name, captures)
        extra_entries = []
        for i, (entry, _) in enumerate(extras):
            extra_entries.append({"capture": "capture_%d" % i} if "capture" in entry else entry)
        positions = {id(t): i for i, t in enumerate(concrete._flat_outputs)}
        args, kwargs = concrete.structured_input_signature
        return {"name": concrete.graph.name, "program": name,
                "parameters": [[p.name, p.kind.name] for p in
                               concrete.function_type.parameters.values()],
                "args": [_spec_json(a) for a in args],
                "kwargs": [[k, _spec_json(v)] for k, v in kwargs.items()],
                "inputs": [{"shape": shape, "dtype": dtypes.from_torch(dtype).name}
                           for shape, dtype in feed_specs],
                "extras": extra_entries,
                "outputs": _outputs_json(concrete.structured_outputs, positions),
                "no_gradient": bool(custom_gradients)}

    def object_entries(self, save_traces):
        ids = {id(obj): i for i, obj in enumerate(self.graph.objects)}
        entries = []
        for position, obj in enumerate(self.graph.objects):
            children = [[name, ids[id(child)]] for name, child in tracking.dependencies(obj)
                        if id(child) in ids]
            entry = {"children": children}
            if isinstance(obj, Variable):
                entry["variable"] = {"key": self.variable_keys[id(obj)], "name": obj.name,
                                     "trainable": bool(obj.trainable),
                                     "dtype": obj.dtype.name}
            else:
                assets = {name: self.add_asset(value) for name, value in
                          getattr(obj, "__dict__", {}).items() if isinstance(value, Asset)}
                if assets:
                    entry["assets"] = assets
                functions = _functions_of(obj) if save_traces else {}
                if position == 0:
                    self.root_functions = functions
                entry["functions"] = {
                    name: [self.add_concrete(c) for c in _concrete_functions(function)]
                    for name, function in functions.items()}
            entries.append(entry)
        return entries


def _tensor_info(name, dtype, shape):
    info = meta_graph_pb2.TensorInfo(name=name, dtype=dtype.as_datatype_enum)
    if shape is None:
        info.tensor_shape.unknown_rank = True
    else:
        for size in shape:
            info.tensor_shape.dim.add(size=-1 if size is None else size)
    return info


def _meta_graph(signature_entries, concretes, tags):
    """The SavedModel proto: one MetaGraphDef tagged `tags` with each signature's
    SignatureDef (TF's tensor names: `<key>_<input>:0` in, `StatefulPartitionedCall:<i>`
    out), so TF's tools list our signatures."""
    proto = saved_model_proto.SavedModel(
        saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
    meta_graph = proto.meta_graphs.add()
    meta_graph.meta_info_def.tags.extend(tags)
    meta_graph.meta_info_def.tensorflow_version = "2.15.0"
    meta_graph.meta_info_def.tensorflow_git_version = "tfcompat"
    meta_graph.meta_info_def.stripped_default_attrs = True
    for call_index, (key, entry) in enumerate(sorted(signature_entries.items())):
        concrete = concretes[entry["function"]]
        signature = meta_graph.signature_def[key]
        signature.method_name = signature_constants.PREDICT_METHOD_NAME
        for name, placeholder in zip(entry["inputs"], concrete.inputs):
            signature.inputs[name].CopyFrom(_tensor_info(
                "%s_%s:0" % (key, name), placeholder.dtype,
                None if placeholder.shape.rank is None else placeholder.shape.as_list()))
        for index, name in enumerate(entry["outputs"]):
            tensor = concrete._flat_outputs[entry["output_positions"][index]]
            signature.outputs[name].CopyFrom(_tensor_info(
                "StatefulPartitionedCall%s:%d" % ("_%d" % call_index if call_index else "",
                                                  index),
                tensor.dtype, None if tensor.shape.rank is None else tensor.shape.as_list()))
    return proto


def signature_keys(concrete):
    """TF's signature of a trace: {"inputs": input keys, "outputs": output keys,
    "output_positions": where each output is among the trace's flat outputs}."""
    positions = {id(t): i for i, t in enumerate(concrete._flat_outputs)}
    outputs = concrete.structured_outputs
    flat = [outputs[key] for key in sorted(outputs)] if isinstance(outputs, dict) \
        else nest.flatten(outputs)
    return {"inputs": _input_names(concrete), "outputs": _output_names(concrete),
            "output_positions": [positions[id(t)] for t in flat]}


def _signature_entry(saver, concrete):
    return dict(signature_keys(concrete), function=saver.add_concrete(concrete))


def _write_serving_program(directory, key, entry, concrete, saver):
    """`tfcompat/signatures/<key>.pt2`: the signature for plain PyTorch (torch.export.load)."""
    what = "the signature %r" % key
    extras = saver.extra_inputs(concrete, what)
    inputs = [(name, None if p.shape.rank is None else p.shape.as_list(), p.dtype.torch_dtype)
              for name, p in zip(entry["inputs"], concrete.inputs)]
    program = programs.serving_program(concrete._module, inputs, [value for _, value in extras],
                                       entry["outputs"], entry["output_positions"], what)
    torch.export.save(program, os.path.join(directory, key + ".pt2"))


def save_object(obj, export_dir, signatures=None, options=None, extra_files=None,
                session=None, save_traces=True):
    """`save`, plus `extra_files` ({relative path: text}) written into the directory (with
    those of the root's `_saved_model_extra_files()`: Keras' metadata),
    `session`, the TF1 session holding the variables' values when saving in a TF1 graph (a
    TF1 graph has no functions to save), and `save_traces=False` (Keras'), which saves the
    objects' tf.functions not (the `signatures` given still are)."""
    saver = _Saver(obj, options)
    objects = saver.object_entries(save_traces)
    own_files = getattr(obj, "_saved_model_extra_files", None)
    extra_files = dict(own_files() if own_files is not None else {}, **(extra_files or {}))
    if signatures is None and not save_traces:
        signature_functions = {}
    else:
        signature_functions = _signatures(signatures, obj, saver.root_functions)
    signature_entries = {key: _signature_entry(saver, concrete)
                         for key, concrete in signature_functions.items()}
    export_dir = os.fspath(export_dir)
    tags = [tag_constants.SERVING] + list(saver.options.extra_tags)
    with checkpoint_format.atomic_directory(export_dir) as tmp:
        for directory in (constants.ASSETS_DIRECTORY, FUNCTIONS_DIRECTORY, SIGNATURES_DIRECTORY,
                          constants.VARIABLES_DIRECTORY):
            os.makedirs(os.path.join(tmp, directory), exist_ok=True)
        for name, source in saver.asset_files.items():
            shutil.copyfile(source, os.path.join(tmp, constants.ASSETS_DIRECTORY, name))
        functions = [saver.function_entry(index, os.path.join(tmp, FUNCTIONS_DIRECTORY))
                     for index in range(len(saver.concretes))]
        for key, entry in signature_entries.items():
            _write_serving_program(os.path.join(tmp, SIGNATURES_DIRECTORY), key, entry,
                                   saver.concretes[entry["function"]], saver)
        checkpoint_format.write(os.path.join(tmp, VARIABLES_PREFIX),
                                saver.graph.values(session), object_graph=saver.graph.proto)
        manifest = {"format": FORMAT, "version": FORMAT_VERSION, "objects": objects,
                    "functions": functions, "signatures": signature_entries}
        checkpoint_format.write_text_atomic(os.path.join(tmp, MANIFEST),
                                            json.dumps(manifest, indent=1))
        for path, text in extra_files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, path)), exist_ok=True)
            checkpoint_format.write_text_atomic(os.path.join(tmp, path), text)
        saved_model_proto.write(saved_model_proto.path_of(tmp),
                                _meta_graph(signature_entries, saver.concretes, tags))


@tf_export("saved_model.save", v1=["saved_model.experimental.save"])
def save(obj, export_dir, signatures=None, options=None):
    """TF 2's `tf.saved_model.save` (see the module docstring)."""
    if _state.building_graph:
        raise RuntimeError("tf.saved_model.save runs eagerly: call it outside tf.function and "
                           "outside TF1 graph building (TF1 graphs save with "
                           "tf.compat.v1.saved_model.simple_save or Builder).")
    save_object(obj, export_dir, signatures, options)
