"""JAX's remaining ``jit`` options: ``keep_unused`` (unread arguments stay parameters of the
program), ``inline`` (no nested call when traced inside another function), ``device``/
``backend`` (deprecated in JAX, with its warning: the program runs there) and
``compiler_options`` (handed to XLA, which checks them)."""

import numpy as np
import pytest

import mj_xla
from mj_core import lax
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


def test_compiler_options_reach_xla_not_ignored():
    np.testing.assert_allclose(jit(lambda x: x * 2, compiler_options={})(3.0), 6.0)
    fast = jit(lambda x: x * 2, compiler_options={"xla_cpu_enable_fast_math": True})
    np.testing.assert_allclose(fast(3.0), 6.0)
    # XLA reads them: a name it does not know is its error, at compile time
    bad = jit(lambda x: x * 2, compiler_options={"xla_no_such_flag": True})
    with pytest.raises(mj_xla.extend.JaxRuntimeError, match="No such compile option"):
        bad(3.0)
    lowered = jit(lambda x: x * 2).lower(3.0)
    with pytest.raises(mj_xla.extend.JaxRuntimeError, match="not a valid bool value"):
        lowered.compile(compiler_options={"xla_cpu_enable_fast_math": "perhaps"})


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


def test_compile_log_at_debug_level_as_jax(caplog):
    """JAX's four lines per trace-and-compile (DEBUG; WARNING with log_compiles), none for a
    call that finds its executable."""

    def times_two(a):
        return a * 2

    f = jit(times_two)
    with caplog.at_level("DEBUG", logger="mj"):
        f(np.ones(2, np.float32))
        lines = [(r.levelname, r.getMessage()) for r in caplog.records]
        caplog.clear()
        f(np.zeros(2, np.float32))
        assert caplog.records == []
    assert [level for level, _ in lines] == ["DEBUG"] * 4
    texts = [text for _, text in lines]
    assert texts[0].startswith("Finished tracing times_two for jit in ")
    assert texts[1] == "Compiling jit(times_two) with global shapes and types [f32[2]]."
    assert texts[2].startswith("Finished jaxpr to MLIR module conversion jit(times_two) in ")
    assert texts[3].startswith("Finished XLA compilation of jit(times_two) in ")
    assert all(text.endswith(" sec") for text in texts[0:1] + texts[2:])


def test_random_bit_options_accept_jax_defaults_only():
    from mj_core import config

    config.update("jax_threefry_partitionable", True)
    config.update("jax_default_prng_impl", "threefry2x32")
    with pytest.raises(NotImplementedError, match="threefry_partitionable"):
        config.update("jax_threefry_partitionable", False)
    with pytest.raises(NotImplementedError, match="default_prng_impl"):
        config.update("jax_default_prng_impl", "rbg")


@pytest.fixture
def cache_dir(tmp_path):
    from mj_core import config

    with (
        config.override("compilation_cache_dir", str(tmp_path)),
        config.override("persistent_cache_min_compile_time_secs", 0.0),
    ):
        yield tmp_path


def _count_compiles(monkeypatch):
    from mj_xla import _jaxlib

    calls = []
    original = _jaxlib._compile_now

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_jaxlib, "_compile_now", counting)
    return calls


def test_persistent_cache_loads_what_an_earlier_compile_stored(cache_dir, monkeypatch):
    from mj_xla import clear_caches

    compiles = _count_compiles(monkeypatch)
    f = jit(lambda x: lax.sin(x) * 2.0 + 1.0)
    x = np.linspace(0.0, 1.0, 5, dtype=np.float32)
    want = np.sin(x) * 2 + 1
    np.testing.assert_allclose(f(x), want, rtol=1e-6)
    assert len(compiles) == 1
    entries = [p for p in cache_dir.iterdir() if p.name.startswith("mj-")]
    assert len(entries) == 1
    clear_caches()  # the in-memory caches: the next call needs an executable again
    np.testing.assert_allclose(f(x), want, rtol=1e-6)
    assert len(compiles) == 1  # loaded, not compiled
    np.testing.assert_allclose(f(x.astype(np.float16)), want, rtol=1e-3)  # another program
    assert len(compiles) == 2
    assert len(list(cache_dir.iterdir())) == 2


def test_persistent_cache_skips_quick_compiles_and_survives_damaged_entries(cache_dir, monkeypatch):
    from mj_core import config
    from mj_xla import clear_caches

    f = jit(lambda x: x * 3.0)
    with config.override("persistent_cache_min_compile_time_secs", 1e9):
        f(np.ones(2, np.float32))
    assert list(cache_dir.iterdir()) == []  # too quick to be worth a file
    clear_caches()
    f(np.ones(2, np.float32))
    (entry,) = cache_dir.iterdir()
    entry.write_bytes(b"not an executable")
    clear_caches()
    compiles = _count_compiles(monkeypatch)
    with pytest.warns(UserWarning, match="compilation cache: cannot load"):
        np.testing.assert_array_equal(f(np.ones(2, np.float32)), [3.0, 3.0])
    assert len(compiles) == 1
