"""TF2 summaries: create_file_writer, as_default, record_if, set_step, scalar/histogram/image/
text/audio/write inside and outside tf.function, trace export; read back with TensorBoard."""
import glob
import io
import os
import subprocess
import sys
import textwrap
import wave

import numpy as np
import pytest
from PIL import Image
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.compat.proto import config_pb2, summary_pb2
from tensorboard.util import tensor_util

import tfcompat as tf
from tfcompat import _api
from tfcompat.summary import summary_v2


@pytest.fixture(autouse=True)
def tf2_semantics():
    """TF2 code: tf.summary.* are the v2 functions; no writer or step is left behind."""
    previous = _api.flavor()
    _api.set_flavor("v2")
    yield
    _api.set_flavor(previous)
    summary_v2.state.writer = summary_v2.state.step = summary_v2.state.is_recording = None


def load(logdir):
    acc = EventAccumulator(str(logdir), size_guidance={k: 0 for k in (
        "scalars", "tensors", "histograms", "images", "audio")})
    acc.Reload()
    return acc


def values(acc, tag):
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def test_scalars_are_tensor_summaries_with_scalars_metadata(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with tf.name_scope("outer"):
            assert bool(tf.summary.scalar("loss", tf.constant(0.5), step=1))
            tf.summary.scalar("loss", 2, step=2)       # same tag: TF2 does not uniquify
        tf.summary.scalar("acc", np.float64(0.25), step=3, description="accuracy")
    # as_default flushes when the block ends: readable before close
    acc = load(tmp_path)
    assert values(acc, "outer/loss") == [(1, 0.5), (2, 2.0)]
    assert values(acc, "outer/loss")[0][1].dtype == np.float32
    metadata = acc.SummaryMetadata("acc")
    assert metadata.plugin_data.plugin_name == "scalars"
    assert metadata.summary_description == "accuracy"
    (path,) = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    assert path.endswith(".v2")
    writer.close()
    with pytest.raises(ValueError, match="scalar"):
        with writer.as_default():
            tf.summary.scalar("v", [1.0, 2.0], step=0)


def test_no_writer_no_step_and_default_step(tmp_path):
    assert not bool(tf.summary.scalar("x", 1.0, step=0))
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.scalar("x", 1.0)
        step = tf.Variable(7, dtype=tf.int64)
        tf.summary.experimental.set_step(step)
        assert tf.summary.experimental.get_step() is step
        tf.summary.scalar("x", 1.0)
        step.assign(8)
        tf.summary.scalar("x", 2.0)
    assert tf.summary.experimental.get_step() is None   # as_default restores the step
    with writer.as_default(step=20):
        tf.summary.scalar("x", 3.0)
    assert [s for s, _ in values(load(tmp_path), "x")] == [7, 8, 20]


def test_record_if_bool_tensor_and_callable(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert bool(tf.summary.should_record_summaries())
        with tf.summary.record_if(False):
            assert not bool(tf.summary.should_record_summaries())
            assert not bool(tf.summary.scalar("x", 1.0, step=0))
        step = tf.Variable(0, dtype=tf.int64)
        with tf.summary.record_if(lambda: tf.equal(step % 3, 0)):
            for _ in range(7):
                tf.summary.scalar("x", tf.cast(step, tf.float32), step=step)
                step.assign_add(1)
    assert [s for s, _ in values(load(tmp_path), "x")] == [0, 3, 6]


def test_histogram_image_text_audio(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    images = np.zeros((4, 2, 3, 3), np.float32)
    images[:, 0, 0, :] = [1.0, 0.5, 0.0]
    clips = np.zeros((2, 4, 1), np.float32)
    clips[0, :, 0] = [0.0, 0.5, -1.0, 1.0]
    with writer.as_default(step=5):
        tf.summary.histogram("h", tf.constant([0.0, 1.0, 2.0, 3.0]), buckets=2)
        tf.summary.image("im", tf.constant(images), max_outputs=2)
        tf.summary.text("t", tf.constant("**hi**"))
        tf.summary.audio("a", tf.constant(clips), 16000, max_outputs=1)
        with pytest.raises(TypeError, match="string"):
            tf.summary.text("bad", tf.constant(1))
    acc = load(tmp_path)
    ((step, hist),) = values(acc, "h")
    assert step == 5
    np.testing.assert_allclose(hist, [[0.0, 1.5, 2.0], [1.5, 3.0, 2.0]])
    assert acc.SummaryMetadata("h").plugin_data.plugin_name == "histograms"
    ((_, im),) = values(acc, "im")
    assert im[:2].tolist() == [b"3", b"2"] and len(im) == 4     # width, height, 2 PNGs
    pixels = np.array(Image.open(io.BytesIO(im[2])))
    assert pixels.shape == (2, 3, 3) and pixels[0, 0].tolist() == [255, 127, 0]
    assert acc.SummaryMetadata("im").plugin_data.plugin_name == "images"
    assert values(acc, "t")[0][1] == b"**hi**"
    assert acc.SummaryMetadata("t").plugin_data.plugin_name == "text"
    ((_, audio),) = values(acc, "a")
    assert audio.shape == (1, 2)
    with wave.open(io.BytesIO(audio[0, 0])) as f:
        assert f.getframerate() == 16000
        assert np.frombuffer(f.readframes(4), "<i2").tolist() == [0, 16384, -32768, 32767]
    assert acc.SummaryMetadata("a").plugin_data.plugin_name == "audio"


def test_summaries_inside_tf_function_write_on_every_call(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(0, dtype=tf.int64)
    traces = []

    @tf.function
    def train(x):
        traces.append(1)
        with writer.as_default():
            tf.summary.scalar("loss", tf.reduce_sum(x), step=step)
            with tf.summary.record_if(step % 2 == 0):
                tf.summary.histogram("x", x, step=step)
        step.assign_add(1)

    for i in range(4):
        train(tf.constant([float(i), 1.0]))
    writer.flush()
    acc = load(tmp_path)
    assert len(traces) == 1
    assert values(acc, "loss") == [(0, 1.0), (1, 2.0), (2, 3.0), (3, 4.0)]
    assert [s for s, _ in values(acc, "x")] == [0, 2]


def test_write_write_raw_pb_graph_noop_writer_and_flush(tmp_path):
    with tf.summary.create_noop_writer().as_default():
        assert not bool(tf.summary.scalar("x", 1.0, step=0))
    writer = tf.summary.create_file_writer(str(tmp_path), flush_millis=10 ** 9,
                                           filename_suffix=".mine")
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="custom"))
    raw = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="raw", simple_value=3.0)])
    writer.set_as_default(step=1)
    tf.summary.write("w", tf.constant([1, 2]), metadata=metadata)
    tf.summary.experimental.write_raw_pb(tf.constant(raw.SerializeToString()))
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0, name="c")
    assert bool(tf.summary.graph(graph))
    tf.summary.flush()
    acc = load(tmp_path)
    assert values(acc, "w")[0][1].tolist() == [1, 2]
    assert acc.SummaryMetadata("w").plugin_data.plugin_name == "custom"
    assert [(e.step, e.value) for e in acc.Scalars("raw")] == [(1, 3.0)]
    assert [n.name for n in acc.Graph().node] == ["c"]
    assert glob.glob(str(tmp_path / "*.mine"))
    writer.close()


def test_trace_export_writes_function_graphs(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def f(x):
        return tf.square(x, name="sq")

    with pytest.raises(ValueError, match="trace_on"):
        tf.summary.trace_export("t", step=0)
    tf.summary.trace_on(graph=True)
    f(tf.constant(2.0))
    with writer.as_default():
        tf.summary.trace_export("my_trace", step=0)
    acc = load(tmp_path)
    assert acc.SummaryMetadata("my_trace").plugin_data.plugin_name == \
        "graph_run_metadata_graph"
    run_metadata = config_pb2.RunMetadata.FromString(values(acc, "my_trace")[0][1].item())
    (function_graph,) = run_metadata.function_graphs
    assert "sq" in [n.name for n in function_graph.pre_optimization_graph.node]


def test_trace_export_finds_the_first_graph_of_the_process(tmp_path):
    """The process's first graph freezes the objects then alive (see
    _dependencies.long_lived_imports); trace_export still finds that function graph."""
    script = tmp_path / "trace.py"
    script.write_text(textwrap.dedent("""
        import sys
        import tfcompat as tf
        from tensorboard.compat.proto import config_pb2
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
        writer = tf.summary.create_file_writer(sys.argv[1])
        tf.summary.trace_on(graph=True)
        tf.function(lambda x: tf.square(x, name="sq"))(tf.constant(2.0))
        with writer.as_default():
            tf.summary.trace_export("t", step=0)
        writer.flush()
        acc = EventAccumulator(sys.argv[1], size_guidance={"tensors": 0})
        acc.Reload()
        data = tf.make_ndarray(acc.Tensors("t")[0].tensor_proto).item()
        graphs = config_pb2.RunMetadata.FromString(data).function_graphs
        print([n.name for g in graphs for n in g.pre_optimization_graph.node])
    """))
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "logs")],
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=repo))
    assert done.returncode == 0, done.stderr
    assert "'sq'" in done.stdout


def test_summary_iterator_reads_back_the_events_written(tmp_path):
    writer = tf.compat.v2.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            tf.compat.v2.summary.scalar("loss", 1.0 / (step + 1), step=step)
    writer.flush()
    path = [str(p) for p in tmp_path.iterdir() if p.name.startswith("events")][0]
    events = list(tf.compat.v1.train.summary_iterator(path))
    assert events[0].file_version == "brain.Event:2"
    values = [(e.step, v.tag, float(tf.make_ndarray(v.tensor)))
              for e in events for v in e.summary.value]
    assert values == [(0, "loss", 1.0), (1, "loss", 0.5), (2, "loss", pytest.approx(1 / 3))]
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) - 3)
    with pytest.raises(tf.errors.DataLossError):
        list(tf.compat.v1.train.summary_iterator(path))
