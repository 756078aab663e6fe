"""Errors whose text JAX's own tests match: mj's message starts with JAX's words (mj's own
context, e.g. the user's source line, follows). Each case raises the same error class on
both and checks that the phrases JAX's test suite matches appear in both messages."""

import builtins
import re

import jax
import pytest

import mj

pytestmark = pytest.mark.oracle


def _message(lib, fn, error):
    with pytest.raises(getattr(lib.errors, error)) as info:
        fn(lib)
    return str(info.value)


def _both_match(fn, error, *patterns):
    for lib in (jax, mj):
        msg = _message(lib, fn, error)
        for pattern in patterns:
            assert re.search(pattern, msg, re.DOTALL), (lib.__name__, pattern, msg)


def _leak_then_use(lib):
    leaked = []
    lib.jit(lambda x: leaked.append(x) or x)(lib.numpy.zeros((4, 3), "int32"))
    return leaked[0] + 1


def _leak_into_other_trace(lib):
    leaked = []

    def inner(x):
        leaked.append(x)
        return x

    lib.jvp(inner, (1.0,), (1.0,))
    return lib.jit(lambda y: y + leaked[0])(2.0)


def test_escaped_tracer_wording_matches_jax():
    for fn in (_leak_then_use, _leak_into_other_trace):
        _both_match(
            fn, "UnexpectedTracerError", "^Encountered an unexpected tracer", "global state"
        )
    _both_match(_leak_then_use, "UnexpectedTracerError", r"int32\[4,3\]")
    msg = _message(mj, _leak_then_use, "UnexpectedTracerError")
    assert "used after that transformation ended" in msg  # mj's own detail follows


def _vmap_cases(lib):
    jnp = lib.numpy
    x, u = jnp.ones((10, 4), "float32"), jnp.ones((10, 2), "float32")

    def h(a, b):
        return a

    return [
        (lambda: lib.vmap(h, in_axes=(0, 1))(x, u), "ValueError"),
        (lambda: lib.vmap(lambda x, y, z: x, in_axes=(0, 1, 0))(x, u, x), "ValueError"),
        (lambda: lib.vmap(h, in_axes=(0, 1))(x, [u, u]), "ValueError"),
        (lambda: lib.vmap(h)(jnp.ones(1, "int32"), b=jnp.ones(2, "int32")), "ValueError"),
        (lambda: lib.vmap(lambda x: x, axis_size=2)(jnp.arange(8, dtype="int32")), "ValueError"),
        (lambda: lib.vmap(lambda x: x)(1.0), "ValueError"),
        (lambda: lib.vmap(lambda x: x, in_axes=-2)(jnp.ones(3)), "ValueError"),
        (lambda: lib.vmap(lambda x: x, in_axes=None)(jnp.ones(3)), "ValueError"),
        (lambda: lib.vmap(lambda x: x)({}), "ValueError"),
        (lambda: lib.vmap(lambda x: x, in_axes=(0, 0))(x), "ValueError"),
        (lambda: lib.vmap(lambda x: x, in_axes={"a": 0}), "TypeError"),
        (lambda: lib.vmap(lambda x: x, out_axes=None)(x), "ValueError"),
        (lambda: lib.vmap(lambda x: (x, x), out_axes=(0, None))(x), "ValueError"),
        (lambda: lib.vmap(lambda x: x, out_axes=None, axis_name="foo")(x), "ValueError"),
    ]


def test_vmap_error_wording_matches_jax():
    """mj's message is JAX's, followed only by mj's location ``(in f at file:line)``."""
    for (jax_fn, error), (mj_fn, _) in zip(_vmap_cases(jax), _vmap_cases(mj), strict=True):
        with pytest.raises(getattr(builtins, error)) as want:
            jax_fn()
        with pytest.raises(getattr(builtins, error)) as got:
            mj_fn()
        msg = re.sub(r" \(in \S+ at \S+\)\.?$", "", str(got.value))
        assert msg == str(want.value)


def test_vmap_prefix_error_and_docstring_match_jax():
    def f(lib):
        lib.vmap(lambda x: x, in_axes=([0],))(lib.numpy.ones(3))

    for lib in (jax, mj):
        with pytest.raises(ValueError, match="tree prefix") as info:
            f(lib)
        assert re.search(
            r"(?s)^vmap in_axes specification must be a tree prefix of the corresponding value;"
            r".*Mismatch details \(1 found\).*different types at key path\n    vmap in_axes\[0\]",
            str(info.value),
        )

    def superfun(a):
        """Does things with stuff."""

    assert mj.vmap(superfun).__doc__ == jax.vmap(superfun).__doc__
    assert mj.vmap(superfun).__name__ == "superfun"


CONCRETIZATION_CASES = [
    # (function under jit, argument, error class name, the pattern JAX's tests match)
    (lambda x: 1 if x > 0 else 0, 1.0, "TracerBoolConversionError", r"with shape bool\[\]\.\n"),
    (lambda x: int(x), 1.0, "ConcretizationTypeError", r"[Tt]ry using `x.astype\(int\)`"),
    (
        lambda x: int(x),
        1,
        "ConcretizationTypeError",
        "^Abstract tracer value encountered where concrete value is expected: traced array "
        r"with shape int32\[\]\nThe problem arose with the `int` function",
    ),
    (
        lambda n: [1, 2, 3][n],
        1,
        "TracerIntegerConversionError",
        r"^The __index__\(\) method was called on traced array with shape int32\[\]",
    ),
    (lambda n: range(n), 1, "TracerIntegerConversionError", r"^The __index__\(\) method"),
    (lambda n: [1, 2][n], 1.0, "TypeError", "^Only integer scalar arrays can be converted"),
    (
        lambda x: float(x),
        1.0,
        "ConcretizationTypeError",
        r"^Abstract tracer value .* with shape float32\[\]\nThe problem arose with the `float`",
    ),
]


@pytest.mark.parametrize("case", range(len(CONCRETIZATION_CASES)))
def test_concretization_wording_matches_jax(case, x64):
    f, arg, error, pattern = CONCRETIZATION_CASES[case]
    if x64:
        pattern = pattern.replace("int32", "int64").replace("float32", "float64")
    for lib in (jax, mj):
        exc = getattr(builtins, error, None) or getattr(lib.errors, error)
        with pytest.raises(exc) as info:
            lib.jit(f)(arg)
        assert re.search(pattern, str(info.value)), (lib.__name__, str(info.value))


DIFF_CASES = [
    (lambda lib: lib.grad(lambda x: (x, x))(1.0), "^Gradient only defined for scalar-output"),
    (lambda lib: lib.grad(lambda x: ())(1.0), "^Gradient only defined for scalar-output"),
    (
        lambda lib: lib.grad(lambda x: (x, x, x), has_aux=True)(1.0),
        "^expected function with aux output to return a two-element tuple",
    ),
    (
        lambda lib: lib.jacfwd(lambda x: x, holomorphic=True)(1.0),
        "^jacfwd with holomorphic=True requires inputs with complex dtype, but got float",
    ),
    (
        lambda lib: lib.jacrev(lambda x: x, holomorphic=True)(1.0),
        "^jacrev with holomorphic=True requires inputs with complex dtype, but got float",
    ),
    (
        lambda lib: lib.jacfwd(lambda x: x)(1j),
        r"^jacfwd requires real-valued inputs \(input dtype that is a sub-dtype of "
        r"np.floating\), but got complex",
    ),
]


@pytest.mark.parametrize("case", range(len(DIFF_CASES)))
def test_differentiation_refusal_wording_matches_jax(case):
    fn, pattern = DIFF_CASES[case]
    for lib in (jax, mj):
        with pytest.raises(TypeError, match=pattern):
            fn(lib)
