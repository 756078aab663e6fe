"""``vmap``'s errors in JAX's wording (JAX's ``batching_test`` matches them): an in_axes beyond
the argument's rank, an out_axes beyond the output's, and an output that is no array."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

X = np.zeros((3, 4, 5), np.float32)


def _message(call, error):
    with pytest.raises(error) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("axis", [-4, 3, 7])
def test_in_axes_beyond_rank_as_jax(axis):
    want = _message(lambda: jax.vmap(jnp.sum, in_axes=axis)(X), ValueError)
    got = _message(lambda: mj.vmap(mnp.sum, in_axes=axis)(X), ValueError)
    assert got.startswith(want)


@pytest.mark.parametrize("axis", [-4, 3])
def test_out_axes_beyond_rank_as_jax(axis):
    want = _message(lambda: jax.vmap(lambda y: y, out_axes=axis)(X), ValueError)
    got = _message(lambda: mj.vmap(lambda y: y, out_axes=axis)(X), ValueError)
    assert got.startswith(want)


@pytest.mark.parametrize("value", ["hello", object()], ids=["str", "object"])
def test_non_array_output_as_jax(value):
    want = _message(lambda: jax.vmap(lambda y: value)(np.arange(5)), TypeError)
    got = _message(lambda: mj.vmap(lambda y: value)(np.arange(5)), TypeError)
    assert got.startswith(want)
    assert mj.vmap(lambda y: (1.0, y))(np.arange(3))[0].shape == (3,)
