"""Which tf.distribute strategy is current, and whether code runs per replica or across them.

Kept per thread like TF's: a stack of (strategy, replica context) entries. Outside any
strategy the default strategy is current and code runs in its (only) replica. `with
strategy.scope()` pushes the strategy in cross-replica context (`get_replica_context()` is
None); `strategy.run(fn)` and Keras' train steps push it in a replica context. The strategies
themselves live in `tfcompat.distribute`, which installs the default one here.
"""
import threading

from tfcompat._api import tf_export


class _Stack(threading.local):
    def __init__(self):
        self.entries = []


_stack = _Stack()


class _Defaults(object):
    strategy = None          # tfcompat.distribute's default strategy, installed at import
    replica_context = None


_defaults = _Defaults()


def install_default(strategy, replica_context):
    _defaults.strategy = strategy
    _defaults.replica_context = replica_context


def push(strategy, replica_context=None):
    _stack.entries.append((strategy, replica_context))


def pop():
    _stack.entries.pop()


def _top():
    if _stack.entries:
        return _stack.entries[-1]
    return _defaults.strategy, _defaults.replica_context


@tf_export("distribute.get_strategy")
def get_strategy():
    """The current strategy: the innermost `strategy.scope()`'s or `run`'s, else the default
    strategy (one replica, no distribution)."""
    return _top()[0]


@tf_export("distribute.has_strategy")
def has_strategy():
    """Whether a non-default strategy is current."""
    return get_strategy() is not _defaults.strategy


@tf_export("distribute.get_replica_context")
def get_replica_context():
    """The current ReplicaContext; None in cross-replica context (inside `strategy.scope()`
    but outside `strategy.run`)."""
    return _top()[1]


@tf_export("distribute.in_cross_replica_context")
def in_cross_replica_context():
    """Whether code runs in a strategy's scope outside of its replicas' functions."""
    return _top()[1] is None


def num_replicas_in_sync():
    """How many replicas the current strategy trains in step (1 without one)."""
    strategy = get_strategy()
    return 1 if strategy is None else strategy.num_replicas_in_sync
