"""``checkpoint`` / ``remat``: the same values and derivatives as the plain function under
every transformation, the backward pass really recomputing (equation counts in the jaxpr,
impl-call counts of a counting primitive), policies changing what is saved, the printed
equation, the lowering's optimization barrier, and argument errors."""

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_autodiff import grad, jvp, linearize, vjp
from mj_autodiff.extend import jvp_rules, partial_eval_rules, transpose_rules
from mj_batch import hessian, jacfwd, jacrev, vmap
from mj_batch.extend import vmap_rules
from mj_control import (
    checkpoint,
    checkpoint_name,
    checkpoint_p,
    checkpoint_policies,
    cond,
    name_p,
    remat,
    remat_p,
    scan,
)
from mj_core import Primitive, ShapedArray, bind1, impl_rules, lax
from mj_core.prims.contractions import dot_general_p
from mj_ir import ClosedJaxpr, Jaxpr, abstract_eval_rules, eval_jaxpr, make_jaxpr
from mj_xla import jit
from mj_xla.extend import lowering_rules

X = 0.7
XS = np.linspace(-1.0, 1.5, 4)


def _fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def sin_sin(x):
    return mnp.sin(mnp.sin(x))


def sin_sin_times(x):
    return mnp.sin(mnp.sin(x)) * x


def _count(closed, name):
    """Equations of primitive ``name`` in a jaxpr, nested jaxprs included."""

    def walk(jaxpr):
        n = 0
        for eqn in jaxpr.eqns:
            n += eqn.primitive.name == name
            for p in eqn.params.values():
                for sub in p if isinstance(p, tuple) else (p,):
                    if isinstance(sub, ClosedJaxpr):
                        n += walk(sub.jaxpr)
                    elif isinstance(sub, Jaxpr):
                        n += walk(sub)
        return n

    return walk(closed.jaxpr)


def _checkpoint_eqns(jaxpr):
    return [e for e in jaxpr.eqns if e.primitive is checkpoint_p]


def _same_everywhere(f, x):
    """eager == eval_jaxpr(make_jaxpr) == jit for a one-output ``f``: values, dtypes, shapes."""
    eager = np.asarray(f(x))
    rtol = 1e-6 if eager.dtype == np.float32 else 1e-12  # XLA's float32 sin may differ by 1 ulp
    (staged,) = eval_jaxpr(make_jaxpr(f)(x), [x])
    for got in (np.asarray(staged), np.asarray(jit(f)(x))):
        np.testing.assert_allclose(got, eager, rtol=rtol)
        assert got.dtype == eager.dtype
        assert got.shape == eager.shape


# --- values -------------------------------------------------------------------------------------


def test_remat_is_checkpoint():
    assert remat_p is checkpoint_p
    assert checkpoint_p.name == "remat2"  # as JAX 0.10.2 prints it
    assert remat(sin_sin)(X) == sin_sin(X)


@pytest.mark.parametrize(
    "x", [X, np.float32(X), np.linspace(0.0, 1.0, 5, dtype=np.float32), np.int32(2)]
)
def test_values_match_plain_function(x):
    ck = checkpoint(sin_sin_times)
    expected = np.sin(np.sin(x)) * x
    got = ck(x)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert np.asarray(got).dtype == np.asarray(sin_sin_times(x)).dtype
    _same_everywhere(ck, x)


def test_weak_type_is_kept():
    ck = checkpoint(lambda x: x * 2.0)
    assert np.asarray(ck(np.float32(3.0))).dtype == np.float32
    assert make_jaxpr(ck)(1.0).out_avals[0].weak_type


def test_pytrees_kwargs_and_non_array_outputs():
    def f(p, *, scale):
        return {"a": mnp.sin(p["x"]) * scale, "b": (p["y"], 3)}

    ck = checkpoint(f)
    p = {"x": np.float32(1.0), "y": np.arange(3)}
    out = ck(p, scale=2.0)
    assert out["a"] == pytest.approx(2 * np.sin(1.0), rel=1e-6)
    assert np.asarray(out["a"]).dtype == np.float32
    np.testing.assert_array_equal(out["b"][0], np.arange(3))
    assert out["b"][1] == 3


def test_closing_over_outer_values_and_tracers():
    w = np.array([1.0, 2.0, 3.0])

    def outer(y):
        return mnp.sum(checkpoint(lambda x: mnp.sin(x * y) * w)(2.0))

    assert outer(0.3) == pytest.approx(np.sum(np.sin(0.6) * w))
    expected = 2 * np.cos(0.6) * np.sum(w)
    assert grad(outer)(0.3) == pytest.approx(expected)
    assert jit(grad(outer))(0.3) == pytest.approx(expected)


def test_make_jaxpr_prints_the_checkpoint_equation():
    assert str(make_jaxpr(checkpoint(sin_sin))(1.0)) == (
        "{ lambda a:float64[] .\n"
        "  let b:float64[] = remat2[\n"
        "        differentiated=False\n"
        "        jaxpr={ lambda a:float64[] .\n"
        "                let b:float64[] = sin a\n"
        "                    c:float64[] = sin b\n"
        "                in ( c ) }\n"
        "        policy=None\n"
        "        prevent_cse=True\n"
        "      ] a\n"
        "  in ( b ) }"
    )


# --- derivatives --------------------------------------------------------------------------------


@pytest.mark.parametrize("x", [X, -1.3])
def test_grad_equals_plain_grad_and_finite_differences(x):
    ck = checkpoint(sin_sin_times)
    expected = grad(sin_sin_times)(x)
    assert grad(ck)(x) == pytest.approx(expected, rel=1e-12)
    assert grad(ck)(x) == pytest.approx(_fd(sin_sin_times, x), rel=1e-7)
    assert jit(grad(ck))(x) == pytest.approx(expected, rel=1e-12)
    assert eval_jaxpr(make_jaxpr(grad(ck))(x), [x])[0] == pytest.approx(expected, rel=1e-12)


def test_jvp_linearize_vjp_match_plain_function():
    ck = checkpoint(sin_sin_times)
    y, t = jvp(ck, (X,), (2.0,))
    y0, t0 = jvp(sin_sin_times, (X,), (2.0,))
    assert float(y) == pytest.approx(float(y0), rel=1e-12)
    assert float(t) == pytest.approx(float(t0), rel=1e-12)
    y, f_jvp = linearize(ck, X)
    assert y == pytest.approx(y0)
    assert f_jvp(2.0) == pytest.approx(t0, rel=1e-12)
    y, f_vjp = vjp(ck, X)
    assert f_vjp(1.0)[0] == pytest.approx(t0 / 2.0, rel=1e-12)


def test_jvp_keeps_the_tangent_computation_under_checkpoint():
    closed = make_jaxpr(lambda x: jvp(checkpoint(sin_sin), (x,), (1.0,)))(X)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is checkpoint_p
    assert not eqn.params["differentiated"]
    assert len(eqn.out_binders) == 2


def test_higher_order_derivatives():
    ck = checkpoint(sin_sin_times)
    assert grad(grad(ck))(X) == pytest.approx(grad(grad(sin_sin_times))(X), rel=1e-12)
    assert jit(grad(grad(ck)))(X) == pytest.approx(grad(grad(sin_sin_times))(X), rel=1e-12)
    x = np.array([0.3, 0.5])
    np.testing.assert_allclose(
        hessian(lambda v: mnp.sum(ck(v)))(x), hessian(lambda v: mnp.sum(sin_sin_times(v)))(x)
    )


def test_grad_with_respect_to_several_arguments():
    def f(w, x):
        return mnp.sum(mnp.tanh(w @ mnp.sin(x)))

    w = np.arange(6.0).reshape(2, 3) / 10
    x = np.array([0.1, -0.4, 0.9])
    got = grad(checkpoint(f), argnums=(0, 1))(w, x)
    expected = grad(f, argnums=(0, 1))(w, x)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12)
    eps = 1e-6
    e0 = np.zeros(3)
    e0[0] = eps
    assert got[1][0] == pytest.approx((f(w, x + e0) - f(w, x - e0)) / (2 * eps), rel=1e-6)


def test_outputs_that_are_inputs_or_constants():
    ck = checkpoint(lambda x: (x, mnp.sin(x), 2.0))
    assert grad(lambda x: sum(ck(x)))(0.5) == pytest.approx(1 + np.cos(0.5), rel=1e-12)
    assert jit(grad(lambda x: sum(ck(x))))(0.5) == pytest.approx(1 + np.cos(0.5), rel=1e-12)


def test_integer_argument_and_partial_tangents():
    ck = checkpoint(lambda x, n: mnp.sin(x) * n)
    assert grad(ck)(0.5, 3) == pytest.approx(3 * np.cos(0.5), rel=1e-12)
    _, f_jvp = linearize(checkpoint(lambda x, y: mnp.sin(x) * y), 0.5, 2.0)
    assert f_jvp(1.0, 0.0) == pytest.approx(2 * np.cos(0.5), rel=1e-12)
    assert f_jvp(0.0, 1.0) == pytest.approx(np.sin(0.5), rel=1e-12)


def test_grad_of_jit_of_checkpoint_splits_inside_the_jitted_jaxpr():
    g = jit(checkpoint(sin_sin))
    assert grad(g)(X) == pytest.approx(grad(sin_sin)(X), rel=1e-12)
    closed = make_jaxpr(grad(g))(X)
    assert _count(closed, "sin") == 3  # the jitted backward pass recomputes sin(x) too


# --- composition with vmap, scan, cond and itself -----------------------------------------------


def test_vmap_of_checkpoint_and_of_its_grad():
    ck = checkpoint(sin_sin_times)
    np.testing.assert_allclose(vmap(ck)(XS), np.sin(np.sin(XS)) * XS, rtol=1e-12)
    np.testing.assert_allclose(vmap(grad(ck))(XS), vmap(grad(sin_sin_times))(XS), rtol=1e-12)
    np.testing.assert_allclose(jit(vmap(grad(ck)))(XS), vmap(grad(sin_sin_times))(XS))
    (eqn,) = make_jaxpr(vmap(ck))(XS).jaxpr.eqns
    assert eqn.primitive is checkpoint_p


def test_vmap_over_a_non_leading_axis_and_jacobians():
    a = np.arange(6.0).reshape(2, 3)
    ck = checkpoint(lambda v: mnp.sum(mnp.sin(v)))
    np.testing.assert_allclose(vmap(ck, in_axes=1)(a), np.sin(a).sum(0), rtol=1e-12)
    np.testing.assert_allclose(jit(vmap(grad(ck)))(a), np.cos(a), rtol=1e-12)
    x = np.arange(3.0)
    np.testing.assert_allclose(jacrev(checkpoint(mnp.sin))(x), np.diag(np.cos(x)), atol=1e-15)
    np.testing.assert_allclose(jacfwd(checkpoint(mnp.sin))(x), np.diag(np.cos(x)), atol=1e-15)


def test_grad_of_vmapped_checkpoint_with_unbatched_argument():
    ck = checkpoint(lambda x, y: mnp.sin(x * y))

    def loss(y):
        return mnp.sum(vmap(ck, in_axes=(0, None))(XS, y))

    assert grad(loss)(0.8) == pytest.approx(np.sum(np.cos(XS * 0.8) * XS), rel=1e-12)


def test_nested_checkpoints():
    inner = checkpoint(mnp.sin)
    nested = checkpoint(lambda x: inner(mnp.sin(x)) * x)
    assert nested(X) == pytest.approx(sin_sin_times(X), rel=1e-12)
    expected = grad(sin_sin_times)(X)
    assert grad(nested)(X) == pytest.approx(expected, rel=1e-12)
    assert jit(grad(nested))(X) == pytest.approx(expected, rel=1e-12)
    assert grad(grad(nested))(X) == pytest.approx(grad(grad(sin_sin_times))(X), rel=1e-12)


def _scan_loss(body):
    def loss(c0, xs):
        c, ys = scan(body, c0, xs)
        return c + mnp.sum(ys)

    return loss


def _body(c, x):
    return mnp.sin(c) * x + 0.1, mnp.cos(c) * x


def test_checkpointed_scan_body():
    plain, ck = _scan_loss(_body), _scan_loss(checkpoint(_body))
    assert ck(0.3, XS) == pytest.approx(plain(0.3, XS), rel=1e-12)
    expected = grad(plain, argnums=(0, 1))(0.3, XS)
    for got in (grad(ck, argnums=(0, 1))(0.3, XS), jit(grad(ck, argnums=(0, 1)))(0.3, XS)):
        assert got[0] == pytest.approx(expected[0], rel=1e-12)
        np.testing.assert_allclose(got[1], expected[1], rtol=1e-12)
    assert expected[0] == pytest.approx(_fd(lambda c: plain(c, XS), 0.3), rel=1e-6)


def test_checkpointed_scan_body_saves_only_the_carry_and_recomputes_in_the_backward_scan():
    plain = make_jaxpr(grad(_scan_loss(_body)))(0.3, XS)
    ck = make_jaxpr(grad(_scan_loss(checkpoint(_body))))(0.3, XS)
    fwd, bwd = [e for e in ck.jaxpr.eqns if e.primitive.name == "scan"]
    fwd_plain = next(e for e in plain.jaxpr.eqns if e.primitive.name == "scan")
    # the forward scan stacks one residual (the carry) instead of sin/cos intermediates
    assert len(fwd.out_binders) < len(fwd_plain.out_binders)
    (staged,) = _checkpoint_eqns(bwd.params["jaxpr"].jaxpr)
    assert staged.params["differentiated"]
    inner = staged.params["jaxpr"]
    assert _count(inner, "sin") == 1
    assert _count(inner, "cos") == 1


def test_checkpoint_inside_cond_and_cond_inside_checkpoint():
    def g(x):
        return cond(x > 0, checkpoint(lambda y: mnp.sin(y) * y), lambda y: y * y, x)

    def h(x):
        return checkpoint(lambda y: cond(y > 0, mnp.sin, mnp.cos, y) * y)(x)

    for x in (0.5, -0.5):
        assert grad(g)(x) == pytest.approx(_fd(g, x), rel=1e-7)
        assert jit(grad(g))(x) == pytest.approx(_fd(g, x), rel=1e-7)
        assert grad(h)(x) == pytest.approx(_fd(h, x), rel=1e-7)
        assert jit(grad(h))(x) == pytest.approx(_fd(h, x), rel=1e-7)


# --- the recomputation really happens -----------------------------------------------------------


def test_backward_pass_recomputes_the_primal_sin():
    plain = make_jaxpr(grad(sin_sin))(X)
    ck = make_jaxpr(grad(checkpoint(sin_sin)))(X)
    assert _count(plain, "sin") == 2  # forward only
    assert _count(ck, "sin") == 3  # forward, and sin(x) again in the backward pass
    (staged,) = _checkpoint_eqns(ck.jaxpr)
    assert staged.params["differentiated"]
    # the backward pass takes only the input x (and the output cotangent), no intermediates
    assert len(staged.inputs) == 2
    assert staged.inputs[0] is ck.jaxpr.in_binders[0]
    assert _count(staged.params["jaxpr"], "sin") == 1
    assert _count(staged.params["jaxpr"], "cos") == 2


counted_sin_p = Primitive("counted_sin")
CALLS = {"n": 0}


def _counted_sin_impl(x):
    CALLS["n"] += 1
    return [np.sin(x)]


impl_rules[counted_sin_p] = _counted_sin_impl
abstract_eval_rules[counted_sin_p] = lambda x: [ShapedArray(x.shape, x.dtype, x.weak_type)]


def _counted_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return [bind1(counted_sin_p, x)], [lax.cos(x) * t]


jvp_rules[counted_sin_p] = _counted_sin_jvp


def counted_sin(x):
    return bind1(counted_sin_p, x)


def test_eager_grad_calls_the_primal_impl_again():
    def f(x):
        return counted_sin(counted_sin(x))

    CALLS["n"] = 0
    g_plain = grad(f)(X)
    plain_calls = CALLS["n"]
    CALLS["n"] = 0
    g_ck = grad(checkpoint(f))(X)
    assert g_ck == pytest.approx(g_plain, rel=1e-12)
    assert plain_calls == 2
    assert CALLS["n"] == 3  # the inner counted_sin runs again in the backward pass
    CALLS["n"] = 0
    grad(checkpoint(f, policy=checkpoint_policies.everything_saveable))(X)
    assert CALLS["n"] == 2


# --- policies -----------------------------------------------------------------------------------


def test_everything_saveable_recomputes_nothing():
    ck = make_jaxpr(grad(checkpoint(sin_sin, policy=checkpoint_policies.everything_saveable)))(X)
    assert _count(ck, "sin") == 2
    (staged,) = _checkpoint_eqns(ck.jaxpr)
    assert _count(staged.params["jaxpr"], "sin") == 0
    assert _count(staged.params["jaxpr"], "cos") == 0  # the cosines are saved residuals
    assert grad(checkpoint(sin_sin, policy=checkpoint_policies.everything_saveable))(
        X
    ) == pytest.approx(grad(sin_sin)(X), rel=1e-12)


def test_nothing_saveable_is_the_default():
    none = make_jaxpr(grad(checkpoint(sin_sin)))(X)
    nothing = make_jaxpr(grad(checkpoint(sin_sin, policy=checkpoint_policies.nothing_saveable)))(X)
    assert _count(none, "sin") == _count(nothing, "sin") == 3


def _mlp(w, x):
    return mnp.sum(mnp.sin(w @ mnp.sin(x)))


W = np.arange(6.0).reshape(2, 3) / 10
V = np.array([0.2, -0.1, 0.5])


@pytest.mark.parametrize("name", ["dots_saveable", "checkpoint_dots"])
def test_dots_saveable_saves_the_matmul_and_recomputes_the_rest(name):
    policy = getattr(checkpoint_policies, name)
    closed = make_jaxpr(grad(checkpoint(_mlp, policy=policy)))(W, V)
    (staged,) = _checkpoint_eqns(closed.jaxpr)
    # only the transposed product w.r.t. w (an outer product) remains; the forward dot is saved
    assert _count(staged.params["jaxpr"], "dot_general") == 1
    assert _count(staged.params["jaxpr"], "sin") == 1
    none = make_jaxpr(grad(checkpoint(_mlp)))(W, V)
    (staged_none,) = _checkpoint_eqns(none.jaxpr)
    assert _count(staged_none.params["jaxpr"], "dot_general") == 2
    np.testing.assert_allclose(grad(checkpoint(_mlp, policy=policy))(W, V), grad(_mlp)(W, V))


_DN = {"dimension_numbers": (((1,), (0,)), ((), ()))}


def test_dots_with_no_batch_dims_saveable():
    policy = checkpoint_policies.dots_with_no_batch_dims_saveable
    assert policy(dot_general_p, **_DN)
    batched = {"dimension_numbers": (((2,), (1,)), ((0,), (0,)))}
    assert not policy(dot_general_p, **batched)
    assert checkpoint_policies.dots_saveable(dot_general_p, **batched)
    assert not policy(name_p, name="x")


def test_save_only_these_names():
    def f(x):
        y = checkpoint_name(mnp.sin(x), "y")
        return mnp.sin(y)

    policy = checkpoint_policies.save_only_these_names("y")
    closed = make_jaxpr(grad(checkpoint(f, policy=policy)))(X)
    (staged,) = _checkpoint_eqns(closed.jaxpr)
    assert _count(staged.params["jaxpr"], "sin") == 0  # y is saved, not recomputed
    other = make_jaxpr(grad(checkpoint(f, policy=checkpoint_policies.save_only_these_names("z"))))
    (staged_other,) = _checkpoint_eqns(other(X).jaxpr)
    assert _count(staged_other.params["jaxpr"], "sin") == 1
    assert grad(checkpoint(f, policy=policy))(X) == pytest.approx(grad(sin_sin)(X), rel=1e-12)


def test_save_any_names_but_these_and_save_from_both_policies():
    names = checkpoint_policies.save_any_names_but_these("a")
    assert names(name_p, name="b")
    assert not names(name_p, name="a")
    assert not names(dot_general_p, **_DN)
    both = checkpoint_policies.save_from_both_policies(names, checkpoint_policies.dots_saveable)
    assert both(dot_general_p, **_DN)
    assert both(name_p, name="b")
    assert not both(name_p, name="a")


def test_checkpoint_name_is_the_identity_under_every_transformation():
    def f(x):
        return checkpoint_name(mnp.sin(x), "s") * 2.0

    assert f(X) == pytest.approx(2 * np.sin(X))
    assert grad(f)(X) == pytest.approx(2 * np.cos(X))
    assert jit(grad(f))(X) == pytest.approx(2 * np.cos(X))
    np.testing.assert_allclose(vmap(f)(XS), 2 * np.sin(XS))
    tree = checkpoint_name({"a": 1.0, "b": np.ones(2)}, "t")
    assert tree["a"] == 1.0
    with pytest.raises(TypeError, match="checkpoint_name: name must be a str, got int 3 in"):
        checkpoint_name(1.0, 3)


# --- lowering -----------------------------------------------------------------------------------


def test_lowering_puts_the_recomputation_behind_an_optimization_barrier():
    text = jit(grad(checkpoint(sin_sin))).lower(X).as_text()
    assert text.count("stablehlo.optimization_barrier") == 1
    assert text.count("stablehlo.sine") == 3
    no_cse = jit(grad(checkpoint(sin_sin, prevent_cse=False))).lower(X).as_text()
    assert "optimization_barrier" not in no_cse
    forward_only = jit(checkpoint(sin_sin)).lower(X).as_text()
    assert "optimization_barrier" not in forward_only  # only differentiated checkpoints


def test_prevent_cse_per_argument():
    ck = checkpoint(_mlp, prevent_cse=(False, True))
    np.testing.assert_allclose(grad(ck)(W, V), grad(_mlp)(W, V))
    eqn = _checkpoint_eqns(make_jaxpr(ck)(W, V).jaxpr)[0]
    assert eqn.params["prevent_cse"] == (False, True)


# --- static arguments and errors ----------------------------------------------------------------


def test_static_argnums_pass_python_values():
    def power(x, n):
        if n == 0:  # Python control flow on the static argument
            return mnp.ones_like(x)
        return x**n

    for static in (1, (1,), (-1,)):
        ck = checkpoint(power, static_argnums=static)
        assert ck(2.0, 3) == pytest.approx(8.0)
        assert ck(2.0, 0) == pytest.approx(1.0)
        assert grad(ck)(2.0, 3) == pytest.approx(12.0)
        assert jit(grad(ck), static_argnums=1)(2.0, 3) == pytest.approx(12.0)


def test_static_argnames_pass_python_values():
    def scaled(x, *, mode):
        return mnp.sin(x) * (2.0 if mode == "double" else 1.0)

    ck = checkpoint(scaled, static_argnames="mode")
    assert ck(X, mode="double") == pytest.approx(2 * np.sin(X))
    assert grad(lambda x: ck(x, mode="double"))(X) == pytest.approx(2 * np.cos(X))
    assert grad(lambda x: ck(x, mode="single"))(X) == pytest.approx(np.cos(X))
    eqn = _checkpoint_eqns(make_jaxpr(lambda x: ck(x, mode="double"))(X).jaxpr)[0]
    assert len(eqn.inputs) == 1  # the static keyword is not an operand


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(TypeError, match="checkpoint: fun must be callable"):
        checkpoint(3)
    with pytest.raises(TypeError, match="static_argnums must be an int or a tuple of ints"):
        checkpoint(sin_sin, static_argnums=[1])
    with pytest.raises(TypeError, match="static_argnames must be a str or an iterable of strs"):
        checkpoint(sin_sin, static_argnames=3)
    with pytest.raises(TypeError, match="prevent_cse must be a bool or a sequence of bools"):
        checkpoint(sin_sin, prevent_cse="yes")
    with pytest.raises(ValueError, match=r"static_argnums \(3,\) out of range .*test_control"):
        checkpoint(sin_sin, static_argnums=3)(1.0)
    with pytest.raises(ValueError, match="prevent_cse has 2 flags"):
        checkpoint(sin_sin, prevent_cse=(True, False))(1.0)


def test_abstract_eval_checks_operand_types():
    closed = make_jaxpr(sin_sin)(1.0)
    with pytest.raises(TypeError, match=r"checkpoint: operands \(i32\[\]\) do not match"):
        abstract_eval_rules[checkpoint_p](
            ShapedArray((), np.int32),
            jaxpr=closed,
            prevent_cse=True,
            differentiated=False,
            policy=None,
        )


# --- every table has a rule ----------------------------------------------------------------------


@pytest.mark.parametrize("prim", [checkpoint_p, name_p], ids=lambda p: p.name)
def test_every_rule_is_registered(prim):
    for table in (impl_rules, abstract_eval_rules, jvp_rules, vmap_rules, lowering_rules):
        assert prim in table
    assert prim in transpose_rules
    if prim is checkpoint_p:
        assert prim in partial_eval_rules


def test_concrete_option_is_refused_as_in_jax():
    # removed from JAX in v0.10.0: static_argnums replaces it
    with pytest.raises(NotImplementedError, match="static_argnums"):
        checkpoint(lambda x: x, concrete=True)
