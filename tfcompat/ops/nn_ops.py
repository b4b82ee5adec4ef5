"""`tf.nn`: activations, losses, convolution, pooling, normalization, dropout, embeddings.

Layouts follow TF: NHWC (channels last) by default, NCHW through `data_format`; filters are
HWIO. Channels-last inputs reach torch as `x.permute(0, 3, 1, 2)`, a view in torch's
`channels_last` memory format, so no copy is made; results are permuted back the same way.
"SAME" padding is TF's: the odd pixel goes to the bottom/right.
"""
import collections
import math

import torch
import torch.nn.functional as F

from tfcompat._api import tf_export
from tfcompat.framework import distribution_strategy_context as distribution, dtypes, errors, \
    matmul_kernel, random_seed
from tfcompat.framework.constant_op import known_values
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import (binary_operands, is_tensor_value, op, same_dtype_lowering,
                                    same_dtype_tensors, to_torch)
from tfcompat.ops.array_ops import constant_pad
from tfcompat.ops.math_ops import _FLOAT_DTYPES, _sorted_num_segments
from tfcompat.ops.sparse_ops import SparseTensor

_FLOATS = "half, bfloat16, float32, float64"


# ---------------------------------------------------------------- helpers


def _float(value, param="features", op_name=errors.RUNNING_OP):
    """Convert to a torch tensor and require a floating dtype, as TF's float-only kernels do
    (errors name `op_name`, by default the op being run)."""
    t = to_torch(value)
    if not t.is_floating_point():
        raise TypeError("Value passed to parameter '%s' of %s has DataType %s not in list of "
                        "allowed values: %s" % (param, op_name,
                                                dtypes.from_torch(t.dtype).name, _FLOATS))
    return t


def _upcast(t):
    """TF computes float16/bfloat16 losses and moments in float32."""
    return t.float() if t.dtype in (torch.float16, torch.bfloat16) else t


def _int_list(value):
    """A shape-like argument (list, tuple, tensor) as Python ints; tensors are read (.tolist),
    a graph's shape tensor by the values it carries (an unknown dim stays symbolic)."""
    if isinstance(value, torch.Tensor) or is_tensor_value(value):
        t = to_torch(value)
        known = known_values(t)
        if known is not None:
            return [v if isinstance(v, torch.SymInt) else int(v) for v in known]
        return [int(v) for v in t.reshape(-1).tolist()]
    if isinstance(value, int):
        return [value]
    return [int(to_torch(v).item()) if is_tensor_value(v) else int(v) for v in value]


def _is_concrete(t):
    """False for fake tensors (graph-mode shape inference) and while torch.compile traces."""
    if type(t) is not torch.Tensor:
        from torch._subclasses.fake_tensor import FakeTensor
        if isinstance(t, FakeTensor):
            return False
    return not torch.compiler.is_compiling()


def _resolve_axis(primary, legacy, default, names=("axis", "dim")):
    if primary is not None and legacy is not None:
        raise ValueError("Cannot specify both '%s' and '%s'" % names)
    value = primary if primary is not None else legacy
    return default if value is None else value


def _no_sentinel(sentinel, op_name):
    if sentinel is not None:
        raise ValueError("Only call `%s` with named arguments (labels=..., logits=..., ...)"
                         % op_name)


# ---------------------------------------------------------------- activations


@op("nn.relu", lowering=same_dtype_lowering(torch.relu, _FLOAT_DTYPES))
def relu(features, name=None):
    return torch.relu(to_torch(features))


@op("nn.relu6")
def relu6(features, name=None):
    return torch.clamp(to_torch(features), 0, 6)


@op("nn.elu")
def elu(features, name=None):
    return F.elu(_float(features))


@op("nn.selu")
def selu(features, name=None):
    return F.selu(_float(features))


@op(v2=["nn.gelu"])
def gelu(features, approximate=False, name=None):
    return F.gelu(_float(features), approximate="tanh" if approximate else "none")


@op("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None):
    x = to_torch(features)
    if not x.is_floating_point():
        x = x.float()  # TF casts integer features to float32
    alpha = to_torch(alpha, dtypes.from_torch(x.dtype)) if is_tensor_value(alpha) else alpha
    if isinstance(alpha, torch.Tensor):
        return torch.where(x > 0, x, x * alpha)
    return F.leaky_relu(x, float(alpha))


@op("nn.crelu")
def crelu(features, name=None, axis=-1):
    x = to_torch(features)
    return torch.relu(torch.cat([x, -x], dim=axis))


@op("nn.softplus", "math.softplus")
def softplus(features, name=None):
    return F.softplus(_float(features))


@op("nn.softsign", "math.softsign")
def softsign(features, name=None):
    return F.softsign(_float(features))


@op("nn.swish", "nn.silu")
def swish(features, beta=1.0, name=None):
    x = _float(features)
    if not is_tensor_value(beta) and beta == 1.0:
        return F.silu(x)
    return x * torch.sigmoid(x * to_torch(beta, dtypes.from_torch(x.dtype)))


@op("nn.softmax", "math.softmax")
def softmax(logits, axis=None, name=None, dim=None):
    """Softmax along `axis` (v1 also `dim`), the last axis by default."""
    return F.softmax(_float(logits, "logits"), dim=_resolve_axis(axis, dim, -1))


@op("nn.log_softmax", "math.log_softmax")
def log_softmax(logits, axis=None, name=None, dim=None):
    return F.log_softmax(_float(logits, "logits"),
                         dim=_resolve_axis(axis, dim, -1))


@op("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """Adds a 1-D bias to the channel axis (last, or 1 for NC* formats)."""
    x, b = binary_operands(value, bias)
    if b.ndim != 1:
        raise ValueError("Shape must be rank 1 but is rank %d for bias of {op}" % b.ndim)
    channels_first = data_format is not None and data_format.startswith("NC")
    if x.ndim < 2:
        raise ValueError("Shape must be at least rank 2 but is rank %d for value of {op}"
                         % x.ndim)
    axis = 1 if channels_first else x.ndim - 1
    if x.shape[axis] != b.shape[0]:
        raise errors.InvalidArgumentError(
            "Must provide as many biases as the channel dimension of the input tensor: "
            "bias shape %s vs. value shape %s" % (format_shape(b.shape), format_shape(x.shape)))
    if channels_first:
        b = b.reshape((-1,) + (1,) * (x.ndim - 2))
    return x + b


@op(v1=["nn.xw_plus_b"])
def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases for a 2-D x."""
    x, w = binary_operands(x, weights, op_name="MatMul")
    return matmul_kernel.addmm(to_torch(biases, dtypes.from_torch(x.dtype)), x, w)


@op(v1=["nn.relu_layer"])
def relu_layer(x, weights, biases, name=None):
    return torch.relu(xw_plus_b._tfcompat_impl(x, weights, biases))


@op("nn.l2_loss")
def l2_loss(t, name=None):
    """sum(t ** 2) / 2."""
    x = _float(t, "t")
    return torch.sum(x * x) / 2


def _replica_count(api):
    """The current strategy's replicas in sync, for a loss helper TF calls per replica."""
    if distribution.has_strategy() and distribution.in_cross_replica_context():
        raise RuntimeError("You are calling `%s` in cross replica context, while it was "
                           "expected to be called in replica context." % api)
    return distribution.num_replicas_in_sync()


@op("nn.compute_average_loss", graph_name="ComputeAverageLoss")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size, the loss a replica
    contributes so that the replicas' summed gradients are the global batch's mean; without
    `global_batch_size`: this replica's batch size times the replicas in sync."""
    loss = to_torch(per_example_loss)
    if loss.ndim == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with "
                         "at least rank 1. Received: %s" % (per_example_loss,))
    if sample_weight is not None:
        loss = (loss * to_torch(sample_weight, dtypes.from_torch(loss.dtype))).to(loss.dtype)
    if global_batch_size is None:   # a size a graph may know only symbolically
        return torch.sum(loss) / (loss.shape[0] * _replica_count("compute_average_loss"))
    size = to_torch(global_batch_size)
    if size.ndim != 0:
        raise errors.InvalidArgumentError("global_batch_size must be scalar.")
    if size.is_floating_point() or size.dtype == torch.bool:
        raise errors.InvalidArgumentError("global_batch_size must be an integer.")
    if isinstance(global_batch_size, int) and global_batch_size <= 0:
        raise errors.InvalidArgumentError("global_batch_size must be positive.")
    return torch.sum(loss) / size.to(loss.dtype)


@op("nn.scale_regularization_loss", graph_name="ScaleRegularizationLoss")
def scale_regularization_loss(regularization_loss):
    """sum(regularization_loss) / replicas in sync: each replica adds its share, so the
    summed gradients count the regularization once."""
    loss = to_torch(regularization_loss)
    return torch.sum(loss) / _replica_count("scale_regularization_loss")


@op("nn.l2_normalize", "math.l2_normalize", "linalg.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x**2, axis), epsilon)); `axis=None` normalizes over every element."""
    t = _float(x, "x")
    axis = _resolve_axis(axis, dim, None)
    if axis is None:
        square_sum = torch.sum(t * t)
    else:
        square_sum = torch.sum(t * t, dim=_axes(axis, t.ndim), keepdim=True)
    return t * torch.rsqrt(torch.clamp(square_sum, min=epsilon))


def _axes(axes, ndim):
    if isinstance(axes, torch.Tensor) or is_tensor_value(axes):
        axes = _int_list(axes)
    axes = [axes] if isinstance(axes, int) else list(axes)
    return tuple(a % ndim if ndim else a for a in axes)


def _moments(x, axes, keepdims):
    t = _float(x, "x", op_name="Moments")
    var, mean = torch.var_mean(_upcast(t), dim=_axes(axes, t.ndim), correction=0,
                               keepdim=bool(keepdims))
    return mean.to(t.dtype), var.to(t.dtype)


@op(v1=["nn.moments"])
def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) over `axes`; `shift` is accepted and unused, as in TF 1.x."""
    return _moments(x, axes, _resolve_axis(keepdims, keep_dims, False,
                                           ("keepdims", "keep_dims")))


@op(v2=["nn.moments"])
def moments_v2(x, axes, shift=None, keepdims=False, name=None):
    return _moments(x, axes, keepdims)


@op("nn.normalize_moments")
def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """Mean and variance from sufficient statistics (counts, sum, sum of squares, shift)."""
    mean_ss, variance_ss = binary_operands(mean_ss, variance_ss)
    divisor = 1.0 / to_torch(counts, dtypes.from_torch(mean_ss.dtype)) \
        if is_tensor_value(counts) or isinstance(counts, torch.Tensor) else 1.0 / counts
    shifted_mean = mean_ss * divisor
    mean = shifted_mean if shift is None else shifted_mean + to_torch(shift)
    variance = variance_ss * divisor - shifted_mean * shifted_mean
    return mean, variance


@op("nn.batch_normalization")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + eps) + offset (offset/scale may be None)."""
    given = [v for v in (x, mean, variance, offset, scale) if v is not None]
    tensors = iter(same_dtype_tensors(given))
    t, mean, variance = next(tensors), next(tensors), next(tensors)
    offset = next(tensors) if offset is not None else None
    scale = next(tensors) if scale is not None else None
    inv = torch.rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    shift = -mean * inv if offset is None else offset - mean * inv
    return t * inv + shift


@op(v1=["nn.fused_batch_norm"])
def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None,
                     exponential_avg_factor=1.0):
    """TF's FusedBatchNorm: returns (y, batch_mean, batch_variance).

    Training normalizes with the batch's biased variance and returns the unbiased one (as
    TF does, for moving averages); with `exponential_avg_factor` < 1 the returned statistics
    are (1 - f) * given + f * batch. Inference uses and returns the given mean/variance.
    """
    t = _float(x, "x")
    if t.ndim not in (4, 5):
        raise ValueError("x must be 4-D or 5-D for fused_batch_norm, got shape %s"
                         % format_shape(t.shape))
    if data_format not in ("NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError("data_format must be NHWC, NCHW, NDHWC or NCDHW, got %r"
                         % (data_format,))
    channels_last = data_format.endswith("C")
    xc = t.permute(0, t.ndim - 1, *range(1, t.ndim - 1)) if channels_last else t
    scale, offset = to_torch(scale), to_torch(offset)
    epsilon = max(epsilon, 1.001e-5)  # TF's minimum for the cuDNN kernel
    if is_training:
        channels = xc.shape[1]
        factor = exponential_avg_factor
        if factor == 1.0 or mean is None:
            run_mean = torch.zeros(channels, dtype=scale.dtype, device=t.device)
            run_var = torch.zeros(channels, dtype=scale.dtype, device=t.device)
            factor = 1.0
        else:
            run_mean = to_torch(mean).detach().clone()
            run_var = to_torch(variance).detach().clone()
        # With momentum f, torch's running stats become (1 - f) * old + f * batch, with the
        # unbiased batch variance: TF's batch_mean/batch_variance outputs exactly.
        y = F.batch_norm(xc, run_mean, run_var, scale, offset, True, factor, epsilon)
        out_mean, out_var = run_mean, run_var
    else:
        if mean is None or variance is None:
            raise ValueError("Both 'mean' and 'variance' must be a 1-D tensor when "
                             "is_training is False.")
        out_mean, out_var = to_torch(mean), to_torch(variance)
        y = F.batch_norm(xc, out_mean, out_var, scale, offset, False, 0.0, epsilon)
    if channels_last:
        y = y.permute(0, *range(2, t.ndim), 1)
    return y, out_mean, out_var


@op("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5,
                                 name=None):
    """input / (bias + alpha * sum(input**2 over depth +- radius)) ** beta, on NHWC.

    Unlike torch's `local_response_norm`, alpha is not divided by the window size.
    """
    t = _float(input, "input", op_name="LRN")
    if t.ndim != 4:
        raise ValueError("Shape must be rank 4 but is rank %d for input of LRN" % t.ndim)
    r = int(depth_radius)
    squares = _pad(t * t, [(r, r)]).unfold(-1, 2 * r + 1, 1).sum(-1)
    return t / torch.pow(bias + alpha * squares, beta)


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


@op("nn.top_k", "math.top_k")
def top_k(input, k=1, sorted=True, name=None):
    """The k largest entries of the last axis and their int32 indices; ties keep the lower
    index first, as in TF. A tensor `k` is read with `.item()` (the output shape needs it)."""
    t = to_torch(input)
    k = int(to_torch(k).item()) if is_tensor_value(k) or isinstance(k, torch.Tensor) else int(k)
    if t.ndim < 1:
        raise ValueError("input must have at least 1 dimension for top_k")
    if k < 0:
        raise errors.InvalidArgumentError("Need k >= 0, got %d" % k)
    if t.shape[-1] < k:
        raise errors.InvalidArgumentError("input must have at least k columns. Had %d, "
                                          "needed %d" % (t.shape[-1], k))
    values, indices = torch.sort(t, dim=-1, descending=True, stable=True)
    return TopKV2(values[..., :k], indices[..., :k].to(torch.int32))


def _approx_top_k(operand, k, reduction_dimension, largest):
    t = to_torch(operand)
    axis = reduction_dimension % t.ndim if t.ndim else 0
    if not 0 <= int(k) <= t.shape[axis]:
        raise errors.InvalidArgumentError("k must be in [0, %d], got %d" % (t.shape[axis], k))
    values, indices = torch.sort(t, dim=axis, descending=largest, stable=True)
    return (values.narrow(axis, 0, int(k)), indices.narrow(axis, 0, int(k)).to(torch.int32))


@op("math.approx_max_k", "nn.approx_max_k", graph_name="ApproxTopK")
def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """`tf.math.approx_max_k`: (values, int32 indices) of the k largest along
    `reduction_dimension`, exactly (as TF's CPU kernel); ties keep the lower index first."""
    return _approx_top_k(operand, k, reduction_dimension, True)


@op("math.approx_min_k", "nn.approx_min_k", graph_name="ApproxTopK")
def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """`tf.math.approx_min_k`: the k smallest, exactly (TF runs it only under XLA)."""
    return _approx_top_k(operand, k, reduction_dimension, False)


def _in_top_k(predictions, targets, k):
    p = _float(predictions, "predictions", op_name="InTopK")
    t = to_torch(targets)
    if p.ndim != 2 or t.ndim != 1:
        raise ValueError("in_top_k needs predictions of rank 2 and targets of rank 1, got "
                         "shapes %s and %s" % (format_shape(p.shape), format_shape(t.shape)))
    classes = p.shape[1]
    valid = (t >= 0) & (t < classes)
    target = p.gather(1, torch.where(valid, t, 0).long().unsqueeze(1))
    above = (p > target).sum(dim=1)
    k = to_torch(k) if is_tensor_value(k) else k
    return valid & torch.isfinite(target[:, 0]) & (above < k)


@op(v1=["nn.in_top_k", "math.in_top_k"])
def in_top_k(predictions, targets, k, name=None):
    """Whether each target class is among the top k predictions (ties count in its favour)."""
    return _in_top_k(predictions, targets, k)


@op(v2=["nn.in_top_k", "math.in_top_k"])
def in_top_k_v2(targets, predictions, k, name=None):
    return _in_top_k(predictions, targets, k)


@op("nn.zero_fraction", "math.zero_fraction")
def zero_fraction(value, name=None):
    """Fraction of zeros in `value`, as float32."""
    return (to_torch(value) == 0).float().mean()


# ---------------------------------------------------------------- losses


def _softmax_xent(labels, logits, axis):
    """TF's softmax_cross_entropy_with_logits_v2_helper: `axis` is moved last in both
    inputs, both are flattened to [-1, classes] matrices (so labels [1, N, C] fit logits
    [N, C]), the kernel broadcasts the two matrices (BCast: labels [1, C] serve every row),
    and the loss takes the logits' shape without `axis`. Where TF's gradient for broadcast
    labels has the broadcast shape, ours is summed to the labels' shape."""
    x = _float(logits, "logits", op_name="SoftmaxCrossEntropyWithLogits")
    y = to_torch(labels)
    precise = _upcast(x)
    y = y.to(precise.dtype)  # TF casts labels to the logits' dtype
    if x.ndim == 0 or y.ndim == 0:
        raise errors.InvalidArgumentError(
            "logits and labels must be either 2-dimensional, or broadcasted to be "
            "2-dimensional: logits_size=%s labels_size=%s" % (format_shape(x.shape),
                                                              format_shape(y.shape)))
    if axis not in (-1, x.ndim - 1):
        precise, y = precise.movedim(axis, -1), y.movedim(axis, -1)
    loss_shape = precise.shape[:-1]
    precise = precise.reshape(-1, precise.shape[-1])
    y = y.reshape(-1, y.shape[-1])
    try:
        rows = torch.broadcast_shapes(y.shape, precise.shape)[0]
    except RuntimeError:
        raise errors.InvalidArgumentError(
            "logits and labels must be broadcastable: logits_size=%s labels_size=%s"
            % (format_shape(precise.shape), format_shape(y.shape))) from None
    if rows != precise.shape[0]:
        raise errors.InvalidArgumentError(
            "Input to reshape is a tensor with %d values, but the requested shape has %d"
            % (rows, precise.shape[0]))
    loss = -torch.sum(y * F.log_softmax(precise, dim=-1), dim=-1)
    return loss.reshape(loss_shape).to(x.dtype)


@op(v1=["nn.softmax_cross_entropy_with_logits"])
def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None):
    """TF 1.x version: no gradient flows into `labels`."""
    _no_sentinel(_sentinel, "softmax_cross_entropy_with_logits")
    return _softmax_xent(to_torch(labels).detach(), logits, _resolve_axis(axis, dim, -1))


@op(v1=["nn.softmax_cross_entropy_with_logits_v2"])
def softmax_cross_entropy_with_logits_v2(_sentinel=None, labels=None, logits=None, axis=None,
                                         name=None, dim=None):
    """Gradients flow into both labels and logits."""
    _no_sentinel(_sentinel, "softmax_cross_entropy_with_logits_v2")
    return _softmax_xent(labels, logits, _resolve_axis(axis, dim, -1))


@op(v2=["nn.softmax_cross_entropy_with_logits"])
def softmax_cross_entropy_with_logits_tf2(labels, logits, axis=-1, name=None):
    return _softmax_xent(labels, logits, axis)


def _sparse_softmax_xent(labels, logits):
    x = _float(logits, "logits", op_name="SparseSoftmaxCrossEntropyWithLogits")
    y = to_torch(labels)
    label_dtype = y.dtype
    if label_dtype is not torch.int32 and label_dtype is not torch.int64:
        raise TypeError("Value passed to parameter 'labels' has DataType %s not in list of "
                        "allowed values: int32, int64" % dtypes.from_torch(y.dtype).name)
    x_shape, y_shape = x.shape, y.shape
    rank = len(y_shape)
    if rank != len(x_shape) - 1:
        raise ValueError("Rank mismatch: Rank of labels (received %d) should equal rank of "
                         "logits minus 1 (received %d)." % (y.ndim, x.ndim))
    if y_shape != x_shape[:-1]:
        raise ValueError("Shape mismatch: The shape of labels (received %s) should equal the "
                         "shape of logits except for the last dimension (received %s)."
                         % (tuple(y.shape), tuple(x.shape)))
    classes = x_shape[-1]
    precise = _upcast(x)
    if rank != 1:
        precise = precise.reshape(-1, classes)
    target = (y if rank == 1 else y.reshape(-1)).long()
    if y.is_cpu and _is_concrete(y):
        # torch's CPU kernel checks the range (like TF's CPU kernel); nothing is ignored.
        try:
            loss = F.cross_entropy(precise, target, reduction="none", ignore_index=_NO_LABEL)
        except IndexError:
            raise _label_range_error(y, classes) from None
    else:
        # On a GPU (no host sync) or while tracing, bad labels give NaN, as TF's GPU kernel.
        valid = (target >= 0) & (target < classes)
        loss = F.cross_entropy(precise, torch.where(valid, target, 0), reduction="none")
        loss = torch.where(valid, loss, float("nan"))
    if rank != 1:
        loss = loss.reshape(y_shape)
    return loss if loss.dtype is x.dtype else loss.to(x.dtype)


_NO_LABEL = -2 ** 63  # an ignore_index no label can take: every label is checked


def _label_range_error(y, classes):
    labels = y.reshape(-1).tolist()
    bad = next(v for v in labels if not 0 <= v < classes)
    return errors.InvalidArgumentError(
        "Received a label value of %d which is outside the valid range of [0, %d).  "
        "Label values: %s" % (bad, classes, " ".join(str(v) for v in labels)))


@op(v1=["nn.sparse_softmax_cross_entropy_with_logits"])
def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None):
    """Cross entropy of int labels [d0..dn-1] against logits [d0..dn-1, classes]."""
    _no_sentinel(_sentinel, "sparse_softmax_cross_entropy_with_logits")
    return _sparse_softmax_xent(labels, logits)


@op(v2=["nn.sparse_softmax_cross_entropy_with_logits"])
def sparse_softmax_cross_entropy_with_logits_v2(labels, logits, name=None):
    return _sparse_softmax_xent(labels, logits)


def _sigmoid_xent(labels, logits):
    x, z = binary_operands(logits, labels, op_name="SigmoidCrossEntropyWithLogits")
    if tuple(x.shape) != tuple(z.shape):
        raise ValueError("logits and labels must have the same shape (%s vs %s)"
                         % (tuple(x.shape), tuple(z.shape)))
    # TF's stable form: max(x, 0) - x * z + log(1 + exp(-|x|)), written with TF's selects so
    # that the gradient at x == 0 is TF's sigmoid(0) - z (torch's relu and abs give 0 there)
    positive = x >= 0
    return torch.where(positive, x, torch.zeros_like(x)) - x * z + \
        torch.log1p(torch.exp(torch.where(positive, -x, x)))


@op(v1=["nn.sigmoid_cross_entropy_with_logits"])
def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    _no_sentinel(_sentinel, "sigmoid_cross_entropy_with_logits")
    return _sigmoid_xent(labels, logits)


@op(v2=["nn.sigmoid_cross_entropy_with_logits"])
def sigmoid_cross_entropy_with_logits_v2(labels=None, logits=None, name=None):
    return _sigmoid_xent(labels, logits)


def _weighted_xent(labels, logits, pos_weight):
    x, z = binary_operands(logits, labels, op_name="WeightedCrossEntropyWithLogits")
    if tuple(x.shape) != tuple(z.shape):
        raise ValueError("logits and labels must have the same shape (%s vs %s)"
                         % (tuple(x.shape), tuple(z.shape)))
    _, q = binary_operands(x, pos_weight, op_name="WeightedCrossEntropyWithLogits")
    log_weight = 1 + (q - 1) * z
    return (1 - z) * x + log_weight * (torch.log1p(torch.exp(-torch.abs(x))) + torch.relu(-x))


@op(v1=["nn.weighted_cross_entropy_with_logits"])
def weighted_cross_entropy_with_logits(targets, logits, pos_weight, name=None):
    """Sigmoid cross entropy with the positive term weighted by `pos_weight`."""
    return _weighted_xent(targets, logits, pos_weight)


@op(v2=["nn.weighted_cross_entropy_with_logits"])
def weighted_cross_entropy_with_logits_v2(labels, logits, pos_weight, name=None):
    return _weighted_xent(labels, logits, pos_weight)


@op("nn.log_poisson_loss")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - targets * log_input, plus Stirling's term for targets > 1 if full."""
    c, z = binary_operands(log_input, targets)
    if tuple(c.shape) != tuple(z.shape):
        raise ValueError("log_input and targets must have the same shape (%s vs %s)"
                         % (tuple(c.shape), tuple(z.shape)))
    result = torch.exp(c) - c * z
    if compute_full_loss:
        stirling = z * torch.log(z) - z + 0.5 * torch.log(2 * math.pi * z)
        result = result + torch.where((z >= 0) & (z <= 1), torch.zeros_like(z), stirling)
    return result


# ---------------------------------------------------------------- candidate sampling


def _log_uniform_sample(num_sampled, range_max, unique, seed, device):
    """TF's LogUniformSampler: P(c) = log((c + 2) / (c + 1)) / log(range_max + 1).

    Returns (sampled int64 [num_sampled], number of draws made). Unique sampling draws with
    replacement until `num_sampled` distinct classes appeared (host-side loop).
    """
    gen = random_seed.generator(seed, device)
    log_range = math.log(range_max + 1)

    def draw(n):
        u = torch.rand(n, generator=gen, device=device, dtype=torch.float64)
        return (torch.exp(u * log_range).long() - 1).clamp_(0, range_max - 1)

    if not unique:
        return draw(num_sampled), num_sampled
    if torch._guards.detect_fake_mode() is not None:
        # A graph being built runs ops on fake tensors for shapes only: nothing to sample.
        return torch.zeros(num_sampled, dtype=torch.int64, device=device), num_sampled
    if num_sampled > range_max:
        raise errors.InvalidArgumentError("Sampler's range is too small: num_sampled=%d > "
                                          "range_max=%d" % (num_sampled, range_max))
    found, order, tries = set(), [], 0
    while len(order) < num_sampled:
        for value in draw(max(2 * num_sampled, 64)).tolist():
            tries += 1
            if value not in found:
                found.add(value)
                order.append(value)
                if len(order) == num_sampled:
                    break
    return torch.tensor(order, dtype=torch.int64, device=device), tries


def _log_uniform_expected(classes, tries, range_max, unique):
    p = (torch.log((classes.double() + 2) / (classes.double() + 1)) / math.log(range_max + 1))
    if unique:
        return -torch.expm1(tries * torch.log1p(-p))
    return p * tries


@op("random.log_uniform_candidate_sampler", v1=["nn.log_uniform_candidate_sampler"])
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """(sampled_candidates int64, true_expected_count, sampled_expected_count) as float32.

    The sampling loop reads values on the host, so this op needs concrete tensors.
    """
    true = to_torch(true_classes)
    sampled, tries = _log_uniform_sample(int(num_sampled), int(range_max), unique, seed,
                                         true.device)
    return (sampled,
            _log_uniform_expected(true, tries, int(range_max), unique).float(),
            _log_uniform_expected(sampled, tries, int(range_max), unique).float())


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                    sampled_values, subtract_log_q, remove_accidental_hits,
                    partition_strategy, seed):
    x = _float(inputs, "inputs", op_name="SampledLogits")
    labels = to_torch(labels).long()
    if labels.ndim == 1:
        labels = labels.unsqueeze(1)
    labels = labels.reshape(-1, num_true)
    if sampled_values is None:
        sampled, tries = _log_uniform_sample(num_sampled, num_classes, True, seed, x.device)
        true_expected = _log_uniform_expected(labels, tries, num_classes, True)
        sampled_expected = _log_uniform_expected(sampled, tries, num_classes, True)
    else:
        sampled, true_expected, sampled_expected = (to_torch(v) for v in sampled_values)
        sampled = sampled.long()
    all_ids = torch.cat([labels.reshape(-1), sampled])
    all_w = _lookup(weights, all_ids, partition_strategy)
    all_b = _lookup(biases, all_ids, partition_strategy)
    batch = labels.shape[0]
    true_w = all_w[:batch * num_true].reshape(batch, num_true, -1)
    true_b = all_b[:batch * num_true].reshape(batch, num_true)
    sampled_w, sampled_b = all_w[batch * num_true:], all_b[batch * num_true:]
    true_logits = torch.einsum("bd,btd->bt", x, true_w) + true_b
    sampled_logits = x @ sampled_w.t() + sampled_b
    if remove_accidental_hits:
        hits = labels.unsqueeze(2) == sampled.reshape(1, 1, -1)
        sampled_logits = sampled_logits.masked_fill(hits.any(1), -3.4028234663852886e38
                                                    if x.dtype != torch.float64 else -1.7e308)
    if subtract_log_q:
        true_logits = true_logits - torch.log(true_expected.to(x.dtype))
        sampled_logits = sampled_logits - torch.log(sampled_expected.to(x.dtype))
    logits = torch.cat([true_logits, sampled_logits], dim=1)
    targets = torch.cat([torch.full_like(true_logits, 1.0 / num_true),
                         torch.zeros_like(sampled_logits)], dim=1)
    return logits, targets


def _partition_list(params):
    """A PartitionedVariable as the list of its parts: TF's embedding and sampled-loss ops
    take it so, each part one shard for the "mod"/"div" strategies (converted before the op,
    which would otherwise see the concatenated value). Recognised by TF's own accessor
    `_get_variable_list`, so ops need not import the variables layer above them."""
    parts = getattr(params, "_get_variable_list", None)
    return list(parts()) if parts is not None else params


@op(graph_name="NceLoss")
def _nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
              sampled_values, remove_accidental_hits, partition_strategy, name=None):
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled,
                                      num_classes, num_true, sampled_values, True,
                                      remove_accidental_hits, partition_strategy, None)
    xent = torch.relu(logits) - logits * targets + \
        torch.log1p(torch.exp(-torch.abs(logits)))
    return xent.sum(dim=1)


@tf_export(v1=["nn.nce_loss"])
def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss"):
    """Noise-contrastive estimation loss per example ([batch]), log-uniform sampler by default.

    Sampling reads values on the host (as TF's CPU sampler does).
    """
    return _nce_loss(_partition_list(weights), _partition_list(biases), labels, inputs,
                     num_sampled, num_classes, num_true, sampled_values,
                     remove_accidental_hits, partition_strategy, name=name)


@tf_export(v2=["nn.nce_loss"])
def nce_loss_v2(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                sampled_values=None, remove_accidental_hits=False, name="nce_loss"):
    return nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                    sampled_values, remove_accidental_hits, "div", name=name)


@op(graph_name="SampledSoftmaxLoss")
def _sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                          num_true, sampled_values, remove_accidental_hits, partition_strategy,
                          seed, name=None):
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled,
                                      num_classes, num_true, sampled_values, True,
                                      remove_accidental_hits, partition_strategy, seed)
    return -torch.sum(targets * F.log_softmax(logits, dim=1), dim=1)


@tf_export(v1=["nn.sampled_softmax_loss"])
def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                         num_true=1, sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss", seed=None):
    """Sampled softmax cross entropy per example ([batch])."""
    return _sampled_softmax_loss(_partition_list(weights), _partition_list(biases), labels,
                                 inputs, num_sampled, num_classes, num_true, sampled_values,
                                 remove_accidental_hits, partition_strategy, seed, name=name)


@tf_export(v2=["nn.sampled_softmax_loss"])
def sampled_softmax_loss_v2(weights, biases, labels, inputs, num_sampled, num_classes,
                            num_true=1, sampled_values=None, remove_accidental_hits=True,
                            seed=None, name="sampled_softmax_loss"):
    return sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                                num_true, sampled_values, remove_accidental_hits, "div",
                                name=name, seed=seed)


# ---------------------------------------------------------------- convolution and pooling

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
_MAX_POOL = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
_AVG_POOL = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}
_CHANNELS_LAST = {None, "NWC", "NHWC", "NDHWC", "NHC", "NDHC"}
_CHANNELS_FIRST = {"NCW", "NCHW", "NCDHW", "NCH"}
_CHANNELS_LAST_FORMAT = {4: torch.channels_last, 5: torch.channels_last_3d}


def _is_channels_last(data_format):
    if data_format in _CHANNELS_LAST:
        return True
    if data_format in _CHANNELS_FIRST:
        return False
    raise ValueError("data_format must be one of NWC/NHWC/NDHWC (channels last) or "
                     "NCW/NCHW/NCDHW (channels first), got %r" % (data_format,))


def _spatial(value, n, name, channels_last, op_name=errors.RUNNING_OP):
    """strides/dilations/ksize given as an int, or n, 1 or n + 2 ints -> n ints."""
    if value is None:
        return [1] * n
    values = _int_list(value)
    if len(values) == 1:
        return values * n
    if len(values) == n:
        return values
    if len(values) == n + 2:
        outer = (values[0], values[-1]) if channels_last else (values[0], values[1])
        if outer != (1, 1):
            raise errors.InvalidArgumentError(
                "%s: %s in the batch and depth dimensions must be 1, got %s"
                % (op_name, name, values))
        return values[1:-1] if channels_last else values[2:]
    raise ValueError("%s: %s must be an int or a list of 1, %d or %d ints, got %s"
                     % (op_name, name, n, n + 2, values))


def _pads(padding, sizes, kernel, strides, dilations, channels_last, op_name=errors.RUNNING_OP):
    """TF padding ("SAME", "VALID" or explicit pairs) -> [(before, after)] per spatial dim."""
    n = len(sizes)
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            pads = [(0, 0)] * n
        elif mode == "SAME":
            pads = []
            for size, k, s, d in zip(sizes, kernel, strides, dilations):
                out = -(-size // s)
                total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
                pads.append((total // 2, total - total // 2))
        else:
            raise ValueError("%s: padding must be 'SAME', 'VALID' or a list of explicit "
                             "paddings, got %r" % (op_name, padding))
    else:
        pairs = [tuple(int(v) for v in pair) for pair in padding]
        if len(pairs) == n + 2:
            outer = (pairs[0], pairs[-1]) if channels_last else (pairs[0], pairs[1])
            if outer != ((0, 0), (0, 0)):
                raise ValueError("%s: explicit padding of the batch and channel dimensions "
                                 "must be zero, got %s" % (op_name, pairs))
            pairs = pairs[1:-1] if channels_last else pairs[2:]
        if len(pairs) != n or any(len(p) != 2 or min(p) < 0 for p in pairs):
            raise ValueError("%s: explicit padding must be %d pairs of non-negative ints, got "
                             "%r" % (op_name, n + 2, padding))
        pads = pairs
    for size, k, d, (b, a) in zip(sizes, kernel, dilations, pads):
        if size + b + a < (k - 1) * d + 1:
            raise errors.InvalidArgumentError(
                "%s: computed output size would be negative: input size %s, window size %d"
                % (op_name, size, (k - 1) * d + 1))
    return pads


def _pad(x, pads, value=0.0):
    """Constant padding of the last len(pads) dims by (before, after); negative values crop
    (all or none of them). A crop is a view; a channels_last tensor is padded in its NHWC
    order, which torch copies 7x faster than through the NCHW view, and stays channels_last.
    """
    if all(before <= 0 and after <= 0 for before, after in pads):
        lead = x.ndim - len(pads)
        return x[(slice(None),) * lead + tuple(slice(-before, size + after) for size, (
            before, after) in zip(x.shape[lead:], pads))]
    if len(pads) == x.ndim - 2 and x.ndim in (4, 5) and not x.is_contiguous() and \
            x.is_contiguous(memory_format=_CHANNELS_LAST_FORMAT[x.ndim]):
        padded = constant_pad(x.permute(0, *range(2, x.ndim), 1), list(pads) + [(0, 0)], value)
        return padded.permute(0, x.ndim - 1, *range(1, x.ndim - 1))
    return constant_pad(x, pads, value)


def _split_pads(pads):
    """Split into a symmetric part torch's ops take and the remainder for `_pad`."""
    sym = [min(b, a) for b, a in pads]
    extra = [(b - m, a - m) for (b, a), m in zip(pads, sym)]
    return sym, extra


def _to_channels_first(x, channels_last):
    # NHWC -> NCHW view: torch's channels_last memory format, no copy
    return x.permute(0, x.ndim - 1, *range(1, x.ndim - 1)) if channels_last else x


def _from_channels_first(y, channels_last):
    return y.permute(0, *range(2, y.ndim), 1) if channels_last else y


def _check_rank(x, n, what="input", op_name=errors.RUNNING_OP):
    if x.ndim != n + 2:
        raise ValueError("%s: %s must be %d-dimensional, got shape %s"
                         % (op_name, what, n + 2, format_shape(x.shape)))


def _conv(x, filters, n, strides, padding, dilations, data_format, op_name=errors.RUNNING_OP):
    """N-d convolution of `x` with an HWIO (spatial..., in, out) filter; groups inferred."""
    x, w = binary_operands(x, filters, op_name=op_name)
    _check_rank(x, n, op_name=op_name)
    _check_rank(w, n, "filter", op_name=op_name)
    channels_last = _is_channels_last(data_format)
    strides = _spatial(strides, n, "strides", channels_last, op_name=op_name)
    dilations = _spatial(dilations, n, "dilations", channels_last, op_name=op_name)
    sizes = list(x.shape[1:-1] if channels_last else x.shape[2:])
    depth = x.shape[-1] if channels_last else x.shape[1]
    kernel = list(w.shape[:n])
    if depth % w.shape[n] != 0:
        raise errors.InvalidArgumentError(
            "%s: input depth must be evenly divisible by filter depth: %d vs %d"
            % (op_name, depth, w.shape[n]))
    pads = _pads(padding, sizes, kernel, strides, dilations, channels_last, op_name=op_name)
    sym, extra = _split_pads(pads)
    xc = _to_channels_first(x, channels_last)
    if any(b or a for b, a in extra):
        xc = _pad(xc, extra)
    weight = w.permute(n + 1, n, *range(n))
    y = _CONV[n](xc, weight, None, strides, sym, dilations, depth // w.shape[n])
    return _from_channels_first(y, channels_last)


@op(v1=["nn.conv2d"], graph_name="Conv2D")
def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None):
    """2-D convolution; filter [height, width, in_channels, out_channels]."""
    return _conv(input, filter if filter is not None else filters, 2, strides, padding,
                 dilations, data_format, op_name="Conv2D")


@op(v2=["nn.conv2d"], graph_name="Conv2D")
def conv2d_v2(input, filters, strides, padding, data_format="NHWC", dilations=None,
              name=None):
    return _conv(input, filters, 2, strides, padding, dilations, data_format, op_name="Conv2D")


@op(v1=["nn.conv1d"])
def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None,
           data_format=None, name=None, input=None, dilations=None):
    """1-D convolution on NWC (or NCW) with a [width, in, out] filter."""
    return _conv(value if value is not None else input, filters, 1, stride, padding,
                 dilations, data_format, op_name="Conv1D")


@op(v2=["nn.conv1d"])
def conv1d_v2(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    return _conv(input, filters, 1, stride, padding, dilations, data_format, op_name="Conv1D")


@op(v1=["nn.conv3d"], graph_name="Conv3D")
def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",
           dilations=(1, 1, 1, 1, 1), name=None, filters=None):
    return _conv(input, filter if filter is not None else filters, 3, strides, padding,
                 dilations, data_format, op_name="Conv3D")


@op(v2=["nn.conv3d"], graph_name="Conv3D")
def conv3d_v2(input, filters, strides, padding, data_format="NDHWC", dilations=None,
              name=None):
    return _conv(input, filters, 3, strides, padding, dilations, data_format, op_name="Conv3D")


def _rank_of(filters):
    return to_torch(filters).ndim - 2


@op(v1=["nn.convolution"])
def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None,
                name=None, data_format=None, filters=None, dilations=None):
    """N-d convolution, N taken from the filter's rank."""
    w = filter if filter is not None else filters
    return _conv(input, w, _rank_of(w), strides, padding,
                 dilation_rate if dilation_rate is not None else dilations, data_format)


@op(v2=["nn.convolution"])
def convolution_v2(input, filters, strides=None, padding="VALID", data_format=None,
                   dilations=None, name=None):
    return _conv(input, filters, _rank_of(filters), strides, padding, dilations,
                 data_format, op_name="Convolution")


@op("nn.atrous_conv2d")
def atrous_conv2d(value, filters, rate, padding, name=None):
    """2-D convolution with dilation `rate` and stride 1 (NHWC)."""
    return _conv(value, filters, 2, 1, padding, rate, "NHWC", op_name="AtrousConv2D")


def _conv_transpose(x, filters, output_shape, n, strides, padding, dilations, data_format,
                    op_name=errors.RUNNING_OP):
    """Gradient of `_conv` w.r.t. its input; filter (spatial..., out, in), TF's layout.

    `output_shape` is read as Python ints (a tensor is read with .tolist()).
    """
    x, w = binary_operands(x, filters, op_name=op_name)
    _check_rank(x, n, op_name=op_name)
    _check_rank(w, n, "filter", op_name=op_name)
    channels_last = _is_channels_last(data_format)
    strides = _spatial(strides, n, "strides", channels_last, op_name=op_name)
    dilations = _spatial(dilations, n, "dilations", channels_last, op_name=op_name)
    out_shape = _int_list(output_shape)
    if len(out_shape) != n + 2:
        raise ValueError("%s: output_shape must have %d elements, got %s"
                         % (op_name, n + 2, out_shape))
    out_sizes = out_shape[1:-1] if channels_last else out_shape[2:]
    out_depth = out_shape[-1] if channels_last else out_shape[1]
    in_sizes = list(x.shape[1:-1] if channels_last else x.shape[2:])
    depth = x.shape[-1] if channels_last else x.shape[1]
    kernel = list(w.shape[:n])
    if depth != w.shape[n + 1]:
        raise ValueError("%s: input channels (%d) must match the filter's last dimension (%d)"
                         % (op_name, depth, w.shape[n + 1]))
    if out_depth != w.shape[n]:
        raise ValueError("%s: output_shape's channels (%d) must match the filter's "
                         "out_channels (%d)" % (op_name, out_depth, w.shape[n]))
    if out_shape[0] != x.shape[0]:
        raise errors.InvalidArgumentError("%s: output_shape batch (%d) does not match the "
                                          "input batch (%d)" % (op_name, out_shape[0],
                                                                x.shape[0]))
    pads = _pads(padding, out_sizes, kernel, strides, dilations, channels_last, op_name=op_name)
    full, out_pad = [], []
    for i, (size, k, s, d, (b, a)) in enumerate(zip(out_sizes, kernel, strides, dilations,
                                                    pads)):
        computed = (size + b + a - (k - 1) * d - 1) // s + 1
        if computed != in_sizes[i]:
            raise errors.InvalidArgumentError(
                "%s: Size of out_backprop doesn't match computed: actual = %d, computed = %d "
                "spatial_dim: %d input: %d filter: %d output: %d stride: %d dilation: %d"
                % (op_name, in_sizes[i], computed, i + 1, size, k, in_sizes[i], s, d))
        full.append((in_sizes[i] - 1) * s + (k - 1) * d + 1)
        out_pad.append(size - full[-1] + 2 * b)
    xc = _to_channels_first(x, channels_last)
    weight = w.permute(n + 1, n, *range(n))
    conv_t = _CONV_T[n]
    if all(0 <= op_ < max(s, d) and b <= full_ for op_, s, d, (b, _), full_ in
           zip(out_pad, strides, dilations, pads, full)):
        y = conv_t(xc, weight, None, strides, [b for b, _ in pads], out_pad, 1, dilations)
    else:
        y = conv_t(xc, weight, None, strides, 0, 0, 1, dilations)
        y = _pad(y, [(-b, size - (f - b)) for (b, _), size, f in zip(pads, out_sizes, full)])
    return _from_channels_first(y, channels_last)


@op(v1=["nn.conv2d_transpose"], graph_name="Conv2DBackpropInput")
def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None,
                     padding="SAME", data_format="NHWC", name=None, input=None, filters=None,
                     dilations=None):
    """Transposed 2-D convolution; filter [height, width, out_channels, in_channels]."""
    return _conv_transpose(value if value is not None else input,
                           filter if filter is not None else filters, output_shape, 2,
                           strides, padding, dilations, data_format, op_name="Conv2DBackpropInput")


@op(v2=["nn.conv2d_transpose"], graph_name="Conv2DBackpropInput")
def conv2d_transpose_v2(input, filters, output_shape, strides, padding="SAME",
                        data_format="NHWC", dilations=None, name=None):
    return _conv_transpose(input, filters, output_shape, 2, strides, padding, dilations,
                           data_format, op_name="Conv2DBackpropInput")


@op("nn.conv1d_transpose")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",
                     data_format="NWC", dilations=None, name=None):
    return _conv_transpose(input, filters, output_shape, 1, strides, padding, dilations,
                           data_format, op_name="Conv1DBackpropInput")


@op(v1=["nn.conv3d_transpose"], graph_name="Conv3DBackpropInputV2")
def conv3d_transpose(value, filter=None, output_shape=None, strides=None, padding="SAME",
                     data_format="NDHWC", name=None, input=None, filters=None,
                     dilations=None):
    return _conv_transpose(value if value is not None else input,
                           filter if filter is not None else filters, output_shape, 3,
                           strides, padding, dilations, data_format,
                           op_name="Conv3DBackpropInputV2")


@op(v2=["nn.conv3d_transpose"], graph_name="Conv3DBackpropInputV2")
def conv3d_transpose_v2(input, filters, output_shape, strides, padding="SAME",
                        data_format="NDHWC", dilations=None, name=None):
    return _conv_transpose(input, filters, output_shape, 3, strides, padding, dilations,
                           data_format, op_name="Conv3DBackpropInputV2")


@op("nn.conv_transpose")
def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,
                   dilations=None, name=None):
    return _conv_transpose(input, filters, output_shape, _rank_of(filters), strides, padding,
                           dilations, data_format)


def _depthwise(x, filter, strides, padding, rate, data_format, op_name=errors.RUNNING_OP):
    """Depthwise 2-D convolution; filter [h, w, in_channels, multiplier]."""
    w = to_torch(filter)
    if w.ndim != 4:
        raise ValueError("%s: filter must be 4-D [height, width, in_channels, multiplier], "
                         "got shape %s" % (op_name, format_shape(w.shape)))
    channels_last = _is_channels_last(data_format)
    if rate is not None and max(_spatial(rate, 2, "rate", channels_last, op_name=op_name)) > 1 and \
            max(_spatial(strides, 2, "strides", channels_last, op_name=op_name)) > 1:
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    # output channel c * multiplier + m, as torch's grouped conv orders them
    w = w.reshape(w.shape[0], w.shape[1], 1, w.shape[2] * w.shape[3])
    return _conv(x, w, 2, strides, padding, rate, data_format, op_name=op_name)


@op(v1=["nn.depthwise_conv2d"], graph_name="DepthwiseConv2dNative")
def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None,
                     dilations=None):
    return _depthwise(input, filter, strides, padding, rate if rate is not None else dilations,
                      data_format, op_name="DepthwiseConv2dNative")


@op(v2=["nn.depthwise_conv2d"], graph_name="DepthwiseConv2dNative")
def depthwise_conv2d_v2(input, filter, strides, padding, data_format=None, dilations=None,
                        name=None):
    return _depthwise(input, filter, strides, padding, dilations, data_format,
                      op_name="DepthwiseConv2dNative")


@op(v1=["nn.depthwise_conv2d_native"], graph_name="DepthwiseConv2dNative")
def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",
                            dilations=(1, 1, 1, 1), name=None):
    return _depthwise(input, filter, strides, padding, dilations, data_format)


def _separable(x, depthwise_filter, pointwise_filter, strides, padding, rate, data_format):
    y = _depthwise(x, depthwise_filter, strides, padding, rate, data_format,
                   op_name="SeparableConv2D")
    return _conv(y, pointwise_filter, 2, 1, "VALID", 1, data_format, op_name="SeparableConv2D")


@op(v1=["nn.separable_conv2d"])
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None,
                     name=None, data_format=None, dilations=None):
    """Depthwise convolution followed by a 1x1 pointwise convolution."""
    return _separable(input, depthwise_filter, pointwise_filter, strides, padding,
                      rate if rate is not None else dilations, data_format)


@op(v2=["nn.separable_conv2d"])
def separable_conv2d_v2(input, depthwise_filter, pointwise_filter, strides, padding,
                        data_format=None, dilations=None, name=None):
    return _separable(input, depthwise_filter, pointwise_filter, strides, padding, dilations,
                      data_format)


def _pool(value, ksize, strides, padding, data_format, n, kind, dilations=None,
          op_name=errors.RUNNING_OP):
    """Max or average pooling; SAME averages count only the real (unpadded) inputs, as TF."""
    x = _float(value, "input", op_name=op_name)
    if n is None:
        n = x.ndim - 2
    if n not in (1, 2, 3):
        raise ValueError("%s: input must be 3-, 4- or 5-dimensional, got shape %s"
                         % (op_name, format_shape(x.shape)))
    _check_rank(x, n, op_name=op_name)
    channels_last = _is_channels_last(data_format)
    kernel = _spatial(ksize, n, "ksize", channels_last, op_name=op_name)
    strides = _spatial(strides, n, "strides", channels_last, op_name=op_name)
    dilations = _spatial(dilations, n, "dilations", channels_last, op_name=op_name)
    sizes = list(x.shape[1:-1] if channels_last else x.shape[2:])
    pads = _pads(padding, sizes, kernel, strides, dilations, channels_last, op_name=op_name)
    xc = _to_channels_first(x, channels_last)
    if kind == "MAX":
        sym, extra = _split_pads(pads)
        if any(2 * p > k for p, k in zip(sym, kernel)):
            sym, extra = [0] * n, pads
        if any(b or a for b, a in extra):
            xc = _pad(xc, extra, float("-inf"))
        y = _MAX_POOL[n](xc, kernel, strides, sym, dilations)
    else:
        if any(d != 1 for d in dilations):
            raise NotImplementedError("%s: average pooling with dilations > 1 is not "
                                      "implemented by tfcompat" % op_name)
        if not any(b or a for b, a in pads):
            y = _AVG_POOL[n](xc, kernel, strides)
        elif all(b == a and 2 * b <= k for (b, a), k in zip(pads, kernel)):
            y = _AVG_POOL[n](xc, kernel, strides, [b for b, _ in pads], False, False)
        else:
            ones = _pad(xc.new_ones([1, 1] + sizes), pads)
            y = _AVG_POOL[n](_pad(xc, pads), kernel, strides) / \
                _AVG_POOL[n](ones, kernel, strides)
    return _from_channels_first(y, channels_last)


@op(v1=["nn.max_pool"])
def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """2-D max pooling (v1 signature)."""
    return _pool(value if value is not None else input, ksize, strides, padding, data_format,
                 2, "MAX")


@op(v2=["nn.max_pool"], v1=["nn.max_pool_v2"])
def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """N-d max pooling, N from the input's rank."""
    return _pool(input, ksize, strides, padding, data_format, None, "MAX", op_name="MaxPool")


@op("nn.max_pool1d")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    return _pool(input, ksize, strides, padding, data_format, 1, "MAX", op_name="MaxPool1D")


@op("nn.max_pool2d", graph_name="MaxPool")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    return _pool(input, ksize, strides, padding, data_format, 2, "MAX", op_name="MaxPool")


@op("nn.max_pool3d", graph_name="MaxPool3D")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    return _pool(input, ksize, strides, padding, data_format, 3, "MAX", op_name="MaxPool3D")


@op(v1=["nn.avg_pool"])
def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """2-D average pooling (v1 signature); SAME padding is not counted in the average."""
    return _pool(value if value is not None else input, ksize, strides, padding, data_format,
                 2, "AVG")


@op(v2=["nn.avg_pool"], v1=["nn.avg_pool_v2"])
def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    return _pool(input, ksize, strides, padding, data_format, None, "AVG", op_name="AvgPool")


@op("nn.avg_pool1d")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    return _pool(input, ksize, strides, padding, data_format, 1, "AVG", op_name="AvgPool1D")


@op("nn.avg_pool2d", graph_name="AvgPool")
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    return _pool(input, ksize, strides, padding, data_format, 2, "AVG", op_name="AvgPool")


@op("nn.avg_pool3d", graph_name="AvgPool3D")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    return _pool(input, ksize, strides, padding, data_format, 3, "AVG", op_name="AvgPool3D")


def _generic_pool(input, window_shape, pooling_type, strides, padding, data_format,
                  dilations):
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError("pooling_type must be 'MAX' or 'AVG', got %r" % (pooling_type,))
    n = len(_int_list(window_shape))
    if strides is not None and dilations is not None and \
            max(_int_list(strides)) > 1 and max(_int_list(dilations)) > 1:
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    return _pool(input, window_shape, strides, padding, data_format, n, pooling_type, dilations,
                 op_name="Pool")


@op(v1=["nn.pool"])
def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None,
         name=None, data_format=None, dilations=None):
    """N-d max/avg pooling with window_shape, strides and dilation_rate of N ints."""
    return _generic_pool(input, window_shape, pooling_type, strides, padding, data_format,
                         dilation_rate if dilation_rate is not None else dilations)


@op(v2=["nn.pool"])
def pool_v2(input, window_shape, pooling_type, strides=None, padding="VALID",
            data_format=None, dilations=None, name=None):
    return _generic_pool(input, window_shape, pooling_type, strides, padding, data_format,
                         dilations)


def _max_pool_with_argmax(input, ksize, strides, padding, data_format, output_dtype,
                          include_batch_in_index):
    if data_format != "NHWC":
        raise ValueError("max_pool_with_argmax supports data_format='NHWC' only, got %r"
                         % (data_format,))
    x = _float(input, "input", op_name="MaxPoolWithArgmax")
    _check_rank(x, 2, op_name="MaxPoolWithArgmax")
    batch, height, width, channels = x.shape
    kernel = _spatial(ksize, 2, "ksize", True, op_name="MaxPoolWithArgmax")
    strides = _spatial(strides, 2, "strides", True, op_name="MaxPoolWithArgmax")
    pads = _pads(padding, [height, width], kernel, strides, [1, 1], True,
                 op_name="MaxPoolWithArgmax")
    xc = _pad(_to_channels_first(x, True), pads, float("-inf"))
    values, where = F.max_pool2d(xc, kernel, strides, return_indices=True)
    # torch's index is y * W_padded + x within a channel plane; TF's ((b*H + y)*W + x)*C + c
    padded_width = width + pads[1][0] + pads[1][1]
    row = where // padded_width - pads[0][0]
    col = where % padded_width - pads[1][0]
    index = (row * width + col) * channels + \
        torch.arange(channels, device=x.device).reshape(1, -1, 1, 1)
    if include_batch_in_index:
        index = index + torch.arange(batch, device=x.device).reshape(-1, 1, 1, 1) * \
            (height * width * channels)
    out_dtype = dtypes.as_dtype(output_dtype or dtypes.int64).torch_dtype
    return _from_channels_first(values, True), _from_channels_first(index, True).to(out_dtype)


@op(v1=["nn.max_pool_with_argmax"])
def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", Targmax=None,
                         name=None, output_dtype=None, include_batch_in_index=False):
    """(max pooled values, flattened argmax indices) for NHWC input, as TF computes them."""
    return _max_pool_with_argmax(input, ksize, strides, padding, data_format,
                                 output_dtype or Targmax, include_batch_in_index)


@op(v2=["nn.max_pool_with_argmax"])
def max_pool_with_argmax_v2(input, ksize, strides, padding, data_format="NHWC",
                            output_dtype=dtypes.int64, include_batch_in_index=False,
                            name=None):
    return _max_pool_with_argmax(input, ksize, strides, padding, data_format, output_dtype,
                                 include_batch_in_index)


# ---------------------------------------------------------------- dropout


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _dropout(x, rate, noise_shape, seed):
    t = to_torch(x)
    if not t.is_floating_point():
        raise ValueError("x has to be a floating point tensor since it's going to be scaled. "
                         "Got a %s tensor instead." % dtypes.from_torch(t.dtype).name)
    if _is_number(rate):
        if not 0 <= rate < 1:
            raise ValueError("rate must be a scalar tensor or a float in the range [0, 1), "
                             "got %g" % rate)
        if rate == 0:
            return t
        scale = 1.0 / (1.0 - rate)
    else:
        rate = to_torch(rate, dtypes.from_torch(t.dtype)) if not isinstance(
            rate, torch.Tensor) else rate.to(t.dtype)
        if rate.ndim != 0:
            if rate.numel() != 1:
                raise ValueError("rate must be a scalar tensor, got shape %s"
                                 % format_shape(rate.shape))
            rate = rate.reshape(())  # a scalar fed through a placeholder of unknown rank
        scale = 1 / (1 - rate)
    if noise_shape is None:
        shape = t.shape
    else:
        shape = [t.shape[i] if s is None else s for i, s in enumerate(
            noise_shape if isinstance(noise_shape, (list, tuple)) else _int_list(noise_shape))]
        shape = _int_list(shape)
        try:
            torch.broadcast_shapes(tuple(shape), t.shape)
        except RuntimeError:
            raise errors.InvalidArgumentError(
                "noise_shape %s is not broadcastable to x's shape %s"
                % (shape, format_shape(t.shape))) from None
    noise = torch.empty(shape, device=t.device, dtype=t.dtype).uniform_(
        generator=random_seed.generator(seed, t.device))
    return t * ((noise >= rate).to(t.dtype) * scale)


@op(v1=["nn.dropout"])
def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """TF 1.x dropout: keep each element with probability keep_prob (or 1 - rate) and scale
    kept ones by 1 / keep_prob. keep_prob/rate may be tensors (e.g. a fed placeholder)."""
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'keep_prob' and 'rate'")
    if keep_prob is not None:
        if _is_number(keep_prob):
            if not 0 < keep_prob <= 1:
                raise ValueError("keep_prob must be a scalar tensor or a float in the range "
                                 "(0, 1], got %g" % keep_prob)
            rate = 1 - keep_prob
        else:
            rate = 1 - to_torch(keep_prob)
    elif rate is None:
        raise ValueError("You must provide a rate to dropout.")
    return _dropout(x, rate, noise_shape, seed)


@op(v2=["nn.dropout"])
def dropout_v2(x, rate, noise_shape=None, seed=None, name=None):
    """TF 2.x dropout: drop each element with probability `rate`, scale the rest."""
    return _dropout(x, rate, noise_shape, seed)


# ---------------------------------------------------------------- embeddings


def _gather_rows(params, ids):
    """params[ids] with TF's errors: out-of-range ids raise on CPU, give zeros on a GPU."""
    flat = ids.reshape(-1)
    if params.device.type == "cpu":
        try:
            rows = params.index_select(0, flat)
        except (IndexError, RuntimeError):
            bad = [i for i in flat.tolist() if not 0 <= i < params.shape[0]]
            raise errors.InvalidArgumentError(
                "indices[%d] = %d is not in [0, %d)" % (flat.tolist().index(bad[0]), bad[0],
                                                        params.shape[0])) from None
    else:
        valid = (flat >= 0) & (flat < params.shape[0])
        rows = params.index_select(0, torch.where(valid, flat, 0))
        rows = rows * valid.reshape((-1,) + (1,) * (params.ndim - 1)).to(rows.dtype)
    return rows.reshape(tuple(ids.shape) + tuple(params.shape[1:]))


def _lookup(params, ids, partition_strategy):
    """Gather rows of a tensor/variable or of a list of partitions ("mod" or "div")."""
    if isinstance(params, (list, tuple)):
        parts = [to_torch(p) for p in params]
    else:
        parts = [to_torch(params)]
    if len(parts) == 1:
        return _gather_rows(parts[0], ids)
    n = len(parts)
    sizes = [p.shape[0] for p in parts]
    offsets = torch.tensor([sum(sizes[:i]) for i in range(n)], device=ids.device,
                           dtype=ids.dtype)
    if partition_strategy == "mod":
        part, local = ids % n, ids // n
    elif partition_strategy == "div":
        total = sum(sizes)
        per, extras = total // n, total % n
        part = torch.maximum(ids // (per + 1), (ids - extras) // max(per, 1))
        local = torch.where(part < extras, ids % (per + 1), (ids - extras) % max(per, 1))
    else:
        raise ValueError("Unrecognized partition strategy: %r (use 'mod' or 'div')"
                         % (partition_strategy,))
    limits = torch.tensor(sizes, device=ids.device, dtype=ids.dtype)
    inside = (ids >= 0) & (part < n)
    part = part.clamp(0, n - 1)
    inside = inside & (local < limits[part])
    rows = torch.where(inside, offsets[part] + local, sum(sizes))
    return _gather_rows(torch.cat(parts), rows)


def _embedding_lookup(params, ids, partition_strategy, max_norm):
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Need at least one param")
    ids = to_torch(ids)
    if ids.dtype not in (torch.int32, torch.int64):
        raise TypeError("Value passed to parameter 'indices' has DataType %s not in list of "
                        "allowed values: int32, int64" % dtypes.from_torch(ids.dtype).name)
    result = _lookup(params, ids.long(), partition_strategy)
    if max_norm is not None:
        dims = tuple(range(ids.ndim, result.ndim))
        norm = torch.sqrt(torch.sum(result * result, dim=dims, keepdim=True))
        result = result * (max_norm / torch.maximum(norm, torch.full_like(norm, max_norm)))
    return result


@op(graph_name="EmbeddingLookup")
def _embedding_lookup_op(params, ids, partition_strategy="mod", max_norm=None, name=None):
    return _embedding_lookup(params, ids, partition_strategy, max_norm)


@tf_export(v1=["nn.embedding_lookup"])
def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """Rows of `params` (a tensor, variable, list of partitions or PartitionedVariable) at
    `ids`.

    Partitioned params are concatenated once per call; rows with norm above `max_norm` are
    scaled down in the result (params are not modified).
    """
    return _embedding_lookup_op(_partition_list(params), ids, partition_strategy, max_norm,
                                name=name)


@tf_export(v2=["nn.embedding_lookup"])
def embedding_lookup_v2(params, ids, max_norm=None, name=None):
    return embedding_lookup(params, ids, "div", name=name, max_norm=max_norm)


@op(graph_name="EmbeddingLookupSparse")
def _embedding_lookup_sparse(params, indices, ids, weights, partition_strategy, combiner,
                             max_norm, name=None):
    """Rows of `params` at `ids`, times `weights` (1 when None), summed per row of the sparse
    input (`indices[:, 0]`, sorted) and divided by the weights' sum ("mean") or the root of
    their squares' sum ("sqrtn"), 0 where that is 0; last row id + 1 rows, as TF's segment
    sums give."""
    rows = _embedding_lookup(params, ids, partition_strategy, max_norm)
    segments = to_torch(indices)[:, 0].long()
    if weights is None:
        weights = torch.ones(segments.shape, dtype=rows.dtype, device=rows.device)
    else:
        weights = to_torch(weights).to(rows.dtype)
    weights = weights.reshape((-1,) + (1,) * (rows.ndim - 1))
    num = _sorted_num_segments(segments)
    weighted = rows * weights
    if combiner != "sum":
        # each entry divided by its row's norm: nothing broadcasts against `num`, which a
        # graph knows only when it runs
        per_row = weights if combiner == "mean" else weights * weights
        norm = torch.zeros((num,) + tuple(rows.shape[1:]), dtype=rows.dtype,
                           device=rows.device).index_add(0, segments, per_row.expand_as(rows))
        norm = norm[segments] if combiner == "mean" else torch.sqrt(norm[segments])
        weighted = torch.where(norm == 0, torch.zeros_like(weighted), weighted / norm)
    return torch.zeros((num,) + tuple(rows.shape[1:]), dtype=rows.dtype,
                       device=rows.device).index_add(0, segments, weighted)


@tf_export(v1=["nn.embedding_lookup_sparse"])
def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None,
                            combiner=None, max_norm=None):
    """Combined embeddings of the ids in each row of the SparseTensor `sp_ids` (weighted by
    `sp_weights` values when given): "mean" (default), "sqrtn" or "sum". As TF, rows are
    assumed non-empty and in order; the result has (last row with ids + 1) rows. `params`
    may be a tensor, a list of partitions or a PartitionedVariable. RaggedTensor ids (TF 2.15)
    are not supported."""
    combiner = "mean" if combiner is None else combiner
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum', got %s" % combiner)
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError("sp_ids must be SparseTensor, got %s" % type(sp_ids))
    if sp_weights is not None and not isinstance(sp_weights, SparseTensor):
        raise TypeError("sp_weights must be either None or SparseTensor,got %s"
                        % type(sp_weights))
    return _embedding_lookup_sparse(
        _partition_list(params), sp_ids.indices, sp_ids.values,
        None if sp_weights is None else sp_weights.values, partition_strategy, combiner,
        max_norm, name=name)


@tf_export(v2=["nn.embedding_lookup_sparse"])
def embedding_lookup_sparse_v2(params, sp_ids, sp_weights, combiner=None, max_norm=None,
                               name=None, allow_fast_lookup=False):
    return embedding_lookup_sparse(params, sp_ids, sp_weights, "div", name, combiner, max_norm)
