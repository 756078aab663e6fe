"""``lax.platform_dependent`` against JAX: the branch of the platform the computation runs on,
eagerly, under ``jit``/``vmap``/``grad``; the lowered module holds only that branch (the
compiler never sees another platform's code); ``lower(lowering_platforms=...)`` picks the
named platform's branch; no branch and no default is JAX's NotImplementedError."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

X = np.arange(3, dtype=np.float32)


def program(lib, np_):
    return lambda x: lib.lax.platform_dependent(x, cpu=np_.sin, default=np_.cos)


TRANSFORMS = {
    "eager": lambda lib, f: f(X),
    "jit": lambda lib, f: lib.jit(f)(X),
    "vmap": lambda lib, f: lib.vmap(f)(X),
    "grad": lambda lib, f: lib.grad(lambda x: lib.numpy.sin(f(x)).sum())(X),
    "jit of grad": lambda lib, f: lib.jit(lib.grad(lambda x: f(x).sum()))(X),
    "no args": lambda lib, f: lib.lax.platform_dependent(
        cpu=lambda: lib.numpy.sin(X), default=lambda: lib.numpy.cos(X)
    ),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_the_platforms_branch_as_jax(x64, name):
    want = TRANSFORMS[name](jax, program(jax, jnp))
    got = TRANSFORMS[name](mj, program(mj, mnp))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_only_the_chosen_branch_is_lowered():
    text = mj.jit(program(mj, mnp)).lower(X).as_text()
    assert "stablehlo.sine" in text
    assert "stablehlo.cosine" not in text
    assert "stablehlo.if" not in text
    batched = mj.jit(mj.vmap(program(mj, mnp))).lower(X).as_text()
    assert "stablehlo.sine" in batched
    assert "stablehlo.cosine" not in batched


def test_lowering_for_another_platform_takes_its_branch():
    f = program(mj, mnp)
    text = mj.jit(f).trace(X).lower(lowering_platforms=("cuda",)).as_text()
    assert "stablehlo.cosine" in text
    assert "stablehlo.sine" not in text


def test_identical_branches_are_staged_once():
    def f(x):
        return mj.lax.platform_dependent(x, cpu=mnp.sin, tpu=mnp.sin, default=lambda x: x)

    assert mj.jit(f).lower(X).as_text().count("stablehlo.sine") == 1
    np.testing.assert_allclose(np.asarray(f(X)), np.sin(X), rtol=1e-6)


@pytest.mark.parametrize("lib", [jax, mj], ids=["jax", "mj"])
def test_no_branch_for_the_platform_and_no_default_raises(lib):
    with pytest.raises(NotImplementedError, match=r"translation rule .* not found for platform"):
        lib.lax.platform_dependent(3.0, tpu=lambda x: x + 2.0)


@pytest.mark.parametrize("lib", [jax, mj], ids=["jax", "mj"])
def test_gpu_is_not_a_platform_name(lib):
    with pytest.raises(ValueError, match="Use 'cuda' or 'rocm'"):
        lib.lax.platform_dependent(3.0, gpu=lambda x: x)
