"""Event files: `EventLog` (one file, written in the background), TF1's `tf.summary.FileWriter`
and `tf.summary.FileWriterCache`.

`EventLog` frames records with tensorboard's `RecordWriter` (its TFRecord framing, with the
CRC32C computed by google-crc32c's C code when that is installed: tensorboard's own CRC is a
Python loop costing ~50 us of GIL time per event) and writes through tensorboard's GFile.
Events are serialized by the caller and handed to a background thread in batches: it is
woken once `max_queue` events are pending (not per event, so a training loop logging every
step pays no thread switch per step), at each flush and every `flush_secs`, when it writes and
flushes the file. A caller blocks only while 2 * `max_queue` events are pending. Files are
named `events.out.tfevents.<time>.<host>.<pid>.<n><suffix>` as TF 2's writers name them. Every
log still open is closed (so flushed) at interpreter exit; a crash loses at most the last
`flush_secs` of events.
"""
import atexit
import itertools
import logging
import os
import socket
import struct
import sys
import threading
import time
import types
import weakref

import numpy as np

from tensorboard.compat.proto import event_pb2, graph_pb2, meta_graph_pb2, summary_pb2

from tfcompat._api import tf_export  # noqa: E402
from tfcompat.framework import context  # noqa: E402
from tfcompat.framework.graph import get_default_graph

try:
    import google_crc32c
except ImportError:
    google_crc32c = None

_logger = logging.getLogger("tensorflow")
_open_logs = weakref.WeakSet()
_file_numbers = itertools.count()


def _masked_crc32c(data):
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


class _FastCrcRecordWriter(object):
    """tensorboard's RecordWriter with a C CRC32C (same framing: length, masked CRC of the
    length, data, masked CRC of the data). Not a subclass: importing tensorboard's writer
    loads its TensorFlow stand-in (fsspec, absl), which only `EventLog` needs."""

    def __init__(self, writer):
        self._writer = writer

    def write(self, data):
        header = struct.pack("<Q", len(data))
        self._writer.write(header + struct.pack("<I", _masked_crc32c(header)) + data +
                           struct.pack("<I", _masked_crc32c(data)))

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()


class EventLog(object):
    """One event file in `logdir`, written by a background thread (see the module doc)."""

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=""):
        from tensorboard.compat import tf as _tb_io
        from tensorboard.summary.writer.record_writer import RecordWriter
        self.logdir = str(logdir)
        _tb_io.io.gfile.makedirs(self.logdir)
        self.path = os.path.join(self.logdir, "events.out.tfevents.%010d.%s.%s.%s%s" % (
            time.time(), socket.gethostname(), os.getpid(), next(_file_numbers),
            filename_suffix))
        record_writer = RecordWriter if google_crc32c is None else _FastCrcRecordWriter
        self._records = record_writer(_tb_io.io.gfile.GFile(self.path, "wb"))
        self._records.write(event_pb2.Event(
            wall_time=time.time(), file_version="brain.Event:2").SerializeToString())
        self._records.flush()
        self._batch = max(int(max_queue), 1)
        self._flush_secs = flush_secs
        self._pending = []
        self._flushes_asked = self._flushes_done = 0
        self._error = None
        self.closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="tfcompat-events", daemon=True)
        self._thread.start()
        _open_logs.add(self)

    def add_event(self, event):
        """Queue `event` (wall_time set to now if unset)."""
        if event.wall_time == 0:
            event.wall_time = time.time()
        data = event.SerializeToString()
        with self._cond:
            self._check()
            while len(self._pending) >= 2 * self._batch and self._error is None:
                self._cond.wait()
            self._pending.append(data)
            if len(self._pending) >= self._batch:
                self._cond.notify_all()

    def flush(self):
        """Write everything queued so far to the file, and wait for it."""
        with self._cond:
            if self.closed:
                return
            self._flushes_asked += 1
            target = self._flushes_asked
            self._cond.notify_all()
            while self._flushes_done < target and self._error is None:
                self._cond.wait()
            self._check()

    def close(self):
        """Flush, stop the thread and close the file."""
        if self.closed:
            return
        self.flush()
        with self._cond:
            self.closed = True
            self._cond.notify_all()
        self._thread.join()
        self._records.close()
        _open_logs.discard(self)

    def _check(self):
        if self._error is not None:
            raise IOError("Writing the event file %s failed: %s" % (self.path, self._error))

    def _run(self):
        next_flush = time.time() + self._flush_secs
        try:
            while True:
                with self._cond:
                    while not (len(self._pending) >= self._batch or self.closed or
                               self._flushes_asked > self._flushes_done or
                               time.time() >= next_flush):
                        self._cond.wait(max(next_flush - time.time(), 0))
                    batch, self._pending = self._pending, []
                    asked, closing = self._flushes_asked, self.closed
                    self._cond.notify_all()
                for data in batch:
                    self._records.write(data)
                if asked > self._flushes_done or closing or time.time() >= next_flush:
                    self._records.flush()
                    next_flush = time.time() + self._flush_secs
                with self._cond:
                    self._flushes_done = asked
                    self._cond.notify_all()
                if closing:
                    return
        except Exception as e:  # surfaced to the caller at its next add_event / flush
            with self._cond:
                self._error = e
                self._cond.notify_all()


@atexit.register
def _close_all():
    for log in list(_open_logs):
        log.close()


def serialized_graph_def(graph):
    """A tf.Graph (with shapes) or GraphDef -> GraphDef."""
    if isinstance(graph, graph_pb2.GraphDef):
        return graph
    if hasattr(graph, "as_graph_def"):
        return graph.as_graph_def(add_shapes=True)
    raise TypeError("Expected a tf.Graph or a GraphDef proto, got %s" % type(graph).__name__)


@tf_export(v1=["summary.FileWriter"])
class FileWriter(object):
    """`tf.summary.FileWriter(logdir, graph=None, max_queue=10, flush_secs=120, ...)`: writes
    `Summary` protos, graphs and events to a new event file in `logdir`."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        if context.executing_eagerly():
            raise RuntimeError(
                "v1.summary.FileWriter is not compatible with eager execution. Use "
                "`tf.summary.create_file_writer` (or tf.contrib.summary.create_file_writer), "
                "or a `with tf.Graph().as_default():` context")
        if session is not None:
            raise NotImplementedError(
                "FileWriter(session=...) writes through TF's graph summary-writer ops, which "
                "tfcompat does not have; leave `session` out to write from Python")
        self._args = (logdir, max_queue, flush_secs, filename_suffix or "")
        self._log = EventLog(*self._args)
        self._seen_summary_tags = set()
        self._lock = threading.Lock()
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            graph_def = serialized_graph_def(graph if graph is not None else graph_def)
            self.add_meta_graph(meta_graph_pb2.MetaGraphDef(graph_def=graph_def))

    def get_logdir(self):
        return self._log.logdir

    def add_event(self, event):
        """Write an `Event` proto as it is (a no-op, with a warning, once closed)."""
        if self._log.closed:
            _logger.warning("Attempting to use a closed FileWriter. The operation will be a "
                            "noop unless the FileWriter is explicitly reopened.")
            return
        self._log.add_event(event)

    def _add_event(self, event, step=None):
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Write a `Summary` proto or its serialized bytes (what `sess.run(merged)` returns).

        As in TF, plugin metadata is kept only on the first value of each tag.
        """
        if hasattr(summary, "numpy"):
            summary = summary.numpy()
        if isinstance(summary, np.ndarray) and summary.ndim == 0:
            summary = summary.item()
        if isinstance(summary, (bytes, bytearray)):
            summary = summary_pb2.Summary.FromString(bytes(summary))
        if not isinstance(summary, summary_pb2.Summary):
            raise TypeError("add_summary expects a Summary proto or its serialized bytes, "
                            "got %s" % type(summary).__name__)
        with self._lock:
            for value in summary.value:
                if not value.HasField("metadata"):
                    continue
                if value.tag in self._seen_summary_tags:
                    value.ClearField("metadata")
                else:
                    self._seen_summary_tags.add(value.tag)
        self._add_event(event_pb2.Event(summary=summary), global_step)

    def add_session_log(self, session_log, global_step=None):
        self._add_event(event_pb2.Event(session_log=session_log), global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Write the graph (a tf.Graph, or a GraphDef) for TensorBoard's Graphs tab."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if graph is None and graph_def is None:
            raise ValueError("Either graph or graph_def must be given.")
        if graph is None or isinstance(graph, graph_pb2.GraphDef):
            _logger.warning("Passing a `GraphDef` to the SummaryWriter is deprecated. Pass a "
                            "`Graph` object instead, such as `sess.graph`.")
        true_graph_def = serialized_graph_def(graph if graph is not None else graph_def)
        self._add_event(event_pb2.Event(graph_def=true_graph_def.SerializeToString()),
                        global_step)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        if not isinstance(meta_graph_def, meta_graph_pb2.MetaGraphDef):
            raise TypeError("meta_graph_def must be type MetaGraphDef, saw type: %s"
                            % type(meta_graph_def))
        self._add_event(event_pb2.Event(meta_graph_def=meta_graph_def.SerializeToString()),
                        global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Write a `tf.RunMetadata` proto under `tag`.

        tfcompat's Session does not fill RunMetadata (no step stats), so TensorBoard shows
        what the proto holds, which is usually nothing.
        """
        if not hasattr(run_metadata, "SerializeToString"):
            raise TypeError("run_metadata must be a tf.RunMetadata proto, got %s"
                            % type(run_metadata).__name__)
        tagged = event_pb2.TaggedRunMetadata(
            tag=tag, run_metadata=run_metadata.SerializeToString())
        self._add_event(event_pb2.Event(tagged_run_metadata=tagged), global_step)

    def flush(self):
        """Write everything queued to disk."""
        self._log.flush()

    def close(self):
        """Flush and close the event file; `reopen()` starts a new one."""
        self._log.close()

    def reopen(self):
        """After `close()`, open a new event file in the same logdir."""
        if self._log.closed:
            self._log = EventLog(*self._args)

    def __enter__(self):
        return self

    def __exit__(self, *unused):
        self.close()


@tf_export(v1=["summary.FileWriterCache"])
class FileWriterCache(object):
    """One `FileWriter` per logdir (with the default graph), shared by whoever asks."""

    _cache = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir):
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(logdir)
            if writer is None:
                writer = FileWriterCache._cache[logdir] = FileWriter(
                    logdir, graph=get_default_graph())
            return writer

    @staticmethod
    def clear():
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache.clear()
