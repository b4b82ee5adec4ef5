"""tf.data: dataset semantics vs hand-computed sequences, eager and graph iterators."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tfcompat as tf
import tfcompat.data  # noqa: F401 - until tfcompat/__init__ lists the module
import tfcompat.io  # noqa: F401
from tfcompat import _api
from tfcompat.framework import errors
from tfcompat.framework.graph import Graph

_api.build_namespaces("tfcompat")
Dataset = tf.data.Dataset


def values(dataset):
    return [np.asarray(e).tolist() if not isinstance(e, (tuple, dict)) else
            (tuple(np.asarray(x).tolist() for x in e) if isinstance(e, tuple) else
             {k: np.asarray(v).tolist() for k, v in e.items()})
            for e in dataset]


def test_sources_and_structures():
    assert values(Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert values(Dataset.range(2, 9, 3)) == [2, 5, 8]
    assert Dataset.range(3).element_spec.dtype == tf.int64
    ds = Dataset.from_tensor_slices((np.arange(3), np.array([b"a", b"b", b"c"])))
    assert values(ds) == [(0, b"a"), (1, b"b"), (2, b"c")]
    assert ds.output_types == (tf.int64, tf.string)
    d = Dataset.from_tensor_slices({"x": [[1, 2], [3, 4]], "y": [5, 6]})
    assert values(d) == [{"x": [1, 2], "y": 5}, {"x": [3, 4], "y": 6}]
    assert d.output_shapes["x"].as_list() == [2]
    assert d.element_spec["y"].dtype == tf.int32
    assert values(Dataset.from_tensors([1, 2])) == [[1, 2]]
    with pytest.raises(ValueError):
        Dataset.from_tensor_slices((np.arange(3), np.arange(4)))


def test_map_filter_batch_unbatch():
    ds = Dataset.range(10).map(lambda x: x * 2).filter(lambda x: tf.equal(x % 3, 0))
    assert values(ds) == [0, 6, 12, 18]
    assert values(Dataset.range(7).batch(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert values(Dataset.range(7).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert Dataset.range(7).batch(3).output_shapes.as_list() == [None]
    assert Dataset.range(7).batch(3, True).output_shapes.as_list() == [3]
    assert values(Dataset.range(6).batch(4).unbatch()) == list(range(6))
    pairs = Dataset.range(4).map(lambda x: (x, tf.cast(x, tf.float32) / 2))
    assert pairs.output_types == (tf.int64, tf.float32)
    assert values(pairs.map(lambda a, b: b)) == [0.0, 0.5, 1.0, 1.5]
    parallel = Dataset.range(100).map(lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE)
    assert values(parallel) == list(range(1, 101))


def test_padded_batch():
    ds = Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
    got = values(ds.padded_batch(2, padded_shapes=[None]))
    assert got == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    got = values(ds.padded_batch(2, padded_shapes=[5], padding_values=tf.constant(-1, tf.int64)))
    assert got[0] == [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]]
    with pytest.raises(errors.InvalidArgumentError):
        values(ds.padded_batch(2, padded_shapes=[2]))


def test_shuffle_buffer_semantics_and_seeds():
    ds = Dataset.range(20)
    a = values(ds.shuffle(20, seed=7))
    assert sorted(a) == list(range(20)) and a != list(range(20))
    assert values(ds.shuffle(20, seed=7, reshuffle_each_iteration=False)) == \
        values(ds.shuffle(20, seed=7, reshuffle_each_iteration=False))
    same = ds.shuffle(20, seed=7, reshuffle_each_iteration=False)
    assert values(same) == values(same)
    again = ds.shuffle(20, seed=7)
    assert values(again) != values(again)  # a new order per epoch
    # buffer of 1: no shuffling; buffer of 2: element i comes out at most 1 early
    assert values(ds.shuffle(1, seed=3)) == list(range(20))
    out = values(ds.shuffle(2, seed=3))
    assert all(v <= i + 1 for i, v in enumerate(out))
    epochs = values(ds.shuffle(20, seed=1).repeat(2))
    assert sorted(epochs[:20]) == sorted(epochs[20:]) == list(range(20))
    tf.set_random_seed(5)
    x = values(ds.shuffle(20))
    tf.set_random_seed(5)
    assert values(ds.shuffle(20)) == x
    tf.set_random_seed(None)


def test_repeat_take_skip_shard_concat_zip_enumerate():
    ds = Dataset.range(3)
    assert values(ds.repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert values(ds.repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert values(ds.skip(1)) == [1, 2] and values(ds.take(-1)) == [0, 1, 2]
    assert values(Dataset.range(10).shard(3, 1)) == [1, 4, 7]
    assert values(ds.concatenate(Dataset.range(5, 7))) == [0, 1, 2, 5, 6]
    assert values(Dataset.zip((ds, ds.map(lambda x: x * 10)))) == [(0, 0), (1, 10), (2, 20)]
    assert values(ds.enumerate(5)) == [(5, 0), (6, 1), (7, 2)]
    assert len(ds.repeat(2)) == 6 and int(ds.repeat().cardinality()) == -1
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(3).shard(2, 2)


def test_interleave_and_flat_map_order():
    ds = Dataset.from_tensor_slices([1, 2, 3, 4])
    got = values(ds.interleave(lambda x: Dataset.from_tensors(x).repeat(3), cycle_length=2,
                               block_length=2))
    assert got == [1, 1, 2, 2, 1, 2, 3, 3, 4, 4, 3, 4]
    got = values(ds.flat_map(lambda x: Dataset.range(x)))
    assert got == [0, 0, 1, 0, 1, 2, 0, 1, 2, 3]
    par = values(ds.interleave(lambda x: Dataset.from_tensors(x).repeat(2), cycle_length=4,
                               num_parallel_calls=4))
    assert par == [1, 2, 3, 4, 1, 2, 3, 4]


def test_window_reduce_cache_prefetch_apply(tmp_path):
    windows = [values(w) for w in Dataset.range(7).window(3, shift=2)]
    assert windows == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
    windows = [values(w) for w in Dataset.range(7).window(3, shift=2, drop_remainder=True)]
    assert windows == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    total = Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x)
    assert int(total) == 10
    calls = []

    def note(x):
        calls.append(1)
        return x
    cached = Dataset.range(4).map(lambda x: tf.py_function(note, [x], tf.int64)
                                  if False else x).cache()
    assert values(cached) == values(cached) == [0, 1, 2, 3]
    path = str(tmp_path / "cache")
    file_cached = Dataset.from_tensor_slices((np.arange(3), [b"a", b"b", b"c"])).cache(path)
    assert values(file_cached) == values(file_cached) == [(0, b"a"), (1, b"b"), (2, b"c")]
    assert values(Dataset.range(50).prefetch(4)) == list(range(50))
    assert values(Dataset.range(4).apply(tf.data.experimental.shuffle_and_repeat(4, 2, 1))) \
        and len(values(Dataset.range(4).apply(tf.data.experimental.shuffle_and_repeat(4, 2)))) == 8
    mb = Dataset.range(5).apply(tf.data.experimental.map_and_batch(lambda x: x * 2, 2))
    assert values(mb) == [[0, 2], [4, 6], [8]]


def test_from_generator():
    def gen():
        for i in range(3):
            yield i, [1.0] * i
    ds = Dataset.from_generator(gen, (tf.int64, tf.float32), ([], [None]))
    got = values(ds)
    assert got == [(0, []), (1, [1.0]), (2, [1.0, 1.0])]
    assert ds.output_shapes[1].as_list() == [None]
    bad = Dataset.from_generator(lambda: iter([[1, 2, 3]]), tf.int64, [2])
    with pytest.raises(errors.InvalidArgumentError):
        values(bad)
    sig = Dataset.from_generator(lambda: iter([1, 2]),
                                 output_signature=tf.TensorSpec([], tf.int32))
    assert values(sig) == [1, 2]


def test_list_files(tmp_path):
    for name in ("b.txt", "a.txt", "c.dat"):
        (tmp_path / name).write_text(name)
    files = values(Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False))
    assert [f.decode().rsplit("/", 1)[1] for f in files] == ["a.txt", "b.txt"]
    with pytest.raises(errors.InvalidArgumentError):
        values(Dataset.list_files(str(tmp_path / "*.none")))


def test_eager_iterators():
    ds = Dataset.range(3)
    it = iter(ds)
    assert int(next(it)) == 0
    tfe_it = tf.contrib.eager.Iterator(ds)
    assert [int(x) for x in tfe_it] == [0, 1, 2]
    one_shot = ds.make_one_shot_iterator()
    assert int(one_shot.get_next()) == 0
    one_shot.get_next(), one_shot.get_next()
    with pytest.raises(errors.OutOfRangeError):
        one_shot.get_next()
    with pytest.raises(RuntimeError):
        ds.make_initializable_iterator()
    assert [int(x) for x in ds.as_numpy_iterator()] == [0, 1, 2]


def test_as_torch_dataset():
    import torch
    ds = Dataset.from_tensor_slices((np.arange(6, dtype=np.float32), np.arange(6))).batch(4)
    loader = torch.utils.data.DataLoader(ds.as_torch_dataset(), batch_size=None)
    batches = list(loader)
    assert isinstance(batches[0][0], torch.Tensor) and batches[0][0].shape == (4,)
    assert batches[1][1].tolist() == [4, 5]


def test_graph_one_shot_and_initializable_iterators():
    graph = Graph()
    with graph.as_default():
        ds = Dataset.from_tensor_slices(np.arange(5)).map(lambda x: x * 2).batch(2)
        it = ds.make_one_shot_iterator()
        nxt = it.get_next()
        assert nxt.shape.as_list() == [None] and nxt.dtype == tf.int64
        limit = tf.placeholder(tf.int64, [])
        ds2 = Dataset.range(limit).map(lambda x: (x, tf.cast(x, tf.float32)))
        it2 = ds2.make_initializable_iterator()
        a, b = it2.get_next()
        assert a.shape.as_list() == [] and b.dtype == tf.float32
        with tf.Session() as sess:
            got = []
            while True:
                try:
                    got.append(sess.run(nxt).tolist())
                except errors.OutOfRangeError:
                    break
            assert got == [[0, 2], [4, 6], [8]]
            with pytest.raises(errors.FailedPreconditionError):
                sess.run(a)
            sess.run(it2.initializer, {limit: 3})
            assert [sess.run([a, b])[1] for _ in range(3)] == [0.0, 1.0, 2.0]
            with pytest.raises(errors.OutOfRangeError):
                sess.run(a)
            sess.run(it2.initializer, {limit: 1})
            assert sess.run(a) == 0


def test_graph_from_structure_and_string_handle():
    graph = Graph()
    with graph.as_default():
        train = Dataset.range(10)
        test = Dataset.range(100, 103)
        it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
        nxt = it.get_next()
        init_train, init_test = it.make_initializer(train), it.make_initializer(test)
        handle = tf.placeholder(tf.string, [])
        feedable = tf.data.Iterator.from_string_handle(handle, train.output_types)
        fnext = feedable.get_next()
        one = Dataset.range(50, 60).make_one_shot_iterator()
        with tf.Session() as sess:
            sess.run(init_test)
            assert sess.run(nxt) == 100
            sess.run(init_train)
            assert sess.run(nxt) == 0
            h = sess.run(one.string_handle())
            assert sess.run(fnext, {handle: h}) == 50
            assert sess.run(fnext, {handle: h}) == 51
        with pytest.raises(TypeError):
            it.make_initializer(Dataset.from_tensors(1.0))


def test_graph_dataset_reduce_and_sparse():
    graph = Graph()
    with graph.as_default():
        total = Dataset.range(4).reduce(tf.constant(0, tf.int64), lambda s, x: s + x)
        with tf.Session() as sess:
            assert sess.run(total) == 6


# ---------------------------------------------------------------- traced and vectorized map


def _leaves(element):
    if isinstance(element, dict):
        return [element[k] for k in sorted(element)]
    return list(element) if isinstance(element, tuple) else [element]


def test_map_function_is_traced_once_as_in_tf():
    calls = []

    def double(x):
        calls.append(1)
        return x * 2
    ds = Dataset.range(5).map(double)
    assert calls == [1]     # when the dataset is built
    assert values(ds) == [0, 2, 4, 6, 8] and values(ds.batch(2)) == [[0, 2], [4, 6], [8]]
    assert values(ds) == [0, 2, 4, 6, 8] and calls == [1]


def test_py_function_and_random_ops_run_per_element():
    seen = []

    def note(x):
        seen.append(int(x))
        return x
    ds = Dataset.range(4).map(lambda x: tf.py_function(note, [x], tf.int64))
    assert values(ds.batch(2)) == [[0, 1], [2, 3]] and seen == [0, 1, 2, 3]
    assert not ds._function().vectorizable
    draws = Dataset.range(32).map(lambda x: tf.random.uniform([]))
    assert len(set(values(draws.batch(32))[0])) == 32


def test_untraceable_map_functions_run_eagerly():
    ds = Dataset.range(3).map(lambda x: x + int(x.numpy()))
    assert ds._function() is None
    assert values(ds) == [0, 2, 4] and values(ds.batch(2)) == [[0, 2], [4]]


_CAPTURED = tf.constant([0.5, 2.0])
_STRINGS = np.array([b"ab", b"cd", b"ef", b"gh", b"ij", b"kl"], dtype=object)
_VECTORIZED = [
    (np.arange(12, dtype=np.int64).reshape(6, 2), lambda x: tf.cast(x, tf.float32) / 4.0 - 1),
    ((np.arange(6.0), np.arange(18.0).reshape(6, 3)),
     lambda a, b: (a * b, b - a, tf.maximum(a, b), -a)),     # element ranks 0 and 1
    (np.arange(6, dtype=np.float32), lambda x: x + tf.constant([[1.0], [2.0]])),
    (np.arange(24).reshape(6, 4), lambda x: (tf.reshape(x, [2, 2]), tf.reshape(x, [-1, 1]),
                                            tf.expand_dims(x, 0), tf.expand_dims(x, -1))),
    (np.arange(6) % 3, lambda x: tf.one_hot(x, 3)),
    (np.arange(6), lambda x: {"x": x, "c": tf.constant([1, 2]), "s": tf.constant("s")}),
    (_STRINGS, lambda s: tf.cast(tf.io.decode_raw(s, tf.uint8), tf.int32) * 2),
    (np.arange(6), lambda x: tf.cast(x, tf.float32) * _CAPTURED),     # a captured tensor
]


@pytest.mark.parametrize("elements, fn", _VECTORIZED)
def test_vectorized_map_then_batch_equals_per_element(elements, fn):
    ds = Dataset.from_tensor_slices(elements).map(fn)
    assert ds._function().vectorizable
    per_element = [[np.asarray(leaf) for leaf in _leaves(e)] for e in ds]
    for size in (4, 6):
        for index, batch in enumerate(ds.batch(size)):
            rows = per_element[index * size:(index + 1) * size]
            for position, leaf in enumerate(_leaves(batch)):
                want = np.stack([row[position] for row in rows])
                assert leaf.numpy().shape == want.shape and leaf.dtype == \
                    _leaves(ds.element_spec)[position].dtype
                np.testing.assert_array_equal(leaf.numpy(), want)


def test_vectorized_map_reports_per_element_errors():
    uneven = Dataset.from_tensor_slices(np.array([b"ab", b"cd", b"e", b"fg"], dtype=object))
    raw = uneven.map(lambda s: tf.io.decode_raw(s, tf.uint8))
    assert raw._function().vectorizable
    it = iter(raw.batch(2))
    assert next(it).numpy().tolist() == [[97, 98], [99, 100]]
    with pytest.raises(errors.InvalidArgumentError, match="Cannot batch tensors with different"):
        next(it)
    odd = uneven.map(lambda s: tf.io.decode_raw(s, tf.int16))
    it = iter(odd.batch(2))
    assert next(it).numpy().tolist() == [[25185], [25699]]
    with pytest.raises(errors.InvalidArgumentError, match="not a multiple of 2"):
        next(it)
    ragged = Dataset.from_generator(lambda: iter([[1], [1, 2], [1, 2, 3]]), tf.int64, [None])
    assert values(ragged.map(lambda x: tf.constant(7)).batch(3)) == [[7, 7, 7]]


def test_vectorized_map_in_parallel_with_drop_remainder():
    ds = Dataset.range(10).map(lambda x: x * 3, num_parallel_calls=4).batch(3, True)
    assert values(ds) == [[0, 3, 6], [9, 12, 15], [18, 21, 24]]
    assert ds.output_shapes.as_list() == [3]
    mb = Dataset.range(7).apply(tf.data.experimental.map_and_batch(lambda x: x + 1, 3))
    assert values(mb) == [[1, 2, 3], [4, 5, 6], [7]]


def _records(tmp_path, n):
    path = str(tmp_path / "images.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for i in range(n):
            writer.write(tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[bytes(range(i, i + 12))])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i * 7]))}))
                .SerializeToString())
    return path


_IMAGE = {"image": tf.io.FixedLenFeature([], tf.string),
          "label": tf.io.FixedLenFeature([], tf.int64)}


def _parse(record):
    parsed = tf.io.parse_single_example(record, _IMAGE)
    image = tf.reshape(tf.io.decode_raw(parsed["image"], tf.uint8), [3, 4, 1])
    return tf.cast(image, tf.float32) / 2.0, parsed["label"]


def test_tfrecord_parse_pipeline_is_vectorized_with_tf_static_shapes(tmp_path):
    path = _records(tmp_path, 30)
    ds = tf.data.TFRecordDataset(path).map(_parse, num_parallel_calls=2)
    assert [s.shape.as_list() for s in ds.element_spec] == [[3, 4, 1], []]
    raw = tf.data.TFRecordDataset(path).map(lambda r: tf.io.decode_raw(r, tf.uint8))
    assert raw.element_spec.shape.as_list() == [None]
    batches = list(ds.batch(8).prefetch(2))
    assert ds._function().vectorizable
    assert [int(b[1].shape[0]) for b in batches] == [8, 8, 8, 6]
    images = np.concatenate([b[0].numpy() for b in batches])
    labels = np.concatenate([b[1].numpy() for b in batches])
    want = np.array([np.arange(i, i + 12).reshape(3, 4, 1) / 2.0 for i in range(30)])
    np.testing.assert_array_equal(images, want)
    assert labels.tolist() == [i * 7 for i in range(30)]


def test_graph_iterator_over_a_vectorized_pipeline(tmp_path):
    path = _records(tmp_path, 10)
    graph = Graph()
    with graph.as_default():
        ds = tf.data.TFRecordDataset(path).map(_parse).batch(4)
        images, labels = ds.make_one_shot_iterator().get_next()
        assert images.shape.as_list() == [None, 3, 4, 1]
        with tf.Session() as sess:
            got = [sess.run(labels).tolist() for _ in range(3)]
    assert got == [[0, 7, 14, 21], [28, 35, 42, 49], [56, 63]]


def test_pure_map_computed_ahead_keeps_per_element_order_and_errors(tmp_path):
    path = _records(tmp_path, 40)
    from tfcompat.io.tf_record import read_records
    start = sum(16 + len(r) for r in list(read_records(path))[:35])
    data = bytearray(open(path, "rb").read())
    data[start + 20] ^= 1      # inside record 35
    open(path, "wb").write(bytes(data))
    ds = tf.data.TFRecordDataset(path).map(_parse)
    assert ds._function().vectorizable
    labels = []
    with pytest.raises(errors.DataLossError, match="corrupted record"):
        for _, label in ds:
            labels.append(int(label))
    assert labels == [i * 7 for i in range(35)]
    shuffled = sorted(int(label) for _, label in tf.data.TFRecordDataset(path).take(30)
                      .map(_parse, num_parallel_calls=3).shuffle(8, seed=1))
    assert shuffled == [i * 7 for i in range(30)]


def test_map_with_reshape_of_a_data_dependent_size_traces_when_built(tmp_path):
    path = _records(tmp_path, 10)

    def images(records):    # reshape with -1 of unknown sizes: TF's shape inference allows it
        parsed = tf.io.parse_example(records, _IMAGE)
        return tf.reshape(tf.io.decode_raw(parsed["image"], tf.uint8), [-1, 3, 4])
    ds = tf.data.TFRecordDataset(path).batch(4).map(images)
    assert not ds._traced_on_sample and ds._function() is not None    # on placeholders
    assert ds.element_spec.shape.as_list() == [None, 3, 4]
    assert [b.shape.as_list() for b in ds] == [[4, 3, 4], [4, 3, 4], [2, 3, 4]]
    records = [r.numpy() for r in tf.data.TFRecordDataset(path)]
    generated = tf.data.Dataset.from_generator(lambda: iter([records[:5], records[5:]]),
                                               tf.string, [None]).map(images)
    got = [b.numpy() for b in generated]
    assert generated._function() is not None and [b.shape for b in got] == [(5, 3, 4)] * 2
    assert got[1][0, 0].tolist() == [5, 6, 7, 8]


def test_map_over_batches_of_records_is_vectorized_too(tmp_path):
    path = _records(tmp_path, 30)

    def parse_batch(records):
        parsed = tf.io.parse_example(records, _IMAGE)
        images = tf.reshape(tf.io.decode_raw(parsed["image"], tf.uint8), [-1, 3, 4, 1])
        return tf.cast(images, tf.float32) / 2.0, parsed["label"]
    ds = tf.data.TFRecordDataset(path).batch(4).map(parse_batch)
    assert ds._function().vectorizable
    want = [(images.numpy(), labels.numpy())
            for images, labels in tf.data.TFRecordDataset(path).map(_parse).batch(4)]
    got = [(images.numpy(), labels.numpy()) for images, labels in ds]
    assert len(got) == len(want) == 8 and got[-1][1].tolist() == [196, 203]
    for (gi, gl), (wi, wl) in zip(got, want):
        np.testing.assert_array_equal(gi, wi)
        np.testing.assert_array_equal(gl, wl)
    pairs = [b[1].numpy().tolist() for b in ds.batch(3, drop_remainder=True)]
    assert pairs[0] == [[0, 7, 14, 21], [28, 35, 42, 49], [56, 63, 70, 77]]


@pytest.mark.parametrize("damaged", [100, 96])
def test_vectorized_map_batch_reports_errors_in_the_batch_holding_them(tmp_path, damaged):
    path = _records(tmp_path, 200)
    from tfcompat.io.tf_record import read_records
    start = sum(16 + len(r) for r in list(read_records(path))[:damaged])
    data = bytearray(open(path, "rb").read())
    data[start + 20] ^= 1
    open(path, "wb").write(bytes(data))
    labels = []
    with pytest.raises(errors.DataLossError):
        for _, batch in tf.data.TFRecordDataset(path).map(_parse).batch(8):
            labels.append(batch.numpy().tolist())
    assert labels == [[i * 7 for i in range(s, s + 8)] for s in range(0, 96, 8)]


def test_vectorized_map_batch_with_uneven_elements_far_in(tmp_path):
    strings = [b"ab"] * 150 + [b"abc"] + [b"ab"] * 20
    ds = Dataset.from_tensor_slices(np.array(strings, dtype=object)).map(
        lambda s: tf.io.decode_raw(s, tf.uint8))
    batches = []
    with pytest.raises(errors.InvalidArgumentError, match="Cannot batch tensors"):
        for batch in ds.batch(10):
            batches.append(batch.numpy())
    assert len(batches) == 15 and all(b.shape == (10, 2) for b in batches)
    assert values(ds.batch(10, drop_remainder=True).take(3)) == [[[97, 98]] * 10] * 3


def test_leaving_a_prefetched_pipeline_part_way_exits_cleanly(tmp_path):
    """A `break` out of a loop over a parallel-map/shuffle/prefetch dataset, then the end of
    the script: the pipeline threads are stopped before the interpreter finalizes (they used
    to abort the process with status 134)."""
    script = tmp_path / "script.py"
    script.write_text(
        "import numpy as np\nimport tensorflow as tf\n"
        "ds = tf.data.Dataset.from_tensor_slices(np.random.rand(10000, 32).astype(np.float32))"
        ".map(lambda x: x * 2, num_parallel_calls=2).shuffle(1000).batch(32).prefetch(2)\n"
        "for i, b in enumerate(ds):\n    if i == 3:\n        break\nprint('done')\n")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": repo}
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-m", "tfcompat", str(script)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert (proc.returncode, proc.stdout.strip()) == (0, "done"), proc.stderr[-2000:]
