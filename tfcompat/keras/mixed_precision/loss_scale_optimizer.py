"""`tf.keras.mixed_precision.LossScaleOptimizer` (Keras 2, TF 2.15, for OptimizerV2s).

It wraps an optimizer: `get_scaled_loss` multiplies the loss by the loss scale, gradients
are divided by it again (`get_unscaled_gradients`), so small float16 gradients do not flush
to zero. A dynamic scale starts at `initial_scale` (2**15); a step whose gradients are not
all finite is skipped (only `iterations` counts it) and halves the scale (not below 1);
after `dynamic_growth_steps` (2000) finite steps in a row the scale doubles. `minimize`,
and `Model.fit`'s train step, scale and unscale on their own. Hyperparameters, slots,
`iterations` and weights are the inner optimizer's.

The finiteness check and the scale update are one op (no host sync); the inner update reads
its outcome when it runs (in a graph, a data dependency orders the two).
"""
import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops
from tfcompat.framework.ops import init_scope, variable_storage
from tfcompat.keras import optimizers
from tfcompat.variables import Variable
from tfcompat.ops import math_ops
from tfcompat.ops.sparse_ops import IndexedSlices
from tfcompat.eager.backprop import GradientTape

_DEFAULT_INITIAL_SCALE = 2 ** 15
_DEFAULT_GROWTH_STEPS = 2000


@ops.op(graph_name="UpdateLossScale")
def _update_loss_scale(loss_scale, counter, grads, growth_steps, multiplier):
    """Keras 2's `_DynamicLossScaleState.update`: True when all `grads` are finite. Then the
    counter goes up, or (reaching `growth_steps`) the scale is multiplied, if the result is
    finite, and the counter reset; else the scale is divided (at least 1), counter reset."""
    scale, count = variable_storage(loss_scale), variable_storage(counter)
    grads = [ops.to_torch(g) for g in grads]
    with torch.no_grad():
        finite = torch.stack([torch.isfinite(g).all() for g in grads]).all()
        grow = finite & (count + 1 >= growth_steps)
        grown = scale * multiplier
        new_scale = torch.where(
            finite, torch.where(grow & torch.isfinite(grown), grown, scale),
            torch.clamp(scale / multiplier, min=1.0))
        scale.copy_(new_scale)
        count.copy_(torch.where(finite & ~grow, count + 1, torch.zeros_like(count)))
    return finite


class _DynamicLossScale(object):
    """The dynamic loss scale's state: `current_loss_scale` (float32) and `good_steps`
    (int64, the finite steps since the last change), checkpointed under these names."""

    def __init__(self, initial_loss_scale, growth_steps, multiplier):
        self.initial_loss_scale = float(initial_loss_scale)
        self.growth_steps = int(growth_steps)
        self.multiplier = float(multiplier)
        with init_scope():
            self.current_loss_scale = Variable(np.float32(self.initial_loss_scale),
                                               trainable=False, dtype=dtypes.float32,
                                               name="current_loss_scale")
            self.counter = Variable(np.int64(0), trainable=False, dtype=dtypes.int64,
                                    name="good_steps")

    def update(self, grads):
        """The boolean tensor 'all grads finite', after updating the scale and counter."""
        return _update_loss_scale(self.current_loss_scale, self.counter,
                                  [getattr(g, "values", g) for g in grads],
                                  self.growth_steps, self.multiplier)

    def _checkpoint_dependencies(self):
        return [("current_loss_scale", self.current_loss_scale),
                ("good_steps", self.counter)]


def _multiply_gradient(gradient, scale):
    """A (possibly IndexedSlices) gradient times `scale` cast to its dtype."""
    if isinstance(gradient, IndexedSlices):
        return IndexedSlices(gradient.values * math_ops.cast(scale, gradient.values.dtype),
                             gradient.indices, gradient.dense_shape)
    return gradient * math_ops.cast(scale, gradient.dtype)


@tf_export("keras.mixed_precision.LossScaleOptimizer")
class LossScaleOptimizer(optimizers.OptimizerV2):
    """An optimizer that scales the loss and skips steps with non-finite gradients (module
    docstring)."""

    def __init__(self, inner_optimizer, dynamic=True, initial_scale=None,
                 dynamic_growth_steps=None):
        if not isinstance(inner_optimizer, optimizers.OptimizerV2):
            raise TypeError("'inner_optimizer' is not an instance of "
                            "`tf.keras.optimizers.Optimizer`, but is: %s" % (inner_optimizer,))
        if not isinstance(dynamic, bool):
            raise TypeError('"dynamic" argument to LossScaleOptimizer.__init__ must be a '
                            'bool, but got: %r' % (dynamic,))
        if isinstance(inner_optimizer, LossScaleOptimizer):
            raise TypeError("LossScaleOptimizer cannot wrap another LossScaleOptimizer, but "
                            "got: %s" % (inner_optimizer,))
        if getattr(inner_optimizer, "_is_wrapped_by_loss_scale_optimizer", False):
            raise ValueError('"inner_optimizer" is already wrapped by a LossScaleOptimizer. An '
                             'optimizer can only be wrapped by a single LossScaleOptimizer')
        object.__setattr__(self, "_optimizer", inner_optimizer)
        inner_optimizer._is_wrapped_by_loss_scale_optimizer = True
        if dynamic:
            self._loss_scale = _DynamicLossScale(
                _DEFAULT_INITIAL_SCALE if initial_scale is None else initial_scale,
                _DEFAULT_GROWTH_STEPS if dynamic_growth_steps is None else dynamic_growth_steps,
                multiplier=2)
        else:
            if initial_scale is None:
                raise ValueError('"initial_scale" must be specified if "dynamic" is False')
            if dynamic_growth_steps is not None:
                raise ValueError('"dynamic_growth_steps" must be None if "dynamic" is False, '
                                 'but got: %s' % (dynamic_growth_steps,))
            self._loss_scale = float(initial_scale)

    # ------------------------------------------------------------ the loss scale
    @property
    def dynamic(self):
        return isinstance(self._loss_scale, _DynamicLossScale)

    @property
    def loss_scale(self):
        """The current loss scale as a float32 scalar tensor."""
        if self.dynamic:
            return self._loss_scale.current_loss_scale.read_value()
        return ops.convert_to_tensor(self._loss_scale, dtype=dtypes.float32)

    @property
    def dynamic_counter(self):
        """The int64 variable counting finite steps since the scale last changed (None for a
        fixed scale)."""
        return self._loss_scale.counter if self.dynamic else None

    @property
    def initial_scale(self):
        return self._loss_scale.initial_loss_scale if self.dynamic else self._loss_scale

    @property
    def dynamic_growth_steps(self):
        return self._loss_scale.growth_steps if self.dynamic else None

    @property
    def inner_optimizer(self):
        return self._optimizer

    def get_scaled_loss(self, loss):
        """`loss * loss_scale` (in the loss's dtype); for a callable loss, a callable."""
        if callable(loss):
            def scaled_loss():
                value = loss()
                return value * math_ops.cast(self.loss_scale, value.dtype)
            return scaled_loss
        return loss * math_ops.cast(self.loss_scale, loss.dtype)

    def get_unscaled_gradients(self, grads):
        """Each gradient divided by the loss scale (None stays None)."""
        reciprocal = 1.0 / self.loss_scale
        return [None if g is None else _multiply_gradient(g, reciprocal) for g in grads]

    # ------------------------------------------------------------ gradients
    def _compute_gradients(self, loss, var_list, grad_loss=None, tape=None):
        tape = GradientTape() if tape is None else tape
        with tape:
            loss = self.get_scaled_loss(loss)
        grads_and_vars = self._optimizer._compute_gradients(loss, var_list, grad_loss, tape)
        grads = self.get_unscaled_gradients([g for g, _ in grads_and_vars])
        return list(zip(grads, [v for _, v in grads_and_vars]))

    def get_gradients(self, loss, params):
        grads = self._optimizer.get_gradients(self.get_scaled_loss(loss), params)
        return self.get_unscaled_gradients(grads)

    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        """Apply the (unscaled) gradients with the inner optimizer; with a dynamic scale,
        update the scale and skip the step if any gradient is not finite."""
        should_apply = self._loss_scale.update if self.dynamic else None
        if experimental_aggregate_gradients:
            grads_and_vars = self._optimizer._aggregate_gradients(grads_and_vars)
        return self._optimizer._apply_gradients(grads_and_vars, name, should_apply)

    # ------------------------------------------------------------ delegation
    @property
    def iterations(self):
        return self._optimizer.iterations

    @iterations.setter
    def iterations(self, variable):
        self._optimizer.iterations = variable

    def _create_slots(self, var_list):
        self._optimizer._create_slots(var_list)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def get_slot(self, var, slot_name):
        return self._optimizer.get_slot(var, slot_name)

    def variables(self):
        return self._optimizer.variables()

    @property
    def weights(self):
        return self._optimizer.weights

    def get_weights(self):
        return self._optimizer.get_weights()

    def set_weights(self, weights):
        return self._optimizer.set_weights(weights)

    def _checkpoint_dependencies(self):
        deps = self._optimizer._checkpoint_dependencies()
        if self.dynamic:
            deps = deps + [("loss_scale", self._loss_scale)]
        return deps

    def _checkpoint_slots(self):
        return self._optimizer._checkpoint_slots()

    def _checkpoint_restore_aliases(self):
        return self._optimizer._checkpoint_restore_aliases()

    def __getattr__(self, name):
        """Hyperparameters (`learning_rate`, `lr`, ...) are the inner optimizer's."""
        if name.startswith("__") or name == "_optimizer":
            raise AttributeError(name)
        hyper = self._optimizer.__dict__.get("_hyper", {})
        key = "learning_rate" if name == "lr" else name
        if key in hyper:
            return hyper[key]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __setattr__(self, name, value):
        key = "learning_rate" if name == "lr" else name
        if key in self._optimizer.__dict__.get("_hyper", {}) and key not in self.__dict__:
            self._optimizer._set_hyper(key, value)
        else:
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------ config
    def get_config(self):
        return {"inner_optimizer": optimizers.serialize(self._optimizer),
                "dynamic": self.dynamic, "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["inner_optimizer"] = optimizers.deserialize(config["inner_optimizer"],
                                                           custom_objects=custom_objects)
        return cls(**config)
