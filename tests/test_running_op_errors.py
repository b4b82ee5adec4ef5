"""Errors name the TF op being run: check helpers word their messages for "{op}" and the op
decorator, graph nodes, the Tensor operators and `run_impl` put the op type there, so the
messages are TF's ("cannot compute AddV2 as input #1 ...") without op bodies naming
themselves."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.framework.ops import binary_operands, op, run_impl, same_dtype_tensors

tf1 = tf.compat.v1
c = tf.constant

_MISMATCH = "cannot compute %s as input #1(zero-based) was expected to be a float32 tensor " \
            "but is a int32 tensor"


@op(graph_name="TwoOperandProbe")
def _two_operand_probe(x, y, name=None):
    tx, ty = binary_operands(x, y)
    return tx + ty


@op(graph_name="ListProbe")
def _list_probe(values, name=None):
    return same_dtype_tensors(values)[0]


@op(graph_name="OuterProbe")
def _outer_probe(x, y, name=None):
    return run_impl(_two_operand_probe, x, y)


def test_name_running_op_fills_the_marker_once():
    error = errors.InvalidArgumentError("cannot compute {op} as input #1")
    errors.name_running_op(error, "AddV2")
    assert error.message == str(error) == "cannot compute AddV2 as input #1"
    errors.name_running_op(error, "Outer")      # an enclosing op leaves it as named
    assert str(error) == "cannot compute AddV2 as input #1"
    plain = TypeError("no marker here")
    errors.name_running_op(plain, "AddV2")
    assert plain.args == ("no marker here",)


def test_helper_errors_name_the_decorated_op_eagerly():
    with pytest.raises(errors.InvalidArgumentError, match="^%s$" % (
            _MISMATCH % "TwoOperandProbe").replace("(", r"\(").replace(")", r"\)")):
        _two_operand_probe(c(1.0), c(1))
    with pytest.raises(errors.InvalidArgumentError) as info:
        _list_probe([c([1.0]), c([1])])
    assert str(info.value) == "ListProbe: all inputs must have the same dtype; got float32 " \
                              "and int32"


def test_run_impl_names_the_inner_op():
    with pytest.raises(errors.InvalidArgumentError) as info:
        _outer_probe(c(1.0), c(1))
    assert str(info.value) == _MISMATCH % "TwoOperandProbe"


def test_helper_errors_name_the_op_while_a_graph_is_built():
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, 3])
        with pytest.raises(TypeError) as info:
            _two_operand_probe(x, c(1))
        assert str(info.value) == _MISMATCH % "TwoOperandProbe"
        with pytest.raises(TypeError) as info:
            _two_operand_probe(tf1.placeholder(tf.float32), c(1))     # unknown rank
        assert str(info.value) == _MISMATCH % "TwoOperandProbe"


def test_kernel_errors_in_session_run_name_the_op():
    with tf.Graph().as_default():
        indices = tf1.placeholder(tf.int32, [None])
        gathered = tf.gather(c([1, 2, 3]), indices)
        with tf1.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError) as info:
                sess.run(gathered, {indices: [7]})
    assert str(info.value).startswith("GatherV2: indices[0] = 7 is not in [0, 3)")
    assert info.value.op is gathered.op


@pytest.mark.parametrize("run, error_class, message", [
    # the Tensor operators call op implementations directly
    (lambda: c(1.0) + c(1), errors.InvalidArgumentError, _MISMATCH % "AddV2"),
    (lambda: c(1.0) - c(1), errors.InvalidArgumentError, _MISMATCH % "Sub"),
    (lambda: c([2]) ** c([-1]), errors.InvalidArgumentError,
     "Integers to negative integer powers are not allowed [Op:Pow]"),
    (lambda: -c("a"), errors.InvalidArgumentError,
     "Neg does not support dtype string (allowed: numeric types (not bool or string))"),
    # ops built from other ops name the inner op, as TF's do
    (lambda: c(1.0) & c(2.0), errors.InvalidArgumentError,
     "BitwiseAnd does not support dtype float32 (allowed: integer types)"),
    (lambda: ~c(1.0), errors.InvalidArgumentError,
     "Invert does not support dtype float32 (allowed: integer types)"),
    (lambda: tf.linalg.logdet(c(np.ones((2, 3), np.float32))), errors.InvalidArgumentError,
     "Cholesky: input must be a square matrix, got shape [2,3]"),
    (lambda: tf.linalg.matvec(c(np.ones((2, 3), np.float32)), c(np.ones(4, np.float32))),
     errors.InvalidArgumentError,
     "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,1] [Op:MatMul]"),
    # ops sharing a kernel keep the kernel's name
    (lambda: tf.nn.conv2d(c(np.ones((2, 3), np.float32)), c(np.ones((1, 1, 1, 1), np.float32)),
                          1, "SAME"), ValueError,
     "Conv2D: input must be 4-dimensional, got shape [2,3]"),
    (lambda: tf.split(c([1, 2]), 2, axis=3), errors.InvalidArgumentError,
     "Split: Expected axis in the range [-1, 1), but got 3 (the tensor has rank 1)"),
    (lambda: tf.argsort(c([1, 2]), axis=3), errors.InvalidArgumentError,
     "Sort: Expected axis in the range [-1, 1), but got 3 (the tensor has rank 1)"),
    # helpers naming the op being run
    (lambda: tf.random.uniform([-1]), errors.InvalidArgumentError,
     "RandomUniform: shape must be non-negative, got [-1]"),
    (lambda: tf.random.stateless_uniform([2], seed=[1, 2, 3]), errors.InvalidArgumentError,
     "StatelessRandomUniformV2: seed must have shape [2], not [3]"),
    (lambda: tf.math.unsorted_segment_sum(c([1.0, 2.0]), c([0, 5]), 2),
     errors.InvalidArgumentError, "UnsortedSegmentSum: segment_ids[1] = 5 is out of range [0, 2)"),
    (lambda: tf.clip_by_value(c([1.0]), c(0), 1.0), errors.InvalidArgumentError,
     _MISMATCH % "ClipByValue"),
    (lambda: tf.nn.elu(c([1])), TypeError,
     "Value passed to parameter 'features' of Elu has DataType int32 not in list of allowed "
     "values: half, bfloat16, float32, float64"),
    (lambda: tf.compat.v1.where(c([1]), c([1]), c([2])), errors.InvalidArgumentError,
     "cannot compute Select as input #0(zero-based) was expected to be a bool tensor but is a "
     "int32 tensor"),
    (lambda: tf.argmax(c([1]), axis=4), errors.InvalidArgumentError,
     "Expected dimension in the range [-1, 1), but got 4 [Op:ArgMax]"),
    (lambda: tf.linalg.lstsq(c(np.ones((3, 2), np.float32)), c(np.ones((4, 1), np.float32))),
     errors.InvalidArgumentError,
     "MatrixSolveLs: matrix of shape [3,2] and rhs of shape [4,1] do not match"),
])
def test_messages_name_the_tf_op(run, error_class, message):
    with pytest.raises(error_class) as info:
        run()
    assert str(info.value) == message


def test_keras_op_layers_name_the_op_eagerly():
    inputs = tf.keras.Input((3,))
    model = tf.keras.Model(inputs, tf.gather(inputs, [5], axis=1))
    with pytest.raises(errors.InvalidArgumentError) as info:
        model(tf.ones((2, 3)))
    assert str(info.value) == "GatherV2: indices[0] = 5 is not in [0, 3)"
