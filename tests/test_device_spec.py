"""tf.DeviceSpec (v1 mutable, v2 immutable), tf.device scopes and device functions in graphs."""
import pytest

import tfcompat as tf
from tfcompat.framework.device_spec import DeviceSpecV1, DeviceSpecV2

# device string, (job, replica, task, device_type, device_index), canonical string (TF's)
PARSE_CASES = [
    ("", (None, None, None, None, None), ""),
    ("/cpu:0", (None, None, None, "CPU", 0), "/device:CPU:0"),
    ("/GPU:1", (None, None, None, "GPU", 1), "/device:GPU:1"),
    ("gpu:*", (None, None, None, "GPU", None), "/device:GPU:*"),
    ("/job:ps/replica:1/task:2/device:GPU:3", ("ps", 1, 2, "GPU", 3),
     "/job:ps/replica:1/task:2/device:GPU:3"),
    ("/job:worker/task:7", ("worker", None, 7, None, None), "/job:worker/task:7"),
    ("/device:CPU:*", (None, None, None, "CPU", None), "/device:CPU:*"),
    ("/job:localhost/device:XLA_GPU:0", ("localhost", None, None, "XLA_GPU", 0),
     "/job:localhost/device:XLA_GPU:0"),
]


def fields(spec):
    return spec.job, spec.replica, spec.task, spec.device_type, spec.device_index


@pytest.mark.parametrize("string,expected,canonical", PARSE_CASES)
@pytest.mark.parametrize("cls", [DeviceSpecV1, DeviceSpecV2])
def test_from_string(cls, string, expected, canonical):
    spec = cls.from_string(string)
    assert type(spec) is cls
    assert fields(spec) == expected
    assert spec.to_string() == canonical
    assert spec == cls.from_string(canonical) and hash(spec) == hash(cls.from_string(canonical))


@pytest.mark.parametrize("string,message", [
    ("/cpu:0/gpu:0", "Cannot specify multiple device types"),
    ("/device:GPU:x", "invalid literal for int"),
    ("/foo:1", "Unknown attribute: 'foo'"),
])
def test_bad_strings_raise_value_error(string, message):
    with pytest.raises(ValueError, match=message):
        DeviceSpecV2.from_string(string)


def test_constructor_converts_like_tf():
    spec = DeviceSpecV2(job="ps", replica="1", task=0, device_type="gpu", device_index="2")
    assert fields(spec) == ("ps", 1, 0, "GPU", 2)
    assert spec.to_string() == "/job:ps/replica:1/task:0/device:GPU:2"


def test_v2_is_immutable_and_makes_new_specs():
    spec = DeviceSpecV2(job="ps", device_type="CPU")
    with pytest.raises(AttributeError):
        spec.job = "worker"
    merged = spec.make_merged_spec(DeviceSpecV2(device_type="GPU", device_index=1))
    assert merged.to_string() == "/job:ps/device:GPU:1"
    assert spec.to_string() == "/job:ps/device:CPU:*"
    assert spec.replace(job=None, task=3).to_string() == "/task:3/device:CPU:*"
    parsed = spec.parse_from_string("/gpu:0")
    assert parsed.to_string() == "/device:GPU:0" and spec.job == "ps"


def test_v1_mutates_in_place():
    spec = DeviceSpecV1(job="ps", task=1)
    assert spec.parse_from_string("/gpu:2") is spec
    assert fields(spec) == (None, None, None, "GPU", 2)   # unset parts become None
    spec.job = "worker"
    spec.device_index = "3"
    assert spec.to_string() == "/job:worker/device:GPU:3"
    spec.merge_from(DeviceSpecV1(task=4, device_type="cpu"))
    assert spec.to_string() == "/job:worker/task:4/device:CPU:3"


def test_exported_flavours():
    assert tf.compat.v1.DeviceSpec is DeviceSpecV1
    assert tf.compat.v2.DeviceSpec is DeviceSpecV2


# ---------------------------------------------------------------- tf.device in graphs

PS_OPS = ["Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp"]


def assign_to_device(device, ps_device="/cpu:0"):
    """The helper multi-GPU tower scripts pass to tf.device."""
    def _assign(op):
        node_def = op if isinstance(op, tf.compat.v1.NodeDef) else op.node_def
        if node_def.op in PS_OPS:
            return "/" + ps_device
        return device
    return _assign


def test_device_function_places_variables_and_ops():
    graph = tf.Graph()
    seen = []
    with graph.as_default():
        with tf.device(assign_to_device("/gpu:1", ps_device="cpu:0")):
            v = tf.compat.v1.Variable(3.0, name="w")
            y = tf.multiply(v, 2.0, name="y")
        with tf.device(lambda op: seen.append((op.type, op.name, op.device)) or
                       tf.DeviceSpec(device_type="GPU", device_index=0)):
            z = tf.add(y, 1.0, name="z")
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            assert sess.run(z) == 7.0   # soft placement: computed on the CPU
    assert v.device == "/cpu:0" and v.op.device == "/cpu:0"
    assert y.device == "/gpu:1" and y.op.node_def.device == "/gpu:1"
    assert y.op.node_def.op == "Mul" and y.op.node_def.name == "y"
    assert ("AddV2", "z", "") in seen
    assert z.device == "/device:GPU:0"


def test_device_strings_merge_inner_first():
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:ps/task:1"):
            with tf.device("/gpu:0"):
                a = tf.constant(1.0)
            with tf.device(lambda op: "/cpu:0"):
                b = tf.constant(1.0)   # the outer scope fills in job and task
            with tf.device(""):
                c = tf.constant(1.0)
            with tf.device(None):
                d = tf.constant(1.0)
        with tf.device(tf.DeviceSpec(job="worker", device_type="CPU")):
            e = tf.constant(1.0)
    assert a.device == "/job:ps/task:1/device:GPU:0"
    assert b.device == "/job:ps/task:1/device:CPU:0"
    assert c.device == "/job:ps/task:1"
    assert d.device == ""
    assert e.device == "/job:worker/device:CPU:*"


def test_device_function_is_refused_in_eager_mode():
    with pytest.raises(RuntimeError, match="does not support functions"):
        with tf.device(lambda op: "/cpu:0"):
            pass


def test_node_def_protos():
    node = tf.compat.v1.NodeDef(name="a", op="Const", device="/cpu:0")
    assert node.op == "Const" and node.device == "/cpu:0"
    node.attr["T"].CopyFrom(tf.compat.v1.AttrValue(type=1))
    graph_def = tf.compat.v1.GraphDef()
    graph_def.node.add().CopyFrom(node)
    assert graph_def.node[0].attr["T"].type == 1


# ---------------------------------------------------------------- replica_device_setter


def test_replica_device_setter_round_robins_variables_over_ps_tasks():
    graph = tf.Graph()
    with graph.as_default():
        setter = tf.compat.v1.train.replica_device_setter(
            cluster={"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222"]})
        with tf.device(setter):
            v0 = tf.compat.v1.Variable(1.0, name="v0")
            v1 = tf.compat.v1.Variable(2.0, name="v1")
            v2 = tf.compat.v1.Variable(3.0, name="v2")
            total = tf.add_n([v0, v1, v2], name="total")
        with tf.device(tf.compat.v1.train.replica_device_setter(
                ps_tasks=1, worker_device="/job:worker/task:3/gpu:0")):
            w = tf.compat.v1.Variable(4.0, name="w")
            doubled = tf.multiply(w, 2.0)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            assert sess.run(total) == 6.0 and sess.run(doubled) == 8.0
    assert [v.device for v in (v0, v1, v2)] == ["/job:ps/task:0", "/job:ps/task:1",
                                                "/job:ps/task:0"]
    assert total.device == "/job:worker"
    assert w.device == "/job:ps/task:0"
    assert doubled.device == "/job:worker/task:3/device:GPU:0"


def test_replica_device_setter_without_ps_is_none():
    assert tf.compat.v1.train.replica_device_setter() is None
    assert tf.compat.v1.train.replica_device_setter(cluster={"worker": ["w0:1"]}) is None
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        tf.compat.v1.train.replica_device_setter(ps_tasks=1, ps_strategy=3)
