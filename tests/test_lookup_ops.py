"""tf.lookup tables, tf.tables_initializer, tf.contrib.lookup builders, tf.compat.as_*,
tf.edit_distance and tf.sparse_placeholder give real TF's values, eagerly, in tf.function,
Dataset.map and TF1 Sessions (tests/fixtures/lookup_edit_distance/make_values.py printed
the constants, from TensorFlow 2.21; make_mutable_values.py those of the mutable tables)."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

v1 = tf.compat.v1
KEYS = ["brain", "salad", "surgery"]

TF_HASH_LOOKUP = [[0, -1], [2, 1]]
TF_VOCAB_LOOKUP = [0, 6, 4, 5, 2, 6]       # "brain emerson lake palmer surgery ''", 5 buckets
TF_INT_VOCAB_LOOKUP = [0, 1, 7, 4, 6, 6]   # keys 42 1 2 3 100 -1, vocab [42, 1], 7 buckets
TF_NO_VOCAB_LOOKUP = [0, 1, 0]             # "a b brain", 3 buckets, no vocabulary
TF_INT32_VOCAB_LOOKUP = [1, 3]             # int32 keys 6 9 into an int64 [5, 6] vocab, 2 buckets
TF_FUNCTION_LOOKUP = [2, 5]                # "surgery palmer" through the 5-bucket table
TF_STRING_LOOKUP_3_OOV = [3, 2, 1, 0, 4]   # Keras StringLookup(["a", "b"], num_oov_indices=3)
TF_EDIT_NORMALIZED = [[0.0, 1.0], [1.0, 1.0]]
TF_EDIT_RAW = [[0.0, 1.0], [2.0, 2.0]]
TF_EDIT_EMPTY_ROWS = [0.5, np.inf, 1.0]
TF_EDIT_EMPTY_ROWS_RAW = [1.0, 1.0, 2.0]
TF_EDIT_BOTH_EMPTY = [np.inf, 1.0, 0.0, 0.0]
TF_EDIT_BOTH_EMPTY_RAW = [1.0, 1.0, 0.0, 0.0]


def _table(default=-1):
    return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant(KEYS), tf.constant([0, 1, 2], tf.int64)), default)


def _vocab_table():
    return tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant(KEYS), tf.constant([0, 1, 2], tf.int64)), num_oov_buckets=5)


@pytest.fixture
def vocab_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("emerson 10\nlake 20\npalmer 30\n")
    return str(path)


# ---------------------------------------------------------------- tf.compat


def test_compat_string_conversions():
    assert tf.compat.as_bytes("caf\u00e9") == b"caf\xc3\xa9"
    assert tf.compat.as_bytes(bytearray(b"ab")) == b"ab"
    assert tf.compat.as_bytes("\u00e9", encoding="latin-1") == b"\xe9"
    assert tf.compat.as_text(b"caf\xc3\xa9") == "caf\u00e9"
    assert tf.compat.as_str(b"x") == "x"
    assert tf.compat.as_str_any(b"y") == "y" and tf.compat.as_str_any(3) == "3"
    assert tf.compat.path_to_str(pathlib.Path("a/b")) == "a/b"
    assert tf.compat.path_to_str(7) == 7
    with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
        tf.compat.as_bytes(3)
    with pytest.raises(TypeError, match="Expected binary or unicode string, got None"):
        tf.compat.as_text(None)
    with pytest.raises(LookupError):
        tf.compat.as_bytes("a", encoding="no-such-codec")


def test_compat_type_tuples_and_paths():
    assert isinstance(np.int64(3), tf.compat.integral_types)
    assert not isinstance(2.5, tf.compat.integral_types)
    assert isinstance(np.float32(1), tf.compat.real_types)
    assert isinstance(1j, tf.compat.complex_types)
    assert tf.compat.bytes_or_text_types == (bytes, str)
    assert tf.compat.v1.compat.as_bytes is tf.compat.as_bytes


# ---------------------------------------------------------------- eager tables


def test_static_hash_table_eager():
    table = _table()
    out = table.lookup(tf.constant([["brain", "x"], ["surgery", "salad"]]))
    assert out.dtype == tf.int64 and out.numpy().tolist() == TF_HASH_LOOKUP
    assert table.size().numpy() == 3
    assert table[tf.constant(["salad"])].numpy().tolist() == [1]
    keys, values = table.export()
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == [
        (b"brain", 0), (b"salad", 1), (b"surgery", 2)]
    assert _table(tf.constant(-5, tf.int64)).lookup(tf.constant(["zz"])).numpy().tolist() == [-5]
    assert tf.compat.v1.lookup.StaticHashTable is tf.lookup.StaticHashTable


def test_int_keys_string_values_and_sparse_keys():
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([3, 7], tf.int64), tf.constant(["three", "seven"])), "?")
    assert table.lookup(tf.constant([7, 1, 3], tf.int64)).numpy().tolist() == [
        b"seven", b"?", b"three"]
    sparse = tf.SparseTensor([[0, 1], [2, 0]], tf.constant([3, 5], tf.int64), [3, 2])
    found = table.lookup(sparse)
    assert isinstance(found, tf.SparseTensor)
    assert found.values.numpy().tolist() == [b"three", b"?"]
    assert found.indices.numpy().tolist() == [[0, 1], [2, 0]]


def test_table_errors():
    with pytest.raises(TypeError, match="Dtype of argument `keys` must be <dtype: 'string'>, "
                                        "received: <dtype: 'int64'>"):
        _table().lookup(tf.constant([1, 2], tf.int64))
    with pytest.raises(errors.FailedPreconditionError,
                       match="HashTable has different value for same key. Key a has 0 and "
                             "trying to add value 1"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            ["a", "a"], tf.constant([0, 1], tf.int64)), -1)
    same = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        ["a", "a"], tf.constant([0, 0], tf.int64)), -1)
    assert same.size().numpy() == 1
    with pytest.raises(errors.InvalidArgumentError, match=r"Expected shape \[2\] for value"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            ["a", "b"], tf.constant([0], tf.int64)), -1)
    initializer = tf.lookup.KeyValueTensorInitializer(["a"], [1])
    assert (initializer.key_dtype, initializer.value_dtype) == (tf.string, tf.int32)


def test_static_vocabulary_table_buckets():
    table = _vocab_table()
    assert table.lookup(tf.constant(["brain", "emerson", "lake", "palmer", "surgery", ""])
                        ).numpy().tolist() == TF_VOCAB_LOOKUP
    assert table.size().numpy() == 8
    int_table = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([42, 1], tf.int64), tf.constant([0, 1], tf.int64)), num_oov_buckets=7)
    assert int_table.lookup(tf.constant([42, 1, 2, 3, 100, -1], tf.int64)).numpy().tolist() \
        == TF_INT_VOCAB_LOOKUP
    no_vocab = tf.lookup.StaticVocabularyTable(None, num_oov_buckets=3)
    assert no_vocab.lookup(tf.constant(["a", "b", "brain"])).numpy().tolist() == \
        TF_NO_VOCAB_LOOKUP
    int32_keys = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([5, 6], tf.int64), tf.constant([0, 1], tf.int64)), 2,
        lookup_key_dtype=tf.int32)
    assert int32_keys.lookup(tf.constant([6, 9], tf.int32)).numpy().tolist() == \
        TF_INT32_VOCAB_LOOKUP
    with pytest.raises(ValueError, match="`num_oov_buckets` must be > 0; use StaticHashTable."):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
            KEYS, tf.constant([0, 1, 2], tf.int64)), num_oov_buckets=0)
    with pytest.raises(TypeError, match="Invalid `value_dtype`, expected <dtype: 'int64'> but "
                                        "got <dtype: 'float32'>."):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
            KEYS, [0.0, 1, 2]), num_oov_buckets=1)


def test_keras_string_lookup_shares_the_oov_buckets():
    layer = tf.keras.layers.StringLookup(vocabulary=["a", "b"], num_oov_indices=3)
    assert layer(tf.constant(["a", "x", "yy", "zzz", "b"])).numpy().tolist() == \
        TF_STRING_LOOKUP_3_OOV


# ---------------------------------------------------------------- mutable tables


def test_mutable_hash_table_eager():
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    assert table.size().numpy() == 0
    assert table.lookup(tf.constant(["a"])).numpy().tolist() == [-1]
    assert table.insert(tf.constant(["a", "b", "c"]), tf.constant([1, 2, 3], tf.int64)) is None
    table.insert(tf.constant(["b"]), tf.constant([20], tf.int64))
    assert table.lookup(tf.constant([["a", "b"], ["x", "c"]])).numpy().tolist() == [[1, 20],
                                                                                     [-1, 3]]
    table.remove(tf.constant(["a", "zz"]))
    assert table.lookup(tf.constant(["a", "b"])).numpy().tolist() == [-1, 20]
    assert table.size().numpy() == 2
    keys, values = table.export()
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == [(b"b", 20),
                                                                           (b"c", 3)]
    assert table.lookup(tf.constant(["b", "q"]), dynamic_default_values=tf.constant(
        [7, 8], tf.int64)).numpy().tolist() == [20, 8]
    with pytest.raises(ValueError, match="Tensor conversion requested dtype string"):
        table.insert(tf.constant([1], tf.int64), tf.constant([1], tf.int64))
    with pytest.raises(errors.InvalidArgumentError, match=r"Expected shape \[2\] for value, "
                                                          r"got \[1\]"):
        table.insert(tf.constant(["a", "b"]), tf.constant([1], tf.int64))
    vectors = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [-1.0, -1.0])
    vectors.insert(tf.constant([5, 6], tf.int64), tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert vectors.lookup(tf.constant([6, 0], tf.int64)).numpy().tolist() == [[3.0, 4.0],
                                                                              [-1.0, -1.0]]
    with pytest.raises(errors.InvalidArgumentError, match=r"Expected shape \[1,2\] for value, "
                                                          r"got \[1\]"):
        vectors.insert(tf.constant([5], tf.int64), tf.constant([1.0]))
    width_one = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, [-1])
    width_one.insert(tf.constant(["a"]), tf.constant([[5]], tf.int64))
    assert width_one.lookup(tf.constant(["a", "b"])).numpy().tolist() == [[5], [-1]]


def test_dense_hash_table():
    dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1,
                                                  empty_key=0, deleted_key=-1)
    dense.insert(tf.constant([11, 12, 13], tf.int64), tf.constant([1, 2, 3], tf.int64))
    dense.erase(tf.constant([12], tf.int64))
    assert dense.lookup(tf.constant([11, 12, 13, 14], tf.int64)).numpy().tolist() == [1, -1, 3,
                                                                                      -1]
    assert dense.size().numpy() == 2
    for key, message in ((0, "empty_key"), (-1, "deleted_key")):
        with pytest.raises(errors.InvalidArgumentError,
                           match="Using the %s as a table key is not allowed" % message):
            dense.insert(tf.constant([key], tf.int64), tf.constant([5], tf.int64))
    with pytest.raises(errors.InvalidArgumentError, match="Using the empty_key as a table key"):
        dense.lookup(tf.constant([0], tf.int64))
    with pytest.raises(errors.InvalidArgumentError,
                       match="Empty and deleted keys cannot be equal"):
        tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=3,
                                              deleted_key=3)
    strings = tf.lookup.experimental.DenseHashTable(tf.string, tf.float32, default_value=0.5,
                                                    empty_key="", deleted_key="$")
    strings.insert(["k"], [2.5])
    assert strings.lookup(tf.constant(["k", "j"])).numpy().tolist() == [2.5, 0.5]
    with pytest.raises(NotImplementedError, match="DenseHashTable.export"):
        strings.export()


def test_mutable_hash_table_per_session():
    with tf.Graph().as_default():
        table = v1.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
        insert = table.insert(tf.constant(["q"]), tf.constant([4], tf.int64))
        out = table.lookup(tf.constant(["q", "r"]))
        assert insert.type == "LookupTableInsertV2"
        with v1.Session() as sess:
            assert sess.run(out).tolist() == [-1, -1]
            sess.run(insert)
            assert sess.run(out).tolist() == [4, -1]
        with v1.Session() as sess:
            assert sess.run(out).tolist() == [-1, -1]
        contrib = tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, -1, "shared")
        contrib_insert = contrib.insert(tf.constant(["w"]), tf.constant([2], tf.int64))
        with v1.Session() as sess:
            sess.run(contrib_insert)
            assert sess.run(contrib.lookup(tf.constant(["w", "v"]))).tolist() == [2, -1]


# ---------------------------------------------------------------- text files


def test_text_file_initializer(vocab_file, tmp_path):
    index = tf.lookup.TextFileIndex
    assert (index.WHOLE_LINE, index.LINE_NUMBER) == (-2, -1)
    lines = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        vocab_file, tf.string, index.WHOLE_LINE, tf.int64, index.LINE_NUMBER), -1)
    assert lines.lookup(tf.constant(["lake 20", "lake"])).numpy().tolist() == [1, -1]
    columns = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        vocab_file, tf.string, 0, tf.int64, 1, delimiter=" "), -1)
    assert columns.lookup(tf.constant(["emerson", "palmer", "x"])).numpy().tolist() == \
        [10, 30, -1]
    first_two = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        vocab_file, tf.string, 0, tf.int64, -1, delimiter=" ", vocab_size=2), -1)
    assert first_two.lookup(tf.constant(["lake", "palmer"])).numpy().tolist() == [1, -1]
    offset = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        vocab_file, tf.string, 0, tf.int64, -1, delimiter=" ", value_index_offset=100), -1)
    assert offset.lookup(tf.constant(["palmer"])).numpy().tolist() == [102]
    key_offset = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        vocab_file, tf.int64, -1, tf.string, 0, delimiter=" ", value_index_offset=5), "?")
    assert key_offset.lookup(tf.constant([0, 5], tf.int64)).numpy().tolist() == [b"?",
                                                                                 b"emerson"]
    int_keys = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        vocab_file, tf.int64, 1, tf.string, 0, delimiter=" "), "?")
    assert int_keys.lookup(tf.constant([20, 5], tf.int64)).numpy().tolist() == [b"lake", b"?"]
    words = tmp_path / "words.txt"
    words.write_text("a\nb\nc")
    no_newline = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(words), tf.string, -2, tf.int64, -1), -1)
    assert no_newline.lookup(tf.constant(["c", "a"])).numpy().tolist() == [2, 0]


def test_text_file_errors(vocab_file, tmp_path):
    with pytest.raises(errors.InvalidArgumentError,
                       match="Invalid vocab_size in .*vocab.txt: expected 5 but got 3"):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            vocab_file, tf.string, 0, tf.int64, -1, delimiter=" ", vocab_size=5), -1)
    with pytest.raises(errors.NotFoundError, match="nope.txt; No such file or directory"):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            str(tmp_path / "nope.txt"), tf.string, -2, tf.int64, -1), -1)
    with pytest.raises(ValueError, match="`value_index` should be >= -2, received: -3"):
        tf.lookup.TextFileInitializer(vocab_file, tf.string, 0, tf.int64, -3)
    with pytest.raises(ValueError, match="`key_dtype` must be int64 if `key_index` is -1, "
                                         "received: <dtype: 'string'>"):
        tf.lookup.TextFileInitializer(vocab_file, tf.string, -1, tf.int64, -2)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Invalid number of columns in .*vocab.txt line 0 \(emerson 10\) "
                             r": expected at least 4 got 2"):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            vocab_file, tf.string, 0, tf.int64, 3, delimiter=" "), -1)
    numbers = tmp_path / "numbers.txt"
    numbers.write_text("1 x\n2 3\n")
    with pytest.raises(errors.InvalidArgumentError,
                       match="Field x in line 0 is not a valid int64."):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            str(numbers), tf.int64, 0, tf.int64, 1, delimiter=" "), -1)


# ---------------------------------------------------------------- tf.function, tf.data


def test_lookup_in_function_and_dataset_map():
    table, vocab = _table(), _vocab_table()

    @tf.function
    def looked(x):
        return vocab.lookup(x)
    assert looked(tf.constant(["surgery", "palmer"])).numpy().tolist() == TF_FUNCTION_LOOKUP
    dataset = tf.data.Dataset.from_tensor_slices(["salad", "brain", "nope"]).map(table.lookup)
    assert [int(v) for v in dataset] == [1, 0, -1]


# ---------------------------------------------------------------- TF1 graphs


def test_tf1_tables_need_tables_initializer():
    with tf.Graph().as_default():
        table = v1.lookup.StaticHashTable(v1.lookup.KeyValueTensorInitializer(KEYS, [0, 1, 2]),
                                          -1)
        out = table.lookup(tf.constant(["salad", "q"]))
        size = table.size()
        assert len(v1.get_collection(v1.GraphKeys.TABLE_INITIALIZERS)) == 1
        assert out.dtype == tf.int32 and out.shape.as_list() == [2]
        with v1.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError, match="Table not initialized."):
                sess.run(out)
            assert sess.run(size) == 0
            sess.run(v1.tables_initializer())
            assert sess.run(out).tolist() == [1, -1]
            sess.run(v1.initializers.tables_initializer())  # again, same entries: no error
            assert sess.run(size) == 3
        with v1.Session() as sess:  # each session has its own table contents, as TF's
            with pytest.raises(errors.FailedPreconditionError, match="Table not initialized."):
                sess.run(out)
        assert v1.tables_initializer().type == "NoOp"
    with tf.Graph().as_default():
        assert v1.tables_initializer().type == "NoOp"


def test_tf1_fed_keys_and_dataset_map():
    with tf.Graph().as_default():
        keys = v1.placeholder(tf.string, [None])
        ids = v1.lookup.StaticVocabularyTable(v1.lookup.KeyValueTensorInitializer(
            ["x", "y"], tf.constant([0, 1], tf.int64)), 3).lookup(keys)
        assert ids.shape.as_list() == [None] and ids.dtype == tf.int64
        table = v1.lookup.StaticHashTable(v1.lookup.KeyValueTensorInitializer(
            KEYS, tf.constant([0, 1, 2], tf.int64)), -1)
        graph_default = v1.lookup.StaticHashTable(v1.lookup.KeyValueTensorInitializer(
            KEYS, tf.constant([0, 1, 2], tf.int64)), tf.constant(-9, tf.int64))
        looked = graph_default.lookup(tf.constant(["brain", "q"]))
        dataset = v1.data.Dataset.from_tensor_slices(["surgery", "q", "brain"]).map(
            table.lookup)
        iterator = v1.data.make_initializable_iterator(dataset)
        element = iterator.get_next()
        with v1.Session() as sess:
            sess.run([v1.tables_initializer(), iterator.initializer])
            assert sess.run(ids, {keys: ["y", "zz", "x"]}).tolist() == [1, 3, 0]
            assert sess.run(looked).tolist() == [0, -9]
            assert [int(sess.run(element)) for _ in range(3)] == [2, -1, 0]


def test_contrib_lookup_builders(vocab_file):
    with tf.Graph().as_default():
        with_buckets = tf.contrib.lookup.index_table_from_tensor(["a", "b"], num_oov_buckets=1)
        to_string = tf.contrib.lookup.index_to_string_table_from_tensor(["a", "b"])
        from_file = tf.contrib.lookup.index_table_from_file(vocab_file, default_value=-7)
        words = tf.contrib.lookup.index_to_string_table_from_file(vocab_file, vocab_size=2)
        ints = tf.contrib.lookup.index_table_from_tensor(tf.constant([10, 20], tf.int64),
                                                         dtype=tf.int64)
        hashed = tf.contrib.lookup.HashTable(tf.contrib.lookup.KeyValueTensorInitializer(
            ["k"], tf.constant([4], tf.int64)), -1)
        buckets = tf.contrib.lookup.IdTableWithHashBuckets(tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer(KEYS, tf.constant([0, 1, 2], tf.int64)),
            -1), 5)
        results = (with_buckets.lookup(tf.constant(["b", "zz"])),
                   to_string.lookup(tf.constant([1, 5], tf.int64)),
                   from_file.lookup(tf.constant(["lake 20", "lake"])),
                   words.lookup(tf.constant([1, 2], tf.int64)),
                   ints.lookup(tf.constant([20, 30], tf.int64)),
                   hashed.lookup(tf.constant(["k"])),
                   tf.contrib.lookup.string_to_index(tf.constant(["b", "q"]), ["a", "b"]),
                   tf.contrib.lookup.index_to_string(tf.constant([0], tf.int64), ["a"]),
                   buckets.lookup(tf.constant(["brain", "emerson", "lake", "palmer", "surgery",
                                               ""])))
        with v1.Session() as sess:
            sess.run(hashed.init)
            assert sess.run(results[5]).tolist() == [4]
            sess.run(v1.tables_initializer())
            values = [r.tolist() for r in sess.run(results)]
    assert values == [[1, 2], [b"b", b"UNK"], [1, -7], [b"lake 20", b"UNK"], [1, -1], [4],
                      [1, -1], [b"a"], TF_VOCAB_LOOKUP]
    with pytest.raises(ValueError, match="`vocabulary_file` must be specified"):
        tf.contrib.lookup.index_table_from_file("")


def test_contrib_hasher_specs():
    fast = tf.contrib.lookup.FastHashSpec
    assert (fast.hasher, fast.key) == ("fasthash", None)
    table = tf.contrib.lookup.index_table_from_tensor(KEYS, num_oov_buckets=5, hasher_spec=fast)
    assert table.lookup(tf.constant(["brain", "emerson", "lake", "palmer", "surgery", ""])
                        ).numpy().tolist() == TF_VOCAB_LOOKUP
    strong = tf.contrib.lookup.StrongHashSpec([1, 2])
    assert (strong.hasher, strong.key) == ("stronghash", [1, 2])
    with pytest.raises(NotImplementedError, match="stronghash"):
        tf.contrib.lookup.index_table_from_tensor(KEYS, num_oov_buckets=1, hasher_spec=strong)


NMT_SCRIPT = """
import tensorflow as tf
from tensorflow.python.ops import lookup_ops

vocab = lookup_ops.index_table_from_file("vocab.txt", default_value=0)
reverse = lookup_ops.index_to_string_table_from_file("vocab.txt", default_value="<unk>")
src = tf.data.Dataset.from_tensor_slices(["hello world", "world foo hello"])
src = src.map(lambda s: tf.string_split(tf.expand_dims(s, 0)).values)
src = src.map(lambda words: tf.cast(vocab.lookup(words), tf.int32))
it = src.make_initializable_iterator()
ids = it.get_next()
words = reverse.lookup(tf.cast(ids, tf.int64))
with tf.Session() as sess:
    sess.run(tf.tables_initializer())
    sess.run(it.initializer)
    for _ in range(2):
        print(sess.run([ids, words]))
"""
# what real TF 1 behaviour (TF 2.21's compat.v1) printed for NMT_SCRIPT
TF_NMT_OUTPUT = """[array([3, 4], dtype=int32), array([b'hello', b'world'], dtype=object)]
[array([4, 0, 3], dtype=int32), array([b'world', b'<unk>', b'hello'], dtype=object)]
"""


def test_nmt_style_vocabulary_tables_under_the_runner(tmp_path):
    """The TF NMT tutorial's use: `tensorflow.python.ops.lookup_ops` tables in a tf.data
    pipeline of a TF1 script."""
    (tmp_path / "vocab.txt").write_text("<unk>\n<s>\n</s>\nhello\nworld\n")
    (tmp_path / "script.py").write_text(textwrap.dedent(NMT_SCRIPT))
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {k: v for k, v in os.environ.items() if k not in ("TFCOMPAT_MODE", "TFCOMPAT_API")}
    env["PYTHONPATH"] = repo + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "tfcompat", "script.py"], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == TF_NMT_OUTPUT


# ---------------------------------------------------------------- tf.edit_distance


def _sparse(indices, values, shape):
    return tf.SparseTensor(tf.constant(indices, tf.int64), tf.constant(values),
                           tf.constant(shape, tf.int64))


def _edit_inputs():
    hypothesis = _sparse([[0, 0, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], ["a", "b", "c", "a"],
                         [2, 2, 2])
    truth = _sparse([[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1]],
                    ["a", "b", "c", "a", "b", "c"], [2, 2, 2])
    return hypothesis, truth


def test_edit_distance_eager():
    hypothesis, truth = _edit_inputs()
    out = tf.edit_distance(hypothesis, truth)
    assert out.dtype == tf.float32 and out.numpy().tolist() == TF_EDIT_NORMALIZED
    assert tf.edit_distance(hypothesis, truth, normalize=False).numpy().tolist() == TF_EDIT_RAW
    h2 = _sparse([[0, 0], [0, 1], [0, 2], [1, 0]], [1, 2, 3, 4], [3, 3])
    t2 = _sparse([[0, 0], [0, 1], [2, 0], [2, 1]], [1, 3, 5, 6], [3, 2])
    assert tf.edit_distance(h2, t2).numpy().tolist() == TF_EDIT_EMPTY_ROWS
    assert tf.edit_distance(h2, t2, normalize=False).numpy().tolist() == TF_EDIT_EMPTY_ROWS_RAW
    h4 = _sparse([[0, 0], [2, 0]], [1, 2], [3, 1])
    t4 = _sparse([[1, 0], [2, 0]], [1, 2], [4, 1])
    assert tf.edit_distance(h4, t4).numpy().tolist() == TF_EDIT_BOTH_EMPTY
    assert tf.edit_distance(h4, t4, normalize=False).numpy().tolist() == TF_EDIT_BOTH_EMPTY_RAW
    positions_ignored = tf.edit_distance(_sparse([[0, 0, 1], [0, 0, 2]], ["x", "y"], [1, 1, 4]),
                                         _sparse([[0, 0, 0], [0, 0, 3]], ["x", "y"], [1, 1, 4]))
    assert positions_ignored.numpy().tolist() == [[0.0]]
    assert tf.edit_distance(v1.SparseTensorValue([[0, 0]], [1], [1, 1]),
                            v1.SparseTensorValue([[0, 1]], [2], [1, 2])).numpy().tolist() == [1.0]


def test_edit_distance_errors():
    h2 = _sparse([[0, 0]], [1], [3, 3])
    with pytest.raises(TypeError, match="Hypothesis must be a SparseTensor."):
        tf.edit_distance(tf.constant([[1]]), h2)
    with pytest.raises(TypeError, match="Truth must be a SparseTensor."):
        tf.edit_distance(h2, tf.constant([[1]]))
    with pytest.raises(errors.InvalidArgumentError,
                       match="input #4\\(zero-based\\) was expected to be a int32 tensor but "
                             "is a float tensor"):
        tf.edit_distance(h2, _sparse([[0, 0]], [1.0], [1, 1]))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Expected truth and hypothesis to have matching ranks, but their "
                             r"shapes are: \[3\] and \[2\]"):
        tf.edit_distance(h2, _sparse([[0, 0, 0]], [1], [1, 1, 1]))
    with pytest.raises(errors.InvalidArgumentError,
                       match="Input SparseTensors must have rank at least 2, but truth_shape "
                             "rank is: 1"):
        tf.edit_distance(_sparse([[0]], [1], [1]), _sparse([[0]], [1], [1]))


def test_edit_distance_graph_and_sparse_placeholder():
    with tf.Graph().as_default():
        hypothesis = v1.sparse_placeholder(tf.int32)
        truth = v1.sparse.placeholder(tf.int32, shape=[None, None])
        distance = tf.edit_distance(hypothesis, truth)
        assert distance.shape.rank is None and hypothesis.shape.rank is None
        assert truth.shape.as_list() == [None, None]
        assert truth.dense_shape.shape.as_list() == [2]
        hyp_str, truth_str = _edit_inputs()
        strings = tf.edit_distance(hyp_str, truth_str, normalize=False)
        with v1.Session() as sess:
            assert sess.run(distance, {
                hypothesis: v1.SparseTensorValue([[0, 0], [0, 1], [0, 2], [1, 0]],
                                                 [1, 2, 3, 4], [3, 3]),
                truth: ([[0, 0], [0, 1], [2, 0], [2, 1]], [1, 3, 5, 6], [3, 2])
            }).tolist() == TF_EDIT_EMPTY_ROWS
            assert sess.run(strings).tolist() == TF_EDIT_RAW
            fetched = sess.run(hypothesis, {hypothesis: ([[1, 2]], [7], [3, 4])})
            assert fetched.indices.tolist() == [[1, 2]] and fetched.values.tolist() == [7]
            assert fetched.dense_shape.tolist() == [3, 4]


def test_sparse_placeholder_with_shape():
    with tf.Graph().as_default():
        sparse = v1.sparse_placeholder(tf.float32, shape=[3, None], name="sp")
        assert sparse.shape.as_list() == [3, None]
        assert [t.name for t in (sparse.indices, sparse.values, sparse.dense_shape)] == [
            "sp/indices:0", "sp/values:0", "sp/shape:0"]
        assert sparse.indices.shape.as_list() == [None, 2]
        assert sparse.values.shape.as_list() == [None]
        dense = tf.sparse.to_dense(sparse)
        with v1.Session() as sess:
            assert sess.run(dense, {sparse: ([[0, 1], [2, 0]], [1.0, 2.0], [3, 2])}).tolist() \
                == [[0.0, 1.0], [0.0, 0.0], [2.0, 0.0]]
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        v1.sparse_placeholder(tf.float32)
