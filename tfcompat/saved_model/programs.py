"""Traced functions as torch.export programs: how a SavedModel stores its functions.

A traced function (a ConcreteFunction's GraphModule, or a TF1 signature's pruned graph) is
exported with `torch.export.export` (non-strict), its unknown dimensions dynamic. Its inputs
are the function's tensors followed by the variables it reads, so the variables stay
outside the program: a loaded function reads (and assigns) live variables, and gradients
flow to them.

On disk a program is two files: `<name>.json`, torch's own serialized form of the program
(`torch._export.serde`), and `<name>.safetensors`, its constant tensors. Where we differ
from `torch.export.save`/`load`: those pickle tensors and run Python code kept in the file
(guards), so loading never uses them. `load` reads the JSON, refuses any call target that
is not an aten/prims operator or a fixed set of Python operators, drops the file's guards
and source metadata, and gives the constants from safetensors; nothing in the file is run
as code. `serving_program` is the self-contained form (`.pt2`, variables as parameters) that
plain PyTorch loads with `torch.export.load` (used by `tfcompat export`).
"""
import inspect
import json
import operator
import os
import re

import torch

from tfcompat.framework import default_session, errors

# Call targets a loaded program may name: aten/prims overloads, the higher-order ops export
# emits for control flow and grad modes, and the Python operators of symbolic sizes.
_SAFE_TARGET = re.compile(
    r"(torch\.ops\.(aten|prims)\.\w+\.\w+"
    r"|torch\.ops\.higher_order\.(cond|while_loop|wrap_with_set_grad_enabled|"
    r"wrap_with_autocast|scan|map_impl)"
    r"|_operator\.(getitem|add|sub|mul|floordiv|truediv|mod|neg|pow|eq|ne|lt|le|gt|ge|"
    r"and_|or_|not_|pos|abs)"
    r"|torch\.sym_(int|float|max|min|not|ite|sqrt|sum)"
    r"|math\.(ceil|floor|trunc|sqrt))\Z")

# Example sizes for unknown dimensions: above 1, so export does not specialize them (0/1);
# every input's first dimension (the batch, which ops like concat make equal) gets the
# first size, the others distinct ones, so export does not unify unrelated dimensions.
_EXAMPLE_SIZES = (3, 5, 7, 11, 13, 17, 19, 23)


class ProgramExportError(NotImplementedError):
    """A traced function that torch.export cannot turn into a program."""


def _example(shape, dtype, position):
    if shape is None:
        raise ProgramExportError("an input of unknown rank (TensorSpec(shape=None)): give "
                                 "the input_signature a shape of known rank")
    sizes = [size if size is not None else
             _EXAMPLE_SIZES[(position + axis) % len(_EXAMPLE_SIZES) if axis else 0]
             for axis, size in enumerate(shape)]
    dynamic = {axis: torch.export.Dim.AUTO for axis, size in enumerate(shape) if size is None}
    return torch.zeros(sizes, dtype=dtype), (dynamic or None)


def export(module, feed_specs, extra_values, what):
    """The ExportedProgram of a build_module GraphModule: `feed_specs` lists (shape with None
    for unknown sizes, torch dtype) of its feeds; `extra_values` its graph inputs' values
    (variables' storage, captures). `what` names the function in errors."""
    examples, dynamic = [], []
    for position, (shape, dtype) in enumerate(feed_specs):
        try:
            example, dims = _example(shape, dtype, position)
        except ProgramExportError as error:
            raise ProgramExportError("Cannot save %s: %s." % (what, error))
        examples.append(example)
        dynamic.append(dims)
    dynamic.extend([None] * len(extra_values))
    try:
        program = torch.export.export(module, tuple(examples) + tuple(extra_values),
                                      dynamic_shapes=tuple(dynamic), strict=False)
        return _serializable(program)
    except Exception as error:      # noqa: BLE001 - torch.export's many error classes
        raise ProgramExportError(
            "Cannot save %s: torch.export cannot export it (%s: %s). tfcompat stores traced "
            "functions as torch.export programs; ops whose output shapes depend on values "
            "(boolean_mask, unique, where with one argument), string ops and Python "
            "callbacks cannot be stored." % (what, type(error).__name__,
                                             str(error).split("\n")[0]))


def _serializable(program):
    """`program` as torch's serializer takes it, where torch.export leaves programs with
    control flow otherwise: the tensor constants of `cond` / `while_loop` subgraphs (a
    branch or loop body using a constant), left as attributes of the subgraphs, become
    extra operands of their operators and lifted constants of the program (as torch lifts
    those of the top graph); `torch.sym_sum` nodes (in torch's runtime checks of unbacked
    sizes) become chains of `+`; the range constraints of symbols no graph uses (a loop
    body run aside by `control_flow_ops`) are dropped, which torch's deserializer warns
    about."""
    # in-function: torch's export passes and symbolic shapes import sympy (~0.3 s), which
    # only saving needs
    from torch._export.passes.lift_constants_pass import ConstantAttrMap, lift_constants_pass
    from torch.fx.experimental.symbolic_shapes import free_symbols
    module = program.graph_module
    if _thread_constants(module):
        program.constants.update(lift_constants_pass(module, program.graph_signature,
                                                     ConstantAttrMap()))
        for name in [name for name in vars(module) if name.startswith("_lifted_constant_")]:
            delattr(module, name)
    _expand_sym_sums(module)
    used = set()
    for graph_module in module.modules():
        if isinstance(graph_module, torch.fx.GraphModule):
            for node in graph_module.graph.nodes:
                used |= _size_symbols(node.meta.get("val"), free_symbols)
    for symbol in [symbol for symbol in program.range_constraints if symbol not in used]:
        del program.range_constraints[symbol]
    return program


def _expand_sym_sums(module):
    """Rewrite the `torch.sym_sum` nodes of `module` and its subgraphs (torch emits them in
    the runtime checks of unbacked sizes; its serializer lacks them) as chains of `+`."""
    for node in list(module.graph.nodes):
        if node.op == "get_attr" and isinstance(getattr(module, node.target, None),
                                                torch.fx.GraphModule):
            _expand_sym_sums(getattr(module, node.target))
        if node.op == "call_function" and node.target is torch.sym_sum:
            with module.graph.inserting_before(node):
                total = node.args[0][0]
                for term in node.args[0][1:]:
                    total = module.graph.call_function(operator.add, (total, term))
                    total.meta.update(node.meta)
            node.replace_all_uses_with(total)
            module.graph.erase_node(node)
    module.recompile()


def _thread_constants(module):
    """Move the tensor constants of the cond / while_loop subgraphs of `module` (nested
    ones first) to `module`, passed in as extra operands; True when any moved."""
    moved = False
    for node in list(module.graph.nodes):
        if node.op != "call_function" or node.target not in (
                torch.ops.higher_order.cond, torch.ops.higher_order.while_loop):
            continue
        subgraphs = [getattr(module, arg.target) for arg in node.args[:3]
                     if isinstance(arg, torch.fx.Node) and arg.op == "get_attr"]
        for subgraph in subgraphs:
            _thread_constants(subgraph)
        constants = [(subgraph, attr) for subgraph in subgraphs
                     for attr in subgraph.graph.nodes if attr.op == "get_attr" and
                     isinstance(getattr(subgraph, attr.target), torch.Tensor)]
        if not constants:
            continue
        values = [(getattr(subgraph, attr.target), dict(attr.meta))
                  for subgraph, attr in constants]
        for subgraph in subgraphs:
            placeholders = [n for n in subgraph.graph.nodes if n.op == "placeholder"]
            inputs = []
            for index, (_, meta) in enumerate(values):
                anchor = inputs[-1] if inputs else placeholders[-1] if placeholders else None
                with subgraph.graph.inserting_after(anchor) if anchor is not None else \
                        subgraph.graph.inserting_before(next(iter(subgraph.graph.nodes))):
                    placeholder = subgraph.graph.placeholder("lifted_constant_%d" % index)
                placeholder.meta.update(meta)
                inputs.append(placeholder)
            for (owner, attr), placeholder in zip(constants, inputs):
                if owner is subgraph:
                    attr.replace_all_uses_with(placeholder)
                    subgraph.graph.erase_node(attr)
                    delattr(subgraph, attr.target)
            subgraph.recompile()
        operands = []
        for value, meta in values:
            name = "_lifted_constant_%d" % len([n for n in dir(module)
                                                if n.startswith("_lifted_constant_")])
            setattr(module, name, value)
            with module.graph.inserting_before(node):
                operand = module.graph.create_node("get_attr", name)
            operand.meta.update(meta)
            operands.append(operand)
        node.args = node.args[:3] + (tuple(node.args[3]) + tuple(operands),) + node.args[4:]
        module.recompile()
        moved = True
    return moved


def _size_symbols(value, free_symbols):
    """The symbols in the sizes of a node's value (what torch's deserializer reads)."""
    if isinstance(value, torch.Tensor):
        return set().union(*[free_symbols(size) for size in value.shape])
    if isinstance(value, (torch.SymInt, torch.SymBool)):
        return set(free_symbols(value))
    if isinstance(value, (list, tuple)):
        return set().union(*[_size_symbols(item, free_symbols) for item in value])
    return set()


def save(program, directory, name, extra_tensors=None):
    """Write `program` as `<directory>/<name>.json` + `.safetensors` (see the module doc),
    with `extra_tensors` ({name: tensor}, the function's captured values) in the latter."""
    # in-function: safetensors is only needed when saving or loading a SavedModel
    from safetensors.torch import save as save_tensors
    from torch._export.serde import serialize as serde
    artifact = serde.serialize(program)
    tensors = {"constant:" + key: value.detach().contiguous()
               for key, value in program.constants.items() if isinstance(value, torch.Tensor)}
    tensors.update({"state:" + key: value.detach().contiguous()
                    for key, value in program.state_dict.items()})
    tensors.update({"extra:" + key: value.detach().contiguous()
                    for key, value in (extra_tensors or {}).items()})
    with open(os.path.join(directory, name + ".json"), "wb") as f:
        f.write(artifact.exported_program)
    with open(os.path.join(directory, name + ".safetensors"), "wb") as f:
        f.write(save_tensors(tensors))


def _check_and_strip(value, path):
    """Refuse call targets outside `_SAFE_TARGET`; drop guards and node metadata (source
    text that code generation would copy)."""
    if isinstance(value, dict):
        target = value.get("target")
        if isinstance(target, str) and not _SAFE_TARGET.match(target):
            raise errors.DataLossError(None, None, "%s names the call target %r, which is not "
                                       "a torch operator: refusing to load it" % (path, target))
        if "guards_code" in value:
            value["guards_code"] = []
        if "target" in value and isinstance(value.get("metadata"), dict):
            value["metadata"] = {}
        for item in value.values():
            _check_and_strip(item, path)
    elif isinstance(value, list):
        for item in value:
            _check_and_strip(item, path)


def load(directory, name):
    """(module, extra tensors) of what `save` wrote: the module (flat tensors in, a tuple of
    tensors out) and {name: tensor}; a file whose program names a target that is not a
    torch operator is refused."""
    # in-function: safetensors is only needed when saving or loading a SavedModel
    from safetensors.torch import load as load_tensors
    from torch._export.serde import serialize as serde
    path = os.path.join(directory, name + ".json")
    try:
        with open(path, "rb") as f:
            document = json.loads(f.read())
        with open(os.path.join(directory, name + ".safetensors"), "rb") as f:
            tensors = load_tensors(f.read())
    except FileNotFoundError as error:
        raise errors.NotFoundError(None, None, "SavedModel function file missing: %s"
                                   % error.filename)
    except Exception as error:      # noqa: BLE001 - JSON and safetensors decoding errors
        raise errors.DataLossError(None, None, "%s: cannot read this function of the "
                                   "SavedModel (%s); the file is corrupted or truncated."
                                   % (path, error))
    _check_and_strip(document, path)
    constants = {key[len("constant:"):]: value for key, value in tensors.items()
                 if key.startswith("constant:")}
    state = {key[len("state:"):]: value for key, value in tensors.items()
             if key.startswith("state:")}
    extra = {key[len("extra:"):]: value for key, value in tensors.items()
             if key.startswith("extra:")}
    try:
        program = serde.ExportedProgramDeserializer().deserialize(
            serde._dict_to_dataclass(serde.ExportedProgram, document), state, constants, None)
        module = _LoadedProgram(program)
    except Exception as error:      # noqa: BLE001 - the deserializer's many error classes
        raise errors.DataLossError(None, None, "%s: cannot rebuild this function of the "
                                   "SavedModel (%s: %s)." % (path, type(error).__name__,
                                                             str(error).split("\n")[0]))
    return module, extra


class _LoadedProgram(torch.nn.Module):
    """A loaded program's graph called with its flat user inputs: its constants and state
    filled in, mutated inputs written back, its user outputs returned. Unlike
    `ExportedProgram.module()`, it compiles no guard code from the file."""

    def __init__(self, program):
        super().__init__()
        kinds = torch.export.graph_signature.InputKind
        self.graph_module = program.graph_module
        self._inputs = []           # per graph input: None (a user input) or its tensor
        for spec in program.graph_signature.input_specs:
            if spec.kind == kinds.USER_INPUT:
                self._inputs.append(None)
            elif spec.kind == kinds.CONSTANT_TENSOR:
                self._inputs.append(program.constants[spec.target])
            elif spec.kind in (kinds.PARAMETER, kinds.BUFFER):
                self._inputs.append(program.state_dict.get(spec.target,
                                                           program.constants.get(spec.target)))
            else:
                raise ValueError("unsupported program input kind %s" % spec.kind)
        user_positions = [i for i, value in enumerate(self._inputs) if value is None]
        outputs = torch.export.graph_signature.OutputKind
        self._mutations = []        # (output position, user input position) to write back
        self._user_outputs = []
        for position, spec in enumerate(program.graph_signature.output_specs):
            if spec.kind == outputs.USER_OUTPUT:
                self._user_outputs.append(position)
            elif spec.kind == outputs.USER_INPUT_MUTATION:
                names = [s.arg.name for s in program.graph_signature.input_specs]
                self._mutations.append(
                    (position, user_positions.index(names.index(spec.target))))
            else:
                raise ValueError("unsupported program output kind %s" % spec.kind)

    def forward(self, *inputs):
        user = iter(inputs)
        values = [next(user) if value is None else value for value in self._inputs]
        outputs = self.graph_module(*values)
        for position, user_position in self._mutations:
            with torch.no_grad():
                inputs[user_position].copy_(outputs[position])
        return tuple(outputs[position] for position in self._user_outputs)


class _Serving(torch.nn.Module):
    """A signature as one module: keyword tensors in, a dict of tensors out (the function's
    outputs at `output_positions`), the variables it reads held as buffers (so the program
    is self-contained)."""

    def __init__(self, module, input_names, variables, output_names, output_positions):
        super().__init__()
        self.function = module
        self.input_names = list(input_names)
        self.output_names = list(output_names)
        self.output_positions = list(output_positions)
        self.variable_names = []
        for index, value in enumerate(variables):
            name = "variable_%d" % index
            self.register_buffer(name, value.detach().clone())
            self.variable_names.append(name)

    def forward(self, **inputs):
        values = [inputs[name] for name in self.input_names] + \
            [getattr(self, name) for name in self.variable_names]
        outputs = self.function(*values)
        return {name: outputs[position]
                for name, position in zip(self.output_names, self.output_positions)}


def _keyword_class(names):
    """_Serving with `forward(self, *, <names>)` as its signature: torch.export words its
    input checks by parameter name (with `**inputs` it words checks it cannot run)."""
    def forward(self, **inputs):
        return _Serving.forward(self, **inputs)
    forward.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] +
        [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY) for name in names])
    return type("Signature", (_Serving,), {"forward": forward})


def serving_program(module, inputs, variables, output_names, output_positions, what):
    """A self-contained ExportedProgram of a signature for `torch.export.save`: `module`
    takes the inputs, then the variables' values; `inputs` lists (name, shape, torch dtype);
    called `program.module()(**tensors)`, it returns {output name: the module's output at
    the matching `output_positions` entry}. Inputs whose first dimension is unknown share
    one dynamic batch size."""
    names = [name for name, _, _ in inputs]
    bad = [name for name in names if not name.isidentifier()]
    if bad:
        raise ProgramExportError("Cannot export %s: its input names %s are not Python "
                                 "identifiers (torch programs take keyword arguments)"
                                 % (what, bad))
    serving = _keyword_class(names)(module, names, variables, output_names, output_positions)
    examples, dynamic = {}, {}
    batch = torch.export.Dim("batch")
    for position, (name, shape, dtype) in enumerate(inputs):
        try:
            examples[name], dims = _example(shape, dtype, position)
        except ProgramExportError as error:
            raise ProgramExportError("Cannot export %s: %s." % (what, error))
        if dims and 0 in dims:
            dims[0] = batch     # one batch size for all inputs: no guard relating them
        dynamic[name] = dims
    try:
        program = torch.export.export(serving, (), examples, dynamic_shapes=dynamic,
                                      strict=False)
        return _serializable(program)
    except Exception as error:      # noqa: BLE001 - torch.export's many error classes
        raise ProgramExportError("Cannot export %s with torch.export (%s: %s)."
                                 % (what, type(error).__name__, str(error).split("\n")[0]))


def graph_signature(graph, session, inputs, outputs):
    """(module, inputs as (name, shape, torch dtype), variable values) of a TF1 signature:
    the part of `graph` computing the `outputs` tensors from the `inputs` tensors (lists of
    (key, tensor)), with the values its variables have in `session`."""
    module, extra = graph.build_module([tensor for _, tensor in inputs],
                                       [tensor for _, tensor in outputs])
    previous = default_session.swap_running_session(session)
    try:
        values = extra.values()
    finally:
        default_session.swap_running_session(previous)
    specs = [(key, None if t.shape.rank is None else t.shape.as_list(), t.dtype.torch_dtype)
             for key, t in inputs]
    return module, specs, values
