"""The jaxpr interpreter JAX users write (issue 37), run by JAX on JAX's jaxprs and by mj on
mj's, gives the same values in both dtype modes: constants (constvars), literals, multiple
results, cond, scan, while, custom_jvp, custom_vjp, a nested jit; and seed 004's ``inverse``
interpreter under ``jit(vmap(grad(.)))``. Where the equations are the same, mj's
``pretty_print()`` is JAX's text for the jaxpr."""

from functools import wraps

import jax
import jax.extend.core
import numpy as np
import pytest

import mj
import mj.extend.core


def user_eval_jaxpr(core, jaxpr, consts, *args, bind_params=False):
    """The loop of JAX's "Writing custom Jaxpr interpreters" page, verbatim but for
    ``core`` (``jax.extend.core`` or ``mj.extend.core``). With ``bind_params``, equations
    are re-bound the way ``jax.core.eval_jaxpr`` does (``get_bind_params``): JAX's own
    custom_jvp_call / custom_vjp_call equations need it, mj's take either form."""
    env = {}

    def read(v):
        return v.val if type(v) is core.Literal else env[v]

    assert len(jaxpr.invars) == len(args)
    assert len(jaxpr.constvars) == len(consts)
    for v, x in zip(jaxpr.invars, args, strict=True):
        env[v] = x
    for v, x in zip(jaxpr.constvars, consts, strict=True):
        env[v] = x
    for eqn in jaxpr.eqns:
        if bind_params:
            params = eqn.primitive.get_bind_params(eqn.params)
            outs = eqn.primitive.bind(*map(read, eqn.invars), **params)
        else:
            outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for v, x in zip(eqn.outvars, outs, strict=True):
            env[v] = x
    return [read(v) for v in jaxpr.outvars]


def programs(ns):
    jnp, lax = ns.numpy, ns.lax
    c = jnp.asarray(np.array([1.0, -2.0, 3.0], np.float32))

    @ns.custom_jvp
    def log1pexp(x):
        return jnp.log(1.0 + jnp.exp(x))

    @log1pexp.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))

    @ns.custom_vjp
    def clip_gradient(x):
        return jnp.sin(x)

    clip_gradient.defvjp(
        lambda x: (jnp.sin(x), jnp.cos(x)), lambda r, g: (jnp.clip(g * r, -0.5, 0.5),)
    )

    return {
        "constants": lambda x: jnp.sin(x) * c + jnp.cos(c),
        "literals": lambda x: x * 2.0 + 1 - 0.5 * x,
        "multiple_results": lambda x: (x, jnp.sin(x), lax.sort((x, -x), num_keys=1)),
        "cond": lambda x: lax.cond(x[0] > 0, lambda y: jnp.sin(y) * c, jnp.cos, x),
        "scan": lambda x: lax.scan(
            lambda s, a: (s * 0.5 + a * c, s.sum() * a), x, jnp.stack([x, 2 * x])
        ),
        "while": lambda x: lax.while_loop(
            lambda s: s[0] < 4, lambda s: (s[0] + 1, s[1] * c), (0, x)
        ),
        "custom_jvp": lambda x: log1pexp(x) * c,
        "custom_vjp": lambda x: clip_gradient(x * c),
        "jit": lambda x: ns.jit(lambda y: jnp.sin(y) * c)(x) + 1.0,
    }


X = np.array([0.5, 1.5, -0.25], np.float32)
NAMES = sorted(programs(mj))


def _run(ns, core, name, transform, bind_params):
    fun = programs(ns)[name]
    closed = ns.make_jaxpr(fun)(X)

    def interpreted(x):
        return user_eval_jaxpr(core, closed.jaxpr, closed.consts, x, bind_params=bind_params)

    def total(x):
        return sum(ns.numpy.sum(o) for o in ns.tree_util.tree_leaves(interpreted(x)))

    if transform == "eval":
        return interpreted(X)
    if transform == "grad":
        return ns.grad(total)(X)
    if transform == "vmap":
        return ns.vmap(interpreted)(np.stack([X, -X]))
    return ns.jit(interpreted)(X)


@pytest.mark.parametrize("transform", ["eval", "grad", "vmap", "jit"])
@pytest.mark.parametrize("name", NAMES)
def test_user_interpreter_values_match_jax(x64, name, transform):
    if transform == "grad" and name == "while":  # both refuse, with JAX's words
        for lib, core, bind_params in ((jax, jax.extend.core, True), (mj, mj.extend.core, False)):
            with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
                _run(lib, core, name, transform, bind_params)
        return
    want = jax.tree_util.tree_leaves(_run(jax, jax.extend.core, name, transform, True))
    for bind_params in (False, True):
        got = mj.tree_util.tree_leaves(_run(mj, mj.extend.core, name, transform, bind_params))
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=2e-6 if g.dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_jaxpr_signature_matches_jax(x64, name):
    """Constants are constvars and the arguments invars, as in JAX."""
    closed_m = mj.make_jaxpr(programs(mj)[name])(X)
    closed_j = jax.make_jaxpr(programs(jax)[name])(X)
    assert len(closed_m.jaxpr.invars) == len(closed_j.jaxpr.invars) == 1
    assert [v.aval.shape for v in closed_m.jaxpr.invars] == [X.shape]
    assert [str(v.aval.dtype) for v in closed_m.jaxpr.outvars] == [
        str(v.aval.dtype) for v in closed_j.jaxpr.outvars
    ]
    assert len(closed_m.jaxpr.constvars) == len(closed_m.consts)


def test_seed004_inverse_under_jit_vmap_grad(x64):
    def run(ns, core):
        jnp = ns.numpy
        registry = {ns.lax.exp_p: jnp.log, ns.lax.tanh_p: jnp.arctanh}

        def inverse(fun):
            @wraps(fun)
            def wrapped(*args):
                closed = ns.make_jaxpr(fun)(*args)
                jaxpr, env = closed.jaxpr, {}
                for v, x in zip(jaxpr.outvars, args, strict=True):
                    env[v] = x
                for v, x in zip(jaxpr.constvars, closed.literals, strict=True):
                    env[v] = x
                for eqn in jaxpr.eqns[::-1]:
                    (out,) = (env[v] for v in eqn.outvars)
                    env[eqn.invars[0]] = registry[eqn.primitive](out)
                return env[jaxpr.invars[0]]

            return wrapped

        def f(x):
            return jnp.exp(jnp.tanh(x))

        return ns.jit(ns.vmap(ns.grad(inverse(f))))((np.arange(5) + 1.0) / 5.0)

    got, want = run(mj, mj.extend.core), run(jax, jax.extend.core)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-5)


PRINTED = {
    "constants_literal_tuple": (
        lambda ns: lambda x, y: (ns.numpy.sin(x) * ns.numpy.asarray(X) + 2.0, y),
        (X, np.int32(3)),
    ),
    "one_equation": (lambda ns: ns.numpy.sin, (np.float32(1.0),)),
    "no_equation": (lambda ns: lambda x: x, (np.float32(1.0),)),
    "literal_output": (lambda ns: lambda x: 1.0, (np.float32(1.0),)),
    "cond": (
        lambda ns: lambda p, x: ns.lax.cond(p, ns.numpy.sin, ns.numpy.cos, x),
        (True, np.float32(1.0)),
    ),
}


@pytest.mark.parametrize("name", sorted(PRINTED))
def test_pretty_print_is_jax_text(x64, name):
    program, args = PRINTED[name]
    want = str(jax.make_jaxpr(program(jax))(*args))
    got = mj.make_jaxpr(program(mj))(*args).pretty_print()
    assert got == want
