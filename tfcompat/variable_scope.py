"""TF1 variable sharing: `tf.variable_scope`, `tf.get_variable`, `VariableScope`, `AUTO_REUSE`.

TF1 semantics: a variable store keyed by full name ("scope/w"); `reuse=True` requires the
variable to exist, `reuse=None/False` forbids it, `AUTO_REUSE` shares; reuse is inherited by
inner scopes; a scope's initializer / regularizer / dtype / custom getter are defaults for
`get_variable`; `default_name` scopes are uniquified ("dense", "dense_1").

A `partitioner` (see ops/partitioned_variables.py) makes a PartitionedVariable of parts
"name/part_0", "name/part_1", ... cut along one axis (the first parts one longer when it does not
divide), each made by the initializer with its own shape and a `partition_info` (TF's
_PartitionInfo: the full shape and the part's offset), each carrying a SaveSliceInfo so the
Saver saves them as slices of the full variable "name"; slot variables of parts are parts too.

Eager mode follows TF: the default store keeps no variables, so every `get_variable` call
creates a new variable (a scope's reuse flag reads AUTO_REUSE and is not enforced); an
`EagerVariableStore` (`tf.contrib.eager`) keeps them and shares by name. The stores live in
graph collections as in TF; eager mode uses a process-wide set standing for the eager default
graph's collections. Regularization losses are kept there too (`regularization_losses()`).
"""
import enum
import functools
import inspect
import re
import threading

from tfcompat._api import export_constant, tf_export
from tfcompat.framework import context, dtypes, graph, ops
from tfcompat.framework.tensor_shape import as_shape
from tfcompat.ops import array_ops
from tfcompat.ops.init_ops import GlorotUniform, Zeros
from tfcompat.variables import (GLOBAL_VARIABLES, LOCAL_VARIABLES, TRAINABLE_VARIABLES,
                                 PartitionedVariable, Variable, VariableAggregation,
                                 VariableSynchronization,
                                 validate_synchronization_aggregation_trainable)

_state = context.state

_VARSTORE_KEY = ("__variable_store",)
_VARSCOPESTORE_KEY = ("__varscope",)
REGULARIZATION_LOSSES = "regularization_losses"

_eager_collections = {}


def _collection_ref(key):
    """The default graph's collection list (eager: the process-wide eager one)."""
    if _state.building_graph:
        return graph.get_collection_ref(key)
    return _eager_collections.setdefault(key, [])


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = export_constant(_ReuseMode.AUTO_REUSE, v1=["AUTO_REUSE"])


@tf_export(v1=["no_regularizer"])
def no_regularizer(_):
    """A regularizer that adds no loss."""
    return None


# ---------------------------------------------------------------- the variable store


class _EagerRegularizationLoss(object):
    """Eager stand-in for TF's lazily evaluated loss tensor: recomputed when read."""

    def __init__(self, name, thunk):
        self.name = name
        self._thunk = thunk

    def value(self):
        return self._thunk()


def _accepts_partition_info(fn):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "partition_info" in params


class _PartitionInfo(object):
    """What an initializer learns about the part it initializes (TF's _PartitionInfo)."""

    __slots__ = ["_full_shape", "_var_offset"]

    def __init__(self, full_shape, var_offset):
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError("`full_shape` must be a sequence (like tuple or list) instead of "
                            + type(full_shape).__name__)
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError("`var_offset` must be a sequence (like tuple or list) instead of "
                            + type(var_offset).__name__)
        if len(var_offset) != len(full_shape):
            raise ValueError("Expected equal length, but `var_offset` is of length {} while "
                             "full_shape is of length {}.".format(len(var_offset),
                                                                  len(full_shape)))
        for offset, size in zip(var_offset, full_shape):
            if offset < 0 or offset >= size:
                raise ValueError("Expected 0 <= offset < shape but found offset={}, shape={} "
                                 "for var_offset={}, full_shape={}".format(
                                     offset, size, var_offset, full_shape))
        self._full_shape = full_shape
        self._var_offset = var_offset

    @property
    def full_shape(self):
        return self._full_shape

    @property
    def var_offset(self):
        return self._var_offset

    def single_slice_dim(self, shape):
        """The one axis along which a part of `shape` is cut, or None if it is whole."""
        if len(shape) != len(self._full_shape):
            raise ValueError("Expected equal length, but received shape={} of length {} while "
                             "self.full_shape={} is of length {}.".format(
                                 shape, len(shape), self._full_shape, len(self._full_shape)))
        for i in range(len(shape)):
            if self._var_offset[i] + shape[i] > self._full_shape[i]:
                raise ValueError("With self.var_offset={}, a partition of shape={} would "
                                 "exceed self.full_shape={} in dimension {}.".format(
                                     self._var_offset, shape, self._full_shape, i))
        cut = [i for i in range(len(shape)) if shape[i] != self._full_shape[i]]
        if len(cut) > 1:
            raise ValueError("Cannot use single_slice_dim() with shape={} and self.full_shape="
                             "{} since slice dim could be one of {}".format(
                                 shape, self._full_shape, cut))
        return cut[0] if cut else None

    def single_offset(self, shape):
        """The part's offset along its cut axis (0 when it is whole)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self._var_offset[dim]


def _call_partitioner(partitioner, shape, dtype):
    """The partitioner's parts per axis, checked as TF checks them."""
    if not shape.is_fully_defined():
        raise ValueError("Shape of a new partitioned variable must be fully defined, but "
                         "instead was %s." % (shape,))
    if shape.ndims < 1:
        raise ValueError("A partitioned Variable must have rank at least 1, shape: %s" % shape)
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, (list, tuple)):
        raise ValueError("Partitioner must return a sequence, but saw: %s" % (slicing,))
    if len(slicing) != shape.ndims:
        raise ValueError("Partitioner returned a partition list that does not match the "
                         "Variable's rank: %s vs. %s" % (slicing, shape))
    if any(p < 1 for p in slicing):
        raise ValueError("Partitioner returned zero partitions for some axes: %s" % (slicing,))
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError("Can only slice a variable along one dimension: shape: %s, "
                         "partitioning: %s" % (shape, slicing))
    return list(slicing)


def _slice_dim_and_count(slicing):
    for dim, count in enumerate(slicing):
        if count > 1:
            return dim, count
    return 0, 1


def _iter_slices(full_shape, num_slices, slice_dim):
    """(offset, shape) of each part: the first `size % num_slices` parts one longer."""
    longer = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    for i in range(num_slices):
        shape = list(full_shape)
        shape[slice_dim] = full_shape[slice_dim] // num_slices + (i < longer)
        yield list(offset), shape
        offset[slice_dim] += shape[slice_dim]


def _needs_no_arguments(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params)


class _VariableStore(object):
    """Named variables created by `get_variable` (eager: kept only by an EagerVariableStore)."""

    def __init__(self):
        self._vars = {}
        self._partitioned_vars = {}
        self._store_eager_variables = False

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=VariableSynchronization.AUTO,
                     aggregation=VariableAggregation.NONE):
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError("Passed a custom_getter which is not callable: %s" % custom_getter)
        if not _state.building_graph:
            if not self._store_eager_variables and reuse:
                raise RuntimeError("When eager execution is enabled variable reuse is only "
                                   "supported when an EagerVariableStore is active. See the "
                                   "documentation on EagerVariableStore for example usage.")
            if self._store_eager_variables:
                reuse = AUTO_REUSE

        def true_getter(name, shape=None, dtype=dtypes.float32, initializer=None,
                        regularizer=None, reuse=None, trainable=None, collections=None,
                        caching_device=None, partitioner=None, validate_shape=True,
                        use_resource=None, constraint=None,
                        synchronization=VariableSynchronization.AUTO,
                        aggregation=VariableAggregation.NONE):
            is_scalar = shape is not None and not isinstance(shape, str) and \
                hasattr(shape, "__len__") and len(shape) == 0
            partitioned = partitioner is not None and not is_scalar
            if partitioned and not callable(partitioner):
                raise ValueError("Partitioner must be callable, but received: %s" % partitioner)
            if partitioned or (reuse is True and partitioner is None and
                               name in self._partitioned_vars):
                return self._get_partitioned_variable(
                    name, shape, dtype, initializer, regularizer, reuse, trainable,
                    collections, caching_device, partitioner if partitioned else None,
                    validate_shape, use_resource, constraint, synchronization, aggregation)
            if "%s/part_0" % name in self._vars:
                raise ValueError("No partitioner was provided, but a partitioned version of the "
                                 "variable was found: %s/part_0. Perhaps a variable of the "
                                 "same name was already created with partitioning?" % name)
            return self._get_single_variable(
                name, shape, dtype, initializer, regularizer, reuse, trainable, collections,
                caching_device, validate_shape, use_resource, constraint, synchronization,
                aggregation)

        synchronization, aggregation, trainable = \
            validate_synchronization_aggregation_trainable(
                synchronization, aggregation, trainable, name)
        kwargs = dict(shape=shape, dtype=dtype, initializer=initializer,
                      regularizer=regularizer, reuse=reuse, trainable=trainable,
                      collections=collections, caching_device=caching_device,
                      partitioner=partitioner, validate_shape=validate_shape,
                      use_resource=use_resource, synchronization=synchronization,
                      aggregation=aggregation)
        if custom_getter is None:
            return true_getter(name, constraint=constraint, **kwargs)
        if "constraint" in _parameter_names(custom_getter) or _has_kwargs(custom_getter):
            kwargs["constraint"] = constraint
        return custom_getter(getter=true_getter, name=name, **kwargs)

    def _get_partitioned_variable(self, name, shape, dtype, initializer, regularizer, reuse,
                                  trainable, collections, caching_device, partitioner,
                                  validate_shape, use_resource, constraint, synchronization,
                                  aggregation):
        """The PartitionedVariable `name` (TF's _VariableStore._get_partitioned_variable)."""
        dtype = dtypes.as_dtype(dtype)
        from_value = initializer is not None and not callable(initializer)
        if from_value:
            if not ops.is_tensor(initializer):
                initializer = ops.convert_to_tensor(initializer, dtype=dtype)
            dtype = initializer.dtype.base_dtype
        if name in self._vars:
            raise ValueError("A partitioner was provided, but an unpartitioned version of the "
                             "variable was found: %s.  Perhaps a variable of the same name was "
                             "already created without partitioning?" % name)
        shape = as_shape(shape)
        if from_value:
            shape = shape.merge_with(initializer.shape)
        partitions = None
        if not reuse or partitioner:
            partitions = _call_partitioner(partitioner, shape, dtype)
        if name in self._partitioned_vars:
            if reuse is False:
                raise ValueError("Partitioned variable with name %s already exists. Did you "
                                 "mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
                                 % name)
            found = self._partitioned_vars[name]
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError("Trying to reuse partitioned variable %s, but specified shape "
                                 "%s and found shape %s." % (name, shape, found.get_shape()))
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError("Trying to reuse partitioned variable %s, but specified dtype "
                                 "%s and found dtype %s." % (name, dtype.name, found.dtype.name))
            if partitions is not None and found._get_partitions() != partitions:
                raise ValueError("Trying to reuse partitioned variable %s, but specified "
                                 "partitions %s and found partitions %s."
                                 % (name, partitions, found._get_partitions()))
            return found
        if reuse is True:
            raise ValueError("PartitionedVariable %s does not exist, or was not created with "
                             "tf.get_variable(). Did you mean to set reuse=False or "
                             "reuse=tf.AUTO_REUSE in VarScope?" % name)
        slice_dim, num_slices = _slice_dim_and_count(partitions)
        if "%s/part_0" % name in self._vars:
            if "%s/part_%d" % (name, num_slices - 1) not in self._vars:
                raise ValueError("Partitioner returned a different partitioning than what was "
                                 "already found.  Partitioner returned %d shards, and shard "
                                 "%s/part_0 was found, but %s/part_%d was not."
                                 % (num_slices, name, name, num_slices - 1))
            if "%s/part_%d" % (name, num_slices) in self._vars:
                raise ValueError("Partitioner returned a different partitioning than what was "
                                 "already found.  Partitioner returned %d shards, and shard "
                                 "%s/part_0 was found, but so was the extra shard %s/part_%d."
                                 % (num_slices, name, name, num_slices))
        parts = []
        for i, (offset, part_shape) in enumerate(_iter_slices(shape.as_list(), num_slices,
                                                              slice_dim)):
            part_name = "%s/part_%d" % (name, i)
            if from_value:
                part_init, init_shape = array_ops.slice(initializer, offset, part_shape), None
            else:
                part_init, init_shape = initializer, part_shape
            part = self._get_single_variable(
                part_name, init_shape, dtype, part_init, regularizer, reuse, trainable,
                collections, caching_device, validate_shape, use_resource, constraint,
                synchronization, aggregation,
                partition_info=_PartitionInfo(full_shape=shape.as_list(), var_offset=offset))
            part._set_save_slice_info(Variable.SaveSliceInfo(name, shape.as_list(), offset,
                                                             part_shape))
            parts.append(part)
        partitioned = PartitionedVariable(name=name, shape=shape, dtype=dtype,
                                          variable_list=parts, partitions=partitions)
        if _state.building_graph or self._store_eager_variables:
            self._partitioned_vars[name] = partitioned
        return partitioned

    def _get_single_variable(self, name, shape, dtype, initializer, regularizer, reuse,
                             trainable, collections, caching_device, validate_shape,
                             use_resource, constraint, synchronization, aggregation,
                             partition_info=None):
        initializing_from_value = initializer is not None and not callable(initializer)
        if shape is not None and initializing_from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        shape = as_shape(shape)

        if name in self._vars:
            if reuse is False:
                raise ValueError("Variable %s already exists, disallowed. Did you mean to set "
                                 "reuse=True or reuse=tf.AUTO_REUSE in VarScope?" % name)
            found = self._vars[name]
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError("Trying to share variable %s, but specified shape %s and found "
                                 "shape %s." % (name, shape, found.get_shape()))
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError("Trying to share variable %s, but specified dtype %s and found "
                                 "dtype %s." % (name, dtype.name, found.dtype.name))
            return found

        if reuse is True:
            raise ValueError("Variable %s does not exist, or was not created with "
                             "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                             "VarScope?" % name)

        if initializer is None:
            initializer, initializing_from_value = _default_initializer(name, dtype)
        if initializing_from_value:
            init_val, variable_dtype = initializer, None
        else:
            if inspect.isclass(initializer):
                initializer = initializer()
            if shape.is_fully_defined():
                if _accepts_partition_info(initializer):
                    init_val = functools.partial(initializer, shape.as_list(), dtype=dtype,
                                                 partition_info=partition_info)
                else:
                    init_val = functools.partial(initializer, shape.as_list(), dtype=dtype)
                variable_dtype = dtype
            elif _needs_no_arguments(initializer):
                init_val, variable_dtype = initializer, None
            else:
                raise ValueError("The initializer passed is not valid. It should be a callable "
                                 "with no arguments and the shape should not be provided or an "
                                 "instance of `tf.keras.initializers.*' and `shape` should be "
                                 "fully defined.")

        with ops.name_scope(None):
            v = Variable(initial_value=init_val, name=name, trainable=trainable,
                                   collections=collections, caching_device=caching_device,
                                   dtype=variable_dtype, validate_shape=validate_shape,
                                   constraint=constraint, use_resource=use_resource,
                                   synchronization=synchronization, aggregation=aggregation)
        if _state.building_graph or self._store_eager_variables:
            self._vars[name] = v

        if regularizer:
            self._add_regularization_loss(name, v, regularizer)
        return v

    @staticmethod
    def _add_regularization_loss(name, v, regularizer):
        def make_loss():
            with ops.name_scope(None):
                with ops.name_scope(name + "/Regularizer/"):
                    return regularizer(v)

        loss = make_loss()
        if loss is None:
            return
        if _state.building_graph:
            _collection_ref(REGULARIZATION_LOSSES).append(loss)
        else:
            _collection_ref(REGULARIZATION_LOSSES).append(
                _EagerRegularizationLoss(name + "/Regularizer/", make_loss))


def _parameter_names(fn):
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _has_kwargs(fn):
    try:
        return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False


def _default_initializer(name, dtype):
    """glorot_uniform for floats, zeros for integers, bools and strings (as TF)."""
    if dtype.is_floating:
        return GlorotUniform(), False
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes.string:
        return Zeros(), False
    raise ValueError("An initializer for variable %s of %s is required" % (name, dtype.name))


def regularization_losses(scope=None):
    """The regularization losses `get_variable` recorded (TF's REGULARIZATION_LOSSES).

    Eager: each loss is recomputed from the variable's current value, as TF's lazy loss
    tensors are; `scope` is a regex matched against "<variable name>/Regularizer/".
    """
    if _state.building_graph:
        return graph.get_collection(REGULARIZATION_LOSSES, scope)
    items = _collection_ref(REGULARIZATION_LOSSES)
    if scope is not None:
        pattern = re.compile(scope)
        items = [item for item in items if pattern.match(item.name)]
    return [item.value() for item in items]


def _get_default_variable_store():
    ref = _collection_ref(_VARSTORE_KEY)
    if not ref:
        ref.append(_VariableStore())
    return ref[0]


class _with_variable_store(object):
    """Make `store` the default variable store for the block."""

    def __init__(self, store):
        self._store = store

    def __enter__(self):
        ref = _collection_ref(_VARSTORE_KEY)
        self._old = list(ref)
        ref[:] = [self._store]
        return self._store

    def __exit__(self, *exc):
        _collection_ref(_VARSTORE_KEY)[:] = self._old


@tf_export("contrib.eager.EagerVariableStore")
class EagerVariableStore(object):
    """Keeps the variables `get_variable` creates in eager mode so scopes can share them."""

    def __init__(self, store=None):
        if store is not None:
            if not store._store_eager_variables:
                raise ValueError("Cannot construct EagerVariableStore from a store that does "
                                 "not store eager variables.")
            self._store = store
        else:
            self._store = _VariableStore()
            self._store._store_eager_variables = True

    def as_default(self):
        return _with_variable_store(self._store)

    def variables(self):
        return sorted(self._store._vars.values(), key=lambda v: v.name)

    def trainable_variables(self):
        return [v for v in self.variables() if v.trainable]

    def non_trainable_variables(self):
        return [v for v in self.variables() if not v.trainable]

    def copy(self):
        """A new store holding copies of these variables (same names and values)."""
        import copy as copy_lib
        new_store = _VariableStore()
        new_store._store_eager_variables = True
        for key, var in self._store._vars.items():
            new_store._vars[key] = copy_lib.deepcopy(var)
        return EagerVariableStore(new_store)


# ---------------------------------------------------------------- VariableScope


@tf_export(v1=["VariableScope"])
class VariableScope(object):
    """Defaults for `get_variable` within a `variable_scope` (TF1's VariableScope).

    In eager mode reuse reads AUTO_REUSE and use_resource True, as in TF.
    """

    def __init__(self, reuse, name="", initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None, name_scope="",
                 dtype=dtypes.float32, use_resource=None, constraint=None):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        if not _state.building_graph:
            if caching_device is not None:
                raise NotImplementedError("Caching devices is not yet supported when eager "
                                          "execution is enabled.")
            self._reuse = AUTO_REUSE
            self._use_resource = True

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    dtype = property(lambda self: self._dtype)
    use_resource = property(lambda self: self._use_resource)
    regularizer = property(lambda self: self._regularizer)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self):
        """Reuse variables in this scope (from now on)."""
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def set_use_resource(self, use_resource):
        if not _state.building_graph and not use_resource:
            raise ValueError("When eager execution is enabled, use_resource cannot be set to "
                             "false.")
        self._use_resource = use_resource

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_caching_device(self, caching_device):
        if not _state.building_graph:
            raise NotImplementedError("Caching devices are not yet supported when eager "
                                      "execution is enabled.")
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def get_collection(self, name):
        """This scope's items of collection `name` (eager: none, as in TF)."""
        if not _state.building_graph:
            return []
        return graph.get_collection(name, self._name + "/" if self._name else "")

    def trainable_variables(self):
        return self.get_collection(TRAINABLE_VARIABLES)

    def global_variables(self):
        return self.get_collection(GLOBAL_VARIABLES)

    def local_variables(self):
        return self.get_collection(LOCAL_VARIABLES)

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=VariableSynchronization.AUTO,
                     aggregation=VariableAggregation.NONE):
        """Get or create variable `name` in this scope from `var_store`."""
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        if custom_getter is None:
            custom_getter = self._custom_getter
        if not _state.building_graph:
            reuse = False
            use_resource = True
        else:
            if reuse is None:
                reuse = self._reuse
            if use_resource is None:
                use_resource = self._use_resource
        full_name = self._name + "/" + name if self._name else name
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if initializer is not None and not callable(initializer):
                init_dtype = ops.convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtype:
                    raise ValueError("Initializer type '%s' and explicit dtype '%s' don't "
                                     "match." % (init_dtype.name, dtype.name))
        if initializer is None:
            initializer = self._initializer
        if constraint is None:
            constraint = self._constraint
        if dtype is None:
            dtype = self._dtype
        return var_store.get_variable(
            full_name, shape=shape, dtype=dtype, initializer=initializer,
            regularizer=regularizer, reuse=reuse, trainable=trainable, collections=collections,
            caching_device=caching_device, partitioner=partitioner,
            validate_shape=validate_shape, use_resource=use_resource,
            custom_getter=custom_getter, constraint=constraint,
            synchronization=synchronization, aggregation=aggregation)


class _VariableScopeStore(threading.local):
    """The current VariableScope and how often each scope name was opened: per thread, as
    TF's store (one per graph, each thread seeing its own scopes)."""

    def __init__(self):
        self.current_scope = VariableScope(False)
        self.variable_scopes_count = {}

    def open_variable_scope(self, scope_name):
        self.variable_scopes_count[scope_name] = \
            self.variable_scopes_count.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name):
        prefix = scope_name + "/"
        for key in self.variable_scopes_count:
            if key.startswith(prefix):
                self.variable_scopes_count[key] = 0

    def variable_scope_count(self, scope_name):
        return self.variable_scopes_count.get(scope_name, 0)


def get_variable_scope_store():
    ref = _collection_ref(_VARSCOPESTORE_KEY)
    if not ref:
        ref.append(_VariableScopeStore())
    return ref[0]


@tf_export(v1=["get_variable_scope"])
def get_variable_scope():
    """The current VariableScope."""
    return get_variable_scope_store().current_scope


def _get_unique_variable_scope(prefix):
    store = get_variable_scope_store()
    current = get_variable_scope()
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(name + "_%d" % idx) > 0:
        idx += 1
    return prefix + "_%d" % idx


def _maybe_wrap_custom_getter(custom_getter, old_getter):
    """Chain an inner scope's custom getter around the outer one (as TF does)."""
    if old_getter is None:
        return custom_getter

    def wrapped_custom_getter(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)
    return wrapped_custom_getter


class _pure_variable_scope(object):
    """Switch the current VariableScope (no name scope); the core of `variable_scope`."""

    def __init__(self, name_or_scope, reuse=None, initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None,
                 old_name_scope=None, dtype=None, use_resource=None, constraint=None):
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._old_name_scope = old_name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        self._store = get_variable_scope_store()
        self._old = self._store.current_scope

    def _apply_overrides(self, scope, inherited_getter):
        if self._initializer is not None:
            scope.set_initializer(self._initializer)
        if self._regularizer is not None:
            scope.set_regularizer(self._regularizer)
        if self._caching_device is not None:
            scope.set_caching_device(self._caching_device)
        if self._partitioner is not None:
            scope.set_partitioner(self._partitioner)
        if self._custom_getter is not None:
            scope.set_custom_getter(_maybe_wrap_custom_getter(self._custom_getter,
                                                              inherited_getter))
        if self._dtype is not None:
            scope.set_dtype(self._dtype)
        if self._use_resource is not None:
            scope.set_use_resource(self._use_resource)
        if self._constraint is not None:
            scope._constraint = self._constraint

    def __enter__(self):
        source = self._name_or_scope
        if isinstance(source, VariableScope):
            self._new_name = source.name
            self._old_subscopes = dict(self._store.variable_scopes_count)
            scope = VariableScope(
                source.reuse if not self._reuse else self._reuse, name=self._new_name,
                initializer=source.initializer, regularizer=source.regularizer,
                caching_device=source.caching_device, partitioner=source.partitioner,
                dtype=source.dtype, custom_getter=source.custom_getter,
                name_scope=source.original_name_scope if self._old_name_scope is None
                else self._old_name_scope,
                use_resource=source.use_resource, constraint=source.constraint)
            self._apply_overrides(scope, source.custom_getter)
        else:
            self._new_name = self._old.name + "/" + source if self._old.name else source
            reuse = self._reuse or self._old.reuse  # reuse is inherited by inner scopes
            scope = VariableScope(
                reuse, name=self._new_name, initializer=self._old.initializer,
                regularizer=self._old.regularizer, caching_device=self._old.caching_device,
                partitioner=self._old.partitioner, dtype=self._old.dtype,
                use_resource=self._old.use_resource, custom_getter=self._old.custom_getter,
                name_scope=source if self._old_name_scope is None else self._old_name_scope,
                constraint=self._old.constraint)
            self._apply_overrides(scope, self._old.custom_getter)
        self._store.open_variable_scope(self._new_name)
        self._store.current_scope = scope
        return scope

    def __exit__(self, *exc):
        if isinstance(self._name_or_scope, VariableScope):
            self._store.variable_scopes_count = self._old_subscopes
        else:
            self._store.close_variable_subscopes(self._new_name)
        self._store.current_scope = self._old


@tf_export(v1=["variable_scope"])
class variable_scope(object):
    """TF1 `tf.variable_scope`: a variable scope plus (by default) a name scope.

    Entering yields the VariableScope; `get_variable` inside uses its name as a prefix and
    its settings as defaults.
    """

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None,
                 regularizer=None, caching_device=None, partitioner=None, custom_getter=None,
                 reuse=None, dtype=None, use_resource=None, constraint=None,
                 auxiliary_name_scope=True):
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if reuse is False:  # TF: reuse cannot be reset to False inside a reusing scope
            reuse = None
        if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError("The auxiliary_name_scope must be `True` or `False`, while get "
                            "{}".format(auxiliary_name_scope))
        if name_or_scope is not None and \
                not isinstance(name_or_scope, (VariableScope, str)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._kwargs = dict(initializer=initializer, regularizer=regularizer,
                            caching_device=caching_device, partitioner=partitioner,
                            custom_getter=custom_getter, dtype=dtype,
                            use_resource=use_resource, constraint=constraint)
        self._reuse = reuse
        self._auxiliary_name_scope = auxiliary_name_scope

    def __enter__(self):
        if self._auxiliary_name_scope:
            current_name_scope = None
        else:  # stay in the current name scope
            current_name_scope = ops.name_scope(ops.current_scope() or "")
        source = self._name_or_scope
        if source is not None:
            name = source if isinstance(source, str) else source.name.split("/")[-1]
            if name or current_name_scope is not None:
                self._name_scope = current_name_scope or ops.name_scope(name)
                entered_name = self._name_scope.__enter__()
                old_name_scope = entered_name if isinstance(source, str) \
                    else source.original_name_scope
            else:  # the root scope ("")
                self._name_scope = None
                old_name_scope = None
            self._pure = _pure_variable_scope(source, reuse=self._reuse,
                                              old_name_scope=old_name_scope, **self._kwargs)
        else:
            if self._reuse is True:
                raise ValueError("reuse=True cannot be used without a name_or_scope")
            self._name_scope = current_name_scope or ops.name_scope(self._default_name)
            entered_name = self._name_scope.__enter__()
            unique = _get_unique_variable_scope(self._default_name)
            self._pure = _pure_variable_scope(unique, reuse=self._reuse,
                                              old_name_scope=entered_name, **self._kwargs)
        try:
            return self._pure.__enter__()
        except BaseException:
            if self._name_scope is not None:
                self._name_scope.__exit__(None, None, None)
            raise

    def __exit__(self, *exc):
        try:
            self._pure.__exit__(*exc)
        finally:
            if self._name_scope is not None:
                self._name_scope.__exit__(*exc)


@tf_export(v1=["variable_op_scope"])
def variable_op_scope(values, name_or_scope, default_name=None, initializer=None,
                      regularizer=None, caching_device=None, partitioner=None,
                      custom_getter=None, reuse=None, dtype=None, use_resource=None,
                      constraint=None):
    """Deprecated TF1 spelling of `variable_scope(name_or_scope, default_name, values)`."""
    return variable_scope(name_or_scope, default_name=default_name, values=values,
                          initializer=initializer, regularizer=regularizer,
                          caching_device=caching_device, partitioner=partitioner,
                          custom_getter=custom_getter, reuse=reuse, dtype=dtype,
                          use_resource=use_resource, constraint=constraint)


@tf_export(v1=["get_variable"])
def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE):
    """TF1 `tf.get_variable`: get or create variable "<scope>/<name>" under the reuse rules."""
    return get_variable_scope().get_variable(
        _get_default_variable_store(), name, shape=shape, dtype=dtype,
        initializer=initializer, regularizer=regularizer, trainable=trainable,
        collections=collections, caching_device=caching_device, partitioner=partitioner,
        validate_shape=validate_shape, use_resource=use_resource, custom_getter=custom_getter,
        constraint=constraint, synchronization=synchronization, aggregation=aggregation)


@tf_export(v1=["get_local_variable"])
def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, caching_device=None,
                       partitioner=None, validate_shape=True, use_resource=None,
                       custom_getter=None, constraint=None,
                       synchronization=VariableSynchronization.AUTO,
                       aggregation=VariableAggregation.NONE):
    """`get_variable` for a non-trainable variable in the LOCAL_VARIABLES collection."""
    collections = [LOCAL_VARIABLES] + list(collections or [])
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=False, collections=collections,
                        caching_device=caching_device, partitioner=partitioner,
                        validate_shape=validate_shape, use_resource=use_resource,
                        custom_getter=custom_getter, constraint=constraint,
                        synchronization=synchronization, aggregation=aggregation)


@tf_export(v1=["create_partitioned_variables"])
def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes.float32,
                                 trainable=True, collections=None, name=None, reuse=None):
    """The list of parts of a new partitioned variable of `shape`, cut as `slicing` says
    (TF's deprecated helper; `get_variable` with a partitioner is the usual way)."""
    if len(shape) != len(slicing):
        raise ValueError("The 'shape' and 'slicing' of a partitioned Variable must have the "
                         "length: shape: %s, slicing: %s" % (shape, slicing))
    if len(shape) < 1:
        raise ValueError("A partitioned Variable must have rank at least 1: shape: %s"
                         % (shape,))
    with variable_scope(name, "PartitionedVariable", reuse=reuse) as scope:
        return list(_get_default_variable_store().get_variable(
            scope.name, shape=shape, dtype=dtype, initializer=initializer,
            reuse=scope.reuse if context.state.building_graph else False, trainable=trainable,
            collections=collections, partitioner=lambda **unused_kwargs: slicing))
