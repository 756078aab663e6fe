"""JAX's extension API (``mj.interpreters.ad`` / ``batching`` / ``mlir``) as views over mj's
rule tables: seed 003's ``multiply_add`` in its modern-JAX form, with the jvp, transpose,
batching and lowering rules written in JAX's signatures and registered through JAX's
spelling; the primitive itself is mj's (``bind1`` + ``impl_rules`` / ``abstract_eval_rules``).

Values are checked against the closed forms (x*y + z and its derivatives)."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax
from mj.interpreters import ad, batching, mlir
from mj_autodiff.extend import jvp_rules, transpose_rules
from mj_batch.extend import vmap_rules
from mj_core import Primitive, ShapedArray, bind, bind1, impl_rules
from mj_ir import abstract_eval_rules
from mj_xla.extend import lowering_rules, platform_lowering_rules

pytestmark = pytest.mark.x32


def _define_multiply_add(name="multiply_add"):
    """Seed 003's primitive, in JAX's modern spelling where the rules are concerned."""
    multiply_add_p = Primitive(name)

    def multiply_add_prim(x, y, z):
        return bind1(multiply_add_p, x, y, z)

    def multiply_add_impl(x, y, z):
        return [np.add(np.multiply(x, y), z)]

    def multiply_add_abstract_eval(xs, ys, zs):
        assert xs.shape == ys.shape == zs.shape
        return [ShapedArray(xs.shape, xs.dtype)]

    impl_rules[multiply_add_p] = multiply_add_impl
    abstract_eval_rules[multiply_add_p] = multiply_add_abstract_eval

    # --- from here on: JAX's code, only `jax` renamed ------------------------------------------
    def multiply_add_lowering(ctx, xc, yc, zc):
        return [mlir.hlo.AddOp(mlir.hlo.MulOp(xc, yc), zc).result]

    mlir.register_lowering(multiply_add_p, multiply_add_lowering, platform="cpu")
    mlir.register_lowering(multiply_add_p, multiply_add_lowering, platform="gpu")

    def multiply_add_value_and_jvp(arg_values, arg_tangents):
        x, y, z = arg_values
        xt, yt, zt = arg_tangents
        primal_out = multiply_add_prim(x, y, z)

        def make_zero(tan):
            return mnp.zeros_like(x) if type(tan) is ad.Zero else tan

        output_tangent = multiply_add_prim(
            make_zero(xt), y, multiply_add_prim(x, make_zero(yt), make_zero(zt))
        )
        return (primal_out, output_tangent)

    ad.primitive_jvps[multiply_add_p] = multiply_add_value_and_jvp

    def multiply_add_transpose(ct, x, y, z):
        if not ad.is_undefined_primal(x):
            assert ad.is_undefined_primal(y)
            ct_y = (
                ad.Zero(y.aval)
                if type(ct) is ad.Zero
                else multiply_add_prim(x, ct, mnp.zeros_like(x))
            )
            res = None, ct_y, ct
        else:
            assert ad.is_undefined_primal(x)
            ct_x = (
                ad.Zero(x.aval)
                if type(ct) is ad.Zero
                else multiply_add_prim(ct, y, mnp.zeros_like(y))
            )
            res = ct_x, None, ct
        return res

    ad.primitive_transposes[multiply_add_p] = multiply_add_transpose

    def multiply_add_batch(vector_arg_values, batch_axes):
        assert batch_axes[0] == batch_axes[1]
        assert batch_axes[0] == batch_axes[2]
        res = multiply_add_prim(*vector_arg_values)
        return res, batch_axes[0]

    batching.primitive_batchers[multiply_add_p] = multiply_add_batch
    return multiply_add_p, multiply_add_prim


MULTIPLY_ADD_P, MULTIPLY_ADD = _define_multiply_add()


def square_add_prim(a, b):
    return MULTIPLY_ADD(a, a, b)


# --- the seed's cells ---------------------------------------------------------------------------


def test_eager_and_jit_values():
    assert square_add_prim(2.0, 10.0) == 14.0
    assert mj.jit(square_add_prim)(2.0, 10.0) == 14.0
    text = mj.jit(square_add_prim).lower(2.0, 10.0).as_text()
    assert "stablehlo.multiply" in text
    assert "stablehlo.add" in text


def test_forward_differentiation():
    # d/da (a*a + b) = 2a, d/db = 1: tangents (1, 1) at (2, 10) give 2*2 + 1 = 5
    y, y_dot = mj.jvp(square_add_prim, (2.0, 10.0), (1.0, 1.0))
    assert (y, y_dot) == (14.0, 5.0)
    y, y_dot = mj.jit(lambda a, b: mj.jvp(square_add_prim, (a, b), (1.0, 0.0)))(3.0, 1.0)
    assert (y, y_dot) == (10.0, 6.0)


def test_reverse_differentiation():
    assert mj.grad(square_add_prim)(2.0, 10.0) == 4.0
    assert mj.jit(mj.grad(square_add_prim))(2.0, 10.0) == 4.0
    # the grad's jaxpr transposes multiply_add with the JAX-spelled rule
    jaxpr = mj.make_jaxpr(mj.grad(square_add_prim))(2.0, 10.0)
    assert "multiply_add" in str(jaxpr)


def test_batching():
    a = np.array([2.0, 3.0], np.float32)
    b = np.array([10.0, 20.0], np.float32)
    np.testing.assert_array_equal(mj.vmap(square_add_prim)(a, b), a * a + b)
    np.testing.assert_array_equal(mj.jit(mj.vmap(square_add_prim))(a, b), a * a + b)
    # in_axes=1 on a matrix: the rule sees batch axis 1 and returns it
    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    out = mj.vmap(lambda x: MULTIPLY_ADD(x, x, x), in_axes=1)(m)
    np.testing.assert_array_equal(out, (m * m + m).T)


def test_everything_composes():
    a = np.array([2.0, 3.0], np.float32)
    b = np.array([10.0, 20.0], np.float32)

    def loss(a, b):
        return mnp.sum(mj.vmap(square_add_prim)(a, b))

    np.testing.assert_allclose(mj.jit(mj.grad(loss))(a, b), 2 * a)
    np.testing.assert_allclose(mj.grad(loss)(a, b), 2 * a)


# --- the views are the tables --------------------------------------------------------------------


def test_jax_registration_lands_in_mj_tables():
    p = MULTIPLY_ADD_P
    for table in (jvp_rules, transpose_rules, vmap_rules):
        assert p in table
    assert p in platform_lowering_rules["cpu"]
    assert p in lowering_rules  # the default names the platforms that have rules
    # reading a view gives back the JAX rule that was registered
    assert ad.primitive_jvps[p].__name__ == "multiply_add_value_and_jvp"
    assert batching.primitive_batchers[p].__name__ == "multiply_add_batch"
    assert p in ad.primitive_jvps
    assert p in batching.primitive_batchers


def test_mj_rules_read_in_jax_signature():
    # sin's mj jvp rule, seen through JAX's signature: single values in, single values out
    sin_jvp = ad.primitive_jvps[lax.sin_p]
    out, t = sin_jvp((np.float32(0.5),), (np.float32(2.0),))
    np.testing.assert_allclose(out, np.sin(0.5), rtol=1e-6)
    np.testing.assert_allclose(t, 2.0 * np.cos(0.5), rtol=1e-6)
    # neg's mj transpose rule: ct -> [-ct]
    (ct,) = ad.primitive_transposes[lax.neg_p](np.float32(3.0), ad.UndefinedPrimal(None))
    assert ct == -3.0
    # add's mj batching rule, JAX's signature (None = unbatched)
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    out, d = batching.primitive_batchers[lax.add_p]((x, np.float32(1.0)), (1, None))
    np.testing.assert_array_equal(np.moveaxis(np.asarray(out), d, 0), x.T + 1)


def test_assigning_an_mj_rule_back_through_the_view_round_trips():
    p = Primitive("double_it")
    impl_rules[p] = lambda x: [np.multiply(x, 2)]
    abstract_eval_rules[p] = lambda x: [ShapedArray(x.shape, x.dtype)]
    ad.deflinear2(p, lambda ct, x: [bind1(p, ct)])
    assert mj.grad(lambda x: bind1(p, x))(3.0) == 2.0
    assert mj.jvp(lambda x: bind1(p, x), (3.0,), (1.5,)) == (6.0, 3.0)
    jvp = ad.primitive_jvps[p]
    del ad.primitive_jvps[p]
    assert p not in jvp_rules
    ad.primitive_jvps[p] = jvp
    assert mj.jvp(lambda x: bind1(p, x), (3.0,), (1.5,)) == (6.0, 3.0)


def test_defvectorized_defbroadcasting_and_helpers():
    p = Primitive("cube")
    impl_rules[p] = lambda x: [np.power(x, 3)]
    abstract_eval_rules[p] = lambda x: [ShapedArray(x.shape, x.dtype)]
    ad.defjvp(p, lambda g, x: g * 3 * x * x)
    batching.defvectorized(p)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(mj.vmap(lambda v: bind1(p, v))(x), x**3)
    np.testing.assert_allclose(mj.vmap(mj.grad(lambda v: bind1(p, v)))(x), 3 * x**2)

    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(batching.bdim_at_front(m, 1, 3), m.T)
    np.testing.assert_array_equal(batching.bdim_at_front(x, None, 2), np.stack([x, x]))
    np.testing.assert_array_equal(batching.moveaxis(m, -1, 0), m.T)
    assert batching.not_mapped is None
    assert ad.Zero.from_primal_value(x).aval.shape == (3,)


def test_multiple_results_primitive():
    p = Primitive("sincos", multiple_results=True)
    impl_rules[p] = lambda x: [np.sin(x), np.cos(x)]
    abstract_eval_rules[p] = lambda x: [ShapedArray(x.shape, x.dtype)] * 2

    def sincos_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        s, c = bind(p, x)
        return [s, c], [c * t, -s * t]

    def sincos_batch(args, dims):
        return bind(p, *args), [dims[0], dims[0]]

    def sincos_lowering(ctx, x):
        assert len(ctx.avals_out) == 2
        return [mlir.hlo.sine(x), mlir.hlo.cosine(x)]

    ad.primitive_jvps[p] = sincos_jvp
    batching.primitive_batchers[p] = sincos_batch
    mlir.register_lowering(p, sincos_lowering)

    def f(x):
        s, c = bind(p, x)
        return s * c

    x = np.array([0.3, 0.7], np.float32)
    np.testing.assert_allclose(mj.vmap(mj.grad(f))(x), np.cos(2 * x), rtol=1e-5)
    np.testing.assert_allclose(mj.jit(mj.vmap(f))(x), np.sin(x) * np.cos(x), rtol=1e-6)


def test_axis_and_fancy_batchers_see_size_and_name():
    seen = []

    def make(name):
        p = Primitive(name)
        impl_rules[p] = lambda x: [np.negative(x)]
        abstract_eval_rules[p] = lambda x: [ShapedArray(x.shape, x.dtype)]
        return p

    p1, p2 = make("neg_axis"), make("neg_fancy")

    def axis_rule(axis_size, axis_name, trace, args, dims):
        seen.append((axis_size, axis_name))
        return bind1(p1, *args), dims[0]

    def fancy_rule(axis_data, args, dims):
        seen.append((axis_data.size, axis_data.name))
        return bind1(p2, *args), dims[0]

    batching.axis_primitive_batchers[p1] = axis_rule
    batching.fancy_primitive_batchers[p2] = fancy_rule
    x = np.arange(4.0, dtype=np.float32)
    np.testing.assert_array_equal(mj.vmap(lambda v: bind1(p1, v), axis_name="i")(x), -x)
    np.testing.assert_array_equal(mj.vmap(lambda v: bind1(p2, v))(x), -x)
    assert seen == [(4, "i"), (4, None)]
    # read through another batching view, a rule is presented in that view's signature
    assert batching.axis_primitive_batchers[p1] is axis_rule
    as_plain = batching.primitive_batchers[p1]
    out, d = as_plain((x,), (0,))
    np.testing.assert_array_equal(out, -x)
    assert d == 0
    assert seen[-1] == (4, None)


def test_lower_fun_and_ir_constant():
    p = Primitive("softplus_like")
    impl_rules[p] = lambda x: [np.log1p(np.exp(x))]
    abstract_eval_rules[p] = lambda x: [ShapedArray(x.shape, x.dtype)]
    mlir.register_lowering(
        p, mlir.lower_fun(lambda x: mnp.log1p(mnp.exp(x)), multiple_results=False)
    )
    x = np.array([-1.0, 0.0, 2.0], np.float32)
    np.testing.assert_allclose(mj.jit(lambda v: bind1(p, v))(x), np.log1p(np.exp(x)), rtol=1e-6)

    q = Primitive("plus_seven")
    impl_rules[q] = lambda x: [np.add(x, np.float32(7))]
    abstract_eval_rules[q] = lambda x: [ShapedArray(x.shape, x.dtype)]

    def plus_seven_lowering(ctx, x):
        (aval,) = ctx.avals_in
        seven = mlir.ir_constant(np.full(aval.shape, 7, aval.dtype))
        return [mlir.hlo.add(x, seven)]

    mlir.register_lowering(q, plus_seven_lowering)
    np.testing.assert_array_equal(mj.jit(lambda v: bind1(q, v))(x), x + 7)


def test_defbilinear():
    p = Primitive("scale_by")
    impl_rules[p] = lambda x, y: [np.multiply(x, y)]
    abstract_eval_rules[p] = lambda x, y: [ShapedArray(x.shape, x.dtype)]
    ad.defbilinear(p, lambda ct, x, y: bind1(p, ct, y), lambda ct, x, y: bind1(p, x, ct))
    f = lambda x, y: bind1(p, x, y)  # noqa: E731
    assert mj.grad(f, argnums=(0, 1))(3.0, 5.0) == (5.0, 3.0)
    assert mj.jvp(f, (3.0, 5.0), (1.0, 2.0)) == (15.0, 11.0)


# --- mj.as_jax: `import jax` resolved to mj ------------------------------------------------------

_JAX_SCRIPT = """
import sys

import jax
import jax.numpy as jnp
from jax import lax
from jax.interpreters import ad, batching, mlir

import mj

assert jax.numpy is mj.numpy and lax is mj.lax and ad is mj.interpreters.ad
print("version", jax.__version__, jax.__version_info__, __name__, sys.argv[1:])


def loss(w, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2)


w = jnp.array([[0.5, -1.0], [2.0, 0.25]])
x = jnp.array([[1.0, 2.0], [3.0, -1.0]])
g = jax.jit(jax.grad(loss))(w, x)
print("grad", " ".join(repr(float(v)) for v in g.ravel()))
print("vmap", " ".join(repr(float(v)) for v in jax.vmap(jnp.sin)(jnp.arange(3.0))))
try:
    import jax.no_such_module  # noqa: F401
except ModuleNotFoundError as err:
    print("missing", err.name)
"""


def _run(*args, cwd):
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


def test_python_m_as_jax_runs_a_jax_script(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(_JAX_SCRIPT)
    proc = _run("-m", "mj.as_jax", str(script), "--steps", "3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    assert lines["version"] == "0.10.2 (0, 10, 2) __main__ ['--steps', '3']"
    w = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    t = np.tanh(x @ w)
    expected = x.T @ (2 * t * (1 - t**2))  # d/dw sum(tanh(xw)^2)
    got = np.array([float(v) for v in lines["grad"].split()]).reshape(2, 2)
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    vmapped = np.array([float(v) for v in lines["vmap"].split()])
    np.testing.assert_allclose(vmapped, np.sin(np.arange(3.0)), rtol=1e-6)
    assert lines["missing"] == "jax.no_such_module"


def test_install_is_opt_in_and_reversible():
    import sys

    import mj.as_jax

    had_jax = "jax" in sys.modules
    if had_jax:  # the oracle environment imports real JAX: the hook must refuse to shadow it
        with pytest.raises(RuntimeError, match="already imported"):
            mj.as_jax.install()
        return
    mj.as_jax.install()
    try:
        import jax

        assert jax.interpreters.mlir is mlir  # a submodule `import mj` does not import
        import jax.interpreters.batching

        assert jax.__version__ == "0.10.2"
        assert jax.interpreters.batching is batching
        assert jax.grad is mj.grad
        with pytest.raises(AttributeError, match=r"no mj\.no_such_function"):
            jax.no_such_function  # noqa: B018
        assert mj.numpy.__spec__.name == "mj.numpy"  # the mj module is left as it was
        from jax._src import traceback_util  # private helpers: see mj.as_jax (cosmetic, no-op)

        f = traceback_util.api_boundary(len)
        assert f is len
        assert traceback_util.register_exclusion("/some/path") is None
        with pytest.raises(ModuleNotFoundError, match="no counterpart"):
            import jax._src.interpreters.pxla
    finally:
        mj.as_jax.uninstall()
    assert "jax" not in sys.modules
    assert not mj.as_jax.installed()


# --- the names JAX libraries read ---------------------------------------------------------------


def test_public_names_are_mj_objects():
    import mj_autodiff.extend as ade
    from mj_xla.extend import JaxRuntimeError

    assert mj.lax.stop_gradient_p is ade.stop_gradient_p
    assert mj.custom_derivatives.custom_jvp_call_p is ade.custom_jvp_call_p
    assert mj.custom_derivatives.custom_vjp_call_p is ade.custom_vjp_call_p
    assert mj.errors.JaxRuntimeError is JaxRuntimeError
    # stop_gradient_p is the primitive mj.lax.stop_gradient binds
    assert "stop_gradient" in str(mj.make_jaxpr(mj.lax.stop_gradient)(1.0))


def _seen_kind(t):
    return "zero" if type(t) is mj.custom_derivatives.SymbolicZero else "array"


def test_custom_jvp_symbolic_zeros():
    from mj.custom_derivatives import SymbolicZero, custom_jvp

    seen = []

    @custom_jvp
    def f(x, y):
        return mnp.sin(x) * y

    def f_jvp(primals, tangents):
        (x, y), (xt, yt) = primals, tangents
        seen.append(tuple(_seen_kind(t) for t in tangents))
        out = f(x, y)
        if type(xt) is SymbolicZero and type(yt) is SymbolicZero:
            return out, SymbolicZero.from_primal_value(out)
        tan = mnp.zeros_like(out)
        if type(xt) is not SymbolicZero:
            tan = tan + mnp.cos(x) * xt * y
        if type(yt) is not SymbolicZero:
            tan = tan + mnp.sin(x) * yt
        return out, tan

    f.defjvp(f_jvp, symbolic_zeros=True)
    np.testing.assert_allclose(mj.grad(f)(1.0, 2.0), 2 * np.cos(1.0), rtol=1e-6)
    assert seen[-1] == ("array", "zero")
    np.testing.assert_allclose(mj.grad(f, argnums=1)(1.0, 2.0), np.sin(1.0), rtol=1e-6)
    assert seen[-1] == ("zero", "array")
    np.testing.assert_allclose(mj.jit(mj.grad(f))(1.0, 2.0), 2 * np.cos(1.0), rtol=1e-6)
    assert seen[-1] == ("array", "zero")
    # a rule may return a symbolic zero output tangent
    h = custom_jvp(lambda x: x * 2.0)
    h.defjvp(lambda p, t: (h(*p), SymbolicZero.from_primal_value(h(*p))), symbolic_zeros=True)
    assert mj.jvp(h, (1.0,), (1.0,)) == (2.0, 0.0)
    # without symbolic_zeros the rule sees arrays of zeros
    f.defjvp(f_jvp)
    mj.grad(f)(1.0, 2.0)
    assert seen[-1] == ("array", "array")


def test_custom_vjp_symbolic_zeros():
    from mj.custom_derivatives import (
        CustomVJPPrimal,
        SymbolicZero,
        custom_vjp,
        custom_vjp_primal_tree_values,
    )

    seen = []

    @custom_vjp
    def g(x, y):
        return x * y, x + y

    def g_fwd(x, y):
        assert type(x) is CustomVJPPrimal
        seen.append(("fwd", x.perturbed, y.perturbed))
        x, y = custom_vjp_primal_tree_values((x, y))
        return g(x, y), (x, y)

    def g_bwd(res, cts):
        x, y = res
        ct_prod, ct_sum = cts
        seen.append(("bwd", _seen_kind(ct_prod), _seen_kind(ct_sum)))
        ct_x = ct_y = None
        if type(ct_prod) is not SymbolicZero:
            ct_x, ct_y = ct_prod * y, ct_prod * x
        if type(ct_sum) is not SymbolicZero:
            ct_x = ct_sum if ct_x is None else ct_x + ct_sum
            ct_y = ct_sum if ct_y is None else ct_y + ct_sum
        return ct_x, ct_y

    g.defvjp(g_fwd, g_bwd, symbolic_zeros=True)
    assert mj.grad(lambda x, y: g(x, y)[0])(2.0, 5.0) == 5.0
    assert seen[-2:] == [("fwd", True, False), ("bwd", "array", "zero")]
    assert mj.grad(lambda x, y: g(x, y)[1], argnums=1)(2.0, 5.0) == 1.0
    assert seen[-2:] == [("fwd", False, True), ("bwd", "zero", "array")]
    assert mj.jit(mj.grad(lambda x, y: sum(g(x, y))))(2.0, 5.0) == 6.0  # y + 1


def test_io_callback():
    from mj.experimental import io_callback

    log = []

    def f(x):
        io_callback(lambda v: log.append(float(v)), None, x)
        doubled = io_callback(
            lambda v: np.asarray(v * 2, np.float32), mj.ShapeDtypeStruct((), np.float32), x
        )
        # unused result: still called (the callback has an effect)
        io_callback(lambda v: (log.append(-float(v)), v)[1], mj.ShapeDtypeStruct((), np.float32), x)
        return doubled + 1

    assert f(mnp.float32(1.0)) == 3.0
    assert mj.jit(f)(mnp.float32(2.0)) == 5.0
    assert mj.jit(f)(mnp.float32(3.0)) == 7.0  # runs on every call, not at trace time
    assert log == [1.0, -1.0, 2.0, -2.0, 3.0, -3.0]
    out = mj.vmap(f)(mnp.arange(3.0, dtype=mnp.float32))
    np.testing.assert_array_equal(out, [1.0, 3.0, 5.0])
    with pytest.raises(ValueError, match="ordered IO callback"):
        mj.vmap(lambda x: io_callback(print, None, x, ordered=True))(mnp.arange(2.0))
    with pytest.raises(ValueError, match="do not support JVP"):
        mj.grad(f)(1.0)


def test_register_vmappable_under_jit():
    """``batching.register_vmappable`` in JAX's spelling: a handler that binds primitives on
    the way in (under the enclosing jit) and on the way out (on the batch), as JAX's
    batching_test VmappableTest."""

    class Box:  # not a pytree
        def __init__(self, data):
            self.data = data

    def to_elt(cont, get_idx, x, spec):
        return Box(cont(x.data * 2.0, spec))

    def from_elt(cont, axis_size, elt, spec):
        return Box(cont(axis_size, elt.data + 1.0, spec))

    batching.register_vmappable(Box, int, int, to_elt, from_elt, None)
    try:

        @mj.jit
        def f(x):
            return mj.vmap(lambda b: Box(b.data * b.data), in_axes=1, out_axes=0, axis_size=3)(
                Box(x)
            ).data

        x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
        np.testing.assert_allclose(np.asarray(f(x)), ((2.0 * x) ** 2 + 1.0).T)
    finally:
        batching.unregister_vmappable(Box)


def test_a_builtin_impl_read_before_def_impl_wraps_and_restores():
    """JAX's pattern (api_test's impl-counting tests): ``impl = sin_p.impl``, then
    ``sin_p.def_impl(lambda x: count() or impl(x))``, then ``def_impl(impl)`` to restore. The
    impl read first computes sin itself (JAX's apply_primitive), so the wrapper does not
    recurse, and registering it again puts mj's own rule back: a process where this once
    recursed forever left every later ``sin`` broken."""
    from mj import lax

    calls = []
    shortcut = impl_rules.shortcut(lax.sin_p)  # mj's eager fast path for sin
    fast = shortcut.ufunc
    sin_impl = lax.sin_p.impl
    x = np.float32(0.5)
    lax.sin_p.def_impl(lambda v, **kw: calls.append(1) or sin_impl(v, **kw))
    try:
        np.testing.assert_allclose(np.asarray(lax.sin(x)), np.sin(x), rtol=1e-6)
        assert calls == [1]
        assert shortcut.ufunc is None  # the registered function runs, not the fast path
        staged = mj.make_jaxpr(lambda v: sin_impl(v))(x)  # traced arguments stage it
        assert [e.primitive.name for e in staged.jaxpr.eqns] == ["sin"]
    finally:
        lax.sin_p.def_impl(sin_impl)
    np.testing.assert_allclose(np.asarray(lax.sin(x)), np.sin(x), rtol=1e-6)
    assert calls == [1]
    assert shortcut.ufunc is fast  # and the fast path is back
    assert lax.sin(np.float32(0.25)).dtype == np.float32
