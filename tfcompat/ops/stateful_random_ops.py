"""The ops under `tf.random.Generator` (TF's stateful_random_ops.py): RNG algorithms, seed to
state, and reading a state variable while advancing its counter.

A Philox state is TF's: int64 [counter low, counter high, key]. The Generator class holds
it in a tf.Variable, so it lives above variables (tfcompat/module/stateful_random_ops.py).
"""
import enum
import random

import numpy as np
import torch

from tfcompat._api import tf_export
from tfcompat.framework import dtypes, errors
from tfcompat.framework.ops import op, to_torch, variable_storage
from tfcompat.ops.stateless_random_ops import skip_counter

# Counters a sample of one output reserves (TF's UpdateMemWithPhiloxRandom multiplier)
SKIP_PER_OUTPUT = 256
_PHILOX_STATE_SIZE = 3
_SEED_MASK = 2 ** 64 - 1


@tf_export("random.Algorithm", "random.experimental.Algorithm")
class Algorithm(enum.Enum):
    """TF's RNG algorithms; tfcompat runs Philox (AUTO_SELECT picks it, as TF does on CPU)."""
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_ALGORITHM_NAMES = {"philox": Algorithm.PHILOX, "threefry": Algorithm.THREEFRY,
                    "auto_select": Algorithm.AUTO_SELECT}


def algorithm_to_int(alg):
    """TF's convert_alg_to_int: an Algorithm, its value or its lower-case name; only Philox
    is implemented (ThreeFry raises NotImplementedError)."""
    if isinstance(alg, Algorithm):
        value = alg.value
    elif isinstance(alg, str) and alg.lower() in _ALGORITHM_NAMES:
        value = _ALGORITHM_NAMES[alg.lower()].value
    elif isinstance(alg, (int, np.integer)) and not isinstance(alg, bool) and \
            int(alg) in (1, 2, 3):
        value = int(alg)
    else:
        raise ValueError("Argument `alg` got unsupported value %r. Supported values are "
                         "philox, threefry, auto_select." % (alg,))
    if value == Algorithm.THREEFRY.value:
        raise NotImplementedError("tf.random.Generator with the ThreeFry algorithm is not "
                                  "implemented in tfcompat (Philox is)")
    return Algorithm.PHILOX.value if value == Algorithm.AUTO_SELECT.value else value


def _as_int64(value):
    """A 64-bit word as TF's int64 (values of 2**63 and above wrap)."""
    value &= _SEED_MASK
    return value - 2 ** 64 if value >= 2 ** 63 else value


@tf_export("random.create_rng_state", "random.experimental.create_rng_state")
def create_rng_state(seed, alg):
    """TF's RNG state for `seed`: an int is cut into 64-bit words (lowest first), a list of
    words is taken as is; zeros pad to the state size (3 for Philox). A numpy int64 array."""
    algorithm_to_int(alg)
    if isinstance(seed, (int, np.integer)):
        seed = int(seed)
        words = []
        for _ in range(_PHILOX_STATE_SIZE):
            words.append(seed & _SEED_MASK)
            seed >>= 64
    else:
        words = [int(v) for v in np.asarray(seed).reshape(-1)]
    if len(words) > _PHILOX_STATE_SIZE:
        raise ValueError("Seed %r has more than %d elements, the state size of the "
                         "algorithm" % (seed, _PHILOX_STATE_SIZE))
    words += [0] * (_PHILOX_STATE_SIZE - len(words))
    return np.array([_as_int64(w) for w in words], dtype=np.int64)


def non_deterministic_state():
    """A Philox state of OS entropy (TF's non_deterministic_ints)."""
    entropy = random.SystemRandom()
    return np.array([_as_int64(entropy.getrandbits(64)) for _ in range(_PHILOX_STATE_SIZE)],
                    dtype=np.int64)


def check_state(state):
    """A state must be a vector of the algorithm's state size."""
    if state.shape != (_PHILOX_STATE_SIZE,):
        raise ValueError("The RNG state must have shape [%d] for the Philox algorithm, got %s"
                         % (_PHILOX_STATE_SIZE, list(state.shape)))


@op(graph_name="RngReadAndSkip")
def rng_read_and_skip(resource, alg, delta, name=None):
    """The state before the call; the variable's counter moves on by `delta` * 256, as TF's
    RngReadAndSkip (the state a `delta`-element sample leaves)."""
    storage = variable_storage(resource)
    if storage.dtype != torch.int64 or tuple(storage.shape) != (_PHILOX_STATE_SIZE,):
        raise errors.InvalidArgumentError(
            "{op}: the RNG state must be an int64 vector of size %d" % _PHILOX_STATE_SIZE)
    before = storage.clone()
    steps = to_torch(delta, dtypes.int64).to(storage.device) * SKIP_PER_OUTPUT
    with torch.no_grad():
        storage[:2] = skip_counter(before[:2], steps)
    return before
