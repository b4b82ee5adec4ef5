"""`tf.keras.optimizers` / `tf.optimizers`: Keras 2's OptimizerV2 family.

Hyperparameters are float32 variables (`optimizer.lr` / `learning_rate` can be read and set,
also with `keras.backend.set_value`), or a learning-rate schedule / callable. Slots are made
on first use. `apply_gradients` is ONE op: clipping, the update rule of
`tfcompat.train.update_rules` for every variable at once (torch `_foreach_*`, no host sync)
and `iterations += 1`; in a TF1 graph or a tf.function trace it records that op.
"""
import logging

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import context, distribution_strategy_context as distribution, dtypes
from tfcompat.framework.ops import init_scope, to_torch
from tfcompat.train import update_rules
from tfcompat.variables import Variable
from tfcompat.framework.graph import get_default_graph
from tfcompat.keras import backend
from tfcompat.ops import math_ops
from tfcompat.trackable.tracking import restore_on_create, restore_slot_on_create
from tfcompat.eager.gradients_impl import gradients
from tfcompat.eager.backprop import GradientTape
from tfcompat.keras.utils.generic_utils import (class_and_config, deserialize_keras_object,
                                                serialize_keras_object)

_state = context.state
_logger = logging.getLogger("tensorflow")


def _paths(name):
    return dict(v1=["keras.optimizers." + name, "keras.optimizers.legacy." + name],
                v2=["keras.optimizers." + name, "keras.optimizers.legacy." + name,
                    "optimizers." + name, "optimizers.legacy." + name])


def _torch_value(value):
    """A hyperparameter or state as the update sees it: a variable's storage, a tensor, or
    a Python number."""
    if isinstance(value, torch.Tensor) or isinstance(value, (int, float)):
        return value
    storage = getattr(value, "_storage", None)
    return storage() if storage is not None else to_torch(value)


def _clip(grads, clipnorm, clipvalue, global_clipnorm):
    if clipvalue is not None:
        grads = [torch.clamp(g, -clipvalue, clipvalue) for g in grads]
    if clipnorm is not None:
        norms = torch._foreach_norm(grads)
        grads = [g * (clipnorm / torch.clamp(n, min=clipnorm)) for g, n in zip(grads, norms)]
    if global_clipnorm is not None:
        total = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))
        scale = global_clipnorm / torch.clamp(total, min=global_clipnorm)
        grads = torch._foreach_mul(grads, scale)
    return grads


def _apply_gradients_op(update, params, grads, slots, hypers, iterations, clipping,
                        host_scalars, apply_if=None):
    """Clip, apply `update` to every variable and count the step, in one no-grad pass.

    In a graph it is one node; it has no outputs, so it is not run on fake tensors.
    `host_scalars`, `apply_if`: see `_apply_gradients_impl`.
    """
    if not _state.building_graph:
        return _apply_gradients_impl(update, params, grads, slots, hypers, iterations,
                                     clipping, host_scalars, apply_if)
    slot_names = list(slots)
    tensor_hypers = [k for k, v in hypers.items() if not isinstance(v, (int, float))]
    static_hypers = {k: v for k, v in hypers.items() if k not in tensor_hypers}
    n = len(params)
    inputs = list(params) + list(grads) + [s for k in slot_names for s in slots[k]] + \
        [hypers[k] for k in tensor_hypers] + [iterations] + \
        ([] if apply_if is None else [apply_if])

    def run(*values):
        values = list(values)
        condition = None if apply_if is None else values.pop()
        p, g, rest = values[:n], values[n:2 * n], values[2 * n:]
        slot_values = {k: rest[i * n:(i + 1) * n] for i, k in enumerate(slot_names)}
        rest = rest[len(slot_names) * n:]
        h = dict(static_hypers)
        h.update(zip(tensor_hypers, rest[:-1]))
        _apply_gradients_impl(update, p, g, slot_values, h, rest[-1], clipping, host_scalars,
                              condition)
    return get_default_graph().record_custom(run, "KerasApplyGradients", inputs, None)


def _apply_gradients_impl(update, params, grads, slots, hypers, iterations, clipping,
                          host_scalars, apply_if=None):
    """`host_scalars`: when the variables are on the CPU (and torch.compile is not tracing),
    hyperparameters and the step are read as Python numbers when the update runs, so the
    step's scalar arithmetic (beta ** t, bias corrections) costs no tensor ops.
    `apply_if`: None, or a boolean tensor; when it is False only the step is counted (a
    LossScaleOptimizer skipping a step with non-finite gradients)."""
    if apply_if is not None and not bool(_torch_value(apply_if)):
        with torch.no_grad():
            _torch_value(iterations).add_(1)
        return None
    params = [_torch_value(p) for p in params]
    grads = [_as_param(_torch_value(g), p) for g, p in zip(grads, params)]
    slots = {name: [_torch_value(s) for s in group] for name, group in slots.items()}
    hypers = {name: _torch_value(h) for name, h in hypers.items()}
    step = _torch_value(iterations)
    step_value = step
    if host_scalars and all(p.device.type == "cpu" for p in params) and \
            not torch.compiler.is_compiling():
        hypers = {name: _host_number(h) for name, h in hypers.items()}
        step_value = step.item()
    with torch.no_grad():
        grads = _clip(grads, *clipping)
        update(params, grads, slots, hypers, step_value)
        step.add_(1)
    return None


def _as_param(grad, param):
    if grad.dtype is param.dtype and grad.device == param.device:
        return grad
    return grad.to(device=param.device, dtype=param.dtype)


def _host_number(value):
    """A CPU 0-d tensor's value as a Python number; anything else unchanged."""
    if isinstance(value, torch.Tensor) and value.ndim == 0 and value.device.type == "cpu":
        return value.item()
    return value


def _local_step(step, like):
    """iterations + 1 as a float (the step being taken): a tensor of `like`'s dtype, or a
    Python number rounded to float32 when `step` is one."""
    if not isinstance(step, torch.Tensor):
        return float(np.float32(step + 1))
    return (step + 1).to(like.dtype if isinstance(like, torch.Tensor) else torch.float32)


@tf_export(**_paths("Optimizer"))
class _TF211Variables(object):
    """A Keras 2.11+ optimizer's `_variables` list seen from an OptimizerV2: iterations, then
    the slots in TF 2.11's build order (checkpoint restore only)."""

    def __init__(self, optimizer):
        self._optimizer = optimizer

    def _checkpoint_dependencies(self):
        optimizer = self._optimizer
        order = optimizer._slot_order
        found = [("0", optimizer._iterations)]
        for position, var in enumerate(order):
            for slot_name, slot in optimizer._slots[id(var)].items():
                found.append((str(optimizer._tf211_index(order, position, slot_name)), slot))
        return found


class OptimizerV2(object):
    """Keras 2's optimizer base class.

    Subclasses declare `_slot_names(self)` and `_update(params, grads, slots, hypers, step)`
    over torch tensors; hyperparameters are set with `_set_hyper` in `__init__`.
    """

    _ALLOWED_KWARGS = {"clipnorm", "clipvalue", "lr", "decay", "global_clipnorm"}
    # whether `_update` takes CPU hyperparameters and the step as Python numbers
    _host_scalars = True

    def __init__(self, name, gradient_aggregator=None, gradient_transformers=None, **kwargs):
        for k in kwargs:
            if k not in self._ALLOWED_KWARGS:
                raise TypeError("Unexpected keyword argument passed to optimizer: " + str(k))
            if kwargs[k] is not None and not callable(kwargs[k]) and kwargs[k] < 0:
                raise ValueError("Expected {} >= 0, received: {}".format(k, kwargs[k]))
        object.__setattr__(self, "_hyper", {})
        self._name = name
        self._slots = {}
        self._slot_order = []       # the variables, in the order their slots were made
        self._slot_variables = {}
        self._tf211_variables = _TF211Variables(self)
        self._weights = []
        self._initial_decay = kwargs.pop("decay", 0.0)
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.clipvalue = kwargs.pop("clipvalue", None)
        self.global_clipnorm = kwargs.pop("global_clipnorm", None)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError("Cannot accept both `clipnorm` and `global_clipnorm`, passed "
                             "`clipnorm` {}, `global_clipnorm` {}".format(
                                 self.clipnorm, self.global_clipnorm))
        with init_scope():
            self._iterations = Variable(np.int64(0), trainable=False, name=name + "/iter",
                                        dtype=dtypes.int64)
        self._weights.append(self._iterations)

    # ------------------------------------------------------------ hyperparameters
    def _set_hyper(self, name, value):
        """Set a hyperparameter: numbers go into (or create) its float32 variable."""
        current = self._hyper.get(name)
        if isinstance(value, (int, float, np.floating, np.integer)) and \
                not isinstance(value, bool):
            if isinstance(current, Variable):
                backend.set_value(current, value)
                return
            with init_scope():
                value = Variable(np.float32(value), trainable=False,
                                 name=self._name + "/" + name, dtype=dtypes.float32)
        self._hyper[name] = value

    def _get_hyper(self, name):
        return self._hyper[name]

    def __getattr__(self, name):
        hyper = self.__dict__.get("_hyper")
        if hyper is not None:
            if name == "lr":
                name = "learning_rate"
            if name in hyper:
                return hyper[name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __setattr__(self, name, value):
        if name == "lr":
            name = "learning_rate"
        hyper = self.__dict__.get("_hyper")
        if hyper is not None and name in hyper:
            self._set_hyper(name, value)
        else:
            object.__setattr__(self, name, value)

    def _hyper_inputs(self):
        """Hyperparameters for the update op: variables, numbers, or the evaluated schedule;
        "learning_rate" includes Keras' `decay` (lr / (1 + decay * iterations)) with the decay
        given to the constructor, as Keras 2's `_decayed_lr`: the `decay` variable is saved and
        restored but a restored value does not change the schedule."""
        values = {}
        for name, value in self._hyper.items():
            if callable(value) and not isinstance(value, Variable):
                value = value(self._iterations) if hasattr(value, "get_config") else value()
            values[name] = value
        if self._initial_decay:
            step = math_ops.cast(self._iterations, dtypes.float32)
            values["learning_rate"] = values["learning_rate"] / (
                1.0 + self._initial_decay * step)
        values.pop("decay", None)
        return values

    def _serialize_hyperparameter(self, name):
        value = self._hyper[name]
        if isinstance(value, Variable):
            return float(backend.get_value(value))
        if hasattr(value, "get_config"):
            return {"class_name": type(value).__name__, "config": value.get_config()}
        if callable(value):
            return value()
        return value

    # ------------------------------------------------------------ state
    @property
    def iterations(self):
        """The number of steps taken (an int64 variable)."""
        return self._iterations

    @iterations.setter
    def iterations(self, variable):
        self._weights[self._weights.index(self._iterations)] = variable
        self._iterations = variable

    def _slot_names(self):
        return ()

    def _slot_initial_value(self, slot_name, variable):
        return 0.0

    def _create_slots(self, var_list):
        """Make the slots of the variables that have none, in Keras 2's order (so `weights`
        lists iterations, then each kind of slot for all variables, as `get_weights` and HDF5
        files do in Keras 2)."""
        new_vars = []
        for var in var_list:
            if id(var) not in self._slots:
                self._slots[id(var)] = {}
                self._slot_order.append(var)
                new_vars.append(var)
        for slot_name in self._slot_names():
            for var in new_vars:
                value = np.full(var.shape.as_list(), self._slot_initial_value(slot_name, var),
                                dtype=var.dtype.as_numpy_dtype)
                with init_scope(), context.device_scope(var.device):
                    slot = Variable(value, trainable=False, dtype=var.dtype,
                                    name="%s/%s/%s" % (self._name, var.name.split(":")[0],
                                                       slot_name))
                self._slots[id(var)][slot_name] = slot
                self._slot_variables[(id(var), slot_name)] = (var, slot)
                self._weights.append(slot)
                restore_slot_on_create(self, var, slot_name, slot)
        if self._tf211_slot_groups() is not None:
            order = self._slot_order
            for position, var in enumerate(order):
                for slot_name, slot in self._slots[id(var)].items():
                    restore_on_create(self._tf211_variables,
                                      str(self._tf211_index(order, position, slot_name)), slot)

    def get_slot_names(self):
        """The names of the slots this optimizer keeps per variable."""
        return list(self._slot_names())

    def get_slot(self, var, slot_name):
        slots = self._slots.get(id(var))
        if slots is None or slot_name not in slots:
            raise KeyError("No slot %r for variable %s; slots: %s" % (
                slot_name, getattr(var, "name", var), self.get_slot_names()))
        return slots[slot_name]

    def _checkpoint_dependencies(self):
        deps = [("iter", self._iterations)]
        deps.extend((name, value) for name, value in self._hyper.items()
                    if isinstance(value, Variable))
        return deps

    # Keras' TF 2.11+ optimizers (tf.keras.optimizers in TF 2.11-2.15) checkpoint their state
    # as `_iterations`, `_learning_rate` and a list `_variables` of the slots in the order
    # `build` made them: per group of slot kinds, for each variable its slots of the group.
    # Restoring that layout needs our slot names in that order (None: not restorable); the
    # orders below were read off tf-keras 2.21's optimizers (the layout of TF 2.11-2.15).
    _TF211_SLOT_GROUPS = None

    def _checkpoint_restore_aliases(self):
        aliases = [("_iterations", self._iterations)]
        learning_rate = self._hyper.get("learning_rate")
        if isinstance(learning_rate, Variable):
            aliases.append(("_learning_rate", learning_rate))
        if self._tf211_slot_groups() is not None:
            aliases.append(("_variables", self._tf211_variables))
        return aliases

    def _tf211_slot_groups(self):
        groups = self._TF211_SLOT_GROUPS
        if groups is None:
            return None
        names = set(self._slot_names())
        return [kinds for kinds in ([k for k in group if k in names] for group in groups)
                if kinds]

    def _tf211_index(self, variables, position, slot_name):
        """Where TF 2.11+ puts `slot_name` of the `position`-th of `variables` (0: iterations)."""
        index = 1
        for kinds in self._tf211_slot_groups():
            if slot_name in kinds:
                return index + position * len(kinds) + kinds.index(slot_name)
            index += len(kinds) * len(variables)
        raise KeyError(slot_name)

    def _checkpoint_slots(self):
        return {(var, name): slot for (_, name), (var, slot) in self._slot_variables.items()}

    def variables(self):
        """iterations and the slot variables (TF's `optimizer.variables()`)."""
        return list(self._weights)

    @property
    def weights(self):
        return list(self._weights)

    def get_weights(self):
        return backend.batch_get_value(self._weights)

    def set_weights(self, weights):
        if len(weights) != len(self._weights):
            raise ValueError("Optimizer weight shape mismatch: expected %d weights, got %d "
                             "(create the slots first, e.g. by one training step)"
                             % (len(self._weights), len(weights)))
        backend.batch_set_value(list(zip(self._weights, weights)))

    # ------------------------------------------------------------ gradients
    def get_gradients(self, loss, params):
        """Gradients of a loss tensor (TF1 graph mode)."""
        grads = gradients(loss, params)
        if any(g is None for g in grads):
            raise ValueError("An operation has `None` for gradient. Please make sure that all "
                             "of your ops have a gradient defined (i.e. are differentiable).")
        return grads

    def _compute_gradients(self, loss, var_list, grad_loss=None, tape=None):
        if not callable(loss) and tape is None:
            if _state.building_graph and not callable(var_list):
                var_list = list(var_list)
                return list(zip(gradients(loss, var_list, grad_loss), var_list))
            raise ValueError("`tape` is required when a `Tensor` loss is passed.")
        tape = tape if tape is not None else GradientTape()
        if callable(loss):
            with tape:
                if not callable(var_list):
                    tape.watch(var_list)
                loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        grads = tape.gradient(loss, var_list, grad_loss)
        return list(zip(grads, var_list))

    def minimize(self, loss, var_list, grad_loss=None, name=None, tape=None):
        """Compute gradients of `loss` (a callable, or a tensor with `tape`) and apply them."""
        grads_and_vars = self._compute_gradients(loss, var_list, grad_loss, tape)
        return self.apply_gradients(grads_and_vars, name=name)

    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        """Apply (gradient, variable) pairs; gradients that are None are skipped. No pairs at
        all is a no-op returning `iterations` (unchanged), as in Keras 2.11+ optimizers.

        In a replica context of a strategy with several replicas the gradients are first
        summed over the replicas (unless `experimental_aggregate_gradients=False`: the
        caller did it)."""
        if experimental_aggregate_gradients:
            grads_and_vars = self._aggregate_gradients(grads_and_vars)
        return self._apply_gradients(grads_and_vars, name)

    @staticmethod
    def _aggregate_gradients(grads_and_vars):
        """The (gradient, variable) pairs with each gradient summed over the replicas in
        sync, as Keras 2 does in `apply_gradients`; TF's error in cross-replica context."""
        if distribution.has_strategy() and distribution.in_cross_replica_context():
            raise RuntimeError(
                "`apply_gradients() cannot be called in cross-replica context. Use "
                "`tf.distribute.Strategy.run` to enter replica context. For more information, "
                "please see the docstring of `tf.distribute.get_replica_context`.")
        replica = distribution.get_replica_context()
        pairs = list(grads_and_vars)
        if replica is None or replica.num_replicas_in_sync == 1:
            return pairs
        present = [i for i, (g, _) in enumerate(pairs) if g is not None]
        summed = replica.all_reduce("SUM", [pairs[i][0] for i in present])
        for i, g in zip(present, summed):
            pairs[i] = (g, pairs[i][1])
        return pairs

    def _apply_gradients(self, grads_and_vars, name, should_apply=None):
        """`apply_gradients`; `should_apply(grads)`, if given, makes a boolean tensor from the
        gradients that are not None, and the variables are updated only when it is True
        (the step is counted either way)."""
        pairs = list(grads_and_vars)
        if not pairs:
            return self._iterations
        filtered = [(g, v) for g, v in pairs if g is not None]
        if not filtered:
            raise ValueError("No gradients provided for any variable: %s." % (
                [v.name for _, v in pairs],))
        if len(filtered) < len(pairs):
            _logger.warning("Gradients do not exist for variables %s when minimizing the "
                            "loss.", [v.name for g, v in pairs if g is None])
        grads = [g for g, _ in filtered]
        var_list = [v for _, v in filtered]
        self._create_slots(var_list)
        slots = {name: [self._slots[id(v)][name] for v in var_list]
                 for name in self._slot_names()}
        result = _apply_gradients_op(self._update, var_list, grads, slots, self._extra_state(
            self._hyper_inputs()), self._iterations,
            (self.clipnorm, self.clipvalue, self.global_clipnorm), self._host_scalars,
            None if should_apply is None else should_apply(grads))
        return result if _state.building_graph else self._iterations

    def _extra_state(self, hypers):
        return hypers

    # ------------------------------------------------------------ config
    def get_config(self):
        config = {"name": self._name}
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        if self.global_clipnorm is not None:
            config["global_clipnorm"] = self.global_clipnorm
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        return cls(**config)


@tf_export(**_paths("SGD"))
class SGD(OptimizerV2):
    """Gradient descent with optional (Nesterov) momentum (Keras' formulation)."""

    _TF211_SLOT_GROUPS = (("momentum",),)

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        learning_rate = kwargs.pop("lr", learning_rate)
        super(SGD, self).__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._momentum = callable(momentum) or momentum > 0
        if not callable(momentum) and not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be between [0, 1].")
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov

    def _slot_names(self):
        return ("momentum",) if self._momentum else ()

    def _update(self, params, grads, slots, h, step):
        if self._momentum:
            update_rules.keras_momentum(params, grads, slots["momentum"], h["learning_rate"],
                                        h["momentum"], self.nesterov)
        else:
            update_rules.gradient_descent(params, grads, h["learning_rate"])

    def get_config(self):
        config = super(SGD, self).get_config()
        config.update(learning_rate=self._serialize_hyperparameter("learning_rate"),
                      decay=self._initial_decay,
                      momentum=self._serialize_hyperparameter("momentum"),
                      nesterov=self.nesterov)
        return config


class _AdamLike(OptimizerV2):
    _TF211_SLOT_GROUPS = (("m", "v"),)

    def __init__(self, name, learning_rate, beta_1, beta_2, epsilon, kwargs):
        learning_rate = kwargs.pop("lr", learning_rate)
        super(_AdamLike, self).__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon if epsilon is not None else 1e-7

    def _slot_names(self):
        return ("m", "v")

    def get_config(self):
        config = super(_AdamLike, self).get_config()
        config.update(learning_rate=self._serialize_hyperparameter("learning_rate"),
                      decay=self._initial_decay,
                      beta_1=self._serialize_hyperparameter("beta_1"),
                      beta_2=self._serialize_hyperparameter("beta_2"),
                      epsilon=self.epsilon)
        return config


@tf_export(**_paths("Adam"))
class Adam(_AdamLike):
    """Adam (optionally AMSGrad), with Keras 2's defaults (epsilon 1e-7)."""

    _TF211_SLOT_GROUPS = (("m", "v"), ("vhat",))

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="Adam", **kwargs):
        super(Adam, self).__init__(name, learning_rate, beta_1, beta_2, epsilon, kwargs)
        self.amsgrad = amsgrad

    def _slot_names(self):
        return ("m", "v", "vhat") if self.amsgrad else ("m", "v")

    def _update(self, params, grads, slots, h, step):
        t = _local_step(step, h["beta_1"])
        update_rules.adam(params, grads, slots["m"], slots["v"], h["learning_rate"],
                          h["beta_1"], h["beta_2"], self.epsilon, h["beta_1"] ** t,
                          h["beta_2"] ** t, vhat=slots.get("vhat"))

    def get_config(self):
        config = super(Adam, self).get_config()
        config["amsgrad"] = self.amsgrad
        return config


@tf_export(**_paths("Adamax"))
class Adamax(_AdamLike):
    """Adamax (Adam with the infinity norm)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Adamax", **kwargs):
        super(Adamax, self).__init__(name, learning_rate, beta_1, beta_2, epsilon, kwargs)

    def _update(self, params, grads, slots, h, step):
        t = _local_step(step, h["beta_1"])
        update_rules.adamax(params, grads, slots["m"], slots["v"], h["learning_rate"],
                            h["beta_1"], h["beta_2"], self.epsilon, h["beta_1"] ** t)


@tf_export(**_paths("Nadam"))
class Nadam(_AdamLike):
    """Nesterov Adam with Keras 2's momentum-cache schedule (decay 0.004, base 0.96)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Nadam", **kwargs):
        super(Nadam, self).__init__(name, learning_rate, beta_1, beta_2, epsilon, kwargs)
        with init_scope():
            self._m_cache = Variable(np.float32(1.0), trainable=False, dtype=dtypes.float32,
                                     name=name + "/momentum_cache")
        self._weights.append(self._m_cache)

    _host_scalars = False       # the momentum cache is state, updated in place

    def _extra_state(self, hypers):
        hypers["m_cache"] = self._m_cache
        return hypers

    @torch.no_grad()
    def _update(self, params, grads, slots, h, step):
        b1, b2, lr, m_cache = h["beta_1"], h["beta_2"], h["learning_rate"], h["m_cache"]
        t = _local_step(step, m_cache)
        mu_t = b1 * (1.0 - 0.5 * torch.pow(0.96, 0.004 * t))
        mu_next = b1 * (1.0 - 0.5 * torch.pow(0.96, 0.004 * (t + 1)))
        schedule_new = m_cache * mu_t
        m_cache.copy_(schedule_new)
        schedule_next = schedule_new * mu_next
        m, v = slots["m"], slots["v"]
        g_prime = torch._foreach_div(grads, 1.0 - schedule_new)
        torch._foreach_mul_(m, b1)
        torch._foreach_add_(m, torch._foreach_mul(grads, 1.0 - b1))
        m_prime = torch._foreach_div(m, 1.0 - schedule_next)
        torch._foreach_mul_(v, b2)
        torch._foreach_add_(v, torch._foreach_mul(torch._foreach_mul(grads, grads), 1.0 - b2))
        denom = torch._foreach_sqrt(torch._foreach_div(v, 1.0 - b2 ** t))
        torch._foreach_add_(denom, self.epsilon)
        m_bar = torch._foreach_mul(g_prime, 1.0 - mu_t)
        torch._foreach_add_(m_bar, torch._foreach_mul(m_prime, mu_next))
        torch._foreach_sub_(params, torch._foreach_mul(torch._foreach_div(m_bar, denom), lr))


@tf_export(**_paths("RMSprop"))
class RMSprop(OptimizerV2):
    """RMSprop (plain, with momentum, or centered), Keras 2's formulation."""

    _TF211_SLOT_GROUPS = (("rms",), ("momentum",), ("mg",))

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, name="RMSprop", **kwargs):
        learning_rate = kwargs.pop("lr", learning_rate)
        super(RMSprop, self).__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self._momentum = callable(momentum) or momentum > 0
        self._set_hyper("momentum", momentum)
        self.epsilon = epsilon if epsilon is not None else 1e-7
        self.centered = centered

    def _slot_names(self):
        return ("rms",) + (("momentum",) if self._momentum else ()) + \
            (("mg",) if self.centered else ())

    def _update(self, params, grads, slots, h, step):
        mg = slots.get("mg")
        if self._momentum:
            update_rules.rmsprop(params, grads, slots["rms"], slots["momentum"],
                                 h["learning_rate"], h["rho"], h["momentum"], self.epsilon, mg)
        else:
            update_rules.rmsprop_no_momentum(params, grads, slots["rms"], h["learning_rate"],
                                             h["rho"], self.epsilon, mg)

    def get_config(self):
        config = super(RMSprop, self).get_config()
        config.update(learning_rate=self._serialize_hyperparameter("learning_rate"),
                      decay=self._initial_decay, rho=self._serialize_hyperparameter("rho"),
                      momentum=self._serialize_hyperparameter("momentum"),
                      epsilon=self.epsilon, centered=self.centered)
        return config


@tf_export(**_paths("Adagrad"))
class Adagrad(OptimizerV2):
    """Adagrad with Keras 2's defaults (initial accumulator 0.1, epsilon 1e-7)."""

    _TF211_SLOT_GROUPS = (("accumulator",),)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name="Adagrad", **kwargs):
        if initial_accumulator_value < 0.0:
            raise ValueError("initial_accumulator_value must be non-negative: %s"
                             % initial_accumulator_value)
        learning_rate = kwargs.pop("lr", learning_rate)
        super(Adagrad, self).__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon if epsilon is not None else 1e-7

    def _slot_names(self):
        return ("accumulator",)

    def _slot_initial_value(self, slot_name, variable):
        return self._initial_accumulator_value

    def _update(self, params, grads, slots, h, step):
        update_rules.adagrad(params, grads, slots["accumulator"], h["learning_rate"],
                             self.epsilon)

    def get_config(self):
        config = super(Adagrad, self).get_config()
        config.update(learning_rate=self._serialize_hyperparameter("learning_rate"),
                      decay=self._initial_decay,
                      initial_accumulator_value=self._initial_accumulator_value,
                      epsilon=self.epsilon)
        return config


@tf_export(**_paths("Adadelta"))
class Adadelta(OptimizerV2):
    """Adadelta with Keras 2's defaults (learning_rate 0.001, rho 0.95, epsilon 1e-7)."""

    _TF211_SLOT_GROUPS = (("accum_grad", "accum_var"),)

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta",
                 **kwargs):
        learning_rate = kwargs.pop("lr", learning_rate)
        super(Adadelta, self).__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self.epsilon = epsilon if epsilon is not None else 1e-7

    def _slot_names(self):
        return ("accum_grad", "accum_var")

    def _update(self, params, grads, slots, h, step):
        update_rules.adadelta(params, grads, slots["accum_grad"], slots["accum_var"],
                              h["learning_rate"], h["rho"], self.epsilon)

    def get_config(self):
        config = super(Adadelta, self).get_config()
        config.update(learning_rate=self._serialize_hyperparameter("learning_rate"),
                      decay=self._initial_decay, rho=self._serialize_hyperparameter("rho"),
                      epsilon=self.epsilon)
        return config


# Keras 2 resolves its built-in optimizers' names in any case (its alias list, not a symbol
# table): the lowercase name -> the TF path of the class.
_KERAS_LOWERCASE_NAMES = {name.lower(): "keras.optimizers." + name for name in (
    "Adadelta", "Adagrad", "Adam", "Adamax", "Nadam", "RMSprop", "SGD", "Ftrl")}
_KERAS_LOWERCASE_NAMES["lossscaleoptimizer"] = "keras.mixed_precision.LossScaleOptimizer"


@tf_export("keras.optimizers.serialize", v2=["optimizers.serialize"])
def serialize(optimizer):
    return serialize_keras_object(optimizer)


@tf_export("keras.optimizers.deserialize", v2=["optimizers.deserialize"])
def deserialize(config, custom_objects=None):
    """An optimizer from {'class_name', 'config'} (built-in class names in any case); a
    LossScaleOptimizer's inner optimizer may be one of `custom_objects`."""
    name, config = class_and_config(config, "optimizer")
    if name.lower() in _KERAS_LOWERCASE_NAMES:
        name = name.lower()
    return deserialize_keras_object({"class_name": name, "config": config},
                                    custom_objects=custom_objects,
                                    printable_module_name="optimizer",
                                    namespace="keras.optimizers", aliases=_KERAS_LOWERCASE_NAMES)


@tf_export("keras.optimizers.get", v2=["optimizers.get"])
def get(identifier):
    """An optimizer from a name ('adam'), a config dict or an optimizer object.

    TF1 `tf.train.Optimizer`s are accepted as they are (Keras wraps them; they are used
    through their own `apply_gradients`).
    """
    if isinstance(identifier, OptimizerV2) or hasattr(identifier, "apply_gradients"):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    raise ValueError("Could not interpret optimizer identifier: {}".format(identifier))


@tf_export("keras.optimizers.schedules.serialize", v2=["optimizers.schedules.serialize"])
def serialize_schedule(learning_rate_schedule):
    """{"class_name": ..., "config": ...} for a schedule."""
    return serialize_keras_object(learning_rate_schedule)


@tf_export("keras.optimizers.schedules.deserialize", v2=["optimizers.schedules.deserialize"])
def deserialize_schedule(config, custom_objects=None):
    """The schedule `serialize_schedule` described: a `tf.keras.optimizers.schedules` class
    or a custom one."""
    return deserialize_keras_object(config, custom_objects=custom_objects,
                                    printable_module_name="learning rate schedule",
                                    namespace="keras.optimizers.schedules")
