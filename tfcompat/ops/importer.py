"""TF's `tf.import_graph_def` (python/framework/importer.py): a GraphDef written by real
TensorFlow (a frozen `.pb`, `graph.as_graph_def()`) rebuilt in a tf.Graph.

Each NodeDef becomes a node of our graph made by calling its raw op's entry
(`tf.raw_ops.<op>`, `raw_ops.RAW_OPS`) with the node's inputs and attrs, so it runs,
differentiates and compiles like any other op, under TF's names ("import/conv2d/Conv2D").
Op types resolve only through that table: nothing named in the file is imported or run.
Calls of the GraphDef's own library functions (`PartitionedCall`: what Keras 2's grouped
convolutions freeze to) are inlined under the call's name; a function attr (`While`'s
`body`, `If`'s branches) reaches its raw op as a callable building that library function
where it is called (`import_function` builds one for a caller: a real TF 2 SavedModel's
functions). Variables (TF's resource inputs) and TensorArrays (TF's TensorList variants)
flow between nodes as themselves; `Identity` passes them on. TF1 while loops and conds
(control flow v1: Enter/Merge/Switch/NextIteration/Exit nodes) are built as tfcompat's
while_loop and cond (`importer_control_flow`). Small int32 constants reach
their consumers as values (as TF's shape inference reads them). Every op type we lack is
reported at once, with counts, before anything is built. Lives
in ops/, above TF's framework/ path, because it calls the raw ops. Devices in the NodeDefs
are not kept (ops go where the importing code places them).
"""
import collections
import contextlib

from tensorboard.compat.proto import graph_pb2

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors
from tfcompat.framework.graph import Operation, SymbolicTensor, get_default_graph
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import importer_control_flow, raw_ops
from tfcompat.ops.stack_ops import Stack
from tfcompat.ops.tensor_array_ops import TensorArray


_MAX_FOLDED = 64     # elements of an int32 constant passed to its consumers as a value
# int32 shape arithmetic whose value is kept when its inputs' values are known
_FOLDED_OPS = frozenset(["Rank", "Shape", "Size", "Add", "AddV2", "Sub", "Mul", "FloorDiv",
                         "FloorMod", "Maximum", "Minimum", "Prod", "Pack", "ConcatV2",
                         "Slice", "StridedSlice", "GatherV2", "Range", "ExpandDims",
                         "Reshape", "Squeeze"])


class UnsupportedOpsError(errors.UnimplementedError, NotImplementedError):
    """A GraphDef holds op types tfcompat has no raw op for; `op_types` counts them."""

    def __init__(self, op_types):
        self.op_types = op_types
        listed = ", ".join("%s (%d)" % item for item in op_types.items())
        super(UnsupportedOpsError, self).__init__(
            None, None, "tfcompat cannot import this GraphDef: it holds %d op type(s) that "
            "tfcompat does not implement as tf.raw_ops: %s. docs/raw_ops.md lists the "
            "supported ones." % (len(op_types), listed))


# calls of a GraphDef's library functions, which the importer inlines
FUNCTION_CALLS = ("PartitionedCall", "StatefulPartitionedCall")


def _node_op_types(nodes, library, seen=()):
    """The op types `nodes` need built: a call of a function of `library` stands for the
    op types of its body (a call of any other function stays a call, unsupported); the
    functions a node's attrs name (a While's body) are built too."""
    for node in nodes:
        function = node.attr["f"].func.name if node.op in FUNCTION_CALLS else None
        if function not in library:
            yield node.op
        for attr in node.attr.values():
            name = attr.func.name if attr.WhichOneof("value") == "func" else None
            if name in library and name not in seen:
                seen += (name,)
                yield from _node_op_types(library[name].node_def, library, seen)


# op types of a GraphDef's variables: built by the importing caller's `make_variable` (a
# meta graph's import), since tfcompat's variables live above its ops
VARIABLE_OPS = ("VariableV2", "VarHandleOp")
VARIABLE_CHECKS = ("IsVariableInitialized", "VarIsInitializedOp")


def _check_op_types(graph_def, library, with_variables=False):
    """One error naming every op type of `graph_def` we cannot build: NotFoundError when
    some are not TensorFlow ops at all (as TF's "Op type not registered"), else
    UnsupportedOpsError. Variables count as built `with_variables`."""
    built = importer_control_flow.V1_CONTROL_FLOW_OPS + \
        (VARIABLE_OPS + VARIABLE_CHECKS if with_variables else ())
    missing = collections.Counter(op_type for op_type in _node_op_types(graph_def.node,
                                                                         library)
                                  if op_type not in raw_ops.RAW_OPS and op_type not in built)
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


def _topological_order(nodes, arguments=()):
    """`nodes` with each one after its inputs (TF's importer accepts any order);
    `arguments` names the inputs that are not nodes (a function's)."""
    names = {node.name for node in nodes}

    def sources(node):
        found = {_source(i) for i in node.input} - set(arguments)
        unknown = sorted(found - names)
        if unknown:
            raise ValueError("Node %r has an input from a node not in graph_def: %r"
                             % (node.name, unknown[0]))
        return found

    return importer_control_flow.dependency_order(nodes, sources)


def _source(reference):
    return reference.lstrip("^").split(":")[0]


def _tensor_key(reference):
    """"name", "name:1" -> ("name", index)."""
    name, _, index = reference.partition(":")
    return name, int(index or 0)


class NodeImportError(ValueError):
    """A node of the GraphDef that could not be added (raised once, for the innermost)."""


def _flat_output_index(node, output_arg, index):
    """A FunctionDef input "node:output_arg:index" as the index among the node's outputs
    (list output args count as many tensors as their length attr says)."""
    position = 0
    for name, length_attr in raw_ops.OP_DEFS[node.op]["outputs"]:
        if name == output_arg:
            return position + index
        if length_attr is None:
            position += 1
        else:
            attr = node.attr[length_attr]
            position += attr.i if attr.WhichOneof("value") == "i" else len(attr.list.type)
    raise ValueError("Op %s of node %r has no output %r" % (node.op, node.name, output_arg))


def _graph_reference(reference, nodes):
    """A FunctionDef's input reference ("arg", "node:output_arg:index", "^node") in
    GraphDef form ("arg", "node:flat_index", "^node")."""
    parts = reference.split(":")
    if len(parts) != 3:
        return reference
    return "%s:%d" % (parts[0], _flat_output_index(nodes[parts[0]], parts[1], int(parts[2])))


def _passes_through(value):
    """A value that is not a tensor: a Variable (TF's resource handle), a TensorArray
    (TF's TensorList variant, TF1's TensorArray handle and flow) or a TF1 stack."""
    return isinstance(value, (TensorArray, Stack)) or (hasattr(value, "read_value") and
                                                       hasattr(value, "assign"))


def _flat_values(made):
    if isinstance(made, (list, tuple)):
        return [value for item in made for value in _flat_values(item)]
    return [made]


class _Importer(object):
    """Builds nodes in `graph`. With `exact_names` (tf.import_graph_def) each op is named
    `scope` + its node's name; else (a function body or a TF1 loop body or branch, which
    a loop may trace more than once) nodes are named in the current name scope without
    `strip` (their loop's or cond's scope in the file), made unique by the graph. A
    `parent` importer gives the values of nodes this one does not build."""

    def __init__(self, graph, scope, input_map, library, exact_names=True, make_variable=None,
                 parent=None, strip=""):
        self.graph = graph
        self.scope = scope
        self.library = library
        self.exact_names = exact_names
        self.make_variable = make_variable
        self.parent = parent
        self.strip = strip
        self.input_map = {_tensor_key(k): v for k, v in input_map.items()}
        self.used_inputs = set()
        self.ops = {}       # node name in graph_def -> Operation
        self.values = {}    # node name -> its outputs (tensors or not), as the raw op gave them
        self.variables = {}     # VariableV2 / VarHandleOp node name -> variable
        self.int_constants = {}     # Const node name -> its value, for small int32 constants

    def fold_int_constant(self, node):
        """Keep a small int32 Const's value: its consumers get it as Python ints, as TF's
        shape inference reads constant axes, shapes and slice bounds, so static shapes are
        known and ops taking static axes accept them (Python ints convert to int32)."""
        if node.attr["dtype"].type != dtypes.int32.as_datatype_enum:
            return
        value = raw_ops.tensor_proto_value(node.attr["value"].tensor, dtypes.int32)
        if value.size <= _MAX_FOLDED:
            self.int_constants[node.name] = value.tolist()

    def fold_shape_arithmetic(self, node, arguments, data_count):
        """Keep the value of a small int32 shape computation that TF's shape inference
        knows while a graph is built, for its consumers as `fold_int_constant` does: the
        rank of a tensor of known rank, the shape or size of one of known shape, and the
        ops of `_FOLDED_OPS` on values kept so (run eagerly by the same raw op). The
        shape code TF's gradients and losses write (`Slice(Shape(x), [Rank(x) - 1], [1])`)
        then gives consumers such as Reshape known values."""
        data = list(arguments.values())[:data_count]
        if node.op in ("Rank", "Shape", "Size") and isinstance(data[0], SymbolicTensor):
            shape = data[0].shape
            if node.op == "Rank" and shape.rank is not None:
                self.int_constants[node.name] = shape.rank
            elif shape.is_fully_defined() and node.op == "Shape":
                self.int_constants[node.name] = shape.as_list()
            elif shape.is_fully_defined():
                self.int_constants[node.name] = shape.num_elements()
            return
        if any(isinstance(item, SymbolicTensor) for value in data
               for item in (value if isinstance(value, list) else [value])):
            return
        with context.eager_scope():
            value = raw_ops.RAW_OPS[node.op](**arguments).numpy()
        if value.size <= _MAX_FOLDED:
            self.int_constants[node.name] = value.tolist()

    def tensor(self, reference):
        key = _tensor_key(reference)
        if key in self.input_map:
            self.used_inputs.add(key)
            return self.input_map[key]
        if key[0] in self.int_constants:
            return self.int_constants[key[0]]
        if key[0] in self.values:
            return self.values[key[0]][key[1]]
        if key[0] not in self.ops and self.parent is not None:
            return self.parent.tensor(reference)
        op = self.ops[key[0]]
        if key[1] >= len(op.outputs):
            raise ValueError("Node input %r: op %s has only %d outputs"
                             % (reference, op.name, len(op.outputs)))
        return op.outputs[key[1]]

    def import_nodes(self, nodes):
        for node in nodes:
            with self.reporting("node %r (op %s)" % (self.scope + node.name, node.op)):
                if node.op in FUNCTION_CALLS:
                    self.import_call(node)
                elif node.op in VARIABLE_OPS + VARIABLE_CHECKS and self.make_variable:
                    self.import_variable_node(node)
                else:
                    self.import_node(node)

    @contextlib.contextmanager
    def reporting(self, what):
        """Errors building `what` raised as TF's importer reports a node it cannot add:
        a ValueError naming it (once, for the innermost)."""
        try:
            yield
        except NodeImportError:
            raise
        except (KeyError, IndexError, ValueError, TypeError, RuntimeError,
                errors.OpError) as error:
            first_line = (str(error) or type(error).__name__).splitlines()[0]
            raise NodeImportError("Cannot import %s of graph_def: %s" % (what, first_line)) \
                .with_traceback(None) from error

    def nested(self, input_map, strip):
        """An importer for a TF1 loop body or cond branch being traced: `input_map` gives
        the values its nodes read from the loop or cond, this importer the others."""
        return _Importer(get_default_graph(), self.scope, input_map, self.library,
                         exact_names=False,
                         make_variable=self.make_variable, parent=self, strip=strip + "/")

    def op_scope(self, scope):
        """The `name` of the op built for a loop or cond whose nodes are under `scope` in
        the file: that scope itself with exact names, else made unique."""
        return self.scope + scope + "/" if self.exact_names else self.relative_name(scope)

    def relative_name(self, name):
        return name[len(self.strip):] if self.strip and name.startswith(self.strip) else name

    def set_output(self, node_name, value):
        """The value of node `node_name` built by others (a TF1 loop's Exit, a cond's
        Merge): with exact names an Identity of it so named (a TensorArray as it is)."""
        if self.exact_names and isinstance(value, SymbolicTensor):
            self.ops[node_name] = raw_ops.RAW_OPS["Identity"](
                input=value, name=self.scope + node_name + "/").op
        else:
            self.values[node_name] = [value]

    def import_variable_node(self, node):
        """A variable (its handle is the node) made by `make_variable(name, dtype, shape,
        op_type)`, or a check whether one is initialized (its `is_initialized`)."""
        name = self.scope + node.name
        if node.op in VARIABLE_OPS:
            variable = self.make_variable(name, dtypes.as_dtype(node.attr["dtype"].type),
                                          _shape(node.attr["shape"].shape), node.op)
            self.variables[node.name] = variable
            op = variable.op
        else:
            source = _source(node.input[0])
            if source not in self.variables:
                raise ValueError("input %r is not a variable" % node.input[0])
            op = self.variables[source].is_initialized(name=name + "/").op
        if op.name != name:
            raise errors.InternalError(None, None, "variable node %r was made as %r"
                                       % (node.name, op.name))
        self.ops[node.name] = op

    def controls(self, node):
        """The operations of `node`'s control inputs (nodes giving only non-tensors have
        none)."""
        return [self.ops[i[1:]] for i in node.input if i.startswith("^") and i[1:] in self.ops]

    def node_name(self, node):
        """The `name` a node's raw op is called with (see the class docstring)."""
        return self.scope + node.name + "/" if self.exact_names else \
            self.relative_name(node.name)

    def call_function(self, function, arguments, scope):
        """The outputs of library function `function` built on `arguments`, its body's
        nodes named under `scope`."""
        signature = function.signature
        body = {n.name: n for n in function.node_def}
        rewritten = []
        for inner in function.node_def:
            copy = type(inner)()
            copy.CopyFrom(inner)
            del copy.input[:]
            copy.input.extend(_graph_reference(i, body) for i in inner.input)
            rewritten.append(copy)
        names = [a.name for a in signature.input_arg]
        if len(arguments) != len(names):
            raise ValueError("function %s takes %d inputs, got %d"
                             % (signature.name, len(names), len(arguments)))
        graph = get_default_graph()
        inner_importer = _Importer(
            graph, scope if self.exact_names else "",
            {name + ":0": value for name, value in zip(names, arguments)}, self.library,
            exact_names=self.exact_names)
        if self.exact_names:
            inner_importer.import_nodes(_topological_order(rewritten, names))
        else:
            with graph.name_scope(scope.lstrip("_")):   # TF's function names start "__"
                inner_importer.import_nodes(_topological_order(rewritten, names))
        return [inner_importer.tensor(_graph_reference(function.ret[a.name], body))
                for a in signature.output_arg]

    def function_caller(self, function_name):
        """Library function `function_name` as the callable a functional raw op (While,
        If) takes: it builds the function's body where it is called."""
        function = self.library[function_name]
        importer = _Importer(self.graph, "", {}, self.library, exact_names=False)

        def call(*arguments):
            return importer.call_function(function, list(arguments), function_name)
        return call

    def import_call(self, node):
        """A call of a library function, inlined: its body's nodes under the call's name
        ("call/Conv2D"), then one IdentityN node (NoOp without outputs), named as the
        call, giving its outputs (a call giving non-tensors gives them as they are)."""
        function = self.library[node.attr["f"].func.name]
        arguments = [self.tensor(i) for i in node.input if not i.startswith("^")]
        with self.graph.control_dependencies(self.controls(node)):
            outputs = self.call_function(function, arguments, self.scope + node.name + "/"
                                         if self.exact_names else node.name)
        if any(_passes_through(output) for output in outputs):
            self.values[node.name] = outputs
            return
        name = self.node_name(node)
        self.ops[node.name] = _first_tensor(raw_ops.RAW_OPS["IdentityN"](
            input=outputs, name=name)).op if outputs else raw_ops.RAW_OPS["NoOp"](name=name)

    def import_node(self, node):
        definition = raw_ops.OP_DEFS[node.op]
        arguments = {}
        groups = _input_groups(node, definition)
        for (param, *_), group in zip(definition["params"], groups):
            arguments[param] = [self.tensor(i) for i in group] \
                if isinstance(group, list) else self.tensor(group)
        for (param, *_), op_def_name in zip(definition["params"][len(groups):],
                                           definition["param_args"][len(groups):]):
            if op_def_name not in node.attr:
                continue
            attr = node.attr[op_def_name]
            arguments[param] = self.function_caller(attr.func.name) \
                if attr.WhichOneof("value") == "func" else _attr_value(attr)
        if node.op in ("Identity", "Snapshot") and _passes_through(arguments["input"]):
            self.values[node.name] = [arguments["input"]]
            return
        with self.graph.control_dependencies(self.controls(node)):
            made = raw_ops.RAW_OPS[node.op](name=self.node_name(node), **arguments)
        outputs = _flat_values(made)
        if not isinstance(made, Operation):
            # a raw op recording itself may give another node's outputs (TensorListStack)
            self.values[node.name] = outputs
        tensors = [output for output in outputs if not _passes_through(output)]
        if not isinstance(made, Operation) and not tensors:
            return
        op = made if isinstance(made, Operation) else tensors[0].op
        name = self.scope + node.name
        if self.exact_names and op.name != name:
            raise errors.InternalError(None, None, "raw op %s made node %r for NodeDef %r"
                                       % (node.op, op.name, node.name))
        self.ops[node.name] = op
        if node.op == "Const":
            self.fold_int_constant(node)
        elif node.op in _FOLDED_OPS and len(op.outputs) == 1 and \
                op.outputs[0].dtype == dtypes.int32:
            self.fold_shape_arithmetic(node, arguments, len(groups))


def _first_tensor(outputs):
    while isinstance(outputs, (list, tuple)):
        outputs = outputs[0]
    return outputs


def _import(graph, graph_def, scope, input_map, make_variable=None):
    library = {f.signature.name: f for f in graph_def.library.function}
    _check_op_types(graph_def, library, with_variables=make_variable is not None)
    importer = _Importer(graph, scope, input_map, library, make_variable=make_variable)
    with graph.as_default(), graph.control_dependencies(None):
        if importer_control_flow.uses_v1_control_flow(graph_def.node):
            importer_control_flow.import_block(
                importer, graph_def.node, importer_control_flow.Frames(graph_def.node))
        else:
            importer.import_nodes(_topological_order(graph_def.node))
    return importer


def import_graph_def_with_variables(graph_def, graph, scope, make_variable):
    """The nodes of `graph_def` (written by real TensorFlow) built in `graph` under `scope`
    ("" or "name/"), its variables (VariableV2, VarHandleOp) made by
    `make_variable(name, dtype, shape, op_type)`, whose `op` is the variable's node (what a
    meta graph's import uses). Returns {variable node name: variable}."""
    return _import(graph, graph_def, scope, {}, make_variable).variables


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
    graph = get_default_graph()
    with graph.as_default():
        if name == "":
            scope = ""
        else:
            with graph.name_scope(name or "import") as scope:
                pass
        importer = _import(graph, graph_def, scope, input_map)
    unused = sorted("%s:%d" % key for key in importer.input_map
                    if key not in importer.used_inputs)
    if unused:
        raise ValueError("Attempted to map inputs that were not found in graph_def: [%s]"
                         % ", ".join(unused))
    if return_elements is None:
        return None
    return [_return_element(importer, element) for element in return_elements]


def import_function(function_name, library, arguments):
    """The outputs of the FunctionDef `function_name` of `library` (name -> FunctionDef)
    built in the default graph on `arguments` (tensors, Variables for its resource
    inputs): what a real TF 2 SavedModel's functions are made of. Its nodes are named
    under the function's name in the current name scope. Every op type the function and
    the functions it calls need is checked first (one error naming all we lack)."""
    _check_op_types(graph_pb2.GraphDef(node=library[function_name].node_def), library)
    importer = _Importer(get_default_graph(), "", {}, library, exact_names=False)
    return importer.call_function(library[function_name], list(arguments), function_name)
