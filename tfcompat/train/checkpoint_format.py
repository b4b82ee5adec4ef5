"""tfcompat's checkpoint files, and opening any checkpoint (ours or TensorFlow's) by prefix.

Our checkpoint with prefix P is one file, `P.safetensors` (no pickle: loading never runs
code; `safetensors.torch.load_file` reads it in plain PyTorch). Tensors are keyed by TF
variable names (`tf.train.Saver`) or object-graph keys (`tf.train.Checkpoint`). The
safetensors metadata (str -> str) holds:

- `format`: "tfcompat-checkpoint", `format_version`: "1";
- `checksum`: "crc32c" (or "crc32" where google-crc32c is not installed) and `checksums`: JSON
  {key: checksum of the tensor's stored bytes} - safetensors itself checks no data;
- `dtypes`: JSON {key: TF dtype name} for tensors stored in another dtype: `string` tensors as
  a uint8 blob of little-endian int64 lengths then the bytes (`shapes` gives their shape),
  `complex128` as float64 with a trailing dimension of 2;
- `object_graph`: the `TrackableObjectGraph` proto as JSON (object-based checkpoints), shown
  by the reader as TF's `_CHECKPOINTABLE_OBJECT_GRAPH` string tensor.

Writes are atomic: a temporary file in the same directory, flushed and fsynced, then
`os.replace` (and the directory fsynced), so a crash leaves either the old file or the new
one. Any damage found when reading raises `DataLossError` naming the file.

A temporary file is named `.NAME.tmp-<host>-<pid>-<uuid>` (hidden, beside NAME), recording its
writer. A writer killed mid-save leaves one behind; each atomic write removes those of its
directory whose writer is gone (`remove_abandoned_temp_files`).
"""
import contextlib
import ctypes
import functools
import json
import os
import re
import shutil
import socket
import struct
import time
import uuid
import zlib

import numpy as np
import torch

from tfcompat.framework import dtypes, errors
from tfcompat.framework.tensor import EagerTensor
from tfcompat.train import saver, tensor_bundle

SUFFIX = ".safetensors"
FORMAT = "tfcompat-checkpoint"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"

_CHECKSUMS = {"crc32c": tensor_bundle.crc32c, "crc32": lambda data: zlib.crc32(data)}
_WRITE_CHECKSUM = "crc32c" if tensor_bundle._google_crc32c is not None else "crc32"
_SAFETENSORS_DTYPES = {
    "F16": dtypes.float16, "BF16": dtypes.bfloat16, "F32": dtypes.float32,
    "F64": dtypes.float64, "I8": dtypes.int8, "I16": dtypes.int16, "I32": dtypes.int32,
    "I64": dtypes.int64, "U8": dtypes.uint8, "U16": dtypes.uint16, "U32": dtypes.uint32,
    "U64": dtypes.uint64, "BOOL": dtypes.bool, "C64": dtypes.complex64}
_SAFETENSORS_NAMES = {d.torch_dtype: name for name, d in _SAFETENSORS_DTYPES.items()}


# ---------------------------------------------------------------- atomic writes


def _fsync_dir(directory):
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return  # platforms without directory handles
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


HOST = re.sub(r"[^A-Za-z0-9._-]", "_", socket.gethostname()) or "localhost"
# Temporary files whose writer cannot be asked whether it still runs (another host, or the
# earlier `.NAME.tmp-<uuid>` names without a pid) are abandoned once untouched this long.
ABANDONED_TEMP_AGE_SECONDS = 3600.0
_TEMP_NAME = re.compile(r"^\..+\.tmp-(?:(?P<host>[A-Za-z0-9._-]+)-(?P<pid>[0-9]+)-)?"
                        r"[0-9a-f]{32}$")
_temp_names_in_flight = set()  # basenames of this process's temporary files being written


def _process_running(pid):
    """Whether process `pid` of this host exists (POSIX: signal 0 checks without sending)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, under another user
        return True
    return True


def _is_abandoned_temp(directory, name, now):
    """Whether `name` is one of our temporary files whose writer no longer runs: this process
    (same host and pid) not writing it now, a dead pid of this host, or, where liveness cannot
    be checked (another host, old names without a pid, non-POSIX), untouched for an hour."""
    match = _TEMP_NAME.match(name)
    if match is None:
        return False
    host, pid = match.group("host"), match.group("pid")
    if host == HOST and int(pid) == os.getpid():
        return name not in _temp_names_in_flight
    if host == HOST and os.name == "posix":
        return not _process_running(int(pid))
    try:
        modified = os.stat(os.path.join(directory, name)).st_mtime
    except OSError:
        return False
    return now - modified > ABANDONED_TEMP_AGE_SECONDS


def remove_abandoned_temp_files(directory):
    """Delete the temporary files in `directory` left by atomic writes whose writer was killed
    (see `_is_abandoned_temp`); a temporary file of a running writer is never touched."""
    try:
        names = [n for n in os.listdir(directory or ".") if n.startswith(".") and ".tmp-" in n]
    except OSError:
        return
    now = time.time()
    for name in names:
        if _is_abandoned_temp(directory, name, now):
            with contextlib.suppress(OSError):
                os.remove(os.path.join(directory, name))


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path beside `path`; on success fsync it and rename it to `path`.
    Abandoned temporary files of the directory are removed first."""
    directory = os.path.dirname(path)
    name = ".%s.tmp-%s-%d-%s" % (os.path.basename(path), HOST, os.getpid(), uuid.uuid4().hex)
    tmp = os.path.join(directory, name)
    _temp_names_in_flight.add(name)
    try:
        remove_abandoned_temp_files(directory)
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    finally:
        _temp_names_in_flight.discard(name)
    _fsync_dir(directory)


@contextlib.contextmanager
def atomic_file(path):
    """Yield a binary file object; its contents replace `path` atomically on success."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb", buffering=0) as f:
            yield f


@contextlib.contextmanager
def atomic_directory(path):
    """Yield a temporary directory beside `path`; on success its files are fsynced and it
    takes the place of `path` in one step (Linux's renameat2 RENAME_EXCHANGE swaps it with
    an existing directory, which is then removed), so a crash leaves the old directory or
    the new one, never a half-written one, at `path`. Where the swap is not available, the
    old directory is moved aside first (a crash between the two renames leaves it beside
    `path`, named `.<name>.tmp-...old`). Temporary directories of saves killed earlier are
    removed."""
    path = os.path.abspath(path)
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    prefix = ".%s.tmp-" % os.path.basename(path)
    _remove_abandoned_directories(parent, prefix)
    name = "%s%s-%d-%s" % (prefix, HOST, os.getpid(), uuid.uuid4().hex)
    tmp = os.path.join(parent, name)
    _temp_names_in_flight.add(name)
    os.makedirs(tmp)
    try:
        yield tmp
        for root, _, files in os.walk(tmp):
            for filename in files:
                fd = os.open(os.path.join(root, filename), os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            _fsync_dir(root)
        if os.path.isdir(path) and not os.path.islink(path) and _exchange(tmp, path):
            _fsync_dir(parent)
        else:
            old = None
            if os.path.lexists(path):
                old = tmp + ".old"
                os.replace(path, old)
            os.replace(tmp, path)
            _fsync_dir(parent)
            if old is not None and os.path.isdir(old):
                shutil.rmtree(old, ignore_errors=True)
            elif old is not None:
                os.remove(old)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)      # the old directory after a swap
        _temp_names_in_flight.discard(name)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a, b):
    """Swap directories `a` and `b` atomically (renameat2 RENAME_EXCHANGE); False where the
    system does not offer it."""
    renameat2 = getattr(_libc(), "renameat2", None)
    if renameat2 is None:
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0


@functools.lru_cache(maxsize=None)
def _libc():
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _remove_abandoned_directories(parent, prefix):
    """Remove the `prefix*` temporary directories in `parent` whose writer no longer runs
    (a save killed mid-way; see `_is_abandoned_temp`)."""
    now = time.time()
    for name in os.listdir(parent):
        path = os.path.join(parent, name)
        if name.startswith(prefix) and os.path.isdir(path) and \
                _is_abandoned_temp(parent, name, now):
            shutil.rmtree(path, ignore_errors=True)


def write_bytes_atomic(path, data):
    with atomic_file(path) as f:
        f.write(data)


def write_text_atomic(path, text):
    with atomic_file(path) as f:
        f.write(text.encode("utf-8"))


# ---------------------------------------------------------------- values


def to_numpy(value):
    """(numpy array, tf DType) of a torch tensor, EagerTensor, numpy or string array.

    bfloat16 comes back as its uint16 bit pattern (numpy has no bfloat16); a tensor saved as
    slices (tensor_bundle.TensorSlices) as the whole tensor."""
    if isinstance(value, tensor_bundle.TensorSlices):
        value = value.full()
    if isinstance(value, EagerTensor):
        value = value._t
    if isinstance(value, torch.Tensor):
        dtype = dtypes.from_torch(value.dtype)
        t = value.detach().cpu()
        if t.dtype == torch.bfloat16:
            t = t.view(torch.int16)
            return t.numpy().view(np.uint16), dtype
        return t.numpy(), dtype
    array = np.asarray(value)
    if array.dtype.kind in "OSU":
        return np.array(array, dtype=object), dtypes.string
    return array, dtypes.as_dtype(array.dtype)


def to_torch_or_strings(array, dtype):
    """The inverse of `to_numpy`: a torch tensor, or a numpy object array for strings."""
    if dtype == dtypes.string:
        return array
    if not array.flags.c_contiguous or not array.flags.writeable:
        array = array.copy()
    if dtype == dtypes.bfloat16:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def _bytes_of(t):
    """A read-only view of a CPU tensor's bytes (no copy)."""
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.view(torch.int16)
    elif t.dtype in (torch.uint16, torch.uint32, torch.uint64):
        t = t.view({torch.uint16: torch.int16, torch.uint32: torch.int32,
                    torch.uint64: torch.int64}[t.dtype])
    elif t.dtype == torch.complex64:
        t = torch.view_as_real(t)
    array = t.reshape(-1).numpy().view(np.uint8)
    array.setflags(write=False)
    return array


def _encode_strings(array):
    items = [s.encode("utf-8") if isinstance(s, str) else bytes(s) for s in array.reshape(-1)]
    lengths = np.array([len(s) for s in items], dtype="<i8")
    blob = lengths.tobytes() + b"".join(items)
    return torch.frombuffer(bytearray(blob), dtype=torch.uint8) if blob else \
        torch.zeros(0, dtype=torch.uint8)


def _decode_strings(blob, shape, key, filename):
    count = int(np.prod(shape, dtype=np.int64))
    raw = blob.numpy().tobytes()
    if len(raw) < 8 * count:
        raise errors.DataLossError("Unable to read %s: string tensor %s is truncated"
                                   % (filename, key))
    lengths = np.frombuffer(raw, dtype="<i8", count=count)
    if (lengths < 0).any() or 8 * count + int(lengths.sum()) != len(raw):
        raise errors.DataLossError("Unable to read %s: string tensor %s has inconsistent "
                                   "lengths" % (filename, key))
    out = np.empty(count, dtype=object)
    pos = 8 * count
    for i, n in enumerate(lengths):
        out[i] = raw[pos:pos + int(n)]
        pos += int(n)
    return out.reshape(shape)


# ---------------------------------------------------------------- writing


FORMAT_ENV = "TFCOMPAT_CHECKPOINT_FORMAT"


def write_format():
    """"safetensors" (ours, the default) or "tensorflow" (TF's tensor bundle: `prefix.index` +
    `prefix.data-00000-of-00001`, which real TensorFlow restores), as TFCOMPAT_CHECKPOINT_FORMAT
    says."""
    value = os.environ.get(FORMAT_ENV, "").strip().lower() or "safetensors"
    if value not in ("safetensors", "tensorflow"):
        raise ValueError("%s must be 'safetensors' or 'tensorflow', not %r"
                         % (FORMAT_ENV, os.environ[FORMAT_ENV]))
    return value


def write(prefix, tensors, object_graph=None):
    """Write {key: torch tensor / numpy array / string array} as a checkpoint at `prefix` in
    `write_format()`; files of the other format left at `prefix` by an earlier save are then
    removed, so a reader finds the new one. Returns the path of the main file written."""
    if write_format() == "tensorflow":
        if object_graph is not None:
            tensors = dict(tensors)
            tensors[OBJECT_GRAPH_KEY] = np.array(object_graph.SerializeToString(), dtype=object)
        tensor_bundle.write_bundle(prefix, tensors)
        stale = [prefix + SUFFIX]
        path = tensor_bundle.index_filename(prefix)
    else:
        path = _write_safetensors_checkpoint(prefix, tensors, object_graph)
        stale = [f for f in files_of(prefix) if f.endswith(".index") or ".data-" in f]
    for name in stale:
        with contextlib.suppress(FileNotFoundError):
            os.remove(name)
    return path


def _write_safetensors_checkpoint(prefix, tensors, object_graph):
    stored, special, shapes, checksums = {}, {}, {}, {}
    checksum = _CHECKSUMS[_WRITE_CHECKSUM]
    for key, value in tensors.items():
        if isinstance(value, EagerTensor):
            value = value._t
        if isinstance(value, torch.Tensor):
            t = value.detach()
            if t.device.type != "cpu":
                t = t.cpu()
            if t.dtype == torch.complex128:
                special[key] = "complex128"
                t = torch.view_as_real(t)
            t = t.contiguous()
        else:
            array, dtype = to_numpy(value)
            if dtype == dtypes.string:
                special[key] = "string"
                shapes[key] = list(array.shape)
                t = _encode_strings(array)
            else:
                t = to_torch_or_strings(array, dtype).contiguous()
        stored[key] = t
        checksums[key] = checksum(_bytes_of(t))
    metadata = {"format": FORMAT, "format_version": "1", "checksum": _WRITE_CHECKSUM,
                "checksums": json.dumps(checksums), "dtypes": json.dumps(special),
                "shapes": json.dumps(shapes)}
    if object_graph is not None:
        from google.protobuf import json_format
        metadata["object_graph"] = json_format.MessageToJson(object_graph, indent=None)
    path = prefix + SUFFIX
    with atomic_file(path) as f:
        write_safetensors(f, stored, metadata)
    return path


def write_safetensors(f, tensors, metadata):
    """Write CPU contiguous tensors in the safetensors layout (8-byte little-endian header
    length, JSON header with dtype/shape/data_offsets and `__metadata__`, then the raw bytes)
    straight from the tensors' memory. Larger elements first, so every tensor is aligned."""
    tensors = dict(sorted(tensors.items(), key=lambda kv: (-kv[1].element_size(), kv[0])))
    header, offset = {"__metadata__": metadata}, 0
    for key, t in tensors.items():
        size = t.numel() * t.element_size()
        header[key] = {"dtype": _SAFETENSORS_NAMES[t.dtype], "shape": list(t.shape),
                       "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    f.write(struct.pack("<Q", len(text)) + text)
    for t in tensors.values():
        f.write(_bytes_of(t))


# ---------------------------------------------------------------- reading


class _Reader(object):
    """What both readers offer: keys(), dtype(key), shape(key), get_tensor(key) -> numpy,
    get_value(key) -> torch tensor (numpy object array for strings), object_graph()."""

    def has_tensor(self, key):
        return key in self.keys()

    def get_value(self, key):
        return to_torch_or_strings(self.get_tensor(key), self.dtype(key))

    def object_graph(self):
        """The TrackableObjectGraph proto of an object-based checkpoint, else None."""
        from tensorboard.compat.proto import trackable_object_graph_pb2
        if not self.has_tensor(OBJECT_GRAPH_KEY):
            return None
        try:
            return trackable_object_graph_pb2.TrackableObjectGraph.FromString(
                self.get_tensor(OBJECT_GRAPH_KEY)[()])
        except Exception as e:  # protobuf DecodeError
            raise errors.DataLossError("Unable to read the object graph of %s: %s"
                                       % (self.prefix, e)) from None


class SafetensorsReader(_Reader):
    """A tfcompat checkpoint (`prefix.safetensors`)."""

    def __init__(self, prefix):
        from safetensors import safe_open
        self.prefix = prefix
        self.filename = prefix + SUFFIX
        try:
            self._file = safe_open(self.filename, framework="pt")
            metadata = self._file.metadata() or {}
            self._special = json.loads(metadata.get("dtypes", "{}"))
            self._shapes = json.loads(metadata.get("shapes", "{}"))
            self._checksums = json.loads(metadata.get("checksums", "{}"))
            self._checksum = _CHECKSUMS[metadata.get("checksum", "crc32")]
            self._stored = set(self._file.keys())
            if metadata.get("format") == FORMAT and set(self._checksums) != self._stored:
                raise ValueError("its checksum table does not match its tensors")
            self._graph_json = metadata.get("object_graph")
            if self._graph_json is not None:
                self._graph = self._parse_graph(self._graph_json)
        except FileNotFoundError:
            raise errors.NotFoundError("Unsuccessful TensorSliceReader constructor: Failed to "
                                       "find any matching files for %s" % prefix) from None
        except errors.OpError:
            raise
        except Exception as e:  # SafetensorError, JSON errors, wrong types in the metadata
            raise errors.DataLossError("Unable to read checkpoint file %s: %s; the file is "
                                       "truncated or corrupt" % (self.filename, e)) from None

    def _parse_graph(self, text):
        from google.protobuf import json_format
        from tensorboard.compat.proto import trackable_object_graph_pb2
        return json_format.Parse(text, trackable_object_graph_pb2.TrackableObjectGraph())

    def keys(self):
        keys = set(self._stored)
        if self._graph_json is not None:
            keys.add(OBJECT_GRAPH_KEY)
        return sorted(keys)

    def has_tensor(self, key):
        return key in self._stored or (key == OBJECT_GRAPH_KEY and self._graph_json is not None)

    def _missing(self, key):
        raise errors.NotFoundError("Key %s not found in checkpoint" % key)

    def dtype(self, key):
        if key == OBJECT_GRAPH_KEY and self._graph_json is not None:
            return dtypes.string
        if key not in self._stored:
            self._missing(key)
        if key in self._special:
            return dtypes.as_dtype(self._special[key])
        name = self._file.get_slice(key).get_dtype()
        if name not in _SAFETENSORS_DTYPES:
            raise errors.UnimplementedError("Tensor %s in %s has safetensors dtype %s, which "
                                            "has no TensorFlow dtype" % (key, self.filename, name))
        return _SAFETENSORS_DTYPES[name]

    def shape(self, key):
        if key == OBJECT_GRAPH_KEY and self._graph_json is not None:
            return []
        if key not in self._stored:
            self._missing(key)
        if key in self._shapes:
            return list(self._shapes[key])
        shape = list(self._file.get_slice(key).get_shape())
        return shape[:-1] if self._special.get(key) == "complex128" else shape

    def _raw(self, key):
        try:
            t = self._file.get_tensor(key)
        except Exception as e:  # SafetensorError
            raise errors.DataLossError("Unable to read tensor %s from %s: %s"
                                       % (key, self.filename, e)) from None
        if t.numel() and t.data_ptr() % t.element_size():  # not written by us: realign
            t = t.reshape(-1).view(torch.uint8).clone().view(t.dtype).reshape(t.shape)
        expected = self._checksums.get(key)
        if expected is not None and self._checksum(_bytes_of(t)) != expected:
            raise errors.DataLossError("Checksum does not match for tensor %s in %s: the file "
                                       "is corrupt" % (key, self.filename))
        return t

    def get_value(self, key):
        if key == OBJECT_GRAPH_KEY and self._graph_json is not None:
            return np.array(self._graph.SerializeToString(), dtype=object)
        if key not in self._stored:
            self._missing(key)
        t = self._raw(key)
        kind = self._special.get(key)
        if kind == "string":
            return _decode_strings(t, self._shapes.get(key, [t.numel()]), key, self.filename)
        if kind == "complex128":
            if t.dtype != torch.float64 or t.ndim == 0 or t.shape[-1] != 2:
                raise errors.DataLossError("Unable to read %s: complex128 tensor %s is stored "
                                           "with shape %s" % (self.filename, key,
                                                              list(t.shape)))
            return torch.view_as_complex(t.clone())  # clone: 16-byte aligned
        return t

    def get_tensor(self, key):
        value = self.get_value(key)
        if isinstance(value, np.ndarray):
            return value
        return to_numpy(value)[0]

    def object_graph(self):
        return self._graph if self._graph_json is not None else None


class BundleReader(_Reader, tensor_bundle.BundleReader):
    """A TensorFlow checkpoint (`prefix.index` + data files)."""

    def has_tensor(self, key):
        return key in self.entries


def exists(prefix):
    """True when `prefix` names a checkpoint of ours or a TF (V2 or V1) checkpoint."""
    return bool(prefix) and (os.path.isfile(prefix + SUFFIX) or
                             tensor_bundle.is_bundle(prefix) or
                             os.path.isfile(prefix) and not os.path.isdir(prefix) and
                             _is_v1_table(prefix))


def _is_v1_table(path):
    try:
        with open(path, "rb") as f:
            f.seek(-8, os.SEEK_END)
            return struct.unpack("<Q", f.read(8))[0] == tensor_bundle.TABLE_MAGIC
    except OSError:
        return False


def files_of(prefix):
    """The files making up checkpoint `prefix` that exist (ours, TF's data/index, .meta)."""
    directory = os.path.dirname(prefix) or "."
    base = os.path.basename(prefix)
    out = []
    try:
        names = os.listdir(directory)
    except OSError:
        return out
    for name in names:
        rest = name[len(base):]
        if name.startswith(base) and (rest in (SUFFIX, ".index", ".meta") or
                                      rest.startswith(".data-")):
            out.append(os.path.join(directory, name))
    return out


def open_reader(path):
    """A reader for the checkpoint at `path`: a prefix, a directory (its latest checkpoint),
    or a file of the checkpoint. NotFoundError names what was looked for."""
    if os.path.isdir(path):
        latest = saver.latest_checkpoint(path)
        if latest is None:
            raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given "
                             "directory %s" % path)
        path = latest
    for suffix in (SUFFIX, ".index"):
        if path.endswith(suffix) and os.path.isfile(path):
            path = path[:-len(suffix)]
    if os.path.isfile(path + SUFFIX):
        return SafetensorsReader(path)
    if tensor_bundle.is_bundle(path):
        return BundleReader(path)
    if os.path.isfile(path) and _is_v1_table(path):
        raise errors.UnimplementedError("%s is a TF V1 checkpoint (tensor-slice format), "
                                        "which tfcompat does not read; re-save it in the V2 "
                                        "format" % path)
    raise errors.NotFoundError("Unsuccessful TensorSliceReader constructor: Failed to find any "
                               "matching files for %s (looked for %s%s and %s.index)"
                               % (path, path, SUFFIX, path))
