"""``mj.lax``'s elementwise functions check their operands as ``jax.lax``'s do (issue 35, JAX's
``lax_test.py``): JAX's dtype categories per operation, one dtype per call (a Python scalar is
its default dtype), JAX's rank and broadcast rule, and weak results of weak operands. Each case
against JAX 0.10.2 in both dtype modes (the ``x64`` fixture): error type and message (mj adds
the user's source line after JAX's text), result dtype and weak type."""

import jax
import jax.lax as jlax
import numpy as np
import pytest

import mj
import mj.lax as mlax
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

FLOAT_ONLY = [
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "exp2", "expm1",
    "log", "log1p", "logistic", "rsqrt", "sin", "sinh", "sqrt", "tan", "tanh", "cbrt", "ceil",
    "floor", "round", "is_finite", "erf", "erfc", "erf_inv", "lgamma", "digamma",
    "bessel_i0e", "bessel_i1e",
]  # fmt: skip


def _outcome(run):
    """``("ok", dtype, weak_type)`` of ``run()``'s result, or ``(error type, message)`` (mj's
    message cut where JAX's ends: mj appends the user's source line)."""
    try:
        out = run()
    except TypeError as err:
        return ("TypeError", str(err).split(" in test_")[0].split(" in <lambda>")[0])
    return ("ok", np.dtype(out.dtype), bool(out.aval.weak_type))


def _agree(name, *args, jit=False):
    mine, theirs = getattr(mlax, name), getattr(jlax, name)
    if jit:
        mine, theirs = mj.jit(mine), jax.jit(theirs)
    got, want = _outcome(lambda: mine(*args)), _outcome(lambda: theirs(*args))
    assert got == want, (name, args)
    return got


@pytest.mark.parametrize("name", FLOAT_ONLY)
def test_float_only_ops_refuse_integers(x64, name):
    """``lax.acosh(int)`` and the other float-valued operations refuse integers and bools
    (eagerly, under ``jit``, for a Python int), where ``mnp``'s promote them to floats."""
    ints = np.arange(1, 4, dtype=np.int32)
    for args, jit in [((ints,), False), ((ints,), True), ((1,), False), ((np.bool_(True),), False)]:
        got = _agree(name, *args, jit=jit)
        assert got[0] == "TypeError"
        assert "does not accept dtype" in got[1]
    assert mnp.sin(ints).dtype == jax.numpy.sin(ints).dtype  # NumPy-level: promoted


@pytest.mark.parametrize("name", [*FLOAT_ONLY, "neg", "abs", "sign", "square", "reciprocal"])
def test_python_scalar_results_stay_weak(x64, name):
    """``lax.acosh(1.5)`` and the others are weakly typed, as their Python-scalar operand."""
    got = _agree(name, 0.5)
    assert got[0] == "ok"
    assert got[2]
    got = _agree(name, np.float32(0.5))
    assert got[0] == "ok"
    assert not got[2]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("clz", (3,)),
        ("population_count", (3,)),
        ("clz", (1.5,)),
        ("population_count", (np.bool_(True),)),
        ("is_finite", (1.5,)),
        ("eq", (1, 2)),
        ("lt", (1.0, 2.0)),
        ("add", (1, 2)),
        ("max", (True, False)),
    ],
)
def test_weak_types_and_categories_of_scalars(x64, name, args):
    """Bit counts and comparisons of Python scalars are weak (a bool operand never is);
    ``clz`` takes integers only."""
    _agree(name, *args)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "max", "eq", "lt", "atan2", "rem"])
def test_binary_operand_rules(x64, name):
    """Different ranks, incompatible sizes, mixed dtypes (a Python scalar included) and the
    categories (bool arithmetic, complex order) fail with JAX's message; rank-0 operands and
    size-1 axes broadcast."""
    f32 = np.float32
    cases = [
        (np.ones(3, f32), np.ones((2, 3), f32)),
        (np.ones(3, f32), np.ones(4, f32)),
        (np.ones((2, 3), f32), np.ones((1, 3), f32)),
        (np.ones((2, 3), f32), np.ones((), f32)),
        (np.ones(3, f32), 2.0),
        (np.ones(3, f32), 2),
        (np.ones(3, np.int32), 2.0),
        (0, 0.0),
        (np.ones(2, bool), np.ones(2, bool)),
        (np.ones(2, np.complex64), np.ones(2, np.complex64)),
    ]
    for x, y in cases:
        if name == "atan2" and np.result_type(x).kind == "c":
            continue  # (mj has no complex atan2 yet: a different gap)
        _agree(name, x, y)
    _agree(name, np.ones(3, f32), np.ones((2, 3), f32), jit=True)


def test_checked_monoids_still_reduce(x64):
    """``lax.reduce``/``lax.reduce_window`` recognise ``mj.lax.add`` and ``mj.lax.max``."""
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    for mine, theirs in [(mlax.add, jlax.add), (mlax.max, jlax.max)]:
        init = np.float32(0.0 if mine is mlax.add else -np.inf)
        np.testing.assert_array_equal(
            mlax.reduce(x, init, mine, (1,)), jlax.reduce(x, init, theirs, (1,))
        )
        np.testing.assert_array_equal(
            mlax.reduce_window(x, init, mine, (1, 2), (1, 1), "VALID"),
            jlax.reduce_window(x, init, theirs, (1, 2), (1, 1), "VALID"),
        )
