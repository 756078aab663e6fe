"""vmap of control flow against Python loops over the examples: batched operands, batched
predicates and indices, batched loop bounds, and composition with grad."""

import numpy as np
import pytest

from mj_autodiff import grad
from mj_batch import vmap
from mj_control import cond, fori_loop, scan, switch, while_loop
from mj_core import lax

RNG = np.random.default_rng(0)


def _per_example(f, *args, in_axes=0):
    """f applied to each example separately (the reference for vmap)."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    n = next(np.shape(a)[ax] for a, ax in zip(args, axes, strict=True) if ax is not None)
    outs = []
    for i in range(n):
        ex = [a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, axes, strict=True)]
        outs.append(f(*ex))
    if isinstance(outs[0], tuple):
        return tuple(np.stack(o) for o in zip(*outs, strict=True))
    return np.stack(outs)


def _close(a, b):
    if isinstance(b, tuple):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(np.asarray(x), y, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-10, atol=1e-12)


def test_autodidax_vmap_cond():
    out = vmap(lambda x: cond(True, lambda: x + 1.0, lambda: 0.0), (0,))(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(out, [2.0, 3.0, 4.0])


def _branchy(x, y):
    return cond(lax.reduce_sum(x, (0,)) > 0, lambda x: x * y, lambda x: lax.sin(x) - y, x)


def test_cond_batched_predicate_selects_per_example():
    xs = RNG.normal(size=(6, 3))
    _close(
        vmap(_branchy, in_axes=(0, None))(xs, 2.0),
        _per_example(_branchy, xs, 2.0, in_axes=(0, None)),
    )


def test_cond_unbatched_predicate_batched_operand():
    ys = RNG.normal(size=5)

    def f(y):
        return cond(True, lambda y: y * 3.0, lambda y: y, y)

    _close(vmap(f)(ys), ys * 3.0)
    x = np.ones(3)
    _close(
        vmap(_branchy, in_axes=(None, 0))(x, ys), _per_example(_branchy, x, ys, in_axes=(None, 0))
    )


def test_cond_batched_on_other_axis_with_pytrees():
    xs = RNG.normal(size=(3, 4))

    def f(x):
        out = cond(x[0] > 0, lambda x: {"a": x * 2.0, "b": x[1]}, lambda x: {"a": -x, "b": x[2]}, x)
        return out["a"], out["b"]

    _close(vmap(f, in_axes=1)(xs), _per_example(f, xs, in_axes=1))


@pytest.mark.parametrize("index_batched", [True, False])
def test_switch_batched_index_and_operands(index_batched):
    branches = [lambda x: x + 1.0, lambda x: x * x, lambda x: -x]
    idx = np.array([0, 2, 1, 7, -3]) if index_batched else 1
    xs = RNG.normal(size=5)

    def f(i, x):
        return switch(i, branches, x)

    in_axes = (0 if index_batched else None, 0)
    _close(vmap(f, in_axes=in_axes)(idx, xs), _per_example(f, idx, xs, in_axes=in_axes))


def test_while_batched_predicate_freezes_finished_examples():
    limits = np.array([0, 1, 4, 2, 7])

    def f(limit, x):
        return while_loop(lambda c: c[0] < limit, lambda c: (c[0] + 1, c[1] * 1.5 + 1.0), (0, x))

    xs = RNG.normal(size=5)
    _close(vmap(f)(limits, xs), _per_example(f, limits, xs))


def test_newton_sqrt_vmap():
    def newton_sqrt(a):
        def body(c):
            _, x = c
            return x, 0.5 * (x + a / x)

        return while_loop(lambda c: lax.abs(c[0] - c[1]) > 1e-12, body, (a, 0.5 * (a + 1.0)))[1]

    a = np.array([1.0, 2.0, 3.0, 4.0, 100.0])
    _close(vmap(newton_sqrt)(a), np.sqrt(a))


def test_while_batched_body_constant_only():
    xs = RNG.normal(size=4)

    def f(x):
        return while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + x), (0, 0.0))

    _close(vmap(f)(xs), _per_example(f, xs))


def test_fori_loop_batched_traced_bounds():
    ns = np.array([3, 0, 5])

    def f(n):
        return fori_loop(0, n, lambda i, c: c + i * 2.0, 1.0)

    _close(vmap(f)(ns), np.array([1.0 + 6.0, 1.0, 1.0 + 20.0]))


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_batched_xs_init_and_consts(reverse):
    xs = RNG.normal(size=(4, 6, 2))  # batch 4, length 6
    inits = RNG.normal(size=(4, 2))
    a = RNG.normal(size=4)

    def f(x, init, a):
        return scan(lambda c, t: (lax.tanh(c * a + t), c * t), init, x, reverse=reverse)

    _close(vmap(f)(xs, inits, a), _per_example(f, xs, inits, a))
    # batch axis of xs in the middle
    xs_mid = np.moveaxis(xs, 0, 1)
    _close(vmap(f, in_axes=(1, 0, 0))(xs_mid, inits, a), _per_example(f, xs, inits, a))


def test_scan_only_const_batched():
    a = RNG.normal(size=3)
    xs = np.arange(5.0)

    def f(a):
        return scan(lambda c, t: (c + t * a, c), 0.0, xs)

    _close(vmap(f)(a), _per_example(f, a))


def test_vmap_of_grad_through_scan_per_example_gradients():
    xs = RNG.normal(size=(5, 7))

    def loss(w, x):
        c, ys = scan(lambda c, t: (lax.sin(c * w) + t, c * c), 0.1, x)
        return c + lax.reduce_sum(ys, (0,))

    ws = np.array(0.3)
    per_example = vmap(grad(loss), in_axes=(None, 0))(ws, xs)
    expected = np.array([grad(loss)(ws, x) for x in xs])
    np.testing.assert_allclose(per_example, expected, rtol=1e-10)
