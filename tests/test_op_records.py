"""The generic op test: every record of tests/op_records.py, per dtype, checked
- eager: results, dtypes and shapes against the numpy reference;
- graph: built in a TF1 `tf.Graph` on placeholders (first dim None where the record
  allows), static shapes compatible with eager's, `Session.run` values equal to eager's
  (the reference's for graph-only ops, TF1's tf.metrics), variables initialized first;
- gradient (float64): `tf.GradientTape` gradients of sum(outputs * random cotangents)
  against central finite differences of the op itself.
A random op's record has `samples` instead of a numpy reference: eager and graph check the
samples' shape, dtype, range and statistics, and seeded determinism (a stateful op's second
call gives new values, the same seeds replay the first; a stateless op repeats its values
and its graph gives eager's); "replay" checks that a new `Session` on the same graph
restarts a stateful op's sequence, as TF documents for `tf.compat.v1.set_random_seed`.
"""
import numpy as np
import pytest

import tfcompat as tf
from op_records import F64, RECORDS

FINITE_DIFFERENCE_STEP = 1e-6


def _flat(result):
    if isinstance(result, tf.sparse.SparseTensor):
        return [result.indices, result.values, result.dense_shape]
    if isinstance(result, tf.RaggedTensor):
        return [result.flat_values, *result.nested_row_splits]
    if isinstance(result, (list, tuple)):
        return [t for part in result for t in _flat(part)]
    return [result]


def _run(record, tensors, dtype, reseed=True):
    return _flat(record.run(tensors, dtype, reseed))


def _numpy(results):
    return [np.asarray(r.numpy()) for r in results]


@pytest.fixture(autouse=True)
def _no_global_seed():
    """Random records set the global seed; later tests start without one."""
    yield
    tf.random.set_seed(None)


def _assert_close(actual, expected, tolerance, what):
    rtol, atol = tolerance
    assert actual.shape == expected.shape, (what, actual.shape, expected.shape)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def _assert_dtypes(record, results, dtype):
    wanted = record.out_dtypes(dtype, len(results))
    assert [r.dtype for r in results] == [tf.as_dtype(w) for w in wanted], (
        [r.dtype for r in results], wanted)


def _assert_same_draws(actual, expected, what):
    for i, (a, e) in enumerate(zip(actual, expected)):
        np.testing.assert_array_equal(a, e, err_msg="%s: output %d" % (what, i))


def _assert_new_draws(actual, previous):
    assert any(not np.array_equal(a, p) for a, p in zip(actual, previous)), \
        "a second call repeated the first call's values"


def check_eager_samples(record, dtype):
    arrays = record.arrays(dtype)
    tensors = [tf.constant(a) for a in arrays]
    results = _run(record, tensors, dtype)
    _assert_dtypes(record, results, dtype)
    first = _numpy(results)
    record.samples.verify(first, arrays)
    again = _numpy(_run(record, tensors, dtype, reseed=False))
    if record.samples.stateless:
        _assert_same_draws(again, first, "a stateless op's second call")
    else:
        _assert_new_draws(again, first)
        _assert_same_draws(_numpy(_run(record, tensors, dtype)), first,
                           "the same global and op seeds")


def check_eager(record, dtype):
    if record.samples is not None:
        return check_eager_samples(record, dtype)
    arrays = record.arrays(dtype)
    results = _run(record, [tf.constant(a) for a in arrays], dtype)
    expected = record.expected(arrays, dtype)
    assert len(results) == len(expected)
    for i, (result, want) in enumerate(zip(results, expected)):
        assert result.dtype == tf.as_dtype(want.dtype), (i, result.dtype, want.dtype)
        _assert_close(np.asarray(result.numpy()), want, record.tolerance_for(want.dtype),
                      "output %d" % i)


def _placeholder_shape(arg, array):
    if arg.unknown_batch and array.ndim:
        return [None] + list(array.shape[1:])
    return list(array.shape)


def _placeholders(record, arrays):
    return [tf.compat.v1.placeholder(tf.as_dtype(a.dtype), _placeholder_shape(arg, a))
            for arg, a in zip(record.args, arrays)]


def _assert_static_shapes(outputs, values):
    """Each graph output's static shape is compatible with its value's shape."""
    assert len(outputs) == len(values)
    for i, (output, value) in enumerate(zip(outputs, values)):
        static = output.shape.as_list()
        actual = list(np.shape(value))
        assert static is None or (len(static) == len(actual) and all(
            s is None or s == a for s, a in zip(static, actual))), (i, static, actual)


def _graph_draws(record, arrays, dtype, sessions=1, runs=1):
    """The record built in a new graph of placeholders: the values of `runs` runs in each
    of `sessions` new Sessions."""
    with tf.Graph().as_default():
        placeholders = _placeholders(record, arrays)
        outputs = _run(record, placeholders, dtype)
        _assert_dtypes(record, outputs, dtype)
        feed = dict(zip(placeholders, arrays))
        draws = []
        for _ in range(sessions):
            with tf.compat.v1.Session() as sess:
                draws += [sess.run(outputs, feed) for _ in range(runs)]
    _assert_static_shapes(outputs, draws[0])
    return draws


def check_graph_samples(record, dtype):
    arrays = record.arrays(dtype)
    first, again = _graph_draws(record, arrays, dtype, runs=2)
    record.samples.verify(first, arrays)
    if record.samples.stateless:
        _assert_same_draws(again, first, "a stateless op's second run")
        eager = _numpy(_run(record, [tf.constant(a) for a in arrays], dtype))
        _assert_same_draws(first, eager, "a stateless op in a graph and eagerly")
    else:
        _assert_new_draws(again, first)
    rebuilt, = _graph_draws(record, arrays, dtype)
    _assert_same_draws(rebuilt, first, "a graph built again with the same seeds")


def check_replay(record, dtype):
    """TF's kernels keep their generators per Session: a new one restarts the sequence."""
    first, again = _graph_draws(record, record.arrays(dtype), dtype, sessions=2)
    _assert_same_draws(again, first, "the first run of a second Session")


def _initialize_variables(sess, feed):
    """Runs the initializers of the graph's variables (those made of fed values need the
    feed), as a TF1 program does before its first step."""
    if tf.compat.v1.global_variables() or tf.compat.v1.local_variables():
        sess.run([tf.compat.v1.global_variables_initializer(),
                  tf.compat.v1.local_variables_initializer()], feed)


def check_graph(record, dtype):
    if record.samples is not None:
        return check_graph_samples(record, dtype)
    arrays = record.arrays(dtype)
    if "eager" in record.modes:
        wanted = _numpy(_run(record, [tf.constant(a) for a in arrays], dtype))
    else:
        wanted = record.expected(arrays, dtype)
    with tf.Graph().as_default():
        placeholders = _placeholders(record, arrays)
        outputs = _run(record, placeholders, dtype)
        assert len(outputs) == len(wanted)
        for i, (output, value) in enumerate(zip(outputs, wanted)):
            assert output.dtype == tf.as_dtype(value.dtype), (i, output.dtype, value.dtype)
        _assert_static_shapes(outputs, wanted)
        feed = dict(zip(placeholders, arrays))
        with tf.compat.v1.Session() as sess:
            _initialize_variables(sess, feed)
            values = sess.run(outputs, feed)
    for i, (value, want) in enumerate(zip(values, wanted)):
        _assert_close(np.asarray(value), want, record.tolerance_for(want.dtype), "output %d" % i)


def check_gradient(record, dtype):
    arrays = record.arrays(dtype)
    outputs = _run(record, [tf.constant(a) for a in arrays], dtype)
    rng = np.random.RandomState(1)
    used = record.grad_outputs if record.grad_outputs is not None else range(len(outputs))
    cotangents = [rng.uniform(0.5, 1.5, out.shape.as_list())
                  if out.dtype.is_floating and i in used else None
                  for i, out in enumerate(outputs)]

    def loss(values):
        outs = _run(record, [tf.constant(v) for v in values], dtype)
        return sum(float(np.sum(np.asarray(o.numpy()) * w))
                   for o, w in zip(outs, cotangents) if w is not None)

    tensors = [tf.constant(a) for a in arrays]
    sources = [tensors[i] for i in record.grad_args]
    with tf.GradientTape() as tape:
        for source in sources:
            tape.watch(source)
        outs = _run(record, tensors, dtype)
        total = tf.add_n([tf.reduce_sum(o * tf.constant(w))
                          for o, w in zip(outs, cotangents) if w is not None])
    gradients = tape.gradient(total, sources)
    for i, gradient in zip(record.grad_args, gradients):
        assert gradient is not None, "no gradient for argument %d" % i
        numeric = np.zeros(arrays[i].shape)
        for index in np.ndindex(*arrays[i].shape):
            values = [a.copy() for a in arrays]
            values[i][index] += FINITE_DIFFERENCE_STEP
            up = loss(values)
            values[i][index] -= 2 * FINITE_DIFFERENCE_STEP
            numeric[index] = (up - loss(values)) / (2 * FINITE_DIFFERENCE_STEP)
        rtol, atol = record.gradient_tolerance
        np.testing.assert_allclose(np.asarray(tf.convert_to_tensor(gradient).numpy()), numeric,
                                   rtol=rtol, atol=atol, err_msg="gradient of argument %d" % i)


CHECKS = {"eager": check_eager, "graph": check_graph, "gradient": check_gradient,
          "replay": check_replay}


def _cases():
    for record in RECORDS:
        checks = [(check, np.dtype(dtype)) for dtype in record.dtypes
                  for check in record.modes]
        if record.grad_args and F64 in record.dtypes and "eager" in record.modes:
            checks.append(("gradient", np.dtype(F64)))
        if record.samples is not None and not record.samples.stateless:
            checks.append(("replay", np.dtype(record.dtypes[0])))
        for check, dtype in checks:
            reason = record.xfail.get("%s-%s" % (check, dtype.name), record.xfail.get(check))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            yield pytest.param(record, dtype.type, check, marks=marks,
                               id="%s-%s-%s" % (record.id, dtype.name, check))


@pytest.mark.parametrize("record,dtype,check", list(_cases()))
def test_op_record(record, dtype, check):
    CHECKS[check](record, dtype)
