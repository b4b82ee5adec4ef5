"""`tf.train.Saver` (name-based checkpoints), the `checkpoint` state file and checkpoint readers.

A Saver saves variables under their TF names (`var.op.name`) in our format
(`checkpoint_format`) and restores from ours or from real TensorFlow checkpoints (read
natively by `tensor_bundle`), including object-based ones (TF2 `tf.train.Checkpoint`), whose
object graph maps variable names to keys. Parts of partitioned variables are saved as slices
of the full variable under its name (our format: the full tensor; TF's: sliced entries) and
restored from the full tensor, however the checkpoint's parts were cut. In graph mode values
are read from and written to the given Session; in eager mode `sess` is not used (pass None).

The `checkpoint` state file is TF's `CheckpointState` in protobuf text format
(`model_checkpoint_path: "model.ckpt-3"` ...); the message class is built at runtime
(tensorboard ships no checkpoint_state.proto). It is written last and atomically, after the
checkpoint itself, and old checkpoints are deleted only after it names the new one. Unlike
TF's Saver, ours deletes them while the state file still lists them and then writes it again
without them (as TF's CheckpointManager does): a run killed while deleting leaves them listed,
and `recover_last_checkpoints(state.all_model_checkpoint_paths)` in the next run takes them
over, so they are deleted at its next save instead of being left on disk for good.
"""
import difflib
import logging
import os
import time

import numpy as np

from tfcompat._api import tf_export
from tfcompat._version import __version__ as tfcompat_version
from tfcompat.framework import context, errors, graph, meta_graph
from tfcompat.trackable import tracking
from tfcompat.train import checkpoint_format, tensor_bundle, training_util
from tfcompat.ops import importer
from tfcompat.variables import (PartitionedVariable, Variable, VariableAggregation,
                                VariableSynchronization)
from tfcompat.framework.default_session import running_session
from tfcompat.client.session import Session
from tfcompat.framework.graph import get_default_graph
from tfcompat.variable_scope import _get_default_variable_store

_logger = logging.getLogger("tensorflow")
_state = context.state


# ---------------------------------------------------------------- the checkpoint state file


def _state_filename(save_dir, latest_filename):
    return os.path.join(save_dir, latest_filename or "checkpoint")


def _relative_to(path, directory):
    return os.path.relpath(path, directory or ".")


@tf_export(v1=["train.generate_checkpoint_state_proto"])
def generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
                                    all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None,
                                    last_preserved_timestamp=None):
    """A CheckpointState; relative paths are made relative to a relative `save_dir`."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps is not None and \
            len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError("Checkpoint timestamps, if provided, must match checkpoint paths (got "
                         "paths %s and timestamps %s)" % (paths, all_model_checkpoint_timestamps))
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = _relative_to(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else _relative_to(p, save_dir) for p in paths]
    state = tensor_bundle.protos()["CheckpointState"](
        model_checkpoint_path=model_checkpoint_path, all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps or [])
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    return state


def update_checkpoint_state_internal(save_dir, model_checkpoint_path,
                                     all_model_checkpoint_paths=None, latest_filename=None,
                                     save_relative_paths=False,
                                     all_model_checkpoint_timestamps=None,
                                     last_preserved_timestamp=None):
    from google.protobuf import text_format
    filename = _state_filename(save_dir, latest_filename)
    if save_relative_paths:
        model_checkpoint_path = _relative_to(model_checkpoint_path, save_dir) \
            if os.path.isabs(model_checkpoint_path) else model_checkpoint_path
        all_model_checkpoint_paths = [
            _relative_to(p, save_dir) if os.path.isabs(p) else p
            for p in (all_model_checkpoint_paths or [])]
    state = generate_checkpoint_state_proto(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths,
        all_model_checkpoint_timestamps, last_preserved_timestamp)
    if os.path.normpath(filename) == os.path.normpath(
            os.path.join(save_dir, state.model_checkpoint_path)):
        raise RuntimeError("Save path '%s' conflicts with path used for checkpoint state.  "
                           "Please use a different save path." % model_checkpoint_path)
    checkpoint_format.write_text_atomic(filename, text_format.MessageToString(state))


@tf_export(v1=["train.update_checkpoint_state"])
def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Write the `checkpoint` state file of `save_dir` (atomically)."""
    update_checkpoint_state_internal(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths, latest_filename, False,
        all_model_checkpoint_timestamps, last_preserved_timestamp)


@tf_export("train.get_checkpoint_state")
def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState in `checkpoint_dir` (relative paths joined to it), or None.

    As TF: a state file that cannot be read or parsed (here also one that is not UTF-8 text)
    logs a warning and gives None; one without `model_checkpoint_path` raises ValueError."""
    from google.protobuf import text_format
    filename = _state_filename(checkpoint_dir, latest_filename)
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError:
        return None
    state = tensor_bundle.protos()["CheckpointState"]()
    try:
        text_format.Parse(data.decode("utf-8"), state)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        _logger.warning("%s: %s", type(e).__name__, e)
        _logger.warning("%s: Checkpoint ignored", filename)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


@tf_export(v1=["train.checkpoint_exists"])
def checkpoint_exists(checkpoint_prefix):
    """True if a checkpoint (ours, or TF's V2/V1 format) exists with this prefix."""
    return checkpoint_format.exists(checkpoint_prefix)


@tf_export("train.latest_checkpoint")
def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint named by the state file, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        if checkpoint_exists(state.model_checkpoint_path):
            return state.model_checkpoint_path
        _logger.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


@tf_export(v1=["train.get_checkpoint_mtimes"])
def get_checkpoint_mtimes(checkpoint_prefixes):
    """Modification times of the checkpoints (those that exist)."""
    mtimes = []
    for prefix in checkpoint_prefixes:
        for name in (prefix + checkpoint_format.SUFFIX, tensor_bundle.index_filename(prefix),
                     prefix):
            if os.path.isfile(name):
                mtimes.append(os.path.getmtime(name))
                break
    return mtimes


@tf_export(v1=["train.remove_checkpoint"])
def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=2,
                      meta_graph_suffix="meta"):
    """Delete the files of a checkpoint (ours and TF's), and its `.meta` file."""
    for name in checkpoint_format.files_of(checkpoint_prefix):
        if name.endswith(".meta") and not name.endswith("." + meta_graph_suffix):
            continue
        try:
            os.remove(name)
        except OSError as e:
            _logger.warning("Ignoring: failed to delete %s: %s", name, e)


# ---------------------------------------------------------------- readers


class CheckpointReader(object):
    """`tf.train.NewCheckpointReader` / `load_checkpoint`: read any checkpoint's tensors."""

    def __init__(self, reader):
        self._reader = reader

    def get_tensor(self, tensor_str):
        return self._reader.get_tensor(_as_str(tensor_str))

    def has_tensor(self, tensor_str):
        return self._reader.has_tensor(_as_str(tensor_str))

    def get_variable_to_shape_map(self):
        return {k: self._reader.shape(k) for k in self._reader.keys()}

    def get_variable_to_dtype_map(self):
        return {k: self._reader.dtype(k) for k in self._reader.keys()}

    def debug_string(self):
        return "".join("%s (%s) %s\n" % (k, self._reader.dtype(k).name, self._reader.shape(k))
                       for k in self._reader.keys()).encode("utf-8")


def _as_str(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


@tf_export(v1=["train.NewCheckpointReader"])
def NewCheckpointReader(filepattern):  # noqa: N802 - TF's name
    return CheckpointReader(checkpoint_format.open_reader(_as_str(filepattern)))


@tf_export("train.load_checkpoint")
def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader for a checkpoint prefix or a directory (its latest checkpoint)."""
    return NewCheckpointReader(ckpt_dir_or_file)


@tf_export("train.load_variable")
def load_variable(ckpt_dir_or_file, name):
    """The value (numpy) of tensor `name` in the checkpoint; `name:0` is accepted."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


@tf_export("train.list_variables")
def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of every tensor in the checkpoint, sorted by name."""
    reader = checkpoint_format.open_reader(_as_str(ckpt_dir_or_file))
    return [(k, reader.shape(k)) for k in reader.keys()]


def _not_found(key, reader, what):
    close = difflib.get_close_matches(key, reader.keys(), n=5, cutoff=0.5)
    hint = (" Close names in the checkpoint: %s." % ", ".join(close)) if close else ""
    return errors.NotFoundError(
        "Restoring from checkpoint failed. This is most likely due to a Variable name or other "
        "graph key that is missing from the checkpoint. Please ensure that you have not altered "
        "the graph expected based on the checkpoint.\n\nKey %s not found in checkpoint %s (%s)."
        "%s" % (key, reader.prefix, what, hint))


def name_to_key_map(reader):
    """{variable name: checkpoint key}: identity for name-based checkpoints, through the object
    graph's full names for object-based ones."""
    graph = reader.object_graph()
    if graph is None:
        return None
    mapping = {}
    for node in graph.nodes:
        for attribute in node.attributes:
            if attribute.name == tracking.VARIABLE_VALUE and attribute.full_name:
                mapping.setdefault(attribute.full_name, attribute.checkpoint_key)
    return mapping


def restore_by_name(reader, names_to_variables, session=None):
    """Assign every variable its tensor in `reader` (keys are variable names)."""
    mapping = name_to_key_map(reader)
    for name, variable in names_to_variables.items():
        key = name
        if not reader.has_tensor(name) and mapping is not None:
            key = mapping.get(name, name)
        if not reader.has_tensor(key):
            raise _not_found(name, reader, "variable %s" % variable.name)
        if _is_saveable(variable):
            variable._saver_restore(reader.get_value(key), session)
        else:
            tracking.assign_variable(variable, reader.get_value(key), key, reader.prefix,
                                     session)


# ---------------------------------------------------------------- Saver


def _saveable_variables():
    return graph.get_collection("variables") + graph.get_collection("saveable_objects")


def _is_saveable(value):
    """A saveable object that is not a variable (make_saveable_from_iterator's)."""
    return hasattr(value, "_saver_value")


def _value_to_save(variable, session):
    if _is_saveable(variable):
        return variable._saver_value(session)
    return tracking.read_variable(variable, session)


class _SlicedVariable(object):
    """The parts of a partitioned variable, saved as the one tensor `checkpoint_key`: each
    part a slice of it (TF's SliceSpec saveables). `_saver_value` gives the slices
    (tensor_bundle.TensorSlices: TF's sliced entries, or the full tensor in our format);
    `_saver_restore` takes the full tensor (TF's reader assembles slices) and gives each part
    its slice, so the parts may be cut differently from those that were saved."""

    def __init__(self, name, parts):
        for part in parts:
            if part._get_save_slice_info() is None:
                raise ValueError("Variable %s is not a part of a partitioned variable (no "
                                 "save slice info) but is saved in the slices of %s"
                                 % (part.name, name))
        self.name = self.checkpoint_key = name
        self.parts = sorted(parts, key=lambda v: v._get_save_slice_info().var_offset)

    def _saver_value(self, session):
        full_shape = self.parts[0]._get_save_slice_info().full_shape
        return tensor_bundle.TensorSlices(full_shape, [
            (part._get_save_slice_info().var_offset, tracking.read_variable(part, session))
            for part in self.parts])

    def _saver_restore(self, value, session):
        full_shape = self.parts[0]._get_save_slice_info().full_shape
        if list(value.shape) != list(full_shape):
            raise errors.InvalidArgumentError(
                "Restoring from checkpoint failed: partitioned variable %s has full shape %s "
                "but the checkpoint holds shape %s under that name"
                % (self.name, full_shape, list(value.shape)))
        for part in self.parts:
            info = part._get_save_slice_info()
            region = tensor_bundle.TensorSlices.region(info.var_offset, info.var_shape)
            tracking.assign_variable(part, value[region], self.name, "checkpoint", session)


def _parts(value):
    """The parts of a PartitionedVariable or list of parts, else None."""
    return list(value) if isinstance(value, (PartitionedVariable, list, tuple)) else None


def _names_to_variables(var_list):
    """{checkpoint key: variable or saveable}, as TF's op_list_to_dict: a PartitionedVariable,
    and parts listed one by one, are saved under the full variable's name as slices."""
    if isinstance(var_list, dict):
        items = []
        for name, value in var_list.items():
            parts = _parts(value)
            items.append((name, value if parts is None else _SlicedVariable(name, parts)))
    else:
        items, sliced = [], {}
        for var in var_list:
            if _is_saveable(var):
                items.append((var.checkpoint_key, var))
                continue
            parts = [var] if isinstance(var, Variable) else _parts(var)
            if parts is None or not all(isinstance(p, Variable) for p in parts):
                raise TypeError("Variable to save is not a Variable: %r" % (var,))
            for part in parts:
                info = part._get_save_slice_info()
                if info is None:
                    items.append((part._shared_name, part))
                else:
                    sliced.setdefault(info.full_name, []).append(part)
        for name, parts in sliced.items():
            if any(key == name for key, _ in items):
                raise ValueError("Mixing slices and non-slices with the same name: %s" % name)
            items.append((name, _SlicedVariable(name, parts)))
    out = {}
    for name, var in items:
        if _is_saveable(var):
            name = var.checkpoint_key
        elif not isinstance(var, Variable):
            raise TypeError("Variable to save is not a Variable: %r (under name %r)"
                            % (var, name))
        if name in out:
            if out[name] is var:
                continue
            raise ValueError("At least two variables have the same name: %s" % name)
        out[name] = var
    return out


@tf_export(v1=["train.Saver"])
class Saver(object):
    """TF1's name-based `tf.train.Saver`, writing tfcompat checkpoints (safetensors)."""

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=2, pad_step_number=False, save_relative_paths=False,
                 filename=None):
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either "
                             "set defer_build=False or var_list=None.")
        self._eager = not _state.building_graph
        if self._eager and var_list is None:
            raise RuntimeError("When eager execution is enabled, `var_list` must specify a "
                               "list or dict of variables to save")
        self._var_list = var_list
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        self._allow_empty = allow_empty
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._sharded = sharded
        self._filename = filename
        self._last_checkpoints = []  # [(prefix, time)]
        self._names = None
        # the name scope TF's save and restore ops take ("save", "save_1", ...)
        self._scope = None if self._eager else get_default_graph().unique_name(name or "save")
        if self._eager:
            self._names = _names_to_variables(var_list)
        elif not defer_build:
            self.build()

    def build(self):
        """Resolve the variables to save (graph mode: all saveable ones by default)."""
        if self._eager:
            raise RuntimeError("Use save/restore instead of build in eager mode.")
        var_list = self._var_list if self._var_list is not None else _saveable_variables()
        self._names = _names_to_variables(var_list)
        if not self._names and not self._allow_empty:
            raise ValueError("No variables to save")

    def _built_names(self, what):
        if self._names is None:
            raise RuntimeError("`build()` should be called before %s if defer_build==True"
                               % what)
        return self._names

    @property
    def saver_def(self):
        """A SaverDef describing this saver (TF's op names have no meaning here)."""
        return self.as_saver_def()

    def as_saver_def(self):
        """TF's SaverDef: the settings, and the names TF gives the Saver's filename tensor,
        save tensor and restore op (tfcompat's Saver saves without graph ops)."""
        from tensorboard.compat.proto import saver_pb2
        scope = self._scope or "save"
        return saver_pb2.SaverDef(
            filename_tensor_name=scope + "/Const:0",
            save_tensor_name=scope + "/control_dependency:0",
            restore_op_name=scope + "/restore_all",
            max_to_keep=self._max_to_keep or 0, sharded=self._sharded,
            keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
            version=saver_pb2.SaverDef.V2)

    # ------------------------------------------------------------ last checkpoints
    @property
    def last_checkpoints(self):
        """Prefixes of the checkpoints not yet deleted, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        if not isinstance(last_checkpoints, list):
            raise TypeError("last_checkpoints must be a list")
        self._last_checkpoints = [(p, None) for p in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        if not isinstance(last_checkpoints_with_time, list):
            raise TypeError("last_checkpoints_with_time must be a list")
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths):
        """Take over existing checkpoints (e.g. after a restart), with their mtimes."""
        existing = [p for p in checkpoint_paths if checkpoint_exists(p)]
        self.set_last_checkpoints_with_time(list(zip(existing,
                                                     get_checkpoint_mtimes(existing))))

    def _record(self, prefix):
        """Add `prefix`; return the prefixes to delete once the state file is written."""
        if not self._max_to_keep:
            return []
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != prefix]
        self._last_checkpoints.append((prefix, time.time()))
        doomed = []
        while len(self._last_checkpoints) > self._max_to_keep:
            path, stamp = self._last_checkpoints.pop(0)
            if stamp is not None and self._next_checkpoint_time <= stamp:
                self._next_checkpoint_time += self._keep_checkpoint_every_n_hours * 3600
                continue
            doomed.append(path)
        return doomed

    # ------------------------------------------------------------ save / restore
    def _session(self, sess):
        if self._eager:
            return None
        if not isinstance(sess, Session):
            raise TypeError("'sess' must be a Session; %s" % (sess,))
        return sess

    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Save the variables to `save_path[-global_step]`; returns that prefix."""
        names = self._built_names("save")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = _as_str(os.fspath(save_path))
        session = self._session(sess)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = training_util.global_step(sess, global_step)
            prefix = ("%s-%08d" if self._pad_step_number else "%s-%d") % (save_path,
                                                                          int(global_step))
        else:
            prefix = save_path
        save_dir = os.path.dirname(save_path)
        if save_dir and not os.path.isdir(save_dir):
            try:    # TF's checkpoint writer creates the last directory level
                os.mkdir(save_dir)
            except OSError:
                raise ValueError("Parent directory of {} doesn't exist, can't save.".format(
                    save_path)) from None
        if not names:
            _logger.info("Skipping save: the Saver has no variables")
            return None
        checkpoint_format.write(prefix, self.values_to_save(sess))
        if write_state:
            doomed = self._record(prefix)
            if doomed:  # listed until deleted, so a crash meanwhile leaves them recoverable
                update_checkpoint_state_internal(
                    save_dir, prefix, doomed + self.last_checkpoints, latest_filename,
                    self._save_relative_paths)
                for path in doomed:
                    remove_checkpoint(path, meta_graph_suffix=meta_graph_suffix)
            update_checkpoint_state_internal(
                save_dir, prefix, self.last_checkpoints, latest_filename,
                self._save_relative_paths)
        if write_meta_graph and not self._eager:
            with session.graph.as_default():      # the graph that was saved, as TF does
                self.export_meta_graph(prefix + "." + meta_graph_suffix)
        return prefix

    def values_to_save(self, sess):
        """{checkpoint key: value} of this Saver's variables, as `save` writes them
        (SavedModel builders keep them until they write the directory)."""
        session = self._session(sess)
        return {name: _value_to_save(var, session)
                for name, var in self._built_names("save").items()}

    def restore(self, sess, save_path):
        """Restore the variables from a checkpoint (ours or TensorFlow's)."""
        names = self._built_names("restore")
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = _as_str(os.fspath(save_path))
        if not checkpoint_exists(save_path):
            raise ValueError("The passed save_path is not a valid checkpoint: " + save_path)
        session = self._session(sess)
        _logger.info("Restoring parameters from %s", save_path)
        restore_by_name(checkpoint_format.open_reader(save_path), names, session)

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False,
                          export_scope=None, clear_devices=False, clear_extraneous_savers=False,
                          strip_default_attrs=False, save_debug_info=False):
        """`export_meta_graph` of the default graph with this Saver's SaverDef."""
        return export_meta_graph(filename=filename, saver_def=self.as_saver_def(),
                                 collection_list=collection_list, as_text=as_text,
                                 export_scope=export_scope, clear_devices=clear_devices)


@tf_export(v1=["train.export_meta_graph"])
def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None,
                      collection_list=None, as_text=False, graph=None, export_scope=None,
                      clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False, **kwargs):
    """TF's `tf.train.export_meta_graph`: the MetaGraphDef of the graph (its ops, the
    collections, `saver_def`), written to `filename` (binary, or text with `as_text`).
    `import_meta_graph` rebuilds it (framework/meta_graph.py says which nodes it can).
    A given `graph_def` replaces the graph's ops (TF's use: inspection)."""
    if not _state.building_graph and graph is None:
        raise RuntimeError("Exporting/importing meta graphs is not supported when eager "
                           "execution is enabled. No graph exists when eager execution is "
                           "enabled.")
    graph = graph if graph is not None else get_default_graph()
    meta = meta_graph.export_scoped_meta_graph(
        graph, meta_info_def=meta_info_def, saver_def=saver_def,
        collection_list=collection_list, export_scope=export_scope,
        clear_devices=clear_devices)
    meta.meta_info_def.tensorflow_version = "tfcompat-" + tfcompat_version
    if graph_def is not None:
        meta.graph_def.CopyFrom(graph_def)
    if filename:
        write_meta_graph(filename, meta, as_text)
    return meta


def write_meta_graph(filename, meta, as_text=False):
    """Write MetaGraphDef `meta` to `filename` atomically (binary, or protobuf text)."""
    from google.protobuf import text_format
    data = text_format.MessageToString(meta).encode("utf-8") if as_text \
        else meta.SerializeToString()
    with checkpoint_format.atomic_file(os.fspath(filename)) as f:
        f.write(data)


def read_meta_graph_file(filename):
    """The MetaGraphDef in `filename`, binary or text as TF reads it; NotFoundError when
    there is none, DataLossError when it parses as neither."""
    from google.protobuf import text_format
    from tensorboard.compat.proto import meta_graph_pb2
    filename = _as_str(os.fspath(filename))
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError as error:
        raise errors.NotFoundError(None, None, "%s; No such file or directory (%s)"
                                   % (filename, error)) from None
    meta = meta_graph_pb2.MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except Exception:       # noqa: BLE001 - protobuf's DecodeError: maybe the text format
        pass
    try:
        text_format.Parse(data.decode("utf-8"), meta)
    except (text_format.ParseError, UnicodeDecodeError) as error:
        raise errors.DataLossError(None, None, "%s is not a MetaGraphDef: it parses neither as "
                                   "a binary nor as a text proto (%s)" % (filename, error)) \
            from None
    return meta


def _imported_variable(initial_value, name, trainable, shape):
    """A TF1 graph variable rebuilt by `import_meta_graph` (its collections come after)."""
    return Variable(initial_value, trainable=trainable, collections=[], name=name,
                    shape=shape)


class _TFGraphVariable(Variable):
    """A TF1 graph variable of a meta graph written by real TensorFlow: its handle is the
    imported VariableV2 / VarHandleOp node (a storage input of the graph, named and typed
    as that node), so the imported Assign, ApplyAdam, ReadVariableOp, ... nodes update and
    read it. Its VariableDef gives the rest once the graph is built (`_bind_variable_def`).
    Ref and resource variables alike behave as tfcompat's (resource) variables. Made
    without Variable.__init__, which would add an initial value and initializer nodes."""

    def __init__(self, name, dtype, shape, op_type):
        graph = self._graph = get_default_graph()
        self._leaf = None
        self._trainable = False
        self._constraint = None
        self._synchronization = VariableSynchronization.AUTO
        self._aggregation = VariableAggregation.NONE
        self._shared_name = name
        self._name = name + ":0"
        self._dtype, self._shape = dtype, shape
        self._initializer_op = None
        self._fake = graph._fake_for_shape(shape, dtype)
        self._handle = graph.variable_input(self)
        self._handle.op.type = op_type
        self._initial_value = self._handle

    def _storage_meta(self):
        return self._fake

    def _bind_variable_def(self, definition, element):
        """Trainability, initializer op and initial value from `definition` (a VariableDef;
        `element(name)` is the imported tensor or op of that name)."""
        self._trainable = definition.trainable
        if definition.initializer_name:
            self._initializer_op = element(definition.initializer_name)
        if definition.initial_value_name:
            self._initial_value = element(definition.initial_value_name)


def _import_tf_graph_def(graph):
    def import_nodes(graph_def, scope):
        return importer.import_graph_def_with_variables(graph_def, graph, scope,
                                                        _TFGraphVariable)
    return import_nodes


def import_meta_graph_into(meta_graph_def, graph, import_scope=None, clear_devices=False):
    """Rebuild a MetaGraphDef (written by tfcompat or by real TensorFlow) into `graph`;
    returns {name in the file ("w:0"): variable} (what `import_meta_graph` and SavedModel
    loading share)."""
    return meta_graph.import_scoped_meta_graph(meta_graph_def, graph, _imported_variable,
                                               _import_tf_graph_def(graph), import_scope,
                                               clear_devices)


@tf_export(v1=["train.import_meta_graph"])
def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """TF's `tf.train.import_meta_graph`: rebuild a meta graph (a MetaGraphDef or a `.meta`
    file, written by tfcompat or by real TensorFlow) into the default graph, names under
    `import_scope`, devices dropped with `clear_devices` (a real TF graph's are never kept).
    Returns a Saver of its variables, restoring each from its name in the file, as TF's
    restore ops do (None when there are no variables)."""
    if not _state.building_graph:
        raise RuntimeError("Exporting/importing meta graphs is not supported. No graph exists "
                           "when eager execution is enabled.")
    meta = meta_graph_or_file if hasattr(meta_graph_or_file, "graph_def") \
        else read_meta_graph_file(meta_graph_or_file)
    variables = import_meta_graph_into(meta, get_default_graph(), import_scope, clear_devices)
    return saver_for_imported(meta, variables)


def saver_for_imported(meta, variables):
    """The Saver TF makes for an imported meta graph: its SaverDef's settings, saving and
    restoring the global variables under their names in the file; None without variables."""
    global_names = set()
    for collection_key in ("variables",):
        collection = meta.collection_def.get(collection_key)
        if collection is not None:
            global_names.update(meta_graph.variable_names(collection))
    var_list = {name[:-2]: variable for name, variable in variables.items()
                if name in global_names}
    if not var_list:
        _logger.info("Saver not created because there are no variables in the graph to "
                     "restore")
        return None
    saver_def = meta.saver_def if meta.HasField("saver_def") else None
    return Saver(var_list, max_to_keep=saver_def.max_to_keep if saver_def else 5,
                 keep_checkpoint_every_n_hours=saver_def.keep_checkpoint_every_n_hours
                 if saver_def and saver_def.keep_checkpoint_every_n_hours else 10000.0,
                 saver_def=saver_def)


# ---------------------------------------------------------------- init_from_checkpoint


def _set_initializer(variable, value, key, source):
    """The variable's initializer loads the checkpoint value (graph mode, as TF does);
    eager variables take it at once."""
    if variable._graph is None:
        tracking.assign_variable(variable, value, key, source)
        return

    def initialize():
        tracking.assign_variable(variable, value, key, source, running_session())

    variable._initializer_op = variable._graph.record_custom(
        initialize, "Assign", [], None, name=variable._shared_name + "/Assign/")


def _set_initializers(var_or_parts, reader, key):
    """Initialize a variable from checkpoint tensor `key`, or the parts of a partitioned one
    each from its slice of it (TF's slice spec)."""
    value = reader.get_value(key)
    if isinstance(var_or_parts, Variable):
        _set_initializer(var_or_parts, value, key, reader.prefix)
        return
    for part in var_or_parts:
        info = part._get_save_slice_info()
        if info is None or list(value.shape) != info.full_shape:
            raise ValueError("Shape of partitioned variable %s (%s) doesn't match with shape of "
                             "tensor %s (%s) from checkpoint reader." % (
                                 part.name, None if info is None else info.full_shape, key,
                                 list(value.shape)))
        region = tensor_bundle.TensorSlices.region(info.var_offset, info.var_shape)
        _set_initializer(part, value[region], key, reader.prefix)


def _store_variable(name, store):
    """Variable `name` of the variable store, or the list of its parts "name/part_0",
    "name/part_1", ... when it is partitioned, or None."""
    if name in store:
        return store[name]
    parts = []
    while "%s/part_%d" % (name, len(parts)) in store:
        parts.append(store["%s/part_%d" % (name, len(parts))])
    return parts or None


def _is_part_list(value):
    return isinstance(value, PartitionedVariable) or (
        isinstance(value, list) and value and all(isinstance(v, Variable) for v in value))


@tf_export(v1=["train.init_from_checkpoint"])
def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Initialize variables made by `get_variable` from a checkpoint, by `assignment_map`:
    {'ckpt_scope/': 'scope/'} (every variable under a scope), {'/': '/'} (all, by name),
    {'ckpt/name': 'scope/name'} or {'ckpt/name': variable or list of parts}. Graph variables
    get an initializer that loads the value; eager ones are assigned at once. A partitioned
    variable is named by its full name and its parts take their slices of the tensor (here a
    PartitionedVariable is also accepted as the list of its parts)."""
    reader = checkpoint_format.open_reader(_as_str(ckpt_dir_or_file))
    shapes = {k: reader.shape(k) for k in reader.keys()}
    store = _get_default_variable_store()._vars
    items = assignment_map.items() if isinstance(assignment_map, dict) else assignment_map
    for ckpt_name, target in sorted(items, key=lambda kv: kv[0]):
        var = target if isinstance(target, Variable) or _is_part_list(target) else \
            _store_variable(target, store)
        if var is not None:
            if ckpt_name not in shapes:
                raise ValueError("Tensor %s is not found in %s checkpoint %s"
                                 % (ckpt_name, ckpt_dir_or_file, shapes))
            if isinstance(var, Variable) and \
                    not var.shape.is_compatible_with(shapes[ckpt_name]):
                raise ValueError("Shape of variable %s (%s) doesn't match with shape of tensor "
                                 "%s (%s) from checkpoint reader." % (
                                     var.name, var.shape, ckpt_name, shapes[ckpt_name]))
            _set_initializers(var, reader, ckpt_name)
            continue
        scope = target[:target.rindex("/")] if "/" in target else ""
        if not ckpt_name.endswith("/"):
            raise ValueError("Assignment map with scope only name {} should map to scope only "
                             "{}. Should be 'scope/': 'other_scope/'.".format(scope, ckpt_name))
        names = sorted({n[:n.index("/part_")] if "/part_" in n else n for n in store})
        for var_name in names:
            if scope and not var_name.startswith(scope + "/"):
                continue
            full = var_name[len(scope):]
            if target != "/":
                full = full[1:]
            if ckpt_name != "/":
                full = ckpt_name + full
            full = full.rstrip("/")
            if full not in shapes:
                close = difflib.get_close_matches(full, list(shapes), n=3, cutoff=0.5)
                raise ValueError("Tensor %s (%s in %s) is not found in %s checkpoint%s" % (
                    full, var_name[len(scope) + 1:], ckpt_name, ckpt_dir_or_file,
                    " (close names: %s)" % ", ".join(close) if close else ""))
            _set_initializers(_store_variable(var_name, store), reader, full)
