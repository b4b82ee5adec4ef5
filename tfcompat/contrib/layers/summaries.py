"""`tf.contrib.layers.summarize_*`: scalar summaries for scalars, histograms otherwise.

Tags default to "<op name>_summary"; summarize_activation adds the fraction of zeros of
Relu/Relu6/Softplus outputs ("<op name>/zeros") and a histogram "<op name>/activation".
Graph mode only, like the collections these read.
"""
import functools
import re

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, graph
from tfcompat.ops import math_ops
from tfcompat.summary import summary


def _scalar(tensor, tag=None):
    if tensor.shape.ndims != 0:
        raise ValueError("Shape %s must have rank 0" % (tensor.shape,))
    return summary.scalar(tag or "%s_summary" % tensor.op.name, tensor)


def _histogram(tensor, tag=None):
    return summary.histogram(tag or "%s_summary" % tensor.op.name, tensor)


def _fraction(condition):
    return math_ops.reduce_mean(math_ops.to_float(condition))


@tf_export("contrib.layers.summarize_activation")
def summarize_activation(op):
    """Histogram of an activation, plus its fraction of zeros (and of sixes for Relu6)."""
    if op.op.type in ("Relu", "Softplus", "Relu6"):
        pre = op.op.inputs[0]
        _scalar(_fraction(math_ops.less(pre, math_ops.cast(0.0, pre.dtype))),
                "%s/zeros" % op.op.name)
    if op.op.type == "Relu6":
        pre = op.op.inputs[0]
        _scalar(_fraction(math_ops.greater(pre, math_ops.cast(6.0, pre.dtype))),
                "%s/sixes" % op.op.name)
    return _histogram(op, "%s/activation" % op.op.name)


@tf_export("contrib.layers.summarize_tensor")
def summarize_tensor(tensor, tag=None):
    """A scalar summary for a scalar, a histogram otherwise; None for strings and bools."""
    if tensor.dtype.base_dtype in (dtypes.string, dtypes.bool):
        return None
    if tensor.shape.ndims == 0:
        return _scalar(tensor, tag)
    return _histogram(tensor, tag)


@tf_export("contrib.layers.summarize_tensors")
def summarize_tensors(tensors, summarizer=summarize_tensor):
    return [summarizer(tensor) for tensor in tensors]


@tf_export("contrib.layers.summarize_collection")
def summarize_collection(collection, name_filter=None, summarizer=summarize_tensor):
    """Summaries of a graph collection's tensors whose op names match `name_filter`."""
    tensors = [t for t in graph.get_collection(collection)
               if name_filter is None or re.match(name_filter, t.op.name)]
    return summarize_tensors(tensors, summarizer)


summarize_variables = tf_export("contrib.layers.summarize_variables")(
    functools.partial(summarize_collection, graph.GraphKeys.GLOBAL_VARIABLES))
summarize_weights = tf_export("contrib.layers.summarize_weights")(
    functools.partial(summarize_collection, graph.GraphKeys.WEIGHTS))
summarize_biases = tf_export("contrib.layers.summarize_biases")(
    functools.partial(summarize_collection, graph.GraphKeys.BIASES))


@tf_export("contrib.layers.summarize_activations")
def summarize_activations(name_filter=None, summarizer=summarize_activation):
    return summarize_collection(graph.GraphKeys.ACTIVATIONS, name_filter, summarizer)
