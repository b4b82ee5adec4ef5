"""`tf.Session` / `tf.InteractiveSession`: run parts of a TF1 graph.

`run(fetches, feed_dict)` resolves the fetch structure (tensors, ops, variables, names,
sparse tensors; nested lists, tuples, namedtuples and dicts), prunes the graph to what they
need, and caches the resulting torch.fx GraphModule per (fetches, feed keys, graph version).
As in TF, each session holds its own values of the graph's variables: they exist once an
initializer (or a restore) has run in that session.

Each signature's GraphModule is compiled when the compile policy says so
(`framework/compile_policy.py`).
"""
import contextlib

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors, ops, thread_choice
from tfcompat.framework.compile_policy import Executable
from tfcompat.framework.default_session import default_session_stack, swap_running_session
from tfcompat.framework.graph import Operation, SymbolicTensor, get_default_graph, located_error
from tfcompat.framework.tensor import EagerTensor
from tfcompat.ops.sparse_ops import SparseTensorValue
from tfcompat import config


class _Fetch(object):
    """The flat list of graph elements of a fetch structure, and how to rebuild it."""

    def __init__(self, graph, fetches):
        self.graph = graph
        self.elements = []
        self.structure = self._map(fetches)

    def _add(self, element):
        self.elements.append(element)
        return len(self.elements) - 1

    def _map(self, fetch):
        if fetch is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        if isinstance(fetch, (list, tuple)):
            items = [self._map(f) for f in fetch]
            if hasattr(fetch, "_fields"):
                return ("namedtuple", type(fetch), items)
            return ("seq", type(fetch), items)
        if isinstance(fetch, dict):
            return ("dict", type(fetch), [(k, self._map(v)) for k, v in fetch.items()])
        if all(hasattr(fetch, a) for a in ("indices", "values", "dense_shape")) and \
                not isinstance(fetch, (SymbolicTensor, EagerTensor)):
            parts = [self._map(getattr(fetch, a)) for a in ("indices", "values", "dense_shape")]
            return ("sparse", None, parts)
        return ("leaf", None, self._add(self._element(fetch)))

    def _element(self, fetch):
        if isinstance(fetch, str):
            try:
                return self.graph.as_graph_element(fetch)
            except KeyError as e:
                raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)"
                                 % (fetch, e.args[0]))
        if isinstance(fetch, (SymbolicTensor, Operation)):
            if fetch.graph is not self.graph:
                raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (Tensor "
                                 "%s is not an element of this graph.)" % (fetch, fetch.name))
            return fetch
        if isinstance(fetch, EagerTensor):
            return fetch
        if hasattr(fetch, "_graph_tensor"):
            return fetch._graph_tensor(self.graph)
        raise TypeError("Fetch argument %r has invalid type %r, must be a string or Tensor. "
                        "(Can not convert a %s into a Tensor or Operation.)"
                        % (fetch, type(fetch), type(fetch).__name__))

    def rebuild(self, values):
        return _rebuild_fetches(self.structure, values)


def _rebuild_fetches(node, values):
    """The fetch structure `node` with its leaves looked up in `values` (module-level
    recursion: a self-calling closure would keep the fetched values alive in a cycle)."""
    kind, cls, payload = node
    if kind == "leaf":
        return values[payload]
    if kind == "seq":
        return cls(_rebuild_fetches(p, values) for p in payload)
    if kind == "namedtuple":
        return cls(*[_rebuild_fetches(p, values) for p in payload])
    if kind == "dict":
        return cls((k, _rebuild_fetches(v, values)) for k, v in payload)
    return SparseTensorValue(*[_rebuild_fetches(p, values) for p in payload])


class _RunPlan(object):
    """What a `Session.run` call resolved (its fetch structure, feed keys and executable),
    reused by the next call passing the same graph elements and feed keys, as a training
    loop's `sess.run([train_op, loss], {x: ..., y: ...})` does. Only flat fetches of graph
    elements and feed dicts of graph tensors are planned (nothing that could change)."""

    __slots__ = ("fetch_type", "fetched", "feeds", "fetch", "entry", "version")

    @classmethod
    def of(cls, fetches, feed_dict, feeds, fetch, entry, version):
        """The plan of a resolved call, or None when its arguments are not plannable."""
        fetch_type = type(fetches)
        fetched = tuple(fetches) if fetch_type is list or fetch_type is tuple else (fetches,)
        keys = tuple(feed_dict or ())
        if not all(isinstance(e, (SymbolicTensor, Operation)) for e in fetched) or \
                len(keys) != len(feeds) or any(k is not f for k, f in zip(keys, feeds)):
            return None
        plan = cls()
        plan.fetch_type, plan.fetched, plan.feeds = fetch_type, fetched, keys
        plan.fetch, plan.entry, plan.version = fetch, entry, version
        return plan

    def matches(self, fetches, feed_dict, version):
        fetched = self.fetched
        if type(fetches) is not self.fetch_type or version != self.version:
            return False
        if type(fetches) is list or type(fetches) is tuple:
            if len(fetches) != len(fetched) or any(a is not b for a, b in zip(fetches, fetched)):
                return False
        elif fetches is not fetched[0]:
            return False
        feeds = self.feeds
        if len(feed_dict or ()) != len(feeds):
            return False
        return not feeds or all(a is b for a, b in zip(feed_dict, feeds))


def _to_numpy(value):
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        return value[()] if value.ndim == 0 else value
    if isinstance(value, torch.Tensor):
        if value.dtype == torch.bfloat16:
            value = value.float()
        array = value.detach().cpu().numpy().copy()
        return array[()] if array.ndim == 0 else array
    if isinstance(value, EagerTensor):
        return value.numpy()
    return value


@tf_export(v1=["Session"])
class Session(object):
    """`tf.Session(target='', graph=None, config=None)`."""

    def __init__(self, target="", graph=None, config=None):
        self._graph = graph if graph is not None else get_default_graph()
        self._target = target
        self._config = config
        if config is not None:
            _size_thread_pools(config)
        self._closed = False
        self._values = {}
        self._variables_version = 0     # counts new storages given to variables (GraphInputs)
        self._cache = {}
        self._last_plan = None
        self._context_stack = []
        self._on_close = []  # callables cancelling what waits on this session's resources

    graph = property(lambda self: self._graph)
    sess_str = property(lambda self: self._target)

    @property
    def graph_def(self):
        return self._graph.as_graph_def()

    # ------------------------------------------------------------ variables
    def _variable_value(self, variable):
        value = self._values.get(id(variable))
        if value is None:
            raise errors.FailedPreconditionError(
                "Attempting to use uninitialized value %s\n\t [[{{node %s}}]]\nRun "
                "tf.global_variables_initializer() (or the variable's initializer) in this "
                "session first." % (variable.op.name, variable.op.name))
        return value[1]

    def _set_variable_value(self, variable, value):
        self._values[id(variable)] = (variable, value)
        self._variables_version += 1

    def _is_initialized(self, variable):
        return id(variable) in self._values

    # ------------------------------------------------------------ run
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Evaluate `fetches` (any nested structure) with `feed_dict` substituted."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        plan = self._last_plan
        if plan is not None and plan.matches(fetches, feed_dict, self._graph.version):
            fetch, entry = plan.fetch, plan.entry
            feed_values = [_feed_value(k, v) for k, v in zip(plan.feeds, feed_dict.values())] \
                if plan.feeds else []
        else:
            fetch = _Fetch(self._graph, fetches)
            feeds, feed_values = self._feeds(feed_dict)
            graph_elements = [e for e in fetch.elements if not isinstance(e, EagerTensor)]
            key = (tuple(id(e) for e in graph_elements), tuple(id(k) for k in feeds),
                   self._graph.version)
            entry = self._cache.get(key)
            if entry is None:
                entry = self._cache[key] = Executable(
                    *self._graph.build_module(feeds, graph_elements, values_only=True),
                    label=_signature_label(graph_elements, feeds))
            self._last_plan = _RunPlan.of(fetches, feed_dict, feeds, fetch, entry,
                                          self._graph.version)
        previous = swap_running_session(self)
        try:
            outputs = entry.run(feed_values)
        except errors.OpError as error:
            raise located_error(error) from None
        except RuntimeError as e:
            raise located_error(errors.InvalidArgumentError(str(e)).with_traceback(
                e.__traceback__)) from None
        finally:
            swap_running_session(previous)
        it = iter(outputs)
        values = [_to_numpy(e.numpy() if isinstance(e, EagerTensor) else next(it))
                  for e in fetch.elements]
        return fetch.rebuild(values)

    def _feeds(self, feed_dict):
        keys, values = [], []
        for key, value in _flat_feed_items((feed_dict or {}).items()):
            if not isinstance(key, SymbolicTensor) and \
                    all(hasattr(key, a) for a in ("indices", "values", "dense_shape")):
                parts = (value.indices, value.values, value.dense_shape) \
                    if hasattr(value, "indices") else value  # or an (indices, values, shape)
                for part, part_value in zip((key.indices, key.values, key.dense_shape), parts):
                    keys.append(self._feed_key(part))
                    values.append(_feed_value(keys[-1], part_value))
                continue
            tensor = self._feed_key(key)
            keys.append(tensor)
            values.append(_feed_value(tensor, value))
        return keys, values

    def _feed_key(self, key):
        if isinstance(key, str):
            key = self._graph.as_graph_element(key)
        if hasattr(key, "_graph_tensor") and not isinstance(key, SymbolicTensor):
            key = key._graph_tensor(self._graph)
        if not isinstance(key, SymbolicTensor):
            raise TypeError("The value of a feed cannot be a %s; feed keys must be graph "
                            "tensors or their names" % type(key).__name__)
        if key.graph is not self._graph:
            raise ValueError("Cannot feed %s: it is not an element of this session's graph"
                             % key.name)
        return key

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function running `fetches` with positional values for `feed_list`."""
        feed_list = list(feed_list or [])

        def call(*args, **kwargs):
            if len(args) != len(feed_list):
                raise ValueError("Expected %d feed values, got %d" % (len(feed_list), len(args)))
            return self.run(fetches, dict(zip(feed_list, args)))
        return call

    def partial_run_setup(self, fetches, feeds=None):
        raise NotImplementedError("Session.partial_run_setup is not implemented by tfcompat")

    def list_devices(self):
        return config.list_logical_devices()

    # ------------------------------------------------------------ lifecycle
    def close(self):
        self._closed = True
        while self._on_close:
            self._on_close.pop()()
        self._values.clear()
        self._variables_version += 1
        self._cache.clear()
        self._last_plan = None

    @contextlib.contextmanager
    def as_default(self):
        """Make this the default session (and its graph the default graph) in the block."""
        stack = default_session_stack()
        stack.append(self)
        try:
            with self._graph.as_default():
                yield self
        finally:
            stack.remove(self)

    def __enter__(self):
        manager = self.as_default()
        manager.__enter__()
        self._context_stack.append(manager)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        manager = self._context_stack.pop()
        manager.__exit__(exc_type, exc_value, traceback)
        self.close()
        return False

    def __del__(self):
        self._values = {}


def _size_thread_pools(config):
    """Apply a ConfigProto's thread counts to torch's process-wide pools.

    `intra_op_parallelism_threads=N` (N > 0) sets torch's intra-op threads, the pool each op
    splits its work over, as TF sizes its CPU device's pool, and every graph keeps N (no
    `thread_choice`); 0 keeps the current count (TF: the system's choice). TF sizes its
    process-wide pools once, from the first Session; here every Session asking for a count
    sets it. `inter_op_parallelism_threads=N` sets torch's
    inter-op pool while torch still allows it (before its first parallel work; afterwards
    the pool stays as it is, as TF keeps its global pool). tfcompat runs a graph's ops in
    order on the calling thread, so the inter-op pool serves only torch's own uses."""
    if config.intra_op_parallelism_threads > 0:
        torch.set_num_threads(config.intra_op_parallelism_threads)
        thread_choice.pin()
    inter_op = config.inter_op_parallelism_threads
    if inter_op > 0 and inter_op != torch.get_num_interop_threads():
        try:
            torch.set_num_interop_threads(inter_op)
        except RuntimeError:
            pass


def _feed_value(tensor, value):
    """Convert a fed value to the key's dtype; a shape the key cannot take is an error.

    The value is copied, as TF copies the (usually not 64-byte aligned) numpy arrays it is
    fed: what a run keeps (a dataset initialized from a feed, a py_func's argument, a fed
    variable that assignments write) must not change when the caller reuses the array."""
    dtype = tensor.dtype
    if isinstance(value, EagerTensor):
        value = value.numpy()
    if dtype is dtypes.string:
        return ops.constant_to_torch(value, dtypes.string)
    try:
        array = np.asarray(value, dtype=dtype.as_numpy_dtype if dtype.as_numpy_dtype else None)
    except (TypeError, ValueError) as e:
        raise FeedError("Cannot feed value %r for Tensor %r of dtype %s: %s"
                        % (value, tensor.name, dtype.name, e))
    if not _shape_accepts(tensor.shape, array.shape):
        raise FeedError("Cannot feed value of shape %s for Tensor %r, which has shape %r"
                        % (array.shape, tensor.name, str(tensor.shape)))
    return ops.constant_to_torch(array, dtype)


def _shape_accepts(shape, array_shape):
    """Whether a value of `array_shape` fits the static `shape` (unknown dims take any)."""
    dims = shape._dims
    if dims is None:
        return True
    if len(dims) != len(array_shape):
        return False
    for d, n in zip(dims, array_shape):
        if d is not None and d != n:
            return False
    return True


def _signature_label(fetches, feeds):
    names = ", ".join(e.name for e in fetches[:4]) + (" ..." if len(fetches) > 4 else "")
    fed = ", ".join(k.name for k in feeds[:4]) + (" ..." if len(feeds) > 4 else "")
    return "fetch %s%s" % (names or "nothing", "; feed %s" % fed if fed else "")


def _flat_feed_items(items):
    """(key, value) pairs with nested keys (tuples, namedtuples such as LSTMStateTuple,
    lists) paired element-wise with values of the same structure, as TF flattens them."""
    for key, value in items:
        if isinstance(key, (tuple, list)):
            if not isinstance(value, (tuple, list)) or len(value) != len(key):
                raise ValueError("The structure of the fed value %r does not match its key %r"
                                 % (value, key))
            yield from _flat_feed_items(zip(key, value))
        else:
            yield key, value


class FeedError(errors.InvalidArgumentError, ValueError):
    """A bad feed: TF raises ValueError here; it is also an InvalidArgumentError."""


@tf_export(v1=["InteractiveSession"])
class InteractiveSession(Session):
    """A Session that makes itself the default session on creation (for `Tensor.eval()`)."""

    def __init__(self, target="", graph=None, config=None):
        super(InteractiveSession, self).__init__(target, graph, config)
        self._interactive_context = self.as_default()
        self._interactive_context.__enter__()

    def close(self):
        if self._interactive_context is not None:
            context_manager, self._interactive_context = self._interactive_context, None
            try:
                context_manager.__exit__(None, None, None)
            except RuntimeError:
                pass
        super(InteractiveSession, self).close()
