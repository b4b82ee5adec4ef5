"""tf.math ops and Tensor operators, compared with numpy and TF's documented dtype rules."""
import numpy as np
import pytest

import tfcompat as tf
import tfcompat.compat.v1 as tf_v1
import tfcompat.compat.v2 as tf_v2
from tfcompat import _api
from tfcompat.framework import errors


def _np(x):
    return np.asarray(x.numpy())


def check(result, expected, dtype=None, rtol=1e-5, atol=1e-6):
    expected = np.asarray(expected)
    if dtype is not None:
        assert result.dtype == dtype, (result.dtype, dtype)
    np.testing.assert_allclose(_np(result), expected, rtol=rtol, atol=atol)
    assert _np(result).shape == expected.shape


@pytest.fixture
def v2_flavor():
    _api.set_flavor("v2")
    yield
    _api.set_flavor("v1")


X = np.array([[0.5, -1.5, 2.0], [3.25, -0.25, 1.0]], np.float32)
Y = np.array([[1.5, 2.0, -4.0], [0.5, 3.0, 2.5]], np.float32)

# Elementwise ops and reductions against numpy, eager / graph / gradients: tests/op_records.py.


def _lookup(path):
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("path", ["sqrt", "exp", "math.log", "sigmoid", "floor", "math.erf"])
def test_float_only_unary_ops_reject_integers(path):
    with pytest.raises(errors.InvalidArgumentError, match="int32"):
        _lookup(path)(tf.constant([1, 2]))


def test_round_keeps_integers():
    # float rounding (banker's, as numpy): the math.round / math.rint op records
    check(tf.round(tf.constant([1, 2])), [1, 2], tf.int32)


@pytest.mark.parametrize("dtype,expected", [
    (tf.int8, tf.float32), (tf.uint8, tf.float32), (tf.int16, tf.float32),
    (tf.int32, tf.float64), (tf.int64, tf.float64), (tf.float16, tf.float16),
    (tf.float32, tf.float32), (tf.float64, tf.float64)])
def test_truediv_casts_integers_like_tf(dtype, expected):
    result = tf.truediv(tf.constant([3, 7], dtype=dtype), tf.constant([2, 2], dtype=dtype))
    check(result, [1.5, 3.5], expected)


def test_integer_slash_is_float64():
    result = tf.constant(3) / 2
    assert result.dtype == tf.float64 and result.numpy() == 1.5
    assert (tf.constant(3) // 2).dtype == tf.int32
    check(tf.divide(3, 2), 1.5, tf.float64)
    check(tf.div(7, 2), 3, tf.int32)
    check(tf.div(7.0, 2.0), 3.5, tf.float32)


def test_division_by_zero():
    with pytest.raises(errors.InvalidArgumentError, match="division by zero"):
        tf.floordiv(tf.constant([1]), tf.constant([0]))
    check(tf.math.divide_no_nan(tf.constant([1.0, 2.0]), tf.constant([0.0, 4.0])),
          [0.0, 0.5], tf.float32)
    check(tf.constant([1.0, -1.0]) / 0.0, [np.inf, -np.inf])


def test_special_divisions_and_logs():
    x, y = np.array([0.0, 2.0], np.float32), np.array([0.0, 4.0], np.float32)
    check(tf.math.xdivy(x, y), [0.0, 0.5])
    check(tf.math.xlogy(x, y), [0.0, 2.0 * np.log(4.0)])
    check(tf.math.xlog1py(x, y), [0.0, 2.0 * np.log1p(4.0)])


def test_python_scalars_take_the_tensor_dtype():
    check(tf.add(tf.constant([1, 2]), 1), [2, 3], tf.int32)
    check(tf.multiply(2, tf.constant([1.5], dtype=tf.float64)), [3.0], tf.float64)
    check(tf.maximum(0.0, tf.constant([-1.0, 2.0])), [0.0, 2.0], tf.float32)
    check(tf.subtract(10, tf.constant([1, 2], dtype=tf.int64)), [9, 8], tf.int64)
    check(tf.add(1, 2), 3, tf.int32)
    check(tf.add(1.0, 2), 3.0, tf.float32)


def test_integral_python_float_keeps_int_tensor_dtype():
    check(tf.constant([1, 2]) * 2.0, [2, 4], tf.int32)


def test_non_integral_float_with_int_tensor_raises():
    with pytest.raises(TypeError):
        tf.constant([1, 2]) * 2.5


def test_mixed_dtypes_raise_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError, match="float"):
        tf.add(tf.constant([1.0]), tf.constant([1.0], dtype=tf.float64))
    with pytest.raises(errors.InvalidArgumentError):
        tf.multiply(tf.constant([1]), tf.constant([1.0]))
    with pytest.raises(TypeError, match="same dtype"):
        tf.truediv(tf.constant([1]), tf.constant([1.0]))


def test_incompatible_shapes_raise_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError, match=r"Incompatible shapes: \[3\] vs. \[2\]"):
        tf.add(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 2.0]))
    check(tf.add(tf.constant([[1.0], [2.0]]), tf.constant([10.0, 20.0])),
          [[11.0, 21.0], [12.0, 22.0]])


def test_bool_arithmetic_is_rejected():
    with pytest.raises(errors.InvalidArgumentError, match="bool"):
        tf.add(tf.constant([True]), tf.constant([False]))


def test_integer_negative_power_raises():
    with pytest.raises(errors.InvalidArgumentError, match="negative"):
        tf.pow(tf.constant([2]), tf.constant([-1]))


def test_string_add_concatenates_and_equal_compares():
    result = tf.add(tf.constant(["a", "b"]), "x")
    assert list(result.numpy()) == [b"ax", b"bx"]
    check(tf.equal(tf.constant(["a", "b"]), "b"), [False, True], tf.bool)


def test_scalar_string_add_is_a_scalar_string_tensor_eager_and_in_graphs():
    # TF: tf.constant("a") + tf.constant("b") -> <tf.Tensor: shape=(), dtype=string,
    # numpy=b'ab'>; in graphs too (tensorflow/docs guide/function.ipynb adds strings).
    result = tf.constant("a") + tf.constant("b")
    assert result.dtype == tf.string and result.shape == () and result.numpy() == b"ab"
    with tf.Graph().as_default():
        text = tf.compat.v1.placeholder(tf.string, [])
        doubled = text + text
        assert doubled.dtype == tf.string and doubled.shape == ()
        with tf.compat.v1.Session() as sess:
            assert sess.run(doubled, {text: "a"}) == b"aa"


# ---------------------------------------------------------------- comparisons, logic, bits


@pytest.mark.parametrize("path,reference", [
    ("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
    ("less_equal", np.less_equal), ("greater", np.greater),
    ("greater_equal", np.greater_equal)])
def test_comparisons(path, reference):
    a, b = np.array([1, 2, 3], np.int32), np.array([2, 2, 2], np.int32)
    check(_lookup(path)(a, b), reference(a, b), tf.bool)
    check(_lookup(path)(tf.constant(a), 2), reference(a, 2), tf.bool)


def test_logical_ops_need_bool():
    a, b = np.array([True, True, False]), np.array([True, False, False])
    check(tf.logical_and(a, b), a & b, tf.bool)
    check(tf.logical_or(a, b), a | b, tf.bool)
    check(tf.math.logical_xor(a, b), a ^ b, tf.bool)
    check(tf.logical_not(a), ~a, tf.bool)
    with pytest.raises(errors.InvalidArgumentError, match="bool"):
        tf.logical_and(tf.constant([1]), tf.constant([1]))


def test_bitwise_ops():
    a, b = np.array([12, 10], np.int32), np.array([10, 3], np.int32)
    check(tf.bitwise.bitwise_and(a, b), a & b, tf.int32)
    check(tf.bitwise.bitwise_or(a, b), a | b, tf.int32)
    check(tf.bitwise.bitwise_xor(a, b), a ^ b, tf.int32)
    check(tf.bitwise.invert(a), ~a, tf.int32)
    check(tf.bitwise.left_shift(a, 1), a << 1, tf.int32)
    check(tf.bitwise.right_shift(a, 1), a >> 1, tf.int32)


# ---------------------------------------------------------------- n-ary, cast, complex


def test_add_n_and_accumulate_n():
    parts = [np.full((2, 2), i, np.float32) for i in range(1, 4)]
    check(tf.add_n(parts), sum(parts), tf.float32)
    check(tf.math.add_n([tf.constant([1, 2])]), [1, 2], tf.int32)
    check(tf.accumulate_n(parts, shape=[2, 2], tensor_dtype=tf.float32), sum(parts))
    with pytest.raises(errors.InvalidArgumentError, match="same size and shape"):
        tf.add_n([tf.constant([1.0]), tf.constant([1.0, 2.0])])
    with pytest.raises(ValueError):
        tf.add_n([])
    with pytest.raises(errors.InvalidArgumentError):
        tf.add_n([tf.constant([1.0]), tf.constant([1.0], dtype=tf.float64)])


@pytest.mark.parametrize("value,dtype,expected", [
    ([1.7, -1.7, 2.5], tf.int32, [1, -1, 2]),
    ([0.0, 0.5, -2.0], tf.bool, [False, True, True]),
    ([True, False], tf.float32, [1.0, 0.0]),
    ([1, 2], tf.float64, [1.0, 2.0]),
    ([3.5], "float16", [3.5]),
])
def test_cast(value, dtype, expected):
    result = tf.cast(tf.constant(value), dtype)
    check(result, expected, tf.as_dtype(dtype))


def test_cast_aliases_and_complex_to_real():
    check(tf.to_float(tf.constant([1, 2])), [1.0, 2.0], tf.float32)
    check(tf.to_int32(tf.constant([1.9])), [1], tf.int32)
    check(tf.to_int64(tf.constant([1.9])), [1], tf.int64)
    check(tf.to_double(tf.constant([1])), [1.0], tf.float64)
    assert tf.to_bfloat16(tf.constant([1.0])).dtype == tf.bfloat16
    check(tf.cast(tf.complex(1.5, 2.0), tf.float32), 1.5, tf.float32)
    x = tf.constant([1.0])
    assert tf.cast(x, tf.float32).dtype == tf.float32
    with pytest.raises(errors.UnimplementedError):
        tf.cast(tf.constant(["1"]), tf.float32)


def test_saturate_cast_clamps():
    check(tf.saturate_cast(tf.constant([-5.0, 300.0, 7.9]), tf.uint8), [0, 255, 7], tf.uint8)
    result = tf.saturate_cast(tf.constant([1e10, -1e10]), tf.int32)
    check(result, [2147483520, -2147483648], tf.int32)


def test_complex_parts():
    z = tf.complex(tf.constant([1.0, -2.0]), tf.constant([2.0, 0.0]))
    assert z.dtype == tf.complex64
    assert tf.complex(tf.constant([1.0], tf.float64), tf.constant([1.0], tf.float64)).dtype \
        == tf.complex128
    check(tf.math.real(z), [1.0, -2.0], tf.float32)
    check(tf.math.imag(z), [2.0, 0.0], tf.float32)
    check(tf.math.conj(z), np.array([1 - 2j, -2 + 0j], np.complex64), tf.complex64)
    check(tf.math.angle(z), np.angle(np.array([1 + 2j, -2 + 0j])), tf.float32)
    check(tf.abs(z), [np.sqrt(5.0), 2.0], tf.float32)
    check(tf.math.real(tf.constant([3.0])), [3.0], tf.float32)
    check(tf.math.angle(tf.constant([-1.0, 1.0])), [np.pi, 0.0])


def test_scalar_mul_and_polyval():
    check(tf.scalar_mul(2, tf.constant([1.5, 2.0])), [3.0, 4.0], tf.float32)
    with pytest.raises(ValueError, match="Only scalar multiply"):
        tf.scalar_mul(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]))
    x = np.array([1.0, 2.0], np.float32)
    check(tf.math.polyval([1.0, 0.0, 3.0], tf.constant(x)), x ** 2 + 3)


# ---------------------------------------------------------------- reductions

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1


def test_reduction_v1_keywords_and_positional_forms():
    a = tf.constant(A)
    check(tf.reduce_sum(a, reduction_indices=[1], keep_dims=True), A.sum(1, keepdims=True))
    check(tf.reduce_mean(a, 1, True), A.mean(1, keepdims=True))
    check(tf.reduce_max(a, None, False, "m", [2]), A.max(2))
    check(tf_v1.reduce_sum(a, axis=tf.constant([0, 1])), A.sum((0, 1)))
    with pytest.raises(ValueError, match="both 'axis' and 'reduction_indices'"):
        tf.reduce_sum(a, axis=0, reduction_indices=0)
    with pytest.raises(ValueError, match="both 'keepdims' and 'keep_dims'"):
        tf.reduce_sum(a, keepdims=True, keep_dims=True)
    check(tf_v2.reduce_sum(a, 0, True), A.sum(0, keepdims=True))


def test_integer_reductions_keep_dtype():
    ints = tf.constant([[1, 2], [4, 8]])
    check(tf.reduce_sum(ints), 15, tf.int32)
    check(tf.reduce_mean(ints), 3, tf.int32)
    check(tf.reduce_mean(tf.constant([-1, -2])), -1, tf.int32)
    check(tf.reduce_prod(ints, 0), [4, 16], tf.int32)
    check(tf.reduce_max(ints, 1), [2, 8], tf.int32)
    check(tf.reduce_sum(tf.constant([1, 2], dtype=tf.int64)), 3, tf.int64)
    with pytest.raises(TypeError, match="real or complex"):
        tf.math.reduce_variance(ints)


def test_bool_reductions():
    b = np.array([[True, False], [True, True]])
    check(tf.reduce_all(b), False, tf.bool)
    check(tf.reduce_any(b, 1), [True, True], tf.bool)
    check(tf.reduce_all(b, axis=0), [True, False], tf.bool)
    with pytest.raises(errors.InvalidArgumentError, match="bool"):
        tf.reduce_all(tf.constant([1, 0]))
    with pytest.raises(errors.InvalidArgumentError, match="bool"):
        tf.reduce_sum(tf.constant([True]))


def test_empty_reductions():
    empty = tf.constant(np.zeros((0, 3), np.float32))
    check(tf.reduce_max(empty, 0), [-np.inf] * 3)
    check(tf.reduce_min(empty, 0), [np.inf] * 3)
    check(tf.reduce_sum(empty, 0), [0.0] * 3)
    assert np.all(np.isnan(tf.reduce_mean(empty, 0).numpy()))
    check(tf.reduce_max(tf.constant(np.zeros(0, np.int32))), np.iinfo(np.int32).min, tf.int32)


def test_bad_reduction_axis():
    with pytest.raises(errors.InvalidArgumentError, match="Invalid reduction dimension"):
        tf.reduce_sum(tf.constant([[1.0]]), axis=2)
    with pytest.raises(errors.InvalidArgumentError, match="duplicate"):
        tf.reduce_sum(tf.constant([[1.0]]), axis=[0, -2])


def test_count_nonzero_v1_and_v2_forms():
    x = np.array([[0, 1, 2], [0, 0, 3]], np.float32)
    check(tf.count_nonzero(x), 3, tf.int64)
    check(tf.count_nonzero(x, reduction_indices=1, keep_dims=True), [[2], [1]], tf.int64)
    check(tf.math.count_nonzero(input=x, axis=0, dtype=tf.int32), [0, 1, 2], tf.int32)
    check(tf.math.count_nonzero(tf.constant(["", "a", "bc"])), 2, tf.int64)


def test_argmax_argmin():
    x = np.array([[1, 5, 5], [7, 0, 7]], np.float32)
    check(tf.argmax(x), [1, 0, 1], tf.int64)
    check(tf.argmax(x, 1), [1, 0], tf.int64)
    check(tf.argmin(x, axis=1, output_type=tf.int32), [0, 1], tf.int32)
    check(tf_v1.argmax(x, dimension=1), [1, 0], tf.int64)
    check(tf_v2.argmax(x, 1, tf.int32), [1, 0], tf.int32)
    check(tf_v1.argmin(x, 0, "name"), [0, 1, 0], tf.int64)
    with pytest.raises(ValueError, match="both 'axis' and 'dimension'"):
        tf_v1.argmax(x, axis=0, dimension=0)
    with pytest.raises(errors.InvalidArgumentError):
        tf.argmax(x, 2)


def test_tf1_arg_max_arg_min_take_a_required_dimension():
    # TF 1.15 tf.arg_min / tf.arg_max (aymericdamien nearest_neighbor.py: tf.arg_min(d, 0))
    x = np.array([[1, 5, 5], [7, 0, 7]], np.float32)
    check(tf_v1.arg_min(x, 0), [0, 1, 0], tf.int64)
    check(tf_v1.arg_max(x, 1), [1, 0], tf.int64)
    check(tf_v1.arg_max(x, dimension=0, output_type=tf.int32), [1, 0, 1], tf.int32)
    with pytest.raises(TypeError):
        tf_v1.arg_min(x)
    assert not hasattr(tf_v2, "arg_min")


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_cumprod(exclusive, reverse):
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)

    def reference(fn, fill):
        v = x[:, ::-1] if reverse else x
        out = fn(v, axis=1)
        if exclusive:
            out = np.concatenate([np.full((2, 1), fill), out[:, :-1]], axis=1)
        return out[:, ::-1] if reverse else out

    check(tf.cumsum(x, axis=1, exclusive=exclusive, reverse=reverse),
          reference(np.cumsum, 0), tf.int32)
    check(tf.math.cumprod(x, 1, exclusive, reverse), reference(np.cumprod, 1), tf.int32)


def test_cumulative_logsumexp():
    x = np.array([0.0, 1.0, 2.0], np.float32)
    check(tf.math.cumulative_logsumexp(x), np.logaddexp.accumulate(x))


def test_segment_ops():
    data = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
    ids = np.array([0, 0, 2, 2])
    check(tf.math.segment_sum(data, ids), [[4, 6], [0, 0], [12, 14]], tf.float32)
    check(tf.math.segment_mean(data, ids), [[2, 3], [0, 0], [6, 7]])
    check(tf.math.segment_max(data, ids), [[3, 4], [0, 0], [7, 8]])
    check(tf.math.segment_min(data, ids), [[1, 2], [0, 0], [5, 6]])
    check(tf.math.segment_prod(data, ids), [[3, 8], [1, 1], [35, 48]])
    check(tf.math.segment_mean(tf.constant([1, 2, 4]), [0, 0, 1]), [1, 4], tf.int32)
    with pytest.raises(errors.InvalidArgumentError, match="sorted"):
        tf.math.segment_sum(data, [1, 0, 0, 0])


def test_unsorted_segment_ops():
    data = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    ids = np.array([2, 0, 2, -1])
    check(tf.math.unsorted_segment_sum(data, ids, 3), [2, 0, 4], tf.float32)
    check(tf.unsorted_segment_sum(data, ids, num_segments=tf.constant(3)), [2, 0, 4])
    lowest = np.finfo(np.float32).min
    check(tf.math.unsorted_segment_max(data, ids, 3), [2, lowest, 3])
    check(tf.math.unsorted_segment_min(data, ids, 3), [2, np.finfo(np.float32).max, 1])
    check(tf.math.unsorted_segment_mean(data, ids, 3), [2, 0, 2])
    check(tf.math.unsorted_segment_prod(data, ids, 3), [2, 1, 3])
    check(tf.math.unsorted_segment_sqrt_n(data, ids, 3), [2, 0, 4 / np.sqrt(2)])
    check(tf.math.unsorted_segment_sum(np.ones((2, 2, 3), np.int32), [[0, 1], [1, 1]], 2),
          [[1, 1, 1], [3, 3, 3]], tf.int32)
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        tf.math.unsorted_segment_sum(data, [0, 1, 5, 0], 3)


def test_bincount():
    arr = np.array([1, 1, 3, 0], np.int32)
    check(tf.math.bincount(arr), [1, 2, 0, 1], tf.int32)
    check(tf.math.bincount(arr, minlength=6), [1, 2, 0, 1, 0, 0], tf.int32)
    check(tf.math.bincount(arr, maxlength=2), [1, 2], tf.int32)
    check(tf.math.bincount(arr, weights=np.array([0.5, 1, 1, 2], np.float32)),
          [2, 1.5, 0, 1], tf.float32)
    check(tf.math.bincount(np.array([[1, 1], [0, 2]], np.int32), axis=-1),
          [[0, 2, 0], [1, 0, 1]], tf.int32)
    check(tf.math.bincount(arr, binary_output=True), [1, 1, 0, 1], tf.int32)
    with pytest.raises(errors.InvalidArgumentError, match="non-negative"):
        tf.math.bincount(tf.constant([-1]))


# ---------------------------------------------------------------- matmul family


def test_matmul_variants():
    a = np.random.RandomState(0).randn(2, 3).astype(np.float32)
    b = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    check(tf.matmul(a, b), a @ b, tf.float32)
    check(tf.linalg.matmul(b, a, transpose_a=True, transpose_b=True), b.T @ a.T)
    check(tf.matmul(a, a, adjoint_b=True), a @ a.T)
    check(tf.matmul(a, b, a_is_sparse=True, b_is_sparse=True), a @ b)
    batch = np.random.RandomState(2).randn(5, 2, 3).astype(np.float32)
    check(tf.matmul(batch, b), batch @ b, rtol=1e-5, atol=1e-5)
    ints = np.array([[1, 2], [3, 4]], np.int32)
    check(tf.matmul(ints, ints), ints @ ints, tf.int32)
    with pytest.raises(errors.InvalidArgumentError, match="size-incompatible"):
        tf.matmul(a, a)
    with pytest.raises(errors.InvalidArgumentError):
        tf.matmul(tf.constant(a), tf.constant(b, dtype=tf.float64))
    with pytest.raises(errors.InvalidArgumentError, match="rank >= 2"):
        tf.matmul(tf.constant([1.0]), tf.constant([1.0]))
    with pytest.raises(ValueError, match="transpose_a and adjoint_a"):
        tf.matmul(a, b, transpose_a=True, adjoint_a=True)


def test_matmul_complex_adjoint():
    z = np.array([[1 + 1j, 2], [0, 1j]], np.complex64)
    check(tf.matmul(z, z, adjoint_a=True), z.conj().T @ z, tf.complex64)


def test_tensordot_and_einsum():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    check(tf.tensordot(a, b, 1), np.tensordot(a, b, 1))
    check(tf.tensordot(a, b, [[1, 2], [1, 0]]), np.tensordot(a, b, [[1, 2], [1, 0]]))
    check(tf.linalg.tensordot(a, b, [2, 0]), np.tensordot(a, b, [[2], [0]]))
    check(tf.einsum("ijk,kl->ijl", a, b), np.einsum("ijk,kl->ijl", a, b))
    check(tf.linalg.einsum("ij,ij->i", b, b), np.einsum("ij,ij->i", b, b))
    with pytest.raises(errors.InvalidArgumentError):
        tf.einsum("ij,jk->ik", tf.constant(b), tf.constant(b, dtype=tf.float64))


# ---------------------------------------------------------------- operators


def test_arithmetic_operators():
    a, b = tf.constant(X), tf.constant(Y)
    check(a + b, X + Y, tf.float32)
    check(a - b, X - Y)
    check(a * b, X * Y)
    check(a / b, X / Y)
    check(a // b, np.floor(X / Y))
    check(a % b, np.mod(X, Y))
    check(abs(a) ** b, np.abs(X) ** Y)
    check(-a, -X)
    check(abs(a), np.abs(X))
    check(a @ tf.constant(Y.T), X @ Y.T)
    check(1 - a, 1 - X)
    check(2 * a, 2 * X)
    check(1 / b, 1 / Y)
    check(2 ** b, 2 ** Y, rtol=1e-5)
    check(10 // tf.constant([3, 4]), [3, 2], tf.int32)
    check(10 % tf.constant([3, 4]), [1, 2], tf.int32)


def test_numpy_arrays_on_either_side():
    a = tf.constant([1.0, 2.0])
    for result in (np.ones(2) + a, a + np.ones(2), np.ones(2) * a, np.ones(2) - a):
        assert isinstance(result, tf.Tensor) and result.dtype == tf.float32
    check(np.ones(2) - a, [0.0, -1.0])
    check(np.ones((2, 2), np.float32) @ tf.constant([[1.0], [2.0]]), [[3.0], [3.0]])
    check(np.array([1.0, 3.0]) > a, [False, True], tf.bool)


def test_comparison_and_logical_operators():
    a = tf.constant([1, 2, 3])
    check(a < 2, [True, False, False], tf.bool)
    check(a <= 2, [True, True, False])
    check(a > 2, [False, False, True])
    check(a >= 2, [False, True, True])
    check(2 < a, [False, False, True])
    t, f = tf.constant([True, True]), tf.constant([True, False])
    check(t & f, [True, False], tf.bool)
    check(t | f, [True, True], tf.bool)
    check(t ^ f, [False, True], tf.bool)
    check(~f, [False, True], tf.bool)
    check(~a, ~np.array([1, 2, 3]), tf.int32)
    check(a & 6, [0, 2, 2], tf.int32)
    check(6 | a, [7, 6, 7], tf.int32)
    with pytest.raises(errors.InvalidArgumentError):
        ~tf.constant([1.0])


def test_operator_errors_are_tf_errors():
    with pytest.raises(errors.InvalidArgumentError):
        tf.constant([1.0]) + tf.constant([1.0], dtype=tf.float64)
    with pytest.raises(errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.constant([1.0, 2.0]) * tf.constant([1.0, 2.0, 3.0])
    with pytest.raises((TypeError, ValueError)):
        tf.constant([1.0]) + object()


def test_operator_returns_not_implemented_for_reflecting_objects():
    class Other(object):
        def __radd__(self, other):
            return "reflected"
    assert tf.constant([1.0]) + Other() == "reflected"


def test_eq_is_identity_in_v1():
    a = tf.constant([1, 2])
    b = tf.constant([1, 2])
    assert (a == a) is True and (a == b) is False and (a != b) is True
    assert {a: 1}[a] == 1


def test_eq_is_elementwise_in_v2(v2_flavor):
    a = tf.constant([1, 2])
    check(a == tf.constant([1, 3]), [True, False], tf.bool)
    check(a != 1, [False, True], tf.bool)
    assert (a == None) is False and (a != None) is True  # noqa: E711
    check(a == tf.constant([1, 2, 3]), False, tf.bool)
    check(a != tf.constant([1, 2, 3]), True, tf.bool)
    with pytest.raises(TypeError):
        hash(a)


def test_operators_work_for_int_and_float16():
    h = tf.constant([1.0, 2.0], dtype=tf.float16)
    check(h + h, [2.0, 4.0], tf.float16)
    i = tf.constant([5, 6], dtype=tf.int64)
    check(i - i, [0, 0], tf.int64)
    check(i / i, [1.0, 1.0], tf.float64)


def test_ops_record_in_graph_mode():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.reduce_sum(x * 2.0 + 1.0, axis=1, keepdims=True)
        m = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(x, 1), 0), tf.float32))
        assert y.shape.as_list() == [None, 1]
        assert m.shape.as_list() == []
        with tf.Session() as sess:
            out, mean = sess.run([y, m], {x: X[:, :3].reshape(2, 3)})
    np.testing.assert_allclose(out, (X * 2 + 1).sum(1, keepdims=True), rtol=1e-6)
    assert mean == pytest.approx(np.mean(np.argmax(X, 1) == 0))


def test_graph_mode_shape_errors_are_value_errors():
    graph = tf.Graph()
    with graph.as_default():
        a = tf.placeholder(tf.float32, [2, 3])
        with pytest.raises(ValueError):
            tf.matmul(a, a)
        with pytest.raises(ValueError):
            tf.reduce_sum(a, axis=3)
        assert isinstance(a == a, bool)


def test_exported_paths():
    assert tf.math.divide is tf.truediv and tf.div is tf_v1.div
    assert tf_v1.log is tf.math.log and not hasattr(tf_v2, "log")
    assert tf_v2.math.argmax is not tf_v1.argmax
    assert tf.nn.sigmoid is tf.sigmoid and tf.nn.tanh is tf.tanh
    assert tf_v1.floor_div is tf.floordiv
    assert not hasattr(tf_v2, "to_float")


def test_value_dependent_ops_build_in_graph_mode():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        ids = tf.placeholder(tf.int32, [None])
        unsorted = tf.unsorted_segment_sum(x, ids, 3)
        by_id = tf.math.segment_max(x, ids)
        counts = tf.math.bincount(ids, minlength=4)
        relu = tf.maximum(x, 0.0)
        assert unsorted.shape.as_list() == [3, 2]
        assert by_id.shape.as_list() == [None, 2]
        with tf.Session() as sess:
            values = sess.run([unsorted, by_id, counts, relu],
                              {x: [[1.0, -2.0], [3.0, 4.0]], ids: [0, 2]})
    np.testing.assert_allclose(values[0], [[1, -2], [0, 0], [3, 4]])
    np.testing.assert_allclose(values[1], [[1, -2], [0, 0], [3, 4]])
    np.testing.assert_array_equal(values[2], [1, 0, 1, 0])
    np.testing.assert_allclose(values[3], [[1, 0], [3, 4]])


@pytest.mark.parametrize("fn", [tf.add, tf.subtract, tf.multiply])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32, tf.uint8, tf.int64])
def test_eager_fast_path_of_arithmetic_ops_agrees_with_the_op(fn, dtype):
    """tf.add/subtract/multiply of two eager tensors of one dtype skip the operand rules;
    the result (values, dtype, wrapping overflow) is the op's own."""
    x = tf.constant([[250, 3, 7]], dtype)
    y = tf.constant([[9], [2]], dtype)
    fast, general = fn(x, y), tf.convert_to_tensor(fn._tfcompat_impl(x, y))
    assert fast.dtype == general.dtype == dtype
    np.testing.assert_array_equal(_np(fast), _np(general))


def test_eager_fast_path_errors_are_tf_errors():
    with pytest.raises(errors.InvalidArgumentError, match=r"Incompatible shapes: \[3\] vs. \[2\]"):
        tf.add(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 2.0]))
    with pytest.raises(errors.InvalidArgumentError, match="float32 tensor but is a int32"):
        tf.subtract(tf.constant([1.0]), tf.constant([1]))
    with pytest.raises(errors.InvalidArgumentError, match="does not support dtype bool"):
        tf.multiply(tf.constant([True]), tf.constant([True]))
    assert tf.add(tf.constant(["a"]), tf.constant(["b"])).numpy()[0] == b"ab"


def test_maximum_and_minimum_send_the_gradient_at_ties_to_x_as_tf():
    """TF's _MaximumGrad / _MinimumGrad: x gets the gradient where x >= y (x <= y)."""
    x = tf.Variable([0.0, 1.0, 2.0])
    y = tf.Variable([0.0, 0.5, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        high, low = tf.maximum(x, y), tf.minimum(x, y)
    assert tape.gradient(high, x).numpy().tolist() == [1.0, 1.0, 0.0]
    assert tape.gradient(high, y).numpy().tolist() == [0.0, 0.0, 1.0]
    assert tape.gradient(low, x).numpy().tolist() == [1.0, 0.0, 1.0]
    assert tape.gradient(low, y).numpy().tolist() == [0.0, 1.0, 0.0]
    both_nan = tf.maximum(tf.constant([np.nan, 1.0]), tf.constant([1.0, np.nan]))
    assert np.isnan(both_nan.numpy()).all()


def test_tensor_equality_follows_tf2_behaviour_and_where_the_tensor_lives():
    """TF's Tensor.__eq__: elementwise under TF2 behaviour for eager tensors and inside
    tf.function; object identity in a plain tf.Graph and under TF1 behaviour."""
    from tfcompat import _api
    behaviour = _api.flavor()
    try:
        _api.set_behavior("v2")
        a, b = tf.constant([1, 2]), tf.constant([1, 3])
        assert (a == b).numpy().tolist() == [True, False]
        with tf.Graph().as_default():
            x, y = tf.constant([1, 2]), tf.constant([1, 2])
            assert (x == y) is False and (x == x) is True and x in [y, x]
        assert tf.function(lambda u, v: u == v)(a, b).numpy().tolist() == [True, False]
        _api.set_behavior("v1")
        assert (a == b) is False and (a == a) is True
    finally:
        _api.set_behavior(behaviour)
