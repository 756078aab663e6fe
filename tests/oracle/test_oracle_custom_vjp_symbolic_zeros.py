"""custom_vjp with ``symbolic_zeros=True`` staged (jit, scan, while_loop, vmap) and then
differentiated: fwd sees which inputs are perturbed and bwd sees which output cotangents are
symbolic zeros as in JAX (equinox's test_nested_loops, issue 36); typed keys' zero
cotangents are ``SymbolicZero`` objects of dtype float0 (random_test's
test_keyarray_custom_vjp_symbolic_zeros, issue 35); forward mode through one is JAX's
TypeError under jit too. Each compared with JAX."""

import jax
import numpy as np
import pytest

import mj

pytestmark = pytest.mark.oracle


def _lib_parts(lib):
    return lib, lib.numpy, lib.lax


def _make_f(lib, log):
    """f(x, y) = (x * y, x + y) with a symbolic-zeros rule recording what it sees."""

    @lib.custom_vjp
    def f(x, y):
        return x * y, x + y

    def fwd(x, y):
        log.append(("fwd", x.perturbed, y.perturbed))
        # a Python bool residual, as equinox keeps its perturbed flags
        return f(x.value, y.value), (x.value, y.value, y.perturbed)

    def bwd(res, ct):
        x, y, y_perturbed = res
        a, b = ct
        zero = lib.custom_derivatives.SymbolicZero
        log.append(("bwd", type(a) is zero, type(b) is zero))
        ca = 0.0 if type(a) is zero else a
        cb = 0.0 if type(b) is zero else b
        return ca * y + cb, (ca * x + cb) if y_perturbed is True else None

    f.defvjp(fwd, bwd, symbolic_zeros=True)
    return f


def _scan_f(lib, f):
    def run(x, y):
        def body(c, _):
            a, b = c
            return (f(a, b)[0], b), None

        return lib.lax.scan(body, (x, y), None, length=3)[0][0]

    return run


def _nested_scan_f(lib, f):
    def run(x, y):
        def inner(c, _):
            return (f(c[0], c[1])[0] * 0.5, c[1]), None

        def outer(c, _):
            return lib.lax.scan(inner, c, None, length=2)[0], None

        return lib.lax.scan(outer, (x, y), None, length=2)[0][0]

    return run


_CASES = {
    "eager_grad_x": lambda lib, f: lib.grad(lambda x, y: f(x, y)[0])(2.0, 3.0),
    "eager_grad_y": lambda lib, f: lib.grad(lambda x, y: f(x, y)[1], 1)(2.0, 3.0),
    "jit_grad_x": lambda lib, f: lib.jit(lib.grad(lambda x, y: f(x, y)[0]))(2.0, 3.0),
    "grad_of_jit": lambda lib, f: lib.grad(lib.jit(lambda x, y: f(x, y)[0]))(2.0, 3.0),
    "grad_jit_inside": lambda lib, f: lib.grad(lambda x, y: lib.jit(f)(x, y)[0])(2.0, 3.0),
    "grad_both": lambda lib, f: lib.grad(lambda x, y: f(x, y)[0], (0, 1))(2.0, 3.0),
    "grad_scan_x": lambda lib, f: lib.grad(_scan_f(lib, f))(2.0, 3.0),
    "grad_scan_y": lambda lib, f: lib.grad(_scan_f(lib, f), 1)(2.0, 3.0),
    "grad_jit_scan_x": lambda lib, f: lib.grad(lib.jit(_scan_f(lib, f)))(2.0, 3.0),
    "grad_nested_scan_x": lambda lib, f: lib.grad(_nested_scan_f(lib, f))(2.0, 3.0),
    "grad_cond": lambda lib, f: lib.grad(
        lambda x, y: lib.lax.cond(True, lambda x: f(x, y)[0], lambda x: x, x)
    )(2.0, 3.0),
    "grad_vmap": lambda lib, f: lib.grad(
        lambda x, y: lib.vmap(lambda a: f(a, y)[0])(lib.numpy.stack([x, 2 * x])).sum()
    )(2.0, 3.0),
    "grad_jit_vmap": lambda lib, f: lib.grad(
        lib.jit(lambda x, y: lib.vmap(lambda a: f(a, y)[0])(lib.numpy.stack([x, 2 * x])).sum())
    )(2.0, 3.0),
    "vmap_grad_jit": lambda lib, f: lib.vmap(lib.grad(lib.jit(lambda a: f(a, 3.0)[0])))(
        lib.numpy.array([1.0, 2.0])
    ),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_symbolic_zeros_seen_by_rules_as_jax(x64, case):
    def run(lib):
        log = []
        value = _CASES[case](lib, _make_f(lib, log))
        # JAX may trace bwd more than once (cond); what each call sees is what matters
        return [np.asarray(v) for v in jax.tree_util.tree_leaves(value)], sorted(set(log))

    got, got_log = run(mj)
    want, want_log = run(jax)
    assert got_log == want_log
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_fwd_sees_unperturbed_carry_in_loop_under_jvp_as_jax(x64):
    # forward mode through a loop whose body calls a custom_vjp function: JAX's error, after
    # fwd saw the loop-invariant carry as not perturbed
    def run(lib):
        log = []
        f = _make_f(lib, log)

        def body(c):
            a, b, i = c
            return f(a, b)[0], b, i + 1

        def g(a):
            return lib.lax.while_loop(lambda c: c[2] < 3, body, (a, 3.0, 0))[0]

        with pytest.raises(TypeError) as info:
            lib.jvp(g, (2.0,), (1.0,))
        return log, str(info.value)

    got_log, got_msg = run(mj)
    want_log, want_msg = run(jax)
    assert got_log == want_log
    assert got_msg.startswith(want_msg.rstrip("."))


@pytest.mark.parametrize("where", ["eager", "jit", "jit_inside"])
def test_jvp_of_custom_vjp_is_jax_type_error(x64, where):
    def run(lib):
        f = _make_f(lib, [])

        def g(x):
            return f(x, 3.0)[0]

        fun = {"eager": g, "jit": lib.jit(g), "jit_inside": lambda x: lib.jit(g)(x)}[where]
        with pytest.raises(TypeError) as info:
            lib.jvp(fun, (2.0,), (1.0,))
        return str(info.value)

    want = run(jax)
    assert run(mj).startswith(want)


@pytest.mark.parametrize("jit", [False, True])
def test_key_cotangent_is_symbolic_zero_of_float0_as_jax(x64, jit):
    # random_test's test_keyarray_custom_vjp_symbolic_zeros, and what fwd sees for a key
    def run(lib):
        seen = []

        @lib.custom_vjp
        def f(_, state):
            return state

        def fwd(theta, state):
            key = state[1]
            seen.append(("fwd", type(key).__name__, key.perturbed, str(key.value.dtype)))
            seen.append(("fwd_theta", theta.perturbed, state[0].perturbed))
            return lib.tree.map(lambda x: x.value, state), None

        def bwd(_, state_bar):
            ct = state_bar[1]
            zero = lib.custom_derivatives.SymbolicZero
            seen.append(("bwd", isinstance(ct, zero), str(ct.dtype), tuple(ct.shape)))
            seen.append(("bwd0", isinstance(state_bar[0], zero)))
            return state_bar[0], state_bar

        f.defvjp(fwd, bwd, symbolic_zeros=True)
        keys = lib.random.split(lib.random.key(123), 3)
        grad = lib.grad(lambda theta, keys: f(theta, (8.0, keys))[0])
        if jit:
            grad = lib.jit(grad)
        return float(grad(3.0, keys)), seen

    assert run(mj) == run(jax)
