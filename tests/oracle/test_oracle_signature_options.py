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


A = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0]])
MASK = np.array([[True, True, False], [True, True, True]])
NUMPY_CASES = {
    "repeat total": lambda np_: np_.repeat(
        np_.arange(3), np_.array([1, 0, 2]), total_repeat_length=5
    ),
    "repeat short": lambda np_: np_.repeat(
        np_.arange(3), np_.array([1, 0, 2]), total_repeat_length=2
    ),
    "repeat scalar": lambda np_: np_.repeat(np_.arange(3), 2, total_repeat_length=8),
    "repeat axis": lambda np_: np_.repeat(
        np_.arange(6).reshape(2, 3), np_.array([1, 2]), axis=0, total_repeat_length=3
    ),
    "nansum where initial": lambda np_: np_.nansum(A, axis=1, where=MASK, initial=10.0),
    "nanprod where": lambda np_: np_.nanprod(A, axis=0, where=MASK),
    "nanmax where initial": lambda np_: np_.nanmax(A, axis=1, where=MASK, initial=-5.0),
    "nanmin initial": lambda np_: np_.nanmin(A, axis=1, initial=0.0),
    "nanmean where": lambda np_: np_.nanmean(A, axis=1, where=MASK),
    "var mean": lambda np_: np_.var(A[:, :1], axis=0, mean=np.ones((1, 1))),
    "std mean": lambda np_: np_.std(np.arange(6.0).reshape(2, 3), axis=1, mean=np.ones((2, 1))),
    "stack dtype": lambda np_: np_.stack([1, 2], dtype=np.float32),
    "hstack dtype": lambda np_: np_.hstack([np.ones(2), np.zeros(1)], dtype=np.int32),
    "vstack dtype": lambda np_: np_.vstack([np.ones(2)], dtype=np.float16),
    "dstack dtype": lambda np_: np_.dstack([np.ones(2)], dtype=np.int32),
}


@pytest.mark.parametrize("name", sorted(NUMPY_CASES))
def test_numpy_keywords_match_jax(x64, name):
    case = NUMPY_CASES[name]
    want = case(jnp)
    for got in (case(mnp), mj.jit(lambda: case(mnp))()):
        assert np.dtype(got.dtype) == np.dtype(want.dtype)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_repeat_to_a_static_length_under_jit_with_traced_counts(x64):
    f = lambda np_: lambda r: np_.repeat(np_.arange(3), r, total_repeat_length=4)  # noqa: E731
    counts = np.array([2, 1, 1])
    np.testing.assert_array_equal(mj.jit(f(mnp))(counts), jax.jit(f(jnp))(counts))


def test_reshape_takes_copy():
    for copy in (None, True, False):
        np.testing.assert_array_equal(
            mnp.reshape(mnp.arange(6.0), (3, 2), copy=copy), jnp.reshape(jnp.arange(6.0), (3, 2))
        )


def test_size_along_axes():
    x = np.zeros((2, 3, 4))
    for axis in (None, 1, -1, (0, 2)):
        assert mnp.size(x, axis) == jnp.size(x, axis)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"mode": "clip"},
        {"mode": "fill", "fill_value": -7},
        {"wrap_negative_indices": False},
        {"mode": "clip", "wrap_negative_indices": False},
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_take_along_axis_out_of_bounds_as_jax(x64, kw, dtype):
    # JAX fills out-of-bounds indices by default (NaN for floats); clamping was wrong
    x = (np.arange(6) % 4).reshape(2, 3).astype(dtype)
    i = np.array([[0, 5], [-1, 2]])
    want = jnp.take_along_axis(x, i, axis=1, **kw)
    for got in (
        mnp.take_along_axis(x, i, axis=1, **kw),
        mj.jit(lambda x: mnp.take_along_axis(x, i, axis=1, **kw))(x),
    ):
        assert np.dtype(got.dtype) == np.dtype(want.dtype)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
