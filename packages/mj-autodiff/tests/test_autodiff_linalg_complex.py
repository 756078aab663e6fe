"""Derivatives of the linear-algebra primitives on complex operands and of ``eig``: JVPs
against central finite differences (complex128, well-conditioned random matrices), and VJPs
as the transposes of JVPs in JAX's convention (``Re <v, J u> = Re <J^T v, u>``, which holds
for maps that are only real-linear, through ``conj``)."""

import numpy as np
import pytest

from mj_autodiff import jvp, vjp
from mj_core import lax
from mj_core import lax_linalg as la

RNG = np.random.default_rng(17)


def _crandn(*shape):
    return RNG.normal(size=shape) + 1j * RNG.normal(size=shape)


Z = _crandn(2, 4, 4)
HPD = Z @ np.conj(np.swapaxes(Z, -1, -2)) + 4 * np.eye(4)
TRI = np.tril(Z) + 5 * np.eye(4)
B = _crandn(2, 4, 3)
TALL = _crandn(2, 5, 3)
REAL = RNG.normal(size=(2, 4, 4))


def _abs2(x):
    return lax.real(lax.mul(x, lax.conj(x)))


CASES = {
    "cholesky": (la.cholesky, (HPD,)),
    "triangular_solve_conj": (
        lambda a, b: la.triangular_solve(a, b, left_side=True, lower=True, conjugate_a=True),
        (TRI, B),
    ),
    "triangular_solve_adjoint_right": (
        lambda a, b: la.triangular_solve(
            a, b, left_side=False, lower=True, transpose_a=True, conjugate_a=True
        ),
        (TRI, np.swapaxes(B, -1, -2)),
    ),
    "lu": (lambda a: la.lu(a)[0], (Z,)),
    # eigenvectors carry a free phase: differentiate phase-invariant functions of them
    "eigh": (lambda a: (_abs2(la.eigh(a)[0]), la.eigh(a)[1]), (HPD,)),
    "svd_values": (lambda a: la.svd(a, compute_uv=False), (TALL,)),
    "svd_tall": (
        lambda a: (lambda u, s, vt: (s, _abs2(u), _abs2(vt), la.matmul(u * s[..., None, :], vt)))(
            *la.svd(a, full_matrices=False)
        ),
        (TALL,),
    ),
    "svd_wide": (
        lambda a: (lambda u, s, vt: (_abs2(u), _abs2(vt)))(*la.svd(a, full_matrices=False)),
        (np.swapaxes(TALL, -1, -2),),
    ),
    "qr": (lambda a: la.qr(a, full_matrices=False), (TALL,)),
    "qr_square": (la.qr, (Z,)),
    "eigvals": (
        lambda a: la.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False),
        (Z,),
    ),
    "eigvals_of_real": (
        lambda a: la.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False),
        (REAL,),
    ),
    # geev's normalisation fixes each eigenvector, so they are differentiable themselves
    "eig_vectors": (lambda a: la.eig(a, enable_eigvec_derivs=True), (Z,)),
    "eig_vectors_of_real": (
        lambda a: la.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True),
        (REAL,),
    ),
}


def _tangent(x):
    return _crandn(*np.shape(x)) if np.iscomplexobj(x) else RNG.normal(size=np.shape(x))


def _tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_matches_finite_differences(name):
    f, args = CASES[name]
    tangents = tuple(_tangent(x) for x in args)
    _, t_out = jvp(f, args, tangents)
    eps = 1e-6
    plus = f(*(x + eps * t for x, t in zip(args, tangents, strict=True)))
    minus = f(*(x - eps * t for x, t in zip(args, tangents, strict=True)))
    for t, p, m in zip(_tuple(t_out), _tuple(plus), _tuple(minus), strict=True):
        fd = (np.asarray(p) - np.asarray(m)) / (2 * eps)
        np.testing.assert_allclose(np.asarray(t), fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vjp_is_the_transpose_of_jvp(name):
    f, args = CASES[name]
    u = tuple(_tangent(x) for x in args)
    out, t_out = jvp(f, args, u)
    v = tuple(_tangent(o) for o in _tuple(out))
    _, pullback = vjp(f, *args)
    ct = pullback(type(out)(v) if isinstance(out, (tuple, list)) else v[0])
    lhs = sum(np.sum(a * np.asarray(b)) for a, b in zip(v, _tuple(t_out), strict=True))
    rhs = sum(np.sum(np.asarray(a) * b) for a, b in zip(ct, u, strict=True))
    np.testing.assert_allclose(np.real(lhs), np.real(rhs), rtol=1e-9)


def test_eigenvalue_jvp_is_the_diagonal_of_the_similarity_transform():
    _, vr = la.eig(Z[0], compute_left_eigenvectors=False)
    da = _crandn(4, 4)
    _, (dw,) = jvp(
        lambda a: la.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False),
        (Z[0],),
        (da,),
    )
    vr = np.asarray(vr)
    np.testing.assert_allclose(dw, np.diag(np.linalg.solve(vr, da @ vr)), atol=1e-10)


def test_eigenvector_derivatives_need_opting_in():
    with pytest.raises(NotImplementedError, match="eig: derivatives of non-symmetric eigenvec"):
        jvp(lambda a: la.eig(a)[2], (Z[0],), (Z[0],))
