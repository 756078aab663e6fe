"""Differences from JAX found by running JAX's own ``lax_numpy_test.py`` on mj (issue 35), one
regression test each, compared with JAX 0.10.2 in both dtype modes."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _same(got, want):
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


COMPLEX_SPECIALS = np.array(
    [
        complex(np.nan, 0),
        1 + 1j,
        complex(0, np.nan),
        -1j,
        0j,
        complex(-0.0, 1),
        complex(np.nan, -1),
        complex(1, -np.inf),
        complex(np.inf, np.nan),
    ]
)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sort_orders_real_then_imaginary_with_nan_last_in_each(x64, dtype):
    # JAX sorts complex numbers lexicographically, NaN last in each part; NumPy's own order
    # (every value with a NaN part last) is not JAX's
    x = COMPLEX_SPECIALS.astype(dtype)
    pairs = [
        (jnp.sort, mnp.sort),
        (jnp.argsort, mnp.argsort),
        (jax.jit(jnp.sort), mj.jit(mnp.sort)),
        (jax.jit(jnp.argsort), mj.jit(mnp.argsort)),
        (jnp.sort_complex, mnp.sort_complex),
        (lambda a: jnp.sort(a, descending=True), lambda a: mnp.sort(a, descending=True)),
    ]
    for want_f, got_f in pairs:
        _same(got_f(x), want_f(x))
    keys = (x.real, np.zeros(x.shape))
    _same(
        mj.lax.sort((x, np.arange(x.size)), num_keys=1)[1],
        jax.lax.sort((x, np.arange(x.size)), num_keys=1)[1],
    )
    _same(mnp.lexsort(keys), jnp.lexsort(keys))
