"""TF2 summaries: `tf.summary.create_file_writer`, the default writer and step, `record_if`,
`scalar/histogram/image/text/audio/write/graph`, `trace_on/trace_export`.

The writer state (default writer, step, recording condition) is per thread, as in TF, and is
shared with `tf.contrib.summary` (TF 1.x's name for the same machinery). A write happens at
once in eager mode; inside a graph (a `tf.function` trace, a TF1 graph) it is a node that
writes each time it runs, taking the step and the recording condition as inputs.

TF2 summaries are tensor summaries with TensorBoard plugin metadata, as TF2's (tensorboard's)
`tf.summary.*` write them: scalars as float32 tensors (scalars plugin), histograms as
[buckets, 3] tensors, images as [w, h, png...] string tensors.

For Python callers inside tfcompat (the Keras TensorBoard callback): make a writer with
`create_file_writer(logdir)`, then `with writer.as_default(step=step):` call `scalar(tag,
value)`, `histogram`, `image`, `text`, `write(tag, tensor, metadata=...)` or `graph(graph)`;
`writer.flush()` / `writer.close()`.
"""
import contextlib
import functools
import logging
import re
import threading
import weakref

import numpy as np
import torch
from tensorboard.compat.proto import (config_pb2, event_pb2, graph_pb2, summary_pb2,
                                      tensor_pb2, tensor_shape_pb2, types_pb2)
from tensorboard.plugins.audio import metadata as audio_metadata
from tensorboard.plugins.image import metadata as image_metadata
from tensorboard.plugins.scalar import metadata as scalar_metadata
from tensorboard.plugins.text import metadata as text_metadata

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.graph import Graph, get_default_graph
from tfcompat.framework.tensor import EagerTensor
from tfcompat.summary import encoding as enc
from tfcompat.summary.summary import tensor_value, to_numpy
from tfcompat.summary.writer import EventLog, serialized_graph_def
from tfcompat.function import live_function_graphs

_logger = logging.getLogger("tensorflow")

SUMMARY_COLLECTION = "_SUMMARY_V2"
WRITER_INIT_COLLECTION = "_SUMMARY_WRITER_V2"


class _State(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None
        self.is_recording = None    # None: the default (v2: record; contrib: do not)


state = _State()


# ---------------------------------------------------------------- writers


@tf_export(v2=["summary.SummaryWriter"])
class SummaryWriter(object):
    """TF2's summary writer interface: `as_default`, `set_as_default`, `init`, `flush`,
    `close`."""

    def set_as_default(self, step=None):
        """Make this the default writer (and `step` the default step) from now on."""
        state.writer = self
        if step is not None:
            state.step = step

    @contextlib.contextmanager
    def as_default(self, step=None):
        """Default writer (and step) inside the block; the writer is flushed when the block
        ends (except in a TF1 graph, as in TF)."""
        old_writer, old_step = state.writer, state.step
        try:
            state.writer = self
            if step is not None:
                state.step = step
            yield self
            if context.executing_eagerly():
                self.flush()
        finally:
            state.writer, state.step = old_writer, old_step

    def init(self):
        raise NotImplementedError()

    def flush(self):
        raise NotImplementedError()

    def close(self):
        raise NotImplementedError()


class FileSummaryWriter(SummaryWriter):
    """A writer of one event file (TF's ResourceSummaryWriter over a file writer).

    Eagerly, the file is created at once. In a TF1 graph it is created by the op in
    `tf.contrib.summary.summary_writer_initializer_op()` (or by the first write); `init`,
    `flush` and `close` return ops there.
    """

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self._args = (logdir, max_queue, flush_millis / 1000.0, filename_suffix)
        self._log = None
        self._closed = False
        self._lock = threading.Lock()
        if context.executing_eagerly():
            self._open()
        else:
            get_default_graph().add_to_collection(WRITER_INIT_COLLECTION, self.init())

    @property
    def logdir(self):
        return self._args[0]

    def _open(self):
        with self._lock:
            if self._log is None or (self._log.closed and not self._closed):
                self._log = EventLog(*self._args)
            return self._log

    def write_event(self, event):
        """Queue an `Event` proto for the file (used by every summary function)."""
        if self._closed:
            raise errors.FailedPreconditionError(
                "The summary writer for %s was closed; create a new one with "
                "tf.summary.create_file_writer" % self.logdir)
        self._open().add_event(event)

    def write_summary(self, summary, step):
        self.write_event(event_pb2.Event(summary=summary, step=int(step)))

    def _graph_op(self, fn, op_type):
        return get_default_graph().record_custom(fn, op_type, [], None)

    def init(self):
        if context.executing_eagerly():
            self._open()
            return None
        return self._graph_op(self._open, "CreateSummaryFileWriter")

    def flush(self):
        if not context.executing_eagerly():
            return self._graph_op(self._flush, "FlushSummaryWriter")
        self._flush()
        return None

    def _flush(self):
        if self._log is not None:
            self._log.flush()

    def close(self):
        if not context.executing_eagerly():
            return self._graph_op(self._close, "CloseSummaryWriter")
        self._close()
        return None

    def _close(self):
        self._closed = True
        if self._log is not None:
            self._log.close()

    def set_as_default(self, step=None):
        if self._closed:
            raise RuntimeError("SummaryWriter is already closed")
        super(FileSummaryWriter, self).set_as_default(step)


class NoopSummaryWriter(SummaryWriter):
    """`tf.summary.create_noop_writer()`: a writer that writes nothing (and, as in TF, does
    not become the default)."""

    def set_as_default(self, step=None):
        pass

    @contextlib.contextmanager
    def as_default(self, step=None):
        yield self

    def init(self):
        pass

    def flush(self):
        pass

    def close(self):
        pass


def _python_value(value, what):
    if ops.is_tensor(value):
        if not context.executing_eagerly():
            raise TypeError("%s must be a Python value when building a graph, got %r"
                            % (what, value))
        return to_numpy(ops.to_torch(value)).item()
    return value


@tf_export(v2=["summary.create_file_writer"])
def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None, experimental_trackable=False, experimental_mesh=None):
    """A writer of a new event file in `logdir`; events are queued (at most `max_queue`,
    default 10) and flushed every `flush_millis` (default 120000) and on close/exit.

    `logdir=None` gives a writer that does nothing (TF 1.x contrib behaviour).
    """
    if logdir is None:
        return NoopSummaryWriter()
    logdir = _python_value(logdir, "logdir")
    logdir = logdir.decode() if isinstance(logdir, bytes) else str(logdir)
    if not logdir:
        raise ValueError("logdir cannot be empty")
    max_queue = 10 if max_queue is None else int(_python_value(max_queue, "max_queue"))
    flush_millis = 120000 if flush_millis is None else \
        float(_python_value(flush_millis, "flush_millis"))
    suffix = ".v2" if filename_suffix is None else _python_value(filename_suffix,
                                                                  "filename_suffix")
    suffix = suffix.decode() if isinstance(suffix, bytes) else suffix
    return FileSummaryWriter(logdir, max_queue, flush_millis, suffix)


@tf_export(v2=["summary.create_noop_writer"])
def create_noop_writer():
    return NoopSummaryWriter()


@tf_export(v2=["summary.flush"])
def flush(writer=None, name=None):
    """Flush `writer` (default: the default writer); in a TF1 graph, an op that does so."""
    writer = state.writer if writer is None else writer
    if writer is None:
        return None if context.executing_eagerly() else \
            get_default_graph().record_custom(lambda: None, "NoOp", [], None, name)
    return writer.flush()


# ---------------------------------------------------------------- step and recording


@tf_export(v2=["summary.experimental.set_step"])
def set_step(step):
    """The default step of summary writes (an int, a tensor or a variable; None clears it)."""
    state.step = step


@tf_export(v2=["summary.experimental.get_step"])
def get_step():
    return state.step


@tf_export(v2=["summary.record_if"])
@contextlib.contextmanager
def record_if(condition):
    """Record summaries in the block only when `condition` (a bool, a boolean tensor, or a
    callable returning one, evaluated at each write) holds."""
    old = state.is_recording
    try:
        state.is_recording = condition
        yield
    finally:
        state.is_recording = old


def recording_condition(default):
    """The condition in force: False without a writer, else `record_if`'s or `default`.

    A callable is called here; the result is a Python bool or a boolean tensor.
    """
    if state.writer is None:
        return False
    condition = state.is_recording
    if condition is None:
        return default
    return condition() if callable(condition) else condition


def _truth(condition):
    """A Python bool, or an (eager / run-time) boolean tensor or variable, as a bool."""
    if isinstance(condition, (bool, np.bool_)):
        return bool(condition)
    return bool(to_numpy(ops.to_torch(condition)))


def _int(step):
    """A step (Python int, numpy or torch value, eager tensor, variable) as an int."""
    if isinstance(step, (int, np.integer)):
        return int(step)
    return int(to_numpy(ops.to_torch(step)))


# What a write op returns (never modified in place, so shared).
_TRUE, _FALSE = torch.tensor(True), torch.tensor(False)


def _should_record(default):
    condition = recording_condition(default)
    if context.executing_eagerly() or isinstance(condition, (bool, np.bool_)):
        return _bool_tensor(_truth(condition))
    return ops.convert_to_tensor(condition, dtype=dtypes.bool)


def _bool_tensor(value):
    if context.executing_eagerly():
        return EagerTensor(_TRUE if value else _FALSE)
    return ops.convert_to_tensor(bool(value))


@tf_export(v2=["summary.should_record_summaries"])
def should_record_summaries():
    """A boolean tensor: whether a summary written now would be recorded."""
    return _should_record(True)


def _no_step():
    return ValueError("No step set. Please specify one either through the `step` argument "
                      "or through tf.summary.experimental.set_step()")


def emit(build, inputs, step, default_recording, op_type, name=None):
    """Write `build(*input values)` (a `Summary`, an `Event` to write at the step, or a list
    of them) to the default writer, if recording. `build` gets torch tensors (numpy arrays for
    strings) and converts what it needs with `to_numpy`. Returns a boolean tensor: whether
    it was written.

    `default_recording` applies outside `record_if` blocks (None: write regardless of them).
    Eagerly this happens now; in a graph, a node does it each time it runs (the step and the
    condition may then be tensors, read when it runs).
    """
    writer = state.writer
    if writer is None:
        return _bool_tensor(False)
    condition = True if default_recording is None else recording_condition(default_recording)
    if isinstance(condition, (bool, np.bool_)) and not condition:
        return _bool_tensor(False)
    step = state.step if step is None else step
    if step is None:
        raise _no_step()

    def run(condition_value, step_value, *values):
        if not _truth(condition_value):
            return _FALSE
        result = build(*[v.detach() if isinstance(v, torch.Tensor) else v for v in values])
        step_number = _int(step_value)
        for proto in result if isinstance(result, list) else [result]:
            if isinstance(proto, event_pb2.Event):
                proto.step = step_number
                writer.write_event(proto)
            else:
                writer.write_summary(proto, step_number)
        return _TRUE

    if context.executing_eagerly():
        return EagerTensor(run(condition, step, *[ops.to_torch(t) for t in inputs]))
    graph = get_default_graph()
    tensors = [ops.convert_to_tensor(bool(condition))
               if isinstance(condition, (bool, np.bool_)) else condition,
               ops.convert_to_tensor(step)]
    tensors += [ops.convert_to_tensor(t) for t in inputs]
    out = graph.record_custom(run, op_type, tensors,
                              graph._fake_mode.from_tensor(torch.tensor(True)), name)
    if not graph.building_function:
        graph.add_to_collection(SUMMARY_COLLECTION, out)
    return out


_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")


@tf_export(v2=["summary.experimental.summary_scope"])
@contextlib.contextmanager
def summary_scope(name, default_name=None, values=None):
    """TF2's summary scope: yields (tag, scope); the tag is the enclosing name scope plus
    `name`, not made unique."""
    name = name or default_name
    current = ops.current_scope().rstrip("/")
    tag = current + "/" + name if current else name
    name = _INVALID_SCOPE_CHARACTERS.sub("", name) or None
    with ops.name_scope(name, default_name, values) as scope:
        yield tag, scope


@tf_export(v2=["summary.write"])
def write(tag, tensor, step=None, metadata=None, name=None):
    """Write `tensor` as a tensor summary under `tag` (TF2's `tf.summary.write`)."""
    if metadata is None:
        metadata = summary_pb2.SummaryMetadata()
    elif isinstance(metadata, bytes):
        metadata = summary_pb2.SummaryMetadata.FromString(metadata)
    elif not isinstance(metadata, summary_pb2.SummaryMetadata):
        raise TypeError("metadata should be a SummaryMetadata proto or its serialized "
                        "bytes, not %s" % type(metadata).__name__)
    with ops.name_scope(name, "write_summary"):
        if callable(tensor) and not ops.is_tensor(tensor):
            if state.writer is None:
                return _bool_tensor(False)
            tensor = tensor()
        return emit(lambda v: summary_pb2.Summary(value=[tensor_value(
            tag, to_numpy(v), metadata)]), [tensor], step, True, "WriteSummary")


@tf_export(v2=["summary.experimental.write_raw_pb"])
def write_raw_pb(tensor, step=None, name=None):
    """Write serialized `Summary` protos (a string tensor of them) as they are."""
    with ops.name_scope(name, "write_raw_pb"):
        return emit(lambda v: [summary_pb2.Summary.FromString(bytes(data))
                               for data in to_numpy(v).reshape(-1)],
                    [tensor], step, True, "WriteRawProtoSummary")


@functools.lru_cache(maxsize=64)
def _scalar_metadata(description):
    # shared: protos given to a constructor are copied into it
    return scalar_metadata.create_summary_metadata(None, description)


@tf_export(v2=["summary.scalar"])
def scalar(name, data, step=None, description=None):
    """Write a scalar (as a float32 tensor summary for the scalars plugin)."""
    metadata = _scalar_metadata(description)
    with summary_scope(name, "scalar_summary", values=[data, step]) as (tag, _):
        data = ops.convert_to_tensor(data)
        if data.shape.rank not in (0, None):
            raise ValueError("Expected scalar shape for %s, saw shape: %s." % (tag, data.shape))
        return emit(lambda v: summary_pb2.Summary(value=[summary_pb2.Summary.Value(
            tag=tag, metadata=metadata, tensor=tensor_pb2.TensorProto(
                dtype=types_pb2.DT_FLOAT, float_val=[float(v)],
                tensor_shape=tensor_shape_pb2.TensorShapeProto()))]),
            [data], step, True, "WriteSummary")


@tf_export(v2=["summary.histogram"])
def histogram(name, data, step=None, buckets=None, description=None):
    """Write a histogram of `data` ([buckets, 3] left/right/count tensor; 30 buckets)."""
    # imported here: it loads tensorboard's TensorFlow stand-in (fsspec, absl), ~40 ms
    from tensorboard.plugins.histogram import summary_v2 as tb_histogram
    with summary_scope(name, "histogram_summary", values=[data, buckets, step]) as (tag, _):
        return emit(lambda v: tb_histogram.histogram_pb(tag, to_numpy(v), buckets,
                                                        description),
                    [data], step, True, "WriteSummary")


@tf_export(v2=["summary.image"])
def image(name, data, step=None, max_outputs=3, description=None):
    """Write up to `max_outputs` PNG images of `data` [k, h, w, 1|3|4] (uint8, or floats in
    [0, 1])."""
    metadata = image_metadata.create_summary_metadata(None, description)
    with summary_scope(name, "image_summary", values=[data, max_outputs, step]) as (tag, _):
        def build(images):
            images = enc.float_to_uint8(to_numpy(images))
            if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
                raise errors.InvalidArgumentError(
                    "image summary %s: expected a [k, h, w, c] tensor with c in 1, 3, 4, got "
                    "shape %s" % (tag, list(images.shape)))
            pngs = [enc.encode_png(im) for im in images[:max_outputs]]
            dims = [str(images.shape[2]).encode(), str(images.shape[1]).encode()]
            return summary_pb2.Summary(value=[tensor_value(
                tag, np.array(dims + pngs, dtype=object), metadata)])
        return emit(build, [data], step, True, "WriteSummary")


@tf_export(v2=["summary.text"])
def text(name, data, step=None, description=None):
    """Write a string tensor for TensorBoard's Text tab."""
    metadata = text_metadata.create_summary_metadata(None, description)
    with summary_scope(name, "text_summary", values=[data, step]) as (tag, _):
        data = ops.convert_to_tensor(data)
        if data.dtype != dtypes.string:
            raise TypeError("text summary %s: data must be a string tensor, got %s"
                            % (tag, data.dtype.name))
        return emit(lambda v: summary_pb2.Summary(value=[tensor_value(
            tag, to_numpy(v), metadata)]), [data], step, True, "WriteSummary")


@tf_export(v2=["summary.audio"])
def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None,
          description=None):
    """Write up to `max_outputs` WAV clips of `data` [k, t, c], floats in [-1, 1]."""
    if encoding not in (None, "wav"):
        raise ValueError("Unknown encoding: %r (only 'wav' is supported)" % (encoding,))
    metadata = audio_metadata.create_summary_metadata(
        None, description, audio_metadata.Encoding.Value("WAV"))
    with summary_scope(name, "audio_summary", values=[data, sample_rate, max_outputs, step]) \
            as (tag, _):
        rate = ops.convert_to_tensor(sample_rate, dtype=dtypes.float32)

        def build(clips, rate_value):
            clips = enc.as_audio_batch(to_numpy(clips), tag)
            wavs = [[enc.encode_wav(c, float(rate_value)), b""]
                    for c in clips[:max_outputs]]
            value = np.array(wavs, dtype=object).reshape(-1, 2)
            return summary_pb2.Summary(value=[tensor_value(tag, value, metadata)])
        return emit(build, [data, rate], step, True, "WriteSummary")


@tf_export(v2=["summary.graph"])
def graph(graph_data):
    """Write a tf.Graph or GraphDef for TensorBoard's Graphs tab (at step 0)."""
    if not context.executing_eagerly():
        raise ValueError("graph() cannot be invoked inside a graph context.")
    writer = state.writer
    if writer is None or not _truth(recording_condition(True)):
        return _bool_tensor(False)
    if not isinstance(graph_data, (Graph, graph_pb2.GraphDef)):
        raise ValueError("Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. "
                         "Received graph_data=%r of type %s." % (graph_data,
                                                                 type(graph_data).__name__))
    writer.write_event(event_pb2.Event(
        step=0, graph_def=serialized_graph_def(graph_data).SerializeToString()))
    return _bool_tensor(True)


# ---------------------------------------------------------------- tracing


class _Trace(object):
    before = None   # the function graphs that existed at trace_on (None: not tracing)
    graph = True


_trace = _Trace()


@tf_export(v2=["summary.trace_on"])
def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Start collecting the graphs of `tf.function`s traced from now on, for `trace_export`.

    The profiler is not available: `profiler=True` logs a warning and traces graphs only.
    """
    if not context.executing_eagerly():
        _logger.warning("Must enable trace in eager mode.")
        return
    if profiler:
        _logger.warning("tf.summary.trace_on(profiler=True): tfcompat has no TensorFlow "
                        "profiler; only graphs are traced.")
    if _trace.before is not None:
        _logger.warning("Trace already enabled")
        return
    _trace.before = weakref.WeakSet(live_function_graphs()) if graph else weakref.WeakSet()
    _trace.graph = graph


@tf_export(v2=["summary.trace_off"])
def trace_off():
    """Stop collecting traces (nothing is written)."""
    _trace.before = None


@tf_export(v2=["summary.trace_export"])
def trace_export(name, step=None, profiler_outdir=None):
    """Write the graphs of the tf.functions traced since `trace_on` under tag `name` (as TF
    writes them: RunMetadata with function graphs, for TensorBoard's Graphs tab), then stop."""
    if _trace.before is None:
        raise ValueError("Must enable trace before export through tf.summary.trace_on.")
    step = state.step if step is None else step
    if step is None:
        raise _no_step()
    before, traced_graphs = _trace.before, _trace.graph
    trace_off()
    if not traced_graphs:
        return
    run_metadata = config_pb2.RunMetadata()
    for function_graph in live_function_graphs():
        if function_graph not in before:
            run_metadata.function_graphs.add().pre_optimization_graph.CopyFrom(
                function_graph.as_graph_def())
    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name="graph_run_metadata_graph", content=b"1"))
    write(name, EagerTensor(np.array(run_metadata.SerializeToString(), dtype=object)),
          step=step, metadata=metadata)
