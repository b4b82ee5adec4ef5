"""tf.train.MonitoredSession / MonitoredTrainingSession, Scaffold and the basic hooks."""
import logging
import os

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.util import tensor_util

import tfcompat as tf
from tfcompat.framework import errors


class RecordingHook(tf.train.SessionRunHook):
    """Records every call; fetches `fetches` in each run; may stop after `stop_after` runs."""

    def __init__(self, log, fetches=None, stop_after=None):
        self.log, self.fetches, self.stop_after, self.runs = log, fetches, stop_after, 0
        self.results = []

    def begin(self):
        self.log.append("begin")

    def after_create_session(self, session, coord):
        self.log.append("after_create_session")

    def before_run(self, run_context):
        self.log.append("before_run")
        return tf.train.SessionRunArgs(self.fetches) if self.fetches is not None else None

    def after_run(self, run_context, run_values):
        self.log.append("after_run")
        self.results.append(run_values.results)
        self.runs += 1
        if self.stop_after is not None and self.runs >= self.stop_after:
            run_context.request_stop()

    def end(self, session):
        self.log.append("end")


def _counter_graph():
    """A graph with a global step and a variable x the train op moves towards 0."""
    step = tf.train.get_or_create_global_step()
    x = tf.get_variable("x", initializer=4.0)
    loss = tf.square(x)
    train_op = tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=step)
    return step, x, loss, train_op


def test_hooks_fire_in_order_and_see_their_fetches():
    log = []
    with tf.Graph().as_default():
        step, _, loss, train_op = _counter_graph()
        hook = RecordingHook(log, fetches={"loss": loss}, stop_after=2)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            while not sess.should_stop():
                sess.run(train_op)
        assert log == ["begin", "after_create_session", "before_run", "after_run",
                       "before_run", "after_run", "end"]
        # x: 4 -> 2 -> 1; the loss fetched with each run is the one before that update
        assert [r["loss"] for r in hook.results] == [16.0, 4.0]
        assert sess.should_stop()


def test_run_after_stop_and_after_close_raise():
    with tf.Graph().as_default():
        _, _, _, train_op = _counter_graph()
        sess = tf.train.MonitoredSession(hooks=[RecordingHook([], stop_after=1)])
        sess.run(train_op)
        with pytest.raises(RuntimeError, match="should_stop"):
            sess.run(train_op)
        sess.close()
        with pytest.raises(RuntimeError, match="closed"):
            sess.close()


def test_out_of_range_closes_normally_and_runs_end_hooks():
    log = []
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        value = tf.data.make_one_shot_iterator(tf.data.Dataset.range(3)).get_next()
        seen = []
        with tf.train.MonitoredSession(hooks=[RecordingHook(log)]) as sess:
            while not sess.should_stop():
                seen.append(sess.run(value))
        assert seen == [0, 1, 2]
        assert log[-1] == "end"


def test_other_errors_propagate_without_end_hooks():
    log = []
    with tf.Graph().as_default():
        _, _, loss, _ = _counter_graph()
        with pytest.raises(tf.train.NanLossDuringTrainingError):
            with tf.train.MonitoredSession(hooks=[RecordingHook(log),
                                                  tf.train.NanTensorHook(loss * np.nan)]) as s:
                s.run(loss)
        assert "end" not in log


def test_nan_tensor_hook_can_stop_instead_of_failing():
    with tf.Graph().as_default():
        _, _, loss, _ = _counter_graph()
        hook = tf.train.NanTensorHook(loss * np.nan, fail_on_nan_loss=False)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(loss)
            assert sess.should_stop()


def test_training_session_saves_restores_and_stops_at_step(tmp_path):
    model_dir = str(tmp_path)
    for last_step, expected_x in [(3, 0.5), (5, 0.125)]:
        with tf.Graph().as_default():
            step, x, _, train_op = _counter_graph()
            hooks = [tf.train.StopAtStepHook(last_step=last_step)]
            with tf.train.MonitoredTrainingSession(checkpoint_dir=model_dir, hooks=hooks,
                                                   save_checkpoint_steps=2) as sess:
                while not sess.should_stop():
                    sess.run(train_op)
        assert tf.train.load_variable(model_dir, "global_step") == last_step
        assert tf.train.load_variable(model_dir, "x") == pytest.approx(expected_x)
    names = os.listdir(model_dir)
    assert {"checkpoint", "graph.pbtxt"} <= set(names)
    assert any(n.startswith("events.out.tfevents") for n in names)
    assert tf.train.latest_checkpoint(model_dir).endswith("model.ckpt-5")
    steps = sorted(int(n.split("-")[1].split(".")[0]) for n in names
                   if n.startswith("model.ckpt-") and n.endswith(".meta"))
    # the second session saves when it starts (step 3) and every 2 steps from there
    assert steps == [0, 2, 3, 5]


def test_stop_at_step_hook_num_steps_counts_from_the_restored_step(tmp_path):
    with tf.Graph().as_default():
        step, _, _, train_op = _counter_graph()
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=str(tmp_path), hooks=[tf.train.StopAtStepHook(num_steps=2)]) as s:
            while not s.should_stop():
                s.run(train_op)
    with tf.Graph().as_default():
        step, _, _, train_op = _counter_graph()
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=str(tmp_path), hooks=[tf.train.StopAtStepHook(num_steps=3)]) as s:
            runs = 0
            while not s.should_stop():
                s.run(train_op)
                runs += 1
    assert runs == 3
    assert tf.train.load_variable(str(tmp_path), "global_step") == 5


def test_logging_tensor_hook_and_step_counter_log_through_tensorflow_logger(caplog):
    with tf.Graph().as_default():
        step, _, loss, train_op = _counter_graph()
        hooks = [tf.train.StopAtStepHook(last_step=4),
                 tf.train.LoggingTensorHook({"step": step, "loss": loss}, every_n_iter=2),
                 tf.train.StepCounterHook(every_n_steps=2)]
        with caplog.at_level(logging.INFO, logger="tensorflow"):
            with tf.train.MonitoredSession(hooks=hooks) as sess:
                while not sess.should_stop():
                    sess.run(train_op)
    messages = [r.getMessage() for r in caplog.records if r.name == "tensorflow"]
    logged = [m for m in messages if m.startswith("loss = ")]
    # tags sorted; the loss before the update, the step after it
    assert logged[0] == "loss = 16.0, step = 1"
    assert logged[1].startswith("loss = 1.0, step = 3 (")
    assert any(m.startswith("global_step/sec: ") for m in messages)


def test_summary_saver_hook_writes_scalars(tmp_path):
    with tf.Graph().as_default():
        step, _, loss, train_op = _counter_graph()
        tf.summary.scalar("my_loss", loss)
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=str(tmp_path), save_summaries_steps=1,
                hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
            while not sess.should_stop():
                sess.run(train_op)
    tf.summary.FileWriterCache.clear()
    values = {}
    for name in os.listdir(str(tmp_path)):
        if name.startswith("events"):
            for event in EventFileLoader(os.path.join(str(tmp_path), name)).Load():
                values.update((event.step, float(tensor_util.make_ndarray(v.tensor)))
                              for v in event.summary.value if v.tag == "my_loss")
    # the loss computed in each step (before its update), labelled with the step after it
    assert values == {1: 16.0, 2: 4.0, 3: 1.0}


def test_scaffold_init_fn_and_feed_and_custom_saver(tmp_path):
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        x = tf.get_variable("x", initializer=1.0)
        scaffold = tf.train.Scaffold(init_fn=lambda scaffold, sess: x.load(7.0, sess))
        with tf.train.SingularMonitoredSession(scaffold=scaffold) as sess:
            assert sess.run(x) == 7.0
            assert sess.raw_session().run(step) == 0
        with pytest.raises(TypeError, match="copy_from_scaffold"):
            tf.train.Scaffold(copy_from_scaffold=object())


def test_uninitialized_variable_is_reported():
    with tf.Graph().as_default():
        tf.get_variable("a", initializer=1.0)
        tf.Variable(2.0, name="b")
        scaffold = tf.train.Scaffold(init_op=tf.no_op())
        with pytest.raises(RuntimeError, match="Variables not initialized: a, b"):
            tf.train.MonitoredSession(tf.train.ChiefSessionCreator(scaffold=scaffold))


def test_run_step_fn():
    with tf.Graph().as_default():
        _, x, loss, train_op = _counter_graph()

        def step_fn(step_context):
            step_context.run_with_hooks(train_op)
            if step_context.session.run(x) < 1.5:
                step_context.request_stop()
            return "ran"

        with tf.train.MonitoredSession() as sess:
            results = []
            while not sess.should_stop():
                results.append(sess.run_step_fn(step_fn))
        assert results == ["ran", None]
        with pytest.raises(ValueError, match="step_context"):
            tf.train.MonitoredSession().run_step_fn(lambda ctx: None)


def test_hooks_fed_by_two_hooks_conflict():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [])
        doubled = p * 2
        hooks = [tf.train.FeedFnHook(lambda: {p: 1.0}), tf.train.FeedFnHook(lambda: {p: 2.0})]
        with tf.train.MonitoredSession(hooks=hooks) as sess:
            with pytest.raises(RuntimeError, match="Same tensor is fed by two hooks"):
                sess.run(doubled)
        with tf.train.MonitoredSession(hooks=hooks[:1]) as sess:
            assert sess.run(doubled) == 2.0


def test_final_ops_hook_runs_at_end():
    with tf.Graph().as_default():
        _, x, _, train_op = _counter_graph()
        hook = tf.train.FinalOpsHook({"x": x})
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(train_op)
        assert hook.final_ops_values == {"x": 2.0}


@pytest.mark.parametrize("make, error, message", [
    (lambda: tf.train.SecondOrStepTimer(), ValueError, "Either every_secs or every_steps"),
    (lambda: tf.train.SecondOrStepTimer(1, 1), ValueError, "Can not provide both"),
    (lambda: tf.train.StopAtStepHook(), ValueError, "One of num_steps or last_step"),
    (lambda: tf.train.StopAtStepHook(1, 2), ValueError, "Only one of num_steps"),
    (lambda: tf.train.LoggingTensorHook({}, every_n_iter=0), ValueError, "invalid every_n_iter"),
    (lambda: tf.train.LoggingTensorHook({}), ValueError, "at_end and/or exactly one"),
    (lambda: tf.train.StepCounterHook(every_n_steps=None), ValueError, "exactly one of"),
    (lambda: tf.train.SummarySaverHook(save_steps=1), ValueError, "Exactly one of scaffold"),
    (lambda: tf.train.CheckpointSaverHook("d", save_steps=1, saver=1, scaffold=1), ValueError,
     "both saver and scaffold"),
    (lambda: tf.train.MonitoredTrainingSession(is_chief=False), NotImplementedError,
     "is_chief=False"),
])
def test_bad_arguments(make, error, message):
    with tf.Graph().as_default():
        with pytest.raises(error, match=message):
            make()


def test_hooks_need_a_global_step():
    with tf.Graph().as_default():
        tf.get_variable("x", initializer=1.0)
        with pytest.raises(RuntimeError, match="Global step should be created to use "
                                               "StopAtStepHook"):
            tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(1)])


def test_second_or_step_timer_by_steps():
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    assert timer.should_trigger_for_step(0)
    assert timer.update_last_triggered_step(0) == (None, None)
    assert [timer.should_trigger_for_step(s) for s in (0, 1, 2, 3, 4)] == \
        [False, False, False, True, True]
    elapsed_secs, elapsed_steps = timer.update_last_triggered_step(4)
    assert elapsed_steps == 4 and elapsed_secs >= 0
    assert timer.last_triggered_step() == 4


def test_out_of_range_inside_run_is_an_error_without_with_block():
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        value = tf.data.make_one_shot_iterator(tf.data.Dataset.range(1)).get_next()
        sess = tf.train.MonitoredSession()
        sess.run(value)
        with pytest.raises(errors.OutOfRangeError):
            sess.run(value)
        sess.close()


def test_monitored_session_runs_queue_runners_to_the_end_of_input():
    """Queue-runner threads start with the session; OutOfRangeError at the end of the
    epochs ends the loop cleanly (as TF's MonitoredSession does)."""
    graph = tf.Graph()
    with graph.as_default():
        values = tf.compat.v1.train.limit_epochs(tf.constant([1.0, 2.0, 3.0]), num_epochs=2)
        queue = tf.compat.v1.FIFOQueue(10, tf.float32, shapes=[[3]])
        enqueue = queue.enqueue(values)
        tf.compat.v1.train.add_queue_runner(tf.compat.v1.train.QueueRunner(queue, [enqueue]))
        total = tf.reduce_sum(queue.dequeue())
        seen = []
        with tf.compat.v1.train.MonitoredSession() as sess:
            while not sess.should_stop():
                seen.append(sess.run(total))
        assert seen == [6.0, 6.0]
