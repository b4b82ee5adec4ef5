"""TF1 control flow (control flow v1: `tf.while_loop`, `tf.cond`, `tf.nn.dynamic_rnn` as
TF 1.x writes them) in an imported GraphDef, built as tfcompat's `tf.while_loop` and
`tf.cond` by the GraphDef importer (`ops/importer.py`).

TF 1 writes a while loop as a frame of nodes: `Enter` nodes (attr `frame_name`) bring
each loop variable (`is_constant` false) and each loop-invariant value (true) into the
frame, `Merge(Enter, NextIteration)` is a loop variable's value in an iteration, the loop
condition ends in `LoopCond`, `Switch(Merge, LoopCond)` sends the value to the body
(output 1) or to the `Exit` node (output 0), and `NextIteration` takes the body's new
value. A cond is `Switch(x, pred)` nodes sending outer values into the branch of the
predicate's value (output 1 true, 0 false) and `Merge` nodes taking each result from the
branch that ran. TF runs these with dead tensors; here each frame becomes one
`tf.while_loop` whose condition and body are built from the frame's nodes (the nodes the
`LoopCond` needs, and the rest), and the Switch/Merge nodes of one cond become one
`tf.cond` whose branches are built from the nodes between them, found as TF's executor
finds them: a node's frame follows its inputs (an Enter's output is in the Enter's frame,
an Exit's in the parent frame), and a node's branch follows its inputs (a Switch output
enters a branch, a Merge leaves it). Frames and conds nest. TF builds the gradient of a
cond in the cond's own branches: the nodes of one predicate's branches that read the
cond's results (through nodes outside it) are a later tf.cond on the same predicate,
reading the values of the first one's branch that ran (kept by the first when it runs).
Exit and Merge nodes keep the file's names (Identity nodes of the loop's and the cond's
results); the nodes inside are named under the loop's and the cond's scope, made unique,
as each is traced.
Where we differ: a Merge's `value_index` output is not supported; nodes of a branch that
reach no Merge are not built; a kept branch value is shared by the runs of the graph in
progress at once.
"""
import collections

from tfcompat.framework.custom_op import run_op
from tfcompat.framework.graph import SymbolicTensor
from tfcompat.ops import control_flow_ops
from tfcompat.ops.tensor_array_ops import TensorArray

ENTER_OPS = ("Enter", "RefEnter")
EXIT_OPS = ("Exit", "RefExit")
MERGE_OPS = ("Merge", "RefMerge")
SWITCH_OPS = ("Switch", "RefSwitch")
NEXT_ITERATION_OPS = ("NextIteration", "RefNextIteration")
# op types the importer builds from the structure they form, not as raw ops
V1_CONTROL_FLOW_OPS = ENTER_OPS + EXIT_OPS + MERGE_OPS + SWITCH_OPS + NEXT_ITERATION_OPS + \
    ("LoopCond",)
_ROOT = ""      # the frame of nodes outside every loop


def _source(reference):
    return reference.lstrip("^").split(":")[0]


def _port(reference):
    return 0 if reference.startswith("^") else int(reference.partition(":")[2] or 0)


def _data_key(reference):
    """"name" / "name:0" -> "name:0"."""
    return "%s:%d" % (_source(reference), _port(reference))


def uses_v1_control_flow(nodes):
    return any(node.op in V1_CONTROL_FLOW_OPS for node in nodes)


class Frames(object):
    """The frame of each node of a GraphDef (TF's executor's ControlFlowInfo): an Enter
    starts its `frame_name` inside its input's frame, an Exit leaves to the parent frame,
    any other node is in the innermost frame of its inputs (NextIteration -> Merge edges,
    the loops' back edges, left out)."""

    def __init__(self, nodes):
        by_name = {node.name: node for node in nodes}
        self.parent = {}
        self.frame_of = {}
        for node in dependency_order(nodes, lambda node: _forward_sources(node, by_name)):
            inputs = [self.frame_of[s] for s in _forward_sources(node, by_name)]
            if node.op in ENTER_OPS:
                frame = node.attr["frame_name"].s.decode("utf-8")
                self.parent[frame] = inputs[0] if inputs else _ROOT
            elif node.op in EXIT_OPS:
                frame = self.parent.get(inputs[0], _ROOT) if inputs else _ROOT
            else:
                frame = max(inputs, key=self.depth) if inputs else _ROOT
            self.frame_of[node.name] = frame

    def depth(self, frame):
        count = 0
        while frame != _ROOT:
            frame, count = self.parent[frame], count + 1
        return count

    def child_of(self, frame, level):
        """The frame directly inside `level` holding `frame` (None: `frame` is `level`)."""
        child = None
        while frame != level:
            if frame == _ROOT:
                return None
            frame, child = self.parent[frame], frame
        return child


def _forward_sources(node, by_name):
    """The nodes `node` reads (data and control), a Merge's NextIteration inputs left out;
    names not in `by_name` (values from an enclosing block) too."""
    sources = [_source(i) for i in node.input]
    if node.op in MERGE_OPS:
        sources = [s for s in sources
                   if s not in by_name or by_name[s].op not in NEXT_ITERATION_OPS]
    return [s for s in sources if s in by_name]


def dependency_order(items, sources_of, name_of=lambda item: item.name):
    """`items` with each after the items it reads (`sources_of`: names among them)."""
    by_name = {name_of(item): item for item in items}
    waiting, dependents = {}, collections.defaultdict(list)
    for item in items:
        sources = set(sources_of(item))
        waiting[name_of(item)] = len(sources)
        for source in sources:
            dependents[source].append(name_of(item))
    ready = collections.deque(name for name, count in waiting.items() if not count)
    ordered = []
    while ready:
        name = ready.popleft()
        ordered.append(by_name[name])
        for dependent in dependents[name]:
            waiting[dependent] -= 1
            if not waiting[dependent]:
                ready.append(dependent)
    if len(ordered) != len(items):
        cycle = sorted(name for name, count in waiting.items() if count)
        raise ValueError("graph_def has a cycle that is not a TF1 while loop: %s"
                         % ", ".join(cycle[:5]))
    return ordered


class _Unit(object):
    """What one step of a block's import builds: a node, a while loop (its frame's nodes
    and Exits) or a cond (its Switches, Merges and branch nodes). `nodes` are its
    NodeDefs, `outputs` the names of those whose values it gives the rest of the block."""

    def __init__(self, kind, nodes, outputs):
        self.kind = kind
        self.nodes = nodes
        self.outputs = outputs
        self.name = outputs[0] if outputs else nodes[0].name
        self.context = ()

    def references(self):
        names = {node.name for node in self.nodes}
        return [i for node in self.nodes for i in node.input if _source(i) not in names]


def import_block(importer, nodes, frames, level=_ROOT):
    """Build `nodes` (a GraphDef's, or a loop body's or branch's, whose frame is `level`)
    with `importer`: each node as its raw op, each inner frame as a while loop, each cond
    as a cond."""
    units, owner = _loop_units(nodes, frames, level)

    def read_units(unit):
        return {owner[_source(i)].name for i in unit.references() if _source(i) in owner}

    order = dependency_order(units, read_units)
    _set_contexts(order, owner)
    conds, inside = _cond_units(order, owner)
    for unit in conds:
        for node in unit.nodes:
            owner[node.name] = unit
    top = [unit for unit in order if unit.name not in inside] + conds
    for unit in dependency_order(top, read_units):
        if unit.kind == "node":
            importer.import_nodes(unit.nodes)
        else:
            _build(importer, unit, frames, level)


def _loop_units(nodes, frames, level):
    """A unit per node of `level`, but one per frame directly inside it (its nodes, the
    frames inside it included, and its Exits); {node name: its unit}."""
    loops = collections.OrderedDict()
    plain = []
    for node in nodes:
        frame = frames.frame_of[node.name]
        if node.op in EXIT_OPS and frame == level:
            frame = frames.frame_of[_source(node.input[0])]
        child = frames.child_of(frame, level)
        if child is None:
            plain.append(node)
        else:
            loops.setdefault(child, []).append(node)
    units = [_Unit("node", [node], [node.name]) for node in plain]
    for frame, members in loops.items():
        unit = _Unit("loop", members, [n.name for n in members if n.op in EXIT_OPS and
                                       frames.frame_of[n.name] == level])
        unit.frame = frame
        units.append(unit)
    owner = {node.name: unit for unit in units for node in unit.nodes}
    return units, owner


def _set_contexts(order, owner):
    """Each unit's branch context, as TF's executor tracks dead tensors: a tuple of
    (predicate, branch) from the outermost cond in. A Switch's output `port` is in branch
    `port` of its predicate, a Merge leaves the branches its inputs are in, any other
    unit is in the innermost context of its inputs."""
    for unit in order:
        contexts = [_reference_context(i, owner) for i in unit.references()
                    if _source(i) in owner]
        if unit.kind == "node" and unit.nodes[0].op in MERGE_OPS:
            unit.context = _common_prefix(contexts)
        else:
            unit.context = max(contexts, key=len) if contexts else ()
        if unit.kind == "node" and unit.nodes[0].op in SWITCH_OPS:
            unit.predicate = _predicate(unit.nodes[0], owner)


def _reference_context(reference, owner):
    unit = owner[_source(reference)]
    node = unit.nodes[0]
    if unit.kind == "node" and node.op in SWITCH_OPS and not reference.startswith("^"):
        return unit.context + ((unit.predicate, _port(reference)),)
    return unit.context


def _predicate(switch, owner):
    """The tensor a Switch's predicate is, through the Identity nodes TF puts before it
    ("cond/pred_id")."""
    reference = switch.input[1]
    while _source(reference) in owner and owner[_source(reference)].kind == "node" and \
            owner[_source(reference)].nodes[0].op == "Identity":
        reference = owner[_source(reference)].nodes[0].input[0]
    return _data_key(reference)


def _common_prefix(contexts):
    if not contexts:
        return ()
    prefix = contexts[0]
    for context in contexts[1:]:
        size = 0
        while size < min(len(prefix), len(context)) and prefix[size] == context[size]:
            size += 1
        prefix = prefix[:size]
    return prefix


def _cond_units(order, owner):
    """The conds of the block (their Merges in no branch): each the Merges, Switches and
    branch units connected through one predicate's branches, in one or more conds (see
    `_waves`). Returns them and the names of the units they take in or leave out (branch
    units reaching no Merge, which TF runs for nothing)."""
    parent = {}

    def find(name):
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    def union(a, b):
        parent[find(a)] = find(b)

    merges = [unit for unit in order if unit.kind == "node" and
              unit.nodes[0].op in MERGE_OPS and not unit.context]
    for unit in order:
        if not unit.context:
            continue
        for reference in unit.references():
            if _source(reference) not in owner:
                continue
            context = _reference_context(reference, owner)
            if context and context[0][0] == unit.context[0][0]:
                union(unit.name, owner[_source(reference)].name)
    for merge in merges:
        for reference in merge.nodes[0].input:
            union(merge.name, owner[_source(reference)].name)
    groups = collections.OrderedDict()
    for merge in merges:
        groups.setdefault(find(merge.name), [])
    members = collections.defaultdict(list)
    for unit in order:
        if unit.name in parent and find(unit.name) in groups:
            members[find(unit.name)].append(unit)
    conds, inside, relays = [], set(), {}
    contexts = dict(owner)      # the units as they are now: the cond units replace them
    for root in groups:
        units = members[root]
        waves = _waves(units, order, owner, merges)
        switches = [u for u in units if not u.context and u.kind == "node" and
                    u.nodes[0].op in SWITCH_OPS]
        crossing = [(reference, waves[owner[_source(reference)].name], waves[unit.name])
                    for unit in units for reference in unit.references()
                    if _source(reference) in owner and
                    owner[_source(reference)].name in waves and
                    owner[_source(reference)].context and
                    waves[owner[_source(reference)].name] < waves[unit.name]]
        for wave in sorted(set(waves.values())):
            parts = [u for u in units if waves[u.name] == wave]
            cond = _Unit("cond", [node for unit in parts for node in unit.nodes],
                         [u.name for u in parts if u in merges])
            cond.parts = parts
            cond.owner = contexts
            cond.switches = [u for u in switches if waves[u.name] <= wave]
            cond.exports = [r for r, source, _ in crossing if source == wave]
            cond.imports = [r for r, _, reader in crossing if reader == wave]
            cond.relays = relays
            conds.append(cond)
        inside.update(unit.name for unit in units)
    inside.update(unit.name for unit in order if unit.context or (
        unit.kind == "node" and unit.nodes[0].op in SWITCH_OPS))    # reaching no Merge
    return conds, inside


def _waves(units, order, owner, merges):
    """The cond each of a cond's units (`units`) is built in, numbered in order: one that
    reads one of their Merges, through units outside them, is built in a later cond than
    that Merge (TF builds the gradient of a cond in the cond's own branches, reading its
    values there). {unit name: number}."""
    inside = {unit.name for unit in units}
    merge_names = {unit.name for unit in units if unit in merges}
    wave, after = {}, {}
    for unit in order:
        sources = {owner[_source(r)].name for r in unit.references() if _source(r) in owner}
        if unit.name in inside:
            wave[unit.name] = max([wave[s] + (s in merge_names) for s in sources
                                   if s in inside] +
                                  [after[s] + 1 for s in sources if s in after] + [0])
        else:
            found = [wave[s] for s in sources if s in inside] + \
                [after[s] for s in sources if s in after]
            if found:
                after[unit.name] = max(found)
    return wave


class _Relay(object):
    """A value of a cond's branch that a later cond on the same predicate reads in the
    same branch (TF's gradient of a cond reads the forward cond's branch values): kept
    when that branch runs, read when the later cond runs it (the same branch, the
    predicate being the same). A value known while building is kept as it is."""

    def __init__(self):
        self.value = None
        self.known = None

    def store(self, value):
        if not isinstance(value, SymbolicTensor):
            self.known = [value]
            return
        self.spec = (value.dtype, value.shape)
        run_op(self._kept, "Identity", [value], [self.spec], pure=False)

    def _kept(self, value):
        self.value = value
        return (value,)

    def load(self):
        if self.known is not None:
            return self.known[0]
        return run_op(lambda: (self.value,), "Identity", [], [self.spec], pure=False)[0]


def _build(importer, unit, frames, level):
    if unit.kind == "loop":
        with importer.reporting("the TF1 while loop %r" % (importer.scope + unit.frame)):
            _build_loop(importer, unit, frames)
    else:
        with importer.reporting("the TF1 cond %r" % (importer.scope +
                                                      _scope_of(unit.name))):
            _build_cond(importer, unit, frames, level)


def _scope_of(name):
    return name.rpartition("/")[0] or name


def _build_loop(importer, unit, frames):
    """The frame's loop as tf.while_loop, its Exits' values set."""
    frame = unit.frame
    nodes = {node.name: node for node in unit.nodes}
    own = [node for node in unit.nodes if frames.frame_of[node.name] == frame]
    enters = [node for node in own if node.op in ENTER_OPS]
    variables = [node for node in enters if not node.attr["is_constant"].b]
    loop_cond = [node for node in own if node.op == "LoopCond"]
    if len(loop_cond) != 1:
        raise ValueError("frame %r has %d LoopCond nodes" % (frame, len(loop_cond)))
    loop_cond = loop_cond[0]
    merge_of = {_source(i): node for node in own if node.op in MERGE_OPS
                for i in node.input if _source(i) in nodes and
                nodes[_source(i)].op in ENTER_OPS}
    merges = [merge_of[enter.name] for enter in variables]
    next_iterations = [next(nodes[_source(i)] for i in merge.input
                            if nodes[_source(i)].op in NEXT_ITERATION_OPS) for merge in merges]
    switch_of = {_source(node.input[0]): node for node in own if node.op in SWITCH_OPS and
                 _source(node.input[1]) == loop_cond.name}
    switches = [switch_of.get(merge.name) for merge in merges]
    exits = [node for node in unit.nodes if node.name in unit.outputs]
    structure = {node.name for node in enters + merges + next_iterations + [loop_cond]} | \
        {switch.name for switch in switches if switch is not None} | set(unit.outputs)
    inner = [node for node in unit.nodes if node.name not in structure]
    condition = _ancestors(inner, [loop_cond.input[0]])
    needed = _ancestors(inner, [n.input[0] for n in next_iterations])
    body_nodes = [node for node in inner
                  if node.name not in condition or node.name in needed]
    cond_nodes = [node for node in inner if node.name in condition]
    constants = {enter.name + ":0": importer.tensor(enter.input[0])
                 for enter in enters if enter.attr["is_constant"].b}
    scope = frame.rpartition("/")[0] or frame

    def mapped(values):
        """The loop variables' and invariants' values as the frame's nodes read them."""
        inputs = dict(constants)
        for merge, switch, value in zip(merges, switches, values):
            inputs[merge.name + ":0"] = value
            if switch is not None:
                inputs[switch.name + ":1"] = value
        return inputs

    def condition_fn(*values):
        nested = importer.nested(mapped(values), scope)
        import_block(nested, cond_nodes, frames, frame)
        return nested.tensor(loop_cond.input[0])

    def body_fn(*values):
        nested = importer.nested(mapped(values), scope)
        import_block(nested, body_nodes, frames, frame)
        return [nested.tensor(n.input[0]) for n in next_iterations]

    results = control_flow_ops.while_loop_v2(
        condition_fn, body_fn, [importer.tensor(enter.input[0]) for enter in variables],
        name=importer.op_scope(scope))
    results = [_unknown_where_unknown(result) for result in results]
    by_switch = {switch.name: result for switch, result in zip(switches, results)
                 if switch is not None}
    for node in exits:
        importer.set_output(node.name, by_switch[_source(node.input[0])])


def _unknown_where_unknown(result):
    """A loop result whose shape the graph tracks as its static shape says: a TensorArray
    the loop filled carries storage made before its element shape was known (its unknown
    dims 0, see TensorArray._loop_storage), which what follows the loop would otherwise
    take for its size."""
    storage = result.stack() if isinstance(result, TensorArray) else result
    if not isinstance(storage, SymbolicTensor) or storage.shape.rank is None or not any(
            known is None and type(size) is int
            for known, size in zip(storage.shape.as_list(), storage._fake.shape)):
        return result
    storage = run_op(lambda value: (value,), "Identity", [storage],
                     [(storage.dtype, storage.shape)])[0]
    return result._from_loop_storage(storage) if isinstance(result, TensorArray) \
        else storage


def _ancestors(nodes, references):
    """Names of `nodes` that `references` read, directly or not."""
    by_name = {node.name: node for node in nodes}
    found, stack = set(), [_source(r) for r in references]
    while stack:
        name = stack.pop()
        if name in by_name and name not in found:
            found.add(name)
            stack.extend(_source(i) for i in by_name[name].input)
    return found


def _build_cond(importer, unit, frames, level):
    """The cond as tf.cond on its predicate, its Merges' values set."""
    merges = [part for part in unit.parts if part.name in unit.outputs]
    switches = [part.nodes[0] for part in unit.switches]
    predicate = {part.predicate for part in unit.switches}
    if len(predicate) != 1:
        raise ValueError("its Switch nodes have %d predicates" % len(predicate))
    predicate = predicate.pop()
    scope = _scope_of(unit.name)
    for reference in unit.exports:
        unit.relays.setdefault(reference, _Relay())

    def branch_of(reference):
        return _merge_input_branch(reference, unit.owner, switches, predicate)

    def branch_fn(port):
        parts = [part for part in unit.parts
                 if part.context and part.context[0] == (predicate, port)]
        results = []
        for merge in merges:
            taken = [i for i in merge.nodes[0].input if branch_of(i) == port]
            if len(taken) != 1:
                raise ValueError("Merge %r has %d inputs from the %s branch"
                                 % (merge.name, len(taken), bool(port)))
            results.append(taken[0])

        def build():
            inputs = {switch.name + ":%d" % port: importer.tensor(switch.input[0])
                      for switch in switches}
            inputs.update((reference, unit.relays[reference].load())
                          for reference in unit.imports if branch_of(reference) == port)
            nested = importer.nested(inputs, scope)
            import_block(nested, [node for part in parts for node in part.nodes], frames,
                         level)
            for reference in unit.exports:
                if branch_of(reference) == port:
                    unit.relays[reference].store(nested.tensor(reference))
            return [nested.tensor(reference) for reference in results]
        return build

    results = control_flow_ops.cond(importer.tensor(predicate), branch_fn(1), branch_fn(0),
                                    name=importer.op_scope(scope))
    for merge, result in zip(merges, results):
        importer.set_output(merge.name, result)


def _merge_input_branch(reference, owner, switches, predicate):
    """The branch (1 true, 0 false) of `predicate` a Merge input comes from."""
    if _source(reference) in {switch.name for switch in switches}:
        return _port(reference)
    context = owner[_source(reference)].context
    return context[0][1] if context and context[0][0] == predicate else None
