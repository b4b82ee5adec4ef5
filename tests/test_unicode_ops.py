"""tf.strings.unicode_* ops and the unit= argument of length/substr, against the values
TF documents (its docstrings and the r1 unicode tutorial) and ICU's rules."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

GOODNIGHT = [u"G\xf6\xf6dnight".encode("utf-8"), u"\U0001f60a".encode("utf-8")]
GOODNIGHT_CODES = [[71, 246, 246, 100, 110, 105, 103, 104, 116], [128522]]
GOODNIGHT_OFFSETS = [[0, 1, 3, 5, 6, 7, 8, 9, 10], [0]]


def _decode(data, encoding="UTF-8", **kwargs):
    return tf.strings.unicode_decode(data, encoding, **kwargs).numpy().tolist()


def test_decode_docstring_example():
    result = tf.strings.unicode_decode(GOODNIGHT, "UTF-8")
    assert isinstance(result, tf.RaggedTensor)
    assert result.to_list() == GOODNIGHT_CODES
    assert result.dtype == tf.int32


def test_decode_with_offsets_docstring_example():
    codes, offsets = tf.strings.unicode_decode_with_offsets(GOODNIGHT, "UTF-8")
    assert codes.to_list() == GOODNIGHT_CODES
    assert offsets.to_list() == GOODNIGHT_OFFSETS
    assert offsets.dtype == tf.int64


def test_decode_empty_inputs():
    assert tf.strings.unicode_decode([], "UTF-8").to_list() == []
    assert tf.strings.unicode_decode(["", "a"], "UTF-8").to_list() == [[], [97]]
    assert tf.strings.unicode_decode(b"", "UTF-8").numpy().tolist() == []
    assert tf.strings.unicode_encode(tf.zeros([2, 0], tf.int32), "UTF-8").numpy().tolist() \
        == [b"", b""]


def test_decode_scalar_is_dense():
    result = tf.strings.unicode_decode(u"语言处理", "UTF-8")
    assert not isinstance(result, tf.RaggedTensor)
    assert result.numpy().tolist() == [35821, 35328, 22788, 29702]


def test_decode_tutorial_emoji_offsets():
    codes, offsets = tf.strings.unicode_decode_with_offsets(u"🎈🎉🎊", "UTF-8")
    assert codes.numpy().tolist() == [127880, 127881, 127882]
    assert offsets.numpy().tolist() == [0, 4, 8]


def test_decode_rank_2_input_gives_rank_3_ragged():
    result = tf.strings.unicode_decode([["ab", "c"], ["", "d"]], "UTF-8")
    assert result.ragged_rank == 2
    assert result.to_list() == [[[97, 98], [99]], [[], [100]]]


def test_decode_ragged_input_keeps_its_rows():
    strings = tf.RaggedTensor.from_row_splits(["ab", "c", "d"], [0, 2, 3])
    assert tf.strings.unicode_decode(strings, "UTF-8").to_list() == [[[97, 98], [99]], [[100]]]


@pytest.mark.parametrize("encoding,codec", [("UTF-16-BE", "utf-16-be"),
                                            ("UTF-32-BE", "utf-32-be"),
                                            ("UTF-16LE", "utf-16-le")])
def test_decode_utf16_utf32(encoding, codec):
    text = u"a语😊"
    codes, offsets = tf.strings.unicode_decode_with_offsets([text.encode(codec)], encoding)
    assert codes.to_list() == [[97, 35821, 128522]]
    unit = 4 if "32" in encoding else 2
    assert offsets.to_list() == [[0, unit, 2 * unit]]


def test_decode_accepts_icu_encoding_aliases():
    assert _decode(b"ab", "utf8") == [97, 98]
    assert _decode(b"\xe9", "ISO-8859-1") == [233]


def test_decode_unsupported_input_encoding_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="unicode_decode"):
        tf.strings.unicode_decode(b"ab", "Shift_JIS")


def test_decode_replace_ignore_strict():
    assert _decode(b"\xffab") == [65533, 97, 98]
    assert _decode(b"\xffab", replacement_char=63) == [63, 97, 98]
    codes, offsets = tf.strings.unicode_decode_with_offsets(b"\xffab", "UTF-8",
                                                            errors="ignore")
    assert codes.numpy().tolist() == [97, 98]
    assert offsets.numpy().tolist() == [1, 2]
    with pytest.raises(errors.InvalidArgumentError, match="Invalid formatting"):
        tf.strings.unicode_decode([b"ok", b"\xffab"], "UTF-8", errors="strict")


def test_decode_malformed_subsequences_as_icu():
    # one replacement per maximal ill-formed subsequence (Unicode / ICU practice)
    codes, offsets = tf.strings.unicode_decode_with_offsets(b"\xe4\xb8a\xf0\x9f\x98", "UTF-8")
    assert codes.numpy().tolist() == [65533, 97, 65533]
    assert offsets.numpy().tolist() == [0, 2, 3]
    assert _decode(b"\xc0\x80") == [65533, 65533]             # overlong: each byte
    assert _decode(b"\xed\xa0\x80") == [65533] * 3            # encoded surrogate
    assert _decode(b"\xd8\x00\x00A", "UTF-16-BE") == [65533, 65]   # lone surrogate


def test_decode_replace_control_characters():
    assert _decode(b"a\x01b\n") == [97, 1, 98, 10]
    assert _decode(b"a\x01b", replace_control_characters=True) == [97, 65533, 98]
    assert _decode(b"a\x01b", replace_control_characters=True, errors="ignore") == [97, 98]
    # 'strict' replaces control characters; only malformed input raises
    assert _decode(b"a\x01", replace_control_characters=True, errors="strict") == [97, 65533]


def test_decode_bad_attributes():
    with pytest.raises(errors.InvalidArgumentError, match="errors policy"):
        tf.strings.unicode_decode(b"a", "UTF-8", errors="bogus")
    with pytest.raises(errors.InvalidArgumentError, match="replacement_char"):
        tf.strings.unicode_decode(b"a", "UTF-8", replacement_char=0x110000)


def test_encode_docstring_example():
    codes = tf.RaggedTensor.from_row_splits(sum(GOODNIGHT_CODES, []), [0, 9, 10])
    result = tf.strings.unicode_encode(codes, "UTF-8")
    assert result.numpy().tolist() == [b"G\xc3\xb6\xc3\xb6dnight", b"\xf0\x9f\x98\x8a"]


def test_encode_dense_ranks():
    rows = [[99, 97, 116], [100, 111, 103], [99, 111, 119]]
    assert tf.strings.unicode_encode(rows, "UTF-8").numpy().tolist() == [b"cat", b"dog", b"cow"]
    scalar = tf.strings.unicode_encode([35821, 35328, 22788, 29702], "UTF-8")
    assert scalar.shape.as_list() == [] and scalar.numpy() == u"语言处理".encode("utf-8")
    cube = tf.strings.unicode_encode([[[97, 98], [99, 100]]], "UTF-16-BE")
    assert cube.numpy().tolist() == [[b"\x00a\x00b", b"\x00c\x00d"]]
    with pytest.raises(ValueError, match="at least 1"):
        tf.strings.unicode_encode(97, "UTF-8")


def test_encode_tutorial_round_trips():
    batch = [s.encode("UTF-8") for s in [u"hÃllo", u"What is the weather tomorrow",
                                         u"Göödnight", u"😊"]]
    ragged = tf.strings.unicode_decode(batch, input_encoding="UTF-8")
    assert tf.strings.unicode_encode(ragged, output_encoding="UTF-8").numpy().tolist() == batch
    padded = ragged.to_tensor(default_value=-1)
    again = tf.RaggedTensor.from_tensor(padded, padding=-1)
    assert tf.strings.unicode_encode(again, "UTF-8").numpy().tolist() == batch


def test_encode_utf16_utf32_and_ragged_rank_2():
    codes = tf.RaggedTensor.from_row_splits(
        tf.RaggedTensor.from_row_splits([97, 128522, 98], [0, 2, 3]), [0, 1, 2])
    result = tf.strings.unicode_encode(codes, "UTF-32-BE")
    assert result.to_list() == [[b"\x00\x00\x00a\x00\x01\xf6\x0a"], [b"\x00\x00\x00b"]]
    assert tf.strings.unicode_encode([128522], "UTF-16-BE").numpy() == b"\xd8\x3d\xde\x0a"


def test_encode_invalid_code_points():
    bad = [97, 0x110000, 0xD800, 0xFFFF, -5]
    assert tf.strings.unicode_encode(bad, "UTF-8").numpy() == b"a" + b"\xef\xbf\xbd" * 4
    assert tf.strings.unicode_encode(bad, "UTF-8", replacement_char=63).numpy() == b"a????"
    with pytest.raises(errors.InvalidArgumentError, match="out of range for Unicode"):
        tf.strings.unicode_encode(bad, "UTF-8", errors="strict")
    # 'ignore' drops what is out of range; ICU keeps the noncharacter
    assert tf.strings.unicode_encode([97, 0x110000, 0xFFFF], "UTF-8",
                                     errors="ignore").numpy() == b"a\xef\xbf\xbf"


def test_encode_output_encoding_must_be_one_of_three():
    with pytest.raises(errors.InvalidArgumentError, match="Invalid encoding"):
        tf.strings.unicode_encode([97], "UTF8")


def test_split_docstring_examples():
    assert tf.strings.unicode_split(GOODNIGHT, "UTF-8").to_list() == [
        [b"G", b"\xc3\xb6", b"\xc3\xb6", b"d", b"n", b"i", b"g", b"h", b"t"],
        [b"\xf0\x9f\x98\x8a"]]
    chars, offsets = tf.strings.unicode_split_with_offsets(GOODNIGHT, "UTF-8")
    assert chars.to_list()[1] == [b"\xf0\x9f\x98\x8a"]
    assert offsets.to_list() == GOODNIGHT_OFFSETS


def test_split_scalar_and_malformed_input():
    thanks = u"Thanks 😊".encode("UTF-8")
    assert tf.strings.unicode_split(thanks, "UTF-8").numpy().tolist() == \
        [b"T", b"h", b"a", b"n", b"k", b"s", b" ", b"\xf0\x9f\x98\x8a"]
    assert tf.strings.unicode_split(b"a\xff", "UTF-8").numpy().tolist() == \
        [b"a", b"\xef\xbf\xbd"]


def test_transcode_docstring_examples():
    result = tf.strings.unicode_transcode(["Hello", "World"], "UTF-8", "UTF-16-BE")
    assert result.numpy().tolist() == [b"\x00H\x00e\x00l\x00l\x00o", b"\x00W\x00o\x00r\x00l\x00d"]
    assert tf.strings.unicode_transcode(["A", "B", "C"], "US ASCII", "UTF-8").numpy().tolist() \
        == [b"A", b"B", b"C"]
    tutorial = tf.strings.unicode_transcode(u"语言处理", input_encoding="UTF8",
                                            output_encoding="UTF-16-BE")
    assert tutorial.numpy() == u"语言处理".encode("UTF-16-BE")


def test_transcode_errors():
    assert tf.strings.unicode_transcode(b"a\xffb", "UTF-8", "UTF-8").numpy() == \
        b"a\xef\xbf\xbdb"
    assert tf.strings.unicode_transcode(b"a\xffb", "UTF-8", "UTF-8",
                                        errors="ignore").numpy() == b"ab"
    with pytest.raises(errors.InvalidArgumentError, match="Invalid formatting"):
        tf.strings.unicode_transcode(b"a\xffb", "UTF-8", "UTF-8", errors="strict")
    # unlike decode, transcode's 'strict' also rejects replaced control characters
    with pytest.raises(errors.InvalidArgumentError, match="Invalid formatting"):
        tf.strings.unicode_transcode(b"a\x01", "UTF-8", "UTF-8", errors="strict",
                                     replace_control_characters=True)
    with pytest.raises(errors.InvalidArgumentError, match="Invalid encoding"):
        tf.strings.unicode_transcode(b"a", "UTF-8", "UTF-16")


def test_script_values():
    assert tf.strings.unicode_script([33464, 1041]).numpy().tolist() == [17, 8]
    chars = u"a α бبשあア한กक\u0301 1"
    expected = [25, 0, 14, 0, 8, 2, 19, 20, 22, 18, 38, 10, 1, 0, 0]
    scripts = tf.strings.unicode_script([ord(c) for c in chars])
    assert scripts.dtype == tf.int32 and scripts.numpy().tolist() == expected


def test_script_unknown_and_invalid():
    values = [0x0378, 0xE000, 0xD800, -1, 0x110000, 0x1F60A, 0x20000]
    assert tf.strings.unicode_script(values).numpy().tolist() == [103, 103, 103, -1, -1, 0, 17]


def test_script_outside_the_table_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="unicode_script"):
        tf.strings.unicode_script([0x0531])     # Armenian: not in tfcompat's table


def test_script_of_ragged_tutorial_batch():
    ragged = tf.strings.unicode_decode([u"Hello, world.", u"世界こんにちは"], "UTF-8")
    scripts = tf.strings.unicode_script(ragged)
    assert scripts.to_list() == [[25, 25, 25, 25, 25, 0, 0, 25, 25, 25, 25, 25, 0],
                                 [17, 17, 20, 20, 20, 20, 20]]


def test_script_keeps_shape_and_rejects_int64():
    assert tf.strings.unicode_script([[97], [945]]).numpy().tolist() == [[25], [14]]
    assert tf.strings.unicode_script(945).numpy() == 14
    assert tf.strings.unicode_script(tf.zeros([0, 3], tf.int32)).shape.as_list() == [0, 3]
    with pytest.raises((TypeError, ValueError, errors.InvalidArgumentError)):
        tf.strings.unicode_script(tf.constant([97], dtype=tf.int64))


def test_length_and_substr_units():
    thanks = u"Thanks 😊".encode("UTF-8")
    assert tf.strings.length(thanks).numpy() == 11
    assert tf.strings.length(thanks, unit="UTF8_CHAR").numpy() == 8
    assert tf.strings.substr(thanks, pos=7, len=1).numpy() == b"\xf0"
    assert tf.strings.substr(thanks, pos=7, len=1, unit="UTF8_CHAR").numpy() == \
        b"\xf0\x9f\x98\x8a"
    # TF counts characters by their lead bytes: malformed UTF-8 does not raise
    assert tf.strings.length(b"\xffab", unit="UTF8_CHAR").numpy() == 3
    assert tf.strings.substr(b"\xc3\xa9t\xc3\xa9", 1, 5, unit="UTF8_CHAR").numpy() == \
        b"t\xc3\xa9"


def test_graph_mode_session():
    graph = tf.Graph()
    with graph.as_default():
        strings = tf.compat.v1.placeholder(tf.string, [None])
        codes, offsets = tf.strings.unicode_decode_with_offsets(strings, "UTF-8")
        assert codes.values.shape.as_list() == [None]
        encoded = tf.strings.unicode_encode(codes, "UTF-16-BE")
        scripts = tf.strings.unicode_script(codes)
        chars = tf.strings.unicode_split(strings, "UTF-8")
        transcoded = tf.strings.unicode_transcode(strings, "UTF-8", "UTF-32-BE")
        dense = tf.strings.unicode_encode([[99, 97, 116], [100, 111, 103]], "UTF-8")
        assert dense.shape.as_list() == [2]
        with tf.compat.v1.Session() as sess:
            out = sess.run([codes.values, codes.row_splits, offsets.values, encoded,
                            scripts.values, chars.values, transcoded, dense],
                           {strings: GOODNIGHT})
    assert out[0].tolist() == sum(GOODNIGHT_CODES, [])
    assert out[1].tolist() == [0, 9, 10]
    assert out[2].tolist() == sum(GOODNIGHT_OFFSETS, [])
    assert out[3].tolist() == [u"G\xf6\xf6dnight".encode("utf-16-be"),
                               u"\U0001f60a".encode("utf-16-be")]
    assert out[4].tolist() == [25] * 9 + [0]
    assert out[5].tolist()[1:3] == [b"\xc3\xb6", b"\xc3\xb6"]
    assert out[6].tolist() == [u"G\xf6\xf6dnight".encode("utf-32-be"),
                               u"\U0001f60a".encode("utf-32-be")]
    assert np.asarray(out[7]).tolist() == [b"cat", b"dog"]
