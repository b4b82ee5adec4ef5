"""`tf.compat`'s string and type helpers (TF's tensorflow/python/util/compat.py): bytes/text
conversions with TF's TypeError messages, path conversion and the number type tuples."""
import codecs
import numbers

import numpy as np

from tfcompat._api import export_constant, tf_export


@tf_export("compat.as_bytes")
def as_bytes(bytes_or_text, encoding="utf-8"):
    """`bytes` from a bytearray, bytes or str (encoded with `encoding`); TypeError otherwise."""
    encoding = codecs.lookup(encoding).name
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


@tf_export("compat.as_text")
def as_text(bytes_or_text, encoding="utf-8"):
    """`str` from a str or bytes (decoded with `encoding`); TypeError otherwise."""
    encoding = codecs.lookup(encoding).name
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


@tf_export("compat.as_str")
def as_str(bytes_or_text, encoding="utf-8"):
    """`as_text` (TF's Python 3 `as_str`)."""
    return as_text(bytes_or_text, encoding)


@tf_export("compat.as_str_any")
def as_str_any(value, encoding="utf-8"):
    """`as_str` for bytes, `str(value)` for anything else."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


@tf_export("compat.path_to_str")
def path_to_str(path):
    """The `str` of an `os.PathLike`; any other value is returned as it is."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path


def path_to_bytes(path):
    """The `bytes` of an `os.PathLike` or str (TF's internal `compat.path_to_bytes`)."""
    if hasattr(path, "__fspath__"):
        path = path.__fspath__()
    return as_bytes(path)


integral_types = export_constant((numbers.Integral, np.integer), "compat.integral_types")
real_types = export_constant((numbers.Real, np.integer, np.floating), "compat.real_types")
complex_types = export_constant((numbers.Complex, np.number), "compat.complex_types")
bytes_or_text_types = export_constant((bytes, str), "compat.bytes_or_text_types")
