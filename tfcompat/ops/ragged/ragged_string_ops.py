"""Unicode ops with ragged results or inputs (TF's ops/ragged/ragged_string_ops.py):
`tf.strings.unicode_decode`, `unicode_decode_with_offsets`, `unicode_encode`,
`unicode_split`, `unicode_split_with_offsets`.

They shape inputs and results as TF's Python wrappers do; the kernels (TF's
UnicodeDecodeWithOffsets and UnicodeEncode ops) are `decode_unicode_rows` and
`encode_unicode_rows` in string_ops. A scalar string decodes to a dense vector, an N-D
string tensor (N >= 1) to a RaggedTensor of rank N+1.
"""
from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.framework.ops import convert_to_tensor, name_scope
from tfcompat.ops import array_ops
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor
from tfcompat.ops.string_ops import (_string_split, _string_split_v2, decode_unicode_rows,
                                     encode_unicode_rows)


def _unicode_decode(input, input_encoding, errors, replacement_char,  # noqa: A002
                    replace_control_characters, with_offsets):
    """TF's `_unicode_decode`: code points (and byte offsets) shaped like `input` plus one
    ragged dimension; a dense vector for a scalar `input`."""
    if not isinstance(input, RaggedTensor):
        input = convert_to_tensor(input, dtype=dtypes.string)  # noqa: A001 - TF's name
    rank = input.shape.rank
    if rank is None:
        raise ValueError("Rank of `input` must be statically known.")
    if rank > 1:
        if not isinstance(input, RaggedTensor):
            input = RaggedTensor.from_tensor(input, ragged_rank=rank - 1)  # noqa: A001
        elif input.ragged_rank < rank - 1:
            input = input.with_flat_values(RaggedTensor.from_tensor(  # noqa: A001
                input.flat_values, ragged_rank=rank - input.ragged_rank - 1))
    flat_input = input.flat_values if isinstance(input, RaggedTensor) else input
    row_splits, code_points, offsets = decode_unicode_rows(
        flat_input, input_encoding, errors, replacement_char, replace_control_characters)
    if rank > 0:
        code_points = RaggedTensor.from_row_splits(code_points, row_splits, validate=False)
        offsets = RaggedTensor.from_row_splits(offsets, row_splits, validate=False)
        if rank > 1:
            code_points = input.with_flat_values(code_points)
            offsets = input.with_flat_values(offsets)
    return (code_points, offsets) if with_offsets else code_points


@tf_export("strings.unicode_decode")
def unicode_decode(input, input_encoding, errors="replace", replacement_char=0xFFFD,  # noqa
                   replace_control_characters=False, name=None):
    """`tf.strings.unicode_decode`: the int32 code points of each string of `input`.

    Malformed input is replaced by `replacement_char` (errors='replace'), skipped
    ('ignore') or raises InvalidArgumentError ('strict'); `replace_control_characters`
    replaces U+0000..U+001F too. Input encodings: see string_ops (UTF-8, UTF-16/32 BE/LE,
    ISO-8859-1, US-ASCII; TF takes any ICU converter, others raise NotImplementedError).
    """
    with name_scope(name, "UnicodeDecode", [input]):
        return _unicode_decode(input, input_encoding, errors, replacement_char,
                               replace_control_characters, with_offsets=False)


@tf_export("strings.unicode_decode_with_offsets")
def unicode_decode_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                                replacement_char=0xFFFD, replace_control_characters=False,
                                name=None):
    """`tf.strings.unicode_decode_with_offsets`: (code points, int64 byte offset where each
    character starts), as `unicode_decode`; a skipped ('ignore') input has no entry."""
    with name_scope(name, "UnicodeDecodeWithOffsets", [input]):
        return _unicode_decode(input, input_encoding, errors, replacement_char,
                               replace_control_characters, with_offsets=True)


@tf_export("strings.unicode_encode")
def unicode_encode(input, output_encoding, errors="replace",  # noqa: A002 - TF's name
                   replacement_char=65533, name=None):
    """`tf.strings.unicode_encode`: each innermost row of int32 code points (a Tensor of
    rank >= 1 or a RaggedTensor) encoded as one string in `output_encoding` ('UTF-8',
    'UTF-16-BE' or 'UTF-32-BE'). Invalid code points (out of range, surrogates,
    noncharacters) are replaced, skipped or raise InvalidArgumentError, per `errors`."""
    with name_scope(name, "UnicodeEncode", [input]):
        if not isinstance(input, RaggedTensor):
            input = convert_to_tensor(input)  # noqa: A001 - TF's name
        rank = input.shape.rank
        if rank is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if isinstance(input, RaggedTensor):
            if input.flat_values.shape.rank > 1:
                return input.with_flat_values(unicode_encode(
                    input.flat_values, output_encoding, errors, replacement_char))
            if input.ragged_rank > 1:
                return input.with_values(unicode_encode(
                    input.values, output_encoding, errors, replacement_char))
            return encode_unicode_rows(input.values, input.row_splits, output_encoding,
                                       errors, replacement_char)
        if rank == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        if rank == 2:
            return encode_unicode_rows(input, None, output_encoding, errors,
                                       replacement_char)
        if rank == 1:
            rows = array_ops.reshape(input, [1, -1])
            return array_ops.reshape(unicode_encode(rows, output_encoding, errors,
                                                    replacement_char), [])
        shape = array_ops.shape(input)
        rows = array_ops.reshape(input, array_ops.stack([-1, shape[-1]]))
        return array_ops.reshape(unicode_encode(rows, output_encoding, errors,
                                                replacement_char), shape[:-1])


def _encode_each(code_points, encoding, errors, replacement_char):
    """Each code point encoded alone, in the structure of `code_points` (TF's
    `unicode_encode(expand_dims(code_points, -1), ...)`)."""
    flat = code_points.flat_values if isinstance(code_points, RaggedTensor) else code_points
    chars = unicode_encode(array_ops.reshape(flat, [-1, 1]), encoding, errors,
                           replacement_char)
    return code_points.with_flat_values(chars) if isinstance(code_points, RaggedTensor) \
        else chars


@tf_export("strings.unicode_split")
def unicode_split(input, input_encoding, errors="replace", replacement_char=0xFFFD,  # noqa
                  name=None):
    """`tf.strings.unicode_split`: each string of `input` split into its characters, each
    re-encoded in `input_encoding` (so it must be 'UTF-8', 'UTF-16-BE' or 'UTF-32-BE', as
    in TF; malformed input becomes the encoded `replacement_char`)."""
    with name_scope(name, "UnicodeSplit", [input]):
        code_points = _unicode_decode(input, input_encoding, errors, replacement_char, False,
                                      with_offsets=False)
        return _encode_each(code_points, input_encoding, errors, replacement_char)


@tf_export("strings.unicode_split_with_offsets")
def unicode_split_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                               replacement_char=0xFFFD, name=None):
    """`tf.strings.unicode_split_with_offsets`: (characters, int64 byte offset where each
    starts), as `unicode_split`."""
    with name_scope(name, "UnicodeSplitWithOffsets", [input]):
        code_points, offsets = _unicode_decode(input, input_encoding, errors,
                                               replacement_char, False, with_offsets=True)
        return _encode_each(code_points, input_encoding, errors, replacement_char), offsets


# ---------------------------------------------------------------- split (TF2)


def _split_rows(input, split_vector, name):  # noqa: A002 - TF's name
    """TF's shaping of a split: a RaggedTensor's flat values are split in place, a scalar
    gives the dense tokens, a vector a RaggedTensor of each string's tokens, a higher-rank
    tensor one more ragged dimension."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(_split_rows(input.flat_values, split_vector, name))
    input = convert_to_tensor(input, dtype=dtypes.string)  # noqa: A001 - TF's name
    rank = input.shape.rank
    if rank is None:
        raise ValueError("input must have a statically-known rank.")
    if rank == 0:
        return _split_rows(array_ops.reshape(input, [1]), split_vector, name)[0]
    if rank > 1:
        return _split_rows(RaggedTensor.from_tensor(input, ragged_rank=rank - 1),
                           split_vector, name)
    indices, values, shape = split_vector(input)
    return RaggedTensor.from_value_rowids(values, indices[:, 0], nrows=shape[0],
                                          validate=False)


@tf_export(v2=["strings.split"])
def string_split_v2(input, sep=None, maxsplit=-1, name=None):  # noqa: A002 - TF's name
    """TF2 `tf.strings.split`: `sep` is a whole separator (None: runs of whitespace, empty
    tokens dropped), at most `maxsplit` splits per string; the tokens of a vector are a
    RaggedTensor, those of a scalar a dense vector, as in TF."""
    with name_scope(name, "StringSplit", [input]):
        return _split_rows(input, lambda vector: _string_split_v2(
            vector, "" if sep is None else sep, maxsplit), name)


@tf_export("strings.bytes_split")
def string_bytes_split(input, name=None):  # noqa: A002 - TF's name
    """`tf.strings.bytes_split`: each string split into its bytes (a dense vector for a
    scalar, a RaggedTensor otherwise), as in TF."""
    with name_scope(name, "StringsByteSplit", [input]):
        return _split_rows(input, lambda vector: _string_split(vector, "", False), name)
