"""TF1 queues (FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue): order, batching, blocking,
closing, cancellation, per-session state, and Session.run from several threads.

Sessions use ConfigProto(operation_timeout_in_ms) and threads are joined with timeouts, so a
queue that wrongly blocks fails the test instead of hanging it.
"""
import threading
import time

import numpy as np
import pytest

import tfcompat as tf

CLOSED_EMPTY = (r"FIFOQueue '_\d+_fifo_queue' is closed and has insufficient elements "
                r"\(requested 1, current size 0\)")


def _session(graph, timeout_ms=5000):
    return tf.Session(graph=graph, config=tf.ConfigProto(operation_timeout_in_ms=timeout_ms))


def _in_thread(fn):
    """Run fn on a thread (build ops before: graph building is per thread); the returned
    function joins it (with a timeout) and gives fn's result or raises its exception."""
    outcome = {}

    def run():
        try:
            outcome["value"] = fn()
        except Exception as e:  # noqa: BLE001 - handed to the test thread
            outcome["error"] = e
    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def finish(timeout=5.0):
        thread.join(timeout)
        assert not thread.is_alive(), "the operation is still blocked"
        if "error" in outcome:
            raise outcome["error"]
        return outcome.get("value")
    finish.thread = thread
    return finish


def _waiting(sess, queue, enqueues=0, dequeues=0):
    """Wait until `queue` has that many operations waiting in `sess` (its per-session
    state's lines); True once it has, False after 5 s."""
    from tfcompat.ops.data_flow_ops import PerSession
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        state = PerSession._by_session.get(sess, {}).get(queue._spec)
        if state is not None and (len(state._enqueuers), len(state._dequeuers)) == \
                (enqueues, dequeues):
            return True
        time.sleep(0.01)
    return False


def test_fifo_order_dequeue_many_and_static_shapes():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(10, [tf.float32, tf.string], shapes=[[2], []])
        enqueue = queue.enqueue_many([np.arange(12, dtype=np.float32).reshape(6, 2),
                                      [b"a", b"b", b"c", b"d", b"e", b"f"]])
        one = queue.dequeue()
        many = queue.dequeue_many(3)
        up_to = queue.dequeue_up_to(4)
        size = queue.size()
        assert [t.shape.as_list() for t in one] == [[2], []]
        assert [t.shape.as_list() for t in many] == [[3, 2], [3]]
        assert [t.shape.as_list() for t in up_to] == [[None, 2], [None]]
        assert queue.name == "fifo_queue" and queue.queue_ref.dtype == tf.resource
        assert one[0].op.name == "fifo_queue_Dequeue" and enqueue.name == "fifo_queue_EnqueueMany"
        with _session(graph) as sess:
            sess.run(enqueue)
            assert sess.run(size) == 6
            x, s = sess.run(one)
            np.testing.assert_array_equal(x, [0, 1])
            assert s == b"a"
            x, s = sess.run(many)
            np.testing.assert_array_equal(x, [[2, 3], [4, 5], [6, 7]])
            assert s.tolist() == [b"b", b"c", b"d"]
            sess.run(queue.close())
            x, s = sess.run(up_to)
            np.testing.assert_array_equal(x, [[8, 9], [10, 11]])
            assert s.tolist() == [b"e", b"f"]


def test_single_component_is_a_tensor_and_names_give_dicts():
    graph = tf.Graph()
    with graph.as_default():
        single = tf.FIFOQueue(5, tf.int32, shapes=[])
        assert isinstance(single.dequeue(), tf.Tensor)
        named = tf.FIFOQueue(5, [tf.int32, tf.float32], shapes=[[], [2]], names=["i", "v"])
        enqueue = named.enqueue({"v": [1.5, 2.5], "i": 7})
        got = named.dequeue()
        with pytest.raises(ValueError, match="must enqueue a dictionary"):
            named.enqueue([7, [1.0, 2.0]])
        with pytest.raises(ValueError, match="do not match names"):
            named.enqueue({"i": 1, "w": [1.0, 2.0]})
        with pytest.raises(ValueError, match="must have names"):
            single.enqueue({"i": 1})
        with _session(graph) as sess:
            sess.run(enqueue)
            value = sess.run(got)
        assert set(value) == {"i", "v"} and value["i"] == 7
        np.testing.assert_array_equal(value["v"], [1.5, 2.5])


@pytest.mark.parametrize("op, error, message", [
    (lambda q: q.dequeue(), tf.errors.OutOfRangeError, CLOSED_EMPTY),
    (lambda q: q.dequeue_many(2), tf.errors.OutOfRangeError,
     r"insufficient elements \(requested 2, current size 0\)"),
    (lambda q: q.dequeue_up_to(2), tf.errors.OutOfRangeError,
     r"insufficient elements \(requested 2, current size 0\)"),
    (lambda q: q.enqueue(1), tf.errors.CancelledError, r"FIFOQueue '_\d+_fifo_queue' is closed\."),
    (lambda q: q.enqueue_many([[1, 2]]), tf.errors.CancelledError, r"is closed\."),
    (lambda q: q.close(), tf.errors.CancelledError,
     r"Queue '_\d+_fifo_queue' is already closed\."),
])
def test_operations_on_a_closed_empty_queue(op, error, message):
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(5, tf.int32, shapes=[])
        target = op(queue)
        with _session(graph) as sess:
            sess.run(queue.close())
            assert sess.run(queue.is_closed())
            with pytest.raises(error, match=message):
                sess.run(target)
            sess.run(queue.close(cancel_pending_enqueues=True))  # closing again this way is fine


def test_insufficient_dequeue_many_keeps_the_elements_for_dequeue_up_to():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(5, tf.int32, shapes=[])
        with _session(graph) as sess:
            sess.run(queue.enqueue_many([[1, 2]]))
            sess.run(queue.close())
            with pytest.raises(tf.errors.OutOfRangeError,
                               match=r"requested 3, current size 2"):
                sess.run(queue.dequeue_many(3))
            assert sess.run(queue.dequeue_up_to(3)).tolist() == [1, 2]
            assert sess.run(queue.dequeue_many(0)).shape == (0,)


def test_enqueue_blocks_while_full_and_keeps_fifo_order():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(2, tf.int32, shapes=[])
        enqueue = queue.enqueue_many([list(range(7))])
        dequeue = queue.dequeue()
        with _session(graph) as sess:
            finish = _in_thread(lambda: sess.run(enqueue))
            assert _waiting(sess, queue, enqueues=1)
            assert sess.run(queue.size()) == 2
            got = [int(sess.run(dequeue)) for _ in range(7)]
            finish()
    assert got == list(range(7))


def test_blocked_dequeue_many_collects_elements_and_close_puts_them_back():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(10, tf.int32, shapes=[])
        with _session(graph) as sess:
            sess.run(queue.enqueue_many([[1, 2]]))
            dequeue = queue.dequeue_many(4)
            finish = _in_thread(lambda: sess.run(dequeue))
            assert _waiting(sess, queue, dequeues=1)
            assert sess.run(queue.size()) == 0  # it holds the two elements
            sess.run(queue.enqueue(3))
            sess.run(queue.close())
            with pytest.raises(tf.errors.OutOfRangeError, match="requested 1, current size 0"):
                finish()
            assert sess.run(queue.dequeue_up_to(10)).tolist() == [1, 2, 3]


def test_dequeue_many_larger_than_capacity_is_filled_as_elements_arrive():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(2, tf.int32, shapes=[])
        with _session(graph) as sess:
            dequeue = queue.dequeue_many(5)
            finish = _in_thread(lambda: sess.run(dequeue))
            sess.run(queue.enqueue_many([[10, 11, 12, 13, 14]]))
            assert finish().tolist() == [10, 11, 12, 13, 14]


def test_close_with_cancel_pending_enqueues_cancels_a_blocked_enqueue():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(1, tf.int32, shapes=[])
        with _session(graph) as sess:
            sess.run(queue.enqueue(1))
            enqueue = queue.enqueue(2)
            finish = _in_thread(lambda: sess.run(enqueue))
            assert _waiting(sess, queue, enqueues=1)
            sess.run(queue.close(cancel_pending_enqueues=True))
            with pytest.raises(tf.errors.CancelledError, match="Enqueue operation was cancelled"):
                finish()
            assert sess.run(queue.dequeue()) == 1


def test_plain_close_waits_behind_pending_enqueues():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(1, tf.int32, shapes=[])
        with _session(graph) as sess:
            sess.run(queue.enqueue(1))
            enqueue, close = queue.enqueue(2), queue.close()
            pending = _in_thread(lambda: sess.run(enqueue))
            assert _waiting(sess, queue, enqueues=1)
            closing = _in_thread(lambda: sess.run(close))
            assert _waiting(sess, queue, enqueues=2)
            assert sess.run(queue.dequeue()) == 1
            pending()
            closing()
            assert sess.run(queue.dequeue()) == 2
            assert sess.run(queue.is_closed())


@pytest.mark.parametrize("kind", ["Enqueue", "Dequeue"])
def test_session_close_cancels_blocked_operations(kind):
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(1, tf.int32, shapes=[])
        fill = queue.enqueue(0)
        blocked = queue.enqueue(1) if kind == "Enqueue" else queue.dequeue()
        sess = _session(graph)
        if kind == "Enqueue":
            sess.run(fill)
        finish = _in_thread(lambda: sess.run(blocked))
        assert _waiting(sess, queue, **{kind.lower() + "s": 1})
        sess.close()
        with pytest.raises(tf.errors.CancelledError, match="%s operation was cancelled" % kind):
            finish()


def test_operation_timeout_raises_deadline_exceeded():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(1, tf.int32, shapes=[])
        with _session(graph, timeout_ms=50) as sess:
            with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out"):
                sess.run(queue.dequeue())


def test_random_shuffle_queue_keeps_min_after_dequeue_until_closed():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.RandomShuffleQueue(10, 5, tf.int32, shapes=[], seed=7)
        with _session(graph, timeout_ms=100) as sess:
            sess.run(queue.enqueue_many([list(range(7))]))
            first = sess.run(queue.dequeue_many(2))
            assert sess.run(queue.size()) == 5
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(queue.dequeue())
            sess.run(queue.close())
            rest = sess.run(queue.dequeue_many(5))
            with pytest.raises(tf.errors.OutOfRangeError,
                               match=r"RandomShuffleQueue '_\d+_random_shuffle_queue' is closed"):
                sess.run(queue.dequeue())
    assert sorted(first.tolist() + rest.tolist()) == list(range(7))


def _shuffled_order(seed, sessions=1):
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.RandomShuffleQueue(100, 0, tf.int32, shapes=[], seed=seed)
        enqueue = queue.enqueue_many([list(range(50))])
        dequeue = queue.dequeue_many(50)
        orders = []
        for _ in range(sessions):
            with _session(graph) as sess:
                sess.run(enqueue)
                orders.append(sess.run(dequeue).tolist())
    return orders


def test_random_shuffle_queue_seeded_order_repeats():
    first, second = _shuffled_order(seed=3, sessions=2)
    assert first == second == _shuffled_order(seed=3)[0]
    assert sorted(first) == list(range(50)) and first != list(range(50))
    assert _shuffled_order(seed=4)[0] != first


def test_padding_fifo_queue_pads_to_the_longest_in_the_batch():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None], [None]])
        values = tf.placeholder(tf.int32, [None])
        words = tf.placeholder(tf.string, [None])
        enqueue = queue.enqueue([values, words])
        batch = queue.dequeue_many(2)
        assert batch[0].shape.as_list() == [2, None]
        with _session(graph) as sess:
            sess.run(enqueue, {values: [1, 2, 3], words: [b"a"]})
            sess.run(enqueue, {values: [4], words: [b"b", b"c"]})
            padded, texts = sess.run(batch)
    np.testing.assert_array_equal(padded, [[1, 2, 3], [4, 0, 0]])
    assert texts.tolist() == [[b"a", b""], [b"b", b"c"]]


def test_shape_and_structure_errors():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(5, tf.float32, shapes=[[2]])
        with pytest.raises(ValueError, match="incompatible|not compatible"):
            queue.enqueue([[1.0, 2.0, 3.0]])
        with pytest.raises(ValueError, match="fully defined"):
            tf.FIFOQueue(5, tf.float32, shapes=[[None]])
        with pytest.raises(ValueError, match="Shapes must be provided"):
            tf.PaddingFIFOQueue(5, [tf.float32, tf.int32], shapes=[[None]])
        fed = tf.placeholder(tf.float32, [None])
        enqueue = queue.enqueue(fed)
        shapeless = tf.FIFOQueue(5, tf.float32)
        with _session(graph) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Shape mismatch in tuple component 0\. Expected \[2\], "
                                     r"got \[3\]"):
                sess.run(enqueue, {fed: [1.0, 2.0, 3.0]})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="FIFOQueue's DequeueMany and DequeueUpTo require the "
                                     "components to have specified shapes"):
                sess.run(shapeless.dequeue_many(1))


def test_each_session_has_its_own_queue_and_shared_name_shares_within_one():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(5, tf.int32, shapes=[])
        first = tf.FIFOQueue(5, tf.int32, shapes=[], shared_name="common")
        second = tf.FIFOQueue(5, tf.int32, shapes=[], shared_name="common")
        with _session(graph) as one, _session(graph) as two:
            one.run(queue.enqueue(1))
            assert one.run(queue.size()) == 1 and two.run(queue.size()) == 0
            one.run(first.enqueue(5))
            assert one.run(second.dequeue()) == 5


def test_session_run_from_many_threads_delivers_every_element_once():
    graph = tf.Graph()
    with graph.as_default():
        queue = tf.FIFOQueue(8, tf.int32, shapes=[])
        value = tf.placeholder(tf.int32, [])
        enqueue = queue.enqueue(value)
        dequeue = queue.dequeue()
        with _session(graph) as sess:
            producers = [_in_thread(lambda k=k: [sess.run(enqueue, {value: k * 100 + i})
                                                 for i in range(40)]) for k in range(4)]
            got = [int(sess.run(dequeue)) for _ in range(160)]
            for finish in producers:
                finish()
    assert sorted(got) == sorted(k * 100 + i for k in range(4) for i in range(40))
    for k in range(4):  # each producer's elements stay in its order
        mine = [g for g in got if g // 100 == k]
        assert mine == sorted(mine)


def test_eager_queue_runs_at_once():
    queue = tf.FIFOQueue(3, tf.int32, shapes=[])
    assert queue.enqueue_many([[4, 5]]) is None
    assert int(queue.dequeue()) == 4
    assert int(queue.size()) == 1
    queue.close()
    assert int(queue.dequeue_up_to(5)[0]) == 5
    with pytest.raises(tf.errors.OutOfRangeError, match="current size 0"):
        queue.dequeue()
