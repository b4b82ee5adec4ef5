"""Partitioned variables (TF1 partitioners, PartitionedVariable) and their checkpoints: TF's
sliced tensor-bundle entries read and written, restores into other partitionings.

The fixture tests/fixtures/tf1_partitioned was made by real TensorFlow (make_fixture.py there):
emb [10, 5] in 3 parts (fixed_size_partitioner), dense/w [5, 3] in 2 parts (min_max), one
AdamOptimizer step; expected.npz holds the full values TF gave.
"""
import os

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.train import checkpoint_format, tensor_bundle
from tfcompat.variables import PartitionedVariable

v1 = tf.compat.v1
FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tf1_partitioned")
INIT = os.path.join(FIXTURE, "init.ckpt")
STEP1 = os.path.join(FIXTURE, "step1.ckpt")
EXPECTED = dict(np.load(os.path.join(FIXTURE, "expected.npz")))


def _fixture_graph(emb_parts=3, w_partitioner=None):
    """The fixture's model (make_fixture.py), built by tfcompat."""
    with v1.variable_scope("", partitioner=v1.fixed_size_partitioner(emb_parts)):
        emb = v1.get_variable("emb", shape=[10, 5],
                              initializer=v1.random_normal_initializer(seed=1))
    with v1.variable_scope("dense"):
        w = v1.get_variable("w", shape=[5, 3], initializer=v1.random_normal_initializer(seed=2),
                            partitioner=w_partitioner or v1.min_max_variable_partitioner(
                                max_partitions=2, min_slice_size=16))
    ids = tf.constant(EXPECTED["ids"])
    rows_mod = v1.nn.embedding_lookup(emb, ids, partition_strategy="mod")
    rows_div = v1.nn.embedding_lookup(emb, ids, partition_strategy="div")
    loss = tf.reduce_mean(tf.square(tf.matmul(rows_mod, w) - EXPECTED["y"]))
    optimizer = v1.train.AdamOptimizer(0.1)
    train = optimizer.minimize(loss)
    return dict(emb=emb, w=w, rows_mod=rows_mod, rows_div=rows_div, loss=loss,
                optimizer=optimizer, train=train)


def _slots(model, name):
    opt = model["optimizer"]
    return [tf.concat([opt.get_slot(p, name) for p in model[v]], 0) for v in ("emb", "w")]


# ---------------------------------------------------------------- partitioners


def test_partitioners_match_tf():
    float32 = tf.float32
    assert v1.fixed_size_partitioner(3)(shape=TensorShape([10, 5]), dtype=float32) == [3, 1]
    assert v1.fixed_size_partitioner(4, axis=1)(shape=TensorShape([10, 2]),
                                                dtype=float32) == [1, 2]
    # 60 bytes in 16-byte slices: 4, capped by max_partitions; by the axis size
    min_max = v1.min_max_variable_partitioner(max_partitions=2, min_slice_size=16)
    assert min_max(TensorShape([5, 3]), float32) == [2, 1]
    assert v1.min_max_variable_partitioner(max_partitions=100, min_slice_size=16)(
        TensorShape([3, 8]), float32) == [3, 1]
    assert v1.min_max_variable_partitioner(max_partitions=8)(
        TensorShape([1024, 1024]), float32) == [8, 1]
    # 20 bytes per row, 2 rows per 40-byte shard: 5 shards; capped by max_shards
    assert v1.variable_axis_size_partitioner(40)(TensorShape([10, 5]), float32) == [5, 1]
    assert v1.variable_axis_size_partitioner(40, max_shards=3)(
        TensorShape([10, 5]), float32) == [3, 1]
    assert v1.variable_axis_size_partitioner(16, bytes_per_string_element=4)(
        TensorShape([6]), tf.string) == [2]
    with pytest.raises(ValueError, match="must be positive"):
        v1.variable_axis_size_partitioner(0)
    with pytest.raises(ValueError, match="Cannot partition variable along axis 2"):
        v1.min_max_variable_partitioner(axis=2)(TensorShape([5, 3]), float32)


# ---------------------------------------------------------------- get_variable


def test_get_variable_makes_parts_named_and_cut_like_tf():
    with tf.Graph().as_default():
        model = _fixture_graph()
        emb, w = model["emb"], model["w"]
        assert isinstance(emb, PartitionedVariable)
        assert emb.name == "emb" and emb.shape.as_list() == [10, 5]
        assert [p.name for p in emb] == ["emb/part_0:0", "emb/part_1:0", "emb/part_2:0"]
        assert [p.shape.as_list() for p in emb] == [[4, 5], [3, 5], [3, 5]]
        assert [p.shape.as_list() for p in w] == [[3, 3], [2, 3]]
        assert len(emb) == 3 and emb._get_partitions() == [3, 1]
        assert [p._get_save_slice_info().spec for p in emb] == \
            ["10 5 0,4:0,5", "10 5 4,3:0,5", "10 5 7,3:0,5"]
        assert [v.op.name for v in v1.global_variables()] == \
            list(EXPECTED["global_variables"])
        slot = model["optimizer"].get_slot(list(emb)[1], "m")
        assert slot._get_save_slice_info().full_name == "emb/Adam"
        assert slot._get_save_slice_info().var_offset == [4, 0]
        assert tf.convert_to_tensor(emb).shape.as_list() == [10, 5]


def test_reuse_and_partitioning_errors_follow_tf():
    with tf.Graph().as_default():
        part = v1.fixed_size_partitioner(2)
        with v1.variable_scope("s", partitioner=part):
            a = v1.get_variable("a", shape=[4, 2])
        with v1.variable_scope("s", reuse=True):
            assert v1.get_variable("a") is a        # no partitioner needed to reuse
        with v1.variable_scope("s", reuse=True, partitioner=v1.fixed_size_partitioner(3)):
            with pytest.raises(ValueError, match="specified partitions"):
                v1.get_variable("a", shape=[4, 2])
        with v1.variable_scope("s", partitioner=part):
            with pytest.raises(ValueError, match="already exists"):
                v1.get_variable("a", shape=[4, 2])
        with v1.variable_scope("s"):
            with pytest.raises(ValueError, match="partitioned version"):
                v1.get_variable("a", shape=[4, 2])
            with pytest.raises(ValueError, match="Partitioner must be callable"):
                v1.get_variable("b", shape=[4, 2], partitioner=3)
            with pytest.raises(ValueError, match="only one dimension|one dimension"):
                v1.get_variable("c", shape=[4, 4], partitioner=lambda shape, dtype: [2, 2])
            with pytest.raises(ValueError, match="fully defined"):
                v1.get_variable("d", shape=[None, 2], partitioner=part)
            scalar = v1.get_variable("e", shape=[], partitioner=part)  # scalars: not cut
            assert scalar.shape.as_list() == []


def test_initializer_sees_partition_info_and_value_initializers_are_sliced():
    seen = []

    def init(shape, dtype=None, partition_info=None):
        seen.append((list(shape), partition_info.full_shape, partition_info.var_offset,
                     partition_info.single_offset(shape)))
        return tf.fill(shape, float(partition_info.var_offset[0]))

    with tf.Graph().as_default():
        a = v1.get_variable("a", shape=[5, 2], initializer=init,
                            partitioner=v1.fixed_size_partitioner(2))
        b = v1.get_variable("b", initializer=tf.constant(np.arange(6.0, dtype=np.float32)),
                            partitioner=v1.fixed_size_partitioner(4))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            full_a, full_b, first_b = sess.run([a.as_tensor(), b.as_tensor(), list(b)[0]])
    assert seen == [([3, 2], [5, 2], [0, 0], 0), ([2, 2], [5, 2], [3, 0], 3)]
    np.testing.assert_array_equal(full_a, [[0, 0]] * 3 + [[3, 3]] * 2)
    np.testing.assert_array_equal(full_b, np.arange(6.0))
    np.testing.assert_array_equal(first_b, [0.0, 1.0])


def test_create_partitioned_variables():
    with tf.Graph().as_default():
        parts = v1.create_partitioned_variables([7, 2], [3, 1], v1.zeros_initializer(),
                                                name="table")
        assert [p.op.name for p in parts] == ["table/part_0", "table/part_1", "table/part_2"]
        assert [p.shape.as_list() for p in parts] == [[3, 2], [2, 2], [2, 2]]


# ---------------------------------------------------------------- values vs TensorFlow


def test_graph_training_step_matches_tensorflow():
    with tf.Graph().as_default():
        model = _fixture_graph()
        saver = v1.train.Saver()
        with v1.Session() as sess:
            saver.restore(sess, INIT)
            got = sess.run([model["emb"].as_tensor(), model["w"].as_tensor(),
                            model["rows_mod"], model["rows_div"], model["loss"]])
            for key, value in zip(["emb", "w", "rows_mod", "rows_div", "loss"], got):
                np.testing.assert_allclose(value, EXPECTED["init_" + key], rtol=1e-5, atol=1e-6)
            sess.run(model["train"])
            got = sess.run([model["emb"].as_tensor(), model["w"].as_tensor()] +
                           _slots(model, "m") + _slots(model, "v"))
    for key, value in zip(["emb", "w", "emb_m", "w_m", "emb_v", "w_v"], got):
        np.testing.assert_allclose(value, EXPECTED["step1_" + key], rtol=1e-5, atol=1e-6)


def test_embedding_lookup_mod_and_div_vs_numpy_eager():
    full = np.arange(11 * 3, dtype=np.float32).reshape(11, 3)
    pv = v1.get_variable("table", initializer=tf.constant(full),
                         partitioner=v1.fixed_size_partitioner(4))
    assert [p.shape.as_list() for p in pv] == [[3, 3], [3, 3], [3, 3], [2, 3]]
    ids = np.array([[0, 10], [5, 7], [3, 3]])
    offsets = np.array([0, 3, 6, 9])
    mod_rows = offsets[ids % 4] + ids // 4
    np.testing.assert_array_equal(v1.nn.embedding_lookup(pv, ids).numpy(), full[mod_rows])
    # "div" gives contiguous id ranges, which is how the parts are cut: the full table's rows
    np.testing.assert_array_equal(
        v1.nn.embedding_lookup(pv, ids, partition_strategy="div").numpy(), full[ids])
    np.testing.assert_array_equal(tf.compat.v2.nn.embedding_lookup(pv, ids).numpy(), full[ids])
    np.testing.assert_array_equal(tf.convert_to_tensor(pv).numpy(), full)


def test_eager_gradients_reach_the_parts():
    pv = v1.get_variable("g", initializer=tf.constant(np.ones((5, 2), np.float32)),
                         partitioner=v1.fixed_size_partitioner(2))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v1.nn.embedding_lookup(pv, [0, 1, 1]) * 2.0)
    grads = tape.gradient(loss, list(pv))
    # mod over 2 parts: id 0 -> part 0 row 0, id 1 -> part 1 row 0 (twice)
    np.testing.assert_array_equal(tf.convert_to_tensor(grads[0]).numpy(),
                                  [[2, 2], [0, 0], [0, 0]])
    np.testing.assert_array_equal(tf.convert_to_tensor(grads[1]).numpy(), [[4, 4], [0, 0]])


def test_assign_splits_the_full_value():
    with tf.Graph().as_default():
        pv = v1.get_variable("a", shape=[5, 2], partitioner=v1.fixed_size_partitioner(2))
        value = np.arange(10, dtype=np.float32).reshape(5, 2)
        assign = pv.assign(value)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(assign)
            np.testing.assert_array_equal(sess.run(pv.as_tensor()), value)
            sess.run(pv.assign_add([np.ones((3, 2), np.float32), np.ones((2, 2), np.float32)]))
            np.testing.assert_array_equal(sess.run(pv.as_tensor()), value + 1)


# ---------------------------------------------------------------- reading TF's sliced bundles


def test_reader_assembles_tf_slices():
    reader = v1.train.load_checkpoint(STEP1)
    listed = v1.train.list_variables(STEP1)
    assert [name for name, _ in listed] == list(EXPECTED["listed_names"])
    assert [str(shape) for _, shape in listed] == list(EXPECTED["listed_shapes"])
    for key, name in [("emb", "emb"), ("w", "dense/w"), ("emb_m", "emb/Adam"),
                      ("emb_v", "emb/Adam_1"), ("w_m", "dense/w/Adam"), ("w_v", "dense/w/Adam_1")]:
        np.testing.assert_array_equal(reader.get_tensor(name), EXPECTED["step1_" + key])
    assert reader.get_variable_to_shape_map()["emb"] == [10, 5]


def test_slice_keys_are_tfs_ordered_code():
    keys = tensor_bundle.BundleReader(STEP1).slice_entries
    key = tensor_bundle.slice_key("emb", [7, 0], [3, 5])
    assert key == b"\x00emb\x00\x01\x01\x02\x87\x83\x80\x85" and key in keys
    assert len(keys) == 15
    # OrderedCode::WriteSignedNumIncreasing beyond one byte, and the string escapes
    assert [tensor_bundle._ordered_signed(v).hex() for v in (-1, 63, 64, -65, 1000, 2 ** 40)] \
        == ["7f", "bf", "c040", "3fbf", "c3e8", "fd0000000000"]
    assert tensor_bundle._ordered_string(b"a\x00\xffb") == b"a\x00\xff\xff\x00b\x00\x01"


def test_restore_three_parts_into_two_and_into_a_plain_variable():
    with tf.Graph().as_default():
        emb = v1.get_variable("emb", shape=[10, 5], partitioner=v1.fixed_size_partitioner(2))
        w = v1.get_variable("dense/w", shape=[5, 3])
        assert [p.shape.as_list() for p in emb] == [[5, 5], [5, 5]]
        saver = v1.train.Saver()
        with v1.Session() as sess:
            saver.restore(sess, STEP1)
            np.testing.assert_array_equal(sess.run(emb.as_tensor()), EXPECTED["step1_emb"])
            np.testing.assert_array_equal(sess.run(list(emb)[1]), EXPECTED["step1_emb"][5:])
            np.testing.assert_array_equal(sess.run(w), EXPECTED["step1_w"])


def test_eager_saver_restores_a_partitioned_variable():
    emb = v1.get_variable("emb", shape=[10, 5], partitioner=v1.fixed_size_partitioner(4))
    v1.train.Saver([emb]).restore(None, STEP1)
    np.testing.assert_array_equal(tf.convert_to_tensor(emb).numpy(), EXPECTED["step1_emb"])
    assert [p.shape.as_list() for p in emb] == [[3, 5], [3, 5], [2, 5], [2, 5]]


def test_wrong_full_shape_is_an_invalid_argument():
    with tf.Graph().as_default():
        emb = v1.get_variable("emb", shape=[9, 5], partitioner=v1.fixed_size_partitioner(2))
        saver = v1.train.Saver([emb])
        with v1.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError, match="full shape"):
                saver.restore(sess, STEP1)


def test_missing_slice_bytes_are_data_loss(tmp_path):
    table = tensor_bundle.read_table(STEP1 + ".index")
    dropped = [(k, v) for k, v in table if k != tensor_bundle.slice_key("emb", [4, 0], [3, 5])]
    prefix = str(tmp_path / "broken")
    with open(prefix + ".index", "wb") as f:
        f.write(tensor_bundle.build_table(dropped))
    with open(STEP1 + ".data-00000-of-00001", "rb") as src, \
            open(prefix + ".data-00000-of-00001", "wb") as dst:
        dst.write(src.read())
    reader = v1.train.load_checkpoint(prefix)
    np.testing.assert_array_equal(reader.get_tensor("dense/w"), EXPECTED["step1_w"])
    with pytest.raises(errors.DataLossError, match="slice"):
        reader.get_tensor("emb")


# ---------------------------------------------------------------- writing


def test_our_format_saves_the_full_tensor(tmp_path):
    prefix = str(tmp_path / "model.ckpt")
    with tf.Graph().as_default():
        _fixture_graph()
        saver = v1.train.Saver()
        with v1.Session() as sess:
            saver.restore(sess, STEP1)
            saver.save(sess, prefix, write_meta_graph=False)
    assert os.path.exists(prefix + checkpoint_format.SUFFIX)
    assert v1.train.list_variables(prefix) == [
        (name, eval(shape)) for name, shape in zip(EXPECTED["listed_names"],
                                                   EXPECTED["listed_shapes"])]
    reader = v1.train.load_checkpoint(prefix)
    np.testing.assert_array_equal(reader.get_tensor("emb"), EXPECTED["step1_emb"])
    np.testing.assert_array_equal(reader.get_tensor("dense/w/Adam_1"), EXPECTED["step1_w_v"])


def test_tensorflow_format_is_byte_identical_to_tfs(tmp_path, monkeypatch):
    """Restored from TF's checkpoint and saved again, our bundle is TF's, byte for byte."""
    monkeypatch.setenv("TFCOMPAT_CHECKPOINT_FORMAT", "tensorflow")
    prefix = str(tmp_path / "model.ckpt")
    with tf.Graph().as_default():
        _fixture_graph()
        saver = v1.train.Saver()
        with v1.Session() as sess:
            saver.restore(sess, STEP1)
            saver.save(sess, prefix, write_meta_graph=False)
    for suffix in (".index", ".data-00000-of-00001"):
        with open(prefix + suffix, "rb") as ours, open(STEP1 + suffix, "rb") as tfs:
            assert ours.read() == tfs.read(), suffix


def test_tensorflow_format_round_trip_into_other_partitionings(tmp_path, monkeypatch):
    monkeypatch.setenv("TFCOMPAT_CHECKPOINT_FORMAT", "tensorflow")
    prefix = str(tmp_path / "eager.ckpt")
    full = np.arange(14, dtype=np.float32).reshape(7, 2)
    table = v1.get_variable("t", initializer=tf.constant(full),
                            partitioner=v1.fixed_size_partitioner(3))
    v1.train.Saver([table]).save(None, prefix)
    entry = tensor_bundle.BundleReader(prefix).entries["t"]
    assert [[(e.start, e.length) for e in s.extent] for s in entry.slices] == \
        [[(0, 3), (0, 2)], [(3, 2), (0, 2)], [(5, 2), (0, 2)]]
    other = v1.get_variable("t", shape=[7, 2], partitioner=v1.fixed_size_partitioner(2))
    v1.train.Saver({"t": other}).restore(None, prefix)
    np.testing.assert_array_equal(tf.convert_to_tensor(other).numpy(), full)
    plain = tf.Variable(np.zeros((7, 2), np.float32))
    v1.train.Saver({"t": plain}).restore(None, prefix)
    np.testing.assert_array_equal(plain.numpy(), full)


def test_default_glorot_uses_the_full_variables_fans():
    """TF1's VarianceScaling draws each part with the full shape's fans: glorot_uniform's limit
    for [1000, 2] is sqrt(6 / 1002) = 0.077 (a [100, 2] part alone would allow 0.243)."""
    with tf.Graph().as_default():
        table = v1.get_variable("t", shape=[1000, 2], partitioner=v1.fixed_size_partitioner(10))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            values = sess.run(table.as_tensor())
    limit = np.sqrt(6.0 / 1002)
    assert np.abs(values).max() <= limit
    assert np.abs(values).max() > 0.9 * limit


def test_init_from_checkpoint_gives_parts_their_slices():
    with tf.Graph().as_default():
        with v1.variable_scope("new"):
            emb = v1.get_variable("emb", shape=[10, 5], partitioner=v1.fixed_size_partitioner(2))
            w = v1.get_variable("w", shape=[5, 3], partitioner=v1.fixed_size_partitioner(3))
        m = v1.get_variable("m", shape=[10, 5], partitioner=v1.fixed_size_partitioner(4))
        v1.train.init_from_checkpoint(STEP1, {"emb": "new/emb", "dense/w": list(w),
                                              "emb/Adam": m})
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            got = sess.run([emb.as_tensor(), w.as_tensor(), m.as_tensor()])
    for value, key in zip(got, ["emb", "w", "emb_m"]):
        np.testing.assert_array_equal(value, EXPECTED["step1_" + key])


def test_init_from_checkpoint_scope_mapping_with_parts():
    with tf.Graph().as_default():
        with v1.variable_scope("dense"):
            w = v1.get_variable("w", shape=[5, 3], partitioner=v1.fixed_size_partitioner(2))
        v1.train.init_from_checkpoint(STEP1, {"dense/": "dense/"})
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(w.as_tensor()), EXPECTED["step1_w"])


def test_tf_layers_under_a_partitioner_make_partitioned_weights():
    """Names, weights and regularization losses as TF 1.15 gives them (checked with TF)."""
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 6])
        with v1.variable_scope("m", partitioner=v1.fixed_size_partitioner(2)):
            layer = v1.layers.Dense(4, kernel_regularizer=tf.nn.l2_loss)
            y = layer(x)
        assert [v.op.name for v in v1.trainable_variables()] == [
            "m/dense/kernel/part_0", "m/dense/kernel/part_1",
            "m/dense/bias/part_0", "m/dense/bias/part_1"]
        assert [v.name for v in layer.weights] == [v.name for v in v1.trainable_variables()]
        assert isinstance(layer.kernel, PartitionedVariable)
        assert len(v1.losses.get_regularization_losses()) == 1
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            kernel, bias, out = sess.run([layer.kernel.as_tensor(), layer.bias.as_tensor(), y],
                                         {x: np.ones((2, 6), np.float32)})
    # random weights: a float32 sum of six products can cancel to near zero
    np.testing.assert_allclose(out, np.ones((2, 6)) @ kernel + bias, rtol=1e-5, atol=1e-6)


def test_canned_estimators_partition_as_tf(tmp_path, monkeypatch):
    """TF 1.15's canned estimators partition their scopes (one part without parameter
    servers: ".../part_0", saved as a one-slice entry under the full name); a
    LinearRegressor(partitioner=) cuts its weights as asked and still fits."""
    monkeypatch.setenv("TFCOMPAT_CHECKPOINT_FORMAT", "tensorflow")
    x = np.linspace(-1, 1, 40, dtype=np.float32)
    features = {"x": np.stack([x, -x, 2 * x, x * 0], axis=1)}
    y = 2 * x + 1
    regressor = tf.estimator.LinearRegressor(
        [tf.feature_column.numeric_column("x", shape=4)], model_dir=str(tmp_path / "linear"),
        partitioner=v1.fixed_size_partitioner(2),
        optimizer=lambda: v1.train.GradientDescentOptimizer(0.002))
    regressor.train(tf.estimator.inputs.numpy_input_fn(features, y, batch_size=40,
                                                       num_epochs=None, shuffle=False),
                    steps=300)
    weights = regressor.get_variable_value("linear/linear_model/x/weights")
    assert weights.shape == (4, 1)
    assert float(features["x"][5] @ weights[:, 0]) + \
        regressor.get_variable_value("linear/linear_model/bias_weights")[0] == \
        pytest.approx(y[5], abs=0.05)
    checkpoint = tensor_bundle.BundleReader(regressor.latest_checkpoint())
    assert len(checkpoint.entries["linear/linear_model/x/weights"].slices) == 2

    classifier = tf.estimator.DNNClassifier(
        [3], [tf.feature_column.numeric_column("x", shape=4)], model_dir=str(tmp_path / "dnn"))
    classifier.train(tf.estimator.inputs.numpy_input_fn(features, (y > 1).astype(np.int64),
                                                        batch_size=40, shuffle=False), steps=1)
    checkpoint = tensor_bundle.BundleReader(classifier.latest_checkpoint())
    assert len(checkpoint.entries["dnn/hiddenlayer_0/kernel"].slices) == 1
    assert classifier.get_variable_value("dnn/hiddenlayer_0/kernel").shape == (4, 3)


def test_partitions_along_axis_1_round_trip_in_tf_format(tmp_path, monkeypatch):
    monkeypatch.setenv("TFCOMPAT_CHECKPOINT_FORMAT", "tensorflow")
    full = np.arange(15, dtype=np.float32).reshape(3, 5)
    cols = v1.get_variable("cols", initializer=tf.constant(full),
                           partitioner=v1.fixed_size_partitioner(2, axis=1))
    assert [p.shape.as_list() for p in cols] == [[3, 3], [3, 2]]
    np.testing.assert_array_equal(tf.convert_to_tensor(cols).numpy(), full)
    prefix = v1.train.Saver([cols]).save(None, str(tmp_path / "cols.ckpt"))
    entry = tensor_bundle.BundleReader(prefix).entries["cols"]
    assert [[(e.start, e.length) for e in s.extent] for s in entry.slices] == \
        [[(0, 3), (0, 3)], [(0, 3), (3, 2)]]
    rows = v1.get_variable("cols", shape=[3, 5], partitioner=v1.fixed_size_partitioner(3))
    v1.train.Saver([rows]).restore(None, prefix)
    np.testing.assert_array_equal(tf.convert_to_tensor(rows).numpy(), full)


def _sparse_lookup_case():
    full = np.arange(12, dtype=np.float32).reshape(6, 2)
    sp_ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], np.array([1, 4, 2], np.int64), [4, 2])
    sp_weights = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [2.0, 1.0, 3.0], [4, 2])
    mod_row = {i: 3 * (i % 2) + i // 2 for i in range(6)}   # 2 parts of 3 rows, "mod"
    a, b, c = full[mod_row[1]], full[mod_row[4]], full[mod_row[2]]
    zero = np.zeros(2, np.float32)
    expected = {   # TF: (last row with ids + 1) rows, an empty row in between is 0
        "sum": [2 * a + b, zero, 3 * c],
        "mean": [(2 * a + b) / 3, zero, c],
        "sqrtn": [(2 * a + b) / np.sqrt(5.0), zero, c],
        "unweighted mean": [(a + b) / 2, zero, c]}
    return full, sp_ids, sp_weights, expected


def test_embedding_lookup_sparse_over_parts_eager():
    full, sp_ids, sp_weights, expected = _sparse_lookup_case()
    table = v1.get_variable("sparse_table", initializer=tf.constant(full),
                            partitioner=v1.fixed_size_partitioner(2))
    for combiner in ("sum", "mean", "sqrtn"):
        got = v1.nn.embedding_lookup_sparse(table, sp_ids, sp_weights, combiner=combiner)
        np.testing.assert_allclose(got.numpy(), expected[combiner], rtol=1e-6)
    np.testing.assert_allclose(v1.nn.embedding_lookup_sparse(table, sp_ids, None).numpy(),
                               expected["unweighted mean"], rtol=1e-6)
    # v2 is "div": contiguous id ranges, the full table's rows
    np.testing.assert_allclose(
        tf.compat.v2.nn.embedding_lookup_sparse(table, sp_ids, None, combiner="sum").numpy(),
        [full[1] + full[4], np.zeros(2), full[2]])
    with pytest.raises(ValueError, match="combiner"):
        v1.nn.embedding_lookup_sparse(table, sp_ids, None, combiner="max")
    with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
        v1.nn.embedding_lookup_sparse(table, [1, 2], None)


def test_embedding_lookup_sparse_over_parts_in_a_graph_with_gradients():
    full, sp_ids, sp_weights, expected = _sparse_lookup_case()
    with tf.Graph().as_default():
        table = v1.get_variable("table", initializer=tf.constant(full),
                                partitioner=v1.fixed_size_partitioner(2))
        result = v1.nn.embedding_lookup_sparse(table, sp_ids, sp_weights, combiner="mean")
        grads = v1.gradients(tf.reduce_sum(result), list(table))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            got, grad0, grad1 = sess.run([result] + grads)
    np.testing.assert_allclose(got, expected["mean"], rtol=1e-6)
    # d(sum of means)/d(row): weight / row's weight sum; id 4 -> part 0 row 2, id 2 -> part 0
    # row 1, id 1 -> part 1 row 0
    np.testing.assert_allclose(grad0, [[0, 0], [1, 1], [1 / 3, 1 / 3]], rtol=1e-6)
    np.testing.assert_allclose(grad1, [[2 / 3, 2 / 3], [0, 0], [0, 0]], rtol=1e-6)
