"""``sqrtm`` and ``solve_sylvester`` for :mod:`mj.scipy.linalg`.

JAX computes both from a Schur decomposition, which mj does not have (nor complex LU), so
these take other routes to the same answers:

* ``sqrtm``: the scaled product-form Denman-Beavers iteration (Higham, *Functions of
  Matrices*, 6.17), a fixed number of steps (converged steps are no-ops), so it compiles,
  batches and differentiates. It converges to the principal square root when no eigenvalue
  lies on the closed negative real axis; to reach matrices that have such eigenvalues (a
  real matrix with a negative eigenvalue, whose root is complex), it works on
  ``exp(i theta) A`` for a tiny negative ``theta`` and rotates back, which is exact unless
  an eigenvalue lies within ``theta`` below the negative axis. The result is complex, as
  JAX's.
* ``solve_sylvester``: ``A X + X B = C`` as the linear system
  ``(I kron A + B^T kron I) vec(X) = vec(C)``, solved directly: exact, but of size
  ``(m n)^2``, so meant for small matrices.

Complex matrices are handled in the real form ``[[Re, -Im], [Im, Re]]`` of a complex matrix,
on mj's real LU.
"""

from __future__ import annotations

import math
from typing import Any

import mj.numpy as mnp
from mj import lax
from mj.numpy import linalg as mla
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike

__all__ = ["solve_sylvester", "sqrtm"]

_ITERATIONS = 48
_THETA = -1e-3  # the rotation that moves negative real eigenvalues off the branch cut


def _real_form(m: ArrayLike) -> Array:
    """``[[Re m, -Im m], [Im m, Re m]]``: the real matrix acting like complex ``m``."""
    re, im = mnp.real(m), mnp.imag(m)
    return mnp.concatenate(
        [mnp.concatenate([re, -im], axis=-1), mnp.concatenate([im, re], axis=-1)], axis=-2
    )


def _complex_inv_and_logabsdet(m: AnyArray) -> tuple[AnyArray, AnyArray]:
    n = m.shape[-1]
    r = _real_form(m)
    inv = mla.inv(r)
    # det of the real form is |det m|^2
    return lax.complex(inv[..., :n, :n], inv[..., n:, :n]), 0.5 * mla.slogdet(r)[1]


def _square(name: str, a: ArrayLike) -> Array:
    a = mnp.asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(
            f"{name}: expected a square matrix, got shape {a.shape}{user_line_suffix()}"
        )
    return a


def sqrtm(A: ArrayLike, blocksize: int = 1) -> AnyArray:  # noqa: N803 (SciPy's name)
    """The principal square root ``X`` of ``A`` (``X @ X == A``), complex. ``blocksize`` is
    accepted for SciPy compatibility (JAX ignores it too)."""
    del blocksize
    a = _square("sqrtm", A)
    # complex64 for float32/complex64 input, else complex128
    single = mnp.result_type(a) in (mnp.float32, mnp.complex64)
    dtype: Any = mnp.dtype(mnp.complex64 if single else mnp.complex128)
    n = a.shape[0]
    eye = mnp.eye(n, dtype=dtype)
    rotated = a.astype(dtype) * complex(math.cos(_THETA), math.sin(_THETA))

    def step(_: ArrayLike, state: tuple[ArrayLike, ArrayLike]) -> tuple[Array, Array]:
        x, m = state
        m_inv, logabsdet = _complex_inv_and_logabsdet(m)
        mu = mnp.exp(-logabsdet / (2 * n)).astype(dtype)  # determinant scaling
        x = 0.5 * mu * (x @ (eye + m_inv / (mu * mu)))
        m = 0.5 * (eye + 0.5 * (mu * mu * m + m_inv / (mu * mu)))
        return x, m

    x, _ = lax.fori_loop(0, _ITERATIONS, step, (rotated, rotated))
    return x * complex(math.cos(-_THETA / 2), math.sin(-_THETA / 2))


def solve_sylvester(
    A: ArrayLike,  # noqa: N803 (SciPy's names)
    B: ArrayLike,  # noqa: N803
    C: ArrayLike,  # noqa: N803
    *,
    method: str = "schur",
    tol: float = 1e-8,
) -> Array:
    """``X`` with ``A X + X B = C`` (``A`` m x m, ``B`` n x n, ``C`` m x n; leading batch
    dimensions broadcast). ``method`` (``"schur"``/``"eigen"``) and ``tol`` are accepted as in
    JAX; the system is solved directly, so both give the same answer."""
    if method not in ("schur", "eigen"):
        raise ValueError(f"Unrecognized method {method}{user_line_suffix()}")
    del tol
    a, b, c = (mnp.asarray(v) for v in (A, B, C))
    dtype = mnp.result_type(a, b, c, mnp.float32)
    a, b, c = (v.astype(dtype) for v in (a, b, c))
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
    return mnp.swapaxes(vec.reshape((*batch, n, m)), -1, -2)
