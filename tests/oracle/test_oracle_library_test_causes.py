"""Fixes for the causes of optax's and chex's own tests failing on mj while passing on JAX
(docs/library_tests.md), each compared with JAX."""

import jax
import pytest

import mj

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize(
    "shapes",
    [((2, 1), (3,)), ((4,),), ([2, 1], (1, 4)), ((), (3, 2)), ((5, 1, 3), (1, 7, 1), (3,))],
)
def test_lax_broadcast_shapes_matches_jax(shapes):
    want = jax.lax.broadcast_shapes(*shapes)
    got = mj.lax.broadcast_shapes(*shapes)
    assert got == want
    assert type(got) is tuple


@pytest.mark.parametrize("shapes", [((2,), (3,)), ((3, 1), (4, 1)), ((2, 3), [4])])
def test_lax_broadcast_shapes_errors_as_jax(shapes):
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting") as want:
        jax.lax.broadcast_shapes(*shapes)
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting") as got:
        mj.lax.broadcast_shapes(*shapes)
    assert str(got.value).startswith(str(want.value))
