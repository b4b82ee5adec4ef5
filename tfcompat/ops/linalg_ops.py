"""TF's linear algebra (`tf.linalg.*` and the TF1 `tf.matrix_*` names) on `torch.linalg`.

Matrices are the last two dimensions; leading dimensions are batch dimensions. Where TF
and torch order results differently (`svd` gives s, u, v with v not transposed; `qr` and
`slogdet` give TF's namedtuples) TF's order is used. Failed factorizations (singular or not
positive definite inputs) raise `InvalidArgumentError` like TF's kernels.
"""
import collections

import numpy as np
import torch

from tfcompat.framework import context, dtypes, errors
from tfcompat.framework.errors import format_shape
from tfcompat.framework.ops import binary_operands, is_tensor_value, op, run_impl, to_torch
from tfcompat.ops.math_ops import (_checked, _is_float, _is_non_string, _is_numeric,
                                   _is_real_float, matmul)

Qr = collections.namedtuple("Qr", ["q", "r"])
LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant",
                                              ["sign", "log_abs_determinant"])
Lu = collections.namedtuple("Lu", ["lu", "p"])


def _matrix(x, check=_is_float):
    """A tensor of rank >= 2 whose dtype passes `check` (errors name the op being run)."""
    t = _checked(to_torch(x), check)
    if t.ndim < 2:
        raise errors.InvalidArgumentError("{op}: input must have rank >= 2, got shape %s"
                                          % format_shape(t.shape))
    return t


def _square(x):
    t = _matrix(x)
    if t.shape[-1] != t.shape[-2]:
        raise errors.InvalidArgumentError("{op}: input must be a square matrix, got shape %s"
                                          % format_shape(t.shape))
    return t


def _pair(matrix, rhs):
    a, b = binary_operands(matrix, rhs)
    a = _square(a)
    b = _matrix(b)
    if a.shape[-1] != b.shape[-2]:
        raise errors.InvalidArgumentError(
            "{op}: matrix of shape %s and rhs of shape %s do not match" % (
                format_shape(a.shape), format_shape(b.shape)))
    return a, b


def _factorize(torch_fn, message, *args, **kwargs):
    try:
        return torch_fn(*args, **kwargs)
    except torch.linalg.LinAlgError as e:
        raise errors.InvalidArgumentError("%s [Op:{op}] (%s)" % (message, e)) from None


def _static_int(value):
    return int(to_torch(value).item()) if is_tensor_value(value) else int(value)


# ---------------------------------------------------------------- inverses and solves


@op("linalg.inv", v1=["matrix_inverse"], graph_name="MatrixInverse")
def inv(input, adjoint=False, name=None):  # noqa: A002 - TF's signature
    """`tf.linalg.inv`: inverse of (batches of) square matrices, or of their adjoint."""
    t = _square(input)
    result = _factorize(torch.linalg.inv, "Input is not invertible.", t)
    return result.mH if adjoint else result


@op("linalg.det", v1=["matrix_determinant"], graph_name="MatrixDeterminant")
def det(input, name=None):  # noqa: A002
    """`tf.linalg.det`: determinants of (batches of) square matrices."""
    return torch.linalg.det(_square(input))


@op("linalg.slogdet", graph_name="LogMatrixDeterminant")
def slogdet(input, name=None):  # noqa: A002
    """`tf.linalg.slogdet`: (sign, log|det|) as TF's namedtuple."""
    sign, logabs = torch.linalg.slogdet(_square(input))
    return LogMatrixDeterminant(sign, logabs)


@op("linalg.logdet", graph_name="Logdet")
def logdet(matrix, name=None):
    """`tf.linalg.logdet`: log det of Hermitian positive definite matrices (via Cholesky)."""
    chol = run_impl(cholesky, matrix)
    return 2.0 * torch.sum(torch.log(torch.diagonal(chol, dim1=-2, dim2=-1).real), -1)


@op("linalg.cholesky", v1=["cholesky"], graph_name="Cholesky")
def cholesky(input, name=None):  # noqa: A002
    """`tf.linalg.cholesky`: lower-triangular L with L L^H = input (only the lower triangle
    of the input is read, like TF)."""
    t = _square(input)
    return _factorize(torch.linalg.cholesky,
                      "Cholesky decomposition was not successful. The input might not be "
                      "valid.", t)


@op("linalg.solve", v1=["matrix_solve"], graph_name="MatrixSolve")
def solve(matrix, rhs, adjoint=False, name=None):
    """`tf.linalg.solve`: X with matrix @ X = rhs (matrix^H @ X = rhs when `adjoint`)."""
    a, b = _pair(matrix, rhs)
    return _factorize(torch.linalg.solve, "Input matrix is not invertible.",
                      a.mH if adjoint else a, b)


@op("linalg.triangular_solve", v1=["matrix_triangular_solve"],
    graph_name="MatrixTriangularSolve")
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """`tf.linalg.triangular_solve`: only the lower (or upper) triangle of `matrix` is read;
    `adjoint` solves with the adjoint of that triangle."""
    a, b = _pair(matrix, rhs)
    if adjoint:
        return torch.linalg.solve_triangular(a.mH, b, upper=lower)
    return torch.linalg.solve_triangular(a, b, upper=not lower)


@op("linalg.lstsq", v1=["matrix_solve_ls"], graph_name="MatrixSolveLs")
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """`tf.linalg.lstsq`: least squares solution. `fast=True` solves the (regularized) normal
    equations by Cholesky like TF; `fast=False` gives the minimum-norm solution (TF's
    complete orthogonal decomposition), which TF supports only without regularization."""
    a, b = binary_operands(matrix, rhs)
    a = _matrix(a)
    b = _matrix(b)
    if a.shape[-2] != b.shape[-2]:
        raise errors.InvalidArgumentError(
            "{op}: matrix of shape %s and rhs of shape %s do not match" % (
                format_shape(a.shape), format_shape(b.shape)))
    reg = float(to_torch(l2_regularizer)) if is_tensor_value(l2_regularizer) \
        else float(l2_regularizer)
    if not fast:
        if reg != 0.0:
            raise errors.UnimplementedError(
                "matrix_solve_ls is currently disabled for complete orthogonal decomposition "
                "(fast=False) with l2_regularizer != 0")
        return torch.linalg.pinv(a) @ b
    m, n = a.shape[-2], a.shape[-1]
    ah = a.mH
    if m >= n:
        gram = ah @ a + reg * torch.eye(n, dtype=a.dtype, device=a.device)
        chol = _factorize(torch.linalg.cholesky, "Input matrix is not "
                          "invertible (rank deficient); try fast=False.", gram)
        return torch.cholesky_solve(ah @ b, chol)
    gram = a @ ah + reg * torch.eye(m, dtype=a.dtype, device=a.device)
    chol = _factorize(torch.linalg.cholesky, "Input matrix is not "
                      "invertible (rank deficient); try fast=False.", gram)
    return ah @ torch.cholesky_solve(b, chol)


# ---------------------------------------------------------------- decompositions


@op("linalg.qr", v1=["qr"], graph_name="Qr")
def qr(input, full_matrices=False, name=None):  # noqa: A002
    """`tf.linalg.qr`: Qr(q, r); reduced unless `full_matrices`."""
    t = _matrix(input)
    q, r = torch.linalg.qr(t, mode="complete" if full_matrices else "reduced")
    return Qr(q, r)


@op("linalg.svd", v1=["svd"], graph_name="Svd")
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """`tf.linalg.svd`: returns (s, u, v) in TF's order with tensor = u diag(s) v^H (v, not
    v^H as torch returns), or only s when `compute_uv=False`."""
    t = _matrix(tensor)
    if not compute_uv:
        return torch.linalg.svdvals(t)
    u, s, vh = torch.linalg.svd(t, full_matrices=full_matrices)
    return s, u, vh.mH


@op("linalg.expm", graph_name="MatrixExponential")
def expm(input, name=None):  # noqa: A002
    """`tf.linalg.expm`: matrix exponential."""
    return torch.linalg.matrix_exp(_square(input))


# ---------------------------------------------------------------- norms


_VECTOR_ORDS = ("euclidean", 1, 2, np.inf)
_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


@op("linalg.norm", "norm", graph_name="Norm")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None,  # noqa: A002
         keep_dims=None):
    """`tf.norm` (v1 `keep_dims` too): vector norms over all entries (axis None) or one
    axis; matrix norms ('euclidean'/'fro', 1, 2, inf) over a pair of axes. The result is real
    for complex input."""
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
        keepdims = keep_dims
    keepdims = bool(keepdims)
    if is_tensor_value(axis):
        axis = to_torch(axis).tolist()
    t = _checked(to_torch(tensor), _is_float)
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        a0, a1 = axis
        if not isinstance(a0, int) or not isinstance(a1, int) or \
                a0 % max(t.ndim, 1) == a1 % max(t.ndim, 1):
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique "
                             "integers, got %s" % (axis,))
        if ord not in _MATRIX_ORDS:
            raise ValueError("'ord' must be a supported matrix norm in %s, got %s" % (
                list(_MATRIX_ORDS), ord))
        return torch.linalg.matrix_norm(t, "fro" if ord == "euclidean" else ord,
                                        dim=(a0, a1), keepdim=keepdims)
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if not (axis is None or isinstance(axis, int)):
        raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, "
                         "got %s" % (axis,))
    if ord == "fro" or ((not isinstance(ord, (int, float)) or ord <= 0) and
                        ord not in _VECTOR_ORDS):
        raise ValueError("'ord' must be a supported vector norm, got %s" % (ord,))
    p = 2 if ord == "euclidean" else ord
    if axis is None:
        result = torch.linalg.vector_norm(t, p)
        return result.reshape((1,) * t.ndim) if keepdims else result
    return torch.linalg.vector_norm(t, p, dim=axis, keepdim=keepdims)


# ---------------------------------------------------------------- diagonals and bands


@op("linalg.tensor_diag", v1=["diag"], graph_name="Diag")
def tensor_diag(diagonal, name=None):
    """`tf.linalg.tensor_diag` (TF1 `tf.diag`): a rank-k tensor -> the rank-2k tensor with it
    on the diagonal (output[i, j, ..., i, j, ...] = diagonal[i, j, ...])."""
    t = _checked(to_torch(diagonal), _is_numeric)
    if t.ndim == 0:
        raise errors.InvalidArgumentError("{op}: input must be at least rank 1, got a scalar")
    return torch.diag(t.reshape(-1)).reshape(tuple(t.shape) * 2)


@op("linalg.tensor_diag_part", v1=["diag_part"], graph_name="DiagPart")
def tensor_diag_part(input, name=None):  # noqa: A002
    """`tf.linalg.tensor_diag_part` (TF1 `tf.diag_part`): inverse of `tensor_diag`; the input
    shape must be s + s."""
    t = to_torch(input)
    half = t.ndim // 2
    if t.ndim == 0 or t.ndim % 2 or tuple(t.shape[:half]) != tuple(t.shape[half:]):
        raise errors.InvalidArgumentError(
            "{op}: input must have even rank 2k with shape s + s, got %s"
            % format_shape(t.shape))
    n = int(np.prod(t.shape[:half]))
    return torch.diagonal(t.reshape(n, n)).reshape(t.shape[:half]).clone()


def _single_k(k):
    k = to_torch(k).tolist() if is_tensor_value(k) else k
    if isinstance(k, (list, tuple)):
        if len(k) == 1 or (len(k) == 2 and k[0] == k[1]):
            k = k[0]
        else:
            raise errors.UnimplementedError(
                "{op}: a band of diagonals k=%s is not supported by tfcompat; pass one "
                "diagonal (an int k)" % (list(k),))
    return int(k)


@op("linalg.diag", v1=["matrix_diag"], graph_name="MatrixDiag")
def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
                align="RIGHT_LEFT"):
    """`tf.linalg.diag` (TF1 `tf.matrix_diag`): batched matrices with `diagonal`'s last axis
    on diagonal `k`; `num_rows`/`num_cols` and `padding_value` as in TF. Bands of several
    diagonals (`k` a pair) raise UnimplementedError."""
    t = _checked(to_torch(diagonal), _is_non_string)
    k = _single_k(k)
    if t.ndim == 0:
        raise errors.InvalidArgumentError("{op}: diagonal must be at least rank 1")
    n = t.shape[-1]
    rows, cols = _static_int(num_rows), _static_int(num_cols)
    min_rows, min_cols = n + max(-k, 0), n + max(k, 0)
    if rows < 0 and cols < 0:
        rows = cols = max(min_rows, min_cols)
    elif rows < 0:
        rows = min_rows
    elif cols < 0:
        cols = min_cols
    length = min(rows - max(-k, 0), cols - max(k, 0))
    if length != n:
        raise errors.InvalidArgumentError(
            "{op}: the diagonal has %d elements but diagonal %d of a %dx%d matrix has %d"
            % (n, k, rows, cols, length))
    out = torch.full(tuple(t.shape[:-1]) + (rows, cols), padding_value, dtype=t.dtype,
                     device=t.device)
    index = torch.arange(n, device=t.device)
    out[..., index + max(-k, 0), index + max(k, 0)] = t
    return out


@op("linalg.diag_part", v1=["matrix_diag_part"], graph_name="MatrixDiagPart")
def matrix_diag_part(input, name="diag_part", k=0, padding_value=0,  # noqa: A002
                     align="RIGHT_LEFT"):
    """`tf.linalg.diag_part` (TF1 `tf.matrix_diag_part`): diagonal `k` of the last two axes.
    Bands of several diagonals (`k` a pair) raise UnimplementedError."""
    t = _matrix(input, check=_is_non_string)
    return torch.diagonal(t, offset=_single_k(k), dim1=-2, dim2=-1).clone()


@op("linalg.band_part", v1=["matrix_band_part"], graph_name="MatrixBandPart")
def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """`tf.linalg.band_part`: keep num_lower subdiagonals and num_upper superdiagonals
    (negative: keep the whole triangle), zero the rest."""
    t = _matrix(input, check=_is_non_string)
    lower, upper = _static_int(num_lower), _static_int(num_upper)
    m, n = t.shape[-2], t.shape[-1]
    i = torch.arange(m, device=t.device).unsqueeze(1)
    j = torch.arange(n, device=t.device).unsqueeze(0)
    keep = torch.ones((m, n), dtype=torch.bool, device=t.device)
    if lower >= 0:
        keep = keep & (i - j <= lower)
    if upper >= 0:
        keep = keep & (j - i <= upper)
    return torch.where(keep, t, torch.zeros((), dtype=t.dtype, device=t.device))


@op("linalg.trace", v1=["trace"], graph_name="Trace")
def trace(x, name=None):
    """`tf.linalg.trace`: sum of the diagonal of the last two axes (batched), input dtype."""
    t = _matrix(x, check=_is_numeric)
    return torch.diagonal(t, dim1=-2, dim2=-1).sum(-1, dtype=t.dtype)


@op("linalg.matrix_transpose", v1=["matrix_transpose", "linalg.transpose"],
    graph_name="MatrixTranspose")
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """`tf.linalg.matrix_transpose`: swap the last two axes (and conjugate if asked)."""
    t = to_torch(a)
    if t.ndim < 2:
        raise ValueError("Argument 'a' should be a (batch) matrix with rank >= 2.  Found: "
                         "shape %s" % (format_shape(t.shape),))
    return (t.mH if conjugate else t.mT).clone()


@op("linalg.adjoint", graph_name="Adjoint")
def adjoint(matrix, name=None):
    """`tf.linalg.adjoint`: conjugate transpose of the last two axes."""
    return run_impl(matrix_transpose, matrix, conjugate=True)


@op("linalg.matvec", graph_name="MatVec")
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """`tf.linalg.matvec`: (batched) matrix @ vector."""
    ta, tb = binary_operands(a, b)
    out = run_impl(matmul, ta, to_torch(tb).unsqueeze(-1), transpose_a=transpose_a,
                   adjoint_a=adjoint_a)
    return out.squeeze(-1)


@op("linalg.eye", "eye", graph_name="Eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """`tf.eye`: identity matrices (num_rows x num_columns), optionally batched."""
    rows = _static_int(num_rows)
    cols = rows if num_columns is None else _static_int(num_columns)
    dtype = dtypes.as_dtype(dtype)
    result = torch.eye(rows, cols, dtype=dtype.torch_dtype, device=context.current_device())
    if batch_shape is not None:
        batch = to_torch(batch_shape).tolist() if is_tensor_value(batch_shape) \
            else list(batch_shape)
        result = result.expand(tuple(batch) + (rows, cols)).clone()
    return result


@op("linalg.cross", v1=["cross"], graph_name="Cross")
def cross(a, b, name=None):
    """`tf.linalg.cross`: pairwise cross products along the last axis (size 3)."""
    ta, tb = binary_operands(a, b)
    ta, tb = to_torch(ta), to_torch(tb)
    if ta.shape != tb.shape or ta.ndim == 0 or ta.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            "{op}: inputs must have the same shape with a last dimension of 3, got %s and %s"
            % (format_shape(ta.shape), format_shape(tb.shape)))
    _checked(ta, _is_numeric)
    return torch.linalg.cross(ta, tb, dim=-1)


@op("linalg.eigh", v1=["self_adjoint_eig"], graph_name="SelfAdjointEigV2")
def eigh(tensor, name=None):
    """`tf.linalg.eigh`: (eigenvalues ascending, eigenvectors as columns) of self-adjoint
    matrices, reading the lower triangle. Each eigenvector's sign (phase) is LAPACK's, which
    can differ from TF's Eigen solver: both are eigenvectors."""
    return tuple(torch.linalg.eigh(_square(tensor)))


@op("linalg.eigvalsh", v1=["self_adjoint_eigvals"], graph_name="SelfAdjointEigV2")
def eigvalsh(tensor, name=None):
    """`tf.linalg.eigvalsh`: eigenvalues (ascending) of self-adjoint matrices."""
    return torch.linalg.eigvalsh(_square(tensor))


@op("linalg.pinv", graph_name="Pinv")
def pinv(a, rcond=None, validate_args=False, name=None):
    """`tf.linalg.pinv`: the Moore-Penrose pseudo-inverse from the SVD; singular values at
    most `rcond` times the largest count as zero (default 10 * max(rows, cols) * eps)."""
    t = _matrix(a, _is_real_float)
    if rcond is None:
        rcond = 10.0 * max(t.shape[-2], t.shape[-1]) * torch.finfo(t.dtype).eps
    return torch.linalg.pinv(t, rtol=rcond if isinstance(rcond, float)
                             else to_torch(rcond, dtypes.from_torch(t.dtype)))


@op("linalg.matrix_rank", graph_name="MatrixRank")
def matrix_rank(a, tol=None, validate_args=False, name=None):
    """`tf.linalg.matrix_rank`: the number of singular values above `tol` (default
    eps * max(rows, cols) * the largest singular value), as int32."""
    t = _matrix(a, _is_real_float)
    s = torch.linalg.svdvals(t)
    if tol is None:
        tol = torch.finfo(t.dtype).eps * max(t.shape[-2], t.shape[-1]) * \
            s.amax(-1, keepdim=True)
    else:
        tol = to_torch(tol, dtypes.from_torch(t.dtype))
    return (s > tol).sum(-1).to(torch.int32)


@op("linalg.set_diag", "matrix_set_diag", graph_name="MatrixSetDiagV3")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """`tf.linalg.set_diag`: `input` with its k-th diagonal replaced (one diagonal: a band
    of several, `k` a pair, is not implemented)."""
    t = _matrix(input, _is_non_string)
    if isinstance(k, (tuple, list)) and len(k) == 2 and k[0] != k[1]:
        raise NotImplementedError("tf.linalg.set_diag of a band of diagonals (k=%r) is not "
                                  "implemented in tfcompat" % (k,))
    offset = int(k[0]) if isinstance(k, (tuple, list)) else int(k)
    values = to_torch(diagonal, dtypes.from_torch(t.dtype))
    target = t.diagonal(offset, -2, -1)
    if values.shape != target.shape:
        raise errors.InvalidArgumentError(
            "{op}: diagonal must have shape %s, got %s"
            % (format_shape(target.shape), format_shape(values.shape)))
    out = t.clone()
    out.diagonal(offset, -2, -1).copy_(values)
    return out


@op("linalg.cholesky_solve", "cholesky_solve", graph_name="CholeskySolve")
def cholesky_solve(chol, rhs, name=None):
    """`tf.linalg.cholesky_solve`: x with A x = rhs, given A's lower Cholesky factor."""
    c, r = _pair(chol, rhs)
    return torch.cholesky_solve(r, c, upper=False)


@op("linalg.normalize", graph_name="Normalize")
def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """`tf.linalg.normalize`: (tensor / norm, norm) with the norm of `tf.norm` kept as
    size-1 axes."""
    t = _checked(to_torch(tensor), _is_float)
    norms = run_impl(norm, t, ord=ord, axis=axis, keepdims=True)
    return t / norms, norms


@op("linalg.lu", graph_name="Lu")
def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002
    """`tf.linalg.lu`: (lu, p) with partial pivoting: `lu` holds unit-lower L below the
    diagonal and U on and above it, and `gather(input, p) = L U`."""
    t = _square(input)
    factors, pivots = _factorize(torch.linalg.lu_factor, "Input is not invertible.", t)
    permutation, _, _ = torch.lu_unpack(factors, pivots, unpack_data=False)
    rows = permutation.argmax(-2)       # (P^T A)[i] = A[rows[i]]
    return Lu(factors, rows.to(dtypes.as_dtype(output_idx_type).torch_dtype))


def _lu_parts(lower_upper, perm):
    factors = _square(lower_upper)
    rows = to_torch(perm).long().to(factors.device)
    lower = factors.tril(-1) + torch.eye(factors.shape[-1], dtype=factors.dtype,
                                         device=factors.device)
    return factors.triu(), lower, rows


def _rows_of(matrix, rows):
    """`gather(matrix, rows, batch_dims)` along the second-to-last axis."""
    return matrix.gather(-2, rows[..., None].expand(*rows.shape, matrix.shape[-1]))


@op("linalg.lu_solve", graph_name="LuSolve")
def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """`tf.linalg.lu_solve`: x with A x = rhs, from `tf.linalg.lu`'s (lu, p) of A."""
    upper, lower, rows = _lu_parts(lower_upper, perm)
    b = _matrix(rhs)
    permuted = _rows_of(b, rows.expand(*b.shape[:-2], rows.shape[-1]))
    y = torch.linalg.solve_triangular(lower, permuted, upper=False, unitriangular=True)
    return torch.linalg.solve_triangular(upper, y, upper=True)


@op("linalg.lu_reconstruct", graph_name="LuReconstruct")
def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """`tf.linalg.lu_reconstruct`: the matrix A that `tf.linalg.lu` factored."""
    upper, lower, rows = _lu_parts(lower_upper, perm)
    product = lower @ upper
    return _rows_of(product, torch.argsort(rows, -1))


@op("linalg.lu_matrix_inverse", graph_name="LuMatrixInverse")
def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """`tf.linalg.lu_matrix_inverse`: A's inverse from `tf.linalg.lu`'s (lu, p) of A."""
    factors = _square(lower_upper)
    identity = torch.eye(factors.shape[-1], dtype=factors.dtype, device=factors.device)
    return run_impl(lu_solve, factors, perm, identity.expand_as(factors))


def _tridiagonal(diagonals, diagonals_format):
    """The dense [..., M, M] matrix of TF's tridiagonal formats: 'compact' [..., 3, M]
    (superdiagonal with its last entry ignored, diagonal, subdiagonal with its first
    ignored), 'sequence' (the three as a tuple, of lengths M-1, M, M-1 or all M), 'matrix'."""
    if diagonals_format == "matrix":
        return _square(diagonals)
    if diagonals_format == "sequence":
        upper, main, lower = (to_torch(d) for d in diagonals)
        main = _checked(main, _is_float)
        m = main.shape[-1]
        upper, lower = upper[..., :m - 1], lower[..., lower.shape[-1] - (m - 1):]
    elif diagonals_format == "compact":
        d = _checked(to_torch(diagonals), _is_float)
        if d.ndim < 2 or d.shape[-2] != 3:
            raise ValueError("Expected last two dimensions of diagonals to be 3 and M, got %s"
                             % format_shape(d.shape))
        upper, main, lower = d[..., 0, :-1], d[..., 1, :], d[..., 2, 1:]
    else:
        raise ValueError("Unrecognized diagonals_format: %s" % (diagonals_format,))
    return torch.diag_embed(main) + torch.diag_embed(upper, 1) + torch.diag_embed(lower, -1)


@op("linalg.tridiagonal_solve", graph_name="TridiagonalSolve")
def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False):
    """`tf.linalg.tridiagonal_solve`: x with A x = rhs for the tridiagonal A (a dense solve
    with partial pivoting); rhs [..., M] or [..., M, K]."""
    a = _tridiagonal(diagonals, diagonals_format)
    b = to_torch(rhs)
    if conjugate_rhs:
        b = b.conj()
    vector = b.ndim == a.ndim - 1
    if transpose_rhs and not vector:
        b = b.transpose(-1, -2)
    b = b[..., None] if vector else b
    x = _factorize(torch.linalg.solve, "The matrix is not invertible.", a, b.to(a.dtype))
    return x[..., 0] if vector else x


@op("linalg.tridiagonal_matmul", graph_name="TridiagonalMatMul")
def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """`tf.linalg.tridiagonal_matmul`: the tridiagonal A times rhs [..., M, N]."""
    a = _tridiagonal(diagonals, diagonals_format)
    return a @ _matrix(rhs).to(a.dtype)

