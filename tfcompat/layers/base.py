"""`tf.layers.Layer` (TF1): a Keras layer whose variables come from `tf.get_variable` in a
variable scope named like the layer ("dense", "dense_1", or the `name` given), so TF1 sharing
(`reuse=True`, `tf.AUTO_REUSE`) and the graph collections (UPDATE_OPS,
REGULARIZATION_LOSSES) work as in TensorFlow 1.x."""
from tfcompat._api import tf_export
from tfcompat.framework import context
from tfcompat.keras import backend
from tfcompat.keras.engine import base_layer
from tfcompat.variable_scope import (REGULARIZATION_LOSSES, VariableScope, get_variable,
                                     variable_scope)
from tfcompat.variables import (PartitionedVariable, VariableAggregation,
                                 VariableSynchronization)
from tfcompat.framework.graph import get_default_graph

_state = context.state
InputSpec = base_layer.InputSpec


@tf_export(v1=["layers.Layer"])
class Layer(base_layer.Layer):
    """Base class of the TF1 `tf.layers` layers."""

    _ALLOWED_KWARGS = base_layer.Layer._ALLOWED_KWARGS | frozenset(("_scope", "_reuse"))

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        super(Layer, self).__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        if scope:
            with variable_scope(scope) as captured_scope:
                self._scope = captured_scope
        else:
            self._scope = None
        self._current_scope = None

    def _init_set_name(self, name, zero_based=True):
        base_name = backend.to_snake_case(type(self).__name__)
        if isinstance(name, VariableScope):
            self._name = backend.unique_object_name(base_name)
            base_name = name.name
        elif name:
            self._name = base_name = name
        else:
            self._name = backend.unique_object_name(base_name)
        self._base_name = base_name

    @property
    def scope_name(self):
        if not self._scope:
            raise ValueError("No name available for layer scope because the layer \"%s\" has "
                             "not been used yet. The scope name is determined the first time "
                             "the layer instance is called." % self._name)
        return self._scope.name

    def _name_scope(self):
        return self._current_scope.original_name_scope

    def _set_scope(self, scope=None):
        if self._scope is None:
            if self._reuse:
                with variable_scope(scope if scope is not None else self._base_name) as s:
                    self._scope = s
            else:
                with variable_scope(scope, default_name=self._base_name) as s:
                    self._scope = s

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, partitioner=None, use_resource=None,
                   synchronization=VariableSynchronization.AUTO,
                   aggregation=VariableAggregation.NONE, getter=None, **kwargs):
        """`tf.get_variable(name, ...)` in the layer's variable scope, then tracked."""
        if synchronization == VariableSynchronization.ON_READ:
            trainable = False
        elif trainable is None:
            trainable = True
        self._set_scope(None)
        reuse = self.built or self._reuse
        existing = set(id(v) for v in _global_variables())
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False):
            variable = get_variable(name, shape=shape, dtype=dtype or self.dtype,
                                    initializer=initializer,
                                    trainable=trainable and self.trainable,
                                    constraint=constraint, partitioner=partitioner,
                                    synchronization=synchronization, aggregation=aggregation)
        # a PartitionedVariable (a partitioner in scope) is tracked as its parts, as TF does
        parts = list(variable) if isinstance(variable, PartitionedVariable) else [variable]
        created = not _state.building_graph or id(parts[0]) not in existing
        if regularizer is not None and created:
            self._handle_weight_regularization(name, variable, regularizer)
        for part in parts:
            tracked = self._trainable_weights if part.trainable else self._non_trainable_weights
            if all(v is not part for v in tracked):
                tracked.append(part)
        return variable

    def add_loss(self, losses, inputs=None):
        """Keras' add_loss; TF1 graphs also get the losses in REGULARIZATION_LOSSES."""
        before = len(self._losses), len(self._callable_losses)
        super(Layer, self).add_loss(losses, inputs=inputs)
        if _state.building_graph:
            new = [loss for loss, _ in self._losses[before[0]:]]
            new += [fn() for fn in self._callable_losses[before[1]:]]
            graph = get_default_graph()
            for loss in new:
                if loss is not None:
                    graph.add_to_collection(REGULARIZATION_LOSSES, loss)

    def __call__(self, inputs, *args, **kwargs):
        self._set_scope(kwargs.pop("scope", None))
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            return super(Layer, self).__call__(inputs, *args, **kwargs)

    def apply(self, inputs, *args, **kwargs):
        """Same as calling the layer."""
        return self.__call__(inputs, *args, **kwargs)


def _global_variables():
    if not _state.building_graph:
        return []
    return get_default_graph().get_collection("variables")
