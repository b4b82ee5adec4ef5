"""Parse many serialized `tf.train.Example`s that share one byte layout, with numpy.

TF parses Examples in C++ (`example_proto_fast_parsing.cc`); protobuf's C parser (upb)
called once per record from Python is several times slower. Records of one dataset often
differ only in their values (same keys, same value counts, same byte lengths), for
instance fixed-size images and small labels. For those, one record is taken apart on the
wire into a `_Layout`: the bytes that encode structure (tags, lengths, keys) and the spans
that hold values. A group of equally long records is then checked against the layout
and parsed column-wise:

- every structural byte must equal the layout's;
- every varint byte must have the layout's continuation bit, so varints keep their extents;
- value spans are free (bytes values are opaque, floats are fixed 4-byte words).

Records passing the check parse, byte for byte, like the layout record, so their values
can be read at fixed offsets. The layout record itself is cross-checked against the
protobuf parser when the layout is built. Whatever the layout walker does not accept
(unknown fields, duplicate keys, empty features, groups ...), records of another layout,
missing required features, kind or count mismatches: `parse_dense` returns None and the
caller parses with protobuf, which also gives TF's error messages.
"""
import numpy as np
from google.protobuf.message import DecodeError

from tfcompat.core.example.example_pb2 import Example

_LEN, _VARINT, _I32 = 2, 0, 5
_KINDS = {1: "bytes_list", 2: "float_list", 3: "int64_list"}
_FLOAT32 = np.dtype("<f4")
_MAX_GROUPS = 4
_SKIPS = 16
_layouts = {}   # record length -> the layout last seen with it, or groups left to skip


class _Unsupported(Exception):
    """The record uses wire features the layout walker leaves to protobuf."""


def _varint(data, pos, end):
    """(value, next position) of the varint at `pos` (10 bytes at most, as protobuf)."""
    result = shift = 0
    for i in range(pos, min(end, pos + 10)):
        byte = data[i]
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, i + 1
        shift += 7
    raise _Unsupported()


def _fields(data, start, end):
    """(field number, wire type, value start, value end) of each field in data[start:end]."""
    pos = start
    while pos < end:
        tag, pos = _varint(data, pos, end)
        wire_type = tag & 7
        if wire_type == _LEN:
            length, pos = _varint(data, pos, end)
            stop = pos + length
        elif wire_type == _VARINT:
            stop = _varint(data, pos, end)[1]
        elif wire_type == _I32:
            stop = pos + 4
        else:
            raise _Unsupported()
        if stop > end:
            raise _Unsupported()
        yield tag >> 3, wire_type, pos, stop
        pos = stop


class _Feature(object):
    """Where one feature's values lie in a record of the layout."""

    __slots__ = ("kind", "count", "spans", "columns", "starts", "shifts", "one_byte")

    def __init__(self, kind):
        self.kind = kind
        self.count = 0
        self.spans = []       # bytes_list: (start, end) of each value
        self.columns = []     # float_list, int64_list: the byte offsets of the values
        self.starts = []      # int64_list: index in `columns` where each varint starts
        self.shifts = []      # int64_list: 7 * the position of each byte in its varint
        self.one_byte = True  # int64_list: every varint is one byte


class _Layout(object):
    """The structure of one record: fixed bytes, varint bytes, each feature's values."""

    def __init__(self, record):
        self.length = len(record)
        self.features = {}
        free = np.zeros(len(record), dtype=bool)
        varint_bytes = []
        fields = list(_fields(record, 0, len(record)))
        if len(fields) != 1 or fields[0][:2] != (1, _LEN):
            raise _Unsupported()
        for number, wire_type, start, end in _fields(record, fields[0][2], fields[0][3]):
            if (number, wire_type) != (1, _LEN):
                raise _Unsupported()
            entry = list(_fields(record, start, end))
            if [f[:2] for f in entry] != [(1, _LEN), (2, _LEN)]:
                raise _Unsupported()
            try:
                key = record[entry[0][2]:entry[0][3]].decode("utf-8")
            except UnicodeDecodeError:
                raise _Unsupported() from None
            kind = list(_fields(record, entry[1][2], entry[1][3]))
            if key in self.features or len(kind) != 1 or kind[0][0] not in _KINDS or \
                    kind[0][1] != _LEN:
                raise _Unsupported()
            feature = self.features[key] = _Feature(_KINDS[kind[0][0]])
            for number, wire_type, vstart, vend in _fields(record, kind[0][2], kind[0][3]):
                if number != 1:
                    raise _Unsupported()
                free[vstart:vend] = True
                self._add_values(feature, record, wire_type, vstart, vend, varint_bytes)
        # the checked bytes: all bits of structural bytes, the continuation bit of varints
        self.checked = np.concatenate([np.flatnonzero(~free),
                                       np.array(varint_bytes, dtype=np.intp)])
        self.check_mask = np.concatenate([np.full(len(self.checked) - len(varint_bytes),
                                                  0xFF, dtype=np.uint8),
                                          np.full(len(varint_bytes), 0x80, dtype=np.uint8)])
        self.expected = np.frombuffer(record, dtype=np.uint8)[self.checked] & self.check_mask
        for feature in self.features.values():
            feature.columns = np.array(feature.columns, dtype=np.intp)
            feature.starts = np.array(feature.starts, dtype=np.intp)
            feature.shifts = np.array(feature.shifts, dtype=np.uint64)

    @staticmethod
    def _add_values(feature, record, wire_type, start, end, varint_bytes):
        if feature.kind == "bytes_list":
            if wire_type != _LEN:
                raise _Unsupported()
            feature.spans.append((start, end))
            feature.count += 1
        elif feature.kind == "float_list":
            if (wire_type != _LEN and wire_type != _I32) or (end - start) % 4:
                raise _Unsupported()
            feature.columns.extend(range(start, end))
            feature.count += (end - start) // 4
        else:
            if wire_type == _LEN:
                pos = start
                while pos < end:
                    stop = _varint(record, pos, end)[1]
                    _add_varint(feature, pos, stop, varint_bytes)
                    pos = stop
            elif wire_type == _VARINT:
                _add_varint(feature, start, end, varint_bytes)
            else:
                raise _Unsupported()

    def matches(self, rows):
        """Whether every row (a record as uint8) has this layout's structure."""
        return bool(((rows[:, self.checked] & self.check_mask) == self.expected).all())

    def values(self, rows, data, key):
        """The values of feature `key` in each row: an [n, count] array (object for bytes).

        `data` holds the rows' bytes back to back.
        """
        feature = self.features[key]
        n = rows.shape[0]
        if feature.kind == "bytes_list":
            out = np.empty((n, feature.count), dtype=object)
            bases = range(0, n * self.length, self.length)
            for j, (start, end) in enumerate(feature.spans):
                out[:, j] = [data[b + start:b + end] for b in bases]
            return out
        columns = rows[:, feature.columns]
        if feature.kind == "float_list":
            return np.frombuffer(columns.tobytes(), dtype=_FLOAT32).astype(np.float32) \
                .reshape(n, feature.count)
        if feature.one_byte:
            return columns.astype(np.int64)
        parts = (columns & 0x7F).astype(np.uint64) << feature.shifts
        return np.add.reduceat(parts, feature.starts, axis=1).view(np.int64)


def _add_varint(feature, start, stop, varint_bytes):
    feature.starts.append(len(feature.columns))
    feature.columns.extend(range(start, stop))
    feature.shifts.extend(7 * i for i in range(stop - start))
    feature.one_byte = feature.one_byte and stop - start == 1
    feature.count += 1
    varint_bytes.extend(range(start, stop))


def _agrees_with_protobuf(layout, record):
    """Whether protobuf reads the same keys, kinds and values from `record` as `layout`."""
    try:
        fmap = Example.FromString(record).features.feature
    except DecodeError:
        return False
    if set(fmap.keys()) != set(layout.features):
        return False
    row = np.frombuffer(record, dtype=np.uint8).reshape(1, -1)
    for key, feature in layout.features.items():
        message = fmap[key]
        if message.WhichOneof("kind") != feature.kind:
            return False
        want = list(getattr(message, feature.kind).value)
        got = layout.values(row, record, key)[0]
        if feature.kind == "float_list":
            if np.array(want, dtype=np.float32).tobytes() != got.tobytes():
                return False
        elif want != got.tolist():
            return False
    return True


def _layout_for(records, rows):
    """The layout of a group of equally long records, or None if they do not share one.

    A length whose records just failed to share a layout is left to protobuf for the next
    `_SKIPS` groups of that length, so that data without a common layout pays little.
    """
    length = rows.shape[1]
    layout = _layouts.get(length)
    if isinstance(layout, int):     # groups still to skip
        _layouts[length] = layout - 1 if layout > 1 else None
        return None
    if layout is not None and layout.matches(rows):
        return layout
    try:
        layout = _Layout(records[0])
        if not _agrees_with_protobuf(layout, records[0]) or not layout.matches(rows):
            layout = None
    except _Unsupported:
        layout = None
    if len(_layouts) >= 256:
        _layouts.clear()
    _layouts[length] = _SKIPS if layout is None else layout
    return layout


def _group_values(records, specs):
    """Dense values of each spec for records of one length, or None."""
    data = b"".join(records)
    rows = np.frombuffer(data, dtype=np.uint8).reshape(len(records), -1)
    layout = _layout_for(records, rows)
    if layout is None:
        return None
    out = []
    for spec in specs:
        feature = layout.features.get(spec.key)
        if feature is None:
            if spec.default is None:
                return None
            value = np.empty([len(records)] + spec.shape, dtype=spec.default.dtype)
            value[...] = spec.default
        else:
            if feature.kind != spec.kind or feature.count != spec.size:
                return None
            value = layout.values(rows, data, spec.key).reshape([len(records)] + spec.shape)
        out.append(value)
    return out


def parse_dense(records, specs):
    """[n]+shape arrays of dense FixedLenFeature `specs` for Example `records` (bytes), or
    None where these records are left to the protobuf parser."""
    if len(set(map(len, records))) == 1:
        return _group_values(records, specs)
    groups = {}
    for i, record in enumerate(records):
        groups.setdefault(len(record), []).append(i)
    if len(groups) > _MAX_GROUPS:
        return None
    out = None
    for indices in groups.values():
        values = _group_values([records[i] for i in indices], specs)
        if values is None:
            return None
        if out is None:
            out = [np.empty((len(records),) + v.shape[1:], dtype=v.dtype) for v in values]
        for whole, part in zip(out, values):
            whole[indices] = part
    return out
