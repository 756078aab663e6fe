"""JAX's extension API and checkify on mj against JAX 0.10.2: seed 003's ``multiply_add``
with its jvp, transpose, batching and lowering rules written once, in JAX's signatures, and
registered through ``ad`` / ``batching`` / ``mlir`` of each library; checkify's messages.

Only the primitive's creation differs: JAX's ``jax.extend.core.Primitive`` with
``def_impl``/``def_abstract_eval``, mj's ``Primitive`` with ``bind1`` and its impl/typing
tables."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import checkify as jax_checkify
from jax.extend import core as jax_core
from jax.interpreters import ad as jax_ad
from jax.interpreters import batching as jax_batching
from jax.interpreters import mlir as jax_mlir

import mj
import mj.numpy as mnp
from mj.experimental import checkify as mj_checkify
from mj.interpreters import ad as mj_ad
from mj.interpreters import batching as mj_batching
from mj.interpreters import mlir as mj_mlir
from mj_core import Primitive, ShapedArray, bind1, impl_rules
from mj_ir import abstract_eval_rules

pytestmark = pytest.mark.oracle


def _jax_primitive():
    from jax._src.lib.mlir.dialects import hlo

    p = jax_core.Primitive("multiply_add")
    p.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
    p.def_abstract_eval(lambda x, y, z: jax.core.ShapedArray(x.shape, x.dtype))
    return p, p.bind, jax, jax_ad, jax_batching, jax_mlir, hlo


def _mj_primitive():
    p = Primitive("multiply_add_oracle")
    impl_rules[p] = lambda x, y, z: [np.add(np.multiply(x, y), z)]
    abstract_eval_rules[p] = lambda x, y, z: [ShapedArray(x.shape, x.dtype)]
    return p, lambda *a: bind1(p, *a), mj, mj_ad, mj_batching, mj_mlir, mj_mlir.hlo


def _register(p, prim, lib, ad, batching, mlir, hlo):
    """Seed 003's rules in modern JAX: the same text for both libraries."""

    def lowering(ctx, xc, yc, zc):
        return [hlo.AddOp(hlo.MulOp(xc, yc), zc).result]

    mlir.register_lowering(p, lowering, platform="cpu")

    def value_and_jvp(arg_values, arg_tangents):
        x, y, z = arg_values
        xt, yt, zt = arg_tangents

        def make_zero(tan):
            return lib.numpy.zeros_like(x) if type(tan) is ad.Zero else tan

        out = prim(x, y, z)
        return out, prim(make_zero(xt), y, prim(x, make_zero(yt), make_zero(zt)))

    ad.primitive_jvps[p] = value_and_jvp

    def transpose(ct, x, y, z):
        if not ad.is_undefined_primal(x):
            ct_y = ad.Zero(y.aval) if type(ct) is ad.Zero else prim(x, ct, lib.numpy.zeros_like(x))
            return None, ct_y, ct
        ct_x = ad.Zero(x.aval) if type(ct) is ad.Zero else prim(ct, y, lib.numpy.zeros_like(y))
        return ct_x, None, ct

    ad.primitive_transposes[p] = transpose

    def batch(vector_arg_values, batch_axes):
        assert batch_axes[0] == batch_axes[1] == batch_axes[2]
        return prim(*vector_arg_values), batch_axes[0]

    batching.primitive_batchers[p] = batch


LIBS = {}
for _name, _make in (("jax", _jax_primitive), ("mj", _mj_primitive)):
    _p, _prim, _lib, *_mods = _make()
    _register(_p, _prim, _lib, *_mods)
    LIBS[_name] = (_lib, _prim)


def _programs(lib, prim):
    np_ = jnp if lib is jax else mnp

    def square_add(a, b):
        return prim(a, a, b)

    def loss(a, b):
        return np_.sum(lib.vmap(square_add)(a, b))

    a = np.array([2.0, 3.0, -1.5])
    b = np.array([10.0, 20.0, 0.5])
    return {
        "eager": square_add(a, b),
        "jit": lib.jit(square_add)(a, b),
        "jvp": lib.jvp(square_add, (a, b), (np.ones(3), np.ones(3))),
        "grad": lib.grad(lambda a: square_add(a, 10.0 * a))(2.0),
        "jit_grad": lib.jit(lib.grad(loss))(a, b),
        "vmap_axis1": lib.vmap(square_add, in_axes=1)(np.stack([a, b]), np.stack([b, b])),
        "vmap_vmap": lib.vmap(lib.vmap(square_add))(np.stack([a, b]), np.stack([b, a])),
    }


def test_multiply_add_extension_api_matches_jax(x64):
    got = _programs(*LIBS["mj"])
    want = _programs(*LIBS["jax"])
    for key in want:
        g_leaves = jax.tree_util.tree_leaves(want[key])
        m_leaves = mj.tree_util.tree_leaves(got[key])
        assert len(g_leaves) == len(m_leaves), key
        for g, m in zip(g_leaves, m_leaves, strict=True):
            np.testing.assert_allclose(np.asarray(m), np.asarray(g), rtol=1e-6, err_msg=key)
            assert np.asarray(m).dtype == np.asarray(g).dtype, key


# --- checkify -----------------------------------------------------------------------------------


def _checked_programs(lib, np_, ck):
    def f(x, i):
        ck.check(x > 0, "x={} must be positive", x)
        y = np_.log(x) * 2
        return x / i, np_.sin(x) * np_.inf * 0, np_.arange(3.0)[i], y

    def vm(x):
        ck.check(x > 0, "pos {}", x)
        return x

    def branchy(x):
        return lib.lax.cond(
            x > 0,
            lambda x: (ck.check(x < 5, "small {}", x), x)[1],
            lambda x: (ck.check(x > -5, "big {v}", v=x), x)[1],
            x,
        )

    cases = []
    for name in ("user_checks", "nan_checks", "div_checks", "index_checks", "all_checks"):
        checked = ck.checkify(f, errors=getattr(ck, name))
        for args in ((np_.float32(-1.0), 0), (np_.float32(2.0), 5), (np_.float32(2.0), 1)):
            cases.append(checked(*args)[0].get())
            cases.append(lib.jit(checked)(*args)[0].get())
    cases.append(lib.vmap(ck.checkify(vm))(np_.array([1.0, -2.0, 3.0]))[0].get())
    for v in (7.0, -7.0, 1.0):
        cases.append(lib.jit(ck.checkify(branchy))(v)[0].get())

    def fori(x):
        def body(i, c):
            ck.check(c < 20.0, "c={} too big at i={}", c, i)
            return c * 2.0

        return lib.lax.fori_loop(0, 6, body, x)

    def whiled(x):
        def body(c):
            ck.check(c < 20.0, "c={} too big", c)
            return c * 2.0

        return lib.lax.while_loop(lambda c: c < 100.0, body, x)

    def scanned(x):
        def body(c, y):
            ck.check(y != 3.0, "y={} hit", y)
            return c + np_.log(y + x), y

        return lib.lax.scan(body, x, np_.arange(5.0))

    for v in (0.1, 1.0, 30.0, 150.0):
        cases.append(ck.checkify(fori)(v)[0].get())
        cases.append(lib.jit(ck.checkify(whiled))(v)[0].get())
    for v in (-2.5, 0.5):
        cases.append(lib.jit(ck.checkify(scanned, errors=ck.all_checks))(v)[0].get())
        cases.append(ck.checkify(scanned)(v)[0].get())
    cases.append(lib.vmap(ck.checkify(fori))(np_.array([0.1, 1.0, 3.0]))[0].get())
    nan_in = np_.float32(np.nan)
    for fun in (
        lambda x: x * 2.0,
        lambda x: -x,
        lambda x: np_.abs(x) + 1.0,
        lambda x: np_.exp(x) - np_.exp(x),
        lambda x: np_.sum(np_.sqrt(x - np_.arange(3.0))),
    ):
        for v in (nan_in, np_.float32(np.inf), np_.float32(1.5)):
            cases.append(ck.checkify(fun, errors=ck.float_checks)(v)[0].get())
    x5 = np_.arange(5.0)
    for fun in (
        lambda i: lib.lax.dynamic_slice(x5, (i,), (2,)),
        lambda i: lib.lax.dynamic_update_slice(x5, np_.ones(3), (i,)),
        lambda i: x5.at[i].add(1.0),
        lambda i: x5.at[i].set(1.0),
        lambda i: np_.reshape(x5, (5, 1))[i, 0],
    ):
        for i in (-2, 0, 3, 4, 7):
            cases.append(lib.jit(ck.checkify(fun, errors=ck.index_checks))(i)[0].get())
    return cases


def test_checkify_messages_match_jax():
    want = _checked_programs(jax, jnp, jax_checkify)
    got = _checked_programs(mj, mnp, mj_checkify)
    assert got == want


# --- symbolic_zeros ------------------------------------------------------------------------------


def _symbolic_zero_sightings(lib):
    cd = lib.custom_derivatives
    seen = []

    def kind(t):
        return "zero" if type(t) is cd.SymbolicZero else "array"

    @cd.custom_jvp
    def f(x, y):
        return lib.numpy.sin(x) * y

    def f_jvp(primals, tangents):
        (x, y), (xt, yt) = primals, tangents
        seen.append(("jvp", kind(xt), kind(yt)))
        out = f(x, y)
        tan = lib.numpy.zeros_like(out)
        if type(xt) is not cd.SymbolicZero:
            tan = tan + lib.numpy.cos(x) * xt * y
        if type(yt) is not cd.SymbolicZero:
            tan = tan + lib.numpy.sin(x) * yt
        return out, tan

    f.defjvp(f_jvp, symbolic_zeros=True)

    @cd.custom_vjp
    def g(x, y):
        return x * y, x + y

    def g_fwd(x, y):
        seen.append(("fwd", x.perturbed, y.perturbed))
        x, y = cd.custom_vjp_primal_tree_values((x, y))
        return g(x, y), (x, y)

    def g_bwd(res, cts):
        x, y = res
        seen.append(("bwd", kind(cts[0]), kind(cts[1])))
        ct_x = ct_y = 0.0
        if type(cts[0]) is not cd.SymbolicZero:
            ct_x, ct_y = cts[0] * y, cts[0] * x
        if type(cts[1]) is not cd.SymbolicZero:
            ct_x, ct_y = ct_x + cts[1], ct_y + cts[1]
        return ct_x, ct_y

    g.defvjp(g_fwd, g_bwd, symbolic_zeros=True)
    values = [
        lib.grad(f)(1.0, 2.0),
        lib.grad(f, argnums=1)(1.0, 2.0),
        lib.jit(lib.grad(f))(1.0, 2.0),
        lib.jvp(lambda x: f(x, 3.0), (1.0,), (1.0,))[1],
        lib.grad(lambda x, y: g(x, y)[0])(2.0, 5.0),
        lib.grad(lambda x, y: g(x, y)[1], argnums=1)(2.0, 5.0),
        lib.jit(lib.grad(lambda x, y: sum(g(x, y)), argnums=(0, 1)))(2.0, 5.0),
    ]
    return seen, [float(v) for v in lib.tree_util.tree_leaves(values)]


def test_symbolic_zeros_match_jax():
    jax_seen, jax_values = _symbolic_zero_sightings(jax)
    mj_seen, mj_values = _symbolic_zero_sightings(mj)
    np.testing.assert_allclose(mj_values, jax_values, rtol=1e-6)
    assert mj_seen == jax_seen
