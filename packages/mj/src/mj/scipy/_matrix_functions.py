"""``schur``, ``rsf2csf``, ``sqrtm``, ``funm`` and ``solve_sylvester`` for :mod:`mj.scipy.linalg`.

* ``schur``: :func:`mj.lax.linalg.schur` (LAPACK's ``gees``), ``output="complex"`` on the
  complex-cast matrix, as JAX's; ``rsf2csf`` turns a real Schur form complex (JAX's loop).
* ``sqrtm``: JAX's algorithm, the complex Schur form ``A = Z T Z^H`` and the upper-triangular
  root of ``T`` (Björck and Hammarling), an entry with a zero numerator set to zero, so
  singular matrices such as ``diag(0, 4, 0)`` have their root.
* ``funm``: JAX's, Parlett's recurrence on the complex Schur form.
* ``solve_sylvester``: JAX's, Bartels and Stewart's back substitution on the complex Schur
  forms of ``A`` and ``B^H`` (``"schur"``) or the eigendecompositions (``"eigen"``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

import mj.numpy as mnp
from mj import lax
from mj.numpy import linalg as mla
from mj.numpy import vectorize
from mj_autodiff import custom_jvp
from mj_core import lax_linalg
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, promote_inexact

__all__ = ["funm", "rsf2csf", "schur", "solve_sylvester", "sqrtm"]


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


def _sylvester_triangular(r: Any, t: Any, f: Any) -> Any:
    """``Y`` with ``R Y + Y T = F`` for upper-triangular ``R`` (m x m) and lower-triangular
    ``T`` (n x n): Bartels and Stewart's back substitution, a column at a time from the last
    (JAX's scan solves the same recurrence an entry at a time):
    ``(R + T[j, j] I) Y[:, j] = F[:, j] - sum_{k > j} Y[:, k] T[k, j]``."""
    m, n = f.shape
    eye = mnp.eye(m, dtype=f.dtype)
    ks = mnp.arange(n)

    def column(y: Any, j: Any) -> tuple[Any, None]:
        t_col = lax.dynamic_slice_in_dim(t, j, 1, axis=1)  # (n, 1)
        t_jj = lax.dynamic_slice_in_dim(t_col, j, 1, axis=0)  # (1, 1)
        t_col = mnp.where((ks > j)[:, None], t_col, 0)
        rhs = lax.dynamic_slice_in_dim(f, j, 1, axis=1) - mnp.matmul(
            y, t_col, precision=lax.Precision.HIGHEST
        )
        y_j = lax_linalg.triangular_solve(r + t_jj * eye, rhs, left_side=True, lower=False)
        return lax.dynamic_update_slice_in_dim(y, y_j, j, axis=1), None

    # the column index as the scanned input (not a carried counter), so that under
    # differentiation everything but Y and F stays known and the solves transpose
    y, _ = lax.scan(column, mnp.zeros_like(f), mnp.arange(n - 1, -1, -1))
    return y


def _solve_sylvester_2d(method: str, tol: float, a: Any, b: Any, c: Any) -> Any:
    """JAX's ``_solve_sylvester_2d``: Bartels-Stewart on the complex Schur forms
    ``A = U R U^H``, ``B^H = V S V^H`` (``"schur"``), or the eigendecompositions (``"eigen"``);
    NaNs where an eigenvalue of ``A`` and one of ``B`` sum to within ``tol`` of zero."""
    highest = lax.Precision.HIGHEST

    def mm(x: Any, y: Any) -> Any:
        return mnp.matmul(x, y, precision=highest)

    if method == "schur":
        r, u = schur(a, output="complex")
        s, v = schur(mnp.conj(b).T, output="complex")
        f = mm(mm(mnp.conj(u).T, c.astype(r.dtype)), v)
        y = _sylvester_triangular(r, mnp.conj(s).T, f)
        x = mm(mm(u, y), mnp.conj(v).T)
    else:
        ra, ua = mla.eig(a)
        rb, ub = mla.eig(b)
        f = mla.solve(ua, mm(c.astype(ra.dtype), ub))
        y = f / (ra[:, None] + rb[None, :])
        x = mm(mm(ua, y), mla.inv(ub))
    if not mnp.iscomplexobj(c):
        x = mnp.real(x)
    sums = mla.eigvals(lax.stop_gradient(a))[:, None] + mla.eigvals(lax.stop_gradient(b))[None, :]
    singular = mnp.any(mnp.abs(sums) < tol)
    return mnp.where(singular, mnp.zeros_like(x) * np.nan, x)


_solve_sylvester = custom_jvp(_solve_sylvester_2d, nondiff_argnums=(0, 1))


@_solve_sylvester.defjvp
def _solve_sylvester_jvp(
    method: str, tol: float, primals: tuple[Any, Any, Any], tangents: tuple[Any, Any, Any]
) -> tuple[Any, Any]:
    """``dX`` solves the same equation with ``dC - dA X - X dB`` on the right (JAX has no
    derivative here: its ``schur`` has none; mj's ``solve_sylvester`` keeps one)."""
    a, b, c = primals
    da, db, dc = tangents
    x = _solve_sylvester(method, tol, a, b, c)
    rhs = dc - mnp.matmul(da, x) - mnp.matmul(x, db)
    return x, _solve_sylvester_2d(method, tol, a, b, rhs.astype(x.dtype))


def solve_sylvester(
    A: ArrayLike,  # noqa: N803 (SciPy's names)
    B: ArrayLike,  # noqa: N803
    C: ArrayLike,  # noqa: N803
    *,
    method: str = "schur",
    tol: float = 1e-8,
) -> Array:
    """``X`` with ``A X + X B = C`` (``A`` m x m, ``B`` n x n, ``C`` m x n; leading batch
    dimensions broadcast), by JAX's algorithms: ``"schur"``, Bartels and Stewart's on the
    complex Schur forms of ``A`` and ``B^H`` (``O(m^3 + n^3 + m^2 n)``), or ``"eigen"``, through
    the eigendecompositions of ``A`` and ``B``. As in JAX, a matrix of NaNs where an eigenvalue
    of ``A`` and one of ``B`` sum to within ``tol`` of zero (no unique solution)."""
    if method not in ("schur", "eigen"):
        raise ValueError(
            f'Unrecognized method {method}. The two valid methods are either "schur" or '
            f'"eigen".{user_line_suffix()}'
        )
    a, b, c = promote_inexact(*(mnp.asarray(v) for v in (A, B, C)))  # JAX's promotion
    m, n = c.shape[-2], c.shape[-1]
    if a.shape[-2:] != (m, m) or b.shape[-2:] != (n, n):
        raise ValueError(
            f"Incompatible shapes for Sylvester equation:\nA: {a.shape}\nB: {b.shape}\n"
            f"C: {c.shape}{user_line_suffix()}"
        )
    solve = partial(_solve_sylvester, method, tol)
    out: Array = vectorize(solve, signature="(m,m),(n,n),(m,n)->(m,n)")(a, b, c)
    return out
