"""jacfwd, jacrev, hessian, and vmap composed with the autodiff transformations."""

from __future__ import annotations

import numpy as np
import pytest

from mj_autodiff import grad, jvp, value_and_grad, vjp
from mj_batch import hessian, jacfwd, jacrev, vmap
from mj_core import lax

RNG = np.random.default_rng(2)


def numerical_jacobian(fun, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central finite differences: shape out.shape + x.shape."""
    y0 = np.asarray(fun(x))
    jac = np.zeros(y0.shape + x.shape)
    for idx in np.ndindex(*x.shape):
        dx = np.zeros_like(x)
        dx[idx] = eps
        jac[(..., *idx)] = (np.asarray(fun(x + dx)) - np.asarray(fun(x - dx))) / (2 * eps)
    return jac


def test_autodidax_jacfwd_of_sin() -> None:
    x = np.arange(3.0)
    np.testing.assert_allclose(jacfwd(lax.sin)(x), np.diag(np.cos(x)), atol=1e-15)
    np.testing.assert_allclose(jacrev(lax.sin)(x), np.diag(np.cos(x)), atol=1e-15)


def _random_program(seed: int):
    """A random composition of elementwise primitives of two (2, 3) inputs, two outputs."""
    rng = np.random.default_rng(seed)
    unary = [lax.sin, lax.cos, lax.tanh, lambda a: lax.exp(a * 0.3), lambda a: a * a]
    binary = [lax.add, lax.sub, lax.mul, lambda a, b: a * lax.cos(b)]
    steps = [
        (int(rng.integers(2)), int(rng.integers(len(unary))), int(rng.integers(len(binary))))
        for _ in range(6)
    ]

    def fun(x, y):
        pool = [x, y]
        for pick, u, b in steps:
            a = pool[-1 - pick]
            pool.append(binary[b](unary[u](a), pool[pick]))
        return {"first": pool[-1], "second": pool[-2] * 2.0}

    return fun


@pytest.mark.parametrize("seed", range(6))
def test_jacfwd_equals_jacrev_on_random_functions(seed: int) -> None:
    fun = _random_program(seed)
    x, y = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))
    fwd = jacfwd(fun, argnums=(0, 1))(x, y)
    rev = jacrev(fun, argnums=(0, 1))(x, y)
    for key in ("first", "second"):
        for k in range(2):
            assert fwd[key][k].shape == (2, 3, 2, 3)
            np.testing.assert_allclose(fwd[key][k], rev[key][k], rtol=1e-10, atol=1e-12)
    numeric = numerical_jacobian(lambda a: fun(a, y)["first"], x)
    np.testing.assert_allclose(fwd["first"][0], numeric, rtol=1e-6, atol=1e-8)


def test_jacobian_layout_with_pytree_inputs() -> None:
    params = {"w": RNG.normal(size=(3,)), "b": RNG.normal()}

    def fun(p, x):
        return lax.tanh(p["w"] * x + p["b"])

    x = RNG.normal(size=(3,))
    for jac_fn in (jacfwd, jacrev):
        jac = jac_fn(fun)(params, x)
        assert set(jac) == {"b", "w"}
        assert jac["w"].shape == (3, 3)
        assert jac["b"].shape == (3,)
        d = 1 - np.tanh(params["w"] * x + params["b"]) ** 2
        np.testing.assert_allclose(jac["w"], np.diag(d * x), atol=1e-14)
        np.testing.assert_allclose(jac["b"], d, atol=1e-14)


def test_jacobian_of_scalar_function_and_scalar_input() -> None:
    for jac_fn in (jacfwd, jacrev):
        np.testing.assert_allclose(jac_fn(lambda a: a * a * a)(2.0), 12.0)
        g = jac_fn(lambda a: lax.reduce_sum(a * a, (0, 1)))(np.ones((2, 2)))
        assert g.shape == (2, 2)
        np.testing.assert_allclose(g, 2 * np.ones((2, 2)))


def _with_aux(a):
    return lax.sin(a), {"aux": a * 3.0}


def test_jacfwd_has_aux() -> None:
    x = np.arange(3.0)
    jac, aux = jacfwd(_with_aux, has_aux=True)(x)
    np.testing.assert_allclose(jac, np.diag(np.cos(x)), atol=1e-15)
    np.testing.assert_allclose(aux["aux"], x * 3.0)


def test_jacrev_has_aux() -> None:
    x = np.arange(3.0)
    jac, aux = jacrev(_with_aux, has_aux=True)(x)
    np.testing.assert_allclose(jac, np.diag(np.cos(x)), atol=1e-15)
    np.testing.assert_allclose(aux["aux"], x * 3.0)


def test_hessian_of_elementwise_function() -> None:
    x = RNG.normal(size=(4,))

    def fun(a):
        return lax.reduce_sum(lax.sin(a) * a, (0,))

    h = hessian(fun)(x)
    expected = np.diag(2 * np.cos(x) - x * np.sin(x))
    np.testing.assert_allclose(h, expected, atol=1e-12)


def test_hessian_of_quadratic_form_is_a_plus_a_transpose() -> None:
    a = RNG.normal(size=(4, 4))

    def quad(x):
        return lax.dot(x, lax.dot(a, x))

    np.testing.assert_allclose(hessian(quad)(RNG.normal(size=(4,))), a + a.T, rtol=1e-12)


def test_integer_inputs_are_rejected() -> None:
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs"):
        jacfwd(lambda a: a * 2)(np.arange(3))
    with pytest.raises(TypeError, match="jacrev requires real- or complex-valued inputs"):
        jacrev(lambda a: a * 2)(np.arange(3))
    with pytest.raises(ValueError, match="argnums"):
        jacfwd(lambda a: a, argnums=2)(1.0)


# --- vmap composed with autodiff -------------------------------------------------------------


def test_vmap_of_grad_is_per_example_gradients() -> None:
    w = RNG.normal(size=(3,))
    xs = RNG.normal(size=(5, 3))

    def loss(w, x):
        return lax.reduce_sum(lax.tanh(w * x), (0,))

    per_example = vmap(grad(loss), in_axes=(None, 0))(w, xs)
    expected = (1 - np.tanh(w * xs) ** 2) * xs
    np.testing.assert_allclose(per_example, expected, rtol=1e-12)


def test_grad_of_vmap() -> None:
    xs = RNG.normal(size=(5,))

    def total(xs):
        return lax.reduce_sum(vmap(lambda a: lax.sin(a) * a)(xs), (0,))

    np.testing.assert_allclose(grad(total)(xs), np.cos(xs) * xs + np.sin(xs), rtol=1e-12)


def test_vmap_of_jvp_and_jvp_of_vmap_agree() -> None:
    x = RNG.normal(size=(4, 3))
    t = RNG.normal(size=(4, 3))

    def fun(a):
        return lax.exp(lax.sin(a)) * a

    a = vmap(lambda p, d: jvp(fun, (p,), (d,)))(x, t)
    b = jvp(vmap(fun), (x,), (t,))
    for u, v in zip(a, b, strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-12)
    np.testing.assert_allclose(b[1], np.exp(np.sin(x)) * (np.cos(x) * x + 1) * t, rtol=1e-12)


def test_vmap_of_vjp_pullback() -> None:
    x = RNG.normal(size=(3,))
    _, pullback = vjp(lax.sin, x)
    cts = RNG.normal(size=(4, 3))
    (out,) = vmap(pullback)(cts)
    np.testing.assert_allclose(out, cts * np.cos(x), rtol=1e-12)


def test_vmap_of_value_and_grad_with_batched_and_shared_args() -> None:
    def loss(w, x):
        return lax.reduce_sum(w * w * x, (0,))

    w = RNG.normal(size=(3,))
    xs = RNG.normal(size=(6, 3))
    vals, grads = vmap(value_and_grad(loss), in_axes=(None, 0))(w, xs)
    np.testing.assert_allclose(vals, (w * w * xs).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(grads, 2 * w * xs, rtol=1e-12)


def test_nested_vmap_of_grad() -> None:
    xs = RNG.normal(size=(2, 3))
    out = vmap(vmap(grad(lambda a: lax.sin(a) * a)))(xs)
    np.testing.assert_allclose(out, np.cos(xs) * xs + np.sin(xs), rtol=1e-12)


def test_per_example_gradients_of_a_linear_model() -> None:
    w, b = RNG.normal(size=(6, 4)), RNG.normal(size=(4,))
    xs, ys = RNG.normal(size=(8, 6)), RNG.normal(size=(8, 4))

    def loss(params, x, y):
        err = lax.dot(x, params["w"]) + params["b"] - y
        return lax.reduce_sum(err * err, (0,))

    g = vmap(grad(loss), in_axes=(None, 0, 0))({"w": w, "b": b}, xs, ys)
    err = xs @ w + b - ys
    np.testing.assert_allclose(g["w"], 2 * xs[:, :, None] * err[:, None, :], rtol=1e-12)
    np.testing.assert_allclose(g["b"], 2 * err, rtol=1e-12)
    # the same as a Python loop over examples
    for i in (0, 7):
        gi = grad(loss)({"w": w, "b": b}, xs[i], ys[i])
        np.testing.assert_allclose(g["w"][i], gi["w"], rtol=1e-12)


def test_jacobians_of_a_matrix_function() -> None:
    a = RNG.normal(size=(3, 4))

    def fun(m):  # (4, 2) -> (3, 2)
        return lax.tanh(lax.dot(a, m))

    m = RNG.normal(size=(4, 2))
    fwd, rev = jacfwd(fun)(m), jacrev(fun)(m)
    assert fwd.shape == (3, 2, 4, 2)
    np.testing.assert_allclose(fwd, rev, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fwd, numerical_jacobian(fun, m), rtol=1e-6, atol=1e-8)
