"""tf.data iterators in tf.train.Checkpoint: restored to the position they were saved at."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

PIPELINES = {
    "range": lambda: tf.data.Dataset.range(10),
    "from_tensor_slices": lambda: tf.data.Dataset.from_tensor_slices(
        {"x": np.arange(12.0).reshape(6, 2), "y": np.arange(6)}),
    "map_batch": lambda: tf.data.Dataset.range(11).map(lambda x: x * x).batch(3),
    "shuffle_seeded_repeat": lambda: tf.data.Dataset.range(8).shuffle(4, seed=7).repeat(3),
    "repeat_shuffle_seeded_batch": lambda: tf.data.Dataset.range(20).map(
        lambda x: x * 2).shuffle(5, seed=3).repeat().batch(3),
    "shuffle_once": lambda: tf.data.Dataset.range(9).shuffle(
        9, seed=1, reshuffle_each_iteration=False).repeat(2),
    "zip_shuffles": lambda: tf.data.Dataset.zip((
        tf.data.Dataset.range(6).shuffle(6, seed=2),
        tf.data.Dataset.range(6).shuffle(3, seed=5))).repeat(2),
}


def _values(element):
    return tf.nest.map_structure(lambda t: t.numpy().tolist(), element)


def _take(iterator, count):
    out = []
    for _ in range(count):
        try:
            out.append(_values(next(iterator)))
        except StopIteration:
            break
    return out


@pytest.mark.parametrize("name", sorted(PIPELINES))
@pytest.mark.parametrize("consumed", [0, 1, 4, 13])
def test_restored_iterator_continues_where_it_was_saved(tmp_path, name, consumed):
    iterator = iter(PIPELINES[name]())
    _take(iterator, consumed)
    path = tf.train.Checkpoint(iterator=iterator).save(str(tmp_path / "ckpt"))
    expected = _take(iterator, 30)

    restored = iter(PIPELINES[name]())      # a new pipeline, as a new process builds it
    _take(restored, 2)                      # its position before the restore does not count
    tf.train.Checkpoint(iterator=restored).restore(path).assert_consumed()
    assert _take(restored, 30) == expected


def test_unseeded_shuffle_restores_its_order(tmp_path):
    iterator = iter(tf.data.Dataset.range(50).shuffle(50).repeat(2))
    _take(iterator, 60)
    path = tf.train.Checkpoint(iterator=iterator).save(str(tmp_path / "ckpt"))
    expected = _take(iterator, 40)
    restored = iter(tf.data.Dataset.range(50).shuffle(50).repeat(2))
    tf.train.Checkpoint(iterator=restored).restore(path)
    assert _take(restored, 40) == expected
    assert len(set(expected)) == 40 and set(expected) <= set(range(50))  # epoch 2's last 40


def test_iterator_state_is_an_int64_tensor_under_tfs_key(tmp_path):
    iterator = iter(tf.data.Dataset.range(10).shuffle(4, seed=1))
    _take(iterator, 3)
    path = tf.train.Checkpoint(iterator=iterator).save(str(tmp_path / "ckpt"))
    assert dict(tf.train.list_variables(path))["iterator/.ATTRIBUTES/ITERATOR_STATE"] == [8]
    state = tf.train.load_checkpoint(path).get_tensor("iterator/.ATTRIBUTES/ITERATOR_STATE")
    assert state.dtype == np.int64
    assert state[:2].tolist() == [3, 1]         # elements produced, shuffles in the pipeline


def test_checkpoint_guide_training_loop_resumes_data_and_step(tmp_path):
    """TF's checkpoint guide: Checkpoint(step, optimizer, net, iterator) + CheckpointManager."""
    def toy_dataset():
        inputs = tf.range(10.)[:, None]
        labels = inputs * 5. + tf.range(5.)[None, :]
        return tf.data.Dataset.from_tensor_slices(dict(x=inputs, y=labels)).repeat().batch(2)

    def make():
        net = tf.keras.layers.Dense(5)
        opt = tf.keras.optimizers.Adam(0.1)
        iterator = iter(toy_dataset())
        ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net,
                                   iterator=iterator)
        return ckpt, tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3)

    ckpt, manager = make()
    for _ in range(7):
        example = next(ckpt.iterator)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.abs(ckpt.net(example["x"]) - example["y"]))
        variables = ckpt.net.trainable_variables
        ckpt.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        ckpt.step.assign_add(1)
    manager.save()
    expected = _values(next(ckpt.iterator))

    ckpt2, manager2 = make()
    ckpt2.restore(manager2.latest_checkpoint)
    assert int(ckpt2.step) == 8
    assert _values(next(ckpt2.iterator)) == expected
    assert expected["x"] == [[4.0], [5.0]]      # 7 batches of 2 from a 10-row dataset


def test_generator_pipeline_cannot_be_saved(tmp_path):
    def count():
        yield from range(10)
    dataset = tf.data.Dataset.from_generator(
        count, output_signature=tf.TensorSpec(shape=(), dtype=tf.int32)).map(lambda x: x + 1)
    iterator = iter(dataset)
    next(iterator)
    with pytest.raises(errors.FailedPreconditionError, match="generator"):
        tf.train.Checkpoint(iterator=iterator).save(str(tmp_path / "ckpt"))


def test_restore_into_a_different_pipeline_raises(tmp_path):
    iterator = iter(tf.data.Dataset.range(10).shuffle(3, seed=1))
    path = tf.train.Checkpoint(iterator=iterator).save(str(tmp_path / "ckpt"))
    other = iter(tf.data.Dataset.range(10))
    with pytest.raises(errors.InvalidArgumentError, match="shuffles"):
        tf.train.Checkpoint(iterator=other).restore(path)


def _graph_pipeline():
    dataset = tf.data.Dataset.range(20).shuffle(6, seed=4).repeat().batch(3)
    iterator = tf.compat.v1.data.make_one_shot_iterator(dataset)
    saveable = tf.data.experimental.make_saveable_from_iterator(iterator)
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS, saveable)
    step = tf.compat.v1.Variable(0)
    return iterator.get_next(), tf.compat.v1.assign_add(step, 1), step


def test_make_saveable_from_iterator_with_saver_in_a_graph(tmp_path):
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        batch, increment, _ = _graph_pipeline()
        saver = v1.train.Saver()        # variables and SAVEABLE_OBJECTS
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(5):
                sess.run([batch, increment])
            path = saver.save(sess, str(tmp_path / "model"))
            expected = [sess.run(batch).tolist() for _ in range(4)]
    assert dict(tf.train.list_variables(path))["OneShotIterator:0_STATE"] == [8]
    with tf.Graph().as_default():
        batch, _, step = _graph_pipeline()
        saver = v1.train.Saver()
        with v1.Session() as sess:
            saver.restore(sess, path)
            assert sess.run(step) == 5
            assert [sess.run(batch).tolist() for _ in range(4)] == expected


def test_initializable_iterator_saveable_needs_its_initializer(tmp_path):
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        count = v1.placeholder(tf.int64, [])
        iterator = v1.data.make_initializable_iterator(
            tf.data.Dataset.range(count).map(lambda x: x * 10))
        element = iterator.get_next()
        saver = v1.train.Saver([tf.data.experimental.make_saveable_from_iterator(iterator)])
        with v1.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError, match="not been initialized"):
                saver.save(sess, str(tmp_path / "model"))
            sess.run(iterator.initializer, {count: 7})
            assert [sess.run(element) for _ in range(2)] == [0, 10]
            path = saver.save(sess, str(tmp_path / "model"))
            assert sess.run(element) == 20
        with v1.Session() as sess:
            sess.run(iterator.initializer, {count: 7})     # the dataset's inputs, then the position
            saver.restore(sess, path)
            assert [sess.run(element) for _ in range(5)] == [20, 30, 40, 50, 60]
            with pytest.raises(errors.OutOfRangeError):
                sess.run(element)
    assert dict(tf.train.list_variables(path)) == {"Iterator:0_STATE": [2]}


def test_make_saveable_from_an_eager_iterator_raises_as_tf():
    with pytest.raises(AttributeError, match="eager"):
        tf.data.experimental.make_saveable_from_iterator(iter(tf.data.Dataset.range(3)))
