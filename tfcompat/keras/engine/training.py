"""`tf.keras.Model`: a Network (engine/network.py) plus Keras 2's training API.

`compile` resolves the optimizer, losses (per output) and metrics; `fit`, `evaluate` and
`predict` run batches from numpy arrays / tensors, datasets and other iterables of
`(x, y[, sample_weight])`, Python generators and `keras.utils.Sequence`s.

One train step (eager): the forward pass under a GradientTape, the compiled losses plus
`model.losses`, one fused optimizer update, and the metric updates. It is traced once per
batch signature with `tf.function` unless `run_eagerly`, as Keras 2 does. Batches are sliced
from tensors converted once per `fit` (numpy floats become float32, as Keras' data adapter
does), so the loop itself costs little.

In a TF1 graph (graph mode) the model is applied once to placeholders; the train, test and
predict graphs run batch by batch in the Keras session (`keras.backend.get_session()`).

Logs follow Keras 2: `loss` and the metric names (`accuracy`, or `acc` when compiled with
"acc"; `<output>_loss` / `<output>_<metric>` for several outputs), weighted by batch size
over the epoch; validation adds `val_*`.
"""
import functools
import math
import warnings

import numpy as np
import torch

from tfcompat.data import dataset_ops
from tfcompat.distribute import cross_device_ops, input_lib
from tfcompat.framework import context, distribution_strategy_context as distribution, ops
from tfcompat.framework.tensor import EagerTensor
from tfcompat.keras import backend
from tfcompat.keras import callbacks as callbacks_module
from tfcompat.keras import losses as losses_mod
from tfcompat.keras import metrics as metrics_mod
from tfcompat.keras import optimizers
from tfcompat.keras.engine.base_layer import (collect_graph_losses, collect_metric_updates,
                                               flatten, map_structure)
from tfcompat.keras.engine.data_adapter import unpack_x_y_sample_weight
from tfcompat.keras.engine.network import Network
from tfcompat.ops import array_ops, math_ops
from tfcompat.keras.mixed_precision.loss_scale_optimizer import LossScaleOptimizer
from tfcompat.eager.backprop import GradientTape
from tfcompat.function import Function
from tfcompat.keras.saving.save import save_model
from tfcompat.framework.graph import get_default_graph, placeholder
from tfcompat.variables import variables_initializer

_state = context.state


# ---------------------------------------------------------------- data


def _to_tensor(value):
    """A batch leaf as an EagerTensor (numpy floats in `floatx()`, like Keras' adapters)."""
    if value is None or type(value) is EagerTensor:
        return value
    if ops.is_tensor(value):
        return ops.convert_to_tensor(value)
    array = np.asarray(value)
    if array.dtype.kind == "f" and array.dtype != backend.floatx():
        array = array.astype(backend.floatx())
    if array.dtype.kind in "USO":
        return ops.convert_to_tensor(array)
    return EagerTensor(ops.constant_to_torch(array))


def _gradients(optimizer, tape, loss, variables):
    """The train step's gradients, as Keras 2's `optimizer.minimize(loss, variables,
    tape=tape)` computes them: a LossScaleOptimizer differentiates the scaled loss and
    unscales the gradients."""
    if isinstance(optimizer, optimizers.OptimizerV2):
        return [g for g, _ in optimizer._compute_gradients(loss, variables, tape=tape)]
    return tape.gradient(loss, variables)


def _torch(value):
    return value._t if type(value) is EagerTensor else ops.to_torch(value)


def _is_array_like(value):
    """Arrays/tensors, a list or dict of them (several inputs), or nested lists of numbers;
    anything else is a dataset-like iterable."""
    arrays = (np.ndarray, EagerTensor)
    if isinstance(value, arrays):
        return True
    if isinstance(value, dict):
        return bool(value) and all(isinstance(v, arrays) for v in value.values())
    if isinstance(value, (list, tuple)) and value:
        if all(isinstance(v, arrays) for v in value):
            return True
        try:
            return np.asarray(value).dtype.kind in "biuf"
        except ValueError:
            return False
    return False


def _num_samples(structure):
    leaves = [v for v in flatten(structure) if v is not None]
    sizes = {int(v.shape[0]) for v in leaves}
    if len(sizes) > 1:
        raise ValueError("Data cardinality is ambiguous: make sure all arrays contain the "
                         "same number of samples (got sizes %s)." % sorted(sizes))
    return sizes.pop()


class _ArrayData(object):
    """Batches sliced from arrays/tensors converted once; shuffled per epoch if asked."""

    def __init__(self, x, y, sample_weight, batch_size, shuffle, steps=None):
        to = lambda s: map_structure(_to_tensor, s) if s is not None else None  # noqa: E731
        self.x, self.y, self.sample_weight = to(x), to(y), to(sample_weight)
        self.size = _num_samples((self.x, self.y, self.sample_weight))
        self.batch_size = batch_size or 32
        self.shuffle = shuffle
        self.batches = int(math.ceil(self.size / float(self.batch_size)))
        self.steps = steps if steps is not None else self.batches
        self._position = None
        self.share_order = None   # makes every worker of a job shuffle alike

    @staticmethod
    def _take(structure, index):
        """Rows `index` (a slice, or a tensor of row numbers on the data's device)."""
        if structure is None:
            return None
        if type(structure) is EagerTensor:
            t = structure._t
            if type(index) is slice:
                return EagerTensor(t[index])
            if isinstance(t, np.ndarray):       # a string tensor
                return EagerTensor(t[index.cpu().numpy()])
            return EagerTensor(t.index_select(0, index if index.device == t.device
                                              else index.to(t.device)))
        return map_structure(lambda t: _ArrayData._take(t, index), structure)

    def _order(self):
        if self.shuffle is True:
            order = torch.randperm(self.size)
        elif self.shuffle == "batch":
            starts = torch.randperm(self.batches) * self.batch_size
            order = torch.cat([torch.arange(s, min(s + self.batch_size, self.size))
                               for s in starts.tolist()])
        else:
            return None
        if self.share_order is not None:
            order = self.share_order(order)
        return order.to(flatten(self.x)[0]._t.device)

    def _all_batches(self):
        order = self._order()
        for i in range(self.batches):
            start, stop = i * self.batch_size, min((i + 1) * self.batch_size, self.size)
            index = slice(start, stop) if order is None else order[start:stop]
            yield self._take(self.x, index), self._take(self.y, index), \
                self._take(self.sample_weight, index)

    def epoch(self):
        """The batches of one epoch (with `steps`, continuing where the last one stopped)."""
        if self.steps == self.batches and self._position is None:
            yield from self._all_batches()
            return
        if self._position is None:
            self._position = self._all_batches()
        for _ in range(self.steps):
            try:
                batch = next(self._position)
            except StopIteration:
                self._position = self._all_batches()
                batch = next(self._position)
            yield batch

    def restart(self):
        """The next epoch starts from the first batch (an evaluation inside `fit`)."""
        self._position = None

    def on_epoch_end(self):
        pass


class _IterableData(object):
    """Batches from a dataset/iterable (re-iterated each epoch), a generator (consumed) or a
    `keras.utils.Sequence` (indexed; shuffled per epoch if asked)."""

    def __init__(self, data, steps, shuffle=False):
        self.data = data
        self.is_sequence = hasattr(data, "__getitem__") and hasattr(data, "__len__") and \
            hasattr(data, "on_epoch_end")
        self.shuffle = shuffle
        self.is_iterator = hasattr(data, "__next__")
        if steps is None and self.is_sequence:
            steps = len(data)
        self.steps = steps
        self._iterator = None
        self.size = None
        self.exhausted = False

    def _source(self):
        if self.is_sequence:
            order = np.random.permutation(len(self.data)) if self.shuffle else \
                range(len(self.data))
            return (self.data[int(i)] for i in order)
        if self.is_iterator:
            return self.data
        return iter(self.data)

    def epoch(self):
        if self.steps is None or self.is_sequence:
            source = self._source()
        else:
            if self._iterator is None:
                self._iterator = self._source()
            source = self._iterator
        count = 0
        while self.steps is None or count < self.steps:
            try:
                element = next(source)
            except StopIteration:
                if self.steps is not None:
                    self._iterator = None
                    self.exhausted = True
                    _ran_out_warning(self.steps)
                break
            count += 1
            x, y, sw = unpack_x_y_sample_weight(element)
            yield (map_structure(_to_tensor, x), map_structure(_to_tensor, y) if y is not None
                   else None, map_structure(_to_tensor, sw) if sw is not None else None)
        if self.steps is None and self.is_iterator:
            self.exhausted = True

    def restart(self):
        """The next epoch iterates the data afresh (a generator just goes on)."""
        self._iterator = None

    def on_epoch_end(self):
        if self.is_sequence:
            self.data.on_epoch_end()


class _ReplicaPart(object):
    """This worker's replica's part of each global batch of `data`, as TF's distributed
    input rebatches it (see distribute/input_lib.py); every worker shuffles arrays alike."""

    def __init__(self, data, placement):
        self.data = data
        self.rank, self.size = placement.rank, placement.size
        self.steps = data.steps
        self.global_batch = getattr(data, "batch_size", None)
        if isinstance(data, _ArrayData):
            data.share_order = lambda order: cross_device_ops.broadcast_torch([order])[0]
        elif isinstance(getattr(data, "data", None), dataset_ops.Dataset):
            self.global_batch = input_lib._static_batch_size(data.data)[0]

    exhausted = property(lambda self: getattr(self.data, "exhausted", False))

    def epoch(self):
        for batch in self.data.epoch():
            rows = int(flatten(batch[0])[0].shape[0])
            sizes = input_lib.replica_batch_sizes(self.global_batch or rows, self.size)
            start = min(sum(sizes[:self.rank]), rows)
            stop = min(start + sizes[self.rank], rows)
            yield tuple(_rows(part, start, stop) for part in batch)

    def restart(self):
        self.data.restart()

    def on_epoch_end(self):
        self.data.on_epoch_end()


def _in_strategy_scope(method):
    """Run a Model method in the scope of the strategy the model was compiled under, as
    Keras 2's fit/evaluate/predict do."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        strategy = self._distribution_strategy
        if strategy is None or distribution.get_strategy() is strategy:
            return method(self, *args, **kwargs)
        with strategy.scope():
            return method(self, *args, **kwargs)
    return run


def _ran_out_warning(steps):
    warnings.warn("Your input ran out of data; interrupting training. Make sure that your "
                  "dataset or generator can generate at least `steps_per_epoch * epochs` "
                  "batches (in this case, %d batches). You may need to use the repeat() "
                  "function when building your dataset." % steps)


def _is_list_of_scalars(value):
    """Keras' ListsOfScalarsDataAdapter test: a (nested) list of Python numbers or strings
    is one array of samples, not one model input per item."""
    if isinstance(value, (float, int, str, bytes, bytearray)):
        return True
    if isinstance(value, (list, tuple)) and value:
        return _is_list_of_scalars(value[0])
    return False


def _make_data(x, y, sample_weight, batch_size, steps, shuffle, what="x"):
    if x is None:
        raise ValueError("Please provide %s data." % what)
    x, y, sample_weight = (np.asarray(s) if isinstance(s, (list, tuple)) and
                           _is_list_of_scalars(s) else s for s in (x, y, sample_weight))
    if _is_array_like(x):
        if batch_size is None:
            batch_size = 32
        return _ArrayData(x, y, sample_weight, batch_size, shuffle, steps)
    if y is not None:
        raise ValueError("`y` argument is not supported when using dataset, generator or "
                         "`keras.utils.Sequence` as input.")
    if sample_weight is not None:
        raise ValueError("`sample_weight` argument is not supported when using dataset, "
                         "generator or `keras.utils.Sequence` as input.")
    if not (hasattr(x, "__iter__") or hasattr(x, "__getitem__")):
        raise ValueError("Failed to find data adapter that can handle input: %s" % type(x))
    return _IterableData(x, steps, shuffle)


def _rows(structure, start, stop):
    """Rows [start:stop] of every tensor in a structure (None stays None)."""
    if structure is None:
        return None
    return map_structure(lambda t: EagerTensor(t._t[start:stop]), structure)


def _class_weights(y, class_weight):
    """Per-example weights class_weight[class of y] (argmax of one-hot / the label)."""
    t = _torch(y)
    classes = torch.argmax(t, dim=-1) if t.ndim > 1 and t.shape[-1] > 1 else t.reshape(-1)
    table = torch.zeros(max(int(k) for k in class_weight) + 1, dtype=torch.float32,
                        device=t.device)
    for k, v in class_weight.items():
        table[int(k)] = float(v)
    return EagerTensor(table[classes.long()])


# ---------------------------------------------------------------- compile state


def _loss_object(identifier):
    if identifier is None:
        return None
    loss = losses_mod.get(identifier)
    if not isinstance(loss, losses_mod.Loss):
        name = getattr(loss, "__name__", None) or type(loss).__name__
        loss = losses_mod.LossFunctionWrapper(loss, name=name)
    return loss


def _per_output(spec, names, what):
    """A compile argument as one entry per output (same for all, a list, or a dict)."""
    if isinstance(spec, dict):
        unknown = [k for k in spec if k not in names]
        if unknown:
            raise ValueError("Unknown entries in %s dictionary: %s. Only expected following "
                             "keys: %s" % (what, unknown, names))
        return [spec.get(n) for n in names]
    if isinstance(spec, (list, tuple)) and len(names) > 1:
        if len(spec) != len(names):
            raise ValueError("When passing a list as %s, it should have one entry per model "
                             "output. The model has %d outputs, but you passed %s=%s"
                             % (what, len(names), what, spec))
        return list(spec)
    return [spec] * len(names)


class _Compiled(object):
    """What `compile` set up: per-output losses and metrics, their Mean trackers."""

    def __init__(self, loss, metrics, loss_weights, weighted_metrics):
        self.loss_spec = loss
        self.metrics_spec = metrics
        self.weighted_spec = weighted_metrics
        self.loss_weights_spec = loss_weights
        self.loss_metric = metrics_mod.Mean(name="loss")
        self.built = False
        self.output_names = None
        self.losses = []
        self.loss_weights = []
        self.output_loss_metrics = []
        self.metrics = []          # per output: [Metric]
        self.weighted_metrics = []

    def build(self, model, y_true, y_pred):
        outputs = flatten(y_pred)
        names = model.output_names if getattr(model, "_is_graph_network", False) else None
        if not names or len(names) != len(outputs):
            names = ["output_%d" % (i + 1) for i in range(len(outputs))]
        self.output_names = names
        self.losses = [_loss_object(l) for l in _per_output(self.loss_spec, names, "loss")]
        if self.loss_weights_spec is None:
            self.loss_weights = [1.0] * len(names)
        else:
            self.loss_weights = [1.0 if w is None else w for w in
                                 _per_output(self.loss_weights_spec, names, "loss_weights")]
        multi = len(names) > 1
        self.output_loss_metrics = [
            metrics_mod.Mean(name=n + "_loss") if multi and l is not None else None
            for n, l in zip(names, self.losses)]
        targets = flatten(y_true) if y_true is not None else [None] * len(outputs)
        self.metrics = self._metric_objects(self.metrics_spec, names, targets, outputs, multi)
        self.weighted_metrics = self._metric_objects(self.weighted_spec, names, targets,
                                                     outputs, multi)
        unweighted = {m.name for group in self.metrics for m in group}
        for group in self.weighted_metrics:
            for m in group:
                if m.name in unweighted:
                    m._name = "weighted_" + m.name
        self.built = True

    @staticmethod
    def _metric_objects(spec, names, targets, outputs, multi):
        if spec is None:
            return [[] for _ in names]
        if isinstance(spec, dict):
            per_output = _per_output(spec, names, "metrics")
        elif isinstance(spec, (list, tuple)) and spec and \
                isinstance(spec[0], (list, tuple)):
            per_output = _per_output(list(spec), names, "metrics")
        else:
            per_output = [spec] * len(names)
        result = []
        for name, entries, y_t, y_p in zip(names, per_output, targets, outputs):
            # Keras 2 flattens an output's metrics: [[m]] (a saved training config's
            # per-output list) is [m] for a one-output model
            entries = [] if entries is None else flatten(entries)
            objs = [_metric_object(m, y_t, y_p) for m in entries]
            if multi:
                for m in objs:
                    m._name = name + "_" + m.name
            result.append(objs)
        return result

    def all_metrics(self):
        found = [self.loss_metric] if self.built else []
        found += [m for m in self.output_loss_metrics if m is not None]
        for group in self.metrics + self.weighted_metrics:
            found += group
        return found


def _metric_object(metric, y_t, y_p):
    """Keras 2's resolution: 'accuracy'/'acc' (and 'crossentropy'/'ce') by output shapes."""
    if isinstance(metric, metrics_mod.Metric):
        return metric
    fn = metric
    if metric in ("accuracy", "acc", "crossentropy", "ce"):
        t_shape = list(y_t.shape) if y_t is not None else []
        p_shape = list(y_p.shape)
        is_binary = bool(p_shape) and p_shape[-1] == 1
        is_sparse = len(t_shape) < len(p_shape) or (
            bool(t_shape) and t_shape[-1] == 1 and bool(p_shape) and p_shape[-1] != 1)
        if metric in ("accuracy", "acc"):
            fn = metrics_mod.binary_accuracy if is_binary else \
                metrics_mod.sparse_categorical_accuracy if is_sparse else \
                metrics_mod.categorical_accuracy
        else:
            fn = losses_mod.binary_crossentropy if is_binary else \
                losses_mod.sparse_categorical_crossentropy if is_sparse else \
                losses_mod.categorical_crossentropy
    else:
        fn = metrics_mod.get(metric)
        if isinstance(fn, metrics_mod.Metric):
            return fn
    name = metric if isinstance(metric, str) else getattr(fn, "__name__", type(fn).__name__)
    return metrics_mod.MeanMetricWrapper(fn, name=name)


def _match_rank(y_t, y_p, sw):
    """Keras' `match_dtype_and_rank`: rank-1 targets/weights for rank-2 outputs get a last
    axis; float targets take the output's float dtype."""
    if y_t is not None and y_t.shape.rank == 1 and y_p.shape.rank == 2:
        y_t = array_ops.expand_dims(y_t, -1)
    if sw is not None and sw.shape.rank == 1 and y_p.shape.rank == 2:
        sw = array_ops.expand_dims(sw, -1)
    if y_t is not None and y_t.dtype.is_floating and y_p.dtype.is_floating and \
            y_t.dtype != y_p.dtype:
        y_t = math_ops.cast(y_t, y_p.dtype)
    return y_t, y_p, sw


def _call(model, x, training):
    """model(x, training=...); a `call` without a `training` argument gets the learning
    phase instead, which its layers inherit."""
    if getattr(model, "_expects_training_arg", True):
        return model(x, training=training)
    with backend.learning_phase_scope(1 if training else 0):
        return model(x)


def _batch_size_of(y_pred):
    """The batch size: a Python number when the static shape has it, else a tensor."""
    first = flatten(y_pred)[0]
    size = first.shape.as_list()[0] if first.shape.rank else None
    if size is not None:
        return float(size)
    return math_ops.cast(array_ops.shape(first)[0], "float32")


# ---------------------------------------------------------------- the Model


class Model(Network):
    """`tf.keras.Model` with Keras 2 semantics (compile / fit / evaluate / predict)."""

    # the compiled losses/metrics and traced steps are no part of the model's checkpoint
    _UNTRACKED = Network._UNTRACKED | frozenset((
        "_compiled", "compiled_loss", "compiled_metrics", "_step_functions",
        "_graph_functions", "history", "_distribution_strategy"))
    optimizer = None
    loss = None
    compiled_loss = None
    compiled_metrics = None
    stop_training = False
    history = None
    _compiled = None
    _run_eagerly = None
    _jit_compile = None
    _in_fit = False
    _step_functions = None
    _graph_functions = None
    _distribution_strategy = None

    # ------------------------------------------------------------ compile
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                sample_weight_mode=None, weighted_metrics=None, target_tensors=None,
                run_eagerly=None, steps_per_execution=None, jit_compile=None,
                pss_evaluation_shards=0, **kwargs):
        """Configure training: optimizer, loss(es), metrics, loss weights. `jit_compile=True`
        (Keras 2.8+: XLA) compiles the steps with torch.compile (`tf.function(jit_compile=
        True)`); `pss_evaluation_shards` only concerns ParameterServerStrategy, which
        tfcompat does not have, and is ignored as Keras ignores it under other strategies."""
        allowed = {"distribute", "experimental_run_tf_function"}
        for key in kwargs:
            if key not in allowed:
                raise TypeError("Invalid keyword argument(s) in `compile`: %s" % ({key},))
        if target_tensors is not None:
            raise NotImplementedError("compile(target_tensors=...) is not implemented by "
                                      "tfcompat; feed targets through fit(y=...)")
        if sample_weight_mode not in (None, "samplewise"):
            raise NotImplementedError("sample_weight_mode=%r is not implemented by tfcompat "
                                      "(per-timestep weights: pass 2-D sample weights with "
                                      "sample_weight_mode=None)" % (sample_weight_mode,))
        if kwargs.get("distribute") is not None:     # TF 1.13-1.14's compile(distribute=)
            self._distribution_strategy = kwargs["distribute"]
        elif distribution.has_strategy():
            self._distribution_strategy = distribution.get_strategy()
        self.optimizer = self._get_optimizer(optimizer)
        self.loss = loss
        self._compiled = _Compiled(loss, metrics, loss_weights, weighted_metrics)
        self.compiled_loss = self._compiled
        self.compiled_metrics = self._compiled
        self._run_eagerly = run_eagerly
        if (run_eagerly or self.dynamic) and jit_compile:
            raise ValueError("You cannot enable `run_eagerly` and `jit_compile` at the same "
                             "time.")
        self._jit_compile = jit_compile
        self._step_functions = {}
        self._graph_functions = {}
        self.stop_training = False

    def _get_optimizer(self, optimizer):
        """The optimizer `compile` uses: under a 'mixed_float16' policy (the model's) a Keras
        optimizer is wrapped in a LossScaleOptimizer, as Keras 2 does. (A TF1
        `tf.train.Optimizer` is used as it is; Keras 2 would refuse to wrap it.)"""
        optimizer = optimizers.get(optimizer)
        if self._dtype_policy.name == "mixed_float16" and \
                isinstance(optimizer, optimizers.OptimizerV2) and \
                not isinstance(optimizer, LossScaleOptimizer):
            optimizer = LossScaleOptimizer(optimizer)
        return optimizer

    def _assert_compiled(self, method):
        if self._compiled is None:
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`." if method != "predict"
                               else "You must compile your model first.")

    @property
    def distribute_strategy(self):
        """The strategy the model trains with: the one it was compiled under, else the
        current one."""
        return self._distribution_strategy or distribution.get_strategy()

    def _replica_part(self, data):
        """`data` as this replica sees it: its part of each global batch when the strategy
        has several replicas (a distributed dataset is split already)."""
        if self.distribute_strategy.num_replicas_in_sync == 1 or \
                isinstance(getattr(data, "data", None), input_lib.DistributedDataset):
            return data
        return _ReplicaPart(data, self.distribute_strategy._input_workers())

    @property
    def run_eagerly(self):
        return bool(self._run_eagerly)

    @run_eagerly.setter
    def run_eagerly(self, value):
        self._run_eagerly = value
        self._step_functions = {}

    @property
    def jit_compile(self):
        """Whether the train/test/predict steps are compiled (Keras: with XLA; here with
        torch.compile)."""
        return self._jit_compile

    @jit_compile.setter
    def jit_compile(self, value):
        if self._jit_compile != value:
            self._jit_compile = value
            self._step_functions = {}

    @property
    def metrics(self):
        """The loss tracker and compiled metrics (once trained/evaluated), then the metrics
        layers added with `add_metric`."""
        compiled = self._compiled.all_metrics() if self._compiled is not None else []
        return compiled + [m for m in super(Model, self).metrics
                           if all(m is not c for c in compiled)]

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_states()

    # ------------------------------------------------------------ one step
    def _compute_loss(self, x, y, y_pred, sample_weight, training, updates=None,
                      regularization=None):
        """The total loss (compiled losses + `regularization`, by default model.losses);
        updates the loss trackers (their update ops are appended to `updates` when given:
        TF1 graphs)."""
        updates = [] if updates is None else updates
        compiled = self._compiled
        if not compiled.built:
            compiled.build(self, y, y_pred)
        outputs = flatten(y_pred)
        targets = flatten(y) if y is not None else [None] * len(outputs)
        if len(targets) != len(outputs):
            raise ValueError("The model has %d outputs, but got %d target arrays"
                             % (len(outputs), len(targets)))
        weights = flatten(sample_weight) if sample_weight is not None else [None]
        if len(weights) == 1:
            weights = weights * len(outputs)
        batch = _batch_size_of(y_pred)
        total = None
        for i, (y_t, y_p, sw, loss_obj) in enumerate(zip(targets, outputs, weights,
                                                         compiled.losses)):
            if loss_obj is None or y_t is None:
                continue
            if getattr(loss_obj, "_fused", lambda: False)():
                value = loss_obj._call_in_fit(y_t, y_p, sw)
            else:
                y_t, y_p, sw = _match_rank(y_t, y_p, sw)
                value = loss_obj(y_t, y_p, sample_weight=sw)
            tracker = compiled.output_loss_metrics[i]
            if tracker is not None:
                updates.append(tracker.update_state(value, sample_weight=batch))
            weight = compiled.loss_weights[i]
            value = value * weight if weight != 1.0 else value
            total = value if total is None else total + value
        if regularization is None:
            regularization = self.losses
        if regularization:
            reg = math_ops.add_n([ops.convert_to_tensor(l) for l in regularization])
            total = reg if total is None else total + reg
        if total is None:
            raise ValueError("The model cannot be compiled because it has no loss to "
                             "optimize.")
        updates.append(compiled.loss_metric.update_state(total, sample_weight=batch))
        replicas = distribution.num_replicas_in_sync()
        return total / replicas if replicas > 1 else total   # the replicas' gradients add up

    def _update_metrics(self, y, y_pred, sample_weight, updates=None):
        updates = [] if updates is None else updates
        compiled = self._compiled
        outputs = flatten(y_pred)
        targets = flatten(y) if y is not None else [None] * len(outputs)
        weights = flatten(sample_weight) if sample_weight is not None else [None]
        if len(weights) == 1:
            weights = weights * len(outputs)
        for y_t, y_p, sw, group, weighted in zip(targets, outputs, weights, compiled.metrics,
                                                 compiled.weighted_metrics):
            if y_t is None:
                continue
            for m, w in [(m, None) for m in group] + [(m, sw) for m in weighted]:
                if getattr(m, "_fused", lambda: False)():
                    updates.append(m._update_in_fit(y_t, y_p, w))
                else:
                    t, p, w = _match_rank(y_t, y_p, w)
                    updates.append(m.update_state(t, p, sample_weight=w))

    def _logs(self):
        return {m.name: m.result() for m in self.metrics}

    def _step_logs(self, result):
        """A step's logs: an overridden step's dict, else the metrics' current results."""
        return result if isinstance(result, dict) else self._logs()

    def train_step(self, data):
        """One optimization step on a batch `(x, y[, sample_weight])`; returns the logs."""
        self._train_update(data)
        return self._logs()

    def _train_update(self, data):
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = _call(self, x, True)
            loss = self._compute_loss(x, y, y_pred, sample_weight, training=True)
        variables = self.trainable_variables
        grads = _gradients(self.optimizer, tape, loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        self._update_metrics(y, y_pred, sample_weight)

    def test_step(self, data):
        """Loss and metrics of a batch, without training."""
        self._test_update(data)
        return self._logs()

    def _test_update(self, data):
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = _call(self, x, False)
        self._compute_loss(x, y, y_pred, sample_weight, training=False)
        self._update_metrics(y, y_pred, sample_weight)

    def predict_step(self, data):
        x, _, _ = unpack_x_y_sample_weight(data)
        return _call(self, x, False)

    def _step_function(self, kind, logs=False):
        """The step callable: a tf.function trace of the step unless running eagerly.

        The built-in train/test steps only update the metrics, and `_logs()` reads them at
        the end; with `logs` (callbacks want every batch's logs) the step also returns the
        metrics' results, computed in the traced step as Keras 2's train_function does. An
        overridden `train_step`/`test_step` is called as it is.
        """
        functions = self._step_functions if self._step_functions is not None else {}
        self._step_functions = functions
        fn = functions.get((kind, logs))
        if fn is None:
            cls = type(self)
            step = {"train": self._train_update if cls.train_step is Model.train_step and
                    not logs else self.train_step,
                    "test": self._test_update if cls.test_step is Model.test_step and
                    not logs else self.test_step,
                    "predict": self.predict_step}[kind]
            traced = step if self._run_eagerly else \
                Function(step, name=kind + "_function", autograph=False,
                         jit_compile=True if self._jit_compile else None)
            fn = functools.partial(self._run_on_replica, traced)
            functions[kind, logs] = fn
        return fn

    def _run_on_replica(self, step, batch):
        """A step run by the model's strategy: in replica context, where the optimizer sums
        gradients over the replicas."""
        return self.distribute_strategy.run(step, args=(batch,))

    def _prepare(self, x, y, kind):
        """Build the model (and the compiled losses/metrics) eagerly on a first batch, so
        that traced steps find every variable already created."""
        if not self.built or (kind != "predict" and not self._compiled.built):
            y_pred = _call(self, x, False)
            if kind != "predict" and not self._compiled.built:
                self._compiled.build(self, y, y_pred)
            for metric in super(Model, self).metrics:  # that call updated `add_metric`s
                metric.reset_states()

    # ------------------------------------------------------------ fit
    @_in_strategy_scope
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1, max_queue_size=10, workers=1,
            use_multiprocessing=False, **kwargs):
        """Train for `epochs` epochs; returns the History (`history.history['loss']`)."""
        if kwargs:
            raise TypeError("Invalid keyword arguments to fit: %s" % sorted(kwargs))
        self._assert_compiled("fit")
        if validation_split and validation_data is None:
            if not _is_array_like(x):
                raise ValueError("`validation_split` is only supported for Tensors or NumPy "
                                 "arrays, found: %s" % (type(x),))
            x, y, sample_weight = (None if s is None else map_structure(_to_tensor, s)
                                   for s in (x, y, sample_weight))
            split = int(_num_samples((x, y, sample_weight)) * (1.0 - validation_split))
            validation_data = tuple(_rows(s, split, None) for s in (x, y, sample_weight)
                                    if s is not None)
            x, y, sample_weight = (_rows(s, 0, split) for s in (x, y, sample_weight))
        data = _make_data(x, y, sample_weight, batch_size, steps_per_epoch, shuffle)
        validation = None
        if validation_data is not None:
            validation = self._validation_data(validation_data,
                                               validation_batch_size or batch_size,
                                               validation_steps)
        if _state.building_graph:
            return self._graph().fit(data, epochs, verbose, callbacks, validation,
                                     class_weight, initial_epoch, validation_freq)
        data = self._replica_part(data)
        validation = validation if validation is None else self._replica_part(validation)
        callback_list = callbacks_module.CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=self,
            verbose=verbose, epochs=epochs, steps=data.steps)
        batch_hooks = callback_list.needs_batch_hooks("train")
        train = self._step_function("train", batch_hooks)
        self.stop_training = False
        self._in_fit = True
        try:
            callback_list.on_train_begin()
            initial_epoch = callback_list.initial_epoch(initial_epoch)
            logs = {}
            for epoch in range(initial_epoch, epochs):
                self.reset_metrics()
                callback_list.on_epoch_begin(epoch)
                steps_run, result = 0, None
                for step, (bx, by, bw) in enumerate(data.epoch()):
                    if class_weight is not None:
                        cw = _class_weights(by, class_weight)
                        bw = cw if bw is None else EagerTensor(_torch(bw) * cw._t)
                    if step == 0 and epoch == initial_epoch:
                        self._prepare(bx, by, "train")
                    if batch_hooks:
                        callback_list.on_train_batch_begin(step)
                    result = train((bx, by, bw) if bw is not None else (bx, by))
                    steps_run += 1
                    if batch_hooks:
                        callback_list.on_train_batch_end(step, self._step_logs(result))
                    if self.stop_training:
                        break
                if not steps_run:
                    if getattr(data, "exhausted", False):
                        break
                    raise ValueError("Expect x to be a non-empty array or dataset.")
                logs = callbacks_module.logs_to_python(self._step_logs(result))
                if validation is not None and _should_validate(epoch, validation_freq):
                    validation.restart()   # Keras 2 evaluates from the first batch each time
                    val_logs = self._evaluate_data(validation, None, verbose=0)
                    logs.update(("val_" + k, v) for k, v in val_logs.items())
                callback_list.on_epoch_end(epoch, logs)
                data.on_epoch_end()
                if self.stop_training or getattr(data, "exhausted", False):
                    break
            callback_list.on_train_end(logs)
        finally:
            self._in_fit = False
        return self.history

    def _validation_data(self, validation_data, batch_size, steps):
        if isinstance(validation_data, tuple):
            if len(validation_data) not in (2, 3):
                raise ValueError("When passing a `validation_data` argument, it must contain "
                                 "either 2 items (x_val, y_val), or 3 items (x_val, y_val, "
                                 "val_sample_weights), or alternatively it could be a "
                                 "dataset or a dataset or a dataset iterator. However we "
                                 "received `validation_data=%s`" % (validation_data,))
            vx, vy = validation_data[0], validation_data[1]
            vw = validation_data[2] if len(validation_data) == 3 else None
            return _make_data(vx, vy, vw, batch_size, steps, False, "validation")
        return _make_data(validation_data, None, None, batch_size, steps, False,
                          "validation")

    # ------------------------------------------------------------ evaluate / predict
    @_in_strategy_scope
    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
                 steps=None, callbacks=None, max_queue_size=10, workers=1,
                 use_multiprocessing=False, return_dict=False):
        """The loss (and metrics) on the data: a scalar, a list, or a dict."""
        self._assert_compiled("evaluate")
        data = _make_data(x, y, sample_weight, batch_size, steps, False)
        if not _state.building_graph:
            data = self._replica_part(data)
        logs = self._evaluate_data(data, callbacks, verbose)
        if return_dict:
            return logs
        values = [logs[name] for name in self.metrics_names]
        return values[0] if len(values) == 1 else values

    def _evaluate_data(self, data, callbacks, verbose):
        if _state.building_graph:
            return self._graph().evaluate(data)
        callback_list = callbacks_module.CallbackList(
            callbacks, add_progbar=verbose != 0 and not self._in_fit, model=self,
            verbose=verbose, epochs=1, steps=data.steps)
        batch_hooks = callback_list.needs_batch_hooks("test")
        test = self._step_function("test", batch_hooks)
        self.reset_metrics()
        callback_list.on_test_begin()
        steps_run, result = 0, None
        for step, (bx, by, bw) in enumerate(data.epoch()):
            if step == 0:
                self._prepare(bx, by, "test")
            if batch_hooks:
                callback_list.on_test_batch_begin(step)
            result = test((bx, by, bw) if bw is not None else (bx, by))
            steps_run += 1
            if batch_hooks:
                callback_list.on_test_batch_end(step, self._step_logs(result))
        if not steps_run:
            raise ValueError("Expect x to be a non-empty array or dataset.")
        logs = callbacks_module.logs_to_python(self._step_logs(result))
        callback_list.on_test_end(logs)
        return logs

    @_in_strategy_scope
    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None,
                max_queue_size=10, workers=1, use_multiprocessing=False):
        """The model's outputs on `x` as numpy arrays (a list for several outputs)."""
        data = _make_data(x, None, None, batch_size, steps, False)
        if _state.building_graph:
            return self._graph().predict(data)
        callback_list = callbacks_module.CallbackList(
            callbacks, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=1,
            steps=data.steps)
        predict = self._step_function("predict")
        batch_hooks = callback_list.needs_batch_hooks("predict")
        callback_list.on_predict_begin()
        chunks = []
        for step, (bx, _, _) in enumerate(data.epoch()):
            if step == 0:
                self._prepare(bx, None, "predict")
            if batch_hooks:
                callback_list.on_predict_batch_begin(step)
            outputs = predict((bx,))
            chunks.append([_torch(o) for o in flatten(outputs)])
            if batch_hooks:
                callback_list.on_predict_batch_end(step, {"outputs": outputs})
        callback_list.on_predict_end()
        if not chunks:
            raise ValueError("Expect x to be a non-empty array or dataset.")
        results = [torch.cat([c[i] for c in chunks]).detach().cpu().numpy()
                   for i in range(len(chunks[0]))]
        return map_structure(lambda i: results[i], _index_structure(outputs))

    # ------------------------------------------------------------ single batches
    @_in_strategy_scope
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       reset_metrics=True, return_dict=False):
        """One training step on one batch; the loss (and metrics) after it."""
        self._assert_compiled("train_on_batch")
        data = _ArrayData(x, y, sample_weight, None, False)
        bx, by, bw = data.x, data.y, data.sample_weight
        if class_weight is not None:
            cw = _class_weights(by, class_weight)
            bw = cw if bw is None else EagerTensor(_torch(bw) * cw._t)
        if _state.building_graph:
            logs = self._graph().train_batch(bx, by, bw)
        else:
            self._prepare(bx, by, "train")
            logs = callbacks_module.logs_to_python(self._step_logs(self._step_function(
                "train", True)((bx, by, bw) if bw is not None else (bx, by))))
        if reset_metrics:
            self.reset_metrics()
        return self._batch_result(logs, return_dict)

    @_in_strategy_scope
    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True,
                      return_dict=False):
        """The loss (and metrics) of one batch, without training."""
        self._assert_compiled("test_on_batch")
        data = _ArrayData(x, y, sample_weight, None, False)
        if _state.building_graph:
            logs = self._graph().test_batch(data.x, data.y, data.sample_weight)
        else:
            self._prepare(data.x, data.y, "test")
            batch = (data.x, data.y) if data.sample_weight is None else \
                (data.x, data.y, data.sample_weight)
            logs = callbacks_module.logs_to_python(self._step_logs(
                self._step_function("test", True)(batch)))
        if reset_metrics:
            self.reset_metrics()
        return self._batch_result(logs, return_dict)

    def predict_on_batch(self, x):
        """The model's outputs on one batch, as numpy."""
        return self.predict(x, batch_size=_num_samples((map_structure(_to_tensor, x),)))

    def _batch_result(self, logs, return_dict):
        if return_dict:
            return logs
        values = [logs[name] for name in self.metrics_names]
        return values[0] if len(values) == 1 else values

    # ------------------------------------------------------------ whole-model saving
    def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None,
             signatures=None, options=None, save_traces=True):
        """Save architecture, weights and training config (`tf.keras.models.save_model`:
        HDF5 for `.h5`/`.keras`, else tfcompat's model directory, see keras/saving)."""
        save_model(self, filepath, overwrite, include_optimizer, save_format, signatures,
                   options, save_traces)

    # ------------------------------------------------------------ Keras 2 generator names
    def fit_generator(self, generator, steps_per_epoch=None, epochs=1, verbose=1,
                      callbacks=None, validation_data=None, validation_steps=None,
                      validation_freq=1, class_weight=None, max_queue_size=10, workers=1,
                      use_multiprocessing=False, shuffle=True, initial_epoch=0):
        """Deprecated Keras 2 name: `fit` accepts generators."""
        warnings.warn("`Model.fit_generator` is deprecated and will be removed in a future "
                      "version. Please use `Model.fit`, which supports generators.")
        return self.fit(generator, steps_per_epoch=steps_per_epoch, epochs=epochs,
                        verbose=verbose, callbacks=callbacks, validation_data=validation_data,
                        validation_steps=validation_steps, validation_freq=validation_freq,
                        class_weight=class_weight, shuffle=shuffle,
                        initial_epoch=initial_epoch)

    def evaluate_generator(self, generator, steps=None, callbacks=None, max_queue_size=10,
                           workers=1, use_multiprocessing=False, verbose=0):
        """Deprecated Keras 2 name: `evaluate` accepts generators."""
        warnings.warn("`Model.evaluate_generator` is deprecated and will be removed in a "
                      "future version. Please use `Model.evaluate`, which supports "
                      "generators.")
        return self.evaluate(generator, steps=steps, callbacks=callbacks, verbose=verbose)

    def predict_generator(self, generator, steps=None, callbacks=None, max_queue_size=10,
                          workers=1, use_multiprocessing=False, verbose=0):
        """Deprecated Keras 2 name: `predict` accepts generators."""
        warnings.warn("`Model.predict_generator` is deprecated and will be removed in a "
                      "future version. Please use `Model.predict`, which supports "
                      "generators.")
        return self.predict(generator, steps=steps, callbacks=callbacks, verbose=verbose)

    # ------------------------------------------------------------ TF1 graph mode
    def _graph(self):
        graph = get_default_graph()
        if self._graph_functions is None:
            self._graph_functions = {}
        runner = self._graph_functions.get(id(graph))
        if runner is None or runner.graph is not graph:
            runner = self._graph_functions[id(graph)] = _GraphRunner(self, graph)
        return runner


def _index_structure(outputs):
    """`outputs` with its leaves replaced by their positions (0, 1, ...)."""
    counter = iter(range(len(flatten(outputs))))
    return map_structure(lambda _: next(counter), outputs)


def _should_validate(epoch, validation_freq):
    if isinstance(validation_freq, int):
        return (epoch + 1) % validation_freq == 0
    return (epoch + 1) in validation_freq


class _GraphRunner(object):
    """TF1 graph mode: the model applied to placeholders once; batches run in the Keras
    session. Metric values are accumulated in the metric variables, as in eager mode."""

    def __init__(self, model, graph):
        self.model = model
        self.graph = graph
        self.inputs = None
        self.targets = None
        self.weights = None
        self._fetches = {}

    def _placeholders(self, bx, by, bw):

        def make(value, name):
            return placeholder(value.dtype, [None] + list(value.shape)[1:], name=name)
        if self.inputs is None:
            self.inputs = map_structure(lambda v: make(v, "input"), bx)
        if self.targets is None and by is not None:
            self.targets = map_structure(lambda v: make(v, "target"), by)
        if self.weights is None and bw is not None:
            self.weights = map_structure(lambda v: make(v, "sample_weight"), bw)

    def _build(self, kind, bx, by, bw):
        key = (kind, bw is not None)
        entry = self._fetches.get(key)
        if entry is not None:
            return entry
        self._placeholders(bx, by, bw)
        model = self.model
        weights = self.weights if bw is not None else None
        with self.graph.as_default():
            if kind == "predict":
                outputs = _call(model, self.inputs, False)
                entry = (flatten(outputs), [], outputs)
            elif kind == "test":
                with collect_metric_updates() as updates, collect_graph_losses() as losses:
                    y_pred = _call(model, self.inputs, False)
                model._compute_loss(self.inputs, self.targets, y_pred, weights, False, updates,
                                    losses + model._standing_losses())
                model._update_metrics(self.targets, y_pred, weights, updates)
                entry = (self._logs_after(updates), [], None)
            else:
                earlier = {id(u) for u in model.updates}
                with GradientTape() as tape, collect_metric_updates() as updates, \
                        collect_graph_losses() as losses:
                    y_pred = _call(model, self.inputs, True)
                    loss = model._compute_loss(self.inputs, self.targets, y_pred, weights,
                                               True, updates, losses + model._standing_losses())
                # the layers' updates of this call (BatchNormalization's moving averages)
                # and the unconditional ones: those of earlier calls read other inputs (the
                # model's Keras Inputs), which this step does not feed
                unconditional = {id(u) for u in model.get_updates_for(None)}
                layer_updates = [u for u in model.updates
                                 if id(u) not in earlier or id(u) in unconditional]
                variables = model.trainable_variables
                grads = _gradients(model.optimizer, tape, loss, variables)
                updates.append(model.optimizer.apply_gradients(zip(grads, variables)))
                model._update_metrics(self.targets, y_pred, weights, updates)
                entry = (self._logs_after(updates + layer_updates), [], None)
        self._fetches[key] = entry
        self._initialize()
        return entry

    def _logs_after(self, updates):
        """The metric results, read after every update op has run."""
        with self.graph.control_dependencies([u for u in updates if u is not None]):
            return self.model._logs()

    def _initialize(self):
        session = backend.get_session()
        metric_vars = [v for m in self.model.metrics for v in m.variables
                       if not session._is_initialized(v)]
        if metric_vars:
            with self.graph.as_default():
                session.run(variables_initializer(metric_vars))
        return session

    def _feed(self, bx, by, bw):
        feed = {}
        for ph, value in zip(flatten(self.inputs), flatten(bx)):
            feed[ph] = value.numpy()
        if by is not None:
            for ph, value in zip(flatten(self.targets), flatten(by)):
                feed[ph] = value.numpy()
        if bw is not None:
            for ph, value in zip(flatten(self.weights), flatten(bw)):
                feed[ph] = value.numpy()
        return feed

    def _reset(self, session):
        with self.graph.as_default():
            ops_ = [m.reset_state() for m in self.model.metrics]
        ops_ = [o for o in ops_ if o is not None]
        if ops_:
            session.run(ops_)

    def _run_batch(self, kind, bx, by, bw):
        logs, updates, _ = self._build(kind, bx, by, bw)
        session = self._initialize()
        values = session.run((logs, updates), feed_dict=self._feed(bx, by, bw))[0]
        return {k: float(v) for k, v in values.items()}

    def train_batch(self, bx, by, bw):
        return self._run_batch("train", bx, by, bw)

    def test_batch(self, bx, by, bw):
        return self._run_batch("test", bx, by, bw)

    def fit(self, data, epochs, verbose, callbacks, validation, class_weight, initial_epoch,
            validation_freq):
        model = self.model
        callback_list = callbacks_module.CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=model,
            verbose=verbose, epochs=epochs, steps=data.steps)
        model.stop_training = False
        model._in_fit = True
        try:
            callback_list.on_train_begin()
            initial_epoch = callback_list.initial_epoch(initial_epoch)
            logs = {}
            for epoch in range(initial_epoch, epochs):
                callback_list.on_epoch_begin(epoch)
                step_logs = None
                for step, (bx, by, bw) in enumerate(data.epoch()):
                    if class_weight is not None:
                        cw = _class_weights(by, class_weight)
                        bw = cw if bw is None else EagerTensor(_torch(bw) * cw._t)
                    if step == 0:
                        self._build("train", bx, by, bw)
                        self._reset(self._initialize())
                    callback_list.on_train_batch_begin(step)
                    step_logs = self._run_batch("train", bx, by, bw)
                    callback_list.on_train_batch_end(step, step_logs)
                    if model.stop_training:
                        break
                if step_logs is None:
                    break
                logs = dict(step_logs)
                if validation is not None and _should_validate(epoch, validation_freq):
                    validation.restart()
                    logs.update(("val_" + k, v) for k, v in self.evaluate(validation).items())
                callback_list.on_epoch_end(epoch, logs)
                data.on_epoch_end()
                if model.stop_training:
                    break
            callback_list.on_train_end(logs)
        finally:
            model._in_fit = False
        return model.history

    def evaluate(self, data):
        logs = None
        for step, (bx, by, bw) in enumerate(data.epoch()):
            if step == 0:
                self._build("test", bx, by, bw)
                self._reset(self._initialize())
            logs = self._run_batch("test", bx, by, bw)
        if logs is None:
            raise ValueError("Expect x to be a non-empty array or dataset.")
        return logs

    def predict(self, data):
        chunks, structure = [], None
        for bx, _, _ in data.epoch():
            fetches, _, structure = self._build("predict", bx, None, None)
            session = self._initialize()
            chunks.append(session.run(fetches, feed_dict=self._feed(bx, None, None)))
        if not chunks:
            raise ValueError("Expect x to be a non-empty array or dataset.")
        results = [np.concatenate([c[i] for c in chunks]) for i in range(len(chunks[0]))]
        return map_structure(lambda i: results[i], _index_structure(structure))

