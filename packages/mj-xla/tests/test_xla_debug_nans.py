"""config.debug_nans: a jitted function that returns a NaN is re-run op by op and the first
primitive that created a NaN is named in a FloatingPointError (JAX's jax_debug_nans)."""

from collections.abc import Iterator

import numpy as np
import pytest

from mj_autodiff import grad
from mj_batch import vmap
from mj_core import config, current_trace_stack, lax
from mj_xla import jit


@pytest.fixture
def debug_nans() -> Iterator[None]:
    with config.override("debug_nans", True):
        yield


def _log_of_difference(x: np.ndarray) -> np.ndarray:
    return lax.exp(lax.log(x - 1.0) * 2.0)


def test_names_the_primitive_that_made_the_nan(debug_nans: None) -> None:
    f = jit(_log_of_difference)
    with pytest.raises(FloatingPointError, match=r"encountered in log \(operands f64\[3\]"):
        f(np.array([0.5, 2.0, 3.0]))
    stack = current_trace_stack()
    assert len(stack) == 1  # the checking interpreter is gone again


def test_no_error_without_nans_and_values_unchanged(debug_nans: None) -> None:
    x = np.array([2.0, 3.0])
    np.testing.assert_allclose(jit(_log_of_difference)(x), (x - 1.0) ** 2)


def test_flag_off_returns_the_nan() -> None:
    assert not config.debug_nans
    out = np.asarray(jit(_log_of_difference)(np.array([0.5])))
    assert np.isnan(out).all()


def test_first_nan_wins_over_later_propagation(debug_nans: None) -> None:
    def f(x: np.ndarray) -> np.ndarray:
        y = lax.sqrt(x)  # NaN for x < 0: the culprit
        return lax.log(y + 1.0) * lax.sin(y)

    with pytest.raises(FloatingPointError, match="encountered in sqrt"):
        jit(f)(np.array([-1.0, 1.0]))


def test_division_zero_by_zero(debug_nans: None) -> None:
    def f(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return lax.add(x, 1.0) / y

    with pytest.raises(FloatingPointError, match="encountered in div"):
        jit(f)(np.array([-1.0]), np.array([0.0]))
    # inf alone is not a NaN
    assert np.isinf(np.asarray(jit(f)(np.array([1.0]), np.array([0.0])))).all()


def test_descends_into_nested_jit(debug_nans: None) -> None:
    inner = jit(lambda x: lax.acos(x))

    def outer(x: np.ndarray) -> np.ndarray:
        return inner(x * 3.0) + 1.0

    with pytest.raises(FloatingPointError, match="encountered in acos"):
        jit(outer)(np.array([0.5]))


def test_nan_passed_in_is_reported_as_an_input(debug_nans: None) -> None:
    with pytest.raises(FloatingPointError, match=r"passed in \(flat argument 1 holds a NaN\)"):
        jit(lambda a, b: a + b)(np.array([1.0]), np.array([np.nan]))


def test_float32_and_complex(debug_nans: None) -> None:
    with pytest.raises(FloatingPointError, match="encountered in log"):
        jit(lambda x: lax.log(x))(np.array([-1.0], np.float32))
    with pytest.raises(FloatingPointError, match="encountered in mul"):
        jit(lambda x: x * np.inf)(np.array([0.0 + 0.0j]))


def test_integer_outputs_never_checked(debug_nans: None) -> None:
    out = jit(lambda x: x // 2)(np.array([4, 5]))
    np.testing.assert_array_equal(out, [2, 2])


def test_under_grad_the_jit_call_is_checked(debug_nans: None) -> None:
    # d/dx sqrt(x) at 0 is inf; times 0 gives the NaN in the backward pass's mul.
    def f(x: np.ndarray) -> np.ndarray:
        return lax.reduce_sum(lax.sqrt(x) * 0.0, (0,))

    with pytest.raises(FloatingPointError, match="encountered in"):
        jit(grad(f))(np.array([0.0, 1.0]))


def test_under_vmap_of_jit(debug_nans: None) -> None:
    with pytest.raises(FloatingPointError, match="encountered in log"):
        vmap(jit(lambda x: lax.log(x)))(np.array([[1.0], [-1.0]]))


def test_closed_over_constants_are_used_in_the_rerun(debug_nans: None) -> None:
    table = np.array([1.0, -4.0, 9.0])

    def f(i: np.ndarray) -> np.ndarray:
        return lax.sqrt(table) * i

    with pytest.raises(FloatingPointError, match=r"encountered in sqrt \(operands f64\[3\]"):
        jit(f)(np.array(2.0))


def test_next_call_after_the_error_works(debug_nans: None) -> None:
    f = jit(_log_of_difference)
    with pytest.raises(FloatingPointError):
        f(np.array([0.0]))
    np.testing.assert_allclose(f(np.array([3.0])), [4.0])


@pytest.fixture
def debug_infs() -> Iterator[None]:
    with config.override("debug_infs", True):
        yield


def test_debug_infs_names_the_primitive_that_made_the_infinity(debug_infs: None) -> None:
    f = jit(lambda x: lax.log(x) * 2.0 + 1.0)
    with pytest.raises(
        FloatingPointError, match=r"invalid value \(inf\) encountered in log \(operands f64\[2\]"
    ):
        f(np.array([0.0, 2.0]))
    np.testing.assert_allclose(f(np.array([1.0, np.e])), [1.0, 3.0])
    assert np.asarray(jit(lambda x: lax.exp(lax.log(x)))(np.array([0.0])))[0] == 0.0  # outputs
    with pytest.raises(FloatingPointError, match=r"argument 0 holds an infinity\)"):
        jit(lambda a: a * 2.0)(np.array([np.inf]))
    nan = jit(lambda x: lax.log(x))(np.array([-1.0]))  # NaNs are debug_nans' business
    assert np.isnan(np.asarray(nan)).all()


def test_debug_infs_and_nans_together_name_what_each_found() -> None:
    with config.override("debug_infs", True), config.override("debug_nans", True):
        with pytest.raises(FloatingPointError, match=r"\(nan\) encountered in sqrt"):
            jit(lambda x: lax.sqrt(x - 2.0))(np.array([1.0]))
        with pytest.raises(FloatingPointError, match=r"\(inf\) encountered in div"):
            jit(lambda x: 1.0 / (x - 1.0))(np.array([1.0]))
    assert np.isinf(np.asarray(jit(lambda x: 1.0 / x)(np.array([0.0])))).all()
