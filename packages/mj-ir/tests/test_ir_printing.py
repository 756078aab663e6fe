"""The pretty printer: Autodidax format, names, params, nested jaxprs, pp_rules."""

import numpy as np

from mj_core import Primitive, ShapedArray, lax
from mj_ir import ClosedJaxpr, Jaxpr, JaxprEqn, JaxprType, Lit, Var, make_jaxpr, typecheck_jaxpr
from mj_ir.extend import Names, pp, pp_rules

F64 = ShapedArray((), np.float64)


def one_line(s: str) -> str:
    return " ".join(s.split())


# --- the Autodidax examples, as printed in seed 000 (whitespace-normalised there) -------------


def test_seed_mul_by_two():
    closed = make_jaxpr(lambda x: lax.mul(2.0, x))(3.0)
    assert str(closed) == "{ lambda a:float64[] . let b:float64[] = mul 2.0 a in ( b ) }"
    assert repr(typecheck_jaxpr(closed)) == "(float64[]) -> (float64[])"


def test_seed_constant_folded_and_staged():
    assert str(make_jaxpr(lambda: 2.0 * 2.0)()) == "{ lambda . let in ( 4.0 ) }"
    assert str(make_jaxpr(lambda: lax.mul(2.0, 2.0))()) == (
        "{ lambda . let a:float64[] = mul 2.0 2.0 in ( a ) }"
    )


def test_seed_sin_neg_is_multiline_autodidax_layout():
    closed = make_jaxpr(lambda x: lax.neg(lax.sin(x)))(3.0)
    assert str(closed) == (
        "{ lambda a:float64[] .\n  let b:float64[] = sin a\n      c:float64[] = neg b\n  in ( c ) }"
    )
    assert one_line(str(closed)) == (
        "{ lambda a:float64[] . let b:float64[] = sin a c:float64[] = neg b in ( c ) }"
    )


def test_seed_jvp_shaped_jaxpr():
    def f(x, t):
        y, dy = lax.sin(x), lax.mul(lax.cos(x), t)
        return lax.neg(y), lax.neg(dy)

    closed = make_jaxpr(f)(3.0, 1.0)
    assert one_line(str(closed)) == (
        "{ lambda a:float64[] b:float64[] . let c:float64[] = sin a d:float64[] = cos a "
        "e:float64[] = mul d b f:float64[] = neg c g:float64[] = neg e in ( f, g ) }"
    )


def test_seed_identity_float32():
    closed = make_jaxpr(lambda x: x)(np.float32(1.0))
    assert str(closed) == "{ lambda a:float32[] . let in ( a ) }"


# --- names, literals, params ------------------------------------------------------------------


def test_names_continue_after_z_with_ba_bb():
    def f(x):
        for _ in range(27):
            x = lax.sin(x)
        return x

    lines = str(make_jaxpr(f)(1.0)).splitlines()
    assert lines[0] == "{ lambda a:float64[] ."
    assert lines[1] == "  let b:float64[] = sin a"
    assert lines[25].split() == ["z:float64[]", "=", "sin", "y"]
    assert lines[26].split() == ["ba:float64[]", "=", "sin", "z"]
    assert lines[27].split() == ["bb:float64[]", "=", "sin", "ba"]
    assert lines[-1] == "  in ( bb ) }"


def test_literal_kinds_and_shapes():
    closed = make_jaxpr(lambda x, b: (lax.add(x, 1), lax.bitwise_and(b, True)))(
        np.ones((2, 3), np.int32), np.array([True, False])
    )
    text = str(closed)
    assert "c:int32[2,3] = add a 1" in text
    assert "d:bool[2] = and b True" in text


def test_params_print_in_brackets_sorted():
    closed = make_jaxpr(lambda x: lax.reduce_sum(x, (0,)))(np.ones(3))
    assert str(closed) == (
        "{ lambda a:float64[3] . let b:float64[] = reduce_sum[axes=(0,)] a in ( b ) }"
    )
    closed = make_jaxpr(lambda x: lax.argmax(x, 0, np.int32))(np.ones(3))
    assert "argmax[axes=(0,) index_dtype=int32] a" in str(closed)


_call_p = Primitive("test_call")


def _nested_example() -> Jaxpr:
    inner = make_jaxpr(lambda y: lax.neg(lax.sin(y)))(1.0)
    a, b = Var(F64), Var(F64)
    eqn = JaxprEqn(_call_p, [a], {"name": "f", "jaxpr": inner}, [b])
    return Jaxpr([a], [eqn], [b])


def test_nested_jaxpr_params_are_indented():
    assert str(_nested_example()) == (
        "{ lambda a:float64[] .\n"
        "  let b:float64[] = test_call[\n"
        "        jaxpr={ lambda a:float64[] .\n"
        "                let b:float64[] = sin a\n"
        "                    c:float64[] = neg b\n"
        "                in ( c ) }\n"
        "        name=f\n"
        "      ] a\n"
        "  in ( b ) }"
    )


def test_tuple_of_jaxprs_param_goes_one_jaxpr_per_line_like_jax():
    inner = make_jaxpr(lambda y: lax.neg(y))(1.0)
    a, b = Var(F64), Var(F64)
    eqn = JaxprEqn(_call_p, [a], {"branches": (inner, inner)}, [b])
    assert str(Jaxpr([a], [eqn], [b])) == (
        "{ lambda a:float64[] .\n"
        "  let b:float64[] = test_call[\n"
        "        branches=(\n"
        "          { lambda a:float64[] . let b:float64[] = neg a in ( b ) }\n"
        "          { lambda a:float64[] . let b:float64[] = neg a in ( b ) }\n"
        "        )\n"
        "      ] a\n"
        "  in ( b ) }"
    )


def test_pp_rules_hook(monkeypatch):
    def pp_call(names: Names, eqn: JaxprEqn) -> object:
        outs = " ".join(names[v] for v in eqn.out_binders)
        return pp(f"{outs} = call {eqn.params['name']}({names[eqn.inputs[0]]})")

    monkeypatch.setitem(pp_rules, _call_p, pp_call)
    assert str(_nested_example()) == "{ lambda a:float64[] . let b = call f(a) in ( b ) }"


def test_closed_jaxpr_prints_const_binders_first():
    c = np.arange(3.0)
    closed = make_jaxpr(lambda x: lax.mul(x, c))(np.ones(3))
    assert isinstance(closed, ClosedJaxpr)
    assert str(closed) == (
        "{ lambda a:float64[3] b:float64[3] . let c:float64[3] = mul b a in ( c ) }"
    )
    assert repr(closed) == str(closed)


def test_eqn_and_atoms_print():
    closed = make_jaxpr(lambda x: lax.mul(x, 2.0))(1.0)
    (eqn,) = closed.eqns
    assert str(eqn) == "a:float64[] = mul b 2.0"
    assert repr(Lit(2.0)) == "Lit(2.0)"
    assert repr(JaxprType([F64], [F64, ShapedArray((2,), np.int32)])) == (
        "(float64[]) -> (float64[], int32[2])"
    )


def test_printing_a_large_jaxpr_is_fast_enough():
    def f(x):
        for _ in range(5_000):
            x = lax.sin(x)
        return x

    text = str(make_jaxpr(f)(1.0))
    assert text.count("\n") == 5_001
