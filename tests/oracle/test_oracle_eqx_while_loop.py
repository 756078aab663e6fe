"""Causes of equinox's tests/test_while_loop.py failing on mj (issue 36), each compared with JAX
in both dtype modes (the ``x64`` fixture)."""

import jax
import numpy as np
import pytest

import mj

pytestmark = pytest.mark.oracle


def _scan_with_callback(api, where, log):
    """A scan whose body calls ``debug.callback`` (on the carry, on a loop constant, or inside
    a ``cond`` on the carry) and multiplies the carry by a loop-invariant ``sin(w)``: under
    differentiation ``cos(w)`` is a residual computed once, outside the loop."""
    jnp, lax = api.numpy, api.lax

    def record(v):
        log.append(float(v))

    def f(c, w):
        def step(c):
            return c * jnp.sin(w) + 0.1 * c * c

        def body(c, _):
            if where == "carry":
                api.debug.callback(record, c)
            elif where == "const":
                api.debug.callback(record, w)
            else:

                def logged(c):
                    api.debug.callback(record, c)
                    return step(c)

                return lax.cond(c > -1e9, logged, step, c), None
            return step(c), None

        return lax.scan(body, c, None, length=3)[0]

    return f


def _run(api, where, how):
    log: list[float] = []
    f = _scan_with_callback(api, where, log)
    c, w = np.float32(1.5), np.float32(0.7)
    if how == "grad":
        out = api.grad(f, argnums=(0, 1))(c, w)
    elif how == "jit_value_and_grad":
        out = api.jit(api.value_and_grad(f, argnums=(0, 1)))(c, w)
    elif how == "grad_of_jit":
        out = api.grad(api.jit(f), argnums=(0, 1))(c, w)
    elif how == "grad_of_checkpoint":
        out = api.grad(api.checkpoint(f), argnums=(0, 1))(c, w)
    else:
        y, f_jvp = api.linearize(f, c, w)
        out = (y, f_jvp(np.float32(1.0), np.float32(0.5)))
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(out)], sorted(log)


_HOWS = ["grad", "jit_value_and_grad", "grad_of_jit", "grad_of_checkpoint", "linearize"]


@pytest.mark.parametrize("where", ["carry", "const", "cond"])
def test_differentiated_scan_with_callback_as_jax(x64, where):
    """A scan's partial evaluation hoists its loop-invariant residuals out of the loop; an
    effectful equation (here a ``debug.callback``, which dead-code elimination keeps) is not
    hoisted with them: mj raised a ``KeyError`` (the hoisted part read the carry) when the
    callback read the carry, and would run it once more when it read only loop constants
    (equinox's test_backward_bounded: a ``jax.debug.print`` of the step in the body)."""
    for how in _HOWS:
        want, want_log = _run(jax, where, how)
        got, got_log = _run(mj, where, how)
        assert len(got) == len(want), how
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype, how
            np.testing.assert_allclose(g, w, rtol=1e-5, err_msg=how)
        assert len(got_log) == len(want_log), how
        np.testing.assert_allclose(got_log, want_log, rtol=1e-6, err_msg=how)
