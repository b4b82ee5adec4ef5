"""TensorFlow's checkpoint format (the "tensor bundle"), read natively and written.

A TF checkpoint with prefix P is `P.index` plus `P.data-0000K-of-0000N`:

- `P.index` is a LevelDB-style sorted table (SSTable): data blocks of prefix-compressed
  entries (varint32 shared / unshared key length / value length, then the key suffix and the
  value) ending with restart offsets (fixed32 each) and their count; every block is followed
  by a one-byte compression type (0 none, 1 snappy) and the masked CRC32C of block + type. An
  index block maps keys to BlockHandles (varint64 offset, varint64 size) of the data blocks; a
  48-byte footer holds the metaindex and index handles and the magic 0xdb4775248b80fb57.
- The table maps "" to a `BundleHeaderProto` (num_shards, endianness, version) and every
  tensor name to a `BundleEntryProto` (dtype, shape, shard_id, offset, size, masked CRC32C
  of the bytes in the data file, slices of a partitioned tensor).
- Data files hold the raw little-endian bytes of each tensor; a string tensor is its varint64
  lengths, the masked CRC32C of the lengths (as uint32), then the bytes.
- A variable saved from parts (a TF1 PartitionedVariable) has an entry under its name with the
  full dtype and shape, no bytes, and one `slices` extent list per part; each part's bytes are
  an ordinary entry under TF's `EncodeTensorNameSlice` key (OrderedCode: 0, the name, the rank,
  then start and length of every dimension), which sorts before every tensor name. Such keys
  are not tensors: `keys()` lists the full name only and `get_tensor` assembles the slices.

tensorboard ships no tensor_bundle.proto, so its messages are built at runtime from a
descriptor (on tensorboard's TensorShapeProto / DataType / VersionDef). Any corruption found
raises `DataLossError` naming the file.
"""
import os
import struct

import numpy as np
import torch

from tfcompat.framework import dtypes, errors
from tfcompat.train import checkpoint_format

TABLE_MAGIC = 0xdb4775248b80fb57
FOOTER_SIZE = 48
_BLOCK_TRAILER = 5
_MASK_DELTA = 0xa282ead8
HEADER_KEY = b""


# ---------------------------------------------------------------- CRC32C


def _crc32c_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82f63b78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


try:
    import google_crc32c as _google_crc32c
except ImportError:
    _google_crc32c = None
_TABLE = _crc32c_table()


def crc32c(data, crc=0):
    """CRC32C (Castagnoli) of the bytes-like `data`, extending `crc` (google-crc32c's C code
    when installed, else a table-driven loop: correct but slow on large tensors)."""
    if _google_crc32c is not None:
        if not isinstance(data, bytes):  # the C code wants a read-only buffer: no copy
            data = np.frombuffer(data, dtype=np.uint8).view()
            data.setflags(write=False)
        return _google_crc32c.extend(crc, data)
    crc ^= 0xffffffff
    table = _TABLE
    for byte in bytes(data):
        crc = table[(crc ^ byte) & 0xff] ^ (crc >> 8)
    return crc ^ 0xffffffff


def mask_crc(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xffffffff) + _MASK_DELTA) & 0xffffffff


def unmask_crc(masked):
    rot = (masked - _MASK_DELTA) & 0xffffffff
    return ((rot >> 17) | (rot << 15)) & 0xffffffff


# ---------------------------------------------------------------- protos

_PROTOS = {}


def protos():
    """The runtime-built message classes: BundleHeaderProto, BundleEntryProto, TensorSliceProto,
    CheckpointState (TF's checkpoint_state.proto, for the `checkpoint` text file)."""
    if _PROTOS:
        return _PROTOS
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from tensorboard.compat.proto import tensor_shape_pb2, types_pb2, versions_pb2
    F = descriptor_pb2.FieldDescriptorProto
    f = descriptor_pb2.FileDescriptorProto(
        name="tfcompat/train/tensor_bundle.proto", package="tfcompat.tensorflow",
        syntax="proto3", dependency=[tensor_shape_pb2.DESCRIPTOR.name,
                                     types_pb2.DESCRIPTOR.name, versions_pb2.DESCRIPTOR.name])
    shape_type = "." + tensor_shape_pb2.TensorShapeProto.DESCRIPTOR.full_name
    dtype_type = "." + types_pb2.DESCRIPTOR.enum_types_by_name["DataType"].full_name
    version_type = "." + versions_pb2.VersionDef.DESCRIPTOR.full_name

    def field(msg, name, number, ftype, type_name=None, repeated=False, oneof=None):
        fd = msg.field.add(name=name, number=number, type=ftype,
                           label=F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL)
        if type_name:
            fd.type_name = type_name
        if oneof is not None:
            fd.oneof_index = oneof

    header = f.message_type.add(name="BundleHeaderProto")
    endian = header.enum_type.add(name="Endianness")
    endian.value.add(name="LITTLE", number=0)
    endian.value.add(name="BIG", number=1)
    field(header, "num_shards", 1, F.TYPE_INT32)
    field(header, "endianness", 2, F.TYPE_ENUM, ".tfcompat.tensorflow.BundleHeaderProto.Endianness")
    field(header, "version", 3, F.TYPE_MESSAGE, version_type)

    slice_msg = f.message_type.add(name="TensorSliceProto")
    extent = slice_msg.nested_type.add(name="Extent")
    extent.oneof_decl.add(name="has_length")
    field(extent, "start", 1, F.TYPE_INT64)
    field(extent, "length", 2, F.TYPE_INT64, oneof=0)
    field(slice_msg, "extent", 1, F.TYPE_MESSAGE, ".tfcompat.tensorflow.TensorSliceProto.Extent",
          repeated=True)

    entry = f.message_type.add(name="BundleEntryProto")
    field(entry, "dtype", 1, F.TYPE_ENUM, dtype_type)
    field(entry, "shape", 2, F.TYPE_MESSAGE, shape_type)
    field(entry, "shard_id", 3, F.TYPE_INT32)
    field(entry, "offset", 4, F.TYPE_INT64)
    field(entry, "size", 5, F.TYPE_INT64)
    field(entry, "crc32c", 6, F.TYPE_FIXED32)
    field(entry, "slices", 7, F.TYPE_MESSAGE, ".tfcompat.tensorflow.TensorSliceProto",
          repeated=True)

    state = f.message_type.add(name="CheckpointState")
    field(state, "model_checkpoint_path", 1, F.TYPE_STRING)
    field(state, "all_model_checkpoint_paths", 2, F.TYPE_STRING, repeated=True)
    field(state, "all_model_checkpoint_timestamps", 3, F.TYPE_DOUBLE, repeated=True)
    field(state, "last_preserved_timestamp", 4, F.TYPE_DOUBLE)

    pool = descriptor_pool.Default()
    try:
        file_desc = pool.FindFileByName(f.name)
    except KeyError:
        file_desc = pool.Add(f) or pool.FindFileByName(f.name)
    for name in ("BundleHeaderProto", "BundleEntryProto", "TensorSliceProto",
                 "CheckpointState"):
        _PROTOS[name] = message_factory.GetMessageClass(file_desc.message_types_by_name[name])
    return _PROTOS


# ---------------------------------------------------------------- varints


def _varint(buf, pos, limit, what):
    """Decode a varint (at most 10 bytes) from buf[pos:limit]; returns (value, new pos)."""
    result = shift = 0
    while True:
        if pos >= limit or shift > 63:
            raise ValueError("bad varint in " + what)
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7f) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _put_varint(out, value):
    while value >= 0x80:
        out.append((value & 0x7f) | 0x80)
        value >>= 7
    out.append(value)


# ---------------------------------------------------------------- slice keys (OrderedCode)

# TF's OrderedCode::kLengthToHeaderBits: the leading bits of a signed number's encoding.
_SIGNED_HEADER_BITS = ((0, 0), (0x80, 0), (0xc0, 0), (0xe0, 0), (0xf0, 0), (0xf8, 0),
                       (0xfc, 0), (0xfe, 0), (0xff, 0), (0xff, 0x80), (0xff, 0xc0))


def _ordered_unsigned(value):
    """OrderedCode::WriteNumIncreasing: a byte count, then the big-endian bytes."""
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return bytes([len(raw)]) + raw


def _ordered_string(data):
    """OrderedCode::WriteString: 0x00 and 0xff escaped, then the terminator 0x00 0x01."""
    out = bytearray()
    for byte in data:
        out += b"\x00\xff" if byte == 0 else b"\xff\x00" if byte == 0xff else bytes([byte])
    return bytes(out) + b"\x00\x01"


def _ordered_signed(value):
    """OrderedCode::WriteSignedNumIncreasing (int64): 1 to 10 bytes, the length in the
    leading bits."""
    length = (~value if value < 0 else value).bit_length() // 7 + 1
    encoded = bytearray(value.to_bytes(10, "big", signed=True)[10 - length:])
    encoded[0] ^= _SIGNED_HEADER_BITS[length][0]
    if length > 1:
        encoded[1] ^= _SIGNED_HEADER_BITS[length][1]
    return bytes(encoded)


def slice_key(name, starts, lengths):
    """TF's checkpoint::EncodeTensorNameSlice: the key of one slice's bytes (length -1 for a
    whole dimension)."""
    return (_ordered_unsigned(0) + _ordered_string(name.encode("utf-8")) +
            _ordered_unsigned(len(starts)) +
            b"".join(_ordered_signed(s) + _ordered_signed(n) for s, n in zip(starts, lengths)))


def _is_slice_key(key):
    return key[:1] == b"\x00"


class TensorSlices(object):
    """A tensor saved as slices (the parts of a partitioned variable): `full_shape` and
    `slices`, a list of (starts, numpy array or torch tensor) covering it."""

    def __init__(self, full_shape, slices):
        self.full_shape = [int(d) for d in full_shape]
        self.slices = list(slices)

    @staticmethod
    def region(starts, shape):
        return tuple(slice(s, s + n) for s, n in zip(starts, shape))

    def full(self):
        """The whole tensor assembled from the slices: a torch tensor when they are, else
        numpy (strings: an object array)."""
        first = self.slices[0][1]
        if isinstance(first, torch.Tensor):
            full = torch.empty(self.full_shape, dtype=first.dtype, device=first.device)
        else:
            full = np.empty(self.full_shape, dtype=first.dtype)
        for starts, value in self.slices:
            full[self.region(starts, value.shape)] = value
        return full


# ---------------------------------------------------------------- snappy


def snappy_decompress(data):
    """Decode a raw snappy block (LevelDB's kSnappyCompression); ValueError if malformed."""
    length, pos = _varint(data, 0, len(data), "snappy length")
    out = bytearray()
    n = len(data)
    while pos < n:
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:  # literal
            size = tag >> 2
            if size >= 60:
                extra = size - 59
                if pos + extra > n:
                    raise ValueError("truncated snappy literal")
                size = int.from_bytes(data[pos:pos + extra], "little")
                pos += extra
            size += 1
            if pos + size > n:
                raise ValueError("truncated snappy literal")
            out += data[pos:pos + size]
            pos += size
            continue
        if kind == 1:
            if pos >= n:
                raise ValueError("truncated snappy copy")
            size = ((tag >> 2) & 7) + 4
            offset = ((tag >> 5) << 8) | data[pos]
            pos += 1
        else:
            width = 2 if kind == 2 else 4
            if pos + width > n:
                raise ValueError("truncated snappy copy")
            size = (tag >> 2) + 1
            offset = int.from_bytes(data[pos:pos + width], "little")
            pos += width
        if offset == 0 or offset > len(out):
            raise ValueError("bad snappy copy offset")
        for _ in range(size):  # copies may overlap their own output
            out.append(out[-offset])
        if len(out) > length:
            raise ValueError("snappy output longer than declared")
    if len(out) != length:
        raise ValueError("snappy output length %d, expected %d" % (len(out), length))
    return bytes(out)


# ---------------------------------------------------------------- table reading


def _read_block(data, handle, filename):
    offset, size = handle
    end = offset + size + _BLOCK_TRAILER
    if offset < 0 or end > len(data):
        raise errors.DataLossError("Unable to read %s: a block [%d, %d) lies past the end of "
                                   "the file (%d bytes); the file is truncated or corrupt"
                                   % (filename, offset, end, len(data)))
    contents = data[offset:offset + size]
    kind = data[offset + size]
    stored = struct.unpack_from("<I", data, offset + size + 1)[0]
    if unmask_crc(stored) != crc32c(data[offset:offset + size + 1]):
        raise errors.DataLossError("Unable to read %s: block checksum mismatch at offset %d; "
                                   "the file is corrupt" % (filename, offset))
    if kind == 0:
        return bytes(contents)
    if kind == 1:
        try:
            return snappy_decompress(bytes(contents))
        except ValueError as e:
            raise errors.DataLossError("Unable to read %s: corrupted snappy-compressed block "
                                       "at offset %d (%s)" % (filename, offset, e)) from None
    raise errors.DataLossError("Unable to read %s: unknown block compression type %d"
                               % (filename, kind))


def _block_entries(block, filename):
    """The (key, value) pairs of one block, in order."""
    what = "a block of " + filename
    if len(block) < 4:
        raise ValueError(what + " is too short")
    num_restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
    limit = len(block) - 4 - 4 * num_restarts
    if num_restarts == 0 or limit < 0:
        raise ValueError(what + " has a bad restart array")
    pos, key, out = 0, b"", []
    while pos < limit:
        shared, pos = _varint(block, pos, limit, what)
        unshared, pos = _varint(block, pos, limit, what)
        value_len, pos = _varint(block, pos, limit, what)
        if shared > len(key) or pos + unshared + value_len > limit:
            raise ValueError(what + " has an entry past its end")
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        out.append((key, block[pos:pos + value_len]))
        pos += value_len
    return out


def read_table(filename):
    """All (key bytes, value bytes) pairs of a TF/LevelDB table file, in key order."""
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError("Unsuccessful TensorSliceReader constructor: Failed to find "
                                   "any matching files for %s" % filename) from None
    if len(data) < FOOTER_SIZE:
        raise errors.DataLossError("Unable to read %s: file is too short (%d bytes) to be a "
                                   "checkpoint index; it is truncated or corrupt"
                                   % (filename, len(data)))
    footer = data[-FOOTER_SIZE:]
    if struct.unpack_from("<Q", footer, FOOTER_SIZE - 8)[0] != TABLE_MAGIC:
        raise errors.DataLossError("Unable to read %s: not a TensorFlow checkpoint index (bad "
                                   "magic number); the file is truncated or corrupt" % filename)
    try:
        pos = 0
        handles = []
        for _ in range(2):
            offset, pos = _varint(footer, pos, 40, "the footer of " + filename)
            size, pos = _varint(footer, pos, 40, "the footer of " + filename)
            handles.append((offset, size))
        index = _block_entries(_read_block(data, handles[1], filename), filename)
        entries = []
        for _, handle in index:
            offset, p = _varint(handle, 0, len(handle), "a block handle of " + filename)
            size, _ = _varint(handle, p, len(handle), "a block handle of " + filename)
            entries.extend(_block_entries(_read_block(data, (offset, size), filename),
                                          filename))
    except ValueError as e:
        raise errors.DataLossError("Unable to read %s: %s; the file is corrupt"
                                   % (filename, e)) from None
    return entries


# ---------------------------------------------------------------- table writing


def _build_block(entries, restart_interval=16):
    out, restarts, last = bytearray(), [], b""
    for i, (key, value) in enumerate(entries):
        shared = 0
        if i % restart_interval == 0:
            restarts.append(len(out))
        else:
            limit = min(len(last), len(key))
            while shared < limit and last[shared] == key[shared]:
                shared += 1
        _put_varint(out, shared)
        _put_varint(out, len(key) - shared)
        _put_varint(out, len(value))
        out += key[shared:]
        out += value
        last = key
    for r in restarts or [0]:
        out += struct.pack("<I", r)
    out += struct.pack("<I", len(restarts or [0]))
    return bytes(out)


def _handle_bytes(offset, size):
    out = bytearray()
    _put_varint(out, offset)
    _put_varint(out, size)
    return bytes(out)


def _shortest_separator(start, limit):
    """LevelDB's BytewiseComparator::FindShortestSeparator: a short key in [start, limit),
    the index key of a data block that ends at `start` (as TF's table builder writes it)."""
    common = 0
    while common < min(len(start), len(limit)) and start[common] == limit[common]:
        common += 1
    if common < min(len(start), len(limit)):
        byte = start[common]
        if byte < 0xff and byte + 1 < limit[common]:
            return start[:common] + bytes([byte + 1])
    return start


def _short_successor(key):
    """LevelDB's FindShortSuccessor: a short key >= `key` (the last data block's index key)."""
    for i, byte in enumerate(key):
        if byte != 0xff:
            return key[:i] + bytes([byte + 1])
    return key


def build_table(entries, block_size=4096):
    """Bytes of a table holding `entries` ((key bytes, value bytes), sorted, unique keys)."""
    out = bytearray()

    def emit(block):
        handle = (len(out), len(block))
        out.extend(block)
        out.append(0)
        out.extend(struct.pack("<I", mask_crc(crc32c(block + b"\x00"))))
        return handle

    index, pending, pending_size, done = [], [], 0, None   # done: (last key, handle)
    for key, value in entries:
        if done is not None:
            index.append((_shortest_separator(done[0], key), done[1]))
            done = None
        pending.append((key, value))
        pending_size += len(key) + len(value) + 8
        if pending_size >= block_size:
            done = (key, _handle_bytes(*emit(_build_block(pending))))
            pending, pending_size = [], 0
    if pending:
        done = (pending[-1][0], _handle_bytes(*emit(_build_block(pending))))
    if done is not None:
        index.append((_short_successor(done[0]), done[1]))
    metaindex = emit(_build_block([]))
    index_handle = emit(_build_block(index, restart_interval=1))
    footer = bytearray(_handle_bytes(*metaindex) + _handle_bytes(*index_handle))
    footer += b"\x00" * (40 - len(footer))
    footer += struct.pack("<Q", TABLE_MAGIC)
    return bytes(out + footer)


# ---------------------------------------------------------------- bundles


def index_filename(prefix):
    return prefix + ".index"


def data_filename(prefix, shard, num_shards):
    return "%s.data-%05d-of-%05d" % (prefix, shard, num_shards)


def is_bundle(prefix):
    return os.path.isfile(index_filename(prefix))


def _numpy_dtype(dtype):
    if dtype == dtypes.bfloat16:
        return np.dtype("<u2")  # bit pattern; converted to torch.bfloat16 by the caller
    return np.dtype(dtype.as_numpy_dtype).newbyteorder("<")


class BundleReader(object):
    """A TF checkpoint (`prefix.index` + data files), read natively.

    `entries` maps tensor names to BundleEntryProto; `get_tensor(name)` returns a numpy array
    (object array of bytes for strings, uint16 bit patterns for bfloat16 - see `dtype`).
    """

    def __init__(self, prefix):
        self.prefix = prefix
        self.filename = index_filename(prefix)
        p = protos()
        self.entries = {}
        self.slice_entries = {}
        header = None
        for key, value in read_table(self.filename):
            try:
                if key == HEADER_KEY:
                    header = p["BundleHeaderProto"].FromString(value)
                elif _is_slice_key(key):
                    self.slice_entries[key] = p["BundleEntryProto"].FromString(value)
                else:
                    self.entries[key.decode("utf-8")] = p["BundleEntryProto"].FromString(value)
            except Exception as e:  # protobuf's DecodeError, UnicodeDecodeError
                raise errors.DataLossError("Unable to read %s: entry %r is not parseable (%s)"
                                           % (self.filename, key[:80], e)) from None
        if header is None:
            raise errors.DataLossError("Unable to read %s: no header entry; the file is "
                                       "corrupt" % self.filename)
        if header.endianness != 0:
            raise errors.UnimplementedError("%s was written on a big-endian machine; tfcompat "
                                            "reads little-endian checkpoints only"
                                            % self.filename)
        if header.version.producer > 1 or header.num_shards < 1:
            raise errors.DataLossError("Unable to read %s: unsupported bundle header (%s)"
                                       % (self.filename, header))
        self.num_shards = header.num_shards

    def keys(self):
        return sorted(self.entries)

    def dtype(self, key):
        return self._dtype(key, self._entry(key))

    def _dtype(self, key, entry):
        try:
            return dtypes.as_dtype(entry.dtype)
        except TypeError:
            raise errors.UnimplementedError("Tensor %s in %s has dtype enum %d, which tfcompat "
                                            "cannot read" % (key, self.prefix, entry.dtype)) \
                from None

    def shape(self, key):
        return [d.size for d in self._entry(key).shape.dim]

    def _entry(self, key):
        entry = self.entries.get(key)
        if entry is None:
            raise errors.NotFoundError("Key %s not found in checkpoint" % key)
        return entry

    def get_tensor(self, key):
        entry = self._entry(key)
        if entry.slices:
            return self._assemble_slices(key, entry)
        return self._read_entry(key, entry)

    def _assemble_slices(self, key, entry):
        """The full tensor of a variable saved from parts, as TF reads it."""
        shape = [d.size for d in entry.shape.dim]
        slices, covered = [], 0
        for extents in entry.slices:
            if len(extents.extent) != len(shape):
                raise errors.DataLossError("Unable to read %s: slice %s of %s does not match "
                                           "its rank %d" % (self.filename, extents, key,
                                                            len(shape)))
            starts = [e.start for e in extents.extent]
            lengths = [e.length if e.HasField("length") else -1 for e in extents.extent]
            slice_entry = self.slice_entries.get(slice_key(key, starts, lengths))
            if slice_entry is None:
                raise errors.DataLossError("Unable to read %s: the bytes of slice %s of %s are "
                                           "missing" % (self.filename, lengths, key))
            part = self._read_entry(key, slice_entry)
            wanted = [size if n < 0 else n for n, size in zip(lengths, shape)]
            if list(part.shape) != wanted or any(
                    s < 0 or s + n > size for s, n, size in zip(starts, wanted, shape)):
                raise errors.DataLossError("Unable to read %s: slice of %s at %s has shape %s, "
                                           "outside its shape %s" % (self.filename, key, starts,
                                                                     list(part.shape), shape))
            slices.append((starts, part))
            covered += part.size
        if covered != int(np.prod(shape, dtype=np.int64)):
            raise errors.DataLossError("Unable to read %s: the slices of %s do not cover its "
                                       "shape %s" % (self.filename, key, shape))
        return TensorSlices(shape, slices).full()

    def _read_entry(self, key, entry):
        """The tensor stored whole in `entry` (the tensor `key` or one of its slices)."""
        dtype = self._dtype(key, entry)
        shape = [d.size for d in entry.shape.dim]
        if any(d < 0 for d in shape) or entry.shard_id >= self.num_shards or entry.size < 0:
            raise errors.DataLossError("Unable to read %s: invalid entry for %s"
                                       % (self.filename, key))
        count = int(np.prod(shape, dtype=np.int64))
        filename = data_filename(self.prefix, entry.shard_id, self.num_shards)
        raw = self._read(filename, entry)
        if dtype == dtypes.string:
            array, crc = self._strings(raw, count, key, filename)
        else:
            array, crc = None, crc32c(raw)
        if unmask_crc(entry.crc32c) != crc:
            raise errors.DataLossError("Checksum does not match: stored %08x vs. calculated on "
                                       "the restored bytes %08x, for tensor %s in %s"
                                       % (unmask_crc(entry.crc32c), crc, key, filename))
        if array is not None:
            return array.reshape(shape)
        np_dtype = _numpy_dtype(dtype)
        if len(raw) != count * np_dtype.itemsize:
            raise errors.DataLossError("Invalid size in bundle entry: key %s; stored size %d; "
                                       "expected size %d" % (key, len(raw),
                                                             count * np_dtype.itemsize))
        return np.frombuffer(raw, dtype=np_dtype).reshape(shape)

    def _read(self, filename, entry):
        try:
            with open(filename, "rb", buffering=0) as f:
                f.seek(entry.offset)
                raw = bytearray(entry.size)
                got = f.readinto(raw)
        except FileNotFoundError:
            raise errors.NotFoundError("%s not found: the checkpoint %s is missing a data file"
                                       % (filename, self.prefix)) from None
        if got != entry.size:
            raise errors.DataLossError("Unable to read %s: it ends before tensor bytes "
                                       "[%d, %d); the file is truncated"
                                       % (filename, entry.offset, entry.offset + entry.size))
        return raw

    @staticmethod
    def _strings(raw, count, key, filename):
        try:
            pos, lengths, crc = 0, [], 0
            for _ in range(count):
                n, pos = _varint(raw, pos, len(raw), "string lengths")
                lengths.append(n)
                crc = crc32c(struct.pack("<I", n) if n <= 0xffffffff else struct.pack("<Q", n),
                             crc)
            if pos + 4 > len(raw) or unmask_crc(struct.unpack_from("<I", raw, pos)[0]) != crc:
                raise ValueError("the length checksum does not match")
            crc = crc32c(raw[pos:pos + 4], crc)
            pos += 4
            out = np.empty(count, dtype=object)
            for i, n in enumerate(lengths):
                if pos + n > len(raw):
                    raise ValueError("string bytes past the entry's end")
                out[i] = bytes(raw[pos:pos + n])
                crc = crc32c(out[i], crc)
                pos += n
            if pos != len(raw):
                raise ValueError("%d stray bytes after the strings" % (len(raw) - pos))
        except ValueError as e:
            raise errors.DataLossError("Unable to read string tensor %s from %s: %s"
                                       % (key, filename, e)) from None
        return out, crc


def _string_bytes(array):
    """TF's string tensor bytes and their checksum (lengths as uint32/uint64, the length
    checksum, the strings)."""
    lengths, crc, body = bytearray(), 0, []
    for item in array.reshape(-1):
        item = item.encode("utf-8") if isinstance(item, str) else bytes(item)
        _put_varint(lengths, len(item))
        crc = crc32c(struct.pack("<I" if len(item) <= 0xffffffff else "<Q", len(item)), crc)
        body.append(item)
    checksum = struct.pack("<I", mask_crc(crc))
    crc = crc32c(checksum, crc)
    for item in body:
        crc = crc32c(item, crc)
    return bytes(lengths) + checksum + b"".join(body), crc


def _tensor_bytes(value):
    """(array, dtype, data bytes, crc32c) of a tensor as a bundle stores it."""
    array, dtype = checkpoint_format.to_numpy(value)
    if dtype == dtypes.string:
        raw, crc = _string_bytes(array)
    else:
        raw = np.ascontiguousarray(array.astype(_numpy_dtype(dtype), copy=False)
                                   ).reshape(-1).view(np.uint8)
        crc = crc32c(raw)
    return array, dtype, raw, crc


def write_bundle(prefix, tensors):
    """Write `tensors` ({name: numpy array, torch tensor or TensorSlices}) as a TF checkpoint
    at `prefix` (single shard, uncompressed index, as TF writes it: data in name order, a
    sliced tensor's slices in their order, as TF's BundleWriter::AddSlice). Data first, index
    last, each through a temporary file and an atomic rename."""
    entry_class = protos()["BundleEntryProto"]
    index_entries = []
    offset = 0

    def add(out, key, value):
        nonlocal offset
        array, dtype, raw, crc = _tensor_bytes(value)
        entry = entry_class(dtype=dtype.as_datatype_enum, shard_id=0, offset=offset,
                            size=len(raw), crc32c=mask_crc(crc))
        entry.shape.SetInParent()  # a scalar's empty shape is written, as TF writes it
        for d in array.shape:
            entry.shape.dim.add(size=d)
        out.write(raw)
        offset += len(raw)
        index_entries.append((key, entry.SerializeToString()))
        return array, dtype

    with checkpoint_format.atomic_file(data_filename(prefix, 0, 1)) as out:
        for name in sorted(tensors):
            value = tensors[name]
            if not isinstance(value, TensorSlices):
                add(out, name.encode("utf-8"), value)
                continue
            full = entry_class()
            for d in value.full_shape:
                full.shape.dim.add(size=d)
            for starts, part in value.slices:
                shape = list(part.shape)
                _, dtype = add(out, slice_key(name, starts, shape), part)
                extents = full.slices.add()
                for start, length in zip(starts, shape):
                    extents.extent.add(start=start, length=length)
            full.dtype = dtype.as_datatype_enum
            index_entries.append((name.encode("utf-8"), full.SerializeToString()))
    header = protos()["BundleHeaderProto"](num_shards=1, endianness=0)
    header.version.producer = 1
    table = build_table([(HEADER_KEY, header.SerializeToString())] + sorted(index_entries))
    with checkpoint_format.atomic_file(index_filename(prefix)) as out:
        out.write(table)
    return prefix
