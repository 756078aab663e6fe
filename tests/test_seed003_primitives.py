"""Seed 003, "How JAX primitives work", end to end through mj's public registration APIs.

The walk-through adds ``multiply_add(x, y, z) = x * y + z`` one transformation at a time:
each step first shows the ``NotImplementedError`` of the missing rule, then registers the rule
and checks the seed's asserted values. Where JAX attaches rules to the primitive
(``p.def_impl``, ``ad.primitive_jvps[p]``, ``batching.primitive_batchers[p]``, XLA
translations), mj has one table per layer: ``mj_core.impl_rules``,
``mj_ir.abstract_eval_rules``, ``mj_xla.lowering_rules``, ``mj_autodiff.jvp_rules`` /
``transpose_rules``, ``mj_batch.vmap_rules``; rules return lists of outputs.
"""

import functools

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax
from mj_autodiff.extend import Zero, is_undefined_primal, jvp_rules, transpose_rules
from mj_batch.extend import vmap_rules
from mj_core import Primitive, ShapedArray, Tracer, bind1, impl_rules
from mj_core.errors import MissingRuleError
from mj_ir import abstract_eval_rules
from mj_xla.extend import broadcast_to_aval, hlo, lowering_rules

# --- the seed's tracing helper, printing calls and results with their indentation -------------


class Log:
    def __init__(self):
        self.lines = []
        self.depth = 0

    def pp(self, v):
        if isinstance(v, Tracer):
            return f"Traced<{v.aval.str_short()}>"
        if isinstance(v, ShapedArray):
            return f"ShapedArray({v.str_short()})"
        if isinstance(v, tuple | list):
            return "({})".format(", ".join(self.pp(x) for x in v))
        return str(v)

    def say(self, msg):
        self.lines.append(" " * self.depth + msg)

    def trace(self, name):
        def deco(func):
            @functools.wraps(func)
            def wrapper(*args):
                self.say(f"call {name}({', '.join(self.pp(a) for a in args)})")
                self.depth += 1
                res = func(*args)
                self.depth -= 1
                self.say(f"|<- {name} = {self.pp(res)}")
                return res

            return wrapper

        return deco

    def calls(self, name):
        return [line.strip() for line in self.lines if line.strip().startswith(f"call {name}(")]


# --- using existing primitives ------------------------------------------------------------------


def test_multiply_add_from_lax_primitives():
    def multiply_add_lax(x, y, z):
        return lax.add(lax.mul(x, y), z)

    def square_add_lax(a, b):
        return multiply_add_lax(a, a, b)

    assert square_add_lax(2.0, 10.0) == 14.0
    assert mj.grad(square_add_lax, argnums=0)(2.0, 10.0) == 4.0


def test_multiply_add_from_numpy_is_traced_with_tracers_under_grad():
    log = Log()

    @log.trace("multiply_add_numpy")
    def multiply_add_numpy(x, y, z):
        return mnp.add(mnp.multiply(x, y), z)

    @log.trace("square_add_numpy")
    def square_add_numpy(a, b):
        return multiply_add_numpy(a, a, b)

    assert square_add_numpy(2.0, 10.0) == 14.0
    assert log.lines == [
        "call square_add_numpy(2.0, 10.0)",
        " call multiply_add_numpy(2.0, 2.0, 10.0)",
        " |<- multiply_add_numpy = 14.0",
        "|<- square_add_numpy = 14.0",
    ]
    log.lines.clear()
    assert mj.grad(square_add_numpy)(2.0, 10.0) == 4.0
    assert log.calls("square_add_numpy") == [
        "call square_add_numpy(Traced<f64[]~>, 10.0)",
    ]
    assert log.lines[-1].startswith("|<- square_add_numpy = Traced<f64[]")


# --- defining a new primitive, one rule table at a time ---------------------------------------


class MultiplyAdd:
    """The seed's ``multiply_add_p`` with its traced helpers; ``register_*`` add the rules."""

    def __init__(self):
        self.log = Log()
        self.p = Primitive("multiply_add")

        @self.log.trace("multiply_add_prim")
        def multiply_add_prim(x, y, z):
            return bind1(self.p, x, y, z)

        @self.log.trace("square_add_prim")
        def square_add_prim(a, b):
            return multiply_add_prim(a, a, b)

        self.prim = multiply_add_prim
        self.square_add = square_add_prim

    def register_impl(self):
        @impl_rules.register(self.p)
        @self.log.trace("multiply_add_impl")
        def multiply_add_impl(x, y, z):
            return [np.add(np.multiply(x, y), z)]

    def register_abstract_eval(self):
        @abstract_eval_rules.register(self.p)
        @self.log.trace("multiply_add_abstract_eval")
        def multiply_add_abstract_eval(xs, ys, zs):
            assert xs.shape == ys.shape
            assert xs.shape == zs.shape
            return [ShapedArray(xs.shape, xs.dtype, xs.weak_type)]

    def register_lowering(self):
        @lowering_rules.register(self.p)
        @self.log.trace("multiply_add_lowering")
        def multiply_add_lowering(ctx, avals_in, avals_out, in_vals):
            out = avals_out[0]
            x, y, z = (
                broadcast_to_aval(v, a, out.shape, out.dtype)
                for v, a in zip(in_vals, avals_in, strict=True)
            )
            return [hlo.add(hlo.multiply(x, y), z)]

    def register_jvp(self):
        prim = self.prim

        @jvp_rules.register(self.p)
        @self.log.trace("multiply_add_value_and_jvp")
        def multiply_add_value_and_jvp(arg_values, arg_tangents):
            x, y, z = arg_values
            xt, yt, zt = arg_tangents
            self.log.say("Primal evaluation:")
            primal_out = prim(x, y, z)
            self.log.say("Tangent evaluation:")

            def make_zero(tan):
                return lax.zeros_like_array(x) if type(tan) is Zero else tan

            output_tangent = prim(make_zero(xt), y, prim(x, make_zero(yt), make_zero(zt)))
            return [primal_out], [output_tangent]

    def register_transpose(self):
        prim = self.prim

        @transpose_rules.register(self.p)
        @self.log.trace("multiply_add_transpose")
        def multiply_add_transpose(cts, x, y, z):
            (ct,) = cts
            if not is_undefined_primal(x):  # a constant "x": linear in y and z
                assert is_undefined_primal(y)
                ct_y = Zero(y.aval) if type(ct) is Zero else prim(x, ct, lax.zeros_like_array(x))
                return [None, ct_y, ct]
            assert is_undefined_primal(x)  # a constant "y": linear in x and z
            ct_x = Zero(x.aval) if type(ct) is Zero else prim(ct, y, lax.zeros_like_array(y))
            return [ct_x, None, ct]

    def register_batching(self):
        prim = self.prim

        @vmap_rules.register(self.p)
        @self.log.trace("multiply_add_batch")
        def multiply_add_batch(axis_size, vector_arg_values, batch_axes):
            assert batch_axes[0] == batch_axes[1]
            assert batch_axes[0] == batch_axes[2]
            self.log.say("Using multiply_add to compute the batch:")
            return [prim(*vector_arg_values)], [batch_axes[0]]

    def register_all(self):
        for step in (
            self.register_impl,
            self.register_abstract_eval,
            self.register_lowering,
            self.register_jvp,
            self.register_transpose,
            self.register_batching,
        ):
            step()
        return self


def _missing(table_name):
    return pytest.raises(NotImplementedError, match=rf"multiply_add.*{table_name}")


def test_a_primitive_without_rules_raises_not_implemented_error():
    ma = MultiplyAdd()
    with _missing("impl_rules") as err:
        ma.square_add(2.0, 10.0)
    assert isinstance(err.value, MissingRuleError)


def test_primal_evaluation_rule():
    ma = MultiplyAdd()
    ma.register_impl()
    assert ma.square_add(2.0, 10.0) == 14.0
    assert ma.log.lines == [
        "call square_add_prim(2.0, 10.0)",
        " call multiply_add_prim(2.0, 2.0, 10.0)",
        "  call multiply_add_impl(2.0, 2.0, 10.0)",
        "  |<- multiply_add_impl = (14.0)",
        " |<- multiply_add_prim = 14.0",
        "|<- square_add_prim = 14.0",
    ]


def test_jit_needs_abstract_eval_then_lowering():
    ma = MultiplyAdd()
    ma.register_impl()
    with _missing("abstract_eval_rules"):
        mj.jit(ma.square_add)(2.0, 10.0)
    ma.register_abstract_eval()
    with _missing("lowering_rules"):
        mj.jit(ma.square_add)(2.0, 10.0)
    # the abstract evaluation ran on shapes only (again when jaxpr checking is on)
    assert set(ma.log.calls("multiply_add_abstract_eval")) == {
        "call multiply_add_abstract_eval(ShapedArray(f64[]~), ShapedArray(f64[]~), "
        "ShapedArray(f64[]~))"
    }
    ma.register_lowering()
    assert mj.jit(lambda x, y: ma.square_add(x, y))(2.0, 10.0) == 14.0
    assert len(ma.log.calls("multiply_add_lowering")) == 1
    # compiling only with respect to the first argument: the second is a constant
    ma.log.lines.clear()
    assert mj.jit(lambda x, y: ma.square_add(x, y), static_argnums=1)(2.0, 10.0) == 14.0
    assert ma.log.calls("square_add_prim") == ["call square_add_prim(Traced<f64[]~>, 10.0)"]
    assert "multiply_add" in mj.jit(ma.square_add).lower(2.0, 10.0).as_text() or (
        "stablehlo.multiply" in mj.jit(ma.square_add).lower(2.0, 10.0).as_text()
    )


def test_forward_differentiation_and_its_jit():
    ma = MultiplyAdd()
    ma.register_impl()
    ma.register_abstract_eval()
    ma.register_lowering()
    with _missing("jvp_rules"):
        mj.jvp(ma.square_add, (2.0, 10.0), (1.0, 1.0))
    ma.register_jvp()
    # Tangent is: xt*y + x*yt + zt = 1.*2. + 2.*1. + 1. = 5.
    assert mj.jvp(ma.square_add, (2.0, 10.0), (1.0, 1.0)) == (14.0, 5.0)
    ma.log.lines.clear()
    jitted = mj.jit(
        lambda arg_values, arg_tangents: mj.jvp(ma.square_add, arg_values, arg_tangents)
    )
    assert jitted((2.0, 10.0), (1.0, 1.0)) == (14.0, 5.0)
    # abstract evaluation of the jvp rule: the primitive three times, all on shapes (each
    # once more when jaxpr checking is on)
    assert len(ma.log.calls("multiply_add_abstract_eval")) in (3, 6)
    assert len(ma.log.calls("multiply_add_lowering")) == 3


def test_reverse_differentiation_needs_transposition():
    ma = MultiplyAdd()
    ma.register_impl()
    ma.register_abstract_eval()
    ma.register_lowering()
    ma.register_jvp()
    with _missing("transpose_rules"):
        mj.grad(ma.square_add)(2.0, 10.0)
    ma.register_transpose()
    ma.log.lines.clear()
    assert mj.grad(ma.square_add)(2.0, 10.0) == 4.0
    # one transposition per use of the primitive in the tangent computation
    transposes = ma.log.calls("multiply_add_transpose")
    assert len(transposes) == 2
    assert mj.jit(mj.grad(ma.square_add))(2.0, 10.0) == 4.0
    # (the seed's transpose rule assumes one of x, y is a constant: it only supports
    # differentiating with respect to the first argument, in JAX as here)


def test_batching_and_its_jit():
    ma = MultiplyAdd()
    ma.register_impl()
    ma.register_abstract_eval()
    ma.register_lowering()
    xs, ys = np.array([2.0, 3.0]), np.array([10.0, 20.0])
    with _missing("vmap_rules"):
        mj.vmap(ma.square_add, in_axes=0, out_axes=0)(xs, ys)
    ma.register_batching()
    assert np.allclose(mj.vmap(ma.square_add, in_axes=0, out_axes=0)(xs, ys), [14.0, 29.0])
    assert "Using multiply_add to compute the batch:" in [s.strip() for s in ma.log.lines]
    out = mj.jit(mj.vmap(ma.square_add, in_axes=0, out_axes=0))(xs, ys)
    assert isinstance(out, mj.Array)
    np.testing.assert_array_equal(out, [14.0, 29.0])


def test_every_rule_composes():
    ma = MultiplyAdd().register_all()
    xs, ys = np.array([2.0, 3.0]), np.array([10.0, 20.0])

    def loss(a, b):
        return mnp.sum(mj.vmap(ma.square_add)(a, b))

    np.testing.assert_array_equal(mj.jit(mj.grad(loss))(xs, ys), [4.0, 6.0])
    text = str(mj.make_jaxpr(ma.square_add)(2.0, 10.0))
    assert (
        text == "{ lambda a:float64[] b:float64[] . let c:float64[] = multiply_add a a b in ( c ) }"
    )
