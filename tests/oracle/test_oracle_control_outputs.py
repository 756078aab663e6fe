"""Eager control flow returns arrays, typed as JAX's: a branch or loop body that returns a
Python number or forwards a host operand gives an mj array of the primitive's output type
(weakly typed where JAX's is), as JAX's ``lax_control_flow_test`` (``test_cond_casting``,
``testCondGrad3``) expects."""

import jax
import numpy as np
import pytest

import mj

X32 = np.float32(3.0)

CASES = {
    "while literal": lambda lib: lib.lax.while_loop(lambda c: c < 3, lambda c: 5.0, 0.0),
    "while no step": lambda lib: lib.lax.while_loop(lambda c: c > 3, lambda c: 5.0, 0.0),
    "scan literals": lambda lib: lib.lax.scan(lambda c, x: (2.0, 3.0), 0.0, np.arange(2.0)),
    "switch literals": lambda lib: lib.lax.switch(1, [lambda: 1.0, lambda: 2.0]),
    "fori literal": lambda lib: lib.lax.fori_loop(0, 3, lambda i, c: 2.0, 0.0),
    "cond identity": lambda lib: lib.lax.cond(True, lambda x: x, lambda x: x, 1.0),
    "cond mixed": lambda lib: lib.lax.cond(True, lambda x: 2.0, lambda x: x, X32),
    "cond host array": lambda lib: lib.lax.cond(True, lambda x: x, lambda x: x, np.arange(3)),
    "cond literal f": lambda lib: lib.lax.cond(2.72 < 3, lambda _: 2.0, lambda x: 2.0 * x, 2.72),
}


@pytest.mark.parametrize("case", list(CASES), ids=str)
def test_eager_control_flow_outputs_are_arrays_as_jax(case, x64):
    if x64 and case == "cond mixed":  # a float64 literal branch against a float32 one
        msg = "cond branches must have equal output types"
        with pytest.raises(TypeError, match=msg):
            CASES[case](jax)
        with pytest.raises(TypeError, match=msg):
            CASES[case](mj)
        return
    want = jax.tree_util.tree_leaves(CASES[case](jax))
    got = jax.tree_util.tree_leaves(CASES[case](mj))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert isinstance(g, mj.Array)
        assert g.dtype == w.dtype
        assert g.weak_type == w.weak_type
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        # the weak type decides a later promotion
        assert (g + np.float16(1)).dtype == (w + np.float16(1)).dtype


def test_cond_with_a_literal_branch_has_a_vjp():
    def f(lib):
        return lambda x: lib.lax.cond(x < 3, lambda _: 2.0, lambda x: 2.0 * x, x)

    for x in (2.72, 3.14):
        out, pullback = mj.vjp(f(mj), x)
        want_out, want_pullback = jax.vjp(f(jax), x)
        assert isinstance(out, mj.Array)
        np.testing.assert_allclose(np.asarray(out), np.asarray(want_out), rtol=1e-6)
        got = pullback(np.ones_like(np.asarray(out)))[0]
        np.testing.assert_allclose(np.asarray(got), want_pullback(np.ones_like(want_out))[0])


EPS = 1e-3


def _safe_closure(lib):
    return lambda x: lib.lax.cond(x < EPS, lambda _: EPS, lambda _: lib.numpy.sqrt(x), ())


def _safe_operand(lib):
    return lambda x: lib.lax.cond(x < EPS, lambda x: EPS, lambda x: lib.numpy.sqrt(x), x)


def _safe_switch(lib):
    branches = [lambda x: lib.numpy.sqrt(x), lambda x: lib.numpy.log(x), lambda x: 2.0 * x]
    return lambda x: lib.lax.switch(lib.numpy.int32(x > 1) + lib.numpy.int32(x > 4), branches, x)


@pytest.mark.parametrize("make", [_safe_closure, _safe_operand, _safe_switch])
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_grad_of_vmapped_cond_has_no_nan_from_untaken_branches(make, jit, x64):
    """A batched predicate runs every branch; as JAX's, an example's gradient flows only
    through the branch it takes (no NaN from sqrt or log at 0 in another branch)."""
    x = np.array([0.0, 0.5, 4.0, 9.0, 0.0])

    def grad_of(lib):
        g = lib.grad(lambda v: lib.vmap(make(lib))(v).sum())
        return lib.jit(g) if jit else g

    want = grad_of(jax)(x)
    got = grad_of(mj)(x)
    assert not np.isnan(np.asarray(got)).any()
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
