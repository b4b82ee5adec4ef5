"""SparseTensor, IndexedSlices and the basic sparse ops, against dense numpy."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.ops import sparse_ops

v1 = tf.compat.v1

DENSE = np.array([[0, 3, 0], [0, 0, 0], [4, 0, 5]], np.float32)


def _sparse():
    return tf.SparseTensor(indices=[[0, 1], [2, 0], [2, 2]], values=[3.0, 4.0, 5.0],
                           dense_shape=[3, 3])


def test_sparse_tensor_properties():
    sp = _sparse()
    assert sp.indices.dtype == tf.int64 and sp.dense_shape.dtype == tf.int64
    assert sp.dtype == tf.float32 and sp.shape.as_list() == [3, 3]
    assert sp.get_shape().as_list() == [3, 3]
    assert "SparseTensor(indices=" in repr(sp)
    assert tf.sparse.SparseTensor is tf.SparseTensor
    value = v1.SparseTensorValue([[0, 0]], [1], [2, 2])
    assert tf.SparseTensor.from_value(value).shape.as_list() == [2, 2]
    assert sp.with_values(tf.constant([1, 2, 3])).dtype == tf.int32


def test_sparse_tensor_validation():
    with pytest.raises(ValueError):
        tf.SparseTensor([[0, 1]], [1.0], [3])  # 2 index columns, rank-1 shape
    with pytest.raises(ValueError):
        tf.SparseTensor([[0], [1]], [1.0], [3])
    with pytest.raises(ValueError):
        tf.SparseTensor([0, 1], [1.0, 2.0], [3])


@pytest.mark.parametrize("to_dense", [tf.sparse.to_dense, v1.sparse_tensor_to_dense])
def test_to_dense(to_dense):
    np.testing.assert_array_equal(to_dense(_sparse()).numpy(), DENSE)
    filled = to_dense(_sparse(), default_value=-1.0).numpy()
    np.testing.assert_array_equal(filled, np.where(DENSE == 0, -1, DENSE))
    np.testing.assert_array_equal(to_dense(v1.SparseTensorValue([[1]], [7], [3])).numpy(),
                                  [0, 7, 0])


def test_to_dense_validates_indices():
    unordered = tf.SparseTensor([[2, 0], [0, 1]], [4.0, 3.0], [3, 3])
    with pytest.raises(errors.InvalidArgumentError, match="out of order"):
        tf.sparse.to_dense(unordered)
    dense = tf.sparse.to_dense(unordered, validate_indices=False).numpy()
    assert dense[2, 0] == 4 and dense[0, 1] == 3
    with pytest.raises(errors.InvalidArgumentError, match="repeated"):
        tf.sparse.to_dense(tf.SparseTensor([[1], [1]], [1, 2], [3]))
    with pytest.raises(errors.InvalidArgumentError, match="out of bounds"):
        tf.sparse.to_dense(tf.SparseTensor([[5]], [1], [3]), validate_indices=False)


def test_sparse_to_dense_v1():
    np.testing.assert_array_equal(v1.sparse_to_dense([1, 3], [5], 1.0).numpy(),
                                  [0, 1, 0, 1, 0])
    np.testing.assert_array_equal(v1.sparse_to_dense(2, [4], 9, default_value=-1).numpy(),
                                  [-1, -1, 9, -1])
    np.testing.assert_array_equal(
        v1.sparse_to_dense([[0, 0], [1, 1]], [2, 2], [5, 6]).numpy(), [[5, 0], [0, 6]])


def test_from_dense_and_reorder():
    sp = tf.sparse.from_dense(DENSE)
    assert sp.indices.numpy().tolist() == [[0, 1], [2, 0], [2, 2]]
    assert sp.values.numpy().tolist() == [3, 4, 5] and sp.dense_shape.numpy().tolist() == [3, 3]
    strings = tf.sparse.from_dense(tf.constant(["", "a", "b"]))
    assert strings.values.numpy().tolist() == [b"a", b"b"]
    shuffled = tf.SparseTensor([[2, 2], [0, 1], [2, 0]], [5.0, 3.0, 4.0], [3, 3])
    for reorder in (tf.sparse.reorder, v1.sparse_reorder):
        r = reorder(shuffled)
        assert r.indices.numpy().tolist() == [[0, 1], [2, 0], [2, 2]]
        assert r.values.numpy().tolist() == [3, 4, 5]


def test_reduce_sum():
    sp = _sparse()
    np.testing.assert_allclose(tf.sparse.reduce_sum(sp).numpy(), DENSE.sum())
    np.testing.assert_allclose(tf.sparse.reduce_sum(sp, axis=1).numpy(), DENSE.sum(1))
    np.testing.assert_allclose(tf.sparse.reduce_sum(sp, -2, keepdims=True).numpy(),
                               DENSE.sum(0, keepdims=True))
    np.testing.assert_allclose(v1.sparse_reduce_sum(sp, reduction_axes=[0, 1],
                                                    keep_dims=True).numpy(), [[12]])
    with pytest.raises(NotImplementedError):
        sparse_ops.sparse_reduce_sum_v2(sp, output_is_sparse=True)
    with pytest.raises(errors.InvalidArgumentError):
        tf.sparse.reduce_sum(sp, axis=2)


@pytest.mark.parametrize("adjoint_a,adjoint_b", [(False, False), (True, False), (False, True),
                                                 (True, True)])
def test_sparse_dense_matmul(adjoint_a, adjoint_b):
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = b.T if adjoint_b else b
    expected = (DENSE.T if adjoint_a else DENSE) @ (b.T if adjoint_b else b)
    for matmul in (tf.sparse.sparse_dense_matmul, v1.sparse_tensor_dense_matmul,
                   v1.sparse.matmul):
        out = matmul(_sparse(), b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)
        np.testing.assert_allclose(out.numpy(), expected)
    dense_a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(dense_a, _sparse()).numpy(),
                               dense_a @ DENSE)


def test_sparse_dense_matmul_errors():
    with pytest.raises(errors.InvalidArgumentError, match="inner dimension"):
        tf.sparse.sparse_dense_matmul(_sparse(), np.ones((4, 2), np.float32))
    with pytest.raises(errors.InvalidArgumentError, match="dtype"):
        tf.sparse.sparse_dense_matmul(_sparse(), np.ones((3, 2), np.float64))


def test_indexed_slices():
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([2, 2]),
                         tf.constant([3, 2]))
    assert s.dtype == tf.float32 and s.shape.as_list() == [3, 2]
    np.testing.assert_allclose(tf.convert_to_tensor(s).numpy(), [[0, 0], [0, 0], [4, 6]])
    np.testing.assert_allclose(tf.reshape(s, [-1]).numpy(), [0, 0, 0, 0, 4, 6])
    assert "IndexedSlices(indices=" in repr(s)
    with pytest.raises(ValueError, match="dense_shape"):
        tf.convert_to_tensor(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])))


def test_keras_backend_is_sparse_and_to_dense():
    sparse = tf.SparseTensor(indices=[[0, 1]], values=[3.0], dense_shape=[2, 2])
    assert tf.keras.backend.is_sparse(sparse)
    assert not tf.keras.backend.is_sparse(tf.ones([2]))
    assert tf.keras.backend.to_dense(sparse).numpy().tolist() == [[0.0, 3.0], [0.0, 0.0]]
    dense = tf.ones([2])
    assert tf.keras.backend.to_dense(dense) is dense
