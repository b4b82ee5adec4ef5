"""TF1 summary ops: `tf.summary.scalar/histogram/image/audio/text/tensor_summary`, `merge`,
`merge_all`, and the summary protos (`tf.Summary`, `tf.Event`, ...).

Each op yields a scalar string tensor holding a serialized `Summary` proto. In a graph it is a
node (named by its name scope, as in TF) computing the proto when run and is added to the
SUMMARIES collection; eagerly it returns the bytes at once. Tags come from the name scope:
`tf.summary.scalar("loss")` inside `tf.name_scope("train")` is "train/loss", and a second
"loss" in the same graph scope is "loss_1", as in TF.
"""
import contextlib

import numpy as np
import torch
from tensorboard.compat.proto import event_pb2, histogram_pb2, summary_pb2

from tfcompat._api import export_constant, tf_export
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.graph import get_collection, get_default_graph
from tfcompat.framework.tensor import EagerTensor
from tfcompat.ops.raw_ops import raw_op
from tfcompat.summary import encoding

SUMMARIES = "summaries"

export_constant(summary_pb2.Summary, v1=["summary.Summary", "Summary"])
export_constant(summary_pb2.SummaryDescription, v1=["summary.SummaryDescription"])
export_constant(summary_pb2.SummaryMetadata, v1=["SummaryMetadata"])
export_constant(histogram_pb2.HistogramProto, v1=["HistogramProto"])
export_constant(event_pb2.Event, v1=["summary.Event", "Event"])
export_constant(event_pb2.SessionLog, v1=["summary.SessionLog", "SessionLog"])
export_constant(event_pb2.TaggedRunMetadata, v1=["summary.TaggedRunMetadata"])


@contextlib.contextmanager
def summary_scope(name, family=None, default_name=None, values=None):
    """TF1's summary scope: yields (tag, scope); `family` prefixes both."""
    name = encoding.clean_tag(name)
    family = encoding.clean_tag(family)
    base = name if family is None else "%s/%s" % (family, name)
    with ops.name_scope(base, default_name, values) as scope:
        tag = scope.rstrip("/")
        yield (tag if family is None else "%s/%s" % (family, tag)), scope


def to_numpy(value):
    """A run-time op input (torch tensor or string array) as numpy."""
    if isinstance(value, np.ndarray):
        return value
    if value.dtype == torch.bfloat16:
        value = value.float()
    return value.detach().cpu().numpy()


def _serialized(summary):
    return np.array(summary.SerializeToString(), dtype=object)


def collect(value, collections, default_collections):
    """Add a graph summary op's output to `collections` (default: `default_collections`)."""
    if context.executing_eagerly():
        return
    graph = get_default_graph()
    for key in (default_collections if collections is None else collections):
        graph.add_to_collection(key, value)


def summary_op(op_type, scope, build, inputs, collections, default_collections=(SUMMARIES,)):
    """A string tensor: `build(*numpy inputs)` -> `Summary`, serialized.

    A graph gets one node named `scope` (or by its type, when None) computing it when run.
    """
    tensors = [ops.convert_to_tensor(t) for t in inputs]

    def run(*values):
        return _serialized(build(*[to_numpy(v) for v in values]))

    if context.executing_eagerly():
        return EagerTensor(run(*[ops.to_torch(t) for t in tensors]))
    out = get_default_graph().record_custom(run, op_type, tensors,
                                            np.empty((), dtype=object), scope)
    collect(out, collections, list(default_collections))
    return out


def _one_value(value):
    return summary_pb2.Summary(value=[value])


@tf_export(v1=["summary.scalar"])
def scalar(name, tensor, collections=None, family=None):
    """A `Summary` with one `simple_value` (TF1 ScalarSummary)."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        return summary_op("ScalarSummary", scope,
                          lambda v: _one_value(encoding.scalar_value(tag, v)),
                          [tensor], collections)


@tf_export(v1=["summary.histogram"])
def histogram(name, values, collections=None, family=None):
    """A `Summary` with a `HistogramProto` over TF's default buckets."""
    with summary_scope(name, family, values=[values]) as (tag, scope):
        return summary_op("HistogramSummary", scope, lambda v: _one_value(
            summary_pb2.Summary.Value(tag=tag, histo=encoding.histogram_proto(v, tag))),
            [values], collections)


@tf_export(v1=["summary.image"])
def image(name, tensor, max_outputs=3, collections=None, family=None):
    """PNG images of the first `max_outputs` of a [batch, h, w, 1|3|4] tensor; tags
    "name/image" (max_outputs 1) or "name/image/<i>"."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        return summary_op("ImageSummary", scope, lambda v: summary_pb2.Summary(
            value=encoding.image_values(tag, v, max_outputs)), [tensor], collections)


@tf_export(v1=["summary.audio"])
def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """WAV clips of a [batch, frames(, channels)] float tensor in [-1, 1]."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        rate = ops.convert_to_tensor(sample_rate, dtype=dtypes.float32)
        return summary_op("AudioSummaryV2", scope, lambda v, r: summary_pb2.Summary(
            value=encoding.audio_values(tag, v, float(r), max_outputs)),
            [tensor, rate], collections)


def tensor_value(tag, value, metadata):
    return summary_pb2.Summary.Value(tag=tag, metadata=metadata,
                                     tensor=encoding.tensor_proto(value))


@tf_export(v1=["summary.tensor_summary"])
def tensor_summary(name, tensor, summary_description=None, collections=None,
                   summary_metadata=None, family=None, display_name=None):
    """A `Summary` holding the whole tensor (TensorSummaryV2), with `summary_metadata`."""
    metadata = summary_pb2.SummaryMetadata()
    if summary_metadata is not None:
        metadata.CopyFrom(summary_metadata)
    if display_name:
        metadata.display_name = display_name
    if summary_description:
        metadata.summary_description = summary_description
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        return summary_op("TensorSummaryV2", scope,
                          lambda v: _one_value(tensor_value(tag, v, metadata)),
                          [tensor], collections)


@tf_export(v1=["summary.text"])
def text(name, tensor, collections=None):
    """A string tensor as a tensor summary for TensorBoard's Text tab."""
    tensor = ops.convert_to_tensor(tensor)
    if tensor.dtype != dtypes.string:
        raise ValueError("Expected tensor %s to have dtype string, got %s"
                         % (name, tensor.dtype.name))
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name, tensor, summary_metadata=metadata, collections=collections)


def _no_eager_merge():
    return RuntimeError("Merging tf.summary.* ops is not compatible with eager execution. "
                        "Use tf.contrib.summary instead (or tf.summary.create_file_writer).")


@tf_export(v1=["summary.merge"])
def merge(inputs, collections=None, name=None):
    """One `Summary` with the values of `inputs` (string tensors of serialized Summaries);
    a tag present twice is an InvalidArgumentError when run."""
    if context.executing_eagerly():
        raise _no_eager_merge()
    inputs = list(inputs)
    with ops.name_scope(name, "Merge", inputs):
        return summary_op("MergeSummary", None, lambda *v: encoding.merge(v), inputs,
                          collections, default_collections=())


@tf_export(v1=["summary.merge_all"])
def merge_all(key=SUMMARIES, scope=None, name=None):
    """Merge every summary in collection `key` (None if there are none)."""
    if context.executing_eagerly():
        raise _no_eager_merge()
    summaries = get_collection(key, scope=scope)
    return merge(summaries, name=name) if summaries else None


def _scalar_values(tags, values):
    """TF's ScalarSummary kernel: one `simple_value` per element of `tags` and `values`."""
    if tags.shape != values.shape:
        raise errors.InvalidArgumentError(
            "tags and values are not the same shape: %s != %s"
            % (list(tags.shape), list(values.shape)))
    return summary_pb2.Summary(value=[
        encoding.scalar_value(bytes(tag).decode("utf-8", "replace"), value)
        for tag, value in zip(tags.reshape(-1), values.reshape(-1))])


@raw_op("ScalarSummary", records_itself=True)
def _scalar_summary(tags, values, name=None):
    return summary_op("ScalarSummary", name, _scalar_values, [tags, values], collections=[])


@raw_op("MergeSummary", records_itself=True)
def _merge_summary(inputs, name=None):
    return summary_op("MergeSummary", name, lambda *v: encoding.merge(v), list(inputs),
                      collections=[])
