"""``mnp.interp`` against ``np.interp`` (which it matches wherever NumPy and JAX agree), under
``jit``, ``grad`` and ``vmap``, and its refusals."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp

XP = np.array([0.0, 1.0, 1.0, 2.0, 4.0])
FP = np.array([0.0, 10.0, 20.0, 0.0, 8.0])
X = np.array([-1.0, 0.0, 0.5, 1.0, 1.5, 3.0, 4.0, 5.0])


@pytest.mark.parametrize(
    "kwargs", [{}, {"left": -5.0, "right": 99.0}, {"period": 3.0}], ids=["ends", "values", "period"]
)
def test_matches_numpy(kwargs):
    xp, fp = np.array([0.0, 0.5, 2.0, 2.5]), np.array([1.0, -1.0, 3.0, 0.0])
    x = np.linspace(-1.0, 4.0, 23)
    want = np.interp(x, xp, fp, **kwargs)
    np.testing.assert_allclose(np.asarray(mnp.interp(x, xp, fp, **kwargs)), want, rtol=1e-6)
    jitted = mj.jit(lambda t: mnp.interp(t, xp, fp, **kwargs))(x)
    np.testing.assert_allclose(np.asarray(jitted), want, rtol=1e-6)


def test_repeated_points_and_extrapolation():
    got = mnp.interp(X, XP, FP)
    np.testing.assert_allclose(np.asarray(got), [0, 0, 5, 20, 10, 4, 8, 8])
    ext = mnp.interp(X, XP, FP, left="extrapolate", right="extrapolate")
    np.testing.assert_allclose(np.asarray(ext), [-10, 0, 5, 20, 10, 4, 8, 12])


def test_derivatives_are_the_segment_slopes():
    # d/dx is the slope of the segment holding x; d/dfp the two hat-function weights
    assert float(mj.grad(lambda t: mnp.interp(t, XP, FP))(0.5)) == pytest.approx(10.0)
    assert float(mj.grad(lambda t: mnp.interp(t, XP, FP))(3.0)) == pytest.approx(4.0)
    weights = mj.grad(lambda f: mnp.interp(1.5, XP, f))(FP)
    np.testing.assert_allclose(np.asarray(weights), [0, 0, 0.5, 0.5, 0])
    batched = mj.vmap(lambda t: mnp.interp(t, XP, FP))(X)
    np.testing.assert_allclose(np.asarray(batched), np.asarray(mnp.interp(X, XP, FP)))


def test_complex_values_and_dtypes():
    got = mnp.interp(0.5, XP, FP + 1j * FP)
    assert complex(got) == pytest.approx(5 + 5j)
    assert np.asarray(mnp.interp(np.float32(0.5), XP.astype(np.float32), FP)).dtype.kind == "f"


def test_refusals():
    with pytest.raises(ValueError, match="one-dimensional arrays of equal size"):
        mnp.interp(X, XP, FP[:3])
    with pytest.raises(ValueError, match="'extrapolate'"):
        mnp.interp(X, XP, FP, left="linear")
    with pytest.raises(ValueError, match="complex x"):
        mnp.interp(X + 1j, XP, FP)
    with pytest.raises(ValueError, match="period must be a scalar"):
        mnp.interp(X, XP, FP, period=np.ones(2))
