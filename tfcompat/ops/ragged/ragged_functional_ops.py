"""`tf.ragged.map_flat_values` (TF's tensorflow/python/ops/ragged/ragged_functional_ops.py)."""
from tfcompat._api import tf_export
from tfcompat.ops.ragged.ragged_tensor import RaggedTensor, _same_splits_op, _static_size


def _ragged_inputs(structure, found):
    """Collect the RaggedTensors in (nested lists/tuples/dicts of) arguments."""
    if isinstance(structure, RaggedTensor):
        found.append(structure)
    elif isinstance(structure, (list, tuple)):
        for item in structure:
            _ragged_inputs(item, found)
    elif isinstance(structure, dict):
        for item in structure.values():
            _ragged_inputs(item, found)
    return found


def _with_flat_values(structure):
    if isinstance(structure, RaggedTensor):
        return structure.flat_values
    if isinstance(structure, (list, tuple)):
        return type(structure)(_with_flat_values(item) for item in structure)
    if isinstance(structure, dict):
        return {key: _with_flat_values(item) for key, item in structure.items()}
    return structure


def _common_splits(ragged):
    """The nested row splits the ragged inputs share (TF checks they are identical)."""
    first = ragged[0]
    splits = list(first.nested_row_splits)
    for other in ragged[1:]:
        if other.ragged_rank != first.ragged_rank:
            raise ValueError("All ragged inputs must have the same ragged_rank.")
        for level, other_splits in enumerate(other.nested_row_splits):
            if other_splits is not splits[level]:
                splits[level] = _same_splits_op(splits[level], other_splits)
    return splits


@tf_export("ragged.map_flat_values")
def map_flat_values(op, *args, **kwargs):
    """`op` applied to the flat_values of the RaggedTensors among the arguments; the result
    keeps their (identical, else InvalidArgumentError) nested row splits. Without ragged
    arguments it is `op(*args, **kwargs)`."""
    ragged = _ragged_inputs([args, kwargs], [])
    if not ragged:
        return op(*args, **kwargs)
    splits = _common_splits(ragged)
    result = op(*_with_flat_values(args), **_with_flat_values(kwargs))
    out_shape = getattr(result, "shape", None)
    if out_shape is None or out_shape.rank == 0:
        raise ValueError("tf.ragged.map_flat_values: `op` must return a Tensor with an outer "
                         "dimension, got %r" % (result,))
    nvals, out_rows = _static_size(ragged[0].flat_values), _static_size(result)
    if nvals is not None and out_rows is not None and out_rows != nvals:
        raise ValueError("tf.ragged.map_flat_values requires that the output of `op` have the "
                         "same outer-dimension size as flat_values of any ragged inputs. (output "
                         "shape: %s; expected outer dimension size: %d)" % (out_shape, nvals))
    return _partitioned_like(ragged[0], splits, result)


def _partitioned_like(template, nested_splits, flat_values):
    """`flat_values` with `nested_splits` and the uniform row lengths of `template`."""
    values = flat_values if not isinstance(template.values, RaggedTensor) else \
        _partitioned_like(template.values, nested_splits[1:], flat_values)
    return RaggedTensor(values, nested_splits[0], internal=True,
                        uniform_row_length=template.uniform_row_length)
