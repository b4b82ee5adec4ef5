"""Distributed datasets: each replica's part of a dataset (TF's DATA auto-sharding).

Every worker runs the whole input pipeline and keeps its own part, as TF's
`AutoShardPolicy.DATA` does: of a batched dataset, its slice of every global batch (TF's
rebatching: with global batch B and n replicas, replica i gets B // n rows, one more when
i < B % n; a short last batch is cut the same way, so late replicas may get fewer or none);
of an unbatched one, every n-th element. `AUTO` and `FILE` read every file on every worker
and shard the same way (TF gives each worker whole files instead: the same global batches
up to which examples each worker reads). `OFF` gives every replica the whole of every
element. Batches from `distribute_datasets_from_function` are per replica already.
"""
from tfcompat._api import tf_export
from tfcompat.data import dataset_ops
from tfcompat.data.options import AutoShardPolicy
from tfcompat.ops import array_ops, math_ops
from tfcompat.util.nest import flatten, map_structure


def replica_batch_sizes(global_batch_size, num_replicas):
    """TF's rebatch: how many rows of a global batch each replica gets."""
    base, extra = divmod(global_batch_size, num_replicas)
    return [base + (1 if i < extra else 0) for i in range(num_replicas)]


def _static_batch_size(dataset):
    """The batch size of a dataset's last batching (None when unbatched or symbolic), and
    whether it is batched at all."""
    while dataset is not None:
        if isinstance(dataset, dataset_ops.UnbatchDataset):
            return None, False
        if isinstance(dataset, (dataset_ops.BatchDataset, dataset_ops.PaddedBatchDataset)):
            size = dataset._size
            return (size if isinstance(size, int) else None), True
        inputs = getattr(dataset, "_inputs", ())
        dataset = inputs[0] if inputs else None
    return None, False


def _replica_part(dataset, rank, size):
    """The dataset of replica `rank`'s parts: its rows of every batch, or (unbatched) every
    `size`-th element from `rank`, as a tf.data pipeline so it also iterates in graphs."""
    global_size, batched = _static_batch_size(dataset)
    if not batched:
        return dataset.shard(size, rank)

    def rows(*element):
        element = element[0] if len(element) == 1 else element
        if global_size is not None:
            sizes = replica_batch_sizes(global_size, size)
            start, stop = sum(sizes[:rank]), sum(sizes[:rank + 1])
        else:
            count = array_ops.shape(flatten(element)[0])[0]
            base, extra = count // size, count % size
            start = base * rank + math_ops.minimum(extra, rank)
            stop = start + base + math_ops.cast(extra > rank, count.dtype)
        return map_structure(lambda t: t[start:stop], element)

    return dataset.map(rows)


def _policy(dataset):
    options = dataset.options() if hasattr(dataset, "options") else None
    distribute = getattr(options, "experimental_distribute", None)
    return getattr(distribute, "auto_shard_policy", AutoShardPolicy.AUTO) \
        if distribute is not None else AutoShardPolicy.AUTO


@tf_export("distribute.DistributedDataset")
class DistributedDataset(object):
    """A dataset whose iterators give this worker's replica its part of each element.

    Iterated eagerly, or in a tf.function (`for x in dist_dataset:` becomes TF's dataset
    loop), like the tf.data dataset of the parts it holds."""

    def __init__(self, dataset, workers, options=None):
        self._dataset = dataset
        self._options = options
        split = workers is not None and workers.size > 1 and \
            _policy(dataset) != AutoShardPolicy.OFF
        self._local = _replica_part(dataset, workers.rank, workers.size) if split \
            else dataset

    def __iter__(self):
        return DistributedIterator(self._local)

    @property
    def element_spec(self):
        return self._local.element_spec

    # what AutoGraph's dataset loop asks of a dataset (a loop inside a tf.function)
    def cardinality(self):
        return self._local.cardinality()

    def make_initializable_iterator(self, shared_name=None):
        return self._local.make_initializable_iterator(shared_name)

    def reduce(self, initial_state, reduce_fn):
        return self._local.reduce(initial_state, reduce_fn)

    def __repr__(self):
        return "<tf.distribute.DistributedDataset of %r>" % (self._dataset,)


@tf_export("distribute.DistributedIterator")
class DistributedIterator(object):
    """An iterator over a DistributedDataset (`next`, `get_next`, `get_next_as_optional`):
    the iterator of its parts' dataset."""

    def __init__(self, local_dataset):
        self._iterator = iter(local_dataset)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iterator)

    def get_next(self, name=None):
        return self._iterator.get_next()

    def get_next_as_optional(self):
        return self._iterator.get_next_as_optional()

    @property
    def element_spec(self):
        return self._iterator.element_spec
