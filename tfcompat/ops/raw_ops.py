"""TF's `tf.raw_ops`: TensorFlow's ops by op type, called with keyword arguments only, as
TF's generated wrappers take them (`tf.raw_ops.MatMul(a=, b=, transpose_a=False, ...)`).

Each entry is a thin body over the op tfcompat already has (its torch function, run through
`ops.run_impl`), recorded as ONE node of the raw op's type, so a graph imported from a
GraphDef (`tf.import_graph_def`) keeps TF's node names, runs, differentiates and compiles
like any op. Argument names, defaults and output names come from real TensorFlow, in
`raw_op_defs.json` (written by scripts/make_raw_op_defs.py); a body's parameters are checked
against them when this module loads. `RAW_OPS` maps op type -> entry: the GraphDef importer
resolves op types only there. Attrs follow TF's op defs (`T` and the other attrs TF infers
from the inputs are not arguments). Raw ops we do not have raise NotImplementedError through
the registry (docs/raw_ops.md lists them).
"""
import collections
import inspect
import json
import os

import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.framework.constant_op import constant
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.graph import SymbolicTensor, placeholder, placeholder_with_default
from tfcompat.framework.meta_graph import _tensor_value
from tfcompat.framework.ops import convert_to_tensor, op, run_impl, to_torch
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import (array_ops, check_ops, clip_ops, control_flow_ops, image_ops,
                          linalg_ops, math_ops, nn_ops, random_ops)

with open(os.path.join(os.path.dirname(__file__), "raw_op_defs.json")) as _file:
    OP_DEFS = json.load(_file)

RAW_OPS = {}     # op type -> the public entry, `tf.raw_ops.<op type>`


def _default(value):
    """A default of raw_op_defs.json as the Python value TF's signature has."""
    if isinstance(value, dict) and "dtype" in value and len(value) == 1:
        return dtypes.as_dtype(value["dtype"])
    return value


def _signature(op_type):
    parameters = [inspect.Parameter(entry[0], inspect.Parameter.KEYWORD_ONLY,
                                    default=_default(entry[1]) if len(entry) > 1
                                    else inspect.Parameter.empty)
                  for entry in OP_DEFS[op_type]["params"]]
    parameters.append(inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None))
    return inspect.Signature(parameters)


def _output_class(op_type):
    """TF's namedtuple of a raw op's outputs when it has several, else None."""
    outputs = OP_DEFS[op_type]["outputs"]
    if len(outputs) < 2:
        return None
    return collections.namedtuple(op_type, [name for name, _ in outputs])


def _keyword_only(op_type, call):
    """TF's raw-op calling convention over `call(**arguments)`: keyword arguments only,
    checked against TF's signature, defaults filled in."""
    signature = _signature(op_type)
    keys = list(signature.parameters)

    def entry(*args, **kwargs):
        if args:
            raise TypeError("%s only takes keyword args (possible keys: %s). Please pass these "
                            "args as kwargs instead." % (op_type, keys))
        bound = signature.bind(**kwargs)
        bound.apply_defaults()
        return call(**bound.arguments)

    entry.__name__ = entry.__qualname__ = op_type
    entry.__signature__ = signature
    entry.__doc__ = "`tf.raw_ops.%s`: TF's op, keyword arguments only." % op_type
    return entry


def raw_op(op_type, records_itself=False):
    """Register `body` as TF's raw op `op_type`: `body` takes the op's keyword arguments
    (TF's names, checked against raw_op_defs.json) and `name`. It is recorded as one node
    of type `op_type` unless it `records_itself` (Const, Placeholder and NoOp are made by
    the functions that make them everywhere)."""
    def register(body):
        wanted = [entry[0] for entry in OP_DEFS[op_type]["params"]] + ["name"]
        found = list(inspect.signature(body).parameters)
        if found != wanted:
            raise TypeError("raw op %s: body takes %s, TF's arguments are %s"
                            % (op_type, found, wanted))
        body.__name__ = body.__qualname__ = op_type
        call = body if records_itself else \
            op(graph_name=op_type)(_with_outputs(op_type, body))
        entry = _keyword_only(op_type, call)
        RAW_OPS[op_type] = entry
        tf_export("raw_ops." + op_type)(entry)
        return body
    return register


def _with_outputs(op_type, body):
    """`body` returning TF's namedtuple when the op has several outputs."""
    output_class = _output_class(op_type)
    if output_class is None:
        return body

    def named(**kwargs):
        return output_class(*body(**kwargs))
    named.__name__ = named.__qualname__ = op_type
    return named


def _same_arguments(op_type, target):
    """Register raw op `op_type` as `target` (a tfcompat op) given the raw op's arguments
    as its leading parameters other than `name`, in TF's order."""
    names = [entry[0] for entry in OP_DEFS[op_type]["params"]]
    target_names = [p for p in inspect.signature(target._tfcompat_impl).parameters
                    if p != "name"][:len(names)]
    if len(target_names) != len(names):
        raise TypeError("raw op %s: %s takes fewer arguments than %s"
                        % (op_type, target.__name__, names))

    def body(**arguments):
        return run_impl(target, **{t: arguments[n] for t, n in zip(target_names, names)})
    body.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in names] +
        [inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None)])
    raw_op(op_type)(body)


# ---------------------------------------------------------------- ops taking TF's arguments

for _op_type, _target in {
        # unary math and activations
        "Abs": math_ops.abs, "Neg": math_ops.negative, "Sign": math_ops.sign,
        "Square": math_ops.square, "Sqrt": math_ops.sqrt, "Rsqrt": math_ops.rsqrt,
        "Exp": math_ops.exp, "Expm1": math_ops.expm1, "Log": math_ops.log,
        "Log1p": math_ops.log1p, "Reciprocal": math_ops.reciprocal, "Round": math_ops.round,
        "Rint": math_ops.rint, "Floor": math_ops.floor, "Ceil": math_ops.ceil,
        "Lgamma": math_ops.lgamma, "Digamma": math_ops.digamma, "Erfinv": math_ops.erfinv,
        "Ndtri": math_ops.ndtri, "Conj": math_ops.conj,
        "BesselI0": math_ops.bessel_i0, "BesselI0e": math_ops.bessel_i0e,
        "BesselI1": math_ops.bessel_i1, "BesselI1e": math_ops.bessel_i1e,
        "BesselJ0": math_ops.bessel_j0, "BesselJ1": math_ops.bessel_j1,
        "BesselK0": math_ops.bessel_k0, "BesselK0e": math_ops.bessel_k0e,
        "BesselK1": math_ops.bessel_k1, "BesselK1e": math_ops.bessel_k1e,
        "BesselY0": math_ops.bessel_y0, "BesselY1": math_ops.bessel_y1,
        "Sin": math_ops.sin, "Cos": math_ops.cos, "Tan": math_ops.tan, "Asin": math_ops.asin,
        "Acos": math_ops.acos, "Atan": math_ops.atan, "Sinh": math_ops.sinh,
        "Cosh": math_ops.cosh, "Tanh": math_ops.tanh, "Asinh": math_ops.asinh,
        "Acosh": math_ops.acosh, "Atanh": math_ops.atanh, "Sigmoid": math_ops.sigmoid,
        "Erf": math_ops.erf, "Erfc": math_ops.erfc, "IsNan": math_ops.is_nan,
        "IsInf": math_ops.is_inf, "IsFinite": math_ops.is_finite,
        "LogicalNot": math_ops.logical_not, "Relu": nn_ops.relu, "Relu6": nn_ops.relu6,
        "Elu": nn_ops.elu, "Selu": nn_ops.selu, "Softplus": nn_ops.softplus,
        "Softsign": nn_ops.softsign, "LeakyRelu": nn_ops.leaky_relu,
        "Softmax": nn_ops.softmax, "LogSoftmax": nn_ops.log_softmax,
        # binary math
        "Add": math_ops.add, "AddV2": math_ops.add, "Sub": math_ops.subtract,
        "Mul": math_ops.multiply, "Pow": math_ops.pow, "Maximum": math_ops.maximum,
        "Minimum": math_ops.minimum, "Atan2": math_ops.atan2,
        "TruncateMod": math_ops.truncatemod, "FloorMod": math_ops.floormod,
        "SquaredDifference": math_ops.squared_difference, "RealDiv": math_ops.realdiv,
        "FloorDiv": math_ops.floordiv, "TruncateDiv": math_ops.truncatediv,
        "Div": math_ops.div, "DivNoNan": math_ops.divide_no_nan, "Xdivy": math_ops.xdivy,
        "Xlogy": math_ops.xlogy, "Xlog1py": math_ops.xlog1py,
        "MulNoNan": math_ops.multiply_no_nan, "Less": math_ops.less, "LessEqual": math_ops.less_equal,
        "Greater": math_ops.greater, "GreaterEqual": math_ops.greater_equal,
        "LogicalAnd": math_ops.logical_and, "LogicalOr": math_ops.logical_or,
        "BitwiseAnd": math_ops.bitwise_and, "BitwiseOr": math_ops.bitwise_or,
        "BitwiseXor": math_ops.bitwise_xor, "LeftShift": math_ops.left_shift,
        "RightShift": math_ops.right_shift, "Invert": math_ops.invert,
        "Mod": math_ops.floormod, "AddN": math_ops.add_n, "BiasAdd": nn_ops.bias_add,
        "BiasAddV1": nn_ops.bias_add, "L2Loss": nn_ops.l2_loss,
        "LRN": nn_ops.local_response_normalization, "InTopKV2": nn_ops.in_top_k,
        "MatrixBandPart": linalg_ops.band_part,
        "ClipByValue": clip_ops.clip_by_value,
        # reductions: (input, axis, keep_dims)
        "Mean": math_ops.reduce_mean, "Sum": math_ops.reduce_sum, "Max": math_ops.reduce_max,
        "Min": math_ops.reduce_min, "Prod": math_ops.reduce_prod, "All": math_ops.reduce_all,
        "Any": math_ops.reduce_any, "ArgMax": math_ops.argmax_v2,
        "ArgMin": math_ops.argmin_v2, "Cumsum": math_ops.cumsum, "Cumprod": math_ops.cumprod,
        "CumulativeLogsumexp": math_ops.cumulative_logsumexp,
        "EuclideanNorm": math_ops.reduce_euclidean_norm,
        "InvertPermutation": math_ops.invert_permutation,
        "SegmentSum": math_ops.segment_sum, "SegmentProd": math_ops.segment_prod,
        "SegmentMax": math_ops.segment_max, "SegmentMin": math_ops.segment_min,
        "SegmentMean": math_ops.segment_mean,
        "UnsortedSegmentSum": math_ops.unsorted_segment_sum,
        "UnsortedSegmentProd": math_ops.unsorted_segment_prod,
        "UnsortedSegmentMax": math_ops.unsorted_segment_max,
        "UnsortedSegmentMin": math_ops.unsorted_segment_min,
        # array ops
        "Identity": array_ops.identity, "IdentityN": array_ops.identity_n,
        "StopGradient": array_ops.stop_gradient, "ZerosLike": array_ops.zeros_like_v2,
        "OnesLike": array_ops.ones_like_v2, "Rank": array_ops.rank,
        "Shape": array_ops.shape, "Size": array_ops.size, "Reshape": array_ops.reshape,
        "ExpandDims": array_ops.expand_dims, "Tile": array_ops.tile,
        "Slice": array_ops.slice, "StridedSlice": array_ops.strided_slice,
        "Transpose": array_ops.transpose, "Pad": array_ops.pad, "Fill": array_ops.fill,
        "BroadcastTo": array_ops.broadcast_to, "ConcatV2": array_ops.concat,
        "Pack": array_ops.stack, "Unpack": array_ops.unstack,
        "Select": array_ops.where, "SelectV2": array_ops.where_v2, "Where": array_ops.where,
        "Snapshot": array_ops.identity, "EnsureShape": array_ops.ensure_shape,
        "ReverseV2": array_ops.reverse, "ShapeN": array_ops.shape_n,
        "Unique": array_ops.unique, "SpaceToBatchND": array_ops.space_to_batch_nd,
        "BatchToSpaceND": array_ops.batch_to_space_nd,
        # 3-D convolution and pooling
        "Conv3D": nn_ops.conv3d_v2, "MaxPool3D": nn_ops.max_pool3d,
        "AvgPool3D": nn_ops.avg_pool3d,
        "ResizeArea": image_ops.resize_area, "MaxPoolV2": nn_ops.max_pool_v2,
        "InTopK": nn_ops.in_top_k,
        "LinSpace": array_ops.linspace, "Roll": array_ops.roll,
        "UniqueWithCounts": array_ops.unique_with_counts,
        "ReverseSequence": array_ops.reverse_sequence,
        # linear algebra
        "MatrixInverse": linalg_ops.inv, "MatrixDeterminant": linalg_ops.det,
        "LogMatrixDeterminant": linalg_ops.slogdet, "Cholesky": linalg_ops.cholesky,
        "MatrixSolve": linalg_ops.solve, "MatrixTriangularSolve": linalg_ops.triangular_solve,
        "MatrixSolveLs": linalg_ops.lstsq, "Qr": linalg_ops.qr,
        "MatrixExponential": linalg_ops.expm, "Diag": linalg_ops.tensor_diag,
        "DiagPart": linalg_ops.tensor_diag_part, "Cross": linalg_ops.cross,
        "MatrixDiag": linalg_ops.matrix_diag, "MatrixDiagPart": linalg_ops.matrix_diag_part,
        "MatrixSetDiagV3": linalg_ops.set_diag,
        # image colour
        "AdjustContrastv2": image_ops.adjust_contrast, "RGBToHSV": image_ops.rgb_to_hsv,
        "HSVToRGB": image_ops.hsv_to_rgb,
}.items():
    _same_arguments(_op_type, _target)


# ---------------------------------------------------------------- ops needing their attrs mapped


# the TensorProto field holding the values of each dtype (without tensor_content)
_VALUE_FIELDS = {"float32": "float_val", "float64": "double_val", "int64": "int64_val",
                 "bool": "bool_val", "string": "string_val", "float16": "half_val",
                 "bfloat16": "half_val", "complex64": "scomplex_val",
                 "complex128": "dcomplex_val", "uint32": "uint32_val",
                 "uint64": "uint64_val"}


def tensor_proto_value(proto, dtype):
    """The numpy value of a TensorProto as TF's kernels read it: without `tensor_content`
    a value list shorter than the tensor repeats its last value, and an empty one means
    zeros (TF writes scalar zeros that way)."""
    dtype = dtypes.as_dtype(dtype)
    if not proto.tensor_content:
        field = _VALUE_FIELDS.get(dtype.name, "int_val")
        values = getattr(proto, field)
        count = 1
        for dim in proto.tensor_shape.dim:
            count *= dim.size
        per_element = 2 if dtype.is_complex else 1
        if len(values) < count * per_element:
            proto = type(proto)(dtype=proto.dtype, tensor_shape=proto.tensor_shape)
            filled = list(values) or [b"" if dtype is dtypes.string else 0] * per_element
            filled += filled[-per_element:] * (count - len(filled) // per_element)
            getattr(proto, field).extend(filled)
    return _tensor_value(proto, dtype)


@raw_op("Const", records_itself=True)
def _const(value, dtype, name=None):
    """`value` a TensorProto (as in a NodeDef) or anything `tf.constant` takes."""
    dtype = dtypes.as_dtype(dtype)
    if type(value).__name__ == "TensorProto":
        value = tensor_proto_value(value, dtype)
    return constant(value, dtype=dtype, name=name)


@raw_op("Placeholder", records_itself=True)
def _placeholder(dtype, shape=None, name=None):
    return placeholder(dtype, shape, name=name)


@raw_op("PlaceholderWithDefault", records_itself=True)
def _placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's name
    return placeholder_with_default(input, shape, name=name)


@raw_op("NoOp", records_itself=True)
def _no_op(name=None):
    return control_flow_ops.no_op(name=name)


@raw_op("Assert", records_itself=True)
def _assert(condition, data, summarize=3, name=None):
    """tfcompat's tf.Assert (what TF1's dynamic_rnn checks its sequence lengths with)."""
    return check_ops.Assert(condition, data, summarize=summarize, name=name)


@raw_op("ControlTrigger", records_itself=True)
def _control_trigger(name=None):
    """TF1 loop gradients' synchronisation point: a no-op here (ops run in order)."""
    return control_flow_ops.no_op(name=name)


@raw_op("Cast")
def _cast(x, DstT, Truncate=False, name=None):  # noqa: N803 - TF's attr names
    return run_impl(math_ops.cast, x, dtypes.as_dtype(DstT))


@raw_op("MatMul")
def _mat_mul(a, b, transpose_a=False, transpose_b=False, grad_a=False, grad_b=False,
             name=None):
    return run_impl(math_ops.matmul, a, b, transpose_a, transpose_b)


def _batch_mat_mul_body():
    def body(x, y, adj_x=False, adj_y=False, grad_x=False, grad_y=False, name=None):
        return run_impl(math_ops.matmul, x, y, adjoint_a=adj_x, adjoint_b=adj_y)
    return body


raw_op("BatchMatMul")(_batch_mat_mul_body())
raw_op("BatchMatMulV2")(_batch_mat_mul_body())


@raw_op("BatchMatMulV3")
def _batch_mat_mul_v3(x, y, Tout, adj_x=False, adj_y=False, grad_x=False,  # noqa: N803
                      grad_y=False, name=None):
    """Inputs of one dtype (TF also takes int8/uint8 pairs with an int32 `Tout`)."""
    product = run_impl(math_ops.matmul, x, y, adjoint_a=adj_x, adjoint_b=adj_y)
    return product.to(dtypes.as_dtype(Tout).torch_dtype)


def _equality(target, x, y, incompatible_shape_error):
    """Equal/NotEqual: with `incompatible_shape_error=False` (what TF 2's `==` records)
    shapes that do not broadcast compare unequal as one bool, instead of raising."""
    if not incompatible_shape_error:
        try:
            torch.broadcast_shapes(tuple(to_torch(x).shape), tuple(to_torch(y).shape))
        except RuntimeError:
            return torch.tensor(target is math_ops.not_equal)
    return run_impl(target, x, y)


def _equality_body(target):
    def body(x, y, incompatible_shape_error=True, name=None):
        return _equality(target, x, y, incompatible_shape_error)
    return body


raw_op("Equal")(_equality_body(math_ops.equal))
raw_op("NotEqual")(_equality_body(math_ops.not_equal))


@raw_op("Squeeze")
def _squeeze(input, axis=(), name=None):  # noqa: A002 - TF's name
    """TF's empty `axis` squeezes every size-1 dim."""
    return run_impl(array_ops.squeeze, input, list(axis) or None)


@raw_op("GatherV2")
def _gather_v2(params, indices, axis, batch_dims=0, name=None):
    return run_impl(array_ops.gather, params, indices, axis=axis, batch_dims=batch_dims)


@raw_op("GatherNd")
def _gather_nd(params, indices, bad_indices_policy="", name=None):
    """Out-of-range indices raise, TF's CPU behaviour (its default policy)."""
    return run_impl(array_ops.gather_nd, params, indices)


@raw_op("ScatterNd")
def _scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    return run_impl(array_ops.scatter_nd, indices, updates, shape)


@raw_op("TensorScatterUpdate")
def _tensor_scatter_update(tensor, indices, updates, bad_indices_policy="", name=None):
    return run_impl(array_ops.tensor_scatter_nd_update, tensor, indices, updates)


def _block_body(target):
    def body(input, block_size, data_format="NHWC", name=None):  # noqa: A002 - TF's name
        return run_impl(target, input, block_size, data_format=data_format)
    return body


raw_op("DepthToSpace")(_block_body(array_ops.depth_to_space))
raw_op("SpaceToDepth")(_block_body(array_ops.space_to_depth))


@raw_op("Split")
def _split(axis, value, num_split, name=None):
    return run_impl(array_ops.split, value, num_split, axis)


@raw_op("SplitV")
def _split_v(value, size_splits, axis, num_split, name=None):
    return run_impl(array_ops.split, value, size_splits, axis, num_split)


@raw_op("Concat")
def _concat(concat_dim, values, name=None):
    return run_impl(array_ops.concat, values, concat_dim)


@raw_op("PadV2")
def _pad_v2(input, paddings, constant_values, name=None):  # noqa: A002 - TF's name
    return run_impl(array_ops.pad, input, paddings, "CONSTANT", constant_values)


@raw_op("MirrorPad")
def _mirror_pad(input, paddings, mode, name=None):  # noqa: A002 - TF's name
    return run_impl(array_ops.pad, input, paddings, mode)


@raw_op("Range")
def _range(start, limit, delta, name=None):
    return run_impl(array_ops.range, start, limit, delta)


@raw_op("OneHot")
def _one_hot(indices, depth, on_value, off_value, axis=-1, name=None):
    return run_impl(array_ops.one_hot, indices, depth, on_value, off_value, axis)


@raw_op("TopKV2")
def _top_k_v2(input, k, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002
    values, indices = run_impl(nn_ops.top_k, input, k, sorted)
    return values, indices.to(dtypes.as_dtype(index_type).torch_dtype)


@raw_op("TopK")
def _top_k(input, k, sorted=True, name=None):  # noqa: A002 - TF's names
    return run_impl(nn_ops.top_k, input, k, sorted)


@raw_op("Einsum")
def _einsum(inputs, equation, name=None):
    return run_impl(math_ops.einsum, equation, *inputs)


# ---------------------------------------------------------------- convolution, pooling, norms


def _padding(padding, explicit_paddings):
    """TF's `padding` attr: "EXPLICIT" takes (before, after) pairs from `explicit_paddings`
    (two ints per dimension, batch and channels included)."""
    if padding != "EXPLICIT":
        return padding
    flat = [int(v) for v in explicit_paddings]
    return [flat[i:i + 2] for i in range(0, len(flat), 2)]


@raw_op("Conv2D")
def _conv2d(input, filter, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
            explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    return run_impl(nn_ops.conv2d_v2, input, filter, strides,
                    _padding(padding, explicit_paddings), data_format, dilations)


@raw_op("Conv2DBackpropInput")
def _conv2d_backprop_input(input_sizes, filter, out_backprop, strides,  # noqa: A002
                           padding, use_cudnn_on_gpu=True, explicit_paddings=(),
                           data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The transposed convolution (what `tf.nn.conv2d_transpose` records)."""
    return run_impl(nn_ops.conv2d_transpose_v2, out_backprop, filter, input_sizes, strides,
                    _padding(padding, explicit_paddings), data_format, dilations)


@raw_op("DepthwiseConv2dNative")
def _depthwise_conv2d_native(input, filter, strides, padding,  # noqa: A002 - TF's names
                             explicit_paddings=(), data_format="NHWC",
                             dilations=(1, 1, 1, 1), name=None):
    return run_impl(nn_ops.depthwise_conv2d_native, input, filter, strides,
                    _padding(padding, explicit_paddings), data_format, dilations)


@raw_op("MaxPool")
def _max_pool(input, ksize, strides, padding, explicit_paddings=(),  # noqa: A002
              data_format="NHWC", name=None):
    return run_impl(nn_ops.max_pool_v2, input, ksize, strides,
                    _padding(padding, explicit_paddings), data_format)


@raw_op("AvgPool")
def _avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None):
    return run_impl(nn_ops.avg_pool, value, ksize, strides, padding, data_format)


def _fused_batch_norm(x, scale, offset, mean, variance, epsilon, exponential_avg_factor,
                      data_format, is_training, reserve_spaces):
    """TF's FusedBatchNorm kernels: (y, batch_mean, batch_variance) and the reserve
    spaces, which hold the mean and variance again (V3's third is empty). tfcompat's op
    raises epsilon to cuDNN's minimum 1.001e-5, as TF's Python wrapper does (the raw kernel
    takes a smaller one as given)."""
    y, batch_mean, batch_variance = run_impl(
        nn_ops.fused_batch_norm, x, scale, offset, mean, variance, epsilon, data_format,
        is_training, exponential_avg_factor=exponential_avg_factor)
    spaces = [batch_mean, batch_variance, torch.empty(0, dtype=batch_mean.dtype,
                                                      device=batch_mean.device)]
    return (y, batch_mean, batch_variance) + tuple(spaces[:reserve_spaces])


def _fused_batch_norm_body(reserve_spaces):
    def body(x, scale, offset, mean, variance, epsilon=0.0001, exponential_avg_factor=1.0,
             data_format="NHWC", is_training=True, name=None):
        return _fused_batch_norm(x, scale, offset, mean, variance, epsilon,
                                 exponential_avg_factor, data_format, is_training,
                                 reserve_spaces)
    return body


raw_op("FusedBatchNorm")(_fused_batch_norm_body(2))
raw_op("FusedBatchNormV2")(_fused_batch_norm_body(2))
raw_op("FusedBatchNormV3")(_fused_batch_norm_body(3))


def _resize_body(target):
    def body(images, size, align_corners=False, half_pixel_centers=False, name=None):
        return run_impl(target, images, size, align_corners,
                        half_pixel_centers=half_pixel_centers)
    return body


raw_op("ResizeBilinear")(_resize_body(image_ops.resize_bilinear))
raw_op("ResizeNearestNeighbor")(_resize_body(image_ops.resize_nearest_neighbor))
raw_op("ResizeBicubic")(_resize_body(image_ops.resize_bicubic))


# ---------------------------------------------------------------- gradient kernels and random


@raw_op("ReluGrad")
def _relu_grad(gradients, features, name=None):
    """TF's `gradients * (features > 0)` (a NaN gradient stays NaN)."""
    gradients = to_torch(gradients)
    return gradients * (to_torch(features) > 0).to(gradients.dtype)


@raw_op("BiasAddGrad")
def _bias_add_grad(out_backprop, data_format="NHWC", name=None):
    """The sum over every dimension but the channels (the last, or the second for NCHW)."""
    rank = to_torch(out_backprop).ndim
    channels = 1 if data_format.startswith("NC") and rank > 2 else rank - 1
    return run_impl(math_ops.reduce_sum, out_backprop,
                    [axis for axis in range(rank) if axis != channels])


@raw_op("SoftmaxCrossEntropyWithLogits")
def _softmax_cross_entropy_with_logits(features, labels, name=None):
    """(loss, backprop): the cross entropy of each row and its gradient in the logits,
    softmax(features) - labels."""
    loss = run_impl(nn_ops.softmax_cross_entropy_with_logits_tf2, labels, features)
    return loss, run_impl(nn_ops.softmax, features) - to_torch(labels)


@raw_op("RandomUniform")
def _random_uniform(shape, dtype, seed=0, seed2=0, name=None):
    """Seeded (`seed`, `seed2` not both 0) it is deterministic, but not TF's stream."""
    return run_impl(random_ops.random_uniform, shape, dtype=dtypes.as_dtype(dtype),
                    seed=seed2 if seed or seed2 else None)


@raw_op("TanhGrad")
def _tanh_grad(y, dy, name=None):
    """TF's `dy * (1 - y * y)`, from tanh's output `y`."""
    y = to_torch(y)
    return to_torch(dy) * (1 - y * y)


@raw_op("SigmoidGrad")
def _sigmoid_grad(y, dy, name=None):
    """TF's `dy * y * (1 - y)`, from sigmoid's output `y`."""
    y = to_torch(y)
    return to_torch(dy) * y * (1 - y)


@raw_op("DynamicStitch", records_itself=True)
def _dynamic_stitch(indices, data, name=None):
    """`merged[indices[m][i]] = data[m][i]` (a later index wins); its first dim the
    largest index + 1. In a graph the indices must be constants (what TF's gradients of
    reductions over known ranks give), so that the result's size is known while
    building; tfcompat refuses others (ops reading a result of unknown size while
    building would fail)."""
    count = len(indices)

    def stitch(*values):
        positions = [i.reshape(-1).long() for i in values[:count]]
        rows = [d.reshape((p.numel(),) + tuple(d.shape[i.dim():]))
                for p, i, d in zip(positions, values[:count], values[count:])]
        size = max([int(p.max()) + 1 for p in positions if p.numel()] or [0])
        merged = rows[0].new_zeros((size,) + tuple(rows[0].shape[1:]))
        for p, r in zip(positions, rows):
            merged[p] = r
        return (merged,)
    if any(isinstance(i, SymbolicTensor) for i in indices):
        raise NotImplementedError("tf.raw_ops.DynamicStitch of indices known only when the "
                                  "graph runs is not supported by tfcompat")
    size = max([int(k.max()) + 1 for k in map(to_torch, indices) if k.numel()] or [0])
    indices = [convert_to_tensor(i, dtypes.int32) for i in indices]
    data = [convert_to_tensor(d) for d in data]
    shape = TensorShape([size]).concatenate(data[0].shape[indices[0].shape.rank:])
    return run_op(stitch, "DynamicStitch", indices + data, [(data[0].dtype, shape)],
                  name=name)[0]


@raw_op("ConcatOffset")
def _concat_offset(concat_dim, shape, name=None):
    """Where each input of a concat along `concat_dim` starts in its result."""
    shapes = torch.stack([to_torch(s) for s in shape])
    dim = int(concat_dim) % shapes.shape[1]
    along = torch.zeros_like(shapes)
    along[:, dim] = shapes[:, dim]
    return list(torch.cumsum(along, 0) - along)


@raw_op("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_cross_entropy_with_logits(features, labels, name=None):
    """(loss, backprop): the cross entropy of each row against its class id and its
    gradient in the logits, softmax(features) - one_hot(labels)."""
    loss = run_impl(nn_ops.sparse_softmax_cross_entropy_with_logits_v2, labels, features)
    probabilities = run_impl(nn_ops.softmax, features)
    one_hot = torch.nn.functional.one_hot(to_torch(labels).long(), probabilities.shape[-1])
    return loss, probabilities - one_hot.to(probabilities.dtype)


def _input_gradient(forward, value, output_gradient):
    """TF's gradient kernel of a forward op: the gradient of `forward(value)` (tfcompat's
    op, run by `run_impl`) in `value` given its output's gradient, by torch autograd. An op
    linear in `value` (a convolution in its filter, average pooling) takes zeros of the
    right shape."""
    with torch.enable_grad():
        leaf = value.detach().requires_grad_(True)
        return torch.autograd.grad(forward(leaf), leaf, to_torch(output_gradient))[0]


def _zeros(shape, like):
    like = to_torch(like)
    return run_impl(array_ops.zeros, shape, dtypes.from_torch(like.dtype)).to(like.device)


@raw_op("Conv2DBackpropFilter")
def _conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                            use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
                            dilations=(1, 1, 1, 1), name=None):
    """The gradient of Conv2D in its filter (of shape `filter_sizes`)."""
    padding = _padding(padding, explicit_paddings)
    return _input_gradient(
        lambda filters: run_impl(nn_ops.conv2d_v2, input, filters, strides, padding,
                                 data_format, dilations),
        _zeros(filter_sizes, out_backprop), out_backprop)


@raw_op("MaxPoolGrad")
def _max_pool_grad(orig_input, orig_output, grad, ksize, strides, padding,
                   explicit_paddings=(), data_format="NHWC", name=None):
    """The gradient of MaxPool in its input (each window's maximum takes it)."""
    padding = _padding(padding, explicit_paddings)
    return _input_gradient(
        lambda value: run_impl(nn_ops.max_pool_v2, value, ksize, strides, padding,
                               data_format),
        to_torch(orig_input), grad)


@raw_op("AvgPoolGrad")
def _avg_pool_grad(orig_input_shape, grad, ksize, strides, padding, data_format="NHWC",
                   name=None):
    """The gradient of AvgPool in its input (of shape `orig_input_shape`)."""
    return _input_gradient(
        lambda value: run_impl(nn_ops.avg_pool, value, ksize, strides, padding, data_format),
        _zeros(orig_input_shape, grad), grad)
