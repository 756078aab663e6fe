"""``mj.checkpoint`` against ``jax.checkpoint``: values and derivatives (eager, jit, vmap), and
how much work the backward pass recomputes: the number of primal operations in the jaxpr of
``grad`` (inside and outside the checkpoint equations) is the same as JAX's, per policy."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import mj
import mj.numpy as mnp

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

X = 0.7
W = np.arange(6.0).reshape(2, 3) / 10 - 0.2
V = np.array([0.2, -0.1, 0.5])
XS = np.linspace(-1.0, 1.5, 5)


def _close(a, b, rtol=1e-12):
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape
        assert x.dtype == y.dtype
        np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-14)


def _counts(jaxpr, names):
    """(total, recomputed) counts of the primitives ``names``: recomputed ones are those
    inside differentiated checkpoint equations (the backward pass's). mj keeps the known part
    of a checkpoint split inside a jaxpr (a scan body) as a ``differentiated=False``
    checkpoint where JAX inlines it, so only these two counts are comparable."""
    total = _count_all(jaxpr, names)
    inside = _count_inside(jaxpr, names, False)
    return total, inside


def _count_all(jaxpr, names):
    n = 0
    for eqn in jaxpr.eqns:
        n += eqn.primitive.name in names
        for sub in _subjaxprs(eqn):
            n += _count_all(sub, names)
    return n


def _count_inside(jaxpr, names, inside):
    n = 0
    for eqn in jaxpr.eqns:
        n += inside and eqn.primitive.name in names
        for sub in _subjaxprs(eqn):
            recompute = eqn.primitive.name == "remat2" and eqn.params["differentiated"]
            n += _count_inside(sub, names, inside or recompute)
    return n


def _subjaxprs(eqn):
    for p in eqn.params.values():
        for sub in p if isinstance(p, tuple | list) else (p,):
            inner = getattr(sub, "jaxpr", sub)
            if hasattr(inner, "eqns"):
                yield inner


def sin_sin_times(np_):
    return lambda x: np_.sin(np_.sin(x)) * x


def mlp(np_):
    return lambda w, x: np_.sum(np_.sin(w @ np_.sin(x)))


def named(np_, name_fn):
    def f(x):
        return np_.sin(name_fn(np_.sin(x), "y"))

    return f


CASES = {
    "sin_sin_times": (sin_sin_times(mnp), sin_sin_times(jnp), (X,)),
    "mlp": (mlp(mnp), mlp(jnp), (W, V)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_grads_match_jax(case):
    mj_f, jax_f, args = CASES[case]
    mj_ck, jax_ck = mj.checkpoint(mj_f), jax.checkpoint(jax_f)
    _close(mj_ck(*args), jax_ck(*args))
    _close(mj.jit(mj_ck)(*args), jax.jit(jax_ck)(*args))
    argnums = tuple(range(len(args)))
    _close(mj.grad(mj_ck, argnums)(*args), jax.grad(jax_ck, argnums)(*args))
    _close(mj.jit(mj.grad(mj_ck, argnums))(*args), jax.jit(jax.grad(jax_ck, argnums))(*args))


def test_second_derivative_matches_jax():
    mj_ck = mj.checkpoint(sin_sin_times(mnp))
    jax_ck = jax.checkpoint(sin_sin_times(jnp))
    _close(mj.grad(mj.grad(mj_ck))(X), jax.grad(jax.grad(jax_ck))(X))


def test_vmap_and_jvp_match_jax():
    mj_ck = mj.checkpoint(sin_sin_times(mnp))
    jax_ck = jax.checkpoint(sin_sin_times(jnp))
    _close(mj.vmap(mj_ck)(XS), jax.vmap(jax_ck)(XS))
    _close(mj.vmap(mj.grad(mj_ck))(XS), jax.vmap(jax.grad(jax_ck))(XS))
    _close(mj.jvp(mj_ck, (X,), (2.0,)), jax.jvp(jax_ck, (X,), (2.0,)))


def test_checkpointed_scan_body_matches_jax():
    def body(np_, c, x):
        return np_.sin(c) * x + 0.1, np_.cos(c) * x

    def mj_loss(c0, xs):
        c, ys = mj.lax.scan(mj.checkpoint(lambda c, x: body(mnp, c, x)), c0, xs)
        return c + mnp.sum(ys)

    def jax_loss(c0, xs):
        c, ys = jlax.scan(jax.checkpoint(lambda c, x: body(jnp, c, x)), c0, xs)
        return c + jnp.sum(ys)

    _close(mj_loss(0.3, XS), jax_loss(0.3, XS))
    _close(mj.grad(mj_loss, (0, 1))(0.3, XS), jax.grad(jax_loss, (0, 1))(0.3, XS))
    _close(mj.jit(mj.grad(mj_loss))(0.3, XS), jax.jit(jax.grad(jax_loss))(0.3, XS))
    names = {"sin", "cos"}
    assert _counts(mj.make_jaxpr(mj.grad(mj_loss))(0.3, XS).jaxpr, names) == _counts(
        jax.make_jaxpr(jax.grad(jax_loss))(0.3, XS).jaxpr, names
    )


def test_nested_checkpoints_match_jax():
    def make(np_, ck):
        inner = ck(np_.sin)
        return ck(lambda x: inner(np_.sin(x)) * x)

    mj_f, jax_f = make(mnp, mj.checkpoint), make(jnp, jax.checkpoint)
    _close(mj.grad(mj_f)(X), jax.grad(jax_f)(X))
    assert _counts(mj.make_jaxpr(mj.grad(mj_f))(X).jaxpr, {"sin", "cos"}) == _counts(
        jax.make_jaxpr(jax.grad(jax_f))(X).jaxpr, {"sin", "cos"}
    )


POLICIES = ["None", "everything_saveable", "nothing_saveable", "dots_saveable"]


def _policy(mod, name):
    return None if name == "None" else getattr(mod.checkpoint_policies, name)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_recomputed_operations_match_jax(case, policy):
    """The same primal operations are recomputed in the backward pass as in JAX, in total
    and inside the checkpoint equations."""
    mj_f, jax_f, args = CASES[case]
    mj_g = mj.grad(mj.checkpoint(mj_f, policy=_policy(mj, policy)))
    jax_g = jax.grad(jax.checkpoint(jax_f, policy=_policy(jax, policy)))
    names = {"sin", "cos", "dot_general"}
    mj_counts = _counts(mj.make_jaxpr(mj_g)(*args).jaxpr, names)
    jax_counts = _counts(jax.make_jaxpr(jax_g)(*args).jaxpr, names)
    assert mj_counts == jax_counts
    _close(mj_g(*args), jax_g(*args))


@pytest.mark.parametrize("saved", ["y", "z"])
def test_save_only_these_names_matches_jax(saved):
    from jax.ad_checkpoint import checkpoint_name as jax_name

    mj_f = named(mnp, mj.ad_checkpoint.checkpoint_name)
    jax_f = named(jnp, jax_name)
    mj_g = mj.grad(mj.checkpoint(mj_f, policy=mj.checkpoint_policies.save_only_these_names(saved)))
    jax_g = jax.grad(
        jax.checkpoint(jax_f, policy=jax.checkpoint_policies.save_only_these_names(saved))
    )
    _close(mj_g(X), jax_g(X))
    names = {"sin", "cos"}
    assert _counts(mj.make_jaxpr(mj_g)(X).jaxpr, names) == _counts(
        jax.make_jaxpr(jax_g)(X).jaxpr, names
    )


def test_printed_equation_matches_jax():
    mj_eqn = mj.make_jaxpr(mj.checkpoint(sin_sin_times(mnp)))(X).jaxpr.eqns[0]
    jax_eqn = jax.make_jaxpr(jax.checkpoint(sin_sin_times(jnp)))(X).jaxpr.eqns[0]
    assert mj_eqn.primitive.name == jax_eqn.primitive.name == "remat2"
    assert sorted(mj_eqn.params) == sorted(jax_eqn.params)
    for key in ("prevent_cse", "differentiated", "policy"):
        assert mj_eqn.params[key] == jax_eqn.params[key]


def test_signature_matches_jax():
    import inspect

    def params(f):
        return {
            name: (p.kind, p.default)
            for name, p in inspect.signature(f).parameters.items()
            if name != "concrete"  # deprecated in JAX
        }

    assert params(mj.checkpoint) == params(jax.checkpoint)
    mj_policies = {n for n in vars(mj.checkpoint_policies) if not n.startswith("_")}
    jax_policies = {n for n in vars(jax.checkpoint_policies) if not n.startswith("_")}
    # the offloading policies need host memory spaces, which mj has no notion of
    assert jax_policies - mj_policies == {
        "offload_dot_with_no_batch_dims",
        "save_and_offload_only_these_names",
    }
