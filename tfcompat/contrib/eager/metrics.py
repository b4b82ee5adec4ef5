"""`tf.contrib.eager.metrics` (tfe.metrics): TF 1.x object-oriented metrics.

`metric(*args)` updates the state and returns its inputs (for chaining); `result()` reads
the value (and, while a contrib summary writer records, writes it as a scalar summary named
after the metric); `init_variables()` resets the state. Defaults follow TF 1.x: `Mean`
accumulates in float64.
"""
import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.contrib import summary as contrib_summary
from tfcompat.framework import context, dtypes
from tfcompat.framework.ops import init_scope, op, to_torch, variable_storage
from tfcompat.keras import metrics as keras_metrics
from tfcompat.variables import GLOBAL_VARIABLES, LOCAL_VARIABLES, Variable

_state = context.state


@tf_export("contrib.eager.metrics.Metric")
class Metric(object):
    """Base class: subclasses implement `call(*args)` (updating variables) and `result()`."""

    def __init__(self, name=None, use_global_variables=False):
        self._name = name or type(self).__name__.lower()
        self._vars = []
        self._use_global_variables = use_global_variables

    @property
    def name(self):
        return self._name

    @property
    def variables(self):
        return list(self._vars)

    def add_variable(self, name, shape=(), dtype=dtypes.float32, initializer=None):
        dtype = dtypes.as_dtype(dtype)
        value = np.zeros(shape, dtype=dtype.as_numpy_dtype)
        collections = [GLOBAL_VARIABLES if self._use_global_variables else LOCAL_VARIABLES,
                       "metric_variables"]
        with init_scope():
            variable = Variable(value, trainable=False, name=self._name + "/" + name,
                                dtype=dtype, collections=collections)
        self._vars.append(variable)
        return variable

    def __call__(self, *args, **kwargs):
        return self.call(*args, **kwargs)

    def call(self, *args, **kwargs):
        raise NotImplementedError("Metrics must define a call() member function")

    def result(self, write_summary=True):
        value = self.value()
        if write_summary:
            _write_summary(self._name, value)
        return value

    def value(self):
        raise NotImplementedError("Metrics must define a value() member function")

    def init_variables(self):
        """Zero the state (TF1 graph: the op that does it)."""
        return keras_metrics._zero(self._vars)


def _write_summary(name, value):
    """A contrib-summary scalar while a default writer records (no writer: nothing to do)."""
    contrib_summary.scalar(name, value)


@op(graph_name="MeanUpdate")
def _mean_update(numer, denom, values, weights, dtype):
    numer, denom = variable_storage(numer), variable_storage(denom)
    with torch.no_grad():
        v = to_torch(values).detach().to(device=numer.device, dtype=dtype)
        if weights is None:
            numer.add_(v.sum())
            denom.add_(v.numel())
        else:
            w = torch.broadcast_to(to_torch(weights).detach().to(v.device, dtype), v.shape)
            numer.add_((v * w).sum())
            denom.add_(w.sum())
    return None


@tf_export("contrib.eager.metrics.Mean")
class Mean(Metric):
    """The (weighted) mean of the values seen (float64 by default)."""

    def __init__(self, name=None, dtype=dtypes.float64, use_global_variables=False):
        super(Mean, self).__init__(name=name, use_global_variables=use_global_variables)
        self.dtype = dtypes.as_dtype(dtype)
        self.numer = self.add_variable("numer", dtype=self.dtype)
        self.denom = self.add_variable("denom", dtype=self.dtype)

    def call(self, values, weights=None):
        update = _mean_update(self.numer, self.denom, values, weights, self.dtype.torch_dtype)
        if _state.building_graph:
            return update
        return values if weights is None else (values, weights)

    def value(self):
        return keras_metrics._div_no_nan(self.numer, self.denom)


@op(graph_name="Equal")
def _equal(labels, predictions, kind, threshold):
    t, p = to_torch(labels), to_torch(predictions)
    if kind == "categorical":
        t, p = torch.argmax(t, -1), torch.argmax(p, -1)
    elif kind == "sparse":
        p = torch.argmax(p, -1)
        if t.ndim == p.ndim + 1:
            t = t.squeeze(-1)
    elif kind == "binary":
        p = (p > threshold)
        if t.ndim == p.ndim - 1:
            t = t.unsqueeze(-1)
    if tuple(t.shape) != tuple(p.shape):
        raise ValueError("Shapes of labels and predictions are unequal: %s vs %s"
                         % (tuple(t.shape), tuple(p.shape)))
    return (t == p.to(t.dtype)).to(torch.float64)


class _Matches(Mean):
    kind = "equal"

    def __init__(self, name=None, dtype=dtypes.float64, use_global_variables=False,
                 threshold=0.5):
        super(_Matches, self).__init__(name=name, dtype=dtype,
                                       use_global_variables=use_global_variables)
        self.threshold = threshold

    def call(self, labels, predictions, weights=None):
        matches = _equal(labels, predictions, self.kind, self.threshold)
        update = super(_Matches, self).call(matches, weights)
        if _state.building_graph:
            return update
        return labels, predictions


@tf_export("contrib.eager.metrics.Accuracy")
class Accuracy(_Matches):
    """How often `predictions` equal `labels`."""

    def __init__(self, name=None, dtype=dtypes.float64, use_global_variables=False):
        super(Accuracy, self).__init__(name=name or "accuracy", dtype=dtype,
                                       use_global_variables=use_global_variables)


@tf_export("contrib.eager.metrics.CategoricalAccuracy")
class CategoricalAccuracy(_Matches):
    """How often argmax(predictions) equals argmax(one-hot labels)."""

    kind = "categorical"

    def __init__(self, name=None, dtype=dtypes.float64, use_global_variables=False):
        super(CategoricalAccuracy, self).__init__(
            name=name or "categorical_accuracy", dtype=dtype,
            use_global_variables=use_global_variables)


@tf_export("contrib.eager.metrics.SparseAccuracy")
class SparseAccuracy(_Matches):
    """How often argmax(predictions) equals the integer labels."""

    kind = "sparse"

    def __init__(self, name=None, dtype=dtypes.float64, use_global_variables=False):
        super(SparseAccuracy, self).__init__(name=name or "accuracy", dtype=dtype,
                                             use_global_variables=use_global_variables)


@tf_export("contrib.eager.metrics.BinaryAccuracy")
class BinaryAccuracy(_Matches):
    """How often (predictions > threshold) equals the 0/1 labels."""

    kind = "binary"

    def __init__(self, name=None, threshold=0.5, dtype=dtypes.float64,
                 use_global_variables=False):
        super(BinaryAccuracy, self).__init__(name=name or "binary_accuracy", dtype=dtype,
                                             use_global_variables=use_global_variables,
                                             threshold=threshold)
