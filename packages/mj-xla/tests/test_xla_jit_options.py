"""JAX's remaining ``jit`` options: ``keep_unused`` (unread arguments stay parameters of the
program), ``inline`` (no nested call when traced inside another function), ``device``/
``backend`` (deprecated in JAX, with its warning: the program runs there) and
``compiler_options`` (refused, not silently ignored)."""

import numpy as np
import pytest

import mj_xla
from mj_ir import make_jaxpr
from mj_xla import jit


def unused_second(x, y):
    return x * 2.0


def test_keep_unused_keeps_the_parameter():
    kept = jit(unused_second, keep_unused=True).lower(1.0, 2.0).as_text()
    dropped = jit(unused_second).lower(1.0, 2.0).as_text()
    assert "%arg1" in kept
    assert "%arg1" not in dropped
    np.testing.assert_allclose(jit(unused_second, keep_unused=True)(1.5, 2.0), 3.0)
    np.testing.assert_allclose(jit(unused_second)(1.5, 2.0), 3.0)


def test_inline_puts_the_equations_into_the_caller():
    inner = jit(lambda x: x + 1.0, inline=True)
    nested = jit(lambda x: x + 1.0)
    eqns = make_jaxpr(lambda x: inner(x) * 2.0)(1.0).jaxpr.eqns
    assert [e.primitive.name for e in eqns] == ["add", "mul"]
    assert "xla_call" in [
        e.primitive.name for e in make_jaxpr(lambda x: nested(x) * 2.0)(1.0).jaxpr.eqns
    ]
    np.testing.assert_allclose(inner(1.0), 2.0)
    np.testing.assert_allclose(jit(lambda x: inner(x) * 2.0)(1.0), 4.0)


def test_device_and_backend_warn_and_run_there():
    device = mj_xla.devices()[0]
    with pytest.warns(DeprecationWarning, match="deprecated"):
        f = jit(lambda x: x * 2.0, device=device)
    out = f(np.arange(3.0))
    np.testing.assert_allclose(out, [0.0, 2.0, 4.0])
    assert out.devices() == {device}
    with pytest.warns(DeprecationWarning, match="deprecated"):
        g = jit(lambda x: x - 1.0, backend="cpu")
    np.testing.assert_allclose(g(np.ones(2)), [0.0, 0.0])


def test_compiler_options_are_refused_not_ignored():
    jit(lambda x: x, compiler_options={})  # nothing asked: fine
    with pytest.raises(NotImplementedError, match="compiler_options"):
        jit(lambda x: x, compiler_options={"xla_cpu_enable_fast_math": True})


def test_default_matmul_precision_applies_where_none_was_asked(caplog):
    from mj_core import config
    from mj_core.lax import dot_general

    x = np.ones((2, 2), np.float32)
    dot = jit(lambda a, b: dot_general(a, b, (((1,), (0,)), ((), ()))))
    assert "HIGHEST" not in dot.lower(x, x).as_text()
    with config.override("jax_default_matmul_precision", "float32"):
        assert dot.lower(x, x).as_text().count("HIGHEST") == 2  # recompiled: caches cleared
        explicit = jit(lambda a, b: dot_general(a, b, (((1,), (0,)), ((), ())), "DEFAULT"))
        assert "HIGHEST" not in explicit.lower(x, x).as_text()
        np.testing.assert_allclose(dot(x, x), 2 * x)
    assert "HIGHEST" not in dot.lower(x, x).as_text()
    with pytest.raises(ValueError, match="default_matmul_precision"):
        config.update("default_matmul_precision", "bogus")


def test_log_compiles_logs_each_compilation(caplog):
    from mj_core import config

    with config.override("log_compiles", True), caplog.at_level("WARNING", logger="mj"):
        jit(lambda a: a * 3.0)(np.ones(3, np.float32))
    assert any("Compiling" in r.message and "f32[3]" in r.message for r in caplog.records)


def test_random_bit_options_accept_jax_defaults_only():
    from mj_core import config

    config.update("jax_threefry_partitionable", True)
    config.update("jax_default_prng_impl", "threefry2x32")
    with pytest.raises(NotImplementedError, match="threefry_partitionable"):
        config.update("jax_threefry_partitionable", False)
    with pytest.raises(NotImplementedError, match="default_prng_impl"):
        config.update("jax_default_prng_impl", "rbg")
