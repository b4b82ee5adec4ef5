"""Float32 matrix products on oneDNN where torch's BLAS is slow, as TF's MatMul runs on oneDNN.

torch multiplies float32 matrices on the CPU with MKL's sgemm, which takes a slower path on
AMD CPUs. On this project's machine (AMD EPYC, AVX-512, one thread) a [128, 784] @ [784, 256]
product took 487 us with MKL, 223 us with oneDNN (torch's own mkldnn linear kernel) and
221 us in TF 2.21, whose CPU MatMul is oneDNN's; a [32, 156] @ [156, 512] one (an LSTM
cell's) 56, 37 and 29 us. oneDNN's fixed cost (~10 us a call) loses on small products
([32, 64] @ [64, 64]: 3.9 us with MKL, 12.8 with oneDNN).

With two threads or more oneDNN gains less (the same LSTM product: 107 us with MKL, 92 with
oneDNN, for its forward and both gradients) and switching between the two libraries' thread
teams costs: an LSTM train step with every product on oneDNN ran 5-12% slower on two threads,
and 5% faster on one (a 4-tower MLP: 14% faster on one thread). So oneDNN takes products of
at least `MIN_MULTIPLY_ADDS` multiply-adds on one thread (there 1.4-2.2x faster, forward and
both gradients) and 8 times that on more (1.6-2.3x faster on two threads; a [256, 1024] @
[1024, 1024] product with its gradients: 7.9 ms with MKL, 3.5 ms with oneDNN).

`matmul(a, b)` and `addmm(bias, a, b)` take oneDNN for such float32 CPU products on AMD
CPUs from the second product of the same shapes on (`_ran_before`), with gradients that are
oneDNN products too (and differentiable again, for gradients of gradients). Everywhere else
torch's own kernel runs: Intel CPUs (where MKL is tuned; not measured here), other dtypes,
CUDA, products of two batches of matrices, fake tensors while a graph is built, under
torch.compile, which chooses its kernels itself, and where the process turned oneDNN off
(`torch.backends.mkldnn.enabled = False`). The two kernels sum in different orders, so
their results differ by float32 rounding, as TF's and torch's do; which one runs depends on
the CPU, the sizes, the thread count (which a graph may choose by timing, `thread_choice`)
and whether the shapes ran before, as TF's float results depend on its pool sizes.
"""
import torch

MIN_MULTIPLY_ADDS = 1 << 20
MAX_SHAPES = 512
_seen_shapes = set()


def _cpu_vendor():
    """The CPU's `vendor_id` ("AuthenticAMD", "GenuineIntel"), or None without /proc."""
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].strip() for line in f
                         if line.startswith("vendor_id")), None)
    except OSError:
        return None


def _onednn_available():
    return torch.backends.mkldnn.is_available() and \
        hasattr(torch.ops.mkldnn, "_linear_pointwise")


enabled = _cpu_vendor() == "AuthenticAMD" and _onednn_available()
_is_compiling = torch.compiler.is_compiling


def _linear(x, weight, bias):
    """`x @ weight.T + bias` by oneDNN (weight as [out, in]; views of any strides)."""
    return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")


class _OneDnnProduct(torch.autograd.Function):
    """`a @ b (+ bias)` by oneDNN; its gradients go through `matmul` again. (A separate
    `setup_context` made each call ~17 us slower: torch routes such Functions through its
    functorch machinery.)"""

    @staticmethod
    def forward(ctx, a, b, bias):
        ctx.save_for_backward(a, b)
        ctx.has_bias = bias is not None
        return _linear(a, b.t(), bias)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b, need_bias = ctx.needs_input_grad
        return (matmul(grad, b.t()) if need_a else None,
                matmul(a.t(), grad) if need_b else None,
                grad.sum(0) if ctx.has_bias and need_bias else None)


def _takes_onednn(a, b, with_bias=False):
    """The rule of the module docstring, on the hot path of every product: a small one
    (most calls) is turned down after the fewest checks (~0.3 us)."""
    if not enabled or type(a) is not torch.Tensor or type(b) is not torch.Tensor or \
            _is_compiling():
        return False
    a_shape, b_shape = a.shape, b.shape
    if len(a_shape) != 2 or len(b_shape) != 2:
        return False
    multiply_adds = a_shape[0] * a_shape[1] * b_shape[1]
    return multiply_adds >= MIN_MULTIPLY_ADDS and \
        (multiply_adds >= 8 * MIN_MULTIPLY_ADDS or torch.get_num_threads() == 1) and \
        a.dtype is torch.float32 and b.dtype is torch.float32 and a.is_cpu and b.is_cpu and \
        a_shape[1] == b_shape[0] and torch._C._get_mkldnn_enabled() and \
        _ran_before(a, b, with_bias)


def _ran_before(a, b, with_bias):
    """Whether a product of these shapes and strides ran before. oneDNN builds a kernel for
    each (0.3-1.5 ms here, where the product itself takes 0.03-0.4 ms), so a product that
    runs once, or shapes that never repeat (a batch of rows whose count varies), stay on
    torch's kernel; a train step's products take oneDNN from their second run on. Only the
    first `MAX_SHAPES` shapes are counted: past oneDNN's kernel cache (1024 kernels) it
    would build them again and again."""
    key = (a.shape, a.stride(), b.shape, b.stride(), with_bias)
    if key in _seen_shapes:
        return True
    if len(_seen_shapes) < MAX_SHAPES:
        _seen_shapes.add(key)
    return False


def matmul(a, b):
    """`torch.matmul(a, b)`, on oneDNN where it is faster (see the module docstring). A
    batch of rows times one matrix ([..., k] @ [k, n], a Dense layer over a sequence) is one
    [rows, k] @ [k, n] product, as torch.matmul folds it."""
    if _takes_onednn(a, b):
        return _OneDnnProduct.apply(a, b, None)
    if enabled and a.ndim > 2 and b.ndim == 2 and type(a) is torch.Tensor:
        rows = a.reshape(-1, a.shape[-1])
        if _takes_onednn(rows, b):
            return _OneDnnProduct.apply(rows, b, None).view(*a.shape[:-1], b.shape[1])
    return torch.matmul(a, b)


def addmm(bias, a, b):
    """`torch.addmm(bias, a, b)` for a bias of shape [n] or one torch broadcasts, on oneDNN
    where it is faster (a bias of shape [n] only)."""
    if type(bias) is torch.Tensor and bias.dtype is torch.float32 and bias.ndim == 1 and \
            bias.shape[0] == b.shape[-1] and bias.is_cpu and _takes_onednn(a, b, True):
        return _OneDnnProduct.apply(a, b, bias)
    return torch.addmm(bias, a, b)
