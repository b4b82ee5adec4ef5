"""`tf.saved_model.load` (TF 2): a SavedModel written by tfcompat (save_impl.py) as live objects.

As in TF 2: the result mirrors the saved object graph (attributes by the saved names,
lists and dicts as lists and dicts); its variables are restored, trainable as saved, and
live (a loaded function reads their current values and its assignments change them;
gradients flow to them under a GradientTape); each saved tf.function becomes a callable
that runs the saved trace its arguments match (ValueError when none does); `.signatures`
maps each signature key to a function of keyword tensors returning a dict of tensors.
Where we differ: loaded objects are `tf.Module`s (so `.variables` and
`.trainable_variables` work on every one).

A TF 2 SavedModel written by TensorFlow itself (its MetaGraphDef holds TF's
`SavedObjectGraph`; ours holds tfcompat's manifest instead) loads the same way: user
objects, variables (values from the checkpoint in `variables/`, matched through its object
graph), assets, constants, functions and signatures, each function rebuilt from its
FunctionDef through `tf.raw_ops` (function_deserialization.py), never by running code.

A TF1 SavedModel (Builder / simple_save) loads as TF 2 loads one: its graph in a session of
its own, `.signatures` running it (keyword tensors in, a dict of tensors out), `.variables`
and `.graph`; `tags` may be omitted when it holds one meta graph.
"""
import inspect
import json
import os

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.client.session import Session
from tfcompat.eager import tape
from tfcompat.framework import context, dtypes, errors
from tfcompat.framework.graph import Graph
from tfcompat.framework.ops import convert_to_tensor, to_torch, without_gradient
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.module.module import Module
from tfcompat.ops.raw_ops import tensor_proto_value
from tfcompat.saved_model import (function_deserialization, loader_impl, programs,
                                  saved_model_proto)
from tfcompat.saved_model.save_impl import (FORMAT, FORMAT_VERSION, FUNCTIONS_DIRECTORY,
                                            MANIFEST, VARIABLES_PREFIX)
from tfcompat.saved_model.constants import ASSETS_DIRECTORY
from tfcompat.trackable.asset import Asset
from tfcompat.train import checkpoint_format
from tfcompat.variables import Variable

_state = context.state


class _UserObject(Module):
    """A loaded object: its saved children, variables and functions as attributes; called,
    it runs its saved `__call__` (a Keras model's call, as TF restores it)."""

    def __call__(self, *args, **kwargs):
        function = self.__dict__.get("_restored_call")
        if function is None:
            raise TypeError("'%s' object loaded from a SavedModel is not callable: it had no "
                            "__call__ function when saved" % type(self).__name__)
        return function(*args, **kwargs)


def _spec_matches(spec, value, flat):
    """Whether `value` fits the saved argument type `spec`; its tensors go to `flat`."""
    if "tensor" in spec:
        tensor_spec = spec["tensor"]
        if value is None or isinstance(value, (str, bytes, dict)):
            return False
        try:
            array = to_torch(value, dtype=dtypes.as_dtype(tensor_spec["dtype"]))
        except (TypeError, ValueError, errors.OpError):
            return False
        if not isinstance(array, torch.Tensor) or \
                dtypes.from_torch(array.dtype).name != tensor_spec["dtype"]:
            return False
        if not TensorShape(tensor_spec["shape"]).is_compatible_with(TensorShape(list(array.shape))):
            return False
        flat.append(array)
        return True
    if "literal" in spec:
        return type(value) is type(spec["literal"]) and value == spec["literal"] or \
            (value is None and spec["literal"] is None)
    for kind, container in (("list", list), ("tuple", tuple)):
        if kind in spec:
            return isinstance(value, (list, tuple)) and len(value) == len(spec[kind]) and \
                all(_spec_matches(s, v, flat) for s, v in zip(spec[kind], value))
    if "dict" in spec:
        keys = [key for key, _ in spec["dict"]]
        return isinstance(value, dict) and sorted(value) == sorted(keys) and \
            all(_spec_matches(s, value[key], flat) for key, s in spec["dict"])
    return False


def tensor_specs(spec):
    """The tensor specs of a saved argument type, flattened in the trace's order."""
    if "tensor" in spec:
        return [spec]
    for kind in ("list", "tuple"):
        if kind in spec:
            return [leaf for item in spec[kind] for leaf in tensor_specs(item)]
    if "dict" in spec:
        return [leaf for _, item in spec["dict"] for leaf in tensor_specs(item)]
    return []


def _spec_text(spec):
    if "tensor" in spec:
        t = spec["tensor"]
        return "TensorSpec(shape=%s, dtype=tf.%s, name=%r)" % (
            tuple(t["shape"]) if t["shape"] is not None else None, t["dtype"], t["name"])
    if "literal" in spec:
        return repr(spec["literal"])
    for kind, (start, end) in (("list", "[]"), ("tuple", "()")):
        if kind in spec:
            return start + ", ".join(_spec_text(s) for s in spec[kind]) + end
    return "{%s}" % ", ".join("%r: %s" % (key, _spec_text(s)) for key, s in spec["dict"])


def _pack(structure, outputs):
    if structure is None:
        return None
    if "output" in structure:
        return outputs[structure["output"]]
    if "list" in structure:
        return [_pack(s, outputs) for s in structure["list"]]
    if "tuple" in structure:
        return tuple(_pack(s, outputs) for s in structure["tuple"])
    return {key: _pack(s, outputs) for key, s in structure["dict"]}


_PARAMETER_KINDS = {kind.name: kind for kind in (
    inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY,
    inspect.Parameter.VAR_KEYWORD)}


class _LoadedConcreteFunction(object):
    """One saved trace: its program, argument types and the variables it reads."""

    def __init__(self, entry, module, extras):
        self.name = entry["name"]
        self._entry = entry
        self._module = module
        self._extras = extras           # Variables (live) and captured tensors
        self._parameters = [(name, _PARAMETER_KINDS[kind]) for name, kind in entry["parameters"]]
        specs = list(entry["args"]) + [spec for _, spec in entry["kwargs"]]
        self._specs = specs
        self._signature = inspect.Signature([inspect.Parameter(name, kind)
                                             for name, kind in self._parameters])

    def bind(self, args, kwargs):
        """The flat tensors of a call with these arguments, or None if they do not match.
        Omitted arguments traced with a Python value take that value (Keras' `training`)."""
        try:
            bound = self._signature.bind_partial(*args, **kwargs)
        except TypeError:
            return None
        flat = []
        for (name, _), spec in zip(self._parameters, self._specs):
            if name not in bound.arguments:
                if "literal" not in spec:
                    return None
                continue
            if not _spec_matches(spec, bound.arguments[name], flat):
                return None
        return flat

    def argument_text(self):
        return "(%s)" % ", ".join("%s: %s" % (name, _spec_text(spec)) for (name, _), spec in
                                  zip(self._parameters, self._specs))

    def run(self, tensors):
        """The flat outputs (EagerTensors) for the flat input tensors: the variables read
        live, under autograd while a tape records."""
        values = list(tensors)
        for extra in self._extras:
            values.append(extra._tfcompat_tensor_() if isinstance(extra, Variable) else extra)
        with torch.enable_grad() if tape.recording() else torch.no_grad():
            outputs = self._module(*values)
            if self._entry.get("no_gradient"):
                # saved with SaveOptions(experimental_custom_gradients=False): TF's loaded
                # function has no gradient for the custom-gradient op (IdentityN)
                outputs = [without_gradient(value, "IdentityN") for value in outputs]
            return [EagerTensor(value) for value in outputs]

    def call_flat(self, tensors):
        return _pack(self._entry["outputs"], self.run(tensors))

    def __call__(self, *args, **kwargs):
        flat = self.bind(args, kwargs)
        if flat is None:
            raise TypeError("%s%s was called with arguments that do not match its trace"
                            % (self.name, self.argument_text()))
        return self.call_flat(flat)


class RestoredFunction(object):
    """A tf.function loaded from a SavedModel: runs the saved trace its arguments match."""

    def __init__(self, name, concretes):
        self.__name__ = name
        self._concretes = concretes

    @property
    def concrete_functions(self):
        return list(self._concretes)

    def _match(self, args, kwargs):
        for concrete in self._concretes:
            flat = concrete.bind(args, kwargs)
            if flat is not None:
                return concrete, flat
        options = "\n".join("  Option %d:\n    %s" % (i + 1, c.argument_text())
                            for i, c in enumerate(self._concretes))
        raise ValueError(
            "Could not find matching concrete function to call loaded from the SavedModel. "
            "Got:\n  Positional arguments (%d total):\n%s\n  Keyword arguments: %r\n\n "
            "Expected these arguments to match one of the following %d option(s):\n\n%s"
            % (len(args), "\n".join("    * %r" % (a,) for a in args), kwargs,
               len(self._concretes), options))

    def __call__(self, *args, **kwargs):
        concrete, flat = self._match(args, kwargs)
        return concrete.call_flat(flat)

    def get_concrete_function(self, *args, **kwargs):
        if not args and not kwargs and len(self._concretes) == 1:
            return self._concretes[0]
        return self._match(args, kwargs)[0]


class _SignatureFunction(object):
    """A signature of a loaded SavedModel: keyword tensors in, {output key: tensor} out."""

    def __init__(self, key, entry, concrete):
        self.key = key
        self._input_names = list(entry["inputs"])
        self._output_names = list(entry["outputs"])
        self._output_positions = list(entry["output_positions"])
        self._concrete = concrete
        self.structured_outputs = {name: None for name in self._output_names}

    @property
    def structured_input_signature(self):
        specs = [leaf["tensor"] for spec in self._concrete._specs for leaf in tensor_specs(spec)]
        return (), {name: _spec_text({"tensor": dict(spec, name=name)})
                    for name, spec in zip(self._input_names, specs)}

    def __call__(self, *args, **kwargs):
        if args:
            raise TypeError("signature %r takes keyword arguments only (%s); got %d "
                            "positional" % (self.key, ", ".join(self._input_names), len(args)))
        missing = [name for name in self._input_names if name not in kwargs]
        unknown = sorted(set(kwargs) - set(self._input_names))
        if missing or unknown:
            raise TypeError("signature %r takes the keyword arguments %s; missing %s, "
                            "unexpected %s" % (self.key, self._input_names, missing, unknown))
        flat = []
        specs = [leaf for spec in self._concrete._specs for leaf in tensor_specs(spec)]
        for name, spec in zip(self._input_names, specs):
            if not _spec_matches(spec, kwargs[name], flat):
                raise errors.InvalidArgumentError(
                    None, None, "signature %r: input %r does not match %s"
                    % (self.key, name, _spec_text(spec)))
        outputs = self._concrete.run(flat)
        return {name: outputs[position] for name, position in
                zip(self._output_names, self._output_positions)}


class _SignatureMap(dict):
    """`loaded.signatures`: {signature key: function}."""


def is_tf2_saved_model(export_dir):
    """Whether `export_dir` was written by tf.saved_model.save (it has tfcompat's manifest)."""
    return os.path.isfile(os.path.join(export_dir, MANIFEST))


class _GraphSignature(object):
    """A signature of a TF1 SavedModel loaded by TF 2's load: runs the graph's session."""

    def __init__(self, key, session, signature_def):
        self.key = key
        self._session = session
        graph = session.graph
        self._inputs = {name: graph.get_tensor_by_name(info.name)
                        for name, info in signature_def.inputs.items()}
        self._outputs = {name: graph.get_tensor_by_name(info.name)
                         for name, info in signature_def.outputs.items()}
        self.structured_outputs = {name: None for name in sorted(self._outputs)}

    def __call__(self, *args, **kwargs):
        if args or set(kwargs) != set(self._inputs):
            raise TypeError("signature %r takes the keyword arguments %s; got %d positional "
                            "and %s" % (self.key, sorted(self._inputs), len(args),
                                        sorted(kwargs)))
        feed = {self._inputs[name]: np.asarray(to_torch(value)) for name, value in kwargs.items()}
        values = self._session.run(self._outputs, feed_dict=feed)
        return {name: convert_to_tensor(value) for name, value in sorted(values.items())}


class _V1SavedModel(object):
    """What TF 2's load gives for a TF1 SavedModel: `.graph`, `.variables`, `.signatures`."""

    def __init__(self, graph, variables, signatures):
        self.graph = graph
        self.variables = variables
        self.signatures = signatures


def _load_v1(export_dir, tags, proto):
    """A TF1 SavedModel as TF 2's load gives it (see the module docstring)."""
    if tags is None:
        if len(proto.meta_graphs) != 1:
            raise ValueError(
                "Importing a SavedModel with `tf.saved_model.load` requires a `tags=` argument "
                "if there is more than one MetaGraph. Got `tags=None`, but there are %d "
                "MetaGraphs in the SavedModel with tag sets: %s. Pass a `tags=` argument to "
                "load this SavedModel." % (len(proto.meta_graphs), [
                    list(m.meta_info_def.tags) for m in proto.meta_graphs]))
        tags = list(proto.meta_graphs[0].meta_info_def.tags)
    tags = [tags] if isinstance(tags, str) else list(tags)
    graph = Graph()
    session = Session(graph=graph)
    meta = loader_impl.load(session, tags, export_dir)
    return _V1SavedModel(graph, graph.get_collection("variables"), _SignatureMap(
        {key: _GraphSignature(key, session, signature)
         for key, signature in sorted(meta.signature_def.items())}))


def _read_manifest(export_dir):
    path = os.path.join(export_dir, MANIFEST)
    try:
        with open(path) as f:
            manifest = json.load(f)
    except ValueError as error:
        raise errors.DataLossError(None, None, "%s is corrupted: %s" % (path, error))
    if manifest.get("format") != FORMAT or manifest.get("version", 0) > FORMAT_VERSION:
        raise errors.DataLossError(None, None, "%s is not a SavedModel manifest of a version "
                                   "this tfcompat reads (format %r, version %r)"
                                   % (path, manifest.get("format"), manifest.get("version")))
    return manifest


def _check_tags(proto, tags, export_dir):
    if tags is None:
        return
    wanted = {tags} if isinstance(tags, str) else set(tags)
    available = [sorted(m.meta_info_def.tags) for m in proto.meta_graphs]
    if not any(wanted == set(t) for t in available):
        raise RuntimeError("MetaGraphDef associated with tags %s could not be found in "
                           "SavedModel %s, with available tags '%s'"
                           % (sorted(wanted), export_dir, available))


class _Loader(object):
    def __init__(self, export_dir, manifest):
        self.export_dir = export_dir
        self.manifest = manifest
        self.reader = checkpoint_format.open_reader(os.path.join(export_dir, VARIABLES_PREFIX))
        self.objects = [self._make(entry) for entry in manifest["objects"]]
        self.functions = [self._function(entry) for entry in manifest["functions"]]

    def _make(self, entry):
        variable = entry.get("variable")
        if variable is None:
            return _UserObject()
        value = self.reader.get_tensor(variable["key"])
        if isinstance(value, np.ndarray) and value.dtype == object:
            raise NotImplementedError("loading string variables from a SavedModel")
        return Variable(np.asarray(value), trainable=variable["trainable"],
                        name=variable["name"].split(":")[0],
                        dtype=dtypes.as_dtype(variable["dtype"]))

    def _function(self, entry):
        module, extra_tensors = programs.load(
            os.path.join(self.export_dir, FUNCTIONS_DIRECTORY), entry["program"])
        extras = []
        for item in entry["extras"]:
            if "variable" in item:
                extras.append(self._variable(item["variable"]))
            else:
                extras.append(extra_tensors[item["capture"]])
        return _LoadedConcreteFunction(entry, module, extras)

    def _variable(self, key):
        for entry, obj in zip(self.manifest["objects"], self.objects):
            if (entry.get("variable") or {}).get("key") == key:
                return obj
        raise errors.DataLossError(None, None, "%s: a function reads the variable %r, which "
                                   "the SavedModel does not hold" % (self.export_dir, key))

    def root(self):
        for obj, entry in zip(self.objects, self.manifest["objects"]):
            if isinstance(obj, Variable):
                continue
            for name, child in entry["children"]:
                setattr(obj, name, self.objects[child])
            for name, filename in entry.get("assets", {}).items():
                if os.path.basename(filename) != filename:
                    raise errors.DataLossError(None, None, "%s: the asset file name %r is "
                                               "not a plain name" % (self.export_dir, filename))
                setattr(obj, name, Asset(os.path.join(self.export_dir, ASSETS_DIRECTORY,
                                                      filename)))
            for name, ids in entry.get("functions", {}).items():
                restored = RestoredFunction(name, [self.functions[i] for i in ids])
                if name == "__call__":
                    obj.__dict__["_restored_call"] = restored
                else:
                    setattr(obj, name, restored)
        root = self.objects[0]
        signatures = _SignatureMap()
        for key, entry in sorted(self.manifest["signatures"].items()):
            signatures[key] = _SignatureFunction(key, entry, self.functions[entry["function"]])
        root.signatures = signatures
        return root


class _RevivedFunction(RestoredFunction):
    """A tf.function of a TensorFlow-written SavedModel: a call's arguments are placed by
    the saved FunctionSpec (names, defaults) before a trace is matched, as TF does."""

    def __init__(self, name, concretes, function_spec):
        super(_RevivedFunction, self).__init__(name, concretes)
        self._function_spec = function_spec

    def _match(self, args, kwargs):
        args, kwargs = function_deserialization.canonical_arguments(self._function_spec,
                                                                    args, kwargs)
        return super(_RevivedFunction, self)._match(tuple(args), kwargs)


def written_by_tensorflow(proto):
    """Whether a SavedModel (not tfcompat's) holds TF 2's object graph: it was written by
    TensorFlow's tf.saved_model.save / Keras' model.save (a TF1 SavedModel has none)."""
    return any(len(meta.object_graph_def.nodes) for meta in proto.meta_graphs)


class _RevivedLoader(object):
    """The objects of a SavedModel written by TensorFlow (see the module docstring)."""

    def __init__(self, export_dir, meta_graph):
        self.export_dir = export_dir
        self.meta_graph = meta_graph
        self.graph = meta_graph.object_graph_def
        self.library = {f.signature.name: f for f in meta_graph.graph_def.library.function}
        reader = checkpoint_format.open_reader(os.path.join(export_dir, VARIABLES_PREFIX))
        keys = self._variable_keys(reader)
        self.objects = [self._make(i, node, reader, keys)
                        for i, node in enumerate(self.graph.nodes)]
        self.concretes = {}

    def _variable_keys(self, reader):
        """{saved node id: checkpoint key of its value}: the checkpoint's object graph
        walked beside the SavedModel's from their roots, by child name."""
        checkpoint_graph = reader.object_graph()
        if checkpoint_graph is None:
            return {}
        keys, pending, seen = {}, [(0, 0)], set()
        while pending:
            checkpoint_id, saved_id = pending.pop()
            if checkpoint_id in seen:
                continue
            seen.add(checkpoint_id)
            for attribute in checkpoint_graph.nodes[checkpoint_id].attributes:
                if attribute.name == "VARIABLE_VALUE":
                    keys[saved_id] = attribute.checkpoint_key
            children = {c.local_name: c.node_id for c in self.graph.nodes[saved_id].children}
            pending.extend((child.node_id, children[child.local_name])
                           for child in checkpoint_graph.nodes[checkpoint_id].children
                           if child.local_name in children)
        return keys

    def _make(self, node_id, node, reader, keys):
        kind = node.WhichOneof("kind")
        if kind == "user_object":
            return _SignatureMap() if node.user_object.identifier == "signature_map" \
                else _UserObject()
        if kind == "variable":
            if node_id not in keys:
                raise errors.DataLossError(None, None, "%s: the checkpoint holds no value "
                                           "for variable %r" % (self.export_dir,
                                                                node.variable.name))
            value = reader.get_tensor(keys[node_id])
            if isinstance(value, np.ndarray) and value.dtype == object:
                raise NotImplementedError("loading string variables from a SavedModel")
            return Variable(np.asarray(value), trainable=node.variable.trainable,
                            name=node.variable.name.split(":")[0],
                            dtype=dtypes.as_dtype(node.variable.dtype))
        if kind == "constant":
            const = [n for n in self.meta_graph.graph_def.node
                     if n.name == node.constant.operation and n.op == "Const"]
            if not const:
                raise errors.DataLossError(None, None, "%s: constant %r is not in the graph"
                                           % (self.export_dir, node.constant.operation))
            dtype = dtypes.as_dtype(const[0].attr["dtype"].type)
            return convert_to_tensor(tensor_proto_value(const[0].attr["value"].tensor, dtype),
                                     dtype)
        if kind == "asset":
            filename = self.meta_graph.asset_file_def[node.asset.asset_file_def_index].filename
            if os.path.basename(filename) != filename:
                raise errors.DataLossError(None, None, "%s: the asset file name %r is not a "
                                           "plain name" % (self.export_dir, filename))
            return Asset(os.path.join(self.export_dir, ASSETS_DIRECTORY, filename))
        if kind in ("function", "bare_concrete_function"):
            return None     # made once every object they capture exists
        raise NotImplementedError("tfcompat cannot load the %s objects of SavedModels written "
                                  "by TensorFlow" % kind)

    def _concrete(self, name):
        if name not in self.concretes:
            saved = self.graph.concrete_functions[name]
            self.concretes[name] = function_deserialization.RevivedConcreteFunction(
                name, saved, self.library, [self.objects[i] for i in saved.bound_inputs])
        return self.concretes[name]

    def _child(self, child):
        node = self.graph.nodes[child.node_id]
        kind = node.WhichOneof("kind")
        if kind == "function":
            return _RevivedFunction(child.local_name, [
                self._concrete(name) for name in node.function.concrete_functions],
                node.function.function_spec)
        if kind == "bare_concrete_function":
            return self._concrete(node.bare_concrete_function.concrete_function_name)
        return self.objects[child.node_id]

    def root(self):
        for obj, node in zip(self.objects, self.graph.nodes):
            if isinstance(obj, _SignatureMap):
                obj.update((child.local_name, self._child(child)) for child in node.children)
            elif isinstance(obj, _UserObject):
                for child in node.children:
                    value = self._child(child)
                    if child.local_name == "__call__":
                        obj.__dict__["_restored_call"] = value
                    else:
                        obj.__dict__[child.local_name] = value
        root = self.objects[0]
        if not isinstance(root.__dict__.get("signatures"), _SignatureMap):
            root.signatures = _SignatureMap()
        return root


def _revived_meta_graph(proto, tags):
    if tags is None:
        return next(meta for meta in proto.meta_graphs if len(meta.object_graph_def.nodes))
    wanted = {tags} if isinstance(tags, str) else set(tags)
    return next(meta for meta in proto.meta_graphs if set(meta.meta_info_def.tags) == wanted)


@tf_export(v2=["saved_model.load"], v1=["saved_model.load_v2"])
def load(export_dir, tags=None, options=None):
    """TF 2's `tf.saved_model.load` (see the module docstring)."""
    if _state.building_graph:
        raise RuntimeError("tf.saved_model.load (TF 2) runs eagerly; in a TF1 graph use "
                           "tf.compat.v1.saved_model.loader.load(sess, tags, export_dir).")
    export_dir = os.fspath(export_dir)
    proto = saved_model_proto.read(export_dir)
    if not is_tf2_saved_model(export_dir):
        if written_by_tensorflow(proto):
            _check_tags(proto, tags, export_dir)
            return _RevivedLoader(export_dir, _revived_meta_graph(proto, tags)).root()
        return _load_v1(export_dir, tags, proto)
    manifest = _read_manifest(export_dir)
    _check_tags(proto, tags, export_dir)
    return _Loader(export_dir, manifest).root()
