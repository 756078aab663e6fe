"""``mj.test_util.check_grads`` against ``jax.test_util.check_grads``: test suites written for
JAX call it with JAX's expectations, so on the same function and arguments both must pass or
both must fail (complex outputs, Python scalars, tolerances). And a traced Python scalar next to
an array of another dtype stages JAX's ``convert_element_type`` first, so derivatives of
derivatives trace (both x64 modes)."""

import jax
import jax.numpy as jnp
import jax.test_util
import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj.test_util

X = np.linspace(0.1, 1.0, 3)
Z = np.array([0.3 + 0.2j, -1.0 + 0.7j])

CASES = {
    "exp(1j x)": (lambda np_, x: np_.exp(1j * x), (X,)),
    "fft": (lambda np_, x: np_.fft.fft(x), (X,)),
    "rfft": (lambda np_, x: np_.fft.rfft(x), (np.linspace(-1, 1, 6),)),
    "abs complex": (lambda np_, z: np_.abs(z), (Z,)),
    "angle": (lambda np_, z: np_.angle(z), (Z,)),
    "z conj z": (lambda np_, z: z * np_.conj(z), (Z,)),
    "python scalar": (lambda np_, x: np_.sin(x) * 2.0, (0.7,)),
    "two args": (lambda np_, x, y: np_.hypot(x, y), (X, X[::-1] + 0.5)),
    "weak + complex": (lambda np_, x, y: np_.add(x, y), (0.4, Z)),
    "complex * weak": (lambda np_, x, y: np_.multiply(x, y), (Z, 0.4)),
    "float32": (lambda np_, x: np_.tanh(x), (X.astype(np.float32),)),
}


def _verdict(check, f, args, **kw):
    try:
        check(f, args, **kw)
    except AssertionError:
        return "fails"
    return "passes"


@pytest.mark.parametrize("modes", [("fwd", "rev"), ("lin",)], ids=["fwd+rev", "lin"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_check_grads_verdict_matches_jax(x64, name, modes):
    case, args = CASES[name]
    want = _verdict(jax.test_util.check_grads, lambda *a: case(jnp, *a), args, order=2, modes=modes)
    got = _verdict(mj.test_util.check_grads, lambda *a: case(mnp, *a), args, order=2, modes=modes)
    assert got == want


def _wrong_vjp(lib, np_):
    @lib.custom_vjp
    def f(x):
        return np_.exp(1j * x)

    def bwd(x, g):  # the conjugate of the right cotangent: wrong for complex outputs
        return (np_.real(g * np_.conj(1j * np_.exp(1j * x))),)

    f.defvjp(lambda x: (f(x), x), bwd)
    return f


def test_both_catch_a_wrong_vjp_of_a_complex_output(x64):
    want = _verdict(jax.test_util.check_grads, _wrong_vjp(jax, jnp), (X,), order=1, modes=["rev"])
    got = _verdict(mj.test_util.check_grads, _wrong_vjp(mj, mnp), (X,), order=1, modes=["rev"])
    assert got == want == "fails"


def _prims(jaxpr):
    return [(e.primitive.name, str(np.dtype(e.outvars[0].aval.dtype))) for e in jaxpr.eqns]


# arctan2 and maximum take real operands only (in JAX too): no complex cases for them
WEAK_CASES = [
    (op, dtype)
    for op in ("add", "multiply", "arctan2", "maximum")
    for dtype in ("float16", "float32", "complex64", "complex128")
    if op in ("add", "multiply") or not dtype.startswith("complex")
]


@pytest.mark.parametrize(("op", "dtype"), WEAK_CASES)
def test_a_weak_traced_scalar_is_converted_as_in_jax(x64, op, dtype):
    b = np.ones(3, dtype)

    def f(np_):
        return lambda x, y: getattr(np_, op)(x, y)

    want_eqns = _prims(jax.make_jaxpr(f(jnp))(0.4, b).jaxpr)
    assert _prims(mj.make_jaxpr(f(mnp))(0.4, b).jaxpr) == want_eqns
    g = lambda np_: lambda x: np_.real(f(np_)(x, b)).sum()  # noqa: E731
    want = jax.grad(jax.grad(g(jnp)))(0.4)
    got = mj.grad(mj.grad(g(mnp)))(0.4)
    assert np.dtype(got.dtype) == np.dtype(want.dtype)
    rtol = 1e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=1e-6)
