"""mj.lax.custom_root and mj.lax.custom_linear_solve: values and implicit derivatives (never
through the solver's while_loop iterations) against closed forms and central differences,
eagerly, through make_jaxpr/eval_jaxpr and under jit and vmap. Includes seed 004's
fixed-point / Newton square-root example written with custom_root."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax

# --- custom_root ----------------------------------------------------------------------------------


def scalar_solve(g, y):
    return y / g(1.0)


def newton(f, x0):
    """Newton's method in a while_loop: not reverse-differentiable, so only custom_root's
    implicit rule can give derivatives."""

    def cond(x):
        return mnp.abs(f(x)) > 1e-13

    def body(x):
        return x - f(x) / mj.grad(f)(x)

    return lax.while_loop(cond, body, x0)


def newton_sqrt(a):
    return lax.custom_root(lambda x: x**2 - a, 1.0, newton, scalar_solve)


def fixed_point(f, a, x_guess):
    """Seed 004's fixed_point, as the root of ``x - f(a, x)``."""

    def solve(g, x0):
        def cond(carry):
            x_prev, x = carry
            return mnp.abs(x_prev - x) > 1e-12

        def body(carry):
            _, x = carry
            return x, x - g(x)

        return lax.while_loop(cond, body, (x0, x0 - g(x0)))[1]

    return lax.custom_root(lambda x: x - f(a, x), x_guess, solve, scalar_solve)


def seed_newton_sqrt(a):
    return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)


@pytest.mark.parametrize("sqrt", [newton_sqrt, seed_newton_sqrt])
def test_root_values_and_derivatives(sqrt):
    np.testing.assert_allclose(sqrt(2.0), np.sqrt(2.0), rtol=1e-14)
    np.testing.assert_allclose(mj.grad(sqrt)(2.0), 0.5 / np.sqrt(2.0), rtol=1e-12)
    np.testing.assert_allclose(mj.grad(mj.grad(sqrt))(2.0), -0.25 * 2.0**-1.5, rtol=1e-10)
    _, tangent = mj.jvp(sqrt, (4.0,), (3.0,))
    np.testing.assert_allclose(tangent, 3.0 * 0.25, rtol=1e-12)


def test_seed_jit_vmap():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(mj.jit(mj.vmap(seed_newton_sqrt))(a), np.sqrt(a), rtol=1e-13)
    np.testing.assert_allclose(
        mj.jit(mj.vmap(mj.grad(seed_newton_sqrt)))(a), 0.5 / np.sqrt(a), rtol=1e-11
    )


def test_root_same_program_same_answer():
    eager = mj.grad(newton_sqrt)(3.0)
    closed = mj.make_jaxpr(mj.grad(newton_sqrt))(3.0)
    (staged,) = mj.eval_jaxpr(closed, [3.0])
    jitted = mj.jit(mj.grad(newton_sqrt))(3.0)
    assert np.asarray(staged).dtype == np.asarray(jitted).dtype == np.float64
    np.testing.assert_allclose([staged, jitted], [eager, eager], rtol=1e-13)


def test_vector_root_with_aux_and_tangent_solve_by_jacobian():
    # x solves A x = tanh(x) + c elementwise coupled system; derivative w.r.t. c by the
    # implicit function theorem: dx/dc = (A - diag(1 - tanh(x)^2))^-1
    a_mat = np.array([[3.0, 0.5], [0.2, 4.0]])

    def root(c):
        def f(x):
            return mnp.dot(a_mat, x) - mnp.tanh(x) - c

        def solve(f, x0):
            def body(carry):
                x, n = carry
                return x - mnp.linalg.solve(mj.jacfwd(f)(x), f(x)), n + 1

            def cond(carry):
                return mnp.max(mnp.abs(f(carry[0]))) > 1e-13

            return lax.while_loop(cond, body, (x0, 0))

        def tangent_solve(g, y):
            return mnp.linalg.solve(mj.jacfwd(g)(y), y)

        return lax.custom_root(f, mnp.zeros(2), solve, tangent_solve, has_aux=True)

    c = np.array([0.7, -1.1])
    (x, iterations) = root(c)
    np.testing.assert_allclose(a_mat @ np.asarray(x) - np.tanh(x), c, atol=1e-12)
    assert int(iterations) > 0
    jac = mj.jacfwd(lambda c: root(c)[0])(c)
    expected = np.linalg.inv(a_mat - np.diag(1 - np.tanh(np.asarray(x)) ** 2))
    np.testing.assert_allclose(jac, expected, rtol=1e-10)
    np.testing.assert_allclose(mj.jacrev(lambda c: root(c)[0])(c), expected, rtol=1e-10)
    np.testing.assert_allclose(mj.jit(lambda c: root(c)[0])(c), x, rtol=1e-13)


def test_root_checks_tree_structure():
    with pytest.raises(TypeError, match=r"f\(\) output pytree structure must match"):
        lax.custom_root(lambda x: (x, x), 1.0, newton, scalar_solve)
    with pytest.raises(ValueError, match="has_aux was set to True"):
        lax.custom_root(lambda x: x - 1.0, 1.0, newton, scalar_solve, has_aux=True)


# --- custom_linear_solve --------------------------------------------------------------------------

A0 = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 2.0, 5.0]])
S0 = A0 + A0.T  # symmetric positive definite
B0 = np.array([1.0, 2.0, 3.0])


def dense_solve(matvec, b):
    return mnp.linalg.solve(mj.jacfwd(matvec)(b), b)


def conjugate_gradient(matvec, b):
    """CG in a while_loop (not differentiable in reverse mode by itself)."""

    def cond(carry):
        _, r, _, k = carry
        return (mnp.sum(r * r) > 1e-28) & (k < 50)

    def body(carry):
        x, r, p, k = carry
        ap = matvec(p)
        alpha = mnp.sum(r * r) / mnp.sum(p * ap)
        x, r_new = x + alpha * p, r - alpha * ap
        p = r_new + mnp.sum(r_new * r_new) / mnp.sum(r * r) * p
        return x, r_new, p, k + 1

    x0 = mnp.zeros_like(b)
    return lax.while_loop(cond, body, (x0, b, b, 0))[0]


def solve_general(a, b):
    return lax.custom_linear_solve(lambda x: mnp.dot(a, x), b, dense_solve, dense_solve)


def solve_spd(a, b):
    return lax.custom_linear_solve(lambda x: mnp.dot(a, x), b, conjugate_gradient, symmetric=True)


def _loss(solver):
    return lambda a, b: mnp.sum(solver(a, b) ** 2)


def _numeric_grads(a, b):
    def ref(a, b):
        return np.sum(np.linalg.solve(a, b) ** 2)

    eps = 1e-6
    ga = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[idx] = eps
        ga[idx] = (ref(a + e, b) - ref(a - e, b)) / (2 * eps)
    gb = np.array([(ref(a, b + eps * e) - ref(a, b - eps * e)) / (2 * eps) for e in np.eye(len(b))])
    return ga, gb


@pytest.mark.parametrize(("solver", "a"), [(solve_general, A0), (solve_spd, S0)])
def test_linear_solve_values_and_grads(solver, a):
    np.testing.assert_allclose(solver(a, B0), np.linalg.solve(a, B0), rtol=1e-12)
    ga, gb = mj.grad(_loss(solver), argnums=(0, 1))(a, B0)
    na, nb = _numeric_grads(a, B0)
    np.testing.assert_allclose(gb, nb, rtol=1e-7)
    if solver is solve_general:  # the symmetric one differentiates within the symmetric family
        np.testing.assert_allclose(ga, na, rtol=1e-6, atol=1e-9)
    jit_ga, jit_gb = mj.jit(mj.grad(_loss(solver), argnums=(0, 1)))(a, B0)
    np.testing.assert_allclose(jit_ga, ga, rtol=1e-11)
    np.testing.assert_allclose(jit_gb, gb, rtol=1e-11)


def test_linear_solve_jvp_is_a_solve():
    da = np.array([[0.1, 0.0, 0.2], [0.0, -0.3, 0.0], [0.5, 0.0, 0.1]])
    db = np.array([1.0, -1.0, 0.5])
    _, tangent = mj.jvp(solve_general, (A0, B0), (da, db))
    x = np.linalg.solve(A0, B0)
    np.testing.assert_allclose(tangent, np.linalg.solve(A0, db - da @ x), rtol=1e-12)


def test_linear_solve_vmap():
    bs = np.stack([B0, 2 * B0, B0 + 1])
    as_ = np.stack([A0, A0 + np.eye(3), 2 * A0])
    expected = np.stack([np.linalg.solve(a, b) for a, b in zip(as_, bs, strict=True)])
    np.testing.assert_allclose(mj.vmap(solve_general)(as_, bs), expected, rtol=1e-12)
    np.testing.assert_allclose(
        mj.vmap(solve_general, in_axes=(None, 0))(A0, bs), np.linalg.solve(A0, bs.T).T, rtol=1e-12
    )
    np.testing.assert_allclose(
        mj.jit(mj.vmap(solve_spd, in_axes=(0, None)))(np.stack([S0, 2 * S0]), B0),
        [np.linalg.solve(S0, B0), np.linalg.solve(2 * S0, B0)],
        rtol=1e-10,
    )
    grads = mj.vmap(mj.grad(_loss(solve_general), argnums=1))(as_, bs)
    for a, b, g in zip(as_, bs, grads, strict=True):
        np.testing.assert_allclose(g, _numeric_grads(a, b)[1], rtol=1e-7)


def test_linear_solve_same_program_same_answer():
    f = mj.grad(_loss(solve_general), argnums=1)
    eager = f(A0, B0)
    (staged,) = mj.eval_jaxpr(mj.make_jaxpr(f)(A0, B0), [A0, B0])
    np.testing.assert_allclose(staged, eager, rtol=1e-13)
    np.testing.assert_allclose(mj.jit(f)(A0, B0), eager, rtol=1e-12)


def test_linear_solve_pytree_and_aux():
    def matvec(x):
        return {"u": 2.0 * x["u"], "v": x["v"] + x["u"][0]}

    def solve(mv, b):
        u = b["u"] / 2.0
        return {"u": u, "v": b["v"] - u[0]}, 7

    b = {"u": np.array([2.0, 4.0]), "v": np.array(3.0)}
    x, aux = lax.custom_linear_solve(matvec, b, solve, has_aux=True)
    np.testing.assert_allclose(x["u"], [1.0, 2.0])
    np.testing.assert_allclose(x["v"], 2.0)
    assert int(aux) == 7


def test_linear_solve_needs_transpose_solve_for_grad():
    def f(b):
        return mnp.sum(lax.custom_linear_solve(lambda x: mnp.dot(A0, x), b, dense_solve))

    _, tangent = mj.jvp(f, (B0,), (np.ones(3),))
    np.testing.assert_allclose(tangent, np.sum(np.linalg.solve(A0, np.ones(3))), rtol=1e-12)
    with pytest.raises(TypeError, match="transpose_solve required"):
        mj.grad(f)(B0)


def test_linear_solve_checks_shapes():
    with pytest.raises(ValueError, match=r"solve\(\) output shapes must match b"):
        lax.custom_linear_solve(lambda x: x, B0, lambda mv, b: b[:2])
