"""``mj.scipy.ndimage.map_coordinates`` against SciPy (JAX's ``'wrap'``/``'constant'`` are
SciPy's ``'grid-wrap'``/``'grid-constant'``), its derivatives against finite differences, and
the same values under ``jit`` and ``vmap``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage

import mj
import mj.numpy as mnp
from mj.scipy.ndimage import map_coordinates

SCIPY_MODE = {
    "constant": "grid-constant",
    "nearest": "nearest",
    "wrap": "grid-wrap",
    "mirror": "mirror",
    "reflect": "reflect",
}


def _data() -> tuple[np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 6))
    coords = [rng.uniform(-3.0, 8.0, size=(4, 7)), rng.uniform(-3.0, 9.0, size=(4, 7))]
    return x, coords


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("mode", sorted(SCIPY_MODE))
def test_matches_scipy(order: int, mode: str) -> None:
    x, coords = _data()
    got = map_coordinates(x, coords, order, mode=mode, cval=-2.5)
    want = scipy.ndimage.map_coordinates(
        x, np.stack(coords), order=order, mode=SCIPY_MODE[mode], cval=-2.5
    )
    assert got.shape == (4, 7)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


def test_linear_is_the_bilinear_closed_form_inside() -> None:
    x = np.arange(12.0).reshape(3, 4)  # x[i, j] = 4 i + j is linear: interpolation is exact
    out = map_coordinates(x, [np.array([0.5, 1.25]), np.array([1.5, 2.75])], order=1)
    np.testing.assert_allclose(np.asarray(out), [4 * 0.5 + 1.5, 4 * 1.25 + 2.75])


def test_integer_input_rounds_half_away_from_zero_and_keeps_its_dtype() -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)  # interpolates to 4 i + j: 3.4 and 8.5
    out = map_coordinates(x, [np.array([0.5, 1.5]), np.array([1.4, 2.5])], order=1)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), [3, 9])


@pytest.mark.parametrize("mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
def test_gradients_match_finite_differences(mode: str) -> None:
    x, coords = _data()
    w = np.random.default_rng(1).normal(size=(4, 7))

    def f(x: mj.Array, c0: mj.Array, c1: mj.Array) -> mj.Array:
        return mnp.sum(map_coordinates(x, [c0, c1], 1, mode=mode, cval=0.3) * w)

    gx, gc0 = mj.grad(f, argnums=(0, 1))(x, *coords)
    eps = 1e-6
    # d/dx is the (linear) interpolation itself: exact along any direction.
    v = np.random.default_rng(2).normal(size=x.shape)
    fd_x = (f(x + eps * v, *coords) - f(x - eps * v, *coords)) / (2 * eps)
    np.testing.assert_allclose(np.sum(np.asarray(gx) * v), fd_x, rtol=1e-6)
    # d/dcoordinate is the local slope (coordinates sit away from the integer kinks).
    u = np.random.default_rng(3).normal(size=coords[0].shape)
    fd_c = (f(x, coords[0] + eps * u, coords[1]) - f(x, coords[0] - eps * u, coords[1])) / (2 * eps)
    np.testing.assert_allclose(np.sum(np.asarray(gc0) * u), fd_c, rtol=1e-5, atol=1e-8)


def test_jit_and_vmap_give_the_eager_values() -> None:
    x, coords = _data()
    eager = map_coordinates(x, coords, 1, mode="reflect")
    jitted = mj.jit(lambda x, c0, c1: map_coordinates(x, [c0, c1], 1, mode="reflect"))(x, *coords)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-12)
    rows = mj.vmap(lambda c0, c1: map_coordinates(x, [c0, c1], 1, mode="reflect"))(*coords)
    np.testing.assert_allclose(np.asarray(rows), np.asarray(eager), rtol=1e-12)


def test_bad_arguments_name_the_function() -> None:
    x, coords = _data()
    with pytest.raises(ValueError, match=r"map_coordinates: .*length input.ndim.*1 != 2"):
        map_coordinates(x, coords[:1], 1)
    with pytest.raises(NotImplementedError, match=r"map_coordinates: order 3"):
        map_coordinates(x, coords, 3)
    with pytest.raises(NotImplementedError, match=r"map_coordinates: mode 'grid-wrap'"):
        map_coordinates(x, coords, 1, mode="grid-wrap")
