"""`tf.random.Generator` and the global generator (TF's
tensorflow/python/ops/stateful_random_ops.py), with TF's numbers.

The state is a non-trainable int64 tf.Variable named "StateVar" held as `_state_var`, so
checkpoints key it as TF does (`<path>/_state_var/.ATTRIBUTES/VARIABLE_VALUE`). Each
sample reads the state and advances its counter by 256 per output (RngReadAndSkip), then
runs the stateless key/counter op on what it read, as TF 2.15 does; so
`Generator.from_seed(1).normal([3])` gives TF's values. The class holds a Variable, so it
lives above variables; its ops are in ops/stateful_random_ops.py. Philox only.
"""
import numpy as np

from tfcompat._api import tf_export
from tfcompat.framework import dtypes
from tfcompat.framework.ops import convert_to_tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import array_ops, math_ops
from tfcompat.ops import stateless_random_ops as stateless
from tfcompat.ops.stateful_random_ops import (Algorithm, algorithm_to_int, check_state,
                                               create_rng_state, non_deterministic_state,
                                               rng_read_and_skip)
from tfcompat.variables import Variable


def _output_count(shape):
    """The number of elements of a sample of `shape` (a Python int when static)."""
    if isinstance(shape, TensorShape):
        return int(np.prod(shape.as_list()))
    if isinstance(shape, (list, tuple)) and all(isinstance(d, (int, np.integer))
                                                for d in shape):
        return int(np.prod(shape))
    return math_ops.reduce_prod(math_ops.cast(shape, dtypes.int64))


@tf_export("random.Generator", "random.experimental.Generator")
class Generator(object):
    """A random number generator whose state is a tf.Variable (TF's Philox layout:
    [counter low, counter high, key])."""

    _always_trackable = True    # an AutoTrackable in TF

    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """The state TF makes of `seed` (an int cut into 64-bit words, or a list of words)."""
        alg = Algorithm.PHILOX if alg is None else alg
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        alg = Algorithm.PHILOX if alg is None else alg
        algorithm_to_int(alg)
        return cls(state=non_deterministic_state(), alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        counter = convert_to_tensor(counter, dtypes.int64)
        key = array_ops.reshape(convert_to_tensor(key, dtypes.int64), [1])
        return cls(state=array_ops.concat([counter, key], 0), alg=alg)

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is not None, neither `state` nor `alg` "
                                 "may be given.")
            state, self._alg = copy_from.state.read_value(), copy_from.algorithm
        else:
            if state is None or alg is None:
                raise ValueError("`state` and `alg` must be given when `copy_from` is None "
                                 "(use Generator.from_seed or from_non_deterministic_state)")
            self._alg = algorithm_to_int(alg)
        state = convert_to_tensor(state, dtypes.int64)
        check_state(state)
        self._state_var = Variable(state, dtype=dtypes.int64, trainable=False,
                                   name="StateVar")

    @property
    def state(self):
        """The state variable (int64 [3])."""
        return self._state_var

    @property
    def algorithm(self):
        return self._alg

    @property
    def key(self):
        return self._state_var[-1]

    def reset(self, state):
        state = convert_to_tensor(state, dtypes.int64)
        check_state(state)
        self._state_var.assign(state)

    def reset_from_seed(self, seed):
        self.reset(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        counter = convert_to_tensor(counter, dtypes.int64)
        key = array_ops.reshape(convert_to_tensor(key, dtypes.int64), [1])
        self.reset(array_ops.concat([counter, key], 0))

    def skip(self, delta):
        """Advance the counter as a sample of `delta` elements would; returns the state
        before."""
        return rng_read_and_skip(self._state_var, self._alg, delta)

    def _key_counter(self, shape):
        before = self.skip(_output_count(shape))
        return before[2:], before[:2]

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        key, counter = self._key_counter(shape)
        rnd = stateless.stateless_random_normal_v2(shape, key, counter, self._alg,
                                                   dtype=dtype)
        return rnd * convert_to_tensor(stddev, rnd.dtype) + convert_to_tensor(mean, rnd.dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                         name=None):
        key, counter = self._key_counter(shape)
        rnd = stateless.stateless_truncated_normal_v2(shape, key, counter, self._alg,
                                                      dtype=dtype)
        return rnd * convert_to_tensor(stddev, rnd.dtype) + convert_to_tensor(mean, rnd.dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Floats in [minval, maxval) (maxval defaults to 1); integers need both bounds
        (or neither: the whole range)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError("For integer dtype %s, minval and maxval must be both "
                                 "`None` or both non-`None`; got minval=%r and maxval=%r"
                                 % (dtype.name, minval, maxval))
            if minval is None:
                return self.uniform_full_int(shape, dtype)
            minval = convert_to_tensor(minval, dtype)
            maxval = convert_to_tensor(maxval, dtype)
            key, counter = self._key_counter(shape)
            return stateless.stateless_random_uniform_int_v2(shape, key, counter, self._alg,
                                                             minval, maxval)
        maxval = 1 if maxval is None else maxval
        minval, maxval = convert_to_tensor(minval, dtype), convert_to_tensor(maxval, dtype)
        key, counter = self._key_counter(shape)
        rnd = stateless.stateless_random_uniform_v2(shape, key, counter, self._alg,
                                                    dtype=dtype)
        return rnd * (maxval - minval) + minval

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        key, counter = self._key_counter(shape)
        return stateless.stateless_random_uniform_full_int_v2(shape, key, counter, self._alg,
                                                              dtype=dtype)

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None):
        raise NotImplementedError("tf.random.Generator.binomial is not implemented in tfcompat")

    def make_seeds(self, count=1):
        """`count` seeds for stateless ops, shape [2, count]: drawn keys over zeros."""
        keys = self.uniform_full_int([count], dtypes.int64)
        return array_ops.stack([keys, array_ops.zeros_like(keys)])

    def split(self, count=1):
        """`count` new generators whose keys are drawn from this one, counters zero."""
        keys = self.uniform_full_int([count], dtypes.int64)
        zero = convert_to_tensor(0, dtypes.int64)
        return [Generator(state=array_ops.stack([zero, zero, key]), alg=self._alg)
                for key in array_ops.unstack(keys, num=count)]


_global_generator = None


@tf_export("random.get_global_generator", "random.experimental.get_global_generator")
def get_global_generator():
    """The global generator, made from a non-deterministic state on first use."""
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


@tf_export("random.set_global_generator", "random.experimental.set_global_generator")
def set_global_generator(generator):
    """Make `generator` the global generator (functions already traced keep the old one)."""
    global _global_generator
    _global_generator = generator
