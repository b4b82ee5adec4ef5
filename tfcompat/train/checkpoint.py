"""`tf.train.Checkpoint` (object-based checkpoints) and `tf.train.CheckpointManager`.

A Checkpoint's root object depends on its keyword arguments (sorted by name, as TF tracks
them) and on `save_counter`; every variable reachable from it is saved under TF's
object-graph key (`model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`), with the
TrackableObjectGraph proto, in our format (`checkpoint_format`). `restore` reads ours and real
TF checkpoints: object-based ones are matched object by object from the root (values for
objects not created yet wait for them, see `tracking`); name-based ones (TF1 Saver) by
variable name. In graph mode (`tf.compat.v1`), values live in a Session: `save(prefix,
session=sess)` and `restore(...).run_restore_ops(sess)`.
"""
import logging
import os
import time

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, ops
from tfcompat.trackable import tracking
from tfcompat.train import checkpoint_format, saver
from tfcompat.variables import Variable
from tfcompat.framework.default_session import get_default_session
from tfcompat.ops import control_flow_ops

_state = context.state
_logger = logging.getLogger("tensorflow")


def _default_session(session):
    if session is not None:
        return session
    return get_default_session()


def _graph_mode():
    return _state.building_graph


class _Status(object):
    """What `Checkpoint.restore` returns: checks and (graph mode) runs the restore."""

    def __init__(self, checkpoint, restoration, reader):
        self._checkpoint = checkpoint
        self._restoration = restoration
        self._reader = reader

    def _unmatched_objects(self):
        graph = tracking.ObjectGraph(self._checkpoint)
        matched = {id(obj) for obj in self._restoration.matched.values()} | \
            self._restoration.absent
        return [(path or "(root)", obj) for path, obj in zip(graph.paths, graph.objects)
                if id(obj) not in matched and isinstance(obj, Variable)]

    def assert_consumed(self):
        """AssertionError unless every checkpoint value was restored and every variable of
        the object graph got one."""
        unused = self._restoration.unused_nodes()
        if unused:
            keys = [a.checkpoint_key for i in unused
                    for a in self._restoration.proto.nodes[i].attributes]
            raise AssertionError("Unresolved object in checkpoint %s: values not restored "
                                 "(no matching Python object yet): %s"
                                 % (self._reader.prefix, keys[:20]))
        missing = self._unmatched_objects()
        if missing:
            raise AssertionError("Some Python objects were not bound to checkpointed values, "
                                 "likely due to changes in the Python program: %s"
                                 % [path for path, _ in missing][:20])
        return self

    def assert_existing_objects_matched(self):
        """AssertionError unless every existing variable of the object graph was restored."""
        missing = self._unmatched_objects()
        if missing:
            raise AssertionError("Some Python objects were not bound to checkpointed values, "
                                 "likely due to changes in the Python program: %s"
                                 % [path for path, _ in missing][:20])
        return self

    def assert_nontrivial_match(self):
        if len(self._restoration.matched) <= 1:
            raise AssertionError("Nothing except the root object matched a checkpointed value. "
                                 "Typically this means that the checkpoint does not match the "
                                 "Python program.")
        return self

    def expect_partial(self):
        """Silence warnings about values left unrestored (none are printed here)."""
        return self

    def run_restore_ops(self, session=None):
        """Graph mode: assign the restored values in `session`; eager: nothing to do."""
        if _graph_mode() or self._restoration.queued:
            session = _default_session(session)
            if session is not None:
                self._restoration.run(session)

    def initialize_or_restore(self, session=None):
        """Graph mode: initialize the variables the checkpoint does not hold, restore the
        others; eager: variables are already restored as they are matched."""
        if not (_graph_mode() or self._restoration.queued):
            return
        session = _default_session(session)
        restored = {id(obj) for obj in self._restoration.matched.values()}
        _initialize(session, [v for v in tracking.ObjectGraph(self._checkpoint).variables()
                              if id(v) not in restored])
        self._restoration.run(session)


class _NameBasedStatus(object):
    """Status of restoring a name-based (TF1 Saver) checkpoint into an object graph."""

    def __init__(self, checkpoint, reader, names, session):
        self._checkpoint, self._reader, self._names = checkpoint, reader, names
        self._session = session
        if session is not None or not _graph_mode():
            saver.restore_by_name(reader, names, session)

    def assert_consumed(self):
        missing = [n for n in self._names if not self._reader.has_tensor(n)]
        if missing:
            raise AssertionError("Variables not found in the checkpoint: %s" % missing[:20])
        return self

    assert_existing_objects_matched = assert_consumed

    def assert_nontrivial_match(self):
        return self.assert_consumed()

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        session = _default_session(session)
        if session is not None and _graph_mode():
            saver.restore_by_name(self._reader, self._names, session)

    def initialize_or_restore(self, session=None):
        self.run_restore_ops(session)


class _InitializationOnlyStatus(object):
    """Status of `restore(None)`: nothing to restore, variables are initialized."""

    def __init__(self, checkpoint):
        self._checkpoint = checkpoint

    def _fail(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    def assert_consumed(self):
        self._fail()

    def assert_existing_objects_matched(self):
        self._fail()

    def assert_nontrivial_match(self):
        self._fail()

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Nothing to restore."""

    def initialize_or_restore(self, session=None):
        if _graph_mode():
            _initialize(_default_session(session),
                        tracking.ObjectGraph(self._checkpoint).variables())


def _initialize(session, variables):
    graph_variables = [v for v in variables if v._graph is not None]
    if not graph_variables:
        return
    if session is None:
        raise ValueError("initialize_or_restore needs a session in graph mode")
    with session.graph.as_default():
        session.run(control_flow_ops.group(*[v.initializer for v in graph_variables]))


@tf_export("train.Checkpoint", "contrib.eager.Checkpoint")
class Checkpoint(object):
    """`tf.train.Checkpoint(**kwargs)`: save and restore the objects given as keywords."""

    def __init__(self, root=None, **kwargs):
        self._save_counter = None
        self._root = root
        self._kwargs = []
        for name, value in sorted(kwargs.items()):
            value = tracking.wrap_container(value)
            if not tracking.is_trackable(value) and not isinstance(value, Variable):
                raise ValueError("`Checkpoint` was expecting a trackable object (an object "
                                 "derived from `Trackable`), got %r. If you believe this "
                                 "object should be trackable (i.e. it is part of the TensorFlow "
                                 "Python API and manages state), please open an issue."
                                 % (value,))
            setattr(self, name, value)
            if name not in self._kwargs:  # a private name, which __setattr__ leaves untracked
                self._kwargs.append(name)

    def _checkpoint_dependencies(self):
        deps = tracking.dependencies(self._root) if self._root is not None else []
        deps += [(name, getattr(self, name)) for name in self._kwargs]
        if self._save_counter is not None:
            deps.append(("save_counter", self._save_counter))
        return deps

    def __setattr__(self, name, value):
        """As TF's: a list or dict becomes a tracking `ListWrapper` / `DictWrapper` (tracked
        even while empty), and a value named by a pending restore is restored at once."""
        if name.startswith("_") or "_kwargs" not in self.__dict__:
            super().__setattr__(name, value)
            return
        value = tracking.wrap_container(value)
        super().__setattr__(name, value)
        if name not in self._kwargs and tracking.is_trackable(value):
            self._kwargs.append(name)
        if name in self._kwargs:
            tracking.restore_on_create(self, name, value)

    # ------------------------------------------------------------ save counter
    def _counter(self):
        if self._save_counter is None:
            with ops.init_scope(), ops.name_scope(None), context.device_scope("/cpu:0"):
                counter = Variable(0, dtype=dtypes.int64, trainable=False, name="save_counter",
                                   collections=[] if _graph_mode() else None)
            object.__setattr__(self, "_save_counter", counter)
            tracking.restore_on_create(self, "save_counter", counter)
        return self._save_counter

    @property
    def save_counter(self):
        """An int64 variable counting `save` calls (created on first use)."""
        return self._counter()

    def _counter_value(self, session):
        counter = self._counter()
        if counter._graph is None:
            return int(counter.numpy())
        import torch
        if not session._is_initialized(counter):
            session._set_variable_value(counter, torch.zeros((), dtype=torch.int64))
        return int(session._variable_value(counter))

    def _increment_counter(self, session):
        counter = self._counter()
        if counter._graph is None:
            counter.assign_add(1)
        else:
            import torch
            session._set_variable_value(
                counter, torch.tensor(self._counter_value(session) + 1, dtype=torch.int64))

    # ------------------------------------------------------------ save / restore
    def _session(self, session):
        if not _graph_mode():
            return None
        session = _default_session(session)
        if session is None:
            raise ValueError("Saving in graph mode needs a session: pass `session=` or use a "
                             "default session")
        return session

    def write(self, file_prefix, session=None, options=None):
        """Write a checkpoint at exactly `file_prefix` (no counter, no state file)."""
        file_prefix = os.fspath(file_prefix)
        session = self._session(session)
        self._counter()
        graph = tracking.ObjectGraph(self)
        directory = os.path.dirname(file_prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        checkpoint_format.write(file_prefix, graph.values(session), object_graph=graph.proto)
        return file_prefix

    def save(self, file_prefix, session=None, options=None):
        """Save to `file_prefix-N` (N = the incremented save counter); update the state file."""
        file_prefix = os.fspath(file_prefix)
        session = self._session(session)
        self._increment_counter(session)
        path = self.write("%s-%d" % (file_prefix, self._counter_value(session)), session)
        saver.update_checkpoint_state_internal(
            os.path.dirname(file_prefix), path, [path], save_relative_paths=True)
        return path

    def restore(self, save_path, options=None):
        """Restore from `save_path` (ours or TF's); returns a status object. Values for
        objects not created yet are restored when they are (deferred restoration)."""
        if save_path is None:
            return _InitializationOnlyStatus(self)
        reader = checkpoint_format.open_reader(os.fspath(save_path))
        session = _default_session(None) if _graph_mode() else None
        proto = reader.object_graph()
        if proto is None:
            names = {v._shared_name: v for v in tracking.ObjectGraph(self).variables()
                     if v is not self._save_counter}
            return _NameBasedStatus(self, reader, names, session)
        self._counter()
        restoration = tracking.Restoration(reader, proto, self, session=session,
                                           graph_mode=_graph_mode())
        return _Status(self, restoration, reader)

    def read(self, save_path, options=None):
        """Restore from a checkpoint written by `write` (same as `restore`)."""
        return self.restore(save_path, options)


@tf_export("train.CheckpointManager")
class CheckpointManager(object):
    """Numbered checkpoints of one Checkpoint in a directory, keeping `max_to_keep`.

    As TF's: the state file of `directory` gives the managed checkpoints (those saved after
    the last one preserved by `keep_checkpoint_every_n_hours`); each save records the state
    listing the new checkpoint before deleting any, deletes the oldest beyond `max_to_keep`
    and records the state again, so a crash while deleting leaves them listed for the next
    manager to delete. Unlike TF's, the first save also adopts this manager's checkpoints
    (`NAME-<N>`) written after the state file, which a crash between writing a checkpoint and
    recording it leaves unlisted (TF never deletes them): they are managed from then on, by
    modification time, so `max_to_keep` holds on disk. Unlisted checkpoints older than the
    state file are left alone, as TF leaves them: `keep_checkpoint_every_n_hours` preserved
    them, or `Checkpoint.save` wrote them."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, got %d."
                             % (max_to_keep,))
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._checkpoint_name = checkpoint_name
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._last_checkpoint_step = None
        self._maybe_delete = {}
        self._state_mtime = None
        state = saver.get_checkpoint_state(self._directory)
        now = time.time()
        if state is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0
            return
        self._state_mtime = os.path.getmtime(os.path.join(self._directory, "checkpoint"))
        self._latest_checkpoint = state.model_checkpoint_path
        self._last_preserved_timestamp = state.last_preserved_timestamp
        if now < self._last_preserved_timestamp:
            _logger.warning("time.time() returned a value %f seconds behind the last "
                            "preserved checkpoint timestamp.",
                            self._last_preserved_timestamp - now)
            self._last_preserved_timestamp = now
        paths = list(state.all_model_checkpoint_paths)
        stamps = list(state.all_model_checkpoint_timestamps) or \
            [self._last_preserved_timestamp] * len(paths)
        for path, stamp in zip(paths, stamps):
            stamp = min(stamp, now)
            if stamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = stamp

    directory = property(lambda self: self._directory)
    checkpoint_interval = property(lambda self: self._checkpoint_interval)
    checkpoint = property(lambda self: self._checkpoint)

    @property
    def latest_checkpoint(self):
        return self._latest_checkpoint

    @property
    def checkpoints(self):
        """Prefixes of the managed checkpoints, oldest first."""
        return list(self._maybe_delete)

    def _step(self):
        value = self._step_counter
        return int(value.numpy() if hasattr(value, "numpy") else value)

    def _adopt_unrecorded_checkpoints(self):
        """Manage this manager's checkpoints written after the state file (see the class)."""
        state_mtime, self._state_mtime = self._state_mtime, None
        if state_mtime is None:
            return
        try:
            filenames = os.listdir(self._directory)
        except OSError:
            return
        base = os.path.basename(self._prefix) + "-"
        numbers = {name[len(base):].split(".", 1)[0] for name in filenames
                   if name.startswith(base)}
        unrecorded = []
        for number in numbers:
            path = self._prefix + "-" + number
            if not number.isdigit() or path in self._maybe_delete or \
                    not checkpoint_format.exists(path):
                continue
            mtime = saver.get_checkpoint_mtimes([path])[0]
            if mtime > state_mtime:
                unrecorded.append((mtime, path))
        for mtime, path in sorted(unrecorded):
            self._maybe_delete[path] = mtime

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save a checkpoint (None if the interval has not passed); returns its prefix."""
        if self._checkpoint_interval is not None:
            step = self._step()
            if self._last_checkpoint_step is not None and (
                    step == self._last_checkpoint_step or check_interval and
                    step < self._last_checkpoint_step + self._checkpoint_interval):
                return None
            self._last_checkpoint_step = step
        self._adopt_unrecorded_checkpoints()
        session = self._checkpoint._session(None)
        self._checkpoint._increment_counter(session)
        if checkpoint_number is None:
            checkpoint_number = self._checkpoint._counter_value(session)
        elif hasattr(checkpoint_number, "numpy"):
            checkpoint_number = int(checkpoint_number.numpy())
        path = self._checkpoint.write("%s-%d" % (self._prefix, int(checkpoint_number)), session)
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        self._record_state()
        self._sweep()
        self._record_state()
        return path

    def _record_state(self):
        saver.update_checkpoint_state_internal(
            self._directory, self._latest_checkpoint, list(self._maybe_delete),
            save_relative_paths=True,
            all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
            last_preserved_timestamp=self._last_preserved_timestamp)

    def _sweep(self):
        """Delete the oldest checkpoints beyond max_to_keep (some kept every N hours)."""
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = next(iter(self._maybe_delete.items()))
            del self._maybe_delete[path]
            if self._keep_checkpoint_every_n_hours and \
                    stamp - self._keep_checkpoint_every_n_hours * 3600 >= \
                    self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            saver.remove_checkpoint(path)

    def restore_or_initialize(self):
        """Restore the latest checkpoint (returns its path), else run `init_fn` (None)."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = self._step()
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None
