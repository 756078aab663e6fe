"""``default_matmul_precision`` is read when a dot or convolution is staged, as in JAX 0.10.2:
the jaxpr holds the precision the setting names (api_test's
``test_dot_precision_context_manager``), and an explicit precision wins over the setting."""

import operator
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

SETTINGS = [None, "bfloat16", "tensorfloat32", "float32", "highest", "default", "F32_F32_F32"]


def _precision_param(lib, np_lib, setting, fun):
    x = np_lib.zeros((2, 2))
    with lib.default_matmul_precision(setting):
        jaxpr = lib.make_jaxpr(fun(np_lib, lib))(x, x)
    eqn = next(e for e in jaxpr.jaxpr.eqns if "dot_general" in str(e.primitive))
    return str(eqn.params["precision"])


FUNS = {
    "dot": lambda np_lib, lib: np_lib.dot,
    "matmul_operator": lambda np_lib, lib: operator.matmul,
    "explicit_highest": lambda np_lib, lib: partial(
        np_lib.dot, precision=lib.lax.Precision.HIGHEST
    ),
    "einsum": lambda np_lib, lib: partial(np_lib.einsum, "ij,jk->ik"),
}


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("fun", FUNS)
def test_staged_precision_as_jax(x64, setting, fun):
    want = _precision_param(jax, jnp, setting, FUNS[fun])
    got = _precision_param(mj, mnp, setting, FUNS[fun])
    assert got == want


def test_convolution_reads_the_setting_as_jax():
    lhs, rhs = np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 2, 2), np.float32)
    params = {}
    for lib in (jax, mj):
        with lib.default_matmul_precision("float32"):
            jaxpr = lib.make_jaxpr(lambda a, b, lib=lib: lib.lax.conv(a, b, (1, 1), "VALID"))(
                lhs, rhs
            )
        params[lib] = str(jaxpr.jaxpr.eqns[0].params["precision"])
    assert params[mj] == params[jax]
    with mj.default_matmul_precision("float32"):  # the program computes the same values
        np.testing.assert_allclose(
            mj.jit(lambda a, b: mj.lax.conv(a, b, (1, 1), "VALID"))(lhs, rhs),
            jax.lax.conv(lhs, rhs, (1, 1), "VALID"),
        )
