"""A NumPy array on the left of every binary operator, with a tracer / device array / eager
array on the right: same values and dtypes as JAX (issue 23)."""

import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

OPS = {
    "add": "f", "sub": "f", "mul": "f", "truediv": "f", "floordiv": "f", "mod": "f", "pow": "f",
    "matmul": "f", "lt": "f", "le": "f", "eq": "f", "ne": "f", "gt": "f", "ge": "f",
    "and_": "i", "or_": "i", "xor": "i", "lshift": "i", "rshift": "i",
}  # fmt: skip


def operands(name):
    if name == "matmul":
        return np.arange(6.0, dtype=np.float32).reshape(2, 3), np.arange(12.0).reshape(3, 4) / 7
    if OPS[name] == "i":
        return np.arange(6, dtype=np.int16).reshape(2, 3), np.full((2, 3), 2, np.int32)
    return np.arange(6.0, dtype=np.float32).reshape(2, 3) - 2.5, np.full((2, 3), 1.5)


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("kind", ["eager", "device", "jit", "vmap", "grad"])
def test_matches_jax(name, kind):
    op = getattr(operator, name)
    x, w = operands(name)
    if kind == "grad":
        if OPS[name] == "i" or name in ("lt", "le", "eq", "ne", "gt", "ge"):
            return
        got = mj.grad(lambda w: op(x, w).sum())(w)
        want = jax.grad(lambda w: op(x, w).sum())(w)
    elif kind == "eager":
        got, want = op(x, mnp.asarray(w)), op(x, jnp.asarray(w))
    elif kind == "device":
        got, want = op(x, mj.jit(lambda w: w)(w)), op(x, jax.jit(lambda w: w)(w))
    elif kind == "jit":
        got, want = mj.jit(lambda w: op(x, w))(w), jax.jit(lambda w: op(x, w))(w)
    else:
        got = mj.vmap(lambda w: op(x, w))(np.stack([w, w]))
        want = jax.vmap(lambda w: op(x, w))(np.stack([w, w]))
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
