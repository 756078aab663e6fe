"""jit(f) equals eager f for every elementwise primitive (values, dtypes, shapes)."""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mj_core import get_aval, lax
from mj_core import numpy as mnp
from mj_core.dtypes import result_type
from mj_core.extend import elementwise_specs
from mj_core.prims.elementwise import add_p
from mj_xla import jit

UNARY: dict[str, Callable[[Any], Any]] = {
    "neg": lax.neg,
    "sin": lax.sin,
    "cos": lax.cos,
    "tan": lax.tan,
    "asin": lax.asin,
    "acos": lax.acos,
    "atan": lax.atan,
    "sinh": lax.sinh,
    "cosh": lax.cosh,
    "tanh": lax.tanh,
    "exp": lax.exp,
    "log": lax.log,
    "log1p": lax.log1p,
    "expm1": lax.expm1,
    "logistic": lax.logistic,
    "sqrt": lax.sqrt,
    "rsqrt": lax.rsqrt,
    "abs": lax.abs,
    "sign": lax.sign,
    "floor": lax.floor,
    "ceil": lax.ceil,
    "is_finite": lax.is_finite,
    "erf": lax.erf,
    "not": lax.bitwise_not,
}
BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": lax.add,
    "sub": lax.sub,
    "mul": lax.mul,
    "div": lax.div,
    "rem": lax.rem,
    "pow": lax.pow,
    "max": lax.max,
    "min": lax.min,
    "atan2": lax.atan2,
    "and": lax.bitwise_and,
    "or": lax.bitwise_or,
    "xor": lax.bitwise_xor,
    "shift_left": lax.shift_left,
    "shift_right_logical": lax.shift_right_logical,
    "shift_right_arithmetic": lax.shift_right_arithmetic,
    "eq": lax.eq,
    "ne": lax.ne,
    "less": lax.less,
    "less_equal": lax.less_equal,
    "greater": lax.greater,
    "greater_equal": lax.greater_equal,
}
DTYPES = [np.float32, np.float64, np.int32, np.bool_]
POSITIVE_ONLY = {"log", "sqrt", "rsqrt", "pow", "log1p"}
UNIT_INTERVAL = {"asin", "acos"}


def _sample(rng: np.random.Generator, name: str, dtype: Any, shape: tuple[int, ...]) -> Any:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        lo = 1 if name in POSITIVE_ONLY | {"div", "rem"} else -5
        hi = 6 if name != "pow" else 3
        return rng.integers(lo, hi, shape).astype(dtype)
    if name in UNIT_INTERVAL:
        return rng.uniform(-0.9, 0.9, shape).astype(dtype)
    if name in POSITIVE_ONLY:
        return rng.uniform(0.1, 3.0, shape).astype(dtype)
    return rng.uniform(-3.0, 3.0, shape).astype(dtype)


def _accepts(name: str, *dtypes: Any) -> bool:
    prim = next(p for p in elementwise_specs if p.name == name)
    return all(elementwise_specs[prim].accepts(np.dtype(d).kind) for d in dtypes)


def _tolerance(dtype: Any) -> float:
    return 2e-5 if np.dtype(dtype) == np.float32 else 1e-12


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_eager(name, dtype, rng, assert_same):
    if not _accepts(name, dtype):
        pytest.skip(f"{name} does not accept {np.dtype(dtype).name}")
    x = _sample(rng, name, dtype, (3, 4))
    fun = UNARY[name]
    want = fun(x)
    tol = _tolerance(np.asarray(want).dtype)  # integers compute in float32, as in JAX
    assert_same(jit(fun)(x), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcasting_matches_eager(name, dtype, rng, assert_same):
    if not _accepts(name, dtype):
        pytest.skip(f"{name} does not accept {np.dtype(dtype).name}")
    x = _sample(rng, name, dtype, (2, 3))
    y = _sample(rng, name, dtype, (3,))
    if name.startswith("shift"):
        y = np.abs(y) % (8 * np.dtype(dtype).itemsize)
    fun = BINARY[name]
    want = fun(x, y)
    tol = _tolerance(np.asarray(want).dtype)  # atan2 of integers computes in float32
    assert_same(jit(fun)(x, y), want, rtol=tol, atol=tol)


@pytest.mark.parametrize(
    ("x", "y"),
    [
        (np.arange(3, dtype=np.float32), 2.0),  # weak Python float keeps float32
        (np.arange(3, dtype=np.int32), 2),  # weak int keeps int32
        (np.arange(3, dtype=np.int32), 2.5),  # int array * Python float -> float64
        (np.arange(3, dtype=np.float32), np.arange(3, dtype=np.float64)),
        (np.arange(3, dtype=np.int32), np.float32(1.5)),  # the lattice: float32 (NumPy: 64)
        (np.arange(3, dtype=np.int16), np.arange(3, dtype=np.float16)),  # float16
    ],
)
def test_promotion_is_the_lattice_eagerly_and_under_jit(x, y, assert_same):
    """mnp promotes on JAX's lattice, eagerly and under jit alike (lax refuses mixed dtypes)."""
    want_dtype, _ = result_type(*((get_aval(v).dtype, get_aval(v).weak_type) for v in (x, y)))
    eager = mnp.multiply(x, y)
    assert np.asarray(eager).dtype == want_dtype
    assert_same(jit(mnp.multiply)(x, y), eager)
    assert_same(jit(lambda a: a * y)(x), eager)


def test_weak_literal_keeps_float32_inside_jit(assert_same):
    out = jit(lambda x: x * 2.0 + 1)(np.float32(3.0))
    assert out.dtype == np.float32
    assert float(out) == 7.0


@pytest.mark.parametrize("method", [0, 1])
def test_round(method, assert_same):
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3], np.float32)
    assert_same(jit(lambda a: lax.round(a, method))(x), lax.round(x, method))


@pytest.mark.parametrize("y", [0, 1, 2, 3, 7, -2])
def test_integer_pow(y, rng, assert_same):
    x = rng.uniform(0.5, 2.0, (4,))
    assert_same(jit(lambda a: lax.integer_pow(a, y))(x), lax.integer_pow(x, y), rtol=1e-12)


def test_select_n_bool_and_int(rng, assert_same):
    which = rng.random((5,)) < 0.5
    a, b, c = (rng.normal(size=(5,)) for _ in range(3))
    assert_same(jit(lax.select_n)(which, a, b), lax.select_n(which, a, b))
    idx = np.array([0, 1, 2, 1, 0], np.int32)
    assert_same(jit(lax.select_n)(idx, a, b, c), lax.select_n(idx, a, b, c))
    scalar_pred = np.bool_(True)
    assert_same(jit(lax.select_n)(scalar_pred, a, b), lax.select_n(scalar_pred, a, b))


def test_clamp_with_scalar_bounds(rng, assert_same):
    x = rng.normal(size=(4, 3)).astype(np.float32)
    assert_same(jit(lambda v: lax.clamp(-0.5, v, 0.5))(x), lax.clamp(-0.5, x, 0.5))


def test_every_elementwise_primitive_has_a_lowering():
    from mj_xla.extend import lowering_rules

    missing = [p.name for p in elementwise_specs if p not in lowering_rules]
    assert not missing
    assert add_p in lowering_rules
