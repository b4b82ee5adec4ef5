"""TF1 queue-based input pipelines: `tf.train.string_input_producer`, `slice_input_producer`,
`range_input_producer`, `input_producer`, `limit_epochs`, `match_filenames_once`, and the
batching functions `batch`, `batch_join`, `shuffle_batch`, `shuffle_batch_join` and their
`maybe_*` forms.

Built as TF builds them: producers fill a FIFOQueue (shuffled each epoch with `seed`),
batching functions fill a FIFOQueue / PaddingFIFOQueue (`dynamic_pad`) / RandomShuffleQueue
and dequeue `batch_size` (up to it with `allow_smaller_final_batch`); each adds a QueueRunner
to GraphKeys.QUEUE_RUNNERS and TF's queue-fullness scalar summary. `num_epochs` counts in a
local variable (run `tf.local_variables_initializer()`), and the producer's queue closes after
the last epoch, so the dequeue downstream ends with OutOfRangeError. A list holding a single
tensor is batched into a tensor, not a list, as in TF. Not supported: SparseTensor inputs
(NotImplementedError). Producers raise RuntimeError and batching functions ValueError when
eager execution is enabled, as TF does.
"""
from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, ops
from tfcompat.framework.graph import GraphKeys, get_default_graph
from tfcompat.framework.tensor_shape import TensorShape, as_shape
from tfcompat.ops import array_ops, check_ops, math_ops, random_ops
from tfcompat.io import io_ops
from tfcompat.ops import data_flow_ops
from tfcompat.ops.sparse_ops import SparseTensor
from tfcompat.summary import summary
from tfcompat.train.queue_runner import QueueRunner, add_queue_runner
from tfcompat.variables import Variable

_EAGER_QUEUES = ("Input pipelines based on Queues are not supported when eager execution is "
                 "enabled. Please use tf.data to ingest data into your model instead.")


def _check_graph_mode(error_class):
    if context.executing_eagerly():
        raise error_class(_EAGER_QUEUES)


# ---------------------------------------------------------------- producers


@tf_export("io.match_filenames_once", v1=["io.match_filenames_once",
                                          "train.match_filenames_once"])
def match_filenames_once(pattern, name=None):
    """The (sorted) files matching `pattern`. TF returns a local variable initialized to
    them; tfcompat returns the `tf.io.matching_files` tensor (string variables do not work
    in tfcompat's graph mode yet), so the list is made again each time it is evaluated."""
    with ops.name_scope(name, "matching_filenames", [pattern]) as scope:
        return io_ops.matching_files(pattern, name=scope)


@tf_export(v1=["train.limit_epochs"])
def limit_epochs(tensor, num_epochs=None, name=None):
    """`tensor`, `num_epochs` times; then OutOfRangeError (counted in the local variable
    "epochs")."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError("num_epochs must be > 0 not %d." % num_epochs)
    with ops.name_scope(name, "limit_epochs", [tensor]) as scope:
        epochs = Variable(ops.convert_to_tensor(0, dtype=dtypes.int64), name="epochs",
                          trainable=False, collections=[GraphKeys.LOCAL_VARIABLES])
        counter = epochs.count_up_to(num_epochs)
        with get_default_graph().control_dependencies([counter]):
            return array_ops.identity(tensor, name=scope)


@tf_export(v1=["train.input_producer"])
def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None,
                   capacity=32, shared_name=None, summary_name=None, name=None,
                   cancel_op=None):
    """A FIFOQueue filled with the rows of `input_tensor`, epoch after epoch."""
    _check_graph_mode(RuntimeError)
    with ops.name_scope(name, "input_producer", [input_tensor]):
        input_tensor = ops.convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(
            TensorShape(None) if element_shape is None else as_shape(element_shape))
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        queue = data_flow_ops.FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype],
                                        shapes=[element_shape], shared_name=shared_name,
                                        name=name if name is not None else "fifo_queue")
        enqueue = queue.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(queue, [enqueue], cancel_op=cancel_op))
        if summary_name is not None:
            summary.scalar(summary_name, math_ops.cast(queue.size(), dtypes.float32) *
                           (1.0 / capacity))
        return queue


@tf_export(v1=["train.string_input_producer"])
def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):
    """A queue of the strings (filenames) of a 1-D string tensor, for a reader."""
    not_null_error = "string_input_producer requires a non-null input tensor"
    if not ops.is_tensor(string_tensor) and not len(string_tensor):
        raise ValueError(not_null_error)
    _check_graph_mode(RuntimeError)
    with ops.name_scope(name, "input_producer", [string_tensor]) as scope:
        string_tensor = ops.convert_to_tensor(string_tensor, dtype=dtypes.string)
        check = check_ops.Assert(math_ops.greater(array_ops.size(string_tensor), 0),
                                 [not_null_error])
        with get_default_graph().control_dependencies([check]):
            string_tensor = array_ops.identity(string_tensor)
        return input_producer(string_tensor, element_shape=[], num_epochs=num_epochs,
                              shuffle=shuffle, seed=seed, capacity=capacity,
                              shared_name=shared_name, name=scope,
                              summary_name="fraction_of_%d_full" % capacity,
                              cancel_op=cancel_op)


@tf_export(v1=["train.range_input_producer"])
def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """A queue of the integers 0 .. limit-1."""
    _check_graph_mode(RuntimeError)
    with ops.name_scope(name, "input_producer", [limit]) as scope:
        return input_producer(array_ops.range(limit), [], num_epochs, shuffle, seed, capacity,
                              shared_name, "fraction_of_%d_full" % capacity, scope)


@tf_export(v1=["train.slice_input_producer"])
def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """One row of each tensor of `tensor_list` (the same row of each), row after row."""
    _check_graph_mode(RuntimeError)
    with ops.name_scope(name, "input_producer", list(tensor_list)):
        tensor_list = [ops.convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        rows = tensor_list[0].shape[0].value if tensor_list[0].shape.rank else None
        range_size = int(rows) if rows is not None else array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        rows = [array_ops.gather(t, index) for t in tensor_list]
        for row, tensor in zip(rows, tensor_list):
            row.set_shape(tensor.shape[1:])     # known even where a string dim is not
        return rows


# ---------------------------------------------------------------- batching helpers


def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected_keys = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected_keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(tensors) for tensors in tensors_list]
    return tensors_list


def _as_original_type(original_tensors, tensor_list):
    if isinstance(original_tensors, dict):
        if len(original_tensors) == 1:
            tensor_list = [tensor_list]
        return {k: tensor_list[i] for i, k in enumerate(sorted(original_tensors, key=str))}
    return tensor_list


def _validate(tensor_list, what="batch()"):
    if any(isinstance(t, SparseTensor) for t in tensor_list):
        raise NotImplementedError("Batching SparseTensors with tf.train.%s is not implemented "
                                  "by tfcompat; densify them (tf.sparse.to_dense) first"
                                  % what.rstrip("()"))
    tensor_list = [ops.convert_to_tensor(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in %s." % what)
    return tensor_list


def _validate_keep_input(keep_input, enqueue_many):
    """(keep_input as a tensor, or None when it is the Python value True)."""
    if keep_input is True:
        return None
    keep_input = ops.convert_to_tensor(keep_input, dtype=dtypes.bool)
    if keep_input.shape.rank is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.rank == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.rank > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _dtypes(tensor_list_list):
    types = [t.dtype for t in tensor_list_list[0]]
    for tensor_list in tensor_list_list[1:]:
        other = [t.dtype for t in tensor_list]
        if other != types:
            raise TypeError("Expected types to be consistent: %s vs. %s."
                            % (", ".join(x.name for x in types),
                               ", ".join(x.name for x in other)))
    return types


def _shapes(tensor_list_list, shapes, enqueue_many):
    """The element shapes: `shapes`, or the merged static shapes of the inputs."""
    if shapes is not None:
        return shapes
    merged = []
    for i in range(len(tensor_list_list[0])):
        shape = TensorShape(None)
        for tensor_list in tensor_list_list:
            tensor_shape = tensor_list[i].shape
            if tensor_shape.rank is None:
                raise ValueError("Cannot infer Tensor's rank: %s" % tensor_list[i])
            if enqueue_many:
                tensor_shape = tensor_shape.with_rank_at_least(1)[1:]
            shape = shape.merge_with(tensor_shape)
        merged.append(shape.as_list())
    return merged


def _enqueue_ops(queue, tensor_list_list, enqueue_many, keep_input):
    """One enqueue op per tensor list; a scalar `keep_input` enqueues only when true, a
    vector one (with enqueue_many) keeps the rows where it is true."""
    ops_out = []
    for tensor_list in tensor_list_list:
        keep = keep_input
        if keep is not None and keep.shape.rank == 1:
            tensor_list = [array_ops.boolean_mask(t, keep) for t in tensor_list]
            keep = None
        ops_out.append(queue._enqueue_op(tensor_list, enqueue_many, None, keep))
    return ops_out


def _dequeue(queue, batch_size, allow_smaller_final_batch, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _fifo_batch(tensors_list, original, batch_size, keep_input, threads, capacity,
                enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch, shared_name,
                name, default_name):
    """batch / batch_join: a FIFOQueue (PaddingFIFOQueue with dynamic_pad)."""
    _check_graph_mode(ValueError)
    flat = [t for tensor_list in tensors_list for t in tensor_list]
    with ops.name_scope(name, default_name, flat) as scope:
        tensors_list = [_validate(t, default_name + "()") for t in tensors_list]
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes(tensors_list)
        shapes = _shapes(tensors_list, shapes, enqueue_many)
        queue_class = data_flow_ops.PaddingFIFOQueue if dynamic_pad else \
            data_flow_ops.FIFOQueue
        queue = queue_class(capacity=capacity, dtypes=types, shapes=shapes,
                            shared_name=shared_name)
        enqueue_ops = _enqueue_ops(queue, tensors_list, enqueue_many, keep_input)
        add_queue_runner(QueueRunner(queue, enqueue_ops * threads))
        summary.scalar("fraction_of_%d_full" % capacity,
                       math_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(original, dequeued)


def _shuffle_batch(tensors_list, original, batch_size, capacity, min_after_dequeue,
                   keep_input, threads, seed, enqueue_many, shapes, allow_smaller_final_batch,
                   shared_name, name, default_name):
    """shuffle_batch / shuffle_batch_join: a RandomShuffleQueue."""
    _check_graph_mode(ValueError)
    flat = [t for tensor_list in tensors_list for t in tensor_list]
    with ops.name_scope(name, default_name, flat) as scope:
        if capacity <= min_after_dequeue:
            raise ValueError("capacity %d must be bigger than min_after_dequeue %d."
                             % (capacity, min_after_dequeue))
        tensors_list = [_validate(t, default_name + "()") for t in tensors_list]
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes(tensors_list)
        shapes = _shapes(tensors_list, shapes, enqueue_many)
        queue = data_flow_ops.RandomShuffleQueue(
            capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed, dtypes=types,
            shapes=shapes, shared_name=shared_name)
        enqueue_ops = _enqueue_ops(queue, tensors_list, enqueue_many, keep_input)
        add_queue_runner(QueueRunner(queue, enqueue_ops * threads))
        full = math_ops.cast(math_ops.maximum(0, queue.size() - min_after_dequeue),
                             dtypes.float32) * (1.0 / (capacity - min_after_dequeue))
        summary.scalar("fraction_over_%d_of_%d_full" % (min_after_dequeue,
                                                        capacity - min_after_dequeue), full)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(original, dequeued)


# ---------------------------------------------------------------- batching functions


@tf_export(v1=["train.batch"])
def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of `tensors` (a list or dict of tensors) from a FIFO queue."""
    return _fifo_batch([_as_tensor_list(tensors)], tensors, batch_size, True, num_threads,
                       capacity, enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch,
                       shared_name, name, "batch")


@tf_export(v1=["train.maybe_batch"])
def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32,
                enqueue_many=False, shapes=None, dynamic_pad=False,
                allow_smaller_final_batch=False, shared_name=None, name=None):
    """`batch` of the inputs for which `keep_input` is true."""
    return _fifo_batch([_as_tensor_list(tensors)], tensors, batch_size, keep_input,
                       num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name, "batch")


@tf_export(v1=["train.batch_join"])
def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
               name=None):
    """Batches from one FIFO queue filled by one thread per entry of `tensors_list`."""
    return _fifo_batch(_as_tensor_list_list(tensors_list), tensors_list[0], batch_size, True,
                       1, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name, "batch_join")


@tf_export(v1=["train.maybe_batch_join"])
def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False,
                     shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                     shared_name=None, name=None):
    """`batch_join` of the inputs for which `keep_input` is true."""
    return _fifo_batch(_as_tensor_list_list(tensors_list), tensors_list[0], batch_size,
                       keep_input, 1, capacity, enqueue_many, shapes, dynamic_pad,
                       allow_smaller_final_batch, shared_name, name, "batch_join")


@tf_export(v1=["train.shuffle_batch"])
def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """Batches of `tensors` in random order from a RandomShuffleQueue."""
    return _shuffle_batch([_as_tensor_list(tensors)], tensors, batch_size, capacity,
                          min_after_dequeue, True, num_threads, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name, "shuffle_batch")


@tf_export(v1=["train.maybe_shuffle_batch"])
def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    """`shuffle_batch` of the inputs for which `keep_input` is true."""
    return _shuffle_batch([_as_tensor_list(tensors)], tensors, batch_size, capacity,
                          min_after_dequeue, keep_input, num_threads, seed, enqueue_many,
                          shapes, allow_smaller_final_batch, shared_name, name,
                          "shuffle_batch")


@tf_export(v1=["train.shuffle_batch_join"])
def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """Shuffled batches from one RandomShuffleQueue filled by one thread per entry of
    `tensors_list`."""
    return _shuffle_batch(_as_tensor_list_list(tensors_list), tensors_list[0], batch_size,
                          capacity, min_after_dequeue, True, 1, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name, "shuffle_batch_join")


@tf_export(v1=["train.maybe_shuffle_batch_join"])
def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                             seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None, name=None):
    """`shuffle_batch_join` of the inputs for which `keep_input` is true."""
    return _shuffle_batch(_as_tensor_list_list(tensors_list), tensors_list[0], batch_size,
                          capacity, min_after_dequeue, keep_input, 1, seed, enqueue_many,
                          shapes, allow_smaller_final_batch, shared_name, name,
                          "shuffle_batch_join")
