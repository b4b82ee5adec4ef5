"""String ops on string tensors (numpy object arrays of `bytes`).

They are for eager mode. Torch has no fake string tensors, so while a graph is built these
ops run on the stand-ins the graph builder gives string inputs: real values for string
constants (correct), an empty placeholder array for fed strings (fails or gives wrong static
shapes); run scripts that feed strings to them eagerly. `tf.strings.split` in TF2 returns a
RaggedTensor, which tfcompat does not have: it raises NotImplementedError (TF1's
SparseTensor result works).
"""
import base64
import builtins
import re

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import constant_to_torch, op, to_torch
from tfcompat.ops.array_ops import _as_ints, _axis
from tfcompat.ops.sparse_ops import SparseTensor


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
    count = len if unit == "BYTE" else (lambda b: len(b.decode("utf-8")))
    return _numeric(_map(count, _strings(input), np.int32), dtypes.int32)


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


def _check_result_type(result_type):
    if result_type == "RaggedTensor":
        raise NotImplementedError("tfcompat has no RaggedTensor: use result_type="
                                  "'SparseTensor' (the TF1 default)")
    if result_type != "SparseTensor":
        raise ValueError("result_type must be 'SparseTensor' or 'RaggedTensor', got %r"
                         % (result_type,))


@tf_export(v1=["string_split"])
def string_split(source, sep=None, skip_empty=True, delimiter=None,
                 result_type="SparseTensor", name=None):
    """TF1 `tf.string_split`: split a 1-D string tensor into a SparseTensor of tokens.

    Each byte of `sep` (default " ") is a delimiter; an empty `sep` splits into bytes;
    empty tokens are dropped unless `skip_empty=False`.
    """
    _check_result_type(result_type)
    if sep is None:
        sep = " " if delimiter is None else delimiter
    return SparseTensor(*_string_split(source, sep, skip_empty))


@tf_export(v1=["strings.split"])
def strings_split_v1(input=None, sep=None, maxsplit=-1, result_type="SparseTensor",  # noqa
                     source=None, name=None):
    """TF1 `tf.strings.split`: `sep` is a whole separator (None: runs of whitespace) and at
    most `maxsplit` splits happen; a SparseTensor with one more dimension than `input`."""
    _check_result_type(result_type)
    if input is None:
        input = source  # noqa: A001 - TF's name
    return SparseTensor(*_string_split_v2(input, "" if sep is None else sep, maxsplit))


@tf_export(v2=["strings.split"])
def strings_split_v2(input, sep=None, maxsplit=-1, name=None):  # noqa: A002 - TF's name
    """TF2 `tf.strings.split` returns a RaggedTensor, which tfcompat does not implement."""
    raise NotImplementedError(
        "tf.strings.split returns a RaggedTensor in TF2, which tfcompat does not implement; "
        "use tf.compat.v1.strings.split(..., result_type='SparseTensor') instead")


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


@op("as_string", "strings.as_string", v1=["dtypes.as_string"], graph_name="AsString")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,  # noqa: A002
              fill="", name=None):
    """`tf.strings.as_string`: printf-style formatting as TF (floats "%f" by default, so
    1.5 -> b"1.500000"; bools b"true"/b"false"). A string input is returned as it is."""
    t = to_torch(input)
    if isinstance(t, np.ndarray):
        return t
    dtype = dtypes.from_torch(t.dtype)
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
    values = t.detach().cpu()
    values = values.float() if values.dtype == torch.bfloat16 else values
    array = values.numpy()
    return _map(lambda v: fmt(v.item()).encode("ascii"), np.asarray(array))


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
        text = item if unit == "BYTE" else item.decode("utf-8")
        p, n, size = int(pos_b[index]), int(len_b[index]), builtins.len(text)
        if abs(p) > size:
            raise errors.InvalidArgumentError(
                "pos %d out of range for string b'%s' at index %s"
                % (p, item.decode("utf-8", "replace"), list(index)))
        start = p + size if p < 0 else p
        piece = text[start:] if n < 0 else text[start:start + n]
        out[index] = piece if unit == "BYTE" else piece.encode("utf-8")
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
        {_axis(a, array.ndim, "ReduceJoin") for a in _as_ints(axis)})
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
