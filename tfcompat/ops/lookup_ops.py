"""Lookup tables: `tf.lookup` (TF2), `tf.compat.v1.lookup`, TF1's `tf.tables_initializer` and
the `index_table_from_*` / `index_to_string_table_from_*` builders (TF's
tensorflow/python/ops/lookup_ops.py; `tf.contrib.lookup` is in tfcompat/contrib/lookup.py).

A table is a resource: as in TF, each Session running a graph gets its own contents (empty
until the table's initializer runs there, `tf.tables_initializer()`; a lookup before that
raises FailedPreconditionError "Table not initialized."), and eagerly the table is filled when
it is made. Initializing again with the same entries does nothing, with other entries raises
FailedPreconditionError. Contents are a Python dict (bytes for string keys, ints or floats for
numeric ones); a lookup is one node, so tables work eagerly, in tf.function, TF1 Sessions and
`Dataset.map`. Out-of-vocabulary buckets are TF's: Fingerprint64 of the key (an integer key's
decimal text) modulo the bucket count, after the vocabulary. Differences: `export()` returns
the entries in insertion order (TF's order is the hash map's); only TF's fast hasher exists
(StrongHashSpec raises NotImplementedError);
mutable tables are not saved in checkpoints; `shared_name` does not share tables.
"""
import collections
import threading

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors
from tfcompat.framework.graph import (GraphKeys, SymbolicTensor, add_to_collection,
                                      get_collection)
from tfcompat.framework.ops import convert_to_tensor, is_tensor, to_torch
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops.array_ops import range as array_range, size
from tfcompat.ops.control_flow_ops import group, no_op
from tfcompat.ops.data_flow_ops import PerSession, run_resource_op
from tfcompat.ops.math_ops import cast
from tfcompat.ops.sparse_ops import SparseTensor
from tfcompat.util.fingerprint import fingerprint64

_state = context.state


def hash_bucket(key, num_buckets):
    """TF's fast hash bucket of one key (bytes, or an int hashed as its decimal text)."""
    data = key if isinstance(key, bytes) else str(key).encode("ascii")
    return fingerprint64(data) % num_buckets


def _flat_keys(value):
    """The Python keys of a string array or numeric torch tensor, flattened."""
    if isinstance(value, np.ndarray):
        return [k if isinstance(k, bytes) else str(k).encode("utf-8")
                for k in value.reshape(-1).tolist()]
    return value.reshape(-1).tolist()


def _flat_values(value, count, vector):
    """`count` Python values from a tensor value: scalars, or lists for `vector` values."""
    items = _flat_keys(value)
    if not vector:
        return items
    width = len(items) // count if count else 0
    return [items[i * width:(i + 1) * width] for i in range(count)]


def _as_value(items, dtype, shape):
    """Python values (scalars or lists) as a tensor value of `dtype` and `shape` (string
    arrays hold bytes)."""
    if dtype == dtypes.string:
        return np.array(items, dtype=object).reshape(shape)
    return torch.tensor(items, dtype=dtype.torch_dtype).reshape(shape)


def _item(value):
    """The Python value of a default: a scalar, or a list for a vector default."""
    items = _flat_keys(value)
    return items[0] if len(items) == 1 and not tuple(value.shape) else items


class _TableContents(object):
    """One instance of a table: its entries, or None before a static table is initialized."""

    def __init__(self, mutable):
        self.entries = {} if mutable else None
        self.lock = threading.Lock()

    def insert(self, keys, values):
        """TF's InitializeTable: entries once; again only with the same entries."""
        entries = {}
        for key, value in zip(keys, values):
            held = entries.setdefault(key, value)
            if held != value:
                raise errors.FailedPreconditionError(
                    "HashTable has different value for same key. Key %s has %s and trying to "
                    "add value %s" % (_shown(key), _shown(held), _shown(value)))
        with self.lock:
            if self.entries is None:
                self.entries = entries
            elif self.entries != entries:
                raise errors.FailedPreconditionError(
                    "Table was already initialized with different data.")

    def update(self, keys, values):
        with self.lock:
            self.entries.update(zip(keys, values))

    def remove(self, keys):
        with self.lock:
            for key in keys:
                self.entries.pop(key, None)

    def checked_entries(self):
        if self.entries is None:
            raise errors.FailedPreconditionError("Table not initialized.")
        return self.entries


def _shown(item):
    return item.decode("utf-8", "replace") if isinstance(item, bytes) else item


# ---------------------------------------------------------------- initializers


@tf_export("lookup.TextFileIndex", v1=["contrib.lookup.TextFileIndex"])
class TextFileIndex(object):
    """Special column indices of `TextFileInitializer`: the whole line, the line number."""
    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TableInitializerBase(object):
    """What fills a table: its key and value dtypes and `initialize(table)`."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)

    def _inputs(self):
        """The tensors `_entries` reads."""
        raise NotImplementedError

    def _entries(self, *values):
        """(keys, values) lists from the values of `_inputs()`."""
        raise NotImplementedError

    def initialize(self, table):
        """Fill `table` now (eager) or return the op filling it, recorded in the graph's
        TABLE_INITIALIZERS collection (TF's `initialize`)."""
        def fill(*values):
            table._contents.get().insert(*self._entries(*values))
        op = run_resource_op(fill, self._op_type, self._inputs(), None, None)
        if _state.building_graph:
            add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
        return op


@tf_export("lookup.KeyValueTensorInitializer",
           v1=["contrib.lookup.KeyValueTensorInitializer"])
class KeyValueTensorInitializer(TableInitializerBase):
    """Entries from a keys tensor and a values tensor of the same length."""

    _op_type = "LookupTableImportV2"

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype)
        self._values = convert_to_tensor(values, dtype=value_dtype)
        super(KeyValueTensorInitializer, self).__init__(self._keys.dtype, self._values.dtype)

    def _inputs(self):
        return [self._keys, self._values]

    def _entries(self, keys, values):
        if tuple(keys.shape) != tuple(values.shape):
            raise errors.InvalidArgumentError("Expected shape %s for value, got %s" % (
                _dims_text(keys.shape), _dims_text(values.shape)))
        return _flat_keys(keys), _flat_keys(values)


def _dims_text(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


@tf_export("lookup.TextFileInitializer", v1=["contrib.lookup.TextFileInitializer"])
class TextFileInitializer(TableInitializerBase):
    """Entries from a text file: per line, a key and a value taken from the line's
    `delimiter`-separated columns, the whole line (-2) or the line number (-1)."""

    _op_type = "InitializeTableFromTextFileV2"

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        for what, index, dtype in (("key", key_index, key_dtype),
                                   ("value", value_index, value_dtype)):
            if index < -2:
                raise ValueError("`%s_index` should be >= -2, received: %s." % (what, index))
            if index == TextFileIndex.LINE_NUMBER and dtype != dtypes.int64:
                raise ValueError("`%s_dtype` must be int64 if `%s_index` is -1, received: %s"
                                 % (what, what, dtype))
            if index == TextFileIndex.WHOLE_LINE and not dtype.is_integer and \
                    dtype != dtypes.string:
                raise ValueError("`%s_dtype` should be either integer or string for whole "
                                 "line, received: %s" % (what, dtype))
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError("`vocab_size` should be > 0, received: %s" % vocab_size)
        self._filename = convert_to_tensor(filename, dtype=dtypes.string)
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._offset = value_index_offset
        super(TextFileInitializer, self).__init__(key_dtype, value_dtype)

    def _inputs(self):
        return [self._filename]

    def _entries(self, filename):
        path = _item(filename).decode("utf-8")
        try:
            with open(path, "rb") as f:
                lines = f.read().split(b"\n")
        except OSError as e:
            raise errors.NotFoundError("%s; %s" % (path, e.strerror)) from None
        if lines and lines[-1] == b"":
            lines.pop()
        lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
        if self._vocab_size is not None:
            if len(lines) < self._vocab_size:
                raise errors.InvalidArgumentError(
                    "Invalid vocab_size in %s: expected %d but got %d"
                    % (path, self._vocab_size, len(lines)))
            lines = lines[:self._vocab_size]
        keys, values = [], []
        for number, line in enumerate(lines):
            columns = None if max(self._key_index, self._value_index) < 0 else \
                line.split(self._delimiter.encode("utf-8"))
            if columns is not None and max(self._key_index, self._value_index) >= len(columns):
                raise errors.InvalidArgumentError(
                    "Invalid number of columns in %s line %d (%s) : expected at least %d got %d"
                    % (path, number, _shown(line), max(self._key_index, self._value_index) + 1,
                       len(columns)))
            keys.append(self._field(line, number, columns, self._key_index,
                                    self._key_dtype, self._offset))
            values.append(self._field(line, number, columns, self._value_index,
                                      self._value_dtype, self._offset))
        return keys, values

    @staticmethod
    def _field(line, number, columns, index, dtype, offset):
        """One key or value of a line, as TF's TextFileLineIterator reads it (line numbers
        plus `value_index_offset`, keys' too)."""
        if index == TextFileIndex.LINE_NUMBER:
            return number + offset
        text = line if index == TextFileIndex.WHOLE_LINE else columns[index]
        if dtype == dtypes.string:
            return text
        try:
            return int(text) if dtype.is_integer else float(text)
        except ValueError:
            raise errors.InvalidArgumentError("Field %s in line %d is not a valid %s."
                                              % (_shown(text), number, dtype.name)) from None


# ---------------------------------------------------------------- tables


class LookupInterface(object):
    """What every table has: dtypes, `lookup` (also `table[keys]`) and `size`."""

    def __init__(self, key_dtype, value_dtype, name=None):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._name = name

    _value_shape = TensorShape([])  # the shape of one value (mutable tables: the default's)
    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)
    name = property(lambda self: self._name)

    def __getitem__(self, keys):
        return self.lookup(keys)

    def _key_tensor(self, keys, key_dtype):
        """The dense keys of `keys` (a tensor, SparseTensor or Python value), checked against
        the table's key dtype as TF checks them."""
        if isinstance(keys, SparseTensor):
            keys = keys.values
        tensor = keys if is_tensor(keys) else convert_to_tensor(keys, dtype=key_dtype)
        if tensor.dtype.base_dtype != key_dtype:
            raise TypeError("Dtype of argument `keys` must be %s, received: %s"
                            % (key_dtype, tensor.dtype))
        return tensor

    def _run_lookup(self, keys, key_dtype, find, inputs, name):
        """One node: `find(flat keys, *values of inputs)` -> the flat values; sparse keys
        keep their indices and dense shape."""
        tensor = self._key_tensor(keys, key_dtype)
        value_dtype, value_dims = self._value_dtype, tuple(self._value_shape.as_list())

        def lookup_values(key_values, *input_values):
            return (_as_value(find(_flat_keys(key_values), *input_values), value_dtype,
                              tuple(key_values.shape) + value_dims),)
        out_shape = TensorShape(tensor.shape).concatenate(self._value_shape)
        values = run_resource_op(lookup_values, "LookupTableFindV2", [tensor] + inputs,
                                 [(value_dtype, out_shape)], name)[0]
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, values, keys.dense_shape)
        return values


class _HashTable(LookupInterface):
    """A table of a dict per Session (see the module docstring): lookup with a default value
    (scalar, or of the values' shape), size and export. A `_mutable` table starts empty, a
    static one uninitialized."""

    _mutable = False

    def __init__(self, key_dtype, value_dtype, default_value, name):
        super(_HashTable, self).__init__(key_dtype, value_dtype, name)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._value_shape = TensorShape(self._default_value.shape)
        # a constant default is kept as a value: `Dataset.map` runs lookups outside the graph
        self._fixed_default = None if isinstance(default_value, SymbolicTensor) else \
            _item(to_torch(default_value, self._value_dtype))
        self._contents = PerSession(self, lambda session: _TableContents(self._mutable))

    default_value = property(lambda self: self._default_value)

    def _check_keys(self, flat_keys):
        """Reject keys the table cannot hold (DenseHashTable's empty and deleted keys)."""

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """The values of `keys` (shape: keys' + the values'; a SparseTensor gives a
        SparseTensor); missing keys get the default value, or their own entry of
        `dynamic_default_values` (mutable tables)."""
        contents, check_keys = self._contents, self._check_keys
        if dynamic_default_values is not None:
            inputs = [convert_to_tensor(dynamic_default_values, dtype=self._value_dtype)]
        elif self._fixed_default is None:
            inputs = [self._default_value]
        else:
            inputs = []
        fixed_default = self._fixed_default
        per_key = dynamic_default_values is not None
        vector = self._value_shape.rank > 0

        def find(flat_keys, *default):
            check_keys(flat_keys)
            entries = contents.get().checked_entries()
            if per_key:
                fallbacks = _flat_values(default[0], len(flat_keys), vector)
                return [entries.get(k, d) for k, d in zip(flat_keys, fallbacks)]
            fallback = _item(default[0]) if default else fixed_default
            return [entries.get(k, fallback) for k in flat_keys]
        return self._run_lookup(keys, self._key_dtype, find, inputs, name)

    def size(self, name=None):
        """The number of entries (int64; 0 before a static table is initialized, as TF)."""
        contents = self._contents

        def count():
            entries = contents.get().entries
            return (torch.tensor(0 if entries is None else len(entries), dtype=torch.int64),)
        return run_resource_op(count, "LookupTableSizeV2", [],
                               [(dtypes.int64, TensorShape([]))], name)[0]

    def export(self, name=None):
        """(keys, values) tensors of the entries (insertion order)."""
        contents = self._contents
        key_dtype, value_dtype, value_dims = self._key_dtype, self._value_dtype, \
            tuple(self._value_shape.as_list())

        def entries():
            held = contents.get().checked_entries()
            return (_as_value(list(held), key_dtype, (len(held),)),
                    _as_value(list(held.values()), value_dtype, (len(held),) + value_dims))
        return tuple(run_resource_op(entries, "LookupTableExportV2", [],
                                     [(key_dtype, TensorShape([None])),
                                      (value_dtype, TensorShape([None]).concatenate(
                                          self._value_shape))], name))


@tf_export("lookup.StaticHashTable")
class StaticHashTable(_HashTable):
    """A table filled once by its initializer, giving `default_value` for missing keys
    (TF's StaticHashTable and StaticHashTableV1)."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        super(StaticHashTable, self).__init__(initializer.key_dtype, initializer.value_dtype,
                                              default_value, name or "hash_table")
        self._initializer = initializer
        self._init_op = initializer.initialize(self)

    initializer = property(lambda self: self._init_op)

    def lookup(self, keys, name=None):
        """The values of `keys` (same shape; a SparseTensor gives a SparseTensor)."""
        return super(StaticHashTable, self).lookup(keys, name=name)


@tf_export("lookup.experimental.MutableHashTable")
class MutableHashTable(_HashTable):
    """A table changed by `insert` and `remove` (TF's MutableHashTable; values may be
    vectors, shaped like `default_value`). In a graph each Session has its own entries.
    Differs: the entries are not saved in checkpoints (`checkpoint` is ignored)."""

    _mutable = True

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 checkpoint=True, experimental_is_anonymous=False):
        super(MutableHashTable, self).__init__(key_dtype, value_dtype, default_value, name)

    def insert(self, keys, values, name=None):
        """Set the values of `keys` (None eagerly; the op in a graph)."""
        keys = convert_to_tensor(keys, dtype=self._key_dtype)
        values = convert_to_tensor(values, dtype=self._value_dtype)
        contents, check_keys = self._contents, self._check_keys
        value_dims = tuple(self._value_shape.as_list())

        def insert_entries(key_values, value_values):
            expected = tuple(key_values.shape) + value_dims
            if tuple(value_values.shape) != expected:
                raise errors.InvalidArgumentError("Expected shape %s for value, got %s" % (
                    _dims_text(expected), _dims_text(value_values.shape)))
            flat_keys = _flat_keys(key_values)
            check_keys(flat_keys)
            contents.get().update(flat_keys, _flat_values(value_values, len(flat_keys),
                                                          bool(value_dims)))
        return run_resource_op(insert_entries, "LookupTableInsertV2", [keys, values], None,
                               name)

    def remove(self, keys, name=None):
        """Remove `keys` (absent keys are ignored)."""
        keys = convert_to_tensor(keys, dtype=self._key_dtype)
        contents, check_keys = self._contents, self._check_keys

        def remove_entries(key_values):
            flat_keys = _flat_keys(key_values)
            check_keys(flat_keys)
            contents.get().remove(flat_keys)
        return run_resource_op(remove_entries, "LookupTableRemoveV2", [keys], None, name)


@tf_export("lookup.experimental.DenseHashTable")
class DenseHashTable(MutableHashTable):
    """TF's DenseHashTable as a MutableHashTable whose `empty_key` and `deleted_key` may not be
    used as keys. Differs: `export()` (TF's gives its buckets) is not implemented."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, name="MutableDenseHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        super(DenseHashTable, self).__init__(key_dtype, value_dtype, default_value, name)
        self._reserved = {_item(to_torch(key, self._key_dtype)): what for what, key in
                          (("deleted_key", deleted_key), ("empty_key", empty_key))}
        if len(self._reserved) == 1:
            raise errors.InvalidArgumentError("Empty and deleted keys cannot be equal")

    def _check_keys(self, flat_keys):
        reserved = self._reserved
        for key in flat_keys:
            if key in reserved:
                raise errors.InvalidArgumentError(
                    "Using the %s as a table key is not allowed" % reserved[key])

    def insert_or_assign(self, keys, values, name=None):
        return self.insert(keys, values, name)

    def erase(self, keys, name=None):
        return self.remove(keys, name)

    def export(self, name=None):
        raise NotImplementedError("tf.lookup.experimental.DenseHashTable.export (TF's bucket "
                                  "arrays) is not implemented by tfcompat")


@tf_export("lookup.StaticVocabularyTable")
class StaticVocabularyTable(LookupInterface):
    """Vocabulary ids from the initializer's table, and for other keys one of
    `num_oov_buckets` buckets after them (TF's StaticVocabularyTable; `initializer` may also
    be a StaticHashTable, as TF1's IdTableWithHashBuckets takes, or None)."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if isinstance(initializer, StaticHashTable):
            self._table = initializer
        elif initializer is not None:
            self._table = StaticHashTable(initializer, -1, name="hash_table")
        else:
            self._table = None
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        key_dtype = self._table.key_dtype if self._table is not None else dtypes.string
        if self._table is not None:
            if self._table.value_dtype != dtypes.int64:
                raise TypeError("Invalid `value_dtype`, expected %s but got %s."
                                % (dtypes.int64, self._table.value_dtype))
            if key_dtype not in (dtypes.int64, dtypes.string):
                raise TypeError("Invalid `key_dtype`, expected one of %s, but got %s."
                                % ((dtypes.int64, dtypes.string), key_dtype))
        lookup_key_dtype = dtypes.as_dtype(lookup_key_dtype or key_dtype)
        if lookup_key_dtype.is_integer != key_dtype.is_integer:
            raise TypeError("Invalid `key_dtype`, expected %s but got %s."
                            % ("integer" if key_dtype.is_integer else key_dtype,
                               lookup_key_dtype))
        self._num_oov_buckets = int(num_oov_buckets)
        super(StaticVocabularyTable, self).__init__(lookup_key_dtype, dtypes.int64,
                                                    name or "hash_bucket")

    initializer = property(lambda self: self._table.initializer if self._table else None)

    def size(self, name=None):
        """The vocabulary size plus the number of OOV buckets (int64)."""
        if self._table is None:
            return convert_to_tensor(self._num_oov_buckets, dtype=dtypes.int64)
        return self._table.size() + self._num_oov_buckets

    def lookup(self, keys, name=None):
        """Each key's vocabulary id, or its OOV bucket after the vocabulary."""
        contents = self._table._contents if self._table is not None else None
        buckets = self._num_oov_buckets

        def find(flat_keys):
            entries = contents.get().checked_entries() if contents is not None else {}
            start = len(entries)
            return [entries[k] if k in entries else start + hash_bucket(k, buckets)
                    for k in flat_keys]
        return self._run_lookup(keys, self._key_dtype, find, [], name)


# ---------------------------------------------------------------- TF1 builders


@tf_export(v1=["tables_initializer", "initializers.tables_initializer"])
def tables_initializer(name="init_all_tables"):
    """One op running every table initializer of the default graph (a NoOp when there are
    none; eagerly tables are already filled: None)."""
    initializers = get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return group(*initializers, name=name)
    return no_op(name=name)


class HasherSpec(collections.namedtuple("HasherSpec", ["hasher", "key"])):
    """TF's hash function choice for OOV buckets: "fasthash" (Fingerprint64) or
    "stronghash" (keyed SipHash, not implemented)."""
    __slots__ = ()


FastHashSpec = HasherSpec("fasthash", None)


class StrongHashSpec(HasherSpec):
    """TF's keyed strong hash (two 64-bit ints); tables using it are not implemented."""
    __slots__ = ()

    def __new__(cls, key):
        if len(key) != 2:
            raise ValueError("`key` must have size 2, received %s" % len(key))
        return super(StrongHashSpec, cls).__new__(cls, "stronghash", key)


def check_hasher_spec(hasher_spec):
    """Only TF's default hasher (FastHashSpec, Fingerprint64) is implemented."""
    if hasher_spec.hasher != "fasthash":
        raise NotImplementedError("lookup tables with hasher %r are not implemented by "
                                  "tfcompat (only FastHashSpec)" % (hasher_spec.hasher,))


def _check_index_table_args(num_oov_buckets, hasher_spec):
    check_hasher_spec(hasher_spec)
    if num_oov_buckets < 0:
        raise ValueError("`num_oov_buckets` must be greater or equal than 0, got %d."
                         % num_oov_buckets)


def _index_table(initializer, num_oov_buckets, default_value, key_dtype):
    """A table of `initializer`'s ids, with `num_oov_buckets` > 0 TF's OOV buckets after
    them (TF's IdTableWithHashBuckets) instead of `default_value`."""
    table = StaticHashTable(initializer, default_value)
    if num_oov_buckets:
        return StaticVocabularyTable(table, num_oov_buckets, lookup_key_dtype=key_dtype)
    return table


def _vocabulary_tensor(vocabulary_list, dtype):
    """The vocabulary as a string or int64 tensor (TF's tables hold int64 integer keys)."""
    keys = convert_to_tensor(vocabulary_list, dtype=None if dtype.is_integer else dtype)
    if keys.dtype.is_integer != dtype.is_integer or \
            (not dtype.is_integer and keys.dtype != dtype):
        raise ValueError("Invalid `dtype`: Expected %s, got %s." % (dtype, keys.dtype))
    return cast(keys, dtypes.int64) if dtype.is_integer else keys


def index_table_from_tensor(vocabulary_list, num_oov_buckets=0, default_value=-1,
                            hasher_spec=FastHashSpec, dtype=dtypes.string, name=None):
    """TF's lookup_ops.index_table_from_tensor: each vocabulary entry to its position (int64);
    other keys to `default_value`, or with `num_oov_buckets` to buckets after them."""
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` must be specified.")
    _check_index_table_args(num_oov_buckets, hasher_spec)
    dtype = dtypes.as_dtype(dtype)
    keys = _vocabulary_tensor(vocabulary_list, dtype)
    ids = array_range(size(keys, out_type=dtypes.int64), dtype=dtypes.int64)
    return _index_table(KeyValueTensorInitializer(keys, ids), num_oov_buckets, default_value,
                        dtype)


def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None,
                          default_value=-1, hasher_spec=FastHashSpec, key_dtype=dtypes.string,
                          name=None, key_column_index=TextFileIndex.WHOLE_LINE,
                          value_column_index=TextFileIndex.LINE_NUMBER, delimiter="\t"):
    """TF's lookup_ops.index_table_from_file: the keys of a vocabulary file (by default
    whole lines) to their line numbers; OOV keys as in `index_table_from_tensor`."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    _check_index_table_args(num_oov_buckets, hasher_spec)
    if vocab_size is not None and vocab_size < 1:
        raise ValueError("`vocab_size` must be greater than 0, got %d." % vocab_size)
    key_dtype = dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype != dtypes.string:
        raise TypeError("Invalid `key_dtype`, expected integer or string, got %s."
                        % key_dtype)
    initializer = TextFileInitializer(
        vocabulary_file, dtypes.int64 if key_dtype.is_integer else key_dtype,
        key_column_index, dtypes.int64, value_column_index, vocab_size=vocab_size,
        delimiter=delimiter)
    return _index_table(initializer, num_oov_buckets, default_value, key_dtype)


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None):
    """TF's lookup_ops.index_to_string_table_from_tensor: int64 ids to the vocabulary
    entries at those positions, `default_value` for other ids."""
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` must be specified.")
    words = convert_to_tensor(vocabulary_list, dtype=dtypes.string)
    ids = array_range(size(words, out_type=dtypes.int64), dtype=dtypes.int64)
    return StaticHashTable(KeyValueTensorInitializer(ids, words), default_value)


def index_to_string_table_from_file(vocabulary_file, vocab_size=None, default_value="UNK",
                                    name=None, key_column_index=TextFileIndex.LINE_NUMBER,
                                    value_column_index=TextFileIndex.WHOLE_LINE,
                                    delimiter="\t"):
    """TF's lookup_ops.index_to_string_table_from_file: line numbers (int64) to the lines
    (by default) of a vocabulary file, `default_value` for other ids."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError("`vocab_size` must be greater than 0, got %d." % vocab_size)
    initializer = TextFileInitializer(vocabulary_file, dtypes.int64, key_column_index,
                                      dtypes.string, value_column_index,
                                      vocab_size=vocab_size, delimiter=delimiter)
    return StaticHashTable(initializer, default_value)
