"""String ops on string tensors (numpy object arrays of `bytes`).

They are for eager mode. Torch has no fake string tensors, so while a graph is built these
ops run on the stand-ins the graph builder gives string inputs: real values for string
constants (correct), an empty placeholder array for fed strings (fails or gives wrong static
shapes); run scripts that feed strings to them eagerly. The unicode ops (`unicode_script`,
and the kernels of the ragged ones in ops/ragged/ragged_string_ops.py) run as graph nodes
reading their inputs when the graph runs, so they work on fed values. TF2's
`tf.strings.split` and `tf.strings.bytes_split` (RaggedTensor results) are in
ops/ragged/ragged_string_ops.py, as in TF.
"""
import base64
import builtins
import codecs
import collections
import re
import unicodedata

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import constant_to_torch, convert_to_tensor, op, to_torch
from tfcompat.framework.string_tensor import flat_strings, string_input
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops.array_ops import _as_ints, _axis
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor
from tfcompat.ops.sparse_ops import SparseTensor
from tfcompat.util.fingerprint import fingerprint64


def _strings(value, what="input"):
    t = to_torch(value, None if not isinstance(value, (str, bytes, list, tuple))
                 else dtypes.string)
    if not isinstance(t, np.ndarray):
        raise TypeError("%s must be a string tensor, got %s"
                        % (what, dtypes.from_torch(t.dtype).name))
    return t


def _scalar_string(value, what):
    t = _strings(value, what)
    if t.ndim != 0:
        raise errors.InvalidArgumentError("%s must be a scalar string, got shape %s"
                                          % (what, format_shape(t.shape)))
    return t[()]


def _map(fn, array, dtype=object):
    """Apply `fn` to each element; an object array (strings) or a numpy array of `dtype`."""
    flat = array.reshape(-1)
    out = np.empty(flat.shape, dtype=dtype)
    out[:] = [fn(v) for v in flat]
    return out.reshape(array.shape)


def _numeric(array, dtype):
    return constant_to_torch(np.asarray(array, dtype=dtype.as_numpy_dtype), dtype)


# ---------------------------------------------------------------- join / length / case


@op("strings.join", v1=["string_join"], graph_name="StringJoin")
def string_join(inputs, separator="", name=None):
    """`tf.strings.join`: elementwise concatenation; inputs are all one shape or scalars."""
    arrays = [_strings(v) for v in inputs]
    sep = separator.encode("utf-8") if isinstance(separator, str) else bytes(separator)
    shapes = {a.shape for a in arrays if a.ndim}
    if len(shapes) > 1:
        raise errors.InvalidArgumentError(
            "Inputs must be all scalars or have the same shape; got shapes %s"
            % sorted(list(s) for s in shapes))
    if not arrays:
        return np.array(b"", dtype=object)
    arrays = np.broadcast_arrays(*arrays)
    out = np.empty(arrays[0].shape, dtype=object)
    for index in np.ndindex(*out.shape):
        out[index] = sep.join(a[index] for a in arrays)
    return out


def _length(input, unit):  # noqa: A002 - TF's name
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError("unit must be one of 'BYTE', 'UTF8_CHAR', got %r" % (unit,))
    count = len if unit == "BYTE" else _utf8_char_count
    return _numeric(_map(count, _strings(input), np.int32), dtypes.int32)


def _utf8_char_starts(item):
    """Byte offsets of the UTF-8 characters of `item`: bytes that are not continuation
    bytes (10xxxxxx), as TF counts them (malformed UTF-8 does not raise)."""
    return np.flatnonzero((np.frombuffer(item, dtype=np.uint8) & 0xC0) != 0x80)


def _utf8_char_count(item):
    return len(_utf8_char_starts(item))


@op(v2=["strings.length"], graph_name="StringLength")
def string_length_v2(input, unit="BYTE", name=None):  # noqa: A002 - TF's name
    """TF2 `tf.strings.length`: int32 byte (or UTF-8 character) counts."""
    return _length(input, unit)


@op(v1=["strings.length"], graph_name="StringLength")
def string_length(input, name=None, unit="BYTE"):  # noqa: A002 - TF's name
    """TF1 `tf.strings.length(input, name, unit)`."""
    return _length(input, unit)


def _case(input, encoding, method):  # noqa: A002 - TF's name
    if encoding not in ("", "utf-8", "utf8", "UTF-8", "UTF8"):
        raise errors.InvalidArgumentError("encoding must be '' or 'utf-8', got %r" % encoding)
    if encoding:
        return _map(lambda b: getattr(b.decode("utf-8"), method)().encode("utf-8"),
                    _strings(input))
    return _map(lambda b: getattr(b, method)(), _strings(input))  # ASCII letters only, as TF


@op("strings.lower", graph_name="StringLower")
def lower(input, encoding="", name=None):  # noqa: A002 - TF's name
    """`tf.strings.lower`: ASCII letters, or all of Unicode with encoding='utf-8'."""
    return _case(input, encoding, "lower")


@op("strings.upper", graph_name="StringUpper")
def upper(input, encoding="", name=None):  # noqa: A002 - TF's name
    """`tf.strings.upper`: ASCII letters, or all of Unicode with encoding='utf-8'."""
    return _case(input, encoding, "upper")


@op("strings.strip", v1=["string_strip"], graph_name="StringStrip")
def strip(input, name=None):  # noqa: A002 - TF's name
    """`tf.strings.strip`: leading and trailing ASCII whitespace removed."""
    return _map(bytes.strip, _strings(input))


# ---------------------------------------------------------------- split


def _tokens_to_sparse(array, split):
    """Tokens of each element -> SparseTensor components (indices, values, dense_shape)."""
    indices, values, widest = [], [], 0
    for position, item in np.ndenumerate(array):
        tokens = split(item)
        widest = max(widest, len(tokens))
        for j, token in enumerate(tokens):
            indices.append(position + (j,))
            values.append(token)
    rank = array.ndim + 1
    out_values = np.empty(len(values), dtype=object)
    out_values[:] = values
    return (torch.tensor(indices, dtype=torch.int64).reshape(-1, rank), out_values,
            torch.tensor(list(array.shape) + [widest], dtype=torch.int64))


@op(graph_name="StringSplit")
def _string_split(source, delimiter, skip_empty):
    array = _strings(source)
    if array.ndim != 1:
        raise errors.InvalidArgumentError("input must be a vector, got shape: %s"
                                          % format_shape(array.shape))
    chars = _scalar_string(delimiter, "delimiter")
    if not chars:
        return _tokens_to_sparse(array, lambda b: [b[i:i + 1] for i in range(len(b))])
    pattern = re.compile(b"[" + re.escape(chars) + b"]")

    def split(item):
        tokens = pattern.split(item)
        return [t for t in tokens if t] if skip_empty else tokens
    return _tokens_to_sparse(array, split)


@op(graph_name="StringSplitV2")
def _string_split_v2(source, sep, maxsplit):
    array = _strings(source)
    if array.ndim == 0:
        raise errors.InvalidArgumentError("input must not be a scalar for a SparseTensor "
                                          "result")
    separator = _scalar_string(sep, "sep")
    limit = int(maxsplit)
    if separator:
        return _tokens_to_sparse(array, lambda b: b.split(separator, limit))
    return _tokens_to_sparse(array, lambda b: b.split(None, limit))


def _split_result(components, result_type):
    """The tokens as TF1's split ops give them: a SparseTensor, or for
    `result_type="RaggedTensor"` a RaggedTensor (of a vector's tokens: rows of a
    right-ragged SparseTensor)."""
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError("result_type must be 'SparseTensor' or 'RaggedTensor', got %r"
                         % (result_type,))
    tokens = SparseTensor(*components)
    if result_type == "SparseTensor":
        return tokens
    if tokens.indices.shape[1] != 2:
        raise NotImplementedError("split(..., result_type='RaggedTensor') of a string tensor of "
                                  "rank > 1 is not implemented by tfcompat; use TF2's "
                                  "tf.strings.split")
    return RaggedTensor.from_sparse(tokens)


@tf_export(v1=["string_split"])
def string_split(source, sep=None, skip_empty=True, delimiter=None,
                 result_type="SparseTensor", name=None):
    """TF1 `tf.string_split`: split a 1-D string tensor into a SparseTensor of tokens.

    Each byte of `sep` (default " ") is a delimiter; an empty `sep` splits into bytes;
    empty tokens are dropped unless `skip_empty=False`.
    """
    if sep is None:
        sep = " " if delimiter is None else delimiter
    return _split_result(_string_split(source, sep, skip_empty), result_type)


@tf_export(v1=["strings.split"])
def strings_split_v1(input=None, sep=None, maxsplit=-1, result_type="SparseTensor",  # noqa
                     source=None, name=None):
    """TF1 `tf.strings.split`: `sep` is a whole separator (None: runs of whitespace) and at
    most `maxsplit` splits happen; a SparseTensor with one more dimension than `input`."""
    if input is None:
        input = source  # noqa: A001 - TF's name
    return _split_result(_string_split_v2(input, "" if sep is None else sep, maxsplit),
                         result_type)


# ---------------------------------------------------------------- numbers <-> strings

_INT_RE = re.compile(rb"^\s*[+-]?[0-9]+\s*$")
_FLOAT_RE = re.compile(rb"^\s*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|"
                       rb"inf|infinity|nan)\s*$", re.IGNORECASE)


def _to_number(string_tensor, out_type):
    dtype = dtypes.as_dtype(out_type)
    if dtype not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise TypeError("out_type must be float32, float64, int32 or int64, got %s"
                        % dtype.name)
    array = _strings(string_tensor, "string_tensor")
    pattern, convert = (_INT_RE, int) if dtype.is_integer else (_FLOAT_RE, float)

    def parse(item):
        value = convert(item) if pattern.match(item) else None
        if value is None or (dtype.is_integer and not dtype.min <= value <= dtype.max):
            raise errors.InvalidArgumentError(
                "StringToNumberOp could not correctly convert string: %s"
                % item.decode("utf-8", "replace"))
        return value
    return _numeric(_map(parse, array, dtype.as_numpy_dtype), dtype)


@op(v1=["string_to_number", "strings.to_number"], graph_name="StringToNumber")
def string_to_number(string_tensor, out_type=dtypes.float32, name=None):
    """TF1 `tf.string_to_number`: parse each string as `out_type` (InvalidArgumentError on
    text that is not a number, or out of range for an int type)."""
    return _to_number(string_tensor, out_type)


@op(v2=["strings.to_number"], graph_name="StringToNumber")
def to_number(input, out_type=dtypes.float32, name=None):  # noqa: A002 - TF's name
    """TF2 `tf.strings.to_number(input, out_type)`."""
    return _to_number(input, out_type)


@tf_export("strings.to_hash_bucket_fast", v1=["string_to_hash_bucket_fast"])
def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 - TF's name
    """`tf.strings.to_hash_bucket_fast`: each string's FarmHash Fingerprint64 modulo
    `num_buckets`, as int64 (the buckets TF gives, so hashed features match TF's)."""
    if int(num_buckets) < 1:
        raise errors.InvalidArgumentError("Number of buckets must be at least 1")
    tensor, shape = string_input(input, "input")
    buckets = int(num_buckets)

    def bucket(values):
        cache = {}
        out = np.empty(values.shape, dtype=np.int64)
        flat = out.reshape(-1)
        for index, item in enumerate(flat_strings(values)):
            if item not in cache:
                data = item if isinstance(item, bytes) else str(item).encode("utf-8")
                cache[item] = fingerprint64(data) % buckets
            flat[index] = cache[item]
        return (torch.from_numpy(out),)
    return run_op(bucket, "StringToHashBucketFast", [tensor], [(dtypes.int64, shape)],
                  name)[0]


@tf_export("as_string", "strings.as_string", v1=["dtypes.as_string"])
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,  # noqa: A002
              fill="", name=None):
    """`tf.strings.as_string`: printf-style formatting as TF (floats "%f" by default, so
    1.5 -> b"1.500000"; bools b"true"/b"false"). A string input is returned as it is. In a
    graph the strings are made when it runs (an AsString node of the input's shape)."""
    tensor = convert_to_tensor(input)
    if tensor.dtype == dtypes.string:
        return tensor
    fmt = _number_format(tensor.dtype, precision, scientific, shortest, width, fill)

    def format_values(t):
        values = t.detach().cpu()
        values = values.float() if values.dtype == torch.bfloat16 else values
        return (_map(lambda v: fmt(v.item()).encode("ascii"), np.asarray(values.numpy())),)
    return run_op(format_values, "AsString", [tensor], [(dtypes.string, tensor.shape)],
                  name)[0]


def _number_format(dtype, precision, scientific, shortest, width, fill):
    """The function formatting one number of `dtype` as as_string's arguments ask."""
    spec = "%"
    if fill:
        if fill not in (" ", "+", "-", "0", "#"):
            raise errors.InvalidArgumentError("Fill argument not supported: \"%s\"" % fill)
        spec += fill
    if width > -1:
        spec += "%d" % width
    if scientific and shortest:
        raise errors.InvalidArgumentError("Cannot select both scientific and shortest notation")
    if not (dtype.is_floating or dtype.is_complex):
        if precision > -1 or scientific or shortest:
            raise errors.InvalidArgumentError(
                "precision, scientific and shortest apply to floating point types, not %s"
                % dtype.name)
    if precision > -1:
        spec += ".%d" % precision
    if dtype.is_bool:
        spec += "s"
        fmt = lambda v: spec % ("true" if v else "false")  # noqa: E731
    elif dtype.is_integer:
        spec += "d"
        fmt = lambda v: spec % v  # noqa: E731
    else:
        spec += "e" if scientific else "g" if shortest else "f"
        if dtype.is_complex:
            fmt = lambda v: "(%s,%s)" % (spec % v.real, spec % v.imag)  # noqa: E731
        else:
            fmt = lambda v: spec % v  # noqa: E731
    return fmt


# ---------------------------------------------------------------- regex, substr, reduce_join


def _rewrite_function(rewrite):
    """RE2 rewrite text (\\0-\\9 groups, \\\\ a backslash) -> a function of a match."""
    parts, i = [], 0
    literal = b""
    while i < len(rewrite):
        char = rewrite[i:i + 1]
        if char == b"\\" and i + 1 < len(rewrite):
            nxt = rewrite[i + 1:i + 2]
            if nxt.isdigit():
                parts.append(literal)
                parts.append(int(nxt))
                literal = b""
            elif nxt == b"\\":
                literal += b"\\"
            else:
                raise errors.InvalidArgumentError("Invalid rewrite pattern: %s"
                                                  % rewrite.decode("utf-8", "replace"))
            i += 2
            continue
        literal += char
        i += 1
    parts.append(literal)
    return lambda m: b"".join(p if isinstance(p, bytes) else (m.group(p) or b"")
                              for p in parts)


@op("strings.regex_replace", v1=["regex_replace"], graph_name="RegexReplace")
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """`tf.strings.regex_replace`: RE2 patterns run with Python's `re` (the common syntax is
    the same); `\\1` in `rewrite` is a group, `\\0` the whole match."""
    array = _strings(input)
    try:
        compiled = re.compile(_scalar_string(pattern, "pattern"))
    except re.error as e:
        raise errors.InvalidArgumentError("Invalid pattern: %s" % e) from None
    replace = _rewrite_function(_scalar_string(rewrite, "rewrite"))
    count = 0 if replace_global else 1
    return _map(lambda b: compiled.sub(replace, b, count=count), array)


@tf_export("strings.regex_full_match")
def regex_full_match(input, pattern, name=None):  # noqa: A002 - TF's name
    """`tf.strings.regex_full_match`: whether each whole string matches the RE2 `pattern`
    (run with Python's `re`, whose common syntax is the same); a bool tensor of the input's
    shape."""
    try:
        compiled = re.compile(_scalar_string(pattern, "pattern"))
    except re.error as e:
        raise errors.InvalidArgumentError("Invalid pattern: %s" % e) from None
    tensor, shape = string_input(input, "input")

    def full_match(values):
        matches = [compiled.fullmatch(item if isinstance(item, bytes)
                                      else str(item).encode("utf-8")) is not None
                   for item in flat_strings(values)]
        return (torch.tensor(matches, dtype=torch.bool).reshape(values.shape),)
    return run_op(full_match, "RegexFullMatch", [tensor], [(dtypes.bool, shape)], name)[0]


def _substr(input, pos, len, unit):  # noqa: A002 - TF's names
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError("unit must be one of 'BYTE', 'UTF8_CHAR', got %r" % (unit,))
    array = _strings(input)
    positions = np.asarray(to_torch(pos).cpu().numpy() if not isinstance(pos, int) else pos)
    lengths = np.asarray(to_torch(len).cpu().numpy() if not isinstance(len, int) else len)
    if positions.shape != lengths.shape:
        raise errors.InvalidArgumentError("pos and len should have the same shape, got %s "
                                          "and %s" % (format_shape(positions.shape),
                                                      format_shape(lengths.shape)))
    try:
        array_b, pos_b, len_b = np.broadcast_arrays(array, positions, lengths)
    except ValueError:
        raise errors.InvalidArgumentError(
            "Incompatible shapes: input %s, pos %s" % (format_shape(array.shape),
                                                      format_shape(positions.shape))) from None
    out = np.empty(array_b.shape, dtype=object)
    for index in np.ndindex(*out.shape):
        item = array_b[index]
        bounds = np.arange(builtins.len(item) + 1) if unit == "BYTE" else \
            np.append(_utf8_char_starts(item), builtins.len(item))
        p, n, size = int(pos_b[index]), int(len_b[index]), builtins.len(bounds) - 1
        if abs(p) > size:
            raise errors.InvalidArgumentError(
                "pos %d out of range for string b'%s' at index %s"
                % (p, item.decode("utf-8", "replace"), list(index)))
        start = p + size if p < 0 else p
        end = size if n < 0 else min(start + n, size)
        out[index] = item[bounds[start]:bounds[end]]
    return out



@op(v2=["strings.substr"], graph_name="Substr")
def substr_v2(input, pos, len, unit="BYTE", name=None):  # noqa: A002 - TF's names
    """TF2 `tf.strings.substr`: `len` units from `pos` (negative `pos` counts from the end;
    `pos` beyond the string raises); pos/len broadcast against `input`."""
    return _substr(input, pos, len, unit)


@op(v1=["substr", "strings.substr"], graph_name="Substr")
def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002 - TF's names
    """TF1 `tf.substr(input, pos, len, name, unit)`."""
    return _substr(input, pos, len, unit)


def _reduce_join(inputs, axis, keepdims, separator):
    array = _strings(inputs, "inputs")
    sep = separator.encode("utf-8") if isinstance(separator, str) else bytes(separator)
    dims = list(range(array.ndim)) if axis is None else sorted(
        {_axis(a, array.ndim) for a in _as_ints(axis)})
    kept = [d for d in range(array.ndim) if d not in dims]
    moved = np.transpose(array, kept + dims)
    rows = moved.reshape(tuple(array.shape[d] for d in kept) + (-1,)) if array.size else \
        np.empty(tuple(array.shape[d] for d in kept) + (0,), dtype=object)
    out = np.empty(rows.shape[:-1], dtype=object)
    for index in np.ndindex(*out.shape):
        out[index] = sep.join(rows[index])
    if keepdims:
        out = out.reshape([1 if d in dims else array.shape[d] for d in range(array.ndim)])
    return out


@op(v2=["strings.reduce_join"], graph_name="ReduceJoin")
def reduce_join_v2(inputs, axis=None, keepdims=False, separator="", name=None):
    """TF2 `tf.strings.reduce_join`: join the strings along `axis` (all axes when None)."""
    return _reduce_join(inputs, axis, keepdims, separator)


@op(v1=["reduce_join", "strings.reduce_join"], graph_name="ReduceJoin")
def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None,
                reduction_indices=None, keepdims=None):
    """TF1 `tf.reduce_join` (`keep_dims`/`reduction_indices` are the old names)."""
    axis = axis if axis is not None else reduction_indices
    keepdims = keepdims if keepdims is not None else keep_dims
    return _reduce_join(inputs, axis, bool(keepdims), separator)


# ---------------------------------------------------------------- base64

_WEB_SAFE_BASE64 = re.compile(rb"[A-Za-z0-9_-]*")


@op("io.encode_base64", v1=["encode_base64"], graph_name="EncodeBase64")
def encode_base64(input, pad=False, name=None):  # noqa: A002 - TF's name
    """`tf.io.encode_base64`: web-safe base64 (RFC 4648 URL alphabet, `-` and `_`), with
    `=` padding only when `pad=True`."""
    def encode(value):
        encoded = base64.urlsafe_b64encode(value)
        return encoded if pad else encoded.rstrip(b"=")
    return _map(encode, _strings(input))


def _decode_web_safe(value):
    if value.endswith(b"="):      # TF drops up to two '=' of padding
        value = value[:-2] if value.endswith(b"==") else value[:-1]
    whole_groups = len(value) - len(value) % 4     # checked before the length, as TF does
    if not _WEB_SAFE_BASE64.fullmatch(value[:whole_groups]):
        raise errors.InvalidArgumentError("Invalid character found in base64.")
    if len(value) % 4 == 1:
        raise errors.InvalidArgumentError("Base64 string length cannot be 1 modulo 4.")
    if not _WEB_SAFE_BASE64.fullmatch(value[whole_groups:]):
        raise errors.InvalidArgumentError("Invalid character found in base64.")
    return base64.urlsafe_b64decode(value + b"=" * (-len(value) % 4))


@op("io.decode_base64", v1=["decode_base64"], graph_name="DecodeBase64")
def decode_base64(input, name=None):  # noqa: A002 - TF's name
    """`tf.io.decode_base64`: web-safe base64, padded or not; InvalidArgumentError on other
    characters or a length of 1 modulo 4, as TF."""
    return _map(_decode_web_safe, _strings(input))


# ---------------------------------------------------------------- unicode
# TF's kernels decode with ICU. Python's codecs split malformed input the same way (each
# maximal ill-formed subsequence is one error, replaced by one character), so code points
# and byte offsets agree with TF's.

_OUTPUT_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
# Input encodings are ICU converter names, which compare ignoring case and punctuation.
_INPUT_CODECS = {"utf8": "utf-8", "utf16be": "utf-16-be", "utf16le": "utf-16-le",
                 "utf32be": "utf-32-be", "utf32le": "utf-32-le", "iso88591": "latin-1",
                 "latin1": "latin-1", "usascii": "ascii", "ascii": "ascii"}
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_CODE_POINT = 0x10FFFF

_UnicodeErrorOptions = collections.namedtuple(
    "_UnicodeErrorOptions", ["policy", "replacement_char", "replace_control_characters"])


def _unicode_error_options(errors_policy, replacement_char, replace_control_characters=False):
    """TF's `errors` / `replacement_char` attributes, checked as its kernels check them."""
    if errors_policy not in ("strict", "replace", "ignore"):
        raise errors.InvalidArgumentError(
            "errors policy must be one of 'strict', 'replace', or 'ignore'")
    if not 0 <= int(replacement_char) <= _MAX_CODE_POINT:
        raise errors.InvalidArgumentError("replacement_char out of unicode codepoint range")
    return _UnicodeErrorOptions(errors_policy, int(replacement_char),
                                bool(replace_control_characters))


def _input_codec(encoding, symbol):
    codec = _INPUT_CODECS.get(re.sub("[^0-9a-z]", "", str(encoding).lower()))
    if codec is None:
        raise NotImplementedError(
            "%s: tfcompat decodes UTF-8, UTF-16-BE/LE, UTF-32-BE/LE, ISO-8859-1 and US-ASCII, "
            "not input_encoding %r (TF accepts any ICU converter name)" % (symbol, encoding))
    return codec


def _output_codec(encoding):
    codec = _OUTPUT_CODECS.get(encoding)
    if codec is None:
        raise errors.InvalidArgumentError(
            'Invalid encoding "%s": Should be one of: UTF-8, UTF-16-BE, UTF-32-BE' % encoding)
    return codec


def _encoded_lengths(code_points, codec):
    """Bytes each (validly decoded) code point took in `codec`."""
    if codec == "utf-8":
        return 1 + (code_points >= 0x80) + (code_points >= 0x800) + (code_points >= 0x10000)
    if codec.startswith("utf-16"):
        return 2 + 2 * (code_points >= 0x10000)
    return np.full(code_points.shape, 4 if codec.startswith("utf-32") else 1)


def _decode_string(data, codec, options):
    """One string -> (code points, byte offsets, malformed input found, control
    characters replaced), with TF's policy applied: a malformed subsequence or (with
    `replace_control_characters`) a C0 control character is replaced by
    `replacement_char`, or skipped under 'ignore'."""
    code_points, lengths, malformed = [], [], []
    view, position = memoryview(data), 0
    while position < len(data):
        try:
            text, bad = codecs.decode(view[position:], codec), None
        except UnicodeDecodeError as error:
            text = codecs.decode(view[position:position + error.start], codec)
            bad = (error.start, error.end)
        values = np.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(np.int64)
        code_points.append(values)
        lengths.append(_encoded_lengths(values, codec))
        malformed.append(np.zeros(len(values), dtype=bool))
        if bad is None:
            break
        code_points.append(np.array([options.replacement_char]))
        lengths.append(np.array([bad[1] - bad[0]]))
        malformed.append(np.ones(1, dtype=bool))
        position += bad[1]
    if not code_points:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), False, False
    values, malformed = np.concatenate(code_points), np.concatenate(malformed)
    lengths = np.concatenate(lengths)
    offsets = np.cumsum(lengths) - lengths
    control = (values <= 0x1F) & ~malformed if options.replace_control_characters else \
        np.zeros(len(values), dtype=bool)
    handled = malformed | control
    if options.policy == "ignore":
        values, offsets = values[~handled], offsets[~handled]
    else:
        values[handled] = options.replacement_char
    return values, offsets, bool(malformed.any()), bool(control.any())


def _encode_code_points(values, codec):
    """Code points -> bytes as ICU encodes a UTF-16 string built from them: a surrogate
    pair makes one character; a lone surrogate is U+FFFD in UTF-8 and kept in UTF-16/32."""
    text = "".join(map(chr, values))
    if _LONE_SURROGATE.search(text):
        text = text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
        if codec == "utf-8":
            text = _LONE_SURROGATE.sub("\ufffd", text)
    return text.encode(codec, "surrogatepass")


def _is_unicode_char(values):
    """ICU's U_IS_UNICODE_CHAR: in range, not a surrogate, not a noncharacter."""
    return (((values >= 0) & (values < 0xD800)) |
            ((values > 0xDFFF) & (values <= _MAX_CODE_POINT))) & \
        ~((values >= 0xFDD0) & (values <= 0xFDEF)) & ((values & 0xFFFE) != 0xFFFE)


def decode_unicode_rows(input, input_encoding, errors="replace", replacement_char=0xFFFD,  # noqa
                        replace_control_characters=False, name=None):
    """TF's UnicodeDecodeWithOffsets kernel: the strings of `input` (any shape, read in
    row-major order) -> [row_splits (int64), char_values (int32), char_to_byte_starts
    (int64)], the parts of the ragged results of `tf.strings.unicode_decode*`."""
    codec = _input_codec(input_encoding, "tf.strings.unicode_decode")
    options = _unicode_error_options(errors, replacement_char, replace_control_characters)

    def decode(strings):
        rows = [_decode_string(item, codec, options) for item in flat_strings(strings)]
        if options.policy == "strict" and any(row[2] for row in rows):
            raise _invalid_formatting()
        splits = np.zeros(len(rows) + 1, dtype=np.int64)
        splits[1:] = np.cumsum([len(row[0]) for row in rows])
        values = np.concatenate([row[0] for row in rows] + [np.zeros(0, np.int64)])
        offsets = np.concatenate([row[1] for row in rows] + [np.zeros(0, np.int64)])
        return (torch.from_numpy(splits), torch.from_numpy(values.astype(np.int32)),
                torch.from_numpy(offsets.astype(np.int64)))

    tensor, shape = string_input(input, "input")
    rows = shape.num_elements()
    return run_op(decode, "UnicodeDecodeWithOffsets", [tensor], lambda: [
        (dtypes.int64, TensorShape([None if rows is None else rows + 1])),
        (dtypes.int32, TensorShape([None])), (dtypes.int64, TensorShape([None]))], name)


def _invalid_formatting():
    return errors.InvalidArgumentError("Invalid formatting on input string")


def _invalid_code_point():
    return errors.InvalidArgumentError(
        "Code point is out of range for Unicode, or a noncharacter.")


def encode_unicode_rows(input_values, input_splits, output_encoding, errors="replace",  # noqa
                        replacement_char=0xFFFD, name=None):
    """TF's UnicodeEncode kernel: row i of the int32 code points `input_values` (rows cut
    at `input_splits`) -> one string; a 1-D string tensor of len(input_splits) - 1.
    With `input_splits` None, `input_values` is a dense [rows, width] tensor: its rows."""
    codec = _output_codec(output_encoding)
    options = _unicode_error_options(errors, replacement_char)
    inputs = [convert_to_tensor(input_values, dtype=dtypes.int32)]
    if input_splits is not None:
        inputs.append(convert_to_tensor(input_splits))
        if inputs[1].dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError("input_splits must be int32 or int64, got %s"
                            % inputs[1].dtype.name)

    def encode(code_points, row_splits=None):
        if row_splits is None:
            width = code_points.shape[1]
            row_splits = torch.arange(code_points.shape[0] + 1) * width
        code_points = code_points.reshape(-1).cpu().numpy().astype(np.int64)
        valid = _is_unicode_char(code_points)
        if not valid.all():
            if options.policy == "strict":
                raise _invalid_code_point()
            if options.policy == "replace":
                code_points = np.where(valid, code_points, options.replacement_char)
        bounds = row_splits.cpu().numpy()
        out = np.empty(max(len(bounds) - 1, 0), dtype=object)
        for i in range(len(out)):
            row = code_points[bounds[i]:bounds[i + 1]]
            out[i] = _encode_code_points(
                row[(row >= 0) & (row <= _MAX_CODE_POINT)], codec)
        return (out,)

    outer = inputs[-1].shape[0] if inputs[-1].shape.rank else None
    rows = None if outer is None else outer - (len(inputs) - 1)   # splits have one more
    return run_op(encode, "UnicodeEncode", inputs, lambda: [
        (dtypes.string, TensorShape([rows]))], name)[0]


@op("strings.unicode_transcode", graph_name="UnicodeTranscode")
def unicode_transcode(input, input_encoding, output_encoding, errors="replace",  # noqa: A002
                      replacement_char=65533, replace_control_characters=False, name=None):
    """`tf.strings.unicode_transcode`: each string decoded from `input_encoding` and encoded
    in `output_encoding` ('UTF-8', 'UTF-16-BE' or 'UTF-32-BE'). Under errors='strict' a
    malformed string, or a control character with `replace_control_characters`, raises
    InvalidArgumentError; otherwise it is replaced (or dropped under 'ignore')."""
    codec = _input_codec(input_encoding, "tf.strings.unicode_transcode")
    out_codec = _output_codec(output_encoding)
    options = _unicode_error_options(errors, replacement_char, replace_control_characters)
    found_error = []

    def transcode(item):
        values, _, malformed, control = _decode_string(item, codec, options)
        found_error.append(malformed or control)
        return _encode_code_points(values, out_codec)
    out = _map(transcode, _strings(input))
    if options.policy == "strict" and any(found_error):
        raise _invalid_formatting()
    return out


# ICU UScriptCode values of the scripts in _SCRIPT_RANGES.
_COMMON, _INHERITED, _ARABIC, _BOPOMOFO, _COPTIC, _CYRILLIC, _DEVANAGARI, _GREEK, _HAN, \
    _HANGUL, _HEBREW, _HIRAGANA, _KATAKANA, _LATIN, _THAI = \
    0, 1, 2, 5, 7, 8, 10, 14, 17, 18, 19, 20, 22, 25, 38
_UNKNOWN_SCRIPT = 103       # USCRIPT_UNKNOWN (Zzzz): unassigned, private-use, surrogates
_INVALID_CODE_POINT = -1    # USCRIPT_INVALID_CODE

# (first, last, script) from Unicode's Scripts.txt for the blocks covered: Basic Latin to
# Cyrillic Supplement, Hebrew, Arabic (+ Supplement, Extended, Presentation Forms, math),
# Devanagari (+ Extended), Thai, Hangul (Jamo, syllables, compatibility, halfwidth), Latin and
# Greek extensions, general punctuation and symbols, CJK (radicals, punctuation, kana,
# Bopomofo, enclosed and compatibility forms, all Han ideographs), halfwidth/fullwidth forms,
# mathematical alphanumerics, emoji and other pictographs, variation selectors and tags.
# Unassigned code points inside these ranges are found with unicodedata, not listed here.
_SCRIPT_RANGES = (
    (0x0000, 0x0040, _COMMON), (0x0041, 0x005A, _LATIN), (0x005B, 0x0060, _COMMON),
    (0x0061, 0x007A, _LATIN), (0x007B, 0x00A9, _COMMON), (0x00AA, 0x00AA, _LATIN),
    (0x00AB, 0x00B9, _COMMON), (0x00BA, 0x00BA, _LATIN), (0x00BB, 0x00BF, _COMMON),
    (0x00C0, 0x00D6, _LATIN), (0x00D7, 0x00D7, _COMMON), (0x00D8, 0x00F6, _LATIN),
    (0x00F7, 0x00F7, _COMMON), (0x00F8, 0x02B8, _LATIN), (0x02B9, 0x02DF, _COMMON),
    (0x02E0, 0x02E4, _LATIN), (0x02E5, 0x02E9, _COMMON), (0x02EA, 0x02EB, _BOPOMOFO),
    (0x02EC, 0x02FF, _COMMON), (0x0300, 0x036F, _INHERITED), (0x0370, 0x0373, _GREEK),
    (0x0374, 0x0374, _COMMON), (0x0375, 0x037D, _GREEK), (0x037E, 0x037E, _COMMON),
    (0x037F, 0x0384, _GREEK), (0x0385, 0x0385, _COMMON), (0x0386, 0x0386, _GREEK),
    (0x0387, 0x0387, _COMMON), (0x0388, 0x03E1, _GREEK), (0x03E2, 0x03EF, _COPTIC),
    (0x03F0, 0x03FF, _GREEK), (0x0400, 0x0484, _CYRILLIC), (0x0485, 0x0486, _INHERITED),
    (0x0487, 0x052F, _CYRILLIC), (0x0591, 0x05F4, _HEBREW), (0x0600, 0x0604, _ARABIC),
    (0x0605, 0x0605, _COMMON), (0x0606, 0x060B, _ARABIC), (0x060C, 0x060C, _COMMON),
    (0x060D, 0x061A, _ARABIC), (0x061B, 0x061B, _COMMON), (0x061C, 0x061E, _ARABIC),
    (0x061F, 0x061F, _COMMON), (0x0620, 0x063F, _ARABIC), (0x0640, 0x0640, _COMMON),
    (0x0641, 0x064A, _ARABIC), (0x064B, 0x0655, _INHERITED), (0x0656, 0x066F, _ARABIC),
    (0x0670, 0x0670, _INHERITED), (0x0671, 0x06DC, _ARABIC), (0x06DD, 0x06DD, _COMMON),
    (0x06DE, 0x06FF, _ARABIC), (0x0750, 0x077F, _ARABIC), (0x0870, 0x08E1, _ARABIC),
    (0x08E2, 0x08E2, _COMMON), (0x08E3, 0x08FF, _ARABIC), (0x0900, 0x0950, _DEVANAGARI),
    (0x0951, 0x0954, _INHERITED), (0x0955, 0x0963, _DEVANAGARI), (0x0964, 0x0965, _COMMON),
    (0x0966, 0x097F, _DEVANAGARI), (0x0E01, 0x0E3A, _THAI), (0x0E3F, 0x0E3F, _COMMON),
    (0x0E40, 0x0E5B, _THAI), (0x1100, 0x11FF, _HANGUL), (0x1C80, 0x1C88, _CYRILLIC),
    (0x1D00, 0x1D25, _LATIN), (0x1D26, 0x1D2A, _GREEK), (0x1D2B, 0x1D2B, _CYRILLIC),
    (0x1D2C, 0x1D5C, _LATIN), (0x1D5D, 0x1D61, _GREEK), (0x1D62, 0x1D65, _LATIN),
    (0x1D66, 0x1D6A, _GREEK), (0x1D6B, 0x1D77, _LATIN), (0x1D78, 0x1D78, _CYRILLIC),
    (0x1D79, 0x1DBE, _LATIN), (0x1DBF, 0x1DBF, _GREEK), (0x1DC0, 0x1DFF, _INHERITED),
    (0x1E00, 0x1EFF, _LATIN), (0x1F00, 0x1FFF, _GREEK), (0x2000, 0x200B, _COMMON),
    (0x200C, 0x200D, _INHERITED), (0x200E, 0x2070, _COMMON), (0x2071, 0x2071, _LATIN),
    (0x2072, 0x207E, _COMMON), (0x207F, 0x207F, _LATIN), (0x2080, 0x208F, _COMMON),
    (0x2090, 0x209C, _LATIN), (0x20A0, 0x20CF, _COMMON), (0x20D0, 0x20FF, _INHERITED),
    (0x2100, 0x2125, _COMMON), (0x2126, 0x2126, _GREEK), (0x2127, 0x2129, _COMMON),
    (0x212A, 0x212B, _LATIN), (0x212C, 0x2131, _COMMON), (0x2132, 0x2132, _LATIN),
    (0x2133, 0x214D, _COMMON), (0x214E, 0x214E, _LATIN), (0x214F, 0x215F, _COMMON),
    (0x2160, 0x2188, _LATIN), (0x2189, 0x27FF, _COMMON), (0x2900, 0x2BFF, _COMMON),
    (0x2C60, 0x2C7F, _LATIN), (0x2C80, 0x2CFF, _COPTIC), (0x2DE0, 0x2DFF, _CYRILLIC),
    (0x2E00, 0x2E7F, _COMMON), (0x2E80, 0x2FDF, _HAN), (0x2FF0, 0x3004, _COMMON),
    (0x3005, 0x3005, _HAN), (0x3006, 0x3006, _COMMON), (0x3007, 0x3007, _HAN),
    (0x3008, 0x3020, _COMMON), (0x3021, 0x3029, _HAN), (0x302A, 0x302D, _INHERITED),
    (0x302E, 0x302F, _HANGUL), (0x3030, 0x3037, _COMMON), (0x3038, 0x303B, _HAN),
    (0x303C, 0x303F, _COMMON), (0x3041, 0x3096, _HIRAGANA), (0x3099, 0x309A, _INHERITED),
    (0x309B, 0x309C, _COMMON), (0x309D, 0x309F, _HIRAGANA), (0x30A0, 0x30A0, _COMMON),
    (0x30A1, 0x30FA, _KATAKANA), (0x30FB, 0x30FC, _COMMON), (0x30FD, 0x30FF, _KATAKANA),
    (0x3105, 0x312F, _BOPOMOFO), (0x3131, 0x318E, _HANGUL), (0x3190, 0x319F, _COMMON),
    (0x31A0, 0x31BF, _BOPOMOFO), (0x31C0, 0x31EF, _COMMON), (0x31F0, 0x31FF, _KATAKANA),
    (0x3200, 0x321E, _HANGUL), (0x3220, 0x325F, _COMMON), (0x3260, 0x327E, _HANGUL),
    (0x327F, 0x32CF, _COMMON), (0x32D0, 0x32FE, _KATAKANA), (0x32FF, 0x32FF, _COMMON),
    (0x3300, 0x3357, _KATAKANA), (0x3358, 0x33FF, _COMMON), (0x3400, 0x4DBF, _HAN),
    (0x4DC0, 0x4DFF, _COMMON), (0x4E00, 0x9FFF, _HAN), (0xA640, 0xA69F, _CYRILLIC),
    (0xA700, 0xA721, _COMMON), (0xA722, 0xA787, _LATIN), (0xA788, 0xA78A, _COMMON),
    (0xA78B, 0xA7FF, _LATIN), (0xA8E0, 0xA8FF, _DEVANAGARI), (0xA960, 0xA97F, _HANGUL),
    (0xAB30, 0xAB5A, _LATIN), (0xAB5B, 0xAB5B, _COMMON), (0xAB5C, 0xAB64, _LATIN),
    (0xAB65, 0xAB65, _GREEK), (0xAB66, 0xAB69, _LATIN), (0xAB6A, 0xAB6B, _COMMON),
    (0xAC00, 0xD7FF, _HANGUL), (0xF900, 0xFAFF, _HAN), (0xFB00, 0xFB06, _LATIN),
    (0xFB1D, 0xFB4F, _HEBREW), (0xFB50, 0xFD3D, _ARABIC), (0xFD3E, 0xFD3F, _COMMON),
    (0xFD40, 0xFDFF, _ARABIC), (0xFE00, 0xFE0F, _INHERITED), (0xFE10, 0xFE1F, _COMMON),
    (0xFE20, 0xFE2F, _INHERITED), (0xFE30, 0xFE6F, _COMMON), (0xFE70, 0xFEFE, _ARABIC),
    (0xFEFF, 0xFF20, _COMMON), (0xFF21, 0xFF3A, _LATIN), (0xFF3B, 0xFF40, _COMMON),
    (0xFF41, 0xFF5A, _LATIN), (0xFF5B, 0xFF65, _COMMON), (0xFF66, 0xFF6F, _KATAKANA),
    (0xFF70, 0xFF70, _COMMON), (0xFF71, 0xFF9D, _KATAKANA), (0xFF9E, 0xFF9F, _COMMON),
    (0xFFA0, 0xFFDC, _HANGUL), (0xFFE0, 0xFFFD, _COMMON), (0x10780, 0x107BF, _LATIN),
    (0x1D400, 0x1D7FF, _COMMON), (0x1DF00, 0x1DFFF, _LATIN), (0x1EE00, 0x1EEFF, _ARABIC),
    (0x1F000, 0x1F1FF, _COMMON), (0x1F200, 0x1F200, _HIRAGANA), (0x1F201, 0x1FBFF, _COMMON),
    (0x20000, 0x3FFFF, _HAN), (0xE0001, 0xE007F, _COMMON), (0xE0100, 0xE01EF, _INHERITED),
)
_SCRIPT_FIRST = np.array([r[0] for r in _SCRIPT_RANGES], dtype=np.int64)
_SCRIPT_LAST = np.array([r[1] for r in _SCRIPT_RANGES], dtype=np.int64)
_SCRIPT_CODE = np.array([r[2] for r in _SCRIPT_RANGES], dtype=np.int32)


def _script_of(code_point):
    """ICU's script code of one code point (see `unicode_script`)."""
    if not 0 <= code_point <= _MAX_CODE_POINT:
        return _INVALID_CODE_POINT
    if unicodedata.category(chr(code_point)) in ("Cn", "Co", "Cs"):
        return _UNKNOWN_SCRIPT
    index = np.searchsorted(_SCRIPT_FIRST, code_point, side="right") - 1
    if index < 0 or code_point > _SCRIPT_LAST[index]:
        raise NotImplementedError(
            "tf.strings.unicode_script: tfcompat's script table does not cover U+%04X; it "
            "covers Latin, Greek, Cyrillic, Hebrew, Arabic, Devanagari, Thai, Hangul, Han, "
            "Hiragana, Katakana, Bopomofo, Coptic and the Common/Inherited characters of "
            "their blocks" % code_point)
    return int(_SCRIPT_CODE[index])


def _unicode_scripts(code_points):
    values = code_points.cpu().numpy().astype(np.int64)
    unique, inverse = np.unique(values, return_inverse=True)
    scripts = np.array([_script_of(int(v)) for v in unique], dtype=np.int32)
    return (torch.from_numpy(scripts[inverse.reshape(-1)].reshape(values.shape)),)


@tf_export("strings.unicode_script")
def unicode_script(input, name=None):  # noqa: A002 - TF's name
    """`tf.strings.unicode_script`: ICU's UScriptCode (int32) of each int32 code point:
    -1 for a value outside 0..0x10FFFF, 103 (Unknown) for unassigned, private-use and
    surrogate code points. Scripts come from a table covering the scripts listed in
    `_SCRIPT_RANGES`; an assigned code point outside it raises NotImplementedError rather
    than get a wrong script. Assignment follows Python's unicodedata (Unicode 14), where
    TF's ICU may be older (code points assigned since then are Unknown in TF). A
    RaggedTensor gives a RaggedTensor of the same row partitions, as TF's ragged dispatch."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(unicode_script(input.flat_values, name))
    tensor = convert_to_tensor(input, dtype=dtypes.int32)
    return run_op(_unicode_scripts, "UnicodeScript", [tensor],
                  lambda: [(dtypes.int32, tensor.shape)], name)[0]
