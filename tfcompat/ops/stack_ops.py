"""TF's stack kernels as `tf.raw_ops` (`gen_data_flow_ops`: `StackV2`, `StackPushV2`,
`StackPopV2`, `StackCloseV2`): what TF 1's gradient of a while loop records (a forward
loop pushes the values its gradient needs, the gradient loop pops them, last first), so
a TF1 training graph through a while loop imports.

A stack is a `Stack` object (StackV2's handle; it flows between nodes as itself) whose
elements live in Python while a run goes: StackV2 is a node emptying it (TF makes a new
stack each run), pushes and pops are nodes after it that change it when they run. A
TensorArray pushed (TF pushes a TensorArray's scalar flow, which only orders its ops) is
pushed as a scalar zero.
Where we differ: one graph's stack is shared by the runs of that graph in progress at
once (runs in several threads would mix their elements); `max_size` is not enforced.
"""
import torch

from tfcompat.framework import dtypes, errors
from tfcompat.framework.custom_op import run_op
from tfcompat.framework.ops import convert_to_tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import control_flow_ops
from tfcompat.ops.raw_ops import raw_op
from tfcompat.ops.tensor_array_ops import TensorArray


class Stack(object):
    """A stack of `elem_type` tensors; `created` is the scalar that StackV2's node gives
    after emptying it (what its pushes and pops run after)."""

    def __init__(self, elem_type, name):
        self.elem_type = dtypes.as_dtype(elem_type)
        self.name = name
        self.element_shape = TensorShape(None)
        self.items = []
        self.created = None

    def empty(self):
        del self.items[:]
        return torch.zeros((), dtype=torch.int32)

    def push(self, value):
        self.items.append(value)
        return value

    def pop(self):
        if not self.items:
            raise errors.InvalidArgumentError(
                "Stack %s is empty when calling Pop()." % (self.name or "stack"))
        return self.items.pop()


@raw_op("StackV2", records_itself=True)
def _stack_v2(max_size, elem_type, stack_name="", name=None):
    stack = Stack(elem_type, stack_name or name)
    stack.created = run_op(lambda unused_size: (stack.empty(),), "StackV2", [max_size],
                           [(dtypes.int32, TensorShape([]))], name=name, pure=False)[0]
    return stack


@raw_op("StackPushV2", records_itself=True)
def _stack_push_v2(handle, elem, swap_memory=False, name=None):
    """`elem`, pushed when the node runs (a TensorArray: see the module docstring)."""
    if isinstance(elem, TensorArray):
        run_op(lambda unused_created: (handle.push(torch.zeros((), dtype=torch.float32)),),
               "StackPushV2", [handle.created], [(dtypes.float32, TensorShape([]))],
               name=name, pure=False)
        handle.element_shape = TensorShape([])
        return elem
    elem = convert_to_tensor(elem, handle.elem_type)
    value = run_op(lambda unused_created, value: (handle.push(value),), "StackPushV2",
                   [handle.created, elem], [(handle.elem_type, elem.shape)],
                   name=name, pure=False)[0]
    handle.element_shape = handle.element_shape.most_specific_compatible_shape(value.shape) \
        if handle.element_shape.rank is not None else value.shape
    return value


@raw_op("StackPopV2", records_itself=True)
def _stack_pop_v2(handle, elem_type, name=None):
    """The last element pushed and not popped, of the shape the pushes had."""
    return run_op(lambda unused_created: (handle.pop(),), "StackPopV2", [handle.created],
                  [(dtypes.as_dtype(elem_type), handle.element_shape)], name=name,
                  pure=False)[0]


@raw_op("StackCloseV2", records_itself=True)
def _stack_close_v2(handle, name=None):
    """Nothing to release: a no-op (None when eager)."""
    return control_flow_ops.no_op(name=name)
