"""Forward mode: Autodidax Part 1 examples, pytrees, symbolic zeros, float0, errors."""

from __future__ import annotations

import numpy as np
import pytest

from mj_autodiff import float0, jvp
from mj_autodiff.extend import Zero, jvp_flat
from mj_core import lax
from mj_core import numpy as mnp
from mj_core.errors import TracerLeakError


def f(x):
    y = lax.mul(lax.sin(x), 2.0)
    return lax.add(lax.neg(y), x)


def deriv(fun):
    return lambda x: jvp(fun, (x,), (1.0,))[1]


def test_autodidax_jvp_values():
    y, ydot = jvp(f, (3.0,), (1.0,))
    assert y == pytest.approx(2.7177599838802657, abs=1e-15)
    assert ydot == pytest.approx(2.979984993200891, abs=1e-15)


def test_autodidax_higher_derivatives_of_sin():
    assert deriv(lax.sin)(3.0) == pytest.approx(np.cos(3.0))
    assert deriv(deriv(lax.sin))(3.0) == pytest.approx(-np.sin(3.0))
    assert deriv(deriv(deriv(lax.sin)))(3.0) == pytest.approx(-np.cos(3.0))
    assert deriv(deriv(deriv(deriv(lax.sin))))(3.0) == pytest.approx(np.sin(3.0))


def test_python_control_flow_on_primal_values():
    def g(x):
        if x > 0.0:
            return lax.mul(2.0, x)
        return x

    assert deriv(g)(3.0) == 2.0
    assert deriv(g)(-3.0) == 1.0


def test_pytree_outputs_autodidax():
    def g(x):
        y = lax.mul(lax.sin(x), 2.0)
        return {"hi": lax.add(lax.neg(y), x), "there": [x, y]}

    y, ydot = jvp(g, (3.0,), (1.0,))
    assert y["there"][0] == 3.0
    assert ydot["there"][0] == 1.0
    assert y["hi"] == pytest.approx(2.7177599838802657)
    assert ydot["there"][1] == pytest.approx(-1.9799849932008908)


def test_pytree_inputs_and_arrays():
    x = np.linspace(-1.0, 1.0, 5)
    w = {"a": x, "b": (2.0 * x,)}
    t = {"a": np.ones(5), "b": (np.zeros(5),)}
    out, tout = jvp(lambda p: lax.mul(p["a"], p["b"][0]), (w,), (t,))
    np.testing.assert_allclose(out, 2 * x * x)
    np.testing.assert_allclose(tout, 2 * x)


def test_output_independent_of_input_has_zero_tangent():
    c = np.arange(3.0)
    out, tout = jvp(lambda x: lax.sin(c), (1.0,), (1.0,))
    np.testing.assert_allclose(out, np.sin(c))
    np.testing.assert_array_equal(tout, np.zeros(3))
    assert tout.dtype == np.float64


def test_integer_inputs_take_float0_tangents():
    n = np.array([1, 2, 3], np.int32)
    out, tout = jvp(lambda x, k: mnp.multiply(x, k), (2.0, n), (1.0, np.zeros(3, float0)))
    np.testing.assert_allclose(out, [2.0, 4.0, 6.0])
    np.testing.assert_allclose(tout, [1.0, 2.0, 3.0])


def test_integer_output_gets_float0_tangent():
    out, tout = jvp(lambda x: lax.greater(x, 0.0), (np.arange(-1.0, 2.0),), (np.ones(3),))
    np.testing.assert_array_equal(out, [False, False, True])
    assert tout.dtype == float0
    assert tout.shape == (3,)


def test_float32_stays_float32():
    x = np.float32(0.5)
    out, tout = jvp(lambda v: lax.mul(lax.exp(v), 2.0), (x,), (np.float32(1.0),))
    assert out.dtype == np.float32
    assert tout.dtype == np.float32
    assert tout == pytest.approx(2 * np.exp(0.5), rel=1e-6)


def test_weak_python_tangent_adopts_primal_dtype():
    _, tout = jvp(lax.sin, (np.float32(0.5),), (1.0,))
    assert tout.dtype == np.float32


def test_broadcasting_add_fits_tangent_to_output():
    x = np.arange(3.0)
    c = np.ones((2, 3))
    out, tout = jvp(lambda v: lax.add(v, c), (x,), (np.ones(3),))
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(tout, np.ones((2, 3)))


def test_promotion_fits_tangent_dtype():
    x = np.float32(2.0)
    out, tout = jvp(lambda v: mnp.add(v, np.float64(1.0)), (x,), (np.float32(1.0),))
    assert out.dtype == np.float64
    assert tout.dtype == np.float64


def test_jvp_flat_keeps_symbolic_zeros():
    _, touts = jvp_flat(
        lambda a, b: [lax.sin(b), lax.mul(a, 2.0)], [1.0, 2.0], [Zero.from_value(1.0), 1.0]
    )
    assert touts[0] == pytest.approx(np.cos(2.0))
    assert type(touts[1]) is Zero


def test_zero_tangent_adds_no_work(monkeypatch):
    from mj_autodiff.extend import jvp_rules
    from mj_core.prims.elementwise import cos_p

    calls = []
    orig = jvp_rules[cos_p]
    monkeypatch.setitem(jvp_rules, cos_p, lambda *a, **k: calls.append(1) or orig(*a, **k))
    c = np.arange(3.0)
    jvp(lambda x: lax.add(lax.cos(c), x), (1.0,), (1.0,))
    assert calls == []


def test_errors_non_tuple_args():
    with pytest.raises(TypeError, match="must be tuples or lists"):
        jvp(lax.sin, 1.0, 1.0)


def test_errors_tree_mismatch():
    with pytest.raises(TypeError, match="same tree structure"):
        jvp(lambda a, b: a, (1.0, 2.0), (1.0,))


def test_errors_shape_mismatch():
    with pytest.raises(ValueError, match="different primal and tangent shapes"):
        jvp(lax.sin, (np.ones(3),), (np.ones(4),))


def test_errors_dtype_mismatch():
    with pytest.raises(TypeError, match="float32"):
        jvp(lax.sin, (np.ones(3, np.float32),), (np.ones(3),))
    with pytest.raises(TypeError, match="float0"):
        jvp(lambda k: k, (np.arange(3),), (np.ones(3),))


def test_leaked_jvp_tracer_names_the_transformation():
    leaked = []

    def g(x):
        leaked.append(x)
        return x

    jvp(g, (1.0,), (1.0,))
    with pytest.raises(TracerLeakError, match="jvp"):
        lax.sin(leaked[0])


def test_nested_jvp_no_perturbation_confusion():
    # d/dx [x * d/dy (x + y)] = d/dx [x * 1] = 1
    def outer(x):
        inner = jvp(lambda y: lax.add(x, y), (1.0,), (1.0,))[1]
        return lax.mul(x, inner)

    assert deriv(outer)(2.0) == 1.0
