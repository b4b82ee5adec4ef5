"""tf.data's TF 2 parts: CSV readers, save/load, from_generator signatures, windows, scan,
unique, grouping and bucketing, ragged batches, sampling and resampling.

Expected values are what real TF 2.21 gives for the same pipelines
(tests/fixtures/data_tf2/tf_reference.py prints them); random orders are checked for their
properties only, as tfcompat's random numbers differ from TF's.
"""
import collections
import functools
import gzip
import json
import os

import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api
from tfcompat.framework import errors

_api.build_namespaces("tfcompat")
Dataset = tf.data.Dataset
experimental = tf.data.experimental
TensorSpec = tf.TensorSpec


def plain(value):
    """Nested Python values of an element (RaggedTensors as ("R", rows))."""
    if isinstance(value, tf.RaggedTensor):
        return ("R", value.to_list())
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    array = value.numpy()
    return array.tolist() if hasattr(array, "tolist") else array


def values(dataset):
    return [plain(e) for e in dataset]


def graph_values(dataset_fn, count):
    """`count` elements of `dataset_fn()` through a TF1 one-shot iterator in a graph."""
    graph = tf.Graph()
    with graph.as_default():
        element = tf.compat.v1.data.make_one_shot_iterator(dataset_fn()).get_next()
        with tf.compat.v1.Session() as session:
            return [session.run(element) for _ in range(count)]


# ---------------------------------------------------------------- CSV

PEOPLE = ('name,age,score,city\n"Smith, J",34,1.5,NY\nLee,,2.25,\nKim,7,,"LA ""x"""\n'
          'Park,12,3.0,SF\n')
TABLE = "a,b,c,label\n1,2.5,x,0\n2,,y,1\n3,4.5,,0\n4,5.5,w,1\n5,6.5,v,0\n"


@pytest.fixture
def csv_dir(tmp_path):
    files = {"people.csv": PEOPLE, "semi.csv": "1;2;x\n3;NA;y\n5;6;z\n", "table.csv": TABLE,
             "pairs.csv": "1,2\n3,4,5\n", "bad.csv": "1\nabc\n", "gap.csv": "1,2\n\n3,4\n",
             "quotes.csv": 'a,"b",c\n"x""y",z,"1,2"\n', "lines.csv": '1,"a\nb",2\r\n3,c,4\r\n',
             "spaces.csv": " 3 ,1e3\n", "wide.csv": "a,b\n1,10000000000\n2,3.5\n",
             "empty_col.csv": "a,b\n1,\n2,\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with gzip.open(str(tmp_path / "packed.csv.gz"), "wt") as f:
        f.write("x,y\n1,2\n3,4\n")
    return tmp_path


def test_csv_dataset_defaults_quotes_and_selection(csv_dir):
    people = str(csv_dir / "people.csv")
    ds = experimental.CsvDataset(people, [tf.string, [-1], [0.5], ["?"]], header=True)
    assert ds.element_spec == (TensorSpec([], tf.string), TensorSpec([], tf.int32),
                               TensorSpec([], tf.float32), TensorSpec([], tf.string))
    assert values(ds) == [(b"Smith, J", 34, 1.5, b"NY"), (b"Lee", -1, 2.25, b"?"),
                          (b"Kim", 7, 0.5, b'LA "x"'), (b"Park", 12, 3.0, b"SF")]
    selected = experimental.CsvDataset(people, [tf.string, [0.0]], header=True,
                                       select_cols=[0, 2])
    assert values(selected) == [(b"Smith, J", 1.5), (b"Lee", 2.25), (b"Kim", 0.0),
                                (b"Park", 3.0)]
    semi = experimental.CsvDataset(str(csv_dir / "semi.csv"), [tf.int64, [-1], tf.string],
                                   field_delim=";", na_value="NA")
    assert values(semi) == [(1, 2, b"x"), (3, -1, b"y"), (5, 6, b"z")]
    assert values(experimental.CsvDataset(str(csv_dir / "quotes.csv"), [tf.string] * 3)) == \
        [(b"a", b"b", b"c"), (b'x"y', b"z", b"1,2")]
    assert values(experimental.CsvDataset(str(csv_dir / "lines.csv"),
                                          [tf.int32, tf.string, tf.int32])) == \
        [(1, b"a\nb", 2), (3, b"c", 4)]
    assert values(experimental.CsvDataset(str(csv_dir / "spaces.csv"),
                                          [tf.int32, tf.float32])) == [(3, 1000.0)]
    assert values(experimental.CsvDataset(str(csv_dir / "packed.csv.gz"), [tf.int32, tf.int32],
                                          header=True, compression_type="GZIP")) == \
        [(1, 2), (3, 4)]
    # batched, the columns come as vectors
    batched = experimental.CsvDataset(people, [tf.string, [-1], [0.5], ["?"]],
                                      header=True).batch(3)
    assert values(batched)[1] == ([b"Park"], [12], [3.0], [b"SF"])


@pytest.mark.parametrize("name, defaults, kwargs, message", [
    ("people.csv", [tf.string, tf.int32, [0.5], ["?"]], {"header": True},
     "Field 1 is required but missing in record!"),
    ("semi.csv", [tf.int64, tf.int64, tf.string], {"field_delim": ";", "na_value": "NA"},
     "Field 1 is required but missing in record!"),
    ("pairs.csv", [tf.int32, tf.int32], {}, "Expect 2 fields but have more in record"),
    ("pairs.csv", [tf.int32, tf.int32, tf.int32], {}, "Expect 3 fields but have 2 in record"),
    ("bad.csv", [tf.int32], {}, "Field 0 in record is not a valid int32: abc"),
    ("gap.csv", [[0], [9]], {}, "Expect 2 fields but have 1 in record"),
    ("quotes.csv", [tf.string] * 3, {"use_quote_delim": False},
     "Expect 3 fields but have more in record"),
    ("quotes.csv", [tf.string] * 2, {"select_cols": [0, 3]},
     "Expect 2 fields but have 1 in record"),
    ("spaces.csv", [tf.int64, tf.int64], {}, "Field 1 in record is not a valid int64: 1e3"),
])
def test_csv_dataset_record_errors(csv_dir, name, defaults, kwargs, message):
    ds = experimental.CsvDataset(str(csv_dir / name), defaults, **kwargs)
    with pytest.raises(errors.InvalidArgumentError, match=message):
        values(ds)


def test_csv_dataset_argument_errors(csv_dir):
    name = str(csv_dir / "quotes.csv")
    with pytest.raises(errors.InvalidArgumentError,
                       match="select_cols should be strictly increasing indices"):
        experimental.CsvDataset(name, [tf.string] * 2, select_cols=[2, 0])
    with pytest.raises(errors.InvalidArgumentError,
                       match="There should only be 1 default per field but field 0 has 2"):
        experimental.CsvDataset(name, [[1, 2]])
    with pytest.raises(ValueError, match="unsupported type"):
        experimental.CsvDataset(name, [tf.bool])


def test_make_csv_dataset_matches_tf(csv_dir):
    table = str(csv_dir / "table.csv")
    ds = experimental.make_csv_dataset(table, batch_size=2, label_name="label",
                                       shuffle=False, num_epochs=1)
    features, label = ds.element_spec
    assert isinstance(features, collections.OrderedDict) and list(features) == ["a", "b", "c"]
    assert [features[k] for k in "abc"] == [TensorSpec([None], tf.int32),
                                           TensorSpec([None], tf.float32),
                                           TensorSpec([None], tf.string)]
    assert label == TensorSpec([None], tf.int32)
    assert values(ds) == [({"a": [1, 2], "b": [2.5, 0.0], "c": [b"x", b"y"]}, [0, 1]),
                          ({"a": [3, 4], "b": [4.5, 5.5], "c": [b"", b"w"]}, [0, 1]),
                          ({"a": [5], "b": [6.5], "c": [b"v"]}, [0])]
    # num_epochs=None repeats forever with a static batch size
    forever = experimental.make_csv_dataset(table, batch_size=3, shuffle=False)
    assert forever.element_spec["a"] == TensorSpec([3], tf.int32)
    assert values(forever.take(3)) == [
        {"a": [1, 2, 3], "b": [2.5, 0.0, 4.5], "c": [b"x", b"y", b""], "label": [0, 1, 0]},
        {"a": [4, 5, 1], "b": [5.5, 6.5, 2.5], "c": [b"w", b"v", b"x"], "label": [1, 0, 0]},
        {"a": [2, 3, 4], "b": [0.0, 4.5, 5.5], "c": [b"y", b"", b"w"], "label": [1, 0, 1]}]
    selected = experimental.make_csv_dataset(table, batch_size=2, shuffle=False, num_epochs=1,
                                             select_columns=["c", "a"],
                                             column_defaults=[tf.int64, ["?"]])
    assert values(selected) == [{"a": [1, 2], "c": [b"x", b"y"]},
                                {"a": [3, 4], "c": [b"?", b"w"]}, {"a": [5], "c": [b"v"]}]
    renamed = experimental.make_csv_dataset(table, batch_size=5, shuffle=False, num_epochs=1,
                                            column_names=["A", "B", "C", "D"], na_value="x")
    assert values(renamed) == [{"A": [1, 2, 3, 4, 5], "B": [2.5, 0.0, 4.5, 5.5, 6.5],
                                "C": [b"", b"y", b"", b"w", b"v"], "D": [0, 1, 0, 1, 0]}]
    inferred = experimental.make_csv_dataset(str(csv_dir / "wide.csv"), 2, shuffle=False,
                                             num_epochs=1)
    assert [inferred.element_spec[k].dtype for k in "ab"] == [tf.int32, tf.float32]
    assert values(experimental.make_csv_dataset(str(csv_dir / "empty_col.csv"), 2,
                                                shuffle=False, num_epochs=1)) == \
        [{"a": [1, 2], "b": [b"", b""]}]
    assert values(experimental.make_csv_dataset(str(csv_dir / "packed.csv.gz"), 2,
                                                shuffle=False, num_epochs=1,
                                                compression_type="GZIP")) == \
        [{"x": [1, 3], "y": [2, 4]}]


def test_make_csv_dataset_shuffles_each_epoch_with_a_seed(csv_dir):
    def run():
        ds = experimental.make_csv_dataset(str(csv_dir / "table.csv"), batch_size=2,
                                           label_name="label", shuffle_seed=3, num_epochs=2)
        return [a for features, _ in ds for a in features["a"].numpy().tolist()]
    first = run()
    assert first == run()
    assert sorted(first[:5]) == sorted(first[5:]) == [1, 2, 3, 4, 5]


def test_make_csv_dataset_errors(csv_dir):
    table = str(csv_dir / "table.csv")
    with pytest.raises(ValueError, match="`label_name` provided must be one of the columns: "
                                         r"\['a', 'b', 'c', 'label'\]. Received: zz."):
        experimental.make_csv_dataset(table, batch_size=2, label_name="zz")
    with pytest.raises(ValueError, match="Expected `column_names` or `header` arguments"):
        experimental.make_csv_dataset(table, batch_size=2, header=False)
    with pytest.raises(ValueError, match="No files match `file_pattern`"):
        experimental.make_csv_dataset(str(csv_dir / "nope*.csv"), batch_size=2)
    with pytest.raises(ValueError, match="duplicate column names: {'a'}"):
        experimental.make_csv_dataset(table, 2, column_names=["a", "a", "b", "c"])
    with pytest.raises(ValueError, match="`column_defaults` has length 2, `select_columns` "
                                         "has length 1"):
        experimental.make_csv_dataset(table, 2, select_columns=["a"],
                                      column_defaults=[tf.int32, tf.int32])


def test_make_csv_dataset_in_a_graph(csv_dir):
    got = graph_values(lambda: experimental.make_csv_dataset(
        str(csv_dir / "table.csv"), 2, label_name="label", shuffle=False, num_epochs=1), 2)
    features, label = got[1]
    assert features["a"].tolist() == [3, 4] and features["c"].tolist() == [b"", b"w"]
    assert label.tolist() == [0, 1]


# ---------------------------------------------------------------- from_generator


def test_from_generator_nested_signature_with_ragged():
    signature = (TensorSpec([None], tf.float32),
                 {"id": TensorSpec([], tf.int64),
                  "r": tf.RaggedTensorSpec([None, None], tf.int32, 1)})

    def generate():
        yield [1.0, 2.0], {"id": 1, "r": tf.ragged.constant([[1], [2, 3]])}
        yield np.array([3.0]), {"id": np.int64(2), "r": tf.ragged.constant([[4, 5, 6]])}
    ds = Dataset.from_generator(generate, output_signature=signature)
    assert ds.element_spec == signature
    assert repr(signature[1]["r"]) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)"
    assert values(ds) == [([1.0, 2.0], {"id": 1, "r": ("R", [[1], [2, 3]])}),
                          ([3.0], {"id": 2, "r": ("R", [[4, 5, 6]])})]


def test_from_generator_converts_like_numpy():
    spec = TensorSpec([], tf.int32)
    assert values(Dataset.from_generator(lambda: iter([1.5]), output_signature=spec)) == [1]
    assert values(Dataset.from_generator(lambda: iter([tf.constant(1.5)]),
                                         output_signature=spec)) == [1]
    assert values(Dataset.from_generator(lambda: iter([1]), output_signature=TensorSpec(
        [], tf.float32))) == [1.0]
    assert values(Dataset.from_generator(lambda: iter(["ab", b"c"]), output_signature=TensorSpec(
        [], tf.string))) == [b"ab", b"c"]
    assert values(Dataset.from_generator(lambda n: iter(range(n)), args=(3,),
                                         output_signature=TensorSpec([], tf.int64))) == [0, 1, 2]


@pytest.mark.parametrize("items, signature, message", [
    ([[1, 2, 3]], TensorSpec([2], tf.int32),
     r"TypeError: `generator` yielded an element of shape \(3,\) where an element of shape "
     r"\(2,\) was expected."),
    ([[1, 2]], TensorSpec([], tf.int32),
     r"yielded an element of shape \(2,\) where an element of shape \(\) was expected."),
    ([(1, 2)], (TensorSpec([], tf.int32),),
     r"did not match the expected structure. The expected structure was \(tf.int32,\), but "
     r"the yielded element was \(1, 2\)."),
    ([1], (TensorSpec([], tf.int32), TensorSpec([], tf.int32)),
     r"The expected structure was \(tf.int32, tf.int32\), but the yielded element was 1."),
    ([{"a": 1}], {"a": TensorSpec([], tf.int32), "b": TensorSpec([], tf.int32)},
     r"The expected structure was {'a': tf.int32, 'b': tf.int32}, but the yielded element "
     r"was {'a': 1}."),
    ([[[1], [2, 3]]], tf.RaggedTensorSpec([None, None], tf.int32),
     r"The expected structure was RaggedTensorSpec\(TensorShape\(\[None, None\]\), tf.int32, "
     r"1, tf.int64\), but the yielded element was \[\[1\], \[2, 3\]\]."),
    ([tf.constant([[1, 2]])], tf.RaggedTensorSpec([None, None], tf.int32),
     r"yielded an element of TensorSpec\(shape=\(1, 2\), dtype=tf.int32, name=None\) where "
     r"an element of RaggedTensorSpec\(TensorShape\(\[None, None\]\), tf.int32, 1, "
     r"tf.int64\) was expected."),
    (["abc"], TensorSpec([], tf.int32),
     "could not be converted to the expected type. The expected type was int32"),
])
def test_from_generator_element_errors(items, signature, message):
    ds = Dataset.from_generator(lambda: iter(items), output_signature=signature)
    with pytest.raises(errors.InvalidArgumentError, match=message):
        values(ds)


def test_from_generator_signature_errors():
    with pytest.raises(TypeError, match="`output_signature` must contain objects that are "
                                        "subclass of `tf.TypeSpec`"):
        Dataset.from_generator(lambda: iter([1]), output_signature=tf.int32)
    with pytest.raises(TypeError, match="The `output_types` argument can not be used together "
                                        "with the `output_signature` argument."):
        Dataset.from_generator(lambda: iter([1]), output_types=tf.int32,
                               output_signature=TensorSpec([], tf.int32))


# ---------------------------------------------------------------- windows


def test_window_flat_map_batches_as_the_time_series_tutorial():
    ds = Dataset.range(7).window(3, 2, 1, True).flat_map(lambda w: w.batch(3))
    assert values(ds) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert ds.element_spec == TensorSpec([None], tf.int64)
    strided = Dataset.range(10).window(3, shift=3, stride=2).flat_map(lambda w: w.batch(3))
    assert values(strided) == [[0, 2, 4], [3, 5, 7], [6, 8], [9]]
    pairs = Dataset.from_tensor_slices({"a": [1, 2, 3, 4], "b": [5, 6, 7, 8]})
    assert values(pairs.window(2).flat_map(lambda w: Dataset.zip(w).batch(2))) == \
        [{"a": [1, 2], "b": [5, 6]}, {"a": [3, 4], "b": [7, 8]}]
    assert values(pairs.window(3, 1, drop_remainder=True).flat_map(
        lambda w: Dataset.zip((w["a"].batch(3), w["b"].batch(3))))) == \
        [([1, 2, 3], [5, 6, 7]), ([2, 3, 4], [6, 7, 8])]
    assert [v.tolist() for v in graph_values(
        lambda: Dataset.range(10).window(3, shift=2, drop_remainder=True).flat_map(
            lambda w: w.batch(3)), 2)] == [[0, 1, 2], [2, 3, 4]]


# ---------------------------------------------------------------- scan / unique / take_while


def test_scan():
    ds = Dataset.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10))
    assert values(ds) == [0, 0, 10, 30, 60]
    tuples = Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6])).scan(
        (0, 1), lambda s, e: ((s[0] + e[0], s[1] * e[1]), e[0] + e[1]))
    assert values(tuples) == [5, 7, 9]
    assert Dataset.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (
        s + x, tf.cast(s, tf.float32))).element_spec == TensorSpec([], tf.float32)
    growing = Dataset.range(3).scan(tf.constant([0], tf.int64),
                                    lambda s, x: (tf.concat([s, [x]], 0), s))
    assert growing.element_spec == TensorSpec([None], tf.int64)    # the state shape relaxed
    assert values(growing) == [[0], [0, 0], [0, 0, 1]]
    assert values(experimental.scan(0, lambda s, x: (s + 1, s))(Dataset.range(3))) == [0, 1, 2]
    assert [v.tolist() for v in graph_values(lambda: Dataset.range(5).scan(
        tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10)), 5)] == [0, 0, 10, 30, 60]
    with pytest.raises(TypeError, match="Invalid `scan_func`. The element types for the new "
                                        "state must match the initial state. Expected "
                                        "<dtype: 'int32'>, got <dtype: 'int64'>."):
        Dataset.range(5).scan(tf.constant(0, tf.int32), lambda s, x: (x, s))


def test_unique_and_take_while():
    assert values(Dataset.from_tensor_slices([1, 2, 1, 3, 2, 4]).unique()) == [1, 2, 3, 4]
    assert values(Dataset.from_tensor_slices(["b", "a", "b"]).unique()) == [b"b", b"a"]
    assert values(Dataset.from_tensor_slices([[1, 2], [1, 2]]).unique()) == [[1, 2]]
    assert values(Dataset.from_tensor_slices([3, 3]).apply(experimental.unique())) == [3]
    with pytest.raises(TypeError, match="`tf.data.Dataset.unique` does not support type "
                                        "<dtype: 'float32'> -- only `tf.int32`, `tf.int64`, "
                                        "and `tf.string` are supported."):
        Dataset.from_tensor_slices([1.0]).unique()
    with pytest.raises(errors.InvalidArgumentError, match="UniqueDataset only supports inputs "
                                                          "with a single component."):
        Dataset.from_tensor_slices(([1], [2])).unique()
    assert values(Dataset.range(10).take_while(lambda x: x < 4)) == [0, 1, 2, 3]
    assert values(Dataset.range(10).apply(experimental.take_while(lambda x: x < 2))) == [0, 1]


def test_ignore_errors():
    ds = Dataset.from_tensor_slices([1.0, 0.0, 2.0]).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "inf"))
    assert values(ds.ignore_errors()) == [1.0, 0.5]
    assert values(ds.apply(experimental.ignore_errors())) == [1.0, 0.5]


# ---------------------------------------------------------------- grouping and bucketing


def test_group_by_window_order():
    ds = Dataset.range(11).group_by_window(lambda x: x % 3, lambda k, w: w.batch(2),
                                           window_size=2)
    assert values(ds) == [[0, 3], [1, 4], [2, 5], [6, 9], [7, 10], [8]]
    assert ds.element_spec == TensorSpec([None], tf.int64)
    # the groups left at the end come in increasing key order
    keyed = Dataset.from_tensor_slices([5, 3, 1, 4, 2, 0, 7]).group_by_window(
        lambda x: tf.cast(x % 4, tf.int64), lambda k, w: w.batch(10).map(lambda b: (k, b)),
        window_size=10)
    assert values(keyed) == [(0, [4, 0]), (1, [5, 1]), (2, [2]), (3, [3, 7])]
    sized = Dataset.range(10).group_by_window(lambda x: x % 2, lambda k, w: w.batch(5),
                                              window_size_func=lambda k: k + 2)
    assert values(sized) == [[0, 2], [1, 3, 5], [4, 6], [8], [7, 9]]
    assert values(Dataset.range(4).apply(experimental.group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(2), window_size=2))) == [[0, 2], [1, 3]]
    assert [v.tolist() for v in graph_values(lambda: Dataset.range(11).group_by_window(
        lambda x: x % 3, lambda k, w: w.batch(2), window_size=2), 6)] == \
        [[0, 3], [1, 4], [2, 5], [6, 9], [7, 10], [8]]


def test_group_by_window_errors():
    with pytest.raises(ValueError, match="Either the `window_size` argument or the "
                                         "`window_size_func` argument must be specified."):
        Dataset.range(3).group_by_window(lambda x: x, lambda k, w: w, window_size=2,
                                         window_size_func=lambda k: k)
    with pytest.raises(ValueError, match="tf.int64"):
        Dataset.range(3).group_by_window(lambda x: tf.cast(x, tf.int32), lambda k, w: w,
                                         window_size=2)


SEQUENCES = [[1], [2, 2], [3, 3, 3], [4, 4, 4, 4], [5], [6, 6, 6, 6, 6, 6], [7, 7]]


def sequences():
    return Dataset.from_generator(lambda: iter(SEQUENCES),
                                  output_signature=TensorSpec([None], tf.int32))


def test_bucket_by_sequence_length():
    length = lambda x: tf.shape(x)[0]   # noqa: E731
    ds = sequences().bucket_by_sequence_length(length, [3, 5], [2, 2, 2])
    assert values(ds) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]], [[5, 0], [7, 7]],
                          [[6, 6, 6, 6, 6, 6]]]
    dropping = sequences().bucket_by_sequence_length(length, [3, 5], [2, 2, 2],
                                                     drop_remainder=True)
    assert dropping.element_spec == TensorSpec([None, None], tf.int32)
    assert values(dropping) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]],
                                [[5, 0], [7, 7]]]
    assert values(sequences().apply(experimental.bucket_by_sequence_length(
        length, [4], [3, 3]))) == [[[1, 0, 0], [2, 2, 0], [3, 3, 3]], [[5, 0], [7, 7]],
                                   [[4, 4, 4, 4, 0, 0], [6, 6, 6, 6, 6, 6]]]
    padded = sequences().take(4).bucket_by_sequence_length(
        length, [3, 5], [2, 2, 2], pad_to_bucket_boundary=True, padding_values=-1)
    assert values(padded) == [[[1, -1], [2, 2]], [[3, 3, 3, -1], [4, 4, 4, 4]]]
    with pytest.raises(errors.InvalidArgumentError, match="pad_to_bucket_boundary=True"):
        values(sequences().bucket_by_sequence_length(length, [3, 5], [2, 2, 2],
                                                     pad_to_bucket_boundary=True))
    with pytest.raises(ValueError, match=r"`len\(bucket_batch_sizes\)` must equal "
                                         r"`len\(bucket_boundaries\) \+ 1`"):
        sequences().bucket_by_sequence_length(length, [3, 5], [2, 2])
    with pytest.raises(TypeError, match="int64 that does not match type int32"):
        Dataset.range(10).bucket_by_sequence_length(lambda x: x, [3, 6], [2, 3, 4])
    got = graph_values(lambda: sequences().take(3).bucket_by_sequence_length(
        length, [2], [2, 2]), 2)
    assert [v.tolist() for v in got] == [[[2, 2, 0], [3, 3, 3]], [[1]]]


# ---------------------------------------------------------------- ragged batches


def test_ragged_batch():
    ds = sequences().ragged_batch(3)
    assert ds.element_spec == tf.RaggedTensorSpec([None, None], tf.int32, 1, tf.int64)
    assert values(ds) == [("R", [[1], [2, 2], [3, 3, 3]]),
                          ("R", [[4, 4, 4, 4], [5], [6, 6, 6, 6, 6, 6]]), ("R", [[7, 7]])]
    assert sequences().ragged_batch(3, drop_remainder=True).element_spec == \
        tf.RaggedTensorSpec([3, None], tf.int32, 1, tf.int64)
    assert sequences().ragged_batch(2, row_splits_dtype=tf.int32).element_spec == \
        tf.RaggedTensorSpec([None, None], tf.int32, 1, tf.int32)
    assert Dataset.range(5).ragged_batch(2).element_spec == TensorSpec([None], tf.int64)
    assert values(Dataset.range(5).ragged_batch(2)) == [[0, 1], [2, 3], [4]]
    matrices = Dataset.from_generator(lambda: iter([np.ones((1, 2)), np.zeros((2, 2))]),
                                      output_signature=TensorSpec([None, 2], tf.float32))
    assert matrices.ragged_batch(2).element_spec == \
        tf.RaggedTensorSpec([None, None, 2], tf.float32, 1, tf.int64)
    assert values(matrices.ragged_batch(2)) == [("R", [[[1.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]])]
    mixed = Dataset.from_generator(
        lambda: iter([{"a": [1], "b": 1}]),
        output_signature={"a": TensorSpec([None], tf.int32), "b": TensorSpec([], tf.int32)})
    assert mixed.ragged_batch(2).element_spec == {
        "a": tf.RaggedTensorSpec([None, None], tf.int32, 1, tf.int64),
        "b": TensorSpec([None], tf.int32)}
    assert values(sequences().take(2).apply(experimental.dense_to_ragged_batch(2))) == \
        [("R", [[1], [2, 2]])]
    flat, splits = graph_values(lambda: sequences().ragged_batch(2).map(
        lambda r: (r.flat_values, r.row_splits)), 1)[0]
    assert flat.tolist() == [1, 2, 2] and splits.tolist() == [0, 1, 3]


# ---------------------------------------------------------------- choosing and sampling


def test_choose_from_datasets():
    choices = Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0, 1, 0, 0, 1], tf.int64))
    both = [Dataset.range(3), Dataset.range(10, 13)]
    assert values(Dataset.choose_from_datasets(both, choices)) == [0, 10, 11, 1, 12, 2]
    assert values(Dataset.choose_from_datasets(both, choices, stop_on_empty_dataset=False)) \
        == [0, 10, 11, 1, 12, 2]
    assert values(Dataset.choose_from_datasets(both, choices.take(3).concatenate(
        Dataset.from_tensor_slices(tf.constant([0, 0, 0, 0, 1], tf.int64))))) == \
        [0, 10, 11, 1, 2]
    assert values(experimental.choose_from_datasets(
        [Dataset.range(2), Dataset.range(5, 7)], Dataset.range(2).repeat(2))) == [0, 5, 1, 6]
    with pytest.raises(errors.InvalidArgumentError,
                       match="Selector index out of range: 3 >= 1"):
        values(Dataset.choose_from_datasets([Dataset.range(3)], Dataset.from_tensor_slices(
            tf.constant([0, 3], tf.int64))))
    with pytest.raises(TypeError, match="Elements of `choice_dataset` must be scalar "
                                        "`tf.int64` tensors"):
        Dataset.choose_from_datasets([Dataset.range(3)],
                                     Dataset.from_tensor_slices(tf.constant([0], tf.int32)))
    with pytest.raises(TypeError, match="`datasets` must have compatible element specs."):
        Dataset.choose_from_datasets([Dataset.range(3), Dataset.from_tensor_slices([1.0])],
                                     Dataset.range(1))


def test_sample_from_datasets():
    pair = [Dataset.range(3), Dataset.range(10, 13)]
    ds = Dataset.sample_from_datasets(pair, weights=[0.5, 0.5], seed=1)
    assert ds.element_spec == TensorSpec([], tf.int64)
    assert sorted(values(ds)) == [0, 1, 2, 10, 11, 12]
    assert values(ds) == values(ds)     # seeded: the same order each pass
    assert values(Dataset.sample_from_datasets(pair, weights=[1.0, 0.0], seed=1)) == [0, 1, 2]
    # each dataset keeps its own order
    assert [v for v in values(Dataset.sample_from_datasets(pair, seed=7)) if v < 10] == \
        [0, 1, 2]
    many = values(Dataset.sample_from_datasets(
        [Dataset.from_tensors(0).repeat(), Dataset.from_tensors(1).repeat()],
        weights=[0.8, 0.2], seed=3).take(2000))
    assert 0.75 < many.count(0) / 2000.0 < 0.85
    stopping = values(experimental.sample_from_datasets(
        [Dataset.range(2), Dataset.from_tensors(np.int64(9)).repeat()], seed=2,
        stop_on_empty_dataset=True))
    assert [v for v in stopping if v != 9] == [0, 1]    # ended when range(2) ran out
    with pytest.raises(ValueError, match=r"`weights` should have the same length as "
                                         r"`datasets` but got `len\(weights\)=1` vs. "
                                         r"`len\(datasets\)=2`."):
        Dataset.sample_from_datasets(pair, weights=[1.0])


def test_counter_and_random():
    assert Dataset.counter(start=2, step=3).element_spec == TensorSpec([], tf.int64)
    assert values(Dataset.counter(2, 3).take(3)) == [2, 5, 8]
    assert values(Dataset.counter(dtype=tf.int32).take(2)) == [0, 1]
    assert int(Dataset.counter().cardinality()) == -1
    assert values(experimental.Counter(5).take(2)) == [5, 6]
    random = Dataset.random(seed=4)
    assert random.element_spec == TensorSpec([], tf.int64)
    assert int(random.cardinality()) == -1
    first = values(random.take(5))
    assert first == values(random.take(5)) == values(Dataset.random(seed=4).take(5))
    assert len(set(first)) == 5
    assert values(experimental.RandomDataset(seed=4).take(5)) == first
    rerandomized = Dataset.random(seed=4, rerandomize_each_iteration=True)
    assert values(rerandomized.take(3)) != values(rerandomized.take(3))


def test_rejection_resample():
    ds = Dataset.range(10).rejection_resample(lambda x: tf.cast(x % 2, tf.int32), [0.5, 0.5],
                                              seed=1)
    assert ds.element_spec == (TensorSpec([], tf.int32), TensorSpec([], tf.int64))
    assert Dataset.range(10).apply(experimental.rejection_resample(
        lambda x: tf.cast(x % 2, tf.int32), [0.5, 0.5], seed=1)).element_spec == \
        ds.element_spec
    # initial == target: every element passes, with its class
    assert sorted(values(Dataset.range(10).rejection_resample(
        lambda x: tf.cast(x % 2, tf.int32), [0.5, 0.5], initial_dist=[0.5, 0.5], seed=1))) == \
        [(0, 0), (0, 2), (0, 4), (0, 6), (0, 8), (1, 1), (1, 3), (1, 5), (1, 7), (1, 9)]
    skewed = Dataset.range(4000).map(lambda x: tf.cast(tf.equal(x % 10, 0), tf.int32))
    for initial in ([0.9, 0.1], None):
        balanced = skewed.rejection_resample(lambda c: c, [0.5, 0.5], initial_dist=initial,
                                             seed=5)
        classes = [int(c) for c, _ in balanced.take(300)]
        assert 0.35 < sum(classes) / 300.0 < 0.65


# ---------------------------------------------------------------- save / load


def test_save_load_structures_and_order(tmp_path):
    path = str(tmp_path / "saved")
    ds = Dataset.from_tensor_slices(({"a": [1, 2, 3], "b": [[1.5, 2.], [3., 4.], [5., 6.]]},
                                     ["x", "y", "z"]))
    ds.save(path)
    loaded = Dataset.load(path)
    assert loaded.element_spec == ({"a": TensorSpec([], tf.int32),
                                    "b": TensorSpec([2], tf.float32)},
                                   TensorSpec([], tf.string))
    assert values(loaded) == [({"a": 1, "b": [1.5, 2.0]}, b"x"), ({"a": 2, "b": [3.0, 4.0]}, b"y"),
                              ({"a": 3, "b": [5.0, 6.0]}, b"z")]
    assert int(loaded.cardinality()) == 3
    with open(os.path.join(path, "dataset_spec.json")) as f:   # the spec is plain JSON
        assert json.load(f)["cardinality"] == 3


def test_save_load_shards_compression_and_reader(tmp_path):
    path = str(tmp_path / "gz")
    experimental.save(Dataset.range(6), path, compression="GZIP", shard_func=lambda x: x % 2)
    with open(os.path.join(path, "shard-00000.tfrecord"), "rb") as f:
        assert f.read(2) == b"\x1f\x8b"     # gzip
    assert values(experimental.load(path, compression="GZIP")) == [0, 1, 2, 3, 4, 5]
    assert experimental.load(path, TensorSpec([], tf.int64)).element_spec == \
        TensorSpec([], tf.int64)
    assert values(Dataset.load(path, reader_func=lambda shards: shards.flat_map(
        lambda shard: shard))) == [0, 2, 4, 1, 3, 5]
    with pytest.raises(errors.InvalidArgumentError,
                       match="`shard_func` must return a scalar int64."):
        Dataset.range(3).save(str(tmp_path / "bad"), shard_func=lambda x: tf.cast(x, tf.int32))


def test_save_load_composites_and_missing(tmp_path):
    sparse_path, ragged_path = str(tmp_path / "sparse"), str(tmp_path / "ragged")
    Dataset.from_tensors(tf.sparse.SparseTensor([[0, 1]], [5], [2, 3])).save(sparse_path)
    sparse = Dataset.load(sparse_path)
    assert sparse.element_spec == tf.SparseTensorSpec([2, 3], tf.int32)
    assert [tf.sparse.to_dense(e).numpy().tolist() for e in sparse] == [[[0, 5, 0], [0, 0, 0]]]
    sequences().ragged_batch(4).save(ragged_path)
    assert values(Dataset.load(ragged_path)) == values(sequences().ragged_batch(4))
    with pytest.raises(errors.NotFoundError, match="element_spec file not found"):
        Dataset.load(str(tmp_path / "nonexist"))
    lazy = Dataset.load(str(tmp_path / "nonexist"), element_spec=TensorSpec([], tf.int64))
    with pytest.raises(errors.NotFoundError, match="Could not find metadata file"):
        values(lazy)
    with pytest.raises(NotImplementedError, match="checkpoint_args"):
        Dataset.range(2).save(str(tmp_path / "c"), checkpoint_args={})


def test_make_csv_dataset_ignore_errors(tmp_path):
    name = tmp_path / "mixed.csv"
    name.write_text("a,b\n1,2\nx,3\n4,5\n6\n7,8\n")
    ds = experimental.make_csv_dataset(str(name), 10, column_defaults=[tf.int32, tf.int32],
                                       shuffle=False, num_epochs=1, ignore_errors=True)
    assert values(ds) == [{"a": [1, 4, 7], "b": [2, 5, 8]}]
    with pytest.raises(errors.InvalidArgumentError, match="not a valid int32: x"):
        values(experimental.make_csv_dataset(str(name), 10, column_defaults=[tf.int32, tf.int32],
                                             shuffle=False, num_epochs=1))


# ---------------------------------------------------------------- options and small helpers


def test_options():
    options = tf.data.Options()
    assert (options.deterministic, options.experimental_distribute.auto_shard_policy,
            options.threading.private_threadpool_size, options.autotune.enabled) == \
        (None, experimental.AutoShardPolicy.AUTO, None, None)
    options.experimental_distribute.auto_shard_policy = experimental.AutoShardPolicy.DATA
    options.threading.private_threadpool_size = 4
    options.deterministic = False
    ds = Dataset.range(3).with_options(options)
    assert values(ds) == [0, 1, 2]
    assert ds.options().experimental_distribute.auto_shard_policy == \
        experimental.AutoShardPolicy.DATA
    assert ds.options().threading.private_threadpool_size == 4
    assert options.experimental_threading.private_threadpool_size == 4
    later = tf.data.Options()
    later.deterministic = True
    merged = ds.map(lambda x: x).with_options(later).options()
    assert merged.deterministic is True and merged.threading.private_threadpool_size == 4
    assert tf.data.Options() == tf.data.Options() and options != later
    with pytest.raises(AttributeError, match="Cannot set the property bogus on Options."):
        options.bogus = 1
    with pytest.raises(TypeError, match="Property \"deterministic\" must be of type "
                                        "<class 'bool'>, got: 3"):
        options.deterministic = 3


def test_from_list_assert_cardinality_get_structure():
    listed = experimental.from_list([(1, "a"), (2, "b")])
    assert values(listed) == [(1, b"a"), (2, b"b")]
    assert listed.element_spec == (TensorSpec([], tf.int32), TensorSpec([], tf.string))
    with pytest.raises(ValueError, match="`elements` should not be empty."):
        experimental.from_list([])
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        experimental.from_list([1, (1, 2)])
    unknown = Dataset.range(3).filter(lambda x: True)
    assert int(unknown.apply(experimental.assert_cardinality(3)).cardinality()) == 3
    with pytest.raises(errors.FailedPreconditionError, match="Input dataset was expected to "
                       "contain 5 elements but contained only 3 elements."):
        values(unknown.apply(experimental.assert_cardinality(5)))
    with pytest.raises(errors.FailedPreconditionError, match="Input dataset was expected to "
                       "contain 2 elements but contained at least 3 elements."):
        values(unknown.apply(experimental.assert_cardinality(2)))
    assert experimental.get_structure(Dataset.range(3)) == TensorSpec([], tf.int64)


def test_ragged_elements_slice_batch_and_unbatch():
    rows = tf.ragged.constant([[1], [2, 3], []])
    sliced = Dataset.from_tensor_slices(rows)
    assert sliced.element_spec == tf.RaggedTensorSpec([None], tf.int32, 0, tf.int64)
    assert values(sliced) == [[1], [2, 3], []]      # ragged rank 0: the rows are Tensors
    nested = Dataset.from_tensor_slices(tf.ragged.constant([[[1], [2, 3]], [[4]]]))
    assert nested.element_spec == tf.RaggedTensorSpec([None, None], tf.int32, 1, tf.int64)
    assert values(nested) == [("R", [[1], [2, 3]]), ("R", [[4]])]
    assert values(Dataset.from_tensor_slices((rows, [7, 8, 9]))) == \
        [([1], 7), ([2, 3], 8), ([], 9)]
    assert Dataset.from_tensors(rows).element_spec == \
        tf.RaggedTensorSpec([3, None], tf.int32, 1, tf.int64)
    batched = sliced.batch(2)
    assert batched.element_spec == tf.RaggedTensorSpec([None, None], tf.int32, 1, tf.int64)
    assert values(batched) == [("R", [[1], [2, 3]]), ("R", [[]])]
    assert nested.batch(2).element_spec == \
        tf.RaggedTensorSpec([None, None, None], tf.int32, 2, tf.int64)
    assert values(nested.batch(2)) == [("R", [[[1], [2, 3]], [[4]]])]
    assert batched.unbatch().element_spec == sliced.element_spec
    assert values(batched.unbatch()) == [[1], [2, 3], []]
    assert values(sliced.batch(3).map(lambda x: x * 2)) == [("R", [[2], [4, 6], []])]
    assert values(sliced.batch(3).map(lambda x: x.to_tensor())) == [[[1, 0], [2, 3], [0, 0]]]
    flat, splits = graph_values(lambda: sliced.batch(3).map(
        lambda r: (r.flat_values, r.row_splits)), 1)[0]
    assert flat.tolist() == [1, 2, 3] and splits.tolist() == [0, 1, 3, 3]


# ---------------------------------------------------------------- more of tf.data.experimental


def test_group_by_reducer():
    reducer = experimental.Reducer(init_func=lambda k: tf.constant(0, tf.int64),
                                   reduce_func=lambda s, x: s + x, finalize_func=lambda s: s)
    ds = Dataset.range(10).apply(experimental.group_by_reducer(lambda x: x % 3, reducer))
    assert ds.element_spec == TensorSpec([], tf.int64)
    assert values(ds) == [18, 12, 15]
    pairs = experimental.Reducer(lambda k: (k, tf.constant(0, tf.int64)),
                                 lambda s, x: (s[0], s[1] + x), lambda key, total: total * 10)
    assert values(Dataset.range(5).apply(experimental.group_by_reducer(lambda x: x % 2, pairs))) \
        == [60, 40]


def test_optional_and_get_next_as_optional():
    iterator = iter(Dataset.range(2))
    first = iterator.get_next_as_optional()
    iterator.get_next_as_optional()
    last = iterator.get_next_as_optional()
    assert bool(first.has_value()) and int(first.get_value()) == 0
    assert first.element_spec == TensorSpec([], tf.int64)
    assert not bool(last.has_value())
    with pytest.raises(errors.InvalidArgumentError,
                       match="The given optional does not have a value."):
        last.get_value()
    value = tf.experimental.Optional.from_value((1, 2.0)).get_value()
    assert plain(value) == (1, 2.0) and value[0].dtype == tf.int32
    assert not bool(tf.experimental.Optional.empty(TensorSpec([], tf.int32)).has_value())
    assert int(experimental.get_next_as_optional(iter(Dataset.range(3))).get_value()) == 0


def test_at_pad_to_cardinality_and_dense_to_sparse_batch():
    assert int(experimental.at(Dataset.range(10), 3)) == 3
    for index in (-1, 10):
        with pytest.raises(errors.OutOfRangeError,
                           match=r"Index out of range \[0, 10\):%d" % index):
            experimental.at(Dataset.range(10), index)
    padded = Dataset.from_tensor_slices({"a": [1, 2]}).apply(experimental.pad_to_cardinality(4))
    assert padded.element_spec == {"a": TensorSpec([], tf.int32),
                                   "valid": TensorSpec([], tf.bool)}
    assert values(padded) == [{"a": 1, "valid": True}, {"a": 2, "valid": True},
                              {"a": 0, "valid": False}, {"a": 0, "valid": False}]
    with pytest.raises(ValueError, match="must have a cardinalty less than the target "
                                         r"cardinality \(1\), but has cardinality 2"):
        Dataset.from_tensor_slices({"a": [1, 2]}).apply(experimental.pad_to_cardinality(1))
    with pytest.raises(ValueError, match="requires its input dataset to be a dictionary."):
        Dataset.range(2).apply(experimental.pad_to_cardinality(4))
    rows = Dataset.from_tensor_slices(tf.constant([[1, 0, 2], [0, 0, 0], [3, 4, 0]],
                                                  tf.int64)).map(
        lambda x: tf.boolean_mask(x, x > 0))
    sparse = rows.apply(experimental.dense_to_sparse_batch(2, [4]))
    assert sparse.element_spec == tf.SparseTensorSpec([None, 4], tf.int64)
    assert [(tf.sparse.to_dense(s).numpy().tolist(), s.dense_shape.numpy().tolist(),
             s.indices.numpy().tolist()) for s in sparse] == [
        ([[1, 2, 0, 0], [0, 0, 0, 0]], [2, 4], [[0, 0], [0, 1]]),
        ([[3, 4, 0, 0]], [1, 4], [[0, 0], [0, 1]])]
    with pytest.raises(errors.DataLossError, match=r"Input element had shape \(\[2\]\) that "
                                                   r"is larger than the row shape \(\[1\]\)."):
        values(rows.apply(experimental.dense_to_sparse_batch(2, [1])))


def test_tfrecord_writer_and_device_transformations(tmp_path):
    name = str(tmp_path / "w.tfrecord")
    experimental.TFRecordWriter(name).write(Dataset.from_tensor_slices([b"a", b"bc"]))
    assert values(tf.data.TFRecordDataset(name)) == [b"a", b"bc"]
    with pytest.raises(TypeError, match="Expected a`dataset` that produces scalar `tf.string` "
                                        "elements"):
        experimental.TFRecordWriter(name).write(Dataset.range(2))
    assert values(Dataset.range(3).apply(experimental.prefetch_to_device("/cpu:0"))) == \
        [0, 1, 2]
    assert values(Dataset.range(3).apply(experimental.copy_to_device("/cpu:0"))) == [0, 1, 2]
    assert experimental.enable_debug_mode() is None


def _example(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
        "y": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, i * 1.5]))}))


def test_parse_example_dataset_and_make_batched_features_dataset(tmp_path):
    name = str(tmp_path / "ex.tfrecord")
    with tf.io.TFRecordWriter(name) as writer:
        for i in range(5):
            writer.write(_example(i).SerializeToString())
    features = {"x": tf.io.FixedLenFeature([], tf.int64),
                "y": tf.io.FixedLenFeature([2], tf.float32)}
    parsed = tf.data.TFRecordDataset(name).batch(2).apply(
        experimental.parse_example_dataset(features))
    assert values(parsed) == [{"x": [0, 1], "y": [[0.0, 0.0], [0.5, 1.5]]},
                              {"x": [2, 3], "y": [[1.0, 3.0], [1.5, 4.5]]},
                              {"x": [4], "y": [[2.0, 6.0]]}]
    labeled = experimental.make_batched_features_dataset(name, 2, features, label_key="x",
                                                         num_epochs=1, shuffle=False)
    assert values(labeled) == [({"y": [[0.0, 0.0], [0.5, 1.5]]}, [0, 1]),
                               ({"y": [[1.0, 3.0], [1.5, 4.5]]}, [2, 3]),
                               ({"y": [[2.0, 6.0]]}, [4])]
    assert experimental.make_batched_features_dataset(
        name, 2, features, num_epochs=1, shuffle=False).element_spec == {
            "x": TensorSpec([None], tf.int64), "y": TensorSpec([None, 2], tf.float32)}
    assert experimental.make_batched_features_dataset(
        name, 2, features, shuffle=False).element_spec == {
            "x": TensorSpec([2], tf.int64), "y": TensorSpec([2, 2], tf.float32)}


def test_sql_dataset(tmp_path):
    import sqlite3
    name = str(tmp_path / "db.sqlite")
    connection = sqlite3.connect(name)
    connection.execute("create table t (name text, age int, score real)")
    connection.executemany("insert into t values (?,?,?)", [("a", 1, 0.5), ("b", 2, 1.5)])
    connection.commit()
    connection.close()
    ds = experimental.SqlDataset("sqlite", name, "SELECT name, age, score FROM t",
                                 (tf.string, tf.int32, tf.float64))
    assert values(ds) == [(b"a", 1, 0.5), (b"b", 2, 1.5)]
    with pytest.raises(errors.InvalidArgumentError, match="The database type, mysql, is not "
                                                          "supported by SqlDataset."):
        experimental.SqlDataset("mysql", name, "SELECT name FROM t", (tf.string,))
    with pytest.raises(errors.InvalidArgumentError, match=r"The number of columns in query "
                                                          r"\(2\) must match the number of "
                                                          r"elements in output_types \(1\)."):
        values(experimental.SqlDataset("sqlite", name, "SELECT name, age FROM t",
                                       (tf.string,)))


def test_snapshot(tmp_path):
    path = str(tmp_path / "snap")
    calls = []

    def record(x):
        calls.append(1)
        return x
    ds = Dataset.range(4).map(lambda x: tf.py_function(record, [x], tf.int64)).snapshot(path)
    assert values(ds.take(2)) == [0, 1]         # a partial pass writes no snapshot
    assert values(ds) == [0, 1, 2, 3]
    done = len(calls)
    assert values(ds) == [0, 1, 2, 3] and len(calls) == done      # read back
    assert values(Dataset.range(4).apply(experimental.snapshot(path))) == [0, 1, 2, 3]
    assert values(Dataset.range(3, 5).snapshot(str(tmp_path / "other"))) == [3, 4]


def test_rebatch_sparse_batch_and_get_single_element():
    assert values(Dataset.range(7).batch(3).rebatch(2)) == [[0, 1], [2, 3], [4, 5], [6]]
    assert values(Dataset.range(6).batch(4).rebatch(3)) == [[0, 1, 2], [3, 4, 5]]
    assert Dataset.range(6).batch(4).rebatch(3, drop_remainder=True).element_spec == \
        TensorSpec([3], tf.int64)
    assert Dataset.range(3).batch(3).get_single_element().numpy().tolist() == [0, 1, 2]
    with pytest.raises(errors.InvalidArgumentError, match="Dataset had more than one element."):
        Dataset.range(3).get_single_element()
    assert [tf.sparse.to_dense(s).numpy().tolist() for s in Dataset.from_tensor_slices(
        [[1, 2], [3, 4]]).sparse_batch(2, [3])] == [[[1, 2, 0], [3, 4, 0]]]
    with pytest.raises(NotImplementedError, match="fingerprint"):
        Dataset.range(3).fingerprint()


GRAPH_PIPELINES = {
    "scan": lambda table: Dataset.range(5).scan(np.int64(1), lambda s, x: (s * 2, s + x)),
    "unique": lambda table: Dataset.from_tensor_slices([1, 2, 1, 3]).unique(),
    "take_while": lambda table: Dataset.range(9).take_while(lambda x: x < 3),
    "choose": lambda table: Dataset.choose_from_datasets(
        [Dataset.range(3), Dataset.range(10, 13)],
        Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0], tf.int64))),
    "sample": lambda table: Dataset.sample_from_datasets([Dataset.range(3), Dataset.range(10, 13)],
                                                   seed=4),
    "counter": lambda table: Dataset.counter(3, 2).take(3),
    "random": lambda table: Dataset.random(seed=9).take(3),
    "generator": lambda table: Dataset.from_generator(
        lambda: iter([(1, [1.0]), (2, [2.0, 3.0])]),
        output_signature=(TensorSpec([], tf.int64), TensorSpec([None], tf.float32))),
    "group_by_reducer": lambda table: Dataset.range(6).apply(experimental.group_by_reducer(
        lambda x: x % 2, experimental.Reducer(lambda k: np.int64(0), lambda s, x: s + x,
                                              lambda s: s))),
    "rejection": lambda table: Dataset.range(6).rejection_resample(
        lambda x: tf.cast(x % 2, tf.int32), [0.5, 0.5], initial_dist=[0.5, 0.5], seed=2),
    "csv_rows": lambda table: experimental.CsvDataset(
        table, [tf.int32, [0.0], ["?"], tf.int32], header=True),
    "padded_bucket": lambda table: sequences().bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3], [3, 3]),
}


@pytest.mark.parametrize("name", sorted(GRAPH_PIPELINES))
def test_graph_iterators_agree_with_eager(name, tmp_path):
    (tmp_path / "table.csv").write_text(TABLE)
    make = functools.partial(GRAPH_PIPELINES[name], str(tmp_path / "table.csv"))
    expected = values(make())
    got = graph_values(make, len(expected))
    assert [plain_numpy(v) for v in got] == expected


def plain_numpy(value):
    if isinstance(value, tuple):
        return tuple(plain_numpy(v) for v in value)
    if isinstance(value, dict):
        return {k: plain_numpy(v) for k, v in value.items()}
    return np.asarray(value).tolist()


def test_numpy_iterator_and_shard_hint():
    iterator = Dataset.range(3).as_numpy_iterator()
    assert isinstance(iterator, tf.data.NumpyIterator)
    assert next(iterator) == 0 and iterator.next() == 1 and list(iterator) == [2]
    rows = next(Dataset.from_tensor_slices(tf.ragged.constant([[1], [2, 3]])).batch(2)
                .as_numpy_iterator())
    assert [row.tolist() for row in rows] == [[1], [2, 3]]
    assert experimental.SHARD_HINT == -1


def test_tf1_structure_names():
    v1 = tf.compat.v1.data.experimental
    assert v1.TensorStructure(tf.float32, [2]) == TensorSpec([2], tf.float32)
    assert v1.SparseTensorStructure(tf.int64, [3]) == tf.SparseTensorSpec([3], tf.int64)
    assert v1.RaggedTensorStructure(tf.int32, [None, None], 1) == \
        tf.RaggedTensorSpec([None, None], tf.int32, 1)
    assert v1.DatasetStructure is tf.data.DatasetSpec
    assert values(Dataset.range(5).apply(v1.map_and_batch_with_legacy_function(
        lambda x: x * 2, 2))) == [[0, 2], [4, 6], [8]]


def test_flat_map_then_batch_regroups_across_datasets():
    parts = Dataset.range(3).flat_map(lambda i: Dataset.range(i * 10, i * 10 + 3))
    assert values(parts.batch(4)) == [[0, 1, 2, 10], [11, 12, 20, 21], [22]]
    assert values(parts.batch(4, drop_remainder=True)) == [[0, 1, 2, 10], [11, 12, 20, 21]]
    pairs = Dataset.range(2).flat_map(lambda i: Dataset.from_tensor_slices(
        ({"a": [i, i]}, [b"x", b"y"])))
    assert values(pairs.batch(3)) == [({"a": [0, 0, 1]}, [b"x", b"y", b"x"]),
                                      ({"a": [1]}, [b"y"])]
    failing = Dataset.range(2).flat_map(lambda i: Dataset.from_tensor_slices(
        [1.0, 0.0]).map(lambda x: tf.debugging.check_numerics(1.0 / x, "inf")))
    with pytest.raises(errors.InvalidArgumentError):
        values(failing.batch(4))
    sparse = Dataset.range(2).flat_map(lambda i: Dataset.from_tensors(
        tf.sparse.SparseTensor([[0]], [i], [2])))
    assert [tf.sparse.to_dense(s).numpy().tolist() for s in sparse.batch(2)] == \
        [[[0, 0], [1, 0]]]


def test_map_functions_prune_unused_stateless_ops_and_keep_stateful_ones():
    """As TF's dataset functions: an unused op that would fail is not run; an unused
    variable update is."""
    counter = tf.Variable(0)

    def fn(x):
        tf.gather(tf.reshape(x, [1]), x + 5)     # out of range: fails if run
        counter.assign_add(1)
        return x * 2

    values = [int(v) for v in tf.data.Dataset.range(3).map(fn)]
    assert values == [0, 2, 4] and int(counter.numpy()) == 3
