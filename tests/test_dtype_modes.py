"""JAX's dtype semantics across the layers, in mj's default 32-bit mode and with x64: what the
seeds print, what jit lowers, and that switching the mode never reuses a stale trace."""

import os
import subprocess
import sys

import numpy as np
import pytest

import mj
import mj.experimental
import mj.numpy as mnp
from mj_core.errors import ConcretizationError

pytestmark = pytest.mark.x32

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


def test_autodidax_jaxpr_prints_float32():
    text = str(mj.make_jaxpr(lambda x: 2.0 * x)(3.0))
    assert "float32[]" in text
    assert "float64" not in text
    assert "mul" in text
    assert "convert" not in text


def test_weak_literal_is_lowered_in_the_operand_dtype():
    text = mj.jit(lambda x: x * 2.0).lower(np.ones(3, np.float32)).as_text()
    assert "tensor<f32>" in text
    assert "f64" not in text
    assert "convert" not in text


@pytest.mark.parametrize("mode", ["eager", "jaxpr", "jit"])
def test_same_dtypes_in_every_mode(mode):
    def f(x, n):
        return mnp.sum(mnp.sin(x) * 2.0) + n, mnp.arange(3) + n, mnp.log2(x), mnp.log10(x)

    x = np.linspace(0.5, 1.5, 4)  # float64 NumPy input: narrowed to float32
    if mode == "eager":
        outs = f(x, 1)
    elif mode == "jaxpr":
        outs = mj.eval_jaxpr(mj.make_jaxpr(f)(x, 1), [x, 1])
    else:
        outs = mj.jit(f)(x, 1)
    assert [np.asarray(o).dtype for o in outs] == [F32, np.dtype(np.int32), F32, F32]
    np.testing.assert_allclose(np.asarray(outs[0]), 2 * np.sin(x).sum() + 1, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(outs[2]), np.log2(x), rtol=1e-6)


def test_grad_and_vmap_in_float32():
    def f(x):
        return mnp.sum(mnp.tanh(x) ** 2)

    x = np.array([0.1, 0.5, -0.7])
    g = mj.grad(f)(x)
    assert g.dtype == F32
    np.testing.assert_allclose(g, 2 * np.tanh(x) / np.cosh(x) ** 2, rtol=1e-5)
    v = mj.vmap(mj.grad(lambda t: mnp.sin(t) * 3.0))(x)
    assert v.dtype == F32
    np.testing.assert_allclose(v, 3 * np.cos(x), rtol=1e-6)
    assert mj.jit(mj.grad(f))(x).dtype == F32


def test_switching_the_mode_retraces_jit():
    f = mj.jit(lambda: mnp.ones(2) * 0.1)
    assert f().dtype == F32
    with mj.enable_x64(True):
        assert mj.enable_x64.value is True
        assert f().dtype == F64
        np.testing.assert_array_equal(f(), np.full(2, 0.1))
    assert f().dtype == F32
    with mj.experimental.enable_x64():
        assert mnp.arange(2).dtype == np.int64
        with mj.experimental.disable_x64():
            assert mnp.arange(2).dtype == np.int32


def test_config_update_and_jax_spelling():
    mj.config.update("jax_enable_x64", True)
    try:
        assert mj.config.jax_enable_x64 is True
        assert mnp.ones(1).dtype == F64
    finally:
        mj.config.update("jax_enable_x64", False)
    assert mnp.ones(1).dtype == F32


def test_random_defaults_follow_the_mode():
    key = mj.random.PRNGKey(0)
    assert mj.random.normal(key, (3,)).dtype == F32
    assert mj.random.uniform(key, (3,)).dtype == F32
    assert mj.random.randint(key, (3,), 0, 5).dtype == np.int32
    with mj.enable_x64(True):
        assert mj.random.normal(key, (3,)).dtype == F64


def test_traced_arange_bound_is_a_concretization_error():
    with pytest.raises(ConcretizationError, match="arange: stop must be a concrete number"):
        mj.jit(lambda n: mnp.arange(n))(3)


def test_rank_promotion_context_manager_under_jit():
    with mj.numpy_rank_promotion("raise"), pytest.raises(ValueError, match="promotion='raise'"):
        mj.jit(lambda a, b: a * b)(mnp.ones(3), mnp.ones((2, 3)))
    assert mj.jit(lambda a, b: a * b)(mnp.ones(3), mnp.ones((2, 3))).shape == (2, 3)


def test_environment_variable_turns_x64_on():
    code = "import mj.numpy as mnp; print(mnp.ones(1).dtype, mnp.arange(1).dtype)"
    env = {**os.environ, "MJ_ENABLE_X64": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.split() == ["float64", "int64"], out.stderr
    env["MJ_ENABLE_X64"] = "0"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.split() == ["float32", "int32"], out.stderr


def test_eager_grad_of_max_and_min_keeps_float32_under_x64():
    """The tie-splitting share of max/min is built in the cotangent's dtype: eagerly, its
    Python constants are not weak any more (found by the differential oracle on ``clip``)."""
    for f, x, want in [
        (lambda v: mnp.clip(v, 0.0, 1.0), 0.5, 1.0),
        (lambda v: mnp.maximum(v, 0.5), 0.5, 0.5),  # a tie splits the derivative
        (lambda v: mnp.minimum(v, 2.0), 3.0, 0.0),
    ]:
        with mj.enable_x64(True):
            g = mj.grad(f)(np.float32(x))
        assert g.dtype == F32
        np.testing.assert_allclose(g, want)
