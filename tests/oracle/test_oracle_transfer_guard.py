"""Transfer guards against JAX's: host data given to ``jit`` or ``device_put`` is a transfer
(``"disallow"`` refuses the implicit one with jaxlib's error and JAX's text, and
``"disallow_explicit"`` the ``device_put`` too), while arrays already made by the library
(eager results stand for JAX's device arrays), jit's own outputs, closed-over constants and
``device_get`` are not; levels are validated with JAX's message."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

REFUSED = re.escape("Disallowed host-to-device transfer: aval=ShapedArray(float32[3])")


def _outcome(fn):
    try:
        fn()
    except Exception as e:
        return type(e).__name__, str(e).split(", dst_sharding")[0]
    return "ok", None


def _cases(lib, lnp):
    f = lib.jit(lambda x: x + 1)
    made = lnp.arange(3.0)
    out = f(made)
    const = np.arange(4.0)
    return {
        "numpy argument": lambda: f(np.ones(3, np.float32)),
        "library array": lambda: f(made),
        "jit output": lambda: f(out),
        "closed-over constant": lambda: lib.jit(lambda: const * 2)(),
        "device_put host data": lambda: lib.device_put(np.ones(3, np.float32)),
        "device_get": lambda: lib.device_get(out),
        "arange": lambda: lnp.arange(5),
        "iscomplexobj": lambda: lnp.iscomplexobj(np.arange(5)),
    }


@pytest.mark.parametrize(
    "guard", ["transfer_guard", "transfer_guard_host_to_device", "transfer_guard_device_to_host"]
)
@pytest.mark.parametrize("level", ["allow", "log", "disallow", "disallow_explicit"])
def test_guard_levels_match_jax(guard, level):
    mj_cases, jax_cases = _cases(mj, mnp), _cases(jax, jnp)
    for name in mj_cases:
        with getattr(mj, guard)(level):
            got = _outcome(mj_cases[name])
        with getattr(jax, guard)(level):
            want = _outcome(jax_cases[name])
        assert got == want, name
    assert _outcome(mj_cases["numpy argument"]) == ("ok", None)  # restored after the block


def test_refusal_text_and_type():
    f = mj.jit(lambda x: x * 2)
    f(np.ones(3, np.float32))  # (plans made before the guard are not reused under it)
    f(mnp.ones(3))
    with mj.transfer_guard("disallow"), pytest.raises(mj.errors.JaxRuntimeError, match=REFUSED):
        f(np.ones(3, np.float32))
    with mj.transfer_guard("disallow"):  # a second call takes the dispatch memo's path
        with pytest.raises(mj.errors.JaxRuntimeError, match=REFUSED):
            f(np.ones(3, np.float32))
        for _ in range(2):  # (the second call through the memo's plan)
            np.testing.assert_array_equal(f(mnp.ones(3)), np.full(3, 2.0))


def test_global_option_and_bad_level():
    f = mj.jit(lambda x: x - 1)
    mj.config.update("jax_transfer_guard", "disallow")
    try:
        with pytest.raises(mj.errors.JaxRuntimeError, match="Disallowed host-to-device"):
            f(np.ones(3, np.float32))
    finally:
        mj.config.update("jax_transfer_guard", None)
    np.testing.assert_array_equal(f(np.ones(3, np.float32)), np.zeros(3))
    for lib in (mj, jax):
        text = "new enum value must be None or in ['allow', 'log', 'disallow', 'log_explicit', "
        with pytest.raises(ValueError, match=re.escape(text)), lib.transfer_guard("bogus"):
            pass
