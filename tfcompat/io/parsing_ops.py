"""Parsing ops: `tf.io.parse_example` / `parse_single_example` / `parse_single_sequence_example`
/ `parse_sequence_example` with `FixedLenFeature`, `VarLenFeature` (-> `tf.SparseTensor`),
`FixedLenSequenceFeature`; `decode_raw`, `decode_csv`, `read_file` / `write_file`.

Examples are parsed with the protobuf messages of `tfcompat.core.example` (upb, in C);
batches of records that share one byte layout, parsed into fixed-length features, are read
column-wise with numpy (`example_fast_parsing`). TF's checks and error messages are kept: a
missing required feature, a wrong dtype and a wrong value count raise `InvalidArgumentError`;
bytes that are not an Example raise it too. In graph mode each op is one node with TF's
static output shapes (`Graph.record_custom`); `parse_single_example` and `decode_raw` nodes
carry their batched form (`batch_rule`) for vectorized dataset maps.
"""
import collections
import csv

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.core.example.example_pb2 import Example, SequenceExample
from tfcompat.framework import context, dtypes, errors
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.ops import constant_to_torch, convert_to_tensor, to_torch
from tfcompat.framework.string_tensor import flat_strings, scalar_string, string_input
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.io.example_fast_parsing import parse_dense
from tfcompat.ops.sparse_ops import SparseTensor
from google.protobuf.message import DecodeError
from tfcompat.io.gfile import _open_for_read, _open_for_write
from tfcompat.framework.graph import get_default_graph

_state = context.state


# ---------------------------------------------------------------- feature configurations


@tf_export("io.FixedLenFeature", v1=["FixedLenFeature"])
class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A dense feature of fixed shape; missing values use `default_value` (None: required)."""

    def __new__(cls, shape, dtype, default_value=None):
        return super(FixedLenFeature, cls).__new__(cls, shape, dtype, default_value)


@tf_export("io.VarLenFeature", v1=["VarLenFeature"])
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A variable-length feature, parsed to a `tf.SparseTensor`."""


@tf_export("io.FixedLenSequenceFeature", v1=["FixedLenSequenceFeature"])
class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A sequence of dense values of shape `shape` (any number of steps)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super(FixedLenSequenceFeature, cls).__new__(cls, shape, dtype, allow_missing,
                                                           default_value)


# batches smaller than this are parsed record by record with protobuf
_FAST_PARSING_MIN = 8
_KIND = {dtypes.float32: "float_list", dtypes.int64: "int64_list", dtypes.string: "bytes_list"}
_KIND_NAME = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}
_NP = {dtypes.float32: np.float32, dtypes.int64: np.int64, dtypes.string: object}


class _Spec(object):
    """One feature key's configuration, normalized."""

    __slots__ = ("key", "kind", "dtype", "shape", "size", "default", "sequence", "sparse",
                 "allow_missing")

    def __init__(self, key, feature):
        self.key = key
        self.dtype = dtypes.as_dtype(feature.dtype)
        if self.dtype not in _KIND:
            raise ValueError("Invalid dtype %s for feature %r: tf.train.Example supports "
                             "float32, int64 and string" % (self.dtype.name, key))
        self.kind = _KIND[self.dtype]
        self.sparse = isinstance(feature, VarLenFeature)
        self.sequence = isinstance(feature, FixedLenSequenceFeature)
        self.allow_missing = getattr(feature, "allow_missing", False)
        if self.sparse:
            self.shape, self.size, self.default = None, None, None
            return
        if not isinstance(feature, (FixedLenFeature, FixedLenSequenceFeature)):
            raise ValueError("Unsupported feature configuration for %r: %r (tfcompat supports "
                             "FixedLenFeature, VarLenFeature, FixedLenSequenceFeature)"
                             % (key, feature))
        shape = TensorShape(feature.shape)
        if not shape.is_fully_defined():
            raise ValueError("Shape of feature %r must be fully defined, got %s"
                             % (key, shape))
        self.shape = [int(d) for d in shape.as_list()]
        self.size = int(np.prod(self.shape)) if self.shape else 1
        self.default = None
        if feature.default_value is not None:
            default = np.asarray(to_torch(feature.default_value, self.dtype)
                                 if self.dtype is not dtypes.string
                                 else constant_to_torch(feature.default_value, dtypes.string))
            if self.sequence:
                self.default = default.reshape(())
            else:
                if default.size == 1 and self.size != 1:
                    default = np.full(self.shape, default.reshape(()), dtype=_NP[self.dtype])
                try:
                    self.default = default.reshape(self.shape)
                except ValueError:
                    raise ValueError("default_value of feature %r has %d values, the shape %s "
                                     "needs %d" % (key, default.size, self.shape, self.size))


_spec_cache = {}


def _specs(features):
    """Normalized configurations of a features dict (cached: scripts pass the same dict)."""
    if not features:
        return []
    key = tuple((k, id(v)) for k, v in features.items())
    entry = _spec_cache.get(id(features))
    if entry is not None and entry[0] == key:
        return entry[2]
    specs = [_Spec(k, features[k]) for k in sorted(features)]
    if len(_spec_cache) > 256:
        _spec_cache.clear()
    _spec_cache[id(features)] = (key, features, specs)
    return specs


def _values(feature, spec, example_index, name):
    kind = feature.WhichOneof("kind")
    if kind is not None and kind != spec.kind:
        raise errors.InvalidArgumentError(
            "Name: %s, Key: %s, Index: %d.  Data types don't match. Data type: %s but expected "
            "type: %s" % (name, spec.key, example_index, _KIND_NAME[kind],
                          _KIND_NAME[spec.kind]))
    if kind is None:
        return ()
    return getattr(feature, kind).value


def _array(values, spec):
    if spec.dtype is dtypes.string:
        out = np.empty(len(values), dtype=object)
        out[:] = list(values)
        return out
    return np.array(values, dtype=_NP[spec.dtype])


def _parse_proto(cls, serialized, index):
    try:
        return cls.FromString(serialized)
    except (DecodeError, TypeError, ValueError):
        raise errors.InvalidArgumentError(
            "Could not parse example input, value: '%r' (entry %d is not a serialized %s)"
            % (bytes(serialized)[:64], index, cls.DESCRIPTOR.name)) from None


def _name(names, i):
    return "<unknown>" if names is None else names[i].decode("utf-8", "replace")


def _dense_value(fmap, spec, index, name):
    """The dense value of one feature of one Example (numpy, shape spec.shape)."""
    feature = fmap.get(spec.key) if spec.key in fmap else None
    if feature is None:
        if spec.default is None:
            raise errors.InvalidArgumentError(
                "Name: %s, Feature: %s (data type: %s) is required but could not be found."
                % (name, spec.key, _KIND_NAME[spec.kind]))
        return spec.default
    values = _values(feature, spec, index, name)
    if len(values) != spec.size:
        raise errors.InvalidArgumentError(
            "Name: %s, Key: %s, Index: %d.  Number of %s values != expected.  Values size: %d "
            "but output shape: %s" % (name, spec.key, index, _KIND_NAME[spec.kind],
                                      len(values), spec.shape))
    if spec.size == 1 and not spec.shape:
        value = values[0]
        return np.array(value, dtype=_NP[spec.dtype]) if spec.dtype is not dtypes.string \
            else scalar_string(value)
    return _array(values, spec).reshape(spec.shape)



def _sequence_value(values, spec, index, name):
    """FixedLenSequenceFeature in an Example: [steps] + shape."""
    if len(values) % spec.size:
        raise errors.InvalidArgumentError(
            "Name: %s, Key: %s, Index: %d.  Number of %s values is not a multiple of stride "
            "length. Saw %d values but output shape is: %s" % (
                name, spec.key, index, _KIND_NAME[spec.kind], len(values), spec.shape))
    return _array(values, spec).reshape([len(values) // spec.size] + spec.shape)


def _to_output(array, dtype):
    if dtype is dtypes.string:
        return array
    if not array.flags.c_contiguous:
        array = array.copy()
    t = torch.from_numpy(array)
    device = context.current_device()
    return t if device.type == "cpu" else t.to(device)


def _stack_padded(arrays, spec, default):
    """Stack [steps_i]+shape arrays to [n, max steps]+shape, padded with `default`."""
    longest = max([a.shape[0] for a in arrays] + [0])
    out = np.empty([len(arrays), longest] + spec.shape, dtype=_NP[spec.dtype])
    out[...] = default if default is not None else (b"" if spec.dtype is dtypes.string else 0)
    for i, a in enumerate(arrays):
        out[i, :a.shape[0]] = a
    return out


def _sparse_output(rows, spec, batched):
    """VarLen values per example -> (indices, values, dense_shape) as TF builds them."""
    lengths = [len(r) for r in rows]
    total = sum(lengths)
    width = max(lengths + [0])
    values = np.empty(total, dtype=_NP[spec.dtype])
    if total:
        values[:] = [v for r in rows for v in r] if spec.dtype is dtypes.string \
            else np.concatenate([np.asarray(r, dtype=_NP[spec.dtype]) for r in rows])
    if batched:
        indices = np.empty((total, 2), dtype=np.int64)
        indices[:, 0] = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
        indices[:, 1] = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths]) \
            if rows else np.empty(0, np.int64)
        shape = np.array([len(rows), width], dtype=np.int64)
    else:
        indices = np.arange(total, dtype=np.int64).reshape(total, 1)
        shape = np.array([total], dtype=np.int64)
    return (torch.from_numpy(indices), _to_output(values, spec.dtype),
            torch.from_numpy(shape))


def _all_fixed_len(specs):
    return all(not spec.sparse and not spec.sequence for spec in specs)


def _parse_examples(serialized, names, specs, batched):
    """Parse a list of Example bytes; returns the flat outputs (dense, then sparse triples).

    Batches of records that share one layout take the numpy fast path
    (`example_fast_parsing`); everything else, and every error, goes through protobuf.
    """
    if batched and len(serialized) >= _FAST_PARSING_MIN and _all_fixed_len(specs):
        dense = parse_dense(serialized, specs)
        if dense is not None:
            return tuple(_to_output(d, spec.dtype) for d, spec in zip(dense, specs))
    fmaps = [_parse_proto(Example, s, i).features.feature for i, s in enumerate(serialized)]
    outputs = []
    for spec in specs:
        if spec.sparse:
            continue
        if spec.sequence:
            arrays = []
            for i, fmap in enumerate(fmaps):
                if spec.key in fmap:
                    arrays.append(_sequence_value(_values(fmap[spec.key], spec, i,
                                                          _name(names, i)), spec, i,
                                                  _name(names, i)))
                elif spec.allow_missing:
                    arrays.append(np.empty([0] + spec.shape, dtype=_NP[spec.dtype]))
                else:
                    raise errors.InvalidArgumentError(
                        "Name: %s, Feature: %s (data type: %s) is required but could not be "
                        "found." % (_name(names, i), spec.key, _KIND_NAME[spec.kind]))
            dense = _stack_padded(arrays, spec, spec.default)
            outputs.append(_to_output(dense if batched else dense[0], spec.dtype))
            continue
        per_example = [_dense_value(fmap, spec, i, _name(names, i))
                       for i, fmap in enumerate(fmaps)]
        if batched:
            if spec.dtype is dtypes.string:
                dense = np.empty([len(per_example)] + spec.shape, dtype=object)
                for i, v in enumerate(per_example):
                    dense[i, ...] = v
            else:
                dense = np.stack(per_example) if per_example else \
                    np.empty([0] + spec.shape, dtype=_NP[spec.dtype])
        else:
            dense = per_example[0]
        outputs.append(_to_output(dense, spec.dtype))
    for spec in specs:
        if not spec.sparse:
            continue
        rows = [_values(fmap[spec.key], spec, i, _name(names, i)) if spec.key in fmap else ()
                for i, fmap in enumerate(fmaps)]
        outputs.extend(_sparse_output(rows, spec, batched))
    return tuple(outputs)


def _out_specs(specs, batch_shape):
    """Static (dtype, shape) of the flat outputs of _parse_examples."""
    out = []
    for spec in specs:
        if spec.sparse:
            continue
        steps = [None] if spec.sequence else []
        out.append((spec.dtype, TensorShape(batch_shape + steps + spec.shape)))
    for spec in specs:
        if spec.sparse:
            rank = len(batch_shape) + 1
            out.extend([(dtypes.int64, TensorShape([None, rank])),
                        (spec.dtype, TensorShape([None])), (dtypes.int64, TensorShape([rank]))])
    return out


def _pack_outputs(specs, flat):
    it = iter(flat)
    result = {}
    for spec in specs:
        if not spec.sparse:
            result[spec.key] = next(it)
    for spec in specs:
        if spec.sparse:
            result[spec.key] = _sparse_tensor(next(it), next(it), next(it))
    return result


def _sparse_tensor(indices, values, shape):
    if isinstance(indices, EagerTensor):
        return SparseTensor(indices, values, shape)
    sp = SparseTensor.__new__(SparseTensor)
    sp._indices, sp._values, sp._dense_shape = indices, values, shape
    return sp




# ---------------------------------------------------------------- Example parsing


@tf_export(v1=["io.parse_example", "parse_example"])
def parse_example(serialized, features, name=None, example_names=None):
    """Parse a batch (vector) of serialized Examples into a dict of dense / sparse tensors."""
    return _parse_example(serialized, features, example_names, name, batched=True)


@tf_export(v2=["io.parse_example"])
def parse_example_v2(serialized, features, example_names=None, name=None):
    return _parse_example(serialized, features, example_names, name, batched=True)


@tf_export(v1=["io.parse_single_example", "parse_single_example"])
def parse_single_example(serialized, features, name=None, example_names=None):
    """Parse one serialized Example (a scalar string) into a dict of tensors."""
    return _parse_example(serialized, features, example_names, name, batched=False)


@tf_export(v2=["io.parse_single_example"])
def parse_single_example_v2(serialized, features, example_names=None, name=None):
    return _parse_example(serialized, features, example_names, name, batched=False)


def _parse_example(serialized, features, example_names, name, batched):
    if not features:
        raise ValueError("Missing: features was %s." % features)
    specs = _specs(features)
    tensor, shape = string_input(serialized, "serialized")
    if shape.rank is not None and shape.rank != (1 if batched else 0):
        raise ValueError("Shape %s must have rank %d (serialized input of %s)"
                         % (shape, 1 if batched else 0,
                            "parse_example" if batched else "parse_single_example"))
    names = None
    if example_names is not None:
        names = constant_to_torch(example_names, dtypes.string).reshape(-1)

    def parse(values):
        return _parse_examples(flat_strings(values), names, specs, batched)

    def parse_stacked(values):
        """Dense outputs for strings of any shape S (stacked inputs): S + feature shape."""
        outputs = _parse_examples(flat_strings(values), None, specs, True)
        return tuple(out.reshape(values.shape + tuple(spec.shape))
                     for out, spec in zip(outputs, specs))
    if _all_fixed_len(specs):
        parse.batch_rule = parse_stacked
    batch_shape = [shape.as_list()[0] if shape.rank else None] if batched else []
    flat = run_op(parse, "ParseExampleV2" if batched else "ParseSingleExample", [tensor],
                  lambda: _out_specs(specs, batch_shape), name)
    return _pack_outputs(specs, flat)


# ---------------------------------------------------------------- SequenceExample parsing


def _parse_sequences(serialized, context_specs, sequence_specs, names, batched):
    contexts = []
    lists = []
    for i, s in enumerate(serialized):
        proto = _parse_proto(SequenceExample, s, i)
        contexts.append(proto.context.feature)
        lists.append(proto.feature_lists.feature_list)
    outputs = list(_parse_from_maps(contexts, context_specs, names, batched))
    lengths = []
    for spec in sequence_specs:
        if spec.sparse:
            continue
        per = []
        for i, fl in enumerate(lists):
            if spec.key not in fl:
                if not spec.allow_missing and spec.default is None:
                    raise errors.InvalidArgumentError(
                        "Name: %s, Feature list '%s' is required but could not be found.  Did "
                        "you mean to include it in feature_list_dense_missing_assumed_empty or "
                        "feature_list_dense_defaults?" % (_name(names, i), spec.key))
                per.append(np.empty([0] + spec.shape, dtype=_NP[spec.dtype]))
                continue
            steps = []
            for t, feature in enumerate(fl[spec.key].feature):
                values = _values(feature, spec, i, _name(names, i))
                if len(values) != spec.size:
                    raise errors.InvalidArgumentError(
                        "Name: %s, Key: %s, Index: %d.  Number of %s values != expected.  "
                        "values size: %d but output shape: %s" % (
                            _name(names, i), spec.key, t, _KIND_NAME[spec.kind], len(values),
                            spec.shape))
                steps.append(_array(values, spec).reshape(spec.shape))
            per.append(np.stack(steps) if steps and spec.dtype is not dtypes.string else
                       _object_stack(steps, spec))
        dense = _stack_padded(per, spec, spec.default)
        outputs.append(_to_output(dense if batched else dense[0], spec.dtype))
        lengths.append(torch.tensor([p.shape[0] for p in per], dtype=torch.int64))
    for spec in sequence_specs:
        if not spec.sparse:
            continue
        indices, values, width, steps_max = [], [], 0, 0
        for i, fl in enumerate(lists):
            feats = fl[spec.key].feature if spec.key in fl else []
            steps_max = max(steps_max, len(feats))
            for t, feature in enumerate(feats):
                vals = _values(feature, spec, i, _name(names, i))
                width = max(width, len(vals))
                for j, v in enumerate(vals):
                    indices.append([i, t, j] if batched else [t, j])
                    values.append(v)
        rank = 3 if batched else 2
        ind = np.array(indices, dtype=np.int64).reshape(-1, rank)
        shape = [len(lists), steps_max, width] if batched else [steps_max, width]
        outputs.extend([torch.from_numpy(ind), _to_output(_array(values, spec), spec.dtype),
                        torch.tensor(shape, dtype=torch.int64)])
    if batched:
        outputs.extend(lengths)
    return tuple(outputs)


def _object_stack(steps, spec):
    out = np.empty([len(steps)] + spec.shape, dtype=_NP[spec.dtype])
    for t, s in enumerate(steps):
        out[t, ...] = s
    return out


def _parse_from_maps(fmaps, specs, names, batched):
    """Dense and sparse outputs for context features (a list of feature maps)."""
    outputs = []
    for spec in specs:
        if spec.sparse:
            continue
        per = [_dense_value(fmap, spec, i, _name(names, i)) for i, fmap in enumerate(fmaps)]
        if batched:
            dense = _object_stack(per, spec) if spec.dtype is dtypes.string else np.stack(per)
        else:
            dense = per[0]
        outputs.append(_to_output(dense, spec.dtype))
    for spec in specs:
        if spec.sparse:
            rows = [_values(fmap[spec.key], spec, i, _name(names, i)) if spec.key in fmap
                    else () for i, fmap in enumerate(fmaps)]
            outputs.extend(_sparse_output(rows, spec, batched))
    return outputs


def _sequence_out_specs(context_specs, sequence_specs, batch_shape):
    out = _out_specs(context_specs, batch_shape)
    for spec in sequence_specs:
        if not spec.sparse:
            out.append((spec.dtype, TensorShape(batch_shape + [None] + spec.shape)))
    for spec in sequence_specs:
        if spec.sparse:
            rank = len(batch_shape) + 2
            out.extend([(dtypes.int64, TensorShape([None, rank])),
                        (spec.dtype, TensorShape([None])), (dtypes.int64, TensorShape([rank]))])
    if batch_shape:
        out.extend((dtypes.int64, TensorShape(batch_shape))
                   for spec in sequence_specs if not spec.sparse)
    return out


def _check_sequence_specs(sequence_features):
    specs = _specs(sequence_features)
    for spec in specs:
        if not (spec.sparse or spec.sequence):
            raise ValueError("sequence_features must hold FixedLenSequenceFeature or "
                             "VarLenFeature, got a FixedLenFeature for %r" % spec.key)
    return specs


@tf_export("io.parse_single_sequence_example", v1=["parse_single_sequence_example"])
def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """Parse one SequenceExample: returns (context dict, sequence dict)."""
    context_specs = _specs(context_features)
    sequence_specs = _check_sequence_specs(sequence_features)
    if not context_specs and not sequence_specs:
        raise ValueError("Missing features.")
    tensor, shape = string_input(serialized, "serialized")
    names = None if example_name is None else \
        constant_to_torch(example_name, dtypes.string).reshape(-1)

    def parse(values):
        return _parse_sequences(flat_strings(values), context_specs, sequence_specs, names,
                                False)
    flat = run_op(parse, "ParseSingleSequenceExample", [tensor],
                  _sequence_out_specs(context_specs, sequence_specs, []), name)
    n_context = len(_out_specs(context_specs, []))
    return (_pack_outputs(context_specs, flat[:n_context]),
            _pack_outputs(sequence_specs, flat[n_context:]))


@tf_export("io.parse_sequence_example")
def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """Parse a vector of SequenceExamples: (context dict, sequence dict, lengths dict)."""
    context_specs = _specs(context_features)
    sequence_specs = _check_sequence_specs(sequence_features)
    if not context_specs and not sequence_specs:
        raise ValueError("Missing features.")
    tensor, shape = string_input(serialized, "serialized")
    names = None if example_names is None else \
        constant_to_torch(example_names, dtypes.string).reshape(-1)

    def parse(values):
        return _parse_sequences(flat_strings(values), context_specs, sequence_specs, names,
                                True)
    batch_shape = [shape.as_list()[0] if shape.rank else None]
    flat = run_op(parse, "ParseSequenceExampleV2", [tensor],
                  _sequence_out_specs(context_specs, sequence_specs, batch_shape), name)
    n_context = len(_out_specs(context_specs, batch_shape))
    dense_seq = [s for s in sequence_specs if not s.sparse]
    n_lengths = len(dense_seq)
    body = flat[n_context:len(flat) - n_lengths] if n_lengths else flat[n_context:]
    lengths = {spec.key: t for spec, t in zip(dense_seq, flat[len(flat) - n_lengths:])}
    return (_pack_outputs(context_specs, flat[:n_context]),
            _pack_outputs(sequence_specs, body), lengths)


# ---------------------------------------------------------------- decode_raw / decode_csv


_RAW_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint16,
              dtypes.uint8, dtypes.int16, dtypes.int8, dtypes.int64, dtypes.bool,
              dtypes.complex64, dtypes.complex128, dtypes.bfloat16)


def _decode_raw(input_bytes, out_type, little_endian, fixed_length, name):
    out_type = dtypes.as_dtype(out_type)
    if out_type not in _RAW_TYPES:
        raise TypeError("Value passed to parameter 'out_type' has DataType %s not in list of "
                        "allowed values" % out_type.name)
    tensor, shape = string_input(input_bytes, "input_bytes")
    np_dtype = np.dtype(out_type.as_numpy_dtype if out_type is not dtypes.bfloat16
                        else np.uint16)
    if out_type.size > 1:
        np_dtype = np_dtype.newbyteorder("<" if little_endian else ">")
    itemsize = np_dtype.itemsize
    native = np_dtype.newbyteorder("=")

    def decode(values):
        flat = flat_strings(values)
        if fixed_length is not None:
            flat = [v[:fixed_length].ljust(fixed_length, b"\0") for v in flat]
        sizes = set(map(len, flat))
        if len(sizes) > 1:
            raise errors.InvalidArgumentError(
                "DecodeRaw requires input strings to all be the same size, but element 0 has "
                "size %d != %d" % (len(flat[0]), next(len(v) for v in flat
                                                      if len(v) != len(flat[0]))))
        size = sizes.pop() if sizes else 0
        if size % itemsize:
            raise errors.InvalidArgumentError(
                "Input to DecodeRaw has length %d that is not a multiple of %d, the size of %s"
                % (size, itemsize, out_type.name))
        data = flat[0] if len(flat) == 1 else b"".join(flat)
        array = np.frombuffer(data, dtype=np_dtype).reshape(values.shape +
                                                             (size // itemsize,))
        if out_type is dtypes.bfloat16:
            return (_to_output(array.astype(np.uint16).view(np.int16), out_type)
                    .view(torch.bfloat16),)
        return (_to_output(array.astype(native, copy=True), out_type),)
    decode.batch_rule = decode  # elementwise over the strings, whatever their shape

    def static():
        width = None if fixed_length is None else fixed_length // itemsize
        return [(out_type, TensorShape(None) if shape.rank is None else
                 TensorShape(shape.as_list() + [width]))]
    return run_op(decode, "DecodeRaw", [tensor], static, name)[0]


@tf_export(v1=["io.decode_raw", "decode_raw"])
def decode_raw_v1(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """Reinterpret the bytes of each string as a vector of `out_type`."""
    return _decode_raw(input_bytes if input_bytes is not None else bytes, out_type,
                       little_endian, None, name)


@tf_export(v2=["io.decode_raw"])
def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    return _decode_raw(input_bytes, out_type, little_endian, fixed_length, name)


_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def _csv_default(value, index):
    t = EagerTensor(to_torch(value)) if not isinstance(value, EagerTensor) else value
    if t.dtype not in _CSV_TYPES:
        raise TypeError("record_defaults[%d] has dtype %s; decode_csv supports float32, "
                        "float64, int32, int64 and string" % (index, t.dtype.name))
    array = np.asarray(t.numpy()).reshape(-1)
    if array.size > 1:
        raise ValueError("Shape of a default must be a length-0 or length-1 vector, or a "
                         "scalar (record_defaults[%d])" % index)
    return t.dtype, (array[0] if array.size else None)


@tf_export(v2=["io.decode_csv"])
def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, na_value="",
               select_cols=None, name=None):
    """Parse CSV lines; each column's type and default come from `record_defaults`."""
    defaults = [_csv_default(v, i) for i, v in enumerate(record_defaults)]
    tensor, shape = string_input(records, "records")
    if select_cols is not None and len(select_cols) != len(defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    if select_cols is not None and list(select_cols) != sorted(set(select_cols)):
        raise ValueError("select_cols is not strictly increasing.")
    delim = field_delim.encode() if isinstance(field_delim, str) else field_delim
    na = na_value.encode() if isinstance(na_value, str) else na_value

    def convert(field, col, record_index):
        dtype, default = defaults[col]
        if field == na or field == b"":
            if default is None:
                raise errors.InvalidArgumentError(
                    "Field %d is required but missing in record %d!" % (col, record_index))
            return default
        if dtype is dtypes.string:
            return field
        try:
            return float(field) if dtype.is_floating else int(field)
        except ValueError:
            raise errors.InvalidArgumentError(
                "Field %d in record %d is not a valid %s: %r" % (
                    col, record_index, "float" if dtype.is_floating else "int", field)) \
                from None

    def decode(values):
        flat = flat_strings(values)
        columns = [[] for _ in defaults]
        for r, line in enumerate(flat):
            text = line.decode("utf-8")
            reader = csv.reader([text], delimiter=delim.decode(),
                                quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)
            fields = [f.encode("utf-8") for f in next(reader, [""])]
            if select_cols is not None:
                if len(fields) <= select_cols[-1]:
                    raise errors.InvalidArgumentError(
                        "Expect %d fields but have %d in record %d" % (
                            select_cols[-1] + 1, len(fields), r))
                fields = [fields[c] for c in select_cols]
            if len(fields) != len(defaults):
                raise errors.InvalidArgumentError(
                    "Expect %d fields but have %d in record %d" % (len(defaults), len(fields),
                                                                   r))
            for c, field in enumerate(fields):
                columns[c].append(convert(field, c, r))
        out = []
        for (dtype, _), column in zip(defaults, columns):
            if dtype is dtypes.string:
                arr = np.empty(len(column), dtype=object)
                arr[:] = column
                out.append(arr.reshape(values.shape))
            else:
                out.append(constant_to_torch(np.array(column, dtype=dtype.as_numpy_dtype)
                                             .reshape(values.shape), dtype))
        return tuple(out)
    return run_op(decode, "DecodeCSV", [tensor], [(d, shape) for d, _ in defaults], name)


@tf_export(v1=["io.decode_csv", "decode_csv"])
def decode_csv_v1(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
                  na_value="", select_cols=None):
    return decode_csv(records, record_defaults, field_delim, use_quote_delim, na_value,
                      select_cols, name)


# ---------------------------------------------------------------- files


@tf_export("io.read_file", v1=["read_file"])
def read_file(filename, name=None):
    """The contents of a file as a scalar string (NotFoundError if it does not exist)."""
    tensor, _ = string_input(filename, "filename")

    def read(value):
        with _open_for_read(flat_strings(value)[0]) as f:
            return (scalar_string(f.read()),)
    return run_op(read, "ReadFile", [tensor], [(dtypes.string, TensorShape([]))], name,
                  pure=False)[0]


@tf_export("io.write_file", v1=["write_file"])
def write_file(filename, contents, name=None):
    """Write a scalar string to a file (creating or truncating it)."""
    name_t, _ = string_input(filename, "filename")
    data_t, _ = string_input(contents, "contents")

    def write(path, data):
        with _open_for_write(flat_strings(path)[0]) as f:
            f.write(flat_strings(data)[0])
        return ()
    if not _state.building_graph:
        write(to_torch(name_t), to_torch(data_t))
        return None
    return get_default_graph().record_custom(lambda p, d: write(p, d) and None, "WriteFile",
                                             [name_t, data_t], None, name)
