"""Lowering of the linear-algebra primitives to jaxlib's LAPACK FFI kernels: jit equals eager
(values, dtypes, shapes), batches, NaN on failure, and the custom calls in the StableHLO."""

import numpy as np
import pytest

from mj_core import lax_linalg as la
from mj_ir import make_jaxpr
from mj_xla import jit

RNG = np.random.default_rng(3)
A = RNG.normal(size=(2, 4, 4))
SPD = A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4)
CASES = {
    "cholesky": (la.cholesky, (SPD,)),
    "trsm_left": (lambda a, b: la.triangular_solve(a, b, left_side=True, lower=True), (SPD, A)),
    "trsm_right_t_unit": (
        lambda a, b: la.triangular_solve(a, b, transpose_a=True, unit_diagonal=True),
        (A, A),
    ),
    "lu": (la.lu, (A,)),
    "lu_wide": (la.lu, (A[:, :3],)),
    "lu_tall": (la.lu, (A[:, :, :3],)),
    "eigh": (la.eigh, (SPD,)),
    "eigh_upper": (lambda a: la.eigh(a, lower=False, symmetrize_input=False), (A,)),
    "svd_full": (la.svd, (A[:, :, :3],)),
    "svd_reduced": (lambda a: la.svd(a, full_matrices=False), (A[:, :3],)),
    "svd_values": (lambda a: la.svd(a, compute_uv=False), (A,)),
    "qr_full_tall": (la.qr, (A[:, :, :3],)),
    "qr_reduced_tall": (lambda a: la.qr(a, full_matrices=False), (A[:, :, :3],)),
    "qr_wide": (la.qr, (A[:, :3],)),
    "qr_unbatched": (la.qr, (A[0],)),
}


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


@pytest.mark.usefixtures("on_cpu")  # LAPACK both ways (a GPU's vectors may differ in sign)
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_jit_and_jaxpr_equal_eager(name, dtype):
    f, args = CASES[name]
    args = tuple(x.astype(dtype) for x in args)
    eager = _as_tuple(f(*args))
    compiled = _as_tuple(jit(f)(*args))
    closed = make_jaxpr(f)(*args)
    via_jaxpr = closed(*args)
    tol = 1e-10 if dtype == np.float64 else 2e-4
    for e, c, j in zip(eager, compiled, via_jaxpr, strict=True):
        c, j = np.asarray(c), np.asarray(j)
        assert c.dtype == e.dtype == j.dtype
        assert c.shape == e.shape == j.shape
        np.testing.assert_allclose(c, e, atol=tol)
        np.testing.assert_allclose(j, e, atol=tol)


def test_failed_cholesky_gives_nan_like_eager():
    batch = np.stack([SPD[0], -SPD[1]])
    out = np.asarray(jit(la.cholesky)(batch))
    np.testing.assert_array_equal(np.isnan(out), np.isnan(la.cholesky(batch)))
    assert np.isfinite(out[0]).all()
    assert (np.triu(out[1], 1) == 0).all()


@pytest.mark.usefixtures("on_cpu")
def test_lowering_calls_lapack_with_column_major_layouts():
    text = jit(la.cholesky).lower(SPD).as_text()
    assert "stablehlo.custom_call @lapack_dpotrf_ffi" in text
    assert "operand_layouts = [dense<[1, 2, 0]>" in text
    assert 'num_batch_dims = "1"' in text
    assert "uplo = 76 : ui8" in text
    text = jit(lambda a, b: la.triangular_solve(a, b, left_side=True)).lower(A[0], A[0]).as_text()
    assert "@lapack_dtrsm_ffi" in text
    assert "side = 76 : ui8" in text
    assert "uplo = 85 : ui8" in text
