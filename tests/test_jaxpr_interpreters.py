"""Custom jaxpr interpreters written for JAX run on mj's jaxprs (issue 37).

Seed 004's "Writing custom Jaxpr interpreters" page in its modern-JAX form (the ``eval_jaxpr``
and ``inverse`` interpreters, ``jit(vmap(grad(inverse(f))))``) with ``jax`` spelled ``mj``, and
the loop JAX users write (``jaxpr.invars`` / ``constvars`` / ``eqns``,
``eqn.primitive.bind(*invals, **eqn.params)``, ``multiple_results``, ``Literal.val``) over
jaxprs with constants, literals, multiple results, control flow and custom derivatives,
compared with mj's own ``eval_jaxpr`` and with the functions themselves.
"""

import contextlib
import io
import sys
from functools import wraps

import numpy as np
import pytest

import mj
import mj.extend.core
import mj.numpy as jnp
from mj import core, lax
from mj.core import ShapedArray


def safe_map(f, *xs):
    assert len({len(x) for x in xs}) == 1, [len(x) for x in xs]
    return list(map(f, *xs))


# --- the page, as JAX 0.10.2 runs it (``from jax import core``; ``safe_map`` is jax._src's) ------


def eval_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(var):
        if type(var) is core.Literal:
            return var.val
        return env[var]

    def write(var, val):
        env[var] = val

    safe_map(write, jaxpr.invars, args)
    safe_map(write, jaxpr.constvars, consts)
    for eqn in jaxpr.eqns:
        invals = safe_map(read, eqn.invars)
        outvals = eqn.primitive.bind(*invals, **eqn.params)
        if not eqn.primitive.multiple_results:
            outvals = [outvals]
        safe_map(write, eqn.outvars, outvals)
    return safe_map(read, jaxpr.outvars)


inverse_registry = {lax.exp_p: jnp.log, lax.tanh_p: jnp.arctanh}


def inverse(fun):
    @wraps(fun)
    def wrapped(*args, **kwargs):
        closed_jaxpr = mj.make_jaxpr(fun)(*args, **kwargs)
        out = inverse_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, *args)
        return out[0]

    return wrapped


def inverse_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(var):
        if type(var) is core.Literal:
            return var.val
        return env[var]

    def write(var, val):
        env[var] = val

    safe_map(write, jaxpr.outvars, args)
    safe_map(write, jaxpr.constvars, consts)
    for eqn in jaxpr.eqns[::-1]:
        invals = safe_map(read, eqn.outvars)
        if eqn.primitive not in inverse_registry:
            raise NotImplementedError(f"{eqn.primitive} does not have registered inverse.")
        outval = inverse_registry[eqn.primitive](*invals)
        safe_map(write, eqn.invars, [outval])
    return safe_map(read, jaxpr.invars)


def f(x):
    return jnp.exp(jnp.tanh(x))


def test_page_examine_jaxpr():
    def foo(x):
        return x + 1

    jaxpr = mj.make_jaxpr(foo)(5).jaxpr
    assert len(jaxpr.invars) == 1
    assert jaxpr.constvars == []
    (eqn,) = jaxpr.eqns
    assert eqn.primitive.name == "add"
    assert eqn.invars[0] is jaxpr.invars[0]
    assert type(eqn.invars[1]) is mj.extend.core.Literal
    assert eqn.invars[1].val == 1
    assert jaxpr.outvars == eqn.outvars
    assert eqn.params == {}
    assert jaxpr.effects == set()
    assert eqn.effects == set()

    c = np.arange(5.0)

    def bar(w, b, x):
        return jnp.dot(w, x) + b + c, x

    closed = mj.make_jaxpr(bar)(jnp.ones((5, 10)), jnp.ones(5), jnp.ones(10))
    jaxpr = closed.jaxpr
    assert [v.aval.shape for v in jaxpr.invars] == [(5, 10), (5,), (10,)]
    assert [v.aval.shape for v in jaxpr.constvars] == [(5,)]
    assert jaxpr.outvars[1] is jaxpr.invars[2]
    assert closed.literals is closed.consts
    assert len(closed.consts) == 1
    assert [a.shape for a in closed.in_avals] == [(5, 10), (5,), (10,)]


def test_page_eval_jaxpr():
    x = jnp.ones(5)
    closed_jaxpr = mj.make_jaxpr(f)(x)
    (out,) = eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, x)
    np.testing.assert_allclose(out, np.exp(np.tanh(np.ones(5))), rtol=1e-6)


def test_page_inverse_composes_with_jit_vmap_grad():
    f_inv = inverse(f)
    np.testing.assert_allclose(f_inv(f(1.0)), 1.0, rtol=1e-5)
    jaxpr = mj.make_jaxpr(inverse(f))(f(1.0)).jaxpr
    assert jaxpr.eqns[0].primitive is lax.log_p  # the last equation of f, inverted, runs first
    ys = (np.arange(5) + 1.0) / 5.0
    got = mj.jit(mj.vmap(mj.grad(inverse(f))))(ys)
    # f^-1(y) = arctanh(log y), so d/dy f^-1(y) = 1 / (y (1 - log(y)^2))
    want = 1.0 / (ys * (1.0 - np.log(ys) ** 2))
    np.testing.assert_allclose(got, want, rtol=1e-4)


# --- the user loop over many kinds of jaxprs ----------------------------------------------------

C = np.array([1.0, -2.0, 3.0], np.float32)


@mj.custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))


@mj.custom_vjp
def clip_gradient(x):
    return jnp.sin(x)


def _clip_fwd(x):
    return jnp.sin(x), jnp.cos(x)


def _clip_bwd(cos_x, g):
    return (jnp.clip(g * cos_x, -0.5, 0.5),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)

X = np.array([0.5, 1.5, -0.25], np.float32)

PROGRAMS = {
    "constants": (lambda x: jnp.sin(x) * C + jnp.cos(C), (X,)),
    "literals": (lambda x: x * 2.0 + 1 - 0.5 * x, (X,)),
    "multiple_outputs": (lambda x: (x, jnp.sin(x), x * 2), (X,)),
    "multiple_results_primitive": (lambda x: lax.sort((x, -x), num_keys=1), (X,)),
    "cond": (lambda p, x: lax.cond(p, lambda y: jnp.sin(y) * C, jnp.cos, x), (True, X)),
    "cond_false": (lambda p, x: lax.cond(p, lambda y: jnp.sin(y) * C, jnp.cos, x), (False, X)),
    "scan": (
        lambda x: lax.scan(lambda c, a: (c * 0.5 + a * C, c.sum() * a), x, jnp.stack([X, X])),
        (X,),
    ),
    "while": (
        lambda x: lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * C), (0, x)),
        (X,),
    ),
    "fori_loop": (lambda x: lax.fori_loop(0, 3, lambda i, c: c * 1.5 + i, x), (X,)),
    "custom_jvp": (lambda x: log1pexp(x) * C, (X,)),
    "custom_vjp": (lambda x: clip_gradient(x * C), (X,)),
    "jit": (lambda x: mj.jit(lambda y: jnp.sin(y) * C)(x) + 1.0, (X,)),
}


def _flat(tree):
    return mj.tree_util.tree_leaves(tree)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_user_loop_matches_mj_eval_jaxpr_and_the_function(name):
    fun, args = PROGRAMS[name]
    closed = mj.make_jaxpr(fun)(*args)
    flat_args = _flat(args)
    assert len(closed.jaxpr.invars) == len(flat_args)
    assert len(closed.jaxpr.constvars) == len(closed.consts)
    got = eval_jaxpr(closed.jaxpr, closed.consts, *flat_args)
    autodidax = mj.eval_jaxpr(closed, flat_args)
    jax_spelled = mj.core.eval_jaxpr(closed.jaxpr, closed.consts, *flat_args)
    want = _flat(fun(*args))
    assert len(got) == len(want) == len(autodidax) == len(jax_spelled)
    for g, a, s, w in zip(got, autodidax, jax_spelled, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)
        np.testing.assert_array_equal(g, a)
        np.testing.assert_array_equal(g, s)


@pytest.mark.parametrize("name", ["constants", "literals", "scan", "custom_jvp", "custom_vjp"])
def test_user_loop_composes_with_grad_vmap_jit(name):
    fun, (x,) = PROGRAMS[name]
    closed = mj.make_jaxpr(fun)(x)

    def interpreted(y):
        return eval_jaxpr(closed.jaxpr, closed.consts, y)

    def total(g):
        return lambda y: sum(jnp.sum(o) for o in _flat(g(y)))

    np.testing.assert_allclose(mj.grad(total(interpreted))(x), mj.grad(total(fun))(x), rtol=1e-5)
    xs = np.stack([X, 2 * X])
    for got, want in zip(_flat(mj.vmap(interpreted)(xs)), _flat(mj.vmap(fun)(xs)), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    for got, want in zip(_flat(mj.jit(interpreted)(x)), _flat(fun(x)), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_invars_exclude_constants():
    c = np.array([2.0, 3.0, 4.0], np.float32)
    x = np.array([0.1, 0.2, 0.3], np.float32)
    closed = mj.make_jaxpr(lambda x: jnp.sin(x) * c)(x)
    jaxpr = closed.jaxpr
    assert len(jaxpr.invars) == 1
    assert len(jaxpr.constvars) == 1
    assert jaxpr.in_binders == [*jaxpr.constvars, *jaxpr.invars]  # Autodidax's spelling
    assert jaxpr.outvars is jaxpr.outs
    np.testing.assert_array_equal(closed.consts[0], c)
    # a loop binding arguments to ``invars`` computes sin(x) * c, not sin(c) * x
    (out,) = eval_jaxpr(jaxpr, closed.consts, x)
    np.testing.assert_allclose(out, np.sin(x) * c, rtol=1e-6)


def test_sub_jaxprs_keep_jax_constvar_convention():
    """A ClosedJaxpr in params holds as many constants as its jaxpr has constvars; a bare
    Jaxpr in params has none (its operands feed its invars), as in JAX."""
    seen = 0

    def walk(jaxpr):
        nonlocal seen
        for eqn in jaxpr.eqns:
            for v in eqn.params.values():
                for sub in v if isinstance(v, tuple) else (v,):
                    if isinstance(sub, mj.core.ClosedJaxpr):
                        assert len(sub.jaxpr.constvars) == len(sub.consts)
                        seen += 1
                        walk(sub.jaxpr)
                    elif isinstance(sub, mj.core.Jaxpr):
                        assert sub.constvars == []
                        seen += 1
                        walk(sub)

    for name in sorted(PROGRAMS):
        fun, args = PROGRAMS[name]
        walk(mj.make_jaxpr(fun)(*args).jaxpr)
    assert seen >= 8


def test_closed_jaxpr_variants_share_program_and_identity():
    closed = mj.make_jaxpr(lambda x: jnp.sin(x) * C)(X)
    jaxpr = closed.jaxpr
    as_args = mj.core.ClosedJaxpr(jaxpr, [])
    assert as_args.jaxpr is mj.core.ClosedJaxpr(jaxpr, []).jaxpr  # stable: caches keep hitting
    assert as_args.jaxpr.constvars == []
    assert as_args.jaxpr.invars == jaxpr.in_binders
    assert as_args.jaxpr.eqns is jaxpr.eqns
    assert as_args.jaxpr.with_num_consts(1) is jaxpr
    np.testing.assert_array_equal(as_args(C, X)[0], closed(X)[0])


def test_eval_jaxpr_jax_signature_checks_counts():
    closed = mj.make_jaxpr(lambda x: jnp.sin(x) * C)(X)
    with pytest.raises(TypeError, match="1 constvars and 1 invars"):
        mj.core.eval_jaxpr(closed.jaxpr, [], C, X)
    with pytest.raises(TypeError, match="takes a Jaxpr"):
        mj.core.eval_jaxpr(closed, [], X)
    (out,) = mj.core.jaxpr_as_fun(closed)(X)
    np.testing.assert_allclose(out, np.sin(X) * C, rtol=1e-6)


# --- Primitive.bind, def_impl, def_abstract_eval ------------------------------------------------


def test_primitive_bind_result_convention():
    y = lax.sin_p.bind(X)
    assert not isinstance(y, list)
    np.testing.assert_allclose(y, np.sin(X), rtol=1e-6)
    keys = lax.sort_p if hasattr(lax, "sort_p") else None
    closed = mj.make_jaxpr(lambda x: lax.sort((x, -x), num_keys=1))(X)
    (eqn,) = [e for e in closed.jaxpr.eqns if e.primitive.multiple_results]
    assert keys is None or eqn.primitive is keys
    outs = eqn.primitive.bind(X, -X, **eqn.params)
    assert isinstance(outs, list)
    assert len(outs) == 2
    order = np.argsort(X)
    np.testing.assert_array_equal(outs[0], X[order])
    np.testing.assert_array_equal(outs[1], -X[order])
    # under a transformation, bind applies the transformation's rule
    np.testing.assert_allclose(mj.grad(lambda x: lax.sin_p.bind(x))(0.3), np.cos(0.3), rtol=1e-6)


def test_def_impl_and_def_abstract_eval_register_jax_style_rules():
    multiply_add_p = mj.extend.core.Primitive("multiply_add_test")
    calls = []

    @multiply_add_p.def_impl
    def _impl(x, y, z):
        calls.append("impl")
        return np.add(np.multiply(x, y), z)

    @multiply_add_p.def_abstract_eval
    def _abstract(xs, ys, zs):
        calls.append("abstract")
        return ShapedArray(xs.shape, xs.dtype)

    assert _impl.__name__ == "_impl"  # the decorators return the user's function
    a, b, c = np.float32(2.0), np.float32(3.0), np.float32(10.0)
    assert multiply_add_p.bind(a, b, c) == 16.0
    closed = mj.make_jaxpr(lambda x: multiply_add_p.bind(x, x, c))(a)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is multiply_add_p
    assert eqn.outvars[0].aval.shape == ()
    assert eqn.outvars[0].aval.dtype == np.float32
    assert calls[0] == "impl"
    assert set(calls[1:]) == {"abstract"}  # typing (once more when check_jaxprs is on)
    assert eval_jaxpr(closed.jaxpr, closed.consts, a)[0] == 14.0

    split_p = mj.extend.core.Primitive("split_test")
    split_p.multiple_results = True
    split_p.def_impl(lambda x: (x * 2, x + 1))
    split_p.def_abstract_eval(lambda xs: [xs, xs])
    outs = split_p.bind(X)
    assert isinstance(outs, list)
    assert len(outs) == 2
    np.testing.assert_allclose(outs[1], X + 1)
    closed = mj.make_jaxpr(lambda x: split_p.bind(x))(X)
    assert len(closed.jaxpr.outvars) == 2
    assert closed.jaxpr.eqns[0].primitive is split_p


# --- JAX's text form ----------------------------------------------------------------------------


def test_pretty_print_is_jax_text_form_beside_autodidax_str():
    closed = mj.make_jaxpr(lambda x, y: (jnp.sin(x) * C + 2.0, y))(X, np.int32(1))
    text = closed.jaxpr.pretty_print()
    lines = text.splitlines()
    assert lines[0] == "{ lambda a:f32[3]; b:f32[3] c:i32[]. let"
    assert lines[1:4] == [
        "    d:f32[3] = sin b",
        "    e:f32[3] = mul d a",
        "    f:f32[3] = add e 2.0:f32[]",
    ]
    assert lines[4] == "  in (f, c) }"
    assert closed.pretty_print() == text
    assert str(closed).startswith("{ lambda a:float32[3] b:float32[3] c:int32[] .")
    one = mj.make_jaxpr(jnp.sin)(np.float32(1.0))
    assert one.pretty_print() == "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }"
    assert mj.make_jaxpr(lambda x: x)(1.0).pretty_print().endswith(". let  in (a,) }")


def test_replace_and_closed_jaxpr_jax_names():
    closed = mj.make_jaxpr(lambda x: jnp.sin(x) * C)(X)
    assert closed.invars == closed.jaxpr.invars
    assert closed.constvars == closed.jaxpr.constvars
    assert closed.outvars == closed.jaxpr.outvars
    assert closed.effects == set()
    # an equation rewritten JAX's way: sin -> cos
    jaxpr = closed.jaxpr
    eqns = [e.replace(primitive=lax.cos_p) if e.primitive is lax.sin_p else e for e in jaxpr.eqns]
    rewritten = closed.replace(jaxpr=jaxpr.replace(eqns=eqns))
    assert rewritten.jaxpr.constvars == jaxpr.constvars
    assert rewritten.consts is not closed.consts
    np.testing.assert_allclose(rewritten(X)[0], np.cos(X) * C, rtol=1e-6)
    (eqn,) = (e for e in rewritten.eqns if e.primitive is lax.cos_p)
    assert eqn.invars == eqn.inputs
    # constants turned into arguments: JAX's convert_constvars_jaxpr, spelled with replace
    opened = jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars])
    assert opened.constvars == []
    assert len(opened.invars) == 2
    np.testing.assert_allclose(mj.core.eval_jaxpr(opened, [], C, X)[0], np.sin(X) * C, rtol=1e-6)
    doubled = closed.map_jaxpr(lambda j: j.replace(outvars=[*j.outvars, *j.outvars]))
    assert len(doubled(X)) == 2


def test_jaxpr_in_avals_are_the_arguments_as_in_jax():
    closed = mj.make_jaxpr(lambda x: jnp.sin(x) * C)(np.ones((2, 3), np.float32))
    assert [a.shape for a in closed.jaxpr.in_avals] == [(2, 3)]
    assert closed.jaxpr.in_avals == closed.in_avals
    assert [v.aval.shape for v in closed.jaxpr.in_binders] == [(3,), (2, 3)]


# --- the page verbatim, with ``jax`` resolved to mj by a name-only shim -------------------------

SHIM = """
import sys, types
import mj, mj.numpy, mj.lax, mj.random, mj.core, mj.extend, mj.extend.core
util = types.ModuleType("jax._src.util")
util.safe_map = lambda f, *xs: [f(*args) for args in zip(*xs, strict=True)]
src = types.ModuleType("jax._src")
src.util = util
for name, module in {"jax": mj, "jax.numpy": mj.numpy, "jax.lax": mj.lax,
                     "jax.random": mj.random, "jax.core": mj.core, "jax.extend": mj.extend,
                     "jax.extend.core": mj.extend.core, "jax._src": src,
                     "jax._src.util": util}.items():
    sys.modules[name] = module
"""

# The page's cells from ``examine_jaxpr`` on (the cell before, timing ``jit`` on a 5000x5000
# random matrix, is left out), as the current JAX documentation has them.
PAGE = """
import numpy as np
import jax
import jax.numpy as jnp
from jax import jit, grad, vmap
from jax import random

def examine_jaxpr(closed_jaxpr):
  jaxpr = closed_jaxpr.jaxpr
  print("invars:", jaxpr.invars)
  print("outvars:", jaxpr.outvars)
  print("constvars:", jaxpr.constvars)
  for eqn in jaxpr.eqns:
    print("equation:", eqn.invars, eqn.primitive, eqn.outvars, eqn.params)
  print()
  print("jaxpr:", jaxpr)

def foo(x):
  return x + 1
examine_jaxpr(jax.make_jaxpr(foo)(5))

def bar(w, b, x):
  return jnp.dot(w, x) + b + jnp.ones(5), x
examine_jaxpr(jax.make_jaxpr(bar)(jnp.ones((5, 10)), jnp.ones(5), jnp.ones(10)))

import numpy as np
from functools import wraps

from jax import core
from jax import lax
from jax._src.util import safe_map

def f(x):
  return jnp.exp(jnp.tanh(x))

closed_jaxpr = jax.make_jaxpr(f)(jnp.ones(5))
print(closed_jaxpr.jaxpr)
print(closed_jaxpr.literals)

def eval_jaxpr(jaxpr, consts, *args):
  env = {}
  def read(var):
    if type(var) is core.Literal:
      return var.val
    return env[var]
  def write(var, val):
    env[var] = val
  safe_map(write, jaxpr.invars, args)
  safe_map(write, jaxpr.constvars, consts)
  for eqn in jaxpr.eqns:
    invals = safe_map(read, eqn.invars)
    outvals = eqn.primitive.bind(*invals, **eqn.params)
    if not eqn.primitive.multiple_results:
      outvals = [outvals]
    safe_map(write, eqn.outvars, outvals)
  return safe_map(read, jaxpr.outvars)

closed_jaxpr = jax.make_jaxpr(f)(jnp.ones(5))
EVALUATED = eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, jnp.ones(5))

inverse_registry = {}
inverse_registry[lax.exp_p] = jnp.log
inverse_registry[lax.tanh_p] = jnp.arctanh

def inverse(fun):
  @wraps(fun)
  def wrapped(*args, **kwargs):
    closed_jaxpr = jax.make_jaxpr(fun)(*args, **kwargs)
    out = inverse_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, *args)
    return out[0]
  return wrapped

def inverse_jaxpr(jaxpr, consts, *args):
  env = {}
  def read(var):
    if type(var) is core.Literal:
      return var.val
    return env[var]
  def write(var, val):
    env[var] = val
  safe_map(write, jaxpr.outvars, args)
  safe_map(write, jaxpr.constvars, consts)
  for eqn in jaxpr.eqns[::-1]:
    invals = safe_map(read, eqn.outvars)
    if eqn.primitive not in inverse_registry:
      raise NotImplementedError(
          f"{eqn.primitive} does not have registered inverse.")
    outval = inverse_registry[eqn.primitive](*invals)
    safe_map(write, eqn.invars, [outval])
  return safe_map(read, jaxpr.invars)

def f(x):
  return jnp.exp(jnp.tanh(x))

f_inv = inverse(f)
assert jnp.allclose(f_inv(f(1.0)), 1.0)

jax.make_jaxpr(inverse(f))(f(1.))

GRADS = jit(vmap(grad(inverse(f))))((jnp.arange(5) + 1.) / 5.)
"""


def test_page_runs_verbatim_with_jax_resolved_to_mj():
    namespace: dict = {}
    saved = {k: v for k, v in sys.modules.items() if k == "jax" or k.startswith("jax.")}
    try:
        exec(SHIM, {})
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(PAGE, namespace)
    finally:
        for name in [k for k in sys.modules if k == "jax" or k.startswith("jax.")]:
            del sys.modules[name]
        sys.modules.update(saved)
    text = printed.getvalue()
    assert "invars: [" in text
    assert "constvars: []" in text
    (evaluated,) = namespace["EVALUATED"]
    np.testing.assert_allclose(evaluated, np.exp(np.tanh(np.ones(5))), rtol=1e-6)
    ys = (np.arange(5) + 1.0) / 5.0
    want = 1.0 / (ys * (1.0 - np.log(ys) ** 2))
    np.testing.assert_allclose(namespace["GRADS"], want, rtol=1e-4)
