"""Every differentiable core primitive: jvp and vjp against central finite differences
(float64, several shapes), second order for the smooth ones, linearize == jvp, closed forms,
and <ct, L v> == <L^T ct, v> for every linear primitive."""

from __future__ import annotations

import numpy as np
import pytest

from mj_autodiff import check_grads, grad, jvp, linearize, vjp
from mj_autodiff.extend import jvp_rules
from mj_core import bind1, lax
from mj_core.extend import FAMILIES, family_primitives
from mj_core.prims.elementwise import (
    ceil_p,
    eq_p,
    floor_p,
    greater_p,
    is_finite_p,
    less_p,
    round_p,
    sign_p,
)
from mj_core.prims.indexing import GatherDimensionNumbers, ScatterDimensionNumbers
from mj_core.prims.reductions import argmax_p

rng = np.random.default_rng(42)


def _u(shape, lo=0.2, hi=0.9):
    return rng.uniform(lo, hi, shape)


def _n(shape):
    return rng.standard_normal(shape)


UNARY_DERIVATIVES = {
    "sin": np.cos,
    "cos": lambda x: -np.sin(x),
    "tan": lambda x: 1 / np.cos(x) ** 2,
    "asin": lambda x: 1 / np.sqrt(1 - x * x),
    "acos": lambda x: -1 / np.sqrt(1 - x * x),
    "atan": lambda x: 1 / (1 + x * x),
    "sinh": np.cosh,
    "cosh": np.sinh,
    "tanh": lambda x: 1 - np.tanh(x) ** 2,
    "exp": np.exp,
    "log": lambda x: 1 / x,
    "log1p": lambda x: 1 / (1 + x),
    "expm1": np.exp,
    "logistic": lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2,
    "sqrt": lambda x: 0.5 / np.sqrt(x),
    "rsqrt": lambda x: -0.5 * x**-1.5,
    "erf": lambda x: 2 / np.sqrt(np.pi) * np.exp(-x * x),
    "abs": np.sign,
    "neg": lambda x: -np.ones_like(x),
}

SHAPES = [(), (4,), (2, 3)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY_DERIVATIVES))
def test_unary_closed_form_and_finite_differences(name, shape):
    f = getattr(lax, name)
    x = _u(shape)
    _, t = jvp(f, (x,), (np.ones(shape),))
    np.testing.assert_allclose(t, UNARY_DERIVATIVES[name](x), rtol=1e-12, atol=1e-12)
    _, pullback = vjp(f, x)
    np.testing.assert_allclose(pullback(np.ones(shape))[0], UNARY_DERIVATIVES[name](x), rtol=1e-12)
    check_grads(f, (x,), order=2)


BINARY_DERIVATIVES = {
    "add": (lambda x, y: np.ones_like(x * y), lambda x, y: np.ones_like(x * y)),
    "sub": (lambda x, y: np.ones_like(x * y), lambda x, y: -np.ones_like(x * y)),
    "mul": (lambda x, y: y + 0 * x, lambda x, y: x + 0 * y),
    "div": (lambda x, y: 1 / y + 0 * x, lambda x, y: -x / y**2),
    "pow": (lambda x, y: y * x ** (y - 1), lambda x, y: np.log(x) * x**y),
    "atan2": (lambda x, y: y / (x * x + y * y), lambda x, y: -x / (x * x + y * y)),
    "max": (lambda x, y: (x > y) + 0.0 * y, lambda x, y: (y > x) + 0.0 * x),
    "min": (lambda x, y: (x < y) + 0.0 * y, lambda x, y: (y < x) + 0.0 * x),
    "rem": (lambda x, y: np.ones_like(x * y), lambda x, y: -np.trunc(x / y)),
}


@pytest.mark.parametrize(
    ("xs", "ys"), [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3))], ids=str
)
@pytest.mark.parametrize("name", sorted(BINARY_DERIVATIVES))
def test_binary_closed_form_and_finite_differences(name, xs, ys):
    f = getattr(lax, name)
    x, y = _u(xs, 0.5, 1.5), _u(ys, 2.0, 3.0)
    out = f(x, y)
    dx, dy = BINARY_DERIVATIVES[name]
    _, tx = jvp(lambda a: f(a, y), (x,), (np.ones(xs),))
    np.testing.assert_allclose(tx, np.broadcast_to(dx(x, y), np.shape(out)), rtol=1e-12)
    _, ty = jvp(lambda b: f(x, b), (y,), (np.ones(ys),))
    np.testing.assert_allclose(ty, np.broadcast_to(dy(x, y), np.shape(out)), rtol=1e-12)
    _, pullback = vjp(f, x, y)
    gx, gy = pullback(np.ones(np.shape(out)))
    assert np.shape(gx) == xs
    assert np.shape(gy) == ys
    check_grads(f, (x, y), order=2)


def test_max_min_split_ties_evenly():
    g = vjp(lax.max, 1.0, 1.0)[1](1.0)
    assert g == (0.5, 0.5)
    g = vjp(lax.min, np.array([1.0, 2.0]), np.array([1.0, 3.0]))[1](np.ones(2))
    np.testing.assert_allclose(g[0], [0.5, 1.0])
    np.testing.assert_allclose(g[1], [0.5, 0.0])


def test_pow_at_zero_is_finite():
    g = vjp(lax.pow, 0.0, 2.0)[1](1.0)
    assert g == (0.0, 0.0)


@pytest.mark.parametrize("y", [-3, -1, 0, 1, 2, 5])
def test_integer_pow(y):
    x = _u((3,), 1.0, 2.0)
    _, t = jvp(lambda a: lax.integer_pow(a, y), (x,), (np.ones(3),))
    np.testing.assert_allclose(t, y * x ** (y - 1.0), rtol=1e-12)
    check_grads(lambda a: lax.integer_pow(a, y), (x,), order=2)


def test_clamp_and_select():
    x = np.array([-1.0, 0.2, 0.9, 2.0])
    _, t = jvp(lambda a: lax.clamp(0.0, a, 1.0), (x,), (np.ones(4),))
    np.testing.assert_array_equal(t, [0.0, 1.0, 1.0, 0.0])
    check_grads(lambda lo, a, hi: lax.clamp(lo, a, hi), (-0.5, _n((3, 2)), 0.7), order=2)
    p = np.array([True, False, True])
    check_grads(lambda a, b: lax.select_n(p, a, b), (_n(3), _n(3)), order=2)
    which = np.array([0, 2, 1, 1])
    check_grads(lambda a, b: lax.select_n(which, a, b, lax.mul(a, b)), (_n(4), _n(4)), order=2)


@pytest.mark.parametrize(
    "prim",
    [
        sign_p,
        floor_p,
        ceil_p,
        round_p,
        is_finite_p,
        eq_p,
        less_p,
        greater_p,
        argmax_p,
    ],
    ids=str,
)
def test_non_differentiable_primitives_have_zero_derivative(prim):
    x = _n((3, 2))
    if prim is argmax_p:
        f = lambda a: lax.argmax(a, 0, np.int32)  # noqa: E731
    elif prim in (eq_p, less_p, greater_p):
        f = lambda a: bind1(prim, a, 0.1)  # noqa: E731
    else:
        f = lambda a: bind1(prim, a)  # noqa: E731
    _, t = jvp(f, (x,), (np.ones((3, 2)),))
    assert not np.any(np.asarray(t, dtype=np.float64) if t.dtype.kind == "f" else False)


def test_every_core_primitive_has_a_jvp_rule():
    core = [p for family in FAMILIES for p in family_primitives(family)]
    assert core
    missing = [p for p in core if p not in jvp_rules]
    assert missing == []


# --- structural, reductions, contractions, indexing: finite differences to second order ----
GD = GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
SD = ScatterDimensionNumbers(
    update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
)
IDX = np.array([[0], [3], [3], [1]])
UIDX = np.array([[0], [3], [2], [1]])


def _dot(dn):
    return lambda a, b: lax.dot_general(a, b, dn)


CASES = {
    "dot_matmul": (_dot((((1,), (0,)), ((), ()))), [(3, 4), (4, 5)]),
    "dot_vec": (_dot((((0,), (0,)), ((), ()))), [(4,), (4,)]),
    "dot_batch": (_dot((((2,), (1,)), ((0,), (0,)))), [(2, 3, 4), (2, 4, 5)]),
    "dot_mixed": (_dot((((0, 2), (2, 0)), ((1,), (1,)))), [(2, 3, 4), (4, 3, 2)]),
    "broadcast": (lambda a: lax.broadcast_in_dim(a, (2, 3, 4), (1, 2)), [(3, 4)]),
    "broadcast_stretch": (lambda a: lax.broadcast_in_dim(a, (2, 3, 4), (0, 2)), [(1, 4)]),
    "reshape": (lambda a: lax.reshape(a, (4, 3)), [(3, 4)]),
    "transpose": (lambda a: lax.transpose(a, (2, 0, 1)), [(2, 3, 4)]),
    "rev": (lambda a: lax.rev(a, (0, 1)), [(3, 4)]),
    "squeeze": (lambda a: lax.squeeze(a, (0,)), [(1, 4)]),
    "concatenate": (lambda a, b: lax.concatenate([a, b, a], 0), [(3, 4), (2, 4)]),
    "pad": (lambda a, p: lax.pad(a, p, ((1, -1, 1), (0, 2, 0))), [(3, 4), ()]),
    "pad_scalar": (lambda a: lax.pad(a, 1, ((2, 1, 0),)), [(3,)]),
    "slice": (lambda a: lax.slice(a, (0, 1), (3, 4)), [(3, 4)]),
    "slice_strided": (lambda a: lax.slice(a, (0, 1), (3, 4), (2, 2)), [(3, 4)]),
    "dynamic_slice": (lambda a: lax.dynamic_slice(a, (np.int64(1), np.int64(3)), (2, 2)), [(3, 4)]),
    "dynamic_update_slice": (
        lambda a, u: lax.dynamic_update_slice(a, u, (np.int64(1), np.int64(3))),
        [(3, 4), (2, 2)],
    ),
    "reduce_sum": (lambda a: lax.reduce_sum(a, (1,)), [(3, 4)]),
    "reduce_max": (lambda a: lax.reduce_max(a, (0,)), [(3, 4)]),
    "reduce_min": (lambda a: lax.reduce_min(a, (0, 1)), [(3, 4)]),
    "reduce_prod": (lambda a: lax.reduce_prod(a, (1,)), [(3, 4)]),
    "reduce_prod_all": (lambda a: lax.reduce_prod(a, (0, 1)), [(2, 3)]),
    "cumsum": (lambda a: lax.cumsum(a, 1, reverse=True), [(3, 4)]),
    "cumprod": (lambda a: lax.cumprod(a, 1), [(3, 5)]),
    "cummax": (lambda a: lax.cummax(a, 0, reverse=True), [(5, 2)]),
    "cummin": (lambda a: lax.cummin(a, 1), [(2, 6)]),
    "sort": (lambda a: lax.sort(a, dimension=1), [(3, 4)]),
    "sort_key_val": (lambda a, b: lax.sort((a, b), dimension=0, num_keys=1)[1], [(4, 2), (4, 2)]),
    "gather": (lambda a: lax.gather(a, IDX, GD, (1, 4), mode="clip"), [(5, 4)]),
    "gather_fill": (
        lambda a: lax.gather(a, np.array([[0], [7]]), GD, (1, 4), mode="fill", fill_value=0.0),
        [(5, 4)],
    ),
    "scatter_add": (lambda a, u: lax.scatter_add(a, IDX, u, SD), [(5, 4), (4, 4)]),
    "scatter": (lambda a, u: lax.scatter(a, IDX, u, SD), [(5, 4), (4, 4)]),
    "scatter_unique": (
        lambda a, u: lax.scatter(a, UIDX, u, SD, unique_indices=True),
        [(5, 4), (4, 4)],
    ),
    "scatter_mul": (
        lambda a, u: lax.scatter_mul(a, UIDX, u, SD, unique_indices=True),
        [(5, 4), (4, 4)],
    ),
    "scatter_max": (lambda a, u: lax.scatter_max(a, IDX, u, SD), [(5, 4), (4, 4)]),
    "scatter_min": (lambda a, u: lax.scatter_min(a, IDX, u, SD), [(5, 4), (4, 4)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_finite_differences_second_order(name):
    f, shapes = CASES[name]
    args = tuple(_n(s) for s in shapes)
    check_grads(f, args, order=2)


@pytest.mark.parametrize("name", sorted(CASES))
def test_linearize_equals_jvp(name):
    f, shapes = CASES[name]
    args = tuple(_n(s) for s in shapes)
    tangents = tuple(_n(s) for s in shapes)
    y, t = jvp(f, args, tangents)
    y2, f_lin = linearize(f, *args)
    np.testing.assert_allclose(y2, y, rtol=1e-14)
    np.testing.assert_allclose(f_lin(*tangents), t, rtol=1e-12, atol=1e-14)


def test_reduce_prod_with_zeros_is_exact():
    x = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]])
    g = vjp(lambda a: lax.reduce_prod(a, (1,)), x)[1](np.ones(2))[0]
    np.testing.assert_array_equal(g, [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0]])


LINEAR = {
    "neg": (lax.neg, [(3, 4)]),
    "add": (lambda a, b: lax.add(a, b), [(3, 4), (4,)]),
    "sub": (lambda a, b: lax.sub(a, b), [(2, 1), (1, 3)]),
    "mul_const": (lambda a: lax.mul(a, np.arange(4.0)), [(3, 4)]),
    "div_const": (lambda a: lax.div(a, np.arange(1.0, 4.0)), [(2, 3)]),
    "select_n": (lambda a, b: lax.select_n(np.array([True, False, True]), a, b), [(3,), (3,)]),
    "convert": (lambda a: lax.convert_element_type(a, np.float32), [(3,)]),
    "dot_lhs": (lambda a: lax.dot_general(a, np.ones((4, 2)), (((1,), (0,)), ((), ()))), [(3, 4)]),
    "dot_rhs": (lambda b: lax.dot_general(np.ones((3, 4)), b, (((1,), (0,)), ((), ()))), [(4, 2)]),
    "cumsum": (lambda a: lax.cumsum(a, 0), [(4, 3)]),
    "gather": CASES["gather"],
    "scatter_add": CASES["scatter_add"],
    "scatter_unique": CASES["scatter_unique"],
    **{
        k: CASES[k]
        for k in (
            "broadcast",
            "broadcast_stretch",
            "reshape",
            "transpose",
            "rev",
            "squeeze",
            "concatenate",
            "pad",
            "slice",
            "slice_strided",
            "dynamic_slice",
            "dynamic_update_slice",
            "reduce_sum",
        )
    },
}


def _inner(xs, ys):
    return sum(
        float(np.vdot(np.asarray(x, np.float64), np.asarray(y, np.float64)))
        for x, y in zip(xs, ys, strict=True)
    )


@pytest.mark.parametrize("name", sorted(LINEAR))
def test_transpose_is_adjoint(name):
    f, shapes = LINEAR[name]
    v = tuple(_n(s) for s in shapes)
    out, pullback = vjp(f, *v)
    ct = _n(np.shape(out)).astype(np.result_type(out))
    lv = f(*v)
    lt_ct = pullback(ct)
    for g, s in zip(lt_ct, shapes, strict=True):
        assert np.shape(g) == s
    tol = 1e-6 if name == "convert" else 1e-12
    assert _inner([ct], [lv]) == pytest.approx(_inner(lt_ct, v), rel=tol, abs=tol)


@pytest.mark.parametrize("y", [2, 3.5, -1])
def test_pow_with_python_exponent(y):
    x = _u((3,), 0.5, 1.5)
    _, t = jvp(lambda a: lax.pow(a, y), (x,), (np.ones(3),))
    np.testing.assert_allclose(t, y * x ** (y - 1.0), rtol=1e-12)
    check_grads(lambda a: lax.pow(a, y), (x,), order=2)


def test_abs_derivative_at_zero_is_one_like_jax():
    """JAX's rule is ``select(x >= 0, g, -g)``: +1 at 0 and at -0.0, -1 below."""
    x = np.array([-2.0, -0.0, 0.0, 3.0])
    _, t = jvp(lambda v: lax.abs(v), (x,), (np.ones(4),))
    np.testing.assert_array_equal(np.asarray(t), [-1.0, 1.0, 1.0, 1.0])
    assert float(grad(lambda v: lax.abs(v))(0.0)) == 1.0


def test_clamp_masks_cotangents_with_a_select_not_a_product():
    """A clamped point whose downstream derivative is infinite gets 0, as in JAX (a product
    with the 0/1 mask would give inf * 0 = nan)."""
    x = np.array([-0.5, 0.25, 1.5])
    g = grad(lambda v: lax.log(lax.clamp(0.0, v, 1.0)).sum())(x)
    np.testing.assert_array_equal(np.asarray(g), [0.0, 4.0, 0.0])
