"""``mj.flatten_util.ravel_pytree`` against ``jax.flatten_util.ravel_pytree`` (issue 23),
following JAX's RavelUtilTest."""

import jax.numpy as jnp
import numpy as np
import pytest
from jax import flatten_util as jfu
from jax import tree_util as jtu

import mj.numpy as mnp
from mj import flatten_util as mfu
from mj import tree_util as mtu

pytestmark = pytest.mark.oracle


def _pair(first, second, dtypes):
    """JAX's test trees: a 1-vector and a 2x2 matrix of the given dtypes."""
    return lambda np_: [
        np_.array(first, getattr(np_, dtypes[0])),
        np_.array(second, getattr(np_, dtypes[1])),
    ]


# (int32, float32) is left out: mj promotes it to float64 as NumPy does, JAX to float32.
@pytest.mark.parametrize(
    "make",
    [
        _pair([3.0], [[1.0, 2.0], [3.0, 4.0]], ("float32", "float32")),
        _pair([3], [[1, 2], [3, 4]], ("int32", "int32")),
        _pair([0], [[1, 2], [3, 4]], ("bool_", "int32")),
        _pair([1.0], [[1, 2 + 3j], [3, 4]], ("float32", "complex64")),
        _pair([1.0], [[1, 2], [3, 4]], ("float64", "int64")),
        lambda np_: {"a": np_.ones((2, 3)), "b": (np_.arange(4.0), None), "c": 2.0},
        lambda np_: [],
    ],
)
def test_ravel_and_unravel_match_jax(make):
    want_flat, want_unravel = jfu.ravel_pytree(make(jnp))
    got_flat, got_unravel = mfu.ravel_pytree(make(mnp))
    assert got_flat.dtype == want_flat.dtype
    np.testing.assert_array_equal(got_flat, want_flat)
    want, got = want_unravel(want_flat), got_unravel(got_flat)
    assert str(mtu.tree_structure(got)) == str(jtu.tree_structure(want))
    for g, w in zip(mtu.tree_leaves(got), jtu.tree_leaves(want), strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_unravel_dtype_rules_match_jax():
    for np_, fu in ((jnp, jfu), (mnp, mfu)):
        x = np_.arange(10, dtype=np_.float32)
        flat, unravel = fu.ravel_pytree(x)
        assert unravel(flat < 5.3).dtype == np.bool_
        flat, unravel = fu.ravel_pytree((x, np_.arange(10, dtype=np_.int32)))
        with pytest.raises(TypeError, match="but expected dtype"):
            unravel(flat < 5.3)
