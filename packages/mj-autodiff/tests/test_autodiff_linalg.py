"""JVP and VJP rules of the linear-algebra primitives against central finite differences
(float64, well-conditioned random matrices) and the transpose identity <v, J u> = <J^T v, u>."""

import numpy as np
import pytest

from mj_autodiff import jvp, vjp
from mj_core import lax_linalg as la

RNG = np.random.default_rng(1)
A = RNG.normal(size=(2, 4, 4))
SPD = A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4)
TRI = np.tril(A) + 5 * np.eye(4)
B = RNG.normal(size=(2, 4, 3))
TALL = RNG.normal(size=(2, 5, 3))


def _flat(out):
    outs = out if isinstance(out, tuple) else (out,)
    return [np.asarray(o, np.float64) for o in outs if np.asarray(o).dtype.kind == "f"]


CASES = {
    "cholesky": (la.cholesky, (SPD,)),
    "triangular_solve_left": (
        lambda a, b: la.triangular_solve(a, b, left_side=True, lower=True),
        (TRI, B),
    ),
    "triangular_solve_right_transposed": (
        lambda a, b: la.triangular_solve(
            a, b, left_side=False, lower=True, transpose_a=True, unit_diagonal=True
        ),
        (TRI, np.swapaxes(B, -1, -2)),
    ),
    "lu": (lambda a: la.lu(a)[0], (A,)),
    "lu_wide": (lambda a: la.lu(a)[0], (np.swapaxes(TALL, -1, -2),)),
    "lu_tall": (lambda a: la.lu(a)[0], (TALL,)),
    # eigenvector signs are arbitrary: differentiate sign-invariant functions of them
    "eigh": (lambda a: (la.eigh(a)[1], la.eigh(a)[0][..., :, :1] * la.eigh(a)[0]), (SPD,)),
    "svd_values": (lambda a: la.svd(a, compute_uv=False), (TALL,)),
    "svd_tall": (
        lambda a: (lambda u, s, vt: (s, u[..., :1] * u, vt[..., :1, :] * vt))(
            *la.svd(a, full_matrices=False)
        ),
        (TALL,),
    ),
    "svd_wide": (
        lambda a: (lambda u, s, vt: (u[..., :1] * u, vt[..., :1, :] * vt))(
            *la.svd(a, full_matrices=False)
        ),
        (np.swapaxes(TALL, -1, -2),),
    ),
    "qr": (lambda a: la.qr(a, full_matrices=False), (TALL,)),
    "qr_square_full": (lambda a: la.qr(a), (A,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_matches_finite_differences(name):
    f, args = CASES[name]
    tangents = tuple(RNG.normal(size=np.shape(x)) for x in args)
    if name == "eigh":  # eigh reads a symmetric matrix: perturb symmetrically
        tangents = tuple(t + np.swapaxes(t, -1, -2) for t in tangents)
    _, t_out = jvp(f, args, tangents)
    eps = 1e-6
    plus = f(*(x + eps * t for x, t in zip(args, tangents, strict=True)))
    minus = f(*(x - eps * t for x, t in zip(args, tangents, strict=True)))
    for t, p, m in zip(_flat(t_out), _flat(plus), _flat(minus), strict=True):
        np.testing.assert_allclose(t, (p - m) / (2 * eps), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vjp_is_the_transpose_of_jvp(name):
    f, args = CASES[name]
    u = tuple(RNG.normal(size=np.shape(x)) for x in args)
    if name == "eigh":
        u = tuple(t + np.swapaxes(t, -1, -2) for t in u)
    out, t_out = jvp(f, args, u)
    out_tuple = out if isinstance(out, tuple) else (out,)
    v = tuple(RNG.normal(size=np.shape(o)) for o in out_tuple)
    _, pullback = vjp(f, *args)
    ct = pullback(v if isinstance(out, tuple) else v[0])
    t_tuple = t_out if isinstance(t_out, tuple) else (t_out,)
    lhs = sum(np.sum(a * b) for a, b in zip(v, t_tuple, strict=True))
    rhs = sum(np.sum(a * b) for a, b in zip(ct, u, strict=True))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9)


def test_lu_pivots_have_zero_tangents():
    _, (_, t_piv, t_perm) = jvp(la.lu, (A,), (np.ones_like(A),))
    assert t_piv.dtype.names == ("float0",)
    assert t_perm.shape == (2, 4)


def test_triangular_solve_gradient_in_a_lives_on_the_triangle():
    def f(a):
        return la.triangular_solve(a, B, left_side=True, lower=True)

    _, pullback = vjp(f, TRI)
    (g,) = pullback(np.ones_like(B))
    assert g.shape == TRI.shape
    assert (np.triu(g, 1) == 0).all()
