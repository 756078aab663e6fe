"""Platform-dependent lowering rules: a rule registered for one platform applies only to
modules lowered for it (taking precedence over the default rule), a primitive lowered only
per platform fails for the others with an error naming the primitive and the platform, and
the linear-algebra rules name the CUDA plugin's cuSOLVER targets where the CPU's are
LAPACK's (compared with JAX's own text in tests/oracle/test_oracle_platform_lowering.py)."""

import re

import numpy as np
import pytest

from mj_core import MissingRuleError, Primitive, ShapedArray, bind, bind1, impl_rules
from mj_core import lax_linalg as la
from mj_core.prims.callback import HostCallback, debug_callback_p
from mj_ir import abstract_eval_rules
from mj_xla import jit
from mj_xla.extend import hlo, lowering_rules, platform_lowering_rules, register_lowering

# the CPU's lowering is compared with the GPU's: computations run on the CPU on any machine
pytestmark = pytest.mark.usefixtures("on_cpu")
A = (np.eye(4) * 3.0 + 0.1).astype(np.float32)


def _targets(text):
    return sorted(set(re.findall(r"custom_call @(\w+)", text)))


@pytest.fixture
def double_p():
    """A primitive with an impl and a shape rule, whose lowering each test registers."""
    prim = Primitive("platform_test_double")
    impl_rules[prim] = lambda x: [np.asarray(x) * 2]
    abstract_eval_rules[prim] = lambda x: [ShapedArray(x.shape, x.dtype)]
    yield prim
    for table in (impl_rules, abstract_eval_rules, lowering_rules):
        table.pop(prim, None)
    for rules in platform_lowering_rules.values():
        rules.pop(prim, None)


def test_a_platform_rule_applies_only_to_its_platform(double_p):
    register_lowering(double_p, lambda ctx, ai, ao, xs: [hlo.add(xs[0], xs[0])])
    register_lowering(double_p, lambda ctx, ai, ao, xs: [hlo.multiply(xs[0], xs[0])], "cuda")
    traced = jit(lambda x: bind1(double_p, x)).trace(np.ones(3, np.float32))
    assert "stablehlo.add" in traced.lower().as_text()  # the CPU: the default rule
    cuda = traced.lower(lowering_platforms=("cuda",)).as_text()
    assert "stablehlo.multiply" in cuda
    assert "stablehlo.add" not in cuda
    np.testing.assert_array_equal(np.asarray(jit(lambda x: bind1(double_p, x))(np.ones(3))), 2.0)


def test_a_primitive_without_a_rule_for_the_platform_fails_at_lowering(double_p):
    register_lowering(double_p, lambda ctx, ai, ao, xs: [hlo.add(xs[0], xs[0])], "cuda")
    f = jit(lambda x: bind1(double_p, x) + 1.0)
    want = (
        "Primitive 'platform_test_double' has no XLA lowering rule for platform 'cpu': it "
        "lowers only for ['cuda']"
    )
    with pytest.raises(MissingRuleError, match=re.escape(want)):
        f(np.ones(3, np.float32))
    with pytest.raises(MissingRuleError, match="for platform 'rocm'"):
        f.trace(np.ones(3, np.float32)).lower(lowering_platforms=("rocm",)).as_text()
    assert "stablehlo.add" in f.trace(np.ones(3)).lower(lowering_platforms=("cuda",)).as_text()


CASES = {
    "cholesky": (lambda a: la.cholesky(a), ["lapack_spotrf_ffi"], ["cusolver_potrf_ffi"]),
    "lu": (
        lambda a: la.lu(a),
        ["lapack_sgetrf_ffi"],
        ["cu_lu_pivots_to_permutation", "cusolver_getrf_ffi"],
    ),
    "qr": (
        lambda a: la.qr(a, full_matrices=False),
        ["lapack_sgeqrf_ffi", "lapack_sorgqr_ffi"],
        ["cusolver_geqrf_ffi", "cusolver_orgqr_ffi"],
    ),
    "eigh": (lambda a: la.eigh(a), ["lapack_ssyevd_ffi"], ["cusolver_syevd_ffi"]),
    "triangular_solve": (
        lambda a: la.triangular_solve(a, a, left_side=True, lower=True),
        ["lapack_strsm_ffi"],
        [],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_targets_per_platform(name):
    f, cpu, cuda = CASES[name]
    traced = jit(f).trace(A)
    assert _targets(traced.lower().as_text()) == cpu
    cuda_text = traced.lower(lowering_platforms=("cuda",)).as_text()
    assert _targets(cuda_text) == cuda
    assert ("stablehlo.triangular_solve" in cuda_text) == (name == "triangular_solve")


def test_cusolver_flags_are_booleans_where_lapack_has_characters():
    lower = jit(lambda a: la.cholesky(a)).trace(A).lower
    assert "mhlo.backend_config = {uplo = 76 : ui8}" in lower().as_text()  # ord("L")
    assert "mhlo.backend_config = {lower = true}" in lower(lowering_platforms=("cuda",)).as_text()


def test_eig_on_cuda_is_cusolvers_geev_else_the_hybrid_kernel(monkeypatch):
    """JAX's choice: cuSOLVER's ``geev`` from 11.7.1 on, without left eigenvectors (a real
    matrix's vectors then unpacked from LAPACK's conjugate-pair columns); the plugin's
    hybrid kernel otherwise. ``schur`` lowers only for the CPU, as in JAX."""
    import mj_xla.rules.linalg as rules

    def targets(version, **kw):
        monkeypatch.setattr(rules, "cusolver_version", lambda: version)
        return _targets(
            jit(lambda a: la.eig(a, **kw)).trace(A).lower(lowering_platforms=("cuda",)).as_text()
        )

    assert _targets(jit(lambda a: la.eig(a)).trace(A).lower().as_text()) == ["lapack_sgeev_ffi"]
    assert targets(11701, compute_left_eigenvectors=False) == ["cusolver_geev_ffi"]
    assert targets(11701) == ["cuhybrid_eig_real"]
    assert targets(11600, compute_left_eigenvectors=False) == ["cuhybrid_eig_real"]
    with pytest.raises(
        MissingRuleError, match="Primitive 'schur' has no XLA lowering rule for platform 'cuda'"
    ):
        jit(lambda a: la.schur(a)).trace(A).lower(lowering_platforms=("cuda",)).as_text()


def test_svd_on_cuda_is_the_jacobi_kernel_up_to_its_size():
    f = jit(lambda a: la.svd(a, full_matrices=False))
    cuda = f.trace(A).lower(lowering_platforms=("cuda",)).as_text()
    assert _targets(cuda) == ["cusolver_gesvdj_ffi"]
    assert "stablehlo.transpose" in cuda  # gesvdj returns V, svd V^H
    big = np.zeros((1025, 4), np.float32)
    with pytest.raises(
        MissingRuleError,
        match="'svd' has no XLA lowering rule for platform 'cuda' for a 1025x4 matrix",
    ):
        f.trace(big).lower(lowering_platforms=("cuda",)).as_text()


def test_lowering_for_another_platform_is_text_only():
    lowered = jit(lambda a: la.cholesky(a)).trace(A).lower(lowering_platforms=("cuda",))
    with pytest.raises(ValueError, match="lowered for platform 'cuda', but it would run on 'cpu'"):
        lowered.compile()
    with pytest.raises(NotImplementedError, match="several platforms at once"):
        jit(lambda a: a).trace(A).lower(lowering_platforms=("cuda", "cpu"))


def test_host_callbacks_use_the_platforms_python_callback_target():
    """JAX's ``xla_ffi_python_{cpu,gpu}_callback`` (jax/_src/callback.py: ``gpu`` for cuda and
    rocm); JAX itself cannot lower a callback for a platform without its backend."""
    seen = []
    cb = HostCallback(lambda *args: seen.append(args), "test")

    def f(x):
        return (bind(debug_callback_p, x, callback=cb), x * 2)[1]

    traced = jit(f).trace(np.ones(3, np.float32))
    assert _targets(traced.lower().as_text()) == ["xla_ffi_python_cpu_callback"]
    cuda = traced.lower(lowering_platforms=("cuda",)).as_text()
    assert _targets(cuda) == ["xla_ffi_python_gpu_callback"]
    assert seen == []  # lowering never runs the callback


def test_geevs_packed_real_eigenvectors_unpack_to_numpys():
    """cuSOLVER's ``geev`` packs a real matrix's eigenvectors as LAPACK's ``dgeev`` does (a
    conjugate pair's real and imaginary parts in two adjacent columns): the unpacking the
    CUDA rule lowers, run here on LAPACK's packed output, gives NumPy's complex vectors."""
    from scipy.linalg import lapack

    from mj_xla.rules.linalg import _unpack_conjugate_pairs

    a = np.random.default_rng(1).normal(size=(3, 5, 5))
    w, packed = [], []
    for m in a:
        wr, wi, _, vr, info = lapack.dgeev(m, compute_vl=0)
        assert info == 0
        w.append(wr + 1j * wi)
        packed.append(vr)
    assert any((np.asarray(wi) != 0).any() for wi in np.imag(w))  # conjugate pairs present
    got = np.asarray(_unpack_conjugate_pairs(np.array(w), np.array(packed)))
    want = np.linalg.eig(a)[1]
    np.testing.assert_allclose(got, want, atol=1e-7)
    np.testing.assert_allclose(a @ got, got * np.array(w)[:, None, :], atol=1e-10)
