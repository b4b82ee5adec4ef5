"""tf.contrib.framework / slim / seq2seq / legacy_seq2seq / learn / training / util against
TF 1.15's definitions."""
import gzip
import json
import pickle

import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _import_hook
from tfcompat.framework import context

framework = tf.contrib.framework
slim = tf.contrib.slim
RNG = np.random.RandomState(1)


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


@pytest.fixture
def eager():
    with context.eager_scope():
        yield


def _names(variables):
    return [v.name for v in variables]


# ---------------------------------------------------------------- contrib.framework


def test_model_variable_and_variable_collections(graph):
    framework.model_variable("m", shape=[2], initializer=tf.zeros_initializer())
    framework.variable("v", shape=[3], collections=["mine"], trainable=False)
    framework.local_variable([1.0], name="local")
    with tf.variable_scope("block"):
        framework.model_variable("weights", shape=[1])
    assert _names(framework.get_model_variables()) == ["m:0", "block/weights:0"]
    assert _names(framework.get_variables()) == ["m:0", "block/weights:0"]
    assert _names(tf.get_collection("mine")) == ["v:0"]
    assert _names(framework.get_trainable_variables()) == ["m:0", "block/weights:0"]
    assert _names(framework.get_local_variables()) == ["local:0"]
    assert _names(framework.get_variables("block")) == ["block/weights:0"]
    assert _names(framework.get_variables_by_name("weights")) == ["block/weights:0"]
    assert _names(framework.get_variables_by_suffix("m")) == ["m:0"]
    assert framework.get_unique_variable("block/weights").name == "block/weights:0"
    with pytest.raises(ValueError, match="Couldn't find variable nothing"):
        framework.get_unique_variable("nothing")
    assert framework.get_variable_full_name(framework.get_model_variables()[1]) == \
        "block/weights"


def test_get_variables_to_restore_include_exclude(graph):
    for name in ("a/w", "a/b", "c/w"):
        scope, var = name.split("/")
        with tf.variable_scope(scope, reuse=tf.AUTO_REUSE):
            framework.variable(var, shape=[1])
    assert _names(framework.get_variables_to_restore()) == ["a/w:0", "a/b:0", "c/w:0"]
    assert _names(framework.get_variables_to_restore(include=["a"], exclude=["a/b"])) == \
        ["a/w:0"]
    with pytest.raises(TypeError, match="exclude is provided but is not a list"):
        framework.get_variables_to_restore(exclude="a")


def test_assign_from_checkpoint_fn_restores_by_name(graph, tmp_path):
    w = tf.get_variable("w", initializer=tf.constant([1.0, 2.0]))
    path = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, path)
        sess.run(w.assign([0.0, 0.0]))
        restore = framework.assign_from_checkpoint_fn(path, [w])
        restore(sess)
        np.testing.assert_allclose(sess.run(w), [1.0, 2.0])
    other = tf.get_variable("not_saved", shape=[1])
    assert framework.assign_from_checkpoint_fn(path, [other], ignore_missing_vars=True) is None
    with pytest.raises(ValueError, match="var_list cannot be empty"):
        framework.assign_from_checkpoint_fn(path, [])
    assert framework.list_variables(path) == [("w", [2])]


def test_global_step_helpers_are_tf_train_ones(graph):
    step = framework.get_or_create_global_step()
    assert framework.get_global_step() is step and tf.train.get_global_step() is step


# ---------------------------------------------------------------- slim


def test_slim_names_are_the_contrib_objects():
    for name in ("conv2d", "fully_connected", "max_pool2d", "flatten", "dropout",
                 "batch_norm", "repeat", "stack", "l2_regularizer"):
        assert getattr(slim, name) is getattr(tf.contrib.layers, name)
        assert getattr(slim.layers, name) is getattr(tf.contrib.layers, name)
    assert slim.arg_scope is framework.arg_scope
    assert slim.get_model_variables is framework.get_model_variables
    assert slim.losses.softmax_cross_entropy is tf.contrib.losses.softmax_cross_entropy
    with pytest.raises(NotImplementedError, match="tf.contrib.slim.learning"):
        slim.learning


def test_slim_losses_take_logits_first_and_match_tf_losses(graph):
    logits = RNG.randn(4, 3).astype(np.float32)
    labels = np.array([0, 2, 1, 2])
    onehot = np.eye(3, dtype=np.float32)[labels]
    weights = np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    dense = slim.losses.softmax_cross_entropy(tf.constant(logits), tf.constant(onehot),
                                              weights=weights)
    sparse = slim.losses.sparse_softmax_cross_entropy(tf.constant(logits), tf.constant(labels))
    mse = slim.losses.mean_squared_error(tf.constant(logits), tf.constant(onehot))
    assert len(slim.losses.get_losses()) == 3
    total = slim.losses.get_total_loss()
    log_softmax = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    per_example = -log_softmax[np.arange(4), labels]
    with tf.Session() as sess:
        values = sess.run([dense, sparse, mse, total])
    np.testing.assert_allclose(values[0], (per_example * weights).sum() / 3, rtol=1e-5)
    np.testing.assert_allclose(values[1], per_example.mean(), rtol=1e-5)
    np.testing.assert_allclose(values[2], ((logits - onehot) ** 2).mean(), rtol=1e-5)
    np.testing.assert_allclose(values[3], sum(values[:3]), rtol=1e-5)


# ---------------------------------------------------------------- seq2seq


def _sequence_data():
    logits = RNG.randn(2, 3, 4).astype(np.float32)
    targets = np.array([[1, 2, 3], [0, 0, 1]])
    weights = np.array([[1.0, 1.0, 0.0], [1.0, 2.0, 0.0]], np.float32)
    log_softmax = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    crossent = -np.take_along_axis(log_softmax, targets[..., None], -1)[..., 0]
    return logits, targets, weights, crossent * weights


@pytest.mark.parametrize("flags,expected", [
    ({}, lambda c, w: c.sum() / w.sum()),
    ({"average_across_timesteps": False}, lambda c, w: c.sum(0) / w.sum(0)),
    ({"average_across_batch": False}, lambda c, w: c.sum(1) / w.sum(1)),
    ({"average_across_timesteps": False, "average_across_batch": False}, lambda c, w: c),
    ({"average_across_timesteps": False, "average_across_batch": False,
      "sum_over_timesteps": True, "sum_over_batch": True}, lambda c, w: c.sum() / 4),
    ({"average_across_timesteps": False, "average_across_batch": False,
      "sum_over_timesteps": True}, lambda c, w: c.sum(1) / (w != 0).sum(1)),
])
def test_seq2seq_sequence_loss_reductions(eager, flags, expected):
    logits, targets, weights, weighted = _sequence_data()
    loss = tf.contrib.seq2seq.sequence_loss(logits, targets, weights, **flags)
    with np.errstate(invalid="ignore", divide="ignore"):
        reference = np.nan_to_num(expected(weighted, weights))
    np.testing.assert_allclose(loss.numpy(), reference, rtol=1e-5)


def test_seq2seq_sequence_loss_checks_and_custom_loss(eager):
    logits, targets, weights, weighted = _sequence_data()
    with pytest.raises(ValueError, match="Logits must be a"):
        tf.contrib.seq2seq.sequence_loss(logits[0], targets, weights)
    with pytest.raises(ValueError, match="cannot be set to True at same time"):
        tf.contrib.seq2seq.sequence_loss(logits, targets, weights, sum_over_batch=True)
    seen = {}

    def custom(labels, logits):
        seen["shapes"] = (labels.shape.as_list(), logits.shape.as_list())
        return tf.ones_like(labels, dtype=tf.float32)

    loss = tf.contrib.seq2seq.sequence_loss(logits, targets, weights,
                                            softmax_loss_function=custom)
    assert seen["shapes"] == ([6], [6, 4])
    assert loss.numpy() == pytest.approx(1.0)


def test_legacy_sequence_losses(graph):
    logits, targets, weights, weighted = _sequence_data()
    step_logits = [tf.constant(logits[:, t]) for t in range(3)]
    step_targets = [tf.constant(targets[:, t]) for t in range(3)]
    step_weights = [tf.constant(weights[:, t]) for t in range(3)]
    by_example = tf.contrib.legacy_seq2seq.sequence_loss_by_example(
        step_logits, step_targets, step_weights)
    total = tf.contrib.legacy_seq2seq.sequence_loss(step_logits, step_targets, step_weights,
                                                    average_across_timesteps=False)
    with tf.Session() as sess:
        per_example, total_value = sess.run([by_example, total])
    np.testing.assert_allclose(per_example, weighted.sum(1) / (weights.sum(1) + 1e-12),
                               rtol=1e-5)
    np.testing.assert_allclose(total_value, weighted.sum() / 2, rtol=1e-5)
    with pytest.raises(ValueError, match="Lengths of logits, weights, and targets"):
        tf.contrib.legacy_seq2seq.sequence_loss_by_example(step_logits, step_targets[:2],
                                                           step_weights)


class _AddCell(object):
    """output = state = state @ w + input, with w from get_variable (shared across steps)."""

    def __call__(self, inputs, state):
        w = tf.get_variable("w", initializer=tf.constant([[2.0]]))
        new_state = tf.matmul(state, w) + inputs
        return new_state, new_state


def test_rnn_decoder_shares_variables_and_feeds_back_with_loop_function(graph):
    inputs = [tf.constant([[1.0]]), tf.constant([[10.0]]), tf.constant([[100.0]])]
    outputs, state = tf.contrib.legacy_seq2seq.rnn_decoder(inputs, tf.constant([[0.5]]),
                                                           _AddCell())
    looped, _ = tf.contrib.legacy_seq2seq.rnn_decoder(
        inputs, tf.constant([[0.5]]), _AddCell(), loop_function=lambda prev, i: prev * 0.0,
        scope="looped")
    assert _names(tf.global_variables()) == ["rnn_decoder/w:0", "looped/w:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values, final, looped_values = sess.run([outputs, state, looped])
    np.testing.assert_allclose(np.ravel(values), [2.0, 14.0, 128.0])
    np.testing.assert_allclose(final, [[128.0]])
    np.testing.assert_allclose(np.ravel(looped_values), [2.0, 4.0, 8.0])


# ---------------------------------------------------------------- contrib.learn


def _write_idx(path, magic, array):
    with gzip.open(path, "wb") as f:
        f.write(np.array([magic] + list(array.shape), ">u4").tobytes())
        f.write(array.astype(np.uint8).tobytes())


@pytest.fixture
def mnist_dir(tmp_path):
    images = RNG.randint(0, 256, (12, 28, 28))
    labels = np.arange(12) % 10
    _write_idx(tmp_path / "train-images-idx3-ubyte.gz", 2051, images)
    _write_idx(tmp_path / "train-labels-idx1-ubyte.gz", 2049, labels)
    _write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", 2051, images[:3])
    _write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", 2049, labels[:3])
    return str(tmp_path), images, labels


def test_read_data_sets_splits_scales_and_one_hots(mnist_dir):
    path, images, labels = mnist_dir
    data = tf.contrib.learn.datasets.mnist.read_data_sets(path, one_hot=True,
                                                          validation_size=2)
    assert (data.train.num_examples, data.validation.num_examples,
            data.test.num_examples) == (10, 2, 3)
    assert data.train.images.shape == (10, 784) and data.train.images.dtype == np.float32
    np.testing.assert_allclose(data.validation.images, images[:2].reshape(2, 784) / 255.0,
                               rtol=1e-6)
    np.testing.assert_array_equal(data.validation.labels, np.eye(10)[labels[:2]])
    raw = tf.contrib.learn.datasets.mnist.read_data_sets(path, dtype=tf.uint8, reshape=False,
                                                         validation_size=0)
    assert raw.test.images.shape == (3, 28, 28, 1) and raw.test.images.dtype == np.uint8
    with pytest.raises(ValueError, match="Validation size should be between 0 and 12"):
        tf.contrib.learn.datasets.mnist.read_data_sets(path, validation_size=13)


def test_next_batch_wraps_epochs_like_tf(mnist_dir):
    path, _, labels = mnist_dir
    data = tf.contrib.learn.datasets.mnist.read_data_sets(path, validation_size=0)
    train = data.train
    _, first = train.next_batch(5, shuffle=False)
    np.testing.assert_array_equal(first, labels[:5])
    _, second = train.next_batch(5, shuffle=False)
    _, wrapped = train.next_batch(5, shuffle=False)       # 2 left + 3 of the next epoch
    np.testing.assert_array_equal(wrapped, np.concatenate([labels[10:], labels[:3]]))
    assert train.epochs_completed == 1
    rest = np.concatenate([train.next_batch(3)[1] for _ in range(3)])   # no reshuffle
    np.testing.assert_array_equal(rest, labels[3:])
    assert train.epochs_completed == 1
    shuffled = tf.contrib.learn.datasets.mnist.read_data_sets(path, validation_size=0).train
    first_epoch = np.concatenate([shuffled.next_batch(4)[1] for _ in range(3)])
    assert sorted(first_epoch) == sorted(labels)


def test_missing_mnist_files_raise_not_found_without_downloading(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="does not download"):
        tf.contrib.learn.datasets.mnist.read_data_sets(str(tmp_path))
    (tmp_path / "present.txt").write_text("x")
    assert tf.contrib.learn.datasets.base.maybe_download("present.txt", str(tmp_path), "u") == \
        str(tmp_path / "present.txt")


def test_extract_images_checks_the_magic_number(tmp_path):
    _write_idx(tmp_path / "bad.gz", 2049, np.zeros((1, 2, 2)))
    with open(tmp_path / "bad.gz", "rb") as f:
        with pytest.raises(ValueError, match="Invalid magic number 2049 in MNIST image file"):
            tf.contrib.learn.datasets.mnist.extract_images(f)


def test_vocabulary_processor_fit_transform_reverse_and_pickle(tmp_path):
    documents = ["I like apples", "I like pears", "pears pears!"]
    processor = tf.contrib.learn.preprocessing.VocabularyProcessor(4)
    ids = list(processor.fit_transform(documents))
    np.testing.assert_array_equal(ids, [[1, 2, 3, 0], [1, 2, 4, 0], [4, 4, 0, 0]])
    assert ids[0].dtype == np.int64 and len(processor.vocabulary_) == 5
    assert list(processor.transform(["I like kiwis"]))[0].tolist() == [1, 2, 0, 0]
    assert list(processor.reverse([[1, 2, 4, 0]])) == ["I like pears <UNK>"]
    path = str(tmp_path / "vocab")
    processor.save(path)
    restored = tf.contrib.learn.preprocessing.VocabularyProcessor.restore(path)
    assert list(restored.transform(["pears I"]))[0].tolist() == [4, 1, 0, 0]


def test_vocabulary_processor_min_frequency_renumbers_by_count():
    processor = tf.contrib.learn.preprocessing.VocabularyProcessor(3, min_frequency=1)
    processor.fit(["b a c", "a b", "a"])
    # counts a=3, b=2, c=1: c is dropped, ids by decreasing count
    assert list(processor.transform(["c b a"]))[0].tolist() == [0, 2, 1]


def test_mode_keys():
    keys = tf.contrib.learn.ModeKeys
    assert (keys.TRAIN, keys.EVAL, keys.INFER) == ("train", "eval", "infer")


def test_internal_learn_paths_resolve_for_scripts_and_pickles():
    module = _import_hook._target("tensorflow.contrib.learn.python.learn.datasets.mnist")
    assert module.read_data_sets is tf.contrib.learn.datasets.mnist.read_data_sets
    text = _import_hook._target("tensorflow.contrib.learn.python.learn.preprocessing.text")
    assert text.VocabularyProcessor is tf.contrib.learn.preprocessing.VocabularyProcessor


# ---------------------------------------------------------------- contrib.training.HParams


def test_hparams_parse_types_and_values():
    hparams = tf.contrib.training.HParams(learning_rate=0.1, layers=[64, 32], name="net",
                                          use_bn=False, steps=10)
    hparams.parse("learning_rate=1,layers=[8, 4 2],name=deep,use_bn=true,steps=20")
    assert hparams.values() == {"learning_rate": 1.0, "layers": [8, 4, 2], "name": "deep",
                                "use_bn": True, "steps": 20}
    assert isinstance(hparams.learning_rate, float)
    assert "steps" in hparams and hparams.get("missing", 3) == 3
    assert json.loads(hparams.to_json()) == hparams.values()
    hparams.override_from_dict({"steps": 5}).parse_json('{"name": "x"}')
    assert (hparams.steps, hparams.name) == (5, "x")
    hparams.add_hparam("dropout", 0.5)
    hparams.set_hparam("dropout", 1)
    assert hparams.dropout == 1.0 and isinstance(hparams.dropout, float)
    hparams.del_hparam("dropout")
    assert "dropout" not in hparams
    assert repr(tf.contrib.training.HParams(b=1, a=2)) == "HParams([('a', 2), ('b', 1)])"


@pytest.mark.parametrize("action,message", [
    (lambda h: h.parse("steps=1.5"), "Could not parse hparam 'steps'"),
    (lambda h: h.parse("unknown=1"), "Unknown hyperparameter type for unknown"),
    (lambda h: h.parse("steps=1,steps=2"), "Multiple assignments"),
    (lambda h: h.parse("steps"), "Malformed hyperparameter value"),
    (lambda h: h.set_hparam("steps", 2.5), "Could not cast hparam 'steps'"),
    (lambda h: h.set_hparam("steps", [1]), "Must not pass a list"),
    (lambda h: h.set_hparam("layers", 3), "Must pass a list"),
    (lambda h: h.set_hparam("name", 3), "Could not cast hparam 'name'"),
    (lambda h: h.add_hparam("steps", 1), "Hyperparameter name is reserved"),
    (lambda h: h.add_hparam("empty", []), "cannot be empty"),
    (lambda h: h.get("steps", "a"), "is incompatible with default"),
])
def test_hparams_errors(action, message):
    hparams = tf.contrib.training.HParams(steps=10, layers=[1], name="n")
    with pytest.raises(ValueError, match=message):
        action(hparams)


# ---------------------------------------------------------------- contrib.util


@pytest.mark.parametrize("values,kwargs,expected", [
    ([[1.0, 2.0], [3.0, 4.0]], {}, np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)),
    (5, {"dtype": tf.int64, "shape": [2, 2]}, np.full((2, 2), 5, np.int64)),
    ([b"a", b"bc"], {}, np.array([b"a", b"bc"], object)),
    ([1, 2], {"dtype": "float64", "shape": [2, 2], "allow_broadcast": True},
     np.array([[1.0, 2.0], [1.0, 2.0]])),
])
def test_make_tensor_proto_round_trip(values, kwargs, expected):
    proto = tf.contrib.util.make_tensor_proto(values, **kwargs)
    result = tf.contrib.util.make_ndarray(proto)
    np.testing.assert_array_equal(result, expected)
    assert result.dtype == expected.dtype
    assert tf.make_tensor_proto is tf.contrib.util.make_tensor_proto


def test_make_tensor_proto_of_an_eager_tensor_and_a_symbolic_one(graph):
    with context.eager_scope():
        proto = tf.make_tensor_proto(tf.constant([1, 2]))
    assert proto.dtype == tf.int32.as_datatype_enum
    with pytest.raises(TypeError, match="evaluate it with Session.run"):
        tf.make_tensor_proto(tf.placeholder(tf.float32))


def test_pickle_of_a_vocabulary_names_tfcompat_classes():
    processor = tf.contrib.learn.preprocessing.VocabularyProcessor(2)
    assert b"tfcompat.contrib.learn.preprocessing" in pickle.dumps(processor)
