"""`tf.data.experimental`: the transformation functions TF1-era scripts use with `apply`."""
from tfcompat._api import tf_export
from tfcompat.data.dataset_ops import Dataset
from tfcompat.data.iterator_ops import Iterator, OwnedIterator
from tfcompat.data.iterator_ops import get_single_element  # noqa: F401 - re-export
from tfcompat.framework import errors


@tf_export("data.experimental.map_and_batch")
def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """`map` then `batch` (TF fuses them; the parallel map does the same work here)."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`num_parallel_batches` and `num_parallel_calls` are mutually "
                         "exclusive.")
    calls = num_parallel_calls if num_parallel_calls is not None else \
        (None if num_parallel_batches is None else int(num_parallel_batches) * int(batch_size))

    def apply(dataset):
        return dataset.map(map_func, num_parallel_calls=calls).batch(batch_size, drop_remainder)
    return apply


@tf_export("data.experimental.parallel_interleave")
def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """`interleave` with each open dataset read ahead in the background (order as TF's
    deterministic mode; `sloppy=True` is accepted and gives the same order)."""
    def apply(dataset):
        return dataset.interleave(map_func, cycle_length, block_length,
                                  num_parallel_calls=cycle_length)
    return apply


@tf_export("data.experimental.shuffle_and_repeat")
def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """`shuffle(buffer_size, seed)` then `repeat(count)` (a new order each epoch)."""
    def apply(dataset):
        return dataset.shuffle(buffer_size, seed).repeat(count)
    return apply


@tf_export("data.experimental.unbatch")
def unbatch():
    def apply(dataset):
        return dataset.unbatch()
    return apply


@tf_export("data.experimental.enumerate_dataset")
def enumerate_dataset(start=0):
    def apply(dataset):
        return dataset.enumerate(start)
    return apply


@tf_export("data.experimental.cardinality")
def cardinality(dataset):
    return dataset.cardinality()


@tf_export("data.experimental.ignore_errors")
def ignore_errors(log_warning=False):
    """Drop elements whose computation raises a TF error (OpError), as TF does."""
    def apply(dataset):
        return _IgnoreErrors(dataset)
    return apply


class _IgnoreErrors(Dataset):
    def __init__(self, input_dataset):
        self._inputs = (input_dataset,)

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _iter(self, env):
        source = self._inputs[0]._iter(env)
        while True:
            try:
                element = next(source)
            except StopIteration:
                return
            except errors.OpError:
                continue
            yield element


class IteratorSaveable(object):
    """TF's SaveableObject for a graph iterator: `tf.train.Saver` saves the iterator's
    position in a session under `<name>_STATE` (an int64 vector, see
    `iterator_ops._Iteration`) and restores it into the session's pass."""

    def __init__(self, iterator, name):
        self.name = name
        self.checkpoint_key = name + "_STATE"
        self._iterator = iterator

    def _saver_value(self, session):
        return self._iterator._save_position(session)

    def _saver_restore(self, value, session):
        self._iterator._restore_position(value, session)


@tf_export("data.experimental.make_saveable_from_iterator")
def make_saveable_from_iterator(iterator, external_state_policy=None):
    """A saveable for a graph iterator; add it to the SAVEABLE_OBJECTS collection (or a
    Saver's var_list) and `tf.train.Saver` saves and restores the iterator's position.
    As in TF, eager iterators have no resource name: save them with tf.train.Checkpoint."""
    if isinstance(iterator, OwnedIterator):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled "
                             "(make_saveable_from_iterator needs a graph iterator; save an "
                             "eager iterator with tf.train.Checkpoint(iterator=...))")
    if not isinstance(iterator, Iterator):
        raise TypeError("make_saveable_from_iterator expects a tf.data Iterator, got %r"
                        % (iterator,))
    name = iterator._graph.unique_name("OneShotIterator" if iterator._one_shot
                                       else "Iterator")
    return IteratorSaveable(iterator, name + ":0")
