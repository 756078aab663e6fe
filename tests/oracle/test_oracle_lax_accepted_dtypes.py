"""Which dtypes a primitive accepts is decided once, by its typing rule (issue 38): eager
evaluation (the ufunc shortcut and the impl rules), ``jit`` and ``make_jaxpr`` refuse the same
operands, with JAX's ``TypeError`` and wording (``abs does not accept dtype uint8. Accepted
dtypes are subtypes of floating, complexfloating, signedinteger.``), and accept the same ones
with JAX's result dtype. Eagerly mj computed ``shift_right_logical`` of floats (garbage),
``abs`` of unsigned integers and ``lt`` of complex numbers, which ``jit`` refused or XLA failed
on. Each case against JAX 0.10.2 in both dtype modes (the ``x64`` fixture), through
``mj.lax`` and through the lower layer, ``mj_core.lax``, whose functions bind the primitive
directly: ``sin`` of an integer is refused there too (issue 38), and the NumPy-level functions
(``mnp.sin``, ``mj.scipy.special.erf``, ...) convert it to JAX's float first, with JAX's
equations (``convert_element_type`` then ``sin``)."""

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

# (jax.lax name, operands): refused by mj.lax and by the lower layer's function alike (its
# float-valued functions take floats only, as JAX's: mnp.sin converts an integer first)
REFUSED = [
    ("abs", (U8,)),
    ("abs", (U32,)),
    ("abs", (B,)),
    ("lt", (C64, C64)),
    ("le", (C64, C64)),
    ("gt", (C64, C64)),
    ("ge", (C64, C64)),
    ("shift_left", (F32, F32)),
    ("shift_right_logical", (F32, F32)),
    ("shift_right_arithmetic", (F32, F32)),
    ("floor", (I32,)),
    ("ceil", (I32,)),
    ("round", (I32,)),
    ("is_finite", (I32,)),
    ("pow", (I32, I32)),
    ("bitwise_and", (F32, F32)),
    ("bitwise_or", (C64, C64)),
    ("add", (B, B)),
    ("neg", (B,)),
    ("integer_pow", (B, 2)),
    ("sin", (I32,)),
    ("exp", (B,)),
    ("atan2", (I32, I32)),
    ("lgamma", (I32,)),
    ("exp", (I32,)),
    ("log", (U8,)),
    ("sqrt", (B,)),
    ("logistic", (I8,)),
    ("erf", (I32,)),
    ("erfc", (B,)),
    ("digamma", (I32,)),
    ("bessel_i0e", (U32,)),
    ("nextafter", (I32, I32)),
    ("igamma", (I32, I32)),
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


@pytest.mark.parametrize(("name", "args"), REFUSED, ids=lambda v: str(v)[:20])
def test_refused_eagerly_under_jit_and_make_jaxpr(x64, name, args):
    arrays, apply = _static_split(args)
    want = _refusal(lambda: getattr(jlax, name)(*args))
    assert "does not accept dtype" in want  # (the case is one JAX refuses by dtype)
    mine = getattr(mlax, name)
    ways = [
        lambda: apply(mine)(*arrays),
        lambda: mj.jit(apply(mine))(*arrays),
        lambda: mj.make_jaxpr(apply(mine))(*arrays),
    ]
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


def test_weak_python_int_refused_by_the_primitive(x64):
    # a Python int is a weak int32/int64: jax.lax.sin refuses it as it refuses an int array
    want = _refusal(lambda: jlax.sin(2))
    assert want.startswith("sin does not accept dtype int")
    for way in (lambda: clax.sin(2), lambda: mj.jit(lambda: clax.sin(2))(), lambda: mlax.sin(2)):
        assert _refusal(way) == want


def _equations(jaxpr):
    """Each equation's primitive and output types, in order (mj's ``float32`` is JAX's
    ``float32``: dtypes compared, not printed names)."""
    return [
        (e.primitive.name, [(np.dtype(v.aval.dtype), bool(v.aval.weak_type)) for v in e.outvars])
        for e in jaxpr.jaxpr.eqns
    ]


def _mj_and_jax(path):
    import importlib

    module, name = path.rsplit(".", 1)
    return (
        getattr(
            importlib.import_module(module.replace("jnp", "mj.numpy").replace("jax", "mj")), name
        ),
        getattr(importlib.import_module(module.replace("jnp", "jax.numpy")), name),
    )


NUMPY_LEVEL = [
    ("jnp.sin", (I32,)),
    ("jnp.sin", (B,)),
    ("jnp.sin", (I8,)),
    ("jnp.exp", (U32,)),
    ("jnp.sqrt", (I32,)),
    ("jnp.tanh", (I32,)),
    ("jnp.log1p", (B,)),
    ("jnp.arctan2", (I32, I32)),
    ("jnp.sin", (F32,)),
    ("jnp.sin", (np.int32(3),)),
    ("jax.scipy.special.erf", (I32,)),
    ("jax.scipy.special.erfinv", (B,)),
    ("jax.scipy.special.expit", (I32,)),
    ("jax.scipy.special.gammaln", (I32,)),
    ("jax.scipy.special.i0e", (I32,)),
]


@pytest.mark.parametrize(("path", "args"), NUMPY_LEVEL, ids=lambda v: str(v)[:24])
def test_numpy_level_converts_integers_as_jax(x64, path, args):
    """``mnp.sin`` of an integer or bool array: ``convert_element_type`` to JAX's float, then
    the primitive, as ``jnp.sin``'s jaxpr has it (dtypes and weak types per equation), and the
    same values eagerly and under ``jit``."""
    mine, theirs = _mj_and_jax(path)
    assert _equations(mj.make_jaxpr(mine)(*args)) == _equations(jax.make_jaxpr(theirs)(*args))
    want = theirs(*args)
    for out in (mine(*args), mj.jit(mine)(*args)):
        assert np.dtype(out.dtype) == np.dtype(want.dtype)
        np.testing.assert_allclose(np.asarray(out), np.asarray(want), rtol=2e-6, atol=1e-6)


def test_numpy_level_keeps_the_weak_type_as_jax(x64):
    """A traced weak int (a Python scalar argument) converts to a weak float: ``sin`` of it is
    weak, as in JAX; a Python scalar itself becomes a weak float literal."""
    for f, g in ((mj.numpy.sin, jax.numpy.sin), (mj.numpy.exp, jax.numpy.exp)):
        assert _equations(mj.make_jaxpr(f)(2)) == _equations(jax.make_jaxpr(g)(2))
        mine, want = mj.make_jaxpr(lambda f=f: f(2))(), jax.make_jaxpr(lambda g=g: g(2))()
        assert _equations(mine) == _equations(want)
        assert mj.jit(f)(2).weak_type == jax.jit(g)(2).weak_type
        assert f(2).weak_type == g(2).weak_type


#: Functions built on arithmetic primitives that refuse bool (``mul``, ``sub``, ``neg``): JAX's
#: versions take bool arrays (``outer`` multiplies as ``and``, Horner's ``polyval`` likewise,
#: ``cauchy.isf`` promotes to float first), so mj's must not bind the primitive with bools.
BOOL_FUNCTIONS = [
    ("numpy.outer", 2),
    ("numpy.polyval", 2),
    ("numpy.dot", 2),
    ("numpy.inner", 2),
    ("numpy.multiply", 2),
    ("scipy.stats.cauchy.isf", 1),
]


@pytest.mark.parametrize(("path", "nargs"), BOOL_FUNCTIONS, ids=[p for p, _ in BOOL_FUNCTIONS])
def test_functions_of_bool_arrays_as_jax(x64, path, nargs):
    b = np.array([True, False, True])
    args = (b,) * nargs

    def resolve(root):
        for part in path.split("."):
            root = getattr(root, part)
        return root

    want = resolve(jax)(*args)
    for got in (resolve(mj)(*args), mj.jit(resolve(mj))(*args)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
