"""The eager path's cost, counted in Python calls (deterministic, unlike timings): the common
eager operations on float32 mj arrays run no more Python frames than they need, and the
choices that keep them cheap (XLA's complex kernels decided from the dtype) still give the
right values. Each budget is what a slower implementation (a Python check per call around the
ufunc, a per-operand conversion) would exceed."""

import sys
from collections import Counter

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_core import config, lax
from mj_core.prims.elementwise import _COMPLEX_KERNELS


@pytest.fixture(autouse=True)
def x32():
    with config.override("enable_x64", False):
        yield


def _python_calls(f):
    """The Python frames (by function) and C calls ``f()`` makes, ``f``'s own frame aside."""
    f()  # caches warm
    calls: Counter = Counter()

    def profile(frame, event, arg):
        if event == "call":
            calls[frame.f_code.co_name] += 1
        elif event == "c_call":
            calls["C:" + getattr(arg, "__qualname__", repr(arg))] += 1

    sys.setprofile(profile)
    try:
        f()
    finally:
        sys.setprofile(None)
    calls["<lambda>"] -= 1
    calls["C:setprofile"] -= 1
    return +calls


X = np.linspace(-1.0, 1.0, 8, dtype=np.float32)


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "sinh", "cosh", "exp", "expm1", "tanh"])
def test_a_float_unary_op_is_its_wrapper_and_the_bare_ufunc(name):
    x = mnp.sin(X)
    f = getattr(mnp, name)
    calls = _python_calls(lambda: f(x))
    python = {k: v for k, v in calls.items() if not k.startswith("C:")}
    assert python == {"op": 1}, calls  # no Python frame between the wrapper and NumPy
    np.testing.assert_allclose(f(x), getattr(np, name)(np.sin(X)), rtol=1e-6)


def test_a_binary_op_is_one_python_frame():
    x, y = mnp.sin(X), mnp.cos(X)
    for f in (lambda: mnp.add(x, y), lambda: x + y, lambda: x * 2.0, lambda: mnp.multiply(x, y)):
        calls = _python_calls(f)
        assert sum(v for k, v in calls.items() if not k.startswith("C:")) == 1, calls
        assert calls["C:ndarray.view"] == 1  # the result viewed once, no operand converted


@pytest.mark.parametrize("name", ["sin", "cos", "tan", "sinh", "cosh", "exp", "expm1"])
def test_complex_operands_still_take_xla_kernels_eagerly(name):
    # the shortcut leaves complex operands to the impl rule: XLA's kernel (compared with JAX's
    # in tests/oracle/test_oracle_lax_test_fixes.py), not NumPy's ufunc, also for a wrapper
    z = np.array(
        [
            complex(-np.inf, np.inf),
            1e10 + 0j,
            complex(np.inf, 1.0),
            complex(np.inf, 0.0),
            0.5 - 0.25j,
        ],
        np.complex64,
    )
    with np.errstate(all="ignore"):
        want = _COMPLEX_KERNELS[name](z)
        numpy = getattr(np, name)(z)
    for got in (getattr(mnp, name)(mnp.asarray(z)), getattr(lax, name)(z), getattr(mnp, name)(z)):
        assert got.dtype == np.complex64
        np.testing.assert_array_equal(_parts(got), _parts(want))
    np.testing.assert_allclose(want[-1], numpy[-1], rtol=1e-6)  # finite points: NumPy's values
    # NumPy's differ at infinities (real and imaginary parts compared apart: NaN is NaN)
    assert not np.array_equal(_parts(want[:-1]), _parts(numpy[:-1]), equal_nan=True)


def _parts(z):
    return np.asarray(z).view(np.float32)


def test_an_impl_rule_gets_an_eager_arrays_own_data_without_a_new_view():
    # eval_primitive hands a NumPy-level rule the plain array an EagerArray views (its data,
    # read-only), not a new view made per operand per call (~200 ns each)
    x = mnp.sin(X.reshape(2, 4))
    y = mnp.cos(X.reshape(2, 4))
    c = x > 0
    for f, want in [
        (lambda: mnp.transpose(x), np.sin(X.reshape(2, 4)).T),
        (
            lambda: mnp.where(c, x, y),
            np.where(np.sin(X) > 0, np.sin(X), np.cos(X)).reshape(2, 4),
        ),
        (lambda: lax.concatenate([x, y], 0), np.concatenate([np.sin(X), np.cos(X)]).reshape(4, 4)),
    ]:
        calls = _python_calls(f)
        assert calls["C:ndarray.view"] <= 1, calls  # the result's, at most
        np.testing.assert_allclose(np.asarray(f()), want, rtol=1e-6)


def test_a_full_reduction_costs_no_more_calls_than_its_parts():
    x = mnp.sin(X)
    calls = _python_calls(lambda: mnp.sum(x))
    # eval_primitive makes the NumPy scalar an mj array itself (no as_eager frame between)
    assert calls["as_eager"] == 0, calls
    assert calls["eager_result"] == 1, calls
    assert float(mnp.sum(x)) == pytest.approx(float(np.sum(np.sin(X))), rel=1e-6)
