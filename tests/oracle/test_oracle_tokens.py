"""Tokens (``lax.create_token``, ``lax.after_all``, tokens through ``jit``) against JAX 0.10.2
(api_test test_trivial_computations_with_tokens, test_print_token_buffer_error,
test_jit_capturing_token, test_jit_returning_token), in both dtype modes."""

import jax
import numpy as np
import pytest

import mj

pytestmark = pytest.mark.oracle


def _kinds(tree):
    """Each leaf as 'Token' or its dtype name: what a token-carrying result is made of."""
    return [
        "Token" if type(x).__name__ == "Token" else np.asarray(x).dtype.name
        for x in jax.tree_util.tree_leaves(tree)
    ]


def test_create_token_is_a_token_whose_buffer_has_no_value(x64):
    for lib in (jax, mj):
        tok = lib.lax.create_token()
        assert type(tok).__name__ == "Token"
        assert str(lib.typeof(tok)) == "AbstractToken()" or repr(lib.typeof(tok)) == (
            "AbstractToken()"
        )
        assert tok._buf.shape == (0,)
        assert tok._buf.dtype == np.bool_
        assert repr(tok._buf) == "Array([], shape=(0,), dtype=bool)"
        with pytest.raises(RuntimeError, match="Cannot convert a token-shape buffer to a numpy"):
            _ = tok._buf._value
        assert tok.block_until_ready() is None


@pytest.mark.parametrize(
    "program",
    [
        lambda lib, tok: lib.jit(lambda arr, t: (arr, t))(lib.numpy.ones(10), tok),
        lambda lib, tok: lib.jit(lib.lax.create_token)(1.0),
        lambda lib, tok: lib.jit(lambda x: (x + 2, tok))(7),
        lambda lib, tok: lib.jit(lambda t: lib.lax.after_all(t, lib.lax.create_token()))(tok),
        lambda lib, tok: lib.jit(lambda: lib.lax.after_all(tok))(),
        lambda lib, tok: lib.jit(lambda x: (lib.lax.after_all(lib.lax.create_token()), x * x)[1])(
            3.0
        ),
    ],
    ids=["noop", "returning", "capturing", "after_all_arg", "after_all_closure", "internal"],
)
def test_jit_takes_and_returns_tokens(x64, program):
    want = program(jax, jax.lax.create_token())
    tok = mj.lax.create_token()
    got = program(mj, tok)
    assert _kinds(got) == _kinds(want)
    for w, g in zip(jax.tree_util.tree_leaves(want), jax.tree_util.tree_leaves(got), strict=True):
        if type(w).__name__ != "Token":
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        else:
            assert g is not tok  # a new token object, as JAX's
    for lib in (jax, mj):
        assert lib.tree_util.tree_leaves(lib.lax.create_token())[0] is not None


def test_after_all_rejects_non_tokens_in_jax_words(x64):
    for lib in (jax, mj):
        tok = lib.lax.create_token()
        with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
            lib.lax.after_all(tok, 1.0)
        with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
            lib.jit(lib.lax.after_all)(tok, lib.numpy.ones(2))


_JAXPR_PROGRAMS = {
    "create": (lambda lib: lib.lax.create_token, lambda tok: ()),
    "create_arg": (lambda lib: lambda x: lib.lax.create_token(x), lambda tok: (1.0,)),
    "after_all": (
        lambda lib: lambda t: lib.lax.after_all(t, lib.lax.create_token()),
        lambda tok: (tok,),
    ),
    "after_all_none": (lambda lib: lambda: lib.lax.after_all(), lambda tok: ()),
    "pass": (lambda lib: lambda x, t: (x, t), lambda tok: (1.0, tok)),
    "grad": (
        lambda lib: lib.grad(lambda y: (lib.lax.after_all(lib.lax.create_token()), y * y)[1]),
        lambda tok: (3.0,),
    ),
    "grad_has_aux": (
        lambda lib: lib.grad(lambda y: (y * y, lib.lax.create_token()), has_aux=True),
        lambda tok: (3.0,),
    ),
    "vmap": (
        lambda lib: lib.vmap(lambda y: (lib.lax.after_all(lib.lax.create_token()), y * 2)[1]),
        lambda tok: (np.ones(3, np.float32),),
    ),
    "vmap_out_none": (
        lambda lib: lib.vmap(lambda y: (y * 2, lib.lax.create_token()), out_axes=(0, None)),
        lambda tok: (np.ones(3, np.float32),),
    ),
}


#: Programs whose whole text mj prints as JAX does (mj's printer does not yet join several
#: short equations on one line with " ; " nor print unused binders as ``_``, as JAX does).
_SAME_TEXT = ("create", "create_arg", "after_all_none", "pass", "vmap_out_none")


@pytest.mark.parametrize("name", list(_JAXPR_PROGRAMS))
def test_jaxprs_print_tokens_as_jax(x64, name):
    """``Tok`` binders and ``create_token`` / ``after_all`` equations, as JAX prints them
    (mj's ``pretty_print`` is JAX's text; a no-operand equation ends in a space, as JAX's);
    under grad and vmap too: the same equations with the same output types elsewhere."""
    program, args = _JAXPR_PROGRAMS[name]
    want = jax.make_jaxpr(program(jax))(*args(jax.lax.create_token()))
    got = mj.make_jaxpr(program(mj))(*args(mj.lax.create_token()))
    if name in _SAME_TEXT:
        assert got.pretty_print() == str(want)

    def one(aval):
        if type(aval).__name__ == "AbstractToken":
            return "Tok"
        return (tuple(aval.shape), np.dtype(aval.dtype).name)

    def eqns(closed):  # (the token equations: mj's grad adds cotangents with add, not add_any)
        return [
            (e.primitive.name, [one(v.aval) for v in e.outvars])
            for e in closed.jaxpr.eqns
            if e.primitive.name in ("create_token", "after_all")
        ]

    def types(avals):
        return [one(a) for a in avals]

    assert eqns(got) == eqns(want)
    assert types(got.in_avals) == types(want.in_avals)
    assert types(got.out_avals) == types(want.out_avals)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.grad(lambda x: (x * x, lib.lax.create_token()), has_aux=True)(3.0),
        lambda lib: lib.jit(lib.grad(lambda x: (x * x, lib.lax.create_token()), has_aux=True))(3.0),
        lambda lib: lib.value_and_grad(lambda x: (x * x, lib.lax.create_token()), has_aux=True)(
            3.0
        ),
        lambda lib: lib.linearize(lambda x: (x * x, lib.lax.create_token()), 3.0)[0],
        lambda lib: (lambda r: (r[0], r[1]((1.0, r[0][1]))))(
            lib.vjp(lambda x: (x * x, lib.lax.create_token()), 3.0)
        ),
        lambda lib: lib.vmap(lambda x: (x * 2, lib.lax.create_token()), out_axes=(0, None))(
            lib.numpy.ones(3)
        ),
        lambda lib: lib.jit(
            lib.vmap(lambda x: (x * 2, lib.lax.create_token()), out_axes=(0, None))
        )(lib.numpy.ones(3)),
    ],
    ids=["grad", "jit_grad", "value_and_grad", "linearize", "vjp", "vmap", "jit_vmap"],
)
def test_tokens_under_transformations(x64, program):
    """A function that also returns a token, under grad (has_aux), vjp (a token cotangent),
    linearize and vmap (out_axes None): the same values and a Token where JAX has one."""
    want, got = program(jax), program(mj)
    assert _kinds(got) == _kinds(want)
    for w, g in zip(jax.tree_util.tree_leaves(want), jax.tree_util.tree_leaves(got), strict=True):
        if type(w).__name__ != "Token":
            np.testing.assert_allclose(np.asarray(g), np.asarray(w))


def test_vjp_refuses_an_array_cotangent_for_a_token_output(x64):
    for lib in (jax, mj):
        _, f_vjp = lib.vjp(lambda x, lib=lib: (x * x, lib.lax.create_token()), 3.0)
        with pytest.raises(ValueError, match="got float32\\[\\], but expected Tok because"):
            f_vjp((1.0, np.float32(1.0)))


def test_lowered_text_takes_and_returns_stablehlo_tokens(x64):
    def program(lib):
        return lambda a, t: (a, lib.lax.after_all(t, lib.lax.create_token()))

    texts = [
        lib.jit(program(lib)).lower(np.ones(3, np.float32), lib.lax.create_token()).as_text()
        for lib in (jax, mj)
    ]
    for text in texts:
        assert "!stablehlo.token" in text.split("{", 1)[0] + text.split("->", 1)[1][:80]
        assert "stablehlo.create_token : !stablehlo.token" in text
        assert "stablehlo.after_all %arg1, %0 : !stablehlo.token" in text
