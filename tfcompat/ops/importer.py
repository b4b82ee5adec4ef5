"""TF's `tf.import_graph_def` (python/framework/importer.py): a GraphDef written by real
TensorFlow (a frozen `.pb`, `graph.as_graph_def()`) rebuilt in a tf.Graph.

Each NodeDef becomes a node of our graph made by calling its raw op's entry
(`tf.raw_ops.<op>`, `raw_ops.RAW_OPS`) with the node's inputs and attrs, so it runs,
differentiates and compiles like any other op, under TF's names ("import/conv2d/Conv2D").
Op types resolve only through that table: nothing named in the file is imported or run.
Every op type we lack is reported at once, with counts, before anything is built. Lives
in ops/, above TF's framework/ path, because it calls the raw ops. Devices in the NodeDefs
are not kept (ops go where the importing code places them).
"""
import collections

from tensorboard.compat.proto import graph_pb2
from tensorboard.util import tensor_util

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors
from tfcompat.framework.graph import Operation, SymbolicTensor, get_default_graph
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import raw_ops


_MAX_FOLDED = 64     # elements of an int32 constant passed to its consumers as a value


class UnsupportedOpsError(errors.UnimplementedError, NotImplementedError):
    """A GraphDef holds op types tfcompat has no raw op for; `op_types` counts them."""

    def __init__(self, op_types):
        self.op_types = op_types
        listed = ", ".join("%s (%d)" % item for item in op_types.items())
        super(UnsupportedOpsError, self).__init__(
            None, None, "tfcompat cannot import this GraphDef: it holds %d op type(s) that "
            "tfcompat does not implement as tf.raw_ops: %s. docs/raw_ops.md lists the "
            "supported ones." % (len(op_types), listed))


def _check_op_types(graph_def):
    """One error naming every op type of `graph_def` we cannot build: NotFoundError when
    some are not TensorFlow ops at all (as TF's "Op type not registered"), else
    UnsupportedOpsError."""
    missing = collections.Counter(node.op for node in graph_def.node
                                  if node.op not in raw_ops.RAW_OPS)
    if not missing:
        return
    missing = dict(missing.most_common())
    unknown = [op_type for op_type in missing if op_type not in raw_ops.OP_DEFS]
    if unknown:
        raise errors.NotFoundError(None, None, "Op type not registered %s: %s are not "
                                   "TensorFlow ops; refused. All op types tfcompat cannot "
                                   "build here: %s" % (
                                       ", ".join(repr(t) for t in unknown),
                                       "they" if len(unknown) > 1 else "it",
                                       ", ".join("%s (%d)" % i for i in missing.items())))
    raise UnsupportedOpsError(missing)


def _shape(proto):
    return TensorShape(None) if proto.unknown_rank else \
        TensorShape([None if d.size < 0 else d.size for d in proto.dim])


_ATTR_KINDS = {
    "s": lambda value: value.decode("utf-8", "replace"),
    "i": int, "f": float, "b": bool,
    "type": dtypes.as_dtype,
    "shape": _shape,
    "tensor": lambda value: value,      # a TensorProto: Const converts it
}


def _attr_value(attr):
    """An AttrValue as the Python value TF's raw-op wrappers take."""
    kind = attr.WhichOneof("value")
    if kind in _ATTR_KINDS:
        return _ATTR_KINDS[kind](getattr(attr, kind))
    if kind == "list":
        for field, convert in _ATTR_KINDS.items():
            values = getattr(attr.list, field)
            if values:
                return [convert(v) for v in values]
        return []
    raise errors.UnimplementedError(None, None, "attr values of kind %r (functions) are not "
                                    "supported by tfcompat's GraphDef import" % kind)


def _input_groups(node, definition):
    """The node's data inputs grouped by its op's input args: a list arg takes as many as
    its length attr says (`N`, or the number of types of a type-list attr)."""
    data = [i for i in node.input if not i.startswith("^")]
    groups, position = [], 0
    for _, length_attr in definition["inputs"]:
        if length_attr is None:
            groups.append(data[position])
            position += 1
            continue
        attr = node.attr[length_attr]
        count = attr.i if attr.WhichOneof("value") == "i" else len(attr.list.type)
        groups.append(data[position:position + count])
        position += count
    if position != len(data):
        raise ValueError("NodeDef %r (op %s) has %d inputs, its op def takes %d"
                         % (node.name, node.op, len(data), position))
    return groups


def _topological_order(graph_def):
    """The nodes with each one after its inputs (TF's importer accepts any order)."""
    by_name = {node.name: node for node in graph_def.node}
    waiting = {}
    dependents = collections.defaultdict(list)
    for node in graph_def.node:
        sources = {_source(i) for i in node.input}
        unknown = [s for s in sources if s not in by_name]
        if unknown:
            raise ValueError("Node %r has an input from a node not in graph_def: %r"
                             % (node.name, unknown[0]))
        waiting[node.name] = len(sources)
        for source in sources:
            dependents[source].append(node.name)
    ready = collections.deque(node.name for node in graph_def.node if not waiting[node.name])
    ordered = []
    while ready:
        name = ready.popleft()
        ordered.append(by_name[name])
        for dependent in dependents[name]:
            waiting[dependent] -= 1
            if not waiting[dependent]:
                ready.append(dependent)
    if len(ordered) != len(graph_def.node):
        cycle = sorted(name for name, count in waiting.items() if count)
        raise ValueError("graph_def has a cycle (TF1 while loops are not supported): %s"
                         % ", ".join(cycle[:5]))
    return ordered


def _source(reference):
    return reference.lstrip("^").split(":")[0]


def _tensor_key(reference):
    """"name", "name:1" -> ("name", index)."""
    name, _, index = reference.partition(":")
    return name, int(index or 0)


class _Importer(object):

    def __init__(self, graph, scope, input_map):
        self.graph = graph
        self.scope = scope
        self.input_map = {_tensor_key(k): v for k, v in input_map.items()}
        self.used_inputs = set()
        self.ops = {}       # node name in graph_def -> Operation
        self.int_constants = {}     # Const node name -> its value, for small int32 constants

    def fold_int_constant(self, node):
        """Keep a small int32 Const's value: its consumers get it as Python ints, as TF's
        shape inference reads constant axes, shapes and slice bounds, so static shapes are
        known and ops taking static axes accept them (Python ints convert to int32)."""
        if node.attr["dtype"].type != dtypes.int32.as_datatype_enum:
            return
        value = tensor_util.make_ndarray(node.attr["value"].tensor)
        if value.size <= _MAX_FOLDED:
            self.int_constants[node.name] = value.tolist()

    def tensor(self, reference):
        key = _tensor_key(reference)
        if key in self.input_map:
            self.used_inputs.add(key)
            return self.input_map[key]
        if key[0] in self.int_constants:
            return self.int_constants[key[0]]
        op = self.ops[key[0]]
        if key[1] >= len(op.outputs):
            raise ValueError("Node input %r: op %s has only %d outputs"
                             % (reference, op.name, len(op.outputs)))
        return op.outputs[key[1]]

    def import_node(self, node):
        definition = raw_ops.OP_DEFS[node.op]
        arguments = {}
        groups = _input_groups(node, definition)
        for (param, *_), group in zip(definition["params"], groups):
            arguments[param] = [self.tensor(i) for i in group] \
                if isinstance(group, list) else self.tensor(group)
        for (param, *_), op_def_name in zip(definition["params"][len(groups):],
                                           definition["param_args"][len(groups):]):
            if op_def_name in node.attr:
                arguments[param] = _attr_value(node.attr[op_def_name])
        controls = [self.ops[i[1:]] for i in node.input if i.startswith("^")]
        name = self.scope + node.name
        with self.graph.control_dependencies(controls):
            made = raw_ops.RAW_OPS[node.op](name=name + "/", **arguments)
        op = made if isinstance(made, Operation) else _first_tensor(made).op
        if op.name != name:
            raise errors.InternalError(None, None, "raw op %s made node %r for NodeDef %r"
                                       % (node.op, op.name, node.name))
        self.ops[node.name] = op
        if node.op == "Const":
            self.fold_int_constant(node)


def _first_tensor(outputs):
    while isinstance(outputs, (list, tuple)):
        outputs = outputs[0]
    return outputs


def _return_element(importer, name):
    if name.startswith("^"):
        name = name[1:]
    op_name, colon, index = name.partition(":")
    op = importer.ops.get(op_name)
    if op is None or (colon and (not index.isdigit() or int(index) >= len(op.outputs))):
        raise ValueError("Requested return_element %r not found in graph_def." % name)
    return op.outputs[int(index)] if colon else op


@tf_export("import_graph_def", "graph_util.import_graph_def")
def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None):
    """TF's `tf.compat.v1.import_graph_def`: the nodes of `graph_def` added to the default
    graph under the name scope `name` ("import" by default, uniquified; "" keeps the
    file's names), `input_map` ({"x:0": tensor}) replacing the inputs it names (a
    placeholder still exists, unused), `return_elements` naming the tensors ("y:0") and
    operations ("y") to return. `op_dict` and `producer_op_list` are ignored, as TF does."""
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a GraphDef proto.")
    input_map = dict(input_map or {})
    for key, value in input_map.items():
        if not isinstance(key, str):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor "
                            "objects, got key %r" % (key,))
        if not isinstance(value, SymbolicTensor) and not hasattr(value, "_tfcompat_tensor_"):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor "
                            "objects, got value %r for %r" % (value, key))
    if return_elements is not None and not all(isinstance(e, str) for e in return_elements):
        raise TypeError("return_elements must be a list of strings.")
    _check_op_types(graph_def)
    ordered = _topological_order(graph_def)
    graph = get_default_graph()
    with graph.as_default():
        if name == "":
            scope = ""
        else:
            with graph.name_scope(name or "import") as scope:
                pass
        importer = _Importer(graph, scope, input_map)
        with graph.control_dependencies(None):
            for node in ordered:
                importer.import_node(node)
    unused = sorted("%s:%d" % key for key in importer.input_map
                    if key not in importer.used_inputs)
    if unused:
        raise ValueError("Attempted to map inputs that were not found in graph_def: [%s]"
                         % ", ".join(unused))
    if return_elements is None:
        return None
    return [_return_element(importer, element) for element in return_elements]
