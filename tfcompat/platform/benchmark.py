"""`tf.test.Benchmark` and `tf.test.benchmark_config`, as TF 1.15's platform/benchmark.py.

A report is logged (`tf.logging.info`) and, like TF, printed as a `BenchmarkEntries` text proto,
or written serialized to `$TEST_REPORT_FILE_PREFIX<name>` when that variable is set. The
`BenchmarkEntries` message (tensorflow/core/util/test_log.proto) is not among tensorboard's
protos, so its fields are declared here with the same names and numbers: the bytes and text
are TF's. Where we differ: `store_memory_usage` reports the GPU allocator's peak
(`allocator_maximum_num_bytes_GPU_0_bfc`, torch's CUDA peak) and nothing on a CPU-only run;
`store_trace` gives torch.profiler's Chrome trace.
"""
import inspect
import json
import numbers
import os
import re
import sys
import tempfile
import time

import torch
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, wrappers_pb2
from tensorboard.compat.proto import config_pb2, rewriter_config_pb2

from tfcompat._api import tf_export
from tfcompat.platform import tf_logging

TEST_REPORTER_TEST_ENV = "TEST_REPORT_FILE_PREFIX"

# Every concrete Benchmark subclass, registered when its class statement runs.
GLOBAL_BENCHMARK_REGISTRY = set()


def _benchmark_entries_class():
    """The `tensorflow.BenchmarkEntries` message class (test_log.proto's fields)."""
    field = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="tfcompat/test_log.proto",
                                               package="tensorflow", syntax="proto3")

    def message(name, fields, nested=()):
        msg = proto.message_type.add(name=name)
        for number, (field_name, kind, extra) in enumerate(fields, 1):
            msg.field.add(name=field_name, number=number, type=kind,
                          label=extra.pop("label", field.LABEL_OPTIONAL), **extra)
        for nested_msg in nested:
            msg.nested_type.add().CopyFrom(nested_msg)
        return msg

    message("EntryValue", [("double_value", field.TYPE_DOUBLE, {"oneof_index": 0}),
                           ("string_value", field.TYPE_STRING, {"oneof_index": 0})])
    proto.message_type[-1].oneof_decl.add(name="kind")
    message("MetricEntry", [("name", field.TYPE_STRING, {}),
                            ("value", field.TYPE_DOUBLE, {}),
                            ("min_value", field.TYPE_MESSAGE,
                             {"type_name": ".google.protobuf.DoubleValue"}),
                            ("max_value", field.TYPE_MESSAGE,
                             {"type_name": ".google.protobuf.DoubleValue"})])
    extras_entry = descriptor_pb2.DescriptorProto(name="ExtrasEntry")
    extras_entry.options.map_entry = True
    extras_entry.field.add(name="key", number=1, type=field.TYPE_STRING,
                           label=field.LABEL_OPTIONAL)
    extras_entry.field.add(name="value", number=2, type=field.TYPE_MESSAGE,
                           label=field.LABEL_OPTIONAL, type_name=".tensorflow.EntryValue")
    message("BenchmarkEntry", [
        ("name", field.TYPE_STRING, {}), ("iters", field.TYPE_INT64, {}),
        ("cpu_time", field.TYPE_DOUBLE, {}), ("wall_time", field.TYPE_DOUBLE, {}),
        ("throughput", field.TYPE_DOUBLE, {}),
        ("extras", field.TYPE_MESSAGE, {"type_name": ".tensorflow.BenchmarkEntry.ExtrasEntry",
                                        "label": field.LABEL_REPEATED}),
        ("metrics", field.TYPE_MESSAGE, {"type_name": ".tensorflow.MetricEntry",
                                         "label": field.LABEL_REPEATED})],
        nested=[extras_entry])
    message("BenchmarkEntries", [("entry", field.TYPE_MESSAGE, {
        "type_name": ".tensorflow.BenchmarkEntry", "label": field.LABEL_REPEATED})])
    proto.dependency.append("google/protobuf/wrappers.proto")
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(wrappers_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(proto)
    return message_factory.GetMessageClass(
        pool.FindMessageTypeByName("tensorflow.BenchmarkEntries"))


BenchmarkEntries = _benchmark_entries_class()


def _report(name, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None,
            metrics=None):
    """Log one benchmark result and print it, or write it under $TEST_REPORT_FILE_PREFIX."""
    if extras is not None and not isinstance(extras, dict):
        raise TypeError("extras must be a dict")
    tf_logging.info("Benchmark [%s] iters: %d, wall_time: %g, cpu_time: %g,throughput: %g, "
                    "extras: %s, metrics: %s", name, -1 if iters is None else iters,
                    -1 if wall_time is None else wall_time,
                    -1 if cpu_time is None else cpu_time,
                    -1 if throughput is None else throughput,
                    str(extras) if extras else "None", str(metrics) if metrics else "None")
    entries = BenchmarkEntries()
    entry = entries.entry.add(name=name)
    for field, value in (("iters", iters), ("cpu_time", cpu_time), ("wall_time", wall_time),
                         ("throughput", throughput)):
        if value is not None:
            setattr(entry, field, value)
    for key, value in (extras or {}).items():
        if isinstance(value, numbers.Number):
            entry.extras[key].double_value = value
        else:
            entry.extras[key].string_value = str(value)
    for metric in metrics or ():
        added = entry.metrics.add(name=metric["name"], value=metric["value"])
        for bound in ("min_value", "max_value"):
            if bound in metric:
                getattr(added, bound).value = metric[bound]
    prefix = os.environ.get(TEST_REPORTER_TEST_ENV)
    if prefix is None:
        print(str(entries))
        return
    path = prefix + name.replace("/", "__")
    if os.path.exists(path):
        raise IOError("File already exists: %s" % path)
    with open(path, "wb") as out:
        out.write(entries.SerializeToString())


def _median(values):
    if not values:
        return -1
    ordered = sorted(values)
    return (ordered[len(values) // 2] + ordered[(len(values) - 1) // 2]) / 2.0


def _chrome_trace(run):
    """torch.profiler's Chrome trace (JSON text) of one call of `run`."""
    activities = [torch.profiler.ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities) as profiler:
        run()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.json")
        profiler.export_chrome_trace(path)
        with open(path) as f:
            return json.dumps(json.load(f))


class Benchmark(object):
    """Base class of benchmarks: `report_benchmark` names a result `Class.method` after the
    outermost benchmark method on the stack (or `Class.<name>`). Subclasses are registered
    for `--benchmarks=REGEX` (see `benchmarks_main`)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__ != __name__:  # not tf.test.Benchmark itself
            GLOBAL_BENCHMARK_REGISTRY.add(cls)

    def _get_name(self, overwrite_name=None):
        """`Class.method` of the outermost frame whose `self` is a Benchmark (this method's
        own frame at the latest, so a call from outside names `report_benchmark`)."""
        frame_info = next(info for info in reversed(inspect.stack())
                          if isinstance(info.frame.f_locals.get("self"), Benchmark))
        return "%s.%s" % (type(frame_info.frame.f_locals["self"]).__name__,
                          overwrite_name or frame_info.function)

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None,
                         extras=None, name=None, metrics=None):
        """Report one result: iterations, median/mean CPU and wall time (seconds), throughput
        (MB/s), `extras` (name -> number or string) and `metrics` (dicts with name, value,
        optional min_value/max_value)."""
        _report(self._get_name(overwrite_name=name), iters=iters, cpu_time=cpu_time,
                wall_time=wall_time, throughput=throughput, extras=extras, metrics=metrics)


@tf_export("test.Benchmark")
class TensorFlowBenchmark(Benchmark):
    """`tf.test.Benchmark`: `run_op_benchmark` times `sess.run` of an op or tensor."""

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2, min_iters=10,
                         store_trace=False, store_memory_usage=True, name=None, extras=None,
                         mbs=0):
        """Run `burn_iters` untimed then `min_iters` timed `sess.run`s; report and return
        {"iters", "wall_time" (the median, seconds), "extras", "name", "throughput"
        (mbs / wall_time)}; `extras` gains "full_trace_chrome_format" with `store_trace`
        (returned, not reported, as TF does)."""
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        extras = extras if extras is not None else {}
        unreported_extras = {}
        if store_trace:
            unreported_extras["full_trace_chrome_format"] = _chrome_trace(
                lambda: sess.run(op_or_tensor, feed_dict=feed_dict))
        if store_memory_usage and torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            extras["allocator_maximum_num_bytes_GPU_0_bfc"] = torch.cuda.max_memory_allocated()
        wall_time = _median(deltas)
        values = {"iters": min_iters, "wall_time": wall_time, "extras": extras, "name": name,
                  "throughput": mbs / wall_time}
        self.report_benchmark(**values)
        values["extras"].update(unreported_extras)
        return values


def run_benchmarks(regex):
    """Call each `benchmark*` method of the registered classes whose
    `module.Class.method` name matches `regex` ("all" matches every one)."""
    for cls in list(GLOBAL_BENCHMARK_REGISTRY):
        instance = None
        for attr in dir(cls):
            full_name = "%s.%s.%s" % (cls.__module__, cls.__name__, attr)
            if attr.startswith("benchmark") and callable(getattr(cls, attr)) and \
                    (regex == "all" or re.search(regex, full_name)):
                instance = instance or cls()
                getattr(instance, attr)()


def benchmarks_main(true_main, argv=None):
    """Run the benchmarks `--benchmarks=REGEX` in argv selects (removing that argument),
    else `true_main()`."""
    argv = sys.argv if argv is None else argv
    found = [arg for arg in argv if arg.startswith(("--benchmarks=", "-benchmarks="))]
    if not found:
        return true_main()
    argv.remove(found[0])
    return run_benchmarks(found[0].split("=", 1)[1])


@tf_export("test.benchmark_config")
def benchmark_config():
    """A ConfigProto with Grappler's dependency optimizer off, as TF's (tfcompat has no
    Grappler: the option is accepted and changes nothing)."""
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = (
        rewriter_config_pb2.RewriterConfig.OFF)
    return config
