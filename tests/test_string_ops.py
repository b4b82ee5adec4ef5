"""String ops on numpy object arrays of bytes, with TF's results and errors."""
import sys

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

v1 = tf.compat.v1
v2 = sys.modules["tfcompat.compat.v2"]  # tf.compat.v2 is not an attribute yet


def _b(*items):
    return [i.encode("utf-8") for i in items]


CASES = [
    ("join", lambda: tf.strings.join(["a", tf.constant(["b", "c"])], separator="-"),
     _b("a-b", "a-c")),
    ("string_join", lambda: v1.string_join([["x", "y"], ["1", "2"]]), _b("x1", "y2")),
    ("length", lambda: tf.strings.length(["abc", "", "é"]), [3, 0, 2]),
    ("length_utf8", lambda: v2.strings.length(["é", "ab"], "UTF8_CHAR"), [1, 2]),
    ("length_v1", lambda: v1.strings.length(["é"], None, "UTF8_CHAR"), [1]),
    ("lower", lambda: tf.strings.lower(["AbC", "É"]), [b"abc", "É".encode("utf-8")]),
    ("lower_utf8", lambda: tf.strings.lower(["É"], encoding="utf-8"), _b("é")),
    ("upper", lambda: tf.strings.upper("abc"), b"ABC"),
    ("strip", lambda: tf.strings.strip([" a b \n", "\tc"]), _b("a b", "c")),
    ("string_strip", lambda: v1.string_strip("  x"), b"x"),
    ("to_number", lambda: tf.strings.to_number(["1.5", " -2", "1e3", "inf"]),
     np.array([1.5, -2, 1000, np.inf], np.float32)),
    ("to_number_int", lambda: tf.strings.to_number(["7", "+3"], out_type=tf.int32),
     np.array([7, 3], np.int32)),
    ("string_to_number", lambda: v1.string_to_number(string_tensor=["2"], out_type=tf.int64),
     np.array([2], np.int64)),
    ("as_string_float", lambda: tf.as_string([1.5, -2.0]), _b("1.500000", "-2.000000")),
    ("as_string_precision", lambda: tf.strings.as_string(3.14159, precision=2), b"3.14"),
    ("as_string_int_width", lambda: tf.as_string([3, 42], width=4, fill="0"), _b("0003", "0042")),
    ("as_string_sci", lambda: tf.as_string(1234.5, scientific=True), b"1.234500e+03"),
    ("as_string_shortest", lambda: tf.as_string(0.5, shortest=True), b"0.5"),
    ("as_string_bool", lambda: tf.as_string([True, False]), _b("true", "false")),
    ("as_string_dtypes_path", lambda: v1.dtypes.as_string(7), b"7"),
    ("regex_replace", lambda: tf.strings.regex_replace(["hello world"], "o", "0"),
     _b("hell0 w0rld")),
    ("regex_replace_groups", lambda: v1.regex_replace("ab12", r"([a-z]+)(\d+)", r"\2-\1"),
     b"12-ab"),
    ("regex_replace_whole", lambda: tf.strings.regex_replace("abc", "b", r"<\0>"), b"a<b>c"),
    ("regex_replace_first", lambda: tf.strings.regex_replace("aaa", "a", "b",
                                                             replace_global=False), b"baa"),
    ("substr", lambda: tf.strings.substr(["hello", "world"], 1, 3), _b("ell", "orl")),
    ("substr_negative_pos", lambda: tf.strings.substr("hello", -3, 2), b"ll"),
    ("substr_long_len", lambda: tf.strings.substr("abc", 1, 10), b"bc"),
    ("substr_vector_pos", lambda: tf.strings.substr(["abc", "xyz"], [0, 1], [1, 2]),
     _b("a", "yz")),
    ("substr_utf8", lambda: v2.strings.substr("héllo", 1, 2, unit="UTF8_CHAR"), _b("él")[0]),
    ("substr_v1", lambda: v1.substr("hello", 0, 2, None, "BYTE"), b"he"),
    ("reduce_join", lambda: tf.strings.reduce_join([["a", "b"], ["c", "d"]]), b"abcd"),
    ("reduce_join_axis", lambda: tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1,
                                                        separator=","), _b("a,b", "c,d")),
    ("reduce_join_axis0_keepdims", lambda: v2.strings.reduce_join(
        [["a", "b"], ["c", "d"]], 0, True), [_b("ac", "bd")]),
    ("reduce_join_v1", lambda: v1.reduce_join([["a", "b"], ["c", "d"]], reduction_indices=-1,
                                              keep_dims=True), [[b"ab"], [b"cd"]]),
]


@pytest.mark.parametrize("name,call,expected", CASES, ids=[c[0] for c in CASES])
def test_string_ops(name, call, expected):
    result = call()
    value = result.numpy()
    if isinstance(expected, np.ndarray):
        assert value.dtype == expected.dtype
        np.testing.assert_array_equal(value, expected)
    elif isinstance(expected, bytes):
        assert value == expected and result.dtype == tf.string
    else:
        assert np.asarray(value).tolist() == expected


def test_string_split_v1_sparse():
    sp = v1.string_split(["a b", "c  d e", ""])
    assert sp.indices.numpy().tolist() == [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]]
    assert sp.values.numpy().tolist() == _b("a", "b", "c", "d", "e")
    assert sp.dense_shape.numpy().tolist() == [3, 3]
    sp = v1.string_split(["a,b;c"], sep=",;")
    assert sp.values.numpy().tolist() == _b("a", "b", "c")
    sp = v1.string_split(["a,,b"], ",", skip_empty=False)
    assert sp.values.numpy().tolist() == _b("a", "", "b")
    sp = v1.string_split(["ab"], "")
    assert sp.values.numpy().tolist() == _b("a", "b")
    dense = tf.sparse.to_dense(v1.string_split(["a b", "c"]), default_value="")
    assert dense.numpy().tolist() == [_b("a", "b"), _b("c", "")]


def test_strings_split_v1_and_v2():
    sp = v1.strings.split(["a  b c", "d"])
    assert sp.values.numpy().tolist() == _b("a", "b", "c", "d")
    assert sp.dense_shape.numpy().tolist() == [2, 3]
    sp = v1.strings.split(["a,,b"], sep=",", maxsplit=1)
    assert sp.values.numpy().tolist() == _b("a", ",b")
    sp = v1.strings.split([["a b"], ["c"]])
    assert sp.indices.numpy().tolist() == [[0, 0, 0], [0, 0, 1], [1, 0, 0]]
    assert v2.strings.split(["a b"]).to_list() == [_b("a", "b")]        # a RaggedTensor
    assert v1.strings.split(["a b"], result_type="RaggedTensor").to_list() == [_b("a", "b")]
    with pytest.raises(NotImplementedError, match="rank > 1"):
        v1.strings.split([["a b"]], result_type="RaggedTensor")


ERRORS = [
    ("to_number_text", lambda: tf.strings.to_number(["abc"]), errors.InvalidArgumentError,
     "StringToNumberOp could not correctly convert string: abc"),
    ("to_number_int_float", lambda: tf.strings.to_number(["1.5"], tf.int32),
     errors.InvalidArgumentError, "could not correctly convert"),
    ("to_number_overflow", lambda: tf.strings.to_number(["3000000000"], tf.int32),
     errors.InvalidArgumentError, "could not correctly convert"),
    ("join_shapes", lambda: tf.strings.join([["a", "b"], ["a", "b", "c"]]),
     errors.InvalidArgumentError, "same shape"),
    ("length_numeric", lambda: tf.strings.length(tf.constant([1])), TypeError, "string"),
    ("substr_pos", lambda: tf.strings.substr("abc", 5, 1), errors.InvalidArgumentError,
     "out of range"),
    ("as_string_int_precision", lambda: tf.as_string(3, precision=2),
     errors.InvalidArgumentError, "floating point"),
    ("as_string_fill", lambda: tf.as_string(3.0, fill="x"), errors.InvalidArgumentError,
     "Fill argument"),
    ("regex_bad", lambda: tf.strings.regex_replace("a", "(", "b"), errors.InvalidArgumentError,
     "Invalid pattern"),
    ("string_split_rank", lambda: v1.string_split([["a"]]), errors.InvalidArgumentError,
     "vector"),
]


@pytest.mark.parametrize("name,call,error,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_exported_paths_are_tf_paths():
    from tfcompat import _api
    for table in (_api._COMMON, _api._V1, _api._V2):
        for path, obj in table.items():
            if getattr(obj, "__module__", None) in ("tfcompat.ops.string_ops",
                                                    "tfcompat.ops.sparse_ops"):
                assert _api.is_tf_symbol(path), path


def test_base64_is_web_safe_and_unpadded_by_default():
    # Values from TF 2.21: tf.io.encode_base64([b'hello?>', b'', b'ab']) and decode_base64.
    data = tf.constant([b"hello?>", b"", b"ab"])
    assert list(tf.io.encode_base64(data).numpy()) == [b"aGVsbG8_Pg", b"", b"YWI"]
    padded = tf.io.encode_base64(data, pad=True)
    assert list(padded.numpy()) == [b"aGVsbG8_Pg==", b"", b"YWI="]
    assert list(tf.io.decode_base64(padded).numpy()) == [b"hello?>", b"", b"ab"]
    assert tf.compat.v1.encode_base64(b"hi").numpy() == b"aGk"
    assert tf.compat.v1.decode_base64(tf.constant([[b"aGk"]])).numpy().tolist() == [[b"hi"]]
    for bad, message in [(b"a", "1 modulo 4"), (b"ab+c", "Invalid character"),
                         (b"abc=d", "Invalid character"), (b"a===", "Invalid character")]:
        with pytest.raises(errors.InvalidArgumentError, match=message):
            tf.io.decode_base64(bad)


def test_as_string_of_a_graph_tensor_formats_when_run():
    with tf.Graph().as_default():
        n = tf.compat.v1.placeholder(tf.int32, [None])
        text = tf.as_string(n * 2)
        assert text.dtype == tf.string and text.shape.as_list() == [None]
        floats = tf.strings.as_string(tf.constant([1.5, 2.25]), precision=1)
        with tf.compat.v1.Session() as sess:
            assert list(sess.run(text, {n: [1, 12]})) == [b"2", b"24"]
            assert list(sess.run(floats)) == [b"1.5", b"2.2"]
