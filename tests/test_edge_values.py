"""Issue 24's edge-value table: eager and jit give XLA's (JAX's) answer where NumPy's differs,
and eager operations emit no NumPy warnings. The expected values are XLA's semantics, stated
in closed form (the oracle sweep, tests/oracle/test_edge_value_sweep.py, checks them against
JAX itself)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import mj
import mj.lax as lax
import mj.numpy as mnp
import mj_core.lax


def _both(fn: Callable[..., Any], *args: Any) -> list[np.ndarray]:
    """``fn(*args)`` eager and under ``jit`` (arguments passed, not closed over: XLA folds
    constants with its own rules)."""
    return [np.asarray(fn(*args)), np.asarray(mj.jit(fn)(*args))]


DIVIDEND = np.array([-5, 5], np.int32)
Z = np.zeros(2, np.int32)


@pytest.mark.parametrize(
    ("fn", "want"),
    [
        (mnp.floor_divide, [-2, -2]),  # trunc div by 0 is -1, and the signs differ: -1 - 1
        (mnp.remainder, [0, 0]),
        (mnp.fmod, [0, 0]),
        (lax.div, [-1, -1]),  # XLA: x / 0 is all ones
        (lax.rem, [-5, 5]),  # XLA: x % 0 is x
    ],
    ids=["floor_divide", "remainder", "fmod", "lax.div", "lax.rem"],
)
def test_integer_division_by_zero(fn: Callable[..., Any], want: list[int]) -> None:
    for got in _both(fn, DIVIDEND, Z):
        np.testing.assert_array_equal(got, np.array(want, np.int32))
        assert got.dtype == np.int32


def test_unsigned_division_by_zero_is_all_ones() -> None:
    x = np.array([3, 200], np.uint8)
    for got in _both(lax.div, x, np.zeros(2, np.uint8)):
        np.testing.assert_array_equal(got, [255, 255])


def test_float16_statistics_accumulate_in_float32() -> None:
    x = np.array([1, 2, 3, 0.5, 1.5] + [1000.0] * 64, np.float16)
    wide = x.astype(np.float32)
    for fn, want in [(mnp.var, np.var(wide)), (mnp.mean, np.mean(wide)), (mnp.sum, wide.sum())]:
        for got in _both(fn, x):
            assert got.dtype == np.float16
            assert got == np.float16(want), (fn, got, want)


@pytest.mark.parametrize("fn", [mnp.sign, mnp.cbrt], ids=["sign", "cbrt"])
def test_negative_zero_keeps_its_sign(fn: Callable[..., Any]) -> None:
    for got in _both(fn, np.array([-0.0, 0.0])):
        np.testing.assert_array_equal(np.signbit(got), [True, False])
        np.testing.assert_array_equal(got, [0.0, 0.0])


def test_complex_sqrt_reads_negative_zero_imaginary_as_positive() -> None:
    z = np.array([complex(-1, -0.0), complex(-4, 0.0), complex(np.nan, np.inf)])
    for got in _both(mnp.sqrt, z):
        np.testing.assert_array_equal(got[:2], [1j, 2j])
        assert np.isnan(got[2].real)
        assert np.isnan(got[2].imag)


def test_complex_abs_and_sign_propagate_nan() -> None:
    z = np.array([complex(np.inf, np.nan), complex(3, 4), complex(np.inf, 0)])
    for got in _both(mnp.abs, z):
        assert np.isnan(got[0])
        assert got[1] == 5.0
        assert got[2] == np.inf
    for got in _both(mnp.sign, z):  # z / |z| part by part: inf / inf is NaN
        assert got[1] == 0.6 + 0.8j
        assert np.isnan(got[2].real)
        assert got[2].imag == 0


def test_bool_add_and_multiply_are_or_and_and() -> None:
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    for got in _both(mnp.add, a, b):
        np.testing.assert_array_equal(got, a | b)
        assert got.dtype == np.bool_
    for got in _both(mnp.multiply, a, b):
        np.testing.assert_array_equal(got, a & b)


def test_integer_to_negative_power() -> None:
    x = np.array([1, 2, -1, 3], np.int32)
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
        mnp.power(x, -1)
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
        mnp.power(x, np.int32(-1))  # a concrete exponent is an integer_pow, as in JAX
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
        mj.jit(lambda v: lax.integer_pow(v, -2))(x)
    # A traced exponent: JAX's square-and-multiply over the exponent's low 6 bits (-1 is
    # 63 there): x ** 63 wraps to 0 for even x, and 3 ** 63 mod 2**32 for 3.
    want = np.array([1, 0, 2**32 - 1, pow(3, 63, 2**32)], np.uint32).view(np.int32)
    np.testing.assert_array_equal(mj.jit(mnp.power)(x, np.int32(-1)), want)
    # pow's typing rule refuses an integer base, as jax.lax.pow's does: the lower layer's
    # pow too, eagerly and under jit, and mj.lax.pow.
    for f in (mj_core.lax.pow, mj.jit(mj_core.lax.pow), lax.pow):
        with pytest.raises(TypeError, match="pow does not accept dtype int32 at position 0"):
            f(x, np.full(4, -1, np.int32))


@pytest.mark.parametrize("fn", [mnp.median, lambda a: mnp.percentile(a, 30.0)])
def test_quantiles_of_a_slice_with_nan_are_nan(fn: Callable[..., Any]) -> None:
    a = np.array([[0.0, 1.0, np.nan], [0.0, 1.0, 2.0]])
    for got in _both(lambda v: fn(v[0]), a):
        assert np.isnan(got)
    for got in _both(lambda v: fn(v[1]), a):
        assert got == np.quantile(a[1], 0.5 if fn is mnp.median else 0.3)


@pytest.mark.parametrize("q", [0.3, 0.5, 1.0])
def test_quantile_between_negative_zeros_is_negative_zero(q: float) -> None:
    """JAX interpolates ``lo * (1 - t) + hi * t``: between two -0.0 that is -0.0 (the form
    ``lo + (hi - lo) * t`` gives +0.0)."""
    a = np.array([-0.0, -0.0, -0.0], np.float32)
    for got in _both(lambda v: mnp.quantile(v, q), a):
        assert got == 0
        assert np.signbit(got)
        assert got.dtype == np.float32


@pytest.mark.x32
def test_quantile_of_integers_is_jax_float_without_a_warning() -> None:
    a = np.array([1, 2, 3, 4], np.int16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # percentile once asked for float64 and warned
        for fn, want in [(mnp.median, 2.5), (lambda v: mnp.percentile(v, 75.0), 3.25)]:
            for got in _both(fn, a):
                assert got.dtype == np.float32
                assert got == want
        for got in _both(mnp.var, a):
            assert got.dtype == np.float32
            assert got == 1.25


B = np.array([False, True, True, False])
C = np.array([True, True, False, False])


@pytest.mark.parametrize(
    ("fn", "want"),
    [  # JAX computes bools as int32 (even with x64); XLA's x % 0 and x / 0 for fmod/floor
        (mnp.floor_divide, [0, 1, -2, -1]),
        (mnp.remainder, [0, 0, 0, 0]),
        (mnp.fmod, [0, 0, 1, 0]),
        (mnp.left_shift, [0, 2, 1, 0]),
        (mnp.right_shift, [0, 0, 1, 0]),
    ],
)
def test_bool_operands_compute_as_int32(fn: Callable[..., Any], want: list[int]) -> None:
    for got in _both(fn, B, C):
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want)


def test_square_of_bool_is_int32_and_float_power_keeps_float32() -> None:
    for got in _both(mnp.square, B):
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, B.astype(np.int32))
    x = np.array([2.0, 0.5], np.float32)
    for got in _both(mnp.float_power, x, x):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, [4.0, np.sqrt(0.5)], rtol=1e-6)


def test_heaviside_of_nan_is_nan() -> None:
    x = np.array([np.nan, 0.0, -0.0, -1.0, 2.0])
    for got in _both(mnp.heaviside, x, np.full(5, 0.5)):
        np.testing.assert_array_equal(got, [np.nan, 0.5, 0.5, 0.0, 1.0])


def test_complex_logistic_is_one_over_one_plus_exp() -> None:
    z = np.array([0.5 + 1j, -2.0 - 0.5j, 0.0 + 0j], np.complex128)
    for got in _both(lax.logistic, z):
        np.testing.assert_allclose(got, 1 / (1 + np.exp(-z)), rtol=1e-14)


def _traced(fn: Callable[..., Any], *args: Any) -> list[np.ndarray]:
    """``fn(*args)`` eager, under ``jit`` and through ``eval_jaxpr(make_jaxpr)``."""
    closed = mj.make_jaxpr(fn)(*args)
    return [*_both(fn, *args), *(np.asarray(o) for o in mj.eval_jaxpr(closed, args))]


def test_floor_ceil_of_bool_are_the_bools_and_isfinite_takes_any_dtype() -> None:
    for fn in (mnp.floor, mnp.ceil):
        for got in _traced(fn, B):
            assert got.dtype == np.bool_
            np.testing.assert_array_equal(got, B)
    z = np.array([1 + 1j, complex(np.inf, 0), complex(0, np.nan)], np.complex64)
    for args, want in [((B,), [True] * 4), ((z,), [True, False, False])]:
        for got in _traced(mnp.isfinite, *args):
            np.testing.assert_array_equal(got, want)


def test_complex_round_rint_fmax_fmin_go_part_by_part() -> None:
    z = np.array([2.5 - 1.5j, -0.5 + 3.5j], np.complex128)
    for fn in (mnp.round, mnp.rint):
        for got in _traced(fn, z):
            np.testing.assert_array_equal(got, [2 - 2j, -0.0 + 4j])
    w = np.array([2.5 + 0j, complex(np.nan, 0)], np.complex128)
    for got in _traced(mnp.fmax, z, w):  # NumPy's order: real parts, then imaginary parts
        np.testing.assert_array_equal(got, [2.5 + 0j, -0.5 + 3.5j])
    for got in _traced(mnp.fmin, z, w):
        np.testing.assert_array_equal(got, [2.5 - 1.5j, -0.5 + 3.5j])


def test_complex_max_min_pick_as_jax_lowers_them() -> None:
    """x where its real part (or, on a tie, its imaginary part) wins, else y: a NaN loses
    every comparison, so only y's NaN survives (NumPy's maximum propagates both)."""
    nan = complex(np.nan, 0)
    x = np.array([1 + 2j, 1 + 0j, nan, 1 + 0j], np.complex128)
    y = np.array([1 + 1j, 2 - 5j, 1 + 0j, nan], np.complex128)
    for got in _traced(lax.max, x, y):
        np.testing.assert_array_equal(got, [1 + 2j, 2 - 5j, 1 + 0j, nan])
    for got in _traced(lax.min, x, y):
        np.testing.assert_array_equal(got, [1 + 1j, 1 + 0j, 1 + 0j, nan])


def test_complex_reductions_and_running_extrema() -> None:
    z = np.array([[0 + 1j, 0 + 0j, 2 - 1j, -3 + 9j]], np.complex64)
    for got in _traced(lambda v: lax.reduce_max(v, (1,)), z):
        np.testing.assert_array_equal(got, [2 - 1j])
    for got in _traced(lambda v: mnp.min(v, axis=1), z):
        np.testing.assert_array_equal(got, [-3 + 9j])
    for got in _traced(lambda v: lax.cummax(v, axis=1), z):
        np.testing.assert_array_equal(got, [[1j, 1j, 2 - 1j, 2 - 1j]])
    for got in _traced(lambda v: lax.cummin(v, axis=1), z):
        np.testing.assert_array_equal(got, [[1j, 0j, 0j, -3 + 9j]])


def test_complex_division_follows_xla_at_zeros_and_infinities() -> None:
    """XLA's complex division: a zero divisor multiplies each part by ``copysign(inf, re)``,
    an infinite numerator keeps its infinity (NumPy: ``nan+nanj`` for all three)."""
    x = np.array([1 + 0j, 1 + 0j, complex(np.inf, 1)], np.complex128)
    y = np.array([0j, complex(-0.0, 0), 2 + 0j], np.complex128)
    for got in _traced(lax.div, x, y):
        np.testing.assert_array_equal(got.real, [np.inf, -np.inf, np.inf])
        assert np.isnan(got.imag).all()
    for got in _traced(lambda v: lax.integer_pow(v, -2), y[:1]):
        assert got[0].real == np.inf
        assert np.isnan(got[0].imag)


def test_complex_rsqrt_and_pow_in_polar_form() -> None:
    z = np.array([0j, -1 + 0j], np.complex128)
    for got in _traced(lax.rsqrt, z):
        assert got[0].real == np.inf
        assert np.isnan(got[0].imag)
        assert 0 < got[1].real < 1e-15  # cos(pi / 2), not NumPy's exact 0
        assert got[1].imag == -1
    base = np.zeros(3, np.complex128)
    power = np.array([1 + 1j, 2 + 0j, 0j], np.complex128)
    for got in _traced(lax.pow, base, power):  # 0 ** (1+1j) is exp(-inf * (1+1j)): NaN
        assert np.isnan(got[0].real)
        np.testing.assert_array_equal(got[1:], [0j, 1 + 0j])


def test_complex_truth_is_the_real_part_and_complex_mean_multiplies() -> None:
    """JAX's all/any read a complex number's real part only; its mean multiplies by the
    reciprocal count (XLA folds the division by a constant), so ``inf+infj`` averages to a
    NaN real part, where nanmean's division by a counted total keeps the infinity."""
    z = np.array([2j, 1 + 0j], np.complex64)
    for got in _traced(mnp.all, z):
        assert not got
    for got in _traced(lambda v: mnp.any(v[:1]), z):
        assert not got
    w = np.array([complex(np.inf, np.inf), 1 + 0j], np.complex128)
    for got in _traced(mnp.mean, w):
        assert np.isnan(got.real)
    for got in _traced(mnp.nanmean, w):
        assert got.real == np.inf


def test_lgamma_is_infinite_at_every_pole() -> None:
    x = np.array([-3.0, -1e308, -np.inf, 0.0])
    for got in _traced(lax.lgamma, x):  # -1e308 once gave inf - inf in eager
        np.testing.assert_array_equal(got, [np.inf] * 4)


@pytest.mark.usefixtures("on_cpu")  # XLA:CPU's window (a GPU's, as JAX's there: -0.0)
def test_running_sums_and_products_start_from_xlas_identity() -> None:
    """XLA's cumulative window starts from 0 (sum) or 1+0j (product): a running sum of -0.0
    is +0.0, and ``(1+0j) * (1-0j)`` has a +0.0 imaginary part (NumPy keeps the -0.0s)."""
    for got in _traced(mnp.cumsum, np.array([-0.0, -0.0], np.float32)):
        np.testing.assert_array_equal(np.signbit(got), [False, False])
    for got in _traced(mnp.cumprod, np.array([complex(1, -0.0)], np.complex64)):
        assert not np.signbit(got.imag[0])


def test_float16_nextafter_of_equal_zeros_is_the_target() -> None:
    """C's (and XLA's) ``nextafter(x, y)`` is ``y`` when ``x == y``: ``(0.0, -0.0)`` gives
    -0.0 (NumPy's float16 kernel gives x)."""
    x = np.array([0.0, -0.0], np.float16)
    for got in _traced(mnp.nextafter, x, x[::-1]):
        np.testing.assert_array_equal(np.signbit(got), [True, False])


def test_hypot_is_inf_against_nan_and_does_not_overflow() -> None:
    x = np.array([np.inf, np.nan, 3e200, 0.0])
    y = np.array([np.nan, -np.inf, 4e200, 0.0])
    for got in _both(mnp.hypot, x, y):
        np.testing.assert_allclose(got, [np.inf, np.inf, 5e200, 0.0], rtol=1e-15)


def test_round_half_away_from_zero_is_exact_in_float32() -> None:
    """``floor(|x| + 0.5)`` rounds at the addition: the largest float32 below 0.5 plus 0.5 is
    1.0, and above 2**23 the ``+ 0.5`` lands on a tie."""
    below_half = np.nextafter(np.float32(0.5), np.float32(0))
    x = np.array([below_half, -below_half, 2.5, -0.5, 2**23 + 1, -0.0, np.inf], np.float32)
    want = np.array([0.0, -0.0, 3.0, -1.0, 2**23 + 1, -0.0, np.inf], np.float32)
    for got in _both(lax.round, x):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_shift_right_arithmetic_count_is_unsigned() -> None:
    """A negative or oversized count fills with the sign bit; unsigned bits shift as signed."""
    x = np.array([-8, 8, -8], np.int8)
    for got in _both(lax.shift_right_arithmetic, x, np.array([-1, 9, 1], np.int8)):
        np.testing.assert_array_equal(got, [-1, 0, -4])
    u = np.array([255, 128], np.uint8)
    for got in _both(lax.shift_right_arithmetic, u, np.array([1, 7], np.uint8)):
        np.testing.assert_array_equal(got, [255, 255])


_CALLS = """
import numpy as np
import mj.lax as lax
import mj.numpy as mnp
i, z = np.array([-5, 5], np.int32), np.zeros(2, np.int32)
mnp.log(np.array([0.0, -1.0])); mnp.divide(np.array([1.0, 0.0]), 0.0)
mnp.floor_divide(i, z); mnp.remainder(i, z); lax.div(i, z); mnp.sqrt(np.float32(-1.0))
mnp.exp(np.array(1000.0)); mnp.multiply(np.array(np.inf), 0.0); lax.round(np.array(np.nan))
mnp.arccosh(np.array(-1e308))
"""


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-W", "default", "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=True,
    )
    return done.stderr


def test_eager_ops_emit_no_numpy_warnings() -> None:
    """In a fresh process (warnings shown by default), mj's eager ops print none, while the
    user's own NumPy calls keep theirs. (A process whose first ``import mj`` happens inside a
    ``warnings.catch_warnings()`` block, as under pytest's collection, loses mj's filter when
    the block ends.)"""
    assert "RuntimeWarning" not in _run(_CALLS)
    assert "divide by zero encountered in log" in _run(_CALLS + "np.log(np.array(0.0))")


def test_warnings_made_errors_are_recomputed_quietly() -> None:
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(np.asarray(mnp.sqrt(np.array(-1.0))))
        np.testing.assert_array_equal(mnp.floor_divide(DIVIDEND, Z), [-2, -2])
        assert np.asarray(mnp.log(np.array(0.0))) == -np.inf
