"""Weak bools against JAX (issues 35/38), both x64 modes.

JAX types a primitive's output weakly exactly when all its operands are weak, whatever the
output's dtype: a comparison or a ``not`` of weak operands is a *weak bool* (``jnp.equal(1.0,
2.0)``, ``lax.lt(1, 2)``, ``jnp.isnan(2)``). Promotion, though, never gives a weak bool: a
weak bool promotes as a strong one (``wb + wb`` and ``where(c, wb, wb)`` are strong bools,
``wb + 1`` a weak int, ``wb * int8`` an int8, ``exp(wb)`` a strong float). mj's results must
have JAX's dtype, weak type and value eagerly, under ``jit`` (and in ``make_jaxpr``'s output
avals), under ``vmap``, and a gradient through a ``where`` on a weak bool must be JAX's.
"""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax as mlax

#: A case: ``f(numpy_module, lax_module)``, the same code for JAX and mj.
Case = Callable[[Any, Any], Any]


def _wb(np_: Any) -> Any:
    """A weak bool scalar (a comparison of Python floats)."""
    return np_.equal(1.0, 1.0)


def _wb_vec(np_: Any) -> Any:
    """A weak bool vector (a comparison of a weak float vector with a Python float)."""
    return np_.equal(np_.full(3, 1.0), 1.0)


CASES: dict[str, Case] = {
    # where weak bools come from
    "equal(1., 2.)": lambda np_, lax_: np_.equal(1.0, 2.0),
    "less(2, 0.5)": lambda np_, lax_: np_.less(2, 0.5),
    "greater_equal(i8, 2.5)": lambda np_, lax_: np_.greater_equal(np.array([1, 3], np.int8), 2.5),
    "equal(True, 2)": lambda np_, lax_: np_.equal(True, 2),
    "equal(True, False)": lambda np_, lax_: np_.equal(True, False),
    "equal(f32, 1.)": lambda np_, lax_: np_.equal(np.float32(1.0), 1.0),
    "lax.lt(1, 2)": lambda np_, lax_: lax_.lt(1, 2),
    "lax.ne(1., 1.)": lambda np_, lax_: lax_.ne(1.0, 1.0),
    "isnan(0.5)": lambda np_, lax_: np_.isnan(0.5),
    "isnan(2)": lambda np_, lax_: np_.isnan(2),
    "isinf(0.5)": lambda np_, lax_: np_.isinf(0.5),
    "isfinite(0.5)": lambda np_, lax_: np_.isfinite(0.5),
    "isfinite(2)": lambda np_, lax_: np_.isfinite(2),
    "signbit(2)": lambda np_, lax_: np_.signbit(2),
    "logical_not(0.5)": lambda np_, lax_: np_.logical_not(0.5),
    "weak float vector > 0": lambda np_, lax_: np_.full(3, 2.0) > 0,
    "logical_and(2, 0.5)": lambda np_, lax_: np_.logical_and(2, 0.5),
    "logical_or(weak vector, 0)": lambda np_, lax_: np_.logical_or(np_.full(2, 2.0), 0),
    "logical_not(weak vector)": lambda np_, lax_: np_.logical_not(np_.full(2, 2.0)),
    "isinf(weak vector)": lambda np_, lax_: np_.isinf(np_.full(2, 2.0)),
    # what a weak bool keeps
    "~wb": lambda np_, lax_: ~_wb(np_),
    "logical_not(wb)": lambda np_, lax_: np_.logical_not(_wb(np_)),
    "lax.bitwise_and(wb, wb)": lambda np_, lax_: lax_.bitwise_and(_wb(np_), _wb(np_)),
    "lax.max(wb, wb)": lambda np_, lax_: lax_.max(_wb(np_), _wb(np_)),
    "asarray(wb)": lambda np_, lax_: np_.asarray(_wb(np_)),
    "wb[None]": lambda np_, lax_: _wb(np_)[None],
    "broadcast_to(wb)": lambda np_, lax_: np_.broadcast_to(_wb(np_), (2,)),
    "zeros_like(wb)": lambda np_, lax_: np_.zeros_like(_wb(np_)),
    "full(2, wb)": lambda np_, lax_: np_.full(2, _wb(np_)),
    "isnan(wb)": lambda np_, lax_: np_.isnan(_wb(np_)),
    # what promotion makes of it: never a weak bool
    "wb & wb": lambda np_, lax_: _wb(np_) & _wb(np_),
    "wb + wb": lambda np_, lax_: _wb(np_) + _wb(np_),
    "wb == wb": lambda np_, lax_: _wb(np_) == _wb(np_),
    "logical_and(wb, wb)": lambda np_, lax_: np_.logical_and(_wb(np_), _wb(np_)),
    "maximum(wb, wb)": lambda np_, lax_: np_.maximum(_wb(np_), _wb(np_)),
    "where(wb, wb, wb)": lambda np_, lax_: np_.where(_wb(np_), _wb(np_), _wb(np_)),
    "stack([wb, wb])": lambda np_, lax_: np_.stack([_wb(np_), _wb(np_)]),
    "wb + 1": lambda np_, lax_: _wb(np_) + 1,
    "wb * 1.5": lambda np_, lax_: _wb(np_) * 1.5,
    "wb * int8": lambda np_, lax_: _wb(np_) * np.int8(3),
    "wb | True": lambda np_, lax_: _wb(np_) | True,
    "exp(wb)": lambda np_, lax_: np_.exp(_wb(np_)),
    "sum(wb vector)": lambda np_, lax_: np_.sum(_wb_vec(np_)),
    "wb.astype(int)": lambda np_, lax_: _wb(np_).astype(int),
    "where(wb, 1., 2.)": lambda np_, lax_: np_.where(_wb(np_), 1.0, 2.0),
    "power(wb, wb)": lambda np_, lax_: np_.power(_wb(np_), _wb(np_)),
    "power(2, wb)": lambda np_, lax_: np_.power(2, _wb(np_)),
}


class _Close:
    """A float value, equal to another within float32 rounding."""

    def __init__(self, value: Any) -> None:
        self.value = np.asarray(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Close) and np.allclose(self.value, other.value, rtol=1e-6)

    def __repr__(self) -> str:
        return repr(self.value)


def _outcome(out: Any) -> tuple[str, bool, Any]:
    value = np.asarray(out)
    shown = _Close(value) if value.dtype.kind in "fc" else value.tolist()
    return value.dtype.name, bool(out.weak_type), shown


@pytest.mark.parametrize("name", list(CASES))
def test_weak_bool_eager_and_jit(x64: bool, name: str) -> None:
    case = CASES[name]
    want = _outcome(case(jnp, jax.lax))
    assert _outcome(case(mnp, mlax)) == want, "eager"
    assert _outcome(mj.jit(lambda: case(mnp, mlax))()) == want, "jit"


#: Functions of traced arguments: (f(np_, x, y), x, y).
TRACED: dict[str, tuple[Callable[[Any, Any, Any], Any], Any, Any]] = {
    "x == y (floats)": (lambda np_, x, y: x == y, 1.0, 2.0),
    "x < y (ints)": (lambda np_, x, y: x < y, 1, 2),
    "~(x < y)": (lambda np_, x, y: ~(x < y), 1.0, 2.0),
    "(x < y) + 1": (lambda np_, x, y: (x < y) + 1, 1.0, 2.0),
    "(x < y) & (x < y)": (lambda np_, x, y: (x < y) & (x < y), 1.0, 2.0),
    "isnan(x) (int)": (lambda np_, x, y: np_.isnan(x), 3, 0),
    "x < y (i8 array, float)": (lambda np_, x, y: x < y, np.array([1, 5], np.int8), 2.5),
    "where(x < y, x, y)": (lambda np_, x, y: np_.where(x < y, x, y), 1.0, 2.0),
}


@pytest.mark.parametrize("name", list(TRACED))
def test_weak_bool_of_traced_operands(x64: bool, name: str) -> None:
    """Under ``jit`` (the result and ``make_jaxpr``'s output aval) and ``vmap`` (a weak
    float vector mapped against a Python scalar) as in JAX."""
    f, x, y = TRACED[name]
    want = _outcome(jax.jit(lambda a, b: f(jnp, a, b))(x, y))
    assert _outcome(mj.jit(lambda a, b: f(mnp, a, b))(x, y)) == want, "jit"
    (want_aval,) = jax.make_jaxpr(lambda a, b: f(jnp, a, b))(x, y).out_avals
    (got_aval,) = mj.make_jaxpr(lambda a, b: f(mnp, a, b))(x, y).out_avals
    assert (got_aval.dtype, got_aval.weak_type) == (want_aval.dtype, want_aval.weak_type)
    xs = np.array([1.0, 2.0, 3.0])  # a float64 vector: each example a strong float
    want = _outcome(jax.vmap(lambda a: f(jnp, a, y))(jnp.asarray(xs)))
    assert _outcome(mj.vmap(lambda a: f(mnp, a, y))(mnp.asarray(xs))) == want, "vmap strong"
    want = _outcome(jax.vmap(lambda a: f(jnp, a * 1.0, y))(jnp.full(3, 2.0)))
    got = mj.vmap(lambda a: f(mnp, a * 1.0, y))(mnp.full(3, 2.0))
    assert _outcome(got) == want, "vmap weak"


GRADS: dict[str, Callable[[Any, Any], Any]] = {
    "where(x > 0, x, 0.)": lambda np_, x: np_.where(x > 0, x, 0.0),
    "where(x > 0, x * x, 0.)": lambda np_, x: np_.where(x > 0, x * x, 0.0),
    "where(isnan(x), 0., sin(x))": lambda np_, x: np_.where(np_.isnan(x), 0.0, np_.sin(x)),
    "where(~(x < 1.), x, -x)": lambda np_, x: np_.where(~(x < 1.0), x, -x),
    "x * (x > 0)": lambda np_, x: x * (x > 0),
    "x * (x > 0) + (x > 0)": lambda np_, x: x * (x > 0) + (x > 0),
}


@pytest.mark.parametrize("x", [0.7, -0.5])
@pytest.mark.parametrize("name", list(GRADS))
def test_grad_through_a_weak_bool(x64: bool, name: str, x: float) -> None:
    """The gradient at a Python float (JAX's is weak) through a where on a weak bool, or
    through a weak bool made a number, eagerly and under ``jit``."""
    f = GRADS[name]
    want = _outcome(jax.grad(lambda a: f(jnp, a))(x))
    assert _outcome(mj.grad(lambda a: f(mnp, a))(x)) == want, "grad"
    assert _outcome(mj.jit(mj.grad(lambda a: f(mnp, a)))(x)) == want, "jit(grad)"
    want = _outcome(jax.vmap(jax.grad(lambda a: f(jnp, a)))(jnp.full(2, x)))
    assert _outcome(mj.vmap(mj.grad(lambda a: f(mnp, a)))(mnp.full(2, x))) == want, "vmap"
