"""Reading the files Keras caches for its datasets, without unpickling arbitrary objects.

Keras reads `.npz` files with `allow_pickle=True` (the imdb/reuters sequences are object
arrays of lists) and CIFAR batches with `pickle`. Here pickles may only rebuild Python
containers and numpy arrays: a cache file that asks for anything else is refused.
"""
import io
import zipfile

import numpy as np

from tfcompat.keras.utils.data_utils import get_file
from tfcompat.util import safe_pickle

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"

_ALLOWED_GLOBALS = dict.fromkeys({
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "scalar"), ("copy_reg", "_reconstructor"),
    ("copyreg", "_reconstructor"), ("__builtin__", "object"), ("builtins", "object"),
    ("_codecs", "encode"),
})


def load_pickle(fileobj, encoding="bytes"):
    return safe_pickle.load(fileobj, _ALLOWED_GLOBALS, "a Keras dataset file: it may only "
                            "hold lists, dicts and numpy arrays", encoding=encoding)


def _read_npy(fileobj):
    version = np.lib.format.read_magic(fileobj)
    read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}.get(version)
    if read_header is None:
        raise ValueError("Unsupported .npy format version %s in a Keras dataset file"
                         % (version,))
    shape, fortran_order, dtype = read_header(fileobj)
    if dtype.hasobject:
        array = load_pickle(fileobj, encoding="latin1")
        if not isinstance(array, np.ndarray):
            raise ValueError("Unexpected object %r in a .npy entry" % (type(array),))
        return array
    data = np.frombuffer(fileobj.read(), dtype=dtype)
    if fortran_order:
        return data.reshape(shape[::-1]).transpose()
    return data.reshape(shape)


def load_npz(path):
    """{name: array} of a `.npz` file (object arrays through the restricted unpickler)."""
    with zipfile.ZipFile(path) as archive:
        result = {}
        for member in archive.namelist():
            if member.endswith(".npy"):
                with archive.open(member) as f:
                    result[member[:-4]] = _read_npy(io.BytesIO(f.read()))
        return result


def cached_file(fname, origin_name=None, **kwargs):
    """The path of a dataset file in the Keras cache (Keras' `get_file` call)."""
    return get_file(fname, origin=ORIGIN + (origin_name or fname), **kwargs)


def remove_long_sequences(maxlen, sequences, labels):
    """Keras' `_remove_long_seq`: keep the sequences shorter than `maxlen`."""
    kept = [(x, y) for x, y in zip(sequences, labels) if len(x) < maxlen]
    return [x for x, _ in kept], [y for _, y in kept]


def shift_words(sequences, start_char, index_from):
    """Keras' imdb/reuters indexing: word indices shifted by `index_from`, each sequence
    starting with `start_char` (unless None)."""
    if start_char is not None:
        sequences = [[start_char] + [w + index_from for w in x] for x in sequences]
    elif index_from:
        sequences = [[w + index_from for w in x] for x in sequences]
    else:
        sequences = [list(x) for x in sequences]
    return sequences


def limit_words(sequences, num_words, skip_top, oov_char):
    """Words outside [skip_top, num_words) become `oov_char` (or are dropped if None)."""
    if not num_words:
        num_words = max(max(x) for x in sequences if len(x))
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in sequences]
    return [[w for w in x if skip_top <= w < num_words] for x in sequences]


def object_array(sequences):
    """A 1-D object array of lists (what Keras returns for imdb/reuters)."""
    array = np.empty(len(sequences), dtype=object)
    for i, x in enumerate(sequences):
        array[i] = x
    return array
