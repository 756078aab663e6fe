"""while_loop, fori_loop and scan: values against Python reference loops, typing and errors."""

from collections import namedtuple

import numpy as np
import pytest

from mj_control import fori_loop, scan, scan_p, while_loop, while_p
from mj_core import lax
from mj_ir import eval_jaxpr, make_jaxpr
from mj_xla import jit as xla_jit


def _staged(f, *args):
    closed = make_jaxpr(f)(*args)
    return eval_jaxpr(closed.jaxpr, [*closed.consts, *args]), closed


def _python_scan(f, init, xs, reverse=False):
    carry, ys = init, [None] * len(xs)
    order = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
    for i in order:
        carry, ys[i] = f(carry, xs[i])
    return carry, np.stack(ys)


# --- while_loop -------------------------------------------------------------------------------


def test_while_loop_docs_example():
    assert while_loop(lambda x: x < 10, lambda x: x + 1, 0) == 10


def test_while_loop_matches_python_loop_and_staged():
    def f(x0, limit):
        return while_loop(lambda c: c[1] < limit, lambda c: (c[0] * 1.5 + 1.0, c[1] + 1), (x0, 0))

    def ref(x0, limit):
        x, n = x0, 0
        while n < limit:
            x, n = x * 1.5 + 1.0, n + 1
        return x, n

    for limit in (0, 1, 7):
        out = f(0.5, limit)
        exp = ref(0.5, limit)
        assert out[0] == pytest.approx(exp[0])
        assert out[1] == exp[1]
        staged, closed = _staged(f, 0.5, limit)
        assert staged[0] == pytest.approx(exp[0])
        assert staged[1] == exp[1]
    assert any(e.primitive is while_p for e in closed.jaxpr.eqns)


def test_newton_sqrt_fixed_point():
    def fixed_point(f, a, x_guess):
        def cond_fun(carry):
            x_prev, x = carry
            return abs(x_prev - x) > 1e-6

        def body_fun(carry):
            _, x = carry
            return x, f(a, x)

        _, x_star = while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
        return x_star

    def newton_sqrt(a):
        return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)

    assert newton_sqrt(2.0) == pytest.approx(np.sqrt(2.0), rel=1e-9)
    (staged,), _ = _staged(newton_sqrt, 2.0)
    assert staged == pytest.approx(np.sqrt(2.0), rel=1e-9)


def test_while_loop_weak_init_takes_body_dtype():
    x = np.float32(3.0)
    out = while_loop(lambda c: c < 10, lambda c: c + x, 0.0)
    assert out == 12.0
    assert np.asarray(out).dtype == np.float32
    closed = make_jaxpr(lambda x: while_loop(lambda c: c < 10, lambda c: c + x, 0.0))(x)
    assert closed.out_avals[0].dtype == np.float32


def test_while_prints_like_jax_docs():
    ones = np.ones(16)

    def func10(arg, n):
        return fori_loop(0, n, lambda i, carry: carry + ones * 3.0 + arg, arg + ones)

    text = str(make_jaxpr(func10)(np.ones(16), 5))
    assert "while[\n" in text
    for param in ("body_jaxpr={", "body_nconsts=", "cond_jaxpr={", "cond_nconsts=0"):
        assert param in text
    out = func10(np.ones(16), 5)
    np.testing.assert_allclose(out, np.full(16, 2.0 + 5 * 4.0))


def test_while_cond_must_return_bool_scalar():
    with pytest.raises(TypeError, match="boolean scalar") as info:
        while_loop(lambda c: c, lambda c: c + 1.0, 0.0)
    assert "test_control_loops.py" in str(info.value)
    with pytest.raises(TypeError, match="boolean scalar"):
        while_loop(lambda c: c < np.ones(2), lambda c: c + 1.0, 0.0)


def test_while_body_type_mismatch_shows_both():
    with pytest.raises(TypeError) as info:
        while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, np.ones(3)), (0, np.float32(1)))
    msg = str(info.value)
    assert "f32[]" in msg
    assert "f64[3]" in msg
    with pytest.raises(TypeError, match="structure"):
        while_loop(lambda c: c[0] < 3, lambda c: c[0], (0, 1))


# --- fori_loop --------------------------------------------------------------------------------


def test_fori_loop_docs_example():
    assert fori_loop(0, 10, lambda i, x: x + i, 0) == 45


@pytest.mark.parametrize(("lo", "hi"), [(0, 5), (3, 9), (4, 4), (6, 2)])
def test_fori_loop_matches_python(lo, hi):
    def body(i, x):
        return x * 0.9 + i

    expected = 1.0
    for i in range(lo, hi):
        expected = body(i, expected)
    assert fori_loop(lo, hi, body, 1.0) == pytest.approx(expected)
    (staged,), closed = _staged(lambda x: fori_loop(lo, hi, body, x), 1.0)
    assert staged == pytest.approx(expected)
    # static bounds: a scan (reverse-differentiable), never a while
    prims = {e.primitive for e in closed.jaxpr.eqns}
    assert scan_p in prims
    assert while_p not in prims


def test_fori_loop_traced_bounds_is_a_while():
    def f(n, x):
        return fori_loop(0, n, lambda i, c: c + i * 2.0, x)

    (staged,), closed = _staged(f, 4, 1.0)
    assert staged == 1.0 + 2.0 * (0 + 1 + 2 + 3)
    assert any(e.primitive is while_p for e in closed.jaxpr.eqns)


def test_fori_loop_bounds_must_have_equal_types():
    """As JAX: an int and a float bound are a TypeError (a weak and a strong int are not)."""
    with pytest.raises(TypeError, match="must have equal types, got int64 and float64"):
        fori_loop(0, 2.5, lambda i, x: x, 1.0)
    with pytest.raises(TypeError, match="integer or float scalar, got c128"):
        fori_loop(0j, 2j, lambda i, x: x, 1.0)
    assert fori_loop(0, np.int32(3), lambda i, x: x + i, 0.0) == 3.0


def test_fori_loop_float_bounds_count_like_jax():
    """JAX accepts float bounds: concrete ones are truncated to an int trip count (the index
    is an int), traced ones loop on a float index (a while loop)."""

    def f(lo, hi):
        return fori_loop(lo, hi, lambda i, c: c + i, 0.0)

    assert f(0.5, 3.7) == 0 + 1 + 2  # range(int(0.5), int(3.7))
    (traced,), _ = _staged(f, 0.5, 3.7)  # i = 0.5, 1.5, 2.5, 3.5 while i < 3.7
    assert traced == 0.5 + 1.5 + 2.5 + 3.5
    assert xla_jit(f)(0.5, 3.7) == traced


# --- scan -------------------------------------------------------------------------------------


def _cumulative(c, x):
    c = c * 0.5 + x
    return c, c * 2.0 - x


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_matches_python_loop(reverse):
    xs = np.linspace(-1.0, 2.0, 7)
    carry, ys = scan(_cumulative, 0.25, xs, reverse=reverse)
    exp_carry, exp_ys = _python_scan(_cumulative, 0.25, xs, reverse=reverse)
    assert carry == pytest.approx(exp_carry)
    np.testing.assert_allclose(ys, exp_ys)
    (s_carry, s_ys), _ = _staged(lambda i, x: scan(_cumulative, i, x, reverse=reverse), 0.25, xs)
    assert s_carry == pytest.approx(exp_carry)
    np.testing.assert_allclose(s_ys, exp_ys)


Carry = namedtuple("Carry", ["h", "count"])


def test_scan_pytree_carry_and_xs():
    rng = np.random.default_rng(0)
    w = rng.normal(size=3)
    xs = {"u": rng.normal(size=(5, 3)), "v": rng.normal(size=(5,))}

    def step(carry, x):
        h = lax.tanh(carry.h * w + x["u"] * x["v"])
        return Carry(h, carry.count + 1), [h, carry.count]

    carry, (hs, counts) = scan(step, Carry(np.zeros(3), 0), xs)
    h, expected_h = np.zeros(3), []
    for t in range(5):
        h = np.tanh(h * w + xs["u"][t] * xs["v"][t])
        expected_h.append(h)
    assert isinstance(carry, Carry)
    assert carry.count == 5
    np.testing.assert_allclose(carry.h, h)
    np.testing.assert_allclose(hs, np.stack(expected_h))
    np.testing.assert_array_equal(counts, np.arange(5))


def test_scan_xs_none_with_length():
    carry, ys = scan(lambda c, _: (c + 1, c * c), 0, None, length=4)
    assert carry == 4
    np.testing.assert_array_equal(ys, [0, 1, 4, 9])


def test_scan_zero_length():
    carry, ys = scan(lambda c, x: (c + x, c), 1.0, np.zeros((0,)))
    assert carry == 1.0
    assert ys.shape == (0,)


def test_scan_closes_over_outer_value():
    xs = np.arange(4.0)

    def f(a):
        return scan(lambda c, x: (c + x * a, c), 0.0, xs)

    (carry, _ys), closed = _staged(f, 3.0)
    assert carry == 3.0 * xs.sum()
    eqn = next(e for e in closed.jaxpr.eqns if e.primitive is scan_p)
    assert eqn.params["num_consts"] == 1  # the closed-over argument


def test_scan_prints_like_jax_docs():
    def func11(arr, extra):
        ones = np.ones(arr.shape)

        def body(carry, aelems):
            ae1, ae2 = aelems
            return (carry + ae1 * ae2 + extra, carry)

        return scan(body, 0.0, (arr, ones))

    closed = make_jaxpr(func11)(np.ones(16), 5.0)
    text = str(closed)
    for param in (
        "scan[\n",
        "jaxpr={",
        "length=16",
        "num_carry=1",
        "num_consts=1",
        "reverse=False",
    ):
        assert param in text
    carry, ys = func11(np.ones(16), 5.0)
    assert carry == 16 * 6.0
    np.testing.assert_allclose(ys, 6.0 * np.arange(16))


def test_scan_errors():
    with pytest.raises(ValueError, match="different leading axis sizes"):
        scan(lambda c, x: (c, x), 0.0, (np.ones(3), np.ones(4)))
    with pytest.raises(ValueError, match="no values to scan over"):
        scan(lambda c, x: (c, x), 0.0, None)
    with pytest.raises(ValueError, match="leading axis"):
        scan(lambda c, x: (c, x), 0.0, 1.0)
    with pytest.raises(ValueError, match="disagrees with leading axis sizes"):
        scan(lambda c, x: (c, x), 0.0, np.ones(3), length=4)
    with pytest.raises(TypeError, match="pair"):
        scan(lambda c, x: c, 0.0, np.ones(3))
    with pytest.raises(TypeError) as info:
        scan(lambda c, x: ((c, c), x), np.float32(0.0), np.ones(3))
    assert "(f32[], f32[])" in str(info.value)
    assert "f32[]" in str(info.value)


def test_a_loop_body_is_traced_once_per_argument_types_until_clear_caches():
    """The trace of a while_loop's body is reused by the next call with the same argument
    types (JAX's caching); another type traces again, and clear_caches drops the traces."""
    from mj_xla import clear_caches

    runs: list[object] = []

    def body(x):
        runs.append(x)
        return x + 1

    def loop(x):
        return while_loop(lambda c: c < 3, body, x)

    results = [int(loop(0)), len(runs)]
    results += [int(loop(1)), len(runs)]  # the same types: the trace is reused
    results += [float(loop(np.float32(0.5))), len(runs)]  # float32: traced again
    clear_caches()
    results += [int(loop(0)), len(runs)]
    assert results == [3, 1, 3, 1, 3.5, 2, 3, 3]
