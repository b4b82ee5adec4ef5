"""framework/thread_choice: a graph's runs keep one torch thread where it is faster."""
import types

import pytest
import torch

from tfcompat.framework import thread_choice
from tfcompat.framework.thread_choice import ThreadChoice


@pytest.fixture
def two_threads(monkeypatch):
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(thread_choice, "_pinned", False)
    clock = [0.0]       # a run's duration comes from the step, not from the machine
    monkeypatch.setattr(thread_choice, "time", types.SimpleNamespace(
        perf_counter=lambda: clock[0]))
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield clock
    torch.set_num_threads(before)


def _step(clock, slow_with):
    """A 'graph run' that records its thread count and takes 4 ms with `slow_with` threads,
    0.5 ms with the other count, on the test's clock."""
    seen = []

    def run(value):
        threads = torch.get_num_threads()
        seen.append(threads)
        clock[0] += 0.004 if threads == slow_with else 0.0005
        return value + 1
    return run, seen


def test_small_op_graphs_keep_one_thread(two_threads):
    run, seen = _step(two_threads, slow_with=2)
    choice = ThreadChoice()
    assert [choice.run(run, i) for i in range(12)] == list(range(1, 13))
    assert seen[:8] == [2, 1, 2, 1, 2, 1, 2, 1]     # the first on each count untimed
    assert set(seen[8:]) == {1}
    assert torch.get_num_threads() == 2             # restored after every run


def test_graphs_faster_with_more_threads_keep_them(two_threads):
    run, seen = _step(two_threads, slow_with=1)
    choice = ThreadChoice()
    for i in range(12):
        choice.run(run, i)
    assert set(seen[8:]) == {2}


def test_a_chosen_thread_count_is_kept(two_threads, monkeypatch):
    run, seen = _step(two_threads, slow_with=2)
    thread_choice.pin()
    choice = ThreadChoice()
    for i in range(10):
        choice.run(run, i)
    assert set(seen) == {2}
    monkeypatch.setattr(thread_choice, "_pinned", False)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    for i in range(10):
        ThreadChoice().run(run, i)
    assert set(seen) == {2}


def test_config_thread_counts_pin_the_choice(two_threads):
    import tfcompat as tf
    tf.compat.v1.Session(config=tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2))
    assert thread_choice._pinned


def test_a_failing_run_restores_the_thread_count(two_threads):
    choice = ThreadChoice()

    def fail():
        raise ValueError("bad input")
    for _ in range(4):
        with pytest.raises(ValueError):
            choice.run(fail)
        assert torch.get_num_threads() == 2
