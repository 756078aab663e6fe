"""Eager reverse mode (the tape): every VJP it takes equals the transpose of the staged
linearization on the same values, the fast rules (derived from the derivative description)
are the ones used for common primitives, anything else falls back to linearizing one
application, and the tape behaves like a trace (nesting, custom rules, Python control flow,
leaks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mj_autodiff import custom_jvp, custom_vjp, grad, jvp, value_and_grad, vjp
from mj_autodiff._tape import TapeTracer, tape_vjp_flat
from mj_autodiff.extend import Elementwise, Zero, derivative_kinds, linearize_flat
from mj_core import TracerLeakError, lax
from mj_core.prims.contractions import dot_general_p
from mj_core.prims.conversions import convert_element_type_p
from mj_core.prims.convolution import conv_general_dilated_p
from mj_core.prims.elementwise import add_p, div_p, integer_pow_p, mul_p, select_n_p, sin_p, tanh_p
from mj_core.prims.indexing import gather_p
from mj_core.prims.reductions import reduce_max_p, reduce_sum_p
from mj_core.prims.structural import broadcast_p, dynamic_slice_p, reshape_p, transpose_p

RNG = np.random.default_rng(0)


def _rand(*shape: int, dtype: Any = np.float64) -> np.ndarray:
    return RNG.uniform(0.2, 1.4, size=shape).astype(dtype)


def _both_pullbacks(
    fun: Callable[..., Any], args: list[Any]
) -> tuple[list[Any], list[Any], list[Any]]:
    """(outputs, tape cotangents, linearize cotangents) of ``fun`` for random output cts."""
    flat = lambda *a: [fun(*a)]  # noqa: E731
    outs, pullback = tape_vjp_flat(flat, args)
    lin_outs, lin = linearize_flat(flat, args)
    np.testing.assert_allclose(outs[0], lin_outs[0])
    ct = RNG.standard_normal(np.shape(outs[0])).astype(np.asarray(outs[0]).dtype)
    return outs, pullback([ct]), lin.transpose([ct])


# Each case: (name, function of the operands, operands). Broadcasting, constants mixed with
# differentiated operands, and non-matmul contractions are all exercised.
CASES: list[tuple[str, Callable[..., Any], list[Any]]] = [
    ("sin", lax.sin, [_rand(3, 4)]),
    ("cos", lax.cos, [_rand(5)]),
    ("tanh", lax.tanh, [_rand(2, 3)]),
    ("exp", lax.exp, [_rand(4)]),
    ("log", lax.log, [_rand(4)]),
    ("log1p", lax.log1p, [_rand(4)]),
    ("expm1", lax.expm1, [_rand(4)]),
    ("logistic", lax.logistic, [_rand(4)]),
    ("sqrt", lax.sqrt, [_rand(4)]),
    ("rsqrt", lax.rsqrt, [_rand(4)]),
    ("erf", lax.erf, [_rand(4)]),
    ("abs", lax.abs, [_rand(4) - 0.8]),
    ("atan", lax.atan, [_rand(4)]),
    ("integer_pow", lambda x: lax.integer_pow(x, 3), [_rand(2, 2)]),
    ("add broadcast", lax.add, [_rand(3, 4), _rand(4)]),
    ("sub broadcast", lax.sub, [_rand(3, 1), _rand(1, 4)]),
    ("mul same operand", lambda x: lax.mul(x, x), [_rand(3)]),
    ("mul broadcast", lax.mul, [_rand(2, 3), _rand(3)]),
    ("mul by constant", lambda x: lax.mul(x, 2.5), [_rand(3)]),
    ("div", lax.div, [_rand(2, 3), _rand(3)]),
    ("pow", lax.pow, [_rand(3), _rand(3)]),
    ("max ties", lax.max, [np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.5, 4.0])]),
    ("min", lax.min, [_rand(3), _rand(3)]),
    ("atan2", lax.atan2, [_rand(3), _rand(3)]),
    ("clamp", lambda x: lax.clamp(0.5, x, 1.0), [_rand(6)]),
    ("neg", lax.neg, [_rand(3)]),
    (
        "select_n",
        lambda a, b: lax.select_n(np.array([True, False, True]), a, b),
        [_rand(3), _rand(3)],
    ),
    ("convert", lambda x: lax.convert_element_type(x, np.float32), [_rand(3)]),
    ("dot matmul", lambda a, b: lax.dot(a, b), [_rand(3, 4), _rand(4, 5)]),
    ("dot matvec", lambda a, b: lax.dot(a, b), [_rand(3, 4), _rand(4)]),
    (
        "dot_general batched",
        lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
        [_rand(2, 3, 4), _rand(2, 4, 5)],
    ),
    (
        "dot_general rhs contracting last",
        lambda a, b: lax.dot_general(a, b, (((1,), (1,)), ((), ()))),
        [_rand(3, 4), _rand(5, 4)],
    ),
    (
        "dot_general lhs contracting first",
        lambda a, b: lax.dot_general(a, b, (((0,), (0,)), ((), ()))),
        [_rand(4, 3), _rand(4, 5)],
    ),
    ("reduce_sum", lambda x: lax.reduce_sum(x, (0, 2)), [_rand(2, 3, 4)]),
    ("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1,)), [_rand(3)]),
    ("reshape", lambda x: lax.reshape(x, (6, 2)), [_rand(3, 4)]),
    ("transpose", lambda x: lax.transpose(x, (2, 0, 1)), [_rand(2, 3, 4)]),
    ("squeeze", lambda x: lax.squeeze(x, (1,)), [_rand(3, 1, 2)]),
    ("rev", lambda x: lax.rev(x, (0,)), [_rand(3, 2)]),
    ("concatenate", lambda a, b: lax.concatenate([a, b], 0), [_rand(2, 3), _rand(1, 3)]),
    ("pad", lambda x: lax.pad(x, 0.0, [(1, 2, 1)]), [_rand(3)]),
    ("slice", lambda x: lax.slice(x, (1, 0), (3, 2)), [_rand(4, 3)]),
    ("dynamic_slice", lambda x: lax.dynamic_slice(x, (1,), (2,)), [_rand(5)]),
    (
        "dynamic_update_slice",
        lambda x, u: lax.dynamic_update_slice(x, u, (1,)),
        [_rand(5), _rand(2)],
    ),
    ("cumsum", lambda x: lax.cumsum(x, 0), [_rand(4)]),
    # no fast rule: linearized one application at a time
    ("reduce_max (general path)", lambda x: lax.reduce_max(x, (1,)), [_rand(3, 4)]),
    ("cumprod (general path)", lambda x: lax.cumprod(x, 0), [_rand(4)]),
    ("sort (general path)", lambda x: lax.sort(x), [_rand(5)]),
    (
        "abs of complex (general path)",
        lax.abs,
        [_rand(3) + 1j * _rand(3)],
    ),
    ("complex sin", lax.sin, [_rand(3) + 1j * _rand(3)]),
]


@pytest.mark.parametrize(("name", "fun", "args"), CASES, ids=[c[0] for c in CASES])
def test_tape_vjp_equals_transposed_linearization(
    name: str, fun: Callable[..., Any], args: list[Any]
) -> None:
    _, tape_cts, lin_cts = _both_pullbacks(fun, args)
    for got, want in zip(tape_cts, lin_cts, strict=True):
        assert type(got) is not Zero
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        assert np.shape(got) == np.shape(want)


@pytest.mark.parametrize(
    "prim",
    [
        sin_p,
        tanh_p,
        add_p,
        mul_p,
        div_p,
        integer_pow_p,
        dot_general_p,
        reduce_sum_p,
        broadcast_p,
        reshape_p,
        transpose_p,
        dynamic_slice_p,
        select_n_p,
        convert_element_type_p,
        gather_p,
        conv_general_dilated_p,
    ],
    ids=str,
)
def test_common_primitives_have_fast_rules(prim: Any) -> None:
    assert derivative_kinds[prim].vjp is not None


def test_primitives_without_a_derivative_kind_fall_back() -> None:
    assert reduce_max_p not in derivative_kinds
    np.testing.assert_allclose(grad(lambda x: lax.reduce_max(x, (0,)))(np.arange(3.0)), [0, 0, 1])


def test_the_tape_derives_its_vjps_from_the_description(monkeypatch: pytest.MonkeyPatch) -> None:
    def twice(g: Any, x: Any) -> Any:  # a deliberately wrong derivative of sin: 2
        return lax.mul(g, 2.0)

    monkeypatch.setitem(derivative_kinds, sin_p, Elementwise((twice,), False))
    assert grad(lax.sin)(0.3) == 2.0


def test_eager_calls_use_the_tape_and_outputs_are_plain_values() -> None:
    seen = []

    def f(x: Any) -> Any:
        seen.append(type(x))
        return lax.reduce_sum(lax.mul(x, x), (0,))

    x = _rand(3)
    np.testing.assert_allclose(grad(f)(x), 2 * x)
    assert seen == [TapeTracer]
    out, f_vjp = vjp(f, x)
    assert not isinstance(out, TapeTracer)
    np.testing.assert_allclose(f_vjp(1.0)[0], 2 * x)
    np.testing.assert_allclose(f_vjp(3.0)[0], 6 * x)  # the pullback can be called again


def test_integer_and_constant_inputs_get_zero_cotangents() -> None:
    out, f_vjp = vjp(lambda x, n: lax.mul(x, lax.convert_element_type(n, np.float64)), 2.0, 3)
    ct_x, ct_n = f_vjp(1.0)
    assert out == 6.0
    assert ct_x == 3.0
    assert ct_n.dtype.name == "[('float0', 'V')]" or ct_n.dtype.itemsize == 0
    assert grad(lambda x: 4.0)(1.0) == 0.0


def test_higher_order_grad_at_top_level() -> None:
    f = lambda x: lax.mul(lax.sin(x), x)  # noqa: E731
    x = 0.7
    d2 = grad(grad(f))(x)
    np.testing.assert_allclose(d2, 2 * np.cos(x) - x * np.sin(x))
    d3 = grad(grad(grad(f)))(x)
    np.testing.assert_allclose(d3, -3 * np.sin(x) - x * np.cos(x))
    _, t = jvp(grad(f), (x,), (1.0,))
    np.testing.assert_allclose(t, d2)


def test_custom_rules_run_on_the_tape() -> None:
    @custom_jvp
    def log1pexp(x: Any) -> Any:
        return lax.log(lax.add(1.0, lax.exp(x)))

    @log1pexp.defjvp
    def _(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        return log1pexp(x), lax.mul(t, lax.logistic(x))

    assert grad(log1pexp)(100.0) == 1.0  # the naive derivative is nan here

    @custom_vjp
    def clip_gradient(x: Any) -> Any:
        return x

    clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (lax.clamp(-0.5, g, 0.5),))
    assert grad(lambda x: lax.mul(3.0, clip_gradient(x)))(1.0) == 0.5


def test_python_control_flow_sees_concrete_values() -> None:
    def f(x: Any) -> Any:
        return lax.sin(x) if x > 0 else lax.mul(x, x)

    np.testing.assert_allclose(grad(f)(0.5), np.cos(0.5))
    np.testing.assert_allclose(grad(f)(-0.5), -1.0)


def test_aux_and_value_are_plain_values() -> None:
    (value, aux), g = value_and_grad(lambda x: (lax.mul(x, x), lax.sin(x)), has_aux=True)(2.0)
    assert not isinstance(aux, TapeTracer)
    assert not isinstance(value, TapeTracer)
    np.testing.assert_allclose(aux, np.sin(2.0))
    assert (value, g) == (4.0, 4.0)


def test_a_tracer_kept_past_grad_is_reported_as_leaked() -> None:
    leaked = []

    def f(x: Any) -> Any:
        leaked.append(x)
        return x

    grad(f)(1.0)
    with pytest.raises(TracerLeakError, match="eager reverse mode"):
        lax.sin(leaked[0])


def test_pullback_of_unused_outputs_and_zero_cotangents() -> None:
    _outs, pullback = tape_vjp_flat(lambda a, b: [lax.sin(a), lax.mul(b, 2.0)], [0.3, 0.4])
    cts = pullback([1.0, Zero.from_value(0.4)])
    np.testing.assert_allclose(cts[0], np.cos(0.3))
    assert type(cts[1]) is Zero
