"""Which dtypes a primitive accepts is decided once, by its typing rule (issue 38): eager
evaluation (the ufunc shortcut and the impl rules), ``jit`` and ``make_jaxpr`` refuse the same
operands, with JAX's ``TypeError`` and wording (``abs does not accept dtype uint8. Accepted
dtypes are subtypes of floating, complexfloating, signedinteger.``), and accept the same ones
with JAX's result dtype. Eagerly mj computed ``shift_right_logical`` of floats (garbage),
``abs`` of unsigned integers and ``lt`` of complex numbers, which ``jit`` refused or XLA failed
on. Each case against JAX 0.10.2 in both dtype modes (the ``x64`` fixture), through
``mj.lax`` and through the lower layer, ``mj_core.lax``, whose lenient functions bind the
primitive directly."""

import jax
import jax.lax as jlax
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.lax as mlax
import mj_core.lax as clax

pytestmark = pytest.mark.oracle

F32 = np.array([1.5, -2.0, 4.0], np.float32)
I32 = np.array([1, -2, 3], np.int32)
U8 = np.array([1, 2, 3], np.uint8)
U32 = np.array([1, 2, 3], np.uint32)
I8 = np.array([1, -2, 3], np.int8)
B = np.array([True, False, True])
C64 = np.array([1 + 1j, -2j, 3], np.complex64)
BF16 = np.array([1.5, -2.0, 4.0], ml_dtypes.bfloat16)

# (jax.lax name, operands, whether mj_core.lax's function refuses them too: its float-valued
# functions compute integers in float, the toolkit's promotion, so only mj.lax refuses those)
REFUSED = [
    ("abs", (U8,), True),
    ("abs", (U32,), True),
    ("abs", (B,), True),
    ("lt", (C64, C64), True),
    ("le", (C64, C64), True),
    ("gt", (C64, C64), True),
    ("ge", (C64, C64), True),
    ("shift_left", (F32, F32), True),
    ("shift_right_logical", (F32, F32), True),
    ("shift_right_arithmetic", (F32, F32), True),
    ("floor", (I32,), True),
    ("ceil", (I32,), True),
    ("round", (I32,), True),
    ("is_finite", (I32,), True),
    ("pow", (I32, I32), True),
    ("bitwise_and", (F32, F32), True),
    ("bitwise_or", (C64, C64), True),
    ("add", (B, B), True),
    ("neg", (B,), True),
    ("integer_pow", (B, 2), True),
    ("sin", (I32,), False),
    ("exp", (B,), False),
    ("atan2", (I32, I32), False),
    ("lgamma", (I32,), False),
]

ACCEPTED = [
    ("abs", (I8,)),
    ("abs", (C64,)),
    ("abs", (F32,)),
    ("lt", (I32, I32)),
    ("lt", (B, B)),
    ("ge", (BF16, BF16)),
    ("shift_right_logical", (U8, U8)),
    ("shift_left", (I32, I32)),
    ("floor", (F32,)),
    ("round", (BF16,)),
    ("is_finite", (F32,)),
    ("pow", (F32, I32)),
    ("pow", (C64, C64)),
    ("bitwise_xor", (B, B)),
    ("sin", (C64,)),
    ("add", (U32, U32)),
    ("integer_pow", (I8, 3)),
]


def _core(name):
    """The lower layer's function (its bitwise functions are named as NumPy's)."""
    return getattr(clax, name)


def _refusal(run):
    """JAX's message of ``run()``'s ``TypeError`` (mj's cut where JAX's ends: mj adds the
    user's source line after it), or what ``run()`` gave instead."""
    try:
        out = run()
    except TypeError as err:
        return str(err).split(" in <lambda> at ")[0].split(" in run at ")[0]
    return f"no error: {out!r}"


def _static_split(args):
    """The array operands and a function applying ``f`` to them with the static ones (the
    integer_pow exponent) closed over."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    statics = {i: a for i, a in enumerate(args) if not isinstance(a, np.ndarray)}

    def apply(f):
        def run(*xs):
            it = iter(xs)
            return f(*(statics[i] if i in statics else next(it) for i in range(len(args))))

        return run

    return arrays, apply


@pytest.mark.parametrize(("name", "args", "core_refuses"), REFUSED, ids=lambda v: str(v)[:20])
def test_refused_eagerly_under_jit_and_make_jaxpr(x64, name, args, core_refuses):
    arrays, apply = _static_split(args)
    want = _refusal(lambda: getattr(jlax, name)(*args))
    assert "does not accept dtype" in want  # (the case is one JAX refuses by dtype)
    mine = getattr(mlax, name)
    ways = [
        lambda: apply(mine)(*arrays),
        lambda: mj.jit(apply(mine))(*arrays),
        lambda: mj.make_jaxpr(apply(mine))(*arrays),
    ]
    if core_refuses:
        core = _core(name)
        ways += [
            lambda: apply(core)(*arrays),
            lambda: mj.jit(apply(core))(*arrays),
            lambda: mj.make_jaxpr(apply(core))(*arrays),
        ]
    for way in ways:
        got = _refusal(way)
        if name in ("lt", "le", "gt", "ge", "bitwise_and", "bitwise_or") and way in ways[3:]:
            # the primitive's own name (mj's ``less``, JAX's ``lt``) leads the message
            assert got.split(" ", 1)[1] == want.split(" ", 1)[1], (name, got, want)
        else:
            assert got == want, (name, got, want)


@pytest.mark.parametrize(("name", "args"), ACCEPTED, ids=lambda v: str(v)[:20])
def test_accepted_give_jaxs_dtype(x64, name, args):
    arrays, apply = _static_split(args)
    want = apply(getattr(jlax, name))(*arrays)
    for f in (getattr(mlax, name), _core(name)):
        for out in (apply(f)(*arrays), mj.jit(apply(f))(*arrays)):
            assert np.dtype(out.dtype) == np.dtype(want.dtype), (name, out.dtype, want.dtype)
            np.testing.assert_allclose(
                np.asarray(out).astype(np.complex128),
                np.asarray(want).astype(np.complex128),
                rtol=1e-6,
            )
        jaxpr = mj.make_jaxpr(apply(f))(*arrays)
        assert np.dtype(jaxpr.out_avals[0].dtype) == np.dtype(want.dtype)


def test_jax_is_the_oracle():
    """(JAX's own refusal, in the words the cases above compare with.)"""
    with pytest.raises(TypeError, match="abs does not accept dtype uint8"):
        jax.jit(jlax.abs)(U8)
