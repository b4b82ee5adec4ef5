"""File datasets: `TFRecordDataset`, `TextLineDataset`, `FixedLengthRecordDataset`, CSV
(`tf.data.experimental.CsvDataset`, `make_csv_dataset`), batched Example files
(`make_batched_features_dataset`) and SQLite queries (`SqlDataset`).

Filenames may be a string, a list, a string tensor or a dataset of filenames. TF semantics:
files are read in order; with `num_parallel_reads` files are read in parallel and their
records interleaved (cycle order, one record from each file in turn); TFRecord CRCs are
checked (`DataLossError` on a corrupted or truncated record).

Read in order, the records of a file come in blocks, and a following `batch` (or a
vectorized `map`) gets them as whole string vectors (`_iter_chunks`).
"""
import collections
import csv
import gzip
import itertools
import re
import sqlite3

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.data import execution, structure
from tfcompat.data.dataset_ops import (Chunk, Dataset, InterleaveDataset, TensorSliceDataset,
                                       AUTOTUNE)
from tfcompat.framework import dtypes, errors
from tfcompat.framework.tensor import EagerTensor
from tfcompat.function import TensorSpec
from tfcompat.io import gfile, parsing_ops
from tfcompat.io.gfile import _open_for_read
from tfcompat.io.tf_record import TFRecordOptions, _open_records, read_record_blocks
from tfcompat.ops import array_ops


def _filenames_dataset(filenames):
    if isinstance(filenames, Dataset):
        spec = filenames.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype is not dtypes.string:
            raise TypeError("`filenames` must be a dataset of tf.string scalars, got %r"
                            % (spec,))
        return filenames
    if isinstance(filenames, (str, bytes)):
        filenames = [filenames]
    if isinstance(filenames, (list, tuple)) and not filenames:
        raise ValueError("`filenames` must not be empty")
    values = structure.normalize_components(
        np.array([f.encode() if isinstance(f, str) else f for f in filenames], dtype=object)
        if isinstance(filenames, (list, tuple)) else filenames)
    if values.dtype is not dtypes.string:
        raise TypeError("`filenames` must be a string tensor, got %s" % values.dtype.name)
    if values.shape.rank == 0:
        values = array_ops.reshape(values, [-1])
    return TensorSliceDataset(values)


def _scalar_bytes(value):
    out = np.empty((), dtype=object)
    out[()] = value
    return EagerTensor(out)


def _string_vector(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return EagerTensor(out)


def _regroup(blocks, size):
    """(items, error) pairs: lists of `size` items (the last may be shorter) from lists of any
    length; an error of `blocks` comes with the items before it."""
    pending = []
    try:
        for block in blocks:
            if pending:
                block = pending + block
            whole = len(block) - len(block) % size
            for start in range(0, whole, size):
                yield block[start:start + size], None
            pending = block[whole:]
    except Exception as error:
        yield pending, error
        return
    if pending:
        yield pending, None


class _FileDataset(Dataset):
    """Records of each file of `filenames`, files in order (or interleaved)."""

    def __init__(self, filenames, num_parallel_reads):
        self._files = _filenames_dataset(filenames)
        self._inputs = (self._files,)
        self._parallel = 0 if num_parallel_reads is None else \
            execution.parallelism(num_parallel_reads)

    def _compute_spec(self):
        return TensorSpec([], dtypes.string)

    def _peek_is_cheap(self):
        return not self._captures()

    def _records(self, filename):
        raise NotImplementedError

    def _record_blocks(self, filename):
        """The records of one file in lists."""
        records = self._records(filename)
        while True:
            block = list(itertools.islice(records, 1024))
            if not block:
                return
            yield block

    def _iter_chunks(self, env, size):
        if self._parallel > 1:
            yield from Dataset._iter_chunks(self, env, size)
            return
        blocks = (block for name in self._files._iter(env)
                  for block in self._record_blocks(name.numpy()))
        for records, error in _regroup(blocks, size):
            yield Chunk(len(records), stacked=_string_vector(records), error=error)

    def _iter(self, env):
        files = self._files._iter(env)
        if self._parallel <= 1:
            for name in files:
                yield from map(_scalar_bytes, self._records(name.numpy()))
            return
        per_file = _PerFile(self, [f.numpy() for f in files])
        yield from InterleaveDataset(per_file, lambda i: per_file.dataset(i), self._parallel,
                                     1, self._parallel)._iter({})


class _PerFile(Dataset):
    """Index dataset used to interleave the files of a parallel read."""

    def __init__(self, owner, names):
        self._owner = owner
        self._names = names

    def _compute_spec(self):
        return TensorSpec([], dtypes.int64)

    def _iter(self, env):
        return iter(range(len(self._names)))

    def dataset(self, index):
        return _OneFile(self._owner, self._names[index])


class _OneFile(Dataset):
    def __init__(self, owner, name):
        self._owner = owner
        self._name = name

    def _compute_spec(self):
        return TensorSpec([], dtypes.string)

    def _iter(self, env):
        return map(_scalar_bytes, self._owner._records(self._name))


@tf_export("data.TFRecordDataset")
class TFRecordDataset(_FileDataset):
    """`tf.data.TFRecordDataset(filenames, compression_type=None, buffer_size=None,
    num_parallel_reads=None)`: the records of TFRecord files, as scalar strings."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        super(TFRecordDataset, self).__init__(filenames, num_parallel_reads)
        self._compression = TFRecordOptions.get_compression_type_string(
            _python_string(compression_type))
        self._buffer = None if buffer_size is None else int(buffer_size)

    def _record_blocks(self, filename):
        return read_record_blocks(filename, self._compression, self._buffer)

    def _records(self, filename):
        return itertools.chain.from_iterable(self._record_blocks(filename))


def _python_string(value):
    if value is None or isinstance(value, (str, bytes)):
        return value
    return structure.torch_value(value)[()]


@tf_export("data.TextLineDataset")
class TextLineDataset(_FileDataset):
    """The lines of text files, without line terminators (`\\n` or `\\r\\n`)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        super(TextLineDataset, self).__init__(filenames, num_parallel_reads)
        self._compression = TFRecordOptions.get_compression_type_string(
            _python_string(compression_type))

    def _records(self, filename):
        name = filename.decode("utf-8") if isinstance(filename, bytes) else filename
        f = _open_records(name, self._compression, None)
        try:
            for line in f:
                if line.endswith(b"\n"):
                    line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
                yield line
        finally:
            f.close()


@tf_export("data.FixedLengthRecordDataset")
class FixedLengthRecordDataset(_FileDataset):
    """Fixed-size records of binary files (after `header_bytes`, before `footer_bytes`)."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None,
                 name=None):
        super(FixedLengthRecordDataset, self).__init__(filenames, num_parallel_reads)
        self._record = int(record_bytes)
        self._header = int(header_bytes or 0)
        self._footer = int(footer_bytes or 0)
        if self._record <= 0:
            raise errors.InvalidArgumentError("record_bytes must be positive")
        self._compression = TFRecordOptions.get_compression_type_string(
            _python_string(compression_type))

    def _records(self, filename):
        name = filename.decode("utf-8") if isinstance(filename, bytes) else filename
        if self._compression:
            f = _open_records(name, self._compression, None)
            data = f.read()
            f.close()
        else:
            with _open_for_read(name) as f:
                data = f.read()
        body = len(data) - self._header - self._footer
        if body < 0 or body % self._record:
            raise errors.InvalidArgumentError(
                "Excluding the header (%d bytes) and footer (%d bytes), input file \"%s\" has "
                "body length %d, which is not an exact multiple of the record length (%d "
                "bytes)." % (self._header, self._footer, name, max(body, 0), self._record))
        for start in range(self._header, self._header + body, self._record):
            yield data[start:start + self._record]




# ---------------------------------------------------------------- CSV

_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
_INT_FIELD = re.compile(rb"\s*[+-]?\d+\s*\Z")
_FLOAT_FIELD = re.compile(rb"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|"
                          rb"infinity|nan)\s*\Z", re.IGNORECASE)
_INT_RANGES = {dtypes.int32: (-2 ** 31, 2 ** 31 - 1), dtypes.int64: (-2 ** 63, 2 ** 63 - 1)}
_FLOAT_NAMES = {dtypes.float32: "float", dtypes.float64: "double"}


def _csv_defaults(record_defaults):
    """(dtype, default) of each output column; default None marks a required field (TF: a
    dtype, or a default tensor with no value)."""
    columns = []
    for index, default in enumerate(record_defaults):
        if isinstance(default, dtypes.DType):
            if default not in _CSV_TYPES:
                raise ValueError("Attempt to convert a value (%r) with an unsupported type (%s) "
                                 "to a Tensor." % (default, type(default)))
            columns.append((default, None))
            continue
        tensor = structure.normalize_components(default)
        if tensor.dtype not in _CSV_TYPES:
            raise errors.InvalidArgumentError(
                "Unsupported dtype %s for record_defaults[%d] (float32, float64, int32, int64 "
                "or string)" % (tensor.dtype.name, index))
        values = np.asarray(structure.torch_value(tensor)).reshape(-1) \
            if tensor.dtype is dtypes.string else \
            structure.torch_value(tensor).reshape(-1).tolist()
        if len(values) > 1:
            raise errors.InvalidArgumentError("There should only be 1 default per field but "
                                              "field %d has %d" % (index, len(values)))
        columns.append((tensor.dtype, values[0] if len(values) else None))
    return columns


def _csv_records(data, delim, use_quote_delim):
    """The records of CSV text `data` (bytes) as lists of fields, as TF's CsvDataset reads
    them: records end at \\n or \\r\\n; with `use_quote_delim` a field in double quotes may
    hold delimiters, line breaks and doubled quotes, and other fields may not hold quotes."""
    stops = re.compile(b"[" + re.escape(delim) + b"\r\n]")
    pos, end = 0, len(data)
    while pos < end:
        fields = []
        while True:
            if use_quote_delim and data[pos:pos + 1] == b'"':
                parts, pos = [], pos + 1
                while True:
                    close = data.find(b'"', pos)
                    if close < 0:
                        raise errors.InvalidArgumentError("Reached end of file without closing "
                                                          "quoted field in record")
                    parts.append(data[pos:close])
                    pos = close + 1
                    if data[pos:pos + 1] != b'"':
                        break
                    parts.append(b'"')
                    pos += 1
                if pos < end and data[pos:pos + 1] not in (delim, b"\r", b"\n"):
                    raise errors.InvalidArgumentError("Quote inside a string has to be escaped "
                                                      "by another quote")
                fields.append(b"".join(parts))
            else:
                found = stops.search(data, pos)
                stop = found.start() if found else end
                field = data[pos:stop]
                if use_quote_delim and b'"' in field:
                    raise errors.InvalidArgumentError("Unquoted fields cannot have quotes/CRLFs "
                                                      "inside")
                fields.append(field)
                pos = stop
            if pos >= end:
                break
            if data[pos:pos + 1] == delim:
                pos += 1
                if pos >= end:
                    fields.append(b"")
                    break
                continue
            pos += 2 if data[pos:pos + 2] == b"\r\n" else 1
            break
        yield fields


def _csv_value(field, dtype, column):
    """A non-empty CSV field as a value of `dtype` (TF's parsing: surrounding spaces allowed
    in numbers)."""
    if dtype is dtypes.string:
        return field
    if dtype in _INT_RANGES:
        low, high = _INT_RANGES[dtype]
        if _INT_FIELD.match(field) and low <= int(field) <= high:
            return int(field)
        raise errors.InvalidArgumentError("Field %d in record is not a valid %s: %s"
                                          % (column, dtype.name, field.decode("utf-8",
                                                                              "replace")))
    if _FLOAT_FIELD.match(field):
        return float(field)
    raise errors.InvalidArgumentError("Field %d in record is not a valid %s: %s"
                                      % (column, _FLOAT_NAMES[dtype],
                                         field.decode("utf-8", "replace")))


def _check_columns(cols, what):
    if cols is None:
        return []
    cols = [int(c) for c in (structure.torch_value(cols).reshape(-1).tolist()
                             if isinstance(cols, EagerTensor) else cols)]
    if any(c < 0 for c in cols):
        raise errors.InvalidArgumentError("%s should be >= 0" % what)
    if any(b <= a for a, b in zip(cols, cols[1:])):
        raise errors.InvalidArgumentError("%s should be strictly increasing indices" % what)
    return cols


@tf_export("data.experimental.CsvDataset")
class CsvDataset(Dataset):
    """`tf.data.experimental.CsvDataset(filenames, record_defaults, ...)`: one tuple of
    scalars per CSV record, files in order.

    TF's semantics: `record_defaults` gives each output column's dtype and default (a dtype
    alone: the field is required); an empty field or `na_value` takes the default (a
    required one raises InvalidArgumentError "Field i is required but missing in record!");
    a record must have exactly the expected fields (`select_cols` / `exclude_cols` pick
    them, strictly increasing); `header=True` skips each file's first record.
    """

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None, name=None):
        self._files = _filenames_dataset(filenames)
        self._inputs = (self._files,)
        self._columns = _csv_defaults(record_defaults)
        self._compression = TFRecordOptions.get_compression_type_string(
            _python_string(compression_type))
        self._header = bool(header)
        delim = _python_string(field_delim)
        self._delim = delim.encode("utf-8") if isinstance(delim, str) else delim
        if len(self._delim) != 1:
            raise errors.InvalidArgumentError("field_delim should be only 1 char")
        self._quote = bool(use_quote_delim)
        na = _python_string(na_value)
        self._na = na.encode("utf-8") if isinstance(na, str) else na
        self._select = _check_columns(select_cols, "select_cols")
        self._exclude = set(_check_columns(exclude_cols, "exclude_cols"))
        if self._select and self._exclude:
            raise errors.InvalidArgumentError("Either select_cols or exclude_cols should be "
                                              "empty")
        if self._select and len(self._select) != len(self._columns):
            raise errors.InvalidArgumentError("select_cols should match output size")

    def _compute_spec(self):
        return tuple(TensorSpec([], dtype) for dtype, _ in self._columns)

    def _output_index(self):
        """input column -> output column, or None for a column not read (or, after the last
        selected column, -1: the rest of the record is ignored)."""
        if self._select:
            positions = {c: k for k, c in enumerate(self._select)}
            last = self._select[-1]
            return lambda i: positions.get(i, -1 if i > last else None)
        if self._exclude:
            kept = itertools.count()
            table = {}
            return lambda i: None if i in self._exclude else table.setdefault(i, next(kept))
        return lambda i: i

    def _record(self, fields, output_of):
        count = len(self._columns)
        row, filled = [None] * count, 0
        for column, field in enumerate(fields):
            k = output_of(column)
            if k is None:
                continue
            if k == -1:
                break
            if k >= count:
                raise errors.InvalidArgumentError("Expect %d fields but have more in record"
                                                  % count)
            dtype, default = self._columns[k]
            if not field or field == self._na:
                if default is None:
                    raise errors.InvalidArgumentError("Field %d is required but missing in "
                                                      "record!" % k)
                row[k] = default
            else:
                row[k] = _csv_value(field, dtype, k)
            filled += 1
        if filled < count:
            raise errors.InvalidArgumentError("Expect %d fields but have %d in record"
                                              % (count, filled))
        return row

    def _rows(self, env, skip_bad_records=False):
        """Each record's values (Python numbers / bytes), files in order; a record with bad
        fields raises InvalidArgumentError, or is left out with `skip_bad_records`."""
        for filename in self._files._iter(env):
            name = filename.numpy()
            name = name.decode("utf-8") if isinstance(name, bytes) else name
            f = _open_records(name, self._compression, None)
            try:
                data = f.read()
            finally:
                f.close()
            records = _csv_records(data, self._delim, self._quote)
            if self._header:
                next(records, None)
            output_of = self._output_index()
            for fields in records:
                try:
                    row = self._record(fields, output_of)
                except errors.InvalidArgumentError:
                    if skip_bad_records:
                        continue
                    raise
                yield row

    def _columns_of(self, rows):
        """The rows as one vector tensor per column."""
        out = []
        for (dtype, _), values in zip(self._columns, zip(*rows) if rows else
                                      [()] * len(self._columns)):
            if dtype is dtypes.string:
                out.append(_string_vector(list(values)))
            else:
                out.append(EagerTensor(torch.tensor(values, dtype=dtype.torch_dtype)))
        return tuple(out)

    def _iter_ignoring_errors(self, env):
        return self._elements(self._rows(env, skip_bad_records=True))

    def _iter(self, env):
        return self._elements(self._rows(env))

    def _elements(self, rows):
        for row in rows:
            yield tuple(_scalar_bytes(value) if dtype is dtypes.string else
                        EagerTensor(torch.tensor(value, dtype=dtype.torch_dtype))
                        for (dtype, _), value in zip(self._columns, row))

    def _iter_chunks(self, env, size):
        rows = self._rows(env)
        while True:
            chunk, error = [], None
            try:
                chunk.extend(itertools.islice(rows, size))
            except Exception as e:  # after the records before it
                error = e
            if not chunk and error is None:
                return
            yield Chunk(len(chunk), stacked=self._columns_of(chunk), error=error)
            if error is not None or len(chunk) < size:
                return


def _csv_file_names(file_pattern):
    patterns = file_pattern if isinstance(file_pattern, (list, tuple)) else [file_pattern]
    if not patterns:
        raise ValueError("Argument `file_pattern` should not be empty.")
    names = sorted({name for pattern in patterns for name in gfile.glob(pattern)})
    if not names:
        raise ValueError("No files match `file_pattern` %s." % (file_pattern,))
    return names


def _csv_text_opener(compression_type, encoding):
    kind = _python_string(compression_type)
    kind = kind.decode() if isinstance(kind, bytes) else kind
    if kind in (None, ""):
        return lambda name: open(name, "r", encoding=encoding, newline="")
    if kind == "GZIP":
        return lambda name: gzip.open(name, "rt", encoding=encoding, newline="")
    if kind == "ZLIB":
        raise ValueError("`compression_type` %s is not supported for probing columns."
                         % kind)
    raise ValueError("Received unknown `compression_type` %s. Expected: GZIP, ZLIB or \"\" "
                     "(empty string)." % kind)


def _csv_reader(f, field_delim, use_quote_delim):
    return csv.reader(f, delimiter=field_delim,
                      quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)


def _infer_column_names(names, field_delim, use_quote_delim, opener):
    column_names = None
    for name in names:
        with opener(name) as f:
            header = next(_csv_reader(f, field_delim, use_quote_delim), None)
        if header is None:
            raise ValueError("Failed when reading the header line of %s. Is it an empty file?"
                             % name)
        if column_names is not None and header != column_names:
            raise ValueError("All input CSV files should have the same column names in the "
                             "header row. File %s has different column names." % name)
        column_names = header
    return column_names


def _fits(text, kind):
    """Whether a CSV field parses as `kind` (the checks of TF's type inference)."""
    try:
        if kind in _INT_RANGES:
            low, high = _INT_RANGES[kind]
            return low <= int(text) <= high
        value = kind.as_numpy_dtype(float(text))
        return bool(value < np.inf)
    except (ValueError, OverflowError):
        return False


def _inferred_type(text, na_value, previous):
    """TF's type inference of one field: the least permissive of int32, int64, float32,
    float64, string that also holds the column's earlier fields."""
    if text in ("", na_value):
        return previous
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string]
    for i, kind in enumerate(order):
        if (kind is dtypes.string or _fits(text, kind)) and \
                (previous is None or previous in order[:i + 1]):
            return kind
    return dtypes.string


def _infer_column_defaults(names, num_columns, field_delim, use_quote_delim, na_value, header,
                           num_rows_for_inference, select_columns, opener):
    columns = select_columns if select_columns is not None else range(num_columns)
    kinds = [None] * len(columns)
    rows_read = 0
    for name in names:
        with opener(name) as f:
            reader = _csv_reader(f, field_delim, use_quote_delim)
            row_number = 1
            if header:
                next(reader, None)
                row_number += 1
            for row in reader:
                if num_rows_for_inference is not None and rows_read >= num_rows_for_inference:
                    break
                if len(row) != num_columns:
                    raise ValueError("Problem inferring types: CSV row %d has %d number of "
                                     "fields. Expected: %d." % (row_number, len(row),
                                                                num_columns))
                row_number += 1
                rows_read += 1
                kinds = [_inferred_type(row[c], na_value, kind)
                         for c, kind in zip(columns, kinds)]
    kinds = [kind or dtypes.string for kind in kinds]
    return [[""] if kind is dtypes.string else
            EagerTensor(torch.zeros(1, dtype=kind.torch_dtype)) for kind in kinds]


def _column_indices(select_columns, column_names):
    positions = {name: i for i, name in enumerate(column_names)}
    indices = []
    for column in select_columns:
        if isinstance(column, int):
            if not 0 <= column < len(column_names):
                raise ValueError("Column index %d specified in `select_columns` should be > 0 "
                                 " and <= %d, which is the number of columns."
                                 % (column, len(column_names)))
            indices.append(column)
        elif column not in positions:
            raise ValueError("Column %s specified in `select_columns` must be of one of the "
                             "columns: %s." % (column, list(positions)))
        else:
            indices.append(positions[column])
    if len(set(indices)) != len(indices):
        duplicates = {i for i in indices if indices.count(i) > 1}
        raise ValueError("The `select_columns` argument contains duplicate columns: %s."
                         % duplicates)
    return sorted(indices)


@tf_export("data.experimental.make_csv_dataset")
def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """TF's `make_csv_dataset`: batches of (features OrderedDict, label) (or the features
    alone without `label_name`) from CSV files.

    As TF: column names come from the first file's header, column types are inferred from
    the first `num_rows_for_inference` rows (int32, int64, float32, float64 or string, empty
    fields defaulting to 0 / ""), files are shuffled, read `num_parallel_reads` at a time
    and interleaved, rows shuffled with `shuffle_buffer_size` and repeated `num_epochs`
    times (None: forever, and then batches have a static batch size). Shuffled orders
    differ from TF's (see `Dataset.shuffle`).
    """
    num_parallel_reads = 1 if num_parallel_reads is None else num_parallel_reads
    prefetch_buffer_size = AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size
    names = _csv_file_names(file_pattern)
    dataset = TensorSliceDataset(np.array([n.encode("utf-8") for n in names], dtype=object))
    if shuffle:
        dataset = dataset.shuffle(len(names), shuffle_seed)
    opener = None
    if column_names is None or column_defaults is None:
        opener = _csv_text_opener(compression_type, encoding)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is "
                             "provided.")
        column_names = _infer_column_names(names, field_delim, use_quote_delim, opener)
    column_names = list(column_names)
    if len(column_names) != len(set(column_names)):
        duplicates = {n for n in column_names if column_names.count(n) > 1}
        raise ValueError("Either `column_names` argument or CSV header row contains duplicate "
                         "column names: %s." % duplicates)
    if select_columns is not None:
        select_columns = _column_indices(select_columns, column_names)
    if column_defaults is not None:
        column_defaults = [EagerTensor(torch.zeros(0, dtype=d.torch_dtype))
                           if isinstance(d, dtypes.DType) and d is not dtypes.string and
                           d in _CSV_TYPES else d for d in column_defaults]
    else:
        column_defaults = _infer_column_defaults(
            names, len(column_names), field_delim, use_quote_delim, na_value, header,
            num_rows_for_inference, select_columns, opener)
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError("If specified, `column_defaults` and `select_columns` must have the "
                         "same length: `column_defaults` has length %d, `select_columns` has "
                         "length %d." % (len(column_defaults), len(select_columns)))
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError("`label_name` provided must be one of the columns: %s. Received: %s."
                         % (column_names, label_name))

    def file_to_dataset(filename):
        records = CsvDataset(filename, column_defaults, compression_type=compression_type,
                             header=header, field_delim=field_delim,
                             use_quote_delim=use_quote_delim, na_value=na_value,
                             select_cols=select_columns)
        return records.ignore_errors() if ignore_errors else records

    def to_features(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            label = features.pop(label_name)
            return features, label
        return features

    dataset = dataset.interleave(file_to_dataset, cycle_length=num_parallel_reads,
                                 block_length=1,
                                 num_parallel_calls=None if num_parallel_reads == 1
                                 else num_parallel_reads)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    dataset = dataset.map(to_features)
    return dataset.prefetch(prefetch_buffer_size) if prefetch_buffer_size != 0 else dataset


@tf_export("data.experimental.parse_example_dataset")
def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """Batches of serialized `tf.train.Example`s (string vectors) parsed into feature dicts
    with `tf.io.parse_example`."""
    def apply(dataset):
        spec = dataset.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype is not dtypes.string or \
                spec.shape.rank != 1:
            raise TypeError("Input dataset should be a dataset of vectors of strings, got %s"
                            % (spec,))
        return dataset.map(lambda serialized: parsing_ops.parse_example(serialized, features),
                           num_parallel_calls=num_parallel_calls)
    return apply


@tf_export("data.experimental.make_batched_features_dataset")
def make_batched_features_dataset(file_pattern, batch_size, features, reader=None,
                                  label_key=None, reader_args=None, num_epochs=None,
                                  shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None,
                                  parser_num_threads=None, sloppy_ordering=False,
                                  drop_final_batch=False):
    """TF's `make_batched_features_dataset`: the records of the files matching
    `file_pattern` (TFRecord files unless `reader` says otherwise; files shuffled, read
    `reader_num_threads` at a time and interleaved), shuffled with `shuffle_buffer_size`,
    repeated `num_epochs` times (None: forever, and then batches have a static size),
    batched and parsed into feature dicts (and the `label_key` feature as label). Shuffled
    orders differ from TF's."""
    reader = TFRecordDataset if reader is None else reader
    reader_args = list(reader_args or [])
    reader_num_threads = 1 if reader_num_threads is None else reader_num_threads
    prefetch_buffer_size = AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size
    if label_key is not None and label_key not in features:
        raise ValueError("The `label_key` provided (%s) must be one of the `features` keys."
                         % label_key)
    dataset = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    dataset = dataset.interleave(
        lambda filename: reader(filename, *reader_args), cycle_length=reader_num_threads,
        block_length=1,
        num_parallel_calls=None if reader_num_threads == 1 else reader_num_threads)
    if dataset.element_spec == (TensorSpec([], dtypes.string), TensorSpec([], dtypes.string)):
        dataset = dataset.map(lambda _, value: value)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    dataset = dataset.apply(parse_example_dataset(features,
                                                  num_parallel_calls=parser_num_threads))
    if label_key is not None:
        dataset = dataset.map(lambda parsed: (
            {key: value for key, value in parsed.items() if key != label_key},
            parsed[label_key]))
    return dataset.prefetch(prefetch_buffer_size) if prefetch_buffer_size != 0 else dataset


@tf_export("data.experimental.SqlDataset")
class SqlDataset(Dataset):
    """`tf.data.experimental.SqlDataset("sqlite", filename, query, output_types)`: one tuple
    per row of the query's result (Python's sqlite3 runs the query when iterated)."""

    def __init__(self, driver_name, data_source_name, query, output_types):
        driver = _python_string(driver_name)
        driver = driver.decode() if isinstance(driver, bytes) else driver
        if driver != "sqlite":
            raise errors.InvalidArgumentError(
                "The database type, %s, is not supported by SqlDataset. The set of supported "
                "databases is: {'sqlite'}." % driver)
        self._source = _python_string(data_source_name)
        self._query = _python_string(query)
        self._types = tuple(dtypes.as_dtype(t) for t in (
            output_types if isinstance(output_types, (tuple, list)) else (output_types,)))

    def _compute_spec(self):
        return tuple(TensorSpec([], t) for t in self._types)

    def _leaf(self, value, dtype):
        if dtype is dtypes.string:
            return _scalar_bytes(value.encode("utf-8") if isinstance(value, str) else
                                 bytes(value))
        return EagerTensor(torch.tensor(value, dtype=dtype.torch_dtype))

    def _iter(self, env):
        source = self._source.decode() if isinstance(self._source, bytes) else self._source
        query = self._query.decode() if isinstance(self._query, bytes) else self._query
        connection = sqlite3.connect(source)
        try:
            cursor = connection.execute(query)
            columns = len(cursor.description or ())
            if columns != len(self._types):
                raise errors.InvalidArgumentError(
                    "The number of columns in query (%d) must match the number of elements in "
                    "output_types (%d)." % (columns, len(self._types)))
            for row in cursor:
                yield tuple(self._leaf(v, t) for v, t in zip(row, self._types))
        except sqlite3.Error as error:
            raise errors.InvalidArgumentError("SqlDataset query failed: %s" % error) from None
        finally:
            connection.close()
