"""Lowering of the windowed reductions: jit equals eager (values, dtypes, shapes) with
strides, padding and both dilations, and emits one stablehlo.reduce_window."""

import numpy as np
import pytest

from mj_autodiff import grad
from mj_core import lax
from mj_core.prims.windowed import reduce_window
from mj_xla import jit

CASES = [
    ((2, 5, 6, 3), (1, 2, 2, 1), (1, 2, 2, 1), "SAME", None, None),
    ((5, 6), (3, 2), (1, 2), ((1, 2), (0, -1)), (2, 1), (1, 2)),
    ((4,), (5,), (1,), "VALID", None, None),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    ("op", "init", "dtype"),
    [(lax.add, 0, np.float32), (lax.max, -np.inf, np.float64), (lax.min, np.inf, np.float64),
     (lax.add, 0, np.int32), (lax.max, np.iinfo(np.int32).min, np.int32)],
)  # fmt: skip
def test_jit_matches_eager(case, op, init, dtype):
    shape, dims, strides, padding, base, wdil = case
    x = (np.random.default_rng(0).normal(size=shape) * 10).astype(dtype)

    def f(x):
        return reduce_window(x, init, op, dims, strides, padding, base, wdil)

    eager, compiled = f(x), jit(f)(x)
    assert compiled.dtype == eager.dtype == dtype
    assert compiled.shape == eager.shape
    np.testing.assert_allclose(np.asarray(compiled), eager, rtol=1e-6)


def test_lowering_is_one_reduce_window_and_grad_compiles():
    def f(x):
        return reduce_window(x, -np.inf, lax.max, (2, 2), (2, 2), "VALID")

    text = jit(f).lower(np.ones((4, 4))).as_text()
    assert text.count("stablehlo.reduce_window") == 1
    x = np.random.default_rng(1).normal(size=(4, 6))

    def loss(x):
        return lax.reduce_sum(f(x), (0, 1))

    np.testing.assert_allclose(np.asarray(jit(grad(loss))(x)), grad(loss)(x))
