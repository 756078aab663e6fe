"""Batching rules of the linear-algebra primitives: vmap (any in_axes) equals a Python loop."""

import numpy as np
import pytest

from mj_batch import vmap
from mj_core import lax_linalg as la

RNG = np.random.default_rng(2)
A = RNG.normal(size=(3, 4, 4))
SPD = A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4)
B = RNG.normal(size=(3, 4, 2))
Z = A + 1j * RNG.normal(size=(3, 4, 4))
HPD = Z @ np.conj(np.swapaxes(Z, -1, -2)) + 4 * np.eye(4)

CASES = {
    "cholesky": (la.cholesky, (SPD,)),
    "triangular_solve": (
        lambda a, b: la.triangular_solve(a, b, left_side=True, lower=True),
        (SPD, B),
    ),
    "lu": (la.lu, (A,)),
    "eigh": (lambda a: la.eigh(a)[1], (SPD,)),
    "svd": (la.svd, (A[:, :, :3],)),
    "qr": (la.qr, (A[:, :3],)),
    "eig": (la.eig, (A,)),
    "eig_complex": (lambda a: la.eig(a, compute_left_eigenvectors=False), (Z,)),
    "cholesky_complex": (la.cholesky, (HPD,)),
    "triangular_solve_complex": (
        lambda a, b: la.triangular_solve(a, b, left_side=True, conjugate_a=True),
        (HPD, Z),
    ),
    "qr_complex": (la.qr, (Z,)),
}


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("axis", [0, 2])
def test_vmap_equals_loop(name, axis):
    f, args = CASES[name]
    moved = tuple(np.moveaxis(x, 0, axis) for x in args)
    out = _as_tuple(vmap(f, in_axes=axis)(*moved))
    loop = [_as_tuple(f(*(x[i] for x in args))) for i in range(3)]
    for k, o in enumerate(out):
        np.testing.assert_allclose(o, np.stack([r[k] for r in loop]), atol=1e-12)


def test_triangular_solve_with_unbatched_matrix():
    tri = np.tril(A[0]) + 4 * np.eye(4)
    out = vmap(lambda b: la.triangular_solve(tri, b, left_side=True, lower=True))(B)
    np.testing.assert_allclose(np.tril(tri) @ out, B, atol=1e-12)
    out2 = vmap(lambda a: la.triangular_solve(a, B[0], left_side=True, lower=True))(SPD)
    np.testing.assert_allclose(np.tril(SPD) @ out2, np.broadcast_to(B[0], (3, 4, 2)), atol=1e-12)
