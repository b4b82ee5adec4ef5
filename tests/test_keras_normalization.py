"""BatchNormalization's fused torch path against TF's formulas (float64, all layouts)."""
import pytest
import torch

from tfcompat.keras.layers import normalization

CASES = [((8, 5, 5, 3), 3), ((16, 4), 1), ((4, 3, 6, 6), 1), ((6, 7, 5), 2)]


def reference(x, gamma, beta, axis, epsilon=1e-3):
    reduce = [i for i in range(x.ndim) if i != axis]
    shape = [1] * x.ndim
    shape[axis] = -1
    var, mean = torch.var_mean(x, dim=reduce, unbiased=False, keepdim=True)
    y = (x - mean) * torch.rsqrt(var + epsilon) * gamma.reshape(shape) + beta.reshape(shape)
    return y, mean.reshape(-1), var.reshape(-1)


@pytest.mark.parametrize("shape,axis", CASES)
@pytest.mark.parametrize("bessel", [True, False])
def test_train_matches_tf_formula_and_gradients(shape, axis, bessel):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(shape, dtype=torch.float64, generator=gen, requires_grad=True)
    gamma = torch.randn(shape[axis], dtype=torch.float64, generator=gen, requires_grad=True)
    beta = torch.randn(shape[axis], dtype=torch.float64, generator=gen, requires_grad=True)
    y, mean, var = normalization._batch_norm_train._tfcompat_impl(x, gamma, beta, [axis],
                                                                  1e-3, bessel)
    want_y, want_mean, want_var = reference(x, gamma, beta, axis)
    count = x.numel() // shape[axis]
    torch.testing.assert_close(y, want_y)
    torch.testing.assert_close(mean, want_mean.detach())
    # the moving variance gets the unbiased batch variance unless Bessel's correction is off
    torch.testing.assert_close(var, want_var.detach() * (count / (count - 1) if bessel else 1))
    upstream = torch.randn(shape, dtype=torch.float64, generator=gen)
    got = torch.autograd.grad(y, (x, gamma, beta), upstream)
    want = torch.autograd.grad(want_y, (x, gamma, beta), upstream)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)


@pytest.mark.parametrize("shape,axis", CASES)
def test_inference_uses_given_statistics(shape, axis):
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(shape, dtype=torch.float64, generator=gen)
    mean, var = torch.randn(shape[axis], dtype=torch.float64, generator=gen), \
        torch.rand(shape[axis], dtype=torch.float64, generator=gen)
    gamma, beta = torch.randn(2, shape[axis], dtype=torch.float64, generator=gen)
    bshape = [1] * x.ndim
    bshape[axis] = -1
    want = (x - mean.reshape(bshape)) * torch.rsqrt(var.reshape(bshape) + 1e-3) \
        * gamma.reshape(bshape) + beta.reshape(bshape)
    got = normalization._batch_norm_infer._tfcompat_impl(x, mean, var, gamma, beta, [axis],
                                                         1e-3)
    torch.testing.assert_close(got, want)


def test_single_value_per_channel_keeps_tf_result():
    """One value per channel: TF normalizes to beta (torch's fused kernel refuses)."""
    x = torch.tensor([[1.0, 2.0]])
    y, mean, var = normalization._batch_norm_train._tfcompat_impl(
        x, torch.ones(2), torch.full((2,), 0.5), [1], 1e-3, True)
    torch.testing.assert_close(y, torch.full((1, 2), 0.5))
    torch.testing.assert_close(mean, x.reshape(-1))
