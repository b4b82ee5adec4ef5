"""`tf.Variable` (TF's resource variable), the variable collections and their initializers.

A `Variable` is not a tensor: it owns a leaf torch tensor (its storage) and gives ops a read
through `_tfcompat_tensor_()`. Following the tape protocol (`tfcompat.eager.tape`), a trainable
variable read while a `GradientTape` records is reported to the tape and returned as the leaf
itself, so gradients flow to it; any other read is detached, so no autograd graph is built
outside tapes. Assignments update the storage in place under `torch.no_grad()`, through
`@op` functions that take the storage via `variable_storage`, so graph mode can record them.

Eager TF semantics kept: names carry the name scope but are not uniquified, `assign*` return
the variable itself (TF returns an alias of it), `initializer` is None and `initial_value`
raises, and the collection functions return [] (eager TF keeps no variables in collections).

A variable created while a TF1 graph is built is a graph variable: its name is uniquified in
the graph, it joins the GLOBAL/TRAINABLE_VARIABLES collections, `initializer` is an op, and
its value lives in each Session that ran the initializer (or restored it, or ran an `assign`
that overwrites it before any read), as in TF. Reads and assignments are graph ops; `assign*`
then return a tensor that performs the update.
Variables created while a tf.function traces are created outside it (`tf.init_scope`).
"""
import copy
import enum
import threading
import warnings

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.eager import tape
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.graph import (SymbolicTensor, get_collection, get_default_graph,
                                     run_module)
from tfcompat.framework.ops import op, to_torch, variable_storage
from tfcompat.framework.tensor import EagerTensor, Reference, Tensor
from tfcompat.framework.tensor_shape import TensorShape, as_shape
from tfcompat.ops import array_ops, control_flow_ops
from tfcompat.framework.default_session import running_session, session_for

_state = context.state

# TF's GraphKeys values for the collections these functions read.
GLOBAL_VARIABLES = "variables"
LOCAL_VARIABLES = "local_variables"
MODEL_VARIABLES = "model_variables"
TRAINABLE_VARIABLES = "trainable_variables"
MOVING_AVERAGE_VARIABLES = "moving_average_variables"


@tf_export("VariableSynchronization")
def _lifted(value):
    """The eager value of a variable's initial value. A `tf.function`'s first trace may create
    a variable from a tensor it computed (`tf.Variable(tf.random.normal([n, m]))`); TF lifts
    such an initializer out of the function, and so its graph is run here, once, eagerly. One
    that depends on the function's inputs cannot be lifted, in TF either."""
    if not isinstance(value, SymbolicTensor):
        return value
    try:
        module, inputs = value.graph.build_module([], [value])
    except errors.InvalidArgumentError:
        raise ValueError("A tf.Variable created inside a tf.function has an initial value that "
                         "depends on the function's inputs (%s), which cannot be lifted out of "
                         "the function; compute it from shapes or constants, or create the "
                         "variable outside the function." % (value.name,)) from None
    return EagerTensor(run_module(module, [], inputs)[0])


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (accepted and recorded; one device here)."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


@tf_export("VariableAggregation")
class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are aggregated (accepted and recorded)."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def validate_synchronization_aggregation_trainable(synchronization, aggregation, trainable,
                                                   name=None):
    """TF's defaults and checks: `trainable` defaults to True unless synchronization is ON_READ."""
    aggregation = VariableAggregation.NONE if aggregation is None else aggregation
    synchronization = VariableSynchronization.AUTO if synchronization is None \
        else synchronization
    if not isinstance(aggregation, VariableAggregation):
        raise ValueError("Invalid variable aggregation mode: %s for variable: %s"
                         % (aggregation, name))
    if not isinstance(synchronization, VariableSynchronization):
        raise ValueError("Invalid variable synchronization mode: %s for variable: %s"
                         % (synchronization, name))
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    elif trainable and synchronization == VariableSynchronization.ON_READ:
        raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ "
                         "only for non-trainable variables. You have specified trainable=True "
                         "and synchronization=VariableSynchronization.ON_READ.")
    return synchronization, aggregation, bool(trainable)


def _is_string(t):
    return isinstance(t, np.ndarray)


# ---------------------------------------------------------------- variable ops
# Each takes the variable (eager) or its storage tensor (graph execution) first.


@op(graph_name="ReadVariableOp")
def read_variable_op(resource):
    """A snapshot of the variable's value (differentiable while a tape watches it)."""
    t = to_torch(resource)
    return t.copy() if _is_string(t) else t.clone()


@op(graph_name="AssignVariableOp")
def assign_variable_op(resource, value, name=None):
    """Write `value` (already of the variable's dtype) into the storage."""
    storage = variable_storage(resource)
    value = to_torch(value)
    if _is_string(storage):
        if storage.shape != value.shape:
            raise errors.InvalidArgumentError(
                "Cannot assign a string tensor of shape %s to a variable of shape %s"
                % (value.shape, storage.shape))
        storage[...] = value
        return None
    with torch.no_grad():
        if storage.shape == value.shape:
            storage.copy_(value)
        else:  # a variable created with a partly unknown shape takes the new shape
            storage.set_(value.detach().to(storage.device).clone())
    return None


def _update_in_place(storage, update, value):
    """Run `update(storage, value)` (an in-place Tensor method) outside autograd (no_grad only
    when autograd is involved: entering it costs more than a small update)."""
    if storage.requires_grad or value.requires_grad:
        with torch.no_grad():
            update(storage, value)
    else:
        update(storage, value)


def _update_unless_symbolic(storage, update, value):
    """`_update_in_place`, skipped for a value with unknown dims: that is a graph's fake run
    (which only needs the op's outputs), where torch cannot add an unknown dim in place."""
    if all(type(size) is int for size in value.shape):
        _update_in_place(storage, update, value)


def _check_same_shape(storage, value):
    """TF's check for assign/assign_add/assign_sub: equal shapes; while a graph is built an
    unknown dim of the value matches, as TF's shape function merges compatible shapes."""
    if len(storage.shape) != len(value.shape) or any(
            type(a) is int and type(b) is int and a != b
            for a, b in zip(storage.shape, value.shape)):
        raise errors.InvalidArgumentError(
            "Cannot update variable with shape %s using a Tensor with shape %s, shapes must "
            "be equal." % (errors.format_shape(storage.shape), errors.format_shape(value.shape)))


@op(graph_name="AssignAddVariableOp")
def assign_add_variable_op(resource, value, name=None):
    storage = variable_storage(resource)
    value = to_torch(value)
    _check_same_shape(storage, value)
    _update_unless_symbolic(storage, torch.Tensor.add_, value)
    return None


@op(graph_name="AssignSubVariableOp")
def assign_sub_variable_op(resource, value, name=None):
    storage = variable_storage(resource)
    value = to_torch(value)
    _check_same_shape(storage, value)
    _update_unless_symbolic(storage, torch.Tensor.sub_, value)
    return None


def _scatter_operands(storage, indices, updates):
    """Flatten indices into dimension 0 and reshape updates to [n] + storage.shape[1:]."""
    idx = to_torch(indices)
    if idx.dtype not in (torch.int32, torch.int64):
        raise TypeError("indices must be int32 or int64, got %s"
                        % dtypes.from_torch(idx.dtype).name)
    upd = to_torch(updates, dtypes.from_torch(storage.dtype))
    idx = idx.reshape(-1).to(device=storage.device, dtype=torch.int64)
    expected = tuple(to_torch(indices).shape) + tuple(storage.shape[1:])
    if tuple(upd.shape) != expected and upd.ndim != 0:
        raise errors.InvalidArgumentError(
            "updates must have shape indices.shape + params.shape[1:] = %s, got %s"
            % (list(expected), list(upd.shape)))
    upd = upd.to(storage.device).expand(expected).reshape((-1,) + tuple(storage.shape[1:]))
    return idx, upd


def _scatter(storage, idx, upd, mode):
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="index_reduce")
            if mode == "update":
                storage.index_copy_(0, idx, upd)
            elif mode == "add":
                storage.index_add_(0, idx, upd)
            elif mode == "sub":
                storage.index_add_(0, idx, -upd)
            elif mode == "mul":
                storage.index_reduce_(0, idx, upd, "prod")
            elif mode == "div":
                denom = torch.ones_like(storage).index_reduce_(0, idx, upd, "prod")
                if storage.is_floating_point() or storage.is_complex():
                    storage.div_(denom)
                else:
                    storage.copy_(torch.div(storage, denom, rounding_mode="trunc"))
            elif mode == "min":
                storage.index_reduce_(0, idx, upd, "amin")
            else:
                storage.index_reduce_(0, idx, upd, "amax")
    except (IndexError, RuntimeError) as e:
        raise errors.InvalidArgumentError("scatter indices out of range for a variable of "
                                          "shape %s: %s" % (list(storage.shape), e)) from None


def _scatter_op(mode, graph_name):
    @op(graph_name=graph_name)
    def scatter(resource, indices, updates):
        storage = variable_storage(resource)
        idx, upd = _scatter_operands(storage, indices, updates)
        _scatter(storage, idx, upd, mode)
        return None
    scatter.__name__ = "resource_scatter_" + mode
    return scatter


resource_scatter_update = _scatter_op("update", "ResourceScatterUpdate")
resource_scatter_add = _scatter_op("add", "ResourceScatterAdd")
resource_scatter_sub = _scatter_op("sub", "ResourceScatterSub")
resource_scatter_mul = _scatter_op("mul", "ResourceScatterMul")
resource_scatter_div = _scatter_op("div", "ResourceScatterDiv")
resource_scatter_min = _scatter_op("min", "ResourceScatterMin")
resource_scatter_max = _scatter_op("max", "ResourceScatterMax")


def _scatter_nd_op(mode, graph_name):
    @op(graph_name=graph_name)
    def scatter_nd(resource, indices, updates):
        storage = variable_storage(resource)
        idx = to_torch(indices)
        if idx.dtype not in (torch.int32, torch.int64) or idx.ndim < 1:
            raise errors.InvalidArgumentError("indices must be an int32/int64 tensor of rank "
                                              ">= 1 whose last dimension indexes the variable")
        k = idx.shape[-1]
        if k > storage.ndim:
            raise errors.InvalidArgumentError(
                "indices.shape[-1] must be <= params.rank, got %d and %d" % (k, storage.ndim))
        outer = tuple(storage.shape[:k])
        strides = [1] * k
        for i in range(k - 2, -1, -1):
            strides[i] = strides[i + 1] * outer[i + 1]
        idx = idx.to(device=storage.device, dtype=torch.int64)
        linear = (idx * torch.tensor(strides, dtype=torch.int64, device=storage.device)).sum(-1)
        flat = storage.view((-1,) + tuple(storage.shape[k:]))
        upd = to_torch(updates, dtypes.from_torch(storage.dtype))
        expected = tuple(idx.shape[:-1]) + tuple(storage.shape[k:])
        if tuple(upd.shape) != expected:
            raise errors.InvalidArgumentError(
                "updates must have shape indices.shape[:-1] + params.shape[indices.shape[-1]:]"
                " = %s, got %s" % (list(expected), list(upd.shape)))
        _scatter(flat, linear.reshape(-1),
                 upd.to(storage.device).reshape((-1,) + tuple(storage.shape[k:])), mode)
        return None
    scatter_nd.__name__ = "resource_scatter_nd_" + mode
    return scatter_nd


resource_scatter_nd_update = _scatter_nd_op("update", "ResourceScatterNdUpdate")
resource_scatter_nd_add = _scatter_nd_op("add", "ResourceScatterNdAdd")
resource_scatter_nd_sub = _scatter_nd_op("sub", "ResourceScatterNdSub")


@op(graph_name="ResourceGather")
def resource_gather(resource, indices):
    """`Variable.sparse_read`: rows of the variable (differentiable like a gather)."""
    t = to_torch(resource)
    idx = to_torch(indices)
    return t.index_select(0, idx.reshape(-1).to(device=t.device, dtype=torch.int64)).reshape(
        tuple(idx.shape) + tuple(t.shape[1:]))


@op(graph_name="ResourceGatherNd")
def resource_gather_nd(resource, indices):
    t = to_torch(resource)
    idx = to_torch(indices).to(device=t.device, dtype=torch.int64)
    return t[tuple(idx[..., i] for i in range(idx.shape[-1]))]


_count_lock = threading.Lock()


def _count_up_to(storage, limit):
    """The value of `storage` before adding one to it; OutOfRangeError once it is `limit`."""
    with _count_lock:
        before = storage.clone()
        if int(before) >= limit:
            raise errors.OutOfRangeError("Reached limit of %d" % limit)
        storage.add_(1)
    return before


def _sparse_delta(sparse_delta):
    if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
        raise TypeError("sparse_delta is not IndexedSlices: %s" % (sparse_delta,))
    return sparse_delta.indices, sparse_delta.values


# ---------------------------------------------------------------- the Variable class

# Functions called with each new eager variable once it holds its initial value
# (`tfe.restore_variables_on_create` assigns checkpointed values there).
EAGER_CREATION_HOOKS = []


@tf_export("Variable", "contrib.eager.Variable")
class Variable(object):
    """TF's `tf.Variable` / `ResourceVariable`: mutable state kept in a torch leaf tensor.

    Constructor: TF1's signature (`collections` is third); TF2 keywords are accepted.
    `caching_device` and `expected_shape` are accepted and ignored, as eager TF does.
    """

    __array_priority__ = 100

    def __init__(self, initial_value=None, trainable=None, collections=None,
                 validate_shape=True, caching_device=None, name=None, variable_def=None,
                 dtype=None, expected_shape=None, import_scope=None, constraint=None,
                 use_resource=None, synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE, shape=None,
                 experimental_enable_variable_lifting=True, distribute_strategy=None):
        if variable_def is not None:
            raise ValueError("Creating a Variable from variable_def is not supported when "
                             "eager execution is enabled.")
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable. Got: %r"
                             % (constraint,))
        synchronization, aggregation, trainable = \
            validate_synchronization_aggregation_trainable(synchronization, aggregation,
                                                           trainable, name)
        dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._trainable = trainable
        self._constraint = constraint
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._graph = None
        with ops.init_scope():
            if _state.building_graph:
                self._init_in_graph(initial_value, dtype, shape, validate_shape, name,
                                    collections)
                return
            if callable(initial_value):
                initial_value = initial_value()
            self._init_eager(to_torch(_lifted(initial_value), dtype), shape, validate_shape, name)
            for on_create in list(EAGER_CREATION_HOOKS):   # a hook may remove itself
                on_create(self)

    def _init_eager(self, value, shape, validate_shape, name):
        value_shape = TensorShape._from_sizes(value.shape)
        if shape is not None:
            shape = as_shape(shape)
            if not shape.is_compatible_with(value_shape):
                raise ValueError("In this `tf.Variable` creation, the initial value's shape "
                                 "(%s) is not compatible with the explicitly supplied `shape` "
                                 "argument (%s)." % (value_shape, shape))
        elif not validate_shape:
            shape = TensorShape(None)
        else:
            shape = value_shape
        self._shape = shape
        self._shared_name = self._variable_name(name)
        self._name = self._shared_name + ":0"
        self._init_storage(value)

    def _init_in_graph(self, initial_value, dtype, shape, validate_shape, name, collections):
        """A TF1 graph variable: an op for its value, an initializer op, collections."""
        graph = self._graph = get_default_graph()
        self._leaf = None
        with graph.name_scope(name or "Variable") as scope:
            self._shared_name = scope[:-1]
            with graph.name_scope("Initializer" if callable(initial_value) else "initial_value"):
                if callable(initial_value):
                    initial_value = initial_value()
                init = ops.convert_to_tensor(initial_value, dtype=dtype)
            self._initial_value = init
            self._dtype = init.dtype
            if shape is not None:
                self._shape = as_shape(shape)
            else:
                self._shape = init.shape if validate_shape else TensorShape(None)
            self._name = self._shared_name + ":0"
            self._handle = graph.variable_input(self)
            self._initializer_op = graph.record_custom(
                self._initialize_in_session, "Assign", [init], None,
                name=self._shared_name + "/Assign/")
        collections = list(collections) if collections is not None else [GLOBAL_VARIABLES]
        if self._trainable and TRAINABLE_VARIABLES not in collections:
            collections.append(TRAINABLE_VARIABLES)
        graph.add_to_collections(collections, self)

    def _initialize_in_session(self, value):
        stored = value.copy() if _is_string(value) else value.detach().clone()
        running_session()._set_variable_value(self, stored)

    # ---------------------------------------------------------------- graph protocol
    def _graph_tensor(self, graph):
        """This variable's storage as an input of `graph` (see framework/graph.py)."""
        if self._graph is not None:
            owner = graph
            while owner is not self._graph and getattr(owner, "outer", None) is not None:
                owner = owner.outer
            if owner is not self._graph:
                raise ValueError("Variable %s belongs to another graph and cannot be used "
                                 "here" % self._name)
        return graph.variable_input(self)

    def _storage_meta(self):
        return self._initial_value._fake if self._graph is not None else self._leaf

    def _graph_op_name(self):
        return self._shared_name + "/" if self._graph is not None else self._shared_name

    def _storage_for_graph(self):
        """The storage a graph run reads and updates: the running session's value."""
        if self._graph is None:
            return self._tfcompat_tensor_()
        session = running_session()
        if session is None:
            raise errors.FailedPreconditionError(
                "Variable %s of a TF1 graph has a value only inside Session.run" % self._name)
        return session._variable_value(self)

    def _storage_for_assignment(self):
        """(storage, initialize) for a run of this TF1 graph variable's graph that overwrites
        it before any other use: if the running session holds no value of it, fresh storage,
        and `initialize()` (else None) makes that storage the variable's value."""
        session = running_session()
        fake = self._initial_value._fake
        if session is None or session._is_initialized(self) or _is_string(fake):
            return self._storage_for_graph(), None
        shape = self._shape.as_list() if self._shape.is_fully_defined() else [0]
        storage = torch.empty(shape, dtype=fake.dtype, device=fake.device)
        return storage, lambda: session._set_variable_value(self, storage)

    def _in_graph(self):
        return self._graph is not None

    def _need_eager(self, what):
        if self._graph is not None:
            raise NotImplementedError("%s is only available when eager execution is enabled; "
                                      "evaluate variable %s with Session.run" % (what, self._name))

    # ---------------------------------------------------------------- partitions
    class SaveSliceInfo(object):
        """Where a part of a partitioned variable lies in the full variable it is saved as
        (TF's `Variable.SaveSliceInfo`; `save_slice_info_def` protos are not supported)."""

        def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None,
                     save_slice_info_def=None, import_scope=None):
            if save_slice_info_def is not None:
                raise NotImplementedError("Variable.SaveSliceInfo(save_slice_info_def=...) is "
                                          "not implemented by tfcompat")
            self.full_name = full_name
            self.full_shape = list(full_shape)
            self.var_offset = list(var_offset)
            self.var_shape = list(var_shape)

        @property
        def spec(self):
            """TF's slice spec string: "<full shape> <offset>,<length>:..."."""
            return " ".join("%d" % d for d in self.full_shape) + " " + ":".join(
                "%d,%d" % (o, n) for o, n in zip(self.var_offset, self.var_shape))

    _save_slice_info = None

    def _set_save_slice_info(self, save_slice_info):
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self):
        return self._save_slice_info

    # ---------------------------------------------------------------- creation
    @staticmethod
    def _variable_name(name):
        """TF's name: the name scope + name ("Variable" by default); "a/b/" is absolute."""
        if name is not None and not isinstance(name, str):
            raise TypeError("Variable name must be a string, got %r" % (name,))
        if name and name.endswith("/"):
            return name[:-1]
        return ops.current_scope() + (name or "Variable")

    def _init_storage(self, value):
        """Create the leaf tensor holding the value, on the current device.

        The only place storage is made; a graph-mode variable gets it from the graph instead.
        """
        if _is_string(value):
            self._leaf = np.array(value, dtype=object, copy=True)
            self._dtype = dtypes.string
            return
        self._leaf = value.detach().to(context.current_device(), copy=True)
        self._dtype = dtypes.from_torch(self._leaf.dtype)

    # ---------------------------------------------------------------- reads
    def _storage(self):
        if self._graph is not None:
            return self._storage_for_graph()
        return self._leaf

    def _tfcompat_tensor_(self):
        """The read used by ops: the leaf itself while a tape records (it is then watched)."""
        if self._graph is not None:
            raise TypeError("Variable %s belongs to a TF1 graph; it can be used only in ops of "
                            "that graph and read with Session.run" % self._name)
        leaf = self._leaf
        if tape.recording():
            if self._trainable:
                tape.variable_accessed(self)
                return leaf
            if type(leaf) is torch.Tensor and leaf.requires_grad:
                return leaf
        if type(leaf) is torch.Tensor and leaf.requires_grad:
            return leaf.detach()
        return leaf

    def _as_tensor(self):
        """The current value as a tensor for operators (eager: no copy)."""
        return ops.convert_to_tensor(self)

    def value(self):
        """A snapshot of the current value as a tensor."""
        return read_variable_op(self)

    def read_value(self):
        """A snapshot of the current value as a tensor."""
        return read_variable_op(self)

    def numpy(self):
        """A numpy copy of the current value (a numpy scalar for rank 0)."""
        self._need_eager("numpy()")
        value = _numpy_copy(self._leaf)
        return value[()] if value.ndim == 0 else value

    def initialized_value(self):
        """Eager: the current value; graph: the initial value (TF1's use: init order)."""
        if self._graph is not None:
            return self._initial_value
        return self.read_value()

    def sparse_read(self, indices, name=None):
        return resource_gather(self, indices)

    def gather_nd(self, indices, name=None):
        return resource_gather_nd(self, indices)

    def eval(self, session=None):
        if self._graph is not None:
            return session_for(session, self._graph).run(self)
        raise NotImplementedError("eval is not supported when eager execution is enabled, "
                                  "is .numpy() what you're looking for?")

    def is_initialized(self, name=None):
        if self._graph is None:
            return True
        return self._graph.record_custom(
            lambda: torch.tensor(running_session()._is_initialized(self)), "IsVariableInitialized",
            [], self._graph._fake_mode.from_tensor(torch.tensor(True)), name)

    def _as_graph_element(self):
        return self._handle if self._graph is not None else None

    # ---------------------------------------------------------------- properties
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def device(self):
        if self._graph is not None:
            return self._handle.op.device
        leaf = self._leaf
        return context.tf_device_name(torch.device("cpu") if _is_string(leaf) else leaf.device)

    @property
    def trainable(self):
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def initializer(self):
        """The initializer op (graph); eager TF: None (there is nothing to run)."""
        return self._initializer_op if self._graph is not None else None

    @property
    def initial_value(self):
        if self._graph is not None:
            return self._initial_value
        raise RuntimeError("This property is not supported when eager execution is enabled.")

    @property
    def op(self):
        if self._graph is not None:
            return self._handle.op
        raise AttributeError("Tensor.op is meaningless when eager execution is enabled.")

    @property
    def graph(self):
        if self._graph is not None:
            return self._graph
        raise AttributeError("Tensor.graph is meaningless when eager execution is enabled.")

    # ---------------------------------------------------------------- writes
    def _converted(self, value):
        return ops.convert_to_tensor(value, dtype=self._dtype)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Write `value` (converted to the variable's dtype; shapes must be compatible)."""
        value = self._converted(value)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError("Cannot assign value to variable ' %s': Shape mismatch.The "
                             "variable shape %s, and the assigned value shape %s are "
                             "incompatible." % (self._name, self._shape, value.shape))
        return self._updated(assign_variable_op(self, value, name=name), read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._updated(assign_add_variable_op(self, self._converted(delta), name=name),
                             read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._updated(assign_sub_variable_op(self, self._converted(delta), name=name),
                             read_value)

    def _updated(self, update, read_value):
        """Eager: the variable (or None); graph: the new value after `update`, or the op."""
        if not _state.building_graph:
            return self if read_value else None
        if not read_value:
            return update
        with get_default_graph().control_dependencies([update]):
            return read_variable_op(self)

    def load(self, value, session=None):
        """TF1 `Variable.load`: set the value (in `session` for a graph variable)."""
        if self._graph is None:
            self.assign(value)
            return
        session_for(session, self._graph)._set_variable_value(
            self, to_torch(value, self._dtype).clone())

    def count_up_to(self, limit):
        """TF's CountUpTo: increment by one unless the value reached `limit`
        (OutOfRangeError "Reached limit of N"); returns the value before the increment.
        Eager: now; graph: an op doing it each time it runs (atomically across threads)."""
        if self._dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError("count_up_to needs an int32 or int64 variable, %s is %s"
                            % (self._name, self._dtype.name))
        limit = int(limit)

        def count_up_to(storage):
            return _count_up_to(storage, limit)
        if not _state.building_graph:
            return EagerTensor(count_up_to(self._leaf))
        graph = get_default_graph()
        with graph._fake_mode:
            fake = torch.empty((), dtype=self._dtype.torch_dtype)
        return graph.record_custom(count_up_to, "CountUpTo", [self], fake)

    def _scatter(self, fn, sparse_delta):
        indices, values = _sparse_delta(sparse_delta)
        return self._updated(fn(self, indices, values), True)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Rows `sparse_delta.indices` take `sparse_delta.values` (an IndexedSlices)."""
        return self._scatter(resource_scatter_update, sparse_delta)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(resource_scatter_add, sparse_delta)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(resource_scatter_sub, sparse_delta)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(resource_scatter_mul, sparse_delta)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(resource_scatter_div, sparse_delta)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(resource_scatter_min, sparse_delta)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(resource_scatter_max, sparse_delta)

    def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(resource_scatter_update, sparse_delta)

    def scatter_nd_update(self, indices, updates, name=None):
        return self._updated(resource_scatter_nd_update(self, indices, updates), True)

    def scatter_nd_add(self, indices, updates, name=None):
        return self._updated(resource_scatter_nd_add(self, indices, updates), True)

    def scatter_nd_sub(self, indices, updates, name=None):
        return self._updated(resource_scatter_nd_sub(self, indices, updates), True)

    # ---------------------------------------------------------------- Python protocol
    def __repr__(self):
        if self._graph is not None:
            return "<tf.Variable '%s' shape=%s dtype=%s>" % (self._name, self._shape,
                                                            self._dtype.name)
        value = _numpy_copy(self._leaf)
        text = repr(value) if value.ndim else str(value[()])
        if "\n" in text:
            text = "\n" + text
        return "<tf.Variable '%s' shape=%s dtype=%s, numpy=%s>" % (
            self._name, self._shape, self._dtype.name, text)

    def __array__(self, dtype=None, copy=None):
        self._need_eager("Conversion to numpy")
        value = _numpy_copy(self._leaf)
        return value if dtype is None else value.astype(dtype, copy=False)

    def __bool__(self):
        return bool(self._as_tensor())

    def __int__(self):
        return int(self._as_tensor())

    def __float__(self):
        return float(self._as_tensor())

    def __complex__(self):
        return complex(self._as_tensor())

    def __index__(self):
        return self._as_tensor().__index__()

    def __len__(self):
        self._need_eager("len()")
        if len(self._leaf.shape) == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self._leaf.shape[0]

    def __iter__(self):
        """Iterates over the rows of a snapshot of the value."""
        return iter(self.read_value())

    def __getitem__(self, slice_spec):
        return Tensor.__getitem__(self, slice_spec)

    def __hash__(self):
        return id(self)

    def ref(self):
        """A hashable reference to this variable; `.deref()` gives it back."""
        return Reference(self)

    experimental_ref = ref

    def __deepcopy__(self, memo):
        """A new variable with a copy of the value, the same name and settings (TF2 eager)."""
        return Variable(copy.deepcopy(self.numpy(), memo), trainable=self._trainable,
                        name=self._shared_name + "/", constraint=self._constraint,
                        synchronization=self._synchronization, aggregation=self._aggregation,
                        shape=self._shape)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Raw torch functions accept variables (read as tensors)."""
        from torch.utils._pytree import tree_map
        return func(*tree_map(_unwrap_for_torch, args),
                    **tree_map(_unwrap_for_torch, kwargs or {}))


@op(graph_name="ConcatPartitions")
def _concat_partitions(parts, axis, name=None):
    return torch.cat([to_torch(p) for p in parts], axis)


class PartitionedVariable(object):
    """TF1's PartitionedVariable: the parts `get_variable` made with a partitioner (each a
    Variable with a SaveSliceInfo), sorted by offset. Iterating gives the parts; used as a
    tensor it is their concatenation (an op over the parts, so gradients reach them);
    `embedding_lookup` and the Saver treat it as its parts. Unlike TF, eager code may use it
    too (TF makes one in eager mode but documents it as graph-only)."""

    def __init__(self, name, shape, dtype, variable_list, partitions):
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError("variable_list is not a list or tuple: %s" % (variable_list,))
        if not isinstance(partitions, (list, tuple)):
            raise TypeError("partitions is not a list or tuple: %s" % (partitions,))
        if not all(p >= 1 for p in partitions):
            raise ValueError("partition values must be positive: %s" % (partitions,))
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        if len(shape) != len(partitions):
            raise ValueError("len(shape) != len(partitions): %s vs. %s" % (shape, partitions))
        for v in variable_list:
            info = v._get_save_slice_info()
            if info is None:
                raise ValueError("All variables must have a save_slice_info available: %s"
                                 % [p.name for p in variable_list])
            if info.full_shape != list(shape):
                raise ValueError("All variables' full shapes must match shape: %s; but full "
                                 "shapes were: %s" % (shape, info.full_shape))
        self._variable_list = sorted(variable_list,
                                     key=lambda v: v._get_save_slice_info().var_offset)
        self._name = name
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._partitions = list(partitions)

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError("Cannot get a length for %d > 1 partition axes" % len(axes))
        return len(self._variable_list)

    def _partition_axes(self):
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self):
        """The full value: the parts concatenated along the partition axis."""
        return _concat_partitions(self._variable_list, self._partition_axes()[0],
                                  name=self._name)

    def as_tensor(self):
        """The full value, outside the control dependencies of the current scope."""
        if not _state.building_graph:
            return self._concat()
        with get_default_graph().control_dependencies(None):
            return self._concat()

    _tfcompat_tensor_is_new_ = True     # the partitions concatenated (`variable_snapshot`)

    def _tfcompat_tensor_(self):
        return to_torch(self.as_tensor())

    def _graph_tensor(self, graph):
        return self.as_tensor()

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def _get_variable_list(self):
        return self._variable_list

    def _get_partitions(self):
        return self._partitions

    def _apply_assign_fn(self, assign_fn, value):
        """Apply `assign_fn(part, value of that part)`: `value` is a list of part values, a
        PartitionedVariable, or a full tensor split along the partition axis."""
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError("Cannot do assign action along more than one dimension: "
                                      "%s.  Multi-axis partition assign action is not "
                                      "supported " % str(axes))
        if isinstance(value, (list, PartitionedVariable)):
            values = list(value)
            if len(values) != len(self._variable_list):
                raise ValueError("Expected %d part values for %s, got %d"
                                 % (len(self._variable_list), self._name, len(values)))
        else:
            sizes = [v.shape[axes[0]] for v in self._variable_list]
            values = array_ops.split(value, sizes, axis=axes[0])
        return [assign_fn(v, part) for v, part in zip(self._variable_list, values)]

    def assign(self, value, use_locking=False, name=None, read_value=True):
        return self._assign_parts("assign", value, use_locking, name, read_value)

    def assign_add(self, value, use_locking=False, name=None, read_value=True):
        return self._assign_parts("assign_add", value, use_locking, name, read_value)

    def assign_sub(self, value, use_locking=False, name=None, read_value=True):
        return self._assign_parts("assign_sub", value, use_locking, name, read_value)

    def _assign_parts(self, method, value, use_locking, name, read_value):
        """The parts' own `method` results, one per part (TF's list)."""
        return self._apply_assign_fn(
            lambda v, part: getattr(v, method)(part, use_locking=use_locking, name=name,
                                               read_value=read_value), value)

    def __repr__(self):
        return "<tf.PartitionedVariable '%s' shape=%s dtype=%s parts=%d>" % (
            self._name, self._shape, self._dtype.name, len(self._variable_list))


def _unwrap_for_torch(value):
    if isinstance(value, EagerTensor):
        return value._t
    if isinstance(value, Variable):
        return value._tfcompat_tensor_()
    return value


def _numpy_copy(t):
    if _is_string(t):
        return t.copy()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.detach().cpu().numpy().copy()


def _copy_operators():
    """Give Variable the operators math_ops/array_ops attached to Tensor (same functions)."""
    for name in Tensor.OVERLOADABLE_OPERATORS:
        if name == "__getitem__":
            continue
        for klass in Tensor.__mro__[:-1]:
            if name in vars(klass):
                setattr(Variable, name, vars(klass)[name])
                break


_copy_operators()


# ---------------------------------------------------------------- collections


def _collection(key, scope=None):
    """Graph mode: the default graph's collection; eager TF keeps no variables in them."""
    if not _state.building_graph:
        return []
    return get_collection(key, scope)


@tf_export(v1=["global_variables", "all_variables"])
def global_variables(scope=None):
    return _collection(GLOBAL_VARIABLES, scope)


@tf_export(v1=["trainable_variables"])
def trainable_variables(scope=None):
    return _collection(TRAINABLE_VARIABLES, scope)


@tf_export(v1=["local_variables"])
def local_variables(scope=None):
    return _collection(LOCAL_VARIABLES, scope)


@tf_export(v1=["model_variables"])
def model_variables(scope=None):
    return _collection(MODEL_VARIABLES, scope)


@tf_export(v1=["moving_average_variables"])
def moving_average_variables(scope=None):
    return _collection(MOVING_AVERAGE_VARIABLES, scope)


@tf_export(v1=["variables_initializer", "initialize_variables", "initializers.variables"])
def variables_initializer(var_list, name="init"):
    """An op running the variables' initializers; eager TF returns None (nothing to run)."""
    if not _state.building_graph:
        return None
    if var_list:
        return control_flow_ops.group(*[v.initializer for v in var_list], name=name)
    return control_flow_ops.no_op(name=name)


@tf_export(v1=["global_variables_initializer", "initialize_all_variables",
               "initializers.global_variables"])
def global_variables_initializer():
    return variables_initializer(global_variables(), name="init")


@tf_export(v1=["local_variables_initializer", "initialize_local_variables",
               "initializers.local_variables"])
def local_variables_initializer():
    return variables_initializer(local_variables(), name="init")


@tf_export(v1=["is_variable_initialized"])
def is_variable_initialized(variable):
    """Eager: always True (as a bool tensor); graph mode asks the variable."""
    if not _state.building_graph:
        return ops.convert_to_tensor(True)
    return variable.is_initialized()


@tf_export(v1=["assert_variables_initialized"])
def assert_variables_initialized(var_list=None):
    """Eager: nothing to check, returns None like TF."""
    if not _state.building_graph:
        return None
    raise NotImplementedError("tf.assert_variables_initialized is not implemented by "
                              "tfcompat in graph mode")


@tf_export(v1=["report_uninitialized_variables"])
def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """The names (1-D string tensor) of the variables in `var_list` (default: global and
    local variables) that the running session has not initialized; eager: empty."""
    if not _state.building_graph:
        return EagerTensor(np.empty((0,), dtype=object))
    if var_list is None:
        var_list = global_variables() + local_variables()
    var_list = list(var_list)

    def report():
        session = running_session()
        names = [v.op.name.encode() for v in var_list if not session._is_initialized(v)]
        return np.array(names, dtype=object).reshape(-1)
    return get_default_graph().record_custom(report, "ReportUninitializedVariables", [],
                                             np.empty((0,), dtype=object), name)
