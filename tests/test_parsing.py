"""Parsing ops: Example / SequenceExample parsing, decode_raw, decode_csv, read_file."""
import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

import tfcompat as tf
import tfcompat.core.example  # noqa: F401 - until tfcompat/__init__ lists the modules
import tfcompat.io  # noqa: F401
from tfcompat import _api
from tfcompat.framework import errors
from tfcompat.framework.graph import Graph

_api.build_namespaces("tfcompat")


def example(**features):
    def feature(v):
        if isinstance(v[0], bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        if isinstance(v[0], float):
            return tf.train.Feature(float_list=tf.train.FloatList(value=v))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Example(features=tf.train.Features(
        feature={k: feature(v) for k, v in features.items()})).SerializeToString()


FEATURES = {"x": tf.FixedLenFeature([2], tf.float32),
            "label": tf.FixedLenFeature([], tf.int64, default_value=-1),
            "tags": tf.VarLenFeature(tf.string)}


def test_parse_single_example():
    out = tf.parse_single_example(example(x=[1.0, 2.0], tags=[b"a", b"b"]), FEATURES)
    assert out["x"].numpy().tolist() == [1.0, 2.0] and out["x"].dtype == tf.float32
    assert int(out["label"]) == -1 and out["label"].shape.as_list() == []
    assert out["tags"].indices.numpy().tolist() == [[0], [1]]
    assert out["tags"].values.numpy().tolist() == [b"a", b"b"]
    assert out["tags"].dense_shape.numpy().tolist() == [2]


def test_parse_example_batch_and_sequence_feature():
    batch = [example(x=[1.0, 2.0], label=[3], tags=[b"a"]),
             example(x=[3.0, 4.0], tags=[b"b", b"c"], seq=[1, 2, 3, 4])]
    feats = dict(FEATURES, seq=tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True))
    out = tf.io.parse_example(batch, feats)
    assert out["x"].numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert out["label"].numpy().tolist() == [3, -1]
    assert out["tags"].indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1]]
    assert out["tags"].dense_shape.numpy().tolist() == [2, 2]
    assert out["seq"].numpy().tolist() == [[[0, 0], [0, 0]], [[1, 2], [3, 4]]]


@pytest.mark.parametrize("record, match", [
    (example(label=[1]), "Feature: x \\(data type: float\\) is required"),
    (example(x=[1.0]), "Number of float values != expected"),
    (example(x=[1, 2]), "Data types don't match"),
    (b"\xff\xff", "Could not parse example input"),
])
def test_parse_errors(record, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        tf.parse_single_example(record, FEATURES)


def test_parse_single_sequence_example():
    seq = tf.train.SequenceExample(
        context=tf.train.Features(feature={"id": tf.train.Feature(
            int64_list=tf.train.Int64List(value=[7]))}),
        feature_lists=tf.train.FeatureLists(feature_list={"tok": tf.train.FeatureList(feature=[
            tf.train.Feature(int64_list=tf.train.Int64List(value=[i, i + 1]))
            for i in range(3)])})).SerializeToString()
    context, sequence = tf.parse_single_sequence_example(
        seq, context_features={"id": tf.FixedLenFeature([], tf.int64)},
        sequence_features={"tok": tf.FixedLenSequenceFeature([2], tf.int64),
                           "var": tf.VarLenFeature(tf.int64)})
    assert int(context["id"]) == 7
    assert sequence["tok"].numpy().tolist() == [[0, 1], [1, 2], [2, 3]]
    assert sequence["var"].dense_shape.numpy().tolist() == [0, 0]


def test_parsing_in_graph_mode_has_static_shapes():
    graph = Graph()
    with graph.as_default():
        serialized = tf.placeholder(tf.string, [None])
        out = tf.parse_example(serialized, FEATURES)
        assert out["x"].shape.as_list() == [None, 2]
        assert out["tags"].indices.shape.as_list() == [None, 2]
        raw = tf.decode_raw(tf.constant(b"\x01\x02"), tf.uint8)
        assert raw.shape.as_list() == [None]
        with tf.Session() as sess:
            got = sess.run(out, {serialized: [example(x=[1.0, 2.0], label=[5])]})
            assert got["label"].tolist() == [5]
            assert got["tags"].dense_shape.tolist() == [1, 0]
            assert sess.run(raw).tolist() == [1, 2]


def test_decode_raw():
    assert tf.decode_raw(b"\x01\x00\x02\x00", tf.int16).numpy().tolist() == [1, 2]
    assert tf.io.decode_raw(b"\x00\x01", tf.int16, little_endian=False).numpy().tolist() == [1]
    both = tf.decode_raw(tf.constant([b"ab", b"cd"]), tf.uint8)
    assert both.numpy().tolist() == [[97, 98], [99, 100]]
    with pytest.raises(errors.InvalidArgumentError):
        tf.decode_raw(tf.constant([b"ab", b"c"]), tf.uint8)
    with pytest.raises(errors.InvalidArgumentError):
        tf.decode_raw(b"abc", tf.int16)


def test_decode_csv():
    cols = tf.decode_csv(tf.constant(["1,2.5,x", "3,,\"y,z\""]),
                         [[0], [0.0], tf.constant([], tf.string)])
    assert cols[0].numpy().tolist() == [1, 3] and cols[0].dtype == tf.int32
    assert cols[1].numpy().tolist() == [2.5, 0.0]
    assert cols[2].numpy().tolist() == [b"x", b"y,z"]
    with pytest.raises(errors.InvalidArgumentError, match="Expect 2 fields but have 3"):
        tf.decode_csv("1,2,3", [[0], [0]])
    with pytest.raises(errors.InvalidArgumentError, match="Field 1 is required"):
        tf.decode_csv("1,", [[0], tf.constant([], tf.int32)])


def test_read_and_write_file(tmp_path):
    path = str(tmp_path / "f.bin")
    tf.io.write_file(path, b"data")
    assert tf.read_file(path).numpy() == b"data"
    with pytest.raises(errors.NotFoundError):
        tf.io.read_file(str(tmp_path / "none"))


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=60))
def test_fuzz_example_parser_raises_only_tf_errors(data):
    try:
        tf.parse_single_example(data, FEATURES)
    except errors.OpError:
        pass


# ---------------------------------------------------------------- batches of one layout

import numpy as np  # noqa: E402

from tfcompat.io import parsing_ops  # noqa: E402
from tfcompat.io import example_fast_parsing  # noqa: E402
from tfcompat.io.example_fast_parsing import parse_dense  # noqa: E402

# values of a varint length class k (k bytes on the wire); 10 bytes: negative numbers
_VARINT_RANGES = [(0, 127)] + [(1 << (7 * k), (1 << (7 * (k + 1))) - 1) for k in range(1, 9)] \
    + [(-(1 << 63), -1)]


@st.composite
def _layout_batches(draw):
    """Records of one schema whose values keep their byte lengths, and the features."""
    keys = draw(st.lists(st.sampled_from(["a", "b", "img", "label", "w"]), min_size=1,
                         max_size=4, unique=True))
    schema = []
    for key in keys:
        kind = draw(st.sampled_from(["bytes", "float", "int64"]))
        count = draw(st.integers(0, 3))
        classes = [draw(st.integers(0, 4) if kind == "bytes" else st.integers(0, 9))
                   for _ in range(count)]
        schema.append((key, kind, classes))
    records = []
    for _ in range(draw(st.integers(8, 12))):
        features = {}
        for key, kind, classes in schema:
            if kind == "bytes":
                values = [draw(st.binary(min_size=c, max_size=c)) for c in classes]
                features[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
            elif kind == "float":
                values = [draw(st.floats(width=32, allow_nan=False)) for _ in classes]
                features[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
            else:
                values = [draw(st.integers(*_VARINT_RANGES[c])) for c in classes]
                features[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        records.append(tf.train.Example(features=tf.train.Features(feature=features))
                       .SerializeToString())
    dtypes_ = {"bytes": tf.string, "float": tf.float32, "int64": tf.int64}
    specs = {key: tf.io.FixedLenFeature([len(classes)], dtypes_[kind])
             for key, kind, classes in schema}
    return records, specs


def _one_by_one(records, features):
    outs = [tf.io.parse_single_example(r, features) for r in records]
    return {k: np.stack([o[k].numpy() for o in outs]) for k in features}


@settings(max_examples=60, deadline=None)
@given(_layout_batches())
def test_fuzz_layout_parsing_equals_protobuf_parsing(batch):
    records, features = batch
    assert len(set(map(len, records))) == 1
    example_fast_parsing._layouts.clear()    # no length left to skip by earlier cases
    assert parse_dense(records, parsing_ops._specs(features)) is not None   # the fast path
    got = tf.io.parse_example(records, features)
    want = _one_by_one(records, features)
    for key in features:
        np.testing.assert_array_equal(got[key].numpy(), want[key])
        assert got[key].dtype == features[key].dtype


def _int_example(**features):
    return tf.train.Example(features=tf.train.Features(feature={
        k: tf.train.Feature(int64_list=tf.train.Int64List(value=v))
        for k, v in features.items()})).SerializeToString()


@pytest.mark.parametrize("records, count", [
    # same lengths, the varints' extents differ: [1, 200] vs [200, 1]
    ([_int_example(v=[1, 200])] * 5 + [_int_example(v=[200, 1])] * 5, 2),
    # same lengths, another key (the default fills in)
    ([_int_example(v=[1, 2])] * 5 + [_int_example(w=[1, 2])] * 5, 2),
    # labels crossing 127: two lengths, parsed per group and put back in order
    ([_int_example(v=[i * 40, 7]) for i in range(12)], 2),
    # more lengths than groups are worth it
    ([_int_example(v=[1 << (7 * i)]) for i in range(9)] * 2, 1),
])
def test_layout_parsing_falls_back_or_regroups(records, count):
    features = {"v": tf.io.FixedLenFeature([count], tf.int64, default_value=[9] * count)}
    got = tf.io.parse_example(records, features)["v"].numpy()
    assert got.tolist() == _one_by_one(records, features)["v"].tolist()


def test_layout_parsing_defaults_and_errors_match_protobuf():
    records = [example(x=[float(i), 2.0], tags=[b"t"]) for i in range(10)]
    out = tf.io.parse_example(records, {"x": tf.FixedLenFeature([2], tf.float32),
                                        "label": tf.FixedLenFeature([], tf.int64, -1),
                                        "name": tf.FixedLenFeature([1], tf.string, b"?")})
    assert out["x"].numpy()[:, 0].tolist() == list(range(10))
    assert out["label"].numpy().tolist() == [-1] * 10
    assert out["name"].numpy().tolist() == [[b"?"]] * 10
    with pytest.raises(errors.InvalidArgumentError, match="Feature: label .* is required"):
        tf.io.parse_example(records, {"label": tf.FixedLenFeature([], tf.int64)})
    with pytest.raises(errors.InvalidArgumentError, match="Data types don't match"):
        tf.io.parse_example(records, {"x": tf.FixedLenFeature([2], tf.int64)})
    with pytest.raises(errors.InvalidArgumentError, match="Number of float values"):
        tf.io.parse_example(records, {"x": tf.FixedLenFeature([3], tf.float32)})
    with pytest.raises(errors.InvalidArgumentError, match="Could not parse example input"):
        tf.io.parse_example(records[:9] + [b"\xff" * len(records[0])],
                            {"x": tf.FixedLenFeature([2], tf.float32)})


def test_layout_walker_leaves_unusual_wire_formats_to_protobuf():
    base = example(x=[1.0, 2.0])
    twice = base + base      # the features field twice: protobuf merges the maps
    unknown = base + b"\x10\x01"   # an unknown field of Example
    for record in (twice, unknown):
        out = tf.io.parse_example([record] * 10, {"x": tf.FixedLenFeature([2], tf.float32)})
        assert out["x"].numpy().tolist() == [[1.0, 2.0]] * 10
        assert parse_dense([record] * 10, parsing_ops._specs(
            {"x": tf.FixedLenFeature([2], tf.float32)})) is None


def test_lengths_without_a_common_layout_are_skipped_for_a_while():
    mixed = [_int_example(v=[1, 200])] * 5 + [_int_example(v=[200, 1])] * 5
    specs = parsing_ops._specs({"v": tf.io.FixedLenFeature([2], tf.int64)})
    example_fast_parsing._layouts.clear()
    assert parse_dense(mixed, specs) is None
    same = [_int_example(v=[1, 200])] * 10
    skipped = [parse_dense(same, specs) is None for _ in range(example_fast_parsing._SKIPS + 1)]
    assert skipped == [True] * example_fast_parsing._SKIPS + [False]
