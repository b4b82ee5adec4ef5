"""tf.test.Benchmark (report_benchmark, run_op_benchmark, --benchmarks=) and
tf.test.benchmark_config, as TF 1.15's platform/benchmark.py."""
import json
import sys

import pytest
from google.protobuf import text_format

import tfcompat as tf
from tfcompat.platform import benchmark


class AddBenchmark(tf.test.Benchmark):
    runs = []

    def benchmark_add_op(self):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.compat.v1.placeholder(tf.float32, [2])
            y = x + 1.0
            with tf.compat.v1.Session(graph=graph, config=tf.test.benchmark_config()) as sess:
                values = self.run_op_benchmark(sess, y, feed_dict={x: [1.0, 2.0]}, burn_iters=1,
                                               min_iters=4, mbs=2, extras={"batch": 2},
                                               store_trace=True)
        AddBenchmark.runs.append(values)

    def benchmark_report(self):
        self._helper()

    def _helper(self):   # named after the outermost benchmark method on the stack
        self.report_benchmark(iters=3, wall_time=0.25, cpu_time=0.5, throughput=4.0,
                              extras={"k": 2.0, "note": "fast"},
                              metrics=[{"name": "acc", "value": 0.75, "min_value": 0.5}])


def parse_entries(text):
    return text_format.Parse(text, benchmark.BenchmarkEntries())


def test_report_benchmark_prints_tf_proto(capsys, monkeypatch):
    monkeypatch.delenv(benchmark.TEST_REPORTER_TEST_ENV, raising=False)
    AddBenchmark().benchmark_report()
    entry = parse_entries(capsys.readouterr().out).entry[0]
    assert entry.name == "AddBenchmark.benchmark_report"
    assert (entry.iters, entry.wall_time, entry.cpu_time, entry.throughput) == (3, 0.25, 0.5, 4.0)
    assert entry.extras["k"].double_value == 2.0
    assert entry.extras["note"].string_value == "fast"
    assert entry.metrics[0].name == "acc" and entry.metrics[0].value == 0.75
    assert entry.metrics[0].min_value.value == 0.5 and not entry.metrics[0].HasField("max_value")


def test_report_benchmark_writes_file_under_prefix(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(benchmark.TEST_REPORTER_TEST_ENV, str(tmp_path / "bench_"))
    bench = AddBenchmark()
    bench.report_benchmark(iters=1, wall_time=2.0, name="a/b")
    assert capsys.readouterr().out == ""
    entries = benchmark.BenchmarkEntries.FromString((tmp_path / "bench_AddBenchmark.a__b")
                                                     .read_bytes())
    assert entries.entry[0].name == "AddBenchmark.a/b" and entries.entry[0].wall_time == 2.0
    # TF's serialized bytes: entry {name: "x" iters: 1}
    one = benchmark.BenchmarkEntries()
    one.entry.add(name="x", iters=1)
    assert one.SerializeToString() == b"\n\x05\n\x01x\x10\x01"
    with pytest.raises(IOError, match="File already exists"):
        bench.report_benchmark(iters=1, name="a/b")


def test_report_benchmark_checks_extras_and_names_outside_calls(capsys, monkeypatch):
    monkeypatch.delenv(benchmark.TEST_REPORTER_TEST_ENV, raising=False)
    with pytest.raises(TypeError, match="extras must be a dict"):
        AddBenchmark().report_benchmark(extras=[1])
    AddBenchmark().report_benchmark(iters=1)
    assert parse_entries(capsys.readouterr().out).entry[0].name == \
        "AddBenchmark.report_benchmark"


def test_run_op_benchmark_returns_tf_dict(capsys, monkeypatch):
    monkeypatch.delenv(benchmark.TEST_REPORTER_TEST_ENV, raising=False)
    AddBenchmark.runs.clear()
    AddBenchmark().benchmark_add_op()
    values = AddBenchmark.runs[0]
    assert set(values) == {"iters", "wall_time", "extras", "name", "throughput"}
    assert values["iters"] == 4 and values["name"] is None
    assert values["wall_time"] > 0 and values["throughput"] == pytest.approx(2 / values["wall_time"])
    assert values["extras"]["batch"] == 2
    assert "traceEvents" in json.loads(values["extras"]["full_trace_chrome_format"])
    entry = parse_entries(capsys.readouterr().out).entry[0]
    assert entry.name == "AddBenchmark.benchmark_add_op" and entry.iters == 4
    assert "full_trace_chrome_format" not in entry.extras   # returned, not reported


def test_median_as_tf():
    assert benchmark._median([3.0, 1.0, 2.0]) == 2.0
    assert benchmark._median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert benchmark._median([]) == -1


def test_benchmarks_flag_runs_registered_benchmarks(monkeypatch, capsys):
    assert AddBenchmark in benchmark.GLOBAL_BENCHMARK_REGISTRY
    assert tf.test.Benchmark not in benchmark.GLOBAL_BENCHMARK_REGISTRY
    argv = ["prog", "--benchmarks=AddBenchmark.benchmark_report"]
    monkeypatch.setattr(sys, "argv", argv)
    benchmark.benchmarks_main(lambda: pytest.fail("tests ran instead of benchmarks"))
    assert argv == ["prog"]
    assert parse_entries(capsys.readouterr().out).entry[0].name == "AddBenchmark.benchmark_report"
    assert benchmark.benchmarks_main(lambda: "tests", argv=["prog"]) == "tests"


def test_benchmark_config_turns_dependency_optimizer_off():
    config = tf.test.benchmark_config()
    assert isinstance(config, tf.compat.v1.ConfigProto)
    assert config.graph_options.rewrite_options.dependency_optimization == 2   # OFF
