"""The one call that computes gradients from torch's autograd graph, for both modes.

`GradientTape.gradient` (eager) and `tf.gradients` nodes (graph runs) differentiate through
`grad`. For the common case (plain tensors, seeds of the outputs' shapes and dtypes, no
torch function modes or functorch transforms, not being compiled) it enters torch's
autograd engine directly, as `torch.autograd.grad` does after its argument checks: those
checks cost ~40 us of Python per call (measured on torch 2.14, CPU), a sizeable part of a
small model's train step. Everything else goes through `torch.autograd.grad`.
"""
import contextvars

import torch
from torch.autograd.variable import Variable


def grad(outputs, inputs, grad_outputs, retain_graph, create_graph, is_grads_batched=False):
    """`torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
    allow_unused=True, is_grads_batched)`: a tuple with None for unreached inputs."""
    outputs, inputs, grad_outputs = tuple(outputs), tuple(inputs), tuple(grad_outputs)
    if is_grads_batched or not _plain(outputs, inputs, grad_outputs):
        return torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph=retain_graph,
                                   create_graph=create_graph, allow_unused=True,
                                   is_grads_batched=is_grads_batched)
    for output in outputs:
        if not output.is_cpu:
            # autograd's device threads see the caller's context (compiler settings)
            torch._C._stash_obj_in_tls("context", contextvars.copy_context())
            try:
                return _run_backward(outputs, grad_outputs, retain_graph, create_graph,
                                     inputs, True, False)
            finally:
                torch._C._remove_obj_from_tls("context")
    return _run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs, True, False)


_run_backward = Variable._execution_engine.run_backward


def _plain(outputs, inputs, grad_outputs):
    """Whether torch.autograd.grad's checks and dispatch would find nothing to do."""
    if len(outputs) != len(grad_outputs) or torch.compiler.is_compiling() or \
            torch._C._functorch.peek_interpreter_stack() is not None:
        return False
    tensors = outputs + inputs
    if torch._C._has_torch_function(tensors):
        return False
    for t in tensors:
        if type(t) is not torch.Tensor:
            return False
    for output, seed in zip(outputs, grad_outputs):
        if type(seed) is not torch.Tensor or seed.shape != output.shape or \
                seed.dtype != output.dtype or seed.device != output.device or output.is_nested:
            return False
    return True
