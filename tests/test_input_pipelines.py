"""TF1 queue-based input pipelines: readers, input producers, batching functions,
QueueRunner / Coordinator, and the classic TFRecord -> shuffle_batch training loop.

Sessions use ConfigProto(operation_timeout_in_ms) and coordinators join with a short grace
period, so a pipeline that wrongly blocks fails instead of hanging.
"""
import threading
import time

import numpy as np
import pytest

import tfcompat as tf


def _session(graph, timeout_ms=5000):
    return tf.Session(graph=graph, config=tf.ConfigProto(operation_timeout_in_ms=timeout_ms))


def _init(sess):
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])


def _drain(sess, fetch, limit=1000):
    """Run `fetch` until OutOfRangeError; the values it gave."""
    values = []
    for _ in range(limit):
        try:
            values.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return values
    raise AssertionError("no OutOfRangeError after %d runs" % limit)


def _run_threads(sess):
    coord = tf.train.Coordinator()
    return coord, tf.train.start_queue_runners(sess, coord)


def _stop(coord, threads):
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=5)
    assert not any(t.is_alive() for t in threads)


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def _write_examples(path, ids):
    with tf.io.TFRecordWriter(path) as writer:
        for i in ids:
            example = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i / 24.0, 1.0])),
                "y": tf.train.Feature(float_list=tf.train.FloatList(value=[3 * i / 24.0 + 1])),
                "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))}))
            writer.write(example.SerializeToString())


# ---------------------------------------------------------------- the classic pipeline


def test_tfrecord_shuffle_batch_training_pipeline(tmp_path):
    paths = [str(tmp_path / ("part%d.tfrecord" % f)) for f in range(2)]
    for f, path in enumerate(paths):
        _write_examples(path, range(f * 12, f * 12 + 12))
    graph = tf.Graph()
    with graph.as_default():
        filenames = tf.train.string_input_producer(paths, num_epochs=5, seed=1)
        _, serialized = tf.TFRecordReader().read(filenames)
        features = tf.parse_single_example(serialized, {
            "x": tf.FixedLenFeature([2], tf.float32), "y": tf.FixedLenFeature([1], tf.float32),
            "id": tf.FixedLenFeature([], tf.int64)})
        x, y, ids = tf.train.shuffle_batch([features["x"], features["y"], features["id"]],
                                           batch_size=8, capacity=30, min_after_dequeue=10,
                                           num_threads=2, seed=2)
        assert x.shape.as_list() == [8, 2] and ids.shape.as_list() == [8]
        weights = tf.Variable(tf.zeros([2, 1]))
        loss = tf.reduce_mean(tf.square(tf.matmul(x, weights) - y))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with _session(graph) as sess:
            _init(sess)
            coord, threads = _run_threads(sess)
            batches, losses = [], []
            try:
                while not coord.should_stop():
                    _, batch_ids, batch_loss = sess.run([train, ids, loss])
                    batches.append(batch_ids)
                    losses.append(batch_loss)
            except tf.errors.OutOfRangeError as e:
                assert "shuffle_batch/random_shuffle_queue' is closed" in str(e)
            finally:
                _stop(coord, threads)
            learned = sess.run(weights)
    seen = np.concatenate(batches).tolist()
    assert sorted(seen) == sorted(list(range(24)) * 5)  # 120 = 15 full batches, all records
    assert seen[:24] != sorted(seen[:24])
    assert losses[-1] < losses[0]
    inputs = np.stack([np.arange(24) / 24.0, np.ones(24)], axis=1)
    targets = (3 * np.arange(24) / 24.0 + 1)[:, None]
    # on all records, whatever order the two reader threads gave the batches (numpy: the
    # worst of 200 orders reaches 0.016 of the initial loss)
    assert np.mean((inputs @ learned - targets) ** 2) < np.mean(targets ** 2) / 20
    expected = np.zeros((2, 1))  # the same gradient steps in numpy, batch by batch
    for batch_ids in batches:
        inputs = np.stack([batch_ids / 24.0, np.ones(len(batch_ids))], axis=1)
        targets = (3 * batch_ids / 24.0 + 1)[:, None]
        expected -= 0.5 * 2 * inputs.T @ (inputs @ expected - targets) / len(batch_ids)
    np.testing.assert_allclose(learned, expected, rtol=1e-4)


def test_coordinator_join_ends_threads_blocked_on_full_queues():
    graph = tf.Graph()
    with graph.as_default():
        rows = tf.train.range_input_producer(1000, capacity=4).dequeue()
        batch = tf.train.batch([rows], batch_size=2, capacity=3, num_threads=3)
        with _session(graph) as sess:
            coord, threads = _run_threads(sess)
            assert sess.run(batch).shape == (2,)
            time.sleep(0.05)  # let the runners fill both queues and block
            _stop(coord, threads)
    assert len(threads) == 1 + 1 + 3 + 1  # producer + stop thread, 3 batch threads + stop


# ---------------------------------------------------------------- readers


def _in(graph, reader_class, *args, **kwargs):
    with graph.as_default():
        return reader_class(*args, **kwargs)


def _read_all(reader, filenames, graph, batch=None):
    """Every (key, value) `reader` gives for `filenames` (in a closed queue)."""
    with graph.as_default():
        queue = tf.FIFOQueue(10, tf.string, shapes=[])
        fill = queue.enqueue_many([filenames])
        close = queue.close()
        read = reader.read(queue) if batch is None else reader.read_up_to(queue, batch)
        with _session(graph) as sess:
            sess.run([fill, close])
            return _drain(sess, read)


def test_tfrecord_reader_keys_are_byte_offsets(tmp_path):
    path = str(tmp_path / "r.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for record in (b"a", b"bcd", b""):
            writer.write(record)
    graph = tf.Graph()
    records = _read_all(_in(graph, tf.TFRecordReader), [path], graph)
    assert records == [(path.encode() + b":0", b"a"), (path.encode() + b":17", b"bcd"),
                       (path.encode() + b":36", b"")]


def test_tfrecord_reader_reports_corruption(tmp_path):
    path = str(tmp_path / "bad.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        writer.write(b"payload")
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[14] ^= 0xFF
    _write(path, bytes(data))
    graph = tf.Graph()
    with pytest.raises(tf.errors.DataLossError, match="corrupted record at 0"):
        _read_all(_in(graph, tf.TFRecordReader), [path], graph)
    graph = tf.Graph()
    with pytest.raises(tf.errors.NotFoundError):
        _read_all(_in(graph, tf.TFRecordReader), [str(tmp_path / "missing")], graph)


def test_text_line_reader_skips_headers_and_numbers_lines(tmp_path):
    first, second = str(tmp_path / "a.csv"), str(tmp_path / "b.csv")
    _write(first, b"header\r\n1,2\r\n3,4\n")
    _write(second, b"header\nlast without newline")
    graph = tf.Graph()
    records = _read_all(_in(graph, tf.TextLineReader, skip_header_lines=1), [first, second],
                           graph)
    assert records == [(first.encode() + b":2", b"1,2"), (first.encode() + b":3", b"3,4"),
                       (second.encode() + b":2", b"last without newline")]


@pytest.mark.parametrize("kwargs, expected", [
    ({"record_bytes": 3}, [b"abc", b"def", b"ghi"]),
    ({"record_bytes": 3, "header_bytes": 2, "footer_bytes": 1}, [b"cde", b"fgh"]),
    ({"record_bytes": 4, "hop_bytes": 2}, [b"abcd", b"cdef", b"efgh", b"ghij"]),
])
def test_fixed_length_record_reader(tmp_path, kwargs, expected):
    path = str(tmp_path / "fixed.bin")
    _write(path, b"abcdefghij")
    graph = tf.Graph()
    records = _read_all(_in(graph, tf.FixedLengthRecordReader, **kwargs), [path], graph)
    assert [v for _, v in records] == expected
    assert [k for k, _ in records] == [b"%s:%d" % (path.encode(), i)
                                       for i in range(len(expected))]


def test_read_up_to_stays_within_one_file_and_counts(tmp_path):
    paths = []
    for f, count in enumerate((5, 2)):
        paths.append(str(tmp_path / ("%d.txt" % f)))
        _write(paths[-1], "".join("%d-%d\n" % (f, i) for i in range(count)))
    graph = tf.Graph()
    batches = _read_all(_in(graph, tf.TextLineReader), paths, graph, batch=3)
    assert [values.tolist() for _, values in batches] == [
        [b"0-0", b"0-1", b"0-2"], [b"0-3", b"0-4"], [b"1-0", b"1-1"]]
    assert batches[2][0].tolist() == [p.encode() + b":%d" % i for p, i in
                                      ((paths[1], 1), (paths[1], 2))]


def test_reader_counters_and_reset(tmp_path):
    path = str(tmp_path / "c.txt")
    _write(path, "a\nb\nc\n")
    graph = tf.Graph()
    with graph.as_default():
        reader = tf.TextLineReader()
        queue = tf.FIFOQueue(5, tf.string, shapes=[])
        fill = queue.enqueue_many([[path, path]])
        key, value = reader.read(queue)
        counters = [reader.num_records_produced(), reader.num_work_units_completed(),
                    queue.size()]
        with _session(graph) as sess:
            sess.run(fill)
            sess.run(value)
            assert sess.run(counters) == [1, 0, 1]
            for _ in range(3):
                sess.run(value)
            assert sess.run(counters) == [4, 1, 0]
            sess.run(reader.reset())
            assert sess.run(counters) == [0, 0, 0]


def test_whole_file_reader_with_decode_png(tmp_path):
    images = [np.full((2, 3, 3), 40 * i, dtype=np.uint8) for i in range(3)]
    paths = []
    for i, image in enumerate(images):
        paths.append(str(tmp_path / ("img%d.png" % i)))
        _write(paths[-1], tf.image.encode_png(image).numpy())
    graph = tf.Graph()
    with graph.as_default():
        filenames = tf.train.string_input_producer(paths, num_epochs=1, shuffle=False)
        key, contents = tf.WholeFileReader().read(filenames)
        image = tf.image.decode_png(contents, channels=3)
        with _session(graph) as sess:
            _init(sess)
            coord, threads = _run_threads(sess)
            got = _drain(sess, [key, image])
            _stop(coord, threads)
    assert [k for k, _ in got] == [p.encode() for p in paths]
    for (_, decoded), expected in zip(got, images):
        np.testing.assert_array_equal(decoded, expected)


def test_readers_and_queue_pipelines_refuse_eager_execution():
    with pytest.raises(RuntimeError, match="Readers are not supported"):
        tf.TFRecordReader()
    with pytest.raises(RuntimeError, match="Input pipelines based on Queues"):
        tf.train.string_input_producer(["a"])
    with pytest.raises(ValueError, match="Input pipelines based on Queues"):
        tf.train.batch([tf.constant(1)], 2)
    with pytest.raises(RuntimeError, match="not compatible with eager"):
        tf.train.start_queue_runners()


# ---------------------------------------------------------------- producers


def test_slice_input_producer_over_numpy_arrays():
    features = np.arange(10, dtype=np.float32).reshape(5, 2)
    names = np.array([b"n%d" % i for i in range(5)], dtype=object)
    graph = tf.Graph()
    with graph.as_default():
        row, name = tf.train.slice_input_producer([features, names], num_epochs=2,
                                                  shuffle=False)
        shuffled = tf.train.slice_input_producer([np.arange(5)], num_epochs=2, seed=5)[0]
        assert row.shape.as_list() == [2] and name.shape.as_list() == []
        with _session(graph) as sess:
            _init(sess)
            coord, threads = _run_threads(sess)
            ordered = _drain(sess, [row, name])
            mixed = [int(v) for v in _drain(sess, shuffled)]
            _stop(coord, threads)
    assert [int(r[0]) // 2 for r, _ in ordered] == [0, 1, 2, 3, 4] * 2
    assert [n for _, n in ordered] == list(names) * 2
    assert sorted(mixed[:5]) == sorted(mixed[5:]) == list(range(5))
    assert mixed != [0, 1, 2, 3, 4] * 2


def test_producer_needs_local_variables_initializer_and_checks_arguments():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.train.string_input_producer(["a", "b"], num_epochs=1)
        with pytest.raises(ValueError, match="non-null input tensor"):
            tf.train.string_input_producer([])
        with pytest.raises(ValueError, match="num_epochs must be > 0"):
            tf.train.limit_epochs(tf.constant([1]), 0)
        with pytest.raises(ValueError, match="fully defined shape"):
            tf.train.input_producer(tf.placeholder(tf.float32, [None, None]))
        with _session(graph) as sess:
            runner = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[0]
            with pytest.raises(tf.errors.FailedPreconditionError, match="epochs"):
                sess.run(runner.enqueue_ops[0])
    assert queue.name == "input_producer"
    assert "input_producer/fraction_of_32_full" in [
        op.name for op in graph.get_operations() if op.type == "ScalarSummary"]


def test_string_input_producer_epochs_then_closed_queue():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
        name = queue.dequeue()
        with _session(graph) as sess:
            _init(sess)
            coord, threads = _run_threads(sess)
            got = _drain(sess, name)
            assert sess.run(queue.is_closed())
            _stop(coord, threads)
    assert got == [b"a", b"b", b"c"] * 2


def test_match_filenames_once(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        _write(str(tmp_path / name), "x")
    graph = tf.Graph()
    with graph.as_default():
        files = tf.train.match_filenames_once(str(tmp_path / "*.txt"))
        queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
        with _session(graph) as sess:
            _init(sess)
            expected = [str(tmp_path / n).encode() for n in ("a.txt", "b.txt")]
            assert sess.run(files).tolist() == expected
            coord, threads = _run_threads(sess)
            assert _drain(sess, queue.dequeue()) == expected
            _stop(coord, threads)


# ---------------------------------------------------------------- batching


def _batches(graph, make_fetch):
    """Run a pipeline built by make_fetch() to its end; the fetched values."""
    with graph.as_default():
        fetch = make_fetch()
        with _session(graph) as sess:
            _init(sess)
            coord, threads = _run_threads(sess)
            values = _drain(sess, fetch)
            _stop(coord, threads)
    return values


def _numbers(count, epochs=1):
    return tf.train.range_input_producer(count, num_epochs=epochs, shuffle=False).dequeue()


def test_batch_allow_smaller_final_batch():
    graph = tf.Graph()
    got = _batches(graph, lambda: tf.train.batch([_numbers(10)], 4,
                                                 allow_smaller_final_batch=True))
    assert [b.tolist() for b in got] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    with graph.as_default():
        smaller = tf.train.batch([_numbers(3)], 4, allow_smaller_final_batch=True)
        assert smaller.shape.as_list() == [None]
    assert [b.tolist() for b in _batches(tf.Graph(), lambda: tf.train.batch(
        [_numbers(10)], 4))] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_batch_structures_dict_single_list_and_enqueue_many():
    def build():
        n = _numbers(6)
        as_dict = tf.train.batch({"n": n, "twice": n * 2}, 3)
        many = tf.train.batch([tf.reshape(tf.range(6), [3, 2])], 2, enqueue_many=True,
                              capacity=3)
        assert isinstance(tf.train.batch([_numbers(3)], 3), tf.Tensor)
        assert many.shape.as_list() == [2, 2]
        return as_dict, many
    got = _batches(tf.Graph(), build)
    as_dict, many = got[0]
    assert as_dict["n"].tolist() == [0, 1, 2] and as_dict["twice"].tolist() == [0, 2, 4]
    assert many.tolist() == [[0, 1], [2, 3]]


def test_batch_dynamic_pad_pads_each_batch_to_its_longest():
    def build():
        row = tf.py_func(lambda n: np.arange(n + 1, dtype=np.int32), [_numbers(4)], tf.int32)
        row.set_shape([None])
        return tf.train.batch([row], 2, dynamic_pad=True)
    got = _batches(tf.Graph(), build)
    assert [b.tolist() for b in got] == [[[0, 0], [0, 1]], [[0, 1, 2, 0], [0, 1, 2, 3]]]


def test_maybe_batch_keeps_only_selected_inputs():
    def build():
        n = _numbers(10)
        scalar = tf.train.maybe_batch([n], tf.equal(n % 2, 0), 5)
        rows = tf.reshape(tf.range(8), [8])
        vector = tf.train.maybe_batch([rows], rows > 4, 3, enqueue_many=True, capacity=3)
        return scalar, vector
    (evens, big), = _batches(tf.Graph(), build)
    assert evens.tolist() == [0, 2, 4, 6, 8] and big.tolist() == [5, 6, 7]


def test_batch_join_and_shuffle_batch_join_take_every_source():
    def build():
        sources = [[_numbers(6)], [_numbers(6) + 100]]
        return tf.train.batch_join(sources, 4, allow_smaller_final_batch=True)
    joined = np.concatenate(_batches(tf.Graph(), build)).tolist()
    assert sorted(joined) == list(range(6)) + list(range(100, 106))

    def build_shuffled():
        sources = [{"v": _numbers(6)}, {"v": _numbers(6) + 100}]
        return tf.train.shuffle_batch_join(sources, 4, capacity=20, min_after_dequeue=2,
                                           seed=1, allow_smaller_final_batch=True)
    shuffled = np.concatenate([b["v"] for b in _batches(tf.Graph(), build_shuffled)])
    assert sorted(shuffled.tolist()) == sorted(joined)


def test_shuffle_batch_argument_errors():
    with tf.Graph().as_default():
        n = _numbers(4)
        with pytest.raises(ValueError, match="capacity 5 must be bigger than min_after_dequeue"):
            tf.train.shuffle_batch([n], 2, capacity=5, min_after_dequeue=5)
        with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
            tf.train.batch([tf.placeholder(tf.float32)], 2)
        with pytest.raises(ValueError, match="cannot be a vector"):
            tf.train.maybe_batch([n], [True], 2)
        with pytest.raises(NotImplementedError, match="SparseTensor"):
            tf.train.batch([tf.SparseTensor([[0]], [1.0], [2])], 2)


# ---------------------------------------------------------------- QueueRunner / Coordinator


def test_queue_runner_without_coordinator_records_exceptions():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(5, tf.float32, shapes=[])
        bad = queue.enqueue(tf.check_numerics(tf.constant(np.nan, tf.float32), "bad value"))
        runner = tf.train.QueueRunner(queue, [bad])
        with _session(graph) as sess:
            threads = runner.create_threads(sess, start=False)
            assert runner.create_threads(sess) == []  # already created for this session
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
                threads[0].run()  # in this thread: it logs and re-raises
    assert isinstance(runner.exceptions_raised[0], tf.errors.InvalidArgumentError)
    assert runner.name == "fifo_queue"


def test_coordinator_reports_the_first_error_and_ignores_clean_stops():
    coord = tf.train.Coordinator()
    with coord.stop_on_exception():
        raise tf.errors.OutOfRangeError("input done")
    assert coord.should_stop()
    coord.join([])
    coord.clear_stop()
    assert not coord.should_stop()

    def worker():
        with coord.stop_on_exception():
            raise ValueError("worker failed")
    thread = threading.Thread(target=worker)
    coord.register_thread(thread)
    thread.start()
    thread.join(5)
    assert coord.should_stop()
    coord.request_stop(RuntimeError("a later error is not kept"))
    with pytest.raises(ValueError, match="worker failed"):
        coord.join()
    assert coord.joined
    coord.request_stop()
    with pytest.raises(RuntimeError, match="after join"):
        coord.request_stop(RuntimeError("after join"))


def test_coordinator_join_names_threads_that_do_not_stop():
    coord = tf.train.Coordinator()
    release = threading.Event()
    thread = threading.Thread(target=release.wait, name="stubborn")
    thread.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="threads still running: stubborn"):
        coord.join([thread], stop_grace_period_secs=0.05)
    release.set()
    thread.join()


def test_looper_thread_calls_its_target_until_stopped():
    coord = tf.train.Coordinator()
    calls = []
    looper = tf.train.LooperThread.loop(coord, 0.01, calls.append, args=("tick",))
    deadline = time.monotonic() + 5
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    coord.request_stop()
    coord.join([looper], stop_grace_period_secs=5)
    assert calls[:3] == ["tick"] * 3
    with pytest.raises(ValueError, match="must be a Coordinator"):
        tf.train.LooperThread(object(), 1)
