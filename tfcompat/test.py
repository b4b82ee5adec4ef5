"""`tf.test`: GPU queries, `tf.test.main` and `tf.test.TestCase` (unittest plus TF's assertions)."""
import contextlib
import os
import random
import tempfile
import unittest

import numpy as np
import torch

from tfcompat import config
from tfcompat._api import tf_export
from tfcompat.framework import context, random_seed
from tfcompat.platform import benchmark


@tf_export("test.is_built_with_cuda")
def is_built_with_cuda():
    """True when torch was built with CUDA."""
    return torch.version.cuda is not None


@tf_export("test.is_built_with_rocm")
def is_built_with_rocm():
    return torch.version.hip is not None


@tf_export("test.is_built_with_gpu_support")
def is_built_with_gpu_support():
    return is_built_with_cuda() or is_built_with_rocm()


@tf_export("test.is_built_with_xla")
def is_built_with_xla():
    """False: tfcompat compiles with torch.compile, not XLA."""
    return False


@tf_export("test.is_gpu_available")
def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """True when a visible GPU exists (with at least that (major, minor) compute capability)."""
    if cuda_only and not is_built_with_cuda():
        return False
    if not torch.cuda.is_available():
        return False
    for index in config.visible_gpu_indices():
        if min_cuda_compute_capability is None or \
                torch.cuda.get_device_capability(index) >= tuple(min_cuda_compute_capability):
            return True
    return False


@tf_export("test.gpu_device_name")
def gpu_device_name():
    """'/device:GPU:0' when a GPU is visible, else ''."""
    return "/device:GPU:0" if torch.cuda.is_available() and config.visible_gpu_indices() else ""


@tf_export("test.main")
def main(argv=None):
    """Run the tests of the `__main__` module (unittest's runner); exits with its status.
    With `--benchmarks=REGEX` in argv, run the matching `tf.test.Benchmark` methods instead."""
    return benchmark.benchmarks_main(lambda: unittest.main(module="__main__", argv=argv),
                                     argv=argv)


_temp_dir = None


@tf_export(v1=["test.get_temp_dir"])
def get_temp_dir():
    """One temporary directory per process, removed by the OS's temp cleanup, as in TF."""
    global _temp_dir
    if _temp_dir is None:
        _temp_dir = tempfile.mkdtemp(prefix="tfcompat-test-")
    return _temp_dir


def _graph_mode_error(what):
    return NotImplementedError(
        "tf.test.TestCase.%s in graph mode needs tf.Session, which tfcompat does not "
        "implement yet; run the test in eager mode (TFCOMPAT_MODE=eager)" % what)


def _to_numpy(value):
    """Tensors and variables (anything with `.numpy()`) in a nested structure -> numpy."""
    if isinstance(value, dict):
        return type(value)((k, _to_numpy(v)) for k, v in value.items())
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_to_numpy(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_to_numpy(v) for v in value)
    numpy = getattr(value, "numpy", None)
    return numpy() if callable(numpy) and not isinstance(value, np.ndarray) else value


class _EagerSessionWarner(object):
    """What `self.session()` gives in eager mode: any use says there is no session."""

    def __getattr__(self, attr):
        raise AttributeError(
            "Trying to access properties or call methods on the result of self.session() in "
            "eager mode; use self.evaluate() to get tensor values, or run in graph mode")


class _FakeEagerSession(object):
    """What `self.cached_session()` gives in eager mode: `run` evaluates eager tensors."""

    def __init__(self, test_case):
        self._test_case = test_case

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if feed_dict:
            raise RuntimeError("feed_dict is not supported when eager execution is enabled "
                               "(in this case, sess.run(t) is shorthand for t.numpy())")
        return self._test_case.evaluate(fetches)


@tf_export("test.TestCase")
class TestCase(unittest.TestCase):
    """`tf.test.TestCase`: unittest.TestCase with TF's array assertions and `evaluate`.

    `setUp` seeds Python's, numpy's and TF's random generators with TF's default seed.
    """

    def setUp(self):
        super().setUp()
        random.seed(random_seed.DEFAULT_GRAPH_SEED)
        np.random.seed(random_seed.DEFAULT_GRAPH_SEED)
        random_seed.set_random_seed(random_seed.DEFAULT_GRAPH_SEED)

    def get_temp_dir(self):
        """A fresh directory for this test method, inside the process's temp dir."""
        path = os.path.join(get_temp_dir(), self.id())
        os.makedirs(path, exist_ok=True)
        return tempfile.mkdtemp(dir=path)

    def evaluate(self, tensors):
        """Tensors (nested in lists, tuples, dicts) -> numpy values."""
        if not context.executing_eagerly():
            raise _graph_mode_error("evaluate")
        return _to_numpy(tensors)

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        if not context.executing_eagerly():
            raise _graph_mode_error("session")
        yield _EagerSessionWarner()

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        if not context.executing_eagerly():
            raise _graph_mode_error("cached_session")
        yield _FakeEagerSession(self)

    # ---------------------------------------------------------------- assertions
    def _GetNdArray(self, a):
        return np.asarray(_to_numpy(a))

    def assertNear(self, f1, f2, err, msg=None):
        """|f1 - f2| <= err."""
        self.assertTrue(f1 == f2 or abs(f1 - f2) <= err,
                        "%f != %f +/- %f%s" % (f1, f2, err, " (%s)" % msg if msg else ""))

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def _assertArrayLikeAllClose(self, a, b, rtol, atol, msg):
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        self.assertEqual(a.shape, b.shape, "Shape mismatch: expected %s, got %s.%s" % (
            a.shape, b.shape, " " + msg if msg else ""))
        if np.float16 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, 1e-3), max(atol, 1e-3)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=msg or "",
                                   equal_nan=True)

    def _assertAllCloseRecursive(self, a, b, rtol, atol, path, msg):
        where = "At %s: " % "".join(path) if path else ""
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)):
                raise ValueError("%sCan't compare dict to non-dict, a%s vs b%s. %s" % (
                    where, "".join(path), "".join(path), msg or ""))
            self.assertEqual(set(a), set(b), "%smismatched keys%s" % (where, msg or ""))
            for key in a:
                self._assertAllCloseRecursive(a[key], b[key], rtol, atol,
                                              path + ["[%r]" % (key,)], msg)
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            try:
                a_array, b_array = self._GetNdArray(a), self._GetNdArray(b)
            except ValueError:  # ragged structure: compare element by element
                a_array = b_array = None
            if a_array is not None and a_array.dtype != object and b_array.dtype != object:
                self._assertArrayLikeAllClose(a_array, b_array, rtol, atol, where + (msg or ""))
                return
            self.assertEqual(len(a), len(b), "%sLength %d != %d" % (where, len(a), len(b)))
            for i, (x, y) in enumerate(zip(a, b)):
                self._assertAllCloseRecursive(x, y, rtol, atol, path + ["[%d]" % i], msg)
            return
        self._assertArrayLikeAllClose(a, b, rtol, atol, where + (msg or ""))

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Same shape and |a - b| <= atol + rtol * |b| elementwise (nested structures too)."""
        self._assertAllCloseRecursive(_to_numpy(a), _to_numpy(b), rtol, atol, [], msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError("The two values are close at all elements. %s" % (msg or ""))

    def assertAllEqual(self, a, b, msg=None):
        """Same shape and equal elements (NaN equals NaN for floats)."""
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        self.assertEqual(a.shape, b.shape, "Shape mismatch: expected %s, got %s.%s" % (
            a.shape, b.shape, " " + msg if msg else ""))
        np.testing.assert_array_equal(a, b, err_msg=msg or "")

    def assertAllGreater(self, a, comparison_target):
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):
        self.assertGreaterEqual(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):
        self.assertLessEqual(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,
                         open_upper_bound=False):
        """Every element of `target` lies in the (half-)open or closed interval."""
        target = self._GetNdArray(target)
        if not (np.issubdtype(target.dtype, np.floating) or
                np.issubdtype(target.dtype, np.integer)):
            raise AssertionError("The value of %s does not have an ordered numeric type, "
                                 "instead it has type: %s" % (target, target.dtype))
        below = target <= lower_bound if open_lower_bound else target < lower_bound
        above = target >= upper_bound if open_upper_bound else target > upper_bound
        outside = np.logical_or(below, above)
        if np.any(outside):
            raise AssertionError("%d of the %d element(s) are outside the range %s%s, %s%s: %s"
                                 % (np.sum(outside), target.size, "(" if open_lower_bound
                                    else "[", lower_bound, upper_bound,
                                    ")" if open_upper_bound else "]", target[outside]))

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):
        """The numpy array's shape equals the tensor's static shape."""
        if not isinstance(np_array, (np.ndarray, np.generic)):
            raise TypeError("np_array must be a Numpy ndarray or Numpy scalar")
        if not hasattr(tf_tensor, "get_shape"):
            raise TypeError("tf_tensor must be a Tensor")
        self.assertAllEqual(np_array.shape, tf_tensor.get_shape().as_list(), msg=msg)

    def assertDTypeEqual(self, target, expected_dtype):
        """`target`'s elements have dtype `expected_dtype` (a numpy dtype or a tf.DType)."""
        expected = np.dtype(getattr(expected_dtype, "as_numpy_dtype", expected_dtype))
        self.assertEqual(self._GetNdArray(target).dtype, expected)
