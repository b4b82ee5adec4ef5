"""`tf.keras.layers.Discretization` (Keras 2.15): bucket numbers by `bin_boundaries` (TF's
`Bucketize`: the index is how many boundaries are <= the value), or by `num_bins`
boundaries `adapt` learns with Keras' quantile summary (same arithmetic, float32). The
summary is kept in Python, not as Keras' `summary` weight."""
import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, ops
from tfcompat.keras import backend
from tfcompat.keras.layers.preprocessing.category_encoding import (
    COUNT, INT, MULTI_HOT, ONE_HOT, encode_ids)
from tfcompat.keras.layers.preprocessing.preprocessing_layer import PreprocessingLayer


def summarize(values, epsilon):
    """Keras' summary of a batch: every (size * epsilon)-th sorted value, with its weight."""
    values = np.sort(np.asarray(values, dtype=np.float32).reshape(-1))
    increment = int(np.float32(values.size) / np.float32(1.0 / epsilon))
    step = max(increment, 1)
    boundaries = values[increment::step]
    return np.stack([boundaries, np.full(boundaries.shape, np.float32(step))]).astype(
        np.float32)


def compress_summary(summary, epsilon):
    """Keras' `_compress_summary_numpy`: about 1/epsilon bins of equal weight."""
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    cum_weight_percents = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, cum_weight_percents, summary[0])
    cum_weights = np.interp(percents, cum_weight_percents, cum_weights)
    new_weights = cum_weights - np.concatenate((np.array([0]), cum_weights[:-1]))
    return np.stack((new_bins, new_weights)).astype(np.float32)


def merge_summaries(first, second, epsilon):
    merged = np.concatenate((first, second), axis=1)
    merged = merged[:, np.argsort(merged[0], kind="stable")]
    return compress_summary(merged, epsilon)


@ops.op(graph_name="Bucketize")
def _discretize(inputs, boundaries, output_mode, dtype):
    t = ops.to_torch(inputs)
    edges = torch.tensor(boundaries, dtype=torch.float64, device=t.device)
    indices = torch.bucketize(t.to(torch.float64), edges, right=True)
    if output_mode == INT:
        return indices.to(getattr(torch, dtype))
    return encode_ids(indices, output_mode, len(boundaries) + 1, getattr(torch, dtype))


@tf_export("keras.layers.Discretization",
           "keras.layers.experimental.preprocessing.Discretization")
class Discretization(PreprocessingLayer):
    """Map numbers to the index of their bin (or one-hot / multi-hot / count vectors)."""

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode=INT,
                 sparse=False, **kwargs):
        if "bins" in kwargs:
            bins = kwargs.pop("bins")
            if isinstance(bins, int) and num_bins is None:
                num_bins = bins
            elif bin_boundaries is None:
                bin_boundaries = bins
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == INT else backend.floatx()
        elif output_mode == INT and not dtypes.as_dtype(kwargs["dtype"]).is_integer:
            kwargs["dtype"] = "int64"
        super(Discretization, self).__init__(**kwargs)
        if output_mode not in (INT, ONE_HOT, MULTI_HOT, COUNT):
            raise ValueError("Unknown value for `output_mode`. Allowed values are: %s. "
                             "Received: %s" % ((INT, ONE_HOT, MULTI_HOT, COUNT), output_mode))
        if sparse:
            if output_mode == INT:
                raise ValueError("`sparse` may only be true if `output_mode` is `'one_hot'`, "
                                 "`'multi_hot'`, or `'count'`. Received: sparse=%s and "
                                 "output_mode=%s" % (sparse, output_mode))
            raise NotImplementedError("Discretization(sparse=True) is not implemented by "
                                      "tfcompat")
        if num_bins is not None and num_bins < 0:
            raise ValueError("`num_bins` must be greater than or equal to 0. You passed "
                             "`num_bins={}`".format(num_bins))
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. You "
                             "passed `num_bins={}` and `bin_boundaries={}`"
                             .format(num_bins, bin_boundaries))
        if bin_boundaries is not None:
            bin_boundaries = np.asarray(bin_boundaries.numpy() if hasattr(
                bin_boundaries, "numpy") else bin_boundaries).tolist()
        self.input_bin_boundaries = bin_boundaries
        self.bin_boundaries = bin_boundaries if bin_boundaries is not None else []
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.output_mode = output_mode
        self.sparse = sparse
        self._summary = np.zeros((2, 0), np.float32)

    def update_state(self, data):
        if self.input_bin_boundaries is not None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized "
                             "with `bin_boundaries`, use `num_bins` instead. You passed "
                             "`bin_boundaries={}`.".format(self.input_bin_boundaries))
        self._summary = merge_summaries(summarize(data, self.epsilon), self._summary,
                                        self.epsilon)

    def finalize_state(self):
        if self.input_bin_boundaries is not None or not self._summary.size:
            return
        self.bin_boundaries = compress_summary(self._summary, 1.0 / self.num_bins)[0, :-1] \
            .tolist()

    def reset_state(self):
        if self.input_bin_boundaries is None:
            self._summary = np.zeros((2, 0), np.float32)

    def call(self, inputs):
        return _discretize(inputs, list(self.bin_boundaries), self.output_mode,
                           self.compute_dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super(Discretization, self).get_config()
        config.update({"bin_boundaries": self.input_bin_boundaries, "num_bins": self.num_bins,
                       "epsilon": self.epsilon, "output_mode": self.output_mode,
                       "sparse": self.sparse})
        return config
