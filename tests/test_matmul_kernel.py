"""Float32 products on oneDNN where torch's BLAS is slow (`framework/matmul_kernel.py`):
the same values and gradients as torch's kernel, taken only where the rule says."""
import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import matmul_kernel

pytestmark = pytest.mark.skipif(not matmul_kernel._onednn_available(),
                                reason="torch built without oneDNN")


@pytest.fixture
def onednn(monkeypatch):
    """The oneDNN path on whatever CPU runs the tests, on one torch thread."""
    monkeypatch.setattr(matmul_kernel, "enabled", True)
    monkeypatch.setattr(matmul_kernel, "_seen_shapes", set())
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _second(product, *args, **kwargs):
    """`product(*args)` run twice: the second run of a shape is the one oneDNN takes."""
    product(*args, **kwargs)
    return product(*args, **kwargs)


def _operands(m, k, n, requires_grad=True):
    a = torch.randn(m, k, requires_grad=requires_grad)
    b = torch.randn(k, n, requires_grad=requires_grad)
    return a, b


def test_large_float32_products_take_onednn_with_torchs_values_and_gradients(onednn):
    a, b = _operands(128, 96, 128)
    bias = torch.randn(128, requires_grad=True)
    assert type(matmul_kernel.addmm(bias, a, b).grad_fn).__name__ == "AddmmBackward0"
    got = matmul_kernel.addmm(bias, a, b)
    assert type(got.grad_fn).__name__ == "_OneDnnProductBackward"
    want = torch.addmm(bias, a, b)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    upstream = torch.randn_like(want)
    for mine, theirs in zip(_second(torch.autograd.grad, got, [a, b, bias], upstream,
                                    retain_graph=True),
                            torch.autograd.grad(want, [a, b, bias], upstream)):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-4)


def test_a_batch_of_rows_times_a_matrix_is_one_onednn_product(onednn):
    """[batch, steps, k] @ [k, n] (a Dense layer over a sequence) folds into one product."""
    a = torch.randn(4, 32, 96, requires_grad=True)
    b = torch.randn(96, 128, requires_grad=True)
    got = _second(matmul_kernel.matmul, a, b)
    assert got.shape == (4, 32, 128)
    want = torch.matmul(a, b)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    upstream = torch.randn_like(want)
    for mine, theirs in zip(torch.autograd.grad(got, [a, b], upstream),
                            torch.autograd.grad(want, [a, b], upstream)):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-4)
    assert "_OneDnnProductBackward" in repr(got.grad_fn.next_functions)


def test_gradients_of_gradients_through_onednn_products(onednn):
    a, b = _operands(128, 128, 128)
    grads = []
    for product in (matmul_kernel.matmul, matmul_kernel.matmul, torch.matmul):
        da, = torch.autograd.grad(product(a, b).pow(2).sum(), [a], create_graph=True)
        grads.append(torch.autograd.grad(da.sum(), [b])[0])
    grads.pop(0)        # the first run of each product's shapes is torch's
    torch.testing.assert_close(grads[0], grads[1], rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("case", ["small", "float64", "batched", "broadcast bias",
                                  "two threads, mid-sized", "oneDNN turned off"])
def test_other_products_keep_torchs_kernel(onednn, monkeypatch, case):
    a, b = _operands(32, 64, 64) if case == "small" else _operands(128, 96, 128)
    bias = torch.randn(128)
    if case == "float64":
        a, b = a.double(), b.double()
    if case == "batched":
        a, b = a.expand(2, 128, 96), b.expand(2, 96, 128)
    if case == "oneDNN turned off":
        monkeypatch.setattr(torch.backends.mkldnn, "enabled", False)
    if case == "two threads, mid-sized":
        torch.set_num_threads(2)      # 1.6M multiply-adds: below 8 x MIN_MULTIPLY_ADDS
    if case == "broadcast bias":
        got = _second(matmul_kernel.addmm, bias[None], a, b)
        assert type(got.grad_fn).__name__ == "AddmmBackward0"
        return
    assert type(_second(matmul_kernel.matmul, a, b).grad_fn).__name__ in ("MmBackward0",
                                                                 "BmmBackward0",
                                                                 "UnsafeViewBackward0")


def test_tf_matmul_and_dense_layers_in_both_modes_match_numpy(onednn, monkeypatch):
    """The ops that multiply (tf.matmul, its graph lowering, nn.xw_plus_b, Keras Dense)
    give numpy's products and gradients, on oneDNN once their shapes ran before (in the
    graph too)."""
    products = []
    linear = matmul_kernel._linear
    monkeypatch.setattr(matmul_kernel, "_linear",
                        lambda *args: products.append(args) or linear(*args))
    rng = np.random.RandomState(0)
    x = rng.randn(128, 96).astype(np.float32)
    w = rng.randn(96, 128).astype(np.float32)
    bias = rng.randn(128).astype(np.float32)
    dense = tf.keras.layers.Dense(128)
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x_in = v1.placeholder(tf.float32, [None, 96])
        w_var = v1.get_variable("w", initializer=w)
        loss = tf.reduce_sum(tf.matmul(x_in, w_var))
        grad, = v1.gradients(loss, [w_var])
        sess = v1.Session()
        sess.run(v1.global_variables_initializer())
    for run in range(2):
        np.testing.assert_allclose(tf.matmul(x, w).numpy(), x @ w, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(tf.compat.v1.nn.xw_plus_b(x, w, bias).numpy(),
                                   x @ w + bias, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(dense(x).numpy(),
                                   x @ dense.kernel.numpy() + dense.bias.numpy(),
                                   rtol=1e-4, atol=1e-4)
        before = len(products)
        got_loss, got_grad = sess.run([loss, grad], {x_in: x})
        np.testing.assert_allclose(got_loss, (x @ w).sum(), rtol=1e-4)
        np.testing.assert_allclose(got_grad, np.tile(x.sum(0)[:, None], (1, 128)),
                                   rtol=1e-4, atol=1e-4)
    assert len(products) > before      # the Session's second run took oneDNN too
    sess.close()


def test_shapes_that_never_repeat_stay_on_torchs_kernel(onednn, monkeypatch):
    """oneDNN builds a kernel per shape: a product whose shapes ran before takes it, a new
    one does not, and past MAX_SHAPES shapes new ones are no longer counted."""
    monkeypatch.setattr(matmul_kernel, "MAX_SHAPES", 2)
    b = torch.randn(96, 128)
    kinds = [type(matmul_kernel.matmul(torch.randn(rows, 96, requires_grad=True),
                                       b).grad_fn).__name__
             for rows in (128, 128, 130, 132, 132, 130)]
    assert kinds == ["MmBackward0", "_OneDnnProductBackward", "MmBackward0", "MmBackward0",
                     "MmBackward0", "_OneDnnProductBackward"]


def test_the_rule_is_amd_cpus_only():
    """MKL is tuned for Intel CPUs (not measured here); oneDNN is taken on AMD ones only."""
    assert matmul_kernel.enabled == (matmul_kernel._cpu_vendor() == "AuthenticAMD")


@pytest.mark.parametrize("layout", ["expanded", "row slice", "column slice", "transposed"])
def test_onednn_products_of_strided_operands(onednn, layout):
    """The gradient of a sum arrives expanded (stride 0); views arrive sliced or transposed."""
    a = {"expanded": torch.randn(1, 256).expand(64, 256),
         "row slice": torch.randn(128, 256)[::2],
         "column slice": torch.randn(64, 512)[:, :256],
         "transposed": torch.randn(256, 64).t()}[layout]
    b = torch.randn(512, 512)[::2, ::2]
    torch.testing.assert_close(_second(matmul_kernel.matmul, a, b), a @ b, rtol=1e-5,
                               atol=1e-4)
