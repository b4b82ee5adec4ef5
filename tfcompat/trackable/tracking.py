"""Object-based checkpointing: which objects an object depends on, and restoring into them.

The protocol (TF's Trackable, reduced to what checkpoints need):

- `obj._checkpoint_dependencies()`, if defined, returns `[(name, child), ...]`: every name
  under which TF tracks a child (a Variable or another trackable object). Order matters as in
  TF: a variable's checkpoint key is the path of names by which a breadth-first walk from the
  root first reaches it, so list the name TF's keys use first (a Keras Sequential/Functional
  model lists `layer_with_weights-N` before `layer-N`). A name may appear once per object.
- A class with `_always_trackable = True` (tf.Module, so Keras layers) is trackable even
  before it holds a variable, as TF's AutoTrackable is; so are the `ListWrapper` /
  `DictWrapper` that a Checkpoint or tf.Module makes of a list or dict assigned to it.
- Without it, an object's dependencies are its attributes (`vars(obj)`, in assignment order,
  private ones included as TF's AutoTrackable does, dunder names excluded) whose values are
  trackable: a `Variable`, a list/tuple (children "0", "1", ...) or dict (children named by
  their keys) holding trackables, or an object that holds trackables itself.
- An optimizer exposes its slot variables with `obj._checkpoint_slots()` returning
  `{(variable, slot_name): slot_variable}` (TF1 slot names: "momentum", "m", "v", ...). They
  are saved under `<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot_name>/...`.
- An object whose state is not held in variables (a `tf.data` iterator) defines
  `_checkpoint_state()` returning `{attribute_name: function giving its tensor}` (called at
  save time, as TF's `_gather_saveables_for_checkpoint` gives saveable factories) and
  `_restore_checkpoint_state(attribute_name, value)`. Each value is saved under
  `<path>/.ATTRIBUTES/<attribute_name>`, as TF saves a Trackable's saveables.
- `obj._checkpoint_restore_aliases()`, if defined, returns more `[(name, child), ...]` that a
  restore matches (where `_checkpoint_dependencies` has no such name) but a save never writes:
  another layout of the same state that other TF versions wrote (a Keras optimizer's TF 2.11+
  `_iterations` / `_variables`).
- Deferred restoration: a restore may name values for objects that do not exist yet (an
  unbuilt Keras model, slots not yet created). Whoever creates such a dependency later calls
  `restore_on_create(owner, name, value)` right after creating it (a layer for its `kernel`,
  a model for a layer or a variable added after the restore); an optimizer calls
  `restore_slot_on_create(optimizer, variable, slot_name, slot_variable)` when it creates a
  slot. Each returns True when it restored something. Both are cheap when nothing is pending.

Keys are TF's: names escaped ("." -> "..", "/" -> ".S") and joined with "/", then
`/.ATTRIBUTES/VARIABLE_VALUE`. The object graph is TF's `TrackableObjectGraph` proto.
"""
import types

import numpy as np
import torch

from tfcompat.framework import dtypes, errors
from tfcompat.variables import Variable

VARIABLE_VALUE = "VARIABLE_VALUE"
_ATTRIBUTES = ".ATTRIBUTES"
_OPTIMIZER_SLOT = ".OPTIMIZER_SLOT"

_NOT_TRACKABLE = (str, bytes, int, float, bool, complex, type(None), np.ndarray, torch.Tensor,
                  types.ModuleType, types.FunctionType, types.MethodType, type)


def escape(name):
    return name.replace(".", "..").replace("/", ".S")


def attribute_key(path, attribute=VARIABLE_VALUE):
    """TF's checkpoint key of an object's attribute: `<path>/.ATTRIBUTES/<attribute>`."""
    return "/".join([p for p in [path, _ATTRIBUTES, escape(attribute)] if p])


def slot_path(variable_path, optimizer_path, slot_name):
    return "%s/%s/%s/%s" % (variable_path, _OPTIMIZER_SLOT, optimizer_path, escape(slot_name))


def _holds_trackables(value, seen):
    if isinstance(value, Variable) or hasattr(value, "_checkpoint_dependencies") or \
            hasattr(value, "_checkpoint_state") or getattr(type(value), "_always_trackable", False) \
            or isinstance(value, (ListWrapper, DictWrapper)):
        return True
    if isinstance(value, _NOT_TRACKABLE) or id(value) in seen:
        return False
    seen.add(id(value))
    if isinstance(value, (list, tuple)):
        return any(_holds_trackables(v, seen) for v in value)
    if isinstance(value, dict):
        return any(_holds_trackables(v, seen) for v in value.values())
    attributes = getattr(value, "__dict__", None)
    if not isinstance(attributes, dict) or type(value).__module__.startswith(
            ("tfcompat.framework", "tfcompat.client")):
        return False
    return any(_holds_trackables(v, seen) for k, v in attributes.items()
               if not k.startswith("__"))


def is_trackable(value):
    """True for a Variable or an object that (transitively) holds variables."""
    return _holds_trackables(value, set())


def dependencies(obj):
    """[(name, child)] of `obj` under the protocol above."""
    if isinstance(obj, Variable):
        return []
    method = getattr(obj, "_checkpoint_dependencies", None)
    if method is not None:
        return list(method())
    if isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    elif isinstance(obj, dict):
        items = [(str(k), v) for k, v in obj.items()]
    else:
        items = [(k, v) for k, v in getattr(obj, "__dict__", {}).items()
                 if not k.startswith("__")]
    return [(name, value) for name, value in items if is_trackable(value)]


def _slots(obj):
    method = getattr(obj, "_checkpoint_slots", None)
    return dict(method()) if method is not None else {}


class ObjectGraph(object):
    """The objects reachable from `root`, breadth first: `objects` (node id -> object),
    `paths` (node id -> escaped path), `keys` ({checkpoint key: Variable}), `state_keys`
    ({checkpoint key: (object, attribute name)} of objects with `_checkpoint_state`) and
    `proto` (a TrackableObjectGraph)."""

    def __init__(self, root):
        from tensorboard.compat.proto import trackable_object_graph_pb2
        self.proto = trackable_object_graph_pb2.TrackableObjectGraph()
        self.objects, self.paths, self.keys, self.state_keys = [root], [""], {}, {}
        ids = {id(root): 0}
        position = 0
        nodes = [self.proto.nodes.add()]
        while position < len(self.objects):
            obj = self.objects[position]
            node = nodes[position]
            for name, child in dependencies(obj):
                if id(child) not in ids:
                    ids[id(child)] = len(self.objects)
                    self.objects.append(child)
                    self.paths.append("/".join(p for p in (self.paths[position], escape(name))
                                               if p))
                    nodes.append(self.proto.nodes.add())
                node.children.add(node_id=ids[id(child)], local_name=name)
            position += 1
        for position in range(len(self.objects)):
            for (variable, slot_name), slot in _slots(self.objects[position]).items():
                if id(variable) not in ids or id(slot) in ids:
                    continue
                ids[id(slot)] = len(self.objects)
                self.objects.append(slot)
                self.paths.append(slot_path(self.paths[ids[id(variable)]],
                                            self.paths[position], slot_name))
                nodes.append(self.proto.nodes.add())
                nodes[position].slot_variables.add(
                    original_variable_node_id=ids[id(variable)], slot_name=slot_name,
                    slot_variable_node_id=ids[id(slot)])
        for position, obj in enumerate(self.objects):
            if isinstance(obj, Variable):
                key = attribute_key(self.paths[position])
                nodes[position].attributes.add(name=VARIABLE_VALUE, full_name=obj._shared_name,
                                               checkpoint_key=key)
                self.keys[key] = obj
            elif hasattr(obj, "_checkpoint_state"):
                for name in obj._checkpoint_state():
                    key = attribute_key(self.paths[position], name)
                    nodes[position].attributes.add(name=name, full_name=name,
                                                   checkpoint_key=key)
                    self.state_keys[key] = (obj, name)

    def variables(self):
        return [obj for obj in self.objects if isinstance(obj, Variable)]

    def values(self, session=None):
        """{checkpoint key: value} of every variable and object state, for a save."""
        values = {key: read_variable(var, session) for key, var in self.keys.items()}
        for key, (obj, name) in self.state_keys.items():
            values[key] = obj._checkpoint_state()[name]()
        return values


# ---------------------------------------------------------------- reading and assigning values


def read_variable(variable, session=None):
    """The variable's current value: a CPU torch tensor (numpy object array for strings)."""
    if variable._graph is not None:
        if session is None:
            raise ValueError("Variable %s belongs to a TF1 graph: pass the Session holding its "
                             "value" % variable.name)
        value = session._variable_value(variable)
    else:
        value = variable._leaf
    if isinstance(value, np.ndarray):
        return value
    return value.detach()


def assign_variable(variable, value, key, source, session=None):
    """Give `variable` the checkpoint value `value` (stored under `key` in `source`), after
    TF's dtype and shape checks (InvalidArgumentError naming both)."""
    is_strings = isinstance(value, np.ndarray)
    value_dtype = dtypes.string if is_strings else dtypes.from_torch(value.dtype)
    if value_dtype != variable.dtype:
        raise errors.InvalidArgumentError(
            "tensor_name = %s; expected dtype %s does not equal original dtype %s (restoring "
            "variable %s from %s)" % (key, variable.dtype.name, value_dtype.name,
                                      variable._shared_name, source))
    shape = list(value.shape)
    if not variable.shape.is_compatible_with(shape):
        raise errors.InvalidArgumentError(
            "Restoring from checkpoint failed: variable %s has shape %s but the checkpoint %s "
            "holds shape %s under key %s. Assign requires shapes of both tensors to match."
            % (variable._shared_name, variable.shape, source, shape, key))
    if variable._graph is not None:
        if session is None:
            raise ValueError("Restoring graph variable %s needs a Session" % variable.name)
        if not is_strings:
            previous = session._values.get(id(variable))
            device = previous[1].device if previous is not None and \
                isinstance(previous[1], torch.Tensor) else torch.device("cpu")
            value = value.to(device, copy=True)
        else:
            value = value.copy()
        session._set_variable_value(variable, value)
        return
    leaf = variable._leaf
    if is_strings:
        if leaf.shape != value.shape:
            variable._leaf = np.array(value, dtype=object, copy=True)
        else:
            leaf[...] = value
        return
    with torch.no_grad():
        if tuple(leaf.shape) == tuple(value.shape):
            leaf.copy_(value)
        else:  # a variable of unknown shape takes the checkpoint's
            leaf.set_(value.to(leaf.device, copy=True))


# ---------------------------------------------------------------- restoring by object graph

_pending = {}        # id(owner) -> (owner, {name: (restoration, node_id)})
_pending_slots = {}  # (id(optimizer), id(variable), slot_name) -> (objects, restoration, node)


def restore_on_create(owner, name, value):
    """Called right after `owner` starts tracking `value` under `name`; restores it (and what
    it holds) from a pending checkpoint restore. True if something was restored."""
    entry = _pending.get(id(owner))
    if entry is None or entry[0] is not owner or name not in entry[1]:
        return False
    restoration, node_id = entry[1].pop(name)
    if not entry[1]:
        del _pending[id(owner)]
    before = len(restoration.restored)
    restoration.match(node_id, value)
    return len(restoration.restored) > before


def restore_slot_on_create(optimizer, variable, slot_name, slot_variable):
    """Called right after `optimizer` creates `slot_variable` for `variable`."""
    key = (id(optimizer), id(variable), slot_name)
    entry = _pending_slots.get(key)
    if entry is None or entry[0][0] is not optimizer or entry[0][1] is not variable:
        return False
    del _pending_slots[key]
    restoration, node_id = entry[1], entry[2]
    before = len(restoration.restored)
    restoration.match(node_id, slot_variable)
    return len(restoration.restored) > before


class ListWrapper(list):
    """TF's `ListWrapper`: the list a Checkpoint holds for a list assigned to it. Items added
    after a restore are restored at once (`restore_on_create` under their index), as TF's
    deferred restoration does; otherwise it is the list it was made from."""

    def __repr__(self):
        return "ListWrapper(%s)" % list.__repr__(self)

    def _restore_from(self, start):
        for index in range(start, len(self)):
            restore_on_create(self, str(index), self[index])

    def append(self, value):
        list.append(self, value)
        restore_on_create(self, str(len(self) - 1), value)

    def extend(self, values):
        start = len(self)
        list.extend(self, values)
        self._restore_from(start)

    def __iadd__(self, values):
        self.extend(values)
        return self

    def insert(self, index, value):
        list.insert(self, index, value)
        self._restore_from(0)

    def __setitem__(self, index, value):
        list.__setitem__(self, index, value)
        if isinstance(index, slice):
            self._restore_from(0)
        else:
            restore_on_create(self, str(index % len(self)), value)


class DictWrapper(dict):
    """TF's `_DictWrapper`: the dict a Checkpoint holds for a dict assigned to it; values set
    after a restore are restored at once (`restore_on_create` under their key)."""

    def __repr__(self):
        return "DictWrapper(%s)" % dict.__repr__(self)

    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value)
        restore_on_create(self, str(key), value)

    def update(self, *args, **kwargs):
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]


def wrap_container(value):
    """A plain list or dict as TF tracks it when assigned to a trackable attribute (a
    `ListWrapper` / `DictWrapper` holding the same items); anything else unchanged."""
    if type(value) is list:
        return ListWrapper(value)
    if type(value) is dict:
        return DictWrapper(value)
    return value


class Restoration(object):
    """One restore of an object-based checkpoint into the objects reachable from `root`:
    matches checkpoint nodes to objects by walking both graphs from the root, assigns
    variables as they are matched, and leaves the rest pending for `restore_on_create`."""

    def __init__(self, reader, proto, root, session=None, graph_mode=False):
        self.reader, self.proto, self.session = reader, proto, session
        self.graph_mode = graph_mode
        self.matched = {}      # node id -> object
        self.restored = set()  # node ids whose values were assigned (or queued)
        self.queued = []       # graph mode: (variable, value, key) applied by run_restore_ops
        self.absent = set()    # ids of objects the checkpoint's (other) layout has no value for
        self._slot_nodes = [i for i, node in enumerate(proto.nodes) if node.slot_variables]
        self.match(0, root)

    def match(self, node_id, obj):
        if node_id in self.matched or node_id >= len(self.proto.nodes):
            return
        self.matched[node_id] = obj
        node = self.proto.nodes[node_id]
        if isinstance(obj, Variable):
            for attribute in node.attributes:
                if attribute.name == VARIABLE_VALUE:
                    self._assign(node_id, obj, attribute.checkpoint_key)
        elif hasattr(obj, "_restore_checkpoint_state"):
            for attribute in node.attributes:
                obj._restore_checkpoint_state(attribute.name,
                                              self.reader.get_value(attribute.checkpoint_key))
                self.restored.add(node_id)
        own = dependencies(obj)
        children = dict(own)
        aliases = getattr(obj, "_checkpoint_restore_aliases", None)
        if aliases is not None:
            aliased = [(name, value) for name, value in aliases() if name not in children]
            names = {child.local_name for child in node.children}
            if any(name in names for name, _ in aliased):  # the other layout: what it lacks
                self.absent.update(id(value) for name, value in own if name not in names)
            children.update(aliased)
        for child in node.children:
            value = children.get(child.local_name)
            if value is not None:
                self.match(child.node_id, value)
            elif child.node_id not in self.matched:
                _pending.setdefault(id(obj), (obj, {}))[1][child.local_name] = \
                    (self, child.node_id)
        self._match_slots()

    def _match_slots(self):
        for node_id in self._slot_nodes:
            obj = self.matched.get(node_id)
            if obj is None:
                continue
            for ref in self.proto.nodes[node_id].slot_variables:
                if ref.slot_variable_node_id in self.matched:
                    continue
                variable = self.matched.get(ref.original_variable_node_id)
                if variable is None:
                    continue
                slot = _slots(obj).get((variable, ref.slot_name))
                if slot is not None:
                    self.match(ref.slot_variable_node_id, slot)
                else:
                    _pending_slots[(id(obj), id(variable), ref.slot_name)] = (
                        (obj, variable), self, ref.slot_variable_node_id)

    def _assign(self, node_id, variable, key):
        value = self.reader.get_value(key)
        if not isinstance(value, np.ndarray) and variable._graph is None:
            value = value.to(variable._leaf.device)
        if self.graph_mode and variable._graph is not None:
            self.queued.append((variable, value, key))
            if self.session is not None:
                assign_variable(variable, value, key, self.reader.prefix, self.session)
        else:
            assign_variable(variable, value, key, self.reader.prefix)
        self.restored.add(node_id)

    def run(self, session):
        for variable, value, key in self.queued:
            assign_variable(variable, value, key, self.reader.prefix, session)

    def unused_nodes(self):
        """Checkpoint nodes holding values that were not restored."""
        return [i for i, node in enumerate(self.proto.nodes)
                if node.attributes and i not in self.restored]
