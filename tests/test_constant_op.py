"""tf.constant (TF1 and TF2 forms): dtypes, shapes, fills, tensors, placement, errors."""
import sys

import numpy as np
import pytest

import tfcompat as tf

v1 = tf.compat.v1
v2 = sys.modules["tfcompat.compat.v2"]  # tf.compat.v2 is not an attribute yet


CASES = [
    ("int", lambda c: c(3), np.array(3, np.int32)),
    ("float", lambda c: c(2.5), np.array(2.5, np.float32)),
    ("bool", lambda c: c([True, False]), np.array([True, False])),
    ("nested", lambda c: c([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]], np.int32)),
    ("mixed_int_float", lambda c: c([1, 2.5]), np.array([1, 2.5], np.float32)),
    ("big_int", lambda c: c(2 ** 40), np.array(2 ** 40, np.int64)),
    ("dtype", lambda c: c([1, 2], dtype=tf.float64), np.array([1, 2], np.float64)),
    ("dtype_string_name", lambda c: c(1, "int64"), np.array(1, np.int64)),
    ("numpy_keeps_dtype", lambda c: c(np.arange(3, dtype=np.int64)), np.arange(3)),
    ("numpy_float64", lambda c: c(np.ones(2)), np.ones(2)),
    ("numpy_cast", lambda c: c(np.ones(2), tf.float32), np.ones(2, np.float32)),
    ("shape_reshape", lambda c: c([1, 2, 3, 4, 5, 6], shape=[2, 3]),
     np.arange(1, 7, dtype=np.int32).reshape(2, 3)),
    ("shape_fill_scalar", lambda c: c(0.5, shape=(2, 2)), np.full((2, 2), .5, np.float32)),
    ("shape_fill_one_element", lambda c: c([7], shape=[3]), np.full(3, 7, np.int32)),
    ("tensor_value", lambda c: c(tf.constant([1, 2])), np.array([1, 2], np.int32)),
    ("list_of_tensors", lambda c: c([tf.constant(1.0), 2.0]), np.array([1, 2], np.float32)),
    ("empty", lambda c: c([]), np.zeros(0, np.float32)),
    ("string", lambda c: c("abc"), np.array(b"abc", dtype=object)),
    ("string_list", lambda c: c(["a", b"b"]), np.array([b"a", b"b"], dtype=object)),
]


@pytest.mark.parametrize("constant", [v1.constant, v2.constant], ids=["v1", "v2"])
@pytest.mark.parametrize("name,call,expected", CASES, ids=[c[0] for c in CASES])
def test_constant(constant, name, call, expected):
    result = call(constant)
    value = np.asarray(result.numpy(), dtype=object if expected.dtype == object else None)
    assert value.dtype == expected.dtype and value.shape == expected.shape
    assert (value == expected).all()
    assert result.shape.as_list() == list(expected.shape)


def test_v1_pads_with_last_element_and_verify_shape():
    assert v1.constant([1, 2], shape=[4]).numpy().tolist() == [1, 2, 2, 2]
    with pytest.raises(ValueError, match="Too many elements"):
        v1.constant([1, 2, 3], shape=[2])
    with pytest.raises(TypeError):
        v1.constant([1, 2, 3, 4], shape=[2, 2], verify_shape=True)
    assert v1.constant([[1, 2]], shape=[1, 2], verify_shape=True).shape.as_list() == [1, 2]


def test_v2_shape_mismatch_raises():
    with pytest.raises(TypeError, match="elements"):
        v2.constant([1, 2], shape=[4])


def test_errors():
    with pytest.raises(TypeError):
        tf.constant(1.5, dtype=tf.int32)
    with pytest.raises(TypeError):
        tf.constant(tf.constant([1]), dtype=tf.float32)
    with pytest.raises(TypeError):
        tf.constant([1, "a"])
    with pytest.raises(ValueError):
        tf.constant(1, shape=[-1])


def test_variable_value_is_a_snapshot_and_placement():
    v = tf.Variable([1.0, 2.0])
    c = tf.constant(v)
    v.assign([5.0, 5.0])
    assert c.numpy().tolist() == [1.0, 2.0]
    assert tf.constant(1.0).device == tf.zeros([1]).device
    with tf.device("/cpu:0"):
        assert tf.constant([1, 2]).device.endswith("CPU:0")


def test_exported_paths():
    from tfcompat import _api
    assert v1.constant is not v2.constant
    assert "constant" in _api.known_paths("v1") and "constant" in _api.known_paths("v2")


def test_printing_and_conversion_read_as_tf():
    """TF's texts: a multi-line tensor starts on a new line; a non-rectangular list raises
    TF's ValueError; composite tensors are tensors to tf.is_tensor; a known dimension prints
    as its number."""
    assert str(tf.constant([[1.0, 2.0], [3.0, 4.0]])) == (
        "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)")
    assert str(tf.constant([1.0, 2.0])) == "tf.Tensor([1. 2.], shape=(2,), dtype=float32)"
    with pytest.raises(ValueError, match="^Can't convert non-rectangular Python sequence to "
                                         "Tensor.$"):
        tf.constant([[1, 2], [3]])
    assert tf.is_tensor(tf.ragged.constant([[1], [2, 3]]))
    assert tf.is_tensor(tf.SparseTensor([[0, 0]], [1.0], [2, 2]))
    assert not tf.is_tensor([1, 2])
    dim = tf.constant([[1, 2, 3]]).shape[1]
    assert str(dim) == "3" and dim == 3


def test_numpy_is_a_copy_and_asarray_a_read_only_view_as_in_tf2():
    """TF 2's `numpy()` copies ("tensors are immutable"): changing that array leaves the
    tensor, and a dataset's cache holding it, as they were. `np.asarray` gives a read-only
    view; `np.array`, `copy=True` or another dtype give an array of their own."""
    t = tf.constant([1.0, 2.0])
    value = t.numpy()
    value *= 10.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    view = np.asarray(t)
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 5.0
    for own in (np.array(t), np.asarray(t, dtype=np.float64), t.__array__(copy=True)):
        own[0] = 7.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    cached = tf.data.Dataset.from_tensor_slices(np.ones((2, 3), np.float32)).cache()
    for _ in range(2):
        for row in cached:
            batch = row.numpy()
            np.testing.assert_array_equal(batch, [1.0, 1.0, 1.0])
            batch /= 255.0
    assert isinstance(tf.constant(3.0).numpy(), np.float32)


def test_tensor_shapes_convert_to_tensors_as_tf():
    """A fully known TensorShape converts to int32 dims (int64 if asked); a partly known one
    raises ValueError, another dtype TypeError (tf.reduce_prod(kernel.shape) in TF guides)."""
    shape = tf.TensorShape([2, 3])
    assert tf.convert_to_tensor(shape).dtype == tf.int32
    np.testing.assert_array_equal(tf.convert_to_tensor(shape).numpy(), [2, 3])
    assert int(tf.reduce_prod(shape)) == 6
    assert tf.convert_to_tensor(shape, tf.int64).dtype == tf.int64
    with pytest.raises(ValueError, match="partially known TensorShape"):
        tf.convert_to_tensor(tf.TensorShape([None, 3]))
    with pytest.raises(TypeError, match="Allowed dtypes are tf.int32 and tf.int64"):
        tf.convert_to_tensor(shape, tf.float32)


def test_tensor_repr_breaks_the_line_only_for_multi_line_arrays():
    assert repr(tf.constant([2, 3])) == \
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([2, 3], dtype=int32)>"
    assert repr(tf.constant([[1.0, 2.0], [3.0, 4.0]])).startswith(
        "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1., 2.],")


def test_format_gives_the_value_as_numpy_formats_it():
    """Real TF 2.21: "{}".format(t) formats t.numpy() (a 0-d array: Python's float repr)."""
    assert "{}".format(tf.constant(2.5)) == "2.5"
    assert "{}".format(tf.constant(2.3093991)) == "2.309399127960205"
    assert "{}".format(tf.constant([1.5, 2.0])) == "[1.5 2. ]"
    assert "{:.2f}".format(tf.constant(2.5)) == "2.50"
    assert "{:>8}".format(tf.constant(1.25)) == "    1.25"
    assert "{}".format(tf.constant("ab")) == "b'ab'"
    assert f"{tf.constant(3)}" == "3"
    assert "%s" % tf.constant(1.0) == "tf.Tensor(1.0, shape=(), dtype=float32)"
