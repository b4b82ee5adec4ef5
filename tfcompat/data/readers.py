"""File datasets: `TFRecordDataset`, `TextLineDataset`, `FixedLengthRecordDataset`.

Filenames may be a string, a list, a string tensor or a dataset of filenames. TF semantics:
files are read in order; with `num_parallel_reads` files are read in parallel and their
records interleaved (cycle order, one record from each file in turn); TFRecord CRCs are
checked (`DataLossError` on a corrupted or truncated record).

Read in order, the records of a file come in blocks, and a following `batch` (or a
vectorized `map`) gets them as whole string vectors (`_iter_chunks`).
"""
import itertools

import numpy as np

from tfcompat._api import tf_export
from tfcompat.data import execution, structure
from tfcompat.data.dataset_ops import Chunk, Dataset, InterleaveDataset, TensorSliceDataset
from tfcompat.framework import dtypes, errors
from tfcompat.framework.tensor import EagerTensor
from tfcompat.function import TensorSpec
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


