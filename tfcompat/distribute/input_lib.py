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
from tfcompat.data import dataset_ops, optional_ops
from tfcompat.data.options import AutoShardPolicy
from tfcompat.framework import errors, ops
from tfcompat.framework.tensor import EagerTensor
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


def _rows(element, start, stop):
    def cut(t):
        if type(t) is EagerTensor:
            return EagerTensor(t._t[start:stop])
        return ops.convert_to_tensor(t)[start:stop]
    return map_structure(cut, element)


def _leading_size(element):
    """The number of rows of a batch (its first component's leading dimension)."""
    return int(flatten(element)[0].shape[0])


def _policy(dataset):
    options = dataset.options() if hasattr(dataset, "options") else None
    distribute = getattr(options, "experimental_distribute", None)
    return getattr(distribute, "auto_shard_policy", AutoShardPolicy.AUTO) \
        if distribute is not None else AutoShardPolicy.AUTO


@tf_export("distribute.DistributedDataset")
class DistributedDataset(object):
    """A dataset whose iterators give this worker's replica its part of each element."""

    def __init__(self, dataset, workers, options=None):
        self._dataset = dataset
        self._workers = workers
        self._options = options
        self._split = workers is not None and workers.size > 1 and \
            _policy(dataset) != AutoShardPolicy.OFF

    def __iter__(self):
        return DistributedIterator(self)

    @property
    def element_spec(self):
        spec = self._dataset.element_spec
        if not self._split:
            return spec
        if not _static_batch_size(self._dataset)[1]:
            return spec
        return map_structure(lambda s: dataset_ops._batched_spec(
            dataset_ops._unbatched_spec(s), None), spec)

    def _local_elements(self):
        if not self._split:
            yield from self._dataset
            return
        rank, size = self._workers.rank, self._workers.size
        global_size, batched = _static_batch_size(self._dataset)
        for index, element in enumerate(self._dataset):
            if not batched:
                if index % size == rank:
                    yield element
                continue
            rows = _leading_size(element)
            sizes = replica_batch_sizes(global_size or rows, size)
            start = sum(sizes[:rank])
            yield _rows(element, min(start, rows), min(start + sizes[rank], rows))

    def reduce(self, initial_state, reduce_fn):
        state = initial_state
        for element in self:
            state = reduce_fn(state, element)
        return state

    def __repr__(self):
        return "<tf.distribute.DistributedDataset of %r>" % (self._dataset,)


@tf_export("distribute.DistributedIterator")
class DistributedIterator(object):
    """An iterator over a DistributedDataset (`next`, `get_next`, `get_next_as_optional`)."""

    def __init__(self, distributed_dataset):
        self._distributed = distributed_dataset
        self._elements = distributed_dataset._local_elements()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._elements)

    def get_next(self, name=None):
        try:
            return next(self._elements)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence")

    def get_next_as_optional(self):
        try:
            return optional_ops.Optional.from_value(next(self._elements))
        except StopIteration:
            return optional_ops.Optional.empty(self._distributed.element_spec)

    @property
    def element_spec(self):
        return self._distributed.element_spec
