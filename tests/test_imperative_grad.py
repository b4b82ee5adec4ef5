"""imperative_grad.grad: torch's autograd engine entered directly for plain tensors, with
torch.autograd.grad's results and errors."""
import pytest
import torch
from torch.overrides import TorchFunctionMode

from tfcompat.eager import imperative_grad


def _graph():
    w = torch.randn(3, 2, requires_grad=True)
    b = torch.randn(2, requires_grad=True)
    unused = torch.randn(4, requires_grad=True)
    y = torch.tanh(torch.randn(5, 3) @ w + b)
    return y, [w, b, unused]


def test_gradients_match_torch_autograd_grad(monkeypatch):
    y, inputs = _graph()
    seed = torch.randn(5, 2)
    expected = torch.autograd.grad([y], inputs, [seed], retain_graph=True, allow_unused=True)
    monkeypatch.setattr(torch.autograd, "grad", None)     # the direct path: not called
    got = imperative_grad.grad([y], inputs, [seed], False, False)
    assert got[2] is None and expected[2] is None
    for g, e in zip(got[:2], expected[:2]):
        torch.testing.assert_close(g, e)


def test_retain_and_create_graph_are_honoured():
    y, inputs = _graph()
    seed = torch.ones_like(y)
    first = imperative_grad.grad([y], inputs[:1], [seed], True, True)[0]
    assert first.requires_grad                       # create_graph: differentiable again
    imperative_grad.grad([y], inputs[:1], [seed], False, False)
    with pytest.raises(RuntimeError, match="a second time"):
        imperative_grad.grad([y], inputs[:1], [seed], False, False)


def test_errors_are_torchs():
    y, inputs = _graph()
    with pytest.raises(RuntimeError, match="[Mm]ismatch in shape"):
        imperative_grad.grad([y], inputs, [torch.ones(2)], True, False)
    with pytest.raises(RuntimeError, match="does not require grad"):
        imperative_grad.grad([torch.ones(2)], inputs, [torch.ones(2)], True, False)


def test_torch_function_modes_and_batched_seeds_take_torchs_own_path():
    calls = []

    class Recording(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            calls.append(func)
            return func(*args, **(kwargs or {}))

    y, inputs = _graph()
    with Recording():
        grads = imperative_grad.grad([y], inputs[:2], [torch.ones_like(y)], True, False)
    assert torch.autograd.grad in calls and grads[0].shape == (3, 2)
    rows = torch.eye(2).reshape(2, 1, 2).expand(2, 5, 2)
    batched = imperative_grad.grad([y], inputs[:1], [rows], True, False, is_grads_batched=True)
    assert batched[0].shape == (2, 3, 2)
