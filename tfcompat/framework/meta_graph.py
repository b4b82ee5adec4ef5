"""TF's `python/framework/meta_graph.py` for tfcompat's own graphs: a `tf.Graph` as a
`MetaGraphDef` proto and back.

The `graph_def` holds one NodeDef per op (name, TF op type, inputs as "name:index" and
"^control", device, `T`/`dtype` and `_output_shapes` attrs, a Const's value as a TensorProto
in `value`, as TF writes them). What tfcompat needs to rebuild a node is kept in attrs of its
own: `_tfcompat_kind` (placeholder, constant, variable, op, ...), for a registered op the
function's key (`_tfcompat_op`, "module:qualname" of an `@op` function) and its static
arguments as JSON (`_tfcompat_args`: numbers, strings, lists, dtypes, shapes, slices; the
tensor inputs are numbered slots). Importing resolves a key only among the `@op` functions
of tfcompat's loaded modules: a name that is not one of them is refused, nothing named in the
file is imported or evaluated.

Nodes tfcompat records by hand (control flow, py_func, gradients, optimizer updates) cannot
be rebuilt from a NodeDef: they are exported as `unsupported` nodes with their outputs'
dtypes and shapes, and once imported they raise NotImplementedError naming the node when a
run needs them. Variables come back as variables of the same names (the caller makes them:
variables live above this layer) and collections as lists of the imported tensors, ops and
variables.

Meta graphs written by real TensorFlow (nodes without these attrs: `.meta` files, TF1
SavedModels' graphs) take the other path, `_import_tf_meta_graph`: their nodes are built
as tf.raw_ops by the GraphDef importer (ops/importer.py, passed in by the caller, as it lives
above this layer), the variable nodes become tfcompat Variables and the collections are
restored the same way.
"""
import base64
import json
import logging
import sys
import types

import numpy as np
import torch
from tensorboard.compat.proto import meta_graph_pb2, variable_pb2

from tfcompat.framework import dtypes, errors
from tfcompat.framework.constant_op import constant
from tfcompat.framework.graph import (BoundOp, ConstantOp, Operation, SymbolicTensor, _Slot,
                                      _default_value)
from tfcompat.framework.tensor_shape import TensorShape

_logger = logging.getLogger("tensorflow")

KIND = "_tfcompat_kind"
OP_KEY = "_tfcompat_op"
ARGS = "_tfcompat_args"
UNSUPPORTED_REASON = "_tfcompat_unsupported"


class _Unencodable(Exception):
    """A static argument that is not plain data (a function, an object)."""


# ---------------------------------------------------------------- registered op functions

_index = {"count": None, "ops": {}, "op_keys": {}, "classes": {}}


# The modules whose configurable classes a meta graph may name: the initializers that ops
# such as get_variable take as static arguments (nothing else is rebuilt from a config).
_INITIALIZER_MODULES = ("tfcompat.ops.init_ops", "tfcompat.keras.initializers",
                        "tfcompat.contrib.layers.initializers")


def _refresh_index():
    """Index what a meta graph may name, once per export or import (scanning the modules
    again only when more tfcompat modules were loaded): "ops", {"module:qualname": function}
    of every `@op` function in tfcompat's loaded modules (a key two functions share is left
    out: ambiguous), "op_keys", {id(function): key}, and "classes", the initializer classes
    with `get_config`/`from_config` of `_INITIALIZER_MODULES`."""
    modules = [module for name, module in list(sys.modules.items())
               if (name == "tfcompat" or name.startswith("tfcompat.")) and module is not None]
    if _index["count"] == len(modules):
        return
    ops, ambiguous, classes = {}, set(), {}
    for module in modules:
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ in _INITIALIZER_MODULES and \
                    "get_config" in dir(value) and "from_config" in dir(value):
                classes[_key(value)] = value
            if not isinstance(value, types.FunctionType) or "_tfcompat_impl" not in value.__dict__:
                continue
            impl = value.__dict__["_tfcompat_impl"]
            key = _key(impl)
            if ops.get(key, impl) is not impl:
                ambiguous.add(key)
            ops[key] = impl
    for key in ambiguous:
        del ops[key]
    _index.update(count=len(modules), ops=ops, classes=classes,
                  op_keys={id(fn): key for key, fn in ops.items()})


def _key(obj):
    return "%s:%s" % (obj.__module__, obj.__qualname__)


def _configurable_class(key):
    """The tfcompat class (with `get_config`/`from_config`: initializers) named `key`."""
    cls = _index["classes"].get(key)
    if cls is None:
        raise errors.NotFoundError(
            None, None, "%r is not a configurable tfcompat class; refused (a meta graph can "
            "only name tfcompat's own classes)." % key)
    return cls


def _op_function(key, node_name, op_type):
    fn = _index["ops"].get(key)
    if fn is None:
        raise errors.NotFoundError(
            None, None, "Op type not registered: node %r (op %s) names the function %r, "
            "which is not an op registered with tfcompat; refused (a meta graph can only "
            "name tfcompat's registered ops)." % (node_name, op_type, key))
    return fn


# ---------------------------------------------------------------- static arguments as JSON


def _encode(value):
    """A template value (an op's static arguments, `_Slot`s for inputs) as JSON data."""
    cls = type(value)
    if value is None or cls in (bool, str, float):
        return value
    if cls is int or (isinstance(value, int) and not isinstance(value, (bool, np.integer))):
        return int(value)
    if cls is list:
        return [_encode(v) for v in value]
    if cls is tuple:
        return {"tuple": [_encode(v) for v in value]}
    if cls is dict and all(isinstance(k, str) for k in value):
        return {"dict": {k: _encode(v) for k, v in value.items()}}
    if cls is _Slot:
        return {"input": value.index}
    if isinstance(value, dtypes.DType):
        return {"dtype": value.name}
    if isinstance(value, TensorShape):
        return {"shape": value.as_list() if value.rank is not None else None}
    if cls is slice:
        return {"slice": [_encode(value.start), _encode(value.stop), _encode(value.step)]}
    if value is Ellipsis:
        return {"ellipsis": True}
    if isinstance(value, torch.dtype):
        return {"torch_dtype": str(value).replace("torch.", "")}
    if cls is bytes:
        return {"bytes": base64.b64encode(value).decode("ascii")}
    if cls is torch.Generator:
        # a seeded random op's generator: imported, its sequence restarts from the seed, as
        # a TF graph's seeded ops do in a new session
        return {"generator": {"seed": value.initial_seed(), "device": str(value.device)}}
    if isinstance(value, (np.ndarray, np.generic)):
        return {"ndarray": _encode_array(np.asarray(value)), "scalar": cls is not np.ndarray}
    if (cls.__module__ or "").startswith("tfcompat.") and hasattr(value, "get_config") and \
            hasattr(cls, "from_config"):
        if _index["classes"].get(_key(cls)) is cls:
            return {"object": _key(cls), "config": _encode(value.get_config())}
    raise _Unencodable("%s argument %r" % (cls.__name__, value))


def _encode_array(array):
    if array.dtype == object:
        flat = array.reshape(-1)
        if not all(isinstance(v, bytes) for v in flat):
            raise _Unencodable("numpy object array holding other values than bytes")
        data = [base64.b64encode(v).decode("ascii") for v in flat]
        return {"dtype": "string", "shape": list(array.shape), "data": data}
    if array.dtype.kind not in "biufc":
        raise _Unencodable("numpy array of %s" % array.dtype)
    flat = array.reshape(-1)
    data = [[v.real, v.imag] for v in flat.tolist()] if array.dtype.kind == "c" \
        else flat.tolist()
    return {"dtype": array.dtype.str, "shape": list(array.shape), "data": data}


def _decode_array(spec):
    if spec["dtype"] == "string":
        flat = [base64.b64decode(v) for v in spec["data"]]
        return np.array(flat + [None], dtype=object)[:-1].reshape(spec["shape"])
    dtype = np.dtype(spec["dtype"])
    if dtype.kind not in "biufc":
        raise ValueError("numpy dtype %r is not a number type" % spec["dtype"])
    data = [complex(*v) for v in spec["data"]] if dtype.kind == "c" else spec["data"]
    return np.array(data, dtype=dtype).reshape(spec["shape"])


def _decode(data):
    """The template value `_encode` gave `data` for; only the types it writes."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [_decode(v) for v in data]
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise ValueError("not an encoded argument: %r" % (data,))
    if "object" in data:
        config = _decode(data["config"])
        if not isinstance(config, dict):
            raise ValueError("the config of %r is not a dict" % (data["object"],))
        return _configurable_class(str(data["object"])).from_config(config)
    tag = "ndarray" if "ndarray" in data else next(iter(data))
    body = data[tag]
    if tag == "tuple":
        return tuple(_decode(v) for v in body)
    if tag == "dict":
        return {k: _decode(v) for k, v in body.items()}
    if tag == "input":
        return _Slot(int(body))
    if tag == "dtype":
        return dtypes.as_dtype(str(body))
    if tag == "shape":
        return TensorShape(body)
    if tag == "slice":
        return slice(*[_decode(v) for v in body])
    if tag == "ellipsis":
        return Ellipsis
    if tag == "torch_dtype":
        value = getattr(torch, str(body), None)
        if not isinstance(value, torch.dtype):
            raise ValueError("%r is not a torch dtype" % (body,))
        return value
    if tag == "bytes":
        return base64.b64decode(body)
    if tag == "generator":
        generator = torch.Generator(device=torch.device(str(body["device"])))
        generator.manual_seed(int(body["seed"]))
        return generator
    if tag == "ndarray":
        array = _decode_array(body)
        return array[()] if data.get("scalar") else array
    raise ValueError("unknown argument encoding %r" % tag)


# ---------------------------------------------------------------- export


def _tensor_ref(tensor, strip):
    name = strip(tensor.op.name)
    return name if tensor.value_index == 0 else "%s:%d" % (name, tensor.value_index)


def _set_outputs(node_def, op):
    for tensor in op.outputs:
        node_def.attr["_output_types"].list.type.append(tensor.dtype.as_datatype_enum)
        node_def.attr["_output_shapes"].list.shape.add().CopyFrom(tensor.shape.as_proto())


def _tensor_proto(value):
    # imported here: it loads tensorboard's TensorFlow stand-in (fsspec, absl), ~40 ms
    from tensorboard.util import tensor_util
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        value = value.float().numpy() if value.dtype is torch.bfloat16 else value.numpy()
    return tensor_util.make_tensor_proto(value)


def _tensor_value(proto, dtype):
    from tensorboard.util import tensor_util     # in-function: see _tensor_proto
    value = tensor_util.make_ndarray(proto)
    if dtype is dtypes.string:
        return np.array([bytes(v) for v in value.reshape(-1)] + [None],
                        dtype=object)[:-1].reshape(value.shape)
    return np.asarray(value).astype(dtype.as_numpy_dtype) if dtype is not dtypes.bfloat16 \
        else np.asarray(value, dtype=np.float32)


def _describe(op, variables, initializers):
    """(kind, attrs) of Operation `op`: how an import rebuilds it. `variables` maps the ids
    of the graph's variable ops to TF1 graph variables, `initializers` holds the ids of their
    initializer ops."""
    node = op._node
    if node.op == "placeholder":
        kind = node.meta.get("input_kind")
        if kind == "feed":
            return "placeholder", {}
        if kind == "variable":
            return ("variable", {}) if id(op) in variables else \
                ("unsupported", {"reason": "it reads an eager variable"})
        return "constant", {"value": node.meta["value"]}
    if id(op) in initializers:
        return "variable_initializer", {}
    target = node.target
    if op.type == "NoOp" and not isinstance(target, BoundOp) and not op.inputs \
            and not op.outputs:
        return "no_op", {}
    if not isinstance(target, BoundOp):
        return "unsupported", {"reason": "it is recorded by hand (%s)" % op.type}
    if isinstance(target, ConstantOp):
        return "constant", {"value": target()}
    if target.fn is _default_value:
        return "placeholder_with_default", {}
    key = _index["op_keys"].get(id(target.fn))
    if key is None:
        return "unsupported", {"reason": "its function %s is not a registered op"
                               % getattr(target.fn, "__qualname__", target.fn)}
    try:
        arguments = json.dumps({"args": _encode(tuple(target.args_template)),
                                "kwargs": _encode(dict(target.kwargs_template))})
    except _Unencodable as error:
        return "unsupported", {"reason": "its arguments are not plain data (%s)" % error}
    return "op", {"key": key, "args": arguments}


def _variable_def(variable, strip):
    """TF's VariableDef of a TF1 graph variable (`export_scope` prefix removed by `strip`)."""
    initializer = getattr(variable, "_initializer_op", None)
    initial_value = getattr(variable, "_initial_value", None)
    return variable_pb2.VariableDef(
        variable_name=strip(variable.name), trainable=bool(variable.trainable),
        initializer_name=strip(initializer.name) if initializer is not None else "",
        initial_value_name=strip(initial_value.name) if initial_value is not None else "",
        snapshot_name=strip(variable.name), is_resource=True)


def _collection_def(items, strip, is_variable):
    """A CollectionDef of a collection's items, or None when TF's kinds do not cover them."""
    collection = meta_graph_pb2.CollectionDef()
    if all(is_variable(item) for item in items):
        collection.bytes_list.value.extend(
            _variable_def(item, strip).SerializeToString() for item in items)
    elif all(isinstance(item, (SymbolicTensor, Operation)) for item in items):
        collection.node_list.value.extend(strip(item.name) for item in items)
    elif all(isinstance(item, (str, bytes)) for item in items):
        collection.bytes_list.value.extend(
            item.encode("utf-8") if isinstance(item, str) else item for item in items)
    elif all(isinstance(item, (int, np.integer)) and not isinstance(item, bool)
             for item in items):
        collection.int64_list.value.extend(int(item) for item in items)
    elif all(isinstance(item, (float, np.floating)) for item in items):
        collection.float_list.value.extend(float(item) for item in items)
    else:
        return None
    return collection


def _scope_stripper(export_scope):
    if not export_scope:
        return lambda name: name
    prefix = export_scope.rstrip("/") + "/"

    def strip(name):
        if not name.startswith(prefix):
            raise ValueError("%s is outside export_scope %r and is used by an op inside it"
                             % (name, export_scope))
        return name[len(prefix):]
    return strip


def export_scoped_meta_graph(graph, meta_info_def=None, saver_def=None, collection_list=None,
                             export_scope=None, clear_devices=False):
    """The MetaGraphDef of `graph` (TF's `export_scoped_meta_graph`): its ops, the
    collections naming tensors, ops, variables or plain values (`collection_list`: only
    those), the SaverDef. With `export_scope` only the ops under it, names relative to it."""
    _refresh_index()
    strip = _scope_stripper(export_scope)
    prefix = export_scope.rstrip("/") + "/" if export_scope else ""
    meta = meta_graph_pb2.MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    variables = {id(v._handle.op): v for v, _ in graph._variable_inputs.values()
                 if v._in_graph()}
    initializers = {id(v._initializer_op) for v in variables.values()
                    if getattr(v, "_initializer_op", None) is not None}
    graph_def = meta.graph_def
    graph_def.versions.CopyFrom(graph.graph_def_versions)
    for op in graph.get_operations():
        if not op.name.startswith(prefix):
            continue
        kind, facts = _describe(op, variables, initializers)
        node_def = graph_def.node.add(name=strip(op.name), op=op.type,
                                      device="" if clear_devices else op.device)
        node_def.input.extend(_tensor_ref(t, strip) for t in op.inputs)
        node_def.input.extend("^" + strip(c.name) for c in op.control_inputs)
        node_def.attr[KIND].s = kind.encode()
        _set_outputs(node_def, op)
        if op.outputs:
            node_def.attr["T" if op.inputs else "dtype"].type = \
                op.outputs[0].dtype.as_datatype_enum
        if kind in ("placeholder", "placeholder_with_default"):
            node_def.attr["shape"].shape.CopyFrom(op.outputs[0].shape.as_proto())
        elif kind == "variable":
            variable = variables[id(op)]
            node_def.attr["shape"].shape.CopyFrom(variable.shape.as_proto())
            node_def.attr["dtype"].type = variable.dtype.as_datatype_enum
            node_def.attr["shared_name"].s = strip(op.name).encode()
        elif kind == "constant":
            node_def.attr["value"].tensor.CopyFrom(_tensor_proto(facts["value"]))
        elif kind == "op":
            node_def.attr[OP_KEY].s = facts["key"].encode()
            node_def.attr[ARGS].s = facts["args"].encode()
        elif kind == "unsupported":
            node_def.attr[UNSUPPORTED_REASON].s = facts["reason"].encode()
    keys = graph.get_all_collection_keys() if collection_list is None else collection_list
    variable_objects = {id(v) for v in variables.values()}
    for key in keys:
        if not isinstance(key, (str, bytes)):
            continue        # Python-side state (the variable store), as TF skips it
        items = [item for item in graph.get_collection(key)
                 if not prefix or getattr(item, "name", "").startswith(prefix)]
        if not items:
            continue
        if all(hasattr(item, "as_saver_def") for item in items):
            continue    # Savers: the importer makes one from `saver_def`
        collection = _collection_def(items, strip, lambda item: id(item) in variable_objects)
        if collection is None:
            _logger.warning("Issue encountered when serializing: %s. The collection holds "
                            "objects other than tensors, ops, variables and plain values; "
                            "it is not exported.", key)
            continue
        meta.collection_def[key].CopyFrom(collection)
    return meta


# ---------------------------------------------------------------- import


def is_tfcompat_meta_graph(meta_graph_def):
    """Whether every node of `meta_graph_def` was written by tfcompat (an empty graph too)."""
    return all(KIND in node.attr for node in meta_graph_def.graph_def.node)


def _no_op(*unused):
    return None


class UnrebuiltNodeError(errors.UnimplementedError, NotImplementedError):
    """A node of an imported meta graph that tfcompat could not rebuild was run."""


def _unsupported_fn(name, op_type, reason):
    def run(*unused):
        raise UnrebuiltNodeError(None, None, 
            "Node %r (op %s) of an imported meta graph cannot run: %s, and tfcompat cannot "
            "rebuild such a node from a meta graph." % (name, op_type, reason))
    return run


def _shape_of(proto):
    return TensorShape(None) if proto.unknown_rank else \
        TensorShape([None if d.size < 0 else d.size for d in proto.dim])


class _Importer(object):
    """Rebuilds a MetaGraphDef's nodes into `graph`, in order (inputs come first)."""

    dropped_scope = None    # every node is imported

    def __init__(self, graph, import_scope, clear_devices, make_variable):
        self.graph = graph
        self.prefix = import_scope.rstrip("/") + "/" if import_scope else ""
        self.clear_devices = clear_devices
        self.make_variable = make_variable
        self.ops = {}           # name in the file -> Operation made here
        self.variables = {}     # variable name in the file ("w:0") -> variable

    def name_for(self, name):
        """The exact name (trailing "/") a node of the file gets here."""
        full = self.prefix + name
        if full in self.graph._ops_by_name:
            return self.graph.unique_name(full) + "/"
        return full + "/"

    def tensor(self, reference):
        name, _, index = reference.partition(":")
        op = self.ops.get(name)
        if op is None:
            raise ValueError("Node input %r names no node imported before it" % reference)
        return op.outputs[int(index or 0)]

    def import_node(self, node_def, variable_defs):
        data_inputs = [self.tensor(i) for i in node_def.input if not i.startswith("^")]
        controls = [self.ops[i[1:]] for i in node_def.input if i.startswith("^")]
        kind = node_def.attr[KIND].s.decode()
        made = self.make(node_def, kind, data_inputs, variable_defs)
        if made is None:
            return
        op = made if isinstance(made, Operation) else made.op
        for control in controls:
            if control not in op._control_inputs:
                op._add_control_input(control)
        if not self.clear_devices and node_def.device:
            op.device = node_def.device
        self.ops[node_def.name] = op

    def make(self, node_def, kind, inputs, variable_defs):
        graph, name, op_type = self.graph, node_def.name, node_def.op
        output_types = [dtypes.as_dtype(t) for t in node_def.attr["_output_types"].list.type]
        if kind == "placeholder":
            return graph.placeholder(output_types[0], _shape_of(node_def.attr["shape"].shape),
                                     name=self.name_for(name), op_type=op_type)
        if kind == "constant":
            value = _tensor_value(node_def.attr["value"].tensor, output_types[0])
            bound = ConstantOp(constant._tfcompat_impl, "Const", (value,),
                               {"dtype": output_types[0]})
            return graph.record_bound(bound, [], self.name_for(name)).op
        if kind == "placeholder_with_default":
            tensor = graph.record_bound(BoundOp(_default_value, op_type, (_Slot(0),), {}),
                                        inputs, self.name_for(name))
            tensor._static = _shape_of(node_def.attr["shape"].shape)
            return tensor.op
        if kind == "no_op":
            return graph.record_custom(_no_op, op_type, [], None, self.name_for(name))
        if kind == "variable":
            return self.make_variable_node(node_def, variable_defs)
        if kind == "variable_initializer":
            variable = self.variables.get(variable_defs.get("initializer:" + name))
            if variable is None:
                raise ValueError("Node %r initializes no variable of the meta graph" % name)
            self.ops[name] = variable.initializer
            return None
        if kind == "op":
            fn = _op_function(node_def.attr[OP_KEY].s.decode(), name, op_type)
            arguments = json.loads(node_def.attr[ARGS].s.decode())
            args, kwargs = _decode(arguments["args"]), _decode(arguments["kwargs"])
            outputs = graph.record_bound(BoundOp(fn, op_type, tuple(args), dict(kwargs)),
                                         inputs, self.name_for(name))
            return outputs if isinstance(outputs, Operation) else _first_op(outputs)
        if kind == "unsupported":
            reason = node_def.attr[UNSUPPORTED_REASON].s.decode()
            shapes = [_shape_of(s) for s in node_def.attr["_output_shapes"].list.shape]
            fakes = [graph._fake_for_shape(s, d) for s, d in zip(shapes, output_types)]
            fake_out = None if not fakes else fakes[0] if len(fakes) == 1 else fakes
            made = graph.record_custom(_unsupported_fn(self.prefix + name, op_type, reason),
                                       op_type, inputs, fake_out, self.name_for(name))
            return made if isinstance(made, Operation) else _first_op(made)
        raise ValueError("Node %r has an unknown tfcompat kind %r" % (name, kind))

    def make_variable_node(self, node_def, variable_defs):
        name = node_def.name
        definition = variable_defs.get(name + ":0")
        if definition is None:
            raise ValueError("Variable node %r is in no variable collection of the meta graph "
                             "(its VariableDef is missing)" % name)
        initial_value = self.tensor(definition.initial_value_name) \
            if definition.initial_value_name else None
        if initial_value is None:
            raise ValueError("Variable %r has no initial value in the meta graph" % name)
        variable = self.make_variable(initial_value, self.name_for(name), definition.trainable,
                                      _shape_of(node_def.attr["shape"].shape))
        self.variables[definition.variable_name] = variable
        return variable._handle.op

def _first_op(outputs):
    while isinstance(outputs, (list, tuple)):
        outputs = outputs[0]
    return outputs.op


def _variable_definitions(meta_graph_def):
    """{"w:0": VariableDef, "initializer:w/Assign": "w:0"} from the variable collections."""
    found = {}
    for collection in meta_graph_def.collection_def.values():
        if collection.WhichOneof("kind") != "bytes_list":
            continue
        for value in collection.bytes_list.value:
            definition = _parse_variable_def(value)
            if definition is not None:
                found[definition.variable_name] = definition
                if definition.initializer_name:
                    found["initializer:" + definition.initializer_name] = \
                        definition.variable_name
    return found


def variable_names(collection):
    """The variable names ("w:0") a CollectionDef of VariableDefs lists."""
    if collection.WhichOneof("kind") != "bytes_list":
        return []
    parsed = [_parse_variable_def(value, resource_only=False)
              for value in collection.bytes_list.value]
    return [definition.variable_name for definition in parsed if definition is not None]


def _parse_variable_def(value, resource_only=True):
    """The VariableDef `value` holds, or None when it is another kind of bytes (tfcompat
    writes resource variables only; real TF's ref variables count where `resource_only`
    is False)."""
    try:
        definition = variable_pb2.VariableDef.FromString(value)
    except Exception:       # noqa: BLE001 - protobuf's DecodeError: not a VariableDef
        return None
    if not definition.variable_name.endswith(":0") or \
            (resource_only and not definition.is_resource):
        return None
    return definition


def import_scoped_meta_graph(meta_graph_def, graph, make_variable, import_graph_def,
                             import_scope=None, clear_devices=False):
    """Rebuild `meta_graph_def` into `graph`: its ops, variables and collections. Returns
    {variable name in the file ("w:0"): variable}.

    Written by tfcompat: node by node here, variables made by
    `make_variable(initial_value, name, trainable, shape)`. Written by real TensorFlow:
    `import_graph_def(graph_def, scope)` builds the nodes as raw ops and returns
    {variable node name: variable}; see `_import_tf_meta_graph`."""
    if not is_tfcompat_meta_graph(meta_graph_def):
        return _import_tf_meta_graph(meta_graph_def, graph, import_graph_def, import_scope)
    _refresh_index()
    importer = _Importer(graph, import_scope, clear_devices, make_variable)
    variable_defs = _variable_definitions(meta_graph_def)
    with graph.as_default(), graph.name_scope(None), graph.control_dependencies(None):
        for node_def in meta_graph_def.graph_def.node:
            try:
                importer.import_node(node_def, variable_defs)
            except (KeyError, IndexError, ValueError, TypeError) as error:
                raise ValueError("Cannot import node %r (op %s) of the meta graph: %s"
                                 % (node_def.name, node_def.op, error)) from error
        _import_collections(meta_graph_def, graph, importer)
    return importer.variables


# TF's collections of VariableDefs (those it registers `Variable.to_proto` for)
VARIABLE_COLLECTIONS = ("variables", "trainable_variables", "local_variables",
                        "model_variables", "moving_average_variables", "global_step",
                        "metric_variables")


def _saver_scope(meta_graph_def):
    """"save/": the name scope of the nodes TF's Saver added (SaveV2, RestoreV2, ...), from
    its SaverDef, else (a graph exported without it) from its RestoreV2 node; None when
    there is no Saver."""
    if meta_graph_def.HasField("saver_def"):
        name = meta_graph_def.saver_def.filename_tensor_name.partition(":")[0]
    else:
        name = next((node.name for node in meta_graph_def.graph_def.node
                     if node.op in ("RestoreV2", "SaveV2")), "")
    return name.rpartition("/")[0] + "/" if "/" in name else None


class _ImportedTFGraph(object):
    """What `_import_collections` needs of an import: the name prefix, the variables by
    their names in the file, the scope of the file's nodes not imported."""

    def __init__(self, prefix, variables, dropped_scope):
        self.prefix = prefix
        self.variables = variables
        self.dropped_scope = dropped_scope


def _import_tf_meta_graph(meta_graph_def, graph, import_graph_def, import_scope):
    """A MetaGraphDef written by real TensorFlow: its nodes built through the GraphDef
    importer as tf.raw_ops, except the Saver's (`saver_def`'s scope: the Saver made from
    the SaverDef reads and writes checkpoints itself, so running `save/restore_all` by name
    is not supported); each VariableV2 / VarHandleOp node is the handle of a tfcompat
    Variable, given its VariableDef (`_bind_variable_def`: trainable, initializer, initial
    value); the collections then hold those variables and the imported tensors and ops."""
    prefix = import_scope.rstrip("/") + "/" if import_scope else ""
    dropped = _saver_scope(meta_graph_def)
    graph_def = type(meta_graph_def.graph_def)()
    graph_def.CopyFrom(meta_graph_def.graph_def)
    if dropped:
        del graph_def.node[:]
        graph_def.node.extend(node for node in meta_graph_def.graph_def.node
                              if not node.name.startswith(dropped))
    with graph.as_default(), graph.name_scope(None), graph.control_dependencies(None):
        node_variables = import_graph_def(graph_def, prefix)
        variables = {}
        for key in VARIABLE_COLLECTIONS:
            if key not in meta_graph_def.collection_def:
                continue
            for value in meta_graph_def.collection_def[key].bytes_list.value:
                definition = _parse_variable_def(value, resource_only=False)
                variable = None if definition is None else \
                    node_variables.get(definition.variable_name[:-2])
                if variable is not None and definition.variable_name not in variables:
                    variable._bind_variable_def(
                        definition, lambda name: graph.as_graph_element(prefix + name))
                    variables[definition.variable_name] = variable
        _import_collections(meta_graph_def, graph,
                            _ImportedTFGraph(prefix, variables, dropped))
    return variables


def _import_collections(meta_graph_def, graph, importer):
    dropped = importer.dropped_scope
    for key in sorted(meta_graph_def.collection_def):
        collection = meta_graph_def.collection_def[key]
        kind = collection.WhichOneof("kind")
        if kind is None:
            continue
        present = graph.get_collection_ref(key)
        for value in getattr(collection, kind).value:
            if kind == "node_list":
                if dropped and value.startswith(dropped):
                    continue
                item = graph.as_graph_element(importer.prefix + value)
            elif kind == "bytes_list":
                definition = _parse_variable_def(value, resource_only=False)
                item = importer.variables.get(definition.variable_name) \
                    if definition is not None else None
                item = item if item is not None else value
            else:
                item = value
            if not any(existing is item for existing in present):
                graph.add_to_collection(key, item)
