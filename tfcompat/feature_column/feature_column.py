"""TF1 feature columns: `tf.feature_column.numeric_column`, `bucketized_column`,
`categorical_column_with_identity / _vocabulary_list / _hash_bucket`, `indicator_column`,
`embedding_column`, and `input_layer` / `linear_model` that turn a features dict into dense
tensors (TF 1.15's `feature_column.py`, v1 API).

Columns are sorted by name, each under a variable scope of its name, so variables are named as
TF names them ("input_layer/age_embedding/embedding_weights",
"linear_model/age/weights", "linear_model/bias_weights"). Rank-1 inputs are read as
[batch, 1]. Categorical columns map their input to bucket ids; a missing value (-1 for
integers, "" for strings) contributes nothing, as TF drops those. Hashing uses FarmHash
Fingerprint64, so ids equal TF's.

Where we differ: categorical inputs must be dense tensors (TF also takes SparseTensors) and
vocabulary files, crossed, weighted and shared columns are not implemented.
"""
import collections
import math

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.util.fingerprint import fingerprint64
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.graph import get_default_graph
from tfcompat.framework.ops import op, to_torch
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import array_ops, clip_ops, math_ops
from tfcompat.ops import random_ops
from tfcompat.ops.init_ops import Zeros
from tfcompat.ops.sparse_ops import SparseTensor
from tfcompat.variable_scope import get_variable, get_variable_scope, variable_scope
from tfcompat.variables import PartitionedVariable
from tfcompat.io import parsing_ops
from tfcompat.train import saver
from tfcompat import variables

_state = context.state


# ---------------------------------------------------------------- ops


@op(graph_name="Bucketize")
def _bucketize(values, boundaries):
    """The bucket of each value: boundaries[i-1] <= value < boundaries[i] is bucket i."""
    t = to_torch(values)
    edges = torch.tensor(boundaries, dtype=torch.float64, device=t.device)
    return torch.bucketize(t.to(torch.float64), edges, right=True)


@op(graph_name="OneHotSum")
def _multi_hot(ids, depth):
    """[batch, n] ids (-1: missing) -> [batch, depth] counts of each id, float32."""
    t = to_torch(ids)
    valid = (t >= 0).to(torch.float32)
    hot = torch.nn.functional.one_hot(t.clamp(min=0), depth).to(torch.float32)
    return (hot * valid.unsqueeze(-1)).sum(-2)


@op(graph_name="EmbeddingLookupSparse")
def _combined_embeddings(weights, ids, combiner):
    """Rows of `weights` for [batch, n] ids (-1: missing), combined per example by 'sum',
    'mean' or 'sqrtn' (no ids: zeros)."""
    w = to_torch(weights)
    t = to_torch(ids).to(w.device)
    valid = (t >= 0).to(w.dtype)
    rows = w[t.clamp(min=0)] * valid.unsqueeze(-1)
    total = rows.sum(-2)
    if combiner == "sum":
        return total
    count = valid.sum(-1, keepdim=True)
    scale = count if combiner == "mean" else count.sqrt()
    return total / scale.clamp(min=1.0)


def _map_values(tensor, fn, name):
    """[batch, n] int64 ids from a tensor of strings or integers mapped in numpy by
    `fn(array) -> int64 array of the same shape` (rank-1 inputs give [batch, 1]).

    A graph gets one node running `fn`; string tensors never go through other graph ops."""
    def run(value):
        array = value if isinstance(value, np.ndarray) else value.detach().cpu().numpy()
        return torch.from_numpy(np.asarray(fn(array), dtype=np.int64).reshape(array.shape))

    if not _state.building_graph:
        ids = EagerTensor(run(to_torch(tensor)))
    else:
        graph = get_default_graph()
        fake = graph._fake_for_shape(tensor.shape, dtypes.int64)
        ids = graph.record_custom(run, name, [tensor], fake)
    return array_ops.expand_dims(ids, -1) if ids.shape.rank == 1 else ids


def _text(item):
    return item if isinstance(item, bytes) else str(item).encode("utf-8")


def _is_missing(item):
    if isinstance(item, (bytes, str)):
        return len(item) == 0
    return item == -1


def _hash_ids(values, buckets):
    """Fingerprint64(value as text) % buckets ("" and -1 stay missing: -1)."""
    cache = {}
    out = np.empty(values.shape, dtype=np.int64)
    for index, item in np.ndenumerate(values):
        if _is_missing(item):
            out[index] = -1
            continue
        if item not in cache:
            cache[item] = fingerprint64(_text(item)) % buckets
        out[index] = cache[item]
    return out


# ---------------------------------------------------------------- the features


class _LazyBuilder(object):
    """The features dict, with each column's transformed tensor built once."""

    def __init__(self, features):
        self._features = dict(features)
        self._cache = {}

    def get(self, key):
        if isinstance(key, FeatureColumn):
            if key not in self._cache:
                self._cache[key] = key._transform_feature(self)
            return self._cache[key]
        if key not in self._cache:
            if key not in self._features:
                raise ValueError("The following feature is not found in features: {}. "
                                 "Given features: {}".format(key, sorted(self._features)))
            value = self._features[key]
            if isinstance(value, SparseTensor):
                raise NotImplementedError(
                    "feature %r is a SparseTensor: tfcompat's feature columns take dense "
                    "tensors (use tf.sparse.to_dense with -1 or '' for missing values)" % key)
            value = ops.convert_to_tensor(value)
            if value.shape.rank == 1 and value.dtype != dtypes.string:
                value = array_ops.expand_dims(value, -1)
            self._cache[key] = value
        return self._cache[key]


def _check_key(key):
    if not isinstance(key, str):
        raise ValueError("key must be a string. Got: type {}. Given key: {}"
                         .format(type(key), key))


# ---------------------------------------------------------------- column classes


class FeatureColumn(object):
    """A feature column: a name and how it transforms the features dict."""

    @property
    def name(self):
        raise NotImplementedError

    def _transform_feature(self, builder):
        raise NotImplementedError

    def __lt__(self, other):
        return self.name < other.name


class DenseColumn(FeatureColumn):
    """A column giving a dense float tensor of `variable_shape` per example."""

    def _dense_tensor(self, builder):
        return builder.get(self)


class CategoricalColumn(FeatureColumn):
    """A column giving [batch, n] int64 bucket ids (-1: missing) in [0, num_buckets)."""

    def _ids(self, builder):
        return builder.get(self)


class NumericColumn(DenseColumn, collections.namedtuple(
        "NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):

    @property
    def name(self):
        return self.key

    @property
    def variable_shape(self):
        return TensorShape(self.shape)

    @property
    def parse_example_spec(self):
        return {self.key: parsing_ops.FixedLenFeature(self.shape, self.dtype,
                                                      self.default_value)}

    def _transform_feature(self, builder):
        value = builder.get(self.key)
        if value.dtype == dtypes.string:
            raise ValueError("Column dtype and SparseTensors dtype must be compatible. key: {}, "
                             "column dtype: {}, tensor dtype: {}".format(
                                 self.key, self.dtype.name, value.dtype.name))
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        return math_ops.cast(value, dtypes.float32)

    def _dense_tensor(self, builder):
        value = builder.get(self)
        return array_ops.reshape(value, [-1] + list(self.shape))


class BucketizedColumn(DenseColumn, CategoricalColumn, collections.namedtuple(
        "BucketizedColumn", ["source_column", "boundaries"])):

    @property
    def name(self):
        return self.source_column.name + "_bucketized"

    @property
    def num_buckets(self):
        return (len(self.boundaries) + 1) * int(np.prod(self.source_column.shape))

    @property
    def variable_shape(self):
        return TensorShape(list(self.source_column.shape) + [len(self.boundaries) + 1])

    def _transform_feature(self, builder):
        return _bucketize(self.source_column._dense_tensor(builder), list(self.boundaries))

    def _dense_tensor(self, builder):
        return array_ops.one_hot(builder.get(self), len(self.boundaries) + 1,
                                 dtype=dtypes.float32)

    def _ids(self, builder):
        buckets = builder.get(self)
        source_size = int(np.prod(self.source_column.shape))
        flat = array_ops.reshape(buckets, [-1, source_size])
        offsets = np.arange(source_size, dtype=np.int64) * (len(self.boundaries) + 1)
        return flat + ops.convert_to_tensor(offsets)


class IdentityCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ["key", "number_buckets", "default_value"])):

    @property
    def name(self):
        return self.key

    @property
    def num_buckets(self):
        return self.number_buckets

    def _transform_feature(self, builder):
        value = builder.get(self.key)
        if not value.dtype.is_integer:
            raise ValueError("Invalid input, not integer. key: {} dtype: {}"
                             .format(self.key, value.dtype))
        num_buckets, default, name = self.num_buckets, self.default_value, self.name

        def ids(values):
            values = values.astype(np.int64)
            outside = (values != -1) & ((values < 0) | (values >= num_buckets))
            if outside.any():
                if default is None:
                    raise errors.InvalidArgumentError(
                        "Bucket index for categorical column \"%s\" must be in [0, %d) (or -1 "
                        "for a missing value); got %s" % (name, num_buckets,
                                                          values[outside].tolist()))
                values[outside] = default
            return values

        return _map_values(value, ids, "IdentityIds")


class VocabularyListCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn",
        ["key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"])):

    @property
    def name(self):
        return self.key

    @property
    def num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets

    def _transform_feature(self, builder):
        value = builder.get(self.key)
        if (value.dtype == dtypes.string) != (self.dtype == dtypes.string):
            raise ValueError("Column dtype and SparseTensors dtype must be compatible. key: {}, "
                             "column dtype: {}, tensor dtype: {}".format(
                                 self.key, self.dtype.name, value.dtype.name))
        table = {(v.encode("utf-8") if isinstance(v, str) else v): i
                 for i, v in enumerate(self.vocabulary_list)}
        size, oov, default = len(table), self.num_oov_buckets, self.default_value

        def lookup(values):
            out = np.empty(values.shape, dtype=np.int64)
            for index, item in np.ndenumerate(values):
                key = item if isinstance(item, bytes) else int(item)
                if _is_missing(key):
                    out[index] = -1
                elif key in table:
                    out[index] = table[key]
                elif oov:
                    out[index] = size + fingerprint64(_text(key)) % oov
                else:
                    out[index] = default
            return out

        return _map_values(value, lookup, "LookupTableFindV2")


class HashedCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "HashedCategoricalColumn", ["key", "hash_bucket_size", "dtype"])):

    @property
    def name(self):
        return self.key

    @property
    def num_buckets(self):
        return self.hash_bucket_size

    def _transform_feature(self, builder):
        value = builder.get(self.key)
        if value.dtype != dtypes.string and not value.dtype.is_integer:
            raise ValueError("Column dtype and SparseTensors dtype must be compatible. key: {}, "
                             "column dtype: {}, tensor dtype: {}".format(
                                 self.key, self.dtype.name, value.dtype.name))
        size = self.hash_bucket_size
        return _map_values(value, lambda array: _hash_ids(array, size),
                           "StringToHashBucketFast")


class IndicatorColumn(DenseColumn, collections.namedtuple("IndicatorColumn",
                                                          ["categorical_column"])):

    @property
    def name(self):
        return self.categorical_column.name + "_indicator"

    @property
    def variable_shape(self):
        return TensorShape([self.categorical_column.num_buckets])

    def _transform_feature(self, builder):
        return _multi_hot(self.categorical_column._ids(builder),
                          self.categorical_column.num_buckets)


class EmbeddingColumn(DenseColumn, collections.namedtuple(
        "EmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer",
                            "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm",
                            "trainable"])):

    @property
    def name(self):
        return self.categorical_column.name + "_embedding"

    @property
    def variable_shape(self):
        return TensorShape([self.dimension])

    def _transform_feature(self, builder):
        return self.categorical_column._ids(builder)

    def _dense_tensor(self, builder, trainable=True):
        weights = get_variable(
            "embedding_weights", shape=[self.categorical_column.num_buckets, self.dimension],
            dtype=dtypes.float32, initializer=self.initializer,
            trainable=self.trainable and trainable)
        if self.ckpt_to_load_from is not None:
            saver.init_from_checkpoint(self.ckpt_to_load_from,
                                       {self.tensor_name_in_ckpt: weights})
        if self.max_norm is not None:
            weights = clip_ops.clip_by_norm(weights, self.max_norm, axes=[1])
        return _combined_embeddings(weights, builder.get(self), self.combiner)


# ---------------------------------------------------------------- constructors


def _truncated_normal_initializer(stddev):
    """TF's default embedding initializer: truncated normal, mean 0 (through the random op,
    which also works while a graph is built)."""
    def initializer(shape, dtype=dtypes.float32, partition_info=None):
        return random_ops.truncated_normal(shape, mean=0.0, stddev=stddev, dtype=dtype)
    return initializer


@tf_export("feature_column.numeric_column")
def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32,
                   normalizer_fn=None):
    """A dense column of real values with `shape` per example."""
    _check_key(key)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    for dim in shape:
        if not isinstance(dim, (int, np.integer)) or dim < 1:
            raise ValueError("shape dimensions must be greater than 0. shape: {}, key: {}"
                             .format(shape, key))
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError("dtype must be convertible to float. dtype: {}, key: {}"
                         .format(dtype, key))
    if default_value is not None:
        array = np.asarray(default_value, dtype=dtype.as_numpy_dtype)
        if array.size not in (1, int(np.prod(shape))):
            raise ValueError("The shape of default_value must be equal to given shape. "
                             "default_value: {}, shape: {}, key: {}"
                             .format(default_value, shape, key))
        default_value = tuple(np.broadcast_to(array, shape).reshape(-1).tolist())
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError("normalizer_fn must be a callable. Given: {}".format(normalizer_fn))
    return NumericColumn(key, tuple(int(d) for d in shape), default_value, dtype,
                         normalizer_fn)


@tf_export("feature_column.bucketized_column")
def bucketized_column(source_column, boundaries):
    """A numeric column split at `boundaries`: dense one-hot buckets, or categorical ids."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError("source_column must be a column generated with numeric_column(). "
                         "Given: {}".format(source_column))
    if len(source_column.shape) > 1:
        raise ValueError("source_column must be one-dimensional column. Given: {}"
                         .format(source_column))
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(float(b) for b in boundaries))


@tf_export("feature_column.categorical_column_with_identity")
def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer inputs in [0, num_buckets) are their own ids; others are `default_value`
    (None: an InvalidArgumentError when run)."""
    _check_key(key)
    if num_buckets < 1:
        raise ValueError("num_buckets {} < 1, column_name {}".format(num_buckets, key))
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError("default_value {} not in range [0, {}), column_name {}"
                         .format(default_value, num_buckets, key))
    return IdentityCategoricalColumn(key, int(num_buckets), default_value)


@tf_export("feature_column.categorical_column_with_vocabulary_list")
def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                            num_oov_buckets=0):
    """Ids by position in `vocabulary_list`; other values get `default_value` (-1: dropped)
    or one of `num_oov_buckets` hashed buckets after the vocabulary."""
    _check_key(key)
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError("vocabulary_list {} must be non-empty, column_name: {}"
                         .format(vocabulary_list, key))
    vocabulary_list = tuple(vocabulary_list)
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError("Duplicate keys in vocabulary_list {}, column_name: {}"
                         .format(vocabulary_list, key))
    is_string = isinstance(vocabulary_list[0], (str, bytes))
    vocabulary_dtype = dtypes.string if is_string else dtypes.int64
    dtype = vocabulary_dtype if dtype is None else dtypes.as_dtype(dtype)
    if (dtype == dtypes.string) != is_string:
        raise ValueError("dtype {} and vocabulary dtype {} do not match, column_name: {}"
                         .format(dtype, vocabulary_dtype, key))
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError("Can't specify both num_oov_buckets and default_value in {}."
                             .format(key))
        if num_oov_buckets < 0:
            raise ValueError("Invalid num_oov_buckets {} in {}.".format(num_oov_buckets, key))
    if is_string:
        vocabulary_list = tuple(v.decode("utf-8") if isinstance(v, bytes) else v
                                for v in vocabulary_list)
    return VocabularyListCategoricalColumn(key, vocabulary_list, dtype, default_value,
                                           int(num_oov_buckets))


@tf_export("feature_column.categorical_column_with_hash_bucket")
def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Ids = Fingerprint64(value as string) % hash_bucket_size, as TF computes them."""
    _check_key(key)
    if hash_bucket_size is None:
        raise ValueError("hash_bucket_size must be set. key: {}".format(key))
    if hash_bucket_size < 1:
        raise ValueError("hash_bucket_size must be at least 1. hash_bucket_size: {}, key: {}"
                         .format(hash_bucket_size, key))
    dtype = dtypes.as_dtype(dtype)
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError("dtype must be string or integer. dtype: {}, column_name: {}"
                         .format(dtype, key))
    return HashedCategoricalColumn(key, int(hash_bucket_size), dtype)


@tf_export("feature_column.indicator_column")
def indicator_column(categorical_column):
    """A categorical column as a multi-hot dense tensor of num_buckets counts."""
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError("Unsupported input type. Input must be a CategoricalColumn. Given: {}"
                         .format(categorical_column))
    return IndicatorColumn(categorical_column)


@tf_export("feature_column.embedding_column")
def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True):
    """A categorical column as the combination ('mean', 'sum', 'sqrtn') of learned
    `dimension`-wide embeddings of its ids."""
    if dimension is None or dimension < 1:
        raise ValueError("Invalid dimension {}.".format(dimension))
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified. Embedding of column_name: "
                         "{}".format(categorical_column.name))
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn', 'sum', got %r" % (combiner,))
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError("Unsupported input type. Input must be a CategoricalColumn. Given: {}"
                         .format(categorical_column))
    if initializer is None:
        initializer = _truncated_normal_initializer(1 / math.sqrt(dimension))
    return EmbeddingColumn(categorical_column, int(dimension), combiner, initializer,
                           ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable)


# ---------------------------------------------------------------- layers


def _variable_list(variable):
    """cols_to_vars' entry: a partitioned variable's parts, else [variable] (as TF)."""
    return list(variable) if isinstance(variable, PartitionedVariable) else [variable]


def _sorted_columns(feature_columns, kind, message):
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    feature_columns = list(feature_columns or [])
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    for column in feature_columns:
        if not isinstance(column, kind):
            raise ValueError(message.format(column))
    names = [c.name for c in feature_columns]
    duplicates = sorted(n for n in set(names) if names.count(n) > 1)
    if duplicates:
        raise ValueError("Duplicate feature column name found for columns: {}".format(
            duplicates))
    return sorted(feature_columns, key=lambda c: c.name)


def _flat_per_example(tensor, column):
    size = int(np.prod(column.variable_shape.as_list()))
    return array_ops.reshape(tensor, [-1, size])


@tf_export(v1=["feature_column.input_layer"])
def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """The dense columns' tensors, each flattened per example, concatenated in column-name
    order: a [batch, total width] float32 tensor."""
    columns = _sorted_columns(
        feature_columns, DenseColumn,
        "Items of feature_columns must be a _DenseColumn. You can wrap a categorical column "
        "with an embedding_column or indicator_column. Given: {}")
    builder = _LazyBuilder(features)
    outputs = []
    with variable_scope(None, default_name="input_layer"):
        for column in columns:
            with variable_scope(None, default_name=column.name):
                if isinstance(column, EmbeddingColumn):
                    dense = column._dense_tensor(builder, trainable=trainable)
                else:
                    dense = column._dense_tensor(builder)
                output = _flat_per_example(dense, column)
                outputs.append(output)
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
                if cols_to_vars is not None:
                    cols_to_vars[column] = _scope_variables()
        return array_ops.concat(outputs, 1)


def _scope_variables():
    prefix = get_variable_scope().name + "/"
    return [v for v in variables.global_variables() if v.op.name.startswith(prefix)]


@tf_export(v1=["feature_column.linear_model"])
def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):
    """A linear prediction [batch, units]: each column's weights times its values (dense
    columns) or summed weights of its ids (categorical columns, by `sparse_combiner`), plus a
    bias; every weight starts at zero."""
    if sparse_combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("sparse_combiner must be one of 'mean', 'sqrtn', 'sum', got %r"
                         % (sparse_combiner,))
    columns = _sorted_columns(
        feature_columns, (DenseColumn, CategoricalColumn),
        "Items of feature_columns must be either a _DenseColumn or _CategoricalColumn. "
        "Given: {}")
    builder = _LazyBuilder(features)
    terms = []
    with variable_scope(None, default_name="linear_model"):
        for column in columns:
            with variable_scope(None, default_name=column.name):
                if isinstance(column, CategoricalColumn):
                    weights = get_variable("weights", shape=[column.num_buckets, units],
                                           dtype=dtypes.float32, initializer=Zeros(),
                                           trainable=trainable)
                    terms.append(_combined_embeddings(weights, column._ids(builder),
                                                      sparse_combiner))
                else:
                    dense = _flat_per_example(column._dense_tensor(builder), column)
                    width = int(np.prod(column.variable_shape.as_list()))
                    weights = get_variable("weights", shape=[width, units],
                                           dtype=dtypes.float32, initializer=Zeros(),
                                           trainable=trainable)
                    terms.append(math_ops.matmul(dense, weights))
                if cols_to_vars is not None:
                    cols_to_vars[column] = _variable_list(weights)
        bias = get_variable("bias_weights", shape=[units], dtype=dtypes.float32,
                            initializer=Zeros(), trainable=trainable)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = _variable_list(bias)
        return math_ops.add_n(terms) + bias if len(terms) > 1 else terms[0] + bias

