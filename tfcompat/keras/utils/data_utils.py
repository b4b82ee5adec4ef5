"""`tf.keras.utils` data helpers: `get_file` (the Keras cache, no downloads), `Sequence`,
`pad_sequences`.

`get_file` looks in `$KERAS_HOME` (default `~/.keras`, or `/tmp/.keras` when that is not
writable, as Keras does) under `cache_subdir`. Where we differ: tfcompat never downloads, so a
file missing from the cache raises an error naming the file, its origin and where to save it;
an archive already extracted there (`untar=True`) is used without the archive.
"""
import hashlib
import os
import tarfile
import zipfile

import numpy as np

from tfcompat._api import tf_export


def _hash(path, algorithm):
    digest = hashlib.sha256() if algorithm in ("sha256", "auto") else hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(65535), b""):
            digest.update(chunk)
    return digest.hexdigest()


def cache_directories(cache_dir=None):
    """The Keras cache directories to look in, in Keras' order of preference."""
    if cache_dir is None:
        cache_dir = os.environ.get("KERAS_HOME", os.path.join(os.path.expanduser("~"),
                                                              ".keras"))
    cache_dir = os.path.expanduser(cache_dir)
    fallback = os.path.join("/tmp", ".keras")
    if os.access(cache_dir, os.W_OK) or cache_dir == fallback:
        return [cache_dir]
    return [cache_dir, fallback]


@tf_export("keras.utils.get_file")
def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None):
    """The cached copy of `origin`: `<cache dir>/<cache_subdir>/<fname>` (see the module
    docstring; a hash given is checked against the cached file)."""
    if fname is None:
        fname = os.path.basename(origin or "")
    if not fname:
        raise ValueError("Can't parse the file name from the origin provided: '%s'. Please "
                         "specify the `fname` argument." % (origin,))
    candidates = [os.path.join(directory, cache_subdir)
                  for directory in cache_directories(cache_dir)]
    for datadir in candidates:
        fpath = os.path.join(datadir, fname + ".tar.gz" if untar else fname)
        target = os.path.join(datadir, fname)
        if untar and os.path.isdir(target):
            return target
        if os.path.exists(fpath):
            break
    else:
        datadir = candidates[0]
        fpath = os.path.join(datadir, fname + ".tar.gz" if untar else fname)
        raise IOError("tfcompat does not download files: %s is not in the Keras cache. "
                      "Download %s yourself and save it as %s%s." % (
                          fname, origin, fpath,
                          " (or extract it there)" if untar else ""))
    expected = file_hash or md5_hash
    if expected is not None:
        algorithm = "md5" if md5_hash is not None and file_hash is None else hash_algorithm
        if algorithm == "auto":
            algorithm = "sha256" if len(expected) == 64 else "md5"
        if _hash(fpath, algorithm) != expected:
            raise ValueError("The cached file %s does not match the expected %s hash %s; "
                             "replace it with a complete copy of %s."
                             % (fpath, algorithm, expected, origin))
    if untar:
        target = os.path.join(datadir, fname)
        with tarfile.open(fpath) as archive:
            archive.extractall(datadir, filter="data")
        return target
    if extract:
        if zipfile.is_zipfile(fpath):
            with zipfile.ZipFile(fpath) as archive:
                archive.extractall(datadir)
        elif tarfile.is_tarfile(fpath):
            with tarfile.open(fpath) as archive:
                archive.extractall(datadir, filter="data")
    return fpath


@tf_export("keras.utils.Sequence")
class Sequence(object):
    """Base class of indexable batch sources for `fit`: implement `__getitem__(index)` (one
    batch) and `__len__` (batches per epoch); `on_epoch_end` runs after each epoch."""

    def __getitem__(self, index):
        raise NotImplementedError("A keras.utils.Sequence must implement __getitem__")

    def __len__(self):
        raise NotImplementedError("A keras.utils.Sequence must implement __len__")

    def on_epoch_end(self):
        """Called at the end of every epoch (shuffle here if needed)."""

    def __iter__(self):
        for index in range(len(self)):
            yield self[index]


@tf_export("keras.utils.pad_sequences", "keras.preprocessing.sequence.pad_sequences")
def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """Sequences of different lengths as one array `(len(sequences), maxlen, ...)`: longer
    ones cut at the start (`truncating="pre"`) or end, shorter ones padded with `value`
    before (`padding="pre"`) or after."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, sample_shape = [], None
    for x in sequences:
        try:
            lengths.append(len(x))
        except TypeError:
            raise ValueError("`sequences` must be a list of iterables. Found non-iterable: "
                             "%s" % (x,)) from None
        if sample_shape is None and len(x):
            sample_shape = np.asarray(x).shape[1:]
    sample_shape = sample_shape or ()
    if maxlen is None:
        maxlen = int(np.max(lengths)) if lengths else 0
    is_text = np.issubdtype(dtype, np.str_)
    if isinstance(value, str) and dtype != object and not is_text:
        raise ValueError("`dtype` %s is not compatible with `value`'s type: %s\nYou should set "
                         "`dtype=object` for variable length strings." % (dtype, type(value)))
    if padding not in ("pre", "post"):
        raise ValueError('Padding type "%s" not understood' % (padding,))
    if truncating not in ("pre", "post"):
        raise ValueError('Truncating type "%s" not understood' % (truncating,))
    result = np.full((len(sequences), maxlen) + tuple(sample_shape), value, dtype=dtype)
    for index, sequence in enumerate(sequences):
        if not len(sequence) or not maxlen:
            continue
        kept = sequence[-maxlen:] if truncating == "pre" else sequence[:maxlen]
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != tuple(sample_shape):
            raise ValueError("Shape of sample %s of sequence at position %d is different from "
                             "expected shape %s" % (kept.shape[1:], index, tuple(sample_shape)))
        if padding == "post":
            result[index, :len(kept)] = kept
        else:
            result[index, -len(kept):] = kept
    return result
