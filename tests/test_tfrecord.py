"""TFRecord files: TF's framing, compression, CRC checks, fixtures written by TensorFlow."""
import json
import os

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import tfcompat as tf
import tfcompat.core.example  # noqa: F401 - until tfcompat/__init__ lists the modules
import tfcompat.data  # noqa: F401
import tfcompat.io  # noqa: F401
from tfcompat import _api
from tfcompat.framework import errors
from tfcompat.io.tf_record import read_records

_api.build_namespaces("tfcompat")
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "tfrecord")


def test_fixture_records_rewrite_byte_identical(tmp_path):
    original = os.path.join(FIXTURES, "examples.tfrecord")
    records = list(tf.python_io.tf_record_iterator(original))
    assert len(records) == 20
    out = str(tmp_path / "copy.tfrecord")
    with tf.io.TFRecordWriter(out) as writer:
        for r in records:
            writer.write(r)
    assert open(out, "rb").read() == open(original, "rb").read()
    gz = list(tf.python_io.tf_record_iterator(os.path.join(FIXTURES, "examples.tfrecord.gz"),
                                              tf.python_io.TFRecordOptions("GZIP")))
    assert gz == records


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_roundtrip_with_compression_and_dataset(tmp_path, compression):
    paths = []
    for f in range(2):
        path = str(tmp_path / ("f%d.tfrecord" % f))
        with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression)) as w:
            for i in range(5):
                w.write(b"file%d-rec%d" % (f, i))
        paths.append(path)
    ds = tf.data.TFRecordDataset(paths, compression_type=compression)
    assert [r.numpy() for r in ds] == [b"file%d-rec%d" % (f, i) for f in range(2)
                                      for i in range(5)]
    par = tf.data.TFRecordDataset(paths, compression_type=compression, num_parallel_reads=2)
    assert [r.numpy() for r in par][:4] == [b"file0-rec0", b"file1-rec0", b"file0-rec1",
                                            b"file1-rec1"]


def test_fixture_parses_to_expected_json():
    expected = json.load(open(os.path.join(FIXTURES, "expected.json")))
    features = {"id": tf.FixedLenFeature([], tf.int64), "vec": tf.FixedLenFeature([3], tf.float32),
                "name": tf.FixedLenFeature([], tf.string), "tags": tf.VarLenFeature(tf.int64)}
    ds = tf.data.TFRecordDataset(os.path.join(FIXTURES, "examples.tfrecord.gz"), "GZIP")
    ds = ds.map(lambda r: tf.parse_single_example(r, features))
    for got, want in zip(ds, expected):
        assert int(got["id"]) == want["id"]
        assert got["vec"].numpy().tolist() == want["vec"]
        assert got["name"].numpy().decode() == want["name"]
        assert tf.sparse.to_dense(got["tags"]).numpy().tolist() == want["tags"]


def _write(path, records):
    with tf.io.TFRecordWriter(path) as w:
        for r in records:
            w.write(r)


def test_corrupted_and_truncated_records_raise_data_loss(tmp_path):
    path = str(tmp_path / "x.tfrecord")
    _write(path, [b"hello", b"world"])
    data = bytearray(open(path, "rb").read())
    flipped = bytearray(data)
    flipped[16 + 5 + 12 + 2] ^= 0x01  # a data byte of the second record
    open(path, "wb").write(bytes(flipped))
    with pytest.raises(errors.DataLossError, match="corrupted record at 21 in .*x.tfrecord"):
        list(tf.data.TFRecordDataset(path))
    open(path, "wb").write(bytes(data[:-3]))
    it = iter(tf.data.TFRecordDataset(path))
    assert next(it).numpy() == b"hello"
    with pytest.raises(errors.DataLossError, match="truncated record at 21"):
        next(it)
    flipped = bytearray(data)
    flipped[3] ^= 0x40  # the length
    open(path, "wb").write(bytes(flipped))
    with pytest.raises(errors.DataLossError):
        list(tf_record_records(path))
    with pytest.raises(errors.NotFoundError):
        list(tf.data.TFRecordDataset(str(tmp_path / "missing.tfrecord")))


def tf_record_records(path):
    return tf.python_io.tf_record_iterator(path)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=80))
def test_fuzz_reader_raises_only_tf_errors(data):
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".tfrecord", delete=False) as f:
        f.write(data)
    try:
        for compression in ("", "GZIP", "ZLIB"):
            try:
                list(read_records(f.name, compression))
            except errors.OpError:
                pass
    finally:
        os.remove(f.name)


def test_text_and_fixed_length_datasets(tmp_path):
    text = tmp_path / "a.txt"
    text.write_bytes(b"one\r\ntwo\nthree")
    assert [x.numpy() for x in tf.data.TextLineDataset(str(text))] == [b"one", b"two", b"three"]
    assert [x.numpy().tolist() for x in tf.data.TextLineDataset([str(text)] * 2).batch(4)] == \
        [[b"one", b"two", b"three", b"one"], [b"two", b"three"]]
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"HH" + b"abcdef" + b"F")
    ds = tf.data.FixedLengthRecordDataset(str(binary), 3, header_bytes=2, footer_bytes=1)
    assert [x.numpy() for x in ds] == [b"abc", b"def"]
    assert [x.numpy().tolist() for x in ds.batch(3)] == [[b"abc", b"def"]]
    with pytest.raises(errors.InvalidArgumentError):
        list(tf.data.FixedLengthRecordDataset(str(binary), 4))


def test_crc32c_known_values():
    from tfcompat.io import crc32c
    assert crc32c.crc32c(b"123456789") == 0xE3069283
    assert crc32c.masked_crc(b"") == ((((0 >> 15) | (0 << 17)) + 0xA282EAD8) & 0xFFFFFFFF)
    assert np.uint32(crc32c.masked_crc(b"a"))


def _framed(records):
    from tfcompat.io.tf_record import encode_record
    return b"".join(encode_record(r) for r in records)


@pytest.mark.parametrize("records", [
    [b"%04d" % i for i in range(50)],                               # one run of equal lengths
    [b"x" * (i % 3) for i in range(40)],                            # lengths keep changing
    [b"a" * 20] * 12 + [b"bb"] + [b"c" * 20] * 30 + [b""] * 9,       # runs, breaks, empties
    [b"big" * 500_000, b"small", b"big" * 500_000],                 # records over a block
])
def test_block_reader_matches_the_framing(tmp_path, records):
    path = str(tmp_path / "r.tfrecord")
    _write(path, records)
    assert list(read_records(path)) == records
    assert list(tf.python_io.tf_record_iterator(path)) == records
    gz = str(tmp_path / "r.tfrecord.gz")
    _write_gz = tf.io.TFRecordWriter(gz, tf.io.TFRecordOptions("GZIP"))
    with _write_gz as w:
        for r in records:
            w.write(r)
    assert list(read_records(gz, "GZIP")) == records


@pytest.mark.parametrize("damage, match", [
    (lambda data: data.__setitem__(30 * 20 + 12 + 3, data[30 * 20 + 12 + 3] ^ 1),
     "corrupted record at 600 .*data's CRC"),         # data byte of record 30 in a run
    (lambda data: data.__setitem__(31 * 20 + 2, data[31 * 20 + 2] ^ 4),
     "corrupted record at 620 .*length's CRC"),       # length of record 31 in a run
    (lambda data: data.__setitem__(31 * 20 + 9, data[31 * 20 + 9] ^ 4),
     "corrupted record at 620 .*length's CRC"),       # the length's CRC itself
])
def test_damage_inside_a_run_of_equal_records(tmp_path, damage, match):
    path = str(tmp_path / "r.tfrecord")
    records = [b"%04d" % i for i in range(50)]      # 20 bytes framed each
    data = bytearray(_framed(records))
    damage(data)
    open(path, "wb").write(bytes(data))
    got = []
    with pytest.raises(errors.DataLossError, match=match):
        for record in read_records(path):
            got.append(record)
    assert got == records[:len(got)] and len(got) in (30, 31)


def test_dataset_chunks_span_files_and_batches(tmp_path):
    paths = []
    for f in range(3):
        path = str(tmp_path / ("f%d.tfrecord" % f))
        _write(path, [b"%d-%02d" % (f, i) for i in range(7)])
        paths.append(path)
    want = [b"%d-%02d" % (f, i) for f in range(3) for i in range(7)]
    batches = [b.numpy().tolist() for b in tf.data.TFRecordDataset(paths).batch(4)]
    assert batches == [want[i:i + 4] for i in range(0, 21, 4)]
    dropped = [b.numpy().tolist() for b in tf.data.TFRecordDataset(paths).batch(4, True)]
    assert dropped == [want[i:i + 4] for i in range(0, 20, 4)]
    data = bytearray(open(paths[1], "rb").read())
    data[-1] ^= 1
    open(paths[1], "wb").write(bytes(data))
    it = iter(tf.data.TFRecordDataset(paths).batch(4))
    assert [next(it).numpy().tolist() for _ in range(3)] == [want[:4], want[4:8], want[8:12]]
    with pytest.raises(errors.DataLossError, match="f1.tfrecord"):
        next(it)    # the batch holding the damaged last record of the second file


def _reference_read(data):
    """TF's framing read one record at a time: (records, offset of the damage or None)."""
    import struct
    from tfcompat.io.crc32c import masked_crc
    records, pos = [], 0
    while pos < len(data):
        if len(data) - pos < 12:
            return records, pos
        length, length_crc = struct.unpack_from("<QI", data, pos)
        if masked_crc(data[pos:pos + 8]) != length_crc or pos + 16 + length > len(data):
            return records, pos
        record = data[pos + 12:pos + 12 + length]
        if masked_crc(record) != struct.unpack_from("<I", data, pos + 12 + length)[0]:
            return records, pos
        records.append(record)
        pos += 16 + length
    return records, None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([b"", b"ab", b"cdef", b"0123456789"]), max_size=60),
       st.integers(min_value=0), st.integers(min_value=0, max_value=7))
def test_fuzz_block_reader_agrees_with_one_by_one_reading(records, where, bit):
    import tempfile
    data = bytearray(_framed(records))
    if data:
        data[where % len(data)] ^= 1 << bit
    want, damaged_at = _reference_read(bytes(data))
    with tempfile.NamedTemporaryFile(suffix=".tfrecord", delete=False) as f:
        f.write(bytes(data))
    got = []
    try:
        if damaged_at is None:
            assert list(read_records(f.name)) == want
        else:
            with pytest.raises(errors.DataLossError, match="at %d in" % damaged_at):
                for record in read_records(f.name):
                    got.append(record)
            assert got == want
    finally:
        os.remove(f.name)
