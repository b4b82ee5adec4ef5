"""`tf.RaggedTensor` (TF's tensorflow/python/ops/ragged/ragged_tensor.py).

A RaggedTensor is `values` (a Tensor, or a RaggedTensor for more ragged dimensions) cut
into rows by a 1-D int64 (or int32) `row_splits` vector: row `i` is
`values[row_splits[i]:row_splits[i + 1]]`. Every other row partition (lengths, starts,
limits, value_rowids, a uniform row length) is converted to row splits when the tensor is
made; a tensor made `from_uniform_row_length` (or `from_tensor`) also remembers its uniform
row length, so its static shape shows that size as TF's does.

The components are EagerTensors in eager mode and graph tensors in graph mode. Every
computation on them is an `@op` over torch tensors (string values are numpy object arrays),
so a RaggedTensor of graph tensors is built, validated and densified by graph nodes that run
in the Session. `validate=True` checks raise TF's InvalidArgumentError when the values are
known: at once in eager mode, when the Session runs in graph mode.
"""
import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors
from tfcompat.framework.ops import convert_to_tensor, op, to_torch
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import array_ops, math_ops
from tfcompat.ops.array_ops import _concrete
from tfcompat.ops.sparse_ops import SparseTensor

_SPLITS_DTYPES = (dtypes.int32, dtypes.int64)


# ---------------------------------------------------------------- torch helpers


def _take(values, index):
    """`values[index]` for a torch tensor or a numpy object array (string values)."""
    if isinstance(values, np.ndarray):
        return values[index.cpu().numpy()]
    return values[index.to(values.device)]


def _lengths(splits):
    return splits[1:] - splits[:-1]


def _rowids(splits, nvals=None):
    """The row of each value (TF's value_rowids) for torch `splits`. Given `nvals` (the
    number of values: a graph's symbolic size of the values) the result has that size, so
    graph shape inference knows it lines up with the values."""
    if nvals is None:
        lengths = _lengths(splits)
        return torch.repeat_interleave(torch.arange(lengths.shape[0], dtype=splits.dtype,
                                                    device=splits.device), lengths)
    positions = torch.arange(nvals, dtype=splits.dtype, device=splits.device)
    return (torch.searchsorted(splits.contiguous(), positions, right=True) - 1).to(splits.dtype)


def _longest(lengths):
    """The largest of `lengths`, 0 when there are none (no test of a graph's symbolic
    size)."""
    return torch.cat([lengths.new_zeros(1), lengths]).max()


def _symbolic_size(t):
    """The value of a graph's fake scalar tensor as a size (a symbolic int known >= 0)."""
    size = t.item()
    torch._check(size >= 0)
    return size


def _counts(ids, n):
    """How many of `ids` are each of 0..n-1 (`n` may be a graph's symbolic size)."""
    return torch.zeros(n, dtype=ids.dtype, device=ids.device).index_add(
        0, ids.long(), torch.ones_like(ids))


def _splits_of_lengths(lengths):
    zero = torch.zeros(1, dtype=lengths.dtype, device=lengths.device)
    return torch.cat([zero, torch.cumsum(lengths, 0).to(lengths.dtype)])


def _invalid(method, check, kind="RaggedTensor"):
    return errors.InvalidArgumentError(
        "Arguments to %s do not form a valid %s%s" % (method, kind, check))


def _check_rank_1(t, what):
    if t.ndim != 1:
        raise ValueError("Shape must be rank 1 but is rank %d for '%s'" % (t.ndim, what))


def _check_nvals(described, nvals):
    """TF's `_from_row_partition` check: the partition covers exactly the values."""
    if int(described) != int(nvals):
        raise errors.InvalidArgumentError(
            "Arguments to _from_row_partition do not form a valid RaggedTensor: the row "
            "partition describes %d values but there are %d" % (int(described), int(nvals)))


def _monotonic(t):
    return t.shape[0] < 2 or bool((t[1:] >= t[:-1]).all())


# ---------------------------------------------------------------- row partitions -> splits


@op(graph_name="RaggedFromRowSplits")
def _from_row_splits_op(row_splits, nvals, validate):
    splits = to_torch(row_splits)
    _check_rank_1(splits, "row_splits")
    if validate and _concrete(splits):
        if splits.shape[0] == 0 or int(splits[0]) != 0:
            raise _invalid("from_row_splits", ":zero")
        if not _monotonic(splits):
            raise _invalid("from_row_splits", ":monotonic")
        _check_nvals(splits[-1], to_torch(nvals))
    return splits.clone()


@op(graph_name="RaggedFromRowLengths")
def _from_row_lengths_op(row_lengths, nvals, validate):
    lengths = to_torch(row_lengths)
    _check_rank_1(lengths, "row_lengths")
    splits = _splits_of_lengths(lengths)
    if validate and _concrete(lengths):
        if bool((lengths < 0).any()):
            raise _invalid("from_row_lengths", "", "RowPartition")
        _check_nvals(splits[-1], to_torch(nvals))
    return splits


@op(graph_name="RaggedFromRowStarts")
def _from_row_starts_op(row_starts, nvals, validate):
    starts = to_torch(row_starts)
    _check_rank_1(starts, "row_starts")
    n = to_torch(nvals)
    if validate and _concrete(starts):
        if starts.shape[0] and int(starts[0]) != 0 or not _monotonic(starts) or \
                starts.shape[0] and int(starts[-1]) > int(n):
            raise _invalid("from_row_starts", "")
    return torch.cat([starts, n.reshape(1).to(starts.dtype).to(starts.device)])


@op(graph_name="RaggedFromRowLimits")
def _from_row_limits_op(row_limits, nvals, validate):
    limits = to_torch(row_limits)
    _check_rank_1(limits, "row_limits")
    splits = torch.cat([torch.zeros(1, dtype=limits.dtype, device=limits.device), limits])
    if validate and _concrete(limits):
        if limits.shape[0] and int(limits[0]) < 0 or not _monotonic(limits):
            raise _invalid("from_row_limits", "")
        _check_nvals(splits[-1], to_torch(nvals))
    return splits


@op(graph_name="RaggedFromValueRowIds")
def _from_value_rowids_op(value_rowids, nrows, nvals, validate):
    rowids = to_torch(value_rowids)
    _check_rank_1(rowids, "value_rowids")
    count = (rowids[-1] + 1 if rowids.shape[0] else rowids.new_zeros(())) if nrows is None \
        else to_torch(nrows)
    n = int(count) if _concrete(rowids) else _symbolic_size(count)
    if validate and _concrete(rowids):
        if rowids.shape[0] and (int(rowids[0]) < 0 or int(rowids[-1]) >= n) or \
                not _monotonic(rowids) or n < 0:
            raise _invalid("from_value_rowids", "")
        _check_nvals(rowids.shape[0], to_torch(nvals))
    positions = torch.arange(n + 1, dtype=rowids.dtype, device=rowids.device)
    return torch.searchsorted(rowids.contiguous(), positions).to(rowids.dtype)  # ids < i


@op(graph_name="RaggedFromUniformRowLength")
def _from_uniform_row_length_op(uniform_row_length, nrows, nvals, validate):
    width = to_torch(uniform_row_length)
    total = to_torch(nvals)
    if nrows is None:
        n = torch.where(width == 0, torch.zeros_like(width), total.to(width.dtype) //
                        torch.where(width == 0, torch.ones_like(width), width))
    else:
        n = to_torch(nrows).to(width.dtype)
    if validate and _concrete(width) and (
            int(width) < 0 or int(n) * int(width) != int(total)):
        raise _invalid("from_uniform_row_length", "")
    count = int(n) if _concrete(width) else n.item()
    return torch.arange(count + 1, dtype=width.dtype, device=width.device) * width


# ---------------------------------------------------------------- splits -> partitions


@op(graph_name="RaggedRowLengths")
def _row_lengths_op(row_splits):
    return _lengths(to_torch(row_splits))


@op(graph_name="RaggedValueRowIds")
def _value_rowids_op(row_splits, values_or_splits, is_splits):
    """value_rowids sized by the values (or, `is_splits`, by nested row splits of them)."""
    reference = to_torch(values_or_splits)
    return _rowids(to_torch(row_splits), reference.shape[0] - int(is_splits))


@op(graph_name="RaggedNRows")
def _nrows_op(row_splits, out_type):
    splits = to_torch(row_splits)
    return torch.tensor(splits.shape[0] - 1, dtype=out_type.torch_dtype)


@op(graph_name="RaggedSameSplits")
def _same_splits_op(row_splits, other_splits):
    """`row_splits`, after TF's check that a binary op's ragged operands line up."""
    a, b = to_torch(row_splits), to_torch(other_splits)
    if _concrete(a) and (a.shape != b.shape or not bool((a == b.to(a.dtype)).all())):
        raise errors.InvalidArgumentError(
            "Inputs must have identical ragged splits (row splits %s and %s)"
            % (a.tolist(), b.tolist()))
    return a.clone()


# ---------------------------------------------------------------- to_tensor / from_tensor


def _coordinates(nested_splits):
    """For each flat value, its index along the outer and each ragged dimension, and the
    bounding size of those dimensions."""
    outer = nested_splits[0]
    nrows = outer.shape[0] - 1
    coords = [torch.arange(nrows, device=outer.device)]
    sizes = [nrows]
    for splits in nested_splits:
        splits = splits.long()
        rowids = _rowids(splits)
        coords = [c[rowids] for c in coords]
        coords.append(torch.arange(rowids.shape[0], device=splits.device) - splits[rowids])
        lengths = _lengths(splits)
        sizes.append(_longest(lengths))
    return coords, sizes


def _cropped(values, inner_shape):
    """`values` cut to at most `inner_shape` in each inner dim (padding is the caller's)."""
    return values[(slice(None),) + tuple(slice(0, s) for s in inner_shape)]


@op(graph_name="RaggedTensorToTensor")
def _to_tensor_op(flat_values, nested_row_splits, default_value, shape):
    values = to_torch(flat_values)
    splits = [to_torch(s) for s in nested_row_splits]
    coords, sizes = _coordinates(splits)
    concrete = _concrete(splits[0])
    sizes = [int(s) if concrete else (s.item() if isinstance(s, torch.Tensor) else s)
             for s in sizes]
    inner = list(values.shape[1:])
    if shape is not None:
        target = TensorShape(shape).as_list() if isinstance(shape, (list, tuple, TensorShape)) \
            else array_ops._as_ints(shape)
        if len(target) != len(sizes) + len(inner):
            raise ValueError("shape %s must have rank %d" % (target, len(sizes) + len(inner)))
        target = [computed if t is None or t < 0 else t
                  for t, computed in zip(target, sizes + inner)]
        sizes, inner_target = target[:len(sizes)], target[len(sizes):]
        keep = torch.ones(coords[0].shape[0], dtype=torch.bool, device=coords[0].device)
        for c, size in zip(coords, sizes):
            keep &= c < size
        coords = [c[keep] for c in coords]
        values = _cropped(_take(values, keep), inner_target)
        inner = inner_target
    if isinstance(values, np.ndarray):
        if not concrete:
            raise NotImplementedError("RaggedTensor.to_tensor of strings in a graph is not "
                                      "implemented by tfcompat (run it eagerly)")
        fill = b"" if default_value is None else to_torch(default_value, dtypes.string)
        out = np.empty(sizes + inner, dtype=object)
        out[...] = fill
        index = tuple(c.cpu().numpy() for c in coords)
        out[index + tuple(slice(0, s) for s in values.shape[1:])] = values
        return out
    dtype = dtypes.from_torch(values.dtype)
    fill = to_torch(0 if default_value is None else default_value, dtype).to(values.device)
    out = fill.expand(sizes + inner).clone()
    index = tuple(c.to(values.device) for c in coords)
    if values.shape[1:] == tuple(inner):
        return out.index_put(index, values)
    out[index + tuple(slice(0, s) for s in values.shape[1:])] = values
    return out


@op(graph_name="RaggedLengthsOfPadded")
def _lengths_of_padded_op(tensor, padding):
    """Row lengths of a padded [nrows, ncols, ...] tensor: each row ends after its last
    element that is not all `padding` (TF's from_tensor with `padding`)."""
    t = to_torch(tensor)
    if isinstance(t, np.ndarray):
        pad = to_torch(padding, dtypes.string)
        differs = torch.from_numpy(np.asarray(t != pad).reshape(t.shape[0], t.shape[1], -1))
    else:
        pad = to_torch(padding, dtypes.from_torch(t.dtype)).to(t.device)
        differs = (t != pad).reshape(t.shape[0], t.shape[1], -1)
    kept = differs.any(2)
    positions = torch.arange(1, t.shape[1] + 1, device=kept.device)
    return (kept * positions).amax(1, keepdim=False) if t.shape[1] else \
        torch.zeros(t.shape[0], dtype=torch.long)


@op(graph_name="RaggedMaskedRows")
def _masked_rows_op(tensor, lengths):
    """The first `lengths[i]` elements of each row `i` of `tensor`, concatenated."""
    t = to_torch(tensor)
    n = to_torch(lengths)
    if _concrete(n) and n.shape[0] and (bool((n < 0).any()) or int(n.max()) > t.shape[1]):
        raise errors.InvalidArgumentError(
            "lengths must be in [0, %d] (the tensor's second dimension), got %s"
            % (t.shape[1], n.tolist()))
    mask = torch.arange(t.shape[1], device=n.device)[None, :] < n[:, None]
    if isinstance(t, np.ndarray):
        return t[mask.cpu().numpy()]
    return t[mask.to(t.device)]


# ---------------------------------------------------------------- to_sparse / from_sparse


@op(graph_name="RaggedTensorToSparse")
def _to_sparse_op(flat_values, nested_row_splits):
    values = to_torch(flat_values)
    coords, sizes = _coordinates([to_torch(s) for s in nested_row_splits])
    inner = list(values.shape[1:])
    if inner:
        inner_index = torch.stack(torch.meshgrid(
            *[torch.arange(s) for s in inner], indexing="ij"), -1).reshape(-1, len(inner))
        per_value = inner_index.shape[0]
        outer = torch.stack(coords, 1).repeat_interleave(per_value, 0)
        indices = torch.cat([outer, inner_index.repeat(len(coords[0]), 1)], 1)
        values = values.reshape(-1)
    else:
        indices = torch.stack(coords, 1)
    shape = torch.stack([torch.as_tensor(s, dtype=torch.int64) for s in sizes + inner])
    return indices.long(), values, shape


@op(graph_name="RaggedFromSparse")
def _rowids_of_sparse_op(indices, dense_shape):
    """Row ids of a right-ragged rank-2 SparseTensor's values (TF's check included)."""
    idx = to_torch(indices).long()
    if _concrete(idx) and idx.shape[0]:
        rows, cols = idx[:, 0], idx[:, 1]
        same_row = rows[1:] == rows[:-1]
        expected = torch.where(same_row, cols[:-1] + 1, torch.zeros_like(cols[1:]))
        if int(cols[0]) != 0 or bool((cols[1:] != expected).any()) or \
                bool((rows[1:] < rows[:-1]).any()):
            raise errors.InvalidArgumentError(
                "SparseTensor is not right-ragged: SparseTensor.indices = %s" % idx.tolist())
    return idx[:, 0]


# ---------------------------------------------------------------- the class


def _convert_partition(partition, what, dtype=None):
    """TF's `_convert_row_partition`: an int32/int64 tensor; Python values become int64."""
    if isinstance(partition, np.ndarray) and partition.dtype == np.int32 and dtype is None:
        t = convert_to_tensor(partition)
    elif dtype is not None:
        t = convert_to_tensor(partition, dtype=dtype)
    else:
        t = convert_to_tensor(partition, dtype_hint=dtypes.int64)
    if t.dtype not in _SPLITS_DTYPES:
        raise ValueError("%s must have dtype int32 or int64" % what)
    return t


def _convert_values(values):
    if isinstance(values, RaggedTensor):
        return values
    values = convert_to_tensor(values)
    if values.shape.rank == 0:
        raise ValueError("values must have rank >= 1 (got a scalar): a RaggedTensor's "
                         "values are indexed by its row partition")
    return values


def _values_and_partition(values, partition, what):
    values = _convert_values(values)
    partition = _convert_partition(partition, what)
    if isinstance(values, RaggedTensor) and values.row_splits.dtype != partition.dtype:
        raise ValueError("dtype mismatch: %s (%s) vs values.row_splits (%s)"
                         % (what, partition.dtype.name, values.row_splits.dtype.name))
    return values, partition


def _outer_size(values, dtype):
    """The number of rows of `values` (a Python int when known, else a scalar tensor)."""
    if isinstance(values, RaggedTensor):
        static = _static_size(values.row_splits)
        return static - 1 if static is not None else values.nrows(out_type=dtype)
    static = _static_size(values)
    return static if static is not None else array_ops.shape(values, out_type=dtype)[0]


def _static_size(tensor):
    """The static size of `tensor`'s first dimension: an int, or None when unknown."""
    dims = tensor.shape.as_list() if tensor.shape.rank is not None else [None]
    return dims[0]


def _as_row_splits_dtype(dtype):
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _SPLITS_DTYPES:
        raise ValueError("row_splits_dtype must be int32 or int64, got %s" % dtype.name)
    return dtype


def _check_validate(validate):
    if not isinstance(validate, bool):
        raise TypeError("validate must have type bool")


@tf_export("RaggedTensor")
class RaggedTensor(object):
    """`tf.RaggedTensor`: a tensor with one or more ragged dimensions (see the module doc).

    Made with the `from_*` classmethods or `tf.ragged.constant`, as in TF; the constructor
    is TF's internal one.
    """

    is_tensor_like = True   # tf.is_tensor is True for composite tensors, as in TF

    def __init__(self, values, row_splits, internal=False, uniform_row_length=None):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the "
                             "factory methods instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length

    # ------------------------------------------------------------ factories

    @classmethod
    def _make(cls, values, splits_fn, partition, what, validate, *extra):
        values, partition = _values_and_partition(values, partition, what)
        splits = splits_fn(partition, *extra, _outer_size(values, partition.dtype), validate)
        return cls(values, splits, internal=True)

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """`values` cut at `row_splits` (row i is values[row_splits[i]:row_splits[i+1]])."""
        _check_validate(validate)
        if isinstance(row_splits, (list, tuple)) and not row_splits:
            raise ValueError("row_splits tensor may not be empty.")
        return cls._make(values, _from_row_splits_op, row_splits, "row_splits", validate)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Row i has `row_lengths[i]` values."""
        _check_validate(validate)
        return cls._make(values, _from_row_lengths_op, row_lengths, "row_lengths", validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Row i starts at `row_starts[i]` (the last row ends with `values`)."""
        _check_validate(validate)
        return cls._make(values, _from_row_starts_op, row_starts, "row_starts", validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Row i ends at `row_limits[i]` (the first row starts at 0)."""
        _check_validate(validate)
        return cls._make(values, _from_row_limits_op, row_limits, "row_limits", validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Value j goes to row `value_rowids[j]` (sorted); `nrows` rows (default: the last
        row id + 1), so trailing empty rows need `nrows`."""
        _check_validate(validate)
        values, rowids = _values_and_partition(values, value_rowids, "value_rowids")
        if nrows is not None:
            nrows = _convert_partition(nrows, "nrows", rowids.dtype)
        splits = _from_value_rowids_op(rowids, nrows, _outer_size(values, rowids.dtype),
                                       validate)
        return cls(values, splits, internal=True)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True,
                                name=None):
        """Rows of `uniform_row_length` values each; the static shape shows that size."""
        _check_validate(validate)
        values = _convert_values(values)
        dtype = values.row_splits.dtype if isinstance(values, RaggedTensor) else None
        width = _convert_partition(uniform_row_length, "uniform_row_length", dtype)
        if nrows is not None:
            nrows = _convert_partition(nrows, "nrows", width.dtype)
        splits = _from_uniform_row_length_op(width, nrows, _outer_size(values, width.dtype),
                                             validate)
        return cls(values, splits, internal=True, uniform_row_length=width)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None,
                               validate=True):
        """One ragged dimension per entry of `nested_row_splits` (outermost first)."""
        _check_validate(validate)
        if isinstance(nested_row_splits, (EagerTensor,)) or not isinstance(
                nested_row_splits, (list, tuple)):
            raise TypeError("nested_row_splits must be a list of Tensors")
        result = flat_values
        for splits in reversed(nested_row_splits):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        """One ragged dimension per entry of `nested_row_lengths` (outermost first)."""
        _check_validate(validate)
        if not isinstance(nested_row_lengths, (list, tuple)):
            raise TypeError("nested_row_lengths must be a list of Tensors")
        result = flat_values
        for lengths in reversed(nested_row_lengths):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate=True):
        """One ragged dimension per entry of `nested_value_rowids` (outermost first)."""
        _check_validate(validate)
        if not isinstance(nested_value_rowids, (list, tuple)):
            raise TypeError("nested_value_rowids must be a list of Tensors")
        if nested_nrows is None:
            nested_nrows = [None] * len(nested_value_rowids)
        elif len(nested_nrows) != len(nested_value_rowids):
            raise ValueError("Argument `nested_nrows` must have the same length as argument "
                             "`nested_value_rowids`")
        result = flat_values
        for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
            result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=dtypes.int64):
        """A dense tensor as a RaggedTensor: every row whole (a uniform row length, as in
        TF), the first `lengths[i]` values of row i, or each row up to its trailing
        `padding` values. `ragged_rank > 1` makes the outer dims ragged too; `lengths`
        and `padding` then apply to the innermost ragged dim."""
        dtype = _as_row_splits_dtype(row_splits_dtype)
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        if not isinstance(ragged_rank, int) or ragged_rank <= 0:
            raise ValueError("Argument `ragged_rank` must be an int > 0. Received "
                             "ragged_rank=%r" % (ragged_rank,))
        tensor = convert_to_tensor(tensor)
        rank = tensor.shape.rank
        if rank is not None and rank <= ragged_rank:
            raise ValueError("Expected tensor with rank > ragged_rank (%d), got shape %s"
                             % (ragged_rank, tensor.shape))
        if lengths is not None:
            lengths = convert_to_tensor(lengths)
            if lengths.shape.rank != 1:
                raise NotImplementedError(
                    "RaggedTensor.from_tensor with nested (per ragged dimension) lengths is "
                    "not implemented by tfcompat")
        dims = tensor.shape.as_list()
        if ragged_rank > 1:
            if any(d is None for d in dims[:ragged_rank + 1]):
                raise NotImplementedError(
                    "RaggedTensor.from_tensor(ragged_rank > 1) of a tensor whose outer "
                    "dimensions are not statically known is not implemented by tfcompat")
            flat_rows = int(np.prod(dims[:ragged_rank]))
            result = cls.from_tensor(array_ops.reshape(tensor, [flat_rows] + dims[ragged_rank:]),
                                     lengths, padding, row_splits_dtype=dtype)
            for axis in range(ragged_rank - 1, 0, -1):
                result = cls.from_uniform_row_length(
                    result, convert_to_tensor(dims[axis], dtype=dtype),
                    nrows=convert_to_tensor(int(np.prod(dims[:axis])), dtype=dtype),
                    validate=False)
            return result
        if padding is not None:
            lengths = _lengths_of_padded_op(tensor, padding)
        if lengths is not None:
            lengths = math_ops.cast(lengths, dtype)
            return cls.from_row_lengths(_masked_rows_op(tensor, lengths), lengths,
                                        validate=False)
        if dims[0] is None or dims[1] is None:
            raise NotImplementedError(
                "RaggedTensor.from_tensor of a tensor whose first two dimensions are not "
                "statically known is not implemented by tfcompat (give `lengths`)")
        values = array_ops.reshape(tensor, [dims[0] * dims[1]] + dims[2:])
        return cls.from_uniform_row_length(values, convert_to_tensor(dims[1], dtype=dtype),
                                           nrows=convert_to_tensor(dims[0], dtype=dtype),
                                           validate=False)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64):
        """A rank-2 right-ragged SparseTensor (each row's columns 0..k-1, in order) as a
        RaggedTensor; other SparseTensors raise InvalidArgumentError as in TF."""
        dtype = _as_row_splits_dtype(row_splits_dtype)
        if not isinstance(st_input, SparseTensor):
            raise TypeError("Expected SparseTensor, got %s" % type(st_input).__name__)
        if st_input.indices.shape[1] not in (None, 2):
            raise ValueError("rank(st_input) must be 2.")
        rowids = math_ops.cast(_rowids_of_sparse_op(st_input.indices, st_input.dense_shape),
                                dtype)
        nrows = math_ops.cast(st_input.dense_shape[0], dtype)
        return cls.from_value_rowids(st_input.values, rowids, nrows, validate=False)

    # ------------------------------------------------------------ components

    values = property(lambda self: self._values,
                      doc="The concatenated rows (a Tensor or a RaggedTensor).")
    row_splits = property(lambda self: self._row_splits,
                          doc="Where each row starts in `values`, plus len(values) at the end.")

    @property
    def flat_values(self):
        """The innermost values: a Tensor."""
        values = self._values
        while isinstance(values, RaggedTensor):
            values = values.values
        return values

    @property
    def nested_row_splits(self):
        """The row_splits of this and each nested ragged level, outermost first."""
        splits = [self._row_splits]
        values = self._values
        while isinstance(values, RaggedTensor):
            splits.append(values.row_splits)
            values = values.values
        return tuple(splits)

    @property
    def ragged_rank(self):
        values = self._values
        return values.ragged_rank + 1 if isinstance(values, RaggedTensor) else 1

    dtype = property(lambda self: self._values.dtype)
    uniform_row_length = property(lambda self: self._uniform_row_length,
                                  doc="The row length when it was given as uniform, else None.")

    @property
    def shape(self):
        """The static shape: ragged dims are None (uniform ones show their length)."""
        nrows = _static_size(self._row_splits)
        width = None
        if self._uniform_row_length is not None:
            if type(self._uniform_row_length) is EagerTensor:
                width = int(self._uniform_row_length)
        return TensorShape([None if nrows is None else nrows - 1, width]).concatenate(
            self._values.shape[1:])

    def get_shape(self):
        return self.shape

    @property
    def graph(self):
        return self._row_splits.graph

    def row_lengths(self, axis=1, name=None):
        """The length of each row (axis=1), or of each row of the ragged dim `axis`."""
        if axis == 0:
            return self.nrows()
        if axis == 1:
            return _row_lengths_op(self._row_splits)
        if axis > 1 and isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        raise NotImplementedError("RaggedTensor.row_lengths(axis=%r) is not implemented by "
                                  "tfcompat (axis must name a ragged dimension)" % (axis,))

    def nested_row_lengths(self, name=None):
        return tuple(_row_lengths_op(s) for s in self.nested_row_splits)

    def row_starts(self, name=None):
        return self._row_splits[:-1]

    def row_limits(self, name=None):
        return self._row_splits[1:]

    def value_rowids(self, name=None):
        """The row index of each value: `values[i]` is in row `value_rowids()[i]`."""
        if isinstance(self._values, RaggedTensor):
            return _value_rowids_op(self._row_splits, self._values.row_splits, True)
        return _value_rowids_op(self._row_splits, self._values, False)

    def nested_value_rowids(self, name=None):
        rowids = [self.value_rowids()]
        values = self._values
        while isinstance(values, RaggedTensor):
            rowids.append(values.value_rowids())
            values = values.values
        return tuple(rowids)

    def nrows(self, out_type=None, name=None):
        """The number of rows, a scalar of `out_type` (default: the row_splits dtype)."""
        out_type = self._row_splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        return _nrows_op(self._row_splits, out_type)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape holding this tensor: [nrows, longest row, ...]."""
        out_type = self._row_splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        sizes = [self.nrows(out_type)]
        level = self
        while isinstance(level, RaggedTensor):
            lengths = level.row_lengths()
            sizes.append(_longest_op(lengths, out_type))
            level = level.values
        inner = array_ops.shape(level, out_type=out_type)[1:]
        shape = array_ops.concat([array_ops.stack(sizes), inner], 0)
        return shape if axis is None else array_ops.gather(shape, axis)

    # ------------------------------------------------------------ new values

    def with_values(self, new_values):
        """The same row partition over `new_values` (same outer dim)."""
        new_values = _convert_values(new_values)
        if isinstance(new_values, RaggedTensor) and \
                new_values.row_splits.dtype != self._row_splits.dtype:
            raise ValueError("new_values.row_splits.dtype must be %s"
                             % self._row_splits.dtype.name)
        return RaggedTensor(new_values, self._row_splits, internal=True,
                            uniform_row_length=self._uniform_row_length)

    def with_flat_values(self, new_values):
        """The same nested row partitions over `new_values` (same outer dim as
        `flat_values`)."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        """This tensor with row splits (all levels) of `dtype` (int32 or int64)."""
        dtype = _as_row_splits_dtype(dtype)
        if dtype == self._row_splits.dtype:
            return self
        values = self._values.with_row_splits_dtype(dtype) \
            if isinstance(self._values, RaggedTensor) else self._values
        width = self._uniform_row_length
        return RaggedTensor(values, math_ops.cast(self._row_splits, dtype), internal=True,
                            uniform_row_length=None if width is None else
                            math_ops.cast(width, dtype))

    # ------------------------------------------------------------ conversions

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor, padded with `default_value` (0 / b""); `shape` crops or pads
        to a given shape (None dims: the bounding size)."""
        return _to_tensor_op(self.flat_values, list(self.nested_row_splits), default_value,
                             shape)

    def to_sparse(self, name=None):
        """A SparseTensor of every value (its dense_shape is the bounding shape)."""
        return SparseTensor(*_to_sparse_op(self.flat_values, list(self.nested_row_splits)))

    def _is_eager(self):
        return type(self._row_splits) is EagerTensor

    def _require_eager(self, method):
        if not self._is_eager():
            raise ValueError("RaggedTensor.%s() is only supported in eager mode." % method)

    def to_list(self):
        """The nested Python list of the values (eager mode)."""
        self._require_eager("to_list")
        values = self._values.to_list() if isinstance(self._values, RaggedTensor) else \
            self._values.numpy().tolist()
        splits = self._row_splits.numpy().tolist()
        return [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def numpy(self):
        """TF's numpy(): rows of equal length stack into one array, else a 1-D object array
        of the rows (eager mode)."""
        self._require_eager("numpy")
        values = self._values.numpy()
        splits = self._row_splits.numpy()
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        if any(len(row) != len(rows[0]) for row in rows):
            out = np.empty(len(rows), dtype=object)
            out[:] = rows
            return out
        return np.array(rows)

    def __repr__(self):
        if self._is_eager():
            with np.printoptions(formatter={"all": _formatter}):
                return "<tf.RaggedTensor %s>" % _formatter(self.numpy())
        return "tf.RaggedTensor(values=%s, row_splits=%s)" % (self._values, self._row_splits)

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    def __len__(self):
        nrows = _static_size(self._row_splits)
        if nrows is None:
            raise TypeError("len() of a RaggedTensor with an unknown number of rows")
        return nrows - 1

    def __iter__(self):
        self._require_eager("__iter__")
        return (self[i] for i in range(len(self)))


@op(graph_name="RaggedLongestRow")
def _longest_op(lengths, out_type):
    """The longest of `lengths` as `out_type` (0 for no rows)."""
    t = to_torch(lengths)
    return _longest(t).to(out_type.torch_dtype)


def _formatter(x):
    """TF's ragged repr: numpy's array2string with ", " between elements, at every level."""
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())
    return str(x)


def is_ragged(value):
    """TF's ragged_tensor.is_ragged."""
    return isinstance(value, RaggedTensor)
