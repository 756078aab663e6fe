"""Keyword options of JAX's transformations that mj takes as JAX does: ``grad(...,
allow_int=True)``, ``reduce_axes``, ``linearize(..., has_aux=True)``, against JAX."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp


def _same_tree(got, want):
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert np.shape(g) == np.shape(w)
        assert str(np.asarray(g).dtype) == str(np.asarray(w).dtype)
        if np.asarray(w).dtype.kind != "V":
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


@pytest.mark.parametrize("api", ["grad", "value_and_grad"])
def test_allow_int_matches_jax(x64, api):
    def f(np_):
        return lambda x, i, b: (np_.where(b, x, 0.0) * i).sum()

    args = (np.float32(2.0), np.arange(3), np.array([True, False, True]))
    want = getattr(jax, api)(f(jnp), argnums=(0, 1, 2), allow_int=True)(*args)
    got = getattr(mj, api)(f(mnp), argnums=(0, 1, 2), allow_int=True)(*args)
    _same_tree(got, want)


def test_reduce_axes_refused_as_in_jax():
    with pytest.raises(NotImplementedError):
        jax.grad(lambda x: x, reduce_axes=("i",))(1.0)
    with pytest.raises(NotImplementedError):
        mj.grad(lambda x: x, reduce_axes=("i",))(1.0)


def test_linearize_has_aux_matches_jax(x64):
    def f(np_):
        return lambda x: (np_.sin(x) * x, {"c": np_.cos(x)})

    x = np.linspace(0.1, 1.0, 3)
    out_j, lin_j, aux_j = jax.linearize(f(jnp), x, has_aux=True)
    out_m, lin_m, aux_m = mj.linearize(f(mnp), x, has_aux=True)
    _same_tree(out_m, out_j)
    _same_tree(aux_m, aux_j)
    _same_tree(lin_m(np.ones(3)), lin_j(np.ones(3)))
