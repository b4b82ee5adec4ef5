"""`tf.train.ExponentialMovingAverage`: shadow variables tracking moving averages.

As TF: `apply(var_list)` creates, once per variable, a shadow variable named
"<var>/ExponentialMovingAverage" (a slot, initialized to the variable's value; zeros for a
tensor), adds the variable to MOVING_AVERAGE_VARIABLES, and returns an op that updates
shadow -= (1 - decay) * (shadow - value), decay = min(decay, (1 + n) / (10 + n)) when
`num_updates` n is given. All averages are updated by one fused node (graph) or one fused
no-grad pass (eager; `apply` then returns None, as TF's group does).

Where we differ: averaging tensors (not variables) works in graph mode only and without
`zero_debias`; a graph variable's shadow starts from its initial value (TF takes the
current value if the variable was initialized before the shadow).
"""
import torch

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, ops
from tfcompat.framework.ops import init_scope
from tfcompat.ops.init_ops import Zeros
from tfcompat.train import update_rules
from tfcompat.train.optimizer import create_slot, fused_update
from tfcompat.variables import (MOVING_AVERAGE_VARIABLES, Variable, global_variables,
                                moving_average_variables, trainable_variables)
from tfcompat.framework.graph import add_to_collection, get_default_graph

_state = context.state
_AVERAGED_DTYPES = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)


def _op_name(tensor_name):
    return tensor_name.rsplit(":", 1)[0]


def _unique(items):
    seen, result = set(), []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            result.append(item)
    return result


def _update_averages(lists, hypers):
    averages, values = lists
    decay = hypers["decay"]
    if "num_updates" in hypers:
        n = hypers["num_updates"]
        n = n.to(torch.float32) if isinstance(n, torch.Tensor) else torch.tensor(
            float(n), dtype=torch.float32)
        ratio = (1.0 + n) / (10.0 + n)
        decay = torch.minimum(decay.to(torch.float32), ratio) if isinstance(
            decay, torch.Tensor) else torch.clamp(ratio, max=decay)
    update_rules.moving_average(averages, values, decay)


@tf_export("train.ExponentialMovingAverage")
class ExponentialMovingAverage(object):
    """Maintains moving averages of variables (and, in graph mode, tensors)."""

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        """Create shadows for new variables; return the op updating all of `var_list`."""
        if var_list is None:
            var_list = trainable_variables()
        var_list = list(var_list)
        for var in var_list:
            if var.dtype.base_dtype not in _AVERAGED_DTYPES:
                raise TypeError("The variables must be half, float, or double: %s" % var.name)
            if var.ref() not in self._averages:
                self._averages[var.ref()] = self._create_average(var)
        with ops.name_scope(self._name) as scope:
            hypers = {"decay": self._decay}
            if self._num_updates is not None:
                hypers["num_updates"] = self._num_updates
            return fused_update(_update_averages,
                                [[self._averages[v.ref()] for v in var_list], var_list],
                                hypers, "AssignMovingAvg", name=scope or None)

    def _create_average(self, var):
        with init_scope():
            if isinstance(var, Variable):
                initial = var.initialized_value() if var._graph is not None \
                    else var.read_value()
                average = create_slot(var, initial, None, None, self._name)
                if _state.building_graph:
                    add_to_collection(MOVING_AVERAGE_VARIABLES, var)
                return average
        if not _state.building_graph:
            raise TypeError("ExponentialMovingAverage.apply averages tensors only while a "
                            "graph is built; in eager mode pass variables (%r)" % (var,))
        if self._zero_debias:
            raise NotImplementedError("ExponentialMovingAverage(zero_debias=True) is not "
                                      "implemented by tfcompat for tensors (%s)" % var.name)
        with init_scope():
            return create_slot(var, Zeros(), var.shape, var.dtype.base_dtype, self._name)

    def average(self, var):
        """The shadow variable of `var`, or None."""
        return self._averages.get(var.ref())

    def average_name(self, var):
        """The shadow variable's name for `var` (what a Saver should restore it from)."""
        if var.ref() in self._averages:
            return _op_name(self._averages[var.ref()].name)
        return get_default_graph().unique_name(_op_name(var.name) + "/" + self._name,
                                               mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None):
        """{name in checkpoint: variable}: averaged variables restore from their shadows'
        names, the other global variables from their own."""
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        moving_avg_variables = _unique(moving_avg_variables)
        name_map = {self.average_name(v): v for v in moving_avg_variables}
        averaged_names = set(v.name for v in moving_avg_variables)
        for v in _unique(global_variables()):
            if v.name not in averaged_names and _op_name(v.name) not in name_map:
                name_map[_op_name(v.name)] = v
        return name_map
