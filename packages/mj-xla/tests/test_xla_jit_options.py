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
