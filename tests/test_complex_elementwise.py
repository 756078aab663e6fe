"""Complex elementwise functions against NumPy on a grid of all four quadrants, the axes and
the branch cuts, eager and under jit (issue 23: ``arcsinh``/``arccosh`` gave wrong values).

Signed zeros: on a branch cut, an imaginary part of ``-0.0`` selects the lower side in NumPy
(C99), while XLA ignores the sign of zero there, as does JAX. mj's eager functions follow NumPy
and jit follows XLA, so ``-0.0`` points are checked eagerly only.
"""

import numpy as np
import pytest

import mj
import mj.numpy as mnp

_PARTS = (-30.0, -3.0, -1.0, -0.7, -1e-9, 0.0, 1e-9, 0.4, 1.0, 3.0, 30.0)
GRID = np.array([complex(a, b) for a in _PARTS for b in _PARTS])
SIGNED_ZEROS = np.array(
    [complex(a, b) for a in (-0.0, 0.0) for b in _PARTS]
    + [complex(a, b) for a in _PARTS for b in (-0.0, 0.0)]
)

UNARY = [
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
    "arccosh", "arctanh", "sqrt", "log", "log1p", "log2", "log10", "exp", "exp2", "expm1",
    "reciprocal", "square", "abs", "angle", "conj", "real", "imag",
]  # fmt: skip


def assert_close(got, want, rtol):
    """Both parts within ``rtol * |want|`` (an absolute error on the modulus' scale: a part that
    is tiny by cancellation is not held to its own relative precision here)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    scale = np.maximum(np.abs(want), np.finfo(want.dtype).tiny)
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        with np.errstate(invalid="ignore"):
            bad = ~((np.abs(g - w) <= rtol * scale) | (g == w) | (np.isnan(g) & np.isnan(w)))
        assert not bad.any(), list(zip(want[bad], got[bad], strict=True))


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("jit", [False, True])
def test_unary_matches_numpy_on_the_grid(name, dtype, jit):
    x = GRID.astype(dtype)
    if name == "reciprocal":  # 1/0j: NumPy says nan+nanj, XLA and JAX inf+nanj
        x = x[x != 0]
    f = getattr(mnp, name)
    got = (mj.jit(f) if jit else f)(x)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x) if name != "log1p" else log1p(x)
    assert_close(got, want, 1e-13 if dtype == np.complex128 else 3e-6)


def log1p(z):
    """NumPy's complex log1p is ``log(1 + z)``, which loses the digits of a small ``z``; this is
    the closed form, ``log|1 + z|`` through a real ``log1p``."""
    x, y = z.real, z.imag
    return (0.5 * np.log1p(2 * x + x * x + y * y) + 1j * np.arctan2(y, 1 + x)).astype(z.dtype)


# Not sqrt: XLA's (and so JAX's) complex sqrt reads an imaginary -0.0 as +0.0 (issue 24,
# tests/test_edge_values.py).
@pytest.mark.parametrize("name", ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
                                  "log", "log2", "log10"])  # fmt: skip
def test_eager_signed_zeros_pick_numpys_side_of_the_cut(name):
    got = getattr(mnp, name)(SIGNED_ZEROS)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(SIGNED_ZEROS)
    assert_close(got, want, 1e-13)


@pytest.mark.parametrize(
    ("name", "z", "want"),
    [
        ("arcsinh", 0.4 + 0.1j, np.arcsinh(0.4 + 0.1j)),  # the issue's examples
        ("arccosh", -0.3 - 0.7j, np.arccosh(-0.3 - 0.7j)),
        ("arctanh", 3.0 + 0.0j, np.arctanh(3.0 + 0.0j)),
        ("arctanh", 1.0 + 0.0j, complex(np.inf, 0.0)),
        ("log2", 0j, complex(-np.inf, 0.0)),
    ],
)
def test_issue_examples(name, z, want):
    for f in (getattr(mnp, name), mj.jit(getattr(mnp, name))):
        got = complex(f(np.complex128(z)))
        assert got == pytest.approx(want, rel=1e-14)


def test_sin_cos_keep_the_digits_of_a_small_imaginary_part_under_jit():
    x = np.array([-3.0, -1.0, 0.4, 2.0]) + 1e-9j
    for name in ("sin", "cos"):
        got = mj.jit(getattr(mnp, name))(x)
        np.testing.assert_allclose(np.imag(got), np.imag(getattr(np, name)(x)), rtol=1e-13)
    huge = np.array([1e5j, -1e5j])
    np.testing.assert_array_equal(mj.jit(mnp.sin)(huge), np.sin(huge))  # 0 +- inf j, no NaN
    np.testing.assert_array_equal(mj.jit(mnp.cos)(huge), np.cos(huge))


@pytest.mark.parametrize("name", ["log2", "log10", "exp2", "arcsinh", "arccosh", "arctanh"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_single_precision_stays_single(name, dtype):
    x = np.array([1.5, 2.0], dtype)
    assert getattr(mnp, name)(x).dtype == dtype
    assert mj.jit(getattr(mnp, name))(x).dtype == dtype


REAL_POINTS = {
    "arcsinh": [-1e300, -3.0, -1e-10, -0.0, 0.0, 1e-10, 0.5, 2.0, 1e8, 1e300, np.inf, -np.inf],
    "arccosh": [1.0, 1.0 + 1e-12, 1.5, 2.0, 30.0, 1e8, 1e300, np.inf, 0.5, -2.0],
    "arctanh": [-1.0, -0.5, -1e-10, -0.0, 0.0, 1e-10, 0.5, 1.0 - 1e-12, 1.0, 2.0],
}


@pytest.mark.parametrize("name", sorted(REAL_POINTS))
@pytest.mark.parametrize("jit", [False, True])
def test_real_inverse_hyperbolics_are_accurate_at_the_extremes(name, jit):
    x = np.array(REAL_POINTS[name])
    f = getattr(mnp, name)
    got = np.asarray((mj.jit(f) if jit else f)(x))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x)
    np.testing.assert_allclose(got, want, rtol=2e-15)
    zero = want == 0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))  # -0.0 stays


@pytest.mark.parametrize(
    ("name", "derivative", "points"),
    [
        ("arcsinh", lambda x: 1 / np.sqrt(x * x + 1), [-3.0, -0.0, 0.0, 1e-8, 0.5, 1e10]),
        ("arccosh", lambda x: 1 / np.sqrt(x * x - 1), [1.5, 2.0, 30.0, 1e10]),
        ("arctanh", lambda x: 1 / (1 - x * x), [-0.5, 0.0, 0.9]),
    ],
)
def test_real_inverse_hyperbolic_gradients(name, derivative, points):
    grad = mj.grad(getattr(mnp, name))
    for x in points:
        assert float(grad(x)) == pytest.approx(derivative(x), rel=1e-12)
        assert float(mj.jit(grad)(x)) == pytest.approx(derivative(x), rel=1e-12)


def test_complex_inverse_hyperbolic_derivatives_match_finite_differences():
    z = np.array([0.3 + 0.4j, -2.0 + 1.0j, -0.5 - 3.0j, 2.0 - 0.1j])
    t = np.ones_like(z) * (1 + 0.5j)
    h = 1e-6
    for name in ("arcsinh", "arccosh", "arctanh"):
        f = getattr(mnp, name)
        _, tangent = mj.jvp(f, (z,), (t,))
        fd = (getattr(np, name)(z + h * t) - getattr(np, name)(z - h * t)) / (2 * h)
        np.testing.assert_allclose(tangent, fd, rtol=1e-8)


@pytest.mark.parametrize("jit", [False, True])
def test_complex_power_matches_numpy(jit):
    parts = (-2.0, -0.5, 0.0, 0.5, 2.0)
    z = np.array([complex(a, b) for a in parts for b in parts])
    x, y = np.meshgrid(z, z)
    x, y = x.ravel(), y.ravel()
    keep = x != 0  # 0 ** z: NumPy says 0, XLA (and JAX) NaN
    x, y = x[keep], y[keep]
    f = mj.jit(mnp.power) if jit else mnp.power
    assert_close(f(x, y), np.power(x, y), 1e-13)
    for k in (-2, -1, 2, 3):
        g = mj.jit(lambda v, k=k: mnp.power(v, k)) if jit else (lambda v, k=k: mnp.power(v, k))
        assert_close(g(x), np.power(x, k), 1e-13)
