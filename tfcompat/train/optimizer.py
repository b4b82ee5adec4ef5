"""`tf.train.Optimizer`: TF1's optimizer base class (`tensorflow/python/training/optimizer.py`).

TF's structure is kept: `minimize` = `compute_gradients` + `apply_gradients`, which creates
slots (`_create_slots`, under `init_scope` so that slots made while a tf.function traces live
outside it), calls `_prepare`, applies the updates and `_finish`es them, then increments
`global_step` after the updates. Slot variables are named as TF names them
(`dense/kernel/Adam`, `dense/kernel/Adam_1`); non-slot variables (`beta1_power`) are kept
per graph. A subclass written for TF (a custom optimizer) overrides `_create_slots`,
`_prepare`, `_apply_dense` or `_resource_apply_dense`, and `_finish`, and works as in TF.

Where we differ: the built-in optimizers do not call `_apply_dense` once per variable; they
update all variables in one fused, no-grad pass (`FusedOptimizer`), recorded in graph mode
as one node. IndexedSlices gradients are applied densely (TF's sparse kernels update only
the touched rows of slots such as Momentum's accumulator). `use_locking` and
`colocate_gradients_with_ops` are accepted and have no effect.
"""
import collections.abc
import numbers

import torch

from tfcompat._api import tf_export
from tfcompat.eager.backprop import GradientTape
from tfcompat.framework import context, distribution_strategy_context as distribution, dtypes, ops
from tfcompat.framework.ops import init_scope, to_torch
from tfcompat.framework.tensor import EagerTensor
from tfcompat.eager import gradients_impl
from tfcompat.ops import control_flow_ops
from tfcompat.ops.init_ops import Constant, Zeros
from tfcompat.trackable import tracking
from tfcompat.variables import Variable, trainable_variables
from tfcompat.framework.graph import control_dependencies, get_default_graph
from tfcompat.variable_scope import get_variable, variable_scope

_state = context.state

TRAIN_OP = "train_op"
TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"


def _var_key(var):
    return var.ref()


def _flatten(value):
    """`nest.flatten` as TF1's compute_gradients applies it to `var_list`: dict views
    (`var_list=weights.values()`) are sequences in iteration order, dicts by sorted key."""
    if isinstance(value, (list, tuple, collections.abc.MappingView)):
        return [leaf for item in value for leaf in _flatten(item)]
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _flatten(value[key])]
    return [value]


def _default_graph():
    return get_default_graph()


def _graph_of(var):
    """The TF1 graph owning `var`, None for an eager variable."""
    return getattr(var, "_graph", None)


def _current_graph():
    """The graph variables are created in now (None when that is the eager context)."""
    with init_scope():
        return _default_graph() if _state.building_graph else None


# ---------------------------------------------------------------- slots


def _slot_prefix(primary):
    return primary.name[:-2] if primary.name.endswith(":0") else primary.name


def create_slot(primary, initializer, shape, dtype, name):
    """A slot variable for `primary`, named like TF's `slot_creator`: "<primary>/<name>",
    then "<primary>/<name>_1" ... (a default-named variable scope), on primary's device.
    `initializer` is an initializer (then `shape`, `dtype` are used) or a tensor value.
    A slot of a part of a partitioned variable is a part too (saved as a slice of
    "<full name>/<slot name>", as TF's slot_creator)."""
    device = primary.device if _graph_of(primary) is None else ""
    with context.device_scope(device), variable_scope(None, _slot_prefix(primary) + "/" + name):
        if ops.is_tensor(initializer):
            slot = get_variable("", initializer=initializer, trainable=False)
        else:
            slot = get_variable("", shape=shape, dtype=dtype, initializer=initializer,
                                trainable=False)
    info = getattr(primary, "_save_slice_info", None)
    rank = slot.shape.ndims
    if info is not None and (rank is None or rank > 0):
        slot_name = slot._shared_name[len(_slot_prefix(primary)) + 1:]
        slot._set_save_slice_info(type(info)(info.full_name + "/" + slot_name,
                                             info.full_shape[:rank], info.var_offset[:rank],
                                             info.var_shape[:rank]))
    return slot


def _check_static_shape(primary):
    if not primary.shape.is_fully_defined():
        raise NotImplementedError(
            "tfcompat creates optimizer slots only for variables with a fully defined shape; "
            "%s has shape %s" % (primary.name, primary.shape))


# ---------------------------------------------------------------- fused updates


def _torch_value(value):
    """The torch tensor an update reads or writes: a variable's storage, else the value."""
    if type(value) is EagerTensor:
        return value._t
    if isinstance(value, Variable):
        return value._storage()
    return to_torch(value)


def _is_number(value):
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def fused_update(fn, tensor_lists, hypers, op_type, name=None):
    """Run `fn(lists, hypers)` once, in place, for every variable at once.

    `tensor_lists`: lists of variables and tensors (variables are passed as their storage
    tensors, which `fn` updates in place); `hypers`: name -> Python number or tensor/variable.
    Eager: `fn` runs now under no_grad and None is returned. Graph: one node is recorded
    whose inputs are all the tensors and variables, and its Operation is returned.
    """
    if not _state.building_graph:
        grad_mode = torch.is_grad_enabled()
        torch._C._set_grad_enabled(False)     # torch.no_grad() without its context object
        try:
            fn([[_torch_value(x) for x in items] for items in tensor_lists],
               {k: v if _is_number(v) else _torch_value(v) for k, v in hypers.items()})
        finally:
            torch._C._set_grad_enabled(grad_mode)
        return None
    sizes = [len(items) for items in tensor_lists]
    tensor_keys = [k for k, v in hypers.items() if not _is_number(v)]
    static = {k: v for k, v in hypers.items() if _is_number(v)}
    flat = [x for items in tensor_lists for x in items] + [hypers[k] for k in tensor_keys]

    def run(*values):
        lists, start = [], 0
        for size in sizes:
            lists.append(list(values[start:start + size]))
            start += size
        values_of = dict(static)
        values_of.update(zip(tensor_keys, values[start:]))
        with torch.no_grad():
            fn(lists, values_of)
        return None
    run.__name__ = op_type
    return _default_graph().record_custom(run, op_type, flat, None, name)


def _check_gradient(grad, var):
    """TypeError unless `var` is a variable; ValueError if the shapes of `grad` and `var`
    are both fully defined and differ."""
    if not isinstance(var, Variable):
        raise TypeError("Can not apply gradients to %r: it is not a tf.Variable" % (var,))
    if type(grad) is EagerTensor and var._graph is None and grad._t.shape == var._leaf.shape:
        return      # the common eager case, without building TensorShapes
    if grad.shape.is_fully_defined() and var.shape.is_fully_defined() and \
            grad.shape != var.shape:
        raise ValueError("Shapes %s and %s are incompatible: gradient for variable %s"
                         % (grad.shape, var.shape, var.name))


# ---------------------------------------------------------------- the base class


def _scale_loss(loss):
    """The loss a replica differentiates: divided by the replicas in sync, so that their
    summed gradients are those of the mean loss (TF 1's Optimizer._scale_loss)."""
    replicas = distribution.num_replicas_in_sync()
    return loss * (1.0 / replicas) if replicas > 1 else loss


def _summed_over_replicas(pairs):
    """(gradient, variable) pairs with each gradient summed over the replicas in sync (TF 1's
    `_distributed_apply`); TF's error in a strategy's cross-replica context."""
    if not distribution.has_strategy():
        return pairs
    if distribution.in_cross_replica_context():
        raise RuntimeError("Use `_distributed_apply()` instead of `apply_gradients()` in a "
                           "cross-replica context.")
    replica = distribution.get_replica_context()
    if replica.num_replicas_in_sync == 1:
        return pairs
    summed = replica.all_reduce("SUM", [g for g, _ in pairs])
    return [(g, v) for g, (_, v) in zip(summed, pairs)]


@tf_export(v1=["train.Optimizer"])
class Optimizer(object):
    """Base class for TF1 optimizers (`tf.compat.v1.train.Optimizer`)."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}
        self._non_slot_dict = {}

    def get_name(self):
        return self._name

    # ------------------------------------------------------------ gradients
    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None):
        """compute_gradients + apply_gradients; the train op (graph) or None (eager)."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                "support gradients, between variables %s and loss %s."
                % ([str(v) for _, v in grads_and_vars], loss))
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """[(gradient, variable)] of `loss`. A callable `loss` is computed under a
        GradientTape (required in eager mode, as in TF); otherwise `tf.gradients` is used."""
        if callable(loss):
            with GradientTape() as tape:
                if var_list is not None:
                    tape.watch(var_list)
                loss_value = loss()
            if var_list is None:
                var_list = tape.watched_variables()
            var_list = _flatten(var_list)
            grads = tape.gradient(_scale_loss(loss_value), var_list,
                                  None if grad_loss is None else [grad_loss])
            return list(zip(grads, var_list))
        if not _state.building_graph:
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a "
                               "function when eager execution is enabled.")
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP,
                                  Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, "
                             "Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not %s"
                             % gate_gradients)
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = trainable_variables()
            known = set(id(v) for v in var_list)
            var_list += [v for v in _default_graph().get_collection(TRAINABLE_RESOURCE_VARIABLES)
                         if id(v) not in known]
        else:
            var_list = _flatten(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients_impl.gradients(
            _scale_loss(loss), var_list, grad_ys=grad_loss, aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = control_flow_ops.tuple_(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Apply the (gradient, variable) pairs, skipping None gradients, then increment
        `global_step`. Graph: returns the train op; eager: None (as TF)."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = [(self._convert_gradient(g), v) for g, v in grads_and_vars]
        pairs = [(g, v) for g, v in converted if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable: %s."
                             % ([str(v) for _, v in converted],))
        pairs = _summed_over_replicas(pairs)
        var_list = [v for _, v in pairs]
        for g, v in pairs:
            _check_gradient(g, v)
        with init_scope():
            self._create_slots(var_list)
        with ops.name_scope(name, self._name) as scope:
            self._prepare()
            update_ops = self._apply_updates([g for g, _ in pairs], var_list)
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with _control_dependencies([self._finish(update_ops, "update")]):
                    apply_updates = global_step.assign_add(
                        ops.convert_to_tensor(1, dtype=global_step.dtype.base_dtype),
                        read_value=False, name=scope or None)
        if not _state.building_graph:
            return None
        train_ops = _default_graph().get_collection_ref(TRAIN_OP)
        if not any(op is apply_updates for op in train_ops):
            train_ops.append(apply_updates)
        return apply_updates

    @staticmethod
    def _convert_gradient(grad):
        if grad is None or type(grad) is EagerTensor:
            return grad
        if ops.is_tensor(grad) and not isinstance(grad, Variable):
            return grad
        try:
            return ops.convert_to_tensor(grad)
        except (TypeError, ValueError):
            raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, or "
                            "None: %s" % (grad,)) from None

    def _apply_updates(self, grads, var_list):
        """TF's per-variable updates: `_resource_apply_dense` (or `_apply_dense`)."""
        apply = self._resource_apply_dense \
            if type(self)._resource_apply_dense is not Optimizer._resource_apply_dense \
            else self._apply_dense
        updates = []
        for grad, var in zip(grads, var_list):
            with ops.name_scope("update_" + _slot_prefix(var)):
                updates.append(apply(grad, var))
        return updates

    # ------------------------------------------------------------ subclass hooks
    def _create_slots(self, var_list):
        """Create the slots the update needs (none by default)."""

    def _prepare(self):
        """Convert hyperparameters before the updates (nothing by default)."""

    def _apply_dense(self, grad, var):
        raise NotImplementedError("%s must implement _apply_dense or _resource_apply_dense"
                                  % type(self).__name__)

    def _resource_apply_dense(self, grad, handle):
        raise NotImplementedError("%s must implement _apply_dense or _resource_apply_dense"
                                  % type(self).__name__)

    def _finish(self, update_ops, name_scope):
        """One op grouping the updates (eager: None)."""
        return control_flow_ops.group(*[u for u in update_ops if u is not None],
                                      name=name_scope)

    # ------------------------------------------------------------ checks
    def _valid_dtypes(self):
        return {dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64}

    def _assert_valid_dtypes(self, tensors):
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid:
                raise ValueError("Invalid type %r for %s, expected: %s." % (
                    dtype, t.name, [v for v in valid]))

    @staticmethod
    def _call_if_callable(param):
        return param() if callable(param) else param

    # ------------------------------------------------------------ slots
    def get_slot_names(self):
        """Names of the slots this optimizer created, sorted ("m", "v" for Adam)."""
        return sorted(self._slots.keys())

    def get_slot(self, var, name):
        """The slot variable `name` of `var`, or None."""
        named_slots = self._slots.get(name)
        if not named_slots:
            return None
        return named_slots.get(_var_key(var))

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot(self, var, val, slot_name, op_name):
        """A slot initialized to the tensor `val`."""
        return self._get_or_make_slot_with_initializer(var, val, None, None, slot_name,
                                                       op_name)

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name,
                                           op_name):
        """A slot made by `initializer` with `shape` and `dtype` (or a tensor value); a
        pending checkpoint restore gives it its saved value (TF's deferred restoration)."""
        named_slots = self._slot_dict(slot_name)
        key = _var_key(var)
        slot = named_slots.get(key)
        if slot is None:
            slot = create_slot(var, initializer, shape, dtype, op_name)
            tracking.restore_slot_on_create(self, var, slot_name, slot)
            named_slots[key] = slot
        return slot

    def _zeros_slot(self, var, slot_name, op_name):
        """A slot of zeros shaped like `var` (made on the first call, then looked up)."""
        slot = self.get_slot(var, slot_name)
        if slot is not None:
            return slot
        _check_static_shape(var)
        return self._get_or_make_slot_with_initializer(
            var, Zeros(), var.shape, var.dtype.base_dtype, slot_name, op_name)

    def _constant_slot(self, var, value, slot_name, op_name):
        """A slot filled with `value`, shaped like `var` (TF builds it from a constant)."""
        slot = self.get_slot(var, slot_name)
        if slot is not None:
            return slot
        _check_static_shape(var)
        return self._get_or_make_slot_with_initializer(
            var, Constant(value), var.shape, var.dtype.base_dtype, slot_name, op_name)

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        """A variable shared by all variables of one graph (Adam's `beta1_power`)."""
        key = (name, _graph_of(colocate_with))
        v = self._non_slot_dict.get(key)
        if v is None:
            device = colocate_with.device if key[1] is None else ""
            with context.device_scope(device):
                v = Variable(initial_value, name=name, trainable=False)
            tracking.restore_on_create(self, name, v)
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, graph))

    def _non_slot_variables(self):
        return self._non_slot_dict.values()

    # ------------------------------------------------------------ checkpoints (tracking.py)
    def _checkpoint_dependencies(self):
        """TF1 optimizers track their non-slot variables by name ("beta1_power")."""
        current = _current_graph()
        return [(name, v) for (name, graph), v in self._non_slot_dict.items()
                if graph is current]

    def _checkpoint_slots(self):
        """{(variable, slot name): slot variable}, saved under the variable's path."""
        return {(key.deref(), slot_name): slot for slot_name, slots in self._slots.items()
                for key, slot in slots.items()}

    def variables(self):
        """The slot and non-slot variables of the current graph (eager: the eager ones),
        sorted by name."""
        current = _current_graph()
        found = [v for v in self._non_slot_variables() if _graph_of(v) is current]
        for slots in self._slots.values():
            found.extend(v for v in slots.values() if _graph_of(v) is current)
        return sorted(found, key=lambda v: v.name)


def _control_dependencies(control_inputs):
    return control_dependencies([c for c in control_inputs if c is not None])


class FusedOptimizer(Optimizer):
    """A built-in optimizer: its rule (`_update`) runs once over all variables.

    Subclasses set `_slot_names` (the slots `_update` receives, in order), implement
    `_create_slots`, `_hyperparameters` (name -> number, tensor, variable) and
    `_update(params, grads, *slot_lists, **hyperparameters)` over torch tensors, and
    `_rule_name` (the TF kernel, used as the op type of the graph node).
    """

    _slot_names = ()
    _rule_name = None

    def _apply_updates(self, grads, var_list):
        cls = type(self)
        if cls._apply_dense is not FusedOptimizer._apply_dense or \
                cls._resource_apply_dense is not FusedOptimizer._resource_apply_dense:
            return super(FusedOptimizer, self)._apply_updates(grads, var_list)
        return [self._fused_apply(grads, var_list)]

    def _fused_apply(self, grads, var_list):
        slots = [[self.get_slot(v, name) for v in var_list] for name in self._slot_names]
        hypers = {k: self._call_if_callable(v) for k, v in self._hyperparameters().items()}
        update = self._update
        return fused_update(lambda lists, h: update(*lists, **h),
                            [list(var_list), list(grads)] + slots, hypers, self._rule_name)

    def _apply_dense(self, grad, var):
        """One variable's update (the fused rule applied to a list of one)."""
        return self._fused_apply([grad], [var])

    _resource_apply_dense = _apply_dense

    def _hyperparameters(self):
        raise NotImplementedError

    def _update(self, params, grads, *slots, **hyperparameters):
        raise NotImplementedError
