"""Errors a person can read: TF's classes and messages for shape mistakes in graphs, with `?`
for unknown dims, the node's name, where the op was defined, and no torch log lines or
frames ahead of them."""
import logging
import re
import threading

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.framework.errors import format_shape, kernel_message
from tfcompat.framework.tensor_shape import Dimension, TensorShape
from test_runner import run_script

tf1 = tf.compat.v1


# ---------------------------------------------------------------- the shape formatter

@pytest.mark.parametrize("shape, text", [
    (TensorShape([None, 3]), "[?,3]"),
    (TensorShape(None), "?"),
    (TensorShape([]), "[]"),
    (torch.Size([2, 3]), "[2,3]"),
    ([4], "[4]"),
    ((None, 5, None), "[?,5,?]"),
    ([Dimension(7), Dimension(None)], "[7,?]"),
])
def test_format_shape_writes_tf_shapes(shape, text):
    assert format_shape(shape) == text


def test_format_shape_writes_symbolic_sizes_as_unknown():
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, 3, None])
        fake = x._fake
        assert isinstance(fake.shape[0], torch.SymInt)
        assert format_shape(fake.shape) == "[?,3,?]"
        assert format_shape((fake.shape[0] * 2, 4)) == "[?,4]"


def test_kernel_message_drops_the_eager_op_suffix():
    assert kernel_message("Incompatible shapes: [2,3] vs. [4] [Op:AddV2]") == \
        "Incompatible shapes: [2,3] vs. [4]"
    assert kernel_message("no suffix [Op:x] here") == "no suffix [Op:x] here"


# ---------------------------------------------------------------- in-process messages

def test_eager_errors_keep_the_kernel_message():
    with pytest.raises(errors.InvalidArgumentError) as info:
        tf.zeros([2, 3]) + tf.zeros([4])
    assert str(info.value) == "Incompatible shapes: [2,3] vs. [4] [Op:AddV2]"
    with pytest.raises(errors.InvalidArgumentError) as info:
        tf.matmul(tf.zeros([2, 3]), tf.zeros([4, 2]))
    assert str(info.value) == "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,2] [Op:MatMul]"
    with pytest.raises(errors.InvalidArgumentError) as info:     # as the matrices TF multiplies
        tf.tensordot(tf.zeros([2, 3, 5]), tf.zeros([5, 4, 2]), [[1, 2], [0, 1]])
    assert str(info.value) == \
        "Matrix size-incompatible: In[0]: [2,15], In[1]: [20,2] [Op:MatMul]"


def test_graph_construction_raises_value_error_with_the_node():
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        y = tf1.placeholder(tf.float32, [4], name="y")
        with pytest.raises(ValueError) as info:
            tf.add(x, y, name="add")
        assert str(info.value) == (
            "Dimensions must be equal, but are 3 and 4 for '{{node add}} = "
            "AddV2[T=DT_FLOAT](x, y)' with input shapes: [?,3], [4].")
        assert type(info.value) is ValueError
        with tf1.variable_scope("dense"):
            with pytest.raises(ValueError) as info:
                tf.matmul(x, tf.zeros([4, 2], dtype=tf.float32, name="kernel"))
        assert str(info.value) == (
            "Dimensions must be equal, but are 3 and 4 for '{{node dense/MatMul}} = "
            "MatMul[T=DT_FLOAT](x, dense/kernel)' with input shapes: [?,3], [4,2].")
        # the failed ops took no names
        assert tf.add(x, x, name="add").op.name == "add"


def test_graph_construction_names_the_first_differing_known_dims():
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float64, [None, 5, 3], name="x")
        y = tf1.placeholder(tf.float64, [2, None, 4], name="y")
        with pytest.raises(ValueError, match=re.escape(
                "Dimensions must be equal, but are 3 and 4 for '{{node Maximum}} = "
                "Maximum[T=DT_DOUBLE](x, y)' with input shapes: [?,5,3], [2,?,4].")):
            tf.maximum(x, y)


@pytest.mark.parametrize("make, message", [
    (lambda x: tf.add_n([x, tf.zeros([4])]),
     "Inputs to operation AddN must have the same size and shape. Input 0: [?,3] != input 1: "
     "[4] for '{{node AddN}} = AddN[T=DT_FLOAT](x, Zeros)' with input shapes: [?,3], [4]."),
    (lambda x: tf.stack([x, tf.zeros([4, 2])]),
     "Shapes of all inputs must match: values[0].shape = [?,3] != values[1].shape = [4,2] for "
     "'{{node Pack}} = Pack[T=DT_FLOAT](x, Zeros)' with input shapes: [?,3], [4,2]."),
    (lambda x: tf1.where(tf.zeros([4, 2]) > 0, x, x),
     "'cond' must be a scalar, a vector matching the first dimension of 'then', or the same "
     "shape as 'then'; got [4,2] vs. [?,3] for '{{node Select}} = Select[T=DT_FLOAT](Greater, "
     "x, x)' with input shapes: [4,2], [?,3], [?,3]."),
    (lambda x: tf.tensordot(x, tf.zeros([4, 2]), 1),
     "Dimensions must be equal, but are 3 and 4 for '{{node Tensordot}} = "
     "Tensordot[T=DT_FLOAT](x, Zeros)' with input shapes: [?,3], [4,2]."),
    (lambda x: tf.nn.bias_add(x, tf.zeros([4])),
     "Must provide as many biases as the channel dimension of the input tensor: bias shape [4] "
     "vs. value shape [?,3] for '{{node BiasAdd}} = BiasAdd[T=DT_FLOAT](x, Zeros)' with input "
     "shapes: [?,3], [4]."),
    (lambda x: tf.reshape(x, [5, 7]),
     "Dimension size must be evenly divisible by 3 but is 35 for '{{node Reshape}} = "
     "Reshape[T=DT_FLOAT](x)' with input shapes: [?,3]."),
    (lambda x: tf.reshape(tf1.placeholder(tf.float32, [2, 3], name="y"), [5, 7]),
     "Cannot reshape a tensor with 6 elements to shape [5,7] (35 elements) for '{{node "
     "Reshape}} = Reshape[T=DT_FLOAT](y)' with input shapes: [2,3]."),
    (lambda x: tf.random.categorical(x[0], 2),
     "logits should be a matrix, got shape [3] for '{{node Multinomial}} = "
     "Multinomial[T=DT_FLOAT](strided_slice)' with input shapes: [3]."),
])
def test_graph_construction_messages_show_unknown_dims_as_tf(make, message):
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        with pytest.raises(ValueError) as info:
            make(x)
    assert str(info.value) == message


def test_static_shapes_of_symbolic_sizes_are_unknown_not_stand_ins():
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, 3])
        assert TensorShape(list(x._fake.shape)).as_list() == [None, 3]
        with pytest.raises(ValueError, match=re.escape(
                "Shapes (None, 3) and (4, 2) are incompatible")):
            tf1.losses.mean_squared_error(tf.zeros([4, 2]), x)


def test_graph_construction_dtype_mismatch_is_a_type_error():
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, 3])
        with pytest.raises(TypeError, match="expected to be a float32 tensor but is a int32"):
            tf.matmul(x, tf.ones([3, 2], dtype=tf.int32))


def test_shape_inference_logs_nothing_from_torch():
    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record)

    logger = logging.getLogger("torch._subclasses.fake_tensor")
    handler = Collect(logging.DEBUG)
    logger.addHandler(handler)
    try:
        with tf.Graph().as_default():
            x = tf1.placeholder(tf.float32, [2, 3])
            with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
                x + tf1.placeholder(tf.float32, [4])
        assert records == []
        assert logger.filters == []     # quiet only while shape inference runs
        logger.error("the user's own record")
        assert [r.getMessage() for r in records] == ["the user's own record"]
    finally:
        logger.removeHandler(handler)


def test_other_threads_log_while_a_graph_is_built():
    from tfcompat.framework.graph import _quiet_shape_inference
    logger = logging.getLogger("torch._subclasses.fake_tensor")
    records = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append
    logger.addHandler(handler)
    try:
        _quiet_shape_inference.enter()
        try:
            logger.error("quiet here")
            other = threading.Thread(target=logger.error, args=("from another thread",))
            other.start()
            other.join()
        finally:
            _quiet_shape_inference.exit()
        assert [r.getMessage() for r in records] == ["from another thread"]
    finally:
        logger.removeHandler(handler)


def test_session_run_error_names_the_op_and_where_it_was_made():
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [None, None], name="x")
        with tf1.variable_scope("dense"):
            product = tf.matmul(x, tf.ones([3, 2]))  # made here
        line = next(number for number, text in enumerate(open(__file__), 1)
                    if text.rstrip().endswith("# made here"))
        with tf1.Session() as sess:
            assert sess.run(product, {x: np.ones([1, 3])}).tolist() == [[3.0, 3.0]]
            with pytest.raises(errors.InvalidArgumentError) as info:
                sess.run(product, {x: np.ones([2, 5])})
    error = info.value
    assert error.op is product.op
    assert error.message.startswith(
        "Matrix size-incompatible: In[0]: [2,5], In[1]: [3,2]\n\t [[{{node dense/MatMul}}]]\n\n"
        "Caused by op 'dense/MatMul', defined at:\n  File \"%s\", line %d, in "
        "test_session_run_error_names_the_op_and_where_it_was_made\n"
        "    product = tf.matmul(x, tf.ones([3, 2]))  # made here" % (__file__, line))
    assert product.op._defined_at == (
        __file__, line, "test_session_run_error_names_the_op_and_where_it_was_made")


# ---------------------------------------------------------------- what a person sees

_TORCH_LOG_LINE = re.compile(r"^[EWI]\d{4} ", re.M)
_TORCH_SYMBOL = re.compile(r"\bs\d+\b")


def _check_readable(stderr):
    assert "fake_tensor" not in stderr
    assert not _TORCH_LOG_LINE.search(stderr), stderr
    assert "/torch/" not in stderr, stderr
    assert not _TORCH_SYMBOL.search(stderr), stderr


def test_graph_construction_errors_read_as_tf(tmp_path):
    proc = run_script(tmp_path, """\
        import traceback
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 3])
        fixed = tf.placeholder(tf.float32, [2, 3])
        y = tf.placeholder(tf.float32, [4])
        for make in (lambda: x + y, lambda: fixed + y, lambda: tf.layers.dense(y[None], 2) * x):
            try:
                make()
            except ValueError:
                traceback.print_exc()
        """)
    assert proc.returncode == 0, proc.stderr
    _check_readable(proc.stderr)
    assert proc.stderr.count("Traceback (most recent call last):") == 3
    assert "ValueError: Dimensions must be equal, but are 3 and 4 for '{{node add}} = " \
        "AddV2[T=DT_FLOAT](Placeholder, Placeholder_2)' with input shapes: [?,3], [4].\n" \
        in proc.stderr
    assert "ValueError: Dimensions must be equal, but are 3 and 4 for '{{node add}} = " \
        "AddV2[T=DT_FLOAT](Placeholder_1, Placeholder_2)' with input shapes: [2,3], [4].\n" \
        in proc.stderr
    assert "ValueError: Dimensions must be equal, but are 2 and 3 for '{{node mul}} = " \
        "Mul[T=DT_FLOAT](dense/BiasAdd, Placeholder)' with input shapes: [1,2], [?,3].\n" \
        in proc.stderr
    # each traceback starts at the user's line
    assert re.search(r'Traceback \(most recent call last\):\n  File "[^"]*script.py", line 8',
                     proc.stderr)


def test_session_run_errors_read_as_tf1(tmp_path):
    proc = run_script(tmp_path, """\
        import numpy as np
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None])
        total = x + y
        with tf.Session() as sess:
            sess.run(total, {x: np.ones([2, 3]), y: np.ones([4])})
        """)
    assert proc.returncode == 1
    _check_readable(proc.stderr)
    path = str(tmp_path / "script.py")
    assert proc.stderr.endswith(
        "InvalidArgumentError: Incompatible shapes: [2,3] vs. [4]\n\t [[{{node add}}]]\n\n"
        "Caused by op 'add', defined at:\n  File \"%s\", line 5, in <module>\n"
        "    total = x + y\n" % path)
    assert re.search(r'Traceback \(most recent call last\):\n  File "[^"]*script.py", line 7',
                     proc.stderr)
    # the traceback reaches our op function, not torch's fx or dispatch code
    assert 'math_ops.py", line' in proc.stderr


def test_tf_function_tracing_errors_read_as_tf2(tmp_path):
    proc = run_script(tmp_path, """\
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None, 3]), tf.TensorSpec([4])])
        def add(a, b):
            return a + b

        add(tf.zeros([2, 3]), tf.zeros([4]))
        """)
    assert proc.returncode == 1
    _check_readable(proc.stderr)
    assert proc.stderr.rstrip().endswith(
        "ValueError: Dimensions must be equal, but are 3 and 4 for '{{node add}} = "
        "AddV2[T=DT_FLOAT](a, b)' with input shapes: [?,3], [4].")
