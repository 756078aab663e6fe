"""The array API's ``linalg`` names (``cond``, ``cross``, ``diagonal``, ``matrix_norm``,
``matrix_transpose``, ``multi_dot``, ``outer``, ``svdvals``, ``tensordot``, ``tensorinv``,
``tensorsolve``, ``trace``, ``vecdot``) against ``jax.numpy.linalg``, both x64 modes."""

import jax.numpy as jnp
import numpy as np
import pytest

import mj.numpy as mnp

rng = np.random.RandomState(0)
A = rng.randn(3, 4, 4).astype(np.float32)
B = rng.randn(4, 3).astype(np.float32)
C = rng.randn(3, 2).astype(np.float32)
V = rng.randn(5, 3).astype(np.float32)
W = rng.randn(5, 3).astype(np.float32)
SQUARE = (rng.randn(6, 6) + 3 * np.eye(6)).astype(np.float32)
RHS = rng.randn(2, 3).astype(np.float32)

CASES = {
    "cond": lambda la: la.cond(A),
    "cond p=1": lambda la: la.cond(A, 1),
    "cond p=-2": lambda la: la.cond(A, -2),
    "cond fro": lambda la: la.cond(A, "fro"),
    "cross": lambda la: la.cross(V, W),
    "diagonal": lambda la: la.diagonal(A, offset=1),
    "matrix_norm": lambda la: la.matrix_norm(A),
    "matrix_norm nuc": lambda la: la.matrix_norm(A, ord="nuc", keepdims=True),
    "matrix_transpose": lambda la: la.matrix_transpose(A),
    "multi_dot": lambda la: la.multi_dot([A[0], B, C]),
    "multi_dot 1-d ends": lambda la: la.multi_dot([V[0], B.T, B, V[1]]),
    "outer": lambda la: la.outer(V[0], W[1]),
    "svdvals": lambda la: la.svdvals(A),
    "tensordot": lambda la: la.tensordot(A, B, axes=1),
    "tensorinv": lambda la: la.tensorinv(SQUARE.reshape(2, 3, 6), ind=2),
    "tensorsolve": lambda la: la.tensorsolve(SQUARE.reshape(2, 3, 2, 3), RHS),
    "trace": lambda la: la.trace(A, offset=-1),
    "trace dtype": lambda la: la.trace(A, dtype=jnp.float16),
    "vecdot": lambda la: la.vecdot(V, W),
}


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_linalg_array_api_as_jax(make, x64):
    want = np.asarray(make(jnp.linalg))
    got = mnp.asarray(make(mnp.linalg))
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-3, atol=1e-4)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda la: la.cross(A, A), "3-dimensional vectors"),
        (lambda la: la.outer(A, A), "must be one-dimensional"),
        (lambda la: la.matrix_transpose(V[0]), "at least two-dimensional"),
        (lambda la: la.cond(SQUARE[:, :4], 1), "square"),
    ],
)
def test_bad_shapes_are_errors_as_in_jax(make, message):
    with pytest.raises(ValueError, match=r"\w"):  # any message
        make(jnp.linalg)
    with pytest.raises(ValueError, match=message):
        make(mnp.linalg)


def test_cond_of_a_singular_matrix_is_huge_or_infinite():
    value = float(mnp.linalg.cond(np.ones((2, 2), np.float32)))
    assert value > 1e6  # inf, or 1/eps-sized where the SVD leaves rounding noise
