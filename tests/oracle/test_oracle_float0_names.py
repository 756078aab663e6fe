"""autodiff's ``float0`` (the tangent type of integers and bools) prints by name, as in JAX:
``float0[]``, not NumPy's name for its void dtype (``void[]``)."""

import jax
import numpy as np
import pytest

import mj

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("value", [1, np.int32(3), np.zeros((2, 3), np.bool_)])
def test_tangent_avals_of_integers_print_float0(value, x64):
    ours, theirs = mj.typeof(value).to_tangent_aval(), jax.typeof(value).to_tangent_aval()
    assert str(ours) == str(theirs)
    assert ours.str_short().startswith("float0[")
    assert "float0" in repr(ours)


def test_a_jaxpr_types_a_float0_value_float0(x64):
    zero = np.zeros((), mj.dtypes.float0)
    jaxpr = mj.make_jaxpr(lambda x, t: mj.jvp(lambda y: y * 2, (x,), (t,)))(np.int32(1), zero)
    assert "float0[]" in str(jaxpr)
    assert "void" not in str(jaxpr)
