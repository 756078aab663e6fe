"""``expm``: the matrix exponential by Pade approximation with scaling and squaring
(Higham 2005), with ``jax.scipy.linalg.expm``'s degree thresholds (a complex matrix takes its
real type's). The degree is chosen from
the 1-norm with ``switch`` and the squarings run in a ``scan`` of ``cond`` s, so ``expm``
stages under ``jit`` with a data-dependent degree, differentiates (through ``solve`` and
``matmul``) and batches."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

import mj_core.numpy as cnp
from mj.numpy import linalg as mla
from mj_batch import vmap
from mj_control import cond, scan, switch
from mj_core import lax, lax_linalg
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, promote_inexact
from mj_core.lax_linalg import matmul

__all__ = ["expm"]

PadeTerms = Callable[[AnyArray], tuple[AnyArray, AnyArray]]

# Pade coefficients b_0..b_m of degree m (numerator p(A) = U + V, denominator q(A) = V - U)
_B3 = (120.0, 60.0, 12.0, 1.0)
_B5 = (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0)
_B7 = (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0)
_B9 = (
    17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0,
    3960.0, 90.0, 1.0,
)  # fmt: skip
_B13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
    40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)  # fmt: skip

# 1-norm thresholds below which each lower degree is accurate, and the norm scaled to
_F64_CONDS = (1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001,
              2.097847961257068e000)  # fmt: skip
_F64_MAXNORM = 5.371920351148152
_F32_CONDS = (4.258730016922831e-001, 1.880152677804762e000)
_F32_MAXNORM = 3.925724783138660


def _low_degree(b: tuple[float, ...]) -> PadeTerms:
    """``(U, V)`` of a Pade approximant of degree 3, 5, 7 or 9: ``U`` the odd part."""

    def terms(a: ArrayLike) -> tuple[AnyArray, AnyArray]:
        eye = lax_linalg.eye_like(a)
        a2 = matmul(a, a)
        powers = [a2]
        for _ in range((len(b) - 1) // 2 - 1):
            powers.append(matmul(powers[-1], a2))
        u = matmul(a, _terms_sum(b[1::2], powers, eye))
        v = _terms_sum(b[0::2], powers, eye)
        return u, v

    return terms


def _terms_sum(b: tuple[float, ...], powers: Sequence[ArrayLike], eye: ArrayLike) -> Array:
    """``b[-1] A^(2k) + ... + b[1] A^2 + b[0] I`` summed from the highest power down (JAX's
    order of additions)."""
    out = lax.mul(b[-1], powers[len(b) - 2])
    for k in range(len(b) - 2, 0, -1):
        out = lax.add(out, lax.mul(b[k], powers[k - 1]))
    return lax.add(out, lax.mul(b[0], eye))


def _pade13(a: ArrayLike) -> tuple[Array, Array]:
    b = _B13
    eye = lax_linalg.eye_like(a)
    a2 = matmul(a, a)
    a4 = matmul(a2, a2)
    a6 = matmul(a4, a2)
    inner_u = lax.add(lax.add(lax.mul(b[13], a6), lax.mul(b[11], a4)), lax.mul(b[9], a2))
    u = matmul(
        a,
        lax.add(
            lax.add(
                lax.add(lax.add(matmul(a6, inner_u), lax.mul(b[7], a6)), lax.mul(b[5], a4)),
                lax.mul(b[3], a2),
            ),
            lax.mul(b[1], eye),
        ),
    )
    inner_v = lax.add(lax.add(lax.mul(b[12], a6), lax.mul(b[10], a4)), lax.mul(b[8], a2))
    v = lax.add(
        lax.add(
            lax.add(lax.add(matmul(a6, inner_v), lax.mul(b[6], a6)), lax.mul(b[4], a4)),
            lax.mul(b[2], a2),
        ),
        lax.mul(b[0], eye),
    )
    return u, v


def _expm_matrix(a: AnyArray, upper_triangular: bool, max_squarings: int) -> AnyArray:
    conds: tuple[float, ...]
    if a.dtype in (np.float64, np.complex128):  # a complex matrix: its real type's degrees
        maxnorm, conds = _F64_MAXNORM, _F64_CONDS
        branches = [_low_degree(_B3), _low_degree(_B5), _low_degree(_B7), _low_degree(_B9)]
        branches.append(_pade13)
    else:
        maxnorm, conds = _F32_MAXNORM, _F32_CONDS
        branches = [_low_degree(_B3), _low_degree(_B5), _low_degree(_B7)]
    norm = mla.norm(a, 1)
    n_squarings = cnp.maximum(0.0, cnp.floor(cnp.log2(lax.div(norm, maxnorm))))
    a = lax.div(a, lax.pow(2.0, lax.convert_element_type(n_squarings, a.dtype)))
    bins = np.asarray(conds, norm.dtype)
    index = cnp.sum(lax.convert_element_type(lax.ge(norm, bins), np.int32))
    u, v = switch(index, branches, a)
    p, q = lax.add(u, v), lax.sub(v, u)

    def compute(pq: tuple[AnyArray, AnyArray]) -> AnyArray:
        p_, q_ = pq
        if upper_triangular:
            r = lax_linalg.triangular_solve(q_, p_, left_side=True, lower=False)
        else:
            r = mla.solve(q_, p_)

        def square(r_: ArrayLike, i: ArrayLike) -> tuple[Array, None]:
            return cond(lax.lt(i, n_squarings), lambda m: matmul(m, m), lambda m: m, r_), None

        r, _ = scan(square, r, cnp.arange(max_squarings, dtype=n_squarings.dtype))
        return r

    def overflow(pq: tuple[ArrayLike, ArrayLike]) -> Array:
        return lax.full_like(pq[0], np.nan)

    return cond(lax.gt(n_squarings, float(max_squarings)), overflow, compute, (p, q))


def expm(A: ArrayLike, *, upper_triangular: bool = False, max_squarings: int = 16) -> AnyArray:  # noqa: N803
    """``exp(A)`` of a (stack of) square matrices; NaN where more than ``max_squarings``
    squarings would be needed. ``upper_triangular`` solves with a triangular solve."""
    (a,) = promote_inexact(cnp.asarray(A))  # integer/bool matrices as JAX's float
    a = lax_linalg.as_float_matrix("expm", a, square=True, complex_ok=True)
    if cnp.ndim(a) < 2:
        raise ValueError(
            f"expm: expected a (batched) square matrix, got shape {cnp.shape(a)}"
            f"{user_line_suffix()}"
        )
    fn: Callable[[AnyArray], AnyArray] = lambda m: _expm_matrix(m, upper_triangular, max_squarings)  # noqa: E731
    for _ in range(cnp.ndim(a) - 2):
        fn = vmap(fn)
    return fn(a)
