"""Op records: one table of TF ops checked by tests/test_op_records.py, in the spirit of JAX's
`OpRecord`s (tests/lax_test.py).

A record names an op by its TF path and gives its tensor arguments (shape, a value
generator, an optional fixed dtype), the dtypes to run it in, a numpy reference, tolerances,
which arguments are differentiated, which are fed with an unknown first dimension in graph
mode, and the op's static keyword arguments. The generic test checks, per (record, dtype):
eager results against the reference; a TF1 graph (`Session.run` of placeholders) against
eager; and, in float64, `tf.GradientTape` gradients against central finite differences.

`python tests/op_records.py` lists the `@op` functions of tfcompat that no record runs
(`EXCLUDED` gives why for those no record can run).
"""
import base64
import colorsys
import contextlib
import dataclasses
import importlib
import inspect
import itertools
import math
import pkgutil
import sys
import zlib
from typing import Callable, Optional

import numpy as np

import tfcompat as tf

F32, F64, I32, I64, BOOL = np.float32, np.float64, np.int32, np.int64, np.bool_
FLOATS = (F32, F64)
NUMERIC = (F32, F64, I32)

# rtol, atol: eager vs numpy and graph vs eager
C64, C128 = np.complex64, np.complex128
TOLERANCE = {np.dtype(F32): (1e-5, 1e-6), np.dtype(F64): (1e-9, 1e-12),
             np.dtype(C64): (1e-5, 1e-6), np.dtype(C128): (1e-9, 1e-12)}
GRADIENT_TOLERANCE = (1e-5, 1e-6)   # float64 gradients vs central differences, step 1e-6
CASE_DTYPE = object()               # a static kwarg replaced by the case's tf.DType


@dataclasses.dataclass(frozen=True)
class Arg:
    """One tensor argument. `sample(rng, shape)` gives its values (any float/int array),
    cast to `dtype` when fixed (indices, masks) or else to the case's dtype (integer
    cases round). `unknown_batch`: graph mode feeds it through a placeholder whose first
    dimension is None."""
    shape: tuple
    sample: Callable
    dtype: Optional[type] = None
    unknown_batch: bool = True

    def value(self, rng, case_dtype):
        values = np.asarray(self.sample(rng, self.shape))
        dtype = np.dtype(self.dtype or case_dtype)
        if dtype.kind in "iu" and values.dtype.kind == "f":
            values = np.round(values)
        return values.astype(dtype)


def uniform(shape, low=-2.0, high=2.0, **options):
    return Arg(shape, lambda rng, s: rng.uniform(low, high, s), **options)


def away_from(shape, kinks=(0.0,), low=-3.0, high=3.0, gap=0.2, **options):
    """Uniform values at least `gap` from each kink (relu's 0, relu6's 6): finite
    differences straddling a kink would not match the one-sided derivative TF uses."""
    def sample(rng, s):
        values = rng.uniform(low, high, s)
        for kink in kinks:
            near = np.abs(values - kink) < gap
            values = np.where(near, kink + np.copysign(gap, values - kink), values)
        return values
    return Arg(shape, sample, **options)


def positive(shape, low=0.5, high=3.0, **options):
    return uniform(shape, low, high, **options)


def integers(shape, low, high, dtype=I32, **options):
    return Arg(shape, lambda rng, s: rng.randint(low, high, s), dtype=dtype, **options)


def fixed(values, dtype=None, **options):
    values = np.asarray(values)
    return Arg(values.shape, lambda rng, s: values, dtype=dtype, **options)


def distribution(shape, **options):
    """Rows (last axis) of probabilities summing to 1, as softmax labels are."""
    def sample(rng, s):
        e = np.exp(rng.uniform(-1.0, 1.0, s))
        return e / e.sum(-1, keepdims=True)
    return Arg(shape, sample, **options)


def spd(shape, **options):
    """Symmetric positive definite matrices (cholesky, solve stay well conditioned)."""
    def sample(rng, s):
        a = rng.uniform(-1.0, 1.0, s)
        return a @ np.swapaxes(a, -1, -2) + s[-1] * np.eye(s[-1])
    return Arg(shape, sample, **options)


@dataclasses.dataclass(frozen=True)
class Samples:
    """What a random op's outputs satisfy, checked in place of a numpy reference: the
    first output's `shape` and its values within [`low`, `high`]; `statistics(outputs,
    *arrays)` gives (measured, expected) pairs (moments, frequencies, the values put back in
    order) that agree within `atol` over the sample. `stateless`: the seed alone gives the
    values (a call repeats, graph and eager agree); otherwise a second call in a row gives
    new values and re-setting the same global and op seeds replays the first."""
    shape: tuple
    statistics: Callable = lambda outputs, *arrays: []
    low: float = -np.inf
    high: float = np.inf
    atol: float = 0.05
    stateless: bool = False

    def verify(self, outputs, arrays):
        first = outputs[0]
        assert first.shape == tuple(self.shape), (first.shape, self.shape)
        assert self.low <= first.min() and first.max() <= self.high, \
            (first.min(), first.max(), self.low, self.high)
        for i, (measured, expected) in enumerate(self.statistics(outputs, *arrays)):
            np.testing.assert_allclose(np.asarray(measured, float), np.asarray(expected, float),
                                       rtol=0, atol=self.atol, err_msg="statistic %d" % i)


RANDOM_SEED = 1234   # the global seed a random record's run sets


@dataclasses.dataclass(frozen=True)
class OpRecord:
    """An op under test.

    `path`: the TF path, looked up in `tf.compat.<api>`. `reference(*arrays)`: numpy
    results (an array or a tuple), cast to `out_dtype` (the case dtype when None; a tuple
    for several outputs; a dict: case dtype -> out dtype). `call(op, *tensors, **kwargs)`:
    how the op takes its tensors (default `op(*tensors, **kwargs)`); `kwargs` values of
    CASE_DTYPE become the case's dtype. `grad_args`: indexes of the arguments
    differentiated (empty: not differentiable in TF); `grad_outputs`: the outputs whose
    gradients TF's gradient function uses (None: all floating outputs). `xfail`: check
    name ("eager", "graph", "gradient", "replay", or with the dtype, "graph-float64") ->
    why it fails.
    A random op has `samples` (see `Samples`) instead of a `reference`; each run sets the
    global seed first (the op seed is a kwarg), so its gradients are those of one draw.
    `modes`: where the op runs: ("graph",) for TF1's tf.metrics, whose graph check then
    compares `Session.run` values with the reference; ("eager",) where a TF1 graph would run
    part of it at once (Keras' reset_state assigns through the session when called).
    """
    path: str
    args: tuple
    reference: Callable
    dtypes: tuple = FLOATS
    kwargs: dict = dataclasses.field(default_factory=dict)
    call: Optional[Callable] = None
    grad_args: tuple = (0,)
    grad_outputs: Optional[tuple] = None
    out_dtype: object = None
    tolerance: dict = dataclasses.field(default_factory=dict)
    gradient_tolerance: tuple = GRADIENT_TOLERANCE
    api: str = "v2"
    name: Optional[str] = None
    xfail: dict = dataclasses.field(default_factory=dict)
    samples: Optional[Samples] = None
    modes: tuple = ("eager", "graph")

    @property
    def id(self):
        return self.name or self.path

    def arrays(self, dtype):
        rng = np.random.RandomState(zlib.crc32(self.id.encode()))
        return [arg.value(rng, dtype) for arg in self.args]

    def expected(self, arrays, dtype):
        results = self.reference(*arrays)
        results = list(results) if isinstance(results, (tuple, list)) else [results]
        return [np.asarray(r).astype(d)
                for r, d in zip(results, self.out_dtypes(dtype, len(results)))]

    def out_dtypes(self, dtype, count):
        """The numpy dtypes of the op's `count` outputs in a `dtype` case."""
        out = self.out_dtype if self.out_dtype is not None else dtype
        out = out.get(dtype) if isinstance(out, dict) else out
        out = out if isinstance(out, tuple) else (out,) * count
        return [np.dtype(dtype if d is None else d) for d in out]

    def run(self, tensors, dtype, reseed=True):
        """The op's result on `tensors` (eager tensors or placeholders) in a `dtype` case;
        a random op's run first sets the global seed unless `reseed` is False."""
        if self.samples is not None and reseed:
            tf.random.set_seed(RANDOM_SEED)
        kwargs = {k: (tf.as_dtype(dtype) if v is CASE_DTYPE else v)
                  for k, v in self.kwargs.items()}
        if self.call is not None:
            return self.call(lookup(self), *tensors, **kwargs)
        return lookup(self)(*tensors, **kwargs)

    def tolerance_for(self, dtype):
        dtype = np.dtype(dtype)
        return self.tolerance.get(dtype.type, TOLERANCE.get(dtype, (0, 0)))


def symmetrized(op, matrix, **kwargs):
    """`op((m + m^H) / 2)`: cholesky reads one triangle, so finite differences of the op
    alone would not see the other; TF's gradients are those of the symmetric input."""
    return op((matrix + tf.linalg.adjoint(matrix)) / 2, **kwargs)


def as_list(op, *tensors, **kwargs):
    """`op([t1, t2, ...], **kwargs)`: concat, stack, add_n take one list."""
    return op(list(tensors), **kwargs)


def with_v1(record, **changes):
    """The record and a copy running TF1's function of the same path (`tf.compat.v1`),
    a different op where TF1's signature or behaviour differs."""
    changes.setdefault("name", record.id + "(v1)")
    return [record, dataclasses.replace(record, api="v1", **changes)]


def keywords(*names):
    """`op(name1=t1, ...)`: losses take labels/logits by keyword."""
    def call(op, *tensors, **kwargs):
        return op(**dict(zip(names, tensors)), **kwargs)
    return call


# ---------------------------------------------------------------- math: elementwise

X = np.array([[0.5, -1.5, 2.0], [3.25, -0.25, 1.0]])
Y = np.array([[1.5, 2.0, -4.0], [0.5, 3.0, 2.5]])
POS = np.array([0.25, 0.5, 1.0, 4.0])
UNIT = np.array([-0.9, -0.2, 0.3, 0.8])
SPECIAL = np.array([1.0, np.nan, np.inf, -np.inf])

erf, erfc, lgamma = (np.vectorize(f) for f in (math.erf, math.erfc, math.lgamma))


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _digamma(v):
    """digamma by recurrence up to 10 then the asymptotic series (|error| < 1e-12)."""
    result = 0.0
    while v < 10:
        result -= 1 / v
        v += 1
    inv2 = 1 / (v * v)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 / 240)))
    return result + math.log(v) - 0.5 / v - series


def unary(path, values, reference, dtypes=FLOATS, differentiable=True, **options):
    return OpRecord(path, (fixed(values),), reference, dtypes=dtypes,
                    grad_args=(0,) if differentiable else (), **options)


RECORDS = [
    unary("math.negative", X, np.negative, NUMERIC),
    unary("math.abs", X, np.abs, NUMERIC),
    unary("math.sign", X, np.sign, NUMERIC, differentiable=False),
    unary("math.square", X, np.square, NUMERIC),
    unary("math.sqrt", POS, np.sqrt),
    unary("math.rsqrt", POS, lambda v: 1 / np.sqrt(v)),
    unary("math.exp", X, np.exp),
    unary("math.expm1", X, np.expm1),
    unary("math.log", POS, np.log),
    unary("math.log1p", POS, np.log1p),
    unary("math.reciprocal", POS, np.reciprocal),
    unary("math.floor", X, np.floor, differentiable=False),
    unary("math.ceil", X, np.ceil, differentiable=False),
    unary("math.round", np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, 2.6]), np.round,
          differentiable=False),
    unary("math.rint", np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, 2.6]), np.rint,
          differentiable=False),
    unary("math.sin", X, np.sin),
    unary("math.cos", X, np.cos),
    unary("math.tan", UNIT, np.tan),
    unary("math.asin", UNIT, np.arcsin),
    unary("math.acos", UNIT, np.arccos),
    unary("math.atan", X, np.arctan),
    unary("math.sinh", X, np.sinh),
    unary("math.cosh", X, np.cosh),
    unary("math.tanh", X, np.tanh),
    unary("nn.tanh", X, np.tanh, name="nn.tanh"),
    unary("math.asinh", X, np.arcsinh),
    unary("math.acosh", POS + 1, np.arccosh),
    unary("math.atanh", UNIT, np.arctanh),
    unary("math.sigmoid", X, _sigmoid),
    unary("math.log_sigmoid", X, lambda v: -np.log1p(np.exp(-v))),
    unary("math.erf", X, erf),
    unary("math.erfc", X, erfc),
    unary("math.lgamma", POS, lgamma),
    unary("math.digamma", POS + 1, lambda v: np.vectorize(_digamma)(v)),
    unary("math.is_nan", SPECIAL, np.isnan, differentiable=False, out_dtype=BOOL),
    unary("math.is_inf", SPECIAL, np.isinf, differentiable=False, out_dtype=BOOL),
    unary("math.is_finite", SPECIAL, np.isfinite, differentiable=False, out_dtype=BOOL),
    unary("math.softplus", X, lambda v: np.log1p(np.exp(v))),
    unary("math.softsign", X, lambda v: v / (1 + np.abs(v))),
    unary("math.logical_not", np.array([True, False, True]), np.logical_not, (BOOL,),
          differentiable=False),
    unary("bitwise.invert", np.array([12, 10, -3]), np.invert, (I32,), differentiable=False),
]


def binary(path, x, y, reference, dtypes=FLOATS, grad_args=(0, 1), **options):
    return OpRecord(path, (fixed(x), fixed(y)), reference, dtypes=dtypes,
                    grad_args=grad_args, **options)


INT_X, INT_Y = np.array([7, -7, 7]), np.array([2, 2, -2])
BITS_X, BITS_Y = np.array([12, 10]), np.array([10, 3])
BOOL_X, BOOL_Y = np.array([True, True, False, False]), np.array([True, False, True, False])

RECORDS += [
    binary("math.add", X, Y, np.add, NUMERIC),
    binary("math.subtract", X, Y, np.subtract, NUMERIC),
    binary("math.multiply", X, Y, np.multiply, NUMERIC),
    binary("math.maximum", X, Y, np.maximum, NUMERIC),
    binary("math.minimum", X, Y, np.minimum, NUMERIC),
    binary("math.pow", np.abs(X), Y, np.power),
    binary("math.squared_difference", X, Y, lambda a, b: (a - b) ** 2, NUMERIC),
    binary("math.atan2", X, Y, np.arctan2),
    binary("math.floordiv", X, Y, lambda a, b: np.floor(a / b), grad_args=()),
    binary("math.floormod", X, Y, np.mod),
    binary("math.mod", X, Y, np.mod, name="math.mod"),
    binary("truncatemod", X, Y, np.fmod, grad_args=(), api="v1"),
    binary("realdiv", X, Y, np.divide, api="v1"),
    binary("math.truediv", X, Y, np.divide),
    binary("math.divide", X, Y, np.divide, name="math.divide"),
    binary("div", X, Y, np.divide, api="v1"),
    binary("math.divide_no_nan", X, np.where(Y > 2.0, 0.0, Y),
           lambda a, b: np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b)), grad_args=(0,)),
    binary("math.xdivy", np.array([0.0, 2.0, -1.5]), np.array([0.5, 4.0, 2.0]),
           lambda a, b: np.where(a == 0, 0.0, a / b), grad_args=(1,)),
    binary("math.xlogy", np.array([0.0, 2.0, -1.5]), np.array([0.5, 4.0, 2.0]),
           lambda a, b: np.where(a == 0, 0.0, a * np.log(b)), grad_args=(1,)),
    binary("math.xlog1py", np.array([0.0, 2.0, -1.5]), np.array([0.5, 4.0, 2.0]),
           lambda a, b: np.where(a == 0, 0.0, a * np.log1p(b)), grad_args=(1,)),
    # TF's integer semantics: floor division and modulo round toward -inf, truncate* toward 0
    binary("math.add", INT_X, INT_Y, np.add, (I32,), (), name="add_int"),
    binary("math.floordiv", INT_X, INT_Y, np.floor_divide, (I32,), (), name="floordiv_int"),
    binary("floor_div", INT_X, INT_Y, np.floor_divide, (I32,), (), api="v1"),
    binary("math.floormod", INT_X, INT_Y, np.mod, (I32,), (), name="floormod_int"),
    binary("truncatediv", INT_X, INT_Y, lambda a, b: np.trunc(a / b), (I32,), (), api="v1"),
    binary("truncatemod", INT_X, INT_Y, np.fmod, (I32,), (), api="v1", name="truncatemod_int"),
    binary("div", INT_X, INT_Y, np.floor_divide, (I32,), (), api="v1", name="div_int"),
    binary("math.pow", np.array([2, 3, -2]), np.array([3, 2, 3]), np.power, (I32,), (),
           name="pow_int"),
    binary("math.maximum", np.array([2, 3, -2]), np.array([3, 2, 3]), np.maximum, (I32,), (),
           name="maximum_int"),
    binary("bitwise.bitwise_and", BITS_X, BITS_Y, np.bitwise_and, (I32,), ()),
    binary("bitwise.bitwise_or", BITS_X, BITS_Y, np.bitwise_or, (I32,), ()),
    binary("bitwise.bitwise_xor", BITS_X, BITS_Y, np.bitwise_xor, (I32,), ()),
    binary("bitwise.left_shift", BITS_X, np.array([1, 2]), np.left_shift, (I32,), ()),
    binary("bitwise.right_shift", BITS_X, np.array([1, 2]), np.right_shift, (I32,), ()),
    binary("math.logical_and", BOOL_X, BOOL_Y, np.logical_and, (BOOL,), ()),
    binary("math.logical_or", BOOL_X, BOOL_Y, np.logical_or, (BOOL,), ()),
    binary("math.logical_xor", BOOL_X, BOOL_Y, np.logical_xor, (BOOL,), ()),
]

COMPARE_X, COMPARE_Y = np.array([1, 2, 3, -1]), np.array([2, 2, 2, -1])
RECORDS += [binary(path, COMPARE_X, COMPARE_Y, reference, NUMERIC, (), out_dtype=BOOL)
            for path, reference in [
                ("math.equal", np.equal), ("math.not_equal", np.not_equal),
                ("math.less", np.less), ("math.less_equal", np.less_equal),
                ("math.greater", np.greater), ("math.greater_equal", np.greater_equal)]]

RECORDS += [
    OpRecord("math.add_n", (uniform((2, 3)), uniform((2, 3)), uniform((2, 3))),
             lambda a, b, c: a + b + c, NUMERIC, call=as_list, grad_args=(0, 1, 2)),
    OpRecord("cast", (uniform((2, 3), -3, 3),), lambda v: np.trunc(v), (F32, F64),
             kwargs={"dtype": "int32"}, out_dtype=I32, grad_args=(), name="cast_to_int32"),
    OpRecord("cast", (uniform((2, 3)),), lambda v: v, (F32,), kwargs={"dtype": "float64"},
             out_dtype=F64, name="cast_to_float64"),
    OpRecord("clip_by_value", (away_from((2, 4), (-1.0, 1.5)),), lambda v: np.clip(v, -1, 1.5),
             kwargs={"clip_value_min": -1, "clip_value_max": 1.5}),
    OpRecord("clip_by_norm", (uniform((2, 3)),),
             lambda v: v * min(1.0, 1.0 / np.sqrt((v * v).sum())), kwargs={"clip_norm": 1.0}),
    OpRecord("math.scalar_mul", (uniform((2, 3)),), lambda v: 2.5 * v,
             call=lambda op, x: op(2.5, x)),
    OpRecord("math.polyval", (uniform((4,)),), lambda v: v ** 2 + 3,
             call=lambda op, x: op([1.0, 0.0, 3.0], x)),
]

# ---------------------------------------------------------------- math: reductions

A = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7 - 1   # one zero, no ties
REDUCTIONS = [
    ("math.reduce_sum", np.sum), ("math.reduce_mean", np.mean), ("math.reduce_max", np.max),
    ("math.reduce_min", np.min), ("math.reduce_prod", np.prod), ("math.reduce_std", np.std),
    ("math.reduce_variance", np.var),
    ("math.reduce_logsumexp",
     lambda v, axis, keepdims: np.log(np.sum(np.exp(v), axis=axis, keepdims=keepdims))),
    ("math.reduce_euclidean_norm",
     lambda v, axis, keepdims: np.sqrt(np.sum(v * v, axis=axis, keepdims=keepdims))),
]
# std, variance, norm of nothing reduced: TF's gradient divides by a zero std/norm
SINGULAR_WITHOUT_AXES = ("math.reduce_std", "math.reduce_variance", "math.reduce_euclidean_norm")


def _reduction(path, reference, axis, keepdims):
    np_axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    singular = axis == [] and path in SINGULAR_WITHOUT_AXES
    return OpRecord(path, (fixed(A),),
                    lambda v: reference(v, axis=np_axis, keepdims=keepdims),
                    kwargs={"axis": axis, "keepdims": keepdims},
                    grad_args=() if singular else (0,),
                    name="%s(axis=%s,keepdims=%s)" % (path, axis, keepdims))


RECORDS += [_reduction(path, reference, axis, keepdims)
            for path, reference in REDUCTIONS
            for axis in [None, 0, -1, [0, 2], (1,), []]
            for keepdims in [False, True]]

B = np.array([[True, False, True], [True, True, True]])
RECORDS += [
    OpRecord("math.reduce_sum", (uniform((2, 3), -5, 5),), lambda v: v.sum(1), (I32,),
             kwargs={"axis": 1}, grad_args=(), name="reduce_sum_int"),
    OpRecord("math.reduce_all", (fixed(B),), lambda v: v.all(1), (BOOL,), kwargs={"axis": 1},
             grad_args=()),
    OpRecord("math.reduce_any", (fixed(~B),), lambda v: v.any(0), (BOOL,), kwargs={"axis": 0},
             grad_args=()),
    OpRecord("math.count_nonzero", (fixed(np.array([[0, 1, 2], [0, 0, 3]])),),
             lambda v: np.count_nonzero(v, axis=1), NUMERIC, kwargs={"axis": 1},
             out_dtype=I64, grad_args=()),
    OpRecord("math.argmax", (uniform((3, 4)),), lambda v: v.argmax(1), NUMERIC,
             kwargs={"axis": 1}, out_dtype=I64, grad_args=()),
    OpRecord("math.argmin", (uniform((3, 4)),), lambda v: v.argmin(0), NUMERIC,
             kwargs={"axis": 0, "output_type": "int32"}, out_dtype=I32, grad_args=()),
    OpRecord("math.cumsum", (uniform((2, 4)),), lambda v: np.cumsum(v, 1), NUMERIC,
             kwargs={"axis": 1}),
    OpRecord("math.cumsum", (uniform((2, 4)),),
             lambda v: np.cumsum(v[:, ::-1], 1)[:, ::-1] - v, NUMERIC,
             kwargs={"axis": 1, "exclusive": True, "reverse": True},
             name="math.cumsum(exclusive,reverse)"),
    OpRecord("math.cumprod", (positive((2, 4)),), lambda v: np.cumprod(v, 1), FLOATS,
             kwargs={"axis": 1}),
    OpRecord("math.cumulative_logsumexp", (uniform((5,)),), np.logaddexp.accumulate),
]

SEGMENT_IDS = np.array([0, 0, 2, 2])
UNSORTED_IDS = np.array([2, 0, 2, 1])


def _segments(reduce, ids, count, empty):
    def reference(data, segment_ids):
        return np.stack([reduce(data[ids == s], axis=0) if (ids == s).any()
                         else np.full(data.shape[1:], empty) for s in range(count)])
    return reference


RECORDS += [
    OpRecord(path, (uniform((4, 2)), fixed(SEGMENT_IDS, I32)),
             _segments(reduce, SEGMENT_IDS, 3, empty), FLOATS,
             grad_args=(0,) if differentiable else ())
    for path, reduce, empty, differentiable in [
        ("math.segment_sum", np.sum, 0, True), ("math.segment_mean", np.mean, 0, True),
        ("math.segment_max", np.max, 0, True), ("math.segment_min", np.min, 0, True),
        ("math.segment_prod", np.prod, 1, True)]]
RECORDS += [
    OpRecord(path, (uniform((4, 2)), fixed(UNSORTED_IDS, I32)),
             _segments(reduce, UNSORTED_IDS, 3, 0), FLOATS, kwargs={"num_segments": 3})
    for path, reduce in [
        ("math.unsorted_segment_sum", np.sum), ("math.unsorted_segment_mean", np.mean),
        ("math.unsorted_segment_max", np.max), ("math.unsorted_segment_min", np.min),
        ("math.unsorted_segment_prod", np.prod),
        ("math.unsorted_segment_sqrt_n", lambda v, axis: v.sum(axis) / np.sqrt(len(v)))]]

# ---------------------------------------------------------------- matmul family, linalg

RECORDS += [
    OpRecord("linalg.matmul", (uniform((2, 3)), uniform((3, 4))), np.matmul, NUMERIC,
             grad_args=(0, 1)),
    OpRecord("linalg.matmul", (uniform((3, 2)), uniform((4, 3))), lambda a, b: a.T @ b.T,
             kwargs={"transpose_a": True, "transpose_b": True}, grad_args=(0, 1),
             name="linalg.matmul(transpose_a,transpose_b)"),
    OpRecord("linalg.matmul", (uniform((2, 3)), uniform((2, 3), unknown_batch=False)),
             lambda a, b: a @ b.T, kwargs={"adjoint_b": True}, grad_args=(0, 1),
             name="linalg.matmul(adjoint_b)"),
    OpRecord("linalg.matmul", (uniform((5, 2, 3)), uniform((3, 4))), np.matmul,
             grad_args=(0, 1), name="linalg.matmul(batch)"),
    OpRecord("linalg.matvec", (uniform((2, 3)), uniform((3,), unknown_batch=False)),
             np.matmul, grad_args=(0, 1)),
    OpRecord("linalg.tensordot", (uniform((2, 3, 4)), uniform((4, 3), unknown_batch=False)),
             lambda a, b: np.tensordot(a, b, [[1, 2], [1, 0]]),
             kwargs={"axes": [[1, 2], [1, 0]]}, grad_args=(0, 1)),
    OpRecord("einsum", (uniform((2, 3, 4)), uniform((4, 2))),
             lambda a, b: np.einsum("ijk,kl->ijl", a, b), call=lambda op, a, b: op(
                 "ijk,kl->ijl", a, b), grad_args=(0, 1)),
    OpRecord("linalg.trace", (uniform((2, 3, 3)),), lambda v: np.trace(v, axis1=-2, axis2=-1)),
    OpRecord("linalg.matrix_transpose", (uniform((2, 3, 4)),), lambda v: v.swapaxes(-1, -2),
             NUMERIC),
    OpRecord("linalg.adjoint", (uniform((2, 3, 4)),), lambda v: v.swapaxes(-1, -2)),
    OpRecord("linalg.band_part", (uniform((2, 4, 4)),),
             lambda v: v * np.tri(4, 4, 1) * np.tri(4, 4, 0).T, NUMERIC,
             kwargs={"num_lower": 0, "num_upper": 1}),
    OpRecord("linalg.diag", (uniform((2, 3)),), lambda v: v[:, :, None] * np.eye(3), NUMERIC),
    OpRecord("linalg.diag_part", (uniform((2, 3, 3)),),
             lambda v: np.diagonal(v, axis1=1, axis2=2), NUMERIC),
    OpRecord("linalg.tensor_diag", (uniform((3,)),), np.diag, NUMERIC),
    OpRecord("linalg.tensor_diag_part", (uniform((3, 3)),), np.diag, NUMERIC),
    OpRecord("linalg.cross", (uniform((2, 3)), uniform((2, 3))), np.cross, grad_args=(0, 1)),
    OpRecord("linalg.inv", (spd((2, 3, 3)),), np.linalg.inv,
             tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("linalg.det", (spd((2, 3, 3)),), np.linalg.det, tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("linalg.logdet", (spd((2, 3, 3)),), lambda v: np.linalg.slogdet(v)[1],
             call=symmetrized, tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("linalg.cholesky", (spd((2, 3, 3)),), np.linalg.cholesky, call=symmetrized,
             tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("linalg.solve", (spd((2, 3, 3)), uniform((2, 3, 2))), np.linalg.solve,
             grad_args=(0, 1), tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("linalg.norm", (uniform((2, 3)),), lambda v: np.sqrt((v * v).sum(1)),
             kwargs={"axis": 1}),
    OpRecord("linalg.global_norm", (uniform((2, 3)), uniform((4,))),
             lambda a, b: np.sqrt((a * a).sum() + (b * b).sum()), call=as_list,
             grad_args=(0, 1)),
]

# ---------------------------------------------------------------- array ops

AR = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
M = np.array([[1, 2, 3], [4, 5, 6]])


def _array(path, args, reference, dtypes=NUMERIC, **options):
    return OpRecord(path, args, reference, dtypes, **options)


RECORDS += [
    _array("reshape", (fixed(AR),), lambda v: v.reshape(4, -1), kwargs={"shape": [4, -1]}),
    _array("expand_dims", (fixed(M),), lambda v: v[:, None], kwargs={"axis": 1}),
    _array("expand_dims", (fixed(M),), lambda v: v[..., None], kwargs={"axis": -1},
           name="expand_dims_neg"),
    _array("squeeze", (fixed(np.zeros((1, 2, 1, 3)), unknown_batch=False),),
           lambda v: v.reshape(2, 3)),
    _array("squeeze", (fixed(np.zeros((1, 2, 1)), unknown_batch=False),),
           lambda v: v[..., 0], kwargs={"axis": [-1]}, name="squeeze_axis"),
    *with_v1(_array("transpose", (fixed(AR),), np.transpose)),
    *with_v1(_array("transpose", (fixed(AR),), lambda v: v.transpose(1, 0, 2),
           kwargs={"perm": [1, 0, 2]}, name="transpose_perm")),
    _array("broadcast_to", (fixed(np.array([1, 2, 3])),), lambda v: np.broadcast_to(v, (2, 3)),
           kwargs={"shape": [2, 3]}),
    _array("concat", (fixed(M), fixed(M)), lambda a, b: np.concatenate([a, b], 0),
           call=as_list, kwargs={"axis": 0}, grad_args=(0, 1)),
    _array("concat", (fixed(AR), fixed(AR)), lambda a, b: np.concatenate([a, b], -1),
           call=as_list, kwargs={"axis": -1}, grad_args=(0, 1), name="concat_neg_axis"),
    _array("stack", (fixed(M), fixed(M)), lambda a, b: np.stack([a, b], 1), call=as_list,
           kwargs={"axis": 1}, grad_args=(0, 1)),
    _array("stack", (fixed(M), fixed(M)), lambda a, b: np.stack([a, b], -1), call=as_list,
           kwargs={"axis": -1}, grad_args=(0, 1), name="stack_neg"),
    _array("unstack", (fixed(M, unknown_batch=False),), list),
    _array("unstack", (fixed(AR),), lambda v: [v[..., i] for i in range(4)],
           kwargs={"num": 4, "axis": -1}, name="unstack_axis"),
    _array("split", (fixed(AR),), lambda v: np.split(v, 2, axis=2),
           kwargs={"num_or_size_splits": 2, "axis": 2}, name="split_num"),
    _array("split", (fixed(AR),), lambda v: [v[:, :1], v[:, 1:]],
           kwargs={"num_or_size_splits": [1, -1], "axis": 1}, name="split_sizes"),
    _array("tile", (fixed(M),), lambda v: np.tile(v, (2, 3)), kwargs={"multiples": [2, 3]}),
    *with_v1(_array("pad", (fixed(M),), lambda v: np.pad(v, [[1, 0], [0, 2]]),
           kwargs={"paddings": [[1, 0], [0, 2]]}, name="pad_constant")),
    _array("pad", (fixed(M),), lambda v: np.pad(v, 1, constant_values=-1),
           kwargs={"paddings": [[1, 1], [1, 1]], "constant_values": -1}, name="pad_values"),
    *with_v1(_array("pad", (fixed(M),), lambda v: np.pad(v, [[1, 1], [2, 2]], "reflect"),
           kwargs={"paddings": [[1, 1], [2, 2]], "mode": "REFLECT"}, name="pad_reflect")),
    _array("pad", (fixed(M),), lambda v: np.pad(v, [[2, 1], [3, 2]], "symmetric"),
           kwargs={"paddings": [[2, 1], [3, 2]], "mode": "symmetric"}, name="pad_symmetric"),
    _array("reverse", (fixed(AR),), lambda v: v[::-1, :, ::-1], kwargs={"axis": [0, -1]}),
    _array("reverse_sequence", (fixed(M), fixed(np.array([2, 3]), I32)),
           lambda v, lengths: np.array([[2, 1, 3], [6, 5, 4]]),
           kwargs={"seq_axis": 1, "batch_axis": 0}),
    _array("roll", (fixed(M),), lambda v: np.roll(v, 1, 1), kwargs={"shift": 1, "axis": 1}),
    _array("roll", (fixed(AR),), lambda v: np.roll(v, (1, -2), (0, 2)),
           kwargs={"shift": [1, -2], "axis": [0, 2]}, name="roll_multi"),
    _array("repeat", (fixed(M),), lambda v: np.repeat(v, [1, 3], axis=0),
           kwargs={"repeats": [1, 3], "axis": 0}, name="repeat_axis"),
    _array("identity", (fixed(M),), lambda v: v),
    *with_v1(_array("gather", (fixed(AR), fixed(np.array([1, 0]), I32)), lambda v, i: v[i])),
    *with_v1(_array("gather", (fixed(AR), fixed(np.array([[3, 0], [1, 1]]), I32)),
           lambda v, i: np.take(v, i, 2), kwargs={"axis": 2}, name="gather_axis")),
    _array("gather", (fixed(AR), fixed(np.array([[0, 2], [1, 1]]), I32)),
           lambda v, i: np.stack([v[0][[0, 2]], v[1][[1, 1]]]),
           kwargs={"axis": 1, "batch_dims": 1}, name="gather_batch_dims"),
    *with_v1(_array("gather_nd", (fixed(AR, unknown_batch=False),
                                  fixed(np.array([[0, 1], [1, 2]]), I32)),
           lambda v, i: np.stack([v[0, 1], v[1, 2]]))),
    _array("slice", (fixed(AR),), lambda v: v[1:2, 0:2, 1:],
           kwargs={"begin": [1, 0, 1], "size": [1, 2, -1]}),
    _array("strided_slice", (fixed(AR),), lambda v: v[:, ::2, ::3],
           kwargs={"begin": [0, 0, 0], "end": [2, 3, 4], "strides": [1, 2, 3]}),
    _array("strided_slice", (fixed(AR),), lambda v: v[1, -1],
           kwargs={"begin": [1, -1], "end": [2, 0], "shrink_axis_mask": 3},
           name="strided_slice_shrink"),
    _array("one_hot", (fixed(np.array([0, 2, -1, 5]), I32),),
           lambda i: np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]), FLOATS,
           kwargs={"depth": 3, "dtype": CASE_DTYPE}, grad_args=()),
    _array("one_hot", (fixed(np.array([1]), I32),), lambda i: np.array([[-1, 5, -1]]), (I32,),
           kwargs={"depth": 3, "on_value": 5, "off_value": -1}, grad_args=(),
           name="one_hot_values"),
    _array("one_hot", (fixed(np.array([0, 1]), I32),), lambda i: np.eye(3, 2), (F32,),
           kwargs={"depth": 3, "axis": 0}, grad_args=(), name="one_hot_axis0"),
    *with_v1(_array("where", (fixed(np.array([True, False]), BOOL), fixed(np.array([1, 2])),
                     fixed(np.array([3, 4]))), np.where, grad_args=(1, 2))),
    _array("where", (fixed(np.array([[True], [False]]), BOOL), fixed(M), fixed(0)),
           np.where, grad_args=(1, 2), name="where_broadcast"),
    *with_v1(_array("boolean_mask", (fixed(M), fixed(np.array([True, False]), BOOL)),
           lambda v, m: v[m])),
    _array("sort", (uniform((3, 4)),), lambda v: np.sort(v, -1)),
    _array("argsort", (uniform((3, 4)),), lambda v: np.argsort(v, -1), FLOATS, out_dtype=I32,
           grad_args=()),
    *with_v1(_array("nn.space_to_depth", (fixed(np.arange(16.).reshape(1, 4, 4, 1)),),
           lambda v: v.reshape(1, 2, 2, 2, 2, 1).transpose(0, 1, 3, 2, 4, 5).reshape(1, 2, 2, 4),
           kwargs={"block_size": 2})),
    *with_v1(_array("nn.depth_to_space", (fixed(np.arange(8.).reshape(1, 1, 1, 8)),),
           lambda v: v.reshape(1, 1, 1, 2, 2, 2).transpose(0, 1, 3, 2, 4, 5).reshape(1, 2, 2, 2),
           kwargs={"block_size": 2})),
    _array("math.top_k", (uniform((3, 5)),),
           lambda v: (-np.sort(-v, -1)[:, :2], np.argsort(-v, -1)[:, :2]), FLOATS,
           kwargs={"k": 2}, out_dtype=(None, I32)),
]

# ---------------------------------------------------------------- nn ops

SELU_A, SELU_S = 1.6732632423543772, 1.0507009873554805


def _np_softmax(v, axis=-1):
    e = np.exp(v - v.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def activation(path, reference, kinks=(0.0,), dtypes=FLOATS, **options):
    return OpRecord(path, (away_from((2, 5), kinks, -8.0, 8.0),), reference, dtypes, **options)


RECORDS += [
    activation("nn.relu", lambda v: np.maximum(v, 0), dtypes=NUMERIC),
    activation("nn.relu6", lambda v: np.clip(v, 0, 6), (0.0, 6.0)),
    activation("nn.elu", lambda v: np.where(v > 0, v, np.expm1(v))),
    activation("nn.selu", lambda v: SELU_S * np.where(v > 0, v, SELU_A * np.expm1(v))),
    activation("nn.leaky_relu", lambda v: np.where(v > 0, v, 0.2 * v)),
    activation("nn.softplus", lambda v: np.log1p(np.exp(v)), name="nn.softplus"),
    activation("nn.softsign", lambda v: v / (1 + np.abs(v)), name="nn.softsign"),
    activation("nn.swish", lambda v: v / (1 + np.exp(-v))),
    activation("nn.crelu", lambda v: np.concatenate([np.maximum(v, 0), np.maximum(-v, 0)], -1),
               api="v1"),
    activation("nn.gelu", lambda v: 0.5 * v * (1 + erf(v / math.sqrt(2)))),
    activation("nn.gelu", lambda v: 0.5 * v * (1 + np.tanh(
        math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))), kwargs={"approximate": True},
               name="nn.gelu(approximate)"),
    activation("nn.sigmoid", _sigmoid, name="nn.sigmoid"),
    OpRecord("nn.softmax", (uniform((3, 4, 5)),), _np_softmax),
    OpRecord("nn.softmax", (uniform((3, 4, 5)),), lambda v: _np_softmax(v, 1),
             kwargs={"axis": 1}, name="nn.softmax(axis=1)"),
    OpRecord("nn.log_softmax", (uniform((3, 4, 5)),), lambda v: np.log(_np_softmax(v))),
    OpRecord("nn.bias_add", (uniform((2, 3, 4, 5)), uniform((5,), unknown_batch=False)),
             lambda x, b: x + b, grad_args=(0, 1)),
    OpRecord("nn.bias_add", (uniform((2, 3, 4, 5)), uniform((3,), unknown_batch=False)),
             lambda x, b: x + b.reshape(1, 3, 1, 1), kwargs={"data_format": "NCHW"},
             grad_args=(0, 1), name="nn.bias_add(NCHW)"),
    OpRecord("nn.l2_loss", (uniform((4, 3)),), lambda v: (v * v).sum() / 2),
    OpRecord("nn.l2_normalize", (uniform((4, 3)),),
             lambda v: v / np.sqrt((v * v).sum(1, keepdims=True)), kwargs={"axis": 1}),
    OpRecord("nn.moments", (uniform((4, 5, 3)),), lambda v: (v.mean((0, 1)), v.var((0, 1))),
             kwargs={"axes": [0, 1]}),
    OpRecord("nn.batch_normalization",
             (uniform((4, 3)), uniform((3,), unknown_batch=False),
              positive((3,), unknown_batch=False), uniform((3,), unknown_batch=False),
              uniform((3,), unknown_batch=False)),
             lambda x, m, v, o, s: (x - m) / np.sqrt(v + 1e-3) * s + o,
             kwargs={"variance_epsilon": 1e-3}, grad_args=(0, 1, 2, 3, 4)),
    OpRecord("nn.local_response_normalization", (uniform((2, 3, 3, 7)),),
             lambda v: v / (1.5 + 0.3 * np.stack([
                 (v[..., max(0, c - 2):c + 3] ** 2).sum(-1) for c in range(7)], -1)) ** 0.75,
             kwargs={"depth_radius": 2, "bias": 1.5, "alpha": 0.3, "beta": 0.75}),
    OpRecord("nn.in_top_k", (fixed(np.array([1, 2, 0]), I32),
                             fixed(np.array([[0.1, 0.8, 0.1], [0.5, 0.2, 0.3], [0.3, 0.3, 0.4]]))),
             lambda t, p: np.array([True, True, True]), (F32,), kwargs={"k": 2},
             out_dtype=BOOL, grad_args=()),
    OpRecord("nn.zero_fraction", (fixed(np.array([0, 1, 0, 2])),), lambda v: np.mean(v == 0),
             NUMERIC, out_dtype=F32, grad_args=()),
]


def _tf_pads(size, k, s):
    total = max((-(-size // s) - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def _strided(offset, strides, sizes):
    """Slices taking `sizes` elements `strides` apart from `offset`, per spatial dim."""
    return tuple(slice(o, o + s * (n - 1) + 1, s) for o, s, n in zip(offset, strides, sizes))


def _windows(x, k, s, padding, fill):
    """(n, *out, *k, c) windows of channels-last `x` (any number of spatial dims) as TF lays
    them out, SAME padding filled with `fill`."""
    spatial = range(1, x.ndim - 1)
    if padding == "SAME":
        pads = [_tf_pads(x.shape[d], k[d - 1], s[d - 1]) for d in spatial]
        x = np.pad(x, [(0, 0)] + pads + [(0, 0)], constant_values=fill)
    out = [(x.shape[d] - k[d - 1]) // s[d - 1] + 1 for d in spatial]
    windows = np.empty((x.shape[0], *out, *k, x.shape[-1]))
    for offset in itertools.product(*map(range, k)):
        windows[(slice(None),) * (1 + len(spatial)) + offset] = \
            x[(slice(None),) + _strided(offset, s, out)]
    return windows


def np_conv(x, w, strides, padding):
    """TF's convolution of channels-last `x` with a [*k, in, out] filter."""
    spatial = x.ndim - 2
    windows = _windows(x, w.shape[:spatial], strides, padding, 0)
    return np.tensordot(windows, w, (list(range(1 + spatial, 2 + 2 * spatial)),
                                     list(range(spatial + 1))))


def np_pool(x, k, s, padding, kind):
    """TF's pools: SAME windows are clipped to the input, padding never counts."""
    window_axes = tuple(range(x.ndim - 1, 2 * x.ndim - 3))
    if kind == "MAX":
        return _windows(x, k, s, padding, -np.inf).max(window_axes)
    sums = _windows(x, k, s, padding, 0).sum(window_axes)
    return sums / _windows(np.ones_like(x), k, s, padding, 0).sum(window_axes)


RECORDS += [
    OpRecord("nn.conv2d", (uniform((2, 5, 6, 2)), uniform((3, 3, 2, 3), unknown_batch=False)),
             lambda x, w: np_conv(x, w, (2, 2), "SAME"),
             kwargs={"strides": 2, "padding": "SAME"}, grad_args=(0, 1),
             tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("nn.conv2d", (uniform((1, 6, 5, 2)), uniform((2, 3, 2, 2), unknown_batch=False)),
             lambda x, w: np_conv(x, w, (1, 2), "VALID"),
             kwargs={"strides": [1, 1, 2, 1], "padding": "VALID"}, grad_args=(0, 1),
             tolerance={F32: (1e-4, 1e-5)}, name="nn.conv2d(VALID)"),
    OpRecord("nn.max_pool2d", (uniform((2, 5, 6, 2)),),
             lambda x: np_pool(x, (3, 3), (2, 2), "SAME", "MAX"),
             kwargs={"ksize": 3, "strides": 2, "padding": "SAME"}),
    OpRecord("nn.avg_pool2d", (uniform((2, 5, 6, 2)),),
             lambda x: np_pool(x, (3, 3), (2, 2), "SAME", "AVG"),
             kwargs={"ksize": 3, "strides": 2, "padding": "SAME"}),
    OpRecord("nn.max_pool", (uniform((1, 6, 5, 2)),),
             lambda x: np_pool(x, (2, 2), (2, 1), "VALID", "MAX"),
             kwargs={"ksize": [1, 2, 2, 1], "strides": [1, 2, 1, 1], "padding": "VALID"}),
    OpRecord("nn.avg_pool", (uniform((1, 6, 5, 2)),),
             lambda x: np_pool(x, (2, 2), (2, 1), "VALID", "AVG"),
             kwargs={"ksize": [1, 2, 2, 1], "strides": [1, 2, 1, 1], "padding": "VALID"}),
]


def _np_sigmoid_xent(labels, logits):
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


RECORDS += [
    OpRecord("nn.softmax_cross_entropy_with_logits", (distribution((4, 5)), uniform((4, 5))),
             lambda labels, logits: -(labels * np.log(_np_softmax(logits))).sum(-1),
             call=keywords("labels", "logits"), grad_args=(0, 1)),
    OpRecord("nn.sparse_softmax_cross_entropy_with_logits",
             (integers((4,), 0, 5), uniform((4, 5))),
             lambda labels, logits: -np.log(_np_softmax(logits))[np.arange(4), labels],
             call=keywords("labels", "logits"), grad_args=(1,)),
    OpRecord("nn.sigmoid_cross_entropy_with_logits",
             (uniform((2, 5), 0.0, 1.0), fixed(np.array([[-100.0, -2.0, 0.0, 3.0, 100.0],
                                                          [0.5, -0.5, 1.5, -1.5, 4.0]]))),
             _np_sigmoid_xent, call=keywords("labels", "logits"), grad_args=(0, 1)),
    OpRecord("nn.weighted_cross_entropy_with_logits", (uniform((2, 5), 0.0, 1.0),
                                                       uniform((2, 5), -4, 4)),
             lambda z, x: (1 - z) * x + (1 + 2 * z) * (np.log1p(np.exp(-np.abs(x)))
                                                       + np.maximum(-x, 0)),
             call=keywords("labels", "logits"), kwargs={"pos_weight": 3.0}, grad_args=(0, 1)),
    OpRecord("nn.log_poisson_loss", (uniform((3,), 0, 3), uniform((3,))),
             lambda z, c: np.exp(c) - z * c, grad_args=(0, 1)),
]

def complex_uniform(shape, **options):
    return Arg(shape, lambda rng, s: rng.uniform(-2, 2, s) + 1j * rng.uniform(-2, 2, s),
               **options)


def _erfinv(v):
    """erf's inverse by Newton's method from 0 (|v| < 1)."""
    x = np.zeros_like(v)
    for _ in range(60):
        x = x - (erf(x) - v) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return x


def _expm(m):
    """Matrix exponential by scaling and squaring a Taylor series (small matrices)."""
    scaled = m / 16
    result = term = np.eye(m.shape[-1]) + 0 * m
    for k in range(1, 25):
        term = term @ scaled / k
        result = result + term
    for _ in range(4):
        result = result @ result
    return result


REAL_OF_COMPLEX = {C64: F32, C128: F64}
COMPLEX_OF_REAL = {F32: C64, F64: C128}

RECORDS += [
    unary("math.erfinv", UNIT, _erfinv),
    OpRecord("complex", (uniform((2, 3)), uniform((2, 3))), lambda a, b: a + 1j * b,
             out_dtype=COMPLEX_OF_REAL, grad_args=()),
    OpRecord("math.real", (complex_uniform((2, 3)),), np.real, (C64, C128),
             out_dtype=REAL_OF_COMPLEX, grad_args=()),
    OpRecord("math.imag", (complex_uniform((2, 3)),), np.imag, (C64, C128),
             out_dtype=REAL_OF_COMPLEX, grad_args=()),
    OpRecord("math.angle", (complex_uniform((2, 3)),), np.angle, (C64, C128),
             out_dtype=REAL_OF_COMPLEX, grad_args=()),
    OpRecord("math.conj", (complex_uniform((2, 3)),), np.conj, (C64, C128), grad_args=()),
    OpRecord("math.abs", (complex_uniform((2, 3)),), np.abs, (C64, C128),
             out_dtype=REAL_OF_COMPLEX, grad_args=(), name="math.abs(complex)"),
    OpRecord("saturate_cast", (uniform((2, 4), -5, 300),), lambda v: np.trunc(np.clip(v, 0, 255)),
             kwargs={"dtype": "uint8"}, out_dtype=np.uint8, grad_args=()),
    OpRecord("to_float", (uniform((2, 3), -5, 5),), lambda v: v, (I32,), out_dtype=F32,
             grad_args=(), api="v1"),
    OpRecord("to_double", (uniform((2, 3), -5, 5),), lambda v: v, (I32,), out_dtype=F64,
             grad_args=(), api="v1"),
    OpRecord("to_int32", (uniform((2, 3), -5, 5),), np.trunc, (F32,), out_dtype=I32,
             grad_args=(), api="v1"),
    OpRecord("to_int64", (uniform((2, 3), -5, 5),), np.trunc, (F32,), out_dtype=I64,
             grad_args=(), api="v1"),
    OpRecord("to_complex64", (uniform((2, 3)),), lambda v: v, (F32,), out_dtype=C64,
             grad_args=(), api="v1"),
    OpRecord("to_complex128", (uniform((2, 3)),), lambda v: v, (F64,), out_dtype=C128,
             grad_args=(), api="v1"),
    OpRecord("math.accumulate_n", (uniform((2, 3)), uniform((2, 3))), np.add, NUMERIC,
             call=as_list, grad_args=(0, 1), api="v1"),
    OpRecord("math.bincount", (fixed(np.array([1, 1, 3, 0]), I32),),
             lambda v: np.array([1, 2, 0, 1, 0, 0]), (I32,), kwargs={"minlength": 6},
             grad_args=()),
    OpRecord("math.bincount", (fixed(np.array([1, 1, 3, 0]), I32), uniform((4,))),
             lambda v, w: np.bincount(v, w), FLOATS, call=lambda op, v, w: op(v, weights=w),
             grad_args=(), name="math.bincount(weights)"),
    OpRecord("arg_max", (uniform((3, 4)),), lambda v: v.argmax(1), NUMERIC,
             kwargs={"dimension": 1}, out_dtype=I64, grad_args=(), api="v1"),
    OpRecord("arg_min", (uniform((3, 4)),), lambda v: v.argmin(0), NUMERIC,
             kwargs={"dimension": 0}, out_dtype=I64, grad_args=(), api="v1"),
    *with_v1(OpRecord("math.argmax", (uniform((3, 4)),), lambda v: v.argmax(0), NUMERIC,
                      kwargs={"axis": 0}, out_dtype=I64, grad_args=(),
                      name="math.argmax(axis=0)")),
    *with_v1(OpRecord("math.argmin", (uniform((3, 4)),), lambda v: v.argmin(1), NUMERIC,
                      kwargs={"axis": 1}, out_dtype=I64, grad_args=(),
                      name="math.argmin(axis=1)")),
    OpRecord("clip_by_global_norm", (uniform((2, 3)), uniform((4,))),
             lambda a, b: (a * _global_scale(a, b), b * _global_scale(a, b),
                           np.sqrt((a * a).sum() + (b * b).sum())),
             call=lambda op, a, b: op([a, b], 1.0), grad_args=(0, 1)),
    OpRecord("clip_by_average_norm", (uniform((2, 3)),),
             lambda v: v * min(1.0, 0.3 / (np.sqrt((v * v).sum()) / v.size)),
             kwargs={"clip_norm": 0.3}, api="v1"),
]


def _global_scale(*arrays):
    return min(1.0, 1.0 / np.sqrt(sum((a * a).sum() for a in arrays)))


RECORDS += [
    OpRecord("linalg.slogdet", (spd((2, 3, 3)),),
             lambda v: tuple(np.linalg.slogdet(v)), tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("linalg.qr", (uniform((4, 3)),), lambda v: tuple(np.linalg.qr(v)),
             tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("linalg.svd", (uniform((4, 3)),), lambda v: np.linalg.svd(v, compute_uv=False),
             kwargs={"compute_uv": False}, tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("linalg.expm", (uniform((2, 3, 3), -0.5, 0.5),), _expm,
             tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("linalg.eye", (), lambda: np.eye(3, 4), NUMERIC,
             kwargs={"num_rows": 3, "num_columns": 4, "dtype": CASE_DTYPE}, grad_args=()),
    OpRecord("linalg.lstsq", (uniform((4, 3)), uniform((4, 2))),
             lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], grad_args=(0, 1),
             tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("linalg.triangular_solve",
             (Arg((3, 3), lambda rng, s: np.tril(rng.uniform(-1, 1, s)) + 3 * np.eye(3)),
              uniform((3, 2))),
             lambda a, b: np.linalg.solve(a, b), grad_args=(0, 1),
             tolerance={F32: (1e-4, 1e-5)},
             xfail={"graph": "placeholders [None, 3] and [None, 2] do not build: torch's "
                             "solve_triangular meta kernel needs concrete sizes (TF infers "
                             "[3, 2])"}),
]

# ---------------------------------------------------------------- array ops (more)

RECORDS += [
    OpRecord("zeros", (), lambda: np.zeros((2, 3)), NUMERIC,
             kwargs={"shape": [2, 3], "dtype": CASE_DTYPE}, grad_args=()),
    OpRecord("ones", (), lambda: np.ones((2, 3)), NUMERIC,
             kwargs={"shape": [2, 3], "dtype": CASE_DTYPE}, grad_args=()),
    OpRecord("fill", (fixed(7),), lambda v: np.full((2, 2), v), NUMERIC,
             call=lambda op, value: op([2, 2], value), grad_args=()),
    *with_v1(OpRecord("zeros_like", (uniform((2, 3)),), np.zeros_like, NUMERIC, grad_args=())),
    *with_v1(OpRecord("ones_like", (uniform((2, 3)),), np.ones_like, NUMERIC, grad_args=())),
    OpRecord("range", (fixed(2), fixed(9), fixed(3)), lambda a, b, c: np.arange(a, b, c),
             NUMERIC, grad_args=()),
    OpRecord("linspace", (fixed(0.0), fixed(1.0)), lambda a, b: np.linspace(a, b, 5),
             call=lambda op, a, b: op(a, b, 5), grad_args=()),
    *with_v1(OpRecord("shape", (uniform((2, 3, 4)),), lambda v: np.array(v.shape), NUMERIC,
                      out_dtype=I32, grad_args=())),
    *with_v1(OpRecord("size", (uniform((2, 3, 4)),), lambda v: np.array(v.size), NUMERIC,
                      out_dtype=I32, grad_args=())),
    OpRecord("rank", (uniform((2, 3, 4)),), lambda v: np.array(v.ndim), NUMERIC,
             out_dtype=I32, grad_args=()),
    OpRecord("shape_n", (uniform((2, 3, 4)), uniform((2, 3))),
             lambda a, b: (np.array(a.shape), np.array(b.shape)), NUMERIC, call=as_list,
             out_dtype=I32, grad_args=()),
    OpRecord("identity_n", (uniform((2, 3)), uniform((4,))), lambda a, b: (a, b), NUMERIC,
             call=as_list, grad_args=(0, 1)),
    OpRecord("stop_gradient", (uniform((2, 3)),), lambda v: v, NUMERIC, grad_args=()),
    OpRecord("ensure_shape", (fixed(M),), lambda v: v, NUMERIC, kwargs={"shape": [None, 3]}),
    # fed with an unknown length, building the graph does not return: fixed lengths here
    OpRecord("broadcast_dynamic_shape", (fixed(np.array([2, 1, 3]), unknown_batch=False),
                                         fixed(np.array([4, 1]), unknown_batch=False)),
             lambda a, b: np.array([2, 4, 3]), (I32,), grad_args=(),
             xfail={"graph": "graph building reads the shape vectors' values (tolist) on "
                             "fake tensors: ValueError for placeholders of known length; "
                             "with an unknown length the build hangs"}),
    OpRecord("meshgrid", (uniform((3,)), uniform((2,))), lambda a, b: tuple(np.meshgrid(a, b)),
             NUMERIC, grad_args=(0, 1)),
    OpRecord("scatter_nd", (fixed(np.array([[4], [3], [1], [7]]), I32),
                            fixed(np.array([9, 10, 11, 12]))),
             lambda i, u: np.array([0, 11, 0, 10, 9, 0, 0, 12]), NUMERIC,
             kwargs={"shape": [8]}, grad_args=(1,)),
    OpRecord("scatter_nd", (fixed(np.array([[1], [1]]), I32), fixed(np.array([1.0, 2.0]))),
             lambda i, u: np.array([0, 3, 0]), NUMERIC, kwargs={"shape": [3]}, grad_args=(1,),
             name="scatter_nd_duplicates_add"),
    OpRecord("tensor_scatter_nd_update", (fixed(M), fixed(np.array([[0, 1], [1, 2]]), I32),
                                          fixed(np.array([0, 0]))),
             lambda t, i, u: np.array([[1, 0, 3], [4, 5, 0]]), NUMERIC, grad_args=(0, 2)),
    OpRecord("tensor_scatter_nd_add", (fixed(M), fixed(np.array([[0, 0], [0, 0]]), I32),
                                       fixed(np.array([1, 1]))),
             lambda t, i, u: np.array([[3, 2, 3], [4, 5, 6]]), NUMERIC, grad_args=(0, 2)),
    OpRecord("tensor_scatter_nd_sub", (fixed(M), fixed(np.array([[1, 1]]), I32),
                                       fixed(np.array([5]))),
             lambda t, i, u: np.array([[1, 2, 3], [4, 0, 6]]), NUMERIC, grad_args=(0, 2)),
    OpRecord("tensor_scatter_nd_max", (fixed(M), fixed(np.array([[0, 0], [1, 0]]), I32),
                                       fixed(np.array([9, 0]))),
             lambda t, i, u: np.array([[9, 2, 3], [4, 5, 6]]), NUMERIC, grad_args=(0, 2)),
    OpRecord("tensor_scatter_nd_min", (fixed(M), fixed(np.array([[0, 2]]), I32),
                                       fixed(np.array([-1]))),
             lambda t, i, u: np.array([[1, 2, -1], [4, 5, 6]]), NUMERIC, grad_args=(0, 2)),
    OpRecord("batch_gather", (fixed(M), fixed(np.array([[2, 0], [1, 1]]), I32)),
             lambda v, i: np.take_along_axis(v, i, 1), NUMERIC, grad_args=(0,), api="v1"),
    OpRecord("unique", (fixed(np.array([4, 1, 4, 2, 1])),),
             lambda v: (np.array([4, 1, 2]), np.array([0, 1, 0, 2, 1])), NUMERIC,
             out_dtype=(None, I32), grad_args=()),
    OpRecord("unique_with_counts", (fixed(np.array([3, 3, 1])),),
             lambda v: (np.array([3, 1]), np.array([0, 0, 1]), np.array([2, 1])), NUMERIC,
             kwargs={"out_idx": "int64"}, out_dtype=(None, I64, I64), grad_args=()),
    OpRecord("setdiff1d", (fixed(np.array([1, 2, 3, 4, 5])), fixed(np.array([2, 5]))),
             lambda x, y: (np.array([1, 3, 4]), np.array([0, 2, 3])), NUMERIC,
             out_dtype=(None, I32), grad_args=(), api="v1"),
    OpRecord("searchsorted", (fixed(np.array([[1, 3, 5, 7]]), unknown_batch=False),
                              fixed(np.array([[0, 3, 6]]), unknown_batch=False)),
             lambda s, v: np.searchsorted(s[0], v[0])[None], NUMERIC, out_dtype=I32,
             grad_args=()),
    OpRecord("sequence_mask", (fixed(np.array([1, 3, 0]), I32),),
             lambda n: np.arange(4) < n[:, None], (BOOL,), kwargs={"maxlen": 4}, grad_args=()),
    OpRecord("space_to_batch_nd", (fixed(np.arange(4.).reshape(1, 2, 2, 1), unknown_batch=False),),
             lambda v: v.reshape(4, 1, 1, 1), NUMERIC,
             kwargs={"block_shape": [2, 2], "paddings": [[0, 0], [0, 0]]}),
    OpRecord("space_to_batch", (fixed(np.arange(1., 3.).reshape(1, 2, 1), unknown_batch=False),),
             lambda v: np.array([[[0.], [2.]], [[1.], [0.]]]), NUMERIC,
             kwargs={"block_shape": [2], "paddings": [[1, 1]]}),
    OpRecord("space_to_batch", (fixed(np.arange(4.).reshape(1, 2, 2, 1), unknown_batch=False),),
             lambda v: v.reshape(4, 1, 1, 1), NUMERIC,
             kwargs={"paddings": [[0, 0], [0, 0]], "block_size": 2}, api="v1",
             name="space_to_batch(v1)"),
    OpRecord("batch_to_space", (fixed(np.arange(4.).reshape(4, 1, 1, 1)),),
             lambda v: v.reshape(1, 2, 2, 1), NUMERIC,
             kwargs={"crops": [[0, 0], [0, 0]], "block_size": 2}, api="v1",
             name="batch_to_space(v1)",
             xfail={"graph": "tf.compat.v1.batch_to_space of a placeholder [None, 1, 1, 1] "
                             "raises 'Input batch dimension (3) is not divisible by product "
                             "of block sizes (4)' (the stand-in size is checked; TF infers "
                             "[None, 2, 2, 1])"}),
    OpRecord("batch_to_space", (fixed(np.array([[[0.], [2.]], [[1.], [0.]]])),),
             lambda v: np.arange(1., 3.).reshape(1, 2, 1), NUMERIC,
             kwargs={"block_shape": [2], "crops": [[1, 1]]}),
]

# ---------------------------------------------------------------- nn ops (more)


def np_conv_transpose(y, w, out_shape, strides, padding):
    """The transpose of np_conv (TF's definition: the gradient of the convolution w.r.t.
    its input of `out_shape`); `w` is [*k, out channels, y's channels]."""
    spatial = y.ndim - 2
    k, sizes, y_sizes = w.shape[:spatial], out_shape[1:-1], y.shape[1:-1]
    starts = [_tf_pads(n, kd, s)[0] if padding == "SAME" else 0
              for n, kd, s in zip(sizes, k, strides)]
    full = np.zeros((y.shape[0],) + tuple(
        max((m - 1) * s + kd, n + start)
        for m, s, kd, n, start in zip(y_sizes, strides, k, sizes, starts)) + (out_shape[-1],))
    for offset in itertools.product(*map(range, k)):
        full[(slice(None),) + _strided(offset, strides, y_sizes)] += y @ w[offset].T
    return full[(slice(None),) + tuple(slice(a, a + n) for a, n in zip(starts, sizes))]


def _dilate(w, rate):
    """A filter with `rate - 1` zeros between its taps (atrous convolution)."""
    kh, kw = w.shape[:2]
    dilated = np.zeros(((kh - 1) * rate + 1, (kw - 1) * rate + 1) + w.shape[2:])
    dilated[::rate, ::rate] = w
    return dilated


def np_depthwise(x, w, stride, padding):
    windows = _windows(x, w.shape[:2], stride, padding, 0)
    out = np.einsum("nijhwc,hwcm->nijcm", windows, w)
    return out.reshape(out.shape[:3] + (-1,))


CONV_TOLERANCE = {F32: (1e-4, 1e-5)}
RECORDS += [
    OpRecord("nn.conv2d", (uniform((2, 5, 6, 2)), uniform((3, 3, 2, 3), unknown_batch=False)),
             lambda x, w: np_conv(x, w, (2, 2), "SAME"),
             kwargs={"strides": [1, 2, 2, 1], "padding": "SAME"}, grad_args=(0, 1),
             tolerance=CONV_TOLERANCE, api="v1", name="nn.conv2d(v1)"),
    *with_v1(OpRecord("nn.conv1d", (uniform((2, 7, 2)), uniform((3, 2, 3), unknown_batch=False)),
                      lambda x, w: np_conv(x, w, (2,), "SAME"),
                      kwargs={"stride": 2, "padding": "SAME"}, grad_args=(0, 1),
                      tolerance=CONV_TOLERANCE)),
    *with_v1(OpRecord("nn.convolution", (uniform((2, 5, 6, 2)),
                                         uniform((3, 3, 2, 3), unknown_batch=False)),
                      lambda x, w: np_conv(x, w, (1, 1), "VALID"),
                      kwargs={"padding": "VALID"}, grad_args=(0, 1), tolerance=CONV_TOLERANCE)),
    OpRecord("nn.atrous_conv2d", (uniform((1, 6, 6, 2)), uniform((2, 2, 2, 2),
                                                                 unknown_batch=False)),
             lambda x, w: np_conv(x, _dilate(w, 2), (1, 1), "SAME"),
             kwargs={"rate": 2, "padding": "SAME"}, grad_args=(0, 1), tolerance=CONV_TOLERANCE),
    *with_v1(OpRecord("nn.depthwise_conv2d", (uniform((2, 5, 4, 3)),
                                              uniform((3, 3, 3, 2), unknown_batch=False)),
                      lambda x, w: np_depthwise(x, w, (1, 1), "SAME"),
                      kwargs={"strides": [1, 1, 1, 1], "padding": "SAME"}, grad_args=(0, 1),
                      tolerance=CONV_TOLERANCE)),
    OpRecord("nn.depthwise_conv2d_native", (uniform((2, 5, 4, 3)),
                                            uniform((3, 3, 3, 2), unknown_batch=False)),
             lambda x, w: np_depthwise(x, w, (2, 2), "VALID"),
             kwargs={"strides": [1, 2, 2, 1], "padding": "VALID"}, grad_args=(0, 1),
             tolerance=CONV_TOLERANCE, api="v1"),
    *with_v1(OpRecord("nn.separable_conv2d", (uniform((2, 5, 4, 3)),
                                              uniform((3, 3, 3, 2), unknown_batch=False),
                                              uniform((1, 1, 6, 4), unknown_batch=False)),
                      lambda x, dw, pw: np_depthwise(x, dw, (1, 1), "SAME") @ pw[0, 0],
                      kwargs={"strides": [1, 1, 1, 1], "padding": "SAME"},
                      grad_args=(0, 1, 2), tolerance=CONV_TOLERANCE)),
    OpRecord("nn.conv2d_transpose", (uniform((2, 3, 3, 3), unknown_batch=False),
                                     uniform((3, 3, 2, 3), unknown_batch=False)),
             lambda y, w: np_conv_transpose(y, w, (2, 5, 6, 2), (2, 2), "SAME"),
             kwargs={"output_shape": [2, 5, 6, 2], "strides": 2, "padding": "SAME"},
             grad_args=(0, 1), tolerance=CONV_TOLERANCE),
    OpRecord("nn.conv2d_transpose", (uniform((2, 3, 2, 3), unknown_batch=False),
                                     uniform((3, 3, 2, 3), unknown_batch=False)),
             lambda y, w: np_conv_transpose(y, w, (2, 7, 8, 2), (2, 3), "VALID"),
             call=lambda op, y, w, **kw: op(y, w, [2, 7, 8, 2], [1, 2, 3, 1], "VALID"),
             grad_args=(0, 1), tolerance=CONV_TOLERANCE, api="v1", name="nn.conv2d_transpose(v1)"),
    OpRecord("nn.conv1d_transpose", (uniform((2, 4, 3), unknown_batch=False),
                                     uniform((3, 2, 3), unknown_batch=False)),
             lambda y, w: np_conv_transpose(y, w, (2, 7, 2), (2,), "SAME"),
             kwargs={"output_shape": [2, 7, 2], "strides": 2, "padding": "SAME"},
             grad_args=(0, 1), tolerance=CONV_TOLERANCE),
    OpRecord("nn.max_pool", (uniform((1, 6, 5, 2)),),
             lambda x: np_pool(x, (2, 2), (2, 1), "VALID", "MAX"),
             kwargs={"ksize": [1, 2, 2, 1], "strides": [1, 2, 1, 1], "padding": "VALID"},
             api="v1", name="nn.max_pool(v1)"),
    OpRecord("nn.avg_pool", (uniform((1, 6, 5, 2)),),
             lambda x: np_pool(x, (2, 2), (2, 1), "SAME", "AVG"),
             kwargs={"ksize": [1, 2, 2, 1], "strides": [1, 2, 1, 1], "padding": "SAME"},
             api="v1", name="nn.avg_pool(v1)"),
    OpRecord("nn.max_pool1d", (uniform((2, 7, 3)),),
             lambda x: np_pool(x, (3,), (2,), "SAME", "MAX"),
             kwargs={"ksize": 3, "strides": 2, "padding": "SAME"}),
    OpRecord("nn.avg_pool1d", (uniform((2, 7, 3)),),
             lambda x: np_pool(x, (3,), (2,), "SAME", "AVG"),
             kwargs={"ksize": 3, "strides": 2, "padding": "SAME"}),
    *with_v1(OpRecord("nn.pool", (uniform((2, 5, 6, 2)),),
                      lambda x: np_pool(x, (2, 3), (1, 1), "SAME", "AVG"),
                      kwargs={"window_shape": [2, 3], "pooling_type": "AVG", "padding": "SAME"})),
    OpRecord("nn.xw_plus_b", (uniform((4, 3)), uniform((3, 2), unknown_batch=False),
                              uniform((2,), unknown_batch=False)),
             lambda x, w, b: x @ w + b, grad_args=(0, 1, 2), api="v1"),
    OpRecord("nn.relu_layer", (uniform((4, 3)), uniform((3, 2), unknown_batch=False),
                               uniform((2,), unknown_batch=False)),
             lambda x, w, b: np.maximum(x @ w + b, 0), grad_args=(0, 1, 2), api="v1"),
    OpRecord("nn.moments", (uniform((4, 5, 3)),),
             lambda v: (v.mean(0, keepdims=True), v.var(0, keepdims=True)),
             kwargs={"axes": [0], "keep_dims": True}, api="v1", name="nn.moments(v1)"),
    OpRecord("nn.normalize_moments", (uniform((3,)), positive((3,))),
             lambda m, v: (m / 4, v / 4 - (m / 4) ** 2), call=lambda op, m, v: op(4.0, m, v, None),
             grad_args=(0, 1)),
    OpRecord("nn.fused_batch_norm", (uniform((4, 3, 2, 2)), positive((2,), unknown_batch=False),
                                     uniform((2,), unknown_batch=False)),
             lambda x, scale, offset: (
                 (x - x.mean((0, 1, 2))) / np.sqrt(x.var((0, 1, 2)) + 1e-3) * scale + offset,
                 x.mean((0, 1, 2)), x.var((0, 1, 2)) * 24 / 23),
             grad_args=(0, 1, 2), grad_outputs=(0,), api="v1", tolerance={F32: (1e-4, 1e-5)}),
    OpRecord("nn.in_top_k", (fixed(np.array([1, 2, 0]), I32),
                             fixed(np.array([[0.1, 0.8, 0.1], [0.5, 0.2, 0.3], [0.3, 0.3, 0.4]]))),
             lambda t, p: np.array([True, False, False]), (F32,),
             call=lambda op, targets, predictions: op(predictions, targets, 1),
             out_dtype=BOOL, grad_args=(), api="v1", name="nn.in_top_k(v1)"),
    OpRecord("nn.embedding_lookup", (uniform((5, 3), unknown_batch=False),
                                     fixed(np.array([[4, 0], [2, 2]]), I32)),
             lambda params, ids: params[ids]),
    OpRecord("nn.softmax_cross_entropy_with_logits", (distribution((4, 5)), uniform((4, 5))),
             lambda labels, logits: -(labels * np.log(_np_softmax(logits))).sum(-1),
             call=keywords("labels", "logits"), grad_args=(1,), api="v1",
             name="nn.softmax_cross_entropy_with_logits(v1)"),
    OpRecord("nn.softmax_cross_entropy_with_logits_v2", (distribution((4, 5)), uniform((4, 5))),
             lambda labels, logits: -(labels * np.log(_np_softmax(logits))).sum(-1),
             call=keywords("labels", "logits"), grad_args=(0, 1), api="v1"),
    OpRecord("nn.sparse_softmax_cross_entropy_with_logits",
             (integers((2, 3), 0, 5), uniform((2, 3, 5))),
             lambda labels, logits: -np.take_along_axis(np.log(_np_softmax(logits)),
                                                        labels[..., None], -1)[..., 0],
             call=keywords("labels", "logits"), grad_args=(1,), api="v1",
             name="nn.sparse_softmax_cross_entropy_with_logits(v1)"),
    OpRecord("nn.sigmoid_cross_entropy_with_logits", (uniform((2, 5), 0.0, 1.0),
                                                      uniform((2, 5), -4, 4)),
             _np_sigmoid_xent, call=keywords("labels", "logits"), grad_args=(0, 1), api="v1",
             name="nn.sigmoid_cross_entropy_with_logits(v1)"),
    OpRecord("nn.weighted_cross_entropy_with_logits", (uniform((2, 5), 0.0, 1.0),
                                                       uniform((2, 5), -4, 4)),
             lambda z, x: (1 - z) * x + (1 + 2 * z) * (np.log1p(np.exp(-np.abs(x)))
                                                       + np.maximum(-x, 0)),
             call=keywords("targets", "logits"), kwargs={"pos_weight": 3.0}, grad_args=(0, 1),
             api="v1", name="nn.weighted_cross_entropy_with_logits(v1)"),
]

# ---------------------------------------------------------------- Keras losses and metrics
# Keras 2 formulas (keras/losses.py, keras/backend.py); metrics are floatx (float32)

EPSILON = 1e-7   # keras.backend.epsilon()


def _keras_bce(y, p):
    p = np.clip(p, EPSILON, 1 - EPSILON)
    return -(y * np.log(p + EPSILON) + (1 - y) * np.log(1 - p + EPSILON)).mean(-1)


def _keras_cce(y, p):
    p = np.clip(p / p.sum(-1, keepdims=True), EPSILON, 1 - EPSILON)
    return -(y * np.log(p)).sum(-1)


def _unit_rows(v):
    return v / np.sqrt(np.maximum((v * v).sum(-1, keepdims=True), 1e-12))


def _huber(y, p, delta=1.0):
    error = np.abs(p - y)
    return np.where(error <= delta, 0.5 * error ** 2, delta * error - 0.5 * delta ** 2).mean(-1)


def keras_loss(name, y_true, y_pred, reference, **options):
    return OpRecord("keras.losses." + name, (y_true, y_pred), reference, grad_args=(1,),
                    **options)


LABELS01 = fixed(np.array([[0, 1, 1, 0], [1, 0, 0, 1], [1, 1, 0, 0]]))
RECORDS += [
    keras_loss("mean_squared_error", uniform((3, 4)), uniform((3, 4)),
               lambda y, p: ((y - p) ** 2).mean(-1)),
    keras_loss("mean_absolute_error", uniform((3, 4)), away_from((3, 4)),
               lambda y, p: np.abs(y - p).mean(-1)),
    keras_loss("mean_absolute_percentage_error", positive((3, 4)), uniform((3, 4)),
               lambda y, p: 100 * np.abs((y - p) / np.maximum(np.abs(y), EPSILON)).mean(-1)),
    keras_loss("mean_squared_logarithmic_error", positive((3, 4)), positive((3, 4)),
               lambda y, p: ((np.log(np.maximum(p, EPSILON) + 1)
                              - np.log(np.maximum(y, EPSILON) + 1)) ** 2).mean(-1)),
    keras_loss("binary_crossentropy", LABELS01, uniform((3, 4), 0.05, 0.95), _keras_bce),
    keras_loss("categorical_crossentropy", distribution((3, 4)), positive((3, 4)),
               _keras_cce),
    keras_loss("sparse_categorical_crossentropy", integers((3,), 0, 4),
               distribution((3, 4)),
               lambda y, p: -np.log(np.clip(p, EPSILON, 1 - EPSILON))[np.arange(3), y]),
    keras_loss("hinge", LABELS01, away_from((3, 4), (-1.0, 1.0)),
               lambda y, p: np.maximum(1 - (2 * y - 1) * p, 0).mean(-1)),
    keras_loss("squared_hinge", LABELS01, away_from((3, 4), (-1.0, 1.0)),
               lambda y, p: (np.maximum(1 - (2 * y - 1) * p, 0) ** 2).mean(-1)),
    keras_loss("categorical_hinge", fixed(np.eye(4)[[1, 3, 0]]), uniform((3, 4)),
               lambda y, p: np.maximum(((1 - y) * p).max(-1) - (y * p).sum(-1) + 1, 0)),
    keras_loss("huber", uniform((3, 4)), away_from((3, 4), (-1.0, 1.0), gap=0.3), _huber),
    keras_loss("logcosh", uniform((3, 4)), uniform((3, 4)),
               lambda y, p: np.log(np.cosh(p - y)).mean(-1)),
    keras_loss("kl_divergence", distribution((3, 4)), distribution((3, 4)),
               lambda y, p: (np.clip(y, EPSILON, 1) * np.log(
                   np.clip(y, EPSILON, 1) / np.clip(p, EPSILON, 1))).sum(-1)),
    keras_loss("poisson", positive((3, 4)), positive((3, 4)),
               lambda y, p: (p - y * np.log(p + EPSILON)).mean(-1)),
    keras_loss("cosine_similarity", uniform((3, 4)), uniform((3, 4)),
               lambda y, p: -(_unit_rows(y) * _unit_rows(p)).sum(-1)),
    OpRecord("keras.metrics.binary_accuracy", (LABELS01, uniform((3, 4), 0, 1)),
             lambda y, p: (y == (p > 0.5)).mean(-1), out_dtype=F32, grad_args=()),
    OpRecord("keras.metrics.categorical_accuracy", (fixed(np.eye(4)[[1, 3, 0]]),
                                                    uniform((3, 4))),
             lambda y, p: y.argmax(-1) == p.argmax(-1), out_dtype=F32, grad_args=()),
    OpRecord("keras.metrics.sparse_categorical_accuracy",
             (fixed(np.array([[1], [3], [0]])), uniform((3, 4))),
             lambda y, p: y[:, 0] == p.argmax(-1), out_dtype=F32, grad_args=()),
    OpRecord("keras.metrics.top_k_categorical_accuracy", (fixed(np.eye(4)[[1, 3, 0]]),
                                                          uniform((3, 4))),
             lambda y, p: (np.argsort(-p, -1)[:, :2] == y.argmax(-1)[:, None]).any(-1),
             kwargs={"k": 2}, out_dtype=F32, grad_args=()),
    OpRecord("keras.metrics.sparse_top_k_categorical_accuracy",
             (fixed(np.array([1, 3, 0]), I32), uniform((3, 4))),
             lambda y, p: (np.argsort(-p, -1)[:, :2] == y[:, None]).any(-1), (F32,),
             kwargs={"k": 2}, grad_args=()),
    activation("keras.activations.hard_sigmoid", lambda v: np.clip(0.2 * v + 0.5, 0, 1),
               (-2.5, 2.5)),
    activation("keras.activations.selu",
               lambda v: SELU_S * np.where(v > 0, v, SELU_A * np.expm1(v))),
]

# ---------------------------------------------------------------- image ops

IMAGES = uniform((2, 3, 4, 3), 0.0, 1.0)


def _resize_matrix(out_size, in_size, half_pixel):
    """Rows: TF's bilinear weights of the input pixels for each output pixel."""
    scale = in_size / out_size
    weights = np.zeros((out_size, in_size))
    for o in range(out_size):
        source = (o + 0.5) * scale - 0.5 if half_pixel else o * scale
        floor = math.floor(source)
        lower, upper = max(floor, 0), min(math.ceil(source), in_size - 1)
        weights[o, lower] += 1 - (source - floor)
        weights[o, upper] += source - floor
    return weights


def np_resize_bilinear(images, size, half_pixel=True):
    rows = _resize_matrix(size[0], images.shape[1], half_pixel)
    cols = _resize_matrix(size[1], images.shape[2], half_pixel)
    return np.einsum("oh,nhwc,pw->nopc", rows, images, cols)


def _hsv(rgb):
    """colorsys.rgb_to_hsv per pixel."""
    flat = rgb.reshape(-1, 3)
    return np.array([colorsys.rgb_to_hsv(*p) for p in flat]).reshape(rgb.shape)


def _rgb(hsv):
    flat = hsv.reshape(-1, 3)
    return np.array([colorsys.hsv_to_rgb(*p) for p in flat]).reshape(hsv.shape)


def _in_hsv(change):
    """The image with `change(h, s, v)` applied in HSV, as adjust_hue/saturation do."""
    def reference(rgb):
        hsv = _hsv(rgb)
        return _rgb(np.stack(change(*np.moveaxis(hsv, -1, 0)), -1))
    return reference


def image(path, reference, args=(IMAGES,), **options):
    return OpRecord("image." + path, args, reference, **options)


def _standardized(v):
    mean = v.mean((1, 2, 3), keepdims=True)
    std = np.maximum(v.std((1, 2, 3), keepdims=True), 1 / math.sqrt(v[0].size))
    return (v - mean) / std


def _max_pool_with_argmax(x):
    """Values and flat (y * W + x) * C + c indices of the 2x2 stride-2 VALID max."""
    n, h, w, c = x.shape
    windows = _windows(x, (2, 2), (2, 2), "VALID", 0)
    places = _windows(np.arange(h * w * c, dtype=float).reshape(1, h, w, c).repeat(n, 0),
                      (2, 2), (2, 2), "VALID", 0)
    flat = windows.reshape(windows.shape[:3] + (4, c))
    best = flat.argmax(3)[:, :, :, None]
    return (np.take_along_axis(flat, best, 3)[:, :, :, 0],
            np.take_along_axis(places.reshape(flat.shape), best, 3)[:, :, :, 0])


RECORDS += [
    image("flip_left_right", lambda v: v[:, :, ::-1]),
    image("flip_up_down", lambda v: v[:, ::-1]),
    image("transpose", lambda v: v.transpose(0, 2, 1, 3)),
    image("rot90", lambda v: np.rot90(v, 1, axes=(1, 2))),
    image("crop_to_bounding_box", lambda v: v[:, 1:3, 0:3],
          kwargs={"offset_height": 1, "offset_width": 0, "target_height": 2,
                  "target_width": 3}),
    image("pad_to_bounding_box", lambda v: np.pad(v, [(0, 0), (1, 1), (2, 1), (0, 0)]),
          kwargs={"offset_height": 1, "offset_width": 2, "target_height": 5,
                  "target_width": 7}),
    image("central_crop", lambda v: v[:, 1:3, 2:6], (uniform((1, 4, 8, 2), 0, 1),),
          kwargs={"central_fraction": 0.5}),
    image("per_image_standardization", _standardized),
    image("adjust_brightness", lambda v: v + 0.2, kwargs={"delta": 0.2}),
    image("adjust_contrast", lambda v: (v - v.mean((1, 2), keepdims=True)) * 1.5
          + v.mean((1, 2), keepdims=True), kwargs={"contrast_factor": 1.5}, grad_args=()),
    image("adjust_gamma", lambda v: 1.5 * v ** 2, (uniform((2, 3, 4, 3), 0.1, 1.0),),
          kwargs={"gamma": 2, "gain": 1.5}),
    # TF converts to float32, weighs, converts back: float64 images get float32 precision
    image("rgb_to_grayscale", lambda v: (v * [0.2989, 0.5870, 0.1140]).sum(-1, keepdims=True),
          tolerance={F64: (1e-6, 1e-7)}),
    image("grayscale_to_rgb", lambda v: np.repeat(v, 3, -1), (uniform((2, 3, 4, 1), 0, 1),)),
    image("rgb_to_hsv", _hsv, grad_args=()),
    image("adjust_saturation", _in_hsv(lambda h, s, v: (h, np.clip(s * 1.5, 0, 1), v)),
          kwargs={"saturation_factor": 1.5}, grad_args=()),
    image("adjust_hue", _in_hsv(lambda h, s, v: ((h + 0.3) % 1, s, v)), kwargs={"delta": 0.3},
          grad_args=()),
    image("resize_with_crop_or_pad", lambda v: np.pad(v[:, :, 1:3], [(0, 0), (1, 1), (0, 0),
                                                                      (0, 0)]),
          kwargs={"target_height": 5, "target_width": 2}),
    image("hsv_to_rgb", _rgb, (uniform((2, 3, 4, 3), 0.05, 0.95),), grad_args=()),
    image("convert_image_dtype", lambda v: v / 255, (integers((2, 3, 4, 3), 0, 256, np.uint8),),
          kwargs={"dtype": CASE_DTYPE}, grad_args=()),
    image("resize", lambda v: np_resize_bilinear(v, (5, 3)), kwargs={"size": [5, 3]}),
    image("resize_bilinear", lambda v: np_resize_bilinear(v, (5, 3), half_pixel=False),
          kwargs={"size": [5, 3]}, api="v1"),
    image("resize", lambda v: np_resize_bilinear(v, (5, 3), half_pixel=False),
          kwargs={"size": [5, 3]}, api="v1", name="image.resize(v1)"),
    image("resize_nearest_neighbor",
          lambda v: v[:, np.minimum(np.floor(np.arange(6) * 3 / 6), 2).astype(int)]
          [:, :, np.minimum(np.floor(np.arange(2) * 4 / 2), 3).astype(int)],
          kwargs={"size": [6, 2]}, api="v1"),
    *with_v1(OpRecord("nn.max_pool_with_argmax", (uniform((2, 4, 6, 3)),),
                      _max_pool_with_argmax, kwargs={"ksize": 2, "strides": 2, "padding": "VALID"},
                      out_dtype=(None, I64))),
]

# ---------------------------------------------------------------- sparse ops

SPARSE_INDICES, SPARSE_SHAPE = [[0, 1], [2, 0], [2, 1]], [3, 2]


def _dense(values):
    dense = np.zeros(SPARSE_SHAPE, values.dtype)
    dense[tuple(np.array(SPARSE_INDICES).T)] = values
    return dense


def with_sparse(op, values, *tensors, **kwargs):
    """`op(SparseTensor(SPARSE_INDICES, values, SPARSE_SHAPE), *tensors)`."""
    return op(tf.sparse.SparseTensor(SPARSE_INDICES, values, SPARSE_SHAPE), *tensors, **kwargs)


RECORDS += [
    OpRecord("sparse.sparse_dense_matmul", (uniform((3,), unknown_batch=False),
                                            uniform((2, 4), unknown_batch=False)),
             lambda v, b: _dense(v) @ b, call=with_sparse, grad_args=(0, 1)),
    OpRecord("sparse.reduce_sum", (uniform((3,), unknown_batch=False),),
             lambda v: _dense(v).sum(1), NUMERIC, kwargs={"axis": 1}, call=with_sparse),
    OpRecord("sparse.to_dense", (uniform((3,), unknown_batch=False),), _dense, NUMERIC,
             call=with_sparse),
    OpRecord("sparse.to_dense", (uniform((3,)),), _dense, call=with_sparse, grad_args=(),
             name="sparse.to_dense(values of unknown length)"),
]

RECORDS += [
    *with_v1(OpRecord("nn.conv3d", (uniform((1, 4, 3, 5, 2)),
                                    uniform((2, 2, 3, 2, 3), unknown_batch=False)),
                      lambda x, w: np_conv(x, w, (2, 1, 2), "SAME"),
                      kwargs={"strides": [1, 2, 1, 2, 1], "padding": "SAME"}, grad_args=(0, 1),
                      tolerance=CONV_TOLERANCE)),
    OpRecord("nn.max_pool3d", (uniform((2, 4, 3, 5, 2)),),
             lambda x: np_pool(x, (2, 2, 3), (2, 1, 2), "SAME", "MAX"),
             kwargs={"ksize": [2, 2, 3], "strides": [2, 1, 2], "padding": "SAME"}),
    OpRecord("nn.avg_pool3d", (uniform((2, 4, 3, 5, 2)),),
             lambda x: np_pool(x, (2, 2, 3), (2, 1, 2), "VALID", "AVG"),
             kwargs={"ksize": [2, 2, 3], "strides": [2, 1, 2], "padding": "VALID"}),
    *with_v1(OpRecord("nn.conv3d_transpose", (uniform((1, 2, 3, 3, 3), unknown_batch=False),
                                              uniform((2, 2, 3, 2, 3), unknown_batch=False)),
                      lambda y, w: np_conv_transpose(y, w, (1, 4, 3, 5, 2), (2, 1, 2), "SAME"),
                      call=lambda op, y, w: op(y, w, [1, 4, 3, 5, 2], [1, 2, 1, 2, 1], "SAME"),
                      grad_args=(0, 1), tolerance=CONV_TOLERANCE)),
    OpRecord("nn.conv_transpose", (uniform((2, 3, 3, 3), unknown_batch=False),
                                   uniform((3, 3, 2, 3), unknown_batch=False)),
             lambda y, w: np_conv_transpose(y, w, (2, 5, 6, 2), (2, 2), "SAME"),
             kwargs={"output_shape": [2, 5, 6, 2], "strides": 2, "padding": "SAME"},
             grad_args=(0, 1), tolerance=CONV_TOLERANCE),
]

def _scatter_rows(values, indices, rows):
    """The dense tensor of IndexedSlices: rows of `values` summed at `indices`."""
    dense = np.zeros((rows,) + values.shape[1:])
    np.add.at(dense, indices, values)
    return dense


RECORDS += [
    OpRecord("sparse.from_dense", (fixed(np.array([[0, 2, 0], [3, 0, 4]])),),
             lambda v: (np.argwhere(v), v[v != 0], np.array(v.shape)), NUMERIC,
             out_dtype=(I64, None, I64), grad_args=()),
    OpRecord("sparse.reorder", (uniform((3,), unknown_batch=False),),
             lambda v: (np.array(SPARSE_INDICES), v[[1, 0, 2]], np.array(SPARSE_SHAPE)), NUMERIC,
             call=lambda op, values: op(tf.sparse.SparseTensor(
                 [[2, 0], [0, 1], [2, 1]], values, SPARSE_SHAPE)),
             out_dtype=(I64, None, I64), grad_args=()),
    OpRecord("convert_to_tensor", (uniform((2, 3)), fixed(np.array([3, 1]), I32)),
             lambda v, i: _scatter_rows(v, i, 4),
             call=lambda op, v, i: op(tf.IndexedSlices(v, i, [4, 3])),
             name="convert_to_tensor(IndexedSlices)"),
    OpRecord("nn.embedding_lookup_sparse", (uniform((5, 3), unknown_batch=False),),
             lambda params: np.stack([params[[1, 4]].mean(0), params[[0]].mean(0)]),
             call=lambda op, params: op(params, tf.sparse.SparseTensor(
                 [[0, 0], [0, 1], [1, 0]], tf.constant([1, 4, 0], tf.int64), [2, 2]), None,
                 combiner="mean")),
    OpRecord("bitwise.invert", (fixed(np.array([12, 10, -3])),), np.invert, (I32,),
             call=lambda op, x: ~x, grad_args=(), name="Tensor.__invert__"),
]

# ---------------------------------------------------------------- string ops

STR = np.object_   # string tensors are numpy object arrays of bytes
WORDS = np.array([b"  Hello ", b"World", b"tf compat"], dtype=object)


def _bytes(fn):
    """`fn` applied to each bytes element."""
    return lambda v: np.array([fn(b) for b in v.ravel()], dtype=object).reshape(v.shape)


def string_op(path, reference, args=(fixed(WORDS),), **options):
    options.setdefault("grad_args", ())
    return OpRecord(path, args, reference, (STR,), **options)


RECORDS += [
    *with_v1(string_op("strings.length", lambda v: np.array([len(b) for b in v]),
                       out_dtype=I32)),
    string_op("strings.lower", _bytes(bytes.lower)),
    string_op("strings.upper", _bytes(bytes.upper)),
    string_op("strings.strip", _bytes(bytes.strip)),
    string_op("strings.join", lambda a, b: np.array([x + b"-" + y for x, y in zip(a, b)],
                                                    dtype=object),
              (fixed(WORDS), fixed(WORDS[::-1].copy())), call=as_list,
              kwargs={"separator": "-"}),
    string_op("strings.regex_replace", _bytes(lambda b: b.replace(b"o", b"0")),
              kwargs={"pattern": "o", "rewrite": "0"}),
    *with_v1(string_op("strings.substr", _bytes(lambda b: b[1:4]),
                       kwargs={"pos": 1, "len": 3})),
    *with_v1(string_op("strings.reduce_join", lambda v: np.array(b",".join(v), dtype=object),
                       kwargs={"axis": 0, "separator": ","})),
    *with_v1(string_op("strings.to_number", lambda v: np.array([1.5, -2.0, 300.0]),
                       (fixed(np.array([b"1.5", b"-2", b"3e2"], dtype=object)),),
                       out_dtype=F32)),
    string_op("io.encode_base64", _bytes(lambda b: base64.urlsafe_b64encode(b).rstrip(b"="))),
    string_op("io.decode_base64", _bytes(base64.urlsafe_b64decode),
              (fixed(np.array([b"SGVsbG8=", b"dGYgY29tcGF0"], dtype=object)),),
              xfail={"graph": "decode_base64 of a string placeholder fails to build: shape "
                              "inference decodes a stand-in string ('Base64 string length "
                              "cannot be 1 modulo 4'); TF builds it and decodes when run"}),
    string_op("strings.unicode_transcode", _bytes(lambda b: b.decode().encode("utf-16-be")),
              kwargs={"input_encoding": "UTF-8", "output_encoding": "UTF-16-BE"}),
]

# ---------------------------------------------------------------- random ops

TRUNCATED_STD = 0.8796256610342398   # std of the standard normal cut at +-2
SESSION_REPLAY = ("a new Session on the same graph continues the op's sequence: generators "
                  "are kept per (global seed, op seed), not per Session; TF's kernels seed "
                  "theirs per Session (tf.compat.v1.set_random_seed's documented example: "
                  "sess2 repeats sess1's A1, A2)")


SEEDED_INITIALIZER_GRAPH = ("a seeded Keras 2 initializer's graph node re-draws on each run; "
                            "Keras 2.15 initializers draw with stateless ops of seed "
                            "[seed, 0] (backend.RandomGenerator(seed, rng_type='stateless')),"
                            " so every run gives the same values")


def random_op(path, samples, args=(), dtypes=FLOATS, **options):
    """A random op's record: static `kwargs` (shape, seed), `samples` to check."""
    options.setdefault("grad_args", ())
    if not samples.stateless:
        options["xfail"] = {"replay": SESSION_REPLAY, **options.get("xfail", {})}
    return OpRecord(path, args, None, dtypes, samples=samples, **options)


def moments(mean, std):
    """The sample's mean and standard deviation."""
    return lambda outputs: [(outputs[0].mean(), mean), (outputs[0].std(), std)]


def per_column_moments(mean, std):
    """Mean and std over the first axis (samples of a parameter vector), vs arrays."""
    return lambda outputs, *arrays: [(outputs[0].mean(0), mean(*arrays)),
                                      (outputs[0].std(0), std(*arrays))]


def _class_frequencies(outputs, logits):
    samples = outputs[0]
    frequencies = np.stack([np.bincount(row, minlength=logits.shape[1]) / row.size
                            for row in samples])
    probabilities = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    return [(frequencies, probabilities)]


def _rows_in_order(outputs, value):
    """A shuffle moves whole rows: sorted by their (distinct) first entries they are
    `value`'s rows."""
    shuffled = outputs[0]
    return [(shuffled[np.argsort(shuffled[:, 0], kind="stable")], value),
            (np.mean(shuffled[:, 0] != value[:, 0]) > 0.5, True)]


def _crop_offsets_removed(outputs, value):
    """A crop of an arange image, less its first element, is the same for every offset."""
    crop = outputs[0]
    return [(crop - crop.flat[0], value[:crop.shape[0], :crop.shape[1]] - value.flat[0])]


def _dropout_statistics(rate):
    """Dropped elements are 0 (a fraction `rate` of them), kept ones scaled by 1/(1-rate)."""
    def statistics(outputs, x):
        y = outputs[0]
        return [(np.mean(y == 0), rate), (np.where(y == 0, x / (1 - rate), y), x / (1 - rate))]
    return statistics


def _row_dropout_statistics(rate):
    """noise_shape [n, 1]: a row is dropped or kept whole (a fraction `rate` dropped)."""
    def statistics(outputs, x):
        y = outputs[0]
        dropped = (y == 0).all(1)
        kept = np.isclose(y, x / (1 - rate), rtol=1e-5).all(1)
        return [(dropped.mean(), rate), ((dropped | kept).all(), True)]
    return statistics


def _flip_statistics(axis):
    """Each image is itself or flipped along `axis`, half of them flipped."""
    def statistics(outputs, images):
        out, flipped = outputs[0], np.flip(images, axis)
        was_flipped = (out == flipped).all(axis=(1, 2, 3))
        return [(was_flipped.mean(), 0.5),
                ((out == images).all(axis=(1, 2, 3)) | was_flipped, True)]
    return statistics


def _log_uniform_candidates(outputs, true_classes):
    """Unique sampled classes in [0, range_max); expected counts positive and at most 1."""
    sampled, true_count, sampled_count = outputs
    return [(len(np.unique(sampled)), sampled.size), (np.all(true_count > 0), True),
            (np.all((sampled_count > 0) & (sampled_count <= 1 + 1e-6)), True)]


SHAPE = [100, 100]
GAMMA_ALPHA = np.array([1.5, 4.0])
POISSON_RATE = np.array([2.0, 5.0])
SHUFFLED = np.arange(600).reshape(200, 3) % 997
LOGITS = np.array([[0.0, 1.0, 2.0, -1.0], [0.5, 0.5, 0.5, 0.5]])
IMAGES = np.arange(400 * 2 * 3).reshape(400, 2, 3, 1)
CROPPED = np.arange(120).reshape(12, 10)
SAMPLED_LOSS_ARGS = (uniform((10, 4), unknown_batch=False), uniform((10,), unknown_batch=False),
                     fixed(np.array([[1], [7], [3]]), I64), uniform((3, 4)))


def sampled_loss_record(path, **options):
    """nce_loss / sampled_softmax_loss over 10 classes, 4 sampled: per-example losses
    (positive); gradients of one draw (the sampler is seeded)."""
    return random_op(path, Samples((3,), low=0.0), SAMPLED_LOSS_ARGS,
                     call=lambda op, w, b, labels, x: op(w, b, labels, x, num_sampled=4,
                                                         num_classes=10),
                     grad_args=(0, 1, 3), **options)


RECORDS += [
    random_op("random.normal", Samples(SHAPE, moments(1.0, 2.0)),
              kwargs={"shape": SHAPE, "mean": 1.0, "stddev": 2.0, "dtype": CASE_DTYPE,
                      "seed": 7}),
    random_op("random.uniform", Samples(SHAPE, moments(1.0, 4 / math.sqrt(12)), -1.0, 3.0),
              kwargs={"shape": SHAPE, "minval": -1.0, "maxval": 3.0, "dtype": CASE_DTYPE,
                      "seed": 7}),
    random_op("random.uniform", Samples(SHAPE, moments(4.5, math.sqrt(99 / 12)), 0, 9),
              dtypes=(I32, I64), name="random.uniform(int)",
              kwargs={"shape": SHAPE, "minval": 0, "maxval": 10, "dtype": CASE_DTYPE,
                      "seed": 7}),
    random_op("random.truncated_normal",
              Samples(SHAPE, moments(0.5, 2 * TRUNCATED_STD), 0.5 - 4, 0.5 + 4),
              kwargs={"shape": SHAPE, "mean": 0.5, "stddev": 2.0, "dtype": CASE_DTYPE,
                      "seed": 7}),
    random_op("random.stateless_uniform",
              Samples(SHAPE, moments(1.0, 4 / math.sqrt(12)), -1.0, 3.0, stateless=True),
              kwargs={"shape": SHAPE, "seed": [3, 4], "minval": -1.0, "maxval": 3.0,
                      "dtype": CASE_DTYPE}),
    random_op("random.stateless_normal", Samples(SHAPE, moments(1.0, 2.0), stateless=True),
              kwargs={"shape": SHAPE, "seed": [3, 4], "mean": 1.0, "stddev": 2.0,
                      "dtype": CASE_DTYPE}),
    random_op("random.stateless_truncated_normal",
              Samples(SHAPE, moments(0.5, 2 * TRUNCATED_STD), 0.5 - 4, 0.5 + 4,
                      stateless=True),
              kwargs={"shape": SHAPE, "seed": [3, 4], "mean": 0.5, "stddev": 2.0,
                      "dtype": CASE_DTYPE}),
    random_op("random.stateless_categorical",
              Samples((2, 4000), _class_frequencies, 0, 3, stateless=True), (fixed(LOGITS),),
              kwargs={"num_samples": 4000, "seed": [3, 4]}, out_dtype=I64),
    random_op("random.experimental.stateless_split", Samples((3, 2), stateless=True),
              dtypes=(I32,), kwargs={"seed": [3, 4], "num": 3}),
    random_op("random.experimental.stateless_fold_in",
              Samples((2,), lambda outputs: [(outputs[0][1], 7)], atol=0, stateless=True),
              dtypes=(I32,), kwargs={"seed": [3, 4], "data": 7}),
    random_op("random.shuffle", Samples(SHUFFLED.shape, _rows_in_order, atol=0),
              (fixed(SHUFFLED),), NUMERIC, kwargs={"seed": 7}),
    random_op("random.categorical", Samples((2, 4000), _class_frequencies, 0, 3),
              (fixed(LOGITS),), kwargs={"num_samples": 4000, "seed": 7}, out_dtype=I64),
    random_op("random.multinomial", Samples((2, 4000), _class_frequencies, 0, 3),
              (fixed(LOGITS),), kwargs={"num_samples": 4000, "seed": 7}, out_dtype=I64,
              api="v1"),
    random_op("random.gamma",
              Samples((4000, 2), per_column_moments(lambda a: a / 2, lambda a: np.sqrt(a) / 2),
                      low=0.0, atol=0.08),
              (fixed(GAMMA_ALPHA, unknown_batch=False),),
              call=lambda op, alpha, **kw: op([4000], alpha, **kw),
              kwargs={"beta": 2.0, "dtype": CASE_DTYPE, "seed": 7}),
    random_op("random.poisson",
              Samples((4000, 2), per_column_moments(lambda r: r, np.sqrt), low=0.0, atol=0.12),
              (fixed(POISSON_RATE, unknown_batch=False),),
              call=lambda op, rate, **kw: op([4000], rate, **kw),
              kwargs={"dtype": CASE_DTYPE, "seed": 7}),
    random_op("random.poisson",
              Samples((4000, 2), per_column_moments(lambda r: r, np.sqrt), low=0.0, atol=0.12),
              (fixed(POISSON_RATE, unknown_batch=False),), api="v1", name="random.poisson(v1)",
              call=lambda op, rate, **kw: op(rate, [4000], **kw),
              kwargs={"dtype": CASE_DTYPE, "seed": 7}),
    random_op("image.random_crop", Samples((5, 6), _crop_offsets_removed, atol=0),
              (fixed(CROPPED),), NUMERIC, kwargs={"size": [5, 6], "seed": 7}, grad_args=(0,)),
    random_op("nn.dropout", Samples((30, 30), _dropout_statistics(0.3), atol=0.05),
              (positive((30, 30)),), kwargs={"rate": 0.3, "seed": 7}, grad_args=(0,)),
    random_op("nn.dropout", Samples((30, 30), _dropout_statistics(0.3), atol=0.05),
              (positive((30, 30)),), kwargs={"keep_prob": 0.7, "seed": 7}, grad_args=(0,),
              api="v1", name="nn.dropout(v1)"),
    random_op("nn.dropout", Samples((300, 4), _row_dropout_statistics(0.3), atol=0.06),
              (positive((300, 4)),), kwargs={"rate": 0.3, "noise_shape": [300, 1], "seed": 7},
              name="nn.dropout(noise_shape)"),
    random_op("image.random_flip_left_right", Samples(IMAGES.shape, _flip_statistics(2),
                                                      atol=0.1),
              (fixed(IMAGES),), NUMERIC, kwargs={"seed": 7}),
    random_op("image.random_flip_up_down", Samples(IMAGES.shape, _flip_statistics(1),
                                                   atol=0.1),
              (fixed(IMAGES),), NUMERIC, kwargs={"seed": 7}),
    random_op("random.log_uniform_candidate_sampler",
              Samples((50,), _log_uniform_candidates, 0, 99, atol=0),
              (fixed(np.array([[3], [40]]), I64),), dtypes=(I64,),
              kwargs={"num_true": 1, "num_sampled": 50, "unique": True, "range_max": 100,
                      "seed": 7}, out_dtype=(I64, F32, F32)),
    sampled_loss_record("nn.nce_loss"),
    sampled_loss_record("nn.sampled_softmax_loss"),
    random_op("keras.initializers.RandomNormal",
              Samples(SHAPE, moments(1.0, 2.0), stateless=True),
              call=lambda cls, dtype: cls(mean=1.0, stddev=2.0, seed=7)(SHAPE, dtype),
              kwargs={"dtype": CASE_DTYPE}, xfail={"graph": SEEDED_INITIALIZER_GRAPH}),
    random_op("random_uniform_initializer",
              Samples(SHAPE, moments(1.0, 4 / math.sqrt(12)), -1.0, 3.0), api="v1",
              call=lambda cls, dtype: cls(-1.0, 3.0, seed=7)(SHAPE, dtype),
              kwargs={"dtype": CASE_DTYPE}),
]

# ---------------------------------------------------------------- ragged ops

RAGGED_SPLITS = np.array([0, 2, 2, 5, 6])           # rows of 2, 0, 3 and 1 values
RAGGED_ROWIDS = np.array([0, 0, 2, 2, 2, 3])


def ragged_args(values=6, splits=RAGGED_SPLITS):
    """A RaggedTensor's tensors: flat values, int64 row splits."""
    return (uniform((values,)), fixed(splits, I64))


def _ragged(values, splits):
    return tf.RaggedTensor.from_row_splits(values, splits)


def on_ragged(op, values, splits, **kwargs):
    """`op(RaggedTensor.from_row_splits(values, splits), **kwargs)`."""
    return op(_ragged(values, splits), **kwargs)


def on_ragged_list(op, *tensors, **kwargs):
    """`op([rt1, rt2, ...])`: concat and stack take one list."""
    return op([_ragged(tensors[i], tensors[i + 1]) for i in range(0, len(tensors), 2)],
              **kwargs)


def _rows(values, splits):
    return [values[start:stop] for start, stop in zip(splits[:-1], splits[1:])]


def _splits_of(rows):
    return np.cumsum([0] + [len(r) for r in rows])


def _padded(values, splits, width=None, default=0):
    rows = _rows(values, splits)
    width = max(len(r) for r in rows) if width is None else width
    return np.array([np.concatenate([r, np.full(width - len(r), default)]) for r in rows])


STAND_IN_NROWS = ("with row splits of unknown length (a [None] placeholder) the static shape "
                  "of %s takes the stand-in row count (fixed, and wrong when run); TF's is "
                  "[None]")


# ragged results compare as (flat values, row splits...): flat values in the case dtype,
# int64 row splits
RAGGED_OUT = (None, I64)
RECORDS += [
    OpRecord("RaggedTensor.from_row_splits", ragged_args(), lambda v, s: (v, s),
             out_dtype=RAGGED_OUT),
    OpRecord("RaggedTensor.from_row_lengths", (uniform((6,)), fixed([2, 0, 3, 1], I64)),
             lambda v, lengths: (v, RAGGED_SPLITS), out_dtype=RAGGED_OUT),
    OpRecord("RaggedTensor.from_row_starts", (uniform((6,)), fixed([0, 2, 2, 5], I64)),
             lambda v, starts: (v, RAGGED_SPLITS), out_dtype=RAGGED_OUT),
    OpRecord("RaggedTensor.from_row_limits", (uniform((6,)), fixed([2, 2, 5, 6], I64)),
             lambda v, limits: (v, RAGGED_SPLITS), out_dtype=RAGGED_OUT),
    OpRecord("RaggedTensor.from_value_rowids", (uniform((6,)), fixed(RAGGED_ROWIDS, I64)),
             lambda v, ids: (v, [0, 2, 2, 5, 6, 6]), kwargs={"nrows": 5},
             out_dtype=RAGGED_OUT),
    OpRecord("RaggedTensor.from_uniform_row_length", (uniform((6,)),),
             lambda v: (v, [0, 2, 4, 6]), kwargs={"uniform_row_length": 2},
             out_dtype=RAGGED_OUT),
    OpRecord("RaggedTensor.from_tensor", (uniform((3, 4)), fixed([2, 0, 3], I64)),
             lambda t, lengths: (np.concatenate([t[0, :2], t[2, :3]]), [0, 2, 2, 5]),
             call=lambda op, t, lengths: op(t, lengths=lengths), out_dtype=RAGGED_OUT,
             name="RaggedTensor.from_tensor(lengths)"),
    OpRecord("RaggedTensor.from_tensor",
             (fixed([[1, 2, 0, 0], [0, 0, 0, 0], [3, 0, 5, 0]]),),
             lambda t: ([1, 2, 3, 0, 5], [0, 2, 2, 5]), NUMERIC, kwargs={"padding": 0},
             out_dtype=RAGGED_OUT, grad_args=(), name="RaggedTensor.from_tensor(padding)"),
    OpRecord("RaggedTensor.from_sparse", (uniform((3,), unknown_batch=False),),
             lambda v: (v, [0, 2, 2, 3]), out_dtype=RAGGED_OUT,
             call=lambda op, v: op(tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], v,
                                                          [3, 2]))),
    OpRecord("RaggedTensor.to_tensor", ragged_args(), lambda v, s: _padded(v, s),
             call=on_ragged),
    OpRecord("RaggedTensor.to_tensor", ragged_args(), lambda v, s: _padded(v, s, 4, 9),
             call=on_ragged, kwargs={"default_value": 9, "shape": [4, 4]},
             name="RaggedTensor.to_tensor(default_value, shape)"),
    OpRecord("RaggedTensor.to_sparse", ragged_args(),
             lambda v, s: ([[0, 0], [0, 1], [2, 0], [2, 1], [2, 2], [3, 0]], v, [4, 3]),
             call=on_ragged, out_dtype=(I64, None, I64)),
    OpRecord("RaggedTensor.row_lengths", ragged_args(), lambda v, s: np.diff(s),
             call=on_ragged, out_dtype=I64, grad_args=()),
    OpRecord("RaggedTensor.value_rowids", ragged_args(), lambda v, s: RAGGED_ROWIDS,
             call=on_ragged, out_dtype=I64, grad_args=()),
    OpRecord("RaggedTensor.nrows", ragged_args(), lambda v, s: len(s) - 1,
             call=on_ragged, out_dtype=I64, grad_args=()),
    OpRecord("RaggedTensor.bounding_shape", ragged_args(), lambda v, s: np.array([4, 3]),
             call=on_ragged, out_dtype=I64, grad_args=()),
    OpRecord("ragged.range", (fixed([0, 2, 5]), fixed([3, 2, 8])),
             lambda starts, limits: ([0, 1, 2, 5, 6, 7], [0, 3, 3, 6]), (I32,),
             out_dtype=RAGGED_OUT, grad_args=()),
    OpRecord("ragged.row_splits_to_segment_ids", (fixed(RAGGED_SPLITS, I64),),
             lambda s: RAGGED_ROWIDS, (I64,), grad_args=()),
    OpRecord("ragged.segment_ids_to_row_splits", (fixed(RAGGED_ROWIDS, I64),),
             lambda ids: RAGGED_SPLITS, (I64,), grad_args=()),
    OpRecord("concat", ragged_args() + ragged_args(5, [0, 1, 3, 3, 5]),
             lambda v, s, w, t: (np.concatenate([v, w]), [0, 2, 2, 5, 6, 7, 9, 9, 11]),
             call=on_ragged_list, kwargs={"axis": 0}, out_dtype=RAGGED_OUT,
             grad_args=(0, 2), name="concat(ragged, axis=0)"),
    OpRecord("concat", ragged_args() + ragged_args(5, [0, 1, 3, 3, 5]),
             lambda v, s, w, t: (
                 np.concatenate([np.concatenate(pair) for pair in
                                 zip(_rows(v, s), _rows(w, t))]), [0, 3, 5, 8, 11]),
             call=on_ragged_list, kwargs={"axis": 1}, out_dtype=RAGGED_OUT,
             grad_args=(0, 2), name="concat(ragged, axis=1)"),
    OpRecord("ragged.stack", ragged_args() + ragged_args(5, [0, 1, 3, 3, 5]),
             lambda v, s, w, t: (
                 np.concatenate([np.concatenate(pair) for pair in
                                 zip(_rows(v, s), _rows(w, t))]),
                 [0, 2, 4, 6, 8], [0, 2, 3, 3, 5, 8, 8, 9, 11]),
             call=on_ragged_list, kwargs={"axis": 1}, out_dtype=(None, I64, I64),
             grad_args=(0, 2),
             xfail={"graph": STAND_IN_NROWS % "the outer row splits"}),
    OpRecord("RaggedTensor.__getitem__", ragged_args(),
             lambda v, s: (v[2:5], [0, 0, 3]),
             call=lambda op, v, s: op(_ragged(v, s), slice(1, 3)),
             out_dtype=RAGGED_OUT, name="RaggedTensor.__getitem__(rows)",
             xfail={"graph": "rt[1:3] of a RaggedTensor with an unknown row count "
                             "raises NotImplementedError; TF gathers the rows in graphs"}),
    OpRecord("RaggedTensor.__getitem__", ragged_args(),
             lambda v, s: (v[[1, 3, 4]], [0, 1, 1, 3, 3]),
             call=lambda op, v, s: op(_ragged(v, s), (slice(None), slice(1, None))),
             out_dtype=RAGGED_OUT, name="RaggedTensor.__getitem__(within rows)",
             xfail={"graph": "rt[:, 1:] in a graph raises NotImplementedError ('Slicing "
                             "the ragged dimension of a RaggedTensor in a graph'); TF "
                             "slices within rows in graphs (RaggedTensor.__getitem__)"}),
    OpRecord("math.reduce_sum", ragged_args(),
             lambda v, s: np.array([v[0] + v[2] + v[5], v[1] + v[3], v[4]]),
             call=on_ragged, kwargs={"axis": 0}, name="math.reduce_sum(ragged, axis=0)"),
    OpRecord("math.reduce_mean", ragged_args(),
             lambda v, s: np.array([r.mean() if len(r) else np.nan for r in _rows(v, s)]),
             call=on_ragged, kwargs={"axis": 1}, grad_args=(),
             name="math.reduce_mean(ragged, axis=1)",
             xfail={"graph": STAND_IN_NROWS % "the row means"}),
    OpRecord("math.reduce_max", ragged_args(splits=[0, 2, 3, 5, 6]),
             lambda v, s: np.array([max(r) for r in _rows(v, s)]),
             call=on_ragged, kwargs={"axis": 1}, name="math.reduce_max(ragged, axis=1)",
             xfail={"graph": STAND_IN_NROWS % "the row maxima"}),
    OpRecord("ragged.boolean_mask", ragged_args() + (fixed([1, 0, 1, 1, 0, 1], BOOL),),
             lambda v, s, m: (v[[0, 2, 3, 5]], [0, 1, 1, 3, 4]),
             call=lambda op, v, s, m: op(_ragged(v, s), _ragged(m, s)),
             out_dtype=RAGGED_OUT,
             xfail={"graph": STAND_IN_NROWS % "the result's row splits"}),
]

# ---------------------------------------------------------------- variables

def on_variable(method, initial, *tensors, **kwargs):
    """`method(tf.Variable(initial), *tensors)`, then the variable's value read after it."""
    variable = tf.Variable(initial)
    update = method(variable, *tensors, **kwargs)
    with tf.control_dependencies([update]):
        return variable.read_value()


def on_variable_slices(method, initial, indices, updates):
    """`method(variable, tf.IndexedSlices(updates, indices))`: Variable.scatter_* methods."""
    return on_variable(lambda variable: method(variable, tf.IndexedSlices(updates, indices)),
                       initial)


def read_variable(method, initial, *tensors):
    """`method(tf.Variable(initial), *tensors)`: reads of a variable."""
    return method(tf.Variable(initial), *tensors)


def _scattered(ufunc):
    """numpy's `ufunc.at` on a copy: TF's scatter_<op> of rows."""
    def reference(initial, indices, updates):
        result = initial.copy()
        ufunc.at(result, indices.reshape(-1), updates)
        return result
    return reference


def _updated(initial, indices, updates):
    result = initial.copy()
    result[indices.reshape(-1)] = updates
    return result


def variable_record(path, args, reference, call=on_variable, **options):
    """An op on a variable of a 4x3 initial value (its first argument); graph checks run the
    variables' initializers first."""
    return OpRecord(path, (positive((4, 3), unknown_batch=False),) + args, reference,
                    call=call, grad_args=(), **options)


VARIABLE_ROWS = fixed(np.array([2, 0]), I32)
VARIABLE_ND_ROWS = fixed(np.array([[2], [0]]), I32)
ROW_UPDATES = positive((2, 3))
SCATTERS = {"update": _updated, "add": _scattered(np.add), "sub": _scattered(np.subtract),
            "mul": _scattered(np.multiply), "div": _scattered(np.divide),
            "min": _scattered(np.minimum), "max": _scattered(np.maximum)}
RECORDS += [
    variable_record("Variable.assign", (uniform((4, 3)),), lambda x, u: u),
    variable_record("Variable.assign_add", (uniform((4, 3)),), np.add),
    variable_record("Variable.assign_sub", (uniform((4, 3)),), np.subtract),
    variable_record("Variable.read_value", (), lambda x: x, call=read_variable),
    variable_record("Variable.sparse_read", (VARIABLE_ROWS,), lambda x, i: x[i],
                    call=read_variable),
    variable_record("Variable.gather_nd", (fixed(np.array([[1, 2], [3, 0]]), I32),),
                    lambda x, i: x[i[:, 0], i[:, 1]], call=read_variable),
    *[variable_record("Variable.scatter_" + name, (VARIABLE_ROWS, ROW_UPDATES), reference,
                      call=on_variable_slices) for name, reference in SCATTERS.items()],
    variable_record("Variable.scatter_add", (fixed(np.array([1, 1]), I32), ROW_UPDATES),
                    SCATTERS["add"], call=on_variable_slices,
                    name="Variable.scatter_add(repeated index)"),
    *[variable_record("Variable.scatter_nd_" + name, (VARIABLE_ND_ROWS, ROW_UPDATES),
                      SCATTERS[name]) for name in ("update", "add", "sub")],
    variable_record("assign", (uniform((4, 3)),), lambda x, u: u, api="v1"),
    *[variable_record(name, (uniform((4, 3)),), reference, api="v1")
      for name, reference in (("assign_add", np.add), ("assign_sub", np.subtract))],
    *[variable_record("scatter_" + name, (VARIABLE_ROWS, ROW_UPDATES), reference, api="v1")
      for name, reference in SCATTERS.items()],
    *[variable_record("scatter_nd_" + name, (VARIABLE_ND_ROWS, ROW_UPDATES), SCATTERS[name],
                      api="v1") for name in ("update", "add", "sub")],
]

# ---------------------------------------------------------------- learning-rate schedules

def schedule_at(cls, step, **config):
    """`cls(**config)(step)`: a Keras schedule's rate at `step`."""
    return cls(**config)(step)


def decayed_at(fn, step, **kwargs):
    """TF1's `tf.train.*_decay(learning_rate, step, ...)`: a tensor in graphs, in eager
    mode a function returning it (as TF documents), called here."""
    rate = fn(0.1, step, **kwargs)
    return rate() if callable(rate) else rate


def schedule_record(path, step, expected, config, call=schedule_at, **options):
    """A schedule's float32 rate at an int32 `step` (a fed scalar in graph mode)."""
    return OpRecord(path, (fixed(np.array(step), I32),), lambda _: np.float32(expected),
                    (F32,), kwargs=config, call=call, grad_args=(), **options)


def _restart_cosine(step, first, t_mul, m_mul):
    """CosineDecayRestarts' factor (TF's SGDR formula, alpha 0)."""
    fraction = step / first
    restarts = math.floor(math.log(1 - fraction * (1 - t_mul)) / math.log(t_mul))
    fraction = (fraction - (1 - t_mul ** restarts) / (1 - t_mul)) / t_mul ** restarts
    return 0.5 * m_mul ** restarts * (1 + math.cos(math.pi * fraction))


SCHEDULES = "keras.optimizers.schedules."
RECORDS += [
    schedule_record(SCHEDULES + "ExponentialDecay", 15, 0.1 * 0.5 ** 1.5,
                    {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5}),
    schedule_record(SCHEDULES + "ExponentialDecay", 15, 0.1 * 0.5,
                    {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5,
                     "staircase": True}, name="ExponentialDecay(staircase)"),
    schedule_record(SCHEDULES + "PiecewiseConstantDecay", 20, 0.5,
                    {"boundaries": [10, 20], "values": [1.0, 0.5, 0.1]}),
    schedule_record(SCHEDULES + "PolynomialDecay", 30, 0.09 * 0.7 ** 2 + 0.01,
                    {"initial_learning_rate": 0.1, "decay_steps": 100,
                     "end_learning_rate": 0.01, "power": 2.0}),
    schedule_record(SCHEDULES + "PolynomialDecay", 150, 0.09 * 0.25 ** 2 + 0.01,
                    {"initial_learning_rate": 0.1, "decay_steps": 100,
                     "end_learning_rate": 0.01, "power": 2.0, "cycle": True},
                    name="PolynomialDecay(cycle)"),
    schedule_record(SCHEDULES + "PolynomialDecay", 150, 0.01,
                    {"initial_learning_rate": 0.1, "decay_steps": 100,
                     "end_learning_rate": 0.01, "power": 2.0},
                    name="PolynomialDecay(past decay_steps)"),
    schedule_record(SCHEDULES + "CosineDecay", 150, 0.1 * 0.1,
                    {"initial_learning_rate": 0.1, "decay_steps": 100, "alpha": 0.1},
                    name="CosineDecay(past decay_steps)"),
    schedule_record(SCHEDULES + "PiecewiseConstantDecay", 10, 1.0,
                    {"boundaries": [10, 20], "values": [1.0, 0.5, 0.1]},
                    name="PiecewiseConstantDecay(at a boundary)"),
    schedule_record(SCHEDULES + "InverseTimeDecay", 15, 0.1 / (1 + 0.5 * 1.5),
                    {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5}),
    schedule_record(SCHEDULES + "CosineDecay", 30,
                    0.1 * (0.9 * 0.5 * (1 + math.cos(math.pi * 0.3)) + 0.1),
                    {"initial_learning_rate": 0.1, "decay_steps": 100, "alpha": 0.1}),
    schedule_record(SCHEDULES + "CosineDecayRestarts", 25, 0.1 * _restart_cosine(25, 10, 2, 0.5),
                    {"initial_learning_rate": 0.1, "first_decay_steps": 10, "t_mul": 2.0,
                     "m_mul": 0.5}),
    schedule_record("train.natural_exp_decay", 15, 0.1 * math.exp(-0.5 * 1.5),
                    {"decay_steps": 10, "decay_rate": 0.5}, call=decayed_at, api="v1"),
    schedule_record("train.linear_cosine_decay", 30,
                    0.1 * ((0.7 + 0.0) * 0.5 * (1 + math.cos(math.pi * 0.3)) + 0.001),
                    {"decay_steps": 100, "num_periods": 0.5, "beta": 0.001},
                    call=decayed_at, api="v1"),
    schedule_record("train.exponential_decay", 15, 0.1 * 0.5 ** 1.5,
                    {"decay_steps": 10, "decay_rate": 0.5}, call=decayed_at, api="v1"),
]

# ---------------------------------------------------------------- TF1 streaming metrics

def after_update(metric, *tensors, **kwargs):
    """The `update_op` of a TF1 metric `(value, update_op)`: its value once this batch is
    counted (from fresh local variables, so the batch's metric)."""
    return metric(*tensors, **kwargs)[1]


def metric_after(update_method):
    """call: a metric object `cls(**config)`'s `result()` after `update_method(*tensors)`
    (Keras' update_state, tf.contrib.eager.metrics' __call__)."""
    def call(cls, *tensors, **config):
        metric = cls(**config)
        update = getattr(metric, update_method)(*tensors)
        with tf.control_dependencies([u for u in tf.nest.flatten(update) if u is not None]):
            return metric.result()
    return call


keras_metric = metric_after("update_state")


def _roc_auc(labels, predictions, num_thresholds=200):
    """TF1 tf.metrics.auc: trapezoids over the ROC points of `num_thresholds` thresholds
    (predictions > threshold), with its epsilon 1e-7."""
    eps = 1e-7
    inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    thresholds = np.array([-eps] + inner + [1 + eps])
    positive = predictions[None, :] > thresholds[:, None]
    truth = labels.astype(bool)[None, :]
    tp, fp = (positive & truth).sum(1), (positive & ~truth).sum(1)
    fn, tn = (~positive & truth).sum(1), (~positive & ~truth).sum(1)
    tpr, fpr = (tp + eps) / (tp + fn + eps), fp / (fp + tn + eps)
    return np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2)


def _mean_iou(labels, predictions, classes):
    confusion = np.zeros((classes, classes))
    np.add.at(confusion, (labels, predictions), 1)
    intersection = np.diag(confusion)
    union = confusion.sum(0) + confusion.sum(1) - intersection
    return np.mean(intersection[union > 0] / union[union > 0])


def metric_record(path, args, reference, **options):
    """A TF1 streaming metric (graph only) or, with `call=keras_metric`, a Keras metric's
    result after one batch; float32 values (the metrics' variables)."""
    options.setdefault("call", after_update)
    options.setdefault("modes", ("graph",) if options["call"] is after_update else
                       ("eager", "graph"))
    return OpRecord(path, args, reference, (F32,), grad_args=(), **options)


LABELS01 = fixed(np.array([1, 0, 1, 1, 0, 0, 1, 0]))
PREDICTED01 = fixed(np.array([1, 1, 0, 1, 0, 0, 1, 1]))
SCORES = fixed(np.array([0.9, 0.6, 0.3, 0.8, 0.1, 0.4, 0.65, 0.2]))
CLASS_LABELS = fixed(np.array([0, 1, 2, 2, 1, 0, 2]), I32)
CLASS_PREDICTIONS = fixed(np.array([0, 2, 2, 1, 1, 0, 2]), I32)


def _counts(kind):
    def count(labels, predictions):
        truth, said = labels.astype(bool), predictions.astype(bool)
        return {"true_positives": truth & said, "false_positives": ~truth & said,
                "true_negatives": ~truth & ~said, "false_negatives": truth & ~said}[kind].sum()
    return count


RECORDS += [
    metric_record("metrics.mean", (uniform((6,)),), np.mean, api="v1"),
    metric_record("metrics.mean", (uniform((6,)), fixed([1.0, 0.0, 2.0, 1.0, 0.5, 0.5])),
                  lambda v, w: np.sum(v * w) / np.sum(w), api="v1",
                  name="metrics.mean(weights)"),
    metric_record("metrics.accuracy", (LABELS01, PREDICTED01),
                  lambda y, p: np.mean(y == p), api="v1"),
    metric_record("metrics.mean_absolute_error", (uniform((6,)), uniform((6,))),
                  lambda y, p: np.mean(np.abs(y - p)), api="v1"),
    metric_record("metrics.mean_squared_error", (uniform((6,)), uniform((6,))),
                  lambda y, p: np.mean((y - p) ** 2), api="v1"),
    metric_record("metrics.root_mean_squared_error", (uniform((6,)), uniform((6,))),
                  lambda y, p: np.sqrt(np.mean((y - p) ** 2)), api="v1"),
    metric_record("metrics.precision", (LABELS01, PREDICTED01), lambda y, p: 3 / 5, api="v1"),
    metric_record("metrics.recall", (LABELS01, PREDICTED01), lambda y, p: 3 / 4, api="v1"),
    *[metric_record("metrics." + kind, (LABELS01, PREDICTED01), _counts(kind), api="v1")
      for kind in ("true_positives", "false_positives", "true_negatives", "false_negatives")],
    metric_record("metrics.auc", (LABELS01, SCORES), _roc_auc, api="v1"),
    metric_record("metrics.mean_iou", (CLASS_LABELS, CLASS_PREDICTIONS),
                  lambda y, p: _mean_iou(y, p, 3), kwargs={"num_classes": 3}, api="v1"),
    metric_record("keras.metrics.Mean", (uniform((6,)),), np.mean, call=keras_metric),
    metric_record("keras.metrics.Sum", (uniform((6,)),), np.sum, call=keras_metric),
    metric_record("keras.metrics.Accuracy", (LABELS01, PREDICTED01),
                  lambda y, p: np.mean(y == p), call=keras_metric),
    metric_record("keras.metrics.MeanSquaredError", (uniform((6,)), uniform((6,))),
                  lambda y, p: np.mean((y - p) ** 2), call=keras_metric),
    metric_record("keras.metrics.Precision", (LABELS01, SCORES), lambda y, p: 3 / 4,
                  call=keras_metric),
    metric_record("keras.metrics.Recall", (LABELS01, SCORES), lambda y, p: 3 / 4,
                  call=keras_metric),
    metric_record("keras.metrics.AUC", (LABELS01, SCORES), _roc_auc, call=keras_metric,
                  tolerance={F32: (1e-5, 1e-5)}),
    metric_record("keras.metrics.MeanIoU", (CLASS_LABELS, CLASS_PREDICTIONS),
                  lambda y, p: _mean_iou(y, p, 3), call=keras_metric,
                  kwargs={"num_classes": 3}),
    metric_record("contrib.eager.metrics.Mean", (uniform((6,)),),
                  lambda v: np.mean(v.astype(F64)), api="v1",
                  call=metric_after("__call__"), out_dtype=F64),
    metric_record("contrib.eager.metrics.Accuracy", (LABELS01, PREDICTED01),
                  lambda y, p: np.mean(y == p), api="v1", call=metric_after("__call__"),
                  out_dtype=F64),
]

# ---------------------------------------------------------------- more ops and losses

def _keras_relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """Keras 2's backend.relu: x above `threshold` (else 0), clipped to [0, max_value] when
    given, less alpha * relu(threshold - x)."""
    y = np.where(x > threshold, x, 0.0)
    if max_value is not None:
        y = np.clip(y, 0.0, max_value)
    return y - alpha * np.maximum(threshold - x, 0.0)


class _AbsoluteErrorLoss(tf.keras.losses.Loss):
    """A user's Loss subclass: its `call` gives per-example losses, `Loss.__call__`
    weights and reduces them."""

    def call(self, y_true, y_pred):
        return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)


def _sequence_loss(logits, targets, weights):
    """sum of weighted cross-entropies / sum of weights (averaged over time and batch)."""
    log_softmax = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    crossent = -np.take_along_axis(log_softmax, targets[..., None], -1)[..., 0]
    return np.sum(crossent * weights) / np.sum(weights)


# TF1 losses weight and reduce in float32 (TF casts, then casts back): float64 results have
# float32's precision, too coarse for finite differences
TF1_LOSS = {"tolerance": {F64: (1e-6, 1e-6)}, "grad_args": ()}
EXAMPLE_WEIGHTS = fixed(np.array([[1.0], [0.0]]))
SENTENCES = np.array([b"a bc d", b"ef g"], dtype=object)
RECORDS += [
    OpRecord("keras.backend.relu", (away_from((2, 5), kinks=(0.5, 2.0)),),
             lambda x: _keras_relu(x, 0.2, 2.0, 0.5),
             kwargs={"alpha": 0.2, "max_value": 2.0, "threshold": 0.5}),
    OpRecord("keras.backend.relu", (fixed([-1.0, -0.3, -0.1, 0.25, 1.0, 3.0]),),
             lambda x: _keras_relu(x, 0.0, 2.0, -0.5),
             kwargs={"max_value": 2.0, "threshold": -0.5},
             name="keras.backend.relu(threshold < 0, max_value)"),
    OpRecord("keras.activations.elu", (away_from((2, 5)),),
             lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), kwargs={"alpha": 0.5}),
    OpRecord("math.logical_not", (fixed(np.array([True, False, True])),), np.logical_not,
             (BOOL,), call=lambda op, x: ~x, grad_args=(), name="Tensor.__invert__(bool)"),
    OpRecord("to_bfloat16", (fixed(X),), lambda x: x, (F32,), api="v1", grad_args=(),
             call=lambda op, x: tf.cast(op(x), tf.float32)),
    OpRecord("constant", (), lambda: X, (F32,), grad_args=(),
             call=lambda op, dtype: op(X, dtype), kwargs={"dtype": CASE_DTYPE}),
    OpRecord("image.resize_area", (uniform((2, 4, 4, 3)),),
             lambda x: x.reshape(2, 2, 2, 2, 2, 3).mean(axis=(2, 4)), api="v1",
             kwargs={"size": [2, 2]}, grad_args=()),   # TF registers no ResizeArea gradient
    OpRecord("image.resize_bicubic", (uniform((2, 4, 4, 3)),), lambda x: x[:, ::2, ::2],
             api="v1", kwargs={"size": [2, 2]}),
    string_op("strings.split", lambda v: (np.array([b"a", b"bc", b"d", b"ef", b"g"],
                                                   dtype=object), np.array([0, 3, 5])),
              (fixed(SENTENCES),), out_dtype=(STR, I64)),
    string_op("string_split", lambda v: (np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]]),
                                         np.array([b"a", b"bc", b"d", b"ef", b"g"],
                                                  dtype=object), np.array([2, 3])),
              (fixed(SENTENCES),), out_dtype=(I64, STR, I64), api="v1",
              kwargs={"sep": " "}),
    OpRecord("losses.mean_squared_error", (uniform((2, 3)), uniform((2, 3)), EXAMPLE_WEIGHTS),
             lambda y, p, w: np.sum((y - p) ** 2 * w) / 3, api="v1",
             call=keywords("labels", "predictions", "weights"), **TF1_LOSS),
    OpRecord("losses.compute_weighted_loss", (uniform((2, 3)), EXAMPLE_WEIGHTS),
             lambda losses, w: np.sum(losses * w) / 3, api="v1", **TF1_LOSS),
    OpRecord("keras.losses.MeanSquaredError", (uniform((2, 3)), uniform((2, 3)),
                                               fixed(np.array([1.0, 0.5]))),
             lambda y, p, w: np.sum(np.mean((y - p) ** 2, -1) * w) / 2,
             call=lambda cls, y, p, w: cls()(y, p, sample_weight=w), grad_args=(1,)),
    OpRecord("keras.losses.Loss", (uniform((2, 3)), uniform((2, 3)),
                                   fixed(np.array([1.0, 0.5]))),
             lambda y, p, w: np.sum(np.mean(np.abs(y - p), -1) * w) / 2,
             call=lambda cls, y, p, w: _AbsoluteErrorLoss()(y, p, sample_weight=w),
             grad_args=(1,), name="keras.losses.Loss(subclass)"),
    OpRecord("contrib.seq2seq.sequence_loss", (uniform((2, 3, 4)), integers((2, 3), 0, 4),
                                               fixed(np.array([[1.0, 1.0, 0.0],
                                                               [1.0, 0.5, 1.0]]))),
             _sequence_loss, api="v1"),
]

# ---------------------------------------------------------------- Keras layers

def layer_output(cls, x, training=None, **config):
    """`cls(**config)(x)`: a new Keras layer's output (weights from constant initializers,
    the layer's dtype the case's)."""
    return cls(**config)(x, training=training) if training is not None else cls(**config)(x)


def constant(value):
    return tf.keras.initializers.Constant(np.asarray(value))


def _simple_rnn(x, kernel, recurrent):
    """Keras SimpleRNN's last output: h = tanh(x_t W + h U), zero bias and initial state."""
    h = np.zeros((x.shape[0], kernel.shape[1]))
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ kernel + h @ recurrent)
    return h


def _normalized(x, axes, epsilon=1e-3):
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    return (x - mean) / np.sqrt(var + epsilon)


KERNEL = np.array([[0.5, -1.0], [0.25, 2.0], [-1.5, 0.75]])
BIAS = np.array([0.1, -0.2])
RECURRENT = np.array([[0.5, -0.25], [0.75, 0.1]])
TRANSPOSED_KERNEL = np.linspace(-1, 1, 3 * 3 * 2 * 3).reshape(3, 3, 2, 3)
LAYERS = "keras.layers."


def layer_record(name, args, reference, grad_args=(0,), **config):
    return OpRecord(LAYERS + name, args, reference, call=layer_output,
                    kwargs={"dtype": CASE_DTYPE, **config}, grad_args=grad_args,
                    name=None if "training" not in config else
                    "%s(training=%s)" % (LAYERS + name, config["training"]))


RECORDS += [
    layer_record("Dense", (uniform((4, 3)),), lambda x: x @ KERNEL + BIAS, units=2,
                 kernel_initializer=constant(KERNEL), bias_initializer=constant(BIAS)),
    layer_record("Flatten", (uniform((2, 2, 3)),), lambda x: x.reshape(2, 6)),
    layer_record("Reshape", (uniform((2, 2, 3)),), lambda x: x.reshape(2, 3, 2),
                 target_shape=(3, 2)),
    layer_record("UpSampling2D", (uniform((2, 2, 3, 1)),),
                 lambda x: x.repeat(2, axis=1).repeat(2, axis=2), size=2),
    layer_record("Conv2DTranspose", (uniform((2, 3, 3, 3)),),
                 lambda y: np_conv_transpose(y, TRANSPOSED_KERNEL, (2, 6, 6, 2), (2, 2),
                                             "SAME"),
                 filters=2, kernel_size=3, strides=2, padding="same",
                 kernel_initializer=constant(TRANSPOSED_KERNEL)),
    layer_record("BatchNormalization", (uniform((4, 3)),), lambda x: x / np.sqrt(1 + 1e-3),
                 training=False),
    layer_record("BatchNormalization", (uniform((4, 3)),), lambda x: _normalized(x, 0),
                 training=True),
    layer_record("LayerNormalization", (uniform((4, 3)),), lambda x: _normalized(x, -1)),
    layer_record("SimpleRNN", (uniform((2, 4, 3)),),
                 lambda x: _simple_rnn(x, KERNEL, RECURRENT), units=2,
                 kernel_initializer=constant(KERNEL),
                 recurrent_initializer=constant(RECURRENT)),
    OpRecord(LAYERS + "TimeDistributed", (uniform((2, 4, 3)),), lambda x: x @ KERNEL,
             call=lambda cls, x, dtype: cls(tf.keras.layers.Dense(
                 2, kernel_initializer=constant(KERNEL), dtype=dtype), dtype=dtype)(x),
             kwargs={"dtype": CASE_DTYPE}),
]

# ---------------------------------------------------------------- TF1 RNNs, metric resets

def basic_rnn(op, x, lengths):
    """TF1 `dynamic_rnn(BasicRNNCell(2), x, sequence_length)` with weights 0.5 (a variable
    scope initializer; the bias starts at 0): (outputs, final state)."""
    with tf.compat.v1.variable_scope(None, default_name="rnn",
                                     initializer=tf.compat.v1.constant_initializer(0.5)):
        cell = tf.compat.v1.nn.rnn_cell.BasicRNNCell(2, dtype=x.dtype)
        return op(cell, x, sequence_length=lengths, dtype=x.dtype)


def static_basic_rnn(op, x, lengths):
    """`basic_rnn` of TF1's static_rnn, which takes and gives one tensor per time step."""
    return basic_rnn(lambda cell, x, **kwargs: op(cell, tf.unstack(x, axis=1), **kwargs),
                     x, lengths)


def simple_rnn_cell(cls, x, h, dtype):
    """One step of a Keras SimpleRNNCell (KERNEL, RECURRENT): (output, [state])."""
    cell = cls(2, kernel_initializer=constant(KERNEL), recurrent_initializer=constant(RECURRENT),
               dtype=dtype)
    return cell(x, [h])


def _basic_rnn(x, lengths):
    """Outputs past a sequence's length are 0 and its state stays the last one, as TF's."""
    h = np.zeros((x.shape[0], 2))
    outputs = np.zeros(x.shape[:2] + (2,))
    for t in range(x.shape[1]):
        new = np.tanh(np.concatenate([x[:, t], h], 1) @ np.full((x.shape[2] + 2, 2), 0.5))
        running = (t < lengths)[:, None]
        h = np.where(running, new, h)
        outputs[:, t] = np.where(running, new, 0.0)
    return outputs, h


def after_reset(cls, first, second):
    """A Keras metric's result after update_state(first), reset_state(), update_state(second):
    the second batch's alone."""
    metric = cls()
    metric.update_state(first)
    metric.reset_state()
    metric.update_state(second)
    return metric.result()


RECORDS += [
    OpRecord("nn.dynamic_rnn", (uniform((2, 4, 3)), fixed(np.array([2, 4]), I32)), _basic_rnn,
             call=basic_rnn, api="v1", name="nn.dynamic_rnn(BasicRNNCell, sequence_length)"),
    OpRecord("nn.static_rnn", (uniform((2, 4, 3)), fixed(np.array([2, 4]), I32)),
             lambda x, lengths: (*np.moveaxis(_basic_rnn(x, lengths)[0], 1, 0),
                                 _basic_rnn(x, lengths)[1]),
             call=static_basic_rnn, api="v1", name="nn.static_rnn(BasicRNNCell, sequence_length)"),
    OpRecord(LAYERS + "SimpleRNNCell", (uniform((2, 3)), uniform((2, 2))),
             lambda x, h: (np.tanh(x @ KERNEL + h @ RECURRENT),) * 2, call=simple_rnn_cell,
             kwargs={"dtype": CASE_DTYPE}, grad_args=(0, 1)),
    OpRecord("keras.metrics.Mean", (uniform((6,)), uniform((4,))),
             lambda first, second: np.mean(second), (F32,), call=after_reset, grad_args=(),
             modes=("eager",), name="keras.metrics.Mean.reset_state"),
]

# ---------------------------------------------------------------- TF1 feature columns

def input_layer(feature, column):
    """call: TF1 `feature_column.input_layer({feature: tensor}, [column(fc)])`."""
    return lambda op, tensor: op({feature: tensor}, [column(tf.compat.v1.feature_column)])


EMBEDDINGS = np.arange(8.0).reshape(4, 2)
FEATURE_IDS = fixed(np.array([[1, 3], [0, 0], [2, 1]]), I64)
RECORDS += [
    OpRecord("feature_column.input_layer", (fixed([[-1.0], [0.5], [2.0], [0.0]]),),
             lambda x: np.eye(3)[np.digitize(x[:, 0], [0.0, 1.0])], (F32,), api="v1",
             call=input_layer("x", lambda fc: fc.bucketized_column(fc.numeric_column("x"),
                                                              [0.0, 1.0])),
             grad_args=(), name="feature_column.bucketized_column"),
    OpRecord("feature_column.input_layer", (FEATURE_IDS,),
             lambda ids: np.stack([np.bincount(row, minlength=4) for row in ids]), (F32,),
             api="v1", grad_args=(), name="feature_column.indicator_column",
             call=input_layer("ids", lambda fc: fc.indicator_column(
                 fc.categorical_column_with_identity("ids", 4)))),
    OpRecord("feature_column.input_layer", (FEATURE_IDS,),
             lambda ids: EMBEDDINGS[ids].mean(1), (F32,), api="v1", grad_args=(),
             name="feature_column.embedding_column(mean)",
             call=input_layer("ids", lambda fc: fc.embedding_column(
                 fc.categorical_column_with_identity("ids", 4), 2, combiner="mean",
                 initializer=tf.compat.v1.constant_initializer(EMBEDDINGS)))),
]

# ---------------------------------------------------------------- tf.signal


def _frames(x, frame_length, frame_step):
    count = max(0, 1 + (x.shape[-1] - frame_length) // frame_step)
    return np.stack([x[..., i * frame_step:i * frame_step + frame_length]
                     for i in range(count)], -2)


def _overlap_and_add(frames, frame_step):
    count, length = frames.shape[-2:]
    out = np.zeros(frames.shape[:-2] + (length + frame_step * (count - 1),), frames.dtype)
    for i in range(count):
        out[..., i * frame_step:i * frame_step + length] += frames[..., i, :]
    return out


def _hann(length):
    """TF's periodic Hann window."""
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(length) / length)


def _dct(x, kind, ortho=False):
    """The DCT of the last axis by its definition (TF's unnormalised scaling: twice
    scipy's); `ortho` scales types II-IV to orthonormal matrices."""
    size = x.shape[-1]
    n, k = np.arange(size)[:, None], np.arange(size)[None, :]
    if kind == 1:
        matrix = 2 * np.cos(np.pi * n * k / (size - 1))
        matrix[[0, -1], :] /= 2
    elif kind == 2:
        matrix = 2 * np.cos(np.pi * (2 * n + 1) * k / (2 * size))
    elif kind == 3:
        matrix = 2 * np.cos(np.pi * n * (2 * k + 1) / (2 * size))
        matrix[0, :] /= 2
    else:
        matrix = 2 * np.cos(np.pi * (2 * n + 1) * (2 * k + 1) / (4 * size))
    if ortho:
        matrix = matrix / np.sqrt(2 * size)
        if kind == 2:
            matrix[:, 0] /= np.sqrt(2)
        if kind == 3:
            matrix[0, :] *= np.sqrt(2)
    return x @ matrix


def _mel_matrix(num_mel_bins, num_spectrogram_bins, sample_rate, lower, upper):
    """HTK mel triangles as TF builds them (the DC row all zeros)."""
    def mel(hertz):
        return 1127.0 * np.log1p(np.asarray(hertz) / 700.0)
    bins = mel(np.linspace(0, sample_rate / 2, num_spectrogram_bins))[1:, None]
    edges = np.linspace(mel(lower), mel(upper), num_mel_bins + 2)
    low, center, high = edges[:-2], edges[1:-1], edges[2:]
    weights = np.maximum(0, np.minimum((bins - low) / (center - low),
                                       (high - bins) / (high - center)))
    return np.pad(weights, [(1, 0), (0, 0)])


def _stft_magnitude(x):
    return np.abs(np.fft.rfft(_frames(x, 12, 6) * _hann(12), 16))


def _inverse_stft(z):
    return _overlap_and_add(np.fft.irfft(z, 16)[..., :12] * _hann(12), 5)


def _kaiser_bessel_derived(length, beta):
    running = np.cumsum(np.kaiser(length // 2 + 1, beta))
    half = np.sqrt(running[:-1] / running[-1])
    return np.concatenate([half, half[::-1]])


def _inverse_window(frame_step, frame_length):
    """The forward Hann window over the sum of its squares at each sample's overlaps."""
    forward = _hann(frame_length)
    overlaps = -(-frame_length // frame_step)
    squares = np.pad(forward ** 2, (0, overlaps * frame_step - frame_length))
    return forward / np.tile(squares.reshape(overlaps, frame_step).sum(0), overlaps)[
        :frame_length]


def _mdct(x):
    """The MDCT of 8-sample frames (vorbis window), by definition: TF's unnormalised
    scaling is twice the usual."""
    frames = _frames(x, 8, 4) * np.sin(np.pi / 2 * np.sin(np.pi * (np.arange(8) + 0.5) / 8) ** 2)
    n, k = np.arange(8)[:, None], np.arange(4)[None, :]
    return 2 * frames @ np.cos(np.pi / 4 * (n + 0.5 + 2) * (k + 0.5))


def _inverse_mdct(x):
    window = np.sin(np.pi / 2 * np.sin(np.pi * (np.arange(8) + 0.5) / 8) ** 2)
    n, k = np.arange(8)[None, :], np.arange(4)[:, None]
    frames = x @ np.cos(np.pi / 4 * (n + 0.5 + 2) * (k + 0.5)) / 4 * window
    return _overlap_and_add(frames, 4)


def window_record(path, reference, **kwargs):
    return OpRecord(path, (), reference, kwargs=dict(kwargs, dtype=CASE_DTYPE), grad_args=(),
                    name="%s%s" % (path, sorted(kwargs.items())))


SIGNAL_COMPLEX = (C64, C128)

RECORDS += [
    OpRecord("signal.fft", (complex_uniform((3, 5)),), np.fft.fft, SIGNAL_COMPLEX,
             grad_args=()),
    OpRecord("signal.ifft", (complex_uniform((3, 6)),), np.fft.ifft, SIGNAL_COMPLEX,
             grad_args=()),
    OpRecord("signal.fft2d", (complex_uniform((2, 3, 4)),), np.fft.fft2, SIGNAL_COMPLEX,
             grad_args=()),
    OpRecord("signal.ifft2d", (complex_uniform((2, 3, 4)),), np.fft.ifft2, SIGNAL_COMPLEX,
             grad_args=()),
    OpRecord("signal.fft3d", (complex_uniform((2, 2, 3, 4)),),
             lambda z: np.fft.fftn(z, axes=(-3, -2, -1)), SIGNAL_COMPLEX, grad_args=()),
    OpRecord("signal.ifft3d", (complex_uniform((2, 2, 3, 4)),),
             lambda z: np.fft.ifftn(z, axes=(-3, -2, -1)), SIGNAL_COMPLEX, grad_args=()),
    OpRecord("signal.fftnd", (complex_uniform((2, 3, 4)),),
             lambda z: np.fft.fftn(z, s=(4, 3), axes=(1, 2)), SIGNAL_COMPLEX, grad_args=(),
             kwargs={"fft_length": [4, 3], "axes": [1, 2]}),
    OpRecord("signal.ifftnd", (complex_uniform((2, 3, 4)),),
             lambda z: np.fft.ifftn(z, norm="ortho"), SIGNAL_COMPLEX, grad_args=(),
             kwargs={"norm": "ortho"}),
    OpRecord("signal.rfftnd", (uniform((2, 3, 4)),), lambda x: np.fft.rfftn(x, axes=(1, 2)),
             out_dtype=COMPLEX_OF_REAL, grad_args=(), kwargs={"axes": [1, 2]}),
    OpRecord("signal.irfftnd", (complex_uniform((3, 4)),),
             lambda z: np.fft.irfftn(z, s=(3, 5), axes=(0, 1)), SIGNAL_COMPLEX, out_dtype=REAL_OF_COMPLEX,
             grad_args=(), kwargs={"fft_length": [3, 5]}),
    OpRecord("signal.rfft", (uniform((3, 7)),), lambda x: np.fft.rfft(x, 10),
             out_dtype=COMPLEX_OF_REAL, grad_args=(), kwargs={"fft_length": [10]}),
    OpRecord("signal.irfft", (complex_uniform((3, 5)),), lambda z: np.fft.irfft(z, 7),
             SIGNAL_COMPLEX, out_dtype=REAL_OF_COMPLEX, grad_args=(),
             kwargs={"fft_length": [7]}),
    OpRecord("signal.rfft2d", (uniform((2, 3, 5)),), lambda x: np.fft.rfft2(x, (4, 4)),
             out_dtype=COMPLEX_OF_REAL, grad_args=(), kwargs={"fft_length": [4, 4]}),
    OpRecord("signal.irfft2d", (complex_uniform((2, 3, 4)),), np.fft.irfft2, SIGNAL_COMPLEX,
             out_dtype=REAL_OF_COMPLEX, grad_args=()),
    OpRecord("signal.rfft3d", (uniform((2, 2, 3, 4)),),
             lambda x: np.fft.rfftn(x, axes=(-3, -2, -1)), out_dtype=COMPLEX_OF_REAL,
             grad_args=()),
    OpRecord("signal.irfft3d", (complex_uniform((2, 2, 3, 4)),),
             lambda z: np.fft.irfftn(z, axes=(-3, -2, -1)), SIGNAL_COMPLEX,
             out_dtype=REAL_OF_COMPLEX, grad_args=()),
    OpRecord("signal.fftshift", (uniform((3, 5)),), lambda x: np.fft.fftshift(x, 1), NUMERIC,
             kwargs={"axes": 1}),
    OpRecord("signal.ifftshift", (uniform((3, 5, 4)),), np.fft.ifftshift, NUMERIC),
    OpRecord("signal.frame", (uniform((2, 11)),), lambda x: _frames(x, 4, 3), NUMERIC,
             kwargs={"frame_length": 4, "frame_step": 3}),
    OpRecord("signal.frame", (uniform((2, 10)),),
             lambda x: _frames(np.pad(x, [(0, 0), (0, 3)], constant_values=1), 4, 3), FLOATS,
             kwargs={"frame_length": 4, "frame_step": 3, "pad_end": True, "pad_value": 1.0},
             name="signal.frame(pad_end)"),
    OpRecord("signal.frame", (uniform((2, 9, 3)),),
             lambda x: np.moveaxis(_frames(np.moveaxis(x, 1, -1), 5, 2), (-2, -1), (1, 2)),
             kwargs={"frame_length": 5, "frame_step": 2, "axis": 1}, name="signal.frame(axis)"),
    OpRecord("signal.overlap_and_add", (uniform((2, 4, 6)),), lambda x: _overlap_and_add(x, 4),
             NUMERIC, kwargs={"frame_step": 4}),
    window_record("signal.hann_window", lambda: _hann(8), window_length=8),
    window_record("signal.hann_window", lambda: np.hanning(7), window_length=7,
                  periodic=False),
    window_record("signal.hamming_window", lambda: np.hamming(9), window_length=9),
    window_record("signal.kaiser_window", lambda: np.kaiser(7, 6.0), window_length=7,
                  beta=6.0),
    window_record("signal.kaiser_bessel_derived_window",
                  lambda: _kaiser_bessel_derived(8, 5.0), window_length=8, beta=5.0),
    window_record("signal.vorbis_window",
                  lambda: np.sin(np.pi / 2 * np.sin(np.pi * (np.arange(6) + 0.5) / 6) ** 2),
                  window_length=6),
    window_record("signal.linear_to_mel_weight_matrix",
                  lambda: _mel_matrix(12, 33, 16000, 100.0, 7000.0), num_mel_bins=12,
                  num_spectrogram_bins=33, sample_rate=16000, lower_edge_hertz=100.0,
                  upper_edge_hertz=7000.0),
    OpRecord("signal.inverse_stft_window_fn", (), lambda: _inverse_window(4, 10),
             call=lambda op, dtype: op(4)(10, dtype=dtype), kwargs={"dtype": CASE_DTYPE},
             grad_args=()),
    OpRecord("signal.stft", (uniform((2, 40)),), _stft_magnitude,
             call=lambda op, x: tf.abs(op(x, 12, 6, fft_length=16))),
    OpRecord("signal.inverse_stft", (complex_uniform((2, 4, 9)),), _inverse_stft,
             SIGNAL_COMPLEX, out_dtype=REAL_OF_COMPLEX, grad_args=(),
             call=lambda op, z: op(z, 12, 5, fft_length=16)),
    OpRecord("signal.mdct", (uniform((2, 20)),), _mdct, kwargs={"frame_length": 8}),
    OpRecord("signal.inverse_mdct", (uniform((2, 3, 4)),), _inverse_mdct),
    OpRecord("signal.mfccs_from_log_mel_spectrograms", (uniform((2, 3, 6)),),
             lambda x: _dct(x, 2) / np.sqrt(12)),
    OpRecord("signal.dct", (uniform((2, 6)),), lambda x: _dct(x, 1), kwargs={"type": 1},
             name="signal.dct(type=1)"),
    OpRecord("signal.dct", (uniform((2, 5)),), lambda x: _dct(x, 2)),
    OpRecord("signal.dct", (uniform((2, 5)),), lambda x: _dct(x, 2, ortho=True),
             kwargs={"norm": "ortho"}, name="signal.dct(ortho)"),
    OpRecord("signal.dct", (uniform((2, 5)),), lambda x: _dct(x, 3), kwargs={"type": 3},
             name="signal.dct(type=3)"),
    OpRecord("signal.dct", (uniform((2, 6)),), lambda x: _dct(x, 4, ortho=True),
             kwargs={"type": 4, "norm": "ortho"}, name="signal.dct(type=4, ortho)"),
    OpRecord("signal.idct", (uniform((2, 5)),), lambda x: _dct(x, 3, ortho=True),
             kwargs={"norm": "ortho"}),
    *with_v1(OpRecord("signal.rfft", (uniform((2, 6)),), np.fft.rfft,
                      out_dtype=COMPLEX_OF_REAL, grad_args=(), name="signal.rfft(default)"),
             path="spectral.rfft"),
    OpRecord("fft", (complex_uniform((2, 4)),), np.fft.fft, SIGNAL_COMPLEX, grad_args=(),
             api="v1", name="fft(v1)"),
]

# ---------------------------------------------------------------- math/linalg: special functions
# References are real TF's values (tests/fixtures/math_extra/make_values.py).

BESSEL_X = np.array([0.1, 0.5, 1.0, 2.5, 7.0])
GAMMA_A = np.array([0.5, 1.0, 2.0, 3.0, 4.5])
SELF_ADJOINT = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
RANK_ONE = np.array([[1.0, 2.0], [2.0, 4.0], [0.5, 1.0]])
# torch's Bessel J/Y of large arguments agree with TF's (Eigen's) to about 1e-8 absolute
BESSEL_JY_TOLERANCE = {F64: (1e-6, 1e-7)}
TF_NDTRI = [-2.3263478740408408, -0.5244005127080409, 0.0, 1.2815515655446004]
TF_ERFCINV = [1.8213863677184499, 0.7328690779592171, -0.0, -0.7328690779592171]
TF_BESSEL_I0 = [1.0025015629340954, 1.0634833707413238, 1.2660658777520082, 3.289839144050123,
                168.59390851028968]
TF_BESSEL_I0E = [0.9071009257823008, 0.6450352704491502, 0.46575960759364043, 0.27004644161220276,
                 0.15373774467288123]
TF_BESSEL_I1 = [0.0500625260470927, 0.2578943053908962, 0.565159103992485, 2.5167162452886984,
                156.03909286995543]
TF_BESSEL_I1E = [0.04529844680880933, 0.15642080318487162, 0.20791041534970844,
                 0.20658464953126654, 0.14228923470959867]
TF_BESSEL_J0 = [0.99750156206604, 0.938469807240813, 0.7651976865579665, -0.04838377646819804,
                0.3000792705195556]
TF_BESSEL_J1 = [0.049937526036242, 0.24226845767487387, 0.44005058574493355, 0.497094102464274,
                -0.004682823482345807]
TF_BESSEL_Y0 = [-1.5342386513503667, -0.4445187335067066, 0.08825696421567697, 0.498070359615232,
                -0.025949743967209254]
TF_BESSEL_Y1 = [-6.458951094702027, -1.4714723926702433, -0.7812128213002888, 0.14591813796678577,
                -0.3026672370241849]
TF_BESSEL_K0 = [2.427069024702016, 0.9244190712276663, 0.42102443824070823, 0.062347553200366196,
                0.0004247957418692318]
TF_BESSEL_K0E = [2.682326102262894, 1.5241093857739103, 1.1444630798068947, 0.7595486903280997,
                 0.46584509609301583]
TF_BESSEL_K1 = [9.853844780870606, 1.6564411200033013, 0.6019072301972348, 0.07389081634774707,
                0.0004541824868848969]
TF_BESSEL_K1E = [10.890182683049698, 2.7310097082117863, 1.6361534862632587, 0.900174423907878,
                 0.49807157509547645]
TF_IGAMMA = [0.345279153981423, 0.3934693402873665, 0.2642411176571153, 0.4561868841166704,
             0.8776747719613375]
TF_IGAMMAC = [0.6547208460185769, 0.6065306597126334, 0.7357588823428847, 0.5438131158833296,
              0.1223252280386625]
TF_ZETA = [101.43329915079275, 6.247110634568814, 1.1267338673170566, 0.021898872913893513,
           1.674577645874191e-05]
TF_NEXTAFTER_FLOAT32 = [1.0000001192092896, -1.401298464324817e-45, -2.000000238418579]
TF_LBETA = [-4.0943445622221, -0.2415644752704904]
TF_INVERT_PERMUTATION = [2, 4, 3, 0, 1]
TF_CONFUSION = [[1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 0, 0],
                [0, 0, 0, 0, 1]]
TF_EIGH_VALUES = [1.880086902915053, 2.3983430193369975, 4.72157007774795]
TF_PINV = [[0.0380952380952381, 0.0761904761904762, 0.01904761904761905],
           [0.0761904761904762, 0.1523809523809524, 0.0380952380952381]]
TF_SET_DIAG = [[9.0, 1.0, 0.5], [1.0, 8.0, 0.2], [0.5, 0.2, 7.0]]
TF_CHOLESKY_SOLVE = [[-0.08172851103804599], [0.5965241897604509], [1.4607797087834662]]
TF_NORMALIZE = [[0.6, 0.8], [0.8944271909999159, 0.4472135954999579]]


LU_INPUT = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
TF_LU = [[7.0, 8.0, 10.0], [0.14285714285714285, 0.8571428571428572, 1.5714285714285716],
         [0.5714285714285714, 0.5000000000000002, -0.49999999999999967]]
TF_LU_SOLVE = [[-0.33333333333333315], [0.6666666666666665], [-0.0]]
TF_LU_MATRIX_INVERSE = [[-0.6666666666666656, -1.3333333333333341, 1.0000000000000004],
                        [-0.6666666666666689, 3.666666666666669, -2.000000000000001],
                        [1.000000000000001, -2.0000000000000013, 1.0000000000000004]]
TF_TRIDIAGONAL_SOLVE = [0.21428571428571427, 0.07142857142857147, 0.47619047619047616]


def tf_values(values):
    """A reference giving TF's recorded values whatever the (fixed) inputs."""
    return lambda *arrays: np.array(values)


def _bessel(path, values, **options):
    return unary(path, BESSEL_X, tf_values(values), **options)


RECORDS += [
    unary("math.ndtri", np.array([0.01, 0.3, 0.5, 0.9]), tf_values(TF_NDTRI)),
    unary("math.erfcinv", np.array([0.01, 0.3, 1.0, 1.7]), tf_values(TF_ERFCINV)),
    _bessel("math.bessel_i0", TF_BESSEL_I0),
    _bessel("math.bessel_i0e", TF_BESSEL_I0E),
    _bessel("math.bessel_i1", TF_BESSEL_I1),
    _bessel("math.bessel_i1e", TF_BESSEL_I1E),
    _bessel("math.special.bessel_j0", TF_BESSEL_J0, tolerance=BESSEL_JY_TOLERANCE),
    _bessel("math.special.bessel_j1", TF_BESSEL_J1, tolerance=BESSEL_JY_TOLERANCE),
    _bessel("math.special.bessel_y0", TF_BESSEL_Y0, tolerance=BESSEL_JY_TOLERANCE),
    _bessel("math.special.bessel_y1", TF_BESSEL_Y1, tolerance=BESSEL_JY_TOLERANCE),
    _bessel("math.special.bessel_k0", TF_BESSEL_K0),
    _bessel("math.special.bessel_k0e", TF_BESSEL_K0E),
    _bessel("math.special.bessel_k1", TF_BESSEL_K1),
    _bessel("math.special.bessel_k1e", TF_BESSEL_K1E),
    binary("math.igamma", GAMMA_A, BESSEL_X, tf_values(TF_IGAMMA)),
    binary("math.igammac", GAMMA_A, BESSEL_X, tf_values(TF_IGAMMAC)),
    binary("math.zeta", GAMMA_A + 1.5, BESSEL_X, tf_values(TF_ZETA), grad_args=(1,)),
    binary("math.polygamma", np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.5, 1.0, 2.5, 4.0]),
           tf_values([-1.9635100260214227, 1.6449340668482266, -0.23620405164172736,
                      0.04486532819275508]), grad_args=(1,)),
    binary("math.nextafter", np.array([1.0, 0.0, -2.0]), np.array([2.0, -1.0, -3.0]),
           tf_values(TF_NEXTAFTER_FLOAT32), dtypes=(F32,), grad_args=()),
    binary("math.multiply_no_nan", np.array([np.inf, np.nan, 2.0]), np.array([0.0, 0.0, 3.0]),
           tf_values([0.0, 0.0, 6.0]), grad_args=()),
    binary("math.multiply_no_nan", X, Y, lambda x, y: x * y, name="math.multiply_no_nan(grad)"),
    unary("math.reciprocal_no_nan", np.array([0.0, 2.0, -4.0]), tf_values([0.0, 0.5, -0.25]),
          differentiable=False),
    unary("math.lbeta", np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]]), tf_values(TF_LBETA)),
    OpRecord("math.invert_permutation", (fixed(np.array([3, 4, 0, 2, 1])),),
             tf_values(TF_INVERT_PERMUTATION), dtypes=(I32, I64), grad_args=()),
    OpRecord("math.is_non_decreasing", (fixed(np.array([1, 1, 2])),), tf_values(True),
             dtypes=(I32, F32), out_dtype=BOOL, grad_args=()),
    OpRecord("math.is_strictly_increasing", (fixed(np.array([1, 1, 2])),), tf_values(False),
             dtypes=(I32, F32), out_dtype=BOOL, grad_args=()),
    OpRecord("math.confusion_matrix", (fixed(np.array([1, 2, 4, 0, 2])),
                                       fixed(np.array([2, 2, 4, 0, 1]))),
             tf_values(TF_CONFUSION), dtypes=(I32, I64), out_dtype=I32, grad_args=(),
             kwargs={"num_classes": 5}),
    OpRecord("linalg.eigh", (fixed(SELF_ADJOINT),), tf_values(TF_EIGH_VALUES),
             call=lambda op, m: symmetrized(op, m)[0]),
    OpRecord("linalg.eigvalsh", (fixed(SELF_ADJOINT),), tf_values(TF_EIGH_VALUES),
             call=symmetrized),
    OpRecord("linalg.pinv", (fixed(RANK_ONE, unknown_batch=False),), tf_values(TF_PINV),
             grad_args=()),
    OpRecord("linalg.matrix_rank", (fixed(RANK_ONE, unknown_batch=False),), tf_values(1),
             out_dtype=I32, grad_args=()),
    binary("linalg.set_diag", SELF_ADJOINT, np.array([9.0, 8.0, 7.0]), tf_values(TF_SET_DIAG)),
    OpRecord("linalg.cholesky_solve",
             (fixed(np.linalg.cholesky(SELF_ADJOINT), unknown_batch=False),
              fixed(np.array([[1.0], [2.0], [3.0]]), unknown_batch=False)),
             tf_values(TF_CHOLESKY_SOLVE), grad_args=(1,)),
    OpRecord("linalg.lu", (fixed(LU_INPUT, unknown_batch=False),),
             tf_values(TF_LU), call=lambda op, m: op(m)[0]),
    OpRecord("linalg.lu", (fixed(LU_INPUT, unknown_batch=False),), tf_values([2, 0, 1]),
             call=lambda op, m: op(m)[1], out_dtype=I32, grad_args=(), name="linalg.lu(p)"),
    OpRecord("linalg.lu_solve", (fixed(TF_LU, unknown_batch=False),
                                 fixed(np.array([[1.0], [2.0], [3.0]]), unknown_batch=False)),
             tf_values(TF_LU_SOLVE), call=lambda op, lu, b: op(lu, [2, 0, 1], b),
             grad_args=(1,)),
    OpRecord("linalg.lu_reconstruct", (fixed(TF_LU, unknown_batch=False),), tf_values(LU_INPUT),
             call=lambda op, lu: op(lu, [2, 0, 1])),
    OpRecord("linalg.lu_matrix_inverse", (fixed(TF_LU, unknown_batch=False),),
             tf_values(TF_LU_MATRIX_INVERSE), call=lambda op, lu: op(lu, [2, 0, 1])),
    OpRecord("linalg.tridiagonal_solve",
             (fixed(np.array([[2.0, 3.0, 0.0], [4.0, 5.0, 6.0], [0.0, 1.0, 2.0]]),
                    unknown_batch=False), fixed(np.array([1.0, 2.0, 3.0]), unknown_batch=False)),
             tf_values(TF_TRIDIAGONAL_SOLVE), grad_args=(1,)),
    OpRecord("linalg.tridiagonal_matmul",
             (fixed(np.array([[0.0, 3.0, 1.0], [4.0, 5.0, 6.0], [2.0, 1.0, 0.0]]),
                    unknown_batch=False), fixed(np.array([[1.0], [2.0], [3.0]]))),
             tf_values([[4.0], [20.0], [18.0]]), grad_args=(1,)),
    OpRecord("linalg.normalize", (fixed(np.array([[3.0, 4.0], [1.0, 0.5]])),),
             tf_values(TF_NORMALIZE), call=lambda op, x: op(x, axis=1)[0]),
]

# ---------------------------------------------------------------- image: more ops


def _sobel(v):
    padded = np.pad(v, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    h, w = v.shape[1:3]
    kernels = ([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])
    return np.stack([sum(k[i][j] * padded[:, i:i + h, j:j + w] for i in range(3)
                         for j in range(3)) for k in kernels], -1)


def _constant_shift(limit):
    """Every pixel moved by one delta, |delta| <= limit."""
    def statistics(outputs, images):
        shift = outputs[0] - images
        return [(np.ptp(shift), 0.0), (np.abs(shift).max() <= limit, True)]
    return statistics


def _patches_2x3_stride_2(v):
    """2x3 patches every 2 pixels (VALID), each flattened row-major with depth innermost."""
    rows, cols = (v.shape[1] - 2) // 2 + 1, (v.shape[2] - 3) // 2 + 1
    return np.stack([np.stack([v[:, 2 * i:2 * i + 2, 2 * j:2 * j + 3].reshape(v.shape[0], -1)
                               for j in range(cols)], 1) for i in range(rows)], 1)


CROP_BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, -0.2, 1.3, 0.5]])


def _crop_and_resize_reference(images, size=(3, 4)):
    """TF's CropAndResize (bilinear): grid from corner to corner of each box; 0 outside.
    Box i crops image 1 - i."""
    height, width = images.shape[1:3]
    out = np.zeros((len(CROP_BOXES),) + size + images.shape[3:])
    for n, (y1, x1, y2, x2) in enumerate(CROP_BOXES):
        image = images[1 - n]
        for i in range(size[0]):
            y = y1 * (height - 1) + i * (y2 - y1) * (height - 1) / (size[0] - 1)
            for j in range(size[1]):
                x = x1 * (width - 1) + j * (x2 - x1) * (width - 1) / (size[1] - 1)
                if not (0 <= y <= height - 1 and 0 <= x <= width - 1):
                    continue
                top, left = int(np.floor(y)), int(np.floor(x))
                bottom, right = min(top + 1, height - 1), min(left + 1, width - 1)
                dy, dx = y - top, x - left
                upper = image[top, left] + (image[top, right] - image[top, left]) * dx
                lower = image[bottom, left] + (image[bottom, right] - image[bottom, left]) * dx
                out[n, i, j] = upper + (lower - upper) * dy
    return out


COLOR_IMAGES = uniform((2, 3, 4, 3), 0, 1)
RECORDS += [
    OpRecord("image.total_variation", (COLOR_IMAGES,),
             lambda v: np.abs(np.diff(v, axis=1)).sum((1, 2, 3))
             + np.abs(np.diff(v, axis=2)).sum((1, 2, 3)), grad_args=()),
    OpRecord("image.image_gradients", (COLOR_IMAGES,),
             lambda v: (np.pad(np.diff(v, axis=1), [(0, 0), (0, 1), (0, 0), (0, 0)]),
                        np.pad(np.diff(v, axis=2), [(0, 0), (0, 0), (0, 1), (0, 0)]))),
    OpRecord("image.sobel_edges", (COLOR_IMAGES,), _sobel),
    # computed in float32, as TF does: float64 finite differences cannot check its gradient
    OpRecord("image.psnr", (COLOR_IMAGES, uniform((2, 3, 4, 3), 0, 1)),
             lambda a, b: -10 * np.log10(np.square(a - b).mean((1, 2, 3))),
             kwargs={"max_val": 1.0}, out_dtype=F32, grad_args=(),
             tolerance={F64: (1e-5, 1e-6)}),
    OpRecord("image.rgb_to_yuv", (COLOR_IMAGES,),
             lambda v: v @ np.array([[0.299, -0.14714119, 0.61497538],
                                     [0.587, -0.28886916, -0.51496512],
                                     [0.114, 0.43601035, -0.10001026]])),
    OpRecord("image.yuv_to_rgb", (COLOR_IMAGES,),
             lambda v: v @ np.array([[1, 1, 1], [0, -0.394642334, 2.03206185],
                                     [1.13988303, -0.58062185, 0]])),
    OpRecord("image.rgb_to_yiq", (COLOR_IMAGES,),
             lambda v: v @ np.array([[0.299, 0.59590059, 0.2115],
                                     [0.587, -0.27455667, -0.52273617],
                                     [0.114, -0.32134392, 0.31119955]])),
    OpRecord("image.yiq_to_rgb", (COLOR_IMAGES,),
             lambda v: v @ np.array([[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
                                     [0.6208248, -0.64720424, 1.70423049]])),
    OpRecord("image.extract_patches", (uniform((2, 5, 6, 2)),), _patches_2x3_stride_2,
             kwargs={"sizes": [1, 2, 3, 1], "strides": [1, 2, 2, 1], "rates": [1, 1, 1, 1],
                     "padding": "VALID"}),
    # float32 output whatever the image dtype, as TF's: float64 finite differences cannot
    # check its gradient
    OpRecord("image.crop_and_resize", (uniform((2, 5, 6, 2), unknown_batch=False),),
             _crop_and_resize_reference, dtypes=(F32,), grad_args=(),
             call=lambda op, images: op(images, CROP_BOXES, [1, 0], [3, 4])),
    random_op("image.stateless_random_flip_left_right",
              Samples(IMAGES.shape, _flip_statistics(2), atol=0.1, stateless=True),
              (fixed(IMAGES),), kwargs={"seed": [3, 4]}),
    random_op("image.stateless_random_flip_up_down",
              Samples(IMAGES.shape, _flip_statistics(1), atol=0.1, stateless=True),
              (fixed(IMAGES),), kwargs={"seed": [3, 4]}),
    random_op("image.stateless_random_brightness",
              Samples((2, 3, 4, 3), _constant_shift(0.2), atol=1e-6, stateless=True),
              (COLOR_IMAGES,), kwargs={"max_delta": 0.2, "seed": [3, 4]}, grad_args=(0,)),
    random_op("image.stateless_random_contrast", Samples((2, 3, 4, 3), stateless=True),
              (COLOR_IMAGES,), kwargs={"lower": 0.2, "upper": 0.5, "seed": [3, 4]}),
    random_op("image.stateless_random_saturation", Samples((2, 3, 4, 3), stateless=True),
              (COLOR_IMAGES,), kwargs={"lower": 0.2, "upper": 0.5, "seed": [3, 4]}),
    random_op("image.stateless_random_hue", Samples((2, 3, 4, 3), stateless=True),
              (COLOR_IMAGES,), kwargs={"max_delta": 0.2, "seed": [3, 4]}),
    random_op("image.stateless_random_crop",
              Samples((5, 6), _crop_offsets_removed, atol=0, stateless=True),
              (fixed(CROPPED, unknown_batch=False),), NUMERIC,
              kwargs={"size": [5, 6], "seed": [3, 4]}, grad_args=(0,)),
]

# ---------------------------------------------------------------- sparse ops (more)
# On SparseTensor(SPARSE_INDICES, values, SPARSE_SHAPE): entries (0,1), (2,0), (2,1) of 3x2.

OTHER_SPARSE_INDICES = [[0, 1], [1, 1]]


def with_two_sparse(op, values, **kwargs):
    """`op(sparse of values, SparseTensor(OTHER_SPARSE_INDICES, [0.5, -1.0]))`."""
    other = tf.sparse.SparseTensor(OTHER_SPARSE_INDICES, tf.constant([0.5, -1.0], values.dtype),
                                   SPARSE_SHAPE)
    return with_sparse(op, values, other, **kwargs)


def _sparse_out(indices, values, shape):
    return np.array(indices), np.asarray(values), np.array(shape)


def _union_of(pick):
    """Entries (0,1), (1,1), (2,0), (2,1): the sparse operand and the other, 0 where absent."""
    return lambda v: _sparse_out([[0, 1], [1, 1], [2, 0], [2, 1]],
                                 [pick(v[0], 0.5), pick(0.0, -1.0), pick(v[1], 0.0),
                                  pick(v[2], 0.0)], SPARSE_SHAPE)


def _row_softmax(v):
    e = np.exp(v[1:] - v[1:].max())
    return np.concatenate([[1.0], e / e.sum()])


SPARSE_VALUES = uniform((3,), unknown_batch=False)
SPARSE_OUT = (I64, None, I64)
SEGMENT_DATA = uniform((3, 2))
RECORDS += [
    OpRecord("sparse.add", (SPARSE_VALUES, uniform((3, 2), unknown_batch=False)),
             lambda v, d: _dense(v) + d, call=with_sparse, grad_args=(0, 1)),
    OpRecord("sparse.add", (SPARSE_VALUES,), _union_of(lambda a, b: a + b),
             call=with_two_sparse, out_dtype=SPARSE_OUT, name="sparse.add(sparse)",
             grad_args=()),
    OpRecord("sparse.maximum", (SPARSE_VALUES,), _union_of(max), call=with_two_sparse,
             out_dtype=SPARSE_OUT, grad_args=()),
    OpRecord("sparse.minimum", (SPARSE_VALUES,), _union_of(min), call=with_two_sparse,
             out_dtype=SPARSE_OUT, grad_args=()),
    OpRecord("sparse.concat", (SPARSE_VALUES,),
             lambda v: _sparse_out([[0, 1], [0, 3], [2, 0], [2, 1], [2, 2], [2, 3]],
                                   v[[0, 0, 1, 2, 1, 2]], [3, 4]),
             call=lambda op, v: op(1, [with_sparse(lambda sp: sp, v)] * 2),
             out_dtype=SPARSE_OUT, grad_args=()),
    OpRecord("sparse.reshape", (SPARSE_VALUES,),
             lambda v: _sparse_out([[0, 1], [1, 1], [1, 2]], v, [2, 3]), call=with_sparse,
             kwargs={"shape": [2, 3]}, out_dtype=SPARSE_OUT, grad_args=()),
    OpRecord("sparse.retain", (SPARSE_VALUES,),
             lambda v: _sparse_out([[0, 1], [2, 1]], v[[0, 2]], SPARSE_SHAPE),
             call=with_sparse, kwargs={"to_retain": [True, False, True]}, out_dtype=SPARSE_OUT,
             grad_args=()),
    OpRecord("sparse.expand_dims", (SPARSE_VALUES,),
             lambda v: _sparse_out([[0, 0, 1], [0, 2, 0], [0, 2, 1]], v, [1, 3, 2]),
             call=with_sparse, kwargs={"axis": 0}, out_dtype=SPARSE_OUT, grad_args=()),
    OpRecord("sparse.transpose", (SPARSE_VALUES,),
             lambda v: _sparse_out([[0, 2], [1, 0], [1, 2]], v[[1, 0, 2]], [2, 3]),
             call=with_sparse, out_dtype=SPARSE_OUT, grad_args=()),
    OpRecord("sparse.slice", (SPARSE_VALUES,),
             lambda v: _sparse_out([[1, 0], [1, 1]], v[[1, 2]], [2, 2]), call=with_sparse,
             kwargs={"start": [1, 0], "size": [2, 2]}, out_dtype=SPARSE_OUT, grad_args=()),
    OpRecord("sparse.fill_empty_rows", (SPARSE_VALUES,),
             lambda v: _sparse_out([[0, 1], [1, 0], [2, 0], [2, 1]],
                                   [v[0], -1.0, v[1], v[2]], SPARSE_SHAPE) +
             (np.array([False, True, False]),),
             call=lambda op, v: (lambda sp, empty: (sp, empty))(*with_sparse(op, v, -1.0)),
             out_dtype=SPARSE_OUT + (BOOL,), grad_args=()),
    OpRecord("sparse.reduce_max", (SPARSE_VALUES,),
             lambda v: np.array([v[0], 0.0, max(v[1], v[2])]), call=with_sparse,
             kwargs={"axis": 1}, grad_args=()),
    OpRecord("sparse.softmax", (SPARSE_VALUES,),
             lambda v: _sparse_out(SPARSE_INDICES, _row_softmax(v), SPARSE_SHAPE),
             call=with_sparse, out_dtype=SPARSE_OUT, grad_args=()),
    OpRecord("sparse.reset_shape", (SPARSE_VALUES,),
             lambda v: _sparse_out(SPARSE_INDICES, v, [4, 5]), call=with_sparse,
             kwargs={"new_shape": [4, 5]}, out_dtype=SPARSE_OUT, grad_args=()),
    OpRecord("sparse.split", (SPARSE_VALUES,),
             lambda v: _sparse_out([[0, 1]], v[:1], [2, 2]) +
             _sparse_out([[0, 0], [0, 1]], v[1:], [1, 2]),
             call=lambda op, v: tuple(
                 c for piece in op(sp_input=tf.sparse.SparseTensor(SPARSE_INDICES, v,
                                                                   SPARSE_SHAPE),
                                   num_split=2, axis=0)
                 for c in (piece.indices, piece.values, piece.dense_shape)),
             out_dtype=SPARSE_OUT * 2, grad_args=()),
    OpRecord("math.approx_max_k", (uniform((3, 5)),),
             lambda x: (-np.sort(-x, -1)[:, :2], np.argsort(-x, -1, kind="stable")[:, :2]),
             kwargs={"k": 2}, out_dtype=(None, I32)),
    OpRecord("math.approx_min_k", (uniform((3, 5)),),
             lambda x: (np.sort(x, -1)[:, :3], np.argsort(x, -1, kind="stable")[:, :3]),
             kwargs={"k": 3}, out_dtype=(None, I32)),
    OpRecord("sparse.to_indicator", (fixed(np.array([1, 0, 1]), unknown_batch=False),),
             lambda v: np.array([[False, True, False], [False, False, False],
                                 [True, True, False]]),
             call=with_sparse, kwargs={"vocab_size": 3}, dtypes=(I64,), out_dtype=BOOL,
             grad_args=()),
    OpRecord("sparse.segment_sum", (SEGMENT_DATA,),
             lambda d: np.stack([d[0] + d[2], d[1] + d[2]]),
             call=lambda op, d: op(d, [0, 2, 1, 2], [0, 0, 1, 1])),
    OpRecord("sparse.segment_mean", (SEGMENT_DATA,),
             lambda d: np.stack([d[0] + d[2], d[1] + d[2]]) / 2,
             call=lambda op, d: op(d, [0, 2, 1, 2], [0, 0, 1, 1])),
    OpRecord("sparse.segment_sqrt_n", (SEGMENT_DATA,),
             lambda d: np.stack([d[0] + d[2], d[1] + d[2]]) / np.sqrt(2),
             call=lambda op, d: op(d, [0, 2, 1, 2], [0, 0, 1, 1])),
]

_names = [record.id for record in RECORDS]
assert len(_names) == len(set(_names)), sorted(n for n in _names if _names.count(n) > 1)


def lookup(record):
    """The op a record tests: its path in `tf.compat.v1` or `tf.compat.v2`."""
    obj = tf.compat.v1 if record.api == "v1" else tf.compat.v2
    for part in record.path.split("."):
        obj = getattr(obj, part)
    return obj


# the code of the functions `@op` returns: the plain wrapper and the fast_binary one
OP_WRAPPER_CODES = frozenset((tf.math.sin.__code__, tf.math.add.__code__))


def all_ops():
    """{implementation: "module.name"} for every `@op` function of tfcompat (imports all
    of its modules; those needing a missing optional dependency are skipped)."""
    for info in pkgutil.walk_packages(tf.__path__, "tfcompat."):
        if info.name.endswith("__main__"):   # the runner's entry point runs a script
            continue
        try:
            importlib.import_module(info.name)
        except Exception:   # noqa: BLE001 - an optional dependency is missing
            continue
    found = {}
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("tfcompat") and module is not None:
            for attribute, obj in list(vars(module).items()):
                if (inspect.isfunction(obj) and obj.__code__ in OP_WRAPPER_CODES
                        and obj.__module__ == module_name):
                    impl = obj._tfcompat_impl
                    found[impl] = "%s.%s" % (module_name, attribute)
    return found


def ops_run_by_records():
    """The `@op` implementations run while each record runs once (eagerly, or building a
    graph for graph-only ones), read from the op
    wrappers' frames when they return: the plain wrapper's closure cell `fn`, the
    fast_binary wrapper's `general` (the plain wrapper, `functools.wraps(fn)`)."""
    entered = set()

    def profile(frame, event, _):
        if event == "return" and frame.f_code in OP_WRAPPER_CODES:
            local = frame.f_locals
            entered.add(local["fn"] if "fn" in local else local["general"].__wrapped__)

    for record in RECORDS:
        dtype = record.dtypes[0]
        eager = "eager" in record.modes
        with contextlib.nullcontext() if eager else tf.Graph().as_default():
            tensors = [tf.constant(a) for a in record.arrays(dtype)]
            sys.setprofile(profile)
            try:
                record.run(tensors, dtype)
            finally:
                sys.setprofile(None)
    return entered


# `@op` functions no record runs, with why; the coverage report counts them as covered by
# exclusion.
_GENERATOR_OP = ("tf.random.Generator's state read and key/counter sampling ops, run by its "
                 "methods on its state variable (tests/test_random_generator.py checks them "
                 "against real TF eagerly, in tf.function and in TF1 graphs)")
_IMAGE_COMPOSITE = ("resize (or TF1's extract_image_patches name) composed of recorded ops "
                    "(image.resize/resize_images, pad_to_bounding_box, extract_patches); "
                    "tests/test_image_extra.py checks TF's values eagerly and in TF1 graphs")
EXCLUDED = {
    "tfcompat.ops.math_ops._elementwise_equal":
        "`==` of tensors under TF2 API names, fixed per process (_api.api_version()); this "
        "process has TF1's, where `==` compares identities as in TF 1.x (math.equal is "
        "recorded)",
    "tfcompat.ops.math_ops._elementwise_not_equal": "`!=`: as _elementwise_equal",
    "tfcompat.ops.math_ops._invert":
        "run by the Tensor.__invert__ records: the eager operator calls the implementation "
        "directly (unseen by this report), graphs record the op",
    "tfcompat.ops.sparse_ops._indexed_slices_to_dense":
        "run by the convert_to_tensor(IndexedSlices) record: eager conversion calls the "
        "implementation directly (unseen by this report), graphs record the op",
    "tfcompat.keras.layers.recurrent._stored_unless_zero":
        "a stateful Keras RNN's states kept across calls, not a function of its arguments "
        "(tests/test_keras_recurrent.py: test_stateful_layer_carries_and_resets_states)",
    "tfcompat.keras.mixed_precision.loss_scale_optimizer._update_loss_scale":
        "LossScaleOptimizer's dynamic scale and counter across steps "
        "(tests/test_mixed_precision.py)",
    "tfcompat.ops.stateless_random_ops.stateless_random_uniform_v2": _GENERATOR_OP,
    "tfcompat.ops.stateless_random_ops.stateless_random_normal_v2": _GENERATOR_OP,
    "tfcompat.ops.stateless_random_ops.stateless_truncated_normal_v2": _GENERATOR_OP,
    "tfcompat.ops.stateless_random_ops.stateless_random_uniform_int_v2": _GENERATOR_OP,
    "tfcompat.ops.stateless_random_ops.stateless_random_uniform_full_int_v2": _GENERATOR_OP,
    "tfcompat.ops.stateful_random_ops.rng_read_and_skip": _GENERATOR_OP,
    "tfcompat.ops.image_ops.resize_with_pad": _IMAGE_COMPOSITE,
    "tfcompat.ops.image_ops.resize_image_with_pad": _IMAGE_COMPOSITE,
    "tfcompat.ops.image_ops.extract_image_patches": _IMAGE_COMPOSITE,
    "tfcompat.variables._concat_partitions":
        "a TF1 PartitionedVariable read as one tensor: variable-scope state made by "
        "get_variable with a partitioner (tests/test_partitioned_variables.py)",
}


def coverage_report():
    ops = all_ops()
    covered = ops_run_by_records() & set(ops)
    missing = sorted(name for impl, name in ops.items()
                     if impl not in covered and name not in EXCLUDED)
    excluded = sorted(name for impl, name in ops.items()
                      if impl not in covered and name in EXCLUDED)
    print("%d @op functions, %d run by a record (%d records), %d excluded:"
          % (len(ops), len(covered), len(RECORDS), len(excluded)))
    for name in excluded:
        print("  %s: %s" % (name, EXCLUDED[name]))
    print("without a record: %d" % len(missing))
    for name in missing:
        print("  " + name)
    for name in sorted(set(EXCLUDED) - set(ops.values())):
        print("stale exclusion (no such @op function): " + name)


if __name__ == "__main__":
    coverage_report()
