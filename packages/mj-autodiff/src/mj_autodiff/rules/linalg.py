"""JVP rules of the linear-algebra primitives (closed forms, as JAX's ``lax.linalg``) and the
transpose of ``triangular_solve`` in its right-hand side.

Every tangent is written with primitives that are linear in the tangent (matmuls with known
factors, triangular solves against a known triangle, masks, conjugation), so
``linearize``/``vjp`` can transpose them. Integer outputs (LU's pivots) get ``Zero``
tangents. Complex operands follow JAX's rules: conjugate transposes where real ones have
transposes, real tangents for the real outputs (``eigh``'s eigenvalues, ``svd``'s singular
values).
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import Zero, instantiate_zeros, shape_dtype, tangent_aval_of
from mj_autodiff._transpose import Operand, UndefPrimal, transpose_rules
from mj_autodiff.rules.elementwise import undifferentiable
from mj_core import bind, bind1, get_aval, lax
from mj_core.extend import Array, ArrayLike
from mj_core.lax_linalg import (
    diagonal,
    eye_like,
    matmul,
    mH,
    mT,
    triangular_solve,
    tril,
    triu,
)
from mj_core.prims.linalg import (
    cholesky_p,
    eig_p,
    eigh_p,
    geqp3_p,
    geqrf_p,
    hessenberg_p,
    householder_product_p,
    lu_p,
    qr_p,
    schur_p,
    svd_p,
    triangular_solve_p,
    tridiagonal_p,
    tridiagonal_solve_p,
)

Rule = tuple[list[Any], list[Any]]
_A = TypeVar("_A", bound=ArrayLike)


def _is_complex(x: ArrayLike) -> bool:
    return bool(shape_dtype(x)[1].kind == "c")


def _conj(x: _A) -> _A | Array:
    """``conj(x)`` for complex ``x``; real ``x`` as it is (``lax.conj`` would make it complex)."""
    return lax.conj(x) if _is_complex(x) else x


def _as_dtype_of(x: _A, like: ArrayLike) -> _A | Array:
    """``x`` converted to ``like``'s dtype (a real factor meeting a complex tangent)."""
    dtype = shape_dtype(like)[1]
    return x if shape_dtype(x)[1] == dtype else lax.convert_element_type(x, dtype)


# --- cholesky ---------------------------------------------------------------------------------
def _cholesky_jvp(primals: list[Any], tangents: list[Any]) -> Rule:
    (a,), (a_dot,) = primals, tangents
    low = bind1(cholesky_p, a)
    if type(a_dot) is Zero:
        return [low], [Zero(tangent_aval_of(low))]
    # dL = L phi(L^-1 dA L^-H), phi = lower triangle with the diagonal halved
    sym = lax.div(lax.add(a_dot, mH(a_dot)), lax.full_like(a_dot, 2))
    tmp = triangular_solve(
        low, sym, left_side=False, lower=True, transpose_a=True, conjugate_a=_is_complex(low)
    )
    inner = triangular_solve(low, tmp, left_side=True, lower=True)
    halved = lax.sub(
        tril(inner), lax.mul(lax.full_like(inner, 0.5), lax.mul(inner, eye_like(inner)))
    )
    return [low], [matmul(low, halved)]


jvp_rules[cholesky_p] = _cholesky_jvp


# --- triangular_solve -------------------------------------------------------------------------
def _triangular_solve_jvp(primals: list[Any], tangents: list[Any], **params: bool) -> Rule:
    (a, b), (a_dot, b_dot) = primals, tangents
    ans = bind1(triangular_solve_p, a, b, **params)
    out: Any = None
    if type(b_dot) is not Zero:  # linear in b
        out = bind1(triangular_solve_p, a, b_dot, **params)
    if type(a_dot) is not Zero:
        # d(op(a)^-1 b) = -op(a)^-1 op(da) x  (left side);  x = b op(a)^-1: -x op(da) op(a)^-1
        k = -1 if params["unit_diagonal"] else 0
        g = tril(a_dot, k) if params["lower"] else triu(a_dot, -k)
        g = lax.neg(mT(g) if params["transpose_a"] else g)
        g = _conj(g) if params["conjugate_a"] else g
        rhs = matmul(g, ans) if params["left_side"] else matmul(ans, g)
        term = bind1(triangular_solve_p, a, rhs, **params)
        out = term if out is None else lax.add(out, term)
    if out is None:
        return [ans], [Zero(tangent_aval_of(ans))]
    return [ans], [out]


def _triangular_solve_transpose(
    cts: list[Any], a: Operand, b: UndefPrimal, **params: bool
) -> list[Any]:
    if type(a) is UndefPrimal:
        raise TypeError(
            "triangular_solve: the matrix a is a linear (tangent) input, but the solve is "
            "linear only in b and cannot be transposed in a."
        )
    ct = instantiate_zeros(cts[0]) if type(cts[0]) is Zero else cts[0]
    ct_b = bind1(triangular_solve_p, a, ct, **{**params, "transpose_a": not params["transpose_a"]})
    return [None, ct_b]


jvp_rules[triangular_solve_p] = _triangular_solve_jvp
transpose_rules[triangular_solve_p] = _triangular_solve_transpose


# --- tridiagonal_solve ------------------------------------------------------------------------
def _tridiagonal_product(dl: Any, d: Any, du: Any, x: Any) -> Any:
    """``A x`` for the tridiagonal ``A`` of ``dl``, ``d``, ``du`` (JAX's
    ``_tridiagonal_product``)."""
    m = get_aval(x).shape[-2]
    nb = len(get_aval(x).shape) - 2
    y = lax.mul(lax.expand_dims(d, (nb + 1,)), x)
    if m > 1:
        zero_row = lax.full_like(lax.slice_in_dim(x, 0, 1, axis=nb), 0)
        below = lax.mul(
            lax.expand_dims(lax.slice_in_dim(dl, 1, m, axis=nb), (nb + 1,)),
            lax.slice_in_dim(x, 0, m - 1, axis=nb),
        )  # row i gets dl[i] x[i-1]
        above = lax.mul(
            lax.expand_dims(lax.slice_in_dim(du, 0, m - 1, axis=nb), (nb + 1,)),
            lax.slice_in_dim(x, 1, m, axis=nb),
        )  # row i gets du[i] x[i+1]
        y = lax.add(y, lax.concatenate([zero_row, below], nb))
        y = lax.add(y, lax.concatenate([above, zero_row], nb))
    return y


def _tridiagonal_solve_jvp(primals: list[Any], tangents: list[Any], **params: Any) -> Rule:
    """JAX's rule: ``x' = A^-1 (b' - A' x)``."""
    *diags, _ = primals
    *diags_dot, b_dot = tangents
    ans = bind1(tridiagonal_solve_p, *primals, **params)
    if all(type(t) is Zero for t in diags_dot):
        if type(b_dot) is Zero:
            return [ans], [Zero(tangent_aval_of(ans))]
        rhs = b_dot
    else:
        dl_dot, d_dot, du_dot = (instantiate_zeros(t) for t in diags_dot)
        matvec = _tridiagonal_product(dl_dot, d_dot, du_dot, ans)
        rhs = lax.neg(matvec) if type(b_dot) is Zero else lax.sub(b_dot, matvec)
    return [ans], [bind1(tridiagonal_solve_p, *diags, rhs, **params)]


def _tridiagonal_solve_transpose(
    cts: list[Any], dl: Any, d: Any, du: Any, b: Any, **params: Any
) -> list[Any]:
    """Linear in ``b`` only: ``A^T``'s diagonals are ``du`` shifted down and ``dl`` up."""
    if any(type(x) is UndefPrimal for x in (dl, d, du)):
        raise TypeError(
            "tridiagonal_solve: a diagonal is a linear (tangent) input, but the solve is "
            "linear only in b and cannot be transposed in the diagonals."
        )
    if type(cts[0]) is Zero:
        return [None, None, None, None]
    nb = len(get_aval(du).shape) - 1
    m = get_aval(du).shape[-1]
    zero = lax.full_like(lax.slice_in_dim(du, 0, 1, axis=nb), 0)
    dl_t = lax.concatenate([zero, lax.slice_in_dim(du, 0, m - 1, axis=nb)], nb)
    du_t = lax.concatenate([lax.slice_in_dim(dl, 1, m, axis=nb), zero], nb)
    return [None, None, None, bind1(tridiagonal_solve_p, dl_t, d, du_t, cts[0], **params)]


jvp_rules[tridiagonal_solve_p] = _tridiagonal_solve_jvp
transpose_rules[tridiagonal_solve_p] = _tridiagonal_solve_transpose


# --- lu ---------------------------------------------------------------------------------------
def _permutation_matrix(perm: ArrayLike, dtype: np.dtype[Any]) -> Array:
    """``P`` with ``P[..., i, j] = (perm[..., i] == j)``, so ``P @ x == x[..., perm, :]``."""
    shape = tuple(shape_dtype(perm)[0])
    m = shape[-1]
    full = (*shape, m)
    rows = lax.broadcast_in_dim(
        lax.convert_element_type(perm, np.int64), full, tuple(range(len(shape)))
    )
    cols = lax.broadcasted_iota(np.int64, full, len(full) - 1)
    return lax.convert_element_type(lax.eq(rows, cols), dtype)


def _lu_jvp(primals: list[Any], tangents: list[Any]) -> Rule:
    (a,), (a_dot,) = primals, tangents
    lu, pivots, perm = bind(lu_p, a)
    int_zeros: list[Any] = [Zero(tangent_aval_of(pivots)), Zero(tangent_aval_of(perm))]
    if type(a_dot) is Zero:
        return [lu, pivots, perm], [Zero(tangent_aval_of(lu)), *int_zeros]
    shape, dtype = shape_dtype(a)
    *batch, m, n = shape
    k = min(m, n)
    nd = len(shape)
    x = matmul(_permutation_matrix(perm, dtype), a_dot)  # P dA
    zero = lax.convert_element_type(0, dtype)
    # L: m x m unit lower (lu's strict lower part, padded); U: n x n upper (padded with I)
    l_cols = lax.slice(lu, (0,) * nd, (*batch, m, k))
    l_pad = [(0, 0, 0)] * nd
    l_pad[-1] = (0, m - k, 0)
    low = lax.add(lax.pad(tril(l_cols, -1), zero, l_pad), eye_like(lu, m))
    u_rows = lax.slice(lu, (0,) * nd, (*batch, k, n))
    u_pad = [(0, 0, 0)] * nd
    u_pad[-2] = (0, n - k, 0)
    u_eye = lax.pad(eye_like(lu, n - k), zero, [(0, 0, 0)] * (nd - 2) + [(k, 0, 0), (k, 0, 0)])
    up = lax.add(lax.pad(triu(u_rows), zero, u_pad), u_eye)
    la_ = triangular_solve(low, x, left_side=True, lower=True, unit_diagonal=True)
    lau = triangular_solve(up, la_, left_side=False, lower=False)
    lu_dot = lax.add(matmul(low, tril(lau, -1)), matmul(triu(lau), up))
    return [lu, pivots, perm], [lu_dot, *int_zeros]


jvp_rules[lu_p] = _lu_jvp


# --- eigh -------------------------------------------------------------------------------------
def _eigh_jvp(primals: list[Any], tangents: list[Any], **params: bool) -> Rule:
    (a,), (a_dot,) = primals, tangents
    v, w = bind(eigh_p, a, **params)
    if type(a_dot) is Zero:
        return [v, w], [Zero(tangent_aval_of(v)), Zero(tangent_aval_of(w))]
    nd = len(shape_dtype(a)[0])
    eye = eye_like(a)
    w_full = _as_dtype_of(w, a)  # complex for a Hermitian a, as the F matrix must be
    w_row = lax.expand_dims(w_full, (nd - 2,))  # w[..., None, :]
    w_col = lax.expand_dims(w_full, (nd - 1,))  # w[..., :, None]
    # F[i, j] = 1 / (w_j - w_i) off the diagonal, 0 on it (without dividing by zero)
    f_mat = lax.sub(lax.integer_pow(lax.add(eye, lax.sub(w_row, w_col)), -1), eye)
    vh_adot_v = matmul(matmul(mH(v), a_dot), v)
    dv = matmul(v, lax.mul(f_mat, vh_adot_v))
    dw = diagonal(vh_adot_v)
    return [v, w], [dv, lax.real(dw) if _is_complex(dw) else dw]


jvp_rules[eigh_p] = _eigh_jvp


# --- svd --------------------------------------------------------------------------------------
def _svd_jvp(
    primals: list[Any], tangents: list[Any], *, full_matrices: bool, compute_uv: bool
) -> Rule:
    (a,), (a_dot,) = primals, tangents
    outs = bind(svd_p, a, full_matrices=full_matrices, compute_uv=compute_uv)
    if type(a_dot) is Zero:
        return outs, [Zero(tangent_aval_of(o)) for o in outs]
    shape, _ = shape_dtype(a)
    if compute_uv and full_matrices and shape[-2] != shape[-1]:
        raise NotImplementedError(
            "svd: the derivative with full_matrices=True is only defined for square matrices "
            f"(got shape {tuple(shape)}); use full_matrices=False"
        )
    s, u, vt = bind(svd_p, a, full_matrices=False, compute_uv=True)
    v = mH(vt)
    ds_mat = matmul(matmul(mH(u), a_dot), v)
    ds = diagonal(lax.real(ds_mat) if _is_complex(ds_mat) else ds_mat)
    if not compute_uv:
        return [s], [ds]
    nd = len(shape)
    s_row = lax.expand_dims(s, (nd - 2,))  # s[..., None, :]
    s_col = mT(s_row)
    eye = eye_like(s_row, shape_dtype(s)[0][-1])
    s_diffs = lax.mul(lax.add(s_row, s_col), lax.sub(s_row, s_col))  # s_j^2 - s_i^2
    f_mat = _as_dtype_of(lax.sub(lax.integer_pow(lax.add(s_diffs, eye), -1), eye), a)
    s_row_c, s_col_c = _as_dtype_of(s_row, a), _as_dtype_of(s_col, a)
    dss = lax.mul(s_row_c, ds_mat)  # dS diag(s)
    sds = lax.mul(s_col_c, ds_mat)  # diag(s) dS
    du_inner = lax.mul(f_mat, lax.add(dss, mH(dss)))
    if _is_complex(a):  # the phase freedom of each singular pair, fixed as in JAX
        zero = lax.convert_element_type(lax.eq(s_row, lax.full_like(s_row, 0)), shape_dtype(s)[1])
        s_inv = lax.sub(lax.div(lax.full_like(s_row, 1), lax.add(s_row, zero)), zero)
        s_inv_mat = _as_dtype_of(lax.mul(eye, s_inv), a)
        half = lax.full_like(ds_mat, 0.5)
        du_inner = lax.add(du_inner, lax.mul(lax.mul(half, lax.sub(ds_mat, mH(ds_mat))), s_inv_mat))
    du = matmul(u, du_inner)
    dv = matmul(v, lax.mul(f_mat, lax.add(sds, mH(sds))))
    m, n = shape[-2:]
    if m > n:
        dav = matmul(a_dot, v)
        du = lax.add(du, lax.div(lax.sub(dav, matmul(u, matmul(mH(u), dav))), s_row_c))
    if n > m:
        dau = matmul(mH(a_dot), u)
        dv = lax.add(dv, lax.div(lax.sub(dau, matmul(v, matmul(vt, dau))), s_row_c))
    return [s, u, vt], [ds, du, mH(dv)]


jvp_rules[svd_p] = _svd_jvp


# --- qr ---------------------------------------------------------------------------------------
def _thin_qr_jvp(q: Any, r: Any, a_dot: Any) -> tuple[Any, Any]:
    """``(dQ, dR)`` of the thin QR decomposition of an ``m x n`` matrix, ``m >= n`` (JAX's
    ``_thin_qr_jvp``)."""
    dx_rinv = triangular_solve(r, a_dot, left_side=False, lower=False)  # dA R^-1
    qt_dx_rinv = matmul(mH(q), dx_rinv)
    lower = tril(qt_dx_rinv, -1)
    skew = lax.sub(lower, mH(lower))  # skew-Hermitian
    if _is_complex(q):  # the diagonal's imaginary part, as JAX's correction for complex input
        imag_diag = lax.sub(qt_dx_rinv, _as_dtype_of(lax.real(qt_dx_rinv), qt_dx_rinv))
        skew = lax.add(skew, lax.mul(eye_like(qt_dx_rinv), imag_diag))
    dq = lax.add(matmul(q, lax.sub(skew, qt_dx_rinv)), dx_rinv)
    dr = matmul(lax.sub(qt_dx_rinv, skew), r)
    return dq, dr


def _qr_jvp(primals: list[Any], tangents: list[Any], *, full_matrices: bool) -> Rule:
    """JAX's ``qr_jvp_rule``: the thin rule for ``m >= n``; for wide ``m < n`` the square
    block ``X1 = Q R1`` by the thin rule and ``dR2 = dQ^H X2 + Q^H dX2``; for a complete ``Q``
    of a tall matrix, the extra columns by Roberts and Roberts' (arXiv:2409.13374) eqs. 32-33."""
    (a,), (a_dot,) = primals, tangents
    outs = bind(qr_p, a, full_matrices=full_matrices)
    if type(a_dot) is Zero:
        return outs, [Zero(tangent_aval_of(o)) for o in outs]
    m, n = shape_dtype(a)[0][-2:]
    q, r = outs
    last = len(shape_dtype(a)[0]) - 1
    if m < n:
        dq, dr1 = _thin_qr_jvp(q, r[..., :, :m], a_dot[..., :, :m])
        dr2 = lax.add(matmul(mH(dq), a[..., :, m:]), matmul(mH(q), a_dot[..., :, m:]))
        return [q, r], [dq, lax.concatenate([dr1, dr2], last)]
    q_mn = q[..., :, :n] if full_matrices else q
    r_nn = r[..., :n, :n] if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, a_dot)
    if not full_matrices or m == n:
        return [q, r], [dq_mn, dr_nn]
    q_nn, q_pn, q_mp = q_mn[..., :n, :], q_mn[..., n:, :], q[..., :, n:]
    dq_nn, dq_pn = dq_mn[..., :n, :], dq_mn[..., n:, :]
    # eq. 33: Z_pn = Q_pn (Q_nn - I)^-1, as Z_pn^H = (Q_nn - I)^-H Q_pn^H (primal only)
    z_pn_h = _solve(mH(lax.sub(q_nn, eye_like(q_nn))), mH(q_pn))
    z_pn = mH(z_pn_h)
    # eq. 32: dQ_mp = dQ_mn Z_pn^H - (Q_mn + Q_mp Z_pn) (dQ_pn - Z_pn dQ_nn)^H
    dq_mp = lax.sub(
        matmul(dq_mn, z_pn_h),
        matmul(lax.add(q_mn, matmul(q_mp, z_pn)), mH(lax.sub(dq_pn, matmul(z_pn, dq_nn)))),
    )
    dq = lax.concatenate([dq_mn, dq_mp], last)
    zeros = lax.full((*shape_dtype(dr_nn)[0][:-2], m - n, n), 0, shape_dtype(dr_nn)[1])
    return [q, r], [dq, lax.concatenate([dr_nn, zeros], last - 1)]


jvp_rules[qr_p] = _qr_jvp


# --- eig --------------------------------------------------------------------------------------
def _solve(a: ArrayLike, b: ArrayLike) -> Array:
    """``a^-1 b`` through ``a``'s LU factors (``b`` is the tangent: the solve is linear in it)."""
    lu, _, perm = bind(lu_p, a)
    pb = matmul(_permutation_matrix(perm, shape_dtype(a)[1]), b)
    y = triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True)
    return triangular_solve(lu, y, left_side=True, lower=False)


def _eig_vectors_jvp(w: ArrayLike, v: ArrayLike, da: ArrayLike) -> tuple[Array, Array]:
    """Non-degenerate perturbation theory (Giles, sec. 3.1), as JAX: ``dw = diag(P)`` and
    ``dv = v (F * P) + v diag(c)`` with ``P = v^-1 da v``, where ``c`` keeps LAPACK's
    normalisation (unit 2-norm, largest-modulus entry real) of each eigenvector."""
    nd = len(shape_dtype(v)[0])
    eye = eye_like(v)
    w_row = lax.expand_dims(w, (nd - 2,))
    w_col = lax.expand_dims(w, (nd - 1,))
    f_mat = lax.sub(lax.integer_pow(lax.add(eye, lax.sub(w_row, w_col)), -1), eye)
    p = matmul(_solve(v, da), v)
    u = matmul(v, lax.mul(f_mat, p))
    k = lax.argmax(lax.abs(v), nd - 2, np.int32)  # the largest-modulus row of each column
    rows = lax.broadcasted_iota(np.int32, shape_dtype(v)[0], nd - 2)
    mask = lax.convert_element_type(lax.eq(rows, lax.expand_dims(k, (nd - 2,))), shape_dtype(v)[1])
    # dv_j = u_j + c_j v_j: c_j = -Re(v_j^H u_j) - i Im(u_kj) / v_kj
    re = lax.neg(lax.real(lax.reduce_sum(lax.mul(lax.conj(v), u), (nd - 2,))))
    im = lax.div(
        lax.neg(lax.imag(lax.reduce_sum(lax.mul(mask, u), (nd - 2,)))),
        lax.real(lax.reduce_sum(lax.mul(mask, v), (nd - 2,))),
    )
    c = lax.expand_dims(lax.complex(re, im), (nd - 2,))
    return diagonal(p), lax.add(u, lax.mul(v, c))


def _eig_jvp(primals: list[Any], tangents: list[Any], **params: bool) -> Rule:
    (a,), (a_dot,) = primals, tangents
    left, right = params["compute_left_eigenvectors"], params["compute_right_eigenvectors"]
    if (left or right) and not params["enable_eigvec_derivs"]:
        raise NotImplementedError(
            "eig: derivatives of non-symmetric eigenvectors are only valid under assumptions "
            "on the input that cannot be checked (distinct eigenvalues); pass "
            "enable_eigvec_derivs=True to lax.linalg.eig to opt in, as in JAX"
        )
    outs = bind(eig_p, a, **{**params, "compute_right_eigenvectors": True})
    w, vr = outs[0], outs[-1]
    primal_out = outs if right else outs[:-1]
    if type(a_dot) is Zero:
        return primal_out, [Zero(tangent_aval_of(o)) for o in primal_out]
    da = _as_dtype_of(a_dot, vr)
    if not (left or right):
        nd = len(shape_dtype(a)[0])
        dw = lax.reduce_sum(lax.mul(_solve(vr, da), mT(vr)), (nd - 1,))
        return [w], [dw]
    dw, dvr = _eig_vectors_jvp(w, vr, da)
    tangent_out = [dw]
    if left:
        tangent_out.append(_eig_vectors_jvp(lax.conj(w), outs[1], mH(da))[1])
    if right:
        tangent_out.append(dvr)
    return primal_out, tangent_out


jvp_rules[eig_p] = _eig_jvp


# --- schur ------------------------------------------------------------------------------------
def _schur_jvp(primals: list[Any], tangents: list[Any], **params: Any) -> Rule:
    return undifferentiable("schur")(primals, tangents)  # JAX has no derivative for it either


jvp_rules[schur_p] = _schur_jvp


# --- hessenberg, householder_product, tridiagonal, geqrf, geqp3: no derivatives in JAX ---
def _no_jvp(name: str) -> Any:
    def rule(primals: list[Any], tangents: list[Any], **params: Any) -> Rule:
        return undifferentiable(name)(primals, tangents)

    rule.__name__ = f"_{name}_jvp"
    return rule


for _prim in (hessenberg_p, householder_product_p, tridiagonal_p, geqrf_p, geqp3_p):
    jvp_rules[_prim] = _no_jvp(_prim.name)
