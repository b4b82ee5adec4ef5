"""TF 1.x `tf.contrib.lookup` (TF's tensorflow/contrib/lookup/lookup_ops.py): the core lookup
tables (registered in tfcompat/ops/lookup_ops.py) and contrib's table builders, which name
their vocabulary argument `mapping`."""
from tfcompat._api import export_constant, tf_export
from tfcompat.framework import dtypes
from tfcompat.ops import lookup_ops

tf_export("contrib.lookup.index_table_from_file")(lookup_ops.index_table_from_file)
tf_export("contrib.lookup.HasherSpec")(lookup_ops.HasherSpec)
tf_export("contrib.lookup.StrongHashSpec")(lookup_ops.StrongHashSpec)
export_constant(lookup_ops.FastHashSpec, "contrib.lookup.FastHashSpec")
tf_export("contrib.lookup.index_to_string_table_from_file")(
    lookup_ops.index_to_string_table_from_file)


@tf_export("contrib.lookup.HashTable")
class HashTable(lookup_ops.StaticHashTable):
    """TF1's contrib HashTable: a StaticHashTable whose initializer op is also `init`.
    Differs: `shared_name` is accepted and ignored (each table is its own resource)."""

    def __init__(self, initializer, default_value, shared_name=None, name=None):
        super(HashTable, self).__init__(initializer, default_value, name=name)

    init = property(lambda self: self.initializer)


@tf_export("contrib.lookup.IdTableWithHashBuckets")
class IdTableWithHashBuckets(lookup_ops.StaticVocabularyTable):
    """TF1's table adding `num_oov_buckets` Fingerprint64 buckets after `table`'s ids (a
    StaticHashTable or None); only TF's default FastHashSpec hasher is implemented."""

    def __init__(self, table, num_oov_buckets, hasher_spec=lookup_ops.FastHashSpec, name=None,
                 key_dtype=None):
        lookup_ops.check_hasher_spec(hasher_spec)
        super(IdTableWithHashBuckets, self).__init__(table, num_oov_buckets,
                                                     lookup_key_dtype=key_dtype, name=name)


@tf_export("contrib.lookup.MutableHashTable")
class MutableHashTable(lookup_ops.MutableHashTable):
    """TF1's contrib MutableHashTable (`shared_name` accepted and ignored)."""

    def __init__(self, key_dtype, value_dtype, default_value, shared_name=None,
                 name="MutableHashTable", checkpoint=True):
        super(MutableHashTable, self).__init__(key_dtype, value_dtype, default_value, name=name)


@tf_export("contrib.lookup.MutableDenseHashTable")
class MutableDenseHashTable(lookup_ops.DenseHashTable):
    """TF1's contrib MutableDenseHashTable (`shared_name` accepted and ignored)."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, shared_name=None, name="MutableDenseHashTable",
                 checkpoint=True):
        super(MutableDenseHashTable, self).__init__(key_dtype, value_dtype, default_value,
                                                    empty_key, deleted_key, name=name)


@tf_export("contrib.lookup.index_table_from_tensor")
def index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1,
                            hasher_spec=lookup_ops.FastHashSpec, dtype=dtypes.string, name=None):
    """`lookup_ops.index_table_from_tensor` with the vocabulary as `mapping`."""
    return lookup_ops.index_table_from_tensor(
        vocabulary_list=mapping, num_oov_buckets=num_oov_buckets, default_value=default_value,
        hasher_spec=hasher_spec, dtype=dtype, name=name)


@tf_export("contrib.lookup.index_to_string_table_from_tensor")
def index_to_string_table_from_tensor(mapping, default_value="UNK", name=None):
    """`lookup_ops.index_to_string_table_from_tensor` with the vocabulary as `mapping`."""
    return lookup_ops.index_to_string_table_from_tensor(
        vocabulary_list=mapping, default_value=default_value, name=name)


@tf_export("contrib.lookup.string_to_index")
def string_to_index(tensor, mapping, default_value=-1, name=None):
    """The positions of `tensor`'s strings in `mapping` (`default_value` when absent); in a
    graph the table needs `tf.tables_initializer()`, as in TF."""
    return index_table_from_tensor(mapping, default_value=default_value).lookup(tensor)


@tf_export("contrib.lookup.index_to_string")
def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """The strings of `mapping` at `tensor`'s int64 positions (`default_value` elsewhere)."""
    return index_to_string_table_from_tensor(mapping, default_value=default_value).lookup(
        tensor)
