"""Polynomials as 1-D coefficient arrays, highest degree first (NumPy's ``poly1d`` order):
arithmetic (``polyadd``, ``polysub``, ``polymul``, ``polydiv``), calculus (``polyder``,
``polyint``), the least-squares fit ``polyfit`` and the conversions between roots and
coefficients (``poly``, ``roots``), with ``jax.numpy``'s signatures and dtypes.

mj has no general eigenvalue primitive, so the two places where ``jax.numpy`` calls
``eigvals`` take other routes, both made of ``lax`` operations (so they jit and batch):
``roots`` runs the Aberth-Ehrlich simultaneous iteration (every root refined at once, each
frozen when its residual reaches rounding level) and differentiates implicitly
(``dr = -dp(r) / p'(r)``); ``poly`` of a square matrix reduces it to Hessenberg form with
Householder reflections and expands ``det(x I - H)`` by La Budde's recurrence. The roots come
out in a different order than LAPACK's."""

from __future__ import annotations

from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj.numpy import linalg
from mj.numpy._manipulation import roll
from mj.numpy._reshaping import trim_zeros
from mj_autodiff import custom_jvp
from mj_control import while_loop
from mj_core import lax
from mj_core.dtypes import float_info
from mj_core.errors import user_line_suffix
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    check_arraylike,
    concrete_or_error,
    dtype_weak,
    promote,
    promote_inexact,
    static_int,
)
from mj_core.numpy import vander

__all__ = [
    "poly",
    "polyadd",
    "polyder",
    "polydiv",
    "polyfit",
    "polyint",
    "polymul",
    "polysub",
    "roots",
]


def _coefficients(name: str, *ps: ArrayLike, inexact: bool = True) -> list[Array]:
    """``ps`` as 1-D arrays of one promoted dtype (inexact unless told otherwise)."""
    check_arraylike(name, list(ps))
    arrays = [cnp.asarray(p) for p in ps]
    for p in arrays:
        if cnp.ndim(p) == 0:
            raise ValueError(
                f"{name}: expected a 1-D array of coefficients, got a scalar{user_line_suffix()}"
            )
    return promote_inexact(*arrays) if inexact else promote(*arrays)


def polyadd(a1: ArrayLike, a2: ArrayLike) -> Array:
    """The sum of two polynomials (the shorter one aligned to the constant terms)."""
    a1, a2 = _coefficients("polyadd", a1, a2, inexact=False)
    if cnp.shape(a2)[0] > cnp.shape(a1)[0]:
        a1, a2 = a2, a1
    return a1.at[cnp.shape(a1)[0] - cnp.shape(a2)[0] :].add(a2)


def polysub(a1: ArrayLike, a2: ArrayLike) -> Array:
    """The difference of two polynomials."""
    a1, a2 = _coefficients("polysub", a1, a2, inexact=False)
    if dtype_weak(a1)[0].kind == "b":
        raise TypeError(f"polysub: bool coefficients cannot be subtracted{user_line_suffix()}")
    return polyadd(a1, lax.neg(a2))


def polymul(a1: ArrayLike, a2: ArrayLike, *, trim_leading_zeros: bool = False) -> Array:
    """The product of two polynomials (a full convolution of the coefficients);
    ``trim_leading_zeros`` needs concrete coefficients."""
    a1, a2 = _coefficients("polymul", a1, a2)
    if trim_leading_zeros and (cnp.shape(a1)[0] > 1 or cnp.shape(a2)[0] > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if cnp.shape(a1)[0] == 0:
        a1 = cnp.zeros(1, dtype_weak(a2)[0])
    if cnp.shape(a2)[0] == 0:
        a2 = cnp.zeros(1, dtype_weak(a1)[0])
    return cnp.convolve(a1, a2, mode="full")


def polydiv(
    u: ArrayLike, v: ArrayLike, *, trim_leading_zeros: bool = False
) -> tuple[AnyArray, AnyArray]:
    """``(quotient, remainder)`` of polynomial long division; the remainder keeps ``u``'s
    length unless ``trim_leading_zeros`` (concrete input) drops its leading near-zeros."""
    u, v = _coefficients("polydiv", u, v)
    m, n = cnp.shape(u)[0] - 1, cnp.shape(v)[0] - 1
    scale = lax.div(1.0, v[0])
    q = cnp.zeros(max(m - n + 1, 1), dtype_weak(u)[0])
    for k in range(m - n + 1):
        d = lax.mul(scale, u[k])
        q = q.at[k].set(d)
        u = u.at[k : k + n + 1].add(lax.neg(lax.mul(d, v)))
    if trim_leading_zeros:
        values = concrete_or_error("polydiv", u, "the remainder", "Pass trim_leading_zeros=False.")
        tol = np.sqrt(float_info(values.dtype).eps)
        big = np.flatnonzero(np.abs(values) >= tol)
        u = u[int(big[0]) :] if big.size else cnp.zeros(0, values.dtype)
    return q, u


def polyder(p: ArrayLike, m: int = 1) -> Array:
    """The ``m``-th derivative of a polynomial."""
    m = static_int("polyder", m, "the order m")
    (p,) = _coefficients("polyder", p)
    if m < 0:
        raise ValueError(f"polyder: the order m must be non-negative, got {m}{user_line_suffix()}")
    if m == 0:
        return p
    n = cnp.shape(p)[0]
    dtype, _ = dtype_weak(p)
    powers = np.arange(m, max(n, m), dtype=dtype)[None, :] - np.arange(m, dtype=dtype)[:, None]
    factors = np.prod(powers, axis=0)[::-1]
    return lax.mul(p[: max(n - m, 0)], cnp.asarray(factors.copy()))


def polyint(p: AnyArray, m: int = 1, k: AnyArray | None = None) -> AnyArray:
    """The ``m``-th antiderivative of a polynomial; ``k`` holds the integration constants
    (one for all ``m`` integrations, or one each, the first integration's first)."""
    m = static_int("polyint", m, "the order m")
    (p,) = _coefficients("polyint", p)
    k = 0 if k is None else k
    check_arraylike("polyint", [k])
    p, k_arr = promote_inexact(p, k)  # a Python scalar k is weak: p's dtype wins
    if m < 0:
        raise ValueError(f"polyint: the order m must be non-negative, got {m}{user_line_suffix()}")
    k_arr = cnp.atleast_1d(k_arr)
    if cnp.shape(k_arr)[0] == 1:
        k_arr = lax.broadcast_in_dim(cnp.reshape(k_arr, ()), (m,), ())
    if cnp.shape(k_arr) != (m,):
        raise ValueError(
            f"polyint: k must be a scalar or a 1-D array of length 1 or m={m}, got shape "
            f"{cnp.shape(k)}{user_line_suffix()}"
        )
    if m == 0:
        return p
    dtype, _ = dtype_weak(p)
    n = cnp.shape(p)[0]
    grid = np.arange(n + m, dtype=dtype)[None, :] - np.arange(m, dtype=dtype)[:, None]
    divisors = np.prod(np.maximum(grid, 1), axis=0)[::-1]
    return lax.div(cnp.concatenate([p, k_arr]), cnp.asarray(divisors.copy()))


def poly(seq_of_zeros: ArrayLike) -> Array:
    """The coefficients of the monic polynomial with the given roots (a scalar counts as one
    root); for a square matrix, of its characteristic polynomial (complex, as in JAX)."""
    check_arraylike("poly", [seq_of_zeros])
    (zeros,) = promote_inexact(cnp.asarray(seq_of_zeros))
    zeros = cnp.atleast_1d(zeros)
    shape = cnp.shape(zeros)
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        return _characteristic_polynomial(zeros)
    if len(shape) != 1:
        raise ValueError(
            f"poly: input must be 1-D or a non-empty square 2-D array, got shape {shape}"
            f"{user_line_suffix()}"
        )
    dtype, _ = dtype_weak(zeros)
    if shape[0] == 0:
        return cnp.ones((), dtype)
    coeffs = cnp.ones((1,), dtype)
    zero = cnp.zeros((1,), dtype)
    for k in range(shape[0]):  # multiply by (x - zeros[k])
        shifted = lax.mul(zeros[k], cnp.concatenate([zero, coeffs]))
        coeffs = lax.sub(cnp.concatenate([coeffs, zero]), shifted)
    return coeffs


def _complex_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return np.result_type(dtype, np.complex64)


def _unit_phase(z: ArrayLike) -> Array:
    """``z / |z|`` for a complex scalar, 1 at zero."""
    r = lax.abs(z)
    nonzero = lax.gt(r, lax.full_like(r, 0))
    safe = lax.convert_element_type(cnp.where(nonzero, r, lax.full_like(r, 1)), dtype_weak(z)[0])
    return cnp.where(nonzero, lax.div(z, safe), lax.full_like(z, 1))


def _norm(x: ArrayLike) -> Array:
    return lax.sqrt(cnp.sum(lax.real(lax.mul(cnp.conj(x), x))))


def _hessenberg(a: AnyArray) -> AnyArray:
    """A unitarily similar upper Hessenberg matrix (``a`` complex): one Householder
    reflection ``P = I - 2 w w^H`` per column zeroes its entries below the subdiagonal."""
    n = cnp.shape(a)[0]
    dtype, _ = dtype_weak(a)
    for k in range(n - 2):
        x = a[k + 1 :, k]
        # reflect x onto -phase(x0) |x| e1: adding (not subtracting) avoids cancellation
        v = x.at[0].add(lax.mul(_unit_phase(x[0]), lax.convert_element_type(_norm(x), dtype)))
        norm_v = _norm(v)
        safe = cnp.where(lax.gt(norm_v, 0.0), norm_v, lax.full_like(norm_v, 1))
        w = cnp.concatenate(
            [cnp.zeros(k + 1, dtype), lax.div(v, lax.convert_element_type(safe, dtype))]
        )
        reflector = lax.sub(cnp.eye(n, dtype=dtype), lax.mul(2.0, cnp.outer(w, cnp.conj(w))))
        a = cnp.matmul(reflector, cnp.matmul(a, reflector))
    return a


def _characteristic_polynomial(a: ArrayLike) -> Array:
    """``det(x I - a)``'s coefficients by La Budde's recurrence on the Hessenberg form ``h``
    (0-based): ``p_{k+1} = (x - h_kk) p_k - sum_{i<k} h_ik (h_{i+1,i} ... h_{k,k-1}) p_i``."""
    h = _hessenberg(lax.convert_element_type(a, _complex_dtype(dtype_weak(a)[0])))
    n = cnp.shape(h)[0]
    dtype, _ = dtype_weak(h)
    zero = cnp.zeros(1, dtype)
    polys = [cnp.ones((1,), dtype)]  # p_0, p_1, ...: p_k has k + 1 coefficients
    for k in range(n):
        prev = polys[k]
        pk = lax.sub(cnp.concatenate([prev, zero]), lax.mul(h[k, k], cnp.concatenate([zero, prev])))
        chain = lax.full((), 1, dtype)
        for i in range(k - 1, -1, -1):  # rows above the diagonal, nearest first
            chain = lax.mul(chain, h[i + 1, i])
            term = lax.mul(lax.mul(h[i, k], chain), polys[i])
            pk = lax.sub(pk, cnp.concatenate([cnp.zeros(k + 1 - i, dtype), term]))
        polys.append(pk)
    return polys[n]


def _horner(coeffs: AnyArray, z: AnyArray) -> AnyArray:
    """The polynomial ``coeffs`` (highest degree first) at each of ``z``."""
    acc = lax.full_like(z, 0)
    for i in range(cnp.shape(coeffs)[0]):
        acc = lax.add(lax.mul(acc, z), coeffs[i])
    return acc


def _derivative_coefficients(c: AnyArray) -> AnyArray:
    n = cnp.shape(c)[0] - 1
    return lax.mul(c[:n], np.arange(n, 0, -1).astype(dtype_weak(c)[0]))


_MAX_ABERTH_STEPS = 500


@custom_jvp
def _roots(p: ArrayLike) -> Array:
    """The ``n`` roots of the degree-``n`` polynomial ``p`` (``p[0] != 0``), complex; the
    zero roots of its trailing zero coefficients come last, exactly 0."""
    n = cnp.shape(p)[0] - 1
    dtype = _complex_dtype(dtype_weak(p)[0])
    eps = float(float_info(dtype).eps)
    pc = lax.convert_element_type(p, dtype)
    trailing = cnp.argmax(lax.rev(lax.convert_element_type(lax.ne(p, 0), np.int32), (0,)))
    degree = lax.sub(n, trailing)
    q = roll(pc, trailing)  # p / x**trailing, with leading zeros instead
    dq = _derivative_coefficients(q)
    abs_q = lax.abs(q)
    active = lax.lt(lax.iota(np.int64, n), degree)
    pair = lax.bitwise_and(cnp.expand_dims(active, 0), lax.bitwise_not(cnp.eye(n, dtype=np.bool_)))

    # start on a circle of the roots' geometric-mean radius, off the real axis
    deg = lax.convert_element_type(lax.max(degree, 1), abs_q.dtype)
    radius = lax.pow(lax.div(abs_q[n], lax.abs(pc[0])), lax.div(1.0, deg))
    angle = lax.add(lax.div(lax.mul(2 * np.pi, lax.iota(abs_q.dtype, n)), deg), 0.4)
    z0 = lax.convert_element_type(
        lax.complex(lax.mul(radius, lax.cos(angle)), lax.mul(radius, lax.sin(angle))), dtype
    )

    def unfinished(state: tuple[ArrayLike, ArrayLike, ArrayLike]) -> Array:
        _, done, step = state
        return lax.bitwise_and(lax.lt(step, _MAX_ABERTH_STEPS), lax.bitwise_not(cnp.all(done)))

    def aberth_step(
        state: tuple[ArrayLike, ArrayLike, ArrayLike],
    ) -> tuple[Array, Array, Array]:
        """``z_j -= 1 / (p'(z_j) / p(z_j) - sum_{k != j} 1 / (z_j - z_k))`` for the roots
        whose residual is still above rounding level (these are then frozen)."""
        z, done, step = state
        pz, dpz = _horner(q, z), _horner(dq, z)
        bound = lax.mul(_horner(abs_q, lax.abs(z)), 4 * (n + 1) * eps)
        done = lax.bitwise_or(done, lax.le(lax.abs(pz), bound))
        gaps = lax.sub(cnp.expand_dims(z, 1), cnp.expand_dims(z, 0))
        safe_gaps = cnp.where(pair, gaps, lax.full_like(gaps, 1))
        repulsion = cnp.sum(cnp.where(pair, lax.div(1.0, safe_gaps), lax.full_like(gaps, 0)), 1)
        newton = lax.div(dpz, cnp.where(lax.eq(pz, 0), lax.full_like(pz, 1), pz))
        den = lax.sub(newton, repulsion)
        step_z = lax.div(1.0, cnp.where(lax.eq(den, 0), lax.full_like(den, 1), den))
        return cnp.where(done, z, lax.sub(z, step_z)), done, lax.add(step, 1)

    z, _, _ = while_loop(unfinished, aberth_step, (z0, lax.bitwise_not(active), 0))
    return cnp.where(active, z, lax.full_like(z, 0))


@_roots.defjvp
def _roots_jvp(primals: tuple[ArrayLike], tangents: tuple[ArrayLike]) -> tuple[Array, Array]:
    """Implicit differentiation of ``p(r) = 0``: ``dr = -dp(r) / p'(r)``."""
    (p,), (dp,) = primals, tangents
    r = _roots(p)
    dtype = dtype_weak(r)[0]
    pc = lax.convert_element_type(p, dtype)
    num = _horner(lax.convert_element_type(dp, dtype), r)
    return r, lax.neg(lax.div(num, _horner(_derivative_coefficients(pc), r)))


def roots(p: AnyArray, *, strip_zeros: bool = True) -> AnyArray:
    """The (complex) roots of the polynomial ``p``. Leading zeros are stripped, which needs
    concrete coefficients; with ``strip_zeros=False`` (traceable) they give NaN roots, last."""
    check_arraylike("roots", [p])
    (p,) = promote_inexact(cnp.asarray(p))
    p = cnp.atleast_1d(p)
    if cnp.ndim(p) != 1:
        raise ValueError(f"roots: p must be 1-D, got shape {cnp.shape(p)}{user_line_suffix()}")
    dtype = _complex_dtype(dtype_weak(p)[0])
    n = cnp.shape(p)[0] - 1
    if n < 1:
        return cnp.zeros(0, dtype)
    if strip_zeros:
        hint = "Pass strip_zeros=False to trace roots: leading zeros then give NaN roots."
        values = concrete_or_error("roots", p, "p (with strip_zeros=True)", hint)
        nonzero = np.flatnonzero(values)
        lead = int(nonzero[0]) if nonzero.size else n + 1
        return _roots(p[lead:]) if n - lead >= 1 else cnp.zeros(0, dtype)
    is_zero = lax.eq(p, 0)
    all_zero = cnp.all(is_zero)
    leading = cnp.where(
        all_zero, n + 1, cnp.argmax(lax.convert_element_type(lax.bitwise_not(is_zero), np.int32))
    )
    p = cnp.where(all_zero, lax.full_like(p, 1), p)
    found = _roots(roll(p, lax.neg(leading)))  # leading zeros become zero roots, last
    undefined = lax.full_like(found, complex(np.nan, np.nan))
    return cnp.where(lax.lt(lax.iota(np.int64, n), lax.sub(n, leading)), found, undefined)


def polyfit(
    x: ArrayLike,
    y: ArrayLike,
    deg: int,
    rcond: float | None = None,
    full: bool = False,
    w: ArrayLike | None = None,
    cov: bool | str = False,
) -> Array | tuple[Array, ...]:
    """Least-squares coefficients of the degree-``deg`` polynomial through ``(x, y)``
    (``y`` of shape ``(M,)`` or ``(M, K)``), with weights ``w`` on the residuals. ``full``:
    also ``(residuals, rank, singular values, rcond)``; else ``cov``: also the coefficients'
    covariance (scaled by ``residuals / (M - deg - 1)`` unless ``cov='unscaled'``)."""
    check_arraylike("polyfit", [x, y] if w is None else [x, y, w])
    x, y = cnp.asarray(x), cnp.asarray(y)
    deg = static_int("polyfit", deg, "deg")
    order = deg + 1
    if deg < 0:
        raise ValueError(f"polyfit: deg must be non-negative, got {deg}{user_line_suffix()}")
    if cnp.ndim(x) != 1 or cnp.shape(x)[0] == 0:
        raise TypeError(
            f"polyfit: expected a non-empty 1-D x, got shape {cnp.shape(x)}{user_line_suffix()}"
        )
    if cnp.ndim(y) not in (1, 2):
        raise TypeError(
            f"polyfit: expected a 1-D or 2-D y, got shape {cnp.shape(y)}{user_line_suffix()}"
        )
    m = cnp.shape(x)[0]
    if cnp.shape(y)[0] != m:
        raise TypeError(
            f"polyfit: x and y must have the same length, got shapes {cnp.shape(x)} and "
            f"{cnp.shape(y)}{user_line_suffix()}"
        )
    if rcond is None:
        rcond = m * float(float_info(dtype_weak(promote_inexact(x)[0])[0]).eps)
    rcond = float(concrete_or_error("polyfit", rcond, "rcond"))
    lhs, rhs = vander(x, order), y
    if w is not None:
        (w,) = promote_inexact(cnp.asarray(w))
        if cnp.ndim(w) != 1 or cnp.shape(w)[0] != m:
            raise TypeError(
                f"polyfit: expected a 1-D w with one weight per point ({m}), got shape "
                f"{cnp.shape(w)}{user_line_suffix()}"
            )
        lhs = lax.mul(lhs, cnp.expand_dims(w, 1))
        rhs = lax.mul(rhs, cnp.expand_dims(w, 1) if cnp.ndim(rhs) == 2 else w)
    # scale the columns to improve the condition number, solve, and undo the scaling
    (squares,) = promote_inexact(cnp.sum(lax.mul(lhs, lhs), axis=0))
    scale = lax.sqrt(squares)
    lhs = cnp.true_divide(lhs, cnp.expand_dims(scale, 0))
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = lax.div(c, cnp.expand_dims(scale, 1) if cnp.ndim(c) == 2 else scale)
    if full:
        return c, resids, rank, s, cnp.asarray(rcond)
    if not cov:
        return c
    vbase = lax.div(linalg.inv(cnp.dot(cnp.transpose(lhs), lhs)), cnp.outer(scale, scale))
    if cov == "unscaled":
        fac = cnp.ones((1,), dtype_weak(vbase)[0])
    else:
        if m <= order:
            raise ValueError(
                f"polyfit: scaling the covariance needs more data points ({m}) than "
                f"coefficients ({order}); pass cov='unscaled'{user_line_suffix()}"
            )
        fac = lax.div(resids, float(m - order))
    if cnp.ndim(y) == 1:
        return c, lax.mul(vbase, cnp.expand_dims(fac, 0))
    return c, lax.mul(cnp.expand_dims(vbase, 2), cnp.reshape(fac, (1, 1, -1)))
