"""TF 1.x `tf.contrib.summary` (and `tf.summary.initialize` / `all_v2_summary_ops`).

The same writers and default-writer state as TF2's `tf.summary` (`summary_v2`), with TF 1.x's
ops: scalars as `simple_value`, histograms as `HistogramProto` (TF's default buckets), images
and audio as TF1's image/audio values. Differences from TF2 kept from TF 1.x: nothing is
recorded unless a `record_summaries_every_n_global_steps` / `always_record_summaries` block
says so, tags are TF1's (name scope, made unique in graphs, optional `family`), and the step
defaults to the global step. In a TF1 graph the writes are ops collected in
`all_summary_ops()`, and the writers' files are opened by `summary_writer_initializer_op()`.
"""
import os

import numpy as np
from tensorboard.compat.proto import event_pb2, graph_pb2, summary_pb2

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, ops
from tfcompat.framework.graph import Graph, get_collection, get_default_graph
from tfcompat.summary import encoding, summary_v2
from tfcompat.summary.summary import summary_scope, tensor_value, to_numpy
from tfcompat.summary.summary_v2 import state
from tfcompat.summary.writer import serialized_graph_def
from tfcompat.framework.default_session import get_default_session
from tfcompat.ops import math_ops
from tfcompat.train import training_util

tf_export("contrib.summary.SummaryWriter")(summary_v2.SummaryWriter)
tf_export("contrib.summary.flush")(summary_v2.flush)


@tf_export("contrib.summary.create_file_writer", "contrib.summary.create_summary_file_writer")
def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None):
    """A summary writer of a new event file in `logdir` (None: a writer that does nothing)."""
    return summary_v2.create_file_writer(logdir, max_queue, flush_millis, filename_suffix, name)


@tf_export("contrib.summary.record_summaries_every_n_global_steps")
def record_summaries_every_n_global_steps(n, global_step=None):
    """Record only when `global_step % n == 0` (checked at each write; a tensor in graphs)."""
    if global_step is None:
        global_step = training_util.get_or_create_global_step()

    def should():
        return math_ops.equal(math_ops.floormod(global_step, n), 0)
    return summary_v2.record_if(should if context.executing_eagerly() else should())


@tf_export("contrib.summary.always_record_summaries")
def always_record_summaries():
    return summary_v2.record_if(True)


@tf_export("contrib.summary.never_record_summaries")
def never_record_summaries():
    return summary_v2.record_if(False)


@tf_export("contrib.summary.should_record_summaries")
def should_record_summaries():
    """Whether contrib summaries written now are recorded (False outside a recording block)."""
    return summary_v2._should_record(False)


def _choose_step(step):
    if step is not None:
        return step
    return training_util.get_or_create_global_step()


def _no_writer(name=None):
    """What a contrib write does without a default writer: nothing (a no-op in graphs)."""
    if context.executing_eagerly():
        return None
    return get_default_graph().record_custom(lambda: None, "NoOp", [], None, name)


def _write(name, tensors, build, family, step, op_type):
    """The TF 1.x contrib write: `build(tag, *numpy values)` -> Summary, when recording.

    Returns a boolean tensor (whether written), or None / a no-op without a default writer.
    """
    if state.writer is None:
        return _no_writer()
    with summary_scope(name, family, values=tensors) as (tag, scope):
        return summary_v2.emit(lambda *v: build(tag, *[to_numpy(x) for x in v]), tensors,
                               _choose_step(step), False, op_type, scope)


@tf_export("contrib.summary.scalar")
def scalar(name, tensor, family=None, step=None):
    """Write a scalar as a `simple_value` (TF 1.x WriteScalarSummary)."""
    return _write(name, [tensor], lambda tag, v: summary_pb2.Summary(
        value=[encoding.scalar_value(tag, v)]), family, step, "WriteScalarSummary")


@tf_export("contrib.summary.histogram")
def histogram(name, tensor, family=None, step=None):
    """Write a `HistogramProto` over TF's default buckets."""
    return _write(name, [tensor], lambda tag, v: summary_pb2.Summary(value=[
        summary_pb2.Summary.Value(tag=tag, histo=encoding.histogram_proto(v, tag))]),
        family, step, "WriteHistogramSummary")


@tf_export("contrib.summary.image")
def image(name, tensor, bad_color=None, max_images=3, family=None, step=None):
    """Write PNG images (tags "name/image" or "name/image/<i>", as TF1's image summary)."""
    def build(tag, images, *color):
        return summary_pb2.Summary(value=encoding.image_values(
            tag, images, max_images, color[0] if color else None))
    tensors = [tensor] if bad_color is None else \
        [tensor, ops.convert_to_tensor(bad_color, dtype=dtypes.uint8)]
    return _write(name, tensors, build, family, step, "WriteImageSummary")


@tf_export("contrib.summary.audio")
def audio(name, tensor, sample_rate, max_outputs, family=None, step=None):
    """Write WAV clips (tags "name/audio" or "name/audio/<i>")."""
    rate = ops.convert_to_tensor(sample_rate, dtype=dtypes.float32)
    return _write(name, [tensor, rate], lambda tag, v, r: summary_pb2.Summary(
        value=encoding.audio_values(tag, v, float(r), max_outputs)),
        family, step, "WriteAudioSummary")


@tf_export("contrib.summary.generic")
def generic(name, tensor, metadata=None, family=None, step=None):
    """Write `tensor` as a tensor summary with `metadata` (a SummaryMetadata or its bytes)."""
    if metadata is None:
        metadata = summary_pb2.SummaryMetadata()
    elif isinstance(metadata, bytes):
        metadata = summary_pb2.SummaryMetadata.FromString(metadata)
    return _write(name, [tensor], lambda tag, v: summary_pb2.Summary(
        value=[tensor_value(tag, v, metadata)]), family, step, "WriteSummary")


@tf_export("contrib.summary.graph")
def graph(param, step=None, name=None):
    """Write a graph (tf.Graph, GraphDef, or a string tensor holding a serialized GraphDef)
    for TensorBoard's Graphs tab; written whenever run, as in TF."""
    if not context.executing_eagerly() and not isinstance(param, (Graph, graph_pb2.GraphDef)) \
            and not ops.is_tensor(param):
        raise TypeError("graph() needs a tf.Tensor (e.g. tf.placeholder) in graph mode, but "
                        "was: %s" % type(param).__name__)
    if state.writer is None:
        return _no_writer(name)
    if isinstance(param, (Graph, graph_pb2.GraphDef)):
        param = serialized_graph_def(param).SerializeToString()
    return summary_v2.emit(
        lambda data: event_pb2.Event(graph_def=bytes(to_numpy(data).item())), [param],
        _choose_step(step), None, "WriteGraphSummary", name)


@tf_export("contrib.summary.import_event")
def import_event(tensor, name=None):
    """Write serialized `Event` protos (a string tensor) to the default writer as they are."""
    writer = state.writer
    if writer is None:
        raise ValueError("tf.contrib.summary.import_event needs a default summary writer "
                         "(use `with writer.as_default():`)")

    def run(values):
        for data in np.asarray(values, dtype=object).reshape(-1):
            writer.write_event(event_pb2.Event.FromString(bytes(data)))
    tensor = ops.convert_to_tensor(tensor, dtype=dtypes.string)
    if context.executing_eagerly():
        run(ops.to_torch(tensor))
        return None
    return get_default_graph().record_custom(run, "ImportEvent", [tensor], None, name)


@tf_export("contrib.summary.all_summary_ops", v1=["summary.all_v2_summary_ops"])
def all_summary_ops():
    """The summary-writing ops of the default graph (None when executing eagerly)."""
    if context.executing_eagerly():
        return None
    return get_collection(summary_v2.SUMMARY_COLLECTION)


@tf_export("contrib.summary.summary_writer_initializer_op")
def summary_writer_initializer_op():
    """The ops opening the default graph's summary writers' files (graph mode only)."""
    if context.executing_eagerly():
        raise RuntimeError("tf.contrib.summary.summary_writer_initializer_op is only "
                           "supported in graph mode.")
    return get_collection(summary_v2.WRITER_INIT_COLLECTION)


@tf_export("contrib.summary.initialize", v1=["summary.initialize"])
def initialize(graph=None, session=None):
    """Run the summary writers' initializers in `session` (default session) and, when
    `graph` is given, write it to the default writer at step 0."""
    if context.executing_eagerly():
        return
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("Argument `session` must be passed if no default session "
                             "exists")
    session.run(summary_writer_initializer_op())
    if graph is not None and state.writer is not None:
        state.writer.write_event(event_pb2.Event(
            step=0, graph_def=serialized_graph_def(graph).SerializeToString()))


@tf_export("contrib.summary.eval_dir")
def eval_dir(model_dir, name=None):
    """`model_dir/eval` or `model_dir/eval_<name>`."""
    return os.path.join(model_dir, "eval" if not name else "eval_" + name)
