"""Control-flow errors in JAX's wording (JAX's ``lax_control_flow_test`` matches them): mj's
message starts with JAX's and may add the user's source line after it."""

import jax
import numpy as np
import pytest

import mj

NC = 42

CASES = {
    "fori callable": (TypeError, lambda lib: lib.lax.fori_loop(0, 1, NC, 0)),
    "scan callable": (TypeError, lambda lib: lib.lax.scan(NC, 0, 1)),
    "switch callable": (TypeError, lambda lib: lib.lax.switch(0, [NC])),
    "pred None": (TypeError, lambda lib: lib.lax.cond(None, lambda x: x, lambda x: x, 1.0)),
    "pred list": (TypeError, lambda lib: lib.lax.cond([1, 2], lambda x: x, lambda x: x, 1.0)),
    "pred str": (TypeError, lambda lib: lib.lax.cond("abc", lambda x: x, lambda x: x, 1.0)),
    "switch float index": (
        TypeError,
        lambda lib: lib.lax.switch(1.0, [lambda x: x, lambda x: x], 1.0),
    ),
    "switch empty": (ValueError, lambda lib: lib.lax.switch(0, [], 1.0)),
    "scan no axis": (
        ValueError,
        lambda lib: lib.lax.scan(lambda c, i: (c + 1, i), 0, list(range(5))),
    ),
    "scan not a pair": (
        TypeError,
        lambda lib: lib.lax.scan(lambda c, x: np.float32(0.0), 0, np.arange(5.0)),
    ),
    "scan unroll": (
        ValueError,
        lambda lib: lib.lax.scan(lambda x, _: (x, x), 0, np.arange(5), unroll=-1),
    ),
    "scan length": (
        ValueError,
        lambda lib: lib.lax.scan(lambda c, x: (c, x), 0.0, np.arange(10.0), length=5),
    ),
}


def _message(lib, error, call):
    with pytest.raises(error) as info:
        call(lib)
    return str(info.value)


@pytest.mark.parametrize("case", list(CASES), ids=str)
def test_control_flow_error_wording_as_jax(case):
    error, call = CASES[case]
    want = _message(jax, error, call)
    got = _message(mj, error, call)
    assert got.startswith(want), (got, want)


def test_callable_wording_names_the_lax_api():
    for lib in (jax, mj):
        with pytest.raises(TypeError, match=r"lax\.while_loop.*callable"):
            lib.lax.while_loop(NC, NC, 0)
        with pytest.raises(TypeError, match=r"lax\.cond.*callable"):
            lib.lax.cond(0, NC, NC)
        with pytest.raises(TypeError, match=r"lax\.associative_scan: fn argument should be"):
            lib.lax.associative_scan(NC, 0)


@pytest.mark.parametrize("pred", [1.5, 0.0, np.float32(-2.0), 0, 3])
def test_numeric_predicates_as_jax(pred, x64):
    def f(lib):
        return lib.lax.cond(pred, lambda x: (True, x), lambda x: (False, x), 2.0)

    want, got = f(jax), f(mj)
    assert bool(got[0]) == bool(want[0])
    np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(want[1]))


def test_zero_length_scan_under_disable_jit_as_jax():
    def f(lib):
        return lib.lax.scan(lambda c, x: (c + x, x), 0.0, np.array([]))[0]

    assert float(f(mj)) == float(f(jax)) == 0.0
    for lib in (jax, mj):
        with lib.disable_jit(), pytest.raises(ValueError, match="zero-length scan"):
            f(lib)


def test_empty_fori_loop_under_disable_jit_as_jax():
    for lib in (jax, mj):
        with lib.disable_jit():
            out = lib.lax.fori_loop(lower=0, upper=0, body_fun=lambda i, x: x + i, init_val=1.0)
        assert float(out) == 1.0


def _i32(lib):
    return lib.numpy.array(0, "int32")


CARRY_CASES = {
    "tuple lengths": lambda lib: lib.lax.scan(
        lambda c, x: ((0, 0, 0), x), (1, (2, 3)), np.arange(5.0)
    ),
    "python types": lambda lib: lib.lax.scan(
        lambda x, _: ([x[0].astype("float32")] * 2, None), (_i32(lib),) * 2, None, length=1
    ),
    "dict children": lambda lib: lib.lax.scan(
        lambda x, _: (({"a": x[0]["a"], "b": x[0]["a"]},) * 2, None),
        ({"a": _i32(lib)},) * 2,
        None,
        length=1,
    ),
    "one dtype": lambda lib: lib.lax.scan(
        lambda x, _: (x.astype("float32"), None), _i32(lib), None, length=1
    ),
    "dtypes and shapes": lambda lib: lib.lax.scan(
        lambda x, _: (
            (x[0].astype("float32"), x[1].astype("float32").reshape(1, 1), x[2]),
            None,
        ),
        (_i32(lib),) * 3,
        None,
        length=1,
    ),
    "while structure": lambda lib: lib.lax.while_loop(lambda c: True, lambda c: (1.0, 1.0), 0.0),
    "while dtype": lambda lib: lib.lax.while_loop(
        lambda c: c[0] < 1, lambda c: (1.0, True), (0.0, 0.0)
    ),
    "while cond pytree": lambda lib: lib.lax.while_loop(lambda c: (1.0, 1.0), lambda c: c, 0.0),
    "while cond float": lambda lib: lib.lax.while_loop(
        lambda c: np.float32(1.0), lambda c: c, np.float32(0.0)
    ),
}


@pytest.mark.parametrize("case", list(CARRY_CASES), ids=str)
def test_carry_mismatch_wording_as_jax(case):
    want = _message(jax, TypeError, CARRY_CASES[case]).split("Revise")[0]
    got = _message(mj, TypeError, CARRY_CASES[case])
    assert got.startswith(want.replace("jax._src.core.ShapedArray", "mj_core._avals.ShapedArray"))


def test_fori_loop_metadata_mismatch_names_both_keys():
    def f(i, x):
        return {"T": mj.numpy.array([0.5])}

    with pytest.raises(TypeError, match=r"with pytree metadata \('t',\).*metadata \('T',\)"):
        mj.lax.fori_loop(0, 1, f, {"t": mj.numpy.array([1.0])})


BRANCH_CASES = {
    "cond pred function": lambda lib: lib.lax.cond(lambda x: True, lambda t: 2.0, lambda f: 3.0, 1),
    "cond pred tuple": lambda lib: lib.lax.cond((1.0, 1.0), lambda t: 2.0, lambda f: 3.0, 1.0),
    "cond structure": lambda lib: lib.lax.cond(
        True, lambda t: {"a": 2.0}, lambda f: {"a": (3.0, 3.0)}, 1.0
    ),
    "cond types": lambda lib: lib.lax.cond(
        True,
        lambda t: lib.numpy.array([1.0], lib.numpy.float32),
        lambda f: lib.numpy.float32(1.0),
        1.0,
    ),
    "switch index tuple": lambda lib: lib.lax.switch((1.0, 1.0), [lambda _: 2.0] * 2, 1.0),
    "switch index str": lambda lib: lib.lax.switch("foo", [lambda _: 2.0] * 2, 1.0),
    "switch structure": lambda lib: lib.lax.switch(
        2, [lambda _: 1.0, lambda _: 2.0, lambda _: (3.0, 3.0)], 1.0
    ),
    "switch types": lambda lib: lib.lax.switch(
        1,
        [
            lambda _: {"a": lib.numpy.array([1.0], lib.numpy.float32)},
            lambda _: {"a": lib.numpy.float32(1.0)},
        ],
        1.0,
    ),
}


@pytest.mark.parametrize("case", list(BRANCH_CASES), ids=str)
def test_branch_mismatch_wording_as_jax(case):
    want = _message(jax, TypeError, BRANCH_CASES[case]).split("Revise")[0]
    got = _message(mj, TypeError, BRANCH_CASES[case])
    want = want.split(" at 0x")[0]  # (a function's address differs)
    assert got.startswith(want), (got, want)
