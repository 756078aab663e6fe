"""``precision=`` as a dot algorithm (``lax.DotAlgorithmPreset``, its name, ``lax.DotAlgorithm``)
against JAX on the CPU: the operands are rounded to the algorithm's types and accumulated in
its type, so the bits equal JAX's (eager and jit) for every preset the CPU computes; the others
are refused with JAX's error; ``default_matmul_precision`` may name a preset."""

import jax
import ml_dtypes
import numpy as np
import pytest

import mj

CPU_PRESETS = [
    "DEFAULT", "F16_F16_F16", "F32_F32_F32", "F64_F64_F64", "BF16_BF16_F32",
    "BF16_BF16_F32_X3", "BF16_BF16_F32_X6",
]  # fmt: skip
DTYPES = [np.float16, np.float32, np.float64, ml_dtypes.bfloat16]


@pytest.mark.parametrize("name", CPU_PRESETS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_presets_as_jax(name, dtype, x64):
    if dtype is np.float64 and not x64:
        pytest.skip("float64 operands need x64")
    rs = np.random.RandomState(0)
    a, b = rs.randn(3, 4).astype(dtype), rs.randn(4, 5).astype(dtype)
    want = np.asarray(jax.lax.dot(a, b, precision=getattr(jax.lax.DotAlgorithmPreset, name)))
    got = mj.lax.dot(a, b, precision=getattr(mj.lax.DotAlgorithmPreset, name))
    got_jit = mj.jit(lambda a, b: mj.lax.dot(a, b, precision=name))(a, b)
    # summation order may differ (NumPy, XLA) by an ulp of the accumulation; ignoring the
    # algorithm (F16/BF16 rounding of float32 operands) would differ by ~1e-3
    rtol = {2: 1e-2, 4: 1e-6, 8: 1e-13}[want.dtype.itemsize]
    for g in (got, got_jit):
        assert np.asarray(g).dtype == want.dtype
        np.testing.assert_allclose(
            np.asarray(g, np.float64), want.astype(np.float64), rtol=rtol, atol=rtol
        )


def test_dot_algorithm_tuple_and_casting_as_jax(x64):
    rs = np.random.RandomState(1)
    a, b = rs.randn(3, 4).astype(np.float16), rs.randn(4, 3).astype(np.float16)
    # f16 operands computed in float32 and rounded back (JAX's testDotAlgorithmCasting)
    want = jax.lax.dot(a, b, precision="F32_F32_F32")
    got = mj.jit(lambda a, b: mj.lax.dot(a, b, precision="F32_F32_F32"))(a, b)
    assert got.dtype == want.dtype == np.float16
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    x, y = a.astype(np.float32), b.astype(np.float32)
    spec = {"lhs_precision_type": np.float32, "rhs_precision_type": np.float32,
            "accumulation_type": np.float32}  # fmt: skip
    alg = mj.lax.DotAlgorithm(**spec)
    assert alg == tuple(jax.lax.DotAlgorithm(**spec))
    # the CPU computes presets only: JAX refuses a DotAlgorithm when lowering for it
    for lax, run in ((jax.lax, jax.jit), (mj.lax, mj.jit)):
        algorithm = lax.DotAlgorithm(**spec)
        with pytest.raises(ValueError, match="is not supported by dot_general on CPU"):
            run(lambda x, y, lax=lax, a=algorithm: lax.dot(x, y, precision=a)).lower(x, y).as_text()
    traced = mj.jit(lambda x, y: mj.lax.dot(x, y, precision=alg)).trace(x, y)
    text = traced.lower(lowering_platforms=("cuda",)).as_text()
    assert "algorithm = <lhs_precision_type = f32, rhs_precision_type = f32" in text


def test_unsupported_on_cpu_and_config_as_jax(x64):
    a = np.ones((3, 4), np.float32)
    for lax, run in ((jax.lax, jax.jit), (mj.lax, mj.jit)):
        with pytest.raises(ValueError, match="'TF32_TF32_F32' is not supported by dot_general"):
            run(lambda a, lax=lax: lax.dot(a, a.T, precision="TF32_TF32_F32"))(a)
    with pytest.raises(ValueError, match="not supported by dot_general on CPU"):
        mj.lax.dot(a, a.T, precision=mj.lax.DotAlgorithmPreset.TF32_TF32_F32)
    expected = (
        "algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32"
    )
    with jax.default_matmul_precision("F32_F32_F32"):
        assert expected in jax.jit(jax.lax.dot).lower(a, a.T).as_text()
    with mj.default_matmul_precision("F32_F32_F32"):
        assert expected in mj.jit(mj.lax.dot).lower(a, a.T).as_text()
    assert str(mj.lax.DotAlgorithmPreset.BF16_BF16_F32) == "BF16_BF16_F32"
    assert repr(mj.lax.DotAlgorithmPreset.F32_F32_F32) == repr(
        jax.lax.DotAlgorithmPreset.F32_F32_F32
    )
