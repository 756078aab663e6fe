"""More cases where JAX's own test files (issue 35) found mj raising where JAX computes, each
against JAX 0.10.2 in both dtype modes (the ``x64`` fixture)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax as mlax

pytestmark = pytest.mark.oracle


def _close(ours, theirs, rtol=1e-6):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("linearize", [False, True])
def test_checkpointed_scan_closing_over_float64_array(x64, linearize):
    """grad / linearize of a checkpointed scan whose body closes over a float64 NumPy array
    (lax_control_flow_test's testScanGrad / testScanLinearize, impl=new_checkpoint). In
    32-bit mode the residual is narrowed to float32, and the jaxpr builder looked the
    constant up by the narrowed copy's id: KeyError."""
    d = np.random.RandomState(0).randn(2)
    c = np.random.RandomState(1).randn(4)
    as_ = np.random.RandomState(2).randn(5, 3)

    def make(np_, lax, checkpoint):
        def f(c, a):
            b = np_.sum(np_.sin(a)) + np_.sum(np_.sin(c)) + np_.sum(np_.sin(d))
            return np_.sin(c * b), b

        def loss(c, as_):
            return checkpoint(lambda c, as_: lax.scan(f, c, as_))(c, as_)[0].sum()

        return loss

    ours_f = make(mnp, mlax, mj.checkpoint)
    theirs_f = make(jnp, jax.lax, jax.checkpoint)
    if linearize:
        ours_out, ours_lin = mj.linearize(ours_f, c, as_)
        theirs_out, theirs_lin = jax.linearize(theirs_f, c, as_)
        _close(ours_out, theirs_out, rtol=1e-5)
        _close(ours_lin(c, as_), theirs_lin(c, as_), rtol=1e-4)
    else:
        for ours, theirs in zip(
            mj.grad(ours_f, (0, 1))(c, as_), jax.grad(theirs_f, (0, 1))(c, as_), strict=True
        ):
            _close(ours, theirs, rtol=1e-4)
