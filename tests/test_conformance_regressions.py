"""Regression tests for the places where mj behaved differently from JAX (found by the JAX
conformance audit; the oracle counterparts are in tests/oracle/test_oracle_api.py)."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax

# --- array operators defer to unrecognised operands, reject containers ----------------------


def test_comparison_with_a_foreign_object_falls_back_to_identity():
    x = mj.jit(lambda x: x)(np.ones(2))
    assert (x == None) is False  # noqa: E711
    assert (x != "a") is True


def test_array_compares_with_pytest_approx():
    assert mj.jit(lambda x: x * 2)(1.5) == pytest.approx(3.0)
    assert mj.jit(lambda x: x * 2)(np.ones(2)) == pytest.approx([2.0, 2.0])


@pytest.mark.parametrize("container", [[1.0, 2.0], (1.0, 2.0)])
def test_python_containers_are_rejected_as_operands(container):
    x = mj.jit(lambda x: x)(np.ones(2))
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Array' and"):
        x + container
    with pytest.raises(TypeError, match=r"for \*: '(list|tuple)' and 'Array'"):
        container * x
    with pytest.raises(TypeError, match="=="):
        x == container  # noqa: B015


def test_tracers_reject_containers_too():
    def f(x):
        return x + [1.0, 2.0]  # noqa: RUF005

    with pytest.raises(TypeError, match=r"for \+: '\w+Tracer' and 'list'"):
        mj.grad(lambda x: mnp.sum(f(x)))(np.ones(2))


def test_reflected_operators_still_work_for_scalars_and_arrays():
    x = mj.jit(lambda x: x)(np.arange(3.0))
    np.testing.assert_array_equal(2.0 - x, [2.0, 1.0, 0.0])
    np.testing.assert_array_equal(np.ones(3) + x, [1.0, 2.0, 3.0])
    assert mj.grad(lambda x: 1.0 / x)(2.0) == -0.25
    assert float(lax.add(x, 1.0)[2]) == 3.0
