"""Lowering for CUDA on a CPU-only machine, against JAX 0.10.2's own lowering of the same
functions (``jit(f).trace(x).lower(lowering_platforms=("cuda",))`` in both): the same
custom-call targets (cuSOLVER's where the CPU has LAPACK's), the same options, the same
StableHLO ops where JAX uses none."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(7)
A = RNG.normal(size=(3, 4, 4)) + 4 * np.eye(4)  # a batch of well-conditioned matrices
SPD = A @ np.swapaxes(A, -1, -2) + np.eye(4)


def _cases(np_, lax_linalg):
    return {
        "cholesky": lambda a: np_.linalg.cholesky(a),
        "lu": lambda a: lax_linalg.lu(a),
        "qr": lambda a: np_.linalg.qr(a),
        "eigh": lambda a: np_.linalg.eigh(a),
        "solve_triangular": lambda a: lax_linalg.triangular_solve(a, a, left_side=True, lower=True),
        "inv": lambda a: np_.linalg.inv(a),
        "slogdet": lambda a: np_.linalg.slogdet(a),
        "svd": lambda a: np_.linalg.svd(a, full_matrices=False),
        "svd_full": lambda a: np_.linalg.svd(a),
        "svdvals": lambda a: np_.linalg.svd(a, compute_uv=False),
        "eig": lambda a: np_.linalg.eig(a),
        "eigvals": lambda a: np_.linalg.eigvals(a),
        "eig_left": lambda a: lax_linalg.eig(a, compute_left_eigenvectors=True),
    }


MJ = _cases(mnp, mj.lax.linalg)
JAX = _cases(jnp, jax.lax.linalg)


def _calls(text):
    """Each custom call's target and ``mhlo.backend_config``, in order of appearance."""
    return [
        (m.group(1), m.group(2))
        for m in re.finditer(r"custom_call @(\w+)\(.*?mhlo\.backend_config = (\{[^}]*\})", text)
    ]


def _ops(text, name):
    return len(re.findall(rf"\bstablehlo\.{name}\b", text))


@pytest.mark.parametrize("platform", ["cpu", "cuda"])
@pytest.mark.parametrize("name", sorted(MJ))
def test_custom_calls_match_jax(name, platform):
    x = (SPD if name in ("cholesky", "eigh") else A).astype(np.float32)
    ours = mj.jit(MJ[name]).trace(x).lower(lowering_platforms=(platform,)).as_text()
    theirs = jax.jit(JAX[name]).trace(x).lower(lowering_platforms=(platform,)).as_text()
    assert _calls(ours) == _calls(theirs)
    assert _calls(theirs) or (name == "solve_triangular" and platform == "cuda")
    assert _ops(ours, "triangular_solve") == _ops(theirs, "triangular_solve")
    if name.startswith("svd") and platform == "cuda":  # gesvdj's V turned into V^H
        assert _ops(ours, "transpose") == _ops(theirs, "transpose")


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_cusolver_targets_are_one_per_routine_for_every_dtype(dtype):
    x = SPD.astype(dtype)
    for name in ("cholesky", "qr", "eigh", "svd"):
        ours = mj.jit(MJ[name]).trace(x).lower(lowering_platforms=("cuda",)).as_text()
        theirs = jax.jit(JAX[name]).trace(x).lower(lowering_platforms=("cuda",)).as_text()
        assert [t for t, _ in _calls(ours)] == [t for t, _ in _calls(theirs)], name


@pytest.mark.parametrize("platform", ["cpu", "cuda"])
def test_a_complex_convolution_is_three_real_ones_as_in_jax(platform):
    """JAX expands a complex convolution for the CPU and GPUs (Gauss's three products; XLA's
    GPU backend has no complex convolution): the same ops, and on the CPU the same numbers."""
    x = (RNG.normal(size=(2, 3, 7, 6)) + 1j * RNG.normal(size=(2, 3, 7, 6))).astype(np.complex64)
    k = (RNG.normal(size=(4, 3, 3, 2)) + 1j * RNG.normal(size=(4, 3, 3, 2))).astype(np.complex64)

    def conv(lax):
        return lambda a, b: lax.conv_general_dilated(a, b, (1, 2), "SAME", rhs_dilation=(2, 1))

    ours = mj.jit(conv(mj.lax)).trace(x, k).lower(lowering_platforms=(platform,)).as_text()
    theirs = jax.jit(conv(jax.lax)).trace(x, k).lower(lowering_platforms=(platform,)).as_text()
    for op in ("convolution", "real", "imag", "complex"):
        assert _ops(ours, op) == _ops(theirs, op), op
    assert _ops(ours, "convolution") == 3
    if platform == "cpu":
        np.testing.assert_array_equal(
            np.asarray(mj.jit(conv(mj.lax))(x, k)), np.asarray(jax.jit(conv(jax.lax))(x, k))
        )
