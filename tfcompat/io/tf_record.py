"""TFRecord files: `TFRecordWriter`, `tf_record_iterator`, `TFRecordOptions`, and the reader
used by `tf.data.TFRecordDataset`.

Format (TF's): per record `uint64 length`, `uint32 masked_crc32c(length)`, `data`,
`uint32 masked_crc32c(data)`, little-endian; optionally compressed as a whole with GZIP or
ZLIB. Both CRCs are checked on read: a mismatch raises `DataLossError` naming the file and
offset (after the intact records before it), and so does a truncated last record.
Uncompressed files we write are byte-identical to TF's.

Reading takes the file in 1 MiB blocks and the framing apart in memory; a run of records
with equal headers (equal lengths, common for fixed-size features) is checked with numpy
and one C CRC call per record (`google-crc32c`).
"""
import io
import struct
import zlib

import numpy as np

from tfcompat._api import tf_export
from tfcompat.framework import errors
from tfcompat.io.crc32c import crc32c, masked_crc
from tfcompat.io.gfile import _open_for_read, _open_for_write
from tfcompat.framework.ops import to_torch

_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")


@tf_export(v1=["io.TFRecordCompressionType", "python_io.TFRecordCompressionType"])
class TFRecordCompressionType(object):
    """The compression of a TFRecord file."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
          TFRecordCompressionType.GZIP: "GZIP"}


@tf_export("io.TFRecordOptions", v1=["python_io.TFRecordOptions"])
class TFRecordOptions(object):
    """Options of TFRecord files: compression type ("", "ZLIB", "GZIP") and zlib settings."""

    compression_type_map = {"ZLIB": TFRecordCompressionType.ZLIB,
                            "GZIP": TFRecordCompressionType.GZIP,
                            "": TFRecordCompressionType.NONE}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        if compression_type is None:
            compression_type = ""
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """"", "ZLIB" or "GZIP" for options given as TFRecordOptions, a string or an enum."""
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if isinstance(options, bytes):
            options = options.decode()
        if isinstance(options, str):
            if options.upper() not in cls.compression_type_map:
                raise ValueError('compression_type must be one of "", "ZLIB" or "GZIP", '
                                 'not %r' % options)
            return options.upper()
        if options in _NAMES:
            return _NAMES[options]
        raise ValueError("Not a valid compression_type: %r" % (options,))


def _compression(options):
    return TFRecordOptions.get_compression_type_string(options)


def _level(options):
    level = getattr(options, "compression_level", None)
    return -1 if level is None else int(level)


def encode_record(data):
    """One record in TFRecord framing."""
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc(header)) + data + \
        struct.pack("<I", masked_crc(data))


class _ZlibWriter(object):
    def __init__(self, raw, level, wbits):
        self._raw = raw
        self._z = zlib.compressobj(level, zlib.DEFLATED, wbits)

    def write(self, data):
        self._raw.write(self._z.compress(data))

    def flush(self):
        self._raw.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._raw.flush()

    def close(self):
        self._raw.write(self._z.flush(zlib.Z_FINISH))
        self._raw.close()


@tf_export("io.TFRecordWriter", v1=["python_io.TFRecordWriter"])
class TFRecordWriter(object):
    """`tf.io.TFRecordWriter(path, options=None)`: writes records (a context manager)."""

    def __init__(self, path, options=None):
        kind = _compression(options)
        raw = _open_for_write(path)
        if kind == "GZIP":
            self._file = _ZlibWriter(raw, _level(options), 16 + zlib.MAX_WBITS)
        elif kind == "ZLIB":
            self._file = _ZlibWriter(raw, _level(options), zlib.MAX_WBITS)
        else:
            self._file = raw
        self._closed = False

    def write(self, record):
        if self._closed:
            raise errors.FailedPreconditionError("Writer is closed.")
        if isinstance(record, str):
            record = record.encode("utf-8")
        elif not isinstance(record, bytes):
            import numpy as np
            value = to_torch(record)
            if not isinstance(value, np.ndarray) or value.ndim != 0:
                raise TypeError("TFRecordWriter.write expects bytes or a scalar string "
                                "tensor, got %r" % (record,))
            record = bytes(value[()])
        self._file.write(encode_record(record))

    def flush(self):
        self._file.flush()

    def close(self):
        if not self._closed:
            self._closed = True
            self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _ZlibReader(io.RawIOBase):
    """A readable stream decompressing a zlib (or gzip) stream."""

    def __init__(self, raw, wbits, chunk=256 * 1024):
        self._raw = raw
        self._wbits = wbits
        self._z = zlib.decompressobj(wbits)
        self._chunk = chunk
        self._eof = False

    def readable(self):
        return True

    def readinto(self, buffer):
        while True:
            if self._z.unconsumed_tail:
                data = self._z.decompress(self._z.unconsumed_tail, len(buffer))
            elif self._eof:
                return 0
            else:
                compressed = self._raw.read(self._chunk)
                if not compressed:
                    self._eof = True
                    data = self._z.flush()
                else:
                    data = self._z.decompress(compressed, len(buffer))
                    if self._z.eof and self._z.unused_data:
                        # concatenated gzip members
                        rest = self._z.unused_data
                        self._z = zlib.decompressobj(self._wbits)
                        data += self._z.decompress(rest, max(0, len(buffer) - len(data)))
            if data:
                buffer[:len(data)] = data
                return len(data)

    def close(self):
        self._raw.close()
        super(_ZlibReader, self).close()


def _open_records(path, compression, buffer_size):
    raw = _open_for_read(path, buffering=buffer_size or 256 * 1024)
    if compression == "GZIP":
        return io.BufferedReader(_ZlibReader(raw, 16 + zlib.MAX_WBITS), 256 * 1024)
    if compression == "ZLIB":
        return io.BufferedReader(_ZlibReader(raw, zlib.MAX_WBITS), 256 * 1024)
    return raw


_READ_SIZE = 1 << 20
_MASK = 0xFFFFFFFF
_MASK_DELTA = 0xA282EAD8
_MIN_RUN = 8        # equally long records handled together
_RETRY_RUN = 64     # records read one by one after a too short run
# masked CRC of a header's 8 length bytes, by length: a file's records mostly share a few
_length_crcs = {}


def _check_length_crc(length, header, expected, where):
    """Check a header's CRC the slow way, remembering it for `length` when it matches."""
    if masked_crc(header) != expected:
        raise errors.DataLossError("corrupted record at %s: the length's CRC does not match"
                                   % where)
    if len(_length_crcs) > 4096:
        _length_crcs.clear()
    _length_crcs[length] = expected


def _equal_run(buf, pos, length, records):
    """Append the run of records at `pos` whose headers equal the one at `pos` (whose CRC
    is checked) and whose data CRCs match; returns how many (0 if fewer than _MIN_RUN)."""
    stride = length + 16
    count = (len(buf) - pos) // stride
    if count < _MIN_RUN:
        return 0
    rows = np.frombuffer(buf, np.uint8, count * stride, pos).reshape(count, stride)
    same = (rows[:, :12] == rows[0, :12]).all(axis=1)
    run = count if same.all() else int(same.argmin())
    if run < _MIN_RUN:
        return 0
    start = pos + 12
    run_records = [buf[o:o + length] for o in range(start, start + run * stride, stride)]
    crcs = np.array(list(map(crc32c, run_records)), dtype=np.uint64)
    masked = (((crcs >> 15) | (crcs << 17)) + _MASK_DELTA) & _MASK
    stored = rows[:run, stride - 4:].copy().view("<u4").reshape(run)
    bad = masked != stored
    if bad.any():   # the records before it; the one-by-one loop reports the damage
        run = int(bad.argmax())
    records.extend(run_records[:run])
    return run


def _parse_records(buf, pos, base, name, records):
    """Append the complete records of buf[pos:] to `records`; returns where the first
    incomplete one starts. Runs of equally long records are checked with numpy."""
    unpack_header = _HEADER.unpack_from
    unpack_footer = _FOOTER.unpack_from
    length_crcs = _length_crcs
    size = len(buf)
    single = 0      # records to read one by one before trying a run again
    while pos + 12 <= size:
        length, length_crc = unpack_header(buf, pos)
        if length_crcs.get(length) != length_crc:
            _check_length_crc(length, buf[pos:pos + 8], length_crc,
                              "%d in %s" % (base + pos, name))
        if single:
            single -= 1
        else:
            run = _equal_run(buf, pos, length, records)
            if run:
                pos += run * (length + 16)
                continue
            single = _RETRY_RUN
        start = pos + 12
        end = start + length
        if end + 4 > size:
            break
        record = buf[start:end]
        crc = crc32c(record)
        if (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & _MASK != unpack_footer(buf, end)[0]:
            raise errors.DataLossError("corrupted record at %d in %s: the data's CRC does not "
                                       "match" % (base + pos, name))
        records.append(record)
        pos = end + 4
    return pos


def read_record_blocks(path, compression="", buffer_size=None, offset=0):
    """Yield the records of one TFRecord file in lists (one per block read), checking both
    CRCs (DataLossError on damage, after the intact records before it)."""
    name = path.decode("utf-8") if isinstance(path, bytes) else path
    f = _open_records(name, compression or "", buffer_size)
    block = max(_READ_SIZE, buffer_size or 0)
    buf = b""
    pos = 0         # the next record's start in buf
    base = offset   # the file offset of buf[0]
    try:
        while True:
            records = []
            try:
                pos = _parse_records(buf, pos, base, name, records)
            except errors.DataLossError:
                if records:
                    yield records
                raise
            if records:
                yield records
            size = len(buf)
            wanted = block if pos + 12 > size else \
                max(block, _HEADER.unpack_from(buf, pos)[0] + 16 - (size - pos))
            more = f.read(wanted)
            if not more:
                if pos == size:
                    return
                rest = size - pos
                if rest < 12:
                    raise errors.DataLossError(
                        "truncated record at %d in %s: the file ends inside a record header "
                        "(%d of 12 bytes)" % (base + pos, name, rest))
                raise errors.DataLossError(
                    "truncated record at %d in %s: expected %d bytes of data, the file has %d"
                    % (base + pos, name, _HEADER.unpack_from(buf, pos)[0] + 4, rest - 12))
            buf = buf[pos:] + more
            base += pos
            pos = 0
    except (zlib.error, EOFError, OSError) as e:
        if isinstance(e, FileNotFoundError):
            raise errors.NotFoundError("%s; No such file or directory" % name) from None
        raise errors.DataLossError("corrupted compressed data at %d in %s: %s"
                                   % (base + pos, name, e)) from None
    finally:
        f.close()


def read_records(path, compression="", buffer_size=None, offset=0):
    """Yield the records of one TFRecord file, checking both CRCs (DataLossError on damage)."""
    for records in read_record_blocks(path, compression, buffer_size, offset):
        yield from records


@tf_export(v1=["io.tf_record_iterator", "python_io.tf_record_iterator"])
def tf_record_iterator(path, options=None):
    """Iterate the records (bytes) of a TFRecord file."""
    return read_records(path, _compression(options))

