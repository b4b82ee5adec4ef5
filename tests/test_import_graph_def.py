"""tf.import_graph_def of GraphDefs frozen by real TensorFlow, and tf.raw_ops.

The fixtures (tests/fixtures/tf_graphdefs/, made by make_fixtures.py with real TF 2.21)
hold each graph's inputs and the outputs real TF computed from them.
"""
import importlib.util
import json
import os

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "tf_graphdefs")


def _fixture(name):
    return np.load(os.path.join(HERE, name), allow_pickle=False)


def _graph_def(name):
    graph_def = tf.compat.v1.GraphDef()
    with open(os.path.join(HERE, name), "rb") as f:
        graph_def.ParseFromString(f.read())
    return graph_def


def _node(name, op_type, inputs=(), **attrs):
    node = tf.compat.v1.NodeDef(name=name, op=op_type)
    node.input.extend(inputs)
    for key, value in attrs.items():
        node.attr[key].CopyFrom(value)
    return node


def _float_placeholder_def(name="x"):
    return _node(name, "Placeholder",
                 dtype=tf.compat.v1.AttrValue(type=tf.float32.as_datatype_enum))


def test_frozen_keras_cnn_gives_real_tf_outputs():
    graph = tf.Graph()
    with graph.as_default():
        output, = tf.compat.v1.import_graph_def(_graph_def("cnn_frozen.pb"),
                                                return_elements=["Identity:0"])
        assert output.name == "import/Identity:0"
        assert output.shape.as_list() == [None, 5]
        conv = graph.get_operation_by_name("import/model/conv2d/Conv2D")
        assert conv.type == "Conv2D"
        types = {op.type for op in graph.get_operations()}
        assert {"FusedBatchNormV3", "DepthwiseConv2dNative", "Relu6", "ResizeBilinear",
                "MaxPool", "AvgPool", "Softmax"} <= types
        with tf.compat.v1.Session() as sess:
            value = sess.run(output, {"import/x:0": _fixture("cnn_input.npy")})
    np.testing.assert_allclose(value, _fixture("cnn_output.npy"), rtol=1e-5, atol=1e-5)


def test_function_calls_are_inlined_under_the_call_name():
    """Keras 2 runs grouped convolutions as a jit-compiled tf.function: the frozen graph
    calls a library function (PartitionedCall), as ConvNeXt's and RegNet's do."""
    graph_def = _graph_def("grouped_frozen.pb")
    call = next(node for node in graph_def.node if node.op == "PartitionedCall")
    graph = tf.Graph()
    with graph.as_default():
        output, = tf.compat.v1.import_graph_def(graph_def, return_elements=["Identity:0"])
        assert graph.get_operation_by_name("import/%s/Conv2D" % call.name).type == "Conv2D"
        assert graph.get_tensor_by_name("import/%s:0" % call.name).shape.as_list() == \
            [None, 8, 8, 8]
        with tf.compat.v1.Session() as sess:
            value = sess.run(output, {"import/x:0": _fixture("grouped_input.npy")})
    np.testing.assert_allclose(value, _fixture("grouped_output.npy"), rtol=1e-5, atol=1e-5)


def test_frozen_tf1_graph_gives_real_tf_outputs():
    with open(os.path.join(HERE, "tf1_outputs.json")) as f:
        outputs = json.load(f)["outputs"]
    names = sorted(outputs)
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(_graph_def("tf1_frozen.pb"), name="")
        fetches = [graph.get_tensor_by_name(outputs[n]) for n in names]
        assert graph.get_tensor_by_name("flat:0").shape.as_list() == [None, 3, 4]
        with tf.compat.v1.Session() as sess:
            values = sess.run(fetches, {"x:0": _fixture("tf1_x.npy"), "scale:0": 0.75})
    for name, value in zip(names, values):
        expected = _fixture("tf1_%s.npy" % name)
        assert value.dtype == expected.dtype, name
        np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-5, err_msg=name)


def test_input_map_replaces_a_placeholder_and_return_elements_follow_tf():
    graph = tf.Graph()
    with graph.as_default():
        images = tf.compat.v1.placeholder(tf.float32, [None, 12, 12, 3], name="images")
        doubled = images * 2.0
        output, placeholder_op = tf.compat.v1.import_graph_def(
            _graph_def("cnn_frozen.pb"), input_map={"x:0": doubled},
            return_elements=["Identity:0", "x"], name="net")
        assert isinstance(placeholder_op, tf.Operation)
        assert placeholder_op.name == "net/x" and placeholder_op.type == "Placeholder"
        with tf.compat.v1.Session() as sess:
            value = sess.run(output, {images: _fixture("cnn_input.npy") / 2.0})
    np.testing.assert_allclose(value, _fixture("cnn_output.npy"), rtol=1e-5, atol=1e-5)


def test_each_import_gets_its_own_scope():
    graph = tf.Graph()
    with graph.as_default():
        first = tf.compat.v1.import_graph_def(_graph_def("cnn_frozen.pb"),
                                              return_elements=["Identity:0"])[0]
        second = tf.compat.v1.import_graph_def(_graph_def("cnn_frozen.pb"),
                                               return_elements=["Identity:0"])[0]
    assert (first.name, second.name) == ("import/Identity:0", "import_1/Identity:0")


def test_bad_input_map_and_return_elements_raise_tfs_errors():
    graph_def = _graph_def("cnn_frozen.pb")
    with tf.Graph().as_default():
        other = tf.compat.v1.placeholder(tf.float32, [None, 12, 12, 3])
        with pytest.raises(ValueError, match=r"not found in graph_def: \[nope:0\]"):
            tf.compat.v1.import_graph_def(graph_def, input_map={"nope:0": other})
        with pytest.raises(ValueError, match="Requested return_element 'missing:0'"):
            tf.compat.v1.import_graph_def(graph_def, return_elements=["missing:0"])
        with pytest.raises(TypeError, match="GraphDef proto"):
            tf.compat.v1.import_graph_def(b"not a graph")


def test_nodes_in_any_order_import():
    graph_def = _graph_def("tf1_frozen.pb")
    shuffled = tf.compat.v1.GraphDef()
    shuffled.node.extend(reversed(graph_def.node))
    with tf.Graph().as_default() as graph:
        probs, = tf.compat.v1.import_graph_def(shuffled, return_elements=["probs:0"])
        with tf.compat.v1.Session() as sess:
            value = sess.run(probs, {"import/x:0": _fixture("tf1_x.npy"),
                                     "import/scale:0": 0.75})
    np.testing.assert_allclose(value, _fixture("tf1_probs.npy"), rtol=1e-5, atol=1e-5)
    assert len(graph.get_operations()) == len(graph_def.node)


def test_unsupported_op_types_are_all_listed_in_one_error():
    graph_def = tf.compat.v1.GraphDef()
    graph_def.node.extend([
        _float_placeholder_def(),
        _node("h1", "VarHandleOp"), _node("h2", "VarHandleOp"),
        _node("dequeue", "QueueDequeueV2", ["h1"]),
        _node("y", "Relu", ["x"]),
    ])
    with tf.Graph().as_default() as graph:
        with pytest.raises(NotImplementedError) as raised:
            tf.compat.v1.import_graph_def(graph_def)
        assert graph.get_operations() == []
    message = str(raised.value)
    assert "VarHandleOp (2)" in message and "QueueDequeueV2 (1)" in message
    assert "Relu" not in message
    assert isinstance(raised.value, errors.UnimplementedError)


def test_an_unknown_op_type_is_refused():
    graph_def = tf.compat.v1.GraphDef()
    graph_def.node.extend([_float_placeholder_def(),
                           _node("evil", "os.system", ["x"]),
                           _node("h", "VarHandleOp")])
    with tf.Graph().as_default() as graph:
        with pytest.raises(errors.NotFoundError, match="Op type not registered 'os.system'") \
                as raised:
            tf.compat.v1.import_graph_def(graph_def)
        assert graph.get_operations() == []
    assert "VarHandleOp (1)" in str(raised.value)


def test_a_node_that_cannot_be_built_is_named():
    graph_def = tf.compat.v1.GraphDef()
    graph_def.node.extend([
        _node("a", "Const", dtype=tf.compat.v1.AttrValue(type=tf.float32.as_datatype_enum),
              value=tf.compat.v1.AttrValue(tensor=tf.make_tensor_proto(np.ones((2, 3),
                                                                           np.float32)))),
        _node("bad", "MatMul", ["a", "a"]),
    ])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Cannot import node 'import/bad' \(op MatMul\)"):
            tf.compat.v1.import_graph_def(graph_def)


def test_imported_graph_differentiates():
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 6])
        probs, = tf.compat.v1.import_graph_def(_graph_def("tf1_frozen.pb"),
                                               input_map={"x:0": x},
                                               return_elements=["probs:0"])
        loss = tf.reduce_sum(probs[:, 0])
        gradient, = tf.gradients(loss, x)
        feed = _fixture("tf1_x.npy")
        with tf.compat.v1.Session() as sess:
            grad_value = sess.run(gradient, {x: feed})
            step = np.zeros_like(feed)
            step[1, 2] = 1e-2
            plus, minus = (sess.run(loss, {x: feed + s}) for s in (step, -step))
    assert grad_value.shape == feed.shape
    np.testing.assert_allclose(grad_value[1, 2], (plus - minus) / 2e-2, rtol=2e-2, atol=1e-4)


def test_tf2_runs_a_frozen_graph_through_wrap_function_and_prune():
    graph_def = _graph_def("cnn_frozen.pb")
    wrapped = tf.compat.v1.wrap_function(
        lambda: tf.compat.v1.import_graph_def(graph_def, name=""), [])
    frozen = wrapped.prune("x:0", "Identity:0")
    value = frozen(tf.constant(_fixture("cnn_input.npy")))
    assert isinstance(value, tf.Tensor)
    np.testing.assert_allclose(value.numpy(), _fixture("cnn_output.npy"), rtol=1e-5, atol=1e-5)
    both = wrapped.prune([wrapped.graph.get_tensor_by_name("x:0")],
                         {"probs": "Identity:0", "conv": "model/conv2d/Conv2D:0"})
    values = both(_fixture("cnn_input.npy"))
    assert values["conv"].shape == (2, 6, 6, 8)
    np.testing.assert_allclose(values["probs"].numpy(), _fixture("cnn_output.npy"),
                               rtol=1e-5, atol=1e-5)
    by_name = frozen(x=_fixture("cnn_input.npy"))     # TF names the arguments by their ops
    np.testing.assert_allclose(by_name.numpy(), value.numpy())
    with pytest.raises(ValueError, match="Cannot feed a value of shape"):
        frozen(np.zeros((1, 4, 4, 3), np.float32))
    with pytest.raises(TypeError):
        frozen(y=_fixture("cnn_input.npy"))


def test_wrap_function_traces_on_its_signature():
    square = tf.compat.v1.wrap_function(lambda x: x * x,
                                        [tf.TensorSpec([None], tf.float32)])
    assert square(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [1.0, 4.0, 9.0]
    assert square.inputs[0].shape.as_list() == [None]


# ---------------------------------------------------------------- tf.raw_ops, eagerly


def test_raw_matmul_and_reductions_match_numpy():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_allclose(tf.raw_ops.MatMul(a=a, b=b, transpose_b=True).numpy(), a @ b.T)
    np.testing.assert_allclose(
        tf.raw_ops.Mean(input=a, axis=[1], keep_dims=True).numpy(), a.mean(1, keepdims=True))
    assert tf.raw_ops.ArgMax(input=a, dimension=0).dtype == tf.int64
    assert tf.raw_ops.Cast(x=[1.7, -2.5], DstT=tf.int32).numpy().tolist() == [1, -2]


def test_raw_conv2d_explicit_padding_matches_padded_valid_conv():
    rng = np.random.RandomState(0)
    x = rng.normal(size=(1, 5, 6, 2)).astype(np.float32)
    w = rng.normal(size=(3, 3, 2, 4)).astype(np.float32)
    explicit = tf.raw_ops.Conv2D(input=x, filter=w, strides=[1, 2, 1, 1], padding="EXPLICIT",
                                 explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0])
    padded = np.pad(x, [[0, 0], [1, 2], [0, 1], [0, 0]])
    valid = tf.raw_ops.Conv2D(input=padded, filter=w, strides=[1, 2, 1, 1], padding="VALID")
    assert explicit.shape == (1, 3, 5, 4)
    np.testing.assert_allclose(explicit.numpy(), valid.numpy(), rtol=1e-6)
    # one output element by hand
    np.testing.assert_allclose(valid.numpy()[0, 1, 2],
                               np.einsum("hwc,hwco->o", padded[0, 2:5, 2:5], w), rtol=1e-5)


def test_raw_conv2d_backprop_input_is_the_gradient_of_conv2d():
    rng = np.random.RandomState(2)
    x = tf.constant(rng.normal(size=(1, 6, 6, 4)).astype(np.float32))
    w = rng.normal(size=(3, 3, 4, 2)).astype(np.float32)
    dy = rng.normal(size=(1, 3, 3, 2)).astype(np.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.raw_ops.Conv2D(input=x, filter=w, strides=[1, 2, 2, 1], padding="SAME")
    expected = tape.gradient(y, x, output_gradients=dy)
    transposed = tf.raw_ops.Conv2DBackpropInput(input_sizes=[1, 6, 6, 4], filter=w,
                                                out_backprop=dy, strides=[1, 2, 2, 1],
                                                padding="SAME")
    np.testing.assert_allclose(transposed.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)


def test_raw_fused_batch_norm_v3_inference():
    rng = np.random.RandomState(1)
    x = rng.normal(size=(2, 3, 3, 4)).astype(np.float32)
    scale, offset = np.float32([1, 2, 0.5, 1]), np.float32([0, 1, -1, 0.5])
    mean, variance = np.float32([0, 0.5, -0.5, 1]), np.float32([1, 2, 0.5, 3])
    out = tf.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=mean,
                                      variance=variance, epsilon=0.001, is_training=False)
    assert out._fields == ("y", "batch_mean", "batch_variance", "reserve_space_1",
                           "reserve_space_2", "reserve_space_3")
    expected = (x - mean) / np.sqrt(variance + 0.001) * scale + offset
    np.testing.assert_allclose(out.y.numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.batch_variance.numpy(), variance)


def test_raw_array_ops():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    sliced = tf.raw_ops.StridedSlice(input=x, begin=[0, 1], end=[0, 3], strides=[1, 1],
                                     begin_mask=1, end_mask=1)
    np.testing.assert_array_equal(sliced.numpy(), x[:, 1:3])
    np.testing.assert_array_equal(
        tf.raw_ops.ConcatV2(values=[x, x], axis=-1).numpy(), np.concatenate([x, x], -1))
    parts = tf.raw_ops.Unpack(value=x, num=3, axis=1)
    assert isinstance(parts, list) and len(parts) == 3
    np.testing.assert_array_equal(parts[2].numpy(), x[:, 2])
    np.testing.assert_array_equal(tf.raw_ops.Squeeze(input=x[:1, :, :1]).numpy(),
                                  x[0, :, 0])
    np.testing.assert_array_equal(
        tf.raw_ops.GatherV2(params=x, indices=[2, 0], axis=2).numpy(), x[:, :, [2, 0]])


def test_raw_comparisons_and_multi_output_ops():
    assert tf.raw_ops.Equal(x=[1, 2], y=[1, 2, 3],
                            incompatible_shape_error=False).numpy().tolist() is False
    with pytest.raises(errors.InvalidArgumentError):
        tf.raw_ops.Equal(x=[1, 2], y=[1, 2, 3])
    assert tf.raw_ops.NotEqual(x=[1, 2], y=[1, 3]).numpy().tolist() == [False, True]
    top = tf.raw_ops.TopKV2(input=[1.0, 5.0, 3.0], k=2, index_type=tf.int64)
    assert top._fields == ("values", "indices")
    assert top.values.numpy().tolist() == [5.0, 3.0] and top.indices.dtype == tf.int64
    unique = tf.raw_ops.Unique(x=[3, 1, 3])
    assert unique.y.numpy().tolist() == [3, 1] and unique.idx.numpy().tolist() == [0, 1, 0]
    a, b = np.ones((2, 2, 3), np.float32), np.arange(6, dtype=np.float32).reshape(1, 3, 2)
    np.testing.assert_allclose(
        tf.raw_ops.BatchMatMulV3(x=a, y=b, Tout=tf.float32, adj_x=False).numpy(), a @ b)


MATRIX = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)

# (raw op, keyword arguments, numpy's value): ops whose TF arguments sit in another order
# or under other names than tfcompat's function takes them
RAW_CASES = [
    ("MatrixSetDiagV3", dict(input=np.zeros((2, 3), np.float32), diagonal=[1.0, 2.0], k=0,
                             align="RIGHT_LEFT"), np.array([[1, 0, 0], [0, 2, 0]], np.float32)),
    ("MatrixInverse", dict(input=MATRIX, adjoint=True), np.linalg.inv(MATRIX.T)),
    ("EuclideanNorm", dict(input=[[3.0, 4.0]], axis=1, keep_dims=True), np.float32([[5.0]])),
    ("LinSpace", dict(start=0.0, stop=1.0, num=3), np.float32([0, 0.5, 1])),
    ("Roll", dict(input=[1, 2, 3], shift=1, axis=0), np.int32([3, 1, 2])),
    ("Split", dict(axis=1, value=np.arange(4).reshape(1, 4), num_split=2),
     [np.array([[0, 1]]), np.array([[2, 3]])]),
    ("Concat", dict(concat_dim=0, values=[[1], [2]]), np.int32([1, 2])),
    ("Mean", dict(input=MATRIX, axis=0, keep_dims=False), MATRIX.mean(0)),
]


@pytest.mark.parametrize("op_type,arguments,expected", RAW_CASES,
                         ids=[case[0] for case in RAW_CASES])
def test_raw_op_arguments_reach_tfcompats_op(op_type, arguments, expected):
    result = getattr(tf.raw_ops, op_type)(**arguments)
    results = result if isinstance(result, list) else [result]
    expected = expected if isinstance(expected, list) else [expected]
    for value, wanted in zip(results, expected):
        np.testing.assert_allclose(value.numpy(), wanted, rtol=1e-6)


def test_raw_const_reads_tensor_protos_as_tf_kernels_do():
    """TF writes a scalar zero without values; a shorter value list repeats its last."""
    zero = tf.make_tensor_proto(0.0)
    del zero.float_val[:]
    assert tf.raw_ops.Const(value=zero, dtype=tf.float32).numpy() == 0.0
    short = tf.make_tensor_proto(1, dtype=tf.int32)
    short.int_val.append(2)
    short.tensor_shape.dim.add(size=4)
    assert tf.raw_ops.Const(value=short, dtype=tf.int32).numpy().tolist() == [1, 2, 2, 2]


def test_raw_ops_take_keyword_arguments_only():
    with pytest.raises(TypeError, match="MatMul only takes keyword args"):
        tf.raw_ops.MatMul([[1.0]], [[2.0]])
    with pytest.raises(TypeError):
        tf.raw_ops.MatMul(a=[[1.0]], b=[[2.0]], transpose=True)
    with pytest.raises(TypeError):
        tf.raw_ops.Conv2D(input=np.zeros((1, 3, 3, 1), np.float32),
                          filter=np.zeros((1, 1, 1, 1), np.float32), strides=[1, 1, 1, 1])


def test_raw_ops_we_lack_raise_not_implemented():
    with pytest.raises(NotImplementedError, match="VarHandleOp"):
        tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[])


def test_raw_ops_doc_is_current():
    path = os.path.join(os.path.dirname(HERE), "..", "..", "scripts", "make_raw_ops_doc.py")
    spec = importlib.util.spec_from_file_location("make_raw_ops_doc", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with open(module.DOC) as f:
        assert f.read() == module.render(), \
            "docs/raw_ops.md is out of date: run `python scripts/make_raw_ops_doc.py`"
