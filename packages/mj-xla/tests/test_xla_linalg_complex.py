"""Lowering of complex linear algebra (LAPACK's c/z kernels) and of ``eig`` (``geev``): jit
equals eager for complex64 and complex128, ``eig``'s eigenvectors satisfy their equations and
agree with eager up to the phase LAPACK leaves free, and the StableHLO names the kernels."""

import numpy as np
import pytest

from mj_core import lax_linalg as la
from mj_ir import make_jaxpr
from mj_xla import jit

RNG = np.random.default_rng(13)
Z = RNG.normal(size=(2, 4, 4)) + 1j * RNG.normal(size=(2, 4, 4))
HPD = Z @ np.conj(np.swapaxes(Z, -1, -2)) + 4 * np.eye(4)
REAL = RNG.normal(size=(2, 4, 4))
CASES = {
    "cholesky": (la.cholesky, (HPD,)),
    "trsm_conj": (
        lambda a, b: la.triangular_solve(a, b, left_side=True, lower=True, conjugate_a=True),
        (HPD, Z),
    ),
    "trsm_adjoint": (
        lambda a, b: la.triangular_solve(a, b, transpose_a=True, conjugate_a=True),
        (HPD, Z),
    ),
    "lu": (la.lu, (Z,)),
    "eigh": (la.eigh, (HPD,)),
    "svd": (lambda a: la.svd(a, full_matrices=False), (Z[:, :, :3],)),
    "svd_values": (lambda a: la.svd(a, compute_uv=False), (Z,)),
    "qr_full_tall": (la.qr, (Z[:, :, :3],)),
    "qr_wide": (la.qr, (Z[:, :3],)),
    "eigvals": (
        lambda a: la.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False),
        (Z,),
    ),
}


@pytest.mark.usefixtures("on_cpu")  # LAPACK both ways (a GPU's vectors may differ in phase)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_equals_eager(name, dtype):
    f, args = CASES[name]
    args = tuple(np.asarray(a, dtype) for a in args)
    eager, jitted = f(*args), jit(f)(*args)
    eager = eager if isinstance(eager, (tuple, list)) else (eager,)
    jitted = jitted if isinstance(jitted, (tuple, list)) else (jitted,)
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    for e, j in zip(eager, jitted, strict=True):
        assert np.asarray(j).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=tol, atol=tol)


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_eig_under_jit_solves_its_equations(dtype):
    x = (Z if np.dtype(dtype).kind == "c" else REAL).astype(dtype)
    w, vl, vr = (np.asarray(t) for t in jit(la.eig)(x))
    complex_type = np.result_type(dtype, np.complex64)
    assert w.dtype == vl.dtype == vr.dtype == complex_type
    tol = 1e-4 if complex_type == np.complex64 else 1e-10
    xc = x.astype(np.complex128)
    np.testing.assert_allclose(xc @ vr, vr * w[..., None, :], atol=tol)
    np.testing.assert_allclose(_h(vl) @ xc, w[..., :, None] * _h(vl), atol=tol)
    eager_w, eager_vl, eager_vr = (np.asarray(t) for t in la.eig(x))
    np.testing.assert_allclose(w, eager_w, atol=tol)
    for ours, theirs in ((vl, eager_vl), (vr, eager_vr)):  # equal up to a unit phase
        phase = np.sum(np.conj(theirs) * ours, axis=-2, keepdims=True)
        np.testing.assert_allclose(np.abs(phase), 1, atol=tol)
        np.testing.assert_allclose(ours, theirs * phase, atol=tol)


@pytest.mark.usefixtures("on_cpu")
def test_eig_stablehlo_calls_geev():
    text = jit(la.eig).lower(REAL).as_text()
    assert "lapack_dgeev_ffi" in text
    complex_text = jit(la.eig).lower(Z.astype(np.complex64)).as_text()
    assert "lapack_cgeev_ffi" in complex_text
    assert "lapack_zheevd_ffi" in jit(la.eigh).lower(HPD).as_text()
    assert "lapack_zungqr_ffi" in jit(la.qr).lower(Z).as_text()


def test_eig_jaxpr_records_the_flags():
    jaxpr = make_jaxpr(lambda a: la.eig(a, compute_left_eigenvectors=False))(Z)
    text = str(jaxpr)
    assert "eig[" in text
    assert "compute_left_eigenvectors=False" in text
    assert len(jaxpr.jaxpr.outvars) == 2
