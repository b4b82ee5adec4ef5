"""TF1 readers (`tf.TFRecordReader`, `tf.TextLineReader`, `tf.WholeFileReader`,
`tf.FixedLengthRecordReader`, `tf.IdentityReader`) and `tf.io.matching_files`.

A reader is a resource like a queue (one per Session, see `data_flow_ops.PerSession`):
`read(queue)` takes the next work unit (a filename) from a string queue when it has none,
and returns the next (key, value) record of it; `read_up_to` returns up to n records, never
more than one work unit's. Keys are TF's: "<file>:<byte offset>" (TFRecord),
"<file>:<line number from 1, header lines counted>" (text), "<file>:<record index>"
(fixed length), the filename (whole file). When the queue is closed and empty, reads raise
its `OutOfRangeError`. TFRecord framing and CRC checks are `tfcompat.io.tf_record`'s
(`DataLossError` on damage); text lines drop '\\r' characters as TF's line reader does; a
fixed-length file's trailing partial record is ignored, as TF's reader does. A work unit
whose file cannot be read is dropped after raising its error. Readers raise RuntimeError when
eager execution is enabled, as in TF.
"""
import itertools
import threading
import weakref

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.tensor import Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.io.gfile import _open_for_read, glob
from tfcompat.io.tf_record import TFRecordOptions, _open_records, read_records
from tfcompat.ops.data_flow_ops import (PerSession, QueueBase, handle_value, queue_spec,
                                        resource_handle_op, run_resource_op, scalar_string)

_handle_ids = itertools.count()


def _path(work):
    return work.decode("utf-8", "surrogateescape")


def _check_graph_mode():
    if context.executing_eagerly():
        raise RuntimeError("Readers are not supported when eager execution is enabled. "
                           "Instead, please use tf.data to get data into your model.")


def _work_unit(element):
    (value,) = element
    values = np.asarray(value, dtype=object).reshape(-1)
    if values.size != 1:
        raise errors.InvalidArgumentError("Expected to dequeue a one-element string tensor, "
                                          "got %d elements" % values.size)
    return bytes(values[0])


class _ReaderState(object):
    """One reader resource: the work unit being read and the reader's counters."""

    def __init__(self, records):
        self._records = records
        self._lock = threading.Lock()
        self._reset()

    def _reset(self):
        self._current = None
        self.produced = 0
        self.completed = 0

    def reset(self):
        with self._lock:
            self._reset()

    def read(self, queue_state, limit):
        """Up to `limit` (key, value) pairs; a new work unit is started only while none were
        produced in this call."""
        out = []
        with self._lock:
            while len(out) < limit:
                if self._current is None:
                    if out:
                        break
                    self._current = self._records(_work_unit(queue_state.dequeue(1, False)[0]))
                try:
                    record = next(self._current, None)
                except Exception:
                    self._current = None
                    raise
                if record is None:
                    self._current = None
                    self.completed += 1
                    if out:
                        break
                    continue
                out.append(record)
                self.produced += 1
        return out


class _ReaderResource(object):
    def __init__(self, records):
        self.handle = ("reader-%d" % next(_handle_ids)).encode()
        self.op_name = None
        self._instances = PerSession(self, lambda session: _ReaderState(records))

    def state(self):
        return self._instances.get()


def _strings(values, shape):
    out = np.empty(shape, dtype=object)
    out.reshape(-1)[:] = values
    return out


@tf_export(v1=["ReaderBase"])
class ReaderBase(object):
    """TF1's reader base class: read, read_up_to, num_records_produced,
    num_work_units_completed, reset (serialize_state / restore_state raise
    UnimplementedError when run, as they do for TF's file readers)."""

    def __init__(self, reader_ref, supports_serialize=False):
        _check_graph_mode()
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self):
        return self._reader_ref

    @property
    def supports_serialize(self):
        return self._supports_serialize

    def _state(self, handle):
        resource = _resources.get(handle_value(handle))
        if resource is None:
            raise errors.NotFoundError("Resource %r of a reader does not exist"
                                       % handle_value(handle))
        return resource.state()

    def _queue_ref(self, queue):
        ref = queue if isinstance(queue, Tensor) else queue.queue_ref
        if isinstance(queue, QueueBase) and queue.dtypes != [dtypes.string]:
            raise TypeError("A reader reads work units (filenames) from a queue of single "
                            "strings, not of %s" % [d.name for d in queue.dtypes])
        return ref

    def read(self, queue, name=None):
        """The next (key, value) record, scalar strings."""
        def read(reader, work_queue):
            ((key, value),) = self._state(reader).read(queue_spec(work_queue).state(), 1)
            return scalar_string(key), scalar_string(value)
        scalar = TensorShape([])
        return tuple(run_resource_op(read, "ReaderReadV2", [self._reader_ref,
                                                            self._queue_ref(queue)],
                                     [(dtypes.string, scalar), (dtypes.string, scalar)],
                                     name))

    def read_up_to(self, queue, num_records, name=None):
        """Up to `num_records` (keys, values), 1-D strings (fewer at the end of a file)."""
        def read_up_to(reader, work_queue, count):
            count = int(count)
            if count <= 0:
                raise errors.InvalidArgumentError("num_records (%d) must be > 0" % count)
            records = self._state(reader).read(queue_spec(work_queue).state(), count)
            return (_strings([k for k, _ in records], len(records)),
                    _strings([v for _, v in records], len(records)))
        vector = TensorShape([None])
        count = ops.convert_to_tensor(num_records, dtype=dtypes.int64)
        return tuple(run_resource_op(read_up_to, "ReaderReadUpToV2",
                                     [self._reader_ref, self._queue_ref(queue), count],
                                     [(dtypes.string, vector), (dtypes.string, vector)], name))

    def _counter(self, attribute, op_type, name):
        def count(reader):
            return (torch.tensor(getattr(self._state(reader), attribute), dtype=torch.int64),)
        return run_resource_op(count, op_type, [self._reader_ref],
                               [(dtypes.int64, TensorShape([]))], name)[0]

    def num_records_produced(self, name=None):
        """An int64 scalar: records this reader has produced."""
        return self._counter("produced", "ReaderNumRecordsProducedV2", name)

    def num_work_units_completed(self, name=None):
        """An int64 scalar: work units (files) this reader has finished."""
        return self._counter("completed", "ReaderNumWorkUnitsCompletedV2", name)

    def reset(self, name=None):
        """An op restoring the reader to its initial state (no work, counters 0)."""
        def reset(reader):
            self._state(reader).reset()
        return run_resource_op(reset, "ReaderResetV2", [self._reader_ref], None, name)

    def _unimplemented(self, op_type):
        def fail(*values):
            raise errors.UnimplementedError("Reader %s is not implemented for %s by tfcompat "
                                            "(nor by TensorFlow's file readers)"
                                            % (op_type, type(self).__name__))
        return fail

    def serialize_state(self, name=None):
        return run_resource_op(self._unimplemented("SerializeState"),
                               "ReaderSerializeStateV2", [self._reader_ref],
                               [(dtypes.string, TensorShape([]))], name)[0]

    def restore_state(self, state, name=None):
        state = ops.convert_to_tensor(state, dtype=dtypes.string)
        return run_resource_op(self._unimplemented("RestoreState"), "ReaderRestoreStateV2",
                               [self._reader_ref, state], None, name)


_resources = weakref.WeakValueDictionary()


class _FileReader(ReaderBase):
    """Creates the reader op over `records(filename bytes)` -> iterator of (key, value)."""

    def __init__(self, records, op_type, name):
        _check_graph_mode()
        resource = _ReaderResource(records)
        _resources[resource.handle] = resource
        super(_FileReader, self).__init__(resource_handle_op(resource, op_type, name))


@tf_export(v1=["WholeFileReader"])
class WholeFileReader(_FileReader):
    """Each file is one record: key = the filename, value = its contents."""

    def __init__(self, name=None):
        super(WholeFileReader, self).__init__(self._records, "WholeFileReaderV2", name)

    @staticmethod
    def _records(work):
        with _open_for_read(_path(work)) as f:
            yield work, f.read()


@tf_export(v1=["IdentityReader"])
class IdentityReader(_FileReader):
    """Each work unit is one record: key and value are the work string."""

    def __init__(self, name=None):
        super(IdentityReader, self).__init__(lambda work: iter([(work, work)]),
                                             "IdentityReaderV2", name)


@tf_export(v1=["TFRecordReader"])
class TFRecordReader(_FileReader):
    """The records of TFRecord files (`options`: TFRecordOptions or compression type)."""

    def __init__(self, name=None, options=None):
        compression = TFRecordOptions.get_compression_type_string(options)

        def records(work):
            offset = 0
            for record in read_records(_path(work), compression):
                yield b"%s:%d" % (work, offset), record
                offset += len(record) + 16
        super(TFRecordReader, self).__init__(records, "TFRecordReaderV2", name)


@tf_export(v1=["TextLineReader"])
class TextLineReader(_FileReader):
    """The lines of text files without line ends, after `skip_header_lines`."""

    def __init__(self, skip_header_lines=None, name=None):
        skip = int(skip_header_lines or 0)

        def records(work):
            f = _open_records(_path(work), "", None)
            try:
                for number, line in enumerate(f, 1):
                    ended = line.endswith(b"\n")
                    line = line.replace(b"\r", b"").rstrip(b"\n")
                    if not ended and not line:
                        return
                    if number > skip:
                        yield b"%s:%d" % (work, number), line
            finally:
                f.close()
        super(TextLineReader, self).__init__(records, "TextLineReaderV2", name)


@tf_export(v1=["FixedLengthRecordReader"])
class FixedLengthRecordReader(_FileReader):
    """Records of `record_bytes` bytes after `header_bytes`, each `hop_bytes` (default:
    `record_bytes`) after the previous, while a whole record and `footer_bytes` remain;
    `encoding` "ZLIB"/"GZIP" for compressed files."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        record_bytes = int(record_bytes)
        header = int(header_bytes or 0)
        footer = int(footer_bytes or 0)
        hop = int(hop_bytes or 0) or record_bytes
        if record_bytes <= 0:
            raise ValueError("record_bytes must be positive, got %d" % record_bytes)
        compression = TFRecordOptions.get_compression_type_string(encoding)

        def records(work):
            f = _open_records(_path(work), compression, None)
            try:
                data = f.read()
            finally:
                f.close()
            for index, start in enumerate(range(header, len(data) - record_bytes - footer + 1,
                                                hop)):
                yield b"%s:%d" % (work, index), data[start:start + record_bytes]
        super(FixedLengthRecordReader, self).__init__(records, "FixedLengthRecordReaderV2",
                                                      name)


@tf_export("io.matching_files", v1=["io.matching_files", "matching_files"])
def matching_files(pattern, name=None):
    """The sorted names of the files matching a glob pattern (or a 1-D list of patterns)."""
    pattern = ops.convert_to_tensor(pattern, dtype=dtypes.string)

    def match(patterns):
        found = [name.encode() for name in glob([bytes(p) for p in patterns.reshape(-1)])]
        return (_strings(found, len(found)),)
    return run_resource_op(match, "MatchingFiles", [pattern],
                           [(dtypes.string, TensorShape([None]))], name)[0]
