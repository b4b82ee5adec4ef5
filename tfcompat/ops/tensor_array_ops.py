"""`tf.TensorArray`: a list of same-shaped tensors written and read by index.

The elements are kept stacked in one tensor (`[size] + element_shape`), so a TensorArray in
a graph is that one storage tensor and each write is one op producing the new storage. As
in TF 2, an eager TensorArray is updated in place (write returns it), a graph one returns a
new TensorArray (use what `write` returns); tf.while_loop carries TensorArrays. The element
shape is inferred from the first write when not given (`infer_shape`), and writes of another
shape raise TF's "Inconsistent shapes" ValueError.
Where we differ: elements must all have one shape (TF's `infer_shape=False` allows ragged
elements for `concat`); string TensorArrays, `split`, `grad` and `handle` are not supported;
`flow` is the storage tensor (TF's is a scalar that only orders the ops); `close` does nothing.
Under torch.export an index computed by the program is checked when the program runs
(torch's runtime assertion), and an array cannot grow there (`dynamic_size` writes at such
indices raise NotImplementedError).
"""
import torch

from tfcompat._api import tf_export
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.constant_op import known_values
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.tensor import EagerTensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import array_ops

_state = context.state


def _storage_op(fn, op_type, inputs, dtype, static_shape):
    """`fn(*torch values)` as an op whose output has `static_shape` (None dims unknown)."""
    return run_op(lambda *values: (fn(*values),), op_type, inputs,
                  [(dtype, TensorShape(static_shape))])[0]


def _known_int(value):
    """The Python int `value` holds when known while building (an int or eager tensor)."""
    if isinstance(value, int):
        return value
    if isinstance(value, EagerTensor):
        return int(value._t)
    return None


def _allocated(storage, element_shape):
    """`storage`, or zeros for elements of `element_shape` when it holds no values yet and
    was made before its element shape was known (unknown dims 0: a loop carried it, or a
    graph made it for elements with an unknown batch size)."""
    if storage.numel() == 0 and tuple(storage.shape[1:]) != tuple(element_shape):
        return storage.new_zeros((storage.shape[0],) + tuple(element_shape))
    return storage


def _position(index):
    """An index's (or size's) int value: a Python int, or under torch.export a symbolic
    int (the size it holds, `known_values`, or a value the program computes)."""
    if not isinstance(index, torch.Tensor):
        return int(index)
    known = known_values(index)
    return known[0] if known is not None else index.reshape(()).item()


def _check_in_program(last, size, dynamic_size):
    """Under torch.export, where `last` (the highest index accessed) is a value of the
    program: the storage cannot grow inside a program, and an index out of range fails when
    the program runs (torch's runtime assertion; TF's InvalidArgumentError eagerly)."""
    if dynamic_size:
        raise NotImplementedError(
            "A TensorArray with dynamic_size=True written at an index the function computes "
            "cannot be exported with torch.export (its size would change as the program "
            "runs); give the TensorArray its size")
    torch._check(last >= 0, lambda: "TensorArray index out of range")
    torch._check(last < size, lambda: "TensorArray index out of range")


def _written(storage, index, value, dynamic_size):
    index, size = _position(index), storage.shape[0]
    if isinstance(index, torch.SymInt):
        _check_in_program(index, size, dynamic_size)
        return _allocated(storage, value.shape).select_scatter(value, 0, index)
    if index < 0 or (index >= size and not dynamic_size):
        raise errors.InvalidArgumentError(
            "Tried to write to index %d but array is not resizeable and size is: %d"
            % (index, size))
    storage = _allocated(storage, value.shape)
    if index >= size:
        padding = storage.new_zeros((index + 1 - size,) + tuple(storage.shape[1:]))
        storage = torch.cat([storage, padding])
    else:
        storage = storage.clone()
    storage[index] = value
    return storage


def _read(storage, index):
    index, size = _position(index), storage.shape[0]
    if isinstance(index, torch.SymInt):
        _check_in_program(index, size, False)
        return storage.select(0, index)
    if not 0 <= index < size:
        raise errors.InvalidArgumentError(
            "Tried to read from index %d but array size is: %d" % (index, size))
    return storage[index]


def _scattered(storage, indices, value, dynamic_size):
    storage = _allocated(storage, value.shape[1:])
    indices = indices.long()
    size = storage.shape[0]
    last = _position(indices.max()) if indices.numel() else -1
    if isinstance(last, torch.SymInt):
        _check_in_program(last, size, dynamic_size)
        return storage.index_put((indices,), value)
    if last >= size:
        if not dynamic_size:
            raise errors.InvalidArgumentError(
                "Tried to write to index %d but array is not resizeable and size is: %d"
                % (last, size))
        padding = storage.new_zeros((last + 1 - size,) + tuple(storage.shape[1:]))
        storage = torch.cat([storage, padding])
    else:
        storage = storage.clone()
    storage[indices] = value
    return storage


@tf_export("TensorArray")
class TensorArray(object):
    """`tf.TensorArray(dtype, size, dynamic_size, ..., element_shape)`."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None or flow is not None:
            raise NotImplementedError("tf.TensorArray(handle=..., flow=...) is not supported "
                                      "by tfcompat")
        if size is None:
            raise ValueError("Size must be provided if handle is not provided")
        self._dtype = dtypes.as_dtype(dtype)
        if self._dtype is dtypes.string:
            raise NotImplementedError("tf.TensorArray of tf.string is not supported by "
                                      "tfcompat")
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = TensorShape(element_shape)
        self._size = size
        self._storage = None
        if self._element_shape.is_fully_defined():
            self._storage = self._zeros(self._element_shape)

    def _zeros(self, element_shape):
        """Zero storage for `self._size` elements of `element_shape` (fully defined)."""
        dims = element_shape.as_list()
        size = _known_int(self._size)
        if size is not None:
            return array_ops.zeros([size] + dims, self._dtype)
        torch_dtype, device = self._dtype.torch_dtype, context.current_device()
        return _storage_op(
            lambda n: torch.zeros([_position(n)] + dims, dtype=torch_dtype, device=device),
            "TensorListReserve", [self._size], self._dtype, [None] + dims)

    def _copy(self, storage, element_shape=None):
        result = object.__new__(TensorArray)
        result.__dict__.update(self.__dict__)
        result._storage = storage
        if element_shape is not None:
            result._element_shape = element_shape
        return result

    def _with_storage(self, storage, element_shape):
        """The array after a write: this one updated in place when eager (TF 2's eager
        TensorArray), a new one in a graph."""
        if _state.building_graph:
            return self._copy(storage, element_shape)
        self._storage, self._element_shape = storage, element_shape
        return self

    # ------------------------------------------------------------ tf.while_loop support
    def _loop_storage(self, element_shape=None):
        """The tensor a loop carries for this array: its storage, or when nothing was
        written yet zeros of `element_shape` (learnt from the loop body), else of the
        declared element shape (unknown dims 0), else scalars."""
        if self._storage is not None:
            return self._storage
        if element_shape is None:
            element_shape = self._element_shape if self._element_shape.rank is not None \
                else TensorShape([])
        return self._zeros(TensorShape([d if d is not None else 0
                                        for d in element_shape.as_list()]))

    def _from_loop_storage(self, storage, element_shape=None):
        """This array holding a loop's carried `storage`; its element shape stays as known
        before the loop unless `element_shape` (learnt in the loop body) is given."""
        return self._copy(storage, element_shape)

    # ------------------------------------------------------------ properties
    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def element_shape(self):
        return self._element_shape

    @property
    def flow(self):
        return self._loop_storage()

    @property
    def handle(self):
        raise NotImplementedError("tf.TensorArray.handle is not supported by tfcompat")

    # ------------------------------------------------------------ element access
    def _checked_value(self, value, element_shape_of):
        value = ops.convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype != self._dtype:
            raise errors.InvalidArgumentError(
                "TensorArray dtype is %s but Op is trying to write dtype %s "
                % (self._dtype.name, value.dtype.name))
        shape = element_shape_of(value.shape)
        if self._infer_shape and not shape.is_compatible_with(self._element_shape):
            raise ValueError("Inconsistent shapes: saw %s but expected %s "
                             % (shape, self._element_shape))
        return value, shape.merge_with(self._element_shape) if self._infer_shape else shape

    def _current_storage(self, element_shape):
        return self._loop_storage(element_shape)

    def _size_after(self, index):
        """The static size after writing at `index` (None when it is not known)."""
        size = self._static_size()
        index = _known_int(index)
        if size is not None and index is not None and index < size:
            return size
        return None if self._dynamic_size else size

    def _static_size(self):
        if self._storage is not None:
            return self._storage.shape.as_list()[0] if self._storage.shape.rank else None
        return _known_int(self._size)

    def write(self, index, value, name=None):
        """Write `value` at `index` (growing the array when `dynamic_size`)."""
        value, element_shape = self._checked_value(value, lambda shape: shape)
        storage = self._current_storage(element_shape)
        dynamic = self._dynamic_size
        new_storage = _storage_op(
            lambda s, i, v: _written(s, i, v, dynamic), "TensorArrayWriteV3",
            [storage, index, value], self._dtype,
            [self._size_after(index)] + element_shape.as_list())
        return self._with_storage(new_storage, element_shape)

    def read(self, index, name=None):
        """The element at `index`."""
        if self._storage is None and not self._element_shape.is_fully_defined():
            raise ValueError("TensorArray has size zero or no element written, and no "
                             "element_shape: cannot read index %s" % (index,))
        storage = self._current_storage(self._element_shape)
        return _storage_op(_read, "TensorArrayReadV3", [storage, index], self._dtype,
                           self._element_shape.as_list())

    def stack(self, name=None):
        """All elements stacked: `[size] + element_shape`."""
        return self._loop_storage()

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked."""
        return array_ops.gather(self._loop_storage(), indices)

    def concat(self, name=None):
        """The elements concatenated along their first dimension."""
        storage = self._loop_storage()
        if self._element_shape.rank == 0:
            raise errors.InvalidArgumentError(
                "Concat saw a scalar shape at index 0 but requires at least vectors.")
        return array_ops.reshape(storage, [-1] + self._element_shape.as_list()[1:])

    def unstack(self, value, name=None):
        """Write the rows of `value` as the elements 0, 1, ..."""
        value = ops.convert_to_tensor(value, dtype_hint=self._dtype)
        return self.scatter(array_ops.range(array_ops.shape(value)[0]), value)

    def scatter(self, indices, value, name=None):
        """Write the rows of `value` at `indices`."""
        value, element_shape = self._checked_value(value, lambda shape: shape[1:])
        storage = self._current_storage(element_shape)
        dynamic = self._dynamic_size
        new_storage = _storage_op(
            lambda s, i, v: _scattered(s, i, v, dynamic), "TensorArrayScatterV3",
            [storage, indices, value], self._dtype,
            [None if dynamic else self._static_size()] + element_shape.as_list())
        return self._with_storage(new_storage, element_shape)

    def split(self, value, lengths, name=None):
        raise NotImplementedError("tf.TensorArray.split is not supported by tfcompat")

    def size(self, name=None):
        """The number of elements, an int32 tensor."""
        if self._storage is None:
            return ops.convert_to_tensor(self._size, dtypes.int32)
        return array_ops.shape(self._storage)[0]

    def identity(self):
        return self._copy(array_ops.identity(self._loop_storage()))

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError("tf.TensorArray.grad is not supported by tfcompat")

    def close(self, name=None):
        """Nothing to release (the storage is an ordinary tensor)."""
        return None

    def __repr__(self):
        return "<tf.TensorArray dtype=%s element_shape=%s>" % (self._dtype.name,
                                                              self._element_shape)
