"""Disagreements with JAX found by the differential tests, one test each (the fixed ones pass;
the open ones are strict xfails naming the owner's layer)."""

import jax.numpy as jnp
import numpy as np
import pytest

import mj.numpy as mnp

pytestmark = pytest.mark.oracle


@pytest.mark.xfail(
    strict=True,
    raises=AttributeError,
    reason="mj-core: eager mnp ops return plain NumPy arrays, which have no .at "
    "(jnp.sin(x).at[0].set(1.0) works in JAX); only mnp.asarray/creation give EagerArray",
)
def test_at_on_the_result_of_an_eager_op():
    x = np.arange(3.0)
    want = jnp.sin(x).at[0].set(1.0)
    got = mnp.sin(mnp.asarray(x)).at[0].set(1.0)
    np.testing.assert_allclose(got, want)
