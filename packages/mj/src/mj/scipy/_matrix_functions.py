"""``schur``, ``rsf2csf``, ``sqrtm``, ``funm`` and ``solve_sylvester`` for :mod:`mj.scipy.linalg`.

* ``schur``: :func:`mj.lax.linalg.schur` (LAPACK's ``gees``), ``output="complex"`` on the
  complex-cast matrix, as JAX's; ``rsf2csf`` turns a real Schur form complex (JAX's loop).
* ``sqrtm``: JAX's algorithm, the complex Schur form ``A = Z T Z^H`` and the upper-triangular
  root of ``T`` (Björck and Hammarling), an entry with a zero numerator set to zero, so
  singular matrices such as ``diag(0, 4, 0)`` have their root.
* ``funm``: JAX's, Parlett's recurrence on the complex Schur form.
* ``solve_sylvester``: ``A X + X B = C`` as the linear system
  ``(I kron A + B^T kron I) vec(X) = vec(C)``, solved directly: exact, but of size
  ``(m n)^2``, so meant for small matrices. Complex matrices are handled in the real form
  ``[[Re, -Im], [Im, Re]]`` of a complex matrix, on mj's real LU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import mj.numpy as mnp
from mj import lax
from mj.numpy import linalg as mla
from mj.numpy import vectorize
from mj_core import lax_linalg
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, promote_inexact

__all__ = ["funm", "rsf2csf", "schur", "solve_sylvester", "sqrtm"]


def _real_form(m: ArrayLike) -> Array:
    """``[[Re m, -Im m], [Im m, Re m]]``: the real matrix acting like complex ``m``."""
    re, im = mnp.real(m), mnp.imag(m)
    return mnp.concatenate(
        [mnp.concatenate([re, -im], axis=-1), mnp.concatenate([im, re], axis=-1)], axis=-2
    )


def _square(name: str, a: ArrayLike) -> Array:
    a = mnp.asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(
            f"{name}: expected a square matrix, got shape {a.shape}{user_line_suffix()}"
        )
    return a


def _complex_dtype(a: AnyArray) -> Any:
    """The complex dtype of ``a``'s precision (complex64 for float32/complex64)."""
    single = mnp.result_type(a) in (mnp.float32, mnp.complex64)
    return mnp.dtype(mnp.complex64 if single else mnp.complex128)


def schur(a: ArrayLike, output: str = "real") -> tuple[Array, Array]:
    """``(T, Z)`` with ``a = Z T Z^H``, ``Z`` unitary, ``T`` quasi-triangular (``"real"``, real
    input) or triangular (``"complex"``): :func:`mj.lax.linalg.schur` (LAPACK's ``gees``)."""
    if output not in ("real", "complex"):
        raise ValueError(
            f"Expected 'output' to be either 'real' or 'complex', got {output=}."
            f"{user_line_suffix()}"
        )
    arr = mnp.asarray(a)
    if output == "complex":
        arr = arr.astype(_complex_dtype(arr))
    t, z = lax_linalg.schur(arr)
    return t, z


def _sqrtm_triu(t: AnyArray) -> Array:
    """The upper-triangular square root of triangular ``t`` (Björck and Hammarling, 1983),
    column by column, as JAX's: an entry whose numerator is zero is zero (so singular
    diagonal matrices have their root)."""
    diag = mnp.sqrt(mnp.diag(t))
    n = diag.size
    u = mnp.diag(diag)

    def i_loop(l_: Any, data: tuple[Any, Any]) -> tuple[Any, Any]:
        j, u = data
        i = j - 1 - l_
        ks = mnp.arange(n)
        inside = (ks > i) & (ks < j)
        s = mnp.sum(mnp.where(inside, u[i, :] * u[:, j], 0))
        value = mnp.where(t[i, j] == s, 0, (t[i, j] - s) / (diag[i] + diag[j]))
        return j, u.at[i, j].set(value)

    def j_loop(j: Any, u: Any) -> Any:
        _, u = lax.fori_loop(0, j, i_loop, (j, u))
        return u

    return lax.fori_loop(0, n, j_loop, u)


def sqrtm(A: ArrayLike, blocksize: int = 1) -> AnyArray:  # noqa: N803 (SciPy's name)
    """The principal square root ``X`` of ``A`` (``X @ X == A``), complex, as JAX computes it:
    the complex Schur form ``A = Z T Z^H`` and the triangular root of ``T``."""
    if blocksize > 1:
        raise NotImplementedError(f"Blocked version is not implemented yet.{user_line_suffix()}")
    a = _square("sqrtm", A)
    t, z = schur(a, output="complex")
    root = _sqrtm_triu(t)
    highest = lax.Precision.HIGHEST
    return mnp.matmul(mnp.matmul(z, root, precision=highest), mnp.conj(z.T), precision=highest)


def _rsf2csf_2d(t: AnyArray, z: AnyArray) -> tuple[Any, Any]:
    dtype = _complex_dtype(mnp.result_type(t, z))
    t, z = t.astype(dtype), z.astype(dtype)
    eps = np.finfo(dtype).eps
    n = t.shape[0]
    if n == 1:
        return t, z

    def update(m: Any, t: Any, z: Any) -> tuple[Any, Any]:
        mu = mla.eigvals(lax.dynamic_slice(t, (m - 1, m - 1), (2, 2))) - t[m, m]
        r = mla.norm(mnp.array([mu[0], t[m, m - 1]])).astype(dtype)
        c = mu[0] / r
        s = t[m, m - 1] / r
        g = mnp.array([[mnp.conj(c), s], [-s, c]], dtype=dtype)
        rows = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=0)
        col_mask = mnp.arange(n) >= m - 1
        rows = mnp.where(~col_mask, rows, g @ mnp.where(col_mask, rows, 0))
        t = lax.dynamic_update_slice_in_dim(t, rows, m - 1, axis=0)
        cols = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=1)
        row_mask = mnp.arange(n)[:, None] < m + 1
        cols = mnp.where(~row_mask, cols, mnp.where(row_mask, cols, 0) @ mnp.conj(g.T))
        t = lax.dynamic_update_slice_in_dim(t, cols, m - 1, axis=1)
        z_cols = lax.dynamic_slice_in_dim(z, m - 1, 2, axis=1)
        z = lax.dynamic_update_slice_in_dim(z, z_cols @ mnp.conj(g.T), m - 1, axis=1)
        return t, z

    def step(i: Any, tz: tuple[Any, Any]) -> tuple[Any, Any]:
        m = n - i
        t, z = tz
        t, z = lax.cond(
            mnp.abs(t[m, m - 1]) > eps * (mnp.abs(t[m - 1, m - 1]) + mnp.abs(t[m, m])),
            update,
            lambda m, t, z: (t, z),
            m,
            t,
            z,
        )
        return t.at[m, m - 1].set(0.0), z

    return lax.fori_loop(1, n, step, (t, z))


def rsf2csf(T: ArrayLike, Z: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:  # noqa: N803
    """The complex Schur form ``(T', Z')`` of a real Schur form ``(T, Z)`` (each 2x2 block
    triangularised by a complex rotation), as JAX's ``rsf2csf``; batch axes broadcast."""
    del check_finite
    t, z = mnp.asarray(T), mnp.asarray(Z)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError(f"Input 'T' must be square.{user_line_suffix()}")
    if z.ndim < 2 or z.shape[-1] != z.shape[-2]:
        raise ValueError(f"Input 'Z' must be square.{user_line_suffix()}")
    if t.shape[-1] != z.shape[-1]:
        raise ValueError(
            f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}{user_line_suffix()}"
        )
    out_t, out_z = vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(t, z)
    return out_t, out_z


def _funm_parlett(f: Any, t: Any) -> tuple[Any, Any]:
    """Golub and Van Loan's Algorithm 11.1.1 (Parlett's recurrence), as JAX's ``funm``."""
    n = t.shape[0]
    minden = mnp.abs(t[0, 0])

    def inner(i: Any, p_f_minden: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        p, f, minden = p_f_minden
        j = i + p
        s = t[i - 1, j - 1] * (f[j - 1, j - 1] - f[i - 1, i - 1])
        ind = (mnp.arange(n) >= i) & (mnp.arange(n) < j - 1)
        val = mnp.where(ind, t[i - 1], 0) @ mnp.where(ind, f[:, j - 1], 0) - mnp.where(
            ind, f[i - 1], 0
        ) @ mnp.where(ind, t[:, j - 1], 0)
        s = s + val
        den = t[j - 1, j - 1] - t[i - 1, i - 1]
        s = mnp.where(den != 0, s / den, s)
        f = f.at[i - 1, j - 1].set(s)
        minden = mnp.minimum(minden, mnp.abs(den))
        return p, f, minden

    def outer(p: Any, f_minden: tuple[Any, Any]) -> tuple[Any, Any]:
        _, f, minden = lax.fori_loop(1, n - p + 1, inner, (p, *f_minden))
        return f, minden

    return lax.fori_loop(1, n, outer, (f, minden))


def funm(A: ArrayLike, func: Any, disp: bool = True) -> Any:  # noqa: N803 (SciPy's name)
    """``func`` applied to the matrix ``A`` through its complex Schur form (Parlett's
    recurrence), as JAX's ``funm``: the result, and with ``disp=False`` also an error
    estimate."""
    a = mnp.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"expected square array_like input{user_line_suffix()}")
    t, z = schur(a)
    t, z = rsf2csf(t, z)
    f = mnp.diag(func(mnp.diag(t))).astype(t.dtype)
    f, minden = _funm_parlett(f, t)
    f = z @ f @ mnp.conj(z.T)
    if disp:
        return f
    tol = np.finfo(np.float32 if f.dtype == np.complex64 else np.float64).eps
    minden = mnp.where(minden == 0.0, tol, minden)
    err = mnp.where(
        mnp.any(mnp.isinf(f)),
        mnp.inf,
        mnp.minimum(1, mnp.maximum(tol, (tol / minden) * mla.norm(mnp.triu(t, 1), 1))),
    )
    return f, err


def solve_sylvester(
    A: ArrayLike,  # noqa: N803 (SciPy's names)
    B: ArrayLike,  # noqa: N803
    C: ArrayLike,  # noqa: N803
    *,
    method: str = "schur",
    tol: float = 1e-8,
) -> Array:
    """``X`` with ``A X + X B = C`` (``A`` m x m, ``B`` n x n, ``C`` m x n; leading batch
    dimensions broadcast). ``method`` (``"schur"``/``"eigen"``) is accepted as in JAX; the
    system is solved directly, so both give the same answer. As in JAX, a matrix of NaNs where
    an eigenvalue of ``A`` and one of ``B`` sum to within ``tol`` of zero (no unique
    solution)."""
    if method not in ("schur", "eigen"):
        raise ValueError(f"Unrecognized method {method}{user_line_suffix()}")
    a, b, c = promote_inexact(*(mnp.asarray(v) for v in (A, B, C)))  # JAX's promotion
    dtype = a.dtype
    m, n = c.shape[-2], c.shape[-1]
    if a.shape[-2:] != (m, m) or b.shape[-2:] != (n, n):
        raise ValueError(
            f"solve_sylvester: shapes {a.shape}, {b.shape}, {c.shape} do not fit "
            f"A X + X B = C{user_line_suffix()}"
        )
    batch = mnp.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2])
    a = mnp.broadcast_to(a, (*batch, m, m))
    b = mnp.broadcast_to(b, (*batch, n, n))
    c = mnp.broadcast_to(c, (*batch, m, n))
    # vec stacks columns: vec(A X) = (I_n kron A) vec(X), vec(X B) = (B^T kron I_m) vec(X)
    op = mnp.kron(mnp.eye(n, dtype=dtype), a) + mnp.kron(
        mnp.swapaxes(b, -1, -2), mnp.eye(m, dtype=dtype)
    )
    rhs = mnp.swapaxes(c, -1, -2).reshape((*batch, m * n))
    if mnp.iscomplexobj(op):
        sol = mla.solve(
            _real_form(op), mnp.concatenate([mnp.real(rhs), mnp.imag(rhs)], axis=-1)[..., None]
        )[..., 0]
        vec = lax.complex(sol[..., : m * n], sol[..., m * n :])
    else:
        vec = mla.solve(op, rhs[..., None])[..., 0]
    x = mnp.swapaxes(vec.reshape((*batch, n, m)), -1, -2)
    sums = (
        mla.eigvals(lax.stop_gradient(a))[..., :, None]
        + mla.eigvals(lax.stop_gradient(b))[..., None, :]
    )
    singular = mnp.any(mnp.abs(sums) < tol, axis=(-2, -1))
    return mnp.where(singular[..., None, None], mnp.zeros_like(x) * np.nan, x)
